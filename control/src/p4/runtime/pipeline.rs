//! A P4Info checked against the program (`p4/canopy.p4` as [`schema`] describes it):
//! every table with the same key fields (names, match kinds, widths, in order), the same
//! actions (each with the same parameters and widths) and no constant default action;
//! every counter array with its size and unit; nothing the program does not have
//! (another table, an action profile, a meter, a register, a digest, packet I/O, an
//! extern). What passes becomes a [`Pipeline`]: the P4Info's ids mapped to the program's
//! tables, fields, actions, parameters and counters. A target (canopy-switch) resolves
//! every request through it; a controller (canopyd) writes its entries through it.

use crate::p4::schema::{self, MatchKind, COUNTERS, EGRESS, INGRESS, TABLES};
use canopy_p4rt::config::{counter_spec, match_field, P4Info};

use std::collections::HashMap;

/// Why a P4Info is not the program: what, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("P4Info {at}: {what}")]
pub struct PipelineError {
    /// The table, action, field or counter (its P4Info name), or the P4Info's section.
    pub at: String,
    /// What does not match.
    pub what: String,
}

fn err<T>(at: impl Into<String>, what: impl Into<String>) -> Result<T, PipelineError> {
    Err(PipelineError {
        at: at.into(),
        what: what.into(),
    })
}

/// A table of the pipeline: which of the program's, and its fields by P4Info id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableIds {
    /// Index in [`TABLES`].
    pub table: usize,
    /// Key field id → position in the table's key.
    pub fields: HashMap<u32, usize>,
    /// The P4Info's field ids in key order.
    pub field_ids: Vec<u32>,
}

/// An action of the pipeline: its name in the program and its parameters by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionIds {
    /// The action's name (without the control).
    pub name: &'static str,
    /// Parameter id → position.
    pub params: HashMap<u32, usize>,
    /// The P4Info's parameter ids in declaration order.
    pub param_ids: Vec<u32>,
}

/// A checked P4Info's ids.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    /// Table id → table.
    pub tables: HashMap<u32, TableIds>,
    /// Action id → action.
    pub actions: HashMap<u32, ActionIds>,
    /// Counter id → index in [`COUNTERS`].
    pub counters: HashMap<u32, usize>,
    /// The P4Info id of each of the program's tables, in [`TABLES`] order.
    pub table_ids: Vec<u32>,
    /// The P4Info id of each action, by name.
    pub action_ids: HashMap<&'static str, u32>,
}

/// The P4Info name of a table or action of the ingress control.
fn full(name: &str) -> String {
    format!("{INGRESS}.{name}")
}

fn kind_of(f: &canopy_p4rt::config::MatchField) -> Option<MatchKind> {
    match f.r#match {
        Some(match_field::Match::MatchType(t)) => match match_field::MatchType::try_from(t) {
            Ok(match_field::MatchType::Exact) => Some(MatchKind::Exact),
            Ok(match_field::MatchType::Ternary) => Some(MatchKind::Ternary),
            Ok(match_field::MatchType::Range) => Some(MatchKind::Range),
            _ => None,
        },
        _ => None,
    }
}

