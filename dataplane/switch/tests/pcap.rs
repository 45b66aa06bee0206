//! Capture files (`canopy_switch::pcap`) against the tools that read and write
//! them: tshark reads what we write, to the nanosecond, in both formats; a pcapng file
//! made by editcap from our pcap reads back as the same frames; and truncated or mutated
//! captures are refused with an error, never a panic. The tool tests print `SKIP ...` and
//! pass when tshark or editcap is not installed (Debian package `tshark`).

use std::borrow::Cow;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use canopy_switch::pcap::{self, Fault, Format, PcapFrame, PcapWriter};
use pcap_file::pcap::{PcapHeader, PcapPacket};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::interface_statistics::{
    InterfaceStatisticsBlock, InterfaceStatisticsOption,
};
use pcap_file::pcapng::blocks::name_resolution::{
    Ipv4Record, NameResolutionBlock, NameResolutionOption, Record,
};
use pcap_file::pcapng::blocks::packet::PacketBlock;
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::blocks::simple_packet::SimplePacketBlock;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness, TsResolution};

/// Frames whose times need all nine digits of their nanoseconds, of several lengths.
fn frames() -> Vec<PcapFrame> {
    (0..7u64)
        .map(|i| PcapFrame {
            ts_ns: 1_700_000_000_123_456_789 + i * 1_000_003_007,
            data: (0..60 + 13 * i as usize)
                .map(|b| (b as u8).wrapping_mul(31) ^ i as u8)
                .collect(),
        })
        .collect()
}

fn write(path: &Path, frames: &[PcapFrame]) {
    let mut w = PcapWriter::create(path, 1_000).unwrap();
    for f in frames {
        w.write(f.ts_ns, &f.data).unwrap();
    }
    assert_eq!(w.finish().unwrap(), frames.len() as u64);
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

fn scratch(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("canopy-pcap-{tag}-"))
        .tempdir()
        .unwrap()
}

/// `s.nnnnnnnnn` (tshark's `frame.time_epoch`) in nanoseconds.
fn epoch_ns(s: &str) -> u64 {
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    assert!(frac.len() <= 9, "{s}");
    let frac = format!("{frac:0<9}");
    sec.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap()
}

#[test]
fn tshark_reads_what_we_write_to_the_nanosecond() {
    if !have("tshark") {
        eprintln!("SKIP tshark_reads_what_we_write: tshark not installed");
        return;
    }
    let dir = scratch("tshark");
    let want = frames();
    for (name, format) in [("w.pcap", Format::Pcap), ("w.pcapng", Format::PcapNg)] {
        let p = dir.path().join(name);
        write(&p, &want);
        assert_eq!(Format::sniff(&std::fs::read(&p).unwrap()), Some(format));
        let out = Command::new("tshark")
            .env("HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .arg("-n")
            .arg("-r")
            .arg(&p)
            .args(["-T", "fields", "-E", "separator=|"])
            .args([
                "-e",
                "frame.time_epoch",
                "-e",
                "frame.len",
                "-e",
                "frame.cap_len",
            ])
            .args(["-e", "eth.src"])
            .output()
            .expect("run tshark");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stderr}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('|').collect()).collect();
        assert_eq!(rows.len(), want.len(), "{name}: {stdout}{stderr}");
        for (r, f) in rows.iter().zip(&want) {
            assert_eq!(epoch_ns(r[0]), f.ts_ns, "{name}: {r:?}");
            assert_eq!(r[1], f.data.len().to_string(), "{name}: {r:?}");
            assert_eq!(r[2], f.data.len().to_string(), "{name}: {r:?}");
            let src: Vec<String> = f.data[6..12].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(r[3], src.join(":"), "{name}: {r:?}");
        }
    }
}

