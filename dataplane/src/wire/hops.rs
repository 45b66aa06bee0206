//! Per-hop records (prefix flag HOPS, `docs/wire-format.md` §2.2): where a frame's
//! one-way latency went, written by each switch it crosses.
//!
//! The source reserves the whole area, so the frame length never changes in flight: an
//! 8-byte descriptor right after the prefix (slots, count, overflow) and `slots` records
//! of [`RECORD_LEN`] bytes at the end of the header. A switch writes record `count` and
//! increments `count`; with every slot used it sets [`DESC_OVERFLOW`] instead and
//! writes nothing. [`Header`](super::Header) checks the descriptor; the functions here
//! write and read the records in place.

use super::{be16, be32, be64, need, Result, WireError, PREFIX_LEN};

/// Length of the descriptor that follows the prefix when HOPS is set.
pub const DESC_LEN: usize = 8;
/// Length of one hop record.
pub const RECORD_LEN: usize = 48;
/// Descriptor flag: a switch found every slot used and forwarded without writing.
pub const DESC_OVERFLOW: u8 = 0x80;
/// Descriptor flag bits defined in this version; the rest must be zero.
pub const DESC_FLAGS_DEFINED: u8 = DESC_OVERFLOW;

/// Clock of a record's timestamps (record byte 12).
pub mod clock {
    /// No timestamps in this record.
    pub const NONE: u8 = 0;
    /// `CLOCK_MONOTONIC` of the switch's machine, in ns (canopy-switch): the clock the
    /// traffic generator stamps the measurement block with on the same machine.
    pub const MONOTONIC: u8 = 1;
    /// A clock of the switch's own, not comparable with the hosts' (bmv2: microseconds
    /// since `simple_switch` started, times 1000).
    pub const SWITCH_LOCAL: u8 = 2;
}

mod desc_field {
    pub const SLOTS: usize = 0;
    pub const COUNT: usize = 1;
    pub const FLAGS: usize = 2;
    pub const RESERVED: core::ops::Range<usize> = 3..8;
}

mod rec_field {
    pub const SWITCH: usize = 0;
    pub const INGRESS: usize = 4;
    pub const EGRESS: usize = 6;
    pub const QUEUE: usize = 8;
    pub const CLOCK: usize = 12;
    pub const KERNEL_RX: usize = 16;
    pub const POLL: usize = 24;
    pub const TX: usize = 32;
    pub const QUEUE_DELAY: usize = 40;
}

/// The descriptor: how many slots the source reserved, how many are used, and whether
/// a switch found them all used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HopArea {
    /// Record slots at the end of the header (0..=255).
    pub slots: u8,
    /// Records written so far (≤ `slots`); the next switch writes slot `count`.
    pub count: u8,
    /// A switch found `count == slots` and forwarded without writing.
    pub overflow: bool,
}

impl HopArea {
    /// The area a source puts on a frame: `slots` empty slots.
    pub fn new(slots: u8) -> HopArea {
        HopArea {
            slots,
            count: 0,
            overflow: false,
        }
    }

    /// Parse and check the 8-byte descriptor.
    pub fn parse(desc: &[u8]) -> Result<HopArea> {
        need(desc, DESC_LEN, "hops.desc")?;
        let flags = desc[desc_field::FLAGS];
        if flags & !DESC_FLAGS_DEFINED != 0 {
            return Err(WireError::Reserved {
                field: "hops.flags",
                value: u64::from(flags & !DESC_FLAGS_DEFINED),
            });
        }
        let mut rsvd = [0u8; 8];
        rsvd[3..].copy_from_slice(&desc[desc_field::RESERVED]);
        if rsvd != [0; 8] {
            return Err(WireError::Reserved {
                field: "hops.reserved",
                value: u64::from_be_bytes(rsvd),
            });
        }
        let a = HopArea::read(desc);
        if a.count > a.slots {
            return Err(WireError::BadValue {
                field: "hops.count",
                value: u64::from(a.count),
                why: "more records than slots",
            });
        }
        Ok(a)
    }

