//! The forwarding engine: run-to-completion workers over [`Port`]s.
//!
//! Each port is owned by one worker (port `i` by worker `i % workers`), which receives
//! from it in bursts of [`BURST`] and is the only one to transmit on it. Every worker
//! has one bounded lock-free SPSC ring (`rtrb`) towards every port; the owner drains
//! the rings in bursts (full bursts at once, partial ones when the drain timer expires
//! or its RX went idle). A full ring drops the frame (drop-tail, `ring_full`). Frame
//! buffers come from a fixed [`Pool`] and move as handles.
//!
//! Control from other threads goes through [`EngineHandle`]: tables are replaced
//! atomically (`arc-swap`; workers load them once per round), ports set admin up or
//! down, counters summed from per-worker cache-padded blocks. See `docs/engine.md`.
//!
//! Link upkeep ([`Port::maintain`]) runs on the owning worker's thread every
//! [`EngineConfig::link_poll`]. For the kernel ports it re-reads the interface and may
//! reopen the socket, in the namespace the port was opened in (from a thread elsewhere,
//! a [`host::Host`]'s, through a helper thread that enters it).
//!
//! A [`host::Host`] polls the workers of many engines (one per switch) on a fixed set
//! of threads; see `docs/shared-host.md`.

pub mod adaptive;
pub mod counters;
mod hop;
pub mod host;
pub mod mem;
pub mod pool;
pub mod port;
#[cfg(target_os = "linux")]
mod sys;
pub mod worker;

pub use counters::{BackendCounters, Counters, PortStats};
pub use pool::{Buf, Pool, PoolCache};
pub use port::{BackendStats, Port, PortEvent, Wake, BACKEND_DROP_SLOTS};
pub use worker::Worker;

use crate::table::SwitchTables;
use arc_swap::ArcSwap;
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames per RX burst and per TX burst.
pub const BURST: usize = 32;

/// Default empty rounds before an adaptive thread sleeps. Each wake-up costs a sleep and
/// a wake in the kernel (tens of µs in a VM), so spinning pays only if the next frame comes
/// within a few µs; 100 rounds keep the CPU per forwarded packet near the kernel's own
/// cost at moderate rates (docs/BENCHMARKS.md, "One switch on veth").
pub const DEFAULT_SPINS: u32 = 100;

/// Default longest adaptive sleep. Frames and control requests wake the thread through
/// epoll, so this only bounds how late idle link upkeep runs; short sleeps cost idle CPU
/// (twenty idle switch processes: 23 % of a core at 1 ms, 1 % at 100 ms).
pub const DEFAULT_MAX_SLEEP: Duration = Duration::from_millis(100);

/// Engine errors.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The port list and the tables disagree on the number of ports.
    #[error("{ports} ports given but the tables of {name} have {table_ports}")]
    PortCount {
        /// Switch name.
        name: String,
        /// Ports given.
        ports: usize,
        /// Ports in the tables.
        table_ports: usize,
    },
    /// Zero workers or a zero ring size.
    #[error("invalid engine configuration: {0}")]
    Config(&'static str),
    /// A port index out of range.
    #[error("no port {0}")]
    NoPort(u16),
    /// A CPU to pin to does not exist.
    #[error("no CPU {0} to pin a worker to")]
    NoCpu(usize),
    /// A worker thread could not be started.
    #[error("cannot start worker thread: {0}")]
    Spawn(#[from] std::io::Error),
    /// A host thread did not answer (it stopped or panicked).
    #[error("a host thread is gone (stopped or panicked)")]
    HostGone,
    /// The engine is not placed on this host.
    #[error("the engine is not placed on this host")]
    NotPlaced,
}

/// How workers wait for work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollMode {
    /// Spin forever; optionally pin worker `i` to `cores[i % cores.len()]`.
    Busy,
    /// Spin `spins` empty rounds, then sleep in `epoll` on the kernel ports' fds and
    /// the thread's eventfd (which `mem` peers and [`Running::stop`] write) until one
    /// is ready or `max_sleep` passes (the bound on a lost wake-up).
    Adaptive {
        /// Empty rounds before sleeping.
        spins: u32,
        /// Longest sleep.
        max_sleep: Duration,
    },
}

