//! The generator proper: per host a TX and an RX AF_PACKET port opened in the host's
//! namespace; per trial one sender thread that round-robins all hosts' TX ports in
//! bursts on an absolute schedule, and one receiver thread that busy-polls all RX ports.
//! Also the reflector (round trips across machines), pcap replay and a listen-only
//! receiver for tests that inject frames themselves.

use super::frame::{self, HostFrame};
use super::pcap::{PcapFrame, PcapWriter};
use super::port::{self, Wait};
use super::progress::Progress;
use super::rx::{self, RxAccount};
use super::search;
use super::sender;
use super::spec::TrafficSpec;
use super::tx::{self, Lane, Plan, SendReport, Source};
use crate::error::{Result, TestbedError};
use crate::os::sys;
use crate::report::results::{SearchResult, Timeline, Trial};
use crate::traffic::hosts::{FabricHosts, MacIndex};
use canopy_control::topology::Topology;
use canopy_dataplane::port::afpacket::AfPacketPort;
use canopy_dataplane::wire::Kind;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Build the topology and kind a [`FabricHosts`] names.
pub fn topology_of(hosts: &FabricHosts) -> Result<(Topology, Kind)> {
    let topo = canopy_control::build_str(&hosts.topology)
        .map_err(|e| TestbedError::Frame(format!("topology `{}`: {e}", hosts.topology)))?;
    let kind = Kind::from_name(&hosts.kind)
        .ok_or_else(|| TestbedError::Frame(format!("unknown header kind `{}`", hosts.kind)))?;
    Ok((topo, kind))
}

/// Default frames per host per sender slot at `pps`: one frame per slot up to 20 k
/// slots per second, then bursts (at most 32) so the slot rate stays near 20 k/s.
pub fn auto_burst(pps: f64) -> usize {
    ((pps / 20_000.0).round() as usize).clamp(1, 32)
}

/// A frame to replay: its bytes and, when it is one of ours, its flow.
type ReplayFrame = (Vec<u8>, Option<usize>);

/// Empty polling rounds before the receiver sleeps in `poll(2)` (adaptive mode).
const RX_SPINS: u32 = 64;

/// Poll every RX port into `acc` until `stop`, then drain once more. `busy`: spin
/// between empty rounds (lowest receive delay, one core); otherwise spin
/// [`RX_SPINS`] empty rounds, then sleep in `poll(2)` on all the ports for at most 1 ms,
/// which leaves the CPU to the switches on a small machine.
fn receive(
    ports: &mut [(usize, AfPacketPort)],
    acc: &mut RxAccount,
    stop: &AtomicBool,
    mut pcap: Option<&mut PcapWriter>,
    busy: bool,
) {
    let fds: Vec<std::os::fd::RawFd> = ports.iter().map(|(_, p)| p.fd()).collect();
    let mut poll = sys::PollSet::new(&fds);
    let mut idle = 0u32;
    let mut last = false;
    loop {
        let mut got = 0;
        for (i, p) in ports.iter_mut() {
            let i = *i;
            let n = p.rx_burst_stamped(rx::PENDING, |f, kernel_ns| {
                acc.on_frame_deferred(i, f, kernel_ns);
                if let Some(w) = pcap.as_deref_mut() {
                    if w.wants() {
                        let _ = w.write(sys::monotonic_ns(), f);
                    }
                }
            });
            if n > 0 {
                // one reading of the clocks per burst: every frame of it was in the ring
                // by now, and they convert its kernel stamps
                acc.end_burst(rx::RxClock::now());
            }
            got += n;
        }
        if last {
            break;
        }
        if stop.load(Ordering::Relaxed) {
            last = true;
        } else if got > 0 {
            idle = 0;
        } else if busy || idle < RX_SPINS {
            idle += 1;
            std::hint::spin_loop();
        } else {
            poll.wait(1);
        }
    }
}

