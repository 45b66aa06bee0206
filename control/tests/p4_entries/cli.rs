//! `canopyctl p4-entries` prints what the library computes and refuses bad input with an
//! error, not a panic.

use std::path::PathBuf;
use std::process::Command;

use canopy_control::p4;
use canopy_dataplane::wire::Kind;
use serde_json::Value;

use crate::p4_common::tables;
use crate::synth::synth_all;

pub(crate) fn canopyctl(args: &[&str]) -> std::process::Output {
    Command::new(canopy_test_utils::bin("canopyctl"))
        .args(args)
        .output()
        .unwrap()
}

/// A directory under the system temp dir, removed on drop (also when a test fails).
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("prt-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    pub(crate) fn write(&self, name: &str, v: &Value) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn cli_prints_the_library_output() {
    let spec = "fat-tree:k=4";
    let t = tables(spec, Kind::PathId, None);
    let sw = &t[0];
    let mut ops = p4::entries(sw).unwrap();
    // switch 0 of the topology: the hop records' switch id comes last
    ops.push(p4::hop_switch(0));
    let base = [
        "p4-entries",
        spec,
        "--kind",
        "path-id",
        "--switch",
        &sw.name,
    ];
    let o = canopyctl(&[&base[..], &["--format", "bmv2-cli"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.ends_with(&p4::bmv2_cli(&ops)));
    assert!(out.contains(p4::DROP_COUNTER));

    let dir = TempDir::new("cli");
    let (v, info) = synth_all();
    let path = dir.write("synth.p4info.json", &v);
    let path = path.to_str().unwrap();
    let o = canopyctl(
        &[
            &base[..],
            &[
                "--format",
                "p4runtime",
                "--p4info",
                path,
                "--device-id",
                "3",
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got, p4::p4runtime(&sw.name, &ops, &info, 3).unwrap());
    assert_eq!(got["deviceId"], "3");
    // the comments (drop counter) go to stderr, stdout is the bare WriteRequest
    assert!(String::from_utf8_lossy(&o.stderr).contains(p4::DROP_COUNTER));

    // p4runtime without a P4Info: refused, saying how to get one
    let o = canopyctl(&[&base[..], &["--format", "p4runtime"]].concat());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--p4info") && err.contains("--p4runtime-files"),
        "{err}"
    );
    // the text form of the P4Info: refused, asking for the JSON form
    let o = canopyctl(&[&base[..], &["--format", "p4runtime", "--p4info", "x.txtpb"]].concat());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a JSON P4Info") && err.contains(".json"),
        "{err}"
    );
    // a P4Info without a table the entries need: a typed error naming it
    let mut small = v.clone();
    small["tables"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["preamble"]["name"] != "CanopyIngress.pathid_lpm");
    let path = dir.write("small.p4info.json", &small);
    let o = canopyctl(
        &[
            &base[..],
            &["--format", "p4runtime", "--p4info", path.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("table CanopyIngress.pathid_lpm is not in the P4Info")
            && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn cli_rejects_bad_input_without_panicking() {
    for line in [
        "p4-entries fat-tree:k=4 --kind sliced --switch nope",
        "p4-entries fat-tree:k=4 --kind sliced --switch edge-p0-e0 --format yaml",
        "p4-entries fat-tree:k=4 --kind path-id --switch edge-p0-e0 --mode dst",
        "p4-entries fat-tree:k=4 --kind bogus --switch x",
        "p4-entries fat-tree:k=4 --kind sliced --switch edge-p0-e0 --format p4runtime --p4info /nonexistent/canopy.p4info.json",
        "p4-entries fat-tree:k=4 --kind sliced --switch edge-p0-e0 --p4info /nonexistent/canopy.p4info.json",
    ] {
        let args: Vec<&str> = line.split(' ').collect();
        let o = canopyctl(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.is_empty());
    }
}
