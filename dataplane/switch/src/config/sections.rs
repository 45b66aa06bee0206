//! The configuration file's sections as written: what serde reads, strictly (unknown
//! keys are errors); `parse` turns them into a validated [`Config`](super::Config).

use super::{DEFAULT_MAX_REQUEST, DEFAULT_READ_TIMEOUT_MS};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[switch]`: engine settings. A key left out takes its value from
/// [`SwitchSection::default`].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchSection {
    /// Worker threads.
    pub workers: usize,
    /// `adaptive` or `busy`.
    pub mode: PollName,
    /// Adaptive: empty rounds before sleeping.
    pub spins: Option<u32>,
    /// Adaptive: longest sleep (µs).
    pub max_sleep_us: Option<u64>,
    /// Busy: CPUs to pin workers to.
    pub pin_cores: Vec<usize>,
    /// Frames per (worker, egress port) ring.
    pub ring_size: usize,
    /// TX drain timer (µs).
    pub drain_us: u64,
    /// Flowlet gap (µs), 0 = off.
    pub flowlet_gap_us: u64,
    /// Frame buffers in the pool.
    pub pool: usize,
    /// Per-packet hop trace in buffers (debug).
    pub trace: bool,
    /// The switch id hop records carry (`docs/wire-format.md` §2.1); default: the
    /// switch's index in the topology `[tables]` names, else 0.
    pub id: Option<u32>,
    /// Run as this user once the ports are open (the process must start as root).
    pub user: Option<String>,
    /// With `user`: run with this group (default: the user's primary group).
    pub group: Option<String>,
    /// Keep the capabilities a port needs to re-open after its interface was
    /// re-created (AF_PACKET `CAP_NET_RAW`; AF_XDP also `CAP_NET_ADMIN`, `CAP_BPF`,
    /// `CAP_IPC_LOCK`); `false` keeps none (such a port stays down until a restart).
    pub reopen_caps: bool,
}

impl Default for SwitchSection {
    fn default() -> Self {
        SwitchSection {
            workers: 1,
            mode: PollName::Adaptive,
            spins: None,
            max_sleep_us: None,
            pin_cores: Vec::new(),
            ring_size: 256,
            drain_us: 100,
            flowlet_gap_us: 0,
            pool: 8192,
            trace: false,
            id: None,
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
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) switch: SwitchSection,
    pub(super) tables: Option<TablesSection>,
    pub(super) management: Option<ManagementSection>,
    #[serde(default)]
    pub(super) port: Vec<PortSection>,
    pub(super) dpdk: Option<DpdkSection>,
    pub(super) capture: Option<CaptureSection>,
    pub(super) p4runtime: Option<P4RuntimeSection>,
}

/// `[p4runtime]`: the P4Runtime endpoint (`docs/p4runtime.md`), off when absent.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct P4RuntimeSection {
    /// `ADDR:PORT` to serve gRPC on (P4Runtime's registered port is 9559).
    pub listen: String,
    /// The device id controllers address (p4runtime-shell's default is 1).
    #[serde(default = "device_id_default")]
    pub device_id: u64,
    /// The server's certificate chain (PEM); with `tls_key` and `client_ca`, mutual TLS.
    pub tls_cert: Option<PathBuf>,
    /// The server's private key (PEM).
    pub tls_key: Option<PathBuf>,
    /// The CA (PEM) a controller's client certificate must be signed by.
    pub client_ca: Option<PathBuf>,
}

fn device_id_default() -> u64 {
    1
}

/// `[capture]`: write the frames ports receive and send to capture files
/// (`<port>_in.pcap`, `<port>_out.pcap`), as bmv2's `--pcap` does.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CaptureSection {
    /// The directory (resolved against the configuration file's; created if missing).
    pub dir: PathBuf,
    /// `pcap` (classic, nanosecond timestamps) or `pcapng`.
    #[serde(default)]
    pub format: CaptureFormatName,
    /// The ports captured (default: every port).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<u16>>,
    /// `both`, `in` (received) or `out` (sent).
    #[serde(default)]
    pub direction: DirectionName,
    /// Frames per file; later ones are counted, not written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_frames: Option<u64>,
    /// Bytes kept of each frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snaplen: Option<u32>,
    /// Frames queued for the writer at most (slots allocated at start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<usize>,
}

/// Capture file format name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureFormatName {
    /// Classic libpcap, nanosecond timestamps.
    #[default]
    Pcap,
    /// pcapng.
    Pcapng,
}

/// Which frames of a port are captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirectionName {
    /// Received and sent.
    #[default]
    Both,
    /// Received.
    In,
    /// Sent.
    Out,
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
