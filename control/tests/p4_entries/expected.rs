//! What a replayed [`Model`] must hold for a switch, worked out from the switch's tables
//! alone (not from the generator's code), and the LPM lookup a target does.

use std::collections::BTreeMap;

use canopy_dataplane::table::pathid::Action as PidAction;
use canopy_dataplane::table::transit::{DirTarget, Rn1Mode};
use canopy_dataplane::table::{PortDir, PortRole, SwitchTables};
use rand::Rng;

use crate::replay::{Lpm, Model, Target};

fn tgt_group(g: u16) -> Target {
    Target::Group(u64::from(g))
}

/// What the replayed model must hold for `sw` (independent of the generator's code).
pub(crate) fn check_model(sw: &SwitchTables, m: &Model, what: &str) {
    let ctx = format!("{} ({what})", sw.name);
    check_ports_and_groups(sw, m, &ctx);
    check_sliced(sw, m, &ctx);
    check_transit(sw, m, &ctx);
    check_pathid(sw, m, &ctx);
}

/// Every receive-capable port with its role (transmit-only ports absent), and every group
/// with exactly its ports.
fn check_ports_and_groups(sw: &SwitchTables, m: &Model, ctx: &str) {
    // every receive-capable port with its role; transmit-only ports absent
    let mut want_ports = BTreeMap::new();
    for (i, p) in sw.ports.iter().enumerate() {
        if p.dir == PortDir::Out {
            continue;
        }
        let role = match p.role {
            PortRole::Up => 0,
            PortRole::Down => 1,
            PortRole::Side => 2,
        };
        let swallow = sw
            .transit
            .as_ref()
            .map(|t| i < 8 && t.config.swallow[i])
            .unwrap_or(false);
        want_ports.insert(i as u64, (role, u64::from(swallow)));
    }
    assert_eq!(m.ports, want_ports, "{ctx}: ports");
    // every group, with exactly its ports
    let want_groups: BTreeMap<u64, Option<Vec<u64>>> = sw
        .groups
        .iter()
        .enumerate()
        .map(|(g, ps)| {
            let v = if ps.is_empty() {
                None
            } else {
                Some(ps.iter().map(|&p| u64::from(p)).collect())
            };
            (g as u64, v)
        })
        .collect();
    assert_eq!(m.groups, want_groups, "{ctx}: groups");
}

/// The sliced configuration and the down and side labels' groups.
fn check_sliced(sw: &SwitchTables, m: &Model, ctx: &str) {
    match &sw.sliced {
        Some(t) => {
            let cfg = m.sliced_cfg.as_ref().expect("sliced_cfg default");
            let want = vec![
                t.mode as u64,
                u64::from(t.level),
                u64::from(t.sid),
                u64::from(t.m),
                u64::from(t.a),
                u64::from(t.b),
                u64::from(t.z),
                u64::from(t.label_shift),
                u64::from(t.zone_shift),
                u64::from(t.znode_shift),
                u64::from(t.addr_bits),
                t.zone,
                u64::from(t.up.is_some()),
                u64::from(t.up.unwrap_or(0)),
            ];
            assert_eq!(cfg, &want, "{ctx}: sliced_cfg");
            let down: BTreeMap<u64, Target> = t
                .down
                .iter()
                .enumerate()
                .filter_map(|(c, g)| g.map(|g| (c as u64, tgt_group(g))))
                .collect();
            assert_eq!(m.sliced_down, down, "{ctx}: sliced_down");
            let side: BTreeMap<u64, Target> = t
                .side
                .iter()
                .enumerate()
                .filter_map(|(k, g)| g.map(|g| (k as u64, tgt_group(g))))
                .collect();
            assert_eq!(m.sliced_side, side, "{ctx}: sliced_side");
        }
        None => {
            assert!(m.sliced_cfg.is_none() && m.sliced_down.is_empty() && m.sliced_side.is_empty())
        }
    }
}

/// The Transit mode and every direction with a target.
fn check_transit(sw: &SwitchTables, m: &Model, ctx: &str) {
    match &sw.transit {
        Some(t) => {
            let split = t.config.mode == Rn1Mode::Split;
            assert_eq!(m.transit_split, Some(u64::from(split)), "{ctx}");
            let mut want = BTreeMap::new();
            for half in 0..if split { 2 } else { 1 } {
                for d in 0..4 {
                    let e = t.dirs[half][d];
                    let tg = match e.target {
                        DirTarget::None => continue,
                        DirTarget::Port(p) => Target::Port(u64::from(p)),
                        DirTarget::Group(g) => tgt_group(g),
                    };
                    want.insert(
                        (half as u64, d as u64),
                        (tg, u64::from(e.rot), u64::from(e.delay)),
                    );
                }
            }
            assert_eq!(m.transit_dir, want, "{ctx}: transit_dir");
        }
        None => assert!(m.transit_split.is_none() && m.transit_dir.is_empty()),
    }
}

