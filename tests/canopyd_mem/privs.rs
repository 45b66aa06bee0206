//! `canopyd` gives up its privileges once its control socket and metrics address are
//! bound (`docs/canopyd.md`, "Privileges"). As root:
//!
//! - with `[daemon] user = "nobody"`, beside switches that run as nobody too, all in a
//!   directory given to nobody (so each can reach the others' sockets and remove its
//!   own at exit): every thread's /proc status shows uid/gid 65534, no capability in
//!   any set and NoNewPrivs; the control socket is nobody's, still 0600, and answers;
//!   the fabric becomes READY (the pushes reach the switches); the socket is removed at
//!   exit;
//! - without `user`: uid 0 with no capability in any set and NoNewPrivs, the uid-0
//!   warning in the log and in `--check`'s output; READY beside switches that run as
//!   root (their sockets are root's).
//!
//! Without root both print a `SKIP` line, the first also without the user nobody.

use super::*;
use canopy_test_utils::privs::{give_to_nobody, hex_caps, nobody_exists, thread_status, NOBODY};
use canopy_test_utils::root_or_skip;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

/// Every thread of `pid` runs as uid and gid `id` with no capability in the effective,
/// permitted, bounding, inheritable or ambient set, and no_new_privs.
fn assert_no_privilege(pid: u32, id: u32) {
    for s in thread_status(pid) {
        let who = format!("thread {} ({})", s["Pid"], s["Name"]);
        let ids = format!("{id}\t{id}\t{id}\t{id}");
        assert_eq!(s["Uid"], ids, "{who}: Uid");
        assert_eq!(s["Gid"], ids, "{who}: Gid");
        for set in ["CapEff", "CapPrm", "CapBnd", "CapInh", "CapAmb"] {
            assert_eq!(hex_caps(&s[set]), 0, "{who}: {set}");
        }
        assert_eq!(s["NoNewPrivs"], "1", "{who}: NoNewPrivs");
    }
}

/// What the uid-0 warning says: the risk and the key to set.
const ROOT_WARNING: [&str; 4] = [
    "runs as uid 0 (root)",
    "files owned by root stay writable",
    "other root processes can be signalled",
    "set [daemon] user (or --user)",
];

/// `canopyd --check` on `cfg` with `args`, which must pass: its stdout.
fn check(cfg: &Path, args: &[&str]) -> String {
    let out = Command::new(bin("canopyd"))
        .args(["--check", "--config", cfg.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&out.stdout).to_string();
    let se = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{so}{se}");
    so
}

#[test]
fn canopyd_as_nobody_keeps_no_privilege() {
    if !root_or_skip("canopyd_as_nobody_keeps_no_privilege", "to change user") {
        return;
    }
    if !nobody_exists() {
        eprintln!("SKIP canopyd_as_nobody_keeps_no_privilege: needs the user nobody (65534)");
        return;
    }
    let _s = serial();
    let mut f = Fabric::prepare("nobody", K2, |_, o| {
        o.extra_switch = "user = \"nobody\"".into();
    });
    give_to_nobody(f.dir.root());
    f.start_all();
    let cfg = f.daemon_config_with("cd.toml", "user = \"nobody\"", "");
    let so = check(&cfg, &[]);
    assert!(
        so.contains("privileges runs as user nobody (uid 65534)"),
        "{so}"
    );
    assert!(!so.contains("warning"), "{so}");
    // the control socket answers once the daemon's threads run, after the drop
    f.start_daemon(&cfg);
    let pid = f.daemon.as_ref().unwrap().pid();
    assert_no_privilege(pid, NOBODY);
    for s in thread_status(pid) {
        assert_eq!(
            s["Groups"],
            NOBODY.to_string(),
            "thread {}: Groups",
            s["Name"]
        );
    }
    let meta = std::fs::metadata(f.control()).unwrap();
    assert_eq!(
        (meta.uid(), meta.gid()),
        (NOBODY, NOBODY),
        "control socket owner"
    );
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "control socket mode"
    );
    // as nobody it reaches the switches (nobody's sockets) and pushes
    f.wait_ready(15.0);
    let log = f.daemon_log();
    assert!(
        log.contains("privileges dropped: runs as user nobody (uid 65534)"),
        "{log}"
    );
    assert!(!log.contains(ROOT_WARNING[0]), "{log}");
    assert_no_privilege(pid, NOBODY);
    let (st, _) = f.daemon.take().unwrap().terminate();
    assert!(st.success(), "{st}");
    assert!(
        !f.control().exists(),
        "nobody removed its control socket at exit"
    );
}

#[test]
fn canopyd_as_root_without_user_keeps_no_capability_and_warns() {
    if !root_or_skip(
        "canopyd_as_root_without_user_keeps_no_capability_and_warns",
        "to start as root",
    ) {
        return;
    }
    let _s = serial();
    let mut f = Fabric::start("rootd", K2);
    let cfg = f.daemon_config("cd.toml", "");
    let so = check(&cfg, &[]);
    for w in [
        "warning: started as root",
        "privileges stays the starting user",
    ]
    .iter()
    .chain(&ROOT_WARNING)
    {
        assert!(so.contains(w), "--check: want {w:?} in {so}");
    }
    // with --user the warning goes
    let so = check(&cfg, &["--user", "root"]);
    assert!(!so.contains("warning"), "{so}");
    f.start_daemon(&cfg);
    let pid = f.daemon.as_ref().unwrap().pid();
    assert_no_privilege(pid, 0);
    // uid 0 without capabilities still reaches root's sockets
    f.wait_ready(15.0);
    let log = f.daemon_log();
    let warning = log
        .lines()
        .find(|l| l.contains(ROOT_WARNING[0]))
        .unwrap_or_else(|| panic!("no uid-0 warning in {log}"));
    assert!(warning.contains("WARN"), "{warning}");
    for w in ROOT_WARNING {
        assert!(warning.contains(w), "want {w:?} in {warning}");
    }
    assert_no_privilege(pid, 0);
}
