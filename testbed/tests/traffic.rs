//! The traffic generator on a bridge harness: N host namespaces, each with a veth to
//! one namespace holding a Linux bridge with a static entry per host MAC (learning off),
//! so Canopy frames with unicast host MACs go to exactly their host. Needs root (skips
//! otherwise). Everything is named `ctrf<pid><tag>-...` and deleted by the `Netns`
//! guard, also when a test fails.

use canopy_dataplane::wire::Kind;
use canopy_testbed::os::netns::{ip, offloads_off, wait_up, which, Netns};
use canopy_testbed::os::sys;
use canopy_testbed::traffic::frame::HostFrame;
use canopy_testbed::traffic::hosts::{FabricHosts, HostEndpoint};
use canopy_testbed::traffic::pcap;
use canopy_testbed::traffic::port;
use canopy_testbed::traffic::progress::Progress;
use canopy_testbed::traffic::{Generator, Pattern, Rate, Reflector, SearchSpec, TrafficSpec};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const TOPO: &str = "fat-tree:k=4";

struct Harness {
    ns: Netns,
    hosts: FabricHosts,
}

impl Harness {
    fn bridge_ns(&self) -> &str {
        self.ns.name(0)
    }
}

/// The tests busy-poll; run them one at a time on the 2 shared cores.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn root() -> bool {
    let _ = tracing_subscriber::fmt().with_test_writer().try_init();
    canopy_test_utils::root_or_skip("traffic bridge harness", "network namespaces")
}

/// `n` hosts (topology hosts 0..n of the k=4 fat-tree) on one bridge.
fn harness(tag: &str, n: u32) -> Harness {
    let prefix = format!("ctrf{}{tag}", std::process::id());
    let mut suffixes = vec!["br".to_string()];
    suffixes.extend((0..n).map(|h| format!("h{h}")));
    let refs: Vec<&str> = suffixes.iter().map(|s| s.as_str()).collect();
    let ns = Netns::create(&prefix, &refs).unwrap();
    let br = ns.name(0).to_string();
    // snooping off from the start: a bridge with multicast snooping joins 224.0.0.106
    // when it comes up, and its IGMP reports would reach every host as foreign frames
    let add = "link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0";
    let mut args = vec!["-n", br.as_str()];
    args.extend(add.split(' '));
    ip(&args).unwrap();
    ip(&["-n", &br, "link", "set", "br0", "multicast", "off"]).unwrap();
    let topo = canopy_control::build_str(TOPO).unwrap();
    let mut hosts = vec![];
    for h in 0..n {
        let hns = ns.name(h as usize + 1).to_string();
        let port = format!("p{h}");
        let mac = canopy_control::oracle::host_mac(&topo, h);
        let macs = mac
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":");
        // created down, multicast off before up: no IGMP report ever leaves (it would
        // reach other hosts and count as a foreign frame)
        ip(&[
            "-n", &hns, "link", "add", "eth0", "address", &macs, "type", "veth", "peer", "name",
            &port, "netns", &br,
        ])
        .unwrap();
        for (n, dev) in [(&hns, "eth0"), (&br, port.as_str())] {
            ip(&["-n", n, "link", "set", dev, "multicast", "off"]).unwrap();
            offloads_off(n, dev);
            ip(&["-n", n, "link", "set", dev, "up"]).unwrap();
        }
        for (n, dev) in [(&hns, "eth0"), (&br, port.as_str())] {
            wait_up(n, dev, Duration::from_secs(5)).unwrap();
        }
        ip(&["-n", &br, "link", "set", &port, "master", "br0"]).unwrap();
        ip(&[
            "-n",
            &br,
            "link",
            "set",
            "dev",
            &port,
            "type",
            "bridge_slave",
            "learning",
            "off",
        ])
        .unwrap();
        canopy_testbed::os::netns::run(
            "bridge",
            &[
                "-n", &br, "fdb", "add", &macs, "dev", &port, "master", "static",
            ],
        )
        .unwrap();
        hosts.push(HostEndpoint {
            host: h,
            name: format!("h{h}"),
            netns: hns,
            ifname: "eth0".into(),
            rx_ifnames: vec![],
            mac,
        });
    }
    offloads_off(&br, "br0");
    ip(&["-n", &br, "link", "set", "br0", "up"]).unwrap();
    Harness {
        ns,
        hosts: FabricHosts {
            topology: TOPO.into(),
            kind: "sliced".into(),
            hosts,
            guest_clocks: false,
        },
    }
}

