//! [`P4State::tables`]: the switch's tables from what its P4 tables hold.

use super::*;

/// Where a `to_group`, `to_port`, `dir_*` or `pid_*` action sends a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Port(u16),
    Group(u16),
}

/// The target of `c`, whose port or group parameter is at `at`: `to_group`/`dir_group`/
/// `pid_group` name a group, the others a port. `None` for `miss`.
fn target(c: &ActionCall, at: usize) -> Option<Target> {
    let v = *c.params.get(at)? as u16;
    Some(match c.action {
        "to_group" | "dir_group" | "pid_group" => Target::Group(v),
        _ => Target::Port(v),
    })
}

fn exact(k: &EntryKey, i: usize) -> u64 {
    match k.fields.get(i) {
        Some(FieldMatch::Exact(v)) => *v,
        _ => 0,
    }
}

impl P4State {
    /// The tables of switch `name` with `ports` ports that forward as the program does
    /// with this state (`docs/p4runtime.md`): every port without a `canopy_port` entry is
    /// transmit-only (arrivals drop `bad_ingress`, the program's `port_unknown`); a group
    /// is its `fwd_member` ports in bucket order, empty (drops `no_port`, the program's
    /// `group_empty`) until `fwd_group` gives it a size; a kind whose configuration table
    /// keeps its `*_off` default is not configured. Ports past `ports` in an entry are
    /// refused, as is a path-ID table that does not build.
    pub fn tables(&self, name: &str, ports: usize) -> Result<SwitchTables, StateError> {
        let transit_cfg = self.default_of("transit_cfg");
        let transit = transit_cfg.action == "set_transit_cfg";
        let mut t = SwitchTables::new(name, self.ports(ports, transit)?);
        t.groups = self.groups(ports)?;
        let sliced = self.default_of("sliced_cfg");
        if sliced.action == "set_sliced_cfg" {
            t.sliced = Some(self.sliced(&sliced.params));
        }
        if transit {
            t.transit = Some(self.transit(transit_cfg.params[0] == 1, &t.ports, ports)?);
        }
        let pathid = self.default_of("pathid_cfg");
        if pathid.action == "set_pathid_cfg" {
            t.pathid = Some(self.pathid(pathid.params[0] == 1)?);
        }
        let ngroups = t.groups.len();
        // every group an action names exists (empty unless fwd_group sized it)
        let mut most = ngroups;
        for (name, at) in [
            ("sliced_down", 0),
            ("sliced_side", 0),
            ("transit_dir", 0),
            ("pathid_lpm", 1),
            ("pathid_host", 0),
        ] {
            for c in self.table(name).values() {
                if let Some(Target::Group(g)) = target(c, at) {
                    most = most.max(usize::from(g) + 1);
                }
                if let Some(Target::Port(p)) = target(c, at) {
                    port_in_range(name, p, ports)?;
                }
            }
        }
        if let Some(s) = &t.sliced {
            if let Some(g) = s.up {
                most = most.max(usize::from(g) + 1);
            }
        }
        t.groups.resize(most, Vec::new());
        Ok(t)
    }

    /// `canopy_port`: the role of each receiving port.
    fn ports(&self, ports: usize, transit: bool) -> Result<Vec<PortConfig>, StateError> {
        let out = PortConfig {
            role: PortRole::Down,
            dir: PortDir::Out,
        };
        let mut v = vec![out; ports];
        for (k, c) in self.table("canopy_port") {
            let p = exact(k, 0);
            port_in_range("canopy_port", p as u16, ports)?;
            if c.action != "set_port_info" {
                continue;
            }
            let role = match c.params[0] {
                0 => PortRole::Up,
                1 => PortRole::Down,
                2 => PortRole::Side,
                r => {
                    return Err(StateError::Unsupported {
                        table: "canopy_port",
                        what: format!("role {r} is not a port role (0 up, 1 down, 2 side)"),
                    })
                }
            };
            let dir = if transit && p < u64::from(OUT_BASE) {
                PortDir::In
            } else {
                PortDir::Duplex
            };
            v[p as usize] = PortConfig { role, dir };
        }
        Ok(v)
    }

    /// `fwd_group` and `fwd_member`: each group's ports in bucket order.
    fn groups(&self, ports: usize) -> Result<Vec<Vec<u16>>, StateError> {
        let sizes = self.table("fwd_group");
        let members = self.table("fwd_member");
        let most = sizes
            .keys()
            .map(|k| exact(k, 0))
            .chain(members.keys().map(|k| exact(k, 0)))
            .max()
            .map_or(0, |g| g as usize + 1);
        let mut groups = vec![Vec::new(); most];
        for (k, c) in sizes {
            if c.action != "set_group" {
                continue;
            }
            let g = exact(k, 0);
            let size = c.params[0];
            let lo = EntryKey {
                fields: vec![FieldMatch::Exact(g), FieldMatch::Exact(0)],
                priority: 0,
            };
            for (mk, mc) in members.range(lo..) {
                let (mg, bucket) = (exact(mk, 0), exact(mk, 1));
                if mg != g || bucket >= size {
                    break;
                }
                if let Some(Target::Port(p)) = target(mc, 0).filter(|_| mc.action != "miss") {
                    port_in_range("fwd_member", p, ports)?;
                    groups[g as usize].push(p);
                }
            }
        }
        Ok(groups)
    }

