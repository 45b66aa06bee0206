//! Transit fat-trees of RN1 chips (seed 004, DeHon 1990; notes §2-§4), built at chip
//! level: every RN1 is a switch with 8 input ports (0..8) and 8 output ports (8..16),
//! every channel a one-way link, every chip configured (mode, per-input swallow,
//! per-output link rotation) as the notes derive (§3.2-§3.3, §4.7-§4.10).
//!
//! Families:
//! * `transit-full:layers=U` (U = 1..=3): 64^U processors on UT64x2 unit trees (layer
//!   1) under UT64x8 layers 2..U (Eq 3.8-3.10).
//! * `transit-hybrid:leaf=12|48|192;layers=U` (U = 1..=2, at most 1.2 M chips):
//!   bidelta leaf clusters B12/B48/B192 (j = 2/3/4 stages) under U UT64x8 layers
//!   (Eq 4.24-4.29), 64^U clusters.
//!
//! Unit tree (UT64x8; UT64x2 is the same scaled by 4, notes §4.7):
//! * up stage: 16 groups (one per bottom node) of 4 chips; group g takes the 4 bottom
//!   directions 4g..4g+3 (8 channels each, 2 per chip). Directions: 00 → bottom node g
//!   (lateral), 01 → middle node g/4, 10 → top node, 11 → next layer's up stage.
//! * down stages: top (32 chips; 128 lateral + 128 from above) → 4 middle nodes (12
//!   chips; 32 lateral + 64 from top) → 16 bottom nodes (4 chips; 8 lateral + 24 from
//!   middle) → the 64 bottom directions (8 channels each).
//! * Node inputs are filled round-robin over the node's chips, laterals first, so
//!   laterals are spread evenly and the two outputs of a direction of one chip always
//!   reach two different chips (full dispersion, §2.3).
//! * UT64x2 up and bottom stages: chips in pairs (2a, 2a+1), split mode; half h of both
//!   chips serves node 2a+h, so each processor's two inputs and two outputs sit on two
//!   different chips (seed L2006-2032). Middle/top are dilated (3 and 8 chips).
//!
//! Layers: a subtree at layer u is served by W_u parallel unit trees (hybrid
//! W_1 = Nleaf/12, full W_1 = 1); unit tree (s, r) sends top bundle b (8 channels up,
//! 8 down) to unit tree (s/64, nb·r + b) of layer u+1 at bottom direction s mod 64
//! (nb = 16 top bundles for UT64x8, 4 for UT64x2), so W_{u+1} = nb·W_u (§4.8).
//!
//! Leaf cluster B_Nleaf with j stages: stage 1 has 4^(j−1) dilated chips, inputs 0..5
//! from processors (processor q's input e is node input 2q+e, so its two inputs are on
//! different chips), inputs 6, 7 from the fat-tree (swallow); direction 11 → the
//! fat-tree, 00/01/10 → three sub-networks. Stage s ≥ 2 groups by the prefix
//! p_1..p_{s−1} (4^(j−s) chips each); the last stage is split: group g uses half 0
//! of chip g and half 1 of chip g+1 (mod 3·4^(j−2)), so each processor's two outputs
//! come from two chips (seed L629-635).
//!
//! Rotation (2-bit units) on each link: +1, except +2 after a unit tree's bottom down
//! stage and (3 − p − u) mod 4 (hybrid) / (4 − p − u) mod 4 (full) on the crossover
//! from the up stage of layer u to down stage p (1 bottom, 2 middle, 3 top) (notes
//! §3.2 invariant 4). Swallow: lateral inputs, top-stage inputs from above, cluster
//! fat-tree inputs, and up-stage inputs of layers 4, 8, … (hybrid) / 5, 9, … (full)
//! (notes §3.3).
//!
//! Port roles for the oracle: cluster direction 11 and up-stage direction 11 are `Up`,
//! crossovers are `Side`, everything else (down stages, cluster stages towards a
//! processor) is `Down`; so every path is up*·side?·down*.
//!
//! `Switch::transit` holds each chip's [`TransitTable`], decoded against an empty
//! `SwitchTables` (its direction groups are interned from id 0); `kinds::transit::tables`
//! decodes the same configuration into each switch's own `SwitchTables`.
//!
//! Levels (`Switch::level`): full fat-tree: up and bottom stages of layer u at tree
//! level 3u−2, middle 3u−1, top 3u. Hybrid: cluster chips 1, then tree level + 1
//! (up and bottom 3u−1, middle 3u, top 3u+1). Host index = cluster·Nleaf + q
//! (hybrid) or x (full), in the order of L = C·P.

