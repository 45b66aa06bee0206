//! What the testbed's commands measured, as they write it: one family of result types
//! whose JSON files all start with the same [`Header`] (the command, when it started,
//! the machine, the version), flattened into each.
//!
//! | type | file | written by |
//! |---|---|---|
//! | [`RunResults`] | `results.json` of `canopy-testbed run` / `replay` / `demo` | [`super::run`] |
//! | [`soak::SoakReport`] | `soak.json` of `canopy-testbed soak` | [`super::soak`] |
//! | [`vethbench::Report`] | `results.json` of `canopy-vethbench` | [`super::vethbench`] |
//!
//! A run's results: the generator fills [`Trial`]s (one per fixed-rate run, one per step
//! of an NDR/PDR search); the testbed adds switch counters and per-link loads read from
//! the switches' management endpoints before and after each trial. Every number is
//! measured; a field that could not be measured is `None`, never a guess.

pub mod hops;
pub mod policy;
pub mod soak;
pub mod vethbench;

pub use hops::{HopBreakdown, HopParts, Part, PathParts};
pub use policy::{GapSource, PolicyCost, UpPolicyResult};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What every report starts with: what ran, when, where, which build.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    /// The exact command line.
    pub command: String,
    /// Start time, RFC 3339 UTC.
    pub started: String,
    /// Machine: CPUs, kernel, load average before the command.
    pub machine: Machine,
    /// Canopy version (`CARGO_PKG_VERSION`) and git revision when known.
    pub version: String,
}

/// Version of this schema, written into every results file.
pub const SCHEMA_VERSION: u32 = 1;

/// Where the JSON Schema of `results.json` is kept, from the workspace root.
pub const JSON_SCHEMA_PATH: &str = "docs/results.schema.json";

/// The JSON Schema (draft 2020-12) of `results.json`, generated from [`RunResults`] and
/// the types in it (their doc comments are its descriptions): what
/// [`JSON_SCHEMA_PATH`] holds. It lists every field and its type; a field that may be
/// missing is not `required`, and properties it does not list are allowed (a reader of
/// this schema version keeps working when a later build adds a field).
pub fn json_schema() -> serde_json::Value {
    let mut s = schemars::schema_for!(RunResults);
    s.insert(
        "title".into(),
        format!("results.json of canopy-testbed run / replay / demo, schema {SCHEMA_VERSION}")
            .into(),
    );
    s.to_value()
}

/// [`json_schema`] as pretty JSON with a final newline: the text of
/// [`JSON_SCHEMA_PATH`].
pub fn json_schema_text() -> crate::error::Result<String> {
    super::to_json(&json_schema(), "the results schema")
}

/// A whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunResults {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// What ran, where and how.
    pub meta: RunMeta,
    /// Every trial, in the order they ran.
    pub trials: Vec<Trial>,
    /// The NDR/PDR search, when the run was one.
    pub search: Option<SearchResult>,
    /// Per-switch counters over the whole run (deltas).
    pub switches: Vec<SwitchDelta>,
    /// Per-link frame counts over the run, for the utilisation plot.
    pub links: Vec<LinkLoad>,
    /// What limited the run, with the evidence (None: not judged).
    #[serde(default)]
    pub limit: Option<Limit>,
    /// The up-port policy of the run's trials, its flowlet gap, and what each policy
    /// cost (None: a bmv2 fabric, or a run before policies were recorded).
    #[serde(default)]
    pub up_policy: Option<UpPolicyResult>,
}

/// What limited a run (`run::limit`): the cause, then the evidence, one fact a line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Limit {
    /// The generator (its senders or its receivers), a switch's CPU, a ring or port
    /// inside a switch, frames lost outside the switches, the machine's CPU, or nothing.
    pub by: String,
    /// What shows it: counters, ring overflows, CPU shares.
    pub evidence: Vec<String>,
}

