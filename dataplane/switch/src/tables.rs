//! Tables for the switch: computed from a topology spec with `canopy-control` (the same
//! code path as `canopyctl tables SPEC --kind K --switch S`), read from a SwitchTables
//! JSON file, and validated completely before they reach the engine.

use crate::config::TablesSource;
use canopy_control::kinds;
use canopy_control::topology;
use canopy_dataplane::table::pathid::Action;
use canopy_dataplane::table::transit::{DirTarget, TransitTable, OUT_BASE, RN1_PORTS};
use canopy_dataplane::table::{PortConfig, PortDir, PortRole, SwitchTables};
use canopy_dataplane::Kind;
use std::path::Path;

/// Name of the placeholder tables a switch runs with until tables are pushed.
pub const NO_TABLES: &str = "(none)";

/// Tables from a validated source; errors are `(key, what)`.
pub fn load(src: &TablesSource) -> Result<SwitchTables, (String, String)> {
    match src {
        TablesSource::File(path) => read_file(path).map_err(|w| ("tables.file".into(), w)),
        TablesSource::Topology {
            spec,
            kind,
            switch,
            mode,
        } => {
            let t = topology::build_str(spec)
                .map_err(|e| ("tables.topology".to_string(), format!("{spec:?}: {e}")))?;
            let idx = t.switches.iter().position(|s| &s.name == switch).ok_or_else(|| {
                let some: Vec<&str> = t.switches.iter().take(6).map(|s| s.name.as_str()).collect();
                (
                    "tables.switch".to_string(),
                    format!(
                        "no switch named {switch:?} in {spec:?} (it has {} switches, e.g. {}; `canopyctl topo '{spec}' --list` lists them)",
                        t.switches.len(),
                        some.join(", ")
                    ),
                )
            })?;
            let all = match mode {
                Some(m) => kinds::sliced::tables_mode(&t, *m),
                None => kinds::tables(&t, *kind),
            }
            .map_err(|e| ("tables.kind".to_string(), format!("{}: {e}", kind.name())))?;
            all.into_iter()
                .nth(idx)
                .ok_or_else(|| ("tables.switch".into(), "no tables computed".into()))
        }
    }
}

/// Read a SwitchTables JSON file (as `canopyctl tables SPEC -k KIND --switch S` prints).
pub fn read_file(path: &Path) -> Result<SwitchTables, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}: not SwitchTables JSON: {e}", path.display()))
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

