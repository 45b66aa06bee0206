//! Topologies: a graph of switches, ports (up/down/side with equivalence groups) and
//! links, plus hosts with their addresses. One generator per family; [`build`] picks
//! the generator from a [`Spec`].
//!
//! # Graph contract (what the table generators rely on)
//! * `Switch::level` counts from 1 at the leaves (the switches hosts attach to); Transit
//!   stages use the tree level of their stage (see `transit.rs`).
//! * Every link appears as one [`Port`] on each end whose `peer` names the other end.
//!   Duplex links have `dir = Duplex` on both ends; a Transit channel has `Out` on the
//!   transmitting end and `In` on the receiving end.
//! * `Port::role` is the role seen from the port's owner: `Up` towards the root, `Down`
//!   towards the leaves/hosts, `Side` lateral. A host's own ports have role `Up`.
//! * `Port::label`: for a `Down` port, the child-zone label it leads to (Znode p_i,
//!   fat-tree host/edge/pod index); for a `Side` port, the Znode it leads to; otherwise 0.
//! * `Port::group`: ports of one switch with the same `(role, group)` are equivalent
//!   (interchangeable for adaptive choice).
//! * `Topology::znode` is set when hosts carry Znode/Snode labels (eq 6.1–6.3), which is
//!   what the sliced-flit header needs; `Host::index` is then the logical address X.

pub mod benes;
pub mod components;
pub mod contract;
pub mod fattree;
pub mod outline;
pub mod transit;
pub mod vl2;
pub mod znode;

use crate::spec::{Spec, SpecError};
pub use canopy_dataplane::table::{PortDir, PortRole};
pub use contract::ContractError;
pub use outline::{Outline, Tier};
use thiserror::Error;

/// A topology that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TopoError {
    /// The spec is malformed or its parameters are out of range.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The parameters are individually fine but do not form a valid network.
    #[error("invalid `{spec}`: {why}")]
    Invalid {
        /// The spec.
        spec: String,
        /// Why.
        why: String,
    },
    /// A host reference could not be resolved.
    #[error("bad host `{given}` for `{spec}`: {why}")]
    BadHost {
        /// The spec.
        spec: String,
        /// What the user gave.
        given: String,
        /// Why it does not name a host.
        why: HostError,
    },
}

impl TopoError {
    /// `given` does not name a host of `t`, because of `why`.
    pub fn bad_host(t: &Topology, given: impl Into<String>, why: HostError) -> Self {
        TopoError::BadHost {
            spec: t.spec.to_string(),
            given: given.into(),
            why,
        }
    }
}

