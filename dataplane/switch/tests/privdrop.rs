//! `canopy-switch` gives up its privileges once its ports are open (`[switch] user`,
//! `group`, `reopen_caps`; see docs/canopy-switch.md "Privileges").
//!
//! - Without root: a bad user or group name stops the start (exit 2, a message naming
//!   the key) before any port opens; a `user` the process cannot change to is an error.
//! - As root, with mem ports: the switch runs as `nobody` with no capability left.
//! - As root, in network namespaces `hdn-<pid>-<x>` (deleted on drop, also when a test
//!   fails), four AF_PACKET veth ports: started with `user = "nobody"` the switch forwards,
//!   every thread's /proc status shows uid/gid 65534, CapEff = CapPrm = CapBnd =
//!   CAP_NET_RAW, no inheritable or ambient capability and NoNewPrivs; management works
//!   over the socket (given to nobody, still 0600); a link that goes down and up forwards
//!   again; an interface deleted and re-created is re-opened (CAP_NET_RAW; it is a fanout port, so both
//!   workers' sockets re-open into one new group). With
//!   `reopen_caps = false` nothing is kept, a down/up flap still recovers, and a
//!   re-created interface stays down (the documented limit). The same with four AF_XDP
//!   ports: kept are CAP_NET_RAW, CAP_NET_ADMIN, CAP_IPC_LOCK and CAP_BPF, and a
//!   re-created interface gets a new socket, UMEM, XDP program and link as nobody.
//!   With four DPDK ports (af_packet PMD, `--features dpdk`): nothing kept, forwarding and
//!   management as nobody; the EAL's own threads are nobody without capabilities.
//! - As root without `user`: the switch keeps uid 0, and its log and `check-config` warn
//!   that it does, naming the risk and `[switch] user`.
#![cfg(target_os = "linux")]

mod common;

use canopy_dataplane::port::afpacket::AfPacketPort;
use canopy_dataplane::wire::{Kind, ETHERTYPE_CANOPY};
use canopy_proto::mgmt::Request;
use canopy_test_utils::privs::{give_to_nobody, hex_caps, nobody_exists, thread_status, NOBODY};
use common::*;
use serde_json::{json, Value};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::time::{Duration, Instant};

const CAP_NET_RAW: u64 = 1 << 13;

/// Every thread of `pid` runs as nobody with exactly `caps` permitted, effective and
/// bounding, nothing inheritable or ambient, and no_new_privs; except threads DPDK's
/// EAL started before the drop (`eal-*`): nobody with no capability, but their bounding
/// set and no_new_privs are theirs (per-thread attributes another thread cannot set).
fn assert_dropped(pid: u32, caps: u64) {
    let ts = thread_status(pid);
    for s in &ts {
        let who = format!("thread {} ({})", s["Pid"], s["Name"]);
        let ids = format!("{NOBODY}\t{NOBODY}\t{NOBODY}\t{NOBODY}");
        assert_eq!(s["Uid"], ids, "{who}: Uid");
        assert_eq!(s["Gid"], ids, "{who}: Gid");
        assert_eq!(s["Groups"], NOBODY.to_string(), "{who}: Groups");
        if s["Name"].starts_with("eal-") {
            assert_eq!(hex_caps(&s["CapEff"]), 0, "{who}: CapEff");
            assert_eq!(hex_caps(&s["CapPrm"]), 0, "{who}: CapPrm");
            assert_eq!(hex_caps(&s["CapAmb"]), 0, "{who}: CapAmb");
            continue;
        }
        assert!(
            s["Name"].starts_with("canopy"),
            "{who}: a thread of unknown origin"
        );
        assert_eq!(hex_caps(&s["CapEff"]), caps, "{who}: CapEff");
        assert_eq!(hex_caps(&s["CapPrm"]), caps, "{who}: CapPrm");
        assert_eq!(hex_caps(&s["CapBnd"]), caps, "{who}: CapBnd");
        assert_eq!(hex_caps(&s["CapInh"]), 0, "{who}: CapInh");
        assert_eq!(hex_caps(&s["CapAmb"]), 0, "{who}: CapAmb");
        assert_eq!(s["NoNewPrivs"], "1", "{who}: NoNewPrivs");
    }
}

/// A scratch directory the switch, once it is nobody, can still reach (to remove its
/// socket at exit).
fn nobody_dir(tag: &str) -> Dir {
    let dir = Dir::new(tag);
    give_to_nobody(dir.0.path());
    dir
}

