//! `canopyctl`: offline tool for Canopy fabrics: topologies, addresses, headers,
//! per-switch tables, the routing oracle, and the whole fabric simulated in one process.
//! The command line is in [`cli`]; the results, printed as text or with `--json` as JSON,
//! in [`json`]; the hidden commands that print the completions and the man pages in
//! [`docs`].

mod cli;
mod docs;
mod json;

use anyhow::{bail, Context, Result};
use canopy_control::kinds::{self, TableSummary};
use canopy_control::oracle::{self, Oracle, Revisits};
use canopy_control::p4::{self, tna as p4_tna};
use canopy_control::sim::{self, Fabric, TrafficOptions};
use canopy_control::spec::Spec;
use canopy_control::topology::{self, PortRole, Topology};
use canopy_dataplane::engine::{self, EngineConfig};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use cli::{CheckArgs, Cmd, FabricCmd, HeaderArgs, Names, P4EntriesArgs, PortState};
use cli::{SimArgs, TablesArgs};
use rand::SeedableRng;
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

/// `--json`: `v` as pretty JSON on stdout, with a final newline.
fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    use std::io::Write as _;
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    match serde_json::to_writer_pretty(&mut w, v) {
        Ok(()) => {}
        Err(e) if e.is_io() => stdout_failed(e.into()),
        Err(e) => return Err(e.into()),
    }
    if let Err(e) = writeln!(w).and_then(|()| w.flush()) {
        stdout_failed(e)
    }
    Ok(())
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
    let cli = match docs::parse() {
        docs::Invocation::Cli(cli) => cli,
        docs::Invocation::Docs(d) => return docs::print(d),
    };
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
        Cmd::Families { json } => families(json)?,
        Cmd::Topo {
            spec,
            summary,
            list,
            json,
        } => {
            let t = build(&spec, &mut clock)?;
            let _ = summary; // the summary is the default view
            match (list, json) {
                (true, true) => print_json(&json::switches(&t).collect::<Vec<_>>())?,
                (true, false) => print_list(&t),
                (false, true) => print_json(&json::TopoSummary::new(&t))?,
                (false, false) => print_topo_summary(&json::TopoSummary::new(&t)),
            }
        }
        Cmd::Address { spec, hosts, json } => {
            let t = build(&spec, &mut clock)?;
            let hosts = hosts
                .iter()
                .map(|h| Ok(json::HostAddresses::new(&t, topology::parse_host(&t, h)?)))
                .collect::<Result<Vec<_>>>()?;
            if json {
                print_json(&hosts)?;
            } else {
                for (i, h) in hosts.iter().enumerate() {
                    if i > 0 {
                        outln!();
                    }
                    outln!("{:<14} {}", "host", h.host);
                    outln!("{:<14} {}", "index", h.index);
                    for r in &h.rows {
                        outln!("{:<14} {}", r.name, r.value);
                    }
                }
            }
        }
        Cmd::Header(a) => header(a, &mut clock)?,
        Cmd::Tables(a) => tables(a, &mut clock)?,
        Cmd::P4Entries(a) => p4_entries(a, &mut clock)?,
        Cmd::P4info => {
            let info = p4::P4Info::from(&p4::program_p4info());
            outln!("{}", serde_json::to_string_pretty(&info)?);
        }
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

/// `canopyctl families`.
fn families(json: bool) -> Result<()> {
    let all = json::families();
    if json {
        return print_json(&all);
    }
    for f in all {
        outln!(
            "{:<16} {}\n{:<16} e.g. canopyctl topo '{}' --summary",
            f.name,
            f.description,
            "",
            f.example
        );
    }
    Ok(())
}

fn print_topo_summary(s: &json::TopoSummary) {
    outln!("topology   {}", s.topology);
    outln!("switches   {}", s.switches);
    outln!(
        "ports      {} (switch ports; {} host ports)",
        s.ports,
        s.host_ports
    );
    outln!("links      {}", s.links);
    outln!("hosts      {}", s.hosts);
    outln!("levels     {}", s.levels);
    for l in &s.by_level {
        outln!(
            "  level {:<3} {:>9} switches {:>11} ports",
            l.level,
            l.switches,
            l.ports
        );
    }
    if let Some(z) = &s.znode {
        outln!(
            "znode      z = {:?}, m = {} (sliced-flit addressing)",
            z.z,
            z.m
        );
    }
    let kinds: Vec<&str> = s.kinds.iter().map(|k| k.name()).collect();
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
    // switch by switch, so a large fabric's list starts at once
    for s in json::switches(t) {
        outln!(
            "{} (level {}, znode {}, zone {}, index {})",
            s.name,
            s.level,
            s.znode,
            s.zone,
            s.zone_index
        );
        for p in &s.ports {
            let peer = p
                .peer
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.text());
            let role = match p.role {
                PortRole::Up => "up",
                PortRole::Down => "down",
                PortRole::Side => "side",
            };
            outln!(
                "  p{:<3} {role:<4} {:?} label {:<4} group {:<4} -> {peer}",
                p.port,
                p.dir,
                p.label,
                p.group
            );
        }
    }
}

