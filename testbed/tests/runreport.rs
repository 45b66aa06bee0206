//! Run reports (`canopy_testbed::report`): files, JSON round trip, well-formed SVGs
//! with one polyline per curve, the numbers in the Markdown, a summary that fits one
//! screen. No root needed: every `RunResults` here is built by hand, and every expected
//! value is computed from that input.

mod report_common;

use canopy_testbed::report::results::{CeilingRx, GeneratorCeiling, Latency, RunResults};
use canopy_testbed::report::run::SUMMARY_LINES;
use canopy_testbed::report::{self, plots};
use report_common::*;

#[test]
fn fixed_rate_report() {
    let r = fixed_rate();
    let dir = TempDir::new("fixed");
    let w = write_and_check(&r, &dir);
    assert_eq!(w.plots.len(), 3);
    let t = &r.trials[0];
    // reordering per flow: in the trial's row and the summary (2,499 reordered frames,
    // 240 of 240 flows, the worst 1.25 %)
    let md = read(&w.markdown);
    assert!(md.contains("| 2499 | 240 of 240 (worst 1.250 %) |"), "{md}");
    let sum = report::run::summary(&r, Some(&w));
    assert!(
        sum.contains(
            "Reordering (trial 1): 2499 frames (0.100 %), in 240 of 240 flows (worst flow 1.250 %)"
        ),
        "{sum}"
    );
    // CDF: one curve, labels, percentile marks.
    let cdf = svg_of(&w, "latency_cdf.svg").unwrap();
    let strokes = polyline_strokes(&cdf);
    assert_eq!(count(&strokes, plots::PALETTE[0]), 1);
    assert_eq!(count(&strokes, plots::PALETTE[1]), 0);
    assert!(cdf.contains("latency (µs, log scale)") && cdf.contains("cumulative fraction"));
    for (name, ns) in [
        ("p50", t.latency.p50_ns),
        ("p99", t.latency.p99_ns),
        ("p99.9", t.latency.p999_ns),
    ] {
        assert!(
            cdf.contains(&format!("{name} {} µs", us(ns))),
            "{name} mark"
        );
    }
    // Throughput: received, sent, ideal; no NDR/PDR line; loss label; unit from the input.
    let tp = svg_of(&w, "throughput.svg").unwrap();
    let strokes = polyline_strokes(&tp);
    assert_eq!(count(&strokes, plots::PALETTE[0]), 1, "received");
    assert_eq!(count(&strokes, plots::PALETTE[1]), 1, "sent");
    assert_eq!(count(&strokes, plots::IDEAL), 1, "ideal");
    assert_eq!(
        count(&strokes, plots::PALETTE[2]) + count(&strokes, plots::PALETTE[3]),
        0
    );
    let unit = if t.offered_pps >= 1e6 { "Mpps" } else { "kpps" };
    assert!(tp.contains(&format!("offered ({unit})")) && tp.contains(&format!("rate ({unit})")));
    assert!(tp.contains(&format!("{:.3} %", t.loss_ratio * 100.0)));
    // Markdown: the meta and the fixed-rate result; p99 of 12345-based samples.
    let md = read(&w.markdown);
    assert!(
        md.contains("`fat-tree:k=4`")
            && md.contains("`uniform`")
            && md.contains("60 B (64 B on the wire")
    );
    assert!(
        md.contains("Test CPU \\| with pipe"),
        "pipes escaped in a table"
    );
    assert!(md.contains("Fixed rate: offered 250.0 kpps"));
    assert!(md.contains(&format!("loss {:.3} %", t.loss_ratio * 100.0)));
    assert!(md.starts_with("# Canopy testbed run: k4-sliced"));
    let sum = report::run::summary(&r, Some(&w));
    assert!(
        sum.contains(&us(t.latency.p99_ns)),
        "p99 in the summary:\n{sum}"
    );
    assert!(sum.contains("OK: all 20 switches conserve frames"), "{sum}");
    assert!(
        !sum.lines().any(|l| l.ends_with('…')),
        "nothing clipped:\n{sum}"
    );
    // the port backends of the fabric: 10 switches × 4 AF_PACKET ports, 10 × 2 + 2
    assert!(
        sum.contains("Port backends: afpacket ×60, afxdp/skb ×20"),
        "{sum}"
    );
    assert!(
        md.contains("| port backends | afpacket ×60, afxdp/skb ×20 |"),
        "backends in What ran"
    );
    // what limited it, with the evidence
    assert!(sum.contains("Limited by a switch's CPU."), "{sum}");
    assert!(md.contains("## What limited it") && md.contains("agg-p0-a0 port 2 (s4p2) 877"));
    // where the switches and the generator ran
    let cpus = "one shared host, 1 thread(s) on CPUs [1]; generator on CPUs [0]";
    assert!(sum.contains(&format!("Switches: {cpus}")), "{sum}");
    // (Markdown escapes the brackets)
    let md_cpus = cpus.replace('[', "\\[").replace(']', "\\]");
    assert!(
        md.contains(&format!("| CPUs | {md_cpus} |")),
        "CPUs in What ran"
    );
    assert!(
        md.contains("| afxdp/skb ×2, afpacket ×2 |"),
        "a mixed switch row"
    );
    // results.json keeps them per port, and older files without them still load
    let back: canopy_testbed::report::results::RunResults =
        serde_json::from_str(&read(&w.json)).unwrap();
    assert_eq!(back.switches[1].backends[0], "afxdp/skb");
    let mut old: serde_json::Value = serde_json::from_str(&read(&w.json)).unwrap();
    for s in old["switches"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("backends");
    }
    let back: canopy_testbed::report::results::RunResults = serde_json::from_value(old).unwrap();
    assert!(back.switches.iter().all(|s| s.backends.is_empty()));
    let md = report::run::markdown(&back).unwrap();
    assert!(md.contains("| port backends | — |"), "unknown backends");
}

