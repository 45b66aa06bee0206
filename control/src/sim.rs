//! Fabric in one process: every switch of a [`Topology`] runs a
//! [`canopy_dataplane::engine`] with its [`kinds::tables`], switches and hosts joined
//! by `mem` ports. Hosts are in-process sources and sinks. Frames carry the engine's
//! hop trace so each delivery can be replayed against the model, hop for hop.

use crate::kinds::{self, KindError};
use crate::oracle::{host_mac, PAYLOAD};
use crate::topology::{Peer, PortDir, Topology};
use canopy_dataplane::engine::{
    self, mem, Buf, Engine, EngineConfig, EngineHandle, Pool, Port, PortStats, Worker,
};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};

/// Simulation errors.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Tables or headers could not be made.
    #[error(transparent)]
    Kind(#[from] KindError),
    /// An engine could not be built.
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
}

/// One switch of `t` on its own: a `mem` port pair per switch port, the switch's ends
/// (for an [`Engine`](canopy_dataplane::engine::Engine)) and the outer ends (for the caller
/// to feed and drain), with rings of `cap` frames, plus `(port, host)` for every port that
/// leads to a host. Benchmarks and single-switch tests use it.
pub fn isolated_switch(t: &Topology, sw: usize, cap: usize) -> IsolatedSwitch {
    let s = &t.switches[sw];
    let mut outer = Vec::with_capacity(s.ports.len());
    let mut ports: Vec<Box<dyn Port>> = Vec::with_capacity(s.ports.len());
    for i in 0..s.ports.len() {
        let (a, b) = mem::pair(&format!("p{i}"), &format!("x{i}"), cap);
        ports.push(Box::new(a));
        outer.push(b);
    }
    let hosts = s
        .ports
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p.peer {
            Peer::Host { host, .. } => Some((i, host)),
            _ => None,
        })
        .collect();
    IsolatedSwitch {
        ports,
        outer,
        hosts,
    }
}

/// See [`isolated_switch`].
pub struct IsolatedSwitch {
    /// The switch's ends, in port order.
    pub ports: Vec<Box<dyn Port>>,
    /// The far ends, in port order.
    pub outer: Vec<mem::MemPort>,
    /// `(port, host)` for every port that leads to a host.
    pub hosts: Vec<(usize, u32)>,
}

/// A whole fabric in one process.
pub struct Fabric<'a> {
    topo: &'a Topology,
    kind: Kind,
    tables: Vec<SwitchTables>,
    /// One worker per switch (index = switch index).
    pub workers: Vec<Worker>,
    /// One control handle per switch.
    pub handles: Vec<EngineHandle>,
    /// Host ports: `hosts[h][port]` (None when not connected).
    pub hosts: Vec<Vec<Option<mem::MemPort>>>,
    /// The shared buffer pool.
    pub pool: Pool,
}

/// A frame that reached a host.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// Host it reached.
    pub host: u32,
    /// Frame bytes as delivered.
    pub frame: Vec<u8>,
    /// (switch, ingress, egress) per hop.
    pub trace: Vec<(u32, u16, u16)>,
}

impl<'a> Fabric<'a> {
    /// Build the fabric for `kind`, with hop tracing when `trace`.
    pub fn new(topo: &'a Topology, kind: Kind, trace: bool, ring: usize) -> Result<Self, SimError> {
        let cfg = EngineConfig {
            trace,
            ring_size: ring,
            ..EngineConfig::default()
        };
        Self::with_config(topo, kind, &cfg)
    }

