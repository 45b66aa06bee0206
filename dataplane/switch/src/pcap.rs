//! Capture files, written and read through the `pcap-file` crate: the one place in the
//! workspace that knows the formats.
//!
//! * **Reading** ([`read`], [`parse`]) takes classic pcap (micro- or nanosecond magic,
//!   either byte order) and pcapng (Wireshark's and dumpcap's default), told apart by
//!   their first four bytes. Timestamps come out in nanoseconds: pcap's nanosecond magic
//!   is kept exactly, and a pcapng interface's `if_tsresol` (decimal or binary, default
//!   microseconds) and `if_tsoffset` are applied. Frames must be Ethernet. A truncated or
//!   corrupt file is refused with a [`PcapError`] that names the file, the byte offset
//!   and what is wrong; no input panics.
//! * **Writing** ([`PcapWriter`]) produces classic pcap with nanosecond timestamps
//!   (magic `a1b23c4d`, little-endian, link type Ethernet), or pcapng when the file name
//!   ends in `.pcapng` (one Ethernet interface with `if_tsresol` = 9, so nanoseconds there
//!   too). A writer keeps at most `max` frames of at most [`SNAPLEN`] bytes each; frames
//!   offered beyond `max` are counted, not written, so a file never exceeds
//!   `max × (SNAPLEN + 36)` bytes plus its headers.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapParser};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::{Block, PcapNgParser, PcapNgWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::borrow::Cow;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What the functions of this module return.
pub type Result<T> = std::result::Result<T, PcapError>;

/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Bytes kept of each frame written (longer frames are cut, their original length kept).
pub const SNAPLEN: u32 = 65_535;
/// Longest record the reader takes: libpcap's own limit for Ethernet captures.
pub const MAX_RECORD: usize = 262_144;
/// Decimal digits of a pcapng interface's timestamps when it has no `if_tsresol`.
const DEFAULT_TSRESOL: u8 = 6;
/// The `if_tsresol` the writer puts on its interface: nanoseconds.
const TSRESOL_NS: u8 = 9;

/// The two capture formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Classic libpcap: a 24-byte file header, a 16-byte header per record.
    Pcap,
    /// pcapng: blocks (section header, interface descriptions, packets).
    PcapNg,
}

impl Format {
    /// The format a writer uses for `path`: pcapng for a `.pcapng` name (any case),
    /// classic pcap otherwise.
    pub fn for_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("pcapng") => Format::PcapNg,
            _ => Format::Pcap,
        }
    }

    /// The format of a file starting with `head`, by its magic (`None`: neither, or fewer
    /// than four bytes).
    pub fn sniff(head: &[u8]) -> Option<Format> {
        let magic: [u8; 4] = head.get(..4)?.try_into().ok()?;
        match u32::from_be_bytes(magic) {
            // the section header block's type, the same in either byte order
            0x0a0d_0d0a => Some(Format::PcapNg),
            0xa1b2_c3d4 | 0xd4c3_b2a1 | 0xa1b2_3c4d | 0x4d3c_b2a1 => Some(Format::Pcap),
            _ => None,
        }
    }
}

/// A capture file that could not be read or written: which file and what is wrong.
#[derive(Debug, Clone, thiserror::Error)]
#[error("pcap {}: {fault}", path.display())]
pub struct PcapError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub fault: Fault,
}

