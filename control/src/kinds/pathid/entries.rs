//! Entry generation: the LPM entries every switch holds (\[PathID\] "LPM routing entry") — upward
//! `t.Top.Route/` on every switch below the top of a route, downward
//! `t.Top.Route.DP_T…DP_l/` on every switch of a down path — and the leaves'
//! host-label entries.

use super::plan::for_each_route;
use super::{plan, unsupported, Plan, KIND};
use crate::kinds::KindError;
use crate::topology::{Peer, PortRole, Switch, Topology};
use canopy_dataplane::build::pathid as b;
use canopy_dataplane::table::pathid::{Action, HostEntry, LpmEntry, PathIdTable};
use canopy_dataplane::table::SwitchTables;
use std::collections::HashMap;

/// Most table entries (upward route steps plus downward entries) [`tables`] will
/// materialise (tens of bytes each); larger fabrics are refused before any allocation.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 25;

fn action(st: &mut SwitchTables, ports: &[u16]) -> Action {
    if ports.len() == 1 {
        Action::Port(ports[0])
    } else {
        Action::Group(st.intern_group(ports.to_vec()))
    }
}

/// Raw (unencoded) up entries and route sets: for each switch, `(t, top, route) → next`.
struct UpPass {
    up: Vec<Vec<(u16, u32, u32, u32)>>,
    /// (top switch, child zone of the top's zone, route)
    routes_in: Vec<(u32, u32, u32)>,
}

fn up_pass(t: &Topology, plan: &Plan) -> UpPass {
    let n = t.switches.len();
    let mut up: Vec<Vec<(u16, u32, u32, u32)>> = vec![Vec::new(); n];
    let mut routes_in: Vec<(u32, u32, u32)> = Vec::new();
    let mut rank = vec![0u32; n];
    let mut touched: Vec<u32> = Vec::new();
    for (i, s) in t.switches.iter().enumerate() {
        if s.level != 1 {
            continue;
        }
        let zleaf = plan.zone[i];
        for_each_route(plan, i as u32, plan.levels, &mut |path| {
            let u = *path.last().expect("non-empty");
            let r = rank[u as usize];
            if r == 0 {
                touched.push(u);
            }
            rank[u as usize] += 1;
            let tl = t.switches[u as usize].level;
            let zu = plan.zone[u as usize];
            // a has a destination of this type iff the top zone has another child zone
            if plan.zone_kids[zu as usize] < 2 {
                return;
            }
            let ti = tl - 2;
            for j in 0..path.len() - 1 {
                up[path[j] as usize].push((ti, u, r, path[j + 1]));
            }
            routes_in.push((u, plan.zone_at(zleaf, tl - 1), r));
        });
        for &u in &touched {
            rank[u as usize] = 0;
        }
        touched.clear();
    }
    routes_in.sort_unstable();
    routes_in.dedup();
    UpPass { up, routes_in }
}

/// Upper bound on the entries [`tables`] materialises: the steps of every upward route
/// from every leaf (`t.Top.Route/` at each switch below the top) plus, for every top
/// switch, its largest route count times its downward DP prefixes.
pub fn table_work(t: &Topology, plan: &Plan) -> u64 {
    let n = t.switches.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(t.switches[i].level));
    // f: upward paths from v (the empty one included); g: steps over those paths.
    let (mut f, mut g) = (vec![1u64; n], vec![0u64; n]);
    for &i in &order {
        for h in &plan.parents[i] {
            let p = h.sw as usize;
            f[i] = f[i].saturating_add(f[p]);
            g[i] = g[i].saturating_add(f[p].saturating_add(g[p]));
        }
    }
    // d: down entries one DFS from v installs (for one route).
    let mut d = vec![0u64; n];
    for &i in order.iter().rev() {
        if t.switches[i].level < 2 {
            continue;
        }
        for h in &plan.children[i] {
            d[i] = d[i].saturating_add(d[h.sw as usize].saturating_add(1));
        }
    }
    let mut work = 0u64;
    for (i, s) in t.switches.iter().enumerate() {
        if s.level == 1 {
            work = work.saturating_add(g[i]);
        } else {
            let routes = plan.max_routes[usize::from(s.level - 2)];
            work = work.saturating_add(routes.saturating_mul(d[i]));
        }
    }
    work
}

