//! Znode / Snode topologies of the sliced-flit thesis (seed 002), and the k-ary n-tree
//! and XGFT built as Znodes (sliced-flit-notes §1, A15, A16).
//!
//! # Spec parameters (`znode:` / `snode:`)
//! | Key | Meaning | Default |
//! |---|---|---|
//! | `z` | zones per level z_1..z_n (z_1 = processors per level-1 zone) | required |
//! | `r` | routing switches per zone R_1..R_n | the minimal rule R_1 = 1, R_{i+1} = z_1⋯z_i (notes §1.4) |
//! | `psi` | connectivity degree ψ_1..ψ_n; ψ_{i+1} is the number of parallel wiring patterns between levels i and i+1; ψ_1 must be 1 | all 1 |
//! | `layers` | l stacked identical layers joined only at the processors | 1 |
//! | `m` | Znodes in the Snode | 1 |
//! | `h` | side links per switch pair at each level h_1..h_n (0 = no side links at that level; h_n ≥ 1) | all 1 (only with m > 1) |
//! | `conn` | connectivity per level pair 1→2 … (n−1)→n: `auto`, `fwd`, `bwd` or `full` | `auto`: forward if R_i divides R_{i+1}, backward if R_{i+1} divides R_i, else full (notes §1.3) |
//! | `wiring` | `cyclic` (the notes' reconstruction) or `block` (switch r's G up links go to one block of consecutive switches, the Al-Fares fat-tree pattern) | `cyclic` |
//!
//! Wiring (notes §1.3), for level-i switch r of a child zone and the R_{i+1} switches of
//! its parent zone, G the integer ratio, t ∈ [0, ψ_{i+1}):
//! * forward (R_{i+1} = G·R_i, ψ ≤ R_i): cyclic g·R_i + (r+t) mod R_i; block ((r+t) mod R_i)·G + g, g ∈ [0,G);
//! * backward (R_i = G·R_{i+1}, ψ ≤ R_{i+1}): cyclic ((r mod R_{i+1}) + t) mod R_{i+1};
//!   block (⌊r/G⌋ + t) mod R_{i+1};
//! * full: every switch of the parent zone (ψ must be 1).
//!
//! Processors attach to all R_1 level-1 switches of their zone, in every layer (App B).
//! Side links join (Znode k, layer, level i, zone, r) to the same position in every other
//! Znode, h_i links each (notes A7).
//!
//! Switch names: `sw-k{znode}-y{layer}-l{level}-z{zone}-r{index}`. Port order: down ports
//! by label (parallel copies together), then up ports, then side ports by Znode.

use super::{End, HostError, PortSpec, TopoError, Topology, ZnodeShape};
use crate::spec::Spec;
use canopy_dataplane::build::sliced::Geometry;

/// Most processors a generated Znode may have.
pub const MAX_HOSTS: u64 = 1 << 21;
/// Most switch ports a generated Znode may have (memory guard).
pub const MAX_PORTS: u64 = 1 << 24;

/// Connectivity between two adjacent levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conn {
    /// R_{i+1} = G·R_i.
    Forward(u32),
    /// R_i = G·R_{i+1}.
    Backward(u32),
    /// Every lower switch to every upper switch of the parent zone.
    Full,
}

/// Validated Znode/Snode parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZnodeParams {
    /// z_1..z_n.
    pub z: Vec<u32>,
    /// R_1..R_n.
    pub r: Vec<u32>,
    /// ψ_1..ψ_n.
    pub psi: Vec<u32>,
    /// Layers.
    pub layers: u32,
    /// Znodes.
    pub m: u32,
    /// Side links per level.
    pub h: Vec<u32>,
    /// Connectivity between level i and i+1 (index i−1).
    pub conn: Vec<Conn>,
    /// Block (true) or cyclic (false) wiring.
    pub block: bool,
}

impl ZnodeParams {
    /// Number of levels.
    pub fn n(&self) -> usize {
        self.z.len()
    }

    /// Zones at level i (1-based) per Znode: ∏_{j>i} z_j.
    fn zones(&self, level: usize) -> u64 {
        self.z[level..].iter().map(|&x| u64::from(x)).product()
    }

    /// Upper-level indices (within the parent zone) that lower switch `r` at level
    /// `i` (1-based, i < n) connects to.
    pub fn ups(&self, i: usize, r: u32) -> Vec<u32> {
        let (lo, hi) = (self.r[i - 1], self.r[i]);
        let psi = self.psi[i];
        match self.conn[i - 1] {
            Conn::Forward(g) => {
                let mut v = Vec::with_capacity((g * psi) as usize);
                for gg in 0..g {
                    for t in 0..psi {
                        let s = (r + t) % lo;
                        v.push(if self.block { s * g + gg } else { gg * lo + s });
                    }
                }
                v
            }
            Conn::Backward(g) => (0..psi)
                .map(|t| {
                    let base = if self.block { r / g } else { r % hi };
                    (base + t) % hi
                })
                .collect(),
            Conn::Full => (0..hi).collect(),
        }
    }

    /// Up links per switch at level i (1-based; 0 at the top).
    pub fn up_links(&self, i: usize) -> u64 {
        if i >= self.n() {
            return 0;
        }
        match self.conn[i - 1] {
            Conn::Forward(g) => u64::from(g) * u64::from(self.psi[i]),
            Conn::Backward(_) => u64::from(self.psi[i]),
            Conn::Full => u64::from(self.r[i]),
        }
    }

