//! A real Prometheus (Debian's `prometheus`) scrapes the canopyd of a netns fabric
//! after traffic has flowed through it: the query API must return every switch up,
//! non-zero rx/tx on the ports the traffic used, the traffic generator's report, and
//! exactly the drops that were caused, under their reason (`docs/metrics.md`).
//! Needs root and the `prometheus` binary; skips with a message otherwise.

mod fabric_common;

use canopy_test_utils::free_port;
use canopy_testbed::prom::{find_binary, PromServer, Sample};
use fabric_common::{root_or_skip, Fab};
use std::net::SocketAddr;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn value(s: &[Sample]) -> f64 {
    s.iter().map(|(_, v)| v).sum()
}

#[test]
fn prometheus_scrapes_a_netns_fabric_after_traffic() {
    if !root_or_skip("prometheus_scrapes_a_netns_fabric_after_traffic") {
        return;
    }
    if find_binary().is_none() {
        eprintln!(
            "SKIP prometheus_scrapes_a_netns_fabric_after_traffic: no `prometheus` binary (Debian: apt-get install prometheus)"
        );
        return;
    }
    let port = free_port();
    let f = Fab::new("pm");
    let d = f.desc(
        "fabric.toml",
        &format!("[canopyd]\nmetrics = \"127.0.0.1:{port}\"\n"),
    );
    f.up(&d, &[]);
    let target: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let prom = PromServer::start(&[target])
        .expect("prometheus starts")
        .expect("binary present");

    // traffic through every host, then three IPv4 frames from h0 (dropped at its edge
    // switch as not_canopy) among generator frames
    let out = f.dir.join("run");
    let r = f.run(&[
        "run",
        &f.name,
        "--rate",
        "10kpps",
        "--duration-s",
        "1",
        "--warmup-s",
        "0",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "run failed");
    let res: serde_json::Value = fabric_common::results(&out);
    let sent = res["trials"][0]["sent"].as_u64().unwrap();
    let received = res["trials"][0]["received"].as_u64().unwrap();
    // what the generator manages at 10 kpps depends on the machine's load (a debug build
    // under CI sent 7.6 k); the checks below compare Prometheus with what was sent
    assert!(sent >= 2_000, "{sent} frames sent");

    let file = f.dir.join("ipv4.pcap");
    assert_eq!(fabric_common::crafted_pcap(&file, 1, 3), 15);
    let r = f.replay(&file, "0", "1000", &f.dir.join("replay"));
    assert!(r.status.success(), "replay failed");

    let f_ = format!("fabric=\"{}\"", f.name);
    let q = |promql: &str, done: &dyn Fn(&[Sample]) -> bool| {
        prom.wait_for(promql, WAIT, done)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let up = q(&format!("canopy_switch_up{{{f_}}} == 1"), &|s| {
        s.len() == 20
    });
    assert_eq!(up.len(), 20);
    q(&format!("canopyd_ready{{{f_}}}"), &|s| value(s) == 1.0);
    // h0's link is port 0 of edge-p0-e0: the run's frames and the replay's 18
    let rx = q(
        &format!("canopy_port_rx_frames_total{{{f_},switch=\"edge-p0-e0\",port=\"0\"}}"),
        &|s| value(s) > 0.0,
    );
    assert_eq!(rx.len(), 1, "{rx:?}");
    // every frame that entered the fabric left it or was dropped: fabric-wide, tx on
    // the host links is what the hosts received
    let tx = q(&format!("sum(canopy_port_tx_frames_total{{{f_}}})"), &|s| {
        value(s) >= received as f64
    });
    assert!(value(&tx) >= received as f64);
    // the drops: exactly the three IPv4 frames, at edge-p0-e0 port 0, as not_canopy
    let drops = q(&format!("canopy_port_drops_total{{{f_}}} > 0"), &|s| {
        value(s) >= 3.0
    });
    assert_eq!(drops.len(), 1, "one series with drops: {drops:?}");
    let (labels, v) = &drops[0];
    assert_eq!(labels["reason"], "not_canopy", "{labels:?}");
    assert_eq!(labels["switch"], "edge-p0-e0", "{labels:?}");
    assert_eq!(labels["port"], "0", "{labels:?}");
    assert_eq!(*v, 3.0);
    // the generator's report (run and replay trials)
    let t = q(&format!("canopy_traffic_sent_frames_total{{{f_}}}"), &|s| {
        value(s) >= sent as f64
    });
    assert_eq!(value(&t), (sent + 15) as f64, "{t:?}");
    q(
        &format!("canopy_traffic_latency_seconds_count{{{f_}}}"),
        &|s| value(s) >= received as f64,
    );
    eprintln!(
        "prometheus saw 20 switches up, {} frames sent by all switch ports, drops {labels:?} = {v}, {} generator frames",
        value(&tx),
        value(&t)
    );
}