use super::{End, HostError, PortRole, PortSpec, TopoError, Topology};
use crate::spec::Spec;
use canopy_dataplane::table::transit::{OutputCfg, Rn1Config, Rn1Mode, TransitTable, OUT_BASE};
use canopy_dataplane::table::SwitchTables;

/// Most RN1 chips a spec may ask for (the seed's 786,432-processor example has
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

/// One channel end: a switch/host port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pt {
    end: End,
    port: u16,
}

impl Pt {
    fn chip_in(chip: u32, i: u16) -> Pt {
        Pt {
            end: End::Switch(chip),
            port: i,
        }
    }
    fn chip_out(chip: u32, o: u16) -> Pt {
        Pt {
            end: End::Switch(chip),
            port: OUT_BASE + o,
        }
    }
}

/// A crossbar unit: a whole dilated chip or one half of a split chip.
#[derive(Debug, Clone, Copy)]
struct Unit {
    chip: u32,
    half: Option<u16>,
}

impl Unit {
    fn whole(chip: u32) -> Unit {
        Unit { chip, half: None }
    }
    fn slots(&self) -> usize {
        if self.half.is_some() {
            4
        } else {
            8
        }
    }
    fn input(&self, slot: usize) -> Pt {
        Pt::chip_in(self.chip, 4 * self.half.unwrap_or(0) + slot as u16)
    }
    fn outs(&self, d: u16, v: &mut Vec<Pt>) {
        match self.half {
            None => {
                v.push(Pt::chip_out(self.chip, d));
                v.push(Pt::chip_out(self.chip, d + 4));
            }
            Some(h) => v.push(Pt::chip_out(self.chip, 4 * h + d)),
        }
    }
}

/// A logical node: units sharing a direction map. Inputs are filled round-robin.
#[derive(Debug, Clone)]
struct Node(Vec<Unit>);

impl Node {
    fn inputs(&self) -> Vec<Pt> {
        let n = self.0.len();
        let per = self.0[0].slots();
        (0..n * per).map(|i| self.0[i % n].input(i / n)).collect()
    }
    fn outs(&self, d: u16) -> Vec<Pt> {
        let mut v = Vec::with_capacity(2 * self.0.len());
        for u in &self.0 {
            u.outs(d, &mut v);
        }
        v
    }
}

/// How a set of channels is configured.
#[derive(Debug, Clone, Copy)]
struct Link {
    rot: u8,
    out_role: PortRole,
    in_role: PortRole,
    swallow: bool,
}

impl Link {
    fn new(rot: u8, out_role: PortRole, in_role: PortRole, swallow: bool) -> Link {
        Link {
            rot,
            out_role,
            in_role,
            swallow,
        }
    }
}

/// Interfaces of one unit tree.
struct UtIf {
    /// Per bottom direction: inputs into the up stage.
    bot_in: Vec<Vec<Pt>>,
    /// Per bottom direction: outputs of the bottom down stage.
    bot_out: Vec<Vec<Pt>>,
    /// Per top bundle: up-stage direction-11 outputs.
    top_out: Vec<Vec<Pt>>,
    /// Per top bundle: top-stage inputs from above.
    top_in: Vec<Vec<Pt>>,
}

/// Interfaces of one leaf cluster.
struct ClusterIf {
    /// Fat-tree-bound outputs (stage 1 direction 11), channel order.
    up: Vec<Pt>,
    /// Fat-tree inputs of stage 1 (swallowing), channel order.
    down: Vec<Pt>,
}

