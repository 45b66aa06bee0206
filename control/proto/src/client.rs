//! A client of the management endpoint (`docs/canopy-switch.md`): the Unix socket, or
//! the TCP endpoint with its token (the `auth` exchange first). One request per
//! connection; `canopy-switch ctl`, the testbed and controllers use it.

use crate::mgmt::AuthRequest;
use serde::Serialize;
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

impl Endpoint {
    /// Send one request (a [`crate::mgmt::Request`] to a switch, a
    /// [`crate::control::Request`] to `canopyd`) and return the response object as the
    /// server sent it (`"ok": false` responses included).
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
                exchange(self, &mut s, &mut r, req)
            }
        }
    }
}
