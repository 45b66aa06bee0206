//! The command line of `canopy-testbed`: the subcommands and their options. Closed sets
//! of values (port states, fault kinds) are typed, so clap refuses a word outside the
//! set with exit status 2, naming the possible values, which `--help` lists too.

use anyhow::{bail, Context, Result};
use canopy_proto::logging::Filter;
use canopy_testbed::fabric::{self, state::DEFAULT_ROOT};
use canopy_testbed::soak::FaultKind;
use canopy_testbed::traffic::{Pattern, Rate, SearchSpec, TrafficSpec};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "canopy-testbed",
    version,
    about = "Software Canopy fabrics in network namespaces: up, status, check, down"
)]
pub struct Cli {
    /// Root of the state directories (`<root>/<name>/<machine>/state.json`).
    #[arg(long, global = true, default_value = DEFAULT_ROOT)]
    pub state_root: PathBuf,
    /// Log filter: a level (error, warn, info, debug, trace, off) or RUST_LOG-style
    /// directives such as `warn,canopy_testbed=debug` [default: $RUST_LOG, else info].
    #[arg(long, global = true, value_name = "FILTER")]
    pub log: Option<Filter>,
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// `drill link SWITCH PORT up|down`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LinkState {
    /// The link comes up.
    Up,
    /// The link goes down.
    Down,
}

impl std::fmt::Display for LinkState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LinkState::Up => "up",
            LinkState::Down => "down",
        })
    }
}

/// The value parser of `soak --faults`: the library's fault names.
fn fault_kind() -> impl TypedValueParser<Value = FaultKind> {
    PossibleValuesParser::new(FaultKind::ALL.map(FaultKind::name))
        .try_map(|name| FaultKind::parse(&name))
}

