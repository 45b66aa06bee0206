//! The fabric description (`examples/fabric-*.toml`, reference in `docs/testbed.md`):
//! parsed with `deny_unknown_fields`, then validated as a whole against the topology
//! before anything is created. Every error names the file, the key and, when known,
//! the line.

//!
//! | module | what |
//! |---|---|
//! | (here) | the description's types, names of nodes, namespaces and interfaces, placement |
//! | `parse` | [`Desc::parse`]: the text to a validated description, step by step |
//! | `config` | the configurations `up` generates: every switch's, `canopyd`'s |
//! | `ports` | `[ports]`: every switch port's backend and keys, checked by `canopy-switch`'s rules |
//! | `host` | `[host]`: one shared `canopy-switch host` process or one process per switch |
//! | `vm` | `[vm]`: every switch in its own QEMU guest |

mod config;
pub use config::P4Files;
mod host;
mod parse;
mod ports;
mod vm;

pub use host::{default_cores, machine_cpus, HostDesc, SharedHost};

pub use ports::{PortKey, PortOverride, PortSettings, PortsDesc};
pub use vm::{
    AccelChoice, VhostChoice, VmDesc, VmLinks, MGMT_HYPERVISOR, MGMT_PREFIX, MIN_MEMORY_MIB,
};

use crate::error::{Result, TestbedError};
use canopy_control::topology::{Peer, PortDir, Topology};
use canopy_dataplane::wire::Kind;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Longest fabric name: namespaces are `<name>-s<i>` / `<name>-h<i>`.
pub const MAX_NAME: usize = 12;
/// Largest fabric MTU with `dpdk` ports: DPDK's af_packet PMD (22.11) reports
/// `max_rx_pktlen` = `RTE_ETHER_MAX_LEN` (1518: 1500 + Ethernet header and FCS).
pub const DPDK_AF_PACKET_MTU: u32 = 1500;
/// Most nodes (switches plus hosts) a description may have: each is a network namespace
/// and each switch a process, so larger topologies are refused before any per-node state
/// is built (`transit-full:layers=3`, 279,552 switches and 262,144 hosts, once took the
/// parser past 2 GB).
pub const MAX_NODES: usize = 4096;
/// The machine every node is on unless placed elsewhere.
pub const LOCAL: &str = "local";

fn default_name() -> Spanned<String> {
    Spanned::new(0..0, "canopy".into())
}
fn default_topology() -> Spanned<String> {
    Spanned::new(0..0, "fat-tree:k=4".into())
}
fn default_kind() -> Spanned<String> {
    Spanned::new(0..0, "sliced".into())
}
fn default_mtu() -> Spanned<u32> {
    Spanned::new(0..0, 1500)
}
fn default_polling() -> Spanned<String> {
    Spanned::new(0..0, "adaptive".into())
}
fn default_timeout() -> u64 {
    60
}
fn default_vni() -> u32 {
    10_000
}
fn default_offloads() -> Spanned<String> {
    Spanned::new(0..0, "off".into())
}

/// The raw description as written (see `docs/testbed.md` for every key).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDesc {
    /// Fabric name, the prefix of every namespace (`[a-z0-9-]`, ≤ 12 bytes).
    #[serde(default = "default_name")]
    pub name: Spanned<String>,
    /// Topology spec as `canopyctl` takes it.
    #[serde(default = "default_topology")]
    pub topology: Spanned<String>,
    /// Header kind: `sliced`, `path-id`, `transit`.
    #[serde(default = "default_kind")]
    pub kind: Spanned<String>,
    /// MTU of every link.
    #[serde(default = "default_mtu")]
    pub mtu: Spanned<u32>,
    /// `off` (default: GRO/GSO/TSO/TX checksum offloads off on every veth) or `keep`.
    #[serde(default = "default_offloads")]
    pub offloads: Spanned<String>,
    /// Polling mode of every switch: `adaptive` (default) or `busy`.
    #[serde(default = "default_polling")]
    pub polling: Spanned<String>,
    /// `canopy-switch` binary (default: next to this executable, then `PATH`).
    pub switch_bin: Option<PathBuf>,
    /// How long `up` waits for every switch to report healthy (s).
    #[serde(default = "default_timeout")]
    pub health_timeout_s: u64,
    /// VNI of the first cross-machine link (link i gets `vni_base + i`).
    #[serde(default = "default_vni")]
    pub vni_base: u32,
    /// Passed through to every switch's `[switch]` (workers, ring_size, pool, ...).
    #[serde(default)]
    pub switch: toml::Table,
    /// Port backends.
    #[serde(default)]
    pub ports: PortsDesc,
    /// Machines other than this one.
    #[serde(default)]
    pub machine: Vec<MachineDesc>,
    /// Node placement rules.
    #[serde(default)]
    pub place: Vec<PlaceDesc>,
    /// Real NICs for cross-machine links.
    #[serde(default)]
    pub nic: Vec<NicDesc>,
    /// The traffic generator's table, kept as written (validated by `canopy-testbed run`).
    #[serde(default)]
    pub traffic: Option<toml::Table>,
    /// The fabric's control daemon.
    #[serde(default)]
    pub canopyd: CanopydDesc,
    /// What forwards: `canopy` (default: one `canopy-switch` per switch) or `bmv2`
    /// (one `simple_switch` per switch running `p4/canopy.p4`, `docs/p4.md`).
    #[serde(default = "default_target")]
    pub target: Spanned<String>,
    /// Tools of the `bmv2` target.
    #[serde(default)]
    pub bmv2: Bmv2Desc,
    /// How the switches run: one shared process or one each.
    #[serde(default)]
    pub host: HostDesc,
    /// How adaptive switches spread a flow over its equal-cost up ports.
    #[serde(default)]
    pub up_policy: UpPolicy,
    /// Switches in QEMU guests.
    #[serde(default)]
    pub vm: VmDesc,
    /// Per-port capture on every switch: `canopy-switch`'s `[capture]`, with `dir`
    /// relative to the description and a directory per switch under it; bmv2's
    /// `--pcap` with the bmv2 target.
    pub capture: Option<canopy_switch::config::CaptureSection>,
}

