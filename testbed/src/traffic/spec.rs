//! The trial spec: the `[traffic]` table of a fabric description (and of
//! `canopy-testbed run`), with [`TrafficSpec::validate`] rejecting what cannot work
//! before anything is sent.

use super::pattern::Pattern;
use crate::error::{Result, TestbedError};
use crate::traffic::hosts::FabricHosts;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Bytes a frame occupies on the wire beyond its own length with FCS: preamble and
/// start delimiter (8) and the inter-frame gap (12).
pub const WIRE_OVERHEAD: usize = 20;
/// Bytes of the FCS, counted in `frame_size` but not written by the generator.
pub const FCS_LEN: usize = 4;

/// Highest total offered rate one sender thread is asked for, frames per second, 64 B
/// frames. Measured on the development machine (2 cores, 8 hosts on veth through a Linux
/// bridge; `docs/traffic.md`, "The ceiling"): one sender thread (bursts, one clock read
/// per burst) sent about 870 kpps at best with its receiver losing nothing; the ceiling
/// keeps about half of that as headroom, because the same cores also run the switches
/// under test and other jobs.
pub const PPS_PER_GEN_CORE: f64 = 400_000.0;

/// Most sender threads a spec may ask for.
pub const MAX_TX_THREADS: usize = 64;

/// The offered rate: frames per second over all senders, or a percentage of each
/// sending host's line rate (`reference`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Rate {
    /// Total frames per second over all senders.
    Pps(f64),
    /// Percent of the reference line rate, per sending host.
    Percent(f64),
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rate::Pps(p) => write!(f, "{p}pps"),
            Rate::Percent(p) => write!(f, "{p}%"),
        }
    }
}

fn si(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1e3),
        'M' => (&s[..s.len() - 1], 1e6),
        'G' => (&s[..s.len() - 1], 1e9),
        _ => (s, 1.0),
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v * mult)
}

impl Rate {
    /// `250000pps`, `250kpps`, `1.5Mpps` or `10%`.
    pub fn parse(s: &str) -> Result<Rate> {
        let bad = || {
            TestbedError::traffic(
                "rate",
                format!("`{s}` is not a rate (e.g. `100000pps`, `100kpps`, `1.5Mpps`, `10%`)"),
            )
        };
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| bad())?;
            return Ok(Rate::Percent(v));
        }
        let p = t.strip_suffix("pps").ok_or_else(bad)?;
        Ok(Rate::Pps(si(p).ok_or_else(bad)?))
    }
}

impl TryFrom<String> for Rate {
    type Error = TestbedError;
    fn try_from(s: String) -> Result<Rate> {
        Rate::parse(&s)
    }
}

impl From<Rate> for String {
    fn from(r: Rate) -> String {
        r.to_string()
    }
}

/// A line rate in bits per second from `10G`, `25G`, `100M`, `1G` (an optional `bit/s`,
/// `bps` or `b` after the unit is accepted).
pub fn parse_line_rate(s: &str) -> Result<f64> {
    let t = s.trim();
    let t = ["bit/s", "bps", "b"]
        .iter()
        .find_map(|suf| t.strip_suffix(suf))
        .unwrap_or(t);
    match si(t) {
        Some(v) if v > 0.0 => Ok(v),
        _ => Err(TestbedError::traffic(
            "reference",
            format!("`{s}` is not a line rate (e.g. `10G`, `1G`, `100M`)"),
        )),
    }
}

/// Frames per second of one link at `bps` with `frame_size`-byte frames (FCS included),
/// counting preamble, start delimiter and inter-frame gap ([`WIRE_OVERHEAD`]).
pub fn line_pps(bps: f64, frame_size: usize) -> f64 {
    bps / ((frame_size + WIRE_OVERHEAD) as f64 * 8.0)
}

