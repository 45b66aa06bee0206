//! The invariants the fuzz targets check (`fuzz/`, `docs/fuzzing.md`), here so the
//! targets and the regression tests that replay their crash files
//! (`tests/fuzz_dataplane.rs`) run exactly the same code.
//!
//! Each function takes arbitrary bytes and panics (with a message naming the broken
//! invariant) only when the code under test misbehaves: a parser or a decision that
//! panics, a parse → emit → parse round trip that changes the value, a verdict with a
//! port or group out of range, a drop whose reason has no counter label. These are test
//! helpers: they allocate and are never on the forwarding path.

use crate::decide::{decide, decide_general, DropReason, Verdict, DROP_REASON_NAMES};
use crate::table::{PortDir, SwitchTables};
use crate::wire::pathid::{PathIdBody, PathIdRepr};
use crate::wire::sliced::{SlicedBody, SlicedRepr};
use crate::wire::transit::{TransitBody, TransitRepr};
use crate::wire::{canopy_offset, EthernetFrame, Header, PrefixRepr, PREFIX_LEN};

/// Every wire parser on `data`: the Ethernet/VLAN view and [`canopy_offset`] on the
/// whole input as a frame; the prefix view and [`PrefixRepr`] on the bytes after the
/// offset (or, failing that, on the whole input as a Canopy header); and each kind's
/// body view and `Repr` on the header's body and on the whole input. Whatever parses
/// must emit and parse back to the same value.
pub fn wire(data: &[u8]) {
    let mut headers = vec![data];
    if let Ok(f) = EthernetFrame::new_checked(data) {
        let off = f.payload_offset();
        assert!(
            off <= data.len(),
            "Ethernet payload offset {off} past the frame"
        );
        assert!(f.vlan_tags() <= crate::wire::MAX_VLAN_TAGS);
        if let Ok(o) = canopy_offset(data) {
            assert_eq!(o, off, "canopy_offset disagrees with the Ethernet view");
            headers.push(&data[o..]);
        }
    }
    let mut bodies = vec![data];
    for h in headers {
        if let Ok(hdr) = Header::new_checked(h) {
            let hl = hdr.header_len();
            assert!(hl <= h.len(), "header length {hl} past the buffer");
            let payload = hl + usize::from(hdr.payload_len());
            assert_eq!(
                hdr.check_payload().is_ok(),
                payload <= h.len(),
                "the payload check disagrees with the lengths"
            );
            let p = PrefixRepr::parse(&hdr);
            let at = hdr.body_offset();
            assert!(at >= PREFIX_LEN);
            let body = &h[at..at + hdr.body_len()];
            assert_eq!(body, hdr.body());
            bodies.push(body);
            if let Ok(v) = p.to_vec(body) {
                let back = Header::new_checked(&v[..])
                    .unwrap_or_else(|e| panic!("emitted prefix does not parse: {e}"));
                assert_eq!(PrefixRepr::parse(&back), p, "prefix round trip");
                assert_eq!(back.body(), body, "body round trip through the prefix");
            }
        }
    }
    for b in bodies {
        sliced(b);
        transit(b);
        pathid(b);
    }
}

fn sliced(b: &[u8]) {
    let Ok(v) = SlicedBody::new_checked(b) else {
        return;
    };
    let Ok(r) = SlicedRepr::parse(&v) else {
        return;
    };
    let out = r.to_vec();
    let back = SlicedBody::new_checked(&out[..])
        .and_then(|v| SlicedRepr::parse(&v))
        .unwrap_or_else(|e| panic!("emitted sliced body {r:?} does not parse: {e}"));
    assert_eq!(back, r, "sliced round trip");
}

fn transit(b: &[u8]) {
    let Ok(v) = TransitBody::new_checked(b) else {
        return;
    };
    let Ok(r) = TransitRepr::parse(&v) else {
        return;
    };
    let out = r
        .to_vec()
        .unwrap_or_else(|e| panic!("parsed transit body {r:?} does not emit: {e}"));
    let back = TransitBody::new_checked(&out[..])
        .and_then(|v| TransitRepr::parse(&v))
        .unwrap_or_else(|e| panic!("emitted transit body {r:?} does not parse: {e}"));
    assert_eq!(back, r, "transit round trip");
}

fn pathid(b: &[u8]) {
    let Ok(v) = PathIdBody::new_checked(b) else {
        return;
    };
    let Ok(r) = PathIdRepr::parse(&v) else {
        return;
    };
    let out = r.to_vec();
    let back = PathIdBody::new_checked(&out[..])
        .and_then(|v| PathIdRepr::parse(&v))
        .unwrap_or_else(|e| panic!("emitted path-ID body {r:?} does not parse: {e}"));
    assert_eq!(back, r, "path-ID round trip");
}

