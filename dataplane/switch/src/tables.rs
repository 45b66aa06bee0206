//! Tables for the switch: computed from a topology spec with `canopy-control` (the same
//! code path as `canopyctl tables SPEC --kind K --switch S`), read from a SwitchTables
//! JSON file, and validated completely before they reach the engine.

use crate::config::{Config, ConfigError, TablesSource};
use canopy_control::kinds::{self, KindError};
use canopy_control::topology::{self, TopoError};
use canopy_dataplane::table::pathid::Action;
use canopy_dataplane::table::sliced::SlicedTable;
use canopy_dataplane::table::transit::{
    DirEntry, DirTarget, TransitConfigError, TransitTable, OUT_BASE, RN1_PORTS,
};
use canopy_dataplane::table::{PortConfig, PortDir, PortRole, SwitchTables};
use canopy_dataplane::Kind;
use std::path::{Path, PathBuf};

/// Name of the placeholder tables a switch runs with until tables are pushed.
pub const NO_TABLES: &str = "(none)";

/// Tables that could not be loaded from their source.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The SwitchTables JSON file.
    #[error(transparent)]
    File(#[from] ReadError),
    /// The topology spec does not build.
    #[error("{spec:?}: {error}")]
    Topology {
        /// The spec.
        spec: String,
        /// Why.
        error: TopoError,
    },
    /// The topology has no switch of that name.
    #[error("no switch named {switch:?} in {spec:?} (it has {count} switches, e.g. {examples}; `canopyctl topo '{spec}' --list` lists them)")]
    NoSwitch {
        /// The name asked for.
        switch: String,
        /// The spec.
        spec: String,
        /// How many switches it has.
        count: usize,
        /// The first few names, comma-separated.
        examples: String,
    },
    /// The kind's tables cannot be computed for the topology.
    #[error("{}: {error}", .kind.name())]
    Kind {
        /// The header kind.
        kind: Kind,
        /// Why.
        error: KindError,
    },
    /// The kind computed no tables for the switch.
    #[error("no tables computed")]
    NotComputed,
}

impl LoadError {
    /// The configuration key the error is about (`tables.file`, `tables.switch`, …).
    pub fn key(&self) -> &'static str {
        match self {
            LoadError::File(_) => "tables.file",
            LoadError::Topology { .. } => "tables.topology",
            LoadError::NoSwitch { .. } | LoadError::NotComputed => "tables.switch",
            LoadError::Kind { .. } => "tables.kind",
        }
    }
}

/// A SwitchTables JSON file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading the file failed.
    #[error("{}: cannot read: {error}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is not SwitchTables JSON.
    #[error("{}: not SwitchTables JSON: {error}", .path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Why.
        error: serde_json::Error,
    },
}

/// Tables from a validated source.
pub fn load(src: &TablesSource) -> Result<SwitchTables, LoadError> {
    load_indexed(src).map(|(t, _)| t)
}

/// [`load`], and the switch's index in its topology when the source names one.
fn load_indexed(src: &TablesSource) -> Result<(SwitchTables, Option<usize>), LoadError> {
    match src {
        TablesSource::File(path) => Ok((read_file(path)?, None)),
        TablesSource::Topology {
            spec,
            kind,
            switch,
            mode,
        } => {
            let t = topology::build_str(spec).map_err(|error| LoadError::Topology {
                spec: spec.clone(),
                error,
            })?;
            let idx = t.switch_index(switch).ok_or_else(|| {
                let some: Vec<&str> = t.switches.iter().take(6).map(|s| s.name.as_str()).collect();
                LoadError::NoSwitch {
                    switch: switch.clone(),
                    spec: spec.clone(),
                    count: t.switches.len(),
                    examples: some.join(", "),
                }
            })?;
            let all = match mode {
                Some(m) => kinds::sliced::tables_mode(&t, *m),
                None => kinds::tables(&t, *kind),
            }
            .map_err(|error| LoadError::Kind { kind: *kind, error })?;
            let sw = all.into_iter().nth(idx).ok_or(LoadError::NotComputed)?;
            Ok((sw, Some(idx)))
        }
    }
}

/// Read a SwitchTables JSON file (as `canopyctl tables SPEC -k KIND --switch S` prints).
pub fn read_file(path: &Path) -> Result<SwitchTables, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|error| ReadError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    serde_json::from_str(&text).map_err(|error| ReadError::NotJson {
        path: path.to_path_buf(),
        error,
    })
}

