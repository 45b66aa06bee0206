//! The server side of every newline-delimited JSON socket Canopy serves: a switch's
//! management socket and TCP endpoint, a shared host's control socket, `canopyd`'s
//! control socket. One accept loop, one connection discipline:
//!
//! - each connection has its own thread, and at most [`Limits::max_conns`] are open;
//! - a request line must arrive whole within [`Limits::read_timeout`] of the previous
//!   answer (or of the accept); blank lines are skipped and do not restart that clock;
//! - a line longer than [`Limits::max_request`] is refused and the connection closed;
//! - on TCP, a connection must authenticate ([`crate::auth`]) within
//!   [`Limits::read_timeout`] of its accept, whatever it sends meanwhile; before that its
//!   lines are at most [`PRE_AUTH_MAX`] bytes, and at most half the slots are held by
//!   connections that have not authenticated;
//! - when every slot is taken, a new connection takes the slot of one that is waiting
//!   between requests (one that has not authenticated first, the longest-waiting
//!   first), which is told so and closed; only when every open connection is in the
//!   middle of a request is the new one refused. So no client can hold the server by
//!   keeping connections open, whether it sends blank lines, requests now and then, or
//!   nothing.
//!
//! Files: this one (the accept loop and the server's handle), `slots.rs` (who holds a
//! slot and who yields it), `conn.rs` (one connection served), `line.rs` (its lines),
//! `path.rs` (a socket's path made ready before binding).

mod conn;
mod line;
mod path;
mod slots;

pub use line::{LineEnd, LineReader};
pub use path::{
    check_socket_path, inspect_socket_path, prepare_socket, unprepare_socket, SocketPathError,
    MAX_SOCKET_PATH,
};

use serde::Serialize;
use slots::Slots;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tracing::{debug, warn};

/// Largest request line before a TCP connection has authenticated (`challenge` and
/// `auth` are short): an unauthenticated peer cannot make the server buffer
/// [`Limits::max_request`].
pub const PRE_AUTH_MAX: usize = 4096;

/// How long a closing TCP connection drains the peer's input ([`Stream::finish`]).
const LINGER: Duration = Duration::from_millis(500);
/// How much of it.
const LINGER_BYTES: usize = 1 << 20;

/// A connection's byte stream, as the line reader and the answers use it.
pub trait Stream: Read + Write {
    /// As the socket's `set_read_timeout`.
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    /// As the socket's `set_write_timeout`.
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
    /// Before closing after a final answer: make sure the peer can read it.
    fn finish(&mut self) {}
}

/// An accepted socket: a [`Stream`] whose reading another thread can end.
pub trait Socket: Stream + Send + Sized + 'static {
    /// As the socket's `shutdown`.
    fn shutdown(&self, how: Shutdown) -> std::io::Result<()>;
    /// As the socket's `try_clone`.
    fn try_clone(&self) -> std::io::Result<Self>;
    /// Set up an accepted socket (TCP: no Nagle delay; answers are whole lines).
    fn configure(&self) {}
}

impl Stream for UnixStream {
    fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_read_timeout(self, t)
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        UnixStream::set_write_timeout(self, t)
    }
}

