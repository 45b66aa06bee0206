//! RX: walking the mmap RX ring (TPACKET_V3 blocks or TPACKET_V2 slots), each frame
//! handed to the caller in place with the VLAN tag the kernel took out put back.

use super::{sys, AfPacketPort, PortDrop, TpacketVersion};

fn read_u32(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
}
fn read_u16(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_ne_bytes([s[0], s[1]]))
}

/// The kernel's receive time in the frame header at `hdr` (`tp_sec`, `tp_nsec` at
/// `at`), in ns of `CLOCK_REALTIME`; 0 when unreadable.
#[inline]
fn kernel_stamp(b: &[u8], hdr: usize, at: (usize, usize)) -> u64 {
    match (read_u32(b, hdr + at.0), read_u32(b, hdr + at.1)) {
        (Some(s), Some(ns)) => u64::from(s) * 1_000_000_000 + u64::from(ns),
        _ => 0,
    }
}

/// The 802.1Q TPID, assumed when the kernel says a tag was taken out but not which TPID.
const ETH_P_8021Q: u16 = 0x8100;

/// Where a received frame lies in its block or slot, after giving it back the outer VLAN
/// tag the kernel took out of it.
///
/// On receive the kernel always moves the outermost 802.1Q/802.1ad tag of a frame into
/// the packet's metadata (`skb_vlan_untag`, whatever the interface's offload settings),
/// and a packet socket sees the frame without it, the tag in `tp_vlan_tci`/`tp_vlan_tpid`
/// and `TP_STATUS_VLAN_VALID` in the status. A switch must forward the frame as it was
/// on the wire, so the tag goes back in place: the 12 address bytes move 4 bytes down
/// into the gap the kernel leaves between the header and the frame (at least 14 bytes,
/// and the `sockaddr_ll` in it is never read), and the tag is written behind them. No
/// copy of the payload.
///
/// `buf[start..start + snap]` is the frame as the kernel left it, `floor` the first byte
/// that may be overwritten (the end of the fixed frame header) and `hdr` that header.
/// Returns the frame's new `(start, len)`, or `None` when there is no room (a kernel
/// that laid the block out differently): the caller counts it as a bad block.
#[inline]
fn restore_vlan(
    buf: &mut [u8],
    hdr: usize,
    start: usize,
    snap: usize,
    floor: usize,
    at: sys::VlanFields,
) -> Option<(usize, usize)> {
    let status = read_u32(buf, hdr + at.status)?;
    if status & sys::TP_STATUS_VLAN_VALID == 0 {
        return Some((start, snap));
    }
    let tci = if at.tci_u32 {
        read_u32(buf, hdr + at.tci)? as u16
    } else {
        read_u16(buf, hdr + at.tci)?
    };
    let tpid = if status & sys::TP_STATUS_VLAN_TPID_VALID != 0 {
        read_u16(buf, hdr + at.tpid)?
    } else {
        ETH_P_8021Q
    };
    let new = start.checked_sub(4).filter(|&n| n >= floor && snap >= 12)?;
    let head = buf.get_mut(new..start + 12)?;
    head.copy_within(4..16, 0);
    head[12..14].copy_from_slice(&tpid.to_be_bytes());
    head[14..16].copy_from_slice(&tci.to_be_bytes());
    Some((new, snap + 4))
}

impl AfPacketPort {
    /// Receive up to `max` frames, calling `f` with each frame's bytes (from the MAC
    /// header on). Walks the RX blocks user space owns in ring order, returns each block
    /// to the kernel once all its frames are consumed (a partly consumed block is kept
    /// for the next call). Returns the number of frames passed to `f`. Truncated frames
    /// (larger than the block) are dropped and counted, not passed.
    pub fn rx_burst(&mut self, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        self.rx_burst_mut(max, |d| f(d))
    }

    /// [`rx_burst`](Self::rx_burst) with each frame mutable in place (the ring slot is
    /// owned by user space until it is handed back), e.g. to run a decision that
    /// rewrites the header before copying the frame into a TX ring.
    pub fn rx_burst_mut(&mut self, max: usize, mut f: impl FnMut(&mut [u8])) -> usize {
        self.rx_burst_stamped(max, |d, _| f(d))
    }

    /// [`rx_burst_mut`](Self::rx_burst_mut) with each frame's kernel receive time
    /// (`tp_sec`/`tp_nsec` of its TPACKET header: a `CLOCK_REALTIME` software stamp, in
    /// ns; 0 when the header could not be read).
    pub fn rx_burst_stamped(&mut self, max: usize, f: impl FnMut(&mut [u8], u64)) -> usize {
        match self.rings.version {
            TpacketVersion::V3 => self.rx_burst_v3(max, f),
            TpacketVersion::V2 => self.rx_burst_v2(max, f),
        }
    }

