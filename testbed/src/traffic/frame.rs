//! The one frame the testbed sends: a host-to-host Canopy frame whose header carries the
//! wire format's measurement block (`docs/wire-format.md`: sequence number and transmit
//! timestamp, behind the prefix's MEAS flag). The fabric generator, `canopy-testbed
//! check`, the reflector, pcap replay and the vethbench all send it; it is encoded and
//! parsed only through [`canopy_dataplane::wire`] ([`wire::PrefixRepr`] to build,
//! [`wire::Header::set_meas`] and [`wire::Header::meas`] to stamp and read,
//! [`wire::canopy_offset`] and [`wire::EthernetFrame`] for the Ethernet part).
//!
//! The testbed's one convention on top of the wire format: the top 16 bits of the
//! sequence field carry a run id ([`SEQ_BITS`]), so a receiver tells this run's frames
//! from an earlier run's (or a warm-up's).

use crate::error::{Result, TestbedError};
use canopy_control::kinds;
use canopy_dataplane::wire::{self, Kind, Measurement};

/// Bits of the measurement block's sequence field that carry the sequence number; the
/// 16 bits above them carry the run id, so a receiver ignores frames of an earlier run.
pub const SEQ_BITS: u32 = 48;

/// Longest frame the generator builds (without FCS).
pub const MAX_LEN: usize = 9000;

const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;

/// The measurement block's sequence field for `seq` (low 48 bits) of run `run_id`.
fn tagged_seq(run_id: u16, seq: u64) -> u64 {
    (u64::from(run_id) << SEQ_BITS) | (seq & SEQ_MASK)
}

