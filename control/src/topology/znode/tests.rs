use super::*;
use crate::topology::{build_str, describe_host, parse_host, Peer, PortRole};
use std::collections::BTreeMap;

fn per_level(t: &Topology) -> BTreeMap<u16, usize> {
    let mut m = BTreeMap::new();
    for s in &t.switches {
        *m.entry(s.level).or_insert(0) += 1;
    }
    m
}

fn ports_per_level(t: &Topology) -> BTreeMap<u16, Vec<usize>> {
    let mut m: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
    for s in &t.switches {
        let v = m.entry(s.level).or_default();
        if !v.contains(&s.ports.len()) {
            v.push(s.ports.len());
        }
    }
    m
}

#[test]
fn thesis_snode_counts() {
    // The Table 6.1 Snode m=2 z=(3,2,3) R=(1,3,6), counted as in docs/sliced-flit.md
    // §5 R1/R4: P = 36, switches/level {1: 12, 2: 18, 3: 12}, ports/switch
    // {1: 3+3+1, 2: 2+2+1, 3: 3+0+1} (down + up + side).
    let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
    t.validate().unwrap();
    assert_eq!(t.hosts.len(), 36);
    assert_eq!(per_level(&t), BTreeMap::from([(1, 12), (2, 18), (3, 12)]));
    assert_eq!(
        ports_per_level(&t),
        BTreeMap::from([(1, vec![7]), (2, vec![5]), (3, vec![4])])
    );
    // default r is the minimal rule (1, z1, z1 z2) = (1,3,6)
    let d = build_str("znode:z=3,2,3;m=2").unwrap();
    assert_eq!(d.switches.len(), t.switches.len());
    assert_eq!(d.link_count(), t.link_count());
}

#[test]
fn six_configuration_shapes() {
    // (spec, hosts, switches/level, ports/switch by level): the counts of
    // docs/sliced-flit.md §5 R1 (down + up + side links) and R4.
    type PerLevel = &'static [(u16, usize)];
    let cases: &[(&str, usize, PerLevel, PerLevel)] = &[
        (
            "znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=4",
            128,
            &[(1, 64), (2, 64), (3, 32)],
            &[(1, 11), (2, 11), (3, 11)],
        ),
        ("znode:z=4,2;r=1,4", 8, &[(1, 2), (2, 4)], &[(1, 8), (2, 2)]),
        (
            "znode:z=4,2,2;r=8,4,2;psi=1,2,2;layers=2",
            16,
            &[(1, 64), (2, 16), (3, 4)],
            &[(1, 6), (2, 10), (3, 8)],
        ),
        (
            "znode:z=2,3,2;r=2,3,2;m=3",
            36,
            &[(1, 36), (2, 18), (3, 6)],
            &[(1, 7), (2, 10), (3, 8)],
        ),
        (
            "znode:z=2,2,4;r=1,2,4",
            16,
            &[(1, 8), (2, 8), (3, 4)],
            &[(1, 4), (2, 4), (3, 4)],
        ),
    ];
    for (spec, hosts, lv, ports) in cases {
        let t = build_str(spec).unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts.len(), *hosts, "{spec}");
        assert_eq!(
            per_level(&t),
            lv.iter().copied().collect::<BTreeMap<_, _>>(),
            "{spec}"
        );
        assert_eq!(
            ports_per_level(&t),
            ports
                .iter()
                .map(|&(l, p)| (l, vec![p]))
                .collect::<BTreeMap<_, _>>(),
            "{spec}"
        );
    }
}

#[test]
fn app_e_network_map() {
    // [Znode thesis] Appendix E: z=(4,2), R=(1,4): "8 processors 6 switches";
    // Switch [0][1][0] serves processors 0-3, [0][1][1] serves 4-7.
    let t = build_str("znode:z=4,2;r=1,4").unwrap();
    assert_eq!((t.hosts.len(), t.switches.len()), (8, 6));
    for x in 0..8u64 {
        let h = &t.hosts[x as usize];
        let Peer::Switch { sw, .. } = h.ports[0].peer else {
            panic!()
        };
        assert_eq!(t.switches[sw as usize].zone, x / 4);
    }
}

