//! Path-ID control logic (seed 001, notes §6.2): path IDs `Type.Top.Route.DP_{t+2}…DP_2`
//! for the desired (shortest up-down) paths between leaf switches of any multi-rooted
//! tree, the LPM routing entries every switch needs, their counts, and source headers.
//!
//! Generic over the graph: nothing here looks at the family name except [`summary`],
//! which uses closed forms for `fat-tree` and `vl2` above a size where materialising
//! every entry would be slow (tests cross-check the closed forms against the
//! materialised tables).
//!
//! Definitions (seed 001 B:L31-63, read with notes §6.2):
//! * S^l: switches of level l in switch order; `n_{s^l}` = rank in S^l.
//! * DP_s: the distinct down-neighbour switches of s in port order (parallel links to the
//!   same child are one DP whose ports form an adaptive group); n_dp = rank.
//! * R_{a−u}: strictly upward switch sequences from leaf a to u, ranked in depth-first
//!   order over up ports in port order.
//! * Zones: a leaf is its own zone; a switch's zone is the set of its children's zones.
//!   Zones must nest (each zone has one parent zone) and the top level must be one zone.
//!   The desired paths between leaves a, b climb to the level T of their lowest common
//!   zone (type t = T − 2), to any switch u of that zone, by any route, and go down by
//!   any down path to b.
//! * Entries (B:L65-79): every switch below the top on a route holds `t.Top.Route/` (up);
//!   every switch on a down path holds `t.Top.Route.DP_T…DP_l/` (down). Hosts are not in
//!   the path ID: the leaf delivers by the host label carried next to it.

use super::{KindError, TableSummary};
use crate::oracle::{Walk, WalkError};
use crate::topology::{HostError, Peer, PortDir, PortRole, TopoError, Topology};
use canopy_dataplane::build::pathid::{self as b, ceil_log2, PathFields, PathIdLayout};
use canopy_dataplane::table::pathid::{Action, HostEntry, LpmEntry, PathIdTable};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::Kind;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

const KIND: Kind = Kind::PathId;

fn unsupported(t: &Topology, why: impl Into<String>) -> KindError {
    KindError::Unsupported {
        kind: KIND,
        spec: t.spec.to_string(),
        why: why.into(),
    }
}

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

/// Most table entries (upward route steps plus downward entries) [`tables`] will
/// materialise (tens of bytes each); larger fabrics are refused before any allocation.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 25;

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

