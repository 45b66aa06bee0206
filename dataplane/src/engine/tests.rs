use super::*;
use crate::table::{PortConfig, PortDir, PortRole};
use crate::wire;
use std::time::{Duration, Instant};

fn two_port_tables() -> SwitchTables {
    let pc = PortConfig {
        role: PortRole::Down,
        dir: PortDir::Duplex,
    };
    SwitchTables::new("sw", vec![pc, pc])
}

#[test]
fn every_received_frame_is_forwarded_or_dropped_under_its_reason() {
    let pool = Pool::new(256);
    let (a_host, a_sw) = mem::pair("h0", "sw.p0", 64);
    let (b_host, b_sw) = mem::pair("h1", "sw.p1", 64);
    let eng = Engine::new(
        two_port_tables(),
        vec![Box::new(a_sw), Box::new(b_sw)],
        pool.clone(),
        &EngineConfig::default(),
    )
    .unwrap();
    let h = eng.handle();
    let mut workers = eng.workers;
    let mut a_host = a_host;
    let _b = b_host;
    // a runt, a non-Canopy frame, a Canopy frame of a kind with no table
    let canopy = wire::ethernet_frame([2; 6], [4; 6], &[0x10, 0x10, 0x08, 0, 0, 0, 0, 0], &[]);
    for f in [&[1u8, 2, 3][..], &[0u8; 60][..], &canopy[..]] {
        let mut b = pool.get().unwrap();
        assert!(b.fill(f));
        a_host.send(b).map_err(|_| "send").unwrap();
    }
    while workers[0].poll() > 0 {}
    let s = h.counters();
    let (rx, tx, dropped) = counters::totals(&s);
    assert_eq!(rx, 3);
    assert_eq!(rx, tx + dropped);
    assert_eq!(s[0].drops_named("truncated"), 1);
    assert_eq!(s[0].drops_named("not_canopy"), 1);
    assert_eq!(s[0].dropped(), 3, "{:?}", s[0]);
    assert_eq!(pool.available(), 256);
    assert!(h.set_admin(9, false).is_err());
    assert!(h.swap_tables(SwitchTables::new("x", vec![])).is_err());
}

#[test]
fn busy_workers_pin_to_existing_cpus_and_refuse_missing_ones() {
    let pool = Pool::new(8);
    let mk = |pin: Vec<usize>| {
        let (_, a) = mem::pair("h0", "p0", 4);
        let (_, b) = mem::pair("h1", "p1", 4);
        Engine::new(
            two_port_tables(),
            vec![Box::new(a), Box::new(b)],
            pool.clone(),
            &EngineConfig {
                mode: PollMode::Busy,
                pin_cores: pin,
                ..EngineConfig::default()
            },
        )
        .unwrap()
    };
    assert!(matches!(
        mk(vec![100_000]).spawn(),
        Err(EngineError::NoCpu(100_000))
    ));
    let r = mk(vec![0]).spawn().unwrap();
    assert_eq!(r.stop().len(), 1);
}

/// A running two-port engine over `mem` pairs holding `depth` frames each, adaptive with
/// 10 spins and a `max_sleep` far beyond the tests' patience (only a wake-up can be in
/// time); with the host end of port 0 (the other host end stays open).
fn sleepy_engine(pool: &Pool, depth: usize) -> (Running, EngineHandle, mem::MemPort, mem::MemPort) {
    let (a_host, a_sw) = mem::pair("h0", "sw.p0", depth);
    let (b_host, b_sw) = mem::pair("h1", "sw.p1", depth);
    let eng = Engine::new(
        two_port_tables(),
        vec![Box::new(a_sw), Box::new(b_sw)],
        pool.clone(),
        &EngineConfig {
            mode: PollMode::Adaptive {
                spins: 10,
                max_sleep: Duration::from_secs(30),
            },
            ..EngineConfig::default()
        },
    )
    .unwrap();
    let h = eng.handle();
    (eng.spawn().unwrap(), h, a_host, b_host)
}

/// Let the engine's thread go to sleep, deliver `n` frames on `host` with one
/// notification, and wait until port 0 has received `total` frames.
fn deliver_after_sleep(
    h: &EngineHandle,
    pool: &Pool,
    host: &mut mem::MemPort,
    n: usize,
    total: u64,
) {
    std::thread::sleep(Duration::from_millis(30));
    for _ in 0..n {
        let mut b = pool.get().unwrap();
        assert!(b.fill(&[0u8; 60]));
        host.send(b).map_err(|_| "send").unwrap();
    }
    host.notify();
    let t = Instant::now();
    while h.counters()[0].rx_packets < total {
        assert!(t.elapsed() < Duration::from_secs(5), "never woken");
        std::thread::sleep(Duration::from_micros(100));
    }
}

