//! `canopyd`: the fabric's control daemon. It computes every switch's tables, pushes
//! them to the switches' management endpoints, keeps them current across switch
//! restarts and port failures, and serves Prometheus metrics and a control socket for
//! `canopyctl fabric`. See `docs/canopyd.md`.

use anyhow::{bail, Context, Result};
use canopy_privs::CapSet;
use canopyd::config::{Config, RunAs};
use canopyd::control::ControlSocket;
use canopyd::http::{HttpListener, Limits};
use canopyd::notify::Notifier;
use canopyd::run::Daemon;
use clap::Parser;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::process::ExitCode;
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
    #[arg(long, short)]
    config: PathBuf,
    /// Validate the configuration (and compute every table), print a summary, exit.
    #[arg(long)]
    check: bool,
    /// Log level: error, warn, info, debug, trace.
    #[arg(long, default_value = "info")]
    log: tracing::Level,
    /// Run as this user once the control socket and the metrics address are bound
    /// (overrides [daemon] user; start as root).
    #[arg(long)]
    user: Option<String>,
    /// With --user (or [daemon] user): run with this group (overrides [daemon] group).
    #[arg(long)]
    group: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(cli.log)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
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