/// The NDR/PDR search (`[traffic.search]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// Lowest offered rate tried (total pps).
    #[serde(default = "default_search_min")]
    pub min_pps: f64,
    /// Highest offered rate, the first trial (total pps); default: the generator ceiling.
    pub max_pps: Option<f64>,
    /// Stop when the bracket is narrower than this fraction of `max_pps`.
    #[serde(default = "default_resolution")]
    pub resolution: f64,
    /// PDR loss threshold (0.005 = 0.5 %).
    #[serde(default = "default_pdr")]
    pub pdr_loss_ratio: f64,
    /// A trial whose senders achieved less than this fraction of the offered rate did
    /// not test that rate and fails.
    #[serde(default = "default_min_sent")]
    pub min_sent_ratio: f64,
    /// Duration of the confirmation trials of the rates found (s; 0: none).
    #[serde(default = "default_confirm_s")]
    pub confirm_s: f64,
    /// Confirmation trials per rate, each at least 5 % (or the resolution) lower than
    /// the last and no higher than 98 % of what the last one delivered.
    #[serde(default = "default_confirm_tries")]
    pub confirm_tries: u32,
    /// After the search, the latency at these fractions of the NDR (0.5 = 50 %; 0: the
    /// latency stream alone), each a trial with a latency stream ([`probe_pps_for`] the NDR unless
    /// the spec's `probe_pps` says otherwise). Empty: none.
    #[serde(default = "default_latency_loads")]
    pub latency_loads: Vec<f64>,
    /// Duration of each latency trial (s).
    #[serde(default = "default_latency_s")]
    pub latency_s: f64,
}

/// The highest latency stream rate the search's latency trials choose themselves
/// ([`probe_pps_for`]): 1,000 frames per second over all senders, one at a time, enough
/// for a p99.9 from a 5-s trial.
pub const PROBE_PPS: f64 = 1_000.0;

/// The share of the NDR the search's latency stream takes at most ([`probe_pps_for`]).
pub const PROBE_SHARE: f64 = 0.02;

/// The lowest latency stream rate the search's latency trials choose themselves.
pub const PROBE_PPS_MIN: f64 = 10.0;

/// The latency stream's rate after a search that found NDR `ndr_pps`, when the spec
/// names none: 2 % of the NDR, between 10 and 1,000 frames per second. So the stream
/// leaves the load as it is also on a slow target (bmv2 forwards a few thousand frames
/// per second; a 1 kpps stream there would be a fifth of the load), at the price of
/// fewer samples there.
pub fn probe_pps_for(ndr_pps: f64) -> f64 {
    (ndr_pps * PROBE_SHARE).clamp(PROBE_PPS_MIN, PROBE_PPS)
}

/// The highest latency stream rate accepted: above it the stream is load, not a probe.
pub const PROBE_PPS_MAX: f64 = 100_000.0;

fn default_latency_loads() -> Vec<f64> {
    vec![0.0, 0.1, 0.5, 0.9]
}
fn default_latency_s() -> f64 {
    5.0
}

fn default_confirm_s() -> f64 {
    10.0
}
fn default_confirm_tries() -> u32 {
    6
}

fn default_search_min() -> f64 {
    1000.0
}
fn default_resolution() -> f64 {
    0.02
}
fn default_pdr() -> f64 {
    0.005
}
fn default_min_sent() -> f64 {
    0.98
}

impl Default for SearchSpec {
    fn default() -> Self {
        SearchSpec {
            min_pps: default_search_min(),
            max_pps: None,
            resolution: default_resolution(),
            pdr_loss_ratio: default_pdr(),
            min_sent_ratio: default_min_sent(),
            confirm_s: default_confirm_s(),
            confirm_tries: default_confirm_tries(),
            latency_loads: default_latency_loads(),
            latency_s: default_latency_s(),
        }
    }
}

