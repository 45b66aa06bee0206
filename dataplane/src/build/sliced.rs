//! Source-side sliced-flit header builder (and the FLAT / SRCDST / DST headers).
//!
//! Implements the \[Znode thesis\]'s addressing (docs/references.md; reconstructed in
//! docs/sliced-flit.md §5 R8–R10): port labels (eq 6.1), the Znode label (eq 6.2), the
//! physical address (eq 6.3), the common / peer level (Definitions 2 and 3) and the
//! routing bits (eq 4.1), packed as the message of Fig. 6.6: l−1 ones, a zero, the
//! destination Znode id (a bits), then the down labels p_l … p_1.
//!
//! The only topology knowledge a source needs is the [`Geometry`]: z_1..z_n, m, and,
//! in an Snode whose side links do not exist at every level, which levels have them.

use crate::wire::sliced::{Mode, SlicedRepr};
use crate::wire::{Kind, Measurement, PrefixRepr};
use thiserror::Error;

/// Why a header or an address cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    /// The Znode shape is unusable.
    #[error("bad Znode shape: `{param}` {why}")]
    Shape {
        /// Parameter (`z`, `m`, `side_levels`).
        param: &'static str,
        /// Why.
        why: String,
    },
    /// The header does not fit the 64-bit SLICE / address word.
    #[error("header needs {bits} bits (n + a + Σb_i), more than the 64-bit SLICE word")]
    TooWide {
        /// Bits needed.
        bits: u32,
    },
    /// A logical address beyond the number of processors.
    #[error("logical address {x} out of range (there are {hosts} processors)")]
    NoSuchHost {
        /// The address.
        x: u64,
        /// Number of processors m·∏z_i.
        hosts: u64,
    },
    /// A physical address that does not decode to a processor.
    #[error("physical address {phys} is invalid: {why}")]
    BadPhysical {
        /// The address.
        phys: u64,
        /// Which field is out of range.
        why: String,
    },
}

/// Ceiling log2: bits for labels 0..x−1 (0 when x ≤ 1).
pub fn clog2(x: u64) -> u8 {
    if x <= 1 {
        0
    } else {
        (64 - (x - 1).leading_zeros()) as u8
    }
}

/// What a source (and the table generator) knows about a Znode/Snode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    z: Vec<u32>,
    m: u32,
    b: Vec<u8>,
    a: u8,
    /// offset[i] = Σ_{j<i} b_j (0-based level index): bit offset of label p_{i+1}.
    offset: Vec<u8>,
    /// weight[i] = z_1⋯z_i (0-based): logical weight of label p_{i+1}.
    weight: Vec<u64>,
    hosts: u64,
    /// Bit i−1 set: level i has side links (Snode only).
    side_levels: u64,
}

impl Geometry {
    /// Geometry of a Znode (m = 1) or Snode with side links at every level.
    pub fn new(z: &[u32], m: u32) -> Result<Geometry, BuildError> {
        let shape = |param, why: &str| BuildError::Shape {
            param,
            why: why.to_string(),
        };
        if z.is_empty() {
            return Err(shape("z", "needs at least one level"));
        }
        if z.len() > 64 {
            return Err(shape("z", "has more than 64 levels"));
        }
        if z.contains(&0) {
            return Err(shape("z", "has a zero entry (every level needs ≥ 1 zone)"));
        }
        if m == 0 {
            return Err(shape("m", "must be ≥ 1"));
        }
        let b: Vec<u8> = z.iter().map(|&x| clog2(u64::from(x))).collect();
        let a = clog2(u64::from(m));
        let bits = z.len() as u32 + u32::from(a) + b.iter().map(|&x| u32::from(x)).sum::<u32>();
        if bits > 64 {
            return Err(BuildError::TooWide { bits });
        }
        let mut offset = Vec::with_capacity(z.len());
        let mut weight = Vec::with_capacity(z.len());
        let (mut off, mut w) = (0u8, 1u64);
        for (&zi, &bi) in z.iter().zip(&b) {
            offset.push(off);
            weight.push(w);
            off += bi;
            w = w.saturating_mul(u64::from(zi));
        }
        let hosts = w.saturating_mul(u64::from(m));
        let all = low(z.len() as u32);
        Ok(Geometry {
            z: z.to_vec(),
            m,
            b,
            a,
            offset,
            weight,
            hosts,
            side_levels: if m > 1 { all } else { 0 },
        })
    }

