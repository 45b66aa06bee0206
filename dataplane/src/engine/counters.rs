//! Per-worker, cache-padded counters, written by one worker each (plain load + store,
//! no atomic read-modify-write) and summed by readers on any thread.

use super::port::{BackendStats, BACKEND_DROP_SLOTS};
use crate::decide::{DropReason, DROP_REASON_NAMES};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

crate::reasons::drop_reasons! {
    /// Drop reasons the engine adds to the decision's [`DROP_REASON_NAMES`]; their
    /// counters follow the decision's ([`engine_reason`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum EngineDrop {
        /// The (worker, egress port) ring was full: drop-tail.
        RingFull => "ring_full",
        /// The egress port is administratively down or has no link.
        PortDown => "port_down",
        /// The frame is longer than the egress port's MTU.
        Oversize => "oversize",
        /// The egress port's backend refused the frame at transmit while its link was up
        /// (the backend's own counters say why).
        TxError => "tx_error",
    }
}

/// Labels of the engine's own drop reasons ([`EngineDrop::NAMES`]).
pub const ENGINE_DROP_NAMES: &[&str] = &EngineDrop::NAMES;

/// Number of drop counters per port: the decision's reasons, then the engine's.
pub const N_REASONS: usize = DropReason::COUNT + EngineDrop::COUNT;

/// Counter label of drop index `i`.
pub fn reason_name(i: usize) -> &'static str {
    DROP_REASON_NAMES
        .get(i)
        .or_else(|| ENGINE_DROP_NAMES.get(i - DROP_REASON_NAMES.len().min(i)))
        .copied()
        .unwrap_or("?")
}

/// Counter index of an engine drop reason.
pub const fn engine_reason(r: EngineDrop) -> usize {
    DropReason::COUNT + r.index()
}
/// `ring_full`.
pub const RING_FULL: usize = engine_reason(EngineDrop::RingFull);
/// `port_down`.
pub const PORT_DOWN: usize = engine_reason(EngineDrop::PortDown);
/// `oversize`.
pub const OVERSIZE: usize = engine_reason(EngineDrop::Oversize);
/// `tx_error`.
pub const TX_ERROR: usize = engine_reason(EngineDrop::TxError);

/// Counters of one port in one worker.
#[derive(Debug)]
pub struct PortCounters {
    pub(crate) rx_packets: AtomicU64,
    pub(crate) rx_bytes: AtomicU64,
    pub(crate) tx_packets: AtomicU64,
    pub(crate) tx_bytes: AtomicU64,
    pub(crate) adaptive: AtomicU64,
    pub(crate) ring_occupancy: AtomicU64,
    pub(crate) drops: [AtomicU64; N_REASONS],
}

impl Default for PortCounters {
    fn default() -> Self {
        PortCounters {
            rx_packets: AtomicU64::new(0),
            rx_bytes: AtomicU64::new(0),
            tx_packets: AtomicU64::new(0),
            tx_bytes: AtomicU64::new(0),
            adaptive: AtomicU64::new(0),
            ring_occupancy: AtomicU64::new(0),
            drops: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// Single-writer increment.
#[inline]
pub(crate) fn bump(a: &AtomicU64, n: u64) {
    a.store(a.load(Relaxed).wrapping_add(n), Relaxed);
}

/// Counters of one worker: one cache-padded block per port.
#[derive(Debug)]
pub struct WorkerCounters {
    pub(crate) ports: Box<[CachePadded<PortCounters>]>,
}

impl WorkerCounters {
    pub(crate) fn new(ports: usize) -> Self {
        WorkerCounters {
            ports: (0..ports)
                .map(|_| CachePadded::new(Default::default()))
                .collect(),
        }
    }
}

/// A summed, consistent-enough snapshot of one port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Frames received.
    pub rx_packets: u64,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Frames transmitted.
    pub tx_packets: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Times an adaptive choice picked this port.
    pub adaptive_choices: u64,
    /// Frames waiting in the rings towards this port.
    pub ring_occupancy: u64,
    /// Drops of frames that arrived on this port, by reason index ([`reason_name`]).
    pub drops: Vec<u64>,
    /// Times the owning worker saw this port's link go down.
    pub link_downs: u64,
    /// Frames the port's backend holds but has not sent yet, as of the owner's last
    /// TX drain (the occupancy adaptive choices add to their own ring's).
    pub tx_backlog: u64,
    /// The backend's own counters, as of the owner's last link upkeep. Not part of
    /// rx = tx + drops: see [`BackendCounters`].
    pub backend: BackendCounters,
}

/// A port backend's own counters, copied by the owning worker during link upkeep
/// (every `EngineConfig::link_poll`, and when the engine stops).
///
/// They sit beside the engine's counters, not inside them: backend RX drops
/// (`kernel_drops`, AF_PACKET `rx_truncated`, `rx_no_buffer`, `rx_bad_block`) happen
/// before the engine receives the frame, so the engine's rx = tx + drops stays exact
/// without them; backend TX refusals (AF_PACKET `tx_ring_full`, `oversize`, `runt`,
/// `port_down`) are frames the engine also counts, as `tx_error` or `port_down` at the
/// egress port, so adding them would count those frames twice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BackendCounters {
    /// Frames the kernel dropped before the backend saw them (AF_PACKET `tp_drops`).
    pub kernel_drops: u64,
    /// Times the backend saw its link go down.
    pub link_down_events: u64,
    /// Times the backend reopened after its interface was re-created.
    pub reopens: u64,
    /// Frames the kernel handed back to the TX ring after the device or qdisc dropped
    /// them once ([`BackendStats::tx_requeues`](super::BackendStats)): attempts, not
    /// losses.
    pub tx_requeues: u64,
    /// The backend's drop counters under its own names (AF_PACKET:
    /// `PortDrop::NAMES`), in its order; empty for backends without any.
    pub drops: Vec<(&'static str, u64)>,
}

impl BackendCounters {
    /// Backend drops under `name` (0 when the backend has no such counter).
    pub fn drops_named(&self, name: &str) -> u64 {
        self.drops
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, c)| c)
            .sum()
    }
}

