//! Checks on a running engine shared by the backend tests.
#![allow(dead_code)] // each test binary uses a subset

use super::edge::Edge;
use super::netns::Raw;
use canopy_dataplane::engine::{
    counters, Engine, EngineConfig, PollMode, Pool, Port, PortStats, Running,
};
use canopy_dataplane::table::SwitchTables;
use std::time::{Duration, Instant};

/// Every frame received was sent or counted as a drop.
pub fn conserves(s: &[PortStats]) {
    let (rx, tx, dropped) = counters::totals(s);
    assert_eq!(rx, tx + dropped, "rx = tx + drops: {s:#?}");
}

/// Poll `f` every 2 ms until it holds; fail after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Spawn the engine over `ports` (adaptive polling: 200 spins, then sleeping up to
/// `max_sleep`; link upkeep every 20 ms). Call it inside the switch's namespace.
pub fn spawn_engine(
    tables: SwitchTables,
    ports: Vec<Box<dyn Port>>,
    max_sleep: Duration,
) -> Running {
    let ecfg = EngineConfig {
        mode: PollMode::Adaptive {
            spins: 200,
            max_sleep,
        },
        link_poll: Duration::from_millis(20),
        ..EngineConfig::default()
    };
    Engine::new(tables, ports, Pool::new(4096), &ecfg)
        .expect("engine")
        .spawn()
        .expect("spawn")
}

/// Send each frame on `tx` and wait up to 2 s for it on one of `up_rx` (frames
/// `ours` accepts); `check(i, got)` sees what arrived for frame `i`. Per uplink, how
/// many arrived there.
pub fn out_of_uplinks<'a>(
    tx: &Raw,
    up_rx: &[Raw],
    frames: impl IntoIterator<Item = &'a [u8]>,
    ours: fn(&[u8]) -> bool,
    mut check: impl FnMut(usize, &[u8]),
) -> Vec<usize> {
    let mut far_ports = vec![0usize; up_rx.len()];
    for (n, f) in frames.into_iter().enumerate() {
        tx.send(f);
        let t = Instant::now();
        'wait: while t.elapsed() < Duration::from_secs(2) {
            for (i, r) in up_rx.iter().enumerate() {
                if let Some((got, _)) = r.recv_stamped(Duration::from_millis(1), ours) {
                    check(n, &got);
                    far_ports[i] += 1;
                    break 'wait;
                }
            }
        }
    }
    far_ports
}

/// The forwarding checks every backend's engine test makes on the edge switch: all 100
/// frames from host 0 reached host 1's port, all 40 towards the far host left by the
/// uplinks (each chosen adaptively), and the counters conserve.
pub fn assert_forwarded(tag: &str, e: &Edge, s: &[PortStats], local: usize, far: &[usize]) {
    let hp1 = e.hosts[1].0;
    assert_eq!(local, 100, "{tag}: frames to the local host: {s:#?}");
    conserves(s);
    assert_eq!(far.iter().sum::<usize>(), 40, "{tag}: {far:?}");
    assert_eq!(s[hp1].tx_packets, 100, "{tag}");
    assert_eq!(
        s[e.ups[0]].tx_packets + s[e.ups[1]].tx_packets,
        40,
        "{tag}: {s:?}"
    );
    assert_eq!(
        s[e.ups[0]].adaptive_choices + s[e.ups[1]].adaptive_choices,
        40
    );
}