#[test]
fn a_bad_user_or_group_is_refused_before_anything_opens() {
    let dir = Dir::new("hdn-baduser");
    let cfg_path = dir.path("switch.toml");
    let write = |extra: &str| {
        let base = mem_config(&dir, 2, true, "");
        let cfg = base.replacen("[switch]\n", &format!("[switch]\n{extra}"), 1);
        std::fs::write(&cfg_path, cfg).unwrap();
    };
    let run = |args: &[&str]| {
        let mut a = vec!["run", "--config", cfg_path.to_str().unwrap()];
        a.extend_from_slice(args);
        run_bin(&a)
    };
    write("user = \"hdn-no-such-user\"\n");
    for sub in ["run", "check-config"] {
        let (st, _, err) = run_bin(&[sub, "--config", cfg_path.to_str().unwrap()]);
        assert_eq!(st.code(), Some(2), "{sub}: {err}");
        assert!(
            err.contains("switch.user: no such user \"hdn-no-such-user\""),
            "{sub}: {err}"
        );
    }
    assert!(!dir.path("switch.sock").exists(), "nothing started");
    write("user = \"root\"\ngroup = \"hdn-no-such-group\"\n");
    let (st, _, err) = run(&[]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("switch.group: no such group \"hdn-no-such-group\""),
        "{err}"
    );
    write("group = \"root\"\n");
    let (st, _, err) = run(&[]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("switch.group: needs `user`"), "{err}");
    write("user = \"\"\n");
    let (st, _, err) = run(&[]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("switch.user: \"\" is not a user"), "{err}");
    // the command line overrides the file, and is named in the message
    write("");
    let (st, _, err) = run(&["--user", "hdn-no-such-user"]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("--user: no such user \"hdn-no-such-user\""),
        "{err}"
    );
    let (st, _, err) = run(&["--group", "root"]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(err.contains("--group: needs a user"), "{err}");
    assert!(!dir.path("switch.sock").exists(), "nothing started");
}

#[test]
fn mem_switch_runs_as_nobody_without_capabilities() {
    if !nobody_exists() {
        eprintln!("SKIP mem_switch_runs_as_nobody: no user nobody (65534)");
        return;
    }
    let dir = if canopy_test_utils::is_root() {
        nobody_dir("hdn-memnobody")
    } else {
        Dir::new("hdn-memnobody")
    };
    let cfg =
        mem_config(&dir, 4, true, "").replacen("[switch]\n", "[switch]\nuser = \"nobody\"\n", 1);
    if !canopy_test_utils::is_root() {
        // not root: cannot become nobody, and says so
        let p = dir.path("switch.toml");
        std::fs::write(&p, &cfg).unwrap();
        let (st, _, err) = run_bin(&["run", "--config", p.to_str().unwrap()]);
        assert_eq!(st.code(), Some(1), "{err}");
        assert!(err.contains("lacks CAP_SETUID/CAP_SETGID"), "{err}");
        return;
    }
    let sw = Switch::start(&dir, &cfg);
    // the socket accepts (backlog) before the drop; the first answer comes after it
    sw.ok(&Request::Health {});
    assert_dropped(sw.pid(), 0);
    let meta = std::fs::metadata(&sw.socket).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (NOBODY, NOBODY));
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // management and forwarding as nobody
    let f = Fabric::new(Kind::Sliced);
    let fr = f.frame(Kind::Sliced, f.host_on(0), f.host_on(1), b"as nobody");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![1]);
    sw.inject(0, &[fr]);
    sw.settle();
    assert_eq!(sw.capture(1), vec![want]);
    sw.ok(&replace_tables(&f.tables));
    assert!(sw.log().contains("privileges dropped"), "{}", sw.log());
    let sock = sw.socket.clone();
    let (st, _) = sw.terminate();
    assert!(st.success());
    assert!(!sock.exists(), "nobody removed its socket at exit");
}