/// Per-port atomic copies of a backend's counters: written by the owner during upkeep
/// (plain stores), read by [`super::EngineHandle::counters`] on any thread.
#[derive(Debug)]
pub(crate) struct BackendGauges {
    names: &'static [&'static str],
    kernel_drops: AtomicU64,
    link_down_events: AtomicU64,
    reopens: AtomicU64,
    tx_requeues: AtomicU64,
    drops: [AtomicU64; BACKEND_DROP_SLOTS],
}

impl BackendGauges {
    pub(crate) fn new(names: &'static [&'static str]) -> Self {
        BackendGauges {
            names: &names[..names.len().min(BACKEND_DROP_SLOTS)],
            kernel_drops: AtomicU64::new(0),
            link_down_events: AtomicU64::new(0),
            reopens: AtomicU64::new(0),
            tx_requeues: AtomicU64::new(0),
            drops: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    pub(crate) fn store(&self, s: &BackendStats) {
        self.kernel_drops.store(s.kernel_drops, Relaxed);
        self.link_down_events.store(s.link_down_events, Relaxed);
        self.reopens.store(s.reopens, Relaxed);
        self.tx_requeues.store(s.tx_requeues, Relaxed);
        for (a, v) in self.drops.iter().zip(s.drops) {
            a.store(v, Relaxed);
        }
    }

    pub(crate) fn load(&self) -> BackendCounters {
        BackendCounters {
            kernel_drops: self.kernel_drops.load(Relaxed),
            link_down_events: self.link_down_events.load(Relaxed),
            reopens: self.reopens.load(Relaxed),
            tx_requeues: self.tx_requeues.load(Relaxed),
            drops: self
                .names
                .iter()
                .zip(self.drops.iter())
                .map(|(n, a)| (*n, a.load(Relaxed)))
                .collect(),
        }
    }
}

impl PortStats {
    /// Total drops.
    pub fn dropped(&self) -> u64 {
        self.drops.iter().sum()
    }
    /// Drops under one reason name.
    pub fn drops_named(&self, name: &str) -> u64 {
        (0..N_REASONS)
            .filter(|&i| reason_name(i) == name)
            .map(|i| self.drops[i])
            .sum()
    }
}

/// Counters of a whole engine, readable from any thread.
#[derive(Debug, Clone)]
pub struct Counters {
    pub(crate) workers: Arc<[Arc<WorkerCounters>]>,
    pub(crate) ports: usize,
}

impl Counters {
    /// Sum every worker's counters, per port.
    pub fn snapshot(&self) -> Vec<PortStats> {
        let mut out = vec![
            PortStats {
                drops: vec![0; N_REASONS],
                ..Default::default()
            };
            self.ports
        ];
        for w in self.workers.iter() {
            for (o, c) in out.iter_mut().zip(w.ports.iter()) {
                o.rx_packets += c.rx_packets.load(Relaxed);
                o.rx_bytes += c.rx_bytes.load(Relaxed);
                o.tx_packets += c.tx_packets.load(Relaxed);
                o.tx_bytes += c.tx_bytes.load(Relaxed);
                o.adaptive_choices += c.adaptive.load(Relaxed);
                o.ring_occupancy += c.ring_occupancy.load(Relaxed);
                for (d, x) in o.drops.iter_mut().zip(c.drops.iter()) {
                    *d += x.load(Relaxed);
                }
            }
        }
        out
    }
}

/// Totals over ports: (rx, tx, dropped).
pub fn totals(s: &[PortStats]) -> (u64, u64, u64) {
    s.iter().fold((0, 0, 0), |(r, t, d), p| {
        (r + p.rx_packets, t + p.tx_packets, d + p.dropped())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_index_has_one_distinct_name() {
        let names: Vec<&str> = (0..N_REASONS).map(reason_name).collect();
        let mut u = names.clone();
        u.sort_unstable();
        u.dedup();
        assert_eq!(u.len(), N_REASONS, "{names:?}");
        assert!(!names.contains(&"?"));
        assert_eq!(reason_name(N_REASONS), "?");
        assert_eq!(reason_name(RING_FULL), "ring_full");
        assert_eq!(reason_name(PORT_DOWN), "port_down");
        assert_eq!(reason_name(OVERSIZE), "oversize");
        assert_eq!(reason_name(DropReason::NoRoute.index()), "no_route");
    }

    #[test]
    fn the_index_agrees_with_the_name_of_every_variant() {
        let all = crate::decide::names_tests::every_reason();
        let mut seen: Vec<usize> = all.iter().map(DropReason::index).collect();
        for r in &all {
            assert_eq!(reason_name(r.index()), r.name(), "{r:?}");
        }
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), DROP_REASON_NAMES.len(), "every name is reached");
    }
}