/// A scratch directory `ctrf<pid><tag>` removed on drop (also when a test fails).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("ctrf{}{tag}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spec(pattern: Pattern, pps: f64, secs: f64) -> TrafficSpec {
    TrafficSpec {
        pattern,
        rate: Rate::Pps(pps),
        duration_s: Some(secs),
        warmup_s: 0.1,
        grace_ms: 100,
        quiet: true,
        ..TrafficSpec::default()
    }
}

fn assert_clean(what: &str, t: &canopy_testbed::report::results::Trial, expect_sent: f64) {
    assert!(t.sent > 0, "{what}: nothing sent");
    assert!(
        (t.sent as f64 - expect_sent).abs() <= expect_sent * 0.05 + 2.0,
        "{what}: sent {} of {expect_sent}",
        t.sent
    );
    assert_eq!(t.lost, 0, "{what}: {t:?}");
    assert_eq!(t.received, t.sent, "{what}");
    assert_eq!(
        (t.misdelivered, t.foreign, t.duplicates, t.reordered),
        (0, 0, 0, 0),
        "{what}: {t:?}"
    );
    let l = &t.latency;
    assert_eq!(l.count, t.received, "{what}");
    assert!(l.min_ns > 0, "{what}: {l:?}");
    assert!(
        l.min_ns <= l.p50_ns && l.p50_ns <= l.p99_ns && l.p99_ns <= l.max_ns,
        "{what}: {l:?}"
    );
    assert!(l.max_ns < 2_000_000_000, "{what}: {l:?}");
}

