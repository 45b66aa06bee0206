//! Receive-side accounting, independent of sockets: which flow a frame belongs to, its
//! sequence number against the flow's history (fresh, reordered, duplicate), misdelivery,
//! foreign frames and the one-way (or, from a reflector, round-trip) latency.

use crate::error::{Result, TestbedError};
use crate::report::results::{Latency, Timeline, Trial};
use crate::traffic::frame::HostFrame;
use crate::traffic::hosts::MacIndex;
use hdrhistogram::Histogram;

/// Sequence numbers per flow remembered for duplicate detection. A frame older than
/// this behind the highest one seen on its flow counts as reordered (it cannot be told
/// from a duplicate any more).
pub const WINDOW: u64 = 4096;
const WORDS: usize = (WINDOW / 64) as usize;

/// What one frame was on its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqVerdict {
    /// Higher than every sequence number seen before.
    InOrder,
    /// Lower than the highest seen and not seen before (RFC 4737 reordered).
    Reordered,
    /// Seen before.
    Duplicate,
}

/// Sequence history of one flow.
#[derive(Debug, Clone, Default)]
pub struct FlowRx {
    highest: Option<u64>,
    seen: Option<Box<[u64; WORDS]>>,
    /// Distinct frames received.
    pub received: u64,
    /// Of those, how many arrived after a higher sequence number.
    pub reordered: u64,
    /// Frames seen a second time (not counted in `received`).
    pub duplicates: u64,
}

impl FlowRx {
    fn bit(seen: &mut [u64; WORDS], s: u64) -> (&mut u64, u64) {
        let i = (s % WINDOW) as usize;
        (&mut seen[i / 64], 1u64 << (i % 64))
    }

    /// Account sequence number `s`.
    pub fn update(&mut self, s: u64) -> SeqVerdict {
        let seen = self.seen.get_or_insert_with(|| Box::new([0; WORDS]));
        let v = match self.highest {
            Some(h) if s <= h => {
                if h - s >= WINDOW {
                    SeqVerdict::Reordered
                } else {
                    let (w, m) = Self::bit(seen, s);
                    if *w & m != 0 {
                        SeqVerdict::Duplicate
                    } else {
                        *w |= m;
                        SeqVerdict::Reordered
                    }
                }
            }
            h => {
                // clear the bits of the sequence numbers skipped over (h+1 .. s-1)
                let from = h.map_or(0, |h| h + 1);
                if s - from >= WINDOW {
                    seen.fill(0);
                } else {
                    for x in from..s {
                        let (w, m) = Self::bit(seen, x);
                        *w &= !m;
                    }
                }
                let (w, m) = Self::bit(seen, s);
                *w |= m;
                self.highest = Some(s);
                SeqVerdict::InOrder
            }
        };
        match v {
            SeqVerdict::InOrder => self.received += 1,
            SeqVerdict::Reordered => {
                self.received += 1;
                self.reordered += 1;
            }
            SeqVerdict::Duplicate => self.duplicates += 1,
        }
        v
    }
}

/// Everything the receivers saw during one trial.
#[derive(Debug)]
pub struct RxAccount {
    n: usize,
    macs: MacIndex,
    own: Vec<[u8; 6]>,
    run_id: u16,
    warm_id: u16,
    reflectors: Vec<bool>,
    flows: Vec<FlowRx>,
    hist: Histogram<u64>,
    every: u64,
    fresh: u64,
    /// Frames addressed to another host than the one that received them.
    pub misdelivered: u64,
    /// Frames that are not this run's (no Canopy header with a measurement block, an
    /// unknown run id or an unknown source MAC).
    pub foreign: u64,
    /// Warm-up frames received (not counted anywhere else).
    pub warmup: u64,
    /// The first few foreign frames (up to 64 bytes each), for diagnosis.
    pub foreign_sample: Vec<Vec<u8>>,
    /// Frames whose transmit stamp was later than their receive time (never on one
    /// clock; not recorded in the histogram).
    pub clock_skew: u64,
    /// Fresh frames of the run per bin of their send stamp (its `sent` side is filled
    /// by the sender), when asked for.
    pub timeline: Option<Timeline>,
    /// Transmit stamps of the frames [`on_frame_deferred`](Self::on_frame_deferred)
    /// accounted whose latency waits for the burst's receive time.
    pending: [u64; PENDING],
    npending: usize,
}

