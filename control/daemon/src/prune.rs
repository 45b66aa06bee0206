//! Fabric-wide pruning of equivalence groups after failures (`docs/failover.md`).
//!
//! A switch skips its own dead ports (the engine's `PortState::live`), but it cannot
//! know that a *live* link leads to a switch that can no longer deliver. [`prune`] takes
//! the fault-free tables and the set of dead switches and ports, and removes from every
//! group the members that lead into trouble, using three per-switch predicates:
//!
//! * a port is **dead** when it, its peer port, its switch or its peer switch is dead;
//! * a switch is **down-whole** when every down equivalence class (role `Down`, same
//!   `group`) has a member that is live and leads to a host or to a down-whole switch;
//!   it is **whole** when, in addition, every side class has a live member leading to a
//!   down-whole switch (a frame takes at most one side hop and then only goes down, so
//!   side links never make the definition cyclic);
//! * a switch is **good** (as an up-target) when it is whole and it has no up links or
//!   one of its up ports is live and leads to a good switch.
//!
//! A group member is *bad* when it is dead, or leads down/sideways to a switch that is
//! not down-whole, or leads up to a switch that is not good. Bad members are removed;
//! a group is never emptied (its live members, or the group unchanged, stay, with a
//! warning). Every predicate is a least fixed point computed by repeated passes, so a
//! graph with cycles terminates and a cycle with no grounding counts as broken.
//!
//! A class behind which no host is reachable any more (a dead host link, a dead leaf
//! switch, a leaf cut off from every top switch) never makes its switch broken: nobody
//! can deliver there, so that is a warning, not a reason to avoid the switch for its
//! other destinations. "Reachable" is by live down links from a live top switch (one
//! without up links).
//!
//! Switches with one-way ports (Transit RN1 stages) only lose their dead members: their
//! routes are source-chosen directions and rotations, see `docs/failover.md`.

use canopy_control::topology::{Peer, PortDir, PortRole, Topology};
use canopy_dataplane::table::SwitchTables;
use std::collections::{BTreeMap, BTreeSet};

/// Dead things, by topology index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    /// Switches that do not answer (every link of theirs is dead).
    pub dead_switches: BTreeSet<u32>,
    /// Ports that are down (link down or admin down) — (switch index, port). A link is
    /// dead if either end is.
    pub dead_ports: BTreeSet<(u32, u16)>,
}

impl Faults {
    /// No faults at all.
    pub fn is_empty(&self) -> bool {
        self.dead_switches.is_empty() && self.dead_ports.is_empty()
    }
}

/// Result of [`prune`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    /// Tables to push, index = switch index: `base` with ports removed from their groups.
    pub tables: Vec<SwitchTables>,
    /// Per switch, the ports removed from at least one group (sorted).
    pub pruned: Vec<Vec<u16>>,
    /// Human-readable degradations: groups left unchanged because every member was bad,
    /// destinations that can no longer be reached, etc.
    pub warnings: Vec<String>,
}

/// The per-switch predicates of the module docs under one set of faults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// Per switch, per port: dead (the port, its peer port, or either switch is dead).
    pub dead: Vec<Vec<bool>>,
    /// Per host: still reachable by live down links from some live top switch.
    pub host_live: Vec<bool>,
    /// Per switch: a switch with one-way ports (Transit), judged by dead ports only.
    pub directional: Vec<bool>,
    /// Per switch: every down class can still deliver.
    pub down_whole: Vec<bool>,
    /// Per switch: down-whole and every side class can still deliver.
    pub whole: Vec<bool>,
    /// Per switch: whole, with a working way up where it has up links.
    pub good: Vec<bool>,
}

