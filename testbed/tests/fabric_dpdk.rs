//! `dpdk` ports in whole fabrics (root; fabrics named `fdk<pid><tag>`).
//!
//! `dpdk_and_kernel_backends_in_one_fabric`: a k=2 fat-tree whose aggregation switches
//! are on DPDK (the af_packet vdev over their veths; one port with two queues), the edge
//! switches on AF_PACKET and the core switch on AF_XDP (SKB). Every pair is delivered, a
//! fixed-rate run loses nothing and every switch conserves frames, an overload's soak
//! accounts for every frame (what the af_packet PMD's RX rings lose, which it does not
//! count, inferred from their interfaces and named), each dpdk switch is
//! its own EAL (`/var/run/dpdk/canopy<pid>`) and takes no more huge pages than `up`
//! estimated; after `down` (one dpdk switch killed with SIGKILL first) no namespace,
//! process or EAL runtime directory is left. Needs
//! root, free huge pages and a `canopy-switch` built with the `dpdk` feature next to the
//! testbed (`cargo test --workspace --all-features`, or `cargo build -p canopy-switch
//! --features dpdk` first); skipped with a message otherwise.
//!
//! `dpdk_is_refused_early_when_the_switch_cannot_have_it` (root only): with a switch
//! binary that refuses `dpdk` (exit 2, as one built without the feature does) or with
//! too few free huge pages for the fabric, `up` fails with the message and the fix
//! before anything is created, and leaves nothing.
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{overload_soak, root_or_skip, run_mixed_backends, switch_bin, Fab};
use std::path::{Path, PathBuf};
use std::time::Duration;

const MIXED: &str = r#"topology = "fat-tree:k=2"
[ports]
backend = "dpdk"
[[ports.override]]
switch = "edge-*"
backend = "afpacket"
[[ports.override]]
switch = "core-*"
backend = "afxdp"
mode = "skb"
[[ports.override]]
switch = "agg-p1-*"
port = 0
queues = 2
"#;

fn label(switch: &str) -> &'static str {
    if switch.starts_with("edge-") {
        "afpacket"
    } else if switch.starts_with("agg-") {
        "dpdk"
    } else {
        "afxdp/skb"
    }
}

fn meminfo_free() -> u64 {
    let m = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    canopy_testbed::os::meminfo::hugepages(&m).map_or(0, |(f, _)| f)
}

