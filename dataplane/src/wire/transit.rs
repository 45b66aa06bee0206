//! Transit header body (kind 2): the RN1 routing bytes R = RU·RD·RC carried verbatim,
//! with a head-byte cursor (advanced by swallowing inputs, never popped), a rotation
//! cursor (cumulative wiring rotation in 2-bit units, mod 4), per-hop counters and room
//! for the strict-mode status/checksum records (\[Transit\] §1.3; the record layout is
//! Canopy's, docs/wire-format.md §5).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-------+-------+---------------+---------------+-----------+---+
//! |  Msg  | Flags |   RouteLen    |     Head      |  Rsvd(6)  |Rot|  bytes 0-3
//! +-------+-------+---------------+---------------+-----------+---+
//! |     Hops      |   RecSlots    |            Cycles             |  bytes 4-7
//! +---------------+---------------+-------------------------------+
//! | R[0] .. R[RouteLen-1], zero padding to a multiple of 8        |
//! +---------------------------------------------------------------+
//! | record area, present iff RecSlots > 0:                        |
//! | RecCount | Rsvd | CircuitId (16) | Rsvd (32)                  |
//! | RecSlots x (Stage, Status, Check, Rsvd), zero pad to 8        |
//! +---------------------------------------------------------------+
//! ```
//! `docs/wire-format.md` §5 is the authority for every field.

use super::{be16, need, Result, WireError};

/// Length of the fixed part of the body.
pub const FIXED_LEN: usize = 8;
/// Length of the record-area header (present iff `RecSlots > 0`).
pub const REC_HEADER_LEN: usize = 8;
/// Length of one status/checksum record.
pub const RECORD_LEN: usize = 4;
/// Flag (low nibble of byte 0): the receiving host should ignore the last routing
/// byte, which ordinary stages never remove (docs/transit.md §6 item 9). Switches ignore
/// it.
pub const FLAG_STRIP_LAST: u8 = 0x1;
/// Flag bits defined in this version.
pub const FLAGS_DEFINED: u8 = FLAG_STRIP_LAST;

mod field {
    pub const MSG_FLAGS: usize = 0;
    pub const ROUTE_LEN: usize = 1;
    pub const HEAD: usize = 2;
    pub const ROT: usize = 3;
    pub const HOPS: usize = 4;
    pub const REC_SLOTS: usize = 5;
    pub const CYCLES: usize = 6;
}

/// Round up to a multiple of 8.
#[inline]
const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// Body length for `route_len` routing bytes and `rec_slots` record slots.
pub const fn body_len(route_len: usize, rec_slots: usize) -> usize {
    FIXED_LEN
        + pad8(route_len)
        + if rec_slots > 0 {
            REC_HEADER_LEN + pad8(rec_slots * RECORD_LEN)
        } else {
            0
        }
}

/// Message type (high nibble of byte 0). Packet-switched forwarding (the default)
/// uses only [`Msg::Data`]; the others are reserved for the strict circuit mode and
/// are parsed (so captures of that mode decode) but dropped by packet-mode stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Msg {
    /// Packet-switched data frame: route bytes then payload.
    #[default]
    Data = 0,
    /// Strict mode: open a circuit.
    Open = 1,
    /// Strict mode: turn the circuit around.
    Turn = 2,
    /// Strict mode: reply travelling back, collecting records.
    Reply = 3,
    /// Strict mode: close the circuit (9th-bit end mark).
    Close = 4,
    /// Strict mode: abort (blocked or faulty path).
    Abort = 5,
}

impl Msg {
    /// Decode the 4-bit code.
    pub fn from_code(c: u8) -> Result<Msg> {
        Ok(match c {
            0 => Msg::Data,
            1 => Msg::Open,
            2 => Msg::Turn,
            3 => Msg::Reply,
            4 => Msg::Close,
            5 => Msg::Abort,
            other => {
                return Err(WireError::BadValue {
                    field: "transit.msg",
                    value: u64::from(other),
                    why: "unknown Transit message type (0..=5 defined)",
                })
            }
        })
    }
}

/// Record status codes (Canopy's; \[Transit\] §1.3 gives no byte format). Defined for the
/// strict mode; packet mode never writes records.
pub mod status {
    /// Connected / OK.
    pub const OK: u8 = 0x00;
    /// No free output in the requested direction.
    pub const BLOCKED: u8 = 0x01;
    /// The direction is unconnected (e.g. 11 at an uncapped root).
    pub const NO_ROUTE: u8 = 0x02;
    /// The port is marked faulty.
    pub const FAULT: u8 = 0x03;
    /// Emulator diagnostic: a swallow with an unexpected rotation.
    pub const SWALLOW_MISALIGNED: u8 = 0x04;
}

