//! canopyd's HTTP endpoint (`[daemon] metrics = "ADDR:PORT"`), a small HTTP/1.1 server on
//! `std::net` (GET and HEAD, one request per connection):
//!
//! | request | answer |
//! |---|---|
//! | `GET /metrics` | 200, the Prometheus text exposition ([`super::metrics::render`]) |
//! | `GET /healthz` | 200 `ok` while the daemon runs |
//! | `GET /readyz` | 200 `ready` when every switch is up and current, else 503 and one line per switch that is not |
//! | any other path | 404 |
//! | `HEAD` of any of them | the head `GET` gets, without the body |
//! | any other method | 405 (`Allow: GET, HEAD`) |
//! | a version other than HTTP/1.0 and 1.1 | 505 |
//!
//! Every answer closes the connection (`Connection: close`). Query strings are ignored.
//! Request bodies are never read. The limits make the endpoint safe to expose to a
//! scraper network: a request head (request line and headers) must arrive whole within
//! [`Limits::timeout`] (else 408, or a plain close when nothing arrived) and fit in
//! [`MAX_HEAD`] bytes (else 431); at most [`Limits::conns`] connections are open at once
//! (one more is answered 503 and closed); answers are written with the same timeout.
//! One thread accepts; each connection is served by its own short-lived thread, so a
//! slow client holds only its own. The server stops, and its accept thread is joined,
//! on drop.

use super::metrics::{gzip, render, CONTENT_TYPE};
use canopy_proto::snapshot::FabricSnapshot;
use std::fmt::Write as _;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Largest request head (request line and headers), bytes.
pub const MAX_HEAD: usize = 8192;
/// Connections open at once, by default.
pub const MAX_CONNS: usize = 64;
/// Time for a request head to arrive, and for an answer to be written, by default.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The server's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub conns: usize,
    /// Time for a request head to arrive (and for an answer to be written).
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            conns: MAX_CONNS,
            timeout: REQUEST_TIMEOUT,
        }
    }
}

/// The snapshot source: called once per `/metrics` and `/readyz` request.
pub type SnapshotSource = Arc<dyn Fn() -> FabricSnapshot + Send + Sync>;

/// Why the HTTP server could not start.
#[derive(Debug, Error)]
pub enum HttpError {
    /// The address does not parse or resolve to a socket address.
    #[error("metrics address `{addr}`: {detail} (expected HOST:PORT, e.g. 127.0.0.1:9464)")]
    Address {
        /// The address as given.
        addr: String,
        /// Why it does not resolve.
        detail: String,
    },
    /// The listening socket could not be created (in use, no permission, ...).
    #[error("cannot listen on {addr}: {detail}")]
    Bind {
        /// The address as given.
        addr: String,
        /// The error.
        detail: String,
    },
    /// The accept thread could not be started.
    #[error("HTTP server on {addr}: cannot start a thread: {source}")]
    Thread {
        /// The address as given.
        addr: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// A running HTTP server; stops and joins its accept thread on drop.
pub struct HttpServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish()
    }
}

/// An HTTP listening socket, bound and not served yet (`canopyd` binds before it drops
/// its privileges, so a port below 1024 works, and serves after).
#[derive(Debug)]
pub struct HttpListener {
    addr: String,
    listener: TcpListener,
    local: SocketAddr,
}

impl HttpListener {
    /// Listen on `addr` (`HOST:PORT`; port 0 picks a free one, see [`Self::local_addr`]).
    pub fn bind(addr: &str) -> Result<HttpListener, HttpError> {
        let sa = addr
            .to_socket_addrs()
            .map_err(|e| HttpError::Address {
                addr: addr.to_string(),
                detail: e.to_string(),
            })?
            .next()
            .ok_or_else(|| HttpError::Address {
                addr: addr.to_string(),
                detail: "resolves to no address".to_string(),
            })?;
        let bind = |e: std::io::Error| HttpError::Bind {
            addr: addr.to_string(),
            detail: e.to_string(),
        };
        let listener = TcpListener::bind(sa).map_err(bind)?;
        let local = listener.local_addr().map_err(bind)?;
        Ok(HttpListener {
            addr: addr.to_string(),
            listener,
            local,
        })
    }

