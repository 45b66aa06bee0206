//! Receive-side accounting, independent of sockets: which flow a frame belongs to, its
//! sequence number against the flow's history (fresh, reordered, duplicate), misdelivery,
//! foreign frames and the one-way (or, from a reflector, round-trip) latency, for the
//! trial's frames and, apart, for its latency stream ([`ProbeStream`]).
//!
//! **The receive time.** A frame's latency ends at the kernel's receive stamp of the
//! frame (`tp_sec`/`tp_nsec` of its TPACKET header, `CLOCK_REALTIME`), taken when the
//! receiving host's kernel queued it to the generator's socket, converted to the
//! monotonic clock of the transmit stamps with both clocks read once per receive burst.
//! So the time the receiver thread takes to wake up and reach the frame is not in the
//! figure. A frame without a usable stamp (0, later than the burst's clock read, older
//! than [`KERNEL_RX_MAX_AGE_NS`]: a clock step, or converted to a time before its own
//! transmit stamp) is timed at the burst's clock read instead, and counted
//! ([`RxAccount::unstamped`]). The realtime clock is read on both sides of the monotonic
//! one ([`RxClock::now`]), so the conversion is off by at most 1 µs.

use crate::error::{Result, TestbedError};
use crate::report::results::{FlowReorder, Latency, ProbeStream, Timeline, Trial};
use crate::traffic::frame::HostFrame;
use crate::traffic::hopstats::{Breakdown, HopSample, Read};
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
    /// Frames timed at the receiver's clock read because their kernel receive stamp was
    /// missing or unusable (module docs).
    pub unstamped: u64,
    /// The frames [`on_frame_deferred`](Self::on_frame_deferred) accounted whose
    /// latency waits for the burst's clocks.
    pending: [Pending; PENDING],
    npending: usize,
    /// The latency stream's accounting, when the trial has one.
    probe: Option<ProbeRx>,
}

/// A kernel receive stamp older than this at the burst's clock read is taken as a clock
/// step, not a wait (the frame is timed at the clock read).
pub const KERNEL_RX_MAX_AGE_NS: u64 = 1_000_000_000;

/// A frame accounted and waiting for its burst's clocks.
#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    /// Transmit stamp (CLOCK_MONOTONIC).
    tx_ns: u64,
    /// The kernel's receive stamp (CLOCK_REALTIME; 0: none).
    kernel_ns: u64,
    /// A frame of the latency stream.
    probe: bool,
    /// Its hop records: index + 1 into the stream's held samples (0: none).
    hop: u16,
}

/// The clocks a receiver reads once per burst, after taking the burst's frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxClock {
    /// CLOCK_MONOTONIC ns.
    pub mono_ns: u64,
    /// CLOCK_REALTIME ns, read next to it.
    pub real_ns: u64,
}

/// The most two realtime reads around the monotonic one may be apart for
/// [`RxClock::now`] to take them at once (else it reads again, a few times).
const CLOCK_PAIR_NS: u64 = 2_000;

impl RxClock {
    /// Both clocks now: the realtime clock read before and after the monotonic one, and
    /// taken at the middle, so a thread preempted between two reads does not shift the
    /// conversion by the time it was away (while the two realtime reads are more than
    /// 2 µs apart, the three are read again, 4 times in all, and the closest pair kept).
    pub fn now() -> RxClock {
        use crate::os::sys::{monotonic_ns, realtime_ns};
        let read = || {
            let r0 = realtime_ns();
            let mono_ns = monotonic_ns();
            let r1 = realtime_ns();
            let spread = r1.saturating_sub(r0);
            let c = RxClock {
                mono_ns,
                real_ns: r0 + spread / 2,
            };
            (spread, c)
        };
        let mut best = read();
        for _ in 1..4 {
            if best.0 <= CLOCK_PAIR_NS {
                break;
            }
            let next = read();
            if next.0 < best.0 {
                best = next;
            }
        }
        best.1
    }

