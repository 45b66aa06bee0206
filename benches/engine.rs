//! Engine benchmarks (criterion): `cargo bench -p canopy --bench engine`.
//!
//! - `handoff/*`: one producer thread, one consumer thread, frame handles in bursts of
//!   32 through a bounded SPSC ring: `rtrb` against crossbeam's `ArrayQueue`.
//! - `switch/*`: one fat-tree k=4 edge switch on `mem` ports, 60-byte frames (64 B on
//!   the wire) from both host ports, alternately to the other local host (down,
//!   deterministic) and to a remote host (up, adaptive), 1 and 2 workers. The driver
//!   thread of each worker refills 32 frames per host port from a template (standing in
//!   for the NIC's DMA), calls `Worker::poll`, and sinks what came out.
//!   `N_workers_64B` counts only the time inside `Worker::poll` (RX burst from the mem
//!   port, decision, adaptive choice, counters, hand-off to the egress queue or ring, TX drain
//!   into the mem port; two clock reads per poll of 64 frames are included);
//!   `N_workers_64B_with_feed` counts the whole loop (refill and sink too);
//!   `N_workers_64B_local` counts `Worker::poll` for frames that arrive from above on
//!   each up port and go down to the host port the same worker owns (no frame crosses
//!   to the other worker: the engine's scaling without the cross-core hand-off).
//!   Reported as time per frame; with 2 workers, the slower thread's time.
//! - `fabric/k8`: the whole k=8 fat-tree in one process (80 switches, 128 hosts),
//!   uniform random traffic, 1 and 2 threads; time per delivered frame.

use canopy_control::oracle::host_mac;
use canopy_control::sim::Fabric;
use canopy_control::{build_str, kinds};
use canopy_dataplane::engine::{mem, Engine, EngineConfig, Pool, PoolCache, BURST};
use canopy_dataplane::wire::{self, Kind};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use crossbeam_queue::ArrayQueue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

fn handoff(c: &mut Criterion) {
    let mut g = c.benchmark_group("handoff");
    g.throughput(Throughput::Elements(1));
    g.bench_function("rtrb", |b| {
        b.iter_custom(|iters| {
            let (mut tx, mut rx) = rtrb::RingBuffer::<Box<u64>>::new(1024);
            let items: Vec<Box<u64>> = (0..1024).map(Box::new).collect();
            let (back_tx, back_rx) = std::sync::mpsc::channel();
            let t0 = Instant::now();
            let cons = std::thread::spawn(move || {
                let mut got = 0u64;
                let mut keep = Vec::with_capacity(1024);
                while got < iters {
                    let n = rx.slots().min(BURST);
                    if n == 0 {
                        std::hint::spin_loop();
                        continue;
                    }
                    if let Ok(ch) = rx.read_chunk(n) {
                        for x in ch {
                            std::hint::black_box(&x);
                            if keep.len() < 1024 {
                                keep.push(x);
                            }
                        }
                    }
                    got += n as u64;
                }
                let _ = back_tx.send(keep);
            });
            let mut sent = 0u64;
            let mut pool = items;
            while sent < iters {
                let n = tx.slots().min(BURST).min((iters - sent) as usize);
                if n == 0 {
                    std::hint::spin_loop();
                    continue;
                }
                if let Ok(ch) = tx.write_chunk_uninit(n) {
                    // handles are boxes: reuse a fixed set
                    let it = (0..n).map(|i| pool.pop().unwrap_or_else(|| Box::new(i as u64)));
                    sent += ch.fill_from_iter(it) as u64;
                }
            }
            cons.join().unwrap();
            let d = t0.elapsed();
            drop(back_rx.recv());
            d
        })
    });
    g.bench_function("crossbeam_array_queue", |b| {
        b.iter_custom(|iters| {
            let q = Arc::new(ArrayQueue::<Box<u64>>::new(1024));
            let mut pool: Vec<Box<u64>> = (0..1024).map(Box::new).collect();
            let q2 = q.clone();
            let t0 = Instant::now();
            let cons = std::thread::spawn(move || {
                let mut got = 0u64;
                let mut keep = Vec::with_capacity(1024);
                while got < iters {
                    match q2.pop() {
                        Some(x) => {
                            std::hint::black_box(&x);
                            if keep.len() < 1024 {
                                keep.push(x);
                            }
                            got += 1;
                        }
                        None => std::hint::spin_loop(),
                    }
                }
                keep
            });
            let mut sent = 0u64;
            while sent < iters {
                let x = pool.pop().unwrap_or_else(|| Box::new(sent));
                match q.push(x) {
                    Ok(()) => sent += 1,
                    Err(x) => {
                        pool.push(x);
                        std::hint::spin_loop();
                    }
                }
            }
            let _ = cons.join();
            t0.elapsed()
        })
    });
    // the same hand-off without a second thread: burst of 32 in, 32 out (the ring
    // operations' own cost, free of cross-core cache traffic and of core sharing)
    g.bench_function("rtrb_same_thread_burst", |b| {
        let (mut tx, mut rx) = rtrb::RingBuffer::<Box<u64>>::new(1024);
        let mut hold: Vec<Box<u64>> = (0..BURST as u64).map(Box::new).collect();
        b.iter_custom(|iters| {
            let t0 = Instant::now();
            let mut done = 0u64;
            while done < iters {
                if let Ok(ch) = tx.write_chunk_uninit(BURST) {
                    ch.fill_from_iter(hold.drain(..));
                }
                if let Ok(ch) = rx.read_chunk(BURST) {
                    hold.extend(ch);
                }
                done += BURST as u64;
            }
            t0.elapsed()
        })
    });
    g.bench_function("crossbeam_array_queue_same_thread_burst", |b| {
        let q = ArrayQueue::<Box<u64>>::new(1024);
        let mut hold: Vec<Box<u64>> = (0..BURST as u64).map(Box::new).collect();
        b.iter_custom(|iters| {
            let t0 = Instant::now();
            let mut done = 0u64;
            while done < iters {
                for x in hold.drain(..) {
                    let _ = q.push(x);
                }
                while let Some(x) = q.pop() {
                    hold.push(x);
                }
                done += BURST as u64;
            }
            t0.elapsed()
        })
    });
    g.finish();
}