/// The tables `cfg` names, loaded and validated against its ports (None: it names
/// none); an error names the configuration file and the key. Tables computed for a
/// switch of a topology also give the switch id of hop records, unless `[switch] id`
/// sets it.
pub fn load_checked(cfg: &mut Config) -> Result<Option<SwitchTables>, ConfigError> {
    let Some(src) = &cfg.tables else {
        return Ok(None);
    };
    let (t, idx) = load_indexed(src).map_err(|e| cfg.error(e.key(), e.to_string()))?;
    validate(&t, cfg.ports.len()).map_err(|e| cfg.error("tables", e.to_string()))?;
    if let (None, Some(i)) = (cfg.switch.id, idx) {
        cfg.engine.switch_id = u32::try_from(i).unwrap_or(u32::MAX);
    }
    Ok(Some(t))
}

/// Placeholder tables for `ports` ports: no kind configured, so every Canopy frame is
/// dropped as `kind_not_configured` (other frames as `not_canopy`) until real tables
/// arrive.
pub fn placeholder(ports: usize) -> SwitchTables {
    SwitchTables::new(
        NO_TABLES,
        vec![
            PortConfig {
                role: PortRole::Down,
                dir: PortDir::Duplex,
            };
            ports
        ],
    )
}

/// Header kinds the tables configure.
pub fn kinds_of(t: &SwitchTables) -> Vec<&'static str> {
    let mut v = Vec::new();
    if t.sliced.is_some() {
        v.push(Kind::Sliced.name());
    }
    if t.transit.is_some() {
        v.push(Kind::Transit.name());
    }
    if t.pathid.is_some() {
        v.push(Kind::PathId.name());
    }
    v
}

/// Tables that cannot run on a switch: what is wrong and where (`groups[3]`,
/// `sliced.down[1]`, `transit.dirs[0][2]`, …).
#[derive(Debug, thiserror::Error)]
pub enum TablesError {
    /// Another port count than the switch's.
    #[error("tables of {name:?} have {have} ports but the switch has {ports} (one [[port]] per table port, in order)")]
    PortCount {
        /// The tables' name.
        name: String,
        /// Their ports.
        have: usize,
        /// The switch's.
        ports: usize,
    },
    /// More groups than a group number addresses.
    #[error("{0} groups is too many")]
    TooManyGroups(usize),
    /// A group without ports.
    #[error("groups[{0}] is empty")]
    EmptyGroup(usize),
    /// A group member out of range.
    #[error("groups[{group}] has port {port}, but ports are 0..{ports}")]
    GroupPortRange {
        /// The group.
        group: usize,
        /// The member.
        port: u16,
        /// The switch's ports.
        ports: usize,
    },
    /// A group member listed twice.
    #[error("groups[{group}] lists port {port} twice")]
    GroupPortTwice {
        /// The group.
        group: usize,
        /// The member.
        port: u16,
    },
    /// A receive-only port in a group.
    #[error("groups[{group}] has port {port}, a receive-only (in) port")]
    GroupPortIn {
        /// The group.
        group: usize,
        /// The member.
        port: u16,
    },
    /// A reference to a group that does not exist.
    #[error("{at}: group {group} does not exist ({groups} groups)")]
    NoGroup {
        /// Where.
        at: String,
        /// The group.
        group: u16,
        /// How many there are.
        groups: usize,
    },
    /// A reference to a port that does not exist.
    #[error("{at}: port {port} does not exist (0..{ports})")]
    NoPort {
        /// Where.
        at: String,
        /// The port.
        port: u16,
        /// The switch's ports.
        ports: usize,
    },
    /// A reference to a receive-only port as an output.
    #[error("{at}: port {port} is receive-only (in)")]
    PortIn {
        /// Where.
        at: String,
        /// The port.
        port: u16,
    },
    /// `sliced.level` out of range.
    #[error("sliced.level {level} is not in 1..={levels} (sliced.levels)")]
    SlicedLevel {
        /// The level.
        level: u8,
        /// The levels.
        levels: u8,
    },
    /// Sliced label widths too wide.
    #[error("sliced label widths a = {a}, b = {b}: at most 32 bits each")]
    SlicedWidths {
        /// Width a.
        a: u8,
        /// Width b.
        b: u8,
    },
    /// A sliced shift or width over 64 bits.
    #[error("sliced.{key} = {bits}: more than 64 bits")]
    SlicedBits {
        /// The field.
        key: &'static str,
        /// Its value.
        bits: u8,
    },
    /// `sliced.sid` not below `sliced.m`.
    #[error("sliced.sid {sid} must be below sliced.m {m} (m ≥ 1)")]
    SlicedSid {
        /// The sid.
        sid: u32,
        /// The m.
        m: u32,
    },
    /// More sliced down or side entries than `z` or `m` allow.
    #[error("sliced: {down} down entries for z = {z} or {side} side entries for m = {m}")]
    SlicedEntries {
        /// Down entries.
        down: usize,
        /// The z.
        z: u32,
        /// Side entries.
        side: usize,
        /// The m.
        m: u32,
    },
    /// Transit tables on a switch of another port count.
    #[error(
        "transit tables need {need} ports (inputs 0..8, outputs 8..16), the switch has {ports}"
    )]
    TransitPorts {
        /// Ports transit needs.
        need: usize,
        /// The switch's.
        ports: usize,
    },
    /// `transit.config` does not decode.
    #[error("transit.config: {0}")]
    TransitConfig(TransitConfigError),
    /// A decoded direction that does not match `transit.config`.
    #[error("{at}: {given:?} does not match transit.config (which gives outputs {outputs:?}, rotation {}, delay {})", .want.rot, .want.delay)]
    TransitDir {
        /// Where.
        at: String,
        /// The direction as given.
        given: DirEntry,
        /// As the configuration decodes.
        want: DirEntry,
        /// The outputs the configuration gives (0-based).
        outputs: Vec<u16>,
    },
}

