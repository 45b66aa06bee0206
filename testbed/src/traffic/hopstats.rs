//! The receiver's side of hop records (`docs/wire-format.md` §2.1): a latency stream
//! frame that asked every switch for a record comes back with, per switch, the kernel's
//! receive stamp, the switch's poll and its hand-off to the egress port's transmit path
//! (all `CLOCK_MONOTONIC` of this machine for canopy-switch). With the transmit stamp
//! and the receiving host's kernel stamp they cut the one-way latency into parts that
//! add up to it:
//!
//! ```text
//! host stack  = rec[0].kernel_rx − transmit stamp
//! rx ring[i]  = rec[i].poll − rec[i].kernel_rx
//! residence[i]= rec[i].tx − rec[i].poll
//! link[i]     = rec[i+1].kernel_rx − rec[i].tx   (the last: receiving host's kernel stamp − rec[n-1].tx)
//! ```
//!
//! Frames are grouped by path length (a fat-tree's 1-, 3- and 5-switch paths); each
//! part's mean, p50 and p99 is kept per position on the path. A frame with a record
//! that misses a stamp, whose records are on different clocks, or that met more
//! switches than it had slots, is counted as incomplete and left out.
//!
//! Records on a switch's own clock (bmv2's v1model: `ingress_global_timestamp` and
//! `egress_global_timestamp`, no kernel stamp) give each switch's residence, poll to
//! hand-off, on its own clock, and nothing else; for such frames the time outside the
//! switches, measured less every residence, takes the host stack's place, and the RX
//! rings and links stay 0 ([`HopBreakdown::switch_clocks`]). So a bmv2 run's breakdown
//! puts its per-hop residence beside canopy-switch's.

use crate::error::Result;
use crate::report::results::{HopBreakdown, HopParts, Part, PathParts};
use canopy_dataplane::wire::{self, hops};
use hdrhistogram::Histogram;

/// The most switches a breakdown follows (and record slots a frame asks for).
pub const MAX_HOPS: usize = 16;

/// Record slots for a topology whose top level is `max_level`: up to the top and down
/// again (`2 * max_level - 1`), at most [`MAX_HOPS`].
pub fn slots_for(max_level: u16) -> u8 {
    (usize::from(max_level.max(1)) * 2 - 1).min(MAX_HOPS) as u8
}

/// What one frame's records say, until its arrival is known.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HopSample {
    n: usize,
    tx_ns: u64,
    kernel_rx: [u64; MAX_HOPS],
    poll: [u64; MAX_HOPS],
    handoff: [u64; MAX_HOPS],
    queue: [u32; MAX_HOPS],
    level: [u16; MAX_HOPS],
    /// The records are on the switches' own clocks (residence only).
    local: bool,
}

/// What a frame's hop record area gave.
// (returned by value once per stream frame and moved into a held array: boxing the
// sample would allocate per frame)
#[allow(clippy::large_enum_variant)]
pub(crate) enum Read {
    /// No record area.
    None,
    /// A complete set of records.
    Complete(HopSample),
    /// Records it cannot break down.
    Incomplete,
}

impl HopSample {
    /// The records of `frame` (transmit stamp `tx_ns`); `levels[switch]` is each
    /// switch's level.
    pub(crate) fn read(frame: &[u8], tx_ns: u64, levels: &[u16]) -> Read {
        let Some((area, recs)) = wire::canopy_offset(frame)
            .ok()
            .and_then(|at| hops::records(frame.get(at..)?))
        else {
            return Read::None;
        };
        if area.overflow || area.count == 0 || usize::from(area.count) > MAX_HOPS {
            return Read::Incomplete;
        }
        let mut s = HopSample {
            n: 0,
            tx_ns,
            kernel_rx: [0; MAX_HOPS],
            poll: [0; MAX_HOPS],
            handoff: [0; MAX_HOPS],
            queue: [0; MAX_HOPS],
            level: [0; MAX_HOPS],
            local: false,
        };
        for r in recs {
            if s.n == 0 {
                s.local = r.clock == hops::clock::SWITCH_LOCAL;
            }
            // (a switch-local record has no kernel stamp; its residence needs the rest)
            let usable = match r.clock {
                hops::clock::MONOTONIC => !s.local && r.kernel_rx_ns != 0,
                hops::clock::SWITCH_LOCAL => s.local,
                _ => false,
            } && r.poll_ns != 0
                && r.tx_ns != 0;
            if !usable || s.n == MAX_HOPS {
                return Read::Incomplete;
            }
            s.kernel_rx[s.n] = r.kernel_rx_ns;
            s.poll[s.n] = r.poll_ns;
            s.handoff[s.n] = r.tx_ns;
            s.queue[s.n] = r.queue;
            s.level[s.n] = levels.get(r.switch as usize).copied().unwrap_or(0);
            s.n += 1;
        }
        if s.n == usize::from(area.count) {
            Read::Complete(s)
        } else {
            Read::Incomplete
        }
    }
}

