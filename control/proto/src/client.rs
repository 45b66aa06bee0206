//! A client of the management endpoint (`docs/canopy-switch.md`): the Unix socket, or
//! the TCP endpoint with its token (the `auth` exchange first), and of `canopyd`'s
//! control socket. One request per connection, after the `hello` handshake
//! ([`crate::version`]); `canopyd`, `canopyctl fabric`, `canopy-switch ctl`, the testbed
//! and controllers use it.

use crate::mgmt::{AuthRequest, Request};
use crate::version::{HelloAnswer, VersionMismatch, PROTOCOL_VERSION};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// Where a switch's management endpoint is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// The Unix socket (`[management] socket`).
    Unix(PathBuf),
    /// The TCP endpoint (`[management] tcp`, `HOST:PORT`) and the switch's token.
    Tcp(String, Vec<u8>),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Unix(p) => write!(f, "{}", p.display()),
            Endpoint::Tcp(a, _) => write!(f, "tcp {a}"),
        }
    }
}

/// What can go wrong talking to a switch.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The endpoint could not be reached.
    #[error("{to}: cannot connect: {detail}")]
    Connect {
        /// The endpoint.
        to: String,
        /// Why.
        detail: String,
    },
    /// Sending or receiving failed (including a timeout).
    #[error("{to}: {what}: {source}")]
    Io {
        /// The endpoint.
        to: String,
        /// What was being done.
        what: &'static str,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The switch closed the connection without answering.
    #[error("{to}: the switch closed the connection without a response")]
    Closed {
        /// The endpoint.
        to: String,
    },
    /// The response was not a JSON object line.
    #[error("{to}: malformed response: {detail}")]
    Malformed {
        /// The endpoint.
        to: String,
        /// The parse error and the line.
        detail: String,
    },
    /// The server speaks another protocol version (the request was not sent).
    #[error("{to}: {mismatch}")]
    Version {
        /// The endpoint.
        to: String,
        /// Both versions.
        mismatch: VersionMismatch,
    },
    /// The server refused `hello` for another reason (it is shutting down, say).
    #[error("{to}: hello refused: {detail}")]
    Hello {
        /// The endpoint.
        to: String,
        /// The server's answer.
        detail: String,
    },
    /// The TCP endpoint refused the token.
    #[error("{to}: {detail} (is the token the switch's?)")]
    Auth {
        /// The endpoint.
        to: String,
        /// The switch's error text.
        detail: String,
    },
}

/// Send `req` and read one response line.
fn exchange<S: Read + Write>(
    to: &Endpoint,
    w: &mut S,
    r: &mut BufReader<impl Read>,
    req: &(impl Serialize + ?Sized),
) -> Result<Value, ClientError> {
    let io = |what, source| ClientError::Io {
        to: to.to_string(),
        what,
        source,
    };
    let mut line = serde_json::to_vec(req).map_err(|e| io("encode", e.into()))?;
    line.push(b'\n');
    w.write_all(&line).map_err(|e| io("send", e))?;
    let mut resp = String::new();
    r.read_line(&mut resp).map_err(|e| io("receive", e))?;
    if resp.is_empty() {
        return Err(ClientError::Closed { to: to.to_string() });
    }
    serde_json::from_str(&resp).map_err(|e| ClientError::Malformed {
        to: to.to_string(),
        detail: format!("{e}: {}", resp.trim_end()),
    })
}

/// Say `hello` and check the server's version: `Ok` when it speaks
/// [`PROTOCOL_VERSION`]. A server before versions answers `hello` as an unknown op
/// (`unknown op "hello"` from a switch, ``unknown variant `hello` `` from `canopyd`).
fn hello<S: Read + Write>(
    to: &Endpoint,
    w: &mut S,
    r: &mut BufReader<impl Read>,
) -> Result<(), ClientError> {
    // the switch's and canopyd's `hello` are the same line
    let req = Request::Hello {
        version: PROTOCOL_VERSION,
    };
    let a = exchange(to, w, r, &req)?;
    let mismatch = |server: String, server_version| ClientError::Version {
        to: to.to_string(),
        mismatch: VersionMismatch {
            server,
            server_version,
            client: PROTOCOL_VERSION,
        },
    };
    if let Ok(h) = HelloAnswer::deserialize(&a) {
        return if h.ok && h.version == PROTOCOL_VERSION {
            Ok(())
        } else {
            Err(mismatch(h.server, h.version))
        };
    }
    let detail = a
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or("no error text")
        .to_string();
    if detail.contains("op \"hello\"") || detail.contains("variant `hello`") {
        return Err(mismatch("the server".into(), 0));
    }
    Err(ClientError::Hello {
        to: to.to_string(),
        detail,
    })
}

