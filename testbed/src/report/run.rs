//! The report of a `canopy-testbed run` (and `replay`, `demo`): from a [`RunResults`] to
//! files and a terminal summary (`docs/reports.md`).
//!
//! [`write`](fn@write) puts into one directory:
//!
//! | file | what |
//! |---|---|
//! | `results.json` | the [`RunResults`] as pretty JSON, the schema as is |
//! | `report.md` | what ran, the result, a table per trial, switch counters, links; plots linked |
//! | `report.html` | the same, one self-contained page with the SVGs inlined |
//! | `latency_cdf.svg` | one-way latency CDF, log µs, p50/p99/p99.9 marked ([`plots::latency_cdf`]) |
//! | `throughput.svg` | received and sent vs offered, ideal line, loss labels, NDR/PDR ([`plots::throughput`]) |
//! | `links.svg` | per-link load by tier, both directions ([`plots::links`]) |
//! | `latency_hops.svg` | after a search with latency trials, where the stream's time went, per load ([`super::hopplot`]) |
//! | `latency.hlog` | after a search, the latency trials' histograms as an HdrHistogram interval log ([`super::hlog`]) |
//! | `trials.csv`, `switches.csv`, `switch_drops.csv`, `links.csv` | the trials, switches, drops by reason and links as CSV tables ([`super::csv`]) |
//!
//! A plot with nothing to show is not written, and the report says why. [`summary`] is
//! the one-screen text for the terminal (at most [`SUMMARY_LINES`] lines of at most
//! [`SUMMARY_COLS`] characters).
//!
//! Plots are SVG only: a PNG needs a rasteriser with a font (see `docs/DESIGN.md`).

use super::doc::{self, code, Block, Cell};
use super::results::{backend_summary, GeneratorCeiling, RunResults, SwitchDelta, Trial};
use super::{fmt, latency, plots, policy};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// Most lines of [`summary`].
pub const SUMMARY_LINES: usize = 34;
/// Most characters per line of [`summary`].
pub const SUMMARY_COLS: usize = 100;

/// The files [`write`](fn@write) wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The directory.
    pub dir: PathBuf,
    /// `results.json`.
    pub json: PathBuf,
    /// `report.md`.
    pub markdown: PathBuf,
    /// `report.html`.
    pub html: PathBuf,
    /// The CSV tables, in [`super::csv::FILES`] order.
    pub csv: Vec<PathBuf>,
    /// The SVG plots written (a plot with nothing to show is not).
    pub plots: Vec<PathBuf>,
    /// `latency.hlog`, when the run had latency trials.
    pub hlog: Option<PathBuf>,
}

/// Write `results.json`, `report.md`, `report.html`, the CSV tables and the SVG plots
/// into `dir` (created if missing; files of the same name are replaced).
pub fn write(results: &RunResults, dir: &Path) -> Result<Written> {
    let svgs = Svgs::draw(results)?;
    let blocks = blocks(results, &svgs);
    let mut files = vec![
        ("results.json", super::to_json(results, "results")?),
        ("report.md", doc::markdown(&blocks)),
        ("report.html", doc::html(&title(results), &blocks)),
    ];
    let tables = super::csv::tables(results)?;
    let n_tables = tables.len();
    files.extend(tables);
    let hlog = super::hlog::run_log(results)?;
    let has_hlog = hlog.is_some();
    if let Some(log) = hlog {
        files.push(("latency.hlog", log));
    }
    for (name, svg) in [
        ("latency_cdf.svg", &svgs.cdf),
        ("throughput.svg", &svgs.throughput),
        ("links.svg", &svgs.links),
        ("latency_hops.svg", &svgs.hops),
    ] {
        if let Some(svg) = svg {
            files.push((name, svg.clone()));
        }
    }
    let named: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let mut paths = super::write_files(dir, &named)?.into_iter();
    let mut next = || paths.next().unwrap_or_default();
    Ok(Written {
        dir: dir.to_path_buf(),
        json: next(),
        markdown: next(),
        html: next(),
        csv: (0..n_tables).map(|_| next()).collect(),
        hlog: has_hlog.then(&mut next),
        plots: paths.collect(),
    })
}

