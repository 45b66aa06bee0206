//! What a discrete-event run is given: the links and switches ([`Network`]) and what the
//! hosts send ([`Workload`]). Both are typed structs a study's description file is read
//! into (unknown keys refused), each field with a default.

use serde::{Deserialize, Serialize};

/// How a switch moves a frame from an input link to an output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// The frame is decided once its last bit has arrived.
    StoreAndForward,
    /// The frame is decided once its header has arrived; an idle output starts sending
    /// it then, while the rest still arrives. At frame granularity this is virtual
    /// cut-through: a frame that cannot go on is held whole (in the output's buffer,
    /// or in its input link when the buffer is full), never spread over several links.
    #[default]
    CutThrough,
}

/// What happens to a frame whose output buffer is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControl {
    /// It waits in its input link, which then carries nothing else, until the output
    /// takes it (the thesis's request-to-send links; credit flow control with one
    /// frame of credit per link plus what is in flight and in the switch's decision).
    #[default]
    Lossless,
    /// It is dropped and counted (an Ethernet switch, as the engine does).
    Drop,
}

/// Which of its links a host with several sends a message on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Injection {
    /// Its first transmitting port, always (as the in-process fabric and the traffic
    /// generator send).
    #[default]
    First,
    /// The link with the fewest frames queued or being sent, ties to the lowest port:
    /// a network interface that balances its messages over all its links (the Znode
    /// thesis's processors, linked to every level-1 switch of their zone in every layer).
    Spread,
}

/// Links and switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Network {
    /// Rate of every link, Gbit/s.
    pub link_gbps: f64,
    /// Propagation delay of every link, ns.
    pub propagation_ns: f64,
    /// Time a switch takes to decide a frame, ns (added once per switch).
    pub switch_delay_ns: f64,
    /// Frames an output can queue besides the one it is sending (0 with cut-through and
    /// lossless links: a frame goes on only into an idle output, the thesis's wormhole
    /// case at frame granularity).
    pub buffer: usize,
    /// Store-and-forward or cut-through.
    pub switching: Switching,
    /// Lossless (backpressure) or drop-tail.
    pub flow_control: FlowControl,
    /// Bytes every frame takes on the wire besides its own: 24 for Ethernet (FCS 4,
    /// preamble and start delimiter 8, inter-frame gap 12); 0 to count the frame alone.
    pub overhead_bytes: u32,
    /// Flowlet idle gap of the adaptive choice, ns (0: every frame chooses afresh).
    pub flowlet_gap_ns: u64,
    /// With cut-through, the bytes a switch reads before it decides: 0 for the frame's
    /// own Ethernet and Canopy headers, or a fixed count (at most the frame) to model
    /// a switch that decides on its first flit.
    pub decide_after_bytes: u32,
    /// The links a host with several sends on. The offered load stays a fraction of one
    /// link's rate, so spreading it over more links lowers each link's share.
    pub injection: Injection,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            link_gbps: 1.0,
            propagation_ns: 0.0,
            switch_delay_ns: 0.0,
            buffer: 2,
            switching: Switching::default(),
            flow_control: FlowControl::default(),
            overhead_bytes: 24,
            flowlet_gap_ns: 0,
            decide_after_bytes: 0,
            injection: Injection::default(),
        }
    }
}

/// When a host's next message is ready, after the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// Exponentially distributed gaps (Poisson messages).
    #[default]
    Exponential,
    /// Fixed gaps, each host starting at a uniformly random phase.
    Fixed,
}

/// Payload lengths of the messages, bytes (the frame adds Ethernet, the Canopy header
/// and padding to Ethernet's 60-byte minimum).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Lengths {
    /// Every message this long.
    Fixed(u32),
    /// Uniform over `min..=max`.
    Uniform {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// `(length, weight)` pairs: each length with probability weight / total.
    Mix(Vec<(u32, f64)>),
}

impl Default for Lengths {
    fn default() -> Self {
        Lengths::Fixed(0)
    }
}

/// What the hosts send and how long the run is measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    /// Offered load per host as a fraction of its link's rate, counted in wire bytes:
    /// after a frame of `w` wire bytes the host's next gap has mean `8 w / (load × rate)`.
    pub load: f64,
    /// Gap distribution.
    pub arrivals: Arrivals,
    /// Payload lengths.
    pub payload: Lengths,
    /// Simulated time before measuring, µs.
    pub warmup_us: f64,
    /// Measured window, µs: the messages made in it are the measured ones.
    pub measure_us: f64,
    /// After the window, hosts go on sending while the measured messages are still in
    /// flight, for at most this long (µs); those still in flight then are reported.
    pub drain_us: f64,
    /// Messages a host keeps waiting to be sent, over all its links; more are refused
    /// and counted (the offered load is then beyond what the fabric takes from that
    /// host). Hosts × `source_queue` is at most [`MAX_WAITING`], which bounds the run's
    /// memory.
    pub source_queue: usize,
    /// Seed of every random choice (gaps, lengths, phases, adaptive ties).
    pub seed: u64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            load: 0.5,
            arrivals: Arrivals::default(),
            payload: Lengths::default(),
            warmup_us: 20.0,
            measure_us: 100.0,
            drain_us: 1000.0,
            source_queue: 1_000,
            seed: 1,
        }
    }
}

