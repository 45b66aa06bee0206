//! Table entries for the P4 reference program (`p4/canopy.p4`) from a switch's
//! [`SwitchTables`], the same tables `canopy-switch` forwards with.
//!
//! [`entries`] turns one switch's tables into a target-neutral list of [`Op`]s; the
//! renderers write them as `simple_switch_CLI` commands ([`bmv2_cli`]) or as a P4Runtime
//! `p4.v1.WriteRequest` in proto3 JSON ([`p4runtime`]), with every name resolved to its
//! id through the [`P4Info`] p4c writes. `canopyctl p4-entries` is the command-line face.
//! docs/p4.md describes the program's tables and actions.

use std::fmt::Write as _;

use canopy_dataplane::table::pathid::Action as PidAction;
use canopy_dataplane::table::transit::{DirTarget, Rn1Mode};
use canopy_dataplane::table::{PortDir, PortRole, SwitchTables};
use serde::Deserialize;
use serde_json::{json, Value};
use thiserror::Error;

pub mod tna;

/// Name of the ingress control in `p4/canopy.p4`: the prefix of every table, action,
/// counter and action-profile name.
pub const INGRESS: &str = "CanopyIngress";
/// The drop counter (indexed by position in `DROP_REASON_NAMES`), as
/// `simple_switch_CLI counter_read` wants it.
pub const DROP_COUNTER: &str = "CanopyIngress.canopy_drops";
/// Largest port number the v1model `egress_spec` (9 bits) can carry, minus the drop port.
pub const MAX_PORT: u16 = 510;

/// Why entries could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum P4Error {
    /// A port number does not fit a v1model port (9 bits, 511 is the drop port).
    #[error("switch {switch}: port {port} does not fit a v1model port (0..={MAX_PORT})")]
    PortOutOfRange {
        /// Switch name.
        switch: String,
        /// Port.
        port: u16,
    },
    /// A table refers to a group the switch does not have.
    #[error("switch {switch}: group {group} is referenced but not defined")]
    UnknownGroup {
        /// Switch name.
        switch: String,
        /// Group id.
        group: u16,
    },
    /// A count is above what the program was declared with (a selector's group size, its
    /// number of groups).
    #[error("switch {switch}: {what} = {value} is above the program's limit of {max}")]
    Limit {
        /// Switch name.
        switch: String,
        /// Which count.
        what: &'static str,
        /// The count.
        value: u64,
        /// The program's limit.
        max: u64,
    },
    /// A value does not fit the P4 field or parameter it goes to.
    #[error("switch {switch}: {what} = {value} does not fit {bits} bits")]
    TooWide {
        /// Switch name.
        switch: String,
        /// Which value.
        what: &'static str,
        /// Value.
        value: u64,
        /// Width of the P4 field.
        bits: u32,
    },
}

/// Output format of `canopyctl p4-entries`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `simple_switch_CLI` commands, one per line.
    Bmv2Cli,
    /// A P4Runtime `p4.v1.WriteRequest` (proto3 JSON); needs a [`P4Info`].
    P4Runtime,
    /// `bfrt_python` commands for the Tofino program `p4/canopy_tna.p4`
    /// ([`tna`]).
    BfrtPython,
}

impl Format {
    /// Parse `bmv2-cli`, `p4runtime` or `bfrt-python`.
    pub fn from_name(s: &str) -> Option<Format> {
        match s {
            "bmv2-cli" => Some(Format::Bmv2Cli),
            "p4runtime" => Some(Format::P4Runtime),
            "bfrt-python" => Some(Format::BfrtPython),
            _ => None,
        }
    }
}

/// A value of a given bit width (a match field or an action parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Val {
    /// Width in bits.
    pub bits: u32,
    /// Value (fits `bits`).
    pub value: u64,
}

/// One key field of a table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// Exact match.
    Exact {
        /// p4info name of the field.
        field: &'static str,
        /// Value.
        v: Val,
    },
    /// Ternary match (value, mask).
    Ternary {
        /// p4info name of the field.
        field: &'static str,
        /// Value.
        v: Val,
        /// Mask.
        mask: u64,
    },
    /// Range match, both ends included.
    Range {
        /// p4info name of the field.
        field: &'static str,
        /// Low end.
        lo: Val,
        /// High end.
        hi: u64,
    },
}

/// An action call: the action's name (without the control prefix) and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Action name in `CanopyIngress`.
    pub action: &'static str,
    /// Parameters, in declaration order.
    pub params: Vec<(&'static str, Val)>,
}

/// One programming step, in the order it must be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A comment line.
    Comment(String),
    /// Set the default action of a keyless configuration table.
    SetDefault {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Action.
        call: Call,
    },
    /// A direct table entry.
    Add {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Key.
        key: Vec<Match>,
        /// Action.
        call: Call,
        /// Prefix length of an LPM-like (ternary + range) entry: longer wins.
        prefix_len: Option<u8>,
    },
}

struct Gen<'a> {
    sw: &'a SwitchTables,
    ops: Vec<Op>,
}

fn v(bits: u32, value: u64) -> Val {
    Val { bits, value }
}

impl Gen<'_> {
    fn fit(&self, what: &'static str, value: u64, bits: u32) -> Result<Val, P4Error> {
        if bits < 64 && value >> bits != 0 {
            return Err(P4Error::TooWide {
                switch: self.sw.name.clone(),
                what,
                value,
                bits,
            });
        }
        Ok(v(bits, value))
    }

    fn port(&self, p: u16) -> Result<Val, P4Error> {
        if p > MAX_PORT {
            return Err(P4Error::PortOutOfRange {
                switch: self.sw.name.clone(),
                port: p,
            });
        }
        Ok(v(9, u64::from(p)))
    }

    fn group(&self, g: u16) -> Result<Val, P4Error> {
        if usize::from(g) >= self.sw.groups.len() {
            return Err(P4Error::UnknownGroup {
                switch: self.sw.name.clone(),
                group: g,
            });
        }
        Ok(v(16, u64::from(g)))
    }

    fn add(&mut self, table: &'static str, key: Vec<Match>, call: Call) {
        self.ops.push(Op::Add {
            table,
            key,
            call,
            prefix_len: None,
        });
    }
}

fn exact(field: &'static str, v: Val) -> Match {
    Match::Exact { field, v }
}

fn call(action: &'static str, params: Vec<(&'static str, Val)>) -> Call {
    Call { action, params }
}

