//! AF_XDP port on veth pairs between network namespaces (root only; skipped with a
//! message otherwise). Namespaces are named `axd<pid>-<test>-<x>`, the veths are created
//! inside them and go away with them; a guard deletes the namespaces on drop, also when
//! a test fails (`tests/common/netns.rs`). Each data test runs in generic (SKB) XDP and
//! in native XDP (veth has native XDP; it has no zero-copy, so native binds in copy mode).
#![cfg(target_os = "linux")]

mod common;

use canopy_control::kinds;
use canopy_dataplane::engine::{Port, Running};
use canopy_dataplane::port::afxdp::{
    AfXdpConfig, AfXdpError, AfXdpPort, BindMode, LinkEvent, PortDrop, XdpMode,
    BACKEND_COUNTER_NAMES,
};
use canopy_dataplane::wire::Kind;
use common::backend::{self, measure_on_veths, recv_n};
use common::edge::{edge, Edge, Numbered};
use common::engine::{delete_under_traffic, forward_low_rate, spawn_engine, Traffic, Wiring};
use common::frames::{frame, ours, seq_of, vlan_frames};
use common::netns::{in_ns, ip, Netns, Raw};
use std::time::{Duration, Instant};

/// Namespaces `axd<pid>-<test>-<suffix>`.
fn netns(test: &str, suffixes: &[&str]) -> Netns {
    Netns::tagged("axd", test, suffixes)
}

/// The modes every data test runs in: (mode asked, label, mode expected on veth).
fn modes() -> [(XdpMode, &'static str, BindMode); 2] {
    [
        (XdpMode::Skb, "skb", BindMode::Skb),
        (XdpMode::Copy, "drv", BindMode::Copy),
    ]
}

fn cfg(mode: XdpMode) -> AfXdpConfig {
    AfXdpConfig {
        mode,
        ..AfXdpConfig::default()
    }
}

fn open_in(ns: &str, ifname: &str, c: AfXdpConfig) -> AfXdpPort {
    let name = ifname.to_string();
    in_ns(ns, move || AfXdpPort::open(&name, c)).unwrap_or_else(|e| panic!("open {ifname}: {e}"))
}

/// Frames with the source address of [`frame`].
fn from_aa(f: &[u8]) -> bool {
    f.len() >= 12 && f[6..12] == [0x02, 0, 0, 0, 0, 0xaa]
}

/// Our frames (source address of [`frame`]), received by `port` until `n` arrived or
/// `timeout` passed; records every burst size.
fn port_recv_n(
    port: &mut AfXdpPort,
    n: usize,
    timeout: Duration,
    bursts: &mut Vec<usize>,
) -> Vec<Vec<u8>> {
    recv_n(port, n, timeout, bursts, from_aa)
}

#[test]
fn rx_delivers_exact_bytes_in_bursts_of_32() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, want) in modes() {
        let ns = netns(&format!("rx{tag}"), &["a", "b"]);
        ns.veth(0, "axa", 1, "axb");
        let mut port = open_in(ns.name(0), "axa", cfg(mode));
        assert_eq!(port.mode(), want, "{tag}");
        assert_eq!(port.name(), "axa");
        assert_eq!(port.queue(), 0);
        assert_eq!(port.mtu(), 1500);
        assert_eq!(port.max_frame(), 1514);
        assert!(port.link_up());
        let raw = in_ns(ns.name(1), || Raw::open("axb"));
        backend::rx_exact(tag, &mut port, &raw, from_aa);
        let st = port.stats();
        assert!(st.rx_frames >= 200, "{tag}");
        assert_eq!(st.kernel.rx_lost(), 0, "{tag}: {st:?}");
        assert_eq!(st.drop_count(PortDrop::RxBadDesc), 0, "{tag}");
        let mut bursts = vec![];
        // more frames than the fill ring holds: chunks go back to the fill ring
        let more: Vec<Vec<u8>> = (0..5000u32).map(|i| frame(1000 + i, 64)).collect();
        let mut got = vec![];
        for chunk in more.chunks(500) {
            for f in chunk {
                raw.send(f);
            }
            got.extend(port_recv_n(
                &mut port,
                chunk.len(),
                Duration::from_secs(5),
                &mut bursts,
            ));
        }
        assert_eq!(got, more, "{tag}: 5000 frames through 2048 RX chunks");
    }
}