/// What is wrong with a capture file. Offsets are bytes from the start of the file.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Fault {
    /// The file could not be opened, created, read, written or flushed.
    #[error("cannot {op}: {err}")]
    Io {
        /// What was being done (`open`, `read`, `create`, `write`, `flush`).
        op: &'static str,
        /// The system's error.
        err: Arc<std::io::Error>,
    },
    /// Fewer bytes than any magic.
    #[error("{0} bytes: too short for a pcap or pcapng file")]
    Short(usize),
    /// Neither a classic pcap nor a pcapng magic.
    #[error("magic {0:08x} is neither classic pcap (a1b2c3d4, a1b23c4d, either byte order) nor pcapng (0a0d0d0a)")]
    Magic(u32),
    /// Frames of another link type than Ethernet.
    #[error("{what} at byte {at}: link type {link} is not Ethernet (1)")]
    LinkType {
        /// The file header or block.
        what: &'static str,
        /// Its offset.
        at: usize,
        /// The link type it names.
        link: u32,
    },
    /// The file ends inside a header, record or block.
    #[error("truncated {what} at byte {at}: only {left} bytes left")]
    Truncated {
        /// What was cut off.
        what: &'static str,
        /// Where it starts.
        at: usize,
        /// Bytes from there to the end of the file.
        left: usize,
    },
    /// A header, record or block whose fields contradict each other or the format.
    #[error("corrupt {what} at byte {at}: {detail}")]
    Corrupt {
        /// The record or block.
        what: &'static str,
        /// Where it starts.
        at: usize,
        /// The parser's reason.
        detail: String,
    },
    /// A record longer than any capture of Ethernet frames holds.
    #[error("{what} at byte {at}: {len} bytes captured, more than {MAX_RECORD}")]
    TooLong {
        /// The record or block.
        what: &'static str,
        /// Where it starts.
        at: usize,
        /// Its captured length.
        len: usize,
    },
    /// A pcapng packet naming an interface its section does not describe.
    #[error("{what} at byte {at}: interface {id} is not described in its section")]
    Interface {
        /// The block.
        what: &'static str,
        /// Where it starts.
        at: usize,
        /// The interface it names.
        id: u32,
    },
    /// A timestamp that is not a time: a fraction of a second that is a second or more,
    /// or a pcapng time past 2554 (u64 nanoseconds since 1970).
    #[error("{what} at byte {at}: timestamp out of range")]
    Timestamp {
        /// The record or block.
        what: &'static str,
        /// Where it starts.
        at: usize,
    },
    /// A frame the format cannot hold (e.g. a classic pcap time past 2106).
    #[error("frame {index} not written: {detail}")]
    Encode {
        /// How many frames were written before it.
        index: u64,
        /// The encoder's reason.
        detail: String,
    },
}

impl PcapError {
    fn new(path: &Path, fault: Fault) -> PcapError {
        PcapError {
            path: path.to_path_buf(),
            fault,
        }
    }
}

fn io(op: &'static str) -> impl FnOnce(std::io::Error) -> Fault {
    move |err| Fault::Io {
        op,
        err: Arc::new(err),
    }
}

/// The message of a `pcap-file` error with its sources.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

/// A `pcap-file` parse error on the `what` at `at`, with `left` bytes from there on.
fn parse_fault(e: pcap_file::PcapError, what: &'static str, at: usize, left: usize) -> Fault {
    match e {
        pcap_file::PcapError::IncompleteBuffer => Fault::Truncated { what, at, left },
        pcap_file::PcapError::InvalidInterfaceId(id) => Fault::Interface { what, at, id },
        e => Fault::Corrupt {
            what,
            at,
            detail: chain(&e),
        },
    }
}

/// A `pcap-file` write error, at frame `index`.
fn encode_fault(e: pcap_file::PcapError, index: u64) -> Fault {
    match e {
        pcap_file::PcapError::IoError(e) => io("write")(e),
        e => Fault::Encode {
            index,
            detail: chain(&e),
        },
    }
}

/// The encoder of the file's format. Classic pcap records are encoded by `pcap-file`
/// straight into the file's buffer (its own writer keeps the buffer out of reach, so it
/// could not be flushed while the file stays open).
enum Sink {
    Pcap(BufWriter<std::fs::File>),
    PcapNg(PcapNgWriter<BufWriter<std::fs::File>>),
}

impl Sink {
    fn buffer(&mut self) -> &mut BufWriter<std::fs::File> {
        match self {
            Sink::Pcap(w) => w,
            Sink::PcapNg(w) => w.get_mut(),
        }
    }
}

/// Writes frames into a capture file (format by name: [`Format::for_path`]), at most
/// `max` of them (the rest are counted, not written), each cut at the writer's snapshot
/// length. The first failed write stops the writer: later frames are counted as skipped
/// and [`PcapWriter::finish`] returns the error.
pub struct PcapWriter {
    path: PathBuf,
    format: Format,
    out: Sink,
    max: u64,
    snaplen: u32,
    failed: Option<Fault>,
    /// Frames written.
    pub written: u64,
    /// Frames offered beyond `max` or after a failed write.
    pub skipped: u64,
}

impl std::fmt::Debug for PcapWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapWriter")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("max", &self.max)
            .field("snaplen", &self.snaplen)
            .field("failed", &self.failed)
            .field("written", &self.written)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

