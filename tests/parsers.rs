//! Cross-crate: the control-plane parsers (spec strings into every family generator, host
//! references) never panic and reject bad input with a message naming what is wrong.

use canopy::control::topology::{self, FAMILIES};
use proptest::prelude::*;

fn small_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..12).prop_map(|v| v.to_string()),
        proptest::collection::vec(0u64..6, 1..4).prop_map(|v| v
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")),
        "[a-z0-9x,;=:-]{0,6}",
    ]
}

fn spec_strategy() -> impl Strategy<Value = String> {
    let fam = proptest::sample::select(FAMILIES.iter().map(|f| f.0).collect::<Vec<_>>());
    let key = proptest::sample::select(vec![
        "k", "n", "z", "r", "psi", "layers", "m", "h", "w", "leaf", "da", "di", "servers", "q",
    ]);
    (fam, proptest::collection::vec((key, small_value()), 0..4)).prop_map(|(f, ps)| {
        let body: Vec<String> = ps.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{f}:{}", body.join(";"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_small_specs_never_panic(spec in spec_strategy()) {
        match topology::build_str(&spec) {
            Ok(t) => {
                prop_assert!(t.validate().is_ok(), "{spec}: {:?}", t.validate());
                prop_assert!(!t.hosts.is_empty(), "{spec}: built with no hosts");
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn host_references_never_panic(s in ".{0,16}") {
        for spec in ["fat-tree:k=4", "znode:z=3,2,3;m=2", "transit-full:layers=1", "vl2:da=8;di=4;servers=2", "benes:m=16;n=4"] {
            let t = topology::build_str(spec).unwrap();
            if let Ok(h) = topology::parse_host(&t, &s) {
                prop_assert!((h as usize) < t.hosts.len());
            }
        }
    }
}

#[test]
fn bad_specs_say_what_is_wrong() {
    let cases = [
        ("", "missing family"),
        ("nosuch:k=4", "unknown topology family"),
        ("fat-tree:k=5", "k"),
        ("fat-tree:k=4;q=1", "`q` is not a parameter"),
        ("fat-tree:k=abc", "not a non-negative integer"),
        ("znode:z=3,2,3;m=0", "m"),
        ("transit-full:layers=0", "layers"),
        ("benes:m=15;n=4", "m"),
    ];
    for (spec, want) in cases {
        let e = topology::build_str(spec).expect_err(spec).to_string();
        assert!(
            e.contains(want),
            "{spec}: error `{e}` should mention `{want}`"
        );
    }
}

#[test]
fn every_family_example_builds() {
    for (name, _, example) in FAMILIES {
        let t = topology::build_str(example).unwrap_or_else(|e| panic!("{name}: {example}: {e}"));
        t.validate().unwrap();
        assert!(!t.switches.is_empty() && !t.hosts.is_empty(), "{example}");
    }
}

#[test]
fn describing_a_missing_host_is_empty_not_a_panic() {
    // `describe_host` indexed `t.hosts[h]` (and the Znode and Transit rows did too), so a
    // host id one past the end panicked instead of describing nothing.
    for (_, _, example) in FAMILIES {
        let t = topology::build_str(example).unwrap();
        let n = t.hosts.len() as u32;
        assert!(!topology::describe_host(&t, n - 1).is_empty(), "{example}");
        for h in [n, u32::MAX] {
            assert_eq!(topology::describe_host(&t, h), vec![], "{example} h{h}");
            // the family rows themselves, for the families that indexed
            if t.znode.is_some() && !example.starts_with("fat-tree") {
                assert_eq!(topology::znode::describe_host(&t, h), vec![], "{example}");
            }
            if example.starts_with("transit") {
                assert_eq!(topology::transit::describe_host(&t, h), vec![], "{example}");
            }
        }
    }
}
