//! `canopy-switch`: run one Canopy switch from a TOML configuration, talk to a running
//! one over its management socket, or check a configuration. See
//! `docs/canopy-switch.md`.

use anyhow::{Context, Result};
use canopy_dataplane::engine::PollMode;
use canopy_dataplane::table::SwitchTables;
use canopy_proto::client::Endpoint;
use canopy_proto::host::{format_host, HostReport, HostRequest};
use canopy_proto::logging::{self, Filter, Style};
use canopy_proto::mgmt::{self, CountersReport, Health, Request};
use canopy_switch::config::{Config, PortSpec, TablesSource};
use canopy_switch::host::config::HostConfig;
use canopy_switch::privs::{self, Identity, PrivError};
use canopy_switch::{server, tables};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use tracing::level_filters::LevelFilter;

/// Exit status of a configuration that does not validate.
const EXIT_CONFIG: u8 = 2;

/// `--log`'s help (`run` and `host`).
const LOG_HELP: &str = "Log filter: a level (error, warn, info, debug, trace, off) or \
                        RUST_LOG-style directives such as `warn,canopy_switch=debug` \
                        [default: $RUST_LOG, else info]";

#[derive(Parser)]
#[command(
    name = "canopy-switch",
    version,
    about = "One Canopy switch: ports (AF_PACKET or in-process mem), the forwarding engine, a management socket",
    after_help = "Exit status: 0 success (run: stopped by SIGTERM/SIGINT); 1 runtime error (a port, \
                  the socket, a ctl request answered with an error); 2 invalid configuration or usage.\n\
                  The configuration schema and the management protocol: docs/canopy-switch.md."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a switch until SIGTERM or SIGINT.
    ///
    /// The whole configuration is validated (and the tables computed and checked)
    /// before any port opens. On SIGTERM or SIGINT the switch stops, prints the final
    /// counters and exits 0. Logs go to stderr; the final counter table to stdout.
    Run {
        /// The TOML configuration file ([switch], [tables], [management], [[port]]).
        #[arg(long, short)]
        config: PathBuf,
        #[arg(long, value_name = "FILTER", help = LOG_HELP)]
        log: Option<Filter>,
        /// Run as this user once the ports are open (overrides [switch] user; start as root).
        #[arg(long)]
        user: Option<String>,
        /// With --user (or [switch] user): run with this group (overrides [switch] group).
        #[arg(long)]
        group: Option<String>,
        /// Capture every port's frames into DIR (`<port>_in.pcap`, `<port>_out.pcap`),
        /// as bmv2's --pcap: overrides [capture] dir, or captures with the defaults.
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
    },
    /// Talk to a running switch over its management socket or TCP endpoint.
    Ctl {
        /// The switch's management socket ([management] socket in its configuration).
        #[arg(long, short, required_unless_present = "tcp", conflicts_with = "tcp")]
        socket: Option<PathBuf>,
        /// The switch's TCP endpoint, HOST:PORT ([management] tcp), instead of the socket;
        /// needs --token-file.
        #[arg(long, requires = "token_file")]
        tcp: Option<String>,
        /// With --tcp: a file holding the switch's token (mode 0600, as its token_file).
        #[arg(long, requires = "tcp")]
        token_file: Option<PathBuf>,
        /// Print the raw JSON response instead of text.
        #[arg(long, global = true)]
        json: bool,
        /// Seconds to wait for the response.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        #[command(subcommand)]
        req: CtlCmd,
    },
    /// Run many switches in one process (a shared host) until SIGTERM or SIGINT.
    ///
    /// The switches are polled by a fixed set of threads; each keeps its own
    /// management socket. The host file lists the switches (`[[switch]] name, config,
    /// netns`) and the threads (`[host] threads, mode, pin_cores, socket`); see
    /// docs/shared-host.md.
    Host {
        /// The host's TOML file.
        #[arg(long, short)]
        config: PathBuf,
        #[arg(long, value_name = "FILTER", help = LOG_HELP)]
        log: Option<Filter>,
        /// Validate the host file and every switch's, print what would run, open nothing.
        #[arg(long)]
        check: bool,
    },
    /// Talk to a running host over its control socket.
    HostCtl {
        /// The host's control socket (`[host] socket`).
        #[arg(long, short)]
        socket: PathBuf,
        /// Print the raw JSON response instead of text.
        #[arg(long)]
        json: bool,
        /// Seconds to wait for the response.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        #[command(subcommand)]
        req: HostCmd,
    },
    /// Validate a configuration and print what would run.
    ///
    /// The configuration is loaded as `run` loads it (tables computed and checked, the
    /// user and group looked up, the token read); no port is opened.
    CheckConfig {
        /// The TOML configuration file.
        #[arg(long, short)]
        config: PathBuf,
    },
}