impl PcapWriter {
    /// Create `path` (truncating) in the format its name asks for
    /// ([`Format::for_path`]), snapshot length [`SNAPLEN`], and write the file's headers.
    pub fn create(path: &Path, max: u64) -> Result<PcapWriter> {
        PcapWriter::create_as(path, Format::for_path(path), max, SNAPLEN)
    }

    /// Create `path` (truncating) in `format` with snapshot length `snaplen` (bytes
    /// kept of each frame, 1 to [`SNAPLEN`]; the file's header says it) and write the
    /// file's headers.
    pub fn create_as(path: &Path, format: Format, max: u64, snaplen: u32) -> Result<PcapWriter> {
        let err = |fault| PcapError::new(path, fault);
        let snaplen = snaplen.clamp(1, SNAPLEN);
        let file = std::fs::File::create(path).map_err(|e| err(io("create")(e)))?;
        let mut out = BufWriter::new(file);
        let header_fault = |e| encode_fault(e, 0);
        let out = match format {
            Format::Pcap => {
                let header = PcapHeader {
                    snaplen,
                    datalink: DataLink::ETHERNET,
                    ts_resolution: TsResolution::NanoSecond,
                    endianness: Endianness::Little,
                    ..PcapHeader::default()
                };
                header
                    .write_to(&mut out)
                    .map_err(|e| err(header_fault(e)))?;
                Sink::Pcap(out)
            }
            Format::PcapNg => {
                let section = SectionHeaderBlock {
                    endianness: Endianness::Little,
                    options: vec![SectionHeaderOption::UserApplication(Cow::Borrowed(
                        "canopy",
                    ))],
                    ..SectionHeaderBlock::default()
                };
                let mut w = PcapNgWriter::with_section_header(out, section)
                    .map_err(|e| err(header_fault(e)))?;
                let interface = InterfaceDescriptionBlock {
                    linktype: DataLink::ETHERNET,
                    snaplen,
                    options: vec![InterfaceDescriptionOption::IfTsResol(TSRESOL_NS)],
                };
                w.write_pcapng_block(interface)
                    .map_err(|e| err(header_fault(e)))?;
                Sink::PcapNg(w)
            }
        };
        Ok(PcapWriter {
            path: path.to_path_buf(),
            format,
            out,
            max,
            snaplen,
            failed: None,
            written: 0,
            skipped: 0,
        })
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether more frames would be written.
    #[inline]
    pub fn wants(&self) -> bool {
        self.written < self.max && self.failed.is_none()
    }

    /// Append `frame` with timestamp `ts_ns` (any epoch; the generator uses
    /// CLOCK_MONOTONIC, so the times are relative). Bytes past the snapshot length are
    /// cut, the frame's own length is kept as its original length.
    pub fn write(&mut self, ts_ns: u64, frame: &[u8]) -> Result<()> {
        let original_len = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        self.write_cut(ts_ns, frame, original_len)
    }

    /// [`PcapWriter::write`] of a frame of `original_len` bytes of which `data` were
    /// kept (by a capture that cut it already).
    pub fn write_cut(&mut self, ts_ns: u64, data: &[u8], original_len: u32) -> Result<()> {
        if !self.wants() {
            self.skipped += 1;
            return Ok(());
        }
        let data = &data[..data.len().min(self.snaplen as usize)];
        let original_len = original_len.max(data.len() as u32);
        let timestamp = Duration::from_nanos(ts_ns);
        let r = match &mut self.out {
            Sink::Pcap(w) => PcapPacket::new(timestamp, original_len, data)
                .write_to::<_, byteorder::LittleEndian>(w, TsResolution::NanoSecond, self.snaplen),
            Sink::PcapNg(w) => w.write_pcapng_block(EnhancedPacketBlock {
                interface_id: 0,
                timestamp,
                original_len,
                data: Cow::Borrowed(data),
                options: vec![],
            }),
        };
        match r {
            Ok(_) => {
                self.written += 1;
                Ok(())
            }
            Err(e) => {
                let fault = encode_fault(e, self.written);
                self.skipped += 1;
                // the caller gets it now, and `finish` again
                self.failed = Some(fault.clone());
                Err(PcapError::new(&self.path, fault))
            }
        }
    }

    /// Push what is buffered to the file (it stays open): a reader then sees every
    /// frame written so far. A failure stops the writer as a failed write does.
    pub fn flush(&mut self) -> Result<()> {
        if let Some(fault) = &self.failed {
            return Err(PcapError::new(&self.path, fault.clone()));
        }
        self.out.buffer().flush().map_err(|e| {
            let fault = io("flush")(e);
            self.failed = Some(fault.clone());
            PcapError::new(&self.path, fault)
        })
    }

    /// Flush to disk; the number of frames written, or the first write's failure.
    pub fn finish(mut self) -> Result<u64> {
        self.flush()?;
        Ok(self.written)
    }
}

/// One frame read from a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapFrame {
    /// Capture time in ns (relative to the file's epoch).
    pub ts_ns: u64,
    /// The captured bytes.
    pub data: Vec<u8>,
}

