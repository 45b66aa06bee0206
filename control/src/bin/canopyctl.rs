//! `canopyctl`: offline tool for Canopy fabrics: topologies, addresses, headers,
//! per-switch tables, the routing oracle, and the whole fabric simulated in one process.

use anyhow::{bail, Context, Result};
use canopy_control::kinds::{self, TableSummary};
use canopy_control::oracle::{self, Oracle, Revisits};
use canopy_control::p4::{self, tna as p4_tna};
use canopy_control::sim::{self, Fabric, TrafficOptions};
use canopy_control::topology::{self, Peer, PortRole, Topology};
use canopy_dataplane::engine::{self, EngineConfig};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use clap::{Parser, Subcommand};
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// `println!` for results: when stdout is closed (piped into `head`, say) the process ends
/// quietly with the shell's SIGPIPE status instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            stdout_failed(e)
        }
    }};
}

/// `print!` counterpart of [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
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
    eprintln!("canopyctl: cannot write to standard output: {e}");
    std::process::exit(1);
}

#[derive(Parser)]
#[command(
    name = "canopyctl",
    version,
    about = "Canopy fabric tool: topologies, addresses, headers, tables, routing oracle",
    after_help = "SPEC is a topology spec such as `fat-tree:k=4`, `znode:z=3,2,3;m=2`, \
                  `transit-full:layers=1` (quote it in the shell: it contains `;`). \
                  `canopyctl families` lists them all."
)]
struct Cli {
    /// Print phase timings to stderr.
    #[arg(long, short, global = true)]
    verbose: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args)]
struct SimArgs {
    /// Topology spec.
    spec: String,
    /// Header kind: sliced, transit, path-id.
    #[arg(long, short)]
    kind: String,
    /// Threads the switches are spread over (whole pods per thread where the
    /// topology has them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// How long the sources send, in seconds (0.01 to 3600).
    #[arg(long, default_value_t = 2.0, value_parser = parse_seconds)]
    seconds: f64,
    /// Frame size on the wire in bytes, FCS included (64 to 2052; frames are never
    /// shorter than their headers).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(64..=2052))]
    frame_size: u16,
    /// Traffic pattern: uniform (every host sends to uniformly random other hosts).
    #[arg(long, default_value = "uniform", value_parser = ["uniform"])]
    pattern: String,
    /// Frames per link and per (worker, port) ring (2 to 65536).
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(2..=65536))]
    ring: u32,
    /// Frames a source keeps queued on its link at most (1 to 65536).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    window: u32,
    /// Drain timer of every switch in microseconds: partial TX bursts wait at most
    /// this long (0 to 10000; 0 sends every poll).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=10000))]
    drain_us: u32,
    /// Seed for destinations and adaptive choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(clap::Args)]
struct P4EntriesArgs {
    /// Topology spec.
    spec: String,
    /// Header kind: sliced, transit, path-id.
    #[arg(long, short)]
    kind: String,
    /// Switch name (as in `canopyctl topo SPEC --list`).
    #[arg(long)]
    switch: String,
    /// Output format: bmv2-cli (simple_switch_CLI commands), p4runtime (a
    /// p4.v1.WriteRequest in proto3 JSON; needs --p4info), or bfrt-python (BF Runtime
    /// Python commands for p4/canopy_tna.p4 on Tofino or tofino-model).
    #[arg(long, default_value = "bmv2-cli")]
    format: String,
    /// Sliced-flit addressing mode: sliced, flat, srcdst, dst (kind sliced only).
    #[arg(long)]
    mode: Option<String>,
    /// The P4Info in JSON (`p4c --target bmv2 --arch v1model --p4runtime-files
    /// FILE.json -o OUTDIR p4/canopy.p4`): resolves names to ids for --format p4runtime.
    #[arg(long)]
    p4info: Option<std::path::PathBuf>,
    /// P4Runtime device id of the WriteRequest (--format p4runtime).
    #[arg(long, default_value_t = 0)]
    device_id: u64,
}

