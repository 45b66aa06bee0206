//! The running switch: ports, engine, management socket, signals.
//!
//! Start-up order: the configuration is validated and the tables loaded and checked
//! (by the caller); SIGTERM/SIGINT are registered; the socket path is checked (a stale
//! socket is removed, anything else refuses to start); ports are opened; the engine is
//! built; the socket is bound with umask 0177 (so it is created 0600, with no window);
//! the TCP endpoint, when configured, is bound; privileges are given up ([`harden`]:
//! with `[switch] user` the process changes to that user, and every capability the
//! ports do not need to re-open leaves the permitted, effective and bounding sets,
//! with `no_new_privs` set); the workers start; [`MGMT_THREADS`]
//! threads serve the socket and one thread accepts TCP connections, each then served
//! by its own thread (at most [`MAX_TCP_CONNS`]; the first line must be a good `auth`,
//! checked by comparing SHA-256 digests in constant time). On SIGTERM or SIGINT
//! the management threads are fenced (requests in progress finish, later ones are
//! refused), the workers stop and drain, the final counters are printed on stdout, the
//! socket is removed.
//!
//! Management threads touch the fast path only through [`EngineHandle`]
//! (`swap_tables`, `set_admin`, `counters`) and, for `mem` ports, the far end of the
//! port's link (its own SPSC ring ends, behind a mutex that only management takes).

use crate::config::{Config, PortSpec};
use crate::privs::{self, Identity};
use crate::tables;
use anyhow::{bail, Context, Result};
use canopy_dataplane::engine::counters::{reason_name, N_REASONS};
use canopy_dataplane::engine::pool::BUF_SIZE;
use canopy_dataplane::engine::{mem, Engine, EngineHandle, Pool, Port};
use canopy_dataplane::port::afpacket::AfPacketPort;
use canopy_dataplane::port::afxdp::{AfXdpConfig, AfXdpPort, BindMode};
use canopy_dataplane::table::SwitchTables;
use canopy_proto::mgmt::{
    self, AuthRequest, BackendReport, CountersReport, Health, PortCounters, PortHealth, Request,
    AUTH_FAILED, DEFAULT_CAPTURE, MAX_CAPTURE, MAX_TCP_CONNS, OPS,
};
use canopy_proto::version::{answer_hello, PROTOCOL_VERSION, SWITCH};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;
use tracing::{debug, info, warn};

/// Threads serving the management socket (each serves one connection at a time).
pub const MGMT_THREADS: usize = 4;

/// State shared by the management threads.
pub struct Shared {
    handle: EngineHandle,
    ports: Vec<(String, &'static str)>,
    far: Vec<Option<Mutex<mem::MemPort>>>,
    pool: Pool,
    loaded: AtomicBool,
    start: Instant,
    /// `true` once shutdown began; requests hold it for reading while they run.
    stopping: RwLock<bool>,
    workers: usize,
    mode: &'static str,
    max_request: usize,
    read_timeout: Duration,
    /// The TCP endpoint's bound address and the SHA-256 of its token.
    tcp: Option<(SocketAddr, [u8; 32])>,
    auth_failures: AtomicU64,
    tcp_refused: AtomicU64,
    tcp_open: AtomicUsize,
}

fn err(msg: impl std::fmt::Display) -> Value {
    json!({"ok": false, "error": msg.to_string()})
}

/// An answer, and whether the connection ends after it (a refused `hello`).
struct Answer {
    value: Value,
    close: bool,
}

impl From<Value> for Answer {
    fn from(value: Value) -> Answer {
        Answer {
            value,
            close: false,
        }
    }
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
        let OpenPorts {
            ports,
            replicas,
            far,
            labels,
        } = open_ports(cfg)?;
        let loaded = initial.is_some();
        let t = initial.unwrap_or_else(|| tables::placeholder(ports.len()));
        tables::validate(&t, ports.len()).map_err(anyhow::Error::msg)?;
        let info = cfg
            .ports
            .iter()
            .zip(labels)
            .map(|(p, l)| (p.name().to_string(), l))
            .collect();
        let pool = Pool::new(cfg.pool);
        let engine = Engine::with_rx_replicas(t, ports, replicas, pool.clone(), &cfg.engine)
            .context("cannot build the engine")?;
        let shared = Shared::new(engine.handle(), info, far, pool, loaded, cfg, None);
        Ok((shared, engine))
    }

