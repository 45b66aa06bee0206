//! Transit control logic: per-RN1 tables from the generator's chip configuration,
//! table summaries, and source headers R = RU·RD·RC (\[Transit\] §3.8; docs/references.md).
//!
//! Table size (`summary`): `id_bits` = 8 × the longest routing sequence (a crossover
//! at the root: ⌈(U+1)/4⌉ + U + 1 bytes hybrid, ⌈U/4⌉ + U full). Entries per RN1 are
//! the connected direction entries (≤ 4 dilated, ≤ 8 split: one per (half,
//! direction)), plus the swallowing inputs, plus the connected outputs (each carries a
//! link rotation); see [`TransitTable::entries`].

use super::{KindError, TableSummary};
use crate::oracle::{Walk, WalkError};
use crate::topology::transit::Params;
use crate::topology::{HostError, PortRole, TopoError, Topology};
use canopy_dataplane::build::transit as build;
use canopy_dataplane::table::transit::TransitTable;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::transit::{TransitBody, TransitRepr};
use canopy_dataplane::wire::Kind;

const KIND: Kind = Kind::Transit;

/// The Transit parameters of `t` (layers, cluster size, address widths).
pub fn params(t: &Topology) -> Result<Params, KindError> {
    match t.spec.family.as_str() {
        "transit-full" | "transit-hybrid" => Params::from_spec(&t.spec).map_err(Into::into),
        _ => Err(KindError::Unsupported {
            kind: KIND,
            spec: t.spec.to_string(),
            why: "Transit routing bytes need a fabric of RN1 stages \
                  (families transit-full, transit-hybrid)"
                .into(),
        }),
    }
}

/// Whether this kind applies to `t`.
pub fn supports(t: &Topology) -> Result<(), KindError> {
    params(t)?;
    match t.switches.iter().find(|s| s.transit.is_none()) {
        Some(s) => Err(KindError::Unsupported {
            kind: KIND,
            spec: t.spec.to_string(),
            why: format!("switch {} has no RN1 configuration", s.name),
        }),
        None => Ok(()),
    }
}

/// Per-switch tables.
pub fn tables(t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
    supports(t)?;
    let mut out = Vec::with_capacity(t.switches.len());
    for (i, s) in t.switches.iter().enumerate() {
        let mut st = SwitchTables::new(s.name.clone(), super::port_configs(t, i as u32));
        let cfg = s.transit.as_ref().map(|x| x.config).unwrap_or_default();
        let tt = TransitTable::new(cfg, &mut st).map_err(|e| KindError::Unsupported {
            kind: KIND,
            spec: t.spec.to_string(),
            why: format!("switch {}: {e}", s.name),
        })?;
        st.transit = Some(tt);
        out.push(st);
    }
    Ok(out)
}

/// Table summary.
pub fn summary(t: &Topology) -> Result<TableSummary, KindError> {
    supports(t)?;
    let p = params(t)?;
    let rl = p.max_route_len();
    let u = p.layers as usize;
    let mut s = TableSummary {
        id_bits: 8 * rl as u32,
        id_bits_detail: if p.full {
            format!(
                "longest R = RU ({} B) + RD ({u} B), crossover at the root (k = {})",
                u.div_ceil(4),
                3 * u
            )
        } else {
            format!(
                "longest R = RU ({} B) + RD ({u} B) + RC (1 B), crossover at the root (k = {})",
                (u + 1).div_ceil(4),
                3 * u
            )
        },
        ..Default::default()
    };
    s.absorb(
        t,
        t.switches.iter().enumerate().map(|(i, sw)| {
            (
                i as u32,
                sw.transit.as_ref().map(TransitTable::entries).unwrap_or(0),
            )
        }),
    );
    let swallow: usize = t
        .switches
        .iter()
        .filter_map(|s| s.transit.as_ref())
        .map(|x| x.config.swallow.iter().filter(|&&b| b).count())
        .sum();
    s.notes.push(
        "entries per RN1 = connected (half, direction) entries + swallowing inputs + \
         connected outputs (link rotation)"
            .into(),
    );
    s.notes.push(format!(
        "{swallow} swallowing inputs in all; hop limit set by sources = {} stages (worst case)",
        p.max_stages()
    ));
    Ok(s)
}

/// Header from `src` to `dst` (host indices), built from the hosts' canonical
/// addresses (unused C bits zero).
pub fn header(t: &Topology, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    header_addr(t, host_addr(t, src)?, host_addr(t, dst)?)
}

/// Address L = C·P of host `h`.
fn host_addr(t: &Topology, h: u32) -> Result<u64, KindError> {
    match t.hosts.get(h as usize) {
        Some(x) => Ok(x.addr),
        None => Err(TopoError::bad_host(
            t,
            format!("h{h}"),
            HostError::NoSuchHost {
                hosts: t.hosts.len(),
            },
        )
        .into()),
    }
}