#[derive(clap::Args)]
struct HeaderArgs {
    /// Topology spec.
    spec: String,
    /// Header kind: sliced, transit, path-id.
    #[arg(long, short)]
    kind: String,
    /// Source host.
    #[arg(long)]
    src: String,
    /// Destination host.
    #[arg(long)]
    dst: String,
    /// Also walk the frame through the fabric and print every hop.
    #[arg(long)]
    trace: bool,
    /// Seed for the adaptive choices of the trace.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sliced-flit addressing mode: sliced, flat, srcdst, dst (kind sliced only).
    #[arg(long)]
    mode: Option<String>,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Topology spec.
    spec: String,
    /// Header kind: sliced, transit, path-id.
    #[arg(long, short)]
    kind: String,
    /// Number of random pairs, 1 to 1,000,000 (default: all ordered pairs up to
    /// 100,000, else 10,000 random).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_PAIRS))]
    pairs: Option<u64>,
    /// Seed for pair sampling and adaptive choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sliced-flit addressing mode: sliced, flat, srcdst, dst (kind sliced only).
    #[arg(long)]
    mode: Option<String>,
}

#[derive(clap::Args)]
struct TablesArgs {
    /// Topology spec.
    spec: String,
    /// Header kind: sliced, transit, path-id.
    #[arg(long, short)]
    kind: String,
    /// ID bits and entries per switch (max and total), by level.
    #[arg(long)]
    summary: bool,
    /// Print the full table of one switch (by name) as JSON.
    #[arg(long, conflicts_with = "summary")]
    switch: Option<String>,
    /// Sliced-flit addressing mode: sliced, flat, srcdst, dst (kind sliced only).
    #[arg(long)]
    mode: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// List topology families with an example spec each.
    Families,
    /// Build a topology and describe it.
    Topo {
        /// Topology spec.
        spec: String,
        /// Counts only: switches (by level), ports, links, hosts, header kinds.
        #[arg(long)]
        summary: bool,
        /// List every switch with its ports and peers.
        #[arg(long, conflicts_with = "summary")]
        list: bool,
    },
    /// Show a host's addresses (labels, physical address, family encodings).
    Address {
        /// Topology spec.
        spec: String,
        /// Hosts: `h<index>`, `<index>`, or a family form (`5.2.3` for a fat-tree pod.edge.host,
        /// `(1;1,0,2)` or `phys:42` for a Znode, `0xCC0234` for Transit, …).
        #[arg(required = true)]
        hosts: Vec<String>,
    },
    /// Print the Canopy header a source puts on a frame to a destination.
    Header(HeaderArgs),
    /// Compute per-switch forwarding tables.
    Tables(TablesArgs),
    /// Print the table entries of one switch for the P4 program `p4/canopy.p4`
    /// (`simple_switch_CLI` commands or P4Runtime JSON) or, with --format bfrt-python,
    /// for the Tofino program `p4/canopy_tna.p4`, from the same tables the Rust switch uses
    /// (docs/p4.md).
    P4Entries(P4EntriesArgs),
    /// Write the constant entries of the Tofino program `p4/canopy_tna.p4` (funnel shifts,
    /// masks, header checks, the drop priority encoder, …) into `p4/tna_entries/`, one file
    /// per table, which the program includes (docs/p4.md). Run it from the repository root.
    P4TnaEntries {
        /// The directory of the files.
        #[arg(long, default_value = p4_tna::const_entries::DIR)]
        dir: std::path::PathBuf,
        /// Compare the files in --dir with the generator instead of writing them; exit
        /// status 1 at the first difference.
        #[arg(long)]
        check: bool,
    },
    /// Run the routing oracle: walk pairs through the fabric with the dataplane's own
    /// decisions and check delivery, loop freedom and up*-down* paths.
    Check(CheckArgs),
    /// Simulate the fabric in one process: every switch a forwarding engine on in-process
    /// links, every host a traffic source and sink. Prints delivered Mpps, drops by
    /// reason and the per-switch conservation check (rx = tx + drops); a progress line
    /// per second goes to stderr. Fails if a frame went to the wrong host or a counter
    /// does not conserve.
    Sim(SimArgs),
    /// Talk to a running `canopyd`: status of every switch and port, counters, push
    /// tables again, set a port down or up (fault drills). Exit status 1 when the
    /// daemon answers with an error or cannot be reached.
    Fabric {
        /// canopyd's control socket (`[daemon] control`; before or after the fabric
        /// command). Default: the one canopyd running here, found at
        /// /run/canopyd/canopyd.sock or as a testbed fabric's under /run/canopy-testbed.
        #[arg(long, global = true)]
        daemon: Option<std::path::PathBuf>,
        /// Print the daemon's JSON answer instead of the text view.
        #[arg(long, global = true)]
        json: bool,
        #[command(subcommand)]
        cmd: FabricCmd,
    },
}

