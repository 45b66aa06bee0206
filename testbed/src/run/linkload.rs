//! Per-switch counter deltas and per-link loads of a run, from the switches' own
//! counters (`counters` on each management socket) read before and after.
//!
//! A link's load is read at its switch end(s): for a switch port, frames it sent are
//! the link's load away from the switch and frames it received the load towards it.
//! Every link is listed once: host links from their switch, switch-switch links from
//! the end with the lower (switch, port). One-way channels (Transit) simply have zero
//! in one direction.

use crate::report::results::{LinkLoad, SwitchDelta};
use canopy_control::topology::{Peer, Topology};
use canopy_proto::mgmt::CountersReport;
use std::collections::{BTreeMap, BTreeSet};

/// Counters of every switch at one moment, by switch name.
pub type Snapshot = BTreeMap<String, CountersReport>;

fn port_delta(before: &CountersReport, after: &CountersReport, port: usize) -> (u64, u64) {
    let b = before.ports.get(port);
    let a = after.ports.get(port);
    let d = |f: fn(&canopy_proto::mgmt::PortCounters) -> u64| {
        a.map_or(0, f).saturating_sub(b.map_or(0, f))
    };
    (d(|p| p.rx_packets), d(|p| p.tx_packets))
}

/// Backend drop reasons that happen outside the engine's rx = tx + drops: before the
/// engine saw the frame (RX) or after it counted the frame as sent (a queued frame the
/// kernel refused). The backend's TX refusals (`tx_ring_full`, `oversize`, `runt`,
/// `port_down`) are also counted by the engine (`tx_error`, `port_down`) and are not
/// added again.
pub const BACKEND_OUTSIDE_ENGINE: [&str; 4] = [
    "rx_truncated",
    "rx_bad_block",
    "rx_no_buffer",
    "tx_wrong_format",
];

/// A switch's drops outside its engine between two readings, by reason (non-zero only):
/// `kernel_drops`, the frames the kernel dropped because a port's RX ring was full
/// (AF_PACKET `tp_drops`), and the [`BACKEND_OUTSIDE_ENGINE`] reasons.
pub fn backend_drops(before: &CountersReport, after: &CountersReport) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    // a port missing before (a switch read first after its restart) counts from 0
    for (i, pa) in after.ports.iter().enumerate() {
        let pb = before.ports.get(i);
        let reasons = BACKEND_OUTSIDE_ENGINE.iter().map(|r| {
            let n = |p: Option<&canopy_proto::mgmt::PortCounters>| {
                p.and_then(|p| p.backend.drops.get(*r).copied())
                    .unwrap_or(0)
            };
            (*r, n(Some(pa)).saturating_sub(n(pb)))
        });
        let kernel = pa
            .backend
            .kernel_drops
            .saturating_sub(pb.map_or(0, |p| p.backend.kernel_drops));
        for (r, n) in std::iter::once(("kernel_drops", kernel)).chain(reasons) {
            if n > 0 {
                *out.entry(r.to_string()).or_insert(0) += n;
            }
        }
    }
    out
}

/// Counter deltas of every switch present in both snapshots, with drops by reason
/// (non-zero only), whether rx = tx + drops held exactly over the interval, and the
/// drops outside the engine ([`backend_drops`]).
pub fn switch_deltas(before: &Snapshot, after: &Snapshot) -> Vec<SwitchDelta> {
    let missing = |name: &String, when: &str| SwitchDelta {
        name: name.clone(),
        rx: 0,
        tx: 0,
        drops: BTreeMap::new(),
        conserved: false,
        unchecked: Some(format!("did not answer {when} the run")),
        backends: vec![],
        backend_drops: BTreeMap::new(),
    };
    let mut out: Vec<SwitchDelta> = before
        .keys()
        .filter(|n| !after.contains_key(*n))
        .map(|n| missing(n, "after"))
        .collect();
    out.extend(after.iter().map(|(name, a)| {
        let Some(b) = before.get(name) else {
            return missing(name, "before");
        };
        if a.restarted_since(b) {
            return since_restart(name, a, "restarted during the run");
        }
        delta_of(name, b, a)
    }));
    out
}

/// The counters of switch `name` since it started again (`after` alone), marked
/// unchecked with `why`: its frames before the restart died with the old process, so
/// the run's accounting is not exact, but what it did since is all there.
pub fn since_restart(name: &str, after: &CountersReport, why: &str) -> SwitchDelta {
    let mut d = delta_of(name, &CountersReport::default(), after);
    d.unchecked = Some(format!(
        "{why}: its counters began again (shown: since its last start)"
    ));
    d
}