impl Health {
    /// Compute the predicates of `topo` under `faults` (indices outside the topology are
    /// ignored).
    pub fn new(topo: &Topology, faults: &Faults) -> Health {
        let n = topo.switches.len();
        let alive = |i: usize| !faults.dead_switches.contains(&(i as u32));
        let dead = dead_ports(topo, faults);
        let directional: Vec<bool> = topo
            .switches
            .iter()
            .map(|s| s.ports.iter().any(|p| p.dir != PortDir::Duplex))
            .collect();
        let classes: Vec<Classes> = topo.switches.iter().map(Classes::of).collect();
        // Visit order: by level, so a down-directed fixed point usually settles in one pass.
        let mut up_order: Vec<usize> = (0..n).collect();
        up_order.sort_by_key(|&i| (topo.switches[i].level, i));
        let down_order: Vec<usize> = up_order.iter().rev().copied().collect();

        let host_live = host_live(topo, &dead, &directional, &classes, alive);
        // live_below[x]: some host of x's fault-free subtree is still reachable.
        let live_below = least_fixed_point(n, &up_order, |i, live_below| {
            classes[i].down.values().flatten().any(|m| {
                match topo.switches[i].ports[usize::from(*m)].peer {
                    Peer::Switch { sw, .. } => live_below[sw as usize],
                    Peer::Host { host, .. } => host_live.get(host as usize) == Some(&true),
                    Peer::None => false,
                }
            })
        });
        let reach = Reach {
            topo,
            dead: &dead,
            host_live: &host_live,
            live_below: &live_below,
        };

        let down_whole = least_fixed_point(n, &up_order, |i, down_whole| {
            alive(i)
                && (directional[i]
                    || classes[i]
                        .down
                        .values()
                        .all(|m| reach.class_ok(i, m, &|o| down_whole[o])))
        });
        let whole: Vec<bool> = (0..n)
            .map(|i| {
                down_whole[i]
                    && (directional[i]
                        || classes[i]
                            .side
                            .values()
                            .all(|m| reach.class_ok(i, m, &|o| down_whole[o])))
            })
            .collect();
        let good = least_fixed_point(n, &down_order, |i, good| {
            let ups = &classes[i].up;
            whole[i]
                && (directional[i]
                    || ups.is_empty()
                    || ups.iter().any(|&p| {
                        !dead[i][usize::from(p)]
                            && matches!(topo.switches[i].ports[usize::from(p)].peer,
                                Peer::Switch { sw, .. } if good[sw as usize])
                    }))
        });
        Health {
            dead,
            host_live,
            directional,
            down_whole,
            whole,
            good,
        }
    }

    /// Whether port `port` of switch `sw` is dead (false outside the topology).
    pub fn port_dead(&self, sw: u32, port: u16) -> bool {
        self.dead
            .get(sw as usize)
            .and_then(|v| v.get(usize::from(port)))
            .copied()
            .unwrap_or(false)
    }

    /// Why member `port` of a group on switch `sw` must go, or `None` when it may stay.
    pub fn bad(&self, topo: &Topology, sw: u32, port: u16) -> Option<&'static str> {
        let s = topo.switches.get(sw as usize)?;
        let p = s.ports.get(usize::from(port))?;
        if self.port_dead(sw, port) {
            return Some("dead");
        }
        if self.directional[sw as usize] {
            return None;
        }
        let Peer::Switch { sw: o, .. } = p.peer else {
            return None;
        };
        let o = o as usize;
        match p.role {
            PortRole::Down | PortRole::Side if !self.down_whole[o] => {
                Some("leads to a switch that cannot deliver downwards")
            }
            PortRole::Up if !self.good[o] => Some("leads up to a switch that is not good"),
            _ => None,
        }
    }
}

/// A switch's duplex ports grouped into equivalence classes.
struct Classes {
    down: BTreeMap<u32, Vec<u16>>,
    side: BTreeMap<u32, Vec<u16>>,
    up: Vec<u16>,
}

