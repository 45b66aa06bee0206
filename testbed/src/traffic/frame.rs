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

/// Bits of the measurement block's sequence field that carry the sequence number; the
/// 16 bits above them carry the run id, so a receiver ignores frames of an earlier run.
pub const SEQ_BITS: u32 = 48;

/// A frame from fabric host `src` to host `dst`, built with the shared header builder
/// (`canopy_control::kinds::header`, the one `canopyctl header` prints) plus a
/// measurement block: `run_id << 48 | seq` and the transmit timestamp. Source and
/// destination are the host MACs (`canopy_control::oracle::host_mac`), so nothing has to
/// fit in the payload and a 64-byte frame carries every kind's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFrame {
    /// Complete Ethernet frame (no FCS).
    pub bytes: Vec<u8>,
    /// Offset of the measurement block (sequence at +0, timestamp at +8, big-endian).
    pub meas_offset: usize,
    /// Run id written into the top 16 bits of every sequence field.
    pub run_id: u16,
}

/// What a receiver reads back from a generator frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tagged {
    /// Destination MAC (the addressed host).
    pub dst_mac: [u8; 6],
    /// Source MAC (the sending host).
    pub src_mac: [u8; 6],
    /// Run id of the sender.
    pub run_id: u16,
    /// Sequence number on the (source, destination) flow.
    pub seq: u64,
    /// Transmit timestamp, ns.
    pub ts_ns: u64,
}

impl HostFrame {
    /// Build the frame, `len` bytes long without FCS (60 = 64 on the wire). Fails when
    /// `len` is shorter than Ethernet + Canopy header, or longer than 9000.
    pub fn new(
        topo: &canopy_control::topology::Topology,
        kind: Kind,
        src: u32,
        dst: u32,
        len: usize,
        run_id: u16,
    ) -> Result<HostFrame> {
        let frame_err = |e: String| TestbedError::Frame(format!("h{src} -> h{dst}: {e}"));
        let plain = kinds::header(topo, kind, src, dst).map_err(|e| frame_err(e.to_string()))?;
        let h = wire::Header::new_checked(&plain[..]).map_err(|e| frame_err(e.to_string()))?;
        let mut p = wire::PrefixRepr::parse(&h);
        p.meas = Some(wire::Measurement::default());
        let hl = p.header_len(h.body().len());
        let min = wire::ETH_HEADER_LEN + hl;
        if len < min.max(wire::ETH_MIN_FRAME) || len > 9000 {
            return Err(frame_err(format!(
                "frame length {len} is outside {}..=9000 (Ethernet {} + Canopy header {hl} with measurement block, Ethernet minimum {})",
                min.max(wire::ETH_MIN_FRAME),
                wire::ETH_HEADER_LEN,
                wire::ETH_MIN_FRAME
            )));
        }
        p.payload_len = u16::try_from(len - min).unwrap_or(u16::MAX);
        let hdr = p.to_vec(h.body()).map_err(|e| frame_err(e.to_string()))?;
        let mac = |x| canopy_control::oracle::host_mac(topo, x);
        let mut bytes = wire::ethernet_frame(mac(dst), mac(src), &hdr, &[]);
        bytes.resize(len, 0);
        let mut f = HostFrame {
            bytes,
            meas_offset: min - wire::MEAS_LEN,
            run_id,
        };
        f.set_meas(0, 0);
        Ok(f)
    }

    /// Write sequence number (low 48 bits; the run id goes above) and timestamp into
    /// the measurement block (no allocation).
    pub fn set_meas(&mut self, seq: u64, ts_ns: u64) {
        let at = self.meas_offset;
        let s = (u64::from(self.run_id) << SEQ_BITS) | (seq & ((1 << SEQ_BITS) - 1));
        self.bytes[at..at + 8].copy_from_slice(&s.to_be_bytes());
        self.bytes[at + 8..at + 16].copy_from_slice(&ts_ns.to_be_bytes());
    }

    /// Read a received frame: Canopy EtherType and a valid prefix with a measurement
    /// block. `None` for anything else. Switches change cursor, flags and hop limit on
    /// the way, never the header length, so this works on the frame as the destination
    /// sees it.
    pub fn parse(frame: &[u8]) -> Option<Tagged> {
        if frame.get(12..14)? != wire::ETHERTYPE_CANOPY.to_be_bytes() {
            return None;
        }
        let h = wire::Header::new_checked(frame.get(wire::ETH_HEADER_LEN..)?).ok()?;
        let m = h.meas()?;
        let mac = |at: usize| -> [u8; 6] { frame[at..at + 6].try_into().unwrap_or_default() };
        Some(Tagged {
            dst_mac: mac(0),
            src_mac: mac(6),
            run_id: (m.seq >> SEQ_BITS) as u16,
            seq: m.seq & ((1 << SEQ_BITS) - 1),
            ts_ns: m.timestamp_ns,
        })
    }
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

    #[test]
    fn host_frames_of_every_kind_reach_their_host_with_tag_and_meas() {
        let spec = "fat-tree:k=4";
        let topo = canopy_control::build_str(spec).unwrap();
        for kind in [Kind::Sliced, Kind::PathId] {
            let o = canopy_control::oracle::Oracle::for_kind(&topo, kind).unwrap();
            let mut f = HostFrame::new(&topo, kind, 0, 13, 60, 0xabcd).unwrap();
            assert_eq!(f.bytes.len(), 60);
            f.set_meas(42, 1_000_000_007);
            let t = HostFrame::parse(&f.bytes).unwrap();
            let mac = |h| canopy_control::oracle::host_mac(&topo, h);
            assert_eq!((t.run_id, t.src_mac, t.dst_mac), (0xabcd, mac(0), mac(13)));
            assert_eq!((t.seq, t.ts_ns), (42, 1_000_000_007));
            // the header (with its measurement block) still routes to host 13
            let hdr = &f.bytes[wire::ETH_HEADER_LEN..f.meas_offset + wire::MEAS_LEN];
            let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
            let w = o.walk_header(0, 13, hdr, &mut rng);
            assert_eq!(w.delivered_to(), Some(13), "{kind}: {w:?}");
            assert!(HostFrame::parse(&f.bytes[..f.meas_offset + 3]).is_none());
        }
        let topo = canopy_control::build_str(spec).unwrap();
        assert!(HostFrame::new(&topo, Kind::Sliced, 0, 1, 30, 1).is_err());
        assert!(HostFrame::new(&topo, Kind::Sliced, 0, 1, 9001, 1).is_err());
        let f = HostFrame::new(&topo, Kind::Sliced, 0, 1, 1500, 1).unwrap();
        assert_eq!(f.bytes.len(), 1500);
    }
}