#[test]
fn rounding_of_microseconds_is_half_up() {
    // A trial whose every latency is 12345 ns: 12.345 µs must read 12.35, 12344 ns 12.34.
    let mut r = fixed_rate();
    r.trials[0].latency = latency(&[12_344, 12_345, 12_345, 12_345]);
    assert_eq!(r.trials[0].latency.p99_ns, 12_345);
    assert_eq!(r.trials[0].latency.min_ns, 12_344);
    let md = report::run::markdown(&r).unwrap();
    assert!(
        md.contains("| 12.34 | 12.35 | 12.35 | 12.35 | 12.35 | 12.35 |"),
        "{md}"
    );
}

#[test]
fn search_with_ndr_and_pdr() {
    let r = search(2_000_000.0, Some(500_000.0), Some(1_000_000.0));
    let s = r.search.clone().unwrap();
    let (ndr, pdr) = (s.ndr_trial.unwrap(), s.pdr_trial.unwrap());
    assert_ne!(ndr, pdr, "the input has distinct NDR and PDR trials");
    let dir = TempDir::new("search");
    let w = write_and_check(&r, &dir);
    let cdf = svg_of(&w, "latency_cdf.svg").unwrap();
    let strokes = polyline_strokes(&cdf);
    assert_eq!(count(&strokes, plots::PALETTE[0]), 1, "NDR curve");
    assert_eq!(count(&strokes, plots::PALETTE[1]), 1, "PDR curve");
    assert_eq!(count(&strokes, plots::PALETTE[2]), 0);
    for i in [ndr, pdr] {
        assert!(cdf.contains(&format!("p99 {} µs", us(r.trials[i].latency.p99_ns))));
    }
    let tp = svg_of(&w, "throughput.svg").unwrap();
    let strokes = polyline_strokes(&tp);
    assert_eq!(count(&strokes, plots::PALETTE[2]), 1, "NDR line");
    assert_eq!(count(&strokes, plots::PALETTE[3]), 1, "PDR line");
    let max = r
        .trials
        .iter()
        .map(|t| t.offered_pps.max(t.sent_pps).max(t.received_pps))
        .fold(0.0, f64::max);
    assert!(max >= 1e6);
    assert!(tp.contains("offered (Mpps)"));
    let ndr_mpps = format!("NDR {:.3} Mpps", s.ndr_pps.unwrap() / 1e6);
    let pdr_text = if s.pdr_pps.unwrap() >= 1e6 {
        format!("PDR {:.3} Mpps", s.pdr_pps.unwrap() / 1e6)
    } else {
        format!("PDR {:.1} kpps", s.pdr_pps.unwrap() / 1e3)
    };
    let ndr_text = if s.ndr_pps.unwrap() >= 1e6 {
        ndr_mpps
    } else {
        format!("NDR {:.1} kpps", s.ndr_pps.unwrap() / 1e3)
    };
    assert!(tp.contains(&ndr_text), "{ndr_text}");
    let md = read(&w.markdown);
    assert!(md.contains(&format!("{ndr_text} (trial {})", ndr + 1)));
    assert!(md.contains(&format!(
        "{pdr_text} below 0.500 % loss (trial {})",
        pdr + 1
    )));
    assert!(md.contains("| passed |"));
    let sum = report::run::summary(&r, Some(&w));
    assert!(
        !sum.lines().any(|l| l.ends_with('…')),
        "nothing clipped:\n{sum}"
    );
    assert!(sum.contains(&ndr_text) && sum.contains(&pdr_text), "{sum}");
    assert!(sum.contains(&us(r.trials[ndr].latency.p99_ns)));
    // failed trials that lost nothing are named as a generator limit
    let short = r
        .trials
        .iter()
        .filter(|t| t.passed == Some(false) && t.lost == 0)
        .count();
    assert_eq!(short > 0, sum.contains("lost no frame"), "{sum}");
    assert_eq!(short > 0, sum.contains("Generator-limited:"), "{sum}");
    let mut r2 = r.clone();
    let failed = r2
        .trials
        .iter()
        .position(|t| t.passed == Some(false))
        .unwrap();
    r2.trials[failed].lost = 0;
    let n = r2
        .trials
        .iter()
        .filter(|t| t.passed == Some(false) && t.lost == 0)
        .count();
    let sum = report::run::summary(&r2, None);
    assert!(
        sum.contains(&format!("{n} failed trial(s) lost no frame")),
        "{sum}"
    );
    // and the headline says so before the rates
    let head = sum.find("Generator-limited:").expect("headline");
    assert!(head < sum.find("Search: ").unwrap(), "{sum}");
    assert!(sum.lines().all(|l| l.chars().count() <= 100), "{sum}");
}