/// `ctl port PORT up|down`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum PortState {
    /// The port forwards again.
    Up,
    /// The port's frames are dropped.
    Down,
}

impl std::fmt::Display for PortState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PortState::Up => "up",
            PortState::Down => "down",
        })
    }
}

use canopy_control::cli_docs::{self, Docs, Invocation};

/// Print the completions or the man page on stdout, or write the man pages.
fn docs(d: Docs) -> Result<ExitCode> {
    cli_docs::print::<Cli>(&d, "canopy-switch")
        .context("cannot write the completions or the man pages")?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand)]
enum HostCmd {
    /// List the threads and every switch with its state.
    ///
    /// The host's threads with their mode, pinning and ports per thread, then every
    /// switch: running or stopped, its ports, how often it started, its namespace and
    /// its management socket.
    Switches,
    /// Stop one switch; the others forward on.
    ///
    /// Its management socket goes away and its ports close.
    Stop {
        /// The switch's name.
        switch: String,
    },
    /// Start a stopped switch again from its configuration file.
    Start {
        /// The switch's name.
        switch: String,
    },
}

#[derive(Subcommand)]
enum CtlCmd {
    /// Show the switch's health.
    ///
    /// Uptime, ports with link and admin state, whether tables are loaded and their name.
    Health,
    /// Show the switch's counters.
    ///
    /// Per port: rx/tx packets and bytes, adaptive choices, ring occupancy, drops by reason.
    Counters,
    /// Set a port administratively up or down.
    ///
    /// Down: the port's frames are dropped (counted as port_down) until it is up again.
    Port {
        /// Port number (index in the configuration's [[port]] list).
        port: u16,
        /// The port's new admin state.
        state: PortState,
    },
    /// Replace the tables atomically with a SwitchTables JSON file.
    ///
    /// The file (`-` reads stdin) is what `canopyctl tables SPEC --kind K --switch NAME`
    /// prints; the switch validates it before the swap.
    Tables {
        /// The JSON file, or `-`.
        file: PathBuf,
    },
    /// Print the tables in use as JSON.
    DumpTables,
    /// Send frames into the switch on a mem port.
    Inject {
        /// Port number (a mem port).
        port: u16,
        /// Frames in hex.
        #[arg(required = true)]
        frames: Vec<String>,
    },
    /// Print the frames the switch sent out of a mem port.
    ///
    /// One frame a line, in hex; the frames printed are taken off the port.
    Capture {
        /// Port number (a mem port).
        port: u16,
        /// At most this many frames.
        #[arg(long)]
        max: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = match cli_docs::parse::<Cli>(|_| Ok(())) {
        Invocation::Cli(cli) => cli,
        Invocation::Docs(d) => {
            return docs(d).unwrap_or_else(|e| {
                eprintln!("canopy-switch: {e:#}");
                ExitCode::FAILURE
            })
        }
    };
    let r = match cli.cmd {
        Cmd::Run {
            config,
            log,
            user,
            group,
            pcap,
        } => run(&config, log.as_ref(), user, group, pcap),
        Cmd::CheckConfig { config } => check_config(&config),
        Cmd::Host { config, log, check } => host(&config, log.as_ref(), check),
        Cmd::HostCtl {
            socket,
            json,
            timeout,
            req,
        } => host_ctl(&socket, json, Duration::from_secs(timeout.max(1)), req),
        Cmd::Ctl {
            socket,
            tcp,
            token_file,
            json,
            timeout,
            req,
        } => {
            let to = match (socket, tcp, token_file) {
                (Some(s), _, _) => Ok(Endpoint::Unix(s)),
                (None, Some(addr), Some(f)) => canopy_proto::token::read_token_file(&f, None)
                    .map(|t| Endpoint::Tcp(addr, t))
                    .map_err(|e| anyhow::anyhow!("--token-file {e}")),
                _ => Err(anyhow::anyhow!(
                    "give --socket PATH, or --tcp HOST:PORT with --token-file PATH"
                )),
            };
            to.and_then(|to| ctl(&to, json, Duration::from_secs(timeout.max(1)), req))
        }
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("canopy-switch: {e:#}");
            ExitCode::FAILURE
        }
    }
}