/// What ran, where and how.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunMeta {
    /// Command, start, machine and version (`command`, `started`, `machine`, `version`
    /// in the JSON, next to the fields below).
    #[serde(flatten)]
    pub header: Header,
    /// Fabric name (the description's `name`).
    pub fabric: String,
    /// Topology spec (e.g. `fat-tree:k=4`).
    pub topology: String,
    /// Header kind (`sliced`, `transit`, `path-id`).
    pub kind: String,
    /// Forwarding target (`canopy`, later `bmv2`).
    pub target: String,
    /// Hosts that sent and received.
    pub hosts: usize,
    /// Switch processes.
    pub switches: usize,
    /// Traffic pattern name with its parameters (e.g. `hotspot:fraction=0.2,target=0`).
    pub pattern: String,
    /// Frame length in bytes without FCS (64 B on the wire = 60 here).
    pub frame_len: usize,
    /// How the switches ran and which CPUs the switch host and the generator had.
    #[serde(default)]
    pub cpus: CpuSplit,
    /// The generator's own ceiling, measured at the start of the run (a search's run):
    /// what it sends and receives over one veth pair with nothing in between.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator_ceiling: Option<GeneratorCeiling>,
    /// The bmv2 target's `simple_switch` and its build (performance or default), as
    /// `up` read it from the binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_build: Option<String>,
    /// Where the switches ran when in QEMU guests: the accelerator and why, and under TCG
    /// that the figures are not comparable with namespaces or real VMs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guests: Option<String>,
}

/// How the machine's CPUs were split between the switches and the generator.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CpuSplit {
    /// Polling threads of the shared `canopy-switch host` (0: one process per switch).
    pub host_threads: usize,
    /// CPUs they were pinned to (empty: not pinned).
    pub host_cores: Vec<usize>,
    /// CPUs the generator was confined to (empty: any).
    pub generator_cores: Vec<usize>,
}

impl CpuSplit {
    /// One short line: who ran where.
    pub fn describe(&self, switches: usize) -> String {
        let gen = if self.generator_cores.is_empty() {
            "generator on any CPU".to_string()
        } else {
            format!("generator on CPUs {:?}", self.generator_cores)
        };
        if self.host_threads == 0 {
            return format!("{switches} processes, one per switch; {gen}");
        }
        format!(
            "one shared host, {} thread(s) {}; {gen}",
            self.host_threads,
            if self.host_cores.is_empty() {
                "not pinned".to_string()
            } else {
                format!("on CPUs {:?}", self.host_cores)
            }
        )
    }
}

/// The generator's own ceiling (`traffic::ceiling`): its sender lanes at full speed on
/// one veth pair, into a sink or into its own receiver, with stamped frames.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GeneratorCeiling {
    /// Sender threads (lanes), each sending as its own host on its own TX socket.
    pub tx_threads: usize,
    /// Frames per `send()`.
    pub burst: usize,
    /// Frame length without FCS.
    pub frame_len: usize,
    /// Send time, seconds.
    pub seconds: f64,
    /// Frames handed to the kernel.
    pub sent: u64,
    /// `sent / seconds`.
    pub sent_pps: f64,
    /// Frames sent in the 100 ms warm-up before (not in `sent`).
    pub warmup_sent: u64,
    /// Frames the far end of the pair counted (kernel interface counter), warm-up
    /// included: `warmup_sent + sent` when the pair lost none.
    pub sink_rx: u64,
    /// Mean time from a burst's transmit stamp to the return of its `send()`, ns.
    pub burst_span_mean_ns: f64,
    /// Longest such span, ns: the most a transmit stamp is early.
    pub burst_span_max_ns: u64,
    /// What the generator's receiver accounted on the far end (None: a plain sink).
    pub receiver: Option<CeilingRx>,
    /// Measured by `up` with its defaults (64-B frames, one sender thread), not with
    /// the run's own traffic (a search measures that before its trials).
    #[serde(default)]
    pub at_up: bool,
}

