//! Entries to the state and back, for every entry of the example switches; the
//! bytestring and match rules; every refusal with its code.

use super::*;
use crate::p4::program_p4info;
use crate::p4::{self, schema, P4State};
use crate::{kinds, topology::build_str};
use canopy_dataplane::wire::Kind;
use canopy_p4rt::v1::{FieldMatch as PbMatch, TableEntry};

fn pipeline() -> Pipeline {
    Pipeline::check(&program_p4info()).unwrap()
}

#[test]
fn every_entry_of_the_example_switches_goes_there_and_back() {
    let p = pipeline();
    let mut n = 0;
    for (spec, kind) in [
        ("fat-tree:k=4", Kind::Sliced),
        ("fat-tree:k=4", Kind::PathId),
        ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
    ] {
        let topo = build_str(spec).unwrap();
        for sw in kinds::tables(&topo, kind).unwrap() {
            let st = P4State::from_ops(&p4::entries(&sw).unwrap()).unwrap();
            for t in 0..schema::TABLES.len() {
                for (k, c) in st.entries(t) {
                    let e = from_state(&p, t, Some(k), c);
                    assert_eq!(to_state(&p, &e).unwrap(), (t, Some(k.clone()), c.clone()));
                    n += 1;
                }
                let d = st.default_action(t);
                let e = from_state(&p, t, None, d);
                assert!(e.is_default_action && e.r#match.is_empty());
                assert_eq!(to_state(&p, &e).unwrap(), (t, None, d.clone()));
            }
        }
    }
    assert!(n > 1000, "{n} entries");
}

fn entry(
    p: &Pipeline,
    table: &str,
    key: Vec<PbMatch>,
    action: &str,
    params: &[&[u8]],
) -> TableEntry {
    let t = schema::table(table).unwrap().0;
    let aid = p.action_ids[action];
    TableEntry {
        table_id: p.table_ids[t],
        r#match: key,
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: aid,
                params: params
                    .iter()
                    .zip(&p.actions[&aid].param_ids)
                    .map(|(v, &param_id)| action::Param {
                        param_id,
                        value: v.to_vec(),
                    })
                    .collect(),
            })),
        }),
        ..Default::default()
    }
}

fn exact(id: u32, v: &[u8]) -> PbMatch {
    PbMatch {
        field_id: id,
        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
            value: v.to_vec(),
        })),
    }
}

#[test]
fn values_may_carry_leading_zeros_but_must_fit() {
    assert_eq!(value(&[0, 3], 9, "x"), Ok(3));
    assert_eq!(value(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 9, "x"), Ok(1));
    assert_eq!(value(&[1, 0xff], 9, "x"), Ok(511));
    assert_eq!(value(&[2, 0], 9, "x").unwrap_err().code, OUT_OF_RANGE);
    assert_eq!(value(&[1; 9], 64, "x").unwrap_err().code, OUT_OF_RANGE);
    assert_eq!(value(&[], 9, "x").unwrap_err().code, INVALID_ARGUMENT);
    assert_eq!(value(&[0xff; 8], 64, "x"), Ok(u64::MAX));
    // p4runtime-shell writes a 9-bit port as two bytes
    let p = pipeline();
    let e = entry(
        &p,
        "canopy_port",
        vec![exact(1, &[0, 3])],
        "set_port_info",
        &[&[0, 1], &[0]],
    );
    let (_, k, c) = to_state(&p, &e).unwrap();
    assert_eq!(k.unwrap().fields, vec![FieldMatch::Exact(3)]);
    assert_eq!(c.params, vec![1, 0]);
}

