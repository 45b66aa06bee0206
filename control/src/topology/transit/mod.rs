//! Transit fat-trees of RN1 chips (\[Transit\], DeHon 1990; docs/references.md), built at
//! chip level: every RN1 is a switch with 8 input ports (0..8) and 8 output ports
//! (8..16), every channel a one-way link, every chip configured (mode, per-input
//! swallow, per-output link rotation) as docs/transit.md §2-§3 derives from the report's
//! chapters 2 and 3. Section numbers below with two or more levels are the report's.
//!
//! Families:
//! * `transit-full:layers=U` (U = 1..=3): 64^U processors on UT64x2 unit trees (layer
//!   1) under UT64x8 layers 2..U (Eq 3.8-3.10).
//! * `transit-hybrid:leaf=12|48|192;layers=U` (U = 1..=2, at most 1.2 M chips):
//!   bidelta leaf clusters B12/B48/B192 (j = 2/3/4 stages) under U UT64x8 layers
//!   (Eq 4.24-4.29), 64^U clusters.
//!
//! Unit tree (UT64x8, §3.3.1; UT64x2 is the same scaled by 4, §3.3.4):
//! * up stage: 16 groups (one per bottom node) of 4 chips; group g takes the 4 bottom
//!   directions 4g..4g+3 (8 channels each, 2 per chip). Directions: 00 → bottom node g
//!   (lateral), 01 → middle node g/4, 10 → top node, 11 → next layer's up stage.
//! * down stages: top (32 chips; 128 lateral + 128 from above) → 4 middle nodes (12
//!   chips; 32 lateral + 64 from top) → 16 bottom nodes (4 chips; 8 lateral + 24 from
//!   middle) → the 64 bottom directions (8 channels each).
//! * Node inputs are filled round-robin over the node's chips, laterals first, so
//!   laterals are spread evenly and the two outputs of a direction of one chip always
//!   reach two different chips (full dispersion, §2.3.2).
//! * UT64x2 up and bottom stages: chips in pairs (2a, 2a+1), split mode; half h of both
//!   chips serves node 2a+h, so each processor's two inputs and two outputs sit on two
//!   different chips (§3.3.4). Middle/top are dilated (3 and 8 chips).
//!
//! Layers: a subtree at layer u is served by W_u parallel unit trees (hybrid
//! W_1 = Nleaf/12, full W_1 = 1); unit tree (s, r) sends top bundle b (8 channels up,
//! 8 down) to unit tree (s/64, nb·r + b) of layer u+1 at bottom direction s mod 64
//! (nb = 16 top bundles for UT64x8, 4 for UT64x2), so W_{u+1} = nb·W_u (§3.3.3).
//!
//! Leaf cluster B_Nleaf with j stages: stage 1 has 4^(j−1) dilated chips, inputs 0..5
//! from processors (processor q's input e is node input 2q+e, so its two inputs are on
//! different chips), inputs 6, 7 from the fat-tree (swallow); direction 11 → the
//! fat-tree, 00/01/10 → three sub-networks. Stage s ≥ 2 groups by the prefix
//! p_1..p_{s−1} (4^(j−s) chips each); the last stage is split: group g uses half 0
//! of chip g and half 1 of chip g+1 (mod 3·4^(j−2)), so each processor's two outputs
//! come from two chips (§2.1.2).
//!
//! Rotation (2-bit units) on each link: +1, except +2 after a unit tree's bottom down
//! stage and (3 − p − u) mod 4 (hybrid) / (4 − p − u) mod 4 (full) on the crossover
//! from the up stage of layer u to down stage p (1 bottom, 2 middle, 3 top)
//! (docs/transit.md §3, invariant 4). Swallow: lateral inputs, top-stage inputs from
//! above, cluster fat-tree inputs, and up-stage inputs of layers 4, 8, … (hybrid) /
//! 5, 9, … (full) (§3.1.2, §3.2.2, §3.3.5; docs/transit.md §3).
//!
//! Port roles for the oracle: cluster direction 11 and up-stage direction 11 are `Up`,
//! crossovers are `Side`, everything else (down stages, cluster stages towards a
//! processor) is `Down`; so every path is up*·side?·down*.
//!
//! `Switch::transit` holds each chip's [`TransitTable`](canopy_dataplane::table::transit::TransitTable), decoded against an empty
//! `SwitchTables` (its direction groups are interned from id 0); `kinds::transit::tables`
//! decodes the same configuration into each switch's own `SwitchTables`.
//!
//! Levels (`Switch::level`): full fat-tree: up and bottom stages of layer u at tree
//! level 3u−2, middle 3u−1, top 3u. Hybrid: cluster chips 1, then tree level + 1
//! (up and bottom 3u−1, middle 3u, top 3u+1). Host index = cluster·Nleaf + q
//! (hybrid) or x (full), in the order of L = C·P.

