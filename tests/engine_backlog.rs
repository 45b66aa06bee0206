//! Adaptive choices see the egress port's own TX backlog (frames handed to the backend
//! but not yet on the wire), not only the deciding worker's ring towards it: a fat-tree
//! k=4 edge switch on `mem` ports whose two uplinks drain their engine rings fully every
//! round, one uplink's peer never reading. Without the backlog both uplinks look empty
//! after every drain and split the traffic evenly (the control run shows it).

mod common;

use canopy_control::sim::IsolatedSwitch;
use canopy_dataplane::engine::{Engine, EngineConfig, Pool, BURST};
use common::edge::edge_on_mem;

/// Per uplink, frames it carried after the warm-up; and uplink A's backlog gauge.
fn run(read_a: bool) -> ([u64; 2], u64) {
    // mem links hold 4096 frames: an unread uplink never fills during the test, so the
    // engine's ring towards it empties every round and only the backlog tells them apart
    let (
        e,
        IsolatedSwitch {
            ports, mut outer, ..
        },
    ) = edge_on_mem(4096);
    let ups = &e.ups;
    assert_eq!(ups.len(), 2, "a k=4 edge switch has two uplinks");
    let (hp, h) = e.hosts[0];
    let fr = e.frame_with(h, e.far, &[0; 4]);
    let pool = Pool::new(8192);
    let cfg = EngineConfig {
        ring_size: 1024,
        ..EngineConfig::default()
    };
    let eng = Engine::new(e.tables.clone(), ports, pool.clone(), &cfg).unwrap();
    let handle = eng.handle();
    let mut w = eng.workers;
    let mut carried = [0u64; 2];
    for round in 0..40 {
        for _ in 0..BURST {
            let mut b = pool.get().unwrap();
            assert!(b.fill(&fr));
            outer[hp].send(b).map_err(|_| "send").unwrap();
        }
        while w[0].poll() > 0 {}
        for (i, &u) in ups.iter().enumerate() {
            if i == 0 && !read_a {
                continue;
            }
            while let Some(b) = outer[u].recv() {
                if round >= 4 {
                    carried[i] += 1;
                }
                pool.put(b);
            }
        }
    }
    // an idle round republishes the gauges (B's peer has read everything since)
    assert_eq!(w[0].poll(), 0);
    // what uplink A's peer never read, counted from the engine side
    let s = handle.counters();
    if !read_a {
        carried[0] = s[ups[0]].tx_packets;
    }
    let sent = 40 * BURST as u64;
    assert_eq!(s[ups[0]].tx_packets + s[ups[1]].tx_packets, sent);
    assert_eq!(s[hp].rx_packets, sent);
    (carried, s[ups[0]].tx_backlog)
}

#[test]
fn an_uplink_whose_peer_does_not_read_is_avoided() {
    let (carried, backlog) = run(false);
    let total_b = carried[1];
    // A got frames only while its backlog was small: at most about two bursts in all
    assert!(
        carried[0] <= 2 * BURST as u64,
        "A (unread) carried {} frames in all, B {total_b} after warm-up",
        carried[0]
    );
    assert_eq!(backlog, carried[0], "A's gauge: every frame it was given");
    assert!(total_b >= 36 * BURST as u64 - 2 * BURST as u64, "{total_b}");
}

#[test]
fn control_both_uplinks_read_split_evenly() {
    let (carried, backlog) = run(true);
    let n = 36 * BURST as u64;
    assert_eq!(carried[0] + carried[1], n);
    for c in carried {
        assert!(c > n / 4, "{carried:?}");
    }
    assert_eq!(backlog, 0);
}
