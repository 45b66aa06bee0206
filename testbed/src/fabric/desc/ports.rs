//! `[ports]` and `[[ports.override]]`: the backend of every switch port and its
//! `[[port]]` keys, kept as written and checked by `canopy-switch`'s own configuration
//! parser on the generated tables, then by the testbed's rules of where each backend
//! can run.

use super::{glob, Ctx, Desc, LinkKind, Node, DPDK_AF_PACKET_MTU};
use crate::error::{Result, TestbedError};
use canopy_control::topology::Topology;
use canopy_dataplane::port::afxdp::{XdpMode, ETH_HLEN, XDP_PACKET_HEADROOM};
use canopy_switch::config::{BackendName, ConfigError, PortSpec};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

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
    pub(super) fn origin(&self, key: &str) -> (String, Option<std::ops::Range<usize>>) {
        match self.keys.get(key) {
            Some(k) => (k.key.clone(), k.span.clone()),
            None => self.layer.clone(),
        }
    }
}

/// Whether the testbed can give a switch port this `canopy-switch` backend: every port is
/// an interface in the switch's namespace (a veth, a VXLAN device or a NIC). A backend
/// added to `canopy-switch` is refused here, naming it, until the testbed says how it
/// opens the port (its `[[port]]` keys in [`Desc::port_table`]) and where it can run
/// ([`Desc::check_port_place`]).
fn testbed_backend(b: BackendName) -> std::result::Result<(), BackendRefused> {
    match b {
        BackendName::Afpacket | BackendName::Afxdp | BackendName::Dpdk => Ok(()),
        BackendName::Mem => Err(BackendRefused::Mem),
        // backends canopy-switch gains later
        #[allow(unreachable_patterns)]
        other => Err(BackendRefused::NotYet(format!("{other:?}"))),
    }
}

/// A backend `canopy-switch` knows that the testbed cannot give a fabric port.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BackendRefused {
    /// In-process ports.
    #[error("in-process (`mem`) ports cannot carry a fabric link: use \"afpacket\", \"afxdp\" or \"dpdk\"")]
    Mem,
    /// A backend added to `canopy-switch` after the testbed was written.
    #[error("canopy-switch knows this backend ({0}), but the testbed cannot give it a fabric port yet: use \"afpacket\", \"afxdp\" or \"dpdk\"")]
    NotYet(String),
}

/// `[ports]` and `[[ports.override]]` resolved for every switch port (`[switch][port]`).
/// Checked here: what selects ports (`switch` patterns, `port`), `backend` is a backend
/// `canopy-switch` knows ([`BackendName`], its own names) and the testbed can use, and no
/// `interface`. Every other key is checked by `canopy-switch`'s parser on the generated
/// tables ([`Desc::check_ports`]).
pub(super) fn resolve_ports(
    ctx: &Ctx,
    pd: &PortsDesc,
    topo: &Topology,
) -> Result<Vec<Vec<PortSettings>>> {
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

impl Desc {
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
            t.insert("device".into(), self.dpdk_device(port).into());
        } else {
            t.insert(
                "interface".into(),
                Desc::ifname(Node::Switch(sw), port).into(),
            );
        }
        t
    }

    /// The DPDK device of switch port `port` when its backend is `dpdk`: an af_packet
    /// vdev named after the port (`net_af_packet<port>`); in a guest, the PCI address of
    /// the port's virtio-net NIC, which DPDK's virtio PMD drives.
    pub fn dpdk_device(&self, port: u16) -> String {
        match crate::vm::qemu::PciAddr::port(port) {
            Some(pci) if self.in_vms() => pci.guest(),
            _ => format!("net_af_packet{port}"),
        }
    }

    /// The `[dpdk]` table of switch `sw` (None: no `dpdk` port): `--no-pci` and one
    /// `--vdev=net_af_packet<j>,iface=s<sw>p<j>,framecnt=8192` per dpdk port `j` (with
    /// `qpairs=N` when the port has `queues = N > 1`: the PMD's N sockets share the
    /// interface's traffic by `PACKET_FANOUT`). No `--file-prefix`: canopy-switch's own
    /// (`canopy<pid>`) differs per switch process, and with `--in-memory` (its default)
    /// no switch leaves files behind. In a guest: `-a PCI` per dpdk port (EAL probes
    /// those NICs only; the guest's `/init` bound them to `uio_pci_generic`).
    pub fn dpdk_table(&self, sw: u32) -> Option<toml::Table> {
        let ports = self.ports.get(sw as usize)?;
        let mut args = vec![];
        if !self.in_vms() {
            args.push(toml::Value::String("--no-pci".into()));
        }
        for (p, ps) in ports.iter().enumerate() {
            if ps.backend() != "dpdk" {
                continue;
            }
            let p = p as u16;
            if self.in_vms() {
                args.extend(["-a".into(), toml::Value::String(self.dpdk_device(p))]);
                continue;
            }
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
                self.dpdk_device(p),
                Desc::ifname(Node::Switch(sw), p)
            )));
        }
        if !args.iter().any(|a| a.as_str() != Some("--no-pci")) {
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
    pub(super) fn check_ports(&self, ctx: &Ctx) -> Result<()> {
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
            // without [tables]: computing every switch's tables here would be slow on
            // big fabrics, and `up` computes them against the ports once
            let sock = Path::new("/run/canopy-testbed/check.sock");
            let t = self.switch_config_table(sw, sock, false);
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
                    _ if self.in_vms() => Some("a guest's virtio-net NIC (one queue pair)"),
                    LinkKind::Veth => Some("a veth"),
                    LinkKind::Vxlan { .. } => Some("a VXLAN device"),
                    LinkKind::Nic { .. } => None,
                };
                if let Some(dev) = dev {
                    if cfg.mode == XdpMode::ZeroCopy {
                        return fail("mode", format!(
                            "\"zerocopy\": the port is {dev}, which has no zero-copy AF_XDP (a NIC driver's feature; virtio_net gains it after the guest's 6.1 kernel); use \"copy\", \"skb\" or \"auto\", or zero-copy on a [[nic]] port"
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
            PortSpec::Dpdk { queues, .. } if self.in_vms() => {
                if *queues > 1 {
                    return fail("queues", format!(
                        "queues = {queues}: a guest's virtio-net NIC has one queue pair, which DPDK's virtio PMD drives"
                    ));
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
}
