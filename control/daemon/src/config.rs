//! The `canopyd` configuration (`docs/canopyd.md`): the fabric as the daemon sees it —
//! topology, header kind, and where every switch's management endpoint is. Parsed with
//! `deny_unknown_fields`, then checked as a whole against the topology; every error
//! names the file, the key and, where known, the line.

use crate::p4rt::{Program, Server};
use canopy_control::topology::{self, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::Kind;
use canopy_privs::{Identity, PrivError};
use canopy_proto::client::Endpoint;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use toml::Spanned;

mod p4rt;
pub use p4rt::{RawP4rt, DEFAULT_DEVICE_ID};

/// Default address of `/metrics`, `/healthz`, `/readyz`.
pub const DEFAULT_METRICS: &str = "127.0.0.1:9464";
/// Longest fabric name.
pub const MAX_NAME: usize = 32;

/// A configuration that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not valid TOML, or a key that does not belong (the parser's message carries the
    /// line and column).
    #[error("{file}: {detail}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message.
        detail: String,
    },
    /// A value that does not fit.
    #[error("{file}: {key}: {what}{}", line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Invalid {
        /// The file.
        file: String,
        /// The key (`daemon.probe_interval_ms`, `switch[2].name`, ...).
        key: String,
        /// The line, when known.
        line: Option<usize>,
        /// What is wrong.
        what: String,
    },
}

fn d_probe_interval() -> u64 {
    100
}
fn d_probe_timeout() -> u64 {
    250
}
fn d_missed() -> u32 {
    3
}
fn d_counters() -> u64 {
    1000
}
fn d_metrics() -> String {
    DEFAULT_METRICS.into()
}
fn d_control() -> PathBuf {
    canopy_proto::control::DEFAULT_CONTROL.into()
}
fn d_verify() -> u64 {
    5000
}
fn d_ready_wait() -> u64 {
    30_000
}

/// `[daemon]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawDaemon {
    /// `/metrics` address, or `off`.
    #[serde(default = "d_metrics")]
    pub metrics: String,
    /// Control socket path.
    #[serde(default = "d_control")]
    pub control: PathBuf,
    /// Health probe interval per switch.
    #[serde(default = "d_probe_interval")]
    pub probe_interval_ms: u64,
    /// Probe timeout.
    #[serde(default = "d_probe_timeout")]
    pub probe_timeout_ms: u64,
    /// Misses in a row before a switch is declared down.
    #[serde(default = "d_missed")]
    pub missed_probes: u32,
    /// Counters poll interval.
    #[serde(default = "d_counters")]
    pub counters_interval_ms: u64,
    /// How often the tables a switch runs are read back and compared with the
    /// daemon's (catches a `replace_tables` behind the daemon's back).
    #[serde(default = "d_verify")]
    pub verify_interval_ms: u64,
    /// Under systemd (`Type=notify`): how long canopyd waits for every switch to answer
    /// and run current tables before it says `READY=1` anyway (0: at once).
    #[serde(default = "d_ready_wait")]
    pub ready_wait_ms: u64,
    /// Run as this user once the control socket and the HTTP listener are bound (the
    /// process starts as root).
    pub user: Option<String>,
    /// With `user`: run with this group (default: the user's primary group).
    pub group: Option<String>,
}

impl Default for RawDaemon {
    fn default() -> Self {
        RawDaemon {
            metrics: d_metrics(),
            control: d_control(),
            probe_interval_ms: d_probe_interval(),
            probe_timeout_ms: d_probe_timeout(),
            missed_probes: d_missed(),
            counters_interval_ms: d_counters(),
            verify_interval_ms: d_verify(),
            ready_wait_ms: d_ready_wait(),
            user: None,
            group: None,
        }
    }
}

/// An endpoint as written: `socket`, or `tcp` with `token_file` (the JSON management
/// protocol), or `p4runtime` with `device_id`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawEndpoint {
    /// Unix socket path (`{name}`, `{index}` substituted).
    pub socket: Option<String>,
    /// TCP `HOST:PORT` (`{name}`, `{index}` substituted).
    pub tcp: Option<String>,
    /// Token file for `tcp`.
    pub token_file: Option<PathBuf>,
    /// A P4Runtime server, `HOST:PORT` or `unix:PATH` (`{name}`, `{index}` substituted).
    pub p4runtime: Option<String>,
    /// The device id of `p4runtime` ([`DEFAULT_DEVICE_ID`] when absent).
    pub device_id: Option<u64>,
}