/// One status/checksum record (strict mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Record {
    /// Stage number (hops count at that stage) that wrote it.
    pub stage: u8,
    /// Status code ([`status`]).
    pub status: u8,
    /// CRC-8 (poly 0x07) of the data bytes that stage forwarded.
    pub check: u8,
}

/// Zero-copy view of a Transit body (exactly the body: `Header::body`).
#[derive(Debug, Clone, Copy)]
pub struct TransitBody<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> TransitBody<T> {
    /// Wrap without checks (for emit into a zeroed buffer of [`TransitRepr::buffer_len`]).
    pub fn new_unchecked(buf: T) -> Self {
        TransitBody { buf }
    }

    /// Wrap and validate: lengths, message type, reserved bits, cursor ranges.
    pub fn new_checked(buf: T) -> Result<Self> {
        let v = TransitBody { buf };
        v.check()?;
        Ok(v)
    }

    fn check(&self) -> Result<()> {
        let b = self.buf.as_ref();
        need(b, FIXED_LEN, "transit.fixed")?;
        Msg::from_code(b[field::MSG_FLAGS] >> 4)?;
        let fl = b[field::MSG_FLAGS] & 0x0f;
        if fl & !FLAGS_DEFINED != 0 {
            return Err(WireError::Reserved {
                field: "transit.flags",
                value: u64::from(fl & !FLAGS_DEFINED),
            });
        }
        let rot = b[field::ROT];
        if rot & !3 != 0 {
            return Err(WireError::Reserved {
                field: "transit.rot",
                value: u64::from(rot & !3),
            });
        }
        let rl = usize::from(b[field::ROUTE_LEN]);
        if usize::from(b[field::HEAD]) > rl {
            return Err(WireError::BadValue {
                field: "transit.head",
                value: u64::from(b[field::HEAD]),
                why: "head cursor beyond RouteLen",
            });
        }
        need(b, FIXED_LEN + pad8(rl), "transit.route")?;
        let slots = usize::from(b[field::REC_SLOTS]);
        let total = body_len(rl, slots);
        if slots > 0 {
            need(b, total, "transit.records")?;
            let at = FIXED_LEN + pad8(rl);
            if b[at] > b[field::REC_SLOTS] {
                return Err(WireError::BadValue {
                    field: "transit.rec_count",
                    value: u64::from(b[at]),
                    why: "more records than RecSlots",
                });
            }
            let rsvd = u64::from(b[at + 1])
                | u64::from(b[at + 4])
                | u64::from(b[at + 5])
                | u64::from(b[at + 6])
                | u64::from(b[at + 7]);
            if rsvd != 0 {
                return Err(WireError::Reserved {
                    field: "transit.rec_header",
                    value: rsvd,
                });
            }
        }
        if b.len() != total {
            return Err(WireError::BadValue {
                field: "transit.body_len",
                value: b.len() as u64,
                why: "body length differs from the length RouteLen and RecSlots imply",
            });
        }
        Ok(())
    }

    /// Message type. Only call on a checked view (unknown codes read as `Abort`).
    pub fn msg(&self) -> Msg {
        Msg::from_code(self.buf.as_ref()[field::MSG_FLAGS] >> 4).unwrap_or(Msg::Abort)
    }

    /// Flag bits (low nibble of byte 0).
    pub fn flags(&self) -> u8 {
        self.buf.as_ref()[field::MSG_FLAGS] & 0x0f
    }

    /// Number of routing bytes.
    pub fn route_len(&self) -> u8 {
        self.buf.as_ref()[field::ROUTE_LEN]
    }

    /// Index of the current head routing byte (== RouteLen when exhausted).
    pub fn head(&self) -> u8 {
        self.buf.as_ref()[field::HEAD]
    }

    /// Rotation cursor: cumulative wiring rotation in 2-bit units, 0..=3.
    pub fn rot(&self) -> u8 {
        self.buf.as_ref()[field::ROT] & 3
    }

    /// RN1 stages traversed.
    pub fn hops(&self) -> u8 {
        self.buf.as_ref()[field::HOPS]
    }