/// A fat-tree k=4 edge switch with every port a mem pair; (engine, outer ends,
/// frame templates per host port: to the other local host and to a remote host).
type Feeds = Vec<(usize, Vec<Vec<u8>>)>;

/// The edge switch's capture, when it has one: every port both ways into a scratch
/// directory (`canopy_switch::capture`), its writer running.
type Cap = Option<(canopy_switch::capture::Capture, tempfile::TempDir)>;

/// The frames the edge switch's bench sends.
#[derive(Clone, Copy)]
enum Traffic {
    /// From both host ports, alternately to the other local host and up to a remote
    /// host: with two workers about half the frames cross to the other worker.
    Mixed,
    /// From each up port down to the host port of the same parity (up port 2 to host
    /// port 0, 3 to 1), as frames arrive from an aggregation switch: with two workers
    /// every frame stays on the worker that received it.
    Local,
}

fn edge_switch(
    workers: usize,
    capture: bool,
    traffic: Traffic,
) -> (Engine, Vec<mem::MemPort>, Feeds, Pool, Cap) {
    let topo = build_str("fat-tree:k=4").unwrap();
    let tables = kinds::tables(&topo, Kind::Sliced).unwrap();
    let sw = topo.switches.iter().position(|s| s.level == 1).unwrap();
    let canopy_control::sim::IsolatedSwitch {
        ports,
        outer,
        hosts,
    } = canopy_control::sim::isolated_switch(&topo, sw, 1024);
    let far = (0..topo.hosts.len() as u32)
        .find(|h| hosts.iter().all(|x| x.1 != *h))
        .unwrap();
    let mk = |s: u32, d: u32| {
        let hd = kinds::header(&topo, Kind::Sliced, s, d).unwrap();
        wire::ethernet_frame(host_mac(&topo, d), host_mac(&topo, s), &hd, &[0; 4])
    };
    let mut tmpl = Vec::new();
    match traffic {
        Traffic::Mixed => {
            for (i, &(p, h)) in hosts.iter().enumerate() {
                let other = hosts[(i + 1) % hosts.len()].1;
                tmpl.push((p, vec![mk(h, other), mk(h, far)]));
            }
        }
        Traffic::Local => {
            let ups: Vec<usize> = (0..outer.len())
                .filter(|p| hosts.iter().all(|h| h.0 != *p))
                .collect();
            for (&u, &(p, h)) in ups.iter().zip(&hosts) {
                assert_eq!(u % 2, p % 2, "up port {u} and host port {p} on one worker");
                let f = arriving(&topo, &tables, sw, u, far, h, mk(far, h));
                tmpl.push((u, vec![f.clone(), f]));
            }
        }
    }
    let pool = Pool::new(8192);
    let cfg = EngineConfig {
        workers,
        ring_size: 1024,
        ..EngineConfig::default()
    };
    let (ports, cap) = if capture {
        let dir = tempfile::tempdir().unwrap();
        let c = canopy_switch::capture::CaptureConfig {
            max_frames: u64::MAX,
            ..canopy_switch::capture::CaptureConfig::new(dir.path().to_path_buf())
        };
        let (mut cap, ports, _) = canopy_switch::capture::Capture::open(&c, ports, vec![]).unwrap();
        cap.start("bench-").unwrap();
        (ports, Some((cap, dir)))
    } else {
        (ports, None)
    };
    let e = Engine::new(tables[sw].clone(), ports, pool.clone(), &cfg).unwrap();
    (e, outer, tmpl, pool, cap)
}