impl RawEndpoint {
    /// No key is set.
    pub fn is_unset(&self) -> bool {
        let RawEndpoint {
            socket,
            tcp,
            token_file,
            p4runtime,
            device_id,
        } = self;
        socket.is_none()
            && tcp.is_none()
            && token_file.is_none()
            && p4runtime.is_none()
            && device_id.is_none()
    }
}

/// `[[switch]]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawSwitch {
    /// Switch name in the topology.
    pub name: Spanned<String>,
    /// Unix socket path.
    pub socket: Option<String>,
    /// TCP `HOST:PORT`.
    pub tcp: Option<String>,
    /// Token file for `tcp`.
    pub token_file: Option<PathBuf>,
    /// A P4Runtime server.
    pub p4runtime: Option<String>,
    /// Its device id.
    pub device_id: Option<u64>,
}

/// The file as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Fabric name.
    pub name: Spanned<String>,
    /// Topology spec.
    pub topology: Spanned<String>,
    /// Header kind.
    pub kind: Spanned<String>,
    /// Daemon settings.
    #[serde(default)]
    pub daemon: RawDaemon,
    /// Default endpoint of every switch.
    #[serde(default, skip_serializing_if = "RawEndpoint::is_unset")]
    pub switches: RawEndpoint,
    /// Per-switch endpoints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub switch: Vec<RawSwitch>,
    /// What canopyd pushes to P4Runtime switches.
    pub p4runtime: Option<RawP4rt>,
}

/// How canopyd reaches a switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Its JSON management endpoint (canopy-switch).
    Mgmt(Endpoint),
    /// Its P4Runtime server (canopy-switch or bmv2's `simple_switch_grpc`).
    P4rt(Server),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Mgmt(e) => e.fmt(f),
            Target::P4rt(s) => s.fmt(f),
        }
    }
}

/// A validated configuration with its topology and base tables computed.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it came from (for messages).
    pub file: String,
    /// Fabric name.
    pub name: String,
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    pub kind: Kind,
    /// The topology.
    pub topology: Topology,
    /// Every switch's tables without faults (index = switch index), the same as
    /// `canopyctl tables SPEC --kind KIND --switch NAME`.
    pub base: Vec<SwitchTables>,
    /// How each switch is reached (index = switch index).
    pub targets: Vec<Target>,
    /// The program pushed to P4Runtime switches (None: no switch is one).
    pub p4rt: Option<Arc<Program>>,
    /// `/metrics` address (None: off).
    pub metrics: Option<String>,
    /// Control socket.
    pub control: PathBuf,
    /// Probe interval.
    pub probe_interval: Duration,
    /// Probe timeout.
    pub probe_timeout: Duration,
    /// Misses in a row before a switch is down.
    pub missed_probes: u32,
    /// Counters poll interval.
    pub counters_interval: Duration,
    /// Read-back interval of the tables.
    pub verify_interval: Duration,
    /// Longest wait for the fabric to be ready before `READY=1` ([`RawDaemon::ready_wait_ms`]).
    pub ready_wait: Duration,
    /// The user and group to run as once the control socket and the HTTP listener are
    /// bound (`[daemon] user`/`group`, or `--user`/`--group`); None: the starting user.
    pub run_as: Option<Identity>,
}

/// `--user` and `--group`: they override `[daemon] user` and `group`, and their errors
/// name the option instead of the key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunAs {
    /// `--user`.
    pub user: Option<String>,
    /// `--group`.
    pub group: Option<String>,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// `s` with `{name}` and `{index}` put in; any other `{...}` is refused (a typo
/// would otherwise give every switch the same endpoint, or a literal brace).
fn subst(s: &str, name: &str, index: usize) -> Result<String, String> {
    let mut rest = s;
    while let Some(i) = rest.find('{') {
        let after = &rest[i..];
        let end = after.find('}').map_or(after.len(), |j| j + 1);
        let p = &after[..end];
        if p != "{name}" && p != "{index}" {
            return Err(format!(
                "{s:?}: unknown placeholder {p:?} (only {{name}} and {{index}} are substituted)"
            ));
        }
        rest = &after[end..];
    }
    Ok(s.replace("{name}", name)
        .replace("{index}", &index.to_string()))
}