    /// Record slots reserved by the source.
    pub fn rec_slots(&self) -> u8 {
        self.buf.as_ref()[field::REC_SLOTS]
    }

    /// Virtual cycles (t_c units): +1 per stage, +1 per swallow, + link delays.
    pub fn cycles(&self) -> u16 {
        be16(self.buf.as_ref(), field::CYCLES)
    }

    /// The routing bytes.
    pub fn route(&self) -> &[u8] {
        let rl = usize::from(self.route_len());
        &self.buf.as_ref()[FIXED_LEN..FIXED_LEN + rl]
    }

    /// The routing byte under the head cursor, if any.
    pub fn head_byte(&self) -> Option<u8> {
        let h = usize::from(self.head());
        if h < usize::from(self.route_len()) {
            self.buf.as_ref().get(FIXED_LEN + h).copied()
        } else {
            None
        }
    }

    fn rec_at(&self) -> usize {
        FIXED_LEN + pad8(usize::from(self.route_len()))
    }

    /// Records written so far (0 without a record area).
    pub fn rec_count(&self) -> u8 {
        if self.rec_slots() == 0 {
            0
        } else {
            self.buf.as_ref()[self.rec_at()]
        }
    }

    /// Circuit id (strict mode; 0 without a record area).
    pub fn circuit_id(&self) -> u16 {
        if self.rec_slots() == 0 {
            0
        } else {
            be16(self.buf.as_ref(), self.rec_at() + 2)
        }
    }