fn print_table_summary(spec: &Spec, kind: Kind, s: &TableSummary) {
    outln!("topology        {spec}");
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
            up: *state == PortState::Up,
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
        json,
    } = a;
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
    let sampled = (t.hosts.len() > sim::FULL_TABLE_HOSTS).then_some(sim::DEST_SAMPLE);
    // what runs: on stdout before the results, or on stderr beside the progress with --json
    let intro = [
        format!(
            "fabric     {} ({} switches, {} hosts), kind {kind}, {threads} thread{}",
            t.spec,
            t.switches.len(),
            t.hosts.len(),
            if threads == 1 { "" } else { "s" }
        ),
        format!(
            "traffic    {}{}, {frame_size} B frames, {seconds} s, window {window}, seed {seed}",
            pattern.name(),
            sampled
                .map(|n| format!(" (each host over {n} random destinations)"))
                .unwrap_or_default()
        ),
    ];
    for line in &intro {
        if json {
            eprintln!("{line}");
        } else {
            outln!("{line}");
        }
    }
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
    let mut by_reason = [0u64; engine::counters::N_REASONS];
    for p in counters.iter().flatten() {
        for (a, x) in by_reason.iter_mut().zip(&p.drops) {
            *a += x;
        }
    }
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
    let lost = (rep.sent != rep.delivered + rep.misdelivered + rep.dropped).then(|| {
        format!(
            "sent {} != delivered {} + misdelivered {} + dropped {}",
            rep.sent, rep.delivered, rep.misdelivered, rep.dropped
        )
    });
    let r = json::SimReport {
        topology: t.spec.to_string(),
        switches: t.switches.len(),
        hosts: t.hosts.len(),
        kind,
        threads,
        pattern: pattern.name(),
        destinations_per_host: sampled,
        frame_size,
        seconds,
        window,
        ring,
        drain_us,
        seed,
        traffic: &rep,
        drops: (by_reason.iter().enumerate())
            .filter(|&(_, &frames)| frames > 0)
            .map(|(i, &frames)| json::DropCount {
                reason: engine::counters::reason_name(i),
                frames,
            })
            .collect(),
        mpps: rep.mpps(),
        gbit_per_s: rep.mpps() * 1e6 * f64::from(frame_size) * 8.0 / 1e9,
        switch_traversals: hops,
        traversals_per_frame: (rep.sent > 0).then(|| hops as f64 / rep.sent as f64),
        conserved: bad.is_empty() && lost.is_none(),
        conservation_failures: bad.iter().chain(&lost).cloned().collect(),
    };
    if json {
        print_json(&r)?;
    } else {
        print_sim(&r, counters.len(), &bad, lost.as_deref());
    }
    if !r.conserved {
        bail!("frames were not conserved");
    }
    if rep.misdelivered > 0 {
        bail!("{} frames reached the wrong host", rep.misdelivered);
    }
    Ok(())
}

/// The text view of `sim`'s results: `bad` are the switches that did not conserve,
/// `lost` the frames that are neither delivered nor dropped.
fn print_sim(r: &json::SimReport, switches: usize, bad: &[String], lost: Option<&str>) {
    outln!("sent       {}", r.traffic.sent);
    outln!("delivered  {}", r.traffic.delivered);
    outln!("misdelivered {}", r.traffic.misdelivered);
    outln!("dropped    {}", r.traffic.dropped);
    for d in &r.drops {
        outln!("  drop     {:<20} {}", d.reason, d.frames);
    }
    outln!(
        "elapsed    {:.3} s (sources {} s, then drained)",
        r.traffic.elapsed.as_secs_f64(),
        r.seconds
    );
    outln!(
        "throughput {:.3} Mpps delivered ({:.2} Gbit/s of {} B frames)",
        r.mpps,
        r.gbit_per_s,
        r.frame_size
    );
    if let Some(per) = r.traversals_per_frame {
        outln!(
            "hops       {} switch traversals, {per:.2} per frame sent",
            r.switch_traversals
        );
    }
    if r.conserved {
        outln!(
            "conservation ok: {switches} switches with rx = tx + drops; sent = delivered + dropped"
        );
    }
    for b in bad {
        outln!("conservation FAILED at {b}");
    }
    if let Some(l) = lost {
        outln!("conservation FAILED: {l}");
    }
}

