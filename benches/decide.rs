//! Criterion benchmark of the forwarding decision per header kind:
//! `cargo bench -p canopy --bench decide`. Replays the per-hop frames of
//! 2,000 random oracle walks through the real tables (shuffled); each decision includes
//! copying the frame into a scratch buffer, since `decide` rewrites it in place.

use canopy_control::oracle::{self, Oracle};
use canopy_control::{kinds, topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::hint::black_box;

struct Snap {
    sw: u32,
    ingress: u16,
    frame: Vec<u8>,
}

fn record(spec: &str, kind: Kind) -> (Vec<SwitchTables>, Vec<Snap>) {
    let t = topology::build_str(spec).expect("spec");
    let o = Oracle::for_kind(&t, kind).expect("tables");
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut snaps = Vec::new();
    for (s, d) in oracle::random_pairs(&t, 2000, 2) {
        let h = kinds::header(&t, kind, s, d).expect("header");
        let w = o.walk_header(s, d, &h, &mut rng);
        assert!(w.check().is_ok(), "{spec} {kind}: walk failed");
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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("decide");
    g.throughput(Throughput::Elements(1));
    for (spec, kind) in [
        ("fat-tree:k=8", Kind::Sliced),
        ("fat-tree:k=8", Kind::PathId),
        ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced),
        ("fat-tree:k=32", Kind::PathId),
        ("fat-tree:k=64", Kind::PathId),
        ("fat-tree:k=64", Kind::Sliced),
        ("transit-full:layers=1", Kind::Transit),
        ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
    ] {
        let (tables, snaps) = record(spec, kind);
        let mut buf = vec![0u8; 256];
        g.bench_function(format!("{}/{spec}", kind.name()), |b| {
            let mut i = 0usize;
            b.iter(|| {
                let s = &snaps[i];
                i = if i + 1 == snaps.len() { 0 } else { i + 1 };
                let f = &mut buf[..s.frame.len()];
                f.copy_from_slice(&s.frame);
                black_box(decide(&tables[s.sw as usize], s.ingress, f))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