    /// `sliced_cfg`'s parameters and the down and side labels' groups.
    fn sliced(&self, p: &[u64]) -> SlicedTable {
        let labels = |name: &str| {
            let m = self.table(name);
            let len = m.keys().map(|k| exact(k, 0) + 1).max().unwrap_or(0) as usize;
            let mut v = vec![None; len];
            for (k, c) in m {
                if let Some(Target::Group(g)) = target(c, 0) {
                    v[exact(k, 0) as usize] = Some(g);
                }
            }
            v
        };
        let level = p[1] as u8;
        SlicedTable {
            // checked when it was set
            mode: Mode::from_code(p[0] as u8).unwrap_or_default(),
            level,
            // the program has no use for it; neither has a switch's decision
            levels: level,
            sid: p[2] as u32,
            m: p[3] as u32,
            a: p[4] as u8,
            b: p[5] as u8,
            z: p[6] as u32,
            label_shift: p[7] as u8,
            zone_shift: p[8] as u8,
            znode_shift: p[9] as u8,
            addr_bits: p[10] as u8,
            zone: p[11],
            up: (p[12] == 1).then_some(p[13] as u16),
            down: labels("sliced_down"),
            side: labels("sliced_side"),
        }
    }

    /// `transit_cfg` and `transit_dir`: the directions, each output's link as its
    /// direction gives it, each input's swallow flag from `canopy_port`.
    fn transit(
        &self,
        split: bool,
        portcfg: &[PortConfig],
        ports: usize,
    ) -> Result<TransitTable, StateError> {
        let mode = if split {
            Rn1Mode::Split
        } else {
            Rn1Mode::Dilated
        };
        let mut config = Rn1Config {
            mode,
            ..Rn1Config::default()
        };
        for (k, c) in self.table("canopy_port") {
            let p = exact(k, 0) as usize;
            if c.action == "set_port_info" && p < RN1_PORTS && portcfg[p].dir != PortDir::Out {
                config.swallow[p] = c.params[1] == 1;
            }
        }
        let mut dirs = [[DirEntry::default(); 4]; 2];
        for (k, c) in self.table("transit_dir") {
            let (half, d) = (exact(k, 0) as usize, exact(k, 1) as usize);
            let (rot, delay) = match c.params.as_slice() {
                [_, rot, delay] => (*rot as u8, *delay as u8),
                _ => continue, // miss
            };
            let tgt = match target(c, 0) {
                Some(Target::Port(p)) => {
                    port_in_range("transit_dir", p, ports)?;
                    DirTarget::Port(p)
                }
                Some(Target::Group(g)) => DirTarget::Group(g),
                None => continue,
            };
            dirs[half][d] = DirEntry {
                target: tgt,
                rot,
                delay,
            };
            // the outputs this direction uses carry its link
            for o in config.dir_outputs(half, d).into_iter().flatten() {
                if let Some(oc) = config.outputs.get_mut(usize::from(o)) {
                    *oc = OutputCfg {
                        connected: true,
                        rot,
                        delay,
                    };
                }
            }
        }
        if !split {
            // dilated: every input is in half 0 (the program's `tr_half` is 0), and the
            // switch's table keeps half 1 the same, as `TransitTable::new` makes it
            dirs[1] = dirs[0];
        }
        Ok(TransitTable { config, dirs })
    }

    /// `pathid_cfg`, `pathid_lpm` and `pathid_host`.
    fn pathid(&self, leaf: bool) -> Result<PathIdTable, StateError> {
        let action = |c: &ActionCall, at: usize| match target(c, at) {
            Some(Target::Group(g)) => Some(PidAction::Group(g)),
            Some(Target::Port(p)) => Some(PidAction::Port(p)),
            None => None,
        };
        let mut entries = Vec::new();
        for (k, c) in self.table("pathid_lpm") {
            let Some(FieldMatch::Ternary { value, mask }) = k.fields.first().copied() else {
                continue;
            };
            let (Some(len), Some(a)) = (prefix_len(mask), action(c, 1)) else {
                continue; // a miss entry, or a key the state refused
            };
            entries.push(LpmEntry {
                value: if len == 0 { 0 } else { value >> (64 - len) },
                len,
                down: c.params[0] == 1,
                action: a,
            });
        }
        let mut hosts = Vec::new();
        for (k, c) in self.table("pathid_host") {
            if let Some(a) = action(c, 0) {
                hosts.push(HostEntry {
                    label: exact(k, 0) as u32,
                    action: a,
                });
            }
        }
        PathIdTable::new(0, leaf, hosts, entries).map_err(|e| StateError::Unsupported {
            table: "pathid_lpm",
            what: e.to_string(),
        })
    }
}

/// A port an entry names must be one of the switch's.
fn port_in_range(table: &'static str, p: u16, ports: usize) -> Result<(), StateError> {
    if usize::from(p) < ports {
        Ok(())
    } else {
        Err(StateError::Unsupported {
            table,
            what: format!("port {p}: the switch has {ports} ports"),
        })
    }
}
