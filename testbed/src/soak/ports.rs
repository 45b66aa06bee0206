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
//! * **A VM fabric's ports** are NICs inside guests: the hypervisor reads each one's tap,
//!   whose counters are the NIC's the other way round (what the tap sent, the guest
//!   received). QEMU discards the frames of a NIC whose link QMP set down, both ways,
//!   without a counter: on a port a link-flap fault took down, what the tap and the
//!   switch disagree on is inferred to be those, and named.

use super::account::Counters;
use crate::fabric::desc::{Desc, Node};
use crate::fabric::state::{State, SwitchState};
use crate::os::netns::LinkStats;
use canopy_control::topology::Topology;
use canopy_proto::mgmt::PortCounters;
use std::collections::{BTreeMap, BTreeSet};

/// How the label of a loss inferred at a guest NIC whose link was set down says so.
const LINK_DOWN: &str = "link set down";

/// The places where losses are inferred, as their labels in `accounting.inferred` name
/// them, and how each is inferred.
pub(super) const INFERRED_PLACES: [(&str, &str); 4] = [
    (
        LINK_DOWN,
        "guest NICs whose link QMP set down, from their taps' counters and their switches' (QEMU discards such a NIC's frames both ways without a counter)",
    ),
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
    /// A VM fabric's ports, (switch, port) → the tap of the port's NIC in the hypervisor
    /// namespace (`netns/ifname`): the only interface of the port the hypervisor can
    /// read, its counters the NIC's seen from the other end
    /// ([`LinkStats::from_the_guest`](crate::os::netns::LinkStats::from_the_guest)).
    guest_taps: BTreeMap<(String, u16), String>,
}

impl PortKinds {
    /// From the backends every switch's `health` names ([`crate::run::port_backends`]:
    /// none for bmv2, or for a switch that does not answer). The testbed names a switch
    /// port's interface after the switch and the port ([`Desc::ifname`]), and a `dpdk`
    /// port is an af_packet vdev on that interface ([`Desc::dpdk_table`]).
    pub(super) fn read(state: &State, topo: &Topology) -> PortKinds {
        let mut k = PortKinds::default();
        if let Some(vm) = &state.vm {
            for s in &state.switches {
                let Some(sw) = topo.switch_index(&s.name) else {
                    continue;
                };
                for p in 0..topo.switches[sw].ports.len() as u16 {
                    let tap = Desc::vm_end(Node::Switch(sw as u32), p);
                    k.guest_taps
                        .insert((s.name.clone(), p), format!("{}/{tap}", vm.netns));
                }
            }
            return k;
        }
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
        let at = (s.name.clone(), p.port);
        self.guest_taps
            .get(&at)
            .or_else(|| self.dpdk_af_packet.get(&at))
            .cloned()
            .unwrap_or_else(|| format!("{}/{}", s.netns, p.name))
    }

