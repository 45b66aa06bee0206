//! Path-ID source-side builder (\[PathID\]; docs/references.md): the field layout of a
//! fabric, the path ID `Type . Top . Route . DP_{t+2} . DP_{t+1} … DP_2` from its fields,
//! LPM prefixes of the same layout, \[PathID\]'s dotted notation, and the Canopy header for
//! a frame.
//!
//! The control plane computes the fields of a path (which top switch, which route, which
//! down ports) from the topology; this module only packs bits, so the traffic generator,
//! the control plane and the tests share one implementation.

use crate::wire::pathid::{left_mask, PathIdBody, PathIdRepr, BODY_LEN, MAX_ID_BITS};
use crate::wire::{Kind, Measurement, PrefixRepr, WireError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a path ID or header could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    /// A field value does not fit its width.
    #[error("path-ID field `{field}` = {value} does not fit in {bits} bits")]
    FieldOverflow {
        /// Field name (`type`, `top`, `route`, `dp<l>`).
        field: String,
        /// The value.
        value: u64,
        /// Its width.
        bits: u8,
    },
    /// The path type is not one of the layout's types.
    #[error("path type {t} out of range 0..{types}")]
    BadType {
        /// Type given.
        t: u16,
        /// Number of types (L − 1).
        types: u16,
    },
    /// The number of DP fields does not match the type (t + 1 fields).
    #[error("path type {t} needs {need} DP fields, {have} given")]
    DpCount {
        /// Type.
        t: u16,
        /// Fields needed.
        need: usize,
        /// Fields given.
        have: usize,
    },
    /// The ID would exceed 64 bits.
    #[error("path ID of type {t} needs {bits} bits, the header carries at most 64")]
    TooLong {
        /// Type.
        t: u16,
        /// Bits needed.
        bits: u32,
    },
    /// Header emission failed.
    #[error("header emission: {0}")]
    Wire(#[from] WireError),
}

/// Field widths of a fabric's path IDs (\[PathID\], "block size is fixed and should be
/// calculated beforehand"), with the ordinary ceiling ⌈log2 x⌉
/// (docs/pathid-scalability.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathIdLayout {
    /// Number of switch levels L (types are 0..L−1).
    pub levels: u16,
    /// Type width ⌈log2(L − 1)⌉.
    pub type_bits: u8,
    /// Top width per type t: ⌈log2 |S^{t+2}|⌉.
    pub top_bits: Vec<u8>,
    /// Route width per type t: ⌈log2 max |R_{s1 − s^{t+2}}|⌉.
    pub route_bits: Vec<u8>,
    /// DP width per level l = 2..=L at index l − 2: ⌈log2 max_{s ∈ S^l} |DP_s|⌉.
    pub dp_bits: Vec<u8>,
}

/// The fields of one path ID.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PathFields {
    /// Type t = level of the top switch − 2.
    pub t: u16,
    /// Sequence number of the top switch in its level.
    pub top: u32,
    /// Sequence number of the route from the source leaf to the top.
    pub route: u32,
    /// Down-port sequence numbers DP_{t+2}, DP_{t+1}, …, DP_2 (in that order).
    pub dps: Vec<u32>,
}

/// ⌈log2 x⌉ (0 for x ≤ 1).
pub fn ceil_log2(x: u64) -> u8 {
    if x <= 1 {
        0
    } else {
        (64 - (x - 1).leading_zeros()) as u8
    }
}

struct BitWriter {
    v: u64,
    len: u32,
}

impl BitWriter {
    fn push(&mut self, field: &str, value: u64, bits: u8) -> Result<(), BuildError> {
        if bits < 64 && value >> bits != 0 {
            return Err(BuildError::FieldOverflow {
                field: field.to_string(),
                value,
                bits,
            });
        }
        if bits > 0 {
            self.v = if bits >= 64 {
                value
            } else {
                (self.v << bits) | value
            };
            self.len += u32::from(bits);
        }
        Ok(())
    }
}

impl PathIdLayout {
    /// Number of path types (L − 1).
    pub fn types(&self) -> u16 {
        self.levels.saturating_sub(1)
    }

    /// Width of DP_l (0 outside 2..=L).
    pub fn dp(&self, l: u16) -> u8 {
        if l < 2 {
            return 0;
        }
        self.dp_bits.get(usize::from(l - 2)).copied().unwrap_or(0)
    }

