//! Transit source-side header builder: the routing sequence R = RU·RD·RC of \[Transit\]
//! §3.8.3 (docs/references.md) from the source and destination addresses L1 = C1·P1 and
//! L2 = C2·P2, and the Canopy header carrying it.
//!
//! C is one byte per unit-tree layer, **top layer first** (as written in L, e.g.
//! `0xCC02` for L = 0xCC0234 with a 1-byte P). In each C byte bits 7:6 select the child
//! at the unit tree's top down stage, 5:4 the middle, 3:2 the bottom; bits 1:0 are
//! unused and masked before the XOR (docs/transit.md §6 item 1). RD carries C2's bytes
//! verbatim. For a full fat-tree (processors directly on UT64x2, no cluster) P is empty
//! and RU is (11)^(j−1)·O·pad (docs/transit.md §6 item 2).

use crate::wire::transit::TransitRepr;
use crate::wire::{Kind, PrefixRepr, WireError};
use thiserror::Error;

/// Most C bytes (unit-tree layers) a route may span: R must fit in 255 bytes.
pub const MAX_C_BYTES: usize = 64;

/// Why a route or header could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    /// C1 and C2 have different lengths.
    #[error("C1 has {c1} bytes but C2 has {c2}: both must have one byte per unit-tree layer")]
    CLength {
        /// C1 length.
        c1: usize,
        /// C2 length.
        c2: usize,
    },
    /// More layers than a header can carry.
    #[error("{0} C bytes: at most {MAX_C_BYTES} unit-tree layers are supported")]
    TooManyLayers(usize),
    /// P2 would leave the cluster at its first stage.
    #[error("P2 = {0:#04x}: its first pair is 11, which leaves the cluster ([Transit] §3.8.1)")]
    BadP(u8),
    /// Full fat-tree with identical C: no stage to route through.
    #[error("source and destination are the same processor (C1 = C2, no P)")]
    SameEndpoint,
    /// Header emission failed.
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// A computed routing sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// R = RU·RD·RC in transmission order.
    pub bytes: Vec<u8>,
    /// Number of significant C bytes (§3.8.3 step 3; 0 = same cluster).
    pub j: usize,
    /// Crossover direction O (0b00/0b01/0b10), `None` when j = 0.
    pub o: Option<u8>,
    /// Fat-tree level of the crossover, k = 3(j−1) + p (0 = same cluster).
    pub k: u32,
}

/// Split an address L into C (top layer first) and P, given their byte counts (bytes
/// above L's 8 are zero).
pub fn split_addr(l: u64, c_bytes: usize, p_bytes: usize) -> (Vec<u8>, Vec<u8>) {
    let total = c_bytes + p_bytes;
    let b: Vec<u8> = (0..total)
        .map(|i| {
            u32::try_from(8 * (total - 1 - i))
                .ok()
                .and_then(|s| l.checked_shr(s))
                .unwrap_or(0) as u8
        })
        .collect();
    (b[..c_bytes].to_vec(), b[c_bytes..].to_vec())
}