/// Engine configuration.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Worker threads.
    pub workers: usize,
    /// Frames per (worker, egress port) ring.
    pub ring_size: usize,
    /// Partial TX bursts wait at most this long.
    pub drain_interval: Duration,
    /// Flowlet idle gap at start (`None`: every packet chooses afresh); the handle
    /// can change it while the engine runs ([`EngineHandle::set_flowlet_gap`]).
    pub flowlet_gap: Option<Duration>,
    /// Polling mode.
    pub mode: PollMode,
    /// Record (switch id, ingress, egress) in each frame's buffer (debug trace switch).
    pub trace: bool,
    /// Switch id used in traces.
    pub switch_id: u32,
    /// Seed of the workers' PRNGs.
    pub seed: u64,
    /// Pin worker `i` to CPU `pin_cores[i % len]` (empty: no pinning). Meant for
    /// `busy` mode; a CPU that does not exist is reported by [`Engine::spawn`].
    pub pin_cores: Vec<usize>,
    /// Link upkeep period ([`Port::maintain`], backend counters), checked by
    /// [`run`] on idle rounds and when the drain timer fires (default 100 ms). A
    /// sleeping thread checks it when it wakes, so in adaptive mode the period is at
    /// least `max_sleep`.
    pub link_poll: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            workers: 1,
            ring_size: 256,
            drain_interval: Duration::from_micros(100),
            flowlet_gap: None,
            mode: PollMode::Adaptive {
                spins: DEFAULT_SPINS,
                max_sleep: DEFAULT_MAX_SLEEP,
            },
            trace: false,
            switch_id: 0,
            seed: 0x5eed,
            pin_cores: Vec::new(),
            link_poll: Duration::from_millis(100),
        }
    }
}

/// Shared state of one port: admin state (set by control), link state (set by the
/// owning worker), MTU; the owner's gauges of the backend's TX backlog and counters,
/// each on its own cache lines (they change while the flags above are read per frame).
#[derive(Debug)]
pub struct PortState {
    admin: AtomicBool,
    link: AtomicBool,
    mtu: usize,
    link_downs: AtomicU64,
    tx_backlog: CachePadded<AtomicUsize>,
    /// Frames in rings towards the port whose hop record waits for its TX-handoff time:
    /// raised by the deciding worker before the push, lowered by the owner when it stamps
    /// them, so the owner's drain looks at frames only while it is not 0 (one load per
    /// port and round).
    hop_pending: CachePadded<AtomicUsize>,
    backend: CachePadded<counters::BackendGauges>,
}

impl PortState {
    /// Admin up and link up.
    #[inline]
    pub fn live(&self) -> bool {
        self.admin.load(Ordering::Relaxed) && self.link.load(Ordering::Relaxed)
    }
    /// Administrative state.
    pub fn admin_up(&self) -> bool {
        self.admin.load(Ordering::Relaxed)
    }
    /// Link state, as the owning worker last saw it.
    pub fn link_up(&self) -> bool {
        self.link.load(Ordering::Relaxed)
    }
    /// The backend's TX backlog as of the owner's last drain.
    #[inline]
    pub fn tx_backlog(&self) -> usize {
        self.tx_backlog.load(Ordering::Relaxed)
    }
    /// Frames in rings towards the port that wait for their hop record's TX-handoff time.
    #[inline]
    pub(crate) fn hop_pending(&self) -> usize {
        self.hop_pending.load(Ordering::Relaxed)
    }
    /// `n` more (before the push: the ring's release orders it before the frame) or
    /// fewer such frames.
    pub(crate) fn add_hop_pending(&self, n: usize, more: bool) {
        if more {
            self.hop_pending.fetch_add(n, Ordering::Relaxed);
        } else {
            self.hop_pending.fetch_sub(n, Ordering::Relaxed);
        }
    }
    /// Set by the owner only (single writer: plain stores); a fall counts in
    /// `link_downs`.
    #[inline]
    pub(crate) fn set_link(&self, up: bool) {
        if self.link.load(Ordering::Relaxed) != up {
            self.link.store(up, Ordering::Relaxed);
            if !up {
                counters::bump(&self.link_downs, 1);
            }
        }
    }
    /// Owner only: publish the backend's TX backlog (stored only when it changed).
    #[inline]
    pub(crate) fn set_tx_backlog(&self, n: usize) {
        if self.tx_backlog.load(Ordering::Relaxed) != n {
            self.tx_backlog.store(n, Ordering::Relaxed);
        }
    }
}

