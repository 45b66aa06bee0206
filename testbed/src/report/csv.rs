//! A run's results as CSV tables (`docs/reports.md`, "CSV tables"): what
//! [`super::run::write`](fn@super::run::write) puts next to `results.json`, for pandas, R
//! or a spreadsheet.
//!
//! | file | one row per | from |
//! |---|---|---|
//! | [`TRIALS`] | trial record: `trials[]`, then `search.latency[].trial`, `up_policy.calibration`, `up_policy.costs[].trial` | [`Trial`] |
//! | [`SWITCHES`] | switch, its counters over the whole run | [`SwitchDelta`] |
//! | [`SWITCH_DROPS`] | switch, counter and drop reason (long format) | [`SwitchDelta::drops`], [`SwitchDelta::backend_drops`] |
//! | [`LINKS`] | fabric link | [`LinkLoad`] |
//!
//! Every file has a header row, even with no rows under it, and follows RFC 4180: CRLF
//! line ends, a field quoted (`"`, doubled inside) when it holds a comma, a quote or a
//! line break. Each row is a typed struct serialized by the `csv` crate, so a column's
//! name is its field's. Cells hold numbers as they are (integers in full, floats in the
//! shortest form that reads back to the same `f64`; `NaN`, `inf`), never units: units
//! are in the column names (`_pps`, `_s`, `_ns`, `_us`, `_ratio`; a count without a
//! suffix counts frames). An absent value is an empty cell: a `None` in `results.json`,
//! and the latency figures of a trial that received no frame (`latency_count` 0).

use super::results::{LinkLoad, RunResults, SwitchDelta, Trial};
use crate::error::{Result, TestbedError};
use serde::Serialize;

/// Trials, one row per trial record.
pub const TRIALS: &str = "trials.csv";
/// Switches, one row per switch.
pub const SWITCHES: &str = "switches.csv";
/// Drops by reason, one row per switch, counter and reason.
pub const SWITCH_DROPS: &str = "switch_drops.csv";
/// Links, one row per link.
pub const LINKS: &str = "links.csv";
/// The files [`tables`] makes, in its order.
pub const FILES: [&str; 4] = [TRIALS, SWITCHES, SWITCH_DROPS, LINKS];

/// The `source` of a trial row: where in `results.json` the trial is.
pub mod source {
    /// `trials[index]`: the run's own trials (a fixed-rate run's, a search's steps).
    pub const TRIALS: &str = "trials";
    /// `search.latency[index].trial`: latency under a load at a fraction of the NDR.
    pub const SEARCH_LATENCY: &str = "search.latency";
    /// `up_policy.calibration`: the per-packet trial that set the flowlet gap.
    pub const CALIBRATION: &str = "up_policy.calibration";
    /// `up_policy.costs[index].trial`: each up-port policy at one rate.
    pub const POLICY_COSTS: &str = "up_policy.costs";
}

/// The CSV tables of `r`: `(file name, text)` in [`FILES`] order.
pub fn tables(r: &RunResults) -> Result<Vec<(&'static str, String)>> {
    Ok(vec![
        (TRIALS, table(TRIALS, &trial_rows(r))?),
        (SWITCHES, table(SWITCHES, &switch_rows(&r.switches))?),
        (SWITCH_DROPS, table(SWITCH_DROPS, &drop_rows(&r.switches))?),
        (LINKS, table(LINKS, &link_rows(&r.links))?),
    ])
}

