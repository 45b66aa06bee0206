//! The P4Runtime output checked by `p4/p4runtime_check.py` (the official protos), and
//! with p4c on PATH, the requests for p4c's own P4Info.

use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_control::p4;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use rand::SeedableRng;
use serde_json::{json, Value};

use crate::cli::{canopyctl, TempDir};
use crate::expected::{check_lpm_semantics, check_model};
use crate::p4_common::{tables, SPECS};
use crate::replay::replay_p4rt;
use crate::synth::synth_all;

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Why the Python checker cannot run here (python3 or the `p4runtime` module missing).
fn checker_missing() -> Option<String> {
    let probe = "import os; os.environ['PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION'] = 'python'; \
                 from p4.v1 import p4runtime_pb2; from p4.config.v1 import p4info_pb2";
    match Command::new("python3").args(["-c", probe]).output() {
        Err(e) => Some(format!("python3 not runnable ({e})")),
        Ok(o) if !o.status.success() => Some(format!(
            "python3 has no `p4runtime` module (pip install -r p4/ptf/requirements.txt): {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Ok(_) => None,
    }
}

/// Run p4/p4runtime_check.py; (exit code, stdout + stderr).
fn check(p4info: &Path, reqs: &[PathBuf]) -> (i32, String) {
    let o = Command::new("python3")
        .arg(repo_file("p4/p4runtime_check.py"))
        .arg(p4info)
        .args(reqs)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

/// Index of the first update writing `table` (a default if `default`).
fn update_of(req: &Value, info: &p4::P4Info, table: &str, default: bool) -> usize {
    let id = info
        .tables
        .iter()
        .find(|t| t.preamble.name == format!("CanopyIngress.{table}"))
        .unwrap()
        .preamble
        .id;
    req["updates"]
        .as_array()
        .unwrap()
        .iter()
        .position(|u| {
            let t = &u["entity"]["tableEntry"];
            t["tableId"] == id && (t["isDefaultAction"] == true) == default
        })
        .unwrap_or_else(|| panic!("no update of {table}"))
}

/// A change to a request that the checker must refuse.
type Mutation = Box<dyn Fn(&mut Value)>;

/// A mutation that sets (or adds) the member at a JSON pointer.
fn set(ptr: String, x: Value) -> Mutation {
    Box::new(move |r: &mut Value| {
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        match r.pointer_mut(parent).unwrap() {
            Value::Object(o) => {
                o.insert(key.to_string(), x.clone());
            }
            Value::Array(a) => a[key.parse::<usize>().unwrap()] = x.clone(),
            other => panic!("{ptr}: {other}"),
        }
    })
}

/// The mutations of `req` the checker must refuse: what each is, the update the checker
/// must name, the class it must report, and the change.
fn mutations(req: &Value, info: &p4::P4Info) -> Vec<(&'static str, usize, &'static str, Mutation)> {
    let lpm = update_of(req, info, "pathid_lpm", false);
    let port = update_of(req, info, "canopy_port", false);
    let cfg = update_of(req, info, "pathid_cfg", true);
    let te = |i: usize| format!("/updates/{i}/entity/tableEntry");
    let other_action = info
        .actions
        .iter()
        .find(|a| a.preamble.name == "CanopyIngress.to_port")
        .unwrap()
        .preamble
        .id;
    let n = req["updates"].as_array().unwrap().len();
    vec![
        (
            "wrong table id",
            port,
            "[table]",
            set(te(port) + "/tableId", json!(4242)),
        ),
        (
            "an action of another table",
            port,
            "[action]",
            set(te(port) + "/action/action/actionId", json!(other_action)),
        ),
        (
            "the same entry twice",
            n,
            "[entry]",
            Box::new(move |r: &mut Value| {
                let u = r["updates"][port].clone();
                r["updates"].as_array_mut().unwrap().push(u);
            }),
        ),
        (
            "wrong field id",
            port,
            "[match]",
            set(te(port) + "/match/0/fieldId", json!(9)),
        ),
        (
            "wrong action id",
            port,
            "[action]",
            set(te(port) + "/action/action/actionId", json!(4242)),
        ),
        (
            "non-canonical value (a leading zero byte)",
            port,
            "[bytes]",
            set(te(port) + "/match/0/exact/value", json!("AAE=")),
        ),
        (
            "value wider than the field (512 in 9 bits)",
            port,
            "[bytes]",
            set(te(port) + "/match/0/exact/value", json!("AgA=")),
        ),
        (
            "empty byte string",
            port,
            "[bytes]",
            set(te(port) + "/action/action/params/0/value", json!("")),
        ),
        (
            "missing priority",
            lpm,
            "[priority]",
            Box::new(move |r: &mut Value| {
                r.pointer_mut(&te(lpm))
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("priority");
            }),
        ),
        (
            "priority on an exact table",
            port,
            "[priority]",
            set(te(port) + "/priority", json!(3)),
        ),
        (
            "ternary mask 0 (don't care must be omitted)",
            lpm,
            "[match]",
            set(te(lpm) + "/match/0/ternary/mask", json!("AA==")),
        ),
        (
            "default entry as INSERT",
            cfg,
            "[default]",
            set(format!("/updates/{cfg}/type"), json!("INSERT")),
        ),
        (
            "missing parameter",
            port,
            "[param]",
            Box::new(move |r: &mut Value| {
                r.pointer_mut(&(te(port) + "/action/action/params"))
                    .unwrap()
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
        ),
    ]
}

/// The checker accepts the generator's requests and fails on each kind of mutation, naming
/// the class and the update index. Needs python3 and the `p4runtime` module (not p4c: the
/// P4Info is the made-up one).
#[test]
fn the_checker_rejects_mutated_requests() {
    if let Some(why) = checker_missing() {
        eprintln!("SKIP the_checker_rejects_mutated_requests: {why}");
        return;
    }
    let dir = TempDir::new("mut");
    let (v, info) = synth_all();
    let p4info = dir.write("synth.p4info.json", &v);
    let sw = &tables("fat-tree:k=4", Kind::PathId, None)[0];
    let req = p4::p4runtime(&sw.name, &p4::entries(sw).unwrap(), &info, 0).unwrap();
    let ok = dir.write("ok.json", &req);
    let (code, out) = check(&p4info, std::slice::from_ref(&ok));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": ok: device 0,"), "{out}");

    for (what, idx, class, mutate) in mutations(&req, &info) {
        let mut bad = req.clone();
        mutate(&mut bad);
        let f = dir.write("bad.json", &bad);
        let (code, out) = check(&p4info, &[f]);
        assert_eq!(code, 1, "{what}: {out}");
        assert!(
            out.contains(&format!("update {idx}: {class}")),
            "{what}: expected {class} at update {idx}: {out}"
        );
        assert!(out.contains("FAIL"), "{what}: {out}");
    }
    // an unknown member: json_format.Parse refuses the request
    let mut bad = req.clone();
    bad["comments"] = json!(["x"]);
    let f = dir.write("bad.json", &bad);
    let (code, out) = check(&p4info, &[f]);
    assert_eq!(code, 2, "{out}");
}

/// The switches `p4runtime_requests_of_every_switch_pass_the_checker` programs:
/// every switch of fat-tree:k=4 (sliced, path-ID) and transit-hybrid:leaf=12;layers=1,
/// and a few znode switches in each sliced mode.
fn p4c_cases() -> Vec<(&'static str, Kind, Option<Mode>, Vec<String>)> {
    let mut out = Vec::new();
    for &(spec, kind, mode) in SPECS {
        let names: Vec<String> = tables(spec, kind, mode)
            .into_iter()
            .map(|s| s.name)
            .collect();
        let names = if spec.starts_with("znode") {
            let step = (names.len() / 4).max(1);
            names.into_iter().step_by(step).collect()
        } else {
            names
        };
        out.push((spec, kind, mode, names));
    }
    out
}

/// With p4c on PATH: compile p4/canopy.p4 with `--p4runtime-files x.json`, run the real
/// `canopyctl p4-entries --format p4runtime --p4info x.json` for each switch of
/// [`p4c_cases`], replay every request through the real P4Info into the switch's tables,
/// and (with python3 and the `p4runtime` module) run p4/p4runtime_check.py on all of them.
#[test]
fn p4runtime_requests_of_every_switch_pass_the_checker() {
    if Command::new("p4c").arg("--version").output().is_err() {
        eprintln!("SKIP p4runtime_requests_of_every_switch_pass_the_checker: p4c not on PATH");
        return;
    }
    let dir = TempDir::new("p4c");
    let p4info = dir.0.join("canopy.p4info.json");
    let o = Command::new("p4c")
        .args(["--target", "bmv2", "--arch", "v1model", "--p4runtime-files"])
        .arg(&p4info)
        .arg("-o")
        .arg(&dir.0)
        .arg(repo_file("p4/canopy.p4"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "p4c: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let info = p4::P4Info::load(&p4info).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut files = Vec::new();
    for (spec, kind, mode, names) in p4c_cases() {
        let all = tables(spec, kind, mode);
        for name in names {
            let mut args = vec![
                "p4-entries",
                spec,
                "--kind",
                kind.name(),
                "--switch",
                &name,
                "--format",
                "p4runtime",
                "--p4info",
                p4info.to_str().unwrap(),
            ];
            let m = mode.map(|m| m.name());
            if let Some(m) = &m {
                args.extend(["--mode", m]);
            }
            let o = canopyctl(&args);
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let req: Value = serde_json::from_slice(&o.stdout).unwrap();
            let sw = all.iter().find(|s| s.name == name).unwrap();
            let what = format!("{spec} {kind:?} {mode:?} p4runtime with p4c's P4Info");
            let model = replay_p4rt(&req, &info);
            check_model(sw, &model, &what);
            // hop records carry the switch's index in its topology, as canopy-switch's do
            let index = all.iter().position(|s| s.name == name).unwrap() as u64;
            assert_eq!(model.hop_switch, Some(index), "{what}: hop_cfg of {name}");
            check_lpm_semantics(sw, &model, false, &mut rng);
            let f = dir.0.join(format!("req-{}.json", files.len()));
            std::fs::write(&f, &o.stdout).unwrap();
            files.push(f);
        }
    }
    assert!(files.len() > 40, "{} requests", files.len());
    eprintln!(
        "{} requests replayed through p4c's P4Info ({})",
        files.len(),
        p4info.display()
    );
    if let Some(why) = checker_missing() {
        eprintln!("SKIP the p4runtime_check.py part of this test: {why}");
        return;
    }
    let (code, out) = check(&p4info, &files);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches(": ok: ").count(), files.len(), "{out}");
}
