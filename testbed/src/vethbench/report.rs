//! The bench report as Markdown (the JSON is the [`Report`] serialized).

use crate::vethbench::Report;
use std::fmt::Write;

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("n/a".into(), |v| format!("{v:.digits$}"))
}

/// Markdown tables: max rate, fixed rate (CPU per packet), latency, and the latency
/// canopy adds over the bridge.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Run of {}: {} CPUs, {}, load average {} before, {} after; forwarder on CPU {}, sender on CPU {}; {} B frames (+4 FCS); veth offloads {}.\n",
        r.date,
        r.cpus,
        r.kernel,
        opt(r.load_before, 2),
        opt(r.load_after, 2),
        r.cores.0,
        r.cores.1,
        r.frame_len,
        if r.offloads_off { "off" } else { "left on (no ethtool)" }
    );
    let _ = writeln!(s, "| forwarder | max rate: generator | offered kpps | forwarded kpps | loss % | ingress drops |");
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for x in &r.results {
        if let Some(m) = &x.max_rate {
            let _ = writeln!(
                s,
                "| {} | {} | {:.0} | {:.0} | {:.2} | {} |",
                x.forwarder,
                m.generator,
                m.offered_pps / 1e3,
                m.forwarded_pps / 1e3,
                m.loss_pct,
                m.ingress_drops
            );
        }
    }
    let _ = writeln!(s, "\n| forwarder | fixed rate kpps (burst) | offered kpps | forwarded kpps | process CPU ns/pkt | process share of a core | sender thread ns/pkt | machine busy ns/pkt | machine over direct ns/pkt | machine softirq ns/pkt |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
    let direct = r
        .results
        .iter()
        .find(|x| x.forwarder == "direct")
        .and_then(|x| x.fixed.as_ref())
        .map(|f| f.machine_ns_per_pkt);
    for x in &r.results {
        if let Some(f) = &x.fixed {
            let _ = writeln!(
                s,
                "| {} | {} ({}) | {:.1} | {:.1} | {} | {} | {:.0} | {:.0} | {} | {:.0} |",
                x.forwarder,
                f.target_pps / 1000,
                f.burst,
                f.offered_pps / 1e3,
                f.forwarded_pps / 1e3,
                opt(f.process_ns_per_pkt, 0),
                f.process_core_share
                    .map_or("n/a".into(), |v| format!("{:.0} %", v * 100.0)),
                f.sender_ns_per_pkt,
                f.machine_ns_per_pkt,
                match (direct, x.forwarder.as_str()) {
                    (_, "direct") | (None, _) => "—".to_string(),
                    (Some(d), _) => format!("{:+.0}", f.machine_ns_per_pkt - d),
                },
                f.softirq_ns_per_pkt
            );
        }
    }
    let _ = writeln!(
        s,
        "\n| forwarder | latency p50 µs | p90 µs | p99 µs | max µs | received/sent |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for x in &r.results {
        if let Some(l) = &x.latency {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {}/{} |",
                x.forwarder,
                us(l.p50_ns),
                us(l.p90_ns),
                us(l.p99_ns),
                us(l.max_ns),
                l.received,
                l.sent
            );
        }
    }
    let lat = |name: &str| {
        r.results
            .iter()
            .find(|x| x.forwarder == name)
            .and_then(|x| x.latency)
    };
    if let Some(b) = lat("bridge") {
        for c in ["canopy", "canopy-busy"] {
            if let Some(l) = lat(c) {
                let _ = writeln!(
                    s,
                    "\n{c} adds {:+.1} µs at p50 and {:+.1} µs at p99 over the bridge.",
                    (l.p50_ns as f64 - b.p50_ns as f64) / 1e3,
                    (l.p99_ns as f64 - b.p99_ns as f64) / 1e3
                );
            }
        }
    }
    for x in &r.results {
        if let Some(w) = &x.skipped {
            let _ = writeln!(s, "\n{}: skipped ({w}).", x.forwarder);
        }
        if let Some(e) = &x.error {
            let _ = writeln!(s, "\n{}: error: {e}.", x.forwarder);
        }
    }
    if let Some((a, b)) = r.bmv2_quoted_kpps {
        let _ = writeln!(
            s,
            "\nbmv2 did not run here; measured earlier on this machine (issue 3): {a:.0}–{b:.0} kpps, i.e. about {:.0}–{:.0} µs of CPU per packet at saturation of one core.",
            1e3 / b,
            1e3 / a
        );
    }
    let _ = writeln!(
        s,
        "\nMethod: docs/vethbench.md. Process CPU = utime+stime of the forwarder process (all threads) from /proc/PID/stat; \
         machine = all non-idle CPU time of the machine (/proc/stat), sender included; both divided by the frames counted on the receiver veth. \
         canopy ports: {}, adaptive spins {}.",
        r.canopy.0, r.canopy.1
    );
    s
}