    /// The state of a switch built from `cfg`, started now, with no request served yet;
    /// `tcp`: the TCP endpoint's bound address and token hash, if it has one.
    fn new(
        handle: EngineHandle,
        ports: Vec<(String, &'static str)>,
        far: Vec<Option<Mutex<mem::MemPort>>>,
        pool: Pool,
        loaded: bool,
        cfg: &Config,
        tcp: Option<(SocketAddr, [u8; 32])>,
    ) -> Shared {
        Shared {
            handle,
            ports,
            far,
            pool,
            loaded: AtomicBool::new(loaded),
            start: Instant::now(),
            stopping: RwLock::new(false),
            workers: cfg.engine.workers,
            mode: cfg.switch.mode.name(),
            max_request: cfg.management.max_request,
            read_timeout: cfg.management.read_timeout,
            tcp,
            auth_failures: AtomicU64::new(0),
            tcp_refused: AtomicU64::new(0),
            tcp_open: AtomicUsize::new(0),
        }
    }

    /// Answer one request line.
    pub fn handle_line(&self, line: &[u8]) -> Value {
        self.answer_line(line).value
    }

    /// Answer one request line, saying whether the connection ends after the answer.
    fn answer_line(&self, line: &[u8]) -> Answer {
        match serde_json::from_slice(line) {
            Ok(v) => self.answer_value(v),
            Err(e) => err(format!("malformed JSON: {e}")).into(),
        }
    }

    /// Answer one parsed request; a refused `hello` (another protocol version, or not a
    /// well-formed `hello`) ends the connection.
    fn answer_value(&self, v: Value) -> Answer {
        let close = v.get("op").and_then(Value::as_str) == Some("hello");
        let value = self.handle_value(v);
        Answer {
            close: close && value["ok"] != json!(true),
            value,
        }
    }

    /// Answer one parsed request.
    fn handle_value(&self, v: Value) -> Value {
        let Some(op) = v.get("op").and_then(Value::as_str) else {
            return err("a request is a JSON object with an \"op\" string");
        };
        if op == "auth" {
            return err(
                "auth: only the TCP endpoint takes a token (the Unix socket is protected by its 0600 mode)",
            );
        }
        if !OPS.contains(&op) {
            return err(format!("unknown op {op:?} (ops: {})", OPS.join(", ")));
        }
        let op = op.to_string();
        let req: Request = match serde_json::from_value(v) {
            Ok(r) => r,
            Err(e) => return err(format!("{op}: {e}")),
        };
        let gate = self.stopping.read().unwrap_or_else(|p| p.into_inner());
        if *gate {
            return err("the switch is shutting down");
        }
        match self.handle(req) {
            Ok(v) => v,
            Err(e) => {
                debug!("{op}: {e}");
                err(format!("{op}: {e}"))
            }
        }
    }

    fn nports(&self) -> usize {
        self.ports.len()
    }

    fn port_no(&self, port: u16) -> Result<usize> {
        let p = usize::from(port);
        if p >= self.nports() {
            bail!("no port {port} (ports are 0..{})", self.nports());
        }
        Ok(p)
    }

    fn handle(&self, req: Request) -> Result<Value> {
        Ok(match req {
            Request::Health {} => {
                let mut v = serde_json::to_value(self.health())?;
                v["ok"] = json!(true);
                v
            }
            Request::Counters {} => {
                let mut v = serde_json::to_value(self.counters())?;
                v["ok"] = json!(true);
                v
            }
            Request::SetPort { port, up } => {
                self.port_no(port)?;
                self.handle.set_admin(port, up)?;
                info!(port, up, "port admin state set");
                json!({"ok": true, "port": port, "admin": up})
            }
            Request::ReplaceTables { tables } => {
                let t: SwitchTables =
                    serde_json::from_value(tables).context("tables are not SwitchTables JSON")?;
                tables::validate(&t, self.nports()).map_err(anyhow::Error::msg)?;
                let name = t.name.clone();
                let kinds = tables::kinds_of(&t);
                self.handle.swap_tables(t)?;
                self.loaded.store(true, Ordering::Release);
                info!(tables = %name, ?kinds, "tables replaced");
                json!({"ok": true, "tables": name, "kinds": kinds})
            }
            Request::GetTables {} => {
                if self.loaded.load(Ordering::Acquire) {
                    json!({"ok": true, "tables": serde_json::to_value(&*self.handle.tables())?})
                } else {
                    json!({"ok": true, "tables": null})
                }
            }
            Request::Inject { port, frames } => {
                let far = self.far_end(port)?;
                let mut bytes = Vec::with_capacity(frames.len());
                for (i, f) in frames.iter().enumerate() {
                    let b = hex::decode(f).with_context(|| format!("frames[{i}] is not hex"))?;
                    if b.is_empty() || b.len() > BUF_SIZE {
                        bail!("frames[{i}] has {} bytes (1..={BUF_SIZE})", b.len());
                    }
                    bytes.push(b);
                }
                let mut end = far.lock().unwrap_or_else(|p| p.into_inner());
                let (mut injected, mut refused) = (0u64, 0u64);
                for b in &bytes {
                    let Some(mut buf) = self.pool.get() else {
                        refused += 1;
                        continue;
                    };
                    buf.fill(b);
                    match end.send(buf) {
                        Ok(()) => injected += 1,
                        Err(buf) => {
                            self.pool.put(buf);
                            refused += 1;
                        }
                    }
                }
                end.notify();
                json!({"ok": true, "injected": injected, "refused": refused})
            }
            Request::Hello { version } => serde_json::to_value(answer_hello(SWITCH, version))?,
            Request::Capture { port, max } => {
                let far = self.far_end(port)?;
                let max = max.unwrap_or(DEFAULT_CAPTURE).min(MAX_CAPTURE);
                let mut end = far.lock().unwrap_or_else(|p| p.into_inner());
                let mut out = Vec::new();
                while out.len() < max {
                    let Some(b) = end.recv() else { break };
                    out.push(hex::encode(b.bytes()));
                    self.pool.put(b);
                }
                json!({"ok": true, "frames": out})
            }
        })
    }

    fn far_end(&self, port: u16) -> Result<&Mutex<mem::MemPort>> {
        let p = self.port_no(port)?;
        match &self.far[p] {
            Some(m) => Ok(m),
            None => bail!(
                "port {port} ({}) is an {} port; inject and capture work on mem ports",
                self.ports[p].0,
                self.ports[p].1
            ),
        }
    }

    /// The `health` report.
    pub fn health(&self) -> Health {
        let loaded = self.loaded.load(Ordering::Acquire);
        let t = self.handle.tables();
        Health {
            uptime_s: self.start.elapsed().as_secs_f64(),
            pid: std::process::id(),
            workers: self.workers,
            mode: self.mode.into(),
            tables_loaded: loaded,
            tables: loaded.then(|| t.name.clone()),
            kinds: tables::kinds_of(&t).into_iter().map(String::from).collect(),
            ports: self
                .ports
                .iter()
                .enumerate()
                .map(|(i, (name, backend))| {
                    let st = self.handle.port_state(i as u16);
                    PortHealth {
                        port: i as u16,
                        name: name.clone(),
                        backend: (*backend).into(),
                        link: st.is_some_and(|s| s.link_up()),
                        admin: st.is_some_and(|s| s.admin_up()),
                    }
                })
                .collect(),
            tcp: self.tcp.map(|(a, _)| a.to_string()),
            auth_failures: self.auth_failures.load(Ordering::Relaxed),
            tcp_refused: self.tcp_refused.load(Ordering::Relaxed),
            protocol_version: PROTOCOL_VERSION,
        }
    }

    /// Check an `auth` request against the token: SHA-256 of both sides compared in
    /// constant time, so neither the token's bytes nor its length show in the timing.
    fn auth_ok(&self, v: &Value) -> bool {
        let Some((_, want)) = &self.tcp else {
            return false;
        };
        let Ok(AuthRequest::Auth { token }) = AuthRequest::deserialize(v) else {
            return false;
        };
        let got: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        bool::from(got.ct_eq(want))
    }

    /// The `counters` report.
    pub fn counters(&self) -> CountersReport {
        let stats = self.handle.counters();
        let mut r = CountersReport {
            uptime_s: self.start.elapsed().as_secs_f64(),
            pid: std::process::id(),
            ..Default::default()
        };
        for (i, s) in stats.iter().enumerate() {
            let drops = (0..N_REASONS)
                .map(|k| (reason_name(k).to_string(), s.drops[k]))
                .collect();
            r.rx_packets += s.rx_packets;
            r.tx_packets += s.tx_packets;
            r.dropped += s.dropped();
            r.ports.push(PortCounters {
                port: i as u16,
                name: self.ports.get(i).map(|p| p.0.clone()).unwrap_or_default(),
                rx_packets: s.rx_packets,
                rx_bytes: s.rx_bytes,
                tx_packets: s.tx_packets,
                tx_bytes: s.tx_bytes,
                adaptive_choices: s.adaptive_choices,
                ring_occupancy: s.ring_occupancy,
                dropped: s.dropped(),
                drops,
                tx_backlog: s.tx_backlog,
                backend: BackendReport {
                    kernel_drops: s.backend.kernel_drops,
                    link_down_events: s.backend.link_down_events,
                    reopens: s.backend.reopens,
                    drops: s
                        .backend
                        .drops
                        .iter()
                        .map(|(n, c)| (n.to_string(), *c))
                        .collect(),
                },
            });
        }
        r
    }
}

/// Check the socket path before start: a live socket (another switch answers) or a
/// path that is not a socket refuses to start; a stale socket (nobody listening) is
/// removed. A missing parent directory is created with mode 0700 and returned (so a
/// switch that runs as another user can be given it).
pub fn prepare_socket(path: &Path) -> Result<Option<std::path::PathBuf>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                if !dir.exists() {
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(dir)
                        .with_context(|| format!("cannot create directory {}", dir.display()))?;
                    return Ok(Some(dir.to_path_buf()));
                }
            }
            Ok(None)
        }
        Err(e) => Err(e).with_context(|| format!("cannot inspect {}", path.display())),
        Ok(m) if m.file_type().is_socket() => match UnixStream::connect(path) {
            Ok(_) => bail!(
                "{}: another process is serving on this socket (is a switch already running?)",
                path.display()
            ),
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                warn!(socket = %path.display(), "removing stale socket");
                std::fs::remove_file(path)
                    .with_context(|| format!("cannot remove stale socket {}", path.display()))?;
                Ok(None)
            }
            Err(e) => Err(e).with_context(|| format!("cannot probe socket {}", path.display())),
        },
        Ok(_) => bail!(
            "{} exists and is not a socket; refusing to replace it",
            path.display()
        ),
    }
}