    /// Widths of the fields of type `t` in order: type, top, route, DP_{t+2} … DP_2,
    /// with their names.
    pub fn fields(&self, t: u16) -> Vec<(String, u8)> {
        let i = usize::from(t);
        let mut v = vec![
            ("type".to_string(), self.type_bits),
            (
                "top".to_string(),
                self.top_bits.get(i).copied().unwrap_or(0),
            ),
            (
                "route".to_string(),
                self.route_bits.get(i).copied().unwrap_or(0),
            ),
        ];
        for l in (2..=t.saturating_add(2)).rev() {
            v.push((format!("dp{l}"), self.dp(l)));
        }
        v
    }

    /// Length in bits of a type-`t` path ID.
    pub fn id_len(&self, t: u16) -> u32 {
        self.fields(t).iter().map(|f| u32::from(f.1)).sum()
    }

    /// Length of the prefix `t.Top.Route` (an up entry).
    pub fn head_len(&self, t: u16) -> u32 {
        self.fields(t)[..3].iter().map(|f| u32::from(f.1)).sum()
    }

    /// Prefix value (right-aligned) and length of `t.top.route.dps[0]…` — an LPM entry
    /// (`dps` may hold fewer than t + 1 fields) or, with all fields, a whole path ID.
    pub fn prefix(
        &self,
        t: u16,
        top: u32,
        route: u32,
        dps: &[u32],
    ) -> Result<(u64, u8), BuildError> {
        if t >= self.types() {
            return Err(BuildError::BadType {
                t,
                types: self.types(),
            });
        }
        if dps.len() > usize::from(t) + 1 {
            return Err(BuildError::DpCount {
                t,
                need: usize::from(t) + 1,
                have: dps.len(),
            });
        }
        let total = self.id_len(t);
        if total > u32::from(MAX_ID_BITS) {
            return Err(BuildError::TooLong { t, bits: total });
        }
        let f = self.fields(t);
        let mut w = BitWriter { v: 0, len: 0 };
        w.push("type", u64::from(t), f[0].1)?;
        w.push("top", u64::from(top), f[1].1)?;
        w.push("route", u64::from(route), f[2].1)?;
        for (i, d) in dps.iter().enumerate() {
            w.push(&f[3 + i].0, u64::from(*d), f[3 + i].1)?;
        }
        Ok((w.v, w.len as u8))
    }

    /// The whole path ID of `p`, left-aligned, and its length.
    pub fn encode(&self, p: &PathFields) -> Result<(u64, u8), BuildError> {
        if p.t >= self.types() {
            return Err(BuildError::BadType {
                t: p.t,
                types: self.types(),
            });
        }
        if p.dps.len() != usize::from(p.t) + 1 {
            return Err(BuildError::DpCount {
                t: p.t,
                need: usize::from(p.t) + 1,
                have: p.dps.len(),
            });
        }
        let (v, len) = self.prefix(p.t, p.top, p.route, &p.dps)?;
        let id = if len == 0 {
            0
        } else {
            v << (64 - u32::from(len))
        };
        Ok((id, len))
    }

    /// Split a left-aligned ID of `len` bits back into fields (`None` if the type is
    /// unknown or the length does not match the type).
    pub fn decode(&self, id: u64, len: u8) -> Option<PathFields> {
        if len > MAX_ID_BITS || u32::from(self.type_bits) > u32::from(len) {
            return None;
        }
        let mut pos = 0u32;
        let mut take = |bits: u8| -> u64 {
            let b = u32::from(bits);
            let v = if b == 0 { 0 } else { (id << pos) >> (64 - b) };
            pos += b;
            v
        };
        let t = take(self.type_bits) as u16;
        if t >= self.types() || self.id_len(t) != u32::from(len) {
            return None;
        }
        let f = self.fields(t);
        let top = take(f[1].1) as u32;
        let route = take(f[2].1) as u32;
        let dps = f[3..].iter().map(|x| take(x.1) as u32).collect();
        Some(PathFields { t, top, route, dps })
    }