impl Socket for UnixStream {
    fn shutdown(&self, how: Shutdown) -> std::io::Result<()> {
        UnixStream::shutdown(self, how)
    }
    fn try_clone(&self) -> std::io::Result<Self> {
        UnixStream::try_clone(self)
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
    /// can discard the final answer before the peer reads it. So: end our side, then
    /// drain (at most 1 MiB for 0.5 s) what the peer still sends.
    fn finish(&mut self) {
        if TcpStream::shutdown(self, Shutdown::Write).is_err() {
            return;
        }
        let deadline = std::time::Instant::now() + LINGER;
        let mut left = LINGER_BYTES;
        let mut sink = [0u8; 16 << 10];
        while left > 0 {
            let now = std::time::Instant::now();
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

impl Socket for TcpStream {
    fn shutdown(&self, how: Shutdown) -> std::io::Result<()> {
        TcpStream::shutdown(self, how)
    }
    fn try_clone(&self) -> std::io::Result<Self> {
        TcpStream::try_clone(self)
    }
    fn configure(&self) {
        let _ = self.set_nodelay(true);
    }
}

/// One server's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most connections open at once.
    pub max_conns: usize,
    /// Largest request line, without its newline (after authentication on TCP).
    pub max_request: usize,
    /// A request line must be whole within this of the previous answer (or the accept);
    /// on TCP, authentication must be done within this of the accept.
    pub read_timeout: Duration,
}

/// What a server counts (for `health` and metrics).
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections refused because every slot was held by a request in progress.
    pub refused: AtomicU64,
    /// Connections closed to give their slot to a new one.
    pub evicted: AtomicU64,
    /// TCP connections closed for authentication: a wrong proof, another request
    /// before `auth`, an oversized line before it, or no `auth` in time.
    pub auth_failures: AtomicU64,
}

/// An answer line, and whether the connection ends after it.
#[derive(Debug)]
pub struct Answer {
    /// The JSON text and its newline (sent in one write: with TCP_NODELAY, a newline
    /// written on its own would be a packet of its own).
    pub line: Vec<u8>,
    /// The connection is closed after it (a refused `hello`, say).
    pub close: bool,
}

impl Answer {
    /// `v` as a JSON line; the connection stays open.
    pub fn json(v: &impl Serialize) -> Answer {
        let mut line = serde_json::to_vec(v).unwrap_or_else(|e| {
            serde_json::to_vec(&error_value(format!("cannot encode the answer: {e}")))
                .unwrap_or_default()
        });
        line.push(b'\n');
        Answer { line, close: false }
    }

    /// `{"ok": false, "error": msg}`; the connection stays open.
    pub fn error(msg: impl std::fmt::Display) -> Answer {
        Answer::json(&error_value(msg.to_string()))
    }

    /// This answer, then the connection is closed when `close`.
    pub fn closing_if(self, close: bool) -> Answer {
        Answer { close, ..self }
    }
}

/// `{"ok": false, "error": msg}`.
fn error_value(msg: String) -> serde_json::Value {
    serde_json::json!({"ok": false, "error": msg})
}

/// What answers the requests of one server's connections.
pub trait Service: Send + Sync + 'static {
    /// Answer one request line (never blank; on TCP, only once authenticated).
    fn answer(&self, line: &[u8]) -> Answer;
}

/// Where a server's accept loop can be woken to see it is closed.
#[derive(Debug, Clone)]
enum Wake {
    Unix(PathBuf),
    Tcp(SocketAddr),
}

/// A running server: its accept thread, ended by [`Server::close`].
pub struct Server {
    closed: Arc<AtomicBool>,
    wake: Wake,
    stats: Arc<Stats>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// What the server counted.
    pub fn stats(&self) -> &Arc<Stats> {
        &self.stats
    }

    /// Stop accepting (connections already open finish their request and are closed at
    /// their next read). Waits for the accept thread.
    pub fn close(&mut self) {
        self.closed.store(true, Ordering::Release);
        match &self.wake {
            Wake::Unix(p) => drop(UnixStream::connect(p)),
            Wake::Tcp(a) => drop(TcpStream::connect_timeout(a, Duration::from_millis(200))),
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.close();
    }
}

/// Serve the Unix socket `listener` (bound at `path`) with `svc`: its clients are
/// trusted by the socket's mode, no authentication. `stats` is the server's count.
pub fn spawn_unix(
    listener: UnixListener,
    path: PathBuf,
    svc: Arc<dyn Service>,
    limits: Limits,
    stats: Arc<Stats>,
    name: &str,
) -> std::io::Result<Server> {
    spawn(
        move || listener.accept().map(|(s, _)| (s, None)),
        Wake::Unix(path),
        None,
        svc,
        limits,
        stats,
        name,
    )
}

/// Serve the TCP `listener` with `svc`: every connection authenticates with `token`
/// first ([`crate::auth`]). `stats` is the server's count (shared with what reports it).
pub fn spawn_tcp(
    listener: TcpListener,
    token: Vec<u8>,
    svc: Arc<dyn Service>,
    limits: Limits,
    stats: Arc<Stats>,
    name: &str,
) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    spawn(
        move || listener.accept().map(|(s, a)| (s, Some(a))),
        Wake::Tcp(addr),
        Some(Arc::new(token)),
        svc,
        limits,
        stats,
        name,
    )
}

/// The accept loop of one server, on its own thread.
fn spawn<S: Socket>(
    mut accept: impl FnMut() -> std::io::Result<(S, Option<SocketAddr>)> + Send + 'static,
    wake: Wake,
    token: Option<Arc<Vec<u8>>>,
    svc: Arc<dyn Service>,
    limits: Limits,
    stats: Arc<Stats>,
    name: &str,
) -> std::io::Result<Server> {
    let closed = Arc::new(AtomicBool::new(false));
    let slots = Arc::new(Slots::new(limits.max_conns));
    let (cl, st, conn_name) = (closed.clone(), stats.clone(), format!("{name}-conn"));
    let thread = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || loop {
            let accepted = accept();
            if cl.load(Ordering::Acquire) {
                return;
            }
            let (s, peer) = match accepted {
                Ok(x) => x,
                Err(e) => {
                    warn!("accept: {e}");
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            let c = conn::Conn {
                svc: svc.clone(),
                limits,
                token: token.clone(),
                peer,
                stats: st.clone(),
                slots: slots.clone(),
                closed: cl.clone(),
            };
            c.start(s, &conn_name);
        })?;
    debug!(server = name, "serving");
    Ok(Server {
        closed,
        wake,
        stats,
        thread: Some(thread),
    })
}

/// Write `a`'s line (with its newline), in one write.
pub(crate) fn send<S: Write + ?Sized>(s: &mut S, a: &Answer) -> std::io::Result<()> {
    s.write_all(&a.line)
}