/// The send and receive work of one trial, without the fabric: lanes with their
/// warm-up and measurement plans, the receive ports and their accounting.
/// [`Generator::trial`] and the ceiling measurement ([`super::ceiling`]) both run it.
pub(crate) struct Exchange<'a> {
    /// Each lane (one sender thread) with its warm-up and measurement plans.
    pub lanes: Vec<(Lane<'a>, Plan, Plan)>,
    /// Run id of the measurement's frames (the warm-up's are built with another).
    pub run_id: u16,
    /// Receive ports with their host positions.
    pub rx: &'a mut [(usize, AfPacketPort)],
    /// The accounting of the measurement.
    pub acc: &'a mut RxAccount,
    /// Busy-poll the receive ports.
    pub busy: bool,
    /// How long the receiver keeps polling after the last lane ended.
    pub grace: Duration,
    /// Frames sent, when wanted (one lane only: the first gets it).
    pub pcap_tx: Option<&'a mut PcapWriter>,
    /// Frames received, when wanted.
    pub pcap_rx: Option<&'a mut PcapWriter>,
    /// The latency stream's lane and plan, when the trial has one: its thread starts
    /// when the warm-up ends (`after`) and sends one frame per slot.
    pub probe: Option<ProbeLane<'a>>,
    /// Frames sent per bin of their stamp, when wanted.
    pub timeline: Option<&'a mut Timeline>,
    /// Pin lane `i` to the `i`-th CPU this process may use and the receiver to the next
    /// (modulo their number), so that the scheduler never stacks them on one CPU (it
    /// tends to: a frame's wake-up pulls the receiver onto the sender's CPU).
    pub pin: bool,
}

/// The latency stream's sender (see [`Exchange::probe`]).
pub(crate) struct ProbeLane<'a> {
    pub lane: Lane<'a>,
    pub plan: Plan,
    /// How long after the exchange starts it begins (the warm-up's length).
    pub after: Duration,
}

/// What an [`Exchange`] sent.
#[derive(Debug, Default)]
pub(crate) struct Sent {
    /// The measurement's lanes, merged.
    pub main: SendReport,
    /// Warm-up frames.
    pub warm: u64,
    /// The latency stream's lane, when there was one.
    pub probe: Option<SendReport>,
}

impl Exchange<'_> {
    /// Run the lanes, one thread each (warm-up, then the measurement), and the latency
    /// stream's when there is one, with the receiver polling meanwhile and for the
    /// grace period after the last send.
    pub fn run(self, stop: &AtomicBool, progress: &Progress) -> Result<Sent> {
        let Exchange {
            lanes,
            run_id,
            rx,
            acc,
            busy,
            grace,
            mut pcap_tx,
            pcap_rx,
            timeline,
            pin,
            probe,
        } = self;
        let cpus = pin
            .then(|| core_affinity::get_core_ids().unwrap_or_default())
            .filter(|c| !c.is_empty())
            .map(|c| c.into_iter().map(|c| c.id).collect::<Vec<_>>());
        let stop_rx = AtomicBool::new(false);
        let sent_now = AtomicU64::new(0);
        let mut tls: Vec<Option<Timeline>> =
            lanes.iter().map(|_| timeline.as_deref().cloned()).collect();
        let sent = std::thread::scope(|sc| -> Result<Sent> {
            let (stop_rx, sent_now) = (&stop_rx, &sent_now);
            let rx_cpu = cpus.as_ref().map(|c| c[lanes.len() % c.len()]);
            let rxh = sc.spawn(move || {
                if let Some(c) = rx_cpu {
                    sender::pin(c);
                }
                receive(rx, acc, stop_rx, pcap_rx, busy)
            });
            let txh: Vec<_> = lanes
                .into_iter()
                .zip(tls.iter_mut())
                .enumerate()
                .map(|(i, ((mut lane, warm, main), tl))| {
                    let pcap = pcap_tx.take();
                    let cpu = cpus.as_ref().map(|c| c[i % c.len()]);
                    sc.spawn(move || {
                        if let Some(c) = cpu {
                            sender::pin(c);
                        }
                        sys::set_timer_slack_ns(1_000);
                        let unused = AtomicU64::new(0);
                        let warm_sent = lane.run(&warm, stop, &unused, None, None).sent;
                        lane.restart(run_id);
                        let r = lane.run(&main, stop, sent_now, pcap, tl.as_mut());
                        (r, warm_sent)
                    })
                })
                .collect();
            let probe_h = probe.map(|mut p| {
                sc.spawn(move || {
                    sys::set_timer_slack_ns(1_000);
                    port::wait_until(Instant::now() + p.after, Wait::GENERATOR);
                    let unused = AtomicU64::new(0);
                    p.lane.run(&p.plan, stop, &unused, None, None)
                })
            });
            while txh.iter().any(|h| !h.is_finished()) {
                std::thread::sleep(Duration::from_millis(100));
                progress.set_position(sent_now.load(Ordering::Relaxed));
            }
            let mut rep = SendReport::default();
            let mut warm_sent = 0;
            for h in txh {
                let (r, w) = h.join().map_err(|_| TestbedError::Forwarder {
                    forwarder: "traffic sender".into(),
                    detail: "thread panicked".into(),
                })?;
                rep.merge(&r);
                warm_sent += w;
            }
            progress.set_position(rep.sent);
            let probe = match probe_h {
                Some(h) => Some(h.join().map_err(|_| TestbedError::Forwarder {
                    forwarder: "latency stream sender".into(),
                    detail: "thread panicked".into(),
                })?),
                None => None,
            };
            std::thread::sleep(grace);
            stop_rx.store(true, Ordering::Release);
            rxh.join().map_err(|_| TestbedError::Forwarder {
                forwarder: "traffic receiver".into(),
                detail: "thread panicked".into(),
            })?;
            Ok(Sent {
                main: rep,
                warm: warm_sent,
                probe,
            })
        })?;
        if let Some(base) = timeline {
            for tl in tls.iter().flatten() {
                for (a, b) in base.sent.iter_mut().zip(&tl.sent) {
                    *a += b;
                }
            }
        }
        Ok(sent)
    }
}

