//! The report of `canopy-vethbench` (`docs/vethbench.md`): `results.json` (the
//! [`Report`] as it is) and `results.md` (what [`markdown`] returns, also printed).

use super::doc::{self, Block, Cell};
use super::results::vethbench::Report;
use crate::error::Result;
use std::path::{Path, PathBuf};

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("n/a".into(), |v| format!("{v:.digits$}"))
}

fn table(head: &[&str], rows: Vec<Vec<Cell>>) -> Block {
    Block::Table {
        head: head.iter().map(|h| h.to_string()).collect(),
        rows,
        numeric: true,
    }
}

/// The first paragraph: when, where, how.
fn setting(r: &Report) -> String {
    let m = &r.header.machine;
    format!(
        "Run of {}: {} CPUs{}, kernel {}, load average {} before, {} after; forwarder on CPU {}, sender on CPU {}; {} B frames (+4 FCS); veth offloads {}. Command: {}; canopy {}.",
        r.header.started,
        m.cpus,
        m.cpu_model
            .as_deref()
            .map(|c| format!(" ({c})"))
            .unwrap_or_default(),
        m.kernel,
        opt(m.load_before, 2),
        opt(r.load_after, 2),
        r.cores.0,
        r.cores.1,
        r.frame_len,
        if r.offloads_off {
            "off"
        } else {
            "left on (no ethtool)"
        },
        r.header.command,
        r.header.version
    )
}

/// The three passes' tables.
fn passes(r: &Report) -> Vec<Block> {
    let max: Vec<Vec<Cell>> = r
        .results
        .iter()
        .filter_map(|x| {
            let m = x.max_rate.as_ref()?;
            Some(vec![
                x.forwarder.as_str().into(),
                m.generator.as_str().into(),
                format!("{:.0}", m.offered_pps / 1e3).into(),
                format!("{:.0}", m.forwarded_pps / 1e3).into(),
                format!("{:.2}", m.loss_pct).into(),
                m.ingress_drops.to_string().into(),
            ])
        })
        .collect();
    let direct = r
        .results
        .iter()
        .find(|x| x.forwarder == "direct")
        .and_then(|x| x.fixed.as_ref())
        .map(|f| f.machine_ns_per_pkt);
    let fixed: Vec<Vec<Cell>> = r
        .results
        .iter()
        .filter_map(|x| {
            let f = x.fixed.as_ref()?;
            Some(vec![
                x.forwarder.as_str().into(),
                format!("{} ({})", f.target_pps / 1000, f.burst).into(),
                format!("{:.1}", f.offered_pps / 1e3).into(),
                format!("{:.1}", f.forwarded_pps / 1e3).into(),
                opt(f.process_ns_per_pkt, 0).into(),
                f.process_core_share
                    .map_or("n/a".into(), |v| format!("{:.0} %", v * 100.0))
                    .into(),
                format!("{:.0}", f.sender_ns_per_pkt).into(),
                format!("{:.0}", f.machine_ns_per_pkt).into(),
                match (direct, x.forwarder.as_str()) {
                    (_, "direct") | (None, _) => "—".to_string(),
                    (Some(d), _) => format!("{:+.0}", f.machine_ns_per_pkt - d),
                }
                .into(),
                format!("{:.0}", f.softirq_ns_per_pkt).into(),
            ])
        })
        .collect();
    let latency: Vec<Vec<Cell>> = r
        .results
        .iter()
        .filter_map(|x| {
            let l = x.latency.as_ref()?;
            Some(vec![
                x.forwarder.as_str().into(),
                us(l.p50_ns).into(),
                us(l.p90_ns).into(),
                us(l.p99_ns).into(),
                us(l.max_ns).into(),
                format!("{}/{}", l.received, l.sent).into(),
            ])
        })
        .collect();
    vec![
        table(
            &[
                "forwarder",
                "max rate: generator",
                "offered kpps",
                "forwarded kpps",
                "loss %",
                "ingress drops",
            ],
            max,
        ),
        table(
            &[
                "forwarder",
                "fixed rate kpps (burst)",
                "offered kpps",
                "forwarded kpps",
                "process CPU ns/pkt",
                "process share of a core",
                "sender thread ns/pkt",
                "machine busy ns/pkt",
                "machine over direct ns/pkt",
                "machine softirq ns/pkt",
            ],
            fixed,
        ),
        table(
            &[
                "forwarder",
                "latency p50 µs",
                "p90 µs",
                "p99 µs",
                "max µs",
                "received/sent",
            ],
            latency,
        ),
    ]
}

