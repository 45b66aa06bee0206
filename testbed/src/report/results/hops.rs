//! Where a latency stream's time went, hop by hop: what the receiver makes of the hop
//! records (`docs/wire-format.md` §2.1) its frames collected on the way
//! ([`crate::traffic::hopstats`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One part of the latency: over the frames it was measured on, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Part {
    /// Mean (what adds up along a path).
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
}

/// One switch on the path, by its position.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HopParts {
    /// Its level in the topology (1 = leaf switches) when every frame's switch at this
    /// position had the same, else 0.
    pub level: u16,
    /// Waiting in its receive ring: the kernel's receive stamp to the switch's poll.
    pub rx_ring: Part,
    /// Residence: the poll to the hand-off to the egress port's transmit path.
    pub residence: Part,
    /// Out to the next switch's kernel receive stamp (its transmit path, the link, the
    /// next kernel's receive path); for the last switch, to the receiving host's kernel
    /// receive stamp.
    pub link: Part,
    /// Frames ahead of it towards the egress when the switch decided (mean).
    pub queue_mean: f64,
}

/// The frames of one path length.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PathParts {
    /// Switches on the path.
    pub hops: usize,
    /// Frames.
    pub frames: u64,
    /// Their one-way latency, as measured (transmit stamp to the receiving host's
    /// kernel receive stamp).
    pub measured: Part,
    /// The sending host: transmit stamp to the first switch's kernel receive stamp
    /// (the sender's `send()`, the host's kernel and the first link).
    pub host_stack: Part,
    /// Each switch, in path order.
    pub hop: Vec<HopParts>,
    /// The sum of the parts' means over the measured mean (1.0: they add up exactly).
    pub sum_ratio: f64,
}

/// The breakdown of a trial's latency stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HopBreakdown {
    /// Record slots each frame carried.
    pub slots: u8,
    /// Frames broken down.
    pub frames: u64,
    /// Frames left out: a record without a stamp, records on different clocks, more
    /// switches than slots, or no record at all.
    pub incomplete: u64,
    /// The records were on the switches' own clocks (bmv2's v1model timestamps): only
    /// each switch's residence is known, and a path's `host_stack` holds the time
    /// outside the switches (measured less every residence); RX rings and links are 0.
    #[serde(default)]
    pub switch_clocks: bool,
    /// By path length, shortest first.
    pub paths: Vec<PathParts>,
}
