//! Pruning after failures, first version: a dead port (or a port whose peer port or
//! peer switch is dead) is removed from every group that keeps another member. The
//! fabric-wide rule (switches that can no longer deliver are avoided too) replaces it.
use crate::topology::{Peer, Topology};
use canopy_dataplane::table::SwitchTables;
use std::collections::BTreeSet;
/// Dead things.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    /// dead switches
    pub dead_switches: BTreeSet<u32>,
    /// dead ports
    pub dead_ports: BTreeSet<(u32, u16)>,
}
/// Pruned.
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    /// tables
    pub tables: Vec<SwitchTables>,
    /// pruned
    pub pruned: Vec<Vec<u16>>,
    /// warnings
    pub warnings: Vec<String>,
}
/// prune
pub fn prune(topo: &Topology, base: &[SwitchTables], f: &Faults) -> Pruned {
    let mut tables = base.to_vec();
    let mut pruned = vec![vec![]; base.len()];
    for (i, t) in tables.iter_mut().enumerate() {
        let dead = |p: u16| {
            let sw = &topo.switches[i];
            f.dead_switches.contains(&(i as u32))
                || f.dead_ports.contains(&(i as u32, p))
                || match sw.ports[usize::from(p)].peer {
                    Peer::Switch { sw, port } => {
                        f.dead_switches.contains(&sw) || f.dead_ports.contains(&(sw, port))
                    }
                    _ => false,
                }
        };
        for g in t.groups.iter_mut() {
            let keep: Vec<u16> = g.iter().copied().filter(|&p| !dead(p)).collect();
            if !keep.is_empty() && keep.len() < g.len() {
                for p in g.iter() {
                    if dead(*p) {
                        pruned[i].push(*p);
                    }
                }
                *g = keep;
            }
        }
        pruned[i].sort();
        pruned[i].dedup();
    }
    Pruned {
        tables,
        pruned,
        warnings: vec![],
    }
}
