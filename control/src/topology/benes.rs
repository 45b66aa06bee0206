//! `benes:m=M;n=N`: \[Benes-802.1au\]'s bidirectional fat tree built by the Beneš
//! construction (Minkenberg & Gusat; docs/references.md), with its shuffle and
//! `routing_lookup` repaired as `docs/benes.md` explains (fixes 1–6 there).
//!
//! * M end nodes, N-port switches, L levels with M = 2·(N/2)^L, S = 2L − 1 stages of
//!   d = (N/2)^(L−1) switches `st<s>-sw<i>`.
//! * Switch port q < N/2 faces right (towards stage s + 1), port N/2 + q faces left.
//!   Nodes 0..M/2 hang on the left ports of stage 0 (node m on switch m/(N/2), port
//!   N/2 + m mod N/2), nodes M/2..M on the right ports of stage S − 1.
//! * Right port q of switch i at stage s (stage port p = i·N/2 + q) links to left port
//!   r mod N/2 of switch r/(N/2) at stage s + 1, r = `benes_shuffle(M/2, N/2, S, s, p)`.
//! * Folded, stages s and S − 1 − s are level min(s, S − 1 − s) + 1; the middle stage is
//!   the top (all N ports down). Left-half stages have their left ports down, right-half
//!   stages their right ports.
//!
//! Graph contract: the result is the Znode z = (N/2, …, N/2, N) (L entries), m = 1,
//! R = (1, N/2, …, (N/2)^(L−1)) (docs/sliced-flit.md §5 R5); host index = node id m. A switch at level
//! l + 1 (l = 0-based level) serves nodes [start, start + (N/2)^(l+1)) with start as in
//! `routing_lookup`; its zone is start / (N/2)^(l+1) and its index i / x.

use super::{HostError, Peer, Port, PortDir, PortRole, TopoError, Topology, ZnodeShape};
use crate::spec::Spec;

/// Most switch ports a generated Beneš fat tree may have (memory guard, as for Znodes).
pub const MAX_PORTS: u64 = super::znode::MAX_PORTS;

/// Beneš fat-tree parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Benes {
    /// End nodes M.
    pub m: u32,
    /// Switch radix N.
    pub n: u32,
    /// Levels L (M = 2·(N/2)^L).
    pub l: u32,
}

fn ipow(b: u32, e: u32) -> u32 {
    b.pow(e)
}

/// \[Benes-802.1au\]'s `perfect_shuffle(X, Y, i)` = (Y·i + i/(X/Y)) mod X.
pub fn perfect_shuffle(x: u32, y: u32, i: u32) -> u32 {
    (y * i + i / (x / y)) % x
}

/// \[Benes-802.1au\]'s `inverse_perfect_shuffle(X, Y, i)` = (i/Y + i·(X/Y)) mod X.
pub fn inverse_perfect_shuffle(x: u32, y: u32, i: u32) -> u32 {
    (i / y + i * (x / y)) % x
}

/// \[Benes-802.1au\]'s `benes_shuffle` with its duplicated parameter read as `(X, Y, S, s, p)`
/// (docs/benes.md fix 1) and integer powers (fix 2): the stage-(s+1) left port that stage
/// s's right port `p` links to.
pub fn benes_shuffle(x: u32, y: u32, big_s: u32, s: u32, p: u32) -> u32 {
    let first_half = s < (big_s - 1) / 2;
    let k = if first_half {
        x / ipow(y, s)
    } else {
        x / ipow(y, (big_s - 1) - s - 1)
    };
    let (i, kk) = (p / k, p % k);
    if first_half {
        i * k + inverse_perfect_shuffle(k, y, kk)
    } else {
        i * k + perfect_shuffle(k, y, kk)
    }
}

impl Benes {
    /// Read and check `m` and `n`.
    pub fn from_spec(spec: &Spec) -> Result<Benes, TopoError> {
        spec.only(&["m", "n"])?;
        let n = spec.req_u64("n", 4, 64)?;
        if n % 2 != 0 {
            return Err(spec
                .invalid("n", format!("= {n} must be even (N/2 ports face each way)"))
                .into());
        }
        let m = spec.req_u64("m", 8, 1 << 20)?;
        let y = n / 2;
        let mut half = y; // (N/2)^L
        let mut l = 1;
        while half < m / 2 {
            half *= y;
            l += 1;
        }
        if m % 2 != 0 || half != m / 2 || l < 2 {
            return Err(spec
                .invalid(
                    "m",
                    format!(
                        "= {m} must be 2·(N/2)^L for some L >= 2 with N = {n} (e.g. {}, {}, {})",
                        2 * y * y,
                        2 * y * y * y,
                        2 * y * y * y * y
                    ),
                )
                .into());
        }
        let b = Benes {
            m: m as u32,
            n: n as u32,
            l,
        };
        let ports = u64::from(b.stages()) * u64::from(b.per_stage()) * n;
        if ports > MAX_PORTS {
            return Err(spec
                .invalid(
                    "m",
                    format!(
                        "= {m} with N = {n} gives {} stages of {} switches = {ports} switch \
                         ports; at most {MAX_PORTS} are built (use a larger N or a smaller M)",
                        b.stages(),
                        b.per_stage()
                    ),
                )
                .into());
        }
        Ok(b)
    }

