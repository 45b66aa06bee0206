//! Transit routing oracle: chip-level Transit fat-trees walked with the dataplane's own
//! per-RN1 decisions (`canopy_dataplane::decide`) at every stage.
//!
//! Every walk must: reach the intended processor with the payload intact, visit no
//! RN1 twice, move up*·side?·down* (Walk::check), take exactly the stages and swallows
//! [Transit] predicts for its crossover level k (Eq 4.18/4.19 full, Eq 4.30-4.32
//! hybrid), end with the same cumulative rotation on every path (docs/transit.md §3,
//! invariant 5), and deliver the same bytes whatever adaptive choices were made.

use canopy::control::oracle::{self, Oracle};
use canopy::control::topology::{parse_host, Topology};
use canopy::control::{build_str, kinds};
use canopy::dataplane::build::transit as tb;
use canopy::dataplane::wire::transit::{TransitBody, TransitRepr};
use canopy::dataplane::wire::{doc_vector, Header, Kind};
use rand::SeedableRng;

fn check(t: &Topology, pairs: Vec<(u32, u32)>, seed: u64) -> oracle::PairsReport {
    let o = Oracle::for_kind(t, Kind::Transit).unwrap();
    let rep = oracle::check_pairs(&o, Kind::Transit, pairs, seed, |w| {
        kinds::transit::check_walk(t, w)
    })
    .unwrap();
    rep.ensure_all_ok().unwrap();
    rep
}

/// The delivered bytes do not depend on the adaptive choices (input port at the
/// source, which of a direction's two outputs).
fn independent_of_choices(t: &Topology, pairs: &[(u32, u32)]) {
    let o = Oracle::for_kind(t, Kind::Transit).unwrap();
    let mut r1 = rand::rngs::StdRng::seed_from_u64(11);
    let mut r2 = rand::rngs::StdRng::seed_from_u64(12);
    let mut differ = 0;
    for &(s, d) in pairs {
        let a = o.walk(Kind::Transit, s, d, &mut r1).unwrap();
        let b = o.walk(Kind::Transit, s, d, &mut r2).unwrap();
        assert_eq!(a.delivered_to(), Some(d));
        assert_eq!(a.delivered_frame, b.delivered_frame, "h{s}→h{d}");
        if a.hops
            .iter()
            .map(|h| h.switch)
            .ne(b.hops.iter().map(|h| h.switch))
        {
            differ += 1;
        }
    }
    // the test is not vacuous: the two seeds really took different chips
    assert!(differ * 2 > pairs.len(), "only {differ} walks differed");
}

#[test]
fn full_layers1_all_pairs() {
    let t = build_str("transit-full:layers=1").unwrap();
    let rep = check(&t, oracle::all_pairs(&t).collect(), 1);
    // 64 processors: per processor, 3 at k=1 (2 stages), 12 at k=2 (3), 48 at k=3 (4).
    assert_eq!(
        rep.hops.into_iter().collect::<Vec<_>>(),
        vec![(2, 64 * 3), (3, 64 * 12), (4, 64 * 48)]
    );
    let pairs: Vec<_> = oracle::random_pairs(&t, 300, 3);
    independent_of_choices(&t, &pairs);
}

#[test]
fn hybrid_b12_layers1_all_pairs() {
    // 768 processors, 656 RN1s (Table 4.6 row 1): all 589,056 ordered pairs.
    let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
    let rep = check(&t, oracle::all_pairs(&t).collect(), 2);
    // per processor: 11 in its cluster (k=0: 2 stages), then 3·12 at k=1 (1+2+1+1 = 5),
    // 12·12 at k=2 (6), 48·12 at k=3 (7).
    assert_eq!(
        rep.hops.into_iter().collect::<Vec<_>>(),
        vec![(2, 768 * 11), (5, 768 * 36), (6, 768 * 144), (7, 768 * 576)]
    );
    independent_of_choices(&t, &oracle::random_pairs(&t, 300, 4));
}

#[test]
fn larger_configurations_random_pairs() {
    for (spec, n) in [
        ("transit-full:layers=2", 4000),
        ("transit-hybrid:leaf=48;layers=1", 3000),
        ("transit-hybrid:leaf=192;layers=1", 2000),
        ("transit-hybrid:leaf=12;layers=2", 3000),
    ] {
        let t = build_str(spec).unwrap();
        check(&t, oracle::random_pairs(&t, n, 5), 6);
        independent_of_choices(&t, &oracle::random_pairs(&t, 100, 7));
    }
}

