//! The running switch: ports, engine, management socket, signals.
//!
//! Start-up order: the configuration is validated and the tables loaded and checked
//! (by the caller); SIGTERM/SIGINT are registered; the socket path is checked (a stale
//! socket is removed, anything else refuses to start); ports are opened; the engine is
//! built; the socket is bound with umask 0177 (so it is created 0600, with no window);
//! the TCP endpoint, when configured, is bound; privileges are given up ([`harden`]:
//! with `[switch] user` the process changes to that user, and every capability the
//! ports do not need to re-open leaves the permitted, effective and bounding sets,
//! with `no_new_privs` set); the workers start; the socket and the TCP endpoint are
//! served by [`canopy_proto::serve`], a thread per connection (at most
//! [`MAX_UNIX_CONNS`](canopy_proto::mgmt::MAX_UNIX_CONNS) and [`MAX_TCP_CONNS`], a
//! connection waiting between requests yields its slot to a new one when all are
//! taken; on TCP the challenge-response of [`canopy_proto::auth`] comes first, within
//! the read timeout of the accept). On SIGTERM or SIGINT management is fenced (requests
//! in progress finish, later ones are refused) and its servers closed, the socket is
//! removed, the workers stop and drain, the final counters are printed on stdout.
//!
//! Management threads touch the fast path only through [`EngineHandle`]
//! (`swap_tables`, `set_admin`, `counters`) and, for `mem` ports, the far end of the
//! port's link (its own SPSC ring ends, behind a mutex that only management takes).
//!
//! Files: this one (start-up, shutdown), `ports.rs` (opening the ports), `conn.rs` (the
//! servers of the socket and the TCP endpoint), `dispatch.rs` (a request answered).

mod conn;
pub(crate) mod dispatch;
mod ports;

pub use canopy_proto::serve::PRE_AUTH_MAX;
pub use ports::{afxdp_label, open_ports, OpenPorts, PortLabel};

use crate::capture::Capture;
use crate::config::Config;
use crate::p4rt;
use crate::privs::{self, Identity};
use crate::tables;
use anyhow::{bail, Context, Result};
use canopy_dataplane::engine::{mem, Engine, EngineHandle, Pool};
use canopy_dataplane::table::SwitchTables;
use canopy_proto::mgmt::{self, MAX_TCP_CONNS};
use canopy_proto::serve::{prepare_socket, unprepare_socket, Server, Stats};
use canopy_proto::service;
use conn::{bind_tcp, serve_tcp, serve_unix, Tcp};
use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tracing::{info, warn};

/// State shared by the management threads.
pub struct Shared {
    handle: EngineHandle,
    ports: Vec<(String, PortLabel)>,
    far: Vec<Option<Mutex<mem::MemPort>>>,
    pool: Pool,
    loaded: AtomicBool,
    start: Instant,
    /// When it started, in ns since the Unix epoch (`health`'s `instance`).
    instance: u64,
    /// `true` once shutdown began; requests hold it for reading while they run.
    stopping: RwLock<bool>,
    workers: usize,
    mode: &'static str,
    max_request: usize,
    read_timeout: Duration,
    /// The TCP endpoint's bound address.
    tcp: Option<SocketAddr>,
    /// What the TCP endpoint's server counts (authentication failures, refusals).
    tcp_stats: Arc<Stats>,
    /// What the management socket's server counts.
    unix_stats: Arc<Stats>,
    /// The management socket's path.
    socket: std::path::PathBuf,
    /// The servers of the socket and the TCP endpoint ([`Prepared::serve`]), ended by
    /// [`Shared::close`].
    servers: Mutex<Vec<Server>>,
    /// The per-port capture (`[capture]`), finished by [`Shared::finish_capture`].
    capture: Mutex<Option<Capture>>,
    /// Whether the tables are a P4Runtime controller's (it committed a pipeline): the
    /// JSON protocol's `replace_tables` is then refused, so one source owns them.
    p4rt_owned: AtomicBool,
    /// The P4Runtime endpoint (`[p4runtime]`), closed by [`Shared::close`].
    p4rt: Mutex<Option<p4rt::endpoint::Endpoint>>,
}

