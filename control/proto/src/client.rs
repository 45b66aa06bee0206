//! A client of the management endpoint (`docs/canopy-switch.md`): the Unix socket, or
//! the TCP endpoint with its token (the `auth` exchange first), and of `canopyd`'s
//! control socket. One request per connection, after the `hello` handshake
//! ([`crate::version`]); `canopyd`, `canopyctl fabric`, `canopy-switch ctl`, the testbed
//! and controllers use it.

use crate::auth::{self, AuthRequest, ChallengeAnswer};
use crate::mgmt::Request;
use crate::serve::{LineEnd, LineReader, Stream};
use crate::version::{HelloAnswer, VersionMismatch, PROTOCOL_VERSION};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Largest answer line a client reads (a `capture` of [`crate::mgmt::MAX_CAPTURE_BYTES`]
/// in hex fits, and any table a switch holds): a server that sends more, or never ends
/// its line, is cut off there.
pub const MAX_ANSWER: usize = 64 << 20;

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
    /// The answer was longer than [`MAX_ANSWER`].
    #[error("{to}: an answer longer than {MAX_ANSWER} bytes; not read further")]
    TooLong {
        /// The endpoint.
        to: String,
    },
    /// The server refused the connection or the request before any token was used
    /// (every slot in a request, shutting down, ...).
    #[error("{to}: refused: {detail}")]
    Refused {
        /// The endpoint.
        to: String,
        /// The server's error text.
        detail: String,
    },
    /// The TCP endpoint did not prove it holds the token: it is not the switch, or the
    /// switch has another token. Nothing derived from the token was sent to it.
    #[error("{to}: the endpoint did not prove it holds the token ({detail}); is the token the switch's?")]
    Impostor {
        /// The endpoint.
        to: String,
        /// What it answered instead.
        detail: String,
    },
    /// The TCP endpoint refused this client's proof.
    #[error("{to}: authentication refused: {detail}")]
    Auth {
        /// The endpoint.
        to: String,
        /// The switch's error text.
        detail: String,
    },
}

/// The `error` text of a refusal (or a stand-in).
fn error_text(a: &Value) -> String {
    a.get("error")
        .and_then(Value::as_str)
        .unwrap_or("no error text")
        .to_string()
}

/// Whether `a` says `"ok": true`.
fn is_ok(a: &Value) -> bool {
    a.get("ok").and_then(Value::as_bool) == Some(true)
}

/// Send `req` and read one answer line, whole within `timeout` and at most
/// [`MAX_ANSWER`] bytes.
fn exchange<S: Stream>(
    to: &Endpoint,
    s: &mut S,
    r: &mut LineReader,
    req: &(impl Serialize + ?Sized),
    timeout: Duration,
) -> Result<Value, ClientError> {
    let io = |what, source| ClientError::Io {
        to: to.to_string(),
        what,
        source,
    };
    let mut line = serde_json::to_vec(req).map_err(|e| io("encode", e.into()))?;
    line.push(b'\n');
    s.write_all(&line).map_err(|e| io("send", e))?;
    drop(line);
    let resp = match r.next(s, MAX_ANSWER, Instant::now() + timeout) {
        Ok(LineEnd::Line(l)) => l,
        Ok(LineEnd::Eof) => return Err(ClientError::Closed { to: to.to_string() }),
        Ok(LineEnd::Oversize) => return Err(ClientError::TooLong { to: to.to_string() }),
        Ok(LineEnd::Timeout(_)) => return Err(io("receive", std::io::ErrorKind::TimedOut.into())),
        Err(e) => return Err(io("receive", e)),
    };
    serde_json::from_slice(&resp).map_err(|e| {
        let shown = String::from_utf8_lossy(&resp[..resp.len().min(200)]).into_owned();
        ClientError::Malformed {
            to: to.to_string(),
            detail: format!("{e}: {}", shown.trim_end()),
        }
    })
}