/// R for L1 = C1·P1 → L2 = C2·P2 (\[Transit\] §3.8.3; `full` = full fat-tree, P empty).
/// Only C1, C2 and P2 matter (the source's P1 does not).
pub fn route(c1: &[u8], c2: &[u8], p2: &[u8], full: bool) -> Result<Route, BuildError> {
    if c1.len() != c2.len() {
        return Err(BuildError::CLength {
            c1: c1.len(),
            c2: c2.len(),
        });
    }
    if c1.len() > MAX_C_BYTES {
        return Err(BuildError::TooManyLayers(c1.len()));
    }
    if let Some(&p) = p2.first() {
        if p >> 6 == 3 {
            return Err(BuildError::BadP(p));
        }
    }
    let n = c1.len();
    // Step 1: I = C1' xor C2' with the unused low pairs masked; index 0 = lowest byte.
    let i_at = |b: usize| (c1[n - 1 - b] & 0xFC) ^ (c2[n - 1 - b] & 0xFC);
    // Steps 2-3: j = 1-based index of the highest non-zero byte of I.
    let Some(top) = (0..n).rev().find(|&b| i_at(b) != 0) else {
        if full || p2.is_empty() {
            return Err(BuildError::SameEndpoint);
        }
        return Ok(Route {
            bytes: p2.to_vec(),
            j: 0,
            o: None,
            k: 0,
        });
    };
    let j = top + 1;
    // Step 4: O from the highest differing pair of that byte.
    let h = i_at(top);
    let (o, p) = if h & 0xC0 != 0 {
        (0b10u8, 3u32)
    } else if h & 0x30 != 0 {
        (0b01, 2)
    } else {
        (0b00, 1)
    };
    let k = 3 * (j as u32 - 1) + p;
    // Step 5: RU = (11)^lead · O · (00)* packed MSB-first.
    let lead = if full { j - 1 } else { j };
    let npairs = lead + 1;
    let ru_len = npairs.div_ceil(4);
    let mut bytes = Vec::with_capacity(ru_len + j + p2.len());
    for b in 0..ru_len {
        let mut v = 0u8;
        for q in 0..4 {
            let idx = 4 * b + q;
            let pair = if idx < lead {
                0b11
            } else if idx == lead {
                o
            } else {
                0
            };
            v |= pair << (6 - 2 * q);
        }
        bytes.push(v);
    }
    // Step 6: RD = the low j bytes of C2, most significant first (verbatim).
    bytes.extend_from_slice(&c2[n - j..]);
    // Step 7: RC = P2.
    bytes.extend_from_slice(p2);
    Ok(Route {
        bytes,
        j,
        o: Some(o),
        k,
    })
}

/// Stages and swallows \[Transit\] predicts for a crossover at level `k`:
/// full fat-tree Eq 4.18/4.19 (stages ⌈k/3⌉ + k, swallows ⌈k/3⌉ − 1 + ⌈k/12⌉),
/// hybrid Eq 4.31/4.32 (stages 1 + j + k + ⌈k/3⌉, swallows ⌈k/3⌉ + ⌈(k+3)/12⌉) and
/// Eq 4.30 inside the cluster (k = 0: j stages, no swallow). `j_leaf` = cluster
/// stages. Latencies in t_c with zero wire delay are L_connect = stages and
/// L_open = stages + swallows.
pub fn predicted_counts(k: u32, full: bool, j_leaf: u32) -> (u32, u32) {
    let up = k.div_ceil(3);
    if full {
        (up + k, (up.saturating_sub(1)) + k.div_ceil(12))
    } else if k == 0 {
        (j_leaf, 0)
    } else {
        (1 + j_leaf + k + up, up + (k + 3).div_ceil(12))
    }
}