/// `up_policy`: how a Canopy switch spreads the frames of one flow over the live ports
/// of an adaptive group (`docs/testbed.md`, "Up-port policy").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpPolicy {
    /// Flowlets: a flow keeps its port while its frames are closer together than the
    /// flowlet gap, which `run` derives from the fabric's measured latency spread
    /// unless `[switch] flowlet_gap_us` sets it.
    #[default]
    Flowlets,
    /// Every frame chooses the least occupied port afresh (reorders under load).
    PerPacket,
}

impl UpPolicy {
    /// Its name in descriptions and reports.
    pub fn name(self) -> &'static str {
        match self {
            UpPolicy::Flowlets => "flowlets",
            UpPolicy::PerPacket => "per-packet",
        }
    }
}

/// The flowlet gap switches start with under `up_policy = "flowlets"` when `[switch]`
/// sets none, until a run measures the fabric's spread and sets its own (µs).
pub const START_FLOWLET_GAP_US: u64 = 500;

fn default_target() -> Spanned<String> {
    Spanned::new(0..0, "canopy".into())
}

/// `[bmv2]`: the tools of `target = "bmv2"`; each default is found next to this
/// executable (canopyctl, the P4 program in the source tree) or on `PATH`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bmv2Desc {
    /// The P4 program (default: `p4/canopy.p4` of the source tree this binary was built in).
    pub program: Option<PathBuf>,
    /// `p4c`.
    pub p4c: Option<PathBuf>,
    /// `simple_switch`.
    pub simple_switch: Option<PathBuf>,
    /// `simple_switch_grpc` (bmv2 built with PI), which canopyd drives over P4Runtime.
    pub simple_switch_grpc: Option<PathBuf>,
    /// `simple_switch_CLI`.
    pub simple_switch_cli: Option<PathBuf>,
    /// `canopyctl` (it generates the table entries).
    pub canopyctl: Option<PathBuf>,
}

fn default_metrics() -> Spanned<String> {
    Spanned::new(0..0, canopyd::config::DEFAULT_METRICS.into())
}
fn default_probe_ms() -> u64 {
    100
}
fn default_missed() -> u32 {
    3
}

/// `[canopyd]`: whether `up` starts the fabric's control daemon, which pushes every
/// switch's tables and follows failures (`docs/canopyd.md`), and its settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CanopydDesc {
    /// Start `canopyd` (default: yes when every switch is on one machine, and with
    /// `target = "bmv2"` when `simple_switch_grpc` is installed). Without it every
    /// switch computes its own tables at start (bmv2: is programmed once at `up`) and
    /// nothing follows failures.
    pub enabled: Option<Spanned<bool>>,
    /// `/metrics`, `/healthz`, `/readyz` address, or `off`.
    #[serde(default = "default_metrics")]
    pub metrics: Spanned<String>,
    /// Health probe interval per switch (ms).
    #[serde(default = "default_probe_ms")]
    pub probe_interval_ms: u64,
    /// Missed probes in a row before a switch is declared down.
    #[serde(default = "default_missed")]
    pub missed_probes: u32,
    /// `canopyd` binary (default: next to this executable, then `PATH`).
    pub bin: Option<PathBuf>,
}