    /// Stages S = 2L − 1.
    pub fn stages(&self) -> u32 {
        2 * self.l - 1
    }
    /// Switches per stage d = (N/2)^(L−1).
    pub fn per_stage(&self) -> u32 {
        ipow(self.n / 2, self.l - 1)
    }
    /// 0-based level of stage s.
    pub fn level0(&self, s: u32) -> u32 {
        let big_s = self.stages();
        if s > big_s / 2 {
            big_s - 1 - s
        } else {
            s
        }
    }
    /// Switch index in the topology of switch `i` of stage `s`.
    pub fn switch_index(&self, s: u32, i: u32) -> u32 {
        s * self.per_stage() + i
    }

    /// First node reachable downward from switch (s, i) (not for the middle stage).
    fn start(&self, s: u32, i: u32) -> u32 {
        let (y, big_s) = (self.n / 2, self.stages());
        let l = self.level0(s);
        let range = ipow(y, l + 1);
        let x = (self.m / self.n) / ipow(y, l);
        let base = if s < big_s / 2 { 0 } else { self.m / 2 };
        base + (i % x) * range
    }

    /// \[Benes-802.1au\]'s `routing_lookup(s, i, m)` with fixes 4–6 of docs/benes.md: integer
    /// powers, `<=`/`>=`, the `(m % d)*(N/(2d))` term dropped; `last_hop()` kept (it never
    /// changes a result). Returns the output port of switch `i` of stage `s` for
    /// destination node `dst`.
    pub fn routing_lookup(&self, s: u32, i: u32, dst: u32) -> u32 {
        let (m, n, big_s, y) = (self.m, self.n, self.stages(), self.n / 2);
        let l = self.level0(s);
        let range = ipow(y, l + 1);
        let x = (m / n) / ipow(y, l);
        let start = (if dst < m / 2 { 0 } else { m / 2 }) + (i % x) * range;
        if ((s <= big_s / 2 && dst < m / 2) || (s >= big_s / 2 && dst >= m / 2))
            && (start <= dst && dst < start + range)
        {
            let dir = if dst < m / 2 { y } else { 0 };
            dir + ((dst - start) / ipow(y, l)) % y
        } else {
            let dir = if s < big_s / 2 { 0 } else { y };
            let base = if dst < m / 2 { 0 } else { m / 2 };
            dir + ((dst - base) / ipow(y, l) + if self.last_hop(s, i, dst) { 0 } else { i }) % y
        }
    }

    /// \[Benes-802.1au\]'s `last_hop(s, i, m)`.
    pub fn last_hop(&self, s: u32, i: u32, dst: u32) -> bool {
        let (m, y) = (self.m, self.n / 2);
        if dst < m / 2 && s == 0 {
            dst / y == i
        } else if dst >= m / 2 && s == self.stages() - 1 {
            (dst - m / 2) / y == i
        } else {
            false
        }
    }
}

