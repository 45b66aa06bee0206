//! The frames the bench sends: a real sliced-flit frame from host h0 to host h1 through
//! the k=4 fat-tree edge switch `edge-p0-e0`, and the measurement stamp in its payload.

use crate::error::{Result, TestbedError};
use canopy_control::kinds;
use canopy_dataplane::wire::{self, Kind};

/// Topology of the canopy forwarder.
pub const TOPOLOGY: &str = "fat-tree:k=4";
/// The switch the canopy forwarder runs: the first edge switch (pod 0, edge 0; "e0_0"
/// in the issue), with hosts h0 and h1 on ports 0 and 1 and up ports 2 and 3.
pub const SWITCH: &str = "edge-p0-e0";
/// First payload word of every bench frame ("CVB1").
pub const MAGIC: u32 = 0x4356_4231;
/// Bytes of the stamp: magic (4), sequence (4), CLOCK_MONOTONIC ns (8).
pub const STAMP_LEN: usize = 16;

/// The bench frame and where the edge switch's ports lead.
#[derive(Debug, Clone)]
pub struct BenchFrame {
    /// Complete Ethernet frame (no FCS).
    pub bytes: Vec<u8>,
    /// Offset of the stamp (right after the Canopy header).
    pub stamp_offset: usize,
    /// Number of ports of the switch.
    pub ports: usize,
    /// Port of the switch that leads to the source host.
    pub src_port: usize,
    /// Port of the switch that leads to the destination host.
    pub dst_port: usize,
    /// Source and destination host indices.
    pub hosts: (u32, u32),
}

impl BenchFrame {
    /// Build the frame, `len` bytes long (at least header + stamp; 60 = a 64-byte
    /// frame on the wire with its FCS).
    pub fn new(len: usize) -> Result<BenchFrame> {
        let topo =
            canopy_control::build_str(TOPOLOGY).map_err(|e| TestbedError::Frame(e.to_string()))?;
        let sw = topo
            .switches
            .iter()
            .find(|s| s.name == SWITCH)
            .ok_or_else(|| TestbedError::Frame(format!("{TOPOLOGY} has no switch {SWITCH}")))?;
        let hosts = sw.host_ports();
        let [(src_port, h0), (dst_port, h1), ..] = hosts[..] else {
            return Err(TestbedError::Frame(format!(
                "{SWITCH} has fewer than two host ports"
            )));
        };
        let hd = kinds::header(&topo, Kind::Sliced, h0, h1)
            .map_err(|e| TestbedError::Frame(e.to_string()))?;
        let mac = |h| canopy_control::oracle::host_mac(&topo, h);
        let mut bytes = wire::ethernet_frame(mac(h1), mac(h0), &hd, &[0; STAMP_LEN]);
        let stamp_offset = wire::ETH_HEADER_LEN + hd.len();
        if len < stamp_offset + STAMP_LEN {
            return Err(TestbedError::Frame(format!(
                "frame length {len} is shorter than Ethernet + Canopy header + stamp ({})",
                stamp_offset + STAMP_LEN
            )));
        }
        bytes.resize(len.max(bytes.len()), 0);
        bytes.truncate(len);
        let mut f = BenchFrame {
            bytes,
            stamp_offset,
            ports: sw.ports.len(),
            src_port,
            dst_port,
            hosts: (h0, h1),
        };
        f.stamp(0, 0);
        Ok(f)
    }

    /// Write magic, `seq` and `ts_ns` into the payload.
    pub fn stamp(&mut self, seq: u32, ts_ns: u64) {
        write_stamp(&mut self.bytes[self.stamp_offset..], seq, ts_ns);
    }

    /// `(seq, ts_ns)` of a received frame that carries a bench stamp at the same offset.
    pub fn read_stamp(&self, frame: &[u8]) -> Option<(u32, u64)> {
        read_stamp(frame.get(self.stamp_offset..)?)
    }
}

fn write_stamp(p: &mut [u8], seq: u32, ts: u64) {
    p[..4].copy_from_slice(&MAGIC.to_be_bytes());
    p[4..8].copy_from_slice(&seq.to_be_bytes());
    p[8..16].copy_from_slice(&ts.to_be_bytes());
}

fn read_stamp(p: &[u8]) -> Option<(u32, u64)> {
    if p.len() < STAMP_LEN || u32::from_be_bytes(p[..4].try_into().ok()?) != MAGIC {
        return None;
    }
    Some((
        u32::from_be_bytes(p[4..8].try_into().ok()?),
        u64::from_be_bytes(p[8..16].try_into().ok()?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_is_a_real_sliced_frame_through_e0_0() {
        let mut f = BenchFrame::new(60).unwrap();
        assert_eq!(f.bytes.len(), 60);
        assert_eq!(f.ports, 4);
        assert_ne!(f.src_port, f.dst_port);
        assert_eq!(&f.bytes[12..14], &wire::ETHERTYPE_CANOPY.to_be_bytes());
        // the switch's own decision sends it from the source port to the destination port
        let topo = canopy_control::build_str(TOPOLOGY).unwrap();
        let idx = topo.switches.iter().position(|s| s.name == SWITCH).unwrap();
        let tables = kinds::tables(&topo, Kind::Sliced).unwrap();
        let mut b = f.bytes.clone();
        let v = canopy_dataplane::decide(&tables[idx], f.src_port as u16, &mut b);
        assert_eq!(
            v,
            canopy_dataplane::Verdict::Port(f.dst_port as u16),
            "{v:?}"
        );
        f.stamp(7, 123_456);
        assert_eq!(f.read_stamp(&f.bytes), Some((7, 123_456)));
        assert_eq!(f.read_stamp(&f.bytes[..f.stamp_offset + 3]), None);
        assert!(BenchFrame::new(20).is_err());
    }
}