#[derive(Subcommand)]
enum FabricCmd {
    /// Every switch (up, tables current, pid, pushes, pruned ports) and every port
    /// that is down or pruned; the pruning warnings.
    Status,
    /// Counters of one switch or of all (the switches' own, as last polled).
    Counters {
        /// Switch name (default: every switch).
        switch: Option<String>,
    },
    /// Push the wanted tables again to one switch or to all.
    Push {
        /// Switch name (default: every switch).
        switch: Option<String>,
    },
    /// Set a port down (the fabric is pruned around it first, then the port goes
    /// down) or up (the port comes up, then the fabric uses it again).
    Port {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// `up` or `down`.
        #[arg(value_parser = ["up", "down"])]
        state: String,
    },
}

/// `--seconds`: a number of seconds from 0.01 to 3600.
fn parse_seconds(s: &str) -> Result<f64> {
    let v: f64 = s
        .parse()
        .map_err(|_| anyhow::anyhow!("`{s}` is not a number of seconds"))?;
    if !(0.01..=3600.0).contains(&v) {
        bail!("{v} s is outside 0.01 to 3600");
    }
    Ok(v)
}

/// Most random pairs `check --pairs` walks (about a second per million on small fabrics).
const MAX_PAIRS: u64 = 1_000_000;

fn parse_kind(s: &str) -> Result<Kind> {
    Kind::from_name(s)
        .with_context(|| format!("unknown header kind `{s}` (sliced, transit, path-id)"))
}

/// `--mode` for the sliced kind (None: the kind's default; other kinds reject it).
fn parse_mode(kind: Kind, mode: Option<&str>) -> Result<Option<Mode>> {
    match mode {
        None => Ok(None),
        Some(m) if kind == Kind::Sliced => Mode::from_name(m)
            .map(Some)
            .with_context(|| format!("unknown mode `{m}` (sliced, flat, srcdst, dst)")),
        Some(_) => bail!("--mode applies only to --kind sliced"),
    }
}

struct Clock {
    verbose: bool,
    t0: Instant,
}

impl Clock {
    fn phase(&mut self, what: &str) {
        if self.verbose {
            eprintln!("[{:>8.3}s] {what}", self.t0.elapsed().as_secs_f64());
        }
    }
}

