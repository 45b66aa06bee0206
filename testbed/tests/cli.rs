//! `canopy-testbed`'s command-line conventions: `--log` takes a filter of RUST_LOG-style
//! directives and a bad one (given, or in `RUST_LOG`) exits 2; closed sets are checked
//! by clap; `--json` of `status`, `down` and `latency` agrees with their text; the hidden
//! `completions` and `man` commands print what the package installs. The `status` and
//! `down` test builds a fabric in namespaces (root; `SKIP` otherwise).

mod fabric_common;

use canopy_test_utils::Dir;
use canopy_testbed::report::{hlog, latency};
use fabric_common::{root_or_skip, Fab};
use hdrhistogram::Histogram;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

fn testbed(args: &[&str], rust_log: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canopy-testbed"));
    c.args(args).env_remove("RUST_LOG");
    if let Some(v) = rust_log {
        c.env("RUST_LOG", v);
    }
    c.output().expect("run canopy-testbed")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_bad_log_filter_exits_2() {
    let missing = "/nonexistent/latency.hlog";
    let o = testbed(
        &["--log", "warn,canopy_testbed=loud", "latency", missing],
        None,
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("for '--log <FILTER>'"), "{err}");
    assert!(
        err.contains("`canopy_testbed=loud` is not a log filter"),
        "{err}"
    );
    // --log is global: after the command too
    let o = testbed(&["latency", missing, "--log", "[nope"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("`[nope` is not a log filter"));
    let o = testbed(&["latency", missing], Some("canopy_testbed=loud"));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("canopy-testbed: RUST_LOG: `canopy_testbed=loud` is not a log filter"),
        "{err}"
    );
    assert!(!err.contains(missing), "{err}");
    // a good one: on to the command (whose file is missing)
    for (args, env) in [
        (vec!["--log", "debug", "latency", missing], None),
        (vec!["latency", missing], Some("info,canopy_testbed=debug")),
    ] {
        let err = text(&testbed(&args, env).stderr);
        assert!(err.contains(&format!("read {missing}")), "{err}");
    }
}

#[test]
fn closed_sets_exit_2_naming_their_values() {
    for (args, values) in [
        (
            vec!["drill", "link", "sw", "1", "sideways"],
            "[possible values: up, down]",
        ),
        (
            vec!["soak", "--faults", "link-flap,meteor"],
            "[possible values: link-flap, switch-kill, daemon-kill, tx-fill]",
        ),
    ] {
        let o = testbed(&args, None);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(values), "{args:?}: {err}");
    }
}