    /// Restrict side links to the levels in `mask` (bit i−1 = level i). An Snode needs
    /// side links at the top level, or pairs in different Znodes with different
    /// top labels could not meet.
    pub fn with_side_levels(mut self, mask: u64) -> Result<Geometry, BuildError> {
        if self.m == 1 {
            return Ok(self);
        }
        let n = self.n();
        if mask & !low(n as u32) != 0 {
            return Err(BuildError::Shape {
                param: "side_levels",
                why: format!("names a level above n = {n}"),
            });
        }
        if mask & (1u64 << (n - 1)) == 0 {
            return Err(BuildError::Shape {
                param: "side_levels",
                why: format!("an Snode (m > 1) needs side links at the top level {n}"),
            });
        }
        self.side_levels = mask;
        Ok(self)
    }

    /// Number of levels n.
    pub fn n(&self) -> usize {
        self.z.len()
    }
    /// z_1..z_n.
    pub fn z(&self) -> &[u32] {
        &self.z
    }
    /// m.
    pub fn m(&self) -> u32 {
        self.m
    }
    /// Label widths b_1..b_n.
    pub fn b(&self) -> &[u8] {
        &self.b
    }
    /// Side-label width a = ⌈log2 m⌉.
    pub fn a(&self) -> u8 {
        self.a
    }
    /// Side-link level mask (bit i−1 = level i).
    pub fn side_levels(&self) -> u64 {
        self.side_levels
    }
    /// Number of processors P = m·∏z_i.
    pub fn hosts(&self) -> u64 {
        self.hosts
    }
    /// Bit offset of label p_i (1-based level) in the physical address: Σ_{j<i} b_j
    /// (the Znode id's offset Σb_j for a level beyond n; 0 for level 0).
    pub fn offset(&self, level: usize) -> u8 {
        match level {
            0 => 0,
            l => self
                .offset
                .get(l - 1)
                .copied()
                .unwrap_or_else(|| self.label_bits()),
        }
    }
    /// Σ_{j=1}^{n} b_j: offset of the Znode id in the physical address.
    pub fn label_bits(&self) -> u8 {
        self.b.iter().sum()
    }
    /// Physical address width W = a + Σb_i (the DST/SRC width of modes 1–3).
    pub fn addr_bits(&self) -> u8 {
        self.label_bits() + self.a
    }
    /// Sliced-flit length for common/peer level l: H(l) = l + a + Σ_{j≤l} b_j
    /// (a counted only when m > 1).
    pub fn slice_bits(&self, l: usize) -> u8 {
        let l = l.clamp(1, self.n());
        l as u8 + self.a + self.b[..l].iter().sum::<u8>()
    }
    /// Largest sliced-flit length over all pairs (at most n + a + Σb;
    /// docs/sliced-flit.md §5 R10).
    pub fn max_slice_bits(&self) -> u8 {
        let top = (1..=self.n())
            .rev()
            .find(|&j| self.z[j - 1] > 1)
            .unwrap_or(1);
        let top = if self.m > 1 {
            self.side_level(top)
        } else {
            top
        };
        self.slice_bits(top)
    }
    /// Hop limit a source sets: 2n, enough for n up, one side hop and n−1 down
    /// (docs/sliced-flit.md §4 item 6).
    pub fn hop_limit(&self) -> u8 {
        (2 * self.n()).min(255) as u8
    }

    /// Labels of logical address `x`: (p_{n+1}; [p_1, …, p_n]) (eqs 6.1, 6.2).
    pub fn labels(&self, x: u64) -> Result<(u32, Vec<u32>), BuildError> {
        if x >= self.hosts {
            return Err(BuildError::NoSuchHost {
                x,
                hosts: self.hosts,
            });
        }
        let p = self
            .z
            .iter()
            .zip(&self.weight)
            .map(|(&zi, &w)| ((x / w) % u64::from(zi)) as u32)
            .collect();
        let top = self.weight[self.n() - 1] * u64::from(self.z[self.n() - 1]);
        Ok(((x / top) as u32, p))
    }

    /// Logical address of labels `(k; p)` (`p[0]` = p_1); labels must be in range.
    pub fn logical(&self, k: u32, p: &[u32]) -> u64 {
        let top = self.weight[self.n() - 1] * u64::from(self.z[self.n() - 1]);
        p.iter()
            .zip(&self.weight)
            .map(|(&pi, &w)| u64::from(pi) * w)
            .sum::<u64>()
            + u64::from(k) * top
    }