/// Why a host reference does not name a host ([`TopoError::BadHost`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostError {
    /// The reference is in no syntax the family accepts.
    #[error("expected {0}")]
    Syntax(&'static str),
    /// A number in the reference is not a number.
    #[error("{what}`{value}` is not a number")]
    NotANumber {
        /// Which number (`"label "`, `"Znode id "`…; empty for a whole address).
        what: &'static str,
        /// The text given.
        value: String,
    },
    /// A number in the reference is too large for its field.
    #[error("{what}`{value}` is too large")]
    TooLarge {
        /// Which number (as in [`HostError::NotANumber`]).
        what: &'static str,
        /// The text given.
        value: String,
    },
    /// A coordinate is outside its range.
    #[error("{what} {value} out of range 0..{end}")]
    OutOfRange {
        /// Which coordinate (`pod`, `ToR`, `node`…).
        what: &'static str,
        /// The value given.
        value: u64,
        /// Its exclusive upper bound.
        end: u64,
    },
    /// No host has this logical index.
    #[error("no host with index {index} (there are {hosts})")]
    NoIndex {
        /// The index given.
        index: u64,
        /// Number of hosts.
        hosts: usize,
    },
    /// A host id past the end of the host list.
    #[error("there are {hosts} hosts")]
    NoSuchHost {
        /// Number of hosts.
        hosts: usize,
    },
    /// Znode: no processor has the logical address the reference gives.
    #[error("no processor with logical address {0}")]
    NoProcessor(u64),
    /// Znode: an Snode address without its Znode id.
    #[error("an Snode address needs the Znode id: (p_{};p_{levels},…,p_1)", .levels + 1)]
    NeedsZnodeId {
        /// Levels n of the Znode.
        levels: usize,
    },
    /// Znode: not one label per level.
    #[error("expected {levels} labels p_{levels}..p_1, got {got}")]
    LabelCount {
        /// Levels n of the Znode.
        levels: usize,
        /// Labels given.
        got: usize,
    },
    /// Znode: the Znode id is not below m.
    #[error("Znode id {k} is not below m = {m}")]
    ZnodeId {
        /// Znode id given.
        k: u32,
        /// Znodes in the Snode.
        m: u32,
    },
    /// Znode: a label is not below its level's zone count.
    #[error("label p_{level} = {label} is not below z_{level} = {z}")]
    Label {
        /// Level i of the label p_i.
        level: usize,
        /// The label given.
        label: u32,
        /// z_i.
        z: u32,
    },
    /// Znode: the geometry rejects the physical address.
    #[error(transparent)]
    Physical(canopy_dataplane::build::sliced::BuildError),
    /// Transit: the address is not hexadecimal.
    #[error("`{0}` is not a hexadecimal address L = C·P")]
    NotHex(String),
    /// Transit: the address has bits beyond C·P.
    #[error("L = {addr:#x} is longer than {} bytes (C: {c_bytes}, P: {p_bytes})", .c_bytes + .p_bytes)]
    AddrTooLong {
        /// The address L.
        addr: u64,
        /// Bytes of C.
        c_bytes: usize,
        /// Bytes of P.
        p_bytes: usize,
    },
    /// Transit: P's first pair leaves the cluster.
    #[error("P = {0:#04x} starts with pair 11, which leaves the cluster ([Transit] §3.8.1)")]
    LeavesCluster(u8),
    /// Transit: no processor has this address.
    #[error("no processor at L = {0:#x}")]
    NoProcessorAt(u64),
    /// Transit: no route joins the two addresses.
    #[error(transparent)]
    NoRoute(canopy_dataplane::build::transit::BuildError),
}

/// Far end of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peer {
    /// Not connected.
    None,
    /// Port `port` of switch `sw`.
    Switch {
        /// Switch index.
        sw: u32,
        /// Port index on that switch.
        port: u16,
    },
    /// Port `port` of host `host`.
    Host {
        /// Host index.
        host: u32,
        /// Port index on that host.
        port: u16,
    },
}

/// One port (one end of a link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// Role seen from the owner.
    pub role: PortRole,
    /// Traffic direction.
    pub dir: PortDir,
    /// Down: child-zone label; Side: target Znode; otherwise 0.
    pub label: u32,
    /// Equivalence group among the owner's ports with the same role.
    pub group: u32,
    /// Far end.
    pub peer: Peer,
}

/// A switch.
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    /// Unique, human-readable name.
    pub name: String,
    /// Level, 1 = leaf switches.
    pub level: u16,
    /// Znode / side identity (SID); 0 where the family has none.
    pub znode: u32,
    /// Zone index (mixed-radix zone address, fat-tree pod…); family-specific.
    pub zone: u64,
    /// Index within its zone (Znode r, fat-tree edge/agg id, Beneš switch id…).
    pub index: u32,
    /// Ports in port-number order.
    pub ports: Vec<Port>,
    /// Transit stage configuration (mode, per-input swallow and link rotation,
    /// direction → outputs), set by the Transit generator.
    pub transit: Option<canopy_dataplane::table::transit::TransitTable>,
}

impl Switch {
    /// `(port, host)` for every port that leads to a host, in port order.
    pub fn host_ports(&self) -> Vec<(usize, u32)> {
        self.ports
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match p.peer {
                Peer::Host { host, .. } => Some((i, host)),
                _ => None,
            })
            .collect()
    }
}

