//! The plan of a topology: everything path IDs need, computed once from the graph —
//! switch ranks, distinct up and down neighbours, zones, route and DP counts, and the
//! field widths they give; and the desired paths between two hosts.

use super::{id_bits, id_bits_detail, unsupported, KIND};
use crate::kinds::KindError;
use crate::topology::{Peer, PortDir, PortRole, Topology};
use canopy_dataplane::build::pathid::{ceil_log2, PathFields, PathIdLayout};
use std::collections::HashMap;

/// One distinct neighbour switch and the ports that reach it ([`Plan::hop_ports`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Neighbour switch.
    pub sw: u32,
    start: u32,
    len: u32,
}

/// Most leaf-count entries [`Plan::new`] keeps while counting routes (about 16 bytes
/// each): deep or wide trees whose route counting would need gigabytes are refused.
pub const MAX_PLAN_ENTRIES: u64 = 1 << 26;

/// Everything about a topology that path IDs need, computed once.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Field widths.
    pub layout: PathIdLayout,
    /// Number of levels L.
    pub levels: u16,
    /// Rank of each switch in its level.
    pub seq: Vec<u32>,
    /// Distinct up neighbours of each switch, in port order.
    pub parents: Vec<Vec<Hop>>,
    /// Distinct down-neighbour switches of each switch (DP_s), in port order.
    pub children: Vec<Vec<Hop>>,
    /// Port lists of all hops.
    arena: Vec<u16>,
    /// Zone id of each switch.
    pub zone: Vec<u32>,
    /// Parent zone of each zone (`u32::MAX` for the top zone).
    pub zone_parent: Vec<u32>,
    /// Level of each zone.
    pub zone_level: Vec<u16>,
    /// Number of child zones of each zone.
    pub zone_kids: Vec<u32>,
    /// Switches of each zone, in switch order.
    pub zone_members: Vec<Vec<u32>>,
    /// Leaf switch, its port and the host label of each host.
    pub host_at: Vec<(u32, u16, u32)>,
    /// Whether any desired path has type t.
    pub types_used: Vec<bool>,
    /// Largest route count per type (`|R|` before the log).
    pub max_routes: Vec<u64>,
    /// Largest DP count per level l at index l − 2.
    pub max_dp: Vec<u64>,
}

/// Structural checks shared by [`supports`](super::supports) and [`Plan::new`]: single-homed hosts on
/// level-1 down ports, duplex up/down links between adjacent levels, no side links.
pub(super) fn check_shape(t: &Topology) -> Result<u16, KindError> {
    let levels = t.levels();
    if levels < 2 {
        return Err(unsupported(
            t,
            "path IDs need at least two switch levels (an L-level tree with L >= 2)",
        ));
    }
    for (hi, h) in t.hosts.iter().enumerate() {
        let conn: Vec<_> = h.ports.iter().filter(|p| p.peer != Peer::None).collect();
        if conn.len() != 1 {
            return Err(unsupported(
                t,
                format!(
                    "host {} has {} links; path IDs start at the source's one leaf switch \
                     (path IDs name paths between edge switches), so hosts must be single-homed",
                    t.host_name(hi as u32),
                    conn.len()
                ),
            ));
        }
        match conn[0].peer {
            Peer::Switch { sw, port } => {
                let s = &t.switches[sw as usize];
                if s.level != 1 || s.ports[usize::from(port)].role != PortRole::Down {
                    return Err(unsupported(
                        t,
                        format!("host h{hi} must hang on a level-1 down port ({})", s.name),
                    ));
                }
            }
            _ => {
                return Err(unsupported(
                    t,
                    format!("host h{hi} is not linked to a switch"),
                ))
            }
        }
    }
    for s in &t.switches {
        if s.level == 0 {
            return Err(unsupported(t, format!("{} has level 0", s.name)));
        }
        for (pi, p) in s.ports.iter().enumerate() {
            if p.peer == Peer::None {
                continue;
            }
            if p.dir != PortDir::Duplex {
                return Err(unsupported(
                    t,
                    format!(
                        "{} p{pi} is a one-way channel; path IDs need duplex links",
                        s.name
                    ),
                ));
            }
            match (p.role, p.peer) {
                (PortRole::Side, _) => {
                    return Err(unsupported(
                        t,
                        format!(
                            "{} p{pi} is a side link; path IDs are for multi-rooted trees, which have none",
                            s.name
                        ),
                    ))
                }
                (PortRole::Up, Peer::Switch { sw, .. }) => {
                    if t.switches[sw as usize].level != s.level + 1 {
                        return Err(unsupported(
                            t,
                            format!("{} p{pi}: an up link must go one level up", s.name),
                        ));
                    }
                }
                (PortRole::Down, Peer::Switch { sw, .. }) => {
                    if t.switches[sw as usize].level + 1 != s.level {
                        return Err(unsupported(
                            t,
                            format!("{} p{pi}: a down link must go one level down", s.name),
                        ));
                    }
                }
                (PortRole::Down, Peer::Host { .. }) if s.level == 1 => {}
                _ => {
                    return Err(unsupported(
                        t,
                        format!("{} p{pi}: unexpected {:?} port", s.name, p.role),
                    ))
                }
            }
        }
    }
    Ok(levels)
}