#[test]
fn headers_match_an_independent_model() {
    // Random pairs with R computed by a separate implementation of [Transit] §3.8.3
    // (not Canopy's builder; C bytes = 6-bit child index << 2 per layer, P pairs of the
    // cluster path MSB-first): Canopy's headers for these hosts must be the same.
    let full = build_str("transit-full:layers=2").unwrap();
    for (s, d, r) in [
        (975, 2617, "e0a0e4"),
        (840, 1829, "e07094"),
        (3445, 4021, "d0f8d4"),
        (3613, 1965, "e078b4"),
        (20, 661, "d02854"),
    ] {
        let h = kinds::header(&full, Kind::Transit, s, d).unwrap();
        let hdr = Header::new_checked(&h[..]).unwrap();
        let b = TransitRepr::parse(&TransitBody::new_checked(hdr.body()).unwrap()).unwrap();
        assert_eq!(hex::encode(&b.route), r, "full h{s}→h{d}");
        assert_eq!(hdr.hop_limit(), 8); // Eq 4.22 worst case 4i, i = 2
    }
    let hy = build_str("transit-hybrid:leaf=12;layers=2").unwrap();
    for (s, d, r) in [
        (7257, 18824, "f8608080"),
        (6425, 29468, "f8985c80"),
        (752, 44903, "f8e874b0"),
        (32131, 44524, "f8e4f840"),
        (20593, 13777, "f444f010"),
    ] {
        let h = kinds::header(&hy, Kind::Transit, s, d).unwrap();
        let hdr = Header::new_checked(&h[..]).unwrap();
        let b = TransitRepr::parse(&TransitBody::new_checked(hdr.body()).unwrap()).unwrap();
        assert_eq!(hex::encode(&b.route), r, "hybrid h{s}→h{d}");
        assert_eq!(hdr.hop_limit(), 1 + 2 + 6 + 2); // Eq 4.33 worst case, n = 0
    }
    // Raw addresses with arbitrary unused bits (builder only; B192 two layers, and a
    // five-layer full fat-tree), same script.
    for (l1, l2, r) in [
        (0x80cb60u64, 0xb6b2beu64, "f4b6b2be"),
        (0xae2749, 0x952d75, "f4952d75"),
        (0x9e485d, 0xbc0c76, "f4bc0c76"),
        (0x2ed81d, 0xffcc6c, "f8ffcc6c"),
    ] {
        let (c1, _) = tb::split_addr(l1, 2, 1);
        let (c2, p2) = tb::split_addr(l2, 2, 1);
        assert_eq!(
            hex::encode(tb::route(&c1, &c2, &p2, false).unwrap().bytes),
            r
        );
    }
    for (l1, l2, r) in [
        (0xf5d784cbfbu64, 0x341942720cu64, "ff80341942720c"),
        (0x75f648f0db, 0xcd80f0e93e, "ff80cd80f0e93e"),
        (0x67ddcdf59d, 0x4c10048996, "ff404c10048996"),
    ] {
        let (c1, _) = tb::split_addr(l1, 5, 0);
        let (c2, _) = tb::split_addr(l2, 5, 0);
        assert_eq!(
            hex::encode(tb::route(&c1, &c2, &[], true).unwrap().bytes),
            r
        );
    }
}

#[test]
fn report_header_with_unused_bits_is_delivered() {
    // [Transit]'s own header T1 (R = 0xF4D84267, unused bits 10 in 0x42) walked on the
    // two-layer B12 tree from L1 = 0xCC0234 to L2 = 0xD84267 (same C; P 0x34/0x67
    // name B12 processors 00 11 / 01 10): the unused bits do not matter, and the walk
    // takes the report trace's fat-tree part: k = 5, 1 + 2 + 5 + 2 = 10 stages, 3 swallows.
    let t = build_str("transit-hybrid:leaf=12;layers=2").unwrap();
    let s = parse_host(&t, "0xCC0234").unwrap();
    let d = parse_host(&t, "0xD84267").unwrap();
    let o = Oracle::for_kind(&t, Kind::Transit).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let w = o.walk_header(s, d, &doc_vector("T1").unwrap().bytes, &mut rng);
    w.check().unwrap();
    let b = kinds::transit::delivered_body(&w).unwrap();
    assert_eq!((w.switch_hops(), b.head, b.hops, b.cycles), (10, 3, 10, 13));
    // the canonical header (unused bits 0) takes the same number of stages
    let w2 = o.walk(Kind::Transit, s, d, &mut rng).unwrap();
    w2.check().unwrap();
    assert_eq!(
        kinds::transit::delivered_body(&w2).unwrap().route,
        vec![0xF4, 0xD8, 0x40, 0x60]
    );
    assert_eq!(w2.switch_hops(), 10);
}