/// The report as Markdown, plots linked by file name (what `report.md` holds).
pub fn markdown(results: &RunResults) -> Result<String> {
    Ok(doc::markdown(&blocks(results, &Svgs::draw(results)?)))
}

/// The plots of a report (None: nothing to show).
struct Svgs {
    cdf: Option<String>,
    throughput: Option<String>,
    links: Option<String>,
    hops: Option<String>,
}

impl Svgs {
    fn draw(results: &RunResults) -> Result<Svgs> {
        Ok(Svgs {
            cdf: plots::latency_cdf(results)?,
            throughput: plots::throughput(results)?,
            links: plots::links(results)?,
            hops: super::hopplot::hop_breakdown(results)?,
        })
    }
}

fn title(r: &RunResults) -> String {
    format!("Canopy testbed run: {}", r.meta.fabric)
}

fn dash_if_empty(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        s.to_string()
    }
}

/// The latency cells of a trial ([`latency::cells`]).
fn latency_cells(t: &Trial) -> Vec<Cell> {
    latency::cells(&t.latency)
        .into_iter()
        .map(Cell::from)
        .collect()
}

/// Whether every switch conserved frames, and the misdelivered frames over all trials.
fn verdict(r: &RunResults) -> (Vec<&SwitchDelta>, u64) {
    let broken: Vec<&SwitchDelta> = r
        .switches
        .iter()
        .filter(|s| !s.conserved && s.unchecked.is_none())
        .collect();
    let misdelivered = r.trials.iter().map(|t| t.misdelivered).sum();
    (broken, misdelivered)
}

/// The one-line verdict on conservation and misdelivery.
pub fn verdict_line(r: &RunResults) -> String {
    let (broken, mis) = verdict(r);
    let cons = if r.switches.is_empty() {
        "no switch counters recorded".to_string()
    } else if broken.is_empty() {
        let unchecked: Vec<&str> = r
            .switches
            .iter()
            .filter(|s| s.unchecked.is_some())
            .map(|s| s.name.as_str())
            .collect();
        if unchecked.is_empty() {
            format!(
                "all {} switches conserve frames (rx = tx + drops)",
                r.switches.len()
            )
        } else {
            format!(
                "{} of {} switches conserve frames (rx = tx + drops), {} not checked (down or restarted: {})",
                r.switches.len() - unchecked.len(),
                r.switches.len(),
                unchecked.len(),
                unchecked.join(", ")
            )
        }
    } else {
        let names: Vec<&str> = broken.iter().map(|s| s.name.as_str()).collect();
        format!(
            "{} of {} switches break rx = tx + drops ({})",
            broken.len(),
            r.switches.len(),
            names.join(", ")
        )
    };
    let ok = broken.is_empty() && mis == 0 && !r.switches.is_empty();
    let mark = if ok {
        "OK"
    } else if broken.is_empty() && mis == 0 {
        "INCOMPLETE"
    } else {
        "FAIL"
    };
    format!("{mark}: {cons}; {mis} frames misdelivered")
}

/// The search or fixed-rate result in one sentence.
fn result_sentence(r: &RunResults) -> String {
    result_lines(r).join(" ")
}