/// Structural checks shared by [`supports`] and [`Plan::new`]: single-homed hosts on
/// level-1 down ports, duplex up/down links between adjacent levels, no side links.
fn check_shape(t: &Topology) -> Result<u16, KindError> {
    let levels = t.levels();
    if levels < 2 {
        return Err(unsupported(
            t,
            "path IDs need at least two switch levels (seed 001: L-level tree, L >= 2)",
        ));
    }
    for (hi, h) in t.hosts.iter().enumerate() {
        let conn: Vec<_> = h.ports.iter().filter(|p| p.peer != Peer::None).collect();
        if conn.len() != 1 {
            return Err(unsupported(
                t,
                format!(
                    "host {} has {} links; path IDs start at the source's one leaf switch \
                     (seed 001 defines paths between edge switches), so hosts must be single-homed",
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
                            "{} p{pi} is a side link; seed 001's multi-rooted trees have none",
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
/// `f(path)` is called for every route (path[0] = leaf, path.last() = the route's end).
fn for_each_route(plan: &Plan, leaf: u32, max_level: u16, f: &mut dyn FnMut(&[u32])) {
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
        // Zones, level by level.
        let mut zone = vec![u32::MAX; n];
        let mut zone_parent: Vec<u32> = Vec::new();
        let mut zone_level: Vec<u16> = Vec::new();
        let mut zone_kids: Vec<u32> = Vec::new();
        let mut zone_members: Vec<Vec<u32>> = Vec::new();
        for (i, s) in t.switches.iter().enumerate() {
            if s.level == 1 {
                zone[i] = zone_level.len() as u32;
                zone_level.push(1);
                zone_parent.push(u32::MAX);
                zone_kids.push(0);
                zone_members.push(vec![i as u32]);
            }
        }
        for l in 2..=levels {
            let mut intern: HashMap<Vec<u32>, u32> = HashMap::new();
            for (i, s) in t.switches.iter().enumerate() {
                if s.level != l {
                    continue;
                }
                let mut kids: Vec<u32> = children[i].iter().map(|h| zone[h.sw as usize]).collect();
                kids.sort_unstable();
                kids.dedup();
                if kids.is_empty() {
                    return Err(unsupported(t, format!("{} has no down links", s.name)));
                }
                let next = zone_level.len() as u32;
                let z = match intern.get(&kids) {
                    Some(&z) => z,
                    None => {
                        for &k in &kids {
                            if zone_parent[k as usize] != u32::MAX {
                                return Err(unsupported(
                                    t,
                                    format!(
                                        "the sub-trees under {} overlap those of another level-{l} \
                                         switch without being equal (zones do not nest)",
                                        s.name
                                    ),
                                ));
                            }
                            zone_parent[k as usize] = next;
                        }
                        zone_level.push(l);
                        zone_parent.push(u32::MAX);
                        zone_kids.push(kids.len() as u32);
                        zone_members.push(Vec::new());
                        intern.insert(kids, next);
                        next
                    }
                };
                zone[i] = z;
                zone_members[z as usize].push(i as u32);
            }
        }
        let tops = zone_level.iter().filter(|&&l| l == levels).count();
        if tops != 1 {
            return Err(unsupported(
                t,
                format!("the top level has {tops} disjoint sub-trees; some leaves have no common ancestor"),
            ));
        }
        for (zi, &p) in zone_parent.iter().enumerate() {
            if p == u32::MAX && zone_level[zi] != levels {
                let s = &t.switches[zone_members[zi][0] as usize];
                return Err(unsupported(t, format!("{} has no up links", s.name)));
            }
        }
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
        for (zi, &l) in zone_level.iter().enumerate() {
            if l >= 2 && zone_kids[zi] >= 2 {
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
        let mut plan = Plan {
            layout: PathIdLayout {
                levels,
                type_bits: ceil_log2(u64::from(levels - 1)),
                top_bits: (0..types).map(|ti| ceil_log2(level_size[ti + 2])).collect(),
                route_bits: vec![0; types],
                dp_bits: max_dp.iter().map(|&m| ceil_log2(m)).collect(),
            },
            levels,
            seq,
            parents,
            children,
            arena,
            zone,
            zone_parent,
            zone_level,
            zone_kids,
            zone_members,
            host_at,
            types_used,
            max_routes: vec![0; types],
            max_dp,
        };
        // Route counts: max over leaves a and switches u of |R_{a - u}| = the number of
        // down paths from u to a. D(u) = sum of D(children) as a sparse leaf -> count
        // vector; switches with the same children share one vector.
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
            let mut key: Vec<u32> = plan.children[i].iter().map(|h| h.sw).collect();
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
                        "counting the routes of {} switches and {} leaves needs more than \
                         {limit} leaf-count entries (the fabric is too deep or too wide for \
                         path IDs to be planned here)",
                        n, level_size[1]
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
        plan.layout.route_bits = max_routes.iter().map(|&m| ceil_log2(m)).collect();
        plan.max_routes = max_routes;
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
    fn zone_at(&self, mut z: u32, l: u16) -> u32 {
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

/// Bits of the longest used type.
pub fn id_bits(layout: &PathIdLayout, used: &[bool]) -> u32 {
    (0..layout.types())
        .filter(|&ti| used.get(usize::from(ti)).copied().unwrap_or(false))
        .map(|ti| layout.id_len(ti))
        .max()
        .unwrap_or(0)
}

/// Per used type: `type 1: 1+10+0+6+5 = 22 (type.top.route.dp3.dp2)`.
pub fn id_bits_detail(layout: &PathIdLayout, used: &[bool]) -> String {
    let mut parts = Vec::new();
    for ti in 0..layout.types() {
        if !used.get(usize::from(ti)).copied().unwrap_or(false) {
            continue;
        }
        let f = layout.fields(ti);
        let widths: Vec<String> = f.iter().map(|x| x.1.to_string()).collect();
        let names: Vec<&str> = f.iter().map(|x| x.0.as_str()).collect();
        parts.push(format!(
            "type {ti}: {} = {} ({})",
            widths.join("+"),
            layout.id_len(ti),
            names.join(".")
        ));
    }
    parts.join("; ")
}

type PlanCache = Mutex<Vec<(String, Arc<Plan>)>>;

fn cache() -> &'static PlanCache {
    static C: OnceLock<PlanCache> = OnceLock::new();
    C.get_or_init(|| Mutex::new(Vec::new()))
}

/// The plan of `t`, cached by spec and size (headers are built per pair).
pub fn plan(t: &Topology) -> Result<Arc<Plan>, KindError> {
    let key = format!(
        "{}#{}#{}#{}",
        t.spec,
        t.switches.len(),
        t.hosts.len(),
        t.port_count()
    );
    if let Ok(c) = cache().lock() {
        if let Some((_, p)) = c.iter().find(|(k, _)| *k == key) {
            return Ok(p.clone());
        }
    }
    let p = Arc::new(Plan::new(t)?);
    if let Ok(mut c) = cache().lock() {
        if c.len() >= 4 {
            c.remove(0);
        }
        c.push((key, p.clone()));
    }
    Ok(p)
}

/// Whether this kind applies to `t` (cheap structural checks; [`Plan::new`] checks the
/// zones and widths).
pub fn supports(t: &Topology) -> Result<(), KindError> {
    check_shape(t).map(|_| ())
}

fn action(st: &mut SwitchTables, ports: &[u16]) -> Action {
    if ports.len() == 1 {
        Action::Port(ports[0])
    } else {
        Action::Group(st.intern_group(ports.to_vec()))
    }
}

/// Raw (unencoded) up entries and route sets: for each switch, `(t, top, route) → next`.
struct UpPass {
    up: Vec<Vec<(u16, u32, u32, u32)>>,
    /// (top switch, child zone of the top's zone, route)
    routes_in: Vec<(u32, u32, u32)>,
}

fn up_pass(t: &Topology, plan: &Plan) -> UpPass {
    let n = t.switches.len();
    let mut up: Vec<Vec<(u16, u32, u32, u32)>> = vec![Vec::new(); n];
    let mut routes_in: Vec<(u32, u32, u32)> = Vec::new();
    let mut rank = vec![0u32; n];
    let mut touched: Vec<u32> = Vec::new();
    for (i, s) in t.switches.iter().enumerate() {
        if s.level != 1 {
            continue;
        }
        let zleaf = plan.zone[i];
        for_each_route(plan, i as u32, plan.levels, &mut |path| {
            let u = *path.last().expect("non-empty");
            let r = rank[u as usize];
            if r == 0 {
                touched.push(u);
            }
            rank[u as usize] += 1;
            let tl = t.switches[u as usize].level;
            let zu = plan.zone[u as usize];
            // a has a destination of this type iff the top zone has another child zone
            if plan.zone_kids[zu as usize] < 2 {
                return;
            }
            let ti = tl - 2;
            for j in 0..path.len() - 1 {
                up[path[j] as usize].push((ti, u, r, path[j + 1]));
            }
            routes_in.push((u, plan.zone_at(zleaf, tl - 1), r));
        });
        for &u in &touched {
            rank[u as usize] = 0;
        }
        touched.clear();
    }
    routes_in.sort_unstable();
    routes_in.dedup();
    UpPass { up, routes_in }
}

/// Upper bound on the entries [`tables`] materialises: the steps of every upward route
/// from every leaf (`t.Top.Route/` at each switch below the top) plus, for every top
/// switch, its largest route count times its downward DP prefixes.
pub fn table_work(t: &Topology, plan: &Plan) -> u64 {
    let n = t.switches.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(t.switches[i].level));
    // f: upward paths from v (the empty one included); g: steps over those paths.
    let (mut f, mut g) = (vec![1u64; n], vec![0u64; n]);
    for &i in &order {
        for h in &plan.parents[i] {
            let p = h.sw as usize;
            f[i] = f[i].saturating_add(f[p]);
            g[i] = g[i].saturating_add(f[p].saturating_add(g[p]));
        }
    }
    // d: down entries one DFS from v installs (for one route).
    let mut d = vec![0u64; n];
    for &i in order.iter().rev() {
        if t.switches[i].level < 2 {
            continue;
        }
        for h in &plan.children[i] {
            d[i] = d[i].saturating_add(d[h.sw as usize].saturating_add(1));
        }
    }
    let mut work = 0u64;
    for (i, s) in t.switches.iter().enumerate() {
        if s.level == 1 {
            work = work.saturating_add(g[i]);
        } else {
            let routes = plan.max_routes[usize::from(s.level - 2)];
            work = work.saturating_add(routes.saturating_mul(d[i]));
        }
    }
    work
}

/// Per-switch tables.
pub fn tables(t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
    let plan = plan(t)?;
    let work = table_work(t, &plan);
    if work > MAX_TABLE_ENTRIES {
        return Err(KindError::TooBigToCompute {
            kind: KIND,
            spec: t.spec.to_string(),
            why: format!(
                "its path-ID tables would hold up to {work} entries; at most \
                 {MAX_TABLE_ENTRIES} are materialised (`tables --summary` uses closed forms \
                 for fat-tree and vl2)"
            ),
        });
    }
    let layout = &plan.layout;
    let n = t.switches.len();
    let mut out: Vec<SwitchTables> = (0..n)
        .map(|i| SwitchTables::new(t.switches[i].name.clone(), super::port_configs(t, i as u32)))
        .collect();
    let mut entries: Vec<Vec<LpmEntry>> = vec![Vec::new(); n];
    let bad = |e: b::BuildError| KindError::TooLarge {
        kind: KIND,
        spec: t.spec.to_string(),
        why: e.to_string(),
    };
    let pass = up_pass(t, &plan);
    for (i, ups) in pass.up.into_iter().enumerate() {
        let mut ups = ups;
        ups.sort_unstable();
        ups.dedup();
        for w in ups.windows(2) {
            if w[0].0 == w[1].0 && w[0].1 == w[1].1 && w[0].2 == w[1].2 {
                return Err(unsupported(
                    t,
                    format!(
                        "route {} to {} continues to two different switches at {}: \
                         the routes' ranks are not consistent, so `t.Top.Route/` cannot be installed",
                        w[0].2, t.switches[w[0].1 as usize].name, t.switches[i].name
                    ),
                ));
            }
        }
        for (ti, u, r, next) in ups {
            let (value, len) = layout
                .prefix(ti, plan.seq[u as usize], r, &[])
                .map_err(bad)?;
            let hop = plan.parents[i]
                .iter()
                .find(|h| h.sw == next)
                .expect("next hop is a parent");
            let a = action(&mut out[i], plan.hop_ports(hop));
            entries[i].push(LpmEntry {
                value,
                len,
                down: false,
                action: a,
            });
        }
    }
    // Down entries: DFS from every top of a used type.
    let mut by_top: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for &(u, cz, r) in &pass.routes_in {
        by_top.entry(u).or_default().push((cz, r));
    }
    let mut dps: Vec<u32> = Vec::new();
    for (u, zr) in &by_top {
        let u = *u;
        let ti = t.switches[u as usize].level - 2;
        // valid routes for destinations in child zone c: routes used by the other zones
        let mut all_r: Vec<u32> = zr.iter().map(|x| x.1).collect();
        all_r.sort_unstable();
        all_r.dedup();
        let valid = |c: u32| -> Vec<u32> {
            all_r
                .iter()
                .copied()
                .filter(|&r| zr.iter().any(|&(cz, rr)| rr == r && cz != c))
                .collect()
        };
        for (d, h) in plan.children[u as usize].iter().enumerate() {
            let c = plan.zone[h.sw as usize];
            let rs = valid(c);
            for r in rs {
                dps.clear();
                dps.push(d as u32);
                down_rec(
                    t,
                    &plan,
                    &mut out,
                    &mut entries,
                    u,
                    u as usize,
                    ti,
                    r,
                    &mut dps,
                )
                .map_err(bad)?;
            }
        }
    }
    for (i, s) in t.switches.iter().enumerate() {
        let mut hosts = Vec::new();
        if s.level == 1 {
            for (pi, p) in s.ports.iter().enumerate() {
                if p.role == PortRole::Down && matches!(p.peer, Peer::Host { .. }) {
                    hosts.push((p.label, pi as u16));
                }
            }
        }
        hosts.sort_unstable();
        let mut he = Vec::new();
        let mut k = 0;
        while k < hosts.len() {
            let label = hosts[k].0;
            let ports: Vec<u16> = hosts[k..]
                .iter()
                .take_while(|h| h.0 == label)
                .map(|h| h.1)
                .collect();
            k += ports.len();
            let a = action(&mut out[i], &ports);
            he.push(HostEntry { label, action: a });
        }
        let es = std::mem::take(&mut entries[i]);
        let tab = PathIdTable::new(s.level, s.level == 1, he, es)
            .map_err(|e| unsupported(t, format!("{}: {e}", s.name)))?;
        out[i].pathid = Some(tab);
    }
    Ok(out)
}

/// Install the down entry at `v` for the DP path in `dps` (its last element is v's DP
/// index) and recurse below.
#[allow(clippy::too_many_arguments)]
fn down_rec(
    t: &Topology,
    plan: &Plan,
    out: &mut [SwitchTables],
    entries: &mut [Vec<LpmEntry>],
    top: u32,
    v: usize,
    ti: u16,
    r: u32,
    dps: &mut Vec<u32>,
) -> Result<(), b::BuildError> {
    let d = *dps.last().expect("non-empty") as usize;
    let h = &plan.children[v][d];
    let (value, len) = plan.layout.prefix(ti, plan.seq[top as usize], r, dps)?;
    let a = action(&mut out[v], plan.hop_ports(h));
    entries[v].push(LpmEntry {
        value,
        len,
        down: true,
        action: a,
    });
    let w = h.sw as usize;
    if t.switches[w].level >= 2 {
        for d2 in 0..plan.children[w].len() {
            dps.push(d2 as u32);
            down_rec(t, plan, out, entries, top, w, ti, r, dps)?;
            dps.pop();
        }
    }
    Ok(())
}

/// Entries of one switch in seed 001's notation, `prefix/ port` (or `prefix/ g<group>`),
/// upward entries first, each direction sorted by type then prefix.
pub fn entry_strings(plan: &Plan, st: &SwitchTables) -> Vec<String> {
    let Some(p) = &st.pathid else {
        return Vec::new();
    };
    let mut v: Vec<(bool, u8, u64, String)> = p
        .entries()
        .iter()
        .map(|e| {
            let act = match e.action {
                Action::Port(x) => x.to_string(),
                Action::Group(g) => format!("g{g}"),
            };
            (
                e.down,
                e.len,
                e.value,
                format!("{}/ {act}", plan.layout.format(e.value, e.len)),
            )
        })
        .collect();
    v.sort();
    v.into_iter().map(|x| x.3).collect()
}

/// Table summary: ID bits and entries per switch, counted as seed 001 counts them (one
/// entry per distinct LPM prefix; the leaf's host-label map is not counted).
pub fn summary(t: &Topology) -> Result<TableSummary, KindError> {
    if t.switches.len() > 1500 || t.hosts.len() > 300_000 {
        if let Some(s) = closed_form(t)? {
            return Ok(s);
        }
    }
    summary_materialised(t)
}

/// Summary from materialised tables (exact for any topology; slow for huge ones).
pub fn summary_materialised(t: &Topology) -> Result<TableSummary, KindError> {
    let plan = plan(t)?;
    let tabs = tables(t)?;
    let mut s = TableSummary {
        id_bits: plan.id_bits(),
        id_bits_detail: plan.id_bits_detail(),
        ..Default::default()
    };
    s.absorb(
        t,
        tabs.iter().enumerate().map(|(i, st)| {
            (
                i as u32,
                st.pathid.as_ref().map_or(0, |p| p.entries().len() as u64),
            )
        }),
    );
    s.notes.push(
        "entries = distinct LPM prefixes per switch (seed 001 B:L65-79), from materialised tables; \
         the leaf's host-label map is not counted"
            .into(),
    );
    Ok(s)
}

/// Hop limit a source sets: the longest desired path has 2L − 1 switches.
pub fn hop_limit(t: &Topology) -> u8 {
    (2 * u32::from(t.levels())).saturating_sub(1).min(255) as u8
}

/// Header from `src` to `dst`, choosing among the desired paths by a hash of the pair.
pub fn header(t: &Topology, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    let choice = (u64::from(src).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        ^ u64::from(dst).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    header_with_choice(t, src, dst, choice >> 16)
}

/// Header from `src` to `dst` using desired path number `choice` modulo their count.
pub fn header_with_choice(
    t: &Topology,
    src: u32,
    dst: u32,
    choice: u64,
) -> Result<Vec<u8>, KindError> {
    let nh = t.hosts.len() as u32;
    for (w, h) in [("source", src), ("destination", dst)] {
        if h >= nh {
            return Err(KindError::Topo(TopoError::bad_host(
                t,
                format!("{w} {h}"),
                HostError::NoSuchHost {
                    hosts: t.hosts.len(),
                },
            )));
        }
    }
    let plan = plan(t)?;
    let label = plan.host_at[dst as usize].2;
    let bad = |e: b::BuildError| KindError::TooLarge {
        kind: KIND,
        spec: t.spec.to_string(),
        why: e.to_string(),
    };
    let path = plan.path(src, dst, choice);
    if path.is_none() && plan.host_at[src as usize].0 != plan.host_at[dst as usize].0 {
        return Err(unsupported(
            t,
            format!("no desired path from h{src} to h{dst} (the zones do not connect them)"),
        ));
    }
    let hdr = b::header(
        &plan.layout,
        path.as_ref(),
        label,
        hop_limit(t),
        crate::oracle::PAYLOAD.len() as u16,
        None,
    );
    hdr.map_err(bad)
}

/// Closed-form summary for `fat-tree` and `vl2` (from the spec parameters, one pass over
/// the switches for the per-level counts); `None` for other families. Cross-checked
/// against [`summary_materialised`] in the tests.
pub fn closed_form(t: &Topology) -> Result<Option<TableSummary>, KindError> {
    let Some(ClosedForm {
        layout,
        used,
        counts,
        what,
    }) = closed_form_params(&t.spec)?
    else {
        return Ok(None);
    };
    let mut s = TableSummary {
        id_bits: id_bits(&layout, &used),
        id_bits_detail: id_bits_detail(&layout, &used),
        ..Default::default()
    };
    s.absorb(
        t,
        t.switches.iter().enumerate().map(|(i, sw)| {
            (
                i as u32,
                counts
                    .get(usize::from(sw.level).wrapping_sub(1))
                    .copied()
                    .unwrap_or(0),
            )
        }),
    );
    s.notes.push(format!(
        "entries = distinct LPM prefixes per switch (seed 001 B:L65-79), closed form ({what}); \
         tests check it against materialised tables"
    ));
    Ok(Some(s))
}

/// A closed-form path-ID count of a three-level family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedForm {
    /// Field widths.
    pub layout: PathIdLayout,
    /// Types with desired paths.
    pub used: Vec<bool>,
    /// Entries of a level-1, level-2 and level-3 switch.
    pub counts: [u64; 3],
    /// The formula, for the summary notes.
    pub what: &'static str,
}

impl ClosedForm {
    /// ID bits of the longest used type.
    pub fn id_bits(&self) -> u32 {
        id_bits(&self.layout, &self.used)
    }
    /// Largest per-switch entry count.
    pub fn max_entries(&self) -> u64 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

/// Closed form from the spec alone (no graph): `fat-tree` and `vl2`.
pub fn closed_form_params(spec: &crate::spec::Spec) -> Result<Option<ClosedForm>, KindError> {
    use crate::topology::{fattree::FatTree, vl2::Vl2};
    let cl = |x: u64| ceil_log2(x);
    let (layout, used, counts, what): (PathIdLayout, Vec<bool>, [u64; 3], &'static str) =
        match spec.family.as_str() {
            "fat-tree" | "fattree" => {
                let ft = FatTree::from_spec(spec)?;
                let (k, h) = (u64::from(ft.k), u64::from(ft.half()));
                let ty0 = h >= 2;
                let t0 = if ty0 { h } else { 0 };
                (
                    PathIdLayout {
                        levels: 3,
                        type_bits: 1,
                        top_bits: vec![cl(k * h), cl(h * h)],
                        route_bits: vec![0, 0],
                        dp_bits: vec![cl(h), cl(k)],
                    },
                    vec![ty0, true],
                    // edge: type-0 up (one per agg of the pod) + type-1 up (one per core);
                    // agg: type-0 down (one per edge) + type-1 up (its core group) +
                    // type-1 down (core × edge); core: type-1 down (one per pod).
                    [t0 + h * h, t0 + h + h * h, k],
                    "fat-tree: edge = K/2 + (K/2)^2, agg = K/2 + K/2 + (K/2)^2, core = K",
                )
            }
            "vl2" => {
                let v = Vl2::from_spec(spec)?;
                let (q, a, i) = (
                    u64::from(v.tors_per_pair()),
                    u64::from(v.aggs()),
                    u64::from(v.intermediates()),
                );
                let ty0 = q >= 2;
                let ty1 = v.pairs() >= 2;
                let t0 = |x: u64| if ty0 { x } else { 0 };
                let t1 = |x: u64| if ty1 { x } else { 0 };
                (
                    PathIdLayout {
                        levels: 3,
                        type_bits: 1,
                        top_bits: vec![cl(a), cl(i)],
                        route_bits: vec![0, 1],
                        dp_bits: vec![cl(q), cl(a)],
                    },
                    vec![ty0, ty1],
                    // ToR: 2 type-0 up (its two aggs) + 2·I type-1 up (top × route);
                    // agg: Q type-0 down + I type-1 up (one route value per agg) +
                    // 2·I·Q type-1 down (top × route × DP2); intermediate: 2·A.
                    [t0(2) + t1(2 * i), t0(q) + t1(i) + t1(2 * i * q), t1(2 * a)],
                    "vl2: ToR = 2 + 2·I, agg = Q + I + 2·I·Q, intermediate = 2·A \
                     (I = DA/2 intermediates, A = DI aggs, Q = DA/2 ToRs per agg)",
                )
            }
            _ => return Ok(None),
        };
    Ok(Some(ClosedForm {
        layout,
        used,
        counts,
        what,
    }))
}

/// Switches on a desired path from host `src` to host `dst`, from the Znode labels
/// alone (graph contract): 2·i − 1 where i is the lowest level whose zone holds both
/// hosts. `None` when the topology carries no Znode labels.
pub fn expected_hops(t: &Topology, src: u32, dst: u32) -> Option<usize> {
    let z = &t.znode.as_ref()?.z;
    let (xs, xd) = (
        t.hosts.get(src as usize)?.index,
        t.hosts.get(dst as usize)?.index,
    );
    let mut prod = 1u64;
    for (i, zi) in z.iter().enumerate() {
        prod *= u64::from(*zi);
        if xs / prod == xd / prod {
            return Some(2 * (i + 1) - 1);
        }
    }
    Some(2 * z.len() - 1)
}

/// Checks specific to path-ID on a delivered walk: a desired (shortest up-then-down)
/// path, i.e. exactly [`expected_hops`] switches where the topology has Znode labels.
pub fn check_walk(t: &Topology, w: &Walk) -> Result<(), WalkError> {
    match expected_hops(t, w.src, w.dst) {
        Some(want) if w.switch_hops() != want => Err(WalkError::HopCount {
            src: w.src,
            dst: w.dst,
            got: w.switch_hops(),
            want,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::build_str;

    fn fields_of(layout: &PathIdLayout, value: u64, len: u8) -> (u16, u32, u32, Vec<u32>) {
        let len = u32::from(len);
        let take = |pos: &mut u32, w: u8| -> u32 {
            let w = u32::from(w);
            let v = if w == 0 {
                0
            } else {
                ((value >> (len - *pos - w)) & ((1 << w) - 1)) as u32
            };
            *pos += w;
            v
        };
        let mut pos = 0u32;
        let t = take(&mut pos, layout.type_bits) as u16;
        let f = layout.fields(t);
        let top = take(&mut pos, f[1].1);
        let route = take(&mut pos, f[2].1);
        let mut dps = Vec::new();
        for x in &f[3..] {
            if pos + u32::from(x.1) > len {
                break;
            }
            dps.push(take(&mut pos, x.1));
        }
        (t, top, route, dps)
    }

    /// Seed 001's Fattree(4) LPM entries of s_1^1, s_1^2, s_1^3 (B:L113-121), exactly.
    /// The seed's figure numbers switches, pods and ports from 1 (notes §6.2); we number
    /// from 0, so the test rewrites our entries in the figure's labelling: top + 1 and
    /// pod (DP_3) + 1, each modulo 2^width; physical port + 1 (edge up ports 2,3 are the
    /// figure's 1,2).
    #[test]
    fn seed001_fattree4_entries() {
        let t = build_str("fat-tree:k=4").unwrap();
        let plan = plan(&t).unwrap();
        let tabs = tables(&t).unwrap();
        let l = &plan.layout;
        assert_eq!(l.type_bits, 1);
        assert_eq!(l.top_bits, vec![3, 2]);
        assert_eq!(l.route_bits, vec![0, 0]);
        assert_eq!(l.dp_bits, vec![1, 2]);
        let seed_view = |name: &str| -> Vec<String> {
            let i = t.switches.iter().position(|s| s.name == name).unwrap();
            let p = tabs[i].pathid.as_ref().unwrap();
            let mut v: Vec<String> = p
                .entries()
                .iter()
                .map(|e| {
                    let (ty, top, route, mut dps) = fields_of(l, e.value, e.len);
                    let top = (top + 1) % (1 << l.top_bits[usize::from(ty)]);
                    if ty == 1 && !dps.is_empty() {
                        dps[0] = (dps[0] + 1) % 4;
                    }
                    let (v, n) = l.prefix(ty, top, route, &dps).unwrap();
                    let Action::Port(port) = e.action else {
                        panic!("fat-tree entries are single ports")
                    };
                    let port = if t.switches[i].level == 1 {
                        port - 1
                    } else {
                        port + 1
                    };
                    format!("{}/ {port}", l.format(v, n))
                })
                .collect();
            v.sort();
            v
        };
        let sorted = |v: &[&str]| {
            let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(
            seed_view("edge-p0-e0"),
            sorted(&[
                "0.001.null/ 1",
                "0.010.null/ 2",
                "1.01.null/ 1",
                "1.10.null/ 1",
                "1.11.null/ 2",
                "1.00.null/ 2"
            ])
        );
        assert_eq!(
            seed_view("agg-p0-a0"),
            sorted(&[
                "0.001.null.0/ 1",
                "0.001.null.1/ 2",
                "1.01.null/ 3",
                "1.10.null/ 4",
                "1.01.null.01.0/ 1",
                "1.01.null.01.1/ 2",
                "1.10.null.01.0/ 1",
                "1.10.null.01.1/ 2"
            ])
        );
        assert_eq!(
            seed_view("core-c0"),
            sorted(&[
                "1.01.null.01/ 1",
                "1.01.null.10/ 2",
                "1.01.null.11/ 3",
                "1.01.null.00/ 4"
            ])
        );
        // and in our own 0-based numbering
        let i = t.switches.iter().position(|s| s.name == "core-c0").unwrap();
        assert_eq!(
            entry_strings(&plan, &tabs[i]),
            [
                "1.00.null.00/ 0",
                "1.00.null.01/ 1",
                "1.00.null.10/ 2",
                "1.00.null.11/ 3"
            ]
        );
    }

    #[test]
    fn seed001_scalability_row() {
        // B:L123-127 with notes §6.2: Fat-tree(64) 22 bits / 1088, Fat-tree(256) 30 bits /
        // 16640; VL2(100,96,·) 5100 entries and 21 bits (the seed prints 22).
        for (spec, bits, max) in [
            ("fat-tree:k=64", 22, 1088),
            ("fat-tree:k=256", 30, 16640),
            ("vl2:da=100;di=96;servers=100", 21, 5100),
        ] {
            let cf = closed_form_params(&spec.parse().unwrap()).unwrap().unwrap();
            assert_eq!((cf.id_bits(), cf.max_entries()), (bits, max), "{spec}");
        }
        // notes §6.2: edge 1056, agg 1088, core 64 at k = 64
        let cf = closed_form_params(&"fat-tree:k=64".parse().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(cf.counts, [1056, 1088, 64]);
        let t = build_str("fat-tree:k=64").unwrap();
        let s = summary(&t).unwrap();
        assert_eq!((s.id_bits, s.max_entries), (22, 1088));
        assert_eq!(s.by_level[1], (2, 2048, 1088, 2048 * 1088));
    }

    #[test]
    fn planning_beyond_the_limit_is_refused_as_too_big_to_compute() {
        let t = build_str("fat-tree:k=8").unwrap();
        let e = Plan::with_limit(&t, 1).unwrap_err();
        assert!(matches!(e, KindError::TooBigToCompute { .. }), "{e}");
        assert!(e.to_string().contains("too large to compute here"), "{e}");
        assert!(Plan::with_limit(&t, MAX_PLAN_ENTRIES).is_ok());
    }

    #[test]
    fn vl2_seed_row_materialised() {
        // The materialised tables of VL2(100, 96) give the notes' numbers directly:
        // 21 bits (1+6+1+7+6), agg 5100 = 50 + 50 + 50·2·50, ToR 102, intermediate 192.
        let t = build_str("vl2:da=100;di=96;servers=1").unwrap();
        let s = summary_materialised(&t).unwrap();
        assert_eq!(s.id_bits, 21);
        assert_eq!(s.max_entries, 5100);
        assert_eq!(
            s.by_level,
            vec![
                (1, 2400, 102, 2400 * 102),
                (2, 96, 5100, 96 * 5100),
                (3, 50, 192, 50 * 192)
            ]
        );
    }

    #[test]
    fn closed_forms_match_materialised_tables() {
        for spec in [
            "fat-tree:k=2",
            "fat-tree:k=4",
            "fat-tree:k=6",
            "fat-tree:k=8",
            "fat-tree:k=12",
            "fat-tree:k=16",
            "vl2:da=2;di=4;servers=1",
            "vl2:da=4;di=2;servers=2",
            "vl2:da=4;di=4;servers=1",
            "vl2:da=8;di=4;servers=2",
            "vl2:da=6;di=6;servers=1",
            "vl2:da=12;di=8;servers=1",
        ] {
            let t = build_str(spec).unwrap();
            let a = closed_form(&t).unwrap().unwrap();
            let m = summary_materialised(&t).unwrap();
            assert_eq!(
                (
                    a.id_bits,
                    a.id_bits_detail.clone(),
                    a.by_level.clone(),
                    a.total_entries
                ),
                (
                    m.id_bits,
                    m.id_bits_detail.clone(),
                    m.by_level.clone(),
                    m.total_entries
                ),
                "{spec}"
            );
        }
    }

    #[test]
    fn header_matches_doc_vector() {
        // docs/wire-format.md I1: h0 -> h15 via core-c0 (choice 0), I3: h0 -> h1 LOCAL.
        let t = build_str("fat-tree:k=4").unwrap();
        let v = canopy_dataplane::wire::doc_vector("I1").unwrap().bytes;
        assert_eq!(header_with_choice(&t, 0, 15, 0).unwrap(), v);
        let v = canopy_dataplane::wire::doc_vector("I3").unwrap().bytes;
        assert_eq!(header_with_choice(&t, 0, 1, 7).unwrap(), v);
        // every desired path is some choice: h0 -> h15 has 4 (one per core)
        let plan = plan(&t).unwrap();
        let all = plan.paths(0, 15).unwrap();
        assert_eq!(all.len(), 4);
        for c in 0..4u64 {
            assert!(all.contains(&plan.path(0, 15, c).unwrap()));
        }
        assert!(matches!(
            header(&t, 0, 16),
            Err(KindError::Topo(crate::topology::TopoError::BadHost { .. }))
        ));
    }

    #[test]
    fn table_work_bounds_the_materialised_tables() {
        // fat-tree k=4 by hand: 8 edges × (2 aggs · 1 step + 4 cores · 2 steps) = 80 up
        // steps; 8 aggs × 2 DPs + 4 cores × 4 · (1 + 2) DPs, one route each = 64 down.
        let t = build_str("fat-tree:k=4").unwrap();
        assert_eq!(table_work(&t, &plan(&t).unwrap()), 144);
        for spec in [
            "fat-tree:k=4",
            "fat-tree:k=8",
            "vl2:da=8;di=4;servers=2",
            "kary-ntree:k=2;n=4",
            "xgft:h=3;m=4,4,2;w=1,2,2",
            "benes:m=32;n=4",
        ] {
            let t = build_str(spec).unwrap();
            let work = table_work(&t, &plan(&t).unwrap());
            let entries: u64 = tables(&t)
                .unwrap()
                .iter()
                .map(|st| st.pathid.as_ref().map_or(0, |p| p.entries().len() as u64))
                .sum();
            assert!(entries <= work, "{spec}: {entries} entries > bound {work}");
        }
    }

    #[test]
    fn huge_fabrics_are_refused_before_allocating() {
        // `canopyctl check 'fat-tree:k=256' -k path-id` and `tables 'kary-ntree:k=4;n=8'
        // -k path-id` used to abort on multi-GB allocations; now they are refused.
        let t = build_str("fat-tree:k=128").unwrap();
        let e = tables(&t).unwrap_err().to_string();
        assert!(
            e.contains("fat-tree:k=128") && e.contains("would hold up to 102236160 entries"),
            "{e}"
        );
        // the closed-form summary still answers for it
        assert_eq!(summary(&t).unwrap().switches, 20480);
        // route counting keeps every switch's leaf set; a limit bounds it
        let t = build_str("kary-ntree:k=2;n=6").unwrap();
        assert!(Plan::with_limit(&t, 1 << 20).is_ok());
        let e = Plan::with_limit(&t, 100).unwrap_err().to_string();
        assert!(e.contains("more than 100 leaf-count entries"), "{e}");
    }

    #[test]
    fn unsupported_shapes_say_why() {
        let mut t = build_str("fat-tree:k=4").unwrap();
        // make host 0 dual-homed: reuse host 1's link end (structurally wrong on purpose)
        let extra = t.hosts[1].ports[0];
        t.hosts[0].ports.push(extra);
        let e = supports(&t).unwrap_err().to_string();
        assert!(e.contains("single-homed"), "{e}");
        let mut t = build_str("fat-tree:k=4").unwrap();
        t.switches[0].ports[2].role = PortRole::Side;
        let e = supports(&t).unwrap_err().to_string();
        assert!(e.contains("side link"), "{e}");
    }
}
