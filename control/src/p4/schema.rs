//! What `p4/canopy.p4` declares that a control plane programs: its tables (key fields
//! with their match kinds and widths, actions, default action, size), its actions (with
//! their parameters' widths) and its counters. The one description of the program in
//! Rust: a P4Runtime target built on canopy-switch checks a pushed P4Info against it
//! table by table, action by action and width by width, and [`P4State`](super::P4State)
//! checks every entry against it. `control/tests/p4_entries/p4_sources.rs` checks it against the
//! program's source.

/// The ingress control's name: the prefix of every table, action and ingress counter
/// in the P4Info (`CanopyIngress.canopy_port`).
pub const INGRESS: &str = super::INGRESS;
/// The egress control's name (its counter `CanopyEgress.canopy_port_tx`).
pub const EGRESS: &str = "CanopyEgress";

/// How a key field matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// Exact.
    Exact,
    /// Value and mask.
    Ternary,
    /// Low and high, both included.
    Range,
}

impl MatchKind {
    /// Its name in a P4Info (`EXACT`, `TERNARY`, `RANGE`).
    pub fn p4info_name(self) -> &'static str {
        match self {
            MatchKind::Exact => "EXACT",
            MatchKind::Ternary => "TERNARY",
            MatchKind::Range => "RANGE",
        }
    }
}

/// One key field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSchema {
    /// Its name in the P4Info (`meta.group`).
    pub name: &'static str,
    /// How it matches.
    pub kind: MatchKind,
    /// Width in bits.
    pub bits: u32,
}

/// One action: its name (without the control) and its parameters' names and widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionSchema {
    /// Name in `CanopyIngress`.
    pub name: &'static str,
    /// Parameters in declaration order: (name, bits).
    pub params: &'static [(&'static str, u32)],
}

/// One table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSchema {
    /// Name in `CanopyIngress`.
    pub name: &'static str,
    /// Key fields, in order (none: a configuration table, programmed by its default
    /// action).
    pub key: &'static [FieldSchema],
    /// The actions an entry (or the default) may call.
    pub actions: &'static [&'static str],
    /// The default action the program starts with (no parameters).
    pub default: &'static str,
    /// Entries it holds at most.
    pub size: u32,
}

impl TableSchema {
    /// A keyless table: programmed only through its default action.
    pub fn is_config(&self) -> bool {
        self.key.is_empty()
    }

    /// Whether its entries carry a priority (a ternary or range field).
    pub fn needs_priority(&self) -> bool {
        self.key.iter().any(|f| f.kind != MatchKind::Exact)
    }

    /// Its name in the P4Info (`CanopyIngress.fwd_group`).
    pub fn full_name(&self) -> String {
        format!("{INGRESS}.{}", self.name)
    }
}

/// One counter array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterSchema {
    /// Its name in the P4Info, control included (`CanopyIngress.canopy_drops`).
    pub name: &'static str,
    /// Cells.
    pub size: u32,
    /// Whether each cell counts bytes as well as packets.
    pub bytes: bool,
}

const fn exact(name: &'static str, bits: u32) -> FieldSchema {
    FieldSchema {
        name,
        kind: MatchKind::Exact,
        bits,
    }
}

/// Every action a table of the program calls.
pub const ACTIONS: &[ActionSchema] = &[
    ActionSchema {
        name: "set_port_info",
        params: &[("role", 2), ("swallow", 1)],
    },
    ActionSchema {
        name: "port_unknown",
        params: &[],
    },
    ActionSchema {
        name: "to_group",
        params: &[("group", 16)],
    },
    ActionSchema {
        name: "to_port",
        params: &[("port", 9)],
    },
    ActionSchema {
        name: "miss",
        params: &[],
    },
    ActionSchema {
        name: "set_group",
        params: &[("size", 16)],
    },
    ActionSchema {
        name: "group_empty",
        params: &[],
    },
    ActionSchema {
        name: "set_egress",
        params: &[("port", 9)],
    },
    ActionSchema {
        name: "sliced_off",
        params: &[],
    },
    ActionSchema {
        name: "set_sliced_cfg",
        params: &[
            ("mode", 8),
            ("level", 8),
            ("sid", 32),
            ("m", 32),
            ("a", 8),
            ("b", 8),
            ("z", 32),
            ("label_shift", 8),
            ("zone_shift", 8),
            ("znode_shift", 8),
            ("addr_bits", 8),
            ("zone", 64),
            ("has_up", 1),
            ("up_group", 16),
        ],
    },
    ActionSchema {
        name: "transit_off",
        params: &[],
    },
    ActionSchema {
        name: "set_transit_cfg",
        params: &[("split", 1)],
    },
    ActionSchema {
        name: "dir_port",
        params: &[("port", 9), ("rot", 2), ("delay", 8)],
    },
    ActionSchema {
        name: "dir_group",
        params: &[("group", 16), ("rot", 2), ("delay", 8)],
    },
    ActionSchema {
        name: "pathid_off",
        params: &[],
    },
    ActionSchema {
        name: "set_pathid_cfg",
        params: &[("leaf", 1)],
    },
    ActionSchema {
        name: "pid_port",
        params: &[("down", 1), ("port", 9)],
    },
    ActionSchema {
        name: "pid_group",
        params: &[("down", 1), ("group", 16)],
    },
    ActionSchema {
        name: "set_hop_switch",
        params: &[("id", 32)],
    },
    ActionSchema {
        name: "hop_switch_unset",
        params: &[],
    },
];

