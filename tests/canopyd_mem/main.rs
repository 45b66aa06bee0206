//! `canopyd` against real `canopy-switch` processes with `mem` ports (no root needed):
//! the push at start, forwarding through the pushed tables, switch and daemon
//! restarts, port drains, hostile control requests, tables that do not fit a switch,
//! a TCP endpoint with a token, `canopyd --check`, and the privileges canopyd gives up
//! (as root).
//!
//! The binaries come from `target/<profile>/` (`cargo test --workspace` builds them;
//! with `-p canopy` alone, run `cargo build --workspace --bins` first). The fabric of
//! processes is `fabric.rs`; the tests are grouped by what they exercise: pushes and
//! forwarding (`push.rs`), canopyd over P4Runtime (`p4runtime.rs`), restarts (`restarts.rs`), hostile control requests
//! (`hostile.rs`), refused tables and tokens (`refused.rs`), `canopyd --check`
//! (`check.rs`), privileges (`privs.rs`).

mod check;
mod fabric;
mod hostile;
mod p4runtime;
mod privs;
mod push;
mod refused;
mod restarts;

use canopy_control::topology::Peer;
use canopy_proto::control::Request as ControlRequest;
use canopy_proto::mgmt::Request;
use canopy_proto::version::PROTOCOL_VERSION;
use canopy_test_utils::switch::{line, request};
use canopy_test_utils::{bin, tail, wait_for, Dir};
use fabric::{expect_err, raw_exchange, serial, summary, Fabric};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const K4: &str = "fat-tree:k=4";
const K2: &str = "fat-tree:k=2";

/// A fabric with a daemon, READY.
fn ready_fabric(tag: &str, spec: &str) -> Fabric {
    let mut f = Fabric::start(tag, spec);
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    f.wait_ready(15.0);
    f
}

/// The ports of switch `i` that are members of a group in its base tables (the ones a
/// fault can prune).
fn group_ports(f: &Fabric, i: usize) -> Vec<u16> {
    let mut v: Vec<u16> = f.base[i]
        .groups
        .iter()
        .filter(|g| g.len() > 1)
        .flatten()
        .copied()
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Neighbours of switch `i`: (neighbour index, its port towards `i`, `i`'s port).
fn neighbours(f: &Fabric, i: usize) -> Vec<(usize, u16, u16)> {
    f.topo.switches[i]
        .ports
        .iter()
        .enumerate()
        .filter_map(|(p, x)| match x.peer {
            Peer::Switch { sw, port } => Some((sw as usize, port, p as u16)),
            _ => None,
        })
        .collect()
}

/// The ports of `i`'s neighbours that its death must prune: (neighbour, its port
/// towards `i`) for each that is a group member.
fn ports_to_prune(f: &Fabric, i: usize) -> Vec<(usize, u16)> {
    neighbours(f, i)
        .iter()
        .filter(|(n, p, _)| group_ports(f, *n).contains(p))
        .map(|&(n, p, _)| (n, p))
        .collect()
}

fn pruned(snap: &Value, name: &str) -> Vec<u16> {
    serde_json::from_value(Fabric::snap_of(snap, name)["pruned_ports"].clone()).unwrap()
}

/// A frame from the first host of edge switch `e` to a host in another pod: (ingress,
/// frame).
fn far_frame(f: &Fabric, e: usize, payload: &[u8]) -> (u16, Vec<u8>) {
    let (port, src) = f.host_port(e);
    let dst = f.topo.hosts.len() as u32 - 1;
    assert_ne!(src, dst);
    (port, f.frame(src, dst, payload))
}

/// The agg switch of pod 0 and its port towards edge-p0-e0, and that edge's port
/// towards it (a drain whose neighbour must be re-pushed).
fn agg_port_to_edge(f: &Fabric) -> (usize, u16, usize, u16) {
    let a = f.index("agg-p0-a0");
    let e = f.index("edge-p0-e0");
    let (_, ep, ap) = neighbours(f, a)
        .into_iter()
        .find(|(n, _, _)| *n == e)
        .expect("agg-p0-a0 is linked to edge-p0-e0");
    assert!(group_ports(f, e).contains(&ep));
    (a, ap, e, ep)
}