#[test]
fn editcap_pcapng_reads_as_the_pcap_it_was_made_from() {
    if !have("editcap") {
        eprintln!("SKIP editcap_pcapng: editcap not installed (Debian package wireshark-common)");
        return;
    }
    let dir = scratch("editcap");
    let want = frames();
    let ns = dir.path().join("ns.pcap");
    write(&ns, &want);
    let convert = |format: &str, from: &Path, to: &Path| {
        let out = Command::new("editcap")
            .args(["-F", format])
            .arg(from)
            .arg(to)
            .output()
            .expect("run editcap");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "editcap -F {format}: {stderr}");
        std::fs::read(to).unwrap()
    };
    // nanosecond pcap to pcapng: an interface with if_tsresol 9, every digit kept
    let ng = dir.path().join("ns.pcapng");
    let bytes = convert("pcapng", &ns, &ng);
    assert_eq!(Format::sniff(&bytes), Some(Format::PcapNg));
    assert_eq!(pcap::read(&ng).unwrap(), want);

    // microsecond pcap to pcapng: no if_tsresol, the default (microseconds) applies
    let us = dir.path().join("us.pcap");
    assert_eq!(convert("pcap", &ns, &us)[..4], [0xd4, 0xc3, 0xb2, 0xa1]);
    let usng = dir.path().join("us.pcapng");
    convert("pcapng", &us, &usng);
    let to_us: Vec<PcapFrame> = want
        .iter()
        .map(|f| PcapFrame {
            ts_ns: f.ts_ns / 1_000 * 1_000,
            data: f.data.clone(),
        })
        .collect();
    assert_eq!(pcap::read(&us).unwrap(), to_us);
    assert_eq!(pcap::read(&usng).unwrap(), to_us);
}

/// A pcapng file with every kind of block and many options (written by `pcap-file`), and
/// where its packets' frames are.
fn rich_pcapng() -> Vec<u8> {
    let mut buf = Vec::new();
    let section = SectionHeaderBlock {
        endianness: Endianness::Big,
        options: vec![
            SectionHeaderOption::Comment(Cow::Borrowed("seed")),
            SectionHeaderOption::UserApplication(Cow::Borrowed("canopy")),
        ],
        ..SectionHeaderBlock::default()
    };
    let mut w = PcapNgWriter::with_section_header(&mut buf, section).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: DataLink::ETHERNET,
        snaplen: 1500,
        options: vec![
            InterfaceDescriptionOption::IfName(Cow::Borrowed("h0-eth0")),
            InterfaceDescriptionOption::IfTsResol(9),
            InterfaceDescriptionOption::IfTsOffset(1),
            InterfaceDescriptionOption::IfFilter(Cow::Borrowed(&[0, b'i', b'p'])),
        ],
    })
    .unwrap();
    w.write_pcapng_block(NameResolutionBlock {
        records: vec![Record::Ipv4(Ipv4Record {
            ip_addr: Cow::Borrowed(&[10, 0, 0, 1]),
            names: vec![Cow::Borrowed("h0")],
        })],
        options: vec![NameResolutionOption::NsDnsName(Cow::Borrowed("ns"))],
    })
    .unwrap();
    for (i, f) in frames().iter().take(3).enumerate() {
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(f.ts_ns),
            original_len: f.data.len() as u32,
            data: Cow::Borrowed(&f.data),
            options: vec![
                EnhancedPacketOption::Comment(Cow::Borrowed("c")),
                EnhancedPacketOption::Flags(i as u32),
                EnhancedPacketOption::DropCount(7),
            ],
        })
        .unwrap();
    }
    w.write_pcapng_block(SimplePacketBlock {
        original_len: 61,
        data: Cow::Owned(vec![5; 61]),
    })
    .unwrap();
    w.write_pcapng_block(PacketBlock {
        interface_id: 0,
        drop_count: 0,
        timestamp: 42,
        captured_len: 62,
        original_len: 62,
        data: Cow::Owned(vec![6; 62]),
        options: vec![],
    })
    .unwrap();
    w.write_pcapng_block(InterfaceStatisticsBlock {
        interface_id: 0,
        timestamp: 43,
        options: vec![
            InterfaceStatisticsOption::Comment(Cow::Borrowed("s")),
            InterfaceStatisticsOption::IsbStartTime(1),
        ],
    })
    .unwrap();
    buf
}

fn rich_pcap() -> Vec<u8> {
    let mut buf = Vec::new();
    let header = PcapHeader {
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
        ..PcapHeader::default()
    };
    let mut w = pcap_file::pcap::PcapWriter::with_header(&mut buf, header).unwrap();
    for f in frames().iter().take(4) {
        let t = Duration::from_nanos(f.ts_ns);
        w.write_packet(&PcapPacket::new(t, f.data.len() as u32, &f.data))
            .unwrap();
    }
    buf
}