#[test]
fn every_refusal_has_its_code_and_names_the_culprit() {
    let p = pipeline();
    let port = |key: Vec<PbMatch>| entry(&p, "canopy_port", key, "set_port_info", &[&[1], &[0]]);
    let lpm = |key: Vec<PbMatch>| {
        let mut e = entry(&p, "pathid_lpm", key, "pid_port", &[&[1], &[3]]);
        e.priority = 5;
        e
    };
    let tern = |v: &[u8], m: &[u8]| PbMatch {
        field_id: 1,
        field_match_type: Some(field_match::FieldMatchType::Ternary(field_match::Ternary {
            value: v.to_vec(),
            mask: m.to_vec(),
        })),
    };
    let range = |lo: &[u8], hi: &[u8]| PbMatch {
        field_id: 2,
        field_match_type: Some(field_match::FieldMatchType::Range(field_match::Range {
            low: lo.to_vec(),
            high: hi.to_vec(),
        })),
    };
    let mut cases: Vec<(TableEntry, i32, &str)> = vec![
        (
            port(vec![exact(1, &[1]), exact(1, &[2])]),
            INVALID_ARGUMENT,
            "standard_metadata.ingress_port: given twice",
        ),
        (
            port(vec![exact(7, &[1])]),
            INVALID_ARGUMENT,
            "field id 7 is not in its key",
        ),
        (
            port(vec![]),
            INVALID_ARGUMENT,
            "an exact field cannot be left out",
        ),
        (
            port(vec![exact(1, &[2, 0])]),
            OUT_OF_RANGE,
            "does not fit 9 bits",
        ),
        (
            port(vec![tern(&[1], &[1])]),
            INVALID_ARGUMENT,
            "matches EXACT",
        ),
        (
            lpm(vec![tern(&[0], &[0])]),
            INVALID_ARGUMENT,
            "left out, not given a zero mask",
        ),
        (
            lpm(vec![tern(&[3], &[1])]),
            INVALID_ARGUMENT,
            "bits outside its mask",
        ),
        (
            lpm(vec![range(&[0], &[0xff])]),
            INVALID_ARGUMENT,
            "a don't-care range is left out",
        ),
        (
            lpm(vec![range(&[9], &[3])]),
            INVALID_ARGUMENT,
            "range 9..=3 is empty",
        ),
    ];
    let mut e = port(vec![exact(1, &[1])]);
    e.table_id = 99;
    cases.push((e, NOT_FOUND, "table id 99 is not in the pipeline"));
    let mut e = port(vec![exact(1, &[1])]);
    e.action = Some(TableAction {
        r#type: Some(table_action::Type::ActionProfileMemberId(1)),
    });
    cases.push((e, UNIMPLEMENTED, "no action profiles"));
    let mut e = port(vec![exact(1, &[1])]);
    e.action = None;
    cases.push((e, INVALID_ARGUMENT, "canopy_port: no action"));
    let mut e = port(vec![exact(1, &[1])]);
    if let Some(TableAction {
        r#type: Some(table_action::Type::Action(a)),
    }) = &mut e.action
    {
        a.params.pop();
    }
    cases.push((e, INVALID_ARGUMENT, "set_port_info(swallow): missing"));
    let mut e = port(vec![exact(1, &[1])]);
    if let Some(TableAction {
        r#type: Some(table_action::Type::Action(a)),
    }) = &mut e.action
    {
        a.params[1] = a.params[0].clone();
    }
    cases.push((e, INVALID_ARGUMENT, "set_port_info(role): given twice"));
    let mut e = port(vec![exact(1, &[1])]);
    if let Some(TableAction {
        r#type: Some(table_action::Type::Action(a)),
    }) = &mut e.action
    {
        a.action_id = 1234;
    }
    cases.push((e, NOT_FOUND, "action id 1234 is not in the pipeline"));
    let mut e = lpm(vec![]);
    e.priority = -1;
    cases.push((e, INVALID_ARGUMENT, "priority -1 is negative"));
    let mut e = port(vec![exact(1, &[1])]);
    e.is_default_action = true;
    cases.push((e, INVALID_ARGUMENT, "a default action has no key"));
    let mut e = port(vec![exact(1, &[1])]);
    e.counter_data = Some(Default::default());
    cases.push((e, INVALID_ARGUMENT, "no direct resources"));
    for (e, code, want) in cases {
        let r = to_state(&p, &e).unwrap_err();
        assert_eq!(r.code, code, "{r}");
        assert!(r.what.contains(want), "{r} lacks {want:?}");
    }
    // left-out ternary and range fields are don't care
    let (_, k, _) = to_state(&p, &lpm(vec![])).unwrap();
    assert_eq!(
        k.unwrap().fields,
        vec![
            FieldMatch::Ternary { value: 0, mask: 0 },
            FieldMatch::Range { lo: 0, hi: 255 }
        ]
    );
}
