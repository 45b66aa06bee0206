//! Switches under test: their configs, management requests, and the model fabric's
//! frames and decisions the tests compare them with.

use canopy_control::oracle::host_mac;
use canopy_control::topology::Topology;
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
