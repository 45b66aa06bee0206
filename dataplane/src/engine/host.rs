//! A shared switch host: the workers of many engines (one engine per switch, each with
//! its own tables, ports, rings, counters and pool) polled by a fixed set of threads.
//!
//! Each thread runs the engine's one polling loop over every worker placed on it, so a
//! hop between two switches of the host costs an RX burst, a decision and a TX on a
//! thread that is already running: no process wakes up, no context switch. Workers come
//! and go between rounds: [`Host::add`] places each worker of an engine on the thread
//! that polls the fewest ports, [`Host::remove`] takes an engine's workers back,
//! drained (one switch stops while the others forward). The controller talks to a
//! thread through a channel the thread checks with one load per round and before it
//! sleeps; a sleeping thread is woken through its [`Wake`].
//!
//! The host's polling mode and CPUs govern; an engine's own `mode` and `pin_cores` are
//! not used. See `docs/engine.md` ("Shared host").

use super::{
    drain, resolve_pins, spawn_thread, Engine, EngineError, EngineHandle, PollMode, PortState,
    Sleeper, Wake, Worker,
};
use crossbeam_channel::{Receiver, Sender};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long [`Host::remove`] waits for a thread to give workers back.
const REMOVE_TIMEOUT: Duration = Duration::from_secs(10);

/// Configuration of a [`Host`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// Polling threads (at least 1).
    pub threads: usize,
    /// How they wait for work.
    pub mode: PollMode,
    /// Pin thread `i` to CPU `pin_cores[i % len]` (empty: no pinning).
    pub pin_cores: Vec<usize>,
}

/// What the controller asks a host thread.
pub(super) enum Cmd {
    /// Poll these workers from now on.
    Add(Vec<Worker>),
    /// Give back, drained, the workers of the engine whose port states are `state`.
    Remove {
        state: Arc<[PortState]>,
        reply: Sender<Vec<Worker>>,
    },
}

/// A host thread's end of its command channel.
pub(super) struct Inbox {
    rx: Receiver<Cmd>,
}

impl Inbox {
    /// No command waits (one load: checked every round).
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.rx.is_empty()
    }

    /// Carry out the waiting commands on this thread's `workers`.
    pub(super) fn serve(
        &self,
        workers: &mut Vec<Worker>,
        wake: &Arc<Wake>,
        sleeper: Option<&Sleeper>,
    ) {
        while let Ok(cmd) = self.rx.try_recv() {
            match cmd {
                Cmd::Add(mut ws) => {
                    for w in ws.iter_mut() {
                        for p in w.ports() {
                            p.set_waker(wake.clone());
                        }
                    }
                    if let Some(s) = sleeper {
                        s.register(&mut ws);
                    }
                    workers.extend(ws);
                }
                Cmd::Remove { state, reply } => {
                    let (mut gone, keep): (Vec<Worker>, Vec<Worker>) = workers
                        .drain(..)
                        .partition(|w| Arc::ptr_eq(&w.state, &state));
                    *workers = keep;
                    drain(&mut gone);
                    if let Some(s) = sleeper {
                        s.unregister(&mut gone);
                    }
                    // a controller that gave up waiting drops the workers with the reply
                    let _ = reply.send(gone);
                }
            }
        }
    }
}

/// One polling thread as the controller sees it.
struct Slot {
    tx: Sender<Cmd>,
    wake: Arc<Wake>,
    join: Option<JoinHandle<Vec<Worker>>>,
    /// Ports (owned and receive-only) of the workers placed on it.
    load: usize,
}

/// An engine placed on the host: its port states (its identity) and, per worker, the
/// thread and the ports it weighs.
struct Placed {
    state: Arc<[PortState]>,
    on: Vec<(usize, usize)>,
}

/// Running host threads and what is placed on them.
pub struct Host {
    slots: Vec<Slot>,
    stop: Arc<AtomicBool>,
    placed: Vec<Placed>,
}

