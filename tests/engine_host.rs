//! A shared host polls many switches' engines on a fixed set of threads: each switch
//! forwards and conserves as it does on its own threads, one switch is taken out and
//! another placed while the rest forward, and stopping gives every worker back.

mod common;

use canopy_control::sim::IsolatedSwitch;
use canopy_dataplane::engine::host::{Host, HostConfig};
use canopy_dataplane::engine::{counters, mem::MemPort, Engine, EngineConfig, EngineHandle, Pool};
use canopy_dataplane::engine::{PollMode, PortStats};
use common::edge::edge_on_mem;
use std::time::{Duration, Instant};

/// One edge switch on `mem` ports, built as an engine (not started): its handle, the
/// far ends of its ports, its host port and a frame from that host to a far host.
struct Sw {
    engine: Option<Engine>,
    handle: EngineHandle,
    outer: Vec<MemPort>,
    host_port: usize,
    frame: Vec<u8>,
    pool: Pool,
}

fn switch() -> Sw {
    let (e, IsolatedSwitch { ports, outer, .. }) = edge_on_mem(1024);
    let (host_port, h) = e.hosts[0];
    let frame = e.frame_with(h, e.far, &[7; 8]);
    let pool = Pool::new(2048);
    let engine = Engine::new(
        e.tables.clone(),
        ports,
        pool.clone(),
        &EngineConfig::default(),
    )
    .expect("engine");
    Sw {
        handle: engine.handle(),
        engine: Some(engine),
        outer,
        host_port,
        frame,
        pool,
    }
}

impl Sw {
    /// Send `n` frames in at the host port.
    fn send(&mut self, n: usize) {
        for _ in 0..n {
            let mut b = self.pool.get().expect("buffer");
            assert!(b.fill(&self.frame));
            self.outer[self.host_port]
                .send(b)
                .map_err(|_| "mem link full")
                .unwrap();
        }
        self.outer[self.host_port].notify();
    }

    /// Frames that came out of the other ports so far (read and returned to the pool).
    fn collect(&mut self) -> u64 {
        let mut n = 0;
        for (i, o) in self.outer.iter_mut().enumerate() {
            if i == self.host_port {
                continue;
            }
            while let Some(b) = o.recv() {
                self.pool.put(b);
                n += 1;
            }
        }
        n
    }

    /// Collect until `want` frames came out in all (`got` so far), for at most 5 s.
    fn expect_out(&mut self, got: &mut u64, want: u64) {
        let t = Instant::now();
        while *got < want && t.elapsed() < Duration::from_secs(5) {
            *got += self.collect();
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(*got, want, "frames out of the switch");
    }

    fn counters(&self) -> Vec<PortStats> {
        self.handle.counters()
    }
}

fn host(threads: usize) -> Host {
    Host::start(&HostConfig {
        threads,
        mode: PollMode::Adaptive {
            spins: 100,
            max_sleep: Duration::from_millis(5),
        },
        pin_cores: Vec::new(),
    })
    .expect("host")
}

#[test]
fn switches_on_a_shared_host_forward_and_conserve_each_on_its_own() {
    let mut h = host(2);
    let mut sws: Vec<Sw> = (0..3).map(|_| switch()).collect();
    for s in &mut sws {
        h.add(s.engine.take().unwrap()).unwrap();
    }
    assert_eq!(h.engines(), 3);
    // three 4-port switches over two threads: 8 and 4 ports
    let mut load = h.load();
    load.sort_unstable();
    assert_eq!(load, vec![4, 8]);
    let mut out = [0u64; 3];
    for (i, s) in sws.iter_mut().enumerate() {
        s.send(100 * (i + 1));
    }
    for (i, s) in sws.iter_mut().enumerate() {
        s.expect_out(&mut out[i], 100 * (i as u64 + 1));
    }
    let workers = h.stop();
    assert_eq!(workers.len(), 3, "every worker given back");
    for (i, s) in sws.iter().enumerate() {
        let c = s.counters();
        let (rx, tx, dropped) = counters::totals(&c);
        assert_eq!(
            rx,
            100 * (i as u64 + 1),
            "switch {i} counted only its own frames"
        );
        assert_eq!((tx, dropped), (rx, 0), "switch {i} conserves");
    }
}

#[test]
fn one_switch_leaves_and_another_joins_while_the_rest_forward() {
    let mut h = host(2);
    let mut a = switch();
    let mut b = switch();
    h.add(a.engine.take().unwrap()).unwrap();
    h.add(b.engine.take().unwrap()).unwrap();
    let (mut out_a, mut out_b) = (0, 0);
    a.send(50);
    b.send(50);
    a.expect_out(&mut out_a, 50);
    b.expect_out(&mut out_b, 50);

    // b leaves: its worker comes back with its ports; a forwards on
    let ws = h.remove(&b.handle).unwrap();
    assert_eq!(ws.len(), 1);
    assert_eq!(h.engines(), 1);
    assert_eq!(
        h.load().iter().sum::<usize>(),
        4,
        "only a's ports are polled"
    );
    assert!(h.remove(&b.handle).is_err(), "b is not placed any more");
    b.send(10);
    a.send(50);
    a.expect_out(&mut out_a, 100);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(b.collect(), 0, "nobody polls a switch that left");
    assert_eq!(counters::totals(&b.counters()).0, 50);

    // c joins while a forwards
    let mut c = switch();
    h.add(c.engine.take().unwrap()).unwrap();
    let mut out_c = 0;
    c.send(30);
    a.send(10);
    c.expect_out(&mut out_c, 30);
    a.expect_out(&mut out_a, 110);
    drop(ws);
    assert_eq!(h.stop().len(), 2);
}

#[test]
fn a_host_needs_a_thread_and_existing_cpus() {
    let cfg = |threads, pin_cores| HostConfig {
        threads,
        mode: PollMode::Busy,
        pin_cores,
    };
    assert!(Host::start(&cfg(0, vec![])).is_err());
    assert!(Host::start(&cfg(1, vec![100_000])).is_err());
}
