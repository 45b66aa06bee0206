//! Turning the text of a configuration file into a [`Config`]: the TOML read strictly,
//! then each section checked in turn (`[switch]`, `[[port]]`, `[dpdk]`, `[tables]`,
//! `[management]`, `[capture]`, `[p4runtime]`); the first key refused ends it.

use super::ports::ports;
use super::sections::RawConfig;
use super::{
    CaptureFormatName, CaptureSection, Config, ConfigError, DirectionName, DpdkSection, Listen,
    Management, ManagementSection, P4RuntimeConfig, P4RuntimeSection, PollName, PortSpec,
    SwitchSection, TablesSection, TablesSource, TcpEndpoint, TlsFiles, DPDK_ADAPTIVE_MAX_SLEEP_US,
    MAX_RING, MAX_SLEEP_US, MAX_WORKERS, POOL_RANGE,
};
use crate::capture::CaptureConfig;
use crate::pcap::Format;
use canopy_dataplane::engine::{self, EngineConfig, PollMode};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A key refused, and why: a [`ConfigError`] before the file is named.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) key: String,
    pub(crate) what: String,
}

/// Refuse `key` because of `what`.
pub(crate) fn bad<T>(key: impl Into<String>, what: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        key: key.into(),
        what: what.into(),
    })
}

/// Validate the text of `path` ([`Config::parse`]; with `any_build`,
/// [`Config::parse_rules`]).
pub(super) fn parse(path: &Path, text: &str, any_build: bool) -> Result<Config, ConfigError> {
    config(path, text, any_build).map_err(|r| ConfigError {
        file: path.display().to_string(),
        key: r.key,
        what: r.what,
    })
}

fn config(path: &Path, text: &str, any_build: bool) -> Result<Config, Refusal> {
    let raw: RawConfig = read_toml(text)?;
    let s = &raw.switch;
    let mut engine = engine_config(s)?;
    let ports = ports(&raw.port, s.workers, any_build)?;
    let has_dpdk = ports.iter().any(|p| matches!(p, PortSpec::Dpdk { .. }));
    // DPDK ports have no fd to sleep on: an adaptive worker wakes only when its sleep
    // runs out, so the default sleep bound is short with them (unless set)
    if has_dpdk && s.max_sleep_us.is_none() {
        if let PollMode::Adaptive { max_sleep, .. } = &mut engine.mode {
            *max_sleep = Duration::from_micros(DPDK_ADAPTIVE_MAX_SLEEP_US);
        }
    }
    if let Some(d) = &raw.dpdk {
        dpdk_section(d, has_dpdk)?;
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let tables = match &raw.tables {
        None => None,
        Some(t) => Some(tables_source(t, base)?),
    };
    let management = management(raw.management.as_ref(), base)?;
    let capture = match &raw.capture {
        None => None,
        Some(c) => Some(capture(c, base, ports.len())?),
    };
    Ok(Config {
        file: path.to_path_buf(),
        switch: raw.switch.clone(),
        engine,
        pool: s.pool,
        tables,
        management,
        ports,
        dpdk: has_dpdk.then(|| raw.dpdk.clone().unwrap_or_default()),
        capture,
        p4runtime: match &raw.p4runtime {
            None => None,
            Some(p) => Some(p4runtime(p, base)?),
        },
    })
}

/// `[p4runtime]`: the address; mutual TLS (all three files) or a loopback address.
fn p4runtime(p: &P4RuntimeSection, base: &Path) -> Result<P4RuntimeConfig, Refusal> {
    let listen = p.listen.trim();
    let addr = if let Some(path) = listen.strip_prefix("unix:") {
        let path = base.join(path);
        if let Err(e) = canopy_proto::serve::check_socket_path(&path) {
            return bad("p4runtime.listen", e.to_string());
        }
        Listen::Unix(path)
    } else {
        let Ok(a) = listen.parse::<SocketAddr>() else {
            return bad(
                "p4runtime.listen",
                format!(
                    "{:?} is not ADDR:PORT (e.g. \"127.0.0.1:9559\") or unix:PATH",
                    p.listen
                ),
            );
        };
        Listen::Tcp(a)
    };
    let file = |key: &str, f: &Option<PathBuf>| -> Result<Option<PathBuf>, Refusal> {
        match f {
            Some(f) if f.as_os_str().is_empty() => bad(format!("p4runtime.{key}"), "is empty"),
            Some(f) => Ok(Some(base.join(f))),
            None => Ok(None),
        }
    };
    let tls = match (
        file("tls_cert", &p.tls_cert)?,
        file("tls_key", &p.tls_key)?,
        file("client_ca", &p.client_ca)?,
    ) {
        (Some(cert), Some(key), Some(client_ca)) => Some(TlsFiles {
            cert,
            key,
            client_ca,
        }),
        (None, None, None) => None,
        (c, k, _) => {
            let missing = match (c, k) {
                (None, _) => "tls_cert",
                (_, None) => "tls_key",
                _ => "client_ca",
            };
            return bad(
                format!("p4runtime.{missing}"),
                "missing: mutual TLS needs tls_cert, tls_key and client_ca",
            );
        }
    };
    if let (None, Listen::Tcp(addr)) = (&tls, &addr) {
        if !addr.ip().is_loopback() {
            return bad(
                "p4runtime.listen",
                format!("{addr} is not a loopback address: plaintext P4Runtime is served on loopback (or a Unix socket) only; set tls_cert, tls_key and client_ca (mutual TLS) to serve on other addresses"),
            );
        }
    }
    Ok(P4RuntimeConfig {
        addr,
        device_id: p.device_id,
        tls,
    })
}

/// `[capture]`: the directory resolved, the ports in range, the bounds.
fn capture(c: &CaptureSection, base: &Path, nports: usize) -> Result<CaptureConfig, Refusal> {
    use crate::capture::{MAX_SNAPLEN, MIN_SNAPLEN, QUEUE_RANGE};
    if c.dir.as_os_str().is_empty() {
        return bad("capture.dir", "is empty");
    }
    let mut cfg = CaptureConfig::new(base.join(&c.dir));
    cfg.format = match c.format {
        CaptureFormatName::Pcap => Format::Pcap,
        CaptureFormatName::Pcapng => Format::PcapNg,
    };
    (cfg.rx, cfg.tx) = match c.direction {
        DirectionName::Both => (true, true),
        DirectionName::In => (true, false),
        DirectionName::Out => (false, true),
    };
    if let Some(ports) = &c.ports {
        if ports.is_empty() {
            return bad(
                "capture.ports",
                "is empty: leave it out to capture every port",
            );
        }
        let mut sorted = ports.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if let Some(p) = sorted.iter().find(|&&p| usize::from(p) >= nports) {
            return bad(
                "capture.ports",
                format!("port {p} does not exist (the switch has {nports} ports)"),
            );
        }
        cfg.ports = Some(sorted);
    }
    if let Some(m) = c.max_frames {
        if m == 0 {
            return bad("capture.max_frames", "must be at least 1");
        }
        cfg.max_frames = m;
    }
    if let Some(n) = c.snaplen {
        if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&n) {
            return bad(
                "capture.snaplen",
                format!("{n} is outside {MIN_SNAPLEN}..={MAX_SNAPLEN} bytes"),
            );
        }
        cfg.snaplen = n;
    }
    if let Some(q) = c.queue {
        if !(QUEUE_RANGE.0..=QUEUE_RANGE.1).contains(&q) {
            return bad(
                "capture.queue",
                format!(
                    "{q} is outside {}..={} frames",
                    QUEUE_RANGE.0, QUEUE_RANGE.1
                ),
            );
        }
        cfg.queue = q;
    }
    Ok(cfg)
}

