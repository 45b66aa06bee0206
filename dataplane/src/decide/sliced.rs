//! Sliced-flit forwarding decision (\[Znode thesis\] §6.3 and §4.3.1, as read in
//! docs/sliced-flit.md §5 R11–R12; bytes and drops in wire-format.md §4.3).
//!
//! Mode 0 (SLICED), arrival on a down port: read ρ at the cursor. ρ = 1: up group
//! (adaptive). ρ = 0: this is the turn; set PHASE_DOWN, read the side label (a bits,
//! m > 1); if it differs from the SID, set SIDE_TAKEN and go to that Znode's side
//! group. Otherwise, and on arrival from an up or side port, read this level's label
//! (b_i bits) and go down to that child zone. Modes 1–3 carry the destination's
//! physical address and compare digits instead of reading ρ.
//!
//! Fast path: no allocation, bounded work, every index checked; only the cursor and
//! flags bytes of the body are written.
use super::{DropReason, Verdict};
use crate::table::{sliced::SlicedTable, PortRole, SwitchTables};
use crate::wire::sliced::{
    low_mask, shr, BitCursor, Mode, SlicedBody, BODY_LEN, FLAG_PHASE_DOWN, FLAG_SIDE_TAKEN,
    WORD_BITS,
};
use crate::wire::WireError;

/// Port or group verdict for group `g`: a single port is a deterministic `Port`.
#[inline]
fn out(sw: &SwitchTables, g: u16) -> Verdict {
    match sw.group(g) {
        [] => Verdict::Drop(DropReason::NoPort),
        [p] => Verdict::Port(*p),
        _ => Verdict::Group(g),
    }
}

#[inline]
fn up(t: &SlicedTable, sw: &SwitchTables) -> Verdict {
    match t.up {
        Some(g) => out(sw, g),
        None => Verdict::Drop(DropReason::UpAtTop),
    }
}

#[inline]
fn down(t: &SlicedTable, sw: &SwitchTables, label: u64) -> Verdict {
    if label >= u64::from(t.z) {
        return Verdict::Drop(DropReason::BadLabel);
    }
    match t.down.get(label as usize) {
        Some(Some(g)) => out(sw, *g),
        _ => Verdict::Drop(DropReason::BadLabel),
    }
}

#[inline]
fn side(t: &SlicedTable, k: u64) -> Option<u16> {
    t.side.get(usize::try_from(k).ok()?).copied().flatten()
}

/// The common case of [`SlicedBody::check`] in a few instructions: a mode-0 (SLICED)
/// body of 16 bytes without HAS_SRC, defined flags, zero reserved bytes, SliceLen ≤ 64,
/// cursor ≤ SliceLen and no bits set beyond SliceLen. `None` for anything else, which
/// then takes the full check (with its exact error), so the verdicts are the same.
#[inline(always)]
fn fast_valid(b: &mut [u8]) -> Option<&mut [u8; BODY_LEN]> {
    // mode, flags (PHASE_DOWN and SIDE_TAKEN masked out), SliceLen and cursor (not
    // compared), reserved: one big-endian word
    const FIXED_MASK: u64 =
        0xFF << 56 | ((!(FLAG_PHASE_DOWN | FLAG_SIDE_TAKEN)) as u64) << 48 | 0xFFFF_FFFF;
    const FIXED_WORD: u64 = (Mode::Sliced as u64) << 56;
    let b = <&mut [u8; BODY_LEN]>::try_from(b).ok()?;
    let fixed = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let word = u64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
    let (len, cursor) = (b[2], b[3]);
    let beyond = if len >= 64 { 0 } else { u64::MAX >> len };
    let ok =
        fixed & FIXED_MASK == FIXED_WORD && len <= WORD_BITS && cursor <= len && word & beyond == 0;
    ok.then_some(b)
}