/// Control of a built engine from any thread.
#[derive(Clone)]
pub struct EngineHandle {
    tables: Arc<ArcSwap<SwitchTables>>,
    state: Arc<[PortState]>,
    counters: Counters,
    flowlet_gap: Arc<AtomicU64>,
}

impl EngineHandle {
    /// Replace the tables atomically; frames already decided keep their egress. The
    /// new tables must have the same number of ports.
    pub fn swap_tables(&self, t: SwitchTables) -> Result<(), EngineError> {
        if t.ports.len() != self.state.len() {
            return Err(EngineError::PortCount {
                name: t.name.clone(),
                ports: self.state.len(),
                table_ports: t.ports.len(),
            });
        }
        self.tables.store(Arc::new(t));
        Ok(())
    }
    /// The tables in use.
    pub fn tables(&self) -> Arc<SwitchTables> {
        self.tables.load_full()
    }
    /// Set the flowlet idle gap (`None` or zero: every frame of an adaptive group
    /// chooses afresh). Each worker takes the new gap at its next round; flows already
    /// pinned stay pinned while their gaps stay under the new one.
    pub fn set_flowlet_gap(&self, gap: Option<Duration>) {
        let ns = gap.map_or(0, |g| u64::try_from(g.as_nanos()).unwrap_or(u64::MAX));
        self.flowlet_gap.store(ns, Ordering::Relaxed);
    }
    /// The flowlet idle gap in use (`None`: off).
    pub fn flowlet_gap(&self) -> Option<Duration> {
        let ns = self.flowlet_gap.load(Ordering::Relaxed);
        (ns > 0).then(|| Duration::from_nanos(ns))
    }
    /// Set a port administratively up or down (down: frames to it or from it are
    /// dropped as `port_down`, and adaptive choices avoid it).
    pub fn set_admin(&self, port: u16, up: bool) -> Result<(), EngineError> {
        self.state
            .get(usize::from(port))
            .ok_or(EngineError::NoPort(port))?
            .admin
            .store(up, Ordering::Relaxed);
        Ok(())
    }
    /// Port states.
    pub fn port_state(&self, port: u16) -> Option<&PortState> {
        self.state.get(usize::from(port))
    }
    /// Counters, summed over workers, per port, with each port's link-down count,
    /// TX backlog and backend counters (see [`BackendCounters`]).
    pub fn counters(&self) -> Vec<PortStats> {
        let mut s = self.counters.snapshot();
        for (o, st) in s.iter_mut().zip(self.state.iter()) {
            o.link_downs = st.link_downs.load(Ordering::Relaxed);
            o.tx_backlog = st.tx_backlog() as u64;
            o.backend = st.backend.load();
        }
        s
    }
}

/// A built engine: its workers (not yet running) and a handle.
pub struct Engine {
    /// The workers; run them with [`Engine::spawn`] or drive them with
    /// [`Worker::poll`].
    pub workers: Vec<Worker>,
    handle: EngineHandle,
    mode: PollMode,
    pin_cores: Vec<usize>,
}

impl Engine {
    /// Build an engine for `tables` over `ports` (index = port number).
    pub fn new(
        tables: SwitchTables,
        ports: Vec<Box<dyn Port>>,
        pool: Pool,
        cfg: &EngineConfig,
    ) -> Result<Self, EngineError> {
        Self::with_rx_replicas(tables, ports, Vec::new(), pool, cfg)
    }

