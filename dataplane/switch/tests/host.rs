//! `canopy-switch host`: several switches in one process on mem ports (no root needed).
//! Each keeps its own management socket, tables and counters; one stops and starts
//! again through the host's control socket while the other forwards.

mod common;

use canopy_dataplane::wire::Kind;
use canopy_proto::host::HostReport;
use canopy_test_utils::switch::{config, mem_ports};
use canopy_test_utils::Proc;
use common::*;
use serde_json::json;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The host's file for members `names` (each `dir/NAME.toml`, mem ports, edge tables).
fn host_files(dir: &Dir, names: &[&str]) -> PathBuf {
    let mut host = format!(
        "[host]\nthreads = 2\nmode = \"adaptive\"\nmax_sleep_us = 200\nsocket = \"{}\"\n",
        dir.path("host.sock").display()
    );
    for n in names {
        let text = config(
            "workers = 1",
            Some((SPEC, EDGE)),
            &dir.path(&format!("{n}.sock")),
            "",
            &mem_ports(4, 4096),
        );
        std::fs::write(dir.path(&format!("{n}.toml")), text).unwrap();
        host += &format!("\n[[switch]]\nname = \"{n}\"\nconfig = \"{n}.toml\"\n");
    }
    let path = dir.path("host.toml");
    std::fs::write(&path, host).unwrap();
    path
}

fn start_host(dir: &Dir, file: &Path, members: &[&str]) -> Proc {
    let mut cmd = Command::new(switch_bin());
    cmd.args(["host", "--config", file.to_str().unwrap(), "--log", "debug"]);
    cmd.stdout(std::process::Stdio::piped());
    let mut p = Proc::spawn_cmd(cmd, dir.path("host.log"));
    let socks: Vec<PathBuf> = std::iter::once("host")
        .chain(members.iter().copied())
        .map(|n| dir.path(&format!("{n}.sock")))
        .collect();
    p.wait_alive(60.0, "every socket of the host answers", || {
        socks
            .iter()
            .all(|s| UnixStream::connect(s).is_ok())
            .then_some(())
    });
    p
}

/// `host-ctl` with `args`: (success, the report when it succeeded, stderr).
fn host_ctl(dir: &Dir, args: &[&str]) -> (bool, Option<HostReport>, String) {
    let sock = dir.path("host.sock");
    let mut a = vec!["host-ctl", "--socket", sock.to_str().unwrap(), "--json"];
    a.extend(args);
    let (st, out, err) = run_bin(&a);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or(json!(null));
    let err = format!("{err}{}", v["error"].as_str().unwrap_or(""));
    (st.success(), serde_json::from_value(v).ok(), err)
}

/// Edge frames h0 -> h1 in at port 0, checked out at port 1.
fn forwards(m: &Mgmt, f: &Fabric, n: usize) {
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let fr = f.frame(Kind::Sliced, h0, h1, b"shared host");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![1]);
    m.inject(0, &vec![fr; n]);
    m.settle();
    assert_eq!(m.capture(1), vec![want; n], "{}", m.socket.display());
}

#[test]
fn switches_of_a_host_answer_and_forward_each_on_its_own_and_restart_alone() {
    let dir = Dir::new("host");
    let file = host_files(&dir, &["a", "b"]);
    let (st, out, err) = run_bin(&["host", "--config", file.to_str().unwrap(), "--check"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("threads    2, mode adaptive"), "{out}");
    let line_a = format!("  a          4 ports, tables {EDGE}, netns (host's), socket");
    assert!(out.contains(&line_a), "{out}");

    let p = start_host(&dir, &file, &["a", "b"]);
    let (a, b) = (Mgmt::at(dir.path("a.sock")), Mgmt::at(dir.path("b.sock")));
    let f = Fabric::new(Kind::Sliced);
    forwards(&a, &f, 5);
    forwards(&b, &f, 7);
    assert_eq!(
        a.counters()["rx_packets"],
        json!(5),
        "a counts only its own"
    );
    assert_eq!(b.counters()["rx_packets"], json!(7));

    let (ok, r, _) = host_ctl(&dir, &["switches"]);
    let r = r.filter(|_| ok).expect("switches");
    assert_eq!(r.threads, 2);
    assert_eq!(r.load.iter().sum::<usize>(), 8, "{r:?}");
    assert_eq!(r.pid, p.pid());
    let names: Vec<_> = r
        .switches
        .iter()
        .map(|s| (s.name.as_str(), s.running))
        .collect();
    assert_eq!(names, [("a", true), ("b", true)]);

    // a stops: its socket goes away, b forwards on
    let (ok, r, err) = host_ctl(&dir, &["stop", "a"]);
    assert!(ok, "{err}");
    assert!(!r.unwrap().switches[0].running);
    assert!(!a.socket.exists(), "a's socket is removed");
    forwards(&b, &f, 3);
    let (ok, _, err) = host_ctl(&dir, &["stop", "a"]);
    assert!(!ok && err.contains("stopped already"), "{err}");
    let (ok, _, err) = host_ctl(&dir, &["stop", "zz"]);
    assert!(!ok && err.contains("no switch \"zz\""), "{err}");

    // a starts again from its file: fresh counters, same socket
    let (ok, r, err) = host_ctl(&dir, &["start", "a"]);
    assert!(ok, "{err}");
    let r = r.unwrap();
    assert!(r.switches[0].running);
    assert_eq!(r.switches[0].starts, 2);
    let a = Mgmt::at(dir.path("a.sock"));
    forwards(&a, &f, 2);
    assert_eq!(a.counters()["rx_packets"], json!(2));
    assert_eq!(b.counters()["rx_packets"], json!(10));

    let (st, out) = p.terminate();
    assert!(st.success(), "{st:?}");
    for n in ["switch a:", "switch b:", "final counters"] {
        assert!(out.contains(n), "{n} in {out}");
    }
    assert!(!dir.path("host.sock").exists() && !dir.path("b.sock").exists());
}

#[test]
fn a_host_refuses_what_belongs_to_a_process_of_its_own() {
    let dir = Dir::new("host-bad");
    let file = host_files(&dir, &["a"]);
    // a member that pins its own cores
    let a = std::fs::read_to_string(dir.path("a.toml")).unwrap();
    let pinned = a.replace(
        "workers = 1",
        "workers = 1\nmode = \"busy\"\npin_cores = [0]",
    );
    std::fs::write(dir.path("a.toml"), pinned).unwrap();
    let (st, _, err) = run_bin(&["host", "--config", file.to_str().unwrap(), "--check"]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("switch.pin_cores") && err.contains("[host] pin_cores"),
        "{err}"
    );
    let (st, _, err) = run_bin(&["host", "--config", file.to_str().unwrap()]);
    assert_ne!(st.code(), Some(0), "{err}");
    assert!(err.contains("switch a"), "{err}");
    assert!(!dir.path("host.sock").exists(), "nothing was bound");
    // a host file naming no switch
    std::fs::write(&file, "[host]\nsocket = \"h.sock\"\n").unwrap();
    let (st, _, err) = run_bin(&["host", "--config", file.to_str().unwrap()]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(
        err.contains("switch: a host needs at least one [[switch]]"),
        "{err}"
    );
}
