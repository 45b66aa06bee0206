//! The generator's own ceiling: how fast its trial path sends, and its receiver
//! accounts, when the network costs no more than one veth pair. [`generator_ceiling`]
//! wires a pair in a namespace of its own (`cgen<pid>n<k>-c`, deleted afterwards, also
//! on failure); [`measure`] runs on a pair that exists (the vethbench's direct pair,
//! next to trafgen).
//!
//! The measurement is a trial's exchange (`traffic::engine`): `tx_threads` sender lanes, each sending
//! as its own host (hosts 0, 1, … of the k=4 fat-tree, each its own send-only TX
//! socket on the pair's near end) at full speed to one sink host on the far end, with
//! stamped frames of the real header; the far end is either a plain sink (nobody
//! listens: the kernel drops the frames, as it does trafgen's) or the generator's
//! receiver, which accounts every frame (sequence, loss, duplicates, latency). The
//! lanes and the receiver are pinned to distinct CPUs where there are enough (the
//! first lane to the first CPU, as trafgen's worker is), so the figure is the
//! generator's and not the scheduler's.

use super::engine::{auto_burst, Exchange};
use super::frame::HostFrame;
use super::pattern::Dests;
use super::port;
use super::progress::Progress;
use super::rx::RxAccount;
use super::tx::{Lane, Plan, Source};
use crate::error::{Result, TestbedError};
use crate::os::netns::{self, link_stats, Netns};
use crate::report::results::{CeilingRx, GeneratorCeiling};
use canopy_dataplane::wire::Kind;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Topology whose hosts the measurement's frames go between (16 hosts).
const TOPOLOGY: &str = "fat-tree:k=4";
/// Most sender lanes: one host each, and one host is the sink.
pub const MAX_THREADS: usize = 15;
/// The pair [`generator_ceiling`] wires: near end (senders) and far end (sink).
pub const PAIR: (&str, &str) = ("g0", "g1");
/// Warm-up before the measurement (rings, caches, the receiver's flow state).
const WARMUP: Duration = Duration::from_millis(100);
/// Run ids of the warm-up and the measurement.
const WARM_ID: u16 = 0xce00;
const RUN_ID: u16 = 0xce01;

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct CeilingOptions {
    /// Frame length without FCS (60 = 64 B on the wire).
    pub frame_len: usize,
    /// Send time (after a 100 ms warm-up).
    pub duration: Duration,
    /// Sender lanes (threads), 1..=[`MAX_THREADS`].
    pub tx_threads: usize,
    /// Frames per `send()` (default: what a trial uses at full speed).
    pub burst: usize,
    /// The generator's receiver on the far end (otherwise a plain sink).
    pub receive: bool,
    /// The receiver busy-polls.
    pub busy_poll: bool,
}