/// Check tables completely against a switch of `ports` ports: the port count, every
/// group (non-empty, ports in range, no duplicates), and every port or group a kind
/// table refers to; sliced widths and shifts; Transit's port layout, rotations and
/// the agreement of its decoded directions with its configuration. `Err` says what
/// and where (`groups[3]`, `sliced.down[1]`, `transit.dirs[0][2]`, …).
pub fn validate(t: &SwitchTables, ports: usize) -> Result<(), String> {
    let name = &t.name;
    if t.ports.len() != ports {
        return Err(format!(
            "tables of {name:?} have {} ports but the switch has {ports} (one [[port]] per table port, in order)",
            t.ports.len()
        ));
    }
    if t.groups.len() > usize::from(u16::MAX) {
        return Err(format!("{} groups is too many", t.groups.len()));
    }
    for (g, members) in t.groups.iter().enumerate() {
        if members.is_empty() {
            return Err(format!("groups[{g}] is empty"));
        }
        let mut seen = vec![false; ports];
        for &p in members {
            let i = usize::from(p);
            if i >= ports {
                return Err(format!(
                    "groups[{g}] has port {p}, but ports are 0..{ports}"
                ));
            }
            if seen[i] {
                return Err(format!("groups[{g}] lists port {p} twice"));
            }
            if t.ports[i].dir == PortDir::In {
                return Err(format!(
                    "groups[{g}] has port {p}, a receive-only (in) port"
                ));
            }
            seen[i] = true;
        }
    }
    let group = |g: u16, at: &str| -> Result<(), String> {
        if usize::from(g) >= t.groups.len() {
            return Err(format!(
                "{at}: group {g} does not exist ({} groups)",
                t.groups.len()
            ));
        }
        Ok(())
    };
    let port = |p: u16, at: &str| -> Result<(), String> {
        if usize::from(p) >= ports {
            return Err(format!("{at}: port {p} does not exist (0..{ports})"));
        }
        if t.ports[usize::from(p)].dir == PortDir::In {
            return Err(format!("{at}: port {p} is receive-only (in)"));
        }
        Ok(())
    };
    if let Some(s) = &t.sliced {
        if s.level == 0 || s.level > s.levels {
            return Err(format!(
                "sliced.level {} is not in 1..={} (sliced.levels)",
                s.level, s.levels
            ));
        }
        if s.a > 32 || s.b > 32 {
            return Err(format!(
                "sliced label widths a = {}, b = {}: at most 32 bits each",
                s.a, s.b
            ));
        }
        for (k, v) in [
            ("label_shift", s.label_shift),
            ("zone_shift", s.zone_shift),
            ("znode_shift", s.znode_shift),
            ("addr_bits", s.addr_bits),
        ] {
            if v > 64 {
                return Err(format!("sliced.{k} = {v}: more than 64 bits"));
            }
        }
        if s.m == 0 || s.sid >= s.m {
            return Err(format!(
                "sliced.sid {} must be below sliced.m {} (m ≥ 1)",
                s.sid, s.m
            ));
        }
        if s.down.len() as u64 > u64::from(s.z) || s.side.len() as u64 > u64::from(s.m) {
            return Err(format!(
                "sliced: {} down entries for z = {} or {} side entries for m = {}",
                s.down.len(),
                s.z,
                s.side.len(),
                s.m
            ));
        }
        if let Some(g) = s.up {
            group(g, "sliced.up")?;
        }
        for (c, g) in s.down.iter().enumerate() {
            if let Some(g) = g {
                group(*g, &format!("sliced.down[{c}]"))?;
            }
        }
        for (k, g) in s.side.iter().enumerate() {
            if let Some(g) = g {
                group(*g, &format!("sliced.side[{k}]"))?;
            }
        }
    }
    if let Some(tr) = &t.transit {
        if ports != 2 * RN1_PORTS {
            return Err(format!(
                "transit tables need {} ports (inputs 0..8, outputs 8..16), the switch has {ports}",
                2 * RN1_PORTS
            ));
        }
        // decode the configuration again and compare: catches bad rotations, unequal
        // dilated outputs and directions that disagree with the configuration
        let mut scratch = t.clone();
        scratch.groups.clear();
        let fresh = TransitTable::new(tr.config, &mut scratch)
            .map_err(|e| format!("transit.config: {e}"))?;
        for half in 0..2 {
            for d in 0..4 {
                let at = format!("transit.dirs[{half}][{d}]");
                let given = tr.dirs[half][d];
                let want = fresh.dirs[half][d];
                let ports_of = |target: DirTarget, groups: &[Vec<u16>]| -> Option<Vec<u16>> {
                    match target {
                        DirTarget::None => Some(vec![]),
                        DirTarget::Port(p) => Some(vec![p]),
                        DirTarget::Group(g) => groups.get(usize::from(g)).cloned(),
                    }
                };
                match given.target {
                    DirTarget::Port(p) => port(p, &at)?,
                    DirTarget::Group(g) => group(g, &at)?,
                    DirTarget::None => {}
                }
                let g1 = ports_of(given.target, &t.groups);
                let g2 = ports_of(want.target, &scratch.groups);
                if g1 != g2 || (given.rot, given.delay) != (want.rot, want.delay) {
                    return Err(format!(
                        "{at}: {:?} does not match transit.config (which gives outputs {:?}, rotation {}, delay {})",
                        given,
                        g2.unwrap_or_default()
                            .iter()
                            .map(|p| p - OUT_BASE)
                            .collect::<Vec<_>>(),
                        want.rot,
                        want.delay
                    ));
                }
            }
        }
    }
    if let Some(pt) = &t.pathid {
        let action = |a: Action, at: &str| match a {
            Action::Port(p) => port(p, at),
            Action::Group(g) => group(g, at),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_computed_table_of_several_fabrics_validates() {
        for (spec, kind) in [
            ("fat-tree:k=4", Kind::Sliced),
            ("fat-tree:k=4", Kind::PathId),
            ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced),
            ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
            ("vl2:da=8;di=4;servers=2", Kind::PathId),
        ] {
            let t = topology::build_str(spec).unwrap();
            for st in kinds::tables(&t, kind).unwrap() {
                validate(&st, st.ports.len()).unwrap_or_else(|e| panic!("{spec} {}: {e}", st.name));
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
        let e = validate(&good, 3).unwrap_err();
        assert!(e.contains("4 ports but the switch has 3"), "{e}");
        let mut t = good.clone();
        t.groups[0].push(9);
        assert!(validate(&t, 4)
            .unwrap_err()
            .contains("groups[0] has port 9"));
        let mut t = good.clone();
        t.groups.push(vec![]);
        assert!(validate(&t, 4).unwrap_err().contains("is empty"));
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().up = Some(77);
        assert!(validate(&t, 4).unwrap_err().contains("sliced.up: group 77"));
        let mut t = good.clone();
        t.sliced.as_mut().unwrap().label_shift = 200;
        assert!(validate(&t, 4).unwrap_err().contains("label_shift"));
        let mut t = good;
        t.sliced.as_mut().unwrap().level = 9;
        assert!(validate(&t, 4).unwrap_err().contains("sliced.level"));
    }

    #[test]
    fn transit_dirs_must_match_config() {
        let t = topology::build_str("transit-hybrid:leaf=12;layers=1").unwrap();
        let mut st = kinds::tables(&t, Kind::Transit).unwrap().remove(0);
        validate(&st, 16).unwrap();
        let tr = st.transit.as_mut().unwrap();
        tr.config.outputs[0].rot = 7;
        let e = validate(&st, 16).unwrap_err();
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
        let (k, w) = load(&src).unwrap_err();
        assert_eq!(k, "tables.switch");
        assert!(w.contains("edge-p0-e0"), "{w}");
    }
}