/// What [`Shared`] keeps of a switch [`build`] made.
struct Parts {
    handle: EngineHandle,
    /// Name and backend label of each port.
    ports: Vec<(String, PortLabel)>,
    far: Vec<Option<Mutex<mem::MemPort>>>,
    pool: Pool,
    /// Whether the engine runs real tables (not the placeholder ones).
    loaded: bool,
    /// The per-port capture, its writer not started.
    capture: Option<Capture>,
}

/// Open the ports of `cfg` and build its engine, not started, over `initial` (None: the
/// placeholder tables until `replace_tables`).
fn build(cfg: &Config, initial: Option<SwitchTables>) -> Result<(Engine, Parts)> {
    let OpenPorts {
        ports,
        replicas,
        far,
        labels,
    } = open_ports(cfg)?;
    let loaded = initial.is_some();
    let t = initial.unwrap_or_else(|| tables::placeholder(ports.len()));
    let names = cfg
        .ports
        .iter()
        .zip(labels)
        .map(|(p, l)| (p.name().to_string(), l))
        .collect();
    let (capture, ports, replicas) = match &cfg.capture {
        None => (None, ports, replicas),
        Some(c) => {
            let (cap, ports, replicas) =
                Capture::open(c, ports, replicas).context("cannot start the capture")?;
            info!(dir = %c.dir.display(), files = cap.paths().len(), max_frames = c.max_frames, snaplen = c.snaplen, "capture files open");
            (Some(cap), ports, replicas)
        }
    };
    let pool = Pool::new(cfg.pool);
    let engine = Engine::with_rx_replicas(t, ports, replicas, pool.clone(), &cfg.engine)
        .context("cannot build the engine")?;
    let parts = Parts {
        handle: engine.handle(),
        ports: names,
        far,
        pool,
        loaded,
        capture,
    };
    Ok((engine, parts))
}

impl Shared {
    /// A `Shared` answering requests in this process over an engine built from `cfg`
    /// but not running, with no socket bound: what the request decoder's fuzz target and
    /// its regression replay use (`docs/fuzzing.md`). Every port must be a `mem` port
    /// (nothing outside the process is opened). Keep the returned engine alive while the
    /// `Shared` is used.
    pub fn in_process(cfg: &Config, initial: Option<SwitchTables>) -> Result<(Shared, Engine)> {
        if let Some(i) = cfg.ports.iter().position(|p| p.backend() != "mem") {
            bail!("port[{i}] is not a mem port: an in-process switch opens no interface");
        }
        if let Some(t) = &initial {
            tables::validate(t, cfg.ports.len())?;
        }
        let (engine, parts) = build(cfg, initial)?;
        Ok((Shared::new(parts, cfg, None), engine))
    }

    /// The state of a switch built from `cfg`, started now, with no request served yet;
    /// `tcp`: the TCP endpoint's bound address, if it has one.
    fn new(parts: Parts, cfg: &Config, tcp: Option<SocketAddr>) -> Shared {
        Shared {
            handle: parts.handle,
            ports: parts.ports,
            far: parts.far,
            pool: parts.pool,
            loaded: AtomicBool::new(parts.loaded),
            start: Instant::now(),
            instance: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            stopping: RwLock::new(false),
            workers: cfg.engine.workers,
            mode: cfg.switch.mode.name(),
            max_request: cfg.management.max_request,
            read_timeout: cfg.management.read_timeout,
            tcp,
            tcp_stats: Arc::default(),
            unix_stats: Arc::default(),
            socket: cfg.management.socket.clone(),
            servers: Mutex::new(Vec::new()),
            capture: Mutex::new(parts.capture),
            p4rt_owned: AtomicBool::new(false),
            p4rt: Mutex::new(None),
        }
    }
}

