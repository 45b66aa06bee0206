//! The "Up-port policy" part of a run's report: the policy of the run's trials, where
//! its flowlet gap came from, and each policy's trial at the NDR side by side
//! ([`super::results::UpPolicyResult`], measured by `run::policy`).

use super::doc::{Block, Cell};
use super::fmt;
use super::latency::{self, cells};
use super::results::{GapSource, RunResults, UpPolicyResult};

/// The policy and its gap in a sentence.
fn sentence(p: &UpPolicyResult) -> String {
    match p.source {
        GapSource::None => format!(
            "Up ports: {} (every frame of an adaptive group chooses the least occupied port)",
            p.policy
        ),
        GapSource::Kept => format!(
            "Up ports: {}, gap {} µs (kept: a run without load has no spread to measure)",
            p.policy, p.gap_us
        ),
        GapSource::Set => format!(
            "Up ports: {}, gap {} µs (set by the description's [switch] flowlet_gap_us)",
            p.policy, p.gap_us
        ),
        GapSource::Measured => {
            let at = p.calibration.as_ref().map_or(String::new(), |t| {
                format!(" at {}", fmt::rate(t.offered_pps))
            });
            format!(
                "Up ports: {}, gap {} µs (per-packet latency spread {} µs{at})",
                p.policy,
                p.gap_us,
                p.spread_ns.map_or("n/a".into(), fmt::us)
            )
        }
    }
}

/// The report section. Nothing for a run without a policy (bmv2).
pub(super) fn blocks(r: &RunResults) -> Vec<Block> {
    let Some(p) = &r.up_policy else {
        return vec![];
    };
    let mut b = vec![Block::Heading(2, "Up-port policy".into())];
    b.push(Block::Para(format!("{}.", sentence(p))));
    if !p.not_set.is_empty() {
        b.push(Block::Para(format!(
            "Not set on {} (stopped or not answering; they kept the gap they had).",
            p.not_set.join(", ")
        )));
    }
    if p.source == GapSource::Measured {
        b.push(Block::Para(
            "The gap is the one-way latency spread (p99.9 less the minimum) of a 1-s calibration \
             trial with per-packet choice at the run's highest rate, rounded up to 10 µs \
             (20 µs..10 ms): a flow that pauses for longer than the paths' latencies differ \
             cannot overtake itself when it moves to another port. The calibration ran before \
             the counters were read; it is not among the trials."
                .into(),
        ));
    }
    if p.costs.is_empty() {
        return b;
    }
    b.push(Block::Para(
        "What each policy costs at the NDR: the same traffic once per policy, per packet first."
            .into(),
    ));
    let head: Vec<String> = [
        "policy",
        "gap µs",
        "offered",
        "received",
        "loss %",
        "reordered %",
        "reordered flows",
        "worst flow %",
    ]
    .iter()
    .chain(latency::HEAD.iter())
    .map(|s| s.to_string())
    .collect();
    let rows = p
        .costs
        .iter()
        .map(|c| {
            let t = &c.trial;
            let mut row: Vec<Cell> = vec![
                c.policy.clone().into(),
                c.gap_us.to_string().into(),
                fmt::rate(t.offered_pps).into(),
                fmt::rate(t.received_pps).into(),
                fmt::pct(t.loss_ratio).into(),
                fmt::pct(t.reordered_ratio()).into(),
                format!(
                    "{} of {}",
                    t.flow_reorder.reordered_flows, t.flow_reorder.flows
                )
                .into(),
                fmt::pct(t.flow_reorder.worst_ratio).into(),
            ];
            row.extend(cells(&t.latency).into_iter().map(Cell::from));
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

/// The summary's lines: the policy and its gap, then a line per policy compared at the
/// NDR.
pub(super) fn summary_lines(r: &RunResults) -> Vec<String> {
    let Some(p) = &r.up_policy else {
        return vec![];
    };
    let mut lines = vec![sentence(p)];
    for c in &p.costs {
        let t = &c.trial;
        lines.push(format!(
            "  at the NDR, {:<10} loss {} %, reordered {} % ({} of {} flows), p99 {} µs",
            format!("{}:", c.policy),
            fmt::pct(t.loss_ratio),
            fmt::pct(t.reordered_ratio()),
            t.flow_reorder.reordered_flows,
            t.flow_reorder.flows,
            cells(&t.latency)[3]
        ));
    }
    lines
}