/// Check tables completely against a switch of `ports` ports: the port count, every
/// group (non-empty, ports in range, no duplicates), and every port or group a kind
/// table refers to; sliced widths and shifts; Transit's port layout, rotations and
/// the agreement of its decoded directions with its configuration.
pub fn validate(t: &SwitchTables, ports: usize) -> Result<(), TablesError> {
    check(t, ports, Groups::Strict)
}

/// [`validate`] for tables built from what a P4Runtime controller wrote
/// (`P4State::tables`), which may hold what `canopy.p4` itself takes: an empty group
/// (its frames drop `no_port`, the program's `group_empty`), a port twice in a group
/// (a weighted member), and a receive-only port in a group or as an action's port.
pub fn validate_program(t: &SwitchTables, ports: usize) -> Result<(), TablesError> {
    check(t, ports, Groups::Program)
}

/// How groups are checked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Groups {
    /// Not empty, no port twice, no receive-only port.
    Strict,
    /// Only that every member is a port of the switch.
    Program,
}

fn check(t: &SwitchTables, ports: usize, groups: Groups) -> Result<(), TablesError> {
    if t.ports.len() != ports {
        return Err(TablesError::PortCount {
            name: t.name.clone(),
            have: t.ports.len(),
            ports,
        });
    }
    check_groups(t, ports, groups)?;
    let refs = Refs {
        t,
        ports,
        strict: groups == Groups::Strict,
    };
    if let Some(s) = &t.sliced {
        check_sliced(s, &refs)?;
    }
    if let Some(tr) = &t.transit {
        check_transit(tr, &refs)?;
    }
    if let Some(pt) = &t.pathid {
        let action = |a: Action, at: &str| match a {
            Action::Port(p) => refs.port(p, at),
            Action::Group(g) => refs.group(g, at),
        };
        for (i, e) in pt.entries().iter().enumerate() {
            action(e.action, &format!("pathid.entries[{i}]"))?;
        }
        for (i, h) in pt.hosts().iter().enumerate() {
            action(h.action, &format!("pathid.hosts[{i}] (label {})", h.label))?;
        }
    }
    Ok(())
}

/// Every group's ports in range; with [`Groups::Strict`], also not empty, no port twice
/// and none receive-only.
fn check_groups(t: &SwitchTables, ports: usize, rules: Groups) -> Result<(), TablesError> {
    let strict = rules == Groups::Strict;
    if t.groups.len() > usize::from(u16::MAX) {
        return Err(TablesError::TooManyGroups(t.groups.len()));
    }
    for (g, members) in t.groups.iter().enumerate() {
        if strict && members.is_empty() {
            return Err(TablesError::EmptyGroup(g));
        }
        let mut seen = vec![false; ports];
        for &p in members {
            let i = usize::from(p);
            if i >= ports {
                return Err(TablesError::GroupPortRange {
                    group: g,
                    port: p,
                    ports,
                });
            }
            if strict && seen[i] {
                return Err(TablesError::GroupPortTwice { group: g, port: p });
            }
            if strict && t.ports[i].dir == PortDir::In {
                return Err(TablesError::GroupPortIn { group: g, port: p });
            }
            seen[i] = true;
        }
    }
    Ok(())
}

/// The ports and groups a kind table may refer to.
struct Refs<'a> {
    t: &'a SwitchTables,
    ports: usize,
    /// Whether a receive-only port is refused as a target.
    strict: bool,
}

