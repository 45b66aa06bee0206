//! Malformed input through the whole engine: one switch of a
//! real topology on `mem` ports, fed frames that are wrong in one way each. Every frame
//! must be dropped and counted under its own reason at the ingress port, nothing may be
//! transmitted, counters must conserve, and the switch must keep forwarding good frames
//! afterwards.
//!
//! The frames are the real headers of a routing-oracle walk (the state a frame has when
//! it reaches a given switch), changed in one field. A second test sweeps single-byte
//! mutations of every hop's header through the engine and checks that the engine counts
//! exactly what the pure decision function says, frame by frame.

use canopy_control::oracle::{host_mac, Oracle, Walk, PAYLOAD};
use canopy_control::topology::Topology;
use canopy_control::{build_str, kinds};
use canopy_dataplane::engine::counters::{reason_name, N_REASONS};
use canopy_dataplane::engine::{mem, Engine, EngineConfig, EngineHandle, Pool, Port, PortStats};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, doc_vector, Kind};
use canopy_dataplane::{decide, DropReason, Verdict};
use rand::SeedableRng;

/// Header byte offsets (docs/wire-format.md §2, §4.1, §5, §6).
const VER_KIND: usize = 0;
const PREFIX_FLAGS: usize = 1;
const HOP_LIMIT: usize = 2;
const HDR_LEN: usize = 3;
const SLICED_FLAGS: usize = 9;
const SLICED_CURSOR: usize = 11;
const SLICE: usize = 16;
const TRANSIT_ROUTE_LEN: usize = 9;
const TRANSIT_HEAD: usize = 10;
const TRANSIT_ROT: usize = 11;
const TRANSIT_ROUTE: usize = 16;
const PATHID_HOST_LABEL: usize = 12;
const PHASE_DOWN: u8 = 0x80;

/// One switch on `mem` ports, driven on the test thread.
struct Rig {
    tables: SwitchTables,
    engine: Engine,
    handle: EngineHandle,
    outer: Vec<mem::MemPort>,
    pool: Pool,
}

impl Rig {
    /// Switch `sw` with its tables `all[sw]`; every port's MTU is `mtu`.
    fn new(all: &[SwitchTables], sw: usize, mtu: usize) -> Rig {
        let tables = all[sw].clone();
        let n = tables.ports.len();
        let mut ports: Vec<Box<dyn Port>> = Vec::new();
        let mut outer = Vec::new();
        for i in 0..n {
            let (mut a, b) = mem::pair(&format!("p{i}"), &format!("x{i}"), 64);
            a.set_mtu(mtu);
            ports.push(Box::new(a));
            outer.push(b);
        }
        let pool = Pool::new(256);
        let engine = Engine::new(
            tables.clone(),
            ports,
            pool.clone(),
            &EngineConfig::default(),
        )
        .unwrap();
        let handle = engine.handle();
        Rig {
            tables,
            engine,
            handle,
            outer,
            pool,
        }
    }

    /// Inject `frame` on `port`, run the switch until idle, and report what happened:
    /// `Err(reason)` for one counted drop, `Ok(egress)` for one transmitted frame.
    /// Panics (fails the test) on anything else: two events, none, a counter that
    /// moved on another port, broken conservation.
    fn send(&mut self, port: u16, frame: &[u8]) -> Result<u16, &'static str> {
        let before = self.handle.counters();
        let mut b = self.pool.get().expect("pool");
        assert!(b.fill(frame), "fixture longer than a buffer");
        assert!(self.outer[usize::from(port)].send(b).is_ok());
        while self.engine.workers[0].poll() > 0 {}
        let after = self.handle.counters();
        let mut out = None;
        for (i, o) in self.outer.iter_mut().enumerate() {
            while let Some(b) = o.recv() {
                assert!(out.is_none(), "more than one frame out");
                out = Some(i as u16);
                self.pool.put(b);
            }
        }
        let d = delta(&before, &after);
        assert_eq!(
            d.rx,
            vec![(port, 1)],
            "exactly one frame received on {port}"
        );
        match (out, d.drops.as_slice(), d.tx.as_slice()) {
            (Some(e), [], [(p, 1)]) if *p == e => Ok(e),
            (None, [(p, r)], []) => {
                assert_eq!(*p, port, "{r} counted at port {p}, not the ingress {port}");
                Err(r)
            }
            other => panic!("not one drop or one transmission: {other:?}"),
        }
    }

    fn totals(&self) -> (u64, u64, u64) {
        canopy_dataplane::engine::counters::totals(&self.handle.counters())
    }
}

