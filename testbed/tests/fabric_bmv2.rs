//! The bmv2 target (`target = "bmv2"`, `docs/testbed.md`): the same k=4 fabric with one
//! `simple_switch` per switch, running `p4/canopy.p4` with the entries `canopyctl
//! p4-entries` generates; every host pair checked and a short run without loss or
//! misdelivery. Needs root, `p4c`, `simple_switch`, `simple_switch_CLI` and the P4
//! program; skips with a message naming what is missing otherwise.

mod fabric_common;

use fabric_common::{root_or_skip, testbed_bin, Fab};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What the bmv2 target lacks here (None: everything is present).
fn missing() -> Option<String> {
    let mut m: Vec<String> = ["p4c", "simple_switch", "simple_switch_CLI"]
        .iter()
        .filter(|t| canopy_testbed::netns::which(t).is_none())
        .map(|t| t.to_string())
        .collect();
    if !repo().join("p4/canopy.p4").is_file() {
        m.push("p4/canopy.p4".into());
    }
    let ctl = testbed_bin().parent().unwrap().join("canopyctl");
    let has_entries = std::process::Command::new(&ctl)
        .args(["p4-entries", "--help"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_entries {
        m.push("canopyctl p4-entries".into());
    }
    (!m.is_empty()).then(|| m.join(", "))
}

#[test]
fn bmv2_fabric_checks_every_pair_and_runs_traffic() {
    if !root_or_skip("bmv2_fabric_checks_every_pair_and_runs_traffic") {
        return;
    }
    if let Some(m) = missing() {
        eprintln!(
            "SKIP bmv2_fabric_checks_every_pair_and_runs_traffic: missing {m} (installing p4c and bmv2: docs/p4-install.md)"
        );
        return;
    }
    for kind in ["sliced", "path-id"] {
        let f = Fab::new(if kind == "sliced" { "bs" } else { "bp" });
        let d = f.desc(
            "fabric.toml",
            &format!(
                "kind = \"{kind}\"\ntarget = \"bmv2\"\n[bmv2]\nprogram = \"{}\"\n",
                repo().join("p4/canopy.p4").display()
            ),
        );
        let out = f.run(&["up", d.to_str().unwrap()]);
        assert!(out.status.success(), "up ({kind}) failed");
        assert!(String::from_utf8_lossy(&out.stdout).contains("20 bmv2 simple_switch"));
        let st = f.run(&["status", &f.name]);
        assert!(st.status.success(), "status ({kind})");
        let c = f.run(&["check", &f.name]);
        assert!(
            c.status.success(),
            "check ({kind}) failed: {}",
            String::from_utf8_lossy(&c.stdout)
        );
        let o = f.dir.join("run");
        let r = f.run(&[
            "run",
            &f.name,
            "--rate",
            "1kpps",
            "--duration-s",
            "1",
            "--quiet",
            "--out",
            o.to_str().unwrap(),
        ]);
        assert!(r.status.success(), "run ({kind}) failed");
        let res: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(o.join("results.json")).unwrap())
                .unwrap();
        let t = &res["trials"][0];
        assert_eq!(t["misdelivered"], 0, "{t}");
        assert_eq!(t["lost"], 0, "{t}");
        assert!(t["sent"].as_u64().unwrap() >= 900, "{t}");
        f.down();
        f.assert_clean();
    }
}
