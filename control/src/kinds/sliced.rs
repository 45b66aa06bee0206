//! Sliced-flit control logic: per-switch tables, summaries and source headers, for the
//! SLICED mode and the FLAT / SRCDST / DST comparison modes.
//!
//! Works on any topology that honours the Znode graph contract (`t.znode` set, levels,
//! zones, down labels, side labels; see `topology/mod.rs`), so the
//! fat-tree gets sliced-flit tables without fat-tree-specific code.
//!
//! **Entries per switch** (the summary's count): one per child zone the switch has a
//! down group for, one per other Znode it has a side group for, and one for its up
//! group. The per-switch registers (level, SID, label widths, and in DST mode the zone
//! address) are configuration, not entries, and are not counted. The count is the same
//! in every mode.
use super::{KindError, TableSummary};
use crate::oracle::{Oracle, PairsReport, Revisits, Walk, WalkError};
use crate::topology::{znode, PortDir, PortRole, Topology};
use canopy_dataplane::build::sliced::{header as build_header, BuildError, Geometry, HeaderOpts};
use canopy_dataplane::table::sliced::SlicedTable;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::{Mode, SlicedBody, SlicedRepr};
use canopy_dataplane::wire::Kind;

const KIND: Kind = Kind::Sliced;

fn unsupported(t: &Topology, why: impl Into<String>) -> KindError {
    KindError::Unsupported {
        kind: KIND,
        spec: t.spec.to_string(),
        why: why.into(),
    }
}

fn build_err(t: &Topology, e: BuildError) -> KindError {
    match e {
        BuildError::TooWide { .. } => KindError::TooLarge {
            kind: KIND,
            spec: t.spec.to_string(),
            why: e.to_string(),
        },
        other => unsupported(t, other.to_string()),
    }
}

/// The source/table geometry of `t`, or why the sliced header does not apply.
pub fn geometry(t: &Topology) -> Result<Geometry, KindError> {
    let Some(shape) = &t.znode else {
        return Err(unsupported(
            t,
            "the topology carries no Znode labels (eq 6.1-6.3)",
        ));
    };
    Geometry::new(&shape.z, shape.m).map_err(|e| build_err(t, e))?;
    let g = znode::geometry(t).ok_or_else(|| unsupported(t, "bad Znode shape"))?;
    if g.hosts() != t.hosts.len() as u64 {
        return Err(unsupported(
            t,
            format!(
                "m·∏z_i = {} processors but the topology has {} hosts",
                g.hosts(),
                t.hosts.len()
            ),
        ));
    }
    Ok(g)
}

/// Whether this kind applies to `t`: Znode labels present and n + a + Σb_i ≤ 64.
pub fn supports(t: &Topology) -> Result<(), KindError> {
    let g = geometry(t)?;
    if let Some(s) = t
        .switches
        .iter()
        .find(|s| s.level == 0 || usize::from(s.level) > g.n())
    {
        return Err(unsupported(
            t,
            format!(
                "switch {} has level {} outside 1..={}",
                s.name,
                s.level,
                g.n()
            ),
        ));
    }
    Ok(())
}

/// Zone address of a level-`level` switch with mixed-radix zone index `zone`, packed
/// as in eq 6.3 (digit a_{i+1} lowest) and shifted down to bit 0.
fn packed_zone(g: &Geometry, level: usize, zone: u64) -> u64 {
    let mut rest = zone;
    let mut v = 0u64;
    let mut sh = 0u32;
    for j in level..g.n() {
        let zj = u64::from(g.z()[j]);
        v |= (rest % zj) << sh;
        rest /= zj;
        sh += u32::from(g.b()[j]);
    }
    v
}

/// Per-switch tables in SLICED mode.
pub fn tables(t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
    tables_mode(t, Mode::Sliced)
}