/// Bind the management socket with mode 0600 (umask 0177 during `bind`).
pub fn bind_socket(path: &Path) -> Result<UnixListener> {
    canopy_proto::sys::bind_private(path)
        .with_context(|| format!("cannot bind management socket {}", path.display()))
}

/// Ports opened from a configuration.
pub struct OpenPorts {
    /// One per switch port, in port order.
    pub ports: Vec<Box<dyn Port>>,
    /// Receive-only replicas `(port, socket)`: an AF_PACKET port with `fanout` gets one
    /// more socket in its fanout group per extra worker, so every worker shares its RX.
    pub replicas: Vec<(u16, Box<dyn Port>)>,
    /// The far ends of `mem` ports (None for other backends).
    pub far: Vec<Option<Mutex<mem::MemPort>>>,
    /// Backend label per port, as `health` reports it: `afpacket`, `mem`, or for AF_XDP
    /// the mode obtained: `afxdp/zerocopy`, `afxdp/copy`, `afxdp/skb`.
    pub labels: Vec<&'static str>,
}

/// The `health` backend label of an AF_XDP port in `mode`.
pub fn afxdp_label(mode: BindMode) -> &'static str {
    match mode {
        BindMode::ZeroCopy => "afxdp/zerocopy",
        BindMode::Copy => "afxdp/copy",
        BindMode::Skb => "afxdp/skb",
    }
}

