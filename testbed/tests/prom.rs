//! canopyd's `/metrics` scraped by a real Prometheus (Debian's `prometheus` package):
//! the exposition parses, the values arrive with the right labels and grow, a down
//! switch exports no port series, and every expression of the Grafana dashboard and
//! the rules file is valid PromQL that finds data. Skips (and passes) with a message
//! when the binary is absent.

use canopy_proto::mgmt::{BackendReport, CountersReport, Health, PortCounters, PortHealth};
use canopy_proto::snapshot::{
    FabricSnapshot, HistogramSnapshot, SwitchSnapshot, TrafficSnapshot, LATENCY_BUCKETS,
    PROBE_BUCKETS,
};
use canopy_testbed::prom::{PromServer, Sample, SKIP_HINT};
use canopyd::http::{HttpServer, SnapshotSource};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn port(n: u16, name: &str, tick: u64) -> PortCounters {
    let mut drops = BTreeMap::new();
    drops.insert("no_route".to_string(), 2 * tick + u64::from(n));
    drops.insert("hop_limit".to_string(), 0);
    PortCounters {
        port: n,
        name: name.to_string(),
        rx_packets: 1000 * tick + u64::from(n),
        rx_bytes: 64_000 * tick,
        tx_packets: 990 * tick,
        tx_bytes: 63_360 * tick,
        adaptive_choices: 10 * tick,
        ring_occupancy: tick % 7,
        dropped: 2 * tick + u64::from(n),
        drops,
        tx_backlog: 0,
        backend: BackendReport {
            kernel_drops: tick / 2,
            ..BackendReport::default()
        },
    }
}

fn switch(name: &str, up: bool, tick: u64) -> SwitchSnapshot {
    let ports = vec![
        port(0, &format!("{name}-0"), tick),
        port(1, &format!("{name}-1"), tick),
    ];
    let mut probe = HistogramSnapshot::new(PROBE_BUCKETS);
    probe.observe_n(0.0003, tick);
    probe.observe_n(0.002, tick / 4);
    SwitchSnapshot {
        name: name.to_string(),
        endpoint: format!("/run/canopy/{name}.sock"),
        up,
        last_error: None,
        health: Some(Health {
            uptime_s: tick as f64,
            pid: 1234,
            instance: 1,
            workers: 1,
            mode: "adaptive".to_string(),
            tables_loaded: true,
            tables: Some(name.to_string()),
            kinds: vec!["sliced".to_string()],
            ports: ports
                .iter()
                .map(|p| PortHealth {
                    port: p.port,
                    name: p.name.clone(),
                    backend: "afpacket".to_string(),
                    mode_note: None,
                    link: true,
                    admin: true,
                })
                .collect(),
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
        counters: Some(CountersReport {
            uptime_s: tick as f64,
            pid: 7,
            rx_packets: ports.iter().map(|p| p.rx_packets).sum(),
            tx_packets: ports.iter().map(|p| p.tx_packets).sum(),
            dropped: ports.iter().map(|p| p.dropped).sum(),
            ports,
        }),
        pruned_ports: if up { vec![] } else { vec![1] },
        admin_down: vec![],
        tables_current: up,
        pushes_total: 1,
        push_failures_total: 0,
        down_events_total: u64::from(!up),
        restarts_total: 0,
        probe_rtt: probe,
    }
}

/// A fabric whose counters grow with every scrape: `edge-p0-e0` up, `core-0` down.
fn growing() -> (SnapshotSource, Arc<AtomicU64>) {
    let ticks = Arc::new(AtomicU64::new(0));
    let t = Arc::clone(&ticks);
    let src: SnapshotSource = Arc::new(move || {
        let tick = t.fetch_add(1, Ordering::SeqCst) + 1;
        let mut latency = HistogramSnapshot::new(LATENCY_BUCKETS);
        latency.observe_n(0.00004, 100 * tick);
        latency.observe_n(0.0003, 10 * tick);
        FabricSnapshot {
            fabric: "lab".to_string(),
            topology: "fat-tree:k=4".to_string(),
            kind: "sliced".to_string(),
            uptime_s: tick as f64,
            ready: false,
            switches: vec![
                switch("edge-p0-e0", true, tick),
                switch("core-0", false, tick),
            ],
            traffic: Some(TrafficSnapshot {
                sent_total: 1000 * tick,
                received_total: 990 * tick,
                lost_total: 10 * tick,
                misdelivered_total: 0,
                latency,
            }),
        }
    });
    (src, ticks)
}

fn one(r: &[Sample]) -> f64 {
    assert_eq!(r.len(), 1, "{r:?}");
    r[0].1
}

/// Every `"expr"` of the Grafana dashboard, with its variables filled in.
fn dashboard_exprs() -> Vec<String> {
    let path = repo().join("docs/grafana/canopy-fabric.json");
    let text = std::fs::read_to_string(&path).expect("dashboard");
    let j: serde_json::Value = serde_json::from_str(&text).expect("dashboard is JSON");
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v.as_str()) {
                        ("expr", Some(e)) if !e.is_empty() => out.push(e.to_string()),
                        _ => walk(v, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    // Panels only: the templating queries (label_values(...)) are Grafana syntax.
    walk(&j["panels"], &mut out);
    out.into_iter()
        .map(|e| {
            e.replace("$__rate_interval", "5s")
                .replace("$__interval", "5s")
                .replace("$switch", ".*")
                .replace("$fabric", ".*")
        })
        .collect()
}

/// Every `expr:` of the rules file.
fn rule_exprs() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("docs/prometheus/canopy-rules.yml"))
        .expect("rules file");
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("expr:") {
            let rest = rest.trim();
            if rest == "|" || rest == ">" || rest.is_empty() {
                let indent = l.len() - t.len();
                let mut e = String::new();
                while let Some(n) = lines.peek() {
                    let nt = n.trim_start();
                    if n.len() - nt.len() <= indent || nt.is_empty() {
                        break;
                    }
                    e.push_str(nt);
                    e.push(' ');
                    lines.next();
                }
                out.push(e.trim().to_string());
            } else {
                out.push(rest.trim_matches('\'').to_string());
            }
        }
    }
    out
}

