use super::*;
use crate::topology::{build_str, PortRole};
use canopy_dataplane::build::pathid::PathIdLayout;
use canopy_dataplane::table::pathid::Action;

fn fields_of(layout: &PathIdLayout, value: u64, len: u8) -> (u16, u32, u32, Vec<u32>) {
    let len = u32::from(len);
    let take = |pos: &mut u32, w: u8| -> u32 {
        let w = u32::from(w);
        let v = if w == 0 {
            0
        } else {
            ((value >> (len - *pos - w)) & ((1 << w) - 1)) as u32
        };
        *pos += w;
        v
    };
    let mut pos = 0u32;
    let t = take(&mut pos, layout.type_bits) as u16;
    let f = layout.fields(t);
    let top = take(&mut pos, f[1].1);
    let route = take(&mut pos, f[2].1);
    let mut dps = Vec::new();
    for x in &f[3..] {
        if pos + u32::from(x.1) > len {
            break;
        }
        dps.push(take(&mut pos, x.1));
    }
    (t, top, route, dps)
}

/// \[PathID\]'s Fattree(4) LPM entries of s_1^1, s_1^2, s_1^3 ("Illustration –
/// Fattree(4)"), exactly. Its figure numbers switches, pods and ports from 1
/// (docs/pathid-scalability.md); we number
/// from 0, so the test rewrites our entries in the figure's labelling: top + 1 and
/// pod (DP_3) + 1, each modulo 2^width; physical port + 1 (edge up ports 2,3 are the
/// figure's 1,2).
#[test]
fn pathid_fattree4_entries() {
    let t = build_str("fat-tree:k=4").unwrap();
    let plan = plan(&t).unwrap();
    let tabs = tables(&t).unwrap();
    let l = &plan.layout;
    assert_eq!(l.type_bits, 1);
    assert_eq!(l.top_bits, vec![3, 2]);
    assert_eq!(l.route_bits, vec![0, 0]);
    assert_eq!(l.dp_bits, vec![1, 2]);
    let figure_view = |name: &str| -> Vec<String> {
        let i = t.switch_index(name).unwrap();
        let p = tabs[i].pathid.as_ref().unwrap();
        let mut v: Vec<String> = p
            .entries()
            .iter()
            .map(|e| {
                let (ty, top, route, mut dps) = fields_of(l, e.value, e.len);
                let top = (top + 1) % (1 << l.top_bits[usize::from(ty)]);
                if ty == 1 && !dps.is_empty() {
                    dps[0] = (dps[0] + 1) % 4;
                }
                let (v, n) = l.prefix(ty, top, route, &dps).unwrap();
                let Action::Port(port) = e.action else {
                    panic!("fat-tree entries are single ports")
                };
                let port = if t.switches[i].level == 1 {
                    port - 1
                } else {
                    port + 1
                };
                format!("{}/ {port}", l.format(v, n))
            })
            .collect();
        v.sort();
        v
    };
    let sorted = |v: &[&str]| {
        let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(
        figure_view("edge-p0-e0"),
        sorted(&[
            "0.001.null/ 1",
            "0.010.null/ 2",
            "1.01.null/ 1",
            "1.10.null/ 1",
            "1.11.null/ 2",
            "1.00.null/ 2"
        ])
    );
    assert_eq!(
        figure_view("agg-p0-a0"),
        sorted(&[
            "0.001.null.0/ 1",
            "0.001.null.1/ 2",
            "1.01.null/ 3",
            "1.10.null/ 4",
            "1.01.null.01.0/ 1",
            "1.01.null.01.1/ 2",
            "1.10.null.01.0/ 1",
            "1.10.null.01.1/ 2"
        ])
    );
    assert_eq!(
        figure_view("core-c0"),
        sorted(&[
            "1.01.null.01/ 1",
            "1.01.null.10/ 2",
            "1.01.null.11/ 3",
            "1.01.null.00/ 4"
        ])
    );
    // and in our own 0-based numbering
    let i = t.switch_index("core-c0").unwrap();
    assert_eq!(
        entry_strings(&plan, &tabs[i]),
        [
            "1.00.null.00/ 0",
            "1.00.null.01/ 1",
            "1.00.null.10/ 2",
            "1.00.null.11/ 3"
        ]
    );
}

#[test]
fn pathid_scalability_row() {
    // [PathID] "Scalability": Fat-tree(64) 22 bits / 1088, Fat-tree(256) 30 bits /
    // 16640; VL2(100,96,·) 5100 entries and 21 bits ([PathID] prints 22;
    // docs/pathid-scalability.md explains the difference).
    for (spec, bits, max) in [
        ("fat-tree:k=64", 22, 1088),
        ("fat-tree:k=256", 30, 16640),
        ("vl2:da=100;di=96;servers=100", 21, 5100),
    ] {
        let cf = closed_form_params(&spec.parse().unwrap()).unwrap().unwrap();
        assert_eq!((cf.id_bits(), cf.max_entries()), (bits, max), "{spec}");
    }
    // edge h + h², agg 2h + h², core k (h = k/2): 1056, 1088, 64 at k = 64
    let cf = closed_form_params(&"fat-tree:k=64".parse().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(cf.counts, [1056, 1088, 64]);
    let t = build_str("fat-tree:k=64").unwrap();
    let s = summary(&t).unwrap();
    assert_eq!((s.id_bits, s.max_entries), (22, 1088));
    assert_eq!(s.by_level[1], (2, 2048, 1088, 2048 * 1088));
}

#[test]
fn planning_beyond_the_limit_is_refused_as_too_big_to_compute() {
    let t = build_str("fat-tree:k=8").unwrap();
    let e = Plan::with_limit(&t, 1).unwrap_err();
    assert!(matches!(e, KindError::TooBigToCompute { .. }), "{e}");
    assert!(e.to_string().contains("too large to compute here"), "{e}");
    assert!(Plan::with_limit(&t, MAX_PLAN_ENTRIES).is_ok());
}

#[test]
fn vl2_scalability_row_materialised() {
    // The materialised tables of VL2(100, 96) give docs/pathid-scalability.md's numbers:
    // 21 bits (1+6+1+7+6), agg 5100 = 50 + 50 + 50·2·50, ToR 102, intermediate 192.
    let t = build_str("vl2:da=100;di=96;servers=1").unwrap();
    let s = summary_materialised(&t).unwrap();
    assert_eq!(s.id_bits, 21);
    assert_eq!(s.max_entries, 5100);
    assert_eq!(
        s.by_level,
        vec![
            (1, 2400, 102, 2400 * 102),
            (2, 96, 5100, 96 * 5100),
            (3, 50, 192, 50 * 192)
        ]
    );
}

#[test]
fn summaries_from_the_spec_equal_those_of_the_built_graph() {
    // Large enough for the closed form: the outline gives the same summary, switch
    // names included, as the built topology.
    for spec in [
        "fat-tree:k=64",
        "vl2:da=100;di=96;servers=1",
        "vl2:da=60;di=24;servers=1000",
    ] {
        let from_spec = summary_from_spec(&spec.parse().unwrap()).unwrap();
        let built = summary(&build_str(spec).unwrap()).unwrap();
        assert_eq!(from_spec.as_ref(), Some(&built), "{spec}");
    }
    // Small ones are counted from materialised tables, and other families have no
    // outline: both are left to the built graph.
    for spec in ["fat-tree:k=8", "vl2:da=8;di=4;servers=2", "benes:m=16;n=4"] {
        assert_eq!(
            summary_from_spec(&spec.parse().unwrap()).unwrap(),
            None,
            "{spec}"
        );
    }
    let e = summary_from_spec(&"fat-tree:k=7".parse().unwrap()).unwrap_err();
    assert!(e.to_string().contains("even"), "{e}");
}

#[test]
fn closed_forms_match_materialised_tables() {
    for spec in [
        "fat-tree:k=2",
        "fat-tree:k=4",
        "fat-tree:k=6",
        "fat-tree:k=8",
        "fat-tree:k=12",
        "fat-tree:k=16",
        "vl2:da=2;di=4;servers=1",
        "vl2:da=4;di=2;servers=2",
        "vl2:da=4;di=4;servers=1",
        "vl2:da=8;di=4;servers=2",
        "vl2:da=6;di=6;servers=1",
        "vl2:da=12;di=8;servers=1",
    ] {
        let t = build_str(spec).unwrap();
        let a = closed_form(&t).unwrap().unwrap();
        let m = summary_materialised(&t).unwrap();
        assert_eq!(
            (
                a.id_bits,
                a.id_bits_detail.clone(),
                a.by_level.clone(),
                a.total_entries
            ),
            (
                m.id_bits,
                m.id_bits_detail.clone(),
                m.by_level.clone(),
                m.total_entries
            ),
            "{spec}"
        );
    }
}

/// The path-ID vectors of docs/wire-format.md §6.5 on `fat-tree:k=4` whose comment says
/// `hA -> hB` and `marker`: (id, A, B, bytes).
fn doc_pairs(marker: &str) -> Vec<(String, u32, u32, Vec<u8>)> {
    canopy_dataplane::wire::doc_vectors()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind == "path-id" && v.comment.contains(marker))
        .map(|v| {
            let pair = v.comment.strip_prefix("fat-tree:k=4 h").unwrap();
            let (a, rest) = pair.split_once(" -> h").unwrap();
            let b: String = rest.chars().take_while(char::is_ascii_digit).collect();
            (v.id, a.parse().unwrap(), b.parse().unwrap(), v.bytes)
        })
        .collect()
}

#[test]
fn vectors_as_built_are_the_builders_and_path_0_is_choice_0() {
    // "as built": what `canopyctl header` emits (the pair's hashed choice); "(path 0)": the
    // builder's desired path number 0 for the pair (docs/wire-format.md §6.5)
    let t = build_str("fat-tree:k=4").unwrap();
    let built = doc_pairs("as built");
    let ids: Vec<&str> = built.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(ids, ["I9", "I10"]);
    for (id, a, b, bytes) in &built {
        assert_eq!(&header(&t, *a, *b).unwrap(), bytes, "{id}");
    }
    let zero = doc_pairs("(path 0)");
    let ids: Vec<&str> = zero.iter().map(|v| v.0.as_str()).collect();
    assert_eq!(ids, ["I1", "I8"]);
    for (id, a, b, bytes) in &zero {
        assert_eq!(&header_with_choice(&t, *a, *b, 0).unwrap(), bytes, "{id}");
        assert_ne!(
            &header(&t, *a, *b).unwrap(),
            bytes,
            "{id}: the builder picks another"
        );
    }
}

#[test]
fn header_matches_doc_vector() {
    // docs/wire-format.md I1: h0 -> h15 via core-c0 (choice 0), I3: h0 -> h1 LOCAL.
    let t = build_str("fat-tree:k=4").unwrap();
    let v = canopy_dataplane::wire::doc_vector("I1").unwrap().bytes;
    assert_eq!(header_with_choice(&t, 0, 15, 0).unwrap(), v);
    let v = canopy_dataplane::wire::doc_vector("I3").unwrap().bytes;
    assert_eq!(header_with_choice(&t, 0, 1, 7).unwrap(), v);
    // every desired path is some choice: h0 -> h15 has 4 (one per core)
    let plan = plan(&t).unwrap();
    let all = plan.paths(0, 15).unwrap();
    assert_eq!(all.len(), 4);
    for c in 0..4u64 {
        assert!(all.contains(&plan.path(0, 15, c).unwrap()));
    }
    assert!(matches!(
        header(&t, 0, 16),
        Err(KindError::Topo(crate::topology::TopoError::BadHost { .. }))
    ));
}

#[test]
fn table_work_bounds_the_materialised_tables() {
    // fat-tree k=4 by hand: 8 edges × (2 aggs · 1 step + 4 cores · 2 steps) = 80 up
    // steps; 8 aggs × 2 DPs + 4 cores × 4 · (1 + 2) DPs, one route each = 64 down.
    let t = build_str("fat-tree:k=4").unwrap();
    assert_eq!(table_work(&t, &plan(&t).unwrap()), 144);
    for spec in [
        "fat-tree:k=4",
        "fat-tree:k=8",
        "vl2:da=8;di=4;servers=2",
        "kary-ntree:k=2;n=4",
        "xgft:h=3;m=4,4,2;w=1,2,2",
        "benes:m=32;n=4",
    ] {
        let t = build_str(spec).unwrap();
        let work = table_work(&t, &plan(&t).unwrap());
        let entries: u64 = tables(&t)
            .unwrap()
            .iter()
            .map(|st| st.pathid.as_ref().map_or(0, |p| p.entries().len() as u64))
            .sum();
        assert!(entries <= work, "{spec}: {entries} entries > bound {work}");
    }
}

#[test]
fn huge_fabrics_are_refused_before_allocating() {
    // `canopyctl check 'fat-tree:k=256' -k path-id` and `tables 'kary-ntree:k=4;n=8'
    // -k path-id` used to abort on multi-GB allocations; now they are refused.
    let t = build_str("fat-tree:k=128").unwrap();
    let e = tables(&t).unwrap_err().to_string();
    assert!(
        e.contains("fat-tree:k=128") && e.contains("would hold up to 102236160 entries"),
        "{e}"
    );
    // the closed-form summary still answers for it
    assert_eq!(summary(&t).unwrap().switches, 20480);
    // route counting keeps every switch's leaf set; a limit bounds it
    let t = build_str("kary-ntree:k=2;n=6").unwrap();
    assert!(Plan::with_limit(&t, 1 << 20).is_ok());
    let e = Plan::with_limit(&t, 100).unwrap_err().to_string();
    assert!(e.contains("more than 100 leaf-count entries"), "{e}");
}

#[test]
fn unsupported_shapes_say_why() {
    let mut t = build_str("fat-tree:k=4").unwrap();
    // make host 0 dual-homed: reuse host 1's link end (structurally wrong on purpose)
    let extra = t.hosts[1].ports[0];
    t.hosts[0].ports.push(extra);
    let e = supports(&t).unwrap_err().to_string();
    assert!(e.contains("single-homed"), "{e}");
    let mut t = build_str("fat-tree:k=4").unwrap();
    t.switches[0].ports[2].role = PortRole::Side;
    let e = supports(&t).unwrap_err().to_string();
    assert!(e.contains("side link"), "{e}");
}