/// Why a configuration cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A value is outside what the model takes.
    #[error("{field} = {value}: {why}")]
    Value {
        /// Field name as in the description file.
        field: &'static str,
        /// The value given.
        value: String,
        /// What it must be.
        why: &'static str,
    },
}

fn bad(field: &'static str, value: impl std::fmt::Display, why: &'static str) -> ConfigError {
    ConfigError::Value {
        field,
        value: value.to_string(),
        why,
    }
}

/// Most messages all hosts together may keep waiting in their source queues (hosts ×
/// `source_queue`): about 1.2 GB of waiting messages.
pub const MAX_WAITING: usize = 1 << 23;

/// Largest payload: a jumbo frame.
pub const MAX_PAYLOAD: u32 = 9000;

impl Network {
    /// Check the values.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.link_gbps.is_finite() && self.link_gbps >= 0.001 && self.link_gbps <= 10_000.0) {
            return Err(bad("link_gbps", self.link_gbps, "must be 0.001..=10000"));
        }
        for (f, v) in [
            ("propagation_ns", self.propagation_ns),
            ("switch_delay_ns", self.switch_delay_ns),
        ] {
            if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                return Err(bad(f, v, "must be 0..=1e9 ns"));
            }
        }
        if self.buffer > 1 << 20 {
            return Err(bad("buffer", self.buffer, "must be at most 2^20 frames"));
        }
        if self.decide_after_bytes > MAX_PAYLOAD + 1024 {
            return Err(bad(
                "decide_after_bytes",
                self.decide_after_bytes,
                "must be 0..=10024",
            ));
        }
        if self.overhead_bytes > 1024 {
            return Err(bad(
                "overhead_bytes",
                self.overhead_bytes,
                "must be 0..=1024",
            ));
        }
        Ok(())
    }

    /// Picoseconds one byte takes on a link (at least 1).
    pub fn ps_per_byte(&self) -> u64 {
        ((8000.0 / self.link_gbps).round() as u64).max(1)
    }
}

impl Lengths {
    /// Check the values.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let ok = |n: u32| n <= MAX_PAYLOAD;
        match self {
            Lengths::Fixed(n) if !ok(*n) => Err(bad("payload", n, "must be 0..=9000 bytes")),
            Lengths::Uniform { min, max } if min > max || !ok(*max) => Err(bad(
                "payload",
                format!("{min}..={max}"),
                "must be min <= max <= 9000 bytes",
            )),
            Lengths::Mix(m) if m.is_empty() => Err(bad("payload", "[]", "needs a length")),
            Lengths::Mix(m) => {
                for &(n, w) in m {
                    if !(ok(n) && w.is_finite() && w > 0.0) {
                        return Err(bad(
                            "payload",
                            format!("({n}, {w})"),
                            "lengths must be at most 9000 bytes, weights positive",
                        ));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Draw one length; `u` uniform in [0, 1).
    pub fn draw(&self, u: f64) -> u32 {
        match self {
            Lengths::Fixed(n) => *n,
            Lengths::Uniform { min, max } => {
                let span = f64::from(max - min) + 1.0;
                (min + (u * span) as u32).min(*max)
            }
            Lengths::Mix(m) => {
                let total: f64 = m.iter().map(|p| p.1).sum();
                let mut x = u * total;
                for &(n, w) in m {
                    if x < w {
                        return n;
                    }
                    x -= w;
                }
                m.last().map_or(0, |p| p.0)
            }
        }
    }
}

impl Workload {
    /// Check the values.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.load.is_finite() && self.load > 0.0 && self.load <= 16.0) {
            return Err(bad("load", self.load, "must be in (0, 16]"));
        }
        for (f, v) in [
            ("warmup_us", self.warmup_us),
            ("measure_us", self.measure_us),
            ("drain_us", self.drain_us),
        ] {
            if !(v.is_finite() && (0.0..=1e9).contains(&v)) {
                return Err(bad(f, v, "must be 0..=1e9 µs"));
            }
        }
        if self.measure_us <= 0.0 {
            return Err(bad("measure_us", self.measure_us, "must be above 0"));
        }
        if self.source_queue == 0 || self.source_queue > MAX_WAITING {
            return Err(bad("source_queue", self.source_queue, "must be 1..=2^23"));
        }
        self.payload.validate()
    }
}
