//! Fabric in one process: every switch of a [`Topology`] runs a
//! [`canopy_dataplane::engine`] with its [`kinds::tables`], switches and hosts joined
//! by `mem` ports. Hosts are in-process sources and sinks. Frames carry the engine's
//! hop trace so each delivery can be replayed against the model, hop for hop.

use crate::kinds::{self, KindError};
use crate::oracle::{host_mac, PAYLOAD};
use crate::topology::{Peer, Topology};
use canopy_dataplane::engine::{
    self, mem, Buf, Engine, EngineConfig, EngineHandle, Pool, PoolCache, Port, PortStats, Worker,
};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Simulation errors.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Tables or headers could not be made.
    #[error(transparent)]
    Kind(#[from] KindError),
    /// An engine could not be built.
    #[error(transparent)]
    Engine(#[from] engine::EngineError),
    /// A switch's counters do not add up: rx != tx + drops.
    #[error("switch {switch}: rx {rx} != tx {tx} + dropped {dropped}")]
    Conservation {
        /// Switch name.
        switch: String,
        /// Frames received.
        rx: u64,
        /// Frames sent.
        tx: u64,
        /// Frames dropped.
        dropped: u64,
    },
    /// A delivery does not replay against the model ([`Fabric::verify`]).
    #[error("h{src}->h{dst}: {why}")]
    Replay {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Where the engine and the model part.
        why: ReplayMismatch,
    },
}

/// Where a delivery's trace parts from the model ([`SimError::Replay`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayMismatch {
    /// The source host has no port to transmit on.
    #[error("no inject port")]
    NoInjectPort,
    /// The trace enters a switch port the previous hop does not lead to.
    #[error("expected {expected:?}, trace has s{switch}.p{ingress}")]
    Ingress {
        /// Where the previous hop leads.
        expected: Peer,
        /// Traced switch.
        switch: u32,
        /// Traced ingress port.
        ingress: u16,
    },
    /// The engine sent the frame out of a port the model does not choose.
    #[error("s{switch} model says {model:?}, engine sent p{egress}")]
    Egress {
        /// Switch index.
        switch: u32,
        /// The model's decision.
        model: Verdict,
        /// The engine's egress port.
        egress: u16,
    },
    /// The trace does not end at the destination.
    #[error("ended at {end:?}, delivered to h{delivered}")]
    End {
        /// Where the traced path ends.
        end: Peer,
        /// Host the frame was delivered to.
        delivered: u32,
    },
    /// The delivered bytes are not the model's.
    #[error("delivered bytes differ from the model's")]
    Bytes,
}

/// One switch of `t` on its own: a `mem` port pair per switch port, the switch's ends
/// (for an [`Engine`]) and the outer ends (for the caller
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
    let hosts = s.host_ports();
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
        self.topo.hosts.get(src as usize)?.inject_port()
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
    pub fn check_conservation(&self) -> Result<(), SimError> {
        for (i, c) in self.counters().iter().enumerate() {
            let (rx, tx, dropped) = engine::counters::totals(c);
            if rx != tx + dropped {
                return Err(SimError::Conservation {
                    switch: self.topo.switches[i].name.clone(),
                    rx,
                    tx,
                    dropped,
                });
            }
        }
        Ok(())
    }

    /// Replay a delivery against the model: the frame `src` sent to `dst` must enter
    /// the first traced switch, each hop's egress must be the model decision's port
    /// (or a member of its group), each egress must lead to the next traced hop and the
    /// last to `dst`, and the delivered bytes must equal the replayed frame.
    pub fn verify(&self, src: u32, dst: u32, d: &Delivery) -> Result<(), SimError> {
        let t = self.topo;
        let mut frame = self.frame(src, dst)?;
        let bad = |why| SimError::Replay { src, dst, why };
        let p = self
            .inject_port(src)
            .ok_or(bad(ReplayMismatch::NoInjectPort))?;
        let mut at = t.hosts[src as usize].ports[usize::from(p)].peer;
        for &(sw, ingress, egress) in &d.trace {
            if at != (Peer::Switch { sw, port: ingress }) {
                return Err(bad(ReplayMismatch::Ingress {
                    expected: at,
                    switch: sw,
                    ingress,
                }));
            }
            let tab = &self.tables[sw as usize];
            match decide(tab, ingress, &mut frame) {
                Verdict::Port(q) if q == egress => {}
                Verdict::Group(g) if tab.group(g).contains(&egress) => {}
                model => {
                    return Err(bad(ReplayMismatch::Egress {
                        switch: sw,
                        model,
                        egress,
                    }))
                }
            }
            at = t.switches[sw as usize].ports[usize::from(egress)].peer;
        }
        match at {
            Peer::Host { host, .. } if host == dst && d.host == dst => {}
            end => {
                return Err(bad(ReplayMismatch::End {
                    end,
                    delivered: d.host,
                }))
            }
        }
        if frame != d.frame {
            return Err(bad(ReplayMismatch::Bytes));
        }
        Ok(())
    }
}

