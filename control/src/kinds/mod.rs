//! Per-header-kind control logic: per-switch tables, table summaries and source-side
//! headers, dispatched on [`Kind`]. Each kind module implements the same four functions:
//! `supports`, `tables`, `summary` and `header`.

pub mod pathid;
pub mod sliced;
pub mod transit;

use crate::oracle::{self, Oracle, PairsReport};
use crate::spec::Spec;
use crate::topology::{TopoError, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::{Kind, WireError};
use thiserror::Error;

/// Why tables or a header could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KindError {
    /// The header kind does not apply to this topology family.
    #[error("header kind `{kind}` does not apply to `{spec}`: {why}")]
    Unsupported {
        /// Kind.
        kind: Kind,
        /// Topology spec.
        spec: String,
        /// Why not.
        why: String,
    },
    /// The topology is outside what the kind's encoding can carry.
    #[error("`{spec}` does not fit the {kind} header: {why}")]
    TooLarge {
        /// Kind.
        kind: Kind,
        /// Topology spec.
        spec: String,
        /// Which field overflows.
        why: String,
    },
    /// The kind's encoding would carry the topology, but computing its tables here
    /// would take more memory or work than this tool allows.
    #[error("`{spec}`: the {kind} tables are too large to compute here: {why}")]
    TooBigToCompute {
        /// Kind.
        kind: Kind,
        /// Topology spec.
        spec: String,
        /// What would be too large.
        why: String,
    },
    /// A host reference or pair is not valid.
    #[error(transparent)]
    Topo(#[from] TopoError),
    /// Header emission failed.
    #[error("header emission failed: {0}")]
    Wire(#[from] WireError),
}

/// Size of one kind's forwarding state over a whole topology. Serialized (for
/// `canopyctl tables --summary --json`) with its field names, `by_level` as objects
/// `{level, switches, max_entries, total_entries}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct TableSummary {
    /// Largest header routing field in bits (sliced: SLICE bits; Transit: routing
    /// bytes × 8; path-ID: ID bits).
    pub id_bits: u32,
    /// How `id_bits` is made up (per field / per path type).
    pub id_bits_detail: String,
    /// Number of switches.
    pub switches: u64,
    /// Largest table (entries) of any switch.
    pub max_entries: u64,
    /// Name of a switch with `max_entries`.
    pub max_switch: String,
    /// Sum of entries over all switches.
    pub total_entries: u64,
    /// Per level: `(level, switches, max entries, total entries)`.
    #[serde(serialize_with = "level_rows")]
    pub by_level: Vec<(u16, u64, u64, u64)>,
    /// Remarks (how entries were counted, deviations from a source document…).
    pub notes: Vec<String>,
}

/// [`TableSummary::by_level`] serialized as one object per level.
fn level_rows<S: serde::Serializer>(
    rows: &[(u16, u64, u64, u64)],
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(serde::Serialize)]
    struct Level {
        level: u16,
        switches: u64,
        max_entries: u64,
        total_entries: u64,
    }
    s.collect_seq(
        rows.iter()
            .map(|&(level, switches, max_entries, total_entries)| Level {
                level,
                switches,
                max_entries,
                total_entries,
            }),
    )
}

impl TableSummary {
    /// Fill `switches`, `max_*`, `total_entries` and `by_level` from per-switch counts.
    pub fn absorb(&mut self, t: &Topology, entries: impl IntoIterator<Item = (u32, u64)>) {
        self.absorb_levels(
            |sw| t.switches[sw as usize].name.clone(),
            entries
                .into_iter()
                .map(|(sw, n)| (sw, t.switches[sw as usize].level, n)),
        );
    }

    /// [`TableSummary::absorb`] from `(switch, level, entries)` and a switch's name
    /// (asked only for the switches that become the largest so far), for counts that
    /// come without a built topology ([`Outline`](crate::topology::Outline)).
    pub fn absorb_levels(
        &mut self,
        name: impl Fn(u32) -> String,
        entries: impl IntoIterator<Item = (u32, u16, u64)>,
    ) {
        use std::collections::BTreeMap;
        let mut lv: BTreeMap<u16, (u64, u64, u64)> = BTreeMap::new();
        for (sw, level, n) in entries {
            self.switches += 1;
            self.total_entries += n;
            if n > self.max_entries || self.max_switch.is_empty() {
                self.max_entries = n;
                self.max_switch = name(sw);
            }
            let e = lv.entry(level).or_default();
            e.0 += 1;
            e.1 = e.1.max(n);
            e.2 += n;
        }
        self.by_level = lv.into_iter().map(|(l, (c, m, t))| (l, c, m, t)).collect();
    }
}

/// Kinds that apply to a topology.
pub fn kinds_for(t: &Topology) -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| supports(t, *k).is_ok())
        .collect()
}

/// Whether `kind` applies to `t` (and why not).
pub fn supports(t: &Topology, kind: Kind) -> Result<(), KindError> {
    match kind {
        Kind::Sliced => sliced::supports(t),
        Kind::Transit => transit::supports(t),
        Kind::PathId => pathid::supports(t),
    }
}

/// Per-switch tables (index = switch index) for one kind.
pub fn tables(t: &Topology, kind: Kind) -> Result<Vec<SwitchTables>, KindError> {
    match kind {
        Kind::Sliced => sliced::tables(t),
        Kind::Transit => transit::tables(t),
        Kind::PathId => pathid::tables(t),
    }
}

