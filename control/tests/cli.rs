//! `canopyctl` as a user runs it: the seeds' examples, error messages for bad input, and
//! a closed stdout (output piped into `head`).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn canopyctl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_canopyctl"))
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
                "fat-tree:k=4",
                "-k",
                "bogus",
                "--src",
                "h0",
                "--dst",
                "h1",
            ],
            "unknown header kind",
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_canopyctl"))
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
