//! The results `canopyctl` prints, as typed values: the text views are printed from them,
//! and `--json` prints them with serde_json, so the two always agree. The shapes (also in
//! README.md, "Scripting: --json"):
//!
//! * `families`: `[Family]`.
//! * `topo` (default, `--summary`): [`TopoSummary`]; `topo --list`: `[SwitchInfo]`
//!   ([`switches`]).
//! * `address`: `[HostAddresses]`.
//! * `header`: [`HeaderReport`] (`trace` with `--trace`, else null).
//! * `tables` (default, `--summary`): [`TablesReport`]; `--switch` prints the switch's
//!   `SwitchTables` as before.
//! * `check`: [`CheckReport`]; `sim`: [`SimReport`].

use canopy_control::kinds::TableSummary;
use canopy_control::oracle::{Outcome, PairsReport, Walk};
use canopy_control::sim::TrafficReport;
use canopy_control::topology::{self, Peer, PortDir, PortRole, Topology};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use canopy_dataplane::{DropReason, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;

/// One topology family (`families`).
#[derive(Serialize)]
pub struct Family {
    /// The spec's family name.
    pub name: &'static str,
    /// What it builds.
    pub description: &'static str,
    /// An example spec.
    pub example: &'static str,
}

/// Every family [`topology::build`] knows.
pub fn families() -> Vec<Family> {
    topology::FAMILIES
        .iter()
        .map(|&(name, description, example)| Family {
            name,
            description,
            example,
        })
        .collect()
}

/// `topo SPEC --summary`.
#[derive(Serialize)]
pub struct TopoSummary {
    /// The spec, normalised.
    pub topology: String,
    /// Switches.
    pub switches: usize,
    /// Switch ports (connected or not).
    pub ports: u64,
    /// Host ports.
    pub host_ports: u64,
    /// Links (a duplex link or a one-way channel counts once).
    pub links: u64,
    /// Hosts.
    pub hosts: usize,
    /// Levels (highest switch level).
    pub levels: u16,
    /// Switches and their ports per level, lowest level first.
    pub by_level: Vec<LevelCount>,
    /// Znode shape when sliced-flit addressing applies, else null.
    pub znode: Option<ZnodeShape>,
    /// Header kinds that apply (`sliced`, `transit`, `path-id`).
    pub kinds: Vec<Kind>,
}

/// Switches of one level.
#[derive(Serialize)]
pub struct LevelCount {
    /// Level (1 = leaf switches).
    pub level: u16,
    /// Switches of the level.
    pub switches: u64,
    /// Their ports.
    pub ports: u64,
}

/// Znode/Snode shape: zones per level `z` (z_1 first) and Znodes `m`.
#[derive(Serialize)]
pub struct ZnodeShape {
    /// z_1..z_n.
    pub z: Vec<u32>,
    /// Znodes in the Snode.
    pub m: u32,
}

impl TopoSummary {
    /// The summary of `t`.
    pub fn new(t: &Topology) -> TopoSummary {
        let mut by_level: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
        for s in &t.switches {
            let e = by_level.entry(s.level).or_default();
            e.0 += 1;
            e.1 += s.ports.len() as u64;
        }
        TopoSummary {
            topology: t.spec.to_string(),
            switches: t.switches.len(),
            ports: t.port_count(),
            host_ports: t.hosts.iter().map(|h| h.ports.len() as u64).sum(),
            links: t.link_count(),
            hosts: t.hosts.len(),
            levels: t.levels(),
            by_level: by_level
                .into_iter()
                .map(|(level, (switches, ports))| LevelCount {
                    level,
                    switches,
                    ports,
                })
                .collect(),
            znode: t.znode.as_ref().map(|z| ZnodeShape {
                z: z.z.clone(),
                m: z.m,
            }),
            kinds: canopy_control::kinds::kinds_for(t),
        }
    }
}

/// One switch of `topo SPEC --list`.
#[derive(Serialize)]
pub struct SwitchInfo<'a> {
    /// Index in the topology (the switch id canopy-switch writes in hop records).
    pub index: usize,
    /// Name.
    pub name: &'a str,
    /// Level (1 = leaf switches).
    pub level: u16,
    /// Znode / side identity (0 where the family has none).
    pub znode: u32,
    /// Zone (family-specific: fat-tree pod, Znode zone address, …).
    pub zone: u64,
    /// Index within the zone.
    pub zone_index: u32,
    /// Ports in port-number order.
    pub ports: Vec<PortInfo>,
}

