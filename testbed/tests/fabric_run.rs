//! `canopy-testbed run` on whole fabrics in namespaces (root; `SKIP` otherwise): traffic
//! from every host, the generator's own accounting cross-checked against the switches'
//! counters (every frame sent enters the fabric once through its host link and every
//! frame received leaves it once through one), conservation on every switch, the report
//! files; a Transit fabric (hosts that receive on two channels); a rate the machine
//! cannot reach rejected before any traffic.
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{root_or_skip, Fab};
use serde_json::Value;

fn results(f: &Fab, out: &std::path::Path) -> Value {
    let r = fabric_common::results(out);
    eprintln!(
        "fabric {}: {} trial(s)",
        f.name,
        r["trials"].as_array().unwrap().len()
    );
    r
}

/// Run one fixed-rate trial and check it against the switches' counters.
fn run_and_cross_check(f: &Fab, args: &[&str], switches: usize) -> Value {
    let out = f.dir.join("report");
    let o = out.to_str().unwrap().to_string();
    let mut a = vec!["run", f.name.as_str(), "--out", &o, "--quiet"];
    a.extend(args);
    let r = f.run(&a);
    assert!(
        r.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(stdout.contains("OK: all"), "summary: {stdout}");
    for file in ["results.json", "report.md", "report.html"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let res = results(f, &out);
    let t = &res["trials"][0];
    let sent = t["sent"].as_u64().unwrap();
    let received = t["received"].as_u64().unwrap();
    assert!(sent > 0);
    assert_eq!(received, sent, "loss at a low rate: {t}");
    assert_eq!(t["misdelivered"], 0);
    assert_eq!(t["duplicates"], 0);
    assert!(t["latency"]["count"].as_u64().unwrap() > 0);
    let sw = res["switches"].as_array().unwrap();
    assert_eq!(sw.len(), switches);
    for s in sw {
        assert_eq!(s["conserved"], true, "{s}");
    }
    // host links: frames into the fabric = frames the warm-up and the trial sent;
    // frames out of it = frames received, warm-up included
    let links = res["links"].as_array().unwrap();
    let host_links = links
        .iter()
        .filter(|l| l["tier"].as_str().unwrap().starts_with("host-"));
    let (mut into, mut out_of) = (0u64, 0u64);
    for l in host_links {
        out_of += l["frames_ab"].as_u64().unwrap();
        into += l["frames_ba"].as_u64().unwrap();
    }
    let switch_rx: u64 = sw.iter().map(|s| s["rx"].as_u64().unwrap()).sum();
    let warm_sent = t["warmup_sent"].as_u64().unwrap();
    let warm_received = t["warmup_received"].as_u64().unwrap();
    assert!(warm_sent > 0, "the warm-up sent nothing: {t}");
    assert_eq!(
        into,
        sent + warm_sent,
        "host links into the fabric vs frames sent"
    );
    assert_eq!(
        out_of,
        received + warm_received,
        "host links out of the fabric vs frames received"
    );
    assert_eq!(
        into, out_of,
        "every frame that entered the fabric left it (no drops)"
    );
    assert!(
        switch_rx >= into,
        "switch rx {switch_rx} < frames in {into}"
    );
    res
}

#[test]
fn run_k4_sliced_fixed_rate_cross_checked_with_switch_counters() {
    if !root_or_skip("run_k4_sliced_fixed_rate_cross_checked_with_switch_counters") {
        return;
    }
    let f = Fab::new("r");
    let d = f.desc("fabric.toml", "[traffic]\npattern = \"permutation\"\n");
    f.up(&d, &[]);
    let res = run_and_cross_check(&f, &["--rate", "4kpps", "--duration-s", "1"], 20);
    assert_eq!(res["meta"]["pattern"], "permutation");
    assert_eq!(res["meta"]["frame_len"], 60);
    // the generator's own ceiling, measured by `up`, is in every run's results
    let c = &res["meta"]["generator_ceiling"];
    assert_eq!(
        (c["at_up"].as_bool(), c["frame_len"].as_u64()),
        (Some(true), Some(60)),
        "{c}"
    );
    assert!(c["sent_pps"].as_f64().unwrap() > 10_000.0, "{c}");
    flowlet_gap_from_the_calibration(&f, &res);
    // a rate this machine cannot reach is rejected before any traffic, naming the key
    let r = f.run(&["run", &f.name, "--rate", "90Mpps", "--quiet"]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("rate"), "{err}");
    // an unknown pattern too
    let r = f.run(&["run", &f.name, "--pattern", "zigzag", "--quiet"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("zigzag"));
    replay_a_crafted_pcap(&f);
    stream_breakdown(&f);
    f.down();
    f.assert_clean();
}

/// Flowlets by default: the run took its gap from a per-packet calibration at its own
/// rate (outside the trials and the counters), and every switch has that gap.
fn flowlet_gap_from_the_calibration(f: &Fab, res: &Value) {
    let p = &res["up_policy"];
    assert_eq!(
        (p["policy"].as_str(), p["source"].as_str()),
        (Some("flowlets"), Some("measured")),
        "{p}"
    );
    let cal = &p["calibration"];
    assert_eq!(cal["offered_pps"].as_f64(), Some(4000.0), "{cal}");
    assert!(cal["received"].as_u64().unwrap() > 0, "{cal}");
    let spread = p["spread_ns"].as_u64().unwrap();
    let l = &cal["latency"];
    assert_eq!(
        spread,
        l["p999_ns"].as_u64().unwrap() - l["min_ns"].as_u64().unwrap()
    );
    let gap = p["gap_us"].as_u64().unwrap();
    assert_eq!(
        gap,
        canopy_testbed::run::policy::gap_for_spread(spread),
        "{p}"
    );
    assert!(
        p["costs"].as_array().unwrap().is_empty(),
        "a fixed-rate run compares nothing"
    );
    assert_eq!(
        res["trials"].as_array().unwrap().len(),
        1,
        "the calibration is not a trial"
    );
    let st = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("local")).unwrap();
    for s in &st.switches {
        let req = canopy_proto::mgmt::Request::Flowlets { gap_us: None };
        let a: canopy_proto::mgmt::FlowletGap =
            canopy_testbed::fabric::mgmt::typed(&s.mgmt(), &req, std::time::Duration::from_secs(5))
                .unwrap();
        assert_eq!(a.gap_us, gap, "switch {}", s.name);
    }
}

/// A trial with a latency stream beside it: the stream's frames are counted apart, carry
/// a record from every switch on their path (the switch's level going up and down the
/// tree), and the parts of their latency add up to it within 10 %.
fn stream_breakdown(f: &Fab) {
    let out = f.dir.join("stream");
    let o = out.to_str().unwrap();
    let r = f.run(&[
        "run",
        &f.name,
        "--rate",
        "2kpps",
        "--duration-s",
        "2",
        "--probe-pps",
        "500",
        "--out",
        o,
        "--quiet",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let res = results(f, &out);
    let t = &res["trials"][0];
    assert_eq!(
        (t["lost"].as_u64(), t["foreign"].as_u64()),
        (Some(0), Some(0)),
        "{t}"
    );
    let p = &t["probe"];
    let sent = p["sent"].as_u64().unwrap();
    assert!((900..=1100).contains(&sent), "{p}");
    assert_eq!(p["received"].as_u64(), Some(sent), "{p}");
    assert_eq!(p["latency"]["count"].as_u64(), Some(sent), "{p}");
    let h = &p["hops"];
    assert_eq!(
        (h["slots"].as_u64(), h["incomplete"].as_u64()),
        (Some(5), Some(0)),
        "{h}"
    );
    assert_eq!(h["frames"].as_u64(), Some(sent), "{h}");
    let paths = h["paths"].as_array().unwrap();
    assert!(!paths.is_empty());
    for path in paths {
        let n = path["hops"].as_u64().unwrap() as usize;
        assert!([1, 3, 5].contains(&n), "{path}");
        let levels: Vec<u64> = path["hop"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["level"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = (0..n).map(|i| (i.min(n - 1 - i) + 1) as u64).collect();
        assert_eq!(levels, want, "{path}");
        let ratio = path["sum_ratio"].as_f64().unwrap();
        assert!(
            (0.9..=1.1).contains(&ratio),
            "the parts do not add up: {path}"
        );
        for x in path["hop"].as_array().unwrap() {
            assert!(x["residence"]["mean_ns"].as_f64().unwrap() > 0.0, "{x}");
        }
    }
    for s in res["switches"].as_array().unwrap() {
        assert_eq!(s["conserved"], true, "{s}");
    }
}

/// A pcap crafted here (generator frames from host 0 to every other host, and three
/// IPv4 frames the switches must drop) replayed out of host 0: the generator frames are
/// counted like a trial, the others are dropped by the edge switch and counted there.
fn replay_a_crafted_pcap(f: &Fab) {
    let file = f.dir.join("crafted.pcap");
    assert_eq!(fabric_common::crafted_pcap(&file, 20, 3), 300);
    let out = f.dir.join("replay");
    let r = f.replay(&file, "0", "3000", &out);
    assert!(
        r.status.success(),
        "replay: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(String::from_utf8_lossy(&r.stdout)
        .contains("3 frame(s) of the file were not generator frames"));
    let res = results(f, &out);
    let t = &res["trials"][0];
    assert_eq!(t["sent"], 300, "{t}");
    assert_eq!(t["received"], 300, "{t}");
    assert_eq!(t["misdelivered"], 0);
    let sw = res["switches"].as_array().unwrap();
    assert!(sw.iter().all(|s| s["conserved"] == true));
    let dropped: u64 = sw
        .iter()
        .flat_map(|s| s["drops"].as_object().unwrap().values())
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(
        dropped, 3,
        "the three IPv4 frames are dropped and counted: {sw:?}"
    );
}

#[test]
fn run_transit_hosts_receive_on_their_input_channels() {
    if !root_or_skip("run_transit_hosts_receive_on_their_input_channels") {
        return;
    }
    let f = Fab::new("rt");
    let d = f.desc(
        "fabric.toml",
        "topology = \"transit-full:layers=1\"\nkind = \"transit\"\n[switch]\npool = 1024\n",
    );
    f.up(&d, &[]);
    run_and_cross_check(&f, &["--rate", "2kpps", "--count", "2000"], 52);
    f.down();
    f.assert_clean();
}
