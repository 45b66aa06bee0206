//! The generator's sender: the sending hosts of a trial split into lanes, one thread
//! each ([`TrafficSpec::tx_threads`](super::TrafficSpec::tx_threads)). A lane sends for
//! its hosts in bursts on its own absolute schedule, round-robin over them: per burst
//! one clock read (the schedule check and every frame's transmit stamp), `burst` frames
//! copied into the host's TX ring, one `send()`; nothing is allocated and no lock is
//! taken while sending.
//!
//! **The transmit stamp.** Every frame of a burst carries the same stamp: the
//! `CLOCK_MONOTONIC` time read just before the burst is queued. A frame is handed to
//! the kernel after that, at the latest when the burst's `send()` returns (with the
//! qdisc bypassed the kernel transmits the burst inside that call), so each stamp is
//! early by at least 0 and at most the burst's span: stamp to the return of its
//! `send()`. The sender reads the clock a second time after `send()` to measure that
//! span, and reports its mean and maximum ([`SendReport::span_max_ns`]): the bound on
//! how much a one-way latency can be overstated by the stamp.

use super::frame::HostFrame;
use super::pattern::Dests;
use super::pcap::PcapWriter;
use super::port::{self, Wait};
use crate::os::sys;
use crate::report::results::Timeline;
use canopy_dataplane::port::afpacket::AfPacketPort;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One sending host of a lane: its TX port, its destinations, the frame of each of its
/// flows (by destination position) and each flow's next sequence number.
pub(crate) struct Source<'a> {
    pub port: &'a mut AfPacketPort,
    pub dests: &'a mut Dests,
    pub frames: &'a mut [Option<HostFrame>],
    pub seq: &'a mut [u64],
}

/// What a lane (or, merged, all lanes) did in one phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SendReport {
    /// Frames handed to the kernel.
    pub sent: u64,
    /// Real send time (the longest lane's, when merged).
    pub elapsed: Duration,
    /// Frames a port refused (not a full ring, which is waited out).
    pub refused: u64,
    /// Bursts sent.
    pub bursts: u64,
    /// Sum of the bursts' spans (stamp to the return of their `send()`), ns.
    pub span_sum_ns: u64,
    /// Longest burst span, ns: no transmit stamp is earlier than its frame's hand-over
    /// to the kernel by more than this.
    pub span_max_ns: u64,
}

impl SendReport {
    /// Add another lane's report (run at the same time).
    pub fn merge(&mut self, o: &SendReport) {
        self.sent += o.sent;
        self.elapsed = self.elapsed.max(o.elapsed);
        self.refused += o.refused;
        self.bursts += o.bursts;
        self.span_sum_ns += o.span_sum_ns;
        self.span_max_ns = self.span_max_ns.max(o.span_max_ns);
    }

    /// Mean burst span, ns (0 without bursts).
    pub fn span_mean_ns(&self) -> f64 {
        if self.bursts == 0 {
            0.0
        } else {
            self.span_sum_ns as f64 / self.bursts as f64
        }
    }
}

/// A lane's schedule for one phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Plan {
    /// This lane's rate, frames per second (infinite: as fast as it can, until the
    /// deadline).
    pub pps: f64,
    /// Frames per host per slot.
    pub burst: usize,
    /// This lane's frames.
    pub total: u64,
    /// Duration mode: the schedule ends here (count mode: `None`).
    pub deadline: Option<Duration>,
}

/// A lane: the hosts one sender thread sends for.
pub(crate) struct Lane<'a> {
    pub sources: Vec<Source<'a>>,
}

