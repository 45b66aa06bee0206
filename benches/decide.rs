//! Criterion benchmark of the forwarding decision per header kind:
//! `cargo bench -p canopy --bench decide`. Each decision includes copying the frame into
//! a scratch buffer, since `decide` rewrites it in place, and reading the verdict as the
//! engine does (port, group or drop counter). Two kinds of row:
//!
//! * `…/all-switches`: the per-hop frames of 2,000 random oracle walks, shuffled, each
//!   decided at the switch where the walk saw it. Consecutive decisions are at random
//!   switches of the whole fabric (5,120 of them at k=64), so each starts with cache
//!   misses on that switch's tables: the working set of a whole fabric in one core.
//! * `…/one-switch/NAME`: 4,096 distinct frames that walks through switch NAME brought to
//!   it (both directions where it has both), shuffled, all decided at NAME with only its
//!   own tables, as that switch does.
//!
//! The frames of a row are stored back to back in replay order.

use canopy_control::oracle::{self, Oracle};
use canopy_control::topology::{Peer, Topology};
use canopy_control::{kinds, topology};
use canopy_dataplane::decide::Decision;
use canopy_dataplane::table::{PortRole, SwitchTables};
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::hint::black_box;

/// Frames to replay, back to back in replay order: (switch, ingress, offset, length).
#[derive(Default)]
struct Replay {
    bytes: Vec<u8>,
    items: Vec<(u32, u16, u32, u16)>,
}

impl Replay {
    fn from_snaps(snaps: &[(u32, u16, Vec<u8>)]) -> Self {
        let mut r = Replay::default();
        for (sw, ingress, frame) in snaps {
            let off = r.bytes.len() as u32;
            r.bytes.extend_from_slice(frame);
            r.items.push((*sw, *ingress, off, frame.len() as u16));
        }
        r
    }
}

/// Frame of a pair as the source sends it.
fn frame_of(t: &Topology, s: u32, d: u32, h: &[u8]) -> Vec<u8> {
    wire::ethernet_frame(
        oracle::host_mac(t, d),
        oracle::host_mac(t, s),
        h,
        &oracle::PAYLOAD,
    )
}

/// Walk `h` from `s` to `d` with `o`, calling `at(switch, ingress, frame)` with the
/// frame every switch receives.
fn walk(
    t: &Topology,
    o: &Oracle,
    s: u32,
    d: u32,
    h: &[u8],
    rng: &mut StdRng,
    mut at: impl FnMut(u32, u16, &[u8]),
) {
    let w = o.walk_header(s, d, h, rng);
    assert!(w.check().is_ok(), "{}: walk failed", t.spec);
    let mut frame = frame_of(t, s, d, h);
    for hop in &w.hops {
        at(hop.switch, hop.ingress, &frame);
        let v = decide(&o.tables()[hop.switch as usize], hop.ingress, &mut frame);
        assert!(!matches!(v, Verdict::Drop(_)));
    }
}

/// The all-switch row: the hops of 2,000 random walks, shuffled.
fn record_all(t: &Topology, o: &Oracle, kind: Kind) -> Replay {
    let mut rng = StdRng::seed_from_u64(1);
    let mut snaps = Vec::new();
    for (s, d) in oracle::random_pairs(t, 2000, 2) {
        let h = kinds::header(t, kind, s, d).expect("header");
        walk(t, o, s, d, &h, &mut rng, |sw, ingress, f| {
            snaps.push((sw, ingress, f.to_vec()))
        });
    }
    snaps.shuffle(&mut rng);
    Replay::from_snaps(&snaps)
}

/// Hosts below switch `sw` (through its down ports, recursively).
fn hosts_below(t: &Topology, sw: u32) -> (Vec<u32>, HashSet<u32>) {
    let (mut hosts, mut seen, mut stack) = (Vec::new(), HashSet::from([sw]), vec![sw]);
    while let Some(s) = stack.pop() {
        for p in &t.switches[s as usize].ports {
            match p.peer {
                Peer::Host { host, .. } if p.role == PortRole::Down => hosts.push(host),
                Peer::Switch { sw: c, .. } if p.role == PortRole::Down && seen.insert(c) => {
                    stack.push(c)
                }
                _ => {}
            }
        }
    }
    hosts.sort_unstable();
    hosts.dedup();
    (hosts, seen)
}

/// Tables whose groups of up ports lead only towards `sw` where some of their ports do
/// (for walking sliced-flit frames, whose up ports the oracle picks at random, through a
/// top switch; the frames do not depend on that choice).
fn steered(t: &Topology, tables: &[SwitchTables], sw: u32) -> Vec<SwitchTables> {
    let (_, below) = hosts_below(t, sw);
    let mut out = tables.to_vec();
    for (i, st) in out.iter_mut().enumerate() {
        let ports = &t.switches[i].ports;
        for g in &mut st.groups {
            let up = |p: &u16| ports.get(usize::from(*p)).map(|x| x.role) == Some(PortRole::Up);
            if !g.iter().all(up) {
                continue;
            }
            let keep: Vec<u16> = g
                .iter()
                .copied()
                .filter(|&p| match ports[usize::from(p)].peer {
                    Peer::Switch { sw: n, .. } => below.contains(&n),
                    _ => false,
                })
                .collect();
            if !keep.is_empty() {
                *g = keep;
            }
        }
    }
    out
}

