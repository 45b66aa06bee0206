//! The switch configuration file (TOML): parsed strictly (unknown keys are errors) and
//! validated as a whole before anything starts. Every error names the file, the key
//! (`switch.workers`, `port[2].interface`, `tables.switch`, …) and what is wrong.
//!
//! The schema is the shared contract in `docs/canopy-switch.md`.

use canopy_dataplane::engine::{self, EngineConfig, PollMode};
use canopy_dataplane::port::afpacket::{AfPacketConfig, TpacketVersion};
use canopy_dataplane::port::afxdp::{AfXdpConfig, XdpMode, MAX_QUEUES};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A configuration that cannot run: the file, the key, and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {key}: {what}")]
pub struct ConfigError {
    /// The configuration file.
    pub file: String,
    /// The key (or `[section]`, or `toml` for a syntax error).
    pub key: String,
    /// What is wrong.
    pub what: String,
}

/// Default size limit of one management request (large tables fit).
pub const DEFAULT_MAX_REQUEST: usize = 32 << 20;
/// Default read timeout of a management connection.
pub const DEFAULT_READ_TIMEOUT_MS: u64 = 10_000;
/// Default ring capacity (frames per direction) of a `mem` port link.
pub const DEFAULT_MEM_CAPACITY: usize = 1024;

/// `[switch]`: engine settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSection {
    /// Worker threads.
    #[serde(default = "one")]
    pub workers: usize,
    /// `adaptive` or `busy`.
    #[serde(default)]
    pub mode: PollName,
    /// Adaptive: empty rounds before sleeping.
    pub spins: Option<u32>,
    /// Adaptive: longest sleep (µs).
    pub max_sleep_us: Option<u64>,
    /// Busy: CPUs to pin workers to.
    #[serde(default)]
    pub pin_cores: Vec<usize>,
    /// Frames per (worker, egress port) ring.
    #[serde(default = "ring_default")]
    pub ring_size: usize,
    /// TX drain timer (µs).
    #[serde(default = "drain_default")]
    pub drain_us: u64,
    /// Flowlet gap (µs), 0 = off.
    #[serde(default)]
    pub flowlet_gap_us: u64,
    /// Frame buffers in the pool.
    #[serde(default = "pool_default")]
    pub pool: usize,
    /// Per-packet hop trace in buffers (debug).
    #[serde(default)]
    pub trace: bool,
    /// Run as this user once the ports are open (the process must start as root).
    pub user: Option<String>,
    /// With `user`: run with this group (default: the user's primary group).
    pub group: Option<String>,
    /// Keep the capabilities a port needs to re-open after its interface was
    /// re-created (AF_PACKET `CAP_NET_RAW`; AF_XDP also `CAP_NET_ADMIN`, `CAP_BPF`,
    /// `CAP_IPC_LOCK`); `false` keeps none (such a port stays down until a restart).
    #[serde(default = "yes")]
    pub reopen_caps: bool,
}

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}
fn ring_default() -> usize {
    256
}
fn drain_default() -> u64 {
    100
}
fn pool_default() -> usize {
    8192
}

impl Default for SwitchSection {
    fn default() -> Self {
        SwitchSection {
            workers: 1,
            mode: PollName::Adaptive,
            spins: None,
            max_sleep_us: None,
            pin_cores: Vec::new(),
            ring_size: ring_default(),
            drain_us: drain_default(),
            flowlet_gap_us: 0,
            pool: pool_default(),
            trace: false,
            user: None,
            group: None,
            reopen_caps: true,
        }
    }
}

/// Polling mode name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PollName {
    /// Spin, then sleep.
    #[default]
    Adaptive,
    /// Spin forever.
    Busy,
}

impl PollName {
    /// Config spelling.
    pub fn name(self) -> &'static str {
        match self {
            PollName::Adaptive => "adaptive",
            PollName::Busy => "busy",
        }
    }
}

/// `[tables]`: where the tables come from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablesSection {
    /// Topology spec (computed with canopy-control).
    pub topology: Option<String>,
    /// Header kind.
    pub kind: Option<String>,
    /// Switch name in the topology.
    pub switch: Option<String>,
    /// Sliced-flit addressing mode (sliced, flat, srcdst, dst; kind sliced only).
    pub mode: Option<String>,
    /// SwitchTables JSON file instead (relative to the config file's directory).
    pub file: Option<PathBuf>,
}

/// `[management]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagementSection {
    /// Unix socket path.
    pub socket: PathBuf,
    /// Largest request line in bytes.
    #[serde(default = "max_request_default")]
    pub max_request_bytes: usize,
    /// A connection that sends no complete request within this time is closed (ms).
    #[serde(default = "read_timeout_default")]
    pub read_timeout_ms: u64,
    /// TCP endpoint `ADDR:PORT` beside the Unix socket (off when absent).
    pub tcp: Option<String>,
    /// File holding the shared token of the TCP endpoint (required with `tcp`;
    /// relative to the config file's directory).
    pub token_file: Option<PathBuf>,
}

fn max_request_default() -> usize {
    DEFAULT_MAX_REQUEST
}
fn read_timeout_default() -> u64 {
    DEFAULT_READ_TIMEOUT_MS
}

/// `[[port]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSection {
    /// `afpacket` or `mem`.
    pub backend: BackendName,
    /// afpacket: interface.
    pub interface: Option<String>,
    /// afpacket: `v2` or `v3`.
    pub tpacket: Option<TpacketName>,
    /// afpacket: `PACKET_FANOUT` group id; with several workers, one receive socket per
    /// worker joins it (the primary, owned by one worker, also transmits).
    pub fanout: Option<u16>,
    /// afpacket: send through the interface's qdisc (`false`) instead of straight to the
    /// driver (`PACKET_QDISC_BYPASS`, the default `true`). Off, a shaping qdisc holds the
    /// socket's frames and its TX ring fills (the soak's `tx-fill` fault).
    pub qdisc_bypass: Option<bool>,
    /// afxdp: first interface queue (default 0).
    pub queue: Option<u32>,
    /// afxdp: sockets on queues `queue..queue + queues` (default 1); the first receives
    /// and transmits, the others receive only, each on another worker. dpdk: RX queues
    /// (RSS across them), the same way.
    pub queues: Option<u32>,
    /// afxdp: `auto`, `zerocopy`, `copy` or `skb`.
    pub mode: Option<XdpModeName>,
    /// afxdp: UMEM chunk size (2048 or 4096).
    pub frame_size: Option<u32>,
    /// afxdp: RX ring slots.
    pub rx_ring: Option<u32>,
    /// afxdp: TX ring slots (and TX chunks).
    pub tx_ring: Option<u32>,
    /// afxdp: fill ring slots (and RX chunks).
    pub fill_ring: Option<u32>,
    /// afxdp: completion ring slots.
    pub completion_ring: Option<u32>,
    /// dpdk: device name (a `--vdev` name such as `net_af_packet0`, or a PCI address).
    pub device: Option<String>,
    /// dpdk: RX descriptors per queue.
    pub rx_desc: Option<u16>,
    /// dpdk: TX descriptors.
    pub tx_desc: Option<u16>,
    /// mem: port name.
    pub name: Option<String>,
    /// mem: ring capacity per direction (frames).
    pub capacity: Option<usize>,
}