/// Every entry `p4/canopy.p4` needs to forward like `canopy-switch` with `sw`'s tables:
/// port roles, the groups of equivalent ports (size and one entry per member), and
/// the kind tables present in `sw` (a kind without a table keeps its `*_off` default and
/// drops `kind_not_configured`, as the Rust switch does).
pub fn entries(sw: &SwitchTables) -> Result<Vec<Op>, P4Error> {
    let mut g = Gen {
        sw,
        ops: Vec::new(),
    };
    g.ops.push(Op::Comment(format!(
        "canopy p4 entries for switch {} ({} ports, {} groups); drop counter {DROP_COUNTER} \
         indexed by canopy_dataplane::decide::DROP_REASON_NAMES",
        sw.name,
        sw.ports.len(),
        sw.groups.len()
    )));
    g.ops.push(Op::Comment(
        "groups: the flow hash modulo the fwd_group size picks the fwd_member bucket".into(),
    ));

    // ---- ports ----
    let swallow = |i: usize| {
        sw.transit
            .as_ref()
            .and_then(|t| t.config.swallow.get(i).copied())
            .unwrap_or(false)
    };
    for (i, p) in sw.ports.iter().enumerate() {
        let port = u16::try_from(i).unwrap_or(u16::MAX);
        let pv = g.port(port)?;
        if p.dir == PortDir::Out {
            continue; // transmit-only: no entry, arrivals drop bad_ingress_port
        }
        let role = match p.role {
            PortRole::Up => 0,
            PortRole::Down => 1,
            PortRole::Side => 2,
        };
        g.add(
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

    // ---- groups: size in fwd_group, one fwd_member entry per (group, bucket) ----
    for (gid, ports) in sw.groups.iter().enumerate() {
        let gv = v(16, gid as u64);
        if ports.is_empty() {
            g.add(
                "fwd_group",
                vec![exact("meta.group", gv)],
                call("group_empty", vec![]),
            );
            continue;
        }
        let size = g.fit("group size", ports.len() as u64, 16)?;
        g.add(
            "fwd_group",
            vec![exact("meta.group", gv)],
            call("set_group", vec![("size", size)]),
        );
        for (bucket, &p) in ports.iter().enumerate() {
            let pv = g.port(p)?;
            g.add(
                "fwd_member",
                vec![
                    exact("meta.group", gv),
                    exact("meta.bucket", v(16, bucket as u64)),
                ],
                call("set_egress", vec![("port", pv)]),
            );
        }
    }

    // ---- sliced-flit ----
    if let Some(t) = &sw.sliced {
        let (has_up, up_group) = match t.up {
            Some(u) => (1, g.group(u)?),
            None => (0, v(16, 0)),
        };
        let params = vec![
            ("mode", v(8, t.mode as u64)),
            ("level", v(8, u64::from(t.level))),
            ("sid", v(32, u64::from(t.sid))),
            ("m", v(32, u64::from(t.m))),
            ("a", v(8, u64::from(t.a))),
            ("b", v(8, u64::from(t.b))),
            ("z", v(32, u64::from(t.z))),
            ("label_shift", v(8, u64::from(t.label_shift))),
            ("zone_shift", v(8, u64::from(t.zone_shift))),
            ("znode_shift", v(8, u64::from(t.znode_shift))),
            ("addr_bits", v(8, u64::from(t.addr_bits))),
            ("zone", v(64, t.zone)),
            ("has_up", v(1, has_up)),
            ("up_group", up_group),
        ];
        g.ops.push(Op::SetDefault {
            table: "sliced_cfg",
            call: call("set_sliced_cfg", params),
        });
        for (label, grp) in t.down.iter().enumerate() {
            if let Some(grp) = grp {
                let gv = g.group(*grp)?;
                g.add(
                    "sliced_down",
                    vec![exact("meta.label", v(64, label as u64))],
                    call("to_group", vec![("group", gv)]),
                );
            }
        }
        for (k, grp) in t.side.iter().enumerate() {
            if let Some(grp) = grp {
                let gv = g.group(*grp)?;
                g.add(
                    "sliced_side",
                    vec![exact("meta.side_k", v(64, k as u64))],
                    call("to_group", vec![("group", gv)]),
                );
            }
        }
    }

    // ---- Transit ----
    if let Some(t) = &sw.transit {
        let split = t.config.mode == Rn1Mode::Split;
        g.ops.push(Op::SetDefault {
            table: "transit_cfg",
            call: call("set_transit_cfg", vec![("split", v(1, u64::from(split)))]),
        });
        let halves = if split { 2 } else { 1 };
        for (half, row) in t.dirs.iter().enumerate().take(halves) {
            for (d, e) in row.iter().enumerate() {
                let rot = g.fit("transit rotation", u64::from(e.rot), 2)?;
                let delay = v(8, u64::from(e.delay));
                let key = vec![
                    exact("meta.tr_half", v(1, half as u64)),
                    exact("meta.tr_dir", v(2, d as u64)),
                ];
                let c = match e.target {
                    DirTarget::None => continue,
                    DirTarget::Port(p) => call(
                        "dir_port",
                        vec![("port", g.port(p)?), ("rot", rot), ("delay", delay)],
                    ),
                    DirTarget::Group(grp) => call(
                        "dir_group",
                        vec![("group", g.group(grp)?), ("rot", rot), ("delay", delay)],
                    ),
                };
                g.add("transit_dir", key, c);
            }
        }
    }

    // ---- path-ID ----
    if let Some(t) = &sw.pathid {
        g.ops.push(Op::SetDefault {
            table: "pathid_cfg",
            call: call("set_pathid_cfg", vec![("leaf", v(1, u64::from(t.leaf)))]),
        });
        for e in t.entries() {
            let len = u32::from(e.len);
            if len > 64 {
                return Err(P4Error::TooWide {
                    switch: sw.name.clone(),
                    what: "path-ID prefix length",
                    value: u64::from(e.len),
                    bits: 64,
                });
            }
            let value = if len == 0 { 0 } else { e.value << (64 - len) };
            if len < 64 && e.value >> len != 0 {
                return Err(P4Error::TooWide {
                    switch: sw.name.clone(),
                    what: "path-ID prefix",
                    value: e.value,
                    bits: len,
                });
            }
            let mask = if len == 0 { 0 } else { u64::MAX << (64 - len) };
            let down = v(1, u64::from(e.down));
            let c = match e.action {
                PidAction::Port(p) => call("pid_port", vec![("down", down), ("port", g.port(p)?)]),
                PidAction::Group(grp) => {
                    call("pid_group", vec![("down", down), ("group", g.group(grp)?)])
                }
            };
            g.ops.push(Op::Add {
                table: "pathid_lpm",
                key: vec![
                    Match::Ternary {
                        field: "hdr.pathid.id",
                        v: v(64, value),
                        mask,
                    },
                    Match::Range {
                        field: "hdr.pathid.id_len",
                        lo: v(8, u64::from(e.len)),
                        hi: 64,
                    },
                ],
                call: c,
                prefix_len: Some(e.len),
            });
        }
        for h in t.hosts() {
            let c = match h.action {
                PidAction::Port(p) => call("to_port", vec![("port", g.port(p)?)]),
                PidAction::Group(grp) => call("to_group", vec![("group", g.group(grp)?)]),
            };
            g.add(
                "pathid_host",
                vec![exact("hdr.pathid.host_label", v(32, u64::from(h.label)))],
                c,
            );
        }
    }
    Ok(g.ops)
}

/// bmv2 priority of an LPM-like entry: the smallest value wins in bmv2's own API, so
/// longer prefixes get smaller values (1 for 64 bits, 65 for the empty prefix).
pub fn bmv2_priority(prefix_len: u8) -> u32 {
    65 - u32::from(prefix_len.min(64))
}

/// P4Runtime priority of an LPM-like entry: the largest value wins (1..=65).
pub fn p4runtime_priority(prefix_len: u8) -> u32 {
    u32::from(prefix_len.min(64)) + 1
}

fn hex_or_dec(x: Val) -> String {
    if x.bits > 16 && x.value > 0xffff {
        format!("{:#x}", x.value)
    } else {
        x.value.to_string()
    }
}

fn cli_key(key: &[Match]) -> String {
    key.iter()
        .map(|m| match m {
            Match::Exact { v, .. } => hex_or_dec(*v),
            Match::Ternary { v, mask, .. } => format!("{:#x}&&&{:#x}", v.value, mask),
            Match::Range { lo, hi, .. } => format!("{}->{}", lo.value, hi),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn cli_params(c: &Call) -> String {
    c.params
        .iter()
        .map(|(_, v)| hex_or_dec(*v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `simple_switch_CLI` commands (one per line; comments start with `#`).
pub fn bmv2_cli(ops: &[Op]) -> String {
    let mut s = String::new();
    for op in ops {
        match op {
            Op::Comment(c) => {
                let _ = writeln!(s, "# {c}");
            }
            Op::SetDefault { table, call } => {
                let _ = writeln!(
                    s,
                    "table_set_default {INGRESS}.{table} {INGRESS}.{} {}",
                    call.action,
                    cli_params(call)
                );
            }
            Op::Add {
                table,
                key,
                call,
                prefix_len,
            } => {
                let prio = prefix_len
                    .map(|l| format!(" {}", bmv2_priority(l)))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "table_add {INGRESS}.{table} {INGRESS}.{} {} => {}{prio}",
                    call.action,
                    cli_key(key),
                    cli_params(call)
                );
            }
        }
    }
    // Trailing spaces of parameterless actions are harmless for the CLI but untidy.
    s.lines()
        .map(str::trim_end)
        .fold(String::new(), |mut o, l| {
            o.push_str(l);
            o.push('\n');
            o
        })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (the proto3 JSON form of `bytes`).
pub fn base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// P4Runtime canonical byte string of a value: big-endian, no leading zero bytes, at
/// least one byte.
pub fn canonical_bytes(x: u64) -> Vec<u8> {
    let b = x.to_be_bytes();
    let first = b.iter().position(|&c| c != 0).unwrap_or(7);
    b[first..].to_vec()
}

// ------------------------------------------------------------------ P4Info ----

/// The P4Info command that writes the JSON form [`P4Info::load`] reads (p4c picks the
/// format from the file name's extension).
pub const P4INFO_COMMAND: &str = "p4c --target bmv2 --arch v1model \
     --p4runtime-files OUTDIR/canopy.p4info.json -o OUTDIR p4/canopy.p4";

/// Why a P4Info could not be read, or a name or value of the entries does not resolve
/// through it. Every variant names the switch and the table (or file) it is about.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum P4InfoError {
    /// The file could not be read.
    #[error("{path}: {msg}")]
    Io {
        /// File.
        path: String,
        /// The system's message.
        msg: String,
    },
    /// The file is a P4Info in protobuf text (or binary) format, not JSON.
    #[error(
        "{path}: not a JSON P4Info (protobuf text or binary format?); ask p4c for the JSON \
         form with a .json file name: {P4INFO_COMMAND}"
    )]
    NotJson {
        /// File.
        path: String,
    },
    /// The JSON does not parse as a P4Info.
    #[error("{path}: bad P4Info JSON: {msg}")]
    Json {
        /// File.
        path: String,
        /// The parser's message.
        msg: String,
    },
    /// The JSON parses but declares no table (e.g. the bmv2 `canopy.json`, not the P4Info).
    #[error("{path}: no tables: not a P4Info (write one with {P4INFO_COMMAND})")]
    NoTables {
        /// File.
        path: String,
    },
    /// The drop counter (indexed by drop reason) is not in the P4Info.
    #[error("the P4Info has no counter {DROP_COUNTER}")]
    NoDropCounter,
    /// A table the entries write is not in the P4Info.
    #[error("switch {switch}: table {table} is not in the P4Info")]
    UnknownTable {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
    },
    /// A key field the entries write is not a match field of the table.
    #[error("switch {switch}: table {table} has no match field {field} in the P4Info")]
    UnknownField {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Field name.
        field: String,
    },
    /// An exact match field of the P4Info has no value in an entry (exact fields cannot be
    /// "don't care").
    #[error("switch {switch}: table {table}: exact match field {field} has no value")]
    MissingField {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Field name.
        field: String,
    },
    /// The match kind of a field differs between the P4Info and the generator.
    #[error(
        "switch {switch}: table {table}: field {field} is {p4info} in the P4Info, \
         the entries match it {generator}"
    )]
    MatchKind {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Field name.
        field: String,
        /// Kind in the P4Info.
        p4info: String,
        /// Kind the generator writes.
        generator: &'static str,
    },
    /// A key is malformed (a field twice, a ternary value outside its mask, an empty range).
    #[error("switch {switch}: table {table}: field {field}: {what}")]
    BadMatch {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Field name.
        field: String,
        /// What is wrong.
        what: &'static str,
    },
    /// An action the entries use is not in the P4Info.
    #[error("switch {switch}: table {table}: action {action} is not in the P4Info")]
    UnknownAction {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Action (full name).
        action: String,
    },
    /// An action is not among the table's action refs.
    #[error("switch {switch}: table {table}: action {action} is not among the table's actions in the P4Info")]
    ActionNotInTable {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Action (full name).
        action: String,
    },
    /// A `@defaultonly` action in an entry, or a `@tableonly` action as the default.
    #[error("switch {switch}: table {table}: action {action} is {scope} and cannot be {used_as}")]
    Scope {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Action (full name).
        action: String,
        /// The action ref's scope in the P4Info.
        scope: String,
        /// How the entries use it.
        used_as: &'static str,
    },
    /// A parameter the entries write is not a parameter of the action.
    #[error(
        "switch {switch}: table {table}: action {action} has no parameter {param} in the P4Info"
    )]
    UnknownParam {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Action (full name).
        action: String,
        /// Parameter name.
        param: String,
    },
    /// A parameter of the P4Info's action has no value.
    #[error("switch {switch}: table {table}: action {action}: parameter {param} has no value")]
    MissingParam {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Action (full name).
        action: String,
        /// Parameter name.
        param: String,
    },
    /// A value does not fit the bit width the P4Info gives its field or parameter.
    #[error("switch {switch}: table {table}: {what} = {value:#x} does not fit its {bits} bits in the P4Info")]
    TooWide {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Which field or parameter.
        what: String,
        /// Value.
        value: u64,
        /// Bit width in the P4Info.
        bits: i32,
    },
    /// An entry of a table with a ternary/range/optional field has no priority, or an
    /// entry of a table without one has a priority.
    #[error(
        "switch {switch}: table {table}: {}",
        if *needed { "the P4Info has a ternary/range/optional field, the entry has no priority" }
        else { "the P4Info has no ternary/range/optional field, the entry has a priority" }
    )]
    Priority {
        /// Switch name.
        switch: String,
        /// Table (full name).
        table: String,
        /// Whether the P4Info makes the priority necessary.
        needed: bool,
    },
}