    /// The address it listens on (with the port chosen when 0 was given).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Serve snapshots from `src` with `limits` (an accept thread from now on).
    pub fn serve(self, src: SnapshotSource, limits: Limits) -> Result<HttpServer, HttpError> {
        let HttpListener {
            addr,
            listener,
            local,
        } = self;
        let stop = Arc::new(AtomicBool::new(false));
        let st = Arc::clone(&stop);
        let accept = std::thread::Builder::new()
            .name("canopyd-http".into())
            .spawn(move || accept_loop(listener, &st, &src, limits))
            .map_err(|source| HttpError::Thread { addr, source })?;
        Ok(HttpServer {
            addr: local,
            stop,
            accept: Some(accept),
        })
    }
}

impl HttpServer {
    /// Listen on `addr` (`HOST:PORT`; port 0 picks a free one, see [`Self::local_addr`])
    /// and serve snapshots from `src`, with the default [`Limits`].
    pub fn start(addr: &str, src: SnapshotSource) -> Result<HttpServer, HttpError> {
        Self::start_with(addr, src, Limits::default())
    }

    /// [`Self::start`] with other limits.
    pub fn start_with(
        addr: &str,
        src: SnapshotSource,
        limits: Limits,
    ) -> Result<HttpServer, HttpError> {
        HttpListener::bind(addr)?.serve(src, limits)
    }