/// The commands `--help` lists after `args` (but `help`).
fn commands(args: &[&str]) -> Vec<String> {
    let help = text(&testbed(args, None).stdout);
    let list = help.split("Commands:\n").nth(1).expect("a command list");
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn completions_and_man_pages_cover_every_command() {
    let top = commands(&["--help"]);
    assert_eq!(top.len(), 14, "{top:?}");
    let drill = commands(&["drill", "--help"]);
    assert_eq!(drill.len(), 7, "{drill:?}");
    for shell in ["bash", "zsh", "fish"] {
        let o = testbed(&["completions", shell], None);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let s = text(&o.stdout);
        for c in top.iter().chain(&drill) {
            assert!(s.contains(c.as_str()), "{shell}: no {c}");
        }
        for w in [
            "state-root",
            "log",
            "json",
            "faults",
            "link-flap",
            "tx-fill",
        ] {
            assert!(s.contains(w), "{shell}: no {w}");
        }
        for h in ["completions", ",man)", " man ", "-a \"man\"", "'man:"] {
            assert!(!s.contains(h), "{shell} offers {h}");
        }
    }
    let zsh = text(&testbed(&["completions", "zsh"], None).stdout);
    assert!(zsh.contains(r#"((up\:"The link comes up""#), "{zsh}");

    let scratch = Dir::new("testbed-man");
    let dir = scratch.path("man1");
    let o = testbed(&["man", dir.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let page = |name: &str| -> String {
        std::fs::read_to_string(dir.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"))
    };
    let main = page("canopy-testbed");
    let th = format!(
        ".TH canopy-testbed 1 \" \" \"canopy-testbed {}\" Canopy",
        env!("CARGO_PKG_VERSION")
    );
    assert!(main.contains(&th), "{main}");
    for c in &top {
        let r = format!(r"canopy\-testbed\-{}(1)", c.replace('-', r"\-"));
        assert!(main.contains(&r), "the page does not mention {c}");
        let p = page(&format!("canopy-testbed-{c}"));
        // the global options, on every command's page
        assert!(
            p.contains(r"\-\-state\-root") && p.contains(r"\-\-log"),
            "{c}"
        );
    }
    for c in &drill {
        page(&format!("canopy-testbed-drill-{c}"));
    }
    assert!(page("canopy-testbed-status").contains(r"\-\-json"));
    // the one-line summary, then the details
    let up = page("canopy-testbed-up");
    assert!(up.contains("Build a fabric and wait until every switch is healthy"));
    assert!(up.contains("A failure rolls back everything created"));
    let export = commands(&["export", "--help"]);
    assert_eq!(export, ["containerlab", "dot"]);
    for c in &export {
        page(&format!("canopy-testbed-export-{c}"));
    }
    let n = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(n, 1 + top.len() + drill.len() + export.len());
    let o = testbed(&["man"], None);
    assert_eq!(text(&o.stdout), main);
}

/// An interval log with two tags, two intervals of `probe` (values in ns).
fn write_log(path: &Path) -> Vec<(String, Histogram<u64>)> {
    let hist = |values: &[u64]| {
        let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        for &v in values {
            h.record(v).unwrap();
        }
        h
    };
    let a = hist(&[1_000, 2_000, 3_000, 40_000]);
    let b = hist(&[5_000, 6_000]);
    let c = hist(&[100_000, 250_000, 900_000]);
    let entry = |tag: &str, start: u64, h: &Histogram<u64>| hlog::Entry {
        tag: tag.into(),
        start: Duration::from_secs(start),
        duration: Duration::from_secs(1),
        hist: h.clone(),
    };
    let log = hlog::write_log(
        &[],
        &[
            entry("probe", 0, &a),
            entry("bulk", 0, &c),
            entry("probe", 1, &b),
        ],
    )
    .unwrap();
    std::fs::write(path, log).unwrap();
    let mut ab = a.clone();
    ab.add(&b).unwrap();
    vec![("probe".into(), ab), ("bulk".into(), c)]
}

#[test]
fn latency_json_agrees_with_the_table() {
    let dir = Dir::new("testbed-latency");
    let log = dir.path("l.hlog");
    let want = write_log(&log);
    let log = log.to_str().unwrap();
    let o = testbed(&["latency", log], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    let o = testbed(&["latency", log, "--json"], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let rows = v.as_array().expect("an array");
    assert_eq!(rows.len(), want.len(), "{v}");
    assert_eq!(table.lines().count(), 1 + want.len(), "{table}");
    for ((tag, h), (row, line)) in want.iter().zip(rows.iter().zip(table.lines().skip(1))) {
        let l = canopy_testbed::traffic::rx::latency_summary(h);
        assert_eq!(row["tag"], tag.as_str());
        assert_eq!(row["intervals"], if tag == "probe" { 2 } else { 1 });
        assert_eq!(row["count"], l.count);
        for (k, ns) in [
            ("min_ns", l.min_ns),
            ("p50_ns", l.p50_ns),
            ("p90_ns", l.p90_ns),
            ("p99_ns", l.p99_ns),
            ("p999_ns", l.p999_ns),
            ("max_ns", l.max_ns),
        ] {
            assert_eq!(row[k], ns, "{tag} {k}: {row}");
        }
        // the text row: tag, intervals, count, then the same six in µs
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[0], tag.as_str(), "{line}");
        assert_eq!(cols[1], row["intervals"].to_string(), "{line}");
        assert_eq!(cols[2], l.count.to_string(), "{line}");
        assert_eq!(cols[3..], latency::cells(&l), "{line}");
    }
    // --tag: that tag only
    let o = testbed(&["latency", log, "--json", "--tag", "bulk"], None);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v[0]["tag"], "bulk");
}

/// The text rows of `status`, by switch: (pid, tables, health).
fn status_rows(out: &str) -> Vec<(String, String, String, String)> {
    out.lines()
        .skip(1)
        .take_while(|l| !l.contains(" switch(es), "))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (c[0].into(), c[2].into(), c[3].into(), c[4].into())
        })
        .collect()
}

#[test]
fn status_and_down_json_agree_with_the_text() {
    if !root_or_skip("status_and_down_json_agree_with_the_text") {
        return;
    }
    let f = Fab::named("ccli", "j");
    let d = f.desc("fabric.toml", "topology = \"fat-tree:k=2\"\n");
    f.up(&d, &[]);
    let check = |healthy: bool| {
        let t = f.run(&["status", &f.name]);
        let j = f.run(&["status", &f.name, "--json"]);
        assert_eq!(t.status.success(), healthy, "{}", text(&t.stdout));
        assert_eq!(j.status.code(), t.status.code());
        let v: Value = serde_json::from_slice(&j.stdout).expect("status --json");
        let rows = status_rows(&text(&t.stdout));
        let sw = v["switches"].as_array().expect("switches");
        assert_eq!(sw.len(), 5, "{v}");
        assert_eq!(rows.len(), sw.len(), "{}", text(&t.stdout));
        for (r, s) in rows.iter().zip(sw) {
            assert_eq!(s["name"], r.0.as_str());
            assert_eq!(s["pid"].to_string(), r.1);
            assert_eq!(s["tables"], r.2.as_str());
            assert_eq!(s["state"], r.3.to_lowercase(), "{s}");
            assert_eq!(s["target"], "canopy");
            let ports = s["health"]["ports"].as_array().expect("health").len();
            let up = s["ports_up"].as_u64().unwrap() as usize;
            assert_eq!(s["state"] == "ok", up == ports, "{s}");
        }
        let ok_rows = rows.iter().filter(|r| r.3 == "ok").count();
        assert_eq!(v["healthy"], ok_rows);
        assert!(text(&t.stdout).contains(&format!("5 switch(es), {ok_rows} healthy")));
        assert_eq!(v["daemon"]["ready"], true, "{v}");
        assert_eq!(v["daemon"]["switches"], 5, "{v}");
        assert_eq!(v["ok"], healthy);
        v
    };
    check(true);
    // a host port down: that switch is degraded, and so is the fabric
    let st = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("local")).unwrap();
    let edge = st.switches.iter().find(|s| s.name == "edge-p0-e0").unwrap();
    canopy_testbed::fabric::mgmt::set_port(&edge.mgmt(), 0, false, Duration::from_secs(2)).unwrap();
    let v = check(false);
    let bad: Vec<&Value> = v["switches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] != "ok")
        .collect();
    assert_eq!(bad.len(), 1, "{v}");
    assert_eq!(bad[0]["name"], "edge-p0-e0");
    assert_eq!(bad[0]["state"], "degraded");
    // the switch processes (one, when a shared host runs them all) and canopyd
    let mut pids: Vec<u64> = v["switches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["pid"].as_u64().unwrap())
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids.push(v["daemon"]["pid"].as_u64().unwrap());
    // down --json: what was removed, and nothing on stdout but the JSON
    let o = f.run(&["down", &f.name, "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).expect("down --json");
    assert_eq!(v["fabric"], f.name.as_str());
    assert_eq!(v["processes"], pids.len(), "{v}");
    assert!(v["namespaces"].as_u64().unwrap() >= 5 + 2, "{v}");
    assert_eq!(v["state_dirs"], 1, "{v}");
    f.assert_clean();
}