impl Pipeline {
    /// Check `info` against the program; its ids.
    pub fn check(info: &P4Info) -> Result<Pipeline, PipelineError> {
        for (what, n) in [
            ("action_profiles", info.action_profiles.len()),
            ("direct_counters", info.direct_counters.len()),
            ("meters", info.meters.len()),
            ("direct_meters", info.direct_meters.len()),
            (
                "controller_packet_metadata",
                info.controller_packet_metadata.len(),
            ),
            ("value_sets", info.value_sets.len()),
            ("registers", info.registers.len()),
            ("digests", info.digests.len()),
            ("externs", info.externs.len()),
        ] {
            if n > 0 {
                return err(
                    what,
                    format!("{n} declared; canopy.p4 has none and canopy-switch implements none"),
                );
            }
        }
        let mut p = Pipeline::default();
        let actions = Self::actions(info, &mut p)?;
        let mut seen = vec![false; TABLES.len()];
        p.table_ids = vec![0; TABLES.len()];
        for t in &info.tables {
            let pre = t.preamble.clone().unwrap_or_default();
            let Some(short) = pre.name.strip_prefix(&format!("{INGRESS}.")) else {
                return err(
                    pre.name,
                    "not a table of canopy.p4 (canopy-switch implements that program only)",
                );
            };
            let Some((ti, ts)) = schema::table(short) else {
                return err(
                    pre.name,
                    "not a table of canopy.p4 (canopy-switch implements that program only)",
                );
            };
            if std::mem::replace(&mut seen[ti], true) {
                return err(pre.name, "declared twice");
            }
            if t.const_default_action_id != 0 || t.is_const_table {
                return err(pre.name, "constant here, not in canopy.p4");
            }
            if t.implementation_id != 0 || !t.direct_resource_ids.is_empty() {
                return err(
                    pre.name,
                    "an action profile or a direct resource, not in canopy.p4",
                );
            }
            if t.size != i64::from(ts.size) {
                return err(
                    pre.name,
                    format!("size {}, canopy.p4's is {}", t.size, ts.size),
                );
            }
            if t.match_fields.len() != ts.key.len() {
                return err(
                    pre.name,
                    format!(
                        "{} key fields, canopy.p4's has {}",
                        t.match_fields.len(),
                        ts.key.len()
                    ),
                );
            }
            let mut ids = TableIds {
                table: ti,
                fields: HashMap::new(),
                field_ids: Vec::new(),
            };
            for (i, (f, want)) in t.match_fields.iter().zip(ts.key).enumerate() {
                let at = format!("{}.{}", pre.name, f.name);
                if f.name != want.name {
                    return err(at, format!("key field {i} is {} in canopy.p4", want.name));
                }
                if kind_of(f) != Some(want.kind) {
                    return err(
                        at,
                        format!("matches {}, not as given", want.kind.p4info_name()),
                    );
                }
                if f.bitwidth != want.bits as i32 {
                    return err(
                        at,
                        format!("{} bits, canopy.p4's is {}", f.bitwidth, want.bits),
                    );
                }
                if ids.fields.insert(f.id, i).is_some() {
                    return err(at, format!("field id {} twice", f.id));
                }
                ids.field_ids.push(f.id);
            }
            let mut names: Vec<&str> = Vec::new();
            for r in &t.action_refs {
                match actions.get(&r.id) {
                    Some(a) => names.push(a.name),
                    None => {
                        return err(
                            &pre.name,
                            format!("action id {} is not an action of the P4Info", r.id),
                        )
                    }
                }
            }
            names.sort_unstable();
            let mut want: Vec<&str> = ts.actions.to_vec();
            want.sort_unstable();
            if names != want {
                return err(
                    pre.name,
                    format!("actions {names:?}, canopy.p4's are {want:?}"),
                );
            }
            p.table_ids[ti] = pre.id;
            if p.tables.insert(pre.id, ids).is_some() {
                return err(pre.name, format!("table id {} twice", pre.id));
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return err(
                full(TABLES[i].name),
                "missing: canopy-switch implements every table of canopy.p4",
            );
        }
        p.actions = actions;
        Self::counters(info, &mut p)?;
        Ok(p)
    }

    /// The actions every table uses, each checked against the program's.
    fn actions(info: &P4Info, p: &mut Pipeline) -> Result<HashMap<u32, ActionIds>, PipelineError> {
        let mut out = HashMap::new();
        for a in &info.actions {
            let pre = a.preamble.clone().unwrap_or_default();
            // an action no table of the program uses is left alone
            let Some(sch) = pre
                .name
                .strip_prefix(&format!("{INGRESS}."))
                .and_then(schema::action)
            else {
                continue;
            };
            if a.params.len() != sch.params.len() {
                return err(
                    pre.name,
                    format!(
                        "{} parameters, canopy.p4's has {}",
                        a.params.len(),
                        sch.params.len()
                    ),
                );
            }
            let mut ids = ActionIds {
                name: sch.name,
                params: HashMap::new(),
                param_ids: Vec::new(),
            };
            for (i, (q, &(name, bits))) in a.params.iter().zip(sch.params).enumerate() {
                let at = format!("{}({})", pre.name, q.name);
                if q.name != name || q.bitwidth != bits as i32 {
                    return err(
                        at,
                        format!("parameter {i} is bit<{bits}> {name} in canopy.p4"),
                    );
                }
                if ids.params.insert(q.id, i).is_some() {
                    return err(at, format!("parameter id {} twice", q.id));
                }
                ids.param_ids.push(q.id);
            }
            if p.action_ids.insert(sch.name, pre.id).is_some() {
                return err(pre.name, "declared twice");
            }
            out.insert(pre.id, ids);
        }
        Ok(out)
    }

    /// The counter arrays: every one of the program's, with its size and unit.
    fn counters(info: &P4Info, p: &mut Pipeline) -> Result<(), PipelineError> {
        for c in &info.counters {
            let pre = c.preamble.clone().unwrap_or_default();
            let Some(i) = COUNTERS.iter().position(|k| k.name == pre.name) else {
                return err(
                    pre.name,
                    format!("not a counter of canopy.p4 ({INGRESS} or {EGRESS})"),
                );
            };
            let k = &COUNTERS[i];
            if c.size != i64::from(k.size) {
                return err(
                    pre.name,
                    format!("{} cells, canopy.p4's has {}", c.size, k.size),
                );
            }
            let unit = c.spec.as_ref().map(|s| s.unit);
            let want = if k.bytes {
                counter_spec::Unit::Both
            } else {
                counter_spec::Unit::Packets
            };
            if unit != Some(want as i32) {
                return err(
                    pre.name,
                    format!("counts {unit:?}, canopy.p4's counts {want:?}"),
                );
            }
            if p.counters.insert(pre.id, i).is_some() {
                return err(pre.name, format!("counter id {} twice", pre.id));
            }
        }
        if p.counters.len() != COUNTERS.len() {
            let missing = COUNTERS
                .iter()
                .enumerate()
                .find(|(i, _)| !p.counters.values().any(|v| v == i))
                .map_or("", |(_, k)| k.name);
            return err(missing, "missing");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
