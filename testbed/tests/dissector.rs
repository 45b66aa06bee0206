//! The Wireshark dissector (`testbed/wireshark/canopy.lua`) against the Rust parsers.
//!
//! Every vector of docs/wire-format.md (`wire::doc_vectors`) is wrapped in an Ethernet frame
//! (some also behind one or two VLAN tags), a few malformed frames are added, all are written to a
//! classic pcap file (by `canopy_testbed::traffic::pcap`) and decoded by
//! `tshark -X lua_script:...`. For each frame the decoded `canopy.*` field values must equal what
//! `canopy_dataplane::wire` reads from the same bytes, field by field, and the dissector's expert
//! info must name the same drop reason and field as the Rust parser's error (none for a valid
//! frame). Skips when tshark is not installed.
//! See docs/wireshark.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_dataplane::wire::{
    self, pathid::PathIdBody, sliced::SlicedBody, transit::TransitBody, Header, Kind, WireError,
};
use canopy_testbed::traffic::pcap::PcapWriter;

/// Fields asked from tshark, in column order.
const FIELDS: &[&str] = &[
    "canopy.version",
    "canopy.kind",
    "canopy.flags",
    "canopy.flags.meas",
    "canopy.flags.hops",
    "canopy.hop_limit",
    "canopy.hdr_len",
    "canopy.payload_len",
    "canopy.inner_type",
    "canopy.meas.seq",
    "canopy.meas.timestamp",
    "canopy.hops.slots",
    "canopy.hops.count",
    "canopy.hops.overflow",
    "canopy.hop.switch",
    "canopy.hop.ingress",
    "canopy.hop.egress",
    "canopy.hop.queue",
    "canopy.hop.clock",
    "canopy.hop.kernel_rx",
    "canopy.hop.poll",
    "canopy.hop.tx",
    "canopy.hop.queue_delay",
    "canopy.sliced.mode",
    "canopy.sliced.flags",
    "canopy.sliced.phase_down",
    "canopy.sliced.side_taken",
    "canopy.sliced.has_src",
    "canopy.sliced.slice_len",
    "canopy.sliced.cursor",
    "canopy.sliced.slice",
    "canopy.sliced.dst",
    "canopy.sliced.src",
    "canopy.transit.msg",
    "canopy.transit.flags",
    "canopy.transit.strip_last",
    "canopy.transit.route_len",
    "canopy.transit.head",
    "canopy.transit.rot",
    "canopy.transit.hops",
    "canopy.transit.rec_slots",
    "canopy.transit.cycles",
    "canopy.transit.route",
    "canopy.transit.rec_count",
    "canopy.transit.circuit_id",
    "canopy.transit.record.stage",
    "canopy.transit.record.status",
    "canopy.transit.record.check",
    "canopy.pathid.flags",
    "canopy.pathid.phase_down",
    "canopy.pathid.local",
    "canopy.pathid.id_len",
    "canopy.pathid.host_label",
    "canopy.pathid.id",
];

/// The column holding every expert-info message of the frame.
const EXPERT: &str = "_ws.expert.message";
/// Separates the occurrences of one field (records, expert messages).
const AGGREGATOR: char = '~';

/// One frame of the capture and what the Rust parsers say about it.
struct Case {
    name: String,
    frame: Vec<u8>,
}

/// What the Rust code reads: field values (decimal, or lowercase hex for byte strings) and the
/// parser's error as `reason: field` (or just `reason` when the error names no field).
struct Expected {
    fields: BTreeMap<&'static str, String>,
    error: Option<String>,
}

fn b(v: bool) -> String {
    u8::from(v).to_string()
}

fn error_tag(e: &WireError) -> String {
    match e {
        WireError::Truncated { field, .. }
        | WireError::Reserved { field, .. }
        | WireError::BadValue { field, .. } => format!("{}: {}", e.reason(), field),
        other => other.reason().to_string(),
    }
}

