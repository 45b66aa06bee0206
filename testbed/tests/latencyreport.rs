//! The latency trials of a search in a run's report: the "Latency under load" section,
//! the summary's rows, `latency.hlog` (an HdrHistogram interval log that reads back to
//! the same histograms) and `canopy-testbed latency` merging logs. No root needed: the
//! `RunResults` is built by hand and every expected value comes from that input.

mod report_common;

use canopy_testbed::report::results::{
    FlowReorder, GapSource, HopBreakdown, HopParts, LoadLatency, Part, PathParts, PolicyCost,
    ProbeStream, RunResults, UpPolicyResult,
};
use canopy_testbed::report::run::{SUMMARY_COLS, SUMMARY_LINES};
use canopy_testbed::report::{self, hlog, plots};
use report_common::*;
use std::process::Command;

/// A search with latency trials at 0, 10, 50 and 90 % of its NDR: the background load
/// at that rate (none at 0 %), the stream's latency growing with the load.
fn with_latency() -> RunResults {
    let mut r = search(100_000.0, Some(60_000.0), Some(70_000.0));
    let s = r.search.as_mut().unwrap();
    let ndr = s.ndr_pps.unwrap();
    s.latency = [0.0, 0.1, 0.5, 0.9]
        .iter()
        .enumerate()
        .map(|(i, &f)| {
            let rate = f * ndr;
            let sent = (rate * 5.0) as u64;
            let mut t = trial(
                rate,
                sent,
                sent,
                5.0,
                latency(&samples(2_000 + i as u64 * 4_000, sent.min(3_000))),
                None,
            );
            t.probe = Some(ProbeStream {
                offered_pps: 1_000.0,
                sent: 5_000,
                received: 5_000 - i as u64,
                lost: i as u64,
                reordered: 0,
                latency: latency(&samples(3_000 + i as u64 * 5_000, 5_000 - i as u64)),
                hops: Some(breakdown(f)),
            });
            LoadLatency {
                fraction: f,
                trial: t,
            }
        })
        .collect();
    r
}

/// A breakdown of 5-switch paths whose parts grow with `load` and add up to 99 % of
/// the measured mean (and a 3-switch path the report leaves to the JSON).
fn breakdown(load: f64) -> HopBreakdown {
    let part = |mean: f64| Part {
        mean_ns: mean,
        p50_ns: mean as u64,
        p99_ns: 2 * mean as u64,
    };
    let hop = |i: usize| HopParts {
        level: [1, 2, 3, 2, 1][i],
        rx_ring: part(2_000.0 * (1.0 + load)),
        residence: part(500.0),
        link: part(1_000.0 + i as f64),
        queue_mean: load / 2.0,
    };
    let sum = 3_000.0 + 5.0 * (2_000.0 * (1.0 + load) + 1_500.0) + 10.0;
    HopBreakdown {
        slots: 5,
        frames: 900,
        incomplete: 7,
        switch_clocks: false,
        paths: vec![
            PathParts {
                hops: 3,
                frames: 100,
                measured: part(9_000.0),
                host_stack: part(3_000.0),
                hop: (0..3).map(hop).collect(),
                sum_ratio: 1.0,
            },
            PathParts {
                hops: 5,
                frames: 800,
                measured: part(sum / 0.99),
                host_stack: part(3_000.0),
                hop: (0..5).map(hop).collect(),
                sum_ratio: 0.99,
            },
        ],
    }
}

#[test]
fn where_the_latency_went_is_tabled_and_summed() {
    let r = with_latency();
    let dir = TempDir::new("hops");
    let w = write_and_check(&r, &dir);
    let md = read(&w.markdown);
    // the plot: a bar per load, each cut into the four parts (a rect per part and bar)
    let svg = svg_of(&w, "latency_hops.svg").expect("no latency_hops.svg");
    check_xml(&svg);
    let fills = attr_of(&svg, "rect", "fill");
    for (k, part) in report::hopplot::PARTS.iter().enumerate() {
        assert_eq!(count(&fills, plots::PALETTE[k]), 4, "{part}: {fills:?}");
    }
    assert!(svg.contains("5-switch paths") && svg.contains("90 % NDR"));
    assert!(md.contains("](latency_hops.svg)"));
    let sec = &md[md.find("### Where the latency went").expect("no breakdown")..];
    assert!(sec.contains("5-switch paths"), "{sec}");
    let row = |name: &str| {
        sec.lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row {name}: {sec}"))
            .to_string()
    };
    // a column per load; the ring wait grows with it, the host stack does not
    assert!(row("part").contains("| 0 % NDR | 10 % NDR | 50 % NDR | 90 % NDR |"));
    assert_eq!(
        row("host stack (sender)"),
        "| host stack (sender) | 3.00 | 3.00 | 3.00 | 3.00 |"
    );
    assert_eq!(
        row("switch 3 (level 3): RX ring"),
        "| switch 3 (level 3): RX ring | 2.00 | 2.20 | 3.00 | 3.80 |"
    );
    assert!(row("switch 5 (level 1) → host: link").contains("| 1.00 |"));
    assert!(row("switch 2 (level 2): queue ahead (frames)").contains("| 0.45 |"));
    assert!(
        row("sum of the parts").contains("(99.0 %)"),
        "{}",
        row("sum of the parts")
    );
    assert!(row("frames (left out)").contains("| 800 (7) |"));
    // the summary: the parts at the lowest load, summed by kind
    let sum = report::run::summary(&r, Some(&w));
    assert!(
        sum.lines().count() <= SUMMARY_LINES
            && sum.lines().all(|l| l.chars().count() <= SUMMARY_COLS)
    );
    assert!(
        sum.contains("Where the stream's time went (5-switch paths, 0 % NDR), mean µs:"),
        "{sum}"
    );
    assert!(
        sum.contains("host stack 3.00 + RX rings 10.00 + residence 2.50 + links 5.01 = 20.51 (99.0 % of 20.72)"),
        "{sum}"
    );
}

