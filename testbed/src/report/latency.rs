//! The "Latency under load" part of a run's report: after a search, the latency
//! stream's figures at each fraction of the NDR
//! ([`super::results::SearchResult::latency`]), in the report, in the terminal summary
//! and as an HdrHistogram log (`latency.hlog`, [`super::hlog`]).

use super::doc::{Block, Cell};
use super::fmt;
use super::results::{HopBreakdown, Latency, LoadLatency, PathParts, RunResults};

/// The six latency figures, µs: min, p50, p90, p99, p99.9, max (n/a when nothing was
/// recorded).
pub fn cells(l: &Latency) -> Vec<String> {
    [l.min_ns, l.p50_ns, l.p90_ns, l.p99_ns, l.p999_ns, l.max_ns]
        .into_iter()
        .map(|ns| {
            if l.count == 0 {
                "n/a".into()
            } else {
                fmt::us(ns)
            }
        })
        .collect()
}

/// The headings of [`cells`]' six columns, in the reports' tables.
pub(super) const HEAD: [&str; 6] = ["min µs", "p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs"];

/// [`cells`] as one right-aligned run of columns for the terminal summary.
pub(super) fn columns(l: &Latency) -> String {
    cells(l)
        .iter()
        .map(|c| format!("{c:>9}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn loads(r: &RunResults) -> &[LoadLatency] {
    r.search.as_ref().map_or(&[], |s| s.latency.as_slice())
}

/// The stream's rate, for the wording (the first trial's: every one has the same).
fn stream_rate(r: &RunResults) -> Option<f64> {
    loads(r)
        .iter()
        .find_map(|l| l.trial.probe.as_ref())
        .map(|p| p.offered_pps)
}

/// "Latency under load": the method in a sentence and a row per load. Nothing when the
/// run had no latency trials.
pub(super) fn blocks(r: &RunResults, hops_svg: Option<&String>) -> Vec<Block> {
    let loads = loads(r);
    if loads.is_empty() {
        return vec![];
    }
    let stream = stream_rate(r).map_or("a latency stream".into(), |p| {
        format!("a latency stream of {}", fmt::rate(p))
    });
    let mut b = vec![Block::Heading(2, "Latency under load".into())];
    b.push(Block::Para(format!(
        "As RFC 2544 and RFC 8219 measure latency: {stream}, its frames sent one at a time and \
         timed apart, beside a background load at each fraction of the NDR (0 %: the stream \
         alone). Latency is one-way, µs, from the sender's stamp to the receiving host's kernel \
         receive stamp; every histogram is in `latency.hlog` (HdrHistogram interval log, ns; \
         `canopy-testbed latency` reads it)."
    )));
    let head: Vec<String> = [
        "load % of NDR",
        "load offered",
        "load received",
        "load loss %",
        "stream sent",
        "stream lost",
        "stream reordered",
    ]
    .iter()
    .chain(HEAD.iter())
    .chain(["load p50 µs", "load p99 µs"].iter())
    .map(|s| s.to_string())
    .collect();
    let rows = loads
        .iter()
        .map(|l| {
            let t = &l.trial;
            let p = t.probe.clone().unwrap_or_default();
            let mut row: Vec<Cell> = vec![
                format!("{:.0}", l.fraction * 100.0).into(),
                fmt::rate(t.offered_pps).into(),
                fmt::rate(t.received_pps).into(),
                fmt::pct(t.loss_ratio).into(),
                p.sent.to_string().into(),
                p.lost.to_string().into(),
                p.reordered.to_string().into(),
            ];
            row.extend(cells(&p.latency).into_iter().map(Cell::from));
            let bg = cells(&t.latency);
            row.push(bg[1].clone().into());
            row.push(bg[3].clone().into());
            row
        })
        .collect();
    b.push(Block::Table {
        head,
        rows,
        numeric: true,
    });
    b.extend(breakdown_blocks(loads));
    if let Some(svg) = hops_svg {
        b.push(Block::Plot {
            alt: "where the latency stream's time went, per load".into(),
            file: "latency_hops.svg".into(),
            svg: svg.clone(),
        });
    }
    b
}

/// The longest path of a breakdown that has frames (the one across the fabric).
pub(super) fn longest(h: &HopBreakdown) -> Option<&PathParts> {
    h.paths
        .iter()
        .filter(|p| p.frames > 0)
        .max_by_key(|p| p.hops)
}

/// The parts of a path summed by kind: host stack, RX rings, residence, links (mean
/// ns each).
pub(super) fn by_kind(p: &PathParts) -> [f64; 4] {
    let sum = |f: fn(&super::results::HopParts) -> f64| p.hop.iter().map(f).sum::<f64>();
    [
        p.host_stack.mean_ns,
        sum(|h| h.rx_ring.mean_ns),
        sum(|h| h.residence.mean_ns),
        sum(|h| h.link.mean_ns),
    ]
}

/// "Where the latency went": the stream's hop records on its longest path, part by part
/// (rows) and load by load (columns), mean µs.
fn breakdown_blocks(loads: &[LoadLatency]) -> Vec<Block> {
    let with: Vec<(&LoadLatency, &HopBreakdown, &PathParts)> = loads
        .iter()
        .filter_map(|l| {
            let h = l.trial.probe.as_ref()?.hops.as_ref()?;
            Some((l, h, longest(h)?))
        })
        .collect();
    let Some(n) = with.iter().map(|w| w.2.hops).max() else {
        return vec![];
    };
    let with: Vec<_> = with.into_iter().filter(|w| w.2.hops == n).collect();
    let local = with.iter().any(|w| w.1.switch_clocks);
    let mut b = vec![Block::Heading(3, "Where the latency went".into())];
    b.push(Block::Para(if local {
        format!(
            "The latency stream's hop records on its {n}-switch paths, written by the P4 \
             program on each switch's own clock (v1model's ingress and egress global \
             timestamps, no kernel stamp), mean µs per part: residence = ingress to egress \
             timestamp (the egress queue included); outside the switches = the measured \
             latency less every residence (host stacks, links, the switches' packet I/O). \
             RX rings and links cannot be told apart on these clocks. Frames with a record \
             the breakdown cannot use are left out and counted."
        )
    } else {
        format!(
            "The latency stream's hop records on its {n}-switch paths (one record per \
             switch: the kernel's receive stamp, the switch's poll, its hand-off to the \
             egress port), mean µs per part: host stack = sending host to the first switch's \
             kernel; RX ring = kernel stamp to poll; residence = poll to hand-off; link = \
             hand-off to the next kernel stamp (the last: the receiving host's). Frames with \
             a record the breakdown cannot use (no stamp, records on two clocks, more \
             switches than slots) are left out and counted."
        )
    }));
    let mut head = vec!["part".to_string()];
    head.extend(
        with.iter()
            .map(|w| format!("{:.0} % NDR", w.0.fraction * 100.0)),
    );
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut row = |name: String, f: &dyn Fn(&PathParts) -> String| {
        let mut r: Vec<Cell> = vec![name.into()];
        r.extend(with.iter().map(|w| Cell::from(f(w.2))));
        rows.push(r);
    };
    let us = |ns: f64| fmt::us(ns.max(0.0).round() as u64);
    let first = if local {
        "outside the switches"
    } else {
        "host stack (sender)"
    };
    row(first.into(), &|p| us(p.host_stack.mean_ns));
    for i in 0..n {
        let lvl = with[0].2.hop[i].level;
        let who = format!("switch {} (level {lvl})", i + 1);
        if !local {
            row(format!("{who}: RX ring"), &|p| us(p.hop[i].rx_ring.mean_ns));
        }
        row(format!("{who}: residence"), &|p| {
            us(p.hop[i].residence.mean_ns)
        });
        row(format!("{who}: queue ahead (frames)"), &|p| {
            format!("{:.2}", p.hop[i].queue_mean)
        });
        if local {
            continue;
        }
        let to = if i + 1 < n {
            format!("switch {}", i + 2)
        } else {
            "host".into()
        };
        row(format!("{who} → {to}: link"), &|p| {
            us(p.hop[i].link.mean_ns)
        });
    }
    row("sum of the parts".into(), &|p| {
        format!(
            "{} ({:.1} %)",
            us(by_kind(p).iter().sum()),
            p.sum_ratio * 100.0
        )
    });
    row("measured (mean)".into(), &|p| us(p.measured.mean_ns));
    row("frames (left out)".into(), &|_| String::new());
    if let Some(last) = rows.last_mut() {
        for (c, w) in last.iter_mut().skip(1).zip(&with) {
            *c = format!("{} ({})", w.2.frames, w.1.incomplete).into();
        }
    }
    b.push(Block::Table {
        head,
        rows,
        numeric: true,
    });
    b
}

/// The summary's lines on where the latency went, at the lowest load with a breakdown
/// of its longest path.
fn breakdown_lines(loads: &[LoadLatency]) -> Vec<String> {
    let Some((l, h, p)) = loads.iter().find_map(|l| {
        let h = l.trial.probe.as_ref()?.hops.as_ref()?;
        Some((l, h, longest(h)?))
    }) else {
        return vec![];
    };
    let parts = by_kind(p);
    let [host, rings, res, links] = parts.map(|ns| fmt::us(ns.max(0.0).round() as u64));
    let us = |ns: f64| fmt::us(ns.max(0.0).round() as u64);
    let sum = format!(
        "{} ({:.1} % of {})",
        us(parts.iter().sum()),
        p.sum_ratio * 100.0,
        us(p.measured.mean_ns)
    );
    vec![
        format!(
            "Where the stream's time went ({}-switch paths, {:.0} % NDR), mean µs:",
            p.hops,
            l.fraction * 100.0
        ),
        if h.switch_clocks {
            format!("residence {res} (switches' own clocks) + outside the switches {host} = {sum}")
        } else {
            format!(
                "host stack {host} + RX rings {rings} + residence {res} + links {links} = {sum}"
            )
        },
    ]
}

/// The summary's rows: a heading line and one line per load, in the columns of the
/// summary's trial table (label, load received, stream loss %, the six figures).
pub(super) fn summary_lines(r: &RunResults) -> Vec<String> {
    let loads = loads(r);
    if loads.is_empty() {
        return vec![];
    }
    let mut v = vec![format!(
        "Latency under load ({} stream beside a load at % of the NDR):",
        stream_rate(r).map_or("a".into(), fmt::rate)
    )];
    v.push(format!(
        "{:<10} {:>12} {:>12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "load",
        "load rx",
        "stream loss%",
        "min µs",
        "p50 µs",
        "p90 µs",
        "p99 µs",
        "p99.9 µs",
        "max µs"
    ));
    for l in loads {
        let p = l.trial.probe.clone().unwrap_or_default();
        let loss = if p.sent == 0 {
            "n/a".to_string()
        } else {
            fmt::pct(p.lost as f64 / p.sent as f64)
        };
        v.push(format!(
            "{:<10} {:>12} {:>12} {}",
            format!("{:.0} % NDR", l.fraction * 100.0),
            fmt::rate(l.trial.received_pps),
            loss,
            columns(&p.latency)
        ));
    }
    v.extend(breakdown_lines(loads));
    v
}