/// The senders side by side on the direct pair: trafgen, the generator into the sink,
/// the generator into its receiver, and the generator's rate as a share of trafgen's.
fn senders(r: &Report) -> Vec<Block> {
    let Some(s) = &r.senders else {
        return vec![];
    };
    let mut rows: Vec<Vec<Cell>> = vec![];
    let dash = || Cell::from("—");
    if let Some(t) = &s.trafgen {
        rows.push(vec![
            "trafgen → sink".into(),
            "1".into(),
            format!("{:.0}", t.offered_pps / 1e3).into(),
            format!("{:.0}", t.forwarded_pps / 1e3).into(),
            dash(),
            dash(),
            dash(),
            dash(),
        ]);
    }
    for (name, g) in [
        ("generator → sink", &s.generator),
        ("generator → its receiver", &s.generator_rx),
    ] {
        let rx = g.receiver.as_ref();
        rows.push(vec![
            name.into(),
            g.tx_threads.to_string().into(),
            format!("{:.0}", g.sent_pps / 1e3).into(),
            format!(
                "{:.0}",
                (g.sink_rx.saturating_sub(g.warmup_sent)) as f64 / g.seconds / 1e3
            )
            .into(),
            rx.map_or_else(dash, |x| format!("{:.0}", x.received_pps / 1e3).into()),
            rx.map_or_else(dash, |x| format!("{} / {}", x.lost, x.duplicates).into()),
            rx.map_or_else(dash, |x| {
                format!("{} / {}", us(x.p50_ns), us(x.p99_ns)).into()
            }),
            format!(
                "{} / {}",
                us(g.burst_span_mean_ns.round() as u64),
                us(g.burst_span_max_ns)
            )
            .into(),
        ]);
    }
    let mut b = vec![table(
        &[
            "sender (direct pair)",
            "threads",
            "sent kpps",
            "far end kpps",
            "received kpps",
            "lost / dup",
            "p50 / p99 µs",
            "burst span mean / max µs",
        ],
        rows,
    )];
    match (&s.trafgen, &s.trafgen_skipped) {
        (Some(t), _) if t.offered_pps > 0.0 => b.push(Block::Para(format!(
            "The generator sent {:.0} % of trafgen's rate into the sink ({:.0} % into its own receiver), every frame stamped with its flow's sequence number and its burst's send time.",
            100.0 * s.generator.sent_pps / t.offered_pps,
            100.0 * s.generator_rx.sent_pps / t.offered_pps
        ))),
        (_, Some(why)) => b.push(Block::Para(format!("trafgen: not measured ({why})."))),
        _ => {}
    }
    b
}

/// What follows the tables: canopy against the bridge, skips and errors, the method. A
/// forwarder that did not run has no figure here: the report quotes nothing it did not
/// measure.
fn notes(r: &Report) -> Vec<Block> {
    let mut b = vec![];
    let lat = |name: &str| {
        r.results
            .iter()
            .find(|x| x.forwarder == name)
            .and_then(|x| x.latency)
    };
    if let Some(br) = lat("bridge") {
        for c in ["canopy", "canopy-busy"] {
            if let Some(l) = lat(c) {
                b.push(Block::Para(format!(
                    "{c} adds {:+.1} µs at p50 and {:+.1} µs at p99 over the bridge.",
                    (l.p50_ns as f64 - br.p50_ns as f64) / 1e3,
                    (l.p99_ns as f64 - br.p99_ns as f64) / 1e3
                )));
            }
        }
    }
    for x in &r.results {
        if let Some(w) = &x.skipped {
            b.push(Block::Para(format!("{}: skipped ({w}).", x.forwarder)));
        }
        if let Some(e) = &x.error {
            b.push(Block::Para(format!("{}: error: {e}.", x.forwarder)));
        }
        // a backlog worth naming: the next pass waited for it
        if x.drained_seconds.iter().any(|&d| d > 1.0) {
            let d: Vec<String> = x
                .drained_seconds
                .iter()
                .map(|d| format!("{d:.1} s"))
                .collect();
            b.push(Block::Para(format!(
                "{}: the path took {} to go idle after its passes (each pass started after it did).",
                x.forwarder,
                d.join(", ")
            )));
        }
    }
    b.push(Block::Para(format!(
        "Method: docs/vethbench.md. Process CPU = utime+stime of the forwarder process (all threads) from /proc/PID/stat; \
         machine = all non-idle CPU time of the machine (/proc/stat), sender included; both divided by the frames counted on the receiver veth. \
         canopy ports: {}, adaptive spins {}.",
        r.canopy.0, r.canopy.1
    )));
    b
}

/// Markdown: the setting, then tables of the max rate, the fixed rate (CPU per packet)
/// and the latency, and the latency canopy adds over the bridge.
pub fn markdown(r: &Report) -> String {
    let mut blocks = vec![Block::Para(setting(r))];
    blocks.extend(senders(r));
    blocks.extend(passes(r));
    blocks.extend(notes(r));
    doc::markdown(&blocks)
}

