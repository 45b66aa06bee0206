//! Sliced-flit body (kind 1): the Znode/Snode thesis's sliced flit and its three
//! comparison modes (FLAT, SRCDST, DST), `docs/wire-format.md` §4.
//!
//! ```text
//!  0       1       2        3       4               8                      16             24
//! +-------+-------+--------+-------+---------------+----------------------+--------------+
//! | Mode  | Flags |SliceLen| Cursor| reserved (0)  | SLICE / DST (64 bit) | SRC (64 bit) |
//! +-------+-------+--------+-------+---------------+----------------------+--------------+
//!                                                                          iff HAS_SRC
//! ```
//!
//! * Mode 0 (SLICED): SLICE holds the sliced flit left-aligned (bit 63 = first bit);
//!   `SliceLen` bits are valid, the rest must be zero. `Cursor` counts the bits already
//!   consumed: a switch reads the next `w` bits at the cursor and advances the cursor.
//!   The SLICE word itself is never modified, so the receiver sees the whole original
//!   route (the return path survives) and a capture shows each hop's state in one byte.
//! * Modes 1–3: the word is the destination's physical address (eq 6.3), right-aligned,
//!   never consumed; `SliceLen` is the address width W = a + Σ b_i, `Cursor` is 0.
//!   SRC (the source's physical address) is present iff HAS_SRC; SRCDST requires it.

use super::{be64, need, Result, WireError};
use serde::{Deserialize, Serialize};

/// Body length without the source address.
pub const BODY_LEN: usize = 16;
/// Body length with the source address (HAS_SRC).
pub const BODY_LEN_SRC: usize = 24;
/// Flag: the frame has turned downward (set by the turning switch).
pub const FLAG_PHASE_DOWN: u8 = 0x80;
/// Flag: the frame crossed a side link between Znodes.
pub const FLAG_SIDE_TAKEN: u8 = 0x40;
/// Flag: the body carries the source's physical address (bytes 16–23).
pub const FLAG_HAS_SRC: u8 = 0x20;
/// Flag bits defined in this version; the others must be zero.
pub const FLAGS_DEFINED: u8 = FLAG_PHASE_DOWN | FLAG_SIDE_TAKEN | FLAG_HAS_SRC;
/// Capacity of the SLICE / address word in bits.
pub const WORD_BITS: u8 = 64;

/// Addressing mode (the \[Znode thesis\] simulator's `ADDRESSING_MODE` codes, Appendix D).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// 0: sliced flits (ρ bits, side label, down labels), consumed by a bit cursor.
    #[default]
    Sliced = 0,
    /// 1: flat (destination tag): always climb to the top, then down by digit.
    Flat = 1,
    /// 2: SRCDST (XGFT style): climb until the source and destination digits above
    /// the level agree.
    SrcDst = 2,
    /// 3: DST (k-ary n-tree style): climb until the destination digits above the
    /// level equal the switch's own zone address.
    Dst = 3,
}

impl Mode {
    /// All modes in code order.
    pub const ALL: [Mode; 4] = [Mode::Sliced, Mode::Flat, Mode::SrcDst, Mode::Dst];

    /// Decode the mode byte.
    pub fn from_code(code: u8) -> Result<Mode> {
        match code {
            0 => Ok(Mode::Sliced),
            1 => Ok(Mode::Flat),
            2 => Ok(Mode::SrcDst),
            3 => Ok(Mode::Dst),
            other => Err(WireError::BadValue {
                field: "sliced.mode",
                value: u64::from(other),
                why: "mode must be 0 (SLICED), 1 (FLAT), 2 (SRCDST) or 3 (DST)",
            }),
        }
    }

    /// Stable lower-case name (`--mode`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sliced => "sliced",
            Mode::Flat => "flat",
            Mode::SrcDst => "srcdst",
            Mode::Dst => "dst",
        }
    }

    /// Parse a command-line name.
    pub fn from_name(s: &str) -> Option<Mode> {
        match s.to_ascii_lowercase().as_str() {
            "sliced" | "0" => Some(Mode::Sliced),
            "flat" | "1" => Some(Mode::Flat),
            "srcdst" | "src-dst" | "2" => Some(Mode::SrcDst),
            "dst" | "3" => Some(Mode::Dst),
            _ => None,
        }
    }
}

