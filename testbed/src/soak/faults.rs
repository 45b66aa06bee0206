//! The faults a soak injects while its traffic flows, round after round: a link down
//! and up unannounced, a switch and `canopyd` SIGKILLed and started again, a host port
//! slowed until its TX ring fills. Every fault is repaired before `inject` returns.

use super::account::delta;
use super::SoakOptions;
use crate::error::{Result, TestbedError};
use crate::fabric::{drill, state::State};
use canopy_control::topology::{Peer, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    /// How many faults of `kind` the plan injects.
    pub fn count(&self, kind: FaultKind) -> usize {
        self.rounds * self.kinds.iter().filter(|&&k| k == kind).count()
    }

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

/// A fault as the injecting thread saw it.
#[derive(Debug, Clone)]
pub(super) struct Injected {
    pub(super) round: usize,
    pub(super) kind: FaultKind,
    pub(super) target: String,
    pub(super) fault_ns: u64,
    pub(super) repair_ns: u64,
    pub(super) expect_recovery: bool,
    pub(super) note: String,
    /// Qdisc drops read when a slowed port's qdisc was removed (they vanish with it),
    /// and its interface (`netns/ifname`).
    pub(super) qdisc_drops: u64,
    pub(super) qdisc_dev: String,
    /// tx-fill: what the switch counted (drops, other ports' tx, backlog).
    pub(super) fill: Option<FillSeen>,
    /// switch-kill of a guest: how long the guest's switch took to answer after QEMU
    /// started again (ms).
    pub(super) boot_ms: Option<f64>,
}

/// Longest wait for a guest booted again by a switch-kill's repair.
const GUEST_BOOT_LIMIT: Duration = Duration::from_secs(180);

/// Wait until the switch of a guest booted again answers `health`: its time since
/// `t0`, None when it did not answer within [`GUEST_BOOT_LIMIT`] or the soak stopped.
fn guest_back(
    s: &crate::fabric::state::SwitchState,
    t0: Instant,
    stop: &AtomicBool,
) -> Option<f64> {
    let to = s.mgmt();
    while t0.elapsed() < GUEST_BOOT_LIMIT && !stop.load(Ordering::Relaxed) {
        if crate::fabric::mgmt::health(&to, Duration::from_secs(1)).is_ok() {
            return Some(t0.elapsed().as_secs_f64() * 1e3);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// What a slowed port's switch counted while the port was slowed.
#[derive(Debug, Clone, Default)]
pub(super) struct FillSeen {
    pub(super) drops: BTreeMap<String, u64>,
    pub(super) other_tx: u64,
    pub(super) backlog: u64,
}

/// The targets faults rotate over.
pub(super) struct Targets {
    /// (switch, port) of switch-to-switch links, from edge switches.
    pub(super) links: Vec<(String, u16)>,
    /// Switches that serve no host.
    pub(super) inner: Vec<String>,
    /// (switch, port, interface) of edge ports towards hosts that may be slowed.
    pub(super) host_ports: Vec<(String, u16)>,
}

pub(super) fn targets(t: &Topology) -> Targets {
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
pub(super) fn inject(
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
            let now = crate::os::sys::monotonic_ns;
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
                boot_ms: None,
            };
            match kind {
                FaultKind::LinkFlap => {
                    let Some((sw, port)) = tg.links.get(round % tg.links.len().max(1)) else {
                        continue;
                    };
                    ev.target = format!("{sw}:{port}");
                    if state.bmv2_under_canopyd() {
                        // P4Runtime has no port state: canopyd cannot see the link go
                        ev.expect_recovery = false;
                        ev.note = "P4Runtime target: canopyd cannot see a link go down, traffic over it is lost until it is back".into();
                    }
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
                    let t0 = Instant::now();
                    let s = drill::start_switch(root, name, sw)?;
                    ev.note = match s.instance {
                        Some(i) => format!(
                            "restarted in the shared host (pid {}) as instance {i}",
                            s.pid
                        ),
                        None => format!("restarted as pid {}", s.pid),
                    };
                    // a guest boots before its switch can take tables: the next fault
                    // waits for it, and its recovery is timed from its answer
                    if let Some(g) = state
                        .switches
                        .iter()
                        .find(|x| &x.name == sw && x.guest.is_some())
                    {
                        ev.boot_ms = guest_back(g, t0, stop);
                        ev.note = match ev.boot_ms {
                            Some(ms) => format!(
                                "guest booted again (QEMU pid {}), its switch answered after {:.1} s",
                                s.pid,
                                ms / 1e3
                            ),
                            None => format!(
                                "guest booted again (QEMU pid {}), its switch did not answer within {} s",
                                s.pid,
                                GUEST_BOOT_LIMIT.as_secs()
                            ),
                        };
                    }
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
                        .map(|s| s.mgmt());
                    let before = sock.as_ref().and_then(|s| {
                        crate::fabric::mgmt::counters(s, Duration::from_secs(2)).ok()
                    });
                    ev.fault_ns = now();
                    drill::slow_port(root, name, sw, *port, Some(&p.slow_rate))?;
                    nap(hold, stop);
                    let after = sock.as_ref().and_then(|s| {
                        crate::fabric::mgmt::counters(s, Duration::from_secs(2)).ok()
                    });
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

#[cfg(test)]
mod tests {
    use super::*;

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