#[test]
fn every_pattern_delivers_without_loss_and_pcap_round_trips() {
    if !root() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h = harness("p", 8);
    let mut g = Generator::open(&h.hosts).unwrap();
    let patterns = [
        Pattern::Uniform,
        Pattern::Permutation,
        Pattern::BitReversal,
        Pattern::BitComplement,
        // 8 hosts: not a square, the address bits rotated
        Pattern::Transpose,
        Pattern::Neighbour,
        Pattern::RoundRobin,
        Pattern::Hotspot {
            fraction: 0.5,
            target: 2,
        },
        Pattern::AllToAll,
    ];
    let tmp = TempDir::new("p");
    let dir = tmp.0.clone();
    for p in patterns {
        let mut s = spec(p, 8000.0, 0.4);
        if p == Pattern::Uniform {
            s.pcap_tx = Some(dir.join("tx.pcap"));
            // the receiver's file as pcapng (by its name)
            s.pcap_rx = Some(dir.join("rx.pcapng"));
            s.pcap_max = 500;
        }
        let mut expect = 3200.0;
        if p == Pattern::AllToAll {
            // count mode: exactly this many, however long it takes
            s.duration_s = None;
            s.count = Some(2000);
            expect = 2000.0;
        }
        s.validate(&h.hosts, 2).unwrap();
        let t = g.trial(&s, 8000.0, &Progress::hidden()).unwrap();
        assert_clean(&p.to_string(), &t, expect);
        if s.count.is_some() {
            assert_eq!(t.sent, 2000);
        }
    }
    // transpose as a matrix on a square count: the first 4 hosts (2 x 2) of the same
    // bridge; 6 hosts are neither a square nor a power of two
    let four = FabricHosts {
        hosts: h.hosts.hosts[..4].to_vec(),
        ..h.hosts.clone()
    };
    let six = FabricHosts {
        hosts: h.hosts.hosts[..6].to_vec(),
        ..h.hosts.clone()
    };
    assert!(spec(Pattern::Transpose, 2000.0, 0.4)
        .validate(&six, 2)
        .is_err());
    drop(g);
    let mut g4 = Generator::open(&four).unwrap();
    let t = g4
        .trial(
            &spec(Pattern::Transpose, 2000.0, 0.4),
            2000.0,
            &Progress::hidden(),
        )
        .unwrap();
    assert_clean("transpose", &t, 800.0);
    drop(g4);

    // pcap and pcapng: both files read back by us and by tshark
    let tx = pcap::read(&dir.join("tx.pcap")).unwrap();
    let rx = pcap::read(&dir.join("rx.pcapng")).unwrap();
    assert_eq!(tx.len(), 500);
    assert_eq!(rx.len(), 500);
    assert!(tx.iter().all(|f| HostFrame::parse(&f.data).is_some()));
    assert!(rx.iter().all(|f| HostFrame::parse(&f.data).is_some()));
    // one receiver thread, one clock: its times never go back
    assert!(rx.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
    if which("tshark").is_some() {
        for file in ["tx.pcap", "rx.pcapng"] {
            let out = canopy_testbed::os::netns::run(
                "tshark",
                &[
                    "-r",
                    dir.join(file).to_str().unwrap(),
                    "-T",
                    "fields",
                    "-e",
                    "eth.type",
                ],
            )
            .unwrap();
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 500, "{file}: {out}");
            assert!(lines.iter().all(|l| l.trim() == "0x88b5"), "{file}: {out}");
        }
    } else {
        eprintln!("SKIP tshark check: tshark not installed");
    }
    // replay the frames not addressed to h0 out of h0 (a bridge never sends a frame
    // back out of the port it came in on), paced, with fresh measurement blocks
    let mut g = Generator::open(&h.hosts).unwrap();
    let h0 = h.hosts.hosts[0].mac;
    let frames: Vec<_> = tx.into_iter().filter(|f| f.data[0..6] != h0).collect();
    let (t, unmeasured) = g
        .replay(0, &frames, Some(5000.0), Duration::from_millis(100))
        .unwrap();
    assert_eq!(unmeasured, 0);
    assert_eq!(t.sent, frames.len() as u64);
    assert_eq!((t.lost, t.received, t.foreign), (0, t.sent, 0), "{t:?}");
    assert!(t.latency.min_ns > 0);
    drop(h.ns);
}

/// Several sender lanes (threads) with bursts of 32 and one clock read per burst: every
/// frame still carries its flow's next sequence number and a stamp the receiver
/// accounts (no loss, duplicate or reordering, latencies positive and below 2 s), count
/// mode sends exactly the count over the lanes, and the lanes' timelines add up.
#[test]
fn sender_lanes_stamp_every_frame_and_the_receiver_accounts_each_once() {
    if !root() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h = harness("l", 8);
    let mut g = Generator::open(&h.hosts).unwrap();
    g.timeline_bin_ns = Some(50_000_000);
    for threads in [2, 3] {
        let mut s = spec(Pattern::Uniform, 40_000.0, 0.5);
        s.tx_threads = Some(threads);
        s.burst = Some(32);
        s.validate(&h.hosts, 2).unwrap();
        let t = g.trial(&s, 40_000.0, &Progress::hidden()).unwrap();
        let what = format!("{threads} lanes");
        assert_clean(&what, &t, 20_000.0);
        let tl = t.timeline.as_ref().expect("timeline");
        assert_eq!(tl.sent.iter().sum::<u64>(), t.sent, "{what}");
        assert_eq!(tl.received.iter().sum::<u64>(), t.received, "{what}");
        // count mode: the lanes share the count exactly
        s.duration_s = None;
        s.count = Some(3001);
        let t = g.trial(&s, 40_000.0, &Progress::hidden()).unwrap();
        assert_eq!(t.sent, 3001, "{what}");
        assert_clean(&what, &t, 3001.0);
    }
}

