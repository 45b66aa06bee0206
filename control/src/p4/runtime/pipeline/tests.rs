//! The program's own P4Info passes; every way a P4Info can differ from it is refused
//! with where and what.

use super::*;
use crate::p4::program_p4info;

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
