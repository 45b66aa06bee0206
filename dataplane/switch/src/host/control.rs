//! The host's control socket: served by [`canopy_proto::serve`] (its slots and
//! deadlines), request by request, with the management protocol's framing (`hello`,
//! then [`HostRequest`]s; `docs/shared-host.md`).

use super::HostRun;
use crate::server::dispatch::err;
use anyhow::{Context, Result};
use canopy_proto::host::{HostRequest, HOST, HOST_OPS};
use canopy_proto::serve::{self, Answer, Limits, Server, Service};
use canopy_proto::version::answer_hello;
use serde_json::{json, Value};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Largest control request (they are short).
const MAX_REQUEST: usize = 64 << 10;
/// A request line must be whole within this of the previous answer.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Most control connections at once.
const MAX_CONNS: usize = 8;

/// The host, shared by the control thread and the signal handler (None once stopping).
pub(super) type Shared = Arc<Mutex<Option<HostRun>>>;

struct Control(Shared);

impl Service for Control {
    fn answer(&self, line: &[u8]) -> Answer {
        let (v, close) = answer(line, &self.0);
        Answer::json(&v).closing_if(close)
    }
}

/// Serve the control socket `listener`, bound at `path`.
pub(super) fn spawn(listener: UnixListener, path: PathBuf, host: Shared) -> Result<Server> {
    let limits = Limits {
        max_conns: MAX_CONNS,
        max_request: MAX_REQUEST,
        read_timeout: READ_TIMEOUT,
    };
    serve::spawn_unix(
        listener,
        path,
        Arc::new(Control(host)),
        limits,
        Arc::default(),
        "canopy-host-ctl",
    )
    .context("cannot start the host control thread")
}

/// Answer one request line; `true`: close after it (a refused `hello`).
fn answer(line: &[u8], host: &Shared) -> (Value, bool) {
    let req: HostRequest = match serde_json::from_slice(line) {
        Ok(r) => r,
        Err(e) => {
            return (
                err(format!(
                    "not a host request ({e}); ops: {}",
                    HOST_OPS.join(", ")
                )),
                false,
            )
        }
    };
    if let HostRequest::Hello { version } = req {
        let a = answer_hello(HOST, version);
        let close = !a.ok;
        return (serde_json::to_value(a).unwrap_or_else(err), close);
    }
    let op = req.op();
    let mut guard = host.lock().unwrap_or_else(|p| p.into_inner());
    let Some(h) = guard.as_mut() else {
        return (err(format!("{op}: the host is stopping")), false);
    };
    let done = match &req {
        HostRequest::Hello { .. } | HostRequest::Switches {} => Ok(()),
        HostRequest::Stop { switch } => h.stop_switch(switch),
        HostRequest::Start { switch } => h.start_switch(switch),
    };
    let v = match done {
        Err(e) => err(format!("{op}: {e:#}")),
        Ok(()) => match serde_json::to_value(h.report()) {
            Ok(mut v) => {
                v["ok"] = json!(true);
                v
            }
            Err(e) => err(format!("{op}: {e}")),
        },
    };
    (v, false)
}