/// The path-ID leaf flag, one LPM entry per prefix and every host label.
fn check_pathid(sw: &SwitchTables, m: &Model, ctx: &str) {
    match &sw.pathid {
        Some(t) => {
            assert_eq!(m.pathid_leaf, Some(u64::from(t.leaf)), "{ctx}");
            assert_eq!(m.lpm.len(), t.entries().len(), "{ctx}: one LPM entry each");
            for e in t.entries() {
                let len = u32::from(e.len);
                let (v, mask) = if len == 0 {
                    (0, 0)
                } else {
                    (e.value << (64 - len), u64::MAX << (64 - len))
                };
                let tg = match e.action {
                    PidAction::Port(p) => Target::Port(u64::from(p)),
                    PidAction::Group(g) => tgt_group(g),
                };
                assert!(
                    m.lpm.iter().any(|l| (l.0, l.1, l.2, l.3, l.5, l.6)
                        == (v, mask, u64::from(e.len), 64, u64::from(e.down), tg)),
                    "{ctx}: LPM entry {:#x}/{} missing",
                    e.value,
                    e.len
                );
            }
            let hosts: BTreeMap<u64, Target> = t
                .hosts()
                .iter()
                .map(|h| {
                    let tg = match h.action {
                        PidAction::Port(p) => Target::Port(u64::from(p)),
                        PidAction::Group(g) => tgt_group(g),
                    };
                    (u64::from(h.label), tg)
                })
                .collect();
            assert_eq!(m.hosts, hosts, "{ctx}: hosts");
        }
        None => assert!(m.pathid_leaf.is_none() && m.lpm.is_empty() && m.hosts.is_empty()),
    }
}

/// The ternary+range lookup as a target does it: among matching entries, the best
/// priority (`min_wins` for bmv2's own API, max for P4Runtime).
fn lpm_lookup(lpm: &[Lpm], id: u64, id_len: u64, min_wins: bool) -> Option<(u64, Target)> {
    let hits = lpm
        .iter()
        .filter(|l| id & l.1 == l.0 && (l.2..=l.3).contains(&id_len));
    let best = if min_wins {
        hits.min_by_key(|l| l.4)
    } else {
        hits.max_by_key(|l| l.4)
    };
    best.map(|l| (l.5, l.6))
}

pub(crate) fn check_lpm_semantics(
    sw: &SwitchTables,
    m: &Model,
    min_wins: bool,
    rng: &mut impl Rng,
) {
    let Some(t) = &sw.pathid else { return };
    let mut probes: Vec<(u64, u8)> = Vec::new();
    // every entry's own prefix at its length and longer, plus random IDs
    for e in t.entries() {
        for extra in 0..3u8 {
            let len = (e.len + extra).clamp(1, 64);
            let base = if e.len == 0 {
                0
            } else {
                e.value << (64 - u32::from(e.len))
            };
            let noise: u64 = rng.gen();
            let keep = if len >= 64 {
                u64::MAX
            } else {
                !(u64::MAX >> len)
            };
            probes.push(((base | (noise & !base_mask(e.len))) & keep, len));
            // shorter than the entry: must not match it
            if e.len > 1 {
                let l = e.len - 1;
                probes.push((base & !(u64::MAX >> l), l));
            }
        }
    }
    for _ in 0..200 {
        let len: u8 = rng.gen_range(1..=8);
        let id: u64 = rng.gen::<u64>() & !(u64::MAX >> len);
        probes.push((id, len));
    }
    for (id, len) in probes {
        let want = t.lookup(id, len).map(|e| {
            let tg = match e.action {
                PidAction::Port(p) => Target::Port(u64::from(p)),
                PidAction::Group(g) => tgt_group(g),
            };
            (u64::from(e.down), tg)
        });
        let got = lpm_lookup(&m.lpm, id, u64::from(len), min_wins);
        assert_eq!(got, want, "{}: id {id:#x}/{len}", sw.name);
    }
}

fn base_mask(len: u8) -> u64 {
    if len == 0 {
        0
    } else {
        u64::MAX << (64 - u32::from(len))
    }
}