impl Default for CeilingOptions {
    fn default() -> Self {
        CeilingOptions {
            frame_len: 60,
            duration: Duration::from_secs(1),
            tx_threads: 1,
            burst: auto_burst(f64::INFINITY),
            receive: true,
            busy_poll: false,
        }
    }
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Measure on a veth pair of a namespace made for it (named `cgen<pid>n<k>-c`, deleted
/// when done, also on failure).
pub fn generator_ceiling(o: &CeilingOptions, stop: &AtomicBool) -> Result<GeneratorCeiling> {
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let ns = Netns::create(&format!("cgen{}n{k}", std::process::id()), &["c"])?;
    let name = ns.name(0);
    netns::veth(name, PAIR.0, name, PAIR.1)?;
    measure((name, PAIR.0), (name, PAIR.1), o, stop)
}

/// Measure from `tx` (namespace, interface) into `sink`, the far end of its veth pair.
pub fn measure(
    tx: (&str, &str),
    sink: (&str, &str),
    o: &CeilingOptions,
    stop: &AtomicBool,
) -> Result<GeneratorCeiling> {
    let threads = o.tx_threads;
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(TestbedError::traffic(
            "tx_threads",
            format!("{threads} is outside 1..={MAX_THREADS} for the ceiling"),
        ));
    }
    let topo = canopy_control::build_str(TOPOLOGY)
        .map_err(|e| TestbedError::Frame(format!("topology `{TOPOLOGY}`: {e}")))?;
    // hosts 0..threads send, host `threads` is the sink
    let n = threads + 1;
    let dst = threads as u32;
    let mut ports = (0..threads)
        .map(|_| port::open_tx(tx.0, tx.1))
        .collect::<Result<Vec<_>>>()?;
    let mut rx = match o.receive {
        true => vec![(threads, port::open(sink.0, sink.1)?)],
        false => vec![],
    };
    let mut frames = Vec::with_capacity(n * n);
    for s in 0..n as u32 {
        for d in 0..n as u32 {
            frames.push(match s != dst && d == dst {
                true => Some(HostFrame::new(
                    &topo,
                    Kind::Sliced,
                    s,
                    d,
                    o.frame_len,
                    WARM_ID,
                )?),
                false => None,
            });
        }
    }
    let mut dests: Vec<Dests> = (0..threads)
        .map(|_| Dests::Cycle {
            list: vec![dst],
            at: 0,
        })
        .collect();
    let macs: Vec<[u8; 6]> = (0..n as u32)
        .map(|h| canopy_control::oracle::host_mac(&topo, h))
        .collect();
    let mut acc = RxAccount::new(&macs, RUN_ID, WARM_ID, 1, vec![false; n])?;
    let mut seq = vec![0u64; n * n];
    let full_speed = |d| Plan {
        pps: f64::INFINITY,
        burst: o.burst.max(1),
        total: u64::MAX,
        deadline: Some(d),
    };
    let lanes = ports
        .iter_mut()
        .zip(dests.iter_mut())
        .zip(frames.chunks_mut(n).zip(seq.chunks_mut(n)))
        .map(|((port, dests), (frames, seq))| {
            let lane = Lane {
                sources: vec![Source {
                    port,
                    dests,
                    frames,
                    seq,
                }],
            };
            (lane, full_speed(WARMUP), full_speed(o.duration))
        })
        .collect();
    let before = link_stats(sink.0, sink.1)?;
    let sent = Exchange {
        lanes,
        run_id: RUN_ID,
        rx: &mut rx,
        acc: &mut acc,
        busy: o.busy_poll,
        grace: Duration::from_millis(100),
        pcap_tx: None,
        pcap_rx: None,
        timeline: None,
        pin: true,
        probe: None,
    }
    .run(stop, &Progress::hidden())?;
    let (rep, warmup_sent) = (sent.main, sent.warm);
    if stop.load(Ordering::Relaxed) {
        return Err(TestbedError::Interrupted);
    }
    let sink_rx = link_stats(sink.0, sink.1)?.since(&before).rx_packets;
    let secs = rep.elapsed.as_secs_f64().max(1e-9);
    let receiver = match rx.first_mut() {
        Some((_, p)) => {
            let t = acc.trial(&seq, f64::INFINITY, secs);
            Some(CeilingRx {
                received: t.received,
                received_pps: t.received_pps,
                lost: t.lost,
                duplicates: t.duplicates,
                reordered: t.reordered,
                foreign: t.foreign,
                kernel_drops: p.stats().kernel_drops,
                p50_ns: t.latency.p50_ns,
                p99_ns: t.latency.p99_ns,
                max_ns: t.latency.max_ns,
            })
        }
        None => None,
    };
    Ok(GeneratorCeiling {
        tx_threads: threads,
        burst: o.burst.max(1),
        frame_len: o.frame_len,
        seconds: secs,
        sent: rep.sent,
        sent_pps: rep.sent as f64 / secs,
        warmup_sent,
        sink_rx,
        burst_span_mean_ns: rep.span_mean_ns(),
        burst_span_max_ns: rep.span_max_ns,
        receiver,
        at_up: false,
    })
}

/// The ceiling `up` measures once the fabric is up, with the defaults (64-B frames,
/// one sender thread, the generator's receiver on the far end): what every run's report
/// states (a search measures it again with its own traffic). A measurement that fails
/// costs a warning, not the fabric; `interrupt` (Ctrl-C) ends it early.
pub fn at_up(interrupt: Option<&AtomicBool>) -> Option<GeneratorCeiling> {
    let quiet = AtomicBool::new(false);
    match generator_ceiling(&CeilingOptions::default(), interrupt.unwrap_or(&quiet)) {
        Ok(mut c) => {
            c.at_up = true;
            Some(c)
        }
        Err(e) => {
            tracing::warn!("generator ceiling not measured: {e}");
            None
        }
    }
}
