//! The exposition checked family by family against synthetic fabric snapshots (also
//! used by the HTTP server's tests).

use super::*;
use canopy_proto::mgmt::{BackendReport, CountersReport, Health};
use canopy_proto::snapshot::{TrafficSnapshot, PROBE_BUCKETS};

/// A synthetic fabric: `edge-p0-e0` up with two ports (port 1 pruned), `core-0`
/// down with stale counters, traffic reported. `scale` multiplies the counters.
pub(crate) fn sample(scale: u64) -> FabricSnapshot {
    let port = |n: u16, name: &str| {
        let mut drops = BTreeMap::new();
        drops.insert("no_route".to_string(), 3 * scale + n as u64);
        drops.insert("hop_limit".to_string(), 0);
        let mut bd = BTreeMap::new();
        bd.insert("tx_ring_full".to_string(), 2);
        PortCounters {
            port: n,
            name: name.to_string(),
            rx_packets: 100 * scale + n as u64,
            rx_bytes: 6400 * scale,
            tx_packets: 90 * scale,
            tx_bytes: 5760 * scale,
            adaptive_choices: 7,
            ring_occupancy: 5,
            dropped: 3 * scale + n as u64,
            drops,
            tx_backlog: 1,
            backend: BackendReport {
                kernel_drops: 4,
                link_down_events: 1,
                reopens: 0,
                tx_requeues: 2,
                drops: bd,
            },
        }
    };
    let ph = |n: u16, name: &str, link: bool| PortHealth {
        port: n,
        name: name.to_string(),
        backend: "afpacket".to_string(),
        mode_note: None,
        link,
        admin: true,
    };
    let health = |ports: Vec<PortHealth>| Health {
        uptime_s: 12.5,
        pid: 4242,
        instance: 1_700_000_000_250_000_000,
        workers: 1,
        mode: "adaptive".to_string(),
        tables_loaded: true,
        tables: Some("edge-p0-e0".to_string()),
        kinds: vec!["sliced".to_string()],
        ports,
        tcp: None,
        p4runtime: None,
        auth_failures: 0,
        tcp_refused: 0,
        conns_evicted: 0,
        protocol_version: 1,
        version: "0.1.0".to_string(),
        capture: None,
    };
    let counters = |ports: Vec<PortCounters>| CountersReport {
        uptime_s: 12.5,
        pid: 7,
        rx_packets: ports.iter().map(|p| p.rx_packets).sum(),
        tx_packets: ports.iter().map(|p| p.tx_packets).sum(),
        dropped: ports.iter().map(|p| p.dropped).sum(),
        ports,
    };
    let mut probe = HistogramSnapshot::new(PROBE_BUCKETS);
    probe.observe_n(0.0002, 3);
    probe.observe(0.003);
    probe.observe(7.0);
    let mut latency = HistogramSnapshot::new(canopy_proto::snapshot::LATENCY_BUCKETS);
    latency.observe_n(0.00003, 10);
    let e0 = SwitchSnapshot {
        name: "edge-p0-e0".to_string(),
        endpoint: "/run/canopy/edge-p0-e0.sock".to_string(),
        up: true,
        last_error: None,
        health: Some(health(vec![ph(0, "e0-h0", true), ph(1, "e0-a0", false)])),
        instance: Some(1),
        counters: Some(counters(vec![port(0, "e0-h0"), port(1, "e0-a0")])),
        pruned_ports: vec![1],
        admin_down: vec![],
        tables_current: true,
        pushes_total: 2,
        push_failures_total: 1,
        down_events_total: 0,
        restarts_total: 1,
        probe_rtt: probe,
    };
    let core = SwitchSnapshot {
        name: "core-0".to_string(),
        endpoint: "10.0.0.9:7000".to_string(),
        up: false,
        last_error: Some("connection refused".to_string()),
        health: Some(health(vec![ph(0, "c0-a0", true)])),
        instance: Some(1),
        counters: Some(counters(vec![port(0, "c0-a0")])),
        pruned_ports: vec![],
        admin_down: vec![],
        tables_current: false,
        pushes_total: 1,
        push_failures_total: 0,
        down_events_total: 1,
        restarts_total: 0,
        probe_rtt: HistogramSnapshot::new(PROBE_BUCKETS),
    };
    FabricSnapshot {
        fabric: "lab".to_string(),
        topology: "fat-tree:k=4".to_string(),
        kind: "sliced".to_string(),
        uptime_s: 60.0,
        ready: false,
        switches: vec![e0, core],
        traffic: Some(TrafficSnapshot {
            sent_total: 1000 * scale,
            received_total: 990 * scale,
            lost_total: 10 * scale,
            misdelivered_total: 0,
            latency,
        }),
    }
}

