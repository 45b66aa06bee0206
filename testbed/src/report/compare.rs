//! Side by side: several runs (typically the same description on the `canopy` and the
//! `bmv2` target) in one report — `compare.md`, `compare.html` and an overlaid latency
//! CDF (`canopy-testbed compare`, `docs/reports.md`).

use super::doc::{self, code, Block, Cell};
use super::results::{Latency, RunResults, Trial};
use super::{fmt, plots};
use crate::{Result, TestbedError};
use std::path::{Path, PathBuf};

/// The trial that stands for a run: the NDR trial of a search (else its PDR trial, else
/// its lowest-rate trial), or the first trial of a fixed-rate run.
pub fn representative(r: &RunResults) -> Option<(usize, &'static str)> {
    if let Some(s) = &r.search {
        if let Some(i) = s.ndr_trial {
            return Some((i, "NDR"));
        }
        if let Some(i) = s.pdr_trial {
            return Some((i, "PDR"));
        }
        return (0..r.trials.len())
            .min_by(|&a, &b| r.trials[a].offered_pps.total_cmp(&r.trials[b].offered_pps))
            .map(|i| (i, "lowest rate"));
    }
    (!r.trials.is_empty()).then_some((0, "fixed rate"))
}

/// Label of a run: its target, made unique with the fabric name when two runs share it.
pub fn labels(runs: &[RunResults]) -> Vec<String> {
    runs.iter()
        .map(|r| {
            let same = runs
                .iter()
                .filter(|o| o.meta.target == r.meta.target)
                .count();
            if same > 1 {
                format!("{} ({})", r.meta.target, r.meta.fabric)
            } else {
                r.meta.target.clone()
            }
        })
        .collect()
}

fn rate_or_dash(v: Option<f64>) -> Cell {
    v.map_or_else(|| "–".into(), |p| fmt::rate(p).into())
}

