//! Wire formats: zero-copy typed views with checked construction, plus `Repr` structs
//! with `parse`/`emit`, in the style of smoltcp's `wire` module.
//!
//! `docs/wire-format.md` is the authority for every byte here; its hex test vectors
//! are the fixtures of the unit tests in this module and its children.
//!
//! Frame layout:
//! ```text
//! Ethernet II (dst, src, [802.1Q / 802.1ad tags]*, EtherType 0x88B5)
//! Canopy common prefix (8 bytes)
//! optional hop-record descriptor (8 bytes, flag HOPS)
//! kind-specific body (sliced-flit | Transit | path-ID)
//! optional measurement block (16 bytes, flag MEAS)
//! optional hop-record slots (48 bytes each, flag HOPS)
//! payload (payload_len bytes), then Ethernet padding
//! ```

pub mod hops;
pub mod pathid;
pub mod sliced;
pub mod transit;

use hops::HopArea;
use thiserror::Error;

/// EtherType of every Canopy frame: IEEE Std 802 Local Experimental EtherType 1.
pub const ETHERTYPE_CANOPY: u16 = 0x88B5;
/// IEEE Std 802 Local Experimental EtherType 2: reserved for Canopy control frames
/// (Transit strict-mode status replies, liveness probes); never forwarded as data.
pub const ETHERTYPE_CANOPY_CTRL: u16 = 0x88B6;
/// 802.1Q customer VLAN tag.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// 802.1ad service VLAN tag (QinQ outer tag).
pub const ETHERTYPE_QINQ: u16 = 0x88A8;
/// At most this many VLAN tags are skipped before the EtherType.
pub const MAX_VLAN_TAGS: usize = 2;
/// Current version of the Canopy header.
pub const VERSION: u8 = 1;
/// Length of the common prefix.
pub const PREFIX_LEN: usize = 8;
/// Length of the optional measurement block.
pub const MEAS_LEN: usize = 16;
/// Common-prefix flag: a measurement block follows the body.
pub const FLAG_MEAS: u8 = 0x80;
/// Common-prefix flag: a per-hop record area is present (its descriptor after the
/// prefix, its slots at the end of the header; [`hops`]).
pub const FLAG_HOPS: u8 = 0x40;
/// Mask of the prefix flag bits defined in this version; the rest must be zero.
pub const FLAGS_DEFINED: u8 = FLAG_MEAS | FLAG_HOPS;
/// Minimum Ethernet frame length without FCS.
pub const ETH_MIN_FRAME: usize = 60;
/// Ethernet header length without tags.
pub const ETH_HEADER_LEN: usize = 14;

crate::reasons::drop_reasons! {
    /// A malformed frame: which field is wrong and why. Every variant names the field so
    /// a drop counter or a log line can say exactly what was wrong; its counter label is
    /// [`WireError::reason`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
    pub enum WireError {
        /// The buffer ends before the named field does.
        #[error("truncated: field `{field}` needs {need} bytes, only {have} present")]
        Truncated {
            /// Field that does not fit.
            field: &'static str,
            /// Bytes needed from the start of the structure.
            need: usize,
            /// Bytes present.
            have: usize,
        } => "truncated",
        /// The EtherType (after any VLAN tags) is not Canopy's.
        #[error("not a Canopy frame: EtherType {0:#06x}")]
        NotCanopy(u16) => "not_canopy",
        /// More VLAN tags than we skip.
        #[error("more than {MAX_VLAN_TAGS} VLAN tags")]
        TooManyTags => "too_many_vlan_tags",
        /// Unsupported header version.
        #[error("unsupported Canopy version {0} (this build speaks {VERSION})")]
        BadVersion(u8) => "bad_version",
        /// Unknown header kind.
        #[error("unknown header kind {0}")]
        UnknownKind(u8) => "unknown_kind",
        /// Reserved bits are set.
        #[error("reserved bits set in field `{field}`: {value:#x}")]
        Reserved {
            /// Field holding the reserved bits.
            field: &'static str,
            /// The offending value (masked to the reserved bits).
            value: u64,
        } => "reserved_bits_set",
        /// A field holds a value outside its legal range.
        #[error("field `{field}` = {value} is invalid: {why}")]
        BadValue {
            /// Field name as in docs/wire-format.md.
            field: &'static str,
            /// The offending value.
            value: u64,
            /// Why it is invalid.
            why: &'static str,
        } => "bad_field_value",
    }
}