struct Gen {
    p: Params,
    t: Topology,
    cfg: Vec<Rn1Config>,
}

impl Gen {
    fn chip(&mut self, name: String, level: u32, zone: u64, index: u32, mode: Rn1Mode) -> u32 {
        let id = self.t.add_switch(name, level as u16, 0, zone, index);
        self.t.reserve_ports(End::Switch(id), 16);
        self.cfg.push(Rn1Config {
            mode,
            ..Default::default()
        });
        id
    }

    fn connect(&mut self, src: &[Pt], dst: &[Pt], l: Link) {
        debug_assert_eq!(src.len(), dst.len(), "generator: channel counts differ");
        for (s, d) in src.iter().zip(dst) {
            let out = match s.end {
                End::Switch(c) => {
                    let o = s.port - OUT_BASE;
                    let cfg = &mut self.cfg[c as usize];
                    cfg.outputs[usize::from(o)] = OutputCfg {
                        connected: true,
                        rot: l.rot,
                        delay: 0,
                    };
                    let group = match cfg.mode {
                        Rn1Mode::Dilated => u32::from(o % 4),
                        Rn1Mode::Split => u32::from(o),
                    };
                    PortSpec {
                        role: l.out_role,
                        label: u32::from(o % 4),
                        group,
                    }
                }
                End::Host(_) => PortSpec::up(),
            };
            let inp = match d.end {
                End::Switch(c) => {
                    self.cfg[c as usize].swallow[usize::from(d.port)] = l.swallow;
                    PortSpec {
                        role: l.in_role,
                        label: 0,
                        group: 0,
                    }
                }
                End::Host(_) => PortSpec::up(),
            };
            self.t.channel(s.end, s.port, out, d.end, d.port, inp);
        }
    }

    /// Rotation of the crossover from the up stage of layer `u` to down stage `p`.
    fn lat_rot(&self, u: u32, p: u32) -> u8 {
        let base: i64 = if self.p.full { 4 } else { 3 };
        (base - i64::from(p) - i64::from(u)).rem_euclid(4) as u8
    }

    /// Whether the up stage of layer `u` swallows on its inputs (notes §3.3).
    fn up_swallow(&self, u: u32) -> bool {
        if self.p.full {
            u >= 5 && (u - 5).is_multiple_of(4)
        } else {
            u.is_multiple_of(4)
        }
    }

