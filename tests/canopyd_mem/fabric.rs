//! Helpers of the `canopyd` integration tests: the real `canopy-switch`, `canopyd` and
//! `canopyctl` binaries as child processes on a scratch directory, every switch with
//! `mem` ports (no root needed), requests to the switches' management sockets and to
//! the daemon's control socket, and frames built with `canopy-control`.
//!
//! Every process started here is killed when its guard drops (also when a test
//! panics), and the scratch directory is removed.
#![allow(dead_code)]

use canopy_control::topology::{Peer, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::Kind;
use canopy_proto::control::Request as ControlRequest;
use canopy_proto::mgmt::Request;
use canopy_test_utils::switch::{
    captured, config, decision, host_frame, inject, mem_ports, request,
};
use canopy_test_utils::{bin, tail, wait_for, Dir, Proc};
use serde_json::{json, Value};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Fabric tests run one at a time: they start dozens of processes and measure times.
pub use canopy_test_utils::serial;

/// Send raw bytes on a fresh connection and read every answer line until EOF or
/// `timeout`.
pub fn raw_exchange(socket: &Path, bytes: &[u8], timeout: Duration) -> Vec<Value> {
    use std::io::BufRead;
    let s = UnixStream::connect(socket).expect("connect");
    s.set_read_timeout(Some(timeout)).unwrap();
    let mut w = s.try_clone().unwrap();
    let bytes = bytes.to_vec();
    // the daemon may close before reading everything (oversized line): write apart
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&bytes);
        let _ = w.shutdown(std::net::Shutdown::Write);
    });
    let mut r = std::io::BufReader::new(s);
    let mut out = Vec::new();
    loop {
        let mut line = String::new();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => out.push(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("answer is not JSON ({e}): {line:?}")),
            ),
        }
    }
    let _ = writer.join();
    out
}

/// `ok: false` with an error text; returns the text.
pub fn expect_err(v: &Value) -> String {
    assert_eq!(v["ok"], json!(false), "expected an error: {v}");
    let e = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error text: {v}"));
    assert!(!e.is_empty(), "{v}");
    e.to_string()
}

/// How a switch is started.
#[derive(Clone, Debug)]
pub struct SwitchOpts {
    /// Mem ports (None: as many as the topology says).
    pub ports: Option<usize>,
    /// Extra `[management]` lines.
    pub extra_mgmt: String,
    /// Start with its own sliced tables from the config (`[tables]`), not the
    /// placeholder ones.
    pub static_tables: bool,
    /// Extra `[switch]` lines.
    pub extra_switch: String,
}

/// A fabric of `canopy-switch` processes with mem ports (and, once started, a canopyd).
pub struct Fabric {
    pub dir: Dir,
    pub spec: String,
    pub topo: Topology,
    /// Every switch's tables without faults (what canopyd computes).
    pub base: Vec<SwitchTables>,
    pub switches: Vec<Option<Proc>>,
    pub opts: Vec<SwitchOpts>,
    pub daemon: Option<Proc>,
}

impl Fabric {
    /// Start every switch of `spec` and wait until each answers.
    pub fn start(tag: &str, spec: &str) -> Fabric {
        Self::start_with(tag, spec, |_, _| {})
    }

    /// As [`Fabric::start`]; `adjust(index, opts)` changes how a switch is started.
    pub fn start_with(tag: &str, spec: &str, adjust: impl FnMut(usize, &mut SwitchOpts)) -> Fabric {
        let mut f = Self::prepare(tag, spec, adjust);
        f.start_all();
        f
    }

    /// As [`Fabric::start_with`], but nothing started yet ([`Fabric::start_all`] does).
    pub fn prepare(
        tag: &str,
        spec: &str,
        mut adjust: impl FnMut(usize, &mut SwitchOpts),
    ) -> Fabric {
        let topo = canopy_control::build_str(spec).unwrap();
        let base = canopy_control::kinds::tables(&topo, Kind::Sliced).unwrap();
        let n = topo.switches.len();
        let mut f = Fabric {
            dir: Dir::new(&format!("canopyd-mem-{tag}")),
            spec: spec.into(),
            topo,
            base,
            switches: (0..n).map(|_| None).collect(),
            opts: Vec::with_capacity(n),
            daemon: None,
        };
        for i in 0..n {
            let mut o = SwitchOpts {
                ports: None,
                extra_mgmt: String::new(),
                static_tables: false,
                extra_switch: String::new(),
            };
            adjust(i, &mut o);
            f.opts.push(o);
        }
        f
    }

    /// Start every switch that is not running and wait until each answers.
    pub fn start_all(&mut self) {
        let idle: Vec<usize> = (0..self.switches.len())
            .filter(|&i| self.switches[i].is_none())
            .collect();
        for &i in &idle {
            self.spawn_switch(i);
        }
        for &i in &idle {
            self.wait_switch_socket(i);
        }
    }

