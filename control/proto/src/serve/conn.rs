//! One connection served: its slot, its deadlines, on TCP its authentication, then
//! request after request.

use super::slots::{Phase, Slots, Ticket};
use super::{send, Answer, Limits, LineEnd, LineReader, Service, Socket, Stats, PRE_AUTH_MAX};
use crate::auth::{self, AuthRequest, ChallengeAnswer};
use crate::mgmt::AUTH_FAILED;
use std::net::{Shutdown, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracing::{debug, info, warn};

/// How long the accept thread waits to tell a refused connection why.
const REFUSAL_WRITE: Duration = Duration::from_millis(200);

/// What one accepted connection is served with.
pub(super) struct Conn {
    pub(super) svc: Arc<dyn Service>,
    pub(super) limits: Limits,
    /// The token, on TCP.
    pub(super) token: Option<Arc<Vec<u8>>>,
    pub(super) peer: Option<SocketAddr>,
    pub(super) stats: Arc<Stats>,
    pub(super) slots: Arc<Slots>,
    pub(super) closed: Arc<AtomicBool>,
}

/// A connection's slot, given back when dropped.
struct Leave {
    slots: Arc<Slots>,
    ticket: Ticket,
}

impl Drop for Leave {
    fn drop(&mut self) {
        self.slots.leave(&self.ticket);
    }
}

/// Where a TCP connection is in its authentication.
enum Auth {
    /// Nothing yet.
    Start,
    /// `challenge` answered: both nonces.
    Challenged {
        client: [u8; auth::NONCE_BYTES],
        switch: [u8; auth::NONCE_BYTES],
    },
    /// Authenticated (or a Unix socket, trusted).
    Done,
}

/// What one request line did to the connection.
enum Step {
    Continue,
    Close,
}

impl Conn {
    /// Take a slot for `s` (or refuse it, saying why) and serve it on its own thread.
    pub(super) fn start<S: Socket>(self, mut s: S, name: &str) {
        s.configure();
        let now = Instant::now();
        let phase = if self.token.is_some() {
            Phase::Unauthenticated(now)
        } else {
            Phase::Waiting(now)
        };
        let kick: Box<dyn Fn() + Send> = match s.try_clone() {
            Ok(k) => Box::new(move || {
                let _ = k.shutdown(Shutdown::Read);
            }),
            Err(e) => {
                warn!("cannot clone an accepted connection: {e}");
                return;
            }
        };
        let ticket = match self.slots.admit(phase, kick) {
            Ok(t) => t,
            Err(_) => {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                warn!(peer = ?self.peer, limit = self.limits.max_conns, "every connection is in a request; refusing one");
                let _ = s.set_write_timeout(Some(REFUSAL_WRITE));
                let a = Answer::error(format!(
                    "too many connections ({} open, each in a request); try again later",
                    self.limits.max_conns
                ));
                let _ = send(&mut s, &a);
                let _ = s.shutdown(Shutdown::Both);
                return;
            }
        };
        // the slot is given back however serving ends, also if the thread never starts
        let leave = Leave {
            slots: self.slots.clone(),
            ticket,
        };
        let spawned = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                if let Err(e) = self.serve(&mut s, &leave.ticket) {
                    debug!(peer = ?self.peer, "connection: {e}");
                }
                drop(leave);
            });
        if let Err(e) = spawned {
            warn!("cannot start a connection thread: {e}");
        }
    }

    /// Requests until the peer closes, a deadline passes, a line is too long, the
    /// connection yields its slot, or (on TCP) authentication fails.
    fn serve<S: Socket>(&self, s: &mut S, t: &Ticket) -> std::io::Result<()> {
        s.set_write_timeout(Some(self.limits.read_timeout))?;
        let accepted = Instant::now();
        let auth_by = accepted + self.limits.read_timeout;
        let mut auth = if self.token.is_some() {
            Auth::Start
        } else {
            Auth::Done
        };
        let mut r = LineReader::new();
        let mut next_by = accepted + self.limits.read_timeout;
        loop {
            let authed = matches!(auth, Auth::Done);
            let (limit, by) = if authed {
                (self.limits.max_request, next_by)
            } else {
                (
                    self.limits.max_request.min(PRE_AUTH_MAX),
                    next_by.min(auth_by),
                )
            };
            let end = r.next(s, limit, by);
            if t.evicted.load(Ordering::Acquire) {
                return self.yielded(s);
            }
            if self.closed.load(Ordering::Acquire) {
                return Ok(());
            }
            let line = match end? {
                LineEnd::Eof if matches!(auth, Auth::Challenged { .. }) => {
                    // a client that gets the switch's proof and leaves without its own
                    // found that the proof does not match its token: counted as such
                    self.stats.auth_failures.fetch_add(1, Ordering::Relaxed);
                    warn!(peer = ?self.peer, "authentication failed (the client left after the challenge: another token)");
                    return Ok(());
                }
                LineEnd::Eof => return Ok(()),
                LineEnd::Timeout(_) if !authed => {
                    let why = format!(
                        "no authentication within {} ms of connecting",
                        self.limits.read_timeout.as_millis()
                    );
                    return self.auth_failed(s, &why);
                }
                LineEnd::Timeout(partial) => {
                    if partial {
                        let a = Answer::error(format!(
                            "read timeout: no complete request line within {} ms",
                            self.limits.read_timeout.as_millis()
                        ));
                        send(s, &a)?;
                        s.finish();
                    }
                    return Ok(());
                }
                LineEnd::Oversize if !authed => {
                    return self.auth_failed(s, "a line longer than an authentication before it")
                }
                LineEnd::Oversize => {
                    warn!(peer = ?self.peer, limit = self.limits.max_request, "oversized request, closing the connection");
                    let a = Answer::error(format!(
                        "request larger than {} bytes; closing the connection",
                        self.limits.max_request
                    ));
                    send(s, &a)?;
                    s.finish();
                    return Ok(());
                }
                LineEnd::Line(l) => l,
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if !self.slots.set(t, Phase::Busy) {
                return self.yielded(s);
            }
            let step = if authed {
                let a = self.svc.answer(&line);
                drop(line);
                send(s, &a)?;
                if a.close {
                    s.finish();
                    Step::Close
                } else {
                    Step::Continue
                }
            } else {
                self.authenticate(s, &line, &mut auth)?
            };
            if let Step::Close = step {
                return Ok(());
            }
            let now = Instant::now();
            next_by = now + self.limits.read_timeout;
            let phase = match auth {
                Auth::Done => Phase::Waiting(now),
                _ => Phase::Unauthenticated(accepted),
            };
            if !self.slots.set(t, phase) {
                return self.yielded(s);
            }
        }
    }

    /// One line of the authentication exchange ([`crate::auth`]).
    fn authenticate<S: Socket>(
        &self,
        s: &mut S,
        line: &[u8],
        auth: &mut Auth,
    ) -> std::io::Result<Step> {
        let token = self.token.as_deref().map(Vec::as_slice).unwrap_or_default();
        let req = serde_json::from_slice::<AuthRequest>(line).ok();
        match (req, &*auth) {
            (Some(AuthRequest::Challenge { nonce }), Auth::Start) => {
                let Some(client) = auth::decode_hex32(&nonce) else {
                    self.auth_failed(s, "a malformed challenge")?;
                    return Ok(Step::Close);
                };
                let switch = auth::nonce();
                let a = ChallengeAnswer {
                    ok: true,
                    nonce: auth::hex(&switch),
                    proof: auth::hex(&auth::switch_proof(token, &client, &switch)),
                };
                send(s, &Answer::json(&a))?;
                *auth = Auth::Challenged { client, switch };
                Ok(Step::Continue)
            }
            (Some(AuthRequest::Auth { proof }), Auth::Challenged { client, switch }) => {
                let want = auth::client_proof(token, switch, client);
                if !auth::proof_matches(&want, &proof) {
                    self.auth_failed(s, "a wrong proof (another token)")?;
                    return Ok(Step::Close);
                }
                info!(peer = ?self.peer, "TCP management connection authenticated");
                send(
                    s,
                    &Answer::json(&serde_json::json!({"ok": true, "auth": "ok"})),
                )?;
                *auth = Auth::Done;
                Ok(Step::Continue)
            }
            (Some(_), _) => {
                self.auth_failed(s, "an authentication step out of order")?;
                Ok(Step::Close)
            }
            (None, _) => {
                self.auth_failed(s, "a request before authentication")?;
                Ok(Step::Close)
            }
        }
    }

    /// Count a failed authentication, answer [`AUTH_FAILED`], close.
    fn auth_failed<S: Socket>(&self, s: &mut S, why: &str) -> std::io::Result<()> {
        self.stats.auth_failures.fetch_add(1, Ordering::Relaxed);
        warn!(peer = ?self.peer, "authentication failed ({why}); closing the connection");
        send(s, &Answer::error(format!("{AUTH_FAILED}: {why}")))?;
        s.finish();
        Ok(())
    }

    /// The connection's slot went to a newer one: say so and close (no lingering: the
    /// slot is already someone else's).
    fn yielded<S: Socket>(&self, s: &mut S) -> std::io::Result<()> {
        self.stats.evicted.fetch_add(1, Ordering::Relaxed);
        debug!(peer = ?self.peer, "connection gave its slot to a new one");
        let _ = s.set_write_timeout(Some(REFUSAL_WRITE));
        let a = Answer::error(format!(
            "connection closed: all {} slots were taken and this one was waiting between requests; connect again",
            self.limits.max_conns
        ));
        let _ = send(s, &a);
        let _ = s.shutdown(Shutdown::Both);
        Ok(())
    }
}
