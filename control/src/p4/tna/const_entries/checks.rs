//! The drop checks of `p4/canopy_tna.p4` as constant entries.
//!
//! `p4/canopy.p4` makes its checks one after the other, each guarded by the drop flag the
//! one before may have set; on Tofino that chain costs a stage per check. The TNA program
//! makes every check independently and picks the first failing one afterwards:
//! * a check on header fields alone belongs to a header group (`Group`); the group's
//!   ternary table (`tna_hc_<group>`) has one entry per bit pattern that fails a check, in
//!   check order, and gives the index (from 1) of the group's first failing check;
//! * every other check sets a flag of its own (`meta.fl.fN = 1` in the apply block);
//! * `tna_drop_pick` has one entry per check in `p4/canopy.p4`'s order (`DROP_ORDER`):
//!   the first entry that matches names the drop reason.

use canopy_dataplane::decide::DROP_REASON_NAMES;
use canopy_dataplane::table::transit::RN1_PORTS;
use canopy_dataplane::wire::sliced::{self, low_mask, Mode};
use canopy_dataplane::wire::transit::{self, Msg};
use canopy_dataplane::wire::{self as w, pathid, Kind};

use super::{range_prefixes, Entry, Key, WORD_BITS};

/// A condition on one key column; it expands to the alternatives that satisfy it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cond {
    /// The header is not valid (`false` on its `isValid()` column).
    Invalid,
    /// `field == v`.
    Eq(u64),
    /// `field & m == v`.
    Masked(u64, u64),
    /// `field != v`: one alternative per bit, that bit unlike v's (lowest first).
    Ne(u64),
    /// `field & m != 0`: one alternative per bit of m (lowest first).
    AnyBit(u64),
    /// `field > v`: the range `(v, max]` as prefixes.
    Gt(u64),
    /// `field` is one of these.
    OneOf(Vec<u64>),
}

impl Cond {
    /// The key alternatives for a column of `bits` bits.
    fn alternatives(&self, bits: u32) -> Vec<Key> {
        let full = low_mask(bits);
        let bit_indexes = |m: u64| (0..bits).map(|i| 1u64 << i).filter(move |b| m & b != 0);
        match self {
            Cond::Invalid => vec![Key::Bool(false)],
            Cond::Eq(v) => vec![Key::hex(*v, full)],
            Cond::Masked(v, m) => vec![Key::hex(*v, *m)],
            Cond::Ne(v) => bit_indexes(full).map(|b| Key::hex(!v & b, b)).collect(),
            Cond::AnyBit(m) => bit_indexes(*m).map(|b| Key::hex(b, b)).collect(),
            Cond::Gt(v) => range_prefixes(v + 1, full, bits)
                .into_iter()
                .map(|(v, m)| Key::hex(v, m))
                .collect(),
            Cond::OneOf(vs) => vs.iter().map(|&v| Key::hex(v, full)).collect(),
        }
    }
}

/// Conditions on several columns that must all hold (column index, condition).
pub(crate) type Conj = Vec<(usize, Cond)>;

/// One header check: it fails when any of its conjunctions holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderCheck {
    /// Short name (the comment above the table lists them).
    pub name: &'static str,
    /// Drop reason, as in `DROP_REASON_NAMES`.
    pub reason: &'static str,
    /// When it fails.
    pub when: Vec<Conj>,
}

/// The header checks of one header group, in check order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    /// `prefix`, `sliced`, `transit`, `pathid`: the table is `tna_hc_<name>`, its action
    /// `tna_hc_<name>_set`, the result `meta.hc_<name>`.
    pub name: &'static str,
    /// Key columns: field and width (1 for `isValid()`).
    pub columns: Vec<(&'static str, u32)>,
    /// The checks, in order; the table gives the index (from 1) of the first failing one.
    pub checks: Vec<HeaderCheck>,
}

impl Group {
    /// The group's table.
    pub(crate) fn table(&self) -> String {
        format!("tna_hc_{}", self.name)
    }

    /// The metadata field the table writes, a key column of `tna_drop_pick`.
    pub(crate) fn result(&self) -> String {
        format!("meta.hc_{}", self.name)
    }

    /// The index (from 1) of the check `name`.
    fn index(&self, name: &str) -> Option<usize> {
        self.checks
            .iter()
            .position(|c| c.name == name)
            .map(|i| i + 1)
    }