/// The file being parsed, for errors that name it and a line of it.
struct Src<'a> {
    file: &'a str,
    text: &'a str,
}

impl Src<'_> {
    /// A [`ConfigError::Invalid`] for `key`, with the line of byte offset `at`.
    fn bad(&self, key: &str, at: Option<usize>, what: String) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.into(),
            key: key.into(),
            line: at.map(|a| line_of(self.text, a)),
            what,
        }
    }
}

/// The fabric itself: name, topology, header kind and the fault-free tables.
struct Fabric {
    name: String,
    spec: String,
    kind: Kind,
    topology: Topology,
    base: Vec<SwitchTables>,
}

/// The checked `[daemon]` section.
struct Daemon {
    metrics: Option<String>,
    control: PathBuf,
    probe_interval: Duration,
    probe_timeout: Duration,
    missed_probes: u32,
    counters_interval: Duration,
    verify_interval: Duration,
    ready_wait: Duration,
    run_as: Option<Identity>,
}

/// A switch's endpoint as written, with the key and line its errors name.
type Written = (RawEndpoint, String, Option<usize>);

impl Config {
    /// Read and validate a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        Config::load_as(path, RunAs::default())
    }

    /// [`Config::load`] with `--user`/`--group` over `[daemon] user`/`group`.
    pub fn load_as(path: &Path, over: RunAs) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            file: file.clone(),
            source,
        })?;
        Config::parse_as(&file, &text, path.parent().unwrap_or(Path::new(".")), over)
    }

    /// Validate `text` (relative paths are resolved against `dir`).
    pub fn parse(file: &str, text: &str, dir: &Path) -> Result<Config, ConfigError> {
        Config::parse_as(file, text, dir, RunAs::default())
    }

    /// [`Config::parse`] with `--user`/`--group` over `[daemon] user`/`group`.
    pub fn parse_as(
        file: &str,
        text: &str,
        dir: &Path,
        over: RunAs,
    ) -> Result<Config, ConfigError> {
        let mut raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            file: file.into(),
            detail: e.to_string().trim_end().replace('\n', " "),
        })?;
        let src = Src { file, text };
        let keys = (
            if over.user.is_some() {
                "--user"
            } else {
                "daemon.user"
            },
            if over.group.is_some() {
                "--group"
            } else {
                "daemon.group"
            },
        );
        if over.user.is_some() {
            raw.daemon.user = over.user;
        }
        if over.group.is_some() {
            raw.daemon.group = over.group;
        }
        let fabric = Fabric::check(&src, &raw)?;
        let daemon = Daemon::check(&src, &raw.daemon, dir, keys)?;
        let per = per_switch(&src, &raw, &fabric)?;
        let runs_as = daemon.run_as.as_ref().map(|i| i.uid);
        let program = p4rt::program(&src, raw.p4runtime.as_ref(), dir)?;
        let tls = program.tls.is_some();
        let targets = targets(&src, &raw, &fabric.topology, per, dir, runs_as, tls)?;
        let any_p4rt = targets.iter().any(|t| matches!(t, Target::P4rt(_)));
        if raw.p4runtime.is_some() && !any_p4rt {
            return Err(src.bad(
                "p4runtime",
                None,
                "no switch has a p4runtime endpoint ([switches] p4runtime or a [[switch]] one)"
                    .into(),
            ));
        }
        let Fabric {
            name,
            spec,
            kind,
            topology,
            base,
        } = fabric;
        Ok(Config {
            file: file.into(),
            name,
            spec,
            kind,
            topology,
            base,
            targets,
            p4rt: any_p4rt.then(|| Arc::new(program)),
            metrics: daemon.metrics,
            control: daemon.control,
            probe_interval: daemon.probe_interval,
            probe_timeout: daemon.probe_timeout,
            missed_probes: daemon.missed_probes,
            counters_interval: daemon.counters_interval,
            verify_interval: daemon.verify_interval,
            ready_wait: daemon.ready_wait,
            run_as: daemon.run_as,
        })
    }

    /// One line per setting, for `canopyd --check`.
    pub fn summary(&self) -> String {
        let ports: usize = self.base.iter().map(|t| t.ports.len()).sum();
        let p4rt = match &self.p4rt {
            Some(p) => format!(
                "\np4runtime P4Info {} ({} bytes of device config), election id {}, {}",
                p.source,
                p.device_config.len(),
                p.election_id,
                if p.tls.is_some() {
                    "mutual TLS"
                } else {
                    "plaintext (loopback and Unix sockets)"
                }
            ),
            None => String::new(),
        };
        format!(
            "fabric {} ({} {}): {} switches, {} ports, {} hosts\nmetrics {}\ncontrol {}\nprobes every {} ms (timeout {} ms, down after {} misses), counters every {} ms\nsystemd READY=1 when every switch is current, at most {} ms after start\nfirst endpoint {}{p4rt}\nprivileges {}; once the control socket and metrics are bound keeps no capability, no_new_privs",
            self.name,
            self.spec,
            self.kind.name(),
            self.topology.switches.len(),
            ports,
            self.topology.hosts.len(),
            self.metrics.as_deref().unwrap_or("off"),
            self.control.display(),
            self.probe_interval.as_millis(),
            self.probe_timeout.as_millis(),
            self.missed_probes,
            self.counters_interval.as_millis(),
            self.ready_wait.as_millis(),
            self.targets.first().map(|e| e.to_string()).unwrap_or_default(),
            match &self.run_as {
                Some(i) => format!("runs as {i}"),
                None => "stays the starting user".into(),
            },
        )
    }
}

