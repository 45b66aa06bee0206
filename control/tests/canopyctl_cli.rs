//! `canopyctl`'s command-line conventions: closed sets of values checked by clap (exit
//! status 2, the possible values named in the error and in `--help`), one-line command
//! summaries, and `--json` output that agrees with the text views.

use serde_json::Value;
use std::process::Command;

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn canopyctl(args: &[&str]) -> Run {
    let o = Command::new(env!("CARGO_BIN_EXE_canopyctl"))
        .args(args)
        .output()
        .expect("run canopyctl");
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `canopyctl ARGS`, which must succeed.
fn ok(args: &[&str]) -> String {
    let r = canopyctl(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.err);
    r.out
}

/// `canopyctl ARGS --json`, which must succeed and print one JSON value.
fn json(args: &[&str]) -> Value {
    let out = ok(&[args, &["--json"]].concat());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

/// The value after `key` on the text line that starts with `key` (followed by a space).
fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key).filter(|r| r.starts_with(' ')))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{out}"))
        .trim()
}

/// The leading number of [`field`].
fn number(out: &str, key: &str) -> u64 {
    let v = field(out, key);
    v.split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("`{key}` is not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

const KINDS: &str = "[possible values: sliced, transit, path-id]";
const MODES: &str = "[possible values: sliced, flat, srcdst, dst]";
const FORMATS: &str = "[possible values: bmv2-cli, p4runtime, bfrt-python]";
const PATTERNS: &str = "[possible values: uniform]";
const STATES: &str = "[possible values: up, down]";

#[test]
fn a_value_outside_a_closed_set_exits_2_naming_the_possible_values() {
    let header = ["header", "fat-tree:k=4", "--src", "h0", "--dst", "h1"];
    for (args, arg, want) in [
        (
            [&header[..], &["--kind", "bogus"]].concat(),
            "'--kind <KIND>'",
            KINDS,
        ),
        (
            vec![
                "check",
                "fat-tree:k=4",
                "-k",
                "sliced",
                "--mode",
                "diagonal",
            ],
            "'--mode <MODE>'",
            MODES,
        ),
        (
            vec!["tables", "fat-tree:k=4", "-k", "sliced-ish"],
            "'--kind <KIND>'",
            KINDS,
        ),
        (
            vec![
                "p4-entries",
                "fat-tree:k=4",
                "-k",
                "sliced",
                "--switch",
                "edge-p0-e0",
                "--format",
                "yaml",
            ],
            "'--format <FORMAT>'",
            FORMATS,
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
            "'--pattern <PATTERN>'",
            PATTERNS,
        ),
        (
            vec![
                "fabric",
                "--daemon",
                "/nonexistent",
                "port",
                "sw",
                "0",
                "sideways",
            ],
            "'<STATE>'",
            STATES,
        ),
    ] {
        let r = canopyctl(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(
            r.err.contains("error: invalid value '"),
            "{args:?}: {}",
            r.err
        );
        assert!(r.err.contains(arg), "{args:?}: {}", r.err);
        assert!(r.err.contains(want), "{args:?}: {}", r.err);
        assert!(r.out.is_empty(), "{args:?}: {}", r.out);
    }
}

#[test]
fn mode_with_a_kind_other_than_sliced_is_a_usage_error() {
    for sub in ["header", "tables", "check", "p4-entries"] {
        let mut args = vec![sub, "fat-tree:k=4", "--kind", "path-id", "--mode", "dst"];
        match sub {
            "header" => args.extend(["--src", "h0", "--dst", "h1"]),
            "p4-entries" => args.extend(["--switch", "edge-p0-e0"]),
            _ => {}
        }
        let r = canopyctl(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.err);
        assert!(
            r.err
                .contains("--mode dst applies only to --kind sliced, not --kind path-id"),
            "{args:?}: {}",
            r.err
        );
        assert!(
            r.err.contains(&format!("Usage: canopyctl {sub} ")),
            "{args:?}: {}",
            r.err
        );
    }
    // with the sliced kind the mode is taken
    let v = json(&["check", "fat-tree:k=4", "--kind", "sliced", "--mode", "dst"]);
    assert_eq!(v["mode"], "dst");
    assert_eq!(v["failed"], 0);
}

#[test]
fn the_librarys_other_spellings_are_still_accepted() {
    // Kind::from_name and Mode::from_name take more than the listed names
    let v = json(&["tables", "fat-tree:k=4", "--kind", "pathid"]);
    assert_eq!(v["kind"], "path-id");
    let v = json(&[
        "tables",
        "fat-tree:k=4",
        "--kind",
        "sliced-flit",
        "--mode",
        "2",
    ]);
    assert_eq!(
        (&v["kind"], &v["mode"]),
        (&"sliced".into(), &"srcdst".into())
    );
}

#[test]
fn help_lists_the_possible_values() {
    for (args, wants) in [
        (vec!["header", "--help"], vec![KINDS, MODES]),
        (vec!["tables", "--help"], vec![KINDS, MODES]),
        (vec!["check", "-h"], vec![KINDS, MODES]),
        (vec!["p4-entries", "--help"], vec![KINDS, MODES, FORMATS]),
        (vec!["sim", "--help"], vec![KINDS, PATTERNS]),
        (vec!["fabric", "port", "--help"], vec![STATES]),
    ] {
        let out = ok(&args);
        for want in wants {
            assert!(out.contains(want), "{args:?} should list {want}:\n{out}");
        }
    }
}

/// The `Commands:` section of a help text: `(name, summary)` per line.
fn commands(help: &str) -> Vec<(String, String)> {
    let section = help
        .split("\nCommands:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no command list in:\n{help}"));
    section
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| {
            assert!(l.len() <= 100, "summary line too long ({}): {l}", l.len());
            let rest = l
                .strip_prefix("  ")
                .filter(|r| !r.starts_with(' '))
                .unwrap_or_else(|| panic!("not a command line (a wrapped summary?): {l:?}"));
            let (name, summary) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("no summary: {l:?}"));
            (name.to_string(), summary.trim().to_string())
        })
        .collect()
}

