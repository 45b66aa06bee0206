//! The veth bench end to end, briefly (root only; skipped with a message otherwise):
//! every forwarder that exists here (direct, bridge, canopy-switch when built, testpmd
//! when installed) gets a few hundred ms per pass, and every pass must have moved and
//! counted frames. The figures themselves are not checked (shared 2-core machine).
#![cfg(target_os = "linux")]

use canopy_testbed::os::netns::which;
use canopy_testbed::vethbench::forwarder::{self, Kind, Options};
use canopy_testbed::vethbench::{self, Config, Generator};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A few start-up probe frames may still arrive during a pass.
const SLACK: u64 = 16;

#[test]
fn every_available_forwarder_forwards_and_is_counted() {
    if !canopy_test_utils::netns_or_skip("vethbench", "network namespaces and veths") {
        return;
    }
    let prefix = format!("cvb{}-t", std::process::id());
    let work = vethbench::WorkDir::new(&prefix, false).unwrap();
    let options = Options::discover(1, work.path.clone());
    let mut forwarders = vec![Kind::Direct, Kind::Bridge];
    match forwarder::unavailable(Kind::Canopy, &options) {
        None => forwarders.push(Kind::Canopy),
        Some(why) => eprintln!("SKIP vethbench canopy: {why}"),
    }
    match forwarder::unavailable(Kind::Testpmd, &options) {
        None => forwarders.push(Kind::Testpmd),
        Some(why) => eprintln!("SKIP vethbench testpmd: {why}"),
    }
    if which("trafgen").is_none() {
        eprintln!("vethbench: trafgen not installed, the own sender does the max-rate pass");
    }
    let cfg = Config {
        forwarders: forwarders.clone(),
        max_rate_time: Duration::from_millis(300),
        fixed_pps: 20_000,
        fixed_burst: 8,
        fixed_time: Duration::from_millis(300),
        latency_pps: 1000,
        latency_count: 100,
        latency_warmup: 10,
        generator: Generator::Auto,
        senders_time: Duration::from_millis(300),
        tx_threads: 2,
        frame_len: 60,
        gen_core: 0,
        options,
        prefix: prefix.clone(),
        start_timeout: Duration::from_secs(30),
        command: "vethbench test".into(),
    };
    let stop = AtomicBool::new(false);
    let report = vethbench::run(&cfg, &stop, &|l| eprintln!("{l}")).expect("bench run");
    assert_eq!(report.results.len(), forwarders.len());
    // the senders side by side: the generator was measured into the sink and into its
    // receiver (trafgen when installed)
    let s = report.senders.as_ref().expect("senders comparison");
    assert_eq!(s.trafgen.is_some(), which("trafgen").is_some(), "{s:?}");
    for g in [&s.generator, &s.generator_rx] {
        assert_eq!(g.tx_threads, 2);
        assert!(g.sent > 0 && g.sent_pps > 0.0, "{g:?}");
    }
    assert!(s.generator.receiver.is_none());
    let r = s.generator_rx.receiver.as_ref().expect("receiver results");
    assert_eq!(r.received + r.lost, s.generator_rx.sent, "{r:?}");
    assert_eq!((r.duplicates, r.reordered), (0, 0), "{r:?}");
    assert!(r.lost <= r.kernel_drops, "{r:?}");
    let md = canopy_testbed::report::vethbench::markdown(&report);
    assert!(md.contains("| generator → its receiver | 2 |"), "{md}");
    for r in &report.results {
        assert!(
            r.skipped.is_none(),
            "{}: skipped {:?}",
            r.forwarder,
            r.skipped
        );
        assert!(r.error.is_none(), "{}: {:?}", r.forwarder, r.error);
        let m = r.max_rate.as_ref().expect("max-rate pass");
        assert!(m.offered > 0 && m.forwarded > 0, "{}: {m:?}", r.forwarder);
        assert!(
            m.forwarded <= m.offered + SLACK,
            "{}: more out than in: {m:?}",
            r.forwarder
        );
        let f = r.fixed.as_ref().expect("fixed-rate pass");
        assert!(f.forwarded > 0, "{}: {f:?}", r.forwarder);
        assert!(f.forwarded <= f.offered + SLACK, "{}: {f:?}", r.forwarder);
        assert_eq!(
            f.process_ns_per_pkt.is_some(),
            Kind::parse(&r.forwarder).unwrap().has_process(),
            "{}: process CPU only for forwarders with a process",
            r.forwarder
        );
        let l = r.latency.expect("latency pass");
        assert_eq!(l.sent, 100);
        assert!(
            l.received > 0 && l.received <= l.sent,
            "{}: {l:?}",
            r.forwarder
        );
        assert!(
            l.p50_ns > 0 && l.p50_ns <= l.p99_ns && l.p99_ns <= l.max_ns,
            "{l:?}"
        );
    }
    assert!(md.contains("| bridge |"), "{md}");
    // the wiring is gone
    let left = canopy_testbed::os::netns::ip(&["netns", "list"]).unwrap();
    assert!(!left.contains(&prefix), "namespaces left behind: {left}");
}
