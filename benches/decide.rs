//! Micro-benchmark of the forwarding decision (no I/O): nanoseconds per `decide()` call,
//! per header kind, replaying the per-hop frames of random walks through real tables.
//!
//! Run: `cargo bench --bench decide` (numbers go to docs/BENCHMARKS.md).

use canopy::control::oracle::{self, Oracle};
use canopy::control::{kinds, topology};
use canopy::dataplane::wire::{self, Kind};
use canopy::dataplane::{decide, Verdict};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::hint::black_box;
use std::time::Instant;

/// One recorded decision: switch, ingress port and the frame as it arrived there.
struct Snap {
    sw: u32,
    ingress: u16,
    frame: Vec<u8>,
}

fn record(
    spec: &str,
    kind: Kind,
    pairs: usize,
) -> (Vec<canopy::dataplane::table::SwitchTables>, Vec<Snap>) {
    let t = topology::build_str(spec).expect("spec");
    let o = Oracle::for_kind(&t, kind).expect("tables");
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut snaps = Vec::new();
    for (s, d) in oracle::random_pairs(&t, pairs, 2) {
        let h = kinds::header(&t, kind, s, d).expect("header");
        let w = o.walk_header(s, d, &h, &mut rng);
        assert!(w.check().is_ok(), "{spec} {kind}: walk failed");
        // replay the walk, snapshotting the frame before each decision
        let mut frame = wire::ethernet_frame(
            oracle::host_mac(&t, d),
            oracle::host_mac(&t, s),
            &h,
            &oracle::PAYLOAD,
        );
        for hop in &w.hops {
            snaps.push(Snap {
                sw: hop.switch,
                ingress: hop.ingress,
                frame: frame.clone(),
            });
            let v = decide(&o.tables()[hop.switch as usize], hop.ingress, &mut frame);
            assert!(!matches!(v, Verdict::Drop(_)));
        }
    }
    snaps.shuffle(&mut rng);
    (o.tables().to_vec(), snaps)
}

fn main() {
    let cases = [
        ("fat-tree:k=8", Kind::Sliced),
        ("fat-tree:k=8", Kind::PathId),
        ("fat-tree:k=32", Kind::PathId),
        ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced),
        ("transit-full:layers=1", Kind::Transit),
        ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
    ];
    println!(
        "{:<34} {:<8} {:>10} {:>12}",
        "topology", "kind", "decisions", "ns/decision"
    );
    for (spec, kind) in cases {
        let (tables, snaps) = record(spec, kind, 2000);
        let mut buf = vec![0u8; 256];
        let rounds = (2_000_000 / snaps.len().max(1)).max(1);
        let t0 = Instant::now();
        let mut n = 0u64;
        for _ in 0..rounds {
            for s in &snaps {
                let b = &mut buf[..s.frame.len()];
                b.copy_from_slice(&s.frame);
                black_box(decide(&tables[s.sw as usize], s.ingress, b));
                n += 1;
            }
        }
        let ns = t0.elapsed().as_nanos() as f64 / n as f64;
        println!("{spec:<34} {:<8} {n:>10} {ns:>12.1}", kind.name());
    }
}