#[test]
fn a_sleeping_adaptive_thread_is_woken_by_a_mem_peer_and_by_stop() {
    let pool = Pool::new(16);
    let (r, h, mut a_host, _b_host) = sleepy_engine(&pool, 8);
    for total in 1..=3 {
        deliver_after_sleep(&h, &pool, &mut a_host, 1, total);
    }
    std::thread::sleep(Duration::from_millis(30));
    let t = Instant::now();
    assert_eq!(r.stop().len(), 1);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "stop waited for max_sleep"
    );
    let s = h.counters();
    assert_eq!(s[0].rx_packets, 3);
    assert_eq!(s[0].drops_named("not_canopy"), 3);
}

#[test]
fn link_falls_are_counted_by_the_owner() {
    let pool = Pool::new(8);
    let (a_host, a_sw) = mem::pair("h0", "sw.p0", 8);
    let (_b, b_sw) = mem::pair("h1", "sw.p1", 8);
    let eng = Engine::new(
        two_port_tables(),
        vec![Box::new(a_sw), Box::new(b_sw)],
        pool,
        &EngineConfig::default(),
    )
    .unwrap();
    let h = eng.handle();
    let mut w = eng.workers;
    for up in [false, false, true, false, true] {
        a_host.link().set_up(up);
        w[0].poll();
        assert_eq!(h.port_state(0).unwrap().link_up(), up);
    }
    let s = h.counters();
    assert_eq!((s[0].link_downs, s[1].link_downs), (2, 0));
    assert_eq!(s[0].backend, BackendCounters::default(), "mem keeps none");
}

/// A port that never receives and counts its link upkeep.
struct Upkept {
    maintained: Arc<AtomicUsize>,
}

impl Port for Upkept {
    fn name(&self) -> &str {
        "upkept"
    }
    fn mtu(&self) -> usize {
        1514
    }
    fn link_up(&self) -> bool {
        true
    }
    fn rx_burst(&mut self, _: &Pool, _: &mut Vec<Buf>, _: usize) -> usize {
        0
    }
    fn rx_ready(&self) -> bool {
        false
    }
    fn tx_space(&self) -> usize {
        BURST
    }
    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        let n = bufs.len();
        for b in bufs.drain(..) {
            pool.put(b);
        }
        n
    }
    fn maintain(&mut self) -> PortEvent {
        self.maintained.fetch_add(1, Ordering::Relaxed);
        PortEvent::Unchanged
    }
}

/// Idle spinning reads the clock only every few rounds: link upkeep still runs every
/// `link_poll` on a thread that never sleeps (busy, and adaptive with more spins than
/// it ever reaches).
#[test]
fn link_upkeep_runs_on_a_thread_that_spins_idle() {
    for mode in [
        PollMode::Busy,
        PollMode::Adaptive {
            spins: u32::MAX - 1,
            max_sleep: Duration::from_secs(30),
        },
    ] {
        let maintained = Arc::new(AtomicUsize::new(0));
        let port = || -> Box<dyn Port> {
            Box::new(Upkept {
                maintained: maintained.clone(),
            })
        };
        let eng = Engine::new(
            two_port_tables(),
            vec![port(), port()],
            Pool::new(8),
            &EngineConfig {
                mode,
                link_poll: Duration::from_millis(5),
                ..EngineConfig::default()
            },
        )
        .unwrap();
        let r = eng.spawn().unwrap();
        // 40 periods; ask for far fewer than the 80 calls due (two ports) so a loaded
        // machine that starves the thread for a while still passes
        std::thread::sleep(Duration::from_millis(200));
        r.stop();
        let n = maintained.load(Ordering::Relaxed);
        assert!(n >= 8, "{mode:?}: link upkeep ran {n} times in 200 ms");
    }
}

/// A burst delivered while the thread sleeps is taken whole, long before `max_sleep`.
#[test]
fn a_burst_arriving_while_the_thread_sleeps_is_taken_whole() {
    let pool = Pool::new(64);
    let (r, h, mut a_host, _b_host) = sleepy_engine(&pool, 64);
    for round in 1..=3u64 {
        deliver_after_sleep(&h, &pool, &mut a_host, BURST, round * BURST as u64);
    }
    r.stop();
    let s = h.counters();
    let (rx, tx, dropped) = counters::totals(&s);
    assert_eq!(rx, 3 * BURST as u64);
    assert_eq!(rx, tx + dropped);
    assert_eq!(pool.available(), 64);
}
