//! `canopy-testbed`: software Canopy fabrics in network namespaces (`docs/testbed.md`).
//!
//! ```text
//! canopy-testbed up [FILE] [--machine M] [--switch-bin PATH]   build the fabric, wait until healthy
//! canopy-testbed status [NAME] [--json]                         per-switch health
//! canopy-testbed check [NAME]                                   one frame per ordered host pair
//! canopy-testbed down [NAME]                                    remove everything (also after a crash)
//! canopy-testbed run [NAME] [--rate R] [--search] [--out DIR]   traffic, measurement, report
//! canopy-testbed replay FILE [NAME] --from POS [--pps R]         send a capture's frames, count ours
//! canopy-testbed agent [NAME] --host POS                        reflector for round trips from another machine
//! canopy-testbed soak [NAME] [--duration 3m] [--fault-rounds N]  PDR for minutes, every frame accounted, faults
//! canopy-testbed demo                                           up, check, NDR/PDR search, report, down
//! canopy-testbed latency FILE... [--tag T]                      merge and re-query HdrHistogram latency logs
//! canopy-testbed study FILE [--out DIR] [--threads N]           a fabric study in simulated time
//! ```
//!
//! The command line is in [`cli`]; the hidden commands that print the shell completions
//! and the man pages in [`docs`].

use anyhow::{Context, Result};
use canopy_proto::logging::{self, Style};
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
mod docs;
mod fabric_cmd;
mod study_cmd;
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
    let cli = match docs::parse() {
        docs::Invocation::Cli(cli) => cli,
        docs::Invocation::Docs(d) => {
            return docs::print(d).unwrap_or_else(|e| {
                eprintln!("canopy-testbed: {e:#}");
                ExitCode::FAILURE
            })
        }
    };
    let level = tracing::level_filters::LevelFilter::INFO;
    if let Err(e) = logging::init(cli.log.as_ref(), level, Style::colour_if_terminal(false)) {
        eprintln!("canopy-testbed: {e}");
        return ExitCode::from(2);
    }
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
        Cmd::Down { name, json } => fabric_cmd::down(root, name, json),
        Cmd::Status { name, json } => fabric_cmd::status(root, name, json),
        Cmd::Drill(a) => fabric_cmd::drill(root, a),
        Cmd::Check(a) => fabric_cmd::check(root, a),
        Cmd::Run(a) => traffic_cmd::run(root, a),
        Cmd::Soak(a) => traffic_cmd::soak(root, a),
        Cmd::Compare(a) => traffic_cmd::compare(a),
        Cmd::Replay(a) => traffic_cmd::replay(root, a),
        Cmd::Agent(a) => traffic_cmd::agent(root, a),
        Cmd::Demo(a) => traffic_cmd::demo(root, a),
        Cmd::Latency(a) => traffic_cmd::latency(a),
        Cmd::Study(a) => study_cmd::study(a),
        Cmd::Export(e) => export(e),
    }
}

/// `export containerlab|dot`.
fn export(e: cli::ExportCmd) -> Result<ExitCode> {
    use canopy_testbed::export::{self, ClabOptions, DotOptions};
    use canopy_testbed::fabric::desc::Desc;
    match e {
        cli::ExportCmd::Containerlab {
            file,
            out,
            image,
            host_image,
            machine,
            wait_s,
        } => {
            let d = Desc::load(&file)?;
            let mut o = ClabOptions {
                host_image,
                machine,
                wait_s,
                ..ClabOptions::default()
            };
            if let Some(i) = image {
                o.switch_image = i;
            }
            for p in export::containerlab(&d, &o)?.write(&out)? {
                println!("{}", p.display());
            }
        }
        cli::ExportCmd::Dot {
            file,
            out,
            no_hosts,
            no_ports,
        } => {
            let d = Desc::load(&file)?;
            let text = export::dot(
                &d,
                &DotOptions {
                    hosts: !no_hosts,
                    ports: !no_ports,
                },
            );
            match out {
                Some(p) => {
                    std::fs::write(&p, text).with_context(|| format!("write {}", p.display()))?
                }
                None => print!("{text}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use crate::cli::{Cmd, DrillCmd, LinkState};
    use canopy_testbed::soak::FaultKind;
    use clap::error::ErrorKind;
    use clap::{CommandFactory, Parser};

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("canopy-testbed").chain(args.iter().copied()))
    }

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
        let mut with_docs =
            <crate::docs::Docs as clap::Subcommand>::augment_subcommands(Cli::command());
        with_docs.build();
        with_docs.debug_assert();
    }

    #[test]
    fn link_state_and_faults_are_typed() {
        let cli = parse(&["drill", "link", "sw", "2", "down"]).unwrap();
        assert!(matches!(
            cli.cmd,
            Cmd::Drill(crate::cli::DrillArgs {
                what: DrillCmd::Link {
                    state: LinkState::Down,
                    port: 2,
                    ..
                },
                ..
            })
        ));
        let e = parse(&["drill", "link", "sw", "2", "sideways"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("[possible values: up, down]"), "{e}");
        let faults = |args: &[&str]| match parse(args).map(|c| c.cmd) {
            Ok(Cmd::Soak(s)) => Ok(s.faults),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        };
        assert_eq!(faults(&["soak"]).unwrap(), FaultKind::ALL.to_vec());
        assert_eq!(
            faults(&["soak", "--faults", "tx-fill,link-flap"]).unwrap(),
            [FaultKind::TxFill, FaultKind::LinkFlap]
        );
        let e = faults(&["soak", "--faults", "link-flap,meteor"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        let msg = e.to_string();
        assert!(
            msg.contains("[possible values: link-flap, switch-kill, daemon-kill, tx-fill]"),
            "{msg}"
        );
    }

    #[test]
    fn log_takes_a_filter_and_refuses_a_bad_one() {
        let cli = parse(&["--log", "warn,canopy_testbed=debug", "status"]).unwrap();
        assert_eq!(
            cli.log.as_ref().map(|f| f.as_str()),
            Some("warn,canopy_testbed=debug")
        );
        assert_eq!(parse(&["status"]).unwrap().log, None);
        let e = parse(&["status", "--log", "canopy_testbed=chatty"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("canopy_testbed=chatty"), "{e}");
    }

    /// Every command's summary (its `-h` line) is one short sentence; the details are
    /// in its long help.
    #[test]
    fn summaries_are_one_sentence() {
        let mut cmd = Cli::command();
        cmd.build();
        canopy_control::cli_docs::check_one_sentence_summaries(&cmd, "canopy-testbed")
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