/// A row of `trials.csv`.
#[derive(Debug, Default, Serialize)]
struct TrialRow<'a> {
    /// Where the trial is in `results.json` ([`source`]).
    source: &'static str,
    /// Its index there (0 for `up_policy.calibration`).
    index: usize,
    /// `search.latency`: the background load as a fraction of the NDR.
    load_fraction_of_ndr: Option<f64>,
    /// `up_policy.costs`: the policy.
    policy: Option<&'a str>,
    /// `up_policy.costs`: its flowlet gap (0: per-packet).
    policy_gap_us: Option<u64>,
    offered_pps: f64,
    sent_pps: f64,
    received_pps: f64,
    duration_s: f64,
    drained_s: f64,
    sent: u64,
    received: u64,
    lost: u64,
    loss_ratio: f64,
    warmup_sent: u64,
    warmup_received: u64,
    reordered: u64,
    duplicates: u64,
    misdelivered: u64,
    foreign: u64,
    flows: u64,
    reordered_flows: u64,
    worst_flow_reordered_ratio: f64,
    passed: Option<bool>,
    latency_count: u64,
    latency_min_ns: Option<u64>,
    latency_mean_ns: Option<f64>,
    latency_p50_ns: Option<u64>,
    latency_p90_ns: Option<u64>,
    latency_p99_ns: Option<u64>,
    latency_p999_ns: Option<u64>,
    latency_max_ns: Option<u64>,
    probe_offered_pps: Option<f64>,
    probe_sent: Option<u64>,
    probe_received: Option<u64>,
    probe_lost: Option<u64>,
    probe_reordered: Option<u64>,
    probe_latency_count: Option<u64>,
    probe_latency_min_ns: Option<u64>,
    probe_latency_mean_ns: Option<f64>,
    probe_latency_p50_ns: Option<u64>,
    probe_latency_p90_ns: Option<u64>,
    probe_latency_p99_ns: Option<u64>,
    probe_latency_p999_ns: Option<u64>,
    probe_latency_max_ns: Option<u64>,
}

/// The latency figures of a summary (None: it recorded no frame).
struct Figures {
    min: Option<u64>,
    mean: Option<f64>,
    p50: Option<u64>,
    p90: Option<u64>,
    p99: Option<u64>,
    p999: Option<u64>,
    max: Option<u64>,
}

impl Figures {
    fn of(l: &super::results::Latency) -> Figures {
        let some = l.count > 0;
        let v = |x: u64| some.then_some(x);
        Figures {
            min: v(l.min_ns),
            mean: some.then_some(l.mean_ns),
            p50: v(l.p50_ns),
            p90: v(l.p90_ns),
            p99: v(l.p99_ns),
            p999: v(l.p999_ns),
            max: v(l.max_ns),
        }
    }
}

impl<'a> TrialRow<'a> {
    fn new(source: &'static str, index: usize, t: &'a Trial) -> TrialRow<'a> {
        let l = Figures::of(&t.latency);
        let p = t.probe.as_ref();
        let pl = p.map(|p| Figures::of(&p.latency));
        let pf = |f: fn(&Figures) -> Option<u64>| pl.as_ref().and_then(f);
        TrialRow {
            source,
            index,
            load_fraction_of_ndr: None,
            policy: None,
            policy_gap_us: None,
            offered_pps: t.offered_pps,
            sent_pps: t.sent_pps,
            received_pps: t.received_pps,
            duration_s: t.duration_s,
            drained_s: t.drained_s,
            sent: t.sent,
            received: t.received,
            lost: t.lost,
            loss_ratio: t.loss_ratio,
            warmup_sent: t.warmup_sent,
            warmup_received: t.warmup_received,
            reordered: t.reordered,
            duplicates: t.duplicates,
            misdelivered: t.misdelivered,
            foreign: t.foreign,
            flows: t.flow_reorder.flows,
            reordered_flows: t.flow_reorder.reordered_flows,
            worst_flow_reordered_ratio: t.flow_reorder.worst_ratio,
            passed: t.passed,
            latency_count: t.latency.count,
            latency_min_ns: l.min,
            latency_mean_ns: l.mean,
            latency_p50_ns: l.p50,
            latency_p90_ns: l.p90,
            latency_p99_ns: l.p99,
            latency_p999_ns: l.p999,
            latency_max_ns: l.max,
            probe_offered_pps: p.map(|p| p.offered_pps),
            probe_sent: p.map(|p| p.sent),
            probe_received: p.map(|p| p.received),
            probe_lost: p.map(|p| p.lost),
            probe_reordered: p.map(|p| p.reordered),
            probe_latency_count: p.map(|p| p.latency.count),
            probe_latency_min_ns: pf(|f| f.min),
            probe_latency_mean_ns: pl.as_ref().and_then(|f| f.mean),
            probe_latency_p50_ns: pf(|f| f.p50),
            probe_latency_p90_ns: pf(|f| f.p90),
            probe_latency_p99_ns: pf(|f| f.p99),
            probe_latency_p999_ns: pf(|f| f.p999),
            probe_latency_max_ns: pf(|f| f.max),
        }
    }
}