    /// The descriptor's fields without checks (the header was checked).
    fn read(desc: &[u8]) -> HopArea {
        HopArea {
            slots: desc[desc_field::SLOTS],
            count: desc[desc_field::COUNT],
            overflow: desc[desc_field::FLAGS] & DESC_OVERFLOW != 0,
        }
    }

    /// Write the descriptor into `out[..DESC_LEN]`.
    pub fn emit(&self, out: &mut [u8]) {
        out[desc_field::SLOTS] = self.slots;
        out[desc_field::COUNT] = self.count;
        out[desc_field::FLAGS] = if self.overflow { DESC_OVERFLOW } else { 0 };
        out[desc_field::RESERVED].fill(0);
    }

    /// Bytes of the record slots.
    pub fn slots_len(&self) -> usize {
        usize::from(self.slots) * RECORD_LEN
    }
}

/// One hop record (48 bytes). Timestamps are in ns of [`HopRecord::clock`]; 0 means
/// unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HopRecord {
    /// The switch (canopy-switch: its index in the topology, or `[switch] id`).
    pub switch: u32,
    /// Port the frame arrived on.
    pub ingress: u16,
    /// Port the switch sent it to.
    pub egress: u16,
    /// Frames ahead of it towards the egress when the switch decided (saturating).
    pub queue: u32,
    /// Clock of the timestamps ([`clock`]).
    pub clock: u8,
    /// When the kernel received the frame (AF_PACKET's `tp_sec`/`tp_nsec`), 0 unknown.
    pub kernel_rx_ns: u64,
    /// When the switch's receive burst that held the frame returned.
    pub poll_ns: u64,
    /// When the switch handed the frame to its egress port's transmit path.
    pub tx_ns: u64,
    /// Time in the egress queue when the switch measures it (bmv2), 0 unknown.
    pub queue_delay_ns: u32,
}

impl HopRecord {
    /// Parse a record from `b[..RECORD_LEN]`. Reserved bytes are not checked (switches
    /// write them 0; nothing depends on them).
    pub fn parse(b: &[u8]) -> Result<HopRecord> {
        need(b, RECORD_LEN, "hops.record")?;
        Ok(HopRecord {
            switch: be32(b, rec_field::SWITCH),
            ingress: be16(b, rec_field::INGRESS),
            egress: be16(b, rec_field::EGRESS),
            queue: be32(b, rec_field::QUEUE),
            clock: b[rec_field::CLOCK],
            kernel_rx_ns: be64(b, rec_field::KERNEL_RX),
            poll_ns: be64(b, rec_field::POLL),
            tx_ns: be64(b, rec_field::TX),
            queue_delay_ns: be32(b, rec_field::QUEUE_DELAY),
        })
    }

    /// Write the record into `out[..RECORD_LEN]`, reserved bytes 0.
    pub fn emit(&self, out: &mut [u8]) {
        let out = &mut out[..RECORD_LEN];
        out.fill(0);
        out[rec_field::SWITCH..][..4].copy_from_slice(&self.switch.to_be_bytes());
        out[rec_field::INGRESS..][..2].copy_from_slice(&self.ingress.to_be_bytes());
        out[rec_field::EGRESS..][..2].copy_from_slice(&self.egress.to_be_bytes());
        out[rec_field::QUEUE..][..4].copy_from_slice(&self.queue.to_be_bytes());
        out[rec_field::CLOCK] = self.clock;
        out[rec_field::KERNEL_RX..][..8].copy_from_slice(&self.kernel_rx_ns.to_be_bytes());
        out[rec_field::POLL..][..8].copy_from_slice(&self.poll_ns.to_be_bytes());
        out[rec_field::TX..][..8].copy_from_slice(&self.tx_ns.to_be_bytes());
        out[rec_field::QUEUE_DELAY..][..4].copy_from_slice(&self.queue_delay_ns.to_be_bytes());
    }
}

