//! Cross-crate path-ID tests: the control plane's tables and headers driven through the
//! dataplane's own decisions by the routing oracle, on fat trees, VL2 and Beneš fat trees.

use canopy::control::kinds::{self, pathid};
use canopy::control::oracle::{self, Oracle, Outcome, Walk, WalkError};
use canopy::control::topology::{self, benes, Peer, Topology};
use canopy::dataplane::wire::Kind;
use canopy::dataplane::DropReason;
use rand::SeedableRng;

fn expected_hops(t: &Topology, src: u32, dst: u32) -> usize {
    pathid::expected_hops(t, src, dst).expect("znode labels")
}

fn hop_check(t: &Topology) -> impl Fn(&Walk) -> Result<(), WalkError> + '_ {
    move |w: &Walk| pathid::check_walk(t, w)
}

fn all_pairs_ok(spec: &str, seeds: &[u64]) -> oracle::PairsReport {
    let t = topology::build_str(spec).unwrap();
    let o = Oracle::for_kind(&t, Kind::PathId).unwrap();
    let mut last = None;
    for &seed in seeds {
        let rep = oracle::check_pairs(&o, Kind::PathId, oracle::all_pairs(&t), seed, hop_check(&t))
            .unwrap();
        rep.ensure_all_ok()
            .unwrap_or_else(|e| panic!("{spec} seed {seed}: {e}"));
        if let Some(prev) = &last {
            let prev: &oracle::PairsReport = prev;
            assert_eq!(prev.hops, rep.hops, "{spec}: outcome depends on the seed");
        }
        last = Some(rep);
    }
    last.unwrap()
}

#[test]
fn fat_trees_deliver_every_pair_on_shortest_up_down_paths() {
    // k = 4: 16 hosts; 16·15 pairs: 16 via one edge (1 switch), 32 in-pod (3), 192 (5).
    let r = all_pairs_ok("fat-tree:k=4", &[1, 2, 3]);
    assert_eq!(
        r.hops.into_iter().collect::<Vec<_>>(),
        vec![(1, 16), (3, 32), (5, 192)]
    );
    all_pairs_ok("fat-tree:k=6", &[1, 2]);
    let r = all_pairs_ok("fat-tree:k=8", &[7]);
    assert_eq!(r.pairs, 128 * 127);
}

#[test]
fn vl2_and_benes_deliver_every_pair() {
    for spec in [
        "vl2:da=8;di=4;servers=2",
        "vl2:da=6;di=6;servers=3",
        "vl2:da=4;di=8;servers=1",
        "benes:m=16;n=4",
        "benes:m=32;n=4",
        "benes:m=54;n=6",
    ] {
        all_pairs_ok(spec, &[1, 9]);
    }
}

/// Every desired path (each top, route and down path the source may choose) delivers,
/// whatever the source's choice: walk every choice of every pair.
#[test]
fn every_source_choice_delivers() {
    for spec in ["fat-tree:k=4", "vl2:da=8;di=4;servers=2", "benes:m=32;n=4"] {
        let t = topology::build_str(spec).unwrap();
        let plan = pathid::plan(&t).unwrap();
        let o = Oracle::for_kind(&t, Kind::PathId).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut walks = 0;
        for (s, d) in oracle::all_pairs(&t) {
            let n = plan.paths(s, d).map_or(1, |p| p.len()) as u64;
            // the choice picks top, then route, then down path: n choices cover them all
            for c in 0..n {
                let h = pathid::header_with_choice(&t, s, d, c).unwrap();
                let w = o.walk_header(s, d, &h, &mut rng);
                w.check()
                    .unwrap_or_else(|e| panic!("{spec} choice {c}: {e}"));
                assert_eq!(w.switch_hops(), expected_hops(&t, s, d));
                walks += 1;
            }
        }
        assert!(
            walks > oracle::all_pairs(&t).count(),
            "{spec}: several paths per pair"
        );
    }
}

#[test]
fn vl2_paths_use_both_aggregation_switches() {
    // VL2: a ToR has 2 routes to every intermediate and the intermediate 2 down paths
    // (via either agg of the destination pair): 4 intermediates × 2 × 2 = 16 paths.
    let t = topology::build_str("vl2:da=8;di=4;servers=2").unwrap();
    let plan = pathid::plan(&t).unwrap();
    let paths = plan.paths(0, 15).unwrap();
    assert_eq!(paths.len(), 4 * 2 * 2);
    assert!(paths.iter().any(|p| p.route == 1));
    assert_eq!(plan.layout.route_bits, vec![0, 1]);
}