fn build(spec: &str, clock: &mut Clock) -> Result<Topology> {
    clock.phase("building topology");
    let t = topology::build_str(spec)?;
    clock.phase(&format!(
        "topology built: {} switches, {} hosts",
        t.switches.len(),
        t.hosts.len()
    ));
    Ok(t)
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let mut clock = Clock {
        verbose: cli.verbose,
        t0: Instant::now(),
    };
    match cli.cmd {
        Cmd::Fabric { daemon, json, cmd } => {
            let daemon = match daemon {
                Some(d) => d,
                None => canopy_proto::control::find_daemon(
                    Path::new(canopy_proto::control::DEFAULT_CONTROL),
                    Path::new(canopy_proto::control::TESTBED_STATE_ROOT),
                )?,
            };
            return fabric(&daemon, json, cmd);
        }
        Cmd::Families => {
            for (name, what, example) in topology::FAMILIES {
                outln!(
                    "{name:<16} {what}\n{:<16} e.g. canopyctl topo '{example}' --summary",
                    ""
                );
            }
        }
        Cmd::Topo {
            spec,
            summary,
            list,
        } => {
            let t = build(&spec, &mut clock)?;
            if list {
                print_list(&t);
            } else {
                let _ = summary; // the summary is the default view
                print_topo_summary(&t);
            }
        }
        Cmd::Address { spec, hosts } => {
            let t = build(&spec, &mut clock)?;
            for (i, h) in hosts.iter().enumerate() {
                let id = topology::parse_host(&t, h)?;
                if i > 0 {
                    outln!();
                }
                for (k, v) in topology::describe_host(&t, id) {
                    outln!("{k:<14} {v}");
                }
            }
        }
        Cmd::Header(a) => header(a, &mut clock)?,
        Cmd::Tables(a) => tables(a, &mut clock)?,
        Cmd::P4Entries(a) => p4_entries(a, &mut clock)?,
        Cmd::P4TnaEntries { dir, check } => {
            let d = dir.display();
            if check {
                let n = p4_tna::const_entries::check(&dir)?;
                outln!("{d}: the {n} files are the generated ones");
            } else {
                let n = p4_tna::const_entries::write(&dir)?;
                outln!("{d}: wrote {n} files");
            }
        }
        Cmd::Check(a) => check(a, &mut clock)?,
        Cmd::Sim(a) => sim(a, &mut clock)?,
    }
    Ok(())
}

fn print_topo_summary(t: &Topology) {
    let mut by_level: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
    for s in &t.switches {
        let e = by_level.entry(s.level).or_default();
        e.0 += 1;
        e.1 += s.ports.len() as u64;
    }
    let host_ports: u64 = t.hosts.iter().map(|h| h.ports.len() as u64).sum();
    outln!("topology   {}", t.spec);
    outln!("switches   {}", t.switches.len());
    outln!(
        "ports      {} (switch ports; {} host ports)",
        t.port_count(),
        host_ports
    );
    outln!("links      {}", t.link_count());
    outln!("hosts      {}", t.hosts.len());
    outln!("levels     {}", t.levels());
    for (l, (n, p)) in &by_level {
        outln!("  level {l:<3} {n:>9} switches {p:>11} ports");
    }
    if let Some(z) = &t.znode {
        outln!(
            "znode      z = {:?}, m = {} (sliced-flit addressing)",
            z.z,
            z.m
        );
    }
    let kinds: Vec<&str> = kinds::kinds_for(t).iter().map(|k| k.name()).collect();
    outln!(
        "kinds      {}",
        if kinds.is_empty() {
            "-".to_string()
        } else {
            kinds.join(", ")
        }
    );
}

fn print_list(t: &Topology) {
    for s in &t.switches {
        outln!(
            "{} (level {}, znode {}, zone {}, index {})",
            s.name,
            s.level,
            s.znode,
            s.zone,
            s.index
        );
        for (i, p) in s.ports.iter().enumerate() {
            let peer = match p.peer {
                Peer::None => "-".to_string(),
                Peer::Switch { sw, port } => format!("{}:p{port}", t.switches[sw as usize].name),
                Peer::Host { host, port } => format!("{}:p{port}", t.host_name(host)),
            };
            let role = match p.role {
                PortRole::Up => "up",
                PortRole::Down => "down",
                PortRole::Side => "side",
            };
            outln!(
                "  p{i:<3} {role:<4} {:?} label {:<4} group {:<4} -> {peer}",
                p.dir,
                p.label,
                p.group
            );
        }
    }
}

fn print_table_summary(t: &Topology, kind: Kind, s: &TableSummary) {
    outln!("topology        {}", t.spec);
    outln!("kind            {kind}");
    outln!("id bits         {}", s.id_bits);
    if !s.id_bits_detail.is_empty() {
        outln!("                {}", s.id_bits_detail);
    }
    outln!("switches        {}", s.switches);
    outln!("max entries     {} (e.g. {})", s.max_entries, s.max_switch);
    outln!("total entries   {}", s.total_entries);
    outln!("by level        level  switches  max entries  total entries");
    for (l, n, m, tot) in &s.by_level {
        outln!("                {l:>5}  {n:>8}  {m:>11}  {tot:>13}");
    }
    for n in &s.notes {
        outln!("note            {n}");
    }
}