    /// [`Engine::new`] with extra receive-only sockets for some ports, so several
    /// workers share one port's RX (AF_PACKET: sockets in one `PACKET_FANOUT` group,
    /// which the kernel balances by flow hash). `replicas` holds `(port, socket)`
    /// pairs; the `r`-th replica of port `p` goes to worker `(p + 1 + r) % workers`
    /// (the owner, `p % workers`, keeps the primary socket, which alone transmits).
    /// Frames a replica receives are counted at port `p` like any other. Link state
    /// and upkeep run on replicas too; the backend counters and TX backlog reported
    /// for `p` are the primary socket's.
    pub fn with_rx_replicas(
        tables: SwitchTables,
        ports: Vec<Box<dyn Port>>,
        replicas: Vec<(u16, Box<dyn Port>)>,
        pool: Pool,
        cfg: &EngineConfig,
    ) -> Result<Self, EngineError> {
        if cfg.workers == 0 || cfg.ring_size == 0 {
            return Err(EngineError::Config(
                "workers and ring_size must be at least 1",
            ));
        }
        if ports.len() != tables.ports.len() || ports.len() > usize::from(u16::MAX) {
            return Err(EngineError::PortCount {
                name: tables.name.clone(),
                ports: ports.len(),
                table_ports: tables.ports.len(),
            });
        }
        let np = ports.len();
        let nw = cfg.workers;
        if let Some((p, _)) = replicas.iter().find(|(p, _)| usize::from(*p) >= np) {
            return Err(EngineError::NoPort(*p));
        }
        let state: Arc<[PortState]> = ports
            .iter()
            .map(|p| PortState {
                admin: AtomicBool::new(true),
                link: AtomicBool::new(p.link_up()),
                mtu: p.mtu(),
                link_downs: AtomicU64::new(0),
                tx_backlog: CachePadded::new(AtomicUsize::new(0)),
                hop_pending: CachePadded::new(AtomicUsize::new(0)),
                backend: CachePadded::new(counters::BackendGauges::new(p.backend_drop_names())),
            })
            .collect();
        let tables = Arc::new(ArcSwap::from_pointee(tables));
        let gap_ns = cfg
            .flowlet_gap
            .map_or(0, |g| u64::try_from(g.as_nanos()).unwrap_or(u64::MAX));
        let flowlet_gap = Arc::new(AtomicU64::new(gap_ns));
        let wcs: Vec<Arc<counters::WorkerCounters>> = (0..nw)
            .map(|_| Arc::new(counters::WorkerCounters::new(np)))
            .collect();
        // egress[w][p]: worker w's way to port p (its own queue, or a ring to the owner)
        let mut producers: Vec<Vec<worker::Egress>> = (0..nw).map(|_| Vec::new()).collect();
        let mut consumers: Vec<Vec<Vec<rtrb::Consumer<Buf>>>> =
            (0..nw).map(|_| Vec::new()).collect();
        let mut owned: Vec<Vec<(u16, Box<dyn Port>)>> = (0..nw).map(|_| Vec::new()).collect();
        for (p, port) in ports.into_iter().enumerate() {
            let owner = p % nw;
            let mut cs = Vec::with_capacity(nw - 1);
            for (w, prod) in producers.iter_mut().enumerate() {
                if w == owner {
                    prod.push(worker::Egress::Own(owned[owner].len()));
                } else {
                    let (tx, rx) = rtrb::RingBuffer::new(cfg.ring_size);
                    prod.push(worker::Egress::Ring(tx));
                    cs.push(rx);
                }
            }
            consumers[owner].push(cs);
            owned[owner].push((p as u16, port));
        }
        let mut rx_only: Vec<Vec<(u16, Box<dyn Port>)>> = (0..nw).map(|_| Vec::new()).collect();
        let mut nth = vec![0usize; np];
        for (p, port) in replicas {
            let r = &mut nth[usize::from(p)];
            rx_only[(usize::from(p) + 1 + *r) % nw].push((p, port));
            *r += 1;
        }
        let epoch = Instant::now();
        let workers = producers
            .into_iter()
            .zip(consumers)
            .zip(owned)
            .zip(rx_only)
            .zip(wcs.iter().cloned())
            .enumerate()
            .map(|(i, ((((tx, drain), owned), rx_only), counters))| Worker {
                switch_id: cfg.switch_id,
                trace: cfg.trace,
                tables: arc_swap::Cache::new(tables.clone()),
                queues: owned
                    .iter()
                    .map(|_| Vec::with_capacity(cfg.ring_size))
                    .collect(),
                queue_cap: cfg.ring_size,
                owned,
                rx_only,
                tx,
                drain,
                state: state.clone(),
                counters,
                pool: pool.clone(),
                adaptive: adaptive::Adaptive::new(
                    cfg.seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ),
                flowlet_gap: flowlet_gap.clone(),
                drain_ns: cfg.drain_interval.as_nanos() as u64,
                epoch,
                last_drain_ns: 0,
                link_poll_ns: cfg.link_poll.as_nanos() as u64,
                last_upkeep_ns: 0,
                seen_drain_ns: 0,
                backlog_nonzero: 0,
                burst: Vec::with_capacity(BURST),
                txbuf: Vec::with_capacity(BURST),
                live: Vec::with_capacity(np),
                live_occ: Vec::with_capacity(np),
            })
            .collect();
        Ok(Engine {
            workers,
            handle: EngineHandle {
                tables,
                state,
                counters: Counters {
                    workers: wcs.into(),
                    ports: np,
                },
                flowlet_gap,
            },
            mode: cfg.mode,
            pin_cores: cfg.pin_cores.clone(),
        })
    }