/// A search's run measures the generator's own ceiling first; the report states it in
/// the result and in "What ran", and results.json keeps it.
#[test]
fn search_states_the_generator_ceiling() {
    let mut r = search(2_000_000.0, Some(500_000.0), Some(1_000_000.0));
    r.meta.generator_ceiling = Some(GeneratorCeiling {
        tx_threads: 1,
        burst: 32,
        frame_len: 60,
        seconds: 1.0,
        sent: 1_234_567,
        sent_pps: 1_234_567.0,
        warmup_sent: 100_000,
        sink_rx: 1_334_567,
        burst_span_mean_ns: 20_000.0,
        burst_span_max_ns: 90_000,
        receiver: Some(CeilingRx {
            received: 1_200_000,
            received_pps: 1_200_000.0,
            lost: 34_567,
            kernel_drops: 34_567,
            p50_ns: 30_000,
            p99_ns: 200_000,
            max_ns: 900_000,
            ..CeilingRx::default()
        }),
        at_up: false,
    });
    let dir = TempDir::new("ceiling");
    let w = write_and_check(&r, &dir);
    let md = read(&w.markdown);
    let line = "1.235 Mpps sent, 1.200 Mpps received (34567 lost), 1 sender thread(s).";
    assert!(
        md.contains(&format!("| generator ceiling | {line} |")),
        "{md}"
    );
    let sum = report::run::summary(&r, Some(&w));
    assert!(
        sum.contains("Generator ceiling (the generator alone"),
        "{sum}"
    );
    assert!(sum.contains(line), "{sum}");
    assert!(sum.lines().all(|l| l.chars().count() <= 100), "{sum}");
    // a fixed-rate run states the one `up` measured, and says so
    let mut fixed = fixed_rate();
    let mut at_up = r.meta.generator_ceiling.clone().unwrap();
    at_up.at_up = true;
    fixed.meta.generator_ceiling = Some(at_up);
    let sum = report::run::summary(&fixed, None);
    assert!(
        sum.contains(
            "Generator ceiling (the generator alone on one veth pair, at `up`, 64 B frames):"
        ),
        "{sum}"
    );
    assert!(sum.contains(line), "{sum}");
    // without one, neither says anything about it
    let plain = search(2_000_000.0, Some(500_000.0), Some(1_000_000.0));
    assert!(!report::run::summary(&plain, None).contains("Generator ceiling"));
    assert!(!report::run::markdown(&plain)
        .unwrap()
        .contains("generator ceiling"));
}