/// Distinct neighbour switches through ports of `role`, in order of their first port;
/// their ports go to `arena`.
fn hops(
    t: &Topology,
    sw: usize,
    role: PortRole,
    arena: &mut Vec<u16>,
    first: &mut HashMap<u32, u16>,
) -> Vec<Hop> {
    let mut pairs: Vec<(u16, u16, u32)> = Vec::new(); // (first port of peer, port, peer)
    first.clear();
    for (pi, p) in t.switches[sw].ports.iter().enumerate() {
        if p.role != role {
            continue;
        }
        if let Peer::Switch { sw: o, .. } = p.peer {
            let f = *first.entry(o).or_insert(pi as u16);
            pairs.push((f, pi as u16, o));
        }
    }
    pairs.sort_unstable();
    let mut out: Vec<Hop> = Vec::new();
    for (_, port, o) in pairs {
        match out.last_mut() {
            Some(h) if h.sw == o => h.len += 1,
            _ => out.push(Hop {
                sw: o,
                start: arena.len() as u32,
                len: 1,
            }),
        }
        arena.push(port);
    }
    out
}

/// Depth-first enumeration of the upward routes from `leaf`, in route-rank order:
/// `f(path)` is called for every route (`path[0]` = leaf, path.last() = the route's end).
pub(super) fn for_each_route(plan: &Plan, leaf: u32, max_level: u16, f: &mut dyn FnMut(&[u32])) {
    fn rec(plan: &Plan, path: &mut Vec<u32>, max_level: u16, f: &mut dyn FnMut(&[u32])) {
        let v = *path.last().expect("path starts with the leaf");
        if path.len() > 1 {
            f(path);
        }
        if path.len() as u16 >= max_level {
            return;
        }
        for h in &plan.parents[v as usize] {
            path.push(h.sw);
            rec(plan, path, max_level, f);
            path.pop();
        }
    }
    let mut path = vec![leaf];
    rec(plan, &mut path, max_level, f);
}

/// Zones of a topology, level by level (see the module docs): the fields of the same
/// name in [`Plan`].
struct Zones {
    /// Zone id of each switch.
    of: Vec<u32>,
    /// Parent zone of each zone (`u32::MAX` for the top zone).
    parent: Vec<u32>,
    /// Level of each zone.
    level: Vec<u16>,
    /// Number of child zones of each zone.
    kids: Vec<u32>,
    /// Switches of each zone, in switch order.
    members: Vec<Vec<u32>>,
}

