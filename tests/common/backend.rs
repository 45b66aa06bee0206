//! What the port tests do the same way on every socket backend (AF_PACKET, AF_XDP): a
//! receive loop collecting test frames, and the forward-loop measurement (a sender at
//! full speed → port A → a forward loop → port B → a sink namespace), over [`RawPort`].
#![allow(dead_code)] // each test binary uses a subset

use super::frames::{frame, udp_frame};
use super::netns::{in_ns, Netns, Raw};
use super::sys::{pin_to_cpu, thread_cpu_ns};
use canopy_dataplane::port::afpacket::AfPacketPort;
use canopy_dataplane::port::afxdp::AfXdpPort;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The frame-level calls a socket backend's port has in common.
pub trait RawPort: Send + 'static {
    /// Receive up to `max` frames, handing each to `f`; how many.
    fn rx(&mut self, max: usize, f: &mut dyn FnMut(&[u8])) -> usize;
    /// Queue one frame: `true` when it was queued.
    fn tx(&mut self, frame: &[u8]) -> bool;
    /// Hand the queued frames to the kernel (errors count as nothing sent).
    fn flush(&mut self);
    /// Hand the queued frames to the kernel, or the error.
    fn try_flush(&mut self) -> anyhow::Result<()>;
    /// Frames queued and not yet handed to the kernel.
    fn pending(&self) -> usize;
    /// Wait up to `ms` for frames.
    fn wait(&self, ms: i32);
}

macro_rules! raw_port {
    ($t:ty) => {
        impl RawPort for $t {
            fn rx(&mut self, max: usize, f: &mut dyn FnMut(&[u8])) -> usize {
                self.rx_burst(max, f)
            }
            fn tx(&mut self, frame: &[u8]) -> bool {
                matches!(self.tx_frame(frame), Ok(true))
            }
            fn flush(&mut self) {
                let _ = self.tx_flush();
            }
            fn try_flush(&mut self) -> anyhow::Result<()> {
                Ok(self.tx_flush()?)
            }
            fn pending(&self) -> usize {
                self.tx_pending()
            }
            fn wait(&self, ms: i32) {
                self.wait_readable(ms);
            }
        }
    };
}
raw_port!(AfPacketPort);
raw_port!(AfXdpPort);

/// Frames `keep` accepts, received by `port` until `n` arrived or `timeout` passed;
/// records every burst size.
pub fn recv_n(
    port: &mut impl RawPort,
    n: usize,
    timeout: Duration,
    bursts: &mut Vec<usize>,
    keep: fn(&[u8]) -> bool,
) -> Vec<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let mut got = vec![];
    while got.len() < n && Instant::now() < deadline {
        let k = port.rx(32, &mut |f| {
            if keep(f) {
                got.push(f.to_vec())
            }
        });
        if k == 0 {
            port.wait(5);
        } else {
            bursts.push(k);
        }
    }
    got
}