/// What a switch did with a frame's record area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HopWrite {
    /// It wrote this slot.
    Slot(u8),
    /// Every slot was used: it set the overflow flag.
    Full,
}

/// Offset of the Canopy header in `frame` when the frame asks for hop records (flag
/// HOPS), for a frame the decision accepted. An untagged frame costs one EtherType
/// compare and one flag test; tagged frames take a slower path.
#[inline(always)]
pub fn requested(frame: &[u8]) -> Option<usize> {
    use super::{ETHERTYPE_CANOPY, ETH_HEADER_LEN, FLAG_HOPS};
    match frame.get(ETH_HEADER_LEN - 2..ETH_HEADER_LEN + 2) {
        Some(&[a, b, _, flags]) if u16::from_be_bytes([a, b]) == ETHERTYPE_CANOPY => {
            (flags & FLAG_HOPS != 0).then_some(ETH_HEADER_LEN)
        }
        _ => requested_tagged(frame),
    }
}

#[cold]
#[inline(never)]
fn requested_tagged(frame: &[u8]) -> Option<usize> {
    let off = super::canopy_offset(frame).ok()?;
    let flags = *frame.get(off + 1)?;
    (flags & super::FLAG_HOPS != 0).then_some(off)
}

/// Where the record area of the checked header `hdr` (prefix first) is: its descriptor
/// and the offset of slot 0. `None` without HOPS or when the header is too short.
fn locate(hdr: &[u8]) -> Option<(HopArea, usize)> {
    if hdr.get(1)? & super::FLAG_HOPS == 0 {
        return None;
    }
    let hl = usize::from(*hdr.get(3)?) * 8;
    let a = HopArea::read(hdr.get(PREFIX_LEN..PREFIX_LEN + DESC_LEN)?);
    let at = hl.checked_sub(a.slots_len())?;
    (at >= PREFIX_LEN + DESC_LEN && hl <= hdr.len()).then_some((a, at))
}

/// The switch's part: write `rec` into the next free slot of the checked header `hdr`
/// (prefix first) and count it, or set the overflow flag when every slot is used.
/// `None` when the header has no record area.
pub fn write(hdr: &mut [u8], rec: &HopRecord) -> Option<HopWrite> {
    let (a, at) = locate(hdr)?;
    if a.count >= a.slots {
        hdr[PREFIX_LEN + desc_field::FLAGS] |= DESC_OVERFLOW;
        return Some(HopWrite::Full);
    }
    let slot = at + usize::from(a.count) * RECORD_LEN;
    rec.emit(&mut hdr[slot..slot + RECORD_LEN]);
    hdr[PREFIX_LEN + desc_field::COUNT] = a.count + 1;
    Some(HopWrite::Slot(a.count))
}

/// Set the TX-handoff time of the last record written (slot `count - 1`) of the checked
/// header `hdr`. False when there is none.
pub fn set_last_tx(hdr: &mut [u8], tx_ns: u64) -> bool {
    let Some((a, at)) = locate(hdr) else {
        return false;
    };
    let Some(last) = a.count.checked_sub(1) else {
        return false;
    };
    let f = at + usize::from(last) * RECORD_LEN + rec_field::TX;
    hdr[f..f + 8].copy_from_slice(&tx_ns.to_be_bytes());
    true
}

