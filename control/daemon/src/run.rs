//! The daemon's loops (`docs/canopyd.md`):
//!
//! * one **prober** thread per switch probes it every probe interval (`health`, or over
//!   P4Runtime the pipeline's cookie), reads its counters and now and then its tables
//!   ([`super::target::Link`]) and records what it sees; it wakes the planner only when
//!   something changed (a switch came or went, a new incarnation, a port's link or
//!   admin state, tables lost or replaced behind the daemon's back);
//! * one **planner** thread turns what the probers saw into faults, prunes the base
//!   tables ([`super::prune`]), and pushes every switch whose tables are not the
//!   wanted ones — restarted switches first, so that their neighbours are only
//!   restored once they can forward;
//! * the control socket ([`super::control`]) and `/metrics` read snapshots.
//!
//! The planner does nothing until every switch has answered once or been declared
//! down: a daemon that starts (or restarts) beside a running fabric must not push
//! tables that ignore a fault it has not seen yet. A switch that already runs the
//! wanted tables is not pushed again (a restarted daemon takes over silently).

use super::config::Config;
use super::p4rt::P4rtError;
use super::prune::{prune, Faults};
use super::target::{Incarnation, Link, Running};
use canopy_dataplane::table::SwitchTables;
use canopy_proto::client::ClientError;
use canopy_proto::mgmt::{CountersReport, Health};
use canopy_proto::snapshot::{
    FabricSnapshot, HistogramSnapshot, SwitchSnapshot, TrafficSnapshot, PROBE_BUCKETS,
};
use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use thiserror::Error;
use tracing::{debug, info, warn};

/// Longest a table push may take (large tables over TCP).
const PUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// The planner re-checks at least this often.
const PLAN_TICK: Duration = Duration::from_millis(500);