/// Per-switch tables for `mode`.
pub fn tables_mode(t: &Topology, mode: Mode) -> Result<Vec<SwitchTables>, KindError> {
    supports(t)?;
    let g = geometry(t)?;
    let n = g.n();
    let m = g.m();
    let mut out = Vec::with_capacity(t.switches.len());
    for (si, s) in t.switches.iter().enumerate() {
        let i = usize::from(s.level);
        let zi = g.z()[i - 1];
        let mut st = SwitchTables::new(s.name.clone(), super::port_configs(t, si as u32));
        let mut down: Vec<Vec<u16>> = vec![Vec::new(); zi as usize];
        let mut side: Vec<Vec<u16>> = vec![Vec::new(); m as usize];
        let mut ups = Vec::new();
        for (pi, p) in s.ports.iter().enumerate() {
            if p.dir == PortDir::In || p.peer == crate::topology::Peer::None {
                continue;
            }
            let pi = pi as u16;
            match p.role {
                PortRole::Up => ups.push(pi),
                PortRole::Down => match down.get_mut(p.label as usize) {
                    Some(v) => v.push(pi),
                    None => {
                        return Err(unsupported(
                            t,
                            format!(
                                "switch {} port {pi}: down label {} is not below z_{i} = {zi}",
                                s.name, p.label
                            ),
                        ))
                    }
                },
                PortRole::Side => match side.get_mut(p.label as usize) {
                    Some(v) if p.label != s.znode => v.push(pi),
                    _ => {
                        return Err(unsupported(
                            t,
                            format!(
                            "switch {} port {pi}: side label {} is not another Znode below m = {m}",
                            s.name, p.label
                        ),
                        ))
                    }
                },
            }
        }
        let mut intern = |v: Vec<u16>| (!v.is_empty()).then(|| st.intern_group(v));
        let up = intern(ups);
        let down: Vec<Option<u16>> = down.into_iter().map(&mut intern).collect();
        let side: Vec<Option<u16>> = side.into_iter().map(&mut intern).collect();
        let label_shift = g.offset(i);
        let zone_shift = label_shift + g.b()[i - 1];
        st.sliced = Some(SlicedTable {
            mode,
            level: i as u8,
            levels: n as u8,
            sid: s.znode,
            m,
            a: g.a(),
            b: g.b()[i - 1],
            z: zi,
            label_shift,
            zone_shift,
            znode_shift: g.label_bits(),
            addr_bits: g.addr_bits(),
            zone: packed_zone(&g, i, s.zone),
            up,
            down,
            side,
        });
        out.push(st);
    }
    Ok(out)
}

/// Table summary in SLICED mode.
pub fn summary(t: &Topology) -> Result<TableSummary, KindError> {
    summary_mode(t, Mode::Sliced)
}

/// Table summary for `mode`, counted from the ports without building tables.
pub fn summary_mode(t: &Topology, mode: Mode) -> Result<TableSummary, KindError> {
    supports(t)?;
    let g = geometry(t)?;
    let zmax = g.z().iter().copied().max().unwrap_or(1) as usize;
    let mut seen_down = vec![u32::MAX; zmax];
    let mut seen_side = vec![u32::MAX; g.m() as usize];
    let mut counts = Vec::with_capacity(t.switches.len());
    for (si, s) in t.switches.iter().enumerate() {
        let si = si as u32;
        let mut n = 0u64;
        let mut up = false;
        for p in &s.ports {
            if p.dir == PortDir::In || p.peer == crate::topology::Peer::None {
                continue;
            }
            let slot = match p.role {
                PortRole::Up => {
                    up = true;
                    continue;
                }
                PortRole::Down => seen_down.get_mut(p.label as usize),
                PortRole::Side => seen_side.get_mut(p.label as usize),
            };
            if let Some(x) = slot {
                if *x != si {
                    *x = si;
                    n += 1;
                }
            }
        }
        counts.push((si, n + u64::from(up)));
    }
    let b: Vec<String> = g.b().iter().map(|x| x.to_string()).collect();
    let w = u32::from(g.addr_bits());
    let mut s = TableSummary::default();
    let (bits, detail) = match mode {
        Mode::Sliced => {
            let top = (1..=g.n()).rev().find(|&j| g.z()[j - 1] > 1).unwrap_or(1);
            let top = if g.m() > 1 { g.side_level(top) } else { top };
            let sb: u8 = g.b()[..top].iter().sum();
            (
                u32::from(g.max_slice_bits()),
                format!(
                    "SLICE = l ρ bits + a + Σ_{{j≤l}} b_j; a = {}, b_1..b_n = {}; longest at l = {top}: {top} + {} + {sb} = {} bits (W = {w} in FLAT/SRCDST/DST)",
                    g.a(),
                    b.join(","),
                    g.a(),
                    g.max_slice_bits()
                ),
            )
        }
        Mode::Flat | Mode::Dst => (
            w,
            format!(
                "DST = physical address W = a + Σb_i = {} + {} = {w} bits (a = {}, b = {})",
                g.a(),
                g.label_bits(),
                g.a(),
                b.join(",")
            ),
        ),
        Mode::SrcDst => (
            2 * w,
            format!(
                "SRC + DST = 2 × W = 2 × {w} bits (a = {}, b = {})",
                g.a(),
                b.join(",")
            ),
        ),
    };
    s.id_bits = bits;
    s.id_bits_detail = detail;
    s.absorb(t, counts);
    s.notes.push(format!(
        "mode {mode}; entries = child zones with a down group + other Znodes with a side group + 1 up group; registers (level, SID, widths{}) not counted",
        if mode == Mode::Dst { ", zone address" } else { "" }
    ));
    s.notes.push(format!(
        "hop limit 2n = {}; n = {}, m = {}, z = {:?}",
        g.hop_limit(),
        g.n(),
        g.m(),
        g.z()
    ));
    Ok(s)
}

