//! The DPDK port backend in process (feature `dpdk`): DPDK's af_packet PMD
//! (`--vdev net_af_packet<i>,iface=...,framecnt=8192`) on veths between network
//! namespaces, driven by the engine: the same forwarding test as the AF_PACKET and
//! AF_XDP engine tests (exact bytes, in order, both directions, counters conserve),
//! link status, the backend counters by name, and the typed errors (a second EAL
//! initialisation, a device EAL did not probe, a vdev that did not probe, too many
//! queues).
//!
//! EAL can be initialised once per process and cargo runs the tests of one binary as
//! threads of one process, so this binary has ONE test function, which initialises EAL
//! once and runs every check in sequence. (canopy-switch's tests/netns_switch_dpdk.rs
//! runs a switch subprocess per case instead.) Root only, with free huge pages and the
//! `dpdk` feature; skipped with a message otherwise. Namespaces are named
//! `dpk<pid>-<test>-<x>` and deleted by a guard, also when the test fails.
#![cfg(target_os = "linux")]

mod common;

#[test]
fn dpdk_ports_forward_through_the_engine_and_errors_are_typed() {
    #[cfg(not(feature = "dpdk"))]
    eprintln!(
        "SKIP netns_dpdk: built without the `dpdk` feature (cargo test --features dpdk --test netns_dpdk)"
    );
    #[cfg(feature = "dpdk")]
    imp::run();
}