#[test]
fn confirmed_rates_are_reported_with_the_short_trials_own() {
    let mut r = search(2_000_000.0, Some(500_000.0), Some(1_000_000.0));
    let s = r.search.as_mut().unwrap();
    s.confirm_s = 10.0;
    s.ndr_search_pps = Some(537_100.0);
    let sum = report::run::summary(&r, None);
    assert!(
        sum.contains("NDR 488.3 kpps (confirmed over 10 s, trial"),
        "{sum}"
    );
    assert!(
        sum.contains("The short trials passed NDR 537.1 kpps; it lost frames over 10 s and was confirmed lower."),
        "{sum}"
    );
    // none held: said so, with the short trials' rate
    let s = r.search.as_mut().unwrap();
    (s.ndr_pps, s.ndr_trial) = (None, None);
    let sum = report::run::summary(&r, None);
    assert!(
        sum.contains("Search: no NDR held over 10 s (short trials: 537.1 kpps);"),
        "{sum}"
    );
}

#[test]
fn search_without_ndr() {
    // Every trial loses, some under 0.5 %: a PDR but no NDR.
    let r = search(1_000_000.0, None, Some(400_000.0));
    let s = r.search.as_ref().unwrap();
    assert!(s.ndr_pps.is_none() && s.pdr_pps.is_some());
    let dir = TempDir::new("nondr");
    let w = write_and_check(&r, &dir);
    let strokes = polyline_strokes(&svg_of(&w, "latency_cdf.svg").unwrap());
    assert_eq!(count(&strokes, plots::PALETTE[0]), 1, "PDR curve only");
    assert_eq!(count(&strokes, plots::PALETTE[1]), 0);
    let strokes = polyline_strokes(&svg_of(&w, "throughput.svg").unwrap());
    assert_eq!(count(&strokes, plots::PALETTE[2]), 0, "no NDR line");
    assert_eq!(count(&strokes, plots::PALETTE[3]), 1, "PDR line");
    let md = read(&w.markdown);
    assert!(md.contains("no NDR (no trial passed)"));
    // Nothing meets either criterion: the CDF falls back to the lowest-rate trial.
    let r = search(1_000_000.0, None, None);
    let dir = TempDir::new("nopdr");
    let w = write_and_check(&r, &dir);
    let lowest = (0..r.trials.len())
        .min_by(|&a, &b| r.trials[a].offered_pps.total_cmp(&r.trials[b].offered_pps))
        .unwrap();
    let chosen = plots::cdf_trials(&r);
    assert_eq!(chosen.len(), 1);
    assert_eq!(chosen[0].0, lowest);
    let cdf = svg_of(&w, "latency_cdf.svg").unwrap();
    assert!(cdf.contains(&format!("p99 {} µs", us(r.trials[lowest].latency.p99_ns))));
    let md = read(&w.markdown);
    assert!(md.contains("no PDR (every trial lost 0.500 % or more)"));
}

#[test]
fn zero_received_and_empty_links() {
    let mut r = fixed_rate();
    r.trials = vec![trial(
        100_000.0,
        1_000_000,
        0,
        10.0,
        Latency::default(),
        None,
    )];
    r.links.clear();
    r.switches[3].conserved = false;
    r.switches[3].tx -= 5;
    r.trials[0].misdelivered = 7;
    let dir = TempDir::new("zero");
    let w = write_and_check(&r, &dir);
    // No latency and no links: those plots are not written, the report says why.
    let names: Vec<_> = w
        .plots
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["throughput.svg"]);
    assert!(!dir.0.join("latency_cdf.svg").exists() && !dir.0.join("links.svg").exists());
    let md = read(&w.markdown);
    assert!(md.contains("No latency CDF") && md.contains("No per-link counters"));
    assert!(md.contains("| n/a | n/a | n/a | n/a | n/a | n/a |"));
    assert!(md.contains("loss 100.000 %"));
    let sum = report::run::summary(&r, Some(&w));
    let verdict = format!(
        "FAIL: 1 of 20 switches break rx = tx + drops (sw3); {} frames misdelivered",
        7
    );
    assert!(sum.contains(&verdict), "{sum}");
    assert!(md.contains(&verdict));
    let tp = svg_of(&w, "throughput.svg").unwrap();
    assert!(tp.contains("100.000 %"));
}

