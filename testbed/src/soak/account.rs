//! Where every frame of a soak went: the counters read around the trial (switches,
//! every interface and qdisc of the fabric's namespaces, the generator's sockets), the
//! end-to-end accounting, the per-port hop check, the recovery times read from the
//! timeline, and the verdict.

use super::faults::{FaultKind, Injected};
use super::ports::{raw_gaps, PortKinds, RxOverlap, INFERRED_PLACES};
use super::SoakOptions;
use crate::error::{Result, TestbedError};
use crate::fabric::state::State;
use crate::os::netns::LinkStats;
use crate::report::results::soak::{Accounting, PortHop, SoakReport};
use crate::report::results::{SwitchDelta, Timeline, Trial};
use crate::run::linkload::{backend_drops, Snapshot};
use crate::run::settled_snapshot;
use crate::traffic::Generator;
use canopy_control::topology::Topology;
use std::collections::BTreeMap;

/// `read`'s answer for every namespace of `namespaces`, by `netns/name`.
fn per_namespace<T>(
    namespaces: &[String],
    read: impl Fn(&str) -> Result<Vec<(String, T)>>,
) -> Result<BTreeMap<String, T>> {
    let mut out = BTreeMap::new();
    for ns in namespaces {
        for (name, v) in read(ns)? {
            out.insert(format!("{ns}/{name}"), v);
        }
    }
    Ok(out)
}

/// Kernel counters of every interface (not `lo`) of `namespaces`, by `netns/ifname`.
pub fn interface_snapshot(namespaces: &[String]) -> Result<BTreeMap<String, LinkStats>> {
    per_namespace(namespaces, crate::os::netns::links_stats)
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
    per_namespace(namespaces, |ns| {
        let j = crate::os::netns::run("tc", &["-n", ns, "-s", "-j", "qdisc", "show"])?;
        let q = parse_qdisc_drops(&j).map_err(|e| TestbedError::Parse {
            what: format!("`tc -n {ns} -s -j qdisc show`"),
            detail: e.to_string(),
        })?;
        Ok(q.into_iter().collect())
    })
}

