//! The switch under most engine tests: an edge switch of a k=4 fat tree (Sliced kind),
//! its tables, the two hosts below it, its two uplinks and a host under another edge.
#![allow(dead_code)] // each test binary uses a subset

use super::frames::payload;
use canopy_control::oracle::host_mac;
use canopy_control::sim::{isolated_switch, IsolatedSwitch};
use canopy_control::topology::Topology;
use canopy_control::{build_str, kinds};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};

pub struct Edge {
    pub topo: Topology,
    /// The switch's index in `topo`.
    pub sw: usize,
    pub tables: SwitchTables,
    /// (port, host) of the two hosts below it.
    pub hosts: Vec<(usize, u32)>,
    /// Its two uplinks.
    pub ups: Vec<usize>,
    /// A host under another edge switch.
    pub far: u32,
}

pub fn edge() -> Edge {
    edge_on_mem(1).0
}

/// [`edge`] with its ports as `mem` links of `capacity` frames each, their far ends in
/// `outer` (the engine tests without sockets).
pub fn edge_on_mem(capacity: usize) -> (Edge, IsolatedSwitch) {
    let topo = build_str("fat-tree:k=4").unwrap();
    let sw = topo.switches.iter().position(|s| s.level == 1).unwrap();
    let is = isolated_switch(&topo, sw, capacity);
    let hosts = is.hosts.clone();
    let ups: Vec<usize> = (0..is.ports.len())
        .filter(|p| hosts.iter().all(|h| h.0 != *p))
        .collect();
    let far = (0..topo.hosts.len() as u32)
        .find(|d| hosts.iter().all(|x| x.1 != *d))
        .unwrap();
    let e = Edge {
        tables: kinds::tables(&topo, Kind::Sliced).unwrap()[sw].clone(),
        topo,
        sw,
        hosts,
        ups,
        far,
    };
    (e, is)
}

impl Edge {
    /// A Sliced frame from host `src` to host `dst` carrying [`payload`]`(seq)`.
    pub fn frame(&self, src: u32, dst: u32, seq: u32) -> Vec<u8> {
        self.frame_with(src, dst, &payload(seq))
    }

    /// A Sliced frame from host `src` to host `dst` carrying `payload`.
    pub fn frame_with(&self, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
        let hd = kinds::header(&self.topo, Kind::Sliced, src, dst).unwrap();
        wire::ethernet_frame(
            host_mac(&self.topo, dst),
            host_mac(&self.topo, src),
            &hd,
            payload,
        )
    }
}
