//! What a run measures: message delays (whole, in the network, waiting at the source),
//! load offered and carried, link use per tier, and where frames were lost.

use super::fabric::Prepared;
use canopy_dataplane::engine::counters::{reason_name, N_REASONS};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// A distribution of times, in ns and in transmission times.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Dist {
    /// Mean, ns.
    pub mean_ns: f64,
    /// Median, ns.
    pub p50_ns: f64,
    /// 90th percentile, ns.
    pub p90_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 99.9th percentile, ns.
    pub p999_ns: f64,
    /// Largest, ns.
    pub max_ns: f64,
    /// Mean in transmission times of the mean measured frame (the thesis's
    /// normalisation).
    pub mean_tx: f64,
    /// 99th percentile in transmission times.
    pub p99_tx: f64,
}

/// Use of one tier's links inside the measured window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierUse {
    /// `H→1`, `1→2`, `2→1`, `1→H`…
    pub tier: String,
    /// Links in the tier.
    pub links: usize,
    /// Mean fraction of the window the links were sending.
    pub mean: f64,
    /// Fraction of the busiest link.
    pub max: f64,
}

/// Message counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counts {
    /// Messages the hosts made (the whole run).
    pub made: u64,
    /// Of those, refused at a full source queue.
    pub refused: u64,
    /// Messages made inside the measured window (refused ones included).
    pub measured: u64,
    /// Measured messages that reached their destination.
    pub measured_delivered: u64,
    /// Measured messages refused at a full source queue.
    pub measured_refused: u64,
    /// Measured messages dropped in the fabric.
    pub measured_dropped: u64,
    /// Measured messages still in the fabric or a source queue when the run stopped.
    pub unfinished: u64,
    /// Frames that reached a host they were not addressed to (must be 0).
    pub misdelivered: u64,
    /// Frames dropped (the whole run), by the engine's counter names.
    pub dropped: BTreeMap<String, u64>,
}

/// The results of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// Hosts in the fabric.
    pub hosts: usize,
    /// Transmission time of the mean measured frame on one link, ns.
    pub transmission_ns: f64,
    /// Wire bytes made in the window / (hosts × link rate × window).
    pub offered: f64,
    /// Wire bytes delivered in the window / (hosts × link rate × window): the links
    /// into hosts' time spent sending inside the window.
    pub throughput: f64,
    /// `throughput` × the payload's share of the wire bytes delivered in the window.
    pub goodput: f64,
    /// Made to delivered (last bit), measured messages.
    pub delay: Dist,
    /// First bit sent to last bit delivered.
    pub network_delay: Dist,
    /// Made to first bit sent (the thesis's network request time).
    pub request: Dist,
    /// Mean switches a delivered measured message went through.
    pub mean_hops: f64,
    /// Link use per tier.
    pub tiers: Vec<TierUse>,
    /// Message counts.
    pub counts: Counts,
    /// Events processed.
    pub events: u64,
    /// Simulated time, µs.
    pub simulated_us: f64,
    /// Wall-clock time of the run, s.
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
}

/// Collects a run's measurements.
pub(super) struct Recorder {
    win: (u64, u64),
    hosts: usize,
    tier_of: Vec<u16>,
    /// Whether each link leads to a host.
    to_host: Vec<bool>,
    tiers: Vec<String>,
    delay: Histogram<u64>,
    network: Histogram<u64>,
    request: Histogram<u64>,
    counts: Counts,
    drops: [u64; N_REASONS],
    measured_wire: u64,
    made_wire: u64,
    delivered_wire: u64,
    delivered_payload: u64,
    hops: u64,
    /// Measured messages not yet delivered, dropped or refused.
    open: u64,
}

/// Longest time a histogram tells apart (longer ones count as this), ps: 1000 s.
const LONGEST_PS: u64 = 1_000_000_000_000_000;

fn hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, LONGEST_PS, 3).expect("valid bounds and precision")
}

impl Recorder {
    pub(super) fn new(prep: &Prepared<'_>, win: (u64, u64)) -> Self {
        Recorder {
            win,
            hosts: prep.topo.hosts.len(),
            tier_of: prep.links.iter().map(|l| l.tier).collect(),
            to_host: prep
                .links
                .iter()
                .map(|l| matches!(l.to, super::fabric::End::Host(_)))
                .collect(),
            tiers: prep.tiers.clone(),
            delay: hist(),
            network: hist(),
            request: hist(),
            counts: Counts::default(),
            drops: [0; N_REASONS],
            measured_wire: 0,
            made_wire: 0,
            delivered_wire: 0,
            delivered_payload: 0,
            hops: 0,
            open: 0,
        }
    }

    /// Measured messages still open.
    pub(super) fn outstanding(&self) -> u64 {
        self.open
    }