#[test]
fn latency_under_load_is_reported_and_kept_whole() {
    let r = with_latency();
    let dir = TempDir::new("latency");
    let w = write_and_check(&r, &dir);
    let loads = &r.search.as_ref().unwrap().latency;
    // the section: a row per load with the stream's counts and percentiles
    let md = read(&w.markdown);
    let sec = &md[md
        .find("## Latency under load")
        .expect("no latency section")..];
    assert!(
        sec.contains("RFC 2544") && sec.contains("1.0 kpps"),
        "{sec}"
    );
    for l in loads {
        let p = l.trial.probe.as_ref().unwrap();
        let row = format!(
            "| {:.0} | {} |",
            l.fraction * 100.0,
            report::fmt::rate(l.trial.offered_pps)
        );
        let line = sec
            .lines()
            .find(|x| x.starts_with(&row))
            .unwrap_or_else(|| panic!("no row {row}"));
        for ns in [p.latency.p50_ns, p.latency.p999_ns, p.latency.max_ns] {
            assert!(line.contains(&format!("| {} |", us(ns))), "{line}");
        }
        assert!(
            line.contains(&format!("| {} | {} |", p.sent, p.lost)),
            "{line}"
        );
    }
    // the summary: a heading and a row per load, on one screen
    let sum = report::run::summary(&r, Some(&w));
    if std::env::var_os("SHOW_SUMMARY").is_some() {
        eprintln!("{sum}");
    }
    assert!(sum.lines().count() <= SUMMARY_LINES, "{sum}");
    assert!(sum.lines().all(|l| l.chars().count() <= SUMMARY_COLS));
    assert!(sum.contains("Latency under load (1.0 kpps stream"), "{sum}");
    for l in loads {
        let p = &l.trial.probe.as_ref().unwrap().latency;
        let label = format!("{:.0} % NDR", l.fraction * 100.0);
        let line = sum.lines().find(|x| x.starts_with(&label)).expect(&label);
        assert!(
            line.contains(&us(p.p50_ns)) && line.contains(&us(p.p99_ns)),
            "{line}"
        );
    }
    assert!(sum.contains("latency.hlog"), "{sum}");
    // the log: each load's stream and background, tagged, the same histograms
    let log_path = w.hlog.clone().expect("no latency.hlog written");
    let entries = hlog::read_log(&read(&log_path)).unwrap();
    // (no background at 0 %: its histogram is empty and left out)
    assert_eq!(entries.len(), 7);
    assert!(!entries.iter().any(|e| e.tag == "load-0pct"));
    for l in loads {
        let pct = (l.fraction * 100.0).round();
        for (tag, lat) in [
            (
                format!("probe-{pct}pct"),
                &l.trial.probe.as_ref().unwrap().latency,
            ),
            (format!("load-{pct}pct"), &l.trial.latency),
        ] {
            if lat.count == 0 {
                continue;
            }
            let h = hlog::merge(&entries, Some(&tag)).unwrap();
            assert_eq!(h.len(), lat.count, "{tag}");
            assert!(h.equivalent(h.max(), lat.max_ns), "{tag}");
        }
    }
    // a run without latency trials writes no log
    let plain = search(100_000.0, Some(60_000.0), None);
    let d2 = TempDir::new("nolatency");
    let w2 = write_and_check(&plain, &d2);
    assert!(w2.hlog.is_none() && !d2.0.join("latency.hlog").exists());
    assert!(!read(&w2.markdown).contains("Latency under load"));
}