    /// Send `sig` (e.g. "STOP", "CONT", "TERM") to switch `i`.
    pub fn signal_switch(&self, i: usize, sig: &str) {
        self.switches[i]
            .as_ref()
            .expect("switch running")
            .signal(sig);
    }

    pub fn index(&self, name: &str) -> usize {
        self.topo
            .switch_index(name)
            .unwrap_or_else(|| panic!("no switch {name} in {}", self.spec))
    }

    pub fn name(&self, i: usize) -> &str {
        &self.topo.switches[i].name
    }

    pub fn socket(&self, i: usize) -> PathBuf {
        self.dir.path(&format!("{}.sock", self.name(i)))
    }

    pub fn control(&self) -> PathBuf {
        self.dir.path("canopyd.sock")
    }

    fn switch_config(&self, i: usize) -> String {
        let o = &self.opts[i];
        let ports = o.ports.unwrap_or(self.topo.switches[i].ports.len());
        config(
            &format!("workers = 1\nmode = \"adaptive\"\n{}", o.extra_switch),
            o.static_tables
                .then_some((self.spec.as_str(), self.name(i))),
            &self.socket(i),
            &o.extra_mgmt,
            &mem_ports(ports, 1024),
        )
    }

    /// Spawn switch `i` (does not wait for its socket).
    pub fn spawn_switch(&mut self, i: usize) {
        let name = self.name(i).to_string();
        let cfg = self.dir.path(&format!("{name}.toml"));
        std::fs::write(&cfg, self.switch_config(i)).unwrap();
        let log = self.dir.path(&format!("{name}.log"));
        // a restarted switch appends to a fresh log name, the old one stays for reading
        let log = if self.switches[i].is_some() || log.exists() {
            self.dir.path(&format!(
                "{name}.{}.log",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos()
            ))
        } else {
            log
        };
        let p = Proc::spawn(
            &bin("canopy-switch"),
            &["run", "--config", cfg.to_str().unwrap(), "--log", "info"],
            log,
        );
        self.switches[i] = Some(p);
    }

    /// Wait until switch `i` answers `health` (its new process, when restarted).
    pub fn wait_switch_socket(&mut self, i: usize) {
        let sock = self.socket(i);
        let what = format!("canopy-switch {} answered", self.name(i));
        let p = self.switches[i].as_mut().unwrap();
        let pid = json!(p.pid());
        p.wait_alive(30.0, &what, || {
            request(&sock, &Request::Health {})
                .ok()
                .filter(|h| h["pid"] == pid)
        });
    }

    /// SIGKILL switch `i` and reap it.
    pub fn kill_switch(&mut self, i: usize) {
        self.switches[i].take().expect("switch running").kill();
    }

    /// A management request to switch `i` that must succeed.
    pub fn sw(&self, i: usize, v: &Request) -> Value {
        let r =
            request(&self.socket(i), v).unwrap_or_else(|e| panic!("{} {v:?}: {e}", self.name(i)));
        assert_eq!(r["ok"], json!(true), "{} {v:?} -> {r}", self.name(i));
        r
    }

    pub fn health(&self, i: usize) -> Value {
        self.sw(i, &Request::Health {})
    }

    /// The tables switch `i` runs (None: placeholder tables).
    pub fn tables(&self, i: usize) -> Option<SwitchTables> {
        serde_json::from_value(self.sw(i, &Request::GetTables {})["tables"].clone()).unwrap()
    }

    /// Write canopyd's configuration (`extra` appended) and return its path.
    pub fn daemon_config(&self, file: &str, extra: &str) -> PathBuf {
        self.daemon_config_with(file, "", extra)
    }

    /// As [`Fabric::daemon_config`], with `daemon` lines added to `[daemon]`.
    pub fn daemon_config_with(&self, file: &str, daemon: &str, extra: &str) -> PathBuf {
        let c = format!(
            "name = \"t\"\ntopology = \"{}\"\nkind = \"sliced\"\n[daemon]\ncontrol = \"{}\"\nmetrics = \"off\"\nprobe_interval_ms = 100\nprobe_timeout_ms = 250\nmissed_probes = 3\n{daemon}\n[switches]\nsocket = \"{}/{{name}}.sock\"\n{extra}",
            self.spec,
            self.control().display(),
            self.dir.0.path().display()
        );
        let p = self.dir.path(file);
        std::fs::write(&p, c).unwrap();
        p
    }