    /// Down links per switch at level i (1-based).
    pub fn down_links(&self, i: usize) -> u64 {
        if i == 1 {
            return u64::from(self.z[0]);
        }
        // every lower switch of the z_i child zones sends up_links(i−1) links into
        // the R_i switches of the parent zone, spread evenly by construction
        u64::from(self.z[i - 1]) * u64::from(self.r[i - 2]) * self.up_links(i - 1)
            / u64::from(self.r[i - 1])
    }

    /// Side links per switch at level i.
    pub fn side_links(&self, i: usize) -> u64 {
        u64::from(self.h[i - 1]) * u64::from(self.m - 1)
    }

    /// Switches per Znode and layer at level i: R_i·∏_{j>i} z_j.
    pub fn switches_at(&self, i: usize) -> u64 {
        u64::from(self.r[i - 1]) * self.zones(i)
    }
}

fn perr(spec: &Spec, key: &str, why: impl Into<String>) -> TopoError {
    TopoError::Spec(spec.invalid(key, why))
}

fn list_u32(spec: &Spec, key: &str, min: u64, max: u64) -> Result<Option<Vec<u32>>, TopoError> {
    Ok(spec
        .opt_list(key, min, max)?
        .map(|v| v.into_iter().map(|x| x as u32).collect()))
}

fn need_len(spec: &Spec, key: &str, v: &[u32], n: usize) -> Result<(), TopoError> {
    if v.len() != n {
        return Err(perr(
            spec,
            key,
            format!(
                "has {} entries but z has {n} levels (one per level)",
                v.len()
            ),
        ));
    }
    Ok(())
}

/// Parse and validate `znode:` parameters.
pub fn params(spec: &Spec) -> Result<ZnodeParams, TopoError> {
    spec.only(&["z", "r", "psi", "layers", "m", "h", "conn", "wiring"])?;
    let z = list_u32(spec, "z", 1, 1 << 20)?.ok_or_else(|| perr(spec, "z", "is required"))?;
    let n = z.len();
    if n > 16 {
        return Err(perr(spec, "z", format!("has {n} levels; at most 16")));
    }
    let r =
        match list_u32(spec, "r", 1, 1 << 20)? {
            Some(r) => r,
            None => {
                let mut r = vec![1u32];
                let mut p = 1u64;
                for &zi in &z[..n - 1] {
                    p *= u64::from(zi);
                    r.push(u32::try_from(p).map_err(|_| {
                        perr(spec, "z", "is too large for the default r (give `r`)")
                    })?);
                }
                r
            }
        };
    need_len(spec, "r", &r, n)?;
    let psi = list_u32(spec, "psi", 1, 1 << 16)?.unwrap_or_else(|| vec![1; n]);
    need_len(spec, "psi", &psi, n)?;
    if psi[0] != 1 {
        return Err(perr(
            spec,
            "psi",
            "ψ_1 must be 1: processors already connect to every level-1 switch of their zone",
        ));
    }
    let layers = spec.opt_u64("layers", 1, 64)?.unwrap_or(1) as u32;
    let m = spec.opt_u64("m", 1, 4096)?.unwrap_or(1) as u32;
    let h = match list_u32(spec, "h", 0, 64)? {
        Some(h) => {
            if m == 1 {
                return Err(perr(spec, "h", "only applies to an Snode (m > 1)"));
            }
            need_len(spec, "h", &h, n)?;
            if h[n - 1] == 0 {
                return Err(perr(
                    spec,
                    "h",
                    "the top level needs side links (h_n ≥ 1), or Znodes could not reach each other",
                ));
            }
            h
        }
        None => vec![u32::from(m > 1); n],
    };
    let block = match spec.get("wiring") {
        None | Some("cyclic") => false,
        Some("block") => true,
        Some(other) => {
            return Err(perr(
                spec,
                "wiring",
                format!("= `{other}` is not `cyclic` or `block`"),
            ))
        }
    };
    let conn_req: Vec<String> = match spec.get("conn") {
        None => vec!["auto".into(); n.saturating_sub(1)],
        Some(v) => {
            let c: Vec<String> = v.split(',').map(|s| s.trim().to_string()).collect();
            if c.len() != n - 1 {
                return Err(perr(
                    spec,
                    "conn",
                    format!(
                        "has {} entries; needs one per level pair (n − 1 = {})",
                        c.len(),
                        n - 1
                    ),
                ));
            }
            c
        }
    };
    let mut conn = Vec::new();
    for i in 1..n {
        let (lo, hi, p) = (r[i - 1], r[i], psi[i]);
        let fwd = hi % lo == 0;
        let bwd = lo % hi == 0;
        let c = match conn_req[i - 1].as_str() {
            "auto" if fwd => Conn::Forward(hi / lo),
            "auto" if bwd => Conn::Backward(lo / hi),
            "auto" | "full" => Conn::Full,
            "fwd" if fwd => Conn::Forward(hi / lo),
            "bwd" if bwd => Conn::Backward(lo / hi),
            "fwd" | "bwd" => {
                return Err(perr(
                    spec,
                    "conn",
                    format!(
                        "`{}` between levels {i} and {} needs an integer ratio of R_{i} = {lo} and R_{} = {hi}",
                        conn_req[i - 1],
                        i + 1,
                        i + 1
                    ),
                ))
            }
            other => {
                return Err(perr(
                    spec,
                    "conn",
                    format!("entry `{other}` is not auto, fwd, bwd or full"),
                ))
            }
        };
        match c {
            Conn::Forward(_) if p > lo => {
                return Err(perr(
                    spec,
                    "psi",
                    format!(
                        "ψ_{} = {p} exceeds R_{i} = {lo} (forward connectivity allows ψ ≤ R_i)",
                        i + 1
                    ),
                ))
            }
            Conn::Backward(_) if p > hi => {
                return Err(perr(
                    spec,
                    "psi",
                    format!(
                        "ψ_{} = {p} exceeds R_{} = {hi} (backward connectivity allows ψ ≤ R_{{i+1}})",
                        i + 1,
                        i + 1
                    ),
                ))
            }
            Conn::Full if p != 1 => {
                return Err(perr(
                    spec,
                    "psi",
                    format!(
                        "ψ_{} = {p} with full connectivity between levels {i} and {} (R ratio {lo}:{hi}); full connectivity needs ψ = 1",
                        i + 1,
                        i + 1
                    ),
                ))
            }
            _ => {}
        }
        conn.push(c);
    }
    let p = ZnodeParams {
        z,
        r,
        psi,
        layers,
        m,
        h,
        conn,
        block,
    };
    check_size(spec, &p, &znode_keys(spec))?;
    Ok(p)
}

