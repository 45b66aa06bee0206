//! Cleanup guarantees of `canopy-testbed` (root; `SKIP` otherwise): `down` after a
//! `kill -9` of `up` halfway, `down` after the state directory was lost, a failing
//! switch binary rolls `up` back, bad descriptions are rejected before anything is
//! created (with file, key and line), and `down` leaves other namespaces alone and
//! removes only directories that hold its state file.
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{root_or_skip, testbed_bin, Fab};
use std::process::{Command, Stdio};

/// How the switches run (with a fabric-name tag per test: names are at most 12 bytes),
/// and how many `"process"` records to wait for before killing `up`: the shared host
/// (its record comes before canopyd's), one process per switch (a few of them started).
const MODES: [([&str; 2], &str, usize); 2] = [
    (["k", "l"], "", 1),
    (["m", "j"], "[host]\nprocesses = \"per-switch\"\n", 3),
];

#[test]
fn down_cleans_up_after_up_was_killed_halfway() {
    if !root_or_skip("down_cleans_up_after_up_was_killed_halfway") {
        return;
    }
    for (tag, body, records) in MODES {
        let f = Fab::new(tag[0]);
        let d = f.desc("fabric.toml", body);
        let mut up = f.spawn_up(&d, Stdio::null());
        // wait until switch processes are recorded, then kill -9 mid-`up`
        f.wait_state("\"process\"", records);
        up.kill().unwrap();
        let st = up.wait().unwrap();
        assert!(!st.success());
        let before = f.leftovers();
        assert!(
            before.iter().any(|l| l.starts_with("namespace")),
            "nothing to clean? {before:?}"
        );
        assert!(
            before.iter().any(|l| l.starts_with("process")),
            "no switch left running? {before:?}"
        );
        f.down();
        f.assert_clean();
    }
}

#[test]
fn sigint_during_up_rolls_everything_back() {
    if !root_or_skip("sigint_during_up_rolls_everything_back") {
        return;
    }
    let f = Fab::new("i");
    let d = f.desc("fabric.toml", "");
    let up = f.spawn_up(&d, Stdio::piped());
    f.wait_state("\"netns\"", 10);
    assert!(canopy_testbed::os::sys::signal_pid(
        up.id(),
        canopy_testbed::os::sys::SIGINT
    ));
    let out = up.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("rolling back"),
        "{err}"
    );
    // rolled back by `up` itself, no `down` needed
    f.assert_clean();
}

#[test]
fn down_cleans_up_by_prefix_without_a_state_file() {
    if !root_or_skip("down_cleans_up_by_prefix_without_a_state_file") {
        return;
    }
    // the shared host and canopyd; 20 switch processes and canopyd
    for ((tag, body, _), processes) in MODES.into_iter().zip([2, 21]) {
        let f = Fab::new(tag[1]);
        let d = f.desc("fabric.toml", body);
        f.up(&d, &[]);
        // lose the state (files and sockets) without `down`
        std::fs::remove_dir_all(f.root().join(&f.name)).unwrap();
        let before = f.leftovers();
        assert_eq!(
            before.iter().filter(|l| l.starts_with("namespace")).count(),
            36,
            "{before:#?}"
        );
        assert_eq!(
            before.iter().filter(|l| l.starts_with("process")).count(),
            processes,
            "{before:#?}"
        );
        f.down();
        f.assert_clean();
    }
}