fn blocks(runs: &[RunResults], labels: &[String], cdf: &Option<String>) -> Vec<Block> {
    let mut b = vec![Block::Heading(
        1,
        "Canopy testbed: runs side by side".into(),
    )];
    let differs = |f: fn(&RunResults) -> String| {
        runs.iter()
            .map(f)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 1
    };
    let mut warn = vec![];
    for (what, f) in [
        (
            "topology",
            (|r: &RunResults| r.meta.topology.clone()) as fn(&RunResults) -> String,
        ),
        ("header kind", |r| r.meta.kind.clone()),
        ("pattern", |r| r.meta.pattern.clone()),
        ("frame length", |r| r.meta.frame_len.to_string()),
    ] {
        if differs(f) {
            warn.push(what);
        }
    }
    b.push(Block::Para(if warn.is_empty() {
        format!(
            "{} runs of {} ({} headers), pattern {}, {}-byte frames.",
            runs.len(),
            runs[0].meta.topology,
            runs[0].meta.kind,
            runs[0].meta.pattern,
            runs[0].meta.frame_len + 4
        )
    } else {
        format!(
            "These runs differ in {}: compare with care.",
            warn.join(", ")
        )
    }));
    let rows: Vec<Vec<Cell>> = runs
        .iter()
        .zip(labels)
        .map(|(r, l)| {
            let rep = representative(r);
            let t: Option<&Trial> = rep.and_then(|(i, _)| r.trials.get(i));
            let lat = |f: fn(&Trial) -> u64| -> Cell {
                t.filter(|t| t.latency.count > 0)
                    .map_or_else(|| "–".into(), |t| fmt::us(f(t)).into())
            };
            vec![
                code(l.clone()),
                rate_or_dash(r.search.as_ref().and_then(|s| s.ndr_pps)),
                rate_or_dash(r.search.as_ref().and_then(|s| s.pdr_pps)),
                rep.map_or_else(
                    || "–".into(),
                    |(i, what)| format!("{what}: {}", fmt::rate(r.trials[i].offered_pps)).into(),
                ),
                t.map_or_else(|| "–".into(), |t| fmt::rate(t.received_pps).into()),
                t.map_or_else(|| "–".into(), |t| fmt::pct(t.loss_ratio).into()),
                lat(|t| t.latency.p50_ns),
                lat(|t| t.latency.p99_ns),
                lat(|t| t.latency.p999_ns),
                r.trials
                    .iter()
                    .map(|t| t.misdelivered)
                    .sum::<u64>()
                    .to_string()
                    .into(),
            ]
        })
        .collect();
    b.push(Block::Table {
        head: [
            "target",
            "NDR",
            "PDR",
            "trial shown",
            "received",
            "loss",
            "p50 µs",
            "p99 µs",
            "p99.9 µs",
            "misdelivered",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
        numeric: true,
    });
    if let Some(svg) = cdf {
        b.push(Block::Plot {
            alt: "One-way latency CDF of each run's trial shown".into(),
            file: "compare_latency_cdf.svg".into(),
            svg: svg.clone(),
        });
    }
    b.extend(residence(runs, labels));
    b.push(Block::Heading(2, "Runs".into()));
    let rows = runs
        .iter()
        .zip(labels)
        .map(|(r, l)| {
            vec![
                code(l.clone()),
                r.meta
                    .target_build
                    .clone()
                    .unwrap_or_else(|| "—".into())
                    .into(),
                code(r.meta.header.command.clone()),
                r.meta.header.started.clone().into(),
                format!(
                    "{} CPUs, load {}",
                    r.meta.header.machine.cpus,
                    r.meta
                        .header
                        .machine
                        .load_before
                        .map_or("?".into(), |l| format!("{l:.1}"))
                )
                .into(),
            ]
        })
        .collect();
    b.push(Block::Table {
        head: ["target", "build", "command", "started", "machine"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        rows,
        numeric: false,
    });
    b
}

/// "Per-hop residence": each run's latency stream at the lowest load that has a hop
/// breakdown, on its longest path, switch by switch (mean and p99 µs), then the time
/// outside the switches and end to end. canopy-switch's records are on the machine's
/// clock, bmv2's on each switch's own (residence only, `traffic::hopstats`): residence
/// is the one part both give. Nothing when no run has a breakdown.
fn residence(runs: &[RunResults], labels: &[String]) -> Vec<Block> {
    use super::latency::longest;
    use super::results::{HopBreakdown, PathParts};
    let found: Vec<Option<(f64, &HopBreakdown, &PathParts)>> = runs
        .iter()
        .map(|r| {
            r.search.as_ref()?.latency.iter().find_map(|l| {
                let h = l.trial.probe.as_ref()?.hops.as_ref()?;
                Some((l.fraction, h, longest(h)?))
            })
        })
        .collect();
    let Some(n) = found.iter().flatten().map(|f| f.2.hops).max() else {
        return vec![];
    };
    let us = |ns: f64| fmt::us(ns.max(0.0).round() as u64);
    let mut head = vec!["part, mean (p99) µs".to_string()];
    head.extend(labels.iter().cloned());
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut row = |name: String, f: &dyn Fn(f64, &HopBreakdown, &PathParts) -> String| {
        let mut r: Vec<Cell> = vec![name.into()];
        r.extend(
            found
                .iter()
                .map(|x| x.map_or_else(|| "–".into(), |(l, h, p)| f(l, h, p).into())),
        );
        rows.push(r);
    };
    row("load (% of the run's NDR)".into(), &|l, _, p| {
        format!("{:.0} % ({}-switch paths)", l * 100.0, p.hops)
    });
    for i in 0..n {
        row(format!("switch {}: residence", i + 1), &|_, _, p| {
            p.hop.get(i).map_or("–".into(), |h| {
                format!(
                    "{} ({})",
                    us(h.residence.mean_ns),
                    fmt::us(h.residence.p99_ns)
                )
            })
        });
    }
    row("all switches: residence".into(), &|_, _, p| {
        us(p.hop.iter().map(|h| h.residence.mean_ns).sum())
    });
    row("outside the switches".into(), &|_, h, p| {
        let inside: f64 = p.hop.iter().map(|h| h.residence.mean_ns).sum();
        let outside = if h.switch_clocks {
            p.host_stack.mean_ns
        } else {
            p.measured.mean_ns - inside
        };
        us(outside)
    });
    row("end to end (measured)".into(), &|_, _, p| {
        format!(
            "{} ({})",
            us(p.measured.mean_ns),
            fmt::us(p.measured.p99_ns)
        )
    });
    vec![
        Block::Heading(2, "Per-hop residence".into()),
        Block::Para(
            "Each run's latency stream at the lowest load with hop records, on its longest \
             path: the time each switch held a frame (canopy-switch: poll to hand-off to the \
             egress port; bmv2: ingress to egress global timestamp, on the switch's own \
             clock, the egress queue included), then the rest of the one-way latency."
                .into(),
        ),
        Block::Table {
            head,
            rows,
            numeric: true,
        },
    ]
}

/// Read `results.json` from each path (a run directory or the file itself) and write
/// `compare.md`, `compare.html` and `compare_latency_cdf.svg` into `out`; returns the
/// files written.
pub fn compare(inputs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>> {
    if inputs.len() < 2 {
        return Err(TestbedError::Parse {
            what: "compare".into(),
            detail: "give at least two runs (directories with results.json, or the files)".into(),
        });
    }
    let mut runs = Vec::with_capacity(inputs.len());
    for p in inputs {
        let f = if p.is_dir() {
            p.join("results.json")
        } else {
            p.clone()
        };
        let text = std::fs::read_to_string(&f)
            .map_err(|e| TestbedError::io(format!("read {}", f.display()), e))?;
        let r: RunResults = serde_json::from_str(&text).map_err(|e| TestbedError::Parse {
            what: f.display().to_string(),
            detail: format!("not a results.json of canopy-testbed: {e}"),
        })?;
        runs.push(r);
    }
    let labels = labels(&runs);
    let curves: Vec<(&Latency, String)> = runs
        .iter()
        .zip(&labels)
        .filter_map(|(r, l)| {
            let (i, what) = representative(r)?;
            Some((
                &r.trials[i].latency,
                format!("{l}, {what} {}", fmt::rate(r.trials[i].offered_pps)),
            ))
        })
        .collect();
    let cdf = plots::latency_cdf_of(&curves, "One-way latency CDF, runs side by side")?;
    let blocks = blocks(&runs, &labels, &cdf);
    let md = doc::markdown(&blocks);
    let html = doc::html("Canopy testbed: runs side by side", &blocks);
    let mut files = vec![("compare.md", md.as_str()), ("compare.html", html.as_str())];
    if let Some(svg) = &cdf {
        files.push(("compare_latency_cdf.svg", svg));
    }
    super::write_files(out, &files)
}