/// Every trial record of `r`, in [`FILES`]' documented order.
fn trial_rows(r: &RunResults) -> Vec<TrialRow<'_>> {
    let mut rows: Vec<TrialRow> = r
        .trials
        .iter()
        .enumerate()
        .map(|(i, t)| TrialRow::new(source::TRIALS, i, t))
        .collect();
    if let Some(s) = &r.search {
        rows.extend(s.latency.iter().enumerate().map(|(i, l)| TrialRow {
            load_fraction_of_ndr: Some(l.fraction),
            ..TrialRow::new(source::SEARCH_LATENCY, i, &l.trial)
        }));
    }
    if let Some(p) = &r.up_policy {
        if let Some(t) = &p.calibration {
            rows.push(TrialRow::new(source::CALIBRATION, 0, t));
        }
        rows.extend(p.costs.iter().enumerate().map(|(i, c)| TrialRow {
            policy: Some(&c.policy),
            policy_gap_us: Some(c.gap_us),
            ..TrialRow::new(source::POLICY_COSTS, i, &c.trial)
        }));
    }
    rows
}

/// A row of `switches.csv`.
#[derive(Debug, Default, Serialize)]
struct SwitchRow<'a> {
    switch: &'a str,
    rx: u64,
    tx: u64,
    /// All drops by reason together (`rx = tx + drops` when conserved).
    drops: u64,
    /// All drops outside the engine together.
    backend_drops: u64,
    conserved: bool,
    /// Why conservation was not checked (empty: it was).
    unchecked: Option<&'a str>,
    /// Port backends in port order, space-separated (empty: unknown).
    backends: String,
}

fn switch_rows(switches: &[SwitchDelta]) -> Vec<SwitchRow<'_>> {
    switches
        .iter()
        .map(|s| SwitchRow {
            switch: &s.name,
            rx: s.rx,
            tx: s.tx,
            drops: total(&s.drops),
            backend_drops: total(&s.backend_drops),
            conserved: s.conserved,
            unchecked: s.unchecked.as_deref(),
            backends: s.backends.join(" "),
        })
        .collect()
}

/// The sum of a map of drops (saturating: a hand-made file may hold anything).
fn total(m: &std::collections::BTreeMap<String, u64>) -> u64 {
    m.values().fold(0, |a, &b| a.saturating_add(b))
}

/// `switch_drops.csv`'s `counter` of a drop inside the engine (`switches[].drops`).
pub const COUNTER_DROPS: &str = "drops";
/// `switch_drops.csv`'s `counter` of a drop outside it (`switches[].backend_drops`).
pub const COUNTER_BACKEND_DROPS: &str = "backend_drops";

/// A row of `switch_drops.csv`.
#[derive(Debug, Default, Serialize)]
struct DropRow<'a> {
    switch: &'a str,
    /// [`COUNTER_DROPS`] or [`COUNTER_BACKEND_DROPS`].
    counter: &'static str,
    reason: &'a str,
    frames: u64,
}

/// Each switch's drops, by counter then reason (by name), switches in results order.
fn drop_rows(switches: &[SwitchDelta]) -> Vec<DropRow<'_>> {
    let mut rows = Vec::new();
    for s in switches {
        for (counter, map) in [
            (COUNTER_DROPS, &s.drops),
            (COUNTER_BACKEND_DROPS, &s.backend_drops),
        ] {
            rows.extend(map.iter().map(|(reason, &frames)| DropRow {
                switch: &s.name,
                counter,
                reason,
                frames,
            }));
        }
    }
    rows
}

/// A row of `links.csv`.
#[derive(Debug, Default, Serialize)]
struct LinkRow<'a> {
    tier: &'a str,
    a: &'a str,
    b: &'a str,
    frames_ab: u64,
    frames_ba: u64,
    relative: f64,
}

fn link_rows(links: &[LinkLoad]) -> Vec<LinkRow<'_>> {
    links
        .iter()
        .map(|l| LinkRow {
            tier: &l.tier,
            a: &l.a,
            b: &l.b,
            frames_ab: l.frames_ab,
            frames_ba: l.frames_ba,
            relative: l.relative,
        })
        .collect()
}

/// `rows` as RFC 4180 CSV with a header row, also when there is no row.
pub(crate) fn table<R: Serialize + Default>(file: &str, rows: &[R]) -> Result<String> {
    let fail = |detail: String| TestbedError::Csv {
        file: file.to_string(),
        detail,
    };
    let mut w = writer(false);
    w.write_record(&header::<R>().map_err(fail)?)
        .map_err(|e| fail(e.to_string()))?;
    for row in rows {
        w.serialize(row).map_err(|e| fail(e.to_string()))?;
    }
    let bytes = w.into_inner().map_err(|e| fail(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| fail(e.to_string()))
}

fn writer(headers: bool) -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .has_headers(headers)
        .terminator(::csv::Terminator::CRLF)
        .from_writer(Vec::new())
}