#[test]
fn tx_frames_arrive_exactly() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, _) in modes() {
        let ns = netns(&format!("tx{tag}"), &["a", "b"]);
        ns.veth(0, "axa", 1, "axb");
        let mut port = open_in(ns.name(0), "axa", cfg(mode));
        let raw = in_ns(ns.name(1), || Raw::open("axb"));
        backend::tx_exact(tag, &mut port, &raw, 8, 64);
        let t = Instant::now();
        while port.tx_backlog() > 0 && t.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(port.tx_backlog(), 0, "{tag}: every chunk completed");
        let st = port.stats();
        assert_eq!(st.tx_frames, 512);
        assert!(st.tx_wakeups > 0, "{tag}: copy mode asks for TX wakeups");
        assert_eq!(st.kernel.tx_invalid_descs, 0, "{tag}");
    }
}

/// XDP sees a frame before the stack takes its VLAN tag out (`skb_vlan_untag` runs
/// after generic XDP in `__netif_receive_skb_core`, and native XDP runs in the driver),
/// so unlike AF_PACKET nothing needs restoring: tagged frames arrive as they were on
/// the wire, both ways (port → veth → port, both AF_XDP).
#[test]
fn tagged_frames_cross_intact_both_ways() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, _) in modes() {
        let ns = netns(&format!("vl{tag}"), &["a", "b"]);
        ns.veth(0, "axa", 1, "axb");
        let mut a = open_in(ns.name(0), "axa", cfg(mode));
        let mut b = open_in(ns.name(1), "axb", cfg(mode));
        let sent = vlan_frames();
        // a → b and b → a
        let cross = |from: &mut AfXdpPort, to: &mut AfXdpPort, dir: &str| {
            for f in &sent {
                assert_eq!(from.tx_frame(f), Ok(true));
            }
            from.tx_flush().unwrap();
            let got = port_recv_n(to, sent.len(), Duration::from_secs(5), &mut vec![]);
            assert_eq!(got, sent, "{tag} {dir}: frames as they were on the wire");
        };
        cross(&mut a, &mut b, "a->b");
        cross(&mut b, &mut a, "b->a");
        // and from a plain AF_PACKET sender (the kernel's own TX path)
        let raw = in_ns(ns.name(1), || Raw::open("axb"));
        drop(b);
        for f in &sent {
            raw.send(f);
        }
        let got = port_recv_n(&mut a, sent.len(), Duration::from_secs(5), &mut vec![]);
        assert_eq!(got, sent, "{tag}: from AF_PACKET");
    }
}

/// The mode obtained is reported: `auto` on veth is native copy (veth has native XDP
/// but no zero-copy), `zerocopy` on veth fails naming the fix, `copy` on an interface
/// without native XDP (loopback) fails naming the fix, and `auto` there falls back to
/// generic XDP.
#[test]
fn mode_is_reported_and_unsupported_modes_fail_with_the_fix() {
    canopy_test_utils::netns_or_return!();
    let ns = netns("mode", &["a", "b"]);
    ns.veth(0, "axa", 1, "axb");
    let p = open_in(ns.name(0), "axa", cfg(XdpMode::Auto));
    assert_eq!(p.mode(), BindMode::Copy);
    assert_eq!(p.mode().as_str(), "copy");
    drop(p);
    let e = in_ns(ns.name(0), || {
        AfXdpPort::open("axa", cfg(XdpMode::ZeroCopy))
    })
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, AfXdpError::Bind { .. }), "{msg}");
    assert!(msg.starts_with("axa: "), "{msg}");
    assert!(msg.contains("use mode = \"copy\" or \"auto\""), "{msg}");
    // the failed open detached its program: a new one attaches in generic mode
    let p = open_in(ns.name(0), "axa", cfg(XdpMode::Skb));
    assert_eq!(p.mode(), BindMode::Skb);
    drop(p);

    let e = in_ns(ns.name(0), || AfXdpPort::open("lo", cfg(XdpMode::Copy))).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, AfXdpError::Attach { .. }), "{msg}");
    assert!(
        msg.starts_with("lo: cannot attach XDP in native mode"),
        "{msg}"
    );
    assert!(msg.contains("use mode = \"skb\""), "{msg}");
    let p = open_in(ns.name(0), "lo", cfg(XdpMode::Auto));
    assert_eq!(p.mode(), BindMode::Skb);
}

