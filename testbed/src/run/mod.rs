//! `canopy-testbed run`: drive traffic through a running fabric and report.
//!
//! The fabric's state file gives the hosts and the switches' management sockets; the
//! traffic spec comes from the description's `[traffic]` table with command-line
//! overrides. Every switch's counters are read before the first trial and after the last
//! (the generator waits out its grace period, so nothing is in flight), which gives the
//! per-switch conservation check (rx = tx + drops, exactly) and the per-link loads. The
//! results go to `results.json`, `report.md`, `report.html` and SVG plots
//! ([`crate::report`]).
//!
//! | module | what |
//! |---|---|
//! | [`linkload`] | per-switch counter deltas and per-link loads of a run |
//! | [`limit`] | what limited a run, with the evidence |
//! | [`policy`] | the up-port policy: the flowlet gap from a measured spread, each policy's cost |

pub mod limit;
pub mod linkload;
pub mod policy;

use crate::error::{Result, TestbedError};
use crate::fabric::state::{state_dir, State};
use crate::report::results::{
    CpuSplit, GeneratorCeiling, Limit, RunMeta, RunResults, SearchResult, SwitchDelta, Trial,
    UpPolicyResult, SCHEMA_VERSION,
};
use crate::traffic::{Generator, TrafficSpec};
use linkload::Snapshot;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Management request timeout while reading counters.
const MGMT_TIMEOUT: Duration = Duration::from_secs(5);

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Root of the state directories.
    pub state_root: PathBuf,
    /// Fabric name.
    pub name: String,
    /// This machine's part (`local` unless the fabric spans machines).
    pub machine: String,
    /// The traffic (validated again here against the hosts that are up).
    pub spec: TrafficSpec,
    /// Host positions on another machine that run `canopy-testbed agent` (round trips).
    pub remote: Vec<usize>,
    /// Report directory.
    pub out: PathBuf,
    /// The command line, for the report.
    pub command: String,
}

/// A finished run.
#[derive(Debug)]
pub struct RunOutcome {
    /// Everything measured.
    pub results: RunResults,
    /// Where the report went.
    pub written: crate::report::run::Written,
}

impl RunOutcome {
    /// No frame reached a wrong host and every switch conserved frames exactly.
    pub fn correct(&self) -> bool {
        self.results.trials.iter().all(|t| t.misdelivered == 0)
            && self
                .results
                .switches
                .iter()
                .all(|s| s.conserved || s.unchecked.is_some())
    }
}

/// The `[traffic]` table of the description `up` read (the defaults when it has none).
pub fn spec_of(state: &State) -> Result<TrafficSpec> {
    let desc = state.desc()?;
    desc.raw
        .traffic
        .as_ref()
        .map_or_else(|| Ok(TrafficSpec::default()), TrafficSpec::from_table)
}

/// Counters of every switch of `state`. A switch that does not answer (killed in a
/// fault drill, say) is left out with a warning; the run's report then lists it as
/// unchecked instead of claiming its frames were accounted for.
pub fn snapshot(state: &State) -> Result<Snapshot> {
    let mut snap = Snapshot::new();
    if state.target == "bmv2" {
        return snapshot_bmv2(state);
    }
    for s in &state.switches {
        match crate::fabric::mgmt::counters(&s.mgmt(), MGMT_TIMEOUT) {
            Ok(c) => {
                snap.insert(s.name.clone(), c);
            }
            Err(e) => tracing::warn!(switch = %s.name, "no counters: {e}"),
        }
    }
    Ok(snap)
}

/// How long [`settled_snapshot`] waits for the fabric to go quiet.
const SETTLE_MAX: Duration = Duration::from_secs(10);

/// A [`snapshot`] once the fabric is quiet: frames a switch has received but not yet
/// sent (in its rings after an overload) would break rx = tx + drops, so the counters
/// are read until two readings 50 ms apart agree (at most `SETTLE_MAX`, 10 s; after that
/// the last reading, and the report names the switches that do not add up).
pub fn settled_snapshot(state: &State) -> Result<Snapshot> {
    let t0 = std::time::Instant::now();
    let mut last = snapshot(state)?;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = snapshot(state)?;
        let quiet = now.len() == last.len()
            && now.iter().all(|(k, c)| {
                last.get(k).is_some_and(|l| {
                    l.ports
                        .iter()
                        .zip(&c.ports)
                        .all(|(a, b)| (a.rx_packets, a.tx_packets) == (b.rx_packets, b.tx_packets))
                })
            });
        if quiet || t0.elapsed() > SETTLE_MAX {
            if !quiet {
                tracing::warn!(
                    "the switches were still forwarding {SETTLE_MAX:?} after the last trial"
                );
            }
            return Ok(now);
        }
        last = now;
    }
}