    /// The control handle.
    pub fn handle(&self) -> EngineHandle {
        self.handle.clone()
    }

    /// Run every worker on its own thread until [`Running::stop`].
    pub fn spawn(self) -> Result<Running, EngineError> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        let pins = resolve_pins(&self.pin_cores)?;
        let mut wakes = Vec::new();
        for (i, w) in self.workers.into_iter().enumerate() {
            let pin = (!pins.is_empty()).then(|| pins[i % pins.len()]);
            let wake = Arc::new(Wake::default());
            wakes.push(wake.clone());
            let name = format!("canopy-w{i}");
            threads.push(spawn_thread(
                name,
                pin,
                self.mode,
                &stop,
                wake,
                vec![w],
                None,
            )?);
        }
        Ok(Running {
            stop,
            threads,
            wakes,
            handle: self.handle,
        })
    }
}

/// Start a polling thread named `name` (pinned to `pin`, best effort: it still runs if
/// the kernel refuses) that runs [`run_loop`] over `workers` and returns them when it
/// stops.
fn spawn_thread(
    name: String,
    pin: Option<core_affinity::CoreId>,
    mode: PollMode,
    stop: &Arc<AtomicBool>,
    wake: Arc<Wake>,
    mut workers: Vec<Worker>,
    inbox: Option<host::Inbox>,
) -> std::io::Result<JoinHandle<Vec<Worker>>> {
    let stop = stop.clone();
    std::thread::Builder::new().name(name).spawn(move || {
        if let Some(c) = pin {
            let _ = core_affinity::set_for_current(c);
        }
        wake.bind_current();
        run_loop(&mut workers, mode, &stop, &wake, inbox.as_ref());
        workers
    })
}

/// The CPUs `pin_cores` names, each checked to exist ([`EngineError::NoCpu`]).
fn resolve_pins(pin_cores: &[usize]) -> Result<Vec<core_affinity::CoreId>, EngineError> {
    if pin_cores.is_empty() {
        return Ok(Vec::new());
    }
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    pin_cores
        .iter()
        .map(|c| {
            cores
                .iter()
                .find(|x| x.id == *c)
                .copied()
                .ok_or(EngineError::NoCpu(*c))
        })
        .collect()
}

/// Drive `workers` on the calling thread until `stop` is set, then drain: keep polling
/// until no frame is left in any owned port or ring (so counters conserve).
pub fn run(workers: &mut Vec<Worker>, mode: PollMode, stop: &AtomicBool) {
    run_with(workers, mode, stop, &Wake::for_current());
}