/// [Benes-802.1au]'s destination routing (`routing_lookup`) agrees with the path-ID tables: for every pair, the
/// path-ID frame whose top is the top `routing_lookup` climbs to visits the same switches
/// and leaves each by the same port.
#[test]
fn benes_routing_lookup_agrees_with_tables() {
    for spec in ["benes:m=16;n=4", "benes:m=32;n=4", "benes:m=54;n=6"] {
        let t = topology::build_str(spec).unwrap();
        let b = benes::Benes::from_spec(&t.spec).unwrap();
        let plan = pathid::plan(&t).unwrap();
        let o = Oracle::for_kind(&t, Kind::PathId).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut agreed = 0;
        for (s, d) in oracle::all_pairs(&t) {
            let (hops, got) = benes::route_walk(&t, &b, s, d);
            assert_eq!(got, Some(d));
            // top = the highest-level switch on routing_lookup's path
            let top = hops
                .iter()
                .map(|&(st, i, _)| b.switch_index(st, i))
                .max_by_key(|&sw| t.switches[sw as usize].level)
                .unwrap();
            let choice = match plan.paths(s, d) {
                None => 0,
                Some(ps) => ps
                    .iter()
                    .position(|p| p.top == plan.seq[top as usize])
                    .expect("routing_lookup's top is a desired path's top")
                    as u64,
            };
            let h = pathid::header_with_choice(&t, s, d, choice).unwrap();
            let w = o.walk_header(s, d, &h, &mut rng);
            w.check().unwrap();
            let ours: Vec<(u32, u32)> = w
                .hops
                .iter()
                .map(|x| (x.switch, u32::from(x.egress.unwrap())))
                .collect();
            let lookup: Vec<(u32, u32)> = hops
                .iter()
                .map(|&(st, i, p)| (b.switch_index(st, i), p))
                .collect();
            assert_eq!(ours, lookup, "{spec}: {s} -> {d}");
            agreed += 1;
        }
        let m = b.m as usize;
        assert_eq!(agreed, m * (m - 1), "{spec}: 240/240 for (16, 4) etc.");
    }
}

#[test]
fn frame_from_the_wrong_leaf_is_dropped() {
    // A type-0 ID names an agg of the source's pod; injected in another pod, the edge has
    // no entry for it.
    let t = topology::build_str("fat-tree:k=4").unwrap();
    let o = Oracle::for_kind(&t, Kind::PathId).unwrap();
    let h = kinds::header(&t, Kind::PathId, 0, 2).unwrap(); // pod 0, edge 0 -> edge 1
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let w = o.walk_header(4, 2, &h, &mut rng); // injected by h4 (pod 1)
    assert!(matches!(
        w.outcome,
        Outcome::Dropped {
            reason: DropReason::NoRoute,
            ..
        }
    ));
}

#[test]
fn hop_limit_covers_the_longest_path_and_ttl_drops() {
    let t = topology::build_str("fat-tree:k=4").unwrap();
    let o = Oracle::for_kind(&t, Kind::PathId).unwrap();
    let mut h = kinds::header(&t, Kind::PathId, 0, 15).unwrap();
    assert_eq!(h[2], 5, "2L - 1 switches");
    h[2] = 4;
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let w = o.walk_header(0, 15, &h, &mut rng);
    assert!(matches!(
        w.outcome,
        Outcome::Dropped {
            reason: DropReason::TtlExpired,
            ..
        }
    ));
}

#[test]
fn tables_are_generic_over_the_graph() {
    // The Beneš (16, 4) and the k = 4 fat tree are the same Znode: the same counts.
    let a = kinds::summary(&topology::build_str("fat-tree:k=4").unwrap(), Kind::PathId).unwrap();
    let b = kinds::summary(
        &topology::build_str("benes:m=16;n=4").unwrap(),
        Kind::PathId,
    )
    .unwrap();
    assert_eq!(
        (a.id_bits, a.by_level.clone()),
        (b.id_bits, b.by_level.clone())
    );
    // a 4-level Beneš uses 2 type bits (L − 1 = 3 types)
    let c = kinds::summary(
        &topology::build_str("benes:m=32;n=4").unwrap(),
        Kind::PathId,
    )
    .unwrap();
    assert!(
        c.id_bits_detail.starts_with("type 0: 2+"),
        "{}",
        c.id_bits_detail
    );
    // every host port of every family is reached by exactly one host
    for spec in ["fat-tree:k=4", "vl2:da=8;di=4;servers=2", "benes:m=16;n=4"] {
        let t = topology::build_str(spec).unwrap();
        for h in &t.hosts {
            assert!(matches!(h.ports[0].peer, Peer::Switch { .. }));
        }
    }
}