/// [`result_sentence`] in lines that fit the summary's width.
fn result_lines(r: &RunResults) -> Vec<String> {
    match &r.search {
        Some(s) => {
            let confirmed = if s.confirm_s > 0.0 {
                format!("confirmed over {} s, ", s.confirm_s)
            } else {
                String::new()
            };
            let ndr = match (s.ndr_pps, s.ndr_trial) {
                (Some(p), Some(i)) => {
                    format!("NDR {} ({confirmed}trial {})", fmt::rate(p), i + 1)
                }
                (Some(p), None) => format!("NDR {}", fmt::rate(p)),
                _ => match s.ndr_search_pps.filter(|_| s.confirm_s > 0.0) {
                    Some(short) => format!(
                        "no NDR held over {} s (short trials: {})",
                        s.confirm_s,
                        fmt::rate(short)
                    ),
                    None => "no NDR (no trial passed)".to_string(),
                },
            };
            let pdr = match (s.pdr_pps, s.pdr_trial) {
                (Some(p), Some(i)) => format!(
                    "PDR {} below {} % loss (trial {})",
                    fmt::rate(p),
                    fmt::pct(s.pdr_loss_ratio),
                    i + 1
                ),
                (Some(p), None) => format!(
                    "PDR {} below {} % loss",
                    fmt::rate(p),
                    fmt::pct(s.pdr_loss_ratio)
                ),
                _ => format!(
                    "no PDR (every trial lost {} % or more)",
                    fmt::pct(s.pdr_loss_ratio)
                ),
            };
            // a step can fail without loss: its senders fell short of the offered rate, so
            // the rates above the NDR were never offered and the NDR is the generator's
            let short = r
                .trials
                .iter()
                .filter(|t| t.passed == Some(false) && t.lost == 0)
                .count();
            let mut v = vec![];
            if short > 0 {
                v.push(
                    "Generator-limited: the NDR is the generator's ceiling, not the fabric's."
                        .to_string(),
                );
            }
            if let Some(c) = &r.meta.generator_ceiling {
                v.extend(ceiling_lines(c));
            }
            let lowered = |found: Option<f64>, short: Option<f64>, what: &str| {
                match (found, short)
            {
                (Some(f), Some(sh)) if s.confirm_s > 0.0 && f < sh => Some(format!(
                    "The short trials passed {what} {}; it lost frames over {} s and was confirmed lower.",
                    fmt::rate(sh),
                    s.confirm_s
                )),
                _ => None,
            }
            };
            v.extend([
                format!("Search: {ndr}; {pdr};"),
                format!(
                    "{} trials between {} and {}, resolution {} %.",
                    r.trials.len(),
                    fmt::rate(s.min_pps),
                    fmt::rate(s.max_pps),
                    fmt::pct(s.resolution)
                ),
            ]);
            if short > 0 {
                v.push(format!(
                    "{short} failed trial(s) lost no frame: senders fell short of the offered rate (generator limit)."
                ));
            }
            v.extend(lowered(s.ndr_pps, s.ndr_search_pps, "NDR"));
            v.extend(lowered(s.pdr_pps, s.pdr_search_pps, "PDR"));
            v
        }
        None => {
            let mut v = match r.trials.as_slice() {
                [] => vec!["No trial ran.".to_string()],
                [t] => vec![format!(
                    "Fixed rate: offered {}, sent {}, received {}, loss {} %.",
                    fmt::rate(t.offered_pps),
                    fmt::rate(t.sent_pps),
                    fmt::rate(t.received_pps),
                    fmt::pct(t.loss_ratio)
                )],
                ts => vec![format!("Fixed rate: {} trials (table below).", ts.len())],
            };
            if let Some(c) = &r.meta.generator_ceiling {
                v.extend(ceiling_lines(c));
            }
            v
        }
    }
}

/// The generator's own ceiling in words (two lines that fit the summary): what it sent
/// and received with nothing in between.
fn ceiling_lines(c: &GeneratorCeiling) -> [String; 2] {
    let rx = match &c.receiver {
        Some(x) => format!(", {} received ({} lost)", fmt::rate(x.received_pps), x.lost),
        None => String::new(),
    };
    [
        if c.at_up {
            format!(
                "Generator ceiling (the generator alone on one veth pair, at `up`, {} B frames):",
                c.frame_len + 4
            )
        } else {
            "Generator ceiling (the generator alone on one veth pair, before the trials):".into()
        },
        format!(
            "{} sent{rx}, {} sender thread(s).",
            fmt::rate(c.sent_pps),
            c.tx_threads
        ),
    ]
}

fn blocks(r: &RunResults, svgs: &Svgs) -> Vec<Block> {
    let mut b = vec![Block::Heading(1, title(r))];
    b.extend(what_ran(r));
    b.push(Block::Heading(2, "Result".into()));
    b.push(Block::Para(result_sentence(r)));
    b.push(Block::Para(verdict_line(r)));
    if let Some(l) = &r.limit {
        b.push(Block::Heading(2, "What limited it".into()));
        b.push(Block::Para(format!("Limited by {}.", l.by)));
        b.push(Block::Table {
            head: vec!["evidence".into()],
            rows: l.evidence.iter().map(|e| vec![e.as_str().into()]).collect(),
            numeric: false,
        });
    }
    b.extend(trials(r, svgs));
    b.extend(policy::blocks(r));
    b.extend(latency::blocks(r, svgs.hops.as_ref()));
    b.extend(switches(r));
    b.extend(links(r, svgs));
    b
}