impl Shared {
    /// Fence management: requests in progress finish, later ones are refused.
    pub fn fence(&self) {
        *self.stopping.write().unwrap_or_else(|p| p.into_inner()) = true;
    }

    /// [`Shared::fence`], then end the servers' accept loops (connections still open
    /// are closed at their next read) and remove the socket.
    pub fn close(&self) {
        self.fence();
        let servers = std::mem::take(&mut *self.servers.lock().unwrap_or_else(|p| p.into_inner()));
        for mut s in servers {
            s.close();
        }
        if let Some(mut e) = self.p4rt.lock().unwrap_or_else(|p| p.into_inner()).take() {
            e.close();
        }
        if let Err(e) = std::fs::remove_file(&self.socket) {
            warn!(socket = %self.socket.display(), "cannot remove socket: {e}");
        }
    }

    /// The engine's control handle.
    pub fn engine(&self) -> &EngineHandle {
        &self.handle
    }

    /// Held by a request while it runs; `None` once shutdown began ([`Shared::fence`]).
    pub(crate) fn gate(&self) -> Option<std::sync::RwLockReadGuard<'_, bool>> {
        let g = self.stopping.read().unwrap_or_else(|p| p.into_inner());
        (!*g).then_some(g)
    }

    /// Swap in tables a P4Runtime controller's writes give: from now on the tables are
    /// its, and `replace_tables` is refused.
    pub(crate) fn install_p4rt_tables(&self, t: SwitchTables) -> Result<()> {
        tables::validate_program(&t, self.ports.len())?;
        let name = t.name.clone();
        self.handle.swap_tables(t)?;
        self.p4rt_owned.store(true, Ordering::Release);
        if !self.loaded.swap(true, Ordering::AcqRel) {
            info!(tables = %name, "tables programmed over P4Runtime");
            service::status(&format!(
                "forwarding with tables {name} (P4Runtime) on {} ports",
                self.ports.len()
            ));
        }
        Ok(())
    }

    /// The P4Runtime endpoint's address, when it serves.
    pub fn p4runtime_addr(&self) -> Option<crate::config::Listen> {
        let e = self.p4rt.lock().unwrap_or_else(|p| p.into_inner());
        e.as_ref().map(|e| e.addr.clone())
    }

    /// The management socket's path.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The capture's report so far (None: no `[capture]`).
    pub fn capture_report(&self) -> Option<mgmt::CaptureReport> {
        let c = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        c.as_ref().map(Capture::report)
    }

    /// Write what the capture still queues and close its files (once the workers are
    /// stopped); its final report, also logged. Nothing without `[capture]`.
    pub fn finish_capture(&self) -> Option<mgmt::CaptureReport> {
        let mut c = self.capture.lock().unwrap_or_else(|p| p.into_inner());
        let r = c.as_mut().map(Capture::finish)?;
        let written: u64 = r.files.iter().map(|f| f.written).sum();
        let dropped: u64 = r.files.iter().map(|f| f.dropped).sum();
        let skipped: u64 = r.files.iter().map(|f| f.skipped).sum();
        info!(dir = %r.dir, files = r.files.len(), written, dropped, past_max = skipped, "capture closed");
        Some(r)
    }
}

/// Bind the management socket with mode 0600 (umask 0177 during `bind`).
pub fn bind_socket(path: &Path) -> Result<UnixListener> {
    canopy_proto::sys::bind_private(path)
        .with_context(|| format!("cannot bind management socket {}", path.display()))
}

/// The settings that make the switch change user, as the uid-0 warning names them.
pub const ROOT_KEY: &str = "[switch] user (or --user)";

