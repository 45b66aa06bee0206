//! `fat-tree:k=K`: the three-level fat tree of Al-Fares et al. built from identical K-port
//! switches (\[FT-addressing\]'s "2N ports", N = K/2; docs/references.md), with
//! \[FT-addressing\]'s 32-bit port addresses (docs/addressing.md).
//!
//! * K pods; pod p has K/2 edge switches `edge-p<p>-e<e>` (level 1) and K/2 aggregation
//!   switches `agg-p<p>-a<a>` (level 2); (K/2)² core switches `core-c<c>` (level 3).
//! * Host X = p·(K/2)² + e·(K/2) + h hangs on edge (p, e), edge port h.
//! * Edge (p, e): ports 0..K/2 down to its hosts (label = host id h), ports K/2..K up to
//!   agg (p, a) for a = 0..K/2 (group 0).
//! * Agg (p, a): ports 0..K/2 down to edge (p, e) (label = e), ports K/2..K up to the cores
//!   of group a, `core-c<a·K/2 + i>` for i = 0..K/2 (group 0).
//! * Core c = j·K/2 + i (group j, id i within the group, as \[FT-addressing\] numbers
//!   them): port p down to agg
//!   (p, j) (label = pod p).
//!
//! Graph contract (`topology/mod.rs`): the fat tree is the Znode z = (K/2, K/2, K), m = 1,
//! R = (1, K/2, K²/4) (docs/sliced-flit.md §5 R5). Edge (p, e) has zone p·K/2 + e and
//! index 0, agg (p, a) zone p and index a, core c zone 0 and index c.
//!
//! The port addresses use n = bit length of N − 1 (\[FT-addressing\]'s `n = log2(N-1)`
//! truncates and makes 510 of the 768 port addresses of N = 4 collide; docs/addressing.md).

use super::{End, HostError, PortSpec, Tier, TopoError, Topology, ZnodeShape};
use crate::spec::Spec;

/// Largest K accepted (81,920 switches and 4,194,304 hosts at K = 256).
pub const MAX_K: u64 = 256;

/// Parameters of a built fat tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatTree {
    /// Switch port count K (even).
    pub k: u32,
}

impl FatTree {
    /// Read `k` from a spec (even, 2..=256).
    pub fn from_spec(spec: &Spec) -> Result<FatTree, TopoError> {
        spec.only(&["k"])?;
        let k = spec.req_u64("k", 2, MAX_K)?;
        if k % 2 != 0 {
            return Err(spec
                .invalid("k", format!("= {k} must be even (K/2 ports down, K/2 up)"))
                .into());
        }
        Ok(FatTree { k: k as u32 })
    }

    /// N = K/2 (\[FT-addressing\]'s half port count).
    pub fn half(&self) -> u32 {
        self.k / 2
    }

    /// The address field width n: the bit length of N − 1 (0 for N = 1).
    pub fn n_bits(&self) -> u32 {
        32 - (self.half() - 1).leading_zeros()
    }

    /// Number of hosts K³/4.
    pub fn hosts(&self) -> u64 {
        let k = u64::from(self.k);
        k * k * k / 4
    }

    /// Index of edge switch (p, e).
    pub fn edge_index(&self, p: u32, e: u32) -> u32 {
        p * self.half() + e
    }

    /// Index of agg switch (p, a).
    pub fn agg_index(&self, p: u32, a: u32) -> u32 {
        self.k * self.half() + p * self.half() + a
    }

    /// Index of core switch c.
    pub fn core_index(&self, c: u32) -> u32 {
        2 * self.k * self.half() + c
    }
}

/// \[FT-addressing\]'s 5-segment address of a host, edge or aggregation port towards the
/// pod, `| pod (n+1) | tier (1) | a (n) | type (2) | b (n) |`, written as that note's own
/// C code does (shift and add).
pub fn pod_port_address(n: u32, pod: u32, tier: u32, a: u32, ty: u32, b: u32) -> u32 {
    (((((((pod << 1) + tier) << n) + a) << 2) + ty) << n) + b
}

/// \[FT-addressing\]'s address of an aggregation or core port on an agg–core link,
/// `| pod (n+1) | 1 | type (2) | x (n) | y (n) |`.
pub fn core_port_address(n: u32, pod: u32, ty: u32, x: u32, y: u32) -> u32 {
    (((((((pod << 1) + 1) << 2) + ty) << n) + x) << n) + y
}

