//! What each kind's tables become: [`entries`] computes the [`Op`]s of one switch.

use canopy_dataplane::table::pathid::{Action as PidAction, LpmEntry, PathIdTable};
use canopy_dataplane::table::sliced::SlicedTable;
use canopy_dataplane::table::transit::{DirTarget, Rn1Mode, TransitTable};
use canopy_dataplane::table::{PortDir, PortRole, SwitchTables};

use super::model::{call, exact, pathid_lpm, v};
use super::{Call, Match, Op, P4Error, Val, DROP_COUNTER, MAX_PORT};

/// One switch's values checked against the widths the P4 programs declare: a value that
/// does not fit is a [`P4Error`] naming the switch. The TNA entries use the same checks.
pub(super) struct Checks<'a> {
    /// The switch whose values these are.
    pub(super) sw: &'a SwitchTables,
}

impl Checks<'_> {
    /// [`P4Error::TooWide`] for this switch.
    pub(super) fn too_wide(&self, what: &'static str, value: u64, bits: u32) -> P4Error {
        P4Error::TooWide {
            switch: self.sw.name.clone(),
            what,
            value,
            bits,
        }
    }

    /// `value` as a `bits`-bit value, if it fits.
    pub(super) fn fit(&self, what: &'static str, value: u64, bits: u32) -> Result<Val, P4Error> {
        if bits < 64 && value >> bits != 0 {
            return Err(self.too_wide(what, value, bits));
        }
        Ok(v(bits, value))
    }

    /// A port as a 9-bit port value, if it is at most [`MAX_PORT`].
    pub(super) fn port(&self, p: u16) -> Result<Val, P4Error> {
        if p > MAX_PORT {
            return Err(P4Error::PortOutOfRange {
                switch: self.sw.name.clone(),
                port: p,
            });
        }
        Ok(v(9, u64::from(p)))
    }

    /// A group id as a 16-bit value, if the switch has that group.
    pub(super) fn group(&self, g: u16) -> Result<Val, P4Error> {
        if usize::from(g) >= self.sw.groups.len() {
            return Err(P4Error::UnknownGroup {
                switch: self.sw.name.clone(),
                group: g,
            });
        }
        Ok(v(16, u64::from(g)))
    }

    /// `has_up` and `up_group` of the sliced configuration: whether the switch has an up
    /// group, and which (0 without one).
    pub(super) fn up_group(&self, t: &SlicedTable) -> Result<[(&'static str, Val); 2], P4Error> {
        let (has_up, up_group) = match t.up {
            Some(u) => (1, self.group(u)?),
            None => (0, v(16, 0)),
        };
        Ok([("has_up", v(1, has_up)), ("up_group", up_group)])
    }
}

/// The scalars of the sliced configuration both programs take first: mode, level, sid, m,
/// a, b, z.
pub(super) fn sliced_scalars(t: &SlicedTable) -> Vec<(&'static str, Val)> {
    vec![
        ("mode", v(8, t.mode as u64)),
        ("level", v(8, u64::from(t.level))),
        ("sid", v(32, u64::from(t.sid))),
        ("m", v(32, u64::from(t.m))),
        ("a", v(8, u64::from(t.a))),
        ("b", v(8, u64::from(t.b))),
        ("z", v(32, u64::from(t.z))),
    ]
}

/// The address layout of the sliced configuration: where the label, zone and znode sit.
pub(super) fn sliced_layout(t: &SlicedTable) -> [(&'static str, Val); 4] {
    [
        ("label_shift", v(8, u64::from(t.label_shift))),
        ("zone_shift", v(8, u64::from(t.zone_shift))),
        ("znode_shift", v(8, u64::from(t.znode_shift))),
        ("addr_bits", v(8, u64::from(t.addr_bits))),
    ]
}

/// The switch id `p4/canopy.p4` writes into hop records (`hop_cfg`,
/// `docs/wire-format.md` §2.1): the switch's index in its topology, the id canopy-switch
/// writes. v1model only (`canopy_tna.p4` has no hop records).
pub fn hop_switch(id: u32) -> Op {
    Op::SetDefault {
        table: "hop_cfg",
        call: call("set_hop_switch", vec![("id", v(32, u64::from(id)))]),
    }
}

/// The entries of one switch as they are computed, in programming order.
struct Gen<'a> {
    sw: &'a SwitchTables,
    check: Checks<'a>,
    ops: Vec<Op>,
}

