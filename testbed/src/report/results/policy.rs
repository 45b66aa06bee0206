//! The up-port policy a run used, how its flowlet gap was chosen, and what each policy
//! cost at one rate, side by side (`run::policy`).

use super::Trial;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a run's flowlet gap came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GapSource {
    /// Derived from the latency spread of a per-packet calibration trial.
    Measured,
    /// `[switch] flowlet_gap_us` in the description.
    Set,
    /// `up_policy = "per-packet"`: no gap.
    None,
    /// A run without load (its latency stream alone) has nothing to calibrate with: the
    /// gap the switches had.
    Kept,
}

/// The up-port policy of a run's trials, and the evidence behind its gap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UpPolicyResult {
    /// `flowlets` or `per-packet`.
    pub policy: String,
    /// The flowlet gap of the run's trials, µs (0: per-packet).
    pub gap_us: u64,
    /// Where the gap came from.
    pub source: GapSource,
    /// With [`GapSource::Measured`]: the per-packet trial whose latency spread set it.
    pub calibration: Option<Trial>,
    /// Its one-way latency spread, p99.9 less the minimum (ns).
    pub spread_ns: Option<u64>,
    /// Each policy at one rate (the NDR after a search), one after the other with the
    /// same traffic; empty when not compared.
    pub costs: Vec<PolicyCost>,
    /// Switches that did not take a gap the run set (stopped by a drill, or not
    /// answering): they kept the one they had.
    #[serde(default)]
    pub not_set: Vec<String>,
}

/// One policy's trial in the side-by-side comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PolicyCost {
    /// `flowlets` or `per-packet`.
    pub policy: String,
    /// The flowlet gap it ran with, µs (0: per-packet).
    pub gap_us: u64,
    /// Its trial.
    pub trial: Trial,
}
