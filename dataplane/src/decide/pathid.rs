//! Path-ID forwarding decision (\[PathID\]; docs/references.md): longest-prefix match of the whole path ID,
//! with the phase checked against the ingress port role; the leaf switch delivers by
//! host label. The only state changed in the frame is the PHASE_DOWN flag, set by the
//! switch where the frame turns down (the first downward entry it matches).
//!
//! Rules (docs/wire-format.md §6):
//! * arrival on an **up** port (from above): PHASE_DOWN must be set (`bad_phase`). A leaf
//!   switch delivers by host label (`bad_label` if it has none); at any other switch a
//!   LOCAL frame is `bad_phase` (it never leaves its leaf), and any other frame needs a
//!   downward entry (`no_route` if nothing matches, `bad_phase` if only an upward entry
//!   matches — the frame would climb again).
//! * arrival on a **down** port (from below): PHASE_DOWN must be clear (`bad_phase`). A
//!   LOCAL frame is delivered by host label at a leaf (`bad_phase` elsewhere). Otherwise
//!   the longest match decides: an upward entry forwards up, a downward entry sets
//!   PHASE_DOWN and forwards down; `no_route` if nothing matches.
//! * arrival on a **side** port: path-ID fabrics have none (`bad_ingress_port`).

use super::{DropReason, Verdict};
use crate::table::pathid::{Action, PathIdTable};
use crate::table::{PortRole, SwitchTables};
use crate::wire::pathid::PathIdBody;

#[inline]
fn verdict(a: Action) -> Verdict {
    match a {
        Action::Port(p) => Verdict::Port(p),
        Action::Group(g) => Verdict::Group(g),
    }
}

