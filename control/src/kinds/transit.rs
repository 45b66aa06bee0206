//! Transit control logic: per-RN1 tables from the generator's chip configuration,
//! table summaries, and source headers R = RU·RD·RC (seed 004 §3.8).
//!
//! Table size (`summary`): `id_bits` = 8 × the longest routing sequence (a crossover
//! at the root: ⌈(U+1)/4⌉ + U + 1 bytes hybrid, ⌈U/4⌉ + U full). Entries per RN1 are
//! the connected direction entries (≤ 4 dilated, ≤ 8 split: one per (half,
//! direction)), plus the swallowing inputs, plus the connected outputs (each carries a
//! link rotation); see [`TransitTable::entries`].

use super::{KindError, TableSummary};
use crate::topology::transit::Params;
use crate::topology::Topology;
use canopy_dataplane::build::transit as build;
use canopy_dataplane::table::transit::TransitTable;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::Kind;

const KIND: Kind = Kind::Transit;

fn params(t: &Topology) -> Result<Params, KindError> {
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

/// Header from `src` to `dst` (host indices).
pub fn header(t: &Topology, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
    let p = params(t)?;
    let bad = |h: u32| {
        KindError::Topo(crate::topology::TopoError::BadHost {
            spec: t.spec.to_string(),
            given: format!("h{h}"),
            why: format!("there are {} hosts", t.hosts.len()),
        })
    };
    let l1 = t.hosts.get(src as usize).ok_or_else(|| bad(src))?.addr;
    let l2 = t.hosts.get(dst as usize).ok_or_else(|| bad(dst))?.addr;
    let cb = p.layers as usize;
    let (c1, _) = build::split_addr(l1, cb, p.p_bytes());
    let (c2, p2) = build::split_addr(l2, cb, p.p_bytes());
    let rt = build::route(&c1, &c2, &p2, p.full).map_err(|e| {
        KindError::Topo(crate::topology::TopoError::BadHost {
            spec: t.spec.to_string(),
            given: format!("h{src} -> h{dst}"),
            why: e.to_string(),
        })
    })?;
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
