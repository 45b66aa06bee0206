//! ONE `canopy-switch` process with FOUR AF_XDP veth ports (`backend = "afxdp"`), in its
//! own network namespace, with one host namespace behind each port (root only; skipped
//! with a message otherwise), and a switch whose AF_XDP port cannot open: it fails at
//! start naming the port and the fix. Namespaces are named `axd<pid>-sw-<x>`, the veths
//! are created inside them, and a guard deletes them on drop, also when a test fails.
#![cfg(target_os = "linux")]

mod common;

use canopy_dataplane::port::afxdp::{AfXdpConfig, AfXdpPort, XdpMode};
use canopy_dataplane::wire::Kind;
use canopy_proto::mgmt::Request;
use common::*;
use std::process::Command;
use std::time::Duration;

/// Four AF_XDP ports (two native copy, one generic, one native with smaller rings):
/// `health` reports each port's mode, frames reach the right host ports, the counters
/// conserve and carry the AF_XDP backend counters by name.
#[test]
fn switch_on_afxdp_ports_forwards_and_reports_the_mode() {
    canopy_test_utils::netns_or_return!("netns_switch_afxdp", "network namespaces, veths, XDP");
    let ns = four_port_netns("axd", "sw", "axs", "axe0");
    let dir = Dir::new("afxdp");
    let sw = start_in_ns(
        &ns,
        &dir,
        true,
        "",
        &[
            "backend = \"afxdp\"\ninterface = \"axs0\"",
            "backend = \"afxdp\"\ninterface = \"axs1\"\nmode = \"copy\"",
            "backend = \"afxdp\"\ninterface = \"axs2\"\nmode = \"skb\"",
            "backend = \"afxdp\"\ninterface = \"axs3\"\nqueue = 0\nrx_ring = 512\ntx_ring = 256\nfill_ring = 1024\ncompletion_ring = 256\nframe_size = 4096",
        ],
    );
    let h = sw.ok(&Request::Health {});
    let backends: Vec<&str> = (0..4)
        .map(|i| h["ports"][i]["backend"].as_str().unwrap())
        .collect();
    assert_eq!(
        backends,
        ["afxdp/copy", "afxdp/copy", "afxdp/skb", "afxdp/copy"],
        "{h}"
    );
    assert!(sw.log().contains("afxdp port open"), "{}", sw.log());

    let mut hp = host_ports(&ns, "axe0");
    let f = Fabric::new(Kind::Sliced);
    let t = Duration::from_secs(5);
    let forwarded = forward_cases(&mut hp, &f, &edge_cases(&f, ""), 10, t);
    let c = counters_when(&sw, t, |c| c["tx_packets"].as_u64().unwrap() >= forwarded);
    assert_eq!(c["tx_packets"].as_u64().unwrap(), forwarded, "{c}");
    assert_eq!(c["rx_packets"].as_u64().unwrap(), forwarded, "{c}");
    assert_eq!(c["dropped"].as_u64().unwrap(), 0, "{c}");
    assert_no_backend_drops(
        &c,
        &[
            "tx_ring_full",
            "rx_no_buffer",
            "xdp_rx_dropped",
            "xdp_rx_ring_full",
        ],
    );
    let (status, _) = sw.terminate();
    assert!(status.success(), "{status}");
    // the switch detached its XDP programs when it exited
    let out = Command::new("ip")
        .args(["-n", ns.name(0), "link", "show", "axs0"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(!out.contains("xdp"), "{out}");
}

/// `queues = 2` on a two-queue veth with two workers: the port's second socket (queue 1)
/// is a receive-only replica on the other worker; frames the host sends on either queue
/// are forwarded, and the engine counts them all at the port.
#[test]
fn switch_port_with_two_queues_receives_on_both() {
    canopy_test_utils::netns_or_return!("netns_switch_afxdp", "network namespaces, veths, XDP");
    let ns = Netns::tagged("axd", "swmq", &["sw", "h0", "h1", "h2", "h3"]);
    for i in 0..4 {
        let (a, b) = (format!("axs{i}"), "axe0");
        let q = if i == 0 { "2" } else { "1" };
        let st = Command::new("ip")
            .args([
                "-n",
                ns.name(0),
                "link",
                "add",
                &a,
                "numtxqueues",
                q,
                "numrxqueues",
                q,
            ])
            .args([
                "type",
                "veth",
                "peer",
                "name",
                b,
                "numtxqueues",
                q,
                "numrxqueues",
                q,
            ])
            .args(["netns", ns.name(i + 1)])
            .status()
            .unwrap();
        assert!(st.success());
        for (n, d) in [(ns.name(0), a.as_str()), (ns.name(i + 1), b)] {
            assert!(Command::new("ip")
                .args(["-n", n, "link", "set", d, "up"])
                .status()
                .unwrap()
                .success());
        }
        canopy_testbed::netns::wait_up(ns.name(0), &a, Duration::from_secs(5)).unwrap();
        canopy_testbed::netns::wait_up(ns.name(i + 1), b, Duration::from_secs(5)).unwrap();
    }
    let dir = Dir::new("afxdpmq");
    let ports: Vec<String> = (0..4)
        .map(|i| {
            let queues = if i == 0 { "\nqueues = 2" } else { "" };
            format!("backend = \"afxdp\"\ninterface = \"axs{i}\"{queues}")
        })
        .collect();
    let ports: Vec<&str> = ports.iter().map(String::as_str).collect();
    let sw = start_in_ns(&ns, &dir, true, "", &ports);
    // the host sends with AF_XDP on its queues 0 and 1: veth delivers each to the
    // switch's RX queue of the same number
    let host = |queue: u32| {
        in_ns(ns.name(1), move || {
            AfXdpPort::open(
                "axe0",
                AfXdpConfig {
                    queue,
                    mode: XdpMode::Copy,
                    ..AfXdpConfig::default()
                },
            )
            .expect("host AF_XDP port")
        })
    };
    let mut hq = [host(0), host(1)];
    let mut rx1 = host_port(ns.name(2), "axe0");
    let f = Fabric::new(Kind::Sliced);
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let fr = f.frame(Kind::Sliced, h0, h1, b"two queues");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![1]);
    for q in hq.iter_mut() {
        for _ in 0..20 {
            assert_eq!(q.tx_frame(&fr), Ok(true));
        }
        q.tx_flush().unwrap();
    }
    let got = recv(&mut rx1, 40, Duration::from_secs(5));
    assert_eq!(got, vec![want; 40]);
    let c = counters_when(&sw, Duration::from_secs(5), |c| {
        c["ports"][0]["rx_packets"].as_u64() >= Some(40)
            && c["ports"][1]["tx_packets"].as_u64() >= Some(40)
    });
    assert_eq!(c["ports"][0]["rx_packets"].as_u64(), Some(40), "{c}");
    assert_eq!(c["ports"][1]["tx_packets"].as_u64(), Some(40), "{c}");
    let (status, _) = sw.terminate();
    assert!(status.success(), "{status}");
}

/// A port whose interface does not exist, or which asks for zero-copy on veth (no
/// zero-copy AF_XDP there), fails the start with a message naming the port, the
/// interface and the fix; nothing crashes.
#[test]
fn switch_with_a_bad_afxdp_port_fails_at_start_naming_port_and_fix() {
    canopy_test_utils::netns_or_return!("netns_switch_afxdp", "network namespaces, veths, XDP");
    let ns = Netns::tagged("axd", "swbad", &["sw", "h0"]);
    ns.veth(0, "axs0", 1, "axe0");
    for (second, want) in [
        (
            "backend = \"afxdp\"\ninterface = \"axgone\"",
            vec![
                "port[1]",
                "axgone",
                "no such interface",
                "ip link show axgone",
            ],
        ),
        (
            "backend = \"afxdp\"\ninterface = \"axs0\"\nmode = \"zerocopy\"",
            vec![
                "port[1]",
                "axs0",
                "queue 0",
                "no zero-copy AF_XDP",
                "or \"auto\"",
            ],
        ),
    ] {
        let dir = Dir::new("afxdpbad");
        // tables-less switch: any number of ports
        let cfg = netns_config(&dir, false, "", &["backend = \"mem\"", second]);
        start_fails_naming(ns.name(0), &[], &dir, &cfg, &want);
    }
}

/// The UMEM is locked memory: under a small `RLIMIT_MEMLOCK` and without `CAP_IPC_LOCK`
/// the kernel refuses `XDP_UMEM_REG`, and the switch must say so with the fix.
#[test]
fn switch_under_a_small_memlock_limit_names_the_limit_and_the_fix() {
    canopy_test_utils::netns_or_return!("netns_switch_afxdp", "network namespaces, veths, XDP");
    for tool in ["setpriv", "prlimit"] {
        if Command::new(tool).arg("--version").output().is_err() {
            eprintln!("SKIP: `{tool}` (util-linux) is not installed");
            return;
        }
    }
    let ns = Netns::tagged("axd", "swmlk", &["sw", "h0"]);
    ns.veth(0, "axm0", 1, "axn0");
    let dir = Dir::new("afxdpmlk");
    let cfg = netns_config(
        &dir,
        false,
        "",
        &[
            "backend = \"mem\"",
            "backend = \"afxdp\"\ninterface = \"axm0\"\nmode = \"skb\"",
        ],
    );
    // without CAP_IPC_LOCK (also out of the bounding set, so root loses it at exec) and
    // with 64 KiB of locked memory, far less than the port's UMEM
    start_fails_naming(
        ns.name(0),
        &[
            "setpriv",
            "--inh-caps=-ipc_lock",
            "--bounding-set=-ipc_lock",
            "prlimit",
            "--memlock=65536",
        ],
        &dir,
        &cfg,
        &[
            "port[1]",
            "axm0",
            "XDP_UMEM_REG",
            "RLIMIT_MEMLOCK",
            "LimitMEMLOCK",
            "CAP_IPC_LOCK",
        ],
    );
}