/// Read every frame of a classic pcap or pcapng file of Ethernet frames.
pub fn read(path: &Path) -> Result<Vec<PcapFrame>> {
    let err = |fault| PcapError::new(path, fault);
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .map_err(|e| err(io("open")(e)))?
        .read_to_end(&mut buf)
        .map_err(|e| err(io("read")(e)))?;
    parse(&buf).map_err(err)
}

/// Parse a classic pcap or pcapng file in memory (the format by its magic).
pub fn parse(buf: &[u8]) -> std::result::Result<Vec<PcapFrame>, Fault> {
    match Format::sniff(buf) {
        Some(Format::Pcap) => parse_pcap(buf),
        Some(Format::PcapNg) => parse_pcapng(buf),
        None => match buf.get(..4) {
            Some(m) => Err(Fault::Magic(u32::from_be_bytes([m[0], m[1], m[2], m[3]]))),
            None => Err(Fault::Short(buf.len())),
        },
    }
}

/// Link type `link` (upper bits: FCS information, ignored) is Ethernet.
fn ethernet(link: DataLink, what: &'static str, at: usize) -> std::result::Result<(), Fault> {
    match u32::from(link) & 0x0fff_ffff {
        LINKTYPE_ETHERNET => Ok(()),
        link => Err(Fault::LinkType { what, at, link }),
    }
}

fn parse_pcap(buf: &[u8]) -> std::result::Result<Vec<PcapFrame>, Fault> {
    let (mut rem, parser) =
        PcapParser::new(buf).map_err(|e| parse_fault(e, "pcap file header", 0, buf.len()))?;
    let header = parser.header();
    ethernet(header.datalink, "pcap file header", 0)?;
    let (frac_limit, frac_ns) = match header.ts_resolution {
        TsResolution::MicroSecond => (1_000_000, 1_000),
        TsResolution::NanoSecond => (1_000_000_000, 1),
    };
    let what = "pcap record";
    let mut out = Vec::new();
    while !rem.is_empty() {
        let at = buf.len() - rem.len();
        // the raw record: its lengths checked against the bytes left, not against the
        // snapshot length (a capture cut at `-s 96` keeps the frames' whole lengths)
        let (next, raw) = parser
            .next_raw_packet(rem)
            .map_err(|e| parse_fault(e, what, at, rem.len()))?;
        if raw.data.len() > MAX_RECORD {
            let len = raw.data.len();
            return Err(Fault::TooLong { what, at, len });
        }
        if raw.ts_frac >= frac_limit {
            return Err(Fault::Timestamp { what, at });
        }
        out.push(PcapFrame {
            ts_ns: u64::from(raw.ts_sec) * 1_000_000_000 + u64::from(raw.ts_frac) * frac_ns,
            data: raw.data.into_owned(),
        });
        rem = next;
    }
    Ok(out)
}

/// A pcapng interface's timestamp resolution (`if_tsresol`) and offset in seconds
/// (`if_tsoffset`, a signed 64-bit count that `pcap-file` hands over as unsigned).
fn clock(i: &InterfaceDescriptionBlock) -> (u8, i64) {
    let mut resol = DEFAULT_TSRESOL;
    let mut offset = 0;
    for o in &i.options {
        match o {
            InterfaceDescriptionOption::IfTsResol(r) => resol = *r,
            InterfaceDescriptionOption::IfTsOffset(s) => offset = *s as i64,
            _ => {}
        }
    }
    (resol, offset)
}