/// Every table of the program, in the order its control applies them.
pub const TABLES: &[TableSchema] = &[
    TableSchema {
        name: "canopy_port",
        key: &[exact("standard_metadata.ingress_port", 9)],
        actions: &["set_port_info", "port_unknown"],
        default: "port_unknown",
        size: 512,
    },
    TableSchema {
        name: "fwd_group",
        key: &[exact("meta.group", 16)],
        actions: &["set_group", "group_empty"],
        default: "group_empty",
        size: 4096,
    },
    TableSchema {
        name: "fwd_member",
        key: &[exact("meta.group", 16), exact("meta.bucket", 16)],
        actions: &["set_egress", "miss"],
        default: "miss",
        size: 16384,
    },
    TableSchema {
        name: "sliced_cfg",
        key: &[],
        actions: &["set_sliced_cfg", "sliced_off"],
        default: "sliced_off",
        size: 1,
    },
    TableSchema {
        name: "sliced_down",
        key: &[exact("meta.label", 64)],
        actions: &["to_group", "miss"],
        default: "miss",
        size: 256,
    },
    TableSchema {
        name: "sliced_side",
        key: &[exact("meta.side_k", 64)],
        actions: &["to_group", "miss"],
        default: "miss",
        size: 256,
    },
    TableSchema {
        name: "transit_cfg",
        key: &[],
        actions: &["set_transit_cfg", "transit_off"],
        default: "transit_off",
        size: 1,
    },
    TableSchema {
        name: "transit_dir",
        key: &[exact("meta.tr_half", 1), exact("meta.tr_dir", 2)],
        actions: &["dir_port", "dir_group", "miss"],
        default: "miss",
        size: 8,
    },
    TableSchema {
        name: "pathid_cfg",
        key: &[],
        actions: &["set_pathid_cfg", "pathid_off"],
        default: "pathid_off",
        size: 1,
    },
    TableSchema {
        name: "pathid_lpm",
        key: &[
            FieldSchema {
                name: "hdr.pathid.id",
                kind: MatchKind::Ternary,
                bits: 64,
            },
            FieldSchema {
                name: "hdr.pathid.id_len",
                kind: MatchKind::Range,
                bits: 8,
            },
        ],
        actions: &["pid_port", "pid_group", "miss"],
        default: "miss",
        size: 65536,
    },
    TableSchema {
        name: "pathid_host",
        key: &[exact("hdr.pathid.host_label", 32)],
        actions: &["to_port", "to_group", "miss"],
        default: "miss",
        size: 1024,
    },
    TableSchema {
        name: "hop_cfg",
        key: &[],
        actions: &["set_hop_switch", "hop_switch_unset"],
        default: "hop_switch_unset",
        size: 1,
    },
];

/// The program's counters: drops by reason, and per port what came in, what went out
/// and what was dropped by reason (`docs/p4.md` §2).
pub const COUNTERS: &[CounterSchema] = &[
    CounterSchema {
        name: "CanopyIngress.canopy_drops",
        size: 32,
        bytes: false,
    },
    CounterSchema {
        name: "CanopyIngress.canopy_port_rx",
        size: 512,
        bytes: true,
    },
    CounterSchema {
        name: "CanopyIngress.canopy_port_drops",
        size: 512 * 32,
        bytes: false,
    },
    CounterSchema {
        name: "CanopyEgress.canopy_port_tx",
        size: 512,
        bytes: true,
    },
];

/// `CanopyIngress.canopy_drops`: drops by reason, cell = the reason's position in
/// `canopy_dataplane::decide::DROP_REASON_NAMES`.
pub const DROPS: usize = 0;
/// `CanopyIngress.canopy_port_rx`: frames and bytes received, cell = the ingress port.
pub const PORT_RX: usize = 1;
/// `CanopyIngress.canopy_port_drops`: drops, cell = ingress port × [`DROP_STRIDE`] +
/// reason.
pub const PORT_DROPS: usize = 2;
/// `CanopyEgress.canopy_port_tx`: frames and bytes sent, cell = the egress port.
pub const PORT_TX: usize = 3;
/// Cells per port in [`PORT_DROPS`] (`CANOPY_DROPS_SIZE`).
pub const DROP_STRIDE: usize = 32;

/// The table named `name` (without the control), with its index in [`TABLES`].
pub fn table(name: &str) -> Option<(usize, &'static TableSchema)> {
    TABLES.iter().enumerate().find(|(_, t)| t.name == name)
}

/// The action named `name` (without the control).
pub fn action(name: &str) -> Option<&'static ActionSchema> {
    ACTIONS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_names_known_actions_and_a_default_among_them() {
        for t in TABLES {
            assert!(t.actions.contains(&t.default), "{}", t.name);
            assert!(
                action(t.default).is_some_and(|a| a.params.is_empty()),
                "{}",
                t.name
            );
            for a in t.actions {
                assert!(action(a).is_some(), "{}: {a}", t.name);
            }
            assert_eq!(t.is_config(), t.size == 1, "{}", t.name);
        }
        assert_eq!(table("pathid_lpm").map(|(i, _)| i), Some(9));
        assert!(table("pathid_lpm").unwrap().1.needs_priority());
        assert!(!table("fwd_member").unwrap().1.needs_priority());
        assert!(table("nope").is_none() && action("nope").is_none());
        assert!(COUNTERS[DROPS].name.ends_with("canopy_drops"));
        assert!(COUNTERS[PORT_RX].name.ends_with("canopy_port_rx"));
        assert!(COUNTERS[PORT_DROPS].name.ends_with("canopy_port_drops"));
        assert!(COUNTERS[PORT_TX].name.ends_with("canopy_port_tx"));
        assert_eq!(
            COUNTERS[PORT_DROPS].size,
            COUNTERS[PORT_RX].size * DROP_STRIDE as u32
        );
    }
}