/// One port of a [`SwitchInfo`].
#[derive(Serialize)]
pub struct PortInfo {
    /// Port number.
    pub port: usize,
    /// `up`, `down` or `side`.
    pub role: PortRole,
    /// `duplex`, `in` or `out`.
    pub dir: PortDir,
    /// Down: child-zone label; side: target Znode; otherwise 0.
    pub label: u32,
    /// Equivalence group among the switch's ports with the same role.
    pub group: u32,
    /// Far end, or null when the port is not connected.
    pub peer: Option<PeerInfo>,
}

/// Far end of a port: `{"type": "switch"|"host", "index", "name", "port"}`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PeerInfo {
    /// A switch's port.
    Switch {
        /// Switch index.
        index: u32,
        /// Switch name.
        name: String,
        /// Its port.
        port: u16,
    },
    /// A host's port.
    Host {
        /// Host index in the topology.
        index: u32,
        /// Host name (`h<logical index>`).
        name: String,
        /// Its port.
        port: u16,
    },
}

impl PeerInfo {
    /// `name:p<port>`, as the text view shows it.
    pub fn text(&self) -> String {
        match self {
            PeerInfo::Switch { name, port, .. } | PeerInfo::Host { name, port, .. } => {
                format!("{name}:p{port}")
            }
        }
    }
}

/// Every switch of `t` with its ports, one at a time.
pub fn switches(t: &Topology) -> impl Iterator<Item = SwitchInfo<'_>> {
    let peer = |p: Peer| match p {
        Peer::None => None,
        Peer::Switch { sw, port } => Some(PeerInfo::Switch {
            index: sw,
            name: t.switches[sw as usize].name.clone(),
            port,
        }),
        Peer::Host { host, port } => Some(PeerInfo::Host {
            index: host,
            name: t.host_name(host),
            port,
        }),
    };
    t.switches
        .iter()
        .enumerate()
        .map(move |(index, s)| SwitchInfo {
            index,
            name: &s.name,
            level: s.level,
            znode: s.znode,
            zone: s.zone,
            zone_index: s.index,
            ports: s
                .ports
                .iter()
                .enumerate()
                .map(|(port, p)| PortInfo {
                    port,
                    role: p.role,
                    dir: p.dir,
                    label: p.label,
                    group: p.group,
                    peer: peer(p.peer),
                })
                .collect(),
        })
}

/// One host of `address`.
#[derive(Serialize)]
pub struct HostAddresses {
    /// Host name (`h<logical index>`).
    pub host: String,
    /// Logical index.
    pub index: u64,
    /// The family's forms, as the text view's rows (`name`, `value`).
    pub rows: Vec<Row>,
}

/// One row of [`HostAddresses`].
#[derive(Serialize)]
pub struct Row {
    /// What the value is (`labels`, `physical`, `port addr`, …).
    pub name: String,
    /// The value as text.
    pub value: String,
}

impl HostAddresses {
    /// The addresses of host `h` (an index into `t.hosts`).
    pub fn new(t: &Topology, h: u32) -> HostAddresses {
        HostAddresses {
            host: t.host_name(h),
            index: t.hosts.get(h as usize).map_or(0, |x| x.index),
            rows: topology::describe_host(t, h)
                .into_iter()
                .filter(|(name, _)| name != "host" && name != "index")
                .map(|(name, value)| Row { name, value })
                .collect(),
        }
    }
}

/// A host named on the command line.
#[derive(Serialize)]
pub struct HostRef {
    /// Index in the topology.
    pub index: u32,
    /// Name (`h<logical index>`).
    pub name: String,
}

impl HostRef {
    /// Host `h` of `t`.
    pub fn new(t: &Topology, h: u32) -> HostRef {
        HostRef {
            index: h,
            name: t.host_name(h),
        }
    }
}