/// Latencies [`RxAccount::on_frame_deferred`] holds until [`RxAccount::end_burst`]: one
/// receive burst (the receiver asks its rings for at most this many frames at a time).
pub const PENDING: usize = 64;

impl RxAccount {
    /// Accounting for hosts with MACs `macs` (position = host position), measuring frames
    /// of `run_id` and ignoring those of `warm_id`, recording the latency of every
    /// `every`-th fresh frame. Frames from a host marked in `reflectors` are reflected
    /// frames: they count on the flow that went out to the reflector, and their latency
    /// is a round trip.
    pub fn new(
        macs: &[[u8; 6]],
        run_id: u16,
        warm_id: u16,
        every: u64,
        reflectors: Vec<bool>,
    ) -> Result<RxAccount> {
        let n = macs.len();
        let hist = latency_histogram()?;
        Ok(RxAccount {
            n,
            macs: MacIndex::new(macs),
            own: macs.to_vec(),
            run_id,
            warm_id,
            reflectors: if reflectors.len() == n {
                reflectors
            } else {
                vec![false; n]
            },
            flows: vec![FlowRx::default(); n * n],
            hist,
            every: every.max(1),
            fresh: 0,
            misdelivered: 0,
            foreign: 0,
            warmup: 0,
            clock_skew: 0,
            foreign_sample: Vec::new(),
            timeline: None,
            pending: [0; PENDING],
            npending: 0,
        })
    }

    /// Account one frame received by host position `rx` at `now_ns` (CLOCK_MONOTONIC).
    pub fn on_frame(&mut self, rx: usize, frame: &[u8], now_ns: u64) {
        if let Some(ts) = self.account(rx, frame) {
            self.record(ts, now_ns);
        }
    }

    /// Account one frame received by host position `rx`; its latency is recorded by the
    /// next [`end_burst`](Self::end_burst) with that call's time, so a receiver reads
    /// the clock once per burst instead of once per frame. The latency is overstated by
    /// at most the time from the frame's arrival in the ring to that call (never
    /// understated: the frame was there before the clock was read). More than
    /// [`PENDING`] frames without an `end_burst` close the burst early with a clock read.
    #[inline]
    pub fn on_frame_deferred(&mut self, rx: usize, frame: &[u8]) {
        if let Some(ts) = self.account(rx, frame) {
            if self.npending == PENDING {
                self.end_burst(crate::os::sys::monotonic_ns());
            }
            self.pending[self.npending] = ts;
            self.npending += 1;
        }
    }

    /// Record the latencies of the frames accounted by
    /// [`on_frame_deferred`](Self::on_frame_deferred) since the last call, all received
    /// by `now_ns` (CLOCK_MONOTONIC, read after the burst).
    pub fn end_burst(&mut self, now_ns: u64) {
        for i in 0..self.npending {
            self.record(self.pending[i], now_ns);
        }
        self.npending = 0;
    }

    #[inline]
    fn record(&mut self, ts_ns: u64, now_ns: u64) {
        if now_ns >= ts_ns {
            self.hist.saturating_record((now_ns - ts_ns).max(1));
        } else {
            self.clock_skew += 1;
        }
    }

    /// Count one frame received by host position `rx`; the transmit stamp when its
    /// latency is to be recorded.
    #[inline]
    fn account(&mut self, rx: usize, frame: &[u8]) -> Option<u64> {
        let Some(t) = HostFrame::parse(frame) else {
            self.count_foreign(frame);
            return None;
        };
        if t.run_id == self.warm_id && t.run_id != self.run_id {
            self.warmup += 1;
            return None;
        }
        if t.run_id != self.run_id {
            self.count_foreign(frame);
            return None;
        }
        let Some(src) = self.macs.get(&t.src_mac) else {
            self.count_foreign(frame);
            return None;
        };
        if self.own.get(rx) != Some(&t.dst_mac) {
            self.misdelivered += 1;
            return None;
        }
        // a reflected frame r -> s carries the sequence of flow s -> r
        let flow = if self.reflectors[src] {
            rx * self.n + src
        } else {
            src * self.n + rx
        };
        match self.flows[flow].update(t.seq) {
            SeqVerdict::Duplicate => None,
            _ => {
                self.fresh += 1;
                if let Some(tl) = self.timeline.as_mut() {
                    let b = tl.bin(t.ts_ns);
                    tl.received[b] += 1;
                }
                self.fresh.is_multiple_of(self.every).then_some(t.ts_ns)
            }
        }
    }

