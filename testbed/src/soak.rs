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
//! received per 10 ms bin of send time ([`Timeline`]); the time from a fault (or its
//! repair) to the end of the last bin that lost a frame is the time to full delivery.

use crate::error::{Result, TestbedError};
use crate::fabric::{drill, state::State};
use crate::linkload::{self, Snapshot};
use crate::netns::LinkStats;
use crate::results::{SearchResult, SwitchDelta, Timeline, Trial};
use crate::run::{self, snapshot};
use crate::traffic::progress::Progress;
use crate::traffic::{Generator, Rate, SearchSpec, TrafficSpec};
use canopy_control::topology::{Peer, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Backend drop reasons that happen outside the engine's rx = tx + drops: before the
/// engine saw the frame (RX) or after it counted the frame as sent (a queued frame the
/// kernel refused). The backend's TX refusals (`tx_ring_full`, `oversize`, `runt`,
/// `port_down`) are also counted by the engine (`tx_error`, `port_down`) and are not
/// added again.
pub const BACKEND_OUTSIDE_ENGINE: [&str; 4] = [
    "rx_truncated",
    "rx_bad_block",
    "rx_no_buffer",
    "tx_wrong_format",
];

/// A kind of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A switch's link to another switch goes down, unannounced, then up again.
    LinkFlap,
    /// A switch that serves no host is SIGKILLed, then started again.
    SwitchKill,
    /// The fabric's `canopyd` is SIGKILLed, then started again.
    DaemonKill,
    /// An edge switch's port towards a host is slowed (a `tbf` qdisc the port's socket
    /// does not bypass) until its TX ring is full, then released.
    TxFill,
}

impl FaultKind {
    /// Every kind, in the order a round injects them.
    pub const ALL: [FaultKind; 4] = [
        FaultKind::LinkFlap,
        FaultKind::SwitchKill,
        FaultKind::DaemonKill,
        FaultKind::TxFill,
    ];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::LinkFlap => "link-flap",
            FaultKind::SwitchKill => "switch-kill",
            FaultKind::DaemonKill => "daemon-kill",
            FaultKind::TxFill => "tx-fill",
        }
    }

    /// Parse a name.
    pub fn parse(s: &str) -> Result<FaultKind> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                TestbedError::traffic(
                    "faults",
                    format!("unknown fault {s:?} (link-flap, switch-kill, daemon-kill, tx-fill)"),
                )
            })
    }
}

/// The faults of a soak.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultPlan {
    /// Rounds (0: no faults).
    pub rounds: usize,
    /// Kinds injected in every round, in this order.
    pub kinds: Vec<FaultKind>,
    /// How long each fault lasts, seconds.
    pub hold_s: f64,
    /// Time after each repair before the next fault, seconds.
    pub settle_s: f64,
    /// Traffic before the first fault, seconds.
    pub lead_s: f64,
    /// `tbf` rate of a slowed port (`tc` syntax, e.g. `200kbit`).
    pub slow_rate: String,
}

impl Default for FaultPlan {
    fn default() -> Self {
        FaultPlan {
            rounds: 0,
            kinds: FaultKind::ALL.to_vec(),
            hold_s: 1.5,
            settle_s: 1.5,
            lead_s: 2.0,
            slow_rate: "200kbit".into(),
        }
    }
}

impl FaultPlan {
    /// Send time the plan needs (lead, every round, one settle period at the end).
    pub fn needs_s(&self) -> f64 {
        if self.rounds == 0 || self.kinds.is_empty() {
            return 0.0;
        }
        self.lead_s
            + self.rounds as f64 * self.kinds.len() as f64 * (self.hold_s + self.settle_s)
            + self.settle_s
    }
}

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

/// Where every frame went (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Accounting {
    /// Frames the generator counted as sent (the TX ring took them).
    pub sent: u64,
    /// Frames received by their destination host (each once).
    pub received: u64,
    /// Frames received by another host.
    pub misdelivered: u64,
    /// Second copies received (not counted in `received`).
    pub duplicates: u64,
    /// Frames received that were not this soak's.
    pub foreign: u64,
    /// Frames the hosts' interfaces sent or dropped on transmit beyond what the
    /// generator counted (`Σ host tx_packets + tx_dropped − sent`); 0 when the
    /// generator's frames are the only ones and none vanished before the wire.
    pub host_wire_extra: i64,
    /// Switch drops by reason (the engine's).
    pub switch_drops: BTreeMap<String, u64>,
    /// Switch backend drops outside the engine, by reason (`kernel_drops` = tp_drops).
    pub backend_drops: BTreeMap<String, u64>,
    /// Interface drops (`netns/ifname rx|tx` → frames), non-zero only.
    pub interface_drops: BTreeMap<String, u64>,
    /// Qdisc drops (all interfaces, and slowed ports' qdiscs when they were removed).
    pub qdisc_drops: u64,
    /// The generator's receive sockets' tp_drops.
    pub host_socket_drops: u64,
    /// Frames still held in switch TX rings at the end.
    pub in_flight: u64,
    /// Sum of every counted drop (and `in_flight`).
    pub counted: u64,
    /// `sent − received − misdelivered − counted`: must be 0.
    pub unaccounted: i64,
    /// Whether every place could be read (no switch restarted or silent).
    pub exact: bool,
    /// Why not, when not.
    pub not_exact: Vec<String>,
    /// Places where a frame can vanish without any counter, named.
    pub uncounted: Vec<String>,
}