#[test]
fn command_lists_have_one_line_summaries_and_the_details_are_in_each_commands_help() {
    let top = commands(&ok(&["--help"]));
    let names: Vec<&str> = top.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "families",
            "topo",
            "address",
            "header",
            "tables",
            "p4-entries",
            "p4info",
            "p4-tna-entries",
            "check",
            "sim",
            "fabric",
            "help"
        ]
    );
    for (name, summary) in &top {
        // one sentence: no sentence break inside, and not empty
        assert!(!summary.is_empty(), "{name}");
        assert!(!summary.contains(". "), "{name}: {summary}");
    }
    let fabric = commands(&ok(&["fabric", "--help"]));
    assert_eq!(fabric.len(), 5, "{fabric:?}"); // status, counters, push, port, help
                                               // the detail is in the command's own long help, after its summary
    for (args, summary, detail) in [
        (
            vec!["help", "sim"],
            "Simulate the whole fabric in one process.",
            "per-switch conservation check (rx = tx + drops)",
        ),
        (
            vec!["sim", "--help"],
            "Simulate the whole fabric in one process.",
            "a progress line per second goes to stderr",
        ),
        (
            vec!["help", "p4-entries"],
            "Print one switch's table entries for the P4 programs.",
            "--format bfrt-python",
        ),
        (
            vec!["fabric", "help", "port"],
            "Set a port down or up.",
            "the fabric is pruned around the port first",
        ),
    ] {
        let out = ok(&args);
        assert!(out.starts_with(summary), "{args:?}:\n{out}");
        assert!(out.contains(detail), "{args:?}:\n{out}");
    }
}

#[test]
fn topo_json_agrees_with_the_text_summary() {
    let text = ok(&["topo", "fat-tree:k=4", "--summary"]);
    let v = json(&["topo", "fat-tree:k=4", "--summary"]);
    assert_eq!(
        v,
        json(&["topo", "fat-tree:k=4"]),
        "--summary is the default"
    );
    assert_eq!(v["topology"], "fat-tree:k=4");
    assert_eq!(u(&v["switches"]), 20);
    assert_eq!(u(&v["hosts"]), 16);
    for key in ["switches", "ports", "links", "hosts", "levels"] {
        assert_eq!(u(&v[key]), number(&text, key), "{key}");
    }
    assert_eq!(u(&v["host_ports"]), 16);
    let levels = v["by_level"].as_array().expect("by_level");
    assert_eq!(levels.len() as u64, u(&v["levels"]));
    let sum = |k: &str| levels.iter().map(|l| u(&l[k])).sum::<u64>();
    assert_eq!(sum("switches"), 20);
    assert_eq!(sum("ports"), u(&v["ports"]));
    assert_eq!(v["kinds"], serde_json::json!(["sliced", "path-id"]));
    assert_eq!(field(&text, "kinds"), "sliced, path-id");
    assert_eq!(v["znode"]["z"], serde_json::json!([2, 2, 4]));
}