impl Lane<'_> {
    /// Send `plan.total` frames (or until the deadline) at `plan.pps` in slots of
    /// `plan.burst` frames per host, round-robin over the lane's hosts, stamping each
    /// frame with its flow's next sequence number and its burst's time (module docs).
    /// `progress` is advanced by the frames of every burst; `timeline` counts them in
    /// the bin of their stamp; `pcap` gets every frame it still wants.
    pub fn run(
        &mut self,
        plan: &Plan,
        stop: &AtomicBool,
        progress: &AtomicU64,
        mut pcap: Option<&mut PcapWriter>,
        mut timeline: Option<&mut Timeline>,
    ) -> SendReport {
        let mut rep = SendReport::default();
        if self.sources.is_empty() || plan.total == 0 {
            return rep;
        }
        let period_ns = plan.burst as f64 * 1e9 / plan.pps;
        let (t0, t0_ns) = (Instant::now(), sys::monotonic_ns());
        // the schedule ends at the duration; a sender that fell behind may catch up for
        // 10 % longer in real time, then stops short, and the trial shows it
        // (sent_pps = sent / real send time < offered_pps); a full-speed plan (infinite
        // rate) ends at the duration itself
        let end_ns = plan.deadline.map(|d| d.as_nanos() as u64);
        let late = |d: Duration| match plan.pps.is_finite() {
            true => d.mul_f64(1.1),
            false => d,
        };
        let late_ns = plan.deadline.map(|d| late(d).as_nanos() as u64);
        let mut slot = 0u64;
        let mut at = 0usize;
        let nsrc = self.sources.len();
        while rep.sent < plan.total && !stop.load(Ordering::Relaxed) {
            let due = (slot as f64 * period_ns) as u64;
            if end_ns.is_some_and(|e| due >= e) {
                break;
            }
            let mut now = sys::monotonic_ns();
            if late_ns.is_some_and(|l| now - t0_ns >= l) {
                break;
            }
            if now - t0_ns < due {
                port::wait_until(t0 + Duration::from_nanos(due), Wait::GENERATOR);
                now = sys::monotonic_ns();
            }
            slot += 1;
            let s = &mut self.sources[at];
            at = (at + 1) % nsrc;
            let want = (plan.burst as u64).min(plan.total - rep.sent);
            let mut queued = 0;
            for _ in 0..want {
                // (never idle: a lane holds only sending hosts)
                let Some(dst) = s.dests.next_dst() else {
                    break;
                };
                let dst = dst as usize;
                let Some(f) = s.frames.get_mut(dst).and_then(Option::as_mut) else {
                    continue;
                };
                f.set_meas(s.seq[dst], now);
                if port::queue(s.port, &f.bytes, stop) {
                    s.seq[dst] += 1;
                    queued += 1;
                    if let Some(w) = pcap.as_deref_mut() {
                        if w.wants() {
                            let _ = w.write(now, &f.bytes);
                        }
                    }
                } else {
                    rep.refused += 1;
                }
            }
            let _ = s.port.tx_flush();
            let span = sys::monotonic_ns().saturating_sub(now);
            rep.bursts += 1;
            rep.span_sum_ns += span;
            rep.span_max_ns = rep.span_max_ns.max(span);
            rep.sent += queued;
            if let Some(tl) = timeline.as_deref_mut() {
                let b = tl.bin(now);
                tl.sent[b] += queued;
            }
            progress.fetch_add(queued, Ordering::Relaxed);
        }
        // everything queued leaves with a last flush of each port
        for s in &mut self.sources {
            let _ = s.port.tx_flush();
        }
        rep.elapsed = t0.elapsed();
        rep
    }

    /// Start a new phase: every flow's sequence back to 0, every frame of run `run_id`.
    pub fn restart(&mut self, run_id: u16) {
        for s in &mut self.sources {
            s.seq.fill(0);
            for f in s.frames.iter_mut().flatten() {
                f.run_id = run_id;
            }
        }
    }
}

/// Lanes for `threads` sender threads (at least 1, at most one per host) over the
/// sending hosts `active`: host `active[i]` goes to lane `i % lanes`. Returns the lane of
/// each position of `active`.
pub fn lane_of(active: usize, threads: usize) -> Vec<usize> {
    let lanes = threads.clamp(1, active.max(1));
    (0..active).map(|i| i % lanes).collect()
}

/// `total` frames split over parts of `weights` hosts each, in proportion and exactly
/// (the parts add up to `total`).
pub fn split(total: u64, weights: &[usize]) -> Vec<u64> {
    let sum: u64 = weights.iter().map(|&w| w as u64).sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let mut cum = 0u64;
    weights
        .iter()
        .map(|&w| {
            let lo = (total as u128 * cum as u128 / sum as u128) as u64;
            cum += w as u64;
            let hi = (total as u128 * cum as u128 / sum as u128) as u64;
            hi - lo
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_take_hosts_in_turn_and_never_outnumber_them() {
        assert_eq!(lane_of(5, 2), vec![0, 1, 0, 1, 0]);
        assert_eq!(lane_of(3, 8), vec![0, 1, 2]);
        assert_eq!(lane_of(4, 0), vec![0, 0, 0, 0]);
        assert_eq!(lane_of(0, 4), Vec::<usize>::new());
    }

    #[test]
    fn split_is_exact_and_proportional() {
        assert_eq!(split(10, &[1, 1, 1]), vec![3, 3, 4]);
        assert_eq!(split(7, &[3, 1]), vec![5, 2]);
        assert_eq!(split(0, &[2, 2]), vec![0, 0]);
        assert_eq!(split(5, &[0, 0]), vec![0, 0]);
        for (t, w) in [
            (1_000_003u64, vec![3usize, 2, 2]),
            (u64::MAX / 2, vec![1, 7]),
        ] {
            let s = split(t, &w);
            assert_eq!(s.iter().sum::<u64>(), t);
            let per_host = t as f64 / w.iter().sum::<usize>() as f64;
            for (x, w) in s.iter().zip(&w) {
                assert!((*x as f64 - per_host * *w as f64).abs() <= 1.0 + per_host * 1e-9);
            }
        }
    }

    #[test]
    fn merged_reports_add_counts_and_keep_the_longest() {
        let mut a = SendReport {
            sent: 10,
            elapsed: Duration::from_millis(5),
            refused: 1,
            bursts: 2,
            span_sum_ns: 300,
            span_max_ns: 200,
        };
        a.merge(&SendReport {
            sent: 4,
            elapsed: Duration::from_millis(7),
            refused: 0,
            bursts: 2,
            span_sum_ns: 100,
            span_max_ns: 60,
        });
        assert_eq!((a.sent, a.refused, a.bursts), (14, 1, 4));
        assert_eq!(a.elapsed, Duration::from_millis(7));
        assert_eq!((a.span_sum_ns, a.span_max_ns), (400, 200));
        assert_eq!(a.span_mean_ns(), 100.0);
        assert_eq!(SendReport::default().span_mean_ns(), 0.0);
    }
}