/// Summary of one kind's tables (may avoid materialising every entry).
pub fn summary(t: &Topology, kind: Kind) -> Result<TableSummary, KindError> {
    match kind {
        Kind::Sliced => sliced::summary(t),
        Kind::Transit => transit::summary(t),
        Kind::PathId => pathid::summary(t),
    }
}

/// The [`summary`] of the topology `spec` names, computed from the spec without
/// building the graph where the kind can (path-ID closed forms over an
/// [`Outline`](crate::topology::Outline)); `None` where the graph is needed.
pub fn summary_from_spec(spec: &Spec, kind: Kind) -> Result<Option<TableSummary>, KindError> {
    match kind {
        Kind::PathId => pathid::summary_from_spec(spec),
        Kind::Sliced | Kind::Transit => Ok(None),
    }
}

/// The Canopy header (prefix + body, no Ethernet) that host `src` puts on a frame to
/// host `dst`.
pub fn header(t: &Topology, kind: Kind, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    match kind {
        Kind::Sliced => sliced::header(t, src, dst),
        Kind::Transit => transit::header(t, src, dst),
        Kind::PathId => pathid::header(t, src, dst),
    }
}

/// A header kind and, for sliced-flit, the comparison mode its headers and tables use
/// (FLAT, SRCDST, DST; `None` = the kind's own, SLICED for sliced-flit). Written
/// `sliced`, `sliced/flat`, `transit`… ([`Addressing::parse`], `Display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Addressing {
    /// Header kind.
    pub kind: Kind,
    /// Sliced-flit mode (only with [`Kind::Sliced`]).
    pub mode: Option<Mode>,
}

impl Addressing {
    /// `kind` with its own addressing.
    pub fn of(kind: Kind) -> Self {
        Addressing { kind, mode: None }
    }

    /// Parse `KIND` or `sliced/MODE`; `None` for an unknown kind or mode, or a mode
    /// on another kind.
    pub fn parse(s: &str) -> Option<Self> {
        let (k, m) = match s.split_once('/') {
            Some((k, m)) => (k, Some(Mode::from_name(m)?)),
            None => (s, None),
        };
        let kind = Kind::from_name(k)?;
        (m.is_none() || kind == Kind::Sliced).then_some(Addressing { kind, mode: m })
    }

    /// Every switch's tables.
    pub fn tables(self, t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
        match self.mode {
            Some(m) => sliced::tables_mode(t, m),
            None => tables(t, self.kind),
        }
    }

    /// The header host `src` puts on frames to `dst`.
    pub fn header(self, t: &Topology, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
        match self.mode {
            Some(m) => sliced::header_mode(t, m, src, dst),
            None => header(t, self.kind, src, dst),
        }
    }
}

impl std::fmt::Display for Addressing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.mode {
            Some(m) => write!(f, "{}/{m}", self.kind),
            None => write!(f, "{}", self.kind),
        }
    }
}

/// The header `canopyctl header SPEC --kind KIND [--mode M] --src SRC --dst DST` prints,
/// with the two hosts (named as [`topology::parse_host`](crate::topology::parse_host)
/// reads them): the sliced header in `mode` when one is given; for Transit, a pair given
/// as `0x…` addresses L = C·P is used verbatim, unused C bits included, as in \[Transit\]'s
/// own example (§3.8.5; docs/transit.md §4); otherwise [`header`] between the two hosts.
pub fn header_named(
    t: &Topology,
    kind: Kind,
    mode: Option<Mode>,
    src: &str,
    dst: &str,
) -> Result<(u32, u32, Vec<u8>), KindError> {
    let s = crate::topology::parse_host(t, src)?;
    let d = crate::topology::parse_host(t, dst)?;
    let h = match (
        mode,
        kind,
        transit::parse_addr(src),
        transit::parse_addr(dst),
    ) {
        (None, Kind::Transit, Some(l1), Some(l2)) => transit::header_addr(t, l1, l2)?,
        _ => Addressing { kind, mode }.header(t, s, d)?,
    };
    Ok((s, d, h))
}

/// Walk `pairs` through the fabric with `kind`'s own tables and headers (adaptive
/// choices drawn from `seed`), checking the generic walk properties
/// ([`crate::oracle::Walk::check`]) and the kind's own predictions: exact traversal
/// counts and header state for sliced-flit ([`sliced::check_walk`], SLICED mode),
/// \[Transit\]'s stage and swallow counts for Transit ([`transit::check_walk`]), desired
/// shortest paths for path-ID ([`pathid::check_walk`]).
pub fn check_pairs(
    t: &Topology,
    kind: Kind,
    pairs: impl IntoIterator<Item = (u32, u32)>,
    seed: u64,
) -> Result<PairsReport, KindError> {
    let walk_check = match kind {
        Kind::Sliced => return sliced::check_pairs(t, Default::default(), pairs, seed),
        Kind::Transit => transit::check_walk,
        Kind::PathId => pathid::check_walk,
    };
    let o = Oracle::for_kind(t, kind)?;
    oracle::check_pairs(&o, kind, pairs, seed, |w| walk_check(t, w))
}

/// Port configuration of a switch, as the dataplane tables want it.
pub fn port_configs(t: &Topology, sw: u32) -> Vec<canopy_dataplane::table::PortConfig> {
    t.switches[sw as usize]
        .ports
        .iter()
        .map(|p| canopy_dataplane::table::PortConfig {
            role: p.role,
            dir: p.dir,
        })
        .collect()
}