/// `header`.
#[derive(Serialize)]
pub struct HeaderReport {
    /// The spec, normalised.
    pub topology: String,
    /// Header kind.
    pub kind: Kind,
    /// Sliced-flit mode given with --mode (`sliced`, `flat`, `srcdst`, `dst`), else null.
    pub mode: Option<&'static str>,
    /// Source host.
    pub src: HostRef,
    /// Destination host.
    pub dst: HostRef,
    /// The header in hex.
    pub header: String,
    /// The walk, with --trace; else null.
    pub trace: Option<Trace>,
}

/// The walk of `header --trace`.
#[derive(Serialize)]
pub struct Trace {
    /// Host port the frame was injected on.
    pub inject_port: u16,
    /// Switch traversals in order.
    pub hops: Vec<TraceHop>,
    /// How the walk ended.
    pub outcome: TraceOutcome,
    /// The walk passed the oracle's checks.
    pub ok: bool,
    /// Why not, when it did not.
    pub error: Option<String>,
}

/// One switch traversal of a [`Trace`].
#[derive(Serialize)]
pub struct TraceHop {
    /// Switch index.
    pub switch: u32,
    /// Switch name.
    pub name: String,
    /// Its level.
    pub level: u16,
    /// Port the frame arrived on.
    pub ingress: u16,
    /// That port's role.
    pub ingress_role: Option<PortRole>,
    /// The decision.
    pub decision: Decision,
    /// Port chosen (null for a drop).
    pub egress: Option<u16>,
    /// Its role.
    pub egress_role: Option<PortRole>,
    /// Header after the hop, in hex (null when not recorded).
    pub header: Option<String>,
}

/// A switch's decision: `{"type": "deterministic"}`, `{"type": "group", "group"}` or
/// `{"type": "drop", "reason", "detail"}`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Decision {
    /// One port.
    Deterministic,
    /// A port of this group (adaptive).
    Group {
        /// Group number.
        group: u16,
    },
    /// Dropped.
    Drop(Dropped),
}

/// A drop: the counter label and the message.
#[derive(Serialize)]
pub struct Dropped {
    /// The drop counter's label (`ttl_expired`, …).
    pub reason: &'static str,
    /// The reason as a message.
    pub detail: String,
}

impl From<DropReason> for Dropped {
    fn from(r: DropReason) -> Dropped {
        Dropped {
            reason: r.name(),
            detail: r.to_string(),
        }
    }
}

/// How a [`Trace`] ended: `{"type": "delivered"|"dropped"|"dangling"|"no_injection"|
/// "too_many_hops", …}`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceOutcome {
    /// Reached host `host` (index) on its port `port`.
    Delivered {
        /// Host index.
        host: u32,
        /// Host port.
        port: u16,
    },
    /// Switch `switch` dropped the frame.
    Dropped {
        /// Switch index.
        switch: u32,
        /// Why.
        #[serde(flatten)]
        reason: Dropped,
    },
    /// The chosen port of switch `switch` is not connected.
    Dangling {
        /// Switch index.
        switch: u32,
        /// Port.
        port: u16,
    },
    /// The source could not transmit.
    NoInjection,
    /// More switch traversals than any valid path has.
    TooManyHops,
}

impl Trace {
    /// The trace of walk `w` in `t`, with the result of its checks.
    pub fn new(t: &Topology, w: &Walk, check: Result<(), String>) -> Trace {
        let hops = w
            .hops
            .iter()
            .map(|h| {
                let sw = &t.switches[h.switch as usize];
                TraceHop {
                    switch: h.switch,
                    name: sw.name.clone(),
                    level: sw.level,
                    ingress: h.ingress,
                    ingress_role: sw.ports.get(usize::from(h.ingress)).map(|p| p.role),
                    decision: match h.verdict {
                        Verdict::Port(_) => Decision::Deterministic,
                        Verdict::Group(group) => Decision::Group { group },
                        Verdict::Drop(r) => Decision::Drop(r.into()),
                    },
                    egress: h.egress,
                    egress_role: h.egress_role,
                    header: (!h.header.is_empty()).then(|| hex::encode(&h.header)),
                }
            })
            .collect();
        let outcome = match w.outcome.clone() {
            Outcome::Delivered { host, port } => TraceOutcome::Delivered { host, port },
            Outcome::Dropped { switch, reason } => TraceOutcome::Dropped {
                switch,
                reason: reason.into(),
            },
            Outcome::Dangling { switch, port } => TraceOutcome::Dangling { switch, port },
            Outcome::NoInjection => TraceOutcome::NoInjection,
            Outcome::TooManyHops => TraceOutcome::TooManyHops,
        };
        Trace {
            inject_port: w.inject_port,
            hops,
            outcome,
            ok: check.is_ok(),
            error: check.err(),
        }
    }
}