#[derive(Debug, Default)]
struct Delta {
    rx: Vec<(u16, u64)>,
    tx: Vec<(u16, u64)>,
    drops: Vec<(u16, &'static str)>,
}

fn delta(a: &[PortStats], b: &[PortStats]) -> Delta {
    let mut d = Delta::default();
    for (p, (x, y)) in a.iter().zip(b).enumerate() {
        let p = p as u16;
        if y.rx_packets != x.rx_packets {
            d.rx.push((p, y.rx_packets - x.rx_packets));
        }
        if y.tx_packets != x.tx_packets {
            d.tx.push((p, y.tx_packets - x.tx_packets));
        }
        for i in 0..N_REASONS {
            for _ in x.drops[i]..y.drops[i] {
                d.drops.push((p, reason_name(i)));
            }
        }
    }
    d
}

/// The walk of `src` → `dst` with every hop's header recorded.
fn walk(t: &Topology, kind: Kind, src: u32, dst: u32) -> Walk {
    let mut o = Oracle::for_kind(t, kind).unwrap();
    o.record_headers = true;
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let w = o.walk(kind, src, dst, &mut rng).unwrap();
    assert!(w.delivered_to() == Some(dst), "fixture walk not delivered");
    w
}

/// The header as it arrives at hop `k` of `w`.
fn arrival(w: &Walk, k: usize) -> Vec<u8> {
    if k == 0 {
        w.header.clone()
    } else {
        w.hops[k - 1].header.clone()
    }
}

fn frame(t: &Topology, w: &Walk, header: &[u8]) -> Vec<u8> {
    wire::ethernet_frame(host_mac(t, w.dst), host_mac(t, w.src), header, &PAYLOAD)
}

/// Set `n` bits starting at bit `at` (MSB first) of `h` to the low bits of `v`.
fn set_bits(h: &mut [u8], at: usize, n: usize, v: u64) {
    for i in 0..n {
        let bit = at + i;
        let mask = 0x80u8 >> (bit % 8);
        if (v >> (n - 1 - i)) & 1 == 1 {
            h[bit / 8] |= mask;
        } else {
            h[bit / 8] &= !mask;
        }
    }
}

/// One malformed frame and the reason it must be counted under.
struct Case {
    what: &'static str,
    hop: usize,
    frame: Vec<u8>,
    want: &'static str,
}

/// Run `cases` (all on switches of walk `w`), each on a fresh rig of its hop's switch,
/// then check the same switch still forwards the walk's good frame at that hop.
fn run_cases(
    t: &Topology,
    kind: Kind,
    w: &Walk,
    cases: Vec<Case>,
    mtu: usize,
) -> Vec<&'static str> {
    let all = kinds::tables(t, kind).unwrap();
    let mut seen = Vec::new();
    for c in cases {
        let hop = &w.hops[c.hop];
        let sw = hop.switch as usize;
        let mut rig = Rig::new(&all, sw, mtu);
        let got = rig.send(hop.ingress, &c.frame);
        assert_eq!(got, Err(c.want), "{}: {}", t.switches[sw].name, c.what);
        // keeps going: the unmodified frame of this hop is forwarded as the oracle did
        let good = frame(t, w, &arrival(w, c.hop));
        let e = rig
            .send(hop.ingress, &good)
            .unwrap_or_else(|r| panic!("{}: good frame dropped as {r}", c.what));
        match hop.verdict {
            Verdict::Port(p) => assert_eq!(e, p, "{}", c.what),
            Verdict::Group(g) => assert!(rig.tables.group(g).contains(&e), "{}", c.what),
            Verdict::Drop(_) => unreachable!("a delivered walk has no drop"),
        }
        let (rx, tx, dropped) = rig.totals();
        assert_eq!((rx, tx, dropped), (2, 1, 1), "{}: conservation", c.what);
        seen.push(c.want);
    }
    seen
}

