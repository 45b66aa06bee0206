//! The cross-machine link path, locally (root; `SKIP` otherwise): two "machines" are
//! two underlay namespaces `cfab<pid>-ua` / `cfab<pid>-ub` joined by a veth with
//! addresses; `up --machine a` and `up --machine b` each build their part of a k=4
//! fat-tree (`examples/fabric-vxlan.toml`'s placement) with the cross-machine links as
//! VXLAN devices whose sockets live in their machine's underlay namespace. The check
//! passes across them, the frames demonstrably crossed the underlay, and `down`
//! removes both parts. One cross-machine link (core-c0:2 - agg-p2-a0:2) is a "real NIC"
//! on each side instead: a veth pair between the underlay namespaces, moved into the
//! switch namespaces by `up` and returned under its own name by `down`.
#![cfg(target_os = "linux")]

mod fabric_common;

use canopy_testbed::os::netns::{ip, link_stats};
use fabric_common::{assert_check_passes, root_or_skip, Fab};
use std::process::Command;

/// The two underlay namespaces, deleted on drop.
struct Underlay(Vec<String>);

impl Drop for Underlay {
    fn drop(&mut self) {
        for n in &self.0 {
            let _ = Command::new("ip").args(["netns", "del", n]).output();
        }
    }
}

#[test]
fn vxlan_links_between_two_emulated_machines() {
    if !root_or_skip("vxlan_links_between_two_emulated_machines") {
        return;
    }
    let f = Fab::new("v");
    let pid = std::process::id();
    let (ua, ub) = (format!("cfab{pid}-ua"), format!("cfab{pid}-ub"));
    let _u = Underlay(vec![ua.clone(), ub.clone()]);
    for n in [&ua, &ub] {
        let _ = ip(&["netns", "del", n]);
        ip(&["netns", "add", n]).unwrap();
        ip(&["-n", n, "link", "set", "lo", "up"]).unwrap();
    }
    ip(&[
        "link", "add", "ua0", "netns", &ua, "mtu", "1600", "type", "veth", "peer", "name", "ub0",
        "netns", &ub, "mtu", "1600",
    ])
    .unwrap();
    ip(&["-n", &ua, "addr", "add", "10.231.7.1/24", "dev", "ua0"]).unwrap();
    ip(&["-n", &ub, "addr", "add", "10.231.7.2/24", "dev", "ub0"]).unwrap();
    ip(&["-n", &ua, "link", "set", "ua0", "up"]).unwrap();
    ip(&["-n", &ub, "link", "set", "ub0", "up"]).unwrap();
    ip(&[
        "link", "add", "nica", "netns", &ua, "type", "veth", "peer", "name", "nicb", "netns", &ub,
    ])
    .unwrap();
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/fabric-vxlan.toml"
    ))
    .unwrap();
    // the example with this test's name, underlay addresses and namespaces
    let body: String = example
        .lines()
        .filter(|l| !l.starts_with("name = \"ftx\""))
        .map(|l| match l {
            "underlay = \"192.168.50.1\"" => {
                format!("underlay = \"10.231.7.1\"\nunderlay_netns = \"{ua}\"")
            }
            "underlay = \"192.168.50.2\"" => {
                format!("underlay = \"10.231.7.2\"\nunderlay_netns = \"{ub}\"")
            }
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        body.contains(&ua) && body.contains(&ub),
        "the example changed: {body}"
    );
    let body = format!("{body}\n[[nic]]\nport = \"core-c0:2\"\ninterface = \"nica\"\n[[nic]]\nport = \"agg-p2-a0:2\"\ninterface = \"nicb\"\n");
    let d = f.desc("vxlan.toml", &body);
    f.up(&d, &["--machine", "a"]);
    f.up(&d, &["--machine", "b"]);
    // the cross-machine ends are VXLAN devices (8 core-agg links, one end per machine)
    let st_a = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("a")).unwrap();
    let core0 = st_a.switches.iter().find(|s| s.name == "core-c0").unwrap();
    let links = ip(&["-n", &core0.netns, "-d", "link", "show"]).unwrap();
    // core-c0's ports 2 and 3 lead to b: port 3 over VXLAN, port 2 over the "NIC"
    assert_eq!(links.matches("vxlan id").count(), 1, "{links}");
    assert!(
        links.contains(": s16p2@") && links.contains("veth"),
        "{links}"
    );
    assert!(
        ip(&["-n", &ua, "link", "show", "nica"]).is_err(),
        "nica still in the underlay"
    );
    let before = link_stats(&ua, "ua0").unwrap();
    let nic_before = link_stats(&core0.netns, "s16p2").unwrap();
    assert_check_passes(&f, 16);
    let vx = link_stats(&ua, "ua0").unwrap().since(&before);
    let nic = link_stats(&core0.netns, "s16p2")
        .unwrap()
        .since(&nic_before);
    // between the machines: a -> b hosts (64) and pod 2 <-> pod 3 via the cores on a
    // (32) each way, over the VXLAN underlay or the NIC
    assert!(
        vx.tx_packets + nic.tx_packets >= 96 && vx.rx_packets + nic.rx_packets >= 96,
        "underlay carried {vx:?}, the NIC {nic:?}"
    );
    assert!(
        vx.tx_packets > 0 && vx.rx_packets > 0,
        "nothing over VXLAN: {vx:?}"
    );
    f.down();
    f.assert_clean();
    // the underlay namespaces are the test's, not the fabric's: still there, and the
    // NICs are back under their own names
    let list = ip(&["netns", "list"]).unwrap();
    assert!(list.contains(&ua) && list.contains(&ub));
    ip(&["-n", &ua, "link", "show", "nica"]).unwrap();
    ip(&["-n", &ub, "link", "show", "nicb"]).unwrap();
}