/// `canopyctl fabric ...`: one request to canopyd's control socket.
fn fabric(socket: &std::path::Path, json: bool, cmd: FabricCmd) -> Result<()> {
    use canopy_proto::client::Endpoint;
    use canopy_proto::control::{PushResult, Request, SwitchCounters};
    use canopy_proto::snapshot::FabricSnapshot;
    use serde_json::Value;
    let req = match &cmd {
        FabricCmd::Status => Request::Status {},
        FabricCmd::Counters { switch } => Request::Counters {
            switch: switch.clone(),
        },
        FabricCmd::Push { switch } => Request::Push {
            switch: switch.clone(),
        },
        FabricCmd::Port {
            switch,
            port,
            state,
        } => Request::SetPort {
            switch: switch.clone(),
            port: *port,
            up: state == "up",
        },
    };
    let ep = Endpoint::Unix(socket.to_path_buf());
    let v = ep
        .request(&req, Duration::from_secs(90))
        .with_context(|| "is canopyd running? (--daemon gives its control socket)".to_string())?;
    let ok = v.get("ok").and_then(Value::as_bool) == Some(true);
    if json {
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        match cmd {
            FabricCmd::Status if ok => {
                let s: FabricSnapshot = serde_json::from_value(v["snapshot"].clone())
                    .context("status answer is malformed")?;
                let w: Vec<String> =
                    serde_json::from_value(v["warnings"].clone()).unwrap_or_default();
                out!("{}", canopy_proto::view::format_status(&s, &w));
            }
            FabricCmd::Counters { .. } if ok => {
                let c: Vec<SwitchCounters> = serde_json::from_value(v["switches"].clone())
                    .context("counters answer is malformed")?;
                for s in c {
                    match (&s.counters, s.up) {
                        (Some(c), true) => out!(
                            "== {}\n{}",
                            s.switch,
                            canopy_proto::mgmt::format_counters(c)
                        ),
                        _ => outln!("== {}\n(down: no counters)", s.switch),
                    }
                }
            }
            FabricCmd::Push { .. } => {
                let r: Vec<PushResult> =
                    serde_json::from_value(v["results"].clone()).unwrap_or_default();
                for p in &r {
                    match &p.error {
                        None => outln!("{:<16} pushed", p.switch),
                        Some(e) => outln!("{:<16} FAILED: {e}", p.switch),
                    }
                }
                if r.is_empty() && ok {
                    outln!("nothing to push (no switch is up)");
                }
            }
            FabricCmd::Port { .. } if ok => {
                outln!("{}", v["message"].as_str().unwrap_or("done"));
            }
            _ => {}
        }
    }
    if !ok {
        bail!(
            "canopyd: {}",
            v.get("error").and_then(Value::as_str).unwrap_or("error")
        );
    }
    Ok(())
}