/// Common-prefix cases at hop 0 of any walk.
fn prefix_cases(t: &Topology, w: &Walk) -> Vec<Case> {
    let h = arrival(w, 0);
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut x = h.clone();
        f(&mut x);
        frame(t, w, &x)
    };
    let good = frame(t, w, &h);
    let mut not_canopy = good.clone();
    not_canopy[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    vec![
        Case {
            what: "header cut short",
            hop: 0,
            frame: good[..14 + h.len() / 2].to_vec(),
            want: "truncated",
        },
        Case {
            what: "runt: 10 bytes, less than an Ethernet header",
            hop: 0,
            frame: good[..10].to_vec(),
            want: "truncated",
        },
        Case {
            what: "not a Canopy EtherType",
            hop: 0,
            frame: not_canopy,
            want: "not_canopy",
        },
        Case {
            what: "version 2",
            hop: 0,
            frame: with(&|x| x[VER_KIND] = (x[VER_KIND] & 0x0f) | 0x20),
            want: "bad_version",
        },
        Case {
            what: "kind 9",
            hop: 0,
            frame: with(&|x| x[VER_KIND] = 0x19),
            want: "unknown_kind",
        },
        Case {
            what: "reserved prefix flag",
            hop: 0,
            frame: with(&|x| x[PREFIX_FLAGS] |= 0x01),
            want: "reserved_bits_set",
        },
        Case {
            what: "header length 0",
            hop: 0,
            frame: with(&|x| x[HDR_LEN] = 0),
            want: "bad_field_value",
        },
        Case {
            what: "hop limit exhausted",
            hop: 0,
            frame: with(&|x| x[HOP_LIMIT] = 0),
            want: "ttl_expired",
        },
    ]
}

#[test]
fn sliced_flit_malformed_frames_are_counted_by_reason() {
    // The thesis's Snode example; walk 5 -> 26 is vector S1 (six hops, turn and side
    // link at the top).
    let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
    let w = walk(&t, Kind::Sliced, 5, 26);
    assert_eq!(w.header, doc_vector("S1").unwrap().bytes);
    assert_eq!(w.hops.len(), 6);
    let mut cases = prefix_cases(&t, &w);
    // rho = 1 at a top switch: the built header (cursor 0) arriving at hop 2, the top.
    cases.push(Case {
        what: "rho = 1 at a top switch",
        hop: 2,
        frame: frame(&t, &w, &w.header),
        want: "up_at_top",
    });
    // label out of range at the last hop: p1 = `11` = 3 >= z_1 = 3.
    let mut h = arrival(&w, 5);
    let cur = usize::from(h[SLICED_CURSOR]);
    set_bits(&mut h, SLICE * 8 + cur, 2, 3);
    cases.push(Case {
        what: "label 3 >= z_1 = 3",
        hop: 5,
        frame: frame(&t, &w, &h),
        want: "bad_label",
    });
    // a frame that already turned, sent up again from a host port
    let mut h = arrival(&w, 0);
    h[SLICED_FLAGS] |= PHASE_DOWN;
    cases.push(Case {
        what: "PHASE_DOWN set on an upward arrival",
        hop: 0,
        frame: frame(&t, &w, &h),
        want: "bad_phase",
    });
    // a path-ID header at a switch that has only sliced-flit tables
    cases.push(Case {
        what: "path-ID frame at a sliced-only switch",
        hop: 0,
        frame: frame(&t, &w, &doc_vector("I1").unwrap().bytes),
        want: "kind_not_configured",
    });
    // larger than the egress MTU (all ports have MTU 200 here)
    let mut big = frame(&t, &w, &w.header);
    big.extend(std::iter::repeat_n(0u8, 300));
    cases.push(Case {
        what: "frame longer than the egress MTU",
        hop: 0,
        frame: big,
        want: "oversize",
    });
    let seen = run_cases(&t, Kind::Sliced, &w, cases, 200);
    assert!(seen.contains(&"bad_label") && seen.contains(&"up_at_top"));
}