/// A part's histogram: 1 ns to 10 s, 2 significant digits (small: there are many).
fn part_histogram() -> Result<Histogram<u64>> {
    Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 2).map_err(|e| {
        crate::error::TestbedError::Parse {
            what: "histogram bounds".into(),
            detail: e.to_string(),
        }
    })
}

fn part(h: &Histogram<u64>) -> Part {
    if h.is_empty() {
        return Part::default();
    }
    Part {
        mean_ns: h.mean(),
        p50_ns: h.value_at_quantile(0.5),
        p99_ns: h.value_at_quantile(0.99),
    }
}

struct HopAcc {
    level: Option<u16>,
    ring: Histogram<u64>,
    residence: Histogram<u64>,
    link: Histogram<u64>,
    queue_sum: u64,
}

struct PathAcc {
    frames: u64,
    measured: Histogram<u64>,
    host: Histogram<u64>,
    hops: Vec<HopAcc>,
}

/// The level every frame's switch at one position had so far: `None` before the first,
/// 0 once two differ.
fn same_level(seen: Option<u16>, level: u16) -> Option<u16> {
    match seen {
        None => Some(level),
        Some(l) if l == level => Some(l),
        Some(_) => Some(0),
    }
}

/// The breakdown of one trial's latency stream, built frame by frame.
pub(crate) struct Breakdown {
    slots: u8,
    frames: u64,
    incomplete: u64,
    /// The clock of the frames broken down: the first frame's (switch-local or not);
    /// a frame on the other is left out.
    local: Option<bool>,
    /// By path length (index = switches on the path).
    paths: Vec<Option<PathAcc>>,
}

impl Breakdown {
    pub(crate) fn new(slots: u8) -> Breakdown {
        Breakdown {
            slots,
            frames: 0,
            incomplete: 0,
            local: None,
            paths: Vec::new(),
        }
    }

    /// A frame whose records could not be broken down.
    pub(crate) fn count_incomplete(&mut self) {
        self.incomplete += 1;
    }

    /// Add frame `s`, which reached its host at `arrival_ns` (monotonic). Parts that
    /// come out negative (the clocks of two stamps disagree) count as 0 ns.
    pub(crate) fn add(&mut self, s: &HopSample, arrival_ns: u64) -> Result<()> {
        if *self.local.get_or_insert(s.local) != s.local {
            self.incomplete += 1;
            return Ok(());
        }
        let n = s.n;
        if self.paths.len() <= n {
            self.paths.resize_with(n + 1, || None);
        }
        if self.paths[n].is_none() {
            let mut hops = Vec::with_capacity(n);
            for _ in 0..n {
                hops.push(HopAcc {
                    level: None,
                    ring: part_histogram()?,
                    residence: part_histogram()?,
                    link: part_histogram()?,
                    queue_sum: 0,
                });
            }
            self.paths[n] = Some(PathAcc {
                frames: 0,
                measured: part_histogram()?,
                host: part_histogram()?,
                hops,
            });
        }
        let Some(p) = self.paths[n].as_mut() else {
            return Ok(());
        };
        let rec = |h: &mut Histogram<u64>, later: u64, earlier: u64| {
            h.saturating_record(later.saturating_sub(earlier));
        };
        p.frames += 1;
        self.frames += 1;
        rec(&mut p.measured, arrival_ns, s.tx_ns);
        if s.local {
            // residence on each switch's own clock; the rest of the latency is outside
            let mut inside = 0u64;
            for (i, h) in p.hops.iter_mut().enumerate() {
                let r = s.handoff[i].saturating_sub(s.poll[i]);
                inside += r;
                h.residence.saturating_record(r);
                h.queue_sum += u64::from(s.queue[i]);
                h.level = same_level(h.level, s.level[i]);
            }
            let outside = arrival_ns.saturating_sub(s.tx_ns).saturating_sub(inside);
            p.host.saturating_record(outside);
            return Ok(());
        }
        rec(&mut p.host, s.kernel_rx[0], s.tx_ns);
        for (i, h) in p.hops.iter_mut().enumerate() {
            rec(&mut h.ring, s.poll[i], s.kernel_rx[i]);
            rec(&mut h.residence, s.handoff[i], s.poll[i]);
            let next = if i + 1 < n {
                s.kernel_rx[i + 1]
            } else {
                arrival_ns
            };
            rec(&mut h.link, next, s.handoff[i]);
            h.queue_sum += u64::from(s.queue[i]);
            h.level = same_level(h.level, s.level[i]);
        }
        Ok(())
    }