/// How long the receive side must see no frame before a trial starts.
pub const QUIET: Duration = Duration::from_millis(100);
/// The longest a trial waits for [`QUIET`]: a target still delivering after it starts the
/// trial anyway, and the late frames of the earlier trial count as `foreign`.
pub const QUIET_MAX: Duration = Duration::from_secs(10);

/// Discard what arrives on the RX rings until none has for [`QUIET`] (frames of an earlier
/// trial, which a slow target such as bmv2 may still be emptying from its queues), at most
/// [`QUIET_MAX`]. Returns the seconds it took.
fn drain(ports: &mut [(usize, AfPacketPort)]) -> f64 {
    let t0 = Instant::now();
    let mut quiet_since = t0;
    loop {
        let got: usize = ports.iter_mut().map(|(_, p)| p.rx_burst(256, |_| {})).sum();
        if got > 0 {
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= QUIET || t0.elapsed() >= QUIET_MAX {
            return t0.elapsed().as_secs_f64();
        } else {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The lanes of a trial: host `h` (with its port, destinations, frames and sequence
/// numbers, `n` flows each) in lane `lane_at[h]`, hosts without a lane or a port left out.
fn build_lanes<'a>(
    ports: &'a mut [Option<AfPacketPort>],
    dests: &'a mut [super::pattern::Dests],
    frames: &'a mut [Option<HostFrame>],
    seq: &'a mut [u64],
    lane_at: &[Option<usize>],
) -> Vec<Lane<'a>> {
    let n = lane_at.len();
    let mut lanes: Vec<Lane> = Vec::new();
    let hosts = ports
        .iter_mut()
        .zip(dests.iter_mut())
        .zip(frames.chunks_mut(n).zip(seq.chunks_mut(n)));
    for (h, ((port, dests), (frames, seq))) in hosts.enumerate() {
        if let (Some(Some(l)), Some(port)) = (lane_at.get(h), port.as_mut()) {
            if lanes.len() <= *l {
                lanes.resize_with(l + 1, || Lane { sources: vec![] });
            }
            lanes[*l].sources.push(Source {
                port,
                dests,
                frames,
                seq,
            });
        }
    }
    lanes
}

/// The flows of a trial's latency stream: the pattern's, with a seed of their own, one
/// frame of each per slot from the hosts that send the load.
struct ProbeFlows {
    dests: Vec<super::pattern::Dests>,
    frames: Vec<Option<HostFrame>>,
    seq: Vec<u64>,
    plan: Plan,
}

impl ProbeFlows {
    /// The stream at `pps` for `secs` from hosts `active`, run `run_id`, its frames
    /// with `slots` hop record slots.
    fn new(
        g: &Generator,
        spec: &TrafficSpec,
        active: &[usize],
        (pps, secs): (f64, f64),
        run_id: u16,
        slots: u8,
    ) -> Result<ProbeFlows> {
        let n = g.hosts.hosts.len();
        Ok(ProbeFlows {
            dests: spec.pattern.dests(n, spec.seed ^ PROBE_SEED)?,
            frames: g.flow_frames(active, spec.frame_len(), run_id, slots)?,
            seq: vec![0; n * n],
            plan: Plan {
                pps,
                burst: 1,
                total: (pps * secs).round().max(1.0) as u64,
                deadline: Some(Duration::from_secs_f64(secs)),
            },
        })
    }
}

/// Mixed into the pattern's seed for the latency stream's destinations, so that the
/// stream does not follow the load frame for frame.
const PROBE_SEED: u64 = 0x5bd1_e995_0000_0001;

/// A pcap writer for `path` when there is one.
fn pcap_writer(path: Option<&std::path::Path>, max: u64) -> Result<Option<PcapWriter>> {
    Ok(path.map(|p| PcapWriter::create(p, max)).transpose()?)
}

/// A trial's line in the log, and a warning with a sample when frames were foreign.
fn log_trial(t: &Trial, acc: &RxAccount, rep: &SendReport) {
    tracing::info!(
        offered = t.offered_pps.round(),
        sent = t.sent,
        received = t.received,
        lost = t.lost,
        refused = rep.refused,
        burst_span_mean_ns = rep.span_mean_ns().round(),
        burst_span_max_ns = rep.span_max_ns,
        warmup_rx = acc.warmup,
        p50_ns = t.latency.p50_ns,
        "trial"
    );
    if t.foreign > 0 {
        tracing::warn!(
            foreign = t.foreign,
            sample = ?acc.foreign_sample.iter().map(|f| f.iter().map(|b| format!("{b:02x}")).collect::<String>()).collect::<Vec<_>>(),
            "frames that are not this trial's"
        );
    }
}

/// The traffic generator of one fabric: ports open for every local host.
pub struct Generator {
    hosts: FabricHosts,
    topo: Topology,
    kind: Kind,
    /// Host positions whose frames are reflected back (remote hosts running a
    /// [`Reflector`]); they have no local ports and do not send.
    remote: Vec<bool>,
    tx: Vec<Option<AfPacketPort>>,
    /// Receive ports with the host position they belong to (a Transit host has two).
    rx: Vec<(usize, AfPacketPort)>,
    /// A second TX port per local host for the latency stream (its own thread sends on
    /// it), opened by the first trial that has one.
    probe_tx: Vec<Option<AfPacketPort>>,
    next_run: u16,
    /// Set to stop a trial early (SIGINT); the trial then fails with `Interrupted`.
    pub stop: std::sync::Arc<AtomicBool>,
    /// Trials run so far (including search steps).
    pub trials_run: usize,
    /// When set, every trial also counts its frames sent and received per bin of this
    /// many nanoseconds of send time ([`Trial::timeline`]).
    pub timeline_bin_ns: Option<u64>,
}

impl Generator {
    /// Open a TX and an RX port for every host of `hosts`.
    pub fn open(hosts: &FabricHosts) -> Result<Generator> {
        Self::open_with_remote(hosts, &[])
    }

    /// Like [`open`](Self::open), but the hosts at positions `remote` are on another
    /// machine and run a [`Reflector`]: frames sent to them come back, and their
    /// latency is a round trip measured on this machine's clock alone.
    pub fn open_with_remote(hosts: &FabricHosts, remote: &[usize]) -> Result<Generator> {
        let (topo, kind) = topology_of(hosts)?;
        let n = hosts.hosts.len();
        let mut rem = vec![false; n];
        for &r in remote {
            *rem.get_mut(r).ok_or_else(|| {
                TestbedError::traffic("remote", format!("host position {r} is not in 0..{n}"))
            })? = true;
        }
        let mut tx = Vec::with_capacity(n);
        let mut rx = Vec::with_capacity(n);
        for (i, h) in hosts.hosts.iter().enumerate() {
            if rem[i] {
                tx.push(None);
            } else {
                tx.push(Some(port::open_tx(&h.netns, &h.ifname)?));
                for ifn in h.rx_ifnames() {
                    rx.push((i, port::open(&h.netns, &ifn)?));
                }
            }
        }
        let seed = (std::process::id() as u64) ^ sys::monotonic_ns();
        Ok(Generator {
            hosts: hosts.clone(),
            topo,
            kind,
            remote: rem,
            tx,
            rx,
            probe_tx: Vec::new(),
            next_run: (seed as u16) & !3,
            stop: std::sync::Arc::new(AtomicBool::new(false)),
            trials_run: 0,
            timeline_bin_ns: None,
        })
    }

    /// The hosts.
    pub fn hosts(&self) -> &FabricHosts {
        &self.hosts
    }

    /// Frames the kernel dropped at the receive ports since they were opened because
    /// their rings were full (`PACKET_STATISTICS` tp_drops, summed over the ports).
    pub fn rx_kernel_drops(&mut self) -> u64 {
        self.rx
            .iter_mut()
            .map(|(_, p)| p.stats().kernel_drops)
            .sum()
    }

    /// Frames the kernel dropped at the hosts' interfaces (their `tx_dropped`) and put
    /// back in the generator's TX rings to be sent again, since the ports were opened
    /// (`tx_requeues`, summed over the TX and latency-stream ports): attempts, not
    /// losses.
    pub fn tx_requeues(&mut self) -> u64 {
        self.tx
            .iter_mut()
            .chain(self.probe_tx.iter_mut())
            .flatten()
            .map(|p| p.stats().tx_requeues)
            .sum()
    }

    fn macs(&self) -> Vec<[u8; 6]> {
        self.hosts.hosts.iter().map(|h| h.mac).collect()
    }

    /// Fresh run ids: measurement, warm-up, latency stream.
    fn run_ids(&mut self) -> (u16, u16, u16) {
        let r = self.next_run;
        self.next_run = self.next_run.wrapping_add(4);
        (r, r.wrapping_add(1), r.wrapping_add(2))
    }

    /// The latency stream's TX ports of hosts `active`, opened when missing.
    fn open_probe_ports(&mut self, active: &[usize]) -> Result<()> {
        self.probe_tx.resize_with(self.hosts.hosts.len(), || None);
        for &h in active {
            if self.probe_tx[h].is_none() {
                let e = &self.hosts.hosts[h];
                self.probe_tx[h] = Some(port::open_tx(&e.netns, &e.ifname)?);
            }
        }
        Ok(())
    }

    /// Run what `spec` asks for: one trial at its rate, or the NDR/PDR search. Call
    /// [`TrafficSpec::validate`] first.
    pub fn run(&mut self, spec: &TrafficSpec) -> Result<(Vec<Trial>, Option<SearchResult>)> {
        let progress = Progress::new(spec.quiet);
        let senders = self.senders(spec)?.len();
        match &spec.search {
            None => {
                let offered = spec.offered_pps(senders)?;
                let t = self.trial(spec, offered, &progress)?;
                progress.finish("done");
                Ok((vec![t], None))
            }
            Some(s) => {
                let max = spec.search_max_pps(senders).unwrap_or(s.min_pps);
                let mut trials = vec![];
                let mut step = 0;
                // the confirmation trials: the same traffic, longer
                let confirm = TrafficSpec {
                    duration_s: Some(s.confirm_s),
                    count: None,
                    ..spec.clone()
                };
                let mut r = search::search(s, max, 0, &mut trials, |rate, phase| {
                    step += 1;
                    progress.set_prefix(format!("search {} step {step}", phase.name()));
                    let spec = if phase.confirms() { &confirm } else { spec };
                    self.trial(spec, rate, &progress)
                })?;
                if let Some(ndr) = r.ndr_pps {
                    // the latency trials: the same traffic with the latency stream
                    let lat = TrafficSpec {
                        duration_s: Some(s.latency_s),
                        count: None,
                        probe_pps: Some(
                            spec.probe_pps
                                .unwrap_or_else(|| super::spec::probe_pps_for(ndr)),
                        ),
                        ..spec.clone()
                    };
                    r.latency = search::latency_at_loads(s, ndr, |f, rate| {
                        progress.set_prefix(format!("latency at {:.0} % of the NDR", f * 100.0));
                        self.trial(&lat, rate, &progress)
                    })?;
                }
                progress.finish(&format!(
                    "NDR {} pps, PDR {} pps ({} trials)",
                    r.ndr_pps.map_or("none".into(), |v| format!("{v:.0}")),
                    r.pdr_pps.map_or("none".into(), |v| format!("{v:.0}")),
                    trials.len()
                ));
                Ok((trials, Some(r)))
            }
        }
    }

    /// Positions of the hosts that send under `spec`'s pattern (not idle, not remote).
    pub fn senders(&self, spec: &TrafficSpec) -> Result<Vec<usize>> {
        let d = spec.pattern.dests(self.hosts.hosts.len(), spec.seed)?;
        Ok((0..d.len())
            .filter(|&i| !d[i].is_idle() && !self.remote[i])
            .collect())
    }

    /// One trial at `offered` total pps: warm-up, measurement, grace period.
    pub fn trial(
        &mut self,
        spec: &TrafficSpec,
        offered: f64,
        progress: &Progress,
    ) -> Result<Trial> {
        let n = self.hosts.hosts.len();
        let mut dests = spec.pattern.dests(n, spec.seed)?;
        let active = self.senders(spec)?;
        if active.is_empty() {
            return Err(TestbedError::traffic(
                "pattern",
                format!("{} leaves no local host sending", spec.pattern),
            ));
        }
        let (run_id, warm_id, probe_id) = self.run_ids();
        let mut frames = self.flow_frames(&active, spec.frame_len(), warm_id, 0)?;
        // duration mode (the default) ends at a real-time deadline; count mode when all
        // frames are out
        let duration = match spec.count {
            Some(_) => None,
            None => Some(Duration::from_secs_f64(spec.duration())),
        };
        let total = match spec.count {
            Some(c) => c,
            // (no load at all only for a latency stream alone)
            None if offered <= 0.0 => 0,
            None => (offered * spec.duration()).round().max(1.0) as u64,
        };
        let warm_total = (offered * spec.warmup_s).round() as u64;
        let acc = RxAccount::new(
            &self.macs(),
            run_id,
            warm_id,
            spec.latency_every,
            self.remote.clone(),
        )?;
        let (mut acc, mut probe) = self.probe_flows(spec, &active, offered, probe_id, acc)?;
        let mut send_tl = self.timeline_bin_ns.map(|bin| {
            let span = spec.warmup_s + spec.duration() * 1.1 + 2.0;
            Timeline::new(sys::monotonic_ns(), bin, (span * 1e9) as u64)
        });
        acc.timeline = send_tl.clone();
        let mut pcap_tx = pcap_writer(spec.pcap_tx.as_deref(), spec.pcap_max)?;
        let mut pcap_rx = pcap_writer(spec.pcap_rx.as_deref(), spec.pcap_max)?;
        let drained_s = drain(&mut self.rx);
        let cpus = std::thread::available_parallelism().map_or(1, |c| c.get());
        let lane_of = tx::lane_of(active.len(), spec.lanes(active.len(), cpus));
        let mut seq = vec![0u64; n * n];
        let mut lane_at = vec![None; n];
        for (k, &h) in active.iter().enumerate() {
            lane_at[h] = Some(lane_of[k]);
        }
        let lanes = build_lanes(&mut self.tx, &mut dests, &mut frames, &mut seq, &lane_at);
        let probe_lane = probe.as_mut().map(|p| {
            let one: Vec<Option<usize>> = lane_at.iter().map(|l| l.map(|_| 0)).collect();
            let mut lane = build_lanes(
                &mut self.probe_tx,
                &mut p.dests,
                &mut p.frames,
                &mut p.seq,
                &one,
            );
            ProbeLane {
                lane: lane.pop().unwrap_or(Lane { sources: vec![] }),
                plan: p.plan,
                after: Duration::from_secs_f64(spec.warmup_s),
            }
        });
        let weights: Vec<usize> = lanes.iter().map(|l| l.sources.len()).collect();
        let (mains, warms) = (tx::split(total, &weights), tx::split(warm_total, &weights));
        let plan = |w: usize, total: u64, deadline| {
            let pps = offered * w as f64 / active.len() as f64;
            Plan {
                pps,
                burst: spec.burst.unwrap_or_else(|| auto_burst(pps)),
                total,
                deadline,
            }
        };
        let lanes = lanes
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let w = weights[i];
                (l, plan(w, warms[i], None), plan(w, mains[i], duration))
            })
            .collect();
        progress.start_trial(offered, total);
        let sent = Exchange {
            lanes,
            run_id,
            rx: &mut self.rx,
            acc: &mut acc,
            busy: spec.busy_poll,
            grace: Duration::from_millis(spec.grace_ms),
            pcap_tx: pcap_tx.as_mut(),
            pcap_rx: pcap_rx.as_mut(),
            timeline: send_tl.as_mut(),
            pin: false,
            probe: probe_lane,
        }
        .run(&self.stop, progress)?;
        let (rep, warm_sent) = (sent.main, sent.warm);
        if self.stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        if let Some(w) = pcap_tx {
            w.finish()?;
        }
        if let Some(w) = pcap_rx {
            w.finish()?;
        }
        let probe_secs = sent.probe.map_or(0.0, |p| p.elapsed.as_secs_f64());
        let secs = rep.elapsed.as_secs_f64().max(probe_secs);
        if let (Some(tl), Some(s)) = (acc.timeline.as_mut(), send_tl) {
            tl.sent = s.sent;
        }
        let mut t = acc.trial(&seq, offered, secs);
        if let Some(p) = &probe {
            t.probe = acc.probe_stream(&p.seq, p.plan.pps);
        }
        t.warmup_sent = warm_sent;
        t.drained_s = drained_s;
        self.trials_run += 1;
        log_trial(&t, &acc, &rep);
        progress.end_trial(&t);
        Ok(t)
    }

    /// The trial's latency stream when `spec` asks for one (its TX ports opened, its
    /// flows, frames and plan), and `acc` accounting it (with the breakdown of its hop
    /// records when their slots are asked for).
    fn probe_flows(
        &mut self,
        spec: &TrafficSpec,
        active: &[usize],
        offered: f64,
        probe_id: u16,
        acc: RxAccount,
    ) -> Result<(RxAccount, Option<ProbeFlows>)> {
        let Some(pps) = spec.probe_pps else {
            return Ok((acc, None));
        };
        self.open_probe_ports(active)?;
        let hops = (spec.probe_hops && !self.hosts.guest_clocks).then(|| {
            let levels: Vec<u16> = self.topo.switches.iter().map(|s| s.level).collect();
            let top = levels.iter().copied().max().unwrap_or(1);
            (super::hopstats::slots_for(top), levels)
        });
        let slots = hops.as_ref().map_or(0, |h| h.0);
        let acc = acc.with_probe(probe_id, hops)?;
        // as long as the load: its duration, or its count at its rate
        let secs = match spec.count {
            Some(c) if offered > 0.0 => c as f64 / offered,
            _ => spec.duration(),
        };
        let flows = ProbeFlows::new(self, spec, active, (pps, secs), probe_id, slots)?;
        Ok((acc, Some(flows)))
    }

    /// One prebuilt frame per flow the pattern can use (from every sending host in
    /// `active` to every other host), `len` bytes, of run `run_id`, with `slots` hop
    /// record slots (longer frames; none for 0).
    fn flow_frames(
        &self,
        active: &[usize],
        len: usize,
        run_id: u16,
        slots: u8,
    ) -> Result<Vec<Option<HostFrame>>> {
        let n = self.hosts.hosts.len();
        let mut frames: Vec<Option<HostFrame>> = vec![None; n * n];
        for &s in active {
            for d in 0..n {
                if d != s {
                    let (hs, hd) = (self.hosts.hosts[s].host, self.hosts.hosts[d].host);
                    frames[s * n + d] = Some(HostFrame::with_hops(
                        &self.topo, self.kind, hs, hd, len, run_id, slots,
                    )?);
                }
            }
        }
        Ok(frames)
    }

    /// Receive only, for `window`: every frame the RX ports see, accounted for run id
    /// `run_id` (tests inject frames themselves).
    pub fn listen(&mut self, run_id: u16, window: Duration) -> Result<RxAccount> {
        let mut acc = RxAccount::new(&self.macs(), run_id, run_id, 1, self.remote.clone())?;
        let ports = &mut self.rx;
        let stop = AtomicBool::new(false);
        std::thread::scope(|sc| {
            let h = sc.spawn(|| receive(ports, &mut acc, &stop, None, false));
            std::thread::sleep(window);
            stop.store(true, Ordering::Release);
            let _ = h.join();
        });
        Ok(acc)
    }

    /// Replay `frames` (from a pcap file) out of host position `from`, at `pps` (or with
    /// the file's own gaps when `None`), with the receivers running. Frames that carry a
    /// Canopy measurement block and the MACs of two of this fabric's hosts get this
    /// replay's run id, their flow's next sequence number and the send time; they are
    /// the frames the trial counts. Others are sent unchanged and not counted (their
    /// receivers count them as foreign).
    pub fn replay(
        &mut self,
        from: usize,
        frames: &[PcapFrame],
        pps: Option<f64>,
        grace: Duration,
    ) -> Result<(Trial, u64)> {
        let n = self.hosts.hosts.len();
        if from >= n || self.remote[from] {
            return Err(TestbedError::traffic(
                "replay.from",
                format!("host position {from} is not a local host (0..{n})"),
            ));
        }
        let (run_id, _, _) = self.run_ids();
        let macs = MacIndex::new(&self.macs());
        // (bytes, and the flow when the frame is one of ours)
        let mut out: Vec<ReplayFrame> = frames
            .iter()
            .map(|f| {
                let flow = HostFrame::parse(&f.data)
                    .and_then(|t| Some(macs.get(&t.src_mac)? * n + macs.get(&t.dst_mac)?));
                (f.data.clone(), flow)
            })
            .collect();
        let mut acc = RxAccount::new(&self.macs(), run_id, run_id, 1, self.remote.clone())?;
        let mut seq = vec![0u64; n * n];
        drain(&mut self.rx);
        let rx_ports = &mut self.rx;
        let port = self.tx[from].as_mut().ok_or_else(|| {
            TestbedError::traffic("replay.from", format!("host {from} has no port"))
        })?;
        let stop_rx = AtomicBool::new(false);
        let stop = self.stop.clone();
        let mut unmeasured = 0u64;
        let t0 = Instant::now();
        std::thread::scope(|sc| {
            let h = sc.spawn(|| receive(rx_ports, &mut acc, &stop_rx, None, false));
            sys::set_timer_slack_ns(1_000);
            let base = frames.first().map_or(0, |f| f.ts_ns);
            for (k, (bytes, m)) in out.iter_mut().enumerate() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let due = match pps {
                    Some(p) => Duration::from_secs_f64(k as f64 / p),
                    None => Duration::from_nanos(frames[k].ts_ns.saturating_sub(base)),
                };
                port::wait_until(t0 + due, Wait::GENERATOR);
                if let Some(flow) = *m {
                    frame::stamp(bytes, run_id, seq[flow], sys::monotonic_ns());
                }
                if port::queue(port, bytes, &stop) {
                    match m {
                        Some(flow) => seq[*flow] += 1,
                        None => unmeasured += 1,
                    }
                }
                let _ = port.tx_flush();
            }
            let _ = port.tx_flush();
            std::thread::sleep(grace);
            stop_rx.store(true, Ordering::Release);
            let _ = h.join();
        });
        let secs = t0.elapsed().as_secs_f64() - grace.as_secs_f64();
        let offered = pps.unwrap_or_else(|| {
            let span = frames
                .last()
                .zip(frames.first())
                .map_or(0, |(l, f)| l.ts_ns.saturating_sub(f.ts_ns));
            if span > 0 {
                frames.len() as f64 / (span as f64 / 1e9)
            } else {
                0.0
            }
        });
        Ok((acc.trial(&seq, offered, secs.max(1e-9)), unmeasured))
    }
}