    /// Record `i` (< RecSlots).
    pub fn record(&self, i: u8) -> Option<Record> {
        if i >= self.rec_slots() {
            return None;
        }
        let at = self.rec_at() + REC_HEADER_LEN + usize::from(i) * RECORD_LEN;
        let b = self.buf.as_ref().get(at..at + 3)?;
        Some(Record {
            stage: b[0],
            status: b[1],
            check: b[2],
        })
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TransitBody<T> {
    /// Set the head cursor.
    pub fn set_head(&mut self, v: u8) {
        self.buf.as_mut()[field::HEAD] = v;
    }
    /// Set the rotation cursor (masked to 2 bits).
    pub fn set_rot(&mut self, v: u8) {
        self.buf.as_mut()[field::ROT] = v & 3;
    }
    /// Set the stage counter.
    pub fn set_hops(&mut self, v: u8) {
        self.buf.as_mut()[field::HOPS] = v;
    }
    /// Set the cycle counter.
    pub fn set_cycles(&mut self, v: u16) {
        self.buf.as_mut()[field::CYCLES..field::CYCLES + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// High-level representation of a Transit body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TransitRepr {
    /// Message type.
    pub msg: Msg,
    /// Flag STRIP_LAST.
    pub strip_last: bool,
    /// Routing bytes R, transmission order.
    pub route: Vec<u8>,
    /// Head cursor.
    pub head: u8,
    /// Rotation cursor (0..=3).
    pub rot: u8,
    /// Stages traversed.
    pub hops: u8,
    /// Virtual cycles.
    pub cycles: u16,
    /// Record slots reserved (0 = no record area).
    pub rec_slots: u8,
    /// Circuit id (strict mode; needs `rec_slots > 0` to be carried).
    pub circuit_id: u16,
    /// Records written (`len() <= rec_slots`).
    pub records: Vec<Record>,
}

impl TransitRepr {
    /// A fresh packet-mode body for routing bytes `route` (cursors and counters 0).
    pub fn data(route: Vec<u8>) -> Self {
        TransitRepr {
            route,
            ..Default::default()
        }
    }

    /// Parse a checked view.
    pub fn parse<T: AsRef<[u8]>>(v: &TransitBody<T>) -> Result<TransitRepr> {
        let n = v.rec_count();
        let records = (0..n).filter_map(|i| v.record(i)).collect();
        Ok(TransitRepr {
            msg: Msg::from_code(v.buf.as_ref()[field::MSG_FLAGS] >> 4)?,
            strip_last: v.flags() & FLAG_STRIP_LAST != 0,
            route: v.route().to_vec(),
            head: v.head(),
            rot: v.rot(),
            hops: v.hops(),
            cycles: v.cycles(),
            rec_slots: v.rec_slots(),
            circuit_id: v.circuit_id(),
            records,
        })
    }

    /// Body length this repr emits.
    pub fn buffer_len(&self) -> usize {
        body_len(self.route.len(), usize::from(self.rec_slots))
    }

    fn validate(&self) -> Result<()> {
        let bad = |field, value: usize, why| WireError::BadValue {
            field,
            value: value as u64,
            why,
        };
        if self.route.len() > 255 {
            return Err(bad(
                "transit.route_len",
                self.route.len(),
                "more than 255 routing bytes",
            ));
        }
        if usize::from(self.head) > self.route.len() {
            return Err(bad(
                "transit.head",
                self.head.into(),
                "head cursor beyond RouteLen",
            ));
        }
        if self.rot > 3 {
            return Err(bad("transit.rot", self.rot.into(), "rotation is 0..=3"));
        }
        if self.records.len() > usize::from(self.rec_slots) {
            return Err(bad(
                "transit.rec_count",
                self.records.len(),
                "more records than RecSlots",
            ));
        }
        if self.rec_slots == 0 && self.circuit_id != 0 {
            return Err(bad(
                "transit.circuit_id",
                self.circuit_id.into(),
                "a circuit id needs a record area (RecSlots > 0)",
            ));
        }
        Ok(())
    }

    /// Emit into `out` (at least [`Self::buffer_len`] bytes; the whole body is written,
    /// padding zeroed).
    pub fn emit(&self, out: &mut [u8]) -> Result<()> {
        self.validate()?;
        let n = self.buffer_len();
        need(out, n, "transit.body")?;
        let b = &mut out[..n];
        b.fill(0);
        b[field::MSG_FLAGS] =
            ((self.msg as u8) << 4) | if self.strip_last { FLAG_STRIP_LAST } else { 0 };
        b[field::ROUTE_LEN] = self.route.len() as u8;
        b[field::HEAD] = self.head;
        b[field::ROT] = self.rot;
        b[field::HOPS] = self.hops;
        b[field::REC_SLOTS] = self.rec_slots;
        b[field::CYCLES..field::CYCLES + 2].copy_from_slice(&self.cycles.to_be_bytes());
        b[FIXED_LEN..FIXED_LEN + self.route.len()].copy_from_slice(&self.route);
        if self.rec_slots > 0 {
            let at = FIXED_LEN + pad8(self.route.len());
            b[at] = self.records.len() as u8;
            b[at + 2..at + 4].copy_from_slice(&self.circuit_id.to_be_bytes());
            for (i, r) in self.records.iter().enumerate() {
                let o = at + REC_HEADER_LEN + i * RECORD_LEN;
                b[o] = r.stage;
                b[o + 1] = r.status;
                b[o + 2] = r.check;
            }
        }
        Ok(())
    }

    /// Emit into a fresh vector (control plane and tests).
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{doc_vector, Header, Kind, PrefixRepr};

    fn body_of(id: &str) -> Vec<u8> {
        let v = doc_vector(id).unwrap();
        let h = Header::new_checked(&v.bytes[..]).unwrap();
        assert_eq!(h.kind(), Kind::Transit, "{id}");
        h.body().to_vec()
    }

    fn header(repr: &TransitRepr, hop_limit: u8) -> Vec<u8> {
        let p = PrefixRepr {
            kind: Kind::Transit,
            hop_limit,
            payload_len: 0,
            inner_type: 0,
            meas: None,
            hops: None,
        };
        p.to_vec(&repr.to_vec().unwrap()).unwrap()
    }

    #[test]
    fn t1_report_example_header() {
        // [Transit] §3.8.5: R = 0xF4D84267; hop limit 13 = worst case
        // 1 + j_leaf + 3·2 + 2 stages of transit-hybrid:leaf=192;layers=2.
        let r = TransitRepr::data(vec![0xF4, 0xD8, 0x42, 0x67]);
        assert_eq!(header(&r, 13), doc_vector("T1").unwrap().bytes);
        let b = body_of("T1");
        let v = TransitBody::new_checked(&b[..]).unwrap();
        assert_eq!(v.route(), &[0xF4, 0xD8, 0x42, 0x67]);
        assert_eq!((v.head(), v.rot(), v.hops(), v.cycles()), (0, 0, 0, 0));
        assert_eq!(v.head_byte(), Some(0xF4));
        assert_eq!(TransitRepr::parse(&v).unwrap(), r);
    }

    #[test]
    fn t2_delivered_report_example() {
        // The T1 frame as delivered: 12 stages, 3 swallows (docs/transit.md §4 trace:
        // Eq 4.31/4.32 give 1+4+5+2 = 12 and 2+1 = 3), head at 0x67, rotation 0
        // after the last cluster stage's link, cycles 12 + 3 = 15.
        let b = body_of("T2");
        let v = TransitBody::new_checked(&b[..]).unwrap();
        let r = TransitRepr::parse(&v).unwrap();
        assert_eq!(r.route, vec![0xF4, 0xD8, 0x42, 0x67]);
        assert_eq!((r.head, r.hops, r.cycles), (3, 12, 15));
        assert_eq!(v.head_byte(), Some(0x67));
        assert_eq!(r.rot, 0);
    }

    #[test]
    fn t3_record_area_roundtrip() {
        let b = body_of("T3");
        let v = TransitBody::new_checked(&b[..]).unwrap();
        let r = TransitRepr::parse(&v).unwrap();
        assert_eq!(r.msg, Msg::Reply);
        assert!(r.strip_last);
        assert_eq!(r.rec_slots, 3);
        assert_eq!(r.circuit_id, 0x1234);
        assert_eq!(
            r.records,
            vec![
                Record {
                    stage: 1,
                    status: status::OK,
                    check: 0xA5
                },
                Record {
                    stage: 2,
                    status: status::BLOCKED,
                    check: 0x00
                }
            ]
        );
        assert_eq!(r.to_vec().unwrap(), b);
    }

    #[test]
    fn errors_name_the_field() {
        let good = TransitRepr::data(vec![0xC0, 0x08, 0x01]).to_vec().unwrap();
        let chk = |b: &[u8]| TransitBody::new_checked(b).map(|_| ()).unwrap_err();
        assert!(matches!(
            chk(&good[..5]),
            WireError::Truncated {
                field: "transit.fixed",
                ..
            }
        ));
        assert!(matches!(
            chk(&good[..8]),
            WireError::Truncated {
                field: "transit.route",
                ..
            }
        ));
        let mut b = good.clone();
        b[0] = 0x60;
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "transit.msg",
                ..
            }
        ));
        b = good.clone();
        b[0] = 0x02;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "transit.flags",
                ..
            }
        ));
        b = good.clone();
        b[3] = 0x04;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "transit.rot",
                ..
            }
        ));
        b = good.clone();
        b[2] = 4;
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "transit.head",
                ..
            }
        ));
        b = good.clone();
        b.extend_from_slice(&[0; 8]);
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "transit.body_len",
                ..
            }
        ));
        b = good.clone();
        b[5] = 1;
        assert!(matches!(
            chk(&b),
            WireError::Truncated {
                field: "transit.records",
                ..
            }
        ));
        b.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "transit.rec_count",
                ..
            }
        ));
        b[16] = 1;
        b[17] = 9;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "transit.rec_header",
                ..
            }
        ));
        // Repr validation
        let mut r = TransitRepr::data(vec![1]);
        r.head = 2;
        assert!(r.to_vec().is_err());
        r.head = 0;
        r.circuit_id = 5;
        assert!(r.to_vec().is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..96)) {
            if let Ok(v) = TransitBody::new_checked(&b[..]) {
                let _ = (v.route(), v.head_byte(), v.rec_count(), v.circuit_id(), v.record(0), v.record(200));
                let r = TransitRepr::parse(&v).unwrap();
                proptest::prop_assert_eq!(r.buffer_len(), b.len());
            }
        }

        #[test]
        fn roundtrip(route in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
                     head_frac in 0u8..=255, rot in 0u8..4, hops in proptest::prelude::any::<u8>(),
                     cycles in proptest::prelude::any::<u16>(), msg in 0u8..6, strip in proptest::prelude::any::<bool>(),
                     slots in 0u8..6, nrec in 0u8..6, circuit in proptest::prelude::any::<u16>()) {
            let head = (usize::from(head_frac) * route.len() / 255) as u8;
            let nrec = nrec.min(slots);
            let r = TransitRepr {
                msg: Msg::from_code(msg).unwrap(),
                strip_last: strip,
                route,
                head,
                rot,
                hops,
                cycles,
                rec_slots: slots,
                circuit_id: if slots > 0 { circuit } else { 0 },
                records: (0..nrec).map(|i| Record { stage: i, status: i % 5, check: i.wrapping_mul(37) }).collect(),
            };
            let v = r.to_vec().unwrap();
            let view = TransitBody::new_checked(&v[..]).unwrap();
            proptest::prop_assert_eq!(TransitRepr::parse(&view).unwrap(), r);
        }
    }
}