impl Refs<'_> {
    /// Group `g` (referred to at `at`) exists.
    fn group(&self, g: u16, at: &str) -> Result<(), TablesError> {
        if usize::from(g) >= self.t.groups.len() {
            return Err(TablesError::NoGroup {
                at: at.to_string(),
                group: g,
                groups: self.t.groups.len(),
            });
        }
        Ok(())
    }

    /// Port `p` (referred to at `at`) exists and can send.
    fn port(&self, p: u16, at: &str) -> Result<(), TablesError> {
        if usize::from(p) >= self.ports {
            return Err(TablesError::NoPort {
                at: at.to_string(),
                port: p,
                ports: self.ports,
            });
        }
        if self.strict && self.t.ports[usize::from(p)].dir == PortDir::In {
            return Err(TablesError::PortIn {
                at: at.to_string(),
                port: p,
            });
        }
        Ok(())
    }
}

/// The sliced table: level, widths and shifts in range, `sid` below `m`, entries
/// within `z` and `m`, every group it names.
fn check_sliced(s: &SlicedTable, refs: &Refs) -> Result<(), TablesError> {
    if s.level == 0 || s.level > s.levels {
        return Err(TablesError::SlicedLevel {
            level: s.level,
            levels: s.levels,
        });
    }
    if s.a > 32 || s.b > 32 {
        return Err(TablesError::SlicedWidths { a: s.a, b: s.b });
    }
    for (key, bits) in [
        ("label_shift", s.label_shift),
        ("zone_shift", s.zone_shift),
        ("znode_shift", s.znode_shift),
        ("addr_bits", s.addr_bits),
    ] {
        if bits > 64 {
            return Err(TablesError::SlicedBits { key, bits });
        }
    }
    if s.m == 0 || s.sid >= s.m {
        return Err(TablesError::SlicedSid { sid: s.sid, m: s.m });
    }
    if s.down.len() as u64 > u64::from(s.z) || s.side.len() as u64 > u64::from(s.m) {
        return Err(TablesError::SlicedEntries {
            down: s.down.len(),
            z: s.z,
            side: s.side.len(),
            m: s.m,
        });
    }
    if let Some(g) = s.up {
        refs.group(g, "sliced.up")?;
    }
    for (c, g) in s.down.iter().enumerate() {
        if let Some(g) = g {
            refs.group(*g, &format!("sliced.down[{c}]"))?;
        }
    }
    for (k, g) in s.side.iter().enumerate() {
        if let Some(g) = g {
            refs.group(*g, &format!("sliced.side[{k}]"))?;
        }
    }
    Ok(())
}