/// The parts of a P4Info (`p4.config.v1.P4Info` in proto3 JSON, as
/// `p4c --p4runtime-files X.json` writes it) that [`p4runtime`] resolves names with;
/// other members are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct P4Info {
    /// Tables.
    #[serde(default)]
    pub tables: Vec<P4Table>,
    /// Actions.
    #[serde(default)]
    pub actions: Vec<P4Action>,
    /// Counters.
    #[serde(default)]
    pub counters: Vec<P4Counter>,
}

/// `p4.config.v1.Preamble`: id and fully qualified name.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Preamble {
    /// Id.
    #[serde(default)]
    pub id: u32,
    /// Fully qualified name.
    #[serde(default)]
    pub name: String,
}

/// `p4.config.v1.Table`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct P4Table {
    /// Id and name.
    #[serde(default)]
    pub preamble: Preamble,
    /// Key fields.
    #[serde(default, alias = "match_fields")]
    pub match_fields: Vec<P4MatchField>,
    /// Actions of the table.
    #[serde(default, alias = "action_refs")]
    pub action_refs: Vec<P4ActionRef>,
}

/// `p4.config.v1.MatchField`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct P4MatchField {
    /// Id within the table.
    #[serde(default)]
    pub id: u32,
    /// Name (the key expression).
    #[serde(default)]
    pub name: String,
    /// Width in bits.
    #[serde(default)]
    pub bitwidth: i32,
    /// `EXACT`, `LPM`, `TERNARY`, `RANGE`, `OPTIONAL`.
    #[serde(default, alias = "match_type")]
    pub match_type: Option<String>,
    /// Architecture-specific match kind.
    #[serde(default, alias = "other_match_type")]
    pub other_match_type: Option<String>,
}