#[test]
fn sliced_flit_side_label_beyond_m_is_counted() {
    // Three Znodes (m = 3), so the side label has a = 2 bits and can say 3 >= m.
    let t = build_str("znode:z=2,3,2;r=2,3,2;m=3").unwrap();
    let n = t.hosts.len() as u32;
    let w = walk(&t, Kind::Sliced, 0, n - 1);
    // the turn: the first hop that sets PHASE_DOWN reads rho = 0 and the side label
    let k = (0..w.hops.len())
        .find(|&k| w.hops[k].header[SLICED_FLAGS] & PHASE_DOWN != 0)
        .expect("a turn");
    let mut h = arrival(&w, k);
    let cur = usize::from(h[SLICED_CURSOR]);
    set_bits(&mut h, SLICE * 8 + cur, 3, 0b0_11); // rho 0, side label 3
    let cases = vec![Case {
        what: "side label 3 >= m = 3",
        hop: k,
        frame: frame(&t, &w, &h),
        want: "bad_side_label",
    }];
    run_cases(&t, Kind::Sliced, &w, cases, 2048);
}

#[test]
fn transit_malformed_frames_are_counted_by_reason() {
    let t = build_str("transit-full:layers=1").unwrap();
    let tables = kinds::tables(&t, Kind::Transit).unwrap();
    let n = t.hosts.len() as u32;
    let w = walk(&t, Kind::Transit, 0, n - 1);
    let mut cases = prefix_cases(&t, &w);
    let swallows = |k: usize| {
        let hop = &w.hops[k];
        let tt = tables[hop.switch as usize].transit.as_ref().unwrap();
        tt.config.swallow[usize::from(hop.ingress)]
    };
    // direction 11 where it has no output (the root of the unit tree). The read
    // position is the head after this input's swallow, at the rotation cursor.
    let root = (0..w.hops.len())
        .find_map(|k| {
            let mut h = arrival(&w, k);
            let head = usize::from(h[TRANSIT_HEAD]) + usize::from(swallows(k));
            let rot = usize::from(h[TRANSIT_ROT]);
            set_bits(&mut h, (TRANSIT_ROUTE + head) * 8 + 2 * rot, 2, 3);
            let f = frame(&t, &w, &h);
            let sw = &tables[w.hops[k].switch as usize];
            let v = decide(sw, w.hops[k].ingress, &mut f.clone());
            (v == Verdict::Drop(DropReason::NoOutput)).then_some((k, f))
        })
        .expect("a stage where direction 11 is unconnected");
    cases.push(Case {
        what: "direction 11 at the root",
        hop: root.0,
        frame: root.1,
        want: "no_output",
    });
    // a swallow at a cursor already on the last routing byte runs off the route
    let k = (0..w.hops.len())
        .find(|&k| swallows(k))
        .expect("a swallowing input on the path");
    let mut h = arrival(&w, k);
    h[TRANSIT_HEAD] = h[TRANSIT_ROUTE_LEN] - 1;
    cases.push(Case {
        what: "swallow with the head on the last routing byte",
        hop: k,
        frame: frame(&t, &w, &h),
        want: "route_exhausted",
    });
    // a head cursor beyond the route is malformed
    let mut h = arrival(&w, 0);
    h[TRANSIT_HEAD] = h[TRANSIT_ROUTE_LEN] + 1;
    cases.push(Case {
        what: "head beyond RouteLen",
        hop: 0,
        frame: frame(&t, &w, &h),
        want: "bad_field_value",
    });
    // the rotation cursor is 2 bits (0..=3); the rest of its byte is reserved
    let mut h = arrival(&w, 0);
    h[TRANSIT_ROT] = 4;
    cases.push(Case {
        what: "rotation byte 4",
        hop: 0,
        frame: frame(&t, &w, &h),
        want: "reserved_bits_set",
    });
    // a strict circuit-mode message (vector T3, a REPLY) at a packet-mode stage
    cases.push(Case {
        what: "circuit-mode REPLY",
        hop: 0,
        frame: frame(&t, &w, &doc_vector("T3").unwrap().bytes),
        want: "mode_mismatch",
    });
    run_cases(&t, Kind::Transit, &w, cases, 2048);
}