/// Open every configured port; `mem` ports give their far ends back.
pub fn open_ports(cfg: &Config) -> Result<OpenPorts> {
    let mut ports: Vec<Box<dyn Port>> = Vec::with_capacity(cfg.ports.len());
    let mut replicas: Vec<(u16, Box<dyn Port>)> = Vec::new();
    let mut far = Vec::with_capacity(cfg.ports.len());
    let mut labels = Vec::with_capacity(cfg.ports.len());
    #[cfg(feature = "dpdk")]
    let mut eal: Option<std::sync::Arc<canopy_dataplane::port::dpdk::Eal>> = None;
    for (i, p) in cfg.ports.iter().enumerate() {
        labels.push(p.backend());
        match p {
            PortSpec::AfPacket { interface, cfg: c } => {
                let port = AfPacketPort::open(interface, c.clone())
                    .with_context(|| format!("port[{i}]: cannot open interface {interface}"))?;
                info!(
                    port = i,
                    interface = %interface,
                    version = ?c.version,
                    mtu = Port::mtu(&port),
                    link = Port::link_up(&port),
                    "afpacket port open"
                );
                ports.push(Box::new(port));
                far.push(None);
                if c.fanout.is_some() {
                    for r in 1..cfg.engine.workers {
                        let rep = AfPacketPort::open(interface, c.clone()).with_context(|| {
                            format!("port[{i}]: cannot open fanout socket {r} on {interface}")
                        })?;
                        replicas.push((i as u16, Box::new(rep)));
                    }
                }
            }
            PortSpec::AfXdp {
                interface,
                cfg: c,
                queues,
            } => {
                let open = |q: u32| {
                    let qc = AfXdpConfig {
                        queue: c.queue + q,
                        ..c.clone()
                    };
                    AfXdpPort::open(interface, qc).with_context(|| {
                        format!(
                            "port[{i}]: cannot open AF_XDP on interface {interface} queue {}",
                            c.queue + q
                        )
                    })
                };
                let port = open(0)?;
                let mode = port.mode();
                if let Some(l) = labels.last_mut() {
                    *l = afxdp_label(mode);
                }
                info!(
                    port = i,
                    interface = %interface,
                    queue = c.queue,
                    queues,
                    asked = c.mode.name(),
                    mode = mode.as_str(),
                    mtu = Port::mtu(&port),
                    link = Port::link_up(&port),
                    "afxdp port open"
                );
                ports.push(Box::new(port));
                far.push(None);
                for q in 1..*queues {
                    let rep = open(q)?;
                    if rep.mode() != mode {
                        warn!(
                            port = i,
                            queue = c.queue + q,
                            mode = rep.mode().as_str(),
                            "afxdp queue bound in another mode than the first"
                        );
                    }
                    replicas.push((i as u16, Box::new(rep)));
                }
            }
            PortSpec::Dpdk {
                device,
                queues,
                rx_desc,
                tx_desc,
            } => {
                #[cfg(feature = "dpdk")]
                {
                    let (port, reps) =
                        open_dpdk(&mut eal, cfg, i, device, *queues, *rx_desc, *tx_desc)?;
                    ports.push(port);
                    replicas.extend(reps);
                    far.push(None);
                }
                #[cfg(not(feature = "dpdk"))]
                {
                    // Config::parse refuses dpdk ports in a build without the feature
                    let _ = (queues, rx_desc, tx_desc);
                    anyhow::bail!("port[{i}]: device {device}: canopy-switch was built without the `dpdk` feature");
                }
            }
            PortSpec::Mem { name, capacity } => {
                let (inner, outer) = mem::pair(name, &format!("{name}-far"), *capacity);
                info!(port = i, name = %name, capacity, "mem port ready");
                ports.push(Box::new(inner));
                far.push(Some(Mutex::new(outer)));
            }
        }
    }
    Ok(OpenPorts {
        ports,
        replicas,
        far,
        labels,
    })
}

