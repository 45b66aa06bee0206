//! Giving up privileges once the ports are open: the drop itself is `canopy-privs`'s
//! (shared with `canopyd`; its module doc lists the steps), re-exported here; what is
//! the switch's own is the kept set, [`needed`].
//!
//! [`Identity::resolve`] looks the configured `[switch] user` / `group` up when the
//! configuration is loaded (an unknown name stops the start, exit status 2, before any
//! port opens). [`drop_privileges`] runs on the main thread after the ports, the
//! management socket and the TCP endpoint are open and before any worker or management
//! thread starts (they inherit the main thread's credentials).
//!
//! The kept set ([`needed`]) is what re-opening a port after its interface was
//! re-created needs: AF_PACKET `CAP_NET_RAW` (the new `socket(AF_PACKET)`), AF_XDP
//! `CAP_NET_RAW` (the socket), `CAP_NET_ADMIN` and `CAP_BPF` (the XDP program, the
//! XSKMAP, the link) and `CAP_IPC_LOCK` (the UMEM beyond `RLIMIT_MEMLOCK`), DPDK and
//! `mem` ports nothing (they never re-open). With `reopen_caps = false` nothing is
//! kept. I/O on an open socket and a link that goes down and up again (same ifindex)
//! need no capability at all.

use crate::config::PortSpec;
pub use canopy_privs::{cap, drop_privileges, CapSet, Dropped, Identity, PrivError};

/// The capabilities ports of these backends need after they are open: to re-open one
/// whose interface was re-created (`reopen`), nothing otherwise.
pub fn needed(ports: &[PortSpec], reopen: bool) -> CapSet {
    if !reopen {
        return CapSet::EMPTY;
    }
    let mut m = CapSet::EMPTY;
    for p in ports {
        let c = match p {
            PortSpec::AfPacket { .. } => CapSet::of(&[cap::NET_RAW]),
            PortSpec::AfXdp { .. } => {
                CapSet::of(&[cap::NET_RAW, cap::NET_ADMIN, cap::BPF, cap::IPC_LOCK])
            }
            PortSpec::Dpdk { .. } | PortSpec::Mem { .. } => CapSet::EMPTY,
        };
        m.0 |= c.0;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_dataplane::port::afpacket::AfPacketConfig;
    use canopy_dataplane::port::afxdp::AfXdpConfig;

    #[test]
    fn needed_capabilities_per_backend() {
        let afp = PortSpec::AfPacket {
            interface: "s0".into(),
            cfg: AfPacketConfig::default(),
        };
        let xdp = PortSpec::AfXdp {
            interface: "s1".into(),
            cfg: AfXdpConfig::default(),
            queues: 1,
        };
        let mem = PortSpec::Mem {
            name: "m".into(),
            capacity: 16,
        };
        let dpdk = PortSpec::Dpdk {
            device: "net_af_packet0".into(),
            queues: 1,
            rx_desc: 512,
            tx_desc: 512,
        };
        assert_eq!(needed(std::slice::from_ref(&mem), true), CapSet::EMPTY);
        assert_eq!(needed(std::slice::from_ref(&dpdk), true), CapSet::EMPTY);
        assert_eq!(
            needed(&[afp.clone(), mem.clone()], true).to_string(),
            "CAP_NET_RAW"
        );
        assert_eq!(
            needed(&[afp.clone(), xdp.clone()], true).to_string(),
            "CAP_NET_ADMIN,CAP_NET_RAW,CAP_IPC_LOCK,CAP_BPF"
        );
        assert_eq!(needed(&[afp, xdp, mem, dpdk], false), CapSet::EMPTY);
    }
}
