//! AF_PACKET port on veth pairs between network namespaces (root only; skipped with a
//! message otherwise). Every namespace is named `canopy-t<pid>-<test>-<x>`; the veths
//! are created directly inside them (never in the host namespace) and go away with
//! them. A guard deletes the namespaces on drop, also when a test fails. The namespace
//! helpers are shared with `netns_engine.rs` (`tests/common/netns.rs`).
#![cfg(target_os = "linux")]

use canopy::dataplane::port::afpacket::{
    AfPacketConfig, AfPacketPort, FanoutMode, LinkEvent, PortDrop, RingGeometry, TpacketVersion,
};
mod common;

use common::backend::{self, measure_on_veths, recv_n};
use common::frames::{frame, udp_frame, vlan_frames};
use common::netns::{in_ns, ip, is_test_frame, Netns, Raw, ETHERTYPE};
use common::sys::{mono_ns, pin_to_cpu};
use std::time::{Duration, Instant};

/// Collect our test frames from `port` until `n` arrived or `timeout` passed; also
/// records every burst size.
fn port_recv_n(
    port: &mut AfPacketPort,
    n: usize,
    timeout: Duration,
    bursts: &mut Vec<usize>,
) -> Vec<Vec<u8>> {
    recv_n(port, n, timeout, bursts, is_test_frame)
}

fn small_tx_cfg() -> AfPacketConfig {
    AfPacketConfig {
        tx: RingGeometry {
            block_size: 4096,
            block_count: 1,
            frame_size: 1024,
        },
        ..AfPacketConfig::default()
    }
}

/// A port with the default configuration on `pa` in the first namespace of `ns`.
fn open_pa(ns: &Netns) -> AfPacketPort {
    in_ns(ns.name(0), || {
        AfPacketPort::open("pa", AfPacketConfig::default())
    })
    .expect("open")
}

/// Two ports on `pa` in the first namespace of `ns` with `cfg` (one fanout group), as
/// two workers open them.
fn two_workers(ns: &Netns, cfg: AfPacketConfig) -> (AfPacketPort, AfPacketPort) {
    in_ns(ns.name(0), move || {
        (
            AfPacketPort::open("pa", cfg.clone()).expect("worker 0"),
            AfPacketPort::open("pa", cfg).expect("worker 1"),
        )
    })
}

/// Both TPACKET versions.
fn versions() -> [(TpacketVersion, &'static str); 2] {
    [(TpacketVersion::V3, "v3"), (TpacketVersion::V2, "v2")]
}

fn cfg_of(version: TpacketVersion) -> AfPacketConfig {
    AfPacketConfig {
        version,
        ..AfPacketConfig::default()
    }
}

#[test]
fn rx_delivers_exact_bytes_in_bursts_of_32() {
    canopy_test_utils::netns_or_return!();
    for (v, tag) in versions() {
        rx_exact(v, tag);
    }
}

fn rx_exact(v: TpacketVersion, tag: &str) {
    let ns = Netns::new(&format!("rx{tag}"), &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg_of(v))).expect("open pa");
    assert_eq!(port.name(), "pa");
    assert_eq!(port.mtu(), 1500);
    assert!(port.link_up());
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    backend::rx_exact(tag, &mut port, &raw, is_test_frame);
    let st = port.stats();
    assert!(st.rx_frames >= 200);
    assert_eq!(st.kernel_drops, 0);
}