/// A primary port and its receive-only replicas.
#[cfg(feature = "dpdk")]
type PortAndReplicas = (Box<dyn Port>, Vec<(u16, Box<dyn Port>)>);

/// Open DPDK device `device` as port `i` (EAL first, once, with `[dpdk] eal_args`): the
/// queue-0 handle is the port, the other queues are receive-only replicas.
#[cfg(feature = "dpdk")]
fn open_dpdk(
    eal: &mut Option<std::sync::Arc<canopy_dataplane::port::dpdk::Eal>>,
    cfg: &Config,
    i: usize,
    device: &str,
    queues: u32,
    rx_desc: u16,
    tx_desc: u16,
) -> Result<PortAndReplicas> {
    use canopy_dataplane::port::dpdk::{self, DpdkConfig, Eal};
    let e = match eal {
        Some(e) => e.clone(),
        None => {
            let args = cfg.dpdk.clone().unwrap_or_default().eal_args;
            let e = Eal::init(&args).with_context(|| {
                format!("port[{i}] (dpdk device {device}): cannot start DPDK's EAL")
            })?;
            info!(args = ?e.args(), devices = ?e.devices(), "dpdk eal ready");
            *eal = Some(e.clone());
            e
        }
    };
    let dc = DpdkConfig {
        queues: u16::try_from(queues).unwrap_or(u16::MAX),
        rx_desc,
        tx_desc,
    };
    let mut handles = dpdk::open(&e, device, &dc)
        .with_context(|| format!("port[{i}]: cannot open DPDK device {device}"))?
        .into_iter();
    let Some(first) = handles.next() else {
        anyhow::bail!("port[{i}]: DPDK device {device} gave no queue");
    };
    info!(
        port = i,
        device = %device,
        driver = first.driver(),
        queues,
        rx_desc,
        tx_desc,
        mbufs = dpdk::pool_size(&dc),
        mtu = Port::mtu(&first),
        link = Port::link_up(&first),
        "dpdk port open"
    );
    let reps = handles
        .map(|h| (i as u16, Box::new(h) as Box<dyn Port>))
        .collect();
    Ok((Box::new(first), reps))
}

