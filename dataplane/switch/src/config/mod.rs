//! The switch configuration file (TOML): parsed strictly (unknown keys are errors) and
//! validated as a whole before anything starts. Every error names the file, the key
//! (`switch.workers`, `port[2].interface`, `tables.switch`, …) and what is wrong.
//!
//! The schema is the shared contract in `docs/canopy-switch.md`. Files: this one (the
//! validated [`Config`] and its bounds), `sections.rs` (the sections as written),
//! `parse.rs` (the checks, section by section), `ports.rs` (the `[[port]]` checks).

pub(crate) mod parse;
mod ports;
mod sections;
#[cfg(test)]
mod tests;

pub use sections::{
    BackendName, CaptureFormatName, CaptureSection, DirectionName, DpdkSection, ManagementSection,
    P4RuntimeSection, PollName, PortSection, SwitchSection, TablesSection, TpacketName,
    XdpModeName,
};

use canopy_dataplane::engine::EngineConfig;
use canopy_dataplane::port::afpacket::AfPacketConfig;
use canopy_dataplane::port::afxdp::AfXdpConfig;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
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

/// Default size limit of one management request: ten times the largest table push
/// (one switch of `fat-tree:k=96` with path-ID tables, 335 KB; `docs/canopy-switch.md`).
pub const DEFAULT_MAX_REQUEST: usize = 4 << 20;
/// Default read timeout of a management connection.
pub const DEFAULT_READ_TIMEOUT_MS: u64 = 10_000;
/// Default ring capacity (frames per direction) of a `mem` port link.
pub const DEFAULT_MEM_CAPACITY: usize = 1024;

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

/// Where the P4Runtime endpoint listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address (port 0: the kernel picks one; the log names it).
    Tcp(SocketAddr),
    /// A Unix socket, created 0600 (`unix:PATH`): a controller on the same machine,
    /// also from another network namespace.
    Unix(PathBuf),
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Tcp(a) => write!(f, "{a}"),
            Listen::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// `[p4runtime]`, validated (the TLS files are read at start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct P4RuntimeConfig {
    /// Where to serve.
    pub addr: Listen,
    /// The device id.
    pub device_id: u64,
    /// Mutual TLS (None: plaintext, on a loopback address or a Unix socket only).
    pub tls: Option<TlsFiles>,
}

/// The files of mutual TLS, resolved against the configuration file's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The server's certificate chain (PEM).
    pub cert: PathBuf,
    /// The server's private key (PEM).
    pub key: PathBuf,
    /// The CA that signs controllers' certificates (PEM).
    pub client_ca: PathBuf,
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
    /// `[capture]` (None: no port is captured).
    pub capture: Option<crate::capture::CaptureConfig>,
    /// `[p4runtime]` (None: no P4Runtime endpoint).
    pub p4runtime: Option<P4RuntimeConfig>,
}

/// Bounds checked by [`Config::parse`].
pub const MAX_WORKERS: usize = 64;
/// Largest ring size.
pub const MAX_RING: usize = 1 << 20;
/// Smallest and largest pool.
pub const POOL_RANGE: (usize, usize) = (64, 1 << 20);
/// Largest adaptive sleep (µs).
pub const MAX_SLEEP_US: u64 = 1_000_000;

/// The text of the configuration file `path` (of a switch or of a shared host); the
/// error names the file and the key `file`.
pub fn read_file(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: path.display().to_string(),
        key: "file".into(),
        what: format!("cannot read: {e}"),
    })
}

impl Config {
    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::parse(path, &read_file(path)?)
    }

    /// Validate the text of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        parse::parse(path, text, false)
    }

    /// Validate the text of `path` by every rule of [`Config::parse`] except whether this
    /// build has the `dpdk` backend: for a program that links this crate without the
    /// feature but writes configurations for a `canopy-switch` binary built with it (the
    /// testbed; the binary itself still refuses `dpdk` ports without the feature).
    pub fn parse_rules(path: &Path, text: &str) -> Result<Config, ConfigError> {
        parse::parse(path, text, true)
    }

    /// Read the TCP endpoint's token (None without `tcp`) with
    /// [`canopy_proto::token::read_token_file`] (`runs_as`: the uid of `[switch] user`,
    /// which may own it); errors name `management.token_file`.
    pub fn read_token(&self, runs_as: Option<u32>) -> Result<Option<Vec<u8>>, ConfigError> {
        let Some(t) = &self.management.tcp else {
            return Ok(None);
        };
        canopy_proto::token::read_token_file(&t.token_file, runs_as)
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
