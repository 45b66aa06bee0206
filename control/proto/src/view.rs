//! Text views of `canopyd`'s control-socket answers for `canopyctl fabric` (beside the
//! types they show, so they are tested with them).

use crate::snapshot::FabricSnapshot;
use std::fmt::Write as _;

/// `canopyctl fabric status`: one line per switch, then one per port that is not
/// plainly in use (down, admin down, or pruned), then the pruning warnings.
pub fn format_status(s: &FabricSnapshot, warnings: &[String]) -> String {
    let mut o = String::new();
    let up = s.switches.iter().filter(|w| w.up).count();
    let current = s.switches.iter().filter(|w| w.tables_current).count();
    let _ = writeln!(
        o,
        "fabric {} ({} {}): {}; {up}/{} switches up, {current} with current tables; daemon up {:.0} s",
        s.fabric,
        s.topology,
        s.kind,
        if s.ready { "READY" } else { "NOT READY" },
        s.switches.len(),
        s.uptime_s
    );
    let _ = writeln!(
        o,
        "{:<16} {:<5} {:<8} {:>8} {:>9} {:>7} {:>7} {:>8}  pruned",
        "switch", "state", "tables", "pid", "uptime_s", "pushes", "fails", "restarts"
    );
    for w in &s.switches {
        let (pid, upt) = match (&w.health, w.up) {
            (Some(h), true) => (h.pid.to_string(), format!("{:.0}", h.uptime_s)),
            _ => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            o,
            "{:<16} {:<5} {:<8} {:>8} {:>9} {:>7} {:>7} {:>8}  {}",
            w.name,
            if w.up { "up" } else { "DOWN" },
            if w.tables_current { "current" } else { "stale" },
            pid,
            upt,
            w.pushes_total,
            w.push_failures_total,
            w.restarts_total,
            if w.pruned_ports.is_empty() {
                "-".to_string()
            } else {
                w.pruned_ports
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            }
        );
        if !w.up {
            if let Some(e) = &w.last_error {
                let _ = writeln!(o, "    last error: {e}");
            }
            continue;
        }
        if let Some(h) = &w.health {
            for p in &h.ports {
                let pruned = w.pruned_ports.contains(&p.port);
                if p.link && p.admin && !pruned {
                    continue;
                }
                let _ = writeln!(
                    o,
                    "    port {:>3} {:<12} link {:<4} admin {:<4}{}",
                    p.port,
                    p.name,
                    if p.link { "up" } else { "DOWN" },
                    if p.admin { "up" } else { "DOWN" },
                    if pruned {
                        "  pruned from its groups"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    if let Some(t) = &s.traffic {
        let _ = writeln!(
            o,
            "traffic reports: sent {} received {} lost {} misdelivered {}",
            t.sent_total, t.received_total, t.lost_total, t.misdelivered_total
        );
    }
    for w in warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mgmt::{Health, PortHealth};
    use crate::snapshot::{HistogramSnapshot, SwitchSnapshot, PROBE_BUCKETS};

    #[test]
    fn status_shows_down_switches_and_odd_ports() {
        let port = |port: u16, link: bool, admin: bool| PortHealth {
            port,
            name: format!("p{port}"),
            backend: "afpacket".into(),
            mode_note: None,
            link,
            admin,
        };
        let sw = |name: &str, up: bool| SwitchSnapshot {
            name: name.into(),
            endpoint: "/x".into(),
            up,
            last_error: (!up).then(|| "connection refused".into()),
            health: Some(Health {
                uptime_s: 3.0,
                pid: 42,
                instance: 1,
                workers: 1,
                mode: "adaptive".into(),
                tables_loaded: true,
                tables: Some(name.into()),
                kinds: vec!["sliced".into()],
                ports: vec![
                    port(0, true, true),
                    port(1, false, true),
                    port(2, true, false),
                ],
                tcp: None,
                p4runtime: None,
                auth_failures: 0,
                tcp_refused: 0,
                conns_evicted: 0,
                protocol_version: 1,
                version: "0.1.0".to_string(),
                capture: None,
            }),
            instance: Some(1),
            counters: None,
            pruned_ports: vec![1, 3],
            admin_down: vec![2],
            tables_current: up,
            pushes_total: 2,
            push_failures_total: 0,
            down_events_total: 0,
            restarts_total: 1,
            probe_rtt: HistogramSnapshot::new(PROBE_BUCKETS),
        };
        let s = FabricSnapshot {
            fabric: "lab".into(),
            topology: "fat-tree:k=4".into(),
            kind: "sliced".into(),
            uptime_s: 9.0,
            ready: false,
            switches: vec![sw("edge-p0-e0", true), sw("core-c0", false)],
            traffic: None,
        };
        let t = format_status(&s, &["group kept".into()]);
        assert!(
            t.contains("NOT READY; 1/2 switches up, 1 with current tables"),
            "{t}"
        );
        assert!(t.contains("core-c0          DOWN  stale"), "{t}");
        assert!(t.contains("last error: connection refused"), "{t}");
        assert!(
            t.contains("port   1 p1           link DOWN admin up    pruned"),
            "{t}"
        );
        assert!(
            t.contains("port   2 p2           link up   admin DOWN"),
            "{t}"
        );
        assert!(!t.contains("port   0"), "{t}");
        assert!(t.contains("1,3"), "{t}");
        assert!(t.contains("warning: group kept"), "{t}");
    }
}