use super::{HostError, TopoError, Topology};
use crate::spec::Spec;

mod gen;
#[cfg(test)]
mod tests;

pub use gen::build;

/// Most RN1 chips a spec may ask for (\[Transit\]'s 786,432-processor example has
/// 1,118,208, Table 4.6).
pub const MAX_CHIPS: u64 = 1_200_000;

/// Parameters of a Transit fat-tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Full fat-tree (UT64x2 leaves) rather than hybrid (bidelta clusters).
    pub full: bool,
    /// Unit-tree layers U (C bytes).
    pub layers: u32,
    /// Stages of a leaf cluster j (2..=4); 0 for a full fat-tree.
    pub j_leaf: u32,
}

impl Params {
    /// Parse and validate a `transit-full` / `transit-hybrid` spec.
    pub fn from_spec(spec: &Spec) -> Result<Params, TopoError> {
        let full = match spec.family.as_str() {
            "transit-full" => true,
            "transit-hybrid" => false,
            other => {
                return Err(TopoError::Invalid {
                    spec: spec.to_string(),
                    why: format!("`{other}` is not a Transit family"),
                })
            }
        };
        let p = if full {
            spec.only(&["layers"])?;
            Params {
                full,
                layers: spec.req_u64("layers", 1, 8)? as u32,
                j_leaf: 0,
            }
        } else {
            spec.only(&["leaf", "layers"])?;
            let leaf = spec.req_u64("leaf", 12, 192)?;
            let j_leaf = match leaf {
                12 => 2,
                48 => 3,
                192 => 4,
                _ => {
                    return Err(spec
                        .invalid(
                            "leaf",
                            format!(
                                "= {leaf} is not a bidelta cluster size: 12, 48 or 192 \
                                 (3·4^(j−1) with 2 ≤ j ≤ 4, Eq 4.24)"
                            ),
                        )
                        .into())
                }
            };
            Params {
                full,
                layers: spec.req_u64("layers", 1, 8)? as u32,
                j_leaf,
            }
        };
        let chips = p.chips();
        if chips > MAX_CHIPS {
            return Err(spec
                .invalid(
                    "layers",
                    format!(
                        "= {} needs {chips} RN1 chips and {} processors; at most {MAX_CHIPS} \
                         chips are built (use fewer layers{})",
                        p.layers,
                        p.processors(),
                        if full { "" } else { " or a smaller leaf" }
                    ),
                )
                .into());
        }
        Ok(p)
    }

    /// Processors per leaf cluster (Eq 4.24), 0 for a full fat-tree.
    pub fn n_leaf(&self) -> u64 {
        if self.full {
            0
        } else {
            3 * 4u64.pow(self.j_leaf - 1)
        }
    }

    /// Processors: 64^U (Eq 4.14) or Nleaf·64^U (Eq 4.25).
    pub fn processors(&self) -> u64 {
        let top = 64u64.saturating_pow(self.layers);
        if self.full {
            top
        } else {
            top.saturating_mul(self.n_leaf())
        }
    }

    /// Unit trees of layer `u` (1-based): subtrees × parallel width W_u.
    pub fn uts_in_layer(&self, u: u32) -> u64 {
        64u64.saturating_pow(self.layers - u) * self.width(u)
    }

    /// Parallel unit trees per subtree at layer `u` (W_u).
    pub fn width(&self, u: u32) -> u64 {
        if self.full {
            if u == 1 {
                1
            } else {
                4 * 16u64.saturating_pow(u - 2)
            }
        } else {
            (self.n_leaf() / 12) * 16u64.saturating_pow(u - 1)
        }
    }

    /// RN1 chips (Eq 4.17 / 4.29).
    pub fn chips(&self) -> u64 {
        let mut n: u64 = 0;
        for u in 1..=self.layers {
            let per = if self.full && u == 1 { 52 } else { 208 };
            n = n.saturating_add(self.uts_in_layer(u).saturating_mul(per));
        }
        if !self.full {
            let j = self.j_leaf;
            let per = (3 * u64::from(j) + 1) * 4u64.pow(j) / 16; // (3j+1)·4^(j−2), Eq 4.26
            n = n.saturating_add(64u64.saturating_pow(self.layers).saturating_mul(per));
        }
        n
    }

    /// Bytes of P (1 for hybrid, 0 for full).
    pub fn p_bytes(&self) -> usize {
        usize::from(!self.full)
    }

    /// Longest route in bytes: ⌈(U+1)/4⌉ + U + 1 (hybrid) or ⌈U/4⌉ + U (full).
    pub fn max_route_len(&self) -> usize {
        let u = self.layers as usize;
        if self.full {
            u.div_ceil(4) + u
        } else {
            (u + 1).div_ceil(4) + u + 1
        }
    }

