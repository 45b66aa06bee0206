//! Switches under test: their configs, management requests, the model fabric's frames
//! and decisions the tests compare them with, and the switch most tests run: an edge
//! switch of a k=4 fat tree ([`Edge`]).

use canopy_control::oracle::host_mac;
use canopy_control::sim::{isolated_switch, IsolatedSwitch};
use canopy_control::topology::{Peer, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};
use canopy_proto::client::Endpoint;
use canopy_proto::mgmt::Request;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// A `canopy-switch` config: `[switch]` with `switch` lines, `[tables]` computed for
/// switch `name` of topology `spec` when `tables` is given (else placeholder tables),
/// `[management]` with the socket and `mgmt` lines (sections of their own may follow),
/// then one `[[port]]` per entry of `ports` (its lines).
pub fn config(
    switch: &str,
    tables: Option<(&str, &str)>,
    socket: &Path,
    mgmt: &str,
    ports: &[String],
) -> String {
    let mut s = format!("[switch]\n{switch}\n\n");
    if let Some((spec, name)) = tables {
        s +=
            &format!("[tables]\ntopology = \"{spec}\"\nkind = \"sliced\"\nswitch = \"{name}\"\n\n");
    }
    s += &format!("[management]\nsocket = \"{}\"\n{mgmt}\n", socket.display());
    for p in ports {
        s += &format!("\n[[port]]\n{p}\n");
    }
    s
}

/// `n` mem ports `p0`.. of `capacity` frames, as [`config`] takes them.
pub fn mem_ports(n: usize, capacity: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("backend = \"mem\"\nname = \"p{i}\"\ncapacity = {capacity}"))
        .collect()
}

/// A request as one line (JSON and the newline).
pub fn line(r: &impl Serialize) -> Vec<u8> {
    let mut l = serde_json::to_vec(r).expect("a request encodes");
    l.push(b'\n');
    l
}

/// One request on a Unix socket (a switch's management socket or canopyd's control
/// socket); the answer as sent (`ok: false` included).
pub fn request(socket: &Path, v: &impl Serialize) -> anyhow::Result<Value> {
    Ok(Endpoint::Unix(socket.to_path_buf()).request(v, Duration::from_secs(30))?)
}

/// `inject` of `frames` on `port`.
pub fn inject(port: u16, frames: &[Vec<u8>]) -> Request {
    Request::Inject {
        port,
        frames: frames.iter().map(hex::encode).collect(),
    }
}

