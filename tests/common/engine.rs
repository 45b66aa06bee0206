//! Checks on a running engine shared by the backend tests, and the engine scenarios
//! every socket backend runs the same way (AF_PACKET in `netns_engine.rs`, AF_XDP in
//! `netns_afxdp.rs`): forwarding at a low rate, a port deleted under traffic.
#![allow(dead_code)] // each test binary uses a subset

use super::edge::Edge;
use super::netns::{in_ns, ip, Netns, Raw};
use canopy_dataplane::engine::{
    counters, Engine, EngineConfig, EngineHandle, PollMode, Pool, Port, PortStats, Running,
};
use canopy_dataplane::table::SwitchTables;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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

/// The namespaces of an engine test: `sw` (the engine's ports `<sw_if><i>`) and `nb`
/// (their peers `<nb_if><i>`, where the hosts' raw sockets live).
pub struct Wiring {
    pub ns: Netns,
    pub sw_if: &'static str,
    pub nb_if: &'static str,
}

impl Wiring {
    /// `ports` veths between the two namespaces of `ns`.
    pub fn new(ns: Netns, sw_if: &'static str, nb_if: &'static str, ports: usize) -> Wiring {
        let w = Wiring { ns, sw_if, nb_if };
        for i in 0..ports {
            w.veth(i);
        }
        w
    }
    /// The engine's port `i`.
    pub fn sw(&self, i: usize) -> String {
        format!("{}{i}", self.sw_if)
    }
    /// The peer of port `i`.
    pub fn nb(&self, i: usize) -> String {
        format!("{}{i}", self.nb_if)
    }
    /// (Re-)create the veth of port `i`.
    pub fn veth(&self, i: usize) {
        self.ns.veth(0, &self.sw(i), 1, &self.nb(i));
    }
}

/// How a local frame of [`forward_low_rate`] arrived.
pub struct Arrival {
    /// From just before the send to the receipt.
    pub elapsed: Duration,
    /// The kernel's receive time (CLOCK_REALTIME ns), when `stamps` was asked for.
    pub stamp: Option<u64>,
    pub frame: Vec<u8>,
}

/// The frames of an engine scenario and how to recognise them.
pub struct Traffic {
    /// Host 0 → host 1.
    pub local: Vec<Vec<u8>>,
    /// Host 0 → the far host.
    pub far: Vec<Vec<u8>>,
    /// Applied to each local frame right before it is sent (e.g. a fresh send time).
    pub prepare: fn(&[u8]) -> Vec<u8>,
    pub ours: fn(&[u8]) -> bool,
    pub seq_of: fn(&[u8]) -> u32,
}

/// Forwarding through the engine `run` on the edge switch: the local frames one at a
/// time (send, wait for it, pause 3 ms so the worker goes back to sleep), each arriving
/// in order with its length and Ethernet addresses; then the far frames out of the
/// uplinks. Stops the engine (its one worker survived) and makes the
/// [`assert_forwarded`] checks. The arrivals and the final counters.
pub fn forward_low_rate(
    tag: &str,
    e: &Edge,
    w: &Wiring,
    run: Running,
    t: Traffic,
    stamps: bool,
) -> (Vec<Arrival>, Vec<PortStats>) {
    let h = run.handle();
    let (tx, rx) = (w.nb(e.hosts[0].0), w.nb(e.hosts[1].0));
    let up: Vec<String> = e.ups.iter().map(|&u| w.nb(u)).collect();
    let (lat, far_ports) = in_ns(w.ns.name(1), move || {
        let tx = Raw::open(&tx);
        let rx = Raw::open(&rx);
        if stamps {
            rx.timestamps();
        }
        let up_rx: Vec<Raw> = up.iter().map(|u| Raw::open(u)).collect();
        let mut lat = Vec::new();
        for f in &t.local {
            let f = (t.prepare)(f);
            let start = Instant::now();
            tx.send(&f);
            let Some((got, stamp)) = rx.recv_stamped(Duration::from_secs(2), t.ours) else {
                break;
            };
            let elapsed = start.elapsed();
            assert_eq!((t.seq_of)(&got), (t.seq_of)(&f), "in order, none lost");
            assert_eq!(got.len(), f.len());
            assert_eq!(&got[..12], &f[..12], "Ethernet addresses kept");
            lat.push(Arrival {
                elapsed,
                stamp,
                frame: got,
            });
            std::thread::sleep(Duration::from_millis(3));
        }
        // towards a remote host: out of one of the uplinks
        let far = t.far.iter().map(|f| &f[..]);
        let far_ports = out_of_uplinks(&tx, &up_rx, far, t.ours, |i, got| {
            assert_eq!((t.seq_of)(got), (t.seq_of)(&t.far[i]));
        });
        (lat, far_ports)
    });
    let workers = run.stop();
    assert_eq!(workers.len(), 1, "{tag}: the worker survived");
    let s = h.counters();
    assert_forwarded(tag, e, &s, lat.len(), &far_ports);
    (lat, s)
}