impl core::fmt::Display for Mode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

mod field {
    pub const MODE: usize = 0;
    pub const FLAGS: usize = 1;
    pub const LEN: usize = 2;
    pub const CURSOR: usize = 3;
    pub const RESERVED: core::ops::Range<usize> = 4..8;
    pub const WORD: usize = 8;
    pub const SRC: usize = 16;
}

/// Mask of the low `w` bits (`w` ≥ 64 gives all ones).
#[inline]
pub const fn low_mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `x >> s`, 0 when `s` ≥ 64.
#[inline]
pub const fn shr(x: u64, s: u32) -> u64 {
    if s >= 64 {
        0
    } else {
        x >> s
    }
}

/// Mask of the bits of a left-aligned word beyond its first `len` bits.
#[inline]
const fn beyond_left(len: u8) -> u64 {
    if len >= 64 {
        0
    } else {
        u64::MAX >> len
    }
}

/// A read cursor over the left-aligned SLICE word: the fast-path helper of the
/// decision. `take(w)` returns the next `w` bits and advances; `None` when fewer than
/// `w` valid bits remain (the frame is dropped with `slice_exhausted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitCursor {
    /// The SLICE word (left-aligned).
    pub word: u64,
    /// Number of valid bits.
    pub len: u8,
    /// Bits consumed so far.
    pub pos: u8,
}

impl BitCursor {
    /// Read `w` bits (0..=64) at the cursor and advance.
    #[inline]
    pub fn take(&mut self, w: u8) -> Option<u64> {
        if w == 0 {
            return Some(0);
        }
        let end = u16::from(self.pos) + u16::from(w);
        if end > u16::from(self.len) || self.pos >= 64 {
            return None;
        }
        // pos < 64 and 1 <= w <= 64 here, so both shifts are in range.
        let v = (self.word << self.pos) >> (64 - u32::from(w));
        self.pos = end as u8;
        Some(v)
    }

    /// Bits not yet consumed.
    #[inline]
    pub fn remaining(&self) -> u8 {
        self.len.saturating_sub(self.pos)
    }
}

/// Zero-copy view of a sliced-flit body (the bytes after the common prefix).
#[derive(Debug, Clone, Copy)]
pub struct SlicedBody<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> SlicedBody<T> {
    /// Wrap without checks (accessors may panic on a short buffer).
    pub fn new_unchecked(buf: T) -> Self {
        SlicedBody { buf }
    }

    /// Wrap, validating lengths, mode, reserved bits and the cursor.
    pub fn new_checked(buf: T) -> Result<Self> {
        let v = SlicedBody { buf };
        v.check()?;
        Ok(v)
    }

