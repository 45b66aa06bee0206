//! Client of a `canopy-switch` management socket (newline-delimited JSON, see
//! `docs/canopy-switch.md`), with the switch's own typed responses; and of a shared
//! host's control socket (`docs/shared-host.md`).

use crate::error::{Result, TestbedError};
use canopy_proto::client::Endpoint;
use canopy_proto::host::{HostReport, HostRequest};
use canopy_proto::mgmt::{CountersReport, Health, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn err(socket: &Path, detail: impl std::fmt::Display) -> TestbedError {
    TestbedError::Mgmt {
        socket: socket.display().to_string(),
        detail: detail.to_string(),
    }
}

/// Send one request object and return the response object (`"ok": true` checked; an
/// `"ok": false` response becomes an error carrying the switch's message). The transport
/// is the switch's own client ([`canopy_proto::client`]).
pub fn request(socket: &Path, req: &Request, timeout: Duration) -> Result<Value> {
    exchange(socket, req, req.op(), timeout)
}

/// [`request`] of any request type whose op is `op`.
fn exchange(
    socket: &Path,
    req: &impl serde::Serialize,
    op: &str,
    timeout: Duration,
) -> Result<Value> {
    let v = Endpoint::Unix(socket.to_path_buf()).request(req, timeout)?;
    if v.get("ok") != Some(&Value::Bool(true)) {
        let msg = v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no error text");
        return Err(err(socket, format!("{op:?} refused: {msg}")));
    }
    Ok(v)
}

/// A request to a shared host's control socket (`canopy-switch host`), answered with
/// its report.
pub fn host(socket: &Path, req: &HostRequest, timeout: Duration) -> Result<HostReport> {
    let v = exchange(socket, req, req.op(), timeout)?;
    serde_json::from_value(v).map_err(|e| err(socket, format!("unexpected response: {e}")))
}

/// A request with a typed response.
pub fn typed<T: DeserializeOwned>(socket: &Path, req: &Request, timeout: Duration) -> Result<T> {
    let v = request(socket, req, timeout)?;
    serde_json::from_value(v).map_err(|e| err(socket, format!("unexpected response: {e}")))
}

/// `health`.
pub fn health(socket: &Path, timeout: Duration) -> Result<Health> {
    typed(socket, &Request::Health {}, timeout)
}

/// `counters`.
pub fn counters(socket: &Path, timeout: Duration) -> Result<CountersReport> {
    typed(socket, &Request::Counters {}, timeout)
}

/// `set_port`.
pub fn set_port(socket: &Path, port: u16, up: bool, timeout: Duration) -> Result<()> {
    request(socket, &Request::SetPort { port, up }, timeout).map(|_| ())
}