/// One switch port's hop check: the kernel's interface counters against the switch's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortHop {
    /// `switch:port (ifname)`.
    pub port: String,
    /// Interface rx_packets − rx_dropped − (engine rx + tp_drops + backend RX drops).
    pub rx_gap: i64,
    /// Engine tx − tx_wrong_format − (interface tx_packets + tx_dropped + qdisc drops)
    /// − TX ring backlog growth.
    pub tx_gap: i64,
}

/// One fault and what the traffic saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultEvent {
    /// Round (0-based).
    pub round: usize,
    /// Kind.
    pub kind: String,
    /// What was hit (`edge-p0-e0:2`, `agg-p1-a0`, `canopyd`).
    pub target: String,
    /// Fault time, ms after the timeline's start.
    pub fault_ms: f64,
    /// Repair time, ms after the timeline's start.
    pub repair_ms: f64,
    /// Frames sent while the fault lasted that never arrived.
    pub lost_during: u64,
    /// Frames sent after the repair (until the next fault) that never arrived.
    pub lost_after: u64,
    /// Time from the fault to full delivery while it lasted (None: loss until the
    /// repair, as for a slowed port whose flows have no other way).
    pub fault_recovery_ms: Option<f64>,
    /// Time from the repair to full delivery (None: not within the settle time).
    pub repair_recovery_ms: Option<f64>,
    /// Whether full delivery during the fault is expected (a fault the fabric routes
    /// around).
    pub expect_fault_recovery: bool,
    /// tx-fill: the slowed switch's drops by reason while the port was slowed (the
    /// engine's names; the backend's prefixed `backend.`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub drops: BTreeMap<String, u64>,
    /// tx-fill: frames the slowed switch sent out of its other ports meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_ports_tx: Option<u64>,
    /// tx-fill: frames held in the slowed port's TX ring at the end of the fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_backlog: Option<u64>,
    /// Details (drops counted at a slowed port, how long a restart took, ...).
    pub note: String,
}

/// The result of a soak.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SoakReport {
    /// The command line.
    pub command: String,
    /// Fabric name.
    pub fabric: String,
    /// Topology spec.
    pub topology: String,
    /// Start, RFC 3339.
    pub started: String,
    /// The PDR search, when the rate was measured.
    pub search: Option<SearchResult>,
    /// PDR the soak's rate came from (None when the rate was given).
    pub pdr_pps: Option<f64>,
    /// Offered rate of the soak.
    pub rate_pps: f64,
    /// Send time asked for, seconds.
    pub duration_s: f64,
    /// The soak trial (its timeline is in `timeline.csv`).
    pub trial: Trial,
    /// End-to-end accounting.
    pub accounting: Accounting,
    /// Per-switch counters (rx = tx + drops).
    pub switches: Vec<SwitchDelta>,
    /// Switch ports whose interface and switch counters disagree (empty: none).
    pub port_gaps: Vec<PortHop>,
    /// Switch ports checked.
    pub ports_checked: usize,
    /// Faults injected.
    pub faults: Vec<FaultEvent>,
    /// Lowest share of the frames sent in any 100 ms that arrived (1.0: no loss).
    pub min_delivery_100ms: f64,
    /// What failed (empty: passed).
    pub failures: Vec<String>,
}