fn has(text: &str, line: &str) {
    assert!(
        text.lines().any(|l| l == line),
        "missing line {line:?} in\n{text}"
    );
}

fn lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "unexpected {needle:?} in\n{text}");
}

#[test]
fn port_lines_help_and_type() {
    let t = render(&sample(1));
    has(
        &t,
        "# HELP canopy_port_rx_frames_total Frames received on the port (switch counter).",
    );
    has(&t, "# TYPE canopy_port_rx_frames_total counter");
    has(
        &t,
        r#"canopy_port_rx_frames_total{fabric="lab",switch="edge-p0-e0",port="0"} 100"#,
    );
    has(
        &t,
        r#"canopy_port_rx_frames_total{fabric="lab",switch="edge-p0-e0",port="1"} 101"#,
    );
    has(
        &t,
        r#"canopy_port_rx_bytes_total{fabric="lab",switch="edge-p0-e0",port="0"} 6400"#,
    );
    has(
        &t,
        r#"canopy_port_tx_frames_total{fabric="lab",switch="edge-p0-e0",port="1"} 90"#,
    );
    has(
        &t,
        r#"canopy_port_drops_total{fabric="lab",switch="edge-p0-e0",port="1",reason="no_route"} 4"#,
    );
    // Zeros included.
    has(
        &t,
        r#"canopy_port_drops_total{fabric="lab",switch="edge-p0-e0",port="0",reason="hop_limit"} 0"#,
    );
    has(
        &t,
        r#"canopy_port_backend_drops_total{fabric="lab",switch="edge-p0-e0",port="0",reason="kernel"} 4"#,
    );
    has(
        &t,
        r#"canopy_port_backend_drops_total{fabric="lab",switch="edge-p0-e0",port="0",reason="tx_ring_full"} 2"#,
    );
    has(&t, "# TYPE canopy_port_tx_ring_frames gauge");
    has(
        &t,
        r#"canopy_port_tx_ring_frames{fabric="lab",switch="edge-p0-e0",port="0"} 5"#,
    );
    has(
        &t,
        r#"canopy_port_tx_backlog_frames{fabric="lab",switch="edge-p0-e0",port="0"} 1"#,
    );
    has(
        &t,
        r#"canopy_port_adaptive_choices_total{fabric="lab",switch="edge-p0-e0",port="0"} 7"#,
    );
    has(
        &t,
        r#"canopy_port_link_up{fabric="lab",switch="edge-p0-e0",port="0"} 1"#,
    );
    has(
        &t,
        r#"canopy_port_link_up{fabric="lab",switch="edge-p0-e0",port="1"} 0"#,
    );
    has(
        &t,
        r#"canopy_port_admin_up{fabric="lab",switch="edge-p0-e0",port="1"} 1"#,
    );
    has(
        &t,
        r#"canopy_port_in_use{fabric="lab",switch="edge-p0-e0",port="0"} 1"#,
    );
    has(
        &t,
        r#"canopy_port_in_use{fabric="lab",switch="edge-p0-e0",port="1"} 0"#,
    );
    has(
        &t,
        r#"canopy_port_link_down_events_total{fabric="lab",switch="edge-p0-e0",port="0"} 1"#,
    );
    has(
        &t,
        r#"canopy_port_info{fabric="lab",switch="edge-p0-e0",port="1",ifname="e0-a0",backend="afpacket"} 1"#,
    );
    // No pid, no endpoint, no error text anywhere.
    lacks(&t, "4242");
    lacks(&t, "10.0.0.9");
    lacks(&t, "/run/canopy");
    lacks(&t, "connection refused");
}