    /// Validate the body (see the module docs and wire-format.md §4.2).
    pub fn check(&self) -> Result<()> {
        let b = self.buf.as_ref();
        need(b, BODY_LEN, "sliced.body")?;
        let mode = Mode::from_code(b[field::MODE])?;
        let flags = b[field::FLAGS];
        if flags & !FLAGS_DEFINED != 0 {
            return Err(WireError::Reserved {
                field: "sliced.flags",
                value: u64::from(flags & !FLAGS_DEFINED),
            });
        }
        let rsvd = &b[field::RESERVED];
        if rsvd.iter().any(|&x| x != 0) {
            return Err(WireError::Reserved {
                field: "sliced.reserved",
                value: u64::from(u32::from_be_bytes([rsvd[0], rsvd[1], rsvd[2], rsvd[3]])),
            });
        }
        let has_src = flags & FLAG_HAS_SRC != 0;
        let want = if has_src { BODY_LEN_SRC } else { BODY_LEN };
        if has_src {
            need(b, BODY_LEN_SRC, "sliced.src")?;
        }
        if b.len() != want {
            return Err(WireError::BadValue {
                field: "sliced.body",
                value: b.len() as u64,
                why: "body must be 16 bytes, or 24 with HAS_SRC",
            });
        }
        let len = b[field::LEN];
        if len > WORD_BITS {
            return Err(WireError::BadValue {
                field: "sliced.slice_len",
                value: u64::from(len),
                why: "more than 64 bits",
            });
        }
        let cursor = b[field::CURSOR];
        let word = be64(b, field::WORD);
        if mode == Mode::Sliced {
            if cursor > len {
                return Err(WireError::BadValue {
                    field: "sliced.cursor",
                    value: u64::from(cursor),
                    why: "cursor beyond SliceLen",
                });
            }
            if word & beyond_left(len) != 0 {
                return Err(WireError::Reserved {
                    field: "sliced.slice",
                    value: word & beyond_left(len),
                });
            }
        } else {
            if cursor != 0 {
                return Err(WireError::BadValue {
                    field: "sliced.cursor",
                    value: u64::from(cursor),
                    why: "cursor must be 0 in FLAT, SRCDST and DST modes",
                });
            }
            if word & !low_mask(u32::from(len)) != 0 {
                return Err(WireError::Reserved {
                    field: "sliced.dst",
                    value: word & !low_mask(u32::from(len)),
                });
            }
            if mode == Mode::SrcDst && !has_src {
                return Err(WireError::BadValue {
                    field: "sliced.flags",
                    value: u64::from(flags),
                    why: "SRCDST mode needs HAS_SRC",
                });
            }
        }
        if has_src {
            let src = be64(b, field::SRC);
            let w = if mode == Mode::Sliced {
                64
            } else {
                u32::from(len)
            };
            if src & !low_mask(w) != 0 {
                return Err(WireError::Reserved {
                    field: "sliced.src",
                    value: src & !low_mask(w),
                });
            }
        }
        Ok(())
    }

    /// Mode (only call on a checked view; unknown codes read as SLICED).
    pub fn mode(&self) -> Mode {
        Mode::from_code(self.buf.as_ref()[field::MODE]).unwrap_or(Mode::Sliced)
    }

    /// Flags byte.
    pub fn flags(&self) -> u8 {
        self.buf.as_ref()[field::FLAGS]
    }

    /// PHASE_DOWN flag.
    pub fn phase_down(&self) -> bool {
        self.flags() & FLAG_PHASE_DOWN != 0
    }

    /// SIDE_TAKEN flag.
    pub fn side_taken(&self) -> bool {
        self.flags() & FLAG_SIDE_TAKEN != 0
    }

    /// HAS_SRC flag.
    pub fn has_src(&self) -> bool {
        self.flags() & FLAG_HAS_SRC != 0
    }

    /// SliceLen: valid SLICE bits (mode 0) or address width W (modes 1–3).
    pub fn slice_len(&self) -> u8 {
        self.buf.as_ref()[field::LEN]
    }

    /// Bits consumed so far (mode 0).
    pub fn cursor(&self) -> u8 {
        self.buf.as_ref()[field::CURSOR]
    }

    /// The SLICE word (mode 0) or the destination address (modes 1–3).
    pub fn word(&self) -> u64 {
        be64(self.buf.as_ref(), field::WORD)
    }

    /// Source physical address, when HAS_SRC.
    pub fn src(&self) -> Option<u64> {
        let b = self.buf.as_ref();
        (self.has_src() && b.len() >= BODY_LEN_SRC).then(|| be64(b, field::SRC))
    }

    /// A cursor over the SLICE word, positioned at the header's cursor.
    pub fn bit_cursor(&self) -> BitCursor {
        BitCursor {
            word: self.word(),
            len: self.slice_len(),
            pos: self.cursor(),
        }
    }