/// The file as written; a syntax error, an unknown key or a mistyped value is refused
/// with the key [`toml_key`] finds and the line.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Refusal> {
    toml::from_str(text).or_else(|e| {
        // toml's message names the unknown or mistyped key and the line
        let msg = e.message().to_string();
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].lines().count().max(1);
                format!(" (line {line})")
            })
            .unwrap_or_default();
        bad(toml_key(text, &e), format!("{msg}{at}"))
    })
}

/// `[switch]`: its bounds, then the engine configuration it gives.
fn engine_config(s: &SwitchSection) -> Result<EngineConfig, Refusal> {
    switch_bounds(s)?;
    Ok(EngineConfig {
        workers: s.workers,
        ring_size: s.ring_size,
        drain_interval: Duration::from_micros(s.drain_us),
        flowlet_gap: (s.flowlet_gap_us > 0).then(|| Duration::from_micros(s.flowlet_gap_us)),
        mode: poll_mode(s)?,
        trace: s.trace,
        switch_id: s.id.unwrap_or(0),
        pin_cores: s.pin_cores.clone(),
        ..EngineConfig::default()
    })
}

/// `[switch]`'s numbers in their ranges; `user` and `group` names, a group only with a
/// user.
fn switch_bounds(s: &SwitchSection) -> Result<(), Refusal> {
    if s.workers == 0 || s.workers > MAX_WORKERS {
        return bad(
            "switch.workers",
            format!("{} is not in 1..={MAX_WORKERS}", s.workers),
        );
    }
    if s.ring_size == 0 || s.ring_size > MAX_RING {
        return bad(
            "switch.ring_size",
            format!("{} is not in 1..={MAX_RING}", s.ring_size),
        );
    }
    if s.pool < POOL_RANGE.0 || s.pool > POOL_RANGE.1 {
        return bad(
            "switch.pool",
            format!(
                "{} buffers is not in {}..={}",
                s.pool, POOL_RANGE.0, POOL_RANGE.1
            ),
        );
    }
    if s.drain_us > 1_000_000 {
        return bad(
            "switch.drain_us",
            format!("{} µs is more than a second", s.drain_us),
        );
    }
    if s.flowlet_gap_us > canopy_proto::mgmt::MAX_FLOWLET_GAP_US {
        return bad(
            "switch.flowlet_gap_us",
            format!("{} µs is more than a minute", s.flowlet_gap_us),
        );
    }
    for (k, v) in [("switch.user", &s.user), ("switch.group", &s.group)] {
        if let Some(v) = v {
            if !canopy_privs::is_name(v) {
                return bad(k, format!("{v:?} is not a user or group name"));
            }
        }
    }
    if s.group.is_some() && s.user.is_none() {
        return bad(
            "switch.group",
            "needs `user` (the group the switch runs with as that user)",
        );
    }
    Ok(())
}