#[test]
fn graph_contract_labels_and_zones() {
    for spec in [
        "znode:z=3,2,3;r=1,3,6;m=2",
        "znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=2",
        "znode:z=2,3,2;r=2,3,2;m=3;h=0,2,1",
        "kary-ntree:k=2;n=4",
        "xgft:h=2;m=3,4;w=2,2",
    ] {
        let t = build_str(spec).unwrap();
        t.validate().unwrap();
        // (I1)-(I3): zones, labels and groups of every down, up and side port
        t.check_znode_contract()
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        // host labels against eq 6.1/6.2, computed independently of the generator
        let g = geometry(&t).unwrap();
        for s in &t.switches {
            for p in &s.ports {
                if let (PortRole::Down, Peer::Host { host, .. }) = (p.role, p.peer) {
                    assert_eq!(s.level, 1, "{spec}");
                    let x = t.hosts[host as usize].index;
                    let (k, lab) = g.labels(x).unwrap();
                    assert_eq!((lab[0], k), (p.label, s.znode), "{spec} {}", s.name);
                }
            }
        }
    }
}

#[test]
fn kary_and_xgft_shapes() {
    // k-ary n-tree: k^(n-1) switches per level, 2k ports (k at the top).
    let t = build_str("kary-ntree:k=4;n=3").unwrap();
    assert_eq!(per_level(&t), BTreeMap::from([(1, 16), (2, 16), (3, 16)]));
    assert_eq!(
        ports_per_level(&t),
        BTreeMap::from([(1, vec![8]), (2, vec![8]), (3, vec![4])])
    );
    assert_eq!(t.hosts.len(), 64);
    let t = build_str("kary-ntree:k=2;n=4").unwrap();
    assert_eq!(t.hosts.len(), 16);
    assert_eq!(t.switches.len(), 32);
    // XGFT(2; 4,4; 1,4): 4 leaves of 4 processors, 4 tops with 4 children each.
    let t = build_str("xgft:h=2;m=4,4;w=1,4").unwrap();
    assert_eq!(per_level(&t), BTreeMap::from([(1, 4), (2, 4)]));
    assert_eq!(
        ports_per_level(&t),
        BTreeMap::from([(1, vec![8]), (2, vec![4])])
    );
    // XGFT(2; 3,4; 2,2): level-1 switches = w1·m2 = 8, level 2 = w1 w2 = 4;
    // processors have w1 = 2 parents, level-1 switches m1 + w2 = 5 ports, level-2
    // switches m2 = 4 children.
    let t = build_str("xgft:h=2;m=3,4;w=2,2").unwrap();
    assert_eq!(per_level(&t), BTreeMap::from([(1, 8), (2, 4)]));
    assert_eq!(
        ports_per_level(&t),
        BTreeMap::from([(1, vec![5]), (2, vec![4])])
    );
    assert!(t.hosts.iter().all(|h| h.ports.len() == 2));
}

#[test]
fn block_wiring_equals_fat_tree_k4() {
    // z=(2,2,4), R=(1,2,4), block wiring: agg a of each pod connects to cores
    // 2a and 2a+1, as in the Al-Fares k=4 fat tree.
    let t = build_str("znode:z=2,2,4;r=1,2,4;wiring=block").unwrap();
    for s in t.switches.iter().filter(|s| s.level == 2) {
        let cores: Vec<u32> = s
            .ports
            .iter()
            .filter(|p| p.role == PortRole::Up)
            .map(|p| match p.peer {
                Peer::Switch { sw, .. } => t.switches[sw as usize].index,
                _ => panic!(),
            })
            .collect();
        assert_eq!(cores, vec![2 * s.index, 2 * s.index + 1]);
    }
}

