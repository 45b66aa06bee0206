//! The P4Runtime part of the configuration: `p4runtime = "ADDR"` (with `device_id`) as
//! a switch's endpoint, and `[p4runtime]`, the program canopyd pushes to every such
//! switch and how it authenticates (`docs/canopyd.md`, "P4Runtime targets").

use super::{subst, ConfigError, Src};
use crate::p4rt::{Addr, Program, Server, Tls};
use canopy_control::p4::program_p4info;
use canopy_control::p4::runtime::Pipeline;
use canopy_p4rt::config::P4Info;
use prost::Message;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The device id a switch's `device_id` defaults to (canopy-switch's and
/// p4runtime-shell's default).
pub const DEFAULT_DEVICE_ID: u64 = 1;

fn d_election() -> u64 {
    1
}

/// `[p4runtime]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawP4rt {
    /// The P4Info in protobuf's binary form (`p4c --p4runtime-files canopy.p4info.bin`);
    /// default: canopy.p4's own (`canopyctl p4info`), what canopy-switch takes.
    pub p4info: Option<PathBuf>,
    /// The target's own form of the program, pushed as `p4_device_config` (bmv2: the
    /// JSON p4c wrote); default: none (canopy-switch).
    pub device_config: Option<PathBuf>,
    /// canopyd's election id (the low 64 bits; the highest controller is primary).
    #[serde(default = "d_election")]
    pub election_id: u64,
    /// Mutual TLS: the CA the servers' certificates are signed by.
    pub tls_ca: Option<PathBuf>,
    /// canopyd's certificate chain (PEM).
    pub tls_cert: Option<PathBuf>,
    /// Its key (PEM).
    pub tls_key: Option<PathBuf>,
    /// The name in the servers' certificates (default: each address's host).
    pub tls_domain: Option<String>,
}

impl Default for RawP4rt {
    fn default() -> Self {
        RawP4rt {
            p4info: None,
            device_config: None,
            election_id: d_election(),
            tls_ca: None,
            tls_cert: None,
            tls_key: None,
            tls_domain: None,
        }
    }
}

fn read(src: &Src, key: &str, dir: &Path, p: &Path) -> Result<Vec<u8>, ConfigError> {
    let path = dir.join(p);
    std::fs::read(&path)
        .map_err(|e| src.bad(key, None, format!("cannot read {}: {e}", path.display())))
}

/// The program of `[p4runtime]` (its defaults when the section is absent).
pub(super) fn program(
    src: &Src,
    raw: Option<&RawP4rt>,
    dir: &Path,
) -> Result<Program, ConfigError> {
    let default = RawP4rt::default();
    let raw = raw.unwrap_or(&default);
    let (p4info, source) = match &raw.p4info {
        None => (
            program_p4info(),
            "canopy.p4's own (canopyctl p4info)".to_string(),
        ),
        Some(p) => {
            let bytes = read(src, "p4runtime.p4info", dir, p)?;
            let info = P4Info::decode(bytes.as_slice()).map_err(|e| {
                src.bad(
                    "p4runtime.p4info",
                    None,
                    format!(
                        "{}: not a binary P4Info ({e}); have p4c write one with --p4runtime-files NAME.bin",
                        p.display()
                    ),
                )
            })?;
            (info, dir.join(p).display().to_string())
        }
    };
    let pipeline = Pipeline::check(&p4info).map_err(|e| {
        src.bad(
            "p4runtime.p4info",
            None,
            format!("{source}: not canopy.p4's: {e}"),
        )
    })?;
    let device_config = match &raw.device_config {
        Some(p) => read(src, "p4runtime.device_config", dir, p)?,
        None => Vec::new(),
    };
    if raw.election_id == 0 {
        return Err(src.bad(
            "p4runtime.election_id",
            None,
            "0 is no election id (a controller with it can never be primary)".into(),
        ));
    }
    let tls = match (&raw.tls_ca, &raw.tls_cert, &raw.tls_key) {
        (None, None, None) => {
            if raw.tls_domain.is_some() {
                return Err(src.bad(
                    "p4runtime.tls_domain",
                    None,
                    "only with tls_ca, tls_cert and tls_key".into(),
                ));
            }
            None
        }
        (Some(ca), Some(cert), Some(key)) => Some(Tls {
            ca: read(src, "p4runtime.tls_ca", dir, ca)?,
            cert: read(src, "p4runtime.tls_cert", dir, cert)?,
            key: read(src, "p4runtime.tls_key", dir, key)?,
            domain: raw.tls_domain.clone(),
        }),
        _ => {
            return Err(src.bad(
                "p4runtime",
                None,
                "tls_ca, tls_cert and tls_key go together (all three, or none for plaintext on loopback and Unix sockets)".into(),
            ))
        }
    };
    Ok(Program {
        p4info,
        pipeline,
        device_config,
        election_id: u128::from(raw.election_id),
        tls,
        source,
    })
}

/// The P4Runtime server `addr` (`HOST:PORT` or `unix:PATH`, placeholders put in) of
/// switch `name`, index `i`, written under `key`; plaintext (`tls` false) only to a
/// loopback address or a Unix socket.
#[allow(clippy::too_many_arguments)]
pub(super) fn server(
    src: &Src,
    key: &str,
    at: Option<usize>,
    (addr, device_id): (&str, Option<u64>),
    (name, i): (&str, usize),
    dir: &Path,
    tls: bool,
) -> Result<Server, ConfigError> {
    let field = format!("{key}.p4runtime");
    let a = subst(addr, name, i).map_err(|e| src.bad(&field, at, e))?;
    let addr = if let Some(p) = a.strip_prefix("unix:") {
        let path = dir.join(p);
        canopy_proto::serve::check_socket_path(&path)
            .map_err(|e| src.bad(&field, at, e.to_string()))?;
        Addr::Unix(path)
    } else {
        let Some((host, port)) = a.rsplit_once(':') else {
            return Err(src.bad(&field, at, format!("{a:?}: HOST:PORT or unix:PATH")));
        };
        if host.is_empty() || port.parse::<u16>().is_err() {
            return Err(src.bad(&field, at, format!("{a:?}: HOST:PORT or unix:PATH")));
        }
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if !tls && !loopback {
            return Err(src.bad(
                &field,
                at,
                format!("{a:?}: plaintext P4Runtime only to a loopback address or a Unix socket; set [p4runtime] tls_ca, tls_cert and tls_key"),
            ));
        }
        Addr::Tcp(a.clone())
    };
    Ok(Server {
        addr,
        device_id: device_id.unwrap_or(DEFAULT_DEVICE_ID),
    })
}
