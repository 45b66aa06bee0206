//! `canopyd`'s control socket (`docs/canopyd.md`): newline-delimited JSON over a Unix
//! stream socket created 0600, served by [`canopy_proto::serve`] with the switches'
//! connection discipline (slots, deadlines). `canopyctl fabric ...` and
//! `canopy-testbed run` (traffic reports) are its clients; the requests and replies
//! are `canopy_proto::control`'s.

use super::run::{reply_channel, wait, Command, DaemonHandle};
use canopy_proto::control::{PushResult, Request, SwitchCounters, OPS};
use canopy_proto::serve::{self, Answer, Limits, Server, Service, SocketPathError};
use canopy_proto::version::{answer_hello, DAEMON};
use serde_json::{json, Value};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// Largest request line (a traffic report with its latency buckets fits).
pub const MAX_REQUEST: usize = 1 << 20;
/// Most connections at once (one waiting between requests yields its slot to a new
/// one when all are taken).
pub const MAX_CONNS: usize = 8;
/// How long a connection may take to send a request line (the whole line: a client
/// that trickles bytes or sends blank lines does not extend it), counted from the
/// previous answer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a `push` or `set_port` may wait for the planner.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// What can go wrong starting the control socket.
#[derive(Debug, Error)]
pub enum ControlError {
    /// The path is taken (another canopyd listens, or it is not a socket), too long,
    /// or its directory cannot be made.
    #[error(transparent)]
    Path(#[from] SocketPathError),
    /// Binding or starting the server failed.
    #[error("{path}: {what}: {source}")]
    Io {
        /// The socket path.
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The running control socket; closed and removed on drop.
pub struct ControlServer {
    path: PathBuf,
    server: Option<Server>,
}

/// The control socket bound, not served yet: canopyd binds it before it drops its
/// privileges (and gives it to the user it changes to, [`ControlSocket::files`]), and
/// serves it once the daemon's threads run. Dropped unserved, it removes the socket and
/// the directory made for it (when empty).
#[derive(Debug)]
pub struct ControlSocket {
    listener: UnixListener,
    made: Made,
}

/// What [`ControlSocket::bind`] made; removed on drop while `armed`.
#[derive(Debug)]
struct Made {
    path: PathBuf,
    created_dir: Option<PathBuf>,
    armed: bool,
}

impl Drop for Made {
    fn drop(&mut self) {
        if self.armed {
            serve::unprepare_socket(&self.path, self.created_dir.as_deref());
        }
    }
}

impl ControlSocket {
    /// Bind `path` (0600; a stale socket left by a dead daemon is replaced, anything
    /// else there is refused; a missing directory is created 0700).
    pub fn bind(path: &Path) -> Result<ControlSocket, ControlError> {
        let made = Made {
            path: path.to_path_buf(),
            created_dir: serve::prepare_socket(path)?,
            armed: true,
        };
        // on an error `made` drops and removes what was made
        let listener =
            canopy_proto::sys::bind_private(path).map_err(|source| ControlError::Io {
                path: path.to_path_buf(),
                what: "bind",
                source,
            })?;
        Ok(ControlSocket { listener, made })
    }

    /// The socket, and the directory [`ControlSocket::bind`] made for it: what a user
    /// canopyd changes to must own to remove the socket at exit.
    pub fn files(&self) -> Vec<&Path> {
        std::iter::once(self.made.path.as_path())
            .chain(self.made.created_dir.as_deref())
            .collect()
    }

    /// Serve it with `daemon`'s answers (an accept thread from now on).
    pub fn serve(self, daemon: DaemonHandle) -> Result<ControlServer, ControlError> {
        let ControlSocket { listener, mut made } = self;
        let limits = Limits {
            max_conns: MAX_CONNS,
            max_request: MAX_REQUEST,
            read_timeout: READ_TIMEOUT,
        };
        let server = serve::spawn_unix(
            listener,
            made.path.clone(),
            Arc::new(Control(daemon)),
            limits,
            Arc::default(),
            "control",
        )
        .map_err(|source| ControlError::Io {
            path: made.path.clone(),
            what: "start the accept thread",
            source,
        })?;
        made.armed = false;
        Ok(ControlServer {
            path: made.path.clone(),
            server: Some(server),
        })
    }
}

impl ControlServer {
    /// Bind `path` ([`ControlSocket::bind`]) and serve.
    pub fn start(path: &Path, daemon: DaemonHandle) -> Result<ControlServer, ControlError> {
        ControlSocket::bind(path)?.serve(daemon)
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        if let Some(mut s) = self.server.take() {
            s.close();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The control socket's answers.
struct Control(DaemonHandle);

impl Service for Control {
    fn answer(&self, line: &[u8]) -> Answer {
        match decode_request(line) {
            Ok(req) => {
                let hello = matches!(req, Request::Hello { .. });
                let a = handle(req, &self.0);
                // a refused `hello` ends the connection
                let close = hello && a["ok"] != json!(true);
                Answer::json(&a).closing_if(close)
            }
            Err(e) => Answer::error(format!("bad request: {e} (ops: {})", OPS.join(", "))),
        }
    }
}

/// Decode one request line (the JSON of a [`Request`]; surrounding whitespace and the
/// newline allowed).
pub fn decode_request(line: &[u8]) -> Result<Request, serde_json::Error> {
    serde_json::from_slice(line)
}

fn err(msg: String) -> Value {
    json!({"ok": false, "error": msg})
}

fn handle(req: Request, d: &DaemonHandle) -> Value {
    let index = |name: &str| {
        d.switch_index(name).ok_or_else(|| {
            format!(
                "no switch named {name:?} in {} (`canopyctl fabric status` lists them)",
                d.config().spec
            )
        })
    };
    match req {
        Request::Hello { version } => json!(answer_hello(DAEMON, version)),
        Request::Status {} => {
            json!({"ok": true, "snapshot": d.snapshot(), "warnings": d.warnings()})
        }
        Request::Counters { switch } => {
            let want = match switch.as_deref().map(index).transpose() {
                Ok(w) => w,
                Err(e) => return err(e),
            };
            let snap = d.snapshot();
            let v: Vec<SwitchCounters> = snap
                .switches
                .into_iter()
                .enumerate()
                .filter(|(i, _)| want.is_none_or(|w| w == *i))
                .map(|(_, s)| SwitchCounters {
                    switch: s.name,
                    up: s.up,
                    counters: if s.up { s.counters } else { None },
                })
                .collect();
            json!({"ok": true, "switches": v})
        }
        Request::Push { switch } => {
            let want = match switch.as_deref().map(index).transpose() {
                Ok(w) => w,
                Err(e) => return err(e),
            };
            let (tx, rx) = reply_channel();
            if !d.command(Command::Push {
                switch: want,
                reply: tx,
            }) {
                return err("the daemon is stopping".into());
            }
            match wait(rx, COMMAND_TIMEOUT) {
                Some(results) => {
                    let all_ok = results.iter().all(|(_, r)| r.is_ok());
                    let v: Vec<PushResult> = results
                        .into_iter()
                        .map(|(switch, r)| PushResult {
                            switch,
                            ok: r.is_ok(),
                            error: r.err().map(|e| e.to_string()),
                        })
                        .collect();
                    if all_ok {
                        json!({"ok": true, "results": v})
                    } else {
                        json!({"ok": false, "error": "some pushes failed", "results": v})
                    }
                }
                None => err("no answer from the planner in time".into()),
            }
        }
        Request::SetPort { switch, port, up } => {
            let i = match index(&switch) {
                Ok(i) => i,
                Err(e) => return err(e),
            };
            let (tx, rx) = reply_channel();
            if !d.command(Command::SetPort {
                switch: i,
                port,
                up,
                reply: tx,
            }) {
                return err("the daemon is stopping".into());
            }
            match wait(rx, COMMAND_TIMEOUT) {
                Some(Ok(m)) => json!({"ok": true, "message": m}),
                Some(Err(e)) => err(e.to_string()),
                None => err("no answer from the planner in time".into()),
            }
        }
        Request::Traffic {
            sent,
            received,
            lost,
            misdelivered,
            latency_ns,
        } => {
            if latency_ns.len() > 100_000 {
                return err(format!(
                    "{} latency buckets; at most 100000",
                    latency_ns.len()
                ));
            }
            d.add_traffic(sent, received, lost, misdelivered, &latency_ns);
            json!({"ok": true})
        }
    }
}
