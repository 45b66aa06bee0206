//! A made-up P4Info, for replaying the P4Runtime output where p4c is absent.

use std::collections::{BTreeMap, BTreeSet};

use canopy_control::p4::tna::{self, TnaOp};
use canopy_control::p4::{self, Op};
use serde_json::{json, Value};

use crate::p4_common::{tables, SPECS};

/// A P4Info made up from what the generator writes (ids chosen here, widths and match
/// kinds from the entries): lets the P4Runtime output be replayed where p4c is absent.
/// The real P4Info is used by `p4runtime_requests_of_every_switch_pass_the_checker`.
fn synth_p4info(ops: &[Op]) -> Value {
    type Fields = Vec<(String, u32, &'static str)>;
    let mut tables: BTreeMap<&str, (Fields, BTreeSet<&str>)> = BTreeMap::new();
    let mut actions: BTreeMap<&str, Vec<(&str, u32)>> = BTreeMap::new();
    let mut note = |table: &'static str, key: Fields, c: &p4::Call| {
        let t = tables.entry(table).or_default();
        if t.0.is_empty() {
            t.0 = key;
        }
        t.1.insert(c.action);
        actions
            .entry(c.action)
            .or_insert_with(|| c.params.iter().map(|(n, v)| (*n, v.bits)).collect());
    };
    for op in ops {
        match op {
            Op::Comment(_) => {}
            Op::SetDefault { table, call } => note(table, vec![], call),
            Op::Add {
                table, key, call, ..
            } => {
                let k = key
                    .iter()
                    .map(|m| match m {
                        p4::Match::Exact { field, v } => (field.to_string(), v.bits, "EXACT"),
                        p4::Match::Ternary { field, v, .. } => {
                            (field.to_string(), v.bits, "TERNARY")
                        }
                        p4::Match::Range { field, lo, .. } => (field.to_string(), lo.bits, "RANGE"),
                    })
                    .collect();
                note(table, k, call)
            }
        }
    }
    let aid: BTreeMap<&str, u32> = actions
        .keys()
        .enumerate()
        .map(|(i, a)| (*a, 500 + i as u32))
        .collect();
    let tabs: Vec<Value> = tables
        .iter()
        .enumerate()
        .map(|(i, (name, (fields, acts)))| {
            json!({
                "preamble": {"id": 100 + i, "name": format!("CanopyIngress.{name}")},
                "matchFields": fields.iter().enumerate().map(|(j, (n, b, k))| json!({
                    "id": j + 1, "name": n, "bitwidth": b, "matchType": k})).collect::<Vec<_>>(),
                "actionRefs": acts.iter().map(|a| json!({"id": aid[a]})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let acts: Vec<Value> = actions
        .iter()
        .map(|(name, params)| {
            json!({
                "preamble": {"id": aid[name], "name": format!("CanopyIngress.{name}")},
                "params": params.iter().enumerate().map(|(j, (n, b))| json!({
                    "id": j + 1, "name": n, "bitwidth": b})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "pkgInfo": {"arch": "v1model"},
        "tables": tabs,
        "actions": acts,
        "counters": [{"preamble": {"id": 900, "name": p4::DROP_COUNTER}, "size": "32"}]
    })
}

/// The bmv2 and the Tofino entries of every switch of SPECS.
pub(crate) fn every_entry() -> (Vec<Op>, Vec<TnaOp>) {
    let mut ops = Vec::new();
    let mut tna_ops = Vec::new();
    for &(spec, kind, mode) in SPECS {
        for sw in tables(spec, kind, mode) {
            ops.extend(p4::entries(&sw).unwrap());
            tna_ops.extend(tna::entries(&sw).unwrap());
        }
    }
    // what canopyctl adds per switch (v1model only)
    ops.push(p4::hop_switch(0));
    (ops, tna_ops)
}

/// The made-up P4Info of every switch of SPECS.
pub(crate) fn synth_all() -> (Value, p4::P4Info) {
    let (ops, _) = every_entry();
    let v = synth_p4info(&ops);
    let info = p4::P4Info::from_json(&v.to_string(), "synth").unwrap();
    (v, info)
}