    /// Build one unit tree of layer `u` (UT64x2 if `x2`) for subtree `s`, replica `r`.
    fn unit_tree(&mut self, u: u32, s: u64, r: u64, x2: bool) -> UtIf {
        let f: usize = if x2 { 1 } else { 4 }; // scale: chips per group
        let (lv_up, lv_mid, lv_top) = if self.p.full {
            (3 * u - 2, 3 * u - 1, 3 * u)
        } else {
            (3 * u - 1, 3 * u, 3 * u + 1)
        };
        let zone = s;
        let base = format!("ut{u}.{s}.{r}");
        let mut idx = 0u32;
        let mut next = |g: &mut Gen, what: String, lv: u32, mode: Rn1Mode| {
            let c = g.chip(format!("{base}.{what}"), lv, zone, idx, mode);
            idx += 1;
            c
        };
        // Up stage and bottom down stage: 16 groups/nodes.
        let mut up_nodes = Vec::with_capacity(16);
        let mut bot_nodes = Vec::with_capacity(16);
        if x2 {
            let mut up_chips = Vec::new();
            let mut bot_chips = Vec::new();
            for q in 0..16 {
                up_chips.push(next(self, format!("up{q}"), lv_up, Rn1Mode::Split));
            }
            for q in 0..16 {
                bot_chips.push(next(self, format!("bot{q}"), lv_up, Rn1Mode::Split));
            }
            for g in 0..16usize {
                let pair = 2 * (g / 2);
                let half = Some((g % 2) as u16);
                up_nodes.push(Node(
                    (0..2)
                        .map(|x| Unit {
                            chip: up_chips[pair + x],
                            half,
                        })
                        .collect(),
                ));
                bot_nodes.push(Node(
                    (0..2)
                        .map(|x| Unit {
                            chip: bot_chips[pair + x],
                            half,
                        })
                        .collect(),
                ));
            }
        } else {
            for g in 0..16 {
                let v = (0..4)
                    .map(|i| {
                        Unit::whole(next(
                            self,
                            format!("up{}", 4 * g + i),
                            lv_up,
                            Rn1Mode::Dilated,
                        ))
                    })
                    .collect();
                up_nodes.push(Node(v));
            }
            for g in 0..16 {
                let v = (0..4)
                    .map(|i| {
                        Unit::whole(next(self, format!("bot{g}.{i}"), lv_up, Rn1Mode::Dilated))
                    })
                    .collect();
                bot_nodes.push(Node(v));
            }
        }
        let mid_n = 3 * f;
        let mut mid_nodes = Vec::with_capacity(4);
        for m in 0..4 {
            let v = (0..mid_n)
                .map(|i| Unit::whole(next(self, format!("mid{m}.{i}"), lv_mid, Rn1Mode::Dilated)))
                .collect();
            mid_nodes.push(Node(v));
        }
        let top = Node(
            (0..8 * f)
                .map(|i| Unit::whole(next(self, format!("top{i}"), lv_top, Rn1Mode::Dilated)))
                .collect(),
        );
        // Laterals (Side, swallowing) and internal down links.
        let side = |rot| Link::new(rot, PortRole::Side, PortRole::Side, true);
        let down = |rot, swallow| Link::new(rot, PortRole::Down, PortRole::Up, swallow);
        let lat_bot = 2 * f; // lateral channels into a bottom node
        let lat_mid = 8 * f;
        let lat_top = 32 * f;
        let top_in = top.inputs();
        let mut top_lat = Vec::with_capacity(lat_top);
        for g in 0..16 {
            let bin = bot_nodes[g].inputs();
            self.connect(
                &up_nodes[g].outs(0),
                &bin[..lat_bot],
                side(self.lat_rot(u, 1)),
            );
            top_lat.extend(up_nodes[g].outs(2));
        }
        for (m, mn) in mid_nodes.iter().enumerate() {
            let lat: Vec<Pt> = (4 * m..4 * m + 4)
                .flat_map(|g| up_nodes[g].outs(1))
                .collect();
            let min = mn.inputs();
            self.connect(&lat, &min[..lat_mid], side(self.lat_rot(u, 2)));
            self.connect(&top.outs(m as u16), &min[lat_mid..], down(1, false));
            for d in 0..4usize {
                let bin = bot_nodes[4 * m + d].inputs();
                self.connect(&mn.outs(d as u16), &bin[lat_bot..], down(1, false));
            }
        }
        self.connect(&top_lat, &top_in[..lat_top], side(self.lat_rot(u, 3)));
        // Interfaces.
        let per_dir = 2 * f; // channels per bottom direction
        let mut bot_in = Vec::with_capacity(64);
        let mut bot_out = Vec::with_capacity(64);
        for g in 0..16 {
            let ins = up_nodes[g].inputs();
            for d in 0..4usize {
                bot_in.push(ins[per_dir * d..per_dir * (d + 1)].to_vec());
                bot_out.push(bot_nodes[g].outs(d as u16));
            }
        }
        let nb = if x2 { 4 } else { 16 };
        let ups: Vec<Pt> = up_nodes.iter().flat_map(|n| n.outs(3)).collect();
        let mut top_out = vec![Vec::with_capacity(8); nb];
        for (k, p) in ups.into_iter().enumerate() {
            top_out[k % nb].push(p);
        }
        let mut top_from_above = vec![Vec::with_capacity(8); nb];
        for (k, p) in top_in[lat_top..].iter().enumerate() {
            top_from_above[k % nb].push(*p);
        }
        UtIf {
            bot_in,
            bot_out,
            top_out,
            top_in: top_from_above,
        }
    }

