//! What `canopyd` knows about a running fabric at one instant: the contract between the
//! daemon's pollers (which fill it) and its readers (`/metrics`, `/readyz`, the
//! `canopyctl fabric` views). Plain data, cloned out of the daemon under a short lock.

use crate::mgmt::{CountersReport, Health};
use serde::{Deserialize, Serialize};

/// Upper bounds (seconds) of the management probe round-trip histogram: a probe over a
/// Unix socket takes 100–500 µs, over TCP to a guest a few ms.
pub const PROBE_BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_075, 0.000_1, 0.000_15, 0.000_2, 0.000_3, 0.000_5, 0.000_75, 0.001,
    0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

/// Upper bounds (seconds) of the traffic generator's one-way latency histogram: 1 µs
/// steps to 10 µs, 2.5 µs to 20 µs and 5 µs to 50 µs, where a frame's way through a
/// switch or a small fabric falls, so `histogram_quantile` is within a few µs there;
/// then coarser up to 1 s.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_001,
    0.000_002,
    0.000_003,
    0.000_004,
    0.000_005,
    0.000_006,
    0.000_007,
    0.000_008,
    0.000_009,
    0.000_01,
    0.000_012_5,
    0.000_015,
    0.000_017_5,
    0.000_02,
    0.000_025,
    0.000_03,
    0.000_035,
    0.000_04,
    0.000_045,
    0.000_05,
    0.000_06,
    0.000_075,
    0.000_1,
    0.000_15,
    0.000_25,
    0.000_5,
    0.001,
    0.002_5,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
];

/// A histogram with fixed upper bounds, Prometheus-style: `counts[i]` is the number of
/// observations `<= bounds[i]` that are above `bounds[i-1]` (not cumulative; the
/// exposition makes them cumulative), `count` includes observations above the last
/// bound (the `+Inf` bucket), `sum` is in the bounds' unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramSnapshot {
    /// Upper bounds, ascending.
    pub bounds: Vec<f64>,
    /// Observations per bucket (same length as `bounds`).
    pub counts: Vec<u64>,
    /// All observations, including those above the last bound.
    pub count: u64,
    /// Sum of all observations.
    pub sum: f64,
}

impl HistogramSnapshot {
    /// An empty histogram over `bounds` (ascending).
    pub fn new(bounds: &[f64]) -> Self {
        HistogramSnapshot {
            bounds: bounds.to_vec(),
            counts: vec![0; bounds.len()],
            count: 0,
            sum: 0.0,
        }
    }

    /// Record `n` observations of `v`.
    pub fn observe_n(&mut self, v: f64, n: u64) {
        if n == 0 || !v.is_finite() {
            return;
        }
        if let Some(i) = self.bounds.iter().position(|&b| v <= b) {
            self.counts[i] += n;
        }
        self.count += n;
        self.sum += v * n as f64;
    }

    /// Record one observation.
    pub fn observe(&mut self, v: f64) {
        self.observe_n(v, 1);
    }

    /// Cumulative counts per bound (what the exposition's `_bucket{le=...}` lines show).
    pub fn cumulative(&self) -> Vec<u64> {
        let mut acc = 0;
        self.counts
            .iter()
            .map(|c| {
                acc += c;
                acc
            })
            .collect()
    }
}

/// One switch as the daemon sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchSnapshot {
    /// The switch's name in the topology (a metric label).
    pub name: String,
    /// Its management endpoint, as configured (for people, not a metric label).
    pub endpoint: String,
    /// Answering probes (false after `missed_probes` misses in a row).
    pub up: bool,
    /// The last probe's error, when the last probe failed.
    pub last_error: Option<String>,
    /// The last `health` answer (None until the first one; none from a P4Runtime
    /// target).
    pub health: Option<Health>,
    /// The instance the switch answers as: its `health` instance, or a P4Runtime
    /// target's pipeline cookie (None until the first answer). A new one is a restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<u64>,
    /// The last `counters` answer (None until the first one).
    pub counters: Option<CountersReport>,
    /// Ports the daemon has taken out of this switch's groups (dead or leading to a
    /// switch that cannot deliver), in port order.
    pub pruned_ports: Vec<u16>,
    /// Ports set administratively down through the daemon (re-applied on restart).
    pub admin_down: Vec<u16>,
    /// Whether the tables the switch runs are the ones the daemon wants it to run.
    pub tables_current: bool,
    /// Successful table pushes since the daemon started.
    pub pushes_total: u64,
    /// Failed table pushes (refused or unreachable) since the daemon started.
    pub push_failures_total: u64,
    /// Times the switch was declared down since the daemon started.
    pub down_events_total: u64,
    /// Times a new process (another pid) answered for this switch.
    pub restarts_total: u64,
    /// Management probe round trips (`health` requests), seconds.
    pub probe_rtt: HistogramSnapshot,
}

/// What the traffic generator reported to the daemon (`canopy-testbed run` sends one
/// report per trial while a daemon runs the fabric).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficSnapshot {
    /// Frames sent by the generator (trials reported so far).
    pub sent_total: u64,
    /// Frames received.
    pub received_total: u64,
    /// Frames lost (sent and never received).
    pub lost_total: u64,
    /// Frames delivered to the wrong host.
    pub misdelivered_total: u64,
    /// One-way latency, seconds.
    pub latency: HistogramSnapshot,
}

impl Default for TrafficSnapshot {
    fn default() -> Self {
        TrafficSnapshot {
            sent_total: 0,
            received_total: 0,
            lost_total: 0,
            misdelivered_total: 0,
            latency: HistogramSnapshot::new(LATENCY_BUCKETS),
        }
    }
}

/// The whole fabric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FabricSnapshot {
    /// The fabric's name (from the configuration).
    pub fabric: String,
    /// Topology spec.
    pub topology: String,
    /// Header kind.
    pub kind: String,
    /// Seconds since the daemon started.
    pub uptime_s: f64,
    /// Every switch is up and runs the tables the daemon wants (`/readyz`).
    pub ready: bool,
    /// Per switch, in topology order.
    pub switches: Vec<SwitchSnapshot>,
    /// Generator reports (None until the first one).
    pub traffic: Option<TrafficSnapshot>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_and_inf() {
        let mut h = HistogramSnapshot::new(&[1.0, 2.0]);
        h.observe(0.5);
        h.observe_n(2.0, 3);
        h.observe(9.0);
        h.observe(f64::NAN);
        assert_eq!(h.counts, vec![1, 3]);
        assert_eq!(h.cumulative(), vec![1, 4]);
        assert_eq!(h.count, 5);
        assert!((h.sum - 15.5).abs() < 1e-9);
    }
}