/// `promiscuity` of `dev` in `ns` (`ip -d -j link show`).
fn promiscuity(ns: &str, dev: &str) -> u64 {
    let out = std::process::Command::new("ip")
        .args(["-n", ns, "-d", "-j", "link", "show", "dev", dev])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v[0]["promiscuity"].as_u64().unwrap()
}

#[test]
fn an_open_port_holds_its_interface_promiscuous() {
    // a NIC that filters by MAC (virtio-net, real NICs) drops frames for other MACs
    // before XDP sees them; a switch port takes them all
    canopy_test_utils::netns_or_return!();
    let ns = netns("promisc", &["a", "b"]);
    ns.veth(0, "axa", 1, "axb");
    assert_eq!(promiscuity(ns.name(0), "axa"), 0);
    for (mode, label, _) in modes() {
        let p = open_in(ns.name(0), "axa", cfg(mode));
        assert_eq!(promiscuity(ns.name(0), "axa"), 1, "{label}");
        drop(p);
        assert_eq!(
            promiscuity(ns.name(0), "axa"),
            0,
            "{label}: released with the port"
        );
    }
}

#[test]
fn bad_interface_and_queue_are_named_errors() {
    canopy_test_utils::netns_or_return!();
    let ns = netns("bad", &["a", "b"]);
    ns.veth(0, "axa", 1, "axb");
    let e = in_ns(ns.name(0), || {
        AfXdpPort::open("axnope", AfXdpConfig::default())
    })
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, AfXdpError::NoInterface { .. }), "{msg}");
    assert!(msg.starts_with("axnope: no such interface"), "{msg}");
    assert!(msg.contains("ip link show axnope"), "{msg}");
    // veth has one queue by default
    let c = AfXdpConfig {
        queue: 3,
        ..cfg(XdpMode::Skb)
    };
    let e = in_ns(ns.name(0), move || AfXdpPort::open("axa", c)).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, AfXdpError::Bind { queue: 3, .. }), "{msg}");
    assert!(msg.contains("queue does not exist"), "{msg}");
    // one socket per queue
    let _p = open_in(ns.name(0), "axa", cfg(XdpMode::Skb));
    let e = in_ns(ns.name(0), || AfXdpPort::open("axa", cfg(XdpMode::Skb))).unwrap_err();
    assert!(matches!(e, AfXdpError::Bind { .. }), "{e}");
    // a different mode on the interface the first port attached
    let e = in_ns(ns.name(0), || AfXdpPort::open("axa", cfg(XdpMode::Copy))).unwrap_err();
    assert!(matches!(e, AfXdpError::ModeConflict { .. }), "{e}");
}