    fn count_foreign(&mut self, frame: &[u8]) {
        self.foreign += 1;
        if self.foreign_sample.len() < 4 {
            self.foreign_sample
                .push(frame[..frame.len().min(64)].to_vec());
        }
    }

    /// Per-flow history (`src * n + dst`).
    pub fn flows(&self) -> &[FlowRx] {
        &self.flows
    }

    /// The latency histogram.
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }

    /// The trial: `sent[flow]` frames were sent per flow (`src * n + dst`) in
    /// `duration_s` seconds at `offered_pps`.
    pub fn trial(&self, sent: &[u64], offered_pps: f64, duration_s: f64) -> Trial {
        let total: u64 = sent.iter().sum();
        let mut received = 0;
        let mut lost = 0;
        let mut reordered = 0;
        let mut duplicates = 0;
        for (i, f) in self.flows.iter().enumerate() {
            let s = sent.get(i).copied().unwrap_or(0);
            received += f.received.min(s);
            lost += s.saturating_sub(f.received);
            reordered += f.reordered;
            duplicates += f.duplicates;
        }
        let per_s = |x: u64| {
            if duration_s > 0.0 {
                x as f64 / duration_s
            } else {
                0.0
            }
        };
        Trial {
            offered_pps,
            sent_pps: per_s(total),
            received_pps: per_s(received),
            duration_s,
            sent: total,
            warmup_sent: 0,
            warmup_received: self.warmup,
            received,
            lost,
            loss_ratio: if total > 0 {
                lost as f64 / total as f64
            } else {
                0.0
            },
            reordered,
            duplicates,
            misdelivered: self.misdelivered,
            foreign: self.foreign,
            latency: latency_summary(&self.hist),
            passed: None,
            drained_s: 0.0,
            timeline: self.timeline.clone(),
        }
    }
}

/// An empty latency histogram: 1 ns to 10 s, 3 significant digits.
pub fn latency_histogram() -> Result<Histogram<u64>> {
    Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3).map_err(|e| TestbedError::Parse {
        what: "histogram bounds".into(),
        detail: e.to_string(),
    })
}