type Loaded = (
    Config,
    Option<SwitchTables>,
    Option<Vec<u8>>,
    Option<Identity>,
);

/// Validate the configuration (with `--user`/`--group` over `[switch] user`/`group`),
/// look the user and group up, load its tables and read the TCP token; an error names
/// the file and the key.
fn load(path: &Path, user: Option<String>, group: Option<String>) -> Result<Loaded> {
    let mut cfg = Config::load(path)?;
    let (ukey, gkey) = (
        if user.is_some() {
            "--user"
        } else {
            "switch.user"
        },
        if group.is_some() {
            "--group"
        } else {
            "switch.group"
        },
    );
    if user.is_some() {
        cfg.switch.user = user;
    }
    if group.is_some() {
        cfg.switch.group = group;
    }
    if cfg.switch.group.is_some() && cfg.switch.user.is_none() {
        return Err(cfg
            .error(gkey, "needs a user (--user or [switch] user)")
            .into());
    }
    let id = Identity::resolve(cfg.switch.user.as_deref(), cfg.switch.group.as_deref()).map_err(
        |e| {
            let key = if matches!(e, PrivError::NoGroup(_)) {
                gkey
            } else {
                ukey
            };
            cfg.error(key, e.to_string())
        },
    )?;
    let token = cfg.read_token(id.as_ref().map(|i| i.uid))?;
    let t = tables::load_checked(&mut cfg)?;
    Ok((cfg, t, token, id))
}

/// [`load`]; `Err`: its error printed, the exit status of an invalid configuration.
fn load_or_exit(
    path: &Path,
    user: Option<String>,
    group: Option<String>,
) -> std::result::Result<Loaded, ExitCode> {
    load(path, user, group).map_err(|e| {
        eprintln!("canopy-switch: {e}");
        ExitCode::from(EXIT_CONFIG)
    })
}

/// Log to stderr through `log` (else `RUST_LOG`, else info); `false` (said on stderr)
/// when `RUST_LOG` does not parse.
fn init_log(log: Option<&Filter>) -> bool {
    let style = Style {
        target: true,
        ansi: false,
    };
    match logging::init(log, LevelFilter::INFO, style) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("canopy-switch: {e}");
            false
        }
    }
}

fn run(
    path: &Path,
    log: Option<&Filter>,
    user: Option<String>,
    group: Option<String>,
    pcap: Option<PathBuf>,
) -> Result<ExitCode> {
    if !init_log(log) {
        return Ok(ExitCode::from(EXIT_CONFIG));
    }
    let (mut cfg, t, token, id) = match load_or_exit(path, user, group) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    if let Some(dir) = pcap {
        match &mut cfg.capture {
            Some(c) => c.dir = dir,
            None => cfg.capture = Some(canopy_switch::capture::CaptureConfig::new(dir)),
        }
    }
    server::run(cfg, t, token, id)?;
    Ok(ExitCode::SUCCESS)
}