impl WireError {
    /// A short, stable, human-readable name for counters (`drop_reason` label values):
    /// [`WireError::name`].
    pub fn reason(&self) -> &'static str {
        self.name()
    }
}

/// Result alias for the wire module.
pub type Result<T> = core::result::Result<T, WireError>;

/// Check that `buf` holds at least `need` bytes for `field`.
#[inline]
pub(crate) fn need(buf: &[u8], need: usize, field: &'static str) -> Result<()> {
    if buf.len() < need {
        Err(WireError::Truncated {
            field,
            need,
            have: buf.len(),
        })
    } else {
        Ok(())
    }
}

#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline]
#[allow(dead_code)] // used by the kind bodies
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline]
pub(crate) fn be64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
}

/// Header kind carried in the low nibble of prefix byte 0.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Sliced-flit header of the Znode/Snode thesis (and its FLAT/SRCDST/DST modes).
    Sliced = 1,
    /// Transit (RN1) routing bytes.
    Transit = 2,
    /// Path-ID label of the LPM compression scheme (\[PathID\]; docs/references.md).
    PathId = 3,
}

impl Kind {
    /// All kinds, in code order.
    pub const ALL: [Kind; 3] = [Kind::Sliced, Kind::Transit, Kind::PathId];

    /// Decode the 4-bit kind code.
    pub fn from_code(code: u8) -> Result<Kind> {
        match code {
            1 => Ok(Kind::Sliced),
            2 => Ok(Kind::Transit),
            3 => Ok(Kind::PathId),
            other => Err(WireError::UnknownKind(other)),
        }
    }

    /// Stable lower-case name, as used on the command line (`--kind`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Sliced => "sliced",
            Kind::Transit => "transit",
            Kind::PathId => "path-id",
        }
    }

    /// Parse a command-line name.
    pub fn from_name(s: &str) -> Option<Kind> {
        match s {
            "sliced" | "sliced-flit" => Some(Kind::Sliced),
            "transit" => Some(Kind::Transit),
            "path-id" | "pathid" => Some(Kind::PathId),
            _ => None,
        }
    }
}

impl core::fmt::Display for Kind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Zero-copy view of an Ethernet II frame, with up to [`MAX_VLAN_TAGS`] tags skipped.
#[derive(Debug, Clone, Copy)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buf: T,
    /// Offset of the EtherType field (12, 16 or 20).
    type_at: usize,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wrap a buffer, checking that the MACs, tags and EtherType fit.
    pub fn new_checked(buf: T) -> Result<Self> {
        let b = buf.as_ref();
        need(b, ETH_HEADER_LEN, "ethernet.ethertype")?;
        let mut at = 12;
        let mut tags = 0;
        loop {
            let t = be16(b, at);
            if t != ETHERTYPE_VLAN && t != ETHERTYPE_QINQ {
                break;
            }
            tags += 1;
            if tags > MAX_VLAN_TAGS {
                return Err(WireError::TooManyTags);
            }
            at += 4;
            need(b, at + 2, "ethernet.vlan_tag")?;
        }
        Ok(EthernetFrame { buf, type_at: at })
    }

    /// Destination MAC.
    pub fn dst(&self) -> [u8; 6] {
        let mut m = [0; 6];
        m.copy_from_slice(&self.buf.as_ref()[0..6]);
        m
    }

    /// Source MAC.
    pub fn src(&self) -> [u8; 6] {
        let mut m = [0; 6];
        m.copy_from_slice(&self.buf.as_ref()[6..12]);
        m
    }

    /// EtherType after the tags.
    pub fn ethertype(&self) -> u16 {
        be16(self.buf.as_ref(), self.type_at)
    }

    /// Offset of the first byte after the EtherType.
    pub fn payload_offset(&self) -> usize {
        self.type_at + 2
    }

    /// Number of VLAN tags skipped.
    pub fn vlan_tags(&self) -> usize {
        (self.type_at - 12) / 4
    }

    /// Give the buffer back.
    pub fn into_inner(self) -> T {
        self.buf
    }
}