impl Fabric {
    /// `name`, `topology` and `kind`, and the tables they give.
    fn check(src: &Src, raw: &RawConfig) -> Result<Fabric, ConfigError> {
        let name = raw.name.get_ref().clone();
        if name.is_empty()
            || name.len() > MAX_NAME
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(src.bad(
                "name",
                Some(raw.name.span().start),
                format!("{name:?}: 1 to {MAX_NAME} characters of a-z, 0-9 and -"),
            ));
        }
        let spec = raw.topology.get_ref().clone();
        let topology = topology::build_str(&spec).map_err(|e| {
            src.bad(
                "topology",
                Some(raw.topology.span().start),
                format!("{spec:?}: {e}"),
            )
        })?;
        let kind = Kind::from_name(raw.kind.get_ref()).ok_or_else(|| {
            src.bad(
                "kind",
                Some(raw.kind.span().start),
                format!("{:?}: one of sliced, path-id, transit", raw.kind.get_ref()),
            )
        })?;
        let base = canopy_control::kinds::tables(&topology, kind).map_err(|e| {
            src.bad(
                "kind",
                Some(raw.kind.span().start),
                format!("{} tables for {spec:?}: {e}", kind.name()),
            )
        })?;
        Ok(Fabric {
            name,
            spec,
            kind,
            topology,
            base,
        })
    }
}

impl Daemon {
    /// `[daemon]`: every interval in its range, the metrics address, the control path,
    /// the user and group (`keys`: what their errors name, the key or the option).
    fn check(
        src: &Src,
        d: &RawDaemon,
        dir: &Path,
        keys: (&str, &str),
    ) -> Result<Daemon, ConfigError> {
        let ms = |key: &str, v: u64, lo: u64, hi: u64| -> Result<Duration, ConfigError> {
            if !(lo..=hi).contains(&v) {
                return Err(src.bad(
                    &format!("daemon.{key}"),
                    None,
                    format!("{v} is outside {lo}..={hi}"),
                ));
            }
            Ok(Duration::from_millis(v))
        };
        let probe_interval = ms("probe_interval_ms", d.probe_interval_ms, 10, 60_000)?;
        let probe_timeout = ms("probe_timeout_ms", d.probe_timeout_ms, 10, 60_000)?;
        let counters_interval = ms("counters_interval_ms", d.counters_interval_ms, 100, 600_000)?;
        let verify_interval = ms("verify_interval_ms", d.verify_interval_ms, 100, 3_600_000)?;
        let ready_wait = ms("ready_wait_ms", d.ready_wait_ms, 0, 3_600_000)?;
        if !(1..=100).contains(&d.missed_probes) {
            return Err(src.bad(
                "daemon.missed_probes",
                None,
                format!("{} is outside 1..=100", d.missed_probes),
            ));
        }
        let metrics = match d.metrics.as_str() {
            "off" => None,
            a => {
                if a.parse::<std::net::SocketAddr>().is_err() {
                    return Err(src.bad(
                        "daemon.metrics",
                        None,
                        format!("{a:?}: an IP:PORT address (e.g. {DEFAULT_METRICS}) or \"off\""),
                    ));
                }
                Some(a.to_string())
            }
        };
        if d.control.as_os_str().is_empty() {
            return Err(src.bad("daemon.control", None, "an empty path".into()));
        }
        let control = dir.join(&d.control);
        // what `start` would refuse whatever runs: too long, anything but a socket (a
        // daemon listening there now is a runtime matter, refused at start)
        match canopy_proto::serve::inspect_socket_path(&control) {
            Ok(()) | Err(canopy_proto::serve::SocketPathError::InUse { .. }) => {}
            Err(e) => return Err(src.bad("daemon.control", None, e.to_string())),
        }
        let run_as = run_as(src, d, keys)?;
        Ok(Daemon {
            metrics,
            control,
            probe_interval,
            probe_timeout,
            missed_probes: d.missed_probes,
            counters_interval,
            verify_interval,
            ready_wait,
            run_as,
        })
    }
}