/// The route from address `l1` to address `l2` (seed §3.8).
fn route(t: &Topology, p: &Params, l1: u64, l2: u64) -> Result<build::Route, KindError> {
    let cb = p.layers as usize;
    let (c1, _) = build::split_addr(l1, cb, p.p_bytes());
    let (c2, p2) = build::split_addr(l2, cb, p.p_bytes());
    build::route(&c1, &c2, &p2, p.full).map_err(|e| {
        TopoError::bad_host(t, format!("{l1:#x} -> {l2:#x}"), HostError::NoRoute(e)).into()
    })
}

/// A host given as a hexadecimal address `0x…` (L = C·P), as written; `None` for any
/// other form (`h<index>`, an index).
pub fn parse_addr(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    u64::from_str_radix(h, 16).ok()
}

/// Header from address `l1` to address `l2` (L = C·P) exactly as given: the C bytes of
/// `l2` go verbatim into RD, unused bits included, as \[Transit\]'s own example does
/// (0xCC0234 -> 0xD84267 gives R = 0xF4D84267).
pub fn header_addr(t: &Topology, l1: u64, l2: u64) -> Result<Vec<u8>, KindError> {
    let p = params(t)?;
    let rt = route(t, &p, l1, l2)?;
    let hop_limit = u8::try_from(p.max_stages()).unwrap_or(u8::MAX);
    build::header(&rt.bytes, hop_limit, 0, 0).map_err(|e| match e {
        build::BuildError::Wire(w) => KindError::Wire(w),
        other => KindError::TooLarge {
            kind: KIND,
            spec: t.spec.to_string(),
            why: other.to_string(),
        },
    })
}

/// The Transit body of a delivered walk's frame.
pub fn delivered_body(w: &Walk) -> Result<TransitRepr, WalkError> {
    let h = w.delivered_header()?;
    TransitBody::new_checked(h.body())
        .and_then(|b| TransitRepr::parse(&b))
        .map_err(|error| WalkError::Frame {
            src: w.src,
            dst: w.dst,
            error,
        })
}

/// Crossover level k of a pair (hosts `s`, `d`), from the addresses (\[Transit\] §3.8.3
/// steps 1-4).
pub fn level(t: &Topology, p: &Params, s: u32, d: u32) -> Result<u32, KindError> {
    Ok(route(t, p, host_addr(t, s)?, host_addr(t, d)?)?.k)
}

