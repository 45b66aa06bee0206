//! ONE `canopy-switch` process with FOUR DPDK ports (`backend = "dpdk"`), each DPDK's
//! af_packet PMD (`--vdev net_af_packet<i>,iface=...,framecnt=8192`) on a veth of the
//! switch's own network namespace, with one host namespace behind each port; and
//! switches whose DPDK port cannot open, which fail at start naming the port and the fix.
//!
//! DPDK's EAL can be initialised once per process and cargo runs the tests of one
//! binary as threads of one process, so every switch here is a `canopy-switch`
//! subprocess (one EAL each, with its own `--file-prefix`); the test process itself
//! never initialises DPDK. Skipped with a message without root, without free huge pages
//! or without the `dpdk` feature (then only the refusal of `backend = "dpdk"` is
//! checked). Namespaces are named `dpk<pid>-<test>-<x>` and deleted by a guard, also
//! when a test fails.
#![cfg(target_os = "linux")]

mod common;

use canopy_dataplane::wire::Kind;
use canopy_proto::mgmt::Request;
use common::*;
use std::process::Command;
use std::time::Duration;

fn hugepages_free() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("HugePages_Free:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn can_run(test: &str) -> bool {
    if !cfg!(feature = "dpdk") {
        eprintln!(
            "SKIP {test}: canopy-switch built without the `dpdk` feature (cargo test -p canopy-switch --features dpdk)"
        );
        return false;
    }
    if !netns_or_skip(test, "network namespaces, veths, AF_PACKET") {
        return false;
    }
    if hugepages_free() < 64 {
        eprintln!(
            "SKIP {test}: fewer than 64 free huge pages (echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages; .ci/run does it)"
        );
        return false;
    }
    true
}

/// A config with tables (the k=4 fat-tree's edge switch, 4 ports) or without
/// (`tables = false`: any number of ports).
fn config(dir: &Dir, tables: bool, eal: &[String], ports: &[&str]) -> String {
    let eal = serde_json::to_string(eal).unwrap();
    netns_config(dir, tables, &format!("\n[dpdk]\neal_args = {eal}\n"), ports)
}

fn vdev(i: usize, iface: &str, extra: &str) -> String {
    format!("--vdev=net_af_packet{i},iface={iface},framecnt=8192{extra}")
}

/// Four DPDK af_packet ports (port 0 with two queues, so the second is a receive-only
/// replica on the other worker): `health` reports backend `dpdk` and the links up,
/// frames reach the right host ports byte for byte in both directions, the counters
/// conserve (rx = tx + dropped) and carry the DPDK backend counters by name.
#[test]
fn switch_on_dpdk_ports_forwards_both_ways() {
    if !can_run("switch_on_dpdk_ports_forwards_both_ways") {
        return;
    }
    let ns = four_port_netns("dpk", "fw", "dps", "dpe0");
    let dir = Dir::new("dpdk");
    let eal: Vec<String> = std::iter::once("--no-pci".to_string())
        .chain((0..4).map(|i| vdev(i, &format!("dps{i}"), if i == 0 { ",qpairs=2" } else { "" })))
        .collect();
    let cfg = config(
        &dir,
        true,
        &eal,
        &[
            "backend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 2",
            "backend = \"dpdk\"\ndevice = \"net_af_packet1\"",
            "backend = \"dpdk\"\ndevice = \"net_af_packet2\"\nrx_desc = 512\ntx_desc = 256",
            "backend = \"dpdk\"\ndevice = \"net_af_packet3\"",
        ],
    );
    let sw = Switch::start_with(&dir, &cfg, in_ns_cmd(ns.name(0)));
    let h = sw.ok(&Request::Health {});
    for i in 0..4 {
        assert_eq!(h["ports"][i]["backend"].as_str(), Some("dpdk"), "{h}");
        assert_eq!(h["ports"][i]["link"].as_bool(), Some(true), "{h}");
        assert_eq!(
            h["ports"][i]["name"].as_str(),
            Some(format!("net_af_packet{i}").as_str()),
            "{h}"
        );
    }
    assert!(sw.log().contains("dpdk port open"), "{}", sw.log());

    let mut hp = host_ports(&ns, "dpe0");
    let f = Fabric::new(Kind::Sliced);
    let t = Duration::from_secs(5);
    let cases = edge_cases(&f, " through dpdk");
    let mut forwarded = forward_cases(&mut hp, &f, &cases, 10, t);
    // a longer run one way: 2000 frames in bursts the host ring holds
    let (want, ports) = f.expect(0, &cases[0].1);
    let out = usize::from(ports[0]);
    let mut got = 0usize;
    for _ in 0..20 {
        for _ in 0..100 {
            assert_eq!(hp[0].tx_frame(&cases[0].1), Ok(true));
        }
        hp[0].tx_flush().unwrap();
        let r = recv(&mut hp[out], 100, t);
        assert!(r.iter().all(|g| *g == want));
        got += r.len();
    }
    assert_eq!(got, 2000, "frames lost through the dpdk ports");
    forwarded += 2000;
    let c = counters_when(&sw, t, |c| c["tx_packets"].as_u64().unwrap() >= forwarded);
    let (rx, tx, dropped) = (
        c["rx_packets"].as_u64().unwrap(),
        c["tx_packets"].as_u64().unwrap(),
        c["dropped"].as_u64().unwrap(),
    );
    assert_eq!(rx, tx + dropped, "conservation: {c}");
    assert_eq!(tx, forwarded, "{c}");
    assert_eq!(dropped, 0, "{c}");
    assert_eq!(c["ports"][0]["rx_packets"].as_u64(), Some(2010), "{c}");
    // the backend counters, by name, after the workers' upkeep published them
    std::thread::sleep(Duration::from_millis(300));
    let c = sw.counters();
    assert_no_backend_drops(
        &c,
        &[
            "tx_ring_full",
            "tx_no_mbuf",
            "oversize",
            "port_down",
            "rx_no_buffer",
            "rx_too_long",
            "dpdk_imissed",
            "dpdk_ierrors",
            "dpdk_rx_nombuf",
            "dpdk_oerrors",
        ],
    );
    let pid = sw.pid();
    let (status, _) = sw.terminate();
    assert!(status.success(), "{status}");
    // EAL's runtime directory went with the switch
    let rt = format!("/var/run/dpdk/canopy{pid}");
    assert!(!std::path::Path::new(&rt).exists(), "{rt} left behind");
}

