//! Cross-crate tests of the sliced-flit kind: topology generators (control) + header
//! builder, tables and decisions (dataplane), walked by the routing oracle.
//!
//! Every walk is checked for delivery to the right host with the payload intact, no
//! loop, an up*-side?-down* path, the exact switch count (2l−1 inside a Znode, 2l
//! across, FLAT with l = n; docs/sliced-flit.md §4 item 6), a sufficient hop limit (2n),
//! the whole SLICE consumed and the phase flags. Histograms are compared with the
//! closed-form count of docs/sliced-flit.md §2: per source, (z_l − 1)·z_1⋯z_{l−1}
//! destinations at 2l − 1 switches (z_1 − 1 at l = 1) and (m − 1) times as many across
//! Znodes at 2l switches ((m − 1)·z_1 at l = 1).

use canopy::control::kinds::{self, sliced};
use canopy::control::oracle::{all_pairs, random_pairs, PairsReport};
use canopy::control::topology::{self, End, PortSpec, Topology, ZnodeShape};
use canopy::dataplane::wire::sliced::{Mode, SlicedBody};
use canopy::dataplane::wire::{Header, Kind};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn hist(r: &PairsReport) -> Vec<(usize, u64)> {
    r.hops.iter().map(|(a, b)| (*a, *b)).collect()
}

/// All pairs in every mode with three seeds; returns the SLICED histogram. The outcome
/// (delivery, exact hop count) must not depend on the adaptive choices: every seed
/// gives the same histogram.
fn all_modes(t: &Topology) -> Vec<(usize, u64)> {
    let mut sliced_hist = Vec::new();
    for mode in Mode::ALL {
        let mut first: Option<Vec<(usize, u64)>> = None;
        for seed in [1u64, 2, 3] {
            let rep = sliced::check_pairs(t, mode, all_pairs(t), seed).unwrap();
            rep.ensure_all_ok()
                .unwrap_or_else(|e| panic!("{} {mode} seed {seed}: {e}", t.spec));
            let h = hist(&rep);
            match &first {
                None => first = Some(h),
                Some(f) => assert_eq!(f, &h, "{} {mode}: seed {seed}", t.spec),
            }
        }
        if mode == Mode::Sliced {
            sliced_hist = first.unwrap_or_default();
        }
    }
    sliced_hist
}

