//! The traffic subcommands: `run`, `soak`, `compare`, `replay`, `agent`, `demo` (up,
//! check, search, report, down in one) and `latency` (HdrHistogram logs merged).

use crate::cli::parse_duration;
use crate::cli::{
    AgentArgs, CompareArgs, DemoArgs, LatencyArgs, ReplayArgs, RunArgs, SoakArgs, TrafficArgs,
};
use crate::{command_line, interrupt_flag, stdout_failed};
use anyhow::{bail, Context, Result};
use canopy_testbed::fabric::{self, Desc, UpOptions};
use canopy_testbed::traffic::{Pattern, Rate, TrafficSpec};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The state of fabric `name`'s part on `machine`.
fn state_of(root: &Path, name: &str, machine: &str) -> Result<fabric::State> {
    let dir = fabric::state::state_dir(root, name, machine);
    fabric::State::load(&dir)
        .with_context(|| format!("fabric {name} is not up on machine {machine}"))
}

/// `run`: traffic on a running fabric, the report and the summary.
pub fn run(root: &Path, a: RunArgs) -> Result<ExitCode> {
    let RunArgs {
        name,
        machine,
        remote,
        out,
        traffic,
    } = a;
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    if !run_traffic(
        root,
        &name,
        &machine,
        remote,
        out,
        &traffic,
        interrupt_flag()?,
    )? {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `soak`: the PDR for minutes, every frame accounted for, faults in rounds.
pub fn soak(root: &Path, a: SoakArgs) -> Result<ExitCode> {
    let SoakArgs {
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
    } = a;
    use canopy_testbed::soak::{self, FaultPlan, RateChoice, SoakOptions};
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
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
    let state = state_of(root, &name, &machine)?;
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
        state_root: root.to_path_buf(),
        name,
        machine,
        spec,
        rate,
        load,
        duration_s: duration,
        bin_ms,
        faults: FaultPlan {
            rounds: fault_rounds,
            kinds: faults,
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
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `compare`: several runs side by side.
pub fn compare(a: CompareArgs) -> Result<ExitCode> {
    let CompareArgs { runs, out } = a;
    let written = canopy_testbed::report::compare::compare(&runs, &out)?;
    for w in written {
        outln!("{}", w.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `replay`: a capture file's (pcap or pcapng) frames out of one host, counted like a trial.
pub fn replay(root: &Path, a: ReplayArgs) -> Result<ExitCode> {
    let ReplayArgs {
        name,
        file,
        machine,
        from,
        pps,
        out,
    } = a;
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    if let Some(p) = pps {
        if !(p.is_finite() && p > 0.0) {
            bail!("--pps must be a positive rate, not {p}");
        }
    }
    let opts = canopy_testbed::run::ReplayOptions {
        state_root: root.to_path_buf(),
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
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `agent`: reflect a host's frames until Ctrl-C.
pub fn agent(root: &Path, a: AgentArgs) -> Result<ExitCode> {
    let AgentArgs {
        name,
        machine,
        host,
    } = a;
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    let state = state_of(root, &name, &machine)?;
    let mut r = canopy_testbed::traffic::Reflector::open(&state.hosts, host)?;
    eprintln!("reflecting for host position {host} of fabric {name}; Ctrl-C stops");
    let stop = interrupt_flag()?;
    let st = r.run(&stop)?;
    outln!("reflected {} frames, ignored {}", st.reflected, st.ignored);
    Ok(ExitCode::SUCCESS)
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
    let state = state_of(root, name, machine)?;
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

/// `demo`: up, check, search, report, down.
pub fn demo(root: &Path, a: DemoArgs) -> Result<ExitCode> {
    let DemoArgs {
        file,
        out,
        switch_bin,
        keep,
        traffic,
    } = a;
    let traffic = &traffic;
    let desc = match &file {
        Some(f) => Desc::load(f)?,
        // a measurement: the shared host busy-polls on a CPU of its own when the
        // machine has one to give, the generator gets the others
        None => {
            let cpus = fabric::desc::machine_cpus().len();
            let polling = if cpus >= 2 { "busy" } else { "adaptive" };
            Desc::parse(
                "<demo defaults>",
                &format!("name = \"demo\"\npolling = \"{polling}\"\n"),
            )?
        }
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
        // 1-s search trials, the rates found confirmed over 5 s
        t.confirm_s = Some(5.0);
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
        true => Ok(ExitCode::SUCCESS),
        false => Ok(ExitCode::FAILURE),
    }
}

/// `latency --json`: one tag's merged histogram.
#[derive(serde::Serialize)]
struct TagLatency<'a> {
    /// The tag (empty: untagged).
    tag: &'a str,
    /// Interval histograms merged.
    intervals: usize,
    /// Frames recorded.
    count: u64,
    /// Percentiles in nanoseconds.
    min_ns: u64,
    mean_ns: f64,
    p50_ns: u64,
    p90_ns: u64,
    p99_ns: u64,
    p999_ns: u64,
    max_ns: u64,
}

/// `latency`: the histograms of interval logs, merged per tag across the files (in the
/// order each tag first appears), with their percentiles in µs (in ns with `--json`).
pub fn latency(a: LatencyArgs) -> Result<ExitCode> {
    use canopy_testbed::report::{hlog, latency};
    let mut entries = Vec::new();
    for f in &a.files {
        let text = std::fs::read_to_string(f).with_context(|| format!("read {}", f.display()))?;
        let e = hlog::read_log(&text).with_context(|| f.display().to_string())?;
        entries.extend(e);
    }
    let mut tags: Vec<&str> = Vec::new();
    for e in &entries {
        if !tags.contains(&e.tag.as_str()) && a.tag.as_deref().is_none_or(|t| t == e.tag) {
            tags.push(&e.tag);
        }
    }
    if tags.is_empty() {
        bail!(
            "no histogram{} in {} file(s)",
            a.tag
                .as_deref()
                .map_or(String::new(), |t| format!(" tagged `{t}`")),
            a.files.len()
        );
    }
    let mut rows = Vec::new();
    for t in tags {
        let h = hlog::merge(&entries, Some(t))?;
        let l = canopy_testbed::traffic::rx::latency_summary(&h);
        let n = entries.iter().filter(|e| e.tag == t).count();
        rows.push((t, n, l));
    }
    if a.json {
        let tags: Vec<TagLatency> = rows
            .iter()
            .map(|(t, n, l)| TagLatency {
                tag: t,
                intervals: *n,
                count: l.count,
                min_ns: l.min_ns,
                mean_ns: l.mean_ns,
                p50_ns: l.p50_ns,
                p90_ns: l.p90_ns,
                p99_ns: l.p99_ns,
                p999_ns: l.p999_ns,
                max_ns: l.max_ns,
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&tags)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "tag",
        "intervals",
        "count",
        "min µs",
        "p50 µs",
        "p90 µs",
        "p99 µs",
        "p99.9 µs",
        "max µs"
    );
    for (t, n, l) in rows {
        let cells: Vec<String> = latency::cells(&l)
            .iter()
            .map(|c| format!("{c:>10}"))
            .collect();
        let name = if t.is_empty() { "(untagged)" } else { t };
        outln!("{name:<16} {n:>9} {:>10} {}", l.count, cells.join(" "));
    }
    Ok(ExitCode::SUCCESS)
}