impl Default for CanopydDesc {
    fn default() -> Self {
        CanopydDesc {
            enabled: None,
            metrics: default_metrics(),
            probe_interval_ms: default_probe_ms(),
            missed_probes: default_missed(),
            bin: None,
        }
    }
}

/// `[[machine]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineDesc {
    /// Name used by `[[place]]` and `up --machine`.
    pub name: Spanned<String>,
    /// Underlay IP address (VXLAN endpoint of this machine).
    pub underlay: Spanned<String>,
    /// Test/lab feature: the network namespace (on this box) that stands in for the
    /// machine's underlay network; its VXLAN sockets live there.
    pub underlay_netns: Option<String>,
}

/// `[[place]]`: nodes matching any pattern run on `machine`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceDesc {
    /// Node names or patterns (`h3`, `edge-p0-*`, `h*`).
    pub nodes: Vec<Spanned<String>>,
    /// A `[[machine]]` name, or `local`.
    pub machine: Spanned<String>,
}

/// `[[nic]]`: a real interface carries the link of one switch port.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicDesc {
    /// `SWITCH:PORT`.
    pub port: Spanned<String>,
    /// Interface name on the machine that runs the switch.
    pub interface: Spanned<String>,
}

/// Validation hook for `[traffic]`: an error rejects the description, a
/// [`TestbedError::Traffic`] naming the table's key.
pub type TrafficCheck = fn(&toml::Table, &Topology, Kind) -> Result<()>;

/// A node of the topology.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Node {
    /// Switch index.
    Switch(u32),
    /// Host index.
    Host(u32),
}

/// How one link end is realised on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkKind {
    /// Both ends here: a veth pair.
    Veth,
    /// The far end is on `remote`: a VXLAN device with this VNI.
    Vxlan {
        /// VNI.
        vni: u32,
        /// Remote machine name.
        remote: String,
    },
    /// The far end is on another machine, reached through a real interface.
    Nic {
        /// The interface.
        interface: String,
    },
}

/// One link of the topology (one veth, VXLAN or NIC), from end `a` to end `b`.
#[derive(Debug, Clone)]
pub struct Link {
    /// Index in the topology's link order (the same on every machine).
    pub id: u32,
    /// First end: node and port.
    pub a: (Node, u16),
    /// Second end.
    pub b: (Node, u16),
}

/// A validated description with its topology.
#[derive(Debug)]
pub struct Desc {
    /// Where it came from (for messages).
    pub file: String,
    /// Its text (for line numbers).
    pub text: String,
    /// The raw description.
    pub raw: RawDesc,
    /// Fabric name.
    pub name: String,
    /// The topology.
    pub topo: Topology,
    /// Header kind.
    pub kind: Kind,
    /// Machine of every node.
    pub placement: HashMap<Node, String>,
    /// Every link, in topology order.
    pub links: Vec<Link>,
    /// NIC per switch port.
    pub nics: HashMap<(u32, u16), String>,
    /// `[[port]]` settings of every switch port (`[switch][port]`), from `[ports]`.
    pub ports: Vec<Vec<PortSettings>>,
    /// `up` starts `canopyd`, which pushes the tables (`[canopyd] enabled`).
    pub daemon: bool,
    /// `target = "bmv2"`: every switch is a bmv2 switch (`simple_switch_grpc` under
    /// canopyd, else `simple_switch`).
    pub bmv2: bool,
    /// `[host]`: this machine's switches in one `canopy-switch host` (None: one process
    /// per switch).
    pub host: Option<SharedHost>,
    /// `[capture] dir`, absolute: switch `s` captures into `<dir>/<its name>`.
    pub capture_dir: Option<PathBuf>,
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.get(..at).map_or(0, |t| t.matches('\n').count()) + 1
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(
        &self,
        key: &str,
        span: Option<std::ops::Range<usize>>,
        what: impl Into<String>,
    ) -> TestbedError {
        TestbedError::Desc {
            file: self.file.to_string(),
            key: key.to_string(),
            line: span
                .filter(|s| s.end > 0)
                .map(|s| line_of(self.text, s.start)),
            what: what.into(),
        }
    }
}

/// `text`, the contents of `file`, deserialized as `T`, with errors as
/// [`TestbedError::Desc`] (see [`from_toml`]).
pub(crate) fn toml_file<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T> {
    from_toml(&Ctx { file, text }, text)
}