/// CANOPY_MEASURE_SECS (default 5).
pub fn measure_secs() -> u64 {
    std::env::var("CANOPY_MEASURE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
}

/// Packets the kernel counted as received on `ifname` in namespace `ns`.
pub fn rx_packets(ns: &str, ifname: &str) -> u64 {
    let out = Command::new("ip")
        .args(["-j", "-s", "-n", ns, "link", "show", ifname])
        .output()
        .expect("ip -s");
    let js = String::from_utf8_lossy(&out.stdout);
    js.split("\"rx\":{")
        .nth(1)
        .and_then(|r| r.split("\"packets\":").nth(1))
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// What [`measure_forward`] saw; the forwarder's ports come back for their stats.
pub struct Forward<P> {
    pub secs: u64,
    /// Frames the sender queued, and refused with a full ring.
    pub sent: u64,
    pub full: u64,
    /// Frames A received, and B refused.
    pub moved: u64,
    pub refused: u64,
    pub wall: Duration,
    /// CPU time of the forward loop, ns.
    pub cpu: u64,
    /// What arrived at the sink (the kernel's counter), and its interface.
    pub delivered: u64,
    pub sink: String,
    pub pa: P,
    pub pb: P,
}

impl<P> Forward<P> {
    pub fn per_sec(&self, n: u64) -> f64 {
        n as f64 / self.wall.as_secs_f64()
    }
    pub fn forwarded(&self) -> u64 {
        self.moved - self.refused
    }
    /// Print the measurement: `MEASURE <what>: ...`, with what the backend says of port
    /// A's kernel losses (`a_lost`), port B's frames sent (`b_tx`) and anything more.
    pub fn print(&self, what: &str, a_lost: &str, b_tx: u64, more: &str) {
        println!(
            "MEASURE {what}: {} s; sender queued {} ({:.0} pps, ring-full {}); \
             A rx {} ({:.0} pps), {a_lost}; B tx {b_tx} refused {}; forwarded {:.0} pps; \
             {} received {}; forwarder CPU {:.2} s = {:.0} ns/pkt{more}",
            self.secs,
            self.sent,
            self.per_sec(self.sent),
            self.full,
            self.moved,
            self.per_sec(self.moved),
            self.refused,
            self.per_sec(self.forwarded()),
            self.sink,
            self.delivered,
            self.cpu as f64 / 1e9,
            self.cpu as f64 / self.forwarded().max(1) as f64,
        );
    }

    /// The measurement's checks: something moved, and all it forwarded arrived (the
    /// sink also gets the kernel's own frames, IPv6 ND/MLD, so at least that many).
    pub fn check(&self) {
        assert!(self.moved > 0);
        assert!(
            self.delivered >= self.forwarded(),
            "{} < {}",
            self.delivered,
            self.moved
        );
    }
}

/// Sender (full speed, CPU 1) → port A; a forward loop on CPU 0 moves A → B in bursts
/// of 32 for CANOPY_MEASURE_SECS; B's peer `sink` in namespace 2 of `ns` discards.
pub fn measure_forward<P: RawPort>(
    ns: &Netns,
    sink: &str,
    mut sender: P,
    mut pa: P,
    mut pb: P,
) -> Forward<P> {
    let secs = measure_secs();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_s = stop.clone();
    let send = std::thread::spawn(move || {
        pin_to_cpu(1);
        let frames: Vec<Vec<u8>> = (0..64).map(|i| udp_frame(i, 1000 + i as u16)).collect();
        let (mut sent, mut full) = (0u64, 0u64);
        while !stop_s.load(Ordering::Relaxed) {
            for f in frames.iter().take(32) {
                if sender.tx(f) {
                    sent += 1;
                } else {
                    full += 1;
                }
            }
            sender.flush();
        }
        (sent, full)
    });
    let fwd = std::thread::spawn(move || {
        pin_to_cpu(0);
        let start = Instant::now();
        let cpu0 = thread_cpu_ns();
        let (mut moved, mut refused) = (0u64, 0u64);
        while start.elapsed() < Duration::from_secs(secs) {
            let k = pa.rx(32, &mut |f| {
                if !pb.tx(f) {
                    refused += 1;
                }
            });
            moved += k as u64;
            if k > 0 {
                pb.flush();
            }
        }
        let wall = start.elapsed();
        let cpu = thread_cpu_ns() - cpu0;
        (moved, refused, wall, cpu, pa, pb)
    });
    let (moved, refused, wall, cpu, pa, pb) = fwd.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let (sent, full) = send.join().unwrap();
    Forward {
        secs,
        sent,
        full,
        moved,
        refused,
        wall,
        cpu,
        delivered: rx_packets(ns.name(2), sink),
        sink: sink.to_string(),
        pa,
        pb,
    }
}

/// The forward-loop measurement on veths: namespaces S, F, D of `ns`, veth `ifs[0]` (S)
/// ↔ `ifs[1]` (F, port A) and `ifs[2]` (F, port B) ↔ `ifs[3]` (D, the sink); `open`
/// opens a port on an interface inside the namespace it is in.
pub fn measure_on_veths<P: RawPort>(
    ns: &Netns,
    ifs: [&'static str; 4],
    open: fn(&str) -> P,
) -> Forward<P> {
    ns.veth(0, ifs[0], 1, ifs[1]);
    ns.veth(1, ifs[2], 2, ifs[3]);
    let sender = in_ns(ns.name(0), move || open(ifs[0]));
    let pa = in_ns(ns.name(1), move || open(ifs[1]));
    let pb = in_ns(ns.name(1), move || open(ifs[2]));
    measure_forward(ns, ifs[3], sender, pa, pb)
}

/// 200 frames of lengths 60 to 1514 bytes sent by `raw` (on the port's peer) reach
/// `port` exactly and in order, in bursts of at most 32 (some full); then nothing more.
/// `keep` picks the test frames out of what arrives.
pub fn rx_exact(tag: &str, port: &mut impl RawPort, raw: &Raw, keep: fn(&[u8]) -> bool) {
    let sent: Vec<Vec<u8>> = (0..200u32)
        .map(|i| frame(i, 60 + (i as usize * 37) % 1455))
        .collect();
    for f in &sent {
        raw.send(f);
    }
    let mut bursts = vec![];
    let got = recv_n(port, sent.len(), Duration::from_secs(5), &mut bursts, keep);
    assert_eq!(got.len(), sent.len(), "{tag}");
    assert_eq!(got, sent, "{tag}: bytes and order preserved");
    assert!(bursts.iter().all(|&b| b <= 32), "{tag}");
    assert!(bursts.contains(&32), "{tag}: bursts {bursts:?}");
    // Nothing more: the ring is empty and hands nothing back.
    let more = recv_n(port, 1, Duration::from_millis(50), &mut bursts, keep);
    assert_eq!(more.len(), 0, "{tag}");
}

/// `bursts` bursts of `per` frames of lengths 60 to 1514 bytes, each queued on `port`
/// (accepted, pending until the flush) and flushed, reach `raw` (on the port's peer)
/// exactly and in order.
pub fn tx_exact(tag: &str, port: &mut impl RawPort, raw: &Raw, bursts: u32, per: u32) {
    let mut sent = vec![];
    for burst in 0..bursts {
        for i in 0..per {
            let f = frame(burst * per + i, 60 + (i as usize * 45) % 1455);
            assert!(port.tx(&f), "{tag}: frame {i} of burst {burst} refused");
            sent.push(f);
        }
        assert_eq!(port.pending(), per as usize, "{tag}");
        port.try_flush()
            .unwrap_or_else(|e| panic!("{tag}: flush: {e}"));
        assert_eq!(port.pending(), 0, "{tag}");
    }
    let got = raw.recv_n(sent.len(), Duration::from_secs(5));
    assert_eq!(got.len(), sent.len(), "{tag}");
    assert_eq!(got, sent, "{tag}: bytes and order preserved");
}