/// Build from a spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    let b = Benes::from_spec(spec)?;
    let (y, big_s, d, n) = (b.n / 2, b.stages(), b.per_stage(), b.n);
    let mid = big_s / 2;
    let mut t = Topology::new(spec.clone());
    // z = (N/2, ..., N/2, N)
    let mut z = vec![y; b.l as usize];
    z[b.l as usize - 1] = n;
    for s in 0..big_s {
        let l = b.level0(s);
        for i in 0..d {
            let (zone, index) = if s == mid {
                (0, i)
            } else {
                let x = d / ipow(y, l);
                (u64::from(b.start(s, i) / ipow(y, l + 1)), i / x)
            };
            t.add_switch(format!("st{s}-sw{i}"), (l + 1) as u16, 0, zone, index);
        }
    }
    let blank = Port {
        role: PortRole::Down,
        dir: PortDir::Duplex,
        label: 0,
        group: 0,
        peer: Peer::None,
    };
    for sw in &mut t.switches {
        sw.ports = vec![blank; n as usize];
    }
    let role_of = |s: u32, q: u32| -> PortRole {
        let right = q < y;
        if s == mid || (s < mid) != right {
            PortRole::Down
        } else {
            PortRole::Up
        }
    };
    for s in 0..big_s - 1 {
        for p in 0..d * y {
            let (i, q) = (p / y, p % y);
            let r = benes_shuffle(d * y, y, big_s, s, p);
            let (i2, q2) = (r / y, y + r % y);
            let (a, bsw) = (b.switch_index(s, i), b.switch_index(s + 1, i2));
            t.switches[a as usize].ports[q as usize] = Port {
                role: role_of(s, q),
                peer: Peer::Switch {
                    sw: bsw,
                    port: q2 as u16,
                },
                ..blank
            };
            t.switches[bsw as usize].ports[q2 as usize] = Port {
                role: role_of(s + 1, q2),
                peer: Peer::Switch {
                    sw: a,
                    port: q as u16,
                },
                ..blank
            };
        }
    }
    for node in 0..b.m {
        let (s, i, q) = if node < b.m / 2 {
            (0, node / y, y + node % y)
        } else {
            (big_s - 1, (node - b.m / 2) / y, (node - b.m / 2) % y)
        };
        let sw = b.switch_index(s, i);
        let h = t.add_host(u64::from(node), u64::from(node));
        t.hosts[h as usize].ports.push(Port {
            role: PortRole::Up,
            peer: Peer::Switch { sw, port: q as u16 },
            ..blank
        });
        t.switches[sw as usize].ports[q as usize] = Port {
            role: PortRole::Down,
            label: node % y,
            group: node % y,
            peer: Peer::Host { host: h, port: 0 },
            ..blank
        };
    }
    // Down labels of switch-switch ports: the child's zone mod z_level.
    for si in 0..t.switches.len() {
        let lvl = t.switches[si].level as usize;
        for q in 0..n as usize {
            let p = t.switches[si].ports[q];
            if let (PortRole::Down, Peer::Switch { sw, .. }) = (p.role, p.peer) {
                let cz = t.switches[sw as usize].zone;
                let label = (cz % u64::from(z[lvl - 1])) as u32;
                let port = &mut t.switches[si].ports[q];
                port.label = label;
                port.group = label;
            }
        }
    }
    t.znode = Some(ZnodeShape { z, m: 1 });
    Ok(t)
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Ok(b) = Benes::from_spec(&t.spec) else {
        return Vec::new();
    };
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let node = host.index as u32;
    let y = b.n / 2;
    let (side, s, i, q) = if node < b.m / 2 {
        ("left", 0, node / y, y + node % y)
    } else {
        (
            "right",
            b.stages() - 1,
            (node - b.m / 2) / y,
            (node - b.m / 2) % y,
        )
    };
    vec![
        ("node".into(), format!("{node} ({side} side)")),
        ("attached".into(), format!("st{s}-sw{i} port {q}")),
        (
            "shape".into(),
            format!(
                "M = {}, N = {}, L = {}, S = {} stages of {} switches",
                b.m,
                b.n,
                b.l,
                b.stages(),
                b.per_stage()
            ),
        ),
    ]
}

/// `node:<m>` (\[Benes-802.1au\]'s node id); `None` otherwise.
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let v = s.strip_prefix("node:")?;
    let bad = |why| Some(Err(TopoError::bad_host(t, s, why)));
    let Ok(m) = v.trim().parse::<u32>() else {
        return bad(HostError::Syntax("node:<id>"));
    };
    if (m as usize) < t.hosts.len() {
        Some(Ok(m))
    } else {
        bad(HostError::OutOfRange {
            what: "node",
            value: u64::from(m),
            end: t.hosts.len() as u64,
        })
    }
}