/// Check one verdict of `t` against the tables: a port or group in range, a port that
/// can transmit, a drop with a listed counter label.
pub fn check_verdict(t: &SwitchTables, v: Verdict) {
    match v {
        Verdict::Port(p) => {
            let port = t
                .ports
                .get(usize::from(p))
                .unwrap_or_else(|| panic!("{}: port {p} out of range", t.name));
            assert!(
                port.dir != PortDir::In,
                "{}: verdict port {p} is receive-only",
                t.name
            );
        }
        Verdict::Group(g) => {
            let ports = t
                .groups
                .get(usize::from(g))
                .unwrap_or_else(|| panic!("{}: group {g} out of range", t.name));
            for &p in ports {
                assert!(
                    usize::from(p) < t.ports.len(),
                    "{}: group {g} holds port {p}, out of range",
                    t.name
                );
            }
        }
        Verdict::Drop(r) => {
            assert!(
                DROP_REASON_NAMES.contains(&r.name()),
                "drop reason {r:?} has no counter label"
            );
            if let DropReason::Malformed(e) = r {
                assert!(!e.to_string().is_empty(), "{r:?}: an empty error message");
            }
        }
    }
}

/// One decision on arbitrary input: `data[0]` picks the switch of `tables`, `data[1]`
/// the ingress port (one past the last is allowed: it must be refused), the rest is the
/// frame. [`decide`] and [`decide_general`] must agree on the verdict and on every byte
/// written, the frame keeps its length, and the verdict passes [`check_verdict`].
pub fn decide_frame(tables: &[SwitchTables], data: &[u8]) {
    let [s, i, frame @ ..] = data else {
        return;
    };
    if tables.is_empty() {
        return;
    }
    let t = &tables[usize::from(*s) % tables.len()];
    let ingress = u16::from(*i) % (t.ports.len() as u16 + 2);
    decide_on(t, ingress, frame);
}

/// [`decide_frame`]'s checks for one switch, ingress and frame.
pub fn decide_on(t: &SwitchTables, ingress: u16, frame: &[u8]) {
    let (mut a, mut b) = (frame.to_vec(), frame.to_vec());
    let va = decide(t, ingress, &mut a);
    let vb = decide_general(t, ingress, &mut b);
    assert_eq!(va, vb, "{}: fast and general decisions differ", t.name);
    assert_eq!(
        a, b,
        "{}: fast and general decisions wrote differently",
        t.name
    );
    assert_eq!(a.len(), frame.len());
    check_verdict(t, va);
}

/// The fuzzers' memory limit (`fuzz/run` passes `-rss_limit_mb=2048`): an input that
/// takes the process past it is an `oom-` crash, and its replay fails the same way.
pub const RSS_LIMIT_MB: u64 = 2048;
/// The fuzzers' time limit per input (`fuzz/run` passes `-timeout=10`).
pub const TIMEOUT_S: u64 = 10;

/// The process's peak resident set so far (`VmHWM`), in MB; `None` off Linux.
fn peak_rss_mb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = s
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024)
}

/// Run `check` on every file of `dir` (the crash files of one fuzz target, kept in the
/// crate that owns the code: `<crate>/tests/fuzz-crashes/<target>/`), each under
/// `catch_unwind`, and return how many were replayed. Panics after the last one,
/// naming every file whose check failed, took longer than [`TIMEOUT_S`] or left the
/// process's peak memory above [`RSS_LIMIT_MB`] (as libFuzzer would have reported it). The directory must exist: a test replaying
/// a misspelled path would pass on nothing. Files whose name starts with `.` or ends
/// in `.md` are skipped (notes).
pub fn replay_dir(dir: &std::path::Path, check: impl Fn(&[u8])) -> usize {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            p.is_file() && !n.starts_with('.') && !n.ends_with(".md")
        })
        .collect();
    files.sort();
    let mut failed = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let start = std::time::Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes)));
        let secs = start.elapsed().as_secs_f64();
        let peak = peak_rss_mb();
        if r.is_err() {
            failed.push(f.display().to_string());
        } else if secs > TIMEOUT_S as f64 {
            failed.push(format!(
                "{} (took {secs:.1} s, limit {TIMEOUT_S} s)",
                f.display()
            ));
        } else if peak.is_some_and(|p| p > RSS_LIMIT_MB) {
            failed.push(format!(
                "{} (peak RSS {} MB, limit {RSS_LIMIT_MB} MB)",
                f.display(),
                peak.unwrap_or(0)
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} crash files fail again: {}",
        failed.len(),
        files.len(),
        failed.join(", ")
    );
    files.len()
}
