//! ONE `canopy-switch` process with FOUR AF_PACKET veth ports, in its own network
//! namespace, with one host namespace behind each port (root only; skipped with a
//! message otherwise). The switch is a k=4 fat-tree edge switch (sliced tables
//! computed from the topology). Namespaces are named `canopy-switchbin-<pid>-fwd-<x>`,
//! IPv6 is off in them (no stray frames), the veths are created inside them, and a
//! guard deletes them on drop, also when the test fails.
#![cfg(target_os = "linux")]

mod common;

use canopy_dataplane::wire::pathid::PathIdBody;
use canopy_dataplane::wire::{Header, Kind};
use canopy_proto::mgmt::Request;
use common::*;
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn one_switch_four_veth_ports_forwards_and_drops_malformed_frames() {
    canopy_test_utils::netns_or_return!("netns_switch", "network namespaces and veths");
    let ns = four_port_netns("canopy-switchbin-", "fwd", "s", "e0");
    let dir = Dir::new("netns");
    let mut cfg = format!(
        "[switch]\nworkers = 2\nmax_sleep_us = 200\n\n[tables]\ntopology = \"{SPEC}\"\nkind = \"sliced\"\nswitch = \"{EDGE}\"\n\n[management]\nsocket = \"{}\"\n",
        dir.path("switch.sock").display()
    );
    for i in 0..4 {
        let v = if i == 3 { "v3" } else { "v2" };
        cfg += &format!(
            "\n[[port]]\nbackend = \"afpacket\"\ninterface = \"s{i}\"\ntpacket = \"{v}\"\n"
        );
        // ports 0 and 1 share their RX between both workers (a second socket each, in
        // a fanout group), so both workers receive from them
        if i < 2 {
            cfg += &format!("fanout = {}\n", 40 + i);
        }
    }
    let sw = Switch::start_with(&dir, &cfg, in_ns_cmd(ns.name(0)));
    let h = sw.ok(&Request::Health {});
    let names: Vec<&str> = (0..4)
        .map(|i| h["ports"][i]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["s0", "s1", "s2", "s3"], "{h}");
    assert!((0..4).all(|i| h["ports"][i]["backend"] == "afpacket"));

    let mut hp = host_ports(&ns, "e0");
    let f = Fabric::new(Kind::Sliced);
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let far = f.topo.hosts.len() as u32 - 1;
    let t = Duration::from_secs(5);

    // (sender namespace = ingress port, frame as it arrives there); from above: a far
    // host's frames as they reach the edge switch, sent from the namespaces behind both
    // up ports
    let mut cases = edge_cases(&f, "");
    cases.push((2, from_above(&f, 5, h1)));
    cases.push((3, from_above(&f, 6, h0)));
    let mut forwarded = forward_cases(&mut hp, &f, &cases, 1, t);
    // up, adaptive: 64 frames h0 -> far leave on ports 2 and 3
    let fr = f.frame(Kind::Sliced, h0, far, b"up and away");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![2, 3]);
    send(&mut hp[0], &vec![fr; 64]);
    let deadline = Instant::now() + t;
    let (mut a, mut b) = (vec![], vec![]);
    while a.len() + b.len() < 64 && Instant::now() < deadline {
        a.extend(recv(&mut hp[2], 64, Duration::from_millis(20)));
        b.extend(recv(&mut hp[3], 64, Duration::from_millis(20)));
    }
    assert_eq!(a.len() + b.len(), 64);
    assert!(a.iter().chain(&b).all(|x| *x == want));
    forwarded += 64;

    // add path-ID tables (merged with the sliced ones) while running
    let fp = Fabric::new(Kind::PathId);
    let mut merged = f.tables.clone();
    merged.merge(fp.tables.clone()).unwrap();
    let r = sw.ok(&replace_tables(&merged));
    assert_eq!(r["kinds"], json!(["sliced", "path-id"]));

    // malformed frames from h0, each with its reason
    let good = f.frame(Kind::Sliced, h0, h1, b"template");
    let mut bad_version = good.clone();
    bad_version[14] = (bad_version[14] & 0x0f) | 0x20;
    let mut ttl0 = good.clone();
    Header::new_checked(&mut ttl0[14..])
        .unwrap()
        .set_hop_limit(0);
    let mut label = fp.frame(Kind::PathId, h0, h1, b"label");
    {
        let mut hd = Header::new_checked(&mut label[14..]).unwrap();
        PathIdBody::new_checked(hd.body_mut())
            .unwrap()
            .set_host_label(9);
    }
    let truncated = good[..14 + 5].to_vec();
    let runt = good[..14].to_vec();
    let mut not_canopy = good.clone();
    not_canopy[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let bad: Vec<(Vec<u8>, &str, u64)> = vec![
        (bad_version, "bad_version", 3),
        (ttl0, "ttl_expired", 2),
        (label, "bad_label", 4),
        (truncated, "truncated", 1),
        (runt, "truncated", 1),
        (not_canopy, "not_canopy", 2),
    ];
    let mut sent = 0;
    for (fr, _, n) in &bad {
        send(&mut hp[0], &vec![fr.clone(); *n as usize]);
        sent += n;
    }
    // and the switch keeps forwarding afterwards (the path-ID frame too)
    let after = [
        (0usize, 1usize, f.frame(Kind::Sliced, h0, h1, b"after"), &f),
        (1, 0, fp.frame(Kind::PathId, h1, h0, b"after"), &fp),
    ];
    for (ing, out, fr, model) in &after {
        let (want, ports) = model.expect(*ing as u16, fr);
        assert_eq!(ports, vec![*out as u16]);
        send(&mut hp[*ing], std::slice::from_ref(fr));
        assert_eq!(recv(&mut hp[*out], 1, t), vec![want], "still forwarding");
        forwarded += 1;
    }
    // counters: exact per reason at port 0 (IPv6 is off: nothing else is on the wire)
    let c = counters_when(&sw, t, |c| {
        // wait for both sums
        c["ports"][0]["dropped"].as_u64().unwrap() >= sent
            && c["tx_packets"].as_u64().unwrap() >= forwarded
    });
    let mut want_drops = std::collections::BTreeMap::new();
    for (_, reason, n) in &bad {
        *want_drops.entry(*reason).or_insert(0) += n;
    }
    for (reason, n) in &want_drops {
        assert_eq!(drops(&c, 0, reason), *n, "{reason}: {c}");
    }
    assert_eq!(c["dropped"].as_u64().unwrap(), sent, "{c}");
    assert_eq!(c["tx_packets"].as_u64().unwrap(), forwarded, "{c}");
    // the AF_PACKET backend's own counters are reported beside the engine's, by name
    assert_no_backend_drops(&c, &["tx_ring_full"]);
    // the same, as `ctl counters` shows it
    let (st, out, _) = run_bin(&["ctl", "--socket", sw.socket.to_str().unwrap(), "counters"]);
    assert!(st.success());
    let line = out
        .lines()
        .find(|l| l.contains("port 0 (s0):"))
        .expect(&out);
    for (reason, n) in &want_drops {
        assert!(line.contains(&format!("{reason}={n}")), "{line}");
    }
    let (status, out) = sw.terminate();
    assert!(status.success(), "{status}");
    assert!(out.contains(&format!("dropped {sent}")), "{out}");
}
