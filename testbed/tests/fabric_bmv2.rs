//! The bmv2 target (`target = "bmv2"`, `docs/testbed.md`): the same k=4 fabric with one
//! bmv2 switch per switch, running `p4/canopy.p4`.
//!
//! - Without canopyd, one `simple_switch` per switch programmed with the entries
//!   `canopyctl p4-entries` generates: every host pair checked, a short run without loss
//!   or misdelivery, and a soak above bmv2's rate whose accounting names where every
//!   frame went (late deliveries, and what `simple_switch`'s receive sockets and queues
//!   lose without counting it, inferred). Needs `p4c`, `simple_switch`,
//!   `simple_switch_CLI` and the P4 program.
//! - Under canopyd, one `simple_switch_grpc` per switch, programmed and followed over
//!   P4Runtime: every pair checked, a run with the counters read over P4Runtime, and the
//!   fault drills canopyd can follow on a P4Runtime target (a killed switch pruned
//!   around and programmed again when it restarts, a restarted canopyd that adopts what
//!   runs). Needs `p4c` and `simple_switch_grpc` (bmv2 built with PI).
//!
//! Both need root, and skip with a message naming what is missing otherwise.

mod fabric_common;

use fabric_common::{assert_accounted, root_or_skip, soak, testbed_bin, Fab};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What the bmv2 target lacks here, the tools `tools` among them (None: everything is
/// present).
fn missing(tools: &[&str]) -> Option<String> {
    let mut m: Vec<String> = tools
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
    if let Some(m) = missing(&["p4c", "simple_switch", "simple_switch_CLI"]) {
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
                "kind = \"{kind}\"\ntarget = \"bmv2\"\n[bmv2]\nprogram = \"{}\"\n\
                 [canopyd]\nenabled = false\nmetrics = \"off\"\n",
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

/// The host pairs of fabric `f` all deliver (`check`).
fn check_passes(f: &Fab, when: &str) {
    let c = f.run(&["check", &f.name]);
    assert!(
        c.status.success(),
        "check {when}: {}",
        String::from_utf8_lossy(&c.stdout)
    );
}

#[test]
fn bmv2_fabric_under_canopyd_is_programmed_and_followed_over_p4runtime() {
    let test = "bmv2_fabric_under_canopyd_is_programmed_and_followed_over_p4runtime";
    if !root_or_skip(test) {
        return;
    }
    if let Some(m) = missing(&["p4c", "simple_switch_grpc"]) {
        eprintln!("SKIP {test}: missing {m} (bmv2 with P4Runtime: docs/p4-install.md)");
        return;
    }
    let f = Fab::new("bg");
    let d = f.desc(
        "fabric.toml",
        &format!(
            "target = \"bmv2\"\n[bmv2]\nprogram = \"{}\"\n[canopyd]\nenabled = true\nmetrics = \"off\"\n",
            repo().join("p4/canopy.p4").display()
        ),
    );
    let out = f.run(&["up", d.to_str().unwrap()]);
    assert!(out.status.success(), "up failed");
    let up = String::from_utf8_lossy(&out.stdout);
    assert!(
        up.contains("20 bmv2 simple_switch_grpc, programmed and followed by canopyd"),
        "{up}"
    );
    assert!(up.contains("every table pushed"), "{up}");
    let st = f.run(&["status", &f.name]);
    let st = String::from_utf8_lossy(&st.stdout);
    assert!(st.contains("programmed by canopyd over P4Runtime"), "{st}");
    check_passes(&f, "after up");
    // the counters, read over P4Runtime beside canopyd: every switch conserves
    let o = f.dir.join("run");
    let rate = ["--rate", "500pps", "--duration-s", "1", "--quiet", "--out"];
    let r = f.run(&[&["run", &f.name][..], &rate, &[o.to_str().unwrap()]].concat());
    assert!(r.status.success(), "run failed");
    let res: serde_json::Value = fabric_common::results(&o);
    let t = &res["trials"][0];
    assert_eq!(
        (t["lost"].as_u64(), t["misdelivered"].as_u64()),
        (Some(0), Some(0)),
        "{t}"
    );
    let sw = res["switches"].as_array().expect("switch counters");
    assert_eq!(sw.len(), 20, "{sw:?}");
    let rx: u64 = sw.iter().map(|s| s["rx"].as_u64().unwrap()).sum();
    assert!(
        rx >= 3 * t["sent"].as_u64().unwrap(),
        "{rx} switch receptions"
    );
    for s in sw {
        assert_eq!(s["conserved"], true, "{s}");
    }
    // a restarted switch has no pipeline: canopyd programs it again
    let r = f.run(&["drill", "--name", &f.name, "restart", "agg-p0-a0"]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{text}");
    assert!(text.contains("canopyd had pushed its tables"), "{text}");
    check_passes(&f, "after a restarted switch");
    // a dead switch is pruned around (its links stay up: only its silence tells)
    let r = f.run(&["drill", "--name", &f.name, "kill", "agg-p1-a1"]);
    assert!(r.status.success());
    std::thread::sleep(std::time::Duration::from_secs(3));
    check_passes(&f, "with agg-p1-a1 dead");
    let ctl = testbed_bin().parent().unwrap().join("canopyctl");
    let sock = f.root().join(&f.name).join("local/canopyd.sock");
    // canopyd's snapshot once it is ready (every switch runs its current tables)
    let ready = || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let o = std::process::Command::new(&ctl)
                .args([
                    "fabric",
                    "--daemon",
                    sock.to_str().unwrap(),
                    "status",
                    "--json",
                ])
                .output()
                .unwrap();
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
            if v["snapshot"]["ready"] == true || std::time::Instant::now() > deadline {
                assert_eq!(v["snapshot"]["ready"], true, "{v}");
                return v;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    let r = f.run(&["drill", "--name", &f.name, "start", "agg-p1-a1"]);
    assert!(r.status.success());
    ready();
    // a restarted canopyd adopts the pipelines and tables that run: nothing pushed
    for what in ["kill-daemon", "start-daemon"] {
        let r = f.run(&["drill", "--name", &f.name, what]);
        assert!(r.status.success(), "{what}");
    }
    let snap = ready();
    let switches = snap["snapshot"]["switches"].as_array().unwrap();
    let pushes: u64 = switches
        .iter()
        .map(|s| s["pushes_total"].as_u64().unwrap())
        .sum();
    assert_eq!(pushes, 0, "the restarted canopyd pushed: {snap}");
    check_passes(&f, "after canopyd restarted");
    f.down();
    f.assert_clean();
}