    fn rx_burst_v2(&mut self, max: usize, mut f: impl FnMut(&mut [u8], u64)) -> usize {
        let fsize = self.rings.rx.frame_size as usize;
        let bsize = self.rings.rx.block_size as usize;
        let fpb = self.rings.rx.frames_per_block().max(1) as usize;
        let l = self.rings.layout;
        let mut delivered = 0;
        for _ in 0..max {
            let slot = self.rings.rx_slot as usize;
            let off = (slot / fpb) * bsize + (slot % fpb) * fsize;
            let Some(fr) = self.rings.map.rx_owned_mut(off, fsize, l.status) else {
                break;
            };
            match (
                read_u32(fr, l.len),
                read_u32(fr, l.snaplen),
                read_u16(fr, l.mac),
            ) {
                (Some(len), Some(snap), Some(mac)) if snap == len => {
                    let at = sys::V2_VLAN;
                    let ts = kernel_stamp(fr, 0, sys::V2_TS);
                    let span = restore_vlan(fr, 0, mac as usize, snap as usize, l.data, at);
                    match span.and_then(|(s, n)| fr.get_mut(s..s.checked_add(n)?)) {
                        Some(data) => {
                            self.stats.rx_frames += 1;
                            self.stats.rx_bytes += data.len() as u64;
                            f(data, ts);
                            delivered += 1;
                        }
                        None => self.stats.drops[PortDrop::RxBadBlock as usize] += 1,
                    }
                }
                (Some(_), Some(_), Some(_)) => {
                    self.stats.drops[PortDrop::RxTruncated as usize] += 1
                }
                _ => self.stats.drops[PortDrop::RxBadBlock as usize] += 1,
            }
            self.rings.map.rx_release(off, l.status);
            self.rings.rx_slot = (self.rings.rx_slot + 1) % self.rings.rx_slots;
        }
        delivered
    }

    fn rx_burst_v3(&mut self, max: usize, mut f: impl FnMut(&mut [u8], u64)) -> usize {
        let mut seen = 0usize;
        let mut delivered = 0usize;
        let bsize = self.rings.rx.block_size as usize;
        while seen < max {
            let off = self.rings.rx_block as usize * bsize;
            let Some(block) = self.rings.map.rx_owned_mut(off, bsize, sys::BD_STATUS) else {
                break;
            };
            let mut bad = false;
            if !self.rings.rx_in_block {
                match (
                    read_u32(block, sys::BD_NUM_PKTS),
                    read_u32(block, sys::BD_FIRST_PKT),
                ) {
                    (Some(n), Some(first)) => {
                        self.rings.rx_left = n;
                        self.rings.rx_pos = first;
                        self.rings.rx_in_block = true;
                    }
                    _ => bad = true,
                }
            }
            while !bad && self.rings.rx_left > 0 && seen < max {
                let pos = self.rings.rx_pos as usize;
                let hdr = (
                    read_u32(block, pos + sys::H3_NEXT),
                    read_u32(block, pos + sys::H3_SNAPLEN),
                    read_u32(block, pos + sys::H3_LEN),
                    read_u16(block, pos + sys::H3_MAC),
                );
                let (Some(next), Some(snap), Some(len), Some(mac)) = hdr else {
                    bad = true;
                    break;
                };
                let start = pos + mac as usize;
                if block.get(start..start + snap as usize).is_none() {
                    bad = true;
                    break;
                }
                seen += 1;
                self.rings.rx_left -= 1;
                if snap == len {
                    let floor = pos + sys::V3_FRAME.data;
                    let ts = kernel_stamp(block, pos, sys::H3_TS);
                    let span = restore_vlan(block, pos, start, snap as usize, floor, sys::V3_VLAN);
                    if let Some(data) = span.and_then(|(s, n)| block.get_mut(s..s + n)) {
                        self.stats.rx_frames += 1;
                        self.stats.rx_bytes += data.len() as u64;
                        f(data, ts);
                        delivered += 1;
                    } else {
                        self.stats.drops[PortDrop::RxBadBlock as usize] += 1;
                    }
                } else {
                    self.stats.drops[PortDrop::RxTruncated as usize] += 1;
                }
                if self.rings.rx_left > 0 {
                    if next == 0 {
                        bad = true;
                        break;
                    }
                    self.rings.rx_pos = self.rings.rx_pos.wrapping_add(next);
                }
            }
            if bad {
                self.count(PortDrop::RxBadBlock);
                self.rings.rx_left = 0;
            }
            if self.rings.rx_left == 0 {
                self.rings.map.rx_release(off, sys::BD_STATUS);
                self.rings.rx_in_block = false;
                self.rings.rx_block = (self.rings.rx_block + 1) % self.rings.rx.block_count;
            }
        }
        delivered
    }

    /// True when the next RX block (V3) or frame (V2) is owned by user space: a frame
    /// is waiting. One atomic load, no syscall.
    pub fn rx_ready(&self) -> bool {
        match self.rings.version {
            TpacketVersion::V3 => {
                self.rings.rx_in_block
                    || self.rings.map.rx_is_user(
                        self.rings.rx_block as usize * self.rings.rx.block_size as usize,
                        sys::BD_STATUS,
                    )
            }
            TpacketVersion::V2 => {
                let slot = self.rings.rx_slot as usize;
                let fpb = self.rings.rx.frames_per_block().max(1) as usize;
                let off = (slot / fpb) * self.rings.rx.block_size as usize
                    + (slot % fpb) * self.rings.rx.frame_size as usize;
                self.rings.map.rx_is_user(off, self.rings.layout.status)
            }
        }
    }
}