/// Host 1's veth is deleted while `frames` (host 0 → host 1) flow to it, one a ms: the
/// port goes down (counted by the engine and the backend), frames towards it are dropped
/// as `port_down`, the worker keeps running; re-created with the same name, the port
/// reopens in the worker's upkeep and forwarding resumes. Every frame sent is received
/// by the engine or counted as lost by the kernel, and the counters conserve. The final
/// counters.
pub fn delete_under_traffic(
    tag: &str,
    e: &Edge,
    w: &Wiring,
    run: Running,
    frames: Vec<Vec<u8>>,
    ours: fn(&[u8]) -> bool,
) -> Vec<PortStats> {
    let h = run.handle();
    let (hp0, hp1) = (e.hosts[0].0, e.hosts[1].0);
    let nb = w.ns.name(1).to_string();
    // steady traffic h0 → h1, 1 frame per ms, until told to stop
    let stop = Arc::new(AtomicBool::new(false));
    let sent = {
        let (stop, nb, tx) = (stop.clone(), nb.clone(), w.nb(hp0));
        std::thread::spawn(move || {
            in_ns(&nb, move || {
                let tx = Raw::open(&tx);
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) && n < frames.len() {
                    tx.send(&frames[n]);
                    n += 1;
                    std::thread::sleep(Duration::from_millis(1));
                }
                n
            })
        })
    };
    let recv_some = |n: usize| {
        let rx = w.nb(hp1);
        in_ns(&nb, move || {
            let rx = Raw::open(&rx);
            (0..n)
                .filter_map(|_| rx.recv_stamped(Duration::from_secs(3), ours))
                .count()
        })
    };
    assert_eq!(recv_some(20), 20, "{tag}: forwarding before the delete");

    // delete it (its peer goes with it) under traffic
    ip(&["-n", w.ns.name(0), "link", "del", &w.sw(hp1)]);
    let hh = h.clone();
    wait_for("the port to go down", Duration::from_secs(5), || {
        !hh.port_state(hp1 as u16).unwrap().link_up()
    });
    let down_at = h.counters()[hp0].drops_named("port_down");
    wait_for(
        "frames towards the deleted port dropped as port_down",
        Duration::from_secs(5),
        || hh.counters()[hp0].drops_named("port_down") >= down_at + 20,
    );
    let s = h.counters();
    assert!(s[hp1].link_downs >= 1, "{tag}: {:?}", s[hp1]);
    wait_for("the backend's counters", Duration::from_secs(5), || {
        hh.counters()[hp1].backend.link_down_events >= 1
    });

    // re-create it: the port reopens, frames flow again
    w.veth(hp1);
    wait_for("the port to reopen", Duration::from_secs(5), || {
        let s = hh.counters();
        s[hp1].backend.reopens >= 1 && hh.port_state(hp1 as u16).unwrap().link_up()
    });
    assert_eq!(recv_some(20), 20, "{tag}: forwarding after the re-create");

    stop.store(true, Ordering::Relaxed);
    let n_sent = sent.join().expect("sender") as u64;
    // the last frames may wait in the kernel (an AF_PACKET V3 block until its retire
    // timer hands it over); frames the kernel dropped (RX ring full while the worker was
    // starved) are counted beside the engine, by the backend
    let seen = |s: &PortStats| s.rx_packets + s.backend.kernel_drops;
    wait_for("the last frames", Duration::from_secs(5), || {
        seen(&hh.counters()[hp0]) >= n_sent
    });
    let workers = run.stop();
    assert_eq!(workers.len(), 1, "{tag}: the worker survived");
    let s = h.counters();
    conserves(&s);
    report(tag, &h);
    assert_eq!(
        seen(&s[hp0]),
        n_sent,
        "{tag}: every frame sent was received or counted as dropped by the kernel: {:?}",
        s[hp0]
    );
    assert!(s[hp0].drops_named("port_down") >= 20, "{tag}");
    assert_eq!(s[hp1].backend.reopens, 1, "{tag}: {:?}", s[hp1].backend);
    s
}

/// Every port's counters, on stderr.
pub fn report(tag: &str, h: &EngineHandle) {
    for (i, p) in h.counters().iter().enumerate() {
        eprintln!(
            "{tag} port {i}: rx {} tx {} dropped {} link_downs {} backend {:?}",
            p.rx_packets,
            p.tx_packets,
            p.dropped(),
            p.link_downs,
            p.backend
        );
    }
}