/// `tables SPEC --summary`: the kind's [`TableSummary`] fields (`id_bits`,
/// `id_bits_detail`, `switches`, `max_entries`, `max_switch`, `total_entries`,
/// `by_level`, `notes`) beside the topology, kind and mode.
#[derive(Serialize)]
pub struct TablesReport<'a> {
    /// The spec, normalised.
    pub topology: String,
    /// Header kind.
    pub kind: Kind,
    /// Sliced-flit mode given with --mode, else null.
    pub mode: Option<&'static str>,
    /// The summary.
    #[serde(flatten)]
    pub summary: &'a TableSummary,
}

/// `check`: the oracle's [`PairsReport`] fields (`pairs`, `ok`, `failed`, `failures`,
/// `hops`) beside the topology, kind, mode and seed.
#[derive(Serialize)]
pub struct CheckReport<'a> {
    /// The spec, normalised.
    pub topology: String,
    /// Header kind.
    pub kind: Kind,
    /// Sliced-flit mode given with --mode, else null.
    pub mode: Option<&'static str>,
    /// Seed of the pair sampling and adaptive choices.
    pub seed: u64,
    /// The report.
    #[serde(flatten)]
    pub report: &'a PairsReport,
}

/// `sim`: the options, the [`TrafficReport`] fields (`sent`, `delivered`,
/// `misdelivered`, `dropped`, `elapsed_seconds`), and what the text view derives.
#[derive(Serialize)]
pub struct SimReport<'a> {
    /// The spec, normalised.
    pub topology: String,
    /// Switches.
    pub switches: usize,
    /// Hosts.
    pub hosts: usize,
    /// Header kind.
    pub kind: Kind,
    /// Threads.
    pub threads: u16,
    /// Traffic pattern.
    pub pattern: &'static str,
    /// Destinations each host draws once and sends to, on fabrics too large for all
    /// (null: every other host).
    pub destinations_per_host: Option<usize>,
    /// Frame size on the wire in bytes.
    pub frame_size: u16,
    /// How long the sources sent, in seconds.
    pub seconds: f64,
    /// Source window in frames.
    pub window: u32,
    /// Ring size in frames.
    pub ring: u32,
    /// Drain timer in microseconds.
    pub drain_us: u32,
    /// Seed.
    pub seed: u64,
    /// The counts.
    #[serde(flatten)]
    pub traffic: &'a TrafficReport,
    /// Dropped frames by reason (only reasons with drops).
    pub drops: Vec<DropCount>,
    /// Delivered frames per second, in millions.
    pub mpps: f64,
    /// Delivered bits per second on the wire, in billions.
    pub gbit_per_s: f64,
    /// Switch traversals of all frames.
    pub switch_traversals: u64,
    /// Switch traversals per frame sent (null when none was sent).
    pub traversals_per_frame: Option<f64>,
    /// Every switch's rx = tx + drops, and sent = delivered + misdelivered + dropped.
    pub conserved: bool,
    /// What did not conserve.
    pub conservation_failures: Vec<String>,
}

/// Dropped frames of one reason.
#[derive(Serialize)]
pub struct DropCount {
    /// The drop counter's label.
    pub reason: &'static str,
    /// Frames.
    pub frames: u64,
}

/// `mode`'s name, for the reports.
pub fn mode_name(mode: Option<Mode>) -> Option<&'static str> {
    mode.map(Mode::name)
}