/// The receive side of a [`GeneratorCeiling`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CeilingRx {
    /// Distinct frames received.
    pub received: u64,
    /// `received / seconds` (the sender's seconds).
    pub received_pps: f64,
    /// `sent - received`.
    pub lost: u64,
    /// Frames received twice.
    pub duplicates: u64,
    /// Frames received after a higher sequence number of their flow.
    pub reordered: u64,
    /// Frames that were not the measurement's.
    pub foreign: u64,
    /// Frames the kernel dropped because the receive ring was full.
    pub kernel_drops: u64,
    /// One-way latency: median, 99th percentile and largest, ns.
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// Largest, ns.
    pub max_ns: u64,
}

/// The machine a command measured on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Machine {
    /// Online CPUs.
    pub cpus: usize,
    /// `uname -r`.
    pub kernel: String,
    /// CPU model name from `/proc/cpuinfo`, when present.
    pub cpu_model: Option<String>,
    /// 1-minute load average before the command.
    pub load_before: Option<f64>,
}

/// One traffic trial at one offered rate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Trial {
    /// Offered rate over all senders, frames per second.
    pub offered_pps: f64,
    /// Rate the senders actually achieved (sent / send time).
    pub sent_pps: f64,
    /// Received frames per second over the send time.
    pub received_pps: f64,
    /// Send time in seconds (the receive window after it is not included).
    pub duration_s: f64,
    /// Frames handed to the kernel by all senders.
    pub sent: u64,
    /// Warm-up frames sent before the trial at the same rate (not counted anywhere
    /// else; they cross the switches, so the switch counters include them).
    #[serde(default)]
    pub warmup_sent: u64,
    /// Warm-up frames received.
    #[serde(default)]
    pub warmup_received: u64,
    /// Frames received by the right host (each counted once).
    pub received: u64,
    /// `sent - received` (frames never seen at their destination).
    pub lost: u64,
    /// `lost / sent` (0 when nothing was sent).
    pub loss_ratio: f64,
    /// Frames that arrived with a sequence number lower than one already seen on their
    /// flow (RFC 4737 reordered).
    pub reordered: u64,
    /// Reordering flow by flow: how many flows received frames, how many of them saw a
    /// frame reordered, and the largest share of a flow's frames that were.
    #[serde(default)]
    pub flow_reorder: FlowReorder,
    /// Frames seen twice on their flow.
    pub duplicates: u64,
    /// Frames received by a host they were not addressed to (must be 0).
    pub misdelivered: u64,
    /// Frames a receiver could not attribute (no Canopy header, no measurement block or
    /// a stale run id); not counted anywhere else.
    pub foreign: u64,
    /// One-way latency of the received frames.
    pub latency: Latency,
    /// Whether the trial passed the search's loss criterion (None outside a search).
    pub passed: Option<bool>,
    /// Seconds the receivers waited, before the trial, for the frames of the one before to
    /// stop arriving (at least 0.1 s of quiet; a slow target can take seconds).
    #[serde(default)]
    pub drained_s: f64,
    /// Frames sent and received per time bin (by each frame's send stamp), when the
    /// trial was asked for one (`canopy-testbed soak`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
    /// The low-rate latency stream sent alongside the trial's frames, when it had one
    /// ([`ProbeStream`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeStream>,
}

impl Trial {
    /// `reordered / received` (0 when nothing was received).
    pub fn reordered_ratio(&self) -> f64 {
        if self.received > 0 {
            self.reordered as f64 / self.received as f64
        } else {
            0.0
        }
    }
}

/// Reordering per flow (a flow: one sending host to one receiving host).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlowReorder {
    /// Flows that received at least one frame.
    pub flows: u64,
    /// Of those, flows with at least one frame reordered.
    pub reordered_flows: u64,
    /// The largest `reordered / received` of a flow (0 without reordering).
    pub worst_ratio: f64,
}

/// The latency stream of a trial, the RFC 2544 / RFC 8219 way: frames of their own run
/// id sent one at a time (each stamped just before its own `send()`) at a low rate
/// beside the trial's load, counted and timed apart from it. Its latency is the
/// fabric's at that load, not the load's own queueing in the generator's bursts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProbeStream {
    /// Offered rate of the stream over all its senders, frames per second.
    pub offered_pps: f64,
    /// Frames sent.
    pub sent: u64,
    /// Frames received by the right host (each once).
    pub received: u64,
    /// `sent - received`.
    pub lost: u64,
    /// Frames that arrived after a higher sequence number of their flow.
    pub reordered: u64,
    /// One-way latency of the stream's frames.
    pub latency: Latency,
    /// Where that latency went, hop by hop, when the frames asked for hop records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<HopBreakdown>,
}