/// `canopyctl sim`.
fn sim(a: SimArgs, clock: &mut Clock) -> Result<()> {
    let SimArgs {
        spec,
        kind,
        threads,
        seconds,
        frame_size,
        pattern,
        ring,
        window,
        drain_us,
        seed,
    } = a;
    let kind = parse_kind(&kind)?;
    let t = build(&spec, clock)?;
    clock.phase("building the fabric");
    let cfg = EngineConfig {
        ring_size: ring as usize,
        drain_interval: Duration::from_micros(u64::from(drain_us)),
        seed,
        ..EngineConfig::default()
    };
    let f = Fabric::with_config(&t, kind, &cfg)?;
    let opts = TrafficOptions {
        threads: usize::from(threads),
        duration: Duration::from_secs_f64(seconds),
        seed,
        frame_size: usize::from(frame_size),
        window: window as usize,
    };
    outln!(
        "fabric     {} ({} switches, {} hosts), kind {kind}, {threads} thread{}",
        t.spec,
        t.switches.len(),
        t.hosts.len(),
        if threads == 1 { "" } else { "s" }
    );
    let over = if t.hosts.len() > sim::FULL_TABLE_HOSTS {
        format!(" (each host over {} random destinations)", sim::DEST_SAMPLE)
    } else {
        String::new()
    };
    outln!("traffic    {pattern}{over}, {frame_size} B frames, {seconds} s, window {window}, seed {seed}");
    clock.phase("running traffic");
    let (rep, counters) = f.run(&opts, |live| {
        // a progress line per second while the sources send
        let mut next = Duration::from_secs(1);
        let (mut last_d, mut last_t) = (0u64, Duration::ZERO);
        while next < opts.duration {
            std::thread::sleep(next.saturating_sub(live.elapsed()));
            let (sent, del) = live.progress();
            let now = live.elapsed();
            let rate = (del - last_d) as f64 / (now - last_t).as_secs_f64() / 1e6;
            eprintln!(
                "[{:>7.1} s] sent {sent}, delivered {del} ({rate:.2} Mpps over the last second)",
                now.as_secs_f64()
            );
            (last_d, last_t) = (del, now);
            next += Duration::from_secs(1);
        }
    })?;
    clock.phase("traffic done");
    outln!("sent       {}", rep.sent);
    outln!("delivered  {}", rep.delivered);
    outln!("misdelivered {}", rep.misdelivered);
    outln!("dropped    {}", rep.dropped);
    let mut by_reason = [0u64; engine::counters::N_REASONS];
    for p in counters.iter().flatten() {
        for (a, x) in by_reason.iter_mut().zip(&p.drops) {
            *a += x;
        }
    }
    for (i, n) in by_reason.iter().enumerate() {
        if *n > 0 {
            outln!("  drop     {:<20} {n}", engine::counters::reason_name(i));
        }
    }
    outln!(
        "elapsed    {:.3} s (sources {seconds} s, then drained)",
        rep.elapsed.as_secs_f64()
    );
    outln!(
        "throughput {:.3} Mpps delivered ({:.2} Gbit/s of {frame_size} B frames)",
        rep.mpps(),
        rep.mpps() * 1e6 * f64::from(frame_size) * 8.0 / 1e9
    );
    let mut bad = Vec::new();
    let mut hops = 0u64;
    for (i, c) in counters.iter().enumerate() {
        let (rx, tx, d) = engine::counters::totals(c);
        hops += rx;
        if rx != tx + d {
            bad.push(format!(
                "{}: rx {rx} != tx {tx} + dropped {d}",
                t.switches[i].name
            ));
        }
    }
    if rep.sent > 0 {
        outln!(
            "hops       {hops} switch traversals, {:.2} per frame sent",
            hops as f64 / rep.sent as f64
        );
    }
    let lost = rep.sent != rep.delivered + rep.misdelivered + rep.dropped;
    if bad.is_empty() && !lost {
        outln!(
            "conservation ok: {} switches with rx = tx + drops; sent = delivered + dropped",
            counters.len()
        );
    } else {
        for b in &bad {
            outln!("conservation FAILED at {b}");
        }
        if lost {
            outln!(
                "conservation FAILED: sent {} != delivered {} + misdelivered {} + dropped {}",
                rep.sent,
                rep.delivered,
                rep.misdelivered,
                rep.dropped
            );
        }
        bail!("frames were not conserved");
    }
    if rep.misdelivered > 0 {
        bail!("{} frames reached the wrong host", rep.misdelivered);
    }
    Ok(())
}

