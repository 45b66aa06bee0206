//! The specification's arbitration rules, case by case.

use super::*;
use canopy_p4rt::rpc::Any;
use canopy_p4rt::v1::Role;

fn arb(device: u64, eid: Option<u128>) -> MasterArbitrationUpdate {
    MasterArbitrationUpdate {
        device_id: device,
        election_id: eid.map(Uint128::of),
        ..Default::default()
    }
}

/// (stream, status code, election id) of each notice.
fn seen(n: &Notices) -> Vec<(Client, i32, Option<u128>)> {
    n.iter()
        .map(|(c, m)| {
            (
                *c,
                m.status.as_ref().unwrap().code,
                m.election_id.map(|e| e.get()),
            )
        })
        .collect()
}

#[test]
fn the_highest_election_id_ever_seen_is_primary_and_everyone_is_told() {
    let mut a = Arbiter::new(1);
    assert_eq!(
        seen(&a.update(10, &arb(1, Some(5))).unwrap()),
        vec![(10, OK, Some(5))]
    );
    // a lower id: a backup, told alone
    assert_eq!(
        seen(&a.update(11, &arb(1, Some(3))).unwrap()),
        vec![(11, ALREADY_EXISTS, Some(5))]
    );
    // a higher id takes over; both are told
    assert_eq!(
        seen(&a.update(12, &arb(1, Some(9))).unwrap()),
        vec![
            (10, ALREADY_EXISTS, Some(9)),
            (11, ALREADY_EXISTS, Some(9)),
            (12, OK, Some(9))
        ]
    );
    assert_eq!(a.primary(), Some(12));
    assert!(a.may_write(1, "", Some(Uint128::of(9))).is_ok());
    let e = a.may_write(1, "", Some(Uint128::of(5))).unwrap_err();
    assert_eq!(e.code, PERMISSION_DENIED);
    // the primary leaves: no primary, the backups hear NOT_FOUND with the highest id
    assert_eq!(
        seen(&a.disconnect(12)),
        vec![(10, NOT_FOUND, Some(9)), (11, NOT_FOUND, Some(9))]
    );
    assert_eq!(
        a.may_write(1, "", Some(Uint128::of(9))).unwrap_err().code,
        PERMISSION_DENIED
    );
    // 5 is below the highest ever seen (9): still no primary
    assert_eq!(
        seen(&a.update(10, &arb(1, Some(5))).unwrap()),
        vec![(10, NOT_FOUND, Some(9))]
    );
    // 9 again (equal to the highest) becomes primary
    assert_eq!(
        seen(&a.update(11, &arb(1, Some(9))).unwrap()),
        vec![(10, ALREADY_EXISTS, Some(9)), (11, OK, Some(9))]
    );
    // the primary downgrades itself: everyone is told there is none
    assert_eq!(
        seen(&a.update(11, &arb(1, Some(2))).unwrap()),
        vec![(10, NOT_FOUND, Some(9)), (11, NOT_FOUND, Some(9))]
    );
    assert_eq!(a.primary(), None);
    // a backup leaving tells no one
    assert!(a.disconnect(10).is_empty());
    assert!(a.disconnect(77).is_empty());
    assert_eq!(a.len(), 1);
}

#[test]
fn before_any_primary_the_election_id_is_left_out() {
    let mut a = Arbiter::new(1);
    assert_eq!(
        seen(&a.update(1, &arb(1, None)).unwrap()),
        vec![(1, NOT_FOUND, None)]
    );
    assert_eq!(
        a.may_write(1, "", None).unwrap_err().code,
        PERMISSION_DENIED
    );
}

#[test]
fn what_the_specification_refuses_is_refused_and_changes_nothing() {
    let mut a = Arbiter::new(1);
    a.update(1, &arb(1, Some(5))).unwrap();
    let before = a.clone();
    let named = MasterArbitrationUpdate {
        role: Some(Role {
            name: "sdn".into(),
            ..Default::default()
        }),
        ..arb(1, Some(6))
    };
    let configured = MasterArbitrationUpdate {
        role: Some(Role {
            config: Some(Any::default()),
            ..Default::default()
        }),
        ..arb(1, Some(6))
    };
    for (c, m, code, want) in [
        (
            2,
            arb(2, Some(6)),
            NOT_FOUND,
            "device 2 is not this switch's (1)",
        ),
        (1, arb(2, Some(6)), FAILED_PRECONDITION, "device 2"),
        (
            2,
            arb(1, Some(5)),
            INVALID_ARGUMENT,
            "election id 5 is another live controller's",
        ),
        (2, named.clone(), INVALID_ARGUMENT, "default role only"),
        (1, named, FAILED_PRECONDITION, "default role only"),
        (2, configured, INVALID_ARGUMENT, "role.config"),
    ] {
        let e = a.update(c, &m).unwrap_err();
        assert_eq!(e.code, code, "{e}");
        assert!(e.what.contains(want), "{e} lacks {want:?}");
        assert_eq!(a, before);
    }
    // a controller may keep its own id
    assert!(a.update(1, &arb(1, Some(5))).is_ok());
    // writes: another device, a role
    assert_eq!(
        a.may_write(3, "", Some(Uint128::of(5))).unwrap_err().code,
        NOT_FOUND
    );
    assert_eq!(
        a.may_write(1, "sdn", Some(Uint128::of(5)))
            .unwrap_err()
            .code,
        PERMISSION_DENIED
    );
    // at most MAX_CLIENTS streams
    for c in 2..=MAX_CLIENTS as u64 {
        a.update(c, &arb(1, Some(u128::from(c) + 100))).unwrap();
    }
    let e = a.update(99, &arb(1, None)).unwrap_err();
    assert_eq!(e.code, RESOURCE_EXHAUSTED);
}