    /// \[PathID\]'s dotted notation of a prefix (right-aligned `value`, `len` bits):
    /// fields separated by `.`, 0-bit fields written `null`, e.g. `1.01.null.01.0`.
    pub fn format(&self, value: u64, len: u8) -> String {
        let len = u32::from(len);
        if len == 0 || len > 64 {
            return String::new();
        }
        let bits = |from: u32, n: u32| -> String {
            (0..n)
                .map(|i| {
                    let b = (value >> (len - 1 - (from + i))) & 1;
                    if b == 1 {
                        '1'
                    } else {
                        '0'
                    }
                })
                .collect()
        };
        let tb = u32::from(self.type_bits);
        let t = if tb == 0 || tb > len {
            0
        } else {
            (value >> (len - tb)) as u16
        };
        let mut out: Vec<String> = Vec::new();
        let mut pos = 0u32;
        for (_, w) in self.fields(t.min(self.types().saturating_sub(1))) {
            let w = u32::from(w);
            if pos + w > len {
                if pos < len {
                    out.push(bits(pos, len - pos));
                    pos = len;
                }
                break;
            }
            out.push(if w == 0 { "null".into() } else { bits(pos, w) });
            pos += w;
        }
        if pos < len {
            out.push(bits(pos, len - pos));
        }
        out.join(".")
    }
}

/// Body of a frame from a source to a destination: `path = None` for a LOCAL frame
/// (both on one leaf switch).
pub fn body(
    layout: &PathIdLayout,
    path: Option<&PathFields>,
    host_label: u32,
) -> Result<PathIdRepr, BuildError> {
    Ok(match path {
        None => PathIdRepr {
            phase_down: false,
            local: true,
            id_len: 0,
            id: 0,
            host_label,
        },
        Some(p) => {
            let (id, len) = layout.encode(p)?;
            PathIdRepr {
                phase_down: false,
                local: false,
                id_len: len,
                id: id & left_mask(len),
                host_label,
            }
        }
    })
}