/// Latency under a background load that is a fraction of the NDR (`run --search`):
/// the trial at that load with its latency stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadLatency {
    /// The background load as a fraction of the NDR (0.1 = 10 %).
    pub fraction: f64,
    /// The trial: its own frames are the background load (none at 0 %), its
    /// [`Trial::probe`] the latency stream.
    pub trial: Trial,
}

/// Frames sent and received per bin of send time: bin `i` holds the frames whose
/// send stamp (CLOCK_MONOTONIC) lies in `[t0_ns + i * bin_ns, t0_ns + (i + 1) * bin_ns)`,
/// counted when they left the generator and again when they reached their host
/// (each frame once; misdelivered and duplicate frames are not in `received`). A bin
/// with `received < sent` lost frames sent in it; the last bin also holds anything
/// later. Recovery times are read from it (`soak`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Timeline {
    /// Start of bin 0, CLOCK_MONOTONIC nanoseconds (the clock fault times are taken on).
    pub t0_ns: u64,
    /// Bin width, nanoseconds.
    pub bin_ns: u64,
    /// Frames sent per bin.
    pub sent: Vec<u64>,
    /// Of those, frames received by their host.
    pub received: Vec<u64>,
}

impl Timeline {
    /// Empty bins covering `span_ns` from `t0_ns` (at least one).
    pub fn new(t0_ns: u64, bin_ns: u64, span_ns: u64) -> Timeline {
        let bin_ns = bin_ns.max(1);
        let n = (span_ns / bin_ns + 1) as usize;
        Timeline {
            t0_ns,
            bin_ns,
            sent: vec![0; n],
            received: vec![0; n],
        }
    }

    /// Bin of send stamp `ts_ns` (the first or last bin for stamps outside).
    #[inline]
    pub fn bin(&self, ts_ns: u64) -> usize {
        let i = ts_ns.saturating_sub(self.t0_ns) / self.bin_ns;
        (i as usize).min(self.sent.len().saturating_sub(1))
    }
}

/// Latency summary, nanoseconds, from an HDR histogram (3 significant digits).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Latency {
    /// Frames recorded.
    pub count: u64,
    /// Smallest.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest.
    pub max_ns: u64,
    /// The distribution for the CDF plot: `(latency_ns, cumulative fraction)` points,
    /// increasing in both, ending at `(max_ns, 1.0)`.
    pub cdf: Vec<(u64, f64)>,
    /// The whole histogram, HdrHistogram's V2 compressed encoding in base64 (what an
    /// HdrHistogram interval log holds per line): runs can be merged and re-queried
    /// (`canopy-testbed latency`). Empty when there was nothing to record.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hdr: String,
}

impl Latency {
    /// The distribution as `(latency_ns, frames)` pairs, from the CDF points (at their
    /// resolution): what a histogram elsewhere (canopyd's metrics) is fed with.
    pub fn counts(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::with_capacity(self.cdf.len());
        let mut prev = 0u64;
        for &(v, f) in &self.cdf {
            let cum = ((f.clamp(0.0, 1.0) * self.count as f64).round() as u64).min(self.count);
            if cum > prev {
                out.push((v, cum - prev));
                prev = cum;
            }
        }
        out
    }
}

