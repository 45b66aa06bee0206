//! The updates between two states, applied as a target applies them, give the second;
//! a state read back entry by entry is the state written.

use super::*;
use crate::p4::{entries, program_p4info};
use crate::{kinds, topology::build_str};
use canopy_dataplane::wire::Kind;
use canopy_p4rt::v1::entity::Entity as E;

fn pipeline() -> Pipeline {
    Pipeline::check(&program_p4info()).unwrap()
}

/// `s` after `ups`, applied in order as a target does.
fn apply(p: &Pipeline, s: &P4State, ups: &[Update]) -> P4State {
    let mut s = s.clone();
    for u in ups {
        let Some(E::TableEntry(e)) = u.entity.as_ref().and_then(|e| e.entity.as_ref()) else {
            panic!("not a table entry: {u:?}")
        };
        match UpdateType::try_from(u.r#type).unwrap() {
            UpdateType::Insert => {
                let (t, k, c) = to_state(p, e).unwrap();
                s.insert(t, k.unwrap(), c).unwrap();
            }
            UpdateType::Modify => {
                let (t, k, c) = to_state(p, e).unwrap();
                match k {
                    Some(k) => s.modify(t, &k, c).unwrap(),
                    None => s.set_default(t, c).unwrap(),
                }
            }
            UpdateType::Delete => {
                assert!(e.action.is_none(), "a delete carries the key alone");
                let (t, k) = super::super::key_of(p, e).unwrap();
                s.delete(t, &k.unwrap()).unwrap();
            }
            UpdateType::Unspecified => panic!("unspecified update"),
        }
    }
    s
}

/// The program state of every switch of `spec` with header kind `kind`.
fn states(spec: &str, kind: Kind) -> Vec<P4State> {
    let topo = build_str(spec).unwrap();
    kinds::tables(&topo, kind)
        .unwrap()
        .iter()
        .map(|t| P4State::from_ops(&entries(t).unwrap()).unwrap())
        .collect()
}

#[test]
fn updates_turn_one_state_into_another() {
    let p = pipeline();
    for (spec, kind) in [
        ("fat-tree:k=4", Kind::Sliced),
        ("fat-tree:k=4", Kind::PathId),
        ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
    ] {
        let s = states(spec, kind);
        let empty = P4State::new();
        let (a, b) = (&s[0], &s[s.len() - 1]);
        assert_ne!(a, b, "{spec}: two switches, two states");
        // from nothing: inserts and default actions only
        let ups = updates(&p, &empty, a);
        assert!(ups.iter().all(|u| u.r#type != UpdateType::Delete as i32));
        assert_eq!(&apply(&p, &empty, &ups), a, "{spec}: empty -> a");
        // one switch's state to another's: inserts, changed actions and deletes
        let ups = updates(&p, a, b);
        assert_eq!(&apply(&p, a, &ups), b, "{spec}: a -> b");
        // back to nothing: deletes and the program's defaults
        assert_eq!(
            apply(&p, b, &updates(&p, b, &empty)),
            empty,
            "{spec}: b -> empty"
        );
        // nothing to do when equal
        assert!(updates(&p, a, a).is_empty());
    }
}

#[test]
fn deletes_come_after_inserts_and_modifies() {
    let p = pipeline();
    let s = states("fat-tree:k=4", Kind::Sliced);
    let ups = updates(&p, &s[0], &s[s.len() - 1]);
    let kinds: Vec<i32> = ups.iter().map(|u| u.r#type).collect();
    let first_delete = kinds.iter().position(|&k| k == UpdateType::Delete as i32);
    if let Some(d) = first_delete {
        assert!(kinds[d..].iter().all(|&k| k == UpdateType::Delete as i32));
    }
}

#[test]
fn a_state_read_back_entry_by_entry_is_the_state_written() {
    let p = pipeline();
    for s in states("fat-tree:k=4", Kind::PathId) {
        // what a target answers to `read_all`: its entries, then every default action
        let mut read: Vec<TableEntry> = Vec::new();
        for t in 0..TABLES.len() {
            for (k, c) in s.entries(t) {
                read.push(from_state(&p, t, Some(k), c));
            }
        }
        for t in 0..TABLES.len() {
            read.push(from_state(&p, t, None, s.default_action(t)));
        }
        assert_eq!(state_of(&p, &read).unwrap(), s);
        // an entry twice is not a state
        let twice = read.iter().chain(read.first());
        assert!(matches!(state_of(&p, twice), Err(ReadBackError::State(_))));
    }
    // what `read_all` asks for: one wildcard, then each table's default action
    let r = read_all(&p);
    assert_eq!(r.len(), 1 + TABLES.len());
    let Some(E::TableEntry(w)) = &r[0].entity else {
        panic!()
    };
    assert_eq!((w.table_id, w.is_default_action), (0, false));
    let Some(E::TableEntry(d)) = &r[1].entity else {
        panic!()
    };
    assert_eq!((d.table_id, d.is_default_action), (p.table_ids[0], true));
}
