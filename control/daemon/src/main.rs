//! `canopyd`: the fabric's control daemon. It computes every switch's tables, pushes
//! them to the switches' management endpoints, keeps them current across switch
//! restarts and port failures, and serves Prometheus metrics and a control socket for
//! `canopyctl fabric`. See `docs/canopyd.md`.

use anyhow::{bail, Context, Result};
use canopy_privs::CapSet;
use canopy_proto::logging::{self, Filter, Style};
use canopyd::config::{Config, RunAs};
use canopyd::control::ControlSocket;
use canopyd::http::{HttpListener, Limits};
use canopyd::notify::Notifier;
use canopyd::run::Daemon;
use clap::{Args, CommandFactory, FromArgMatches, Parser};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::process::ExitCode;
use tracing::level_filters::LevelFilter;
use tracing::{error, info, warn};

/// Exit status of a configuration that does not validate.
const EXIT_CONFIG: u8 = 2;
/// The settings that make canopyd change user, as the uid-0 warning names them.
const ROOT_KEY: &str = "[daemon] user (or --user)";

#[derive(Parser)]
#[command(
    name = "canopyd",
    version,
    about = "Canopy's fabric control daemon: pushes tables, follows failures, serves /metrics",
    after_help = "Exit status: 0 stopped by SIGTERM/SIGINT (or --check passed); 1 runtime error \
                  (the control socket or the metrics address cannot be used); 2 invalid \
                  configuration or usage. Configuration: docs/canopyd.md."
)]
struct Cli {
    /// The daemon's configuration (TOML).
    ///
    /// The fabric, the switches' management endpoints, the control socket, the metrics
    /// address and the timings (docs/canopyd.md).
    #[arg(long, short)]
    config: PathBuf,
    /// Validate the configuration, print a summary and exit.
    ///
    /// Every switch's tables are computed, as at a start; nothing is bound or pushed.
    #[arg(long)]
    check: bool,
    /// Log filter: a level or RUST_LOG-style directives [default: $RUST_LOG, else info].
    ///
    /// A level (error, warn, info, debug, trace, off), or directives separated by commas,
    /// each a level or TARGET=LEVEL, e.g. `info,canopyd=debug` (the daemon's own
    /// decisions at debug, the rest at info). A filter that does not parse exits 2.
    #[arg(long, value_name = "FILTER")]
    log: Option<Filter>,
    /// Run as this user (overrides [daemon] user; start as root).
    ///
    /// canopyd changes to it once the control socket and the metrics address are bound.
    #[arg(long)]
    user: Option<String>,
    /// With --user (or [daemon] user): run with this group (overrides [daemon] group).
    #[arg(long)]
    group: Option<String>,
}

// The hidden flags that print the shell completions and the man page, from the
// definitions above (`packaging/completions-man/generate` runs them). Kept out of `Cli`
// so that neither the completions nor the page offer them.
#[derive(Args)]
struct Docs {
    /// Print the completion script of a shell.
    #[arg(long, value_name = "SHELL", hide = true, exclusive = true)]
    completions: Option<canopy_control::cli_docs::Shell>,
    /// Print the man page, or write it into DIR as canopyd.1.
    #[arg(long, value_name = "DIR", num_args = 0..=1, hide = true, exclusive = true)]
    man: Option<Option<PathBuf>>,
}

/// What the command line asks for.
enum Invocation {
    Cli(Cli),
    Docs(Docs),
}