/// A host (processor, end node).
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Logical address: index in host order (Znode eq 6.1's X).
    pub index: u64,
    /// Family address (Znode physical eq 6.3, \[FT-addressing\] host port address, Transit
    /// L = C·P, Beneš node id…), see the family's `describe_host`.
    pub addr: u64,
    /// Ports in port-number order (several for multi-homed hosts).
    pub ports: Vec<Port>,
}

impl Host {
    /// The ports the host can send on, with their numbers: connected, and transmitting.
    pub fn send_ports(&self) -> impl Iterator<Item = (u16, &Port)> {
        self.ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.dir != PortDir::In && p.peer != Peer::None)
            .map(|(i, p)| (i as u16, p))
    }

    /// The port the host sends on: its first of [`Host::send_ports`].
    pub fn inject_port(&self) -> Option<u16> {
        self.send_ports().next().map(|(i, _)| i)
    }
}

/// Znode/Snode shape for sliced-flit addressing: z_1..z_n and m.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZnodeShape {
    /// Zones per level, `z[0]` = z_1 (processors per level-1 zone).
    pub z: Vec<u32>,
    /// Number of Znodes in the Snode (1 for a plain Znode).
    pub m: u32,
}

/// A whole topology.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// The spec it was built from.
    pub spec: Spec,
    /// Switches, by index.
    pub switches: Vec<Switch>,
    /// Hosts, by index (host index == logical address order).
    pub hosts: Vec<Host>,
    /// Sliced-flit addressing, when it applies.
    pub znode: Option<ZnodeShape>,
}

/// One end of a link being built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A switch.
    Switch(u32),
    /// A host.
    Host(u32),
}

/// Role, label and group of a new port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortSpec {
    /// Role.
    pub role: PortRole,
    /// Label (see [`Port::label`]).
    pub label: u32,
    /// Equivalence group (see [`Port::group`]).
    pub group: u32,
}

impl PortSpec {
    /// An up port in group 0.
    pub fn up() -> Self {
        PortSpec {
            role: PortRole::Up,
            label: 0,
            group: 0,
        }
    }
    /// A down port to child zone `label` (group = label).
    pub fn down(label: u32) -> Self {
        PortSpec {
            role: PortRole::Down,
            label,
            group: label,
        }
    }
    /// A side port to Znode `znode` (group = znode).
    pub fn side(znode: u32) -> Self {
        PortSpec {
            role: PortRole::Side,
            label: znode,
            group: znode,
        }
    }
}

impl Topology {
    /// Empty topology for `spec`.
    pub fn new(spec: Spec) -> Self {
        Topology {
            spec,
            switches: Vec::new(),
            hosts: Vec::new(),
            znode: None,
        }
    }

    /// Add a switch without ports; returns its index.
    pub fn add_switch(
        &mut self,
        name: String,
        level: u16,
        znode: u32,
        zone: u64,
        index: u32,
    ) -> u32 {
        self.switches.push(Switch {
            name,
            level,
            znode,
            zone,
            index,
            ports: Vec::new(),
            transit: None,
        });
        (self.switches.len() - 1) as u32
    }

    /// Add a host without ports; returns its index.
    pub fn add_host(&mut self, index: u64, addr: u64) -> u32 {
        self.hosts.push(Host {
            index,
            addr,
            ports: Vec::new(),
        });
        (self.hosts.len() - 1) as u32
    }

    fn ports_mut(&mut self, e: End) -> &mut Vec<Port> {
        match e {
            End::Switch(s) => &mut self.switches[s as usize].ports,
            End::Host(h) => &mut self.hosts[h as usize].ports,
        }
    }

    fn peer_of(e: End, port: u16) -> Peer {
        match e {
            End::Switch(sw) => Peer::Switch { sw, port },
            End::Host(host) => Peer::Host { host, port },
        }
    }