/// Write `results.md` and `results.json` into `dir` (created if missing).
pub fn write(r: &Report, dir: &Path) -> Result<Vec<PathBuf>> {
    let md = markdown(r);
    let json = super::to_json(r, "vethbench results")?;
    super::write_files(dir, &[("results.md", &md), ("results.json", &json)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::results::vethbench::{Fixed, ForwarderResult, LatencyStats, MaxRate};
    use crate::report::results::{Header, Machine};

    fn forwarder(name: &str, p50_us: u64) -> ForwarderResult {
        ForwarderResult {
            forwarder: name.into(),
            skipped: None,
            error: None,
            start_seconds: Some(0.2),
            max_rate: Some(MaxRate {
                generator: "own".into(),
                seconds: 1.0,
                offered: 500_000,
                forwarded: 400_000,
                offered_pps: 500_000.0,
                forwarded_pps: 400_000.0,
                loss_pct: 20.0,
                ingress_drops: 7,
            }),
            fixed: Some(Fixed {
                target_pps: 100_000,
                burst: 32,
                seconds: 1.0,
                offered: 100_000,
                offered_pps: 100_000.0,
                forwarded: 100_000,
                forwarded_pps: 100_000.0,
                sender_ns_per_pkt: 900.0,
                process_ns_per_pkt: (name != "bridge").then_some(1500.0),
                process_core_share: (name != "bridge").then_some(0.15),
                machine_ns_per_pkt: if name == "direct" { 2000.0 } else { 3000.0 },
                softirq_ns_per_pkt: 400.0,
            }),
            latency: Some(LatencyStats {
                sent: 100,
                received: 99,
                p50_ns: p50_us * 1000,
                p90_ns: p50_us * 2000,
                p99_ns: p50_us * 3000,
                max_ns: p50_us * 4000,
                min_ns: 1,
                mean_ns: 1.0,
            }),
            drained_seconds: vec![0.2, 0.21],
        }
    }

    #[test]
    fn tables_notes_and_the_header_every_report_has() {
        let r = Report {
            header: Header {
                command: "canopy-vethbench --out x".into(),
                started: "2026-11-23T16:00:00Z".into(),
                machine: Machine {
                    cpus: 2,
                    kernel: "6.1.0-test".into(),
                    cpu_model: None,
                    load_before: Some(0.5),
                },
                version: "0.1.0".into(),
            },
            load_after: Some(1.25),
            frame_len: 60,
            cores: (1, 0),
            offloads_off: true,
            results: vec![
                forwarder("direct", 10),
                forwarder("bridge", 20),
                forwarder("canopy", 25),
                ForwarderResult {
                    skipped: Some("dpdk-testpmd not installed".into()),
                    max_rate: None,
                    fixed: None,
                    latency: None,
                    ..forwarder("testpmd", 0)
                },
            ],
            canopy: ("afpacket v2".into(), 64),
            senders: None,
        };
        let md = markdown(&r);
        assert!(md.starts_with("Run of 2026-11-23T16:00:00Z: 2 CPUs, kernel 6.1.0-test, load average 0.50 before, 1.25 after;"), "{md}");
        assert!(
            md.contains("| bridge | own | 500 | 400 | 20.00 | 7 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| canopy | 100 (32) | 100.0 | 100.0 | 1500 | 15 % | 900 | 3000 | +1000 | 400 |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| direct | 100 (32) | 100.0 | 100.0 | 1500 | 15 % | 900 | 2000 | — | 400 |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| bridge | 100 (32) | 100.0 | 100.0 | n/a | n/a |"),
            "{md}"
        );
        assert!(
            md.contains("| canopy | 25.0 | 50.0 | 75.0 | 100.0 | 99/100 |"),
            "{md}"
        );
        assert!(md.contains("canopy adds +5.0 µs at p50 and +15.0 µs at p99 over the bridge."));
        assert!(md.contains("testpmd: skipped (dpdk-testpmd not installed)."));
        // drains under a second are not worth a line
        assert!(!md.contains("to go idle"), "{md}");
        let slow = {
            let mut slow = r.clone();
            slow.results[2].drained_seconds = vec![4.2, 0.2];
            markdown(&slow)
        };
        assert!(
            slow.contains("canopy: the path took 4.2 s, 0.2 s to go idle"),
            "{slow}"
        );
        // nothing the run did not measure: no figure of a forwarder that was not in it
        assert!(!md.contains("bmv2"), "{md}");
        assert!(md.contains("canopy ports: afpacket v2, adaptive spins 64."));
        // the JSON starts with the shared header, flattened, and reads back the same
        let dir = tempfile::tempdir().unwrap();
        let files = write(&r, dir.path()).unwrap();
        assert_eq!(files.len(), 2);
        let json = std::fs::read_to_string(dir.path().join("results.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["command"], "canopy-vethbench --out x");
        assert_eq!(v["machine"]["cpus"], 2);
        assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), r);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("results.md")).unwrap(),
            md
        );
    }
}
