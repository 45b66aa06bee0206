//! Znode/Snode parameters: parsing and validating a spec's `z`, `r`, `psi`, `layers`,
//! `m`, `h`, `conn` and `wiring` (module docs of [`super`]), and the size guards every
//! Znode-built family shares.

use crate::spec::Spec;
use crate::topology::TopoError;

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
    pub(super) fn zones(&self, level: usize) -> u64 {
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

pub(super) fn perr(spec: &Spec, key: &str, why: impl Into<String>) -> TopoError {
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
    let r = match list_u32(spec, "r", 1, 1 << 20)? {
        Some(r) => r,
        None => minimal_r(spec, &z)?,
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
    let h = side_links(spec, m, n)?;
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
    let conn = connectivity(spec, &r, &psi)?;
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

/// The minimal rule R_1 = 1, R_{i+1} = z_1⋯z_i (docs/sliced-flit.md §5 R3), the default of `r`.
fn minimal_r(spec: &Spec, z: &[u32]) -> Result<Vec<u32>, TopoError> {
    let mut r = vec![1u32];
    let mut p = 1u64;
    for &zi in &z[..z.len() - 1] {
        p *= u64::from(zi);
        r.push(
            u32::try_from(p)
                .map_err(|_| perr(spec, "z", "is too large for the default r (give `r`)"))?,
        );
    }
    Ok(r)
}

/// Side links per level h_1..h_n of an Snode of `m` Znodes and `n` levels (`h`, default
/// one per level when m > 1).
fn side_links(spec: &Spec, m: u32, n: usize) -> Result<Vec<u32>, TopoError> {
    let Some(h) = list_u32(spec, "h", 0, 64)? else {
        return Ok(vec![u32::from(m > 1); n]);
    };
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
    Ok(h)
}

/// Connectivity between each pair of adjacent levels (`conn`, default `auto`), checked
/// against the switch counts `r` and the connectivity degrees `psi`.
fn connectivity(spec: &Spec, r: &[u32], psi: &[u32]) -> Result<Vec<Conn>, TopoError> {
    let n = r.len();
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
    Ok(conn)
}

/// The spec keys (and processor-count formula) that size errors name: a k-ary n-tree
/// or an XGFT has no `z` or `r` of its own.
pub(super) struct SizeKeys {
    /// Key and formula for the processor count.
    pub(super) hosts: (&'static str, &'static str),
    /// Keys for a switch's down, up and side ports (and R_1, a processor's ports).
    pub(super) down: &'static str,
    pub(super) up: &'static str,
    pub(super) side: &'static str,
    /// Key for the network's total port count.
    pub(super) total: &'static str,
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

pub(super) fn check_size(spec: &Spec, p: &ZnodeParams, keys: &SizeKeys) -> Result<(), TopoError> {
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