/// Ports that cannot open fail the start with a message naming the port and the fix,
/// never a crash: a device EAL did not probe, a PCI address not bound to DPDK, a vdev
/// on an interface that does not exist (EAL init fails), more queues than the device
/// has.
#[test]
fn switch_with_a_bad_dpdk_port_fails_at_start_naming_port_and_fix() {
    if !can_run("switch_with_a_bad_dpdk_port_fails_at_start_naming_port_and_fix") {
        return;
    }
    let ns = Netns::tagged("dpk", "bad", &["sw", "h0"]);
    ns.veth(0, "dps0", 1, "dpe0");
    let good = vdev(0, "dps0", "");
    let cases: Vec<(Vec<String>, &str, Vec<&str>)> = vec![
        (
            vec!["--no-pci".into(), good.clone()],
            "backend = \"dpdk\"\ndevice = \"net_af_packet7\"",
            vec![
                "port[1]",
                "no DPDK device \"net_af_packet7\"",
                "EAL probed: net_af_packet0",
                "--vdev=net_af_packet7,iface=",
            ],
        ),
        (
            vec!["--no-pci".into(), good.clone()],
            "backend = \"dpdk\"\ndevice = \"0000:99:00.0\"",
            vec!["port[1]", "0000:99:00.0", "dpdk-devbind.py -b vfio-pci"],
        ),
        (
            vec!["--no-pci".into(), good.clone(), vdev(1, "dpgone", "")],
            "backend = \"dpdk\"\ndevice = \"net_af_packet1\"",
            vec![
                "port[1]",
                "net_af_packet1",
                "did not probe",
                "--vdev=net_af_packet1,iface=dpgone",
                "ip link show dpgone",
            ],
        ),
        (
            vec!["--no-pci".into(), "--bogus-eal-option".into()],
            "backend = \"dpdk\"\ndevice = \"net_af_packet0\"",
            vec![
                "port[1]",
                "cannot start DPDK's EAL",
                "EAL initialisation failed",
                "[dpdk] eal_args",
            ],
        ),
        (
            vec!["--no-pci".into(), good.clone()],
            "backend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 4",
            vec!["port[1]", "net_af_packet0", "at most 1 RX queues", "qpairs"],
        ),
    ];
    for (eal, second, want) in cases {
        let dir = Dir::new("dpdkbad");
        let cfg = config(&dir, false, &eal, &["backend = \"mem\"", second]);
        start_fails_naming(ns.name(0), &[], &dir, &cfg, &want);
    }
}