/// What a [`Reflector`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReflectStats {
    /// Frames sent back.
    pub reflected: u64,
    /// Frames not reflected: not a generator frame, not addressed to this host, or from
    /// a host that is not in the fabric.
    pub ignored: u64,
}

/// The host agent of a remote host: every generator frame addressed to it goes back
/// to its sender, on a frame built for the way back (the fabric header of the reverse
/// path, source and destination MACs swapped) that carries the original measurement
/// block (run id, sequence number and the sender's transmit time), so the sender
/// measures the round trip on its own clock.
pub struct Reflector {
    me: usize,
    topo: Topology,
    kind: Kind,
    hosts: FabricHosts,
    macs: MacIndex,
    rx: Vec<AfPacketPort>,
    tx: AfPacketPort,
    back: HashMap<(usize, usize), HostFrame>,
}

impl Reflector {
    /// Open the ports of host position `me` of `hosts`.
    pub fn open(hosts: &FabricHosts, me: usize) -> Result<Reflector> {
        let (topo, kind) = topology_of(hosts)?;
        let h = hosts.hosts.get(me).ok_or_else(|| {
            TestbedError::traffic(
                "reflector",
                format!("host position {me} is not in 0..{}", hosts.hosts.len()),
            )
        })?;
        Ok(Reflector {
            me,
            topo,
            kind,
            macs: MacIndex::new(&hosts.hosts.iter().map(|h| h.mac).collect::<Vec<_>>()),
            rx: h
                .rx_ifnames()
                .iter()
                .map(|i| port::open(&h.netns, i))
                .collect::<Result<_>>()?,
            tx: port::open_tx(&h.netns, &h.ifname)?,
            hosts: hosts.clone(),
            back: HashMap::new(),
        })
    }

