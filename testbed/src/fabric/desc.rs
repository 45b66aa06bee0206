//! The fabric description (`examples/fabric-*.toml`, reference in `docs/testbed.md`):
//! parsed with `deny_unknown_fields`, then validated as a whole against the topology
//! before anything is created. Every error names the file, the key and, when known,
//! the line.

use crate::error::{Result, TestbedError};
use canopy_control::topology::{Peer, PortDir, Topology};
use canopy_dataplane::port::afxdp::{XdpMode, ETH_HLEN, XDP_PACKET_HEADROOM};
use canopy_dataplane::wire::Kind;
use canopy_switch::config::{BackendName, ConfigError, PortSpec};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
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
}

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
    /// Start `canopyd` (default: yes when every switch is on one machine). Without it
    /// every switch computes its own tables at start and nothing follows failures.
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

/// `[ports]`: the backend of every switch port with that backend's `[[port]]` keys, and
/// per-port exceptions (`docs/testbed.md`). Kept as written, every value with its span:
/// the keys are checked by `canopy-switch`'s own configuration parser on the generated
/// `[[port]]` tables (see [`Desc::port_table`]), so the testbed knows no backend key itself.
#[derive(Debug, Clone, Default)]
pub struct PortsDesc {
    /// `backend` (default `afpacket`) and its keys (`tpacket`; `mode`, `queue`, ...).
    pub keys: BTreeMap<String, Spanned<toml::Value>>,
    /// `[[ports.override]]`, in order: later ones win.
    pub overrides: Vec<PortOverride>,
}

impl<'de> Deserialize<'de> for PortsDesc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PortsDesc;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the [ports] table")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<PortsDesc, A::Error> {
                let mut p = PortsDesc::default();
                while let Some(k) = m.next_key::<String>()? {
                    if k == "override" {
                        p.overrides = m.next_value()?;
                    } else {
                        let v = m.next_value::<Spanned<toml::Value>>()?;
                        p.keys.insert(k, v);
                    }
                }
                Ok(p)
            }
        }
        d.deserialize_map(V)
    }
}

/// `[[ports.override]]`: `switch` (name pattern), optional `port`, and `backend` and/or
/// backend keys for the matching switch ports. Kept as written, like [`PortsDesc`].
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct PortOverride {
    /// Every key with its span.
    pub keys: BTreeMap<String, Spanned<toml::Value>>,
}

/// One setting of a switch port's `[[port]]` table and the fabric key that gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct PortKey {
    /// The value, as written.
    pub value: toml::Value,
    /// Fabric key (`ports.mode`, `ports.override[1].tpacket`).
    pub key: String,
    /// Where in the description (None: a default).
    pub span: Option<std::ops::Range<usize>>,
}

/// The `[[port]]` settings of one switch port, resolved from `[ports]` and the matching
/// `[[ports.override]]`s: a layer that names another backend than the port has so far
/// starts afresh (keys of one backend never leak into another's table); otherwise its
/// keys replace or add to the earlier ones.
#[derive(Debug, Clone, PartialEq)]
pub struct PortSettings {
    /// `backend` and the backend's keys (never `interface`: the testbed names it).
    pub keys: BTreeMap<String, PortKey>,
    /// The most specific table that applies (`ports`, `ports.override[i]`) and its span,
    /// named by errors about the port as a whole.
    pub layer: (String, Option<std::ops::Range<usize>>),
}

impl Default for PortSettings {
    fn default() -> Self {
        let mut keys = BTreeMap::new();
        keys.insert(
            "backend".to_string(),
            PortKey {
                value: toml::Value::String("afpacket".into()),
                key: "ports.backend".into(),
                span: None,
            },
        );
        PortSettings {
            keys,
            layer: ("ports".into(), None),
        }
    }
}

impl PortSettings {
    /// The backend name (`afpacket`, `afxdp`).
    pub fn backend(&self) -> &str {
        self.keys
            .get("backend")
            .and_then(|k| k.value.as_str())
            .unwrap_or("afpacket")
    }

