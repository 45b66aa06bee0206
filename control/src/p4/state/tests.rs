//! What the state refuses, and the partial states a control plane passes through.

use super::*;

fn t(name: &str) -> usize {
    schema::table(name).unwrap().0
}

fn key(fields: Vec<FieldMatch>, priority: u32) -> EntryKey {
    EntryKey { fields, priority }
}

fn call(action: &'static str, params: Vec<u64>) -> ActionCall {
    ActionCall { action, params }
}

fn lpm(len: u8, value: u64) -> EntryKey {
    let mask = if len == 0 { 0 } else { u64::MAX << (64 - len) };
    key(
        vec![
            FieldMatch::Ternary { value, mask },
            FieldMatch::Range {
                lo: u64::from(len),
                hi: 64,
            },
        ],
        u32::from(len) + 1,
    )
}

#[test]
fn writes_are_checked_against_the_program_and_refusals_change_nothing() {
    let mut s = P4State::new();
    let port = |p| key(vec![FieldMatch::Exact(p)], 0);
    s.insert(t("canopy_port"), port(1), call("set_port_info", vec![1, 0]))
        .unwrap();
    let before = s.clone();
    let cases: Vec<(Result<(), StateError>, &str)> = vec![
        (
            s.insert(t("canopy_port"), port(1), call("set_port_info", vec![1, 0])),
            "the entry exists",
        ),
        (
            s.insert(
                t("canopy_port"),
                port(512),
                call("set_port_info", vec![1, 0]),
            ),
            "standard_metadata.ingress_port = 512 does not fit 9 bits",
        ),
        (
            s.insert(t("canopy_port"), port(2), call("set_port_info", vec![4, 0])),
            "role = 4 does not fit 2 bits",
        ),
        (
            s.insert(t("canopy_port"), port(2), call("set_port_info", vec![1])),
            "takes 2 parameters, not 1",
        ),
        (
            s.insert(t("canopy_port"), port(2), call("to_group", vec![1])),
            "\"to_group\" is not one of its actions",
        ),
        (
            s.insert(
                t("canopy_port"),
                key(vec![], 0),
                call("port_unknown", vec![]),
            ),
            "0 key fields given, the table has 1",
        ),
        (
            s.insert(
                t("canopy_port"),
                key(vec![FieldMatch::Exact(2)], 3),
                call("port_unknown", vec![]),
            ),
            "priority 3 is not allowed",
        ),
        (
            s.insert(t("sliced_cfg"), key(vec![], 0), call("sliced_off", vec![])),
            "a configuration table takes no entries",
        ),
        (
            s.insert(
                t("sliced_down"),
                key(vec![FieldMatch::Exact(1 << 16)], 0),
                call("to_group", vec![0]),
            ),
            "canopy-switch holds labels below 65536",
        ),
        (
            s.insert(
                t("fwd_group"),
                key(vec![FieldMatch::Ternary { value: 1, mask: 1 }], 0),
                call("group_empty", vec![]),
            ),
            "meta.group matches EXACT",
        ),
        (
            s.modify(t("canopy_port"), &port(9), call("port_unknown", vec![])),
            "no such entry",
        ),
        (
            s.delete(t("canopy_port"), &port(9)).map(drop),
            "no such entry",
        ),
        (
            s.set_default(t("fwd_group"), call("set_group", vec![2])),
            "keeps a keyed table's default action",
        ),
        (
            s.set_default(t("sliced_cfg"), call("set_sliced_cfg", vec![4; 14])),
            "has_up = 4 does not fit 1 bits",
        ),
        (
            s.set_default(
                t("sliced_cfg"),
                call(
                    "set_sliced_cfg",
                    vec![9, 1, 0, 1, 1, 1, 2, 0, 1, 1, 2, 0, 0, 0],
                ),
            ),
            "mode 9 is not a sliced-flit mode",
        ),
    ];
    for (r, want) in cases {
        let e = r.unwrap_err().to_string();
        assert!(e.contains(want), "{e} lacks {want:?}");
    }
    assert_eq!(s, before, "a refused write changes nothing");
    assert!(matches!(
        P4State::from_ops(&[Op::SetDefault {
            table: "nope",
            call: super::super::Call {
                action: "miss",
                params: vec![]
            }
        }]),
        Err(StateError::UnknownTable(n)) if n == "nope"
    ));
}