/// The column names of row type `R`, as the `csv` crate derives them from its fields
/// (it writes them only before a first row: one is made and its header kept).
fn header<R: Serialize + Default>() -> std::result::Result<::csv::StringRecord, String> {
    let mut w = writer(true);
    w.serialize(R::default()).map_err(|e| e.to_string())?;
    let bytes = w.into_inner().map_err(|e| e.to_string())?;
    ::csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes.as_slice())
        .records()
        .next()
        .ok_or_else(|| "no header row".to_string())?
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::results::{
        FlowReorder, Latency, LoadLatency, PolicyCost, ProbeStream, SearchResult, UpPolicyResult,
    };
    use crate::report::results::{GapSource, LinkLoad};
    use std::collections::BTreeMap;

    const TRIAL_COLUMNS: [&str; 45] = [
        "source",
        "index",
        "load_fraction_of_ndr",
        "policy",
        "policy_gap_us",
        "offered_pps",
        "sent_pps",
        "received_pps",
        "duration_s",
        "drained_s",
        "sent",
        "received",
        "lost",
        "loss_ratio",
        "warmup_sent",
        "warmup_received",
        "reordered",
        "duplicates",
        "misdelivered",
        "foreign",
        "flows",
        "reordered_flows",
        "worst_flow_reordered_ratio",
        "passed",
        "latency_count",
        "latency_min_ns",
        "latency_mean_ns",
        "latency_p50_ns",
        "latency_p90_ns",
        "latency_p99_ns",
        "latency_p999_ns",
        "latency_max_ns",
        "probe_offered_pps",
        "probe_sent",
        "probe_received",
        "probe_lost",
        "probe_reordered",
        "probe_latency_count",
        "probe_latency_min_ns",
        "probe_latency_mean_ns",
        "probe_latency_p50_ns",
        "probe_latency_p90_ns",
        "probe_latency_p99_ns",
        "probe_latency_p999_ns",
        "probe_latency_max_ns",
    ];
    const SWITCH_COLUMNS: [&str; 8] = [
        "switch",
        "rx",
        "tx",
        "drops",
        "backend_drops",
        "conserved",
        "unchecked",
        "backends",
    ];
    const DROP_COLUMNS: [&str; 4] = ["switch", "counter", "reason", "frames"];
    const LINK_COLUMNS: [&str; 6] = ["tier", "a", "b", "frames_ab", "frames_ba", "relative"];

    /// A switch name that needs quoting: a comma, a quote, a space.
    const ODD_NAME: &str = "leaf,0 \"east\"";

    fn latency(count: u64, base: u64) -> Latency {
        Latency {
            count,
            min_ns: base,
            mean_ns: base as f64 * 1.5 + 0.1,
            p50_ns: base + 1,
            p90_ns: base + 2,
            p99_ns: base + 3,
            p999_ns: base + 4,
            max_ns: u64::MAX - base,
            cdf: vec![(base, 0.5), (u64::MAX - base, 1.0)],
            hdr: String::new(),
        }
    }

    fn trial(offered: f64, sent: u64, received: u64) -> Trial {
        Trial {
            offered_pps: offered,
            sent_pps: offered * (1.0 - 1e-7),
            received_pps: 0.1 + 0.2,
            duration_s: 1.0 / 3.0,
            sent,
            warmup_sent: 11,
            warmup_received: 10,
            received,
            lost: sent - received,
            loss_ratio: (sent - received) as f64 / sent as f64,
            reordered: 7,
            flow_reorder: FlowReorder {
                flows: 240,
                reordered_flows: 5,
                worst_ratio: 2.0f64.sqrt() / 100.0,
            },
            duplicates: 3,
            misdelivered: 1,
            foreign: 2,
            latency: latency(received, 9_876),
            passed: Some(received == sent),
            drained_s: 0.25,
            timeline: None,
            probe: None,
        }
    }

    fn results() -> RunResults {
        let mut quiet = trial(5e6, 1_000, 0);
        quiet.latency = Latency::default();
        quiet.passed = None;
        let mut probed = trial(123_456_789.123, 10_000_000_000, 9_999_999_999);
        probed.probe = Some(ProbeStream {
            offered_pps: 1000.0,
            sent: 5_000,
            received: 4_999,
            lost: 1,
            reordered: 0,
            latency: latency(4_999, 20_001),
            hops: None,
        });
        let switch = |name: &str, drops: &[(&str, u64)], backend: &[(&str, u64)]| {
            let map = |v: &[(&str, u64)]| -> BTreeMap<String, u64> {
                v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
            };
            SwitchDelta {
                name: name.into(),
                rx: 1_000_000 + drops.iter().map(|d| d.1).sum::<u64>(),
                tx: 1_000_000,
                drops: map(drops),
                conserved: true,
                unchecked: None,
                backends: vec!["afpacket".into(), "afxdp/skb".into()],
                backend_drops: map(backend),
            }
        };
        let mut down = switch("spine-1", &[], &[]);
        down.conserved = false;
        down.unchecked = Some("did not answer after the run, \"timeout\"".into());
        down.backends.clear();
        RunResults {
            trials: vec![trial(250_000.0, 2_500_000, 2_499_123), quiet],
            search: Some(SearchResult {
                latency: vec![
                    LoadLatency {
                        fraction: 0.1,
                        trial: probed.clone(),
                    },
                    LoadLatency {
                        fraction: 0.9,
                        trial: probed,
                    },
                ],
                ..Default::default()
            }),
            up_policy: Some(UpPolicyResult {
                policy: "flowlets".into(),
                gap_us: 50,
                source: GapSource::Measured,
                calibration: Some(trial(100_000.0, 200_000, 200_000)),
                spread_ns: Some(40_000),
                costs: vec![
                    PolicyCost {
                        policy: "flowlets".into(),
                        gap_us: 50,
                        trial: trial(200_000.0, 400_000, 399_999),
                    },
                    PolicyCost {
                        policy: "per-packet".into(),
                        gap_us: 0,
                        trial: trial(200_000.0, 400_000, 399_000),
                    },
                ],
                not_set: vec![],
            }),
            switches: vec![
                switch(
                    ODD_NAME,
                    &[("ring_full", 90), ("no_route", 2)],
                    &[("kernel_drops", 430)],
                ),
                down,
                switch("edge-p0-e0", &[("ttl_expired", u64::MAX / 2)], &[]),
            ],
            links: vec![
                LinkLoad {
                    a: "edge-p0-e0:2".into(),
                    b: "agg-p0-a0:0".into(),
                    tier: "edge-agg".into(),
                    frames_ab: 1_000,
                    frames_ba: 0,
                    relative: 1.0 / 7.0,
                },
                LinkLoad {
                    a: format!("{ODD_NAME}:1"),
                    b: "h0:0".into(),
                    tier: "host-edge".into(),
                    frames_ab: 7,
                    frames_ba: 7_000,
                    relative: 1.0,
                },
            ],
            ..Default::default()
        }
    }

    /// A table read back with the `csv` crate: its header and rows.
    struct Read {
        head: Vec<String>,
        rows: Vec<::csv::StringRecord>,
    }

    impl Read {
        fn new(text: &str) -> Read {
            let mut r = ::csv::Reader::from_reader(text.as_bytes());
            let head = r.headers().unwrap().iter().map(String::from).collect();
            let rows = r.records().map(|x| x.unwrap()).collect();
            Read { head, rows }
        }

        fn cell<'a>(&self, row: &'a ::csv::StringRecord, col: &str) -> &'a str {
            let i = self.head.iter().position(|h| h == col).unwrap();
            &row[i]
        }

        fn f64(&self, row: &::csv::StringRecord, col: &str) -> f64 {
            self.cell(row, col).parse().unwrap()
        }

        fn u64(&self, row: &::csv::StringRecord, col: &str) -> u64 {
            self.cell(row, col).parse().unwrap()
        }

        /// An empty cell as None.
        fn opt<T: std::str::FromStr>(&self, row: &::csv::StringRecord, col: &str) -> Option<T>
        where
            T::Err: std::fmt::Debug,
        {
            let c = self.cell(row, col);
            (!c.is_empty()).then(|| c.parse().unwrap())
        }
    }

    fn read_all(r: &RunResults) -> BTreeMap<&'static str, (String, Read)> {
        let t = tables(r).unwrap();
        assert_eq!(t.iter().map(|x| x.0).collect::<Vec<_>>(), FILES);
        t.into_iter()
            .map(|(n, text)| {
                let read = Read::new(&text);
                (n, (text, read))
            })
            .collect()
    }

    /// Every trial record of `r` with its source and index, in the file's order.
    fn every_trial(r: &RunResults) -> Vec<(&str, usize, &Trial)> {
        let mut v: Vec<(&str, usize, &Trial)> = r
            .trials
            .iter()
            .enumerate()
            .map(|(i, t)| ("trials", i, t))
            .collect();
        let s = r.search.as_ref().unwrap();
        v.extend(
            s.latency
                .iter()
                .enumerate()
                .map(|(i, l)| ("search.latency", i, &l.trial)),
        );
        let p = r.up_policy.as_ref().unwrap();
        v.push(("up_policy.calibration", 0, p.calibration.as_ref().unwrap()));
        v.extend(
            p.costs
                .iter()
                .enumerate()
                .map(|(i, c)| ("up_policy.costs", i, &c.trial)),
        );
        v
    }

    #[test]
    fn headers_and_row_counts_match_the_results() {
        let r = results();
        let t = read_all(&r);
        assert_eq!(t[TRIALS].1.head, TRIAL_COLUMNS);
        assert_eq!(t[SWITCHES].1.head, SWITCH_COLUMNS);
        assert_eq!(t[SWITCH_DROPS].1.head, DROP_COLUMNS);
        assert_eq!(t[LINKS].1.head, LINK_COLUMNS);
        // 2 trials, 2 latency trials, the calibration, 2 policy costs
        assert_eq!(t[TRIALS].1.rows.len(), 7);
        assert_eq!(t[TRIALS].1.rows.len(), every_trial(&r).len());
        assert_eq!(t[SWITCHES].1.rows.len(), r.switches.len());
        let reasons: usize = r
            .switches
            .iter()
            .map(|s| s.drops.len() + s.backend_drops.len())
            .sum();
        assert_eq!(reasons, 4);
        assert_eq!(t[SWITCH_DROPS].1.rows.len(), reasons);
        assert_eq!(t[LINKS].1.rows.len(), r.links.len());
        // RFC 4180 line ends; a header line and one line per row (no field holds one)
        for (name, (text, read)) in &t {
            assert!(text.ends_with("\r\n"), "{name}");
            assert_eq!(
                text.matches("\r\n").count(),
                read.rows.len() + 1,
                "{name}: one CRLF per record"
            );
            assert_eq!(text.matches('\n').count(), read.rows.len() + 1, "{name}");
        }
    }

    #[test]
    fn empty_results_give_headers_alone() {
        let t = read_all(&RunResults::default());
        for (name, cols) in [
            (TRIALS, &TRIAL_COLUMNS[..]),
            (SWITCHES, &SWITCH_COLUMNS[..]),
            (SWITCH_DROPS, &DROP_COLUMNS[..]),
            (LINKS, &LINK_COLUMNS[..]),
        ] {
            let (text, read) = &t[name];
            assert_eq!(read.head, cols, "{name}");
            assert!(read.rows.is_empty(), "{name}");
            assert_eq!(*text, format!("{}\r\n", cols.join(",")), "{name}");
        }
    }

    #[test]
    fn trial_numbers_parse_back_equal() {
        let r = results();
        let t = read_all(&r);
        let read = &t[TRIALS].1;
        for ((source, index, tr), row) in every_trial(&r).into_iter().zip(&read.rows) {
            let at = format!("{source}[{index}]");
            assert_eq!(read.cell(row, "source"), source, "{at}");
            assert_eq!(read.u64(row, "index"), index as u64, "{at}");
            for (col, v) in [
                ("offered_pps", tr.offered_pps),
                ("sent_pps", tr.sent_pps),
                ("received_pps", tr.received_pps),
                ("duration_s", tr.duration_s),
                ("drained_s", tr.drained_s),
                ("loss_ratio", tr.loss_ratio),
                ("worst_flow_reordered_ratio", tr.flow_reorder.worst_ratio),
            ] {
                assert_eq!(read.f64(row, col).to_bits(), v.to_bits(), "{at} {col}");
            }
            for (col, v) in [
                ("sent", tr.sent),
                ("received", tr.received),
                ("lost", tr.lost),
                ("warmup_sent", tr.warmup_sent),
                ("warmup_received", tr.warmup_received),
                ("reordered", tr.reordered),
                ("duplicates", tr.duplicates),
                ("misdelivered", tr.misdelivered),
                ("foreign", tr.foreign),
                ("flows", tr.flow_reorder.flows),
                ("reordered_flows", tr.flow_reorder.reordered_flows),
                ("latency_count", tr.latency.count),
            ] {
                assert_eq!(read.u64(row, col), v, "{at} {col}");
            }
            assert_eq!(read.opt::<bool>(row, "passed"), tr.passed, "{at}");
            check_latency(read, row, "latency_", &tr.latency, &at);
            match &tr.probe {
                Some(p) => {
                    assert_eq!(read.f64(row, "probe_offered_pps"), p.offered_pps);
                    for (col, v) in [
                        ("probe_sent", p.sent),
                        ("probe_received", p.received),
                        ("probe_lost", p.lost),
                        ("probe_reordered", p.reordered),
                        ("probe_latency_count", p.latency.count),
                    ] {
                        assert_eq!(read.u64(row, col), v, "{at} {col}");
                    }
                    check_latency(read, row, "probe_latency_", &p.latency, &at);
                }
                None => {
                    for col in TRIAL_COLUMNS.iter().filter(|c| c.starts_with("probe_")) {
                        assert_eq!(read.cell(row, col), "", "{at} {col}");
                    }
                }
            }
            let fraction = read.opt::<f64>(row, "load_fraction_of_ndr");
            let policy = read.opt::<String>(row, "policy");
            let gap = read.opt::<u64>(row, "policy_gap_us");
            match (source, index) {
                ("search.latency", i) => {
                    let l = &r.search.as_ref().unwrap().latency[i];
                    assert_eq!(fraction, Some(l.fraction), "{at}");
                    assert_eq!((policy, gap), (None, None), "{at}");
                }
                ("up_policy.costs", i) => {
                    let c = &r.up_policy.as_ref().unwrap().costs[i];
                    assert_eq!(policy.as_deref(), Some(c.policy.as_str()), "{at}");
                    assert_eq!(gap, Some(c.gap_us), "{at}");
                    assert_eq!(fraction, None, "{at}");
                }
                _ => assert_eq!((fraction, policy, gap), (None, None, None), "{at}"),
            }
        }
    }

    /// The seven latency figures under `prefix`: equal to `l`'s, empty without frames.
    fn check_latency(read: &Read, row: &::csv::StringRecord, prefix: &str, l: &Latency, at: &str) {
        let col = |c: &str| format!("{prefix}{c}");
        if l.count == 0 {
            for c in [
                "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
            ] {
                assert_eq!(read.cell(row, &col(c)), "", "{at} {prefix}{c}");
            }
            return;
        }
        assert_eq!(
            read.f64(row, &col("mean_ns")).to_bits(),
            l.mean_ns.to_bits()
        );
        for (c, v) in [
            ("min_ns", l.min_ns),
            ("p50_ns", l.p50_ns),
            ("p90_ns", l.p90_ns),
            ("p99_ns", l.p99_ns),
            ("p999_ns", l.p999_ns),
            ("max_ns", l.max_ns),
        ] {
            assert_eq!(read.u64(row, &col(c)), v, "{at} {prefix}{c}");
        }
    }

    #[test]
    fn switches_drops_and_links_parse_back_equal() {
        let r = results();
        let t = read_all(&r);
        let read = &t[SWITCHES].1;
        for (s, row) in r.switches.iter().zip(&read.rows) {
            assert_eq!(read.cell(row, "switch"), s.name);
            assert_eq!(read.u64(row, "rx"), s.rx);
            assert_eq!(read.u64(row, "tx"), s.tx);
            assert_eq!(read.u64(row, "drops"), s.drops.values().sum::<u64>());
            assert_eq!(
                read.u64(row, "backend_drops"),
                s.backend_drops.values().sum::<u64>()
            );
            assert_eq!(read.cell(row, "conserved"), s.conserved.to_string());
            assert_eq!(read.opt::<String>(row, "unchecked"), s.unchecked);
            let backends: Vec<&str> = read.cell(row, "backends").split_whitespace().collect();
            assert_eq!(backends, s.backends);
        }
        // the long table: every reason of every switch, and nothing else
        let read = &t[SWITCH_DROPS].1;
        let mut back: BTreeMap<(String, String, String), u64> = BTreeMap::new();
        for row in &read.rows {
            let key = (
                read.cell(row, "switch").to_string(),
                read.cell(row, "counter").to_string(),
                read.cell(row, "reason").to_string(),
            );
            assert!(back.insert(key, read.u64(row, "frames")).is_none());
        }
        let mut want = BTreeMap::new();
        for s in &r.switches {
            for (counter, m) in [("drops", &s.drops), ("backend_drops", &s.backend_drops)] {
                for (reason, n) in m {
                    want.insert((s.name.clone(), counter.to_string(), reason.clone()), *n);
                }
            }
        }
        assert_eq!(back, want);
        let read = &t[LINKS].1;
        for (l, row) in r.links.iter().zip(&read.rows) {
            assert_eq!(read.cell(row, "tier"), l.tier);
            assert_eq!(read.cell(row, "a"), l.a);
            assert_eq!(read.cell(row, "b"), l.b);
            assert_eq!(read.u64(row, "frames_ab"), l.frames_ab);
            assert_eq!(read.u64(row, "frames_ba"), l.frames_ba);
            assert_eq!(read.f64(row, "relative").to_bits(), l.relative.to_bits());
        }
    }

    #[test]
    fn a_name_with_a_comma_and_quotes_is_quoted() {
        let r = results();
        let t = read_all(&r);
        // RFC 4180: the field in quotes, its quotes doubled
        let quoted = "\"leaf,0 \"\"east\"\"\"";
        for file in [SWITCHES, SWITCH_DROPS] {
            let (text, read) = &t[file];
            assert!(
                text.lines()
                    .nth(1)
                    .unwrap()
                    .starts_with(&format!("{quoted},")),
                "{file}: {text}"
            );
            assert_eq!(read.cell(&read.rows[0], "switch"), ODD_NAME, "{file}");
            // as many fields as columns, the comma inside the name notwithstanding
            assert!(read.rows.iter().all(|x| x.len() == read.head.len()));
        }
        let (text, read) = &t[LINKS];
        assert!(text.contains(",\"leaf,0 \"\"east\"\":1\","));
        assert_eq!(read.cell(&read.rows[1], "a"), format!("{ODD_NAME}:1"));
        // a field that needs no quotes has none
        assert!(text.contains("\r\nedge-agg,edge-p0-e0:2,agg-p0-a0:0,1000,0,"));
    }

    #[test]
    fn floats_keep_every_bit_and_non_finite_values_are_spelled_out() {
        let mut r = RunResults::default();
        let values = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.1 + 0.2,
            1e-300,
            1e22,
            f64::MAX,
            -0.0,
        ];
        for v in values {
            r.trials.push(Trial {
                offered_pps: v,
                ..Default::default()
            });
        }
        let t = read_all(&r);
        let read = &t[TRIALS].1;
        let cells: Vec<&str> = read
            .rows
            .iter()
            .map(|x| read.cell(x, "offered_pps"))
            .collect();
        assert_eq!(&cells[..3], ["NaN", "inf", "-inf"]);
        for (v, c) in values.iter().zip(&cells) {
            let back: f64 = c.parse().unwrap();
            assert!(
                back.to_bits() == v.to_bits() || (v.is_nan() && back.is_nan()),
                "{v} came back as {c}"
            );
        }
    }

    #[test]
    fn run_write_puts_the_tables_next_to_results_json() {
        let r = results();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let w = crate::report::run::write(&r, &out).unwrap();
        assert_eq!(w.csv, FILES.map(|f| out.join(f)));
        assert_eq!(w.json, out.join("results.json"));
        let want = tables(&r).unwrap();
        for (p, (name, text)) in w.csv.iter().zip(&want) {
            assert_eq!(std::fs::read_to_string(p).unwrap(), *text, "{name}");
            let mode = std::os::unix::fs::PermissionsExt::mode(
                &std::fs::metadata(p).unwrap().permissions(),
            );
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
        // the other files are where they were
        assert_eq!(w.markdown, out.join("report.md"));
        assert_eq!(w.html, out.join("report.html"));
        assert!(w.plots.iter().all(|p| p.extension().unwrap() == "svg"));
        assert!(crate::report::run::summary(&r, Some(&w)).contains(", CSV tables)"));
    }
}