/// `text` deserialized as `T`: an error names the key by its full dotted path
/// (`switch.flowlet_gap_us`, `machine[0].underlay`, `place[0].nodes[1]`; empty when the
/// TOML itself is malformed) and, when known, the line.
fn from_toml<T: serde::de::DeserializeOwned>(ctx: &Ctx, text: &str) -> Result<T> {
    use serde_path_to_error::Segment;
    serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
        let mut key = String::new();
        for seg in e.path().iter() {
            match seg {
                Segment::Seq { index } => key.push_str(&format!("[{index}]")),
                // the fields of `toml::Spanned` that wrap a value are not keys of the file
                Segment::Map { key: k } | Segment::Enum { variant: k }
                    if !k.starts_with("$__serde_spanned_private") =>
                {
                    if !key.is_empty() {
                        key.push('.');
                    }
                    key.push_str(k);
                }
                _ => {}
            }
        }
        let e = e.into_inner();
        ctx.err(&key, e.span(), e.message())
    })
}

/// Whether `name` matches the glob `pat` (`*` = any run of characters).
pub fn glob(pat: &str, name: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    if parts.len() == 1 {
        return pat == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Why a name is not a valid fabric (or machine) name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty or longer than [`MAX_NAME`] bytes.
    #[error(
        "must be 1..={MAX_NAME} bytes (namespaces are <name>-s<i>, <name>-h<i>), got {0} bytes"
    )]
    Length(usize),
    /// A character other than `a-z`, `0-9`, `-`.
    #[error("{0:?} may only contain a-z, 0-9 and '-'")]
    Chars(String),
    /// A `-` at either end.
    #[error("{0:?} must not start or end with '-'")]
    Dash(String),
}

/// Whether `name` is a valid fabric name.
pub fn valid_name(name: &str) -> std::result::Result<(), NameError> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(NameError::Length(name.len()));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(NameError::Chars(name.to_string()));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(NameError::Dash(name.to_string()));
    }
    Ok(())
}

/// Interface `name` exists in namespace `netns` (None = this one).
pub fn interface_exists(netns: Option<&str>, name: &str) -> bool {
    let mut args: Vec<&str> = vec![];
    if let Some(n) = netns {
        args.extend(["-n", n]);
    }
    args.extend(["link", "show", "dev", name]);
    crate::os::netns::ip(&args).is_ok()
}