/// `user` and `group` (their errors name `keys`): names as written, a group only with
/// a user, and both looked up (an unknown one is refused here, so by `--check` too).
fn run_as(src: &Src, d: &RawDaemon, keys: (&str, &str)) -> Result<Option<Identity>, ConfigError> {
    let (ukey, gkey) = keys;
    for (k, v) in [(ukey, &d.user), (gkey, &d.group)] {
        if let Some(v) = v.as_deref().filter(|v| !canopy_privs::is_name(v)) {
            return Err(src.bad(k, None, format!("{v:?} is not a user or group name")));
        }
    }
    if d.group.is_some() && d.user.is_none() {
        return Err(src.bad(
            gkey,
            None,
            "needs a user (--user or [daemon] user): the group canopyd runs with as that user"
                .into(),
        ));
    }
    Identity::resolve(d.user.as_deref(), d.group.as_deref()).map_err(|e| {
        let key = if matches!(e, PrivError::NoGroup(_)) {
            gkey
        } else {
            ukey
        };
        src.bad(key, None, e.to_string())
    })
}

/// The `[[switch]]` entries by switch index: each names a switch of the topology, once.
fn per_switch(
    src: &Src,
    raw: &RawConfig,
    fabric: &Fabric,
) -> Result<Vec<Option<Written>>, ConfigError> {
    let spec = &fabric.spec;
    let index: BTreeMap<&str, usize> = fabric
        .topology
        .switches
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let mut per: Vec<Option<Written>> = vec![None; fabric.topology.switches.len()];
    for (k, s) in raw.switch.iter().enumerate() {
        let key = format!("switch[{k}]");
        let at = Some(s.name.span().start);
        let n = s.name.get_ref();
        let i = *index.get(n.as_str()).ok_or_else(|| {
            let some: Vec<&str> = index.keys().take(6).copied().collect();
            src.bad(
                &format!("{key}.name"),
                at,
                format!(
                    "no switch named {n:?} in {spec:?} (e.g. {}; `canopyctl topo '{spec}' --list` lists them)",
                    some.join(", ")
                ),
            )
        })?;
        if per[i].is_some() {
            return Err(src.bad(&format!("{key}.name"), at, format!("{n:?} is listed twice")));
        }
        per[i] = Some((
            RawEndpoint {
                socket: s.socket.clone(),
                tcp: s.tcp.clone(),
                token_file: s.token_file.clone(),
                p4runtime: s.p4runtime.clone(),
                device_id: s.device_id,
            },
            key,
            at,
        ));
    }
    Ok(per)
}