/// The delta of switch `name` between two readings of one process.
fn delta_of(name: &str, b: &CountersReport, a: &CountersReport) -> SwitchDelta {
    {
        let rx = a.rx_packets.saturating_sub(b.rx_packets);
        let tx = a.tx_packets.saturating_sub(b.tx_packets);
        let dropped = a.dropped.saturating_sub(b.dropped);
        let mut drops = BTreeMap::new();
        for p in &a.ports {
            for (reason, n) in &p.drops {
                let was = b
                    .ports
                    .get(usize::from(p.port))
                    .and_then(|q| q.drops.get(reason))
                    .copied()
                    .unwrap_or(0);
                let d = n.saturating_sub(was);
                if d > 0 {
                    *drops.entry(reason.clone()).or_insert(0) += d;
                }
            }
        }
        SwitchDelta {
            name: name.to_string(),
            rx,
            tx,
            drops,
            conserved: rx == tx + dropped,
            unchecked: None,
            backends: vec![],
            backend_drops: backend_drops(b, a),
        }
    }
}

/// Name of each switch level for link tiers: the alphabetic name prefix its switches
/// share (`edge`, `agg`, `core` in a fat-tree) when every level has its own, else `L<n>`.
fn level_names(t: &Topology) -> BTreeMap<u16, String> {
    let mut by_level: BTreeMap<u16, BTreeSet<String>> = BTreeMap::new();
    for s in &t.switches {
        let p: String = s
            .name
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        by_level.entry(s.level).or_default().insert(p);
    }
    let names: Vec<Option<&String>> = by_level
        .values()
        .map(|s| (s.len() == 1).then(|| s.iter().next()).flatten())
        .collect();
    let distinct: BTreeSet<_> = names.iter().flatten().collect();
    let usable =
        names.iter().all(|n| n.is_some_and(|n| !n.is_empty())) && distinct.len() == names.len();
    by_level
        .iter()
        .zip(names)
        .map(|((l, _), n)| {
            let name = match n {
                Some(n) if usable => n.clone(),
                _ => format!("L{l}"),
            };
            (*l, name)
        })
        .collect()
}