/// The kernel takes the outer VLAN tag out of every frame it receives (whatever the
/// offload settings) and hands it to packet sockets as metadata; the port puts it back,
/// so frames reach the switch exactly as they were on the wire: 802.1Q and 802.1ad outer
/// tags, a priority/DEI/VID 0 tag, stacked tags and, for a later `too_many_vlan_tags`
/// drop, three of them. The byte count includes the tag.
#[test]
fn rx_restores_the_vlan_tag_the_kernel_took_out() {
    canopy_test_utils::netns_or_return!();
    for (v, tag) in versions() {
        let ns = Netns::new(&format!("vlan{tag}"), &["a", "b"]);
        ns.veth(0, "pa", 1, "pb");
        let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg_of(v))).unwrap();
        let raw = in_ns(ns.name(1), || Raw::open("pb"));
        let sent = vlan_frames();
        for f in &sent {
            raw.send(f);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut got: Vec<Vec<u8>> = vec![];
        while got.len() < sent.len() && Instant::now() < deadline {
            if port.rx_burst(32, |f| {
                if f.len() >= 12 && f[6..12] == sent[0][6..12] {
                    got.push(f.to_vec())
                }
            }) == 0
            {
                port.wait_readable(5);
            }
        }
        assert_eq!(got, sent, "{tag}: frames as they were on the wire");
        let st = port.stats();
        let bytes: usize = sent.iter().map(Vec::len).sum();
        assert!(
            st.rx_bytes >= bytes as u64,
            "{tag}: {} < {bytes}",
            st.rx_bytes
        );
        assert_eq!(st.drop_count(PortDrop::RxBadBlock), 0, "{tag}");
    }
}

#[test]
fn tx_frames_arrive_exactly() {
    canopy_test_utils::netns_or_return!();
    for (v, tag) in versions() {
        tx_exact(v, tag);
    }
}

fn tx_exact(v: TpacketVersion, tag: &str) {
    let ns = Netns::new(&format!("tx{tag}"), &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg_of(v))).expect("open pa");
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    backend::tx_exact(tag, &mut port, &raw, 4, 32);
    let st = port.stats();
    assert_eq!(st.tx_frames, 128);
    assert_eq!(st.tx_sends, 4);
    assert_eq!(st.drops, [0; PortDrop::COUNT]);
}

/// A send-only port (`receive = false`) sends exactly like any port, and the frames
/// arriving on its interface never reach it (no ring entry, no kernel count), while a
/// receiving port on the same interface gets every one.
#[test]
fn send_only_port_sends_and_is_offered_nothing() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("sendonly", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = AfPacketConfig {
        version: TpacketVersion::V2,
        receive: false,
        ..AfPacketConfig::default()
    };
    let mut tx = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg)).expect("open tx");
    let mut rx = in_ns(ns.name(0), || {
        AfPacketPort::open("pa", cfg_of(TpacketVersion::V2))
    })
    .expect("open rx");
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    backend::tx_exact("send-only", &mut tx, &raw, 2, 32);
    for i in 0..50 {
        raw.send(&frame(i, 64));
    }
    let mut bursts = vec![];
    let got = port_recv_n(&mut rx, 50, Duration::from_secs(5), &mut bursts);
    assert_eq!(got.len(), 50, "the receiving port got them all");
    assert_eq!(tx.rx_burst(64, |_| {}), 0);
    let st = tx.stats();
    assert_eq!(
        (st.rx_frames, st.kernel_packets, st.kernel_drops),
        (0, 0, 0)
    );
    assert_eq!(st.tx_frames, 64);
}
/// A port transmits on a socket of its own unless its RX socket could then see the
/// frames it sends (neither `qdisc_bypass` nor `ignore_outgoing`); either way its
/// frames arrive exactly, it never receives its own frames, and it receives the
/// peer's.
#[test]
fn a_port_sends_on_its_own_tx_socket_and_never_receives_its_frames() {
    canopy_test_utils::netns_or_return!();
    let cases = [
        (true, true, true),
        (false, true, true),
        (false, false, false),
    ];
    for (i, (bypass, ignore, split)) in cases.into_iter().enumerate() {
        let tag = format!("bypass={bypass} ignore_outgoing={ignore}");
        let ns = Netns::new(&format!("txsock{i}"), &["a", "b"]);
        ns.veth(0, "pa", 1, "pb");
        let cfg = AfPacketConfig {
            version: TpacketVersion::V2,
            qdisc_bypass: bypass,
            ignore_outgoing: ignore,
            ..AfPacketConfig::default()
        };
        let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg)).expect("open");
        assert_eq!(port.tx_fd() != port.fd(), split, "{tag}");
        let raw = in_ns(ns.name(1), || Raw::open("pb"));
        backend::tx_exact(&tag, &mut port, &raw, 2, 32);
        let mut own = 0;
        port.rx_burst(64, |f| own += usize::from(is_test_frame(f)));
        assert_eq!(own, 0, "{tag}: the port received its own frames");
        for i in 0..20 {
            raw.send(&frame(1000 + i, 64));
        }
        let got = port_recv_n(&mut port, 20, Duration::from_secs(5), &mut vec![]);
        assert_eq!(got.len(), 20, "{tag}: the peer's frames");
        assert_eq!(port.stats().drops, [0; PortDrop::COUNT], "{tag}");
    }
}

