//! Table entries for the Tofino program `p4/canopy_tna.p4` (TNA), from the same
//! [`SwitchTables`] as [`crate::p4::entries`] for `p4/canopy.p4`, written as BF Runtime
//! Python commands (`bfrt_python`, the Tofino counterpart of `simple_switch_CLI`).
//!
//! Where the TNA program differs from the v1model one (docs/p4.md §5):
//! * the sliced configuration is two default actions: `sliced_cfg` (the scalars) and
//!   `sliced_addr` (the addressing, with the zone already shifted into place,
//!   `zone << zone_shift` as two 32-bit halves, and `zone_big`, set when the zone has a bit
//!   at or above `znode_shift - zone_shift`, so that no digit comparison can equal it);
//! * sliced labels, side labels, m, sid and z are at most 32 bits, and there is no entry
//!   for a down label at or above z or a side label at or above m (canopy-switch drops
//!   those before its lookup; the TNA program lets the lookup miss instead);
//! * the groups are the program's `ActionSelector`: one `canopy_prof` member per (group,
//!   port), one `canopy_sel` group per non-empty group, and a `fwd_group` entry per group
//!   (an empty group points at a `group_empty` member);
//! * the ingress port key is `ig_intr_md.ingress_port`; port numbers are written as they
//!   are (a tofino-model port map, `ports.json`, ties them to interfaces).

use std::fmt::Write as _;

use canopy_dataplane::table::sliced::SlicedTable;
use canopy_dataplane::table::SwitchTables;

use super::entries::{sliced_layout, sliced_scalars, Checks};
use super::model::v;
use crate::p4::{self, Call, Match, Op, P4Error, Val};

pub mod const_entries;

/// The program name p4c-barefoot gives `p4/canopy_tna.p4` (the `bfrt.<name>` node).
pub const PROGRAM: &str = "canopy_tna";
/// Largest group the program's `ActionSelector` holds (its `max_group_size`).
pub const MAX_GROUP_SIZE: usize = 16;
/// Groups the selector holds (its `num_groups`).
pub const MAX_GROUPS: usize = 1024;
/// How to write the BF Runtime schema the checks and the tests read.
pub const BFRT_COMMAND: &str = "p4c-barefoot --target tofino --arch tna \
     --bf-rt-schema bfrt.json -o OUTDIR p4/canopy_tna.p4";

/// One programming step for the TNA program, in the order it must be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TnaOp {
    /// A comment line.
    Comment(String),
    /// Set the default action of a keyless table.
    SetDefault {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Action.
        call: Call,
    },
    /// A match-action entry. `priority` for ternary/range tables (lower wins, BF-RT's
    /// `$MATCH_PRIORITY`).
    Add {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Key.
        key: Vec<Match>,
        /// Action.
        call: Call,
        /// `$MATCH_PRIORITY`.
        priority: Option<u32>,
    },
    /// A `canopy_prof` member.
    Member {
        /// `$ACTION_MEMBER_ID`.
        id: u32,
        /// Its action (`set_egress` or `group_empty`).
        call: Call,
    },
    /// A `canopy_sel` group.
    Group {
        /// `$SELECTOR_GROUP_ID`.
        id: u32,
        /// Its members (`$ACTION_MEMBER_ID`), all enabled.
        members: Vec<u32>,
    },
    /// A `fwd_group` entry: `meta.group` to a selector group or (empty group) a member.
    Fwd {
        /// The SwitchTables group id.
        group: Val,
        /// `$SELECTOR_GROUP_ID`, or `$ACTION_MEMBER_ID` when `member`.
        target: u32,
        /// The target is a member (the `group_empty` one), not a group.
        member: bool,
    },
}

/// `zone << zone_shift` as (high, low) halves and whether the zone has a bit at or above
/// `znode_shift - zone_shift` (the width of the digits it is compared with).
pub fn zone_in_place(zone: u64, zone_shift: u8, znode_shift: u8) -> (u32, u32, bool) {
    let placed = zone.checked_shl(u32::from(zone_shift)).unwrap_or(0);
    let width = znode_shift.saturating_sub(zone_shift);
    let big = width < 64 && zone >> width != 0;
    ((placed >> 32) as u32, placed as u32, big)
}

/// Every entry `p4/canopy_tna.p4` needs to forward like `canopy-switch` with `sw`'s tables.
pub fn entries(sw: &SwitchTables) -> Result<Vec<TnaOp>, P4Error> {
    let check = Checks { sw };
    let mut out = vec![TnaOp::Comment(format!(
        "canopy TNA entries for switch {} ({} ports, {} groups); drop counter \
         CanopyIngress.canopy_drops indexed by canopy_dataplane::decide::DROP_REASON_NAMES",
        sw.name,
        sw.ports.len(),
        sw.groups.len()
    ))];
    // ports, Transit and path-ID are the v1model entries with TNA's names
    out.extend(p4::entries(sw)?.into_iter().filter_map(from_v1model));
    groups(&check, &mut out)?;
    if let Some(t) = &sw.sliced {
        sliced(&check, t, &mut out)?;
    }
    Ok(out)
}