/// Summary and CDF points of a latency histogram (all zero when empty).
pub fn latency_summary(h: &Histogram<u64>) -> Latency {
    if h.is_empty() {
        return Latency::default();
    }
    let q = |x: f64| h.value_at_quantile(x);
    let total = h.len() as f64;
    let mut cdf: Vec<(u64, f64)> = Vec::new();
    let mut qs: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
    qs.extend([0.995, 0.999, 0.9995, 0.9999, 1.0]);
    for x in qs {
        let v = q(x);
        let frac = (h.count_between(0, v) as f64 / total).min(1.0);
        match cdf.last() {
            Some(&(lv, lf)) if v <= lv || frac <= lf => {}
            _ => cdf.push((v, frac)),
        }
    }
    let max = h.max();
    match cdf.last_mut() {
        Some(last) if last.0 == max => last.1 = 1.0,
        _ => cdf.push((max, 1.0)),
    }
    Latency {
        count: h.len(),
        min_ns: h.min(),
        mean_ns: h.mean(),
        p50_ns: q(0.5),
        p90_ns: q(0.9),
        p99_ns: q(0.99),
        p999_ns: q(0.999),
        max_ns: max,
        cdf,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_history_tells_in_order_reordered_and_duplicates() {
        let mut f = FlowRx::default();
        use SeqVerdict::*;
        let got: Vec<_> = [0, 1, 3, 2, 2, 3, 10, 5, 5, 11]
            .iter()
            .map(|&s| f.update(s))
            .collect();
        assert_eq!(
            got,
            vec![
                InOrder, InOrder, InOrder, Reordered, Duplicate, Duplicate, InOrder, Reordered,
                Duplicate, InOrder
            ]
        );
        assert_eq!((f.received, f.reordered, f.duplicates), (7, 2, 3));
        // a jump past the window forgets the old bits; a far-late frame is reordered
        let mut f = FlowRx::default();
        f.update(0);
        f.update(WINDOW * 3);
        assert_eq!(f.update(WINDOW * 3), Duplicate);
        assert_eq!(f.update(WINDOW * 3 - 1), Reordered);
        assert_eq!(f.update(1), Reordered);
        // wrap-around of the bitmap does not leave stale bits
        let mut f = FlowRx::default();
        for s in 0..(WINDOW * 2 + 5) {
            assert_eq!(f.update(s), InOrder);
        }
        assert_eq!(f.update(WINDOW + 10), Duplicate);
    }

    /// Frames of flow 0 -> 1 (hosts 0 and 1 of the k=4 fat-tree) of run 7, stamped at
    /// `ts[i]` with sequence `i`.
    fn stamped(ts: &[u64]) -> (Vec<[u8; 6]>, Vec<Vec<u8>>) {
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let macs: Vec<[u8; 6]> = (0..2)
            .map(|h| canopy_control::oracle::host_mac(&topo, h))
            .collect();
        let mut f =
            HostFrame::new(&topo, canopy_dataplane::wire::Kind::Sliced, 0, 1, 60, 7).unwrap();
        let frames = ts
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                f.set_meas(i as u64, t);
                f.bytes.clone()
            })
            .collect();
        (macs, frames)
    }

    #[test]
    fn deferred_latencies_take_the_burst_time_and_count_like_immediate_ones() {
        let (macs, frames) = stamped(&[1_000, 2_000, 3_000]);
        let mut acc = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        for f in &frames {
            acc.on_frame_deferred(1, f);
        }
        // nothing recorded before the burst ends; then each at the burst's time
        assert_eq!(acc.histogram().len(), 0);
        acc.end_burst(10_000);
        let h = acc.histogram();
        assert_eq!(h.len(), 3);
        assert!(h.equivalent(h.min(), 7_000) && h.equivalent(h.max(), 9_000));
        // the same frames one by one give the same counts
        let mut one = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        for f in &frames {
            one.on_frame(1, f, 10_000);
        }
        let (a, b) = (
            acc.trial(&[0, 3, 0, 0], 1.0, 1.0),
            one.trial(&[0, 3, 0, 0], 1.0, 1.0),
        );
        assert_eq!(a, b);
        assert_eq!((a.received, a.lost, a.duplicates), (3, 0, 0));
        // a duplicate is accounted but not timed; an empty burst records nothing
        acc.on_frame_deferred(1, &frames[0]);
        acc.end_burst(20_000);
        acc.end_burst(30_000);
        assert_eq!(acc.histogram().len(), 3);
        assert_eq!(acc.flows()[1].duplicates, 1);
    }

    #[test]
    fn more_deferred_frames_than_a_burst_holds_are_all_timed_never_early() {
        let now = crate::os::sys::monotonic_ns();
        let n = PENDING * 2 + 5;
        let ts: Vec<u64> = (0..n as u64).map(|i| now - 1_000_000 + i).collect();
        let (macs, frames) = stamped(&ts);
        let mut acc = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        for f in &frames {
            acc.on_frame_deferred(1, f);
        }
        acc.end_burst(crate::os::sys::monotonic_ns());
        assert_eq!(acc.histogram().len(), n as u64);
        assert_eq!(acc.clock_skew, 0);
        assert_eq!(acc.flows()[1].received, n as u64);
        // every latency at least the million ns between stamp and reading
        assert!(
            acc.histogram().min() >= 999_000,
            "{}",
            acc.histogram().min()
        );
    }

    #[test]
    fn latency_summary_is_monotone() {
        let mut h = latency_histogram().unwrap();
        assert_eq!(latency_summary(&h), Latency::default());
        for v in 1..=10_000u64 {
            h.record(v * 100).unwrap();
        }
        let l = latency_summary(&h);
        assert_eq!(l.count, 10_000);
        assert!(l.min_ns > 0 && l.min_ns <= l.p50_ns);
        assert!(l.p50_ns <= l.p90_ns && l.p90_ns <= l.p99_ns && l.p99_ns <= l.p999_ns);
        assert!(l.p999_ns <= l.max_ns);
        assert!((l.p50_ns as f64 - 500_000.0).abs() < 1000.0, "{}", l.p50_ns);
        for w in l.cdf.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{w:?}");
        }
        assert_eq!(*l.cdf.last().unwrap(), (l.max_ns, 1.0));
    }
}