    /// When a frame with kernel receive stamp `kernel_ns` arrived, on the monotonic
    /// clock; None when the stamp is unusable (module docs).
    #[inline]
    pub fn arrival(&self, kernel_ns: u64) -> Option<u64> {
        let age = self.real_ns.checked_sub(kernel_ns)?;
        (kernel_ns != 0 && age <= KERNEL_RX_MAX_AGE_NS)
            .then(|| self.mono_ns - age.min(self.mono_ns))
    }
}

/// The latency stream's side of an [`RxAccount`].
struct ProbeRx {
    run_id: u16,
    flows: Vec<FlowRx>,
    hist: Histogram<u64>,
    /// The breakdown of its hop records and the level of each switch, when its frames
    /// ask for them.
    hops: Option<(Breakdown, Vec<u16>)>,
    /// Hop records of the frames held until their burst's clocks ([`Pending::hop`]).
    held: Vec<HopSample>,
}

impl std::fmt::Debug for ProbeRx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProbeRx")
            .field("run_id", &self.run_id)
            .field("hops", &self.hops.is_some())
            .finish_non_exhaustive()
    }
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
            unstamped: 0,
            pending: [Pending::default(); PENDING],
            npending: 0,
            probe: None,
        })
    }

    /// Also account the frames of run `probe_id` as the trial's latency stream: their
    /// own flows and histogram ([`probe_stream`](Self::probe_stream)). With `hops`
    /// (the record slots its frames carry and each switch's level, by switch id), also
    /// the breakdown of their hop records ([`crate::traffic::hopstats`]).
    pub fn with_probe(mut self, probe_id: u16, hops: Option<(u8, Vec<u16>)>) -> Result<RxAccount> {
        self.probe = Some(ProbeRx {
            run_id: probe_id,
            flows: vec![FlowRx::default(); self.n * self.n],
            hist: latency_histogram()?,
            hops: hops.map(|(slots, levels)| (Breakdown::new(slots), levels)),
            held: Vec::with_capacity(PENDING),
        });
        Ok(self)
    }

    /// Account one frame received by host position `rx` at `now_ns` (CLOCK_MONOTONIC),
    /// for a caller without the kernel's stamps (counted as [`unstamped`](Self::unstamped));
    /// ends the burst of any frame held before it.
    pub fn on_frame(&mut self, rx: usize, frame: &[u8], now_ns: u64) {
        self.on_frame_deferred(rx, frame, 0);
        self.end_burst(RxClock {
            mono_ns: now_ns,
            real_ns: 0,
        });
    }

    /// Account one frame received by host position `rx` with the kernel's receive stamp
    /// `kernel_ns` (CLOCK_REALTIME, 0: none); its latency is recorded by the next
    /// [`end_burst`](Self::end_burst), which reads the clocks that convert the stamp once
    /// per burst. A frame without a usable stamp is timed at that call: overstated by at
    /// most the time from its arrival to the call, never understated. More than
    /// [`PENDING`] frames without an `end_burst` close the burst early with a clock read.
    #[inline]
    pub fn on_frame_deferred(&mut self, rx: usize, frame: &[u8], kernel_ns: u64) {
        if self.npending == PENDING {
            self.end_burst(RxClock::now());
        }
        if let Some(mut p) = self.account(rx, frame) {
            p.kernel_ns = kernel_ns;
            self.pending[self.npending] = p;
            self.npending += 1;
        }
    }

    /// Record the latencies of the frames accounted by
    /// [`on_frame_deferred`](Self::on_frame_deferred) since the last call, all received
    /// by `clock` (read after the burst).
    pub fn end_burst(&mut self, clock: RxClock) {
        for i in 0..self.npending {
            let p = self.pending[i];
            // (a converted stamp before the transmit stamp cannot be true: the clocks
            // disagreed; the frame is timed at the clock read instead)
            let at = match clock.arrival(p.kernel_ns).filter(|&t| t >= p.tx_ns) {
                Some(t) => t,
                None => {
                    self.unstamped += 1;
                    clock.mono_ns
                }
            };
            self.record(p.tx_ns, at, p.probe);
            if let (Some(pr), Some(i)) = (self.probe.as_mut(), p.hop.checked_sub(1)) {
                if let (Some((b, _)), Some(s)) = (pr.hops.as_mut(), pr.held.get(usize::from(i))) {
                    if at >= p.tx_ns && b.add(s, at).is_err() {
                        b.count_incomplete();
                    }
                }
            }
        }
        self.npending = 0;
        if let Some(pr) = self.probe.as_mut() {
            pr.held.clear();
        }
    }

    #[inline]
    fn record(&mut self, ts_ns: u64, now_ns: u64, probe: bool) {
        if now_ns < ts_ns {
            self.clock_skew += 1;
            return;
        }
        let h = match (&mut self.probe, probe) {
            (Some(p), true) => &mut p.hist,
            _ => &mut self.hist,
        };
        h.saturating_record((now_ns - ts_ns).max(1));
    }

    /// Count one frame received by host position `rx`; what to time when its latency is
    /// to be recorded.
    #[inline]
    fn account(&mut self, rx: usize, frame: &[u8]) -> Option<Pending> {
        let Some(t) = HostFrame::parse(frame) else {
            self.count_foreign(frame);
            return None;
        };
        let probe = self.probe.as_ref().is_some_and(|p| p.run_id == t.run_id);
        if !probe && t.run_id == self.warm_id && t.run_id != self.run_id {
            self.warmup += 1;
            return None;
        }
        if !probe && t.run_id != self.run_id {
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
        let mut timed = Pending {
            tx_ns: t.ts_ns,
            kernel_ns: 0,
            probe,
            hop: 0,
        };
        if let Some(p) = self.probe.as_mut().filter(|_| probe) {
            // every frame of the stream is timed, and its hop records held for the
            // breakdown (at most a burst's worth: the burst ends early when full)
            if p.flows[flow].update(t.seq) == SeqVerdict::Duplicate {
                return None;
            }
            if let Some((b, levels)) = p.hops.as_mut() {
                match HopSample::read(frame, t.ts_ns, levels) {
                    Read::Complete(s) if p.held.len() < PENDING => {
                        p.held.push(s);
                        timed.hop = p.held.len() as u16;
                    }
                    Read::None => {}
                    _ => b.count_incomplete(),
                }
            }
            return Some(timed);
        }
        match self.flows[flow].update(t.seq) {
            SeqVerdict::Duplicate => None,
            _ => {
                self.fresh += 1;
                if let Some(tl) = self.timeline.as_mut() {
                    let b = tl.bin(t.ts_ns);
                    tl.received[b] += 1;
                }
                self.fresh.is_multiple_of(self.every).then_some(timed)
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

    /// The latency stream's figures, when this account has one: `sent[flow]` of its
    /// frames were sent per flow (`src * n + dst`) at `offered_pps` in all.
    pub fn probe_stream(&self, sent: &[u64], offered_pps: f64) -> Option<ProbeStream> {
        let p = self.probe.as_ref()?;
        let (c, _) = count_flows(&p.flows, sent);
        Some(ProbeStream {
            offered_pps,
            sent: sent.iter().sum(),
            received: c.received,
            lost: c.lost,
            reordered: c.reordered,
            latency: latency_summary(&p.hist),
            hops: p.hops.as_ref().map(|(b, _)| b.result()),
        })
    }

    /// The trial: `sent[flow]` frames were sent per flow (`src * n + dst`) in
    /// `duration_s` seconds at `offered_pps`.
    pub fn trial(&self, sent: &[u64], offered_pps: f64, duration_s: f64) -> Trial {
        let (c, total) = count_flows(&self.flows, sent);
        let FlowCounts {
            received,
            lost,
            reordered,
            duplicates,
            by_flow,
        } = c;
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
            flow_reorder: by_flow,
            duplicates,
            misdelivered: self.misdelivered,
            foreign: self.foreign,
            latency: latency_summary(&self.hist),
            passed: None,
            drained_s: 0.0,
            timeline: self.timeline.clone(),
            probe: None,
        }
    }
}

/// Frames of a set of flows, against what was sent on each.
#[derive(Debug, Clone, Copy, Default)]
struct FlowCounts {
    received: u64,
    lost: u64,
    reordered: u64,
    duplicates: u64,
    by_flow: FlowReorder,
}

/// The counts of `flows` against `sent` per flow, and the frames sent in all.
fn count_flows(flows: &[FlowRx], sent: &[u64]) -> (FlowCounts, u64) {
    let mut c = FlowCounts::default();
    for (i, f) in flows.iter().enumerate() {
        let s = sent.get(i).copied().unwrap_or(0);
        c.received += f.received.min(s);
        c.lost += s.saturating_sub(f.received);
        c.reordered += f.reordered;
        c.duplicates += f.duplicates;
        if f.received > 0 {
            let r = &mut c.by_flow;
            r.flows += 1;
            if f.reordered > 0 {
                r.reordered_flows += 1;
                r.worst_ratio = r.worst_ratio.max(f.reordered as f64 / f.received as f64);
            }
        }
    }
    (c, sent.iter().sum())
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
        hdr: crate::report::hlog::encode(h),
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
        // per flow: this one and one in order, of three flows (one received nothing)
        let mut ok = FlowRx::default();
        ok.update(0);
        let (c, sent) = count_flows(&[f.clone(), ok, FlowRx::default()], &[10, 1, 4]);
        assert_eq!(sent, 15);
        assert_eq!((c.by_flow.flows, c.by_flow.reordered_flows), (2, 1));
        assert!((c.by_flow.worst_ratio - 2.0 / 7.0).abs() < 1e-12);
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

    /// Clocks with the realtime clock `off` ns ahead of the monotonic one.
    fn clock(mono_ns: u64, off: u64) -> RxClock {
        RxClock {
            mono_ns,
            real_ns: mono_ns + off,
        }
    }

    #[test]
    fn deferred_latencies_take_the_burst_time_and_count_like_immediate_ones() {
        let (macs, frames) = stamped(&[1_000, 2_000, 3_000]);
        let mut acc = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        for f in &frames {
            acc.on_frame_deferred(1, f, 0);
        }
        // nothing recorded before the burst ends; then each at the burst's time (no
        // kernel stamp)
        assert_eq!(acc.histogram().len(), 0);
        acc.end_burst(clock(10_000, 0));
        let h = acc.histogram();
        assert_eq!(h.len(), 3);
        assert!(h.equivalent(h.min(), 7_000) && h.equivalent(h.max(), 9_000));
        assert_eq!(acc.unstamped, 3);
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
        acc.on_frame_deferred(1, &frames[0], 0);
        acc.end_burst(clock(20_000, 0));
        acc.end_burst(clock(30_000, 0));
        assert_eq!(acc.histogram().len(), 3);
        assert_eq!(acc.flows()[1].duplicates, 1);
    }

    #[test]
    fn kernel_stamps_end_the_latency_and_bad_ones_fall_back_to_the_clock() {
        let off = 1_700_000_000_000_000_000; // realtime ahead of monotonic
        let now = 3_000_000_000; // monotonic, when the burst's clocks are read
        let tx = now - 20_000;
        let (macs, frames) = stamped(&[tx, tx, tx, tx]);
        let mut acc = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        // received 5 µs after the stamp, per the kernel (15 µs before the clock read)
        acc.on_frame_deferred(1, &frames[0], off + tx + 5_000);
        // no stamp; a stamp from the future; one older than the longest wait
        acc.on_frame_deferred(1, &frames[1], 0);
        acc.on_frame_deferred(1, &frames[2], off + now + 1);
        acc.on_frame_deferred(1, &frames[3], off + now - KERNEL_RX_MAX_AGE_NS - 1);
        acc.end_burst(clock(now, off));
        let h = acc.histogram();
        assert_eq!((h.len(), acc.unstamped), (4, 3));
        assert!(h.equivalent(h.min(), 5_000), "{}", h.min());
        assert_eq!(h.count_between(19_900, 20_100), 3);
        // a kernel stamp that converts to before the transmit stamp cannot be true: the
        // frame is timed at the clock read (the fifth frame of the flow: sequence 4)
        let (_, late) = stamped(&[0, 0, 0, 0, now - 1_000]);
        acc.on_frame_deferred(1, &late[4], off + now - 2_000);
        acc.end_burst(clock(now, off));
        assert_eq!((acc.clock_skew, acc.unstamped), (0, 4));
        assert_eq!(acc.histogram().len(), 5);
        assert_eq!(acc.histogram().count_between(990, 1_010), 1);
        // the clocks as read: the realtime clock within 2 µs of the monotonic reading
        let c = RxClock::now();
        let (m, r) = (
            crate::os::sys::monotonic_ns(),
            crate::os::sys::realtime_ns(),
        );
        assert!((r - c.real_ns).abs_diff(m - c.mono_ns) < 1_000_000, "{c:?}");
    }

    #[test]
    fn the_latency_stream_is_counted_and_timed_apart_from_the_load() {
        let (macs, load) = stamped(&[1_000, 2_000, 3_000]);
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let mut p =
            HostFrame::new(&topo, canopy_dataplane::wire::Kind::Sliced, 0, 1, 60, 9).unwrap();
        let mut acc = RxAccount::new(&macs, 7, 8, 1, vec![])
            .unwrap()
            .with_probe(9, None)
            .unwrap();
        for f in &load {
            acc.on_frame_deferred(1, f, 0);
        }
        // probe frames 0 and 2 of flow 0 -> 1 (1 lost), then 1 late (reordered)
        for (seq, ts) in [(0u64, 9_000u64), (2, 9_500), (1, 9_400)] {
            p.set_meas(seq, ts);
            acc.on_frame_deferred(1, &p.bytes, 0);
        }
        p.set_meas(2, 9_600); // a duplicate: not timed
        acc.on_frame_deferred(1, &p.bytes, 0);
        acc.end_burst(clock(10_000, 0));
        let t = acc.trial(&[0, 3, 0, 0], 3.0, 1.0);
        assert_eq!(
            (t.received, t.lost, t.reordered, t.latency.count),
            (3, 0, 0, 3)
        );
        let s = acc.probe_stream(&[0, 4, 0, 0], 4.0).unwrap();
        assert_eq!((s.sent, s.received, s.lost, s.reordered), (4, 3, 1, 1));
        assert_eq!(s.latency.count, 3);
        assert!(
            s.latency.max_ns <= 1_000 && s.latency.min_ns >= 400,
            "{:?}",
            s.latency
        );
        assert!(!s.latency.hdr.is_empty());
        // without a stream, its run id is foreign
        let mut plain = RxAccount::new(&macs, 7, 8, 1, vec![]).unwrap();
        plain.on_frame(1, &p.bytes, 10_000);
        assert_eq!(plain.foreign, 1);
        assert!(plain.probe_stream(&[], 1.0).is_none());
    }

    #[test]
    fn more_deferred_frames_than_a_burst_holds_are_all_timed_never_early() {
        let now = crate::os::sys::monotonic_ns();
        let n = PENDING * 2 + 5;
        let ts: Vec<u64> = (0..n as u64).map(|i| now - 1_000_000 + i).collect();
        let (macs, frames) = stamped(&ts);
        let mut acc = RxAccount::new(&macs, 7, 6, 1, vec![]).unwrap();
        for f in &frames {
            acc.on_frame_deferred(1, f, 0);
        }
        acc.end_burst(RxClock::now());
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