    /// Build the fabric with `cfg` for every switch (its `switch_id` and `seed` are
    /// set per switch; its `ring_size` also sizes the links).
    pub fn with_config(
        topo: &'a Topology,
        kind: Kind,
        cfg: &EngineConfig,
    ) -> Result<Self, SimError> {
        let ring = cfg.ring_size;
        let tables = kinds::tables(topo, kind)?;
        let pool = Pool::new(64 * 1024);
        // one mem pair per link; ports[sw][p] and hosts[h][p]
        let mut sw_ports: Vec<Vec<Option<mem::MemPort>>> = topo
            .switches
            .iter()
            .map(|s| (0..s.ports.len()).map(|_| None).collect())
            .collect();
        let mut host_ports: Vec<Vec<Option<mem::MemPort>>> = topo
            .hosts
            .iter()
            .map(|h| (0..h.ports.len()).map(|_| None).collect())
            .collect();
        for (si, s) in topo.switches.iter().enumerate() {
            for (pi, p) in s.ports.iter().enumerate() {
                if sw_ports[si][pi].is_some() {
                    continue;
                }
                let me = format!("{}.p{pi}", s.name);
                match p.peer {
                    Peer::Switch { sw, port } => {
                        let (a, b) = mem::pair(&me, &format!("s{sw}.p{port}"), ring);
                        sw_ports[si][pi] = Some(a);
                        sw_ports[sw as usize][usize::from(port)] = Some(b);
                    }
                    Peer::Host { host, port } => {
                        let (a, b) = mem::pair(&me, &format!("h{host}.p{port}"), ring);
                        sw_ports[si][pi] = Some(a);
                        host_ports[host as usize][usize::from(port)] = Some(b);
                    }
                    Peer::None => {
                        let (a, _b) = mem::pair(&me, "none", 1);
                        a.link().set_up(false);
                        sw_ports[si][pi] = Some(a);
                    }
                }
            }
        }
        let mut workers = Vec::new();
        let mut handles = Vec::new();
        for (si, (t, ports)) in tables.iter().zip(sw_ports).enumerate() {
            let ports: Vec<Box<dyn Port>> = ports
                .into_iter()
                .map(|p| Box::new(p.expect("every switch port was given a mem port")) as _)
                .collect();
            let cfg = EngineConfig {
                switch_id: si as u32,
                seed: cfg.seed ^ (si as u64 + 1),
                ..cfg.clone()
            };
            let e = Engine::new(t.clone(), ports, pool.clone(), &cfg)?;
            handles.push(e.handle());
            workers.extend(e.workers);
        }
        Ok(Fabric {
            topo,
            kind,
            tables,
            workers,
            handles,
            hosts: host_ports,
            pool,
        })
    }

    /// The frame host `src` sends to `dst` (Ethernet + the kind's header + payload).
    pub fn frame(&self, src: u32, dst: u32) -> Result<Vec<u8>, KindError> {
        let h = kinds::header(self.topo, self.kind, src, dst)?;
        Ok(wire::ethernet_frame(
            host_mac(self.topo, dst),
            host_mac(self.topo, src),
            &h,
            &PAYLOAD,
        ))
    }

    /// Host port `src` transmits on (the first connected transmit port).
    pub fn inject_port(&self, src: u32) -> Option<u16> {
        self.topo.hosts[src as usize]
            .ports
            .iter()
            .position(|p| p.dir != PortDir::In && p.peer != Peer::None)
            .map(|p| p as u16)
    }

    /// Inject `frame` at host `src`. `false` when no buffer, port or ring space.
    pub fn send(&mut self, src: u32, frame: &[u8]) -> bool {
        let Some(p) = self.inject_port(src) else {
            return false;
        };
        let Some(port) = self.hosts[src as usize][usize::from(p)].as_mut() else {
            return false;
        };
        let Some(mut b) = self.pool.get() else {
            return false;
        };
        if !b.fill(frame) {
            self.pool.put(b);
            return false;
        }
        match port.send(b) {
            Ok(()) => true,
            Err(b) => {
                self.pool.put(b);
                false
            }
        }
    }

    /// Poll every switch until a full round does nothing.
    pub fn run_until_idle(&mut self) {
        loop {
            let mut work = 0;
            for w in self.workers.iter_mut() {
                work += w.poll();
            }
            if work == 0 {
                break;
            }
        }
    }

    /// Take every frame waiting at the hosts, calling `f` with each.
    pub fn collect(&mut self, mut f: impl FnMut(u32, &Buf)) {
        for (h, ports) in self.hosts.iter_mut().enumerate() {
            for p in ports.iter_mut().flatten() {
                while let Some(b) = p.recv() {
                    f(h as u32, &b);
                    self.pool.put(b);
                }
            }
        }
    }

    /// Counters of every switch.
    pub fn counters(&self) -> Vec<Vec<PortStats>> {
        self.handles.iter().map(EngineHandle::counters).collect()
    }

    /// Check that every switch conserves frames: rx = tx + drops, exactly.
    pub fn check_conservation(&self) -> Result<(), String> {
        for (i, c) in self.counters().iter().enumerate() {
            let (rx, tx, d) = engine::counters::totals(c);
            if rx != tx + d {
                return Err(format!(
                    "switch {}: rx {rx} != tx {tx} + dropped {d}",
                    self.topo.switches[i].name
                ));
            }
        }
        Ok(())
    }

