//! Per-hop records (wire flag HOPS) written by the engine, on whole fabrics of mem ports
//! (control::sim): every switch a frame crosses writes one record, in hop order, whose
//! switch and ports are the engine's own hop trace, with consistent times; a full area
//! is flagged, not overwritten; malformed areas are dropped under their reasons; frames
//! without the flag are forwarded exactly as before.

mod common;

use canopy_control::build_str;
use canopy_control::oracle::{all_pairs, host_mac};
use canopy_control::sim::{Delivery, Fabric};
use canopy_dataplane::wire::hops::{self, clock, HopArea, HopRecord};
use canopy_dataplane::wire::{self, Header, Kind, Measurement, PrefixRepr, ETH_HEADER_LEN};

/// `plain` (an Ethernet frame from `Fabric::frame`) with a measurement block and a
/// record area of `slots` empty slots.
fn with_hops(plain: &[u8], slots: u8) -> Vec<u8> {
    let h = Header::new_checked(&plain[ETH_HEADER_LEN..]).unwrap();
    let mut p = PrefixRepr::parse(&h);
    p.meas = Some(Measurement {
        seq: 1,
        timestamp_ns: 2,
    });
    p.hops = Some(HopArea::new(slots));
    let hdr = p.to_vec(h.body()).unwrap();
    let at = ETH_HEADER_LEN + h.header_len();
    let payload = &plain[at..at + usize::from(h.payload_len())];
    let mut dst = [0; 6];
    let mut src = [0; 6];
    dst.copy_from_slice(&plain[..6]);
    src.copy_from_slice(&plain[6..12]);
    wire::ethernet_frame(dst, src, &hdr, payload)
}

/// The area and records of a delivered frame.
fn records(frame: &[u8]) -> (HopArea, Vec<HopRecord>) {
    let h = Header::new_checked(&frame[ETH_HEADER_LEN..]).expect("delivered header checks");
    assert!(h.has_hops());
    let (a, it) = hops::records(&frame[ETH_HEADER_LEN..]).unwrap();
    (a, it.collect())
}

fn deliver(f: &mut Fabric, src: u32, frame: &[u8]) -> Delivery {
    assert!(f.send(src, frame));
    f.run_until_idle();
    let mut got = Vec::new();
    f.collect(|h, b| {
        got.push(Delivery {
            host: h,
            frame: b.bytes().to_vec(),
            trace: b.trace().to_vec(),
        })
    });
    assert_eq!(got.len(), 1, "one frame in, one out");
    got.pop().unwrap()
}

/// Every pair of `spec` for `kind`, one frame at a time, with and without records.
fn every_pair(spec: &str, kind: Kind) {
    let topo = build_str(spec).unwrap();
    let mut f = Fabric::new(&topo, kind, true, 64).unwrap();
    let mut pairs = 0;
    for (s, d) in all_pairs(&topo) {
        let plain = f.frame(s, d).unwrap();
        let before = common::sys::mono_ns();
        let got = deliver(&mut f, s, &with_hops(&plain, 8));
        let after = common::sys::mono_ns();
        assert_eq!(&got.frame[..6], &host_mac(&topo, d)[..], "h{s}->h{d}");
        let (a, recs) = records(&got.frame);
        let trace = &got.trace;
        assert!(
            !trace.is_empty() && trace.len() <= 8,
            "h{s}->h{d}: {trace:?}"
        );
        assert_eq!(
            usize::from(a.count),
            trace.len(),
            "h{s}->h{d}: one record a hop"
        );
        assert!(!a.overflow);
        let mut last_tx = before;
        for (i, (r, &(sw, ing, eg))) in recs.iter().zip(trace.iter()).enumerate() {
            let at = format!("h{s}->h{d} hop {i}: {r:?}");
            assert_eq!((r.switch, r.ingress, r.egress), (sw, ing, eg), "{at}");
            assert_eq!(r.clock, clock::MONOTONIC, "{at}");
            assert_eq!(r.kernel_rx_ns, 0, "{at}: mem ports have no kernel stamp");
            assert_eq!(r.queue, 0, "{at}: a frame alone sees empty queues");
            assert_eq!(r.queue_delay_ns, 0, "{at}");
            assert!(
                last_tx <= r.poll_ns,
                "{at}: polled after the previous handoff"
            );
            assert!(r.poll_ns <= r.tx_ns, "{at}: handed off after the poll");
            assert!(r.tx_ns <= after, "{at}: in the past");
            last_tx = r.tx_ns;
        }
        // the same frame without the area: forwarded exactly as the model says, and
        // the records changed nothing else of the frame (an adaptive choice may take
        // another of the equivalent ports, which changes no header byte)
        let got_plain = deliver(&mut f, s, &plain);
        f.verify(s, d, &got_plain).unwrap();
        assert_eq!(
            got_plain.trace.len(),
            got.trace.len(),
            "h{s}->h{d}: as long a path"
        );
        let hp = Header::new_checked(&got_plain.frame[ETH_HEADER_LEN..]).unwrap();
        let hh = Header::new_checked(&got.frame[ETH_HEADER_LEN..]).unwrap();
        assert_eq!(hh.body(), hp.body(), "h{s}->h{d}: body");
        assert_eq!(hh.hop_limit(), hp.hop_limit());
        assert_eq!(
            hh.meas().unwrap().seq,
            1,
            "the measurement block is the sender's"
        );
        pairs += 1;
    }
    assert!(pairs > 0);
    f.check_conservation().unwrap();
    assert_eq!(f.pool.available(), f.pool.capacity(), "buffers leaked");
}