/// `frame` (from host `src` to host `dst`) as it reaches switch `sw` on port `ingress`:
/// decided hop by hop through the fabric's tables along a walk that enters `sw` there
/// (the walk's adaptive choices are random: tried with seeds until one does).
fn arriving(
    topo: &canopy_control::topology::Topology,
    tables: &[canopy_dataplane::table::SwitchTables],
    sw: usize,
    ingress: usize,
    src: u32,
    dst: u32,
    frame: Vec<u8>,
) -> Vec<u8> {
    use rand::SeedableRng;
    let o = canopy_control::oracle::Oracle::new(topo, tables.to_vec());
    let hd = kinds::header(topo, Kind::Sliced, src, dst).unwrap();
    for seed in 0..1000 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let w = o.walk_header(src, dst, &hd, &mut rng);
        let mut f = frame.clone();
        for hop in &w.hops {
            if hop.switch as usize == sw && usize::from(hop.ingress) == ingress {
                return f;
            }
            canopy_dataplane::decide(&tables[hop.switch as usize], hop.ingress, &mut f);
        }
    }
    panic!("no walk from host {src} to {dst} enters switch {sw} on port {ingress}");
}

/// Run `workers` workers of the edge switch on their own threads, each feeding and
/// sinking its own ports, until `iters` frames went through; per thread, the time spent
/// inside `Worker::poll` (`switch_only`) or the whole loop (feeding included). The
/// result is the slowest thread's time.
fn run_switch(
    workers: usize,
    iters: u64,
    switch_only: bool,
    capture: bool,
    traffic: Traffic,
) -> Duration {
    let (eng, outer, tmpl, pool, cap) = edge_switch(workers, capture, traffic);
    let mut outer: Vec<Option<mem::MemPort>> = outer.into_iter().map(Some).collect();
    let per = iters / workers as u64 + 1;
    let barrier = Arc::new(Barrier::new(workers));
    let done = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for (wi, mut w) in eng.workers.into_iter().enumerate() {
        // this worker feeds the host ports it owns and sinks every port it owns
        let mine: Vec<usize> = (0..outer.len()).filter(|p| p % workers == wi).collect();
        let mut ends: Vec<(usize, mem::MemPort)> = mine
            .iter()
            .map(|&p| (p, outer[p].take().unwrap()))
            .collect();
        let feeds: Feeds = tmpl
            .iter()
            .filter(|(p, _)| mine.contains(p))
            .cloned()
            .collect();
        let (pool, barrier, done) = (pool.clone(), barrier.clone(), done.clone());
        threads.push(std::thread::spawn(move || {
            let mut cache = PoolCache::new(&pool);
            barrier.wait();
            let t0 = Instant::now();
            let mut in_poll = Duration::ZERO;
            let mut sent = 0u64;
            let mut k = 0usize;
            while sent < per && !feeds.is_empty() {
                for (p, fr) in &feeds {
                    let end = &mut ends.iter_mut().find(|e| e.0 == *p).unwrap().1;
                    for _ in 0..BURST {
                        let Some(mut b) = cache.get() else { break };
                        b.fill(&fr[k & 1]);
                        k += 1;
                        if let Err(b) = end.send(b) {
                            cache.put(b);
                            break;
                        }
                        sent += 1;
                    }
                }
                if switch_only {
                    let t = Instant::now();
                    w.poll();
                    in_poll += t.elapsed();
                } else {
                    w.poll();
                }
                for (_, e) in ends.iter_mut() {
                    while let Some(b) = e.recv() {
                        cache.put(b);
                    }
                }
            }
            let t = Instant::now();
            while w.poll() > 0 {}
            in_poll += t.elapsed();
            let d = if switch_only { in_poll } else { t0.elapsed() };
            barrier.wait();
            // keep serving the other worker's rings until everyone is done
            done.store(true, Ordering::Relaxed);
            for _ in 0..1000 {
                w.poll();
            }
            d
        }));
    }
    let mut worst = Duration::ZERO;
    for t in threads {
        worst = worst.max(t.join().unwrap());
    }
    if let Some((mut c, _dir)) = cap {
        let r = c.finish();
        let sum =
            |f: fn(&canopy_proto::mgmt::CaptureFile) -> u64| r.files.iter().map(f).sum::<u64>();
        eprintln!(
            "capture: {} frames written, {} dropped (queue full) of {iters} through in {worst:?}",
            sum(|f| f.written),
            sum(|f| f.dropped)
        );
    }
    worst
}