/// Port backend name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackendName {
    /// AF_PACKET socket on an interface.
    Afpacket,
    /// AF_XDP socket(s) on an interface's queue(s).
    Afxdp,
    /// A DPDK ethdev device (feature `dpdk`).
    Dpdk,
    /// In-process port.
    Mem,
}

/// AF_XDP mode name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum XdpModeName {
    /// Native zero-copy, native copy, or generic: the best the interface offers.
    Auto,
    /// Native XDP, zero-copy, or fail.
    Zerocopy,
    /// Native XDP, copy, or fail.
    Copy,
    /// Generic (SKB) XDP.
    Skb,
}

/// TPACKET version name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TpacketName {
    /// TPACKET_V2.
    V2,
    /// TPACKET_V3.
    V3,
}

/// The file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    switch: SwitchSection,
    tables: Option<TablesSection>,
    management: Option<ManagementSection>,
    #[serde(default)]
    port: Vec<PortSection>,
    dpdk: Option<DpdkSection>,
}

/// `[dpdk]`: DPDK's environment, shared by every `dpdk` port of the process.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DpdkSection {
    /// EAL arguments (`--vdev=...`, `-a PCI`, `--no-pci`, `--no-huge`, ...); canopy-switch
    /// adds `--in-memory`, a `--file-prefix` of its own, `-l 0` and `--no-telemetry`
    /// unless they are given (see docs/dpdk.md).
    #[serde(default)]
    pub eal_args: Vec<String>,
}

/// Longest DPDK device name (`RTE_ETH_NAME_MAX_LEN` - 1).
pub const MAX_DPDK_DEVICE: usize = 63;
/// DPDK descriptor ring bounds (powers of two).
pub const DPDK_DESC_RANGE: (u16, u16) = (64, 16384);
/// Most RX queues of a DPDK port.
pub const MAX_DPDK_QUEUES: u32 = 64;
/// Adaptive mode's default `max_sleep_us` in a switch with a `dpdk` port (DPDK ports
/// have no fd to wake the worker, so it sleeps the whole bound each time).
pub const DPDK_ADAPTIVE_MAX_SLEEP_US: u64 = 100;
/// Default DPDK descriptors (RX per queue, and TX).
pub const DEFAULT_DPDK_DESC: u16 = 1024;

/// A `backend = "dpdk"` port, validated: `(key, what)` on error.
fn dpdk_port(
    p: &PortSection,
    i: usize,
    afpacket_keys: &[(&str, bool)],
    mem_keys: &[(&str, bool)],
    any_build: bool,
) -> Result<PortSpec, (String, String)> {
    let key = |k: &str| format!("port[{i}].{k}");
    if !cfg!(feature = "dpdk") && !any_build {
        return Err((
            key("backend"),
            "\"dpdk\": this canopy-switch was built without the `dpdk` feature; build it with `cargo build --release -p canopy-switch --features dpdk` (needs Debian's libdpdk-dev, pkg-config and libclang-dev; see docs/dpdk.md)".into(),
        ));
    }
    let refuse = |keys: &[(&str, bool)], what: &str| match keys.iter().find(|(_, set)| *set) {
        Some((k, _)) => Err((key(k), format!("applies only to {what}"))),
        None => Ok(()),
    };
    refuse(afpacket_keys, "afpacket ports")?;
    refuse(mem_keys, "mem ports")?;
    let afxdp_only = [
        ("interface", p.interface.is_some()),
        ("queue", p.queue.is_some()),
        ("mode", p.mode.is_some()),
        ("frame_size", p.frame_size.is_some()),
        ("rx_ring", p.rx_ring.is_some()),
        ("tx_ring", p.tx_ring.is_some()),
        ("fill_ring", p.fill_ring.is_some()),
        ("completion_ring", p.completion_ring.is_some()),
    ];
    if let Some((k, _)) = afxdp_only.iter().find(|(_, set)| *set) {
        let what = if *k == "interface" {
            "a dpdk port is named by `device` (the --vdev name such as net_af_packet0, or a PCI address); the interface goes into its --vdev in [dpdk] eal_args".to_string()
        } else {
            "applies only to afxdp ports".to_string()
        };
        return Err((key(k), what));
    }
    let Some(device) = p.device.clone() else {
        return Err((
            key("device"),
            "missing: backend \"dpdk\" needs the device name (a --vdev name such as net_af_packet0, or a PCI address such as 0000:03:00.0)".into(),
        ));
    };
    if device.is_empty()
        || device.len() > MAX_DPDK_DEVICE
        || device
            .chars()
            .any(|c| c == ',' || c == '\0' || c.is_whitespace())
    {
        return Err((
            key("device"),
            format!("{device:?} is not a DPDK device name (1 to {MAX_DPDK_DEVICE} bytes, no ',', NUL or spaces; the device's arguments go into its --vdev)"),
        ));
    }
    let queues = p.queues.unwrap_or(1);
    if queues == 0 || queues > MAX_DPDK_QUEUES {
        return Err((
            key("queues"),
            format!("{queues} is not in 1..={MAX_DPDK_QUEUES}"),
        ));
    }
    let (lo, hi) = DPDK_DESC_RANGE;
    let rx_desc = p.rx_desc.unwrap_or(DEFAULT_DPDK_DESC);
    let tx_desc = p.tx_desc.unwrap_or(DEFAULT_DPDK_DESC);
    for (k, v) in [("rx_desc", rx_desc), ("tx_desc", tx_desc)] {
        if !(lo..=hi).contains(&v) || !v.is_power_of_two() {
            return Err((key(k), format!("{v} is not a power of two in {lo}..={hi}")));
        }
    }
    Ok(PortSpec::Dpdk {
        device,
        queues,
        rx_desc,
        tx_desc,
    })
}