/// Two queues of one interface: two ports share the interface's program and map,
/// each receives the frames of its own queue, and closing one leaves the other working.
#[test]
fn two_queues_of_one_interface_share_the_program() {
    canopy_test_utils::netns_or_return!();
    let ns = netns("mq", &["a", "b"]);
    ip(&[
        "-n",
        ns.name(0),
        "link",
        "add",
        "axa",
        "numtxqueues",
        "2",
        "numrxqueues",
        "2",
        "type",
        "veth",
        "peer",
        "name",
        "axb",
        "numtxqueues",
        "2",
        "numrxqueues",
        "2",
        "netns",
        ns.name(1),
    ]);
    ip(&["-n", ns.name(0), "link", "set", "axa", "up"]);
    ip(&["-n", ns.name(1), "link", "set", "axb", "up"]);
    canopy_testbed::netns::wait_up(ns.name(0), "axa", Duration::from_secs(5)).unwrap();
    canopy_testbed::netns::wait_up(ns.name(1), "axb", Duration::from_secs(5)).unwrap();
    let mut q = [0u32, 1].map(|queue| {
        open_in(
            ns.name(0),
            "axa",
            AfXdpConfig {
                queue,
                ..cfg(XdpMode::Copy)
            },
        )
    });
    assert_eq!(q[1].queue(), 1);
    // b transmits with AF_XDP on its queues 0 and 1; veth delivers a frame to the
    // peer's RX queue of the same number
    let mut bq = [0u32, 1].map(|queue| {
        open_in(
            ns.name(1),
            "axb",
            AfXdpConfig {
                queue,
                ..cfg(XdpMode::Copy)
            },
        )
    });
    let mut per_queue = [0usize; 2];
    for (i, b) in bq.iter_mut().enumerate() {
        let sent: Vec<Vec<u8>> = (0..50).map(|s| frame(i as u32 * 100 + s, 64)).collect();
        for f in &sent {
            assert_eq!(b.tx_frame(f), Ok(true));
        }
        b.tx_flush().unwrap();
        let mut got = vec![];
        let t = Instant::now();
        while got.len() < sent.len() && t.elapsed() < Duration::from_secs(5) {
            for (k, p) in q.iter_mut().enumerate() {
                p.rx_burst(32, |f| {
                    if f.len() >= 12 && f[6..12] == [0x02, 0, 0, 0, 0, 0xaa] {
                        per_queue[k] += 1;
                        got.push(f.to_vec());
                    }
                });
            }
        }
        assert_eq!(got, sent, "frames sent on b's queue {i}");
    }
    // veth delivers a frame sent on TX queue i to the peer's RX queue i (the socket's
    // queue id becomes the skb's queue mapping), so each socket got its own queue's
    assert_eq!(per_queue, [50, 50], "frames per RX queue");
    // close queue 1; queue 0 still receives (the program stays while a port uses it)
    let [q0, q1] = q;
    drop(q1);
    let mut q0 = q0;
    let sent: Vec<Vec<u8>> = (0..20).map(|s| frame(500 + s, 64)).collect();
    for f in &sent {
        assert_eq!(bq[0].tx_frame(f), Ok(true));
    }
    bq[0].tx_flush().unwrap();
    let got = port_recv_n(&mut q0, sent.len(), Duration::from_secs(5), &mut vec![]);
    assert_eq!(got, sent);
}