/// Offset of the Canopy header in an Ethernet frame, checking the EtherType.
pub fn canopy_offset(frame: &[u8]) -> Result<usize> {
    let eth = EthernetFrame::new_checked(frame)?;
    if eth.ethertype() != ETHERTYPE_CANOPY {
        return Err(WireError::NotCanopy(eth.ethertype()));
    }
    Ok(eth.payload_offset())
}

mod prefix_field {
    pub const VER_KIND: usize = 0;
    pub const FLAGS: usize = 1;
    pub const HOP_LIMIT: usize = 2;
    pub const HDR_LEN: usize = 3;
    pub const PAYLOAD_LEN: usize = 4;
    pub const INNER_TYPE: usize = 6;
}

/// Zero-copy view of a Canopy header: the common prefix, the kind-specific body and the
/// optional measurement block. `new_checked` validates the prefix and that the declared
/// header length fits in the buffer; the body is validated by the kind's own view.
#[derive(Debug, Clone, Copy)]
pub struct Header<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wrap `buf` (starting at the Canopy header) without checks.
    pub fn new_unchecked(buf: T) -> Self {
        Header { buf }
    }

    /// Wrap `buf`, validating version, kind, flags and header length.
    pub fn new_checked(buf: T) -> Result<Self> {
        let h = Header { buf };
        h.check()?;
        Ok(h)
    }

    fn check(&self) -> Result<()> {
        let b = self.buf.as_ref();
        need(b, PREFIX_LEN, "prefix")?;
        let ver = b[prefix_field::VER_KIND] >> 4;
        if ver != VERSION {
            return Err(WireError::BadVersion(ver));
        }
        Kind::from_code(b[prefix_field::VER_KIND] & 0x0f)?;
        let flags = b[prefix_field::FLAGS];
        if flags & !FLAGS_DEFINED != 0 {
            return Err(WireError::Reserved {
                field: "prefix.flags",
                value: u64::from(flags & !FLAGS_DEFINED),
            });
        }
        let hl = self.header_len();
        let min = self.fixed_len() + 8;
        if hl < min {
            return Err(WireError::BadValue {
                field: "prefix.hdr_len",
                value: b[prefix_field::HDR_LEN] as u64,
                why: "shorter than prefix + minimal body (+ hop descriptor, measurement block)",
            });
        }
        need(b, hl, "prefix.hdr_len")?;
        if self.has_hops() {
            let a = HopArea::parse(&b[PREFIX_LEN..PREFIX_LEN + hops::DESC_LEN])?;
            if a.slots_len() > hl - min {
                return Err(WireError::BadValue {
                    field: "hops.slots",
                    value: u64::from(a.slots),
                    why: "the record slots do not fit in HdrLen",
                });
            }
        }
        Ok(())
    }

    /// Check that the buffer, which must run to the end of the frame, carries the payload
    /// the prefix announces: at least Payload length bytes after the header
    /// (`docs/wire-format.md` §2). More is allowed: the bytes after the payload are
    /// Ethernet padding (a frame shorter than 60 bytes is padded with zeros) or a trailer,
    /// which a switch forwards unchanged and a receiver ignores.
    pub fn check_payload(&self) -> Result<()> {
        let end = self.header_len() + usize::from(self.payload_len());
        need(self.buf.as_ref(), end, "prefix.payload_len")
    }

    /// Bytes of the header that are not body or record slots: the prefix, the hop
    /// descriptor and the measurement block, as the flags say.
    fn fixed_len(&self) -> usize {
        PREFIX_LEN
            + if self.has_hops() { hops::DESC_LEN } else { 0 }
            + if self.has_meas() { MEAS_LEN } else { 0 }
    }

    /// Version (high nibble of byte 0).
    pub fn version(&self) -> u8 {
        self.buf.as_ref()[prefix_field::VER_KIND] >> 4
    }

    /// Kind. Only call on a checked view (unknown codes map to `PathId` otherwise).
    pub fn kind(&self) -> Kind {
        Kind::from_code(self.buf.as_ref()[prefix_field::VER_KIND] & 0x0f).unwrap_or(Kind::PathId)
    }

    /// Flags byte.
    pub fn flags(&self) -> u8 {
        self.buf.as_ref()[prefix_field::FLAGS]
    }

    /// Whether the measurement block is present.
    pub fn has_meas(&self) -> bool {
        self.flags() & FLAG_MEAS != 0
    }

    /// Whether the frame carries a per-hop record area (flag HOPS).
    pub fn has_hops(&self) -> bool {
        self.flags() & FLAG_HOPS != 0
    }

    /// The record area's descriptor, if present (checked by `new_checked`).
    pub fn hop_area(&self) -> Option<HopArea> {
        if !self.has_hops() {
            return None;
        }
        let d = self
            .buf
            .as_ref()
            .get(PREFIX_LEN..PREFIX_LEN + hops::DESC_LEN)?;
        Some(HopArea {
            slots: d[0],
            count: d[1],
            overflow: d[2] & hops::DESC_OVERFLOW != 0,
        })
    }

    /// Offset of the kind-specific body: after the prefix and the hop descriptor.
    pub fn body_offset(&self) -> usize {
        PREFIX_LEN + if self.has_hops() { hops::DESC_LEN } else { 0 }
    }

    /// Hop limit (TTL): decremented by every switch, a frame arriving with 0 is dropped.
    pub fn hop_limit(&self) -> u8 {
        self.buf.as_ref()[prefix_field::HOP_LIMIT]
    }

    /// Total header length in bytes (prefix, hop descriptor, body, measurement block,
    /// hop record slots).
    pub fn header_len(&self) -> usize {
        usize::from(self.buf.as_ref()[prefix_field::HDR_LEN]) * 8
    }

    /// Payload length in bytes (after the header, excluding Ethernet padding).
    pub fn payload_len(&self) -> u16 {
        be16(self.buf.as_ref(), prefix_field::PAYLOAD_LEN)
    }

    /// EtherType of the payload, 0 for a raw message.
    pub fn inner_type(&self) -> u16 {
        be16(self.buf.as_ref(), prefix_field::INNER_TYPE)
    }

    /// Offset and length of the kind-specific body, from one read of the flags (the
    /// decision takes this on every frame; 0 bytes on an unchecked header whose lengths do
    /// not add up).
    #[inline]
    fn body_span(&self) -> (usize, usize) {
        let flags = self.flags();
        if flags & FLAG_HOPS != 0 {
            return self.hops_body_span();
        }
        let meas = if flags & FLAG_MEAS != 0 { MEAS_LEN } else { 0 };
        (
            PREFIX_LEN,
            self.header_len().saturating_sub(PREFIX_LEN + meas),
        )
    }

    /// [`Header::body_span`] with a hop record area.
    #[cold]
    fn hops_body_span(&self) -> (usize, usize) {
        let b = self.buf.as_ref();
        let meas = if self.has_meas() { MEAS_LEN } else { 0 };
        let slots = b
            .get(PREFIX_LEN)
            .map_or(0, |&n| usize::from(n) * hops::RECORD_LEN);
        let at = PREFIX_LEN + hops::DESC_LEN;
        (at, self.header_len().saturating_sub(at + meas + slots))
    }

    /// Length of the kind-specific body (0 on an unchecked header whose lengths do not
    /// add up).
    pub fn body_len(&self) -> usize {
        self.body_span().1
    }

    /// The kind-specific body.
    pub fn body(&self) -> &[u8] {
        let (at, n) = self.body_span();
        &self.buf.as_ref()[at..at + n]
    }

    /// Offset of the measurement block (right after the body).
    fn meas_offset(&self) -> usize {
        let (at, n) = self.body_span();
        at + n
    }

    /// The measurement block, if present.
    pub fn meas(&self) -> Option<Measurement> {
        if !self.has_meas() {
            return None;
        }
        let at = self.meas_offset();
        let b = self.buf.as_ref();
        Some(Measurement {
            seq: be64(b, at),
            timestamp_ns: be64(b, at + 8),
        })
    }

    /// Bytes after the header (payload plus any padding).
    pub fn payload(&self) -> &[u8] {
        &self.buf.as_ref()[self.header_len()..]
    }

    /// Give the buffer back.
    pub fn into_inner(self) -> T {
        self.buf
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    /// Set the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buf.as_mut()[prefix_field::HOP_LIMIT] = v;
    }

    /// Mutable kind-specific body.
    pub fn body_mut(&mut self) -> &mut [u8] {
        let (at, n) = self.body_span();
        &mut self.buf.as_mut()[at..at + n]
    }

    /// Overwrite the measurement block (no-op without FLAG_MEAS).
    pub fn set_meas(&mut self, m: Measurement) {
        if !self.has_meas() {
            return;
        }
        let at = self.meas_offset();
        let b = self.buf.as_mut();
        b[at..at + 8].copy_from_slice(&m.seq.to_be_bytes());
        b[at + 8..at + 16].copy_from_slice(&m.timestamp_ns.to_be_bytes());
    }
}