impl Zones {
    /// The zones of `t` (`levels` switch levels, distinct down neighbours `children`):
    /// refused unless they nest and the top level is one zone.
    fn new(t: &Topology, levels: u16, children: &[Vec<Hop>]) -> Result<Zones, KindError> {
        let mut z = Zones {
            of: vec![u32::MAX; t.switches.len()],
            parent: Vec::new(),
            level: Vec::new(),
            kids: Vec::new(),
            members: Vec::new(),
        };
        for (i, s) in t.switches.iter().enumerate() {
            if s.level == 1 {
                z.of[i] = z.push(1, 0, vec![i as u32]);
            }
        }
        for l in 2..=levels {
            let mut intern: HashMap<Vec<u32>, u32> = HashMap::new();
            for (i, s) in t.switches.iter().enumerate() {
                if s.level != l {
                    continue;
                }
                let mut kids: Vec<u32> = children[i].iter().map(|h| z.of[h.sw as usize]).collect();
                kids.sort_unstable();
                kids.dedup();
                if kids.is_empty() {
                    return Err(unsupported(t, format!("{} has no down links", s.name)));
                }
                let zi = match intern.get(&kids) {
                    Some(&zi) => zi,
                    None => {
                        let next = z.level.len() as u32;
                        for &k in &kids {
                            if z.parent[k as usize] != u32::MAX {
                                return Err(unsupported(
                                    t,
                                    format!(
                                        "the sub-trees under {} overlap those of another level-{l} \
                                         switch without being equal (zones do not nest)",
                                        s.name
                                    ),
                                ));
                            }
                            z.parent[k as usize] = next;
                        }
                        z.push(l, kids.len() as u32, Vec::new());
                        intern.insert(kids, next);
                        next
                    }
                };
                z.of[i] = zi;
                z.members[zi as usize].push(i as u32);
            }
        }
        let tops = z.level.iter().filter(|&&l| l == levels).count();
        if tops != 1 {
            return Err(unsupported(
                t,
                format!("the top level has {tops} disjoint sub-trees; some leaves have no common ancestor"),
            ));
        }
        for (zi, &p) in z.parent.iter().enumerate() {
            if p == u32::MAX && z.level[zi] != levels {
                let s = &t.switches[z.members[zi][0] as usize];
                return Err(unsupported(t, format!("{} has no up links", s.name)));
            }
        }
        Ok(z)
    }

    /// Add a zone without a parent; returns its id.
    fn push(&mut self, level: u16, kids: u32, members: Vec<u32>) -> u32 {
        self.level.push(level);
        self.parent.push(u32::MAX);
        self.kids.push(kids);
        self.members.push(members);
        (self.level.len() - 1) as u32
    }
}

/// Largest route count per type: max over leaves a and switches u of |R_{a - u}| = the
/// number of down paths from u to a. D(u) = sum of D(children) as a sparse leaf -> count
/// vector; switches with the same children share one vector. Refused when the vectors
/// would hold more than `limit` entries (`leaves` = level-1 switches, for the message).
fn max_routes(
    t: &Topology,
    children: &[Vec<Hop>],
    types: usize,
    limit: u64,
    leaves: u64,
) -> Result<Vec<u64>, KindError> {
    let n = t.switches.len();
    let mut max_routes = vec![0u64; types];
    let mut memo: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut vecs: Vec<Vec<(u32, u64)>> = Vec::new();
    let mut vec_of = vec![usize::MAX; n];
    let mut kept: u64 = 0;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| t.switches[i].level);
    for i in order {
        if t.switches[i].level == 1 {
            vec_of[i] = vecs.len();
            vecs.push(vec![(i as u32, 1)]);
            continue;
        }
        let mut key: Vec<u32> = children[i].iter().map(|h| h.sw).collect();
        key.sort_unstable();
        if let Some(&v) = memo.get(&key) {
            vec_of[i] = v;
            continue;
        }
        kept = key.iter().fold(kept, |k, &c| {
            k.saturating_add(vecs[vec_of[c as usize]].len() as u64)
        });
        if kept > limit {
            return Err(KindError::TooBigToCompute {
                kind: KIND,
                spec: t.spec.to_string(),
                why: format!(
                    "counting the routes of {n} switches and {leaves} leaves needs more than \
                     {limit} leaf-count entries (the fabric is too deep or too wide for \
                     path IDs to be planned here)"
                ),
            });
        }
        let mut acc: Vec<(u32, u64)> = key
            .iter()
            .flat_map(|&c| vecs[vec_of[c as usize]].iter().copied())
            .collect();
        acc.sort_unstable_by_key(|x| x.0);
        let mut merged: Vec<(u32, u64)> = Vec::with_capacity(acc.len());
        for (leaf, c) in acc {
            match merged.last_mut() {
                Some(m) if m.0 == leaf => m.1 += c,
                _ => merged.push((leaf, c)),
            }
        }
        let ti = usize::from(t.switches[i].level - 2);
        let mx = merged.iter().map(|x| x.1).max().unwrap_or(0);
        max_routes[ti] = max_routes[ti].max(mx);
        vec_of[i] = vecs.len();
        vecs.push(merged);
        memo.insert(key, vec_of[i]);
    }
    Ok(max_routes)
}

