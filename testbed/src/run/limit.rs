//! What limited a run, with the evidence: the generator (its senders fell short, or its
//! receivers' rings overflowed), a switch's CPU (a switch port's receive ring
//! overflowed: the switch did not poll it in time), a ring or port inside a switch that
//! dropped (`ring_full`, `tx_error`, ...), frames lost outside every counter, and the
//! machine's CPU (`/proc/stat`). The CPU of the shared host's threads (or of each switch
//! process; `/proc/PID/task/*/stat`) and of the generator (this process) over the run go
//! with it. A busy-polling thread always shows 100 %, so CPU alone never names a limit:
//! overflowing rings and drops do.

use super::linkload::Snapshot;
use crate::fabric::state::State;
use crate::os::cpu::{self, SysCpu};
use crate::report::results::{Limit, Trial};
use std::collections::BTreeMap;
use std::time::Instant;

/// CPU time of the machine and of the threads that matter, at one moment.
pub struct CpuSample {
    at: Instant,
    machine: Option<SysCpu>,
    /// Thread (or switch process) label → CPU ns.
    threads: BTreeMap<String, u64>,
}

/// The CPU time of the machine, the fabric's switch threads (a shared host's polling
/// threads, or each switch process) and this process's threads (the generator), now.
pub fn sample(state: &State) -> CpuSample {
    let mut threads = BTreeMap::new();
    match &state.host {
        Some(h) => {
            for (comm, ns) in cpu::threads_ns(h.pid) {
                if comm.starts_with("canopy-h") {
                    *threads.entry(format!("host thread {comm}")).or_insert(0) += ns;
                }
            }
        }
        None if state.target != "bmv2" => {
            for s in &state.switches {
                if let Ok(ns) = cpu::process_ns(s.pid) {
                    threads.insert(format!("switch {}", s.name), ns);
                }
            }
        }
        None => {}
    }
    // the generator's threads start and end within the run: the process's own time
    // (which keeps what its ended threads used) is theirs
    if let Ok(ns) = cpu::process_ns(std::process::id()) {
        threads.insert("the generator (all its threads)".into(), ns);
    }
    CpuSample {
        at: Instant::now(),
        machine: SysCpu::read().ok(),
        threads,
    }
}

/// Per label, the share of one CPU used between `a` and `b` (0.0..=1.0 per CPU),
/// busiest first.
fn busy(a: &CpuSample, b: &CpuSample) -> Vec<(String, f64)> {
    let wall = b.at.duration_since(a.at).as_nanos().max(1) as f64;
    let mut v: Vec<(String, f64)> = b
        .threads
        .iter()
        .map(|(k, &ns)| {
            let before = a.threads.get(k).copied().unwrap_or(0);
            (k.clone(), ns.saturating_sub(before) as f64 / wall)
        })
        .filter(|(_, f)| *f >= 0.005)
        .collect();
    v.sort_by(|x, y| y.1.total_cmp(&x.1));
    v
}

/// Per (switch, port name), the growth of one counter of its ports between two
/// snapshots, largest first (zeros left out).
fn port_growth(
    before: &Snapshot,
    after: &Snapshot,
    count: impl Fn(&canopy_proto::mgmt::PortCounters) -> u64,
) -> Vec<(String, u64)> {
    let mut v = vec![];
    for (sw, c) in after {
        let Some(b) = before.get(sw) else { continue };
        if c.pid != b.pid || c.uptime_s < b.uptime_s {
            continue; // restarted: its counters began again
        }
        for (p, q) in c.ports.iter().zip(&b.ports) {
            let d = count(p).saturating_sub(count(q));
            if d > 0 {
                v.push((format!("{sw} port {} ({})", p.port, p.name), d));
            }
        }
    }
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    v
}

/// Everything the verdict looks at.
pub struct Evidence<'a> {
    /// The run's trials.
    pub trials: &'a [Trial],
    /// Switch counters before and after.
    pub before: &'a Snapshot,
    /// See `before`.
    pub after: &'a Snapshot,
    /// CPU at the start and the end.
    pub cpu: (&'a CpuSample, &'a CpuSample),
    /// Frames the generator's receive rings dropped during the run.
    pub receiver_drops: u64,
    /// CPUs of the machine.
    pub cpus: usize,
    /// A search's highest rate (its first trial), pps.
    pub search_max: Option<f64>,
}