impl P4MatchField {
    fn kind(&self) -> String {
        match (&self.match_type, &self.other_match_type) {
            (Some(k), _) => k.clone(),
            (None, Some(o)) => format!("other match type {o}"),
            (None, None) => "UNSPECIFIED".into(),
        }
    }
}

/// `p4.config.v1.ActionRef`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct P4ActionRef {
    /// Action id.
    #[serde(default)]
    pub id: u32,
    /// `TABLE_AND_DEFAULT` (absent), `TABLE_ONLY` or `DEFAULT_ONLY`.
    #[serde(default)]
    pub scope: Option<String>,
}

/// `p4.config.v1.Action`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct P4Action {
    /// Id and name.
    #[serde(default)]
    pub preamble: Preamble,
    /// Parameters.
    #[serde(default)]
    pub params: Vec<P4Param>,
}

/// `p4.config.v1.Action.Param`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct P4Param {
    /// Id within the action.
    #[serde(default)]
    pub id: u32,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Width in bits.
    #[serde(default)]
    pub bitwidth: i32,
}

/// `p4.config.v1.Counter` (only the preamble is used).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct P4Counter {
    /// Id and name.
    #[serde(default)]
    pub preamble: Preamble,
}

impl P4Info {
    /// Parse the proto3 JSON form; `path` only names the source in errors. Text that is
    /// not a JSON object (the protobuf text format) is [`P4InfoError::NotJson`].
    pub fn from_json(text: &str, path: &str) -> Result<P4Info, P4InfoError> {
        if !text.trim_start().starts_with('{') {
            return Err(P4InfoError::NotJson { path: path.into() });
        }
        let info: P4Info = serde_json::from_str(text).map_err(|e| P4InfoError::Json {
            path: path.into(),
            msg: e.to_string(),
        })?;
        if info.tables.is_empty() {
            return Err(P4InfoError::NoTables { path: path.into() });
        }
        Ok(info)
    }

    /// Read a P4Info file in the JSON form. A `.txt`/`.txtpb`/`.pb`/`.bin` name (the
    /// text and binary forms p4c also writes) is refused before reading.
    pub fn load(path: &std::path::Path) -> Result<P4Info, P4InfoError> {
        let name = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(ext.as_str(), "txt" | "txtpb" | "pbtxt" | "pb" | "bin") {
            return Err(P4InfoError::NotJson { path: name });
        }
        let bytes = std::fs::read(path).map_err(|e| P4InfoError::Io {
            path: name.clone(),
            msg: e.to_string(),
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => P4Info::from_json(&text, &name),
            Err(_) => Err(P4InfoError::NotJson { path: name }),
        }
    }

    /// The P4Info id of the drop counter ([`DROP_COUNTER`]).
    pub fn drop_counter_id(&self) -> Result<u32, P4InfoError> {
        self.counters
            .iter()
            .find(|c| c.preamble.name == DROP_COUNTER)
            .map(|c| c.preamble.id)
            .ok_or(P4InfoError::NoDropCounter)
    }
}

fn fits(value: u64, bits: i32) -> bool {
    match u32::try_from(bits) {
        Ok(b) if b >= 64 => true,
        Ok(b) => value >> b == 0,
        Err(_) => value == 0,
    }
}

fn all_ones(bits: i32) -> u64 {
    match u32::try_from(bits) {
        Ok(b) if b >= 64 => u64::MAX,
        Ok(b) => (1u64 << b) - 1,
        Err(_) => 0,
    }
}

fn b64v(x: u64) -> Value {
    Value::String(base64(&canonical_bytes(x)))
}

/// Resolves one switch's names through a P4Info.
struct Resolver<'a> {
    switch: &'a str,
    info: &'a P4Info,
}