/// "What ran": the command, the fabric, the traffic, the machine, the version.
fn what_ran(r: &RunResults) -> Vec<Block> {
    let m = &r.meta;
    let mut b = vec![];
    b.push(Block::Heading(2, "What ran".into()));
    let machine = format!(
        "{} CPUs{}, kernel {}, load average before {}",
        m.header.machine.cpus,
        m.header
            .machine
            .cpu_model
            .as_deref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default(),
        dash_if_empty(&m.header.machine.kernel),
        m.header
            .machine
            .load_before
            .map_or("n/a".into(), |l| format!("{l:.2}"))
    );
    let mut rows: Vec<Vec<Cell>> = vec![
        vec!["command".into(), code(&m.header.command)],
        vec!["fabric".into(), code(&m.fabric)],
        vec!["topology".into(), code(&m.topology)],
        vec!["header kind".into(), code(&m.kind)],
        vec![
            "target".into(),
            match &m.target_build {
                Some(b) => format!("{} ({b})", m.target).into(),
                None => code(&m.target),
            },
        ],
        vec![
            "guests".into(),
            m.guests.as_deref().map_or(Cell::from("—"), Cell::from),
        ],
        vec![
            "hosts / switches".into(),
            format!("{} / {}", m.hosts, m.switches).into(),
        ],
        vec!["pattern".into(), code(&m.pattern)],
        vec!["CPUs".into(), m.cpus.describe(m.switches).into()],
        vec![
            "port backends".into(),
            dash_if_empty(&backend_summary(
                r.switches.iter().flat_map(|s| &s.backends),
            ))
            .into(),
        ],
        vec![
            "frame size".into(),
            format!(
                "{} B ({} B on the wire with FCS)",
                m.frame_len,
                m.frame_len + 4
            )
            .into(),
        ],
        vec!["started".into(), dash_if_empty(&m.header.started).into()],
        vec!["machine".into(), machine.into()],
        vec!["version".into(), dash_if_empty(&m.header.version).into()],
        vec!["results schema".into(), format!("{}", r.schema).into()],
    ];
    if let Some(c) = &m.generator_ceiling {
        rows.push(vec![
            "generator ceiling".into(),
            ceiling_lines(c)[1].clone().into(),
        ]);
    }
    b.push(Block::Table {
        head: vec!["what".into(), "value".into()],
        rows,
        numeric: false,
    });
    b
}

