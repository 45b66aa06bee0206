//! The veth bench: every forwarder in turn on the same wiring, three measurements each.
//!
//! 1. **Max rate.** `trafgen` (or the own sender) on the generator core offers as much
//!    as it can for the run time; offered = `s0` TX counter, forwarded = `r0` RX
//!    counter (kernel veth counters; nobody listens on `r0`).
//! 2. **Fixed rate.** The own sender offers a fixed rate; CPU per forwarded packet from
//!    the forwarder process's `/proc/PID/stat` (utime + stime, all threads) and,
//!    for every forwarder including the bridge, the machine-wide `/proc/stat` busy and
//!    softirq time, all divided by the frames counted on `r0`.
//! 3. **Latency.** One thread on the generator core sends a stamped frame every
//!    1/rate s and busy-polls a TPACKET_V2 ring on the receiver interface; one-way
//!    latency into an HDR histogram.
//!
//! | module | what |
//! |---|---|
//! | [`forwarder`] | the bench wiring and the forwarders (direct, bridge, testpmd, canopy, bmv2) |

pub mod forwarder;

use crate::error::{Result, TestbedError};
use crate::os::cpu::{self, SysCpu};
use crate::os::netns::{link_stats, LinkStats};
use crate::report::results::vethbench::{Fixed, ForwarderResult, MaxRate, Report, Senders};
use crate::report::results::GeneratorCeiling;
use crate::traffic::ceiling::{self, CeilingOptions};
use crate::traffic::frame::HostFrame;
use crate::traffic::port;
use crate::traffic::sender::{self, Pace};
use crate::traffic::trafgen;
use forwarder::{EdgeSwitch, Kind, Options, Wiring};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long the receiver must see no frame before the next pass starts.
pub const DRAIN_QUIET: Duration = Duration::from_millis(200);
/// How long a drain may take before the run fails: a forwarder still emitting frames this
/// long after its sender stopped would spoil every pass after it.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Which sender the max-rate pass uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generator {
    /// trafgen when installed, else the own sender.
    Auto,
    /// trafgen (error when missing).
    Trafgen,
    /// The own AF_PACKET sender (bursts of 32, one `send` per burst).
    Own,
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Forwarders, in run order.
    pub forwarders: Vec<Kind>,
    /// Max-rate pass duration.
    pub max_rate_time: Duration,
    /// Fixed-rate pass: offered frames per second (0 = skip the pass).
    pub fixed_pps: u64,
    /// Fixed-rate pass: frames per burst.
    pub fixed_burst: usize,
    /// Fixed-rate pass duration.
    pub fixed_time: Duration,
    /// Latency pass: frames per second (0 = skip the pass).
    pub latency_pps: u64,
    /// Latency pass: recorded frames.
    pub latency_count: u64,
    /// Latency pass: frames sent first and not recorded.
    pub latency_warmup: u64,
    /// Max-rate sender.
    pub generator: Generator,
    /// Senders side by side (trafgen, then the fabric generator into a sink and into
    /// its receiver) on the direct pair before the forwarders, this long each (zero:
    /// skipped).
    pub senders_time: Duration,
    /// Sender threads of the fabric generator in that comparison.
    pub tx_threads: usize,
    /// Frame length without FCS (60 = 64 B on the wire).
    pub frame_len: usize,
    /// Core of the sender (and of the latency probe).
    pub gen_core: usize,
    /// Forwarder programs and their core.
    pub options: Options,
    /// Namespace prefix (`cvb<pid>`).
    pub prefix: String,
    /// Wait this long at most for a forwarder to start forwarding.
    pub start_timeout: Duration,
    /// The command line, for the report.
    pub command: String,
}