    /// Give the buffer back.
    pub fn into_inner(self) -> T {
        self.buf
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> SlicedBody<T> {
    /// Set the mode byte.
    pub fn set_mode(&mut self, m: Mode) {
        self.buf.as_mut()[field::MODE] = m as u8;
    }
    /// Set the flags byte.
    pub fn set_flags(&mut self, f: u8) {
        self.buf.as_mut()[field::FLAGS] = f;
    }
    /// Set SliceLen.
    pub fn set_slice_len(&mut self, l: u8) {
        self.buf.as_mut()[field::LEN] = l;
    }
    /// Set the cursor.
    pub fn set_cursor(&mut self, c: u8) {
        self.buf.as_mut()[field::CURSOR] = c;
    }
    /// Zero the reserved bytes.
    pub fn clear_reserved(&mut self) {
        self.buf.as_mut()[field::RESERVED].fill(0);
    }
    /// Set the SLICE / DST word.
    pub fn set_word(&mut self, w: u64) {
        self.buf.as_mut()[field::WORD..field::WORD + 8].copy_from_slice(&w.to_be_bytes());
    }
    /// Set the source address (the buffer must have room: 24 bytes).
    pub fn set_src(&mut self, s: u64) {
        self.buf.as_mut()[field::SRC..field::SRC + 8].copy_from_slice(&s.to_be_bytes());
    }
}

/// High-level representation of a sliced-flit body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlicedRepr {
    /// Addressing mode.
    pub mode: Mode,
    /// PHASE_DOWN.
    pub phase_down: bool,
    /// SIDE_TAKEN.
    pub side_taken: bool,
    /// Mode 0: valid SLICE bits; modes 1–3: address width W.
    pub slice_len: u8,
    /// Mode 0: bits consumed; 0 otherwise.
    pub cursor: u8,
    /// SLICE (left-aligned) or DST (right-aligned).
    pub word: u64,
    /// Source physical address (sets HAS_SRC).
    pub src: Option<u64>,
}

impl SlicedRepr {
    /// Parse a body view (validating it).
    pub fn parse<T: AsRef<[u8]>>(v: &SlicedBody<T>) -> Result<SlicedRepr> {
        v.check()?;
        Ok(SlicedRepr {
            mode: v.mode(),
            phase_down: v.phase_down(),
            side_taken: v.side_taken(),
            slice_len: v.slice_len(),
            cursor: v.cursor(),
            word: v.word(),
            src: v.src(),
        })
    }

    /// Body length: 16, or 24 with a source address.
    pub fn buffer_len(&self) -> usize {
        if self.src.is_some() {
            BODY_LEN_SRC
        } else {
            BODY_LEN
        }
    }

    /// Flags byte of this representation.
    pub fn flags(&self) -> u8 {
        (if self.phase_down { FLAG_PHASE_DOWN } else { 0 })
            | (if self.side_taken { FLAG_SIDE_TAKEN } else { 0 })
            | (if self.src.is_some() { FLAG_HAS_SRC } else { 0 })
    }

    /// Emit into a view of at least [`SlicedRepr::buffer_len`] bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut SlicedBody<T>) {
        v.set_mode(self.mode);
        v.set_flags(self.flags());
        v.set_slice_len(self.slice_len);
        v.set_cursor(self.cursor);
        v.clear_reserved();
        v.set_word(self.word);
        if let Some(s) = self.src {
            v.set_src(s);
        }
    }

    /// Emit into a fresh vector (control plane and tests).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut b = vec![0u8; self.buffer_len()];
        self.emit(&mut SlicedBody::new_unchecked(&mut b[..]));
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{doc_vector, Header, Kind, PrefixRepr};
    use proptest::prelude::*;

    fn body_of(id: &str) -> (Vec<u8>, SlicedRepr) {
        let v = doc_vector(id).unwrap();
        let h = Header::new_checked(&v.bytes[..]).unwrap();
        assert_eq!(h.kind(), Kind::Sliced, "{id}");
        let body = h.body().to_vec();
        let r = SlicedRepr::parse(&SlicedBody::new_checked(&body[..]).unwrap()).unwrap();
        (v.bytes.clone(), r)
    }

