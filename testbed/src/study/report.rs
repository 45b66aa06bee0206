//! A study's files: `study.json` (everything), `points.csv` and `tiers.csv` (one row per
//! point, per point and tier), one SVG per plotted metric, and `report.md`.

use super::run::{PointResult, StudyResults};
use super::{kebab, label, lengths, Axis, Metric};
use crate::error::Result;
use crate::report::{csv::table, plots, to_json, write_files};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A row of `points.csv`.
#[derive(Debug, Default, Serialize)]
struct PointRow {
    index: usize,
    topology: String,
    addressing: String,
    pattern: String,
    switching: String,
    flow_control: String,
    injection: String,
    arrivals: String,
    payload_bytes: String,
    buffer: usize,
    load_ratio: f64,
    hosts: usize,
    transmission_ns: f64,
    offered_ratio: f64,
    throughput_ratio: f64,
    goodput_ratio: f64,
    delay_mean_ns: f64,
    delay_p50_ns: f64,
    delay_p99_ns: f64,
    delay_max_ns: f64,
    delay_mean_tx: f64,
    delay_p99_tx: f64,
    network_delay_mean_ns: f64,
    network_delay_mean_tx: f64,
    request_mean_ns: f64,
    request_mean_tx: f64,
    mean_hops: f64,
    made: u64,
    refused: u64,
    measured: u64,
    measured_delivered: u64,
    measured_dropped: u64,
    measured_refused: u64,
    unfinished: u64,
    misdelivered: u64,
    dropped: u64,
    events: u64,
    simulated_us: f64,
    wall_s: f64,
    events_per_s: f64,
}

/// A row of `tiers.csv`.
#[derive(Debug, Default, Serialize)]
struct TierRow {
    index: usize,
    tier: String,
    links: usize,
    mean_ratio: f64,
    max_ratio: f64,
}

fn row(i: usize, r: &PointResult) -> PointRow {
    let (p, o) = (&r.sweep.point, &r.outcome);
    PointRow {
        index: i,
        topology: p.topology.name().to_string(),
        addressing: p.addressing.0.to_string(),
        pattern: p.pattern.to_string(),
        switching: kebab(&p.network.switching),
        flow_control: kebab(&p.network.flow_control),
        injection: kebab(&p.network.injection),
        arrivals: kebab(&p.workload.arrivals),
        payload_bytes: lengths(&p.workload.payload),
        buffer: p.network.buffer,
        load_ratio: p.workload.load,
        hosts: o.hosts,
        transmission_ns: o.transmission_ns,
        offered_ratio: o.offered,
        throughput_ratio: o.throughput,
        goodput_ratio: o.goodput,
        delay_mean_ns: o.delay.mean_ns,
        delay_p50_ns: o.delay.p50_ns,
        delay_p99_ns: o.delay.p99_ns,
        delay_max_ns: o.delay.max_ns,
        delay_mean_tx: o.delay.mean_tx,
        delay_p99_tx: o.delay.p99_tx,
        network_delay_mean_ns: o.network_delay.mean_ns,
        network_delay_mean_tx: o.network_delay.mean_tx,
        request_mean_ns: o.request.mean_ns,
        request_mean_tx: o.request.mean_tx,
        mean_hops: o.mean_hops,
        made: o.counts.made,
        refused: o.counts.refused,
        measured: o.counts.measured,
        measured_delivered: o.counts.measured_delivered,
        measured_dropped: o.counts.measured_dropped,
        measured_refused: o.counts.measured_refused,
        unfinished: o.counts.unfinished,
        misdelivered: o.counts.misdelivered,
        dropped: o.counts.dropped.values().sum(),
        events: o.events,
        simulated_us: o.simulated_us,
        wall_s: o.wall_seconds,
        events_per_s: o.events_per_second,
    }
}

/// The value of `m` at a point.
fn metric(m: Metric, r: &PointResult) -> f64 {
    let o = &r.outcome;
    match m {
        Metric::Delay => o.delay.mean_tx,
        Metric::DelayUs => o.delay.mean_ns / 1e3,
        Metric::P99 => o.delay.p99_tx,
        Metric::NetworkDelay => o.network_delay.mean_tx,
        Metric::Request => o.request.mean_tx,
        Metric::Throughput => o.throughput,
        Metric::Hops => o.mean_hops,
        // one curve per tier (`curves`); this is their mean
        Metric::Utilisation => {
            o.tiers.iter().map(|t| t.mean).sum::<f64>() / o.tiers.len().max(1) as f64
        }
    }
}

/// Whether a point is past saturation: measured messages were refused at a source or
/// still in flight when the run stopped, or the fabric carried less than was offered
/// in the window by more than chance explains (5 %, or three standard deviations of a
/// count of that many messages, `3 / √measured`, whichever is larger). Its delays then
/// grow with the window and are only what this window saw.
pub fn saturated(r: &PointResult) -> bool {
    let (o, c) = (&r.outcome, &r.outcome.counts);
    let noise = (3.0 / (c.measured.max(1) as f64).sqrt()).max(0.05);
    c.measured_refused > 0 || c.unfinished > 0 || o.throughput < (1.0 - noise) * o.offered
}

