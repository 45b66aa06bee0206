//! Cross-crate: every topology family with every header kind that applies to it, all
//! ordered host pairs walked by the oracle through the dataplane's own decisions.

use canopy::control::oracle::{self, Oracle};
use canopy::control::{kinds, topology};
use canopy::dataplane::wire::Kind;

/// (spec, the kinds that must apply to it)
const CASES: &[(&str, &[Kind])] = &[
    ("fat-tree:k=4", &[Kind::Sliced, Kind::PathId]),
    ("fat-tree:k=6", &[Kind::Sliced, Kind::PathId]),
    ("znode:z=3,2,3;r=1,3,6;m=2", &[Kind::Sliced]),
    ("znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=2", &[Kind::Sliced]),
    ("kary-ntree:k=2;n=4", &[Kind::Sliced, Kind::PathId]),
    // w1 = 2: hosts are dual-homed, which path-ID refuses (the ID starts at the source's
    // one leaf); w1 = 1 gives path-ID too.
    ("xgft:h=2;m=3,4;w=2,2", &[Kind::Sliced]),
    ("xgft:h=2;m=4,4;w=1,4", &[Kind::Sliced, Kind::PathId]),
    ("vl2:da=8;di=4;servers=2", &[Kind::Sliced, Kind::PathId]),
    ("benes:m=16;n=4", &[Kind::Sliced, Kind::PathId]),
    ("transit-full:layers=1", &[Kind::Transit]),
    ("transit-hybrid:leaf=12;layers=1", &[Kind::Transit]),
];

#[test]
fn every_family_every_kind_all_pairs() {
    for (spec, want) in CASES {
        let t = topology::build_str(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        t.validate().unwrap_or_else(|e| panic!("{spec}: {e}"));
        let got = kinds::kinds_for(&t);
        for k in *want {
            assert!(
                got.contains(k),
                "{spec}: kind {k} should apply, got {got:?}"
            );
        }
        for k in got {
            let rep = kinds::check_pairs(&t, k, oracle::all_pairs(&t), 7)
                .unwrap_or_else(|e| panic!("{spec} {k}: {e}"));
            rep.ensure_all_ok()
                .unwrap_or_else(|e| panic!("{spec} {k}: {e}"));
            assert_eq!(rep.pairs, (t.hosts.len() * (t.hosts.len() - 1)) as u64);
        }
    }
}

#[test]
fn outcome_does_not_depend_on_adaptive_choices() {
    for (spec, _) in CASES {
        let t = topology::build_str(spec).unwrap();
        for k in kinds::kinds_for(&t) {
            let o = Oracle::for_kind(&t, k).unwrap();
            let pairs = oracle::random_pairs(&t, 200, 3);
            let runs: Vec<Vec<(Option<u32>, usize)>> = (0..4u64)
                .map(|seed| {
                    let rep = kinds::check_pairs(&t, k, pairs.clone(), seed).unwrap();
                    rep.ensure_all_ok().unwrap();
                    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
                    pairs
                        .iter()
                        .map(|&(s, d)| {
                            let w = o.walk(k, s, d, &mut rng).unwrap();
                            (w.delivered_to(), w.switch_hops())
                        })
                        .collect()
                })
                .collect();
            for r in &runs[1..] {
                assert_eq!(
                    r, &runs[0],
                    "{spec} {k}: outcome changed with the adaptive choices"
                );
            }
        }
    }
}