impl Resolver<'_> {
    fn table(&self, table: &str) -> Result<&P4Table, P4InfoError> {
        let full = format!("{INGRESS}.{table}");
        self.info
            .tables
            .iter()
            .find(|t| t.preamble.name == full)
            .ok_or_else(|| P4InfoError::UnknownTable {
                switch: self.switch.into(),
                table: full,
            })
    }

    fn too_wide(&self, t: &P4Table, what: String, value: u64, bits: i32) -> P4InfoError {
        P4InfoError::TooWide {
            switch: self.switch.into(),
            table: t.preamble.name.clone(),
            what,
            value,
            bits,
        }
    }

    /// `p4.v1.Action` JSON for `c` in table `t`, used as the default or as an entry.
    fn action(&self, t: &P4Table, c: &Call, as_default: bool) -> Result<Value, P4InfoError> {
        let full = format!("{INGRESS}.{}", c.action);
        let err_action = |e: fn(String, String, String) -> P4InfoError| {
            e(self.switch.into(), t.preamble.name.clone(), full.clone())
        };
        let a = self
            .info
            .actions
            .iter()
            .find(|a| a.preamble.name == full)
            .ok_or_else(|| {
                err_action(|switch, table, action| P4InfoError::UnknownAction {
                    switch,
                    table,
                    action,
                })
            })?;
        let aref = t
            .action_refs
            .iter()
            .find(|r| r.id == a.preamble.id)
            .ok_or_else(|| {
                err_action(|switch, table, action| P4InfoError::ActionNotInTable {
                    switch,
                    table,
                    action,
                })
            })?;
        let scope = aref.scope.as_deref().unwrap_or("TABLE_AND_DEFAULT");
        let misuse = match (scope, as_default) {
            ("DEFAULT_ONLY", false) => Some("used in a table entry"),
            ("TABLE_ONLY", true) => Some("the default action"),
            _ => None,
        };
        if let Some(used_as) = misuse {
            return Err(P4InfoError::Scope {
                switch: self.switch.into(),
                table: t.preamble.name.clone(),
                action: full,
                scope: scope.into(),
                used_as,
            });
        }
        let mut params = Vec::new();
        for (name, val) in &c.params {
            let p = a.params.iter().find(|p| p.name == *name).ok_or_else(|| {
                P4InfoError::UnknownParam {
                    switch: self.switch.into(),
                    table: t.preamble.name.clone(),
                    action: full.clone(),
                    param: (*name).into(),
                }
            })?;
            if !fits(val.value, p.bitwidth) {
                return Err(self.too_wide(
                    t,
                    format!("parameter {full}.{name}"),
                    val.value,
                    p.bitwidth,
                ));
            }
            params.push(json!({"paramId": p.id, "value": b64v(val.value)}));
        }
        if let Some(p) = a
            .params
            .iter()
            .find(|p| !c.params.iter().any(|(n, _)| *n == p.name))
        {
            return Err(P4InfoError::MissingParam {
                switch: self.switch.into(),
                table: t.preamble.name.clone(),
                action: full,
                param: p.name.clone(),
            });
        }
        let mut out = json!({ "actionId": a.preamble.id });
        if !params.is_empty() {
            out["params"] = Value::Array(params);
        }
        Ok(out)
    }

    /// `p4.v1.FieldMatch` JSON for `key` in table `t`. "Don't care" fields (a ternary
    /// mask of 0, a range over the whole field) are left out, as P4Runtime wants.
    fn key(&self, t: &P4Table, key: &[Match]) -> Result<Vec<Value>, P4InfoError> {
        let bad = |field: &str, what: &'static str| P4InfoError::BadMatch {
            switch: self.switch.into(),
            table: t.preamble.name.clone(),
            field: field.into(),
            what,
        };
        let mut out = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for m in key {
            let (field, kind) = match m {
                Match::Exact { field, .. } => (*field, "EXACT"),
                Match::Ternary { field, .. } => (*field, "TERNARY"),
                Match::Range { field, .. } => (*field, "RANGE"),
            };
            if seen.contains(&field) {
                return Err(bad(field, "given twice"));
            }
            seen.push(field);
            let f = t
                .match_fields
                .iter()
                .find(|f| f.name == field)
                .ok_or_else(|| P4InfoError::UnknownField {
                    switch: self.switch.into(),
                    table: t.preamble.name.clone(),
                    field: field.into(),
                })?;
            if f.kind() != kind {
                return Err(P4InfoError::MatchKind {
                    switch: self.switch.into(),
                    table: t.preamble.name.clone(),
                    field: field.into(),
                    p4info: f.kind(),
                    generator: kind,
                });
            }
            let check = |what: &str, x: u64| {
                if fits(x, f.bitwidth) {
                    Ok(())
                } else {
                    Err(self.too_wide(t, format!("{what} of {field}"), x, f.bitwidth))
                }
            };
            match m {
                Match::Exact { v, .. } => {
                    check("value", v.value)?;
                    out.push(json!({"fieldId": f.id, "exact": {"value": b64v(v.value)}}));
                }
                Match::Ternary { v, mask, .. } => {
                    check("value", v.value)?;
                    check("mask", *mask)?;
                    if v.value & !mask != 0 {
                        return Err(bad(field, "ternary value has bits outside its mask"));
                    }
                    if *mask != 0 {
                        out.push(json!({"fieldId": f.id, "ternary": {
                            "value": b64v(v.value), "mask": b64v(*mask)}}));
                    }
                }
                Match::Range { lo, hi, .. } => {
                    check("low", lo.value)?;
                    check("high", *hi)?;
                    if lo.value > *hi {
                        return Err(bad(field, "range low > high"));
                    }
                    if lo.value != 0 || *hi != all_ones(f.bitwidth) {
                        out.push(json!({"fieldId": f.id, "range": {
                            "low": b64v(lo.value), "high": b64v(*hi)}}));
                    }
                }
            }
        }
        if let Some(f) = t
            .match_fields
            .iter()
            .find(|f| f.kind() == "EXACT" && !seen.contains(&f.name.as_str()))
        {
            return Err(P4InfoError::MissingField {
                switch: self.switch.into(),
                table: t.preamble.name.clone(),
                field: f.name.clone(),
            });
        }
        Ok(out)
    }
}

/// Whether entries of `t` need a priority (P4Runtime: a ternary, range or optional field).
fn needs_priority(t: &P4Table) -> bool {
    t.match_fields
        .iter()
        .any(|f| matches!(f.kind().as_str(), "TERNARY" | "RANGE" | "OPTIONAL"))
}

