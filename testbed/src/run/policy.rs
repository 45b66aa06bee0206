//! The up-port policy of a run (`docs/testbed.md`, "Up-port policy"). Under
//! `up_policy = "flowlets"` (the default) a flow keeps its up port while its frames are
//! closer together than the flowlet gap, so it is not reordered unless it pauses for
//! longer than the gap — and a pause longer than the spread of the paths' latencies
//! lets the last frame on the old path arrive before the first on the new one. The gap
//! is therefore taken from a measurement: before the run's trials, one calibration
//! trial with per-packet choice (gap 0) at the run's highest rate (a search's first
//! rate, else the run's rate), 1 s; its one-way latency spread, p99.9 less the minimum,
//! rounded up to 10 µs and held within [`MIN_GAP_US`]..=[`MAX_GAP_US`], becomes every
//! switch's gap (the `flowlets` management op). The spread covers every pair's paths
//! together, so it bounds the spread between one pair's equal-cost paths from above:
//! the gap errs towards pinning. `[switch] flowlet_gap_us` in the description sets the
//! gap instead. After a search that found an NDR, the NDR is run once per policy, per
//! packet then flowlets, so the report shows what each costs in loss, reordering and
//! latency at one rate. A run without load (its latency stream alone) keeps the gap the
//! switches have.

use crate::error::{Result, TestbedError};
use crate::fabric::desc::{UpPolicy, START_FLOWLET_GAP_US};
use crate::fabric::mgmt;
use crate::fabric::state::State;
use crate::report::results::{GapSource, PolicyCost, Trial, UpPolicyResult};
use crate::traffic::progress::Progress;
use crate::traffic::{Generator, TrafficSpec};
use canopy_proto::mgmt::{FlowletGap, Request};
use std::time::Duration;

/// The shortest gap derived from a spread (µs).
pub const MIN_GAP_US: u64 = 20;
/// The longest gap derived from a spread (µs): a spread beyond it is a fabric in
/// overload whose queues are full, where pinning longer buys little.
pub const MAX_GAP_US: u64 = 10_000;
/// The calibration trial's length.
pub const CALIBRATION_S: f64 = 1.0;

const MGMT_TIMEOUT: Duration = Duration::from_secs(5);

/// The flowlet gap (µs) for a measured one-way latency spread (ns): rounded up to
/// 10 µs, within [`MIN_GAP_US`]..=[`MAX_GAP_US`].
pub fn gap_for_spread(spread_ns: u64) -> u64 {
    (spread_ns.div_ceil(10_000) * 10).clamp(MIN_GAP_US, MAX_GAP_US)
}

/// The one-way latency spread of a trial, p99.9 less the minimum (ns); None when it
/// timed no frame.
pub fn spread_of(t: &Trial) -> Option<u64> {
    (t.latency.count > 0).then(|| t.latency.p999_ns.saturating_sub(t.latency.min_ns))
}

/// Set every switch's flowlet gap (µs, 0: per packet). A switch that does not take it
/// (stopped by a drill, or not answering) costs a warning, not the run: its name is
/// returned.
pub fn set_gap(state: &State, gap_us: u64) -> Vec<String> {
    let mut missed = Vec::new();
    for s in &state.switches {
        let req = Request::Flowlets {
            gap_us: Some(gap_us),
        };
        let why = match mgmt::typed::<FlowletGap>(&s.mgmt(), &req, MGMT_TIMEOUT) {
            Ok(a) if a.gap_us == gap_us => continue,
            Ok(a) => format!("asked for {gap_us} µs, it has {}", a.gap_us),
            Err(e) => e.to_string(),
        };
        tracing::warn!(switch = %s.name, "flowlet gap not set: {why}");
        missed.push(s.name.clone());
    }
    missed
}

/// The gap the first switch that answers has (µs).
fn current_gap(state: &State) -> Option<u64> {
    let req = Request::Flowlets { gap_us: None };
    state.switches.iter().find_map(|s| {
        mgmt::typed::<FlowletGap>(&s.mgmt(), &req, MGMT_TIMEOUT)
            .ok()
            .map(|a| a.gap_us)
    })
}