/// A v1model entry of the ports, Transit or path-ID as the TNA program takes it (the
/// ingress port key renamed, an LPM-like entry's priority as BF-RT's lower-wins one);
/// `None` for comments and for the groups and sliced tables, which TNA programs its own way.
fn from_v1model(op: Op) -> Option<TnaOp> {
    match op {
        Op::Comment(_) => None,
        Op::SetDefault { table, call } => {
            (table != "sliced_cfg").then_some(TnaOp::SetDefault { table, call })
        }
        Op::Add {
            table,
            key,
            call,
            prefix_len,
        } => match table {
            "fwd_group" | "fwd_member" | "sliced_down" | "sliced_side" => None,
            "canopy_port" => {
                let key = key
                    .into_iter()
                    .map(|m| match m {
                        Match::Exact { v, .. } => Match::Exact {
                            field: "ig_intr_md.ingress_port",
                            v,
                        },
                        other => other,
                    })
                    .collect();
                Some(TnaOp::Add {
                    table,
                    key,
                    call,
                    priority: None,
                })
            }
            _ => Some(TnaOp::Add {
                table,
                key,
                call,
                priority: prefix_len.map(p4::bmv2_priority),
            }),
        },
    }
}

/// The groups as the selector holds them: one `canopy_prof` member per (group, port), one
/// `canopy_sel` group per non-empty group, and a `fwd_group` entry per group (an empty
/// group points at a `group_empty` member).
fn groups(check: &Checks, out: &mut Vec<TnaOp>) -> Result<(), P4Error> {
    let sw = check.sw;
    let limit = |what, value: usize, max: usize| P4Error::Limit {
        switch: sw.name.clone(),
        what,
        value: value as u64,
        max: max as u64,
    };
    if sw.groups.len() > MAX_GROUPS {
        return Err(limit(
            "groups (canopy_sel's num_groups)",
            sw.groups.len(),
            MAX_GROUPS,
        ));
    }
    let mut next_member = 1u32;
    for (gid, ports) in sw.groups.iter().enumerate() {
        let gv = v(16, gid as u64);
        if ports.is_empty() {
            let id = next_member;
            next_member += 1;
            out.push(TnaOp::Member {
                id,
                call: Call {
                    action: "group_empty",
                    params: vec![],
                },
            });
            out.push(TnaOp::Fwd {
                group: gv,
                target: id,
                member: true,
            });
            continue;
        }
        if ports.len() > MAX_GROUP_SIZE {
            return Err(limit(
                "ports of a group (canopy_sel's max_group_size)",
                ports.len(),
                MAX_GROUP_SIZE,
            ));
        }
        let mut members = Vec::with_capacity(ports.len());
        for &p in ports {
            let port = check.port(p)?;
            let id = next_member;
            next_member += 1;
            out.push(TnaOp::Member {
                id,
                call: Call {
                    action: "set_egress",
                    params: vec![("port", port)],
                },
            });
            members.push(id);
        }
        let sel = gid as u32 + 1;
        out.push(TnaOp::Group { id: sel, members });
        out.push(TnaOp::Fwd {
            group: gv,
            target: sel,
            member: false,
        });
    }
    Ok(())
}

/// Sliced-flit: the `sliced_cfg` and `sliced_addr` defaults, then the groups of the down
/// and side labels that can match.
fn sliced(check: &Checks, t: &SlicedTable, out: &mut Vec<TnaOp>) -> Result<(), P4Error> {
    let up = check.up_group(t)?;
    let mut cfg = sliced_scalars(t);
    cfg.extend(up);
    out.push(TnaOp::SetDefault {
        table: "sliced_cfg",
        call: Call {
            action: "set_sliced_cfg",
            params: cfg,
        },
    });
    let (hi, lo, big) = zone_in_place(t.zone, t.zone_shift, t.znode_shift);
    let mut addr = sliced_layout(t).to_vec();
    addr.extend([
        ("zone_hi", v(32, u64::from(hi))),
        ("zone_lo", v(32, u64::from(lo))),
        ("zone_big", v(1, u64::from(big))),
    ]);
    out.push(TnaOp::SetDefault {
        table: "sliced_addr",
        call: Call {
            action: "set_sliced_addr",
            params: addr,
        },
    });
    // a down label >= z: canopy-switch drops it before its lookup; a side label >= m:
    // bad_side_label before any lookup. Neither can match, so neither gets an entry.
    for (table, field, what, labels, limit) in [
        ("sliced_down", "meta.label", "sliced label", &t.down, t.z),
        ("sliced_side", "meta.side_k", "side label", &t.side, t.m),
    ] {
        for (label, grp) in labels.iter().enumerate() {
            let Some(grp) = grp else { continue };
            if label as u64 >= u64::from(limit) {
                continue;
            }
            out.push(TnaOp::Add {
                table,
                key: vec![Match::Exact {
                    field,
                    v: check.fit(what, label as u64, 32)?,
                }],
                call: Call {
                    action: "to_group",
                    params: vec![("group", check.group(*grp)?)],
                },
                priority: None,
            });
        }
    }
    Ok(())
}