/// Result of [`Fabric::run_traffic`]. Serialized (for `canopyctl sim --json`) with its
/// field names, `elapsed` as `elapsed_seconds`, a number.
#[derive(Debug, Clone, Default, serde::Serialize)]
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
    #[serde(rename = "elapsed_seconds", serialize_with = "seconds")]
    pub elapsed: std::time::Duration,
}

/// A duration serialized as seconds.
fn seconds<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl TrafficReport {
    /// Delivered frames per second, in millions.
    pub fn mpps(&self) -> f64 {
        self.delivered as f64 / self.elapsed.as_secs_f64() / 1e6
    }
}

/// Up to this many hosts, every source sends to every other host, uniformly at random;
/// beyond it each source draws [`DEST_SAMPLE`] destinations uniformly at random once and
/// sends to those uniformly (the prebuilt frames would otherwise grow with hosts²).
pub const FULL_TABLE_HOSTS: usize = 1024;
/// Destinations per source above [`FULL_TABLE_HOSTS`] hosts.
pub const DEST_SAMPLE: usize = 64;

/// Options of [`Fabric::run`].
#[derive(Debug, Clone)]
pub struct TrafficOptions {
    /// Threads the switches and hosts are spread over.
    pub threads: usize,
    /// How long the sources send.
    pub duration: std::time::Duration,
    /// Seed of the sources' destination choices.
    pub seed: u64,
    /// Frame size on the wire, FCS included (64 → 60-byte frames); the payload is
    /// zero-filled up to it. Frames never get shorter than header + Ethernet minimum.
    pub frame_size: usize,
    /// A source sends only while fewer than this many of its frames wait in its link
    /// to the first switch (a NIC's TX queue): frames beyond what the fabric carries
    /// would only sit in queues and push the working set out of the caches. Capped so
    /// that all sources together queue at most a quarter of the buffer pool.
    pub window: usize,
}

impl Default for TrafficOptions {
    fn default() -> Self {
        TrafficOptions {
            threads: 1,
            duration: std::time::Duration::from_secs(1),
            seed: 1,
            frame_size: 64,
            window: 64,
        }
    }
}

/// Live view of a running [`Fabric::run`], for progress reports.
pub struct TrafficLive<'a> {
    /// One control handle per switch.
    pub handles: &'a [EngineHandle],
    sent: &'a std::sync::atomic::AtomicU64,
    delivered: &'a std::sync::atomic::AtomicU64,
    start: std::time::Instant,
}

impl TrafficLive<'_> {
    /// (frames sent, frames delivered) so far (threads publish every few thousand).
    pub fn progress(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.sent.load(Relaxed), self.delivered.load(Relaxed))
    }
    /// Time since the sources started.
    pub fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }
}

