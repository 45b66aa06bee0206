//! The engine with `AfPacketPort`s on veths (root only; skipped with a message
//! otherwise): one fat-tree k=4 edge switch (sliced tables from `kinds::tables`) runs in
//! namespace `sw` with its four ports on veths `s0..s3`, whose peers `p0..p3` are in
//! namespace `nb`, where plain `AF_PACKET` sockets send and receive. Namespaces are
//! `canopy-afport-<pid>-<test>-<x>`, deleted by a guard (`tests/common/netns.rs`).
//!
//! The engine is spawned from a thread inside `sw`, so its worker inherits that
//! namespace: link upkeep (`poll_link`, reopening a re-created interface) runs there.
#![cfg(target_os = "linux")]

mod common;

use canopy_control::kinds;
use canopy_dataplane::engine::{Port, Running};
use canopy_dataplane::port::afpacket::{AfPacketConfig, AfPacketPort, TpacketVersion};
use canopy_dataplane::wire::Kind;
use common::edge::{edge, Edge};
use common::engine::{delete_under_traffic, forward_low_rate, spawn_engine, Traffic, Wiring};
use common::frames::{magic_at, seq_in, MAGIC};
use common::netns::{in_ns, Netns};
use std::time::Duration;

/// Payload length: magic, sequence number, CLOCK_REALTIME send time (ns).
const PAYLOAD: usize = 16;

/// Payload: magic, sequence number, CLOCK_REALTIME send time (ns).
fn payload(seq: u32) -> [u8; PAYLOAD] {
    let mut p = [0u8; PAYLOAD];
    p[..4].copy_from_slice(MAGIC);
    p[4..8].copy_from_slice(&seq.to_be_bytes());
    p[8..].copy_from_slice(&realtime_ns().to_be_bytes());
    p
}

/// A frame of the edge switch from `src` to `dst` carrying the stamped [`payload`].
fn stamped(e: &Edge, src: u32, dst: u32, seq: u32) -> Vec<u8> {
    e.frame_with(src, dst, &payload(seq))
}

/// Where our payload starts (frames shorter than 60 bytes are padded after it).
fn at(f: &[u8]) -> Option<usize> {
    magic_at(f, PAYLOAD)
}

fn ours(f: &[u8]) -> bool {
    at(f).is_some()
}

fn seq_of(f: &[u8]) -> u32 {
    seq_in(f, PAYLOAD)
}

fn sent_at(f: &[u8]) -> u64 {
    let i = at(f).expect("our frame") + 8;
    let mut b = [0u8; 8];
    b.copy_from_slice(&f[i..i + 8]);
    u64::from_be_bytes(b)
}

fn realtime_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Namespaces `sw` (switch) and `nb` (neighbours), veth `s<i>` ↔ `p<i>` per port.
fn wire_up(test: &str, ports: usize) -> Wiring {
    let prefix = format!("canopy-afport-{}-{test}", std::process::id());
    Wiring::new(Netns::with_prefix(&prefix, &["sw", "nb"]), "s", "p", ports)
}

/// Open the ports and spawn the engine from a thread inside namespace `sw`.
fn start(w: &Wiring, e: &Edge, version: TpacketVersion, max_sleep: Duration) -> Running {
    let tables = kinds::tables(&e.topo, Kind::Sliced).unwrap()[e.sw].clone();
    let names: Vec<String> = (0..tables.ports.len()).map(|i| w.sw(i)).collect();
    in_ns(w.ns.name(0), move || {
        let cfg = AfPacketConfig {
            version,
            ..AfPacketConfig::default()
        };
        let ports: Vec<Box<dyn Port>> = names
            .iter()
            .map(|n| {
                Box::new(AfPacketPort::open(n, cfg.clone()).expect("open port")) as Box<dyn Port>
            })
            .collect();
        spawn_engine(tables, ports, max_sleep)
    })
}

