//! Memory a management request may take: at most 4× its size at the peak, given back
//! afterwards, for a hostile request (a 32 MiB line of nested junk in an unknown field)
//! and for a legitimate large one (a table push), on the real binary with mem ports.

mod common;

use canopy_proto::mgmt::Request;
use common::*;
use serde_json::json;
use std::time::Duration;

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: u32, field: &str) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = s
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Reset the peak (VmHWM) to the current RSS (`clear_refs` 5).
fn reset_peak(pid: u32) {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
}

const MIB: u64 = 1024;
const LINE: usize = 32 << 20;

/// Send `line` on a fresh connection and read the answer; returns (peak growth, RSS
/// growth after) in KiB against the RSS before.
fn cost(sw: &Switch, line: &[u8]) -> (u64, u64, serde_json::Value) {
    let pid = sw.pid();
    std::thread::sleep(Duration::from_millis(200));
    reset_peak(pid);
    let before = status_kib(pid, "VmRSS");
    let mut c = Conn::open(&sw.socket);
    c.send_raw(line);
    c.send_raw(b"\n");
    let a = c.read().expect("an answer");
    drop(c);
    std::thread::sleep(Duration::from_millis(300));
    let peak = status_kib(pid, "VmHWM").saturating_sub(before);
    let after = status_kib(pid, "VmRSS").saturating_sub(before);
    (peak, after, a)
}

/// Grow `line` with `unit` up to [`LINE`] bytes, then end it with `end`.
fn fill(line: &mut Vec<u8>, unit: &[u8], end: &[u8]) {
    while line.len() + unit.len() + end.len() <= LINE {
        line.extend_from_slice(unit);
    }
    line.extend_from_slice(end);
}

/// `line` (32 MiB), sent twice, is refused with `want` each time, peaks under 4× its
/// size and leaves under 8 MiB behind.
fn refused_within_4x(sw: &Switch, what: &str, line: &[u8], want: &str) {
    for round in 0..2 {
        let (peak, after, a) = cost(sw, line);
        println!(
            "{what} round {round}: peak +{} MiB, after +{} MiB",
            peak / MIB,
            after / MIB
        );
        assert!(a["error"].as_str().unwrap().contains(want), "{what}: {a}");
        assert!(
            peak <= 4 * 32 * MIB,
            "{what}: peak +{peak} KiB for a 32 MiB request"
        );
        assert!(
            after <= 8 * MIB,
            "{what}: +{after} KiB kept after the request"
        );
    }
}

#[test]
fn a_request_takes_at_most_four_times_its_size_and_gives_it_back() {
    let dir = Dir::new(&format!("cmm{}", std::process::id()));
    let cfg = mem_config(
        &dir,
        4,
        true,
        &format!("max_request_bytes = {}", LINE + 1024),
    );
    let sw = Switch::start(&dir, &cfg);
    assert_eq!(sw.ok(&Request::Health {})["ok"], json!(true));

    // nested junk in an unknown field: refused by name
    let mut junk = br#"{"op":"health","x":["#.to_vec();
    fill(&mut junk, br#"{"":0},"#, b"0]}");
    refused_within_4x(&sw, "junk", &junk, "unknown field `x`");

    // a table push of 32 MiB: millions of one-port groups, refused while decoding
    // once there are more than a group id addresses
    let mut push = br#"{"op":"replace_tables","tables":{"name":"x","ports":[],"groups":["#.to_vec();
    fill(&mut push, b"[0],", b"[0]]}}");
    refused_within_4x(&sw, "groups push", &push, "more than 65536 elements");

    // many frames to inject: decoded one by one into their strings (the frames it
    // injects take pool buffers, touched for the first time, so only the peak counts)
    let frame = "00".repeat(60);
    let frames = vec![frame; canopy_proto::mgmt::MAX_INJECT];
    let big = serde_json::to_vec(&Request::Inject { port: 0, frames }).unwrap();
    let (peak, _, a) = cost(&sw, &big);
    println!(
        "inject of {} MiB: peak +{} MiB: {a}",
        big.len() >> 20,
        peak / MIB
    );
    assert_eq!(a["ok"], json!(true), "{a}");
    assert!(
        peak <= 4 * (big.len() as u64 / 1024) + 16 * MIB,
        "peak +{peak} KiB"
    );
    drop(sw);
}