    /// The address the server listens on (with the port chosen when 0 was given).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wake the blocking accept with a connection of our own
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn accept_loop(listener: TcpListener, stop: &AtomicBool, src: &SnapshotSource, limits: Limits) {
    let open = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(mut stream) = conn else {
            // EMFILE and the like: do not spin
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        if open.fetch_add(1, Ordering::AcqRel) >= limits.conns {
            open.fetch_sub(1, Ordering::AcqRel);
            let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
            let a = Answer::text(503, "too many connections\n");
            let _ = respond(&mut stream, &a);
            let _ = stream.shutdown(Shutdown::Both);
            continue;
        }
        let (src, open2) = (Arc::clone(src), Arc::clone(&open));
        let spawned = std::thread::Builder::new()
            .name("canopyd-http-conn".into())
            .spawn(move || {
                serve(stream, &src, limits.timeout);
                open2.fetch_sub(1, Ordering::AcqRel);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// How reading a request head ended.
enum Head {
    /// The head, without the blank line.
    Complete(Vec<u8>),
    /// Closed, or no byte within the timeout: close without an answer.
    Nothing,
    /// Part of a head, then the timeout.
    Timeout,
    /// More than [`MAX_HEAD`] bytes without the blank line.
    TooLarge,
}

fn read_head(s: &mut TcpStream, timeout: Duration) -> Head {
    let deadline = Instant::now() + timeout;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = head_end(&buf) {
            buf.truncate(end);
            return Head::Complete(buf);
        }
        if buf.len() > MAX_HEAD {
            return Head::TooLarge;
        }
        let now = Instant::now();
        if now >= deadline || s.set_read_timeout(Some(deadline - now)).is_err() {
            return if buf.is_empty() {
                Head::Nothing
            } else {
                Head::Timeout
            };
        }
        let want = chunk.len().min(MAX_HEAD + 1 - buf.len());
        match s.read(&mut chunk[..want]) {
            Ok(0) => return Head::Nothing,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return if buf.is_empty() {
                    Head::Nothing
                } else {
                    Head::Timeout
                };
            }
            Err(_) => return Head::Nothing,
        }
    }
}

/// Where the head ends (before `\r\n\r\n` or `\n\n`).
fn head_end(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = b.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What the request line asks: its method, target and HTTP version.
#[derive(Debug, PartialEq, Eq)]
struct RequestLine<'a> {
    method: &'a str,
    target: &'a str,
    /// `HTTP/1.0` or `HTTP/1.1` (false: another version, answered 505).
    supported: bool,
}

/// The request line, if it is `METHOD TARGET HTTP/D.D`.
fn request_line(head: &[u8]) -> Option<RequestLine<'_>> {
    let line = head.split(|&c| c == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
    let mut it = line.split(' ');
    let (m, t, v) = (it.next()?, it.next()?, it.next()?);
    let version = v.strip_prefix("HTTP/")?.as_bytes();
    let well_formed = matches!(version, [a, b'.', b] if a.is_ascii_digit() && b.is_ascii_digit());
    if it.next().is_some() || m.is_empty() || !t.starts_with('/') || !well_formed {
        return None;
    }
    Some(RequestLine {
        method: m,
        target: t,
        supported: v == "HTTP/1.0" || v == "HTTP/1.1",
    })
}

fn serve(mut s: TcpStream, src: &SnapshotSource, timeout: Duration) {
    let _ = s.set_write_timeout(Some(timeout));
    let a = match read_head(&mut s, timeout) {
        Head::Nothing => return,
        Head::Timeout => Answer::text(408, "request timeout: send the request within the limit\n"),
        Head::TooLarge => Answer::text(431, "request head too large\n"),
        Head::Complete(h) => match request_line(&h) {
            Some(r) if !r.supported => Answer::text(
                505,
                "HTTP version not supported: use HTTP/1.1 or HTTP/1.0\n",
            ),
            Some(r) => {
                let mut a = answer(matches!(r.method, "GET" | "HEAD"), r.target, src);
                if a.status == 200 && a.content_type == CONTENT_TYPE && accepts_gzip(&h) {
                    a.gzip();
                }
                // HEAD: the head GET would get, without the body
                a.head_only = r.method == "HEAD";
                a
            }
            None => Answer::text(400, "bad request\n"),
        },
    };
    // A client that went away is not an error of the daemon's.
    if respond(&mut s, &a).is_ok() {
        // the management sockets' lingering close: the peer reads the answer, not a
        // reset, even with a body nobody read
        canopy_proto::serve::Stream::finish(&mut s);
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        505 => "HTTP Version Not Supported",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

fn respond(s: &mut TcpStream, a: &Answer) -> std::io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        a.status,
        reason(a.status),
        a.content_type,
        a.body.len()
    );
    if a.allow_get {
        out.push_str("Allow: GET, HEAD\r\n");
    }
    if a.status == 200 && a.content_type == CONTENT_TYPE {
        // the answer depends on the request's Accept-Encoding: caches must know
        out.push_str("Vary: Accept-Encoding\r\n");
    }
    if a.gzipped {
        out.push_str("Content-Encoding: gzip\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    if !a.head_only {
        out.extend_from_slice(&a.body);
    }
    s.write_all(&out)?;
    s.flush()
}

/// Whether the request head's `Accept-Encoding` takes gzip (RFC 9110 §12.5.3): a
/// `gzip`, `x-gzip` or `*` coding whose `q` is not 0. Prometheus asks for it on every
/// scrape.
fn accepts_gzip(head: &[u8]) -> bool {
    let Ok(head) = std::str::from_utf8(head) else {
        return false;
    };
    head.lines().skip(1).any(|line| {
        let Some((name, value)) = line.split_once(':') else {
            return false;
        };
        name.trim().eq_ignore_ascii_case("accept-encoding")
            && value.split(',').any(|coding| {
                let mut parts = coding.split(';');
                let name = parts.next().unwrap_or("").trim();
                let q_zero = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .or_else(|| p.trim().strip_prefix("Q="))
                        .and_then(|q| q.trim().parse::<f64>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                ["gzip", "x-gzip", "*"]
                    .iter()
                    .any(|c| name.eq_ignore_ascii_case(c))
                    && !q_zero
            })
    })
}

/// An answer before it is written.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    /// `body` is gzip-compressed (`Content-Encoding: gzip`).
    gzipped: bool,
    allow_get: bool,
    /// Answering HEAD: the body's length is sent, not the body.
    head_only: bool,
}

impl Answer {
    fn text(status: u16, body: impl Into<String>) -> Self {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into().into_bytes(),
            gzipped: false,
            allow_get: false,
            head_only: false,
        }
    }
}

impl Answer {
    /// Compress the body with [`gzip`] (kept as it is if that fails, which compressing
    /// in memory does not).
    fn gzip(&mut self) {
        if let Ok(z) = gzip(&self.body) {
            self.body = z;
            self.gzipped = true;
        }
    }
}

fn answer(is_get: bool, url: &str, src: &SnapshotSource) -> Answer {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let known = matches!(path, "/metrics" | "/healthz" | "/readyz");
    if !known {
        return Answer::text(404, "not found: try /metrics, /healthz or /readyz\n");
    }
    if !is_get {
        let mut a = Answer::text(405, "method not allowed: use GET or HEAD\n");
        a.allow_get = true;
        return a;
    }
    if path == "/healthz" {
        return Answer::text(200, "ok\n");
    }
    // The source is the daemon's: if it panics, answer 500 and keep serving.
    let snap = match catch_unwind(AssertUnwindSafe(|| src())) {
        Ok(s) => s,
        Err(_) => return Answer::text(500, "snapshot unavailable\n"),
    };
    if path == "/metrics" {
        return Answer {
            status: 200,
            content_type: CONTENT_TYPE,
            body: render(&snap).into_bytes(),
            gzipped: false,
            allow_get: false,
            head_only: false,
        };
    }
    readyz(&snap)
}

/// `/readyz`: 200 `ready`, or 503 with one line per switch that is down or not current.
fn readyz(s: &FabricSnapshot) -> Answer {
    if s.ready {
        return Answer::text(200, "ready\n");
    }
    let mut body = String::new();
    for sw in &s.switches {
        if !sw.up {
            let _ = writeln!(body, "{}: down", sw.name);
        } else if !sw.tables_current {
            let _ = writeln!(body, "{}: tables not current", sw.name);
        }
    }
    if body.is_empty() {
        body.push_str("not ready\n");
    }
    Answer::text(503, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::tests::sample;
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::atomic::AtomicU64;
    use std::time::Instant;

    fn server(ready: bool) -> (HttpServer, Arc<AtomicU64>) {
        let calls = Arc::new(AtomicU64::new(0));
        let c = Arc::clone(&calls);
        let src: SnapshotSource = Arc::new(move || {
            let n = c.fetch_add(1, Ordering::SeqCst) + 1;
            let mut s = sample(n);
            s.ready = ready;
            s
        });
        (HttpServer::start("127.0.0.1:0", src).unwrap(), calls)
    }

    /// One exchange: (status, headers, body); reads the answer's Content-Length.
    fn exchange(addr: SocketAddr, raw: &[u8]) -> (u16, String, String) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(raw).unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = s.read(&mut buf).unwrap();
            out.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&out);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len: Option<usize> = head.lines().find_map(|l| {
                    l.strip_prefix("Content-Length: ")
                        .and_then(|v| v.trim().parse().ok())
                });
                if n == 0 || len.is_some_and(|len| body.len() >= len) {
                    let status = head
                        .split(' ')
                        .nth(1)
                        .and_then(|c| c.parse().ok())
                        .expect("status");
                    return (status, head.to_string(), body.to_string());
                }
            }
            assert!(n > 0, "connection closed before a complete answer");
        }
    }

