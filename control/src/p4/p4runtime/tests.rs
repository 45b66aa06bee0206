//! Name resolution through a P4Info: ids, encodings and every error variant.

use canopy_dataplane::table::{PortConfig, PortDir, PortRole, SwitchTables};

use super::*;
use crate::p4::entries;
use crate::p4::model::{call, exact, pathid_lpm, v};

/// `problem` in the entries of `table` of switch `s`.
fn entry(table: String, problem: EntryProblem) -> P4InfoError {
    P4InfoError::Entry {
        switch: s(),
        table,
        problem,
    }
}

/// A small P4Info made up for these tests (ids chosen here, not p4c's): the port,
/// group and path-ID tables, one `@defaultonly` and one `@tableonly` action ref.
fn fixture() -> Value {
    let field = |id: u32, name: &str, bits: i32, kind: &str| json!({"id": id, "name": name, "bitwidth": bits, "matchType": kind});
    let table = |id: u32, name: &str, fields: Vec<Value>, refs: Vec<Value>| {
        json!({"preamble": {"id": id, "name": format!("CanopyIngress.{name}")},
               "matchFields": fields, "actionRefs": refs, "size": "16"})
    };
    let action = |id: u32, name: &str, params: &[(&str, i32)]| {
        let ps: Vec<Value> = params
            .iter()
            .enumerate()
            .map(|(i, (n, b))| json!({"id": i + 1, "name": n, "bitwidth": b}))
            .collect();
        json!({"preamble": {"id": id, "name": format!("CanopyIngress.{name}")}, "params": ps})
    };
    json!({
        "pkgInfo": {"arch": "v1model"},
        "tables": [
            table(11, "canopy_port",
                  vec![field(1, "standard_metadata.ingress_port", 9, "EXACT")],
                  vec![json!({"id": 21}), json!({"id": 22, "scope": "DEFAULT_ONLY"})]),
            table(12, "fwd_group", vec![field(1, "meta.group", 16, "EXACT")],
                  vec![json!({"id": 23}), json!({"id": 24})]),
            table(13, "fwd_member",
                  vec![field(1, "meta.group", 16, "EXACT"),
                       field(2, "meta.bucket", 16, "EXACT")],
                  vec![json!({"id": 25, "scope": "TABLE_ONLY"})]),
            table(14, "pathid_cfg", vec![], vec![json!({"id": 26})]),
            table(15, "pathid_lpm",
                  vec![field(1, "hdr.pathid.id", 64, "TERNARY"),
                       field(2, "hdr.pathid.id_len", 8, "RANGE")],
                  vec![json!({"id": 27})]),
        ],
        "actions": [
            action(21, "set_port_info", &[("role", 2), ("swallow", 1)]),
            action(22, "port_unknown", &[]),
            action(23, "set_group", &[("size", 16)]),
            action(24, "group_empty", &[]),
            action(25, "set_egress", &[("port", 9)]),
            action(26, "set_pathid_cfg", &[("leaf", 1)]),
            action(27, "pid_port", &[("down", 1), ("port", 9)]),
        ],
        "counters": [{"preamble": {"id": 31, "name": "CanopyIngress.canopy_drops"},
                      "spec": {"unit": "PACKETS"}, "size": "32"}]
    })
}

fn info(v: &Value) -> P4Info {
    P4Info::from_json(&v.to_string(), "fixture").unwrap()
}

fn rt(ops: &[Op]) -> Result<Value, P4InfoError> {
    p4runtime("s", ops, &info(&fixture()), 0)
}

fn port_op(field: &'static str, port: u64, call: Call) -> Op {
    Op::Add {
        table: "canopy_port",
        key: vec![exact(field, v(9, port))],
        call,
        prefix_len: None,
    }
}

fn port_info(role: u64) -> Call {
    call(
        "set_port_info",
        vec![("role", v(2, role)), ("swallow", v(1, 0))],
    )
}

fn lpm(value: u64, mask: u64, lo: u64, hi: u64, prefix_len: Option<u8>) -> Op {
    let c = call("pid_port", vec![("down", v(1, 1)), ("port", v(9, 3))]);
    pathid_lpm(value, mask, lo, hi, c, prefix_len)
}

