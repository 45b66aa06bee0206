//! What the fabric-description fuzz target (`fuzz/`, `docs/fuzzing.md`) shares with the
//! regression test that replays its crash files (`testbed/tests/fuzz_regressions.rs`).
//! A test helper: it allocates freely.

use crate::fabric::desc::{Desc, Node};

/// [`Desc::parse`] on arbitrary bytes (as UTF-8 text; other bytes are not a TOML file):
/// no panic; a description it accepts answers every per-switch, per-port and per-host
/// question the fabric commands ask of it, and its links join existing ports.
pub fn fabric_desc(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(d) = Desc::parse("fuzz.toml", text) else {
        return;
    };
    let _ = d.switch_table();
    for (sw, s) in d.topo.switches.iter().enumerate() {
        let sw = sw as u32;
        let _ = d.node_name(Node::Switch(sw));
        let _ = d.netns(Node::Switch(sw));
        let _ = d.machine_of(Node::Switch(sw));
        let _ = d.port_backends(sw);
        for p in 0..s.ports.len() as u16 {
            // every generated port names its backend and how it is found: an interface,
            // or for dpdk the vdev's device (the interface is in `[dpdk] eal_args`)
            let t = d.port_table(sw, p);
            let dpdk = t.get("backend").and_then(|b| b.as_str()) == Some("dpdk");
            let how = if dpdk { "device" } else { "interface" };
            assert!(t.contains_key("backend") && t.contains_key(how), "{t:?}");
        }
    }
    for h in 0..d.topo.hosts.len() as u32 {
        let _ = d.node_name(Node::Host(h));
        let _ = d.host_ifaces(h);
    }
    for l in &d.links {
        for (n, p) in [l.a, l.b] {
            if let Node::Switch(s) = n {
                let sw = d
                    .topo
                    .switches
                    .get(s as usize)
                    .unwrap_or_else(|| panic!("link to switch {s}, which does not exist"));
                assert!(
                    usize::from(p) < sw.ports.len(),
                    "link to port {p} of switch {s}, which has {} ports",
                    sw.ports.len()
                );
            }
        }
    }
}
