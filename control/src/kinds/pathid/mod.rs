//! Path-ID control logic (\[PathID\]; docs/references.md, docs/pathid-scalability.md): path
//! IDs `Type.Top.Route.DP_{t+2}…DP_2`
//! for the desired (shortest up-down) paths between leaf switches of any multi-rooted
//! tree, the LPM routing entries every switch needs, their counts, and source headers.
//!
//! Generic over the graph: nothing here looks at the family name except [`summary`](fn@summary),
//! which uses closed forms for `fat-tree` and `vl2` above a size where materialising
//! every entry would be slow (tests cross-check the closed forms against the
//! materialised tables).
//!
//! Definitions (\[PathID\] "Notation" and "Path ID Assignment Rule", with 0-based ranks):
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
//! * Entries (\[PathID\] "LPM routing entry"): every switch below the top on a route holds `t.Top.Route/` (up);
//!   every switch on a down path holds `t.Top.Route.DP_T…DP_l/` (down). Hosts are not in
//!   the path ID: the leaf delivers by the host label carried next to it.

use super::KindError;
use crate::oracle::{Walk, WalkError};
use crate::topology::{HostError, TopoError, Topology};
use canopy_dataplane::build::pathid as b;
use canopy_dataplane::wire::Kind;
use std::sync::{Arc, Mutex, OnceLock};

const KIND: Kind = Kind::PathId;

fn unsupported(t: &Topology, why: impl Into<String>) -> KindError {
    KindError::Unsupported {
        kind: KIND,
        spec: t.spec.to_string(),
        why: why.into(),
    }
}

mod entries;
mod plan;
mod summary;
#[cfg(test)]
mod tests;

pub use entries::{entry_strings, table_work, tables, MAX_TABLE_ENTRIES};
pub use plan::{Hop, Plan, MAX_PLAN_ENTRIES};
pub use summary::{
    closed_form, closed_form_params, id_bits, id_bits_detail, summary, summary_from_spec,
    summary_materialised, ClosedForm,
};

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
    plan::check_shape(t).map(|_| ())
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