fn build(spec: &str) -> Topology {
    let t = topology::build_str(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    t.validate().unwrap();
    t
}

#[test]
fn six_configurations_all_modes() {
    // The six configurations of docs/sliced-flit.md §2, with the closed-form histograms.
    let cases: &[(&str, &[(usize, u64)])] = &[
        (
            // Table 6.1 example 1: m=2 z=(3,2,3) R=(1,3,6)
            "znode:z=3,2,3;r=1,3,6;m=2",
            &[(1, 72), (2, 108), (3, 108), (4, 108), (5, 432), (6, 432)],
        ),
        // Appendix E: 8 processors, z=(4,2) R=(1,4)
        ("znode:z=4,2;r=1,4", &[(1, 24), (3, 32)]),
        (
            // backward z=(4,2,2) R=(8,4,2) psi=(1,2,2) layers=2
            "znode:z=4,2,2;r=8,4,2;psi=1,2,2;layers=2",
            &[(1, 48), (3, 64), (5, 128)],
        ),
        (
            // full z=(2,3,2) R=(2,3,2) m=3
            "znode:z=2,3,2;r=2,3,2;m=3",
            &[(1, 36), (2, 144), (3, 144), (4, 288), (5, 216), (6, 432)],
        ),
        (
            // fattree k=4 as Znode z=(2,2,4) R=(1,2,4)
            "znode:z=2,2,4;r=1,2,4",
            &[(1, 16), (3, 32), (5, 192)],
        ),
    ];
    for (spec, want) in cases {
        let t = build(spec);
        assert_eq!(all_modes(&t), want.to_vec(), "{spec}");
    }
}

#[test]
fn fig6_buffer_snode_m4_sliced() {
    // The chapter 6 buffer-study Snode m=4 z=(4,2,4) R=(2,4,8) psi=(1,2,2): 16,256 pairs,
    // {1: 384, 2: 1536, 3: 512, 4: 1536, 5: 3072, 6: 9216}. SLICED only (size).
    let t = build("znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=4");
    let rep = sliced::check_pairs(&t, Mode::Sliced, all_pairs(&t), 11).unwrap();
    rep.ensure_all_ok().unwrap();
    assert_eq!(
        hist(&rep),
        vec![
            (1, 384),
            (2, 1536),
            (3, 512),
            (4, 1536),
            (5, 3072),
            (6, 9216)
        ]
    );
    // the comparison modes on a sample
    for mode in [Mode::Flat, Mode::SrcDst, Mode::Dst] {
        let rep = sliced::check_pairs(&t, mode, random_pairs(&t, 2000, 5), 5).unwrap();
        rep.ensure_all_ok().unwrap();
    }
}

#[test]
fn more_example_specs_all_modes() {
    // Further Znode, k-ary n-tree and XGFT specs: every ordered pair, every mode, three
    // seeds.
    for (spec, want) in [
        (
            "znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=2",
            vec![(1, 192), (2, 256), (3, 256), (4, 256), (5, 1536), (6, 1536)],
        ),
        // k-ary n-trees: 2l−1 switches, (k−1)k^(l−1) destinations at level l
        (
            "kary-ntree:k=2;n=4",
            vec![(1, 16), (3, 32), (5, 64), (7, 128)],
        ),
        ("kary-ntree:k=4;n=3", vec![(1, 192), (3, 768), (5, 3072)]),
        ("xgft:h=2;m=3,4;w=2,2", vec![(1, 24), (3, 108)]),
        ("xgft:h=2;m=4,4;w=1,4", vec![(1, 48), (3, 192)]),
    ] {
        let t = build(spec);
        assert_eq!(all_modes(&t), want, "{spec}");
    }
}

#[test]
fn side_levels_connectivity_and_wiring_variants() {
    // h with zeros (side links only at higher levels: the turn is raised), m = 1..4,
    // layers, explicit full/backward connectivity, block wiring.
    for spec in [
        "znode:z=2,3,2;r=2,3,2;m=3;h=0,2,1",
        "znode:z=2,2,2;m=4;h=0,0,1;layers=2",
        "znode:z=3,2;r=2,2;conn=full;m=2",
        "znode:z=2,2,2;r=4,2,2;conn=bwd,fwd;wiring=block;m=2",
        "znode:z=2,2,4;r=1,2,4;wiring=block",
        "znode:z=2,2;r=2,4;psi=1,2;layers=3;m=2;h=2,1",
        "znode:z=5;m=3",
        "znode:z=1,3;m=2",
    ] {
        let t = build(spec);
        all_modes(&t);
    }
}

#[test]
fn k4_fat_tree_header_lengths() {
    // Header lengths H(l) for the k=4 fat tree (z=(2,2,4), m=1; docs/sliced-flit.md §2):
    // l=1 -> 2 bits, l=2 -> 4, l=3 -> 7; all-pairs histogram {2:16, 4:32, 7:192}.
    let t = build("znode:z=2,2,4;r=1,2,4;wiring=block");
    let mut h = BTreeMap::new();
    for (s, d) in all_pairs(&t) {
        let hdr = kinds::header(&t, Kind::Sliced, s, d).unwrap();
        let v = Header::new_checked(&hdr[..]).unwrap();
        let b = SlicedBody::new_checked(v.body()).unwrap();
        *h.entry(b.slice_len()).or_insert(0u32) += 1;
    }
    assert_eq!(
        h.into_iter().collect::<Vec<_>>(),
        vec![(2, 16), (4, 32), (7, 192)]
    );
    let s = kinds::summary(&t, Kind::Sliced).unwrap();
    assert_eq!(s.id_bits, 7);
    // edge: 2 hosts + up = 3; agg: 2 edges + up = 3; core: 4 pods
    assert_eq!(
        s.by_level,
        vec![(1, 8, 3, 24), (2, 8, 3, 24), (3, 4, 4, 16)]
    );
}

/// The k=4 fat tree built by hand to the COMMON graph contract (not by the Znode
/// generator): edge (p, e) level 1 zone p·2+e, agg (p, a) level 2 zone p, cores level 3,
/// host X = 4p + 2e + h. Proves kinds::sliced is family-agnostic.
fn contract_fat_tree(k: u32) -> Topology {
    let half = k / 2;
    let mut t = Topology::new("contract-fat-tree:k=4".parse().unwrap());
    let edge = |t: &mut Topology, p: u32, e: u32| {
        t.add_switch(format!("edge-p{p}-e{e}"), 1, 0, u64::from(p * half + e), e)
    };
    let mut edges = Vec::new();
    let mut aggs = Vec::new();
    for p in 0..k {
        for e in 0..half {
            edges.push(edge(&mut t, p, e));
        }
        for a in 0..half {
            aggs.push(t.add_switch(format!("agg-p{p}-a{a}"), 2, 0, u64::from(p), a));
        }
    }
    let cores: Vec<u32> = (0..half * half)
        .map(|c| t.add_switch(format!("core-{c}"), 3, 0, 0, c))
        .collect();
    for p in 0..k {
        for e in 0..half {
            for h in 0..half {
                let x = u64::from(p * half * half + e * half + h);
                let hi = t.add_host(x, x);
                t.link(
                    End::Host(hi),
                    PortSpec::up(),
                    End::Switch(edges[(p * half + e) as usize]),
                    PortSpec::down(h),
                );
            }
        }
    }
    for p in 0..k {
        for e in 0..half {
            for a in 0..half {
                t.link(
                    End::Switch(edges[(p * half + e) as usize]),
                    PortSpec::up(),
                    End::Switch(aggs[(p * half + a) as usize]),
                    PortSpec::down(e),
                );
            }
        }
        for a in 0..half {
            for j in 0..half {
                t.link(
                    End::Switch(aggs[(p * half + a) as usize]),
                    PortSpec::up(),
                    End::Switch(cores[(a * half + j) as usize]),
                    PortSpec::down(p),
                );
            }
        }
    }
    t.znode = Some(ZnodeShape {
        z: vec![half, half, k],
        m: 1,
    });
    t
}

#[test]
fn works_on_any_contract_topology() {
    let t = contract_fat_tree(4);
    t.validate().unwrap();
    kinds::supports(&t, Kind::Sliced).unwrap();
    assert_eq!(all_modes(&t), vec![(1, 16), (3, 32), (5, 192)]);
}

#[test]
fn fat_tree_family() {
    // `fat-tree:k=4` (control/src/topology/fattree.rs) honours the Znode contract, so the
    // sliced kind applies unchanged and gives the same numbers as its Znode twin.
    let t = topology::build_str("fat-tree:k=4").unwrap();
    t.validate().unwrap();
    assert_eq!(all_modes(&t), vec![(1, 16), (3, 32), (5, 192)]);
    let s = kinds::summary(&t, Kind::Sliced).unwrap();
    assert_eq!(s.id_bits, 7);
}

fn small_spec() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(1u32..4, 1..4),
        1u32..4,
        1u32..3,
        any::<bool>(),
    )
        .prop_filter("at least two hosts, at most 48", |(z, m, _, _)| {
            let p: u32 = z.iter().product::<u32>() * m;
            (2..=48).contains(&p)
        })
        .prop_map(|(z, m, layers, block)| {
            let zs: Vec<String> = z.iter().map(|x| x.to_string()).collect();
            format!(
                "znode:z={};m={m};layers={layers};wiring={}",
                zs.join(","),
                if block { "block" } else { "cyclic" }
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_znodes_deliver_every_pair(spec in small_spec(), mode in 0u8..4, seed in any::<u64>()) {
        let t = build(&spec);
        let mode = Mode::ALL[usize::from(mode)];
        let rep = sliced::check_pairs(&t, mode, all_pairs(&t), seed).unwrap();
        prop_assert!(rep.ensure_all_ok().is_ok(), "{} {}: {:?}", spec, mode, rep.failures);
    }
}