#[test]
fn path_id_entries_must_be_longest_prefix_entries() {
    let mut s = P4State::new();
    let lpm_t = t("pathid_lpm");
    let go = call("pid_port", vec![1, 3]);
    s.insert(lpm_t, lpm(3, 0b101 << 61), go.clone()).unwrap();
    s.insert(lpm_t, lpm(0, 0), go.clone()).unwrap();
    let mut bad_priority = lpm(4, 0b1010 << 60);
    bad_priority.priority = 9;
    let mut bad_range = lpm(4, 0b1010 << 60);
    bad_range.fields[1] = FieldMatch::Range { lo: 4, hi: 32 };
    let holes = key(
        vec![
            FieldMatch::Ternary {
                value: 0,
                mask: 0xf0f0 << 48,
            },
            FieldMatch::Range { lo: 8, hi: 64 },
        ],
        9,
    );
    for k in [bad_priority, bad_range, holes] {
        let e = s.insert(lpm_t, k, go.clone()).unwrap_err().to_string();
        assert!(e.contains("longest-prefix entries"), "{e}");
    }
    let mut outside = lpm(4, 0b1010 << 60);
    outside.fields[0] = FieldMatch::Ternary {
        value: 1,
        mask: 0xf << 60,
    };
    let e = s
        .insert(lpm_t, outside, go.clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bits outside its mask"), "{e}");
    let mut none = lpm(4, 0);
    none.priority = 0;
    let e = s.insert(lpm_t, none, go.clone()).unwrap_err().to_string();
    assert!(e.contains("is missing"), "{e}");
    s.set_default(t("pathid_cfg"), call("set_pathid_cfg", vec![0]))
        .unwrap();
    let tables = s.tables("x", 4).unwrap();
    let pid = tables.pathid.unwrap();
    assert_eq!(pid.entries().len(), 2);
    assert_eq!((pid.entries()[0].value, pid.entries()[0].len), (0b101, 3));
    // a port past the switch's is refused when the tables are built
    assert!(s.tables("x", 3).unwrap_err().to_string().contains("port 3"));
}

#[test]
fn a_state_being_programmed_forwards_what_it_has() {
    let mut s = P4State::new();
    // a label's group before fwd_group has it: the group exists, empty (drops no_port)
    s.set_default(
        t("sliced_cfg"),
        call(
            "set_sliced_cfg",
            vec![0, 1, 0, 1, 0, 2, 4, 0, 2, 2, 2, 0, 1, 5],
        ),
    )
    .unwrap();
    s.insert(
        t("sliced_down"),
        key(vec![FieldMatch::Exact(2)], 0),
        call("to_group", vec![3]),
    )
    .unwrap();
    let tb = s.tables("x", 4).unwrap();
    assert_eq!(tb.groups.len(), 6, "up group 5 and label group 3 exist");
    assert!(tb.groups.iter().all(Vec::is_empty));
    assert_eq!(tb.sliced.as_ref().unwrap().down, vec![None, None, Some(3)]);
    assert_eq!(tb.sliced.as_ref().unwrap().up, Some(5));
    // every port without a canopy_port entry only transmits
    assert!(tb.ports.iter().all(|p| p.dir == PortDir::Out));
    // a group sized 3 with two members written spreads over those two, in bucket order
    let g = |grp, bucket| key(vec![FieldMatch::Exact(grp), FieldMatch::Exact(bucket)], 0);
    s.insert(
        t("fwd_group"),
        key(vec![FieldMatch::Exact(3)], 0),
        call("set_group", vec![3]),
    )
    .unwrap();
    s.insert(t("fwd_member"), g(3, 2), call("set_egress", vec![1]))
        .unwrap();
    s.insert(t("fwd_member"), g(3, 0), call("set_egress", vec![2]))
        .unwrap();
    s.insert(t("fwd_member"), g(4, 0), call("set_egress", vec![0]))
        .unwrap();
    let tb = s.tables("x", 4).unwrap();
    assert_eq!(tb.groups[3], vec![2, 1]);
    assert!(tb.groups[4].is_empty(), "no fwd_group size: empty");
    // the configuration back to off: the kind is not configured
    s.reset_default(t("sliced_cfg"));
    assert!(s.tables("x", 4).unwrap().sliced.is_none());
    assert_eq!(s.len(), 5);
    assert!(!s.is_empty());
}