/// `canopyctl p4-entries`.
fn p4_entries(a: P4EntriesArgs, clock: &mut Clock) -> Result<()> {
    let P4EntriesArgs {
        spec,
        kind,
        switch,
        format,
        mode,
        p4info,
        device_id,
    } = a;
    let kind = parse_kind(&kind)?;
    let mode = parse_mode(kind, mode.as_deref())?;
    let fmt = p4::Format::from_name(&format)
        .with_context(|| format!("unknown format `{format}` (bmv2-cli, p4runtime, bfrt-python)"))?;
    let info = match (fmt, &p4info) {
        (p4::Format::P4Runtime, None) => bail!(
            "--format p4runtime needs --p4info FILE.json, the P4Info that p4c writes: {}",
            p4::P4INFO_COMMAND
        ),
        (p4::Format::P4Runtime, Some(path)) => Some(p4::P4Info::load(path)?),
        (p4::Format::Bmv2Cli | p4::Format::BfrtPython, Some(_)) => {
            bail!("--p4info is for --format p4runtime only")
        }
        (p4::Format::Bmv2Cli | p4::Format::BfrtPython, None) => None,
    };
    let t = build(&spec, clock)?;
    let sw = switch_tables(&spec, &t, kind, mode, &switch, clock)?;
    let mut ops = p4::entries(&sw)?;
    // the id hop records carry: the switch's index, as canopy-switch writes it
    // (v1model only: canopy_tna.p4 has no hop records, so no hop_cfg table)
    if fmt != p4::Format::BfrtPython {
        let id = t.switch_index(&switch).unwrap_or(0);
        ops.push(p4::hop_switch(u32::try_from(id).unwrap_or(u32::MAX)));
    }
    // the header line of the text formats: the command that regenerates them
    let banner = || {
        let m = mode
            .map(|m| format!(" --mode {}", m.name()))
            .unwrap_or_default();
        format!("# {spec} --kind {}{m} --switch {switch}", kind.name())
    };
    match (fmt, info) {
        (p4::Format::Bmv2Cli, _) => {
            outln!("{}", banner());
            out!("{}", p4::bmv2_cli(&ops));
        }
        (p4::Format::P4Runtime, Some(info)) => {
            let req = p4::p4runtime(&switch, &ops, &info, device_id)?;
            // stdout is the bare WriteRequest (a proto3 JSON parser rejects extra
            // members); the comments go to stderr
            for c in p4::comments(&ops) {
                eprintln!("# {c}");
            }
            outln!("{}", serde_json::to_string_pretty(&req)?);
        }
        (p4::Format::P4Runtime, None) => bail!("--format p4runtime needs --p4info"),
        (p4::Format::BfrtPython, _) => {
            outln!("{}", banner());
            out!("{}", p4_tna::bfrt_python(&p4_tna::entries(&sw)?));
        }
    }
    Ok(())
}

/// The tables of the switch named `name` in `t` (built from `spec`) for `kind`, or for the
/// sliced `mode`.
fn switch_tables(
    spec: &str,
    t: &Topology,
    kind: Kind,
    mode: Option<Mode>,
    name: &str,
    clock: &mut Clock,
) -> Result<SwitchTables> {
    let idx = t
        .switch_index(name)
        .with_context(|| format!("no switch named `{name}` in `{spec}`"))?;
    clock.phase("computing tables");
    let mut all = match mode {
        Some(m) => kinds::sliced::tables_mode(t, m)?,
        None => kinds::tables(t, kind)?,
    };
    if idx >= all.len() {
        bail!("no tables for switch `{name}`");
    }
    Ok(all.swap_remove(idx))
}

/// `canopyctl header`.
fn header(a: HeaderArgs, clock: &mut Clock) -> Result<()> {
    let HeaderArgs {
        spec,
        kind,
        src,
        dst,
        trace,
        seed,
        mode,
    } = a;
    let kind = parse_kind(&kind)?;
    let mode = parse_mode(kind, mode.as_deref())?;
    let t = build(&spec, clock)?;
    let (s, d, h) = kinds::header_named(&t, kind, mode, &src, &dst)?;
    outln!("{}", hex::encode(&h));
    if trace {
        let mut o = match mode {
            Some(m) => Oracle::new(&t, kinds::sliced::tables_mode(&t, m)?),
            None => Oracle::for_kind(&t, kind)?,
        };
        o.record_headers = true;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let w = o.walk_header(s, d, &h, &mut rng);
        out!("{}", w.render(&t));
        // the generic walk properties, with the mode's rule for revisiting a switch
        // (FLAT passes its ancestors once going up and once coming down)
        let revisits = mode.map_or(Revisits::Never, kinds::sliced::revisits);
        if let Err(e) = w.check_with(revisits) {
            bail!("walk failed: {e}");
        }
    }
    Ok(())
}

