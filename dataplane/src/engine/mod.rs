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

pub mod adaptive;
pub mod counters;
pub mod mem;
pub mod pool;
pub mod port;
pub mod worker;

pub use counters::{Counters, PortStats};
pub use pool::{Buf, Pool};
pub use port::{Port, Wake};
pub use worker::Worker;

use crate::table::SwitchTables;
use arc_swap::ArcSwap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Frames per RX burst and per TX burst.
pub const BURST: usize = 32;

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
}

/// How workers wait for work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollMode {
    /// Spin forever; optionally pin worker `i` to `cores[i % cores.len()]`.
    Busy,
    /// Spin `spins` empty rounds, then park until a port wakes the thread (or
    /// `max_sleep` passes: the bound on a lost wake-up, and how often kernel ports
    /// without a waker are polled).
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
    /// Flowlet idle gap (`None`: every packet chooses afresh).
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
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            workers: 1,
            ring_size: 256,
            drain_interval: Duration::from_micros(100),
            flowlet_gap: None,
            mode: PollMode::Adaptive {
                spins: 1000,
                max_sleep: Duration::from_millis(1),
            },
            trace: false,
            switch_id: 0,
            seed: 0x5eed,
            pin_cores: Vec::new(),
        }
    }
}

/// Shared state of one port: admin state (set by control), link state (set by the
/// owning worker), MTU.
#[derive(Debug)]
pub struct PortState {
    admin: AtomicBool,
    link: AtomicBool,
    mtu: usize,
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
    #[inline]
    pub(crate) fn set_link(&self, up: bool) {
        if self.link.load(Ordering::Relaxed) != up {
            self.link.store(up, Ordering::Relaxed);
        }
    }
}

/// Control of a built engine from any thread.
#[derive(Clone)]
pub struct EngineHandle {
    tables: Arc<ArcSwap<SwitchTables>>,
    state: Arc<[PortState]>,
    counters: Counters,
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
    /// Counters, summed over workers, per port.
    pub fn counters(&self) -> Vec<PortStats> {
        self.counters.snapshot()
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
        let state: Arc<[PortState]> = ports
            .iter()
            .map(|p| PortState {
                admin: AtomicBool::new(true),
                link: AtomicBool::new(p.link_up()),
                mtu: p.mtu(),
            })
            .collect();
        let tables = Arc::new(ArcSwap::from_pointee(tables));
        let wcs: Vec<Arc<counters::WorkerCounters>> = (0..nw)
            .map(|_| Arc::new(counters::WorkerCounters::new(np)))
            .collect();
        // rings[w][p]
        let mut producers: Vec<Vec<rtrb::Producer<Buf>>> = (0..nw).map(|_| Vec::new()).collect();
        let mut consumers: Vec<Vec<Vec<rtrb::Consumer<Buf>>>> =
            (0..nw).map(|_| Vec::new()).collect();
        let mut owned: Vec<Vec<(u16, Box<dyn Port>)>> = (0..nw).map(|_| Vec::new()).collect();
        for (p, port) in ports.into_iter().enumerate() {
            let owner = p % nw;
            let mut cs = Vec::with_capacity(nw);
            for prod in producers.iter_mut() {
                let (tx, rx) = rtrb::RingBuffer::new(cfg.ring_size);
                prod.push(tx);
                cs.push(rx);
            }
            consumers[owner].push(cs);
            owned[owner].push((p as u16, port));
        }
        let epoch = Instant::now();
        let workers = producers
            .into_iter()
            .zip(consumers)
            .zip(owned)
            .zip(wcs.iter().cloned())
            .enumerate()
            .map(|(i, (((tx, drain), owned), counters))| Worker {
                switch_id: cfg.switch_id,
                trace: cfg.trace,
                tables: tables.clone(),
                owned,
                tx,
                drain,
                state: state.clone(),
                counters,
                pool: pool.clone(),
                rng: adaptive::XorShift::new(
                    cfg.seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ),
                flowlets: cfg
                    .flowlet_gap
                    .map(|g| adaptive::Flowlets::new(g.as_nanos() as u64)),
                drain_ns: cfg.drain_interval.as_nanos() as u64,
                epoch,
                last_drain_ns: 0,
                burst: Vec::with_capacity(BURST),
                txbuf: Vec::with_capacity(BURST),
                live: Vec::with_capacity(np),
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
        let cores = if self.pin_cores.is_empty() {
            Vec::new()
        } else {
            core_affinity::get_core_ids().unwrap_or_default()
        };
        let mut pins = Vec::new();
        for c in &self.pin_cores {
            pins.push(
                cores
                    .iter()
                    .find(|x| x.id == *c)
                    .copied()
                    .ok_or(EngineError::NoCpu(*c))?,
            );
        }
        for (i, w) in self.workers.into_iter().enumerate() {
            let stop = stop.clone();
            let mode = self.mode;
            let pin = (!pins.is_empty()).then(|| pins[i % pins.len()]);
            threads.push(
                std::thread::Builder::new()
                    .name(format!("canopy-w{i}"))
                    .spawn(move || {
                        if let Some(c) = pin {
                            // best effort: the worker still runs if the kernel refuses
                            let _ = core_affinity::set_for_current(c);
                        }
                        let mut ws = vec![w];
                        run(&mut ws, mode, &stop);
                        ws
                    })?,
            );
        }
        Ok(Running {
            stop,
            threads,
            handle: self.handle,
        })
    }
}

/// Drive `workers` on the calling thread until `stop` is set, then drain: keep polling
/// until no frame is left in any owned port or ring (so counters conserve).
pub fn run(workers: &mut [Worker], mode: PollMode, stop: &AtomicBool) {
    let wake = Wake::for_current();
    for w in workers.iter_mut() {
        for p in w.ports() {
            p.set_waker(wake.clone());
        }
    }
    let mut idle = 0u32;
    while !stop.load(Ordering::Relaxed) {
        let mut work = 0;
        for w in workers.iter_mut() {
            work += w.poll();
        }
        if work > 0 {
            idle = 0;
            continue;
        }
        idle = idle.saturating_add(1);
        if let PollMode::Adaptive { spins, max_sleep } = mode {
            if idle > spins {
                wake.prepare();
                if workers.iter().any(Worker::has_pending) {
                    wake.cancel();
                    continue;
                }
                std::thread::park_timeout(max_sleep);
                wake.cancel();
            } else {
                std::hint::spin_loop();
            }
        } else {
            std::hint::spin_loop();
        }
    }
    // drain what this thread can still move
    loop {
        let mut work = 0;
        for w in workers.iter_mut() {
            work += w.poll();
        }
        if work == 0 {
            break;
        }
    }
}

/// Running engine threads.
pub struct Running {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<Vec<Worker>>>,
    handle: EngineHandle,
}

impl Running {
    /// The control handle.
    pub fn handle(&self) -> EngineHandle {
        self.handle.clone()
    }
    /// Stop the threads and return the workers (with their ports).
    pub fn stop(self) -> Vec<Worker> {
        self.stop.store(true, Ordering::Relaxed);
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
