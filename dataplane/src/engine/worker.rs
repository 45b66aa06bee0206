//! A run-to-completion worker: RX burst → decision → (worker, egress) ring; then TX
//! drain of the rings towards the ports it owns, in bursts, with a drain timer.

use super::adaptive::{flow_key, least_occupied, Flowlets, XorShift};
use super::counters::{bump, WorkerCounters, OVERSIZE, PORT_DOWN, RING_FULL, TX_ERROR};
use super::hop::{self, Hop, HopClock};
use super::pool::{Buf, Pool};
use super::port::Port;
use super::{PortState, BURST};
use crate::decide::{decide_hops, DropReason, Verdict};
use crate::table::SwitchTables;
use arc_swap::ArcSwap;
use rtrb::{Consumer, Producer};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One worker of one engine. Drive it with [`Worker::poll`] (the engine's threads do,
/// and so does the fabric simulation, several workers per thread).
pub struct Worker {
    pub(crate) switch_id: u32,
    pub(crate) trace: bool,
    pub(crate) tables: Arc<ArcSwap<SwitchTables>>,
    pub(crate) owned: Vec<(u16, Box<dyn Port>)>,
    /// Receive-only sockets of ports another worker owns (fanout replicas): polled for
    /// RX like owned ports, never transmitted on.
    pub(crate) rx_only: Vec<(u16, Box<dyn Port>)>,
    /// Producers towards every port (index = egress port).
    pub(crate) tx: Vec<Producer<Buf>>,
    /// For each owned port (same order as `owned`): consumers from every worker.
    pub(crate) drain: Vec<Vec<Consumer<Buf>>>,
    pub(crate) state: Arc<[PortState]>,
    pub(crate) counters: Arc<WorkerCounters>,
    pub(crate) pool: Pool,
    pub(crate) rng: XorShift,
    pub(crate) flowlets: Flowlets,
    /// The flowlet idle gap in ns (0: every frame chooses afresh), set through
    /// [`super::EngineHandle::set_flowlet_gap`]; read once per round.
    pub(crate) flowlet_gap: Arc<AtomicU64>,
    pub(crate) drain_ns: u64,
    pub(crate) epoch: Instant,
    pub(crate) last_drain_ns: u64,
    /// Link upkeep period and when it last ran (ns since `epoch`).
    pub(crate) link_poll_ns: u64,
    pub(crate) last_upkeep_ns: u64,
    /// `last_drain_ns` as upkeep last saw it (a change = the drain timer fired).
    pub(crate) seen_drain_ns: u64,
    /// Owned ports whose published TX backlog is not 0.
    pub(crate) backlog_nonzero: usize,
    pub(crate) burst: Vec<Buf>,
    pub(crate) txbuf: Vec<Buf>,
    pub(crate) live: Vec<u16>,
}

impl Worker {
    /// Ports this worker receives from and transmits on.
    pub fn ports(&mut self) -> impl Iterator<Item = &mut Box<dyn Port>> {
        self.owned
            .iter_mut()
            .chain(self.rx_only.iter_mut())
            .map(|(_, p)| p)
    }

    /// One round: receive a burst on every owned port and forward it, then drain the
    /// rings. Returns the number of frames received and transmitted (0 = idle).
    pub fn poll(&mut self) -> usize {
        // the clock is read at most once per round, and only when a frame's flowlet
        // needs it or the drain timer does (0 = not read yet): an idle round reads none
        let gap_ns = self.flowlet_gap.load(Ordering::Relaxed);
        let mut now_ns = 0u64;
        let mut work = 0;
        for (port_no, port) in self.owned.iter_mut().chain(self.rx_only.iter_mut()) {
            let ingress = *port_no;
            let st = &self.state[usize::from(ingress)];
            st.set_link(port.link_up());
            let n = port.rx_burst(&self.pool, &mut self.burst, BURST);
            if n == 0 {
                continue;
            }
            work += n;
            let tables = self.tables.load();
            let c = &self.counters.ports[usize::from(ingress)];
            let mut bytes = 0u64;
            for b in &self.burst {
                bytes += b.len() as u64;
            }
            // the records' Poll time: read at the burst's first frame that asks for one
            let mut hop_clock: Option<HopClock> = None;
            bump(&c.rx_packets, n as u64);
            bump(&c.rx_bytes, bytes);
            let admin_in = st.admin_up();
            for mut b in self.burst.drain(..) {
                if !admin_in {
                    bump(&c.drops[PORT_DOWN], 1);
                    self.pool.put(b);
                    continue;
                }
                let mut hops = false;
                let verdict = decide_hops(&tables, ingress, b.bytes_mut(), &mut hops);
                // (egress, already known live: adaptive choices come from the live set)
                let (e, checked) = match verdict {
                    Verdict::Port(p) => (p, false),
                    Verdict::Group(g) => {
                        self.live.clear();
                        for &p in tables.group(g) {
                            if self.state.get(usize::from(p)).is_some_and(PortState::live) {
                                self.live.push(p);
                            }
                        }
                        let key = (gap_ns > 0).then(|| flow_key(b.bytes(), g));
                        if key.is_some() && now_ns == 0 {
                            now_ns = (self.epoch.elapsed().as_nanos() as u64).max(1);
                        }
                        let pinned =
                            key.and_then(|k| self.flowlets.lookup(k, now_ns, gap_ns, &self.live));
                        let (tx, state) = (&self.tx, &self.state);
                        let choice = pinned.or_else(|| {
                            least_occupied(&self.live, &mut self.rng, |p| occupancy(tx, state, p))
                        });
                        match choice {
                            Some(p) => {
                                if let Some(k) = key {
                                    self.flowlets.record(k, now_ns, gap_ns, p);
                                }
                                bump(&self.counters.ports[usize::from(p)].adaptive, 1);
                                (p, true)
                            }
                            None if tables.group(g).is_empty() => {
                                bump(&c.drops[DropReason::NoPort.index()], 1);
                                self.pool.put(b);
                                continue;
                            }
                            None => {
                                bump(&c.drops[PORT_DOWN], 1);
                                self.pool.put(b);
                                continue;
                            }
                        }
                    }
                    Verdict::Drop(r) => {
                        bump(&c.drops[r.index()], 1);
                        self.pool.put(b);
                        continue;
                    }
                };
                let (Some(ring), Some(est)) = (
                    self.tx.get_mut(usize::from(e)),
                    self.state.get(usize::from(e)),
                ) else {
                    bump(&c.drops[DropReason::NoPort.index()], 1);
                    self.pool.put(b);
                    continue;
                };
                if !checked && !est.live() {
                    bump(&c.drops[PORT_DOWN], 1);
                    self.pool.put(b);
                    continue;
                }
                if b.len() > est.mtu {
                    bump(&c.drops[OVERSIZE], 1);
                    self.pool.put(b);
                    continue;
                }
                if self.trace {
                    b.push_trace((self.switch_id, ingress, e));
                }
                let pending = hops && {
                    let hop = Hop {
                        switch: self.switch_id,
                        ingress,
                        egress: e,
                        queue: ring.buffer().capacity() - ring.slots() + est.tx_backlog(),
                    };
                    hop::record(&mut b, hop_clock.get_or_insert_with(HopClock::now), &hop)
                };
                if pending {
                    est.add_hop_pending(1, true);
                }
                if let Err(rtrb::PushError::Full(b)) = ring.push(b) {
                    if pending {
                        est.add_hop_pending(1, false);
                    }
                    bump(&c.drops[RING_FULL], 1);
                    self.pool.put(b);
                }
            }
        }
        // TX drain: full bursts always; partial ones when the timer expired or RX idle.
        let flush_all = if work == 0 {
            true
        } else {
            if now_ns == 0 {
                now_ns = self.epoch.elapsed().as_nanos() as u64;
            }
            let due = now_ns.saturating_sub(self.last_drain_ns) >= self.drain_ns;
            if due {
                self.last_drain_ns = now_ns;
            }
            due
        };
        let work = work + self.drain_rings(flush_all);
        if work > 0 {
            self.update_gauges();
        }
        self.publish_tx_backlog(work > 0);
        work
    }

    /// After the TX drain: publish each owned port's backend TX backlog in its
    /// `PortState` gauge (a plain store, only when it changed). On idle rounds only
    /// while some gauge of this worker is not 0 yet (a backlog grows only by
    /// transmitting), so an idle round costs one compare.
    fn publish_tx_backlog(&mut self, busy: bool) {
        if !busy && self.backlog_nonzero == 0 {
            return;
        }
        let mut nonzero = 0;
        for (port_no, port) in self.owned.iter_mut() {
            let n = port.tx_backlog();
            self.state[usize::from(*port_no)].set_tx_backlog(n);
            nonzero += usize::from(n != 0);
        }
        self.backlog_nonzero = nonzero;
    }

    /// Link upkeep, off the fast path: every `link_poll`, run [`Port::maintain`] on
    /// each owned port, update its link state and copy the backend's counters. Reads
    /// the clock only on `idle` rounds; on busy rounds it reuses the drain timer's
    /// reading when that fired since the last call, and does nothing otherwise.
    /// `force` runs it now (a port's fd reported an error). Returns true when a port's
    /// fd changed (re-register it for epoll).
    pub fn upkeep(&mut self, idle: bool, force: bool) -> bool {
        self.upkeep_at(idle, force, &mut None)
    }

    /// [`Worker::upkeep`] with the round's clock reading shared by the workers of a
    /// thread: read at most once per round (`clock` filled by the first worker that
    /// needs it), so a thread polling many switches does not read the clock per switch.
    pub fn upkeep_at(&mut self, idle: bool, force: bool, clock: &mut Option<Instant>) -> bool {
        let now = if self.last_drain_ns != self.seen_drain_ns {
            self.seen_drain_ns = self.last_drain_ns;
            self.last_drain_ns
        } else if idle || force {
            let t = *clock.get_or_insert_with(Instant::now);
            t.saturating_duration_since(self.epoch).as_nanos() as u64
        } else {
            return false;
        };
        if !force && now.saturating_sub(self.last_upkeep_ns) < self.link_poll_ns {
            return false;
        }
        self.last_upkeep_ns = now;
        self.maintain_ports()
    }

    /// Run [`Port::maintain`] on every owned port now; see [`Worker::upkeep`].
    pub fn maintain_ports(&mut self) -> bool {
        let mut changed = false;
        for (port_no, port) in self.owned.iter_mut() {
            let ev = port.maintain();
            changed |= ev.fd_changed();
            let st = &self.state[usize::from(*port_no)];
            st.set_link(port.link_up());
            if let Some(b) = port.backend_stats() {
                st.backend.store(&b);
            }
        }
        // replicas: reopen and link state only (their counters are not the port's)
        for (port_no, port) in self.rx_only.iter_mut() {
            changed |= port.maintain().fd_changed();
            self.state[usize::from(*port_no)].set_link(port.link_up());
        }
        changed
    }

    /// Copy every owned port's backend counters into the engine's gauges now.
    pub fn publish_backend_stats(&mut self) {
        for (port_no, port) in self.owned.iter_mut() {
            if let Some(b) = port.backend_stats() {
                self.state[usize::from(*port_no)].backend.store(&b);
            }
        }
    }

    fn update_gauges(&self) {
        for (p, r) in self.tx.iter().enumerate() {
            let occ = (r.buffer().capacity() - r.slots()) as u64;
            let g = &self.counters.ports[p].ring_occupancy;
            if g.load(std::sync::atomic::Ordering::Relaxed) != occ {
                g.store(occ, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    fn drain_rings(&mut self, flush_all: bool) -> usize {
        let mut work = 0;
        for ((port_no, port), rings) in self.owned.iter_mut().zip(self.drain.iter_mut()) {
            let e = *port_no;
            let est = &self.state[usize::from(e)];
            let up = est.live();
            // frames towards this port wait for their hop record's TX-handoff time
            let stamp = est.hop_pending() != 0;
            for ring in rings.iter_mut() {
                let pending = ring.slots();
                if pending == 0 || (pending < BURST && !flush_all) {
                    continue;
                }
                let n = if up {
                    pending.min(BURST).min(port.tx_space())
                } else {
                    pending
                };
                if n == 0 {
                    continue;
                }
                if let Ok(chunk) = ring.read_chunk(n) {
                    self.txbuf.extend(chunk);
                }
                let mut bytes = 0u64;
                for b in &self.txbuf {
                    bytes += b.len() as u64;
                }
                if stamp {
                    // the records' TxHandoff: as the burst goes to the port
                    est.add_hop_pending(hop::stamp_tx(&mut self.txbuf), false);
                }
                let sent = if up {
                    port.tx_burst(&mut self.txbuf, &self.pool)
                } else {
                    0
                };
                let c = &self.counters.ports[usize::from(e)];
                // unsent frames are dropped and counted at the egress: `port_down` when
                // the link went away, `tx_error` when the backend refused them
                let reason = if up && port.link_up() {
                    TX_ERROR
                } else {
                    PORT_DOWN
                };
                let mut unsent_bytes = 0u64;
                for b in self.txbuf.drain(..) {
                    unsent_bytes += b.len() as u64;
                    bump(&c.drops[reason], 1);
                    self.pool.put(b);
                }
                bump(&c.tx_packets, sent as u64);
                bump(&c.tx_bytes, bytes - unsent_bytes);
                work += n;
            }
        }
        work
    }

    /// True when a frame waits on an owned port or in a ring towards one.
    pub fn has_pending(&self) -> bool {
        self.owned.iter().any(|(_, p)| p.rx_ready())
            || self.rx_only.iter().any(|(_, p)| p.rx_ready())
            || self.drain.iter().flatten().any(|r| !r.is_empty())
    }
}

/// Occupancy of egress `p` as an adaptive choice sees it: this worker's ring towards
/// it plus the frames its backend holds unsent (the owner's gauge).
#[inline]
fn occupancy(tx: &[Producer<Buf>], state: &[PortState], p: u16) -> usize {
    let i = usize::from(p);
    match (tx.get(i), state.get(i)) {
        (Some(r), Some(st)) => r.buffer().capacity() - r.slots() + st.tx_backlog(),
        _ => usize::MAX,
    }
}
