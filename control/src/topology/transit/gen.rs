//! The generator: RN1 chips, unit trees, leaf clusters and the channels between them,
//! each chip configured as the module docs of [`super`] describe.

use super::Params;
use crate::spec::Spec;
use crate::topology::{End, PortRole, PortSpec, TopoError, Topology};
use canopy_dataplane::table::transit::{OutputCfg, Rn1Config, Rn1Mode, TransitTable, OUT_BASE};
use canopy_dataplane::table::SwitchTables;

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

    /// Whether the up stage of layer `u` swallows on its inputs (docs/transit.md §3).
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