/// The command line of this process: [`Cli`], or one of the [`Docs`] flags (then
/// `--config` is not needed); a usage error (exit status 2) ends the process.
fn parse() -> Invocation {
    let docs_flag = |a: &str| {
        ["--completions", "--man"].iter().any(|f| {
            a.strip_prefix(f)
                .is_some_and(|r| r.is_empty() || r.starts_with('='))
        })
    };
    if !std::env::args_os().any(|a| a.to_str().is_some_and(docs_flag)) {
        // the usage and the errors of `Cli` alone (`--config` required)
        return Invocation::Cli(Cli::parse());
    }
    let mut cmd = with_docs();
    let m = cmd.get_matches_mut();
    let r = match Docs::from_arg_matches(&m) {
        Ok(d) if d.completions.is_some() || d.man.is_some() => Ok(Invocation::Docs(d)),
        _ => Cli::from_arg_matches(&m).map(Invocation::Cli),
    };
    r.unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// [`Cli`]'s command with the [`Docs`] flags, which need no `--config`.
fn with_docs() -> clap::Command {
    Docs::augment_args(Cli::command()).mut_arg("config", |a| {
        a.required(false)
            .required_unless_present_any(["completions", "man"])
    })
}

/// Print the completions or the man page on stdout, or write the page into a directory
/// (`canopy_control::cli_docs`, as the other binaries).
fn docs(d: Docs) -> Result<()> {
    use canopy_control::cli_docs::{self, Docs as Asked};
    let mut text = Vec::new();
    if let Some(shell) = d.completions {
        text = cli_docs::completions(shell, Cli::command(), "canopyd");
    }
    if let Some(dir) = d.man {
        text.extend(cli_docs::render(
            &Asked::Man { dir },
            Cli::command(),
            "canopyd",
        )?);
    }
    use std::io::Write as _;
    std::io::stdout()
        .lock()
        .write_all(&text)
        .context("cannot write to standard output")
}

fn main() -> ExitCode {
    let cli = match parse() {
        Invocation::Cli(cli) => cli,
        Invocation::Docs(d) => {
            return match docs(d) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("canopyd: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
    };
    if let Err(e) = logging::init(
        cli.log.as_ref(),
        LevelFilter::INFO,
        Style::colour_if_terminal(true),
    ) {
        eprintln!("canopyd: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    let over = RunAs {
        user: cli.user,
        group: cli.group,
    };
    let cfg = match Config::load_as(&cli.config, over) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("canopyd: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if cli.check {
        println!("{}", cfg.summary());
        if cfg.run_as.is_none() && canopy_privs::euid() == 0 {
            println!(
                "warning: started as root, canopyd {}",
                canopy_privs::root_risk(ROOT_KEY)
            );
        }
        println!("configuration OK");
        return ExitCode::SUCCESS;
    }
    match run(cfg) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e:#}");
            eprintln!("canopyd: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Start in this order: the signal handlers, the control socket and the metrics
/// address bound, privileges dropped ([`harden`]), then the daemon's threads and the
/// servers; run until SIGTERM or SIGINT.
fn run(cfg: Config) -> Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])
        .context("cannot install the SIGTERM/SIGINT handlers")?;
    let control = cfg.control.clone();
    let socket = ControlSocket::bind(&control)
        .with_context(|| format!("control socket {}", control.display()))?;
    let metrics = match &cfg.metrics {
        Some(addr) => Some(
            HttpListener::bind(addr)
                .with_context(|| format!("metrics address {addr} ([daemon] metrics)"))?,
        ),
        None => None,
    };
    harden(&cfg, &socket)?;
    let ready_wait = cfg.ready_wait;
    let daemon = Daemon::start(cfg).context("cannot start the daemon's threads")?;
    let _control = socket
        .serve(daemon.handle())
        .with_context(|| format!("control socket {}", control.display()))?;
    info!(control = %control.display(), "control socket ready");
    let _http = match metrics {
        Some(l) => {
            let addr = l.local_addr();
            let h = daemon.handle();
            let s = l
                .serve(std::sync::Arc::new(move || h.snapshot()), Limits::default())
                .with_context(|| format!("metrics address {addr} ([daemon] metrics)"))?;
            info!("metrics on http://{addr}/metrics (also /healthz, /readyz)");
            Some(s)
        }
        None => None,
    };
    let notifier = Notifier::start(daemon.handle(), ready_wait)
        .context("cannot start the thread that notifies systemd")?;
    if let Some(sig) = signals.forever().next() {
        info!(signal = sig, "stopping");
        canopy_proto::service::stopping();
    }
    drop(notifier);
    daemon.stop();
    Ok(())
}

/// Give up every privilege once the control socket and the metrics address are bound
/// (the token files were read with the configuration) and before any other thread
/// starts: with `[daemon] user` the control socket (and the directory made for it) is
/// given to that user, then [`canopy_privs::drop_privileges`] keeps no capability.
fn harden(cfg: &Config, socket: &ControlSocket) -> Result<()> {
    if let Some(i) = &cfg.run_as {
        canopy_privs::give(i, &socket.files())?;
    }
    let d = canopy_privs::drop_privileges(cfg.run_as.as_ref(), CapSet::EMPTY)
        .context("cannot drop privileges")?;
    if d.threads > 1 {
        bail!(
            "privileges were dropped with {} other threads running, which keep theirs",
            d.threads - 1
        );
    }
    info!(
        kept = %d.kept,
        bounding = if d.bounding_dropped { "emptied" } else { "unchanged (no CAP_SETPCAP)" },
        no_new_privs = true,
        "privileges dropped: runs as {}",
        d.who()
    );
    if d.uid == 0 {
        warn!("{}", canopy_privs::root_risk(ROOT_KEY));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
        let mut cmd = with_docs();
        cmd.build();
        cmd.debug_assert();
        // the definitions the completions and the page come from have no docs flags
        assert!(Cli::command()
            .get_arguments()
            .all(|a| !["completions", "man"].contains(&a.get_id().as_str())));
    }

    #[test]
    fn log_is_a_filter() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("canopyd").chain(args.iter().copied()))
        };
        let cli = parse(&["-c", "d.toml", "--log", "info,canopyd=debug"]).unwrap();
        assert_eq!(
            cli.log.map(|f| f.to_string()).as_deref(),
            Some("info,canopyd=debug")
        );
        assert!(parse(&["-c", "d.toml"]).unwrap().log.is_none());
        let e = parse(&["-c", "d.toml", "--log", "canopyd=loud"])
            .err()
            .expect("refused");
        assert_eq!(e.exit_code(), 2);
    }
}