/// Split switches over `threads`: the switches below the top level fall into connected
/// components (a fat tree's pods), which go whole to the least loaded thread (largest
/// first, load = switches + hosts); the top-level switches are then spread the same
/// way. Links inside a component never cross threads. With fewer components than
/// threads, contiguous blocks of switch indices instead.
pub fn split_switches(t: &Topology, threads: usize) -> Vec<usize> {
    let ns = t.switches.len();
    let threads = threads.max(1);
    let contiguous = || (0..ns).map(|i| i * threads / ns.max(1)).collect::<Vec<_>>();
    let top = t.switches.iter().map(|s| s.level).max().unwrap_or(0);
    // union-find over links between switches below the top level
    let mut sets = crate::topology::components::UnionFind::new(ns);
    for (i, s) in t.switches.iter().enumerate() {
        if s.level == top {
            continue;
        }
        for p in &s.ports {
            if let Peer::Switch { sw, .. } = p.peer {
                let j = sw as usize;
                if t.switches[j].level != top {
                    sets.union(i, j);
                }
            }
        }
    }
    let weight = |s: &crate::topology::Switch| {
        1 + s
            .ports
            .iter()
            .filter(|p| matches!(p.peer, Peer::Host { .. }))
            .count()
    };
    let mut comps: std::collections::BTreeMap<usize, (usize, Vec<usize>)> = Default::default();
    let mut tops = Vec::new();
    for (i, s) in t.switches.iter().enumerate() {
        if s.level == top {
            tops.push(i);
        } else {
            let r = sets.find(i);
            let e = comps.entry(r).or_default();
            e.0 += weight(s);
            e.1.push(i);
        }
    }
    if comps.len() < threads {
        return contiguous();
    }
    let mut comps: Vec<(usize, Vec<usize>)> = comps.into_values().collect();
    comps.sort_by_key(|c| (std::cmp::Reverse(c.0), c.1[0]));
    let mut load = vec![0usize; threads];
    let mut lane = vec![0usize; ns];
    let least = |load: &[usize]| (0..load.len()).min_by_key(|&l| (load[l], l)).unwrap_or(0);
    for (w, members) in comps {
        let l = least(&load);
        load[l] += w;
        for m in members {
            lane[m] = l;
        }
    }
    for i in tops {
        let l = least(&load);
        load[l] += weight(&t.switches[i]);
        lane[i] = l;
    }
    lane
}

/// The switches and hosts one traffic thread serves.
struct Lane {
    workers: Vec<Worker>,
    hosts: Vec<(u32, usize, Vec<Option<mem::MemPort>>)>, // (host, inject port, ports)
}

/// What the traffic threads of [`Fabric::run`] share.
struct Shared {
    /// Prebuilt frames per source host.
    frames: Vec<Vec<Vec<u8>>>,
    /// MAC of every host (index = host).
    macs: Vec<[u8; 6]>,
    stop_send: AtomicBool,
    sent: AtomicU64,
    delivered: AtomicU64,
    misdelivered: AtomicU64,
}

impl Shared {
    /// Count frame `b` that reached host `h`: delivered if addressed to it.
    fn count(&self, h: u32, b: &Buf) -> bool {
        b.bytes().get(..6) == Some(&self.macs[h as usize][..])
    }
}