    /// Connect `a` and `b` with a new duplex link, appending one port on each side.
    /// Returns the new port numbers `(port on a, port on b)`.
    pub fn link(&mut self, a: End, pa: PortSpec, b: End, pb: PortSpec) -> (u16, u16) {
        let na = self.ports_mut(a).len() as u16;
        let nb = if a == b {
            na + 1
        } else {
            self.ports_mut(b).len() as u16
        };
        push_port(
            self.ports_mut(a),
            Port {
                role: pa.role,
                dir: PortDir::Duplex,
                label: pa.label,
                group: pa.group,
                peer: Self::peer_of(b, nb),
            },
        );
        push_port(
            self.ports_mut(b),
            Port {
                role: pb.role,
                dir: PortDir::Duplex,
                label: pb.label,
                group: pb.group,
                peer: Self::peer_of(a, na),
            },
        );
        (na, nb)
    }

    /// Give `e` `n` unconnected ports (for fixed-port devices such as RN1 chips).
    pub fn reserve_ports(&mut self, e: End, n: u16) {
        let ports = self.ports_mut(e);
        ports.clear();
        ports.resize(
            usize::from(n),
            Port {
                role: PortRole::Down,
                dir: PortDir::Duplex,
                label: 0,
                group: 0,
                peer: Peer::None,
            },
        );
    }

    /// Connect output port `po` of `from` to input port `pi` of `to` (a one-way channel
    /// between fixed ports reserved with [`Topology::reserve_ports`]).
    pub fn channel(&mut self, from: End, po: u16, out: PortSpec, to: End, pi: u16, inp: PortSpec) {
        let to_peer = Self::peer_of(to, pi);
        let from_peer = Self::peer_of(from, po);
        self.ports_mut(from)[usize::from(po)] = Port {
            role: out.role,
            dir: PortDir::Out,
            label: out.label,
            group: out.group,
            peer: to_peer,
        };
        self.ports_mut(to)[usize::from(pi)] = Port {
            role: inp.role,
            dir: PortDir::In,
            label: inp.label,
            group: inp.group,
            peer: from_peer,
        };
    }

    /// Number of links (a duplex link or a one-way channel counts once).
    pub fn link_count(&self) -> u64 {
        let ends: u64 = self
            .switches
            .iter()
            .map(|s| s.ports.iter().filter(|p| p.peer != Peer::None).count() as u64)
            .chain(
                self.hosts
                    .iter()
                    .map(|h| h.ports.iter().filter(|p| p.peer != Peer::None).count() as u64),
            )
            .sum();
        ends / 2
    }

    /// Number of switch ports (connected or not).
    pub fn port_count(&self) -> u64 {
        self.switches.iter().map(|s| s.ports.len() as u64).sum()
    }

    /// Number of levels (highest switch level).
    pub fn levels(&self) -> u16 {
        self.switches.iter().map(|s| s.level).max().unwrap_or(0)
    }

    /// The index in `switches` of the switch named `name`.
    pub fn switch_index(&self, name: &str) -> Option<usize> {
        self.switches.iter().position(|s| s.name == name)
    }

    /// Conventional name of a host.
    pub fn host_name(&self, h: u32) -> String {
        format!("h{}", self.hosts[h as usize].index)
    }
}

/// Append `p` to a node's port list. The first port of a node whose generator reserved
/// nothing is allocated exactly: most hosts have one port, and a `Vec`'s first growth
/// would give every one of them room for four (80 bytes instead of 20; 4,194,304 hosts
/// at `fat-tree:k=256`). Later ports grow the list as usual.
fn push_port(ports: &mut Vec<Port>, p: Port) {
    if ports.capacity() == 0 {
        ports.reserve_exact(1);
    }
    ports.push(p);
}

