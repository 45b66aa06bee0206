//! `canopy-testbed`: software Canopy fabrics in network namespaces (`docs/testbed.md`).
//!
//! ```text
//! canopy-testbed up [FILE] [--machine M] [--switch-bin PATH]   build the fabric, wait until healthy
//! canopy-testbed status [NAME]                                  per-switch health
//! canopy-testbed check [NAME]                                   one frame per ordered host pair
//! canopy-testbed down [NAME]                                    remove everything (also after a crash)
//! canopy-testbed run [NAME] [--rate R] [--search] [--out DIR]   traffic, measurement, report
//! canopy-testbed replay FILE [NAME] --from POS [--pps R]         send a pcap's frames, count ours
//! canopy-testbed agent [NAME] --host POS                        reflector for round trips from another machine
//! canopy-testbed soak [NAME] [--duration 3m] [--fault-rounds N]  PDR for minutes, every frame accounted, faults
//! canopy-testbed demo                                           up, check, NDR/PDR search, report, down
//! ```

use anyhow::{bail, Context, Result};
use canopy_testbed::fabric::{self, state::DEFAULT_ROOT, Desc, UpOptions};
use canopy_testbed::traffic::{Pattern, Rate, SearchSpec, TrafficSpec};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `println!` for results: when stdout is closed (`canopy-testbed status | head`) the
/// process ends quietly with the shell's SIGPIPE status instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            stdout_failed(e)
        }
    }};
}

/// Stdout failed: a closed pipe ends the process as SIGPIPE would (status 141, no
/// message); any other error is reported.
fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("canopy-testbed: cannot write to standard output: {e}");
    std::process::exit(1);
}

