//! canopyd's HTTP endpoint (`[daemon] metrics = "ADDR:PORT"`), on `tiny_http`:
//!
//! | request | answer |
//! |---|---|
//! | `GET /metrics` | 200, the Prometheus text exposition ([`super::metrics::render`]) |
//! | `GET /healthz` | 200 `ok` while the daemon runs |
//! | `GET /readyz` | 200 `ready` when every switch is up and current, else 503 and one line per switch that is not |
//! | any other path | 404 |
//! | any other method | 405 (`Allow: GET`), connection closed |
//!
//! Query strings are ignored. Request bodies are never read by the handlers (the answer
//! goes out at once; tiny_http skips an announced body in that connection's own thread
//! before it reads the connection's next request). tiny_http reads every connection in
//! its own thread, so a client that sends its request slowly, or keeps an idle
//! connection open, holds only that thread; the answers are written by [`WORKERS`]
//! threads, so a client that does not read its answer holds at most one of them. The
//! server stops, and its threads are joined, on drop.

use super::metrics::{render, CONTENT_TYPE};
use super::snapshot::FabricSnapshot;
use std::fmt::Write as _;
use std::net::{SocketAddr, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use thiserror::Error;
use tiny_http::{Header, Method, Request, Response, Server};

/// Threads answering requests.
pub const WORKERS: usize = 4;

/// How often an idle worker checks whether the server is stopping.
const POLL: Duration = Duration::from_millis(100);

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
    /// A worker thread could not be started.
    #[error("HTTP server on {addr}: cannot start a worker thread: {source}")]
    Thread {
        /// The address as given.
        addr: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// A running HTTP server; stops and joins its threads on drop.
pub struct HttpServer {
    server: Arc<Server>,
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("addr", &self.addr)
            .finish()
    }
}

impl HttpServer {
    /// Listen on `addr` (`HOST:PORT`; port 0 picks a free one, see [`Self::local_addr`])
    /// and serve snapshots from `src`.
    pub fn start(addr: &str, src: SnapshotSource) -> Result<HttpServer, HttpError> {
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
        let server = Server::http(sa).map_err(|e| HttpError::Bind {
            addr: addr.to_string(),
            detail: e.to_string(),
        })?;
        let local = server.server_addr().to_ip().unwrap_or(sa);
        let server = Arc::new(server);
        let stop = Arc::new(AtomicBool::new(false));
        let mut me = HttpServer {
            server,
            addr: local,
            stop,
            workers: Vec::with_capacity(WORKERS),
        };
        for i in 0..WORKERS {
            let server = Arc::clone(&me.server);
            let stop = Arc::clone(&me.stop);
            let src = Arc::clone(&src);
            let h = std::thread::Builder::new()
                .name(format!("canopyd-http-{i}"))
                .spawn(move || worker(&server, &stop, &src))
                .map_err(|source| HttpError::Thread {
                    addr: addr.to_string(),
                    source,
                })?;
            // On an error above, `me` drops and stops the workers already started.
            me.workers.push(h);
        }
        Ok(me)
    }

    /// The address the server listens on (with the port chosen when 0 was given).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for _ in 0..self.workers.len() {
            self.server.unblock();
        }
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

fn worker(server: &Server, stop: &AtomicBool, src: &SnapshotSource) {
    while !stop.load(Ordering::SeqCst) {
        match server.recv_timeout(POLL) {
            Ok(Some(req)) => handle(req, src),
            Ok(None) => {}
            // recv fails when the listener is gone: nothing more to serve.
            Err(_) => break,
        }
    }
}

/// An answer before it becomes a tiny_http response.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
    allow_get: bool,
}

impl Answer {
    fn text(status: u16, body: impl Into<String>) -> Self {
        Answer {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.into(),
            allow_get: false,
        }
    }
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn handle(req: Request, src: &SnapshotSource) {
    let a = answer(*req.method() == Method::Get, req.url(), src);
    let mut resp = Response::from_string(a.body).with_status_code(a.status);
    let mut headers = vec![header("Content-Type", a.content_type)];
    if a.allow_get {
        headers.push(header("Allow", "GET"));
    }
    for h in headers.into_iter().flatten() {
        resp.add_header(h);
    }
    // A client that went away is not an error of the daemon's.
    let _ = req.respond(resp);
}

fn answer(is_get: bool, url: &str, src: &SnapshotSource) -> Answer {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let known = matches!(path, "/metrics" | "/healthz" | "/readyz");
    if !known {
        return Answer::text(404, "not found: try /metrics, /healthz or /readyz\n");
    }
    if !is_get {
        let mut a = Answer::text(405, "method not allowed: use GET\n");
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
            body: render(&snap),
            allow_get: false,
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
    use crate::daemon::metrics::tests::sample;
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
            "canopy_port_rx_packets_total{fabric=\"lab\",switch=\"edge-p0-e0\",port=\"0\"} 100\n"
        ));
        // Each scrape takes a fresh snapshot.
        let (_, _, body2) = get(a, "/metrics?x=1");
        assert!(body2.contains(
            "canopy_port_rx_packets_total{fabric=\"lab\",switch=\"edge-p0-e0\",port=\"0\"} 200\n"
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

    #[test]
    fn readyz_names_stale_tables() {
        let mut s = sample(1);
        s.switches[1].up = true;
        s.switches[0].tables_current = false;
        let a = readyz(&s);
        assert_eq!(a.status, 503);
        assert_eq!(
            a.body,
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
        // More half-sent requests than workers, held open.
        let mut idle = Vec::new();
        for _ in 0..WORKERS + 2 {
            let mut s = TcpStream::connect(a).unwrap();
            s.write_all(b"GET /metr").unwrap();
            idle.push(s);
        }
        // Plus idle keep-alive connections that sent nothing.
        for _ in 0..WORKERS {
            idle.push(TcpStream::connect(a).unwrap());
        }
        // (tiny_http hands connections to its thread pool; let it take these first.)
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
        // tiny_http closes its listener from its accept thread, shortly after.
        let deadline = Instant::now() + Duration::from_secs(3);
        while TcpStream::connect(a).is_ok() {
            assert!(Instant::now() < deadline, "still listening after drop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