/// Families known to [`build`], with a one-line description and an example spec.
pub const FAMILIES: &[(&str, &str, &str)] = &[
    (
        "fat-tree",
        "k-ary fat-tree of k-port switches (Al-Fares), 32-bit port addresses (docs/addressing.md)",
        "fat-tree:k=4",
    ),
    (
        "znode",
        "Znode/Snode of the sliced-flit thesis (z, r, psi, layers, m, h)",
        "znode:z=3,2,3;m=2",
    ),
    ("snode", "alias of znode", "snode:z=3,2,3;r=1,3,6;m=2"),
    (
        "kary-ntree",
        "k-ary n-tree (Petrini), as a Znode",
        "kary-ntree:k=4;n=3",
    ),
    (
        "xgft",
        "extended generalised fat tree XGFT(h; m1..mh; w1..wh), as a Znode",
        "xgft:h=2;m=4,4;w=1,4",
    ),
    (
        "transit-full",
        "Transit quaternary fat-tree of RN1 stages, UT64x2 leaves",
        "transit-full:layers=1",
    ),
    (
        "transit-hybrid",
        "Transit fat-tree with bidelta leaf clusters and UT64x8 layers",
        "transit-hybrid:leaf=12;layers=1",
    ),
    (
        "vl2",
        "VL2 Clos (ToRs dual-homed to aggregation pairs, full agg-intermediate mesh)",
        "vl2:da=8;di=4;servers=2",
    ),
    (
        "benes",
        "bidirectional fat tree from the Beneš construction (Minkenberg & Gusat, docs/benes.md)",
        "benes:m=16;n=4",
    ),
];

/// Build the topology named by `spec`.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    match spec.family.as_str() {
        "fat-tree" | "fattree" => fattree::build(spec),
        "znode" | "snode" => znode::build(spec),
        "kary-ntree" | "k-ary-n-tree" => znode::build_kary(spec),
        "xgft" => znode::build_xgft(spec),
        "transit-full" | "transit-hybrid" => transit::build(spec),
        "vl2" => vl2::build(spec),
        "benes" => benes::build(spec),
        other => Err(SpecError::UnknownFamily {
            family: other.to_string(),
            known: FAMILIES.iter().map(|f| f.0).collect::<Vec<_>>().join(", "),
        }
        .into()),
    }
}

/// Parse and build in one step.
pub fn build_str(spec: &str) -> Result<Topology, TopoError> {
    build(&spec.parse()?)
}

/// Family-specific description of a host's addresses, as `(name, value)` rows.
/// Empty when `h` is not a host of `t`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let mut rows = vec![
        ("host".to_string(), t.host_name(h)),
        ("index".to_string(), host.index.to_string()),
    ];
    let extra = match t.spec.family.as_str() {
        "fat-tree" | "fattree" => fattree::describe_host(t, h),
        "znode" | "snode" | "kary-ntree" | "k-ary-n-tree" | "xgft" => znode::describe_host(t, h),
        "transit-full" | "transit-hybrid" => transit::describe_host(t, h),
        "vl2" => vl2::describe_host(t, h),
        "benes" => benes::describe_host(t, h),
        _ => Vec::new(),
    };
    rows.extend(extra);
    rows
}

/// Resolve a host reference: `h<N>` or `<N>` (logical index), or a family-specific form
/// (see each family's `parse_host`).
pub fn parse_host(t: &Topology, s: &str) -> Result<u32, TopoError> {
    let fam = match t.spec.family.as_str() {
        "fat-tree" | "fattree" => fattree::parse_host(t, s),
        "znode" | "snode" | "kary-ntree" | "k-ary-n-tree" | "xgft" => znode::parse_host(t, s),
        "transit-full" | "transit-hybrid" => transit::parse_host(t, s),
        "vl2" => vl2::parse_host(t, s),
        "benes" => benes::parse_host(t, s),
        _ => None,
    };
    if let Some(r) = fam {
        return r;
    }
    let bad = |why| TopoError::bad_host(t, s, why);
    let digits = s.strip_prefix('h').unwrap_or(s);
    let idx: u64 = digits.parse().map_err(|_| {
        bad(HostError::Syntax(
            "h<index>, <index>, or a family address form",
        ))
    })?;
    t.hosts
        .iter()
        .position(|h| h.index == idx)
        .map(|p| p as u32)
        .ok_or_else(|| {
            bad(HostError::NoIndex {
                index: idx,
                hosts: t.hosts.len(),
            })
        })
}