/// A machine without free huge pages: the switch runs in a private mount namespace where
/// `/proc/meminfo` is a copy saying `HugePages_Free: 0` (a bind mount that only this
/// process tree sees). The start fails before EAL with the port and the fix; with
/// `--no-huge` in `eal_args` the check is skipped and the same switch starts.
#[test]
fn switch_without_free_hugepages_fails_naming_port_and_fix() {
    if !can_run("switch_without_free_hugepages_fails_naming_port_and_fix") {
        return;
    }
    if Command::new("unshare").arg("--version").output().is_err() {
        eprintln!(
            "SKIP switch_without_free_hugepages_fails_naming_port_and_fix: no unshare (util-linux)"
        );
        return;
    }
    let ns = Netns::tagged("dpk", "nohp", &["sw", "h0"]);
    ns.veth(0, "dps0", 1, "dpe0");
    let dir = Dir::new("dpdknohp");
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let fake: String = meminfo
        .lines()
        .map(|l| {
            if l.starts_with("HugePages_Free:") {
                "HugePages_Free:        0".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let fake_path = dir.path("meminfo");
    std::fs::write(&fake_path, fake + "\n").unwrap();
    let run = |eal: &[String]| {
        let cfg = config(
            &dir,
            false,
            eal,
            &[
                "backend = \"mem\"",
                "backend = \"dpdk\"\ndevice = \"net_af_packet0\"",
            ],
        );
        let path = dir.path("switch.toml");
        std::fs::write(&path, &cfg).unwrap();
        let script = format!(
            "mount --bind {} /proc/meminfo && exec timeout -s INT 3 {} run --config {}",
            fake_path.display(),
            switch_bin().display(),
            path.display()
        );
        Command::new("ip")
            .args([
                "netns",
                "exec",
                ns.name(0),
                "unshare",
                "--mount",
                "--propagation",
                "private",
            ])
            .args(["sh", "-c", &script])
            .output()
            .unwrap()
    };
    let out = run(&["--no-pci".into(), vdev(0, "dps0", "")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for w in [
        "port[1]",
        "net_af_packet0",
        "no free huge pages",
        "HugePages_Free 0",
        "nr_hugepages",
        "--no-huge",
    ] {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
    assert!(!err.contains("EAL: Detected"), "EAL ran: {err}");
    // with --no-huge the check is skipped: the switch starts and stops on SIGINT (timeout)
    let out = run(&[
        "--no-pci".into(),
        "--no-huge".into(),
        "-m".into(),
        "256".into(),
        vdev(0, "dps0", ""),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dpdk port open"), "{err}");
    assert!(err.contains("--no-shconf"), "{err}");
    // 124: timeout sent SIGINT, on which the switch stops cleanly
    assert_eq!(out.status.code(), Some(124), "{err}");
    assert!(err.contains("stopped"), "{err}");
    // the bind mount stayed in the private namespace
    let host = std::fs::read_to_string("/proc/meminfo").unwrap();
    assert_eq!(
        canopy_dataplane_hugepages(&host),
        canopy_dataplane_hugepages(&meminfo)
    );
}

fn canopy_dataplane_hugepages(meminfo: &str) -> Option<String> {
    meminfo
        .lines()
        .find(|l| l.starts_with("HugePages_Total:"))
        .map(str::to_string)
}

/// Without the `dpdk` feature, `backend = "dpdk"` is refused when the configuration is
/// checked, with the way to build it; with it, the same configuration is valid.
#[test]
fn dpdk_backend_needs_the_feature() {
    let dir = Dir::new("dpdkfeat");
    let cfg = config(
        &dir,
        false,
        &["--no-pci".into()],
        &[
            "backend = \"dpdk\"\ndevice = \"net_af_packet0\"",
            "backend = \"mem\"",
        ],
    );
    let path = dir.path("switch.toml");
    std::fs::write(&path, &cfg).unwrap();
    let (status, out, err) = run_bin(&["check-config", "--config", path.to_str().unwrap()]);
    if cfg!(feature = "dpdk") {
        assert!(status.success(), "{out}{err}");
        assert!(out.contains("dpdk     net_af_packet0"), "{out}");
    } else {
        assert_eq!(status.code(), Some(2), "{out}{err}");
        for w in [
            "port[0].backend",
            "without the `dpdk` feature",
            "--features dpdk",
        ] {
            assert!(err.contains(w), "{w:?} not in: {err}");
        }
    }
}