impl SoakReport {
    /// No failure.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Kernel counters of every interface (not `lo`) of `namespaces`, by `netns/ifname`.
pub fn interface_snapshot(namespaces: &[String]) -> Result<BTreeMap<String, LinkStats>> {
    let mut out = BTreeMap::new();
    for ns in namespaces {
        let j = crate::netns::ip(&["-n", ns, "-s", "-j", "link", "show"])?;
        let links = parse_links(&j).map_err(|e| TestbedError::Parse {
            what: format!("`ip -n {ns} -s -j link show`"),
            detail: e.to_string(),
        })?;
        for (name, st) in links {
            out.insert(format!("{ns}/{name}"), st);
        }
    }
    Ok(out)
}

/// Every interface but `lo` of `ip -s -j link show` with its counters.
pub fn parse_links(json: &str) -> std::result::Result<Vec<(String, LinkStats)>, serde_json::Error> {
    let v: serde_json::Value = serde_json::from_str(json)?;
    let mut out = vec![];
    for l in v.as_array().into_iter().flatten() {
        let Some(name) = l["ifname"].as_str() else {
            continue;
        };
        if name == "lo" {
            continue;
        }
        let s = &l["stats64"];
        let g = |d: &str, k: &str| s[d][k].as_u64().unwrap_or(0);
        out.push((
            name.to_string(),
            LinkStats {
                rx_packets: g("rx", "packets"),
                rx_dropped: g("rx", "dropped"),
                tx_packets: g("tx", "packets"),
                tx_dropped: g("tx", "dropped"),
            },
        ));
    }
    Ok(out)
}

/// Drops of every qdisc but `lo`'s in `tc -s -j qdisc show`, summed per device.
pub fn parse_qdisc_drops(
    json: &str,
) -> std::result::Result<BTreeMap<String, u64>, serde_json::Error> {
    let v: serde_json::Value = serde_json::from_str(json)?;
    let mut out = BTreeMap::new();
    for q in v.as_array().into_iter().flatten() {
        let Some(dev) = q["dev"].as_str() else {
            continue;
        };
        if dev == "lo" {
            continue;
        }
        *out.entry(dev.to_string()).or_insert(0) += q["drops"].as_u64().unwrap_or(0);
    }
    Ok(out)
}

/// Drops of every qdisc of `namespaces`, by `netns/ifname`.
pub fn qdisc_snapshot(namespaces: &[String]) -> Result<BTreeMap<String, u64>> {
    let mut out = BTreeMap::new();
    for ns in namespaces {
        let j = crate::netns::run("tc", &["-n", ns, "-s", "-j", "qdisc", "show"])?;
        let q = parse_qdisc_drops(&j).map_err(|e| TestbedError::Parse {
            what: format!("`tc -n {ns} -s -j qdisc show`"),
            detail: e.to_string(),
        })?;
        for (dev, n) in q {
            out.insert(format!("{ns}/{dev}"), n);
        }
    }
    Ok(out)
}

/// Everything read at one moment.
struct Counters {
    switches: Snapshot,
    ifaces: BTreeMap<String, LinkStats>,
    qdiscs: BTreeMap<String, u64>,
    host_socket_drops: u64,
}

fn namespaces(state: &State) -> Vec<String> {
    let mut v: Vec<String> = state
        .created
        .iter()
        .filter_map(|c| match c {
            crate::fabric::state::Created::Netns { name } => Some(name.clone()),
            _ => None,
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

fn read_counters(state: &State, g: &mut Generator) -> Result<Counters> {
    let ns = namespaces(state);
    Ok(Counters {
        switches: snapshot(state)?,
        ifaces: interface_snapshot(&ns)?,
        qdiscs: qdisc_snapshot(&ns)?,
        host_socket_drops: g.rx_kernel_drops(),
    })
}

fn delta(a: u64, b: u64) -> u64 {
    a.saturating_sub(b)
}

/// Frames lost in `[from, until)` (bins overlapping it) and the time from `from` to the
/// end of the last bin that lost a frame (0 when none did); None when that bin ends
/// later than `until - clean_ns` (no clean stretch before `until`).
pub fn recovery(tl: &Timeline, from_ns: u64, until_ns: u64, clean_ns: u64) -> (u64, Option<f64>) {
    if until_ns <= from_ns || tl.sent.is_empty() {
        return (0, None);
    }
    let first = tl.bin(from_ns);
    let last = tl.bin(until_ns.saturating_sub(1));
    let mut lost = 0;
    let mut last_lossy = None;
    for i in first..=last {
        let l = tl.sent[i].saturating_sub(tl.received[i]);
        if l > 0 {
            lost += l;
            last_lossy = Some(i);
        }
    }
    let Some(i) = last_lossy else {
        return (0, Some(0.0));
    };
    let end = tl.t0_ns + (i as u64 + 1) * tl.bin_ns;
    if end + clean_ns > until_ns {
        return (lost, None);
    }
    (lost, Some(end.saturating_sub(from_ns) as f64 / 1e6))
}

/// Lowest share of frames delivered in any window of `w` bins (ignoring the first
/// and last `w` bins: ramp-up and the trial's end). 1.0 when nothing was sent.
pub fn min_delivery(tl: &Timeline, w: usize) -> f64 {
    let n = tl.sent.len();
    let mut min: f64 = 1.0;
    if w == 0 || n < 3 * w {
        return min;
    }
    let last = tl.sent.iter().rposition(|&s| s > 0).unwrap_or(0);
    let mut i = w;
    while i + 2 * w <= last {
        let s: u64 = tl.sent[i..i + w].iter().sum();
        let r: u64 = tl.received[i..i + w].iter().sum();
        if s > 0 {
            min = min.min(r as f64 / s as f64);
        }
        i += w;
    }
    min
}

/// A fault as the injecting thread saw it.
#[derive(Debug, Clone)]
struct Injected {
    round: usize,
    kind: FaultKind,
    target: String,
    fault_ns: u64,
    repair_ns: u64,
    expect_recovery: bool,
    note: String,
    /// Qdisc drops read when a slowed port's qdisc was removed (they vanish with it),
    /// and its interface (`netns/ifname`).
    qdisc_drops: u64,
    qdisc_dev: String,
    /// tx-fill: what the switch counted (drops, other ports' tx, backlog).
    fill: Option<FillSeen>,
}

/// What a slowed port's switch counted while the port was slowed.
#[derive(Debug, Clone, Default)]
struct FillSeen {
    drops: BTreeMap<String, u64>,
    other_tx: u64,
    backlog: u64,
}

/// The targets faults rotate over.
struct Targets {
    /// (switch, port) of switch-to-switch links, from edge switches.
    links: Vec<(String, u16)>,
    /// Switches that serve no host.
    inner: Vec<String>,
    /// (switch, port, interface) of edge ports towards hosts that may be slowed.
    host_ports: Vec<(String, u16)>,
}

fn targets(t: &Topology) -> Targets {
    let mut tg = Targets {
        links: vec![],
        inner: vec![],
        host_ports: vec![],
    };
    for s in &t.switches {
        let hosts = s.ports.iter().any(|p| matches!(p.peer, Peer::Host { .. }));
        if !hosts {
            tg.inner.push(s.name.clone());
            continue;
        }
        for (i, p) in s.ports.iter().enumerate() {
            match p.peer {
                Peer::Switch { .. } => tg.links.push((s.name.clone(), i as u16)),
                Peer::Host { .. } => tg.host_ports.push((s.name.clone(), i as u16)),
                Peer::None => {}
            }
        }
    }
    tg
}

/// Sleep `d`, or less when `stop` is set; whether it was not.
fn nap(d: Duration, stop: &AtomicBool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < d {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5).min(d - t0.elapsed().min(d)));
    }
    !stop.load(Ordering::Relaxed)
}

/// Inject the plan's faults until done or `stop`; every fault is repaired before the
/// function returns (also when stopped early).
fn inject(
    opts: &SoakOptions,
    state: &State,
    tg: &Targets,
    stop: &AtomicBool,
    log: &Mutex<Vec<Injected>>,
) -> Result<()> {
    let p = &opts.faults;
    let (root, name) = (&opts.state_root, &opts.name);
    let hold = Duration::from_secs_f64(p.hold_s);
    let settle = Duration::from_secs_f64(p.settle_s);
    if !nap(Duration::from_secs_f64(p.lead_s), stop) {
        return Ok(());
    }
    let daemon = state.daemon.is_some();
    for round in 0..p.rounds {
        for &kind in &p.kinds {
            let now = crate::sys::monotonic_ns;
            let mut ev = Injected {
                round,
                kind,
                target: String::new(),
                fault_ns: 0,
                repair_ns: 0,
                expect_recovery: daemon,
                note: String::new(),
                qdisc_drops: 0,
                qdisc_dev: String::new(),
                fill: None,
            };
            match kind {
                FaultKind::LinkFlap => {
                    let Some((sw, port)) = tg.links.get(round % tg.links.len().max(1)) else {
                        continue;
                    };
                    ev.target = format!("{sw}:{port}");
                    ev.fault_ns = now();
                    drill::set_link(root, name, sw, *port, false)?;
                    nap(hold, stop);
                    ev.repair_ns = now();
                    drill::set_link(root, name, sw, *port, true)?;
                }
                FaultKind::SwitchKill => {
                    let Some(sw) = tg.inner.get(round % tg.inner.len().max(1)) else {
                        continue;
                    };
                    ev.target = sw.clone();
                    ev.fault_ns = now();
                    drill::kill_switch(root, name, sw)?;
                    nap(hold, stop);
                    ev.repair_ns = now();
                    let pid = drill::start_switch(root, name, sw)?;
                    ev.note = format!("restarted as pid {pid}");
                }
                FaultKind::DaemonKill => {
                    if !daemon {
                        continue;
                    }
                    ev.target = "canopyd".into();
                    ev.expect_recovery = true;
                    ev.fault_ns = now();
                    drill::kill_daemon(root, name)?;
                    nap(hold, stop);
                    ev.repair_ns = now();
                    let pid = drill::start_daemon(root, name)?;
                    ev.note = format!("restarted as pid {pid}");
                }
                FaultKind::TxFill => {
                    let Some((sw, port)) = tg.host_ports.get(round % tg.host_ports.len().max(1))
                    else {
                        continue;
                    };
                    ev.target = format!("{sw}:{port}");
                    ev.expect_recovery = false;
                    let sock = state
                        .switches
                        .iter()
                        .find(|s| &s.name == sw)
                        .map(|s| s.socket.clone());
                    let before = sock
                        .as_ref()
                        .and_then(|s| crate::mgmt::counters(s, Duration::from_secs(2)).ok());
                    ev.fault_ns = now();
                    drill::slow_port(root, name, sw, *port, Some(&p.slow_rate))?;
                    nap(hold, stop);
                    let after = sock
                        .as_ref()
                        .and_then(|s| crate::mgmt::counters(s, Duration::from_secs(2)).ok());
                    ev.repair_ns = now();
                    let q = drill::slow_port(root, name, sw, *port, None)?;
                    ev.qdisc_drops = q.drops;
                    ev.qdisc_dev = q.dev.clone();
                    ev.fill = fill_seen(before.as_ref(), after.as_ref(), *port);
                    ev.note = match &ev.fill {
                        None => "switch counters unavailable".into(),
                        Some(f) => format!(
                            "drops while slowed: {}; TX backlog {}; {} frames out of its other ports; qdisc sent {} dropped {} left {}",
                            if f.drops.is_empty() {
                                "none".to_string()
                            } else {
                                f.drops
                                    .iter()
                                    .map(|(r, n)| format!("{r} {n}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            },
                            f.backlog,
                            f.other_tx,
                            q.sent,
                            q.drops,
                            q.left
                        ),
                    };
                }
            }
            log.lock()
                .map_err(|_| TestbedError::traffic("faults", "log poisoned"))?
                .push(ev);
            if !nap(settle, stop) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// What the switch counted while its port was slowed: drops by reason (engine and
/// backend names), its TX ring's backlog, and frames it sent on its other ports.
fn fill_seen(
    before: Option<&canopy_proto::mgmt::CountersReport>,
    after: Option<&canopy_proto::mgmt::CountersReport>,
    port: u16,
) -> Option<FillSeen> {
    let (b, a) = (before?, after?);
    let mut f = FillSeen::default();
    for (pa, pb) in a.ports.iter().zip(&b.ports) {
        for (r, n) in &pa.drops {
            let d = delta(*n, pb.drops.get(r).copied().unwrap_or(0));
            if d > 0 {
                *f.drops.entry(r.clone()).or_insert(0) += d;
            }
        }
        for (r, n) in &pa.backend.drops {
            let d = delta(*n, pb.backend.drops.get(r).copied().unwrap_or(0));
            if d > 0 {
                *f.drops.entry(format!("backend.{r}")).or_insert(0) += d;
            }
        }
        if pa.port == port {
            f.backlog = pa.tx_backlog;
        } else {
            f.other_tx += delta(pa.tx_packets, pb.tx_packets);
        }
    }
    Some(f)
}

/// Run the soak.
pub fn soak(opts: &SoakOptions, stop: Option<Arc<AtomicBool>>) -> Result<SoakReport> {
    let state = run::running(&opts.state_root, &opts.name, &opts.machine)?;
    let topo = canopy_control::build_str(&state.hosts.topology)
        .map_err(|e| TestbedError::Frame(format!("topology {}: {e}", state.hosts.topology)))?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = Generator::open(&state.hosts)?;
    let stop = stop.unwrap_or_default();
    g.stop = stop.clone();
    let mut rep = SoakReport {
        command: opts.command.clone(),
        fabric: opts.name.clone(),
        topology: state.hosts.topology.clone(),
        started: crate::netns::run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"])
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
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
                    ..SearchSpec::default()
                }),
                ..base.clone()
            };
            spec.validate(&state.hosts, cpus)?;
            let (_, s) = g.run(&spec)?;
            let s = s.ok_or_else(|| TestbedError::traffic("search", "no search result"))?;
            let pdr = s.pdr_pps.ok_or_else(|| {
                TestbedError::traffic("search", "no rate met the PDR loss threshold")
            })?;
            rep.search = Some(s);
            rep.pdr_pps = Some(pdr);
            pdr
        }
    };
    rep.rate_pps = (pdr * opts.load).max(1.0);
    let duration = opts.duration_s.max(opts.faults.needs_s());
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
    // a switch killed and started again may well have run longer by now than it had
    // before the soak, so its uptime does not give its restart away: its counters
    // began again, and nothing about it is exact
    let restarted: Vec<&str> = injected
        .iter()
        .filter(|e| e.kind == FaultKind::SwitchKill)
        .map(|e| e.target.as_str())
        .collect();
    for d in &mut rep.switches {
        if restarted.contains(&d.name.as_str()) && d.unchecked.is_none() {
            d.conserved = false;
            d.rx = 0;
            d.tx = 0;
            d.drops.clear();
            d.unchecked =
                Some("killed and started again during the soak: its counters began again".into());
        }
    }
    for c in [&mut before, &mut after] {
        c.switches.retain(|n, _| !restarted.contains(&n.as_str()));
    }
    rep.accounting = account(&state, &trial, &before, &after, &rep.switches, &injected);
    let (gaps, checked) = port_hops(&state, &topo, &before, &after, &injected);
    rep.port_gaps = gaps;
    rep.ports_checked = checked;
    rep.min_delivery_100ms = min_delivery(&tl, (100 / opts.bin_ms.max(1)).max(1) as usize);

    // 4. recovery per fault, from the timeline
    let clean = 200_000_000u64;
    let guard = 50_000_000u64;
    let end_ns = tl.t0_ns + tl.sent.len() as u64 * tl.bin_ns;
    let last_send = tl
        .sent
        .iter()
        .rposition(|&s| s > 0)
        .map_or(end_ns, |i| tl.t0_ns + (i as u64 + 1) * tl.bin_ns);
    for (k, e) in injected.iter().enumerate() {
        let next = injected.get(k + 1).map_or(last_send, |n| n.fault_ns);
        let (lost_during, fr) = recovery(&tl, e.fault_ns, e.repair_ns, clean);
        let (lost_after, rr) = recovery(&tl, e.repair_ns, next.saturating_sub(guard), clean);
        let ms = |t: u64| t.saturating_sub(tl.t0_ns) as f64 / 1e6;
        rep.faults.push(FaultEvent {
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
            note: e.note.clone(),
        });
    }
    rep.failures = judge(&rep, opts);
    let mut trial = trial;
    trial.timeline = None;
    rep.trial = trial;
    write(&rep, &tl, &opts.out)?;
    Ok(rep)
}

/// End-to-end accounting of the soak trial.
fn account(
    state: &State,
    t: &Trial,
    b: &Counters,
    a: &Counters,
    deltas: &[SwitchDelta],
    injected: &[Injected],
) -> Accounting {
    let mut acc = Accounting {
        sent: t.sent,
        received: t.received,
        misdelivered: t.misdelivered,
        duplicates: t.duplicates,
        foreign: t.foreign,
        exact: true,
        ..Accounting::default()
    };
    for d in deltas {
        if let Some(why) = &d.unchecked {
            acc.exact = false;
            acc.not_exact.push(format!("switch {}: {why}", d.name));
            continue;
        }
        for (r, n) in &d.drops {
            *acc.switch_drops.entry(r.clone()).or_insert(0) += n;
        }
    }
    for (name, ca) in &a.switches {
        let Some(cb) = b.switches.get(name) else {
            continue;
        };
        if ca.restarted_since(cb) {
            continue;
        }
        for (pa, pb) in ca.ports.iter().zip(&cb.ports) {
            let k = delta(pa.backend.kernel_drops, pb.backend.kernel_drops);
            if k > 0 {
                *acc.backend_drops.entry("kernel_drops".into()).or_insert(0) += k;
            }
            for r in BACKEND_OUTSIDE_ENGINE {
                let n = delta(
                    pa.backend.drops.get(r).copied().unwrap_or(0),
                    pb.backend.drops.get(r).copied().unwrap_or(0),
                );
                if n > 0 {
                    *acc.backend_drops.entry(r.into()).or_insert(0) += n;
                }
            }
            acc.in_flight += pa.tx_backlog;
            acc.in_flight = acc.in_flight.saturating_sub(pb.tx_backlog);
        }
    }
    let host_ifs: Vec<String> = state
        .hosts
        .hosts
        .iter()
        .map(|h| format!("{}/{}", h.netns, h.ifname))
        .collect();
    let mut wire: u64 = 0;
    for (k, sa) in &a.ifaces {
        let Some(sb) = b.ifaces.get(k) else {
            acc.exact = false;
            acc.not_exact
                .push(format!("interface {k} appeared during the soak"));
            continue;
        };
        let d = sa.since(sb);
        if host_ifs.contains(k) {
            wire += d.tx_packets + d.tx_dropped;
        }
        if d.rx_dropped > 0 {
            acc.interface_drops.insert(format!("{k} rx"), d.rx_dropped);
        }
        if d.tx_dropped > 0 {
            acc.interface_drops.insert(format!("{k} tx"), d.tx_dropped);
        }
    }
    acc.host_wire_extra = wire as i64 - (t.sent + t.warmup_sent) as i64;
    for (k, qa) in &a.qdiscs {
        acc.qdisc_drops += delta(*qa, b.qdiscs.get(k).copied().unwrap_or(0));
    }
    acc.qdisc_drops += injected.iter().map(|e| e.qdisc_drops).sum::<u64>();
    acc.host_socket_drops = delta(a.host_socket_drops, b.host_socket_drops);
    acc.counted = acc.switch_drops.values().sum::<u64>()
        + acc.backend_drops.values().sum::<u64>()
        + acc.interface_drops.values().sum::<u64>()
        + acc.qdisc_drops
        + acc.host_socket_drops
        + acc.in_flight;
    acc.unaccounted =
        t.sent as i64 - t.received as i64 - t.misdelivered as i64 - acc.counted as i64;
    if injected.iter().any(|e| e.kind == FaultKind::SwitchKill) {
        acc.exact = false;
        acc.uncounted.push(
            "frames in a killed switch's RX rings, engine rings and TX ring die with the process and its counters"
                .into(),
        );
    }
    if injected.iter().any(|e| e.kind == FaultKind::LinkFlap) {
        acc.exact = false;
        acc.not_exact.push(
            "link-flap: a veth whose peer is down drops the frame (tx_dropped) and AF_PACKET \
             puts it back in the sender's TX ring (tpacket_snd resets it to SEND_REQUEST on a \
             driver drop), so it is handed over again: tx_dropped counts attempts, and the \
             frame may still arrive after the link is back"
                .into(),
        );
    }
    if injected.iter().any(|e| e.kind == FaultKind::TxFill) {
        acc.uncounted.push(
            "frames a slowed port's qdisc still held when it was removed (drained first; any left are purged uncounted by the kernel)"
                .into(),
        );
    }
    acc
}

/// Per switch port: the kernel's interface counters against the switch's own.
fn port_hops(
    state: &State,
    topo: &Topology,
    b: &Counters,
    a: &Counters,
    injected: &[Injected],
) -> (Vec<PortHop>, usize) {
    let mut gaps = vec![];
    let mut checked = 0;
    for s in &state.switches {
        let (Some(ca), Some(cb)) = (a.switches.get(&s.name), b.switches.get(&s.name)) else {
            continue;
        };
        if ca.restarted_since(cb) || !topo.switches.iter().any(|t| t.name == s.name) {
            continue;
        }
        for (pa, pb) in ca.ports.iter().zip(&cb.ports) {
            let key = format!("{}/{}", s.netns, pa.name);
            let (Some(ia), Some(ib)) = (a.ifaces.get(&key), b.ifaces.get(&key)) else {
                continue;
            };
            checked += 1;
            let i = ia.since(ib);
            let bd = |r: &str| {
                delta(
                    pa.backend.drops.get(r).copied().unwrap_or(0),
                    pb.backend.drops.get(r).copied().unwrap_or(0),
                )
            };
            let eng_rx = delta(pa.rx_packets, pb.rx_packets);
            let eng_tx = delta(pa.tx_packets, pb.tx_packets);
            let kd = delta(pa.backend.kernel_drops, pb.backend.kernel_drops);
            let rx_in = eng_rx + kd + bd("rx_truncated") + bd("rx_bad_block") + bd("rx_no_buffer");
            let rx_gap = (i.rx_packets as i64 - i.rx_dropped as i64) - rx_in as i64;
            // a slowed port's qdisc was removed before the last read: its drops were
            // read when it was
            let q = delta(
                a.qdiscs.get(&key).copied().unwrap_or(0),
                b.qdiscs.get(&key).copied().unwrap_or(0),
            ) + injected
                .iter()
                .filter(|e| e.qdisc_dev == key)
                .map(|e| e.qdisc_drops)
                .sum::<u64>();
            let backlog = pa.tx_backlog as i64 - pb.tx_backlog as i64;
            let tx_gap = eng_tx as i64
                - bd("tx_wrong_format") as i64
                - (i.tx_packets + i.tx_dropped + q) as i64
                - backlog;
            if rx_gap != 0 || tx_gap != 0 {
                gaps.push(PortHop {
                    port: format!("{}:{} ({})", s.name, pa.port, pa.name),
                    rx_gap,
                    tx_gap,
                });
            }
        }
    }
    (gaps, checked)
}

/// What failed.
fn judge(r: &SoakReport, opts: &SoakOptions) -> Vec<String> {
    let mut f = vec![];
    let a = &r.accounting;
    if a.misdelivered > 0 {
        f.push(format!("{} frame(s) reached a wrong host", a.misdelivered));
    }
    if a.sent == 0 {
        f.push("nothing was sent".into());
    }
    for s in &r.switches {
        if !s.conserved && s.unchecked.is_none() {
            f.push(format!(
                "switch {}: rx {} ≠ tx {} + drops {}",
                s.name,
                s.rx,
                s.tx,
                s.drops.values().sum::<u64>()
            ));
        }
    }
    if a.exact {
        if a.unaccounted != 0 {
            f.push(format!(
                "{} frame(s) unaccounted (sent {} − received {} − misdelivered {} − counted drops {})",
                a.unaccounted, a.sent, a.received, a.misdelivered, a.counted
            ));
        }
        if a.host_wire_extra != 0 {
            f.push(format!(
                "the hosts' interfaces carried {} frame(s) more than the generator sent",
                a.host_wire_extra
            ));
        }
        for p in &r.port_gaps {
            f.push(format!(
                "port {}: interface and switch counters differ (rx gap {}, tx gap {})",
                p.port, p.rx_gap, p.tx_gap
            ));
        }
    }
    for e in &r.faults {
        let what = format!("round {} {} {}", e.round, e.kind, e.target);
        if e.kind == FaultKind::TxFill.name() && e.tx_backlog == Some(0) && e.drops.is_empty() {
            f.push(format!(
                "{what}: the port's TX ring never filled and nothing was dropped: does its socket bypass the qdisc? (set `qdisc_bypass = false` on the port)"
            ));
        }
        match e.repair_recovery_ms {
            None => f.push(format!(
                "{what}: full delivery did not resume after the repair"
            )),
            Some(ms) if ms > opts.recovery_limit_ms => f.push(format!(
                "{what}: full delivery {ms:.0} ms after the repair (limit {:.0} ms)",
                opts.recovery_limit_ms
            )),
            _ => {}
        }
        if e.expect_fault_recovery {
            match e.fault_recovery_ms {
                None => f.push(format!(
                    "{what}: full delivery did not resume during the fault"
                )),
                Some(ms) if ms > opts.recovery_limit_ms => f.push(format!(
                    "{what}: full delivery {ms:.0} ms after the fault (limit {:.0} ms)",
                    opts.recovery_limit_ms
                )),
                _ => {}
            }
        }
    }
    if !r.faults.is_empty() && r.min_delivery_100ms <= 0.0 {
        f.push("the fabric stopped forwarding for 100 ms or more".into());
    }
    f
}

/// The terminal and Markdown summary.
pub fn summary(r: &SoakReport) -> String {
    use std::fmt::Write as _;
    let a = &r.accounting;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "soak of {} ({}): {:.0} pps{} for {:.0} s",
        r.fabric,
        r.topology,
        r.rate_pps,
        r.pdr_pps
            .map_or(String::new(), |p| format!(" (PDR {p:.0} pps)")),
        r.duration_s
    );
    let _ = writeln!(
        s,
        "  sent {} ({:.0} pps achieved)  received {}  misdelivered {}  duplicates {}  foreign {}",
        a.sent, r.trial.sent_pps, a.received, a.misdelivered, a.duplicates, a.foreign
    );
    let list = |m: &BTreeMap<String, u64>| {
        if m.is_empty() {
            "none".to_string()
        } else {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let _ = writeln!(s, "  switch drops: {}", list(&a.switch_drops));
    let _ = writeln!(s, "  backend drops: {}", list(&a.backend_drops));
    let _ = writeln!(s, "  interface drops: {}", list(&a.interface_drops));
    let _ = writeln!(
        s,
        "  qdisc drops {}  receiver socket drops {}  in switch TX rings {}",
        a.qdisc_drops, a.host_socket_drops, a.in_flight
    );
    let _ = writeln!(
        s,
        "  counted {}  UNACCOUNTED {}{}  host wire extra {}",
        a.counted,
        a.unaccounted,
        if a.exact { "" } else { " (not exact)" },
        a.host_wire_extra
    );
    for w in &a.not_exact {
        let _ = writeln!(s, "    not exact: {w}");
    }
    for w in &a.uncounted {
        let _ = writeln!(s, "    uncounted: {w}");
    }
    let conserved = r.switches.iter().filter(|x| x.conserved).count();
    let _ = writeln!(
        s,
        "  switches conserving rx = tx + drops: {conserved} of {}; ports checked against the kernel: {}, gaps: {}",
        r.switches.len(),
        r.ports_checked,
        r.port_gaps.len()
    );
    if !r.faults.is_empty() {
        let _ = writeln!(
            s,
            "  lowest delivery in any 100 ms: {:.1} %",
            r.min_delivery_100ms * 100.0
        );
        let _ = writeln!(
            s,
            "  | round | fault | target | lost during | full delivery after fault | lost after repair | full delivery after repair | note |"
        );
        let _ = writeln!(s, "  |---|---|---|---|---|---|---|---|");
        let ms = |x: Option<f64>| x.map_or("never".to_string(), |v| format!("{v:.0} ms"));
        for e in &r.faults {
            let _ = writeln!(
                s,
                "  | {} | {} | {} | {} | {}{} | {} | {} | {} |",
                e.round,
                e.kind,
                e.target,
                e.lost_during,
                ms(e.fault_recovery_ms),
                if e.expect_fault_recovery {
                    ""
                } else {
                    " (not expected)"
                },
                e.lost_after,
                ms(e.repair_recovery_ms),
                e.note
            );
        }
    }
    if r.failures.is_empty() {
        let _ = writeln!(s, "  PASSED");
    } else {
        for f in &r.failures {
            let _ = writeln!(s, "  FAILED: {f}");
        }
    }
    s
}

/// Write `soak.json`, `soak.md` and `timeline.csv` into `out`.
fn write(r: &SoakReport, tl: &Timeline, out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| TestbedError::io(out.display().to_string(), e))?;
    let io = |p: PathBuf, e: std::io::Error| TestbedError::io(p.display().to_string(), e);
    let j = serde_json::to_string_pretty(r).map_err(|e| TestbedError::Parse {
        what: "soak report".into(),
        detail: e.to_string(),
    })?;
    let p = out.join("soak.json");
    std::fs::write(&p, j).map_err(|e| io(p.clone(), e))?;
    let p = out.join("soak.md");
    std::fs::write(&p, format!("```\n{}```\n", summary(r))).map_err(|e| io(p.clone(), e))?;
    let mut csv = String::from("t_ms,sent,received\n");
    for (i, (s, rcv)) in tl.sent.iter().zip(&tl.received).enumerate() {
        if *s > 0 || *rcv > 0 {
            csv.push_str(&format!(
                "{:.1},{s},{rcv}\n",
                (i as u64 * tl.bin_ns) as f64 / 1e6
            ));
        }
    }
    let p = out.join("timeline.csv");
    std::fs::write(&p, csv).map_err(|e| io(p.clone(), e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(sent: &[u64], received: &[u64]) -> Timeline {
        Timeline {
            t0_ns: 1_000_000_000,
            bin_ns: 10_000_000,
            sent: sent.to_vec(),
            received: received.to_vec(),
        }
    }

    #[test]
    fn recovery_is_the_end_of_the_last_lossy_bin() {
        // 20 bins of 10 ms; fault at bin 5 (t0 + 50 ms); loss in bins 5..=7
        let t = tl(
            &[10; 20],
            &[
                10, 10, 10, 10, 10, 4, 0, 9, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
            ],
        );
        let from = t.t0_ns + 50_000_000;
        let until = t.t0_ns + 200_000_000;
        let (lost, r) = recovery(&t, from, until, 50_000_000);
        assert_eq!(lost, 6 + 10 + 1);
        assert_eq!(r, Some(30.0));
        // no clean stretch long enough before `until`: not recovered
        assert_eq!(recovery(&t, from, t.t0_ns + 90_000_000, 50_000_000).1, None);
        // nothing lost: 0
        assert_eq!(
            recovery(&t, t.t0_ns + 100_000_000, until, 0),
            (0, Some(0.0))
        );
        // an empty window
        assert_eq!(recovery(&t, until, from, 0), (0, None));
    }

    #[test]
    fn min_delivery_finds_the_worst_window() {
        let mut r = vec![10u64; 40];
        r[15] = 0;
        r[16] = 5;
        let t = tl(&[10; 40], &r);
        let m = min_delivery(&t, 5);
        assert!((m - 0.7).abs() < 1e-9, "{m}");
        assert_eq!(min_delivery(&tl(&[10; 40], &[10; 40]), 5), 1.0);
    }

    #[test]
    fn kernel_counters_parse() {
        let links = r#"[{"ifindex":1,"ifname":"lo","stats64":{"rx":{"packets":9,"dropped":9},"tx":{"packets":9,"dropped":9}}},
            {"ifindex":2,"ifname":"s0p0","stats64":{"rx":{"bytes":1,"packets":10,"errors":0,"dropped":2},"tx":{"bytes":1,"packets":7,"errors":0,"dropped":3}}},
            {"ifindex":3,"ifname":"s0p1"}]"#;
        let l = parse_links(links).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(
            l[0],
            (
                "s0p0".to_string(),
                LinkStats {
                    rx_packets: 10,
                    rx_dropped: 2,
                    tx_packets: 7,
                    tx_dropped: 3
                }
            )
        );
        assert_eq!(l[1].1, LinkStats::default());
        let q = r#"[{"kind":"noqueue","handle":"0:","dev":"lo","root":true,"drops":5},
            {"kind":"tbf","handle":"8001:","dev":"s0p0","root":true,"bytes":600,"packets":10,"drops":4,"qlen":2},
            {"kind":"noqueue","handle":"0:","dev":"s0p1","root":true,"bytes":0,"packets":0,"drops":0}]"#;
        let d = parse_qdisc_drops(q).unwrap();
        assert_eq!(d.get("s0p0"), Some(&4));
        assert_eq!(d.get("s0p1"), Some(&0));
        assert!(!d.contains_key("lo"));
        assert!(parse_links("nope").is_err());
        assert!(parse_qdisc_drops("{").is_err());
    }

    #[test]
    fn fault_kinds_parse_and_the_plan_needs_time() {
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::parse(k.name()).unwrap(), k);
        }
        assert!(FaultKind::parse("meteor").is_err());
        let p = FaultPlan {
            rounds: 2,
            ..FaultPlan::default()
        };
        assert!((p.needs_s() - (2.0 + 2.0 * 4.0 * 3.0 + 1.5)).abs() < 1e-9);
        assert_eq!(FaultPlan::default().needs_s(), 0.0);
    }
}