/// Whether the switch binary next to the testbed has the `dpdk` feature (asked with
/// `check-config`); prints the SKIP line otherwise.
fn dpdk_switch_or_skip(test: &str, dir: &Path) -> bool {
    let cfg = dir.join("probe.toml");
    std::fs::write(
        &cfg,
        "[management]\nsocket = \"/tmp/fdk-probe.sock\"\n[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet0\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(switch_bin())
        .args(["check-config", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    if out.status.success() {
        return true;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("without the `dpdk` feature"),
        "the probe config was refused for another reason: {err}"
    );
    eprintln!(
        "SKIP {test}: {} was built without the `dpdk` feature (`cargo build -p canopy-switch --features dpdk`, or `cargo test --workspace --all-features`)",
        switch_bin().display()
    );
    false
}

#[test]
fn dpdk_and_kernel_backends_in_one_fabric() {
    let test = "dpdk_and_kernel_backends_in_one_fabric";
    if !root_or_skip(test) {
        return;
    }
    let f = Fab::named("fdk", "m");
    if !dpdk_switch_or_skip(test, &f.dir) {
        return;
    }
    let d = f.desc("fabric.toml", MIXED);
    let desc = canopy_testbed::fabric::Desc::load(&d).unwrap();
    // what `up` estimates for the two dpdk switches
    let mut estimate = 0;
    for s in desc.dpdk_switches() {
        let t = desc.port_table(s, 0);
        assert_eq!(t["backend"].as_str(), Some("dpdk"));
        let text = format!(
            "[management]\nsocket = \"/tmp/x.sock\"\n{}\n[dpdk]\n{}",
            (0..2)
                .map(|p| format!(
                    "[[port]]\n{}",
                    toml::to_string(&desc.port_table(s, p)).unwrap()
                ))
                .collect::<String>(),
            toml::to_string(&desc.dpdk_table(s).unwrap()).unwrap()
        );
        let cfg = canopy_switch::config::Config::parse_rules(Path::new("s.toml"), &text).unwrap();
        estimate += canopy_testbed::fabric::dpdk::switch_hugepage_bytes(&cfg).div_ceil(2 << 20);
    }
    assert_eq!(desc.dpdk_switches().len(), 2);
    let free0 = meminfo_free();
    if free0 < estimate + 8 {
        eprintln!(
            "SKIP {test}: needs {estimate} free huge pages (and some spare), /proc/meminfo has HugePages_Free {free0}: `echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages`"
        );
        return;
    }

    f.up(&d, &[]);
    let st = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("local")).unwrap();
    assert_eq!(st.switches.len(), 5);
    let used = free0.saturating_sub(meminfo_free());
    eprintln!("huge pages: {used} taken by the fabric, {estimate} estimated by up");
    assert!(used > 0, "dpdk switches took no huge pages");
    assert!(
        used <= estimate,
        "the dpdk switches took {used} huge pages, more than up's estimate {estimate}"
    );

    // each switch's ports are what the description asked for; each dpdk switch is an EAL
    // of its own (its own runtime directory, canopy<pid>)
    let mut dpdk_pids = vec![];
    for s in &st.switches {
        let h = canopy_testbed::fabric::mgmt::health(&s.mgmt(), Duration::from_secs(5)).unwrap();
        assert_eq!(h.ports.len(), 2, "{}", s.name);
        for p in &h.ports {
            assert_eq!(p.backend, label(&s.name), "{} port {}", s.name, p.port);
            assert!(p.link && p.admin, "{} port {}: {p:?}", s.name, p.port);
        }
        let cfg = std::fs::read_to_string(&s.config).unwrap();
        let run = PathBuf::from(format!("/var/run/dpdk/canopy{}", s.pid));
        if label(&s.name) == "dpdk" {
            assert!(cfg.contains("--vdev=net_af_packet0,iface="), "{cfg}");
            assert!(!cfg.contains("file-prefix"), "{cfg}");
            assert!(
                run.is_dir(),
                "{} has no EAL runtime dir {}",
                s.name,
                run.display()
            );
            dpdk_pids.push(s.pid);
        } else {
            assert!(!cfg.contains("[dpdk]"), "{cfg}");
            assert!(!run.exists(), "{}", run.display());
        }
    }
    assert_eq!(dpdk_pids.len(), 2);
    assert_ne!(dpdk_pids[0], dpdk_pids[1]);
    // the agg switch in pod 1 has port 0 on two queues (qpairs=2)
    let agg1 = st
        .switches
        .iter()
        .find(|s| s.name.starts_with("agg-p1-"))
        .unwrap();
    assert!(
        std::fs::read_to_string(&agg1.config)
            .unwrap()
            .contains("framecnt=8192,qpairs=2"),
        "{}",
        agg1.name
    );

    // every pair, then traffic
    run_mixed_backends(&f, &["afpacket ×4", "dpdk ×4", "afxdp/skb ×2"], label);
    // an overload: every frame accounted for, the DPDK ports' interfaces included; what
    // the af_packet PMD's RX rings lost (it does not read their drops) is inferred and
    // named, and only then is the accounting not exact
    let r = overload_soak(&f, "300kpps", (5, 10), false);
    eprintln!("overload: inferred {}", r["accounting"]["inferred"]);

    // a dpdk switch killed outright cannot remove its EAL runtime directory: `down` does
    let killed = dpdk_pids[0];
    let run = PathBuf::from(format!("/var/run/dpdk/canopy{killed}"));
    assert!(run.is_dir(), "{}", run.display());
    let r = std::process::Command::new("kill")
        .args(["-KILL", &killed.to_string()])
        .status()
        .unwrap();
    assert!(r.success());
    let t0 = std::time::Instant::now();
    while canopy_testbed::fabric::procs::alive(killed) {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{killed} survived SIGKILL"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(run.is_dir(), "{} went with its process", run.display());

    f.down();
    f.assert_clean();
    for pid in dpdk_pids {
        let run = format!("/var/run/dpdk/canopy{pid}");
        assert!(!Path::new(&run).exists(), "{run} left behind");
    }
    // the huge pages are back (within what other processes may have taken meanwhile)
    let free1 = meminfo_free();
    assert!(
        free1 + 2 >= free0,
        "huge pages not returned: {free0} → {free1}"
    );
}

/// A stand-in `canopy-switch` for `check-config`: `body` is its shell script.
fn fake_switch(dir: &Path, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("canopy-switch");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn dpdk_is_refused_early_when_the_switch_cannot_have_it() {
    if !root_or_skip("dpdk_is_refused_early_when_the_switch_cannot_have_it") {
        return;
    }
    let f = Fab::named("fdk", "r");
    let bin_dir = f.dir.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let up = |desc: &Path, bin: &Path| {
        let out = f.run(&[
            "up",
            desc.to_str().unwrap(),
            "--switch-bin",
            bin.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "up accepted it");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // 1. a switch built without the feature: its own message, nothing created
    let refuse = fake_switch(
        &bin_dir,
        "[ \"$1\" = check-config ] || { echo started >> \"$(dirname \"$0\")/ran\"; exit 1; }\necho \"canopy-switch: $3: port[0].backend: \\\"dpdk\\\": this canopy-switch was built without the \\`dpdk\\` feature; build it with \\`cargo build --release -p canopy-switch --features dpdk\\`\" >&2\nexit 2",
    );
    let d = f.desc("fabric.toml", MIXED);
    let e = up(&d, &refuse);
    assert!(e.contains("refuses the dpdk ports"), "{e}");
    assert!(e.contains("without the `dpdk` feature"), "{e}");
    assert!(e.contains("--features dpdk"), "{e}");
    assert!(!bin_dir.join("ran").exists(), "a switch was started");
    f.assert_clean();
    // 2. a switch that takes it, but far too few huge pages for what the fabric asks
    let takes = fake_switch(
        &bin_dir,
        "[ \"$1\" = check-config ] || { echo started >> \"$(dirname \"$0\")/ran\"; exit 1; }\nexit 0",
    );
    let greedy = format!("{MIXED}rx_desc = 16384\n[[ports.override]]\nswitch = \"agg-p0-*\"\nqueues = 64\nrx_desc = 16384\n");
    let d = f.desc("greedy.toml", &greedy);
    let e = up(&d, &takes);
    assert!(e.contains("huge pages of"), "{e}");
    assert!(e.contains("HugePages_Free"), "{e}");
    assert!(e.contains("/sys/kernel/mm/hugepages/"), "{e}");
    assert!(!bin_dir.join("ran").exists(), "a switch was started");
    f.assert_clean();
}