/// Everything read at one moment.
pub(super) struct Counters {
    pub(super) switches: Snapshot,
    pub(super) ifaces: BTreeMap<String, LinkStats>,
    pub(super) qdiscs: BTreeMap<String, u64>,
    pub(super) host_socket_drops: u64,
    /// The generator's `tx_requeues` (attempts its hosts' interfaces counted as
    /// `tx_dropped`).
    pub(super) host_tx_requeues: u64,
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

/// The counters once the fabric is quiet (see [`settled_snapshot`]): a switch that
/// still drains a backlog when the switches are read, and the interfaces a moment
/// later, would show gaps that are only the time between the two readings.
pub(super) fn read_counters(state: &State, g: &mut Generator) -> Result<Counters> {
    let ns = namespaces(state);
    Ok(Counters {
        switches: settled_snapshot(state)?,
        ifaces: interface_snapshot(&ns)?,
        qdiscs: qdisc_snapshot(&ns)?,
        host_socket_drops: g.rx_kernel_drops(),
        host_tx_requeues: g.tx_requeues(),
    })
}

pub(super) fn delta(a: u64, b: u64) -> u64 {
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

/// End-to-end accounting of the soak trial.
pub(super) fn account(
    state: &State,
    t: &Trial,
    [b, a]: [&Counters; 2],
    overlap: &RxOverlap,
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
        let dropped: u64 = d.drops.values().sum();
        if state.target == "bmv2" && d.unchecked.is_none() && d.rx > d.tx + dropped {
            let place = format!("{} (bmv2 egress queues)", d.name);
            acc.inferred.insert(place, d.rx - d.tx - dropped);
        }
        if let Some(why) = &d.unchecked {
            acc.exact = false;
            // a restarted switch's counters since its start (a silent one has none)
            let drops: Vec<String> = d
                .drops
                .iter()
                .chain(&d.backend_drops)
                .map(|(r, n)| format!("{r} {n}"))
                .collect();
            let since = match (d.rx + d.tx, drops.is_empty()) {
                (0, true) => String::new(),
                (_, true) => format!("; rx {} tx {}, no drops", d.rx, d.tx),
                _ => format!("; rx {} tx {}, drops: {}", d.rx, d.tx, drops.join(", ")),
            };
            acc.not_exact
                .push(format!("switch {}: {why}{since}", d.name));
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
        for (r, n) in backend_drops(cb, ca) {
            *acc.backend_drops.entry(r).or_insert(0) += n;
        }
        for (pa, pb) in ca.ports.iter().zip(&cb.ports) {
            acc.in_flight += pa.tx_backlog;
            acc.in_flight = acc.in_flight.saturating_sub(pb.tx_backlog);
            acc.requeued += delta(pa.backend.tx_requeues, pb.backend.tx_requeues);
        }
    }
    let host_ifs: Vec<String> = state
        .hosts
        .hosts
        .iter()
        .map(|h| format!("{}/{}", h.netns, h.ifname))
        .collect();
    let twice = &overlap.twice;
    for (port, (_, n, _)) in &overlap.inferred {
        if *n > 0 {
            acc.inferred.insert(port.clone(), *n);
        }
    }
    if !acc.inferred.is_empty() {
        acc.exact = false;
        let places: Vec<&str> = INFERRED_PLACES
            .iter()
            .filter(|(mark, _)| acc.inferred.keys().any(|k| k.contains(mark)))
            .map(|(_, how)| *how)
            .collect();
        acc.not_exact.push(format!(
            "{} frame(s) lost where no counter of their own sees them are inferred: {}",
            acc.inferred.values().sum::<u64>(),
            places.join("; ")
        ));
    }
    let (mut host_rx, mut host_rx_dropped) = (0u64, 0u64);
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
            host_rx += d.rx_packets;
            host_rx_dropped += d.rx_dropped;
        }
        // what the port's socket counted already (native XDP on a veth)
        let rx_dropped = d
            .rx_dropped
            .saturating_sub(twice.get(k).copied().unwrap_or(0));
        if rx_dropped > 0 {
            acc.interface_drops.insert(format!("{k} rx"), rx_dropped);
        }
        if d.tx_dropped > 0 {
            acc.interface_drops.insert(format!("{k} tx"), d.tx_dropped);
        }
    }
    let host_requeued = delta(a.host_tx_requeues, b.host_tx_requeues);
    acc.requeued += host_requeued;
    acc.host_wire_extra = wire as i64 - host_requeued as i64 - (t.sent + t.warmup_sent) as i64;
    for (k, qa) in &a.qdiscs {
        acc.qdisc_drops += delta(*qa, b.qdiscs.get(k).copied().unwrap_or(0));
    }
    acc.qdisc_drops += injected.iter().map(|e| e.qdisc_drops).sum::<u64>();
    acc.host_socket_drops = delta(a.host_socket_drops, b.host_socket_drops);
    // what reached the hosts and was dropped there or read by the generator; the rest
    // came after it stopped reading
    let read = t.received
        + t.misdelivered
        + t.duplicates
        + t.foreign
        + t.warmup_received
        + acc.host_socket_drops;
    acc.late = host_rx.saturating_sub(host_rx_dropped).saturating_sub(read);
    let counted = acc.switch_drops.values().sum::<u64>()
        + acc.backend_drops.values().sum::<u64>()
        + acc.interface_drops.values().sum::<u64>()
        + acc.qdisc_drops
        + acc.host_socket_drops
        + acc.in_flight
        + acc.inferred.values().sum::<u64>()
        + acc.late;
    // every requeue is one of the interface or qdisc drops counted above
    acc.counted = counted.saturating_sub(acc.requeued);
    acc.unaccounted =
        t.sent as i64 - t.received as i64 - t.misdelivered as i64 - acc.counted as i64;
    if injected.iter().any(|e| e.kind == FaultKind::SwitchKill) {
        acc.exact = false;
        acc.uncounted.push(
            "frames in a killed switch's RX rings, engine rings and TX ring die with the process and its counters"
                .into(),
        );
    }
    if state
        .vm
        .as_ref()
        .is_some_and(|v| v.links == crate::fabric::desc::VmLinks::Dgram)
    {
        // the unaccounted remainder would show them, but nothing names the link
        acc.uncounted.push(
            "frames QEMU's userspace links (links = \"dgram\") lose between two guests: no interface counts them, and their ports are not checked"
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
pub(super) fn port_hops(
    state: &State,
    topo: &Topology,
    [b, a]: [&Counters; 2],
    (kinds, overlap): (&PortKinds, &RxOverlap),
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
            let key = kinds.iface(s, pa);
            let (Some(ia), Some(ib)) = (a.ifaces.get(&key), b.ifaces.get(&key)) else {
                continue;
            };
            checked += 1;
            let guest = kinds.is_guest_tap(&key);
            let i = match guest {
                true => ia.since(ib).from_the_guest(),
                false => ia.since(ib),
            };
            // what the backend's socket counted already (native XDP)
            let twice = overlap.twice.get(&key).copied().unwrap_or(0);
            // a slowed port's qdisc was removed before the last read: its drops were
            // read when it was. (A tap's qdisc is on the guest's receive side: what it
            // drops never reached the guest, and the accounting counts it.)
            let q = if guest {
                0
            } else {
                delta(
                    a.qdiscs.get(&key).copied().unwrap_or(0),
                    b.qdiscs.get(&key).copied().unwrap_or(0),
                ) + injected
                    .iter()
                    .filter(|e| e.qdisc_dev == key)
                    .map(|e| e.qdisc_drops)
                    .sum::<u64>()
            };
            // less what no one counted but the counters show (named in the accounting)
            let (rx, tx) = raw_gaps(pa, pb, &i, twice, q);
            let rx_gap = rx - overlap.inferred_at(&key, false) as i64;
            let tx_gap = tx - overlap.inferred_at(&key, true) as i64;
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

/// The failure of a recovery after `event` (`fault`, `repair`) that never came
/// (`never`: when it was waited for) or came later than `limit_ms`.
fn slow_recovery(
    what: &str,
    event: &str,
    never: &str,
    ms: Option<f64>,
    limit_ms: f64,
) -> Option<String> {
    match ms {
        None => Some(format!("{what}: full delivery did not resume {never}")),
        Some(ms) if ms > limit_ms => Some(format!(
            "{what}: full delivery {ms:.0} ms after the {event} (limit {limit_ms:.0} ms)"
        )),
        _ => None,
    }
}

/// What failed.
pub(super) fn judge(r: &SoakReport, opts: &SoakOptions) -> Vec<String> {
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
        let limit = opts.recovery_limit_ms;
        // a guest booted again: from when its switch answered
        f.extend(slow_recovery(
            &what,
            "repair",
            "after the repair",
            e.repair_recovery_ms,
            limit + e.boot_ms.unwrap_or(0.0),
        ));
        if e.expect_fault_recovery {
            f.extend(slow_recovery(
                &what,
                "fault",
                "during the fault",
                e.fault_recovery_ms,
                limit + e.detect_ms.unwrap_or(0.0),
            ));
        }
    }
    if !r.faults.is_empty() && r.min_delivery_100ms <= 0.0 {
        f.push("the fabric stopped forwarding for 100 ms or more".into());
    }
    f
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
    fn qdisc_counters_parse() {
        let q = r#"[{"kind":"noqueue","handle":"0:","dev":"lo","root":true,"drops":5},
            {"kind":"tbf","handle":"8001:","dev":"s0p0","root":true,"bytes":600,"packets":10,"drops":4,"qlen":2},
            {"kind":"noqueue","handle":"0:","dev":"s0p1","root":true,"bytes":0,"packets":0,"drops":0}]"#;
        let d = parse_qdisc_drops(q).unwrap();
        assert_eq!(d.get("s0p0"), Some(&4));
        assert_eq!(d.get("s0p1"), Some(&0));
        assert!(!d.contains_key("lo"));
        assert!(parse_qdisc_drops("{").is_err());
    }
}
