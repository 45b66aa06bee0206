//! The vethbench's own sender on one [`AfPacketPort`] (`canopy-vethbench`,
//! `docs/vethbench.md`): one fixed frame, paced or at full speed, and a one-way latency
//! probe. The fabric generator's sender is [`super::engine`]'s; both wait and queue
//! with [`super::port`].

use super::port::{self, Wait};
use super::rx::{latency_histogram, latency_summary};
use crate::error::{Result, TestbedError};
use crate::os::sys;
use crate::report::results::vethbench::LatencyStats;
use crate::traffic::frame::HostFrame;
use canopy_dataplane::port::afpacket::AfPacketPort;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
            let wait = if burst == 1 { Wait::EVEN } else { Wait::SLEEP };
            while t0.elapsed() < duration && !stop.load(Ordering::Relaxed) {
                port::wait_until(next, wait);
                let mut n = 0;
                while n < burst as u64 {
                    if !port::queue(port, frame, stop) {
                        st.refused += 1;
                        break;
                    }
                    n += 1;
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

/// Send `count` copies of `frame` at `pps` on `tx` and receive them on `rx`, on this one
/// thread (pinned by the caller), busy-polling `rx` between sends; the first `warmup`
/// frames are sent but not recorded. Each copy's measurement block carries its sequence
/// number and the CLOCK_MONOTONIC time just before its `send`; the receive time is read
/// when the frame is taken from the RX ring. Only frames of `frame`'s run id count
/// (give it one no other pass uses). Frames still missing 200 ms after the last send
/// count as lost.
pub fn latency(
    tx: &mut AfPacketPort,
    rx: &mut AfPacketPort,
    frame: &HostFrame,
    pps: f64,
    count: u64,
    warmup: u64,
    stop: &AtomicBool,
) -> Result<LatencyStats> {
    let mut hist = latency_histogram()?;
    let mut f = frame.clone();
    let period = Duration::from_secs_f64(1.0 / pps.max(1.0));
    let total = count + warmup;
    let mut seq: u64 = 0;
    let mut next = Instant::now();
    let mut received = 0u64;
    let mut last_send = Instant::now();
    // drain anything left in the RX ring
    port::drain(rx);
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        let now = Instant::now();
        if seq < total && now >= next {
            f.set_meas(seq, sys::monotonic_ns());
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
            if let Some(m) = HostFrame::parse(p).filter(|m| m.run_id == f.run_id) {
                let (s, ts) = (m.seq, m.ts_ns);
                if s >= warmup && s < total && t >= ts {
                    let _ = hist.record((t - ts).max(1));
                    received += 1;
                }
            }
        });
        if seq >= total && last_send.elapsed() > Duration::from_millis(200) {
            break;
        }
    }
    let l = latency_summary(&hist);
    Ok(LatencyStats {
        sent: count,
        received,
        p50_ns: l.p50_ns,
        p90_ns: l.p90_ns,
        p99_ns: l.p99_ns,
        max_ns: l.max_ns,
        min_ns: l.min_ns,
        mean_ns: l.mean_ns,
    })
}
