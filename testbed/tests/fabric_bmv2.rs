//! The bmv2 target (`target = "bmv2"`, `docs/testbed.md`): the same k=4 fabric with one
//! `simple_switch` per switch, running `p4/canopy.p4` with the entries `canopyctl
//! p4-entries` generates; every host pair checked, a short run without loss or
//! misdelivery, and a soak above bmv2's rate whose accounting names where every frame
//! went (late deliveries, and what `simple_switch`'s receive sockets and queues lose
//! without counting it, inferred). Needs root, `p4c`, `simple_switch`, `simple_switch_CLI` and the P4
//! program; skips with a message naming what is missing otherwise.

mod fabric_common;

use fabric_common::{assert_accounted, root_or_skip, soak, testbed_bin, Fab};
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
        .filter(|t| canopy_testbed::os::netns::which(t).is_none())
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
        let up = String::from_utf8_lossy(&out.stdout);
        assert!(up.contains("20 bmv2 simple_switch"), "{up}");
        // which simple_switch, and how it was built, read from the binary
        let build = up
            .lines()
            .find(|l| l.starts_with("bmv2       "))
            .unwrap_or_else(|| panic!("no build line: {up}"));
        assert!(
            build.contains("simple_switch: ") && build.contains(" build ("),
            "{build}"
        );
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
        let res: serde_json::Value = fabric_common::results(&o);
        assert_eq!(
            res["meta"]["target_build"].as_str(),
            build.strip_prefix("bmv2").map(str::trim),
            "the run records the build up found"
        );
        let t = &res["trials"][0];
        assert_eq!(t["misdelivered"], 0, "{t}");
        assert_eq!(t["lost"], 0, "{t}");
        assert!(t["sent"].as_u64().unwrap() >= 900, "{t}");
        // the program's port counters: every switch read, rx = tx + drops exactly, no
        // drops, and the generator's frames on the host links
        let sw = res["switches"].as_array().expect("switch counters");
        assert_eq!(sw.len(), 20, "{sw:?}");
        for s in sw {
            assert_eq!(s["conserved"], true, "{s}");
            assert!(s.get("unchecked").is_none(), "{s}");
            assert_eq!(s["drops"], serde_json::json!({}), "{s}");
        }
        let rx: u64 = sw.iter().map(|s| s["rx"].as_u64().unwrap()).sum();
        assert!(
            rx >= 3 * t["sent"].as_u64().unwrap(),
            "{rx} switch receptions"
        );
        let links = res["links"].as_array().expect("link loads");
        let host_links: u64 = links
            .iter()
            .filter(|l| l["tier"] == "host-edge")
            .map(|l| l["frames_ab"].as_u64().unwrap() + l["frames_ba"].as_u64().unwrap())
            .sum();
        assert!(
            host_links >= 2 * t["received"].as_u64().unwrap(),
            "host links carried {host_links}: {links:?}"
        );
        if kind == "sliced" {
            // three IPv4 frames from h0 among 15 sliced ones: dropped at its edge switch
            // as not_canopy, and nowhere else
            let file = f.dir.join("ipv4.pcap");
            assert_eq!(fabric_common::crafted_pcap(&file, 1, 3), 15);
            let ro = f.dir.join("replay");
            let r = f.replay(&file, "0", "200", &ro);
            assert!(r.status.success(), "replay failed");
            let res: serde_json::Value = fabric_common::results(&ro);
            for s in res["switches"].as_array().expect("switch counters") {
                assert_eq!(s["conserved"], true, "{s}");
                let want = if s["name"] == "edge-p0-e0" {
                    serde_json::json!({"not_canopy": 3})
                } else {
                    serde_json::json!({})
                };
                assert_eq!(s["drops"], want, "{s}");
            }
            // above what bmv2 forwards: frames wait in its queues and its sockets, some
            // are lost there, some arrive after the trial; every one is accounted for
            let (ok, r) = soak(
                &f,
                &f.dir.join("soak"),
                &["--rate", "5kpps", "--duration", "3s"],
            );
            assert_accounted("bmv2 soak", ok, &r, (20, 80), false);
        }
        f.down();
        f.assert_clean();
    }
}
