//! Table summaries: ID bits and entries per switch, from materialised tables or, for
//! `fat-tree` and `vl2`, from closed forms of the spec parameters.

use super::{plan, tables};
use crate::kinds::{KindError, TableSummary};
use crate::spec::Spec;
use crate::topology::{Outline, Topology};
use canopy_dataplane::build::pathid::{ceil_log2, PathIdLayout};

/// Table summary: ID bits and entries per switch, counted as \[PathID\] counts them (one
/// entry per distinct LPM prefix; the leaf's host-label map is not counted).
pub fn summary(t: &Topology) -> Result<TableSummary, KindError> {
    if prefers_closed_form(t.switches.len() as u64, t.hosts.len() as u64) {
        if let Some(s) = closed_form(t)? {
            return Ok(s);
        }
    }
    summary_materialised(t)
}

/// The [`summary`] of the topology `spec` names, from its [`Outline`] without building
/// the graph, where `summary` would use a closed form; `None` otherwise (build it).
pub fn summary_from_spec(spec: &Spec) -> Result<Option<TableSummary>, KindError> {
    let Some(o) = Outline::from_spec(spec)? else {
        return Ok(None);
    };
    if !prefers_closed_form(o.switches(), o.hosts) {
        return Ok(None);
    }
    closed_form_with(
        spec,
        |sw| o.switch_name(sw).unwrap_or_default(),
        o.switch_levels(),
    )
}

/// Whether a topology is large enough that [`summary`] counts by closed form rather
/// than materialising its tables.
fn prefers_closed_form(switches: u64, hosts: u64) -> bool {
    switches > 1500 || hosts > 300_000
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
        "entries = distinct LPM prefixes per switch, from materialised tables; \
         the leaf's host-label map is not counted"
            .into(),
    );
    Ok(s)
}

/// Closed-form summary for `fat-tree` and `vl2` (from the spec parameters, one pass over
/// the switches for the per-level counts); `None` for other families. Cross-checked
/// against [`summary_materialised`] in the tests.
pub fn closed_form(t: &Topology) -> Result<Option<TableSummary>, KindError> {
    closed_form_with(
        &t.spec,
        |sw| t.switches[sw as usize].name.clone(),
        t.switches
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u32, s.level)),
    )
}

/// [`closed_form`] over switches given as `(index, level)` and a name for an index.
fn closed_form_with(
    spec: &Spec,
    name: impl Fn(u32) -> String,
    switches: impl IntoIterator<Item = (u32, u16)>,
) -> Result<Option<TableSummary>, KindError> {
    let Some(ClosedForm {
        layout,
        used,
        counts,
        what,
    }) = closed_form_params(spec)?
    else {
        return Ok(None);
    };
    let mut s = TableSummary {
        id_bits: id_bits(&layout, &used),
        id_bits_detail: id_bits_detail(&layout, &used),
        ..Default::default()
    };
    s.absorb_levels(
        name,
        switches.into_iter().map(|(i, level)| {
            let n = counts
                .get(usize::from(level).wrapping_sub(1))
                .copied()
                .unwrap_or(0);
            (i, level, n)
        }),
    );
    s.notes.push(format!(
        "entries = distinct LPM prefixes per switch, closed form ({what}); \
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
pub fn closed_form_params(spec: &Spec) -> Result<Option<ClosedForm>, KindError> {
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