fn host(path: &Path, log: Option<&Filter>, check: bool) -> Result<ExitCode> {
    let cfg = match HostConfig::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("canopy-switch: {e}");
            return Ok(ExitCode::from(EXIT_CONFIG));
        }
    };
    if check {
        return match canopy_switch::host::check(&cfg) {
            Ok(text) => {
                print!("{text}");
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("canopy-switch: {e:#}");
                Ok(ExitCode::from(EXIT_CONFIG))
            }
        };
    }
    if !init_log(log) {
        return Ok(ExitCode::from(EXIT_CONFIG));
    }
    canopy_switch::host::run(cfg)?;
    Ok(ExitCode::SUCCESS)
}

fn host_ctl(socket: &Path, as_json: bool, timeout: Duration, cmd: HostCmd) -> Result<ExitCode> {
    let req = match cmd {
        HostCmd::Switches => HostRequest::Switches {},
        HostCmd::Stop { switch } => HostRequest::Stop { switch },
        HostCmd::Start { switch } => HostRequest::Start { switch },
    };
    let resp = Endpoint::Unix(socket.to_path_buf()).request(&req, timeout)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&resp)?);
    }
    if resp.get("ok").and_then(Value::as_bool) != Some(true) {
        if !as_json {
            let e = resp
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("(no message)");
            eprintln!("canopy-switch: the host answered: {e}");
        }
        return Ok(ExitCode::FAILURE);
    }
    if !as_json {
        let r: HostReport = serde_json::from_value(resp)?;
        print!("{}", format_host(&r));
    }
    Ok(ExitCode::SUCCESS)
}

fn check_config(path: &Path) -> Result<ExitCode> {
    let (cfg, t, _token, id) = match load_or_exit(path, None, None) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let mut o = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(o, "config     {} (valid)", path.display());
    let _ = writeln!(o, "engine     {}", engine_summary(&cfg));
    let _ = writeln!(o, "tables     {}", tables_summary(&cfg, t.as_ref()));
    let m = &cfg.management;
    let _ = writeln!(
        o,
        "management {} (mode 0600), requests ≤ {} bytes, read timeout {} ms",
        m.socket.display(),
        m.max_request,
        m.read_timeout.as_millis()
    );
    if let Some(tcp) = &m.tcp {
        let _ = writeln!(
            o,
            "tcp        {} (token from {}, at most {} connections)",
            tcp.addr,
            tcp.token_file.display(),
            mgmt::MAX_TCP_CONNS
        );
    }
    if let Some(p) = &cfg.p4runtime {
        let _ = writeln!(
            o,
            "p4runtime  {} device {}, {}",
            p.addr,
            p.device_id,
            match &p.tls {
                Some(t) => format!(
                    "mutual TLS (certificate {}, client CA {})",
                    t.cert.display(),
                    t.client_ca.display()
                ),
                None => "plaintext (loopback only)".into(),
            }
        );
    }
    let _ = writeln!(
        o,
        "privileges {}; after open keeps {}, no_new_privs",
        match &id {
            Some(i) => format!("runs as {i}"),
            None => "stays the starting user".into(),
        },
        privs::needed(&cfg.ports, cfg.switch.reopen_caps)
    );
    if id.is_none() && canopy_privs::euid() == 0 {
        let _ = writeln!(
            o,
            "warning    started as root, the switch {}",
            canopy_privs::root_risk(server::ROOT_KEY)
        );
    }
    if let Some(d) = &cfg.dpdk {
        let _ = writeln!(o, "dpdk eal   {}", d.eal_args.join(" "));
    }
    if let Some(c) = &cfg.capture {
        let _ = writeln!(o, "capture    {}", capture_summary(c));
    }
    let _ = writeln!(o, "ports      {}", cfg.ports.len());
    for (i, p) in cfg.ports.iter().enumerate() {
        let role = t
            .as_ref()
            .and_then(|t| t.ports.get(i))
            .map(|c| format!("{:?}/{:?}", c.role, c.dir).to_lowercase())
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  {i:>3}  {:<8} {:<15} {} {role}",
            p.backend(),
            p.name(),
            port_settings(p)
        );
    }
    print!("{o}");
    Ok(ExitCode::SUCCESS)
}