/// A `p4.v1.WriteRequest` in proto3 JSON programming `ops` on device `device_id`, every
/// table, field, action and parameter resolved to its id through `info`: one `INSERT`
/// per table entry, one `MODIFY` per default action, in `ops` order. Values are
/// canonical byte strings (P4Runtime spec §8.4: big-endian, shortest, 0 is one zero
/// byte) in base64; an LPM-like entry's priority is [`p4runtime_priority`] (P4Runtime:
/// the larger wins). The client adds `electionId` (and `role`) before sending it.
pub fn p4runtime(
    switch: &str,
    ops: &[Op],
    info: &P4Info,
    device_id: u64,
) -> Result<Value, P4InfoError> {
    let r = Resolver { switch, info };
    info.drop_counter_id()?;
    let mut updates = Vec::new();
    for op in ops {
        let (kind, entry) = match op {
            Op::Comment(_) => continue,
            Op::SetDefault { table, call } => {
                let t = r.table(table)?;
                let a = r.action(t, call, true)?;
                (
                    "MODIFY",
                    json!({
                        "tableId": t.preamble.id,
                        "action": {"action": a},
                        "isDefaultAction": true
                    }),
                )
            }
            Op::Add {
                table,
                key,
                call,
                prefix_len,
            } => {
                let t = r.table(table)?;
                let m = r.key(t, key)?;
                let a = r.action(t, call, false)?;
                if needs_priority(t) != prefix_len.is_some() {
                    return Err(P4InfoError::Priority {
                        switch: switch.into(),
                        table: t.preamble.name.clone(),
                        needed: needs_priority(t),
                    });
                }
                let mut e = json!({"tableId": t.preamble.id});
                if !m.is_empty() {
                    e["match"] = Value::Array(m);
                }
                e["action"] = json!({ "action": a });
                if let Some(l) = prefix_len {
                    e["priority"] = json!(p4runtime_priority(*l));
                }
                ("INSERT", e)
            }
        };
        updates.push(json!({"type": kind, "entity": {"tableEntry": entry}}));
    }
    Ok(json!({
        "deviceId": device_id.to_string(),
        "updates": updates
    }))
}

/// The comment lines of `ops` (what `bmv2-cli` prints with `#`), for a P4Runtime caller
/// to show beside the request.
pub fn comments(ops: &[Op]) -> Vec<&str> {
    ops.iter()
        .filter_map(|o| match o {
            Op::Comment(c) => Some(c.as_str()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dataplane::table::PortConfig;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o, "{i}");
        }
    }

    #[test]
    fn canonical_bytes_strip_leading_zeros() {
        assert_eq!(canonical_bytes(0), vec![0]);
        assert_eq!(canonical_bytes(1), vec![1]);
        assert_eq!(canonical_bytes(0x100), vec![1, 0]);
        assert_eq!(canonical_bytes(u64::MAX), vec![0xff; 8]);
    }

    #[test]
    fn priorities_order_longer_prefixes_first_on_both_apis() {
        assert!(bmv2_priority(6) < bmv2_priority(5));
        assert!(p4runtime_priority(6) > p4runtime_priority(5));
        assert_eq!(bmv2_priority(64), 1);
        assert_eq!(p4runtime_priority(0), 1);
    }

    fn duplex(n: usize) -> Vec<PortConfig> {
        vec![
            PortConfig {
                role: PortRole::Down,
                dir: PortDir::Duplex
            };
            n
        ]
    }

    #[test]
    fn port_beyond_v1model_is_a_typed_error() {
        let sw = SwitchTables::new("big", duplex(600));
        assert_eq!(
            entries(&sw).unwrap_err(),
            P4Error::PortOutOfRange {
                switch: "big".into(),
                port: 511
            }
        );
    }

    #[test]
    fn unknown_group_is_a_typed_error() {
        use canopy_dataplane::table::pathid::{HostEntry, PathIdTable};
        let mut sw = SwitchTables::new("leaf", duplex(2));
        sw.pathid = Some(
            PathIdTable::new(
                1,
                true,
                vec![HostEntry {
                    label: 0,
                    action: PidAction::Group(3),
                }],
                vec![],
            )
            .unwrap(),
        );
        assert!(matches!(
            entries(&sw),
            Err(P4Error::UnknownGroup { group: 3, .. })
        ));
    }

    #[test]
    fn groups_are_a_size_and_one_member_per_bucket() {
        let mut sw = SwitchTables::new("s", duplex(2));
        sw.groups.push(vec![]);
        sw.groups.push(vec![0, 1]);
        let cli = bmv2_cli(&entries(&sw).unwrap());
        assert!(cli.contains("table_add CanopyIngress.fwd_group CanopyIngress.group_empty 0 =>\n"));
        assert!(cli.contains("table_add CanopyIngress.fwd_group CanopyIngress.set_group 1 => 2\n"));
        assert!(
            cli.contains("table_add CanopyIngress.fwd_member CanopyIngress.set_egress 1 0 => 0\n")
        );
        assert!(
            cli.contains("table_add CanopyIngress.fwd_member CanopyIngress.set_egress 1 1 => 1\n")
        );
    }
}

#[cfg(test)]
mod p4info_tests {
    use super::*;
    use canopy_dataplane::table::PortConfig;

    /// A small P4Info made up for these tests (ids chosen here, not p4c's): the port,
    /// group and path-ID tables, one `@defaultonly` and one `@tableonly` action ref.
    fn fixture() -> Value {
        let field = |id: u32, name: &str, bits: i32, kind: &str| json!({"id": id, "name": name, "bitwidth": bits, "matchType": kind});
        let table = |id: u32, name: &str, fields: Vec<Value>, refs: Vec<Value>| {
            json!({"preamble": {"id": id, "name": format!("CanopyIngress.{name}")},
                   "matchFields": fields, "actionRefs": refs, "size": "16"})
        };
        let action = |id: u32, name: &str, params: &[(&str, i32)]| {
            let ps: Vec<Value> = params
                .iter()
                .enumerate()
                .map(|(i, (n, b))| json!({"id": i + 1, "name": n, "bitwidth": b}))
                .collect();
            json!({"preamble": {"id": id, "name": format!("CanopyIngress.{name}")}, "params": ps})
        };
        json!({
            "pkgInfo": {"arch": "v1model"},
            "tables": [
                table(11, "canopy_port",
                      vec![field(1, "standard_metadata.ingress_port", 9, "EXACT")],
                      vec![json!({"id": 21}), json!({"id": 22, "scope": "DEFAULT_ONLY"})]),
                table(12, "fwd_group", vec![field(1, "meta.group", 16, "EXACT")],
                      vec![json!({"id": 23}), json!({"id": 24})]),
                table(13, "fwd_member",
                      vec![field(1, "meta.group", 16, "EXACT"),
                           field(2, "meta.bucket", 16, "EXACT")],
                      vec![json!({"id": 25, "scope": "TABLE_ONLY"})]),
                table(14, "pathid_cfg", vec![], vec![json!({"id": 26})]),
                table(15, "pathid_lpm",
                      vec![field(1, "hdr.pathid.id", 64, "TERNARY"),
                           field(2, "hdr.pathid.id_len", 8, "RANGE")],
                      vec![json!({"id": 27})]),
            ],
            "actions": [
                action(21, "set_port_info", &[("role", 2), ("swallow", 1)]),
                action(22, "port_unknown", &[]),
                action(23, "set_group", &[("size", 16)]),
                action(24, "group_empty", &[]),
                action(25, "set_egress", &[("port", 9)]),
                action(26, "set_pathid_cfg", &[("leaf", 1)]),
                action(27, "pid_port", &[("down", 1), ("port", 9)]),
            ],
            "counters": [{"preamble": {"id": 31, "name": "CanopyIngress.canopy_drops"},
                          "spec": {"unit": "PACKETS"}, "size": "32"}]
        })
    }