/// Where the tables come from, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TablesSource {
    /// Computed from a topology spec.
    Topology {
        /// Spec string.
        spec: String,
        /// Header kind.
        kind: Kind,
        /// Switch name.
        switch: String,
        /// Sliced-flit mode (None: the kind's default).
        mode: Option<Mode>,
    },
    /// A SwitchTables JSON file (path resolved against the config's directory).
    File(PathBuf),
}

/// One port, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSpec {
    /// AF_PACKET on `interface`.
    AfPacket {
        /// Interface name.
        interface: String,
        /// Ring settings (version, fanout; other fields the port's defaults).
        cfg: AfPacketConfig,
    },
    /// AF_XDP on `interface`: `queues` sockets on queues `cfg.queue..cfg.queue + queues`.
    AfXdp {
        /// Interface name.
        interface: String,
        /// Socket settings of the first queue (the others differ only in `queue`).
        cfg: AfXdpConfig,
        /// Number of queues (sockets).
        queues: u32,
    },
    /// A DPDK device: `queues` RX queues (RSS across them), one TX queue.
    Dpdk {
        /// Device name (vdev name or PCI address).
        device: String,
        /// RX queues.
        queues: u32,
        /// RX descriptors per queue.
        rx_desc: u16,
        /// TX descriptors.
        tx_desc: u16,
    },
    /// In-process port; the far end stays with the process for inject/capture.
    Mem {
        /// Name.
        name: String,
        /// Ring capacity per direction.
        capacity: usize,
    },
}

impl PortSpec {
    /// Port (or interface) name.
    pub fn name(&self) -> &str {
        match self {
            PortSpec::AfPacket { interface, .. } => interface,
            PortSpec::AfXdp { interface, .. } => interface,
            PortSpec::Dpdk { device, .. } => device,
            PortSpec::Mem { name, .. } => name,
        }
    }
    /// Backend name.
    pub fn backend(&self) -> &'static str {
        match self {
            PortSpec::AfPacket { .. } => "afpacket",
            PortSpec::AfXdp { .. } => "afxdp",
            PortSpec::Dpdk { .. } => "dpdk",
            PortSpec::Mem { .. } => "mem",
        }
    }
}

/// Management settings, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Management {
    /// Socket path.
    pub socket: PathBuf,
    /// Largest request line (bytes).
    pub max_request: usize,
    /// Read timeout.
    pub read_timeout: Duration,
    /// The TCP endpoint, when configured.
    pub tcp: Option<TcpEndpoint>,
}

/// `[management] tcp` and `token_file`, validated (the token itself is read at start,
/// see [`Config::read_token`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpEndpoint {
    /// Address to listen on (port 0: the kernel picks one; `health` reports it).
    pub addr: SocketAddr,
    /// The token file (resolved against the config file's directory).
    pub token_file: PathBuf,
}

/// A validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it came from.
    pub file: PathBuf,
    /// `[switch]` as written (for display).
    pub switch: SwitchSection,
    /// The engine configuration it gives.
    pub engine: EngineConfig,
    /// Frame buffers.
    pub pool: usize,
    /// Tables source (None: wait for `replace_tables`).
    pub tables: Option<TablesSource>,
    /// Management socket.
    pub management: Management,
    /// Ports in port-number order.
    pub ports: Vec<PortSpec>,
    /// `[dpdk]` (None without it; only with a `dpdk` port).
    pub dpdk: Option<DpdkSection>,
}

/// Bounds checked by [`Config::parse`].
pub const MAX_WORKERS: usize = 64;
/// Largest ring size.
pub const MAX_RING: usize = 1 << 20;
/// Smallest and largest pool.
pub const POOL_RANGE: (usize, usize) = (64, 1 << 20);
/// Largest adaptive sleep (µs).
pub const MAX_SLEEP_US: u64 = 1_000_000;