/// `[switch] mode` and the keys that go with it.
fn poll_mode(s: &SwitchSection) -> Result<PollMode, Refusal> {
    poll_mode_of("switch", s.mode, s.spins, s.max_sleep_us, &s.pin_cores)
}

/// A polling mode and the keys that go with it, in section `section` (`switch`, or a
/// shared host's `host`).
pub(crate) fn poll_mode_of(
    section: &str,
    mode: PollName,
    spins: Option<u32>,
    max_sleep_us: Option<u64>,
    pin_cores: &[usize],
) -> Result<PollMode, Refusal> {
    match mode {
        PollName::Adaptive => {
            if !pin_cores.is_empty() {
                return bad(
                    format!("{section}.pin_cores"),
                    "pinning applies only to mode = \"busy\"",
                );
            }
            let max_sleep = max_sleep_us.unwrap_or(engine::DEFAULT_MAX_SLEEP.as_micros() as u64);
            if max_sleep == 0 || max_sleep > MAX_SLEEP_US {
                return bad(
                    format!("{section}.max_sleep_us"),
                    format!("{max_sleep} is not in 1..={MAX_SLEEP_US}"),
                );
            }
            Ok(PollMode::Adaptive {
                spins: spins.unwrap_or(engine::DEFAULT_SPINS),
                max_sleep: Duration::from_micros(max_sleep),
            })
        }
        PollName::Busy => {
            if spins.is_some() {
                return bad(
                    format!("{section}.spins"),
                    "applies only to mode = \"adaptive\"",
                );
            }
            if max_sleep_us.is_some() {
                return bad(
                    format!("{section}.max_sleep_us"),
                    "applies only to mode = \"adaptive\"",
                );
            }
            Ok(PollMode::Busy)
        }
    }
}

/// `[dpdk]`: only beside a `dpdk` port; no empty EAL argument or one with a NUL.
fn dpdk_section(d: &DpdkSection, has_dpdk: bool) -> Result<(), Refusal> {
    if !has_dpdk {
        return bad(
            "dpdk",
            "applies only when a [[port]] has backend = \"dpdk\"",
        );
    }
    if let Some((j, a)) = d
        .eal_args
        .iter()
        .enumerate()
        .find(|(_, a)| a.is_empty() || a.contains('\0'))
    {
        return bad(
            format!("dpdk.eal_args[{j}]"),
            format!("{a:?} is empty or holds a NUL byte"),
        );
    }
    Ok(())
}

/// `[tables]`: a file (resolved against `base`, the config file's directory), or a
/// topology, kind and switch.
fn tables_source(t: &TablesSection, base: &Path) -> Result<TablesSource, Refusal> {
    let key = |k: &str| format!("tables.{k}");
    if let Some(f) = &t.file {
        for (k, set) in [
            ("topology", t.topology.is_some()),
            ("kind", t.kind.is_some()),
            ("switch", t.switch.is_some()),
            ("mode", t.mode.is_some()),
        ] {
            if set {
                return bad(
                    key(k),
                    "give either `file` or `topology` + `kind` + `switch`, not both",
                );
            }
        }
        if f.as_os_str().is_empty() {
            return bad(key("file"), "is empty");
        }
        return Ok(TablesSource::File(base.join(f)));
    }
    let Some(spec) = &t.topology else {
        return bad(
            "tables",
            "needs `topology`, `kind` and `switch` (or `file`)",
        );
    };
    let Some(kind_s) = &t.kind else {
        return bad(
            key("kind"),
            "missing: the header kind (sliced, transit, path-id)",
        );
    };
    let Some(kind) = Kind::from_name(kind_s) else {
        return bad(
            key("kind"),
            format!("unknown header kind {kind_s:?} (sliced, transit, path-id)"),
        );
    };
    let Some(switch) = &t.switch else {
        return bad(key("switch"), "missing: the switch's name in the topology");
    };
    let mode = match &t.mode {
        None => None,
        Some(m) if kind == Kind::Sliced => match Mode::from_name(m) {
            Some(m) => Some(m),
            None => {
                return bad(
                    key("mode"),
                    format!("unknown sliced-flit mode {m:?} (sliced, flat, srcdst, dst)"),
                )
            }
        },
        Some(_) => return bad(key("mode"), "applies only to kind = \"sliced\""),
    };
    Ok(TablesSource::Topology {
        spec: spec.clone(),
        kind,
        switch: switch.clone(),
        mode,
    })
}

