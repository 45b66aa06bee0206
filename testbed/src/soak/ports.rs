//! What the soak must know of each switch port's backend to read its interface's
//! counters right: which interface a port is on, and where the kernel and a backend
//! count the same frame, or where a backend counts nothing at all.
//!
//! * **Native AF_XDP on a veth** (`afxdp/copy`, `afxdp/zerocopy`): a frame the XDP
//!   program could not hand to its socket (the socket's RX ring full, or no fill
//!   buffer) is counted by the socket (`XDP_STATISTICS`, the port's `kernel_drops`) and
//!   by the veth (its `rx_dropped`) both; it is counted once. In SKB mode the veth does
//!   not count it.
//! * **DPDK's af_packet PMD** (`net_af_packet<N>` on interface `s<sw>p<N>`): its RX ring
//!   is an AF_PACKET ring whose losses (`tp_drops`) the PMD never reads, so
//!   `rte_eth_stats` has no `imissed` for them (DPDK 22.11). **bmv2**: `simple_switch`
//!   reads each port through a packet socket whose overflows it does not count either.
//!   Both are inferred from the interface: what it received and did not drop, less
//!   what the switch received. The soak names them and is then not exact: no second
//!   counter confirms them.

use super::account::Counters;
use crate::fabric::desc::{Desc, Node};
use crate::fabric::state::{State, SwitchState};
use canopy_control::topology::Topology;
use canopy_proto::mgmt::PortCounters;
use std::collections::{BTreeMap, BTreeSet};

/// The places where losses are inferred, as their labels in `accounting.inferred` name
/// them, and how each is inferred.
pub(super) const INFERRED_PLACES: [(&str, &str); 3] = [
    (
        "RX ring",
        "DPDK af_packet RX rings, from their interfaces' counters (the PMD does not read its rings' drops)",
    ),
    (
        "receive socket",
        "simple_switch's receive sockets, from their interfaces' counters (it does not read their drops)",
    ),
    (
        "egress queues",
        "bmv2 egress queues, from the switch's ingress, egress and drop counters (simple_switch does not count what a full queue refuses)",
    ),
];

/// The ports whose interface counters need care (see the module documentation).
#[derive(Debug, Clone, Default)]
pub(super) struct PortKinds {
    /// Interfaces (`netns/ifname`) of AF_XDP ports attached in native mode.
    native_xdp: BTreeSet<String>,
    /// DPDK af_packet ports, (switch, port) → their interface (`netns/ifname`).
    dpdk_af_packet: BTreeMap<(String, u16), String>,
}

impl PortKinds {
    /// From the backends every switch's `health` names ([`crate::run::port_backends`]:
    /// none for bmv2, or for a switch that does not answer). The testbed names a switch
    /// port's interface after the switch and the port ([`Desc::ifname`]), and a `dpdk`
    /// port is an af_packet vdev on that interface ([`Desc::dpdk_table`]).
    pub(super) fn read(state: &State, topo: &Topology) -> PortKinds {
        let mut k = PortKinds::default();
        for (name, backends) in crate::run::port_backends(state) {
            let sw = topo.switch_index(&name);
            let s = state.switches.iter().find(|s| s.name == name);
            let (Some(sw), Some(s)) = (sw, s) else {
                continue;
            };
            for (p, backend) in backends.iter().enumerate() {
                let p = p as u16;
                let key = format!("{}/{}", s.netns, Desc::ifname(Node::Switch(sw as u32), p));
                match backend.as_str() {
                    "afxdp/copy" | "afxdp/zerocopy" => {
                        k.native_xdp.insert(key);
                    }
                    "dpdk" => {
                        k.dpdk_af_packet.insert((name.clone(), p), key);
                    }
                    _ => {}
                }
            }
        }
        k
    }

    /// The interface (`netns/ifname`) switch `s`'s port `p` sends and receives on.
    pub(super) fn iface(&self, s: &SwitchState, p: &PortCounters) -> String {
        self.dpdk_af_packet
            .get(&(s.name.clone(), p.port))
            .cloned()
            .unwrap_or_else(|| format!("{}/{}", s.netns, p.name))
    }
}

/// Frames a port received from the kernel or lost before its engine saw them, by the
/// switch's own counters: engine rx, `kernel_drops` and the backend's RX drops.
pub(super) fn rx_in(pa: &PortCounters, pb: &PortCounters) -> u64 {
    let bd = |r: &str| {
        let n = |p: &PortCounters| p.backend.drops.get(r).copied().unwrap_or(0);
        n(pa).saturating_sub(n(pb))
    };
    pa.rx_packets.saturating_sub(pb.rx_packets)
        + pa.backend
            .kernel_drops
            .saturating_sub(pb.backend.kernel_drops)
        + bd("rx_truncated")
        + bd("rx_bad_block")
        + bd("rx_no_buffer")
}

/// What the interfaces' receive counters mean for the switch ports between `b` and `a`
/// (switches restarted in between are left out).
#[derive(Debug, Default)]
pub(super) struct RxOverlap {
    /// Per interface: frames both its `rx_dropped` and its port's `kernel_drops` count
    /// (native AF_XDP).
    pub twice: BTreeMap<String, u64>,
    /// Per DPDK af_packet port and bmv2 port (`switch:port (receiver on ifname)`): its
    /// interface, and the frames lost in the receiver's ring or socket that nobody
    /// counted, inferred.
    pub inferred: BTreeMap<String, (String, u64)>,
}

impl RxOverlap {
    /// Read from the counters of both snapshots.
    pub(super) fn of(state: &State, kinds: &PortKinds, b: &Counters, a: &Counters) -> RxOverlap {
        let mut o = RxOverlap::default();
        for s in &state.switches {
            let (Some(ca), Some(cb)) = (a.switches.get(&s.name), b.switches.get(&s.name)) else {
                continue;
            };
            if ca.restarted_since(cb) {
                continue;
            }
            for (pa, pb) in ca.ports.iter().zip(&cb.ports) {
                let key = kinds.iface(s, pa);
                if kinds.native_xdp.contains(&key) {
                    let kd = pa
                        .backend
                        .kernel_drops
                        .saturating_sub(pb.backend.kernel_drops);
                    o.twice.insert(key.clone(), kd);
                }
                let receiver = if state.target == "bmv2" {
                    "simple_switch's receive socket".to_string()
                } else if kinds
                    .dpdk_af_packet
                    .contains_key(&(s.name.clone(), pa.port))
                {
                    format!("{}'s RX ring", pa.name)
                } else {
                    continue;
                };
                let (Some(ia), Some(ib)) = (a.ifaces.get(&key), b.ifaces.get(&key)) else {
                    continue;
                };
                let i = ia.since(ib);
                let lost =
                    (i.rx_packets.saturating_sub(i.rx_dropped)).saturating_sub(rx_in(pa, pb));
                let label = format!("{}:{} ({receiver} on {key})", s.name, pa.port);
                o.inferred.insert(label, (key, lost));
            }
        }
        o
    }

    /// Frames inferred lost at interface `key` (0 for any other).
    pub(super) fn inferred_at(&self, key: &str) -> u64 {
        self.inferred
            .values()
            .filter(|(k, _)| k == key)
            .map(|(_, n)| n)
            .sum()
    }
}