/// Decode `frame` with canopy_dataplane::wire, as a switch would.
fn rust_view(frame: &[u8]) -> Expected {
    let mut fields = BTreeMap::new();
    let off = wire::canopy_offset(frame).expect("test frames are Canopy frames");
    let canopy = &frame[off..];
    let raw = |i: usize| canopy[i];
    // The prefix bytes are shown by the dissector whatever the checks say.
    fields.insert("canopy.version", (raw(0) >> 4).to_string());
    fields.insert("canopy.kind", (raw(0) & 0x0f).to_string());
    fields.insert("canopy.flags", raw(1).to_string());
    fields.insert("canopy.flags.meas", b(raw(1) & wire::FLAG_MEAS != 0));
    fields.insert("canopy.flags.hops", b(raw(1) & wire::FLAG_HOPS != 0));
    fields.insert("canopy.hop_limit", raw(2).to_string());
    fields.insert("canopy.hdr_len", raw(3).to_string());
    fields.insert(
        "canopy.payload_len",
        u16::from_be_bytes([raw(4), raw(5)]).to_string(),
    );
    fields.insert(
        "canopy.inner_type",
        u16::from_be_bytes([raw(6), raw(7)]).to_string(),
    );
    let h = match Header::new_checked(canopy) {
        Ok(h) => h,
        Err(e) => {
            return Expected {
                fields,
                error: Some(error_tag(&e)),
            }
        }
    };
    // The checked view's accessors are the reference for everything below.
    fields.insert("canopy.flags", h.flags().to_string());
    fields.insert("canopy.hop_limit", h.hop_limit().to_string());
    fields.insert("canopy.hdr_len", (h.header_len() / 8).to_string());
    fields.insert("canopy.payload_len", h.payload_len().to_string());
    fields.insert("canopy.inner_type", h.inner_type().to_string());
    if let Some(m) = h.meas() {
        fields.insert("canopy.meas.seq", m.seq.to_string());
        fields.insert("canopy.meas.timestamp", m.timestamp_ns.to_string());
    }
    if let Some((a, recs)) = wire::hops::records(canopy) {
        fields.insert("canopy.hops.slots", a.slots.to_string());
        fields.insert("canopy.hops.count", a.count.to_string());
        fields.insert("canopy.hops.overflow", b(a.overflow));
        let recs: Vec<wire::hops::HopRecord> = recs.collect();
        let mut col = |name: &'static str, f: &dyn Fn(&wire::hops::HopRecord) -> u64| {
            if !recs.is_empty() {
                let v: Vec<String> = recs.iter().map(|r| f(r).to_string()).collect();
                fields.insert(name, v.join(&AGGREGATOR.to_string()));
            }
        };
        col("canopy.hop.switch", &|r| r.switch.into());
        col("canopy.hop.ingress", &|r| r.ingress.into());
        col("canopy.hop.egress", &|r| r.egress.into());
        col("canopy.hop.queue", &|r| r.queue.into());
        col("canopy.hop.clock", &|r| r.clock.into());
        col("canopy.hop.kernel_rx", &|r| r.kernel_rx_ns);
        col("canopy.hop.poll", &|r| r.poll_ns);
        col("canopy.hop.tx", &|r| r.tx_ns);
        col("canopy.hop.queue_delay", &|r| r.queue_delay_ns.into());
    }
    // the payload the prefix announces, after the header checks (as `decide` does)
    if let Err(e) = h.check_payload() {
        return Expected {
            fields,
            error: Some(error_tag(&e)),
        };
    }
    let body = h.body();
    let res = match h.kind() {
        Kind::Sliced => SlicedBody::new_checked(body).map(|v| {
            fields.insert("canopy.sliced.mode", (v.mode() as u8).to_string());
            fields.insert("canopy.sliced.flags", v.flags().to_string());
            fields.insert("canopy.sliced.phase_down", b(v.phase_down()));
            fields.insert("canopy.sliced.side_taken", b(v.side_taken()));
            fields.insert("canopy.sliced.has_src", b(v.has_src()));
            fields.insert("canopy.sliced.slice_len", v.slice_len().to_string());
            fields.insert("canopy.sliced.cursor", v.cursor().to_string());
            let word = if v.mode() as u8 == 0 {
                "canopy.sliced.slice"
            } else {
                "canopy.sliced.dst"
            };
            fields.insert(word, v.word().to_string());
            if let Some(src) = v.src() {
                fields.insert("canopy.sliced.src", src.to_string());
            }
        }),
        Kind::Transit => TransitBody::new_checked(body).map(|v| {
            fields.insert("canopy.transit.msg", (v.msg() as u8).to_string());
            fields.insert("canopy.transit.flags", v.flags().to_string());
            fields.insert("canopy.transit.strip_last", b(v.flags() & 1 != 0));
            fields.insert("canopy.transit.route_len", v.route_len().to_string());
            fields.insert("canopy.transit.head", v.head().to_string());
            fields.insert("canopy.transit.rot", v.rot().to_string());
            fields.insert("canopy.transit.hops", v.hops().to_string());
            fields.insert("canopy.transit.rec_slots", v.rec_slots().to_string());
            fields.insert("canopy.transit.cycles", v.cycles().to_string());
            if v.route_len() > 0 {
                let hex: String = v.route().iter().map(|x| format!("{x:02x}")).collect();
                fields.insert("canopy.transit.route", hex);
            }
            if v.rec_slots() > 0 {
                fields.insert("canopy.transit.rec_count", v.rec_count().to_string());
                fields.insert("canopy.transit.circuit_id", v.circuit_id().to_string());
                let recs: Vec<_> = (0..v.rec_count()).filter_map(|i| v.record(i)).collect();
                let join = |f: &dyn Fn(&wire::transit::Record) -> u8| {
                    recs.iter()
                        .map(|r| f(r).to_string())
                        .collect::<Vec<_>>()
                        .join(&AGGREGATOR.to_string())
                };
                if !recs.is_empty() {
                    fields.insert("canopy.transit.record.stage", join(&|r| r.stage));
                    fields.insert("canopy.transit.record.status", join(&|r| r.status));
                    fields.insert("canopy.transit.record.check", join(&|r| r.check));
                }
            }
        }),
        Kind::PathId => PathIdBody::new_checked(body).map(|v| {
            fields.insert("canopy.pathid.flags", v.flags().to_string());
            fields.insert("canopy.pathid.phase_down", b(v.phase_down()));
            fields.insert("canopy.pathid.local", b(v.local()));
            fields.insert("canopy.pathid.id_len", v.id_len().to_string());
            fields.insert("canopy.pathid.host_label", v.host_label().to_string());
            fields.insert("canopy.pathid.id", v.id().to_string());
        }),
    };
    Expected {
        fields,
        error: res.err().map(|e| error_tag(&e)),
    }
}