fn versions() -> [(TpacketVersion, &'static str); 2] {
    [(TpacketVersion::V2, "v2"), (TpacketVersion::V3, "v3")]
}

/// Frames from a host port reach the other host's port and (adaptively) an uplink;
/// at a low rate the worker sleeps in epoll between frames (max_sleep far above the
/// latency asserted), and each frame is forwarded within a fraction of max_sleep.
#[test]
fn frames_reach_the_right_port_and_a_sleeping_worker_wakes_per_frame() {
    canopy_test_utils::netns_or_return!();
    for (v, tag) in versions() {
        forward_and_latency(v, tag);
    }
}

fn forward_and_latency(version: TpacketVersion, tag: &str) {
    let e = edge();
    let w = wire_up(&format!("fwd{tag}"), 4);
    // V3 hands a block over when its retire timer (>= 1 jiffy, 4 ms at HZ=250) fires,
    // so its frames wait milliseconds: give it a much longer max_sleep to tell an
    // epoll wake-up from a timeout
    let max_sleep = match version {
        TpacketVersion::V2 => Duration::from_millis(20),
        TpacketVersion::V3 => Duration::from_millis(200),
    };
    let run = start(&w, &e, version, max_sleep);
    let (h0, h1) = (e.hosts[0].1, e.hosts[1].1);
    let traffic = Traffic {
        local: (0..100).map(|i| stamped(&e, h0, h1, i)).collect(),
        far: (0..40).map(|i| stamped(&e, h0, e.far, 1000 + i)).collect(),
        prepare: payload_restamped,
        ours,
        seq_of,
    };
    let (arrivals, s) = forward_low_rate(tag, &e, &w, run, traffic, true);
    // one-way: the kernel's receive time less the send time in the payload
    let lat: Vec<u64> = arrivals
        .iter()
        .map(|a| {
            a.stamp
                .unwrap_or_else(realtime_ns)
                .saturating_sub(sent_at(&a.frame))
        })
        .collect();
    // every backend counter was copied at stop: nothing dropped in the kernel
    for p in &s {
        assert_eq!(p.backend.drops.len(), 8);
        assert_eq!(p.backend.kernel_drops, 0, "{tag}: {p:?}");
    }
    let mut sorted = lat.clone();
    sorted.sort_unstable();
    let p50 = sorted[sorted.len() / 2];
    let p90 = sorted[sorted.len() * 9 / 10];
    eprintln!(
        "netns_engine {tag}: one-way latency through the sleeping engine at ~300 pps: \
         p50 {} µs, p90 {} µs, max {} µs (max_sleep {max_sleep:?})",
        p50 / 1000,
        p90 / 1000,
        sorted[sorted.len() - 1] / 1000
    );
    let bound = match version {
        TpacketVersion::V2 => Duration::from_micros(200),
        TpacketVersion::V3 => Duration::from_millis(40),
    };
    assert!(
        p50 < bound.as_nanos() as u64,
        "{tag}: p50 {p50} ns: the worker was not woken by epoll (max_sleep {max_sleep:?})"
    );
}

/// Re-stamp a prepared frame's send time right before sending it.
fn payload_restamped(f: &[u8]) -> Vec<u8> {
    let mut f = f.to_vec();
    let i = at(&f).expect("our frame") + 8;
    f[i..i + 8].copy_from_slice(&realtime_ns().to_be_bytes());
    f
}

/// A host port's veth is deleted while frames flow to it: the port goes down (counted
/// by the engine and the backend), the frames towards it are dropped as `port_down`,
/// nothing crashes; re-created with the same name, the port reopens and forwarding
/// resumes. Counters conserve throughout.
#[test]
fn deleted_interface_goes_down_under_traffic_and_forwarding_resumes() {
    canopy_test_utils::netns_or_return!();
    for (v, tag) in versions() {
        let e = edge();
        let w = wire_up(&format!("del{tag}"), 4);
        let run = start(&w, &e, v, Duration::from_millis(1));
        let (h0, h1) = (e.hosts[0].1, e.hosts[1].1);
        let frames = (0..20_000).map(|i| stamped(&e, h0, h1, i)).collect();
        delete_under_traffic(&format!("netns_engine {tag}"), &e, &w, run, frames, ours);
    }
}