#[test]
fn addresses_thesis() {
    // [Znode thesis] Table 6.1: logical 26 -> (1;1,0,2) -> physical 42; on the same
    // Snode X=5 -> (0;0,1,2) -> 6 (eq. 6.1-6.3).
    let t = build_str("znode:z=3,2,3;m=2").unwrap();
    let rows: BTreeMap<String, String> = describe_host(&t, 26).into_iter().collect();
    assert_eq!(rows["labels"], "(1;1,0,2)");
    assert_eq!(rows["physical"], "42");
    assert!(
        rows["physical bin"].starts_with("1 01 0 10"),
        "{}",
        rows["physical bin"]
    );
    assert_eq!(rows["znode"], "1");
    let rows: BTreeMap<String, String> = describe_host(&t, 5).into_iter().collect();
    assert_eq!(
        (rows["labels"].as_str(), rows["physical"].as_str()),
        ("(0;0,1,2)", "6")
    );
    assert_eq!(parse_host(&t, "(1;1,0,2)").unwrap(), 26);
    assert_eq!(parse_host(&t, "phys:42").unwrap(), 26);
    assert_eq!(parse_host(&t, "phys:0b000110").unwrap(), 5);
    assert_eq!(parse_host(&t, "h7").unwrap(), 7);
    for bad in [
        "(2;0,0,0)",
        "(0;3,0,0)",
        "(0;0,0)",
        "(1,0,2)",
        "phys:3",
        "phys:x",
    ] {
        let e = parse_host(&t, bad).unwrap_err().to_string();
        assert!(e.contains(bad), "{e}");
    }
    let t1 = build_str("kary-ntree:k=4;n=3").unwrap();
    assert_eq!(parse_host(&t1, "(3,2,1)").unwrap(), 3 * 16 + 2 * 4 + 1);
}

#[test]
fn too_large_numbers_are_called_too_large() {
    // "(4294967296;0,0,0)" said "Znode id `4294967296` is not a number".
    let t = build_str("znode:z=3,2,3;m=2").unwrap();
    for (bad, want) in [
        ("(4294967296;0,0,0)", "Znode id `4294967296` is too large"),
        ("(1;4294967296,0,0)", "label `4294967296` is too large"),
        (
            "phys:99999999999999999999",
            "`99999999999999999999` is too large",
        ),
        (
            "phys:0x10000000000000000",
            "`0x10000000000000000` is too large",
        ),
        ("(x;0,0,0)", "Znode id `x` is not a number"),
        ("(1;-1,0,0)", "label `-1` is not a number"),
        ("phys:0b2", "`0b2` is not a number"),
    ] {
        let e = parse_host(&t, bad).unwrap_err().to_string();
        assert!(e.contains(want), "{bad}: {e}");
    }
}

#[test]
fn rejects_impossible_parameters_naming_them() {
    for (spec, key) in [
        ("znode:r=1,2", "`z`"),
        ("znode:z=3,2,3;r=1,3", "`r`"),
        ("znode:z=3,2,3;psi=2,1,1", "`psi`"),
        ("znode:z=2,2;r=2,4;psi=1,3", "`psi`"),
        ("znode:z=2,2;r=4,2;psi=1,3", "`psi`"),
        ("znode:z=2,2;r=2,3;psi=1,2", "`psi`"),
        ("znode:z=2,2;h=1,1", "`h`"),
        ("znode:z=2,2;m=2;h=1,0", "`h`"),
        ("znode:z=2,2;m=2;h=1", "`h`"),
        ("znode:z=2,2;r=2,3;conn=fwd", "`conn`"),
        ("znode:z=2,2;conn=up", "`conn`"),
        ("znode:z=2,2;conn=fwd,fwd", "`conn`"),
        ("znode:z=2,2;wiring=omega", "`wiring`"),
        ("znode:z=2,2;layers=0", "`layers`"),
        ("znode:z=2,2;q=1", "`q`"),
        ("znode:z=1024,1024,1024", "`z`"),
        ("znode:z=2,2;r=1,70000", "`r`"),
        ("xgft:h=2;m=4;w=1,4", "`m`"),
        ("xgft:h=2;m=4,4;w=1", "`w`"),
        ("kary-ntree:k=1;n=3", "`k`"),
        ("kary-ntree:k=4", "`n`"),
    ] {
        let e = build_str(spec).unwrap_err().to_string();
        assert!(e.contains(key), "{spec}: {e}");
    }
}