impl Classes {
    fn of(s: &canopy_control::topology::Switch) -> Classes {
        let mut c = Classes {
            down: BTreeMap::new(),
            side: BTreeMap::new(),
            up: Vec::new(),
        };
        for (pi, p) in s.ports.iter().enumerate() {
            if p.dir != PortDir::Duplex || p.peer == Peer::None {
                continue;
            }
            let pi = pi as u16;
            match p.role {
                PortRole::Down => c.down.entry(p.group).or_default().push(pi),
                PortRole::Side => c.side.entry(p.group).or_default().push(pi),
                PortRole::Up => {
                    if matches!(p.peer, Peer::Switch { .. }) {
                        c.up.push(pi)
                    }
                }
            }
        }
        c
    }
}

/// Per switch, per port: the port, its peer port, its switch or its peer switch is dead.
fn dead_ports(topo: &Topology, faults: &Faults) -> Vec<Vec<bool>> {
    let sw_dead = |s: u32| faults.dead_switches.contains(&s);
    topo.switches
        .iter()
        .enumerate()
        .map(|(si, s)| {
            let si = si as u32;
            s.ports
                .iter()
                .enumerate()
                .map(|(pi, p)| {
                    sw_dead(si)
                        || faults.dead_ports.contains(&(si, pi as u16))
                        || match p.peer {
                            Peer::Switch { sw, port } => {
                                sw_dead(sw) || faults.dead_ports.contains(&(sw, port))
                            }
                            Peer::Host { .. } | Peer::None => false,
                        }
                })
                .collect()
        })
        .collect()
}

/// Hosts the fabric can still reach at all: by live down links from a live top switch
/// (one without up links). A class whose hosts are all unreachable has nothing left to
/// deliver, so it does not count against its switch. Hosts of one-way (Transit) stages
/// are not judged (always live).
fn host_live(
    topo: &Topology,
    dead: &[Vec<bool>],
    directional: &[bool],
    classes: &[Classes],
    alive: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let n = topo.switches.len();
    let mut host_live = vec![false; topo.hosts.len()];
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = (0..n)
        .filter(|&i| alive(i) && !directional[i] && classes[i].up.is_empty())
        .collect();
    for &i in &stack {
        seen[i] = true;
    }
    while let Some(i) = stack.pop() {
        for m in classes[i].down.values().flatten() {
            if dead[i][usize::from(*m)] {
                continue;
            }
            match topo.switches[i].ports[usize::from(*m)].peer {
                Peer::Switch { sw, .. } if !seen[sw as usize] => {
                    seen[sw as usize] = true;
                    stack.push(sw as usize);
                }
                Peer::Host { host, .. } => {
                    if let Some(h) = host_live.get_mut(host as usize) {
                        *h = true;
                    }
                }
                _ => {}
            }
        }
    }
    for (hi, h) in topo.hosts.iter().enumerate() {
        if h.ports.iter().any(|p| {
            matches!(p.peer, Peer::Switch { sw, .. }
                if directional.get(sw as usize) == Some(&true))
        }) {
            host_live[hi] = true;
        }
    }
    host_live
}

/// The least set of switches (out of `n`) for which `holds` is true, by repeated passes
/// in `order` until nothing changes: `holds(i, so_far)` sees the switches found so far,
/// including those found earlier in the same pass.
fn least_fixed_point(
    n: usize,
    order: &[usize],
    mut holds: impl FnMut(usize, &[bool]) -> bool,
) -> Vec<bool> {
    let mut set = vec![false; n];
    loop {
        let mut changed = false;
        for &i in order {
            if !set[i] && holds(i, &set) {
                set[i] = true;
                changed = true;
            }
        }
        if !changed {
            return set;
        }
    }
}

/// What the class predicates read: dead ports and what is still reachable below.
struct Reach<'a> {
    topo: &'a Topology,
    dead: &'a [Vec<bool>],
    host_live: &'a [bool],
    live_below: &'a [bool],
}

