//! Path-ID body (kind 3): \[PathID\]'s path ID (docs/references.md), matched whole by longest prefix at every
//! switch, plus the destination's host label for the last hop. See
//! `docs/wire-format.md` §6.
//!
//! ```text
//!  0               1               2               3
//! +---------------+---------------+-------------------------------+
//! |D|L| reserved  |    ID len     |        reserved (0)           |  bytes 0-3
//! +---------------+---------------+-------------------------------+
//! |                       host label (32)                         |  bytes 4-7
//! +---------------------------------------------------------------+
//! |              path ID, left-aligned (64), first bit = b63      |  bytes 8-15
//! +---------------------------------------------------------------+
//! ```
//! D = PHASE_DOWN (set by the switch where the frame turns downward), L = LOCAL
//! (source and destination share the leaf switch; no path ID).

use super::{be32, be64, need, Result, WireError};

/// Length of the path-ID body.
pub const BODY_LEN: usize = 16;
/// Flag: the frame has turned downward (set by the turning switch).
pub const FLAG_PHASE_DOWN: u8 = 0x80;
/// Flag: source and destination hang on the same leaf switch; no path ID.
pub const FLAG_LOCAL: u8 = 0x40;
/// Flags defined in this version; the others are reserved (0).
pub const FLAGS_DEFINED: u8 = FLAG_PHASE_DOWN | FLAG_LOCAL;
/// Largest path ID length in bits.
pub const MAX_ID_BITS: u8 = 64;

mod field {
    pub const FLAGS: usize = 0;
    pub const ID_LEN: usize = 1;
    pub const RESERVED: usize = 2;
    pub const HOST: usize = 4;
    pub const ID: usize = 8;
}

/// Mask of the first `len` bits of a left-aligned 64-bit word.
#[inline]
pub fn left_mask(len: u8) -> u64 {
    match len {
        0 => 0,
        l if l >= 64 => u64::MAX,
        l => !(u64::MAX >> l),
    }
}

/// Zero-copy view of a path-ID body.
#[derive(Debug, Clone, Copy)]
pub struct PathIdBody<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> PathIdBody<T> {
    /// Wrap without checks (accessors may panic on a short buffer; use `new_checked`).
    pub fn new_unchecked(buf: T) -> Self {
        PathIdBody { buf }
    }

    /// Wrap, validating the length, reserved flags and bytes, the ID length, the
    /// LOCAL/ID-length consistency and that ID bits past the length are zero.
    pub fn new_checked(buf: T) -> Result<Self> {
        let b = PathIdBody { buf };
        b.check()?;
        Ok(b)
    }

    fn check(&self) -> Result<()> {
        let b = self.buf.as_ref();
        need(b, BODY_LEN, "pathid.body")?;
        if b.len() != BODY_LEN {
            return Err(WireError::BadValue {
                field: "pathid.body",
                value: b.len() as u64,
                why: "the path-ID body is exactly 16 bytes",
            });
        }
        let flags = b[field::FLAGS];
        if flags & !FLAGS_DEFINED != 0 {
            return Err(WireError::Reserved {
                field: "pathid.flags",
                value: u64::from(flags & !FLAGS_DEFINED),
            });
        }
        let res = u16::from_be_bytes([b[field::RESERVED], b[field::RESERVED + 1]]);
        if res != 0 {
            return Err(WireError::Reserved {
                field: "pathid.reserved",
                value: u64::from(res),
            });
        }
        let len = b[field::ID_LEN];
        if len > MAX_ID_BITS {
            return Err(WireError::BadValue {
                field: "pathid.id_len",
                value: u64::from(len),
                why: "longer than 64 bits",
            });
        }
        let local = flags & FLAG_LOCAL != 0;
        if local && len != 0 {
            return Err(WireError::BadValue {
                field: "pathid.id_len",
                value: u64::from(len),
                why: "a LOCAL frame carries no path ID (length must be 0)",
            });
        }
        if !local && len == 0 {
            return Err(WireError::BadValue {
                field: "pathid.id_len",
                value: 0,
                why: "a non-LOCAL frame needs a path ID of at least 1 bit",
            });
        }
        let id = be64(b, field::ID);
        if id & !left_mask(len) != 0 {
            return Err(WireError::Reserved {
                field: "pathid.id",
                value: id & !left_mask(len),
            });
        }
        Ok(())
    }