/// Run the bench. `progress` gets one line per step; `stop` (SIGINT) ends it early with
/// [`TestbedError::Interrupted`] after cleaning up.
pub fn run(cfg: &Config, stop: &AtomicBool, progress: &dyn Fn(&str)) -> Result<Report> {
    if !crate::os::sys::is_root() {
        return Err(TestbedError::NotRoot);
    }
    let sw = EdgeSwitch::new()?;
    let frames = Frames {
        sw: &sw,
        pass: sw.frame(cfg.frame_len, PASS_RUN)?,
        probe: sw.frame(cfg.frame_len, PROBE_RUN)?,
    };
    std::fs::create_dir_all(&cfg.options.work_dir)
        .map_err(|e| TestbedError::io(format!("create {}", cfg.options.work_dir.display()), e))?;
    let header = crate::report::header(&cfg.command);
    progress(&format!("wiring namespaces {}-{{s,f,r}}", cfg.prefix));
    let wiring = Wiring::build(&cfg.prefix)?;
    if !wiring.offloads_off {
        progress("ethtool missing or refused: veth offloads left on");
    }
    let senders = match cfg.senders_time > Duration::ZERO {
        true => Some(senders(cfg, &wiring, &frames.pass, stop, progress)?),
        false => None,
    };
    let mut results = vec![];
    for &kind in &cfg.forwarders {
        if stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        let mut r = ForwarderResult {
            forwarder: kind.name().into(),
            skipped: forwarder::unavailable(kind, &cfg.options),
            error: None,
            start_seconds: None,
            max_rate: None,
            fixed: None,
            latency: None,
            drained_seconds: vec![],
        };
        if let Some(why) = &r.skipped {
            progress(&format!("{}: skipped: {why}", kind.name()));
            results.push(r);
            continue;
        }
        match run_one(cfg, &wiring, kind, &frames, stop, progress, &mut r) {
            Ok(()) => {}
            Err(TestbedError::Interrupted) => return Err(TestbedError::Interrupted),
            Err(e) => {
                progress(&format!("{}: error: {e}", kind.name()));
                r.error = Some(e.to_string());
            }
        }
        results.push(r);
    }
    Ok(Report {
        header,
        load_after: cpu::loadavg(),
        frame_len: cfg.frame_len,
        cores: (cfg.options.fwd_core, cfg.gen_core),
        offloads_off: wiring.offloads_off,
        results,
        canopy: (
            match cfg.options.canopy_backend.as_str() {
                "afpacket" => format!("afpacket {}", cfg.options.canopy_tpacket),
                b => b.to_string(),
            },
            cfg.options.canopy_spins,
        ),
        senders,
    })
}

/// trafgen and the fabric generator on the direct pair, one after the other
/// ([`Senders`]).
fn senders(
    cfg: &Config,
    w: &Wiring,
    frame: &HostFrame,
    stop: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<Senders> {
    let path = w.path(Kind::Direct);
    let (trafgen, trafgen_skipped) = match (trafgen::find(), cfg.gen_core == trafgen::CPU) {
        (Some(_), true) => {
            let c = Config {
                generator: Generator::Trafgen,
                max_rate_time: cfg.senders_time,
                ..cfg.clone()
            };
            let m = max_rate(&c, w, &path, frame, stop)?;
            progress(&format!(
                "senders: trafgen {:.0} kpps into the direct pair",
                m.offered_pps / 1e3
            ));
            (Some(m), None)
        }
        (None, _) => (None, Some("trafgen not installed".to_string())),
        (Some(_), false) => (
            None,
            Some(format!("trafgen sends from CPU {} only", trafgen::CPU)),
        ),
    };
    let mut o = CeilingOptions {
        frame_len: cfg.frame_len,
        duration: cfg.senders_time,
        tx_threads: cfg.tx_threads,
        receive: false,
        ..CeilingOptions::default()
    };
    let gen = |o: &CeilingOptions| -> Result<GeneratorCeiling> {
        std::thread::sleep(DRAIN_QUIET);
        let c = ceiling::measure((&path.tx.0, path.tx.1), (&path.rx.0, path.rx.1), o, stop)?;
        progress(&format!(
            "senders: generator ({} thread(s)) {:.0} kpps into {}{}",
            c.tx_threads,
            c.sent_pps / 1e3,
            if o.receive {
                "its receiver"
            } else {
                "the sink"
            },
            c.receiver.as_ref().map_or(String::new(), |r| format!(
                ": received {:.0} kpps, lost {}",
                r.received_pps / 1e3,
                r.lost
            ))
        ));
        Ok(c)
    };
    let generator = gen(&o)?;
    o.receive = true;
    let generator_rx = gen(&o)?;
    Ok(Senders {
        trafgen,
        trafgen_skipped,
        generator,
        generator_rx,
    })
}

/// Run id of the frames of the start probe and the max-rate and fixed-rate passes.
const PASS_RUN: u16 = 0;
/// Run id of the latency probe's frames (so a late frame of another pass never counts).
const PROBE_RUN: u16 = 1;

/// The edge switch the canopy forwarder runs and the frames the bench sends through it.
struct Frames<'a> {
    sw: &'a EdgeSwitch,
    /// The frame of the start probe and the rate passes (its stamp stays as built).
    pass: HostFrame,
    /// The latency probe's frame.
    probe: HostFrame,
}