impl Reach<'_> {
    /// A class is fine when a member is live and leads to a host or to a switch `ok`
    /// says yes to, or when nothing reachable is left behind it.
    fn class_ok(&self, i: usize, members: &[u16], ok: &dyn Fn(usize) -> bool) -> bool {
        let mut vacuous = true;
        for &p in members {
            let live = !self.dead[i][usize::from(p)];
            match self.topo.switches[i].ports[usize::from(p)].peer {
                Peer::Switch { sw, .. } => {
                    if live && ok(sw as usize) {
                        return true;
                    }
                    vacuous &= !self.live_below[sw as usize];
                }
                Peer::Host { host, .. } => {
                    if live {
                        return true;
                    }
                    vacuous &= self.host_live.get(host as usize) != Some(&true);
                }
                Peer::None => {}
            }
        }
        vacuous
    }
}

/// `base` (index = switch index, as `kinds::tables` returns it) with the members that
/// lead into failures removed from every group; see the module docs for the rules.
/// With no faults the tables come back unchanged. Never panics on inconsistent input:
/// switches, ports or group members outside the topology are left alone (with a warning).
pub fn prune(topo: &Topology, base: &[SwitchTables], faults: &Faults) -> Pruned {
    let h = Health::new(topo, faults);
    let mut warnings = Vec::new();
    let n = topo.switches.len();
    for &s in &faults.dead_switches {
        if s as usize >= n {
            warnings.push(format!(
                "fault names switch {s}, which is not in the topology"
            ));
        }
    }
    for &(s, p) in &faults.dead_ports {
        if topo
            .switches
            .get(s as usize)
            .is_none_or(|x| usize::from(p) >= x.ports.len())
        {
            warnings.push(format!(
                "fault names port {p} of switch {s}, which is not in the topology"
            ));
        }
    }
    if base.len() != n {
        warnings.push(format!(
            "{} tables for {n} switches: the extra ones are passed through",
            base.len()
        ));
    }
    let name = |i: usize| topo.switches[i].name.as_str();
    for i in 0..n {
        if faults.dead_switches.contains(&(i as u32)) {
            continue;
        }
        if !h.whole[i] {
            warnings.push(format!(
                "{}: cannot deliver to every destination below or beside it",
                name(i)
            ));
        } else if !h.good[i] {
            warnings.push(format!("{}: no working way up", name(i)));
        }
    }
    for (hi, alive) in h.host_live.iter().enumerate() {
        if !alive {
            warnings.push(format!(
                "{}: no longer reachable from the top of the fabric",
                topo.host_name(hi as u32)
            ));
        }
    }

    let mut tables = base.to_vec();
    let mut pruned = vec![Vec::new(); tables.len()];
    for (i, t) in tables.iter_mut().enumerate().take(n) {
        if faults.dead_switches.contains(&(i as u32)) {
            // nothing is pushed to a dead switch; it gets fresh tables when it returns
            continue;
        }
        let mut removed = BTreeSet::new();
        for (gi, g) in t.groups.iter_mut().enumerate() {
            let mut keep = Vec::with_capacity(g.len());
            let mut live = Vec::new();
            let mut reasons = BTreeSet::new();
            for &p in g.iter() {
                if usize::from(p) >= topo.switches[i].ports.len() {
                    warnings.push(format!("{}: group {gi} names missing port {p}", name(i)));
                    keep.push(p);
                    continue;
                }
                match h.bad(topo, i as u32, p) {
                    None => keep.push(p),
                    Some(why) => {
                        reasons.insert(why);
                        if !h.port_dead(i as u32, p) {
                            live.push(p);
                        }
                    }
                }
            }
            if keep.len() == g.len() {
                continue;
            }
            let why = reasons.into_iter().collect::<Vec<_>>().join(", ");
            if keep.is_empty() {
                if live.is_empty() {
                    warnings.push(format!(
                        "{}: group {gi} {g:?} left unchanged, every member is dead",
                        name(i)
                    ));
                    continue;
                }
                warnings.push(format!(
                    "{}: group {gi} {g:?} has no good member ({why}); keeping its live members {live:?}",
                    name(i)
                ));
                keep = live;
            }
            for p in g.iter() {
                if !keep.contains(p) {
                    removed.insert(*p);
                }
            }
            *g = keep;
        }
        pruned[i] = removed.into_iter().collect();
    }
    Pruned {
        tables,
        pruned,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_control::kinds;
    use canopy_control::topology::build_str;
    use canopy_dataplane::wire::Kind;

    fn idx(t: &Topology, name: &str) -> u32 {
        t.switch_index(name)
            .unwrap_or_else(|| panic!("no switch {name}")) as u32
    }

    #[test]
    fn healthy_fabric_is_good_everywhere() {
        for spec in [
            "fat-tree:k=4",
            "vl2:da=8;di=4;servers=2",
            "znode:z=3,2,3;m=2",
        ] {
            let t = build_str(spec).unwrap();
            let h = Health::new(&t, &Faults::default());
            assert!(h.good.iter().all(|&g| g), "{spec}");
        }
    }

    #[test]
    fn dead_core_is_removed_from_every_up_group() {
        let t = build_str("fat-tree:k=4").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        let core = t.switches.iter().position(|s| s.level == 3).unwrap() as u32;
        let f = Faults {
            dead_switches: [core].into(),
            ..Default::default()
        };
        let p = prune(&t, &base, &f);
        let mut n = 0;
        for (i, s) in t.switches.iter().enumerate() {
            for (pi, port) in s.ports.iter().enumerate() {
                if matches!(port.peer, Peer::Switch { sw, .. } if sw == core) {
                    assert!(p.pruned[i].contains(&(pi as u16)), "{}", s.name);
                    assert!(p.tables[i].groups.iter().all(|g| !g.contains(&(pi as u16))));
                    n += 1;
                }
            }
        }
        assert_eq!(n, 4);
        assert_eq!(p.pruned.iter().map(Vec::len).sum::<usize>(), 4);
        assert_eq!(p.tables[core as usize], base[core as usize]);
        assert!(
            !p.warnings
                .iter()
                .any(|w| w.contains("every member is dead")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn groups_are_never_emptied() {
        // Kill every up link of an edge switch: its up group has only dead members.
        let t = build_str("fat-tree:k=4").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        let e = t.switches.iter().position(|s| s.level == 1).unwrap();
        let mut f = Faults::default();
        for (pi, p) in t.switches[e].ports.iter().enumerate() {
            if p.role == PortRole::Up {
                f.dead_ports.insert((e as u32, pi as u16));
            }
        }
        let p = prune(&t, &base, &f);
        assert!(p
            .tables
            .iter()
            .all(|t| t.groups.iter().all(|g| !g.is_empty())));
        assert_eq!(p.tables[e].groups, base[e].groups);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.contains("every member is dead")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn out_of_range_faults_and_short_tables_do_not_panic() {
        let t = build_str("fat-tree:k=4").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        let f = Faults {
            dead_switches: [u32::MAX].into(),
            dead_ports: [(0, u16::MAX), (u32::MAX, 0)].into(),
        };
        let p = prune(&t, &base, &f);
        assert_eq!(p.tables, base);
        assert_eq!(p.warnings.len(), 3);
        let p = prune(&t, &base[..3], &Faults::default());
        assert_eq!(p.tables.len(), 3);
        let mut bad = base.clone();
        bad[0].groups.push(vec![999]);
        let p = prune(&t, &bad, &f);
        assert_eq!(p.tables[0].groups.last(), Some(&vec![999]));
    }

    #[test]
    fn a_dead_leaf_or_host_link_only_loses_its_own_hosts() {
        // Nobody can reach the hosts behind them, so no switch becomes "broken" and
        // nothing but the dead ports themselves is pruned.
        let t = build_str("fat-tree:k=4").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        let e = idx(&t, "edge-p1-e0");
        let hp = t.switches[e as usize].host_ports()[0].0 as u16;
        for f in [
            Faults {
                dead_switches: [e].into(),
                ..Default::default()
            },
            Faults {
                dead_ports: [(e, hp)].into(),
                ..Default::default()
            },
        ] {
            let h = Health::new(&t, &f);
            let p = prune(&t, &base, &f);
            for (i, g) in h.good.iter().enumerate() {
                assert_eq!(*g, i as u32 != e || f.dead_switches.is_empty(), "{f:?} {i}");
            }
            let dead_members = (0..t.switches.len())
                .map(|i| {
                    p.pruned[i]
                        .iter()
                        .filter(|&&q| h.port_dead(i as u32, q))
                        .count()
                })
                .sum::<usize>();
            assert_eq!(dead_members, p.pruned.iter().map(Vec::len).sum::<usize>());
            let lost = h.host_live.iter().filter(|&&l| !l).count();
            assert_eq!(
                lost,
                if f.dead_switches.is_empty() { 1 } else { 2 },
                "{f:?}"
            );
            assert!(p.warnings.iter().any(|w| w.contains("no longer reachable")));
        }
    }

    #[test]
    fn worked_example_edge_agg_link_k4() {
        // docs/failover.md: edge-p0-e0 -- agg-p0-a0 dies. agg-p0-a0 can no longer reach
        // edge-p0-e0's hosts, so the cores above it cannot reach pod 0 through their only
        // port into it, so no agg a0 anywhere has a good way up, so every edge drops a0.
        let t = build_str("fat-tree:k=4").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        let (e, a) = (idx(&t, "edge-p0-e0"), idx(&t, "agg-p0-a0"));
        let pe = t.switches[e as usize]
            .ports
            .iter()
            .position(|p| matches!(p.peer, Peer::Switch { sw, .. } if sw == a))
            .unwrap() as u16;
        let f = Faults {
            dead_ports: [(e, pe)].into(),
            ..Default::default()
        };
        let h = Health::new(&t, &f);
        assert!(!h.down_whole[a as usize]);
        for c in ["core-c0", "core-c1"] {
            assert!(!h.down_whole[idx(&t, c) as usize], "{c}");
        }
        for c in ["core-c2", "core-c3"] {
            assert!(h.good[idx(&t, c) as usize], "{c}");
        }
        for pod in 0..4 {
            assert!(!h.good[idx(&t, &format!("agg-p{pod}-a0")) as usize]);
            assert!(h.good[idx(&t, &format!("agg-p{pod}-a1")) as usize]);
        }
        let p = prune(&t, &base, &f);
        // every edge loses its a0 port; aggs a1 lose nothing; aggs a0 keep their live up
        // ports (warned), cores c0/c1 keep their only port into pod 0 (warned).
        for pod in 0..4 {
            for ed in 0..2 {
                let i = idx(&t, &format!("edge-p{pod}-e{ed}")) as usize;
                assert_eq!(p.pruned[i].len(), 1, "edge-p{pod}-e{ed}");
            }
            assert!(p.pruned[idx(&t, &format!("agg-p{pod}-a1")) as usize].is_empty());
        }
        assert_eq!(p.pruned.iter().map(Vec::len).sum::<usize>(), 8);
    }

    #[test]
    fn side_links_in_a_cycle_terminate() {
        // An Snode has side links between Znodes at the same level.
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        let base = kinds::tables(&t, Kind::Sliced).unwrap();
        for s in 0..t.switches.len() as u32 {
            let f = Faults {
                dead_switches: [s].into(),
                ..Default::default()
            };
            let p = prune(&t, &base, &f);
            assert!(p
                .tables
                .iter()
                .all(|t| t.groups.iter().all(|g| !g.is_empty())));
        }
    }
}