#[derive(Subcommand, Debug)]
pub enum DrillCmd {
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
    /// Kill a switch and start it again at once.
    ///
    /// When canopyd runs, prints how long until it had pushed the switch's tables; exit
    /// status 1 when it had not within 10 s.
    Restart {
        /// Switch name.
        switch: String,
    },
    /// Set a switch port's link down or up, telling nobody.
    ///
    /// `ip link set` on the port's interface: neither the switch nor canopyd is told.
    Link {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// The link's new state.
        state: LinkState,
    },
    /// Slow a switch port with a `tbf` qdisc, or release it.
    ///
    /// `--rate 200kbit` slows the port; `--off` drains the qdisc, prints its counters and
    /// removes it. The port's socket must not bypass the qdisc (`qdisc_bypass = false`);
    /// then its TX ring fills.
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
pub enum Cmd {
    /// Build a fabric and wait until every switch is healthy.
    ///
    /// Builds the fabric (or this machine's part of it): namespaces, links, one
    /// canopy-switch per switch; waits until every switch is healthy and prints a
    /// summary. A failure rolls back everything created.
    Up(UpArgs),
    /// Remove everything of a fabric.
    ///
    /// Removes everything of fabric NAME: switch processes, namespaces (with their veths
    /// and VXLAN devices), NICs moved in, the state directory. Finds leftovers of a
    /// crashed or half-finished `up` by its state file and its name prefix.
    Down {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// Print what was removed as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show the health of every switch of a fabric.
    ///
    /// One line per switch of fabric NAME (machine, pid, tables, health, ports up and
    /// their backends, workers, uptime), then canopyd's view when the fabric has one.
    /// Exit status 1 when a switch or canopyd is not healthy.
    Status {
        /// Fabric name (default: the only fabric under the state root).
        name: Option<String>,
        /// Print the status as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Inject a fault into a running fabric.
    ///
    /// Fault drills: kill or start a switch process or canopyd, take a switch's link
    /// down or up unannounced, slow a port. A planned, drained port-down goes through
    /// canopyd instead: `canopyctl fabric port SWITCH PORT down`.
    Drill(DrillArgs),
    /// Send one frame per ordered host pair and check where each arrives.
    ///
    /// Each frame must arrive at exactly its destination host; exit status 1 otherwise.
    Check(CheckArgs),
    /// Drive traffic through a running fabric and write a report.
    ///
    /// Sends from the fabric's hosts, measures loss, reordering and one-way latency
    /// (in-band timestamps), reads every switch's counters before and after, and writes
    /// results.json, report.md, report.html and SVG plots. The traffic is the
    /// description's `[traffic]` table with the options below on top. Exit status 1 when
    /// a frame reached a wrong host or a switch's counters do not add up.
    Run(RunArgs),
    /// Put several runs side by side.
    ///
    /// For example the same description on `target = "canopy"` and `target = "bmv2"`:
    /// NDR, PDR, received rate, loss and latency percentiles of each run's NDR (or only)
    /// trial, and their latency CDFs in one plot. Writes compare.md, compare.html and
    /// compare_latency_cdf.svg.
    Compare(CompareArgs),
    /// Send the frames of a capture file (pcap or pcapng) out of one host.
    ///
    /// The file is crafted or captured with tcpdump, tshark, trafgen, or written by `run
    /// --pcap-tx`; every host receives. Frames that carry a Canopy measurement block
    /// between two of the fabric's hosts get fresh sequence numbers and timestamps and
    /// are counted like a trial (loss, reordering, misdelivery, latency); other frames
    /// are sent unchanged and only counted as sent. Counters, report and exit status as
    /// for `run`.
    Replay(ReplayArgs),
    /// Reflect the frames a host receives back to their senders, until Ctrl-C.
    ///
    /// The host agent of a machine whose hosts another machine's `run --remote`
    /// measures: host POS sends back what it receives.
    Agent(AgentArgs),
    /// Drive a fabric at its PDR for minutes and account for every frame.
    ///
    /// Measures the fabric's PDR (or takes `--rate`), drives it at that rate for
    /// `--duration`, and accounts for every frame end to end: received, or counted as a
    /// drop somewhere (switch reasons, backend and kernel socket drops, interface and
    /// qdisc drops). With `--fault-rounds N`, injects faults in rounds while the traffic
    /// flows and reports the time to full delivery after each, from the traffic itself.
    /// Writes soak.json, soak.md and timeline.csv. Exit status 1 when a frame is
    /// unaccounted or misdelivered, a switch does not conserve, or a recovery is missing
    /// or too slow.
    Soak(SoakArgs),
    /// Bring up a fabric, check and measure it, and tear it down.
    ///
    /// The whole job in one command: bring up the fabric (default: a k=4 fat-tree with
    /// sliced-flit headers, named `demo`), check every host pair, run an RFC 2544 NDR/PDR
    /// search with 64-byte frames and a uniform random pattern, write the report, print
    /// the summary and tear everything down (also on failure or Ctrl-C).
    Demo(DemoArgs),
    /// Export a fabric description for other tools: containerlab, Graphviz.
    ///
    /// `containerlab`: a topology file (`<name>.clab.yml`) with one `kind: linux` node per
    /// switch running canopy-switch from the OCI image, one per host, the links as in the
    /// description, and each switch's configuration beside it (`docs/export.md`).
    /// `dot`: the fabric as a Graphviz graph, switches ranked by level.
    #[command(subcommand)]
    Export(ExportCmd),
    /// Merge HdrHistogram latency logs and print each tag's percentiles.
    ///
    /// Reads the latency histograms of HdrHistogram interval logs (a run's
    /// `latency.hlog`, or any other), merges those with the same tag across the files,
    /// and prints each tag's percentiles: runs measured apart, added up.
    Latency(LatencyArgs),
    /// Run a fabric study in simulated time (discrete-event model, no namespaces).
    ///
    /// Reads a study description (TOML: a base point, values to sweep, what to plot;
    /// docs/des.md), runs every point with Canopy's own tables and forwarding decisions
    /// in simulated time, and writes study.json, points.csv, tiers.csv, one SVG per
    /// plotted metric and report.md. Needs no root.
    Study(StudyArgs),
}

/// `canopy-testbed study`.
#[derive(clap::Args, Debug)]
pub struct StudyArgs {
    /// The study description file.
    pub file: PathBuf,
    /// Directory for the results (default: `study-<file name without .toml>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Points run at once (default: the CPUs).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Scale every point's measured window (and warm-up) by this factor: 0.1 for a
    /// quick look, 1 as written.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
}

/// `canopy-testbed latency`.
#[derive(clap::Args, Debug)]
pub struct LatencyArgs {
    /// Interval log files (values in ns, as `run` writes them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only this tag (e.g. `probe-50pct`); default: every tag, each merged on its own.
    #[arg(long)]
    pub tag: Option<String>,
    /// Print the percentiles as JSON (nanoseconds).
    #[arg(long)]
    pub json: bool,
}

/// `--latency-loads`: percentages, comma-separated, as fractions; `none` for no trials.
fn parse_loads(s: &str) -> Result<Vec<f64>> {
    if s.trim() == "none" {
        return Ok(vec![]);
    }
    s.split(',')
        .map(|p| {
            let p = p.trim().trim_end_matches('%');
            let v: f64 = p
                .parse()
                .map_err(|_| anyhow::anyhow!("--latency-loads: `{p}` is not a percentage"))?;
            Ok(v / 100.0)
        })
        .collect()
}

/// Traffic options on top of the description's `[traffic]` table (`docs/traffic.md`).
#[derive(clap::Args, Debug, Default)]
pub struct TrafficArgs {
    /// A TOML file with `[traffic]` keys at top level, instead of the description's table.
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Pattern: uniform, permutation, transpose, bit-reversal, bit-complement,
    /// neighbour, round-robin, hotspot[:fraction=F,target=H], all-to-all.
    #[arg(long)]
    pub pattern: Option<String>,
    /// Offered rate over all senders: 20000pps, 20kpps, 1.5Mpps, or 5% of each host's
    /// line rate (`--reference`).
    #[arg(long)]
    pub rate: Option<String>,
    /// Line rate a `%` rate refers to (10G, 25G, 1G).
    #[arg(long)]
    pub reference: Option<String>,
    /// Frame size on the wire with FCS, 64..=1500.
    #[arg(long)]
    pub frame_size: Option<usize>,
    /// Send time per trial, seconds.
    #[arg(long, conflicts_with = "count")]
    pub duration_s: Option<f64>,
    /// Frames per trial over all senders (instead of a duration).
    #[arg(long)]
    pub count: Option<u64>,
    /// Warm-up before each trial, seconds (not counted).
    #[arg(long)]
    pub warmup_s: Option<f64>,
    /// Seed of the random patterns.
    #[arg(long)]
    pub seed: Option<u64>,
    /// RFC 2544 binary search for NDR and PDR instead of one trial at `--rate`.
    #[arg(long)]
    pub search: bool,
    /// Highest rate of the search (its first trial), pps; default: the generator ceiling.
    #[arg(long)]
    pub search_max: Option<f64>,
    /// Lowest rate of the search, pps.
    #[arg(long)]
    pub search_min: Option<f64>,
    /// PDR loss threshold (0.005 = 0.5 %).
    #[arg(long)]
    pub pdr_loss: Option<f64>,
    /// Duration of the search's confirmation trials, seconds (RFC 2544's final trial:
    /// the rates the short trials found are tried again this long; 0: not confirmed).
    #[arg(long)]
    pub confirm_s: Option<f64>,
    /// After the search, latency at these percentages of the NDR, each a trial with a
    /// latency stream beside that load (`0,10,50,90` by default; `none`: no such trials).
    #[arg(long, value_name = "PCT,PCT,...")]
    pub latency_loads: Option<String>,
    /// Duration of each latency trial after the search, seconds.
    #[arg(long)]
    pub latency_s: Option<f64>,
    /// A latency stream beside every trial at this many frames per second over all
    /// senders, one frame at a time, timed apart (the search's latency trials use 1000
    /// when not given).
    #[arg(long)]
    pub probe_pps: Option<f64>,
    /// The latency stream's frames carry no hop records (they are then the trial's frame
    /// size, and there is no per-hop breakdown).
    #[arg(long)]
    pub no_probe_hops: bool,
    /// Write the first frames sent to this capture file (pcapng when it ends in .pcapng, else pcap).
    #[arg(long)]
    pub pcap_tx: Option<PathBuf>,
    /// Write the first frames received to this capture file (pcapng when it ends in .pcapng, else pcap).
    #[arg(long)]
    pub pcap_rx: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Receivers spin on their rings instead of sleeping when idle (a few µs less
    /// receive delay; starves the switches on a small machine).
    #[arg(long)]
    pub busy_poll: bool,
    /// Sender threads, each sending for a share of the hosts (default: a quarter of the
    /// CPUs, at least 1; the switches need the rest).
    #[arg(long)]
    pub tx_threads: Option<usize>,
}

impl TrafficArgs {
    /// `base` (the description's table, or `--spec`) with the options on top.
    pub fn apply(&self, mut s: TrafficSpec) -> Result<TrafficSpec> {
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
            if let Some(c) = self.confirm_s {
                sr.confirm_s = c;
            }
            if let Some(l) = &self.latency_loads {
                sr.latency_loads = parse_loads(l)?;
            }
            if let Some(d) = self.latency_s {
                sr.latency_s = d;
            }
        }
        if self.probe_pps.is_some() {
            s.probe_pps = self.probe_pps;
        }
        if self.no_probe_hops {
            s.probe_hops = false;
        }
        if self.pcap_tx.is_some() {
            s.pcap_tx = self.pcap_tx.clone();
        }
        if self.pcap_rx.is_some() {
            s.pcap_rx = self.pcap_rx.clone();
        }
        s.quiet |= self.quiet;
        s.busy_poll |= self.busy_poll;
        if self.tx_threads.is_some() {
            s.tx_threads = self.tx_threads;
        }
        Ok(s)
    }
}

// `canopy-testbed up`.
#[derive(clap::Args, Debug)]
pub struct UpArgs {
    /// Fabric description (TOML); without it, the defaults: a k=4 fat-tree with the
    /// sliced-flit header, all on this machine, named `canopy`.
    pub file: Option<PathBuf>,
    /// Build the part placed on this `[[machine]]` (default: `local`).
    #[arg(long, default_value = fabric::desc::LOCAL)]
    pub machine: String,
    /// canopy-switch binary (default: the description's `switch_bin`, then next to
    /// this executable, then PATH).
    #[arg(long)]
    pub switch_bin: Option<PathBuf>,
    /// Only validate the description and print what would be built.
    #[arg(long)]
    pub dry_run: bool,
}

// `canopy-testbed drill`.
#[derive(clap::Args, Debug)]
pub struct DrillArgs {
    /// Fabric name (default: the only fabric under the state root).
    #[arg(long)]
    pub name: Option<String>,
    #[command(subcommand)]
    pub what: DrillCmd,
}

// `canopy-testbed check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Fabric name (default: the only fabric under the state root).
    pub name: Option<String>,
    /// Longest wait for the frames, seconds.
    #[arg(long, default_value_t = 5.0)]
    pub timeout_s: f64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

// `canopy-testbed run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Fabric name (default: the only fabric under the state root).
    pub name: Option<String>,
    /// This machine's part of the fabric.
    #[arg(long, default_value = fabric::desc::LOCAL)]
    pub machine: String,
    /// Host positions on another machine running `canopy-testbed agent`: frames to
    /// them come back, and their latency is a round trip.
    #[arg(long, value_delimiter = ',')]
    pub remote: Vec<usize>,
    /// Report directory.
    #[arg(long, default_value = "canopy-report")]
    pub out: PathBuf,
    #[command(flatten)]
    pub traffic: TrafficArgs,
}

// `canopy-testbed compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// Run directories (with results.json) or results.json files, at least two.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Report directory.
    #[arg(long, default_value = "canopy-compare")]
    pub out: PathBuf,
}

// `canopy-testbed replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The capture file (pcap or pcapng, Ethernet frames).
    pub file: PathBuf,
    /// Fabric name (default: the only fabric under the state root).
    pub name: Option<String>,
    /// This machine's part of the fabric.
    #[arg(long, default_value = fabric::desc::LOCAL)]
    pub machine: String,
    /// Host position (index into this machine's hosts) the frames leave from.
    #[arg(long, default_value_t = 0)]
    pub from: usize,
    /// Frames per second (default: the file's own gaps).
    #[arg(long)]
    pub pps: Option<f64>,
    /// Report directory.
    #[arg(long, default_value = "canopy-replay")]
    pub out: PathBuf,
}

