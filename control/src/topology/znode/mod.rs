//! Znode / Snode topologies of the \[Znode thesis\] (docs/references.md), and the k-ary
//! n-tree and XGFT built as Znodes. The parts of the construction the thesis's text does
//! not spell out are reconstructed in docs/sliced-flit.md §5 (R1–R7).
//!
//! # Spec parameters (`znode:` / `snode:`)
//! | Key | Meaning | Default |
//! |---|---|---|
//! | `z` | zones per level z_1..z_n (z_1 = processors per level-1 zone) | required |
//! | `r` | routing switches per zone R_1..R_n | the minimal rule R_1 = 1, R_{i+1} = z_1⋯z_i (§5 R3) |
//! | `psi` | connectivity degree ψ_1..ψ_n; ψ_{i+1} is the number of parallel wiring patterns between levels i and i+1; ψ_1 must be 1 | all 1 |
//! | `layers` | l stacked identical layers joined only at the processors | 1 |
//! | `m` | Znodes in the Snode | 1 |
//! | `h` | side links per switch pair at each level h_1..h_n (0 = no side links at that level; h_n ≥ 1) | all 1 (only with m > 1) |
//! | `conn` | connectivity per level pair 1→2 … (n−1)→n: `auto`, `fwd`, `bwd` or `full` | `auto`: forward if R_i divides R_{i+1}, backward if R_{i+1} divides R_i, else full (§5 R1) |
//! | `wiring` | `cyclic` (the reconstruction of §5 R1) or `block` (switch r's G up links go to one block of consecutive switches, the Al-Fares fat-tree pattern) | `cyclic` |
//!
//! Wiring (docs/sliced-flit.md §5 R1), for level-i switch r of a child zone and the R_{i+1} switches of
//! its parent zone, G the integer ratio, t ∈ [0, ψ_{i+1}):
//! * forward (R_{i+1} = G·R_i, ψ ≤ R_i): cyclic g·R_i + (r+t) mod R_i; block ((r+t) mod R_i)·G + g, g ∈ [0,G);
//! * backward (R_i = G·R_{i+1}, ψ ≤ R_{i+1}): cyclic ((r mod R_{i+1}) + t) mod R_{i+1};
//!   block (⌊r/G⌋ + t) mod R_{i+1};
//! * full: every switch of the parent zone (ψ must be 1).
//!
//! Processors attach to all R_1 level-1 switches of their zone, in every layer (App B).
//! Side links join (Znode k, layer, level i, zone, r) to the same position in every other
//! Znode, h_i links each (§5 R2).
//!
//! Switch names: `sw-k{znode}-y{layer}-l{level}-z{zone}-r{index}`. Port order: down ports
//! by label (parallel copies together), then up ports, then side ports by Znode.

use super::{End, PortSpec, TopoError, Topology, ZnodeShape};
use crate::spec::Spec;
use canopy_dataplane::build::sliced::Geometry;
use params::{check_size, perr, SizeKeys};

mod address;
mod params;
#[cfg(test)]
mod tests;

pub use address::{describe_host, geometry, parse_host};
pub use params::{params, Conn, ZnodeParams, MAX_HOSTS, MAX_PORTS};

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

/// `kary-ntree:k=K;n=N`: z = (k, …, k), R = (1, k, …, k^{n−1}) (docs/sliced-flit.md §5 R6).
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

/// `xgft:h=H;m=m1,..,mH;w=w1,..,wH`: z = m, R_i = w_1⋯w_i (docs/sliced-flit.md §5 R7).
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