impl Plan {
    /// Ports of a hop, in port order.
    pub fn hop_ports(&self, h: &Hop) -> &[u16] {
        &self.arena[h.start as usize..(h.start + h.len) as usize]
    }

    /// Compute the plan (zones, ranks, route and DP counts, widths).
    pub fn new(t: &Topology) -> Result<Plan, KindError> {
        Self::with_limit(t, MAX_PLAN_ENTRIES)
    }

    /// [`Plan::new`] keeping at most `limit` leaf-count entries while counting routes
    /// (a [`KindError::TooBigToCompute`] beyond that).
    pub fn with_limit(t: &Topology, limit: u64) -> Result<Plan, KindError> {
        let levels = check_shape(t)?;
        let n = t.switches.len();
        let mut seq = vec![0u32; n];
        let mut level_size = vec![0u64; usize::from(levels) + 1];
        for (i, s) in t.switches.iter().enumerate() {
            seq[i] = level_size[usize::from(s.level)] as u32;
            level_size[usize::from(s.level)] += 1;
        }
        let mut arena: Vec<u16> = Vec::new();
        let mut first: HashMap<u32, u16> = HashMap::new();
        let parents: Vec<Vec<Hop>> = (0..n)
            .map(|i| hops(t, i, PortRole::Up, &mut arena, &mut first))
            .collect();
        let children: Vec<Vec<Hop>> = (0..n)
            .map(|i| hops(t, i, PortRole::Down, &mut arena, &mut first))
            .collect();
        let zones = Zones::new(t, levels, &children)?;
        let mut host_at = Vec::with_capacity(t.hosts.len());
        for h in &t.hosts {
            let Some(Peer::Switch { sw, port }) =
                h.ports.iter().map(|p| p.peer).find(|p| *p != Peer::None)
            else {
                unreachable!("check_shape")
            };
            let label = t.switches[sw as usize].ports[usize::from(port)].label;
            host_at.push((sw, port, label));
        }
        let types = usize::from(levels - 1);
        let mut types_used = vec![false; types];
        for (zi, &l) in zones.level.iter().enumerate() {
            if l >= 2 && zones.kids[zi] >= 2 {
                types_used[usize::from(l - 2)] = true;
            }
        }
        let mut max_dp = vec![0u64; usize::from(levels) - 1];
        for (i, s) in t.switches.iter().enumerate() {
            if s.level >= 2 {
                let m = &mut max_dp[usize::from(s.level - 2)];
                *m = (*m).max(children[i].len() as u64);
            }
        }
        let max_routes = max_routes(t, &children, types, limit, level_size[1])?;
        let plan = Plan {
            layout: PathIdLayout {
                levels,
                type_bits: ceil_log2(u64::from(levels - 1)),
                top_bits: (0..types).map(|ti| ceil_log2(level_size[ti + 2])).collect(),
                route_bits: max_routes.iter().map(|&m| ceil_log2(m)).collect(),
                dp_bits: max_dp.iter().map(|&m| ceil_log2(m)).collect(),
            },
            levels,
            seq,
            parents,
            children,
            arena,
            zone: zones.of,
            zone_parent: zones.parent,
            zone_level: zones.level,
            zone_kids: zones.kids,
            zone_members: zones.members,
            host_at,
            types_used,
            max_routes,
            max_dp,
        };
        let longest = (0..levels - 1)
            .filter(|&ti| plan.types_used[usize::from(ti)])
            .map(|ti| plan.layout.id_len(ti))
            .max()
            .unwrap_or(0);
        if longest > 64 {
            return Err(KindError::TooLarge {
                kind: KIND,
                spec: t.spec.to_string(),
                why: format!("the longest path ID needs {longest} bits; the header carries 64"),
            });
        }
        Ok(plan)
    }

    /// Zone of `z`'s ancestor at level `l`.
    pub(super) fn zone_at(&self, mut z: u32, l: u16) -> u32 {
        while self.zone_level[z as usize] < l {
            z = self.zone_parent[z as usize];
        }
        z
    }

    /// Id bits of the longest used type.
    pub fn id_bits(&self) -> u32 {
        id_bits(&self.layout, &self.types_used)
    }

    /// Text like `type 1: 1+10+0+6+5 = 22 (type.top.route.dp3.dp2)` per used type.
    pub fn id_bits_detail(&self) -> String {
        id_bits_detail(&self.layout, &self.types_used)
    }