/// One trial (or, with `search`, the trials of an NDR/PDR search).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// Pattern with parameters (`uniform`, `hotspot:fraction=0.2,target=0`, ...).
    #[serde(default = "default_pattern")]
    pub pattern: Pattern,
    /// Offered rate (`100000pps`, `100kpps`, `5%`).
    #[serde(default = "default_rate")]
    pub rate: Rate,
    /// Per-host line rate a `%` rate refers to (`10G`).
    #[serde(default = "default_reference")]
    pub reference: String,
    /// Frame size on the wire with FCS, 64..=1500 bytes.
    #[serde(default = "default_frame_size")]
    pub frame_size: usize,
    /// Send time in seconds (default 2 when `count` is not given either).
    pub duration_s: Option<f64>,
    /// Frames to send over all senders (instead of `duration_s`).
    pub count: Option<u64>,
    /// Seconds sent before the measurement at the same rate, not counted (switch caches,
    /// bridge tables, rings).
    #[serde(default = "default_warmup")]
    pub warmup_s: f64,
    /// Milliseconds the receivers keep polling after the last send.
    #[serde(default = "default_grace")]
    pub grace_ms: u64,
    /// Seed of the random patterns.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Record the latency of every N-th received frame (1 = all).
    #[serde(default = "default_every")]
    pub latency_every: u64,
    /// Frames per host per sender slot (default: by rate, 1 up to 20 kpps, at most 32).
    pub burst: Option<usize>,
    /// Write the first `pcap_max` frames sent to this capture file: pcapng when its
    /// name ends in `.pcapng`, classic pcap (nanosecond timestamps) otherwise.
    pub pcap_tx: Option<PathBuf>,
    /// Write the first `pcap_max` frames received to this capture file (format as for
    /// `pcap_tx`).
    pub pcap_rx: Option<PathBuf>,
    /// Frames written per capture file (the rest are counted, not written).
    #[serde(default = "default_pcap_max")]
    pub pcap_max: u64,
    /// No progress bar.
    #[serde(default)]
    pub quiet: bool,
    /// Receivers spin on their rings all the time instead of sleeping in `poll(2)`
    /// after 64 empty rounds: a few µs less receive delay, one core fully used, which on
    /// a small machine starves the switches (`docs/traffic.md`).
    #[serde(default)]
    pub busy_poll: bool,
    /// Sender threads (lanes), each sending for a share of the hosts (at most one per
    /// sending host; one when `pcap_tx` is set). Default: [`default_tx_threads`].
    pub tx_threads: Option<usize>,
    /// An NDR/PDR search instead of one trial at `rate`.
    pub search: Option<SearchSpec>,
    /// A latency stream beside the trial at this many frames per second over all
    /// senders ([`ProbeStream`](crate::report::results::ProbeStream)); the search's
    /// latency trials use [`probe_pps_for`] the NDR when this is not set.
    pub probe_pps: Option<f64>,
    /// The latency stream's frames ask every switch for a hop record (`docs/wire-format.md`
    /// §2.1), and the trial breaks its latency down hop by hop. The records make those
    /// frames longer than `frame_size` (48 bytes per switch of the longest path).
    #[serde(default = "default_true")]
    pub probe_hops: bool,
}

fn default_true() -> bool {
    true
}

/// Sender threads on a machine with `cpus` CPUs when the spec names none: a quarter of
/// the CPUs, at least one. The switches under test and the receiver share the machine
/// with the senders, so on 2 CPUs this is one.
pub fn default_tx_threads(cpus: usize) -> usize {
    (cpus / 4).max(1)
}

fn default_pattern() -> Pattern {
    Pattern::Uniform
}
fn default_rate() -> Rate {
    Rate::Pps(10_000.0)
}
fn default_reference() -> String {
    "10G".into()
}
fn default_frame_size() -> usize {
    64
}
fn default_warmup() -> f64 {
    0.2
}
fn default_grace() -> u64 {
    200
}
fn default_seed() -> u64 {
    1
}
fn default_every() -> u64 {
    1
}
fn default_pcap_max() -> u64 {
    10_000
}

impl TrafficSpec {
    /// The spec a `[traffic]` table (a fabric description's) describes. It goes through
    /// the table's text, so the error of a mistyped value names its key
    /// ([`TestbedError::Traffic`]; the key is empty when the error has no place, e.g. an
    /// unknown key, which the message names).
    pub fn from_table(table: &toml::Table) -> Result<TrafficSpec> {
        let text = toml::to_string(table).unwrap_or_default();
        toml::from_str(&text).map_err(|e: toml::de::Error| {
            let key = e
                .span()
                .and_then(|s| text[..s.start.min(text.len())].lines().last())
                .and_then(|l| l.split_once('='))
                .map(|(k, _)| k.trim().to_string())
                .unwrap_or_default();
            TestbedError::Traffic {
                key,
                detail: e.message().trim().to_string(),
            }
        })
    }
}