/// \[FT-addressing\] address of host `h` on edge `e` of pod `p`, for switches with 2N = `k`
/// ports.
pub fn host_port_address(k: u32, p: u32, e: u32, h: u32) -> u32 {
    let ft = FatTree { k };
    pod_port_address(ft.n_bits(), p, 0, e, 0b00, h)
}

/// The switches in index order: edges `edge-p<p>-e<e>` (level 1), aggs `agg-p<p>-a<a>`
/// (level 2), cores `core-c<c>` (level 3).
pub fn tiers(ft: &FatTree) -> [Tier; 3] {
    let (k, h) = (ft.k, ft.half());
    [
        Tier::split(1, k * h, "edge-p", "-e", h),
        Tier::split(2, k * h, "agg-p", "-a", h),
        Tier::flat(3, h * h, "core-c"),
    ]
}

/// Build from a spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    let ft = FatTree::from_spec(spec)?;
    let (k, h) = (ft.k, ft.half());
    let n = ft.n_bits();
    let mut t = Topology::new(spec.clone());
    t.switches.reserve((k * h + k * h + h * h) as usize);
    t.hosts.reserve_exact(ft.hosts() as usize);
    let [edge, agg, core] = tiers(&ft);
    for i in 0..edge.count {
        t.add_switch(edge.name(i), edge.level, 0, u64::from(i), 0);
    }
    for i in 0..agg.count {
        t.add_switch(agg.name(i), agg.level, 0, u64::from(i / h), i % h);
    }
    for c in 0..core.count {
        t.add_switch(core.name(c), core.level, 0, 0, c);
    }
    for s in &mut t.switches {
        s.ports.reserve_exact(k as usize);
    }
    // Hosts first, so edge ports 0..h are the host ports.
    for p in 0..k {
        for e in 0..h {
            for hh in 0..h {
                let x = u64::from(p) * u64::from(h) * u64::from(h) + u64::from(e * h + hh);
                let host = t.add_host(x, u64::from(pod_port_address(n, p, 0, e, 0b00, hh)));
                t.link(
                    End::Host(host),
                    PortSpec::up(),
                    End::Switch(ft.edge_index(p, e)),
                    PortSpec::down(hh),
                );
            }
        }
    }
    // Edge-agg: edge port h + a <-> agg port e.
    for p in 0..k {
        for e in 0..h {
            for a in 0..h {
                t.link(
                    End::Switch(ft.edge_index(p, e)),
                    PortSpec::up(),
                    End::Switch(ft.agg_index(p, a)),
                    PortSpec::down(e),
                );
            }
        }
    }
    // Agg-core: agg (p, j) port h + i <-> core j·h + i port p.
    for p in 0..k {
        for j in 0..h {
            for i in 0..h {
                t.link(
                    End::Switch(ft.agg_index(p, j)),
                    PortSpec::up(),
                    End::Switch(ft.core_index(j * h + i)),
                    PortSpec::down(p),
                );
            }
        }
    }
    t.znode = Some(ZnodeShape {
        z: vec![h, h, k],
        m: 1,
    });
    Ok(t)
}

/// (pod, edge, host) of host `h`.
pub fn host_coords(t: &Topology, h: u32) -> Option<(u32, u32, u32)> {
    let ft = FatTree::from_spec(&t.spec).ok()?;
    let x = t.hosts.get(h as usize)?.index;
    let half = u64::from(ft.half());
    Some((
        (x / (half * half)) as u32,
        ((x / half) % half) as u32,
        (x % half) as u32,
    ))
}