#[test]
fn names_resolve_to_the_p4info_ids() {
    let mut sw = SwitchTables::new(
        "s",
        vec![
            PortConfig {
                role: PortRole::Down,
                dir: PortDir::Duplex
            };
            2
        ],
    );
    sw.groups.push(vec![]);
    sw.groups.push(vec![0, 1]);
    let req = p4runtime("s", &entries(&sw).unwrap(), &info(&fixture()), 5).unwrap();
    assert_eq!(req["deviceId"], "5");
    let u = req["updates"].as_array().unwrap();
    // 2 ports, group 0 (empty), group 1 (size) and its 2 members
    assert_eq!(u.len(), 6);
    assert!(u.iter().all(|x| x["type"] == "INSERT"));
    assert_eq!(
        u[1]["entity"]["tableEntry"],
        json!({"tableId": 11,
               "match": [{"fieldId": 1, "exact": {"value": "AQ=="}}],
               "action": {"action": {"actionId": 21, "params": [
                   {"paramId": 1, "value": "AQ=="}, {"paramId": 2, "value": "AA=="}]}}})
    );
    assert_eq!(
        u[2]["entity"]["tableEntry"],
        json!({"tableId": 12,
               "match": [{"fieldId": 1, "exact": {"value": "AA=="}}],
               "action": {"action": {"actionId": 24}}})
    );
    assert_eq!(
        u[5]["entity"]["tableEntry"],
        json!({"tableId": 13,
               "match": [{"fieldId": 1, "exact": {"value": "AQ=="}},
                         {"fieldId": 2, "exact": {"value": "AQ=="}}],
               "action": {"action": {"actionId": 25, "params": [
                   {"paramId": 1, "value": "AQ=="}]}}})
    );
}