    fn info(v: &Value) -> P4Info {
        P4Info::from_json(&v.to_string(), "fixture").unwrap()
    }

    fn rt(ops: &[Op]) -> Result<Value, P4InfoError> {
        p4runtime("s", ops, &info(&fixture()), 0)
    }

    fn port_op(field: &'static str, port: u64, call: Call) -> Op {
        Op::Add {
            table: "canopy_port",
            key: vec![exact(field, v(9, port))],
            call,
            prefix_len: None,
        }
    }

    fn port_info(role: u64) -> Call {
        call(
            "set_port_info",
            vec![("role", v(2, role)), ("swallow", v(1, 0))],
        )
    }

    fn lpm(value: u64, mask: u64, lo: u64, hi: u64, prefix_len: Option<u8>) -> Op {
        Op::Add {
            table: "pathid_lpm",
            key: vec![
                Match::Ternary {
                    field: "hdr.pathid.id",
                    v: v(64, value),
                    mask,
                },
                Match::Range {
                    field: "hdr.pathid.id_len",
                    lo: v(8, lo),
                    hi,
                },
            ],
            call: call("pid_port", vec![("down", v(1, 1)), ("port", v(9, 3))]),
            prefix_len,
        }
    }

    #[test]
    fn names_resolve_to_the_p4info_ids() {
        let mut sw = SwitchTables::new(
            "s",
            vec![
                PortConfig {
                    role: PortRole::Down,
                    dir: PortDir::Duplex
                };
                2
            ],
        );
        sw.groups.push(vec![]);
        sw.groups.push(vec![0, 1]);
        let req = p4runtime("s", &entries(&sw).unwrap(), &info(&fixture()), 5).unwrap();
        assert_eq!(req["deviceId"], "5");
        let u = req["updates"].as_array().unwrap();
        // 2 ports, group 0 (empty), group 1 (size) and its 2 members
        assert_eq!(u.len(), 6);
        assert!(u.iter().all(|x| x["type"] == "INSERT"));
        assert_eq!(
            u[1]["entity"]["tableEntry"],
            json!({"tableId": 11,
                   "match": [{"fieldId": 1, "exact": {"value": "AQ=="}}],
                   "action": {"action": {"actionId": 21, "params": [
                       {"paramId": 1, "value": "AQ=="}, {"paramId": 2, "value": "AA=="}]}}})
        );
        assert_eq!(
            u[2]["entity"]["tableEntry"],
            json!({"tableId": 12,
                   "match": [{"fieldId": 1, "exact": {"value": "AA=="}}],
                   "action": {"action": {"actionId": 24}}})
        );
        assert_eq!(
            u[5]["entity"]["tableEntry"],
            json!({"tableId": 13,
                   "match": [{"fieldId": 1, "exact": {"value": "AQ=="}},
                             {"fieldId": 2, "exact": {"value": "AQ=="}}],
                   "action": {"action": {"actionId": 25, "params": [
                       {"paramId": 1, "value": "AQ=="}]}}})
        );
    }