#[test]
fn switch_and_fabric_lines() {
    let t = render(&sample(1));
    has(&t, "# TYPE canopy_switch_up gauge");
    has(
        &t,
        r#"canopy_switch_up{fabric="lab",switch="edge-p0-e0"} 1"#,
    );
    has(&t, r#"canopy_switch_up{fabric="lab",switch="core-0"} 0"#);
    // the switch's start (`instance`, ns since the epoch) in seconds
    has(
        &t,
        r#"canopy_switch_start_time_seconds{fabric="lab",switch="edge-p0-e0"} 1700000000.25"#,
    );
    has(&t, "# TYPE canopy_switch_build_info gauge");
    has(
        &t,
        r#"canopy_switch_build_info{fabric="lab",switch="edge-p0-e0",version="0.1.0",protocol_version="1"} 1"#,
    );
    has(
        &t,
        r#"canopy_switch_tables_current{fabric="lab",switch="core-0"} 0"#,
    );
    has(&t, "# TYPE canopyd_table_pushes_total counter");
    has(
        &t,
        r#"canopyd_table_pushes_total{fabric="lab",switch="edge-p0-e0"} 2"#,
    );
    has(
        &t,
        r#"canopyd_table_push_failures_total{fabric="lab",switch="edge-p0-e0"} 1"#,
    );
    has(
        &t,
        r#"canopyd_switch_down_events_total{fabric="lab",switch="core-0"} 1"#,
    );
    has(
        &t,
        r#"canopyd_switch_restarts_total{fabric="lab",switch="edge-p0-e0"} 1"#,
    );
    has(&t, r#"canopyd_ready{fabric="lab"} 0"#);
    has(
        &t,
        &format!(
            r#"canopyd_build_info{{fabric="lab",version="{}",protocol_version="{}"}} 1"#,
            canopy_proto::version::RELEASE,
            canopy_proto::version::PROTOCOL_VERSION
        ),
    );
    // canopyd's own process, with the standard names and no labels
    has(&t, "# TYPE process_start_time_seconds gauge");
    for name in PROCESS_FAMILIES {
        assert!(
            t.lines().any(|l| l.starts_with(&format!("{name} "))),
            "no {name} in\n{t}"
        );
    }
    has(&t, r#"canopyd_switches{fabric="lab"} 2"#);
    has(&t, r#"canopyd_pruned_ports{fabric="lab"} 1"#);
    has(&t, r#"canopy_traffic_sent_frames_total{fabric="lab"} 1000"#);
    has(
        &t,
        r#"canopy_traffic_received_frames_total{fabric="lab"} 990"#,
    );
    has(&t, r#"canopy_traffic_lost_frames_total{fabric="lab"} 10"#);
    has(
        &t,
        r#"canopy_traffic_misdelivered_frames_total{fabric="lab"} 0"#,
    );
}

#[test]
fn down_switch_exports_no_stale_counters() {
    let t = render(&sample(1));
    lacks(
        &t,
        r#"canopy_port_rx_frames_total{fabric="lab",switch="core-0""#,
    );
    lacks(&t, r#"canopy_port_info{fabric="lab",switch="core-0""#);
    lacks(
        &t,
        r#"canopy_switch_start_time_seconds{fabric="lab",switch="core-0"}"#,
    );
    lacks(
        &t,
        r#"canopy_switch_build_info{fabric="lab",switch="core-0""#,
    );
    // The daemon's own counters for it stay.
    has(
        &t,
        r#"canopyd_table_pushes_total{fabric="lab",switch="core-0"} 1"#,
    );
}

#[test]
fn histograms_are_cumulative_with_inf() {
    let t = render(&sample(1));
    has(&t, "# TYPE canopyd_probe_duration_seconds histogram");
    let p = r#"canopyd_probe_duration_seconds_bucket{fabric="lab",switch="edge-p0-e0""#;
    has(&t, &format!(r#"{p},le="0.0001"}} 0"#));
    has(&t, &format!(r#"{p},le="0.00015"}} 0"#));
    has(&t, &format!(r#"{p},le="0.0002"}} 3"#));
    has(&t, &format!(r#"{p},le="0.0025"}} 3"#));
    has(&t, &format!(r#"{p},le="0.005"}} 4"#));
    has(&t, &format!(r#"{p},le="1"}} 4"#));
    has(&t, &format!(r#"{p},le="+Inf"}} 5"#));
    has(
        &t,
        r#"canopyd_probe_duration_seconds_count{fabric="lab",switch="edge-p0-e0"} 5"#,
    );
    let sum_line = t
        .lines()
        .find(|l| {
            l.starts_with(r#"canopyd_probe_duration_seconds_sum{fabric="lab",switch="edge-p0-e0"}"#)
        })
        .expect("sum line");
    let sum: f64 = sum_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!((sum - 7.0036).abs() < 1e-9, "{sum_line}");
    // Bucket lines of one series are in bound order and never decrease.
    let counts: Vec<f64> = t
        .lines()
        .filter(|l| l.starts_with(p))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(counts.len(), PROBE_BUCKETS.len() + 1);
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    has(
        &t,
        r#"canopy_traffic_latency_seconds_bucket{fabric="lab",le="0.00001"} 0"#,
    );
    has(
        &t,
        r#"canopy_traffic_latency_seconds_bucket{fabric="lab",le="0.00005"} 10"#,
    );
    has(
        &t,
        r#"canopy_traffic_latency_seconds_bucket{fabric="lab",le="+Inf"} 10"#,
    );
    has(
        &t,
        r#"canopy_traffic_latency_seconds_count{fabric="lab"} 10"#,
    );
}

#[test]
fn label_values_are_escaped() {
    let mut s = sample(1);
    s.fabric = "a\"b\\c\nd".to_string();
    s.switches[0].name = "we\"ird".to_string();
    let t = render(&s);
    has(
        &t,
        // the newline is shown escaped (`\n`), then the exposition escapes the `\`
        r#"canopy_switch_up{fabric="a\"b\\c\\nd",switch="we\"ird"} 1"#,
    );
    // a switch's answer with control characters and a huge name: escaped, bounded
    s.switches[1].name = format!("a\u{1b}[31m\0{}", "n".repeat(10 << 20));
    let t2 = render(&s);
    assert!(t2.len() < 1 << 20, "{} bytes", t2.len());
    assert!(t2.contains(r#"switch="a\\u{1b}[31m\\u{0}nnn"#), "escaped");
    assert!(!t2.contains('\u{1b}') && !t2.contains('\0'));
    // No raw newline inside a sample line: every line is a comment or a sample.
    for l in t.lines() {
        assert!(
            l.starts_with('#') || l.contains("} ") || l.starts_with("process_"),
            "broken line {l:?}"
        );
    }
}

#[test]
fn empty_snapshot() {
    let s = FabricSnapshot {
        fabric: "x".to_string(),
        topology: String::new(),
        kind: String::new(),
        uptime_s: 0.0,
        ready: true,
        switches: vec![],
        traffic: None,
    };
    let t = render(&s);
    let samples: Vec<&str> = t
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("process_"))
        .collect();
    let build = format!(
        r#"canopyd_build_info{{fabric="x",version="{}",protocol_version="{}"}} 1"#,
        canopy_proto::version::RELEASE,
        canopy_proto::version::PROTOCOL_VERSION
    );
    assert_eq!(
        samples,
        vec![
            r#"canopyd_ready{fabric="x"} 1"#,
            &build,
            r#"canopyd_switches{fabric="x"} 0"#,
            r#"canopyd_pruned_ports{fabric="x"} 0"#,
        ]
    );
    lacks(&t, "canopy_traffic");
}

#[test]
fn malformed_histogram_does_not_panic() {
    let mut s = sample(1);
    s.switches[0].probe_rtt.counts.truncate(2);
    s.switches[0].probe_rtt.bounds.push(f64::INFINITY);
    let t = render(&s);
    assert!(t.contains("canopyd_probe_duration_seconds_bucket"));
}

#[test]
fn every_family_is_emitted_by_the_sample() {
    let t = render(&sample(1));
    for f in FAMILIES {
        has(
            &t,
            &format!(
                "# TYPE {} {}",
                f.name,
                match f.kind {
                    Kind::Counter => "counter",
                    Kind::Gauge => "gauge",
                    Kind::Histogram => "histogram",
                }
            ),
        );
        let snap = sample(1);
        let c = SnapshotCollector::new(&snap);
        assert_eq!(
            c.desc().len(),
            FAMILIES.len(),
            "a family name or label is invalid"
        );
    }
}

#[test]
fn counter_names_end_in_total() {
    for f in FAMILIES {
        assert_eq!(
            f.kind == Kind::Counter,
            f.name.ends_with("_total"),
            "{}",
            f.name
        );
    }
}

/// The `canopy*` metric names in `text` (recording-rule names, which contain `:`,
/// are not metric names of ours).
fn metric_names_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| (w.starts_with("canopy_") || w.starts_with("canopyd_")) && !w.contains(':'))
        .map(str::to_string)
        .collect()
}

fn repo_file(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check_names_against_render(what: &str, exprs: &[String], min: usize) {
    let rendered = render(&sample(1));
    let emitted: std::collections::BTreeSet<String> = rendered
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(str::to_string)
        .collect();
    let names: Vec<String> = exprs.iter().flat_map(|e| metric_names_in(e)).collect();
    assert!(
        names.len() >= min,
        "{what}: only {} metric names",
        names.len()
    );
    for n in names {
        assert!(
            emitted.contains(&n),
            "{what} names `{n}`, which render does not emit"
        );
    }
}

/// Every string under a key `expr`, `query` or `definition`.
fn json_exprs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v.as_str()) {
                    ("expr" | "query" | "definition", Some(e)) => out.push(e.to_string()),
                    _ => json_exprs(v, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| json_exprs(v, out)),
        _ => {}
    }
}

#[test]
fn dashboard_names_only_emitted_metrics() {
    let j: serde_json::Value =
        serde_json::from_str(&repo_file("docs/grafana/canopy-fabric.json")).expect("JSON");
    assert_eq!(j["uid"], "canopy-fabric");
    let vars: Vec<&str> = j["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(
        vars.contains(&"datasource") && vars.contains(&"switch"),
        "{vars:?}"
    );
    let mut exprs = Vec::new();
    json_exprs(&j, &mut exprs);
    check_names_against_render("the Grafana dashboard", &exprs, 30);
}

#[test]
fn rules_name_only_emitted_metrics() {
    let text = repo_file("docs/prometheus/canopy-rules.yml");
    let exprs: Vec<String> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("expr:"))
        .map(str::to_string)
        .collect();
    check_names_against_render("the rules", &exprs, 10);
}

#[test]
fn names_check_catches_a_renamed_metric() {
    let rendered = render(&sample(1));
    assert!(!rendered.contains("canopy_port_rx_packet_total"));
    assert_eq!(
        metric_names_in(r#"rate(canopy_port_rx_packet_total{a="b"}[1m]) canopy:x:rate1m"#),
        vec!["canopy_port_rx_packet_total"]
    );
}

/// A k=8 fat-tree's worth of switches (80, 8 ports each) with the real reason sets:
/// the series count docs/metrics.md states, and how long a render takes.
#[test]
fn k8_sized_fabric_series_count() {
    let engine_reasons: u64 = 25;
    let backend_reasons: u64 = 8;
    let mut s = sample(1);
    s.traffic = None;
    let template = s.switches[0].clone();
    s.switches = (0..80)
        .map(|i| {
            let mut w = template.clone();
            w.name = format!("sw-{i}");
            w.pruned_ports.clear();
            let h = w.health.as_mut().unwrap();
            h.ports = (0..8)
                .map(|p| PortHealth {
                    port: p,
                    name: format!("eth{p}"),
                    backend: "afpacket".to_string(),
                    mode_note: None,
                    link: true,
                    admin: true,
                })
                .collect();
            let c = w.counters.as_mut().unwrap();
            let proto = c.ports[0].clone();
            c.ports = (0..8)
                .map(|p| {
                    let mut pc = proto.clone();
                    pc.port = p;
                    pc.drops = (0..engine_reasons).map(|r| (format!("r{r}"), r)).collect();
                    pc.backend.drops = (0..backend_reasons).map(|r| (format!("b{r}"), r)).collect();
                    pc
                })
                .collect();
            w
        })
        .collect();
    let t0 = std::time::Instant::now();
    let text = render(&s);
    let took = t0.elapsed();
    let samples = text.lines().filter(|l| !l.starts_with('#')).count();
    let per_port = 4 + engine_reasons as usize + (backend_reasons as usize + 1) + 10;
    let per_switch = 8 + PROBE_BUCKETS.len() + 3;
    assert_eq!((per_port, per_switch), (48, 30));
    let process = PROCESS_FAMILIES.len();
    assert_eq!(samples, 80 * per_switch + 640 * per_port + 4 + process);
    let t1 = std::time::Instant::now();
    let gz = gzip(text.as_bytes()).expect("gzip in memory");
    let took_gz = t1.elapsed();
    eprintln!(
        "k=8-sized fabric: {samples} series, {} bytes, rendered in {took:?}; \
         gzip {} bytes in {took_gz:?}",
        text.len(),
        gz.len()
    );
    assert!(
        gz.len() * 5 < text.len(),
        "gzip: {} of {}",
        gz.len(),
        text.len()
    );
}