    /// Build leaf cluster `c` and connect its processors (hosts c·Nleaf..).
    fn cluster(&mut self, c: u64) -> ClusterIf {
        let j = self.p.j_leaf;
        let m1 = 4usize.pow(j - 1);
        let mut idx = 0u32;
        let mut next = |g: &mut Gen, stage: u32, i: usize, mode| {
            let ch = g.chip(format!("b{c}.s{stage}.{i}"), 1, c, idx, mode);
            idx += 1;
            ch
        };
        let s1 = Node(
            (0..m1)
                .map(|i| Unit::whole(next(self, 1, i, Rn1Mode::Dilated)))
                .collect(),
        );
        let n_leaf = self.p.n_leaf();
        let host0 = (c * n_leaf) as u32;
        let s1_in = s1.inputs();
        // Processor q's output e (host port e) -> stage-1 node input 2q + e.
        let proc_out: Vec<Pt> = (0..n_leaf as u32)
            .flat_map(|q| {
                (0..2).map(move |e| Pt {
                    end: End::Host(host0 + q),
                    port: e,
                })
            })
            .collect();
        self.connect(
            &proc_out,
            &s1_in[..6 * m1],
            Link::new(0, PortRole::Up, PortRole::Down, false),
        );
        // Stages 2..=j.
        let mut prev: Vec<Node> = vec![s1.clone()];
        let mut prev_dirs = 3u16; // directions of the previous stage that stay inside
        for s in 2..=j {
            let groups = 3 * 4usize.pow(s - 2);
            let last = s == j;
            let mut nodes = Vec::with_capacity(groups);
            if last {
                let chips: Vec<u32> = (0..groups)
                    .map(|i| next(self, s, i, Rn1Mode::Split))
                    .collect();
                for g in 0..groups {
                    nodes.push(Node(vec![
                        Unit {
                            chip: chips[g],
                            half: Some(0),
                        },
                        Unit {
                            chip: chips[(g + 1) % groups],
                            half: Some(1),
                        },
                    ]));
                }
            } else {
                let per = 4usize.pow(j - s);
                let mut i = 0;
                for _ in 0..groups {
                    let v = (0..per)
                        .map(|_| {
                            let ch = next(self, s, i, Rn1Mode::Dilated);
                            i += 1;
                            Unit::whole(ch)
                        })
                        .collect();
                    nodes.push(Node(v));
                }
            }
            for (x, pn) in prev.iter().enumerate() {
                for d in 0..prev_dirs {
                    let target = if s == 2 {
                        usize::from(d)
                    } else {
                        4 * x + usize::from(d)
                    };
                    self.connect(
                        &pn.outs(d),
                        &nodes[target].inputs(),
                        Link::new(1, PortRole::Down, PortRole::Up, false),
                    );
                }
            }
            prev = nodes;
            prev_dirs = 4;
        }
        // Last stage -> processors: group g direction d -> processor 4g + d, port 2 + e.
        for (g, n) in prev.iter().enumerate() {
            for d in 0..4u16 {
                let q = (4 * g) as u32 + u32::from(d);
                let dst: Vec<Pt> = (0..2)
                    .map(|e| Pt {
                        end: End::Host(host0 + q),
                        port: 2 + e,
                    })
                    .collect();
                self.connect(
                    &n.outs(d),
                    &dst,
                    Link::new(1, PortRole::Down, PortRole::Up, false),
                );
            }
        }
        ClusterIf {
            up: s1.outs(3),
            down: s1_in[6 * m1..].to_vec(),
        }
    }

    fn finish(mut self) -> Result<Topology, TopoError> {
        let mut scratch = SwitchTables::new("", Vec::new());
        for (i, cfg) in self.cfg.iter().enumerate() {
            scratch.groups.clear();
            let tt = TransitTable::new(*cfg, &mut scratch).map_err(|e| TopoError::Invalid {
                spec: self.t.spec.to_string(),
                why: format!("switch {}: {e}", self.t.switches[i].name),
            })?;
            self.t.switches[i].transit = Some(tt);
        }
        Ok(self.t)
    }
}