/// Header from host `src` to host `dst` in SLICED mode.
pub fn header(t: &Topology, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    header_mode(t, Mode::Sliced, src, dst)
}

fn logical(t: &Topology, h: u32) -> Result<u64, KindError> {
    t.hosts
        .get(h as usize)
        .map(|x| x.index)
        .ok_or_else(|| unsupported(t, format!("no host {h}")))
}

/// Header from host `src` to host `dst` in `mode` (payload length: the oracle's
/// 4-byte payload).
pub fn header_mode(t: &Topology, mode: Mode, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    let g = geometry(t)?;
    let (s, d) = (logical(t, src)?, logical(t, dst)?);
    build_header(
        &g,
        s,
        d,
        &HeaderOpts {
            mode,
            payload_len: crate::oracle::PAYLOAD.len() as u16,
            ..Default::default()
        },
    )
    .map_err(|e| build_err(t, e))
}

/// Checks specific to the sliced kind on a delivered walk: exact switch count (2l−1
/// inside a Znode, 2l across, FLAT with l = n; docs/sliced-flit.md §4 item 6), hop limit
/// sufficient, the whole SLICE consumed, PHASE_DOWN set and SIDE_TAKEN iff the Znodes
/// differ.
pub fn check_walk(t: &Topology, g: &Geometry, mode: Mode, w: &Walk) -> Result<(), WalkError> {
    let (src, dst) = (w.src, w.dst);
    let index = |h: u32| {
        t.hosts
            .get(h as usize)
            .map(|x| x.index)
            .ok_or(WalkError::NotAHost(h))
    };
    let (s, d) = (index(src)?, index(dst)?);
    let geometry = |error| WalkError::Geometry { src, dst, error };
    let want = g.expected_hops(mode, s, d).map_err(geometry)?;
    if w.switch_hops() != want {
        return Err(WalkError::HopCount {
            src,
            dst,
            got: w.switch_hops(),
            want,
        });
    }
    if want > usize::from(g.hop_limit()) {
        return Err(WalkError::HopLimitTooSmall {
            src,
            dst,
            hop_limit: g.hop_limit(),
        });
    }
    let h = w.delivered_header()?;
    let frame = |error| WalkError::Frame { src, dst, error };
    let r = SlicedBody::new_checked(h.body())
        .and_then(|b| SlicedRepr::parse(&b))
        .map_err(frame)?;
    let (ks, _) = g.labels(s).map_err(geometry)?;
    let (kd, _) = g.labels(d).map_err(geometry)?;
    if mode == Mode::Sliced && r.cursor != r.slice_len {
        return Err(WalkError::Cursor {
            src,
            dst,
            cursor: r.cursor,
            slice_len: r.slice_len,
        });
    }
    if !r.phase_down || r.side_taken != (ks != kd) {
        return Err(WalkError::Flags {
            src,
            dst,
            phase_down: r.phase_down,
            side_taken: r.side_taken,
        });
    }
    if usize::from(h.hop_limit()) != usize::from(g.hop_limit()) - want {
        return Err(WalkError::HopLimitOnDelivery {
            src,
            dst,
            hop_limit: h.hop_limit(),
        });
    }
    Ok(())
}

/// How often a walk in `mode` may pass the same switch ([`Walk::check_with`]). A FLAT
/// frame always climbs to the top and comes back down, so it passes its own ancestors
/// twice, once going up and once going down: at most once per direction. The other modes
/// turn at the lowest common level and never revisit a switch. Either rule still catches
/// a loop: the walk is up*-side?-down*, so a loop passes some switch twice in the same
/// direction (and the oracle stops a walk after [`Oracle::max_hops`] switches).
pub fn revisits(mode: Mode) -> Revisits {
    match mode {
        Mode::Flat => Revisits::OncePerDirection,
        Mode::Sliced | Mode::SrcDst | Mode::Dst => Revisits::Never,
    }
}