// `canopy-testbed agent`.
#[derive(clap::Args, Debug)]
pub struct AgentArgs {
    /// Fabric name (default: the only fabric under the state root).
    pub name: Option<String>,
    /// This machine's part of the fabric.
    #[arg(long, default_value = fabric::desc::LOCAL)]
    pub machine: String,
    /// Host position (index into this machine's hosts) to reflect for.
    #[arg(long)]
    pub host: usize,
}

// `canopy-testbed soak`.
#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    /// Fabric name (default: the only fabric under the state root).
    pub name: Option<String>,
    /// This machine's part of the fabric.
    #[arg(long, default_value = fabric::desc::LOCAL)]
    pub machine: String,
    /// Report directory.
    #[arg(long, default_value = "canopy-soak")]
    pub out: PathBuf,
    /// Send time: `90`, `90s`, `3m`, `1h` (default: $CANOPY_SOAK_DURATION, else 3m);
    /// raised to what the fault rounds need.
    #[arg(long, alias = "duration-s")]
    pub duration: Option<String>,
    /// Take this rate (pps over all senders) instead of measuring the PDR.
    #[arg(long)]
    pub rate: Option<String>,
    /// Fraction of the PDR to drive at.
    #[arg(long, default_value_t = 1.0)]
    pub load: f64,
    /// Send time of each PDR search trial, seconds.
    #[arg(long, default_value_t = 1.0)]
    pub search_trial_s: f64,
    /// Highest rate of the PDR search, pps (default: the generator ceiling).
    #[arg(long)]
    pub search_max: Option<f64>,
    /// PDR loss threshold.
    #[arg(long, default_value_t = 0.005)]
    pub pdr_loss: f64,
    /// Timeline bin, milliseconds (recovery times are read at this resolution).
    #[arg(long, default_value_t = 10)]
    pub bin_ms: u64,
    /// Fault rounds (0: none).
    #[arg(long, default_value_t = 0)]
    pub fault_rounds: usize,
    /// Faults of every round, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "link-flap,switch-kill,daemon-kill,tx-fill",
        value_parser = fault_kind()
    )]
    pub faults: Vec<FaultKind>,
    /// How long each fault lasts, seconds.
    #[arg(long, default_value_t = 1.5)]
    pub hold_s: f64,
    /// Time after each repair before the next fault, seconds.
    #[arg(long, default_value_t = 1.5)]
    pub settle_s: f64,
    /// Rate of a slowed port (tx-fill), `tc` syntax.
    #[arg(long, default_value = "200kbit")]
    pub slow_rate: String,
    /// Longest time to full delivery accepted after a fault or a repair, ms.
    #[arg(long, default_value_t = 3000.0)]
    pub recovery_limit_ms: f64,
    /// Traffic pattern (default: the description's, else uniform).
    #[arg(long)]
    pub pattern: Option<String>,
    /// Frame size on the wire with FCS.
    #[arg(long)]
    pub frame_size: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