    /// Physical address of labels `(k; p)` (eq 6.3): p_1 in the low bits, the Znode id
    /// on top. Labels must be in range (extra labels beyond n are ignored).
    pub fn physical(&self, k: u32, p: &[u32]) -> u64 {
        let mut v = 0u64;
        for (&pi, &off) in p.iter().zip(&self.offset) {
            v |= u64::from(pi) << off;
        }
        let kb = u32::from(self.label_bits());
        v | if kb >= 64 { 0 } else { u64::from(k) << kb }
    }

    /// Physical address of logical address `x`.
    pub fn physical_of(&self, x: u64) -> Result<u64, BuildError> {
        let (k, p) = self.labels(x)?;
        Ok(self.physical(k, &p))
    }

    /// Decode a physical address into labels, checking every field.
    pub fn from_physical(&self, phys: u64) -> Result<(u32, Vec<u32>), BuildError> {
        let bad = |why: String| BuildError::BadPhysical { phys, why };
        let w = u32::from(self.addr_bits());
        if w < 64 && phys >> w != 0 {
            return Err(bad(format!("bits above the {w}-bit address are set")));
        }
        let mut p = Vec::with_capacity(self.n());
        for i in 0..self.n() {
            let v = ((phys >> self.offset[i]) & low(u32::from(self.b[i]))) as u32;
            if v >= self.z[i] {
                return Err(bad(format!(
                    "label p_{} = {v} is not below z_{} = {}",
                    i + 1,
                    i + 1,
                    self.z[i]
                )));
            }
            p.push(v);
        }
        let k = if self.label_bits() >= 64 {
            0
        } else {
            (phys >> self.label_bits()) as u32
        };
        if k >= self.m {
            return Err(bad(format!("Znode id {k} is not below m = {}", self.m)));
        }
        Ok((k, p))
    }

    /// Common level (Definition 2) or peer level (Definition 3): the highest level
    /// whose labels differ, 1 if none do (1-based).
    pub fn common_level(p: &[u32], q: &[u32]) -> usize {
        (2..=p.len().min(q.len()))
            .rev()
            .find(|&j| p[j - 1] != q[j - 1])
            .unwrap_or(1)
    }

    /// Lowest level ≥ `l` that has side links (the top level always has them).
    pub fn side_level(&self, l: usize) -> usize {
        (l.max(1)..=self.n())
            .find(|&j| self.side_levels & (1u64 << (j - 1)) != 0)
            .unwrap_or(self.n())
    }

    /// Turn level of a frame from logical `src` to logical `dst`: the common level in
    /// one Znode, the peer level (raised to the next level with side links) across
    /// Znodes. A frame traverses 2l−1 switches inside a Znode and 2l across
    /// (docs/sliced-flit.md §4 item 6).
    pub fn turn_level(&self, src: u64, dst: u64) -> Result<(usize, bool), BuildError> {
        let (ks, p) = self.labels(src)?;
        let (kd, q) = self.labels(dst)?;
        let l = Self::common_level(&p, &q);
        Ok(if ks != kd {
            (self.side_level(l), true)
        } else {
            (l, false)
        })
    }

    /// Expected switch traversals from `src` to `dst` in `mode` (docs/sliced-flit.md §3
    /// and §4 item 6).
    pub fn expected_hops(&self, mode: Mode, src: u64, dst: u64) -> Result<usize, BuildError> {
        let (l, side) = self.turn_level(src, dst)?;
        let l = if mode == Mode::Flat { self.n() } else { l };
        Ok(2 * l - usize::from(!side))
    }

    /// The sliced flit from `src` to `dst` (logical addresses): left-aligned word and
    /// its length in bits (Fig. 6.6; docs/sliced-flit.md §5 R10).
    pub fn slice(&self, src: u64, dst: u64) -> Result<(u64, u8), BuildError> {
        let (l, _) = self.turn_level(src, dst)?;
        let (kd, q) = self.labels(dst)?;
        let mut v = 0u64;
        let mut len = 0u32;
        let mut put = |val: u64, w: u8| {
            if w > 0 {
                v = (v << w) | val;
                len += u32::from(w);
            }
        };
        for _ in 1..l {
            put(1, 1);
        }
        put(0, 1);
        if self.m > 1 {
            put(u64::from(kd), self.a);
        }
        for j in (1..=l).rev() {
            put(u64::from(q[j - 1]), self.b[j - 1]);
        }
        let word = if len == 0 { 0 } else { v << (64 - len) };
        Ok((word, len as u8))
    }