/// The whole Canopy header (prefix + path-ID body [+ measurement block]).
pub fn header(
    layout: &PathIdLayout,
    path: Option<&PathFields>,
    host_label: u32,
    hop_limit: u8,
    payload_len: u16,
    meas: Option<Measurement>,
) -> Result<Vec<u8>, BuildError> {
    let r = body(layout, path, host_label)?;
    let mut b = [0u8; BODY_LEN];
    r.emit(&mut PathIdBody::new_unchecked(&mut b[..]));
    let prefix = PrefixRepr {
        kind: Kind::PathId,
        hop_limit,
        payload_len,
        inner_type: 0,
        meas,
        hops: None,
    };
    Ok(prefix.to_vec(&b)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::doc_vector;

    /// \[PathID\]'s Fattree(4) widths ("Illustration – Fattree(4)"): Type 1 bit, Top 3 bits (type 0) and
    /// 2 bits (type 1), Route 0, DP_3 2 bits, DP_2 1 bit.
    pub(crate) fn fattree4() -> PathIdLayout {
        PathIdLayout {
            levels: 3,
            type_bits: 1,
            top_bits: vec![3, 2],
            route_bits: vec![0, 0],
            dp_bits: vec![1, 2],
        }
    }

    #[test]
    fn pathid_dotted_notation() {
        let l = fattree4();
        assert_eq!(l.id_len(0), 5);
        assert_eq!(l.id_len(1), 6);
        // [PathID]'s Fattree(4) entries `0.001.null/` and `0.001.null.0/` (s_1^1, s_1^2)
        // and `1.01.null.01.0/` (s_1^2).
        let (v, n) = l.prefix(0, 1, 0, &[]).unwrap();
        assert_eq!(l.format(v, n), "0.001.null");
        let (v, n) = l.prefix(0, 1, 0, &[0]).unwrap();
        assert_eq!(l.format(v, n), "0.001.null.0");
        let (v, n) = l.prefix(1, 1, 0, &[1, 0]).unwrap();
        assert_eq!((v, n), (0b101010, 6));
        assert_eq!(l.format(v, n), "1.01.null.01.0");
        let (v, n) = l.prefix(1, 1, 0, &[1]).unwrap();
        assert_eq!(l.format(v, n), "1.01.null.01");
    }

    /// The path of vector I1 on fat-tree:k=4 (h0 -> h15 via core-c0).
    fn i1_path() -> PathFields {
        PathFields {
            t: 1,
            top: 0,
            route: 0,
            dps: vec![3, 1],
        }
    }

    #[test]
    fn encode_decode_and_errors() {
        let l = fattree4();
        let p = i1_path();
        let (id, len) = l.encode(&p).unwrap();
        assert_eq!((id >> 58, len), (0b100111, 6));
        assert_eq!(l.decode(id, len), Some(p.clone()));
        assert!(matches!(
            l.encode(&PathFields {
                top: 4,
                ..p.clone()
            }),
            Err(BuildError::FieldOverflow { bits: 2, .. })
        ));
        assert!(matches!(
            l.encode(&PathFields { t: 2, ..p.clone() }),
            Err(BuildError::BadType { .. })
        ));
        assert!(matches!(
            l.encode(&PathFields {
                dps: vec![1],
                ..p.clone()
            }),
            Err(BuildError::DpCount { .. })
        ));
        assert_eq!(l.decode(id, 5), None);
    }

    #[test]
    fn field_widths_of_any_type_never_overflow() {
        // `t + 2` overflowed (a debug-build panic) for t ≥ 65534 in the public
        // `fields` / `id_len` / `head_len`; types outside the layout have 0-bit DPs.
        let l = fattree4();
        assert_eq!(l.id_len(u16::MAX), 1 + 2 + 1); // type, DP_3, DP_2
        assert_eq!(l.head_len(u16::MAX), 1);
        assert_eq!(l.fields(u16::MAX).len(), 3 + 65534);
    }

    #[test]
    fn header_matches_doc_vectors() {
        // I1: fat-tree:k=4, h0 -> h15 via core-c0 (fields 1.00.null.11.1), host label 1,
        // hop limit 5 (2L − 1), payload 4 bytes.
        let l = fattree4();
        let p = i1_path();
        let h = header(&l, Some(&p), 1, 5, 4, None).unwrap();
        assert_eq!(h, doc_vector("I1").unwrap().bytes);
        // I3: h0 -> h1 share edge-p0-e0: LOCAL, host label 1.
        let h = header(&l, None, 1, 5, 4, None).unwrap();
        assert_eq!(h, doc_vector("I3").unwrap().bytes);
    }

    proptest::proptest! {
        #[test]
        fn encode_decode_roundtrip(
            levels in 2u16..6,
            widths in proptest::collection::vec(0u8..6, 16),
            vals in proptest::collection::vec(proptest::prelude::any::<u32>(), 8),
            t_pick in 0u16..8,
        ) {
            let types = levels - 1;
            let layout = PathIdLayout {
                levels,
                type_bits: ceil_log2(u64::from(types)),
                top_bits: widths[0..usize::from(types)].to_vec(),
                route_bits: widths[5..5 + usize::from(types)].to_vec(),
                dp_bits: widths[10..10 + usize::from(types)].to_vec(),
            };
            let t = t_pick % types;
            let f = layout.fields(t);
            let fit = |v: u32, w: u8| if w == 0 { 0 } else { v & ((1u32 << w) - 1) };
            let p = PathFields {
                t,
                top: fit(vals[0], f[1].1),
                route: fit(vals[1], f[2].1),
                dps: f[3..].iter().enumerate().map(|(i, x)| fit(vals[2 + i], x.1)).collect(),
            };
            let (id, len) = layout.encode(&p).unwrap();
            proptest::prop_assert_eq!(u32::from(len), layout.id_len(t));
            proptest::prop_assert_eq!(layout.decode(id, len), Some(p));
            let (v, n) = layout.prefix(t, fit(vals[0], f[1].1), fit(vals[1], f[2].1), &[]).unwrap();
            let _ = layout.format(v, n);
        }

        #[test]
        fn decode_and_format_never_panic(id in proptest::prelude::any::<u64>(), len in proptest::prelude::any::<u8>()) {
            let l = fattree4();
            let _ = l.decode(id, len);
            let _ = l.format(id, len);
            let _ = l.format(id >> 58, 6);
        }
    }

    #[test]
    fn ceil_log2_is_the_ordinary_ceiling() {
        // The smallest integer ≥ a: log2 8 = 3 gives 3 bits, as [PathID]'s Fattree(4) widths
        // need (its text says "larger than a"; docs/pathid-scalability.md).
        assert_eq!(
            [1, 2, 3, 4, 8, 9, 50, 96, 1024].map(ceil_log2),
            [0, 1, 2, 2, 3, 4, 6, 7, 10]
        );
    }
}