/// The curves of metric `m` over `points`: grouped by their swept values other than x
/// and the facet, in x order.
fn curves(
    res: &StudyResults,
    points: &[&PointResult],
    m: Metric,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let skip: Vec<Axis> = std::iter::once(res.study.plot.x)
        .chain(res.study.plot.facet)
        .collect();
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut add = |name: String, pt: (f64, f64)| match out.iter_mut().find(|c| c.0 == name) {
        Some(c) => c.1.push(pt),
        None => out.push((name, vec![pt])),
    };
    for r in points {
        let name = label(&r.sweep.at, &skip);
        if m == Metric::Utilisation {
            for t in &r.outcome.tiers {
                let curve = if name == "all" {
                    t.tier.clone()
                } else {
                    format!("{name}, {}", t.tier)
                };
                add(curve, (r.sweep.x, t.mean));
            }
        } else {
            add(name, (r.sweep.x, metric(m, r)));
        }
    }
    for c in &mut out {
        c.1.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The points of each facet value, in sweep order (one group of all points without a
/// facet): `(file name suffix, facet value, points)`.
fn facets(res: &StudyResults) -> Vec<(String, String, Vec<&PointResult>)> {
    let Some(axis) = res.study.plot.facet else {
        return vec![(String::new(), String::new(), res.points.iter().collect())];
    };
    let mut out: Vec<(String, String, Vec<&PointResult>)> = Vec::new();
    for r in &res.points {
        let v = r
            .sweep
            .at
            .iter()
            .find(|(a, _)| *a == axis)
            .map_or(String::new(), |(_, v)| v.clone());
        match out.iter_mut().find(|f| f.1 == v) {
            Some(f) => f.2.push(r),
            None => out.push((file_part(&v), v, vec![r])),
        }
    }
    out
}

/// `-value` made safe for a file name: letters, digits, `.`, `_`, `-` kept, the rest `_`.
fn file_part(v: &str) -> String {
    let s: String = v
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("-{s}")
}

/// Write the study's files into `dir`; returns their paths.
pub fn write(res: &StudyResults, dir: &Path) -> Result<Vec<PathBuf>> {
    let rows: Vec<PointRow> = res
        .points
        .iter()
        .enumerate()
        .map(|(i, r)| row(i, r))
        .collect();
    let tiers: Vec<TierRow> = res
        .points
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.outcome.tiers.iter().map(move |t| TierRow {
                index: i,
                tier: t.tier.clone(),
                links: t.links,
                mean_ratio: t.mean,
                max_ratio: t.max,
            })
        })
        .collect();
    let mut files: Vec<(String, String)> = vec![
        ("study.json".into(), to_json(res, "study results")?),
        ("points.csv".into(), table("points.csv", &rows)?),
        ("tiers.csv".into(), table("tiers.csv", &tiers)?),
    ];
    let x_desc = match res.study.plot.x {
        Axis::Buffer => "buffer (frames per output)",
        _ => "offered load (fraction of link rate)",
    };
    let mut plotted = Vec::new();
    for (suffix, value, points) in facets(res) {
        let caption = if value.is_empty() {
            res.title.clone()
        } else {
            format!("{} ({value})", res.title)
        };
        for &m in &res.study.plot.y {
            let (stem, y_desc) = m.name();
            let name = format!("{stem}{suffix}.svg");
            let log = res.study.plot.log_y && m != Metric::Throughput;
            let c = curves(res, &points, m);
            if let Some(svg) = plots::lines(&name, &caption, (x_desc, y_desc), &c, log)? {
                files.push((name.clone(), svg));
                plotted.push(name);
            }
        }
    }
    files.push(("report.md".into(), markdown(res, &plotted)));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    write_files(dir, &refs)
}

/// `report.md`: what ran, a table of the points, the plots.
fn markdown(res: &StudyResults, plots: &[String]) -> String {
    let mut s = String::new();
    let h = &res.header;
    let events: u64 = res.points.iter().map(|r| r.outcome.events).sum();
    let busy: f64 = res.points.iter().map(|r| r.outcome.wall_seconds).sum();
    let _ = writeln!(s, "# {}\n", res.title);
    if !res.about.is_empty() {
        let _ = writeln!(s, "{}\n", res.about.trim());
    }
    let _ = writeln!(s, "- command: `{}`", h.command);
    let _ = writeln!(s, "- started: {}", h.started);
    let _ = writeln!(
        s,
        "- machine: {} CPUs{}, kernel {}",
        h.machine.cpus,
        h.machine
            .cpu_model
            .as_ref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default(),
        h.machine.kernel
    );
    let _ = writeln!(
        s,
        "- {} points on {} threads in {:.1} s; {} events, {:.2} M events/s per thread",
        res.points.len(),
        res.threads,
        res.wall_seconds,
        events,
        events as f64 / busy.max(1e-9) / 1e6
    );
    let _ = writeln!(
        s,
        "- delays in transmission times of the mean frame (`tx`); a point marked * is past \
         saturation (it carried less than the offered load by more than chance explains, or \
         refused measured messages at a source, or had some still in flight at the end): its \
         delays grow with the measured window\n"
    );
    let _ = writeln!(
        s,
        "| point | offered | throughput | delay (tx) | delay (µs) | p99 (tx) | request (tx) | hops |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for r in &res.points {
        let o = &r.outcome;
        let _ = writeln!(
            s,
            "| {}{} | {:.3} | {:.3} | {:.2} | {:.3} | {:.2} | {:.2} | {:.2} |",
            label(&r.sweep.at, &[]),
            if saturated(r) { " *" } else { "" },
            o.offered,
            o.throughput,
            o.delay.mean_tx,
            o.delay.mean_ns / 1e3,
            o.delay.p99_tx,
            o.request.mean_tx,
            o.mean_hops
        );
    }
    for p in plots {
        let _ = writeln!(s, "\n![{p}]({p})");
    }
    s
}
