//! The testbed's own traffic generator on [`AfPacketPort`]s: a paced (or full-speed)
//! sender and a one-way latency probe.
//!
//! Ports are opened inside a namespace ([`open_port`]) and then driven from the calling
//! thread: a socket stays in the namespace it was created in.

use crate::error::{Result, TestbedError};
use crate::os::netns::in_ns;
use crate::os::sys;
use crate::traffic::frame::BenchFrame;
use canopy_dataplane::port::afpacket::{AfPacketConfig, AfPacketPort, TpacketVersion};
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Open an AF_PACKET port (TPACKET_V2: every frame visible at once) on `ifname` inside
/// namespace `ns`.
pub fn open_port(ns: &str, ifname: &str) -> Result<AfPacketPort> {
    open_port_with(
        ns,
        ifname,
        AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        },
    )
}

/// Open an AF_PACKET port with configuration `cfg` on `ifname` inside namespace `ns`
/// (the socket is created on a helper thread that entered the namespace; it stays in
/// that namespace and is used from the caller's threads).
pub fn open_port_with(ns: &str, ifname: &str, cfg: AfPacketConfig) -> Result<AfPacketPort> {
    let name = ifname.to_string();
    in_ns(ns, move || AfPacketPort::open(&name, cfg))?.map_err(TestbedError::from)
}

/// Pin the calling thread to `core` (ignored when the core does not exist).
pub fn pin(core: usize) -> bool {
    core_affinity::set_for_current(core_affinity::CoreId { id: core })
}

/// How the sender paces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// As fast as the TX ring drains (bursts of 32, one `send` per burst).
    Max,
    /// `pps` frames per second, in bursts of `burst` frames sent back to back.
    Rate {
        /// Frames per second.
        pps: f64,
        /// Frames per burst (1 = evenly spaced).
        burst: usize,
    },
}

/// What a sender run did.
#[derive(Debug, Clone, Copy, Default)]
pub struct SendStats {
    /// Frames handed to the kernel.
    pub sent: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Frames the port refused (ring full is retried and not counted here).
    pub refused: u64,
    /// CPU time of the sending thread (its syscalls and the kernel work they do in its
    /// context included).
    pub cpu_ns: u64,
}

/// Send `frame` on `port` for `duration` (or until `stop`), paced by `pace`.
pub fn send(
    port: &mut AfPacketPort,
    frame: &[u8],
    pace: Pace,
    duration: Duration,
    stop: &AtomicBool,
) -> SendStats {
    let t0 = Instant::now();
    let c0 = sys::thread_cpu_ns();
    let mut st = SendStats::default();
    match pace {
        Pace::Max => {
            while t0.elapsed() < duration && !stop.load(Ordering::Relaxed) {
                let mut n = 0;
                while n < 32 {
                    match port.tx_frame(frame) {
                        Ok(true) => n += 1,
                        Ok(false) => break,
                        Err(_) => {
                            st.refused += 1;
                            break;
                        }
                    }
                }
                let _ = port.tx_flush();
                st.sent += n;
                if n == 0 {
                    std::hint::spin_loop();
                }
            }
        }
        Pace::Rate { pps, burst } => {
            let burst = burst.max(1);
            let period = Duration::from_secs_f64(burst as f64 / pps.max(1.0));
            let mut next = t0;
            while t0.elapsed() < duration && !stop.load(Ordering::Relaxed) {
                wait_until(next, burst == 1);
                let mut n = 0;
                while n < burst as u64 {
                    match port.tx_frame(frame) {
                        Ok(true) => n += 1,
                        Ok(false) => {
                            let _ = port.tx_flush();
                            std::hint::spin_loop();
                        }
                        Err(_) => {
                            st.refused += 1;
                            break;
                        }
                    }
                }
                let _ = port.tx_flush();
                st.sent += n;
                next += period;
                // fell far behind (descheduled): do not try to catch up with a burst
                let now = Instant::now();
                if now > next + period * 64 {
                    next = now;
                }
            }
        }
    }
    st.elapsed = t0.elapsed();
    st.cpu_ns = sys::thread_cpu_ns().saturating_sub(c0);
    st
}

/// Wait for `t`. With `spin` (evenly spaced single frames, periods of microseconds):
/// sleep most of the way, then spin, accurate to about a microsecond. Without (bursts):
/// only sleep, so the sender's CPU time stays its real work; the schedule is absolute,
/// so the average rate is exact even though single bursts may start late by the timer
/// slack (about 50 µs).
fn wait_until(t: Instant, spin: bool) {
    loop {
        let now = Instant::now();
        if now >= t {
            return;
        }
        let left = t - now;
        if !spin {
            std::thread::sleep(left);
        } else if left > Duration::from_micros(300) {
            std::thread::sleep(left - Duration::from_micros(200));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// One-way latency results, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct LatencyStats {
    /// Stamped frames sent (after the warm-up).
    pub sent: u64,
    /// Stamped frames received back (after the warm-up).
    pub received: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Largest.
    pub max_ns: u64,
    /// Smallest.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
}

/// Send `count` stamped frames at `pps` on `tx` and receive them on `rx`, on this one
/// thread (pinned by the caller), busy-polling `rx` between sends; the first `warmup`
/// frames are sent but not recorded. Each frame carries a sequence number and the
/// CLOCK_MONOTONIC time just before its `send`; the receive time is read when the
/// frame is taken from the RX ring. Frames still missing 200 ms after the last send
/// count as lost.
pub fn latency(
    tx: &mut AfPacketPort,
    rx: &mut AfPacketPort,
    frame: &BenchFrame,
    pps: f64,
    count: u64,
    warmup: u64,
    stop: &AtomicBool,
) -> Result<LatencyStats> {
    let mut hist = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).map_err(|e| {
        TestbedError::Parse {
            what: "histogram bounds".into(),
            detail: e.to_string(),
        }
    })?;
    let mut f = frame.clone();
    let period = Duration::from_secs_f64(1.0 / pps.max(1.0));
    let total = count + warmup;
    let mut seq: u64 = 0;
    let mut next = Instant::now();
    let mut received = 0u64;
    let mut last_send = Instant::now();
    // drain anything left in the RX ring
    while rx.rx_burst(64, |_| {}) > 0 {}
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        let now = Instant::now();
        if seq < total && now >= next {
            f.stamp(seq as u32, sys::monotonic_ns());
            if tx.tx_frame(&f.bytes).unwrap_or(false) {
                let _ = tx.tx_flush();
                seq += 1;
                last_send = Instant::now();
            }
            next += period;
            if now > next + period * 16 {
                next = now + period;
            }
        }
        rx.rx_burst(32, |p| {
            let t = sys::monotonic_ns();
            if let Some((s, ts)) = f.read_stamp(p) {
                if u64::from(s) >= warmup && u64::from(s) < total && t >= ts {
                    let _ = hist.record((t - ts).max(1));
                    received += 1;
                }
            }
        });
        if seq >= total && last_send.elapsed() > Duration::from_millis(200) {
            break;
        }
    }
    let q = |x: f64| hist.value_at_quantile(x);
    Ok(LatencyStats {
        sent: count,
        received,
        p50_ns: q(0.5),
        p90_ns: q(0.9),
        p99_ns: q(0.99),
        max_ns: hist.max(),
        min_ns: if received > 0 { hist.min() } else { 0 },
        mean_ns: hist.mean(),
    })
}