#[test]
fn topo_list_json_has_every_switch_and_port_with_peers_that_point_back() {
    let text = ok(&["topo", "fat-tree:k=4", "--list"]);
    let v = json(&["topo", "fat-tree:k=4", "--list"]);
    let sw = v.as_array().expect("a list");
    let text_switches: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let names: Vec<&str> = sw.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, text_switches);
    assert_eq!(sw.len(), 20);
    let ports: usize = sw
        .iter()
        .map(|s| s["ports"].as_array().unwrap().len())
        .sum();
    assert_eq!(ports, text.lines().filter(|l| l.starts_with("  p")).count());
    assert_eq!(ports, 80);
    let mut hosts = 0;
    for (i, s) in sw.iter().enumerate() {
        assert_eq!(u(&s["index"]), i as u64);
        for (p, port) in s["ports"].as_array().unwrap().iter().enumerate() {
            assert_eq!(u(&port["port"]), p as u64);
            let peer = &port["peer"];
            match peer["type"].as_str() {
                Some("switch") => {
                    let far = &sw[u(&peer["index"]) as usize];
                    assert_eq!(far["name"], peer["name"]);
                    let back = &far["ports"][u(&peer["port"]) as usize]["peer"];
                    assert_eq!(back["type"], "switch");
                    assert_eq!((u(&back["index"]), u(&back["port"])), (i as u64, p as u64));
                }
                Some("host") => {
                    hosts += 1;
                    assert_eq!(port["role"], "down");
                }
                other => panic!("peer {other:?} of {}:p{p}", s["name"]),
            }
        }
    }
    assert_eq!(hosts, 16);
}

#[test]
fn tables_summary_json_agrees_with_the_text() {
    let args = ["tables", "fat-tree:k=4", "--kind", "path-id", "--summary"];
    let text = ok(&args);
    let v = json(&args);
    assert_eq!((&v["kind"], &v["mode"]), (&"path-id".into(), &Value::Null));
    for (key, line) in [
        ("id_bits", "id bits"),
        ("switches", "switches"),
        ("max_entries", "max entries"),
        ("total_entries", "total entries"),
    ] {
        assert_eq!(u(&v[key]), number(&text, line), "{key}");
    }
    assert_eq!(u(&v["switches"]), 20);
    assert!(
        field(&text, "max entries")
            .ends_with(&format!("(e.g. {})", v["max_switch"].as_str().unwrap())),
        "{text}"
    );
    let levels = v["by_level"].as_array().unwrap();
    let sum = |k: &str| levels.iter().map(|l| u(&l[k])).sum::<u64>();
    assert_eq!(sum("switches"), 20);
    assert_eq!(sum("total_entries"), u(&v["total_entries"]));
    // --switch prints the switch's tables as JSON either way
    let sw = [
        "tables",
        "fat-tree:k=4",
        "-k",
        "path-id",
        "--switch",
        "agg-p0-a0",
    ];
    assert_eq!(ok(&sw), ok(&[&sw[..], &["--json"]].concat()));
}

#[test]
fn check_json_agrees_with_the_text() {
    let args = ["check", "fat-tree:k=4", "--kind", "sliced"];
    let text = ok(&args);
    let v = json(&args);
    assert_eq!(
        text.lines().next().unwrap(),
        format!(
            "fat-tree:k=4: {} pairs, {} ok, {} failed",
            v["pairs"], v["ok"], v["failed"]
        )
    );
    assert_eq!(u(&v["pairs"]), 16 * 15);
    assert_eq!(u(&v["ok"]), 16 * 15);
    assert_eq!(v["failures"], serde_json::json!([]));
    let hops = v["hops"].as_object().unwrap();
    let hist: Vec<String> = hops.iter().map(|(h, n)| format!("{h}:{n}")).collect();
    assert_eq!(
        field(&text, "switch traversals (hops:pairs):"),
        hist.join(" ")
    );
    assert_eq!(hops.values().map(u).sum::<u64>(), u(&v["ok"]));
}