#[derive(Parser, Debug)]
#[command(
    name = "canopy-testbed",
    version,
    about = "Software Canopy fabrics in network namespaces: up, status, check, down"
)]
struct Cli {
    /// Root of the state directories (`<root>/<name>/<machine>/state.json`).
    #[arg(long, global = true, default_value = DEFAULT_ROOT)]
    state_root: PathBuf,
    /// Log level: error, warn, info, debug, trace.
    #[arg(long, global = true, default_value = "info")]
    log: tracing::Level,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum DrillCmd {
    /// SIGKILL a switch process (a crash: no goodbye).
    Kill {
        /// Switch name.
        switch: String,
    },
    /// Start a killed switch again (same configuration and namespace).
    Start {
        /// Switch name.
        switch: String,
    },
    /// Kill a switch and start it again at once; prints how long until canopyd had
    /// pushed its tables (when canopyd runs).
    Restart {
        /// Switch name.
        switch: String,
    },
    /// Set a switch port's link down or up (`ip link set`), telling nobody.
    Link {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// `up` or `down`.
        #[arg(value_parser = ["up", "down"])]
        state: String,
    },
    /// Slow a switch port with a `tbf` qdisc (`--rate 200kbit`), or release it
    /// (`--off`: drain, print its counters, remove it). The port's socket must not
    /// bypass the qdisc (`qdisc_bypass = false`); then its TX ring fills.
    Slow {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// Shaped rate, `tc` syntax.
        #[arg(long, default_value = "200kbit", conflicts_with = "off")]
        rate: String,
        /// Release the port.
        #[arg(long)]
        off: bool,
    },
    /// SIGKILL the fabric's canopyd (the switches keep their tables).
    KillDaemon,
    /// Start the fabric's canopyd again (it takes over without pushing what is current).
    StartDaemon,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Build the fabric (or this machine's part of it): namespaces, links, one
    /// canopy-switch per switch; wait until every switch is healthy; print a summary.
    /// A failure rolls back everything created.
    Up {
        /// Fabric description (TOML); without it, the defaults: a k=4 fat-tree with the
        /// sliced-flit header, all on this machine, named `canopy`.
        file: Option<PathBuf>,
        /// Build the part placed on this `[[machine]]` (default: `local`).
        #[arg(long, default_value = fabric::desc::LOCAL)]
        machine: String,
        /// canopy-switch binary (default: the description's `switch_bin`, then next to
        /// this executable, then PATH).
        #[arg(long)]
        switch_bin: Option<PathBuf>,
        /// Only validate the description and print what would be built.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove everything of fabric NAME: switch processes, namespaces (with their
    /// veths and VXLAN devices), NICs moved in, the state directory. Finds leftovers of
    /// a crashed or half-finished `up` by its state file and its name prefix.
    Down {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
    },
    /// Health of every switch of fabric NAME.
    Status {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
    },
    /// Fault drills on a running fabric: kill or start a switch process or canopyd,
    /// take a switch's link down or up unannounced. A planned, drained port-down goes
    /// through canopyd instead: `canopyctl fabric port SWITCH PORT down`.
    Drill {
        /// Fabric name (default: the only fabric under the state root).
        #[arg(long)]
        name: Option<String>,
        #[command(subcommand)]
        what: DrillCmd,
    },
    /// Send one frame per ordered host pair and check that each arrives at exactly
    /// its destination host (exit 1 otherwise).
    Check {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// Longest wait for the frames, seconds.
        #[arg(long, default_value_t = 5.0)]
        timeout_s: f64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Drive traffic through a running fabric from its hosts, measure loss, reordering
    /// and one-way latency (in-band timestamps), read every switch's counters before and
    /// after, and write results.json, report.md, report.html and SVG plots. The traffic
    /// is the description's `[traffic]` table with the options below on top. Exit 1
    /// when a frame reached a wrong host or a switch's counters do not add up.
    Run {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// This machine's part of the fabric.
        #[arg(long, default_value = fabric::desc::LOCAL)]
        machine: String,
        /// Host positions on another machine running `canopy-testbed agent`: frames to
        /// them come back, and their latency is a round trip.
        #[arg(long, value_delimiter = ',')]
        remote: Vec<usize>,
        /// Report directory.
        #[arg(long, default_value = "canopy-report")]
        out: PathBuf,
        #[command(flatten)]
        traffic: TrafficArgs,
    },
    /// Put several runs side by side (e.g. the same description on `target = "canopy"`
    /// and `target = "bmv2"`): NDR, PDR, received rate, loss and latency percentiles of
    /// each run's NDR (or only) trial, and their latency CDFs in one plot. Writes
    /// compare.md, compare.html and compare_latency_cdf.svg.
    Compare {
        /// Run directories (with results.json) or results.json files, at least two.
        #[arg(required = true, num_args = 2..)]
        runs: Vec<PathBuf>,
        /// Report directory.
        #[arg(long, default_value = "canopy-compare")]
        out: PathBuf,
    },
    /// Send the frames of a pcap file (crafted or captured with tcpdump, tshark, trafgen,
    /// or written by `run --pcap-tx`) out of one host, with every host receiving. Frames
    /// that carry a Canopy measurement block between two of the fabric's hosts get fresh
    /// sequence numbers and timestamps and are counted like a trial (loss, reordering,
    /// misdelivery, latency); other frames are sent unchanged and only counted as sent.
    /// Counters, report and exit status as for `run`.
    Replay {
        /// The pcap file (classic pcap, Ethernet).
        file: PathBuf,
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// This machine's part of the fabric.
        #[arg(long, default_value = fabric::desc::LOCAL)]
        machine: String,
        /// Host position (index into this machine's hosts) the frames leave from.
        #[arg(long, default_value_t = 0)]
        from: usize,
        /// Frames per second (default: the file's own gaps).
        #[arg(long)]
        pps: Option<f64>,
        /// Report directory.
        #[arg(long, default_value = "canopy-replay")]
        out: PathBuf,
    },
    /// Reflect the frames host POS receives back to their senders (the host agent of a
    /// machine whose hosts another machine's `run --remote` measures), until Ctrl-C.
    Agent {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// This machine's part of the fabric.
        #[arg(long, default_value = fabric::desc::LOCAL)]
        machine: String,
        /// Host position (index into this machine's hosts) to reflect for.
        #[arg(long)]
        host: usize,
    },
    /// Soak: measure the fabric's PDR (or take `--rate`), drive it at that rate for
    /// `--duration`, and account for every frame end to end: received, or counted as a
    /// drop somewhere (switch reasons, backend and kernel socket drops, interface and
    /// qdisc drops). With `--fault-rounds N`, inject faults in rounds while the traffic
    /// flows and report the time to full delivery after each, from the traffic itself.
    /// Writes soak.json, soak.md and timeline.csv. Exit 1 when a frame is unaccounted or
    /// misdelivered, a switch does not conserve, or a recovery is missing or too slow.
    Soak {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// This machine's part of the fabric.
        #[arg(long, default_value = fabric::desc::LOCAL)]
        machine: String,
        /// Report directory.
        #[arg(long, default_value = "canopy-soak")]
        out: PathBuf,
        /// Send time: `90`, `90s`, `3m`, `1h` (default: $CANOPY_SOAK_DURATION, else 3m);
        /// raised to what the fault rounds need.
        #[arg(long, alias = "duration-s")]
        duration: Option<String>,
        /// Take this rate (pps over all senders) instead of measuring the PDR.
        #[arg(long)]
        rate: Option<String>,
        /// Fraction of the PDR to drive at.
        #[arg(long, default_value_t = 1.0)]
        load: f64,
        /// Send time of each PDR search trial, seconds.
        #[arg(long, default_value_t = 1.0)]
        search_trial_s: f64,
        /// Highest rate of the PDR search, pps (default: the generator ceiling).
        #[arg(long)]
        search_max: Option<f64>,
        /// PDR loss threshold.
        #[arg(long, default_value_t = 0.005)]
        pdr_loss: f64,
        /// Timeline bin, milliseconds (recovery times are read at this resolution).
        #[arg(long, default_value_t = 10)]
        bin_ms: u64,
        /// Fault rounds (0: none).
        #[arg(long, default_value_t = 0)]
        fault_rounds: usize,
        /// Faults of every round: link-flap, switch-kill, daemon-kill, tx-fill.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "link-flap,switch-kill,daemon-kill,tx-fill"
        )]
        faults: Vec<String>,
        /// How long each fault lasts, seconds.
        #[arg(long, default_value_t = 1.5)]
        hold_s: f64,
        /// Time after each repair before the next fault, seconds.
        #[arg(long, default_value_t = 1.5)]
        settle_s: f64,
        /// Rate of a slowed port (tx-fill), `tc` syntax.
        #[arg(long, default_value = "200kbit")]
        slow_rate: String,
        /// Longest time to full delivery accepted after a fault or a repair, ms.
        #[arg(long, default_value_t = 3000.0)]
        recovery_limit_ms: f64,
        /// Traffic pattern (default: the description's, else uniform).
        #[arg(long)]
        pattern: Option<String>,
        /// Frame size on the wire with FCS.
        #[arg(long)]
        frame_size: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// The whole job in one command: bring up the fabric (default: a k=4 fat-tree with
    /// sliced-flit headers, named `demo`), check every host pair, run an RFC 2544 NDR/PDR
    /// search with 64-byte frames and a uniform random pattern, write the report, print
    /// the summary and tear everything down (also on failure or Ctrl-C).
    Demo {
        /// Fabric description (default: the defaults with the name `demo`).
        file: Option<PathBuf>,
        /// Report directory.
        #[arg(long, default_value = "canopy-demo")]
        out: PathBuf,
        /// canopy-switch binary (default: next to this executable, then PATH).
        #[arg(long)]
        switch_bin: Option<PathBuf>,
        /// Leave the fabric up afterwards (`canopy-testbed down NAME` removes it).
        #[arg(long)]
        keep: bool,
        #[command(flatten)]
        traffic: TrafficArgs,
    },
}

/// Traffic options on top of the description's `[traffic]` table (`docs/traffic.md`).
#[derive(clap::Args, Debug, Default)]
struct TrafficArgs {
    /// A TOML file with `[traffic]` keys at top level, instead of the description's table.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Pattern: uniform, permutation, transpose, bit-reversal, round-robin,
    /// hotspot[:fraction=F,target=H], all-to-all.
    #[arg(long)]
    pattern: Option<String>,
    /// Offered rate over all senders: 20000pps, 20kpps, 1.5Mpps, or 5% of each host's
    /// line rate (`--reference`).
    #[arg(long)]
    rate: Option<String>,
    /// Line rate a `%` rate refers to (10G, 25G, 1G).
    #[arg(long)]
    reference: Option<String>,
    /// Frame size on the wire with FCS, 64..=1500.
    #[arg(long)]
    frame_size: Option<usize>,
    /// Send time per trial, seconds.
    #[arg(long, conflicts_with = "count")]
    duration_s: Option<f64>,
    /// Frames per trial over all senders (instead of a duration).
    #[arg(long)]
    count: Option<u64>,
    /// Warm-up before each trial, seconds (not counted).
    #[arg(long)]
    warmup_s: Option<f64>,
    /// Seed of the random patterns.
    #[arg(long)]
    seed: Option<u64>,
    /// RFC 2544 binary search for NDR and PDR instead of one trial at `--rate`.
    #[arg(long)]
    search: bool,
    /// Highest rate of the search (its first trial), pps; default: the generator ceiling.
    #[arg(long)]
    search_max: Option<f64>,
    /// Lowest rate of the search, pps.
    #[arg(long)]
    search_min: Option<f64>,
    /// PDR loss threshold (0.005 = 0.5 %).
    #[arg(long)]
    pdr_loss: Option<f64>,
    /// Write the first frames sent to this pcap file.
    #[arg(long)]
    pcap_tx: Option<PathBuf>,
    /// Write the first frames received to this pcap file.
    #[arg(long)]
    pcap_rx: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Receivers spin on their rings instead of sleeping when idle (a few µs less
    /// receive delay; starves the switches on a small machine).
    #[arg(long)]
    busy_poll: bool,
}

impl TrafficArgs {
    /// `base` (the description's table, or `--spec`) with the options on top.
    fn apply(&self, mut s: TrafficSpec) -> Result<TrafficSpec> {
        if let Some(f) = &self.spec {
            let text =
                std::fs::read_to_string(f).with_context(|| format!("read {}", f.display()))?;
            s = TrafficSpec::from_toml(&text).with_context(|| f.display().to_string())?;
        }
        if let Some(p) = &self.pattern {
            s.pattern = Pattern::parse(p)?;
        }
        if let Some(r) = &self.rate {
            s.rate = Rate::parse(r)?;
        }
        if let Some(r) = &self.reference {
            s.reference = r.clone();
        }
        if let Some(n) = self.frame_size {
            s.frame_size = n;
        }
        if let Some(d) = self.duration_s {
            s.duration_s = Some(d);
            s.count = None;
        }
        if let Some(c) = self.count {
            s.count = Some(c);
            s.duration_s = None;
        }
        if let Some(w) = self.warmup_s {
            s.warmup_s = w;
        }
        if let Some(x) = self.seed {
            s.seed = x;
        }
        if self.search || self.search_max.is_some() || self.search_min.is_some() {
            s.search.get_or_insert_with(SearchSpec::default);
        }
        if let Some(sr) = s.search.as_mut() {
            if let Some(m) = self.search_max {
                sr.max_pps = Some(m);
            }
            if let Some(m) = self.search_min {
                sr.min_pps = m;
            }
            if let Some(l) = self.pdr_loss {
                sr.pdr_loss_ratio = l;
            }
        }
        if self.pcap_tx.is_some() {
            s.pcap_tx = self.pcap_tx.clone();
        }
        if self.pcap_rx.is_some() {
            s.pcap_rx = self.pcap_rx.clone();
        }
        s.quiet |= self.quiet;
        s.busy_poll |= self.busy_poll;
        Ok(s)
    }
}

/// SIGINT / SIGTERM set the returned flag instead of killing the process, so what was
/// created can be removed.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).context("install signal handler")?;
    }
    Ok(stop)
}

/// `90`, `90s`, `3m`, `1h` → seconds.
fn parse_duration(s: &str) -> Result<f64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 's')) => (&s[..i], 1.0),
        Some((i, 'm')) => (&s[..i], 60.0),
        Some((i, 'h')) => (&s[..i], 3600.0),
        _ => (s, 1.0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .with_context(|| format!("duration {s:?}: a number with s, m or h"))?;
    let secs = v * mult;
    if !(0.5..=7.0 * 86400.0).contains(&secs) {
        bail!("duration {s:?}: 0.5 s to 7 days");
    }
    Ok(secs)
}

fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

/// Run the traffic and print the summary; Ok(false) when the run was not correct.
fn run_traffic(
    root: &Path,
    name: &str,
    machine: &str,
    remote: Vec<usize>,
    out: PathBuf,
    traffic: &TrafficArgs,
    stop: Arc<AtomicBool>,
) -> Result<bool> {
    let dir = fabric::state::state_dir(root, name, machine);
    let state = fabric::State::load(&dir)
        .with_context(|| format!("fabric {name} is not up on machine {machine}"))?;
    let spec = traffic.apply(canopy_testbed::run::spec_of(&state)?)?;
    let opts = canopy_testbed::run::RunOptions {
        state_root: root.to_path_buf(),
        name: name.to_string(),
        machine: machine.to_string(),
        spec,
        remote,
        out,
        command: command_line(),
    };
    let o = canopy_testbed::run::run(&opts, Some(stop))?;
    outln!(
        "{}",
        canopy_testbed::report::run::summary(&o.results, Some(&o.written))
    );
    Ok(o.correct())
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(cli.log)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("canopy-testbed: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// The report directory a command writes, if any.
fn report_dir(cmd: &Cmd) -> Option<&Path> {
    match cmd {
        Cmd::Run { out, .. }
        | Cmd::Compare { out, .. }
        | Cmd::Replay { out, .. }
        | Cmd::Soak { out, .. }
        | Cmd::Demo { out, .. } => Some(out),
        _ => None,
    }
}

fn run(cli: Cli) -> Result<std::process::ExitCode> {
    // under sudo, the report is the invoking user's, also when the command fails
    let owner = report_dir(&cli.cmd).map(canopy_testbed::os::invoker::OutputOwner::before);
    let r = run_cmd(cli);
    if let Some(o) = owner {
        o.give_back();
    }
    r
}

fn run_cmd(cli: Cli) -> Result<std::process::ExitCode> {
    let root = std::path::absolute(&cli.state_root)
        .with_context(|| format!("state root {}", cli.state_root.display()))?;
    match cli.cmd {
        Cmd::Up {
            file,
            machine,
            switch_bin,
            dry_run,
        } => {
            let desc = match &file {
                Some(f) => Desc::load(f)?,
                None => Desc::parse("<defaults>", "")?,
            };
            if dry_run {
                desc.check_machine(&machine)?;
                outln!(
                    "{}: fabric {} = {} ({}), {} switches, {} hosts, {} links; valid",
                    desc.file,
                    desc.name,
                    desc.raw.topology.get_ref(),
                    desc.kind,
                    desc.topo.switches.len(),
                    desc.topo.hosts.len(),
                    desc.links.len()
                );
                return Ok(std::process::ExitCode::SUCCESS);
            }
            let t0 = Instant::now();
            let progress = |m: &str| eprintln!("[{:6.2} s] {m}", t0.elapsed().as_secs_f64());
            // SIGINT / SIGTERM stop `up` between steps and roll back what it created
            let stop = interrupt_flag()?;
            let opts = UpOptions {
                state_root: root,
                machine,
                switch_bin,
                interrupt: Some(stop),
            };
            let sum = fabric::up(&desc, &opts, &progress)?;
            outln!("{sum}");
        }
        Cmd::Down { name } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let sum = fabric::down(&root, &name)?;
            outln!("fabric {name}: {sum}");
        }
        Cmd::Status { name } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let all = fabric::status(&root, &name)?;
            let mut bad = 0;
            outln!(
                "{:<16} {:<8} {:>8} {:<8} {:<7} ports",
                "switch",
                "machine",
                "pid",
                "tables",
                "health"
            );
            for s in &all {
                if s.bmv2 {
                    bad += usize::from(!s.alive);
                    outln!(
                        "{:<16} {:<8} {:>8} {:<8} {:<7} bmv2 simple_switch (programmed at up; counters: simple_switch_CLI counter_read)",
                        s.switch.name,
                        s.machine,
                        s.switch.pid,
                        "p4",
                        if s.alive { "ok" } else { "DOWN" }
                    );
                    continue;
                }
                match &s.health {
                    Ok(h) => {
                        let up = h.ports.iter().filter(|p| p.link && p.admin).count();
                        let ok = h.tables_loaded && up == h.ports.len();
                        bad += usize::from(!ok);
                        outln!(
                            "{:<16} {:<8} {:>8} {:<8} {:<7} {up}/{} up ({}), {} worker(s) {}, uptime {:.0} s",
                            s.switch.name,
                            s.machine,
                            h.pid,
                            if h.tables_loaded { "loaded" } else { "none" },
                            if ok { "ok" } else { "DEGRADED" },
                            h.ports.len(),
                            canopy_testbed::report::results::backend_summary(
                                h.ports.iter().map(|p| &p.backend)
                            ),
                            h.workers,
                            h.mode,
                            h.uptime_s
                        );
                    }
                    Err(e) => {
                        bad += 1;
                        outln!(
                            "{:<16} {:<8} {:>8} {:<8} {:<7} {e}",
                            s.switch.name,
                            s.machine,
                            s.switch.pid,
                            "?",
                            "DOWN"
                        );
                    }
                }
            }
            outln!("{} switch(es), {} healthy", all.len(), all.len() - bad);
            if let Some((d, r)) = fabric::ops::daemon_status(&root, &name) {
                match r {
                    Ok(snap) => {
                        let current = snap.switches.iter().filter(|s| s.tables_current).count();
                        let pruned: usize =
                            snap.switches.iter().map(|s| s.pruned_ports.len()).sum();
                        outln!(
                            "canopyd pid {}: {}, {current}/{} switches with current tables, {pruned} port(s) pruned; `canopyctl fabric --daemon {} status` for details",
                            d.pid,
                            if snap.ready { "ready" } else { "NOT READY" },
                            snap.switches.len(),
                            d.control.display()
                        );
                        bad += usize::from(!snap.ready);
                    }
                    Err(e) => {
                        outln!("canopyd pid {}: DOWN ({e}); switches keep forwarding on their last tables", d.pid);
                        bad += 1;
                    }
                }
            }
            if bad > 0 {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Drill { name, what } => {
            use canopy_testbed::fabric::drill;
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            match what {
                DrillCmd::Kill { switch } => match drill::kill_switch(&root, &name, &switch)? {
                    Some(pid) => outln!("{switch}: killed pid {pid}"),
                    None => outln!("{switch}: was not running"),
                },
                DrillCmd::Start { switch } => {
                    let pid = drill::start_switch(&root, &name, &switch)?;
                    outln!("{switch}: started, pid {pid}");
                }
                DrillCmd::Restart { switch } => {
                    let killed = drill::kill_switch(&root, &name, &switch)?;
                    let t0 = std::time::Instant::now();
                    let pid = drill::start_switch(&root, &name, &switch)?;
                    outln!(
                        "{switch}: killed {}, started pid {pid}",
                        killed.map_or("nothing".into(), |p| format!("pid {p}"))
                    );
                    if let Some((d, _)) = fabric::ops::daemon_status(&root, &name) {
                        let limit = std::time::Duration::from_secs(10);
                        match fabric::ops::wait_switch_current(&d.control, &switch, pid, t0, limit)
                        {
                            Some(t) => outln!(
                                "{switch}: canopyd had pushed its tables {:.0} ms after the start",
                                t.as_secs_f64() * 1e3
                            ),
                            None => {
                                outln!("{switch}: canopyd did not push its tables within 10 s");
                                return Ok(std::process::ExitCode::FAILURE);
                            }
                        }
                    }
                }
                DrillCmd::Link {
                    switch,
                    port,
                    state,
                } => {
                    let ifn = drill::set_link(&root, &name, &switch, port, state == "up")?;
                    outln!("{switch} port {port} ({ifn}): link {state}");
                }
                DrillCmd::Slow {
                    switch,
                    port,
                    rate,
                    off,
                } => {
                    if off {
                        let s = drill::slow_port(&root, &name, &switch, port, None)?;
                        outln!(
                            "{switch} port {port}: released (its qdisc sent {}, dropped {}, held {} when removed)",
                            s.sent,
                            s.drops,
                            s.left
                        );
                    } else {
                        drill::slow_port(&root, &name, &switch, port, Some(&rate))?;
                        outln!("{switch} port {port}: slowed to {rate}");
                    }
                }
                DrillCmd::KillDaemon => match drill::kill_daemon(&root, &name)? {
                    Some(pid) => outln!("canopyd: killed pid {pid}"),
                    None => outln!("canopyd: was not running"),
                },
                DrillCmd::StartDaemon => {
                    let pid = drill::start_daemon(&root, &name)?;
                    outln!("canopyd: started, pid {pid}");
                }
            }
        }
        Cmd::Check {
            name,
            timeout_s,
            json,
        } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            if !(0.1..=600.0).contains(&timeout_s) {
                bail!("--timeout-s must be 0.1..=600");
            }
            let r = fabric::check(&root, &name, Duration::from_secs_f64(timeout_s))
                .with_context(|| format!("check of fabric {name}"))?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                outln!("{r}");
            }
            if !r.passed() {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Run {
            name,
            machine,
            remote,
            out,
            traffic,
        } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            if !run_traffic(
                &root,
                &name,
                &machine,
                remote,
                out,
                &traffic,
                interrupt_flag()?,
            )? {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Soak {
            name,
            machine,
            out,
            duration,
            rate,
            load,
            search_trial_s,
            search_max,
            pdr_loss,
            bin_ms,
            fault_rounds,
            faults,
            hold_s,
            settle_s,
            slow_rate,
            recovery_limit_ms,
            pattern,
            frame_size,
            quiet,
        } => {
            use canopy_testbed::soak::{self, FaultKind, FaultPlan, RateChoice, SoakOptions};
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let duration = match duration.or_else(|| std::env::var("CANOPY_SOAK_DURATION").ok()) {
                Some(d) => parse_duration(&d)?,
                None => 180.0,
            };
            if !(load > 0.0 && load <= 1.0) {
                bail!("--load must be in (0, 1]");
            }
            if !(1..=1000).contains(&bin_ms) {
                bail!("--bin-ms must be 1..=1000");
            }
            if !(0.1..=600.0).contains(&hold_s) || !(0.1..=600.0).contains(&settle_s) {
                bail!("--hold-s and --settle-s must be 0.1..=600");
            }
            let kinds = faults
                .iter()
                .map(|f| FaultKind::parse(f))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let dir = fabric::state::state_dir(&root, &name, &machine);
            let state = fabric::State::load(&dir)
                .with_context(|| format!("fabric {name} is not up on machine {machine}"))?;
            let mut spec = canopy_testbed::run::spec_of(&state)?;
            if let Some(p) = &pattern {
                spec.pattern = Pattern::parse(p)?;
            }
            if let Some(n) = frame_size {
                spec.frame_size = n;
            }
            spec.quiet |= quiet;
            let rate = match rate {
                Some(r) => match Rate::parse(&r)? {
                    Rate::Pps(p) => RateChoice::Given(p),
                    Rate::Percent(_) => bail!("--rate: give frames per second (e.g. 50kpps)"),
                },
                None => RateChoice::Search {
                    trial_s: search_trial_s,
                    max_pps: search_max,
                    pdr_loss,
                },
            };
            let opts = SoakOptions {
                state_root: root.clone(),
                name,
                machine,
                spec,
                rate,
                load,
                duration_s: duration,
                bin_ms,
                faults: FaultPlan {
                    rounds: fault_rounds,
                    kinds,
                    hold_s,
                    settle_s,
                    slow_rate,
                    ..FaultPlan::default()
                },
                recovery_limit_ms,
                out: out.clone(),
                command: command_line(),
            };
            let r = soak::soak(&opts, Some(interrupt_flag()?))?;
            outln!("{}", canopy_testbed::report::soak::summary(&r));
            outln!("report: {}", out.join("soak.json").display());
            if !r.passed() {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Compare { runs, out } => {
            let written = canopy_testbed::report::compare::compare(&runs, &out)?;
            for w in written {
                outln!("{}", w.display());
            }
        }
        Cmd::Replay {
            name,
            file,
            machine,
            from,
            pps,
            out,
        } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            if let Some(p) = pps {
                if !(p.is_finite() && p > 0.0) {
                    bail!("--pps must be a positive rate, not {p}");
                }
            }
            let opts = canopy_testbed::run::ReplayOptions {
                state_root: root.clone(),
                name,
                machine,
                file,
                from,
                pps,
                out,
                command: command_line(),
            };
            let (o, other) = canopy_testbed::run::replay(&opts, Some(interrupt_flag()?))?;
            outln!(
                "{}",
                canopy_testbed::report::run::summary(&o.results, Some(&o.written))
            );
            outln!("{other} frame(s) of the file were not generator frames: sent, not counted");
            if !o.correct() {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Agent {
            name,
            machine,
            host,
        } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let dir = fabric::state::state_dir(&root, &name, &machine);
            let state = fabric::State::load(&dir)
                .with_context(|| format!("fabric {name} is not up on machine {machine}"))?;
            let mut r = canopy_testbed::traffic::Reflector::open(&state.hosts, host)?;
            eprintln!("reflecting for host position {host} of fabric {name}; Ctrl-C stops");
            let stop = interrupt_flag()?;
            let st = r.run(&stop)?;
            outln!("reflected {} frames, ignored {}", st.reflected, st.ignored);
        }
        Cmd::Demo {
            file,
            out,
            switch_bin,
            keep,
            traffic,
        } => return demo(&root, file, out, switch_bin, keep, &traffic),
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `demo`: up, check, search, report, down.
fn demo(
    root: &Path,
    file: Option<PathBuf>,
    out: PathBuf,
    switch_bin: Option<PathBuf>,
    keep: bool,
    traffic: &TrafficArgs,
) -> Result<std::process::ExitCode> {
    let desc = match &file {
        Some(f) => Desc::load(f)?,
        None => Desc::parse("<demo defaults>", "name = \"demo\"\n")?,
    };
    let name = desc.name.clone();
    let t0 = Instant::now();
    let progress = |m: &str| eprintln!("[{:6.2} s] {m}", t0.elapsed().as_secs_f64());
    let stop = interrupt_flag()?;
    progress(&format!(
        "demo: fabric {name} = {} ({}), {} switches, {} hosts",
        desc.raw.topology.get_ref(),
        desc.kind,
        desc.topo.switches.len(),
        desc.topo.hosts.len()
    ));
    let sum = fabric::up(
        &desc,
        &UpOptions {
            state_root: root.to_path_buf(),
            machine: fabric::desc::LOCAL.into(),
            switch_bin,
            interrupt: Some(stop.clone()),
        },
        &progress,
    )?;
    outln!("{sum}");
    // from here on the fabric exists: tear it down whatever happens
    let result = (|| -> Result<bool> {
        let r = fabric::check(root, &name, Duration::from_secs(5))
            .with_context(|| format!("check of fabric {name}"))?;
        outln!("{r}");
        if !r.passed() {
            bail!("the every-pair check failed; not measuring");
        }
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted");
        }
        // the demo's default measurement: a short NDR/PDR search
        let fixed = (traffic.rate.is_some() || traffic.count.is_some()) && !traffic.search;
        let mut t = TrafficArgs {
            search: !fixed,
            ..Default::default()
        };
        t.duration_s = Some(1.0);
        let defaults = t.apply(TrafficSpec::default())?;
        let mut spec = traffic.apply(defaults)?;
        if let Some(t) = &desc.raw.traffic {
            // a description's own [traffic] table wins over the demo defaults
            spec = traffic.apply(TrafficSpec::from_table(t)?)?;
        }
        let opts = canopy_testbed::run::RunOptions {
            state_root: root.to_path_buf(),
            name: name.clone(),
            machine: fabric::desc::LOCAL.into(),
            spec,
            remote: vec![],
            out: out.clone(),
            command: command_line(),
        };
        let o = canopy_testbed::run::run(&opts, Some(stop.clone()))?;
        outln!(
            "{}",
            canopy_testbed::report::run::summary(&o.results, Some(&o.written))
        );
        Ok(o.correct())
    })();
    if keep {
        outln!("fabric {name} left up (--keep); `canopy-testbed down {name}` removes it");
    } else {
        let d = fabric::down(root, &name).with_context(|| format!("down of fabric {name}"))?;
        outln!("fabric {name}: {d}");
    }
    progress("demo: done");
    match result? {
        true => Ok(std::process::ExitCode::SUCCESS),
        false => Ok(std::process::ExitCode::FAILURE),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