#[test]
fn every_truncation_is_refused_or_a_whole_prefix() {
    let dir = scratch("cut");
    let want = frames();
    for (name, ok_cuts) in [("c.pcap", want.len() + 1), ("c.pcapng", want.len() + 2)] {
        // (the file header alone, then each record; pcapng: its section header, its
        // interface, then each packet)
        let p = dir.path().join(name);
        write(&p, &want);
        let full = std::fs::read(&p).unwrap();
        let mut oks = 0;
        for cut in 0..=full.len() {
            match pcap::parse(&full[..cut]) {
                Ok(f) => {
                    assert_eq!(f, want[..f.len()], "{name} cut at {cut}");
                    oks += 1;
                }
                Err(Fault::Truncated { at, left, .. }) => {
                    assert_eq!(at + left, cut, "{name} cut at {cut}")
                }
                Err(Fault::Short(n)) => assert!(n == cut && cut < 4, "{name}: {n}"),
                Err(e) => panic!("{name} cut at {cut}: {e}"),
            }
        }
        assert_eq!(oks, ok_cuts, "{name}");
        // through the file: the error names it
        let cut = dir.path().join(format!("cut-{name}"));
        std::fs::write(&cut, &full[..full.len() - 3]).unwrap();
        let e = pcap::read(&cut).unwrap_err().to_string();
        assert!(
            e.contains(&format!("cut-{name}")) && e.contains("truncated"),
            "{e}"
        );
    }
    // the rich pcapng: every block kind, cut everywhere
    let rich = rich_pcapng();
    let all = pcap::parse(&rich).unwrap();
    assert_eq!(all.len(), 5);
    assert_eq!(all[0].ts_ns, want[0].ts_ns + 1_000_000_000);
    assert_eq!(all[3].data, vec![5; 61]);
    assert_eq!(all[3].ts_ns, all[2].ts_ns);
    assert_eq!((all[4].ts_ns, all[4].data.len()), (1_000_000_042, 62));
    for cut in 0..=rich.len() {
        match pcap::parse(&rich[..cut]) {
            Ok(f) => assert_eq!(f, all[..f.len()], "rich cut at {cut}"),
            Err(Fault::Truncated { .. } | Fault::Short(_)) => {}
            Err(e) => panic!("rich cut at {cut}: {e}"),
        }
    }
}

/// xorshift64*: the mutations are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One to four changes: a byte, a 32-bit field set to a boundary value, a cut, a byte
/// inserted or removed.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    const WORDS: [u32; 10] = [
        0,
        1,
        3,
        0xc,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fff0,
        0x0a0d_0d0a,
        0x0004_0000,
    ];
    let mut m = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        if m.is_empty() {
            break;
        }
        let at = rng.below(m.len());
        match rng.below(5) {
            0 => m[at] = rng.next() as u8,
            1 => {
                let w = WORDS[rng.below(WORDS.len())];
                let at = at & !3;
                let bytes = match rng.below(2) {
                    0 => w.to_le_bytes(),
                    _ => w.to_be_bytes(),
                };
                for (k, b) in bytes.into_iter().enumerate() {
                    if let Some(x) = m.get_mut(at + k) {
                        *x = b;
                    }
                }
            }
            2 => m.truncate(at),
            3 => m.insert(at, rng.next() as u8),
            _ => {
                m.remove(at);
            }
        }
    }
    m
}

#[test]
fn mutated_captures_never_panic() {
    let dir = scratch("mut");
    let ours = |name: &str| {
        let p = dir.path().join(name);
        write(&p, &frames()[..3]);
        std::fs::read(&p).unwrap()
    };
    let seeds = [
        ("pcap", ours("m.pcap")),
        ("pcapng", ours("m.pcapng")),
        ("rich pcap", rich_pcap()),
        ("rich pcapng", rich_pcapng()),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (name, seed) in &seeds {
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let m = mutate(seed, &mut rng);
            match std::panic::catch_unwind(|| pcap::parse(&m)) {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(e)) => {
                    // every refusal can be shown
                    assert!(!e.to_string().is_empty());
                    refused += 1;
                }
                Err(_) => {
                    let hex: String = m.iter().map(|b| format!("{b:02x}")).collect();
                    panic!("{name}: the parser panicked on {hex}");
                }
            }
        }
        // both outcomes occur, so the mutations reach past the magic
        assert!(
            ok > 100 && refused > 100,
            "{name}: {ok} read, {refused} refused"
        );
    }
}