/// The descriptor and the records written so far of the checked header `hdr`, in hop
/// order (empty without HOPS).
pub fn records(hdr: &[u8]) -> Option<(HopArea, impl Iterator<Item = HopRecord> + '_)> {
    let (a, at) = locate(hdr)?;
    let n = usize::from(a.count.min(a.slots));
    let it = (0..n).filter_map(move |i| {
        let s = at + i * RECORD_LEN;
        HopRecord::parse(hdr.get(s..s + RECORD_LEN)?).ok()
    });
    Some((a, it))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{doc_vector, Header, PrefixRepr, FLAG_HOPS, FLAG_MEAS};

    fn h1() -> Vec<u8> {
        doc_vector("H1").unwrap().bytes
    }

    fn sample() -> HopRecord {
        HopRecord {
            switch: 7,
            ingress: 1,
            egress: 3,
            queue: 2,
            clock: clock::MONOTONIC,
            kernel_rx_ns: 1_000_000_000,
            poll_ns: 1_000_002_000,
            tx_ns: 1_000_003_500,
            queue_delay_ns: 0,
        }
    }

    #[test]
    fn the_source_state_is_h1_and_its_body_is_s1() {
        let s1 = doc_vector("S1").unwrap().bytes;
        let h = Header::new_checked(&s1[..]).unwrap();
        let mut p = PrefixRepr::parse(&h);
        p.hops = Some(HopArea::new(2));
        let v = p.to_vec(h.body()).unwrap();
        assert_eq!(v, h1());
        let back = Header::new_checked(&v[..]).unwrap();
        assert_eq!(back.flags(), FLAG_HOPS);
        assert_eq!(
            back.body(),
            h.body(),
            "the body moves behind the descriptor"
        );
        assert_eq!(back.body_offset(), PREFIX_LEN + DESC_LEN);
        assert_eq!(back.hop_area(), Some(HopArea::new(2)));
        assert_eq!(back.header_len(), 8 + 8 + 16 + 2 * RECORD_LEN);
        assert_eq!(PrefixRepr::parse(&back), p);
    }

    #[test]
    fn a_switch_writes_the_next_slot_then_sets_overflow() {
        // H2 is H1 after switch 1 (the sliced decision: hop limit 5, cursor 1) with the
        // record of `sample`
        let mut f = h1();
        f[2] = 5;
        f[PREFIX_LEN + DESC_LEN + 3] = 1;
        assert_eq!(write(&mut f, &sample()), Some(HopWrite::Slot(0)));
        assert_eq!(f, doc_vector("H2").unwrap().bytes);
        let (a, recs) = records(&f).unwrap();
        assert_eq!((a.slots, a.count, a.overflow), (2, 1, false));
        assert_eq!(recs.collect::<Vec<_>>(), vec![sample()]);
        let second = HopRecord {
            switch: 8,
            tx_ns: 0,
            ..sample()
        };
        assert_eq!(write(&mut f, &second), Some(HopWrite::Slot(1)));
        assert!(set_last_tx(&mut f, 99));
        let full = f.clone();
        assert_eq!(write(&mut f, &sample()), Some(HopWrite::Full));
        assert_eq!(f[..PREFIX_LEN + 2], full[..PREFIX_LEN + 2]);
        assert_eq!(f[PREFIX_LEN + 2], DESC_OVERFLOW);
        assert_eq!(f[PREFIX_LEN + 3..], full[PREFIX_LEN + 3..]);
        let (a, recs) = records(&f).unwrap();
        assert!(a.overflow);
        let recs: Vec<_> = recs.collect();
        assert_eq!(recs[1].switch, 8);
        assert_eq!(recs[1].tx_ns, 99);
        assert!(Header::new_checked(&f[..]).is_ok());
    }

    #[test]
    fn h3_is_a_full_area_with_measurement_block() {
        let v = doc_vector("H3").unwrap().bytes;
        let h = Header::new_checked(&v[..]).unwrap();
        assert_eq!(h.flags(), FLAG_MEAS | FLAG_HOPS);
        assert_eq!(
            h.hop_area(),
            Some(HopArea {
                slots: 1,
                count: 1,
                overflow: true
            })
        );
        assert_eq!(h.meas().unwrap().seq, 7);
        assert_eq!(h.body(), &doc_vector("I5").unwrap().bytes[8..]);
        let (_, recs) = records(&v).unwrap();
        let r: Vec<_> = recs.collect();
        assert_eq!(r.len(), 1);
        assert_eq!((r[0].switch, r[0].ingress, r[0].egress), (16, 0, 2));
        assert_eq!(r[0].tx_ns - r[0].poll_ns, 1000);
        let mut w = v.clone();
        assert_eq!(write(&mut w, &sample()), Some(HopWrite::Full));
        assert_eq!(w, v, "a full area stays as it is");
    }

    #[test]
    fn record_round_trip() {
        let mut b = [0xffu8; RECORD_LEN];
        sample().emit(&mut b);
        assert_eq!(HopRecord::parse(&b).unwrap(), sample());
        assert_eq!(b[13..16], [0, 0, 0], "reserved bytes written 0");
        assert_eq!(b[44..48], [0, 0, 0, 0]);
        assert!(matches!(
            HopRecord::parse(&b[..47]),
            Err(WireError::Truncated { .. })
        ));
    }

    #[test]
    fn malformed_descriptors_name_the_field() {
        let base = h1();
        let err = |f: &[u8]| Header::new_checked(f).unwrap_err();
        let mut f = base.clone();
        f[PREFIX_LEN + 1] = 3;
        assert!(matches!(
            err(&f),
            WireError::BadValue {
                field: "hops.count",
                ..
            }
        ));
        let mut f = base.clone();
        f[PREFIX_LEN + 2] = 0x01;
        assert!(matches!(
            err(&f),
            WireError::Reserved {
                field: "hops.flags",
                ..
            }
        ));
        let mut f = base.clone();
        f[PREFIX_LEN + 7] = 0x01;
        assert!(matches!(
            err(&f),
            WireError::Reserved {
                field: "hops.reserved",
                ..
            }
        ));
        // more slots than HdrLen holds
        let mut f = base.clone();
        f[PREFIX_LEN] = 3;
        assert!(matches!(
            err(&f),
            WireError::BadValue {
                field: "hops.slots",
                ..
            }
        ));
        // HdrLen without room for the descriptor and a body
        let mut f = base.clone();
        f[3] = 2;
        assert!(matches!(
            err(&f),
            WireError::BadValue {
                field: "prefix.hdr_len",
                ..
            }
        ));
        // the area cut off
        assert!(matches!(
            err(&base[..base.len() - 1]),
            WireError::Truncated {
                field: "prefix.hdr_len",
                ..
            }
        ));
        // no slot at all: valid, and the first switch sets overflow
        let mut f = base.clone();
        f[PREFIX_LEN] = 0;
        f[3] = 4;
        f.truncate(32);
        let h = Header::new_checked(&f[..]).unwrap();
        assert_eq!(h.body_len(), 16);
        assert_eq!(write(&mut f, &sample()), Some(HopWrite::Full));
    }

    #[test]
    fn the_flag_test_finds_tagged_frames_too() {
        let f = crate::wire::ethernet_frame([2; 6], [4; 6], &h1(), &[]);
        assert_eq!(requested(&f), Some(14));
        let mut t = f.clone();
        t.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
        assert_eq!(requested(&t), Some(18));
        let s1 = doc_vector("S1").unwrap().bytes;
        let plain = crate::wire::ethernet_frame([2; 6], [4; 6], &s1, &[]);
        assert_eq!(requested(&plain), None);
        assert_eq!(requested(&f[..15]), None);
        assert_eq!(requested(&[]), None);
    }

    proptest::proptest! {
        #[test]
        fn writing_never_panics_on_checked_headers(
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        ) {
            let mut b = b;
            if Header::new_checked(&b[..]).is_ok() {
                let _ = write(&mut b, &HopRecord::default());
                let _ = set_last_tx(&mut b, 1);
                if let Some((a, it)) = records(&b) {
                    proptest::prop_assert!(it.count() <= usize::from(a.slots));
                }
                proptest::prop_assert!(Header::new_checked(&b[..]).is_ok());
            }
        }
    }
}
