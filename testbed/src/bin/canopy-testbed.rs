//! `canopy-testbed`: software Canopy fabrics in network namespaces (`docs/testbed.md`).
//!
//! ```text
//! canopy-testbed up [FILE] [--machine M] [--switch-bin PATH]   build the fabric, wait until healthy
//! canopy-testbed status [NAME]                                  per-switch health
//! canopy-testbed check [NAME]                                   one frame per ordered host pair
//! canopy-testbed down [NAME]                                    remove everything (also after a crash)
//! ```

use anyhow::{bail, Context, Result};
use canopy_testbed::fabric::{self, state::DEFAULT_ROOT, Desc, UpOptions};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(cli.log)
        .with_writer(std::io::stderr)
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

fn run(cli: Cli) -> Result<std::process::ExitCode> {
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
                println!(
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
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                signal_hook::flag::register(sig, stop.clone()).context("install signal handler")?;
            }
            let opts = UpOptions {
                state_root: root,
                machine,
                switch_bin,
                interrupt: Some(stop),
            };
            let sum = fabric::up(&desc, &opts, &progress)?;
            println!("{sum}");
        }
        Cmd::Down { name } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let sum = fabric::down(&root, &name)?;
            println!("fabric {name}: {sum}");
        }
        Cmd::Status { name } => {
            let name = fabric::ops::resolve_name(&root, name.as_deref())?;
            let all = fabric::status(&root, &name)?;
            let mut bad = 0;
            println!(
                "{:<16} {:<8} {:>8} {:<8} {:<7} ports",
                "switch", "machine", "pid", "tables", "health"
            );
            for s in &all {
                match &s.health {
                    Ok(h) => {
                        let up = h.ports.iter().filter(|p| p.link && p.admin).count();
                        let ok = h.tables_loaded && up == h.ports.len();
                        bad += usize::from(!ok);
                        println!(
                            "{:<16} {:<8} {:>8} {:<8} {:<7} {up}/{} up, {} worker(s) {}, uptime {:.0} s",
                            s.switch.name,
                            s.machine,
                            h.pid,
                            if h.tables_loaded { "loaded" } else { "none" },
                            if ok { "ok" } else { "DEGRADED" },
                            h.ports.len(),
                            h.workers,
                            h.mode,
                            h.uptime_s
                        );
                    }
                    Err(e) => {
                        bad += 1;
                        println!(
                            "{:<16} {:<8} {:>8} {:<8} {:<7} {e}",
                            s.switch.name, s.machine, s.switch.pid, "?", "DOWN"
                        );
                    }
                }
            }
            println!("{} switch(es), {} healthy", all.len(), all.len() - bad);
            if bad > 0 {
                return Ok(std::process::ExitCode::FAILURE);
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
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!("{r}");
            }
            if !r.passed() {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}
