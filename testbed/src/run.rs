//! `canopy-testbed run`: drive traffic through a running fabric and report.
//!
//! The fabric's state file gives the hosts and the switches' management sockets; the
//! traffic spec comes from the description's `[traffic]` table with command-line
//! overrides. Every switch's counters are read before the first trial and after the last
//! (the generator waits out its grace period, so nothing is in flight), which gives the
//! per-switch conservation check (rx = tx + drops, exactly) and the per-link loads. The
//! results go to `results.json`, `report.md`, `report.html` and SVG plots
//! ([`crate::runreport`]).

use crate::error::{Result, TestbedError};
use crate::fabric::state::{state_dir, State};
use crate::linkload::{self, Snapshot};
use crate::results::{Machine, RunMeta, RunResults, SCHEMA_VERSION};
use crate::traffic::{Generator, TrafficSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Management request timeout while reading counters.
const MGMT_TIMEOUT: Duration = Duration::from_secs(5);

/// What to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Root of the state directories.
    pub state_root: PathBuf,
    /// Fabric name.
    pub name: String,
    /// This machine's part (`local` unless the fabric spans machines).
    pub machine: String,
    /// The traffic (validated again here against the hosts that are up).
    pub spec: TrafficSpec,
    /// Host positions on another machine that run `canopy-testbed agent` (round trips).
    pub remote: Vec<usize>,
    /// Report directory.
    pub out: PathBuf,
    /// The command line, for the report.
    pub command: String,
}

/// A finished run.
#[derive(Debug)]
pub struct RunOutcome {
    /// Everything measured.
    pub results: RunResults,
    /// Where the report went.
    pub written: crate::runreport::Written,
}

impl RunOutcome {
    /// No frame reached a wrong host and every switch conserved frames exactly.
    pub fn correct(&self) -> bool {
        self.results.trials.iter().all(|t| t.misdelivered == 0)
            && self.results.switches.iter().all(|s| s.conserved)
    }
}

/// The `[traffic]` table of the description `up` read (the defaults when it has none).
pub fn spec_of(state: &State) -> Result<TrafficSpec> {
    if state.desc_file.starts_with('<') {
        return Ok(TrafficSpec::default());
    }
    let desc = crate::fabric::Desc::load(Path::new(&state.desc_file))?;
    match &desc.raw.traffic {
        None => Ok(TrafficSpec::default()),
        Some(t) => t
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| TestbedError::Traffic {
                key: "[traffic]".into(),
                detail: format!("{}: {}", state.desc_file, e.message().trim()),
            }),
    }
}

/// Counters of every switch of `state` (a switch that does not answer fails the run:
/// its frames could not be accounted for).
pub fn snapshot(state: &State) -> Result<Snapshot> {
    state
        .switches
        .iter()
        .map(|s| {
            Ok((
                s.name.clone(),
                crate::mgmt::counters(&s.socket, MGMT_TIMEOUT)?,
            ))
        })
        .collect()
}

/// This machine, for the report.
pub fn machine() -> Machine {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    Machine {
        cpus,
        kernel,
        cpu_model,
        load_before: crate::cpu::loadavg(),
    }
}

/// Run the traffic `opts.spec` describes on the fabric's hosts, read the switches'
/// counters around it, write the report. `stop` (SIGINT) ends a trial early; the run
/// then fails with [`TestbedError::Interrupted`] and nothing is written.
pub fn run(opts: &RunOptions, stop: Option<Arc<AtomicBool>>) -> Result<RunOutcome> {
    let dir = state_dir(&opts.state_root, &opts.name, &opts.machine);
    let state = State::load(&dir).map_err(|e| TestbedError::Fabric {
        fabric: opts.name.clone(),
        detail: format!("no running fabric here ({e}); start it with `canopy-testbed up`"),
    })?;
    if !state.complete {
        return Err(TestbedError::Fabric {
            fabric: opts.name.clone(),
            detail: "`up` did not finish; run `canopy-testbed down` and `up` again".into(),
        });
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    opts.spec.validate(&state.hosts, cpus)?;
    let started = crate::netns::run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let machine = machine();
    let mut g = Generator::open_with_remote(&state.hosts, &opts.remote)?;
    if let Some(s) = stop {
        g.stop = s;
    }
    let before = snapshot(&state)?;
    let (trials, search) = g.run(&opts.spec)?;
    let after = snapshot(&state)?;
    let topo = canopy_control::build_str(&state.hosts.topology)
        .map_err(|e| TestbedError::Frame(format!("topology {}: {e}", state.hosts.topology)))?;
    let results = RunResults {
        schema: SCHEMA_VERSION,
        meta: RunMeta {
            command: opts.command.clone(),
            fabric: opts.name.clone(),
            topology: state.hosts.topology.clone(),
            kind: state.hosts.kind.clone(),
            target: "canopy".into(),
            hosts: state.hosts.hosts.len(),
            switches: state.switches.len(),
            pattern: opts.spec.pattern.to_string(),
            frame_len: opts.spec.frame_len(),
            started,
            machine,
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
        trials,
        search,
        switches: linkload::switch_deltas(&before, &after),
        links: linkload::link_loads(&topo, &before, &after),
    };
    let written = crate::runreport::write(&results, &opts.out)?;
    Ok(RunOutcome { results, written })
}