/// Say `hello` and check the server's version: `Ok` when it speaks
/// [`PROTOCOL_VERSION`]. A server before versions answers `hello` as an unknown op
/// (`unknown op "hello"` from a switch, ``unknown variant `hello` `` from `canopyd`).
fn hello<S: Stream>(
    to: &Endpoint,
    s: &mut S,
    r: &mut LineReader,
    timeout: Duration,
) -> Result<(), ClientError> {
    // the switch's and canopyd's `hello` are the same line
    let req = Request::Hello {
        version: PROTOCOL_VERSION,
    };
    let a = exchange(to, s, r, &req, timeout)?;
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
    let detail = error_text(&a);
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
                let mut r = LineReader::new();
                hello(self, &mut s, &mut r, timeout)?;
                exchange(self, &mut s, &mut r, req, timeout)
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
                let _ = s.set_nodelay(true);
                let mut r = LineReader::new();
                self.authenticate(&mut s, &mut r, token, timeout)?;
                hello(self, &mut s, &mut r, timeout)?;
                exchange(self, &mut s, &mut r, req, timeout)
            }
        }
    }

    /// The challenge–response of [`crate::auth`]: the switch proves it holds `token`
    /// before anything derived from it is sent.
    fn authenticate(
        &self,
        s: &mut TcpStream,
        r: &mut LineReader,
        token: &[u8],
        timeout: Duration,
    ) -> Result<(), ClientError> {
        let client = auth::nonce();
        let challenge = AuthRequest::Challenge {
            nonce: auth::hex(&client),
        };
        let a = exchange(self, s, r, &challenge, timeout)?;
        if !is_ok(&a) {
            return Err(ClientError::Refused {
                to: self.to_string(),
                detail: error_text(&a),
            });
        }
        let proven = ChallengeAnswer::deserialize(&a).ok().and_then(|c| {
            let switch = auth::decode_hex32(&c.nonce)?;
            let want = auth::switch_proof(token, &client, &switch);
            auth::proof_matches(&want, &c.proof).then_some(switch)
        });
        let Some(switch) = proven else {
            let mut shown = a.to_string();
            shown.truncate(200);
            return Err(ClientError::Impostor {
                to: self.to_string(),
                detail: shown,
            });
        };
        let proof = AuthRequest::Auth {
            proof: auth::hex(&auth::client_proof(token, &switch, &client)),
        };
        let a = exchange(self, s, r, &proof, timeout)?;
        if !is_ok(&a) {
            return Err(ClientError::Auth {
                to: self.to_string(),
                detail: error_text(&a),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::SWITCH;
    use serde_json::json;
    use std::io::{BufRead, BufReader, Write};
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

    /// A TCP endpoint that answers each line read with the next of `answers` (raw
    /// bytes, sent as they are); joined, it returns the lines it read.
    fn fake_tcp(answers: Vec<Vec<u8>>) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut w = s.try_clone().unwrap();
            let mut lines = Vec::new();
            let mut r = BufReader::new(s);
            for a in answers {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                lines.push(line.trim_end().to_string());
                if w.write_all(&a).is_err() {
                    break;
                }
            }
            // anything more the client sends
            let mut rest = String::new();
            let _ = std::io::Read::read_to_string(&mut r, &mut rest);
            lines.extend(rest.lines().map(String::from));
            lines
        });
        (addr, t)
    }

    const TOKEN: &[u8] = b"client-test-token-0123456789";

    #[test]
    fn an_impostor_is_told_from_the_switch_and_learns_nothing_of_the_token() {
        // it answers the challenge, but cannot prove it holds the token
        let fake = json!({"ok": true, "nonce": "11".repeat(32), "proof": "22".repeat(32)});
        let (addr, t) = fake_tcp(vec![format!("{fake}\n").into_bytes()]);
        let ep = Endpoint::Tcp(addr, TOKEN.to_vec());
        let e = ep
            .request(&Request::Health {}, Duration::from_secs(5))
            .unwrap_err();
        assert!(matches!(e, ClientError::Impostor { .. }), "{e}");
        assert!(e.to_string().contains("is the token the switch's?"), "{e}");
        let lines = t.join().unwrap();
        assert_eq!(lines.len(), 1, "only the challenge was sent: {lines:?}");
        let sent: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(sent["op"], "challenge");
        let all = lines.join("\n");
        assert!(!all.contains(std::str::from_utf8(TOKEN).unwrap()), "{all}");
    }

    #[test]
    fn a_refusal_before_authentication_is_not_blamed_on_the_token() {
        let busy = json!({"ok": false, "error": "too many connections (16 open, each in a request); try again later"});
        let (addr, t) = fake_tcp(vec![format!("{busy}\n").into_bytes()]);
        let ep = Endpoint::Tcp(addr, TOKEN.to_vec());
        let e = ep
            .request(&Request::Health {}, Duration::from_secs(5))
            .unwrap_err();
        assert!(matches!(e, ClientError::Refused { .. }), "{e}");
        assert!(!e.to_string().contains("token"), "{e}");
        t.join().unwrap();
    }

    #[test]
    fn an_endless_answer_is_cut_off_at_the_limit() {
        // more than MAX_ANSWER bytes and no newline
        let endless = vec![b'x'; MAX_ANSWER + (1 << 20)];
        let (addr, t) = fake_tcp(vec![endless]);
        let ep = Endpoint::Tcp(addr, TOKEN.to_vec());
        let e = ep
            .request(&Request::Health {}, Duration::from_secs(20))
            .unwrap_err();
        assert!(matches!(e, ClientError::TooLong { .. }), "{e}");
        drop(t);
    }

    #[test]
    fn a_switch_that_proves_the_token_gets_a_proof_back() {
        // a server that follows the protocol by hand
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let t = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut w = s.try_clone().unwrap();
            let mut r = BufReader::new(s);
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let c: Value = serde_json::from_str(&line).unwrap();
            let client = auth::decode_hex32(c["nonce"].as_str().unwrap()).unwrap();
            let mine = auth::nonce();
            let a = json!({"ok": true, "nonce": auth::hex(&mine),
                           "proof": auth::hex(&auth::switch_proof(TOKEN, &client, &mine))});
            writeln!(w, "{a}").unwrap();
            line.clear();
            r.read_line(&mut line).unwrap();
            let p: Value = serde_json::from_str(&line).unwrap();
            let want = auth::client_proof(TOKEN, &mine, &client);
            assert!(auth::proof_matches(&want, p["proof"].as_str().unwrap()));
            writeln!(w, "{}", json!({"ok": true, "auth": "ok"})).unwrap();
            line.clear();
            r.read_line(&mut line).unwrap();
            writeln!(
                w,
                "{}",
                json!({"ok": true, "version": PROTOCOL_VERSION, "server": SWITCH})
            )
            .unwrap();
            line.clear();
            r.read_line(&mut line).unwrap();
            writeln!(w, "{}", json!({"ok": true, "pong": 1})).unwrap();
            line
        });
        let ep = Endpoint::Tcp(addr, TOKEN.to_vec());
        let a = ep
            .request(&Request::Health {}, Duration::from_secs(5))
            .unwrap();
        assert_eq!(a["pong"], 1);
        assert_eq!(t.join().unwrap().trim_end(), r#"{"op":"health"}"#);
    }
}