#[test]
fn full_tx_ring_reports_false_and_recovers_after_flush() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("full", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = small_tx_cfg();
    let slots = (4096 / 1024) as usize;
    let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg)).expect("open");
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    for i in 0..slots as u32 {
        assert_eq!(port.tx_frame(&frame(i, 64)), Ok(true), "slot {i}");
    }
    assert_eq!(port.tx_frame(&frame(99, 64)), Ok(false));
    assert_eq!(port.tx_frame(&frame(99, 64)), Ok(false));
    assert_eq!(port.stats().drop_count(PortDrop::TxRingFull), 2);
    port.tx_flush().expect("flush");
    let got = raw.recv_n(slots, Duration::from_secs(5));
    assert_eq!(got.len(), slots);
    // Once the kernel has sent them, the slots are free again.
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut ok = false;
    while Instant::now() < deadline {
        if port.tx_frame(&frame(100, 64)) == Ok(true) {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(ok, "TX slot never came back");
    port.tx_flush().expect("flush");
    assert_eq!(raw.recv_n(1, Duration::from_secs(2)), vec![frame(100, 64)]);
}

#[test]
fn oversize_and_runt_frames_are_refused_and_counted() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("size", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let mut port = in_ns(ns.name(0), || AfPacketPort::open("pa", small_tx_cfg())).expect("open");
    // TX frame 1024 -> 976 bytes of data, less the 10-byte virtio_net_hdr in front of
    // each frame: the ring limit, below MTU + 14.
    assert_eq!(port.max_frame(), 966);
    assert_eq!(port.tx_frame(&frame(1, 967)), Err(PortDrop::Oversize));
    assert_eq!(port.tx_frame(&frame(1, 966)), Ok(true));
    assert_eq!(port.tx_frame(&[0u8; 13]), Err(PortDrop::Runt));
    drop(port);
    // With a big TX frame, the MTU is the limit.
    let mut port = open_pa(&ns);
    assert_eq!(port.max_frame(), 1514);
    assert_eq!(port.tx_frame(&frame(2, 1515)), Err(PortDrop::Oversize));
    assert_eq!(port.tx_frame(&frame(2, 1514)), Ok(true));
    let st = port.stats();
    assert_eq!(st.drop_count(PortDrop::Oversize), 1);
    assert_eq!(st.tx_frames, 1);
}

#[test]
fn deleted_interface_goes_down_and_comes_back() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("link", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let port = open_pa(&ns);
    let nsa = ns.name(0).to_string();
    // poll_link runs in the port's namespace (it may reopen the socket there). The
    // kernel publishes carrier changes asynchronously (linkwatch), so poll until the
    // state changes, for at most 3 s, like an engine's link timer would.
    let poll = move |p: AfPacketPort| {
        in_ns(&nsa.clone(), move || {
            let mut p = p;
            let deadline = Instant::now() + Duration::from_secs(3);
            loop {
                let ev = p.poll_link();
                if !matches!(ev, Ok(LinkEvent::Unchanged)) || Instant::now() > deadline {
                    return (p, ev);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    // Peer down: no carrier, port down; peer up: back on the same socket.
    ip(&["-n", ns.name(1), "link", "set", "pb", "down"]);
    let (port, ev) = poll(port);
    assert_eq!(ev.unwrap(), LinkEvent::WentDown);
    assert!(!port.link_up());
    ip(&["-n", ns.name(1), "link", "set", "pb", "up"]);
    let (port, ev) = poll(port);
    assert_eq!(ev.unwrap(), LinkEvent::CameUp);
    let fd_before = port.fd();

    // Delete the veth: down, soft failures, no panic.
    ip(&["-n", ns.name(0), "link", "del", "pa"]);
    let (mut port, ev) = poll(port);
    assert_eq!(ev.unwrap(), LinkEvent::WentDown);
    assert!(!port.link_up());
    assert_eq!(port.tx_frame(&frame(1, 64)), Err(PortDrop::PortDown));
    assert!(port.tx_flush().is_ok(), "nothing queued: no send");
    assert_eq!(port.rx_burst(32, |_| panic!("no frames")), 0);
    let nsa2 = ns.name(0).to_string();
    let (mut port, ev) = in_ns(&nsa2, move || {
        let ev = port.poll_link();
        (port, ev)
    });
    assert_eq!(ev.unwrap(), LinkEvent::Unchanged, "still gone, still down");
    let st = port.stats();
    assert_eq!(st.drop_count(PortDrop::PortDown), 1);
    assert_eq!(st.link_down_events, 2);

    // Re-create it: the port reopens and carries traffic again.
    ns.veth(0, "pa", 1, "pb");
    let (mut port, ev) = poll(port);
    assert_eq!(ev.unwrap(), LinkEvent::Reopened { up: true });
    assert!(port.link_up());
    let _ = fd_before; // the fd number may be reused; Reopened is the signal.
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    let f = frame(7, 100);
    raw.send(&f);
    let got = port_recv_n(&mut port, 1, Duration::from_secs(5), &mut vec![]);
    assert_eq!(got, vec![f]);
    assert_eq!(port.tx_frame(&frame(8, 100)), Ok(true));
    port.tx_flush().expect("flush after reopen");
    assert_eq!(raw.recv_n(1, Duration::from_secs(5)), vec![frame(8, 100)]);
    assert_eq!(port.stats().reopens, 1);
}

/// Two ports in one namespace; a loop moves frames from one to the other in bursts.
#[test]
fn forward_loop_moves_every_frame() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("fwd", &["s", "b", "c"]);
    ns.veth(0, "p1", 1, "hb");
    ns.veth(0, "p2", 2, "hc");
    let (mut p1, mut p2) = in_ns(ns.name(0), || {
        (
            AfPacketPort::open("p1", AfPacketConfig::default()).expect("open p1"),
            AfPacketPort::open("p2", AfPacketConfig::default()).expect("open p2"),
        )
    });
    let tx = in_ns(ns.name(1), || Raw::open("hb"));
    let rx = in_ns(ns.name(2), || Raw::open("hc"));
    const N: u32 = 2000;
    let sender = std::thread::spawn(move || {
        for i in 0..N {
            tx.send(&frame(i, 64 + (i as usize % 200)));
        }
    });
    let receiver = std::thread::spawn(move || rx.recv_n(N as usize, Duration::from_secs(20)));
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut moved = 0usize;
    while moved < N as usize && Instant::now() < deadline {
        let mut full = 0;
        // In place: rewrite the destination MAC's last byte before forwarding.
        let k = p1.rx_burst_mut(32, |f| {
            if is_test_frame(f) {
                f[5] = 0xcc;
                match p2.tx_frame(f) {
                    Ok(true) => moved += 1,
                    _ => full += 1,
                }
            }
        });
        assert_eq!(full, 0, "TX refused a frame");
        p2.tx_flush().expect("flush");
        if k == 0 {
            p1.wait_readable(2);
        }
    }
    sender.join().unwrap();
    let got = receiver.join().unwrap();
    assert_eq!(moved, N as usize);
    assert_eq!(got.len(), N as usize);
    for (i, f) in got.iter().enumerate() {
        let mut want = frame(i as u32, 64 + (i % 200));
        want[5] = 0xcc;
        assert_eq!(f, &want);
    }
    assert_eq!(p1.stats().kernel_drops, 0);
}

fn is_udp_test_frame(f: &[u8]) -> bool {
    f.len() == 64 && f[12..14] == [8, 0] && f[23] == 17 && f[26..30] == [192, 0, 2, 1]
}

/// Two sockets in one fanout (hash) group on one interface: every frame reaches exactly
/// one of them, and flows spread over both.
#[test]
fn fanout_group_splits_flows_between_sockets() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("fan", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = AfPacketConfig {
        fanout: Some(0x4321),
        fanout_mode: FanoutMode::Hash,
        ..AfPacketConfig::default()
    };
    let (mut w0, mut w1) = two_workers(&ns, cfg);
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    const N: u32 = 512;
    for i in 0..N {
        raw.send(&udp_frame(i, 1000 + (i % 64) as u16));
    }
    let mut seen = vec![0u8; N as usize];
    let (mut c0, mut c1) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(5);
    while c0 + c1 < N && Instant::now() < deadline {
        let mut take = |f: &[u8], c: &mut u32| {
            if is_udp_test_frame(f) {
                let seq = u32::from_be_bytes([f[42], f[43], f[44], f[45]]);
                seen[seq as usize] += 1;
                *c += 1;
            }
        };
        let k = w0.rx_burst(32, |f| take(f, &mut c0)) + w1.rx_burst(32, |f| take(f, &mut c1));
        if k == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert_eq!(c0 + c1, N, "every frame once ({c0} + {c1})");
    assert!(seen.iter().all(|&s| s == 1), "no frame twice or missing");
    assert!(
        c0 > 0 && c1 > 0,
        "64 flows spread over both sockets: {c0} / {c1}"
    );
    // Same flow, same socket: frames of flow 1000 all landed on one side.
    for i in 0..N {
        raw.send(&udp_frame(N + i, 1000));
    }
    let (mut d0, mut d1) = (0u32, 0u32);
    let deadline = Instant::now() + Duration::from_secs(5);
    while d0 + d1 < N && Instant::now() < deadline {
        w0.rx_burst(32, |f| d0 += is_udp_test_frame(f) as u32);
        w1.rx_burst(32, |f| d1 += is_udp_test_frame(f) as u32);
    }
    assert_eq!(d0 + d1, N);
    assert!(d0 == 0 || d1 == 0, "one flow split: {d0} / {d1}");
}

/// Canopy frames are not IP, so the kernel's flow hash is the same for all of them: the
/// default fanout mode hashes the Ethernet addresses instead (a classic-BPF program).
/// Host pairs spread over both sockets, every frame reaches exactly one, and one pair
/// always reaches the same socket.
#[test]
fn eth_address_fanout_spreads_canopy_frames_by_host_pair() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("fanmac", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = AfPacketConfig {
        fanout: Some(0x4322),
        ..AfPacketConfig::default()
    };
    assert_eq!(cfg.fanout_mode, FanoutMode::EthAddrs);
    let (mut w0, mut w1) = two_workers(&ns, cfg);
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    spread_by_host_pair(&raw, &mut w0, &mut w1);
}

/// Send 512 frames of 64 host pairs from `raw`: every frame reaches exactly one of the
/// two workers, pairs spread over both, and one pair always reaches the same worker.
fn spread_by_host_pair(raw: &Raw, w0: &mut AfPacketPort, w1: &mut AfPacketPort) {
    // frame i: host pair i % 64, sequence number i in the payload
    let frame = |i: u32| {
        let pair = (i % 64) as u8;
        let mut f = vec![2, 0, 0, 0, 0, pair, 2, 0, 0, 0, 1, pair.wrapping_mul(7)];
        f.extend_from_slice(&ETHERTYPE.to_be_bytes());
        f.extend_from_slice(&i.to_be_bytes());
        f.resize(60, 0);
        f
    };
    const N: u32 = 512;
    for i in 0..N {
        raw.send(&frame(i));
    }
    // socket that got each sequence number
    let mut got: Vec<Option<u8>> = vec![None; N as usize];
    let mut n = 0;
    let deadline = Instant::now() + Duration::from_secs(5);
    while n < N && Instant::now() < deadline {
        let mut take = |f: &[u8], who: u8| {
            if is_test_frame(f) {
                let seq = u32::from_be_bytes([f[14], f[15], f[16], f[17]]) as usize;
                assert!(got[seq].replace(who).is_none(), "frame {seq} twice");
                n += 1;
            }
        };
        let k = w0.rx_burst(32, |f| take(f, 0)) + w1.rx_burst(32, |f| take(f, 1));
        if k == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    assert_eq!(n, N, "every frame once");
    let on0 = got.iter().filter(|g| **g == Some(0)).count();
    assert!(
        on0 > 0 && on0 < N as usize,
        "pairs spread: {on0} of {N} on socket 0"
    );
    for pair in 0..64usize {
        let first = got[pair];
        assert!(
            got.iter().skip(pair).step_by(64).all(|g| *g == first),
            "host pair {pair} split between sockets"
        );
    }
}

/// Workers sharing an interface through a fanout group reopen together when it is
/// deleted and re-created: the old group stays tied to the deleted interface while any
/// old socket is open, so the reopens meet in a group derived from the new ifindex.
#[test]
fn fanout_workers_reopen_together_after_the_interface_is_re_created() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("fanre", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = AfPacketConfig {
        fanout: Some(0x4323),
        ..AfPacketConfig::default()
    };
    let (mut w0, mut w1) = two_workers(&ns, cfg);
    ip(&["-n", ns.name(0), "link", "del", "pa"]);
    ns.veth(0, "pa", 1, "pb");
    // each worker polls its own port (from this thread: the reopen enters the port's
    // namespace), as the engine's workers do, one after the other
    let deadline = Instant::now() + Duration::from_secs(5);
    let (mut r0, mut r1) = (false, false);
    while !(r0 && r1) && Instant::now() < deadline {
        for (w, done) in [(&mut w0, &mut r0), (&mut w1, &mut r1)] {
            if !*done {
                match w.poll_link() {
                    Ok(LinkEvent::Reopened { .. }) => *done = true,
                    Ok(_) => {}
                    Err(e) => panic!("reopen failed: {e}"),
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(r0 && r1, "both workers reopened: {r0} {r1}");
    assert_eq!(w0.fanout_group(), w1.fanout_group(), "one group");
    assert_ne!(
        w0.fanout_group(),
        Some(0x4323),
        "not the deleted interface's"
    );
    assert!(w0.link_up() && w1.link_up());
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    spread_by_host_pair(&raw, &mut w0, &mut w1);
    assert_eq!((w0.stats().reopens, w1.stats().reopens), (1, 1));
}

/// CANOPY_TPACKET=2 selects V2 for the measurements (default V3).
fn env_version() -> TpacketVersion {
    match std::env::var("CANOPY_TPACKET").as_deref() {
        Ok("2") => TpacketVersion::V2,
        _ => TpacketVersion::V3,
    }
}

/// Measurement, not a check (run by hand, see docs/afpacket.md):
/// `cargo test --release --test netns_afpacket -- --ignored --nocapture measure`.
/// Sender (own TX ring, full speed, CPU 1) in namespace S → veth → port A in namespace
/// F; a forward loop on CPU 0 moves A → B in bursts of 32; B's peer in namespace D
/// discards. Env CANOPY_MEASURE_SECS (default 5).
#[test]
#[ignore]
fn measure_forward_pps_64b() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("pps", &["s", "f", "d"]);
    let mut m = measure_on_veths(&ns, ["s0", "fa", "fb", "d0"], |i| {
        AfPacketPort::open(i, cfg_of(env_version())).unwrap_or_else(|e| panic!("{i}: {e}"))
    });
    let (sa, sb) = (m.pa.stats(), m.pb.stats());
    m.print(
        &format!("afpacket forward 64B, {:?}", env_version()),
        &format!("kernel drops on A {}", sa.kernel_drops),
        sb.tx_frames,
        "",
    );
    m.check();
}

/// Measurement, not a check: one-way latency through a busy forward loop at 1000 pps
/// (raw socket sender in S stamps CLOCK_MONOTONIC into each frame, raw receiver in D).
/// `cargo test --release --test netns_afpacket -- --ignored --nocapture latency`.
/// Env CANOPY_RETIRE_MS sets the RX block retire timeout (default 1).
#[test]
#[ignore]
fn measure_latency_1000pps() {
    canopy_test_utils::netns_or_return!();
    let retire: u32 = std::env::var("CANOPY_RETIRE_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let ns = Netns::new("lat", &["s", "f", "d"]);
    ns.veth(0, "s0", 1, "fa");
    ns.veth(1, "fb", 2, "d0");
    let cfg = AfPacketConfig {
        rx_retire_ms: retire,
        ..cfg_of(env_version())
    };
    let (mut pa, mut pb) = in_ns(ns.name(1), move || {
        (
            AfPacketPort::open("fa", cfg.clone()).expect("fa"),
            AfPacketPort::open("fb", cfg).expect("fb"),
        )
    });
    let tx = in_ns(ns.name(0), || Raw::open("s0"));
    let rx = in_ns(ns.name(2), || Raw::open("d0"));
    const N: usize = 2000;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_f = stop.clone();
    let fwd = std::thread::spawn(move || {
        pin_to_cpu(0);
        while !stop_f.load(std::sync::atomic::Ordering::Relaxed) {
            if pa.rx_burst(32, |f| {
                let _ = pb.tx_frame(f);
            }) > 0
            {
                let _ = pb.tx_flush();
            }
        }
    });
    let recv = std::thread::spawn(move || {
        let mut lat = vec![];
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = vec![0u8; 2048];
        while lat.len() < N && Instant::now() < deadline {
            let r = rx.recv_once(&mut buf);
            let now = mono_ns();
            if r.is_some_and(|r| r >= 26 && is_test_frame(&buf[..r])) {
                let t = u64::from_be_bytes(buf[18..26].try_into().unwrap());
                lat.push(now - t);
            }
        }
        lat
    });
    pin_to_cpu(1);
    for i in 0..N as u32 {
        let mut f = frame(i, 64);
        f[18..26].copy_from_slice(&mono_ns().to_be_bytes());
        tx.send(&f);
        std::thread::sleep(Duration::from_micros(1000));
    }
    let mut lat = recv.join().unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    fwd.join().unwrap();
    lat.sort_unstable();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)] as f64 / 1000.0;
    println!(
        "MEASURE afpacket latency at ~1000 pps, {:?}, retire {retire} ms: {} of {N} frames; \
         p50 {:.1} us, p99 {:.1} us, max {:.1} us",
        env_version(),
        lat.len(),
        p(0.5),
        p(0.99),
        p(1.0)
    );
    assert!(!lat.is_empty());
}

/// V2 with small RX slots: a frame larger than a slot is truncated by the kernel, and
/// the port drops it as `rx_truncated` instead of passing a partial frame on.
#[test]
fn rx_oversize_frame_is_dropped_as_truncated() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("trunc", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let cfg = AfPacketConfig {
        version: TpacketVersion::V2,
        rx: RingGeometry {
            block_size: 4096,
            block_count: 4,
            frame_size: 256,
        },
        ..AfPacketConfig::default()
    };
    let mut port = in_ns(ns.name(0), move || AfPacketPort::open("pa", cfg)).expect("open");
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    let small = frame(1, 100);
    raw.send(&frame(0, 1000));
    raw.send(&small);
    let got = port_recv_n(&mut port, 1, Duration::from_secs(5), &mut vec![]);
    assert_eq!(got, vec![small]);
    assert_eq!(port.stats().drop_count(PortDrop::RxTruncated), 1);
}

/// A shared host's threads live in the host's namespace, not the ports': a port whose
/// interface was re-created reopens in its own namespace when polled from another.
#[test]
fn a_port_polled_from_another_namespace_reopens_in_its_own() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("xns", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let mut port = open_pa(&ns);
    // polled from this thread (the test's namespace) from here on
    let poll = |p: &mut AfPacketPort, want: fn(&LinkEvent) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let ev = p.poll_link().expect("poll from another namespace");
            if want(&ev) || Instant::now() > deadline {
                return ev;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    ip(&["-n", ns.name(0), "link", "del", "pa"]);
    assert_eq!(
        poll(&mut port, |e| *e != LinkEvent::Unchanged),
        LinkEvent::WentDown
    );
    ns.veth(0, "pa", 1, "pb");
    assert_eq!(
        poll(&mut port, |e| matches!(e, LinkEvent::Reopened { .. })),
        LinkEvent::Reopened { up: true }
    );
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    let f = frame(9, 100);
    raw.send(&f);
    let got = port_recv_n(&mut port, 1, Duration::from_secs(5), &mut vec![]);
    assert_eq!(got, vec![f], "the new socket is in the port's namespace");
    assert_eq!(port.stats().reopens, 1);
}

/// The interface's `tx_dropped` in namespace `ns` (`/proc/thread-self/net/dev`, read
/// there: `/sys/class/net` shows the namespace sysfs was mounted in).
fn tx_dropped(ns: &str, ifname: &str) -> u64 {
    let dev = in_ns(ns, || std::fs::read_to_string("/proc/thread-self/net/dev")).unwrap();
    let line = dev
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(&format!("{ifname}:")))
        .expect("the interface's line");
    // eight receive fields, then transmit bytes, packets, errs, drop
    line.split_whitespace().nth(11).unwrap().parse().unwrap()
}

/// A veth whose peer is down drops the frame it is given (its `tx_dropped`), and the
/// kernel puts the frame back in the TX ring (the send is refused with `ENOBUFS`): each
/// attempt is one `tx_requeues` and one `tx_dropped`, no frame is lost, and the frames
/// go out in order once the peer is back.
#[test]
fn a_frame_the_veth_drops_goes_back_in_the_ring_and_out_later() {
    canopy_test_utils::netns_or_return!();
    let ns = Netns::new("requeue", &["a", "b"]);
    ns.veth(0, "pa", 1, "pb");
    let mut port = open_pa(&ns);
    let raw = in_ns(ns.name(1), || Raw::open("pb"));
    ip(&["-n", ns.name(1), "link", "set", "pb", "down"]);
    let before = tx_dropped(ns.name(0), "pa");
    // not polled: the port still believes its link is up and queues
    let frames: Vec<Vec<u8>> = (0..3).map(|i| frame(20 + i, 100)).collect();
    for f in &frames {
        assert_eq!(port.tx_frame(f), Ok(true));
    }
    const ATTEMPTS: u64 = 5;
    for _ in 0..ATTEMPTS {
        let e = port.tx_flush().expect_err("the peer is down");
        assert!(e.to_string().contains("No buffer space"), "{e}");
    }
    let st = port.stats();
    assert_eq!(st.tx_requeues, ATTEMPTS);
    assert_eq!(
        tx_dropped(ns.name(0), "pa") - before,
        ATTEMPTS,
        "one per attempt"
    );
    assert_eq!(port.tx_backlog(), 3, "every frame still in the ring");
    ip(&["-n", ns.name(1), "link", "set", "pb", "up"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while port.tx_flush().is_err() {
        assert!(
            Instant::now() < deadline,
            "never sent after the peer came back"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        raw.recv_n(3, Duration::from_secs(5)),
        frames,
        "all, in order"
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    while port.tx_backlog() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(port.tx_backlog(), 0);
    let requeued = port.stats().tx_requeues;
    assert_eq!(
        tx_dropped(ns.name(0), "pa") - before,
        requeued,
        "every tx_dropped was a frame put back"
    );
}