/// In-band measurement block written by the traffic generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Measurement {
    /// Per-flow sequence number.
    pub seq: u64,
    /// Transmit timestamp in nanoseconds (CLOCK_MONOTONIC or CLOCK_REALTIME of the sender).
    pub timestamp_ns: u64,
}

/// High-level representation of the common prefix (everything but the body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixRepr {
    /// Header kind.
    pub kind: Kind,
    /// Hop limit.
    pub hop_limit: u8,
    /// Payload length in bytes.
    pub payload_len: u16,
    /// Inner EtherType (0 = raw).
    pub inner_type: u16,
    /// Measurement block.
    pub meas: Option<Measurement>,
    /// Per-hop record area: the descriptor (the slots are emitted empty).
    pub hops: Option<HopArea>,
}

impl PrefixRepr {
    /// Parse the prefix (and measurement block) of a checked header.
    pub fn parse<T: AsRef<[u8]>>(h: &Header<T>) -> PrefixRepr {
        PrefixRepr {
            kind: h.kind(),
            hop_limit: h.hop_limit(),
            payload_len: h.payload_len(),
            inner_type: h.inner_type(),
            meas: h.meas(),
            hops: h.hop_area(),
        }
    }

    /// Total header length for a body of `body_len` bytes (a multiple of 8).
    pub fn header_len(&self, body_len: usize) -> usize {
        PREFIX_LEN
            + body_len
            + if self.meas.is_some() { MEAS_LEN } else { 0 }
            + self.hops.map_or(0, |a| hops::DESC_LEN + a.slots_len())
    }