impl Config {
    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.display().to_string(),
            key: "file".into(),
            what: format!("cannot read: {e}"),
        })?;
        Config::parse(path, &text)
    }

    /// Validate the text of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        Config::parse_impl(path, text, false)
    }

    /// Validate the text of `path` by every rule of [`Config::parse`] except whether this
    /// build has the `dpdk` backend: for a program that links this crate without the
    /// feature but writes configurations for a `canopy-switch` binary built with it (the
    /// testbed; the binary itself still refuses `dpdk` ports without the feature).
    pub fn parse_rules(path: &Path, text: &str) -> Result<Config, ConfigError> {
        Config::parse_impl(path, text, true)
    }

    fn parse_impl(path: &Path, text: &str, any_build: bool) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let err = |key: &str, what: String| ConfigError {
            file: file.clone(),
            key: key.to_string(),
            what,
        };
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            // toml's message names the unknown or mistyped key and the line
            let msg = e.message().to_string();
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start.min(text.len())].lines().count().max(1);
                    format!(" (line {line})")
                })
                .unwrap_or_default();
            err(&toml_key(text, &e), format!("{msg}{at}"))
        })?;

        // [switch]
        let s = &raw.switch;
        if s.workers == 0 || s.workers > MAX_WORKERS {
            return Err(err(
                "switch.workers",
                format!("{} is not in 1..={MAX_WORKERS}", s.workers),
            ));
        }
        if s.ring_size == 0 || s.ring_size > MAX_RING {
            return Err(err(
                "switch.ring_size",
                format!("{} is not in 1..={MAX_RING}", s.ring_size),
            ));
        }
        if s.pool < POOL_RANGE.0 || s.pool > POOL_RANGE.1 {
            return Err(err(
                "switch.pool",
                format!(
                    "{} buffers is not in {}..={}",
                    s.pool, POOL_RANGE.0, POOL_RANGE.1
                ),
            ));
        }
        if s.drain_us > 1_000_000 {
            return Err(err(
                "switch.drain_us",
                format!("{} µs is more than a second", s.drain_us),
            ));
        }
        if s.flowlet_gap_us > 60_000_000 {
            return Err(err(
                "switch.flowlet_gap_us",
                format!("{} µs is more than a minute", s.flowlet_gap_us),
            ));
        }
        for (k, v) in [("switch.user", &s.user), ("switch.group", &s.group)] {
            if let Some(v) = v {
                if v.is_empty() || v.contains(['\0', '/', ':']) || v.trim() != v {
                    return Err(err(k, format!("{v:?} is not a user or group name")));
                }
            }
        }
        if s.group.is_some() && s.user.is_none() {
            return Err(err(
                "switch.group",
                "needs `user` (the group the switch runs with as that user)".into(),
            ));
        }
        let mode = match s.mode {
            PollName::Adaptive => {
                if !s.pin_cores.is_empty() {
                    return Err(err(
                        "switch.pin_cores",
                        "pinning applies only to mode = \"busy\"".into(),
                    ));
                }
                let max_sleep = s
                    .max_sleep_us
                    .unwrap_or(engine::DEFAULT_MAX_SLEEP.as_micros() as u64);
                if max_sleep == 0 || max_sleep > MAX_SLEEP_US {
                    return Err(err(
                        "switch.max_sleep_us",
                        format!("{max_sleep} is not in 1..={MAX_SLEEP_US}"),
                    ));
                }
                PollMode::Adaptive {
                    spins: s.spins.unwrap_or(engine::DEFAULT_SPINS),
                    max_sleep: Duration::from_micros(max_sleep),
                }
            }
            PollName::Busy => {
                if s.spins.is_some() {
                    return Err(err(
                        "switch.spins",
                        "applies only to mode = \"adaptive\"".into(),
                    ));
                }
                if s.max_sleep_us.is_some() {
                    return Err(err(
                        "switch.max_sleep_us",
                        "applies only to mode = \"adaptive\"".into(),
                    ));
                }
                PollMode::Busy
            }
        };
        let mut engine = EngineConfig {
            workers: s.workers,
            ring_size: s.ring_size,
            drain_interval: Duration::from_micros(s.drain_us),
            flowlet_gap: (s.flowlet_gap_us > 0).then(|| Duration::from_micros(s.flowlet_gap_us)),
            mode,
            trace: s.trace,
            pin_cores: s.pin_cores.clone(),
            ..EngineConfig::default()
        };

        // [[port]]
        if raw.port.is_empty() {
            return Err(err(
                "port",
                "no [[port]] entries: a switch needs at least one port".into(),
            ));
        }
        if raw.port.len() > usize::from(u16::MAX) {
            return Err(err("port", format!("{} ports is too many", raw.port.len())));
        }
        if s.workers > raw.port.len() {
            return Err(err(
                "switch.workers",
                format!(
                    "{} workers but only {} ports: worker i owns port i mod workers, so a worker would have no port",
                    s.workers,
                    raw.port.len()
                ),
            ));
        }
        let mut ports = Vec::with_capacity(raw.port.len());
        for (i, p) in raw.port.iter().enumerate() {
            let key = |k: &str| format!("port[{i}].{k}");
            let dpdk_keys = [
                ("device", p.device.is_some()),
                ("rx_desc", p.rx_desc.is_some()),
                ("tx_desc", p.tx_desc.is_some()),
            ];
            let afxdp_keys = [
                ("queue", p.queue.is_some()),
                ("queues", p.queues.is_some()),
                ("mode", p.mode.is_some()),
                ("frame_size", p.frame_size.is_some()),
                ("rx_ring", p.rx_ring.is_some()),
                ("tx_ring", p.tx_ring.is_some()),
                ("fill_ring", p.fill_ring.is_some()),
                ("completion_ring", p.completion_ring.is_some()),
            ];
            let afpacket_keys = [
                ("tpacket", p.tpacket.is_some()),
                ("fanout", p.fanout.is_some()),
                ("qdisc_bypass", p.qdisc_bypass.is_some()),
            ];
            let mem_keys = [
                ("name", p.name.is_some()),
                ("capacity", p.capacity.is_some()),
            ];
            let refuse = |keys: &[(&str, bool)], what: &str| -> Result<(), ConfigError> {
                match keys.iter().find(|(_, set)| *set) {
                    Some((k, _)) => Err(err(&key(k), format!("applies only to {what}"))),
                    None => Ok(()),
                }
            };
            let interface = |backend: &str| -> Result<String, ConfigError> {
                if p.name.is_some() {
                    return Err(err(
                        &key("name"),
                        format!(
                            "an {backend} port is named by `interface`; `name` is for mem ports"
                        ),
                    ));
                }
                let Some(ifname) = &p.interface else {
                    return Err(err(
                        &key("interface"),
                        format!("missing: backend \"{backend}\" needs the interface name"),
                    ));
                };
                if ifname.is_empty()
                    || ifname.len() > 15
                    || ifname
                        .chars()
                        .any(|c| c == '/' || c == '\0' || c.is_whitespace())
                {
                    return Err(err(
                        &key("interface"),
                        format!("{ifname:?} is not an interface name (1 to 15 bytes, no '/', NUL or spaces)"),
                    ));
                }
                Ok(ifname.clone())
            };
            let spec = match p.backend {
                BackendName::Afpacket => {
                    let ifname = interface("afpacket")?;
                    refuse(&mem_keys, "mem ports")?;
                    refuse(&afxdp_keys, "afxdp ports")?;
                    refuse(&dpdk_keys, "dpdk ports")?;
                    let version = match p.tpacket.unwrap_or(TpacketName::V2) {
                        TpacketName::V2 => TpacketVersion::V2,
                        TpacketName::V3 => TpacketVersion::V3,
                    };
                    let cfg = AfPacketConfig {
                        version,
                        fanout: p.fanout,
                        qdisc_bypass: p.qdisc_bypass.unwrap_or(true),
                        ..AfPacketConfig::default()
                    };
                    cfg.validate()
                        .map_err(|e| err(&format!("port[{i}]"), format!("ring geometry: {e}")))?;
                    PortSpec::AfPacket {
                        interface: ifname,
                        cfg,
                    }
                }
                BackendName::Afxdp => {
                    let ifname = interface("afxdp")?;
                    refuse(&mem_keys, "mem ports")?;
                    refuse(&afpacket_keys, "afpacket ports")?;
                    refuse(&dpdk_keys, "dpdk ports")?;
                    let d = AfXdpConfig::default();
                    let cfg = AfXdpConfig {
                        queue: p.queue.unwrap_or(0),
                        mode: match p.mode.unwrap_or(XdpModeName::Auto) {
                            XdpModeName::Auto => XdpMode::Auto,
                            XdpModeName::Zerocopy => XdpMode::ZeroCopy,
                            XdpModeName::Copy => XdpMode::Copy,
                            XdpModeName::Skb => XdpMode::Skb,
                        },
                        frame_size: p.frame_size.unwrap_or(d.frame_size),
                        rx_ring: p.rx_ring.unwrap_or(d.rx_ring),
                        tx_ring: p.tx_ring.unwrap_or(d.tx_ring),
                        fill_ring: p.fill_ring.unwrap_or(d.fill_ring),
                        comp_ring: p.completion_ring.unwrap_or(d.comp_ring),
                    };
                    let queues = p.queues.unwrap_or(1);
                    if queues == 0
                        || u64::from(cfg.queue) + u64::from(queues) > u64::from(MAX_QUEUES)
                    {
                        return Err(err(
                            &key("queues"),
                            format!(
                                "{queues} queues from queue {} is not in 1..={} (queues 0..{MAX_QUEUES})",
                                cfg.queue,
                                MAX_QUEUES.saturating_sub(cfg.queue)
                            ),
                        ));
                    }
                    cfg.validate()
                        .map_err(|e| err(&format!("port[{i}]"), format!("afxdp: {e}")))?;
                    PortSpec::AfXdp {
                        interface: ifname,
                        cfg,
                        queues,
                    }
                }
                BackendName::Dpdk => dpdk_port(p, i, &afpacket_keys, &mem_keys, any_build)
                    .map_err(|(k, w)| err(&k, w))?,
                BackendName::Mem => {
                    for (k, set) in [("interface", p.interface.is_some())]
                        .into_iter()
                        .chain(afpacket_keys)
                        .chain(afxdp_keys)
                        .chain(dpdk_keys)
                    {
                        if set {
                            return Err(err(
                                &key(k),
                                "applies only to afpacket, afxdp or dpdk ports".into(),
                            ));
                        }
                    }
                    let name = p.name.clone().unwrap_or_else(|| format!("m{i}"));
                    if name.is_empty() || name.len() > 64 {
                        return Err(err(&key("name"), "must be 1 to 64 bytes".into()));
                    }
                    let capacity = p.capacity.unwrap_or(DEFAULT_MEM_CAPACITY);
                    if capacity == 0 || capacity > MAX_RING {
                        return Err(err(
                            &key("capacity"),
                            format!("{capacity} is not in 1..={MAX_RING}"),
                        ));
                    }
                    PortSpec::Mem { name, capacity }
                }
            };
            // names must be unique: a switch port is one interface (to share its RX
            // among workers, give it `fanout`; the switch opens one socket per worker)
            if let Some(j) = ports
                .iter()
                .position(|q: &PortSpec| q.name() == spec.name())
            {
                return Err(err(
                    &format!("port[{i}]"),
                    format!(
                        "{:?} is already port[{j}] (one interface is one port; to share its RX among workers set `fanout` (afpacket) or `queues` (afxdp, dpdk) on it)",
                        spec.name()
                    ),
                ));
            }
            ports.push(spec);
        }

        // [dpdk]
        let has_dpdk = ports.iter().any(|p| matches!(p, PortSpec::Dpdk { .. }));
        // DPDK ports have no fd to sleep on: an adaptive worker wakes only when its sleep
        // runs out, so the default sleep bound is short with them (unless set)
        if has_dpdk && s.max_sleep_us.is_none() {
            if let PollMode::Adaptive { max_sleep, .. } = &mut engine.mode {
                *max_sleep = Duration::from_micros(DPDK_ADAPTIVE_MAX_SLEEP_US);
            }
        }
        if let Some(d) = &raw.dpdk {
            if !has_dpdk {
                return Err(err(
                    "dpdk",
                    "applies only when a [[port]] has backend = \"dpdk\"".into(),
                ));
            }
            if let Some((j, a)) = d
                .eal_args
                .iter()
                .enumerate()
                .find(|(_, a)| a.is_empty() || a.contains('\0'))
            {
                return Err(err(
                    &format!("dpdk.eal_args[{j}]"),
                    format!("{a:?} is empty or holds a NUL byte"),
                ));
            }
        }

        // [tables]
        let base = path.parent().unwrap_or(Path::new("."));
        let tables = match &raw.tables {
            None => None,
            Some(t) => Some(tables_source(t, base).map_err(|(k, w)| err(&k, w))?),
        };

        // [management]
        let Some(m) = &raw.management else {
            return Err(err(
                "management",
                "missing section: set [management] socket = \"/path/to/switch.sock\"".into(),
            ));
        };
        if m.socket.as_os_str().is_empty() {
            return Err(err("management.socket", "is empty".into()));
        }
        // sun_path holds 108 bytes including the NUL
        if m.socket.as_os_str().len() > 107 {
            return Err(err(
                "management.socket",
                format!(
                    "{} bytes is longer than a Unix socket path can be (107)",
                    m.socket.as_os_str().len()
                ),
            ));
        }
        if m.max_request_bytes < 1024 || m.max_request_bytes > 1 << 30 {
            return Err(err(
                "management.max_request_bytes",
                format!("{} is not in 1024..=1073741824", m.max_request_bytes),
            ));
        }
        if m.read_timeout_ms == 0 || m.read_timeout_ms > 3_600_000 {
            return Err(err(
                "management.read_timeout_ms",
                format!("{} is not in 1..=3600000", m.read_timeout_ms),
            ));
        }
        let tcp = match (&m.tcp, &m.token_file) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(err(
                    "management.token_file",
                    "applies only with `tcp` (the Unix socket needs no token)".into(),
                ))
            }
            (Some(_), None) => {
                return Err(err(
                    "management.token_file",
                    "missing: `tcp` needs `token_file`, a file readable only by its owner holding the shared token".into(),
                ))
            }
            (Some(a), Some(f)) => {
                let addr: SocketAddr = a.trim().parse().map_err(|_| {
                    err(
                        "management.tcp",
                        format!("{a:?} is not ADDR:PORT (e.g. \"127.0.0.1:7410\" or \"[::]:7410\")"),
                    )
                })?;
                if f.as_os_str().is_empty() {
                    return Err(err("management.token_file", "is empty".into()));
                }
                Some(TcpEndpoint {
                    addr,
                    token_file: base.join(f),
                })
            }
        };
        Ok(Config {
            file: path.to_path_buf(),
            switch: raw.switch.clone(),
            engine,
            pool: s.pool,
            tables,
            management: Management {
                socket: m.socket.clone(),
                max_request: m.max_request_bytes,
                read_timeout: Duration::from_millis(m.read_timeout_ms),
                tcp,
            },
            ports,
            dpdk: has_dpdk.then(|| raw.dpdk.clone().unwrap_or_default()),
        })
    }

    /// Read the TCP endpoint's token (None without `tcp`) with
    /// [`canopy_proto::token::read_token_file`]; errors name `management.token_file`.
    pub fn read_token(&self) -> Result<Option<Vec<u8>>, ConfigError> {
        let Some(t) = &self.management.tcp else {
            return Ok(None);
        };
        canopy_proto::token::read_token_file(&t.token_file)
            .map(Some)
            .map_err(|w| self.error("management.token_file", w.to_string()))
    }

    /// Error for `key` of this file.
    pub fn error(&self, key: &str, what: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.display().to_string(),
            key: key.to_string(),
            what: what.into(),
        }
    }
}

