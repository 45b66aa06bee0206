//! Batches: in order, each update's outcome, all-or-nothing where asked, ports checked.

use super::*;
use canopy_control::p4::program_p4info;
use canopy_control::p4::runtime::from_state;
use canopy_control::p4::{ActionCall, EntryKey, FieldMatch};
use canopy_p4rt::v1::Entity;

/// A switch of 4 ports whose hop records carry id 7.
const T4: Target = Target {
    ports: 4,
    switch_id: 7,
};

/// A switch of 16 ports.
const T16: Target = Target {
    ports: 16,
    switch_id: 7,
};

fn pipeline() -> Pipeline {
    Pipeline::check(&program_p4info()).unwrap()
}

fn t(name: &str) -> usize {
    schema::table(name).unwrap().0
}

/// A canopy_port update of `port` with role `role`.
fn port(p: &Pipeline, kind: UpdateType, port: u64, role: u64) -> Update {
    let key = EntryKey {
        fields: vec![FieldMatch::Exact(port)],
        priority: 0,
    };
    let call = ActionCall {
        action: "set_port_info",
        params: vec![role, 0],
    };
    Update {
        r#type: kind as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::TableEntry(from_state(
                p,
                t("canopy_port"),
                Some(&key),
                &call,
            ))),
        }),
    }
}

fn codes(a: &Applied) -> Vec<i32> {
    a.errors
        .iter()
        .map(|e| e.as_ref().map_or(0, |e| e.code))
        .collect()
}

#[test]
fn updates_apply_in_order_and_each_reports_its_outcome() {
    let p = pipeline();
    let s0 = P4State::new();
    let batch = [
        port(&p, UpdateType::Insert, 1, 0),
        port(&p, UpdateType::Insert, 1, 1),
        port(&p, UpdateType::Modify, 1, 2),
        port(&p, UpdateType::Delete, 2, 0),
        port(&p, UpdateType::Insert, 9, 0),
        port(&p, UpdateType::Unspecified, 3, 0),
    ];
    let a = apply(&s0, &p, &T4, &batch, Atomicity::ContinueOnError as i32);
    assert_eq!(
        codes(&a),
        vec![0, ALREADY_EXISTS, 0, NOT_FOUND, 11, INVALID_ARGUMENT]
    );
    assert!(!a.ok());
    let tables = a.state.tables("x", 4).unwrap();
    assert_eq!(
        tables.ports[1].role,
        canopy_dataplane::table::PortRole::Side,
        "the insert, then the modify"
    );
    // all or nothing: the same batch leaves the state as it was and aborts the rest
    for atomicity in [Atomicity::RollbackOnError, Atomicity::DataplaneAtomic] {
        let a = apply(&s0, &p, &T4, &batch, atomicity as i32);
        assert_eq!(a.state, s0);
        assert_eq!(
            codes(&a),
            vec![
                ABORTED,
                ALREADY_EXISTS,
                ABORTED,
                NOT_FOUND,
                11,
                INVALID_ARGUMENT
            ]
        );
    }
    // a clean batch applies whole in every mode
    let good = [
        port(&p, UpdateType::Insert, 0, 1),
        port(&p, UpdateType::Insert, 3, 0),
    ];
    for atomicity in [0, 1, 2] {
        let a = apply(&s0, &p, &T4, &good, atomicity);
        assert!(a.ok());
        assert_eq!(a.state.len(), 2);
    }
    // a delete names its entry by the key: without an action (as a controller sends
    // it), or with any action, which is not looked at
    let s1 = apply(&s0, &p, &T4, &good, 0).state;
    let mut bare = port(&p, UpdateType::Delete, 0, 1);
    if let Some(entity::Entity::TableEntry(e)) =
        bare.entity.as_mut().and_then(|e| e.entity.as_mut())
    {
        e.action = None;
    }
    let other = port(&p, UpdateType::Delete, 3, 2);
    let a = apply(&s1, &p, &T4, &[bare, other], 0);
    assert!(a.ok(), "{:?}", codes(&a));
    assert!(a.state.is_empty());
}

#[test]
fn whole_batches_are_refused_for_their_size_or_atomicity() {
    let p = pipeline();
    let s0 = P4State::new();
    let a = apply(&s0, &p, &T4, &[port(&p, UpdateType::Insert, 0, 1)], 7);
    assert_eq!(codes(&a), vec![INVALID_ARGUMENT]);
    let big = vec![port(&p, UpdateType::Insert, 0, 1); MAX_UPDATES + 1];
    let a = apply(&s0, &p, &T4, &big, 0);
    assert!(a
        .errors
        .iter()
        .all(|e| e.as_ref().unwrap().code == RESOURCE_EXHAUSTED));
    assert_eq!(a.state, s0);
}

#[test]
fn other_entities_defaults_and_groups_have_their_rules() {
    let p = pipeline();
    let s0 = P4State::new();
    let counter = Update {
        r#type: UpdateType::Modify as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::CounterEntry(Default::default())),
        }),
    };
    let empty = Update {
        r#type: UpdateType::Insert as i32,
        entity: None,
    };
    let cfg = |kind: UpdateType, params: Vec<u64>| Update {
        r#type: kind as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::TableEntry(from_state(
                &p,
                t("transit_cfg"),
                None,
                &ActionCall {
                    action: if params.is_empty() {
                        "transit_off"
                    } else {
                        "set_transit_cfg"
                    },
                    params,
                },
            ))),
        }),
    };
    // a transit_dir entry to a group (its first parameter is a group, not a port)
    let dir = Update {
        r#type: UpdateType::Insert as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::TableEntry(from_state(
                &p,
                t("transit_dir"),
                Some(&EntryKey {
                    fields: vec![FieldMatch::Exact(0), FieldMatch::Exact(1)],
                    priority: 0,
                }),
                &ActionCall {
                    action: "dir_group",
                    params: vec![300, 1, 0],
                },
            ))),
        }),
    };
    let batch = [
        counter,
        empty,
        cfg(UpdateType::Insert, vec![1]),
        cfg(UpdateType::Modify, vec![1]),
        dir,
    ];
    let a = apply(&s0, &p, &T16, &batch, 0);
    assert_eq!(
        codes(&a),
        vec![UNIMPLEMENTED, INVALID_ARGUMENT, INVALID_ARGUMENT, 0, 0]
    );
    assert!(a.state.tables("x", 16).unwrap().transit.is_some());
    // DELETE of a default puts the program's back
    let b = apply(&a.state, &p, &T16, &[cfg(UpdateType::Delete, vec![])], 0);
    assert!(b.ok());
    assert!(b.state.tables("x", 16).unwrap().transit.is_none());
}

#[test]
fn the_hop_switch_id_must_be_the_switchs_own() {
    let p = pipeline();
    let hop = |id: u64| Update {
        r#type: UpdateType::Modify as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::TableEntry(from_state(
                &p,
                t("hop_cfg"),
                None,
                &ActionCall {
                    action: "set_hop_switch",
                    params: vec![id],
                },
            ))),
        }),
    };
    let s0 = P4State::new();
    let a = apply(&s0, &p, &T4, &[hop(7)], 0);
    assert!(a.ok(), "{:?}", a.errors);
    assert_eq!(a.state.hop_switch(), Some(7));
    let a = apply(&s0, &p, &T4, &[hop(3)], 0);
    assert_eq!(codes(&a), [UNIMPLEMENTED]);
    assert_eq!(
        a.errors[0].as_ref().unwrap().what,
        "hop_cfg: hop switch id 3, but this switch's hop records carry 7 (its [switch] id, set at start)"
    );
    assert_eq!(a.state, s0);
}