/// The one-switch row of switch `sw`: 4,096 distinct (ingress, frame) pairs that walks
/// between random pairs with one end below `sw` bring to it, shuffled. Walks are
/// steered through a top switch (below which every host is): path-ID by the path choice
/// (the top is the choice modulo the number of tops), sliced-flit by `steered` tables.
fn record_one(t: &Topology, o: &Oracle, kind: Kind, sw: u32) -> Replay {
    const WANT: usize = 4096;
    let mut rng = StdRng::seed_from_u64(u64::from(sw));
    let (below, _) = hosts_below(t, sw);
    let top = below.len() == t.hosts.len();
    let n_hosts = t.hosts.len() as u32;
    let level = t.switches[sw as usize].level;
    let n_level = t.switches.iter().filter(|s| s.level == level).count() as u64;
    let steer = (top && kind == Kind::Sliced).then(|| steered(t, o.tables(), sw));
    let so = steer.map(|tb| Oracle::new(t, tb));
    let walker = so.as_ref().unwrap_or(o);
    let pair = |rng: &mut StdRng, i: usize| {
        let a = below[rng.gen_range(0..below.len())];
        let mut b = rng.gen_range(0..n_hosts - 1);
        if b >= a {
            b += 1;
        }
        if i.is_multiple_of(2) {
            (a, b)
        } else {
            (b, a)
        }
    };
    // path-ID at a top switch: the residue of the choices whose top is `sw`
    let mut residue = None;
    if top && kind == Kind::PathId {
        'find: for i in 0..16 {
            let (s, d) = pair(&mut rng, i);
            for c in 0..n_level {
                let h = kinds::pathid::header_with_choice(t, s, d, c).expect("header");
                let mut hit = false;
                walk(t, o, s, d, &h, &mut rng, |x, _, _| hit |= x == sw);
                if hit {
                    residue = Some(c);
                    break 'find;
                }
            }
        }
        assert!(residue.is_some(), "no path through {sw}");
    }
    let mut seen = HashSet::new();
    let mut snaps = Vec::new();
    let mut walks = 0usize;
    while snaps.len() < WANT {
        walks += 1;
        assert!(walks < 400 * WANT, "too few walks through switch {sw}");
        let (s, d) = pair(&mut rng, walks);
        let h = match kind {
            Kind::PathId => {
                let c = match residue {
                    Some(r) => r + n_level * rng.gen_range(0..1u64 << 20),
                    None => rng.gen(),
                };
                kinds::pathid::header_with_choice(t, s, d, c)
            }
            _ => kinds::header(t, kind, s, d),
        }
        .expect("header");
        walk(t, walker, s, d, &h, &mut rng, |x, ingress, f| {
            if x == sw && snaps.len() < WANT && seen.insert((ingress, f.to_vec())) {
                snaps.push((sw, ingress, f.to_vec()));
            }
        });
    }
    let ports = &o.tables()[sw as usize].ports;
    let from_below = snaps
        .iter()
        .filter(|s| ports[usize::from(s.1)].role == PortRole::Down)
        .count();
    eprintln!(
        "{} {kind} at {}: {} frames ({from_below} from below) from {walks} walks",
        t.spec,
        t.switches[sw as usize].name,
        snaps.len()
    );
    snaps.shuffle(&mut rng);
    Replay::from_snaps(&snaps)
}

/// The switch at a third of the switches of `level` (not the first, whose numbers are
/// all 0).
fn pick(t: &Topology, level: u16) -> u32 {
    let v: Vec<u32> = (0..t.switches.len() as u32)
        .filter(|&i| t.switches[i as usize].level == level)
        .collect();
    v[v.len() / 3]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("decide");
    g.throughput(Throughput::Elements(1));
    let mut run = |name: String, tables: &[SwitchTables], r: &Replay| {
        let mut buf = [0u8; 256];
        g.bench_function(name, |b| {
            let mut i = 0usize;
            b.iter(|| {
                let (sw, ingress, off, len) = r.items[i];
                i = if i + 1 == r.items.len() { 0 } else { i + 1 };
                let f = &mut buf[..usize::from(len)];
                f.copy_from_slice(&r.bytes[off as usize..off as usize + usize::from(len)]);
                // what the engine reads from a verdict (`Decision`): passing the whole
                // `Verdict` to `black_box` instead copies all its bytes through the stack,
                // several times the cost of reading it
                black_box(Decision::from(decide(&tables[sw as usize], ingress, f)))
            })
        });
    };
    for (spec, kinds_of, one) in [
        ("fat-tree:k=8", &[Kind::Sliced, Kind::PathId][..], false),
        ("znode:z=3,2,3;r=1,3,6;m=2", &[Kind::Sliced], false),
        ("fat-tree:k=32", &[Kind::PathId], true),
        ("fat-tree:k=64", &[Kind::PathId, Kind::Sliced], true),
        ("transit-full:layers=1", &[Kind::Transit], false),
        ("transit-hybrid:leaf=12;layers=1", &[Kind::Transit], false),
    ] {
        let t = topology::build_str(spec).expect("spec");
        for &kind in kinds_of {
            let o = Oracle::for_kind(&t, kind).expect("tables");
            let all = record_all(&t, &o, kind);
            run(
                format!("{}/{spec}/all-switches", kind.name()),
                o.tables(),
                &all,
            );
            if !one {
                continue;
            }
            for level in [1, 2, 3] {
                let sw = pick(&t, level);
                let r = record_one(&t, &o, kind, sw);
                let name = &t.switches[sw as usize].name;
                run(
                    format!("{}/{spec}/one-switch/{name}", kind.name()),
                    o.tables(),
                    &r,
                );
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
