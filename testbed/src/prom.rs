//! A throwaway Prometheus server for tests: Debian's `prometheus` binary on loopback,
//! scraping given targets every second, with its TSDB in a temporary directory, and a
//! small client of its HTTP API (`/api/v1/query`).
//!
//! ```no_run
//! # use canopy_testbed::prom::PromServer;
//! # use std::time::Duration;
//! # fn demo(target: std::net::SocketAddr) -> canopy_testbed::Result<()> {
//! let Some(prom) = PromServer::start(&[target])? else {
//!     eprintln!("SKIP: {}", canopy_testbed::prom::SKIP_HINT);
//!     return Ok(());
//! };
//! let up = prom.wait_for("up", Duration::from_secs(20), |r| !r.is_empty())?;
//! # Ok(()) }
//! ```
//!
//! The server is killed, and its directory removed, when the [`PromServer`] drops (also
//! when a test fails). The HTTP client is a hand-written HTTP/1.0 GET over a
//! `TcpStream`: the API answers are small and JSON, which `serde_json` parses.

use crate::error::{Result, TestbedError};
use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where the binary is looked for first (Debian's `prometheus` package).
pub const PROMETHEUS_BIN: &str = "/usr/bin/prometheus";

/// What to tell the user when the binary is absent.
pub const SKIP_HINT: &str =
    "prometheus not installed (apt-get install -y prometheus); skipping the Prometheus test";

/// How long [`PromServer::start`] waits for `/-/ready`.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// One sample of a query answer: its labels (with `__name__` when the expression keeps
/// it) and its value.
pub type Sample = (BTreeMap<String, String>, f64);

/// A running Prometheus; killed on drop.
#[derive(Debug)]
pub struct PromServer {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
}

/// The `prometheus` binary: [`PROMETHEUS_BIN`], else the first `prometheus` on PATH.
pub fn find_binary() -> Option<PathBuf> {
    let fixed = Path::new(PROMETHEUS_BIN);
    if fixed.is_file() {
        return Some(fixed.to_path_buf());
    }
    crate::os::netns::which("prometheus")
}

/// The scrape configuration [`PromServer::start`] writes: one job `canopyd`, 1 s
/// interval, the targets as `HOST:PORT`.
pub fn scrape_config(targets: &[SocketAddr]) -> String {
    let list = targets
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
         scrape_configs:\n  - job_name: canopyd\n    scrape_interval: 1s\n    scrape_timeout: 1s\n\
         \x20   static_configs:\n      - targets: [{list}]\n"
    )
}

fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0")
        .map_err(|e| TestbedError::io("bind a free loopback port", e))?;
    let port = l
        .local_addr()
        .map_err(|e| TestbedError::io("bound port", e))?
        .port();
    Ok(port)
}

fn prom_err(detail: impl Into<String>) -> TestbedError {
    TestbedError::Command {
        cmd: "prometheus".to_string(),
        detail: detail.into(),
    }
}