#[test]
fn no_trials_no_switches() {
    let mut r = fixed_rate();
    r.trials.clear();
    r.switches.clear();
    let dir = TempDir::new("empty");
    let w = write_and_check(&r, &dir);
    assert_eq!(w.plots.len(), 1, "only the link plot");
    let sum = report::run::summary(&r, None);
    assert!(
        sum.contains("INCOMPLETE: no switch counters recorded"),
        "{sum}"
    );
    assert!(sum.contains("No trial ran."));
}

#[test]
fn link_plots_k4_and_large() {
    for per_tier in [16usize, 48] {
        let mut r = fixed_rate();
        r.links = links(per_tier);
        let dir = TempDir::new(&format!("links{per_tier}"));
        let w = write_and_check(&r, &dir);
        let svg = svg_of(&w, "links.svg").unwrap();
        let fills = attr_of(&svg, "<rect", "fill");
        // Two bars per link, one per direction.
        assert_eq!(count(&fills, plots::PALETTE[0]), r.links.len(), "a→b bars");
        assert_eq!(count(&fills, plots::PALETTE[1]), r.links.len(), "b→a bars");
        // Tiers bottom-up, each panel captioned with its link count.
        let pos: Vec<usize> = ["host-edge", "edge-agg", "agg-core"]
            .iter()
            .map(|t| {
                svg.find(&format!("{t} ({per_tier} links)"))
                    .expect("tier caption")
            })
            .collect();
        assert!(pos[0] < pos[1] && pos[1] < pos[2]);
        let busiest = r
            .links
            .iter()
            .map(|l| l.frames_ab.max(l.frames_ba))
            .max()
            .unwrap();
        assert!(svg.contains(&format!("busiest link direction: {busiest} frames")));
        // Wide enough for 10 px per link.
        let width: u32 = attr_of(&svg, "<svg", "width")[0].parse().unwrap();
        assert!(width as usize >= 10 * per_tier);
        let md = read(&w.markdown);
        for l in &r.links {
            assert!(md.contains(&format!(
                "| `{}` | `{}` | {} | {} |",
                l.a, l.b, l.frames_ab, l.frames_ba
            )));
        }
    }
}

#[test]
fn many_fixed_trials_summary_fits() {
    let mut r = fixed_rate();
    r.meta.fabric = "a-very-long-fabric-name-".repeat(8);
    r.trials = (1..=40)
        .map(|i| {
            trial(
                i as f64 * 10_000.0,
                i * 100_000,
                i * 99_000,
                10.0,
                latency(&samples(5_000 + i, 500)),
                None,
            )
        })
        .collect();
    let dir = TempDir::new("many");
    let w = write_and_check(&r, &dir);
    let cdf = svg_of(&w, "latency_cdf.svg").unwrap();
    const { assert!(plots::MAX_CDF_CURVES > plots::LABELLED_CURVES) };
    assert!(!cdf.contains("p99 "), "too many curves for value labels");
    // Every curve still has its three marks (plus one legend circle).
    let strokes = polyline_strokes(&cdf);
    for c in &plots::PALETTE {
        assert_eq!(
            count(&strokes, c),
            1,
            "at most {} CDF curves, one each",
            plots::MAX_CDF_CURVES
        );
    }
    let sum = report::run::summary(&r, Some(&w));
    assert!(sum.contains(&format!("… {} more trials", 40 - 6)), "{sum}");
}