/// [`run`] with the thread's waker given (bound to the calling thread), so another
/// thread can wake it out of its sleep (`wake.wake()` after setting `stop`).
///
/// Each round polls every worker, then lets each do its link upkeep
/// ([`Worker::upkeep`]) if the round was idle or a drain timer fired. In adaptive mode,
/// after `spins` idle rounds the thread announces sleep, re-checks its ports, rings
/// and `stop`, and sleeps in `epoll` on the `rx_fd`s of its ports and the eventfd that
/// `wake` writes, for at most `max_sleep`; an fd reporting an error (a link event)
/// triggers upkeep at once; an fd that changed (a reopened port) is registered again.
pub fn run_with(workers: &mut Vec<Worker>, mode: PollMode, stop: &AtomicBool, wake: &Arc<Wake>) {
    run_loop(workers, mode, stop, wake, None);
}

/// The polling loop of [`run_with`] and of a [`host::Host`]'s threads, which also
/// take workers in and give them back between rounds (`inbox`: checked with one load
/// per round, and before sleeping).
fn run_loop(
    workers: &mut Vec<Worker>,
    mode: PollMode,
    stop: &AtomicBool,
    wake: &Arc<Wake>,
    inbox: Option<&host::Inbox>,
) {
    for w in workers.iter_mut() {
        for p in w.ports() {
            p.set_waker(wake.clone());
        }
    }
    let sleeper = match mode {
        PollMode::Adaptive { .. } => Sleeper::new(wake, workers),
        PollMode::Busy => None,
    };
    let mut idle = 0u32;
    let mut force_upkeep = false;
    while !stop.load(Ordering::Relaxed) {
        let mut work = 0;
        for w in workers.iter_mut() {
            work += w.poll();
        }
        // idle rounds look at the clock for upkeep only every UPKEEP_IDLE_ROUNDS-th time and
        // on the rounds that may sleep: a spin between bursts reads it a few times, not
        // once per round
        let spinning = match mode {
            PollMode::Adaptive { spins, .. } => idle < spins,
            // (a count that saturated looks every round)
            PollMode::Busy => idle < u32::MAX,
        };
        let look = work == 0 && (!spinning || idle.is_multiple_of(UPKEEP_IDLE_ROUNDS));
        if upkeep(workers, look, force_upkeep) {
            if let Some(s) = &sleeper {
                s.register(workers);
            }
        }
        force_upkeep = false;
        if let Some(inbox) = inbox.filter(|i| !i.is_empty()) {
            inbox.serve(workers, wake, sleeper.as_ref());
        }
        if work > 0 {
            idle = 0;
            continue;
        }
        idle = idle.saturating_add(1);
        if let PollMode::Adaptive { spins, max_sleep } = mode {
            if idle > spins {
                wake.prepare();
                // SeqCst pairs with Running::stop's store and wake(): either we see
                // `stop` (or the inbox's command) here or the stopper (the sender)
                // sees `sleeping` and writes the eventfd.
                if stop.load(Ordering::SeqCst)
                    || inbox.is_some_and(|i| !i.is_empty())
                    || workers.iter().any(Worker::has_pending)
                {
                    wake.cancel();
                    continue;
                }
                match &sleeper {
                    Some(s) => force_upkeep = s.sleep(max_sleep),
                    None => std::thread::park_timeout(max_sleep),
                }
                wake.cancel();
            } else {
                std::hint::spin_loop();
            }
        } else {
            std::hint::spin_loop();
        }
    }
    drain(workers);
}

/// Idle rounds between two clock readings for link upkeep while a thread spins (the
/// first idle round after work reads it too). At tens of ns per round this delays upkeep
/// by a few µs at most, against a period of [`EngineConfig::link_poll`].
const UPKEEP_IDLE_ROUNDS: u32 = 64;

/// Most rounds [`drain`] polls: frames that keep arriving cannot hold it.
const DRAIN_ROUNDS: usize = 10_000;

