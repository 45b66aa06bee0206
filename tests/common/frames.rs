//! Test frames shared by the port and engine tests: a numbered frame of any length, the
//! same with VLAN tags, a 64-byte IPv4/UDP frame, and the `CNPY` payload that marks the
//! engine tests' frames and carries their sequence number.
#![allow(dead_code)] // each test binary uses a subset

use super::netns::ETHERTYPE;

/// A test frame of `len` bytes carrying `seq`, payload bytes derived from both.
pub fn frame(seq: u32, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len.max(18)];
    f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xbb]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xaa]);
    f[12..14].copy_from_slice(&ETHERTYPE.to_be_bytes());
    f[14..18].copy_from_slice(&seq.to_be_bytes());
    for (i, b) in f[18..].iter_mut().enumerate() {
        *b = (seq as usize * 7 + i) as u8;
    }
    f
}

/// `frame(seq, len)` with VLAN tags (`(tpid, tci)`, outermost first) after the addresses.
pub fn tagged(seq: u32, len: usize, tags: &[(u16, u16)]) -> Vec<u8> {
    let mut f = frame(seq, len);
    for &(tpid, tci) in tags.iter().rev() {
        let tag = [tpid.to_be_bytes(), tci.to_be_bytes()].concat();
        f.splice(12..12, tag);
    }
    f
}

/// An IPv4/UDP frame of 64 bytes (documentation addresses, never routed: the destination
/// MAC is not the receiver's, so the kernel stack drops it as PACKET_OTHERHOST) with
/// source port `sport`; the sequence number is in the payload.
pub fn udp_frame(seq: u32, sport: u16) -> Vec<u8> {
    let mut f = vec![0u8; 64];
    f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xbb]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0xaa]);
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&50u16.to_be_bytes());
    ip[8] = 1; // TTL
    ip[9] = 17; // UDP
    ip[12..16].copy_from_slice(&[192, 0, 2, 1]);
    ip[16..20].copy_from_slice(&[192, 0, 2, 2]);
    f[34..36].copy_from_slice(&sport.to_be_bytes());
    f[36..38].copy_from_slice(&9u16.to_be_bytes()); // discard
    f[38..40].copy_from_slice(&30u16.to_be_bytes());
    f[42..46].copy_from_slice(&seq.to_be_bytes());
    f
}

/// Frames with VLAN tags as they are on the wire, between two untagged ones: 802.1Q and
/// 802.1ad outer tags, a priority/DEI/VID 0 tag, stacked tags and three of them.
pub fn vlan_frames() -> Vec<Vec<u8>> {
    vec![
        frame(0, 60),
        tagged(1, 60, &[(0x8100, 0x0064)]),
        tagged(2, 1400, &[(0x8100, 0xe00a)]),
        tagged(3, 64, &[(0x8100, 0x0000)]),
        tagged(4, 64, &[(0x88a8, 0x0123)]),
        tagged(5, 80, &[(0x88a8, 0x0fff), (0x8100, 0x2005)]),
        tagged(6, 90, &[(0x8100, 1), (0x8100, 2), (0x8100, 3)]),
        frame(7, 61),
    ]
}

pub const MAGIC: &[u8; 4] = b"CNPY";

/// Payload of the engine tests' frames: magic and sequence number.
pub fn payload(seq: u32) -> [u8; 8] {
    let mut p = [0u8; 8];
    p[..4].copy_from_slice(MAGIC);
    p[4..8].copy_from_slice(&seq.to_be_bytes());
    p
}

/// Where a payload of `len` bytes starting with [`MAGIC`] starts in `f` (frames shorter
/// than 60 bytes are padded after it).
pub fn magic_at(f: &[u8], len: usize) -> Option<usize> {
    (14..f.len().saturating_sub(len - 1))
        .rev()
        .find(|&i| &f[i..i + 4] == MAGIC)
}

/// The sequence number after [`MAGIC`] in a payload of `len` bytes.
pub fn seq_in(f: &[u8], len: usize) -> u32 {
    let i = magic_at(f, len).expect("our frame") + 4;
    u32::from_be_bytes([f[i], f[i + 1], f[i + 2], f[i + 3]])
}

/// Where the [`payload`] starts.
pub fn at(f: &[u8]) -> Option<usize> {
    magic_at(f, 8)
}

pub fn ours(f: &[u8]) -> bool {
    at(f).is_some()
}

pub fn seq_of(f: &[u8]) -> u32 {
    seq_in(f, 8)
}