/// `check-config`'s capture line: where, which ports and ways, the bounds.
fn capture_summary(c: &canopy_switch::capture::CaptureConfig) -> String {
    let ports = match &c.ports {
        None => "every port".to_string(),
        Some(p) => format!("ports {p:?}"),
    };
    let ways = match (c.rx, c.tx) {
        (true, true) => "in and out",
        (true, false) => "in",
        _ => "out",
    };
    format!(
        "{} ({:?}), {ports} {ways}, ≤ {} frames per file, snaplen {} B, queue {} frames",
        c.dir.display(),
        c.format,
        c.max_frames,
        c.snaplen,
        c.queue
    )
}

/// `check-config`'s engine line: workers, polling, ring, drain, pool, flowlets, trace.
fn engine_summary(cfg: &Config) -> String {
    let s = &cfg.switch;
    format!(
        "{} worker(s), mode {}, ring {} frames, drain {} µs, pool {} buffers, flowlets {}, trace {}",
        s.workers,
        match cfg.engine.mode {
            PollMode::Busy => format!(
                "busy{}",
                if s.pin_cores.is_empty() {
                    String::new()
                } else {
                    format!(" pinned to {:?}", s.pin_cores)
                }
            ),
            PollMode::Adaptive { spins, max_sleep } =>
                format!("adaptive ({spins} spins, sleep ≤ {} µs)", max_sleep.as_micros()),
        },
        s.ring_size,
        s.drain_us,
        cfg.pool,
        if s.flowlet_gap_us == 0 { "off".to_string() } else { format!("gap {} µs", s.flowlet_gap_us) },
        s.trace
    )
}

/// `check-config`'s tables line: where they come from and their size.
fn tables_summary(cfg: &Config, t: Option<&SwitchTables>) -> String {
    match (&cfg.tables, t) {
        (
            Some(TablesSource::Topology {
                spec,
                kind,
                switch,
                mode,
            }),
            Some(t),
        ) => format!(
            "{switch} of {spec}, kind {}{}: {} ports, {} groups",
            kind.name(),
            mode.map(|m| format!(" (mode {m:?})")).unwrap_or_default(),
            t.ports.len(),
            t.groups.len()
        ),
        (Some(TablesSource::File(f)), Some(t)) => format!(
            "{} from {} (kinds {}): {} ports, {} groups",
            t.name,
            f.display(),
            tables::kinds_of(t).join(", "),
            t.ports.len(),
            t.groups.len()
        ),
        _ => "none: frames are dropped (kind_not_configured) until `ctl tables` pushes some".into(),
    }
}

/// `check-config`'s settings of a port, after its backend and name.
fn port_settings(p: &PortSpec) -> String {
    match p {
        PortSpec::AfPacket { cfg: c, .. } => format!(
            "tpacket {:?}{}",
            c.version,
            c.fanout
                .map(|f| format!(", fanout {f}"))
                .unwrap_or_default()
        ),
        PortSpec::AfXdp { cfg: c, queues, .. } => {
            let qs = if *queues == 1 {
                format!("queue {}", c.queue)
            } else {
                format!("queues {}..={}", c.queue, c.queue + queues - 1)
            };
            format!(
                "{qs}, mode {}, rings rx {} tx {} fill {} comp {}, frame {}",
                c.mode.name(),
                c.rx_ring,
                c.tx_ring,
                c.fill_ring,
                c.comp_ring,
                c.frame_size
            )
        }
        PortSpec::Dpdk {
            queues,
            rx_desc,
            tx_desc,
            ..
        } => format!("{queues} queue(s), rx_desc {rx_desc} tx_desc {tx_desc}"),
        PortSpec::Mem { capacity, .. } => format!("ring {capacity}"),
    }
}