#[test]
fn fat_tree_k4_every_pair_records_every_hop() {
    every_pair("fat-tree:k=4", Kind::Sliced);
    every_pair("fat-tree:k=4", Kind::PathId);
}

#[test]
fn transit_every_pair_records_every_hop() {
    every_pair("transit-full:layers=1", Kind::Transit);
}

#[test]
fn znode_sliced_every_pair_records_every_hop() {
    every_pair("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced);
}

#[test]
fn a_full_area_keeps_the_first_records_and_says_so() {
    let topo = build_str("fat-tree:k=4").unwrap();
    let mut f = Fabric::new(&topo, Kind::PathId, true, 64).unwrap();
    // h0 -> h15 crosses 5 switches
    let plain = f.frame(0, 15).unwrap();
    let got = deliver(&mut f, 0, &with_hops(&plain, 2));
    assert_eq!(got.trace.len(), 5);
    let (a, recs) = records(&got.frame);
    assert_eq!((a.slots, a.count, a.overflow), (2, 2, true));
    for (r, &(sw, ing, eg)) in recs.iter().zip(&got.trace) {
        assert_eq!((r.switch, r.ingress, r.egress), (sw, ing, eg));
        assert!(r.poll_ns > 0 && r.poll_ns <= r.tx_ns);
    }
    // no slot at all: only the flag
    let got = deliver(&mut f, 0, &with_hops(&plain, 0));
    let (a, recs) = records(&got.frame);
    assert_eq!((a.slots, a.count, a.overflow, recs.len()), (0, 0, true, 0));
}

#[test]
fn queued_frames_see_the_frames_ahead_of_them() {
    // a burst of frames from one host to one destination: each switch decides them in
    // one burst, so the n-th sees n - 1 frames ahead of it in the ring
    let topo = build_str("fat-tree:k=4").unwrap();
    let mut f = Fabric::new(&topo, Kind::Sliced, true, 64).unwrap();
    let frame = with_hops(&f.frame(0, 1).unwrap(), 4);
    for _ in 0..5 {
        assert!(f.send(0, &frame));
    }
    f.run_until_idle();
    let mut queues = Vec::new();
    f.collect(|_, b| queues.push(records(b.bytes()).1[0].queue));
    assert_eq!(queues, vec![0, 1, 2, 3, 4]);
}

#[test]
fn malformed_areas_are_dropped_under_their_reasons() {
    use canopy_dataplane::decide::DROP_REASON_NAMES;
    let topo = build_str("fat-tree:k=4").unwrap();
    let mut f = Fabric::new(&topo, Kind::PathId, false, 64).unwrap();
    let good = with_hops(&f.frame(0, 15).unwrap(), 2);
    let at = ETH_HEADER_LEN;
    // (byte of the Canopy header, value, reason): the descriptor is at 8..16
    let cases: [(usize, u8, &str); 5] = [
        (9, 3, "bad_field_value"),       // Count > Slots
        (8, 200, "bad_field_value"),     // Slots beyond HdrLen
        (10, 0x01, "reserved_bits_set"), // descriptor flag
        (12, 0x01, "reserved_bits_set"), // reserved byte
        (3, 2, "bad_field_value"),       // HdrLen without room for the descriptor and a body
    ];
    let drops = |f: &Fabric, name: &str| -> u64 {
        let i = DROP_REASON_NAMES.iter().position(|n| *n == name).unwrap();
        f.counters().iter().flatten().map(|p| p.drops[i]).sum()
    };
    for (i, v, reason) in cases {
        let mut bad = good.clone();
        bad[at + i] = v;
        let before = drops(&f, reason);
        assert!(f.send(0, &bad));
        f.run_until_idle();
        let mut got = 0;
        f.collect(|_, _| got += 1);
        assert_eq!(got, 0, "byte {i} = {v:#x}: dropped");
        assert_eq!(drops(&f, reason), before + 1, "byte {i} = {v:#x}: {reason}");
    }
    // cut short: the frame ends inside the record slots
    let before = drops(&f, "truncated");
    assert!(f.send(0, &good[..good.len() - 60]));
    f.run_until_idle();
    assert_eq!(drops(&f, "truncated"), before + 1);
    f.check_conservation().unwrap();
}
