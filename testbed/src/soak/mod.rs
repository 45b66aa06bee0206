//! `canopy-testbed soak`: drive a running fabric at its packet delivery rate (PDR) for a
//! bounded time and account for every frame end to end, optionally while faults are
//! injected in rounds (`docs/testbed.md`, "Soak"; `docs/RELIABILITY.md` §2, §3).
//!
//! **Accounting.** Around one long trial the soak reads every switch's counters, the
//! kernel counters of every interface of every namespace of the fabric (`ip -s -j link`),
//! every qdisc's drops (`tc -s -j qdisc`) and the generator's own receive sockets'
//! `tp_drops`. Then
//!
//! ```text
//! unaccounted = sent − received − misdelivered − counted drops
//! counted     = Σ switch drops by reason (engine)
//!             + Σ switch backend drops outside the engine (tp_drops, rx_truncated,
//!               rx_bad_block, rx_no_buffer, tx_wrong_format)
//!             + Σ interface rx_dropped + tx_dropped (veth: a full backlog, a peer down)
//!             + Σ qdisc drops + frames still held in switch TX rings
//!             + the generator's receive sockets' tp_drops
//! ```
//!
//! must be 0. The generator never loses a frame before the wire: it waits for TX ring
//! space and counts a frame as sent only once the ring took it; the frames every host
//! put on its wire are checked against what the generator counted (`host_wire_extra`,
//! must be 0). Per switch, rx = tx + Σ drops exactly; per switch port, the kernel's
//! interface counters are checked against the switch's (`ports`), which names the hop
//! where a frame vanished. What cannot be counted is named in `uncounted`, never
//! absorbed: frames in a killed switch's rings die with its counters, so a soak with
//! switch kills is not exact and says so.
//!
//! **Faults.** With `rounds > 0` a thread injects, round after round while the traffic
//! flows: an unannounced link-down and up, a SIGKILLed switch started again, a SIGKILLed
//! `canopyd` started again, and a slowed egress port (a `tbf` qdisc on a switch port
//! whose socket does not bypass the qdisc: its TX ring fills). Recovery is read from the
//! traffic itself: every frame carries its send time; the trial counts frames sent and
//! received per 10 ms bin of send time ([`Timeline`](crate::report::results::Timeline)); the time from a fault (or its
//! repair) to the end of the last bin that lost a frame is the time to full delivery.

//!
//! | module | what |
//! |---|---|
//! | (here) | the options and the soak: the rate, one long trial with the faults beside it, the report |
//! | [`faults`] | the faults and their injection |
//! | [`account`] | the counters around the trial, the accounting, recovery times, the verdict |

pub mod account;
pub mod faults;
mod ports;

use ports::{PortKinds, RxOverlap};

pub use faults::{FaultKind, FaultPlan};

use crate::error::{Result, TestbedError};
use crate::report::results::soak::{FaultEvent, SoakReport};
use crate::run::{self, linkload};
use crate::traffic::progress::Progress;
use crate::traffic::{Generator, Rate, SearchSpec, TrafficSpec};
use account::{account, judge, min_delivery, port_hops, read_counters, recovery};
use faults::{inject, targets};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the soak's rate is chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum RateChoice {
    /// Take this rate (pps over all senders).
    Given(f64),
    /// Measure the PDR with a binary search of trials this long (seconds), starting at
    /// `max_pps` (default: the generator's ceiling).
    Search {
        /// Send time of each search trial.
        trial_s: f64,
        /// First (highest) rate of the search.
        max_pps: Option<f64>,
        /// PDR loss threshold.
        pdr_loss: f64,
    },
}