/// Give up privileges once everything privileged is done (ports open, socket and TCP
/// endpoint bound) and before any other thread starts: with `id`, the socket (and the
/// directory [`prepare_socket`] created for it) is given to that user and group, then
/// [`privs::drop_privileges`] keeps only what the ports need to re-open.
pub fn harden(
    cfg: &Config,
    id: Option<&Identity>,
    sock: &Path,
    created_dir: Option<&Path>,
) -> Result<privs::Dropped> {
    if let Some(i) = id {
        for p in std::iter::once(sock).chain(created_dir) {
            std::os::unix::fs::chown(p, Some(i.uid), Some(i.gid))
                .with_context(|| format!("cannot give {} to {i}", p.display()))?;
        }
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
    if d.threads > 1 && id.is_none() {
        warn!(
            threads = d.threads - 1,
            "threads started while the ports opened (DPDK's EAL) keep their capabilities; set `user` to drop theirs too"
        );
    }
    Ok(d)
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
    let sock = cfg.management.socket.clone();
    let created_dir = prepare_socket(&sock)?;
    let OpenPorts {
        ports,
        replicas,
        far,
        labels,
    } = open_ports(&cfg)?;
    let loaded = initial.is_some();
    let t = initial.unwrap_or_else(|| tables::placeholder(ports.len()));
    let name = t.name.clone();
    let info: Vec<(String, &'static str)> = cfg
        .ports
        .iter()
        .zip(labels)
        .map(|(p, l)| (p.name().to_string(), l))
        .collect();
    let pool = Pool::new(cfg.pool);
    let engine = Engine::with_rx_replicas(t, ports, replicas, pool.clone(), &cfg.engine)
        .context("cannot build the engine")?;
    let handle = engine.handle();
    let listener = bind_socket(&sock)?;
    let tcp = match bind_tcp(&cfg, token) {
        Ok(t) => t,
        Err(e) => {
            let _ = std::fs::remove_file(&sock);
            return Err(e);
        }
    };
    if let Err(e) = harden(&cfg, id.as_ref(), &sock, created_dir.as_deref()) {
        let _ = std::fs::remove_file(&sock);
        return Err(e);
    }
    let running = match engine.spawn() {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&sock);
            return Err(e).context("cannot start the workers");
        }
    };
    let shared = Arc::new(Shared::new(
        handle,
        info,
        far,
        pool,
        loaded,
        &cfg,
        tcp.as_ref().map(|(_, a, d)| (*a, *d)),
    ));
    if let Some((l, addr, _)) = tcp {
        let sh = shared.clone();
        std::thread::Builder::new()
            .name("canopy-mgmt-tcp".into())
            .spawn(move || serve_tcp(l, sh))
            .context("cannot start the TCP management thread")?;
        info!(%addr, limit = MAX_TCP_CONNS, "management TCP endpoint listening (token required)");
    }
    for i in 0..MGMT_THREADS {
        let l = listener.try_clone().context("cannot clone the listener")?;
        let sh = shared.clone();
        std::thread::Builder::new()
            .name(format!("canopy-mgmt{i}"))
            .spawn(move || serve(l, sh))
            .context("cannot start a management thread")?;
    }
    if loaded {
        info!(tables = %name, socket = %sock.display(), "switch running");
    } else {
        info!(socket = %sock.display(), "switch running without tables: frames are dropped (kind_not_configured) until replace_tables");
    }
    let sig = signals.forever().next().unwrap_or(SIGTERM);
    info!(signal = sig, "stopping");
    *shared.stopping.write().unwrap_or_else(|p| p.into_inner()) = true;
    drop(running.stop());
    let report = shared.counters();
    {
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
    if let Err(e) = std::fs::remove_file(&sock) {
        warn!(socket = %sock.display(), "cannot remove socket: {e}");
    }
    info!("stopped");
    Ok(())
}

/// Bind the TCP endpoint when configured: (listener, bound address, SHA-256 of the token).
fn bind_tcp(
    cfg: &Config,
    token: Option<Vec<u8>>,
) -> Result<Option<(TcpListener, SocketAddr, [u8; 32])>> {
    let Some(t) = &cfg.management.tcp else {
        return Ok(None);
    };
    let Some(token) = token else {
        bail!("[management] tcp is set but no token was read from token_file");
    };
    let l = TcpListener::bind(t.addr)
        .with_context(|| format!("cannot listen on {} (management.tcp)", t.addr))?;
    let addr = l
        .local_addr()
        .context("cannot read the TCP endpoint's address")?;
    Ok(Some((l, addr, Sha256::digest(&token).into())))
}

/// Accept loop of the TCP endpoint: a thread per connection, at most
/// [`MAX_TCP_CONNS`] at once; one more is told so and closed.
fn serve_tcp(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let (mut stream, peer) = match listener.accept() {
            Ok(x) => x,
            Err(e) => {
                warn!("accept on the TCP management endpoint: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let open = shared.tcp_open.fetch_add(1, Ordering::AcqRel);
        if open >= MAX_TCP_CONNS {
            shared.tcp_open.fetch_sub(1, Ordering::AcqRel);
            shared.tcp_refused.fetch_add(1, Ordering::Relaxed);
            warn!(%peer, limit = MAX_TCP_CONNS, "too many TCP management connections; refusing one");
            let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
            let _ = send(
                &mut stream,
                &err(format!(
                    "too many management connections ({MAX_TCP_CONNS} open); try again later"
                )),
            );
            let _ = stream.shutdown(std::net::Shutdown::Both);
            continue;
        }
        let sh = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("canopy-mgmt-conn".into())
            .spawn(move || {
                struct Slot<'a>(&'a AtomicUsize);
                impl Drop for Slot<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, Ordering::AcqRel);
                    }
                }
                let _slot = Slot(&sh.tcp_open);
                let _ = stream.set_nodelay(true);
                debug!(%peer, "TCP management connection");
                if let Err(e) = serve_conn(stream, &sh, Transport::Tcp(peer)) {
                    debug!(%peer, "TCP management connection: {e}");
                }
            });
        if let Err(e) = spawned {
            // the closure (and its slot guard) never ran
            shared.tcp_open.fetch_sub(1, Ordering::AcqRel);
            warn!(%peer, "cannot start a thread for a TCP management connection: {e}");
        }
    }
}