    /// Replay a delivery against the model: the frame `src` sent to `dst` must enter
    /// the first traced switch, each hop's egress must be the model decision's port
    /// (or a member of its group), each egress must lead to the next traced hop and the
    /// last to `dst`, and the delivered bytes must equal the replayed frame.
    pub fn verify(&self, src: u32, dst: u32, d: &Delivery) -> Result<(), String> {
        let t = self.topo;
        let mut frame = self.frame(src, dst).map_err(|e| e.to_string())?;
        let p = self.inject_port(src).ok_or("no inject port")?;
        let mut at = t.hosts[src as usize].ports[usize::from(p)].peer;
        for &(sw, ingress, egress) in &d.trace {
            if at != (Peer::Switch { sw, port: ingress }) {
                return Err(format!(
                    "h{src}->h{dst}: expected {at:?}, trace has s{sw}.p{ingress}"
                ));
            }
            let tab = &self.tables[sw as usize];
            match decide(tab, ingress, &mut frame) {
                Verdict::Port(q) if q == egress => {}
                Verdict::Group(g) if tab.group(g).contains(&egress) => {}
                v => {
                    return Err(format!(
                        "h{src}->h{dst}: s{sw} model says {v:?}, engine sent p{egress}"
                    ))
                }
            }
            at = t.switches[sw as usize].ports[usize::from(egress)].peer;
        }
        match at {
            Peer::Host { host, .. } if host == dst && d.host == dst => {}
            other => {
                return Err(format!(
                    "h{src}->h{dst}: ended at {other:?}, delivered to h{}",
                    d.host
                ))
            }
        }
        if frame != d.frame {
            return Err(format!(
                "h{src}->h{dst}: delivered bytes differ from the model's"
            ));
        }
        Ok(())
    }
}

/// Result of [`Fabric::run_traffic`].
#[derive(Debug, Clone, Default)]
pub struct TrafficReport {
    /// Frames the sources injected.
    pub sent: u64,
    /// Frames that reached the host they were addressed to.
    pub delivered: u64,
    /// Frames that reached another host (must be 0).
    pub misdelivered: u64,
    /// Frames the switches dropped (all reasons).
    pub dropped: u64,
    /// Time from the first injection until the fabric drained.
    pub elapsed: std::time::Duration,
}

impl TrafficReport {
    /// Delivered frames per second, in millions.
    pub fn mpps(&self) -> f64 {
        self.delivered as f64 / self.elapsed.as_secs_f64() / 1e6
    }
}

struct Lane {
    workers: Vec<Worker>,
    hosts: Vec<(u32, usize, Vec<Option<mem::MemPort>>)>, // (host, inject port, ports)
}