    /// Emit prefix, hop descriptor, `body`, measurement block and empty hop record
    /// slots into `out` (at least `header_len` bytes).
    ///
    /// Returns the header length. Fails if `body` is not a multiple of 8 bytes or the
    /// header would exceed 2040 bytes.
    pub fn emit(&self, body: &[u8], out: &mut [u8]) -> Result<usize> {
        if !body.len().is_multiple_of(8) || body.is_empty() {
            return Err(WireError::BadValue {
                field: "body",
                value: body.len() as u64,
                why: "body length must be a non-zero multiple of 8",
            });
        }
        let hl = self.header_len(body.len());
        if hl > 255 * 8 {
            return Err(WireError::BadValue {
                field: "prefix.hdr_len",
                value: hl as u64,
                why: "header longer than 2040 bytes",
            });
        }
        need(out, hl, "prefix.hdr_len")?;
        out[0] = (VERSION << 4) | self.kind as u8;
        out[1] = if self.meas.is_some() { FLAG_MEAS } else { 0 }
            | if self.hops.is_some() { FLAG_HOPS } else { 0 };
        out[2] = self.hop_limit;
        out[3] = (hl / 8) as u8;
        out[4..6].copy_from_slice(&self.payload_len.to_be_bytes());
        out[6..8].copy_from_slice(&self.inner_type.to_be_bytes());
        let mut at = PREFIX_LEN;
        if let Some(a) = self.hops {
            a.emit(&mut out[at..at + hops::DESC_LEN]);
            at += hops::DESC_LEN;
        }
        out[at..at + body.len()].copy_from_slice(body);
        at += body.len();
        if let Some(m) = self.meas {
            out[at..at + 8].copy_from_slice(&m.seq.to_be_bytes());
            out[at + 8..at + 16].copy_from_slice(&m.timestamp_ns.to_be_bytes());
            at += MEAS_LEN;
        }
        out[at..hl].fill(0);
        Ok(hl)
    }