/// \[FT-addressing\] address of port `port` of switch `sw` (the link end at that switch), or
/// `None` when the switch or port does not exist.
pub fn port_address(t: &Topology, sw: u32, port: u16) -> Option<u32> {
    let ft = FatTree::from_spec(&t.spec).ok()?;
    let s = t.switches.get(sw as usize)?;
    let (h, n) = (ft.half(), ft.n_bits());
    let port = u32::from(port);
    if port >= ft.k {
        return None;
    }
    Some(match s.level {
        1 => {
            let (p, e) = (
                (s.zone / u64::from(h)) as u32,
                (s.zone % u64::from(h)) as u32,
            );
            if port < h {
                pod_port_address(n, p, 0, e, 0b10, port) // edge port towards host
            } else {
                pod_port_address(n, p, 0, e, 0b11, port - h) // edge port towards agg
            }
        }
        2 => {
            let (p, a) = (s.zone as u32, s.index);
            if port < h {
                pod_port_address(n, p, 0, port, 0b01, a) // agg port towards edge
            } else {
                core_port_address(n, p, 0b00, a, port - h) // agg port towards core
            }
        }
        3 => {
            let (j, i) = (s.index / h, s.index % h);
            core_port_address(n, port, 0b01, i, j) // core port towards agg of pod `port`
        }
        _ => return None,
    })
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Ok(ft) = FatTree::from_spec(&t.spec) else {
        return Vec::new();
    };
    let Some((p, e, hh)) = host_coords(t, h) else {
        return Vec::new();
    };
    let n = ft.n_bits();
    let addr = pod_port_address(n, p, 0, e, 0b00, hh);
    let w = 3 * n + 4;
    let bits = format!("{addr:0w$b}", w = w as usize);
    let (b_pod, rest) = bits.split_at(n as usize + 1);
    let (b_tier, rest) = rest.split_at(1);
    let (b_edge, rest) = rest.split_at(n as usize);
    let (b_ty, b_host) = rest.split_at(2);
    let half = ft.half();
    let b1 = 32 - (half - 1).leading_zeros();
    let phys = u64::from(hh) | (u64::from(e) << b1) | (u64::from(p) << (2 * b1));
    vec![
        ("pod.edge.host".into(), format!("{p}.{e}.{hh}")),
        ("edge switch".into(), format!("edge-p{p}-e{e} port {hh}")),
        (
            "znode labels".into(),
            format!("(0;{p},{e},{hh})  (p4;p3,p2,p1), z = ({half},{half},{})", ft.k),
        ),
        ("physical".into(), format!("{phys} (eq 6.3)")),
        (
            "port addr n".into(),
            format!("{n} (bit length of N-1 = {}; 3n+4 = {w} bits)", half - 1),
        ),
        (
            "port addr".into(),
            format!("{addr} ({addr:#x}) = {b_pod}|{b_tier}|{b_edge}|{b_ty}|{b_host} (pod|0|edge|00|host)"),
        ),
    ]
}

/// `pod.edge.host` (e.g. `5.2.3`); `None` if `s` is not in that syntax.
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 3 {
        return None;
    }
    Some(parse_coords(t, s, &parts))
}