    fn get(addr: SocketAddr, path: &str) -> (u16, String, String) {
        exchange(
            addr,
            format!("GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").as_bytes(),
        )
    }

    #[test]
    fn metrics_health_ready() {
        let (srv, calls) = server(false);
        let a = srv.local_addr();
        assert_ne!(a.port(), 0);
        let (st, head, body) = get(a, "/metrics");
        assert_eq!(st, 200);
        assert!(
            head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"),
            "{head}"
        );
        assert!(body.contains(
            "canopy_port_rx_frames_total{fabric=\"lab\",switch=\"edge-p0-e0\",port=\"0\"} 100\n"
        ));
        // Each scrape takes a fresh snapshot.
        let (_, _, body2) = get(a, "/metrics?x=1");
        assert!(body2.contains(
            "canopy_port_rx_frames_total{fabric=\"lab\",switch=\"edge-p0-e0\",port=\"0\"} 200\n"
        ));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(get(a, "/healthz").0, 200);
        assert_eq!(get(a, "/healthz").2, "ok\n");
        let (st, _, body) = get(a, "/readyz");
        assert_eq!(st, 503);
        assert_eq!(body, "core-0: down\n");
        drop(srv);
        let (srv, _) = server(true);
        let (st, _, body) = get(srv.local_addr(), "/readyz");
        assert_eq!((st, body.as_str()), (200, "ready\n"));
    }

