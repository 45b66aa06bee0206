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
    /// The switches stamp their hop records with the clocks of machines of their own
    /// (QEMU guests), which the hosts' stamps cannot be set against: the latency stream
    /// asks for no hop records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guest_clocks: bool,
}

/// Host positions by MAC address, for the per-frame lookups of receivers (a sorted
/// table searched by bisection: no hashing, no allocation per lookup). A MAC listed
/// twice maps to its last position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MacIndex(Vec<(u64, usize)>);

impl MacIndex {
    /// The index of `macs` (position = host position).
    pub fn new(macs: &[[u8; 6]]) -> MacIndex {
        let mut v: Vec<(u64, usize)> = macs
            .iter()
            .enumerate()
            .map(|(i, m)| (Self::key(m), i))
            .collect();
        // stable: equal keys keep their order, so the last of them is the one kept
        v.sort_by_key(|&(k, _)| k);
        v.reverse();
        v.dedup_by_key(|e| e.0);
        v.reverse();
        MacIndex(v)
    }

    #[inline]
    fn key(m: &[u8; 6]) -> u64 {
        let mut b = [0u8; 8];
        b[2..].copy_from_slice(m);
        u64::from_be_bytes(b)
    }

    /// The position of the host with MAC `m`.
    #[inline]
    pub fn get(&self, m: &[u8; 6]) -> Option<usize> {
        let k = Self::key(m);
        self.0
            .binary_search_by_key(&k, |&(x, _)| x)
            .ok()
            .map(|i| self.0[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_index_finds_every_host_and_nothing_else() {
        let macs: Vec<[u8; 6]> = (0..40u8)
            .map(|i| [2, 0, i.wrapping_mul(37), 0, 1, i])
            .collect();
        let ix = MacIndex::new(&macs);
        for (i, m) in macs.iter().enumerate() {
            assert_eq!(ix.get(m), Some(i));
        }
        assert_eq!(ix.get(&[2, 0, 0, 0, 1, 99]), None);
        assert_eq!(ix.get(&[0; 6]), None);
        assert_eq!(MacIndex::new(&[]).get(&[0; 6]), None);
        // a MAC listed twice: the last position, as a map built from the list would
        let dup = MacIndex::new(&[[1; 6], [2; 6], [1; 6]]);
        assert_eq!((dup.get(&[1; 6]), dup.get(&[2; 6])), (Some(2), Some(1)));
    }
}