#[test]
fn root_direction_11_is_no_output() {
    // A route that asks the top layer's up stage to go further up (11): no output
    // (uncapped root, [Transit] §3.3.2 option 1).
    let t = build_str("transit-full:layers=1").unwrap();
    let o = Oracle::for_kind(&t, Kind::Transit).unwrap();
    let h = tb::header(&[0xC0, 0x00], 4, 0, 0).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let w = o.walk_header(0, 1, &h, &mut rng);
    assert!(
        matches!(
            w.outcome,
            oracle::Outcome::Dropped {
                reason: canopy::dataplane::DropReason::NoOutput,
                ..
            }
        ),
        "{:?}",
        w.outcome
    );
}

/// One row of a latency table of docs/transit.md §5: `A → B | R | k | stages | swallows |
/// Cycles | …`.
struct LatencyRow {
    src: String,
    dst: String,
    route: String,
    k: u32,
    stages: u32,
    swallows: u32,
    cycles: u32,
}

/// The tables of docs/transit.md §5, each with the topology of the command that its rows
/// come from (`canopyctl header 'SPEC' --kind transit --src A --dst B --trace`).
fn latency_tables() -> Vec<(String, Vec<LatencyRow>)> {
    let doc = include_str!("../docs/transit.md");
    let sec = doc
        .split("\n## 5. ")
        .nth(1)
        .and_then(|s| s.split("\n## 6. ").next())
        .expect("docs/transit.md has a section 5");
    let mut tables: Vec<(String, Vec<LatencyRow>)> = Vec::new();
    let cmd = "rows of `canopyctl header '";
    for line in sec.lines() {
        if let Some(i) = line.find(cmd) {
            let rest = &line[i + cmd.len()..];
            let (spec, tail) = rest.split_once('\'').expect("quoted spec");
            assert!(
                tail.starts_with(" --kind transit --src A --dst B --trace`"),
                "{line}"
            );
            tables.push((spec.to_string(), Vec::new()));
        } else if line.starts_with("| 0x") {
            let c: Vec<&str> = line.split('|').map(str::trim).collect();
            let (a, b) = c[1].split_once(" → ").expect("A → B");
            let n = |i: usize| c[i].parse::<u32>().unwrap_or_else(|_| panic!("{line}"));
            let row = LatencyRow {
                src: a.to_string(),
                dst: b.to_string(),
                route: c[2].to_string(),
                k: n(3),
                stages: n(4),
                swallows: n(5),
                cycles: n(6),
            };
            tables
                .last_mut()
                .expect("a table row before any command")
                .1
                .push(row);
        }
    }
    tables
}

#[test]
fn transit_latency_tables_are_what_their_commands_print() {
    let tables = latency_tables();
    let rows: usize = tables.iter().map(|(_, r)| r.len()).sum();
    assert_eq!((tables.len(), rows), (2, 16), "the two tables of §5");
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut wrong = Vec::new();
    for (spec, table) in &tables {
        let t = build_str(spec).unwrap();
        let p = kinds::transit::params(&t).unwrap();
        let o = Oracle::for_kind(&t, Kind::Transit).unwrap();
        for r in table {
            // what `canopyctl header SPEC --kind transit --src A --dst B --trace` does
            let (s, d, h) = kinds::header_named(&t, Kind::Transit, None, &r.src, &r.dst).unwrap();
            let w = o.walk_header(s, d, &h, &mut rng);
            w.check().unwrap();
            kinds::transit::check_walk(&t, &w).unwrap();
            let b = kinds::transit::delivered_body(&w).unwrap();
            let got = (
                hex::encode(&b.route),
                kinds::transit::level(&t, &p, s, d).unwrap(),
                u32::from(b.hops),
                u32::from(b.head),
                u32::from(b.cycles),
            );
            let want = (r.route.clone(), r.k, r.stages, r.swallows, r.cycles);
            if got != want {
                wrong.push(format!(
                    "{spec} {} → {}: (R, k, stages, swallows, Cycles) = {got:?}, documented {want:?}",
                    r.src, r.dst
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
