//! Per-port backends in whole fabrics (root; `SKIP` otherwise; fabrics named
//! `fbk<pid><tag>`): a k=2 fat-tree whose edge switches use AF_PACKET, aggregation
//! switches AF_XDP in generic (SKB) mode and the core switch AF_XDP in native copy mode
//! on its veths. Every pair is delivered, a fixed-rate run loses nothing, every switch
//! conserves frames and carried traffic, the XDP program sits on exactly the AF_XDP
//! ports in the mode asked for, `status` and the run report name each switch's
//! backends; an overload's soak accounts for every frame exactly, each port checked
//! against its interface; after `down` nothing is left. A backend that cannot work on a
//! veth is refused before anything is created.
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{overload_soak, root_or_skip, run_mixed_backends, Fab};
use std::process::Command;

/// The description: `[ports]` says AF_XDP (SKB) for every port, overrides give the
/// edge switches AF_PACKET (a new backend: its table starts afresh) and the core switch
/// native copy mode (the same backend: `mode` replaced, the rest kept).
const MIXED: &str = r#"topology = "fat-tree:k=2"
[ports]
backend = "afxdp"
mode = "skb"
[[ports.override]]
switch = "edge-*"
backend = "afpacket"
tpacket = "v3"
[[ports.override]]
switch = "core-*"
mode = "copy"
"#;

/// What each switch's ports must be: health's label, and the XDP attach flag `ip link`
/// shows on the port's interface (None: no XDP program).
fn expected(switch: &str) -> (&'static str, Option<&'static str>) {
    if switch.starts_with("edge-") {
        ("afpacket", None)
    } else if switch.starts_with("agg-") {
        ("afxdp/skb", Some("xdpgeneric"))
    } else {
        assert!(switch.starts_with("core-"), "{switch}");
        ("afxdp/copy", Some("xdp"))
    }
}

/// The XDP flag of `ifname` in `ns` (`xdp` = native, `xdpgeneric` = SKB), if any.
fn xdp_flag(ns: &str, ifname: &str) -> Option<String> {
    let out = Command::new("ip")
        .args(["-n", ns, "-o", "link", "show", "dev", ifname])
        .output()
        .unwrap();
    assert!(out.status.success(), "ip link show {ifname} in {ns}");
    let line = String::from_utf8_lossy(&out.stdout).into_owned();
    line.split_whitespace()
        .find(|w| *w == "xdp" || *w == "xdpgeneric" || *w == "xdpoffload")
        .map(str::to_string)
}

#[test]
fn mixed_backends_forward_every_frame_and_say_which() {
    if !root_or_skip("mixed_backends_forward_every_frame_and_say_which") {
        return;
    }
    let f = Fab::named("fbk", "m");
    let d = f.desc("fabric.toml", MIXED);
    f.up(&d, &[]);
    let st = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("local")).unwrap();
    assert_eq!(st.switches.len(), 5);

    // the ports are what the description asked for, in the switches and in the kernel
    let status = f.run(&["status", &f.name]);
    assert!(status.status.success());
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    for s in &st.switches {
        let (label, flag) = expected(&s.name);
        let h = canopy_testbed::fabric::mgmt::health(&s.mgmt(), std::time::Duration::from_secs(5))
            .unwrap();
        assert!(!h.ports.is_empty());
        for p in &h.ports {
            assert_eq!(p.backend, label, "{} port {}", s.name, p.port);
            assert_eq!(
                xdp_flag(&s.netns, &p.name).as_deref(),
                flag,
                "{} {}",
                s.name,
                p.name
            );
        }
        let row = status
            .lines()
            .find(|l| l.starts_with(&s.name))
            .unwrap_or_else(|| panic!("no status row for {}:\n{status}", s.name));
        assert!(
            row.contains(&format!("({label} ×{})", h.ports.len())),
            "{row}"
        );
    }

    // every pair, then traffic
    let out = run_mixed_backends(
        &f,
        &["afpacket ×4", "afxdp/skb ×4", "afxdp/copy ×2"],
        |s| expected(s).0,
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| port backends | afxdp/skb ×4, afxdp/copy ×2, afpacket ×4 |"),
        "{md}"
    );
    // an overload: every frame accounted for exactly, AF_XDP's drops by their own
    // names, native mode's counted once (the veth counts them too)
    let r = overload_soak(&f, "300kpps", (5, 10), true);
    eprintln!("overload: {}", r["accounting"]["backend_drops"]);

    f.down();
    f.assert_clean();
}

#[test]
fn a_backend_that_cannot_work_on_a_veth_is_refused_before_anything_is_created() {
    if !root_or_skip("a_backend_that_cannot_work_on_a_veth_is_refused_before_anything_is_created") {
        return;
    }
    let f = Fab::named("fbk", "z");
    for (body, key, line, what) in [
        (
            "topology = \"fat-tree:k=2\"\n[ports]\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n",
            "ports.mode",
            5,
            "no zero-copy AF_XDP",
        ),
        (
            "topology = \"fat-tree:k=2\"\n[[ports.override]]\nswitch = \"core-*\"\nbackend = \"afxdp\"\nqueues = 2\n",
            "ports.override[0].queues",
            6,
            "one queue",
        ),
        (
            "topology = \"fat-tree:k=2\"\n[[ports.override]]\nswitch = \"agg-*\"\nmode = \"skb\"\n",
            "ports.override[0].mode",
            5,
            "applies only to afxdp ports",
        ),
    ] {
        let d = f.desc("bad.toml", body);
        let sb = fabric_common::switch_bin();
        let out = f.run(&[
            "up",
            d.to_str().unwrap(),
            "--switch-bin",
            sb.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "accepted: {body}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("bad.toml: {key}: ")) && err.contains(what),
            "{err}"
        );
        // line numbers count the `name = ...` line the fixture puts first
        assert!(err.contains(&format!("(line {line})")), "{err}");
        f.assert_clean();
    }
}