/// Give up privileges once everything privileged is done (ports open, socket and TCP
/// endpoint bound) and before any other thread starts: with `id`, the socket (and the
/// directory [`prepare_socket`] created for it) is given to that user and group, then
/// [`privs::drop_privileges`] keeps only what the ports need to re-open. A switch that
/// is still uid 0 afterwards (started as root without a user) says what that leaves it
/// ([`canopy_privs::root_risk`]). `files`: more files the switch made that the user
/// should own (its capture files).
pub fn harden(
    cfg: &Config,
    id: Option<&Identity>,
    sock: &Path,
    created_dir: Option<&Path>,
    files: &[std::path::PathBuf],
) -> Result<privs::Dropped> {
    if let Some(i) = id {
        let paths: Vec<&Path> = std::iter::once(sock)
            .chain(created_dir)
            .chain(files.iter().map(|p| p.as_path()))
            .collect();
        canopy_privs::give(i, &paths)?;
    }
    let keep = privs::needed(&cfg.ports, cfg.switch.reopen_caps);
    let d = privs::drop_privileges(id, keep).context("cannot drop privileges")?;
    info!(
        uid = d.uid,
        gid = d.gid,
        kept = %d.kept,
        bounding = if d.bounding_dropped { "reduced to the kept set" } else { "unchanged (no CAP_SETPCAP)" },
        no_new_privs = true,
        "privileges dropped"
    );
    if d.missing != privs::CapSet::EMPTY {
        warn!(
            missing = %d.missing,
            "the process did not have these capabilities: a port whose interface is re-created cannot re-open"
        );
    }
    if d.uid == 0 {
        warn!("{}", canopy_privs::root_risk(ROOT_KEY));
    }
    if d.threads > 1 && id.is_none() {
        warn!(
            threads = d.threads - 1,
            "threads started while the ports opened (DPDK's EAL) keep their capabilities; set `user` to drop theirs too"
        );
    }
    Ok(d)
}

/// A switch made ready in this process, not forwarding yet: its engine (ports open),
/// its management socket bound (and its TCP endpoint, when configured).
pub struct Prepared {
    parts: Parts,
    listener: UnixListener,
    tcp: Option<Tcp>,
    p4rt: Option<p4rt::endpoint::Bound>,
    /// The management socket's path.
    pub socket: std::path::PathBuf,
    /// The directory [`prepare_socket`] created for it, if any.
    pub created_dir: Option<std::path::PathBuf>,
}

/// Make the switch of `cfg` ready: check the socket path, open the ports and build the
/// engine over `initial` (None: placeholder tables until `replace_tables`), bind the
/// socket (and the TCP endpoint with `token`). A failure removes what it made: the
/// socket, and the directory made for it. Returns the engine, not started, and what serves its management.
pub fn prepare(
    cfg: &Config,
    initial: Option<SwitchTables>,
    token: Option<Vec<u8>>,
) -> Result<(Engine, Prepared)> {
    let sock = cfg.management.socket.clone();
    let created_dir = prepare_socket(&sock)?;
    let undo = |_: &anyhow::Error| unprepare_socket(&sock, created_dir.as_deref());
    let (engine, parts) = build(cfg, initial).inspect_err(undo)?;
    let listener = bind_socket(&sock).inspect_err(undo)?;
    let tcp = bind_tcp(cfg, token).inspect_err(undo)?;
    let p4rt = cfg
        .p4runtime
        .as_ref()
        .map(p4rt::endpoint::bind)
        .transpose()
        .inspect_err(undo)?;
    Ok((
        engine,
        Prepared {
            parts,
            listener,
            tcp,
            p4rt,
            socket: sock,
            created_dir,
        },
    ))
}

impl Prepared {
    /// The engine's control handle.
    pub fn handle(&self) -> EngineHandle {
        self.parts.handle.clone()
    }

    /// The capture files made (empty without `[capture]`).
    pub fn capture_files(&self) -> Vec<std::path::PathBuf> {
        self.parts
            .capture
            .as_ref()
            .map_or_else(Vec::new, Capture::paths)
    }