#[test]
fn families_address_and_header_json_agree_with_the_text() {
    let text = ok(&["families"]);
    let v = json(&["families"]);
    let names: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let fams = v.as_array().unwrap();
    assert_eq!(
        fams.iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        names
    );
    assert!(fams.iter().any(|f| f["example"] == "fat-tree:k=4"));

    let text = ok(&["address", "znode:z=3,2,3;m=2", "26", "h5"]);
    let v = json(&["address", "znode:z=3,2,3;m=2", "26", "h5"]);
    let hosts = v.as_array().unwrap();
    assert_eq!(hosts.len(), 2);
    assert_eq!(
        (&hosts[0]["host"], u(&hosts[0]["index"])),
        (&"h26".into(), 26)
    );
    assert_eq!(hosts[1]["host"], "h5");
    let rows = |h: &Value| -> Vec<(String, String)> {
        h["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().into(),
                    r["value"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    assert!(rows(&hosts[0]).contains(&("labels".into(), "(1;1,0,2)".into())));
    assert!(rows(&hosts[0]).contains(&("physical".into(), "42".into())));
    // the text view is the same rows, host by host
    let mut lines = Vec::new();
    for h in hosts {
        lines.push(format!("{:<14} {}", "host", h["host"].as_str().unwrap()));
        lines.push(format!("{:<14} {}", "index", h["index"]));
        lines.extend(rows(h).iter().map(|(k, v)| format!("{k:<14} {v}")));
        lines.push(String::new());
    }
    lines.pop();
    assert_eq!(text.lines().collect::<Vec<_>>(), lines);

    let args = [
        "header",
        "fat-tree:k=4",
        "--kind",
        "path-id",
        "--src",
        "h0",
        "--dst",
        "h15",
    ];
    let text = ok(&args);
    let v = json(&args);
    assert_eq!(v["header"].as_str(), text.lines().next());
    assert_eq!(v["trace"], Value::Null);
    let traced = [&args[..], &["--trace"]].concat();
    let text = ok(&traced);
    let v = json(&traced);
    assert_eq!(v["header"].as_str(), text.lines().next());
    assert_eq!(
        (&v["src"]["name"], &v["dst"]["index"]),
        (&"h0".into(), &15.into())
    );
    let t = &v["trace"];
    assert_eq!(t["ok"], true);
    assert_eq!(t["outcome"]["type"], "delivered");
    assert_eq!(u(&t["outcome"]["host"]), 15);
    let hops = t["hops"].as_array().unwrap();
    // the text's hop lines: "  1  edge-p0-e0  L1 in p0 (Down) -> out p2 (Up) ..."
    let text_hops: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" in p"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    let json_hops: Vec<&str> = hops.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(json_hops, text_hops);
    assert_eq!(hops.len(), 5);
    assert_eq!(hops[0]["egress_role"], "up");
    assert_eq!(hops[4]["egress_role"], "down");
}

#[test]
fn sim_json_is_the_final_report_and_progress_stays_on_stderr() {
    let r = canopyctl(&[
        "sim",
        "fat-tree:k=4",
        "--kind",
        "sliced",
        "--seconds",
        "1.1",
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    let v: Value = serde_json::from_str(&r.out).unwrap_or_else(|e| panic!("{e}\n{}", r.out));
    assert_eq!((u(&v["switches"]), u(&v["hosts"])), (20, 16));
    assert_eq!(
        (&v["kind"], &v["pattern"]),
        (&"sliced".into(), &"uniform".into())
    );
    let (sent, delivered) = (u(&v["sent"]), u(&v["delivered"]));
    let (mis, dropped) = (u(&v["misdelivered"]), u(&v["dropped"]));
    assert!(delivered > 1000, "{v}");
    assert_eq!(mis, 0);
    assert_eq!(sent, delivered + mis + dropped);
    let by_reason: u64 = v["drops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| u(&d["frames"]))
        .sum();
    assert_eq!(by_reason, dropped);
    assert_eq!(v["conserved"], true);
    assert_eq!(v["conservation_failures"], serde_json::json!([]));
    let secs = v["elapsed_seconds"].as_f64().unwrap();
    let mpps = v["mpps"].as_f64().unwrap();
    assert!(secs >= 1.0, "{v}");
    assert!(
        (mpps - delivered as f64 / secs / 1e6).abs() < 1e-9 * mpps.max(1.0),
        "{v}"
    );
    let per = v["traversals_per_frame"].as_f64().unwrap();
    assert!((1.0..=5.0).contains(&per), "{v}");
    // the run's description and the progress line went to stderr
    assert!(
        r.err
            .contains("fabric     fat-tree:k=4 (20 switches, 16 hosts)"),
        "{}",
        r.err
    );
    assert!(r.err.contains("Mpps over the last second"), "{}", r.err);
}

#[test]
fn p4info_writes_the_programs_p4info_that_p4_entries_resolves_through() {
    let text = ok(&["p4info"]);
    let v: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["pkgInfo"]["arch"], "v1model");
    let names: Vec<&str> = v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["preamble"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"CanopyIngress.pathid_lpm"), "{names:?}");
    let drops = v["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["preamble"]["name"] == "CanopyIngress.canopy_drops")
        .expect("the drop counter");
    assert_eq!(drops["spec"]["unit"], "PACKETS");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("canopy.p4info.json");
    std::fs::write(&path, &text).unwrap();
    let req: Value = serde_json::from_str(&ok(&[
        "p4-entries",
        "fat-tree:k=4",
        "--kind",
        "path-id",
        "--switch",
        "agg-p0-a0",
        "--format",
        "p4runtime",
        "--p4info",
        path.to_str().unwrap(),
    ]))
    .unwrap();
    assert!(req["updates"].as_array().unwrap().len() > 5, "{req}");
}