#[cfg(feature = "dpdk")]
mod imp {
    use super::common::edge::{edge, Numbered};
    use super::common::engine::{out_of_uplinks, spawn_engine};
    use super::common::frames::{ours, seq_of, udp_frame};
    use super::common::netns::{in_ns, Netns, Raw};
    use canopy_dataplane::engine::{counters, Port};
    use canopy_dataplane::port::dpdk::{
        self, DpdkConfig, DpdkError, DpdkPort, Eal, BACKEND_COUNTER_NAMES,
    };
    use canopy_dataplane::{decide, Verdict};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn hugepages_free() -> u64 {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|s| dpdk::hugepages_free(&s))
            .unwrap_or(0)
    }

    pub fn run() {
        canopy_test_utils::netns_or_return!();
        if hugepages_free() < 64 {
            eprintln!(
                "SKIP netns_dpdk: fewer than 64 free huge pages (echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages; .ci/run does it)"
            );
            return;
        }
        let (ns, eal) = eal_on_veths();
        typed_errors(&eal);
        two_queues_spread_flows(&ns, &eal);
        engine_on_four_ports(&ns, &eal);
    }

    /// Namespaces `sw` and `nb` with veths `dps<i>` ↔ `dpp<i>` (i < 5), and EAL
    /// initialised in `sw` with the vdevs of the checks.
    fn eal_on_veths() -> (Netns, Arc<Eal>) {
        let ns = Netns::tagged("dpk", "eng", &["sw", "nb"]);
        for i in 0..5 {
            ns.veth(0, &format!("dps{i}"), 1, &format!("dpp{i}"));
        }
        // vdev 4 names an interface that does not exist: EAL logs the failed probe and
        // goes on; opening that device is the typed error
        let mut args: Vec<String> = vec!["--no-pci".into()];
        for i in 0..4 {
            args.push(format!(
                "--vdev=net_af_packet{i},iface=dps{i},framecnt=8192"
            ));
        }
        args.push("--vdev=net_af_packet4,iface=dpgone,framecnt=8192".into());
        // two queue pairs (the PMD's PACKET_FANOUT_HASH spreads flows over them)
        args.push("--vdev=net_af_packet5,iface=dps4,qpairs=2,framecnt=8192".into());
        // af_packet opens its sockets when EAL probes the vdevs: in the switch's namespace
        let eal: Arc<Eal> = in_ns(ns.name(0), move || Eal::init(&args)).expect("EAL init");
        let mut devs = eal.devices();
        devs.sort();
        assert_eq!(
            devs,
            [
                "net_af_packet0",
                "net_af_packet1",
                "net_af_packet2",
                "net_af_packet3",
                "net_af_packet5"
            ]
        );
        (ns, eal)
    }

    /// A second EAL initialisation, a device EAL did not probe, a vdev that did not
    /// probe, too many queues.
    fn typed_errors(eal: &Arc<Eal>) {
        match Eal::init(&["--no-pci".into()]) {
            Err(DpdkError::EalAlreadyInitialized) => {}
            r => panic!("second EAL init: {r:?}"),
        }
        let c = DpdkConfig::default();
        match dpdk::open(eal, "net_af_packet9", &c) {
            Err(DpdkError::NoDevice { device, probed }) => {
                assert_eq!(device, "net_af_packet9");
                assert_eq!(probed.len(), 5);
            }
            r => panic!("{r:?}"),
        }
        match dpdk::open(eal, "net_af_packet4", &c) {
            Err(e @ DpdkError::VdevNotProbed { .. }) => {
                assert!(e.to_string().contains("ip link show dpgone"), "{e}")
            }
            r => panic!("{r:?}"),
        }
        let many = DpdkConfig {
            queues: 2,
            ..DpdkConfig::default()
        };
        match dpdk::open(eal, "net_af_packet0", &many) {
            Err(e @ DpdkError::TooManyQueues { max: 1, .. }) => {
                assert!(e.to_string().contains("qpairs"), "{e}")
            }
            r => panic!("{r:?}"),
        }
    }

    /// Two queues: one handle per queue, flows spread over both, every frame exact.
    fn two_queues_spread_flows(ns: &Netns, eal: &Arc<Eal>) {
        let two = DpdkConfig {
            queues: 2,
            ..DpdkConfig::default()
        };
        let e5 = eal.clone();
        let mut qs: Vec<DpdkPort> = in_ns(ns.name(0), move || {
            dpdk::open(&e5, "net_af_packet5", &two).expect("open two queues")
        });
        assert_eq!(qs.iter().map(|q| q.queue()).collect::<Vec<_>>(), [0, 1]);
        let flows: Vec<Vec<u8>> = (0..64u16).map(|i| udp_frame(i.into(), 1000 + i)).collect();
        let sent = flows.clone();
        in_ns(ns.name(1), move || {
            let tx = Raw::open("dpp4");
            for f in &sent {
                tx.send(f);
            }
        });
        let mut per_queue = [0usize; 2];
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut buf = vec![0u8; 2048];
        let t = Instant::now();
        while got.len() < flows.len() && t.elapsed() < Duration::from_secs(3) {
            for (i, q) in qs.iter_mut().enumerate() {
                q.rx_burst(32, &mut buf, |f| {
                    if f.len() >= 14 && f[12..14] == [0x08, 0x00] {
                        per_queue[i] += 1;
                        got.push(f.to_vec());
                    }
                });
            }
        }
        got.sort();
        let mut want = flows.clone();
        want.sort();
        assert_eq!(got, want, "every flow frame once, exact");
        assert!(
            per_queue[0] > 0 && per_queue[1] > 0,
            "flows spread over both queues: {per_queue:?}"
        );
        // the second handle is receive-only: the engine never gives it frames to send
        assert_eq!(Port::tx_space(&qs[1]), 0);
        assert!(Port::tx_space(&qs[0]) > 0);
    }

    /// The engine on four dpdk ports: exact bytes, in order, both directions, counters
    /// conserve, link status and the backend counters by name.
    fn engine_on_four_ports(ns: &Netns, eal: &Arc<Eal>) {
        let e = edge();
        let c = DpdkConfig::default();
        let tables = e.tables.clone();
        let n = tables.ports.len();
        // the af_packet PMD's start and MTU query are ioctls on the interface name:
        // open in the switch's namespace too (canopy-switch runs wholly in it)
        let e2 = eal.clone();
        let ports: Vec<DpdkPort> = in_ns(ns.name(0), move || {
            (0..n)
                .map(|i| {
                    let mut v = dpdk::open(&e2, &format!("net_af_packet{i}"), &c).expect("open");
                    assert_eq!(v.len(), 1);
                    v.remove(0)
                })
                .collect()
        });
        for p in &ports {
            assert!(p.link_up(), "{} link", p.name());
            assert_eq!(p.driver(), "net_af_packet");
            assert_eq!(Port::mtu(p), 1514);
        }
        let ports: Vec<Box<dyn Port>> = ports
            .into_iter()
            .map(|p| Box::new(p) as Box<dyn Port>)
            .collect();
        let run = spawn_engine(tables, ports, Duration::from_micros(200));
        let h = run.handle();
        let (hp0, h0) = e.hosts[0];
        let (hp1, h1) = e.hosts[1];
        let ups = e.ups.clone();
        // (frame sent, frame the reference decision says leaves the switch)
        let pair = |ing: usize, src: u32, dst: u32, seq: u32| {
            let f = e.numbered(src, dst, seq);
            let mut want = f.clone();
            match decide(&e.tables, ing as u16, &mut want) {
                Verdict::Port(_) | Verdict::Group(_) => (f, want),
                Verdict::Drop(r) => panic!("model drops: {}", r.name()),
            }
        };
        let there: Vec<_> = (0..100).map(|i| pair(hp0, h0, h1, i)).collect();
        let back: Vec<_> = (0..100).map(|i| pair(hp1, h1, h0, 500 + i)).collect();
        let far: Vec<_> = (0..40).map(|i| pair(hp0, h0, e.far, 1000 + i)).collect();
        let burst: Vec<_> = (0..2000).map(|i| pair(hp0, h0, h1, 10_000 + i)).collect();
        let (got_there, got_back, far_ports, got_burst) = in_ns(ns.name(1), move || {
            let p0 = Raw::open(&format!("dpp{hp0}"));
            let p1 = Raw::open(&format!("dpp{hp1}"));
            let up_rx: Vec<Raw> = ups.iter().map(|u| Raw::open(&format!("dpp{u}"))).collect();
            let one_way = |tx: &Raw, rx: &Raw, frames: &[(Vec<u8>, Vec<u8>)]| {
                let mut n = 0;
                for (f, want) in frames {
                    tx.send(f);
                    let Some((got, _)) = rx.recv_stamped(Duration::from_secs(2), ours) else {
                        break;
                    };
                    assert_eq!(got, *want, "exact bytes, in order");
                    n += 1;
                }
                n
            };
            let got_there = one_way(&p0, &p1, &there);
            let got_back = one_way(&p1, &p0, &back);
            let sent = far.iter().map(|(f, _)| &f[..]);
            let far_ports = out_of_uplinks(&p0, &up_rx, sent, ours, |i, got| {
                let (f, want) = &far[i];
                assert_eq!(seq_of(got), seq_of(f));
                assert_eq!(got, &want[..], "exact bytes to an uplink");
            });
            // 2000 frames in bursts of 100, each burst received before the next
            let mut got_burst = 0;
            for chunk in burst.chunks(100) {
                for (f, _) in chunk {
                    p0.send(f);
                }
                let r = p1.recv_n(chunk.len(), Duration::from_secs(2));
                for (g, (_, want)) in r.iter().zip(chunk) {
                    assert_eq!(g, want, "burst: exact bytes, in order");
                }
                got_burst += r.len();
            }
            (got_there, got_back, far_ports, got_burst)
        });
        // the workers' link upkeep saw every link up (rte_eth_link_get_nowait)
        for i in 0..n as u16 {
            assert!(
                h.port_state(i).is_some_and(|st| st.link_up()),
                "port {i} link"
            );
        }
        // one more upkeep round publishes the backend counters
        std::thread::sleep(Duration::from_millis(100));
        run.stop();
        let s = h.counters();
        assert_eq!(got_there, 100, "{s:#?}");
        assert_eq!(got_back, 100, "{s:#?}");
        assert_eq!(got_burst, 2000, "{s:#?}");
        assert_eq!(far_ports.iter().sum::<usize>(), 40, "{far_ports:?}");
        let (rx, tx, dropped) = counters::totals(&s);
        assert_eq!(rx, tx + dropped, "rx = tx + drops: {s:#?}");
        assert_eq!(dropped, 0, "{s:#?}");
        assert_eq!(s[hp1].tx_packets, 2100);
        assert_eq!(s[hp0].tx_packets, 100);
        assert_eq!(s[e.ups[0]].tx_packets + s[e.ups[1]].tx_packets, 40);
        for p in &s {
            let names: Vec<&str> = p.backend.drops.iter().map(|(n, _)| *n).collect();
            assert_eq!(names, BACKEND_COUNTER_NAMES.to_vec());
            assert!(p.backend.drops.iter().all(|(_, v)| *v == 0), "{p:?}");
            assert_eq!(p.backend.kernel_drops, 0, "{p:?}");
        }
    }
}