/// The verdict, most telling cause first.
pub fn verdict(e: &Evidence) -> Limit {
    let mut evidence = vec![];
    let lost: u64 = e.trials.iter().map(|t| t.lost).sum();
    let short = e
        .trials
        .iter()
        .filter(|t| t.passed == Some(false) && t.lost == 0)
        .count();
    let rx_overflow = port_growth(e.before, e.after, |p| p.backend.kernel_drops);
    let engine_drops = port_growth(e.before, e.after, |p| p.dropped);
    let overflowed: u64 = rx_overflow.iter().map(|x| x.1).sum();
    let dropped: u64 = engine_drops.iter().map(|x| x.1).sum();
    let machine = match (e.cpu.0.machine, e.cpu.1.machine) {
        (Some(a), Some(b)) => {
            let wall = e.cpu.1.at.duration_since(e.cpu.0.at).as_nanos().max(1) as f64;
            Some(b.since(&a).busy_ns as f64 / wall / e.cpus.max(1) as f64)
        }
        _ => None,
    };
    let top = |v: &[(String, u64)]| {
        v.iter()
            .take(3)
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let by = if short > 0 {
        evidence.push(format!(
            "{short} trial(s) failed without losing a frame: the senders fell short of the offered rate"
        ));
        "the generator (its senders)"
    } else if lost == 0 {
        match e.search_max {
            Some(max) => {
                evidence.push(format!(
                    "every trial passed, the first at the search's highest rate ({max:.0} pps): the fabric may forward more (--search-max)"
                ));
                "the search's highest rate, not the fabric"
            }
            None => "nothing: no trial lost a frame",
        }
    } else if e.receiver_drops * 2 >= lost {
        evidence.push(format!(
            "the generator's receive rings dropped {} of the {lost} frames lost",
            e.receiver_drops
        ));
        "the generator (its receivers)"
    } else if overflowed >= dropped && overflowed * 2 >= lost {
        evidence.push(format!(
            "switch receive rings overflowed ({overflowed} frames; most: {}): the switch did not poll them in time",
            top(&rx_overflow)
        ));
        "a switch's CPU"
    } else if dropped * 2 >= lost {
        evidence.push(format!(
            "switches dropped {dropped} frames (most: {})",
            top(&engine_drops)
        ));
        "a ring or port inside a switch"
    } else {
        evidence.push(format!(
            "{} of {lost} lost frames were counted by no switch and no receiver (host stacks, veths)",
            lost.saturating_sub(overflowed + dropped + e.receiver_drops)
        ));
        if machine.is_some_and(|m| m >= 0.95) {
            "the machine's CPU"
        } else {
            "frames lost outside the switches"
        }
    };
    if let Some(m) = machine {
        evidence.push(format!(
            "machine CPU {:.0} % busy over the run ({} CPUs)",
            m * 100.0,
            e.cpus
        ));
    }
    let threads = busy(e.cpu.0, e.cpu.1);
    if !threads.is_empty() {
        evidence.push(format!(
            "CPU per thread (share of one CPU): {}",
            threads
                .iter()
                .take(6)
                .map(|(k, f)| format!("{k} {:.0} %", f * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Limit {
        by: by.to_string(),
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_proto::mgmt::{BackendReport, CountersReport, PortCounters};
    use std::time::Duration;

    /// One switch `s` whose port 1 shows `kernel_drops` and `dropped`.
    fn snap(kernel_drops: u64, dropped: u64) -> Snapshot {
        let port = |p: u16, k, d| PortCounters {
            port: p,
            name: format!("s0p{p}"),
            dropped: d,
            backend: BackendReport {
                kernel_drops: k,
                ..BackendReport::default()
            },
            ..PortCounters::default()
        };
        let c = CountersReport {
            uptime_s: 10.0,
            pid: 7,
            ports: vec![port(0, 0, 0), port(1, kernel_drops, dropped)],
            ..CountersReport::default()
        };
        [("edge-p0-e0".to_string(), c)].into()
    }

    fn cpu(ms: u64, busy_ms: u64, host_ms: u64) -> CpuSample {
        CpuSample {
            at: Instant::now() - Duration::from_millis(10_000 - ms),
            machine: Some(SysCpu {
                busy_ns: busy_ms * 1_000_000,
                ..SysCpu::default()
            }),
            threads: [("host thread canopy-h0".to_string(), host_ms * 1_000_000)].into(),
        }
    }

    fn trial(lost: u64, passed: bool) -> Trial {
        Trial {
            sent: 1000,
            lost,
            passed: Some(passed),
            ..Trial::default()
        }
    }

    fn judge(trials: &[Trial], after: Snapshot, receiver_drops: u64, busy_ms: u64) -> Limit {
        let (a, b) = (cpu(0, 0, 0), cpu(1000, busy_ms, 1000));
        verdict(&Evidence {
            trials,
            before: &snap(0, 0),
            after: &after,
            cpu: (&a, &b),
            receiver_drops,
            cpus: 2,
            search_max: None,
        })
    }

    #[test]
    fn the_cause_the_counters_show_is_named_with_its_evidence() {
        let l = judge(&[trial(0, false)], snap(0, 0), 0, 500);
        assert_eq!(l.by, "the generator (its senders)");
        let l = judge(&[trial(0, true)], snap(0, 0), 0, 500);
        assert_eq!(l.by, "nothing: no trial lost a frame");
        // a search whose every trial passed stopped at its own maximum
        let (a, b) = (cpu(0, 0, 0), cpu(1000, 500, 1000));
        let l = verdict(&Evidence {
            trials: &[trial(0, true)],
            before: &snap(0, 0),
            after: &snap(0, 0),
            cpu: (&a, &b),
            receiver_drops: 0,
            cpus: 2,
            search_max: Some(100_000.0),
        });
        assert_eq!(l.by, "the search's highest rate, not the fabric");
        assert!(l.evidence[0].contains("(100000 pps)"), "{:?}", l.evidence);
        let l = judge(&[trial(100, false)], snap(0, 0), 90, 500);
        assert_eq!(l.by, "the generator (its receivers)");
        let l = judge(&[trial(100, false)], snap(80, 5), 0, 500);
        assert_eq!(l.by, "a switch's CPU");
        assert!(
            l.evidence[0].contains("edge-p0-e0 port 1 (s0p1) 80"),
            "{:?}",
            l.evidence
        );
        let l = judge(&[trial(100, false)], snap(0, 70), 0, 500);
        assert_eq!(l.by, "a ring or port inside a switch");
        // nobody counted them: the machine's CPU when it was saturated
        let l = judge(&[trial(100, false)], snap(0, 0), 0, 2000);
        assert_eq!(l.by, "the machine's CPU");
        assert!(l
            .evidence
            .iter()
            .any(|e| e.contains("machine CPU 100 % busy")));
        let l = judge(&[trial(100, false)], snap(0, 0), 0, 500);
        assert_eq!(l.by, "frames lost outside the switches");
        // the CPU per thread goes with every verdict
        assert!(
            l.evidence
                .iter()
                .any(|e| e.contains("host thread canopy-h0 100 %")),
            "{:?}",
            l.evidence
        );
    }
}