#[test]
fn full_tx_ring_reports_false_and_oversize_runt_down_are_counted() {
    canopy_test_utils::netns_or_return!();
    let ns = netns("txfull", &["a", "b"]);
    ns.veth(0, "axa", 1, "axb");
    let c = AfXdpConfig {
        tx_ring: 64,
        comp_ring: 64,
        ..cfg(XdpMode::Skb)
    };
    let mut port = open_in(ns.name(0), "axa", c);
    let raw = in_ns(ns.name(1), || Raw::open("axb"));
    for i in 0..64 {
        assert_eq!(port.tx_frame(&frame(i, 64)), Ok(true));
    }
    // every TX chunk is queued and nothing was published: full
    assert_eq!(port.tx_frame(&frame(64, 64)), Ok(false));
    assert_eq!(port.stats().drop_count(PortDrop::TxRingFull), 1);
    assert_eq!(port.tx_backlog(), 64);
    port.tx_flush().unwrap();
    assert_eq!(raw.recv_n(64, Duration::from_secs(5)).len(), 64);
    let t = Instant::now();
    while port.tx_free(64) < 64 && t.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        port.tx_free(64),
        64,
        "chunks came back on the completion ring"
    );
    assert_eq!(port.tx_frame(&frame(65, 64)), Ok(true));

    assert_eq!(port.tx_frame(&[0u8; 13]), Err(PortDrop::Runt));
    assert_eq!(port.tx_frame(&vec![0u8; 1515]), Err(PortDrop::Oversize));
    ip(&["-n", ns.name(0), "link", "set", "axa", "down"]);
    assert_eq!(port.poll_link().unwrap(), LinkEvent::WentDown);
    assert_eq!(port.tx_frame(&frame(66, 64)), Err(PortDrop::PortDown));
    ip(&["-n", ns.name(0), "link", "set", "axa", "up"]);
    let t = Instant::now();
    loop {
        match port.poll_link().unwrap() {
            LinkEvent::CameUp => break,
            ev => assert!(t.elapsed() < Duration::from_secs(5), "{ev:?}"),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let st = port.stats();
    assert_eq!(st.drop_count(PortDrop::Runt), 1);
    assert_eq!(st.drop_count(PortDrop::Oversize), 1);
    assert_eq!(st.drop_count(PortDrop::PortDown), 1);
    assert_eq!(st.link_down_events, 1);
}

/// The interface is deleted: the port goes down; re-created with the same name, the
/// port reopens (new program, socket, UMEM) and moves frames again.
#[test]
fn deleted_interface_goes_down_and_comes_back() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, want) in modes() {
        let ns = netns(&format!("del{tag}"), &["a", "b"]);
        ns.veth(0, "axa", 1, "axb");
        let mut port = open_in(ns.name(0), "axa", cfg(mode));
        ip(&["-n", ns.name(0), "link", "del", "axa"]);
        assert_eq!(port.poll_link().unwrap(), LinkEvent::WentDown, "{tag}");
        assert!(!port.link_up());
        assert_eq!(port.tx_frame(&frame(0, 64)), Err(PortDrop::PortDown));
        assert_eq!(port.poll_link().unwrap(), LinkEvent::Unchanged, "{tag}");
        ns.veth(0, "axa", 1, "axb");
        let ns0 = ns.name(0).to_string();
        let (port, ev) = in_ns(&ns0, move || {
            let ev = port.poll_link();
            (port, ev)
        });
        let mut port = port;
        assert_eq!(ev.unwrap(), LinkEvent::Reopened { up: true }, "{tag}");
        assert_eq!(port.mode(), want);
        assert_eq!(port.stats().reopens, 1);
        let raw = in_ns(ns.name(1), || Raw::open("axb"));
        let sent: Vec<Vec<u8>> = (0..40).map(|i| frame(i, 100)).collect();
        for f in &sent {
            raw.send(f);
        }
        let got = port_recv_n(&mut port, sent.len(), Duration::from_secs(5), &mut vec![]);
        assert_eq!(got, sent, "{tag}: frames after the reopen");
        for f in &sent {
            assert_eq!(port.tx_frame(f), Ok(true));
        }
        port.tx_flush().unwrap();
        assert_eq!(raw.recv_n(40, Duration::from_secs(5)), sent, "{tag}");
    }
}

// ---------------------------------------------------------------------------------
// The engine: the same forwarding test as tests/netns_engine.rs, on AF_XDP ports.

fn start(w: &Wiring, e: &Edge, mode: XdpMode) -> (Running, Vec<BindMode>) {
    let tables = kinds::tables(&e.topo, Kind::Sliced).unwrap()[e.sw].clone();
    let names: Vec<String> = (0..tables.ports.len()).map(|i| w.sw(i)).collect();
    in_ns(w.ns.name(0), move || {
        let ports: Vec<AfXdpPort> = names
            .iter()
            .map(|n| AfXdpPort::open(n, cfg(mode)).expect("open port"))
            .collect();
        let got = ports.iter().map(|p| p.mode()).collect();
        let ports: Vec<Box<dyn Port>> = ports
            .into_iter()
            .map(|p| Box::new(p) as Box<dyn Port>)
            .collect();
        (spawn_engine(tables, ports, Duration::from_millis(20)), got)
    })
}

/// Namespaces `sw` and `nb` of test `test`, veth `axs<i>` ↔ `axp<i>` per port.
fn wire_up(test: &str) -> Wiring {
    Wiring::new(netns(test, &["sw", "nb"]), "axs", "axp", 4)
}

