//! The results of `canopy-vethbench` (`results.json`; `docs/vethbench.md`).

use super::{GeneratorCeiling, Header};
use serde::{Deserialize, Serialize};

/// One-way latency results, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyStats {
    /// Stamped frames sent (after the warm-up).
    pub sent: u64,
    /// Stamped frames received back (after the warm-up).
    pub received: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Largest.
    pub max_ns: u64,
    /// Smallest.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
}

/// Max-rate pass results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MaxRate {
    /// "trafgen" or "own".
    pub generator: String,
    /// Seconds the sender ran.
    pub seconds: f64,
    /// Frames the sender's veth transmitted.
    pub offered: u64,
    /// Frames counted on the receiver's veth.
    pub forwarded: u64,
    /// offered / seconds.
    pub offered_pps: f64,
    /// forwarded / seconds.
    pub forwarded_pps: f64,
    /// 100 × (offered − forwarded) / offered.
    pub loss_pct: f64,
    /// Drops the kernel counted on the forwarder's ingress veth.
    pub ingress_drops: u64,
}

/// Fixed-rate pass results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fixed {
    /// Offered rate asked for.
    pub target_pps: u64,
    /// Frames per burst.
    pub burst: usize,
    /// Seconds of the measurement window.
    pub seconds: f64,
    /// Frames the sender handed to the kernel.
    pub offered: u64,
    /// offered / sender run time.
    pub offered_pps: f64,
    /// Frames counted on the receiver's veth.
    pub forwarded: u64,
    /// forwarded / sender run time.
    pub forwarded_pps: f64,
    /// CPU time of the sending thread per forwarded frame, ns (its `send` calls and the
    /// kernel work done in its context: the veth transmit, and for the bridge the whole
    /// forwarding, which runs in the sender's softirq).
    pub sender_ns_per_pkt: f64,
    /// Forwarder process CPU (utime + stime, all threads) per forwarded frame, ns;
    /// None where there is no process (direct, bridge).
    pub process_ns_per_pkt: Option<f64>,
    /// Share of one core the forwarder process used.
    pub process_core_share: Option<f64>,
    /// Machine-wide busy CPU (all CPUs, sender and forwarder and everything else) per
    /// forwarded frame, ns.
    pub machine_ns_per_pkt: f64,
    /// Machine-wide softirq CPU per forwarded frame, ns.
    pub softirq_ns_per_pkt: f64,
}

/// One forwarder's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForwarderResult {
    /// Forwarder name.
    pub forwarder: String,
    /// Why it was skipped, if it was.
    pub skipped: Option<String>,
    /// Error that ended its run early, if any.
    pub error: Option<String>,
    /// Seconds until the first frame came through.
    pub start_seconds: Option<f64>,
    /// Max-rate pass.
    pub max_rate: Option<MaxRate>,
    /// Fixed-rate pass.
    pub fixed: Option<Fixed>,
    /// Latency pass.
    pub latency: Option<LatencyStats>,
    /// Seconds each pass after the first took to drain: until the receiver saw no frame for
    /// [`DRAIN_QUIET`](crate::vethbench::DRAIN_QUIET), so a pass never measures the backlog
    /// of the one before (a slow forwarder can take seconds).
    #[serde(default)]
    pub drained_seconds: Vec<f64>,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Command, start, machine (with the load average before) and version.
    #[serde(flatten)]
    pub header: Header,
    /// 1-minute load average after the bench (before it: `machine.load_before`).
    pub load_after: Option<f64>,
    /// Frame length without FCS.
    pub frame_len: usize,
    /// Forwarder core and generator core.
    pub cores: (usize, usize),
    /// Whether offloads were turned off on every veth.
    pub offloads_off: bool,
    /// Per forwarder.
    pub results: Vec<ForwarderResult>,
    /// canopy-switch's ports (`afpacket v2`, `afpacket v3`, `afxdp`, `afxdp-skb`) and the
    /// adaptive spins used.
    pub canopy: (String, u32),
    /// The senders side by side on the direct pair, before the forwarders (None when
    /// not asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<Senders>,
}

/// trafgen and the fabric generator on the same direct veth pair in the same run, one
/// after the other, 64 B frames by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Senders {
    /// trafgen into the pair's sink (nobody listens on the far end).
    pub trafgen: Option<MaxRate>,
    /// Why trafgen did not run (not installed, or the sender core is not CPU 0).
    pub trafgen_skipped: Option<String>,
    /// The fabric generator into the same sink: stamped frames, sequence numbers.
    pub generator: GeneratorCeiling,
    /// The fabric generator into its own receiver on the far end, which accounts every
    /// frame.
    pub generator_rx: GeneratorCeiling,
}