/// Canopy header (prefix + Transit body) carrying `route` in packet mode.
pub fn header(
    route: &[u8],
    hop_limit: u8,
    payload_len: u16,
    inner_type: u16,
) -> Result<Vec<u8>, BuildError> {
    let body = TransitRepr::data(route.to_vec()).to_vec()?;
    let p = PrefixRepr {
        kind: Kind::Transit,
        hop_limit,
        payload_len,
        inner_type,
        meas: None,
        hops: None,
    };
    Ok(p.to_vec(&body)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::doc_vector;

    fn r(l1: u64, l2: u64, c_bytes: usize, p_bytes: usize, full: bool) -> Route {
        let (c1, _p1) = split_addr(l1, c_bytes, p_bytes);
        let (c2, p2) = split_addr(l2, c_bytes, p_bytes);
        route(&c1, &c2, &p2, full).unwrap()
    }

    #[test]
    fn split_addr_beyond_eight_bytes_pads_with_zeros() {
        // 9 or more bytes shifted a u64 by 64 or more (a debug-build panic, garbage in
        // release); the bytes above the address are zero.
        assert_eq!(
            split_addr(0x0102, 9, 1),
            (vec![0, 0, 0, 0, 0, 0, 0, 0, 0x01], vec![0x02])
        );
        assert_eq!(split_addr(u64::MAX, 64, 0).0[..56], [0u8; 56]);
        assert_eq!(split_addr(u64::MAX, 64, 0).0[56..], [0xFFu8; 8]);
    }

    #[test]
    fn report_example() {
        // [Transit] §3.8.5: L1 = 0xCC0234, L2 = 0xD84267, B192 leaves, two UT64x8 layers:
        // I = 0x1440, M = 0x03, j = 2, O = 01, RU = 0xF4, RD = 0xD842, RC = 0x67,
        // R = 0xF4D84267 (crossover level k = 5; the trace is in docs/transit.md §4).
        let rt = r(0xCC0234, 0xD84267, 2, 1, false);
        assert_eq!(rt.bytes, vec![0xF4, 0xD8, 0x42, 0x67]);
        assert_eq!((rt.j, rt.o, rt.k), (2, Some(0b01), 5));
        assert_eq!(split_addr(0xCC0234, 2, 1), (vec![0xCC, 0x02], vec![0x34]));
        // The header is docs/wire-format.md vector T1 (hop limit 13 = worst case).
        assert_eq!(
            header(&rt.bytes, 13, 0, 0).unwrap(),
            doc_vector("T1").unwrap().bytes
        );
        // 12 stages and 3 swallows (Eq 4.31/4.32: 1+4+5+2 and 2+1).
        assert_eq!(predicted_counts(rt.k, false, 4), (12, 3));
    }

    #[test]
    fn more_route_vectors() {
        // The vectors of docs/transit.md §5: R by the steps of §3.8.3, stages and swallows
        // by Eq 4.18/4.19 (full) and 4.31/4.32 (hybrid).
        let hy = |l1, l2, cb| r(l1, l2, cb, 1, false);
        let full = |l1, l2, cb| r(l1, l2, cb, 0, true);
        let cases: Vec<(Route, Vec<u8>, usize, u32, u32, u32)> = vec![
            // (route, R, j, k, stages, swallows); hybrid rows use B192 (j_leaf = 4)
            (hy(0xCC0234, 0xCC0201, 2), vec![0x01], 0, 0, 4, 0),
            (
                hy(0xCC0434, 0xCC0801, 2),
                vec![0xC0, 0x08, 0x01],
                1,
                1,
                7,
                2,
            ),
            (
                hy(0xCC1034, 0xCC2001, 2),
                vec![0xD0, 0x20, 0x01],
                1,
                2,
                8,
                2,
            ),
            (
                hy(0xCC4034, 0xCC8001, 2),
                vec![0xE0, 0x80, 0x01],
                1,
                3,
                9,
                2,
            ),
            (
                hy(0xC44034, 0xC88001, 2),
                vec![0xF0, 0xC8, 0x80, 0x01],
                2,
                4,
                11,
                3,
            ),
            (
                hy(0x404034, 0x808001, 2),
                vec![0xF8, 0x80, 0x80, 0x01],
                2,
                6,
                13,
                3,
            ),
            (
                hy(0x1000000034, 0x2000000067, 4),
                vec![0xFF, 0x40, 0x20, 0x00, 0x00, 0x00, 0x67],
                4,
                11,
                20,
                6,
            ),
        ];
        for (rt, bytes, j, k, st, sw) in cases {
            assert_eq!(rt.bytes, bytes);
            assert_eq!((rt.j, rt.k), (j, k), "{bytes:02x?}");
            assert_eq!(predicted_counts(k, false, 4), (st, sw), "{bytes:02x?}");
        }
        let cases = vec![
            (full(0x04, 0x08, 1), vec![0x00, 0x08], 1, 2, 1),
            (full(0x40, 0x80, 1), vec![0x80, 0x80], 3, 4, 1),
            (full(0x1000, 0x2000, 2), vec![0xD0, 0x20, 0x00], 5, 7, 2),
            (
                full(0x4000000000, 0x8000000000, 5),
                vec![0xFF, 0x80, 0x80, 0x00, 0x00, 0x00, 0x00],
                15,
                20,
                6,
            ),
        ];
        for (rt, bytes, k, st, sw) in cases {
            assert_eq!(rt.bytes, bytes);
            assert_eq!(rt.k, k);
            assert_eq!(predicted_counts(k, true, 0), (st, sw), "{bytes:02x?}");
        }
    }

    #[test]
    fn full_fat_tree_vector_t4() {
        // Full fat-tree, 2 layers, 0x1000 -> 0x2000: R = 0xD02000, k = 5;
        // hop limit 8 = worst case 4i (Eq 4.22 with i = 2, n = 0).
        let rt = route(&[0x10, 0x00], &[0x20, 0x00], &[], true).unwrap();
        assert_eq!(rt.bytes, vec![0xD0, 0x20, 0x00]);
        assert_eq!(
            header(&rt.bytes, 8, 0, 0).unwrap(),
            doc_vector("T4").unwrap().bytes
        );
    }

    #[test]
    fn latency_anchors() {
        // Eq 4.20/4.21: full fat-tree best case k = 1: L_connect 2, L_open 3 (t_c).
        let (st, sw) = predicted_counts(1, true, 0);
        assert_eq!((st, st + sw), (2, 3));
        // Eq 4.22/4.23 through the root of i = 3 layers (k = 9), n = 0:
        // L_connect = 4i = 12, L_open = ⌈i/4⌉ + 5i − 1 = 15.
        let (st, sw) = predicted_counts(9, true, 0);
        assert_eq!((st, st + sw), (12, 15));
        // Eq 4.33/4.34 hybrid worst case, i − 1 = 2 layers (k = 6), j = 4, n = 0:
        // L_connect = 1 + 4·2 + 4 = 13, L_open = 1 + 4 + 5·2 + ⌈3/4⌉ = 16.
        let (st, sw) = predicted_counts(6, false, 4);
        assert_eq!((st, st + sw), (13, 16));
    }

    #[test]
    fn unused_bits_and_errors() {
        // Only unused bits differ: same cluster, R = P2 (docs/transit.md §6 item 1).
        let rt = r(0xCC0134, 0xCC0201, 2, 1, false);
        assert_eq!(rt.bytes, vec![0x01]);
        assert_eq!(
            route(&[1], &[1, 2], &[], true).unwrap_err(),
            BuildError::CLength { c1: 1, c2: 2 }
        );
        assert_eq!(
            route(&[4], &[4], &[], true).unwrap_err(),
            BuildError::SameEndpoint
        );
        assert_eq!(
            route(&[4], &[8], &[0xC0], false).unwrap_err(),
            BuildError::BadP(0xC0)
        );
        let big = vec![0u8; 65];
        assert_eq!(
            route(&big, &big, &[], true).unwrap_err(),
            BuildError::TooManyLayers(65)
        );
    }

    proptest::proptest! {
        #[test]
        fn route_length_formula(c1 in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..8),
                                seed in proptest::prelude::any::<u64>(), full in proptest::prelude::any::<bool>()) {
            // |R| = ⌈(j+1)/4⌉ + j + |P| (hybrid: RU holds j + 1 pairs), ⌈j/4⌉ + j (full: j).
            let c2: Vec<u8> = c1.iter().enumerate().map(|(i, b)| b ^ ((seed >> (8 * (i % 8))) as u8)).collect();
            let p2: Vec<u8> = if full { vec![] } else { vec![(seed as u8) & 0xBF] };
            match route(&c1, &c2, &p2, full) {
                Ok(rt) => {
                    let ru = if full { rt.j.div_ceil(4) } else if rt.j == 0 { 0 } else { (rt.j + 1).div_ceil(4) };
                    proptest::prop_assert_eq!(rt.bytes.len(), ru + rt.j + p2.len());
                }
                Err(e) => proptest::prop_assert_eq!(e, BuildError::SameEndpoint),
            }
        }
    }
}