    /// The body for `mode` from `src` to `dst` (logical addresses). `with_src` adds the
    /// source's physical address (HAS_SRC); SRCDST always carries it.
    pub fn body(
        &self,
        mode: Mode,
        src: u64,
        dst: u64,
        with_src: bool,
    ) -> Result<SlicedRepr, BuildError> {
        let src_phys = self.physical_of(src)?;
        let src_field = (with_src || mode == Mode::SrcDst).then_some(src_phys);
        Ok(match mode {
            Mode::Sliced => {
                let (word, len) = self.slice(src, dst)?;
                SlicedRepr {
                    mode,
                    phase_down: false,
                    side_taken: false,
                    slice_len: len,
                    cursor: 0,
                    word,
                    src: src_field,
                }
            }
            _ => SlicedRepr {
                mode,
                phase_down: false,
                side_taken: false,
                slice_len: self.addr_bits(),
                cursor: 0,
                word: self.physical_of(dst)?,
                src: src_field,
            },
        })
    }
}

fn low(w: u32) -> u64 {
    crate::wire::sliced::low_mask(w)
}

/// Options of a whole Canopy header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeaderOpts {
    /// Addressing mode.
    pub mode: Mode,
    /// Carry the source address (HAS_SRC) even where the mode does not need it.
    pub with_src: bool,
    /// Payload length for the prefix.
    pub payload_len: u16,
    /// Inner EtherType (0 = raw message).
    pub inner_type: u16,
    /// Measurement block.
    pub meas: Option<Measurement>,
}