    /// One entry per failing bit pattern, check by check; each conjunction expands to the
    /// product of its conditions' alternatives, the first condition outermost.
    pub(crate) fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for (i, check) in self.checks.iter().enumerate() {
            for conj in &check.when {
                let mut rows = vec![vec![Key::Any; self.columns.len()]];
                for (col, cond) in conj {
                    let alts = cond.alternatives(self.columns[*col].1);
                    rows = rows
                        .into_iter()
                        .flat_map(|row| {
                            alts.iter().map(move |&k| {
                                let mut r = row.clone();
                                r[*col] = k;
                                r
                            })
                        })
                        .collect();
                }
                let action = format!("tna_hc_{}_set({})", self.name, i + 1);
                out.extend(rows.into_iter().map(|key| Entry::new(key, action.clone())));
            }
        }
        out
    }
}

fn check(name: &'static str, reason: &'static str, when: Vec<Conj>) -> HeaderCheck {
    HeaderCheck { name, reason, when }
}

/// The bits above the two that hold the largest kind (a kind > 3 has one of them).
fn kind_above() -> u64 {
    let max = Kind::ALL.iter().map(|&k| k as u64).max().unwrap_or(0);
    low_mask(4) & !low_mask(u64::BITS - max.leading_zeros())
}

/// Ethernet, VLAN tags and the prefix (`canopy_offset`, `Header::check`, the hop limit).
fn prefix() -> Group {
    const ETH: usize = 0;
    const ETH_TYPE: usize = 1;
    const VLAN0: usize = 2;
    const VLAN0_TYPE: usize = 3;
    const VLAN1: usize = 4;
    const VLAN1_TYPE: usize = 5;
    const PREFIX: usize = 6;
    const VERSION: usize = 7;
    const KIND: usize = 8;
    const FLAGS: usize = 9;
    const HOP: usize = 10;
    let tag = || Cond::OneOf(vec![w::ETHERTYPE_VLAN.into(), w::ETHERTYPE_QINQ.into()]);
    // canopy_tna.p4 does not implement the hop record area (flag HOPS): its header
    // length arithmetic has no descriptor or slots, so it refuses the flag as reserved
    // (docs/p4.md); every other flag bit is as the wire format defines it
    let flags_reserved = u64::from(!(w::FLAGS_DEFINED & !w::FLAG_HOPS));
    Group {
        name: "prefix",
        columns: vec![
            ("hdr.ethernet.isValid()", 1),
            ("hdr.ethernet.ether_type", 16),
            ("hdr.vlan0.isValid()", 1),
            ("hdr.vlan0.ether_type", 16),
            ("hdr.vlan1.isValid()", 1),
            ("hdr.vlan1.ether_type", 16),
            ("hdr.prefix.isValid()", 1),
            ("hdr.prefix.version", 4),
            ("hdr.prefix.kind", 4),
            ("hdr.prefix.flags", 8),
            ("hdr.prefix.hop_limit", 8),
        ],
        checks: vec![
            check("eth", "truncated", vec![vec![(ETH, Cond::Invalid)]]),
            check(
                "vlan0",
                "truncated",
                vec![vec![(ETH_TYPE, tag()), (VLAN0, Cond::Invalid)]],
            ),
            check(
                "vlan1",
                "truncated",
                vec![vec![
                    (ETH_TYPE, tag()),
                    (VLAN0_TYPE, tag()),
                    (VLAN1, Cond::Invalid),
                ]],
            ),
            check(
                "vlan2",
                "too_many_vlan_tags",
                vec![vec![
                    (ETH_TYPE, tag()),
                    (VLAN0_TYPE, tag()),
                    (VLAN1_TYPE, tag()),
                ]],
            ),
            // the parser reaches the prefix only after Canopy's EtherType
            check(
                "noprefix",
                "not_canopy",
                vec![vec![(PREFIX, Cond::Invalid)]],
            ),
            check(
                "version",
                "bad_version",
                vec![vec![(VERSION, Cond::Ne(w::VERSION.into()))]],
            ),
            check("kind", "unknown_kind", vec![vec![(KIND, Cond::Eq(0))]]),
            check(
                "kind2",
                "unknown_kind",
                vec![vec![(KIND, Cond::AnyBit(kind_above()))]],
            ),
            check(
                "pflags",
                "reserved_bits_set",
                vec![vec![(FLAGS, Cond::AnyBit(flags_reserved))]],
            ),
            check("hop", "ttl_expired", vec![vec![(HOP, Cond::Eq(0))]]),
        ],
    }
}