impl PromServer {
    /// Start Prometheus on a free loopback port, scraping `targets` every second, and
    /// wait until it is ready. `Ok(None)`: the binary is not installed.
    pub fn start(targets: &[SocketAddr]) -> Result<Option<PromServer>> {
        let Some(bin) = find_binary() else {
            return Ok(None);
        };
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "canopy-prom-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("data"))
            .map_err(|e| TestbedError::io(format!("create {}", dir.display()), e))?;
        let config = dir.join("prometheus.yml");
        fs::write(&config, scrape_config(targets))
            .map_err(|e| TestbedError::io(format!("write {}", config.display()), e))?;
        let log = fs::File::create(dir.join("prometheus.log"))
            .map_err(|e| TestbedError::io("create prometheus.log", e))?;
        let port = free_port()?;
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let child = Command::new(&bin)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| TestbedError::io(format!("start {}", bin.display()), e))?;
        // From here on, Drop kills it and removes the directory.
        let mut me = PromServer { child, addr, dir };
        me.wait_ready()?;
        Ok(Some(me))
    }

    fn log_tail(&self) -> String {
        crate::os::process::log_tail(&self.dir.join("prometheus.log"), 10).join("\n")
    }

    fn wait_ready(&mut self) -> Result<()> {
        let t0 = Instant::now();
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Err(prom_err(format!(
                    "exited before it was ready ({st}); its log ends:\n{}",
                    self.log_tail()
                )));
            }
            if let Ok((200, _)) = http_get(self.addr, "/-/ready") {
                return Ok(());
            }
            if t0.elapsed() > READY_TIMEOUT {
                return Err(prom_err(format!(
                    "not ready on {} after {:?}; its log ends:\n{}",
                    self.addr,
                    READY_TIMEOUT,
                    self.log_tail()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Prometheus' HTTP address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The temporary directory (config, log, TSDB).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Evaluate `promql` at the current time (`/api/v1/query`); an instant vector or a
    /// scalar. A PromQL error (bad syntax, unknown function) is an error.
    pub fn query(&self, promql: &str) -> Result<Vec<Sample>> {
        let path = format!("/api/v1/query?query={}", url_encode(promql));
        let (status, body) = http_get(self.addr, &path)?;
        parse_query_answer(promql, status, &body)
    }

    /// Run `promql` until `done` accepts the answer (and return it) or `timeout`
    /// passes (an error that shows the last answer).
    pub fn wait_for(
        &self,
        promql: &str,
        timeout: Duration,
        done: impl Fn(&[Sample]) -> bool,
    ) -> Result<Vec<Sample>> {
        let t0 = Instant::now();
        loop {
            let r = self.query(promql)?;
            if done(&r) {
                return Ok(r);
            }
            if t0.elapsed() > timeout {
                return Err(prom_err(format!(
                    "`{promql}` did not reach the expected answer within {timeout:?}; last: {r:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for PromServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Percent-encode a query-string value (everything but RFC 3986 unreserved bytes).
pub fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One HTTP/1.0 GET: (status, body). The server closes the connection after answering.
pub fn http_get(addr: SocketAddr, path: &str) -> Result<(u16, String)> {
    let what = format!("GET http://{addr}{path}");
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))
        .map_err(|e| TestbedError::io(&what, e))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .and_then(|_| s.set_write_timeout(Some(Duration::from_secs(10))))
        .map_err(|e| TestbedError::io(&what, e))?;
    write!(
        s,
        "GET {path} HTTP/1.0\r\nHost: {addr}\r\nAccept: */*\r\n\r\n"
    )
    .map_err(|e| TestbedError::io(&what, e))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .map_err(|e| TestbedError::io(&what, e))?;
    let text = String::from_utf8_lossy(&raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return Err(TestbedError::Parse {
            what,
            detail: "no end of headers in the answer".to_string(),
        });
    };
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| TestbedError::Parse {
            what: what.clone(),
            detail: format!("no status in {:?}", head.lines().next().unwrap_or("")),
        })?;
    Ok((status, body.to_string()))
}

fn parse_value(v: &serde_json::Value) -> Option<f64> {
    // [ <unix time>, "<value>" ]; the value is a string so NaN and +Inf fit.
    let s = v.as_array()?.get(1)?.as_str()?;
    match s {
        "+Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

/// Parse an `/api/v1/query` answer.
pub fn parse_query_answer(promql: &str, status: u16, body: &str) -> Result<Vec<Sample>> {
    let what = format!("answer to `{promql}`");
    let bad = |detail: String| TestbedError::Parse {
        what: what.clone(),
        detail,
    };
    let j: serde_json::Value =
        serde_json::from_str(body).map_err(|e| bad(format!("HTTP {status}, not JSON: {e}")))?;
    if j["status"] != "success" {
        return Err(prom_err(format!(
            "`{promql}`: HTTP {status}, {}: {}",
            j["errorType"].as_str().unwrap_or("?"),
            j["error"].as_str().unwrap_or("?")
        )));
    }
    let data = &j["data"];
    match data["resultType"].as_str() {
        Some("vector") => {
            let arr = data["result"]
                .as_array()
                .ok_or_else(|| bad("`result` is not a list".to_string()))?;
            arr.iter()
                .map(|r| {
                    let labels = r["metric"]
                        .as_object()
                        .map(|m| {
                            m.iter()
                                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                                .collect()
                        })
                        .unwrap_or_default();
                    let v = parse_value(&r["value"])
                        .ok_or_else(|| bad(format!("bad sample value in {r}")))?;
                    Ok((labels, v))
                })
                .collect()
        }
        Some("scalar") => {
            let v = parse_value(&data["result"])
                .ok_or_else(|| bad(format!("bad scalar {}", data["result"])))?;
            Ok(vec![(BTreeMap::new(), v)])
        }
        other => Err(bad(format!(
            "result type {other:?}, expected an instant vector or a scalar"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_promql() {
        assert_eq!(
            url_encode(r#"rate(a{b="c d"}[5s])"#),
            "rate%28a%7Bb%3D%22c%20d%22%7D%5B5s%5D%29"
        );
    }

    #[test]
    fn parses_vectors_scalars_and_errors() {
        let v = r#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up","job":"canopyd"},"value":[1700000000.1,"1"]},
            {"metric":{"job":"x"},"value":[1700000000.1,"+Inf"]}]}}"#;
        let r = parse_query_answer("up", 200, v).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0["job"], "canopyd");
        assert_eq!(r[0].1, 1.0);
        assert!(r[1].1.is_infinite());
        let s = r#"{"status":"success","data":{"resultType":"scalar","result":[1,"2.5"]}}"#;
        assert_eq!(parse_query_answer("2.5", 200, s).unwrap()[0].1, 2.5);
        let e = r#"{"status":"error","errorType":"bad_data","error":"parse error"}"#;
        let err = parse_query_answer("up{", 400, e).unwrap_err().to_string();
        assert!(err.contains("parse error") && err.contains("up{"), "{err}");
        assert!(parse_query_answer("up", 200, "nope").is_err());
    }

    #[test]
    fn scrape_config_lists_targets() {
        let c = scrape_config(&[
            "127.0.0.1:9464".parse().unwrap(),
            "[::1]:1".parse().unwrap(),
        ]);
        assert!(
            c.contains("      - targets: ['127.0.0.1:9464', '[::1]:1']\n"),
            "{c}"
        );
        assert!(c.contains("    static_configs:\n"), "{c}");
    }
}