    /// Emit into a fresh vector (control plane and tests only, never the fast path).
    pub fn to_vec(&self, body: &[u8]) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.header_len(body.len())];
        self.emit(body, &mut v)?;
        Ok(v)
    }
}

/// Build a complete Ethernet frame around a Canopy header and payload, padded to the
/// Ethernet minimum. Control plane, traffic generator and tests use this.
pub fn ethernet_frame(dst: [u8; 6], src: [u8; 6], canopy: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(ETH_HEADER_LEN + canopy.len() + payload.len());
    ethernet_frame_into(&mut f, dst, src, canopy, payload);
    f
}

/// [`ethernet_frame`] into `f`, replacing what it held (its allocation is reused).
pub fn ethernet_frame_into(
    f: &mut Vec<u8>,
    dst: [u8; 6],
    src: [u8; 6],
    canopy: &[u8],
    payload: &[u8],
) {
    f.clear();
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ETHERTYPE_CANOPY.to_be_bytes());
    f.extend_from_slice(canopy);
    f.extend_from_slice(payload);
    if f.len() < ETH_MIN_FRAME {
        f.resize(ETH_MIN_FRAME, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_prefix(meas: bool) -> Vec<u8> {
        let p = PrefixRepr {
            kind: Kind::PathId,
            hop_limit: 6,
            payload_len: 4,
            inner_type: 0,
            meas: meas.then_some(Measurement {
                seq: 7,
                timestamp_ns: 0x0102_0304_0506_0708,
            }),
            hops: None,
        };
        p.to_vec(&[0u8; 16]).unwrap()
    }

    #[test]
    fn doc_vectors_parse_and_are_unique() {
        let v = doc_vectors().unwrap();
        let mut ids: Vec<&str> = v.iter().map(|v| v.id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate vector ids in docs/wire-format.md");
        for d in &v {
            assert!(
                ["prefix", "sliced", "transit", "path-id"].contains(&d.kind.as_str()),
                "{}: unknown kind {}",
                d.id,
                d.kind
            );
            let h = Header::new_checked(&d.bytes[..]).unwrap_or_else(|e| panic!("{}: {e}", d.id));
            assert_eq!(h.header_len(), d.bytes.len(), "{}: HdrLen", d.id);
            if d.kind != "prefix" {
                assert_eq!(h.kind().name(), d.kind, "{}: kind", d.id);
            }
        }
    }

    #[test]
    fn prefix_vector() {
        // docs/wire-format.md, vector P1.
        let v = sample_prefix(false);
        assert_eq!(v, doc_vector("P1").unwrap().bytes);
        let h = Header::new_checked(&v[..]).unwrap();
        assert_eq!(h.kind(), Kind::PathId);
        assert_eq!(h.header_len(), 24);
        assert_eq!(h.body_len(), 16);
        assert_eq!(PrefixRepr::parse(&h).hop_limit, 6);
    }

    #[test]
    fn prefix_with_meas_roundtrip() {
        let v = sample_prefix(true);
        assert_eq!(v, doc_vector("P2").unwrap().bytes);
        let h = Header::new_checked(&v[..]).unwrap();
        assert_eq!(h.body_len(), 16);
        assert_eq!(
            h.meas(),
            Some(Measurement {
                seq: 7,
                timestamp_ns: 0x0102_0304_0506_0708
            })
        );
    }

    #[test]
    fn prefix_errors_name_the_field() {
        let mut v = sample_prefix(false);
        assert!(matches!(
            Header::new_checked(&v[..5]),
            Err(WireError::Truncated {
                field: "prefix",
                ..
            })
        ));
        v[0] = 0x23;
        assert_eq!(
            Header::new_checked(&v[..]).unwrap_err(),
            WireError::BadVersion(2)
        );
        v[0] = 0x19;
        assert_eq!(
            Header::new_checked(&v[..]).unwrap_err(),
            WireError::UnknownKind(9)
        );
        v[0] = 0x13;
        v[1] = 0x01;
        assert!(matches!(
            Header::new_checked(&v[..]),
            Err(WireError::Reserved {
                field: "prefix.flags",
                ..
            })
        ));
        v[1] = 0;
        v[3] = 1;
        assert!(matches!(
            Header::new_checked(&v[..]),
            Err(WireError::BadValue {
                field: "prefix.hdr_len",
                ..
            })
        ));
        v[3] = 9;
        assert!(matches!(
            Header::new_checked(&v[..]),
            Err(WireError::Truncated {
                field: "prefix.hdr_len",
                ..
            })
        ));
    }

    #[test]
    fn payload_must_fit_in_the_frame_and_may_be_followed_by_padding() {
        let h = sample_prefix(false); // payload length 4, header 24 bytes
        let mut buf = h.clone();
        assert!(matches!(
            Header::new_checked(&buf[..]).unwrap().check_payload(),
            Err(WireError::Truncated {
                field: "prefix.payload_len",
                need: 28,
                have: 24
            })
        ));
        buf.extend_from_slice(&[1, 2, 3, 4]);
        Header::new_checked(&buf[..])
            .unwrap()
            .check_payload()
            .unwrap();
        buf.extend_from_slice(&[0; 18]); // Ethernet padding
        Header::new_checked(&buf[..])
            .unwrap()
            .check_payload()
            .unwrap();
    }

    #[test]
    fn ethernet_skips_vlan_tags() {
        let canopy = sample_prefix(false);
        let mut f = ethernet_frame([2; 6], [4; 6], &canopy, &[]);
        assert_eq!(canopy_offset(&f).unwrap(), 14);
        // insert an 802.1Q tag
        f.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
        assert_eq!(canopy_offset(&f).unwrap(), 18);
        let eth = EthernetFrame::new_checked(&f[..]).unwrap();
        assert_eq!(eth.vlan_tags(), 1);
        f.splice(12..12, [0x88, 0xa8, 0x00, 0x06]);
        assert_eq!(canopy_offset(&f).unwrap(), 22);
        f.splice(12..12, [0x81, 0x00, 0x00, 0x07]);
        assert_eq!(canopy_offset(&f).unwrap_err(), WireError::TooManyTags);
        let ip = ethernet_frame([2; 6], [4; 6], &[], &[]);
        let mut ip = ip;
        ip[12] = 0x08;
        ip[13] = 0x00;
        assert_eq!(
            canopy_offset(&ip).unwrap_err(),
            WireError::NotCanopy(0x0800)
        );
        assert!(matches!(
            canopy_offset(&ip[..13]),
            Err(WireError::Truncated { .. })
        ));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..128)) {
            if let Ok(off) = canopy_offset(&b) {
                if let Ok(h) = Header::new_checked(&b[off..]) {
                    let _ = (h.body(), h.meas(), h.payload(), PrefixRepr::parse(&h));
                }
            }
            if let Ok(h) = Header::new_checked(&b[..]) {
                let _ = (h.body(), h.meas(), h.payload());
            }
        }
    }
}

#[cfg(any(test, feature = "fuzzing"))]
mod vectors;
#[cfg(any(test, feature = "fuzzing"))]
pub use vectors::{doc_vector, doc_vectors, DocVector, VectorError, WIRE_FORMAT_DOC};