/// What to run.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Root of the state directories.
    pub state_root: PathBuf,
    /// Fabric name.
    pub name: String,
    /// This machine's part.
    pub machine: String,
    /// Pattern, frame size, seed (its rate, duration and search are replaced).
    pub spec: TrafficSpec,
    /// The rate, or how to measure it.
    pub rate: RateChoice,
    /// Fraction of the PDR to drive at (1.0: at the PDR).
    pub load: f64,
    /// Send time, seconds (raised to what the fault plan needs).
    pub duration_s: f64,
    /// Timeline bin, milliseconds.
    pub bin_ms: u64,
    /// Faults.
    pub faults: FaultPlan,
    /// Longest recovery accepted, milliseconds.
    pub recovery_limit_ms: f64,
    /// Report directory.
    pub out: PathBuf,
    /// The command line.
    pub command: String,
}

/// How long canopyd may take to declare a guest switch down, in ms (None: not a VM
/// fabric, or no canopyd): its missed probes, each up to the longer of its probe
/// timeout and interval. A switch in a killed guest answers nothing (no reset, no
/// refusal), so only that many probe timeouts tell it apart from a slow guest.
fn guest_detect_ms(state: &crate::fabric::state::State) -> Result<Option<f64>> {
    let (Some(_), Some(d)) = (&state.vm, &state.daemon) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&d.config)
        .map_err(|e| TestbedError::io(format!("read {}", d.config.display()), e))?;
    let c = canopyd::config::Config::parse(&d.config.display().to_string(), &text, &state.dir)
        .map_err(|e| TestbedError::fabric(&state.name, format!("canopyd's configuration: {e}")))?;
    let each = c.probe_timeout.max(c.probe_interval);
    Ok(Some(each.as_secs_f64() * 1e3 * f64::from(c.missed_probes)))
}