    /// Start canopyd with `cfg` and wait until its control socket answers.
    pub fn start_daemon(&mut self, cfg: &Path) {
        assert!(self.daemon.is_none(), "a daemon runs already");
        static N: AtomicUsize = AtomicUsize::new(0);
        let log = self.dir.path(&format!(
            "canopyd.{}.log",
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut p = Proc::spawn(
            &bin("canopyd"),
            &["--config", cfg.to_str().unwrap(), "--log", "debug"],
            log,
        );
        let control = self.control();
        p.wait_alive(30.0, "canopyd's control socket answered", || {
            request(&control, &ControlRequest::Status {})
                .ok()
                .filter(|v| v["ok"] == json!(true))
        });
        self.daemon = Some(p);
    }

    /// SIGKILL canopyd.
    pub fn kill_daemon(&mut self) {
        self.daemon.take().expect("daemon running").kill();
    }

    pub fn daemon_log(&self) -> String {
        self.daemon
            .as_ref()
            .map(|d| d.log_text())
            .unwrap_or_default()
    }

    /// A control request to canopyd (the answer as sent).
    pub fn ctl(&self, v: &ControlRequest) -> Value {
        request(&self.control(), v).unwrap_or_else(|e| panic!("canopyd {v:?}: {e}"))
    }

    /// canopyd's `status` snapshot.
    pub fn status(&self) -> Value {
        let r = self.ctl(&ControlRequest::Status {});
        assert_eq!(r["ok"], json!(true), "{r}");
        r["snapshot"].clone()
    }

    /// One switch of a status snapshot, by name.
    pub fn snap_of<'a>(snap: &'a Value, name: &str) -> &'a Value {
        snap["switches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == json!(name))
            .unwrap_or_else(|| panic!("{name} not in status: {snap}"))
    }

    /// Wait until canopyd says READY; the snapshot.
    pub fn wait_ready(&self, secs: f64) -> Value {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        loop {
            let s = self.status();
            if s["ready"] == json!(true) {
                return s;
            }
            if Instant::now() >= deadline {
                panic!(
                    "canopyd not READY after {secs} s: {}\n--- canopyd log ---\n{}",
                    summary(&s),
                    tail(&self.daemon_log(), 60)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `pushes_total` per switch.
    pub fn pushes(snap: &Value) -> Vec<u64> {
        snap["switches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["pushes_total"].as_u64().unwrap())
            .collect()
    }

    /// Run `canopyctl fabric --daemon SOCK args...`.
    pub fn canopyctl(&self, args: &[&str]) -> Output {
        let c = self.control();
        let mut a = vec!["fabric", "--daemon", c.to_str().unwrap()];
        a.extend_from_slice(args);
        Command::new(bin("canopyctl"))
            .args(&a)
            .output()
            .expect("run canopyctl")
    }

    /// A host port of switch `i` (the first port leading to a host).
    pub fn host_port(&self, i: usize) -> (u16, u32) {
        self.topo.switches[i]
            .ports
            .iter()
            .enumerate()
            .find_map(|(p, x)| match x.peer {
                Peer::Host { host, .. } => Some((p as u16, host)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{} has no host port", self.name(i)))
    }

    /// The frame host `src` sends to `dst` (sliced-flit header).
    pub fn frame(&self, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
        host_frame(&self.topo, Kind::Sliced, src, dst, payload)
    }

    /// The model's decision for `frame` entering switch `i` on `ingress` with `tables`:
    /// the bytes sent and the ports they may leave on.
    pub fn expect(tables: &SwitchTables, ingress: u16, frame: &[u8]) -> (Vec<u8>, Vec<u16>) {
        decision(tables, ingress, frame)
    }

    /// Inject `frame` on switch `i` port `ingress` and wait until it leaves on one of
    /// `ports` (captured there); returns (port, bytes). Other ports' captures are drained.
    pub fn forward(&self, i: usize, ingress: u16, frame: &[u8], ports: &[u16]) -> (u16, Vec<u8>) {
        let nports = self.health(i)["ports"].as_array().unwrap().len();
        for p in 0..nports {
            self.capture(i, p as u16);
        }
        let r = self.sw(i, &inject(ingress, &[frame.to_vec()]));
        assert_eq!(r["injected"], json!(1), "{r}");
        wait_for(5.0, "the injected frame to leave the switch", || {
            let mut got = vec![];
            for p in 0..nports as u16 {
                for f in self.capture(i, p) {
                    got.push((p, f));
                }
            }
            match got.len() {
                0 => None,
                1 => {
                    let (p, f) = got.pop().unwrap();
                    assert!(
                        ports.contains(&p),
                        "left on port {p}, expected one of {ports:?}"
                    );
                    Some((p, f))
                }
                n => panic!("{n} frames left for one injected: {got:?}"),
            }
        })
    }

    pub fn capture(&self, i: usize, port: u16) -> Vec<Vec<u8>> {
        let r = self.sw(
            i,
            &Request::Capture {
                port,
                max: Some(1024),
            },
        );
        captured(&r)
    }
}

/// One line per switch of a status snapshot (for failure messages).
pub fn summary(snap: &Value) -> String {
    let mut o = format!("ready={} ", snap["ready"]);
    for s in snap["switches"].as_array().into_iter().flatten() {
        o += &format!(
            "\n  {} up={} current={} pushes={} fails={} pruned={} err={}",
            s["name"],
            s["up"],
            s["tables_current"],
            s["pushes_total"],
            s["push_failures_total"],
            s["pruned_ports"],
            s["last_error"]
        );
    }
    o
}