/// `canopyctl check`.
fn check(a: CheckArgs, clock: &mut Clock) -> Result<()> {
    let (kind, mode) = (parse_kind(&a.kind)?, a.mode.as_deref());
    let (mode, seed) = (parse_mode(kind, mode)?, a.seed);
    let t = build(&a.spec, clock)?;
    clock.phase("computing tables");
    let n = t.hosts.len() as u64;
    let all = n * n.saturating_sub(1);
    let list: Vec<(u32, u32)> = match a.pairs {
        None if all <= 100_000 => oracle::all_pairs(&t).collect(),
        None => oracle::random_pairs(&t, 10_000, seed),
        Some(p) => oracle::random_pairs(&t, p as usize, seed),
    };
    clock.phase(&format!("walking {} pairs", list.len()));
    // generic walk properties plus the kind's own predictions (exact traversal
    // counts, [Transit]'s stage and swallow counts, desired paths)
    let rep = match mode {
        Some(m) => kinds::sliced::check_pairs(&t, m, list, seed)?,
        None => kinds::check_pairs(&t, kind, list, seed)?,
    };
    outln!(
        "{}: {} pairs, {} ok, {} failed",
        t.spec,
        rep.pairs,
        rep.ok,
        rep.failed
    );
    let hist: Vec<String> = rep.hops.iter().map(|(h, c)| format!("{h}:{c}")).collect();
    outln!("switch traversals (hops:pairs): {}", hist.join(" "));
    for f in &rep.failures {
        outln!("FAIL {f}");
    }
    if rep.failed > 0 {
        bail!("{} pairs failed", rep.failed);
    }
    Ok(())
}

/// `canopyctl tables`.
fn tables(a: TablesArgs, clock: &mut Clock) -> Result<()> {
    let kind = parse_kind(&a.kind)?;
    let mode = parse_mode(kind, a.mode.as_deref())?;
    let t = build(&a.spec, clock)?;
    // the summary is the default view; --switch prints one switch's tables instead
    if let Some(name) = &a.switch {
        let sw = switch_tables(&a.spec, &t, kind, mode, name, clock)?;
        outln!("{}", serde_json::to_string_pretty(&sw)?);
    } else {
        clock.phase("computing table summary");
        let s = match mode {
            Some(m) => kinds::sliced::summary_mode(&t, m)?,
            None => kinds::summary(&t, kind)?,
        };
        clock.phase("summary done");
        print_table_summary(&t, kind, &s);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_pairs_arg(n: &str) -> Result<Option<u64>, String> {
        let cli = Cli::try_parse_from([
            "canopyctl",
            "check",
            "fat-tree:k=4",
            "-k",
            "sliced",
            "--pairs",
            n,
        ])
        .map_err(|e| e.to_string())?;
        match cli.cmd {
            Cmd::Check(a) => Ok(a.pairs),
            _ => Err("not a check".into()),
        }
    }

    #[test]
    fn pairs_out_of_range_are_refused_by_name() {
        // `--pairs 18446744073709551615` panicked (capacity overflow) and `--pairs
        // 100000000` ran for minutes; `--pairs 0` passed a check of nothing.
        assert_eq!(check_pairs_arg("10"), Ok(Some(10)));
        assert_eq!(check_pairs_arg("1000000"), Ok(Some(1_000_000)));
        for bad in ["0", "1000001", "100000000", "18446744073709551615", "x"] {
            let e = check_pairs_arg(bad).unwrap_err();
            assert!(e.contains("--pairs"), "{bad}: {e}");
        }
    }
}
