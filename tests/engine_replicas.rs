//! Receive replicas: several workers share one port's RX (an AF_PACKET fanout group in
//! production; here a second `mem` link standing in for the second socket). A fat-tree
//! k=4 edge switch with two workers: host port 0 (owned by worker 0) gets a replica,
//! which worker 1 polls. Frames arriving on the replica are received by worker 1 only,
//! counted at port 0, and forwarded exactly like frames on the primary.

mod common;

use canopy_control::oracle::host_mac;
use canopy_control::sim::{isolated_switch, IsolatedSwitch};
use canopy_dataplane::engine::counters::totals;
use canopy_dataplane::engine::{mem, Engine, EngineConfig, Pool, Port};
use common::edge::edge_on_mem;

#[test]
fn a_replica_is_received_by_another_worker_and_counted_at_its_port() {
    let (
        e,
        IsolatedSwitch {
            ports,
            mut outer,
            hosts,
        },
    ) = edge_on_mem(256);
    let (topo, sw) = (&e.topo, e.sw);
    let (pa, ha) = hosts[0];
    let (pb, hb) = hosts[1];
    assert_eq!((pa, pb), (0, 1), "host ports first");
    let fr = e.frame_with(ha, hb, &[0; 4]);
    let (mut rep_far, rep) = mem::pair("h0-replica-far", "p0-replica", 256);
    let replicas: Vec<(u16, Box<dyn Port>)> = vec![(0, Box::new(rep))];
    let pool = Pool::new(1024);
    let cfg = EngineConfig {
        workers: 2,
        ..EngineConfig::default()
    };
    let eng =
        Engine::with_rx_replicas(e.tables.clone(), ports, replicas, pool.clone(), &cfg).unwrap();
    let h = eng.handle();
    let mut w = eng.workers;
    let send = |port: &mut mem::MemPort, n: usize| {
        for _ in 0..n {
            let mut b = pool.get().unwrap();
            assert!(b.fill(&fr));
            assert!(port.send(b).is_ok());
        }
    };
    // 10 frames on the replica: worker 0 (the port's owner) does not see them
    send(&mut rep_far, 10);
    while w[0].poll() > 0 {}
    assert_eq!(
        totals(&h.counters()).0,
        0,
        "the owner does not poll the replica"
    );
    // worker 1 receives them; port 1 (host hb) is worker 1's, so it also transmits
    while w[1].poll() > 0 {}
    // 10 more on the primary, received by worker 0, handed to worker 1 for port 1
    send(&mut outer[pa], 10);
    for _ in 0..4 {
        while w[0].poll() + w[1].poll() > 0 {}
    }
    let mut got = 0;
    while let Some(b) = outer[pb].recv() {
        assert_eq!(b.bytes()[..6], host_mac(topo, hb));
        got += 1;
        pool.put(b);
    }
    assert_eq!(got, 20, "every frame delivered to {hb}");
    let c = h.counters();
    assert_eq!(c[pa].rx_packets, 20, "replica frames count at the port");
    assert_eq!(totals(&c), (20, 20, 0));
    // a replica of a port the switch does not have is refused
    let (_x, bad) = mem::pair("x", "y", 4);
    let IsolatedSwitch { ports, .. } = isolated_switch(topo, sw, 4);
    assert!(Engine::with_rx_replicas(
        e.tables.clone(),
        ports,
        vec![(9, Box::new(bad) as Box<dyn Port>)],
        pool.clone(),
        &cfg,
    )
    .is_err());
}