    #[test]
    fn defaults_are_modify_and_lpm_entries_carry_a_priority() {
        let ops = vec![
            Op::Comment("c".into()),
            Op::SetDefault {
                table: "pathid_cfg",
                call: call("set_pathid_cfg", vec![("leaf", v(1, 1))]),
            },
            lpm(0xa << 60, 0xe << 60, 3, 64, Some(3)),
            lpm(0, 0, 0, 64, Some(0)),
        ];
        let req = rt(&ops).unwrap();
        let u = req["updates"].as_array().unwrap();
        assert_eq!(u.len(), 3, "comments are not updates");
        assert_eq!(
            u[0],
            json!({"type": "MODIFY", "entity": {"tableEntry": {
                "tableId": 14, "isDefaultAction": true,
                "action": {"action": {"actionId": 26, "params": [
                    {"paramId": 1, "value": "AQ=="}]}}}}})
        );
        let e = &u[1]["entity"]["tableEntry"];
        assert_eq!(u[1]["type"], "INSERT");
        assert_eq!(
            e["match"],
            json!([{"fieldId": 1, "ternary": {"value": base64(&[0xa0, 0, 0, 0, 0, 0, 0, 0]),
                                              "mask": base64(&[0xe0, 0, 0, 0, 0, 0, 0, 0])}},
                   {"fieldId": 2, "range": {"low": "Aw==", "high": "QA=="}}])
        );
        assert_eq!(e["priority"], 4);
        // the empty prefix: the ternary field is "don't care" and left out
        let e = &u[2]["entity"]["tableEntry"];
        assert_eq!(
            e["match"],
            json!([{"fieldId": 2, "range": {"low": "AA==", "high": "QA=="}}])
        );
        assert_eq!(e["priority"], 1);
        // a range over the whole field is "don't care" too
        let req = rt(&[lpm(0x8 << 60, 0x8 << 60, 0, 255, Some(1))]).unwrap();
        assert_eq!(
            req["updates"][0]["entity"]["tableEntry"]["match"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn every_unresolvable_name_is_a_typed_error() {
        let s = || "s".to_string();
        let port_table = || "CanopyIngress.canopy_port".to_string();
        let cases: Vec<(Op, P4InfoError)> = vec![
            (
                Op::Add {
                    table: "sliced_down",
                    key: vec![exact("meta.label", v(64, 0))],
                    call: call("miss", vec![]),
                    prefix_len: None,
                },
                P4InfoError::UnknownTable {
                    switch: s(),
                    table: "CanopyIngress.sliced_down".into(),
                },
            ),
            (
                port_op("meta.port", 0, port_info(0)),
                P4InfoError::UnknownField {
                    switch: s(),
                    table: port_table(),
                    field: "meta.port".into(),
                },
            ),
            (
                Op::Add {
                    table: "fwd_member",
                    key: vec![exact("meta.group", v(16, 0))],
                    call: call("set_egress", vec![("port", v(9, 0))]),
                    prefix_len: None,
                },
                P4InfoError::MissingField {
                    switch: s(),
                    table: "CanopyIngress.fwd_member".into(),
                    field: "meta.bucket".into(),
                },
            ),
            (
                port_op(
                    "standard_metadata.ingress_port",
                    0,
                    call("to_group", vec![]),
                ),
                P4InfoError::UnknownAction {
                    switch: s(),
                    table: port_table(),
                    action: "CanopyIngress.to_group".into(),
                },
            ),
            (
                port_op(
                    "standard_metadata.ingress_port",
                    0,
                    call("set_group", vec![("size", v(16, 1))]),
                ),
                P4InfoError::ActionNotInTable {
                    switch: s(),
                    table: port_table(),
                    action: "CanopyIngress.set_group".into(),
                },
            ),
            (
                port_op(
                    "standard_metadata.ingress_port",
                    0,
                    call("port_unknown", vec![]),
                ),
                P4InfoError::Scope {
                    switch: s(),
                    table: port_table(),
                    action: "CanopyIngress.port_unknown".into(),
                    scope: "DEFAULT_ONLY".into(),
                    used_as: "used in a table entry",
                },
            ),
            (
                Op::SetDefault {
                    table: "fwd_member",
                    call: call("set_egress", vec![("port", v(9, 0))]),
                },
                P4InfoError::Scope {
                    switch: s(),
                    table: "CanopyIngress.fwd_member".into(),
                    action: "CanopyIngress.set_egress".into(),
                    scope: "TABLE_ONLY".into(),
                    used_as: "the default action",
                },
            ),
            (
                Op::Add {
                    table: "fwd_group",
                    key: vec![exact("meta.group", v(16, 0))],
                    call: call("set_group", vec![("sz", v(16, 1))]),
                    prefix_len: None,
                },
                P4InfoError::UnknownParam {
                    switch: s(),
                    table: "CanopyIngress.fwd_group".into(),
                    action: "CanopyIngress.set_group".into(),
                    param: "sz".into(),
                },
            ),
            (
                port_op(
                    "standard_metadata.ingress_port",
                    0,
                    call("set_port_info", vec![("role", v(2, 0))]),
                ),
                P4InfoError::MissingParam {
                    switch: s(),
                    table: port_table(),
                    action: "CanopyIngress.set_port_info".into(),
                    param: "swallow".into(),
                },
            ),
            (
                // the generator thinks role has 3 bits; the P4Info says 2
                port_op(
                    "standard_metadata.ingress_port",
                    0,
                    call(
                        "set_port_info",
                        vec![("role", v(3, 4)), ("swallow", v(1, 0))],
                    ),
                ),
                P4InfoError::TooWide {
                    switch: s(),
                    table: port_table(),
                    what: "parameter CanopyIngress.set_port_info.role".into(),
                    value: 4,
                    bits: 2,
                },
            ),
            (
                Op::Add {
                    table: "canopy_port",
                    key: vec![exact("standard_metadata.ingress_port", v(16, 512))],
                    call: port_info(0),
                    prefix_len: None,
                },
                P4InfoError::TooWide {
                    switch: s(),
                    table: port_table(),
                    what: "value of standard_metadata.ingress_port".into(),
                    value: 512,
                    bits: 9,
                },
            ),
            (
                lpm(0x3, 0x1, 1, 64, Some(1)),
                P4InfoError::BadMatch {
                    switch: s(),
                    table: "CanopyIngress.pathid_lpm".into(),
                    field: "hdr.pathid.id".into(),
                    what: "ternary value has bits outside its mask",
                },
            ),
            (
                lpm(0, 1 << 63, 9, 8, Some(1)),
                P4InfoError::BadMatch {
                    switch: s(),
                    table: "CanopyIngress.pathid_lpm".into(),
                    field: "hdr.pathid.id_len".into(),
                    what: "range low > high",
                },
            ),
            (
                lpm(0, 1 << 63, 1, 300, Some(1)),
                P4InfoError::TooWide {
                    switch: s(),
                    table: "CanopyIngress.pathid_lpm".into(),
                    what: "high of hdr.pathid.id_len".into(),
                    value: 300,
                    bits: 8,
                },
            ),
            (
                lpm(0, 1 << 63, 1, 64, None),
                P4InfoError::Priority {
                    switch: s(),
                    table: "CanopyIngress.pathid_lpm".into(),
                    needed: true,
                },
            ),
            (
                Op::Add {
                    table: "canopy_port",
                    key: vec![exact("standard_metadata.ingress_port", v(9, 0))],
                    call: port_info(0),
                    prefix_len: Some(3),
                },
                P4InfoError::Priority {
                    switch: s(),
                    table: port_table(),
                    needed: false,
                },
            ),
        ];
        for (op, want) in cases {
            let got = rt(std::slice::from_ref(&op)).unwrap_err();
            assert_eq!(got, want, "{op:?}");
            assert!(got.to_string().contains("switch s: table CanopyIngress."));
        }
        // the same field twice
        let twice = Op::Add {
            table: "fwd_member",
            key: vec![exact("meta.group", v(16, 0)), exact("meta.group", v(16, 1))],
            call: call("set_egress", vec![("port", v(9, 0))]),
            prefix_len: None,
        };
        assert!(matches!(
            rt(&[twice]),
            Err(P4InfoError::BadMatch {
                what: "given twice",
                ..
            })
        ));
    }

    #[test]
    fn a_match_kind_the_p4info_does_not_have_is_a_typed_error() {
        let mut f = fixture();
        f["tables"][4]["matchFields"][0]["matchType"] = json!("LPM");
        let err = p4runtime("s", &[lpm(0, 1 << 63, 1, 64, Some(1))], &info(&f), 0).unwrap_err();
        assert_eq!(
            err,
            P4InfoError::MatchKind {
                switch: "s".into(),
                table: "CanopyIngress.pathid_lpm".into(),
                field: "hdr.pathid.id".into(),
                p4info: "LPM".into(),
                generator: "TERNARY",
            }
        );
    }

    #[test]
    fn p4info_files_that_are_not_a_json_p4info_are_refused() {
        let text = "pkg_info {\n  arch: \"v1model\"\n}\ntables {\n}\n";
        assert_eq!(
            P4Info::from_json(text, "x").unwrap_err(),
            P4InfoError::NotJson { path: "x".into() }
        );
        let e = P4Info::load(std::path::Path::new("/nonexistent/canopy.p4info.txtpb")).unwrap_err();
        assert!(matches!(e, P4InfoError::NotJson { .. }));
        assert!(e
            .to_string()
            .contains("--p4runtime-files OUTDIR/canopy.p4info.json"));
        assert!(matches!(
            P4Info::load(std::path::Path::new("/nonexistent/x.json")),
            Err(P4InfoError::Io { .. })
        ));
        assert!(matches!(
            P4Info::from_json(r#"{"tables": 5}"#, "x"),
            Err(P4InfoError::Json { .. })
        ));
        // the bmv2 JSON is JSON but not a P4Info
        assert_eq!(
            P4Info::from_json(r#"{"header_types": [], "pipelines": []}"#, "x").unwrap_err(),
            P4InfoError::NoTables { path: "x".into() }
        );
        let mut f = fixture();
        f["counters"] = json!([]);
        assert_eq!(
            p4runtime("s", &[], &info(&f), 0),
            Err(P4InfoError::NoDropCounter)
        );
        assert_eq!(info(&fixture()).drop_counter_id(), Ok(31));
    }
}