/// The whole decision for the commonest frame, in one pass over its bytes: an untagged
/// sliced-flit frame with a valid prefix (flag MEAS at most, header and payload within
/// the frame), hop limit above 0, a 16-byte mode-0 body that [`fast_valid`] would
/// accept, arriving on a receiving port of a switch configured for mode 0. The prefix
/// checks of [`super::fast_offset`] are made here as one masked word compare and a few
/// byte tests; the body is checked by [`fast_valid`]. Writes what [`super::decide_general`] writes (hop
/// limit, cursor, flags) and returns its verdict; `None`, with nothing written, for any
/// other frame, which then takes the general path (`tests/decide_fast_path.rs` checks
/// the two agree).
#[inline(always)]
pub(super) fn decide_frame(sw: &SwitchTables, ingress: u16, frame: &mut [u8]) -> Option<Verdict> {
    use crate::wire::{ETHERTYPE_CANOPY, ETH_HEADER_LEN, FLAG_MEAS, MEAS_LEN, PREFIX_LEN, VERSION};
    const AT: usize = ETH_HEADER_LEN + PREFIX_LEN;
    // EtherType, version and kind, prefix flags (MEAS masked out): one big-endian word
    const PREFIX_WORD: u32 = (ETHERTYPE_CANOPY as u32) << 16
        | ((VERSION << 4 | crate::wire::Kind::Sliced as u8) as u32) << 8;
    const PREFIX_MASK: u32 = !(FLAG_MEAS as u32);
    let frame_len = frame.len();
    let f = <&mut [u8; AT + BODY_LEN]>::try_from(frame.get_mut(..AT + BODY_LEN)?).ok()?;
    let prefix = u32::from_be_bytes([f[12], f[13], f[14], f[15]]);
    let (ttl, hdr_len) = (f[16], usize::from(f[17]) * 8);
    let payload = usize::from(u16::from_be_bytes([f[18], f[19]]));
    let hl = PREFIX_LEN + BODY_LEN + if f[15] & FLAG_MEAS != 0 { MEAS_LEN } else { 0 };
    let (head, body) = f.split_at_mut(AT);
    let b = fast_valid(body)?;
    let t = sw.sliced.as_ref()?;
    let port = sw.ports.get(usize::from(ingress))?;
    if prefix & PREFIX_MASK != PREFIX_WORD
        || ttl == 0
        || hdr_len != hl
        || frame_len - ETH_HEADER_LEN < hl + payload
        || port.dir == crate::table::PortDir::Out
        || t.mode != Mode::Sliced
    {
        return None;
    }
    head[ETH_HEADER_LEN + 2] = ttl - 1;
    Some(valid_hop(t, sw, port.role, b))
}

/// One hop of a mode-0 body that [`fast_valid`] accepted: read as a fixed-size array,
/// the cursor and flags written back.
#[inline(always)]
fn valid_hop(
    t: &SlicedTable,
    sw: &SwitchTables,
    role: PortRole,
    b: &mut [u8; BODY_LEN],
) -> Verdict {
    let mut flags = b[1];
    let mut cur = BitCursor {
        word: u64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
        len: b[2],
        pos: b[3],
    };
    let r = sliced_hop(t, sw, role, &mut flags, &mut cur);
    b[3] = cur.pos;
    b[1] = flags;
    r
}

/// Decide for a sliced frame; `body` is the kind-specific body of the Canopy header.
#[inline]
pub fn decide(t: &SlicedTable, sw: &SwitchTables, ingress: u16, body: &mut [u8]) -> Verdict {
    let role = match sw.ports.get(usize::from(ingress)) {
        Some(p) => p.role,
        None => return Verdict::Drop(DropReason::BadIngress),
    };
    // fast path: a valid mode-0 body, read and written as a fixed-size array (the same
    // steps as below for mode 0: mode check, hop, cursor and flags written back)
    let body = match fast_valid(body) {
        Some(b) => {
            if t.mode != Mode::Sliced {
                return Verdict::Drop(DropReason::ModeMismatch);
            }
            return valid_hop(t, sw, role, b);
        }
        None => body,
    };
    checked(t, sw, role, body)
}

/// [`decide`] without the fast path: the body validated by [`SlicedBody::new_checked`]
/// whatever it is (the reference the fast path is tested against).
pub fn decide_checked(
    t: &SlicedTable,
    sw: &SwitchTables,
    ingress: u16,
    body: &mut [u8],
) -> Verdict {
    match sw.ports.get(usize::from(ingress)) {
        Some(p) => checked(t, sw, p.role, body),
        None => Verdict::Drop(DropReason::BadIngress),
    }
}

/// [`decide`] for every body the fast path does not take: validated by
/// [`SlicedBody::new_checked`] (drops with its exact error), any mode.
#[inline(never)]
fn checked(t: &SlicedTable, sw: &SwitchTables, role: PortRole, body: &mut [u8]) -> Verdict {
    let mut v = match SlicedBody::new_checked(body) {
        Ok(v) => v,
        Err(e) => return Verdict::Drop(e.into()),
    };
    let mode = v.mode();
    if mode != t.mode {
        return Verdict::Drop(DropReason::ModeMismatch);
    }
    let mut flags = v.flags();
    let verdict = if mode == Mode::Sliced {
        let mut cur = v.bit_cursor();
        let r = sliced_hop(t, sw, role, &mut flags, &mut cur);
        v.set_cursor(cur.pos);
        r
    } else {
        addr_hop(t, sw, role, &mut flags, mode, &v)
    };
    v.set_flags(flags);
    verdict
}