/// Before the run's trials: the fabric's policy and gap, calibrated at `rate` when the
/// description leaves the gap to the run (None on a bmv2 fabric, which has no
/// adaptive choice to set).
pub fn prepare(
    state: &State,
    spec: &TrafficSpec,
    g: &mut Generator,
    rate: f64,
) -> Result<Option<UpPolicyResult>> {
    if state.target == "bmv2" {
        return Ok(None);
    }
    let policy = state.up_policy;
    let mut r = UpPolicyResult {
        policy: policy.name().into(),
        gap_us: 0,
        source: GapSource::None,
        calibration: None,
        spread_ns: None,
        costs: Vec::new(),
        not_set: Vec::new(),
    };
    match (policy, state.flowlet_gap_set) {
        (UpPolicy::PerPacket, _) => {}
        (UpPolicy::Flowlets, Some(g)) => {
            r.gap_us = g;
            r.source = GapSource::Set;
        }
        (UpPolicy::Flowlets, None) if rate <= 0.0 => {
            r.gap_us = current_gap(state).unwrap_or(START_FLOWLET_GAP_US);
            r.source = GapSource::Kept;
        }
        (UpPolicy::Flowlets, None) => {
            set_gap(state, 0);
            // (the run's pcap files are its trials', not the calibration's)
            let cal = TrafficSpec {
                search: None,
                duration_s: Some(CALIBRATION_S),
                count: None,
                probe_pps: None,
                pcap_tx: None,
                pcap_rx: None,
                ..spec.clone()
            };
            let progress = Progress::new(spec.quiet);
            progress.set_prefix("flowlet gap: per-packet calibration".into());
            let t = g.trial(&cal, rate, &progress)?;
            progress.finish("done");
            r.spread_ns = spread_of(&t);
            r.gap_us = match r.spread_ns {
                Some(spread) => gap_for_spread(spread),
                // frames went out and none came back in time: a fabric so far in
                // overload that its spread is beyond any gap (guests under TCG at the
                // generator's ceiling)
                None if t.sent > 0 => {
                    tracing::warn!(
                        sent = t.sent,
                        "the flowlet calibration timed no frame of {} sent: the longest gap",
                        t.sent
                    );
                    MAX_GAP_US
                }
                None => return Err(TestbedError::traffic(
                    "up_policy",
                    "the flowlet calibration trial sent no frame: no spread to take the gap from",
                )),
            };
            r.source = GapSource::Measured;
            r.calibration = Some(t);
            tracing::info!(
                spread_us = r.spread_ns.map(|s| s / 1000),
                gap_us = r.gap_us,
                rate_pps = rate.round(),
                "flowlet gap from the per-packet calibration's latency spread"
            );
        }
    }
    r.not_set = set_gap(state, r.gap_us);
    Ok(Some(r))
}

/// After a search: `rate` once per policy with `spec`'s traffic, per packet first, the
/// run's own policy and gap last (and left in force).
pub fn compare(
    state: &State,
    spec: &TrafficSpec,
    g: &mut Generator,
    rate: f64,
    r: &mut UpPolicyResult,
) -> Result<()> {
    if r.gap_us == 0 {
        return Ok(());
    }
    // (the run's pcap files are its trials', not these)
    let one = TrafficSpec {
        search: None,
        probe_pps: None,
        pcap_tx: None,
        pcap_rx: None,
        ..spec.clone()
    };
    let progress = Progress::new(spec.quiet);
    for (policy, gap) in [(UpPolicy::PerPacket, 0), (UpPolicy::Flowlets, r.gap_us)] {
        for m in set_gap(state, gap) {
            if !r.not_set.contains(&m) {
                r.not_set.push(m);
            }
        }
        progress.set_prefix(format!("policy {} at the NDR", policy.name()));
        let trial = g.trial(&one, rate, &progress)?;
        r.costs.push(PolicyCost {
            policy: policy.name().into(),
            gap_us: gap,
            trial,
        });
    }
    progress.finish("done");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gap_rounds_the_spread_up_to_10_us_within_its_bounds() {
        assert_eq!(gap_for_spread(0), MIN_GAP_US);
        assert_eq!(gap_for_spread(20_001), 30);
        assert_eq!(gap_for_spread(412_000), 420);
        assert_eq!(gap_for_spread(1_000_000), 1_000);
        assert_eq!(gap_for_spread(50_000_000), MAX_GAP_US);
    }
}
