//! Management connections: the accept loops of the Unix socket and the TCP endpoint,
//! and one connection served request by request (on TCP, `auth` first).

use super::dispatch::{err, Answer};
use super::line::{LineEnd, LineReader};
use super::Shared;
use crate::config::Config;
use anyhow::{bail, Context, Result};
use canopy_proto::mgmt::{AUTH_FAILED, MAX_TCP_CONNS};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracing::{debug, info, warn};

/// Bind the TCP endpoint when configured: (listener, bound address, SHA-256 of the token).
pub(super) fn bind_tcp(
    cfg: &Config,
    token: Option<Vec<u8>>,
) -> Result<Option<(TcpListener, SocketAddr, [u8; 32])>> {
    let Some(t) = &cfg.management.tcp else {
        return Ok(None);
    };
    let Some(token) = token else {
        bail!("[management] tcp is set but no token was read from token_file");
    };
    let l = TcpListener::bind(t.addr)
        .with_context(|| format!("cannot listen on {} (management.tcp)", t.addr))?;
    let addr = l
        .local_addr()
        .context("cannot read the TCP endpoint's address")?;
    Ok(Some((l, addr, Sha256::digest(&token).into())))
}

/// Accept loop of the TCP endpoint: a thread per connection, at most
/// [`MAX_TCP_CONNS`] at once; one more is told so and closed.
pub(super) fn serve_tcp(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let accepted = listener.accept();
        if shared.closed() {
            return;
        }
        let (mut stream, peer) = match accepted {
            Ok(x) => x,
            Err(e) => {
                warn!("accept on the TCP management endpoint: {e}");
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let open = shared.tcp_open.fetch_add(1, Ordering::AcqRel);
        if open >= MAX_TCP_CONNS {
            shared.tcp_open.fetch_sub(1, Ordering::AcqRel);
            shared.tcp_refused.fetch_add(1, Ordering::Relaxed);
            warn!(%peer, limit = MAX_TCP_CONNS, "too many TCP management connections; refusing one");
            let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
            let _ = send(
                &mut stream,
                &err(format!(
                    "too many management connections ({MAX_TCP_CONNS} open); try again later"
                )),
            );
            let _ = stream.shutdown(std::net::Shutdown::Both);
            continue;
        }
        let sh = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("canopy-mgmt-conn".into())
            .spawn(move || {
                struct Slot<'a>(&'a AtomicUsize);
                impl Drop for Slot<'_> {
                    fn drop(&mut self) {
                        self.0.fetch_sub(1, Ordering::AcqRel);
                    }
                }
                let _slot = Slot(&sh.tcp_open);
                let _ = stream.set_nodelay(true);
                debug!(%peer, "TCP management connection");
                if let Err(e) = serve_conn(stream, &sh, Transport::Tcp(peer)) {
                    debug!(%peer, "TCP management connection: {e}");
                }
            });
        if let Err(e) = spawned {
            // the closure (and its slot guard) never ran
            shared.tcp_open.fetch_sub(1, Ordering::AcqRel);
            warn!(%peer, "cannot start a thread for a TCP management connection: {e}");
        }
    }
}