#[test]
fn size_errors_name_a_parameter_of_the_family() {
    // kary-ntree and xgft have no `z` or `r`; their size errors used to name them
    // ("kary-ntree:k=1024;n=3: parameter `z` gives ... (m·∏z_i)").
    for (spec, key, why) in [
        (
            "kary-ntree:k=1024;n=3",
            "`n`",
            "1073741824 processors (k^n)",
        ),
        ("kary-ntree:k=1024;n=2", "", ""),
        ("kary-ntree:k=8;n=7", "`n`", "switch ports"),
        (
            "xgft:h=2;m=4,4;w=1,65536",
            "`w`",
            "65540 ports (4 down, 65536 up, 0 side)",
        ),
        (
            "xgft:h=2;m=1048576,1;w=1,1",
            "`m`",
            "1048577 ports (1048576 down, 1 up",
        ),
        ("xgft:h=2;m=1048576,4;w=1,1", "`m`", "processors (m_1⋯m_h)"),
        // a Znode's level-1 down ports are z_1, not a matter of `r`
        (
            "znode:z=1048576",
            "`z`",
            "1048576 ports (1048576 down, 0 up, 0 side)",
        ),
        (
            "znode:z=1,1;r=1,1048576",
            "`r`",
            "1048577 ports (1 down, 1048576 up",
        ),
        ("znode:z=2;m=2;h=64", "", ""),
        (
            "znode:z=2,2;m=4096;h=17,17",
            "`h`",
            "(2 down, 2 up, 69615 side)",
        ),
    ] {
        let r = build_str(spec);
        if key.is_empty() {
            assert!(r.is_ok(), "{spec}: {:?}", r.err());
            continue;
        }
        let e = r.unwrap_err().to_string();
        assert!(
            e.contains(&format!("parameter {key}")) && e.contains(why),
            "{spec}: {e}"
        );
    }
}

fn list(v: &[u32]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]
    #[test]
    fn arbitrary_parameters_never_panic(
        z in proptest::collection::vec(0u32..6, 0..4),
        r in proptest::option::of(proptest::collection::vec(0u32..9, 0..4)),
        psi in proptest::option::of(proptest::collection::vec(0u32..4, 0..4)),
        h in proptest::option::of(proptest::collection::vec(0u32..3, 0..4)),
        m in 0u32..4,
        layers in 0u32..3,
        conn in proptest::option::of(proptest::collection::vec(0usize..5, 0..3)),
    ) {
        let mut spec = format!("znode:z={};m={m};layers={layers}", list(&z));
        if let Some(r) = r { spec += &format!(";r={}", list(&r)); }
        if let Some(p) = psi { spec += &format!(";psi={}", list(&p)); }
        if let Some(h) = h { spec += &format!(";h={}", list(&h)); }
        if let Some(c) = conn {
            let names = ["auto", "fwd", "bwd", "full", "x"];
            let c: Vec<&str> = c.iter().map(|&i| names[i]).collect();
            spec += &format!(";conn={}", c.join(","));
        }
        if let Ok(t) = build_str(&spec) {
            proptest::prop_assert!(t.validate().is_ok(), "{}", spec);
            for h in 0..t.hosts.len() as u32 {
                let _ = describe_host(&t, h);
            }
        }
    }

    #[test]
    fn arbitrary_host_strings_never_panic(s in "(\\(|phys:|h)?[0-9;,()xb ]{0,12}") {
        let t = build_str("znode:z=3,2,3;m=2").unwrap();
        if let Ok(h) = parse_host(&t, &s) {
            proptest::prop_assert!((h as usize) < t.hosts.len());
        }
    }
}
