//! Transit forwarding decision: one RN1 stage, packet-switched (no circuit state).
//!
//! Per hop (docs/wire-format.md §5):
//! 1. if the ingress input swallows: `head += 1`, `cycles += 1` (never popping bytes);
//!    then, swallow or not, `head ≥ RouteLen` is `route_exhausted` (no byte to read);
//! 2. `d = (R[head] >> (6 − 2·rot)) & 3` (the pair the cumulative rotation presents);
//! 3. the direction's outputs (half `ingress/4` in split mode) give a port or a group;
//! 4. `rot = (rot + link rotation) mod 4`, `hops += 1`, `cycles += 1 + link delay`.
//!
//! No allocation, no panics: every index is checked by the view or with `get`.

use super::{DropReason, Verdict};
use crate::table::transit::{DirTarget, Rn1Mode, TransitTable, RN1_PORTS};
use crate::table::SwitchTables;
use crate::wire::transit::{Msg, TransitBody};

/// Decide for a transit frame; `body` is the kind-specific body of the Canopy header.
pub fn decide(t: &TransitTable, sw: &SwitchTables, ingress: u16, body: &mut [u8]) -> Verdict {
    let mut v = match TransitBody::new_checked(body) {
        Ok(v) => v,
        Err(e) => return Verdict::Drop(e.into()),
    };
    if v.msg() != Msg::Data {
        return Verdict::Drop(DropReason::ModeMismatch);
    }
    let input = usize::from(ingress);
    if input >= RN1_PORTS {
        return Verdict::Drop(DropReason::BadIngress);
    }
    let swallow = t.config.swallow[input];
    let head = v.head().saturating_add(u8::from(swallow));
    if head >= v.route_len() {
        return Verdict::Drop(DropReason::RouteExhausted);
    }
    let Some(&byte) = v.route().get(usize::from(head)) else {
        return Verdict::Drop(DropReason::RouteExhausted);
    };
    let rot = v.rot();
    let d = usize::from((byte >> (6 - 2 * rot)) & 3);
    let half = match t.config.mode {
        Rn1Mode::Dilated => 0,
        Rn1Mode::Split => input >> 2,
    };
    let e = t.dirs[half][d];
    let verdict = match e.target {
        DirTarget::None => return Verdict::Drop(DropReason::NoOutput),
        DirTarget::Port(p) => Verdict::Port(p),
        DirTarget::Group(g) => {
            if sw.group(g).is_empty() {
                return Verdict::Drop(DropReason::NoPort);
            }
            Verdict::Group(g)
        }
    };
    let cycles = v
        .cycles()
        .saturating_add(u16::from(swallow))
        .saturating_add(1 + u16::from(e.delay));
    v.set_head(head);
    v.set_rot(rot.wrapping_add(e.rot) & 3);
    v.set_hops(v.hops().saturating_add(1));
    v.set_cycles(cycles);
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::transit::{OutputCfg, Rn1Config};
    use crate::wire::transit::TransitRepr;
    use crate::wire::{doc_vector, ethernet_frame, Header, Kind, PrefixRepr, WireError};

    fn rn1(mode: Rn1Mode, swallow: &[usize], rot: [u8; 8], connected: [bool; 8]) -> SwitchTables {
        rn1_with(mode, swallow, rot, connected, [0, 0, 3, 0, 0, 0, 3, 0])
    }

    fn rn1_with(
        mode: Rn1Mode,
        swallow: &[usize],
        rot: [u8; 8],
        connected: [bool; 8],
        delay: [u8; 8],
    ) -> SwitchTables {
        let mut cfg = Rn1Config {
            mode,
            ..Default::default()
        };
        for &i in swallow {
            cfg.swallow[i] = true;
        }
        for o in 0..8 {
            cfg.outputs[o] = OutputCfg {
                connected: connected[o],
                rot: rot[o],
                delay: delay[o],
            };
        }
        let mut st = SwitchTables::new("rn1", crate::table::transit::rn1_test_ports());
        st.transit = Some(TransitTable::new(cfg, &mut st).unwrap());
        st
    }

    fn frame(route: &[u8], head: u8, rot: u8, hop_limit: u8) -> Vec<u8> {
        let mut r = TransitRepr::data(route.to_vec());
        r.head = head;
        r.rot = rot;
        let p = PrefixRepr {
            kind: Kind::Transit,
            hop_limit,
            payload_len: 4,
            inner_type: 0,
            meas: None,
            hops: None,
        };
        let h = p.to_vec(&r.to_vec().unwrap()).unwrap();
        ethernet_frame([2; 6], [4; 6], &h, &[1, 2, 3, 4])
    }

    fn body(f: &[u8]) -> TransitRepr {
        let h = Header::new_checked(&f[14..]).unwrap();
        TransitRepr::parse(&TransitBody::new_checked(h.body()).unwrap()).unwrap()
    }

    const ALL: [bool; 8] = [true; 8];
    const ROT1: [u8; 8] = [1; 8];

    #[test]
    fn direction_decode_uses_rotation_cursor() {
        // 0xF4 = 11 11 01 00 (seed example RU): pair at rot 0,1,2,3 = 3,3,1,0.
        let st = rn1(Rn1Mode::Dilated, &[], ROT1, ALL);
        for (rot, d) in [(0u8, 3u16), (1, 3), (2, 1), (3, 0)] {
            let mut f = frame(&[0xF4, 0xD8], 0, rot, 5);
            let v = crate::decide(&st, 0, &mut f);
            let Verdict::Group(g) = v else {
                panic!("{v:?}")
            };
            assert_eq!(st.group(g), &[8 + d, 12 + d], "rot {rot}");
            let b = body(&f);
            assert_eq!((b.head, b.rot, b.hops), (0, (rot + 1) & 3, 1));
            // length never changes, hop limit decremented by decide()
            assert_eq!(f.len(), 60);
            assert_eq!(Header::new_checked(&f[14..]).unwrap().hop_limit(), 4);
        }
    }

    #[test]
    fn unvalidated_table_rotation_never_overflows() {
        // `TransitTable` has public fields and derives `Deserialize`, so a loaded
        // configuration can carry rot = 255 that `TransitTable::new` would refuse:
        // `rot + e.rot` overflowed (a debug-build panic). The rotation is mod 4.
        let mut st = rn1(Rn1Mode::Dilated, &[], ROT1, ALL);
        if let Some(t) = st.transit.as_mut() {
            t.dirs[0][3].rot = 255;
        }
        let mut f = frame(&[0xFF, 0xD8], 0, 3, 5); // direction 11 at any rotation
        assert!(matches!(crate::decide(&st, 0, &mut f), Verdict::Group(_)));
        assert_eq!(body(&f).rot, 2); // (3 + 255) mod 4
    }

    #[test]
    fn swallow_advances_head_only_on_configured_inputs() {
        // Inputs 6 and 7 swallow (a cluster first stage's fat-tree inputs).
        let st = rn1(Rn1Mode::Dilated, &[6, 7], ROT1, ALL);
        // [Transit] §3.8.5 example, cluster entry: head at 0x42 (index 2), rot 0 -> swallow ->
        // head 3 (0x67 = 01 10 01 11) -> direction 01.
        let mut f = frame(&[0xF4, 0xD8, 0x42, 0x67], 2, 0, 9);
        let Verdict::Group(g) = crate::decide(&st, 7, &mut f) else {
            panic!()
        };
        assert_eq!(st.group(g), &[9, 13]);
        let b = body(&f);
        assert_eq!((b.head, b.rot, b.hops, b.cycles), (3, 1, 1, 2));
        // The same frame on a processor input (0) does not swallow: reads 0x42 pair 0.
        let mut f = frame(&[0xF4, 0xD8, 0x42, 0x67], 2, 0, 9);
        let Verdict::Group(g) = crate::decide(&st, 0, &mut f) else {
            panic!()
        };
        assert_eq!(st.group(g), &[9, 13]);
        let b = body(&f);
        assert_eq!((b.head, b.cycles), (2, 1));
    }

    #[test]
    fn swallow_keeps_rotation() {
        // A lateral input (swallows) reached with rot = 3 - p = 1 (middle stage,
        // docs/transit.md §3 invariant 3): reads pair 1 of the new byte 0xD8 = 11 01 10 00 -> 01.
        let st = rn1(Rn1Mode::Dilated, &[0], ROT1, ALL);
        let mut f = frame(&[0xF4, 0xD8], 0, 1, 9);
        let Verdict::Group(g) = crate::decide(&st, 0, &mut f) else {
            panic!()
        };
        assert_eq!(st.group(g), &[9, 13]);
        assert_eq!((body(&f).head, body(&f).rot), (1, 2));
    }

    #[test]
    fn split_mode_uses_the_input_half() {
        let st = rn1(Rn1Mode::Split, &[], [2; 8], ALL);
        // 0x67 pair 3 = 11 -> output 4h + 3
        let mut f = frame(&[0x67], 0, 3, 9);
        assert_eq!(crate::decide(&st, 1, &mut f), Verdict::Port(8 + 3));
        assert_eq!(body(&f).rot, 1);
        let mut f = frame(&[0x67], 0, 3, 9);
        assert_eq!(crate::decide(&st, 5, &mut f), Verdict::Port(8 + 7));
    }

    #[test]
    fn link_rotation_and_delay_accumulate() {
        let mut rot = [1u8; 8];
        rot[2] = 3;
        rot[6] = 3;
        let st = rn1(Rn1Mode::Dilated, &[], rot, ALL);
        // 0x80 = 10 00 00 00: direction 10 -> outputs {2, 6}, rotation 3, delay 3.
        let mut f = frame(&[0x80], 0, 0, 9);
        assert!(matches!(crate::decide(&st, 0, &mut f), Verdict::Group(_)));
        let b = body(&f);
        assert_eq!((b.rot, b.cycles, b.hops), (3, 4, 1));
    }

    #[test]
    fn every_drop_reason() {
        let mut conn = ALL;
        conn[3] = false;
        conn[7] = false;
        let st = rn1(Rn1Mode::Dilated, &[6], ROT1, conn);
        // no_output: direction 11 with both outputs unconnected (root up stage).
        let mut f = frame(&[0xC0], 0, 0, 9);
        assert_eq!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::NoOutput)
        );
        // route_exhausted: the swallow runs past the last routing byte.
        let mut f = frame(&[0x00], 0, 0, 9);
        assert_eq!(
            crate::decide(&st, 6, &mut f),
            Verdict::Drop(DropReason::RouteExhausted)
        );
        // route_exhausted: head already at RouteLen.
        let mut f = frame(&[0x00], 1, 0, 9);
        assert_eq!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::RouteExhausted)
        );
        // route_exhausted: empty route.
        let mut f = frame(&[], 0, 0, 9);
        assert_eq!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::RouteExhausted)
        );
        // bad_ingress_port: an output port, and a port beyond the RN1.
        let mut f = frame(&[0x00], 0, 0, 9);
        assert_eq!(
            crate::decide(&st, 9, &mut f),
            Verdict::Drop(DropReason::BadIngress)
        );
        let mut f = frame(&[0x00], 0, 0, 9);
        assert_eq!(
            crate::decide(&st, 16, &mut f),
            Verdict::Drop(DropReason::BadIngress)
        );
        // no_port: the direction's group has been emptied (all ports removed).
        let mut st2 = st.clone();
        st2.groups[0].clear();
        let mut f = frame(&[0x00], 0, 0, 9);
        assert_eq!(
            crate::decide(&st2, 0, &mut f),
            Verdict::Drop(DropReason::NoPort)
        );
        // mode_mismatch: a strict-mode message at a packet-mode stage.
        let mut f = frame(&[0x00], 0, 0, 9);
        f[14 + 8] = 0x10; // Msg = OPEN
        assert_eq!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::ModeMismatch)
        );
        // malformed: head beyond RouteLen.
        let mut f = frame(&[0x00], 0, 0, 9);
        f[14 + 8 + 2] = 5;
        assert!(matches!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::Malformed(WireError::BadValue {
                field: "transit.head",
                ..
            }))
        ));
        // ttl_expired comes from the common decide().
        let mut f = frame(&[0x00], 0, 0, 0);
        assert_eq!(
            crate::decide(&st, 0, &mut f),
            Verdict::Drop(DropReason::TtlExpired)
        );
    }

    #[test]
    fn doc_vector_t1_first_hop_and_t2_delivery() {
        // T1 (seed example header) at a source cluster's first stage (processor input,
        // rotation +1 links): direction 11 (exit to the fat-tree).
        let st = rn1(Rn1Mode::Dilated, &[6, 7], ROT1, ALL);
        let mut f = ethernet_frame([2; 6], [4; 6], &doc_vector("T1").unwrap().bytes, &[]);
        let Verdict::Group(g) = crate::decide(&st, 2, &mut f) else {
            panic!()
        };
        assert_eq!(st.group(g), &[11, 15]);
        assert_eq!(
            body(&f),
            TransitRepr {
                route: vec![0xF4, 0xD8, 0x42, 0x67],
                rot: 1,
                hops: 1,
                cycles: 1,
                ..Default::default()
            }
        );
        // T3 is a strict-mode REPLY: packet-mode stages drop it.
        let mut f = ethernet_frame([2; 6], [4; 6], &doc_vector("T3").unwrap().bytes, &[]);
        assert_eq!(
            crate::decide(&st, 2, &mut f),
            Verdict::Drop(DropReason::ModeMismatch)
        );
    }

    #[test]
    fn report_trace_t1_to_t2() {
        // The report example's 12 stages (docs/transit.md §4 trace), each an RN1
        // with the swallow and link rotation the topology gives that stage: (swallow on
        // the ingress input, link rotation, direction the trace reads).
        let stages: [(bool, u8, u16); 12] = [
            (false, 1, 0b11), // source cluster stage 1: exit
            (false, 1, 0b11), // UT layer 1 up stage: further up
            (false, 3, 0b01), // UT layer 2 up stage: cross over to middle, (3-p-u) mod 4 = 3
            (true, 1, 0b01),  // UT2 middle (lateral input swallows 0xF4)
            (false, 2, 0b10), // UT2 bottom (+2 after a bottom stage)
            (true, 1, 0b01),  // UT1 top (entered from above: swallows 0xD8)
            (false, 1, 0b00), // UT1 middle
            (false, 2, 0b00), // UT1 bottom
            (true, 1, 0b01),  // destination cluster stage 1 (fat-tree input swallows 0x42)
            (false, 1, 0b10), // cluster stage 2
            (false, 1, 0b01), // cluster stage 3
            (false, 1, 0b11), // cluster stage 4
        ];
        let mut f = ethernet_frame([2; 6], [4; 6], &doc_vector("T1").unwrap().bytes, &[]);
        for (n, (swallow, rot, dir)) in stages.into_iter().enumerate() {
            let sw: &[usize] = if swallow { &[0] } else { &[] };
            let st = rn1_with(Rn1Mode::Dilated, sw, [rot; 8], ALL, [0; 8]);
            let Verdict::Group(g) = crate::decide(&st, 0, &mut f) else {
                panic!("stage {}", n + 1)
            };
            assert_eq!(st.group(g), &[8 + dir, 12 + dir], "stage {}", n + 1);
        }
        let off = crate::wire::canopy_offset(&f).unwrap();
        let h = Header::new_checked(&f[off..]).unwrap();
        assert_eq!(
            &f[off..off + h.header_len()],
            &doc_vector("T2").unwrap().bytes[..]
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
                                       ingress in 0u16..20, split in proptest::prelude::any::<bool>()) {
            let st = rn1(if split { Rn1Mode::Split } else { Rn1Mode::Dilated }, &[1, 6], ROT1, ALL);
            let mut b = b;
            let _ = super::decide(st.transit.as_ref().unwrap(), &st, ingress, &mut b);
            // and as a whole frame with a valid prefix in front
            let mut f = vec![0u8; 14];
            f[12] = 0x88; f[13] = 0xB5;
            f.extend_from_slice(&[0x12, 0, 5, ((8 + b.len()) / 8) as u8, 0, 0, 0, 0]);
            f.extend_from_slice(&b);
            let _ = crate::decide(&st, ingress, &mut f);
        }
    }
}