/// Walk \[Benes-802.1au\]'s destination routing from `src` to `dst` over the built graph:
/// the `(stage, switch, out-port)` of every hop and the host reached (`None` if the walk
/// leaves the graph or exceeds 3S hops).
pub fn route_walk(
    t: &Topology,
    b: &Benes,
    src: u32,
    dst: u32,
) -> (Vec<(u32, u32, u32)>, Option<u32>) {
    let d = b.per_stage();
    let mut hops = Vec::new();
    let Some(Peer::Switch { sw, .. }) = t
        .hosts
        .get(src as usize)
        .and_then(|h| h.ports.first())
        .map(|p| p.peer)
    else {
        return (hops, None);
    };
    let mut sw = sw;
    for _ in 0..3 * b.stages() {
        let (s, i) = (sw / d, sw % d);
        let o = b.routing_lookup(s, i, dst);
        hops.push((s, i, o));
        match t.switches[sw as usize]
            .ports
            .get(o as usize)
            .map(|p| p.peer)
        {
            Some(Peer::Switch { sw: next, .. }) => sw = next,
            Some(Peer::Host { host, .. }) => return (hops, Some(host)),
            _ => return (hops, None),
        }
    }
    (hops, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::build_str;

    #[test]
    fn shuffle_tables_for_8_2_5() {
        // benes_shuffle(8, 2, 5, s, p), the slides' example call (table in docs/benes.md)
        let rows: Vec<Vec<u32>> = (0..4)
            .map(|s| (0..8).map(|p| benes_shuffle(8, 2, 5, s, p)).collect())
            .collect();
        assert_eq!(
            rows,
            vec![
                vec![0, 4, 1, 5, 2, 6, 3, 7],
                vec![0, 2, 1, 3, 4, 6, 5, 7],
                vec![0, 2, 1, 3, 4, 6, 5, 7],
                vec![0, 2, 4, 6, 1, 3, 5, 7],
            ]
        );
        for i in 0..8 {
            assert_eq!(inverse_perfect_shuffle(8, 2, perfect_shuffle(8, 2, i)), i);
        }
    }

    #[test]
    fn routing_lookup_delivers_every_pair() {
        // Every ordered pair, M·(M − 1): 56, 240, 992, 16,256 and 2,862 pairs for
        // (M, N, S) = (8,4,3), (16,4,5), (32,4,7), (128,8,5), (54,6,5); last_hop() never
        // changes a result.
        for (m, n, pairs) in [
            (8, 4, 56),
            (16, 4, 240),
            (32, 4, 992),
            (54, 6, 2862),
            (128, 8, 16256),
        ] {
            let t = build_str(&format!("benes:m={m};n={n}")).unwrap();
            let b = Benes::from_spec(&t.spec).unwrap();
            t.validate().unwrap();
            t.check_znode_contract().unwrap();
            let mut ok = 0;
            for s in 0..m {
                for d in 0..m {
                    if s == d {
                        continue;
                    }
                    let (hops, got) = route_walk(&t, &b, s, d);
                    assert_eq!(got, Some(d), "{m},{n}: {s} -> {d}: {hops:?}");
                    // shortest: 2·(level of the first common ancestor) − 1 switches
                    assert!(hops.len() % 2 == 1 && hops.len() < 2 * b.l as usize);
                    ok += 1;
                }
            }
            assert_eq!(ok, pairs);
        }
    }

    #[test]
    fn benes_example_walk() {
        // 0 -> 12 goes (0,0,0) -> (1,0,0) -> (2,0,1) -> (3,1,0) -> (4,2,0) (docs/benes.md).
        let t = build_str("benes:m=16;n=4").unwrap();
        let b = Benes::from_spec(&t.spec).unwrap();
        assert_eq!(b.stages(), 5);
        assert_eq!(t.switches.len(), 20, "the k=4 fat tree's 20 switches");
        let (hops, got) = route_walk(&t, &b, 0, 12);
        assert_eq!(got, Some(12));
        assert_eq!(
            hops,
            vec![(0, 0, 0), (1, 0, 0), (2, 0, 1), (3, 1, 0), (4, 2, 0)]
        );
        let (hops, _) = route_walk(&t, &b, 13, 15);
        assert_eq!(hops, vec![(4, 2, 3), (3, 3, 1), (4, 3, 1)]);
    }

    #[test]
    fn bad_specs_name_the_parameter() {
        let e = build_str("benes:m=20;n=4").unwrap_err().to_string();
        assert!(e.contains("`m`") && e.contains("2·(N/2)^L"), "{e}");
        let e = build_str("benes:m=16;n=5").unwrap_err().to_string();
        assert!(e.contains("`n`"), "{e}");
        let e = build_str("benes:m=4;n=4").unwrap_err().to_string();
        assert!(e.contains("`m`"), "{e}");
    }

    #[test]
    fn huge_fabrics_are_refused_with_a_message() {
        // M = 2^20, N = 4: L = 19, 37 stages of 2^18 switches = 38,797,312 ports (the
        // topology alone took 2.8 GB and `check` then aborted on a 3 GB allocation).
        let e = Benes::from_spec(&"benes:m=1048576;n=4".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`m`") && e.contains("38797312 switch ports") && e.contains("at most"),
            "{e}"
        );
        // M = 2^18, N = 4: 33 stages of 2^16 switches = 8,650,752 ports, still built
        let b = Benes::from_spec(&"benes:m=262144;n=4".parse().unwrap()).unwrap();
        assert_eq!((b.l, b.stages(), b.per_stage()), (17, 33, 1 << 16));
    }
}