fn run_one(
    cfg: &Config,
    w: &Wiring,
    kind: Kind,
    frames: &Frames,
    stop: &AtomicBool,
    progress: &dyn Fn(&str),
    r: &mut ForwarderResult,
) -> Result<()> {
    let name = kind.name();
    progress(&format!("{name}: starting"));
    let mut fwd = forwarder::start(kind, w, &cfg.options, frames.sw)?;
    let frame = &frames.pass;
    let path = w.path(kind);
    let t0 = Instant::now();
    wait_forwarding(&mut fwd, &path, frame, cfg.start_timeout, stop)?;
    r.start_seconds = Some(t0.elapsed().as_secs_f64());
    progress(&format!(
        "{name}: forwarding after {:.2} s",
        t0.elapsed().as_secs_f64()
    ));
    // let the startup settle (testpmd prints, canopy logs)
    std::thread::sleep(Duration::from_millis(200));

    // 1. max rate
    if cfg.max_rate_time > Duration::ZERO {
        let m = max_rate(cfg, w, &path, frame, stop)?;
        progress(&format!(
            "{name}: max rate ({}): offered {:.0} kpps, forwarded {:.0} kpps, loss {:.2} %",
            m.generator,
            m.offered_pps / 1e3,
            m.forwarded_pps / 1e3,
            m.loss_pct
        ));
        r.max_rate = Some(m);
        fwd.check_alive()?;
        r.drained_seconds.push(drain(&fwd, &path, stop)?);
    }
    // 2. fixed rate, CPU per packet
    if cfg.fixed_pps > 0 {
        let f = fixed_rate(cfg, &path, frame, fwd.pid(), stop)?;
        progress(&format!(
            "{name}: fixed {} kpps: forwarded {:.1} kpps, process {} ns/pkt, machine {:.0} ns/pkt",
            f.target_pps / 1000,
            f.forwarded_pps / 1e3,
            f.process_ns_per_pkt
                .map_or("n/a".to_string(), |x| format!("{x:.0}")),
            f.machine_ns_per_pkt
        ));
        r.fixed = Some(f);
        fwd.check_alive()?;
        r.drained_seconds.push(drain(&fwd, &path, stop)?);
    }
    // 3. latency
    if cfg.latency_pps > 0 && cfg.latency_count > 0 {
        let mut tx = port::open(&path.tx.0, path.tx.1)?;
        let mut rx = port::open(&path.rx.0, path.rx.1)?;
        let (pps, count, warm, core) = (
            cfg.latency_pps as f64,
            cfg.latency_count,
            cfg.latency_warmup,
            cfg.gen_core,
        );
        let probe = &frames.probe;
        let l = std::thread::scope(|s| {
            s.spawn(|| {
                sender::pin(core);
                sender::latency(&mut tx, &mut rx, probe, pps, count, warm, stop)
            })
            .join()
        })
        .map_err(|_| TestbedError::Forwarder {
            forwarder: name.into(),
            detail: "latency thread panicked".into(),
        })??;
        progress(&format!(
            "{name}: latency at {} pps: p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({}/{} received)",
            cfg.latency_pps,
            l.p50_ns as f64 / 1e3,
            l.p90_ns as f64 / 1e3,
            l.p99_ns as f64 / 1e3,
            l.max_ns as f64 / 1e3,
            l.received,
            l.sent
        ));
        r.latency = Some(l);
        fwd.check_alive()?;
    }
    drop(fwd);
    Ok(())
}