    /// Flags byte.
    pub fn flags(&self) -> u8 {
        self.buf.as_ref()[field::FLAGS]
    }

    /// PHASE_DOWN flag.
    pub fn phase_down(&self) -> bool {
        self.flags() & FLAG_PHASE_DOWN != 0
    }

    /// LOCAL flag.
    pub fn local(&self) -> bool {
        self.flags() & FLAG_LOCAL != 0
    }

    /// Number of valid path-ID bits.
    pub fn id_len(&self) -> u8 {
        self.buf.as_ref()[field::ID_LEN]
    }

    /// Destination host label (its down label at the destination leaf switch).
    pub fn host_label(&self) -> u32 {
        be32(self.buf.as_ref(), field::HOST)
    }

    /// Path ID, left-aligned: its first bit is bit 63.
    pub fn id(&self) -> u64 {
        be64(self.buf.as_ref(), field::ID)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> PathIdBody<T> {
    /// Set the flags byte.
    pub fn set_flags(&mut self, f: u8) {
        self.buf.as_mut()[field::FLAGS] = f;
    }

    /// Set or clear PHASE_DOWN.
    pub fn set_phase_down(&mut self, on: bool) {
        let f = self.flags();
        self.set_flags(if on {
            f | FLAG_PHASE_DOWN
        } else {
            f & !FLAG_PHASE_DOWN
        });
    }

    /// Set the ID length.
    pub fn set_id_len(&mut self, len: u8) {
        self.buf.as_mut()[field::ID_LEN] = len;
    }

    /// Set the host label.
    pub fn set_host_label(&mut self, l: u32) {
        self.buf.as_mut()[field::HOST..field::HOST + 4].copy_from_slice(&l.to_be_bytes());
    }

    /// Set the (left-aligned) path ID.
    pub fn set_id(&mut self, id: u64) {
        self.buf.as_mut()[field::ID..field::ID + 8].copy_from_slice(&id.to_be_bytes());
    }

    /// Zero the reserved bytes.
    pub fn clear_reserved(&mut self) {
        self.buf.as_mut()[field::RESERVED..field::RESERVED + 2].fill(0);
    }
}

/// High-level representation of a path-ID body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PathIdRepr {
    /// PHASE_DOWN flag.
    pub phase_down: bool,
    /// LOCAL flag (then `id_len` = 0 and `id` = 0).
    pub local: bool,
    /// Number of valid ID bits (1..=64, 0 iff LOCAL).
    pub id_len: u8,
    /// Path ID, left-aligned (bits past `id_len` are 0).
    pub id: u64,
    /// Destination host label.
    pub host_label: u32,
}

impl PathIdRepr {
    /// Parse a checked view.
    pub fn parse<T: AsRef<[u8]>>(b: &PathIdBody<T>) -> Result<PathIdRepr> {
        b.check()?;
        Ok(PathIdRepr {
            phase_down: b.phase_down(),
            local: b.local(),
            id_len: b.id_len(),
            id: b.id(),
            host_label: b.host_label(),
        })
    }

    /// Body length in bytes.
    pub fn buffer_len(&self) -> usize {
        BODY_LEN
    }

    /// The path ID right-aligned (its `id_len` bits as an integer).
    pub fn id_value(&self) -> u64 {
        match self.id_len {
            0 => 0,
            l => self.id >> (64 - u32::from(l.min(64))),
        }
    }

