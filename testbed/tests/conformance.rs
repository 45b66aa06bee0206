//! The PTF + scapy conformance suite (`p4/ptf/run_suite.py`, docs/conformance.md) as a
//! cargo test: against `canopy-switch` on veths always, then against canopy-switch
//! programmed over P4Runtime by p4runtime-shell (which skips with a `SKIP canopy-p4rt:` line
//! without `.venv/p4runtime-shell`), then against bmv2 (which skips with a `SKIP bmv2:` line
//! when p4c, simple_switch or p4/canopy.p4 are missing).
//!
//! Needs root (network namespaces), `ip`, and python3 with the PyPI packages `ptf` and
//! `scapy` (versions in p4/ptf/requirements.txt; CI installs them); skipped with a message
//! otherwise.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::process::Command;

const PIP: &str = "pip install ptf==0.10.0 scapy==2.6.1";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The directory of this build's binaries (canopy-switch and canopyctl are built there by
/// `cargo test --workspace`).
fn bin_dir() -> PathBuf {
    let switch = canopy_test_utils::bin("canopy-switch");
    canopy_test_utils::bin("canopyctl");
    switch.parent().expect("bin dir").to_path_buf()
}

fn python_ready() -> anyhow::Result<()> {
    let out = Command::new("python3")
        .args(["-c", "import ptf, scapy, ptf.testutils"])
        .output()
        .map_err(|e| anyhow::anyhow!("python3: {e}"))?;
    // the exception line, e.g. `ModuleNotFoundError: No module named 'ptf'`
    let err = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(
        out.status.success(),
        "{}",
        err.trim().lines().last().unwrap_or("import failed")
    );
    Ok(())
}

/// Run the suite against one target; returns its whole output after checking the exit status.
fn run_suite(target: &str) -> String {
    let script = repo().join("p4/ptf/run_suite.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["--target", target, "--bin-dir"])
        .arg(bin_dir())
        .output()
        .expect("run python3 p4/ptf/run_suite.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(
        out.status.success(),
        "run_suite.py --target {target} failed ({})",
        out.status
    );
    text
}

/// The number after `word` on the line starting with it (e.g. `DECLARED 130 cases`).
fn count(text: &str, word: &str) -> Option<usize> {
    text.lines()
        .find_map(|l| l.strip_prefix(word))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The `RESULT target=T ran=N declared=M passed=P known=X failed=F` line, as a map.
fn result(text: &str) -> std::collections::HashMap<String, String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("RESULT "))
        .unwrap_or_else(|| panic!("no RESULT line in the suite's output"));
    line.split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn num(r: &std::collections::HashMap<String, String>, k: &str) -> usize {
    r.get(k)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("RESULT has no number {k}: {r:?}"))
}

/// Checks one target's run: everything declared ran, nothing failed.
fn check(text: &str, target: &str) {
    let declared = count(text, "DECLARED ").expect("no DECLARED line");
    // every forwarding hop of the vectors plus every drop reason: far more than 100 cases
    assert!(declared >= 100, "the suite declares only {declared} cases");
    let r = result(text);
    assert_eq!(r.get("target").map(String::as_str), Some(target));
    assert_eq!(
        num(&r, "declared"),
        declared,
        "the runner's declared count changed"
    );
    assert_eq!(num(&r, "ran"), declared, "cases ran != declared: {r:?}");
    assert_eq!(num(&r, "failed"), 0, "{r:?}");
    assert_eq!(num(&r, "passed") + num(&r, "known"), declared, "{r:?}");
    assert!(text.contains(&format!(
        "PASS: {declared} conformance cases against {target}"
    )));
}

#[test]
fn conformance_suite_passes_against_canopy_switch_and_bmv2_when_present() {
    if !canopy_test_utils::netns_or_skip("conformance", "network namespaces and veths") {
        return;
    }
    if let Err(e) = python_ready() {
        eprintln!("SKIP conformance: {PIP} ({e})");
        return;
    }

    let text = run_suite("canopy");
    check(&text, "canopy");

    // canopy-switch without tables, programmed over P4Runtime by p4runtime-shell (each
    // switch's entries read back identical first); skipped without its environment
    let text = run_suite("canopy-p4rt");
    if text.lines().any(|l| l.starts_with("SKIP canopy-p4rt:")) {
        eprintln!("(canopy-p4rt skipped: scripts/install-deps makes .venv/p4runtime-shell)");
    } else {
        check(&text, "canopy-p4rt");
        // `DECLARED N cases, S switches, P ports`: one PROGRAMMED line per switch
        let switches: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("DECLARED "))
            .and_then(|r| r.split(", ").nth(1))
            .and_then(|w| w.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("DECLARED names the switches");
        let programmed = text.lines().filter(|l| l.contains(": PROGRAMMED ")).count();
        assert_eq!(
            programmed, switches,
            "every switch programmed over P4Runtime and read back"
        );
    }

    let text = run_suite("bmv2");
    if text.lines().any(|l| l.starts_with("SKIP bmv2:")) {
        return;
    }
    check(&text, "bmv2");
}