fn tables_source(t: &TablesSection, base: &Path) -> Result<TablesSource, (String, String)> {
    let e = |k: &str, w: &str| (format!("tables.{k}"), w.to_string());
    if let Some(f) = &t.file {
        for (k, set) in [
            ("topology", t.topology.is_some()),
            ("kind", t.kind.is_some()),
            ("switch", t.switch.is_some()),
            ("mode", t.mode.is_some()),
        ] {
            if set {
                return Err(e(
                    k,
                    "give either `file` or `topology` + `kind` + `switch`, not both",
                ));
            }
        }
        if f.as_os_str().is_empty() {
            return Err(e("file", "is empty"));
        }
        return Ok(TablesSource::File(base.join(f)));
    }
    let Some(spec) = &t.topology else {
        return Err((
            "tables".into(),
            "needs `topology`, `kind` and `switch` (or `file`)".into(),
        ));
    };
    let Some(kind_s) = &t.kind else {
        return Err(e(
            "kind",
            "missing: the header kind (sliced, transit, path-id)",
        ));
    };
    let kind = Kind::from_name(kind_s).ok_or_else(|| {
        e(
            "kind",
            &format!("unknown header kind {kind_s:?} (sliced, transit, path-id)"),
        )
    })?;
    let Some(switch) = &t.switch else {
        return Err(e("switch", "missing: the switch's name in the topology"));
    };
    let mode = match &t.mode {
        None => None,
        Some(m) if kind == Kind::Sliced => Some(Mode::from_name(m).ok_or_else(|| {
            e(
                "mode",
                &format!("unknown sliced-flit mode {m:?} (sliced, flat, srcdst, dst)"),
            )
        })?),
        Some(_) => return Err(e("mode", "applies only to kind = \"sliced\"")),
    };
    Ok(TablesSource::Topology {
        spec: spec.clone(),
        kind,
        switch: switch.clone(),
        mode,
    })
}

