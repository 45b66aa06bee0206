//! The host's control socket: one thread accepts and serves one connection at a time,
//! request by request, with the management protocol's framing (`hello`, then
//! [`HostRequest`]s; `docs/shared-host.md`).

use super::HostRun;
use crate::server::conn::send;
use crate::server::dispatch::err;
use crate::server::line::{LineEnd, LineReader};
use anyhow::{Context, Result};
use canopy_proto::host::{HostRequest, HOST, HOST_OPS};
use canopy_proto::version::answer_hello;
use serde_json::{json, Value};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tracing::{debug, warn};

/// Largest control request (they are short).
const MAX_REQUEST: usize = 64 << 10;
/// A connection that sends no complete request within this time is closed.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The host, shared by the control thread and the signal handler (None once stopping).
pub(super) type Shared = Arc<Mutex<Option<HostRun>>>;

/// Start the control thread on `listener`.
pub(super) fn spawn(listener: UnixListener, host: Shared) -> Result<()> {
    std::thread::Builder::new()
        .name("canopy-host-ctl".into())
        .spawn(move || loop {
            match listener.accept() {
                Ok((s, _)) => {
                    if let Err(e) = serve(s, &host) {
                        debug!("host control connection: {e}");
                    }
                }
                Err(e) => {
                    warn!("accept on the host control socket: {e}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        })
        .context("cannot start the host control thread")?;
    Ok(())
}

fn serve(mut s: UnixStream, host: &Shared) -> std::io::Result<()> {
    s.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut r = LineReader::new();
    loop {
        match r.next(&mut s, MAX_REQUEST, READ_TIMEOUT)? {
            LineEnd::Eof | LineEnd::Timeout(_) => return Ok(()),
            LineEnd::Oversize => {
                return send(
                    &mut s,
                    &err(format!("request larger than {MAX_REQUEST} bytes")),
                )
            }
            LineEnd::Line(line) if line.iter().all(u8::is_ascii_whitespace) => {}
            LineEnd::Line(line) => {
                let (answer, close) = answer(&line, host);
                send(&mut s, &answer)?;
                if close {
                    return Ok(());
                }
            }
        }
    }
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