    /// Reflect until `stop` (busy poll).
    pub fn run(&mut self, stop: &AtomicBool) -> Result<ReflectStats> {
        let mut st = ReflectStats::default();
        let mut pending: Vec<(usize, usize, frame::Tagged)> = Vec::with_capacity(64);
        let my_mac = self.hosts.hosts[self.me].mac;
        while !stop.load(Ordering::Relaxed) {
            pending.clear();
            let macs = &self.macs;
            let mut got = 0;
            for rx in &mut self.rx {
                got += rx.rx_burst(64, |f| match HostFrame::parse(f) {
                    Some(t) if t.dst_mac == my_mac => match macs.get(&t.src_mac) {
                        Some(s) => pending.push((s, f.len(), t)),
                        None => st.ignored += 1,
                    },
                    _ => st.ignored += 1,
                });
            }
            for &(s, len, t) in &pending {
                let key = (s, len);
                if !self.back.contains_key(&key) {
                    let f = HostFrame::new(
                        &self.topo,
                        self.kind,
                        self.hosts.hosts[self.me].host,
                        self.hosts.hosts[s].host,
                        len,
                        t.run_id,
                    )?;
                    self.back.insert(key, f);
                }
                if let Some(f) = self.back.get_mut(&key) {
                    f.run_id = t.run_id;
                    f.set_meas(t.seq, t.ts_ns);
                    if port::queue(&mut self.tx, &f.bytes, stop) {
                        st.reflected += 1;
                    }
                }
            }
            if !pending.is_empty() {
                let _ = self.tx.tx_flush();
            }
            if got == 0 {
                std::hint::spin_loop();
            }
        }
        Ok(st)
    }
}