/// A key field's name as `bfrt_python` spells its keyword argument (dots to underscores).
pub fn py_name(field: &str) -> String {
    field.replace('.', "_")
}

fn num(x: u64) -> String {
    if x > 0xffff {
        format!("{x:#x}")
    } else {
        x.to_string()
    }
}

/// `bfrt_python` commands (run them with `bfshell -b FILE`, or paste them into
/// `bfrt_python`); comments start with `#`.
pub fn bfrt_python(ops: &[TnaOp]) -> String {
    let base = format!("bfrt.{PROGRAM}.pipe.CanopyIngress");
    let mut s = String::new();
    let args = |c: &Call| -> Vec<String> {
        c.params
            .iter()
            .map(|(n, v)| format!("{n}={}", num(v.value)))
            .collect()
    };
    for op in ops {
        match op {
            TnaOp::Comment(c) => {
                let _ = writeln!(s, "# {c}");
            }
            TnaOp::SetDefault { table, call } => {
                let _ = writeln!(
                    s,
                    "{base}.{table}.set_default_with_{}({})",
                    call.action,
                    args(call).join(", ")
                );
            }
            TnaOp::Add {
                table,
                key,
                call,
                priority,
            } => {
                let mut a: Vec<String> = Vec::new();
                for m in key {
                    match m {
                        Match::Exact { field, v } => {
                            a.push(format!("{}={}", py_name(field), num(v.value)));
                        }
                        Match::Ternary { field, v, mask } => {
                            a.push(format!("{}={}", py_name(field), num(v.value)));
                            a.push(format!("{}_mask={}", py_name(field), num(*mask)));
                        }
                        Match::Range { field, lo, hi } => {
                            a.push(format!("{}_start={}", py_name(field), num(lo.value)));
                            a.push(format!("{}_end={}", py_name(field), num(*hi)));
                        }
                    }
                }
                if let Some(p) = priority {
                    a.push(format!("MATCH_PRIORITY={p}"));
                }
                a.extend(args(call));
                let _ = writeln!(
                    s,
                    "{base}.{table}.add_with_{}({})",
                    call.action,
                    a.join(", ")
                );
            }
            TnaOp::Member { id, call } => {
                let mut a = vec![format!("ACTION_MEMBER_ID={id}")];
                a.extend(args(call));
                let _ = writeln!(
                    s,
                    "{base}.canopy_prof.add_with_{}({})",
                    call.action,
                    a.join(", ")
                );
            }
            TnaOp::Group { id, members } => {
                let ids: Vec<String> = members.iter().map(u32::to_string).collect();
                let on: Vec<&str> = members.iter().map(|_| "True").collect();
                let _ = writeln!(
                    s,
                    "{base}.canopy_sel.add(SELECTOR_GROUP_ID={id}, MAX_GROUP_SIZE={MAX_GROUP_SIZE}, \
                     ACTION_MEMBER_ID=[{}], ACTION_MEMBER_STATUS=[{}])",
                    ids.join(", "),
                    on.join(", ")
                );
            }
            TnaOp::Fwd {
                group,
                target,
                member,
            } => {
                let what = if *member {
                    "ACTION_MEMBER_ID"
                } else {
                    "SELECTOR_GROUP_ID"
                };
                let _ = writeln!(
                    s,
                    "{base}.fwd_group.add(meta_group={}, {what}={target})",
                    num(group.value)
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_zone_is_placed_and_its_fit_checked() {
        // digits [4, 10): a 6-bit zone
        assert_eq!(zone_in_place(0b10_1101, 4, 10), (0, 0b10_1101 << 4, false));
        assert_eq!(zone_in_place(0b100_0000, 4, 10), (0, 0b100_0000 << 4, true));
        // across the halves
        let (hi, lo, big) = zone_in_place(0xabc, 28, 40);
        assert_eq!((u64::from(hi) << 32) | u64::from(lo), 0xabc << 28);
        assert!(!big);
        // no digits above (zone_shift == znode_shift): any non-zero zone never matches
        assert_eq!(zone_in_place(0, 8, 8), (0, 0, false));
        assert!(zone_in_place(1, 8, 8).2);
        // a shift of 64 or more places nothing
        assert_eq!(zone_in_place(5, 64, 64).0, 0);
        assert_eq!(zone_in_place(5, 64, 64).1, 0);
    }

    #[test]
    fn py_names_replace_dots() {
        assert_eq!(py_name("hdr.pathid.id_len"), "hdr_pathid_id_len");
        assert_eq!(py_name("meta.label"), "meta_label");
    }
}