    /// Serve management from now on over the engine `cfg` describes (started by the
    /// caller): the socket's server, and the TCP endpoint's when configured, each with
    /// a thread per connection ([`canopy_proto::serve`]); `tag` starts their thread
    /// names. Returns the state they share; [`Shared::close`] ends them.
    pub fn serve(mut self, cfg: &Config, tag: &str) -> Result<Arc<Shared>> {
        if let Some(c) = &mut self.parts.capture {
            c.start(tag)?;
        }
        let shared = Arc::new(Shared::new(
            self.parts,
            cfg,
            self.tcp.as_ref().map(|t| t.addr),
        ));
        let mut servers = vec![serve_unix(self.listener, &shared, tag)?];
        if let Some(t) = self.tcp {
            let addr = t.addr;
            servers.push(serve_tcp(t, &shared, tag)?);
            info!(%addr, limit = MAX_TCP_CONNS, "management TCP endpoint listening (challenge-response on the token)");
        }
        *shared.servers.lock().unwrap_or_else(|p| p.into_inner()) = servers;
        if let Some(b) = self.p4rt {
            let target = p4rt::write::Target {
                ports: cfg.ports.len(),
                switch_id: cfg.engine.switch_id,
            };
            let e = p4rt::endpoint::serve(b, shared.clone(), target, tag)?;
            *shared.p4rt.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        }
        Ok(shared)
    }
}

/// Run the switch until SIGTERM or SIGINT. `initial` are the validated tables from
/// the configuration (None: placeholder tables until `replace_tables`); `token` is the
/// TCP endpoint's token ([`Config::read_token`]), required when `[management] tcp` is
/// set; `id` the user to run as once the ports are open ([`harden`]).
pub fn run(
    cfg: Config,
    initial: Option<SwitchTables>,
    token: Option<Vec<u8>>,
    id: Option<Identity>,
) -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])
        .context("cannot install signal handlers")?;
    let name = initial.as_ref().map(|t| t.name.clone());
    let (engine, p) = prepare(&cfg, initial, token)?;
    let sock = p.socket.clone();
    let created_dir = p.created_dir.clone();
    // from here on, a failure removes the socket and the directory made for it
    let unbind = |e| {
        unprepare_socket(&sock, created_dir.as_deref());
        e
    };
    let files = p.capture_files();
    harden(&cfg, id.as_ref(), &sock, p.created_dir.as_deref(), &files).map_err(unbind)?;
    let running = engine
        .spawn()
        .context("cannot start the workers")
        .map_err(unbind)?;
    let shared = p.serve(&cfg, "canopy-").map_err(unbind)?;
    // ports open, tables (if any) loaded, management listening: what READY=1 promises
    let ports = cfg.ports.len();
    match name {
        Some(name) => {
            info!(tables = %name, socket = %sock.display(), "switch running");
            service::ready(&format!("forwarding with tables {name} on {ports} ports"));
        }
        None => {
            info!(socket = %sock.display(), "switch running without tables: frames are dropped (kind_not_configured) until replace_tables");
            service::ready(&format!(
                "{ports} ports open, no tables yet: dropping frames until replace_tables"
            ));
        }
    }
    let sig = signals.forever().next().unwrap_or(SIGTERM);
    info!(signal = sig, "stopping");
    service::stopping();
    shared.close();
    drop(running.stop());
    print_final_counters(&shared);
    if let Some(r) = shared.finish_capture() {
        let _ = write!(std::io::stdout().lock(), "{}", mgmt::format_capture(&r));
    }
    info!("stopped");
    Ok(())
}

/// The counters of a stopped switch, on stdout.
pub fn print_final_counters(shared: &Shared) {
    let report = shared.counters();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "canopy-switch: final counters ({}, uptime {:.1} s)",
        if shared.loaded.load(Ordering::Acquire) {
            shared.handle.tables().name.clone()
        } else {
            "no tables".into()
        },
        report.uptime_s
    );
    let _ = write!(out, "{}", mgmt::format_counters(&report));
    let _ = out.flush();
}
