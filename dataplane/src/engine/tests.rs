use super::*;
use crate::table::{PortConfig, PortDir, PortRole};
use crate::wire;

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