    /// Switch sequences from `u` down to `leaf` (u first, leaf last), in DP order.
    fn switch_paths_down(&self, u: u32, leaf: u32) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        let mut cur = vec![u];
        self.switch_paths_rec(leaf, &mut cur, &mut out);
        out
    }

    fn switch_paths_rec(&self, leaf: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        let v = *cur.last().expect("non-empty");
        if v == leaf {
            out.push(cur.clone());
            return;
        }
        let lz = self.zone[leaf as usize];
        for h in &self.children[v as usize] {
            let w = h.sw as usize;
            let wl = self.zone_level[self.zone[w] as usize];
            if self.zone_at(lz, wl) != self.zone[w] {
                continue;
            }
            cur.push(h.sw);
            self.switch_paths_rec(leaf, cur, out);
            cur.pop();
        }
    }

    /// The routes from `leaf` up to `u` in rank order (each as switches leaf..=u).
    pub fn routes(&self, leaf: u32, u: u32) -> Vec<Vec<u32>> {
        let mut rs: Vec<Vec<u32>> = self
            .switch_paths_down(u, leaf)
            .into_iter()
            .map(|mut p| {
                p.reverse();
                p
            })
            .collect();
        // rank = depth-first order over up ports: lexicographic in the parent indices
        let key = |p: &Vec<u32>| -> Vec<usize> {
            p.windows(2)
                .map(|w| {
                    self.parents[w[0] as usize]
                        .iter()
                        .position(|h| h.sw == w[1])
                        .unwrap_or(usize::MAX)
                })
                .collect()
        };
        rs.sort_by_key(key);
        rs
    }

    /// The DP index sequences of the down paths from `u` to `leaf`, in DP order.
    pub fn down_dps(&self, u: u32, leaf: u32) -> Vec<Vec<u32>> {
        self.switch_paths_down(u, leaf)
            .into_iter()
            .map(|p| {
                p.windows(2)
                    .map(|w| {
                        self.children[w[0] as usize]
                            .iter()
                            .position(|h| h.sw == w[1])
                            .unwrap_or(0) as u32
                    })
                    .collect()
            })
            .collect()
    }

    /// Leaf switches of `src` and `dst`, and the top zone of their desired paths
    /// (`None` when both hang on one leaf).
    fn pair(&self, src: u32, dst: u32) -> Option<(u32, u32, u32)> {
        let (a, _, _) = self.host_at[src as usize];
        let (bl, _, _) = self.host_at[dst as usize];
        if a == bl {
            return None;
        }
        let (mut za, mut zb) = (self.zone[a as usize], self.zone[bl as usize]);
        while za != zb {
            za = self.zone_parent[za as usize];
            zb = self.zone_parent[zb as usize];
        }
        Some((a, bl, za))
    }

    /// One desired path from `src` to `dst` (`None` = LOCAL): top = members[choice mod
    /// m], then route and down path from the remaining quotient, so every desired path
    /// is some choice.
    pub fn path(&self, src: u32, dst: u32, choice: u64) -> Option<PathFields> {
        let (a, bl, z) = self.pair(src, dst)?;
        let members = &self.zone_members[z as usize];
        let t = self.zone_level[z as usize] - 2;
        let u = members[(choice % members.len() as u64) as usize];
        let c = choice / members.len() as u64;
        let nr = self.routes(a, u).len().max(1) as u64;
        let downs = self.down_dps(u, bl);
        let d = downs.get(((c / nr) % downs.len().max(1) as u64) as usize)?;
        Some(PathFields {
            t,
            top: self.seq[u as usize],
            route: (c % nr) as u32,
            dps: d.clone(),
        })
    }

    /// Every desired path from `src` to `dst` (`None` = LOCAL), in (top, route, down
    /// path) order.
    pub fn paths(&self, src: u32, dst: u32) -> Option<Vec<PathFields>> {
        let (a, bl, z) = self.pair(src, dst)?;
        let t = self.zone_level[z as usize] - 2;
        let mut out = Vec::new();
        for &u in &self.zone_members[z as usize] {
            let nr = self.routes(a, u).len() as u32;
            let downs = self.down_dps(u, bl);
            for r in 0..nr {
                for d in &downs {
                    out.push(PathFields {
                        t,
                        top: self.seq[u as usize],
                        route: r,
                        dps: d.clone(),
                    });
                }
            }
        }
        Some(out)
    }
}