/// Accept loop of one management thread.
pub(super) fn serve(listener: UnixListener, shared: Arc<Shared>) {
    loop {
        let accepted = listener.accept();
        if shared.closed() {
            return;
        }
        match accepted {
            Ok((stream, _)) => {
                if let Err(e) = serve_conn(stream, &shared, Transport::Unix) {
                    debug!("management connection: {e}");
                }
            }
            Err(e) => {
                warn!("accept on management socket: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// A management connection: a Unix or TCP stream.
pub(crate) trait Stream: Read + Write {
    /// As the socket's `set_read_timeout`.
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    /// As the socket's `set_write_timeout`.
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    /// Before closing after a final error: make sure the peer can read it.
    fn finish(&mut self) {}
}

impl Stream for UnixStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_read_timeout(self, t)
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_write_timeout(self, t)
    }
}

impl Stream for TcpStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        TcpStream::set_read_timeout(self, t)
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        TcpStream::set_write_timeout(self, t)
    }
    /// A lingering close: closing a TCP socket with unread input sends a reset, which
    /// can discard the error answer before the peer reads it. So: end our side, then
    /// drain (at most [`LINGER_BYTES`] for [`LINGER`]) what the peer still sends.
    fn finish(&mut self) {
        if self.shutdown(std::net::Shutdown::Write).is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER;
        let mut left = LINGER_BYTES;
        let mut sink = [0u8; 16 << 10];
        while left > 0 {
            let now = Instant::now();
            if now >= deadline || self.set_read_timeout(Some(deadline - now)).is_err() {
                return;
            }
            match self.read(&mut sink) {
                Ok(0) | Err(_) => return,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    }
}

/// How long a closing TCP connection drains the peer's input ([`Stream::finish`]).
const LINGER: Duration = Duration::from_millis(500);
/// How much of it.
const LINGER_BYTES: usize = 1 << 20;

/// Where a connection came from.
#[derive(Clone, Copy)]
enum Transport {
    /// The Unix socket: trusted (mode 0600), no token.
    Unix,
    /// The TCP endpoint: `auth` first.
    Tcp(SocketAddr),
}

/// Largest request before a successful `auth` on TCP (an `auth` line is short; an
/// unauthenticated peer cannot make the switch buffer `max_request_bytes`).
pub const PRE_AUTH_MAX: usize = 4096;

pub(crate) fn send<S: Write>(s: &mut S, v: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    line.push(b'\n');
    s.write_all(&line)
}

/// Serve one connection: requests until EOF, timeout or an oversized request; on TCP,
/// also until a failed authentication.
fn serve_conn<S: Stream>(mut s: S, shared: &Shared, via: Transport) -> std::io::Result<()> {
    s.set_write_timeout(Some(shared.read_timeout))?;
    let mut r = LineReader::new();
    let mut authed = matches!(via, Transport::Unix);
    loop {
        let limit = if authed {
            shared.max_request
        } else {
            shared.max_request.min(PRE_AUTH_MAX)
        };
        match r.next(&mut s, limit, shared.read_timeout)? {
            LineEnd::Eof => return Ok(()),
            LineEnd::Timeout(partial) => {
                if partial {
                    send(
                        &mut s,
                        &err(format!(
                            "read timeout: no complete request line within {} ms",
                            shared.read_timeout.as_millis()
                        )),
                    )?;
                    s.finish();
                }
                return Ok(());
            }
            LineEnd::Oversize if !authed => {
                return auth_failed(&mut s, shared, via, "an oversized line before auth");
            }
            LineEnd::Oversize => {
                warn!(
                    limit = shared.max_request,
                    "oversized management request, closing connection"
                );
                send(
                    &mut s,
                    &err(format!(
                        "request larger than {} bytes (management.max_request_bytes); closing the connection",
                        shared.max_request
                    )),
                )?;
                s.finish();
                return Ok(());
            }
            LineEnd::Line(line) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if let Transport::Tcp(peer) = via {
                    // On TCP every `auth` is checked, the first and any later one: a
                    // wrong token closes even an authenticated connection.
                    let v: Option<Value> = serde_json::from_slice(&line).ok();
                    let is_auth = v.as_ref().and_then(|v| v.get("op")).and_then(Value::as_str)
                        == Some("auth");
                    if is_auth {
                        if v.as_ref().is_some_and(|v| shared.auth_ok(v)) {
                            if !authed {
                                info!(%peer, "TCP management connection authenticated");
                            }
                            authed = true;
                            send(&mut s, &json!({"ok": true, "auth": "ok"}))?;
                            continue;
                        }
                        return auth_failed(&mut s, shared, via, "a wrong token");
                    }
                    if !authed {
                        return auth_failed(&mut s, shared, via, "a request before auth");
                    }
                    let resp = match v {
                        Some(v) => shared.answer_value(v),
                        None => shared.answer_line(&line),
                    };
                    if reply(&mut s, resp)? {
                        return Ok(());
                    }
                    continue;
                }
                if reply(&mut s, shared.answer_line(&line))? {
                    return Ok(());
                }
            }
        }
    }
}

/// Send `a`; true when the connection ends after it (and then it is finished).
fn reply<S: Stream>(s: &mut S, a: Answer) -> std::io::Result<bool> {
    send(s, &a.value)?;
    if a.close {
        s.finish();
    }
    Ok(a.close)
}

/// Count a failed authentication, answer [`AUTH_FAILED`], close the connection.
fn auth_failed<S: Stream>(
    s: &mut S,
    shared: &Shared,
    via: Transport,
    why: &str,
) -> std::io::Result<()> {
    shared.auth_failures.fetch_add(1, Ordering::Relaxed);
    if let Transport::Tcp(peer) = via {
        warn!(%peer, "management authentication failed ({why}); closing the connection");
    }
    send(s, &err(AUTH_FAILED))?;
    s.finish();
    Ok(())
}