#[test]
fn prometheus_scrapes_canopyd() {
    let (src, ticks) = growing();
    let http = HttpServer::start("127.0.0.1:0", src).expect("http server");
    let Some(prom) = PromServer::start(&[http.local_addr()]).expect("start prometheus") else {
        eprintln!("SKIP: {SKIP_HINT}");
        return;
    };
    eprintln!(
        "prometheus on {} scraping {}",
        prom.addr(),
        http.local_addr()
    );

    let up = prom
        .wait_for(r#"up{job="canopyd"}"#, WAIT, |r| {
            r.len() == 1 && r[0].1 == 1.0
        })
        .expect("target up");
    assert_eq!(up[0].0["instance"], http.local_addr().to_string());

    let q = r#"canopy_port_rx_frames_total{switch="edge-p0-e0"}"#;
    let first = prom.wait_for(q, WAIT, |r| r.len() == 2).expect("rx series");
    for (labels, v) in &first {
        assert_eq!(labels["fabric"], "lab");
        assert_eq!(labels["job"], "canopyd");
        let p: u64 = labels["port"].parse().unwrap();
        // rx = 1000 * tick + port for some tick the scrape saw.
        assert_eq!((*v as u64) % 1000, p, "{labels:?} {v}");
        assert!(*v >= 1000.0);
        assert_eq!(
            labels.keys().cloned().collect::<Vec<_>>(),
            ["__name__", "fabric", "instance", "job", "port", "switch"]
        );
    }
    // The counters grow between scrapes.
    let v0 = first.iter().map(|s| s.1).fold(0.0, f64::max);
    prom.wait_for(q, WAIT, |r| r.iter().any(|s| s.1 > v0))
        .expect("rx grows");
    let rate = prom
        .wait_for(
            r#"sum(rate(canopy_port_rx_frames_total{switch="edge-p0-e0"}[5s]))"#,
            WAIT,
            |r| r.len() == 1 && r[0].1 > 0.0,
        )
        .expect("rate");
    eprintln!("rx rate {} /s", one(&rate));

    let drops = prom
        .wait_for(r#"canopy_port_drops_total{reason="no_route"}"#, WAIT, |r| {
            r.len() == 2
        })
        .expect("drops");
    for (labels, v) in &drops {
        assert_eq!(
            labels["switch"], "edge-p0-e0",
            "down switch exported: {labels:?}"
        );
        let p: f64 = labels["port"].parse().unwrap();
        assert_eq!((v - p) % 2.0, 0.0, "{labels:?} {v}");
    }
    let zero = prom
        .query(r#"canopy_port_drops_total{reason="hop_limit",port="0"}"#)
        .unwrap();
    assert_eq!(one(&zero), 0.0);

    // core-0 is down: up 0, no port series, its pruned port counted.
    assert_eq!(
        one(&prom.query(r#"canopy_switch_up{switch="core-0"}"#).unwrap()),
        0.0
    );
    assert_eq!(
        one(&prom
            .query(r#"canopy_switch_up{switch="edge-p0-e0"}"#)
            .unwrap()),
        1.0
    );
    assert!(prom
        .query(r#"canopy_port_rx_frames_total{switch="core-0"}"#)
        .unwrap()
        .is_empty());
    assert_eq!(one(&prom.query("canopyd_pruned_ports").unwrap()), 1.0);
    assert_eq!(one(&prom.query("canopyd_ready").unwrap()), 0.0);

    // Histograms: the probe quantile lands in the 0.00025..0.0005 bucket; the traffic
    // latency median in 0.000025..0.00005.
    let p50 = prom
        .wait_for(
            r#"histogram_quantile(0.5, canopyd_probe_duration_seconds_bucket{switch="edge-p0-e0"})"#,
            WAIT,
            |r| r.len() == 1 && r[0].1.is_finite(),
        )
        .expect("probe p50");
    let p50 = one(&p50);
    assert!((0.000_25..=0.000_5).contains(&p50), "probe p50 {p50}");
    let lat = one(&prom
        .query("histogram_quantile(0.5, canopy_traffic_latency_seconds_bucket)")
        .unwrap());
    assert!((0.000_025..=0.000_05).contains(&lat), "latency p50 {lat}");

    // The dashboard's and the rules' expressions: valid PromQL, and (after a few
    // scrapes) each finds data, so a renamed metric or label breaks this test.
    std::thread::sleep(Duration::from_secs(3));
    let mut empty = Vec::new();
    let exprs: Vec<String> = dashboard_exprs().into_iter().chain(rule_exprs()).collect();
    assert!(exprs.len() >= 15, "only {} expressions", exprs.len());
    for e in &exprs {
        let r = prom
            .query(e)
            .unwrap_or_else(|err| panic!("invalid PromQL `{e}`: {err}"));
        if r.is_empty() {
            empty.push(e.clone());
        }
    }
    // Alert expressions that are false on this fabric answer nothing; everything else
    // must find data.
    let alerts_quiet: Vec<String> = rule_exprs()
        .into_iter()
        .filter(|e| e.contains(" > ") || e.contains(" == ") || e.contains(" < "))
        .collect();
    empty.retain(|e| !alerts_quiet.contains(e));
    assert!(empty.is_empty(), "expressions without data: {empty:#?}");
    eprintln!(
        "{} expressions checked; {} snapshots served",
        exprs.len(),
        ticks.load(Ordering::SeqCst)
    );
    drop(prom);
}

#[test]
fn promtool_accepts_config_and_rules() {
    let promtool = PathBuf::from("/usr/bin/promtool");
    if !promtool.is_file() {
        eprintln!("SKIP: promtool not installed (apt-get install -y prometheus)");
        return;
    }
    let dir = repo().join("docs/prometheus");
    for (what, file) in [("rules", "canopy-rules.yml"), ("config", "canopy.yml")] {
        let out = Command::new(&promtool)
            .arg("check")
            .arg(what)
            .arg(file)
            .current_dir(&dir)
            .output()
            .expect("run promtool");
        assert!(
            out.status.success(),
            "promtool check {what} {file}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `promtool check metrics` (Prometheus' own linter of an exposition: names, suffixes,
/// units, help texts) finds nothing to say about what canopyd's `/metrics` serves.
#[test]
fn promtool_lints_the_exposition_clean() {
    let promtool = PathBuf::from("/usr/bin/promtool");
    if !promtool.is_file() {
        eprintln!("SKIP: promtool not installed (apt-get install -y prometheus)");
        return;
    }
    let (src, _) = growing();
    let http = HttpServer::start("127.0.0.1:0", src).expect("http server");
    let mut s = std::net::TcpStream::connect(http.local_addr()).expect("connect");
    std::io::Write::write_all(&mut s, b"GET /metrics HTTP/1.0\r\n\r\n").expect("ask");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut s, &mut answer).expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.contains("process_start_time_seconds "), "{body}");
    let mut child = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run promtool");
    let mut stdin = child.stdin.take().expect("stdin");
    std::io::Write::write_all(&mut stdin, body.as_bytes()).expect("feed promtool");
    drop(stdin);
    let out = child.wait_with_output().expect("promtool");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "promtool check metrics ({}): {said}",
        out.status
    );
}