/// Accept loop of one management thread.
fn serve(listener: UnixListener, shared: Arc<Shared>) {
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                if let Err(e) = serve_conn(stream, &shared, Transport::Unix) {
                    debug!("management connection: {e}");
                }
            }
            Err(e) => {
                warn!("accept on management socket: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Why reading a request line stopped.
enum LineEnd {
    /// A request (without its newline).
    Line(Vec<u8>),
    /// The peer closed the connection.
    Eof,
    /// More than the limit without a newline.
    Oversize,
    /// No complete request within the timeout (`true`: part of one had arrived).
    Timeout(bool),
}

/// Reads newline-delimited requests with a size limit and a per-request deadline.
struct LineReader {
    buf: Vec<u8>,
    scanned: usize,
}

impl LineReader {
    fn next<S: Stream>(
        &mut self,
        s: &mut S,
        limit: usize,
        timeout: Duration,
    ) -> std::io::Result<LineEnd> {
        let deadline = Instant::now() + timeout;
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            if let Some(i) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + i;
                let mut line: Vec<u8> = self.buf.drain(..=end).collect();
                line.pop();
                self.scanned = 0;
                if line.len() > limit {
                    return Ok(LineEnd::Oversize);
                }
                return Ok(LineEnd::Line(line));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > limit {
                return Ok(LineEnd::Oversize);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(LineEnd::Timeout(!self.buf.is_empty()));
            }
            s.set_read_timeout(Some(deadline - now))?;
            let want = chunk.len().min(limit + 1 - self.buf.len());
            match s.read(&mut chunk[..want]) {
                Ok(0) => {
                    if self.buf.is_empty() {
                        return Ok(LineEnd::Eof);
                    }
                    // a last request without its newline
                    let line = std::mem::take(&mut self.buf);
                    self.scanned = 0;
                    return Ok(LineEnd::Line(line));
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Ok(LineEnd::Timeout(!self.buf.is_empty()));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// A management connection: a Unix or TCP stream.
trait Stream: Read + Write {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    /// Before closing after a final error: make sure the peer can read it.
    fn finish(&mut self) {}
}

impl Stream for UnixStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_read_timeout(self, t)
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_write_timeout(self, t)
    }
}

impl Stream for TcpStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        TcpStream::set_read_timeout(self, t)
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        TcpStream::set_write_timeout(self, t)
    }
    /// A lingering close: closing a TCP socket with unread input sends a reset, which
    /// can discard the error answer before the peer reads it. So: end our side, then
    /// drain (at most [`LINGER_BYTES`] for [`LINGER`]) what the peer still sends.
    fn finish(&mut self) {
        if self.shutdown(std::net::Shutdown::Write).is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER;
        let mut left = LINGER_BYTES;
        let mut sink = [0u8; 16 << 10];
        while left > 0 {
            let now = Instant::now();
            if now >= deadline || self.set_read_timeout(Some(deadline - now)).is_err() {
                return;
            }
            match self.read(&mut sink) {
                Ok(0) | Err(_) => return,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    }
}

/// How long a closing TCP connection drains the peer's input ([`Stream::finish`]).
const LINGER: Duration = Duration::from_millis(500);
/// How much of it.
const LINGER_BYTES: usize = 1 << 20;

/// Where a connection came from.
#[derive(Clone, Copy)]
enum Transport {
    /// The Unix socket: trusted (mode 0600), no token.
    Unix,
    /// The TCP endpoint: `auth` first.
    Tcp(SocketAddr),
}

/// Largest request before a successful `auth` on TCP (an `auth` line is short; an
/// unauthenticated peer cannot make the switch buffer `max_request_bytes`).
pub const PRE_AUTH_MAX: usize = 4096;

fn send<S: Write>(s: &mut S, v: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    line.push(b'\n');
    s.write_all(&line)
}

/// Serve one connection: requests until EOF, timeout or an oversized request; on TCP,
/// also until a failed authentication.
fn serve_conn<S: Stream>(mut s: S, shared: &Shared, via: Transport) -> std::io::Result<()> {
    s.set_write_timeout(Some(shared.read_timeout))?;
    let mut r = LineReader {
        buf: Vec::new(),
        scanned: 0,
    };
    let mut authed = matches!(via, Transport::Unix);
    loop {
        let limit = if authed {
            shared.max_request
        } else {
            shared.max_request.min(PRE_AUTH_MAX)
        };
        match r.next(&mut s, limit, shared.read_timeout)? {
            LineEnd::Eof => return Ok(()),
            LineEnd::Timeout(partial) => {
                if partial {
                    send(
                        &mut s,
                        &err(format!(
                            "read timeout: no complete request line within {} ms",
                            shared.read_timeout.as_millis()
                        )),
                    )?;
                    s.finish();
                }
                return Ok(());
            }
            LineEnd::Oversize if !authed => {
                return auth_failed(&mut s, shared, via, "an oversized line before auth");
            }
            LineEnd::Oversize => {
                warn!(
                    limit = shared.max_request,
                    "oversized management request, closing connection"
                );
                send(
                    &mut s,
                    &err(format!(
                        "request larger than {} bytes (management.max_request_bytes); closing the connection",
                        shared.max_request
                    )),
                )?;
                s.finish();
                return Ok(());
            }
            LineEnd::Line(line) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if let Transport::Tcp(peer) = via {
                    // On TCP every `auth` is checked, the first and any later one: a
                    // wrong token closes even an authenticated connection.
                    let v: Option<Value> = serde_json::from_slice(&line).ok();
                    let is_auth = v.as_ref().and_then(|v| v.get("op")).and_then(Value::as_str)
                        == Some("auth");
                    if is_auth {
                        if v.as_ref().is_some_and(|v| shared.auth_ok(v)) {
                            if !authed {
                                info!(%peer, "TCP management connection authenticated");
                            }
                            authed = true;
                            send(&mut s, &json!({"ok": true, "auth": "ok"}))?;
                            continue;
                        }
                        return auth_failed(&mut s, shared, via, "a wrong token");
                    }
                    if !authed {
                        return auth_failed(&mut s, shared, via, "a request before auth");
                    }
                    let resp = match v {
                        Some(v) => shared.answer_value(v),
                        None => shared.answer_line(&line),
                    };
                    if reply(&mut s, resp)? {
                        return Ok(());
                    }
                    continue;
                }
                if reply(&mut s, shared.answer_line(&line))? {
                    return Ok(());
                }
            }
        }
    }
}

/// Send `a`; true when the connection ends after it (and then it is finished).
fn reply<S: Stream>(s: &mut S, a: Answer) -> std::io::Result<bool> {
    send(s, &a.value)?;
    if a.close {
        s.finish();
    }
    Ok(a.close)
}

/// Count a failed authentication, answer [`AUTH_FAILED`], close the connection.
fn auth_failed<S: Stream>(
    s: &mut S,
    shared: &Shared,
    via: Transport,
    why: &str,
) -> std::io::Result<()> {
    shared.auth_failures.fetch_add(1, Ordering::Relaxed);
    if let Transport::Tcp(peer) = via {
        warn!(%peer, "management authentication failed ({why}); closing the connection");
    }
    send(s, &err(AUTH_FAILED))?;
    s.finish();
    Ok(())
}