    /// Emit into a view of at least [`BODY_LEN`] bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, b: &mut PathIdBody<T>) {
        let mut f = 0;
        if self.phase_down {
            f |= FLAG_PHASE_DOWN;
        }
        if self.local {
            f |= FLAG_LOCAL;
        }
        b.set_flags(f);
        b.set_id_len(self.id_len);
        b.clear_reserved();
        b.set_host_label(self.host_label);
        b.set_id(self.id & left_mask(self.id_len));
    }

    /// Emit into a fresh 16-byte vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0u8; BODY_LEN];
        self.emit(&mut PathIdBody::new_unchecked(&mut v[..]));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{doc_vector, Header};
    use proptest::prelude::*;

    fn body_of(id: &str) -> Vec<u8> {
        let v = doc_vector(id).unwrap();
        let h = Header::new_checked(&v.bytes[..]).unwrap();
        h.body().to_vec()
    }

    #[test]
    fn doc_vectors_parse() {
        // I1: fat-tree:k=4 h0 -> h15 (type 1, top core-c0, DP3 = pod 3, DP2 = edge 1),
        // desired path 0; I2 the same after the turn; I3 a LOCAL frame h0 -> h1.
        let r = PathIdRepr::parse(&PathIdBody::new_checked(&body_of("I1")[..]).unwrap()).unwrap();
        assert_eq!(
            r,
            PathIdRepr {
                phase_down: false,
                local: false,
                id_len: 6,
                id: 0b100111u64 << 58,
                host_label: 1,
            }
        );
        assert_eq!(r.id_value(), 0b100111);
        assert_eq!(r.to_vec(), body_of("I1"));
        let r2 = PathIdRepr {
            phase_down: true,
            ..r
        };
        assert_eq!(r2.to_vec(), body_of("I2"));
        let l = PathIdRepr::parse(&PathIdBody::new_checked(&body_of("I3")[..]).unwrap()).unwrap();
        assert!(l.local && l.id_len == 0 && l.host_label == 1);
    }

    #[test]
    fn errors_name_the_field() {
        let good = body_of("I1");
        let chk = |b: &[u8]| PathIdBody::new_checked(b).map(|_| ()).unwrap_err();
        assert!(matches!(
            chk(&good[..15]),
            WireError::Truncated {
                field: "pathid.body",
                ..
            }
        ));
        // exactly 16 bytes: a longer body is refused, as sliced and Transit bodies are
        let mut long = good.clone();
        long.extend_from_slice(&[0; 8]);
        assert!(matches!(
            chk(&long),
            WireError::BadValue {
                field: "pathid.body",
                value: 24,
                ..
            }
        ));
        let mut b = good.clone();
        b[0] |= 0x01;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "pathid.flags",
                ..
            }
        ));
        let mut b = good.clone();
        b[3] = 1;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "pathid.reserved",
                ..
            }
        ));
        let mut b = good.clone();
        b[1] = 65;
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "pathid.id_len",
                ..
            }
        ));
        let mut b = good.clone();
        b[1] = 0;
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "pathid.id_len",
                ..
            }
        ));
        let mut b = good.clone();
        b[0] |= FLAG_LOCAL;
        assert!(matches!(
            chk(&b),
            WireError::BadValue {
                field: "pathid.id_len",
                ..
            }
        ));
        let mut b = good.clone();
        b[15] = 1;
        assert!(matches!(
            chk(&b),
            WireError::Reserved {
                field: "pathid.id",
                ..
            }
        ));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(v) = PathIdBody::new_checked(&b[..]) {
                let r = PathIdRepr::parse(&v).unwrap();
                prop_assert_eq!(r.to_vec(), b[..BODY_LEN].to_vec());
            }
        }

        #[test]
        fn roundtrip(len in 0u8..=64, id in any::<u64>(), host in any::<u32>(), down in any::<bool>()) {
            let r = PathIdRepr {
                phase_down: down,
                local: len == 0,
                id_len: len,
                id: id & left_mask(len),
                host_label: host,
            };
            let v = r.to_vec();
            let back = PathIdRepr::parse(&PathIdBody::new_checked(&v[..]).unwrap()).unwrap();
            prop_assert_eq!(back, r);
        }
    }
}