impl Lane {
    /// One thread's traffic loop: every host receives what reached it and sends up to 8
    /// frames (within `window` queued) until `stop_send`, then every switch with a frame
    /// waiting is polled; returns after 1000 idle rounds once sending stopped.
    fn run(mut self, sh: &Shared, pool: &Pool, seed: u64, window: usize) -> Lane {
        let n = sh.macs.len();
        let mut rng = engine::adaptive::XorShift::new(seed);
        let mut cache = PoolCache::new(pool);
        let (mut my_sent, mut my_del, mut my_mis) = (0u64, 0u64, 0u64);
        let mut idle_rounds = 0u32;
        loop {
            let sending = !sh.stop_send.load(Ordering::Relaxed);
            let mut work = 0usize;
            for (h, inj, ports) in self.hosts.iter_mut() {
                for p in ports.iter_mut().flatten() {
                    while let Some(b) = p.recv() {
                        if sh.count(*h, &b) {
                            my_del += 1;
                        } else {
                            my_mis += 1;
                        }
                        cache.put(b);
                        work += 1;
                    }
                }
                if !sending || n < 2 {
                    continue;
                }
                let Some(tx) = ports[*inj].as_mut() else {
                    continue;
                };
                let queued = tx.tx_pending();
                let row = &sh.frames[*h as usize];
                for _ in queued..window.min(queued + 8) {
                    let Some(mut b) = cache.get() else { break };
                    b.fill(&row[rng.below(row.len())]);
                    match tx.send(b) {
                        Ok(()) => my_sent += 1,
                        Err(b) => {
                            cache.put(b);
                            break;
                        }
                    }
                }
            }
            for w in self.workers.iter_mut() {
                if w.has_pending() {
                    work += w.poll();
                }
            }
            if (my_sent > 0 && work == 0) || my_sent + my_del + my_mis >= 4096 {
                sh.sent
                    .fetch_add(std::mem::take(&mut my_sent), Ordering::Relaxed);
                sh.delivered
                    .fetch_add(std::mem::take(&mut my_del), Ordering::Relaxed);
                sh.misdelivered
                    .fetch_add(std::mem::take(&mut my_mis), Ordering::Relaxed);
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
        sh.sent.fetch_add(my_sent, Ordering::Relaxed);
        sh.delivered.fetch_add(my_del, Ordering::Relaxed);
        sh.misdelivered.fetch_add(my_mis, Ordering::Relaxed);
        drop(cache);
        self
    }
}

/// Poll every lane's switches and drain its hosts until a full round does nothing.
fn drain(lanes: &mut [Lane], sh: &Shared, pool: &Pool) {
    loop {
        let mut work = 0;
        for lane in lanes.iter_mut() {
            for (h, _, ports) in lane.hosts.iter_mut() {
                for p in ports.iter_mut().flatten() {
                    while let Some(b) = p.recv() {
                        if sh.count(*h, &b) {
                            sh.delivered.fetch_add(1, Ordering::Relaxed);
                        } else {
                            sh.misdelivered.fetch_add(1, Ordering::Relaxed);
                        }
                        pool.put(b);
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
}

impl Fabric<'_> {
    /// Uniform random traffic: every host sends frames to random other hosts for
    /// `duration`, switches and hosts spread over `threads` threads (each thread polls
    /// its switches and serves its hosts as sources and sinks, run to completion).
    /// `during` runs on the calling thread while traffic flows (e.g. table swaps).
    /// Returns once every injected frame was delivered or dropped. The defaults of
    /// [`TrafficOptions`] otherwise (64 B frames); see [`Fabric::run`].
    pub fn run_traffic(
        self,
        threads: usize,
        duration: std::time::Duration,
        seed: u64,
        during: impl FnOnce(&[EngineHandle]),
    ) -> Result<(TrafficReport, Vec<Vec<PortStats>>), SimError> {
        let opts = TrafficOptions {
            threads,
            duration,
            seed,
            ..TrafficOptions::default()
        };
        self.run(&opts, |live| during(live.handles))
    }

    /// Uniform random traffic with `opts` (see [`Fabric::run_traffic`]); `during` gets a
    /// live view (handles, progress) while the sources send. The switches are split
    /// over threads by [`split_switches`]; hosts go with their first switch. Each thread
    /// loops: every host receives what reached it (checking the destination MAC) and
    /// sends up to 8 frames to uniformly random other hosts (within its window), then
    /// every switch that has a frame waiting (`Worker::has_pending`) is polled.
    pub fn run(
        self,
        opts: &TrafficOptions,
        during: impl FnOnce(&TrafficLive<'_>),
    ) -> Result<(TrafficReport, Vec<Vec<PortStats>>), SimError> {
        let threads = opts.threads.max(1);
        let seed = opts.seed;
        // sources together keep at most a quarter of the pool queued, so frames in the
        // fabric always find buffers (k=8: 128 hosts × 64; k=32: 8,192 hosts × 2)
        let n_src = self.topo.hosts.len().max(1);
        let window = opts
            .window
            .min((self.pool.capacity() / 4 / n_src).max(1))
            .max(1);
        let n = self.topo.hosts.len() as u32;
        let sh = Arc::new(Shared {
            frames: self.source_frames(opts.frame_size, seed)?,
            macs: (0..n).map(|h| host_mac(self.topo, h)).collect(),
            stop_send: AtomicBool::new(false),
            sent: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            misdelivered: AtomicU64::new(0),
        });
        let (pool, handles) = (self.pool.clone(), self.handles.clone());
        let lanes = self.into_lanes(threads);
        let start = std::time::Instant::now();
        let mut joins = Vec::new();
        for (li, lane) in lanes.into_iter().enumerate() {
            let (sh, pool) = (sh.clone(), pool.clone());
            let lane_seed = seed ^ ((li as u64 + 1) * 0x9E37);
            joins.push(std::thread::spawn(move || {
                lane.run(&sh, &pool, lane_seed, window)
            }));
        }
        during(&TrafficLive {
            handles: &handles,
            sent: &sh.sent,
            delivered: &sh.delivered,
            start,
        });
        let left = opts.duration.saturating_sub(start.elapsed());
        std::thread::sleep(left);
        sh.stop_send.store(true, Ordering::Relaxed);
        let mut lanes = Vec::new();
        for j in joins {
            lanes.push(j.join().map_err(|_| {
                SimError::Engine(engine::EngineError::Config("a simulation thread panicked"))
            })?);
        }
        // threads stop on local idleness; finish whatever is still in flight
        drain(&mut lanes, &sh, &pool);
        let elapsed = start.elapsed();
        let report = TrafficReport {
            sent: sh.sent.load(Ordering::Relaxed),
            delivered: sh.delivered.load(Ordering::Relaxed),
            misdelivered: sh.misdelivered.load(Ordering::Relaxed),
            dropped: handles
                .iter()
                .map(|h| h.counters().iter().map(PortStats::dropped).sum::<u64>())
                .sum(),
            elapsed,
        };
        let counters = handles.iter().map(EngineHandle::counters).collect();
        Ok((report, counters))
    }

    /// The frames each source sends, prebuilt and padded to `frame_size` (FCS
    /// included): one per other host up to [`FULL_TABLE_HOSTS`] hosts, else
    /// [`DEST_SAMPLE`] uniformly random others (drawn from `seed`).
    fn source_frames(&self, frame_size: usize, seed: u64) -> Result<Vec<Vec<Vec<u8>>>, KindError> {
        let n = self.topo.hosts.len() as u32;
        let want = frame_size.saturating_sub(4);
        let mut pick = engine::adaptive::XorShift::new(seed ^ 0xD57);
        let mut frames: Vec<Vec<Vec<u8>>> = Vec::with_capacity(n as usize);
        for s in 0..n {
            let dsts: Vec<u32> = if n as usize <= FULL_TABLE_HOSTS {
                (0..n).filter(|&d| d != s).collect()
            } else {
                (0..DEST_SAMPLE)
                    .map(|_| {
                        let d = pick.below(n as usize - 1) as u32;
                        d + u32::from(d >= s)
                    })
                    .collect()
            };
            let mut row = Vec::with_capacity(dsts.len());
            for d in dsts {
                let h = kinds::header(self.topo, self.kind, s, d)?;
                let pay = vec![0u8; want.saturating_sub(wire::ETH_HEADER_LEN + h.len())];
                row.push(wire::ethernet_frame(
                    host_mac(self.topo, d),
                    host_mac(self.topo, s),
                    &h,
                    &pay,
                ));
            }
            frames.push(row);
        }
        Ok(frames)
    }

    /// Hand the switches and the hosts that can send to `threads` lanes: switches by
    /// [`split_switches`], hosts with their first switch.
    fn into_lanes(self, threads: usize) -> Vec<Lane> {
        let topo = self.topo;
        let n = topo.hosts.len() as u32;
        let injects: Vec<Option<u16>> = (0..n).map(|h| self.inject_port(h)).collect();
        let mut lanes: Vec<Lane> = (0..threads)
            .map(|_| Lane {
                workers: Vec::new(),
                hosts: Vec::new(),
            })
            .collect();
        let lane_of = split_switches(topo, threads);
        for (i, w) in self.workers.into_iter().enumerate() {
            lanes[lane_of[i]].workers.push(w);
        }
        for (h, ports) in self.hosts.into_iter().enumerate() {
            let lane = topo.hosts[h]
                .ports
                .iter()
                .find_map(|p| match p.peer {
                    Peer::Switch { sw, .. } => Some(lane_of[sw as usize]),
                    _ => None,
                })
                .unwrap_or(h % threads);
            if let Some(inj) = injects[h] {
                lanes[lane].hosts.push((h as u32, usize::from(inj), ports));
            }
        }
        lanes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fat_tree_pods_stay_in_one_thread_and_threads_balance() {
        let t = crate::build_str("fat-tree:k=8").unwrap();
        let lane = split_switches(&t, 2);
        let mut per = [0usize; 2];
        for (i, s) in t.switches.iter().enumerate() {
            per[lane[i]] += 1;
            for p in &s.ports {
                if let Peer::Switch { sw, .. } = p.peer {
                    let o = &t.switches[sw as usize];
                    if s.level < 3 && o.level < 3 {
                        assert_eq!(lane[i], lane[sw as usize], "{} - {}", s.name, o.name);
                    }
                }
            }
        }
        assert_eq!(per, [40, 40]);
        // one thread: everything on it; more threads than pods: blocks
        assert!(split_switches(&t, 1).iter().all(|&l| l == 0));
        let l9 = split_switches(&t, 9);
        assert_eq!(l9.iter().max(), Some(&8));
    }
}
