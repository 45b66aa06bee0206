//! `canopy-switch host`: many switches in one process, polled by a fixed set of
//! threads (`docs/shared-host.md`).
//!
//! Each switch is what `canopy-switch run` makes of its configuration file: its own
//! tables, ports, engine (rings, counters, buffer pool) and management socket, so
//! `canopyd`, `ctl` and the testbed see N switches. What it shares is the host's
//! polling threads ([`canopy_dataplane::engine::host::Host`]): a hop from one of its
//! switches to another is an RX burst, a decision and a TX on a thread that is already
//! running. A switch's ports are opened on a short-lived thread that entered its
//! network namespace (`[[switch]] netns`), so the host itself stays where it started.
//!
//! Start-up: the host file and every switch's file are validated (and their tables
//! computed) before anything opens; each switch is prepared (ports, engine, socket);
//! privileges are reduced to what starting a switch again needs; the threads start and
//! take every engine; each switch's management is served; the control socket
//! (`control.rs`) lists the switches and stops or starts one while the others forward.
//! On SIGTERM or SIGINT every switch stops as `run` stops one, its final counters on
//! stdout under its name.

pub mod config;
mod control;

use crate::config::{Config, PortSpec};
use crate::privs::{self, cap, CapSet};
use crate::server::{self, Shared};
use crate::tables;
use anyhow::{bail, Context, Result};
use canopy_dataplane::engine::host::Host;
use canopy_dataplane::engine::{Engine, PollMode};
use canopy_dataplane::table::SwitchTables;
use canopy_proto::host::{HostReport, HostSwitch};
use config::{HostConfig, Member};
use std::sync::{Arc, Mutex};
use tracing::{info, warn};

/// A switch's configuration file, loaded for a host: validated, its tables computed
/// and checked, its TCP token read. A host refuses what belongs to a process of its
/// own: `user`/`group` (the host runs as one user), `pin_cores` (the host's threads are
/// pinned by `[host] pin_cores`) and `dpdk` ports (one DPDK environment per process).
fn load_member(m: &Member) -> Result<(Config, Option<SwitchTables>, Option<Vec<u8>>)> {
    let mut cfg = Config::load(&m.config)?;
    let s = &cfg.switch;
    if s.user.is_some() || s.group.is_some() {
        bail!(cfg.error(
            "switch.user",
            "a switch in a host runs as the host's user: leave user and group out"
        ));
    }
    if !s.pin_cores.is_empty() {
        bail!(cfg.error(
            "switch.pin_cores",
            "a switch in a host is polled by the host's threads: pin them with [host] pin_cores"
        ));
    }
    if let Some(i) = cfg
        .ports
        .iter()
        .position(|p| matches!(p, PortSpec::Dpdk { .. }))
    {
        bail!(cfg.error(
            &format!("port[{i}].backend"),
            "a host cannot run dpdk ports (one DPDK environment per process): run this switch on its own"
        ));
    }
    let t = tables::load_checked(&mut cfg)?;
    let token = cfg.read_token(None)?;
    Ok((cfg, t, token))
}

/// Run `f` on a thread that entered network namespace `netns` first (None: this one's).
/// Sockets it creates stay in that namespace; the thread ends with `f`.
fn in_netns<T: Send + 'static>(
    netns: Option<&str>,
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    let Some(ns) = netns.map(str::to_string) else {
        return f();
    };
    std::thread::Builder::new()
        .name("canopy-netns".into())
        .spawn(move || {
            crate::sys::enter_netns(&ns)
                .with_context(|| format!("cannot enter network namespace {ns}"))?;
            f()
        })
        .context("cannot start a thread to enter the switch's namespace")?
        .join()
        .map_err(|_| anyhow::anyhow!("the thread that opened the ports panicked"))?
}

/// A switch of the host as it runs.
struct Started {
    shared: Arc<Shared>,
    ports: usize,
}

/// One `[[switch]]` and its state.
struct Slot {
    member: Member,
    started: Option<Started>,
    starts: u64,
    ports: usize,
}

/// The running host: its threads and its switches.
pub struct HostRun {
    cfg: HostConfig,
    threads: Host,
    slots: Vec<Slot>,
}

/// A switch prepared in its namespace, not yet on the threads.
type Ready = (Config, Engine, server::Prepared);