/// Phase rule for arrivals from above: an up or side arrival must have turned, and a
/// side arrival must have crossed a side link.
#[inline]
fn check_down_phase(role: PortRole, flags: u8) -> Result<(), Verdict> {
    if flags & FLAG_PHASE_DOWN == 0 || (role == PortRole::Side && flags & FLAG_SIDE_TAKEN == 0) {
        return Err(Verdict::Drop(DropReason::BadPhase));
    }
    Ok(())
}

#[inline(always)]
fn sliced_hop(
    t: &SlicedTable,
    sw: &SwitchTables,
    role: PortRole,
    flags: &mut u8,
    cur: &mut BitCursor,
) -> Verdict {
    const EXHAUSTED: Verdict = Verdict::Drop(DropReason::SliceExhausted);
    if role == PortRole::Down {
        if *flags & FLAG_PHASE_DOWN != 0 {
            return Verdict::Drop(DropReason::BadPhase);
        }
        let Some(rho) = cur.take(1) else {
            return EXHAUSTED;
        };
        if rho == 1 {
            return up(t, sw);
        }
        *flags |= FLAG_PHASE_DOWN;
        if t.m > 1 {
            let Some(k) = cur.take(t.a) else {
                return EXHAUSTED;
            };
            if k >= u64::from(t.m) {
                return Verdict::Drop(DropReason::BadSideLabel);
            }
            if k != u64::from(t.sid) {
                return match side(t, k) {
                    Some(g) => {
                        *flags |= FLAG_SIDE_TAKEN;
                        out(sw, g)
                    }
                    None => Verdict::Drop(DropReason::BadSideLabel),
                };
            }
        }
    } else if let Err(v) = check_down_phase(role, *flags) {
        return v;
    }
    let Some(c) = cur.take(t.b) else {
        return EXHAUSTED;
    };
    if t.level <= 1 && cur.remaining() != 0 {
        return Verdict::Drop(DropReason::SliceLeftover);
    }
    down(t, sw, c)
}