/// Run the soak.
pub fn soak(opts: &SoakOptions, stop: Option<Arc<AtomicBool>>) -> Result<SoakReport> {
    let state = run::running(&opts.state_root, &opts.name, &opts.machine)?;
    if state.vm.is_some() && opts.faults.count(FaultKind::TxFill) > 0 {
        return Err(TestbedError::fabric(
            &opts.name,
            "tx-fill slows a switch port with a tbf qdisc on its interface, which in a VM \
             fabric is inside the guest; leave it out (--faults link-flap,switch-kill,daemon-kill)",
        ));
    }
    // a VM fabric: faults are held until canopyd can have seen a guest die
    let detect_ms = guest_detect_ms(&state)?;
    let opts = &match detect_ms {
        Some(ms) => {
            let mut o = opts.clone();
            o.faults.hold_s = o.faults.hold_s.max(ms / 1e3 + o.faults.hold_s);
            o
        }
        None => opts.clone(),
    };
    let topo = canopy_control::build_str(&state.hosts.topology)
        .map_err(|e| TestbedError::Frame(format!("topology {}: {e}", state.hosts.topology)))?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = Generator::open(&state.hosts)?;
    let stop = stop.unwrap_or_default();
    g.stop = stop.clone();
    let mut rep = SoakReport {
        header: crate::report::header(&opts.command),
        fabric: opts.name.clone(),
        topology: state.hosts.topology.clone(),
        ..SoakReport::default()
    };
    // 1. the rate
    let base = TrafficSpec {
        search: None,
        count: None,
        pcap_tx: None,
        pcap_rx: None,
        ..opts.spec.clone()
    };
    let pdr = match &opts.rate {
        RateChoice::Given(p) => *p,
        RateChoice::Search {
            trial_s,
            max_pps,
            pdr_loss,
        } => {
            let spec = TrafficSpec {
                duration_s: Some(*trial_s),
                search: Some(SearchSpec {
                    max_pps: *max_pps,
                    pdr_loss_ratio: *pdr_loss,
                    // the soak itself is the long trial at (a fraction of) this PDR,
                    // and it measures no latency under load
                    confirm_s: 0.0,
                    latency_loads: vec![],
                    ..SearchSpec::default()
                }),
                ..base.clone()
            };
            search_pdr(&mut g, &spec, &state.hosts, &mut rep)?
        }
    };
    rep.rate_pps = (pdr * opts.load).max(1.0);
    // a killed guest boots again before the next fault: as long as `up` took to boot
    // them all, per switch-kill
    let boots = match &state.vm {
        Some(vm) => vm.boot_s * opts.faults.count(FaultKind::SwitchKill) as f64,
        None => 0.0,
    };
    let duration = opts.duration_s.max(opts.faults.needs_s() + boots);
    rep.duration_s = duration;
    let spec = TrafficSpec {
        rate: Rate::Pps(rep.rate_pps),
        duration_s: Some(duration),
        warmup_s: 0.0,
        grace_ms: base.grace_ms.max(500),
        ..base
    };
    spec.validate(&state.hosts, cpus)?;
    g.timeline_bin_ns = Some(opts.bin_ms.max(1) * 1_000_000);

    // 2. counters, the trial (with the faults beside it), counters
    // the backend (and AF_XDP mode) of every switch port, which the accounting needs
    let kinds = PortKinds::read(&state, &topo);
    let mut before = read_counters(&state, &mut g)?;
    let log = Mutex::new(Vec::new());
    let tg = targets(&topo);
    let fault_stop = AtomicBool::new(false);
    let progress = Progress::new(spec.quiet);
    progress.set_prefix(format!("soak {:.0} pps", rep.rate_pps));
    let (trial, injected) = std::thread::scope(|sc| {
        let h = (opts.faults.rounds > 0)
            .then(|| sc.spawn(|| inject(opts, &state, &tg, &fault_stop, &log)));
        let t = g.trial(&spec, rep.rate_pps, &progress);
        fault_stop.store(true, Ordering::Relaxed);
        let inj = h.map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(TestbedError::traffic("faults", "thread panicked")))
        });
        (t, inj)
    });
    progress.finish("done");
    let trial = trial?;
    if let Some(r) = injected {
        r?;
    }
    let injected = log.into_inner().unwrap_or_default();
    // a restarted switch needs its tables before its counters mean anything: give
    // canopyd (which pushes them) a moment
    if injected.iter().any(|e| e.kind == FaultKind::SwitchKill) {
        std::thread::sleep(Duration::from_millis(500));
    }
    let mut after = read_counters(&state, &mut g)?;

    // 3. accounting
    let tl = trial.timeline.clone().unwrap_or_default();
    rep.switches = linkload::switch_deltas(&before.switches, &after.switches);
    forget_restarted(&injected, &mut rep.switches, [&mut before, &mut after]);
    let downed: Vec<(String, u16)> = injected
        .iter()
        .filter(|e| e.kind == FaultKind::LinkFlap)
        .filter_map(|e| {
            let (sw, p) = e.target.rsplit_once(':')?;
            Some((sw.to_string(), p.parse().ok()?))
        })
        .collect();
    let overlap = RxOverlap::of(&state, &kinds, [&before, &after], &downed);
    let counters = [&before, &after];
    rep.accounting = account(&state, &trial, counters, &overlap, &rep.switches, &injected);
    let (gaps, checked) = port_hops(&state, &topo, counters, (&kinds, &overlap), &injected);
    if state.target == "bmv2" {
        // (after the accounting, which counts these losses by name)
        crate::run::bmv2_queue_losses(&mut rep.switches);
    }
    rep.port_gaps = gaps;
    rep.ports_checked = checked;
    rep.min_delivery_100ms = min_delivery(&tl, (100 / opts.bin_ms.max(1)).max(1) as usize);

    // 4. recovery per fault, from the timeline
    rep.faults = fault_events(&tl, &injected, detect_ms);
    rep.failures = judge(&rep, opts);
    let mut trial = trial;
    trial.timeline = None;
    rep.trial = trial;
    crate::report::soak::write(&rep, &tl, &opts.out)?;
    Ok(rep)
}