/// The whole Canopy header (prefix + sliced body [+ measurement block]) from logical
/// `src` to logical `dst`, hop limit 2n.
pub fn header(g: &Geometry, src: u64, dst: u64, o: &HeaderOpts) -> Result<Vec<u8>, BuildError> {
    let body = g.body(o.mode, src, dst, o.with_src)?.to_vec();
    let p = PrefixRepr {
        kind: Kind::Sliced,
        hop_limit: g.hop_limit(),
        payload_len: o.payload_len,
        inner_type: o.inner_type,
        meas: o.meas,
        hops: None,
    };
    // The body is 16 or 24 bytes, so emission cannot fail.
    Ok(p.to_vec(&body).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::doc_vector;
    use proptest::prelude::*;

    fn thesis() -> Geometry {
        // Table 6.1 example 1: m = 2, z = (3,2,3).
        Geometry::new(&[3, 2, 3], 2).unwrap()
    }

    #[test]
    fn thesis_translation_table_6_1() {
        // Table 6.1 (docs/sliced-flit.md §5 R9): X=26 -> (1;1,0,2) -> 42; and on the same
        // Snode X=5 -> (0;0,1,2) -> 6.
        let g = thesis();
        assert_eq!(g.b(), &[2, 1, 2]);
        assert_eq!(g.a(), 1);
        assert_eq!(g.labels(26).unwrap(), (1, vec![2, 0, 1]));
        assert_eq!(g.physical_of(26).unwrap(), 42);
        assert_eq!(g.labels(5).unwrap(), (0, vec![2, 1, 0]));
        assert_eq!(g.physical_of(5).unwrap(), 6);
        assert_eq!(g.from_physical(42).unwrap(), (1, vec![2, 0, 1]));
        assert_eq!(g.logical(1, &[2, 0, 1]), 26);
        // Example 2: z = (4,4,2), m = 2: 26 -> (0;1,2,2) -> 26.
        let g2 = Geometry::new(&[4, 4, 2], 2).unwrap();
        assert_eq!(g2.labels(26).unwrap(), (0, vec![2, 2, 1]));
        assert_eq!(g2.physical_of(26).unwrap(), 26);
    }

    #[test]
    fn thesis_sliced_headers() {
        // docs/sliced-flit.md §2 and wire-format.md S1-S4: 5->26 `110101010`; 0->4
        // `100101`; 8->26 `0110`; 26->5 `110000110`.
        let g = thesis();
        assert_eq!(g.slice(5, 26).unwrap(), (0xD500_0000_0000_0000, 9));
        assert_eq!(g.slice(0, 4).unwrap(), (0x9400_0000_0000_0000, 6));
        assert_eq!(g.slice(8, 26).unwrap(), (0x6000_0000_0000_0000, 4));
        assert_eq!(g.slice(26, 5).unwrap(), (0xC300_0000_0000_0000, 9));
        // The flit depends only on the destination and the turn level: 2 -> 26 turns at
        // level 3 like 5 -> 26, and 24 (1;1,0,0) -> 26 at level 1 like 8 -> 26.
        assert_eq!(g.slice(2, 26).unwrap(), (0xD500_0000_0000_0000, 9));
        assert_eq!(g.slice(24, 26).unwrap(), (0x6000_0000_0000_0000, 4));
        assert_eq!(g.hop_limit(), 6);
        assert_eq!(g.max_slice_bits(), 9);
    }

    #[test]
    fn header_matches_doc_vectors() {
        // docs/wire-format.md S1..S7 are this builder's output.
        let g = thesis();
        let raw = |mode, src, dst, with_src| {
            header(
                &g,
                src,
                dst,
                &HeaderOpts {
                    mode,
                    with_src,
                    payload_len: 4,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        assert_eq!(
            raw(Mode::Sliced, 5, 26, false),
            doc_vector("S1").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::Sliced, 0, 4, false),
            doc_vector("S2").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::Sliced, 8, 26, false),
            doc_vector("S3").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::Sliced, 26, 5, true),
            doc_vector("S4").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::Dst, 5, 26, false),
            doc_vector("S5").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::SrcDst, 5, 26, false),
            doc_vector("S6").unwrap().bytes
        );
        assert_eq!(
            raw(Mode::Flat, 5, 26, false),
            doc_vector("S7").unwrap().bytes
        );
    }

    #[test]
    fn fat_tree_k4_histogram() {
        // z=(2,2,4), m=1: all-pairs header lengths {2:16, 4:32, 7:192}
        // (docs/sliced-flit.md §2, "Header sizes").
        let g = Geometry::new(&[2, 2, 4], 1).unwrap();
        let mut h = std::collections::BTreeMap::new();
        for s in 0..16 {
            for d in 0..16 {
                if s != d {
                    *h.entry(g.slice(s, d).unwrap().1).or_insert(0) += 1;
                }
            }
        }
        assert_eq!(
            h.into_iter().collect::<Vec<_>>(),
            vec![(2, 16), (4, 32), (7, 192)]
        );
    }

    #[test]
    fn side_levels_raise_the_turn() {
        // Side links only at level 3: a peer-level-1 pair (8 -> 26) must turn at 3.
        let g = thesis().with_side_levels(0b100).unwrap();
        assert_eq!(g.turn_level(8, 26).unwrap(), (3, true));
        assert_eq!(g.slice(8, 26).unwrap().1, g.slice_bits(3));
        assert!(thesis().with_side_levels(0b011).is_err());
        assert!(thesis().with_side_levels(0b1000).is_err());
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(matches!(
            Geometry::new(&[], 1),
            Err(BuildError::Shape { param: "z", .. })
        ));
        assert!(matches!(
            Geometry::new(&[2, 0], 1),
            Err(BuildError::Shape { param: "z", .. })
        ));
        assert!(matches!(
            Geometry::new(&[2], 0),
            Err(BuildError::Shape { param: "m", .. })
        ));
        // 8 levels of 256 zones: 8 + 64 bits
        assert_eq!(
            Geometry::new(&[256; 8], 1).unwrap_err(),
            BuildError::TooWide { bits: 72 }
        );
        let g = thesis();
        assert!(matches!(
            g.labels(36),
            Err(BuildError::NoSuchHost { x: 36, hosts: 36 })
        ));
        assert!(matches!(
            g.from_physical(3),
            Err(BuildError::BadPhysical { .. })
        )); // p_1 = 3 >= z_1
        assert!(g.from_physical(64).is_err());
    }

    proptest! {
        #[test]
        fn addressing_roundtrips(z in proptest::collection::vec(1u32..7, 1..5), m in 1u32..5, xs in any::<u64>()) {
            let g = Geometry::new(&z, m).unwrap();
            let x = xs % g.hosts();
            let (k, p) = g.labels(x).unwrap();
            prop_assert_eq!(g.logical(k, &p), x);
            let ph = g.physical(k, &p);
            prop_assert_eq!(g.from_physical(ph).unwrap(), (k, p));
        }

        #[test]
        fn slice_length_formula(z in proptest::collection::vec(1u32..7, 1..5), m in 1u32..5, a in any::<u64>(), b in any::<u64>()) {
            let g = Geometry::new(&z, m).unwrap();
            let (s, d) = (a % g.hosts(), b % g.hosts());
            let (l, _) = g.turn_level(s, d).unwrap();
            let (word, len) = g.slice(s, d).unwrap();
            prop_assert_eq!(len, g.slice_bits(l));
            prop_assert!(len <= g.max_slice_bits());
            // l-1 leading ones then a zero
            prop_assert_eq!(word.leading_ones() as usize, l - 1);
        }
    }
}