/// Walk `pairs` in `mode` with adaptive choices from `seed`, checking the generic walk
/// properties ([`Walk::check_with`] the mode's [`revisits`]) and [`check_walk`].
pub fn check_pairs(
    t: &Topology,
    mode: Mode,
    pairs: impl IntoIterator<Item = (u32, u32)>,
    seed: u64,
) -> Result<PairsReport, KindError> {
    let g = geometry(t)?;
    let o = Oracle::new(t, tables_mode(t, mode)?);
    crate::oracle::check_pairs_with(
        &o,
        pairs,
        seed,
        |s, d| header_mode(t, mode, s, d),
        |w| {
            w.check_with(revisits(mode))
                .and_then(|_| check_walk(t, &g, mode, w))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::all_pairs;
    use crate::topology::build_str;
    use canopy_dataplane::wire;
    use rand::SeedableRng;
    use std::collections::BTreeMap;

    fn hist(rep: &PairsReport) -> Vec<(usize, u64)> {
        rep.hops.iter().map(|(a, b)| (*a, *b)).collect()
    }

    #[test]
    fn thesis_snode_all_pairs_histogram() {
        // The closed-form count of docs/sliced-flit.md §2 for the Table 6.1 Snode:
        // switch traversals {1:72, 2:108, 3:108, 4:108, 5:432, 6:432}
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        let rep = check_pairs(&t, Mode::Sliced, all_pairs(&t), 7).unwrap();
        rep.ensure_all_ok().unwrap();
        assert_eq!(
            hist(&rep),
            vec![(1, 72), (2, 108), (3, 108), (4, 108), (5, 432), (6, 432)]
        );
    }

    #[test]
    fn summary_counts() {
        // thesis Snode: level 1: 3 labels + side + up = 5; level 2: 2 + 1 + 1 = 4;
        // level 3: 3 + 1 = 4. id bits 9 = H(3) = 3 + 1 + 2+1+2 (docs/sliced-flit.md §5 R10).
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        let s = summary(&t).unwrap();
        assert_eq!(s.id_bits, 9);
        assert_eq!(
            s.by_level,
            vec![(1, 12, 5, 60), (2, 18, 4, 72), (3, 12, 4, 48)]
        );
        // the same counts as the materialised tables
        let tabs = tables(&t).unwrap();
        let tot: u64 = tabs
            .iter()
            .map(|x| x.sliced.as_ref().unwrap().entries())
            .sum();
        assert_eq!(tot, s.total_entries);
        assert_eq!(summary_mode(&t, Mode::Dst).unwrap().id_bits, 6);
        assert_eq!(summary_mode(&t, Mode::SrcDst).unwrap().id_bits, 12);
    }

    #[test]
    fn header_thesis_vector() {
        // docs/wire-format.md S1: 5 -> 26
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        let h = header(&t, 5, 26).unwrap();
        assert_eq!(h, wire::doc_vector("S1").unwrap().bytes);
        let h = header_mode(&t, Mode::SrcDst, 5, 26).unwrap();
        assert_eq!(h, wire::doc_vector("S6").unwrap().bytes);
    }

    #[test]
    fn flat_revisits_once_per_direction_and_loops_are_still_caught() {
        // h6 -> h4 in FLAT passes agg-p1-a0 going up and again coming down
        let t = build_str("fat-tree:k=4").unwrap();
        let o = Oracle::new(&t, tables_mode(&t, Mode::Flat).unwrap());
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let h = header_mode(&t, Mode::Flat, 6, 4).unwrap();
        let w = o.walk_header(6, 4, &h, &mut rng);
        assert!(matches!(
            w.check(),
            Err(WalkError::Revisited {
                revisits: Revisits::Never,
                ..
            })
        ));
        w.check_with(revisits(Mode::Flat)).unwrap();
        assert_eq!(revisits(Mode::Sliced), Revisits::Never);
        // a loop on the way up (the first up hop taken twice) breaks FLAT's rule too
        let mut looped = w.clone();
        looped.hops.insert(1, w.hops[0].clone());
        assert!(matches!(
            looped.check_with(revisits(Mode::Flat)),
            Err(WalkError::Revisited {
                revisits: Revisits::OncePerDirection,
                ..
            })
        ));
    }

    #[test]
    fn unsupported_and_too_large() {
        let mut t = build_str("znode:z=2,2").unwrap();
        t.znode = None;
        assert!(matches!(supports(&t), Err(KindError::Unsupported { .. })));
        let mut t = build_str("znode:z=2,2").unwrap();
        t.znode.as_mut().unwrap().z = vec![256; 8];
        assert!(matches!(supports(&t), Err(KindError::TooLarge { .. })));
    }

    #[test]
    fn tables_serialise() {
        let t = build_str("znode:z=3,2,3;r=1,3,6;m=2").unwrap();
        let tabs = tables_mode(&t, Mode::Dst).unwrap();
        let j = serde_json::to_string(&tabs[0]).unwrap();
        assert!(j.contains("\"mode\":\"dst\""), "{j}");
        let _: BTreeMap<String, serde_json::Value> = serde_json::from_str(&j).unwrap();
    }
}