impl Host {
    /// Start `cfg.threads` polling threads (`canopy-h0`, `canopy-h1`, …) with no worker.
    pub fn start(cfg: &HostConfig) -> Result<Host, EngineError> {
        if cfg.threads == 0 {
            return Err(EngineError::Config("a host needs at least 1 thread"));
        }
        let pins = resolve_pins(&cfg.pin_cores)?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut slots = Vec::with_capacity(cfg.threads);
        for i in 0..cfg.threads {
            let (tx, rx) = crossbeam_channel::unbounded();
            let wake = Arc::new(Wake::default());
            let pin = (!pins.is_empty()).then(|| pins[i % pins.len()]);
            let join = spawn_thread(
                format!("canopy-h{i}"),
                pin,
                cfg.mode,
                &stop,
                wake.clone(),
                Vec::new(),
                Some(Inbox { rx }),
            );
            let join = match join {
                Ok(j) => j,
                Err(e) => {
                    stop_slots(&stop, &mut slots);
                    return Err(e.into());
                }
            };
            slots.push(Slot {
                tx,
                wake,
                join: Some(join),
                load: 0,
            });
        }
        Ok(Host {
            slots,
            stop,
            placed: Vec::new(),
        })
    }

    /// Polling threads.
    pub fn threads(&self) -> usize {
        self.slots.len()
    }

    /// Ports polled by each thread.
    pub fn load(&self) -> Vec<usize> {
        self.slots.iter().map(|s| s.load).collect()
    }

    /// Engines placed.
    pub fn engines(&self) -> usize {
        self.placed.len()
    }

    /// Place every worker of `engine` on the thread that polls the fewest ports (so a
    /// switch with several workers spreads over threads); it forwards from the
    /// threads' next round. Returns its control handle.
    pub fn add(&mut self, engine: Engine) -> Result<EngineHandle, EngineError> {
        let handle = engine.handle();
        let mut per: Vec<Vec<Worker>> = (0..self.slots.len()).map(|_| Vec::new()).collect();
        let mut on = Vec::new();
        for w in engine.workers {
            let weight = (w.owned.len() + w.rx_only.len()).max(1);
            let t = (0..self.slots.len())
                .min_by_key(|&t| self.slots[t].load)
                .unwrap_or(0);
            self.slots[t].load += weight;
            on.push((t, weight));
            per[t].push(w);
        }
        for (t, ws) in per.into_iter().enumerate() {
            if ws.is_empty() {
                continue;
            }
            let slot = &self.slots[t];
            slot.tx
                .send(Cmd::Add(ws))
                .map_err(|_| EngineError::HostGone)?;
            slot.wake.wake();
        }
        self.placed.push(Placed {
            state: handle.state.clone(),
            on,
        });
        Ok(handle)
    }

    /// Take back the workers of the engine `handle` controls, each drained by its
    /// thread (what it can still send is sent), with their ports: drop them to close
    /// the ports. The other engines forward on meanwhile. A frame one of its workers
    /// had queued towards a port another of its workers owns, on another thread, is
    /// dropped with the workers (single-worker switches have none).
    pub fn remove(&mut self, handle: &EngineHandle) -> Result<Vec<Worker>, EngineError> {
        let i = self
            .placed
            .iter()
            .position(|p| Arc::ptr_eq(&p.state, &handle.state))
            .ok_or(EngineError::NotPlaced)?;
        let placed = self.placed.swap_remove(i);
        let mut threads: Vec<usize> = placed.on.iter().map(|&(t, _)| t).collect();
        threads.sort_unstable();
        threads.dedup();
        for &(t, weight) in &placed.on {
            self.slots[t].load -= weight;
        }
        let mut out = Vec::new();
        for t in threads {
            let (reply, rx) = crossbeam_channel::bounded(1);
            let slot = &self.slots[t];
            let cmd = Cmd::Remove {
                state: placed.state.clone(),
                reply,
            };
            slot.tx.send(cmd).map_err(|_| EngineError::HostGone)?;
            slot.wake.wake();
            out.extend(
                rx.recv_timeout(REMOVE_TIMEOUT)
                    .map_err(|_| EngineError::HostGone)?,
            );
        }
        Ok(out)
    }

    /// Stop every thread (each drains what it can still send) and return all workers.
    pub fn stop(mut self) -> Vec<Worker> {
        stop_slots(&self.stop, &mut self.slots)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        stop_slots(&self.stop, &mut self.slots);
    }
}

/// Set `stop`, wake every thread and join it; the workers they held.
fn stop_slots(stop: &AtomicBool, slots: &mut [Slot]) -> Vec<Worker> {
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for s in slots.iter() {
        s.wake.wake();
    }
    let mut out = Vec::new();
    for s in slots.iter_mut() {
        if let Some(j) = s.join.take() {
            j.thread().unpark();
            if let Ok(ws) = j.join() {
                out.extend(ws);
            }
        }
    }
    out
}