/// Wait until the receiver has seen no frame for [`DRAIN_QUIET`]: the forwarder's backlog
/// from the pass before is gone and the path is idle. Returns the seconds it took; fails
/// after [`DRAIN_TIMEOUT`].
fn drain(fwd: &forwarder::Running, path: &forwarder::Path2, stop: &AtomicBool) -> Result<f64> {
    let t0 = Instant::now();
    let mut last = link_stats(&path.rx.0, path.rx.1)?.rx_packets;
    let mut quiet_since = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        std::thread::sleep(Duration::from_millis(20));
        let now = link_stats(&path.rx.0, path.rx.1)?.rx_packets;
        if now != last {
            (last, quiet_since) = (now, Instant::now());
        } else if quiet_since.elapsed() >= DRAIN_QUIET {
            return Ok(t0.elapsed().as_secs_f64());
        }
        if t0.elapsed() > DRAIN_TIMEOUT {
            return Err(TestbedError::Forwarder {
                forwarder: fwd.kind.name().into(),
                detail: format!(
                    "still forwarding {DRAIN_TIMEOUT:?} after the pass ended (a backlog that would spoil the next pass)"
                ),
            });
        }
    }
}

/// Send a probe frame every 20 ms until the receiver's RX counter moves.
fn wait_forwarding(
    fwd: &mut forwarder::Running,
    path: &forwarder::Path2,
    frame: &HostFrame,
    timeout: Duration,
    stop: &AtomicBool,
) -> Result<()> {
    let mut tx = port::open(&path.tx.0, path.tx.1)?;
    let base = link_stats(&path.rx.0, path.rx.1)?;
    let t0 = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(TestbedError::Interrupted);
        }
        fwd.check_alive()?;
        if tx.tx_frame(&frame.bytes).unwrap_or(false) {
            let _ = tx.tx_flush();
        }
        std::thread::sleep(Duration::from_millis(20));
        if link_stats(&path.rx.0, path.rx.1)?.rx_packets > base.rx_packets {
            return Ok(());
        }
        if t0.elapsed() > timeout {
            return Err(TestbedError::Forwarder {
                forwarder: fwd.kind.name().into(),
                detail: format!(
                    "no frame came through in {:?}; log: {}",
                    timeout,
                    forwarder::log_tail(fwd.log.as_deref())
                ),
            });
        }
    }
}

fn max_rate(
    cfg: &Config,
    w: &Wiring,
    path: &forwarder::Path2,
    frame: &HostFrame,
    stop: &AtomicBool,
) -> Result<MaxRate> {
    // trafgen pins its worker i to CPU i whatever the affinity it was started with, so
    // with -P 1 it always sends from CPU 0
    let tg = match cfg.generator {
        Generator::Own => None,
        Generator::Auto if cfg.gen_core != trafgen::CPU => None,
        Generator::Auto => trafgen::find(),
        Generator::Trafgen if cfg.gen_core != trafgen::CPU => {
            return Err(TestbedError::Forwarder {
                forwarder: "trafgen".into(),
                detail: format!(
                    "trafgen sends from CPU {} only; use --gen-core {} (and another --fwd-core)",
                    trafgen::CPU,
                    trafgen::CPU
                ),
            })
        }
        Generator::Trafgen => Some(trafgen::find().ok_or(TestbedError::Missing {
            tool: "trafgen".into(),
            hint: "Debian: netsniff-ng".into(),
        })?),
    };
    let ingress = if path.tx.1 == forwarder::S_IF {
        Some((w.forwarder().to_string(), forwarder::F_IN))
    } else {
        None
    };
    let tx0 = link_stats(&path.tx.0, path.tx.1)?;
    let rx0 = link_stats(&path.rx.0, path.rx.1)?;
    let in0 = match &ingress {
        Some((ns, d)) => link_stats(ns, d)?,
        None => LinkStats::default(),
    };
    let (generator, elapsed) = match &tg {
        Some(bin) => {
            let e = trafgen::run(
                bin,
                (&path.tx.0, path.tx.1),
                cfg.gen_core,
                &frame.bytes,
                cfg.max_rate_time,
                &cfg.options.work_dir,
                stop,
            )?;
            ("trafgen", e)
        }
        None => {
            let mut tx = port::open(&path.tx.0, path.tx.1)?;
            let (core, t, bytes) = (cfg.gen_core, cfg.max_rate_time, &frame.bytes);
            let st = std::thread::scope(|s| {
                s.spawn(|| {
                    sender::pin(core);
                    sender::send(&mut tx, bytes, Pace::Max, t, stop)
                })
                .join()
            })
            .map_err(|_| TestbedError::Interrupted)?;
            ("own", st.elapsed)
        }
    };
    if stop.load(Ordering::Relaxed) {
        return Err(TestbedError::Interrupted);
    }
    // frames still in the forwarder's rings
    std::thread::sleep(Duration::from_millis(100));
    let tx = link_stats(&path.tx.0, path.tx.1)?.since(&tx0);
    let rx = link_stats(&path.rx.0, path.rx.1)?.since(&rx0);
    let ind = match &ingress {
        Some((ns, d)) => link_stats(ns, d)?.since(&in0).rx_dropped,
        None => 0,
    };
    let secs = elapsed.as_secs_f64().max(1e-9);
    let offered = tx.tx_packets;
    Ok(MaxRate {
        generator: generator.into(),
        seconds: secs,
        offered,
        forwarded: rx.rx_packets,
        offered_pps: offered as f64 / secs,
        forwarded_pps: rx.rx_packets as f64 / secs,
        loss_pct: if offered > 0 {
            100.0 * offered.saturating_sub(rx.rx_packets) as f64 / offered as f64
        } else {
            0.0
        },
        ingress_drops: ind,
    })
}