/// The transit table: the port layout, and its decoded directions decoded again from
/// its configuration and compared (catches bad rotations, unequal dilated outputs and
/// directions that disagree with the configuration).
fn check_transit(tr: &TransitTable, refs: &Refs) -> Result<(), TablesError> {
    let (t, ports) = (refs.t, refs.ports);
    if ports != 2 * RN1_PORTS {
        return Err(TablesError::TransitPorts {
            need: 2 * RN1_PORTS,
            ports,
        });
    }
    let mut scratch = t.clone();
    scratch.groups.clear();
    let fresh = TransitTable::new(tr.config, &mut scratch).map_err(TablesError::TransitConfig)?;
    let ports_of = |target: DirTarget, groups: &[Vec<u16>]| -> Option<Vec<u16>> {
        match target {
            DirTarget::None => Some(vec![]),
            DirTarget::Port(p) => Some(vec![p]),
            DirTarget::Group(g) => groups.get(usize::from(g)).cloned(),
        }
    };
    for half in 0..2 {
        for d in 0..4 {
            let at = format!("transit.dirs[{half}][{d}]");
            let given = tr.dirs[half][d];
            let want = fresh.dirs[half][d];
            match given.target {
                DirTarget::Port(p) => refs.port(p, &at)?,
                DirTarget::Group(g) => refs.group(g, &at)?,
                DirTarget::None => {}
            }
            let g1 = ports_of(given.target, &t.groups);
            let g2 = ports_of(want.target, &scratch.groups);
            if g1 != g2 || (given.rot, given.delay) != (want.rot, want.delay) {
                return Err(TablesError::TransitDir {
                    at,
                    given,
                    want,
                    outputs: g2
                        .unwrap_or_default()
                        .iter()
                        .map(|p| p - OUT_BASE)
                        .collect(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every computed table validates, and so do the tables a controller writes for it
    /// over P4Runtime (its P4 entries through `P4State`), Transit's dilated mode among
    /// them (the program writes only half 0 of `transit_dir` there).
    #[test]
    fn every_computed_table_of_several_fabrics_validates_and_so_does_its_p4_state() {
        use canopy_control::p4::{self, P4State};
        for (spec, kind) in [
            ("fat-tree:k=4", Kind::Sliced),
            ("fat-tree:k=4", Kind::PathId),
            ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced),
            ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
            ("vl2:da=8;di=4;servers=2", Kind::PathId),
        ] {
            let t = topology::build_str(spec).unwrap();
            for st in kinds::tables(&t, kind).unwrap() {
                let n = st.ports.len();
                validate(&st, n).unwrap_or_else(|e| panic!("{spec} {}: {e}", st.name));
                let state = P4State::from_ops(&p4::entries(&st).unwrap()).unwrap();
                let back = state.tables(&st.name, n).unwrap();
                validate_program(&back, n)
                    .unwrap_or_else(|e| panic!("{spec} {} from its P4 state: {e}", st.name));
            }
        }
    }

    fn edge() -> SwitchTables {
        let src = TablesSource::Topology {
            spec: "fat-tree:k=4".into(),
            kind: Kind::Sliced,
            switch: "edge-p0-e0".into(),
            mode: None,
        };
        load(&src).unwrap()
    }

    #[test]
    fn bad_tables_are_rejected_with_where() {
        let good = edge();
        assert_eq!(good.ports.len(), 4);
        let e = validate(&good, 3).unwrap_err().to_string();
        assert!(e.contains("4 ports but the switch has 3"), "{e}");
        let mut t = good.clone();
        t.groups[0].push(9);
        assert!(validate(&t, 4)
            .unwrap_err()
            .to_string()
            .contains("groups[0] has port 9"));
        let mut t = good.clone();
        t.groups.push(vec![]);
        assert!(validate(&t, 4)
            .unwrap_err()
            .to_string()
            .contains("is empty"));
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().up = Some(77);
        assert!(validate(&t, 4)
            .unwrap_err()
            .to_string()
            .contains("sliced.up: group 77"));
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().label_shift = 200;
        assert!(validate(&t, 4)
            .unwrap_err()
            .to_string()
            .contains("label_shift"));
        let mut t = good;
        t.sliced.as_mut().unwrap().level = 9;
        assert!(validate(&t, 4)
            .unwrap_err()
            .to_string()
            .contains("sliced.level"));
    }

    #[test]
    fn errors_read_in_full() {
        let good = edge();
        let says = |t: &SwitchTables, ports: usize| validate(t, ports).unwrap_err().to_string();
        assert_eq!(
            says(&good, 3),
            format!("tables of {:?} have 4 ports but the switch has 3 (one [[port]] per table port, in order)", good.name)
        );
        let mut t = good.clone();
        t.groups[0].push(9);
        assert_eq!(says(&t, 4), "groups[0] has port 9, but ports are 0..4");
        let mut t = good.clone();
        let p = t.groups[0][0];
        t.groups[0].push(p);
        assert_eq!(says(&t, 4), format!("groups[0] lists port {p} twice"));
        let mut t = good.clone();
        t.ports[usize::from(p)].dir = PortDir::In;
        assert_eq!(
            says(&t, 4),
            format!("groups[0] has port {p}, a receive-only (in) port")
        );
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().up = Some(77);
        let n = t.groups.len();
        assert_eq!(
            says(&t, 4),
            format!("sliced.up: group 77 does not exist ({n} groups)")
        );
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().zone_shift = 65;
        assert_eq!(says(&t, 4), "sliced.zone_shift = 65: more than 64 bits");
        let mut t = good;
        t.sliced.as_mut().unwrap().a = 33;
        let b = t.sliced.as_ref().unwrap().b;
        assert_eq!(
            says(&t, 4),
            format!("sliced label widths a = 33, b = {b}: at most 32 bits each")
        );
    }

    #[test]
    fn transit_dirs_must_match_config() {
        let t = topology::build_str("transit-hybrid:leaf=12;layers=1").unwrap();
        let mut st = kinds::tables(&t, Kind::Transit).unwrap().remove(0);
        validate(&st, 16).unwrap();
        let tr = st.transit.as_mut().unwrap();
        tr.config.outputs[0].rot = 7;
        let e = validate(&st, 16).unwrap_err().to_string();
        assert!(e.contains("transit.config"), "{e}");
    }

    #[test]
    fn unknown_switch_names_examples() {
        let src = TablesSource::Topology {
            spec: "fat-tree:k=4".into(),
            kind: Kind::Sliced,
            switch: "e0_0".into(),
            mode: None,
        };
        let e = load(&src).unwrap_err();
        assert_eq!(e.key(), "tables.switch");
        let w = e.to_string();
        assert!(w.contains("edge-p0-e0"), "{w}");
    }
}
