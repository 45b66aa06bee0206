//! Shared fixtures of the report tests (`runreport`, `latencyreport`): `RunResults`
//! built by hand, the files a report writes checked for well-formed XML and the numbers
//! they must hold.
#![allow(dead_code)]

use canopy_testbed::report;
use canopy_testbed::report::results::{
    CpuSplit, FlowReorder, Header, Latency, Limit, LinkLoad, Machine, RunMeta, RunResults,
    SearchResult, SwitchDelta, Trial, SCHEMA_VERSION,
};
use canopy_testbed::report::run::{SUMMARY_COLS, SUMMARY_LINES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A temp directory removed on drop, even when the test fails.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(case: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("creports{}-{case}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("KEEP_REPORTS").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A latency summary from raw samples (nearest-rank percentiles, a CDF point per
/// distinct value), as the generator's histogram would give it.
pub fn latency(samples: &[u64]) -> Latency {
    if samples.is_empty() {
        return Latency::default();
    }
    let mut s = samples.to_vec();
    s.sort_unstable();
    let n = s.len();
    let rank = |q: f64| s[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let mut cdf: Vec<(u64, f64)> = Vec::new();
    for (i, &v) in s.iter().enumerate() {
        let f = (i + 1) as f64 / n as f64;
        match cdf.last_mut() {
            Some(last) if last.0 == v => last.1 = f,
            _ => cdf.push((v, f)),
        }
    }
    Latency {
        count: n as u64,
        min_ns: s[0],
        mean_ns: s.iter().sum::<u64>() as f64 / n as f64,
        p50_ns: rank(0.5),
        p90_ns: rank(0.9),
        p99_ns: rank(0.99),
        p999_ns: rank(0.999),
        max_ns: s[n - 1],
        cdf,
        hdr: {
            let mut h = canopy_testbed::traffic::rx::latency_histogram().unwrap();
            for &v in &s {
                h.record(v).unwrap();
            }
            report::hlog::encode(&h)
        },
    }
}

/// Samples spread from `base` up with a tail; deterministic.
pub fn samples(base: u64, n: u64) -> Vec<u64> {
    (0..n)
        .map(|i| base + (i * i * 7919) % (base * 3) + i % 13)
        .collect()
}

pub fn trial(
    offered: f64,
    sent: u64,
    received: u64,
    dur: f64,
    lat: Latency,
    passed: Option<bool>,
) -> Trial {
    let lost = sent - received;
    Trial {
        offered_pps: offered,
        sent_pps: sent as f64 / dur,
        received_pps: received as f64 / dur,
        duration_s: dur,
        sent,
        warmup_sent: sent / 10,
        warmup_received: received / 10,
        received,
        lost,
        loss_ratio: if sent == 0 {
            0.0
        } else {
            lost as f64 / sent as f64
        },
        reordered: received / 1000,
        flow_reorder: FlowReorder {
            flows: 240,
            reordered_flows: (received / 1000).min(240),
            worst_ratio: if received >= 1000 { 0.0125 } else { 0.0 },
        },
        duplicates: received / 5000,
        misdelivered: 0,
        foreign: 3,
        latency: lat,
        passed,
        drained_s: 0.0,
        timeline: None,
        probe: None,
    }
}

pub fn meta() -> RunMeta {
    RunMeta {
        header: Header {
            command: "canopy-testbed run --pattern uniform --frame-len 60 --search".into(),
            started: "2026-11-23T16:00:00Z".into(),
            machine: Machine {
                cpus: 2,
                kernel: "6.1.0-test".into(),
                cpu_model: Some("Test CPU | with pipe".into()),
                load_before: Some(0.42),
            },
            version: "0.1.0 (abc1234)".into(),
        },
        fabric: "k4-sliced".into(),
        topology: "fat-tree:k=4".into(),
        kind: "sliced".into(),
        target: "canopy".into(),
        hosts: 16,
        switches: 20,
        pattern: "uniform".into(),
        frame_len: 60,
        cpus: CpuSplit {
            host_threads: 1,
            host_cores: vec![1],
            generator_cores: vec![0],
        },
        generator_ceiling: None,
        target_build: None,
        guests: None,
    }
}

pub fn switches() -> Vec<SwitchDelta> {
    let mut v = Vec::new();
    for i in 0..20u64 {
        let mut drops = BTreeMap::new();
        if i % 4 == 0 {
            drops.insert("ring_full".to_string(), 10 + i);
        }
        if i == 7 {
            drops.insert("no_route".to_string(), 2);
        }
        let d: u64 = drops.values().sum();
        let rx = 100_000 + i * 1_000;
        // the kernel dropped frames at the RX rings of every fifth switch
        let backend_drops = if i % 5 == 0 {
            BTreeMap::from([("kernel_drops".to_string(), 100 + i)])
        } else {
            BTreeMap::new()
        };
        v.push(SwitchDelta {
            name: format!("sw{i}"),
            rx,
            tx: rx - d,
            drops,
            conserved: true,
            unchecked: None,
            // mixed backends: odd switches have two AF_XDP ports
            backends: if i % 2 == 0 {
                vec!["afpacket".into(); 4]
            } else {
                ["afxdp/skb", "afxdp/skb", "afpacket", "afpacket"]
                    .map(String::from)
                    .to_vec()
            },
            backend_drops,
        });
    }
    v
}

/// `per_tier` links in each of the three fat-tree tiers, loads varied, some zero.
pub fn links(per_tier: usize) -> Vec<LinkLoad> {
    let mut v = Vec::new();
    for tier in ["agg-core", "host-edge", "edge-agg"] {
        for i in 0..per_tier {
            let ab = ((i * 37) % 11 * 1000) as u64;
            let ba = ((i * 53) % 7 * 1500) as u64;
            v.push(LinkLoad {
                a: format!("{tier}-a{i}:1"),
                b: format!("{tier}-b{i}:2"),
                tier: tier.into(),
                frames_ab: ab,
                frames_ba: ba,
                relative: 0.0,
            });
        }
    }
    let max = v
        .iter()
        .map(|l| l.frames_ab.max(l.frames_ba))
        .max()
        .unwrap_or(0);
    for l in &mut v {
        l.relative = if max == 0 {
            0.0
        } else {
            l.frames_ab.max(l.frames_ba) as f64 / max as f64
        };
    }
    v
}

pub fn fixed_rate() -> RunResults {
    RunResults {
        schema: SCHEMA_VERSION,
        meta: meta(),
        trials: vec![trial(
            250_000.0,
            2_500_000,
            2_499_123,
            10.0,
            latency(&samples(12_345, 5000)),
            None,
        )],
        search: None,
        switches: switches(),
        links: links(16),
        limit: Some(Limit {
            by: "a switch's CPU".into(),
            evidence: vec![
                "switch receive rings overflowed (877 frames; most: agg-p0-a0 port 2 (s4p2) 877)"
                    .into(),
            ],
        }),
        up_policy: None,
    }
}

/// A search: rates halve from `max`; trials at or below `ndr_at` lose nothing, below
/// `pdr_at` lose 0.2 %, above lose 5 %. `None` makes the criterion fail everywhere.
pub fn search(max: f64, ndr_at: Option<f64>, pdr_at: Option<f64>) -> RunResults {
    let dur = 2.0;
    let mut trials = Vec::new();
    let mut rate = max;
    let mut ndr: Option<(f64, usize)> = None;
    let mut pdr: Option<(f64, usize)> = None;
    for i in 0..7 {
        let sent = (rate * dur) as u64;
        let lossless = ndr_at.is_some_and(|n| rate <= n);
        let small = pdr_at.is_some_and(|p| rate <= p);
        let received = if lossless {
            sent
        } else if small {
            sent - sent / 500
        } else {
            sent - sent / 20
        };
        let t = trial(
            rate,
            sent,
            received,
            dur,
            latency(&samples(8_000 + i * 1_000, 2000)),
            Some(lossless),
        );
        if lossless && ndr.is_none_or(|(r, _)| rate > r) {
            ndr = Some((rate, i as usize));
        }
        if (lossless || small) && pdr.is_none_or(|(r, _)| rate > r) {
            pdr = Some((rate, i as usize));
        }
        trials.push(t);
        rate /= 1.6;
    }
    RunResults {
        schema: SCHEMA_VERSION,
        meta: meta(),
        trials,
        search: Some(SearchResult {
            ndr_pps: ndr.map(|x| x.0),
            ndr_trial: ndr.map(|x| x.1),
            pdr_pps: pdr.map(|x| x.0),
            pdr_trial: pdr.map(|x| x.1),
            pdr_loss_ratio: 0.005,
            min_pps: rate * 1.6,
            max_pps: max,
            resolution: 0.01,
            confirm_s: 0.0,
            ndr_search_pps: ndr.map(|x| x.0),
            pdr_search_pps: pdr.map(|x| x.0),
            latency: vec![],
        }),
        switches: switches(),
        links: links(16),
        limit: None,
        up_policy: None,
    }
}

/// Well-formedness of the XML a `plotters` SVG is: one root element, every tag closed in
/// order, attributes quoted, no stray `<` or `&` in text. Returns the element names
/// opened, in order.
pub fn check_xml(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut roots = 0;
    let entity = |rest: &str| {
        ["amp;", "lt;", "gt;", "quot;", "apos;", "#"]
            .iter()
            .any(|e| rest.starts_with(e))
    };
    while i < b.len() {
        if b[i] == b'<' {
            if s[i..].starts_with("<?") {
                let end = s[i..].find("?>").expect("unterminated declaration");
                assert!(names.is_empty(), "declaration after the root");
                i += end + 2;
                continue;
            }
            if s[i..].starts_with("<!--") {
                i += s[i..].find("-->").expect("unterminated comment") + 3;
                continue;
            }
            let closing = b.get(i + 1) == Some(&b'/');
            let mut j = i + 1 + usize::from(closing);
            let start = j;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b':') {
                j += 1;
            }
            let name = s[start..j].to_string();
            assert!(!name.is_empty(), "empty tag name at byte {i}");
            // attributes
            let mut self_closing = false;
            loop {
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                assert!(j < b.len(), "unterminated tag <{name}");
                if b[j] == b'>' {
                    j += 1;
                    break;
                }
                if b[j] == b'/' {
                    assert_eq!(b.get(j + 1), Some(&b'>'), "bad self-closing <{name}");
                    assert!(!closing);
                    self_closing = true;
                    j += 2;
                    break;
                }
                assert!(!closing, "attributes in a closing tag </{name}");
                let an = j;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b"-:_".contains(&b[j])) {
                    j += 1;
                }
                assert!(j > an, "bad attribute in <{name} at byte {j}");
                assert_eq!(b[j], b'=', "attribute without value in <{name}");
                let q = b[j + 1];
                assert!(q == b'"' || q == b'\'', "unquoted attribute in <{name}");
                let end = s[j + 2..].find(q as char).expect("unterminated attribute") + j + 2;
                assert!(
                    !s[j + 2..end].contains('<'),
                    "`<` in an attribute of <{name}"
                );
                j = end + 1;
            }
            if closing {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.as_str()),
                    "mismatched </{name}>"
                );
            } else {
                if stack.is_empty() {
                    roots += 1;
                }
                names.push(name.clone());
                if !self_closing {
                    stack.push(name);
                }
            }
            i = j;
        } else {
            if b[i] == b'&' {
                assert!(entity(&s[i + 1..]), "bare & at byte {i}");
            } else if stack.is_empty() {
                assert!(
                    b[i].is_ascii_whitespace(),
                    "text outside the root at byte {i}"
                );
            }
            i += 1;
        }
    }
    assert!(stack.is_empty(), "unclosed elements {stack:?}");
    assert_eq!(roots, 1, "one root element");
    assert_eq!(names.first().map(String::as_str), Some("svg"));
    names
}