    /// Apply one layer (`[ports]` or an override) named `layer`; `skip` are its keys that
    /// select ports rather than set them.
    fn apply(
        &mut self,
        layer: &str,
        keys: &BTreeMap<String, Spanned<toml::Value>>,
        skip: &[&str],
        layer_span: Option<std::ops::Range<usize>>,
    ) {
        if let Some(b) = keys.get("backend") {
            if self.keys.get("backend").map(|k| &k.value) != Some(b.get_ref()) {
                self.keys.clear();
            }
        }
        for (k, v) in keys.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
            self.keys.insert(
                k.clone(),
                PortKey {
                    value: v.get_ref().clone(),
                    key: format!("{layer}.{k}"),
                    span: Some(v.span()).filter(|s| s.end > 0),
                },
            );
        }
        self.layer = (layer.to_string(), layer_span);
    }

    /// Where `key` was set, or the layer when it was not (a default).
    fn origin(&self, key: &str) -> (String, Option<std::ops::Range<usize>>) {
        match self.keys.get(key) {
            Some(k) => (k.key.clone(), k.span.clone()),
            None => self.layer.clone(),
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

/// Validation hook for `[traffic]`: `Err((key, what))` rejects the description.
pub type TrafficCheck =
    fn(&toml::Table, &Topology, Kind) -> std::result::Result<(), (String, String)>;

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
    /// `target = "bmv2"`: every switch is a bmv2 `simple_switch`.
    pub bmv2: bool,
}

/// Whether the testbed can give a switch port this `canopy-switch` backend: every port is
/// an interface in the switch's namespace (a veth, a VXLAN device or a NIC). A backend
/// added to `canopy-switch` is refused here, naming it, until the testbed says how it
/// opens the port (its `[[port]]` keys in [`Desc::port_table`]) and where it can run
/// ([`Desc::check_port_place`]).
fn testbed_backend(b: BackendName) -> std::result::Result<(), String> {
    match b {
        BackendName::Afpacket | BackendName::Afxdp | BackendName::Dpdk => Ok(()),
        BackendName::Mem => Err(
            "in-process (`mem`) ports cannot carry a fabric link: use \"afpacket\", \"afxdp\" or \"dpdk\""
                .into(),
        ),
        // backends canopy-switch gains later
        #[allow(unreachable_patterns)]
        other => Err(format!(
            "canopy-switch knows this backend ({other:?}), but the testbed cannot give it a fabric port yet: use \"afpacket\", \"afxdp\" or \"dpdk\""
        )),
    }
}

/// `[ports]` and `[[ports.override]]` resolved for every switch port (`[switch][port]`).
/// Checked here: what selects ports (`switch` patterns, `port`), `backend` is a backend
/// `canopy-switch` knows ([`BackendName`], its own names) and the testbed can use, and no
/// `interface`. Every other key is checked by `canopy-switch`'s parser on the generated
/// tables ([`Desc::check_ports`]).
fn resolve_ports(ctx: &Ctx, pd: &PortsDesc, topo: &Topology) -> Result<Vec<Vec<PortSettings>>> {
    let own = |layer: &str, keys: &BTreeMap<String, Spanned<toml::Value>>| -> Result<()> {
        if let Some(v) = keys.get("interface") {
            return Err(ctx.err(
                &format!("{layer}.interface"),
                Some(v.span()),
                "the testbed names every switch port's interface (s<i>p<j> in the switch's namespace); a real NIC is given with [[nic]]",
            ));
        }
        if let Some(v) = keys.get("device") {
            return Err(ctx.err(
                &format!("{layer}.device"),
                Some(v.span()),
                "the testbed names every dpdk port's device: net_af_packet<j> for port j, DPDK's af_packet vdev over the port's interface (s<i>p<j>, a veth or a [[nic]] moved into the switch's namespace); a NIC bound to a DPDK driver (vfio-pci) has no interface for the testbed to wire, so it cannot be a [[nic]] (see docs/testbed.md)",
            ));
        }
        if let Some(b) = keys.get("backend") {
            let key = format!("{layer}.backend");
            let name = b.get_ref().as_str().ok_or_else(|| {
                ctx.err(
                    &key,
                    Some(b.span()),
                    format!(
                        "{}: expected a string (\"afpacket\", \"afxdp\", \"dpdk\")",
                        b.get_ref()
                    ),
                )
            })?;
            let known =
                BackendName::deserialize(toml::Value::String(name.into())).map_err(|e| {
                    ctx.err(
                        &key,
                        Some(b.span()),
                        format!("{name:?}: {}", e.to_string().trim_end()),
                    )
                })?;
            testbed_backend(known)
                .map_err(|w| ctx.err(&key, Some(b.span()), format!("{name:?}: {w}")))?;
        }
        Ok(())
    };
    own("ports", &pd.keys)?;
    let mut base = PortSettings::default();
    base.apply("ports", &pd.keys, &[], None);
    let mut out: Vec<Vec<PortSettings>> = topo
        .switches
        .iter()
        .map(|s| vec![base.clone(); s.ports.len()])
        .collect();
    for (i, o) in pd.overrides.iter().enumerate() {
        let layer = format!("ports.override[{i}]");
        own(&layer, &o.keys)?;
        let Some(sw) = o.keys.get("switch") else {
            return Err(ctx.err(
                &layer,
                o.keys.values().next().map(|v| v.span()),
                "missing `switch` (a switch name or pattern such as \"edge-*\")",
            ));
        };
        let pat = sw.get_ref().as_str().ok_or_else(|| {
            ctx.err(
                &format!("{layer}.switch"),
                Some(sw.span()),
                "expected a string: a switch name or pattern such as \"edge-*\"",
            )
        })?;
        let port = match o.keys.get("port") {
            None => None,
            Some(v) => Some(
                v.get_ref()
                    .as_integer()
                    .and_then(|p| u16::try_from(p).ok())
                    .ok_or_else(|| {
                        ctx.err(
                            &format!("{layer}.port"),
                            Some(v.span()),
                            format!("{}: expected a port number", v.get_ref()),
                        )
                    })?,
            ),
        };
        if o.keys.keys().all(|k| k == "switch" || k == "port") {
            return Err(ctx.err(
                &layer,
                Some(sw.span()),
                "sets nothing: give `backend` and/or the backend's keys (`tpacket`; `mode`, `queue`, `queues`, ring sizes; `queues`, `rx_desc`, `tx_desc`)",
            ));
        }
        let mut any = false;
        for (si, s) in topo.switches.iter().enumerate() {
            if !glob(pat, &s.name) {
                continue;
            }
            for p in 0..s.ports.len() as u16 {
                if port.is_none_or(|q| q == p) {
                    any = true;
                    out[si][usize::from(p)].apply(
                        &layer,
                        &o.keys,
                        &["switch", "port"],
                        Some(sw.span()),
                    );
                }
            }
        }
        if !any {
            return Err(ctx.err(
                &layer,
                Some(sw.span()),
                format!(
                    "no switch port matches {pat:?}{}",
                    port.map(|p| format!(" port {p}")).unwrap_or_default()
                ),
            ));
        }
    }
    Ok(out)
}

/// `what` without the " (line N)" the switch's parser appends (a line of the generated
/// configuration, not of the description).
fn strip_line(what: &str) -> &str {
    match what.rfind(" (line ") {
        Some(i) if what.ends_with(')') => &what[..i],
        _ => what,
    }
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

/// Whether `name` is a valid fabric name.
pub fn valid_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(format!(
            "must be 1..={MAX_NAME} bytes (namespaces are <name>-s<i>, <name>-h<i>), got {} bytes",
            name.len()
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(format!("{name:?} may only contain a-z, 0-9 and '-'"));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err(format!("{name:?} must not start or end with '-'"));
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
    crate::netns::ip(&args).is_ok()
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

    /// [`Desc::parse`], plus `traffic` run on the `[traffic]` table (when present) with
    /// the topology, as part of the validation before anything is created: the hook for
    /// the traffic generator's checks (e.g. a rate this machine cannot reach). Its error
    /// `(key, what)` is reported as `traffic.<key>` of the file.
    pub fn parse_with(file: &str, text: &str, traffic: Option<TrafficCheck>) -> Result<Desc> {
        let ctx = Ctx { file, text };
        let raw: RawDesc = toml::from_str(text).map_err(|e| TestbedError::Desc {
            file: file.to_string(),
            key: String::new(),
            line: e.span().map(|s| line_of(text, s.start)),
            what: e.message().to_string(),
        })?;
        let name = raw.name.get_ref().clone();
        valid_name(&name).map_err(|w| ctx.err("name", Some(raw.name.span()), w))?;
        let topo = canopy_control::build_str(raw.topology.get_ref())
            .map_err(|e| ctx.err("topology", Some(raw.topology.span()), e.to_string()))?;
        let nodes = topo.switches.len() + topo.hosts.len();
        if nodes > MAX_NODES {
            return Err(ctx.err(
                "topology",
                Some(raw.topology.span()),
                format!(
                    "{} switches and {} hosts: a testbed fabric has at most {MAX_NODES} (one network namespace each)",
                    topo.switches.len(),
                    topo.hosts.len()
                ),
            ));
        }
        let kind = Kind::from_name(raw.kind.get_ref()).ok_or_else(|| {
            ctx.err(
                "kind",
                Some(raw.kind.span()),
                format!(
                    "unknown header kind {:?} (sliced, path-id, transit)",
                    raw.kind.get_ref()
                ),
            )
        })?;
        canopy_control::kinds::supports(&topo, kind)
            .map_err(|e| ctx.err("kind", Some(raw.kind.span()), e.to_string()))?;
        let mtu = *raw.mtu.get_ref();
        if !(68..=9000).contains(&mtu) {
            return Err(ctx.err(
                "mtu",
                Some(raw.mtu.span()),
                format!("{mtu} is outside 68..=9000"),
            ));
        }
        if !matches!(raw.offloads.get_ref().as_str(), "off" | "keep") {
            return Err(ctx.err(
                "offloads",
                Some(raw.offloads.span()),
                format!("{:?}: expected \"off\" or \"keep\"", raw.offloads.get_ref()),
            ));
        }
        if !matches!(raw.polling.get_ref().as_str(), "adaptive" | "busy") {
            return Err(ctx.err(
                "polling",
                Some(raw.polling.span()),
                format!(
                    "{:?}: expected \"adaptive\" or \"busy\"",
                    raw.polling.get_ref()
                ),
            ));
        }
        if raw.switch.contains_key("mode") {
            return Err(ctx.err(
                "switch.mode",
                None,
                "set the polling mode with the top-level `polling` key",
            ));
        }
        <canopy_switch::config::SwitchSection as Deserialize>::deserialize(toml::Value::Table(
            raw.switch.clone(),
        ))
        .map_err(|e| ctx.err("switch", None, e.to_string()))?;
        if raw.health_timeout_s == 0 || raw.health_timeout_s > 3600 {
            return Err(ctx.err("health_timeout_s", None, "must be 1..=3600"));
        }
        let sw_index: HashMap<&str, u32> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i as u32))
            .collect();
        let ports = resolve_ports(&ctx, &raw.ports, &topo)?;
        // machines
        let mut machines: BTreeMap<String, usize> = BTreeMap::new();
        for (i, m) in raw.machine.iter().enumerate() {
            let key = format!("machine[{i}].name");
            let n = m.name.get_ref();
            valid_name(n).map_err(|w| ctx.err(&key, Some(m.name.span()), w))?;
            if n == LOCAL {
                return Err(ctx.err(
                    &key,
                    Some(m.name.span()),
                    "\"local\" is reserved for this machine",
                ));
            }
            if let Some(j) = machines.insert(n.clone(), i) {
                return Err(ctx.err(
                    &key,
                    Some(m.name.span()),
                    format!("machine {n:?} is named twice (also machine[{j}])"),
                ));
            }
            m.underlay.get_ref().parse::<IpAddr>().map_err(|e| {
                ctx.err(
                    &format!("machine[{i}].underlay"),
                    Some(m.underlay.span()),
                    format!("{:?}: {e}", m.underlay.get_ref()),
                )
            })?;
        }
        // placement: exact names may appear once; first matching rule wins
        let mut names: Vec<(Node, String)> = topo
            .switches
            .iter()
            .enumerate()
            .map(|(i, s)| (Node::Switch(i as u32), s.name.clone()))
            .collect();
        names.extend((0..topo.hosts.len() as u32).map(|h| (Node::Host(h), topo.host_name(h))));
        let mut placement = HashMap::new();
        let mut exact: HashMap<String, String> = HashMap::new();
        for (i, p) in raw.place.iter().enumerate() {
            let m = p.machine.get_ref();
            if m != LOCAL && !machines.contains_key(m) {
                return Err(ctx.err(
                    &format!("place[{i}].machine"),
                    Some(p.machine.span()),
                    format!("no [[machine]] named {m:?}"),
                ));
            }
            for (j, pat) in p.nodes.iter().enumerate() {
                let key = format!("place[{i}].nodes[{j}]");
                let pat_s = pat.get_ref();
                if !pat_s.contains('*') {
                    if let Some(prev) = exact.insert(pat_s.clone(), key.clone()) {
                        return Err(ctx.err(
                            &key,
                            Some(pat.span()),
                            format!("node {pat_s:?} is placed twice (also {prev})"),
                        ));
                    }
                }
                let mut any = false;
                for (n, nm) in &names {
                    if glob(pat_s, nm) {
                        any = true;
                        placement.entry(*n).or_insert_with(|| m.clone());
                    }
                }
                if !any {
                    return Err(ctx.err(
                        &key,
                        Some(pat.span()),
                        format!(
                            "no node of {} matches {pat_s:?} (switches like {}, hosts h0..h{})",
                            raw.topology.get_ref(),
                            topo.switches.first().map_or("", |s| s.name.as_str()),
                            topo.hosts.len().saturating_sub(1)
                        ),
                    ));
                }
            }
        }
        // links, in topology order
        let mut links = Vec::new();
        for (si, s) in topo.switches.iter().enumerate() {
            for (pi, p) in s.ports.iter().enumerate() {
                let a = (Node::Switch(si as u32), pi as u16);
                let b = match p.peer {
                    Peer::None => continue,
                    Peer::Switch { sw, port } => {
                        if (sw, port) < (si as u32, pi as u16) {
                            continue;
                        }
                        (Node::Switch(sw), port)
                    }
                    Peer::Host { host, port } => (Node::Host(host), port),
                };
                let id = links.len() as u32;
                links.push(Link { id, a, b });
            }
        }
        // NICs
        let mut nics = HashMap::new();
        let mut nic_if: HashMap<(String, String), String> = HashMap::new();
        for (i, n) in raw.nic.iter().enumerate() {
            let key = format!("nic[{i}].port");
            let ps = n.port.get_ref();
            let (swn, pn) = ps.rsplit_once(':').ok_or_else(|| {
                ctx.err(
                    &key,
                    Some(n.port.span()),
                    format!("{ps:?}: expected SWITCH:PORT"),
                )
            })?;
            let &sw = sw_index.get(swn).ok_or_else(|| {
                ctx.err(
                    &key,
                    Some(n.port.span()),
                    format!("no switch named {swn:?} in {}", raw.topology.get_ref()),
                )
            })?;
            let nports = topo.switches[sw as usize].ports.len();
            let port: u16 = pn
                .parse()
                .ok()
                .filter(|&p: &u16| (p as usize) < nports)
                .ok_or_else(|| {
                    ctx.err(
                        &key,
                        Some(n.port.span()),
                        format!("{pn:?} is not a port of {swn} (0..{nports})"),
                    )
                })?;
            if nics
                .insert((sw, port), n.interface.get_ref().clone())
                .is_some()
            {
                return Err(ctx.err(
                    &key,
                    Some(n.port.span()),
                    format!("port {ps} is wired twice"),
                ));
            }
            let ifn = n.interface.get_ref();
            if ifn.is_empty() || ifn.len() > 15 || ifn.contains(['/', ' ', ':']) {
                return Err(ctx.err(
                    &format!("nic[{i}].interface"),
                    Some(n.interface.span()),
                    format!("{ifn:?} is not an interface name (1..=15 bytes)"),
                ));
            }
            let mach = placement
                .get(&Node::Switch(sw))
                .cloned()
                .unwrap_or_else(|| LOCAL.to_string());
            if let Some(prev) = nic_if.insert((mach.clone(), ifn.clone()), ps.clone()) {
                return Err(ctx.err(&format!("nic[{i}].interface"), Some(n.interface.span()), format!("interface {ifn:?} on machine {mach:?} is wired twice (ports {prev} and {ps})")));
            }
            let link = links
                .iter()
                .find(|l| l.a == (Node::Switch(sw), port) || l.b == (Node::Switch(sw), port))
                .ok_or_else(|| {
                    ctx.err(
                        &key,
                        Some(n.port.span()),
                        format!("port {ps} is not connected in the topology"),
                    )
                })?;
            let m = |n: Node| placement.get(&n).map_or(LOCAL, String::as_str);
            if m(link.a.0) == m(link.b.0) {
                return Err(ctx.err(&key, Some(n.port.span()), format!("the link of port {ps} does not cross machines (both ends on {:?}); NICs carry cross-machine links only", m(link.a.0))));
            }
        }
        // a cross-machine link with a NIC on one end needs one on the other
        let mut desc = Desc {
            file: file.to_string(),
            text: text.to_string(),
            raw,
            name,
            topo,
            kind,
            placement,
            links,
            nics,
            ports,
            daemon: false,
            bmv2: false,
        };
        desc.bmv2 = match desc.raw.target.get_ref().as_str() {
            "canopy" => false,
            "bmv2" => true,
            t => {
                return Err(ctx.err(
                    "target",
                    Some(desc.raw.target.span()),
                    format!("{t:?}: \"canopy\" or \"bmv2\""),
                ))
            }
        };
        let cd = &desc.raw.canopyd;
        let switch_machines: std::collections::BTreeSet<&str> = (0..desc.topo.switches.len()
            as u32)
            .map(|s| desc.machine_of(Node::Switch(s)))
            .collect();
        if desc.bmv2 {
            if let Some(e) = cd.enabled.as_ref().filter(|e| *e.get_ref()) {
                return Err(ctx.err(
                    "canopyd.enabled",
                    Some(e.span()),
                    "canopyd manages canopy-switch processes; with target = \"bmv2\" the switches are programmed once at `up` (set enabled = false or drop the key)",
                ));
            }
        }
        desc.daemon = match &cd.enabled {
            Some(e) if *e.get_ref() && switch_machines.len() > 1 => {
                return Err(ctx.err("canopyd.enabled", Some(e.span()), format!(
                    "the testbed runs canopyd only when every switch is on one machine (these are on {}); run canopyd yourself with TCP management endpoints (docs/ops-systemd.md), or set enabled = false",
                    switch_machines.iter().copied().collect::<Vec<_>>().join(", ")
                )));
            }
            Some(e) => *e.get_ref(),
            None => switch_machines.len() <= 1 && !desc.bmv2,
        };
        let m = cd.metrics.get_ref();
        if m != "off" && m.parse::<std::net::SocketAddr>().is_err() {
            return Err(ctx.err(
                "canopyd.metrics",
                Some(cd.metrics.span()),
                format!("{m:?}: an IP:PORT address (e.g. 127.0.0.1:9464) or \"off\""),
            ));
        }
        if !(10..=60_000).contains(&cd.probe_interval_ms) {
            return Err(ctx.err(
                "canopyd.probe_interval_ms",
                None,
                format!("{} is outside 10..=60000", cd.probe_interval_ms),
            ));
        }
        if !(1..=100).contains(&cd.missed_probes) {
            return Err(ctx.err(
                "canopyd.missed_probes",
                None,
                format!("{} is outside 1..=100", cd.missed_probes),
            ));
        }
        for l in &desc.links {
            if desc.machine_of(l.a.0) == desc.machine_of(l.b.0) {
                continue;
            }
            let nic = |e: (Node, u16)| matches!(e.0, Node::Switch(s) if desc.nics.contains_key(&(s, e.1)));
            if nic(l.a) != nic(l.b) {
                return Err(ctx.err("nic", None, format!(
                    "the link {}:{} - {}:{} crosses machines with a NIC on one end only (give both ends a [[nic]], or neither for VXLAN)",
                    desc.node_name(l.a.0), l.a.1, desc.node_name(l.b.0), l.b.1
                )));
            }
            for m in [desc.machine_of(l.a.0), desc.machine_of(l.b.0)] {
                if m == LOCAL {
                    return Err(ctx.err("place", None, format!(
                        "the link {}:{} - {}:{} crosses machines, but one end is on \"local\": with several machines, place every node on a named [[machine]]",
                        desc.node_name(l.a.0), l.a.1, desc.node_name(l.b.0), l.b.1
                    )));
                }
            }
        }
        desc.check_ports(&ctx)?;
        if let (Some(check), Some(t)) = (traffic, &desc.raw.traffic) {
            check(t, &desc.topo, desc.kind).map_err(|(key, what)| {
                let line = text.find("[traffic]").map(|at| line_of(text, at));
                TestbedError::Desc {
                    file: file.to_string(),
                    key: if key.is_empty() {
                        "traffic".into()
                    } else {
                        format!("traffic.{key}")
                    },
                    line,
                    what,
                }
            })?;
        }
        Ok(desc)
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

    /// Every switch's `[switch]` table: the description's `[switch]` with `mode` = `polling`.
    pub fn switch_table(&self) -> toml::Table {
        let mut t = self.raw.switch.clone();
        t.insert(
            "mode".into(),
            toml::Value::String(self.raw.polling.get_ref().clone()),
        );
        t
    }

    /// The `[[port]]` table of port `port` of switch `sw`: `backend`, `interface` (the
    /// port's name in the switch's namespace) and the backend's keys from `[ports]`.
    pub fn port_table(&self, sw: u32, port: u16) -> toml::Table {
        let mut t = toml::Table::new();
        if let Some(ps) = self
            .ports
            .get(sw as usize)
            .and_then(|r| r.get(usize::from(port)))
        {
            for (k, v) in &ps.keys {
                t.insert(k.clone(), v.value.clone());
            }
        }
        t.entry("backend")
            .or_insert_with(|| toml::Value::String("afpacket".into()));
        if t.get("backend").and_then(|b| b.as_str()) == Some("dpdk") {
            // the interface goes into the device's --vdev ([`Desc::dpdk_table`])
            t.insert("device".into(), Desc::dpdk_device(port).into());
        } else {
            t.insert(
                "interface".into(),
                Desc::ifname(Node::Switch(sw), port).into(),
            );
        }
        t
    }

    /// The DPDK device of switch port `port` when its backend is `dpdk`: an af_packet
    /// vdev named after the port (`net_af_packet<port>`).
    pub fn dpdk_device(port: u16) -> String {
        format!("net_af_packet{port}")
    }

    /// The `[dpdk]` table of switch `sw` (None: no `dpdk` port): `--no-pci` and one
    /// `--vdev=net_af_packet<j>,iface=s<sw>p<j>,framecnt=8192` per dpdk port `j` (with
    /// `qpairs=N` when the port has `queues = N > 1`: the PMD's N sockets share the
    /// interface's traffic by `PACKET_FANOUT`). No `--file-prefix`: canopy-switch's own
    /// (`canopy<pid>`) differs per switch process, and with `--in-memory` (its default)
    /// no switch leaves files behind.
    pub fn dpdk_table(&self, sw: u32) -> Option<toml::Table> {
        let ports = self.ports.get(sw as usize)?;
        let mut args = vec![toml::Value::String("--no-pci".into())];
        for (p, ps) in ports.iter().enumerate() {
            if ps.backend() != "dpdk" {
                continue;
            }
            let p = p as u16;
            let queues = ps
                .keys
                .get("queues")
                .and_then(|q| q.value.as_integer())
                .unwrap_or(1);
            let qpairs = if queues > 1 {
                format!(",qpairs={queues}")
            } else {
                String::new()
            };
            args.push(toml::Value::String(format!(
                "--vdev={},iface={},framecnt=8192{qpairs}",
                Desc::dpdk_device(p),
                Desc::ifname(Node::Switch(sw), p)
            )));
        }
        if args.len() == 1 {
            return None;
        }
        let mut t = toml::Table::new();
        t.insert("eal_args".into(), toml::Value::Array(args));
        Some(t)
    }

    /// The switches with at least one `dpdk` port.
    pub fn dpdk_switches(&self) -> Vec<u32> {
        (0..self.topo.switches.len() as u32)
            .filter(|&s| self.port_backends(s).iter().any(|b| b == "dpdk"))
            .collect()
    }

    /// The backend of every port of switch `sw`, as `[ports]` gives it.
    pub fn port_backends(&self, sw: u32) -> Vec<String> {
        self.ports
            .get(sw as usize)
            .map(|r| r.iter().map(|p| p.backend().to_string()).collect())
            .unwrap_or_default()
    }

    /// Every switch's `[switch]` and `[[port]]` tables, as `up` writes them, through
    /// `canopy-switch`'s own configuration parser (every key, type, range and combination
    /// checked by the switch's rules, once, before anything is built; its errors are
    /// given back as the fabric key and line that set the value), then the testbed's
    /// rules of where each backend can run ([`Desc::check_port_place`]).
    fn check_ports(&self, ctx: &Ctx) -> Result<()> {
        if self.bmv2 {
            for ps in self.ports.iter().flatten() {
                if ps.backend() != "afpacket" {
                    let (k, sp) = ps.origin("backend");
                    return Err(ctx.err(&k, sp, format!(
                        "{:?}: with target = \"bmv2\" simple_switch opens the switch ports itself; port backends apply to target = \"canopy\"",
                        ps.backend()
                    )));
                }
            }
            return Ok(());
        }
        for sw in 0..self.topo.switches.len() as u32 {
            let mut t = toml::Table::new();
            t.insert("switch".into(), toml::Value::Table(self.switch_table()));
            let mut m = toml::Table::new();
            m.insert(
                "socket".into(),
                "/run/canopy-testbed/check.sock".to_string().into(),
            );
            t.insert("management".into(), toml::Value::Table(m));
            let ports = (0..self.topo.switches[sw as usize].ports.len() as u16)
                .map(|p| toml::Value::Table(self.port_table(sw, p)))
                .collect();
            t.insert("port".into(), toml::Value::Array(ports));
            if let Some(d) = self.dpdk_table(sw) {
                t.insert("dpdk".into(), toml::Value::Table(d));
            }
            let text = toml::to_string(&t).map_err(|e| {
                ctx.err("ports", None, format!("cannot write a [[port]] table: {e}"))
            })?;
            // every rule but the build's features: the switch binary is asked about
            // those by `up` (`canopy-switch check-config`)
            let cfg =
                canopy_switch::config::Config::parse_rules(Path::new("generated.toml"), &text)
                    .map_err(|e| self.switch_rules_error(ctx, sw, &e))?;
            for (p, spec) in cfg.ports.iter().enumerate() {
                self.check_port_place(ctx, sw, p as u16, spec)?;
            }
        }
        Ok(())
    }

    /// An error of `canopy-switch`'s parser on switch `sw`'s generated configuration,
    /// named by the fabric key (and line) that set the value.
    fn switch_rules_error(&self, ctx: &Ctx, sw: u32, e: &ConfigError) -> TestbedError {
        let swname = &self.topo.switches[sw as usize].name;
        let what = strip_line(&e.what);
        if let Some((idx, tail)) = e.key.strip_prefix("port[").and_then(|r| r.split_once(']')) {
            if let Some(ps) = idx
                .parse::<usize>()
                .ok()
                .and_then(|p| self.ports[sw as usize].get(p).map(|ps| (p, ps)))
                .map(|(p, ps)| {
                    let (k, sp) = match tail.strip_prefix('.') {
                        Some(key) => ps.origin(key),
                        // about the port as a whole (ring geometry, say): the key the
                        // message speaks of ("rx ring size ..."), else the table
                        None => {
                            let lower = what.to_lowercase();
                            ps.keys
                                .keys()
                                .find(|k| lower.contains(&k.replace('_', " ")))
                                .map_or_else(|| ps.layer.clone(), |k| ps.origin(k))
                        }
                    };
                    ctx.err(
                        &k,
                        sp,
                        format!("{what} (port {swname}:{p}, backend {})", ps.backend()),
                    )
                })
            {
                return ps;
            }
        }
        if e.key.starts_with("switch") {
            return ctx.err(&e.key, None, format!("{what} (switch {swname})"));
        }
        ctx.err(
            "ports",
            None,
            format!("the generated configuration of {swname}: {}: {what}", e.key),
        )
    }

    /// Whether the port's backend, as the switch parsed it, can work where the testbed
    /// puts the port: a veth (both ends on this machine, or an unconnected port), a VXLAN
    /// device (the far end on another machine), or a `[[nic]]`.
    fn check_port_place(&self, ctx: &Ctx, sw: u32, port: u16, spec: &PortSpec) -> Result<()> {
        let ps = &self.ports[sw as usize][usize::from(port)];
        let at = format!("port {}:{port}", self.topo.switches[sw as usize].name);
        let end = (Node::Switch(sw), port);
        let kind = self
            .links
            .iter()
            .find(|l| l.a == end || l.b == end)
            .map_or(LinkKind::Veth, |l| self.end_kind(l, end));
        let fail = |key: &str, what: String| {
            let (k, sp) = ps.origin(key);
            Err(ctx.err(&k, sp, format!("{what} ({at})")))
        };
        match spec {
            PortSpec::AfPacket { .. } => Ok(()),
            PortSpec::Mem { .. } => fail(
                "backend",
                "in-process (`mem`) ports cannot carry a fabric link".into(),
            ),
            PortSpec::AfXdp { cfg, queues, .. } => {
                let dev = match &kind {
                    LinkKind::Veth => Some("a veth"),
                    LinkKind::Vxlan { .. } => Some("a VXLAN device"),
                    LinkKind::Nic { .. } => None,
                };
                if let Some(dev) = dev {
                    if cfg.mode == XdpMode::ZeroCopy {
                        return fail("mode", format!(
                            "\"zerocopy\": the port is {dev}, which has no zero-copy AF_XDP (a NIC driver's feature); use \"copy\", \"skb\" or \"auto\", or zero-copy on a [[nic]] port"
                        ));
                    }
                    if matches!(kind, LinkKind::Vxlan { .. }) && cfg.mode == XdpMode::Copy {
                        return fail("mode", format!(
                            "\"copy\" needs native XDP, which {dev} does not have; use \"skb\" or \"auto\" (which falls back to generic XDP)"
                        ));
                    }
                    if u64::from(cfg.queue) + u64::from(*queues) > 1 {
                        let key = if ps.keys.contains_key("queues") {
                            "queues"
                        } else {
                            "queue"
                        };
                        return fail(key, format!(
                            "queues {}..{} of {dev}: the testbed creates its veths and VXLAN devices with one queue (queue 0); several queues need a [[nic]] port with that many channels (`ethtool -l`)",
                            cfg.queue,
                            u64::from(cfg.queue) + u64::from(*queues)
                        ));
                    }
                }
                let mtu = *self.raw.mtu.get_ref();
                let frame = mtu + ETH_HLEN as u32;
                let max_rx = cfg.frame_size.saturating_sub(XDP_PACKET_HEADROOM);
                if frame > max_rx {
                    let key = if ps.keys.contains_key("frame_size") {
                        "frame_size".to_string()
                    } else {
                        String::new()
                    };
                    let (k, sp) = if key.is_empty() {
                        (
                            "mtu".to_string(),
                            Some(self.raw.mtu.span()).filter(|s| s.end > 0),
                        )
                    } else {
                        ps.origin(&key)
                    };
                    return Err(ctx.err(&k, sp, format!(
                        "mtu {mtu} gives frames of {frame} bytes, but an AF_XDP port with {}-byte chunks receives at most {max_rx} (chunk minus {XDP_PACKET_HEADROOM} bytes of headroom): set frame_size = 4096 on afxdp ports or lower the mtu ({at})",
                        cfg.frame_size
                    )));
                }
                Ok(())
            }
            PortSpec::Dpdk { .. } => match &kind {
                // an af_packet vdev over the veth (queues: the PMD's qpairs, fanned out)
                // or over the [[nic]]'s interface, renamed s<i>p<j> in the namespace
                LinkKind::Veth | LinkKind::Nic { .. } => {
                    let mtu = *self.raw.mtu.get_ref();
                    if mtu > DPDK_AF_PACKET_MTU {
                        return Err(ctx.err(
                            "mtu",
                            Some(self.raw.mtu.span()).filter(|s| s.end > 0),
                            format!("mtu {mtu} with dpdk ports: DPDK's af_packet PMD takes frames of at most {} bytes (its max_rx_pktlen, RTE_ETHER_MAX_LEN, in 2048-byte ring frames), so mtu {DPDK_AF_PACKET_MTU} at most; lower the mtu or use \"afpacket\"/\"afxdp\" on these ports ({at})", DPDK_AF_PACKET_MTU + 18),
                        ));
                    }
                    Ok(())
                }
                LinkKind::Vxlan { .. } => fail(
                    "backend",
                    "\"dpdk\": the port is a VXLAN device (its far end is on another machine): the kernel encapsulates every frame there, so DPDK's af_packet vdev on it would be AF_PACKET with one more copy, and the testbed does not check it; use \"afpacket\" or \"afxdp\" (mode \"skb\") on VXLAN ends, or carry the link on a [[nic]] pair".into(),
                ),
            },
            // backends canopy-switch gains later ([`testbed_backend`] refuses them first)
            #[allow(unreachable_patterns)]
            other => fail(
                "backend",
                format!("the testbed cannot place {} ports yet", other.backend()),
            ),
        }
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
mod tests {
    use super::*;

    fn parse(body: &str) -> Result<Desc> {
        Desc::parse("t.toml", body)
    }

    fn err(body: &str) -> String {
        parse(body).unwrap_err().to_string()
    }

    #[test]
    fn traffic_table_is_checked_before_anything_is_created() {
        let err = |body: &str| Desc::parse("t.toml", body).unwrap_err().to_string();
        // a rate the machine cannot reach: above the generator's ceiling on this machine
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let too_fast = crate::traffic::spec::PPS_PER_GEN_CORE * cpus as f64 * 10.0;
        let e = err(&format!(
            "mtu = 1500\n[traffic]\nrate = \"{too_fast}pps\"\n"
        ));
        assert!(e.starts_with("t.toml: traffic.rate: "), "{e}");
        assert!(e.ends_with("(line 2)"), "{e}");
        // the table's own keys and values
        let e = err("[traffic]\nrat = 5\n");
        assert!(e.starts_with("t.toml: traffic"), "{e}");
        assert!(e.contains("rat"), "{e}");
        let e = err("[traffic]\nframe_size = 20\n");
        assert!(e.contains("traffic.frame_size"), "{e}");
        // a mistyped value names its key
        let e = err("[traffic]\npattern = \"uniform\"\nrate = 5\n");
        assert!(e.starts_with("t.toml: traffic.rate: "), "{e}");
        // transpose needs a square host count: 16 is, 20 (k=4 fat-tree has 16) is not tested here
        assert!(Desc::parse(
            "t.toml",
            "[traffic]\npattern = \"transpose\"\nrate = \"1000pps\"\n"
        )
        .is_ok());
        assert!(Desc::parse("t.toml", "").is_ok());
    }

    #[test]
    fn globs() {
        assert!(glob("edge-*", "edge-p0-e0"));
        assert!(glob("*", "h3"));
        assert!(glob("agg-*-a1", "agg-p2-a1"));
        assert!(!glob("agg-*-a1", "agg-p2-a0"));
        assert!(glob("h1", "h1"));
        assert!(!glob("h1", "h12"));
        assert!(glob("h1*", "h12"));
        assert!(!glob("a*a", "a"));
    }

    #[test]
    fn names() {
        assert!(valid_name("ft4").is_ok());
        assert!(valid_name("cfab4194304x").is_ok());
        for bad in ["", "Ft", "a_b", "-a", "a-", "abcdefghijklm", "a b", "a/b"] {
            assert!(valid_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn defaults_are_a_local_k4_sliced_fat_tree() {
        let d = parse("").unwrap();
        assert_eq!(d.name, "canopy");
        assert_eq!(d.raw.topology.get_ref(), "fat-tree:k=4");
        assert_eq!(d.kind, Kind::Sliced);
        assert_eq!(
            (d.topo.switches.len(), d.topo.hosts.len(), d.links.len()),
            (20, 16, 48)
        );
        assert!(d.placement.is_empty());
        assert_eq!(d.machine_of(Node::Host(3)), LOCAL);
        assert!(d.links.iter().all(|l| d.end_kind(l, l.a) == LinkKind::Veth));
        assert_eq!(d.host_ifaces(5), ("h5p0".to_string(), vec![]));
        assert_eq!(d.netns(Node::Switch(19)), "canopy-s19");
        assert!(d.raw.traffic.is_none());
        // [traffic] is kept as written
        let d = parse("[traffic]\npattern = \"uniform\"\nrate = \"5kpps\"\n").unwrap();
        assert_eq!(d.raw.traffic.unwrap()["rate"].as_str(), Some("5kpps"));
    }

    #[test]
    fn canopyd_and_target_settings() {
        let d = parse("").unwrap();
        assert!(
            d.daemon && !d.bmv2,
            "canopyd by default, canopy-switch target"
        );
        let d = parse("[canopyd]\nenabled = false\n").unwrap();
        assert!(!d.daemon);
        let d = parse("target = \"bmv2\"\n").unwrap();
        assert!(d.bmv2 && !d.daemon, "bmv2 switches are not canopyd's");
        let e = err("target = \"bmv2\"\n[canopyd]\nenabled = true\n");
        assert!(e.contains("canopyd.enabled") && e.contains("line 3"), "{e}");
        let e = err("target = \"tofino\"\n");
        assert!(e.contains("target") && e.contains("line 1"), "{e}");
        let e = err("[canopyd]\nmetrics = \"localhost\"\n");
        assert!(e.contains("canopyd.metrics"), "{e}");
        let e = err("[canopyd]\nprobe_interval_ms = 1\n");
        assert!(e.contains("canopyd.probe_interval_ms"), "{e}");
        let e = err("[bmv2]\np4 = \"x\"\n");
        assert!(e.contains("p4"), "{e}");
    }

    #[test]
    fn transit_hosts_send_on_an_output_and_receive_on_both_inputs() {
        let d = parse("topology = \"transit-full:layers=1\"\nkind = \"transit\"\n").unwrap();
        assert_eq!(d.links.len(), 512);
        let (tx, rx) = d.host_ifaces(0);
        assert!(tx.starts_with("h0p"), "{tx}");
        assert_eq!(rx.len(), 2, "{rx:?}");
        assert!(!rx.contains(&tx));
    }

    #[test]
    fn cross_machine_links_are_vxlan_with_stable_vnis() {
        let two = "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n[[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n";
        let d = parse(two).unwrap();
        let cross: Vec<&Link> = d
            .links
            .iter()
            .filter(|l| d.machine_of(l.a.0) != d.machine_of(l.b.0))
            .collect();
        assert_eq!(cross.len(), 16);
        for l in cross {
            let end = if d.machine_of(l.a.0) == "a" { l.a } else { l.b };
            assert_eq!(
                d.end_kind(l, end),
                LinkKind::Vxlan {
                    vni: 10_000 + l.id,
                    remote: "b".into()
                }
            );
        }
        // a NIC on one end only
        let e = err(&format!(
            "{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n"
        ));
        assert!(e.contains("NIC on one end only"), "{e}");
        // cross-machine links with nodes left on "local"
        let e = err("[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"a\"\n");
        assert!(e.contains("place every node on a named [[machine]]"), "{e}");
        // a NIC on a link that does not cross machines
        let e = err("[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n");
        assert!(e.contains("does not cross machines"), "{e}");
    }

    /// The `[[port]]` table of `sw`:`port` with `interface` left out.
    fn table(d: &Desc, sw: &str, port: u16) -> toml::Table {
        let i = d.topo.switches.iter().position(|s| s.name == sw).unwrap();
        let mut t = d.port_table(i as u32, port);
        assert_eq!(
            t.remove("interface")
                .and_then(|v| v.as_str().map(String::from)),
            Some(format!("s{i}p{port}"))
        );
        t
    }

    fn tbl(s: &str) -> toml::Table {
        toml::from_str(s).unwrap()
    }

    #[test]
    fn port_backends_per_switch_and_port() {
        let d = parse(
            "[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n\
             [[ports.override]]\nswitch = \"edge-*\"\nbackend = \"afpacket\"\ntpacket = \"v3\"\n\
             [[ports.override]]\nswitch = \"core-c0\"\nport = 1\nmode = \"copy\"\nrx_ring = 1024\n\
             [[ports.override]]\nswitch = \"core-c1\"\nbackend = \"afxdp\"\nfill_ring = 4096\n",
        )
        .unwrap();
        // [ports]: afxdp in SKB mode everywhere ...
        assert_eq!(
            table(&d, "agg-p0-a0", 2),
            tbl("backend = \"afxdp\"\nmode = \"skb\"")
        );
        // ... but the edge switches: another backend starts afresh (no `mode` leaks in)
        for p in 0..4 {
            assert_eq!(
                table(&d, "edge-p3-e1", p),
                tbl("backend = \"afpacket\"\ntpacket = \"v3\"")
            );
        }
        // one port of core-c0: the same backend, so its keys add to [ports]'s
        assert_eq!(
            table(&d, "core-c0", 1),
            tbl("backend = \"afxdp\"\nmode = \"copy\"\nrx_ring = 1024")
        );
        assert_eq!(
            table(&d, "core-c0", 0),
            tbl("backend = \"afxdp\"\nmode = \"skb\"")
        );
        // naming the same backend again keeps the keys it had
        assert_eq!(
            table(&d, "core-c1", 3),
            tbl("backend = \"afxdp\"\nfill_ring = 4096\nmode = \"skb\"")
        );
        let edge0 = d
            .topo
            .switches
            .iter()
            .position(|s| s.name == "edge-p0-e0")
            .unwrap();
        assert_eq!(d.port_backends(edge0 as u32), vec!["afpacket"; 4]);
        assert_eq!(d.port_backends(19), vec!["afxdp"; 4]);
        // where a key came from
        let c0 = d
            .topo
            .switches
            .iter()
            .position(|s| s.name == "core-c0")
            .unwrap();
        let k = &d.ports[c0][1].keys["rx_ring"];
        assert_eq!(k.key, "ports.override[1].rx_ring");
        assert_eq!(line_of(&d.text, k.span.clone().unwrap().start), 12);
        assert_eq!(d.ports[c0][1].keys["mode"].key, "ports.override[1].mode");
        assert_eq!(d.ports[c0][0].keys["mode"].key, "ports.mode");
    }

    #[test]
    fn old_descriptions_keep_their_meaning() {
        // nothing said: AF_PACKET, the switch's default TPACKET version
        let d = parse("").unwrap();
        assert_eq!(table(&d, "core-c3", 0), tbl("backend = \"afpacket\""));
        // tpacket only: [ports] for every port, overrides on top
        let d = parse(
            "[ports]\nbackend = \"afpacket\"\ntpacket = \"v3\"\n\
             [[ports.override]]\nswitch = \"core-*\"\ntpacket = \"v2\"\n\
             [[ports.override]]\nswitch = \"edge-p0-e0\"\nport = 0\ntpacket = \"v2\"\n",
        )
        .unwrap();
        let v3 = tbl("backend = \"afpacket\"\ntpacket = \"v3\"");
        let v2 = tbl("backend = \"afpacket\"\ntpacket = \"v2\"");
        assert_eq!(table(&d, "agg-p1-a1", 0), v3);
        assert_eq!(table(&d, "core-c2", 3), v2);
        assert_eq!(table(&d, "edge-p0-e0", 0), v2);
        assert_eq!(table(&d, "edge-p0-e0", 1), v3);
    }

    /// `(key, line, fragment)` of every rejected `[ports]` body.
    #[test]
    fn port_settings_are_checked_by_the_switch_rules_with_fabric_keys_and_lines() {
        let cases: &[(&str, &str, usize, &str)] = &[
            // backend: the switch's own names, then what the testbed can use
            ("[ports]\nbackend = \"ovs\"\n", "ports.backend", 2, "\"ovs\": unknown variant `ovs`, expected one of `afpacket`, `afxdp`"),
            ("[ports]\nbackend = 4\n", "ports.backend", 2, "expected a string"),
            ("[ports]\nbackend = \"mem\"\n", "ports.backend", 2, "cannot carry a fabric link"),
            ("\n[[ports.override]]\nswitch = \"core-*\"\nbackend = \"afxpd\"\n", "ports.override[0].backend", 4, "afxpd"),
            // values: the switch's types and enums
            ("[ports]\ntpacket = \"v9\"\n", "ports.tpacket", 2, "unknown variant `v9`"),
            ("[ports]\nbackend = \"afxdp\"\nmode = \"fast\"\n", "ports.mode", 3, "unknown variant `fast`"),
            ("[ports]\nbackend = \"afxdp\"\n[[ports.override]]\nswitch = \"agg-*\"\nqueues = \"two\"\n", "ports.override[0].queues", 5, "invalid type"),
            // keys: unknown ones, and those of another backend
            ("[ports]\nbackend = \"afxdp\"\nmoed = \"skb\"\n", "ports.moed", 3, "unknown field `moed`"),
            ("[ports]\nbackend = \"afxdp\"\ntpacket = \"v3\"\n", "ports.tpacket", 3, "applies only to afpacket ports"),
            ("[[ports.override]]\nswitch = \"edge-*\"\nmode = \"skb\"\n", "ports.override[0].mode", 3, "applies only to afxdp ports"),
            ("[ports]\ninterface = \"eth0\"\n", "ports.interface", 2, "[[nic]]"),
            // ranges and geometry: the switch's checks, named by the table that set them
            ("[ports]\nbackend = \"afxdp\"\n[[ports.override]]\nswitch = \"core-c1\"\nrx_ring = 1000\n", "ports.override[0].rx_ring", 5, "power of two"),
            ("[ports]\nbackend = \"afxdp\"\nframe_size = 1024\n", "ports.frame_size", 3, "2048 or 4096"),
            // selecting ports
            ("[[ports.override]]\nswitch = \"nope-*\"\ntpacket = \"v3\"\n", "ports.override[0]", 2, "nope-*"),
            ("[[ports.override]]\nswitch = \"core-c0\"\nport = 9\ntpacket = \"v3\"\n", "ports.override[0]", 2, "port 9"),
            ("[[ports.override]]\nswitch = \"core-c0\"\nport = \"1\"\ntpacket = \"v3\"\n", "ports.override[0].port", 3, "port number"),
            ("[[ports.override]]\nswitch = \"core-c0\"\n", "ports.override[0]", 2, "sets nothing"),
            ("[[ports.override]]\ntpacket = \"v3\"\n", "ports.override[0]", 2, "missing `switch`"),
            // where the port is: testbed veths
            ("[ports]\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n", "ports.mode", 3, "no zero-copy AF_XDP"),
            ("[ports]\nbackend = \"afxdp\"\nqueues = 2\n", "ports.queues", 3, "one queue"),
            ("[ports]\nbackend = \"afxdp\"\nqueue = 1\n", "ports.queue", 3, "one queue"),
            ("mtu = 3000\n[ports]\nbackend = \"afxdp\"\n", "mtu", 1, "frame_size = 4096"),
            ("mtu = 4000\n[ports]\nbackend = \"afxdp\"\nframe_size = 4096\n", "ports.frame_size", 4, "at most 3840"),
            // the rest of the switch's rules still apply, to the fabric's [switch]
            ("[switch]\nworkers = 5\n", "switch.workers", 0, "only 4 ports"),
            ("target = \"bmv2\"\n[ports]\nbackend = \"afxdp\"\n", "ports.backend", 3, "bmv2"),
        ];
        for (body, key, line, frag) in cases {
            let e = err(body);
            assert!(
                e.starts_with(&format!("t.toml: {key}: ")),
                "{body:?}: want key {key}: {e}"
            );
            if *line > 0 {
                assert!(
                    e.ends_with(&format!("(line {line})")),
                    "{body:?}: want line {line}: {e}"
                );
            }
            assert!(e.contains(frag), "{body:?}: want {frag:?}: {e}");
        }
        // what is fine on a veth
        for ok in [
            "[ports]\nbackend = \"afxdp\"\n",
            "[ports]\nbackend = \"afxdp\"\nmode = \"copy\"\nqueue = 0\nqueues = 1\n",
            "mtu = 3000\n[ports]\nbackend = \"afxdp\"\nframe_size = 4096\nmode = \"skb\"\n",
            "mtu = 1778\n[ports]\nbackend = \"afxdp\"\n",
            "[switch]\nworkers = 2\n[ports]\nbackend = \"afpacket\"\nfanout = 7\n",
            "target = \"bmv2\"\n[ports]\ntpacket = \"v3\"\n",
        ] {
            parse(ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        }
    }

    #[test]
    fn afxdp_on_vxlan_and_nic_ports() {
        let two = "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n[[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n";
        // the far end of core-c0:0, for a NIC pair
        let d = parse(two).unwrap();
        let c0 = d
            .topo
            .switches
            .iter()
            .position(|s| s.name == "core-c0")
            .unwrap() as u32;
        let l = d
            .links
            .iter()
            .find(|l| l.a == (Node::Switch(c0), 0) || l.b == (Node::Switch(c0), 0))
            .unwrap();
        let far = if l.a.0 == Node::Switch(c0) { l.b } else { l.a };
        let far = format!("{}:{}", d.node_name(far.0), far.1);
        let nics = format!(
            "[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n[[nic]]\nport = \"{far}\"\ninterface = \"eth2\"\n"
        );
        // VXLAN devices: generic XDP only (auto falls back to it)
        let e = err(&format!(
            "{two}[ports]\nbackend = \"afxdp\"\nmode = \"copy\"\n"
        ));
        assert!(
            e.contains("ports.mode") && e.contains("a VXLAN device"),
            "{e}"
        );
        assert!(e.ends_with("(line 15)"), "{e}");
        parse(&format!(
            "{two}[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n"
        ))
        .unwrap();
        parse(&format!("{two}[ports]\nbackend = \"afxdp\"\n")).unwrap();
        // a NIC: zero-copy and several queues are the driver's business
        let nic_only = format!(
            "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nport = 0\nbackend = \"afxdp\"\nmode = \"zerocopy\"\nqueues = 4\n"
        );
        let d = parse(&nic_only).unwrap();
        assert_eq!(
            table(&d, "core-c0", 0),
            tbl("backend = \"afxdp\"\nmode = \"zerocopy\"\nqueues = 4")
        );
        // ... but not on the VXLAN port next to it
        let e = err(&format!(
            "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n"
        ));
        assert!(
            e.contains("ports.override[0].mode") && e.contains("core-c0:1"),
            "{e}"
        );
    }

    #[test]
    fn semantic_errors_name_key_and_line() {
        let e = err("mtu = 1500\npolling = \"lazy\"\n");
        assert!(
            e.starts_with("t.toml: polling: \"lazy\"") && e.ends_with("(line 2)"),
            "{e}"
        );
        let e = err("\n\n[switch]\nmode = \"busy\"\n");
        assert!(e.contains("switch.mode"), "{e}");
        let e = err("[ports]\nbackend = \"mem\"\n");
        assert!(e.contains("ports.backend") && e.contains("(line 2)"), "{e}");
        let e = err("[[ports.override]]\nswitch = \"nope-*\"\ntpacket = \"v3\"\n");
        assert!(
            e.contains("ports.override[0]") && e.contains("nope-*"),
            "{e}"
        );
        let e = err("mtu = 20\n");
        assert!(e.contains("mtu: 20 is outside"), "{e}");
        let e = err("name = \"x\"\nname = \"y\"\n");
        assert!(e.contains("line 2"), "{e}");
        let e = err("[[place]]\nnodes = [\"h1\"]\nmachine = \"mars\"\n");
        assert!(
            e.contains("place[0].machine") && e.contains("mars") && e.contains("line 3"),
            "{e}"
        );
        let e = err("[[nic]]\nport = \"core-c0\"\ninterface = \"eth1\"\n");
        assert!(e.contains("expected SWITCH:PORT"), "{e}");
        let e = err("[[nic]]\nport = \"core-c0:9\"\ninterface = \"eth1\"\n");
        assert!(e.contains("not a port of core-c0"), "{e}");
    }

    fn sw_index(d: &Desc, name: &str) -> u32 {
        d.topo.switches.iter().position(|s| s.name == name).unwrap() as u32
    }

    #[test]
    fn dpdk_ports_get_af_packet_vdevs_over_their_interfaces() {
        let d = parse(
            "topology = \"fat-tree:k=4\"\n[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n\
             [[ports.override]]\nswitch = \"agg-*\"\nbackend = \"dpdk\"\nqueues = 2\nrx_desc = 512\n\
             [[ports.override]]\nswitch = \"core-c1\"\nport = 2\nbackend = \"dpdk\"\ntx_desc = 2048\n",
        )
        .unwrap();
        let a = sw_index(&d, "agg-p1-a0");
        for p in 0..4u16 {
            // dpdk: a device, no interface; the other backend's keys do not leak in
            assert_eq!(
                d.port_table(a, p),
                tbl(&format!(
                    "backend = \"dpdk\"\ndevice = \"net_af_packet{p}\"\nqueues = 2\nrx_desc = 512"
                ))
            );
        }
        let args: Vec<String> = (0..4)
            .map(|p| format!("--vdev=net_af_packet{p},iface=s{a}p{p},framecnt=8192,qpairs=2"))
            .collect();
        let mut want = vec!["--no-pci".to_string()];
        want.extend(args);
        let got: Vec<String> = d.dpdk_table(a).unwrap()["eal_args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, want);
        // one dpdk port among afxdp ones: one vdev, for that port only
        let c = sw_index(&d, "core-c1");
        assert_eq!(
            d.port_table(c, 2),
            tbl("backend = \"dpdk\"\ndevice = \"net_af_packet2\"\ntx_desc = 2048")
        );
        assert_eq!(
            table(&d, "core-c1", 1),
            tbl("backend = \"afxdp\"\nmode = \"skb\"")
        );
        assert_eq!(
            d.dpdk_table(c).unwrap()["eal_args"],
            toml::Value::Array(vec![
                "--no-pci".into(),
                format!("--vdev=net_af_packet2,iface=s{c}p2,framecnt=8192").into()
            ])
        );
        // no --file-prefix: canopy-switch's own (canopy<pid>) differs per process
        assert!(!d.dpdk_table(c).unwrap().to_string().contains("file-prefix"));
        // switches without dpdk ports get no [dpdk]
        assert!(d.dpdk_table(sw_index(&d, "edge-p0-e0")).is_none());
        assert!(d.dpdk_table(sw_index(&d, "core-c0")).is_none());
        let mut dp = d.dpdk_switches();
        dp.sort();
        let mut want: Vec<u32> = d
            .topo
            .switches
            .iter()
            .enumerate()
            .filter(|(_, s)| s.name.starts_with("agg-") || s.name == "core-c1")
            .map(|(i, _)| i as u32)
            .collect();
        want.sort();
        assert_eq!(dp, want);
        assert_eq!(d.port_backends(c), vec!["afxdp", "afxdp", "dpdk", "afxdp"]);
    }

    #[test]
    fn dpdk_settings_are_checked_by_the_switch_rules_with_fabric_keys_and_lines() {
        let cases: &[(&str, &str, usize, &str)] = &[
            ("[ports]\nbackend = \"dpdk\"\nrx_desc = 100\n", "ports.rx_desc", 3, "power of two"),
            ("[ports]\nbackend = \"dpdk\"\n[[ports.override]]\nswitch = \"core-c0\"\ntx_desc = 32768\n", "ports.override[0].tx_desc", 5, "power of two"),
            ("[ports]\nbackend = \"dpdk\"\nqueues = 0\n", "ports.queues", 3, "not in 1..=64"),
            ("[ports]\nbackend = \"dpdk\"\nqueues = \"2\"\n", "ports.queues", 3, "invalid type"),
            ("[ports]\nbackend = \"dpdk\"\nmode = \"skb\"\n", "ports.mode", 3, "applies only to afxdp ports"),
            ("[ports]\nbackend = \"dpdk\"\ntpacket = \"v3\"\n", "ports.tpacket", 3, "applies only to afpacket ports"),
            ("[[ports.override]]\nswitch = \"edge-*\"\nrx_desc = 512\n", "ports.override[0].rx_desc", 3, "applies only to dpdk ports"),
            ("[ports]\nbackend = \"dpdk\"\ndevice = \"0000:03:00.0\"\n", "ports.device", 3, "has no interface"),
            ("[[ports.override]]\nswitch = \"core-*\"\nbackend = \"dpdk\"\ndevice = \"net_af_packet0\"\n", "ports.override[0].device", 4, "net_af_packet<j>"),
            ("target = \"bmv2\"\n[ports]\nbackend = \"dpdk\"\n", "ports.backend", 3, "bmv2"),
            ("mtu = 1501\n[[ports.override]]\nswitch = \"core-c2\"\nport = 3\nbackend = \"dpdk\"\n", "mtu", 1, "mtu 1500 at most"),
        ];
        for (body, key, line, frag) in cases {
            let e = err(body);
            assert!(
                e.starts_with(&format!("t.toml: {key}: ")),
                "{body:?}: want key {key}: {e}"
            );
            assert!(
                e.ends_with(&format!("(line {line})")),
                "{body:?}: want line {line}: {e}"
            );
            assert!(e.contains(frag), "{body:?}: want {frag:?}: {e}");
        }
        for ok in [
            "[ports]\nbackend = \"dpdk\"\n",
            "[ports]\nbackend = \"dpdk\"\nqueues = 4\nrx_desc = 256\ntx_desc = 4096\n",
            "[switch]\nworkers = 2\n[ports]\nbackend = \"dpdk\"\nqueues = 2\n",
            "mtu = 1500\n[[ports.override]]\nswitch = \"edge-*\"\nbackend = \"dpdk\"\n",
        ] {
            parse(ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        }
    }

    #[test]
    fn dpdk_on_vxlan_ends_is_refused_and_on_nic_ports_allowed() {
        let two = "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n[[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n";
        // every core port is a VXLAN end
        let e = err(&format!(
            "{two}[[ports.override]]\nswitch = \"core-c0\"\nbackend = \"dpdk\"\n"
        ));
        assert!(
            e.starts_with("t.toml: ports.override[0].backend: ")
                && e.contains("a VXLAN device")
                && e.contains("core-c0:0")
                && e.ends_with("(line 15)"),
            "{e}"
        );
        // the agg side of the same links, too
        let e = err(&format!("{two}[ports]\nbackend = \"dpdk\"\n"));
        assert!(e.contains("ports.backend") && e.contains("VXLAN"), "{e}");
        // a NIC pair: an af_packet vdev over the NIC, named s<i>p<j> in the namespace
        let d = parse(two).unwrap();
        let c0 = sw_index(&d, "core-c0");
        let l = d
            .links
            .iter()
            .find(|l| l.a == (Node::Switch(c0), 0) || l.b == (Node::Switch(c0), 0))
            .unwrap();
        let far = if l.a.0 == Node::Switch(c0) { l.b } else { l.a };
        let far_name = format!("{}:{}", d.node_name(far.0), far.1);
        let nics = format!(
            "[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n[[nic]]\nport = \"{far_name}\"\ninterface = \"eth2\"\n"
        );
        let d = parse(&format!(
            "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nport = 0\nbackend = \"dpdk\"\nqueues = 2\n"
        ))
        .unwrap();
        assert_eq!(table(&d, "core-c0", 1), tbl("backend = \"afpacket\""));
        assert_eq!(
            d.port_table(c0, 0),
            tbl("backend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 2")
        );
        assert_eq!(
            d.dpdk_table(c0).unwrap()["eal_args"][1].as_str(),
            Some(format!("--vdev=net_af_packet0,iface=s{c0}p0,framecnt=8192,qpairs=2").as_str())
        );
        // a PCI device is no [[nic]]: it has no interface
        let e = err(&format!(
            "{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\npci = \"0000:03:00.0\"\n"
        ));
        assert!(e.contains("pci"), "{e}");
    }
}