/// Why the daemon could not do something to a switch: a request, a push, a port
/// command.
#[derive(Debug, Error)]
pub enum SwitchError {
    /// No readable answer (cannot connect, timeout, framing, protocol version).
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The switch answered with an error; its message.
    #[error("{0}")]
    Refused(String),
    /// The `health` answer does not decode.
    #[error("health is malformed: {0}")]
    MalformedHealth(#[source] serde_json::Error),
    /// The `counters` answer does not decode.
    #[error("counters are malformed: {0}")]
    MalformedCounters(#[source] serde_json::Error),
    /// The tables to push do not encode.
    #[error("cannot encode the tables: {0}")]
    Encode(#[source] serde_json::Error),
    /// The switch is down, so nothing was pushed.
    #[error("down: {}", last_error.as_deref().unwrap_or("does not answer"))]
    Down {
        /// Why its last probe failed, if known.
        last_error: Option<String>,
    },
    /// A P4Runtime request failed.
    #[error(transparent)]
    P4rt(#[from] P4rtError),
    /// The tables have no form in canopy.p4 (a P4Runtime switch cannot run them).
    #[error("the tables do not fit canopy.p4: {0}")]
    NotP4(String),
    /// A port the switch does not have.
    #[error("{name} has ports 0..{ports}, not {port}")]
    NoPort {
        /// The switch.
        name: String,
        /// How many ports it has.
        ports: usize,
        /// The port asked for.
        port: u16,
    },
}

/// A request to the planner (from the control socket).
pub enum Command {
    /// Push the wanted tables again (one switch, or all), and answer per switch.
    Push {
        /// Switch index, or every switch.
        switch: Option<usize>,
        /// Where the answer goes.
        reply: Sender<Vec<(String, Result<(), SwitchError>)>>,
    },
    /// Set a port down (drained first: the fabric is pruned around it, then the port
    /// goes down) or up (up first, then restored).
    SetPort {
        /// Switch index.
        switch: usize,
        /// Port.
        port: u16,
        /// Up or down.
        up: bool,
        /// Where the answer goes.
        reply: Sender<Result<String, SwitchError>>,
    },
}

enum Event {
    Changed,
    Cmd(Command),
}

/// What the daemon keeps per switch.
struct Sw {
    up: bool,
    /// Has answered or been declared down at least once.
    settled: bool,
    misses: u32,
    last_error: Option<String>,
    health: Option<Health>,
    counters: Option<CountersReport>,
    /// (incarnation, generation) of the last successful push.
    pushed: Option<(Incarnation, u64)>,
    /// Generation of the wanted tables.
    gen: u64,
    /// The incarnation the last push or read-back was for; a new one is a restart.
    pid: Option<Incarnation>,
    admin_down: BTreeSet<u16>,
    /// Ports the switch reports down (link or admin), from the last health.
    ports_down: BTreeSet<u16>,
    pushes: u64,
    push_failures: u64,
    down_events: u64,
    restarts: u64,
    probe_rtt: HistogramSnapshot,
    /// Read back and compare the tables at the next probe.
    verify: bool,
    /// The tables read back at first contact with a pid (adopted without a push when
    /// they are the wanted ones).
    seen: Option<(Incarnation, Running)>,
}

impl Sw {
    fn new() -> Self {
        Sw {
            up: false,
            settled: false,
            misses: 0,
            last_error: None,
            health: None,
            counters: None,
            pushed: None,
            gen: 1,
            pid: None,
            admin_down: BTreeSet::new(),
            ports_down: BTreeSet::new(),
            pushes: 0,
            push_failures: 0,
            down_events: 0,
            restarts: 0,
            probe_rtt: HistogramSnapshot::new(PROBE_BUCKETS),
            verify: true,
            seen: None,
        }
    }

    fn current(&self) -> bool {
        self.up && self.pid.is_some() && self.pushed == self.pid.map(|p| (p, self.gen))
    }

    /// Ports set down through the daemon that the switch reports admin up (a
    /// restarted switch forgot them).
    fn readmin(&self) -> Vec<u16> {
        let h = self.health.as_ref();
        self.admin_down
            .iter()
            .copied()
            .filter(|p| {
                h.and_then(|h| h.ports.iter().find(|q| q.port == *p))
                    .is_some_and(|q| q.admin)
            })
            .collect()
    }
}

struct State {
    sw: Vec<Sw>,
    wanted: Vec<SwitchTables>,
    pruned: Vec<Vec<u16>>,
    faults: Option<Faults>,
    warnings: Vec<String>,
    traffic: Option<TrafficSnapshot>,
}

impl State {
    /// The faults the switches' states show now: switches down, ports down (by link or
    /// through the daemon) on the switches that are up.
    fn faults_seen(&self) -> Faults {
        let mut f = Faults::default();
        for (i, s) in self.sw.iter().enumerate() {
            if !s.up {
                f.dead_switches.insert(i as u32);
            } else {
                for &p in s.ports_down.iter().chain(s.admin_down.iter()) {
                    f.dead_ports.insert((i as u32, p));
                }
            }
        }
        f
    }

    /// The faults the tables are computed from, and the switches held dead in them: a
    /// switch that came back (dead in the faults last planned for, up now) stays dead
    /// in them until it runs the tables wanted for it, so that its neighbours are only
    /// restored once it can forward. Without this, a plan made while its read-back
    /// still runs (it is not pushed then) restored its neighbours towards a switch that
    /// had no tables yet, and it dropped what they sent it.
    fn faults_to_plan(&self) -> (Faults, Vec<u32>) {
        let mut f = self.faults_seen();
        let held: Vec<u32> = self
            .faults
            .iter()
            .flat_map(|prev| prev.dead_switches.iter().copied())
            .filter(|&d| {
                let s = &self.sw[d as usize];
                s.up && !s.current()
            })
            .collect();
        for &d in &held {
            f.dead_switches.insert(d);
            f.dead_ports.retain(|&(s, _)| s != d);
        }
        (f, held)
    }

    /// Every switch runs the wanted tables, and those were computed from the faults
    /// seen now: a switch that just came back (or went) makes the fabric not ready until
    /// the planner has pruned or restored around it.
    fn ready(&self) -> bool {
        self.sw.iter().all(|s| s.current()) && self.faults.as_ref() == Some(&self.faults_seen())
    }
}

struct Shared {
    cfg: Config,
    /// How each switch is reached (index = switch index).
    links: Vec<Link>,
    /// The runtime of the P4Runtime sessions, when a switch speaks P4Runtime (dropped
    /// after the threads that use it stop).
    _rt: Option<tokio::runtime::Runtime>,
    state: Mutex<State>,
    events: Sender<Event>,
    stop: AtomicBool,
    started: Instant,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running daemon: its probers and planner. Stops (and joins) on [`Daemon::stop`]
/// or drop.
pub struct Daemon {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

/// A cheap handle to read snapshots and send commands (for the HTTP and control
/// servers).
#[derive(Clone)]
pub struct DaemonHandle {
    shared: Arc<Shared>,
}

impl Daemon {
    /// Start probing and planning for `cfg`.
    pub fn start(cfg: Config) -> std::io::Result<Daemon> {
        let (tx, rx) = unbounded();
        let n = cfg.topology.switches.len();
        let wanted = cfg.base.clone();
        let rt = match &cfg.p4rt {
            Some(_) => Some(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("p4rt")
                    .enable_all()
                    .build()?,
            ),
            None => None,
        };
        let p4rt = cfg.p4rt.as_ref().zip(rt.as_ref().map(|r| r.handle()));
        let links = cfg
            .targets
            .iter()
            .map(|t| {
                Link::new(t, p4rt).ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("{t}: a P4Runtime switch without a program to push"),
                    )
                })
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        let shared = Arc::new(Shared {
            links,
            _rt: rt,
            state: Mutex::new(State {
                sw: (0..n).map(|_| Sw::new()).collect(),
                wanted,
                pruned: vec![vec![]; n],
                faults: None,
                warnings: vec![],
                traffic: None,
            }),
            cfg,
            events: tx,
            stop: AtomicBool::new(false),
            started: Instant::now(),
        });
        let mut threads = Vec::with_capacity(n + 1);
        for i in 0..n {
            let sh = shared.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(format!("probe-{i}"))
                    .spawn(move || prober(sh, i))?,
            );
        }
        let sh = shared.clone();
        threads.push(
            std::thread::Builder::new()
                .name("planner".into())
                .spawn(move || planner(sh, rx))?,
        );
        info!(
            fabric = %shared.cfg.name,
            switches = n,
            "canopyd started: probing every {} ms",
            shared.cfg.probe_interval.as_millis()
        );
        Ok(Daemon { shared, threads })
    }

    /// A handle for servers.
    pub fn handle(&self) -> DaemonHandle {
        DaemonHandle {
            shared: self.shared.clone(),
        }
    }

    /// Stop every thread and wait for them.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        let _ = self.shared.events.send(Event::Changed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl DaemonHandle {
    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.cfg
    }

    /// Whether the daemon's loops still run (for `/healthz`).
    pub fn running(&self) -> bool {
        !self.shared.stop.load(Ordering::Acquire)
    }

    /// Everything the daemon knows now.
    pub fn snapshot(&self) -> FabricSnapshot {
        let cfg = &self.shared.cfg;
        let st = self.shared.lock();
        let switches: Vec<SwitchSnapshot> = st
            .sw
            .iter()
            .enumerate()
            .map(|(i, s)| SwitchSnapshot {
                name: cfg.topology.switches[i].name.clone(),
                endpoint: cfg.targets[i].to_string(),
                up: s.up,
                last_error: s.last_error.clone(),
                health: s.health.clone(),
                instance: s.pid.map(|(_, i)| i),
                counters: s.counters.clone(),
                pruned_ports: st.pruned[i].clone(),
                admin_down: s.admin_down.iter().copied().collect(),
                tables_current: s.current(),
                pushes_total: s.pushes,
                push_failures_total: s.push_failures,
                down_events_total: s.down_events,
                restarts_total: s.restarts,
                probe_rtt: s.probe_rtt.clone(),
            })
            .collect();
        FabricSnapshot {
            fabric: cfg.name.clone(),
            topology: cfg.spec.clone(),
            kind: cfg.kind.name().into(),
            uptime_s: self.shared.started.elapsed().as_secs_f64(),
            ready: st.ready(),
            switches,
            traffic: st.traffic.clone(),
        }
    }

    /// Warnings of the last pruning (degraded groups, unreachable destinations).
    pub fn warnings(&self) -> Vec<String> {
        self.shared.lock().warnings.clone()
    }

    /// Index of a switch by name.
    pub fn switch_index(&self, name: &str) -> Option<usize> {
        self.shared.cfg.topology.switch_index(name)
    }

    /// Send a command to the planner.
    pub fn command(&self, c: Command) -> bool {
        self.shared.events.send(Event::Cmd(c)).is_ok()
    }

    /// Add one traffic generator report.
    pub fn add_traffic(
        &self,
        sent: u64,
        received: u64,
        lost: u64,
        misdelivered: u64,
        latency_ns: &[(u64, u64)],
    ) {
        let mut st = self.shared.lock();
        let t = st.traffic.get_or_insert_with(TrafficSnapshot::default);
        // reports come from outside: saturate instead of overflowing
        t.sent_total = t.sent_total.saturating_add(sent);
        t.received_total = t.received_total.saturating_add(received);
        t.lost_total = t.lost_total.saturating_add(lost);
        t.misdelivered_total = t.misdelivered_total.saturating_add(misdelivered);
        for &(v, n) in latency_ns {
            // every bucket count is <= count, so this bounds both
            let n = n.min(u64::MAX - t.latency.count);
            t.latency.observe_n(v as f64 * 1e-9, n);
        }
    }
}

/// One switch's prober.
fn prober(sh: Arc<Shared>, i: usize) {
    let cfg = &sh.cfg;
    let link = &sh.links[i];
    let name = &cfg.topology.switches[i].name;
    let mut next_counters = Instant::now();
    let mut next_verify = Instant::now() + cfg.verify_interval;
    while !sh.stop.load(Ordering::Acquire) {
        let t0 = Instant::now();
        let r = link.probe(cfg.probe_timeout);
        let rtt = t0.elapsed();
        let mut changed = false;
        let mut read_counters = false;
        let mut verify = false;
        {
            let mut st = sh.lock();
            let s = &mut st.sw[i];
            match r {
                Ok(h) => {
                    s.probe_rtt.observe(rtt.as_secs_f64());
                    s.misses = 0;
                    s.last_error = None;
                    let inc = h.incarnation;
                    if !s.up {
                        info!(switch = %name, pid = inc.0, instance = inc.1, "switch is up");
                        s.up = true;
                        changed = true;
                    }
                    if !s.settled {
                        s.settled = true;
                        // a daemon (re)starting beside a running fabric adopts the
                        // ports someone set down
                        s.admin_down = h.admin_down();
                        changed = true;
                    }
                    if s.pid != Some(inc) {
                        if s.pid.is_some() {
                            s.restarts += 1;
                            info!(switch = %name, old = ?s.pid, new = ?inc, "switch restarted");
                        }
                        s.pid = Some(inc);
                        s.verify = true;
                        changed = true;
                    }
                    if !h.tables_loaded && s.pushed.is_some_and(|(p, _)| p == inc) {
                        // it lost its tables without restarting (cannot happen today;
                        // push again all the same)
                        s.pushed = None;
                        changed = true;
                    }
                    let down = h.ports_down();
                    if down != s.ports_down {
                        info!(switch = %name, down = ?down, "port states changed");
                        s.ports_down = down;
                        changed = true;
                    }
                    s.health = h.health;
                    read_counters = Instant::now() >= next_counters;
                    verify = s.verify || Instant::now() >= next_verify;
                }
                Err(e) => {
                    s.misses += 1;
                    if s.misses >= cfg.missed_probes {
                        if s.up {
                            warn!(switch = %name, "switch is down after {} missed probes: {e}", s.misses);
                            s.up = false;
                            s.down_events += 1;
                            s.counters = None;
                            changed = true;
                        }
                        if !s.settled {
                            s.settled = true;
                            warn!(switch = %name, "switch does not answer: {e}");
                            changed = true;
                        }
                    }
                    s.last_error = Some(e.to_string());
                }
            }
        }
        if read_counters {
            next_counters = Instant::now() + cfg.counters_interval;
            match link.counters(cfg.base[i].ports.len(), cfg.probe_timeout) {
                Ok(c) => sh.lock().sw[i].counters = Some(c),
                Err(e) => debug!(switch = %name, "counters: {e}"),
            }
        }
        if verify {
            next_verify = Instant::now() + cfg.verify_interval;
            if verify_tables(&sh, i) {
                changed = true;
            }
        }
        if changed {
            let _ = sh.events.send(Event::Changed);
        }
        let spent = t0.elapsed();
        if let Some(rest) = cfg.probe_interval.checked_sub(spent) {
            sleep_unless_stopped(&sh, rest);
        }
    }
}

fn sleep_unless_stopped(sh: &Shared, d: Duration) {
    let end = Instant::now() + d;
    while !sh.stop.load(Ordering::Acquire) {
        let now = Instant::now();
        if now >= end {
            return;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// Read the switch's tables back and compare them with the wanted ones. True when
/// the planner has something to do: the switch runs other tables than the daemon
/// believes (replaced behind its back), or — at first contact — it already runs the
/// wanted ones (a restarted daemon adopts them without a push).
fn verify_tables(sh: &Shared, i: usize) -> bool {
    let cfg = &sh.cfg;
    let name = &cfg.topology.switches[i].name;
    let got = match sh.links[i].running(PUSH_TIMEOUT) {
        Ok(t) => t,
        Err(e) => {
            debug!(switch = %name, "reading the tables back: {e}");
            return false;
        }
    };
    let mut st = sh.lock();
    let same = got.as_ref().is_some_and(|t| t.is(&st.wanted[i]));
    let s = &mut st.sw[i];
    s.verify = false;
    let Some(pid) = s.pid else { return false };
    if let Some(t) = got.filter(|_| !same && s.pushed.is_none_or(|(p, _)| p != pid)) {
        // not the tables wanted now; maybe the ones wanted once the faults are known
        s.seen = Some((pid, t));
        return true;
    }
    if same {
        // a switch that forgot ports set down through the daemon is pushed (the
        // push sets them down again first), not adopted
        if s.pushed != Some((pid, s.gen)) && s.readmin().is_empty() {
            debug!(switch = %name, "switch already runs the wanted tables");
            s.pushed = Some((pid, s.gen));
            return true;
        }
        false
    } else if s.pushed == Some((pid, s.gen)) {
        warn!(switch = %name, "the switch's tables are not the ones pushed (replaced behind the daemon's back?); pushing again");
        s.pushed = None;
        true
    } else {
        false
    }
}

/// The planner: faults → pruned tables → pushes; commands from the control socket.
fn planner(sh: Arc<Shared>, rx: Receiver<Event>) {
    while !sh.stop.load(Ordering::Acquire) {
        match rx.recv_timeout(PLAN_TICK) {
            Ok(Event::Changed) | Err(RecvTimeoutError::Timeout) => {
                // coalesce a burst of changes
                while let Ok(e) = rx.try_recv() {
                    if let Event::Cmd(c) = e {
                        plan(&sh);
                        command(&sh, c);
                    }
                }
                plan(&sh);
            }
            Ok(Event::Cmd(c)) => {
                plan(&sh);
                command(&sh, c);
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// One push the planner makes.
struct PushJob {
    i: usize,
    tables: SwitchTables,
    /// The incarnation the push is for.
    pid: Incarnation,
    gen: u64,
    /// First push to this process.
    restarted: bool,
    /// Ports to set down again first (a restarted switch forgot them).
    readmin: Vec<u16>,
}

/// Compute the wanted tables from the faults and push where needed. Returns the
/// results of the pushes made.
fn plan(sh: &Shared) -> Vec<(usize, Result<(), SwitchError>)> {
    let cfg = &sh.cfg;
    let (work, held): (Vec<PushJob>, Vec<u32>) = {
        let mut st = sh.lock();
        if !st.sw.iter().all(|s| s.settled) {
            return vec![];
        }
        let (f, held) = st.faults_to_plan();
        if !held.is_empty() {
            // a switch held dead for its neighbours gets its own tables from the
            // faults as they are (it is up)
            let own = prune(&cfg.topology, &cfg.base, &st.faults_seen());
            for &d in &held {
                let d = d as usize;
                if st.wanted[d] != own.tables[d] {
                    st.wanted[d] = own.tables[d].clone();
                    st.sw[d].gen += 1;
                }
            }
        }
        if st.faults.as_ref() != Some(&f) {
            let t0 = Instant::now();
            let p = prune(&cfg.topology, &cfg.base, &f);
            let n: usize = p.pruned.iter().map(Vec::len).sum();
            info!(
                dead_switches = f.dead_switches.len(),
                dead_ports = f.dead_ports.len(),
                pruned_ports = n,
                "faults changed; tables pruned in {:?}",
                t0.elapsed()
            );
            for w in &p.warnings {
                warn!("{w}");
            }
            for (i, t) in p.tables.into_iter().enumerate() {
                if held.contains(&(i as u32)) {
                    continue;
                }
                if st.wanted[i] != t {
                    st.wanted[i] = t;
                    st.sw[i].gen += 1;
                }
            }
            st.pruned = p.pruned;
            st.warnings = p.warnings;
            st.faults = Some(f);
        }
        // a switch that already runs the wanted tables (left by an earlier daemon) is
        // adopted without a push
        let State { sw, wanted, .. } = &mut *st;
        for (s, w) in sw.iter_mut().zip(wanted.iter()) {
            if let (Some(pid), Some((seen_pid, t))) = (s.pid, &s.seen) {
                // (not when ports must be set down again: that comes with a push)
                if *seen_pid == pid && !s.current() && s.readmin().is_empty() && t.is(w) {
                    debug!("adopting the tables a switch already runs");
                    s.pushed = Some((pid, s.gen));
                }
            }
            s.seen = None;
        }
        let mut w: Vec<_> = st
            .sw
            .iter()
            .enumerate()
            .filter(|(_, s)| s.up && !s.verify && s.pid.is_some() && !s.current())
            .map(|(i, s)| {
                let restarted = s.pushed.is_none_or(|(p, _)| Some(p) != s.pid);
                // ports to set down again on a restarted switch
                let readmin: Vec<u16> = if restarted { s.readmin() } else { vec![] };
                PushJob {
                    i,
                    tables: st.wanted[i].clone(),
                    pid: s.pid.unwrap_or_default(),
                    gen: s.gen,
                    restarted,
                    readmin,
                }
            })
            .collect();
        // restarted (or new) switches first: their neighbours are restored after
        w.sort_by_key(|x| !x.restarted);
        (w, held)
    };
    let mut out = Vec::with_capacity(work.len());
    for PushJob {
        i,
        tables,
        pid,
        gen,
        restarted,
        readmin,
    } in work
    {
        let name = &cfg.topology.switches[i].name;
        let link = &sh.links[i];
        for p in readmin {
            match link.set_port(p, false, cfg.probe_timeout) {
                Ok(true) => info!(switch = %name, port = p, "port set down again after a restart"),
                Ok(false) => {}
                Err(e) => warn!(switch = %name, port = p, "cannot set the port down again: {e}"),
            }
        }
        let t0 = Instant::now();
        let r = link.push(&tables, PUSH_TIMEOUT);
        let mut st = sh.lock();
        let s = &mut st.sw[i];
        match &r {
            Ok(_) => {
                s.pushes += 1;
                if s.pid == Some(pid) {
                    s.pushed = Some((pid, gen));
                }
                info!(switch = %name, gen, restarted, "tables pushed in {:?}", t0.elapsed());
            }
            Err(e) => {
                s.push_failures += 1;
                warn!(switch = %name, "table push failed: {e}");
            }
        }
        out.push((i, r.map(|_| ())));
    }
    // a switch held dead now runs its tables: plan again at once to restore around it
    if !held.is_empty() && held.iter().any(|&d| sh.lock().sw[d as usize].current()) {
        let _ = sh.events.send(Event::Changed);
    }
    out
}

fn command(sh: &Shared, c: Command) {
    let cfg = &sh.cfg;
    match c {
        Command::Push { switch, reply } => {
            {
                let mut st = sh.lock();
                for (i, s) in st.sw.iter_mut().enumerate() {
                    if switch.is_none_or(|w| w == i) {
                        s.pushed = None;
                    }
                }
            }
            let done = plan(sh);
            // the plan may also push other stale switches; answer for the ones asked
            let mut answer: Vec<(String, Result<(), SwitchError>)> = done
                .into_iter()
                .filter(|(i, _)| switch.is_none_or(|w| w == *i))
                .map(|(i, r)| (cfg.topology.switches[i].name.clone(), r))
                .collect();
            // switches that could not be pushed because they are down
            let st = sh.lock();
            for (i, s) in st.sw.iter().enumerate() {
                if switch.is_none_or(|w| w == i) && !s.up {
                    answer.push((
                        cfg.topology.switches[i].name.clone(),
                        Err(SwitchError::Down {
                            last_error: s.last_error.clone(),
                        }),
                    ));
                }
            }
            let _ = reply.send(answer);
        }
        Command::SetPort {
            switch,
            port,
            up,
            reply,
        } => {
            let name = cfg.topology.switches[switch].name.clone();
            let nports = cfg.base[switch].ports.len();
            if usize::from(port) >= nports {
                let _ = reply.send(Err(SwitchError::NoPort {
                    name,
                    ports: nports,
                    port,
                }));
                return;
            }
            let link = &sh.links[switch];
            let r = if up {
                // up first, then the fabric uses it again
                let r = link.set_port(port, true, cfg.probe_timeout);
                if r.is_ok() {
                    {
                        let mut st = sh.lock();
                        let s = &mut st.sw[switch];
                        s.admin_down.remove(&port);
                        // the next probe puts it back if its link is down
                        s.ports_down.remove(&port);
                    }
                    plan(sh);
                }
                r.map(|_| format!("{name} port {port} is up; groups restored"))
            } else {
                // drain: prune the fabric around the port, then take it down
                let added = sh.lock().sw[switch].admin_down.insert(port);
                let pushed = plan(sh);
                let failed: Vec<String> = pushed
                    .iter()
                    .filter_map(|(i, r)| {
                        r.as_ref()
                            .err()
                            .map(|e| format!("{}: {e}", cfg.topology.switches[*i].name))
                    })
                    .collect();
                let r = link.set_port(port, false, cfg.probe_timeout);
                if r.is_err() && added {
                    // the port is not down: forget it (a restarted switch must not
                    // get it down later) and give the fabric the port back
                    sh.lock().sw[switch].admin_down.remove(&port);
                    plan(sh);
                }
                r.map(|on_switch| {
                    let mut m = if on_switch {
                        format!(
                            "{name} port {port} is down; {} switch(es) re-pushed first",
                            pushed.len()
                        )
                    } else {
                        format!(
                            "{name} port {port} is drained: {} switch(es) re-pushed around it (P4Runtime has no port control: the port itself stays up)",
                            pushed.len()
                        )
                    };
                    if !failed.is_empty() {
                        m += &format!(" ({} push(es) failed: {})", failed.len(), failed.join("; "));
                    }
                    m
                })
            };
            if let Err(e) = &r {
                warn!(switch = %name, port, up, "set_port: {e}");
            }
            let _ = reply.send(r);
        }
    }
}

/// Wait for an answer from the planner (the control socket's requests).
pub fn wait<T>(rx: Receiver<T>, timeout: Duration) -> Option<T> {
    rx.recv_timeout(timeout).ok()
}

/// A reply channel for a [`Command`].
pub fn reply_channel<T>() -> (Sender<T>, Receiver<T>) {
    bounded(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A switch that is up and runs the wanted tables (generation 1) of incarnation 7.
    fn current_sw() -> Sw {
        let mut s = Sw::new();
        s.up = true;
        s.pid = Some((7, 7));
        s.pushed = Some(((7, 7), 1));
        s
    }

    #[test]
    fn the_fabric_is_ready_only_once_the_tables_match_the_faults_seen() {
        let mut st = State {
            sw: vec![current_sw(), current_sw()],
            wanted: vec![],
            pruned: vec![],
            faults: Some(Faults::default()),
            warnings: vec![],
            traffic: None,
        };
        assert!(st.ready());
        // switch 1 hung: pruned around it, the others current: not ready (it is down)
        st.sw[1].up = false;
        st.faults = Some(st.faults_seen());
        assert!(!st.ready());
        // it answers again: every switch current, but the tables are still the pruned
        // ones until the planner restores them
        st.sw[1].up = true;
        assert!(st.sw.iter().all(Sw::current));
        assert!(!st.ready(), "ready before the planner saw the switch back");
        st.faults = Some(st.faults_seen());
        assert!(st.ready());
        // a port down seen before the planner prunes around it: not ready either
        st.sw[0].ports_down.insert(2);
        assert!(!st.ready());
        // never planned: not ready
        st.faults = None;
        st.sw[0].ports_down.clear();
        assert!(!st.ready());
    }

    #[test]
    fn a_switch_that_came_back_stays_dead_for_its_neighbours_until_it_runs_its_tables() {
        let mut st = State {
            sw: vec![current_sw(), current_sw(), current_sw()],
            wanted: vec![],
            pruned: vec![],
            faults: Some(Faults::default()),
            warnings: vec![],
            traffic: None,
        };
        assert_eq!(st.faults_to_plan(), (Faults::default(), vec![]));
        // switch 1 died and was pruned around
        st.sw[1].up = false;
        st.faults = Some(st.faults_seen());
        let dead = st.faults.clone().unwrap();
        assert_eq!(st.faults_to_plan(), (dead.clone(), vec![]));
        // it is back as a new process, with a port down, and not pushed yet (its
        // read-back may still run): still dead in the faults the tables come from
        st.sw[1].up = true;
        st.sw[1].pid = Some((8, 8));
        st.sw[1].ports_down.insert(3);
        assert!(!st.sw[1].current());
        assert_ne!(st.faults_seen(), dead);
        assert_eq!(st.faults_to_plan(), (dead.clone(), vec![1]));
        assert!(!st.ready());
        // pushed: its neighbours are restored
        st.sw[1].pushed = Some(((8, 8), st.sw[1].gen));
        let (f, held) = st.faults_to_plan();
        assert!(held.is_empty());
        assert_eq!(f, st.faults_seen());
        assert!(!f.dead_switches.contains(&1) && f.dead_ports.contains(&(1, 3)));
        // a switch that hung and answers again as the same process still runs its
        // tables: restored at once
        st.faults = Some(f);
        st.sw[2].up = false;
        st.faults = Some(st.faults_seen());
        st.sw[2].up = true;
        assert_eq!(st.faults_to_plan(), (st.faults_seen(), vec![]));
        // one never planned for holds nothing
        st.faults = None;
        assert_eq!(st.faults_to_plan().1, Vec::<u32>::new());
    }
}
