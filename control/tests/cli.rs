//! `canopyctl` as a user runs it: the source documents' examples (docs/references.md),
//! error messages for bad input, and a closed stdout (output piped into `head`).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn canopyctl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(canopy_test_utils::bin("canopyctl"))
        .args(args)
        .output()
        .expect("run canopyctl");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn thesis_address_example() {
    let (code, out, _) = canopyctl(&["address", "znode:z=3,2,3;m=2", "26"]);
    assert_eq!(code, 0);
    assert!(
        out.lines().any(|l| l == "labels         (1;1,0,2)"),
        "{out}"
    );
    assert!(out.lines().any(|l| l == "physical       42"), "{out}");
}

#[test]
fn transit_trace_delivers() {
    let (code, out, err) = canopyctl(&[
        "header",
        "transit-full:layers=1",
        "--kind",
        "transit",
        "--src",
        "h0",
        "--dst",
        "h63",
        "--trace",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("=> Delivered { host: 63"), "{out}");
}

#[test]
fn flat_trace_passes_ancestors_twice_and_exits_0() {
    // FLAT climbs to the top and comes back down through its own ancestors
    // (docs/sliced-flit.md): the trace's check allows one visit per direction, as
    // `canopyctl check --mode flat` does.
    let (code, out, err) = canopyctl(&[
        "header",
        "fat-tree:k=4",
        "--kind",
        "sliced",
        "--src",
        "6",
        "--dst",
        "4",
        "--mode",
        "flat",
        "--trace",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("=> Delivered { host: 4"), "{out}");
    // the walk did pass a switch twice (agg-p1-a0 going up, then coming down)
    let visits = out.lines().filter(|l| l.contains(" agg-p1-a0 ")).count();
    assert_eq!(visits, 2, "{out}");
}

#[test]
fn bad_input_is_an_error_message_not_a_panic() {
    for (args, want) in [
        (vec!["topo", "fat-tree:k=5"], "parameter `k`"),
        (vec!["topo", "nosuch:k=4"], "unknown topology family"),
        (
            vec!["address", "fat-tree:k=4", "h99"],
            "no host with index 99",
        ),
        (
            vec![
                "header",
                "znode:z=3,2,3;m=2",
                "-k",
                "path-id",
                "--src",
                "h0",
                "--dst",
                "h1",
            ],
            "path-id",
        ),
        (
            vec!["tables", "fat-tree:k=4", "-k", "sliced", "--switch", "nope"],
            "no switch named `nope`",
        ),
    ] {
        let (code, _, err) = canopyctl(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains(want),
            "{args:?}: `{err}` should mention `{want}`"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn closed_stdout_ends_quietly_like_sigpipe() {
    let mut child = Command::new(canopy_test_utils::bin("canopyctl"))
        .args(["topo", "transit-full:layers=2", "--list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run canopyctl");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read a line");
    // the reader is dropped here: the pipe closes while canopyctl is still writing
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(first.starts_with("ut"), "{first}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}

/// The value after `key` on the output line that starts with `key`.
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{out}"))
        .trim()
}

#[test]
fn sim_runs_a_fabric_and_reports_throughput_drops_and_conservation() {
    let (code, out, err) = canopyctl(&[
        "sim",
        "fat-tree:k=4",
        "--kind",
        "sliced",
        "--threads",
        "2",
        "--seconds",
        "1.2",
        "--frame-size",
        "128",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("fabric     fat-tree:k=4 (20 switches, 16 hosts), kind sliced, 2 threads"),
        "{out}"
    );
    assert!(out.contains("traffic    uniform, 128 B frames"), "{out}");
    let num = |k: &str| -> u64 {
        field(&out, k)
            .parse()
            .unwrap_or_else(|e| panic!("{k}: {e}\n{out}"))
    };
    let (sent, delivered, dropped) = (num("sent "), num("delivered "), num("dropped "));
    assert_eq!(num("misdelivered "), 0, "{out}");
    assert!(delivered > 1000, "{out}");
    // every frame sent was delivered or dropped (drop-tail when a ring fills)
    assert_eq!(sent, delivered + dropped, "{out}");
    let mpps: f64 = field(&out, "throughput ")
        .split_whitespace()
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(mpps > 0.0, "{out}");
    // a k=4 fat-tree path crosses 1, 3 or 5 switches (a dropped frame fewer)
    let per: f64 = field(&out, "hops ")
        .split(", ")
        .nth(1)
        .and_then(|x| x.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!((1.0..=5.0).contains(&per), "{out}");
    assert!(
        out.contains("conservation ok: 20 switches with rx = tx + drops"),
        "{out}"
    );
    // the run is longer than a second: one progress line
    assert!(
        err.contains("] sent ") && err.contains("Mpps over the last second"),
        "{err}"
    );
}

#[test]
fn sim_refuses_bad_options_by_name() {
    for (args, want) in [
        (
            vec!["sim", "fat-tree:k=4", "-k", "sliced", "--seconds", "0"],
            "--seconds",
        ),
        (
            vec!["sim", "fat-tree:k=4", "-k", "sliced", "--threads", "0"],
            "--threads",
        ),
        (
            vec!["sim", "fat-tree:k=4", "-k", "sliced", "--frame-size", "63"],
            "--frame-size",
        ),
        (
            vec![
                "sim",
                "fat-tree:k=4",
                "-k",
                "sliced",
                "--pattern",
                "hotspot",
            ],
            "--pattern",
        ),
        (vec!["sim", "fat-tree:k=4", "-k", "transit"], "transit"),
    ] {
        let (code, _, err) = canopyctl(&args);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(
            err.contains(want),
            "{args:?}: `{err}` should mention `{want}`"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn fabric_takes_daemon_before_or_after_its_command() {
    let sock = "/nonexistent/canopyd-cli-test.sock";
    for args in [
        vec!["fabric", "--daemon", sock, "status"],
        vec!["fabric", "status", "--daemon", sock],
        vec!["fabric", "port", "--daemon", sock, "sw", "0", "down"],
        vec!["fabric", "counters", "--json", "--daemon", sock],
    ] {
        let (code, _, err) = canopyctl(&args);
        // not a usage error (2): the socket was taken, and nothing listens there
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("is canopyd running?"), "{args:?}: {err}");
    }
}