impl Desc {
    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Desc> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            TestbedError::io(format!("read fabric description {}", path.display()), e)
        })?;
        Desc::parse(&path.display().to_string(), &text)
    }

    /// The node named `s` (a switch name or `h<index>`).
    pub fn node_name(&self, n: Node) -> String {
        match n {
            Node::Switch(i) => self.topo.switches[i as usize].name.clone(),
            Node::Host(h) => self.topo.host_name(h),
        }
    }

    /// Namespace of a node.
    pub fn netns(&self, n: Node) -> String {
        match n {
            Node::Switch(i) => format!("{}-s{i}", self.name),
            Node::Host(h) => format!("{}-h{h}", self.name),
        }
    }

    /// Interface name of a link end inside its node's namespace.
    pub fn ifname(n: Node, port: u16) -> String {
        match n {
            Node::Switch(i) => format!("s{i}p{port}"),
            Node::Host(h) => format!("h{h}p{port}"),
        }
    }

    /// The interface names of switch `s`'s ports, in port order.
    pub fn switch_ifnames(&self, s: u32) -> Vec<String> {
        let ports = self
            .topo
            .switches
            .get(s as usize)
            .map_or(0, |x| x.ports.len());
        (0..ports as u16)
            .map(|p| Desc::ifname(Node::Switch(s), p))
            .collect()
    }

    /// Machine of a node.
    pub fn machine_of(&self, n: Node) -> &str {
        self.placement.get(&n).map_or(LOCAL, String::as_str)
    }

    /// Line of byte offset `at` of the description.
    pub fn line(&self, at: usize) -> Option<usize> {
        (!self.text.is_empty()).then(|| line_of(&self.text, at))
    }

    /// The `[[machine]]` called `name`.
    pub fn machine(&self, name: &str) -> Option<&MachineDesc> {
        self.raw.machine.iter().find(|m| *m.name.get_ref() == name)
    }

    /// Check that `machine` exists and that every NIC it uses is there. `Ok` for
    /// `local`.
    pub fn check_machine(&self, machine: &str) -> Result<()> {
        let ctx = Ctx {
            file: &self.file,
            text: "",
        };
        if machine != LOCAL && self.machine(machine).is_none() {
            return Err(ctx.err(
                "--machine",
                None,
                format!(
                    "no [[machine]] named {machine:?} (machines: local{})",
                    self.raw
                        .machine
                        .iter()
                        .map(|m| format!(", {}", m.name.get_ref()))
                        .collect::<String>()
                ),
            ));
        }
        let underlay = self.machine(machine).and_then(|m| m.underlay_netns.clone());
        if let Some(u) = &underlay {
            if !Path::new("/run/netns").join(u).exists() {
                return Err(ctx.err(
                    "machine.underlay_netns",
                    None,
                    format!("namespace {u:?} of machine {machine:?} does not exist"),
                ));
            }
        }
        let mut mine: Vec<_> = self
            .nics
            .iter()
            .filter(|((sw, _), _)| self.machine_of(Node::Switch(*sw)) == machine)
            .collect();
        mine.sort();
        for ((sw, port), ifname) in mine {
            if !interface_exists(underlay.as_deref(), ifname) {
                let i = self
                    .raw
                    .nic
                    .iter()
                    .position(|n| {
                        n.interface.get_ref() == ifname
                            && n.port.get_ref().ends_with(&format!(":{port}"))
                    })
                    .unwrap_or(0);
                let line = self.raw.nic.get(i).map(|n| n.interface.span());
                return Err(TestbedError::Desc {
                    file: self.file.clone(),
                    key: format!("nic[{i}].interface"),
                    line: line.and_then(|l| self.line(l.start)),
                    what: format!(
                        "interface {ifname:?} (for {}:{port}) does not exist on machine {machine:?}{}",
                        self.topo.switches[*sw as usize].name,
                        underlay.as_ref().map(|u| format!(" (namespace {u})")).unwrap_or_default()
                    ),
                });
            }
        }
        Ok(())
    }

    /// Parse and validate a description's text (`file` names it in messages).
    /// The `[traffic]` table is checked by the traffic generator's own rules
    /// ([`crate::traffic::spec::desc_check`]): unknown keys, pattern vs host count, frame
    /// size, and a rate this machine cannot reach.
    pub fn parse(file: &str, text: &str) -> Result<Desc> {
        Desc::parse_with(file, text, Some(crate::traffic::spec::desc_check))
    }

    /// How the end `end` of `link` (an end on this end's machine) is realised there.
    pub fn end_kind(&self, link: &Link, end: (Node, u16)) -> LinkKind {
        let far = if end == link.a { link.b } else { link.a };
        let (mine, theirs) = (self.machine_of(end.0), self.machine_of(far.0));
        if mine == theirs {
            return LinkKind::Veth;
        }
        if let Node::Switch(s) = end.0 {
            if let Some(i) = self.nics.get(&(s, end.1)) {
                return LinkKind::Nic {
                    interface: i.clone(),
                };
            }
        }
        LinkKind::Vxlan {
            vni: self.raw.vni_base + link.id,
            remote: theirs.to_string(),
        }
    }

    /// Every switch's `[switch]` table: the description's `[switch]` with `mode` =
    /// `polling`, and under `up_policy = "flowlets"` without a gap of its own
    /// `flowlet_gap_us` = [`START_FLOWLET_GAP_US`].
    pub fn switch_table(&self) -> toml::Table {
        let mut t = self.raw.switch.clone();
        t.insert(
            "mode".into(),
            toml::Value::String(self.raw.polling.get_ref().clone()),
        );
        if self.raw.up_policy == UpPolicy::Flowlets && self.flowlet_gap_set().is_none() {
            t.insert(
                "flowlet_gap_us".into(),
                (START_FLOWLET_GAP_US as i64).into(),
            );
        }
        t
    }

    /// The flowlet gap `[switch] flowlet_gap_us` sets (µs), if it does.
    pub fn flowlet_gap_set(&self) -> Option<u64> {
        self.raw
            .switch
            .get("flowlet_gap_us")
            .and_then(toml::Value::as_integer)
            .and_then(|g| u64::try_from(g).ok())
    }

    /// Interface a host sends on and the interfaces it receives on (its input
    /// channels for Transit hosts; empty = the send interface).
    pub fn host_ifaces(&self, h: u32) -> (String, Vec<String>) {
        let host = &self.topo.hosts[h as usize];
        let mut tx = None;
        let mut rx = vec![];
        for (i, p) in host.ports.iter().enumerate() {
            if p.peer == Peer::None {
                continue;
            }
            let n = Desc::ifname(Node::Host(h), i as u16);
            match p.dir {
                PortDir::Duplex => {
                    tx.get_or_insert(n);
                }
                PortDir::Out => {
                    tx.get_or_insert(n);
                }
                PortDir::In => rx.push(n),
            }
        }
        (tx.unwrap_or_default(), rx)
    }
}

#[cfg(test)]
mod tests;