fn addr_hop(
    t: &SlicedTable,
    sw: &SwitchTables,
    role: PortRole,
    flags: &mut u8,
    mode: Mode,
    v: &SlicedBody<&mut [u8]>,
) -> Verdict {
    let w = v.slice_len();
    if w != t.addr_bits {
        return Verdict::Drop(DropReason::Malformed(WireError::BadValue {
            field: "sliced.slice_len",
            value: u64::from(w),
            why: "address width differs from this fabric's a + Σb",
        }));
    }
    let dst = v.word();
    let digit = shr(dst, u32::from(t.label_shift)) & low_mask(u32::from(t.b));
    if role == PortRole::Down {
        if *flags & FLAG_PHASE_DOWN != 0 {
            return Verdict::Drop(DropReason::BadPhase);
        }
        let above = |x: u64| {
            shr(x, u32::from(t.zone_shift))
                & low_mask(u32::from(t.znode_shift.saturating_sub(t.zone_shift)))
        };
        let turn = match mode {
            Mode::Flat | Mode::Sliced => t.up.is_none(),
            Mode::SrcDst => match v.src() {
                Some(s) => above(s) == above(dst),
                None => return Verdict::Drop(DropReason::ModeMismatch),
            },
            Mode::Dst => above(dst) == t.zone,
        };
        if !turn {
            return up(t, sw);
        }
        let k = shr(dst, u32::from(t.znode_shift));
        if t.m > 1 && k != u64::from(t.sid) {
            if k >= u64::from(t.m) {
                return Verdict::Drop(DropReason::BadSideLabel);
            }
            if let Some(g) = side(t, k) {
                *flags |= FLAG_PHASE_DOWN | FLAG_SIDE_TAKEN;
                return out(sw, g);
            }
            // No side link to Znode k at this level: climb to a level that has one.
            return match t.up {
                Some(g) => out(sw, g),
                None => Verdict::Drop(DropReason::BadSideLabel),
            };
        }
        *flags |= FLAG_PHASE_DOWN;
    } else if let Err(v) = check_down_phase(role, *flags) {
        return v;
    }
    down(t, sw, digit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{PortConfig, PortDir};
    use crate::wire::{canopy_offset, doc_vector, ethernet_frame, Header};

    const D: PortRole = PortRole::Down;
    const U: PortRole = PortRole::Up;
    const S: PortRole = PortRole::Side;

    /// A switch of the thesis Snode z=(3,2,3), m=2 (b = 2,1,2, a = 1), with the given
    /// (role, label) ports.
    struct Fx {
        sw: SwitchTables,
    }

    fn fixture(mode: Mode, level: u8, sid: u32, zone: u64, roles: &[(PortRole, u32)]) -> Fx {
        let z = [3u32, 2, 3];
        let b = [2u8, 1, 2];
        let ports = roles
            .iter()
            .map(|&(role, _)| PortConfig {
                role,
                dir: PortDir::Duplex,
            })
            .collect();
        let mut sw = SwitchTables::new(format!("l{level}"), ports);
        let zi = z[usize::from(level) - 1];
        let mut down = vec![None; zi as usize];
        let mut side = vec![None; 2];
        for c in 0..zi {
            let ps: Vec<u16> = roles
                .iter()
                .enumerate()
                .filter(|(_, r)| r.0 == D && r.1 == c)
                .map(|(i, _)| i as u16)
                .collect();
            if !ps.is_empty() {
                down[c as usize] = Some(sw.intern_group(ps));
            }
        }
        for k in 0..2u32 {
            let ps: Vec<u16> = roles
                .iter()
                .enumerate()
                .filter(|(_, r)| r.0 == S && r.1 == k)
                .map(|(i, _)| i as u16)
                .collect();
            if !ps.is_empty() {
                side[k as usize] = Some(sw.intern_group(ps));
            }
        }
        let ups: Vec<u16> = roles
            .iter()
            .enumerate()
            .filter(|(_, r)| r.0 == U)
            .map(|(i, _)| i as u16)
            .collect();
        let upg = (!ups.is_empty()).then(|| sw.intern_group(ups));
        let l = usize::from(level);
        sw.sliced = Some(SlicedTable {
            mode,
            level,
            levels: 3,
            sid,
            m: 2,
            a: 1,
            b: b[l - 1],
            z: zi,
            label_shift: b[..l - 1].iter().sum(),
            zone_shift: b[..l].iter().sum(),
            znode_shift: 5,
            addr_bits: 6,
            zone,
            up: upg,
            down,
            side,
        });
        Fx { sw }
    }

    // Table 6.1 Snode switches on the 5 -> 26 path (docs/sliced-flit.md §2 trace).
    fn l1(mode: Mode, sid: u32, zone: u64) -> Fx {
        // 3 processors, 3 up ports (R_2 = 3), side to the other Znode
        fixture(
            mode,
            1,
            sid,
            zone,
            &[(D, 0), (D, 1), (D, 2), (U, 0), (U, 0), (U, 0), (S, 1 - sid)],
        )
    }
    fn l2(mode: Mode, sid: u32, zone: u64) -> Fx {
        // child zones 0 and 1, two up ports, side to the other Znode
        fixture(
            mode,
            2,
            sid,
            zone,
            &[(D, 0), (D, 1), (U, 0), (U, 0), (S, 1 - sid)],
        )
    }
    fn l3(mode: Mode, sid: u32) -> Fx {
        fixture(mode, 3, sid, 0, &[(D, 0), (D, 1), (D, 2), (S, 1 - sid)])
    }

    fn frame(id: &str) -> Vec<u8> {
        ethernet_frame(
            [2; 6],
            [4; 6],
            &doc_vector(id).unwrap().bytes,
            &[0xDE, 0xAD, 0xBE, 0xEF],
        )
    }

    fn canopy(f: &[u8]) -> Vec<u8> {
        let o = canopy_offset(f).unwrap();
        let h = Header::new_checked(&f[o..]).unwrap();
        f[o..o + h.header_len()].to_vec()
    }

    fn run(fx: &Fx, ingress: u16, f: &mut [u8]) -> Verdict {
        crate::decide::decide(&fx.sw, ingress, f)
    }

    #[test]
    fn thesis_walk_5_to_26_matches_doc_states() {
        // wire-format.md §4.6: hop k leaves the header in state S1.k.
        let mut f = frame("S1");
        // 1: Znode 0, level 1, zone (p2=1,p3=0) = 1; from processor port 2; rho=1 -> up
        let a = l1(Mode::Sliced, 0, 1);
        let v = run(&a, 2, &mut f);
        assert_eq!(v, Verdict::Group(a.sw.sliced.as_ref().unwrap().up.unwrap()));
        assert_eq!(canopy(&f), doc_vector("S1.1").unwrap().bytes);
        // 2: Znode 0, level 2, zone 0; arrives on down port 1 (child zone 1); rho=1 -> up
        let b = l2(Mode::Sliced, 0, 0);
        assert!(matches!(run(&b, 1, &mut f), Verdict::Group(_)));
        assert_eq!(canopy(&f), doc_vector("S1.2").unwrap().bytes);
        // 3: Znode 0, top: rho=0, side label 1 != SID 0 -> side port 3
        let c = l3(Mode::Sliced, 0);
        assert_eq!(run(&c, 0, &mut f), Verdict::Port(3));
        assert_eq!(canopy(&f), doc_vector("S1.3").unwrap().bytes);
        // 4: Znode 1, top, arrives on its side port 3: p3 = 1 -> down port 1
        let d = l3(Mode::Sliced, 1);
        assert_eq!(run(&d, 3, &mut f), Verdict::Port(1));
        assert_eq!(canopy(&f), doc_vector("S1.4").unwrap().bytes);
        // 5: Znode 1, level 2, zone 1, from up port 2: p2 = 0 -> down port 0
        let e = l2(Mode::Sliced, 1, 1);
        assert_eq!(run(&e, 2, &mut f), Verdict::Port(0));
        assert_eq!(canopy(&f), doc_vector("S1.5").unwrap().bytes);
        // 6: Znode 1, level 1, from up port 4: p1 = 2 -> processor port 2
        let g = l1(Mode::Sliced, 1, 1);
        assert_eq!(run(&g, 4, &mut f), Verdict::Port(2));
        assert_eq!(canopy(&f), doc_vector("S1.6").unwrap().bytes);
        // TTL went 6 -> 0; a seventh switch would drop it
        assert_eq!(run(&g, 4, &mut f), Verdict::Drop(DropReason::TtlExpired));
    }

    /// The same walk with a hop record area (H1 = S1 with HOPS): the same verdicts, the
    /// body moves the same way at its new offset, and the decision leaves the area alone
    /// (the engine writes the records).
    #[test]
    fn a_hop_record_area_changes_no_decision() {
        use crate::wire::hops::{DESC_LEN, RECORD_LEN};
        let mut f = frame("H1");
        let area = |f: &[u8]| {
            let c = canopy(f);
            let n = c.len();
            (c[8..16].to_vec(), c[n - 2 * RECORD_LEN..].to_vec())
        };
        let before = area(&f);
        let walk = [
            (l1(Mode::Sliced, 0, 1), 2, "S1.1"),
            (l2(Mode::Sliced, 0, 0), 1, "S1.2"),
            (l3(Mode::Sliced, 0), 0, "S1.3"),
            (l3(Mode::Sliced, 1), 3, "S1.4"),
            (l2(Mode::Sliced, 1, 1), 2, "S1.5"),
            (l1(Mode::Sliced, 1, 1), 4, "S1.6"),
        ];
        let mut plain = frame("S1");
        for (fx, port, state) in &walk {
            let v = run(fx, *port, &mut f);
            assert_eq!(v, run(fx, *port, &mut plain), "{state}");
            assert!(!matches!(v, Verdict::Drop(_)), "{state}: {v:?}");
            let c = canopy(&f);
            let s = doc_vector(state).unwrap().bytes;
            assert_eq!(c[2], s[2], "{state}: hop limit");
            assert_eq!(
                c[8 + DESC_LEN..8 + DESC_LEN + 16],
                s[8..24],
                "{state}: body"
            );
            assert_eq!(area(&f), before, "{state}: the area is untouched");
        }
    }

    #[test]
    fn turn_in_own_znode_goes_down() {
        // S2: 0 -> 4 (common level 2, `10 0 1 01`): level 1 up, level 2 turns: side
        // label 0 = SID -> down label p2 = 1.
        let mut f = frame("S2");
        let a = l1(Mode::Sliced, 0, 0);
        assert!(matches!(run(&a, 0, &mut f), Verdict::Group(_)));
        let b = l2(Mode::Sliced, 0, 0);
        assert_eq!(run(&b, 0, &mut f), Verdict::Port(1));
        let h = canopy(&f);
        assert_eq!((h[9], h[11]), (0x80, 4)); // PHASE_DOWN, cursor after 1+1+1+1
        let c = l1(Mode::Sliced, 0, 1);
        assert_eq!(run(&c, 3, &mut f), Verdict::Port(1)); // p1 = 1
    }

    #[test]
    fn peer_level_one_side_hop_at_level_one() {
        // S3: 8 -> 26 (`0 1 10`): level 1 of Znode 0 turns and takes the side link.
        let mut f = frame("S3");
        let a = l1(Mode::Sliced, 0, 1);
        assert_eq!(run(&a, 2, &mut f), Verdict::Port(6));
        let b = l1(Mode::Sliced, 1, 1);
        assert_eq!(run(&b, 6, &mut f), Verdict::Port(2));
    }

    #[test]
    fn every_drop_reason() {
        let top = l3(Mode::Sliced, 0);
        let leaf = l1(Mode::Sliced, 0, 1);
        let mid = l2(Mode::Sliced, 0, 0);
        let set = |id: &str, at: usize, val: u8| {
            let mut f = frame(id);
            f[14 + 8 + at] = val;
            f
        };
        let drop = |fx: &Fx, ing: u16, mut f: Vec<u8>| run(fx, ing, &mut f);
        // up_at_top: rho = 1 at level 3 (S1 arriving from below at the top)
        assert_eq!(
            drop(&top, 0, frame("S1")),
            Verdict::Drop(DropReason::UpAtTop)
        );
        // bad_phase: PHASE_DOWN set, arriving on a down port
        assert_eq!(
            drop(&leaf, 0, set("S1", 1, 0x80)),
            Verdict::Drop(DropReason::BadPhase)
        );
        // bad_phase: not turned, arriving on an up port
        assert_eq!(
            drop(&leaf, 3, frame("S1")),
            Verdict::Drop(DropReason::BadPhase)
        );
        // bad_phase: side arrival without SIDE_TAKEN
        assert_eq!(
            drop(&top, 3, frame("S1.2")),
            Verdict::Drop(DropReason::BadPhase)
        );
        // slice_exhausted: cursor at the end, arriving from below
        assert_eq!(
            drop(&leaf, 0, set("S1", 3, 9)),
            Verdict::Drop(DropReason::SliceExhausted)
        );
        // slice_exhausted: label needs 2 bits, 1 left
        assert_eq!(
            drop(&leaf, 3, set("S1.5", 3, 8)),
            Verdict::Drop(DropReason::SliceExhausted)
        );
        // bad_label: label 3 >= z_1 = 3 (S1.5 with the last two bits 11)
        let mut g = frame("S1.5");
        g[14 + 8 + 8] = 0xD5;
        g[14 + 8 + 9] = 0x80; // bits: 11010101 1 -> p1 = `11` = 3
        assert_eq!(
            drop(&l1(Mode::Sliced, 1, 1), 3, g),
            Verdict::Drop(DropReason::BadLabel)
        );
        // bad_label: label below z but no port for it
        let sparse = fixture(Mode::Sliced, 2, 0, 0, &[(D, 0), (U, 0), (U, 0), (S, 1)]);
        assert_eq!(
            drop(&sparse, 0, set("S2", 3, 1)),
            Verdict::Drop(DropReason::BadLabel)
        );
        // bad_side_label: no side link to Znode 1 at this switch
        let noside = fixture(Mode::Sliced, 3, 0, 0, &[(D, 0), (D, 1), (D, 2)]);
        assert_eq!(
            drop(&noside, 0, frame("S1.2")),
            Verdict::Drop(DropReason::BadSideLabel)
        );
        // mode_mismatch: a DST frame at a SLICED switch
        assert_eq!(
            drop(&mid, 0, frame("S5")),
            Verdict::Drop(DropReason::ModeMismatch)
        );
        // slice_leftover: a level-1 switch reached from above in state S1.4 (3 bits
        // left, the label takes 2)
        assert_eq!(
            drop(&leaf, 3, frame("S1.4")),
            Verdict::Drop(DropReason::SliceLeftover)
        );
        // bad_ingress_port: port 9 does not exist
        assert_eq!(
            drop(&leaf, 9, frame("S1")),
            Verdict::Drop(DropReason::BadIngress)
        );
        // malformed body: reserved flag bit
        assert!(matches!(
            drop(&leaf, 0, set("S1", 1, 0x01)),
            Verdict::Drop(DropReason::Malformed(WireError::Reserved {
                field: "sliced.flags",
                ..
            }))
        ));
        // no_port: the up group emptied
        let mut empty = l1(Mode::Sliced, 0, 1);
        let g = empty.sw.sliced.as_ref().unwrap().up.unwrap();
        empty.sw.groups[usize::from(g)].clear();
        assert_eq!(
            drop(&empty, 0, frame("S1")),
            Verdict::Drop(DropReason::NoPort)
        );
        // kind_not_configured: no sliced table
        let mut none = l1(Mode::Sliced, 0, 1);
        none.sw.sliced = None;
        assert_eq!(
            drop(&none, 0, frame("S1")),
            Verdict::Drop(DropReason::KindNotConfigured)
        );
    }

    #[test]
    fn bad_side_label_beyond_m() {
        // A 3-Znode table receiving side label 3 (a = 2): k >= m.
        let mut fx = l3(Mode::Sliced, 0);
        let t = fx.sw.sliced.as_mut().unwrap();
        t.m = 3;
        t.a = 2;
        t.side = vec![None, Some(t.side[1].unwrap()), None];
        // SLICE `0 11 01 ...` : rho 0, side 3
        let mut f = frame("S1.2");
        let o = 14 + 8;
        f[o + 3] = 0;
        f[o + 2] = 5;
        f[o + 8] = 0b0110_1000;
        assert_eq!(run(&fx, 0, &mut f), Verdict::Drop(DropReason::BadSideLabel));
    }

    #[test]
    fn dst_mode_walk() {
        // S5: DST 42 = (1;1,0,2) from X=5 in zone (p2=1,p3=0). Zone addresses in the
        // packed eq 6.3 layout: level-1 zone (p2, p3) = p2 | p3 << 1.
        let mut f = frame("S5");
        let a = l1(Mode::Dst, 0, 0b001); // p2=1, p3=0
        assert!(matches!(run(&a, 2, &mut f), Verdict::Group(_))); // 42's p2,p3 = 0,1
        let b = l2(Mode::Dst, 0, 0); // p3 = 0 != 1 -> up
        assert!(matches!(run(&b, 1, &mut f), Verdict::Group(_)));
        let c = l3(Mode::Dst, 0); // top: znode 1 != 0 -> side
        assert_eq!(run(&c, 0, &mut f), Verdict::Port(3));
        let d = l3(Mode::Dst, 1);
        assert_eq!(run(&d, 3, &mut f), Verdict::Port(1)); // digit_3 = 1
        let e = l2(Mode::Dst, 1, 1);
        assert_eq!(run(&e, 2, &mut f), Verdict::Port(0)); // digit_2 = 0
        let g = l1(Mode::Dst, 1, 0b010);
        assert_eq!(run(&g, 3, &mut f), Verdict::Port(2)); // digit_1 = 2
        let h = canopy(&f);
        assert_eq!(h[2], 0); // hop limit used up
        assert_eq!(h[9], 0xC0); // PHASE_DOWN | SIDE_TAKEN
                                // DST turn test at level 2 in the own zone: zone matches -> down
        let mut f = frame("S5");
        let own = l2(Mode::Dst, 1, 1);
        assert_eq!(run(&own, 0, &mut f), Verdict::Port(0));
    }

    #[test]
    fn srcdst_and_flat_walks() {
        // S6: SRCDST 5 -> 26: level 1 compares (p2,p3) of src (1,0) and dst (0,1): up;
        // level 2 compares p3: 0 vs 1: up; top: side; then down by digits.
        let mut f = frame("S6");
        for (fx, ing) in [(l1(Mode::SrcDst, 0, 0), 2u16), (l2(Mode::SrcDst, 0, 0), 1)] {
            assert!(matches!(run(&fx, ing, &mut f), Verdict::Group(_)));
        }
        assert_eq!(run(&l3(Mode::SrcDst, 0), 0, &mut f), Verdict::Port(3));
        assert_eq!(run(&l3(Mode::SrcDst, 1), 3, &mut f), Verdict::Port(1));
        assert_eq!(run(&l2(Mode::SrcDst, 1, 1), 2, &mut f), Verdict::Port(0));
        assert_eq!(run(&l1(Mode::SrcDst, 1, 2), 3, &mut f), Verdict::Port(2));
        // SRCDST where src and dst share (p2,p3): turn at level 1, same Znode
        let mut f = frame("S6");
        let o = 14 + 8 + 8;
        f[o..o + 8].copy_from_slice(&0b000101u64.to_be_bytes()); // dst p1=1, p2=1, p3=0, k=0
        assert_eq!(run(&l1(Mode::SrcDst, 0, 1), 2, &mut f), Verdict::Port(1));
        // FLAT: always up while there is an up port, even when the zone matches
        let mut f = frame("S7");
        assert!(matches!(
            run(&l1(Mode::Flat, 0, 1), 2, &mut f),
            Verdict::Group(_)
        ));
        assert!(matches!(
            run(&l2(Mode::Flat, 0, 0), 1, &mut f),
            Verdict::Group(_)
        ));
        assert_eq!(run(&l3(Mode::Flat, 0), 0, &mut f), Verdict::Port(3));
        // width mismatch is malformed
        let mut f = frame("S7");
        f[14 + 8 + 2] = 7;
        assert!(matches!(
            run(&l1(Mode::Flat, 0, 1), 2, &mut f),
            Verdict::Drop(DropReason::Malformed(WireError::BadValue {
                field: "sliced.slice_len",
                ..
            }))
        ));
    }

    #[test]
    fn addr_modes_climb_when_no_side_link_here() {
        // DST frame to Znode 1 whose digits above level 1 match: a level-1 switch
        // without side links sends it up instead of dropping it.
        let fx = fixture(
            Mode::Dst,
            1,
            0,
            0b01,
            &[(D, 0), (D, 1), (D, 2), (U, 0), (U, 0)],
        );
        let mut f = frame("S5");
        let o = 14 + 8 + 8;
        f[o..o + 8].copy_from_slice(&0b100110u64.to_be_bytes()); // (1;0,1,2)
        assert!(matches!(run(&fx, 0, &mut f), Verdict::Group(_)));
        let h = canopy(&f);
        assert_eq!(h[9], 0); // not turned
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bodies_never_panic(
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..32),
            ing in 0u16..10,
            lvl in 1u8..4,
            mode in 0u8..4,
        ) {
            let mode = Mode::from_code(mode).unwrap();
            let fx = match lvl { 1 => l1(mode, 0, 1), 2 => l2(mode, 0, 0), _ => l3(mode, 0) };
            let mut body = b.clone();
            let t = fx.sw.sliced.as_ref().unwrap();
            let v = decide(t, &fx.sw, ing, &mut body);
            if let Verdict::Port(p) = v { proptest::prop_assert!(usize::from(p) < fx.sw.ports.len()); }
            proptest::prop_assert_eq!(body.len(), b.len());
        }

        #[test]
        fn near_valid_bodies_only_touch_cursor_and_flags(
            mode in 0u8..5,
            flags in proptest::prelude::any::<u8>(),
            len in 0u8..70,
            cursor in 0u8..70,
            word in proptest::prelude::any::<u64>(),
            src in proptest::option::of(proptest::prelude::any::<u64>()),
            shift_word in proptest::prelude::any::<bool>(),
            ing in 0u16..8,
            lvl in 1u8..4,
            sid in 0u32..2,
            tmode in 0u8..4,
        ) {
            // Structured bodies: most pass the wire checks, so the decision logic runs.
            let flags = flags & 0xE0 | if src.is_some() { 0x20 } else { 0 };
            let word = if shift_word && len < 64 { word & (u64::MAX << (64 - u32::from(len.max(1)))) } else { word & low_mask(u32::from(len)) };
            let mut b = vec![mode, flags, len, cursor, 0, 0, 0, 0];
            b.extend_from_slice(&word.to_be_bytes());
            if let Some(x) = src { b.extend_from_slice(&(x & low_mask(u32::from(len))).to_be_bytes()); }
            let tm = Mode::from_code(tmode).unwrap();
            let fx = match lvl { 1 => l1(tm, sid, 1), 2 => l2(tm, sid, 0), _ => l3(tm, sid) };
            let t = fx.sw.sliced.as_ref().unwrap();
            let mut body = b.clone();
            let v = decide(t, &fx.sw, ing, &mut body);
            match v {
                Verdict::Port(p) => proptest::prop_assert!(usize::from(p) < fx.sw.ports.len()),
                Verdict::Group(g) => proptest::prop_assert!(fx.sw.group(g).len() > 1),
                Verdict::Drop(_) => {}
            }
            for (i, (x, y)) in b.iter().zip(&body).enumerate() {
                if i != 1 && i != 3 {
                    proptest::prop_assert_eq!(x, y, "byte {} changed", i);
                }
            }
            if !matches!(v, Verdict::Drop(_)) {
                // a forwarded frame still parses, and its cursor never moved backwards
                let after = SlicedBody::new_checked(&body[..]).unwrap();
                proptest::prop_assert!(after.cursor() >= cursor);
            }
        }
    }
}