/// The frames of a `capture` answer.
pub fn captured(r: &Value) -> Vec<Vec<u8>> {
    r["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("no frames in {r}"))
        .iter()
        .map(|f| hex::decode(f.as_str().expect("a hex frame")).expect("a hex frame"))
        .collect()
}

/// The frame host `src` sends to host `dst` in `topo` with header `kind`.
pub fn host_frame(topo: &Topology, kind: Kind, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
    let h = canopy_control::kinds::header(topo, kind, src, dst).unwrap();
    wire::ethernet_frame(host_mac(topo, dst), host_mac(topo, src), &h, payload)
}

/// The model's decision on `frame` entering a switch with `tables` on `ingress`: the
/// bytes it sends and the ports it may send them on (panics when the model drops it).
pub fn decision(tables: &SwitchTables, ingress: u16, frame: &[u8]) -> (Vec<u8>, Vec<u16>) {
    let mut f = frame.to_vec();
    match decide(tables, ingress, &mut f) {
        Verdict::Port(p) => (f, vec![p]),
        Verdict::Group(g) => (f, tables.group(g).to_vec()),
        Verdict::Drop(r) => panic!("the model drops: {}", r.name()),
    }
}

/// The topology of [`Edge`].
pub const SPEC: &str = "fat-tree:k=4";
/// The switch of [`Edge`].
pub const EDGE: &str = "edge-p0-e0";

/// The switch under most tests: edge switch [`EDGE`] of the k=4 fat tree [`SPEC`] with
/// tables of one kind, the two hosts below it, its two uplinks and a host under another
/// edge switch.
pub struct Edge {
    pub topo: Topology,
    pub kind: Kind,
    /// Every switch's tables.
    pub all: Vec<SwitchTables>,
    /// The edge switch's index in `topo`.
    pub sw: usize,
    /// Its tables.
    pub tables: SwitchTables,
    /// (port, host) of the two hosts below it.
    pub hosts: Vec<(usize, u32)>,
    /// Its two uplinks.
    pub ups: Vec<usize>,
    /// A host under another edge switch.
    pub far: u32,
}

impl Edge {
    pub fn new(kind: Kind) -> Edge {
        Self::on_mem(kind, 1).0
    }

    /// [`Edge::new`] with its ports as `mem` links of `capacity` frames each, their far
    /// ends in `outer` (the engine tests without sockets).
    pub fn on_mem(kind: Kind, capacity: usize) -> (Edge, IsolatedSwitch) {
        let topo = canopy_control::build_str(SPEC).unwrap();
        let sw = topo.switch_index(EDGE).unwrap();
        let is = isolated_switch(&topo, sw, capacity);
        let hosts = is.hosts.clone();
        let ups: Vec<usize> = (0..is.ports.len())
            .filter(|p| hosts.iter().all(|h| h.0 != *p))
            .collect();
        let far = (0..topo.hosts.len() as u32)
            .find(|d| hosts.iter().all(|x| x.1 != *d))
            .unwrap();
        let all = canopy_control::kinds::tables(&topo, kind).unwrap();
        let e = Edge {
            tables: all[sw].clone(),
            all,
            topo,
            kind,
            sw,
            hosts,
            ups,
            far,
        };
        (e, is)
    }

    /// Host on port `p` of the edge switch.
    pub fn host_on(&self, p: usize) -> u32 {
        match self.topo.switches[self.sw].ports[p].peer {
            Peer::Host { host, .. } => host,
            x => panic!("port {p} leads to {x:?}"),
        }
    }

    /// The frame host `src` sends to host `dst` with header `kind`.
    pub fn frame(&self, kind: Kind, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
        host_frame(&self.topo, kind, src, dst, payload)
    }

    /// The frame host `src` sends to host `dst` with the header of the tables' kind.
    pub fn frame_with(&self, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
        self.frame(self.kind, src, dst, payload)
    }

    /// The frame as it reaches the edge switch (ingress port, bytes): walked from host
    /// `src` through the model fabric with the dataplane's decisions (first port of a
    /// group), so a frame from a far host arrives from above with its header advanced.
    pub fn arriving(&self, frame: &[u8], src: u32) -> (u16, Vec<u8>) {
        let mut f = frame.to_vec();
        let (mut sw, mut port) = match self.topo.hosts[src as usize].ports[0].peer {
            Peer::Switch { sw, port } => (sw as usize, port),
            x => panic!("host {src} on {x:?}"),
        };
        for _ in 0..16 {
            if sw == self.sw {
                return (port, f);
            }
            let out = match decide(&self.all[sw], port, &mut f) {
                Verdict::Port(p) => p,
                Verdict::Group(g) => self.all[sw].group(g)[0],
                Verdict::Drop(r) => panic!("model drops at {}: {}", sw, r.name()),
            };
            match self.topo.switches[sw].ports[usize::from(out)].peer {
                Peer::Switch { sw: s, port: p } => (sw, port) = (s as usize, p),
                x => panic!("walk left the fabric at {x:?}"),
            }
        }
        panic!("frame never reached the edge switch");
    }

    /// The edge switch's decision on `frame` from `ingress`: the bytes it sends and the
    /// ports it may send them on.
    pub fn expect(&self, ingress: u16, frame: &[u8]) -> (Vec<u8>, Vec<u16>) {
        decision(&self.tables, ingress, frame)
    }
}