#[test]
fn defaults_are_modify_and_lpm_entries_carry_a_priority() {
    let ops = vec![
        Op::Comment("c".into()),
        Op::SetDefault {
            table: "pathid_cfg",
            call: call("set_pathid_cfg", vec![("leaf", v(1, 1))]),
        },
        lpm(0xa << 60, 0xe << 60, 3, 64, Some(3)),
        lpm(0, 0, 0, 64, Some(0)),
    ];
    let req = rt(&ops).unwrap();
    let u = req["updates"].as_array().unwrap();
    assert_eq!(u.len(), 3, "comments are not updates");
    assert_eq!(
        u[0],
        json!({"type": "MODIFY", "entity": {"tableEntry": {
            "tableId": 14, "isDefaultAction": true,
            "action": {"action": {"actionId": 26, "params": [
                {"paramId": 1, "value": "AQ=="}]}}}}})
    );
    let e = &u[1]["entity"]["tableEntry"];
    assert_eq!(u[1]["type"], "INSERT");
    assert_eq!(
        e["match"],
        json!([{"fieldId": 1, "ternary": {"value": base64(&[0xa0, 0, 0, 0, 0, 0, 0, 0]),
                                          "mask": base64(&[0xe0, 0, 0, 0, 0, 0, 0, 0])}},
               {"fieldId": 2, "range": {"low": "Aw==", "high": "QA=="}}])
    );
    assert_eq!(e["priority"], 4);
    // the empty prefix: the ternary field is "don't care" and left out
    let e = &u[2]["entity"]["tableEntry"];
    assert_eq!(
        e["match"],
        json!([{"fieldId": 2, "range": {"low": "AA==", "high": "QA=="}}])
    );
    assert_eq!(e["priority"], 1);
    // a range over the whole field is "don't care" too
    let req = rt(&[lpm(0x8 << 60, 0x8 << 60, 0, 255, Some(1))]).unwrap();
    assert_eq!(
        req["updates"][0]["entity"]["tableEntry"]["match"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// The switch name the cases use.
fn s() -> String {
    "s".to_string()
}

/// The port table's full name.
fn port_table() -> String {
    "CanopyIngress.canopy_port".to_string()
}

/// Entries naming a table, field, action or parameter the P4Info does not have (or has
/// but does not allow there), each with the error it must give.
fn unresolvable_names() -> Vec<(Op, P4InfoError)> {
    vec![
        (
            Op::Add {
                table: "sliced_down",
                key: vec![exact("meta.label", v(64, 0))],
                call: call("miss", vec![]),
                prefix_len: None,
            },
            entry(
                "CanopyIngress.sliced_down".into(),
                EntryProblem::UnknownTable,
            ),
        ),
        (
            port_op("meta.port", 0, port_info(0)),
            entry(
                port_table(),
                EntryProblem::UnknownField {
                    field: "meta.port".into(),
                },
            ),
        ),
        (
            Op::Add {
                table: "fwd_member",
                key: vec![exact("meta.group", v(16, 0))],
                call: call("set_egress", vec![("port", v(9, 0))]),
                prefix_len: None,
            },
            entry(
                "CanopyIngress.fwd_member".into(),
                EntryProblem::MissingField {
                    field: "meta.bucket".into(),
                },
            ),
        ),
        (
            port_op(
                "standard_metadata.ingress_port",
                0,
                call("to_group", vec![]),
            ),
            entry(
                port_table(),
                EntryProblem::UnknownAction {
                    action: "CanopyIngress.to_group".into(),
                },
            ),
        ),
        (
            port_op(
                "standard_metadata.ingress_port",
                0,
                call("set_group", vec![("size", v(16, 1))]),
            ),
            entry(
                port_table(),
                EntryProblem::ActionNotInTable {
                    action: "CanopyIngress.set_group".into(),
                },
            ),
        ),
        (
            port_op(
                "standard_metadata.ingress_port",
                0,
                call("port_unknown", vec![]),
            ),
            entry(
                port_table(),
                EntryProblem::Scope {
                    action: "CanopyIngress.port_unknown".into(),
                    scope: "DEFAULT_ONLY".into(),
                    used_as: "used in a table entry",
                },
            ),
        ),
        (
            Op::SetDefault {
                table: "fwd_member",
                call: call("set_egress", vec![("port", v(9, 0))]),
            },
            entry(
                "CanopyIngress.fwd_member".into(),
                EntryProblem::Scope {
                    action: "CanopyIngress.set_egress".into(),
                    scope: "TABLE_ONLY".into(),
                    used_as: "the default action",
                },
            ),
        ),
        (
            Op::Add {
                table: "fwd_group",
                key: vec![exact("meta.group", v(16, 0))],
                call: call("set_group", vec![("sz", v(16, 1))]),
                prefix_len: None,
            },
            entry(
                "CanopyIngress.fwd_group".into(),
                EntryProblem::UnknownParam {
                    action: "CanopyIngress.set_group".into(),
                    param: "sz".into(),
                },
            ),
        ),
        (
            port_op(
                "standard_metadata.ingress_port",
                0,
                call("set_port_info", vec![("role", v(2, 0))]),
            ),
            entry(
                port_table(),
                EntryProblem::MissingParam {
                    action: "CanopyIngress.set_port_info".into(),
                    param: "swallow".into(),
                },
            ),
        ),
    ]
}

/// Entries whose values, keys or priority do not fit what the P4Info declares, each with
/// the error it must give.
fn unfitting_values() -> Vec<(Op, P4InfoError)> {
    vec![
        (
            // the generator thinks role has 3 bits; the P4Info says 2
            port_op(
                "standard_metadata.ingress_port",
                0,
                call(
                    "set_port_info",
                    vec![("role", v(3, 4)), ("swallow", v(1, 0))],
                ),
            ),
            entry(
                port_table(),
                EntryProblem::TooWide {
                    what: "parameter CanopyIngress.set_port_info.role".into(),
                    value: 4,
                    bits: 2,
                },
            ),
        ),
        (
            Op::Add {
                table: "canopy_port",
                key: vec![exact("standard_metadata.ingress_port", v(16, 512))],
                call: port_info(0),
                prefix_len: None,
            },
            entry(
                port_table(),
                EntryProblem::TooWide {
                    what: "value of standard_metadata.ingress_port".into(),
                    value: 512,
                    bits: 9,
                },
            ),
        ),
        (
            lpm(0x3, 0x1, 1, 64, Some(1)),
            entry(
                "CanopyIngress.pathid_lpm".into(),
                EntryProblem::BadMatch {
                    field: "hdr.pathid.id".into(),
                    what: "ternary value has bits outside its mask",
                },
            ),
        ),
        (
            lpm(0, 1 << 63, 9, 8, Some(1)),
            entry(
                "CanopyIngress.pathid_lpm".into(),
                EntryProblem::BadMatch {
                    field: "hdr.pathid.id_len".into(),
                    what: "range low > high",
                },
            ),
        ),
        (
            lpm(0, 1 << 63, 1, 300, Some(1)),
            entry(
                "CanopyIngress.pathid_lpm".into(),
                EntryProblem::TooWide {
                    what: "high of hdr.pathid.id_len".into(),
                    value: 300,
                    bits: 8,
                },
            ),
        ),
        (
            lpm(0, 1 << 63, 1, 64, None),
            entry(
                "CanopyIngress.pathid_lpm".into(),
                EntryProblem::Priority { needed: true },
            ),
        ),
        (
            Op::Add {
                table: "canopy_port",
                key: vec![exact("standard_metadata.ingress_port", v(9, 0))],
                call: port_info(0),
                prefix_len: Some(3),
            },
            entry(port_table(), EntryProblem::Priority { needed: false }),
        ),
    ]
}

#[test]
fn every_unresolvable_name_is_a_typed_error() {
    let cases = unresolvable_names().into_iter().chain(unfitting_values());
    for (op, want) in cases {
        let got = rt(std::slice::from_ref(&op)).unwrap_err();
        assert_eq!(got, want, "{op:?}");
        assert!(got.to_string().contains("switch s: table CanopyIngress."));
    }
    // the same field twice
    let twice = Op::Add {
        table: "fwd_member",
        key: vec![exact("meta.group", v(16, 0)), exact("meta.group", v(16, 1))],
        call: call("set_egress", vec![("port", v(9, 0))]),
        prefix_len: None,
    };
    assert!(matches!(
        rt(&[twice]),
        Err(P4InfoError::Entry {
            problem: EntryProblem::BadMatch {
                what: "given twice",
                ..
            },
            ..
        })
    ));
}

#[test]
fn a_match_kind_the_p4info_does_not_have_is_a_typed_error() {
    let mut f = fixture();
    f["tables"][4]["matchFields"][0]["matchType"] = json!("LPM");
    let err = p4runtime("s", &[lpm(0, 1 << 63, 1, 64, Some(1))], &info(&f), 0).unwrap_err();
    assert_eq!(
        err,
        entry(
            "CanopyIngress.pathid_lpm".into(),
            EntryProblem::MatchKind {
                field: "hdr.pathid.id".into(),
                p4info: "LPM".into(),
                generator: "TERNARY"
            }
        )
    );
}

#[test]
fn p4info_files_that_are_not_a_json_p4info_are_refused() {
    let text = "pkg_info {\n  arch: \"v1model\"\n}\ntables {\n}\n";
    assert_eq!(
        P4Info::from_json(text, "x").unwrap_err(),
        P4InfoError::NotJson { path: "x".into() }
    );
    let e = P4Info::load(std::path::Path::new("/nonexistent/canopy.p4info.txtpb")).unwrap_err();
    assert!(matches!(e, P4InfoError::NotJson { .. }));
    assert!(e
        .to_string()
        .contains("--p4runtime-files OUTDIR/canopy.p4info.json"));
    assert!(matches!(
        P4Info::load(std::path::Path::new("/nonexistent/x.json")),
        Err(P4InfoError::Io { .. })
    ));
    assert!(matches!(
        P4Info::from_json(r#"{"tables": 5}"#, "x"),
        Err(P4InfoError::Json { .. })
    ));
    // the bmv2 JSON is JSON but not a P4Info
    assert_eq!(
        P4Info::from_json(r#"{"header_types": [], "pipelines": []}"#, "x").unwrap_err(),
        P4InfoError::NoTables { path: "x".into() }
    );
    let mut f = fixture();
    f["counters"] = json!([]);
    assert_eq!(
        p4runtime("s", &[], &info(&f), 0),
        Err(P4InfoError::NoDropCounter)
    );
    assert_eq!(info(&fixture()).drop_counter_id(), Ok(31));
}