impl Fabric<'_> {
    /// Uniform random traffic: every host sends frames to random other hosts for
    /// `duration`, switches and hosts spread over `threads` threads (each thread polls
    /// its switches and serves its hosts as sources and sinks, run to completion).
    /// `during` runs on the calling thread while traffic flows (e.g. table swaps).
    /// Returns once every injected frame was delivered or dropped.
    pub fn run_traffic(
        self,
        threads: usize,
        duration: std::time::Duration,
        seed: u64,
        during: impl FnOnce(&[EngineHandle]),
    ) -> Result<(TrafficReport, Vec<Vec<PortStats>>), SimError> {
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        use std::sync::Arc;
        let threads = threads.max(1);
        let n = self.topo.hosts.len() as u32;
        let injects: Vec<Option<u16>> = (0..n).map(|h| self.inject_port(h)).collect();
        // every (src, dst) frame, prebuilt
        let mut frames: Vec<Vec<Vec<u8>>> = Vec::with_capacity(n as usize);
        for s in 0..n {
            let mut row = Vec::with_capacity(n as usize);
            for d in 0..n {
                row.push(if s == d {
                    Vec::new()
                } else {
                    self.frame(s, d)?
                });
            }
            frames.push(row);
        }
        let frames = Arc::new(frames);
        let macs: Arc<Vec<[u8; 6]>> = Arc::new((0..n).map(|h| host_mac(self.topo, h)).collect());
        let mut lanes: Vec<Lane> = (0..threads)
            .map(|_| Lane {
                workers: Vec::new(),
                hosts: Vec::new(),
            })
            .collect();
        // contiguous blocks of switches per thread (generators number switches zone by
        // zone, so most links stay inside one thread); hosts go with their first switch
        let ns = self.workers.len().max(1);
        let lane_of = |sw: usize| sw * threads / ns;
        for (i, w) in self.workers.into_iter().enumerate() {
            lanes[lane_of(i)].workers.push(w);
        }
        for (h, ports) in self.hosts.into_iter().enumerate() {
            let lane = self.topo.hosts[h]
                .ports
                .iter()
                .find_map(|p| match p.peer {
                    Peer::Switch { sw, .. } => Some(lane_of(sw as usize)),
                    _ => None,
                })
                .unwrap_or(h % threads);
            if let Some(inj) = injects[h] {
                lanes[lane].hosts.push((h as u32, usize::from(inj), ports));
            }
        }
        let stop_send = Arc::new(AtomicBool::new(false));
        let sent = Arc::new(AtomicU64::new(0));
        let delivered = Arc::new(AtomicU64::new(0));
        let misdelivered = Arc::new(AtomicU64::new(0));
        let handles = self.handles.clone();
        let total_drops = move || -> u64 {
            handles
                .iter()
                .map(|h| h.counters().iter().map(PortStats::dropped).sum::<u64>())
                .sum()
        };
        let start = std::time::Instant::now();
        let mut joins = Vec::new();
        for (li, mut lane) in lanes.into_iter().enumerate() {
            let (frames, macs, pool) = (frames.clone(), macs.clone(), self.pool.clone());
            let (stop_send, sent, delivered, mis) = (
                stop_send.clone(),
                sent.clone(),
                delivered.clone(),
                misdelivered.clone(),
            );
            joins.push(std::thread::spawn(move || {
                let mut rng = engine::adaptive::XorShift::new(seed ^ ((li as u64 + 1) * 0x9E37));
                let (mut my_sent, mut my_del, mut my_mis) = (0u64, 0u64, 0u64);
                let mut idle_rounds = 0u32;
                loop {
                    let sending = !stop_send.load(Ordering::Relaxed);
                    let mut work = 0usize;
                    for (h, inj, ports) in lane.hosts.iter_mut() {
                        for p in ports.iter_mut().flatten() {
                            while let Some(b) = p.recv() {
                                if b.bytes().get(..6) == Some(&macs[*h as usize][..]) {
                                    my_del += 1;
                                } else {
                                    my_mis += 1;
                                }
                                pool.put(b);
                                work += 1;
                            }
                        }
                        if sending && n > 1 {
                            for _ in 0..8 {
                                let mut d = rng.below(n as usize - 1) as u32;
                                if d >= *h {
                                    d += 1;
                                }
                                let Some(mut b) = pool.get() else { break };
                                b.fill(&frames[*h as usize][d as usize]);
                                let Some(tx) = ports[*inj].as_mut() else {
                                    pool.put(b);
                                    break;
                                };
                                match tx.send(b) {
                                    Ok(()) => my_sent += 1,
                                    Err(b) => {
                                        pool.put(b);
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    for w in lane.workers.iter_mut() {
                        work += w.poll();
                    }
                    if (my_sent > 0 && work == 0) || my_del + my_mis >= 4096 {
                        sent.fetch_add(std::mem::take(&mut my_sent), Ordering::Relaxed);
                        delivered.fetch_add(std::mem::take(&mut my_del), Ordering::Relaxed);
                        mis.fetch_add(std::mem::take(&mut my_mis), Ordering::Relaxed);
                    }
                    if !sending && work == 0 {
                        idle_rounds += 1;
                        if idle_rounds > 1000 {
                            break;
                        }
                    } else {
                        idle_rounds = 0;
                    }
                }
                sent.fetch_add(my_sent, Ordering::Relaxed);
                delivered.fetch_add(my_del, Ordering::Relaxed);
                mis.fetch_add(my_mis, Ordering::Relaxed);
                lane
            }));
        }
        during(&self.handles);
        let left = duration.saturating_sub(start.elapsed());
        std::thread::sleep(left);
        stop_send.store(true, Ordering::Relaxed);
        let mut lanes = Vec::new();
        for j in joins {
            lanes.push(j.join().map_err(|_| {
                SimError::Engine(engine::EngineError::Config("a simulation thread panicked"))
            })?);
        }
        // threads stop on local idleness; finish whatever is still in flight
        loop {
            let mut work = 0;
            for lane in lanes.iter_mut() {
                for (h, _, ports) in lane.hosts.iter_mut() {
                    for p in ports.iter_mut().flatten() {
                        while let Some(b) = p.recv() {
                            if b.bytes().get(..6) == Some(&macs[*h as usize][..]) {
                                delivered.fetch_add(1, Ordering::Relaxed);
                            } else {
                                misdelivered.fetch_add(1, Ordering::Relaxed);
                            }
                            self.pool.put(b);
                            work += 1;
                        }
                    }
                }
                for w in lane.workers.iter_mut() {
                    work += w.poll();
                }
            }
            if work == 0 {
                break;
            }
        }
        let elapsed = start.elapsed();
        let report = TrafficReport {
            sent: sent.load(Ordering::Relaxed),
            delivered: delivered.load(Ordering::Relaxed),
            misdelivered: misdelivered.load(Ordering::Relaxed),
            dropped: total_drops(),
            elapsed,
        };
        let counters = self.handles.iter().map(EngineHandle::counters).collect();
        Ok((report, counters))
    }
}