#[test]
fn mem_switch_as_root_without_user_warns_that_it_keeps_uid_0() {
    if !canopy_test_utils::root_or_skip(
        "mem_switch_as_root_without_user_warns_that_it_keeps_uid_0",
        "to start as root",
    ) {
        return;
    }
    let dir = Dir::new("hdn-memroot");
    let cfg = mem_config(&dir, 4, true, "");
    let risk = [
        "runs as uid 0 (root)",
        "files owned by root stay writable",
        "other root processes can be signalled",
        "set [switch] user (or --user)",
    ];
    let p = dir.path("switch.toml");
    std::fs::write(&p, &cfg).unwrap();
    let (st, out, err) = run_bin(&["check-config", "--config", p.to_str().unwrap()]);
    assert!(st.success(), "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("warning    started as root"))
        .unwrap_or_else(|| panic!("no uid-0 warning in {out}"));
    for w in risk {
        assert!(line.contains(w), "check-config: want {w:?} in {line}");
    }
    let sw = Switch::start(&dir, &cfg);
    sw.ok(&Request::Health {});
    let log = sw.log();
    let line = log
        .lines()
        .find(|l| l.contains(risk[0]))
        .unwrap_or_else(|| panic!("no uid-0 warning in {log}"));
    assert!(line.contains("WARN"), "{line}");
    for w in risk {
        assert!(line.contains(w), "log: want {w:?} in {line}");
    }
    // with a user, neither says it
    if nobody_exists() {
        let with = cfg.replacen("[switch]\n", "[switch]\nuser = \"nobody\"\n", 1);
        std::fs::write(&p, &with).unwrap();
        let (st, out, err) = run_bin(&["check-config", "--config", p.to_str().unwrap()]);
        assert!(st.success(), "{err}");
        assert!(!out.contains("warning"), "{out}");
    }
    let (st, _) = sw.terminate();
    assert!(st.success(), "{st}");
}

/// Send `fr` from `from` (ingress port `ing`) and return the Canopy frames that reach
/// `to` within `t`.
fn send_recv(
    from: &mut AfPacketPort,
    to: &mut AfPacketPort,
    fr: &[u8],
    t: Duration,
) -> Vec<Vec<u8>> {
    assert_eq!(from.tx_frame(fr), Ok(true), "tx_frame");
    from.tx_flush().expect("tx_flush");
    let deadline = Instant::now() + t;
    let mut got = vec![];
    while got.is_empty() && Instant::now() < deadline {
        let k = to.rx_burst(32, |f| {
            if f.len() >= 14 && u16::from_be_bytes([f[12], f[13]]) == ETHERTYPE_CANOPY {
                got.push(f.to_vec());
            }
        });
        if k == 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    got
}

fn wait_for(what: &str, t: Duration, mut f: impl FnMut() -> Option<Value>) -> Value {
    let deadline = Instant::now() + t;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn link(sw: &Switch, port: usize) -> bool {
    sw.ok(&Request::Health {})["ports"][port]["link"] == json!(true)
}

fn reopens(sw: &Switch, port: usize) -> u64 {
    sw.counters()["ports"][port]["backend"]["reopens"]
        .as_u64()
        .unwrap()
}

/// CAP_NET_ADMIN, CAP_NET_RAW, CAP_IPC_LOCK, CAP_BPF.
const AFXDP_CAPS: u64 = 1 << 12 | 1 << 13 | 1 << 14 | 1 << 39;

/// The rig: a switch as nobody with four `backend` ports (`afpacket` or `afxdp`),
/// `reopen_caps` as given.
fn as_nobody(tag: &str, backend: &str, reopen_caps: bool) {
    let test = format!("privdrop {tag}");
    canopy_test_utils::netns_or_return!(&test, "network namespaces, veths, setuid");
    if !nobody_exists() {
        eprintln!("SKIP {test}: needs the user nobody (65534)");
        return;
    }
    let ns = four_port_netns("hdn-", tag, "s", "e0");
    let dir = nobody_dir(&format!("hdn-{tag}"));
    let mut cfg = format!(
        "[switch]\nworkers = 2\nmax_sleep_us = 200\nuser = \"nobody\"\nreopen_caps = {reopen_caps}\n\n\
         [tables]\ntopology = \"{SPEC}\"\nkind = \"sliced\"\nswitch = \"{EDGE}\"\n\n\
         [management]\nsocket = \"{}\"\n",
        dir.path("switch.sock").display()
    );
    if backend == "dpdk" {
        // DPDK's af_packet PMD on the same veths, no huge pages needed
        let mut eal = vec!["--no-pci", "--no-huge", "-m", "512"]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        eal.extend((0..4).map(|i| format!("--vdev=net_af_packet{i},iface=s{i},framecnt=8192")));
        cfg += &format!(
            "\n[dpdk]\neal_args = {}\n",
            serde_json::to_string(&eal).unwrap()
        );
    }
    for i in 0..4 {
        if backend == "dpdk" {
            cfg += &format!("\n[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet{i}\"\n");
            continue;
        }
        cfg += &format!("\n[[port]]\nbackend = \"{backend}\"\ninterface = \"s{i}\"\n");
        // ports 0 and 1 share their RX between both workers (fanout): port 1, the
        // one re-created below, re-opens both its sockets (the primary and the other
        // worker's replica) into one new group
        if i < 2 && backend == "afpacket" {
            cfg += &format!("fanout = {}\n", 60 + i);
        }
    }
    let sw = Switch::start_with(&dir, &cfg, in_ns_cmd(ns.name(0)));
    let caps = match (reopen_caps, backend) {
        (false, _) | (_, "dpdk") => 0,
        (true, "afpacket") => CAP_NET_RAW,
        (true, _) => AFXDP_CAPS,
    };
    // the socket accepts (backlog) before the drop; the first answer comes after it
    sw.ok(&Request::Health {});
    assert_dropped(sw.pid(), caps);
    let meta = std::fs::metadata(&sw.socket).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (NOBODY, NOBODY), "socket owner");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600, "socket mode");

    let f = Fabric::new(Kind::Sliced);
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let t = Duration::from_secs(5);
    let fr = f.frame(Kind::Sliced, h0, h1, b"as nobody");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![1]);
    let mut p0 = host_port(ns.name(1), "e0");
    let mut p1 = host_port(ns.name(2), "e0");
    assert_eq!(send_recv(&mut p0, &mut p1, &fr, t), vec![want.clone()]);
    let back = f.frame(Kind::Sliced, h1, h0, b"and back");
    let (want_back, _) = f.expect(1, &back);
    assert_eq!(send_recv(&mut p1, &mut p0, &back, t), vec![want_back]);

    // management: the socket, the ctl command, a table replacement
    sw.ok(&replace_tables(&f.tables));
    let (st, out, err) = run_bin(&["ctl", "--socket", sw.socket.to_str().unwrap(), "health"]);
    assert!(st.success(), "{err}");
    let name1 = if backend == "dpdk" {
        "net_af_packet1"
    } else {
        "s1"
    };
    assert!(out.contains(name1), "{out}");

    if backend == "dpdk" {
        // DPDK ports never re-open; nothing more to check here
        let sock = sw.socket.clone();
        let (st, _) = sw.terminate();
        assert!(st.success(), "{st}");
        assert!(!sock.exists(), "nobody removed its socket at exit");
        return;
    }

    // a flap: down and up, same ifindex, no re-open needed
    ns.ip(0, &["link", "set", "s1", "down"]);
    wait_for("port 1 down", t, || (!link(&sw, 1)).then_some(Value::Null));
    ns.ip(0, &["link", "set", "s1", "up"]);
    wait_for("port 1 up", t, || link(&sw, 1).then_some(Value::Null));
    canopy_testbed::netns::wait_up(ns.name(2), "e0", t).unwrap();
    assert_eq!(
        send_recv(&mut p0, &mut p1, &fr, t),
        vec![want.clone()],
        "forwarding after down/up"
    );
    assert_eq!(reopens(&sw, 1), 0);

    // the interface deleted and re-created: a new ifindex, the port must re-open
    drop(p1);
    ns.ip(0, &["link", "del", "s1"]);
    wait_for("port 1 gone", t, || (!link(&sw, 1)).then_some(Value::Null));
    ns.veth(0, "s1", 2, "e0");
    let mut p1 = host_port(ns.name(2), "e0");
    if reopen_caps {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !(reopens(&sw, 1) == 1 && link(&sw, 1)) {
            assert!(
                Instant::now() < deadline,
                "port 1 never re-opened: {}\n{}",
                sw.counters()["ports"][1],
                sw.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            send_recv(&mut p0, &mut p1, &fr, t),
            vec![want],
            "forwarding after the re-open"
        );
    } else {
        // without CAP_NET_RAW (and, for AF_XDP, CAP_NET_ADMIN and CAP_BPF) the new
        // socket is refused: the port stays down
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(reopens(&sw, 1), 0, "a re-open without CAP_NET_RAW");
        assert!(!link(&sw, 1), "port 1 stays down");
        assert!(
            send_recv(&mut p0, &mut p1, &fr, Duration::from_millis(500)).is_empty(),
            "nothing reaches the re-created interface"
        );
    }
    // still as dropped as at start (the re-open thread gained nothing)
    assert_dropped(sw.pid(), caps);
    let sock = sw.socket.clone();
    let (st, _) = sw.terminate();
    assert!(st.success(), "{st}");
    assert!(!sock.exists(), "nobody removed its socket at exit");
}

#[test]
fn afpacket_switch_as_nobody_keeps_net_raw_and_reopens() {
    as_nobody("raw", "afpacket", true);
}

#[test]
fn afpacket_switch_as_nobody_without_reopen_caps_keeps_nothing() {
    as_nobody("none", "afpacket", false);
}

#[test]
fn afxdp_switch_as_nobody_keeps_what_a_reopen_needs_and_reopens() {
    as_nobody("xdp", "afxdp", true);
}

#[test]
fn afxdp_switch_as_nobody_without_reopen_caps_keeps_nothing() {
    as_nobody("xdpnone", "afxdp", false);
}

#[test]
fn dpdk_switch_as_nobody_keeps_nothing() {
    if !cfg!(feature = "dpdk") {
        eprintln!(
            "SKIP dpdk_switch_as_nobody: built without the `dpdk` feature (cargo test -p canopy-switch --features dpdk)"
        );
        return;
    }
    as_nobody("dpdk", "dpdk", true);
}