#[test]
fn the_latency_command_merges_logs_by_tag() {
    let r = with_latency();
    let dir = TempDir::new("latencycmd");
    let w = write_and_check(&r, &dir);
    let log = w.hlog.unwrap();
    let bin = canopy_test_utils::bin("canopy-testbed");
    let out = Command::new(&bin)
        .args(["latency", "--tag", "probe-50pct"])
        .arg(&log)
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let p = &r.search.as_ref().unwrap().latency[2]
        .trial
        .probe
        .as_ref()
        .unwrap()
        .latency;
    let line = text
        .lines()
        .find(|l| l.starts_with("probe-50pct"))
        .expect("no row");
    let cols: Vec<&str> = line.split_whitespace().collect();
    // two intervals, twice the frames, the same percentiles (of the histogram: 3
    // significant digits)
    assert_eq!(
        (cols[1], cols[2]),
        ("2", &*(2 * p.count).to_string()),
        "{line}"
    );
    let h = hlog::decode(&p.hdr).unwrap();
    assert_eq!(cols[4], us(h.value_at_quantile(0.5)), "{line}");
    assert_eq!(cols[8], us(h.max()), "{line}");
    assert_eq!(text.lines().count(), 2, "{text}");
    // every tag without --tag; a tag no file has, and a file that is no log, fail
    let all = Command::new(&bin)
        .arg("latency")
        .arg(&log)
        .output()
        .unwrap();
    // (a header and 7 tags: no background at 0 %)
    assert_eq!(String::from_utf8_lossy(&all.stdout).lines().count(), 8);
    let none = Command::new(&bin)
        .args(["latency", "--tag", "nothing"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(!none.status.success());
    let bad = dir.0.join("bad.hlog");
    std::fs::write(&bad, "0.000,5.000,1.0,@@@not-a-histogram\n").unwrap();
    let e = Command::new(&bin)
        .arg("latency")
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!e.status.success());
    assert!(
        String::from_utf8_lossy(&e.stderr).contains("bad.hlog"),
        "{e:?}"
    );
}

/// [`with_latency`] with flowlets whose gap a calibration measured, and the NDR run
/// once per policy: per packet reorders and has the longer tail.
fn with_policy() -> RunResults {
    let mut r = with_latency();
    let ndr = r.search.as_ref().unwrap().ndr_pps.unwrap();
    let cost = |policy: &str, gap_us: u64, reordered: u64, flows: u64, tail: u64| {
        let mut t = trial(
            ndr,
            120_000,
            120_000,
            2.0,
            latency(&samples(tail, 4_000)),
            None,
        );
        t.reordered = reordered;
        t.flow_reorder = FlowReorder {
            flows: 240,
            reordered_flows: flows,
            worst_ratio: reordered as f64 / 500.0 / 240.0,
        };
        PolicyCost {
            policy: policy.into(),
            gap_us,
            trial: t,
        }
    };
    let cal = trial(
        100_000.0,
        100_000,
        90_000,
        1.0,
        latency(&samples(9_000, 4_000)),
        None,
    );
    let spread = cal.latency.p999_ns - cal.latency.min_ns;
    r.up_policy = Some(UpPolicyResult {
        policy: "flowlets".into(),
        gap_us: canopy_testbed::run::policy::gap_for_spread(spread),
        source: GapSource::Measured,
        calibration: Some(cal),
        spread_ns: Some(spread),
        costs: vec![
            cost("per-packet", 0, 6_000, 180, 30_000),
            cost(
                "flowlets",
                canopy_testbed::run::policy::gap_for_spread(spread),
                0,
                0,
                8_000,
            ),
        ],
        not_set: vec!["agg-p2-a1".into()],
    });
    r
}

#[test]
fn each_policys_cost_at_the_ndr_is_tabled_and_summarised() {
    let r = with_policy();
    let p = r.up_policy.as_ref().unwrap();
    let dir = TempDir::new("policy");
    let w = write_and_check(&r, &dir);
    let md = read(&w.markdown);
    let sec = &md[md.find("## Up-port policy").expect("no policy section")..];
    let sentence = format!(
        "Up ports: flowlets, gap {} µs (per-packet latency spread {} µs at 100.0 kpps)",
        p.gap_us,
        us(p.spread_ns.unwrap())
    );
    assert!(sec.contains(&sentence), "{sec}");
    assert!(
        sec.contains("Not set on agg-p2-a1 (stopped or not answering"),
        "{sec}"
    );
    for c in &p.costs {
        let t = &c.trial;
        let row = format!(
            "| {} | {} | {} | {} | 0.000 |",
            c.policy,
            c.gap_us,
            report::fmt::rate(t.offered_pps),
            report::fmt::rate(t.received_pps)
        );
        let line = sec
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("no row {row}: {sec}"));
        let pct = report::fmt::pct(c.trial.reordered_ratio());
        assert!(
            line.contains(&format!(
                "| {pct} | {} of 240 |",
                c.trial.flow_reorder.reordered_flows
            )),
            "{line}"
        );
        assert!(
            line.contains(&format!("| {} |", us(c.trial.latency.p99_ns))),
            "{line}"
        );
    }
    // the summary: the policy, then a line per policy, on one screen with every line
    // the run had before
    let sum = report::run::summary(&r, Some(&w));
    if std::env::var_os("SHOW_SUMMARY").is_some() {
        eprintln!("{sum}");
    }
    assert!(
        sum.lines().all(|l| l.chars().count() <= SUMMARY_COLS),
        "{sum}"
    );
    assert!(sum.contains(&sentence), "{sum}");
    let per_packet = sum
        .lines()
        .find(|l| l.contains("at the NDR, per-packet:"))
        .expect("no per-packet line");
    assert!(
        per_packet.contains("reordered 5.000 % (180 of 240 flows)"),
        "{per_packet}"
    );
    assert!(
        sum.contains("flowlets:  loss 0.000 %, reordered 0.000 % (0 of 240 flows)"),
        "{sum}"
    );
    assert!(sum.lines().count() <= SUMMARY_LINES, "{sum}");
    assert!(
        sum.contains("Report: "),
        "the report's paths were cut: {sum}"
    );
}