#[test]
fn a_switch_that_exits_at_once_rolls_everything_back() {
    if !root_or_skip("a_switch_that_exits_at_once_rolls_everything_back") {
        return;
    }
    let f = Fab::new("r");
    let d = f.desc("fabric.toml", "switch_bin = \"/bin/false\"\n");
    let out = f.run(&["up", d.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exited during start"), "{err}");
    assert!(err.contains("rolling back"), "{err}");
    f.assert_clean();
}

#[test]
fn down_touches_nothing_else() {
    if !root_or_skip("down_touches_nothing_else") {
        return;
    }
    let f = Fab::new("n");
    // namespaces that share the prefix but are not the fabric's (`<name>-x`, `<name>x-s0`)
    let others = [format!("{}-x", f.name), format!("{}x-s0", f.name)];
    for o in &others {
        assert!(Command::new("ip")
            .args(["netns", "add", o])
            .status()
            .unwrap()
            .success());
    }
    let d = f.desc("fabric.toml", "");
    f.up(&d, &[]);
    f.down();
    let list = String::from_utf8_lossy(
        &Command::new("ip")
            .args(["netns", "list"])
            .output()
            .unwrap()
            .stdout,
    )
    .into_owned();
    for o in &others {
        assert!(
            list.lines()
                .any(|l| l.split_whitespace().next() == Some(o.as_str())),
            "{o} was removed"
        );
        let _ = Command::new("ip").args(["netns", "del", o]).status();
    }
    let l: Vec<String> = f
        .leftovers()
        .into_iter()
        .filter(|l| !others.iter().any(|o| l.contains(o.as_str())))
        .collect();
    assert!(l.is_empty(), "{l:#?}");
}

/// A description that must be rejected before anything is created: exit 2, the
/// message names the file, `key` and `line`, and no namespace or state appears.
fn rejected(f: &Fab, body: &str, key: &str, line: Option<usize>, what: &str, extra: &[&str]) {
    let d = f.desc("bad.toml", body);
    let mut a = vec!["up", d.to_str().unwrap()];
    a.extend(extra);
    let out = f.run(&a);
    assert_eq!(out.status.code(), Some(2), "accepted: {body}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml"), "no file in {err}");
    assert!(err.contains(key), "no key {key} in {err}");
    assert!(err.contains(what), "no {what:?} in {err}");
    if let Some(l) = line {
        assert!(err.contains(&format!("line {l}")), "no line {l} in {err}");
    }
    f.assert_clean();
}

#[test]
fn bad_descriptions_are_rejected_before_anything_is_created() {
    if !root_or_skip("bad_descriptions_are_rejected_before_anything_is_created") {
        return;
    }
    let f = Fab::new("b");
    // line numbers count the `name = ...` line the fixture puts first
    rejected(
        &f,
        "topology = \"fat-tree:k=5\"\n",
        "topology",
        Some(2),
        "",
        &[],
    );
    rejected(
        &f,
        "\ntopology = \"moebius:n=3\"\n",
        "topology",
        Some(3),
        "moebius",
        &[],
    );
    rejected(&f, "kind = \"transit\"\n", "kind", Some(2), "transit", &[]);
    rejected(
        &f,
        "topologgy = \"fat-tree:k=4\"\n",
        "",
        Some(2),
        "unknown field `topologgy`",
        &[],
    );
    rejected(
        &f,
        "[ports]\ntpacket = \"v9\"\n",
        "ports.tpacket",
        Some(3),
        "v9",
        &[],
    );
    rejected(
        &f,
        "[switch]\nworkerz = 2\n",
        "switch",
        None,
        "workerz",
        &[],
    );
    // a host named twice
    rejected(
        &f,
        "[[place]]\nnodes = [\"h1\", \"h2\"]\nmachine = \"local\"\n[[place]]\nnodes = [\"h3\", \"h1\"]\nmachine = \"local\"\n",
        "place[1].nodes[1]",
        Some(6),
        "placed twice",
        &[],
    );
    rejected(
        &f,
        "[[place]]\nnodes = [\"h99\"]\nmachine = \"local\"\n",
        "place[0].nodes[0]",
        Some(3),
        "h99",
        &[],
    );
    let two = "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n[[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n";
    rejected(
        &f,
        &format!("{two}[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.3\"\n"),
        "machine[2].name",
        Some(15),
        "named twice",
        &[],
    );
    rejected(
        &f,
        "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.300\"\n",
        "machine[0].underlay",
        Some(4),
        "10.0.0.300",
        &[],
    );
    // a port wired twice
    rejected(
        &f,
        &format!("{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"cfabx0\"\n[[nic]]\nport = \"core-c0:0\"\ninterface = \"cfabx1\"\n"),
        "nic[1].port",
        Some(18),
        "wired twice",
        &[],
    );
    // an interface that does not exist (checked for the machine being built)
    let cores = "[[nic]]\nport = \"core-c0:0\"\ninterface = \"cfabnope0\"\n[[nic]]\nport = \"agg-p0-a0:2\"\ninterface = \"cfabnope1\"\n";
    rejected(
        &f,
        &format!("{two}{cores}"),
        "nic[0].interface",
        Some(16),
        "does not exist",
        &["--machine", "b"],
    );
    rejected(
        &f,
        &format!("{two}{cores}"),
        "nic[1].interface",
        Some(19),
        "does not exist",
        &["--machine", "a"],
    );
    rejected(
        &f,
        two,
        "--machine",
        None,
        "no [[machine]] named \"c\"",
        &["--machine", "c"],
    );
    // bad names
    let out = {
        let d = f.dir.join("badname.toml");
        std::fs::write(&d, "name = \"Bad_Name\"\n").unwrap();
        f.run(&["up", d.to_str().unwrap()])
    };
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("name: \"Bad_Name\" may only contain"));
    f.assert_clean();
}

#[test]
fn down_with_another_state_root_still_stops_the_switches() {
    if !root_or_skip("down_with_another_state_root_still_stops_the_switches") {
        return;
    }
    let f = Fab::new("o");
    let d = f.desc("fabric.toml", "");
    f.up(&d, &[]);
    let other = f.dir.join("other-root");
    let out = Command::new(testbed_bin())
        .args(["--state-root", other.to_str().unwrap(), "down", &f.name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // namespaces and processes are gone (found by prefix); only the first root's state dir is left
    let l = f.leftovers();
    assert_eq!(l.len(), 1, "{l:#?}");
    assert!(l[0].starts_with("state dir"), "{l:#?}");
    f.down();
    f.assert_clean();
}

#[test]
fn down_removes_only_directories_that_hold_a_state_file() {
    if !root_or_skip("down_removes_only_directories_that_hold_a_state_file") {
        return;
    }
    let f = Fab::new("d");
    let root = f.root();
    let mine = root.join("mydata");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("keep"), "x").unwrap();
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    // `down` without a name: no fabric there, so nothing to bring down
    let out = f.run(&["down"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("mydata: no canopy-testbed state file"),
        "{}",
        text(&out)
    );
    assert!(
        mine.join("keep").exists(),
        "`down` removed a directory of someone else"
    );
    // `down mydata`: refused with a message, non-zero
    let out = f.run(&["down", "mydata"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("holds no canopy-testbed state file"),
        "{}",
        text(&out)
    );
    assert!(mine.join("keep").exists(), "`down mydata` removed it");
    // a real fabric beside it, with a directory of someone else inside its own
    let d = f.desc("fabric.toml", "topology = \"fat-tree:k=2\"\n");
    f.up(&d, &[]);
    let notes = root.join(&f.name).join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("keep"), "x").unwrap();
    let out = f.run(&["down"]);
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains(&format!("fabric {}:", f.name)), "{t}");
    assert!(t.contains("left alone") && t.contains("mydata"), "{t}");
    assert!(t.contains(&notes.display().to_string()), "{t}");
    assert!(mine.join("keep").exists() && notes.join("keep").exists());
    assert!(
        !root.join(&f.name).join("local").exists(),
        "its state dir is still there"
    );
    std::fs::remove_dir_all(root.join(&f.name)).unwrap();
    f.assert_clean();
}