    /// The raw answer to `raw`, read to the close: (head, body bytes).
    fn exchange_bytes(addr: SocketAddr, raw: &[u8]) -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(raw).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let end = out.windows(4).position(|w| w == b"\r\n\r\n").expect("head");
        let body = out.split_off(end + 4);
        (String::from_utf8(out).unwrap(), body)
    }

    #[test]
    fn metrics_are_gzipped_when_the_scraper_asks() {
        let (srv, _) = server(false);
        let a = srv.local_addr();
        // what Prometheus sends
        let ask = |enc: &str, path: &str| {
            let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: {enc}\r\n\r\n");
            exchange_bytes(a, req.as_bytes())
        };
        let (head, body) = ask("gzip", "/metrics");
        assert!(head.contains("Content-Encoding: gzip\r\n"), "{head}");
        assert!(head.contains("Vary: Accept-Encoding\r\n"), "{head}");
        assert!(
            head.contains(&format!("Content-Length: {}\r\n", body.len())),
            "{head}"
        );
        let mut text = String::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_string(&mut text)
            .expect("a gzip stream");
        assert!(text.contains(
            "canopy_port_rx_frames_total{fabric=\"lab\",switch=\"edge-p0-e0\",port=\"0\"} 100\n"
        ));
        // any spelling that allows gzip, case and spaces aside
        for enc in ["deflate, GZIP;q=0.5", "x-gzip", "*", "identity, gzip ; q=1"] {
            let (head, _) = ask(enc, "/metrics");
            assert!(head.contains("Content-Encoding: gzip"), "{enc}: {head}");
        }
        // refused or not offered: plain text
        for enc in ["gzip;q=0", "identity", "br, deflate", "gzip; q=0.0"] {
            let (head, body) = ask(enc, "/metrics");
            assert!(!head.contains("Content-Encoding"), "{enc}: {head}");
            assert!(body.starts_with(b"# HELP "), "{enc}");
        }
        // without the header at all
        let (head, _) = exchange_bytes(a, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(!head.contains("Content-Encoding"), "{head}");
        // only /metrics is compressed
        let (head, body) = ask("gzip", "/healthz");
        assert!(
            !head.contains("Content-Encoding") && body == b"ok\n",
            "{head}"
        );
    }

    #[test]
    fn readyz_names_stale_tables() {
        let mut s = sample(1);
        s.switches[1].up = true;
        s.switches[0].tables_current = false;
        let a = readyz(&s);
        assert_eq!(a.status, 503);
        assert_eq!(
            String::from_utf8_lossy(&a.body),
            "edge-p0-e0: tables not current\ncore-0: tables not current\n"
        );
    }

    #[test]
    fn not_found_and_method_not_allowed() {
        let (srv, calls) = server(true);
        let a = srv.local_addr();
        assert_eq!(get(a, "/").0, 404);
        assert_eq!(get(a, "/metricsx").0, 404);
        let (st, head, _) = exchange(
            a,
            b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        );
        assert_eq!(st, 405);
        assert!(head.contains("Allow: GET"), "{head}");
        assert_eq!(exchange(a, b"DELETE /readyz HTTP/1.0\r\n\r\n").0, 405);
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn head_gets_the_head_of_get_and_other_versions_get_505() {
        let (srv, _) = server(true);
        let a = srv.local_addr();
        let (st, head, body) = exchange(a, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(st, 200, "{head}");
        assert!(head.contains("Content-Length: 3"), "{head}");
        assert!(body.is_empty(), "no body: {body:?}");
        let (st, _, body) = exchange(a, b"HEAD /metrics HTTP/1.0\r\n\r\n");
        assert_eq!(st, 200);
        assert!(body.is_empty());
        for v in ["HTTP/1.9", "HTTP/2.0", "HTTP/0.9"] {
            let req = format!("GET /metrics {v}\r\nHost: x\r\n\r\n");
            assert_eq!(exchange(a, req.as_bytes()).0, 505, "{v}");
        }
        for bad in ["HTTP/1.", "HTTP/11", "HTTP/1.1x", "HTTPS/1.1"] {
            let req = format!("GET /metrics {bad}\r\n\r\n");
            assert_eq!(exchange(a, req.as_bytes()).0, 400, "{bad}");
        }
        let (st, head, _) = exchange(a, b"PUT /metrics HTTP/1.1\r\n\r\n");
        assert_eq!(st, 405);
        assert!(head.contains("Allow: GET, HEAD"), "{head}");
    }

    #[test]
    fn huge_announced_body_is_not_read() {
        let (srv, _) = server(true);
        let t0 = Instant::now();
        // Announces 100 MB, sends 10 bytes: the answer must come without the rest.
        let (st, head, _) = exchange(
            srv.local_addr(),
            b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n0123456789",
        );
        assert_eq!(st, 405);
        assert!(head.contains("Allow: GET"), "{head}");
        assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    }

    #[test]
    fn slow_clients_do_not_block_others() {
        let (srv, _) = server(true);
        let a = srv.local_addr();
        // Half-sent requests, held open.
        let mut idle = Vec::new();
        for _ in 0..6 {
            let mut s = TcpStream::connect(a).unwrap();
            s.write_all(b"GET /metr").unwrap();
            idle.push(s);
        }
        // Plus idle connections that sent nothing.
        for _ in 0..4 {
            idle.push(TcpStream::connect(a).unwrap());
        }
        std::thread::sleep(Duration::from_millis(200));
        let t0 = Instant::now();
        for _ in 0..5 {
            assert_eq!(get(a, "/healthz").0, 200);
            assert_eq!(get(a, "/metrics").0, 200);
        }
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
        drop(idle);
    }

    #[test]
    fn panicking_source_answers_500() {
        let src: SnapshotSource = Arc::new(|| panic!("no snapshot"));
        let srv = HttpServer::start("127.0.0.1:0", src).unwrap();
        let a = srv.local_addr();
        assert_eq!(get(a, "/metrics").0, 500);
        assert_eq!(get(a, "/healthz").0, 200);
        assert_eq!(get(a, "/metrics").0, 500);
    }

    #[test]
    fn typed_errors_name_the_address() {
        let src: SnapshotSource = Arc::new(|| sample(1));
        let e = HttpServer::start("nonsense", Arc::clone(&src)).unwrap_err();
        assert!(matches!(e, HttpError::Address { .. }), "{e:?}");
        assert!(e.to_string().contains("nonsense"), "{e}");
        let first = HttpServer::start("127.0.0.1:0", Arc::clone(&src)).unwrap();
        let taken = first.local_addr().to_string();
        let e = HttpServer::start(&taken, src).unwrap_err();
        assert!(matches!(e, HttpError::Bind { .. }), "{e:?}");
        assert!(e.to_string().contains(&taken), "{e}");
    }

    #[test]
    fn drop_stops_listening() {
        let (srv, _) = server(true);
        let a = srv.local_addr();
        assert_eq!(get(a, "/healthz").0, 200);
        let t0 = Instant::now();
        drop(srv);
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
        // the accept thread closed the listener
        let deadline = Instant::now() + Duration::from_secs(3);
        while TcpStream::connect(a).is_ok() {
            assert!(Instant::now() < deadline, "still listening after drop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the server sends until it closes (or 5 s pass).
    fn read_all(s: &mut TcpStream) -> String {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => panic!(
                    "no close within 5 s: {e} (read {:?})",
                    String::from_utf8_lossy(&out)
                ),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn an_endless_header_is_refused_with_431() {
        let (srv, calls) = server(true);
        let mut s = TcpStream::connect(srv.local_addr()).unwrap();
        let t0 = Instant::now();
        s.write_all(b"GET /metrics HTTP/1.1\r\nX-Long: ").unwrap();
        // four times the limit, no end of line: the server stops reading at the limit
        let _ = s.write_all(&vec![b'a'; 4 * MAX_HEAD]);
        let got = read_all(&mut s);
        assert!(got.starts_with("HTTP/1.1 431 "), "{got}");
        assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        // exactly at the limit is served
        let mut req = b"GET /metrics HTTP/1.1\r\nX-Pad: ".to_vec();
        req.resize(MAX_HEAD - 4, b'a');
        req.extend_from_slice(b"\r\n\r\n");
        assert_eq!(exchange(srv.local_addr(), &req).0, 200);
    }

    #[test]
    fn silent_and_slow_clients_are_timed_out() {
        let src: SnapshotSource = Arc::new(|| sample(1));
        let limits = Limits {
            conns: MAX_CONNS,
            timeout: Duration::from_millis(300),
        };
        let srv = HttpServer::start_with("127.0.0.1:0", src, limits).unwrap();
        let a = srv.local_addr();
        // nothing sent: closed without an answer once the timeout passed
        let t0 = Instant::now();
        let mut s = TcpStream::connect(a).unwrap();
        assert_eq!(read_all(&mut s), "");
        let t = t0.elapsed();
        assert!(
            t >= Duration::from_millis(250) && t < Duration::from_secs(3),
            "{t:?}"
        );
        // half a request, then silence: 408
        let mut s = TcpStream::connect(a).unwrap();
        s.write_all(b"GET /metr").unwrap();
        let got = read_all(&mut s);
        assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
        // a request trickled slower than the timeout allows: 408, never served
        let mut s = TcpStream::connect(a).unwrap();
        for b in b"GET /metrics HTTP/1.0\r\n" {
            if s.write_all(&[*b]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        let got = read_all(&mut s);
        assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
    }

    #[test]
    fn connections_beyond_the_limit_are_answered_503() {
        let src: SnapshotSource = Arc::new(|| sample(1));
        let limits = Limits {
            conns: 3,
            timeout: Duration::from_secs(10),
        };
        let srv = HttpServer::start_with("127.0.0.1:0", src, limits).unwrap();
        let a = srv.local_addr();
        let idle: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(a).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(100));
        let (st, _, body) = get(a, "/healthz");
        assert_eq!((st, body.as_str()), (503, "too many connections\n"));
        drop(idle);
        let deadline = Instant::now() + Duration::from_secs(3);
        while get(a, "/healthz").0 != 200 {
            assert!(Instant::now() < deadline, "slots never freed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn bad_request_lines_are_answered_400() {
        let (srv, calls) = server(true);
        let a = srv.local_addr();
        for raw in [
            &b"GARBAGE\r\n\r\n"[..],
            b"GET metrics HTTP/1.1\r\n\r\n",
            b"GET /metrics SPDY/3\r\n\r\n",
            b"GET /metrics HTTP/1.1 extra\r\n\r\n",
            b"\xff\xfe /metrics HTTP/1.1\r\n\r\n",
            b"\r\n\r\n",
        ] {
            assert_eq!(exchange(a, raw).0, 400, "{}", String::from_utf8_lossy(raw));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        // bare LF line ends are accepted
        assert_eq!(exchange(a, b"GET /healthz HTTP/1.0\n\n").0, 200);
    }
}