/// The fabric description's check of its `[traffic]` table
/// ([`crate::fabric::desc::TrafficCheck`]): the table parses as a [`TrafficSpec`] and
/// passes [`TrafficSpec::validate`] for every host of `topo` on this machine's CPUs.
/// Its [`TestbedError::Traffic`] names the table's key.
pub fn desc_check(
    table: &toml::Table,
    topo: &canopy_control::topology::Topology,
    kind: canopy_dataplane::wire::Kind,
) -> Result<()> {
    let spec = TrafficSpec::from_table(table)?;
    let hosts = FabricHosts {
        topology: topo.spec.to_string(),
        kind: kind.name().to_string(),
        hosts: (0..topo.hosts.len() as u32)
            .map(|h| crate::traffic::hosts::HostEndpoint {
                host: h,
                name: topo.host_name(h),
                netns: String::new(),
                ifname: String::new(),
                rx_ifnames: vec![],
                mac: canopy_control::oracle::host_mac(topo, h),
            })
            .collect(),
        guest_clocks: false,
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    spec.validate(&hosts, cpus)
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            pattern: default_pattern(),
            rate: default_rate(),
            reference: default_reference(),
            frame_size: default_frame_size(),
            duration_s: None,
            count: None,
            warmup_s: default_warmup(),
            grace_ms: default_grace(),
            seed: default_seed(),
            latency_every: default_every(),
            burst: None,
            pcap_tx: None,
            pcap_rx: None,
            pcap_max: default_pcap_max(),
            quiet: false,
            busy_poll: false,
            tx_threads: None,
            search: None,
            probe_pps: None,
            probe_hops: true,
        }
    }
}

/// Highest total offered rate the generator accepts with `threads` sender threads on a
/// machine with `cpus` CPUs: [`PPS_PER_GEN_CORE`] per sender thread; halved when
/// sender and receiver must share a single CPU.
pub fn ceiling_pps(cpus: usize, threads: usize) -> f64 {
    let per = if cpus >= 2 {
        PPS_PER_GEN_CORE
    } else {
        PPS_PER_GEN_CORE / 2.0
    };
    per * threads.max(1) as f64
}

impl TrafficSpec {
    /// The rate a search starts at with `senders` sending hosts (its `max_pps`, else
    /// the generator's ceiling, [`ceiling_pps`]); None without a search.
    pub fn search_max_pps(&self, senders: usize) -> Option<f64> {
        let s = self.search.as_ref()?;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Some(
            s.max_pps
                .unwrap_or_else(|| ceiling_pps(cpus, self.lanes(senders, cpus))),
        )
    }

    /// Parse a `[traffic]` table on its own (TOML text); errors name the key and line.
    pub fn from_toml(text: &str) -> Result<TrafficSpec> {
        toml::from_str(text).map_err(|e| TestbedError::Traffic {
            key: "[traffic]".into(),
            detail: e.to_string().trim().replace('\n', " "),
        })
    }

    /// Frame length the generator writes (without FCS).
    pub fn frame_len(&self) -> usize {
        self.frame_size.saturating_sub(FCS_LEN)
    }

    /// Sender threads for `senders` sending hosts on `cpus` CPUs: `tx_threads` or
    /// [`default_tx_threads`], at most one per sending host, one when `pcap_tx` is set
    /// (the pcap file has one writer).
    pub fn lanes(&self, senders: usize, cpus: usize) -> usize {
        if self.pcap_tx.is_some() {
            return 1;
        }
        self.tx_threads
            .unwrap_or_else(|| default_tx_threads(cpus))
            .clamp(1, senders.max(1))
    }