/// Decide for a path-ID frame; `body` is the kind-specific body of the Canopy header.
pub fn decide(t: &PathIdTable, sw: &SwitchTables, ingress: u16, body: &mut [u8]) -> Verdict {
    let mut b = match PathIdBody::new_checked(body) {
        Ok(b) => b,
        Err(e) => return Verdict::Drop(e.into()),
    };
    let role = match sw.ports.get(usize::from(ingress)) {
        Some(p) => p.role,
        None => return Verdict::Drop(DropReason::BadIngress),
    };
    let deliver = |label: u32| match t.host(label) {
        Some(a) => verdict(a),
        None => Verdict::Drop(DropReason::BadLabel),
    };
    match role {
        PortRole::Side => Verdict::Drop(DropReason::BadIngress),
        PortRole::Up => {
            if !b.phase_down() {
                return Verdict::Drop(DropReason::BadPhase);
            }
            if t.leaf {
                return deliver(b.host_label());
            }
            if b.local() {
                // a LOCAL frame never leaves its leaf: no ID to route by
                return Verdict::Drop(DropReason::BadPhase);
            }
            match t.lookup(b.id(), b.id_len()) {
                Some(e) if e.down => verdict(e.action),
                Some(_) => Verdict::Drop(DropReason::BadPhase),
                None => Verdict::Drop(DropReason::NoRoute),
            }
        }
        PortRole::Down => {
            if b.phase_down() {
                return Verdict::Drop(DropReason::BadPhase);
            }
            if b.local() {
                if !t.leaf {
                    return Verdict::Drop(DropReason::BadPhase);
                }
                b.set_phase_down(true);
                return deliver(b.host_label());
            }
            match t.lookup(b.id(), b.id_len()) {
                Some(e) => {
                    if e.down {
                        b.set_phase_down(true);
                    }
                    verdict(e.action)
                }
                None => Verdict::Drop(DropReason::NoRoute),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::pathid::{HostEntry, LpmEntry};
    use crate::table::{PortConfig, PortDir};
    use crate::wire::pathid::{PathIdRepr, FLAG_PHASE_DOWN};
    use crate::wire::{doc_vector, ethernet_frame, Header};
    use crate::{decide as decide_frame, WireError};

    /// A switch with ports 0,1 down and 2,3 up; entries of \[PathID\]'s agg s_1^2 written
    /// with our 0-based numbering (fat-tree:k=4, agg-p0-a0).
    fn agg() -> SwitchTables {
        let role = |r| PortConfig {
            role: r,
            dir: PortDir::Duplex,
        };
        let mut s = SwitchTables::new(
            "agg",
            vec![
                role(PortRole::Down),
                role(PortRole::Down),
                role(PortRole::Up),
                role(PortRole::Up),
            ],
        );
        let e = |value, len, down, p| LpmEntry {
            value,
            len,
            down,
            action: Action::Port(p),
        };
        s.pathid = Some(
            PathIdTable::new(
                2,
                false,
                vec![],
                vec![
                    e(0b00000, 5, true, 0), // 0.000.null.0 -> edge 0
                    e(0b00001, 5, true, 1), // 0.000.null.1 -> edge 1
                    e(0b100, 3, false, 2),  // 1.00.null -> core-c0
                    e(0b101, 3, false, 3),  // 1.01.null -> core-c1
                    e(0b100000, 6, true, 0),
                    e(0b100001, 6, true, 1),
                ],
            )
            .unwrap(),
        );
        s
    }

    fn leaf() -> SwitchTables {
        let role = |r| PortConfig {
            role: r,
            dir: PortDir::Duplex,
        };
        let mut s = SwitchTables::new(
            "edge",
            vec![
                role(PortRole::Down),
                role(PortRole::Down),
                role(PortRole::Up),
                role(PortRole::Up),
            ],
        );
        let h = |label, p| HostEntry {
            label,
            action: Action::Port(p),
        };
        s.pathid = Some(
            PathIdTable::new(
                1,
                true,
                vec![h(0, 0), h(1, 1)],
                vec![LpmEntry {
                    value: 0b100,
                    len: 3,
                    down: false,
                    action: Action::Port(2),
                }],
            )
            .unwrap(),
        );
        s
    }

    fn frame_of(id: &str) -> Vec<u8> {
        ethernet_frame(
            [2; 6],
            [4; 6],
            &doc_vector(id).unwrap().bytes,
            &[1, 2, 3, 4],
        )
    }

    fn body(frame: &[u8]) -> PathIdRepr {
        let h = Header::new_checked(&frame[14..]).unwrap();
        PathIdRepr::parse(&PathIdBody::new_checked(h.body()).unwrap()).unwrap()
    }

    #[test]
    fn up_then_turn_then_down_then_deliver() {
        // I1 = h0 -> h15 on fat-tree:k=4 (1.00.null.11.1). At the source edge it matches
        // the up entry 1.00.null.
        let mut f = frame_of("I1");
        let len = f.len();
        assert_eq!(decide_frame(&leaf(), 0, &mut f), Verdict::Port(2));
        assert!(!body(&f).phase_down);
        assert_eq!(f.len(), len);
        assert_eq!(Header::new_checked(&f[14..]).unwrap().hop_limit(), 4);
        // At the agg it matches only the up entry too (DP3 = 11 is another pod).
        assert_eq!(decide_frame(&agg(), 0, &mut f), Verdict::Port(2));
        // I2 = the same frame after the core turned it: at the agg of pod 3 the down
        // entry 1.00.null.11.1 would match; our agg table is pod 0's, where only the
        // up entry 1.00.null matches: the frame would climb again.
        let mut g = frame_of("I2");
        assert!(body(&g).phase_down);
        assert_eq!(
            decide_frame(&agg(), 2, &mut g),
            Verdict::Drop(DropReason::BadPhase)
        );
        // a phase-down frame arriving at a leaf from above is delivered by host label 1
        let mut g = frame_of("I2");
        assert_eq!(decide_frame(&leaf(), 3, &mut g), Verdict::Port(1));
    }

    #[test]
    fn turn_sets_phase_down() {
        // 1.00.null.00.1: a frame from pod 1 for edge 1 of pod 0, arriving at core... here
        // at agg-p0-a0 from above it must already be down; from below it turns.
        let mut f = frame_of("I1");
        // rewrite the ID to 100001 (type 1, core 0, DP3 0, DP2 1)
        f[14 + 8 + 8] = 0b1000_0100;
        assert_eq!(
            decide_frame(&agg(), 2, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
        let mut f = frame_of("I1");
        f[14 + 8 + 8] = 0b1000_0100;
        assert_eq!(decide_frame(&agg(), 0, &mut f), Verdict::Port(1));
        assert!(body(&f).phase_down);
        // the same frame arriving again from below: would climb after the turn
        assert_eq!(
            decide_frame(&agg(), 1, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
    }

    #[test]
    fn every_drop_reason() {
        // bad_phase: up entry only, frame already down, arriving from above
        let mut f = frame_of("I2");
        f[14 + 8 + 8] = 0b1010_0000; // 1.01.null.00.0: only the up entry 1.01 matches
        assert_eq!(
            decide_frame(&agg(), 2, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
        // no_route
        let mut f = frame_of("I1");
        f[14 + 8 + 8] = 0b1110_0000;
        assert_eq!(
            decide_frame(&agg(), 0, &mut f),
            Verdict::Drop(DropReason::NoRoute)
        );
        // bad_label: host label 7 at the leaf
        let mut f = frame_of("I2");
        f[14 + 8 + 7] = 7;
        assert_eq!(
            decide_frame(&leaf(), 2, &mut f),
            Verdict::Drop(DropReason::BadLabel)
        );
        // LOCAL (I3) at a leaf is delivered and marked down; at a non-leaf it is bad_phase
        let mut f = frame_of("I3");
        assert_eq!(decide_frame(&leaf(), 0, &mut f), Verdict::Port(1));
        assert!(body(&f).phase_down);
        let mut f = frame_of("I3");
        assert_eq!(
            decide_frame(&agg(), 0, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
        // and from above (PHASE_DOWN set, no ID to route by): bad_phase too, not no_route
        let mut f = frame_of("I3");
        f[14 + 8] |= FLAG_PHASE_DOWN;
        assert_eq!(
            decide_frame(&agg(), 2, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
        // at a leaf from above it is delivered by its host label
        let mut f = frame_of("I3");
        f[14 + 8] |= FLAG_PHASE_DOWN;
        assert_eq!(decide_frame(&leaf(), 2, &mut f), Verdict::Port(1));
        // malformed body: reserved flag
        let mut f = frame_of("I1");
        f[14 + 8] |= 0x01;
        assert!(matches!(
            decide_frame(&agg(), 0, &mut f),
            Verdict::Drop(DropReason::Malformed(WireError::Reserved {
                field: "pathid.flags",
                ..
            }))
        ));
        // phase-down frame from below at the leaf
        let mut f = frame_of("I1");
        f[14 + 8] |= FLAG_PHASE_DOWN;
        assert_eq!(
            decide_frame(&leaf(), 0, &mut f),
            Verdict::Drop(DropReason::BadPhase)
        );
        // kind not configured
        let mut s = leaf();
        s.pathid = None;
        let mut f = frame_of("I1");
        assert_eq!(
            decide_frame(&s, 0, &mut f),
            Verdict::Drop(DropReason::KindNotConfigured)
        );
    }

    #[test]
    fn payload_length_within_the_frame_padding_included() {
        // I1 with the payload 1 2 3 4, padded to 60 bytes: 60 - 14 - 24 = 22 bytes follow
        // the header. Payload lengths up to 22 are carried (the rest is padding); 23 and
        // 0xFFFF announce more than the frame holds (docs/wire-format.md §2).
        for (plen, ok) in [
            (0u16, true),
            (4, true),
            (22, true),
            (23, false),
            (0xFFFF, false),
        ] {
            let mut f = frame_of("I1");
            assert_eq!(f.len(), 60);
            f[14 + 4..14 + 6].copy_from_slice(&plen.to_be_bytes());
            let mut g = f.clone();
            let v = decide_frame(&leaf(), 0, &mut f);
            assert_eq!(
                v,
                crate::decide::decide_general(&leaf(), 0, &mut g),
                "{plen}"
            );
            if ok {
                assert_eq!(v, Verdict::Port(2), "payload length {plen}");
            } else {
                assert_eq!(
                    v,
                    Verdict::Drop(DropReason::Malformed(WireError::Truncated {
                        field: "prefix.payload_len",
                        need: 24 + usize::from(plen),
                        have: 46,
                    })),
                    "payload length {plen}"
                );
            }
        }
    }

    #[test]
    fn common_checks_come_in_the_documented_order() {
        // docs/wire-format.md §3: Ethernet, prefix, payload length, ingress port, hop limit,
        // kind, body. Each frame below breaks the named check and every later one; the
        // first names the drop.
        // `until` breaks the checks from the body up to: 1 the body, 2 the hop limit, 3 the
        // ingress port (port 9, which the switch does not have), 4 the payload length,
        // 5 the version; the kind is broken by a switch without path-ID tables.
        let edit = |f: &mut Vec<u8>, until: usize| {
            if until >= 1 {
                f[14 + 8] |= 0x01; // body: reserved path-ID flag
            }
            if until >= 2 {
                f[14 + 2] = 0; // hop limit 0
            }
            if until >= 4 {
                f[14 + 4..14 + 6].copy_from_slice(&0xFFFFu16.to_be_bytes()); // payload
            }
            if until >= 5 {
                f[14] = 0x23; // version 2
            }
        };
        let mut no_kind = leaf();
        no_kind.pathid = None;
        let cases: [(usize, u16, &SwitchTables, DropReason); 6] = [
            (
                1,
                0,
                &leaf(),
                DropReason::Malformed(WireError::Reserved {
                    field: "pathid.flags",
                    value: 1,
                }),
            ),
            (2, 0, &no_kind, DropReason::TtlExpired),
            (3, 9, &no_kind, DropReason::BadIngress),
            (
                4,
                9,
                &no_kind,
                DropReason::Malformed(WireError::Truncated {
                    field: "prefix.payload_len",
                    need: 24 + 0xFFFF,
                    have: 46,
                }),
            ),
            (
                5,
                9,
                &no_kind,
                DropReason::Malformed(WireError::BadVersion(2)),
            ),
            (2, 0, &leaf(), DropReason::TtlExpired),
        ];
        for (until, port, t, want) in cases {
            let mut f = frame_of("I1");
            edit(&mut f, until);
            let mut g = f.clone();
            assert_eq!(
                decide_frame(t, port, &mut f),
                Verdict::Drop(want),
                "{until}"
            );
            assert_eq!(
                crate::decide::decide_general(t, port, &mut g),
                Verdict::Drop(want)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bodies_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24), port in 0u16..6) {
            let t = agg();
            let mut f = frame_of("I1");
            let n = b.len().min(16);
            f[14 + 8..14 + 8 + n].copy_from_slice(&b[..n]);
            let _ = decide_frame(&t, port, &mut f);
            let _ = decide_frame(&leaf(), port, &mut f);
        }
    }
}
