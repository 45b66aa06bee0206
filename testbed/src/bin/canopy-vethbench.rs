//! `canopy-vethbench`: one switch on veth next to the Linux bridge and DPDK testpmd
//! (and bmv2 when installed). Needs root. See `docs/vethbench.md`.

use anyhow::{bail, Context};
use canopy_proto::logging::{self, Filter, Style};
use canopy_testbed::vethbench::forwarder::{Kind, Options};
use canopy_testbed::vethbench::{self, Config, Generator, WorkDir};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Parser;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "canopy-vethbench",
    about = "One Canopy switch on veth next to the Linux bridge, DPDK testpmd and bmv2",
    long_about = "Builds three network namespaces (sender, forwarder, receiver; prefix cvb<pid>-, \
                  deleted at exit and on Ctrl-C), measures trafgen and the fabric generator side by side on \
                  a direct veth pair, then runs each forwarder in turn on the same veths: \
                  a max-rate pass (trafgen or the own sender), a fixed-rate pass with CPU time per \
                  forwarded packet (/proc/PID/stat of the forwarder, /proc/stat of the machine), and \
                  a one-way latency pass at a low rate. Needs root."
)]
struct Args {
    /// Forwarders to run, in order: direct, bridge, testpmd, canopy (adaptive polling),
    /// canopy-busy (busy polling), bmv2. Missing programs are skipped with a message.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "direct,bridge,testpmd,canopy,canopy-busy,bmv2",
        value_parser = forwarder()
    )]
    forwarders: Vec<Kind>,
    /// Seconds of the max-rate pass per forwarder (0 = skip).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Offered rate of the fixed-rate (CPU per packet) pass, frames/s (0 = skip).
    #[arg(long, default_value_t = 100_000)]
    fixed_rate: u64,
    /// Frames per burst in the fixed-rate pass. With 1 the frames are evenly spaced and
    /// the sender spins between them (its core is busy); with more it sleeps between
    /// bursts, so the machine-wide CPU figure is real work.
    #[arg(long, default_value_t = 32)]
    fixed_burst: usize,
    /// Seconds of the fixed-rate pass.
    #[arg(long, default_value_t = 5.0)]
    fixed_seconds: f64,
    /// Rate of the latency pass, frames/s (0 = skip).
    #[arg(long, default_value_t = 1000)]
    latency_rate: u64,
    /// Frames recorded in the latency pass.
    #[arg(long, default_value_t = 5000)]
    latency_count: u64,
    /// Frames sent before recording starts in the latency pass.
    #[arg(long, default_value_t = 200)]
    latency_warmup: u64,
    /// Max-rate sender: auto (trafgen if installed), trafgen, own.
    #[arg(long, default_value = "auto", value_parser = generator())]
    generator: Generator,
    /// Seconds of each sender in the senders comparison on the direct pair, before the
    /// forwarders: trafgen, then the fabric generator into the sink, then into its own
    /// receiver (0 = skip).
    #[arg(long, default_value_t = 2.0)]
    senders_seconds: f64,
    /// Sender threads of the fabric generator in the senders comparison (default: a
    /// quarter of the CPUs, at least 1).
    #[arg(long)]
    tx_threads: Option<usize>,
    /// Frame length without FCS (60 = 64 B on the wire).
    #[arg(long, default_value_t = 60)]
    frame_len: usize,
    /// CPU the forwarder is pinned to.
    #[arg(long, default_value_t = 1)]
    fwd_core: usize,
    /// CPU the sender and the latency probe are pinned to. trafgen pins its one worker
    /// to CPU 0 itself, so with any other value the max-rate pass uses the own sender.
    #[arg(long, default_value_t = 0)]
    gen_core: usize,
    /// canopy-switch binary (default: next to this binary, then PATH).
    #[arg(long)]
    canopy_switch: Option<PathBuf>,
    /// TPACKET version of canopy's AF_PACKET ports: v2 (per-frame, low latency) or v3.
    #[arg(long, default_value = "v2", value_parser = ["v2", "v3"])]
    canopy_tpacket: String,
    /// Backend of canopy's ports: afpacket, afxdp (AF_XDP, mode auto: native copy on
    /// veth), afxdp-skb (AF_XDP on generic XDP) or dpdk (DPDK's af_packet PMD on each
    /// veth; canopy-switch must be built with `--features dpdk`).
    #[arg(
        long,
        default_value = "afpacket",
        value_parser = ["afpacket", "afxdp", "afxdp-skb", "dpdk"]
    )]
    canopy_backend: String,
    /// canopy adaptive mode: empty polling rounds before sleeping.
    #[arg(long, default_value_t = canopy_dataplane::engine::DEFAULT_SPINS)]
    canopy_spins: u32,
    /// dpdk-testpmd binary (default: PATH).
    #[arg(long)]
    testpmd: Option<PathBuf>,
    /// Compiled P4 program (bmv2 JSON) for simple_switch; bmv2 runs only with it.
    #[arg(long)]
    bmv2_json: Option<PathBuf>,
    /// Seconds to wait for a forwarder to pass its first frame.
    #[arg(long, default_value_t = 30.0)]
    start_timeout: f64,
    /// Write results.md and results.json into this directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the JSON results on stdout (progress goes to stderr).
    #[arg(long)]
    json: bool,
    /// Namespace (and scratch directory) prefix instead of `cvb<pid>` (letters and digits,
    /// at most 12 bytes).
    #[arg(long)]
    prefix: Option<String>,
    /// Keep the scratch directory (generated configs, forwarder logs) after the run.
    #[arg(long)]
    keep_work: bool,
    /// Log filter: a level (error, warn, info, debug, trace, off) or RUST_LOG-style
    /// directives such as `warn,canopy_testbed=debug` [default: $RUST_LOG, else info].
    #[arg(long, value_name = "FILTER")]
    log: Option<Filter>,
}

