//! A run-to-completion worker: RX burst → decision → the egress port's queue (its own
//! port) or the (worker, egress) ring (another worker's port); then TX drain of the
//! queues and rings towards the ports it owns, in bursts, with a drain timer.

use super::adaptive::{flow_key, Adaptive};
use super::counters::{
    bump, PortCounters, WorkerCounters, OVERSIZE, PORT_DOWN, RING_FULL, TX_ERROR,
};
use super::hop::{self, Hop, HopClock};
use super::pool::{Buf, Pool};
use super::port::Port;
use super::{PortState, BURST};
use crate::decide::{decide_hops, Decision, DropReason};
use crate::table::SwitchTables;
use arc_swap::ArcSwap;
use rtrb::{Consumer, Producer};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Where a worker puts the frames it decided towards one egress port.
pub(crate) enum Egress {
    /// A port this worker owns: its queue, `queues[i]`, which the worker itself sends
    /// from (no ring between a worker and itself).
    Own(usize),
    /// A port another worker owns: the SPSC ring towards it (one producer: this
    /// worker; one consumer: the owner).
    Ring(Producer<Buf>),
}

/// One worker of one engine. Drive it with [`Worker::poll`] (the engine's threads do,
/// and so does the fabric simulation, several workers per thread).
pub struct Worker {
    pub(crate) switch_id: u32,
    pub(crate) trace: bool,
    /// The engine's tables, as last seen: one atomic load per round tells whether
    /// they were replaced (the old ones are released at this worker's next round).
    pub(crate) tables: arc_swap::Cache<Arc<ArcSwap<SwitchTables>>, Arc<SwitchTables>>,
    pub(crate) owned: Vec<(u16, Box<dyn Port>)>,
    /// Receive-only sockets of ports another worker owns (fanout replicas): polled for
    /// RX like owned ports, never transmitted on.
    pub(crate) rx_only: Vec<(u16, Box<dyn Port>)>,
    /// Where frames towards every port go (index = egress port).
    pub(crate) tx: Vec<Egress>,
    /// For each owned port (same order as `owned`): the frames this worker decided
    /// towards it, in order, at most `queue_cap`.
    pub(crate) queues: Vec<Vec<Buf>>,
    /// Capacity of each of `queues` (the engine's ring size).
    pub(crate) queue_cap: usize,
    /// For each owned port (same order as `owned`): consumers from every other worker.
    pub(crate) drain: Vec<Vec<Consumer<Buf>>>,
    pub(crate) state: Arc<[PortState]>,
    pub(crate) counters: Arc<WorkerCounters>,
    pub(crate) pool: Pool,
    /// Tie-breaking and flowlets of adaptive choices.
    pub(crate) adaptive: Adaptive,
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
    /// The live ports of the adaptive group last chosen from in the current burst…
    pub(crate) live: Vec<u16>,
    /// …and their occupancy as of the group's first frame in the burst plus the frames
    /// this burst sent to each.
    pub(crate) live_occ: Vec<usize>,
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
        let tables: &SwitchTables = self.tables.load();
        for (port_no, port) in self.owned.iter_mut().chain(self.rx_only.iter_mut()) {
            let ingress = *port_no;
            let st = &self.state[usize::from(ingress)];
            st.set_link(port.link_up());
            let n = port.rx_burst(&self.pool, &mut self.burst, BURST);
            if n == 0 {
                continue;
            }
            work += n;
            let c = &self.counters.ports[usize::from(ingress)];
            let mut bytes = 0u64;
            for b in &self.burst {
                bytes += b.len() as u64;
            }
            // the records' Poll time: read at the burst's first frame that asks for one
            let mut hop_clock: Option<HopClock> = None;
            bump(&c.rx_packets, n as u64);
            bump(&c.rx_bytes, bytes);
            if !st.admin_up() {
                bump(&c.drops[PORT_DOWN], n as u64);
                for b in self.burst.drain(..) {
                    self.pool.put(b);
                }
                continue;
            }
            // the live ports of the adaptive group last seen in this burst (`self.live`)
            // and their occupancy (`self.live_occ`): link and admin state and the
            // occupancy are read once per group per burst, not per frame; the frames
            // this burst adds to a port are counted as they go
            let mut live_of: Option<u16> = None;
            for mut b in self.burst.drain(..) {
                let mut hops = false;
                let decision = decide_hops(tables, ingress, b.bytes_mut(), &mut hops);
                // (egress, its index in `self.live` when it was chosen from the live set)
                let (e, chosen) = match decision {
                    Decision::Port(p) => (p, None),
                    Decision::Group(g) => {
                        if live_of != Some(g) {
                            live_of = Some(g);
                            self.live.clear();
                            self.live_occ.clear();
                            for &p in tables.group(g) {
                                if self.state.get(usize::from(p)).is_some_and(PortState::live) {
                                    self.live.push(p);
                                    self.live_occ.push(occupancy(
                                        &self.tx,
                                        &self.queues,
                                        &self.state,
                                        p,
                                    ));
                                }
                            }
                        }
                        let key = (gap_ns > 0).then(|| flow_key(b.bytes(), g));
                        if key.is_some() && now_ns == 0 {
                            now_ns = (self.epoch.elapsed().as_nanos() as u64).max(1);
                        }
                        let choice =
                            self.adaptive
                                .choose(&self.live, &self.live_occ, key, now_ns, gap_ns);
                        match choice {
                            Some((i, p)) => {
                                bump(&self.counters.ports[usize::from(p)].adaptive, 1);
                                (p, Some(i))
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
                    Decision::Drop(r) => {
                        bump(&c.drops[usize::from(r)], 1);
                        self.pool.put(b);
                        continue;
                    }
                };
                let Some(est) = self.state.get(usize::from(e)) else {
                    bump(&c.drops[DropReason::NoPort.index()], 1);
                    self.pool.put(b);
                    continue;
                };
                if chosen.is_none() && !est.live() {
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
                        queue: occupancy(&self.tx, &self.queues, &self.state, e),
                    };
                    hop::record(&mut b, hop_clock.get_or_insert_with(HopClock::now), &hop)
                };
                if pending {
                    est.add_hop_pending(1, true);
                }
                let refused = match self.tx.get_mut(usize::from(e)) {
                    Some(Egress::Own(i)) => match self.queues.get_mut(*i) {
                        Some(q) if q.len() < self.queue_cap => {
                            q.push(b);
                            None
                        }
                        _ => Some(b),
                    },
                    Some(Egress::Ring(ring)) => match ring.push(b) {
                        Ok(()) => None,
                        Err(rtrb::PushError::Full(b)) => Some(b),
                    },
                    None => Some(b),
                };
                match refused {
                    None => {
                        if let Some(o) = chosen.and_then(|i| self.live_occ.get_mut(i)) {
                            *o += 1;
                        }
                    }
                    Some(b) => {
                        if pending {
                            est.add_hop_pending(1, false);
                        }
                        bump(&c.drops[RING_FULL], 1);
                        self.pool.put(b);
                    }
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
        for (p, g) in self.counters.ports.iter().enumerate() {
            let occ = egress_queued(&self.tx, &self.queues, p).unwrap_or(0) as u64;
            let g = &g.ring_occupancy;
            if g.load(std::sync::atomic::Ordering::Relaxed) != occ {
                g.store(occ, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Send what waits towards the owned ports: this worker's own queue of each, then
    /// the ring from every other worker; full bursts always, partial ones when
    /// `flush_all`.
    fn drain_rings(&mut self, flush_all: bool) -> usize {
        let mut work = 0;
        let owned = self
            .owned
            .iter_mut()
            .zip(&mut self.drain)
            .zip(&mut self.queues);
        for (((port_no, port), rings), queue) in owned {
            if queue.is_empty() && rings.is_empty() {
                continue;
            }
            let e = usize::from(*port_no);
            let mut out = Out {
                up: self.state[e].live(),
                // frames towards this port wait for their hop record's TX-handoff time
                stamp: self.state[e].hop_pending() != 0,
                state: &self.state[e],
                counters: &self.counters.ports[e],
                pool: &self.pool,
                port: port.as_mut(),
            };
            let pending = queue.len();
            if pending != 0 && (pending >= BURST || flush_all) {
                let n = out.take(pending);
                if n == pending {
                    // the whole queue goes: hand it to the port as it is
                    work += out.send(queue);
                } else if n != 0 {
                    self.txbuf.extend(queue.drain(..n));
                    work += out.send(&mut self.txbuf);
                }
            }
            for ring in rings.iter_mut() {
                let pending = ring.slots();
                if pending == 0 || (pending < BURST && !flush_all) {
                    continue;
                }
                let n = out.take(pending);
                if n == 0 {
                    continue;
                }
                if let Ok(chunk) = ring.read_chunk(n) {
                    self.txbuf.extend(chunk);
                }
                work += out.send(&mut self.txbuf);
            }
        }
        work
    }

    /// True when a frame waits on an owned port or in a queue or ring towards one.
    pub fn has_pending(&self) -> bool {
        self.owned.iter().any(|(_, p)| p.rx_ready())
            || self.rx_only.iter().any(|(_, p)| p.rx_ready())
            || self.queues.iter().any(|q| !q.is_empty())
            || self.drain.iter().flatten().any(|r| !r.is_empty())
    }
}

/// One owned port during a TX drain, with what sending to it needs.
struct Out<'a> {
    /// The port is live (admin and link up).
    up: bool,
    /// Some frame towards it waits for its hop record's TX-handoff time.
    stamp: bool,
    state: &'a PortState,
    counters: &'a PortCounters,
    pool: &'a Pool,
    port: &'a mut dyn Port,
}

impl Out<'_> {
    /// How many of `pending` frames to send now: a burst at most, and no more than the
    /// port accepts; all of them when the port is down (they are dropped).
    fn take(&self, pending: usize) -> usize {
        if self.up {
            pending.min(BURST).min(self.port.tx_space())
        } else {
            pending
        }
    }

    /// Hand every frame of `batch` to the port and count it; the frames the port does
    /// not send are dropped and counted at this port: `port_down` when the link went
    /// away, `tx_error` when the backend refused them. Returns `batch`'s length.
    fn send(&mut self, batch: &mut Vec<Buf>) -> usize {
        let n = batch.len();
        let mut bytes = 0u64;
        for b in batch.iter() {
            bytes += b.len() as u64;
        }
        if self.stamp {
            // the records' TxHandoff: as the burst goes to the port
            self.state.add_hop_pending(hop::stamp_tx(batch), false);
        }
        let sent = if self.up {
            self.port.tx_burst(batch, self.pool)
        } else {
            0
        };
        let c = self.counters;
        if !batch.is_empty() {
            let reason = if self.up && self.port.link_up() {
                TX_ERROR
            } else {
                PORT_DOWN
            };
            let mut unsent_bytes = 0u64;
            for b in batch.drain(..) {
                unsent_bytes += b.len() as u64;
                self.pool.put(b);
            }
            bump(&c.drops[reason], (n - sent) as u64);
            bytes -= unsent_bytes;
        }
        bump(&c.tx_packets, sent as u64);
        bump(&c.tx_bytes, bytes);
        n
    }
}

/// Frames this worker holds towards egress `p`: its queue or its ring's occupancy.
#[inline]
fn egress_queued(tx: &[Egress], queues: &[Vec<Buf>], p: usize) -> Option<usize> {
    match tx.get(p)? {
        Egress::Own(i) => queues.get(*i).map(Vec::len),
        Egress::Ring(r) => Some(r.buffer().capacity() - r.slots()),
    }
}

/// Occupancy of egress `p` as an adaptive choice sees it: this worker's queue or ring
/// towards it plus the frames its backend holds unsent (the owner's gauge).
#[inline]
fn occupancy(tx: &[Egress], queues: &[Vec<Buf>], state: &[PortState], p: u16) -> usize {
    let i = usize::from(p);
    match (egress_queued(tx, queues, i), state.get(i)) {
        (Some(q), Some(st)) => q + st.tx_backlog(),
        _ => usize::MAX,
    }
}