/// Build from a spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    let p = Params::from_spec(spec)?;
    let mut g = Gen {
        p,
        t: Topology::new(spec.clone()),
        cfg: Vec::with_capacity(p.chips() as usize),
    };
    g.t.switches.reserve(p.chips() as usize);
    let n_hosts = p.processors();
    g.t.hosts.reserve(n_hosts as usize);
    for x in 0..n_hosts {
        let h = g.t.add_host(x, p.addr_of(x));
        g.t.reserve_ports(End::Host(h), 4);
    }
    let up_in = |g: &Gen, u: u32| Link::new(1, PortRole::Up, PortRole::Down, g.up_swallow(u));
    let from_above = Link::new(2, PortRole::Down, PortRole::Up, true);
    // Layer 1.
    let w1 = p.width(1);
    let subtrees1 = 64u64.pow(p.layers - 1);
    let mut lower: Vec<UtIf> = Vec::with_capacity((subtrees1 * w1) as usize);
    for s in 0..subtrees1 {
        for r in 0..w1 {
            lower.push(g.unit_tree(1, s, r, p.full));
        }
    }
    if p.full {
        // Processor x: UT64x2 (x/64) bottom direction x mod 64, one channel per port.
        for x in 0..n_hosts {
            let ut = &lower[(x / 64) as usize];
            let d = (x % 64) as usize;
            let (ins, outs) = (ut.bot_in[d].clone(), ut.bot_out[d].clone());
            let h = x as u32;
            let hout: Vec<Pt> = (0..2)
                .map(|e| Pt {
                    end: End::Host(h),
                    port: e,
                })
                .collect();
            let hin: Vec<Pt> = (0..2)
                .map(|e| Pt {
                    end: End::Host(h),
                    port: 2 + e,
                })
                .collect();
            g.connect(
                &hout,
                &ins,
                Link::new(0, PortRole::Up, PortRole::Down, false),
            );
            g.connect(
                &outs,
                &hin,
                Link::new(2, PortRole::Down, PortRole::Up, false),
            );
        }
    }
    let layer1: Vec<UtIf>;
    // Upper layers, each connected to the one below.
    {
        let mut first: Option<Vec<UtIf>> = None;
        for u in 2..=p.layers {
            let w = p.width(u);
            let w_low = p.width(u - 1);
            let subtrees = 64u64.pow(p.layers - u);
            let nb = if p.full && u == 2 { 4 } else { 16 };
            let mut upper: Vec<UtIf> = Vec::with_capacity((subtrees * w) as usize);
            for s in 0..subtrees {
                for r in 0..w {
                    upper.push(g.unit_tree(u, s, r, false));
                }
            }
            for (li, lut) in lower.iter().enumerate() {
                let (s, r) = (li as u64 / w_low, li as u64 % w_low);
                for b in 0..nb {
                    let ui = (s / 64) * w + nb as u64 * r + b as u64;
                    let d = (s % 64) as usize;
                    let uut = &upper[ui as usize];
                    let (bin, bout) = (uut.bot_in[d].clone(), uut.bot_out[d].clone());
                    let (tout, tin) = (lut.top_out[b].clone(), lut.top_in[b].clone());
                    g.connect(&tout, &bin, up_in(&g, u));
                    g.connect(&bout, &tin, from_above);
                }
            }
            if first.is_none() {
                first = Some(std::mem::replace(&mut lower, upper));
            } else {
                lower = upper;
            }
        }
        layer1 = first.unwrap_or(lower);
    }
    if !p.full {
        let n_clusters = 64u64.pow(p.layers);
        for c in 0..n_clusters {
            let ci = g.cluster(c);
            let s1 = c / 64;
            let d = (c % 64) as usize;
            for (k, pt) in ci.up.iter().enumerate() {
                let (r, t) = (k as u64 % w1, k as u64 / w1);
                let ut = &layer1[(s1 * w1 + r) as usize];
                let dst = ut.bot_in[d][t as usize];
                g.connect(&[*pt], &[dst], up_in(&g, 1));
            }
            for (k, pt) in ci.down.iter().enumerate() {
                let (r, t) = (k as u64 % w1, k as u64 / w1);
                let ut = &layer1[(s1 * w1 + r) as usize];
                let src = ut.bot_out[d][t as usize];
                g.connect(&[src], &[*pt], from_above);
            }
        }
    }
    g.finish()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{build_str, Peer, PortDir};

    #[test]
    fn chip_counts_match_tables_4_4_and_4_6() {
        // Table 4.4 (L4677-4687): 64 -> 52, 4096 -> 4160, 262144 -> 279552 RN1s.
        // Table 4.6 (L4759-4775): 768 -> 656, 3072 -> 3392, 12288 -> 16640,
        // 49152 -> 45312, 196608 -> 230400, 786432 -> 1118208.
        let cases = [
            ("transit-full:layers=1", 64, 52),
            ("transit-full:layers=2", 4096, 4160),
            ("transit-full:layers=3", 262_144, 279_552),
            ("transit-hybrid:leaf=12;layers=1", 768, 656),
            ("transit-hybrid:leaf=48;layers=1", 3072, 3392),
            ("transit-hybrid:leaf=192;layers=1", 12_288, 16_640),
            ("transit-hybrid:leaf=12;layers=2", 49_152, 45_312),
            ("transit-hybrid:leaf=48;layers=2", 196_608, 230_400),
            ("transit-hybrid:leaf=192;layers=2", 786_432, 1_118_208),
        ];
        for (s, np, nc) in cases {
            let p = Params::from_spec(&s.parse().unwrap()).unwrap();
            assert_eq!((p.processors(), p.chips()), (np, nc), "{s}");
        }
        // and the built graphs of the small ones have exactly that many chips
        for (s, np, nc) in &cases[..4] {
            if *np > 5000 {
                continue;
            }
            let t = build_str(s).unwrap();
            assert_eq!((t.hosts.len() as u64, t.switches.len() as u64), (*np, *nc));
        }
    }

    #[test]
    fn graph_contract_and_full_wiring() {
        for s in ["transit-full:layers=1", "transit-hybrid:leaf=12;layers=1"] {
            let t = build_str(s).unwrap();
            t.validate().unwrap();
            // every processor has 2 outputs and 2 inputs, on distinct chips
            for (hi, h) in t.hosts.iter().enumerate() {
                let chips: Vec<u32> = h
                    .ports
                    .iter()
                    .map(|p| match p.peer {
                        Peer::Switch { sw, .. } => sw,
                        _ => panic!("{s}: host {hi} port unconnected"),
                    })
                    .collect();
                assert_eq!(h.ports[0].dir, PortDir::Out);
                assert_eq!(h.ports[2].dir, PortDir::In);
                assert_ne!(chips[0], chips[1], "{s}: h{hi} inputs on one chip");
                assert_ne!(chips[2], chips[3], "{s}: h{hi} outputs on one chip");
            }
            // every chip input is connected; outputs unconnected only for 11 at the root
            for sw in &t.switches {
                for (i, p) in sw.ports.iter().enumerate() {
                    if i < 8 {
                        assert!(
                            sw.name.contains(".top") || p.peer != Peer::None,
                            "{s}: {} input {i} unconnected",
                            sw.name
                        );
                    } else if p.peer == Peer::None {
                        assert!(
                            sw.name.contains(".up") && (i - 8) % 4 == 3,
                            "{s}: {} output {} unconnected",
                            sw.name,
                            i - 8
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn full_dispersion() {
        // L1156-1200: "The pair of outputs from the same direction of a single chip at a
        // previous level always go to different routing components."
        for s in [
            "transit-full:layers=2",
            "transit-hybrid:leaf=12;layers=1",
            "transit-hybrid:leaf=48;layers=1",
        ] {
            let t = build_str(s).unwrap();
            let mut pairs = 0;
            for sw in &t.switches {
                if sw.transit.as_ref().map(|x| x.config.mode) != Some(Rn1Mode::Dilated) {
                    continue;
                }
                for d in 0..4 {
                    let (a, b) = (sw.ports[8 + d].peer, sw.ports[12 + d].peer);
                    if let (Peer::Switch { sw: x, .. }, Peer::Switch { sw: y, .. }) = (a, b) {
                        assert_ne!(x, y, "{s}: {} direction {d}", sw.name);
                        pairs += 1;
                    }
                }
            }
            assert!(pairs > 100, "{s}: {pairs}");
        }
    }

    #[test]
    fn addresses_roundtrip_and_seed_forms() {
        let p = Params::from_spec(&"transit-hybrid:leaf=192;layers=2".parse().unwrap()).unwrap();
        // Seed L3398: L1 = 0xCC0234 (unused bits 10 in C's low byte are ignored).
        let x = p.index_of(0xCC0234).unwrap();
        assert_eq!(x, (51 * 64) * 192 + 52);
        assert_eq!(p.addr_of(x), 0xCC0034);
        assert_eq!(p.index_of(0xD84267).unwrap(), (54 * 64 + 16) * 192 + 103);
        assert!(p
            .index_of(0xCC02F4)
            .unwrap_err()
            .to_string()
            .contains("pair 11"));
        assert!(p
            .index_of(0x1CC0234)
            .unwrap_err()
            .to_string()
            .contains("longer"));
        for x in [0u64, 1, 191, 192, 786_431, 12_345] {
            assert_eq!(p.index_of(p.addr_of(x)).unwrap(), x);
        }
        let f = Params::from_spec(&"transit-full:layers=2".parse().unwrap()).unwrap();
        assert_eq!(f.addr_of(4095), 0xFCFC);
        assert_eq!(f.index_of(0x1000).unwrap(), 4 * 64);
        let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
        // B12: P uses 2 pairs (p1 in 0..3, p2 in 0..4): processor 7 = pairs 01 11 -> 0x70.
        assert_eq!(t.hosts[7].addr, 0x0070);
        assert_eq!(parse_host(&t, "0x0470"), Some(Ok(12 + 7)));
        assert!(parse_host(&t, "0xzz").unwrap().is_err());
        assert_eq!(parse_host(&t, "h3"), None);
        let rows = describe_host(&t, 19);
        assert!(rows
            .iter()
            .any(|(k, v)| k == "cluster" && v.starts_with("b1 ")));
    }

    proptest::proptest! {
        #[test]
        fn host_strings_never_panic_and_addresses_roundtrip(s in "(0x)?[0-9a-fA-FxX]{0,12}", x in 0u64..768, l in 0u64..0x1_0000, big in proptest::prelude::any::<u64>()) {
            let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
            let _ = parse_host(&t, &s);
            let p = Params::from_spec(&t.spec).unwrap();
            proptest::prop_assert_eq!(p.index_of(p.addr_of(x)), Ok(x));
            if let Ok(i) = p.index_of(l) {
                proptest::prop_assert!(i < p.processors());
                // the canonical address differs from l only in unused bits (C bits
                // 1:0, and P pairs 3-4 of a 2-stage B12 cluster)
                proptest::prop_assert_eq!(p.addr_of(i), l & !0x030F);
            }
            let _ = p.index_of(big);
        }
    }

    #[test]
    fn spec_errors_name_the_parameter() {
        let e = build_str("transit-hybrid:leaf=13;layers=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`leaf`") && e.contains("12, 48 or 192"), "{e}");
        let e = build_str("transit-hybrid:leaf=192;layers=3")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`layers`") && e.contains("RN1 chips"), "{e}");
        let e = build_str("transit-full:layers=4").unwrap_err().to_string();
        assert!(e.contains("`layers`"), "{e}");
        let e = build_str("transit-full:layers=0").unwrap_err().to_string();
        assert!(e.contains("`layers`") && e.contains("out of range"), "{e}");
        let e = build_str("transit-full:leaf=12;layers=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`leaf` is not a parameter"), "{e}");
        let e = build_str("transit-hybrid:layers=1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`leaf` is required"), "{e}");
    }
}
