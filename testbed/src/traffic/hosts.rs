//! What the traffic generator needs to know about a running fabric's hosts: the contract
//! between the fabric builder (`canopy-testbed up`, which writes these into its state
//! file) and the generator (`canopy-testbed run`).

use serde::{Deserialize, Serialize};

/// One fabric host as the generator sees it: a network namespace with one interface
/// wired to its edge switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEndpoint {
    /// Host index in the topology (`Topology::hosts`), the index headers are built for.
    pub host: u32,
    /// Topology name of the host (e.g. `h0`).
    pub name: String,
    /// Network namespace the host's interface lives in.
    pub netns: String,
    /// The interface inside `netns` the host sends on.
    pub ifname: String,
    /// The interfaces the host receives on, when they are not just `ifname` (a Transit
    /// host sends on one output channel and receives on two input channels). Empty
    /// means `ifname`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rx_ifnames: Vec<String>,
    /// The host's MAC address (`canopy_control::oracle::host_mac`), also the source MAC
    /// of every frame it sends.
    pub mac: [u8; 6],
}

impl HostEndpoint {
    /// The interfaces the host receives on.
    pub fn rx_ifnames(&self) -> Vec<String> {
        if self.rx_ifnames.is_empty() {
            vec![self.ifname.clone()]
        } else {
            self.rx_ifnames.clone()
        }
    }
}

/// The fabric the generator drives: topology spec, header kind and hosts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FabricHosts {
    /// Topology spec as `canopyctl` takes it (e.g. `fat-tree:k=4`).
    pub topology: String,
    /// Header kind name (`sliced`, `transit`, `path-id`).
    pub kind: String,
    /// Every host of the topology that is placed on this machine, in host order.
    pub hosts: Vec<HostEndpoint>,
}