/// The sliced body's header fields (`SlicedBody::check`).
fn sliced_body() -> Group {
    const MODE: usize = 0;
    const FLAGS: usize = 1;
    const RESERVED: usize = 2;
    const LEN: usize = 3;
    const CURSOR: usize = 4;
    let word = u64::from(WORD_BITS);
    // mode 0: the cursor beyond SliceLen, for every valid SliceLen
    let cursor_beyond = (0..=word)
        .map(|len| {
            vec![
                (MODE, Cond::Eq(Mode::Sliced as u64)),
                (LEN, Cond::Eq(len)),
                (CURSOR, Cond::Gt(len)),
            ]
        })
        .collect();
    Group {
        name: "sliced",
        columns: vec![
            ("hdr.sliced.mode", 8),
            ("hdr.sliced.flags", 8),
            ("hdr.sliced.reserved", 32),
            ("hdr.sliced.slice_len", 8),
            ("hdr.sliced.cursor", 8),
        ],
        checks: vec![
            check(
                "mode",
                "bad_field_value",
                vec![vec![(MODE, Cond::Gt(Mode::Dst as u64))]],
            ),
            check(
                "flags",
                "reserved_bits_set",
                vec![vec![(FLAGS, Cond::AnyBit((!sliced::FLAGS_DEFINED).into()))]],
            ),
            check(
                "reserved",
                "reserved_bits_set",
                vec![vec![(RESERVED, Cond::AnyBit(low_mask(32)))]],
            ),
            check(
                "slice_len",
                "bad_field_value",
                vec![vec![(LEN, Cond::Gt(sliced::WORD_BITS.into()))]],
            ),
            check("cur", "bad_field_value", cursor_beyond),
            // modes 1-3 do not move the cursor
            check(
                "cursor",
                "bad_field_value",
                vec![vec![
                    (MODE, Cond::Ne(Mode::Sliced as u64)),
                    (CURSOR, Cond::Ne(0)),
                ]],
            ),
            check(
                "srcdst",
                "bad_field_value",
                vec![vec![
                    (MODE, Cond::Eq(Mode::SrcDst as u64)),
                    (FLAGS, Cond::Masked(0, sliced::FLAG_HAS_SRC.into())),
                ]],
            ),
        ],
    }
}

/// The Transit body's header fields and the ingress input.
fn transit_body() -> Group {
    const MSG: usize = 0;
    const FLAGS: usize = 1;
    const ROT: usize = 2;
    const PORT: usize = 3;
    // Rot holds the rotation cursor in its low two bits (4 pairs per byte)
    let rot_reserved = low_mask(8) & !low_mask(2);
    Group {
        name: "transit",
        columns: vec![
            ("hdr.transit.msg", 4),
            ("hdr.transit.flags", 4),
            ("hdr.transit.rot", 8),
            ("ig_intr_md.ingress_port", 9),
        ],
        checks: vec![
            check(
                "msg",
                "bad_field_value",
                vec![vec![(MSG, Cond::Gt(Msg::Abort as u64))]],
            ),
            check(
                "flags",
                "reserved_bits_set",
                vec![vec![(
                    FLAGS,
                    Cond::AnyBit(low_mask(4) & !u64::from(transit::FLAGS_DEFINED)),
                )]],
            ),
            check(
                "rot",
                "reserved_bits_set",
                vec![vec![(ROT, Cond::AnyBit(rot_reserved))]],
            ),
            // packet mode forwards DATA only
            check(
                "msg0",
                "mode_mismatch",
                vec![vec![(MSG, Cond::Ne(Msg::Data as u64))]],
            ),
            check(
                "port",
                "bad_ingress_port",
                vec![vec![(PORT, Cond::Gt(RN1_PORTS as u64 - 1))]],
            ),
        ],
    }
}

