//! Client of a `canopy-switch` management socket (newline-delimited JSON, see
//! `docs/canopy-switch.md`), with the switch's own typed responses: its Unix socket, or a
//! guest switch's TCP endpoint ([`Target`]); and of a shared host's control socket
//! (`docs/shared-host.md`).

use crate::error::{Result, TestbedError};
use canopy_proto::client::Endpoint;
use canopy_proto::host::{HostReport, HostRequest};
use canopy_proto::mgmt::{CountersReport, Health, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a switch's management endpoint is: its Unix socket on this machine, or a
/// guest's TCP endpoint with its token, reached from the fabric's hypervisor namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The Unix socket.
    Unix(PathBuf),
    /// A guest switch's TCP endpoint.
    Guest {
        /// `ADDR:PORT` on the management network.
        tcp: String,
        /// The hypervisor's copy of the switch's token (mode 0600).
        token_file: PathBuf,
        /// The namespace the management network is in.
        netns: String,
    },
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Unix(p) => write!(f, "{}", p.display()),
            Target::Guest { tcp, netns, .. } => write!(f, "tcp {tcp} (namespace {netns})"),
        }
    }
}

fn err(to: &Target, detail: impl std::fmt::Display) -> TestbedError {
    TestbedError::Mgmt {
        socket: to.to_string(),
        detail: detail.to_string(),
    }
}

/// Send one request object and return the response object (`"ok": true` checked; an
/// `"ok": false` response becomes an error carrying the switch's message). The transport
/// is the switch's own client ([`canopy_proto::client`]).
pub fn request(to: &Target, req: &Request, timeout: Duration) -> Result<Value> {
    exchange(to, req, req.op(), timeout)
}

/// [`request`] of any request type whose op is `op`.
fn exchange(
    to: &Target,
    req: &impl serde::Serialize,
    op: &str,
    timeout: Duration,
) -> Result<Value> {
    let v = match to {
        Target::Unix(p) => Endpoint::Unix(p.clone()).request(req, timeout)?,
        Target::Guest {
            tcp,
            token_file,
            netns,
        } => {
            let token = canopy_proto::token::read_token_file(token_file, None)
                .map_err(|e| err(to, format!("token: {e}")))?;
            let ep = Endpoint::Tcp(tcp.clone(), token);
            let req = serde_json::to_value(req).map_err(|e| err(to, e))?;
            crate::os::netns::in_ns(netns, move || ep.request(&req, timeout))??
        }
    };
    if v.get("ok") != Some(&Value::Bool(true)) {
        let msg = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no error text");
        return Err(err(to, format!("{op:?} refused: {msg}")));
    }
    Ok(v)
}

/// A request to a shared host's control socket (`canopy-switch host`), answered with
/// its report.
pub fn host(socket: &Path, req: &HostRequest, timeout: Duration) -> Result<HostReport> {
    let to = Target::Unix(socket.to_path_buf());
    let v = exchange(&to, req, req.op(), timeout)?;
    serde_json::from_value(v).map_err(|e| err(&to, format!("unexpected response: {e}")))
}

/// A request with a typed response.
pub fn typed<T: DeserializeOwned>(to: &Target, req: &Request, timeout: Duration) -> Result<T> {
    let v = request(to, req, timeout)?;
    serde_json::from_value(v).map_err(|e| err(to, format!("unexpected response: {e}")))
}

/// `health`.
pub fn health(to: &Target, timeout: Duration) -> Result<Health> {
    typed(to, &Request::Health {}, timeout)
}

/// `counters`.
pub fn counters(to: &Target, timeout: Duration) -> Result<CountersReport> {
    typed(to, &Request::Counters {}, timeout)
}

/// `set_port`.
pub fn set_port(to: &Target, port: u16, up: bool, timeout: Duration) -> Result<()> {
    request(to, &Request::SetPort { port, up }, timeout).map(|_| ())
}