fn parse_coords(t: &Topology, s: &str, parts: &[&str]) -> Result<u32, TopoError> {
    let bad = |why| TopoError::bad_host(t, s, why);
    let nums: Vec<u32> = parts
        .iter()
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad(HostError::Syntax("pod.edge.host with three integers")))?;
    let ft = FatTree::from_spec(&t.spec)?;
    let (p, e, hh) = (nums[0], nums[1], nums[2]);
    for (what, value, end) in [
        ("pod", p, ft.k),
        ("edge", e, ft.half()),
        ("host", hh, ft.half()),
    ] {
        if value >= end {
            return Err(bad(HostError::OutOfRange {
                what,
                value: u64::from(value),
                end: u64::from(end),
            }));
        }
    }
    let x =
        u64::from(p) * u64::from(ft.half()) * u64::from(ft.half()) + u64::from(e * ft.half() + hh);
    Ok(x as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{build_str, describe_host, parse_host as generic_parse, Peer, PortRole};
    use std::collections::HashSet;

    #[test]
    fn counts_and_contract() {
        for k in [2u32, 4, 6, 8] {
            let t = build_str(&format!("fat-tree:k={k}")).unwrap();
            let h = k / 2;
            assert_eq!(t.switches.len() as u32, k * h * 2 + h * h);
            assert_eq!(t.hosts.len() as u32, k * k * k / 4);
            assert_eq!(t.levels(), 3);
            t.validate().unwrap();
            assert_eq!(t.znode.as_ref().unwrap().z, vec![h, h, k]);
            // Every switch has K ports; znode labels of every host below a down port.
            for s in &t.switches {
                assert_eq!(s.ports.len() as u32, k, "{}", s.name);
            }
            t.check_znode_contract().unwrap();
        }
    }

    #[test]
    fn host_lists_are_allocated_exactly() {
        // One port per host, allocated as one: a Vec's first growth would reserve four
        // (80 bytes a host instead of 20, 400 MB at K = 256).
        for spec in ["fat-tree:k=8", "vl2:da=8;di=4;servers=3"] {
            let t = build_str(spec).unwrap();
            for h in &t.hosts {
                assert_eq!((h.ports.len(), h.ports.capacity()), (1, 1), "{spec}");
            }
            assert_eq!(t.hosts.capacity(), t.hosts.len(), "{spec}");
        }
    }

    #[test]
    fn names_and_wiring() {
        let t = build_str("fat-tree:k=4").unwrap();
        let idx = |n: &str| t.switch_index(n).unwrap() as u32;
        let agg = &t.switches[idx("agg-p1-a1") as usize];
        // agg (1,1) up port 2+i -> core 1*2+i, port 1 (pod 1)
        assert_eq!(
            agg.ports[3].peer,
            Peer::Switch {
                sw: idx("core-c3"),
                port: 1
            }
        );
        assert_eq!(agg.ports[0].role, PortRole::Down);
        assert_eq!(agg.ports[2].role, PortRole::Up);
        let e = &t.switches[idx("edge-p3-e1") as usize];
        assert_eq!(e.zone, 7);
        assert_eq!(e.ports[1].peer, Peer::Host { host: 15, port: 0 });
    }

    #[test]
    fn ft_addressing_worked_example() {
        // [FT-addressing]'s example host (N = 4, n = 2): host 3 @ edge 2, pod 5 -> 675 = 0x2A3.
        assert_eq!(host_port_address(8, 5, 2, 3), 675);
        let t = build_str("fat-tree:k=8").unwrap();
        let h = generic_parse(&t, "5.2.3").unwrap();
        assert_eq!(t.hosts[h as usize].addr, 675);
        let rows = describe_host(&t, h);
        assert!(
            rows.iter().any(|(_, v)| v.contains("675 (0x2a3)")),
            "{rows:?}"
        );
        let idx = |n: &str| t.switch_index(n).unwrap() as u32;
        // docs/addressing.md's table: edge 2 -> host 3 = 683, edge 2 -> agg 1 = 685,
        // agg 1 -> edge 2 = 677, agg 1 -> core 3 (group 1) = 711, core 3 -> agg 1 = 733.
        let e = idx("edge-p5-e2");
        assert_eq!(port_address(&t, e, 3), Some(683));
        assert_eq!(port_address(&t, e, 4 + 1), Some(685));
        let a = idx("agg-p5-a1");
        assert_eq!(port_address(&t, a, 2), Some(677));
        assert_eq!(port_address(&t, a, 4 + 3), Some(711));
        let c = idx("core-c7"); // group 1, id 3
        assert_eq!(port_address(&t, c, 5), Some(733));
        assert_eq!(port_address(&t, c, 8), None);
    }

    #[test]
    fn ft_addresses_are_unique_and_ends_pair_up() {
        // With n = bit length of N-1 no two of the 768 port addresses of N = 4 collide
        // ([FT-addressing]'s truncating n = 1 gives 510 duplicates; docs/addressing.md).
        let t = build_str("fat-tree:k=8").unwrap();
        let mut seen = HashSet::new();
        let mut count = 0;
        for (si, s) in t.switches.iter().enumerate() {
            for pi in 0..s.ports.len() {
                let a = port_address(&t, si as u32, pi as u16).unwrap();
                assert!(a < 1 << 10, "fits 3n+4 = 10 bits");
                assert!(seen.insert(a), "duplicate {a}");
                count += 1;
            }
        }
        for h in &t.hosts {
            assert!(seen.insert(h.addr as u32));
            count += 1;
        }
        assert_eq!(count, 768);
    }

    #[test]
    fn bad_specs_name_the_parameter() {
        let e = build_str("fat-tree:k=5").unwrap_err().to_string();
        assert!(e.contains("`k`") && e.contains("even"), "{e}");
        let e = build_str("fat-tree:k=258").unwrap_err().to_string();
        assert!(e.contains("`k`"), "{e}");
        let e = build_str("fat-tree:k=4;x=1").unwrap_err().to_string();
        assert!(e.contains("`x`"), "{e}");
        let t = build_str("fat-tree:k=4").unwrap();
        assert!(generic_parse(&t, "4.0.0").is_err());
        assert!(generic_parse(&t, "0.2.0").is_err());
        assert_eq!(generic_parse(&t, "3.1.1").unwrap(), 15);
        assert_eq!(generic_parse(&t, "h15").unwrap(), 15);
    }
}