    /// Worst-case stages (crossover at the top, k = 3U): the hop limit a source sets.
    pub fn max_stages(&self) -> u32 {
        let k = 3 * self.layers;
        canopy_dataplane::build::transit::predicted_counts(k, self.full, self.j_leaf).0
    }

    /// Host index of address `l` (unused bits ignored), or why it is not one.
    pub fn index_of(&self, l: u64) -> Result<u64, HostError> {
        let cb = self.layers as usize;
        let pb = self.p_bytes();
        if (cb + pb) < 8 && l >> (8 * (cb + pb)) != 0 {
            return Err(HostError::AddrTooLong {
                addr: l,
                c_bytes: cb,
                p_bytes: pb,
            });
        }
        let (c, p) = canopy_dataplane::build::transit::split_addr(l, cb, pb);
        let mut pos: u64 = 0;
        for b in &c {
            pos = pos * 64 + u64::from(b >> 2);
        }
        if self.full {
            return Ok(pos);
        }
        let pbyte = p[0];
        let j = self.j_leaf;
        if pbyte >> 6 == 3 {
            return Err(HostError::LeavesCluster(pbyte));
        }
        let mut q: u64 = 0;
        for s in 0..j {
            q = q * 4 + u64::from((pbyte >> (6 - 2 * s)) & 3);
        }
        Ok(pos * self.n_leaf() + q)
    }

    /// Address L = C·P of host index `x` (unused bits 0).
    pub fn addr_of(&self, x: u64) -> u64 {
        let (pos, q) = if self.full {
            (x, 0)
        } else {
            (x / self.n_leaf(), x % self.n_leaf())
        };
        let mut c: u64 = 0;
        for u in (0..self.layers).rev() {
            let digit = (pos >> (6 * u)) & 63;
            c = (c << 8) | (digit << 2);
        }
        if self.full {
            c
        } else {
            let mut p: u64 = 0;
            for s in 0..self.j_leaf {
                let pair = (q >> (2 * (self.j_leaf - 1 - s))) & 3;
                p |= pair << (6 - 2 * s);
            }
            (c << 8) | p
        }
    }

    fn addr_hex(&self, l: u64) -> String {
        let w = 2 * (self.layers as usize + self.p_bytes());
        format!("0x{l:0w$X}")
    }
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Ok(p) = Params::from_spec(&t.spec) else {
        return Vec::new();
    };
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let l = host.addr;
    let cb = p.layers as usize;
    let (c, pv) = canopy_dataplane::build::transit::split_addr(l, cb, p.p_bytes());
    let mut rows = vec![("L = C·P".to_string(), p.addr_hex(l))];
    let c_hex: String = c.iter().map(|b| format!("{b:02X}")).collect();
    rows.push((
        "C".to_string(),
        format!("0x{c_hex} ({cb} byte(s), top layer first; bits 1:0 of each byte unused = 0)"),
    ));
    for (i, b) in c.iter().enumerate() {
        let layer = cb - i;
        rows.push((
            format!("C layer {layer}"),
            format!(
                "{b:#04x}: top {} middle {} bottom {} (bottom direction {})",
                b >> 6,
                (b >> 4) & 3,
                (b >> 2) & 3,
                b >> 2
            ),
        ));
    }
    let n_leaf = p.n_leaf();
    if p.full {
        rows.push((
            "UT64x2".to_string(),
            format!(
                "ut1.{}.0, bottom direction {} (processor {} of 64)",
                host.index / 64,
                host.index % 64,
                host.index % 64
            ),
        ));
    } else {
        let pb = pv[0];
        let pairs: Vec<String> = (0..p.j_leaf)
            .map(|s| format!("{:02b}", (pb >> (6 - 2 * s)) & 3))
            .collect();
        rows.push((
            "P".to_string(),
            format!(
                "{pb:#04x}: cluster path {} (B{n_leaf}, {} stages)",
                pairs.join(" "),
                p.j_leaf
            ),
        ));
        rows.push((
            "cluster".to_string(),
            format!(
                "b{} (processor {} of {n_leaf})",
                host.index / n_leaf,
                host.index % n_leaf
            ),
        ));
    }
    rows
}

/// Family-specific host syntax: `0x…` hexadecimal L = C·P (unused bits ignored).
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    Some(parse_addr(t, s, hex))
}

fn parse_addr(t: &Topology, s: &str, hex: &str) -> Result<u32, TopoError> {
    let p = Params::from_spec(&t.spec)?;
    let bad = |why| TopoError::bad_host(t, s, why);
    let l = u64::from_str_radix(hex, 16).map_err(|_| bad(HostError::NotHex(s.to_string())))?;
    let x = p.index_of(l).map_err(bad)?;
    if x < t.hosts.len() as u64 && t.hosts[x as usize].index == x {
        Ok(x as u32)
    } else {
        Err(bad(HostError::NoProcessorAt(l)))
    }
}