/// "Trials": a row per trial, then the throughput plot and the latency CDF.
fn trials(r: &RunResults, svgs: &Svgs) -> Vec<Block> {
    let mut b = vec![];
    b.push(Block::Heading(2, "Trials".into()));
    if r.trials.is_empty() {
        b.push(Block::Para("No trial ran.".into()));
    } else {
        let rate_max = r
            .trials
            .iter()
            .flat_map(|t| [t.offered_pps, t.sent_pps, t.received_pps])
            .fold(0.0f64, f64::max);
        let unit = fmt::rate_unit(rate_max);
        let mut head: Vec<String> = [
            "#",
            &format!("offered {}", unit.1),
            &format!("sent {}", unit.1),
            &format!("received {}", unit.1),
            "sent",
            "received",
            "loss %",
            "reordered",
            "reordered flows",
            "duplicates",
            "misdelivered",
            "foreign",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if r.search.is_some() {
            head.push("passed".into());
        }
        head.extend(latency::HEAD.iter().map(|s| s.to_string()));
        let rows = r
            .trials
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut row: Vec<Cell> = vec![
                    format!("{}", i + 1).into(),
                    fmt::rate_in(t.offered_pps, unit).into(),
                    fmt::rate_in(t.sent_pps, unit).into(),
                    fmt::rate_in(t.received_pps, unit).into(),
                    t.sent.to_string().into(),
                    t.received.to_string().into(),
                    fmt::pct(t.loss_ratio).into(),
                    t.reordered.to_string().into(),
                    format!(
                        "{} of {} (worst {} %)",
                        t.flow_reorder.reordered_flows,
                        t.flow_reorder.flows,
                        fmt::pct(t.flow_reorder.worst_ratio)
                    )
                    .into(),
                    t.duplicates.to_string().into(),
                    t.misdelivered.to_string().into(),
                    t.foreign.to_string().into(),
                ];
                if r.search.is_some() {
                    row.push(
                        match t.passed {
                            Some(true) => "yes",
                            Some(false) => "no",
                            None => "—",
                        }
                        .into(),
                    );
                }
                row.extend(latency_cells(t));
                row
            })
            .collect();
        b.push(Block::Table {
            head,
            rows,
            numeric: true,
        });
        b.push(Block::Para(format!(
            "Rates in {}; loss % = lost / sent; latency is one-way, µs, from an HDR histogram with 3 significant digits (n/a: no frame received).",
            unit.1
        )));
    }
    match &svgs.throughput {
        Some(svg) => b.push(Block::Plot {
            alt: "throughput vs offered load".into(),
            file: "throughput.svg".into(),
            svg: svg.clone(),
        }),
        None => b.push(Block::Para("No throughput plot: no trial ran.".into())),
    }
    match &svgs.cdf {
        Some(svg) => {
            let chosen: Vec<String> = plots::cdf_trials(r)
                .into_iter()
                .map(|(i, l)| format!("trial {} ({l})", i + 1))
                .collect();
            b.push(Block::Para(format!(
                "Latency CDF of {}.",
                chosen.join(", ")
            )));
            b.push(Block::Plot {
                alt: "one-way latency CDF".into(),
                file: "latency_cdf.svg".into(),
                svg: svg.clone(),
            });
        }
        None => b.push(Block::Para(
            "No latency CDF: no chosen trial received a frame.".into(),
        )),
    }
    b
}