#[test]
fn hostile_input_never_panics_and_is_escaped() {
    let mut r = search(1_000_000.0, Some(300_000.0), Some(600_000.0));
    r.meta.fabric = "<script>alert('x')</script> & | `tick`".into();
    r.meta.pattern = "a|b`c".into();
    r.links = links(4);
    r.links[0].tier = "<tier & co>".into();
    r.switches[0].name = "sw<0>".into();
    // Indices past the trials, non-finite rates, a 0 ns sample, fractions out of range.
    let s = r.search.as_mut().unwrap();
    s.ndr_trial = Some(99);
    s.pdr_pps = Some(f64::INFINITY);
    r.trials[0].offered_pps = f64::NAN;
    r.trials[1].sent_pps = f64::INFINITY;
    r.trials[2].latency.cdf.insert(0, (0, 0.0));
    r.trials[2].latency.min_ns = 0;
    r.trials[3].latency.cdf.push((u64::MAX, f64::NAN));
    let dir = TempDir::new("hostile");
    let w = report::run::write(&r, &dir.0).expect("write");
    for p in &w.plots {
        check_xml(&read(p));
    }
    let html = read(&w.html);
    assert!(!html.contains("<script>"), "HTML escapes names");
    assert!(html.contains("&lt;script&gt;"));
    let md = read(&w.markdown);
    assert!(
        md.contains("| ``a\\|b`c`` |"),
        "code with | and ` in a table"
    );
    let sum = report::run::summary(&r, Some(&w));
    assert!(sum.lines().count() <= SUMMARY_LINES);
    // Non-finite trials are left out of the throughput plot, the others drawn.
    let tp = svg_of(&w, "throughput.svg").unwrap();
    assert_eq!(count(&polyline_strokes(&tp), plots::PALETTE[0]), 1);
    assert_eq!(
        count(&polyline_strokes(&tp), plots::PALETTE[3]),
        0,
        "no PDR line at infinity"
    );
}

#[test]
fn compare_puts_runs_side_by_side() {
    let d = TempDir::new("compare");
    let mut canopy = search(400_000.0, Some(160_000.0), Some(200_000.0));
    canopy.meta.target = "canopy".into();
    let mut bmv2 = search(40_000.0, Some(9_000.0), Some(12_000.0));
    bmv2.meta.target = "bmv2".into();
    let build = "/opt/bmv2-perf/bin/simple_switch: performance build (logging macros and event logger compiled out)";
    bmv2.meta.target_build = Some(build.into());
    let (a, b) = (d.0.join("a"), d.0.join("b"));
    report::run::write(&canopy, &a).unwrap();
    report::run::write(&bmv2, &b).unwrap();
    let out = d.0.join("cmp");
    let written = report::compare::compare(&[a.clone(), b.join("results.json")], &out).unwrap();
    assert_eq!(written.len(), 3, "{written:?}");
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    // one row per run, each with its own NDR
    let ndr = |r: &RunResults| report::fmt::rate(r.search.as_ref().unwrap().ndr_pps.unwrap());
    let row = |target: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| `{target}`")))
            .unwrap_or_else(|| panic!("no row for {target}:\n{md}"))
            .to_string()
    };
    assert!(row("canopy").contains(&ndr(&canopy)), "{md}");
    assert!(row("bmv2").contains(&ndr(&bmv2)), "{md}");
    assert!(md.contains("compare_latency_cdf.svg"), "{md}");
    // the runs table names the bmv2 build it ran (and none for canopy)
    // (Markdown escapes the underscores)
    let md_build = build.replace('_', "\\_");
    assert!(md.contains(&format!("| `bmv2` | {md_build} |")), "{md}");
    assert!(md.contains("| `canopy` | — |"), "{md}");
    // the run's own report and summary say it too
    let own = std::fs::read_to_string(b.join("report.md")).unwrap();
    assert!(
        own.contains(&format!("| target | bmv2 ({md_build}) |")),
        "{own}"
    );
    let sum = report::run::summary(&bmv2, None);
    let (path, what) = build.split_once(": ").unwrap();
    assert!(
        sum.contains(&format!("bmv2: {path}\n      {what}\n")),
        "{sum}"
    );
    // the CDF has one curve per run, labelled with its target
    let svg = std::fs::read_to_string(out.join("compare_latency_cdf.svg")).unwrap();
    check_xml(&svg);
    let strokes = polyline_strokes(&svg);
    assert_eq!(count(&strokes, plots::PALETTE[0]), 1, "one curve per run");
    assert_eq!(count(&strokes, plots::PALETTE[1]), 1, "one curve per run");
    assert_eq!(count(&strokes, plots::PALETTE[2]), 0, "one curve per run");
    assert!(svg.contains("canopy, NDR") && svg.contains("bmv2, NDR"));
    // html is self-contained
    let html = std::fs::read_to_string(out.join("compare.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("bmv2"));
    // differing runs are flagged; one run alone is refused
    let mut other = fixed_rate();
    other.meta.target = "bmv2".into();
    other.meta.pattern = "transpose".into();
    let c = d.0.join("c");
    report::run::write(&other, &c).unwrap();
    report::compare::compare(&[a.clone(), c], &out).unwrap();
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("differ in pattern"), "{md}");
    assert!(report::compare::compare(&[a], &out).is_err());
}
