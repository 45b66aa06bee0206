//! The report of `canopy-testbed soak` (`docs/testbed.md`, "Soak"): the terminal summary
//! and the files `soak.json` ([`SoakReport`]), `soak.md` and `timeline.csv`.

use super::doc::{self, Block};
use super::results::soak::SoakReport;
use super::results::Timeline;
use crate::error::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The terminal and Markdown summary.
pub fn summary(r: &SoakReport) -> String {
    use std::fmt::Write as _;
    let a = &r.accounting;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "soak of {} ({}): {:.0} pps{} for {:.0} s",
        r.fabric,
        r.topology,
        r.rate_pps,
        r.pdr_pps
            .map_or(String::new(), |p| format!(" (PDR {p:.0} pps)")),
        r.duration_s
    );
    let _ = writeln!(
        s,
        "  sent {} ({:.0} pps achieved)  received {}  misdelivered {}  duplicates {}  foreign {}",
        a.sent, r.trial.sent_pps, a.received, a.misdelivered, a.duplicates, a.foreign
    );
    let list = |m: &BTreeMap<String, u64>| {
        if m.is_empty() {
            "none".to_string()
        } else {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let _ = writeln!(s, "  switch drops: {}", list(&a.switch_drops));
    let _ = writeln!(s, "  backend drops: {}", list(&a.backend_drops));
    let _ = writeln!(s, "  interface drops: {}", list(&a.interface_drops));
    let _ = writeln!(
        s,
        "  qdisc drops {}  receiver socket drops {}  in switch TX rings {}",
        a.qdisc_drops, a.host_socket_drops, a.in_flight
    );
    if a.late > 0 {
        let _ = writeln!(
            s,
            "  delivered after the generator stopped reading: {}",
            a.late
        );
    }
    if !a.inferred.is_empty() {
        let _ = writeln!(s, "  inferred (no counter): {}", list(&a.inferred));
    }
    if a.requeued > 0 {
        let _ = writeln!(
            s,
            "  of the interface and qdisc drops, {} were frames put back in a TX ring and sent again (tx_requeues)",
            a.requeued
        );
    }
    let _ = writeln!(
        s,
        "  counted {}  UNACCOUNTED {}{}  host wire extra {}",
        a.counted,
        a.unaccounted,
        if a.exact { "" } else { " (not exact)" },
        a.host_wire_extra
    );
    for w in &a.not_exact {
        let _ = writeln!(s, "    not exact: {w}");
    }
    for w in &a.uncounted {
        let _ = writeln!(s, "    uncounted: {w}");
    }
    let conserved = r.switches.iter().filter(|x| x.conserved).count();
    let _ = writeln!(
        s,
        "  switches conserving rx = tx + drops: {conserved} of {}; ports checked against the kernel: {}, gaps: {}",
        r.switches.len(),
        r.ports_checked,
        r.port_gaps.len()
    );
    if !r.faults.is_empty() {
        let _ = writeln!(
            s,
            "  lowest delivery in any 100 ms: {:.1} %",
            r.min_delivery_100ms * 100.0
        );
        let _ = writeln!(
            s,
            "  | round | fault | target | lost during | full delivery after fault | lost after repair | full delivery after repair | note |"
        );
        let _ = writeln!(s, "  |---|---|---|---|---|---|---|---|");
        let ms = |x: Option<f64>| x.map_or("never".to_string(), |v| format!("{v:.0} ms"));
        for e in &r.faults {
            let _ = writeln!(
                s,
                "  | {} | {} | {} | {} | {}{} | {} | {} | {} |",
                e.round,
                e.kind,
                e.target,
                e.lost_during,
                ms(e.fault_recovery_ms),
                if e.expect_fault_recovery {
                    ""
                } else {
                    " (not expected)"
                },
                e.lost_after,
                ms(e.repair_recovery_ms),
                e.note
            );
        }
    }
    if r.failures.is_empty() {
        let _ = writeln!(s, "  PASSED");
    } else {
        for f in &r.failures {
            let _ = writeln!(s, "  FAILED: {f}");
        }
    }
    s
}

/// Write `soak.json`, `soak.md` (the summary) and `timeline.csv` (`t_ms,sent,received`
/// per bin that sent or received anything) into `out`.
pub fn write(r: &SoakReport, tl: &Timeline, out: &Path) -> Result<Vec<PathBuf>> {
    let json = super::to_json(r, "soak report")?;
    let md = doc::markdown(&[Block::Pre(summary(r))]);
    let mut csv = String::from("t_ms,sent,received\n");
    for (i, (s, rcv)) in tl.sent.iter().zip(&tl.received).enumerate() {
        if *s > 0 || *rcv > 0 {
            csv.push_str(&format!(
                "{:.1},{s},{rcv}\n",
                (i as u64 * tl.bin_ns) as f64 / 1e6
            ));
        }
    }
    super::write_files(
        out,
        &[
            ("soak.json", &json),
            ("soak.md", &md),
            ("timeline.csv", &csv),
        ],
    )
}