/// "Switches": each switch's counters and whether it conserved frames.
fn switches(r: &RunResults) -> Vec<Block> {
    let mut b = vec![];
    b.push(Block::Heading(2, "Switches".into()));
    if r.switches.is_empty() {
        b.push(Block::Para("No switch counters were recorded.".into()));
    } else {
        let rows = r
            .switches
            .iter()
            .map(|s| {
                let drops: u64 = s.drops.values().sum();
                let balance = i128::from(s.rx) - i128::from(s.tx) - i128::from(drops);
                let reasons = if s.drops.is_empty() {
                    "—".to_string()
                } else {
                    s.drops
                        .iter()
                        .map(|(k, v)| format!("{k} {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                vec![
                    code(&s.name),
                    s.rx.to_string().into(),
                    s.tx.to_string().into(),
                    drops.to_string().into(),
                    balance.to_string().into(),
                    match (&s.unchecked, s.conserved) {
                        (Some(why), _) => format!("not checked: {why}"),
                        (None, true) => "yes".into(),
                        (None, false) => "NO".into(),
                    }
                    .into(),
                    reasons.into(),
                    dash_if_empty(&outside_engine(std::slice::from_ref(s))).into(),
                    dash_if_empty(&backend_summary(&s.backends)).into(),
                ]
            })
            .collect();
        b.push(Block::Table {
            head: [
                "switch",
                "rx",
                "tx",
                "drops",
                "rx − tx − drops",
                "conserved",
                "drops by reason",
                "outside the engine (not in drops)",
                "port backends",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            rows,
            numeric: true,
        });
    }
    b
}

/// "Links": the per-link plot and table.
fn links(r: &RunResults, svgs: &Svgs) -> Vec<Block> {
    let mut b = vec![];
    b.push(Block::Heading(2, "Links".into()));
    match &svgs.links {
        Some(svg) => {
            b.push(Block::Plot {
                alt: "per-link load".into(),
                file: "links.svg".into(),
                svg: svg.clone(),
            });
            let mut rows = Vec::new();
            for tier in plots::tiers(r) {
                for (i, l) in r.links.iter().filter(|l| l.tier == tier).enumerate() {
                    rows.push(vec![
                        code(&tier),
                        i.to_string().into(),
                        code(&l.a),
                        code(&l.b),
                        l.frames_ab.to_string().into(),
                        l.frames_ba.to_string().into(),
                        format!("{:.3}", l.relative).into(),
                    ]);
                }
            }
            b.push(Block::Table {
                head: [
                    "tier",
                    "#",
                    "a",
                    "b",
                    "frames a → b",
                    "frames b → a",
                    "relative",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
                rows,
                numeric: true,
            });
        }
        None => b.push(Block::Para("No per-link counters were recorded.".into())),
    }
    b
}

/// The one-screen terminal summary: at most [`SUMMARY_LINES`] lines of at most
/// [`SUMMARY_COLS`] characters. `written` adds where the report files are.
pub fn summary(r: &RunResults, written: Option<&Written>) -> String {
    let m = &r.meta;
    let mut lines: Vec<String> = Vec::new();
    lines.push(format!(
        "Canopy run: {} ({}, {} headers, {}), {} hosts, {} switches",
        m.fabric, m.topology, m.kind, m.target, m.hosts, m.switches
    ));
    lines.push(format!(
        "Pattern {}, {} B frames (+ FCS), {} CPUs, kernel {}",
        m.pattern,
        m.frame_len,
        m.header.machine.cpus,
        dash_if_empty(&m.header.machine.kernel)
    ));
    let backends = backend_summary(r.switches.iter().flat_map(|s| &s.backends));
    if !backends.is_empty() {
        lines.push(format!("Port backends: {backends}"));
    }
    if m.target == "canopy" {
        lines.push(format!("Switches: {}", m.cpus.describe(m.switches)));
    }
    if let Some(g) = &m.guests {
        lines.push(format!("Guests: {g}"));
    }
    if let Some(b) = &m.target_build {
        // the binary, then its build (one line each when they do not fit one)
        match b
            .split_once(": ")
            .filter(|_| b.chars().count() + 6 > SUMMARY_COLS)
        {
            Some((path, build)) => {
                lines.push(format!("bmv2: {path}"));
                lines.push(format!("      {build}"));
            }
            None => lines.push(format!("bmv2: {b}")),
        }
    }
    lines.extend(result_lines(r));
    if let Some(l) = &r.limit {
        lines.push(format!("Limited by {}.", l.by));
    }
    let shown = shown_trials(r);
    lines.extend(trial_lines(r, &shown));
    lines.extend(latency::summary_lines(r));
    lines.extend(reorder_line(r, &shown));
    lines.extend(policy::summary_lines(r));
    let sum = |f: fn(&Trial) -> u64| -> u64 { r.trials.iter().map(f).sum() };
    lines.push(format!(
        "All trials: sent {}, lost {}, reordered {}, duplicates {}, misdelivered {}, foreign {}",
        sum(|t| t.sent),
        sum(|t| t.lost),
        sum(|t| t.reordered),
        sum(|t| t.duplicates),
        sum(|t| t.misdelivered),
        sum(|t| t.foreign)
    ));
    lines.extend(switch_drop_lines(r));
    lines.push(verdict_line(r));
    if let Some(w) = written {
        lines.push(format!("Report: {}", w.markdown.display()));
        lines.push(format!("        {}", w.html.display()));
        lines.push(format!(
            "        {} (+ {} SVG plot{}{}{})",
            w.json.display(),
            w.plots.len(),
            if w.plots.len() == 1 { "" } else { "s" },
            if w.hlog.is_some() {
                ", latency.hlog"
            } else {
                ""
            },
            if w.csv.is_empty() { "" } else { ", CSV tables" }
        ));
    }
    lines.truncate(SUMMARY_LINES);
    let mut out: String = lines
        .iter()
        .map(|l| fmt::clip(l, SUMMARY_COLS))
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// The summary's switch drops: by reason, and beside them the drops outside the
/// engines (the kernel's `tp_drops` above all), whenever there are some or frames were
/// lost, so that a loss larger than the switch drops is accounted for. On one line when
/// it fits, else two.
fn switch_drop_lines(r: &RunResults) -> Vec<String> {
    if r.switches.is_empty() {
        return vec![];
    }
    let drops: u64 = r.switches.iter().flat_map(|s| s.drops.values()).sum();
    let mut reasons: std::collections::BTreeMap<&str, u64> = Default::default();
    for s in &r.switches {
        for (k, v) in &s.drops {
            *reasons.entry(k.as_str()).or_default() += v;
        }
    }
    let top: Vec<String> = reasons.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let line = format!(
        "Switch drops: {drops}{}",
        if top.is_empty() {
            String::new()
        } else {
            format!(" ({})", top.join(", "))
        }
    );
    let outside = outside_engine(&r.switches);
    let lost = r.trials.iter().any(|t| t.lost > 0) && r.meta.target == "canopy";
    if outside.is_empty() && !lost {
        return vec![line];
    }
    let outside = match outside.is_empty() {
        true => "kernel tp_drops 0".to_string(),
        false => outside,
    };
    let more = format!("; outside the engine: {outside}");
    if line.chars().count() + more.chars().count() <= SUMMARY_COLS {
        vec![line + &more]
    } else {
        vec![line, format!("Switch drops outside the engine: {outside}")]
    }
}

/// The switches' drops outside their engines (not in "drops"), summed by reason:
/// `kernel tp_drops 40, rx_truncated 1` (empty when none). `kernel_drops` is the
/// kernel's AF_PACKET `tp_drops` (a full RX ring, before the switch counted the frame).
fn outside_engine(switches: &[crate::report::results::SwitchDelta]) -> String {
    let mut by: std::collections::BTreeMap<&str, u64> = Default::default();
    for s in switches {
        for (k, v) in &s.backend_drops {
            *by.entry(k.as_str()).or_default() += v;
        }
    }
    by.iter()
        .map(|(k, v)| match *k {
            "kernel_drops" => format!("kernel tp_drops {v}"),
            k => format!("{k} {v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The trials worth a line of the summary, with their labels: NDR and PDR of a search,
/// else up to 6 fixed-rate trials.
fn shown_trials(r: &RunResults) -> Vec<(String, usize)> {
    let mut shown: Vec<(String, usize)> = Vec::new();
    match &r.search {
        Some(s) => {
            if let Some(i) = s.ndr_trial.filter(|&i| i < r.trials.len()) {
                shown.push(("NDR".into(), i));
            }
            if let Some(i) = s.pdr_trial.filter(|&i| i < r.trials.len()) {
                if s.ndr_trial != Some(i) {
                    shown.push(("PDR".into(), i));
                }
            }
        }
        None => {
            for i in 0..r.trials.len().min(6) {
                shown.push((format!("trial {}", i + 1), i));
            }
        }
    }
    shown
}

/// The summary's trial table: a heading and a line per shown trial.
fn trial_lines(r: &RunResults, shown: &[(String, usize)]) -> Vec<String> {
    if shown.is_empty() {
        return vec![];
    }
    let mut lines = vec![format!(
        "{:<10} {:>12} {:>12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "trial", "received", "loss %", "min µs", "p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs"
    )];
    for (label, i) in shown {
        let t = &r.trials[*i];
        lines.push(format!(
            "{:<10} {:>12} {:>12} {}",
            label,
            fmt::rate(t.received_pps),
            fmt::pct(t.loss_ratio),
            latency::columns(&t.latency)
        ));
    }
    if r.search.is_none() && r.trials.len() > shown.len() {
        lines.push(format!(
            "… {} more trials in the report",
            r.trials.len() - shown.len()
        ));
    }
    lines
}

/// Reordering of the first shown trial: frames, flows, the worst flow.
fn reorder_line(r: &RunResults, shown: &[(String, usize)]) -> Option<String> {
    let (label, i) = shown.first()?;
    let t = &r.trials[*i];
    let f = &t.flow_reorder;
    (f.flows > 0).then(|| {
        format!(
            "Reordering ({label}): {} frames ({} %), in {} of {} flows (worst flow {} %)",
            t.reordered,
            fmt::pct(t.reordered_ratio()),
            f.reordered_flows,
            f.flows,
            fmt::pct(f.worst_ratio)
        )
    })
}