/// tshark prints hex-based fields as `0x..`, booleans as `1`/`0` (or `True`/`False` in newer
/// releases) and byte strings as hex, possibly with `:`; bring them to the form of `rust_view`.
fn normalize(v: &str) -> String {
    v.split(AGGREGATOR)
        .map(|x| {
            if let Some(hex) = x.strip_prefix("0x") {
                u64::from_str_radix(hex, 16)
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| x.to_string())
            } else if x == "True" {
                "1".into()
            } else if x == "False" {
                "0".into()
            } else {
                x.replace(':', "").to_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join(&AGGREGATOR.to_string())
}

/// Insert a VLAN tag (TPID, VID) after the MAC addresses.
fn tag(mut frame: Vec<u8>, tpid: u16, vid: u16) -> Vec<u8> {
    let mut t = tpid.to_be_bytes().to_vec();
    t.extend_from_slice(&vid.to_be_bytes());
    frame.splice(12..12, t);
    frame
}

fn frame_of(header: &[u8]) -> Vec<u8> {
    // The payload length the prefix declares, capped (mutants may declare 64 KiB): a frame
    // that carries less than it declares is malformed for the switch and the dissector.
    let plen = usize::from(u16::from_be_bytes([header[4], header[5]])).min(64);
    let payload: Vec<u8> = (0..plen).map(|i| [0xde, 0xad, 0xbe, 0xef][i % 4]).collect();
    wire::ethernet_frame(
        [0x02, 0x43, 0x4e, 0, 0, 26],
        [0x02, 0x43, 0x4e, 0, 0, 5],
        header,
        &payload,
    )
}

fn cases() -> Vec<Case> {
    let vectors = wire::doc_vectors().expect("docs/wire-format.md vectors");
    assert!(vectors.len() >= 20, "expected every vector of the spec");
    let mut out = Vec::new();
    let by_id = |id: &str| {
        vectors
            .iter()
            .find(|v| v.id == id)
            .unwrap_or_else(|| panic!("vector {id}"))
            .bytes
            .clone()
    };
    for v in &vectors {
        out.push(Case {
            name: v.id.clone(),
            frame: frame_of(&v.bytes),
        });
    }
    // Behind VLAN tags (802.1Q, and 802.1ad + 802.1Q), which Wireshark's VLAN dissector strips.
    out.push(Case {
        name: "S1 in 802.1Q".into(),
        frame: tag(frame_of(&by_id("S1")), 0x8100, 5),
    });
    out.push(Case {
        name: "T3 in 802.1ad+802.1Q".into(),
        frame: tag(tag(frame_of(&by_id("T3")), 0x8100, 7), 0x88a8, 100),
    });
    out.push(Case {
        name: "P2 in 802.1Q".into(),
        frame: tag(frame_of(&by_id("P2")), 0x8100, 1),
    });
    out.push(Case {
        name: "H2 in 802.1Q".into(),
        frame: tag(frame_of(&by_id("H2")), 0x8100, 3),
    });
    // Malformed: one defect each, on a copy of a spec vector.
    let mut bad = |name: &str, id: &str, edit: &dyn Fn(&mut Vec<u8>)| {
        let mut h = by_id(id);
        edit(&mut h);
        out.push(Case {
            name: format!("{name} ({id})"),
            frame: frame_of(&h),
        });
    };
    bad("bad_version", "S1", &|h| h[0] = 0x21);
    bad("unknown_kind", "S1", &|h| h[0] = 0x14);
    bad("reserved prefix.flags", "S1", &|h| h[1] = 0x01);
    bad("hdr_len too short", "S1", &|h| h[3] = 1);
    bad("hdr_len beyond frame", "S1", &|h| h[3] = 0x10);
    bad("sliced.mode 7", "S1", &|h| h[8] = 7);
    bad("sliced.cursor > SliceLen", "S1", &|h| h[11] = 10);
    bad("sliced.slice bits past SliceLen", "S1", &|h| h[17] = 0x80);
    bad("sliced.reserved", "S1", &|h| h[13] = 1);
    bad("sliced.dst bits above W", "S5", &|h| h[16] = 0x80);
    bad("SRCDST without HAS_SRC", "S6", &|h| h[9] = 0);
    bad("transit.msg 7", "T1", &|h| h[8] = 0x70);
    bad("transit.head > RouteLen", "T1", &|h| h[10] = 5);
    bad("transit.rot reserved", "T1", &|h| h[11] = 0x04);
    bad("transit.rec_count > RecSlots", "T3", &|h| h[24] = 4);
    bad("transit route truncated", "T1", &|h| h[9] = 9);
    bad("pathid.id bit past ID len", "I1", &|h| h[17] = 0x08);
    bad("pathid.id_len with LOCAL", "I3", &|h| h[9] = 1);
    bad("pathid.flags reserved", "I1", &|h| h[8] = 0x01);
    bad("pathid.body longer than 16", "I1", &|h| {
        h[3] = 4;
        h.extend_from_slice(&[0; 8]);
    });
    // the hop record area: descriptor at 8, body at 16, slots at the end
    bad("hops.flags reserved", "H2", &|h| h[10] = 0x81);
    bad("hops.reserved", "H1", &|h| h[15] = 1);
    bad("hops.count > Slots", "H2", &|h| h[9] = 3);
    bad("hops.slots beyond HdrLen", "H1", &|h| h[8] = 3);
    bad("hdr_len without the descriptor", "H1", &|h| h[3] = 2);
    bad("body of H1 malformed", "H1", &|h| h[19] = 10);
    bad("prefix.flags reserved with HOPS", "H3", &|h| h[1] = 0xe0);
    bad("H3 area cut short", "H3", &|h| h.truncate(h.len() - 8));
    bad("no slot at all", "H1", &|h| {
        h[8] = 0;
        h[3] = 4;
        h.truncate(32);
    });
    // The payload length against the frame: I1 (a 24-byte header) with a 4-byte payload is
    // padded to 60 bytes, 22 after the header. A payload length up to 22 is carried (the
    // padding counts), 23 is not.
    for plen in [22u16, 23] {
        let mut h = by_id("I1");
        h[4..6].copy_from_slice(&plen.to_be_bytes());
        let frame = wire::ethernet_frame([2; 6], [4; 6], &h, &[0xde, 0xad, 0xbe, 0xef]);
        out.push(Case {
            name: format!("payload length {plen} in a padded 60-byte frame (I1)"),
            frame,
        });
    }
    // Mutants: every vector with one or two bytes (after the version/kind byte) replaced by
    // pseudo-random values (a fixed xorshift seed, so runs are reproducible). Most are
    // malformed in some way; the comparison below holds for all of them.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..8 {
        for v in &vectors {
            let mut h = v.bytes.clone();
            for _ in 0..1 + round % 2 {
                let r = next();
                let at = 1 + (r as usize % (h.len() - 1));
                h[at] = (r >> 32) as u8;
            }
            // Keep HdrLen within the frame most of the time so the bodies get checked.
            if round < 6 {
                h[3] = v.bytes[3];
            }
            out.push(Case {
                name: format!("mutant {round} of {} ({})", v.id, hex(&h)),
                frame: frame_of(&h),
            });
        }
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A classic pcap file (the testbed's writer), one frame a second.
fn write_pcap(path: &Path, frames: &[&[u8]]) {
    let mut w = PcapWriter::create(path, frames.len() as u64).expect("create pcap");
    for (i, fr) in frames.iter().enumerate() {
        w.write(i as u64 * 1_000_000_000, fr).expect("write frame");
    }
    assert_eq!(w.finish().expect("flush pcap"), frames.len() as u64);
}

/// Removes the scratch directory even when an assertion fails.
struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn dissector_agrees_with_rust_parsers() {
    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("SKIP dissector: tshark not installed");
        return;
    }
    let dir =
        TempDir(std::env::temp_dir().join(format!("canopy-dissector-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let pcap = dir.0.join("canopy.pcap");
    let cases = cases();
    let frames: Vec<&[u8]> = cases.iter().map(|c| c.frame.as_slice()).collect();
    write_pcap(&pcap, &frames);

    let lua = concat!(env!("CARGO_MANIFEST_DIR"), "/wireshark/canopy.lua");
    let mut cmd = Command::new("tshark");
    // A private config dir: no personal plugins or preferences of the user running the test.
    cmd.env("HOME", &dir.0).env("XDG_CONFIG_HOME", &dir.0);
    cmd.arg("-n")
        .arg("-X")
        .arg(format!("lua_script:{lua}"))
        .arg("-r")
        .arg(&pcap)
        .args(["-T", "fields", "-E", "separator=|", "-E", "occurrence=a"])
        .arg("-E")
        .arg(format!("aggregator={AGGREGATOR}"));
    for f in FIELDS.iter().chain([&EXPERT]) {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        cases.len(),
        "one line per frame; stderr: {stderr}"
    );

    let mut failures = Vec::new();
    let mut rejected = 0;
    for (case, line) in cases.iter().zip(&lines) {
        let cols: Vec<&str> = line.split('|').collect();
        assert_eq!(
            cols.len(),
            FIELDS.len() + 1,
            "{}: columns of {line:?}",
            case.name
        );
        assert!(
            !cols[0].is_empty(),
            "{}: no canopy.version: the Lua dissector did not run (stderr: {stderr})",
            case.name
        );
        let want = rust_view(&case.frame);
        rejected += usize::from(want.error.is_some());
        for (i, field) in FIELDS.iter().enumerate() {
            let got = normalize(cols[i]);
            let exp = want.fields.get(field).cloned().unwrap_or_default();
            // Fields the Rust parser did not reach (after its first error) are not compared.
            if want.error.is_some() && exp.is_empty() {
                continue;
            }
            if got != exp {
                failures.push(format!(
                    "{}: {field}: dissector {got:?}, Rust {exp:?}",
                    case.name
                ));
            }
        }
        let experts: Vec<&str> = cols[FIELDS.len()]
            .split(AGGREGATOR)
            .filter(|m| !m.is_empty())
            .collect();
        // A Lua runtime error shows up as an expert message; never acceptable, even on a
        // malformed frame.
        if let Some(m) = experts.iter().find(|m| m.contains("Lua Error")) {
            failures.push(format!("{}: {m}", case.name));
        }
        match &want.error {
            None if !experts.is_empty() => failures.push(format!(
                "{}: valid for Rust, but the dissector says {experts:?}",
                case.name
            )),
            Some(tag) if !experts.iter().any(|m| m.starts_with(tag.as_str())) => {
                failures.push(format!(
                    "{}: Rust says `{tag}`, the dissector says {experts:?}",
                    case.name
                ))
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "dissector: {} frames ({rejected} malformed for the Rust parsers) decoded by tshark agree with canopy_dataplane::wire",
        cases.len()
    );
}