#[test]
fn injected_reorder_duplicates_misdelivery_and_foreign_are_counted() {
    if !root() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h = harness("i", 3);
    let topo = canopy_control::build_str(TOPO).unwrap();
    let mut g = Generator::open(&h.hosts).unwrap();
    // inject straight into h1's link from the bridge side (past the bridge's table)
    let mut inj = port::open(h.bridge_ns(), "p1").unwrap();
    let run = 0x4242;
    let done = AtomicBool::new(false);
    let acc = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            let mut f01 = HostFrame::new(&topo, Kind::Sliced, 0, 1, 60, run).unwrap();
            for s in [0u64, 1, 3, 2, 2, 5] {
                f01.set_meas(s, sys::monotonic_ns());
                assert!(inj.tx_frame(&f01.bytes).unwrap());
            }
            // addressed to h2, delivered to h1
            let mut f02 = HostFrame::new(&topo, Kind::Sliced, 0, 2, 60, run).unwrap();
            f02.set_meas(0, sys::monotonic_ns());
            assert!(inj.tx_frame(&f02.bytes).unwrap());
            // another run, and not a Canopy frame at all
            let mut old = HostFrame::new(&topo, Kind::Sliced, 0, 1, 60, run + 7).unwrap();
            old.set_meas(9, sys::monotonic_ns());
            assert!(inj.tx_frame(&old.bytes).unwrap());
            let mut ip4 = f01.bytes.clone();
            ip4[12..14].copy_from_slice(&[0x08, 0x00]);
            assert!(inj.tx_frame(&ip4).unwrap());
            inj.tx_flush().unwrap();
            done.store(true, Ordering::Release);
        });
        g.listen(run, Duration::from_millis(600)).unwrap()
    });
    assert!(done.load(Ordering::Acquire));
    let n = 3;
    let f = &acc.flows()[1]; // flow h0 -> h1 (src * n + dst)
    assert_eq!((f.received, f.reordered, f.duplicates), (5, 1, 1), "{f:?}");
    assert_eq!(acc.misdelivered, 1);
    assert_eq!(acc.foreign, 2);
    // six were sent on h0 -> h1 (0..=5): one lost (4)
    let mut sent = vec![0u64; n * n];
    sent[1] = 6;
    let t = acc.trial(&sent, 6.0, 1.0);
    assert_eq!((t.sent, t.received, t.lost), (6, 5, 1));
    assert_eq!(
        (t.reordered, t.duplicates, t.misdelivered, t.foreign),
        (1, 1, 1, 2)
    );
    assert_eq!(t.latency.count, 5);
    assert!(t.latency.min_ns > 0 && t.latency.p50_ns <= t.latency.max_ns);
}

