//! Classic pcap files (the libpcap format every tool reads: tshark, tcpdump, tcpreplay,
//! trafgen's pcap input), written and read by hand: a 24-byte file header and a 16-byte
//! record header per frame. Files are written with nanosecond timestamps (magic
//! `a1b23c4d`, link type Ethernet); the reader takes all four variants (micro/nano,
//! either byte order). No pcapng.

use crate::error::{Result, TestbedError};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Magic of a nanosecond-resolution classic pcap file.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// Magic of a microsecond-resolution classic pcap file.
pub const MAGIC_US: u32 = 0xa1b2_c3d4;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Snapshot length written into the header (every frame is kept whole).
pub const SNAPLEN: u32 = 65_535;

fn perr(path: &Path, detail: impl Into<String>) -> TestbedError {
    TestbedError::Pcap {
        path: path.display().to_string(),
        detail: detail.into(),
    }
}

/// Writes frames into a pcap file, at most `max` of them (the rest are counted, not
/// written).
#[derive(Debug)]
pub struct PcapWriter {
    path: PathBuf,
    out: BufWriter<std::fs::File>,
    max: u64,
    /// Frames written.
    pub written: u64,
    /// Frames offered beyond `max`.
    pub skipped: u64,
}

impl PcapWriter {
    /// Create `path` (truncating) and write the file header.
    pub fn create(path: &Path, max: u64) -> Result<PcapWriter> {
        let f = std::fs::File::create(path).map_err(|e| perr(path, e.to_string()))?;
        let mut out = BufWriter::new(f);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        out.write_all(&h).map_err(|e| perr(path, e.to_string()))?;
        Ok(PcapWriter {
            path: path.to_path_buf(),
            out,
            max,
            written: 0,
            skipped: 0,
        })
    }

    /// Whether more frames would be written.
    #[inline]
    pub fn wants(&self) -> bool {
        self.written < self.max
    }

    /// Append `frame` with timestamp `ts_ns` (any epoch; the generator uses
    /// CLOCK_MONOTONIC, so the times are relative).
    pub fn write(&mut self, ts_ns: u64, frame: &[u8]) -> Result<()> {
        if !self.wants() {
            self.skipped += 1;
            return Ok(());
        }
        let len = frame.len().min(SNAPLEN as usize);
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((ts_ns / 1_000_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((ts_ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(len as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.out
            .write_all(&h)
            .and_then(|_| self.out.write_all(&frame[..len]))
            .map_err(|e| perr(&self.path, e.to_string()))?;
        self.written += 1;
        Ok(())
    }

    /// Flush to disk.
    pub fn finish(mut self) -> Result<u64> {
        self.out
            .flush()
            .map_err(|e| perr(&self.path, e.to_string()))?;
        Ok(self.written)
    }
}

/// One frame read from a pcap file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapFrame {
    /// Capture time in ns (relative to the file's epoch).
    pub ts_ns: u64,
    /// The captured bytes.
    pub data: Vec<u8>,
}

/// Read every frame of a classic pcap file (Ethernet link type only).
pub fn read(path: &Path) -> Result<Vec<PcapFrame>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut buf))
        .map_err(|e| perr(path, e.to_string()))?;
    parse(&buf).map_err(|d| perr(path, d.to_string()))
}

/// Why bytes are not a classic pcap file of Ethernet frames.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Fewer bytes than the file header.
    #[error("{0} bytes: shorter than a pcap header")]
    Short(usize),
    /// Not one of the four classic magics.
    #[error("magic {0:08x} is not a classic pcap file (pcapng is not supported; convert with `editcap -F pcap`)")]
    Magic(u32),
    /// Another link type than Ethernet.
    #[error("link type {0} is not Ethernet (1)")]
    LinkType(u32),
    /// A record header cut off at byte `0`.
    #[error("truncated record header at byte {0}")]
    RecordHeader(usize),
    /// A record longer than what is left.
    #[error("record at byte {at} claims {claims} bytes, only {left} left")]
    Record {
        /// Offset of its header.
        at: usize,
        /// Its captured length.
        claims: usize,
        /// Bytes left in the file.
        left: usize,
    },
}

/// Parse a classic pcap file in memory.
pub fn parse(buf: &[u8]) -> std::result::Result<Vec<PcapFrame>, FormatError> {
    if buf.len() < 24 {
        return Err(FormatError::Short(buf.len()));
    }
    let raw = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let (le, nano) = match raw {
        MAGIC_NS => (true, true),
        MAGIC_US => (true, false),
        m if m.swap_bytes() == MAGIC_NS => (false, true),
        m if m.swap_bytes() == MAGIC_US => (false, false),
        m => return Err(FormatError::Magic(m)),
    };
    let u32at = |at: usize| -> u32 {
        let b = [buf[at], buf[at + 1], buf[at + 2], buf[at + 3]];
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let link = u32at(20) & 0x0fff_ffff;
    if link != LINKTYPE_ETHERNET {
        return Err(FormatError::LinkType(link));
    }
    let mut at = 24;
    let mut out = Vec::new();
    while at < buf.len() {
        if at + 16 > buf.len() {
            return Err(FormatError::RecordHeader(at));
        }
        let (s, frac, incl) = (u32at(at), u32at(at + 4), u32at(at + 8) as usize);
        let start = at + 16;
        let Some(data) = buf.get(start..start + incl) else {
            return Err(FormatError::Record {
                at,
                claims: incl,
                left: buf.len() - start,
            });
        };
        let ns = if nano {
            u64::from(frac)
        } else {
            u64::from(frac) * 1000
        };
        out.push(PcapFrame {
            ts_ns: u64::from(s) * 1_000_000_000 + ns,
            data: data.to_vec(),
        });
        at = start + incl;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limits() {
        let dir = std::env::temp_dir().join(format!("ctrf{}-pcap", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.pcap");
        let mut w = PcapWriter::create(&p, 2).unwrap();
        w.write(1_500_000_001, &[1u8; 60]).unwrap();
        w.write(2_000_000_000, &[2u8; 100]).unwrap();
        w.write(3, &[3u8; 60]).unwrap();
        assert_eq!(w.skipped, 1);
        assert_eq!(w.finish().unwrap(), 2);
        let f = read(&p).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].ts_ns, 1_500_000_001);
        assert_eq!(f[1].data, vec![2u8; 100]);
        // a big-endian microsecond file
        let mut be = Vec::new();
        for v in [MAGIC_US, 0x0002_0004, 0, 0, SNAPLEN, 1] {
            be.extend_from_slice(&v.to_be_bytes());
        }
        for v in [7u32, 5, 3, 3] {
            be.extend_from_slice(&v.to_be_bytes());
        }
        be.extend_from_slice(&[9, 9, 9]);
        let f = parse(&be).unwrap();
        assert_eq!(f[0].ts_ns, 7_000_005_000);
        assert_eq!(f[0].data, vec![9, 9, 9]);
        // errors say what
        assert!(parse(&be[..be.len() - 1])
            .unwrap_err()
            .to_string()
            .contains("claims 3"));
        assert!(parse(&[0; 30]).unwrap_err().to_string().contains("magic"));
        let e = read(&dir.join("missing.pcap")).unwrap_err().to_string();
        assert!(e.contains("missing.pcap"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