/// The `stroke` of every `<polyline>`.
pub fn polyline_strokes(svg: &str) -> Vec<String> {
    attr_of(svg, "<polyline", "stroke")
}

pub fn attr_of(svg: &str, tag: &str, attr: &str) -> Vec<String> {
    svg.match_indices(tag)
        .map(|(i, _)| {
            let el = &svg[i..i + svg[i..].find('>').unwrap()];
            let key = format!(" {attr}=\"");
            let a = el.find(&key).map(|k| k + key.len());
            a.map(|a| el[a..a + el[a..].find('"').unwrap()].to_string())
                .unwrap_or_default()
        })
        .collect()
}

pub fn count(v: &[String], colour: &str) -> usize {
    v.iter().filter(|s| s.as_str() == colour).count()
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The µs rendering, computed independently of the library (round half up).
pub fn us(ns: u64) -> String {
    let h = (ns as u128 * 2 + 10) / 20;
    format!("{}.{:02}", h / 100, h % 100)
}

/// Write, then check what every report must satisfy; returns the written files.
pub fn write_and_check(r: &RunResults, dir: &TempDir) -> report::run::Written {
    let w = report::run::write(r, &dir.0).expect("write report");
    for p in [&w.json, &w.markdown, &w.html] {
        assert!(p.is_file(), "{} missing", p.display());
    }
    // private: the directory it created (0700) and every file (0600); they name paths of
    // the machine
    let mode = |p: &std::path::Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
            & 0o777
    };
    assert_eq!(mode(&w.dir), 0o700, "{}", w.dir.display());
    for p in [&w.json, &w.markdown, &w.html]
        .into_iter()
        .chain(&w.plots)
        .chain(&w.hlog)
    {
        assert_eq!(mode(p), 0o600, "{}", p.display());
    }
    // JSON round trip.
    let back: RunResults = serde_json::from_str(&read(&w.json)).expect("parse results.json");
    // (f64 fields round-trip exactly only with serde_json's `float_roundtrip`).
    assert!(back == *r, "results.json does not round trip");
    // Every SVG well-formed; the Markdown links it, the HTML inlines it.
    let md = read(&w.markdown);
    let html = read(&w.html);
    for p in &w.plots {
        let svg = read(p);
        check_xml(&svg);
        let name = p.file_name().unwrap().to_str().unwrap();
        assert!(
            md.contains(&format!("]({name})")),
            "report.md does not link {name}"
        );
    }
    assert_eq!(
        html.matches("<svg ").count(),
        w.plots.len(),
        "HTML inlines every plot"
    );
    assert!(!html.contains("<?xml"));
    assert!(
        !html.contains(" src=") && !html.contains("href="),
        "HTML must be self-contained"
    );
    // Trial table: every trial's counts are in the Markdown.
    for t in &r.trials {
        for n in [t.sent, t.received, t.reordered, t.duplicates] {
            assert!(
                md.contains(&format!("| {n} |")),
                "count {n} not in report.md"
            );
        }
        if t.latency.count > 0 {
            for ns in [
                t.latency.min_ns,
                t.latency.p50_ns,
                t.latency.p90_ns,
                t.latency.p99_ns,
                t.latency.p999_ns,
                t.latency.max_ns,
            ] {
                assert!(
                    md.contains(&format!("| {} |", us(ns))),
                    "latency {ns} ns not in report.md as {} µs",
                    us(ns)
                );
            }
        }
        assert!(
            md.contains(&format!("| {:.3} |", t.loss_ratio * 100.0)),
            "loss % of a trial"
        );
    }
    // Switch table: conservation balance and drop reasons.
    for s in &r.switches {
        let drops: u64 = s.drops.values().sum();
        let bal = s.rx as i128 - s.tx as i128 - drops as i128;
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", s.name)))
            .expect("switch row");
        assert!(
            row.contains(&format!(
                "| {} | {} | {drops} | {bal} | {} |",
                s.rx,
                s.tx,
                if s.conserved { "yes" } else { "NO" }
            )),
            "{row}"
        );
        for (k, v) in &s.drops {
            assert!(
                row.contains(&format!("{} {v}", k.replace('_', "\\_"))),
                "{row}"
            );
        }
        // which backend each port used, and before it the kernel's drops at its RX rings
        let want = if s.backends.is_empty() {
            "—".to_string()
        } else {
            canopy_testbed::report::results::backend_summary(&s.backends)
        };
        assert!(row.ends_with(&format!("| {want} |")), "{row}");
        let kernel = match s.backend_drops.get("kernel_drops") {
            Some(n) => format!("kernel tp\\_drops {n}"),
            None => "—".to_string(),
        };
        assert!(row.ends_with(&format!("| {kernel} | {want} |")), "{row}");
    }
    // Summary fits one screen.
    let sum = report::run::summary(r, Some(&w));
    let lines: Vec<&str> = sum.lines().collect();
    assert!(
        lines.len() <= SUMMARY_LINES,
        "summary has {} lines:\n{sum}",
        lines.len()
    );
    for l in &lines {
        assert!(
            l.chars().count() <= SUMMARY_COLS,
            "summary line too wide: {l}"
        );
    }
    let fabric: String = r.meta.fabric.chars().take(40).collect();
    assert!(sum.contains(&fabric), "{sum}");
    // a loss, or drops the kernel made at the switches' RX rings: the summary names those
    // beside the switch drops
    let kernel: u64 = r
        .switches
        .iter()
        .filter_map(|s| s.backend_drops.get("kernel_drops"))
        .sum();
    if kernel > 0 || (r.trials.iter().any(|t| t.lost > 0) && r.meta.target == "canopy") {
        assert!(
            sum.contains(&format!("outside the engine: kernel tp_drops {kernel}")),
            "{sum}"
        );
    }
    assert!(sum.contains(w.markdown.to_str().unwrap()), "{sum}");
    w
}

pub fn svg_of(w: &report::run::Written, name: &str) -> Option<String> {
    w.plots.iter().find(|p| p.ends_with(name)).map(|p| read(p))
}