/// The backend of every port of every switch of `state`, by switch name, as each
/// switch's `health` reports it (`afpacket`, `afxdp/copy`, ...: the AF_XDP mode
/// obtained). bmv2 switches, and switches that do not answer (with a warning), are left
/// out: their report rows then name no backend.
pub fn port_backends(state: &State) -> BTreeMap<String, Vec<String>> {
    let mut m = BTreeMap::new();
    if state.target == "bmv2" {
        return m;
    }
    for s in &state.switches {
        match crate::fabric::mgmt::health(&s.mgmt(), MGMT_TIMEOUT) {
            Ok(h) => {
                let mut ports = h.ports;
                ports.sort_by_key(|p| p.port);
                // a lesser mode than asked for says why (AF_XDP `auto` on generic XDP)
                let label = |p: canopy_proto::mgmt::PortHealth| match p.mode_note {
                    Some(why) => format!("{} ({why})", p.backend),
                    None => p.backend,
                };
                m.insert(s.name.clone(), ports.into_iter().map(label).collect());
            }
            Err(e) => tracing::warn!(switch = %s.name, "no health: {e}"),
        }
    }
    m
}

/// bmv2 loses frames between the program's ingress and egress counters without
/// counting them: `simple_switch` drops a frame whose egress queue is full (it ignores
/// the result of `egress_buffers.push_front`). A switch that received more than it sent
/// and dropped is therefore listed as unchecked, with the gap named, instead of failing
/// conservation; one that sent more than it received still fails it.
pub(crate) fn bmv2_queue_losses(deltas: &mut [SwitchDelta]) {
    for d in deltas
        .iter_mut()
        .filter(|d| !d.conserved && d.unchecked.is_none())
    {
        let counted = d.tx + d.drops.values().sum::<u64>();
        if d.rx > counted {
            d.unchecked = Some(format!(
                "bmv2 lost {} frame(s) between ingress and egress that no P4 counter sees \
                 (full egress queue)",
                d.rx - counted
            ));
        }
    }
}

/// [`snapshot`] of a bmv2 fabric: every switch's port counters (`p4/canopy.p4`), read
/// with `simple_switch_CLI`, or over P4Runtime under canopyd, all switches at once.
fn snapshot_bmv2(state: &State) -> Result<Snapshot> {
    use crate::fabric::bmv2::{Observer, Tools};
    // a drill during the traffic records a restarted switch's new pid in the state file
    let fresh = State::load(&state.dir);
    let state = fresh.as_ref().unwrap_or(state);
    let desc = state.desc()?;
    let tools = match &state.bmv2_tools {
        Some(t) => t.clone(),
        None => Tools::find(&desc)?,
    };
    let read: Reader = match &tools.cli {
        Some(cli) => Reader::Cli(cli.clone()),
        None => Reader::P4rt(Observer::new(state)?),
    };
    // an overloaded bmv2 drains its queues for a while after the traffic stops: read
    // until two snapshots agree (at most five times)
    let total = |s: &Snapshot| -> (u64, u64, u64) {
        s.values().fold((0, 0, 0), |a, c| {
            (a.0 + c.rx_packets, a.1 + c.tx_packets, a.2 + c.dropped)
        })
    };
    let mut snap = read_bmv2(state, &desc, &read);
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(300));
        let again = read_bmv2(state, &desc, &read);
        let settled = total(&again) == total(&snap) && again.len() == snap.len();
        snap = again;
        if settled {
            break;
        }
    }
    Ok(snap)
}

/// How a bmv2 fabric's counters are read.
enum Reader {
    /// `simple_switch_CLI` in each switch's namespace.
    Cli(crate::fabric::bmv2::Cli),
    /// P4Runtime, as an observer beside canopyd.
    P4rt(crate::fabric::bmv2::Observer),
}