    /// Send time: `duration_s`, or 2 s.
    pub fn duration(&self) -> f64 {
        self.duration_s.unwrap_or(2.0)
    }

    /// Total offered rate with `senders` sending hosts (frames per second).
    pub fn offered_pps(&self, senders: usize) -> Result<f64> {
        Ok(match self.rate {
            Rate::Pps(p) => p,
            Rate::Percent(p) => {
                let bps = parse_line_rate(&self.reference)?;
                p / 100.0 * line_pps(bps, self.frame_size) * senders as f64
            }
        })
    }

    /// Reject what cannot work on `hosts` with `cpus` CPUs: pattern vs host count,
    /// frame size, rate (zero, above the line rate, above the generator ceiling),
    /// duration/count, search bounds. Every error names the key.
    pub fn validate(&self, hosts: &FabricHosts, cpus: usize) -> Result<()> {
        let e = TestbedError::traffic;
        let n = hosts.hosts.len();
        self.pattern.validate(n)?;
        if !(64..=1500).contains(&self.frame_size) {
            return Err(e(
                "frame_size",
                format!(
                    "{} B is outside 64..=1500 (bytes on the wire with the 4-byte FCS)",
                    self.frame_size
                ),
            ));
        }
        // every flow's frame must fit the frame size (long headers on big fabrics)
        let topo = canopy_control::build_str(&hosts.topology)
            .map_err(|x| e("topology", format!("`{}`: {x}", hosts.topology)))?;
        let kind = canopy_dataplane::wire::Kind::from_name(&hosts.kind)
            .ok_or_else(|| e("kind", format!("unknown header kind `{}`", hosts.kind)))?;
        for a in &hosts.hosts {
            for b in &hosts.hosts {
                if a.host != b.host {
                    crate::traffic::frame::HostFrame::new(
                        &topo,
                        kind,
                        a.host,
                        b.host,
                        self.frame_len(),
                        0,
                    )
                    .map_err(|x| e("frame_size", format!("{} B: {x}", self.frame_size)))?;
                }
            }
        }
        let senders = self
            .pattern
            .dests(n, self.seed)?
            .iter()
            .filter(|d| !d.is_idle())
            .count();
        let offered = self.offered_pps(senders)?;
        let bps = parse_line_rate(&self.reference)?;
        if let Rate::Percent(p) = self.rate {
            if !(p > 0.0 && p <= 100.0) {
                return Err(e("rate", format!("{p}% is outside (0, 100]")));
            }
        }
        if !(offered.is_finite() && offered > 0.0) {
            return Err(e("rate", format!("{} offers no frames", self.rate)));
        }
        let line = line_pps(bps, self.frame_size) * senders as f64;
        if offered > line * 1.000_001 {
            return Err(e(
                "rate",
                format!(
                    "{offered:.0} pps is more than {senders} senders' line rate at {} ({line:.0} pps with {} B frames)",
                    self.reference, self.frame_size
                ),
            ));
        }
        let threads = self.lanes(senders, cpus);
        let ceiling = ceiling_pps(cpus, threads);
        let check_ceiling = |key: &'static str, pps: f64| -> Result<()> {
            if pps > ceiling {
                return Err(e(
                    key,
                    format!(
                        "{pps:.0} pps is above what this generator can send on this machine ({ceiling:.0} pps: {PPS_PER_GEN_CORE:.0} pps per sender thread, {threads} sender thread(s), {cpus} CPUs; see docs/traffic.md)"
                    ),
                ));
            }
            Ok(())
        };
        if self.search.is_none() {
            check_ceiling("rate", offered)?;
        }
        match (self.duration_s, self.count) {
            (Some(_), Some(_)) => {
                return Err(e(
                    "duration_s",
                    "give `duration_s` or `count`, not both".to_string(),
                ))
            }
            (Some(d), None) if !(d.is_finite() && d > 0.0 && d <= 3600.0) => {
                return Err(e("duration_s", format!("{d} s is outside (0, 3600]")))
            }
            (None, Some(0)) => return Err(e("count", "0 frames".to_string())),
            _ => {}
        }
        if !(self.warmup_s.is_finite() && (0.0..=60.0).contains(&self.warmup_s)) {
            return Err(e(
                "warmup_s",
                format!("{} s is outside 0..=60", self.warmup_s),
            ));
        }
        if self.grace_ms > 60_000 {
            return Err(e(
                "grace_ms",
                format!("{} ms is more than 60 s", self.grace_ms),
            ));
        }
        if self.latency_every == 0 {
            return Err(e("latency_every", "must be at least 1".to_string()));
        }
        if let Some(b) = self.burst {
            if !(1..=256).contains(&b) {
                return Err(e("burst", format!("{b} is outside 1..=256")));
            }
        }
        if let Some(t) = self.tx_threads {
            if !(1..=MAX_TX_THREADS).contains(&t) {
                return Err(e(
                    "tx_threads",
                    format!("{t} is outside 1..={MAX_TX_THREADS}"),
                ));
            }
        }
        if let Some(p) = self.probe_pps {
            if !(p > 0.0 && p <= PROBE_PPS_MAX) {
                return Err(e(
                    "probe_pps",
                    format!("{p} is outside (0, {PROBE_PPS_MAX}]"),
                ));
            }
        }
        if let Some(s) = &self.search {
            let max = s.max_pps.unwrap_or(ceiling);
            if !(s.min_pps > 0.0 && s.min_pps < max) {
                return Err(e(
                    "search.min_pps",
                    format!("{} must be above 0 and below max_pps {max}", s.min_pps),
                ));
            }
            check_ceiling("search.max_pps", max)?;
            if !(s.resolution > 0.0 && s.resolution < 1.0) {
                return Err(e(
                    "search.resolution",
                    format!("{} is outside (0, 1)", s.resolution),
                ));
            }
            if !(s.pdr_loss_ratio > 0.0 && s.pdr_loss_ratio < 1.0) {
                return Err(e(
                    "search.pdr_loss_ratio",
                    format!("{} is outside (0, 1)", s.pdr_loss_ratio),
                ));
            }
            if !(s.min_sent_ratio > 0.0 && s.min_sent_ratio <= 1.0) {
                return Err(e(
                    "search.min_sent_ratio",
                    format!("{} is outside (0, 1]", s.min_sent_ratio),
                ));
            }
            if !(0.0..=600.0).contains(&s.confirm_s) {
                return Err(e(
                    "search.confirm_s",
                    format!("{} s is outside 0..=600 (0: no confirmation)", s.confirm_s),
                ));
            }
            if let Some(f) = s.latency_loads.iter().find(|f| !(0.0..=1.0).contains(*f)) {
                return Err(e(
                    "search.latency_loads",
                    format!("{f} is outside 0..=1 (fractions of the NDR)"),
                ));
            }
            if !(s.latency_s > 0.0 && s.latency_s <= 600.0) {
                return Err(e(
                    "search.latency_s",
                    format!("{} s is outside (0, 600]", s.latency_s),
                ));
            }
            if !(1..=10).contains(&s.confirm_tries) {
                return Err(e(
                    "search.confirm_tries",
                    format!("{} is outside 1..=10", s.confirm_tries),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::hosts::HostEndpoint;

    fn hosts(n: u32) -> FabricHosts {
        FabricHosts {
            topology: "fat-tree:k=4".into(),
            kind: "sliced".into(),
            hosts: (0..n)
                .map(|h| HostEndpoint {
                    host: h,
                    name: format!("h{h}"),
                    netns: format!("ns{h}"),
                    ifname: "eth0".into(),
                    rx_ifnames: vec![],
                    mac: [2, 0, 0, 0, 0, h as u8],
                })
                .collect(),
            guest_clocks: false,
        }
    }

    #[test]
    fn rates_and_line_rates_parse() {
        assert_eq!(Rate::parse("250000pps").unwrap(), Rate::Pps(250_000.0));
        assert_eq!(Rate::parse("250kpps").unwrap(), Rate::Pps(250_000.0));
        assert_eq!(Rate::parse("1.5Mpps").unwrap(), Rate::Pps(1_500_000.0));
        assert_eq!(Rate::parse("10%").unwrap(), Rate::Percent(10.0));
        assert!(Rate::parse("fast").is_err());
        assert!(Rate::parse("10").is_err());
        assert_eq!(parse_line_rate("10G").unwrap(), 10e9);
        assert_eq!(parse_line_rate("100Mbps").unwrap(), 100e6);
        assert!(parse_line_rate("0G").is_err());
        // 10G at 64 B: 14.88 Mpps (84 B per frame on the wire)
        assert!((line_pps(10e9, 64) - 14_880_952.38).abs() < 1.0);
        assert!((line_pps(1e9, 1500) - 82_236.84).abs() < 1.0);
    }

    #[test]
    fn toml_table_parses_with_defaults_and_rejects_unknown_keys() {
        let s = TrafficSpec::from_toml(
            "pattern = \"hotspot:fraction=0.3,target=2\"\nrate = \"1%\"\nreference = \"1G\"\nframe_size = 128\nduration_s = 1.5\n[search]\npdr_loss_ratio = 0.01\n",
        )
        .unwrap();
        assert_eq!(
            s.pattern,
            Pattern::Hotspot {
                fraction: 0.3,
                target: 2
            }
        );
        assert_eq!(s.frame_len(), 124);
        assert_eq!(s.search.as_ref().unwrap().pdr_loss_ratio, 0.01);
        assert_eq!(s.seed, 1);
        // 1 % of 1G at 128 B over 8 senders
        let o = s.offered_pps(8).unwrap();
        assert!((o - 0.01 * 1e9 / (148.0 * 8.0) * 8.0).abs() < 1e-6, "{o}");
        let e = TrafficSpec::from_toml("rat = \"1%\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rat") && e.contains("line 1"), "{e}");
        let e = TrafficSpec::from_toml("pattern = \"zigzag\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("zigzag"), "{e}");
        assert!(TrafficSpec::from_toml("[search]\nfoo = 1").is_err());
    }

    #[test]
    fn sender_threads_default_to_a_quarter_of_the_cpus_and_fit_the_senders() {
        assert_eq!(
            (1..=9).map(default_tx_threads).collect::<Vec<_>>(),
            vec![1, 1, 1, 1, 1, 1, 1, 2, 2]
        );
        let s = TrafficSpec::default();
        assert_eq!(s.lanes(16, 2), 1);
        assert_eq!(s.lanes(16, 16), 4);
        assert_eq!(s.lanes(3, 64), 3);
        let s = TrafficSpec {
            tx_threads: Some(6),
            ..TrafficSpec::default()
        };
        assert_eq!((s.lanes(16, 2), s.lanes(4, 2), s.lanes(0, 2)), (6, 4, 1));
        // one pcap writer: one lane
        let s = TrafficSpec {
            pcap_tx: Some("tx.pcap".into()),
            ..s
        };
        assert_eq!(s.lanes(16, 2), 1);
        let t = TrafficSpec::from_toml("tx_threads = 3").unwrap();
        assert_eq!(t.tx_threads, Some(3));
        // the ceiling grows with the sender threads (halved on one CPU)
        assert_eq!(ceiling_pps(2, 1), PPS_PER_GEN_CORE);
        assert_eq!(ceiling_pps(2, 3), PPS_PER_GEN_CORE * 3.0);
        assert_eq!(ceiling_pps(1, 2), PPS_PER_GEN_CORE);
        assert_eq!(ceiling_pps(8, 0), PPS_PER_GEN_CORE);
        let fast = TrafficSpec {
            rate: Rate::Pps(PPS_PER_GEN_CORE * 1.5),
            ..TrafficSpec::default()
        };
        let e = fast.validate(&hosts(8), 2).unwrap_err().to_string();
        assert!(e.contains("1 sender thread(s)"), "{e}");
        TrafficSpec {
            tx_threads: Some(2),
            ..fast
        }
        .validate(&hosts(8), 2)
        .unwrap();
    }

    #[test]
    fn validate_rejects_what_cannot_work() {
        let h = hosts(8);
        let ok = TrafficSpec::default();
        ok.validate(&h, 2).unwrap();
        let bad = |s: TrafficSpec, key: &str| {
            let e = s.validate(&h, 2).unwrap_err().to_string();
            assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
            e
        };
        let e = bad(
            TrafficSpec {
                rate: Rate::Pps(PPS_PER_GEN_CORE * 3.0),
                ..ok.clone()
            },
            "rate",
        );
        assert!(e.contains("above what this generator can send"), "{e}");
        // one CPU: half the ceiling
        let s = TrafficSpec {
            rate: Rate::Pps(PPS_PER_GEN_CORE * 0.75),
            ..ok.clone()
        };
        s.validate(&h, 2).unwrap();
        assert!(s.validate(&h, 1).is_err());
        bad(
            TrafficSpec {
                rate: Rate::Percent(100.0),
                ..ok.clone()
            },
            "rate",
        );
        let e = bad(
            TrafficSpec {
                rate: Rate::Pps(50_000.0),
                reference: "1M".into(),
                ..ok.clone()
            },
            "rate",
        );
        assert!(e.contains("line rate"), "{e}");
        bad(
            TrafficSpec {
                frame_size: 63,
                ..ok.clone()
            },
            "frame_size",
        );
        bad(
            TrafficSpec {
                frame_size: 1501,
                ..ok.clone()
            },
            "frame_size",
        );
        // 8 hosts: transpose rotates their 3 address bits; 12 would be neither a square
        // nor a power of two
        ok.validate(&h, 2).unwrap();
        TrafficSpec {
            pattern: Pattern::Transpose,
            ..ok.clone()
        }
        .validate(&h, 2)
        .unwrap();
        let twelve = hosts(12);
        let e = TrafficSpec {
            pattern: Pattern::Transpose,
            ..ok.clone()
        }
        .validate(&twelve, 2)
        .unwrap_err()
        .to_string();
        assert!(e.contains("`pattern`"), "{e}");
        bad(
            TrafficSpec {
                duration_s: Some(1.0),
                count: Some(5),
                ..ok.clone()
            },
            "duration_s",
        );
        bad(
            TrafficSpec {
                latency_every: 0,
                ..ok.clone()
            },
            "latency_every",
        );
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    max_pps: Some(PPS_PER_GEN_CORE * 2.0),
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.max_pps",
        );
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    resolution: 0.0,
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.resolution",
        );
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    confirm_s: 601.0,
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.confirm_s",
        );
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    latency_loads: vec![0.5, 1.5],
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.latency_loads",
        );
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    latency_s: 0.0,
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.latency_s",
        );
        for p in [0.0, -1.0, PROBE_PPS_MAX * 2.0, f64::NAN] {
            bad(
                TrafficSpec {
                    probe_pps: Some(p),
                    ..ok.clone()
                },
                "probe_pps",
            );
        }
        bad(
            TrafficSpec {
                search: Some(SearchSpec {
                    confirm_tries: 0,
                    ..SearchSpec::default()
                }),
                ..ok.clone()
            },
            "search.confirm_tries",
        );
        bad(
            TrafficSpec {
                tx_threads: Some(0),
                ..ok.clone()
            },
            "tx_threads",
        );
        bad(
            TrafficSpec {
                tx_threads: Some(MAX_TX_THREADS + 1),
                ..ok.clone()
            },
            "tx_threads",
        );
        let mut odd = hosts(4);
        odd.kind = "nonsense".into();
        let e = ok.validate(&odd, 2).unwrap_err().to_string();
        assert!(e.contains("`kind`") && e.contains("nonsense"), "{e}");
        odd.kind = "sliced".into();
        odd.topology = "fat-tree:k=3".into();
        assert!(ok
            .validate(&odd, 2)
            .unwrap_err()
            .to_string()
            .contains("`topology`"));
        let e = TrafficSpec::default()
            .validate(&hosts(1), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 2 hosts"), "{e}");
    }
}
