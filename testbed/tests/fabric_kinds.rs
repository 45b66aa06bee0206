//! `canopy-testbed up / check / status / down` on whole fabrics in namespaces (root;
//! `SKIP` otherwise): a k=4 fat-tree with the sliced-flit and the path-ID header and the
//! smallest Transit fabric (`transit-full:layers=1`); every ordered host pair delivered
//! to exactly the right host; after `down` nothing is left (`ip netns list`, `/proc`).
//! A port set down makes the check fail, so the check can fail. The path-ID fabric runs
//! with `[capture]`: every switch writes each port's frames to files of its own.
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{assert_check_passes, check_json, root_or_skip, Fab};
use std::time::Duration;

fn up_check_down(tag: &str, body: &str, hosts: u64) -> Fab {
    let f = Fab::new(tag);
    let d = f.desc("fabric.toml", body);
    f.up(&d, &[]);
    let st = f.run(&["status", &f.name]);
    assert!(
        st.status.success(),
        "status: {}",
        String::from_utf8_lossy(&st.stdout)
    );
    assert_check_passes(&f, hosts);
    f.down();
    f.assert_clean();
    f
}

#[test]
fn fat_tree_k4_sliced_every_pair() {
    if !root_or_skip("fat_tree_k4_sliced_every_pair") {
        return;
    }
    up_check_down("s", "topology = \"fat-tree:k=4\"\nkind = \"sliced\"\n", 16);
}

#[test]
fn fat_tree_k4_path_id_every_pair() {
    if !root_or_skip("fat_tree_k4_path_id_every_pair") {
        return;
    }
    let f = up_check_down(
        "p",
        "topology = \"fat-tree:k=4\"\nkind = \"path-id\"\n[ports]\ntpacket = \"v3\"\n\
         [capture]\ndir = \"pcaps\"\nformat = \"pcapng\"\n",
        16,
    );
    // each of the 20 switches wrote both ways of each of its 4 ports, closed at `down`;
    // edge-p0-e0's port 0 received h0's frame to each of the 15 other hosts
    let pcaps = f.dir.join("pcaps");
    let switches = std::fs::read_dir(&pcaps).unwrap().count();
    assert_eq!(switches, 20, "{}", pcaps.display());
    let edge = pcaps.join("edge-p0-e0");
    assert_eq!(std::fs::read_dir(&edge).unwrap().count(), 8);
    let from_h0: Vec<_> = std::fs::read_dir(&edge)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("p0_in.pcapng"))
        .collect();
    assert_eq!(from_h0.len(), 1, "{from_h0:?}");
    let frames = canopy_switch::pcap::read(&from_h0[0]).unwrap();
    let canopy = frames
        .iter()
        .filter(|f| f.data.len() > 14 && f.data[12..14] != [0x86, 0xdd])
        .count();
    assert!(canopy >= 15, "{canopy} of {} frames", frames.len());
}

#[test]
fn transit_full_layers1_every_pair() {
    if !root_or_skip("transit_full_layers1_every_pair") {
        return;
    }
    up_check_down(
        "t",
        "topology = \"transit-full:layers=1\"\nkind = \"transit\"\n[switch]\npool = 1024\n",
        64,
    );
}

#[test]
fn check_fails_when_a_host_port_is_down() {
    if !root_or_skip("check_fails_when_a_host_port_is_down") {
        return;
    }
    let f = Fab::new("c");
    let d = f.desc("fabric.toml", "");
    f.up(&d, &[]);
    // edge-p0-e0 is switch 0; its port 0 leads to h0
    let st = canopy_testbed::fabric::State::load(&f.root().join(&f.name).join("local")).unwrap();
    let sw = st.switches.iter().find(|s| s.name == "edge-p0-e0").unwrap();
    canopy_testbed::fabric::mgmt::set_port(&sw.mgmt(), 0, false, Duration::from_secs(2)).unwrap();
    let (ok, v) = check_json(&f);
    assert!(!ok, "check passed with h0's port down: {v}");
    // h0 sends nothing out and receives nothing: 15 + 15 pairs lost
    assert_eq!(v["lost"], 30, "{v}");
    assert_eq!(v["misdelivered"], 0, "{v}");
    let s = f.run(&["status", &f.name]);
    assert!(
        !s.status.success(),
        "status must report the degraded switch"
    );
    f.down();
    f.assert_clean();
}