fn ctl(to: &Endpoint, as_json: bool, timeout: Duration, cmd: CtlCmd) -> Result<ExitCode> {
    let req = match &cmd {
        CtlCmd::Health => Request::Health {},
        CtlCmd::Counters => Request::Counters {},
        CtlCmd::Port { port, state } => Request::SetPort {
            port: *port,
            up: *state == PortState::Up,
        },
        CtlCmd::Tables { file } => {
            let text = if file.as_os_str() == "-" {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .context("cannot read stdin")?;
                s
            } else {
                std::fs::read_to_string(file)
                    .with_context(|| format!("cannot read {}", file.display()))?
            };
            // compacted: the file may be pretty-printed, a request is one line
            let tables: Value = serde_json::from_str(&text)
                .with_context(|| format!("{}: not JSON", file.display()))?;
            let tables = serde_json::value::to_raw_value(&tables)?;
            Request::ReplaceTables { tables }
        }
        CtlCmd::DumpTables => Request::GetTables {},
        CtlCmd::Inject { port, frames } => Request::Inject {
            port: *port,
            frames: frames.clone(),
        },
        CtlCmd::Capture { port, max } => Request::Capture {
            port: *port,
            max: *max,
        },
    };
    let resp = to.request(&req, timeout)?;
    let ok = resp.get("ok").and_then(Value::as_bool) == Some(true);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&resp)?);
    } else if !ok {
        let e = resp
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("(no message)");
        eprintln!("canopy-switch: the switch answered: {e}");
    } else {
        match cmd {
            CtlCmd::Health => {
                let h: Health = serde_json::from_value(resp)?;
                print!("{}", mgmt::format_health(&h));
            }
            CtlCmd::Counters => {
                let c: CountersReport = serde_json::from_value(resp)?;
                print!("{}", mgmt::format_counters(&c));
            }
            CtlCmd::Port { port, state } => println!("port {port} admin {state}"),
            CtlCmd::Tables { .. } => println!(
                "tables replaced: {} ({})",
                resp["tables"].as_str().unwrap_or("?"),
                resp["kinds"]
                    .as_array()
                    .map(|k| k
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            ),
            CtlCmd::DumpTables => {
                if resp["tables"].is_null() {
                    println!("no tables loaded");
                } else {
                    println!("{}", serde_json::to_string_pretty(&resp["tables"])?);
                }
            }
            CtlCmd::Inject { .. } => println!(
                "injected {}, refused {} (ring full, link down or no buffer)",
                resp["injected"], resp["refused"]
            ),
            CtlCmd::Capture { .. } => {
                for f in resp["frames"].as_array().into_iter().flatten() {
                    println!("{}", f.as_str().unwrap_or(""));
                }
            }
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
        let mut with_docs = Docs::augment_subcommands(Cli::command());
        with_docs.build();
        with_docs.debug_assert();
    }

    /// Every command's summary (its `-h` line) is one short sentence; the details are in
    /// its long help.
    #[test]
    fn summaries_are_one_sentence() {
        let mut cmd = Cli::command();
        cmd.build();
        canopy_control::cli_docs::check_one_sentence_summaries(&cmd, "canopy-switch")
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn log_and_port_state_are_typed() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("canopy-switch").chain(args.iter().copied()))
        };
        let cli = parse(&["run", "-c", "x.toml", "--log", "warn,canopy_switch=debug"]).unwrap();
        assert!(matches!(
            cli.cmd,
            Cmd::Run { log: Some(f), .. } if f.as_str() == "warn,canopy_switch=debug"
        ));
        let cli = parse(&["host", "-c", "h.toml"]).unwrap();
        assert!(matches!(cli.cmd, Cmd::Host { log: None, .. }));
        let e = parse(&["run", "-c", "x.toml", "--log", "canopy_switch=loud"])
            .err()
            .expect("refused");
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert_eq!(e.exit_code(), 2);
        let cli = parse(&["ctl", "-s", "s.sock", "port", "3", "down"]).unwrap();
        assert!(matches!(
            cli.cmd,
            Cmd::Ctl {
                req: CtlCmd::Port {
                    port: 3,
                    state: PortState::Down
                },
                ..
            }
        ));
        assert_eq!(PortState::Up.to_string(), "up");
        assert_eq!(PortState::Down.to_string(), "down");
    }
}