/// A frame from fabric host `src` to host `dst`, built with the shared header builder
/// (`canopy_control::kinds::header`, the one `canopyctl header` prints) plus a
/// measurement block. Source and destination are the host MACs
/// (`canopy_control::oracle::host_mac`), so nothing has to fit in the payload and a
/// 64-byte frame carries every kind's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFrame {
    /// Complete Ethernet frame (no FCS), the Canopy header right after the Ethernet
    /// header.
    pub bytes: Vec<u8>,
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
    /// `len` is shorter than Ethernet + Canopy header (or the Ethernet minimum), or
    /// longer than [`MAX_LEN`].
    pub fn new(
        topo: &canopy_control::topology::Topology,
        kind: Kind,
        src: u32,
        dst: u32,
        len: usize,
        run_id: u16,
    ) -> Result<HostFrame> {
        Self::with_hops(topo, kind, src, dst, len, run_id, 0)
    }

    /// [`new`](Self::new), asking every switch on the way for a hop record (flag HOPS,
    /// `docs/wire-format.md` §2.1) in one of `slots` record slots (none for 0). The
    /// slots make the header longer: the frame is `len` bytes or the header's length,
    /// whichever is more.
    pub fn with_hops(
        topo: &canopy_control::topology::Topology,
        kind: Kind,
        src: u32,
        dst: u32,
        len: usize,
        run_id: u16,
        slots: u8,
    ) -> Result<HostFrame> {
        let frame_err = |e: String| TestbedError::Frame(format!("h{src} -> h{dst}: {e}"));
        let plain = kinds::header(topo, kind, src, dst).map_err(|e| frame_err(e.to_string()))?;
        let h = wire::Header::new_checked(&plain[..]).map_err(|e| frame_err(e.to_string()))?;
        let mut p = wire::PrefixRepr::parse(&h);
        p.meas = Some(Measurement {
            seq: tagged_seq(run_id, 0),
            timestamp_ns: 0,
        });
        p.hops = (slots > 0).then(|| wire::hops::HopArea::new(slots));
        let hl = p.header_len(h.body().len());
        let min = wire::ETH_HEADER_LEN + hl;
        let len = if slots > 0 { len.max(min) } else { len };
        if len < min.max(wire::ETH_MIN_FRAME) || len > MAX_LEN {
            return Err(frame_err(format!(
                "frame length {len} is outside {}..={MAX_LEN} (Ethernet {} + Canopy header {hl} with measurement block, Ethernet minimum {})",
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
        Ok(HostFrame { bytes, run_id })
    }

    /// Write sequence number (low 48 bits; the run id goes above) and timestamp into
    /// the measurement block (no allocation, no check: the frame was built with one).
    #[inline]
    pub fn set_meas(&mut self, seq: u64, ts_ns: u64) {
        wire::Header::new_unchecked(&mut self.bytes[wire::ETH_HEADER_LEN..]).set_meas(
            Measurement {
                seq: tagged_seq(self.run_id, seq),
                timestamp_ns: ts_ns,
            },
        );
    }

    /// Read a received frame: Canopy EtherType and a valid prefix with a measurement
    /// block. `None` for anything else. Switches change cursor, flags and hop limit on
    /// the way, never the header length, so this works on the frame as the destination
    /// sees it.
    pub fn parse(frame: &[u8]) -> Option<Tagged> {
        let eth = wire::EthernetFrame::new_checked(frame).ok()?;
        let at = wire::canopy_offset(frame).ok()?;
        let m = wire::Header::new_checked(&frame[at..]).ok()?.meas()?;
        Some(Tagged {
            dst_mac: eth.dst(),
            src_mac: eth.src(),
            run_id: (m.seq >> SEQ_BITS) as u16,
            seq: m.seq & SEQ_MASK,
            ts_ns: m.timestamp_ns,
        })
    }
}

/// Whether `frame` is a Canopy frame with a measurement block (one [`stamp`] can write).
pub fn has_meas(frame: &[u8]) -> bool {
    wire::canopy_offset(frame)
        .ok()
        .and_then(|at| wire::Header::new_checked(&frame[at..]).ok())
        .is_some_and(|h| h.has_meas())
}

/// Write run id, sequence number and timestamp into the measurement block of any
/// Canopy frame that has one (a frame read from a pcap file); false, and nothing
/// written, when it has none.
pub fn stamp(frame: &mut [u8], run_id: u16, seq: u64, ts_ns: u64) -> bool {
    let Ok(at) = wire::canopy_offset(frame) else {
        return false;
    };
    let Ok(mut h) = wire::Header::new_checked(&mut frame[at..]) else {
        return false;
    };
    if !h.has_meas() {
        return false;
    }
    h.set_meas(Measurement {
        seq: tagged_seq(run_id, seq),
        timestamp_ns: ts_ns,
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Length of the Canopy header (with its measurement block) of `f`.
    fn header_len(f: &HostFrame) -> usize {
        wire::Header::new_checked(&f.bytes[wire::ETH_HEADER_LEN..])
            .unwrap()
            .header_len()
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
            // the block as the wire format reads it
            let m = wire::Header::new_checked(&f.bytes[wire::ETH_HEADER_LEN..])
                .unwrap()
                .meas()
                .unwrap();
            assert_eq!(m.seq, 0xabcd << SEQ_BITS | 42);
            assert_eq!(m.timestamp_ns, 1_000_000_007);
            // the header (with its measurement block) still routes to host 13
            let end = wire::ETH_HEADER_LEN + header_len(&f);
            let hdr = &f.bytes[wire::ETH_HEADER_LEN..end];
            let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
            let w = o.walk_header(0, 13, hdr, &mut rng);
            assert_eq!(w.delivered_to(), Some(13), "{kind}: {w:?}");
            assert!(HostFrame::parse(&f.bytes[..end - 13]).is_none());
        }
        let topo = canopy_control::build_str(spec).unwrap();
        assert!(HostFrame::new(&topo, Kind::Sliced, 0, 1, 30, 1).is_err());
        assert!(HostFrame::new(&topo, Kind::Sliced, 0, 1, 9001, 1).is_err());
        let f = HostFrame::new(&topo, Kind::Sliced, 0, 1, 1500, 1).unwrap();
        assert_eq!(f.bytes.len(), 1500);
    }

    #[test]
    fn any_frame_with_a_block_can_be_restamped_and_others_are_left_alone() {
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let mut f = HostFrame::new(&topo, Kind::Sliced, 2, 5, 64, 3).unwrap();
        f.set_meas(9, 9);
        assert!(has_meas(&f.bytes));
        assert!(stamp(&mut f.bytes, 0x77, 1 << SEQ_BITS | 5, 1234));
        let t = HostFrame::parse(&f.bytes).unwrap();
        assert_eq!((t.run_id, t.seq, t.ts_ns), (0x77, 5, 1234));
        // not Canopy (IPv4), or Canopy without a block: untouched
        let mut ip4 = f.bytes.clone();
        ip4[wire::ETH_HEADER_LEN - 2..wire::ETH_HEADER_LEN]
            .copy_from_slice(&0x0800u16.to_be_bytes());
        let before = ip4.clone();
        assert!(!has_meas(&ip4) && !stamp(&mut ip4, 1, 1, 1));
        assert_eq!(ip4, before);
        assert!(HostFrame::parse(&ip4).is_none());
        let plain = kinds::header(&topo, Kind::Sliced, 2, 5).unwrap();
        let mut no_block = wire::ethernet_frame([2; 6], [4; 6], &plain, &[]);
        let before = no_block.clone();
        assert!(!has_meas(&no_block) && !stamp(&mut no_block, 1, 1, 1));
        assert_eq!(no_block, before);
    }
}