/// After `stop`: poll until nothing moves (so what this thread can still send is
/// sent and counters conserve; at most [`DRAIN_ROUNDS`]), then publish the final
/// backend counters, so a counter dump after stop is complete.
fn drain(workers: &mut [Worker]) {
    for _ in 0..DRAIN_ROUNDS {
        let mut work = 0;
        for w in workers.iter_mut() {
            work += w.poll();
        }
        if work == 0 {
            break;
        }
    }
    for w in workers.iter_mut() {
        w.publish_backend_stats();
    }
}

/// Upkeep of every worker of a thread; true when a port's fd changed.
fn upkeep(workers: &mut [Worker], idle: bool, force: bool) -> bool {
    let mut changed = false;
    let mut clock = None;
    for w in workers.iter_mut() {
        changed |= w.upkeep_at(idle, force, &mut clock);
    }
    changed
}

/// Token of the thread's eventfd in its epoll set (ports use their position).
#[cfg(target_os = "linux")]
const WAKE_TOKEN: u64 = u64::MAX;

/// The epoll set an adaptive thread sleeps in: its ports' fds and its eventfd.
#[cfg(target_os = "linux")]
struct Sleeper {
    ep: sys::Epoll,
    wake: Arc<Wake>,
}

#[cfg(target_os = "linux")]
impl Sleeper {
    /// `None` (the thread parks instead) if epoll or eventfd cannot be created, or the
    /// waker already sleeps on another thread's eventfd.
    fn new(wake: &Arc<Wake>, workers: &mut [Worker]) -> Option<Sleeper> {
        let ep = sys::Epoll::new().ok()?;
        let ev = sys::EventFd::new().ok()?;
        ep.add(ev.raw(), WAKE_TOKEN).ok()?;
        if !wake.set_event(ev) {
            return None;
        }
        let s = Sleeper {
            ep,
            wake: wake.clone(),
        };
        s.register(workers);
        Some(s)
    }

    /// Stop watching the port fds of `workers` (given back to a host's controller).
    fn unregister(&self, workers: &mut [Worker]) {
        for w in workers.iter_mut() {
            for p in w.ports() {
                if let Some(fd) = p.rx_fd() {
                    self.ep.del(fd);
                }
            }
        }
    }

    /// (Re-)register every port fd (level-triggered). A port whose fd cannot be added
    /// is still polled every `max_sleep`.
    fn register(&self, workers: &mut [Worker]) {
        let mut token = 0u64;
        for w in workers.iter_mut() {
            for p in w.ports() {
                if let Some(fd) = p.rx_fd() {
                    let _ = self.ep.add(fd, token);
                }
                token += 1;
            }
        }
    }

    /// Sleep up to `max`; true when a port fd reported an error (run upkeep now).
    fn sleep(&self, max: Duration) -> bool {
        match self.ep.wait(max, WAKE_TOKEN) {
            Ok(r) => {
                if r.woken {
                    if let Some(e) = self.wake.event() {
                        e.drain();
                    }
                }
                r.error
            }
            Err(_) => {
                std::thread::park_timeout(max);
                false
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
struct Sleeper;

#[cfg(not(target_os = "linux"))]
impl Sleeper {
    fn new(_: &Arc<Wake>, _: &mut [Worker]) -> Option<Sleeper> {
        None
    }
    fn register(&self, _: &mut [Worker]) {}
    fn unregister(&self, _: &mut [Worker]) {}
    fn sleep(&self, max: Duration) -> bool {
        std::thread::park_timeout(max);
        false
    }
}

/// Running engine threads.
pub struct Running {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Vec<Worker>>>,
    wakes: Vec<Arc<Wake>>,
    handle: EngineHandle,
}

impl Running {
    /// The control handle.
    pub fn handle(&self) -> EngineHandle {
        self.handle.clone()
    }
    /// Stop the threads (waking sleeping ones at once) and return the workers (with
    /// their ports).
    pub fn stop(self) -> Vec<Worker> {
        self.stop.store(true, Ordering::SeqCst);
        for w in &self.wakes {
            w.wake();
        }
        let mut out = Vec::new();
        for t in self.threads {
            t.thread().unpark();
            if let Ok(ws) = t.join() {
                out.extend(ws);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