/// The spec keys (and processor-count formula) that size errors name: a k-ary n-tree
/// or an XGFT has no `z` or `r` of its own.
struct SizeKeys {
    /// Key and formula for the processor count.
    hosts: (&'static str, &'static str),
    /// Keys for a switch's down, up and side ports (and R_1, a processor's ports).
    down: &'static str,
    up: &'static str,
    side: &'static str,
    /// Key for the network's total port count.
    total: &'static str,
}

/// Size keys of `znode:` / `snode:` specs (side links counted by `h` when given).
fn znode_keys(spec: &Spec) -> SizeKeys {
    SizeKeys {
        hosts: ("z", "m·∏z_i"),
        down: "z",
        up: "r",
        side: if spec.get("h").is_some() { "h" } else { "m" },
        total: "z",
    }
}

fn check_size(spec: &Spec, p: &ZnodeParams, keys: &SizeKeys) -> Result<(), TopoError> {
    let hosts =
        p.z.iter()
            .try_fold(u64::from(p.m), |a, &x| a.checked_mul(u64::from(x)))
            .unwrap_or(u64::MAX);
    if hosts > MAX_HOSTS {
        return Err(perr(
            spec,
            keys.hosts.0,
            format!(
                "gives {hosts} processors ({}); at most {MAX_HOSTS}",
                keys.hosts.1
            ),
        ));
    }
    let host_ports = u64::from(p.r[0]) * u64::from(p.layers);
    if host_ports > u64::from(u16::MAX) {
        return Err(perr(
            spec,
            keys.up,
            format!("R_1·layers = {host_ports} ports per processor; at most 65535"),
        ));
    }
    let mut total = 0u64;
    for i in 1..=p.n() {
        let (down, up, side) = (p.down_links(i), p.up_links(i), p.side_links(i));
        let ports = down + up + side;
        if ports > u64::from(u16::MAX) {
            let key = if down >= up.max(side) {
                keys.down
            } else if up >= side {
                keys.up
            } else {
                keys.side
            };
            return Err(perr(
                spec,
                key,
                format!(
                    "level-{i} switches would have {ports} ports ({down} down, {up} up, \
                     {side} side); at most 65535"
                ),
            ));
        }
        total = total.saturating_add(
            ports
                .saturating_mul(p.switches_at(i))
                .saturating_mul(u64::from(p.m) * u64::from(p.layers)),
        );
    }
    if total > MAX_PORTS {
        return Err(perr(
            spec,
            keys.total,
            format!("the network would have {total} switch ports; at most {MAX_PORTS}"),
        ));
    }
    Ok(())
}

