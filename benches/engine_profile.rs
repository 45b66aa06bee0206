//! Profiling driver for the engine's hot path (not a benchmark: no timing).
//!
//! `cargo build --release -p canopy --example engine_profile`, then e.g.
//! `valgrind --tool=callgrind target/release/examples/engine_profile switch 200000`
//! (instruction counts are repeatable on a busy machine, unlike wall-clock time).
//!
//! - `switch N [DRAIN_US]`: one fat-tree k=4 edge switch on `mem` ports, one worker, N
//!   frames of 60 bytes (64 B on the wire) fed in bursts from both host ports, half to the
//!   other local host (down, deterministic) and half to a remote host (up, adaptive). Same
//!   setup as the `switch/*` criterion bench. Drain timer DRAIN_US (default 100 µs; with
//!   0 every round drains everything, so counts repeat under valgrind whatever the load).
//! - `fabric MS [THREADS [DRAIN_US]]`: the k=8 fat-tree in one process, uniform random
//!   traffic for MS milliseconds, drain timer DRAIN_US (default 100 µs; with 0 the run
//!   does the same work per frame whatever the clock, so counts repeat under valgrind).

use canopy_control::oracle::host_mac;
use canopy_control::sim::{isolated_switch, Fabric, IsolatedSwitch};
use canopy_control::{build_str, kinds};
use canopy_dataplane::engine::{Engine, EngineConfig, Pool, PoolCache, BURST};
use canopy_dataplane::wire::{self, Kind};
use std::time::Duration;

fn switch(frames: u64, drain_us: u64) {
    let topo = build_str("fat-tree:k=4").expect("topology");
    let tables = kinds::tables(&topo, Kind::Sliced).expect("tables");
    let sw = topo
        .switches
        .iter()
        .position(|s| s.level == 1)
        .expect("an edge switch");
    let IsolatedSwitch {
        ports,
        mut outer,
        hosts,
    } = isolated_switch(&topo, sw, 1024);
    let far = (0..topo.hosts.len() as u32)
        .find(|h| hosts.iter().all(|x| x.1 != *h))
        .expect("a remote host");
    let mut feeds = Vec::new();
    for (i, &(p, h)) in hosts.iter().enumerate() {
        let other = hosts[(i + 1) % hosts.len()].1;
        let mk = |d: u32| {
            let hd = kinds::header(&topo, Kind::Sliced, h, d).expect("header");
            wire::ethernet_frame(host_mac(&topo, d), host_mac(&topo, h), &hd, &[0; 4])
        };
        feeds.push((p, [mk(other), mk(far)]));
    }
    let pool = Pool::new(8192);
    let cfg = EngineConfig {
        ring_size: 1024,
        drain_interval: Duration::from_micros(drain_us),
        ..EngineConfig::default()
    };
    let mut eng = Engine::new(tables[sw].clone(), ports, pool.clone(), &cfg).expect("engine");
    let w = &mut eng.workers[0];
    let mut cache = PoolCache::new(&pool);
    let (mut sent, mut got, mut k) = (0u64, 0u64, 0usize);
    while sent < frames {
        for (p, fr) in &feeds {
            for _ in 0..BURST {
                let Some(mut b) = cache.get() else { break };
                b.fill(&fr[k & 1]);
                k += 1;
                if let Err(b) = outer[*p].send(b) {
                    cache.put(b);
                    break;
                }
                sent += 1;
            }
        }
        w.poll();
        for e in outer.iter_mut() {
            while let Some(b) = e.recv() {
                got += 1;
                cache.put(b);
            }
        }
    }
    while w.poll() > 0 {}
    for e in outer.iter_mut() {
        while let Some(b) = e.recv() {
            got += 1;
            pool.put(b);
        }
    }
    println!("switch: sent {sent}, forwarded {got}");
}

fn fabric(ms: u64, threads: usize, drain_us: u64) {
    let topo = build_str("fat-tree:k=8").expect("topology");
    let cfg = EngineConfig {
        ring_size: 512,
        drain_interval: Duration::from_micros(drain_us),
        ..EngineConfig::default()
    };
    let f = Fabric::with_config(&topo, Kind::Sliced, &cfg).expect("fabric");
    let (rep, _) = f
        .run_traffic(threads, Duration::from_millis(ms), 1, |_| {})
        .expect("traffic");
    println!(
        "fabric: sent {}, delivered {}, dropped {}, misdelivered {}, {:?}",
        rep.sent, rep.delivered, rep.dropped, rep.misdelivered, rep.elapsed
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let num = |i: usize, d: u64| a.get(i).and_then(|x| x.parse().ok()).unwrap_or(d);
    match a.get(1).map(String::as_str) {
        Some("fabric") => fabric(num(2, 200), num(3, 1) as usize, num(4, 100)),
        _ => switch(num(2, 200_000), num(3, 100)),
    }
}