/// An RFC 2544-style binary search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    /// Highest offered rate with no loss (frames per second), if any trial had none.
    pub ndr_pps: Option<f64>,
    /// Index into [`RunResults::trials`] of the NDR trial.
    pub ndr_trial: Option<usize>,
    /// Highest offered rate with loss below `pdr_loss_ratio`.
    pub pdr_pps: Option<f64>,
    /// Index into [`RunResults::trials`] of the PDR trial.
    pub pdr_trial: Option<usize>,
    /// The PDR loss threshold (0.005 = 0.5 %).
    pub pdr_loss_ratio: f64,
    /// Lowest and highest rate searched.
    pub min_pps: f64,
    /// Highest rate searched (the starting point).
    pub max_pps: f64,
    /// The search stops when the bracket is narrower than this fraction of `max_pps`.
    pub resolution: f64,
    /// Duration of the confirmation trials (s; 0: the rates were not confirmed, and
    /// `ndr_pps`/`pdr_pps` are the short trials' own).
    #[serde(default)]
    pub confirm_s: f64,
    /// The NDR the short trials found, before its confirmation.
    #[serde(default)]
    pub ndr_search_pps: Option<f64>,
    /// The PDR the short trials found, before its confirmation.
    #[serde(default)]
    pub pdr_search_pps: Option<f64>,
    /// Latency at fractions of the NDR, each with its latency stream, in the order
    /// run (empty: not asked for, or no NDR was found).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<LoadLatency>,
}

/// One switch's counters over the run (after minus before).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SwitchDelta {
    /// Switch name.
    pub name: String,
    /// Frames received.
    pub rx: u64,
    /// Frames sent.
    pub tx: u64,
    /// Drops by reason (only non-zero reasons).
    pub drops: BTreeMap<String, u64>,
    /// Whether rx = tx + drops held exactly (false also when it could not be checked:
    /// see `unchecked`).
    pub conserved: bool,
    /// Why conservation could not be checked for this switch (it did not answer before
    /// or after the run, or it restarted during it and its counters began again);
    /// such a switch does not fail the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchecked: Option<String>,
    /// Backend of each port, in port order, as the switch's `health` reports it when the
    /// run starts: `afpacket`, `afxdp/zerocopy`, `afxdp/copy`, `afxdp/skb` (the mode
    /// obtained, not the one asked for). Empty when unknown (a bmv2 target, a switch that
    /// did not answer, a results file from before this field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backends: Vec<String>,
    /// Drops outside the engine's rx = tx + drops, by reason (non-zero only): frames the
    /// kernel dropped because a port's RX ring was full (`kernel_drops`, AF_PACKET
    /// `tp_drops`: never counted in `rx`) and the backend's own
    /// ([`crate::run::linkload::BACKEND_OUTSIDE_ENGINE`]). Part of the frames a run
    /// loses, not of `drops` (empty for bmv2, and in a results file from before it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub backend_drops: BTreeMap<String, u64>,
}

/// `backends` counted by name, in the order each first appears: `[("afxdp/skb", 2),
/// ("afpacket", 2)]`.
pub fn backend_counts<'a>(backends: impl IntoIterator<Item = &'a String>) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for b in backends {
        match out.iter_mut().find(|(n, _)| n == b) {
            Some((_, c)) => *c += 1,
            None => out.push((b.clone(), 1)),
        }
    }
    out
}

/// `afxdp/skb ×2, afpacket ×2` (empty when `backends` is).
pub fn backend_summary<'a>(backends: impl IntoIterator<Item = &'a String>) -> String {
    backend_counts(backends)
        .iter()
        .map(|(n, c)| format!("{n} ×{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Frames carried by one fabric link over the run, in each direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LinkLoad {
    /// One end, `node:port` (e.g. `edge-p0-e0:2`).
    pub a: String,
    /// The other end.
    pub b: String,
    /// Tier of the link for grouping in plots (`host-edge`, `edge-agg`, `agg-core`, ...).
    pub tier: String,
    /// Frames a → b.
    pub frames_ab: u64,
    /// Frames b → a.
    pub frames_ba: u64,
    /// Largest direction's share of the run's busiest link direction (0..=1).
    pub relative: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_counts_follow_the_cdf_and_sum_to_the_count() {
        let l = Latency {
            count: 10,
            cdf: vec![(100, 0.2), (150, 0.2), (200, 0.7), (900, 1.0)],
            ..Default::default()
        };
        assert_eq!(l.counts(), vec![(100, 2), (200, 5), (900, 3)]);
        assert_eq!(Latency::default().counts(), vec![]);
    }
}
