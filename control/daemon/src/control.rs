//! `canopyd`'s control socket (`docs/canopyd.md`): newline-delimited JSON over a Unix
//! stream socket created 0600, the same framing as the switches' management protocol.
//! `canopyctl fabric ...` and `canopy-testbed run` (traffic reports) are its clients; the
//! requests and replies are `canopy_proto::control`'s.

use super::run::{reply_channel, wait, Command, DaemonHandle};
use canopy_proto::control::{PushResult, Request, SwitchCounters, OPS};
use canopy_proto::version::{answer_hello, DAEMON};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use thiserror::Error;
use tracing::{debug, warn};

/// Largest request line (a traffic report with its latency buckets fits).
pub const MAX_REQUEST: usize = 1 << 20;
/// Most connections served at once; one more is answered with an error and closed.
pub const MAX_CONNS: usize = 8;
/// How long a connection may take to send a request line (the whole line: a client
/// that trickles bytes does not extend it), and to wait idle between two.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a `push` or `set_port` may wait for the planner.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// What can go wrong starting the control socket.
#[derive(Debug, Error)]
pub enum ControlError {
    /// Another daemon answers on the socket.
    #[error("{0}: another canopyd is already listening there")]
    InUse(PathBuf),
    /// Creating the directory, removing a stale socket, or binding failed.
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

/// The running control socket; removed (and its thread stopped) on drop.
pub struct ControlServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ControlServer {
    /// Bind `path` (0600; a stale socket left by a dead daemon is replaced) and serve.
    pub fn start(path: &Path, daemon: DaemonHandle) -> Result<ControlServer, ControlError> {
        let io = |what, source| ControlError::Io {
            path: path.to_path_buf(),
            what,
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io("create the directory", e))?;
        }
        if path.exists() {
            if UnixStream::connect(path).is_ok() {
                return Err(ControlError::InUse(path.to_path_buf()));
            }
            std::fs::remove_file(path).map_err(|e| io("remove the stale socket", e))?;
        }
        let listener = canopy_proto::sys::bind_private(path).map_err(|e| io("bind", e))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| io("set non-blocking", e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let open = Arc::new(AtomicUsize::new(0));
        let thread = std::thread::Builder::new()
            .name("control".into())
            .spawn(move || accept_loop(listener, daemon, st, open))
            .map_err(|e| io("start the accept thread", e))?;
        Ok(ControlServer {
            path: path.to_path_buf(),
            stop,
            thread: Some(thread),
        })
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

fn accept_loop(l: UnixListener, d: DaemonHandle, stop: Arc<AtomicBool>, open: Arc<AtomicUsize>) {
    while !stop.load(Ordering::Acquire) {
        match l.accept() {
            Ok((mut s, _)) => {
                let _ = s.set_nonblocking(false);
                if open.fetch_add(1, Ordering::AcqRel) >= MAX_CONNS {
                    open.fetch_sub(1, Ordering::AcqRel);
                    let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
                    let _ = send(
                        &mut s,
                        &err(format!(
                            "too many control connections (at most {MAX_CONNS}); try again"
                        )),
                    );
                    continue;
                }
                let d = d.clone();
                let o = open.clone();
                let spawned = std::thread::Builder::new()
                    .name("control-conn".into())
                    .spawn(move || {
                        // the slot is given back also if serving panics
                        struct Slot(Arc<AtomicUsize>);
                        impl Drop for Slot {
                            fn drop(&mut self) {
                                self.0.fetch_sub(1, Ordering::AcqRel);
                            }
                        }
                        let _slot = Slot(o);
                        if let Err(e) = serve(s, &d) {
                            debug!("control connection: {e}");
                        }
                    });
                if let Err(e) = spawned {
                    open.fetch_sub(1, Ordering::AcqRel);
                    warn!("cannot start a control connection thread: {e}");
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                warn!("accept on the control socket: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
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

fn send(s: &mut UnixStream, v: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(v).map_err(std::io::Error::other)?;
    line.push(b'\n');
    s.write_all(&line)
}

/// A stream whose reads all end by one deadline: each read waits at most until then
/// (`TimedOut` once it passed), so a request line must arrive whole in time however its
/// bytes are spread.
struct DeadlineRead {
    s: UnixStream,
    deadline: Instant,
}

impl Read for DeadlineRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.s.set_read_timeout(Some(left))?;
        self.s.read(buf)
    }
}

/// Requests on one connection until EOF, a timeout or an oversized line.
fn serve(mut s: UnixStream, d: &DaemonHandle) -> std::io::Result<()> {
    s.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut r = BufReader::new(
        DeadlineRead {
            s: s.try_clone()?,
            deadline: Instant::now() + READ_TIMEOUT,
        }
        .take(u64::MAX),
    );
    loop {
        let mut line = Vec::new();
        r.get_mut().set_limit(MAX_REQUEST as u64 + 1);
        r.get_mut().get_mut().deadline = Instant::now() + READ_TIMEOUT;
        let n = match r.read_until(b'\n', &mut line) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if !line.is_empty() {
                    let _ = send(
                        &mut s,
                        &err("read timeout: no complete request line".into()),
                    );
                }
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(());
        }
        if line.len() > MAX_REQUEST {
            send(
                &mut s,
                &err(format!(
                    "request larger than {MAX_REQUEST} bytes; closing the connection"
                )),
            )?;
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (answer, close) = match decode_request(&line) {
            Ok(req) => {
                let hello = matches!(req, Request::Hello { .. });
                let a = handle(req, d);
                // a refused `hello` ends the connection
                let close = hello && a["ok"] != json!(true);
                (a, close)
            }
            Err(e) => (
                err(format!("bad request: {e} (ops: {})", OPS.join(", "))),
                false,
            ),
        };
        send(&mut s, &answer)?;
        if close {
            return Ok(());
        }
    }
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

#[cfg(test)]
mod deadline_tests {
    use super::*;

    /// A line trickled one byte per 50 ms does not outlive the deadline; a line sent in
    /// time is read.
    #[test]
    fn a_trickled_line_times_out_at_the_deadline() {
        let (a, mut b) = UnixStream::pair().unwrap();
        let writer = std::thread::spawn(move || {
            for _ in 0..60 {
                if b.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = b.write_all(b"\n");
        });
        let t0 = Instant::now();
        let mut r = BufReader::new(DeadlineRead {
            s: a,
            deadline: Instant::now() + Duration::from_millis(400),
        });
        let mut line = Vec::new();
        let e = r.read_until(b'\n', &mut line).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ),
            "{e}"
        );
        let t = t0.elapsed();
        assert!(t < Duration::from_millis(1500), "read for {t:?}");
        assert!(!line.is_empty() && line.len() < 60, "{} bytes", line.len());
        drop(r);
        writer.join().unwrap();

        let (a, mut b) = UnixStream::pair().unwrap();
        b.write_all(b"{\"op\":\"status\"}\n").unwrap();
        let mut r = BufReader::new(DeadlineRead {
            s: a,
            deadline: Instant::now() + Duration::from_millis(400),
        });
        let mut line = Vec::new();
        r.read_until(b'\n', &mut line).unwrap();
        assert_eq!(line, b"{\"op\":\"status\"}\n");
    }
}
