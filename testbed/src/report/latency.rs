//! The "Latency under load" part of a run's report: after a search, the latency stream's
//! figures at each fraction of the NDR ([`SearchResult::latency`]), in the report, in the
//! terminal summary and as an HdrHistogram log (`latency.hlog`, [`super::hlog`]).

use super::doc::{Block, Cell};
use super::fmt;
use super::results::{Latency, LoadLatency, RunResults};

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
pub(super) fn blocks(r: &RunResults) -> Vec<Block> {
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
        "min µs",
        "p50 µs",
        "p90 µs",
        "p99 µs",
        "p99.9 µs",
        "max µs",
        "load p50 µs",
        "load p99 µs",
    ]
    .iter()
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
    b
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
    v
}