/// The path-ID body's header fields (`PathIdBody::check`).
fn pathid_body() -> Group {
    const FLAGS: usize = 0;
    const RESERVED: usize = 1;
    const LEN: usize = 2;
    let local = u64::from(pathid::FLAG_LOCAL);
    Group {
        name: "pathid",
        columns: vec![
            ("hdr.pathid.flags", 8),
            ("hdr.pathid.reserved", 16),
            ("hdr.pathid.id_len", 8),
        ],
        checks: vec![
            check(
                "flags",
                "reserved_bits_set",
                vec![vec![(FLAGS, Cond::AnyBit((!pathid::FLAGS_DEFINED).into()))]],
            ),
            check(
                "reserved",
                "reserved_bits_set",
                vec![vec![(RESERVED, Cond::AnyBit(low_mask(16)))]],
            ),
            check(
                "id_len",
                "bad_field_value",
                vec![vec![(LEN, Cond::Gt(pathid::MAX_ID_BITS.into()))]],
            ),
            // a local frame has an empty ID, any other a non-empty one
            check(
                "local",
                "bad_field_value",
                vec![vec![
                    (FLAGS, Cond::Masked(local, local)),
                    (LEN, Cond::Ne(0)),
                ]],
            ),
            check(
                "nonlocal",
                "bad_field_value",
                vec![vec![(FLAGS, Cond::Masked(0, local)), (LEN, Cond::Eq(0))]],
            ),
        ],
    }
}

/// The header groups, in the order of their result columns in `tna_drop_pick`.
pub(crate) fn groups() -> Vec<Group> {
    vec![prefix(), sliced_body(), transit_body(), pathid_body()]
}

/// Index of a group in [`groups`].
const PREFIX: usize = 0;
const SLICED: usize = 1;
const TRANSIT: usize = 2;
const PATHID: usize = 3;