/// Every switch's endpoint: its `[[switch]]` entry, or `[switches]` otherwise; no two
/// switches may share one (`tls`: P4Runtime servers are reached over TLS).
fn targets(
    src: &Src,
    raw: &RawConfig,
    topology: &Topology,
    per: Vec<Option<Written>>,
    dir: &Path,
    runs_as: Option<u32>,
    tls: bool,
) -> Result<Vec<Target>, ConfigError> {
    let mut endpoints = Vec::with_capacity(topology.switches.len());
    for (i, (sw, written)) in topology.switches.iter().zip(per).enumerate() {
        // a [[switch]] entry's errors give the line of its name
        let written =
            written.unwrap_or_else(|| (raw.switches.clone(), "switches".to_string(), None));
        let e = if let Some(a) = &written.0.p4runtime {
            let (ep, key, at) = &written;
            if ep.socket.is_some() || ep.tcp.is_some() || ep.token_file.is_some() {
                return Err(src.bad(
                    key,
                    *at,
                    "give either p4runtime or socket/tcp, not both".into(),
                ));
            }
            Target::P4rt(p4rt::server(
                src,
                key,
                *at,
                (a, ep.device_id),
                (&sw.name, i),
                dir,
                tls,
            )?)
        } else if written.0.device_id.is_some() {
            return Err(src.bad(
                &format!("{}.device_id", written.1),
                written.2,
                "a device id is for p4runtime endpoints".into(),
            ));
        } else {
            Target::Mgmt(endpoint(src, &written, &sw.name, i, dir, runs_as)?)
        };
        let (ep, key, at) = written;
        // two switches on one endpoint: the daemon would push both tables to one
        // switch in turn, forever
        let same = |x: &Target| match (x, &e) {
            (Target::Mgmt(Endpoint::Unix(a)), Target::Mgmt(Endpoint::Unix(b))) => a == b,
            (Target::Mgmt(Endpoint::Tcp(a, _)), Target::Mgmt(Endpoint::Tcp(b, _))) => a == b,
            (Target::P4rt(a), Target::P4rt(b)) => a == b,
            _ => false,
        };
        if let Some(j) = endpoints.iter().position(same) {
            let field = if ep.p4runtime.is_some() {
                "p4runtime"
            } else if ep.socket.is_some() {
                "socket"
            } else {
                "tcp"
            };
            return Err(src.bad(
                &format!("{key}.{field}"),
                at,
                format!(
                    "{e} is the endpoint of both {:?} and {:?}: every switch needs its own (put {{name}} or {{index}} in [switches] {field})",
                    topology.switches[j].name, sw.name
                ),
            ));
        }
        endpoints.push(e);
    }
    Ok(endpoints)
}

/// The endpoint `ep` (written under `key`, line `at`) gives switch `name`, index `i`:
/// a socket, or tcp with its token read (now, before any privilege is dropped; a token
/// file may belong to root, the reader or `runs_as`, the user canopyd changes to).
fn endpoint(
    src: &Src,
    (ep, key, at): &Written,
    name: &str,
    i: usize,
    dir: &Path,
    runs_as: Option<u32>,
) -> Result<Endpoint, ConfigError> {
    let at = *at;
    match (&ep.socket, &ep.tcp) {
        (Some(_), Some(_)) => Err(src.bad(key, at, "give either socket or tcp, not both".into())),
        (None, None) => Err(src.bad(
            key,
            at,
            format!(
                "no endpoint for switch {name:?}: set [switches] socket = \"/run/canopy/{{name}}.sock\" (or tcp + token_file, or p4runtime), or a [[switch]] entry",
            ),
        )),
        (Some(p), None) => {
            if ep.token_file.is_some() {
                return Err(src.bad(
                    &format!("{key}.token_file"),
                    at,
                    "a token is for tcp endpoints; the Unix socket is private by its mode".into(),
                ));
            }
            let path = dir.join(subst(p, name, i).map_err(|e| src.bad(&format!("{key}.socket"), at, e))?);
            canopy_proto::serve::check_socket_path(&path)
                .map_err(|e| src.bad(&format!("{key}.socket"), at, e.to_string()))?;
            Ok(Endpoint::Unix(path))
        }
        (None, Some(a)) => {
            let Some(tf) = &ep.token_file else {
                return Err(src.bad(
                    &format!("{key}.token_file"),
                    at,
                    "a tcp endpoint needs token_file (the switch's [management] token_file)".into(),
                ));
            };
            let tf = dir.join(tf);
            let token = canopy_proto::token::read_token_file(&tf, runs_as)
                .map_err(|w| src.bad(&format!("{key}.token_file"), at, w.to_string()))?;
            let addr = subst(a, name, i).map_err(|e| src.bad(&format!("{key}.tcp"), at, e))?;
            Ok(Endpoint::Tcp(addr, token))
        }
    }
}

#[cfg(test)]
mod tests;