    /// The figures.
    pub(crate) fn result(&self) -> HopBreakdown {
        let paths = self
            .paths
            .iter()
            .enumerate()
            .filter_map(|(n, p)| Some((n, p.as_ref()?)))
            .map(|(n, p)| {
                let hop: Vec<HopParts> = p
                    .hops
                    .iter()
                    .map(|h| HopParts {
                        level: h.level.unwrap_or(0),
                        rx_ring: part(&h.ring),
                        residence: part(&h.residence),
                        link: part(&h.link),
                        queue_mean: h.queue_sum as f64 / p.frames.max(1) as f64,
                    })
                    .collect();
                let measured = part(&p.measured);
                let host_stack = part(&p.host);
                let sum: f64 = host_stack.mean_ns
                    + hop
                        .iter()
                        .map(|h| h.rx_ring.mean_ns + h.residence.mean_ns + h.link.mean_ns)
                        .sum::<f64>();
                PathParts {
                    hops: n,
                    frames: p.frames,
                    measured,
                    host_stack,
                    hop,
                    sum_ratio: if measured.mean_ns > 0.0 {
                        sum / measured.mean_ns
                    } else {
                        0.0
                    },
                }
            })
            .collect();
        HopBreakdown {
            slots: self.slots,
            frames: self.frames,
            incomplete: self.incomplete,
            switch_clocks: self.local == Some(true),
            paths,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::frame::HostFrame;
    use canopy_dataplane::wire::hops::{clock, HopRecord};

    /// A latency stream frame on the k=4 fat-tree with sliced headers and 5 slots.
    const STREAM_FRAME_K4: usize = 302;

    /// A frame from host 0 to host 15 of the k=4 fat-tree (5 switches) with `slots`
    /// slots, and the records `recs` written as the switches would.
    fn frame(slots: u8, recs: &[HopRecord]) -> Vec<u8> {
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let mut f = HostFrame::with_hops(
            &topo,
            canopy_dataplane::wire::Kind::Sliced,
            0,
            15,
            60,
            3,
            slots,
        )
        .unwrap();
        f.set_meas(0, 1_000);
        let at = wire::canopy_offset(&f.bytes).unwrap();
        for r in recs {
            hops::write(&mut f.bytes[at..], r).unwrap();
        }
        f.bytes
    }

    /// Switch `sw` received at `k`, polled at `k + 2000`, handed off at `k + 2500`.
    fn rec(sw: u32, k: u64) -> HopRecord {
        HopRecord {
            switch: sw,
            ingress: 0,
            egress: 2,
            queue: sw,
            clock: clock::MONOTONIC,
            kernel_rx_ns: k,
            poll_ns: k + 2_000,
            tx_ns: k + 2_500,
            queue_delay_ns: 0,
        }
    }

    #[test]
    fn the_parts_of_a_path_add_up_to_its_latency() {
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let levels: Vec<u16> = topo.switches.iter().map(|s| s.level).collect();
        assert_eq!(slots_for(3), 5);
        assert_eq!(slots_for(40), MAX_HOPS as u8);
        // edge 0, agg 8, core 16, agg 14, edge 6; 4 µs between a hand-off and the next
        // kernel stamp; the host's kernel got it 3 µs after the stamp at 1 µs
        let sws = [0u32, 8, 16, 14, 6];
        let recs: Vec<HopRecord> = sws
            .iter()
            .enumerate()
            .map(|(i, &sw)| rec(sw, 4_000 + i as u64 * 6_500))
            .collect();
        let f = frame(5, &recs);
        let Read::Complete(s) = HopSample::read(&f, 1_000, &levels) else {
            panic!("not complete");
        };
        let mut b = Breakdown::new(5);
        let arrival = recs[4].tx_ns + 7_000;
        b.add(&s, arrival).unwrap();
        let r = b.result();
        assert_eq!((r.frames, r.incomplete, r.paths.len()), (1, 0, 1));
        let p = &r.paths[0];
        assert_eq!((p.hops, p.frames), (5, 1));
        let close = |x: f64, want: f64| (x - want).abs() <= want * 0.01 + 1.0;
        assert!(close(p.host_stack.mean_ns, 3_000.0), "{p:?}");
        assert!(close(p.measured.mean_ns, (arrival - 1_000) as f64), "{p:?}");
        let levels_seen: Vec<u16> = p.hop.iter().map(|h| h.level).collect();
        assert_eq!(levels_seen, vec![1, 2, 3, 2, 1]);
        for (i, h) in p.hop.iter().enumerate() {
            assert!(close(h.rx_ring.mean_ns, 2_000.0) && close(h.residence.mean_ns, 500.0));
            let link = if i < 4 { 4_000.0 } else { 7_000.0 };
            assert!(close(h.link.mean_ns, link), "hop {i}: {h:?}");
            assert_eq!(h.queue_mean, sws[i] as f64);
        }
        assert!((p.sum_ratio - 1.0).abs() < 0.01, "{}", p.sum_ratio);
    }

    #[test]
    fn frames_it_cannot_break_down_are_told_apart() {
        let levels = vec![1u16; 20];
        // no record area at all
        let plain = frame(0, &[]);
        assert!(matches!(HopSample::read(&plain, 1, &levels), Read::None));
        // a record without a poll stamp; records on two clocks
        let mut nopoll = rec(0, 5_000);
        nopoll.poll_ns = 0;
        let mut own = rec(8, 9_000);
        own.clock = clock::SWITCH_LOCAL;
        for r in [vec![nopoll], vec![rec(0, 5_000), own]] {
            assert!(matches!(
                HopSample::read(&frame(5, &r), 1, &levels),
                Read::Incomplete
            ));
        }
        // (the size docs/traffic.md gives for the k=4 fat-tree's stream frames)
        assert_eq!(frame(5, &[]).len(), STREAM_FRAME_K4);
        // more switches than slots: the overflow flag
        let f = frame(2, &[rec(0, 10), rec(1, 20), rec(2, 30)]);
        assert!(matches!(HopSample::read(&f, 1, &levels), Read::Incomplete));
        // an empty area (no switch wrote) is incomplete too
        assert!(matches!(
            HopSample::read(&frame(5, &[]), 1, &levels),
            Read::Incomplete
        ));
        let mut b = Breakdown::new(5);
        b.count_incomplete();
        assert_eq!((b.result().frames, b.result().incomplete), (0, 1));
    }

    #[test]
    fn records_on_the_switches_own_clocks_give_residence_and_the_rest_is_outside() {
        let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
        let levels: Vec<u16> = topo.switches.iter().map(|s| s.level).collect();
        // bmv2: no kernel stamp, poll and hand-off in µs since each switch started (×1000),
        // residence 30, 40, 50 µs; the frame took 1 ms end to end
        let recs: Vec<HopRecord> = [0u32, 8, 16]
            .iter()
            .enumerate()
            .map(|(i, &sw)| HopRecord {
                clock: clock::SWITCH_LOCAL,
                kernel_rx_ns: 0,
                poll_ns: 7_000_000 + i as u64 * 1_000,
                tx_ns: 7_000_000 + i as u64 * 1_000 + 30_000 + i as u64 * 10_000,
                ..rec(sw, 0)
            })
            .collect();
        let Read::Complete(s) = HopSample::read(&frame(5, &recs), 1_000, &levels) else {
            panic!("not complete");
        };
        let mut b = Breakdown::new(5);
        b.add(&s, 1_001_000).unwrap();
        // a frame with canopy-switch records does not mix into it
        let Read::Complete(mono) = HopSample::read(&frame(5, &[rec(0, 5_000)]), 1_000, &levels)
        else {
            panic!("not complete");
        };
        b.add(&mono, 20_000).unwrap();
        let r = b.result();
        assert!(r.switch_clocks);
        assert_eq!((r.frames, r.incomplete), (1, 1));
        let p = &r.paths[0];
        let close = |x: f64, want: f64| (x - want).abs() <= want * 0.01 + 1.0;
        for (h, want) in p.hop.iter().zip([30_000.0, 40_000.0, 50_000.0]) {
            assert!(close(h.residence.mean_ns, want), "{h:?}");
            assert_eq!((h.rx_ring.mean_ns, h.link.mean_ns), (0.0, 0.0));
        }
        assert!(close(p.host_stack.mean_ns, 880_000.0), "{p:?}");
        assert!((p.sum_ratio - 1.0).abs() < 0.01, "{}", p.sum_ratio);
    }
}