/// An edge switch of a k=4 fat tree on four AF_XDP ports: frames from one host port
/// reach the other host's port in order, frames to a remote host leave by the uplinks
/// (chosen adaptively), the worker sleeps in epoll between frames and wakes for each,
/// and the counters conserve rx = tx + drops.
#[test]
fn engine_forwards_to_the_right_ports_and_counters_conserve() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, want) in modes() {
        let e = edge();
        let w = wire_up(&format!("fwd{tag}"));
        let (run, got) = start(&w, &e, mode);
        assert!(got.iter().all(|m| *m == want), "{tag}: {got:?}");
        let (h0, h1) = (e.hosts[0].1, e.hosts[1].1);
        let traffic = Traffic {
            local: (0..100).map(|i| e.numbered(h0, h1, i)).collect(),
            far: (0..40).map(|i| e.numbered(h0, e.far, 1000 + i)).collect(),
            prepare: <[u8]>::to_vec,
            ours,
            seq_of,
        };
        let (arrivals, s) = forward_low_rate(tag, &e, &w, run, traffic, false);
        for p in &s {
            let names: Vec<&str> = p.backend.drops.iter().map(|(n, _)| *n).collect();
            assert_eq!(names, BACKEND_COUNTER_NAMES.to_vec(), "{tag}");
            assert_eq!(p.backend.kernel_drops, 0, "{tag}: {p:?}");
        }
        // round trip: from the send to the receipt
        let mut sorted: Vec<Duration> = arrivals.iter().map(|a| a.elapsed).collect();
        sorted.sort_unstable();
        let p50 = sorted[sorted.len() / 2];
        eprintln!(
            "netns_afxdp {tag}: round trip sender → engine (sleeping, max_sleep 20 ms) → receiver at ~300 pps: p50 {p50:?}, max {:?}",
            sorted[sorted.len() - 1]
        );
        // far below max_sleep: the worker was woken through epoll on the XSK fd
        assert!(p50 < Duration::from_millis(5), "{tag}: p50 {p50:?}");
    }
}

/// A host port's veth is deleted while frames flow to it: the port goes down (counted by
/// the engine and the backend), frames towards it are dropped as `port_down`, the worker
/// keeps running; re-created with the same name, the port reopens in the worker's
/// upkeep (new socket: the worker re-registers it with epoll) and forwarding resumes.
/// Every frame sent is received by the engine or counted as lost by the kernel, and the
/// counters conserve.
#[test]
fn engine_port_deleted_under_traffic_goes_down_and_forwarding_resumes() {
    canopy_test_utils::netns_or_return!();
    for (mode, tag, _) in modes() {
        let e = edge();
        let w = wire_up(&format!("edel{tag}"));
        let (run, _) = start(&w, &e, mode);
        let (h0, h1) = (e.hosts[0].1, e.hosts[1].1);
        let frames = (0..20_000).map(|i| e.numbered(h0, h1, i)).collect();
        delete_under_traffic(&format!("netns_afxdp {tag}"), &e, &w, run, frames, ours);
    }
}

// ---------------------------------------------------------------------------------
// Measurement (ignored; run by hand, see docs/afxdp.md).

fn env_mode() -> XdpMode {
    match std::env::var("CANOPY_XDP_MODE").as_deref() {
        Ok("skb") => XdpMode::Skb,
        Ok("copy") => XdpMode::Copy,
        _ => XdpMode::Auto,
    }
}

/// Measurement, not a check: `cargo test --release --test netns_afxdp -- --ignored
/// --nocapture measure_forward`. Sender (an AF_XDP port on `s0`, full speed, CPU 1) in
/// namespace S → veth → port A in namespace F; a forward loop on CPU 0 moves A → B in
/// bursts of 32; B's peer in namespace D discards. Env CANOPY_MEASURE_SECS (default 5),
/// CANOPY_XDP_MODE (`auto` = native copy on veth, `skb`, `copy`) for the forwarder's
/// ports; the sender always uses the same mode.
#[test]
#[ignore]
fn measure_forward_pps_64b() {
    canopy_test_utils::netns_or_return!();
    let ns = netns("pps", &["s", "f", "d"]);
    let mut m = measure_on_veths(&ns, ["axs0", "axfa", "axfb", "axd0"], |i| {
        AfXdpPort::open(i, cfg(env_mode())).unwrap_or_else(|e| panic!("open {i}: {e}"))
    });
    let (ma, mb) = (m.pa.mode(), m.pb.mode());
    let (sa, sb) = (m.pa.stats(), m.pb.stats());
    m.print(
        &format!("afxdp forward 64B, ports {ma}/{mb}"),
        &format!(
            "kernel RX lost on A {} (rx_dropped {}, rx_ring_full {})",
            sa.kernel.rx_lost(),
            sa.kernel.rx_dropped,
            sa.kernel.rx_ring_full
        ),
        sb.tx_frames,
        &format!("; B tx wakeups {}", sb.tx_wakeups),
    );
    m.check();
}