/// Build a Znode/Snode from validated parameters.
pub fn generate(spec: &Spec, p: &ZnodeParams) -> Result<Topology, TopoError> {
    let geom = Geometry::new(&p.z, p.m).map_err(|e| TopoError::Invalid {
        spec: spec.to_string(),
        why: e.to_string(),
    })?;
    let n = p.n();
    let mut t = Topology::new(spec.clone());
    // switch index: ((k·layers + y)·S + off_i + zone·R_i + r)
    let per_level: Vec<u64> = (1..=n).map(|i| p.switches_at(i)).collect();
    let block: u64 = per_level.iter().sum();
    let off: Vec<u64> = (0..n).map(|i| per_level[..i].iter().sum::<u64>()).collect();
    let idx = |k: u32, y: u32, i: usize, zone: u64, r: u32| -> u32 {
        ((u64::from(k) * u64::from(p.layers) + u64::from(y)) * block
            + off[i - 1]
            + zone * u64::from(p.r[i - 1])
            + u64::from(r)) as u32
    };
    for k in 0..p.m {
        for y in 0..p.layers {
            for i in 1..=n {
                for zone in 0..p.zones(i) {
                    for r in 0..p.r[i - 1] {
                        let s = t.add_switch(
                            format!("sw-k{k}-y{y}-l{i}-z{zone}-r{r}"),
                            i as u16,
                            k,
                            zone,
                            r,
                        );
                        debug_assert_eq!(s, idx(k, y, i, zone, r));
                    }
                }
            }
        }
    }
    // processors, in logical order, to every level-1 switch of their zone in every layer
    let z1 = u64::from(p.z[0]);
    for x in 0..geom.hosts() {
        let (k, labels) = geom.labels(x).map_err(|e| TopoError::Invalid {
            spec: spec.to_string(),
            why: e.to_string(),
        })?;
        let h = t.add_host(x, geom.physical(k, &labels));
        let zone = (x / z1) % p.zones(1);
        for y in 0..p.layers {
            for r in 0..p.r[0] {
                t.link(
                    End::Host(h),
                    PortSpec::up(),
                    End::Switch(idx(k, y, 1, zone, r)),
                    PortSpec::down(labels[0]),
                );
            }
        }
    }
    // level i -> i+1
    for k in 0..p.m {
        for y in 0..p.layers {
            for i in 1..n {
                let zi1 = u64::from(p.z[i]);
                for zone in 0..p.zones(i) {
                    let label = (zone % zi1) as u32;
                    let parent = zone / zi1;
                    for r in 0..p.r[i - 1] {
                        for u in p.ups(i, r) {
                            t.link(
                                End::Switch(idx(k, y, i, zone, r)),
                                PortSpec::up(),
                                End::Switch(idx(k, y, i + 1, parent, u)),
                                PortSpec::down(label),
                            );
                        }
                    }
                }
            }
        }
    }
    // side links
    for k in 0..p.m {
        for k2 in k + 1..p.m {
            for y in 0..p.layers {
                for i in 1..=n {
                    for zone in 0..p.zones(i) {
                        for r in 0..p.r[i - 1] {
                            for _ in 0..p.h[i - 1] {
                                t.link(
                                    End::Switch(idx(k, y, i, zone, r)),
                                    PortSpec::side(k2),
                                    End::Switch(idx(k2, y, i, zone, r)),
                                    PortSpec::side(k),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    // Side links are added in (k, k2) order, so every switch's side ports come out
    // in ascending target-Znode order.
    t.znode = Some(ZnodeShape {
        z: p.z.clone(),
        m: p.m,
    });
    Ok(t)
}

/// Build from a `znode:` / `snode:` spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    let p = params(spec)?;
    generate(spec, &p)
}

/// `kary-ntree:k=K;n=N`: z = (k, …, k), R = (1, k, …, k^{n−1}) (notes A15).
pub fn build_kary(spec: &Spec) -> Result<Topology, TopoError> {
    spec.only(&["k", "n"])?;
    let k = spec.req_u64("k", 2, 1024)? as u32;
    let n = spec.req_u64("n", 1, 16)? as usize;
    let mut r = vec![1u32];
    for _ in 1..n {
        let next = u64::from(*r.last().unwrap_or(&1)) * u64::from(k);
        r.push(u32::try_from(next).map_err(|_| perr(spec, "n", "gives too many switches"))?);
    }
    let p = ZnodeParams {
        z: vec![k; n],
        r,
        psi: vec![1; n],
        layers: 1,
        m: 1,
        h: vec![0; n],
        conn: (1..n).map(|_| Conn::Forward(k)).collect(),
        block: false,
    };
    let keys = SizeKeys {
        hosts: ("n", "k^n"),
        down: "k",
        up: "k",
        side: "k",
        total: "n",
    };
    check_size(spec, &p, &keys)?;
    generate(spec, &p)
}

/// `xgft:h=H;m=m1,..,mH;w=w1,..,wH`: z = m, R_i = w_1⋯w_i (notes A16).
pub fn build_xgft(spec: &Spec) -> Result<Topology, TopoError> {
    spec.only(&["h", "m", "w"])?;
    let h = spec.req_u64("h", 1, 16)? as usize;
    let m: Vec<u32> = spec
        .req_list("m", 1, 1 << 20)?
        .into_iter()
        .map(|x| x as u32)
        .collect();
    let w: Vec<u32> = spec
        .req_list("w", 1, 1 << 16)?
        .into_iter()
        .map(|x| x as u32)
        .collect();
    if m.len() != h {
        return Err(perr(
            spec,
            "m",
            format!("has {} entries but h = {h} (one per level)", m.len()),
        ));
    }
    if w.len() != h {
        return Err(perr(
            spec,
            "w",
            format!("has {} entries but h = {h} (one per level)", w.len()),
        ));
    }
    let mut r = Vec::with_capacity(h);
    let mut acc = 1u64;
    for &wi in &w {
        acc *= u64::from(wi);
        r.push(u32::try_from(acc).map_err(|_| perr(spec, "w", "product too large"))?);
    }
    let p = ZnodeParams {
        z: m,
        conn: (1..h).map(|i| Conn::Forward(w[i])).collect(),
        r,
        psi: vec![1; h],
        layers: 1,
        m: 1,
        h: vec![0; h],
        block: false,
    };
    let keys = SizeKeys {
        hosts: ("m", "m_1⋯m_h"),
        down: "m",
        up: "w",
        side: "w",
        total: "m",
    };
    check_size(spec, &p, &keys)?;
    generate(spec, &p)
}

/// The source-side geometry of a topology with Znode labels (z, m, and the levels that
/// have side links, found from the graph).
pub fn geometry(t: &Topology) -> Option<Geometry> {
    let s = t.znode.as_ref()?;
    let g = Geometry::new(&s.z, s.m).ok()?;
    if s.m <= 1 {
        return Some(g);
    }
    let n = s.z.len();
    let all = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut mask = 0u64;
    for sw in &t.switches {
        let bit = 1u64 << (u32::from(sw.level.max(1)) - 1).min(63);
        if mask & bit == 0 && sw.ports.iter().any(|p| p.role == super::PortRole::Side) {
            mask |= bit;
            if mask & all == all {
                break;
            }
        }
    }
    g.clone().with_side_levels(mask & all).ok().or(Some(g))
}

fn labels_string(k: u32, p: &[u32]) -> String {
    let inner: Vec<String> = p.iter().rev().map(|x| x.to_string()).collect();
    format!("({k};{})", inner.join(","))
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Some(g) = geometry(t) else {
        return Vec::new();
    };
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let Ok((k, p)) = g.labels(host.index) else {
        return Vec::new();
    };
    let phys = g.physical(k, &p);
    let mut fields = Vec::new();
    if g.a() > 0 {
        fields.push(format!("{:0w$b}", k, w = usize::from(g.a())));
    }
    for i in (0..g.n()).rev() {
        let w = usize::from(g.b()[i]);
        if w > 0 {
            fields.push(format!("{:0w$b}", p[i], w = w));
        }
    }
    let widths: Vec<String> = g.b().iter().rev().map(|b| b.to_string()).collect();
    vec![
        ("labels".into(), labels_string(k, &p)),
        ("physical".into(), phys.to_string()),
        (
            "physical bin".into(),
            format!(
                "{} (fields p_n+1 | p_n .. p_1, widths a={}; b_n..b_1={})",
                fields.join(" "),
                g.a(),
                widths.join(",")
            ),
        ),
        ("znode".into(), k.to_string()),
        (
            "level-1 zone".into(),
            (host.index / u64::from(g.z()[0])
                % (g.hosts() / u64::from(g.m()) / u64::from(g.z()[0])))
            .to_string(),
        ),
    ]
}

/// Why `v` did not parse: too large for its field, or not a number at all.
fn not_a_number(what: &'static str, v: &str, e: &std::num::ParseIntError) -> HostError {
    let value = v.to_string();
    match e.kind() {
        std::num::IntErrorKind::PosOverflow => HostError::TooLarge { what, value },
        _ => HostError::NotANumber { what, value },
    }
}

/// Family-specific host syntax: `(k;p_n,…,p_1)` (or `(p_n,…,p_1)` when m = 1) and
/// `phys:<address>`. `None` if `s` is in neither syntax.
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let given = s;
    let s = s.trim();
    let g = geometry(t)?;
    let r = if let Some(v) = s.strip_prefix("phys:") {
        parse_physical(&g, v.trim())
    } else {
        parse_labels(&g, s.strip_prefix('(')?.strip_suffix(')')?)
    };
    Some(
        r.and_then(|x| {
            t.hosts
                .iter()
                .position(|h| h.index == x)
                .map(|i| i as u32)
                .ok_or(HostError::NoProcessor(x))
        })
        .map_err(|why| TopoError::bad_host(t, given, why)),
    )
}

/// Logical address of physical address `v` (decimal, `0x…` or `0b…`).
fn parse_physical(g: &Geometry, v: &str) -> Result<u64, HostError> {
    let phys = if let Some(hx) = v.strip_prefix("0x") {
        u64::from_str_radix(hx, 16)
    } else if let Some(b) = v.strip_prefix("0b") {
        u64::from_str_radix(b, 2)
    } else {
        v.parse()
    };
    let phys = phys.map_err(|e| not_a_number("", v, &e))?;
    let (k, p) = g.from_physical(phys).map_err(HostError::Physical)?;
    Ok(g.logical(k, &p))
}

/// Logical address of `k;p_n,…,p_1` (or `p_n,…,p_1` when m = 1).
fn parse_labels(g: &Geometry, inner: &str) -> Result<u64, HostError> {
    let (k, rest) = match inner.split_once(';') {
        Some((k, r)) => (
            k.trim()
                .parse::<u32>()
                .map_err(|e| not_a_number("Znode id ", k, &e))?,
            r,
        ),
        None if g.m() == 1 => (0, inner),
        None => return Err(HostError::NeedsZnodeId { levels: g.n() }),
    };
    let mut labels = Vec::new();
    for part in rest.split(',') {
        let part = part.trim();
        labels.push(
            part.parse::<u32>()
                .map_err(|e| not_a_number("label ", part, &e))?,
        );
    }
    if labels.len() != g.n() {
        return Err(HostError::LabelCount {
            levels: g.n(),
            got: labels.len(),
        });
    }
    labels.reverse(); // written p_n..p_1
    if k >= g.m() {
        return Err(HostError::ZnodeId { k, m: g.m() });
    }
    for (i, (&v, &zi)) in labels.iter().zip(g.z()).enumerate() {
        if v >= zi {
            return Err(HostError::Label {
                level: i + 1,
                label: v,
                z: zi,
            });
        }
    }
    Ok(g.logical(k, &labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{build_str, describe_host, parse_host, Peer, PortRole};
    use std::collections::BTreeMap;

    fn per_level(t: &Topology) -> BTreeMap<u16, usize> {
        let mut m = BTreeMap::new();
        for s in &t.switches {
            *m.entry(s.level).or_insert(0) += 1;
        }
        m
    }

    fn ports_per_level(t: &Topology) -> BTreeMap<u16, Vec<usize>> {
        let mut m: BTreeMap<u16, Vec<usize>> = BTreeMap::new();
        for s in &t.switches {
            let v = m.entry(s.level).or_default();
            if !v.contains(&s.ports.len()) {
                v.push(s.ports.len());
            }
        }
        m
    }

    #[test]
    fn thesis_snode_counts_match_reference_model() {
        // zsf_ref.py "table6.1 ex1 m=2 z=(3,2,3) R=(1,3,6)": P = 36, switches/level
        // {1: 12, 2: 18, 3: 12}, ports/switch {1: 7, 2: 5, 3: 4}.
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        t.validate().unwrap();
        assert_eq!(t.hosts.len(), 36);
        assert_eq!(per_level(&t), BTreeMap::from([(1, 12), (2, 18), (3, 12)]));
        assert_eq!(
            ports_per_level(&t),
            BTreeMap::from([(1, vec![7]), (2, vec![5]), (3, vec![4])])
        );
        // default r is the minimal rule (1, z1, z1 z2) = (1,3,6)
        let d = build_str("znode:z=3,2,3;m=2").unwrap();
        assert_eq!(d.switches.len(), t.switches.len());
        assert_eq!(d.link_count(), t.link_count());
    }

    #[test]
    fn reference_model_shapes() {
        // zsf_ref.py output: (spec, hosts, switches/level, ports/switch by level)
        type PerLevel = &'static [(u16, usize)];
        let cases: &[(&str, usize, PerLevel, PerLevel)] = &[
            (
                "znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=4",
                128,
                &[(1, 64), (2, 64), (3, 32)],
                &[(1, 11), (2, 11), (3, 11)],
            ),
            ("znode:z=4,2;r=1,4", 8, &[(1, 2), (2, 4)], &[(1, 8), (2, 2)]),
            (
                "znode:z=4,2,2;r=8,4,2;psi=1,2,2;layers=2",
                16,
                &[(1, 64), (2, 16), (3, 4)],
                &[(1, 6), (2, 10), (3, 8)],
            ),
            (
                "znode:z=2,3,2;r=2,3,2;m=3",
                36,
                &[(1, 36), (2, 18), (3, 6)],
                &[(1, 7), (2, 10), (3, 8)],
            ),
            (
                "znode:z=2,2,4;r=1,2,4",
                16,
                &[(1, 8), (2, 8), (3, 4)],
                &[(1, 4), (2, 4), (3, 4)],
            ),
        ];
        for (spec, hosts, lv, ports) in cases {
            let t = build_str(spec).unwrap();
            t.validate().unwrap();
            assert_eq!(t.hosts.len(), *hosts, "{spec}");
            assert_eq!(
                per_level(&t),
                lv.iter().copied().collect::<BTreeMap<_, _>>(),
                "{spec}"
            );
            assert_eq!(
                ports_per_level(&t),
                ports
                    .iter()
                    .map(|&(l, p)| (l, vec![p]))
                    .collect::<BTreeMap<_, _>>(),
                "{spec}"
            );
        }
    }

    #[test]
    fn app_e_network_map() {
        // Appendix E (T:L5960-5964): z=(4,2), R=(1,4): "8 processors 6 switches";
        // Switch [0][1][0] serves processors 0-3, [0][1][1] serves 4-7.
        let t = build_str("znode:z=4,2;r=1,4").unwrap();
        assert_eq!((t.hosts.len(), t.switches.len()), (8, 6));
        for x in 0..8u64 {
            let h = &t.hosts[x as usize];
            let Peer::Switch { sw, .. } = h.ports[0].peer else {
                panic!()
            };
            assert_eq!(t.switches[sw as usize].zone, x / 4);
        }
    }

    #[test]
    fn graph_contract_labels_and_zones() {
        for spec in [
            "znode:z=3,2,3;r=1,3,6;m=2",
            "znode:z=4,2,4;r=2,4,8;psi=1,2,2;m=2",
            "znode:z=2,3,2;r=2,3,2;m=3;h=0,2,1",
            "kary-ntree:k=2;n=4",
            "xgft:h=2;m=3,4;w=2,2",
        ] {
            let t = build_str(spec).unwrap();
            t.validate().unwrap();
            // (I1)-(I3): zones, labels and groups of every down, up and side port
            t.check_znode_contract()
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
            // host labels against eq 6.1/6.2, computed independently of the generator
            let g = geometry(&t).unwrap();
            for s in &t.switches {
                for p in &s.ports {
                    if let (PortRole::Down, Peer::Host { host, .. }) = (p.role, p.peer) {
                        assert_eq!(s.level, 1, "{spec}");
                        let x = t.hosts[host as usize].index;
                        let (k, lab) = g.labels(x).unwrap();
                        assert_eq!((lab[0], k), (p.label, s.znode), "{spec} {}", s.name);
                    }
                }
            }
        }
    }

    #[test]
    fn kary_and_xgft_shapes() {
        // k-ary n-tree: k^(n-1) switches per level, 2k ports (k at the top).
        let t = build_str("kary-ntree:k=4;n=3").unwrap();
        assert_eq!(per_level(&t), BTreeMap::from([(1, 16), (2, 16), (3, 16)]));
        assert_eq!(
            ports_per_level(&t),
            BTreeMap::from([(1, vec![8]), (2, vec![8]), (3, vec![4])])
        );
        assert_eq!(t.hosts.len(), 64);
        let t = build_str("kary-ntree:k=2;n=4").unwrap();
        assert_eq!(t.hosts.len(), 16);
        assert_eq!(t.switches.len(), 32);
        // XGFT(2; 4,4; 1,4): 4 leaves of 4 processors, 4 tops with 4 children each.
        let t = build_str("xgft:h=2;m=4,4;w=1,4").unwrap();
        assert_eq!(per_level(&t), BTreeMap::from([(1, 4), (2, 4)]));
        assert_eq!(
            ports_per_level(&t),
            BTreeMap::from([(1, vec![8]), (2, vec![4])])
        );
        // XGFT(2; 3,4; 2,2): level-1 switches = w1·m2 = 8, level 2 = w1 w2 = 4;
        // processors have w1 = 2 parents, level-1 switches m1 + w2 = 5 ports, level-2
        // switches m2 = 4 children.
        let t = build_str("xgft:h=2;m=3,4;w=2,2").unwrap();
        assert_eq!(per_level(&t), BTreeMap::from([(1, 8), (2, 4)]));
        assert_eq!(
            ports_per_level(&t),
            BTreeMap::from([(1, vec![5]), (2, vec![4])])
        );
        assert!(t.hosts.iter().all(|h| h.ports.len() == 2));
    }

    #[test]
    fn block_wiring_equals_fat_tree_k4() {
        // z=(2,2,4), R=(1,2,4), block wiring: agg a of each pod connects to cores
        // 2a and 2a+1, as in the Al-Fares k=4 fat tree.
        let t = build_str("znode:z=2,2,4;r=1,2,4;wiring=block").unwrap();
        for s in t.switches.iter().filter(|s| s.level == 2) {
            let cores: Vec<u32> = s
                .ports
                .iter()
                .filter(|p| p.role == PortRole::Up)
                .map(|p| match p.peer {
                    Peer::Switch { sw, .. } => t.switches[sw as usize].index,
                    _ => panic!(),
                })
                .collect();
            assert_eq!(cores, vec![2 * s.index, 2 * s.index + 1]);
        }
    }

    #[test]
    fn addresses_thesis() {
        // notes §2, Table 6.1: logical 26 -> (1;1,0,2) -> physical 42; X=5 -> (0;0,1,2) -> 6
        let t = build_str("znode:z=3,2,3;m=2").unwrap();
        let rows: BTreeMap<String, String> = describe_host(&t, 26).into_iter().collect();
        assert_eq!(rows["labels"], "(1;1,0,2)");
        assert_eq!(rows["physical"], "42");
        assert!(
            rows["physical bin"].starts_with("1 01 0 10"),
            "{}",
            rows["physical bin"]
        );
        assert_eq!(rows["znode"], "1");
        let rows: BTreeMap<String, String> = describe_host(&t, 5).into_iter().collect();
        assert_eq!(
            (rows["labels"].as_str(), rows["physical"].as_str()),
            ("(0;0,1,2)", "6")
        );
        assert_eq!(parse_host(&t, "(1;1,0,2)").unwrap(), 26);
        assert_eq!(parse_host(&t, "phys:42").unwrap(), 26);
        assert_eq!(parse_host(&t, "phys:0b000110").unwrap(), 5);
        assert_eq!(parse_host(&t, "h7").unwrap(), 7);
        for bad in [
            "(2;0,0,0)",
            "(0;3,0,0)",
            "(0;0,0)",
            "(1,0,2)",
            "phys:3",
            "phys:x",
        ] {
            let e = parse_host(&t, bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        let t1 = build_str("kary-ntree:k=4;n=3").unwrap();
        assert_eq!(parse_host(&t1, "(3,2,1)").unwrap(), 3 * 16 + 2 * 4 + 1);
    }

    #[test]
    fn too_large_numbers_are_called_too_large() {
        // "(4294967296;0,0,0)" said "Znode id `4294967296` is not a number".
        let t = build_str("znode:z=3,2,3;m=2").unwrap();
        for (bad, want) in [
            ("(4294967296;0,0,0)", "Znode id `4294967296` is too large"),
            ("(1;4294967296,0,0)", "label `4294967296` is too large"),
            (
                "phys:99999999999999999999",
                "`99999999999999999999` is too large",
            ),
            (
                "phys:0x10000000000000000",
                "`0x10000000000000000` is too large",
            ),
            ("(x;0,0,0)", "Znode id `x` is not a number"),
            ("(1;-1,0,0)", "label `-1` is not a number"),
            ("phys:0b2", "`0b2` is not a number"),
        ] {
            let e = parse_host(&t, bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn rejects_impossible_parameters_naming_them() {
        for (spec, key) in [
            ("znode:r=1,2", "`z`"),
            ("znode:z=3,2,3;r=1,3", "`r`"),
            ("znode:z=3,2,3;psi=2,1,1", "`psi`"),
            ("znode:z=2,2;r=2,4;psi=1,3", "`psi`"),
            ("znode:z=2,2;r=4,2;psi=1,3", "`psi`"),
            ("znode:z=2,2;r=2,3;psi=1,2", "`psi`"),
            ("znode:z=2,2;h=1,1", "`h`"),
            ("znode:z=2,2;m=2;h=1,0", "`h`"),
            ("znode:z=2,2;m=2;h=1", "`h`"),
            ("znode:z=2,2;r=2,3;conn=fwd", "`conn`"),
            ("znode:z=2,2;conn=up", "`conn`"),
            ("znode:z=2,2;conn=fwd,fwd", "`conn`"),
            ("znode:z=2,2;wiring=omega", "`wiring`"),
            ("znode:z=2,2;layers=0", "`layers`"),
            ("znode:z=2,2;q=1", "`q`"),
            ("znode:z=1024,1024,1024", "`z`"),
            ("znode:z=2,2;r=1,70000", "`r`"),
            ("xgft:h=2;m=4;w=1,4", "`m`"),
            ("xgft:h=2;m=4,4;w=1", "`w`"),
            ("kary-ntree:k=1;n=3", "`k`"),
            ("kary-ntree:k=4", "`n`"),
        ] {
            let e = build_str(spec).unwrap_err().to_string();
            assert!(e.contains(key), "{spec}: {e}");
        }
    }

    #[test]
    fn size_errors_name_a_parameter_of_the_family() {
        // kary-ntree and xgft have no `z` or `r`; their size errors used to name them
        // ("kary-ntree:k=1024;n=3: parameter `z` gives ... (m·∏z_i)").
        for (spec, key, why) in [
            (
                "kary-ntree:k=1024;n=3",
                "`n`",
                "1073741824 processors (k^n)",
            ),
            ("kary-ntree:k=1024;n=2", "", ""),
            ("kary-ntree:k=8;n=7", "`n`", "switch ports"),
            (
                "xgft:h=2;m=4,4;w=1,65536",
                "`w`",
                "65540 ports (4 down, 65536 up, 0 side)",
            ),
            (
                "xgft:h=2;m=1048576,1;w=1,1",
                "`m`",
                "1048577 ports (1048576 down, 1 up",
            ),
            ("xgft:h=2;m=1048576,4;w=1,1", "`m`", "processors (m_1⋯m_h)"),
            // a Znode's level-1 down ports are z_1, not a matter of `r`
            (
                "znode:z=1048576",
                "`z`",
                "1048576 ports (1048576 down, 0 up, 0 side)",
            ),
            (
                "znode:z=1,1;r=1,1048576",
                "`r`",
                "1048577 ports (1 down, 1048576 up",
            ),
            ("znode:z=2;m=2;h=64", "", ""),
            (
                "znode:z=2,2;m=4096;h=17,17",
                "`h`",
                "(2 down, 2 up, 69615 side)",
            ),
        ] {
            let r = build_str(spec);
            if key.is_empty() {
                assert!(r.is_ok(), "{spec}: {:?}", r.err());
                continue;
            }
            let e = r.unwrap_err().to_string();
            assert!(
                e.contains(&format!("parameter {key}")) && e.contains(why),
                "{spec}: {e}"
            );
        }
    }

    fn list(v: &[u32]) -> String {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]
        #[test]
        fn arbitrary_parameters_never_panic(
            z in proptest::collection::vec(0u32..6, 0..4),
            r in proptest::option::of(proptest::collection::vec(0u32..9, 0..4)),
            psi in proptest::option::of(proptest::collection::vec(0u32..4, 0..4)),
            h in proptest::option::of(proptest::collection::vec(0u32..3, 0..4)),
            m in 0u32..4,
            layers in 0u32..3,
            conn in proptest::option::of(proptest::collection::vec(0usize..5, 0..3)),
        ) {
            let mut spec = format!("znode:z={};m={m};layers={layers}", list(&z));
            if let Some(r) = r { spec += &format!(";r={}", list(&r)); }
            if let Some(p) = psi { spec += &format!(";psi={}", list(&p)); }
            if let Some(h) = h { spec += &format!(";h={}", list(&h)); }
            if let Some(c) = conn {
                let names = ["auto", "fwd", "bwd", "full", "x"];
                let c: Vec<&str> = c.iter().map(|&i| names[i]).collect();
                spec += &format!(";conn={}", c.join(","));
            }
            if let Ok(t) = build_str(&spec) {
                proptest::prop_assert!(t.validate().is_ok(), "{}", spec);
                for h in 0..t.hosts.len() as u32 {
                    let _ = describe_host(&t, h);
                }
            }
        }

        #[test]
        fn arbitrary_host_strings_never_panic(s in "(\\(|phys:|h)?[0-9;,()xb ]{0,12}") {
            let t = build_str("znode:z=3,2,3;m=2").unwrap();
            if let Ok(h) = parse_host(&t, &s) {
                proptest::prop_assert!((h as usize) < t.hosts.len());
            }
        }
    }
}
