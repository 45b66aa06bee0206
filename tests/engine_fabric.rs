//! Whole fabrics in one process (control::sim): every switch an engine with mem ports.
//! Every ordered host pair is sent once per header kind; each delivery must reach the
//! right host, and its engine hop trace must replay exactly against the model's
//! decisions (port or group member at every hop, links followed, bytes identical);
//! the hop count must equal the routing oracle's; every switch must conserve frames.

use canopy_control::oracle::{all_pairs, Oracle};
use canopy_control::sim::{Delivery, Fabric};
use canopy_control::{build_str, kinds};
use canopy_dataplane::wire::Kind;
use rand::SeedableRng;

fn run_fabric(spec: &str, kind: Kind) {
    let topo = build_str(spec).unwrap();
    let mut f = Fabric::new(&topo, kind, true, 1024).unwrap();
    let oracle = Oracle::for_kind(&topo, kind).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let n = topo.hosts.len() as u32;
    let mut delivered = 0u64;
    let mut failures = Vec::new();
    for src in 0..n {
        let mut sent = Vec::new();
        for (s, d) in all_pairs(&topo).filter(|&(s, _)| s == src) {
            let fr = f.frame(s, d).unwrap();
            assert!(f.send(s, &fr), "{spec} {kind:?}: cannot inject h{s}->h{d}");
            sent.push(d);
        }
        f.run_until_idle();
        let mut got: Vec<Delivery> = Vec::new();
        f.collect(|h, b| {
            got.push(Delivery {
                host: h,
                frame: b.bytes().to_vec(),
                trace: b.trace().to_vec(),
            })
        });
        assert_eq!(got.len(), sent.len(), "{spec} {kind:?}: h{src} lost frames");
        for d in &got {
            // the destination is the host whose MAC is the frame's destination
            let dst = (0..n)
                .find(|&h| canopy_control::oracle::host_mac(&topo, h)[..] == d.frame[..6])
                .unwrap();
            if let Err(e) = f.verify(src, dst, d) {
                failures.push(e.to_string());
            }
            let w = oracle.walk(kind, src, dst, &mut rng).unwrap();
            if w.switch_hops() != d.trace.len() {
                failures.push(format!(
                    "h{src}->h{dst}: engine {} hops, oracle {}",
                    d.trace.len(),
                    w.switch_hops()
                ));
            }
            delivered += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{spec} {kind:?}: {:#?}",
        &failures[..failures.len().min(10)]
    );
    assert_eq!(delivered, u64::from(n) * u64::from(n - 1));
    f.check_conservation().unwrap();
    let total_rx: u64 = f.counters().iter().flatten().map(|p| p.rx_packets).sum();
    assert!(
        total_rx >= delivered,
        "{spec}: every frame crossed a switch"
    );
    assert_eq!(f.pool.available(), f.pool.capacity(), "buffers leaked");
}

#[test]
fn fat_tree_k4_every_pair_every_kind() {
    let topo = build_str("fat-tree:k=4").unwrap();
    for kind in kinds::kinds_for(&topo) {
        run_fabric("fat-tree:k=4", kind);
    }
}

#[test]
fn znode_snode_sliced_every_pair() {
    run_fabric("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced);
}

#[test]
fn transit_full_every_pair() {
    run_fabric("transit-full:layers=1", Kind::Transit);
}

#[test]
fn an_admin_down_port_gets_no_adaptive_choice_and_its_losses_are_counted() {
    let topo = build_str("fat-tree:k=4").unwrap();
    let mut f = Fabric::new(&topo, Kind::Sliced, false, 1024).unwrap();
    // take one up port of the first edge switch down: traffic goes round it
    let sw = (0..topo.switches.len())
        .find(|&i| topo.switches[i].level == 1)
        .unwrap();
    let up = topo.switches[sw]
        .ports
        .iter()
        .position(|p| p.role == canopy_dataplane::table::PortRole::Up)
        .unwrap() as u16;
    f.handles[sw].set_admin(up, false).unwrap();
    let n = topo.hosts.len() as u32;
    let mut sent = 0;
    for (s, d) in all_pairs(&topo) {
        let fr = f.frame(s, d).unwrap();
        assert!(f.send(s, &fr));
        sent += 1;
        if sent % 64 == 0 {
            f.run_until_idle();
        }
    }
    f.run_until_idle();
    let mut got = 0u32;
    f.collect(|_, _| got += 1);
    // upward choices avoid the port; downward routes through it are deterministic, so
    // frames the agg sends down that link arrive on an admin-down port: port_down.
    let all = f.counters();
    let c = &all[sw][usize::from(up)];
    assert_eq!(c.tx_packets, 0);
    assert_eq!(c.adaptive_choices, 0);
    let port_down: u64 = all
        .iter()
        .flatten()
        .map(|p| p.drops_named("port_down"))
        .sum();
    let dropped: u64 = all.iter().flatten().map(|p| p.dropped()).sum();
    assert_eq!(port_down, dropped, "no other drop reason");
    assert!(port_down > 0);
    assert_eq!(u64::from(got) + port_down, u64::from(n * (n - 1)));
    f.check_conservation().unwrap();
}

#[test]
fn threaded_uniform_traffic_with_table_swaps_loses_nothing_uncounted() {
    threaded("fat-tree:k=4", Kind::PathId);
    threaded("transit-full:layers=1", Kind::Transit);
}

fn threaded(spec: &str, kind: Kind) {
    let topo = build_str(spec).unwrap();
    let f = Fabric::new(&topo, kind, false, 256).unwrap();
    let (rep, counters) = f
        .run_traffic(2, std::time::Duration::from_millis(200), 9, |handles| {
            // replace every switch's tables while frames flow
            for _ in 0..15 {
                for h in handles {
                    h.swap_tables((*h.tables()).clone()).unwrap();
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
        .unwrap();
    assert_eq!(rep.misdelivered, 0, "{spec}: {rep:?}");
    assert!(rep.delivered > 10_000, "{spec}: {rep:?}");
    assert_eq!(rep.sent, rep.delivered + rep.dropped, "{rep:?}");
    for (i, c) in counters.iter().enumerate() {
        let (rx, tx, d) = canopy_dataplane::engine::counters::totals(c);
        assert_eq!(rx, tx + d, "switch {i}");
        for p in c {
            // only drop-tail may drop valid traffic
            assert_eq!(p.dropped(), p.drops_named("ring_full"), "switch {i}: {p:?}");
        }
    }
}

#[test]
fn a_parked_adaptive_worker_is_woken_by_an_arriving_frame_and_tables_swap_live() {
    use canopy_control::topology::Peer;
    use canopy_dataplane::engine::{Engine, EngineConfig, PollMode, Pool};
    use std::time::{Duration, Instant};
    let topo = build_str("fat-tree:k=4").unwrap();
    let tables = kinds::tables(&topo, Kind::Sliced).unwrap();
    // an edge switch with two hosts
    let (sw, _) = topo
        .switches
        .iter()
        .enumerate()
        .find(|(_, s)| {
            s.ports
                .iter()
                .filter(|p| matches!(p.peer, Peer::Host { .. }))
                .count()
                >= 2
        })
        .unwrap();
    let canopy_control::sim::IsolatedSwitch {
        ports,
        mut outer,
        hosts,
    } = canopy_control::sim::isolated_switch(&topo, sw, 64);
    let (pa, ha) = hosts[0];
    let (pb, hb) = hosts[1];
    let pool = Pool::new(64);
    let cfg = EngineConfig {
        mode: PollMode::Adaptive {
            spins: 10,
            max_sleep: Duration::from_secs(30),
        },
        ..EngineConfig::default()
    };
    let eng = Engine::new(tables[sw].clone(), ports, pool.clone(), &cfg).unwrap();
    let running = eng.spawn().unwrap();
    let h = running.handle();
    let fab = Fabric::new(&topo, Kind::Sliced, false, 8).unwrap();
    for round in 0..3 {
        std::thread::sleep(Duration::from_millis(50)); // the worker parks
        h.swap_tables(tables[sw].clone()).unwrap();
        let mut b = pool.get().unwrap();
        b.fill(&fab.frame(ha, hb).unwrap());
        assert!(outer[pa].send(b).is_ok());
        outer[pa].notify();
        let t0 = Instant::now();
        let got = loop {
            if let Some(b) = outer[pb].recv() {
                break b;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(5),
                "round {round}: not woken"
            );
            std::thread::yield_now();
        };
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(
            &got.bytes()[..6],
            &canopy_control::oracle::host_mac(&topo, hb)[..]
        );
        pool.put(got);
    }
    let ws = running.stop();
    assert_eq!(ws.len(), 1);
    let c = h.counters();
    let (rx, tx, d) = canopy_dataplane::engine::counters::totals(&c);
    assert_eq!((rx, tx, d), (3, 3, 0));
}

#[test]
fn flowlets_pin_a_flow_to_one_path_and_without_them_choices_spread() {
    use canopy_dataplane::engine::EngineConfig;
    use std::collections::HashSet;
    let topo = build_str("fat-tree:k=4").unwrap();
    // hosts 0 and 15 are in different pods: 4 equal-cost paths
    // (gap in the config, gap set through the handles once built)
    let paths = |gap: Option<std::time::Duration>, later: Option<std::time::Duration>| {
        let cfg = EngineConfig {
            trace: true,
            flowlet_gap: gap,
            ..EngineConfig::default()
        };
        let mut f = Fabric::with_config(&topo, Kind::Sliced, &cfg).unwrap();
        for h in &f.handles {
            assert_eq!(h.flowlet_gap(), gap);
            if later.is_some() {
                h.set_flowlet_gap(later);
            }
        }
        let fr = f.frame(0, 15).unwrap();
        let mut seen = HashSet::new();
        for _ in 0..64 {
            assert!(f.send(0, &fr));
            f.run_until_idle();
            f.collect(|h, b| {
                assert_eq!(h, 15);
                seen.insert(b.trace().to_vec());
            });
        }
        f.check_conservation().unwrap();
        seen.len()
    };
    let minute = Some(std::time::Duration::from_secs(60));
    assert_eq!(paths(minute, None), 1);
    assert_eq!(paths(None, None), 4, "idle rings tie: every path gets used");
    // the gap set while the engine exists (as the `flowlets` op does) pins just the same
    assert_eq!(paths(None, minute), 1);
}