/// [`with_latency`] on bmv2: its records on the switches' own clocks give residence
/// only (30 µs a switch), the rest of the latency is outside the switches.
fn bmv2_with_latency() -> RunResults {
    let mut r = with_latency();
    r.meta.target = "bmv2".into();
    for l in &mut r.search.as_mut().unwrap().latency {
        let h = l.trial.probe.as_mut().unwrap().hops.as_mut().unwrap();
        h.switch_clocks = true;
        for p in &mut h.paths {
            let inside = 30_000.0 * p.hop.len() as f64;
            p.measured.mean_ns = 200_000.0 + inside;
            p.host_stack = Part {
                mean_ns: 200_000.0,
                p50_ns: 200_000,
                p99_ns: 300_000,
            };
            for x in &mut p.hop {
                x.rx_ring = Part::default();
                x.link = Part::default();
                x.residence = Part {
                    mean_ns: 30_000.0,
                    p50_ns: 30_000,
                    p99_ns: 45_000,
                };
            }
            p.sum_ratio = 1.0;
        }
    }
    r
}

#[test]
fn per_hop_residence_of_canopy_and_bmv2_side_by_side() {
    let d = TempDir::new("residence");
    let (canopy, bmv2) = (with_latency(), bmv2_with_latency());
    let (a, b) = (d.0.join("a"), d.0.join("b"));
    report::run::write(&canopy, &a).unwrap();
    let wb = report::run::write(&bmv2, &b).unwrap();
    // bmv2's own report: residence and the time outside the switches, no rings or links
    let own = read(&wb.markdown);
    let sec = &own[own
        .find("### Where the latency went")
        .expect("no breakdown")..];
    assert!(sec.contains("own clock"), "{sec}");
    assert!(sec.contains("| outside the switches | 200.00 |"), "{sec}");
    assert!(
        sec.contains("| switch 3 (level 3): residence | 30.00 |"),
        "{sec}"
    );
    assert!(
        !sec.contains("RX ring |") && !sec.contains(": link |"),
        "{sec}"
    );
    let sum = report::run::summary(&bmv2, None);
    assert!(
        sum.contains("residence 150.00 (switches' own clocks) + outside the switches 200.00 = 350.00 (100.0 % of 350.00)"),
        "{sum}"
    );
    // side by side: a column per run, switch by switch
    let out = d.0.join("cmp");
    report::compare::compare(&[a, b], &out).unwrap();
    let md = read(&out.join("compare.md"));
    let sec = &md[md
        .find("## Per-hop residence")
        .expect("no residence section")..];
    let row = |name: &str| {
        sec.lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row {name}: {sec}"))
            .to_string()
    };
    assert!(
        row("part, mean (p99) µs").ends_with("| canopy | bmv2 |"),
        "{sec}"
    );
    assert_eq!(
        row("switch 1: residence"),
        "| switch 1: residence | 0.50 (1.00) | 30.00 (45.00) |"
    );
    assert_eq!(
        row("all switches: residence"),
        "| all switches: residence | 2.50 | 150.00 |"
    );
    assert!(row("outside the switches").ends_with("| 200.00 |"), "{sec}");
    assert!(
        row("load (% of the run's NDR)").contains("0 % (5-switch paths)"),
        "{sec}"
    );
}