    #[test]
    fn s1_thesis_example_bits() {
        // wire-format.md §4.6 S1: 5 -> 26 on z=(3,2,3), m=2: `110101010`,
        // SliceLen 9, SLICE 0xD500000000000000, TTL 2n = 6, payload 4 bytes.
        let (bytes, r) = body_of("S1");
        assert_eq!(r, s1());
        let h = Header::new_checked(&bytes[..]).unwrap();
        assert_eq!(h.hop_limit(), 6);
        assert_eq!(h.payload_len(), 4);
        // emit reproduces the document bytes
        let p = PrefixRepr::parse(&h);
        assert_eq!(p.to_vec(&r.to_vec()).unwrap(), bytes);
        // the cursor reads 1,1,0 | 1 | 01 | 0 | 10
        let mut c = SlicedBody::new_checked(h.body()).unwrap().bit_cursor();
        let got: Vec<u64> = [1u8, 1, 1, 1, 2, 1, 2]
            .iter()
            .map(|&w| c.take(w).unwrap())
            .collect();
        assert_eq!(got, vec![1, 1, 0, 1, 1, 0, 2]);
        assert_eq!(c.remaining(), 0);
        assert_eq!(c.take(1), None);
    }

    #[test]
    fn s1_hop_states_keep_slice_intact() {
        // A stripping switch would leave 8,7,5,3,2,0 bits after the six switches
        // (wire-format.md §4.6); with the explicit cursor that is cursor = 9 - remaining,
        // SLICE unchanged.
        let (_, r0) = body_of("S1");
        let remaining = [8u8, 7, 5, 3, 2, 0];
        let flags = [0x00u8, 0x00, 0xC0, 0xC0, 0xC0, 0xC0];
        for (i, (rem, fl)) in remaining.iter().zip(flags).enumerate() {
            let (_, r) = body_of(&format!("S1.{}", i + 1));
            assert_eq!(r.word, r0.word, "hop {}", i + 1);
            assert_eq!(r.slice_len, 9);
            assert_eq!(r.cursor, 9 - rem, "hop {}", i + 1);
            assert_eq!(r.flags(), fl, "hop {}", i + 1);
        }
    }

    #[test]
    fn modes_and_src_vectors() {
        // S5: DST mode 5 -> 26, DST = physical 42 (Table 6.1), W = 6.
        let (_, r) = body_of("S5");
        assert_eq!(
            (r.mode, r.slice_len, r.word, r.src),
            (Mode::Dst, 6, 42, None)
        );
        // S6: SRCDST mode, SRC = physical 6 (X=5), DST = 42.
        let (_, r) = body_of("S6");
        assert_eq!(
            (r.mode, r.slice_len, r.word, r.src),
            (Mode::SrcDst, 6, 42, Some(6))
        );
        // S7: FLAT mode
        let (_, r) = body_of("S7");
        assert_eq!((r.mode, r.word), (Mode::Flat, 42));
    }

    /// The body of vector S1, as its document gives the fields.
    fn s1() -> SlicedRepr {
        SlicedRepr {
            mode: Mode::Sliced,
            phase_down: false,
            side_taken: false,
            slice_len: 9,
            cursor: 0,
            word: 0xD500_0000_0000_0000,
            src: None,
        }
    }

    fn good() -> Vec<u8> {
        s1().to_vec()
    }