fn switch(c: &mut Criterion) {
    let mut g = c.benchmark_group("switch");
    g.throughput(Throughput::Elements(1));
    for workers in [1usize, 2] {
        g.bench_function(format!("{workers}_workers_64B"), |b| {
            b.iter_custom(|iters| run_switch(workers, iters, true, false, Traffic::Mixed))
        });
        g.bench_function(format!("{workers}_workers_64B_with_feed"), |b| {
            b.iter_custom(|iters| run_switch(workers, iters, false, false, Traffic::Mixed))
        });
        g.bench_function(format!("{workers}_workers_64B_local"), |b| {
            b.iter_custom(|iters| run_switch(workers, iters, true, false, Traffic::Local))
        });
    }
    // every port captured both ways (`[capture]`): the copy into a slot per frame, and
    // the drop count when the writer thread falls behind
    g.bench_function("1_workers_64B_capture", |b| {
        b.iter_custom(|iters| run_switch(1, iters, true, true, Traffic::Mixed))
    });
    g.finish();
}

fn fabric(c: &mut Criterion) {
    let mut g = c.benchmark_group("fabric");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1));
    let topo = build_str("fat-tree:k=8").unwrap();
    for threads in [1usize, 2] {
        g.bench_function(format!("k8_uniform_64B_{threads}threads"), |b| {
        b.iter_custom(|iters| {
            let f = Fabric::new(&topo, Kind::Sliced, false, 512).unwrap();
            let (rep, _) = f
                .run_traffic(threads, Duration::from_millis(500), 1, |_| {})
                .unwrap();
            assert_eq!(rep.misdelivered, 0);
            eprintln!(
                "fabric k=8, {threads} threads: {} sent, {} delivered, {} dropped in {:?} = {:.2} Mpps delivered",
                rep.sent,
                rep.delivered,
                rep.dropped,
                rep.elapsed,
                rep.mpps()
            );
            // scale to the iteration count criterion asked for
            rep.elapsed
                .mul_f64(iters as f64 / rep.delivered.max(1) as f64)
        })
    });
    }
    g.finish();
}

criterion_group!(benches, handoff, switch, fabric);
criterion_main!(benches);