/// Checks specific to Transit on a delivered walk: exactly the stages and swallows
/// \[Transit\] predicts for the pair's crossover level k (Eq 4.18/4.19 full, Eq
/// 4.30-4.32 hybrid), cycles = L_open, the head cursor on the last routing byte, the
/// final rotation (docs/transit.md §3, invariant 5), and the up/side/down stage counts.
pub fn check_walk(t: &Topology, w: &Walk) -> Result<(), WalkError> {
    let (src, dst) = (w.src, w.dst);
    let p = &params(t)?;
    let k = level(t, p, src, dst)?;
    let (stages, swallows) = build::predicted_counts(k, p.full, p.j_leaf);
    let b = delivered_body(w)?;
    let got = (w.switch_hops() as u32, u32::from(b.hops), u32::from(b.head));
    let want = (stages, stages, swallows);
    if got != want {
        return Err(WalkError::Stages {
            src,
            dst,
            k,
            got,
            want,
        });
    }
    // L_open = L_connect + swallow cycles (Eq 4.19/4.32, zero wire delay).
    if u32::from(b.cycles) != stages + swallows {
        return Err(WalkError::Cycles {
            src,
            dst,
            cycles: b.cycles,
        });
    }
    // One routing byte per swallow plus the one in use remain: the head ends on the last.
    if usize::from(b.head) + 1 != b.route.len() {
        return Err(WalkError::Head {
            src,
            dst,
            head: b.head,
            len: b.route.len(),
        });
    }
    // Invariant 5: total rotation = j (the destination cluster's links) or 0 (full).
    let rot = if p.full { 0 } else { (p.j_leaf % 4) as u8 };
    if b.rot != rot {
        return Err(WalkError::Rotation {
            src,
            dst,
            rot: b.rot,
            want: rot,
        });
    }
    // Roles per level: up stages ⌈k/3⌉ − 1 (+1 cluster exit), one crossover, k down
    // stages (+ j cluster stages).
    let count = |r| w.hops.iter().filter(|h| h.egress_role == Some(r)).count() as u32;
    let up = k.div_ceil(3);
    let want = if p.full {
        (up.saturating_sub(1), u32::from(k > 0), k)
    } else if k == 0 {
        (0, 0, p.j_leaf)
    } else {
        (up, 1, k + p.j_leaf)
    };
    let roles = (
        count(PortRole::Up),
        count(PortRole::Side),
        count(PortRole::Down),
    );
    if roles != want {
        return Err(WalkError::Roles {
            src,
            dst,
            k,
            got: roles,
            want,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{self, Oracle};
    use crate::topology::build_str;

    #[test]
    fn summary_of_the_64_processor_full_tree() {
        // transit-full:layers=1 = one UT64x2 (Table 3.4: 16/16/12/8 = 52 RN1s).
        // Longest R = RU (1 B) + RD (1 B) = 16 bits. Entries by construction:
        // up (split, 11 unconnected at the root): 6 directions + 6 outputs = 12 × 16;
        // bottom (split): 8 directions + 2 lateral swallows + 8 outputs = 18 × 16;
        // middle: 3 chips × (4 + 8) + 8 lateral swallows = 44 × 4 nodes;
        // top: 4 directions + 4 lateral swallows + 8 outputs = 16 × 8.
        let t = build_str("transit-full:layers=1").unwrap();
        let s = summary(&t).unwrap();
        assert_eq!(s.id_bits, 16);
        assert_eq!(s.switches, 52);
        assert_eq!(s.max_entries, 18);
        assert_eq!(s.total_entries, 12 * 16 + 18 * 16 + 44 * 4 + 16 * 8);
        // levels 1 (up + bottom), 2 (middle), 3 (top)
        assert_eq!(
            s.by_level.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>(),
            vec![(1, 32), (2, 12), (3, 8)]
        );
        // 96 lateral swallows: 16 groups × 2 channels × 3 crossover directions
        assert!(s
            .notes
            .iter()
            .any(|n| n.starts_with("96 swallowing inputs")));
        // [Transit]'s 786,432-processor example: 4-byte R (0xF4D84267) = 32 bits.
        let p = Params::from_spec(&"transit-hybrid:leaf=192;layers=2".parse().unwrap()).unwrap();
        assert_eq!(8 * p.max_route_len(), 32);
        assert_eq!(p.max_stages(), 1 + 4 + 6 + 2);
    }

    #[test]
    fn hop_limit_and_route_length_follow_the_documented_rules() {
        // docs/transit.md §2: hop limit 4U (full), 1 + j_leaf + 4U (hybrid); RouteLen at
        // most ⌈U/4⌉ + U (full), ⌈(U + 1)/4⌉ + U + 1 (hybrid)
        let params = |s: String| Params::from_spec(&s.parse().unwrap()).unwrap();
        for u in 1..=3u32 {
            let p = params(format!("transit-full:layers={u}"));
            assert_eq!(p.max_stages(), 4 * u);
            assert_eq!(p.max_route_len() as u32, u.div_ceil(4) + u);
            for (leaf, j_leaf) in [(12, 2), (48, 3), (192, 4)] {
                if u > 2 {
                    continue;
                }
                let p = params(format!("transit-hybrid:leaf={leaf};layers={u}"));
                assert_eq!(p.max_stages(), 1 + j_leaf + 4 * u);
                assert_eq!(p.max_route_len() as u32, (u + 1).div_ceil(4) + u + 1);
            }
        }
    }

    #[test]
    fn tables_match_the_topology_config_and_walks_succeed() {
        let t = build_str("transit-full:layers=1").unwrap();
        let tabs = tables(&t).unwrap();
        for (s, st) in t.switches.iter().zip(&tabs) {
            assert_eq!(st.transit.as_ref(), s.transit.as_ref(), "{}", s.name);
        }
        // serde round trip (tables are pushed to switches as JSON/TOML later)
        let j = serde_json::to_string(&tabs[0]).unwrap();
        assert_eq!(serde_json::from_str::<SwitchTables>(&j).unwrap(), tabs[0]);
        let o = Oracle::new(&t, tabs);
        let rep = oracle::check_pairs(&o, KIND, oracle::all_pairs(&t), 9, |_| Ok(())).unwrap();
        rep.ensure_all_ok().unwrap();
    }

    #[test]
    fn unsupported_and_bad_hosts() {
        let t = Topology::new("fat-tree:k=4".parse().unwrap());
        assert!(matches!(supports(&t), Err(KindError::Unsupported { .. })));
        assert!(header(&t, 0, 1).is_err());
        let t = build_str("transit-full:layers=1").unwrap();
        let e = header(&t, 0, 64).unwrap_err().to_string();
        assert!(e.contains("there are 64 hosts"), "{e}");
        // a full fat-tree has no route from a processor to itself
        let e = header(&t, 3, 3).unwrap_err().to_string();
        assert!(e.contains("same processor"), "{e}");
        // a hybrid processor can reach itself through its cluster (R = P)
        let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
        let h = header(&t, 5, 5).unwrap();
        assert_eq!(&h[16..17], &[t.hosts[5].addr as u8]);
    }
}