/// `canopyctl p4-entries`.
fn p4_entries(a: P4EntriesArgs, clock: &mut Clock) -> Result<()> {
    let P4EntriesArgs {
        spec,
        kind,
        switch,
        format: fmt,
        mode,
        p4info,
        device_id,
    } = a;
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
    let mut all = kinds::Addressing { kind, mode }.tables(t)?;
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
        json,
    } = a;
    let t = build(&spec, clock)?;
    let (s, d, h) = kinds::header_named(&t, kind, mode, &src, &dst)?;
    if !json {
        outln!("{}", hex::encode(&h));
    }
    let mut walked = None;
    if trace {
        let mut o = match mode {
            Some(m) => Oracle::new(&t, kinds::sliced::tables_mode(&t, m)?),
            None => Oracle::for_kind(&t, kind)?,
        };
        o.record_headers = true;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let w = o.walk_header(s, d, &h, &mut rng);
        if !json {
            out!("{}", w.render(&t));
        }
        // the generic walk properties, with the mode's rule for revisiting a switch
        // (FLAT passes its ancestors once going up and once coming down)
        let revisits = mode.map_or(Revisits::Never, kinds::sliced::revisits);
        let checked = w.check_with(revisits).map_err(|e| e.to_string());
        walked = Some((w, checked));
    }
    if json {
        print_json(&json::HeaderReport {
            topology: t.spec.to_string(),
            kind,
            mode: json::mode_name(mode),
            src: json::HostRef::new(&t, s),
            dst: json::HostRef::new(&t, d),
            header: hex::encode(&h),
            trace: (walked.as_ref()).map(|(w, c)| json::Trace::new(&t, w, c.clone())),
        })?;
    }
    if let Some((_, Err(e))) = walked {
        bail!("walk failed: {e}");
    }
    Ok(())
}

/// `canopyctl check`.
fn check(a: CheckArgs, clock: &mut Clock) -> Result<()> {
    let CheckArgs {
        spec,
        kind,
        pairs,
        seed,
        mode,
        json,
    } = a;
    let t = build(&spec, clock)?;
    clock.phase("computing tables");
    let n = t.hosts.len() as u64;
    let all = n * n.saturating_sub(1);
    let list: Vec<(u32, u32)> = match pairs {
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
    if json {
        print_json(&json::CheckReport {
            topology: t.spec.to_string(),
            kind,
            mode: json::mode_name(mode),
            seed,
            report: &rep,
        })?;
    } else {
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
    }
    if rep.failed > 0 {
        bail!("{} pairs failed", rep.failed);
    }
    Ok(())
}

/// `canopyctl tables`.
fn tables(a: TablesArgs, clock: &mut Clock) -> Result<()> {
    // the summary is the default view; --switch prints one switch's tables (JSON) instead
    let (spec, s) = match (&a.switch, a.mode) {
        (None, None) => {
            let spec: Spec = a.spec.parse().map_err(topology::TopoError::from)?;
            clock.phase("computing table summary from the spec");
            match kinds::summary_from_spec(&spec, a.kind)? {
                Some(s) => (spec, s),
                None => {
                    let t = build(&a.spec, clock)?;
                    clock.phase("computing table summary");
                    (spec, kinds::summary(&t, a.kind)?)
                }
            }
        }
        (Some(name), _) => {
            let t = build(&a.spec, clock)?;
            let sw = switch_tables(&a.spec, &t, a.kind, a.mode, name, clock)?;
            return print_json(&sw);
        }
        (None, Some(m)) => {
            let t = build(&a.spec, clock)?;
            clock.phase("computing table summary");
            (t.spec.clone(), kinds::sliced::summary_mode(&t, m)?)
        }
    };
    clock.phase("summary done");
    if a.json {
        print_json(&json::TablesReport {
            topology: spec.to_string(),
            kind: a.kind,
            mode: json::mode_name(a.mode),
            summary: &s,
        })
    } else {
        print_table_summary(&spec, a.kind, &s);
        Ok(())
    }
}