/// Prepare member `m`: load its configuration, then open its ports, build its engine
/// and bind its socket in its namespace.
fn prepare(m: &Member) -> Result<Ready> {
    let (cfg, t, token) =
        load_member(m).with_context(|| format!("switch {} ({})", m.name, m.config.display()))?;
    let c = cfg.clone();
    let (engine, p) = in_netns(m.netns.as_deref(), move || server::prepare(&c, t, token))
        .with_context(|| format!("switch {}", m.name))?;
    Ok((cfg, engine, p))
}

impl HostRun {
    /// Place a prepared switch on the threads and serve its management.
    fn launch(&mut self, i: usize, (cfg, engine, p): Ready) -> Result<()> {
        let slot = &mut self.slots[i];
        let ports = cfg.ports.len();
        self.threads
            .add(engine)
            .with_context(|| format!("switch {}: cannot place it on the host", slot.member.name))?;
        let tag = format!("{}.", slot.member.name);
        let shared = p.serve(&cfg, &tag)?;
        slot.started = Some(Started { shared, ports });
        slot.starts += 1;
        slot.ports = ports;
        info!(switch = %slot.member.name, ports, socket = %cfg.management.socket.display(), "switch running");
        Ok(())
    }

    fn slot(&self, name: &str) -> Result<usize> {
        match self.slots.iter().position(|s| s.member.name == name) {
            Some(i) => Ok(i),
            None => bail!(
                "no switch {name:?} in this host (it has {})",
                self.slots
                    .iter()
                    .map(|s| s.member.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Stop switch `name`: fence and close its management, take its workers off the
    /// threads (drained), close its ports, print its final counters.
    pub fn stop_switch(&mut self, name: &str) -> Result<()> {
        let i = self.slot(name)?;
        let Some(st) = self.slots[i].started.take() else {
            bail!("switch {name} is stopped already");
        };
        st.shared.fence();
        let workers = self.threads.remove(st.shared.engine());
        st.shared.close();
        let workers = workers.with_context(|| format!("switch {name}: its workers"))?;
        drop(workers);
        println!("switch {name}:");
        server::print_final_counters(&st.shared);
        if let Some(r) = st.shared.finish_capture() {
            print!("{}", canopy_proto::mgmt::format_capture(&r));
        }
        info!(switch = name, "switch stopped");
        Ok(())
    }

    /// Start stopped switch `name` again from its configuration file.
    pub fn start_switch(&mut self, name: &str) -> Result<()> {
        let i = self.slot(name)?;
        if self.slots[i].started.is_some() {
            bail!("switch {name} is running already");
        }
        let ready = prepare(&self.slots[i].member)?;
        self.launch(i, ready)
    }

    /// The threads and every switch.
    pub fn report(&self) -> HostReport {
        let e = &self.cfg.engine;
        HostReport {
            pid: std::process::id(),
            mode: match e.mode {
                PollMode::Busy => "busy",
                PollMode::Adaptive { .. } => "adaptive",
            }
            .into(),
            threads: self.threads.threads(),
            pin_cores: e.pin_cores.clone(),
            load: self.threads.load(),
            switches: self
                .slots
                .iter()
                .map(|s| HostSwitch {
                    name: s.member.name.clone(),
                    running: s.started.is_some(),
                    config: s.member.config.clone(),
                    socket: s
                        .started
                        .as_ref()
                        .map(|st| st.shared.socket().to_path_buf())
                        .unwrap_or_default(),
                    netns: s.member.netns.clone(),
                    ports: s.started.as_ref().map_or(s.ports, |st| st.ports),
                    starts: s.starts,
                })
                .collect(),
        }
    }

    /// Stop every running switch (SIGTERM), then the threads.
    fn shutdown(mut self) {
        let names: Vec<String> = self
            .slots
            .iter()
            .filter(|s| s.started.is_some())
            .map(|s| s.member.name.clone())
            .collect();
        for n in names {
            if let Err(e) = self.stop_switch(&n) {
                warn!(switch = %n, "stopping: {e:#}");
            }
        }
        drop(self.threads.stop());
    }
}

/// The capabilities a host keeps: what its ports need to open (a stopped switch
/// starts again) and, when a switch has a namespace of its own, `CAP_SYS_ADMIN` to
/// enter it.
fn host_caps(configs: &[Config], netns: bool) -> CapSet {
    let ports: Vec<PortSpec> = configs.iter().flat_map(|c| c.ports.clone()).collect();
    let mut keep = privs::needed(&ports, true);
    if netns {
        keep.0 |= CapSet::of(&[cap::SYS_ADMIN]).0;
    }
    keep
}

/// `host --check`: every switch's file validated (and its tables computed), and what
/// would run; nothing is opened.
pub fn check(cfg: &HostConfig) -> Result<String> {
    use std::fmt::Write as _;
    let e = &cfg.engine;
    let mut o = String::new();
    let _ = writeln!(o, "host       {} (valid)", cfg.file.display());
    let _ = writeln!(
        o,
        "threads    {}, mode {}{}",
        e.threads,
        match e.mode {
            PollMode::Busy => "busy".to_string(),
            PollMode::Adaptive { spins, max_sleep } => format!(
                "adaptive ({spins} spins, sleep ≤ {} µs)",
                max_sleep.as_micros()
            ),
        },
        if e.pin_cores.is_empty() {
            String::new()
        } else {
            format!(", pinned to {:?}", e.pin_cores)
        }
    );
    let _ = writeln!(o, "control    {} (mode 0600)", cfg.socket.display());
    let _ = writeln!(o, "switches   {}", cfg.switches.len());
    for m in &cfg.switches {
        let (c, t, _) = load_member(m)
            .with_context(|| format!("switch {} ({})", m.name, m.config.display()))?;
        let _ = writeln!(
            o,
            "  {:<10} {} ports, tables {}, netns {}, socket {}",
            m.name,
            c.ports.len(),
            t.as_ref()
                .map_or("none (pushed later)", |t| t.name.as_str()),
            m.netns.as_deref().unwrap_or("(host's)"),
            c.management.socket.display()
        );
    }
    Ok(o)
}

/// Run the host of `cfg` until SIGTERM or SIGINT.
pub fn run(cfg: HostConfig) -> Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])
        .context("cannot install signal handlers")?;
    // every switch's file first, so a bad one refuses the host before anything opens
    for m in &cfg.switches {
        load_member(m).with_context(|| format!("switch {} ({})", m.name, m.config.display()))?;
    }
    canopy_proto::serve::prepare_socket(&cfg.socket)?;
    let mut ready = Vec::with_capacity(cfg.switches.len());
    for m in &cfg.switches {
        match prepare(m) {
            Ok(r) => ready.push(r),
            Err(e) => {
                for (c, _, _) in &ready {
                    let _ = std::fs::remove_file(&c.management.socket);
                }
                return Err(e);
            }
        }
    }
    let listener = server::bind_socket(&cfg.socket)?;
    let configs: Vec<Config> = ready.iter().map(|(c, _, _)| c.clone()).collect();
    let keep = host_caps(&configs, cfg.switches.iter().any(|m| m.netns.is_some()));
    let d = privs::drop_privileges(None, keep).context("cannot drop privileges")?;
    info!(kept = %d.kept, no_new_privs = true, "privileges reduced");
    let threads = Host::start(&cfg.engine).context("cannot start the host's threads")?;
    let slots = cfg
        .switches
        .iter()
        .map(|m| Slot {
            member: m.clone(),
            started: None,
            starts: 0,
            ports: 0,
        })
        .collect();
    let socket = cfg.socket.clone();
    let mut host = HostRun {
        cfg,
        threads,
        slots,
    };
    for (i, r) in ready.into_iter().enumerate() {
        host.launch(i, r)?;
    }
    info!(
        switches = host.slots.len(),
        threads = host.threads.threads(),
        load = ?host.threads.load(),
        control = %socket.display(),
        "host running"
    );
    let host = Arc::new(Mutex::new(Some(host)));
    let mut control = control::spawn(listener, socket.clone(), host.clone())?;
    let sig = signals.forever().next().unwrap_or(SIGTERM);
    info!(signal = sig, "stopping");
    control.close();
    let taken = host.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(h) = taken {
        h.shutdown();
    }
    if let Err(e) = std::fs::remove_file(&socket) {
        warn!(socket = %socket.display(), "cannot remove the control socket: {e}");
    }
    info!("stopped");
    Ok(())
}