/// Every entry `p4/canopy.p4` needs to forward like `canopy-switch` with `sw`'s tables:
/// port roles, the groups of equivalent ports (size and one entry per member), and
/// the kind tables present in `sw` (a kind without a table keeps its `*_off` default and
/// drops `kind_not_configured`, as the Rust switch does).
pub fn entries(sw: &SwitchTables) -> Result<Vec<Op>, P4Error> {
    let mut g = Gen {
        sw,
        check: Checks { sw },
        ops: Vec::new(),
    };
    g.header();
    g.ports()?;
    g.groups()?;
    if let Some(t) = &sw.sliced {
        g.sliced(t)?;
    }
    if let Some(t) = &sw.transit {
        g.transit(t)?;
    }
    if let Some(t) = &sw.pathid {
        g.pathid(t)?;
    }
    Ok(g.ops)
}

impl Gen<'_> {
    fn add(&mut self, table: &'static str, key: Vec<Match>, call: Call) {
        self.ops.push(Op::Add {
            table,
            key,
            call,
            prefix_len: None,
        });
    }

    /// The comments that open the entries: the switch, the drop counter, the groups.
    fn header(&mut self) {
        let sw = self.sw;
        self.ops.push(Op::Comment(format!(
            "canopy p4 entries for switch {} ({} ports, {} groups); drop counter {DROP_COUNTER} \
             indexed by canopy_dataplane::decide::DROP_REASON_NAMES",
            sw.name,
            sw.ports.len(),
            sw.groups.len()
        )));
        self.ops.push(Op::Comment(
            "groups: the flow hash modulo the fwd_group size picks the fwd_member bucket".into(),
        ));
    }

    /// `canopy_port`: the role (and Transit's swallow flag) of every port that receives.
    fn ports(&mut self) -> Result<(), P4Error> {
        let sw = self.sw;
        let swallow = |i: usize| {
            sw.transit
                .as_ref()
                .and_then(|t| t.config.swallow.get(i).copied())
                .unwrap_or(false)
        };
        for (i, p) in sw.ports.iter().enumerate() {
            let port = u16::try_from(i).unwrap_or(u16::MAX);
            let pv = self.check.port(port)?;
            if p.dir == PortDir::Out {
                continue; // transmit-only: no entry, arrivals drop bad_ingress_port
            }
            let role = match p.role {
                PortRole::Up => 0,
                PortRole::Down => 1,
                PortRole::Side => 2,
            };
            self.add(
                "canopy_port",
                vec![exact("standard_metadata.ingress_port", pv)],
                call(
                    "set_port_info",
                    vec![
                        ("role", v(2, role)),
                        ("swallow", v(1, u64::from(swallow(i)))),
                    ],
                ),
            );
        }
        Ok(())
    }

    /// The groups: the size in `fwd_group`, one `fwd_member` entry per (group, bucket).
    fn groups(&mut self) -> Result<(), P4Error> {
        for (gid, ports) in self.sw.groups.iter().enumerate() {
            let gv = v(16, gid as u64);
            if ports.is_empty() {
                self.add(
                    "fwd_group",
                    vec![exact("meta.group", gv)],
                    call("group_empty", vec![]),
                );
                continue;
            }
            let size = self.check.fit("group size", ports.len() as u64, 16)?;
            self.add(
                "fwd_group",
                vec![exact("meta.group", gv)],
                call("set_group", vec![("size", size)]),
            );
            for (bucket, &p) in ports.iter().enumerate() {
                let pv = self.check.port(p)?;
                self.add(
                    "fwd_member",
                    vec![
                        exact("meta.group", gv),
                        exact("meta.bucket", v(16, bucket as u64)),
                    ],
                    call("set_egress", vec![("port", pv)]),
                );
            }
        }
        Ok(())
    }

    /// Sliced-flit: the `sliced_cfg` default, then the down and side labels' groups.
    fn sliced(&mut self, t: &SlicedTable) -> Result<(), P4Error> {
        let up = self.check.up_group(t)?;
        let mut params = sliced_scalars(t);
        params.extend(sliced_layout(t));
        params.push(("zone", v(64, t.zone)));
        params.extend(up);
        self.ops.push(Op::SetDefault {
            table: "sliced_cfg",
            call: call("set_sliced_cfg", params),
        });
        for (label, grp) in t.down.iter().enumerate() {
            if let Some(grp) = grp {
                let gv = self.check.group(*grp)?;
                self.add(
                    "sliced_down",
                    vec![exact("meta.label", v(64, label as u64))],
                    call("to_group", vec![("group", gv)]),
                );
            }
        }
        for (k, grp) in t.side.iter().enumerate() {
            if let Some(grp) = grp {
                let gv = self.check.group(*grp)?;
                self.add(
                    "sliced_side",
                    vec![exact("meta.side_k", v(64, k as u64))],
                    call("to_group", vec![("group", gv)]),
                );
            }
        }
        Ok(())
    }

    /// Transit: the `transit_cfg` default, then one `transit_dir` entry per direction
    /// with a target, in each half the mode uses.
    fn transit(&mut self, t: &TransitTable) -> Result<(), P4Error> {
        let split = t.config.mode == Rn1Mode::Split;
        self.ops.push(Op::SetDefault {
            table: "transit_cfg",
            call: call("set_transit_cfg", vec![("split", v(1, u64::from(split)))]),
        });
        let halves = if split { 2 } else { 1 };
        for (half, row) in t.dirs.iter().enumerate().take(halves) {
            for (d, e) in row.iter().enumerate() {
                let rot = self.check.fit("transit rotation", u64::from(e.rot), 2)?;
                let delay = v(8, u64::from(e.delay));
                let key = vec![
                    exact("meta.tr_half", v(1, half as u64)),
                    exact("meta.tr_dir", v(2, d as u64)),
                ];
                let c = match e.target {
                    DirTarget::None => continue,
                    DirTarget::Port(p) => call(
                        "dir_port",
                        vec![
                            ("port", self.check.port(p)?),
                            ("rot", rot),
                            ("delay", delay),
                        ],
                    ),
                    DirTarget::Group(grp) => call(
                        "dir_group",
                        vec![
                            ("group", self.check.group(grp)?),
                            ("rot", rot),
                            ("delay", delay),
                        ],
                    ),
                };
                self.add("transit_dir", key, c);
            }
        }
        Ok(())
    }

    /// Path-ID: the `pathid_cfg` default, one `pathid_lpm` entry per prefix and one
    /// `pathid_host` entry per host label.
    fn pathid(&mut self, t: &PathIdTable) -> Result<(), P4Error> {
        self.ops.push(Op::SetDefault {
            table: "pathid_cfg",
            call: call("set_pathid_cfg", vec![("leaf", v(1, u64::from(t.leaf)))]),
        });
        for e in t.entries() {
            let op = self.pathid_lpm(e)?;
            self.ops.push(op);
        }
        for h in t.hosts() {
            let c = match h.action {
                PidAction::Port(p) => call("to_port", vec![("port", self.check.port(p)?)]),
                PidAction::Group(grp) => call("to_group", vec![("group", self.check.group(grp)?)]),
            };
            self.add(
                "pathid_host",
                vec![exact("hdr.pathid.host_label", v(32, u64::from(h.label)))],
                c,
            );
        }
        Ok(())
    }

    /// One prefix as a `pathid_lpm` entry: the prefix left-aligned in a ternary match on
    /// the ID, a range on the ID's length from the prefix's up, and the prefix length as
    /// the priority.
    fn pathid_lpm(&self, e: &LpmEntry) -> Result<Op, P4Error> {
        let len = u32::from(e.len);
        if len > 64 {
            return Err(self
                .check
                .too_wide("path-ID prefix length", u64::from(e.len), 64));
        }
        let value = if len == 0 { 0 } else { e.value << (64 - len) };
        if len < 64 && e.value >> len != 0 {
            return Err(self.check.too_wide("path-ID prefix", e.value, len));
        }
        let mask = if len == 0 { 0 } else { u64::MAX << (64 - len) };
        let down = v(1, u64::from(e.down));
        let c = match e.action {
            PidAction::Port(p) => call(
                "pid_port",
                vec![("down", down), ("port", self.check.port(p)?)],
            ),
            PidAction::Group(grp) => call(
                "pid_group",
                vec![("down", down), ("group", self.check.group(grp)?)],
            ),
        };
        Ok(pathid_lpm(
            value,
            mask,
            u64::from(e.len),
            64,
            c,
            Some(e.len),
        ))
    }
}