fn fixed_rate(
    cfg: &Config,
    path: &forwarder::Path2,
    frame: &HostFrame,
    pid: Option<u32>,
    stop: &AtomicBool,
) -> Result<Fixed> {
    let mut tx = port::open(&path.tx.0, path.tx.1)?;
    let rx0 = link_stats(&path.rx.0, path.rx.1)?;
    let p0 = pid.map(cpu::process_ns).transpose()?;
    let s0 = SysCpu::read()?;
    let t0 = Instant::now();
    let pace = Pace::Rate {
        pps: cfg.fixed_pps as f64,
        burst: cfg.fixed_burst,
    };
    let (core, t, bytes) = (cfg.gen_core, cfg.fixed_time, &frame.bytes);
    let st = std::thread::scope(|s| {
        s.spawn(|| {
            sender::pin(core);
            sender::send(&mut tx, bytes, pace, t, stop)
        })
        .join()
    })
    .map_err(|_| TestbedError::Interrupted)?;
    if stop.load(Ordering::Relaxed) {
        return Err(TestbedError::Interrupted);
    }
    // include the tail of the forwarding work in the window
    std::thread::sleep(Duration::from_millis(20));
    let window = t0.elapsed().as_secs_f64();
    let secs = st.elapsed.as_secs_f64().max(1e-9);
    let s1 = SysCpu::read()?.since(&s0);
    let p1 = pid.map(cpu::process_ns).transpose()?;
    let rx = link_stats(&path.rx.0, path.rx.1)?.since(&rx0);
    let fwd = rx.rx_packets.max(1) as f64;
    let proc_ns = match (p0, p1) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64),
        _ => None,
    };
    Ok(Fixed {
        target_pps: cfg.fixed_pps,
        burst: cfg.fixed_burst,
        seconds: secs,
        offered: st.sent,
        offered_pps: st.sent as f64 / secs,
        forwarded: rx.rx_packets,
        forwarded_pps: rx.rx_packets as f64 / secs,
        sender_ns_per_pkt: st.cpu_ns as f64 / fwd,
        process_ns_per_pkt: proc_ns.map(|x| x / fwd),
        process_core_share: proc_ns.map(|x| x / (window * 1e9)),
        machine_ns_per_pkt: s1.busy_ns as f64 / fwd,
        softirq_ns_per_pkt: s1.softirq_ns as f64 / fwd,
    })
}

/// The default namespace prefix of this process.
pub fn default_prefix() -> String {
    format!("cvb{}", std::process::id())
}

/// A scratch directory for configs and logs, removed on drop unless kept.
#[derive(Debug)]
pub struct WorkDir {
    /// The directory.
    pub path: PathBuf,
    keep: bool,
}

impl WorkDir {
    /// `$TMPDIR/<prefix>`; kept after the run when `keep`.
    pub fn new(prefix: &str, keep: bool) -> Result<WorkDir> {
        let path = std::env::temp_dir().join(prefix);
        std::fs::create_dir_all(&path)
            .map_err(|e| TestbedError::io(format!("create {}", path.display()), e))?;
        Ok(WorkDir { path, keep })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}
