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
//! canopy-testbed latency FILE... [--tag T]                      merge and re-query HdrHistogram latency logs
//! ```

use anyhow::{Context, Result};
use clap::Parser;
use cli::{Cli, Cmd};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
pub(crate) fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("canopy-testbed: cannot write to standard output: {e}");
    std::process::exit(1);
}

mod cli;
mod fabric_cmd;
mod traffic_cmd;

/// SIGINT / SIGTERM set the returned flag instead of killing the process, so what was
/// created can be removed.
pub(crate) fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, stop.clone()).context("install signal handler")?;
    }
    Ok(stop)
}

pub(crate) fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
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
        Cmd::Run(a) => Some(&a.out),
        Cmd::Compare(a) => Some(&a.out),
        Cmd::Replay(a) => Some(&a.out),
        Cmd::Soak(a) => Some(&a.out),
        Cmd::Demo(a) => Some(&a.out),
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

fn run_cmd(cli: Cli) -> Result<ExitCode> {
    let root = std::path::absolute(&cli.state_root)
        .with_context(|| format!("state root {}", cli.state_root.display()))?;
    let root = root.as_path();
    match cli.cmd {
        Cmd::Up(a) => fabric_cmd::up(root, a),
        Cmd::Down { name } => fabric_cmd::down(root, name),
        Cmd::Status { name } => fabric_cmd::status(root, name),
        Cmd::Drill(a) => fabric_cmd::drill(root, a),
        Cmd::Check(a) => fabric_cmd::check(root, a),
        Cmd::Run(a) => traffic_cmd::run(root, a),
        Cmd::Soak(a) => traffic_cmd::soak(root, a),
        Cmd::Compare(a) => traffic_cmd::compare(a),
        Cmd::Replay(a) => traffic_cmd::replay(root, a),
        Cmd::Agent(a) => traffic_cmd::agent(root, a),
        Cmd::Demo(a) => traffic_cmd::demo(root, a),
        Cmd::Latency(a) => traffic_cmd::latency(a),
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
