//! `canopyd`: the fabric's control daemon. It computes every switch's tables, pushes
//! them to the switches' management endpoints, keeps them current across switch
//! restarts and port failures, and serves Prometheus metrics and a control socket for
//! `canopyctl fabric`. See `docs/canopyd.md`.

use anyhow::{Context, Result};
use canopyd::config::Config;
use canopyd::control::ControlServer;
use canopyd::http::HttpServer;
use canopyd::run::Daemon;
use clap::Parser;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::process::ExitCode;
use tracing::{error, info};

/// Exit status of a configuration that does not validate.
const EXIT_CONFIG: u8 = 2;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(cli.log)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cfg = match Config::load(&cli.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("canopyd: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if cli.check {
        println!("{}", cfg.summary());
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

fn run(cfg: Config) -> Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])
        .context("cannot install the SIGTERM/SIGINT handlers")?;
    let control = cfg.control.clone();
    let metrics = cfg.metrics.clone();
    let daemon = Daemon::start(cfg).context("cannot start the daemon's threads")?;
    let _control = ControlServer::start(&control, daemon.handle())
        .with_context(|| format!("control socket {}", control.display()))?;
    info!(control = %control.display(), "control socket ready");
    let _http = match &metrics {
        Some(addr) => {
            let h = daemon.handle();
            let s = HttpServer::start(addr, std::sync::Arc::new(move || h.snapshot()))
                .with_context(|| format!("metrics address {addr} ([daemon] metrics)"))?;
            info!(
                "metrics on http://{0}/metrics (also /healthz, /readyz)",
                s.local_addr()
            );
            Some(s)
        }
        None => None,
    };
    if let Some(sig) = signals.forever().next() {
        info!(signal = sig, "stopping");
    }
    daemon.stop();
    Ok(())
}