    /// A host made a message of `wire` bytes at `now`; `accepted`: its source queue had
    /// room.
    pub(super) fn made(&mut self, now: u64, wire: u32, measured: bool, accepted: bool) {
        self.counts.made += 1;
        if (self.win.0..self.win.1).contains(&now) {
            self.made_wire += u64::from(wire);
        }
        if !accepted {
            self.counts.refused += 1;
        }
        if measured {
            self.counts.measured += 1;
            self.measured_wire += u64::from(wire);
            if accepted {
                self.open += 1;
            } else {
                self.counts.measured_refused += 1;
            }
        }
    }

    /// A frame reached a host at `now`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn delivered(
        &mut self,
        now: u64,
        right_host: bool,
        wire: u32,
        payload: u32,
        made: u64,
        sent: u64,
        hops: u16,
        measured: bool,
    ) {
        if !right_host {
            self.counts.misdelivered += 1;
        }
        if (self.win.0..self.win.1).contains(&now) {
            self.delivered_wire += u64::from(wire);
            self.delivered_payload += u64::from(payload);
        }
        if measured {
            self.open -= 1;
            self.counts.measured_delivered += 1;
            self.hops += u64::from(hops);
            self.delay.saturating_record(now - made);
            self.network.saturating_record(now - sent);
            self.request.saturating_record(sent - made);
        }
    }

    /// A frame was dropped, counted under `reason` (an engine counter index).
    pub(super) fn dropped(&mut self, reason: usize, measured: bool) {
        if let Some(c) = self.drops.get_mut(reason) {
            *c += 1;
        }
        if measured {
            self.open -= 1;
            self.counts.measured_dropped += 1;
        }
    }

    /// The outcome, with each link's time spent sending in the window (`busy`, ps).
    pub(super) fn finish(
        mut self,
        busy: &[u64],
        ps_byte: u64,
        events: u64,
        wall: std::time::Duration,
        now: u64,
    ) -> Outcome {
        let window = (self.win.1 - self.win.0).max(1) as f64;
        let capacity = self.hosts.max(1) as f64 * window / ps_byte as f64; // bytes
        let tx_ps = self.measured_wire as f64 / self.counts.measured.max(1) as f64 * ps_byte as f64;
        let dist = |h: &Histogram<u64>| {
            let ns = |ps: u64| ps as f64 / 1000.0;
            if h.is_empty() {
                return Dist::default();
            }
            Dist {
                mean_ns: h.mean() / 1000.0,
                p50_ns: ns(h.value_at_quantile(0.5)),
                p90_ns: ns(h.value_at_quantile(0.9)),
                p99_ns: ns(h.value_at_quantile(0.99)),
                p999_ns: ns(h.value_at_quantile(0.999)),
                max_ns: ns(h.max()),
                mean_tx: h.mean() / tx_ps.max(1.0),
                p99_tx: h.value_at_quantile(0.99) as f64 / tx_ps.max(1.0),
            }
        };
        // what the links into hosts sent inside the window, pro rata for the frames on
        // the window's edges: exactly what was delivered then, one propagation delay later
        let into_hosts: u64 = busy
            .iter()
            .zip(&self.to_host)
            .filter(|(_, &h)| h)
            .map(|(&b, _)| b)
            .sum();
        let throughput = into_hosts as f64 / ps_byte as f64 / capacity;
        let payload_share = self.delivered_payload as f64 / self.delivered_wire.max(1) as f64;
        let mut tiers: Vec<(usize, f64, f64)> = vec![(0, 0.0, 0.0); self.tiers.len()];
        for (l, &b) in busy.iter().enumerate() {
            let u = b as f64 / window;
            let t = &mut tiers[usize::from(self.tier_of[l])];
            t.0 += 1;
            t.1 += u;
            t.2 = t.2.max(u);
        }
        self.counts.unfinished = self.open;
        self.counts.dropped = self
            .drops
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| (reason_name(i).to_string(), n))
            .collect();
        let wall_s = wall.as_secs_f64();
        Outcome {
            hosts: self.hosts,
            transmission_ns: tx_ps / 1000.0,
            offered: self.made_wire as f64 / capacity,
            throughput,
            goodput: throughput * payload_share,
            delay: dist(&self.delay),
            network_delay: dist(&self.network),
            request: dist(&self.request),
            mean_hops: self.hops as f64 / self.counts.measured_delivered.max(1) as f64,
            tiers: self
                .tiers
                .iter()
                .zip(tiers)
                .map(|(name, (n, sum, max))| TierUse {
                    tier: name.clone(),
                    links: n,
                    mean: sum / n.max(1) as f64,
                    max,
                })
                .collect(),
            counts: self.counts,
            events,
            simulated_us: now as f64 / 1e6,
            wall_seconds: wall_s,
            events_per_second: events as f64 / wall_s.max(1e-9),
        }
    }
}