    #[test]
    fn errors_name_the_field() {
        let field_of = |b: &[u8]| match SlicedBody::new_checked(b) {
            Err(WireError::BadValue { field, .. })
            | Err(WireError::Reserved { field, .. })
            | Err(WireError::Truncated { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        let g = good();
        assert_eq!(field_of(&g[..15]), "sliced.body");
        // one byte of the good body set to a bad value, and the field it names
        for (at, value, field) in [
            (0, 4, "sliced.mode"),
            (1, 0x01, "sliced.flags"),
            (5, 1, "sliced.reserved"),
            (2, 65, "sliced.slice_len"),
            (3, 10, "sliced.cursor"),
            (9, 0x40, "sliced.slice"), // bit 10 of SLICE, beyond SliceLen 9
            (1, FLAG_HAS_SRC, "sliced.src"),
        ] {
            let mut b = g.clone();
            b[at] = value;
            assert_eq!(field_of(&b), field, "byte {at} = {value:#x}");
        }
        let mut b = g.clone();
        b.extend_from_slice(&[0; 8]);
        assert_eq!(field_of(&b), "sliced.body");
        // SRCDST without HAS_SRC
        let mut b = g.clone();
        b[0] = 2;
        b[2] = 6;
        b[8..16].copy_from_slice(&42u64.to_be_bytes());
        assert_eq!(field_of(&b), "sliced.flags");
        // DST with bits above W
        b[0] = 3;
        b[8..16].copy_from_slice(&64u64.to_be_bytes());
        assert_eq!(field_of(&b), "sliced.dst");
        b[8..16].copy_from_slice(&42u64.to_be_bytes());
        b[3] = 1;
        assert_eq!(field_of(&b), "sliced.cursor");
    }

    #[test]
    fn cursor_edges() {
        let mut c = BitCursor {
            word: u64::MAX,
            len: 64,
            pos: 0,
        };
        assert_eq!(c.take(64), Some(u64::MAX));
        assert_eq!(c.take(0), Some(0));
        assert_eq!(c.take(1), None);
        let mut c = BitCursor {
            word: 0x8000_0000_0000_0001,
            len: 64,
            pos: 63,
        };
        assert_eq!(c.take(1), Some(1));
        let mut c = BitCursor {
            word: 0,
            len: 64,
            pos: 0,
        };
        assert_eq!(c.take(65), None);
        assert_eq!(c.take(200), None);
    }

    fn arb_repr() -> impl Strategy<Value = SlicedRepr> {
        (
            0u8..4,
            any::<bool>(),
            any::<bool>(),
            0u8..=64,
            any::<u64>(),
            any::<u64>(),
            any::<bool>(),
            any::<u8>(),
        )
            .prop_map(|(m, pd, st, len, w, s, has_src, cur)| {
                let mode = Mode::from_code(m).unwrap();
                if mode == Mode::Sliced {
                    let word = w & !beyond_left(len);
                    SlicedRepr {
                        mode,
                        phase_down: pd,
                        side_taken: st,
                        slice_len: len,
                        cursor: if len == 0 { 0 } else { cur % (len + 1) },
                        word,
                        src: has_src.then_some(s),
                    }
                } else {
                    SlicedRepr {
                        mode,
                        phase_down: pd,
                        side_taken: st,
                        slice_len: len,
                        cursor: 0,
                        word: w & low_mask(u32::from(len)),
                        src: (has_src || mode == Mode::SrcDst)
                            .then_some(s & low_mask(u32::from(len))),
                    }
                }
            })
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(v) = SlicedBody::new_checked(&b[..]) {
                let r = SlicedRepr::parse(&v).unwrap();
                let mut c = v.bit_cursor();
                for w in 0..=65u8 { let _ = c.take(w % 13); }
                prop_assert_eq!(r.to_vec(), b.clone());
            }
        }

        #[test]
        fn roundtrip(r in arb_repr()) {
            let b = r.to_vec();
            let v = SlicedBody::new_checked(&b[..]).unwrap();
            prop_assert_eq!(SlicedRepr::parse(&v).unwrap(), r);
        }

        #[test]
        fn cursor_reads_what_was_packed(ws in proptest::collection::vec((1u8..=16, any::<u64>()), 0..8)) {
            let mut word = 0u64; let mut len = 0u32; let mut vals = Vec::new();
            for (w, v) in ws {
                if len + u32::from(w) > 64 { break; }
                let v = v & low_mask(u32::from(w));
                word |= v << (64 - len - u32::from(w));
                len += u32::from(w);
                vals.push((w, v));
            }
            let mut c = BitCursor { word, len: len as u8, pos: 0 };
            for (w, v) in vals { prop_assert_eq!(c.take(w), Some(v)); }
            prop_assert_eq!(c.remaining(), 0);
        }
    }
}
