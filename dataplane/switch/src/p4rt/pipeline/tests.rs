//! The program's own P4Info passes; every way a P4Info can differ from it is refused
//! with where and what.

use super::*;
use canopy_control::p4::schema::ACTIONS;
use canopy_p4rt::config::{self, Preamble};

/// A P4Info of canopy.p4 as p4c writes one (ids by kind prefix, as p4c numbers them).
pub(crate) fn program_p4info() -> P4Info {
    let pre = |id: u32, name: String| {
        Some(Preamble {
            id,
            alias: name.rsplit('.').next().unwrap_or_default().to_string(),
            name,
            annotations: vec![],
        })
    };
    let action_id =
        |name: &str| 0x0100_0000 + ACTIONS.iter().position(|a| a.name == name).unwrap() as u32;
    P4Info {
        pkg_info: Some(config::PkgInfo {
            arch: "v1model".into(),
            ..Default::default()
        }),
        tables: TABLES
            .iter()
            .enumerate()
            .map(|(i, t)| config::Table {
                preamble: pre(0x0200_0000 + i as u32, full(t.name)),
                match_fields: t
                    .key
                    .iter()
                    .enumerate()
                    .map(|(k, f)| config::MatchField {
                        id: k as u32 + 1,
                        name: f.name.into(),
                        bitwidth: f.bits as i32,
                        r#match: Some(match_field::Match::MatchType(match f.kind {
                            MatchKind::Exact => match_field::MatchType::Exact,
                            MatchKind::Ternary => match_field::MatchType::Ternary,
                            MatchKind::Range => match_field::MatchType::Range,
                        }
                            as i32)),
                    })
                    .collect(),
                action_refs: t
                    .actions
                    .iter()
                    .map(|a| config::ActionRef {
                        id: action_id(a),
                        scope: 0,
                    })
                    .collect(),
                size: i64::from(t.size),
                ..Default::default()
            })
            .collect(),
        actions: ACTIONS
            .iter()
            .map(|a| config::Action {
                preamble: pre(action_id(a.name), full(a.name)),
                params: a
                    .params
                    .iter()
                    .enumerate()
                    .map(|(k, (n, b))| config::action::Param {
                        id: k as u32 + 1,
                        name: (*n).into(),
                        bitwidth: *b as i32,
                    })
                    .collect(),
            })
            .collect(),
        counters: COUNTERS
            .iter()
            .enumerate()
            .map(|(i, c)| config::Counter {
                preamble: pre(0x1200_0000 + i as u32, c.name.into()),
                spec: Some(config::CounterSpec {
                    unit: if c.bytes {
                        counter_spec::Unit::Both
                    } else {
                        counter_spec::Unit::Packets
                    } as i32,
                }),
                size: i64::from(c.size),
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn the_programs_own_p4info_passes_and_maps_every_id() {
    let p = Pipeline::check(&program_p4info()).unwrap();
    assert_eq!(p.tables.len(), TABLES.len());
    assert_eq!(p.counters.len(), COUNTERS.len());
    let lpm = &p.tables[&p.table_ids[schema::table("pathid_lpm").unwrap().0]];
    assert_eq!((lpm.field_ids.clone(), lpm.fields[&2]), (vec![1, 2], 1));
    let a = &p.actions[&p.action_ids["set_sliced_cfg"]];
    assert_eq!((a.name, a.param_ids.len()), ("set_sliced_cfg", 14));
}

#[test]
fn every_difference_is_refused_with_where_and_what() {
    type Change = fn(&mut P4Info);
    let cases: Vec<(Change, &str)> = vec![
        (
            |i| {
                i.tables.remove(3);
            },
            "CanopyIngress.sliced_cfg: missing",
        ),
        (
            |i| {
                let t = i.tables[0].clone();
                i.tables.push(t);
            },
            "declared twice",
        ),
        (
            |i| {
                i.tables[0].preamble.as_mut().unwrap().name = "CanopyIngress.acl".into();
            },
            "not a table of canopy.p4",
        ),
        (
            |i| {
                i.tables[1].match_fields[0].bitwidth = 12;
            },
            "CanopyIngress.fwd_group.meta.group: 12 bits, canopy.p4's is 16",
        ),
        (
            |i| {
                i.tables[9].match_fields[0].r#match = Some(match_field::Match::MatchType(
                    match_field::MatchType::Lpm as i32,
                ));
            },
            "matches TERNARY",
        ),
        (
            |i| {
                i.tables[2].match_fields.pop();
            },
            "1 key fields, canopy.p4's has 2",
        ),
        (
            |i| {
                i.tables[0].action_refs.pop();
            },
            "actions [\"set_port_info\"]",
        ),
        (
            |i| {
                i.tables[0].size = 64;
            },
            "size 64, canopy.p4's is 512",
        ),
        (
            |i| {
                i.tables[0].const_default_action_id = 1;
            },
            "constant here",
        ),
        (
            |i| {
                i.tables[0].implementation_id = 7;
            },
            "an action profile",
        ),
        (
            |i| {
                i.actions[0].params[0].bitwidth = 3;
            },
            "set_port_info(role): parameter 0 is bit<2> role",
        ),
        (
            |i| {
                i.actions[0].params.pop();
            },
            "1 parameters, canopy.p4's has 2",
        ),
        (
            |i| {
                i.counters[1].size = 256;
            },
            "CanopyIngress.canopy_port_rx: 256 cells",
        ),
        (
            |i| {
                i.counters[0].spec = None;
            },
            "canopy_drops: counts None",
        ),
        (
            |i| {
                i.counters.pop();
            },
            "CanopyEgress.canopy_port_tx: missing",
        ),
        (
            |i| {
                i.meters.push(vec![]);
            },
            "meters: 1 declared",
        ),
        (
            |i| {
                i.action_profiles.push(vec![]);
            },
            "action_profiles: 1 declared",
        ),
    ];
    for (change, want) in cases {
        let mut info = program_p4info();
        change(&mut info);
        let e = Pipeline::check(&info).unwrap_err().to_string();
        assert!(e.contains(want), "{e} lacks {want:?}");
    }
}