/// The value parser of `--forwarders`: the library's forwarder names.
fn forwarder() -> impl TypedValueParser<Value = Kind> {
    PossibleValuesParser::new(Kind::ALL.map(Kind::name))
        .try_map(|name| Kind::parse(&name).ok_or_else(|| format!("no forwarder `{name}`")))
}

/// The value parser of `--generator`.
fn generator() -> impl TypedValueParser<Value = Generator> {
    PossibleValuesParser::new(["auto", "trafgen", "own"]).map(|name| match name.as_str() {
        "trafgen" => Generator::Trafgen,
        "own" => Generator::Own,
        _ => Generator::Auto,
    })
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let level = tracing::level_filters::LevelFilter::INFO;
    if let Err(e) = logging::init(a.log.as_ref(), level, Style::colour_if_terminal(false)) {
        eprintln!("canopy-vethbench: {e}");
        std::process::exit(2);
    }
    if !canopy_testbed::os::sys::is_root() {
        bail!(canopy_testbed::TestbedError::NotRoot);
    }
    let forwarders = a.forwarders.clone();
    let generator = a.generator;
    let prefix = match &a.prefix {
        Some(p)
            if !p.is_empty() && p.len() <= 12 && p.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            p.clone()
        }
        Some(p) => bail!("--prefix: `{p}` is not 1 to 12 letters and digits"),
        None => vethbench::default_prefix(),
    };
    let work = WorkDir::new(&prefix, a.keep_work)?;
    let mut options = Options::discover(a.fwd_core, work.path.clone());
    if let Some(p) = &a.canopy_switch {
        options.canopy_switch = Some(p.clone());
    }
    if let Some(p) = &a.testpmd {
        options.testpmd = Some(p.clone());
    }
    options.canopy_tpacket = a.canopy_tpacket.clone();
    options.canopy_backend = a.canopy_backend.clone();
    options.canopy_spins = a.canopy_spins;
    options.bmv2_json = a.bmv2_json.clone();
    let secs = |x: f64| Duration::from_secs_f64(x.max(0.0));
    let cfg = Config {
        forwarders,
        max_rate_time: secs(a.seconds),
        fixed_pps: a.fixed_rate,
        fixed_burst: a.fixed_burst.max(1),
        fixed_time: secs(a.fixed_seconds),
        latency_pps: a.latency_rate,
        latency_count: a.latency_count,
        latency_warmup: a.latency_warmup,
        generator,
        senders_time: secs(a.senders_seconds),
        tx_threads: a.tx_threads.unwrap_or_else(|| {
            canopy_testbed::traffic::spec::default_tx_threads(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            )
        }),
        frame_len: a.frame_len,
        gen_core: a.gen_core,
        options,
        prefix,
        start_timeout: secs(a.start_timeout),
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).context("install the SIGINT handler")?;
    }
    let report = vethbench::run(&cfg, &stop, &|line| tracing::info!("{line}"));
    let report = match report {
        Ok(r) => r,
        Err(canopy_testbed::TestbedError::Interrupted) => {
            drop(work);
            tracing::warn!("interrupted: namespaces and forwarders cleaned up");
            std::process::exit(130);
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(dir) = &a.out {
        let owner = canopy_testbed::os::invoker::OutputOwner::before(dir);
        let written = canopy_testbed::report::vethbench::write(&report, dir);
        owner.give_back();
        written?;
        tracing::info!("wrote {0}/results.md and {0}/results.json", dir.display());
    }
    if a.json {
        print!(
            "{}",
            canopy_testbed::report::to_json(&report, "vethbench results")?
        );
    } else {
        println!("{}", canopy_testbed::report::vethbench::markdown(&report));
    }
    Ok(())
}