/// Frames over every link between two snapshots. Switches missing from a snapshot
/// (not placed on this machine) contribute no links. `relative` is each link's busier
/// direction over the busiest link direction of the run.
pub fn link_loads(t: &Topology, before: &Snapshot, after: &Snapshot) -> Vec<LinkLoad> {
    let levels = level_names(t);
    let level = |sw: usize| {
        levels
            .get(&t.switches[sw].level)
            .cloned()
            .unwrap_or_default()
    };
    let mut out = vec![];
    for (si, s) in t.switches.iter().enumerate() {
        let (Some(b), Some(a)) = (before.get(&s.name), after.get(&s.name)) else {
            continue;
        };
        for (pi, p) in s.ports.iter().enumerate() {
            let (rx, tx) = port_delta(b, a, pi);
            let (other, tier) = match p.peer {
                Peer::None => continue,
                Peer::Host { host, port } => (
                    format!("{}:{port}", t.host_name(host)),
                    format!("host-{}", level(si)),
                ),
                Peer::Switch { sw, port } => {
                    if (sw as usize, port as usize) < (si, pi) {
                        continue;
                    }
                    let (lo, hi) = {
                        let (x, y) = (s.level, t.switches[sw as usize].level);
                        if x <= y {
                            (si, sw as usize)
                        } else {
                            (sw as usize, si)
                        }
                    };
                    (
                        format!("{}:{port}", t.switches[sw as usize].name),
                        format!("{}-{}", level(lo), level(hi)),
                    )
                }
            };
            out.push(LinkLoad {
                a: format!("{}:{pi}", s.name),
                b: other,
                tier,
                frames_ab: tx,
                frames_ba: rx,
                relative: 0.0,
            });
        }
    }
    let max = out
        .iter()
        .map(|l| l.frames_ab.max(l.frames_ba))
        .max()
        .unwrap_or(0);
    for l in &mut out {
        l.relative = if max == 0 {
            0.0
        } else {
            l.frames_ab.max(l.frames_ba) as f64 / max as f64
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_proto::mgmt::PortCounters;

    /// Counters where switch `s` port `p` sent `1000 s + p` and received `10 s + p`.
    fn snap(t: &Topology, scale: u64) -> Snapshot {
        t.switches
            .iter()
            .enumerate()
            .map(|(si, s)| {
                let ports: Vec<PortCounters> = (0..s.ports.len())
                    .map(|pi| PortCounters {
                        port: pi as u16,
                        tx_packets: scale * (1000 * si as u64 + pi as u64),
                        rx_packets: scale * (10 * si as u64 + pi as u64),
                        ..Default::default()
                    })
                    .collect();
                let c = CountersReport {
                    rx_packets: ports.iter().map(|p| p.rx_packets).sum(),
                    tx_packets: ports.iter().map(|p| p.tx_packets).sum(),
                    ports,
                    ..Default::default()
                };
                (s.name.clone(), c)
            })
            .collect()
    }

    #[test]
    fn fat_tree_links_once_each_with_both_directions_and_tiers() {
        let t = canopy_control::build_str("fat-tree:k=4").unwrap();
        let before = snap(&t, 1);
        let after = snap(&t, 3);
        let l = link_loads(&t, &before, &after);
        // k=4: 16 host links, 16 edge-agg, 16 agg-core
        assert_eq!(l.len(), 48);
        let tiers: BTreeSet<&str> = l.iter().map(|x| x.tier.as_str()).collect();
        assert_eq!(
            tiers,
            ["agg-core", "edge-agg", "host-edge"].into_iter().collect()
        );
        for x in &l {
            let (sw, port) = x.a.rsplit_once(':').unwrap();
            let si = t.switch_index(sw).unwrap() as u64;
            let pi: u64 = port.parse().unwrap();
            assert_eq!(x.frames_ab, 2 * (1000 * si + pi), "{x:?}");
            assert_eq!(x.frames_ba, 2 * (10 * si + pi), "{x:?}");
        }
        let max = l
            .iter()
            .map(|x| x.frames_ab.max(x.frames_ba))
            .max()
            .unwrap();
        for x in &l {
            assert_eq!(x.relative, x.frames_ab.max(x.frames_ba) as f64 / max as f64);
        }
        // a switch missing from a snapshot contributes nothing
        let mut partial = after.clone();
        partial.remove(&t.switches[0].name);
        assert!(link_loads(&t, &before, &partial).len() < 48);
    }

    #[test]
    fn deltas_and_conservation() {
        let t = canopy_control::build_str("fat-tree:k=4").unwrap();
        let before = snap(&t, 1);
        let mut after = snap(&t, 1);
        let name = t.switches[3].name.clone();
        let c = after.get_mut(&name).unwrap();
        c.rx_packets += 10;
        c.tx_packets += 7;
        c.dropped += 3;
        c.ports[1].drops.insert("hop_limit".into(), 3);
        // the kernel dropped 40 frames at two RX rings before the switch saw them, and
        // the backend truncated one: outside rx = tx + drops, reported beside them
        c.ports[0].backend.kernel_drops += 15;
        c.ports[2].backend.kernel_drops += 25;
        c.ports[2].backend.drops.insert("rx_truncated".into(), 1);
        let d = switch_deltas(&before, &after);
        assert_eq!(d.len(), 20);
        let x = d.iter().find(|x| x.name == name).unwrap();
        assert_eq!((x.rx, x.tx), (10, 7));
        assert_eq!(x.drops.get("hop_limit"), Some(&3));
        assert!(x.conserved);
        let outside: Vec<(&str, u64)> = x
            .backend_drops
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(outside, [("kernel_drops", 40), ("rx_truncated", 1)]);
        assert!(d
            .iter()
            .filter(|y| y.name != name)
            .all(|y| y.backend_drops.is_empty()));
        after.get_mut(&name).unwrap().tx_packets += 1;
        let d = switch_deltas(&before, &after);
        let x = d.iter().find(|x| x.name == name).unwrap();
        assert!(!x.conserved && x.unchecked.is_none());
        // a restarted switch (uptime went back) and one missing after the run are
        // listed as unchecked, not as broken
        let gone = t.switches[5].name.clone();
        after.remove(&gone);
        let c = after.get_mut(&name).unwrap();
        c.uptime_s = before[&name].uptime_s - 0.5;
        let d = switch_deltas(&before, &after);
        assert_eq!(d.len(), 20);
        let x = d.iter().find(|x| x.name == name).unwrap();
        assert!(
            x.unchecked.as_deref().unwrap().contains("restarted"),
            "{x:?}"
        );
        // what it did since its restart is all in its counters now
        let a = &after[&name];
        assert_eq!((x.rx, x.tx), (a.rx_packets, a.tx_packets));
        assert_eq!(x.drops.values().sum::<u64>(), a.dropped);
        assert_eq!(x.conserved, a.rx_packets == a.tx_packets + a.dropped);
        let k: u64 = a.ports.iter().map(|p| p.backend.kernel_drops).sum();
        assert!(k >= 40);
        assert_eq!(x.backend_drops.get("kernel_drops"), Some(&k));
        let x = d.iter().find(|x| x.name == gone).unwrap();
        assert!(x.unchecked.as_deref().unwrap().contains("after"), "{x:?}");
    }

    /// A switch killed and started again that has run longer since than it had at the
    /// first snapshot: its uptime went forward, its process id changed.
    #[test]
    fn a_restart_with_a_longer_uptime_is_caught_by_the_pid() {
        let t = canopy_control::build_str("fat-tree:k=4").unwrap();
        let mut before = snap(&t, 1);
        let mut after = snap(&t, 1);
        for (b, a) in before.values_mut().zip(after.values_mut()) {
            b.uptime_s = 5.0;
            b.pid = 100;
            a.uptime_s = 9.0;
            a.pid = 100;
        }
        let name = t.switches[2].name.clone();
        after.get_mut(&name).unwrap().pid = 4242;
        let d = switch_deltas(&before, &after);
        for x in &d {
            if x.name == name {
                assert!(
                    x.unchecked.as_deref().unwrap().contains("restarted"),
                    "{x:?}"
                );
            } else {
                assert!(x.unchecked.is_none() && x.conserved, "{x:?}");
            }
        }
        // a switch that does not report its pid falls back to the uptime alone
        after.get_mut(&name).unwrap().pid = 0;
        let d = switch_deltas(&before, &after);
        assert!(d.iter().all(|x| x.unchecked.is_none()));
    }
}