/// Per-switch tables.
pub fn tables(t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
    let plan = plan(t)?;
    let work = table_work(t, &plan);
    if work > MAX_TABLE_ENTRIES {
        return Err(KindError::TooBigToCompute {
            kind: KIND,
            spec: t.spec.to_string(),
            why: format!(
                "its path-ID tables would hold up to {work} entries; at most \
                 {MAX_TABLE_ENTRIES} are materialised (`tables --summary` uses closed forms \
                 for fat-tree and vl2)"
            ),
        });
    }
    let layout = &plan.layout;
    let n = t.switches.len();
    let mut out: Vec<SwitchTables> = (0..n)
        .map(|i| {
            SwitchTables::new(
                t.switches[i].name.clone(),
                crate::kinds::port_configs(t, i as u32),
            )
        })
        .collect();
    let mut entries: Vec<Vec<LpmEntry>> = vec![Vec::new(); n];
    let bad = |e: b::BuildError| KindError::TooLarge {
        kind: KIND,
        spec: t.spec.to_string(),
        why: e.to_string(),
    };
    let pass = up_pass(t, &plan);
    for (i, ups) in pass.up.into_iter().enumerate() {
        let mut ups = ups;
        ups.sort_unstable();
        ups.dedup();
        for w in ups.windows(2) {
            if w[0].0 == w[1].0 && w[0].1 == w[1].1 && w[0].2 == w[1].2 {
                return Err(unsupported(
                    t,
                    format!(
                        "route {} to {} continues to two different switches at {}: \
                         the routes' ranks are not consistent, so `t.Top.Route/` cannot be installed",
                        w[0].2, t.switches[w[0].1 as usize].name, t.switches[i].name
                    ),
                ));
            }
        }
        for (ti, u, r, next) in ups {
            let (value, len) = layout
                .prefix(ti, plan.seq[u as usize], r, &[])
                .map_err(bad)?;
            let hop = plan.parents[i]
                .iter()
                .find(|h| h.sw == next)
                .expect("next hop is a parent");
            let a = action(&mut out[i], plan.hop_ports(hop));
            entries[i].push(LpmEntry {
                value,
                len,
                down: false,
                action: a,
            });
        }
    }
    // Down entries: DFS from every top of a used type.
    let mut by_top: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    for &(u, cz, r) in &pass.routes_in {
        by_top.entry(u).or_default().push((cz, r));
    }
    let mut dps: Vec<u32> = Vec::new();
    for (u, zr) in &by_top {
        let u = *u;
        let ti = t.switches[u as usize].level - 2;
        // valid routes for destinations in child zone c: routes used by the other zones
        let mut all_r: Vec<u32> = zr.iter().map(|x| x.1).collect();
        all_r.sort_unstable();
        all_r.dedup();
        let valid = |c: u32| -> Vec<u32> {
            all_r
                .iter()
                .copied()
                .filter(|&r| zr.iter().any(|&(cz, rr)| rr == r && cz != c))
                .collect()
        };
        for (d, h) in plan.children[u as usize].iter().enumerate() {
            let c = plan.zone[h.sw as usize];
            let rs = valid(c);
            for r in rs {
                dps.clear();
                dps.push(d as u32);
                down_rec(
                    t,
                    &plan,
                    &mut out,
                    &mut entries,
                    u,
                    u as usize,
                    ti,
                    r,
                    &mut dps,
                )
                .map_err(bad)?;
            }
        }
    }
    for (i, s) in t.switches.iter().enumerate() {
        let he = host_entries(s, &mut out[i]);
        let es = std::mem::take(&mut entries[i]);
        let tab = PathIdTable::new(s.level, s.level == 1, he, es)
            .map_err(|e| unsupported(t, format!("{}: {e}", s.name)))?;
        out[i].pathid = Some(tab);
    }
    Ok(out)
}

/// Host-label entries of switch `s` (none above level 1): one per label, to the port or
/// group of ports whose hosts carry it.
fn host_entries(s: &Switch, st: &mut SwitchTables) -> Vec<HostEntry> {
    let mut hosts = Vec::new();
    if s.level == 1 {
        for (pi, p) in s.ports.iter().enumerate() {
            if p.role == PortRole::Down && matches!(p.peer, Peer::Host { .. }) {
                hosts.push((p.label, pi as u16));
            }
        }
    }
    hosts.sort_unstable();
    let mut he = Vec::new();
    let mut k = 0;
    while k < hosts.len() {
        let label = hosts[k].0;
        let ports: Vec<u16> = hosts[k..]
            .iter()
            .take_while(|h| h.0 == label)
            .map(|h| h.1)
            .collect();
        k += ports.len();
        let a = action(st, &ports);
        he.push(HostEntry { label, action: a });
    }
    he
}

/// Install the down entry at `v` for the DP path in `dps` (its last element is v's DP
/// index) and recurse below.
#[allow(clippy::too_many_arguments)]
fn down_rec(
    t: &Topology,
    plan: &Plan,
    out: &mut [SwitchTables],
    entries: &mut [Vec<LpmEntry>],
    top: u32,
    v: usize,
    ti: u16,
    r: u32,
    dps: &mut Vec<u32>,
) -> Result<(), b::BuildError> {
    let d = *dps.last().expect("non-empty") as usize;
    let h = &plan.children[v][d];
    let (value, len) = plan.layout.prefix(ti, plan.seq[top as usize], r, dps)?;
    let a = action(&mut out[v], plan.hop_ports(h));
    entries[v].push(LpmEntry {
        value,
        len,
        down: true,
        action: a,
    });
    let w = h.sw as usize;
    if t.switches[w].level >= 2 {
        for d2 in 0..plan.children[w].len() {
            dps.push(d2 as u32);
            down_rec(t, plan, out, entries, top, w, ti, r, dps)?;
            dps.pop();
        }
    }
    Ok(())
}

/// Entries of one switch in \[PathID\]'s notation, `prefix/ port` (or `prefix/ g<group>`),
/// upward entries first, each direction sorted by type then prefix.
pub fn entry_strings(plan: &Plan, st: &SwitchTables) -> Vec<String> {
    let Some(p) = &st.pathid else {
        return Vec::new();
    };
    let mut v: Vec<(bool, u8, u64, String)> = p
        .entries()
        .iter()
        .map(|e| {
            let act = match e.action {
                Action::Port(x) => x.to_string(),
                Action::Group(g) => format!("g{g}"),
            };
            (
                e.down,
                e.len,
                e.value,
                format!("{}/ {act}", plan.layout.format(e.value, e.len)),
            )
        })
        .collect();
    v.sort();
    v.into_iter().map(|x| x.3).collect()
}