/// One check in `tna_drop_pick`'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A check with a flag of its own, `meta.fl.f<n>`, and its drop reason.
    Flag(usize, &'static str),
    /// A header check: the group (index in [`groups`]) and the check's name.
    Header(usize, &'static str),
}

/// Every check of the TNA program in `p4/canopy.p4`'s order: the first failing one names
/// the drop. The flags are numbered in the order the apply block sets them.
#[rustfmt::skip]
pub(crate) const DROP_ORDER: &[Step] = &[
    // Ethernet, VLAN tags, prefix
    Step::Header(PREFIX, "eth"),
    Step::Header(PREFIX, "vlan0"),
    Step::Header(PREFIX, "vlan1"),
    Step::Header(PREFIX, "vlan2"),
    Step::Header(PREFIX, "noprefix"),
    Step::Header(PREFIX, "version"),
    Step::Header(PREFIX, "kind"),
    Step::Header(PREFIX, "kind2"),
    Step::Header(PREFIX, "pflags"),
    Step::Flag(0, "bad_field_value"),      // HdrLen below prefix + 8 + MEAS block (MEAS)
    Step::Flag(1, "bad_field_value"),      // the same without MEAS
    Step::Flag(2, "bad_ingress_port"),     // canopy_port misses
    Step::Header(PREFIX, "hop"),
    // sliced-flit
    Step::Flag(3, "kind_not_configured"),
    Step::Flag(4, "truncated"),            // body < 16
    Step::Header(SLICED, "mode"),
    Step::Header(SLICED, "flags"),
    Step::Header(SLICED, "reserved"),
    Step::Flag(5, "truncated"),            // HAS_SRC, body < 24
    Step::Flag(6, "bad_field_value"),      // HAS_SRC, body > 24
    Step::Flag(7, "bad_field_value"),      // no SRC, body != 16
    Step::Header(SLICED, "slice_len"),
    Step::Header(SLICED, "cur"),
    Step::Flag(8, "reserved_bits_set"),    // mode 0: word bits beyond SliceLen
    Step::Header(SLICED, "cursor"),
    Step::Flag(9, "reserved_bits_set"),    // modes 1-3: DST bits at or above SliceLen
    Step::Header(SLICED, "srcdst"),
    Step::Flag(10, "reserved_bits_set"),   // modes 1-3: SRC bits at or above SliceLen
    Step::Flag(11, "mode_mismatch"),
    Step::Flag(12, "bad_phase"),           // mode 0, down input: PHASE_DOWN set
    Step::Flag(13, "slice_exhausted"),     // rho
    Step::Flag(14, "slice_exhausted"),     // the side label
    Step::Flag(15, "bad_side_label"),      // side label >= m
    Step::Flag(16, "bad_phase"),           // mode 0, up or side input
    Step::Flag(17, "slice_exhausted"),     // the label
    Step::Flag(18, "slice_leftover"),
    Step::Flag(19, "bad_field_value"),     // modes 1-3: SliceLen != the address bits
    Step::Flag(20, "bad_phase"),           // modes 1-3, down input: PHASE_DOWN set
    Step::Flag(21, "bad_side_label"),      // modes 1-3: Znode id >= m
    Step::Flag(22, "bad_phase"),           // modes 1-3, up or side input
    Step::Flag(23, "bad_side_label"),      // sliced_side misses and may not climb
    Step::Flag(24, "bad_label"),           // sliced_down misses
    Step::Flag(25, "up_at_top"),
    // Transit
    Step::Flag(26, "kind_not_configured"),
    Step::Flag(27, "truncated"),           // body < 8
    Step::Header(TRANSIT, "msg"),
    Step::Header(TRANSIT, "flags"),
    Step::Header(TRANSIT, "rot"),
    Step::Flag(28, "bad_field_value"),     // head > RouteLen
    Step::Flag(29, "truncated"),           // body < the routing words
    Step::Flag(30, "truncated"),           // body < the routing words and record area
    Step::Flag(31, "bad_field_value"),     // body != their length
    Step::Header(TRANSIT, "msg0"),
    Step::Header(TRANSIT, "port"),
    Step::Flag(32, "route_exhausted"),
    Step::Flag(33, "no_output"),           // transit_dir misses
    // path-ID
    Step::Flag(34, "kind_not_configured"),
    Step::Flag(35, "truncated"),           // body < 16
    Step::Flag(36, "bad_field_value"),     // body > 16
    Step::Header(PATHID, "flags"),
    Step::Header(PATHID, "reserved"),
    Step::Header(PATHID, "id_len"),
    Step::Header(PATHID, "local"),
    Step::Header(PATHID, "nonlocal"),
    Step::Flag(37, "reserved_bits_set"),   // ID bits beyond IdLen
    Step::Flag(38, "bad_ingress_port"),    // a side port
    Step::Flag(39, "bad_phase"),           // up input, PHASE_DOWN clear
    Step::Flag(40, "bad_phase"),           // down input, PHASE_DOWN set
    Step::Flag(41, "bad_phase"),           // LOCAL at a switch that is not a leaf (up or down input)
    Step::Flag(42, "bad_label"),           // pathid_host misses
    Step::Flag(43, "no_route"),            // pathid_lpm misses
    Step::Flag(44, "bad_phase"),           // up input, an upward entry
    // the group
    Step::Flag(45, "no_port"),             // an empty group (group_empty)
];

/// Number of flags, `meta.fl.f0` … (`canopy_fail_t`).
pub(crate) fn flag_count() -> usize {
    DROP_ORDER
        .iter()
        .filter_map(|s| match s {
            Step::Flag(n, _) => Some(n + 1),
            Step::Header(..) => None,
        })
        .max()
        .unwrap_or(0)
}

/// `tna_drop_pick`'s key columns: the flags, then the groups' results.
pub(crate) fn drop_pick_columns(groups: &[Group]) -> Vec<String> {
    (0..flag_count())
        .map(|n| format!("meta.fl.f{n}"))
        .chain(groups.iter().map(Group::result))
        .collect()
}

/// A step's key column in `tna_drop_pick`, the value it matches and its drop reason.
fn resolve(step: Step, groups: &[Group]) -> (usize, u64, &'static str) {
    let flags = flag_count();
    match step {
        Step::Flag(n, reason) => (n, 1, reason),
        Step::Header(g, name) => {
            let group = &groups[g];
            let k = group
                .index(name)
                .unwrap_or_else(|| panic!("{} has no check {name}", group.table()));
            (flags + g, k as u64, group.checks[k - 1].reason)
        }
    }
}

/// The `DROP_*` constant of a reason (`canopy_headers.p4`).
fn drop_constant(reason: &str) -> String {
    debug_assert!(DROP_REASON_NAMES.contains(&reason), "{reason}");
    format!("DROP_{}", reason.to_uppercase())
}

/// `tna_drop_pick`: one entry per step of [`DROP_ORDER`], the step's column set and every
/// other column `_`.
pub(crate) fn drop_pick(groups: &[Group]) -> Vec<Entry> {
    let columns = drop_pick_columns(groups).len();
    DROP_ORDER
        .iter()
        .map(|&step| {
            let (col, value, reason) = resolve(step, groups);
            let mut key = vec![Key::Any; columns];
            key[col] = Key::Exact(value);
            Entry::new(key, format!("tna_drop((bit<8>){})", drop_constant(reason)))
        })
        .collect()
}