#[test]
fn reflector_round_trip_and_search_find_rates() {
    if !root() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h = harness("r", 4);
    // host 3 is "remote": a reflector sends everything back
    let stop = AtomicBool::new(false);
    let mut refl = Reflector::open(&h.hosts, 3).unwrap();
    let mut g = Generator::open_with_remote(&h.hosts, &[3]).unwrap();
    let s = spec(
        Pattern::Hotspot {
            fraction: 1.0,
            target: 3,
        },
        3000.0,
        0.4,
    );
    let (t, rs) = std::thread::scope(|sc| {
        let r = sc.spawn(|| refl.run(&stop));
        let t = g.trial(&s, 3000.0, &Progress::hidden()).unwrap();
        stop.store(true, Ordering::Release);
        (t, r.join().unwrap().unwrap())
    });
    assert_clean("round trip", &t, 1200.0);
    // warm-up frames are reflected too
    assert!(rs.reflected >= t.sent, "{rs:?}");
    assert_eq!(rs.ignored, 0, "{rs:?}");
    drop(g);

    // NDR/PDR search on the bridge (all four hosts local): 3 Mpps is far out of reach
    // of the sender on 2 shared cores, so the search has to bisect; whatever it finds
    // must be a trial without loss
    let mut g = Generator::open(&h.hosts).unwrap();
    let mut s = spec(Pattern::Uniform, 1000.0, 0.25);
    s.warmup_s = 0.05;
    s.search = Some(SearchSpec {
        min_pps: 2000.0,
        max_pps: Some(3_000_000.0),
        resolution: 0.1,
        confirm_s: 1.0,
        latency_s: 0.5,
        ..SearchSpec::default()
    });
    let (trials, r) = g.run(&s).unwrap();
    let r = r.unwrap();
    let ndr = r.ndr_pps.expect("the bridge forwards 2 kpps without loss");
    // then the latency trials at 0, 10, 50 and 90 % of the NDR, each with a 1 kpps
    // stream of its own beside the load (none at 0 %), all of it delivered
    let fractions: Vec<f64> = r.latency.iter().map(|l| l.fraction).collect();
    assert_eq!(fractions, vec![0.0, 0.1, 0.5, 0.9]);
    for l in &r.latency {
        let (t, p) = (&l.trial, l.trial.probe.as_ref().expect("no stream"));
        let pct = l.fraction * 100.0;
        assert_eq!(t.offered_pps, l.fraction * ndr);
        assert_eq!(t.sent == 0, l.fraction == 0.0, "{t:?}");
        assert_eq!(p.offered_pps, 1000.0);
        assert!((450..=550).contains(&p.sent), "{pct} %: {p:?}");
        // the load's frames and the stream's are counted apart, each exactly
        assert_eq!(p.received + p.lost, p.sent, "{pct} %: {p:?}");
        assert_eq!(p.latency.count, p.received, "{pct} %: {p:?}");
        assert_eq!(t.received + t.lost, t.sent, "{pct} %: {t:?}");
        assert_eq!((t.foreign, t.misdelivered), (0, 0), "{pct} %: {t:?}");
        assert!(p.latency.min_ns > 0 && !p.latency.hdr.is_empty(), "{p:?}");
        if l.fraction <= 0.1 {
            // far below what the bridge forwards: nothing lost
            assert_eq!((t.lost, p.lost), (0, 0), "{pct} %: {t:?}");
        }
    }
    let nt = &trials[r.ndr_trial.unwrap()];
    assert_eq!(nt.offered_pps, ndr);
    assert_eq!(nt.lost, 0);
    assert_eq!(nt.passed, Some(true));
    assert!(r.pdr_pps.unwrap() >= ndr);
    assert!(trials.len() >= 2 && trials.len() <= 12, "{}", trials.len());
    eprintln!(
        "search: NDR {ndr:.0} pps, PDR {:?} in {} trials: {:?}",
        r.pdr_pps,
        trials.len(),
        trials
            .iter()
            .map(|t| (t.offered_pps.round(), t.sent_pps.round(), t.lost))
            .collect::<Vec<_>>()
    );
}

/// The generator's maximum rate through the bridge harness (64 B, uniform, 8 hosts), with
/// one and with two sender threads:
/// `cargo test --release -p canopy-testbed --test traffic -- --ignored --nocapture max_rate`.
#[test]
#[ignore]
fn max_rate() {
    if !root() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let h = harness("m", 8);
    let mut g = Generator::open(&h.hosts).unwrap();
    for threads in [1, 2] {
        for offered in [100_000.0, 200_000.0, 400_000.0, 800_000.0, 2_000_000.0] {
            let mut s = spec(Pattern::Uniform, offered, 2.0);
            s.burst = Some(32);
            s.tx_threads = Some(threads);
            let t = g.trial(&s, offered, &Progress::hidden()).unwrap();
            eprintln!(
                "{threads} sender thread(s), offered {offered:.0}: sent {:.0} pps, received {:.0} pps, loss {:.4}, p50 {} ns, p99 {} ns",
                t.sent_pps, t.received_pps, t.loss_ratio, t.latency.p50_ns, t.latency.p99_ns
            );
        }
    }
}