/// Measure the PDR with the search `spec`: the rate, with the search and the PDR in
/// `rep`.
fn search_pdr(
    g: &mut Generator,
    spec: &TrafficSpec,
    hosts: &crate::traffic::hosts::FabricHosts,
    rep: &mut SoakReport,
) -> Result<f64> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    spec.validate(hosts, cpus)?;
    let (_, s) = g.run(spec)?;
    let s = s.ok_or_else(|| TestbedError::traffic("search", "no search result"))?;
    let pdr = s
        .pdr_pps
        .ok_or_else(|| TestbedError::traffic("search", "no rate met the PDR loss threshold"))?;
    rep.search = Some(s);
    rep.pdr_pps = Some(pdr);
    Ok(pdr)
}

/// A switch killed and started again may well have run longer by now than it had
/// before the soak, so its uptime does not give its restart away: its counters began
/// again, and nothing about it is exact. Its delta says so and holds its counters
/// since its last start, and its counters leave both snapshots.
fn forget_restarted(
    injected: &[faults::Injected],
    deltas: &mut [crate::report::results::SwitchDelta],
    [before, after]: [&mut account::Counters; 2],
) {
    let restarted: Vec<&str> = injected
        .iter()
        .filter(|e| e.kind == FaultKind::SwitchKill)
        .map(|e| e.target.as_str())
        .collect();
    for d in deltas {
        if restarted.contains(&d.name.as_str()) && d.unchecked.is_none() {
            if let Some(a) = after.switches.get(&d.name) {
                *d = crate::run::linkload::since_restart(
                    &d.name,
                    a,
                    "killed and started again during the soak",
                );
            }
        }
    }
    for c in [before, after] {
        c.switches.retain(|n, _| !restarted.contains(&n.as_str()));
    }
}

/// Every injected fault with what the traffic saw: frames lost while it lasted and
/// after its repair (until the next fault), and the times to full delivery.
fn fault_events(
    tl: &crate::report::results::Timeline,
    injected: &[faults::Injected],
    detect_ms: Option<f64>,
) -> Vec<FaultEvent> {
    let clean = 200_000_000u64;
    let guard = 50_000_000u64;
    let mut out = Vec::with_capacity(injected.len());
    let end_ns = tl.t0_ns + tl.sent.len() as u64 * tl.bin_ns;
    let last_send = tl
        .sent
        .iter()
        .rposition(|&s| s > 0)
        .map_or(end_ns, |i| tl.t0_ns + (i as u64 + 1) * tl.bin_ns);
    for (k, e) in injected.iter().enumerate() {
        let next = injected.get(k + 1).map_or(last_send, |n| n.fault_ns);
        let (lost_during, fr) = recovery(tl, e.fault_ns, e.repair_ns, clean);
        let (lost_after, rr) = recovery(tl, e.repair_ns, next.saturating_sub(guard), clean);
        let ms = |t: u64| t.saturating_sub(tl.t0_ns) as f64 / 1e6;
        out.push(FaultEvent {
            round: e.round,
            kind: e.kind.name().into(),
            target: e.target.clone(),
            fault_ms: ms(e.fault_ns),
            repair_ms: ms(e.repair_ns),
            lost_during,
            lost_after,
            fault_recovery_ms: fr,
            repair_recovery_ms: rr,
            expect_fault_recovery: e.expect_recovery,
            drops: e.fill.as_ref().map(|f| f.drops.clone()).unwrap_or_default(),
            other_ports_tx: e.fill.as_ref().map(|f| f.other_tx),
            tx_backlog: e.fill.as_ref().map(|f| f.backlog),
            boot_ms: e.boot_ms,
            detect_ms: detect_ms.filter(|_| e.kind == FaultKind::SwitchKill),
            note: match detect_ms.filter(|_| e.kind == FaultKind::SwitchKill) {
                Some(d) => format!(
                    "{}; canopyd takes up to {:.1} s to declare a silent guest down: recovery allowed that much longer",
                    e.note,
                    d / 1e3
                ),
                None => e.note.clone(),
            },
        });
    }
    out
}