/// docs/wire-format.md §6: the per-hop states of I1 (h0 -> h15 on fat-tree:k=4 via
/// core-c0) are I4, I5, I2, I6, I7; I8 is the type-0 frame h0 -> h2 via agg-p0-a0.
#[test]
fn doc_vectors_hop_by_hop() {
    use canopy::dataplane::wire::doc_vector;
    let v = |id: &str| doc_vector(id).unwrap().bytes;
    let t = topology::build_str("fat-tree:k=4").unwrap();
    let mut o = Oracle::for_kind(&t, Kind::PathId).unwrap();
    o.record_headers = true;
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let w = o.walk_header(0, 15, &v("I1"), &mut rng);
    w.check().unwrap();
    let names: Vec<(&str, u16)> = w
        .hops
        .iter()
        .map(|h| {
            (
                t.switches[h.switch as usize].name.as_str(),
                h.egress.unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("edge-p0-e0", 2),
            ("agg-p0-a0", 2),
            ("core-c0", 3),
            ("agg-p3-a0", 1),
            ("edge-p3-e1", 1)
        ]
    );
    let states: Vec<Vec<u8>> = w.hops.iter().map(|h| h.header.clone()).collect();
    assert_eq!(states, vec![v("I4"), v("I5"), v("I2"), v("I6"), v("I7")]);
    assert_eq!(pathid::header_with_choice(&t, 0, 2, 0).unwrap(), v("I8"));
    let w = o.walk_header(0, 2, &v("I8"), &mut rng);
    w.check().unwrap();
    let names: Vec<&str> = w
        .hops
        .iter()
        .map(|h| t.switches[h.switch as usize].name.as_str())
        .collect();
    assert_eq!(names, vec!["edge-p0-e0", "agg-p0-a0", "edge-p0-e1"]);
}

/// Follow [Benes-802.1au]'s `routing_lookup` hop by hop and check that, at every switch, the
/// dataplane's decision for `header` allows exactly that port (a deterministic port equal
/// to it, or a group containing it). Returns the number of hops.
fn lockstep(
    t: &Topology,
    b: &benes::Benes,
    tables: &[canopy::dataplane::table::SwitchTables],
    src: u32,
    dst: u32,
    header: &[u8],
) -> anyhow::Result<usize> {
    use anyhow::bail;
    use canopy::dataplane::{decide, wire, Verdict};
    let mut frame = wire::ethernet_frame([2; 6], [4; 6], header, &oracle::PAYLOAD);
    let Peer::Switch { mut sw, port } = t.hosts[src as usize].ports[0].peer else {
        bail!("source not on a switch");
    };
    let mut ingress = port;
    for hop in 1..=2 * b.stages() as usize {
        let d = b.per_stage();
        let want = b.routing_lookup(sw / d, sw % d, dst) as u16;
        let allowed: Vec<u16> = match decide(&tables[sw as usize], ingress, &mut frame) {
            Verdict::Port(p) => vec![p],
            Verdict::Group(g) => tables[sw as usize].group(g).to_vec(),
            Verdict::Drop(r) => bail!("{src}->{dst}: dropped at hop {hop}: {r}"),
        };
        if !allowed.contains(&want) {
            bail!(
                "{src}->{dst}: {} allows {allowed:?}, routing_lookup says {want}",
                t.switches[sw as usize].name
            );
        }
        match t.switches[sw as usize].ports[usize::from(want)].peer {
            Peer::Switch { sw: n, port } => {
                sw = n;
                ingress = port;
            }
            Peer::Host { host, .. } if host == dst => return Ok(hop),
            other => bail!("{src}->{dst}: reached {other:?}"),
        }
    }
    bail!("{src}->{dst}: no delivery")
}

/// The same agreement checked in lockstep for every kind whose tables apply to the Beneš
/// fat tree: path-ID (with the frame built for routing_lookup's top) and, where the
/// sliced-flit kind is available, sliced-flit (whose up choice is a group that must
/// contain routing_lookup's port and whose down port must equal it).
#[test]
fn benes_routing_lookup_lockstep_all_kinds() {
    for spec in ["benes:m=16;n=4", "benes:m=54;n=6"] {
        let t = topology::build_str(spec).unwrap();
        let b = benes::Benes::from_spec(&t.spec).unwrap();
        let plan = pathid::plan(&t).unwrap();
        let tabs = kinds::tables(&t, Kind::PathId).unwrap();
        for (s, d) in oracle::all_pairs(&t) {
            let (hops, _) = benes::route_walk(&t, &b, s, d);
            let top = hops
                .iter()
                .map(|&(st, i, _)| b.switch_index(st, i))
                .max_by_key(|&sw| t.switches[sw as usize].level)
                .unwrap();
            let choice = plan.paths(s, d).map_or(0, |ps| {
                ps.iter()
                    .position(|p| p.top == plan.seq[top as usize])
                    .unwrap()
            });
            let h = pathid::header_with_choice(&t, s, d, choice as u64).unwrap();
            let n = lockstep(&t, &b, &tabs, s, d, &h).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(n, hops.len());
        }
        if kinds::supports(&t, Kind::Sliced).is_ok() {
            let tabs = kinds::tables(&t, Kind::Sliced).unwrap();
            for (s, d) in oracle::all_pairs(&t) {
                let h = kinds::header(&t, Kind::Sliced, s, d).unwrap();
                let (hops, _) = benes::route_walk(&t, &b, s, d);
                let n = lockstep(&t, &b, &tabs, s, d, &h).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(n, hops.len(), "sliced");
            }
        }
    }
}