impl Endpoint {
    /// Say `hello` (a server of another protocol version is a [`ClientError::Version`],
    /// and the request is not sent), then send one request (a [`crate::mgmt::Request`]
    /// to a switch, a [`crate::control::Request`] to `canopyd`) and return the response
    /// object as the server sent it (`"ok": false` responses included).
    pub fn request(
        &self,
        req: &(impl Serialize + ?Sized),
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let io = |what, source| ClientError::Io {
            to: self.to_string(),
            what,
            source,
        };
        match self {
            Endpoint::Unix(socket) => {
                let mut s = UnixStream::connect(socket).map_err(|e| ClientError::Connect {
                    to: self.to_string(),
                    detail: e.to_string(),
                })?;
                s.set_read_timeout(Some(timeout))
                    .and_then(|_| s.set_write_timeout(Some(timeout)))
                    .map_err(|e| io("set timeouts", e))?;
                let mut r = BufReader::new(s.try_clone().map_err(|e| io("clone", e))?);
                hello(self, &mut s, &mut r)?;
                exchange(self, &mut s, &mut r, req)
            }
            Endpoint::Tcp(addr, token) => {
                let connect = |detail: String| ClientError::Connect {
                    to: self.to_string(),
                    detail,
                };
                let addrs: Vec<_> = addr
                    .to_socket_addrs()
                    .map_err(|e| connect(format!("not HOST:PORT ({e})")))?
                    .collect();
                let mut last = String::from("no address");
                let mut conn = None;
                for a in &addrs {
                    match TcpStream::connect_timeout(a, timeout) {
                        Ok(s) => {
                            conn = Some(s);
                            break;
                        }
                        Err(e) => last = e.to_string(),
                    }
                }
                let mut s = conn.ok_or_else(|| connect(last))?;
                s.set_read_timeout(Some(timeout))
                    .and_then(|_| s.set_write_timeout(Some(timeout)))
                    .map_err(|e| io("set timeouts", e))?;
                let mut r = BufReader::new(s.try_clone().map_err(|e| io("clone", e))?);
                let auth = AuthRequest::Auth {
                    token: String::from_utf8_lossy(token).into_owned(),
                };
                let a = exchange(self, &mut s, &mut r, &auth)?;
                if a.get("ok").and_then(Value::as_bool) != Some(true) {
                    return Err(ClientError::Auth {
                        to: self.to_string(),
                        detail: a
                            .get("error")
                            .and_then(Value::as_str)
                            .unwrap_or("auth refused")
                            .to_string(),
                    });
                }
                hello(self, &mut s, &mut r)?;
                exchange(self, &mut s, &mut r, req)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::SWITCH;
    use serde_json::json;
    use std::os::unix::net::UnixListener;

    /// A server on a Unix socket in `dir` that answers its first line with `hello` and
    /// any later one with `{"ok":true}`; joined, it returns the lines it read.
    fn fake(
        dir: &tempfile::TempDir,
        hello: Value,
    ) -> (Endpoint, std::thread::JoinHandle<Vec<Value>>) {
        let path = dir.path().join("s.sock");
        let l = UnixListener::bind(&path).unwrap();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut w = s.try_clone().unwrap();
            let mut lines = Vec::new();
            for line in BufReader::new(s).lines() {
                let line = line.unwrap();
                let answer = if lines.is_empty() {
                    hello.clone()
                } else {
                    json!({"ok": true})
                };
                lines.push(serde_json::from_str(&line).unwrap());
                writeln!(w, "{answer}").unwrap();
            }
            lines
        });
        (Endpoint::Unix(path), t)
    }

    fn call(hello: Value) -> (Result<Value, ClientError>, Vec<Value>) {
        let dir = tempfile::tempdir().unwrap();
        let (ep, t) = fake(&dir, hello);
        let r = ep.request(&Request::Health {}, Duration::from_secs(10));
        (r, t.join().unwrap())
    }

    #[test]
    fn a_server_of_the_same_version_gets_the_request_after_hello() {
        let (r, lines) = call(json!({"ok": true, "version": PROTOCOL_VERSION, "server": SWITCH}));
        assert_eq!(r.unwrap(), json!({"ok": true}));
        assert_eq!(
            lines,
            vec![
                json!({"op": "hello", "version": PROTOCOL_VERSION}),
                json!({"op": "health"})
            ]
        );
    }

    #[test]
    fn a_newer_server_refuses_and_the_request_is_not_sent() {
        let newer = PROTOCOL_VERSION + 1;
        let refusal = crate::version::VersionMismatch {
            server: SWITCH.into(),
            server_version: newer,
            client: PROTOCOL_VERSION,
        };
        let (r, lines) = call(json!({"ok": false, "version": newer, "server": SWITCH,
                                     "error": refusal.to_string()}));
        let e = r.unwrap_err();
        assert!(matches!(e, ClientError::Version { .. }), "{e}");
        let e = e.to_string();
        assert!(
            e.contains(&format!("canopy-switch speaks version {newer}")),
            "{e}"
        );
        assert!(
            e.contains(&format!("the client speaks version {PROTOCOL_VERSION}")),
            "{e}"
        );
        assert!(e.contains("upgrade the client"), "{e}");
        assert_eq!(lines.len(), 1, "only hello was sent: {lines:?}");
    }

    #[test]
    fn a_server_that_says_ok_for_another_version_is_refused_too() {
        let (r, lines) = call(json!({"ok": true, "version": PROTOCOL_VERSION + 1,
                                     "server": "canopyd"}));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("canopyd speaks version"), "{e}");
        assert_eq!(lines.len(), 1, "{lines:?}");
    }

    #[test]
    fn a_server_before_versions_is_named_and_told_to_upgrade() {
        // what a switch before versions answers (and canopyd's "unknown variant")
        for old in [
            "unknown op \"hello\" (ops: health, counters, set_port)",
            "bad request: unknown variant `hello`, expected one of `status`",
        ] {
            let (r, lines) = call(json!({"ok": false, "error": old}));
            let e = r.unwrap_err().to_string();
            assert!(
                e.contains("speaks version 0 (it predates protocol versions)"),
                "{e}"
            );
            assert!(e.contains("upgrade the server"), "{e}");
            assert_eq!(lines.len(), 1, "{lines:?}");
        }
    }

    #[test]
    fn another_refusal_of_hello_is_reported_as_such() {
        let (r, _) = call(json!({"ok": false, "error": "the switch is shutting down"}));
        let e = r.unwrap_err();
        assert!(matches!(e, ClientError::Hello { .. }), "{e}");
        assert!(e.to_string().contains("the switch is shutting down"));
    }
}