/// The dotted key a toml error points at: the `[section]`/`[[port]]` header above the
/// error's line plus the key on that line, e.g. `port[1].interfce`. Best effort: the
/// message itself names the key as well.
fn toml_key(text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span() else {
        return "toml".into();
    };
    let upto = &text[..span.start.min(text.len())];
    let line_start = upto.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = text[line_start..line_end].trim();
    let mut section = String::new();
    let mut port_idx: i64 = -1;
    for l in text[..line_start].lines() {
        let l = l.trim();
        if l.starts_with("[[") {
            let name = l.trim_matches(|c| c == '[' || c == ']').trim();
            if name == "port" {
                port_idx += 1;
                section = format!("port[{port_idx}]");
            } else {
                section = name.to_string();
            }
        } else if l.starts_with('[') {
            section = l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
    }
    if line.starts_with('[') {
        // the error is about a section header itself (an unknown section, say)
        let name = line.trim_matches(|c| c == '[' || c == ']').trim();
        return if line.starts_with("[[") && name == "port" {
            format!("port[{}]", port_idx + 1)
        } else {
            name.to_string()
        };
    }
    let key = line
        .split('=')
        .next()
        .filter(|_| line.contains('='))
        .map(|k| k.trim().to_string());
    match (section.is_empty(), key) {
        (true, Some(k)) => k,
        (false, Some(k)) => format!("{section}.{k}"),
        (false, None) => section,
        (true, None) => "toml".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[switch]
workers = 1

[management]
socket = "/tmp/x.sock"

[[port]]
backend = "mem"
[[port]]
backend = "afpacket"
interface = "veth0"
"#;

    #[test]
    fn good_config_parses_with_defaults() {
        let c = Config::parse(Path::new("a.toml"), GOOD).unwrap();
        assert_eq!(c.ports.len(), 2);
        assert_eq!(c.ports[0].name(), "m0");
        match &c.ports[1] {
            PortSpec::AfPacket { cfg, .. } => assert_eq!(cfg.version, TpacketVersion::V2),
            p => panic!("{p:?}"),
        }
        assert_eq!(c.management.max_request, DEFAULT_MAX_REQUEST);
        assert!(c.tables.is_none());
    }

    fn dpdk_cfg(port: &str, dpdk: &str) -> Result<Config, ConfigError> {
        let t = format!("{GOOD}\n[[port]]\nbackend = \"dpdk\"\n{port}\n{dpdk}");
        Config::parse(Path::new("a.toml"), &t)
    }

    #[test]
    fn parse_rules_checks_dpdk_ports_in_any_build() {
        let t = format!(
            "{GOOD}\n[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 2\n[dpdk]\neal_args = [\"--no-pci\"]"
        );
        let c = Config::parse_rules(Path::new("a.toml"), &t).unwrap();
        assert_eq!(
            c.ports[2],
            PortSpec::Dpdk {
                device: "net_af_packet0".into(),
                queues: 2,
                rx_desc: DEFAULT_DPDK_DESC,
                tx_desc: DEFAULT_DPDK_DESC,
            }
        );
        // the build matters to `parse` only
        assert_eq!(
            Config::parse(Path::new("a.toml"), &t).is_ok(),
            cfg!(feature = "dpdk")
        );
        // every other rule still applies
        let bad = t.replace("queues = 2", "rx_desc = 100");
        let e = Config::parse_rules(Path::new("a.toml"), &bad).unwrap_err();
        assert_eq!(e.key, "port[2].rx_desc", "{e}");
        let bad = t.replace("device = \"net_af_packet0\"\n", "");
        let e = Config::parse_rules(Path::new("a.toml"), &bad).unwrap_err();
        assert_eq!(e.key, "port[2].device", "{e}");
    }

    #[test]
    fn dpdk_port_parses_or_needs_the_feature() {
        let r = dpdk_cfg(
            "device = \"net_af_packet0\"",
            "[dpdk]\neal_args = [\"--no-pci\", \"--vdev=net_af_packet0,iface=v0\"]",
        );
        if !cfg!(feature = "dpdk") {
            let e = r.unwrap_err();
            assert_eq!(e.key, "port[2].backend");
            assert!(e.what.contains("without the `dpdk` feature"), "{e}");
            assert!(e.what.contains("--features dpdk"), "{e}");
            return;
        }
        let c = r.unwrap();
        assert_eq!(
            c.ports[2],
            PortSpec::Dpdk {
                device: "net_af_packet0".into(),
                queues: 1,
                rx_desc: DEFAULT_DPDK_DESC,
                tx_desc: DEFAULT_DPDK_DESC,
            }
        );
        assert_eq!(c.ports[2].backend(), "dpdk");
        // adaptive polling sleeps at most 100 µs with dpdk ports unless told otherwise
        match c.engine.mode {
            PollMode::Adaptive { max_sleep, .. } => {
                assert_eq!(max_sleep, Duration::from_micros(DPDK_ADAPTIVE_MAX_SLEEP_US))
            }
            m => panic!("{m:?}"),
        }
        let t = format!(
            "{}\n[[port]]\nbackend = \"dpdk\"\ndevice = \"d\"",
            GOOD.replace("workers = 1", "workers = 1\nmax_sleep_us = 5000")
        );
        match Config::parse(Path::new("a.toml"), &t).unwrap().engine.mode {
            PollMode::Adaptive { max_sleep, .. } => {
                assert_eq!(max_sleep, Duration::from_micros(5000))
            }
            m => panic!("{m:?}"),
        }
        assert_eq!(c.dpdk.as_ref().unwrap().eal_args.len(), 2);
        // no [dpdk]: EAL defaults only
        let c = dpdk_cfg(
            "device = \"0000:03:00.0\"\nqueues = 4\nrx_desc = 512\ntx_desc = 256",
            "",
        )
        .unwrap();
        assert_eq!(
            c.ports[2],
            PortSpec::Dpdk {
                device: "0000:03:00.0".into(),
                queues: 4,
                rx_desc: 512,
                tx_desc: 256,
            }
        );
        assert_eq!(c.dpdk, Some(DpdkSection::default()));
    }

    #[test]
    fn dpdk_keys_are_validated() {
        if !cfg!(feature = "dpdk") {
            return;
        }
        for (port, dpdk, key, what) in [
            ("", "", "port[2].device", "missing"),
            (
                "device = \"a,b\"",
                "",
                "port[2].device",
                "not a DPDK device name",
            ),
            (
                "device = \"\"",
                "",
                "port[2].device",
                "not a DPDK device name",
            ),
            ("device = \"d\"\nqueues = 0", "", "port[2].queues", "1..=64"),
            (
                "device = \"d\"\nqueues = 65",
                "",
                "port[2].queues",
                "1..=64",
            ),
            (
                "device = \"d\"\nrx_desc = 1000",
                "",
                "port[2].rx_desc",
                "power of two",
            ),
            (
                "device = \"d\"\ntx_desc = 32",
                "",
                "port[2].tx_desc",
                "power of two",
            ),
            (
                "device = \"d\"\ninterface = \"v0\"",
                "",
                "port[2].interface",
                "named by `device`",
            ),
            (
                "device = \"d\"\nmode = \"skb\"",
                "",
                "port[2].mode",
                "afxdp ports",
            ),
            (
                "device = \"d\"\nfanout = 1",
                "",
                "port[2].fanout",
                "afpacket ports",
            ),
            (
                "device = \"d\"\ncapacity = 8",
                "",
                "port[2].capacity",
                "mem ports",
            ),
            (
                "device = \"d\"",
                "[dpdk]\neal_args = [\"\"]",
                "dpdk.eal_args[0]",
                "empty",
            ),
            (
                "device = \"d\"",
                "[dpdk]\nbogus = 1",
                "dpdk.bogus",
                "unknown field",
            ),
        ] {
            let e = dpdk_cfg(port, dpdk).unwrap_err();
            assert_eq!(e.key, key, "{port} {dpdk}: {e}");
            assert!(e.what.contains(what), "{port} {dpdk}: {e}");
        }
        // dpdk keys elsewhere, [dpdk] without a dpdk port
        let t = GOOD.replace(
            "interface = \"veth0\"",
            "interface = \"veth0\"\nrx_desc = 512",
        );
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[1].rx_desc");
        assert!(e.what.contains("dpdk ports"), "{e}");
        let e = Config::parse(
            Path::new("a.toml"),
            &format!("{GOOD}\n[dpdk]\neal_args = []"),
        )
        .unwrap_err();
        assert_eq!(e.key, "dpdk");
        // a device named twice
        let e = dpdk_cfg(
            "device = \"d\"\n[[port]]\nbackend = \"dpdk\"\ndevice = \"d\"",
            "",
        )
        .unwrap_err();
        assert!(e.what.contains("already port[2]"), "{e}");
    }

    #[test]
    fn afxdp_port_parses_with_defaults_and_keys() {
        let t = GOOD.replace(
            "backend = \"afpacket\"\ninterface = \"veth0\"",
            "backend = \"afxdp\"\ninterface = \"veth0\"",
        );
        let c = Config::parse(Path::new("a.toml"), &t).unwrap();
        match &c.ports[1] {
            PortSpec::AfXdp {
                interface,
                cfg,
                queues,
            } => {
                assert_eq!(interface, "veth0");
                assert_eq!(*cfg, AfXdpConfig::default());
                assert_eq!(*queues, 1);
            }
            p => panic!("{p:?}"),
        }
        assert_eq!(c.ports[1].backend(), "afxdp");
        let t = GOOD.replace(
            "backend = \"afpacket\"\ninterface = \"veth0\"",
            "backend = \"afxdp\"\ninterface = \"eth1\"\nqueue = 2\nqueues = 2\nmode = \"skb\"\nframe_size = 4096\nrx_ring = 512\ntx_ring = 256\nfill_ring = 1024\ncompletion_ring = 128",
        );
        let c = Config::parse(Path::new("a.toml"), &t).unwrap();
        let want = AfXdpConfig {
            queue: 2,
            mode: XdpMode::Skb,
            frame_size: 4096,
            rx_ring: 512,
            tx_ring: 256,
            fill_ring: 1024,
            comp_ring: 128,
        };
        match &c.ports[1] {
            PortSpec::AfXdp { cfg, queues, .. } => {
                assert_eq!(*cfg, want);
                assert_eq!(*queues, 2);
            }
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn afxdp_keys_are_validated_and_confined_to_afxdp_ports() {
        let with = |keys: &str| {
            GOOD.replace(
                "backend = \"afpacket\"\ninterface = \"veth0\"",
                &format!("backend = \"afxdp\"\ninterface = \"veth0\"\n{keys}"),
            )
        };
        for (keys, key, what) in [
            (
                "rx_ring = 1000",
                "port[1]",
                "rx ring size 1000 must be a power of two",
            ),
            ("frame_size = 3000", "port[1]", "frame size 3000"),
            ("queues = 0", "port[1].queues", "0 queues from queue 0"),
            (
                "queue = 255\nqueues = 2",
                "port[1].queues",
                "2 queues from queue 255",
            ),
            (
                "tpacket = \"v2\"",
                "port[1].tpacket",
                "applies only to afpacket ports",
            ),
            (
                "capacity = 4",
                "port[1].capacity",
                "applies only to mem ports",
            ),
        ] {
            let e = Config::parse(Path::new("a.toml"), &with(keys)).unwrap_err();
            assert_eq!(e.key, key, "{keys}: {e}");
            assert!(e.what.contains(what), "{keys}: {e}");
        }
        let e = Config::parse(Path::new("a.toml"), &with("mode = \"fast\"")).unwrap_err();
        assert_eq!(e.key, "port[1].mode", "{e}");
        assert!(e.to_string().contains("unknown variant"), "{e}");
        // afxdp keys on other backends
        let t = GOOD.replace("interface = \"veth0\"", "interface = \"veth0\"\nqueue = 1");
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[1].queue", "{e}");
        assert!(e.what.contains("applies only to afxdp ports"), "{e}");
        let t = GOOD.replace("backend = \"mem\"", "backend = \"mem\"\nmode = \"skb\"");
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[0].mode", "{e}");
        let t = with("").replace("interface = \"veth0\"\n", "");
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[1].interface", "{e}");
        assert!(
            e.what
                .contains("backend \"afxdp\" needs the interface name"),
            "{e}"
        );
    }

    #[test]
    fn qdisc_bypass_is_an_afpacket_key_on_by_default() {
        let bypass = |t: &str| match &Config::parse(Path::new("a.toml"), t).unwrap().ports[1] {
            PortSpec::AfPacket { cfg, .. } => cfg.qdisc_bypass,
            p => panic!("{p:?}"),
        };
        assert!(bypass(GOOD));
        let off = GOOD.replace(
            "interface = \"veth0\"",
            "interface = \"veth0\"\nqdisc_bypass = false",
        );
        assert!(!bypass(&off));
        let t = GOOD.replace(
            "backend = \"mem\"",
            "backend = \"mem\"\nqdisc_bypass = false",
        );
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[0].qdisc_bypass", "{e}");
        assert!(e.what.contains("applies only to afpacket"), "{e}");
        let t = off.replace("backend = \"afpacket\"", "backend = \"afxdp\"");
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[1].qdisc_bypass", "{e}");
        assert!(e.what.contains("applies only to afpacket ports"), "{e}");
    }

    #[test]
    fn unknown_key_is_named_with_its_section() {
        let t = GOOD.replace("interface = \"veth0\"", "interfce = \"veth0\"");
        let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
        assert_eq!(e.key, "port[1].interfce", "{e}");
        assert!(e.to_string().contains("unknown field"), "{e}");
        assert!(e.to_string().starts_with("a.toml: "), "{e}");
    }

    #[test]
    fn relative_tables_file_is_resolved_next_to_the_config() {
        let t = format!("{GOOD}\n[tables]\nfile = \"t.json\"\n");
        let c = Config::parse(Path::new("/etc/canopy/a.toml"), &t).unwrap();
        assert_eq!(
            c.tables,
            Some(TablesSource::File(PathBuf::from("/etc/canopy/t.json")))
        );
    }

    #[test]
    fn tcp_needs_a_token_file_and_a_valid_address() {
        let with = |extra: &str| {
            GOOD.replace(
                "socket = \"/tmp/x.sock\"",
                &format!("socket = \"/tmp/x.sock\"\n{extra}"),
            )
        };
        let e = |extra: &str| Config::parse(Path::new("a.toml"), &with(extra)).unwrap_err();
        let x = e("tcp = \"127.0.0.1:7410\"");
        assert_eq!(x.key, "management.token_file", "{x}");
        assert!(x.what.contains("missing"), "{x}");
        let x = e("token_file = \"t\"");
        assert_eq!(x.key, "management.token_file", "{x}");
        assert!(x.what.contains("only with `tcp`"), "{x}");
        let x = e("tcp = \"localhost\"\ntoken_file = \"t\"");
        assert_eq!(x.key, "management.tcp", "{x}");
        let x = e("tcp = \"127.0.0.1:99999\"\ntoken_file = \"t\"");
        assert_eq!(x.key, "management.tcp", "{x}");
        let x = e("tcp = \"127.0.0.1:7410\"\ntoken_file = \"\"");
        assert_eq!(x.key, "management.token_file", "{x}");
        let c = Config::parse(
            Path::new("/etc/canopy/a.toml"),
            &with("tcp = \"[::1]:0\"\ntoken_file = \"tok\""),
        )
        .unwrap();
        let t = c.management.tcp.unwrap();
        assert_eq!(t.addr, "[::1]:0".parse().unwrap());
        assert_eq!(t.token_file, PathBuf::from("/etc/canopy/tok"));
        // no tcp: no token read
        let c = Config::parse(Path::new("a.toml"), GOOD).unwrap();
        assert_eq!(c.read_token().unwrap(), None);
    }

    #[test]
    fn token_file_must_be_private_and_long_enough() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("cmt{}-tok", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg_path = dir.join("a.toml");
        let text = GOOD.replace(
            "socket = \"/tmp/x.sock\"",
            "socket = \"/tmp/x.sock\"\ntcp = \"127.0.0.1:0\"\ntoken_file = \"tok\"",
        );
        let c = Config::parse(&cfg_path, &text).unwrap();
        let tok = dir.join("tok");
        let put = |body: &[u8], mode: u32| {
            let _ = std::fs::remove_file(&tok);
            std::fs::write(&tok, body).unwrap();
            std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        let fails = |want: &str| {
            let e = c.read_token().unwrap_err();
            assert_eq!(e.key, "management.token_file", "{e}");
            assert!(e.to_string().contains(want), "{e} lacks {want:?}");
        };
        fails("cannot read");
        put(b"0123456789abcdef0123\n", 0o644);
        fails("mode 0644");
        put(b"0123456789abcdef0123\n", 0o640);
        fails("mode 0640");
        put(b"0123456789abcdef0123\n", 0o602);
        fails("mode 0602");
        put(b"  \n", 0o600);
        fails("is empty");
        put(b"short-token\n", 0o600);
        fails("11 bytes");
        put(b"\xff\xfe0123456789abcdef", 0o600);
        fails("not UTF-8");
        put(&vec![b'a'; 5000], 0o600);
        fails("5000 bytes");
        put(b"  0123456789abcdef0123\n", 0o400);
        assert_eq!(
            c.read_token().unwrap().as_deref(),
            Some(&b"0123456789abcdef0123"[..])
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