#[test]
fn path_id_malformed_frames_are_counted_by_reason() {
    let t = build_str("fat-tree:k=4").unwrap();
    let w = walk(&t, Kind::PathId, 0, 15);
    let last = w.hops.len() - 1;
    let mut cases = prefix_cases(&t, &w);
    // host label 7 at the destination edge switch, which has hosts 0 and 1
    let mut h = arrival(&w, last);
    h[PATHID_HOST_LABEL..PATHID_HOST_LABEL + 4].copy_from_slice(&7u32.to_be_bytes());
    cases.push(Case {
        what: "unknown host label at the leaf",
        hop: last,
        frame: frame(&t, &w, &h),
        want: "bad_label",
    });
    // the down-phase state I2 arriving from a host: an up move after the turn
    cases.push(Case {
        what: "PHASE_DOWN frame from a host port",
        hop: 0,
        frame: frame(&t, &w, &doc_vector("I2").unwrap().bytes),
        want: "bad_phase",
    });
    run_cases(&t, Kind::PathId, &w, cases, 2048);
}

/// Differential sweep: every single-byte change (several values) of every hop's header,
/// for each kind, through the engine; the engine must count exactly the decision's
/// verdict (drop reason, or a transmission on the decided port / a group member).
#[test]
fn engine_counts_what_the_decision_says_for_mutated_headers() {
    for (spec, kind, src, dst) in [
        ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, 5u32, 26u32),
        ("fat-tree:k=4", Kind::Sliced, 0, 15),
        ("transit-full:layers=1", Kind::Transit, 0, 63),
        ("fat-tree:k=4", Kind::PathId, 0, 15),
    ] {
        let t = build_str(spec).unwrap();
        let w = walk(&t, kind, src, dst);
        let all = kinds::tables(&t, kind).unwrap();
        let mut reasons = std::collections::BTreeSet::new();
        let mut forwarded = 0u64;
        for (k, hop) in w.hops.iter().enumerate() {
            let mut rig = Rig::new(&all, hop.switch as usize, 2048);
            let base = arrival(&w, k);
            let mut sent = 0u64;
            for i in 0..base.len() {
                for v in [
                    0x00,
                    0xff,
                    base[i] ^ 0x01,
                    base[i] ^ 0x80,
                    base[i].wrapping_add(1),
                ] {
                    let mut h = base.clone();
                    h[i] = v;
                    let f = frame(&t, &w, &h);
                    let expect = decide(&rig.tables, hop.ingress, &mut f.clone());
                    let got = rig.send(hop.ingress, &f);
                    sent += 1;
                    match (expect, got) {
                        (Verdict::Drop(r), Err(name)) => {
                            assert_eq!(r.name(), name, "{spec} hop {k} byte {i} = {v:#x}");
                            reasons.insert(name);
                        }
                        (Verdict::Port(p), Ok(e)) => {
                            assert_eq!(p, e, "{spec} hop {k} byte {i}");
                            forwarded += 1;
                        }
                        (Verdict::Group(g), Ok(e)) => {
                            assert!(rig.tables.group(g).contains(&e), "{spec} hop {k} byte {i}");
                            forwarded += 1;
                        }
                        (e, g) => {
                            panic!("{spec} hop {k} byte {i} = {v:#x}: decide {e:?}, engine {g:?}")
                        }
                    }
                }
            }
            let (rx, tx, dropped) = rig.totals();
            assert_eq!(rx, sent);
            assert_eq!(rx, tx + dropped, "{spec} hop {k}: conservation");
        }
        // the sweep must actually reach malformed-frame handling, not only forward
        assert!(reasons.len() >= 4, "{spec}: only {reasons:?}");
        assert!(forwarded > 0, "{spec}: nothing forwarded");
    }
}