/// Nanoseconds of a pcapng timestamp of `units` at resolution `resol` (bit 7 clear:
/// 10^-n s, set: 2^-n s) plus `offset_s` seconds; `None` before 0 or past u64.
fn pcapng_ns(units: u64, resol: u8, offset_s: i64) -> Option<u64> {
    let units = u128::from(units);
    let ns = if resol & 0x80 == 0 {
        let digits = u32::from(resol);
        if digits <= 9 {
            units * 10u128.pow(9 - digits)
        } else {
            // finer than a nanosecond: truncated (a divisor past u128, 10^39 and up,
            // leaves 0)
            10u128.checked_pow(digits - 9).map_or(0, |d| units / d)
        }
    } else {
        (units * 1_000_000_000) >> u32::from(resol & 0x7f)
    };
    // |ns| < 2^94 and |offset| < 2^93: no overflow in i128
    let ns = ns as i128 + i128::from(offset_s) * 1_000_000_000;
    u64::try_from(ns).ok()
}

fn parse_pcapng(buf: &[u8]) -> std::result::Result<Vec<PcapFrame>, Fault> {
    let (mut rem, mut parser) = PcapNgParser::new(buf)
        .map_err(|e| parse_fault(e, "pcapng section header block", 0, buf.len()))?;
    let mut out = Vec::new();
    while !rem.is_empty() {
        let at = buf.len() - rem.len();
        let (next, block) = parser
            .next_block(rem)
            .map_err(|e| parse_fault(e, "pcapng block", at, rem.len()))?;
        // (the block, its interface, its timestamp in `if_tsresol` units (none in a simple
        // packet block), its captured bytes and original length)
        let (what, id, units, data, original_len) = match block {
            Block::EnhancedPacket(b) => {
                // `pcap-file` reads the 64-bit count of `if_tsresol` units as nanoseconds;
                // the count itself comes back exact
                let units = u64::try_from(b.timestamp.as_nanos()).unwrap_or(u64::MAX);
                let what = "pcapng enhanced packet block";
                (what, b.interface_id, Some(units), b.data, b.original_len)
            }
            Block::Packet(b) => {
                let what = "pcapng packet block";
                let id = u32::from(b.interface_id);
                (what, id, Some(b.timestamp), b.data, b.original_len)
            }
            // no timestamp; its data runs to the end of the block, padding included
            Block::SimplePacket(b) => {
                let what = "pcapng simple packet block";
                (what, 0, None, b.data, b.original_len)
            }
            _ => {
                rem = next;
                continue;
            }
        };
        let Some(interface) = parser.interfaces().get(id as usize) else {
            return Err(Fault::Interface { what, at, id });
        };
        ethernet(interface.linktype, what, at)?;
        let mut data = data.into_owned();
        if units.is_none() {
            let mut keep = (original_len as usize).min(data.len());
            if interface.snaplen > 0 {
                keep = keep.min(interface.snaplen as usize);
            }
            data.truncate(keep);
        }
        if data.len() > MAX_RECORD {
            let len = data.len();
            return Err(Fault::TooLong { what, at, len });
        }
        let ts_ns = match units {
            Some(units) => {
                let (resol, offset) = clock(interface);
                pcapng_ns(units, resol, offset).ok_or(Fault::Timestamp { what, at })?
            }
            // a simple packet block has no time: it takes the previous frame's
            None => out.last().map_or(0, |f: &PcapFrame| f.ts_ns),
        };
        out.push(PcapFrame { ts_ns, data });
        rem = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("canopy-pcap-{tag}-"))
            .tempdir()
            .unwrap()
    }

    /// Frames with timestamps that need every nanosecond digit, the last one earlier
    /// than the others (files need not be in time order).
    fn sample() -> Vec<PcapFrame> {
        let mut v: Vec<PcapFrame> = (0..5u64)
            .map(|i| PcapFrame {
                ts_ns: 1_700_000_000_123_456_789 + i * 1_000_000_007,
                data: (0..60 + i as usize)
                    .map(|b| (b as u8) ^ (i as u8))
                    .collect(),
            })
            .collect();
        v.push(PcapFrame {
            ts_ns: 3,
            data: vec![7; 61],
        });
        v
    }

    fn write_all(path: &Path, frames: &[PcapFrame], max: u64) -> PcapWriter {
        let mut w = PcapWriter::create(path, max).unwrap();
        for f in frames {
            w.write(f.ts_ns, &f.data).unwrap();
        }
        w
    }

    #[test]
    fn round_trip_both_formats_exact_ns_and_bounded() {
        let dir = scratch("rt");
        let frames = sample();
        for (name, format, magic) in [
            ("a.pcap", Format::Pcap, [0x4d, 0x3c, 0xb2, 0xa1]),
            ("a.pcapng", Format::PcapNg, [0x0a, 0x0d, 0x0d, 0x0a]),
            ("A.PCAPNG", Format::PcapNg, [0x0a, 0x0d, 0x0d, 0x0a]),
        ] {
            let p = dir.path().join(name);
            let w = write_all(&p, &frames, 4);
            assert_eq!(w.format(), format);
            assert_eq!((w.written, w.skipped), (4, 2), "{name}");
            assert_eq!(w.finish().unwrap(), 4);
            let bytes = std::fs::read(&p).unwrap();
            assert_eq!(bytes[..4], magic, "{name}");
            assert_eq!(Format::sniff(&bytes), Some(format));
            let back = read(&p).unwrap();
            assert_eq!(back, frames[..4], "{name}");
        }
    }

    #[test]
    fn long_frames_are_cut_at_snaplen_and_the_bound_holds() {
        let dir = scratch("snap");
        for name in ["big.pcap", "big.pcapng"] {
            let p = dir.path().join(name);
            let big = vec![0xabu8; SNAPLEN as usize + 100];
            let mut w = PcapWriter::create(&p, 3).unwrap();
            for k in 0..10 {
                w.write(k, &big).unwrap();
            }
            assert_eq!(w.finish().unwrap(), 3);
            let size = std::fs::metadata(&p).unwrap().len();
            assert!(
                size <= 3 * (u64::from(SNAPLEN) + 36) + 200,
                "{name}: {size}"
            );
            let back = read(&p).unwrap();
            assert_eq!(back.len(), 3);
            assert!(back.iter().all(|f| f.data.len() == SNAPLEN as usize));
        }
    }

    #[test]
    fn a_time_classic_pcap_cannot_hold_is_refused_and_stops_the_writer() {
        let dir = scratch("ts");
        let p = dir.path().join("late.pcap");
        let mut w = PcapWriter::create(&p, 10).unwrap();
        w.write(1, &[1; 60]).unwrap();
        // 2^32 s: past classic pcap's 32-bit seconds
        let e = w.write((u64::from(u32::MAX) + 1) * 1_000_000_000, &[2; 60]);
        let e = e.unwrap_err().to_string();
        assert!(e.contains("late.pcap") && e.contains("frame 1"), "{e}");
        assert!(!w.wants());
        w.write(3, &[3; 60]).unwrap();
        assert_eq!((w.written, w.skipped), (1, 2));
        let e = w.finish().unwrap_err().to_string();
        assert!(e.contains("late.pcap"), "{e}");
        // pcapng's 64-bit count holds it
        let p = dir.path().join("late.pcapng");
        let mut w = PcapWriter::create(&p, 10).unwrap();
        w.write(u64::MAX, &[2; 60]).unwrap();
        w.finish().unwrap();
        assert_eq!(read(&p).unwrap()[0].ts_ns, u64::MAX);
    }

    #[test]
    fn classic_variants_read_big_endian_microseconds() {
        // written by the crate with another header than ours
        let mut buf = Vec::new();
        let header = PcapHeader {
            ts_resolution: TsResolution::MicroSecond,
            endianness: Endianness::Big,
            snaplen: 64,
            ..PcapHeader::default()
        };
        let mut w = pcap_file::pcap::PcapWriter::with_header(&mut buf, header).unwrap();
        w.write_packet(&PcapPacket::new(Duration::new(7, 5_000), 3, &[9, 9, 9]))
            .unwrap();
        // a record cut at the snapshot length: its original length is larger
        w.write_packet(&PcapPacket::new(Duration::new(8, 0), 1500, &[1; 64]))
            .unwrap();
        assert_eq!(&buf[..4], &[0xa1, 0xb2, 0xc3, 0xd4]);
        let f = parse(&buf).unwrap();
        assert_eq!(f[0].ts_ns, 7_000_005_000);
        assert_eq!(f[0].data, vec![9, 9, 9]);
        assert_eq!(f[1].data.len(), 64);
    }

    #[test]
    fn pcapng_resolutions_offsets_and_packet_kinds() {
        assert_eq!(pcapng_ns(1_500_000, 6, 0), Some(1_500_000_000));
        assert_eq!(pcapng_ns(7, 9, 2), Some(2_000_000_007));
        assert_eq!(pcapng_ns(3_000_000_007, 9, -2), Some(1_000_000_007));
        assert_eq!(pcapng_ns(7, 9, -1), None);
        assert_eq!(pcapng_ns(1_234_567, 12, 0), Some(1_234));
        assert_eq!(pcapng_ns(1024, 0x80 | 10, 0), Some(1_000_000_000));
        assert_eq!(pcapng_ns(u64::MAX, 0, 0), None);
        assert_eq!(pcapng_ns(5, 127, 0), Some(0));
        assert_eq!(pcapng_ns(u64::MAX, 0x80 | 127, 0), Some(0));

        use pcap_file::pcapng::blocks::simple_packet::SimplePacketBlock;
        use pcap_file::pcapng::PcapNgBlock;
        let epb = |interface_id| {
            EnhancedPacketBlock {
                interface_id,
                timestamp: Duration::from_nanos(1_000_001),
                original_len: 5,
                data: Cow::Borrowed(&[1, 2, 3, 4, 5]),
                options: vec![],
            }
            .into_block()
        };
        let spb = SimplePacketBlock {
            original_len: 3,
            data: Cow::Borrowed(&[6, 7, 8]),
        }
        .into_block();
        // big-endian; interface 0: Ethernet without if_tsresol (so microseconds) and a
        // 2 s offset; interface 1: raw IP
        let file = |packets: &[Block]| {
            let mut buf = Vec::new();
            let mut w = PcapNgWriter::with_endianness(&mut buf, Endianness::Big).unwrap();
            w.write_pcapng_block(InterfaceDescriptionBlock {
                linktype: DataLink::ETHERNET,
                snaplen: 0,
                options: vec![InterfaceDescriptionOption::IfTsOffset(2)],
            })
            .unwrap();
            w.write_pcapng_block(InterfaceDescriptionBlock::new(DataLink::RAW, 0))
                .unwrap();
            let at = w.get_ref().len();
            for p in packets {
                w.write_block(p).unwrap();
            }
            (buf, at)
        };
        let (good, first) = file(&[epb(0), spb]);
        let f = parse(&good).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].ts_ns, 3_000_001_000);
        assert_eq!(f[0].data, [1, 2, 3, 4, 5]);
        // the block's padding is not data; no time of its own: the frame before's
        assert_eq!(f[1].data, [6, 7, 8]);
        assert_eq!(f[1].ts_ns, 3_000_001_000);

        let (raw_ip, at) = file(&[epb(1)]);
        let e = parse(&raw_ip).unwrap_err();
        assert!(
            matches!(e, Fault::LinkType { link: 101, at: a, .. } if a == at),
            "{e}"
        );

        // the first packet's interface id (after its type and length) made 7
        let mut undescribed = good.clone();
        undescribed[first + 8..first + 12].copy_from_slice(&7u32.to_be_bytes());
        let e = parse(&undescribed).unwrap_err();
        assert!(matches!(e, Fault::Interface { id: 7, .. }), "{e}");
    }

    #[test]
    fn refusals_name_the_file_and_the_fault() {
        let dir = scratch("bad");
        let e = read(&dir.path().join("missing.pcapng"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing.pcapng") && e.contains("cannot open"),
            "{e}"
        );
        let p = dir.path().join("x.pcap");
        std::fs::write(&p, b"GIF89a-not-a-capture-at-all").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("x.pcap") && e.contains("magic 47494638"), "{e}");
        assert!(matches!(parse(&[0xa1, 0xb2]), Err(Fault::Short(2))));
        assert!(matches!(parse(&[]), Err(Fault::Short(0))));
        // not Ethernet
        let mut buf = Vec::new();
        let header = PcapHeader {
            datalink: DataLink::RAW,
            ..PcapHeader::default()
        };
        pcap_file::pcap::PcapWriter::with_header(&mut buf, header).unwrap();
        let e = parse(&buf).unwrap_err();
        assert!(matches!(e, Fault::LinkType { link: 101, .. }), "{e}");
    }
}