    /// Whether interface `key` is a guest NIC's tap.
    pub(super) fn is_guest_tap(&self, key: &str) -> bool {
        self.guest_taps.values().any(|t| t == key)
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

/// A port's gaps (rx, tx) between the counters `i` of its interface (as the port sees
/// them: a tap's [`LinkStats::from_the_guest`]) and its switch's, before any inference:
/// `twice` frames both counted (native AF_XDP), `q` frames its qdisc dropped.
pub(super) fn raw_gaps(
    pa: &PortCounters,
    pb: &PortCounters,
    i: &LinkStats,
    twice: u64,
    q: u64,
) -> (i64, i64) {
    let bd = |r: &str| {
        let n = |p: &PortCounters| p.backend.drops.get(r).copied().unwrap_or(0);
        n(pa).saturating_sub(n(pb))
    };
    let rx_dropped = i.rx_dropped as i64 - twice as i64;
    let rx = (i.rx_packets as i64 - rx_dropped) - rx_in(pa, pb) as i64;
    let eng_tx = pa.tx_packets.saturating_sub(pb.tx_packets);
    let backlog = pa.tx_backlog as i64 - pb.tx_backlog as i64;
    let requeued = pa
        .backend
        .tx_requeues
        .saturating_sub(pb.backend.tx_requeues);
    let tx = eng_tx as i64
        - bd("tx_wrong_format") as i64
        - ((i.tx_packets + i.tx_dropped + q) as i64 - requeued as i64)
        - backlog;
    (rx, tx)
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
    /// counted, inferred; per guest port whose link QMP set down, the frames QEMU
    /// discarded to the guest and from it. The flag: sent by the port (else received).
    pub inferred: BTreeMap<String, (String, u64, bool)>,
}

impl RxOverlap {
    /// Read from the counters of both snapshots; `downed`: the (switch, port) whose
    /// link a fault took down.
    pub(super) fn of(
        state: &State,
        kinds: &PortKinds,
        [b, a]: [&Counters; 2],
        downed: &[(String, u16)],
    ) -> RxOverlap {
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
                if kinds.is_guest_tap(&key) {
                    if downed.contains(&(s.name.clone(), pa.port)) {
                        o.guest_link_down(s, pa, pb, &key, [b, a]);
                    }
                    continue;
                }
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
                o.inferred.insert(label, (key, lost, false));
            }
        }
        o
    }

    /// A guest port whose NIC QMP set down: QEMU discards the frames of a NIC whose link
    /// is down both ways (to the guest after the tap counted them sent, from the guest
    /// before the tap sees them) and counts them nowhere; what its tap and its switch
    /// disagree on is inferred to be those.
    fn guest_link_down(
        &mut self,
        s: &SwitchState,
        pa: &PortCounters,
        pb: &PortCounters,
        key: &str,
        [b, a]: [&Counters; 2],
    ) {
        let (Some(ia), Some(ib)) = (a.ifaces.get(key), b.ifaces.get(key)) else {
            return;
        };
        let (rx, tx) = raw_gaps(pa, pb, &ia.since(ib).from_the_guest(), 0, 0);
        for (n, sent, way) in [(rx, false, "to"), (tx, true, "from")] {
            if n > 0 {
                let label = format!(
                    "{}:{} ({LINK_DOWN}: QEMU discarded frames {way} the guest, on {key})",
                    s.name, pa.port
                );
                self.inferred
                    .insert(label, (key.to_string(), n as u64, sent));
            }
        }
    }

    /// Frames inferred lost at interface `key` (0 for any other), received by its port
    /// or (`sent`) sent by it.
    pub(super) fn inferred_at(&self, key: &str, sent: bool) -> u64 {
        self.inferred
            .values()
            .filter(|(k, _, tx)| k == key && *tx == sent)
            .map(|(_, n, _)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(rx: u64, tx: u64, kernel_drops: u64) -> PortCounters {
        let mut p = PortCounters {
            rx_packets: rx,
            tx_packets: tx,
            ..PortCounters::default()
        };
        p.backend.kernel_drops = kernel_drops;
        p
    }

    #[test]
    fn a_tap_counts_what_its_guest_nic_receives_and_sends_the_other_way_round() {
        // the tap sent 100 to the guest and received 80 from it (1 dropped on receive)
        let tap = LinkStats {
            rx_packets: 80,
            rx_dropped: 1,
            tx_packets: 100,
            tx_dropped: 7,
        };
        let g = tap.from_the_guest();
        assert_eq!((g.rx_packets, g.rx_dropped), (100, 0));
        assert_eq!((g.tx_packets, g.tx_dropped), (80, 1));
        let before = port(0, 0, 0);
        // the port took 98 and its socket dropped 2; it sent 81: no gap
        assert_eq!(raw_gaps(&port(98, 81, 2), &before, &g, 0, 0), (0, 0));
        // 10 vanished between tap and port (QEMU with the link down): the gap says so
        assert_eq!(raw_gaps(&port(88, 81, 2), &before, &g, 0, 0), (10, 0));
        // the port sent 3 the tap never saw
        assert_eq!(raw_gaps(&port(98, 84, 2), &before, &g, 0, 0), (0, 3));
    }
}