// `canopy-testbed demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Fabric description (default: the defaults with the name `demo`).
    pub file: Option<PathBuf>,
    /// Report directory.
    #[arg(long, default_value = "canopy-demo")]
    pub out: PathBuf,
    /// canopy-switch binary (default: next to this executable, then PATH).
    #[arg(long)]
    pub switch_bin: Option<PathBuf>,
    /// Leave the fabric up afterwards (`canopy-testbed down NAME` removes it).
    #[arg(long)]
    pub keep: bool,
    #[command(flatten)]
    pub traffic: TrafficArgs,
}

/// `90`, `90s`, `3m`, `1h` → seconds.
pub fn parse_duration(s: &str) -> Result<f64> {
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

/// `canopy-testbed export ...`.
#[derive(Subcommand, Debug)]
pub enum ExportCmd {
    /// Write a containerlab topology and the switches' configurations.
    Containerlab {
        /// The fabric description (TOML).
        file: PathBuf,
        /// Directory the topology and the configurations are written to.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// The switches' image (default: canopy:<version>, `packaging/oci/build-image`).
        #[arg(long)]
        image: Option<String>,
        /// The hosts' image (default: the switches').
        #[arg(long)]
        host_image: Option<String>,
        /// The machine whose part to export (multi-machine descriptions).
        #[arg(long)]
        machine: Option<String>,
        /// How long a node waits for its interfaces, seconds.
        #[arg(long, default_value_t = 300)]
        wait_s: u32,
    },
    /// Print the fabric as a Graphviz DOT graph.
    Dot {
        /// The fabric description (TOML).
        file: PathBuf,
        /// Write to this file instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Leave the hosts out (big fabrics).
        #[arg(long)]
        no_hosts: bool,
        /// No port numbers on the links.
        #[arg(long)]
        no_ports: bool,
    },
}