/// One read of every bmv2 switch's counters (see [`snapshot_bmv2`]).
fn read_bmv2(state: &State, desc: &crate::fabric::Desc, read: &Reader) -> Snapshot {
    let answers: Vec<(String, Result<_>)> = std::thread::scope(|sc| {
        let handles: Vec<_> = state
            .switches
            .iter()
            .map(|s| {
                sc.spawn(move || {
                    let Some(i) = desc.topo.switch_index(&s.name) else {
                        let e = TestbedError::fabric(&state.name, "not in the topology");
                        return (s.name.clone(), Err(e));
                    };
                    let names = desc.switch_ifnames(i as u32);
                    let c = match read {
                        Reader::Cli(cli) => cli.counters(&s.netns, s.pid, &names),
                        Reader::P4rt(o) => o.counters(&s.name, s.pid, &names),
                    };
                    (s.name.clone(), c)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut snap = Snapshot::new();
    for (name, a) in answers {
        match a {
            Ok(c) => {
                snap.insert(name, c);
            }
            Err(e) => tracing::warn!(switch = %name, "no counters: {e}"),
        }
    }
    snap
}

/// Run the traffic `opts.spec` describes on the fabric's hosts, read the switches'
/// counters around it, write the report. `stop` (SIGINT) ends a trial early; the run
/// then fails with [`TestbedError::Interrupted`] and nothing is written.
pub fn run(opts: &RunOptions, stop: Option<Arc<AtomicBool>>) -> Result<RunOutcome> {
    let state = running(&opts.state_root, &opts.name, &opts.machine)?;
    // (the machine's CPUs, read before the generator is confined to some of them)
    let mut meta = meta(&state, &opts.name, &opts.command);
    let split = split_cpus(&state);
    let cpus = if split.generator_cores.is_empty() {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        split.generator_cores.len()
    };
    opts.spec.validate(&state.hosts, cpus)?;
    let mut g = Generator::open_with_remote(&state.hosts, &opts.remote)?;
    if let Some(s) = stop {
        g.stop = s;
    }
    meta.pattern = opts.spec.pattern.to_string();
    meta.frame_len = opts.spec.frame_len();
    meta.cpus = split;
    let senders = g.senders(&opts.spec)?.len();
    if opts.spec.search.is_some() {
        meta.generator_ceiling = ceiling(&opts.spec, senders.max(1), cpus, &g.stop)?;
    }
    if meta.generator_ceiling.is_none() {
        // (every report states one: the ceiling `up` measured)
        meta.generator_ceiling = state.generator_ceiling.clone();
    }
    let backends = port_backends(&state);
    // the flowlet gap's calibration runs before the counters are read (its overload
    // would be the run's otherwise)
    let top = match opts.spec.search_max_pps(senders) {
        Some(max) => max,
        None => opts.spec.offered_pps(senders)?,
    };
    let mut up_policy = policy::prepare(&state, &opts.spec, &mut g, top)?;
    let before = if up_policy.as_ref().is_some_and(|p| p.calibration.is_some()) {
        settled_snapshot(&state)?
    } else {
        snapshot(&state)?
    };
    let (cpu0, rx_drops0) = (limit::sample(&state), g.rx_kernel_drops());
    let (trials, search) = g.run(&opts.spec)?;
    let (cpu1, rx_drops1) = (limit::sample(&state), g.rx_kernel_drops());
    let after = settled_snapshot(&state)?;
    report_to_daemon(&state, &trials);
    if let (Some(p), Some(ndr)) = (up_policy.as_mut(), search.as_ref().and_then(|s| s.ndr_pps)) {
        policy::compare(&state, &opts.spec, &mut g, ndr, p)?;
    }
    let limit = limit::verdict(&limit::Evidence {
        trials: &trials,
        before: &before,
        after: &after,
        cpu: (&cpu0, &cpu1),
        receiver_drops: rx_drops1.saturating_sub(rx_drops0),
        cpus: meta.header.machine.cpus,
        search_max: search.as_ref().map(|s| s.max_pps),
    });
    let counters = Counters {
        before: &before,
        after: &after,
        backends: &backends,
        limit: Some(limit),
    };
    let run = Ran {
        trials,
        search,
        up_policy,
    };
    finish(&state, meta, run, &counters, &opts.out)
}

/// The generator's own ceiling ([`crate::traffic::ceiling`]) with the run's frame size,
/// sender threads and receiver polling, 1 s on a veth pair of its own: what a search's
/// rates are to be read against. A measurement that fails costs a warning, not the run
/// (an interruption stops the run).
fn ceiling(
    spec: &TrafficSpec,
    senders: usize,
    cpus: usize,
    stop: &AtomicBool,
) -> Result<Option<GeneratorCeiling>> {
    use crate::traffic::ceiling::{generator_ceiling, CeilingOptions, MAX_THREADS};
    let o = CeilingOptions {
        frame_len: spec.frame_len(),
        tx_threads: spec.lanes(senders, cpus).min(MAX_THREADS),
        busy_poll: spec.busy_poll,
        ..CeilingOptions::default()
    };
    match generator_ceiling(&o, stop) {
        Ok(c) => {
            tracing::info!(
                tx_threads = c.tx_threads,
                sent_pps = c.sent_pps.round(),
                received_pps = c.receiver.as_ref().map(|r| r.received_pps.round()),
                lost = c.receiver.as_ref().map(|r| r.lost),
                "generator ceiling (one veth pair, no fabric)"
            );
            Ok(Some(c))
        }
        Err(TestbedError::Interrupted) => Err(TestbedError::Interrupted),
        Err(e) => {
            tracing::warn!("generator ceiling not measured: {e}");
            Ok(None)
        }
    }
}

/// Send every trial's counts and latency distribution to the fabric's `canopyd` (when
/// `up` started one), which exports them as `canopy_traffic_*` metrics. Best effort: a
/// daemon that does not answer costs a warning, not the run.
pub fn report_to_daemon(state: &State, trials: &[Trial]) {
    let Some(d) = &state.daemon else { return };
    let ep = canopy_proto::client::Endpoint::Unix(d.control.clone());
    for t in trials {
        let req = canopy_proto::control::Request::Traffic {
            sent: t.sent,
            received: t.received,
            lost: t.lost,
            misdelivered: t.misdelivered,
            latency_ns: t.latency.counts(),
        };
        match ep.request(&req, Duration::from_secs(5)) {
            Ok(v) if v["ok"].as_bool() == Some(true) => {}
            Ok(v) => {
                tracing::warn!("canopyd refused the traffic report: {}", v["error"]);
                return;
            }
            Err(e) => {
                tracing::warn!("cannot report the trial to canopyd: {e}");
                return;
            }
        }
    }
}

/// What to replay (`canopy-testbed replay`).
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// Root of the state directories.
    pub state_root: PathBuf,
    /// Fabric name.
    pub name: String,
    /// This machine's part.
    pub machine: String,
    /// The capture file (classic pcap or pcapng, Ethernet).
    pub file: PathBuf,
    /// Host position the frames leave from.
    pub from: usize,
    /// Rate; `None` keeps the file's own gaps.
    pub pps: Option<f64>,
    /// Report directory.
    pub out: PathBuf,
    /// The command line, for the report.
    pub command: String,
}

/// Replay the frames of a capture file (pcap or pcapng) out of one host of a running
/// fabric, count the generator frames among them like a trial (their measurement blocks
/// rewritten with this replay's run id, sequence numbers and send times), read the
/// switches' counters around it and write the report. Also returns the number of frames
/// sent that were not generator frames (not counted; their receivers see them as
/// foreign).
pub fn replay(o: &ReplayOptions, stop: Option<Arc<AtomicBool>>) -> Result<(RunOutcome, u64)> {
    let state = running(&o.state_root, &o.name, &o.machine)?;
    let frames = crate::traffic::pcap::read(&o.file)?;
    let mut g = Generator::open(&state.hosts)?;
    if let Some(s) = stop {
        g.stop = s;
    }
    let mut meta = meta(&state, &o.name, &o.command);
    meta.pattern = format!(
        "replay of {} from host position {}",
        o.file.display(),
        o.from
    );
    meta.frame_len = frames.iter().map(|f| f.data.len()).max().unwrap_or(0);
    let backends = port_backends(&state);
    let before = snapshot(&state)?;
    let (trial, unmeasured) = g.replay(o.from, &frames, o.pps, Duration::from_millis(200))?;
    let after = settled_snapshot(&state)?;
    report_to_daemon(&state, std::slice::from_ref(&trial));
    let counters = Counters {
        before: &before,
        after: &after,
        backends: &backends,
        limit: None,
    };
    let run = Ran {
        trials: vec![trial],
        search: None,
        up_policy: None,
    };
    let out = finish(&state, meta, run, &counters, &o.out)?;
    Ok((out, unmeasured))
}

/// The state of a fabric that `up` finished.
pub(crate) fn running(root: &Path, name: &str, machine: &str) -> Result<State> {
    if !crate::os::sys::is_root() {
        return Err(TestbedError::NotRoot);
    }
    let state = State::load(&state_dir(root, name, machine)).map_err(|e| TestbedError::Fabric {
        fabric: name.to_string(),
        detail: format!("no running fabric here ({e}); start it with `canopy-testbed up`"),
    })?;
    if !state.complete {
        return Err(TestbedError::Fabric {
            fabric: name.to_string(),
            detail: "`up` did not finish; run `canopy-testbed down` and `up` again".into(),
        });
    }
    Ok(state)
}

/// The CPUs of the switches and of the generator: with a shared host pinned to its
/// CPUs, the calling thread (and so every generator thread started after) is confined
/// to the others, so the two never take each other's CPU.
fn split_cpus(state: &State) -> CpuSplit {
    let Some(h) = &state.host else {
        return CpuSplit::default();
    };
    let mut split = CpuSplit {
        host_threads: h.threads,
        host_cores: h.cores.clone(),
        generator_cores: Vec::new(),
    };
    if !h.cores.is_empty() {
        let rest: Vec<usize> = crate::fabric::desc::machine_cpus()
            .into_iter()
            .filter(|c| !h.cores.contains(c))
            .collect();
        if !rest.is_empty() && crate::os::sys::set_cpu_affinity(&rest) {
            split.generator_cores = rest;
        }
    }
    split
}

/// What ran, where: everything but the pattern and the frame length.
fn meta(state: &State, name: &str, command: &str) -> RunMeta {
    RunMeta {
        header: crate::report::header(command),
        fabric: name.to_string(),
        topology: state.hosts.topology.clone(),
        kind: state.hosts.kind.clone(),
        target: state.target.clone(),
        hosts: state.hosts.hosts.len(),
        switches: state.switches.len(),
        pattern: String::new(),
        frame_len: 0,
        cpus: CpuSplit::default(),
        generator_ceiling: None,
        target_build: state.target_build.clone(),
        guests: state
            .vm
            .as_ref()
            .map(crate::fabric::state::VmState::describe),
    }
}

/// What `run` read from the switches: counters before and after, port backends.
struct Counters<'a> {
    before: &'a Snapshot,
    after: &'a Snapshot,
    backends: &'a BTreeMap<String, Vec<String>>,
    /// What limited the run (None: not judged, as for a replay).
    limit: Option<Limit>,
}

/// Results from the trials and the counter snapshots, written to `out`.
/// What a run's traffic gave: its trials, its search and its up-port policy.
struct Ran {
    trials: Vec<Trial>,
    search: Option<SearchResult>,
    up_policy: Option<UpPolicyResult>,
}

fn finish(state: &State, meta: RunMeta, ran: Ran, c: &Counters, out: &Path) -> Result<RunOutcome> {
    let Ran {
        trials,
        search,
        up_policy,
    } = ran;
    let (before, after) = (c.before, c.after);
    let topo = canopy_control::build_str(&state.hosts.topology)
        .map_err(|e| TestbedError::Frame(format!("topology {}: {e}", state.hosts.topology)))?;
    let results = RunResults {
        schema: SCHEMA_VERSION,
        meta,
        trials,
        search,
        switches: {
            let mut d = linkload::switch_deltas(before, after);
            if state.target == "bmv2" {
                bmv2_queue_losses(&mut d);
            }
            for s in &mut d {
                s.backends = c.backends.get(&s.name).cloned().unwrap_or_default();
            }
            d
        },
        links: linkload::link_loads(&topo, before, after),
        limit: c.limit.clone(),
        up_policy,
    };
    let written = crate::report::run::write(&results, out)?;
    Ok(RunOutcome { results, written })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bmv2_names_its_silent_queue_losses_and_nothing_else() {
        let d = |rx, tx, drops: &[(&str, u64)]| SwitchDelta {
            name: "s".into(),
            rx,
            tx,
            drops: drops.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
            conserved: rx == tx + drops.iter().map(|x| x.1).sum::<u64>(),
            unchecked: None,
            backends: vec![],
            backend_drops: BTreeMap::new(),
        };
        let mut v = vec![
            d(100, 90, &[("not_canopy", 4)]), // 6 lost in bmv2's queues
            d(100, 96, &[("not_canopy", 4)]), // conserved
            d(100, 101, &[]),                 // sent more than received: an error
        ];
        bmv2_queue_losses(&mut v);
        let why = v[0].unchecked.as_deref().unwrap();
        assert!(why.contains("lost 6 frame(s)"), "{why}");
        assert!(v[1].conserved && v[1].unchecked.is_none());
        assert!(!v[2].conserved && v[2].unchecked.is_none());
    }
}