/// `[management]`: required; the socket path, the request limits, the TCP endpoint.
fn management(m: Option<&ManagementSection>, base: &Path) -> Result<Management, Refusal> {
    let Some(m) = m else {
        return bad(
            "management",
            "missing section: set [management] socket = \"/path/to/switch.sock\"",
        );
    };
    if m.socket.as_os_str().is_empty() {
        return bad("management.socket", "is empty");
    }
    // sun_path holds 108 bytes including the NUL
    if m.socket.as_os_str().len() > 107 {
        return bad(
            "management.socket",
            format!(
                "{} bytes is longer than a Unix socket path can be (107)",
                m.socket.as_os_str().len()
            ),
        );
    }
    if m.max_request_bytes < 1024 || m.max_request_bytes > 1 << 30 {
        return bad(
            "management.max_request_bytes",
            format!("{} is not in 1024..=1073741824", m.max_request_bytes),
        );
    }
    if m.read_timeout_ms == 0 || m.read_timeout_ms > 3_600_000 {
        return bad(
            "management.read_timeout_ms",
            format!("{} is not in 1..=3600000", m.read_timeout_ms),
        );
    }
    Ok(Management {
        socket: m.socket.clone(),
        max_request: m.max_request_bytes,
        read_timeout: Duration::from_millis(m.read_timeout_ms),
        tcp: tcp_endpoint(m, base)?,
    })
}

/// `[management] tcp` and `token_file`: both or neither.
fn tcp_endpoint(m: &ManagementSection, base: &Path) -> Result<Option<TcpEndpoint>, Refusal> {
    match (&m.tcp, &m.token_file) {
        (None, None) => Ok(None),
        (None, Some(_)) => bad(
            "management.token_file",
            "applies only with `tcp` (the Unix socket needs no token)",
        ),
        (Some(_), None) => bad(
            "management.token_file",
            "missing: `tcp` needs `token_file`, a file readable only by its owner holding the shared token",
        ),
        (Some(a), Some(f)) => {
            let Ok(addr) = a.trim().parse::<SocketAddr>() else {
                return bad(
                    "management.tcp",
                    format!("{a:?} is not ADDR:PORT (e.g. \"127.0.0.1:7410\" or \"[::]:7410\")"),
                );
            };
            if f.as_os_str().is_empty() {
                return bad("management.token_file", "is empty");
            }
            Ok(Some(TcpEndpoint {
                addr,
                token_file: base.join(f),
            }))
        }
    }
}

/// The dotted key a toml error points at: the `[section]`/`[[port]]` header above the
/// error's line plus the key on that line, e.g. `port[1].interfce`. Best effort: the
/// message itself names the key as well.
fn toml_key(text: &str, e: &toml::de::Error) -> String {
    let Some(span) = e.span() else {
        return "toml".into();
    };
    let upto = &text[..span.start.min(text.len())];
    let line_start = upto.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = text[line_start..line_end].trim();
    let mut section = String::new();
    // `[[name]]` arrays of tables: how many of each came before
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in text[..line_start].lines() {
        let l = l.trim();
        if l.starts_with("[[") {
            let name = l.trim_matches(|c| c == '[' || c == ']').trim();
            let n = seen.entry(name).or_insert(0);
            section = format!("{name}[{n}]");
            *n += 1;
        } else if l.starts_with('[') {
            section = l.trim_matches(|c| c == '[' || c == ']').trim().to_string();
        }
    }
    if line.starts_with('[') {
        // the error is about a section header itself (an unknown section, say)
        let name = line.trim_matches(|c| c == '[' || c == ']').trim();
        return if line.starts_with("[[") {
            format!("{name}[{}]", seen.get(name).copied().unwrap_or(0))
        } else {
            name.to_string()
        };
    }
    let key = line
        .split('=')
        .next()
        .filter(|_| line.contains('='))
        .map(|k| k.trim().to_string());
    match (section.is_empty(), key) {
        (true, Some(k)) => k,
        (false, Some(k)) => format!("{section}.{k}"),
        (false, None) => section,
        (true, None) => "toml".into(),
    }
}
