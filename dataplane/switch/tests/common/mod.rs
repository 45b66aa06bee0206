//! Helpers of the `canopy-switch` integration tests: the real binary as a child
//! process, management requests, and the frames of the k=4 fat-tree's edge switch on
//! host ports (the scratch directory, processes, configs, namespaces and the edge
//! switch fixture are `canopy-test-utils`'s).
#![allow(dead_code)]

use canopy_dataplane::wire::{self, Kind};
use canopy_proto::mgmt::Request;
use canopy_test_utils::switch::{captured, config, inject, mem_ports};
use canopy_test_utils::Proc;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub use canopy_test_utils::netns::{in_ns, Netns};
pub use canopy_test_utils::switch::line;
#[allow(unused_imports)] // the netns tests use it, the others do not
pub use canopy_test_utils::{netns_or_skip, Dir};

pub use canopy_test_utils::switch::{EDGE, SPEC};

/// The `canopy-switch` binary of this build.
pub fn switch_bin() -> PathBuf {
    canopy_test_utils::bin("canopy-switch")
}

/// A config of `ports` mem ports with the edge switch's computed sliced tables (or
/// none), socket in `dir`, plus `extra_mgmt` lines in [management].
pub fn mem_config(dir: &Dir, ports: usize, tables: bool, extra_mgmt: &str) -> String {
    config(
        "workers = 1\nmax_sleep_us = 200",
        tables.then_some((SPEC, EDGE)),
        &dir.path("switch.sock"),
        extra_mgmt,
        &mem_ports(ports, 4096),
    )
}

/// The real binary running a config; killed on drop if still running. Its
/// management requests are [`Mgmt`]'s.
pub struct Switch {
    pub proc: Proc,
    pub mgmt: Mgmt,
}

impl std::ops::Deref for Switch {
    type Target = Mgmt;
    fn deref(&self) -> &Mgmt {
        &self.mgmt
    }
}

/// A switch's management socket (of a process of its own, or of a shared host).
pub struct Mgmt {
    pub socket: PathBuf,
    /// Frames injected so far (what `settle` waits to see received).
    pub injected: AtomicU64,
}

impl Mgmt {
    /// The switch behind `socket`, nothing injected yet.
    pub fn at(socket: PathBuf) -> Mgmt {
        Mgmt {
            socket,
            injected: AtomicU64::new(0),
        }
    }
}

/// Run the binary with `args` to completion: (status, stdout, stderr).
pub fn run_bin(args: &[&str]) -> (ExitStatus, String, String) {
    let out = Command::new(switch_bin())
        .args(args)
        .output()
        .expect("run canopy-switch");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

impl Switch {
    /// Write `config` to `dir/switch.toml`, start `run`, wait until the socket answers.
    pub fn start(dir: &Dir, config: &str) -> Switch {
        Self::start_with(dir, config, |c| c)
    }

    /// As [`Switch::start`], with the command adjustable (e.g. `ip netns exec`).
    pub fn start_with(dir: &Dir, config: &str, wrap: impl FnOnce(Command) -> Command) -> Switch {
        let cfg = dir.path("switch.toml");
        std::fs::write(&cfg, config).unwrap();
        let mut cmd = Command::new(switch_bin());
        cmd.args(["run", "--config", cfg.to_str().unwrap(), "--log", "debug"]);
        let mut cmd = wrap(cmd);
        cmd.stdout(Stdio::piped());
        let mut proc = Proc::spawn_cmd(cmd, dir.path("stderr.log"));
        let socket = dir.path("switch.sock");
        proc.wait_alive(60.0, "canopy-switch's socket appeared", || {
            UnixStream::connect(&socket).ok()
        });
        Switch {
            proc,
            mgmt: Mgmt::at(socket),
        }
    }

    pub fn log(&self) -> String {
        self.proc.log_text()
    }

    pub fn pid(&self) -> u32 {
        self.proc.pid()
    }

    /// SIGTERM and wait: (status, stdout).
    pub fn terminate(self) -> (ExitStatus, String) {
        self.proc.terminate()
    }
}

impl Mgmt {
    /// One request on a fresh connection.
    pub fn req(&self, r: &Request) -> Value {
        Conn::open(&self.socket).req(r)
    }

    /// `req` that must succeed.
    pub fn ok(&self, r: &Request) -> Value {
        let v = self.req(r);
        assert_eq!(v["ok"], json!(true), "{r:?} -> {v}");
        v
    }

    pub fn counters(&self) -> Value {
        self.ok(&Request::Counters {})
    }

    /// Wait until every injected frame was received and every received frame is
    /// accounted for (rx = tx + dropped, rings empty).
    pub fn settle(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let c = self.counters();
            let rings: u64 = c["ports"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["ring_occupancy"].as_u64().unwrap())
                .sum();
            let (rx, tx, d) = (
                c["rx_packets"].as_u64().unwrap(),
                c["tx_packets"].as_u64().unwrap(),
                c["dropped"].as_u64().unwrap(),
            );
            if rx == self.injected.load(Ordering::Relaxed) && rx == tx + d && rings == 0 {
                return c;
            }
            assert!(Instant::now() < deadline, "counters never settled: {c}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn inject(&self, port: u16, frames: &[Vec<u8>]) {
        let r = self.ok(&inject(port, frames));
        assert_eq!(r["injected"], json!(frames.len()), "{r}");
        self.injected
            .fetch_add(frames.len() as u64, Ordering::Relaxed);
    }

    pub fn capture(&self, port: u16) -> Vec<Vec<u8>> {
        let r = self.ok(&Request::Capture {
            port,
            max: Some(65536),
        });
        captured(&r)
    }
}

/// A persistent management connection (Unix socket or TCP).
pub struct Conn {
    pub w: Box<dyn Write + Send>,
    pub r: BufReader<Box<dyn Read + Send>>,
}

impl Conn {
    pub fn open(socket: &Path) -> Conn {
        let w = UnixStream::connect(socket).expect("connect");
        w.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let r: Box<dyn Read + Send> = Box::new(w.try_clone().unwrap());
        Conn {
            w: Box::new(w),
            r: BufReader::new(r),
        }
    }
    /// A TCP connection, not yet authenticated.
    pub fn tcp(addr: SocketAddr) -> Conn {
        let w = TcpStream::connect(addr).expect("connect tcp");
        w.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        w.set_nodelay(true).unwrap();
        let r: Box<dyn Read + Send> = Box::new(w.try_clone().unwrap());
        Conn {
            w: Box::new(w),
            r: BufReader::new(r),
        }
    }
    /// Send raw bytes (a request line must end in '\n'); write errors are ignored
    /// (the switch may close on an oversized request).
    pub fn send_raw(&mut self, b: &[u8]) {
        let _ = self.w.write_all(b);
    }
    /// Read one response line (None at EOF).
    pub fn read(&mut self) -> Option<Value> {
        let mut s = String::new();
        match self.r.read_line(&mut s) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&s).expect("response is JSON")),
        }
    }
    /// The challenge–response of the TCP endpoint with `token`
    /// ([`canopy_proto::auth`]): the switch's proof is checked, then the answer to
    /// this client's proof is returned.
    pub fn authenticate(&mut self, token: &[u8]) -> Value {
        use canopy_proto::auth::{self, AuthRequest};
        let mine = auth::nonce();
        let a = self.req(&AuthRequest::Challenge {
            nonce: auth::hex(&mine),
        });
        assert_eq!(a["ok"], json!(true), "challenge: {a}");
        let theirs = auth::decode_hex32(a["nonce"].as_str().unwrap()).expect("a nonce");
        let want = auth::switch_proof(token, &mine, &theirs);
        assert!(
            auth::proof_matches(&want, a["proof"].as_str().unwrap()),
            "the switch proves it holds the token: {a}"
        );
        self.req(&AuthRequest::Auth {
            proof: auth::hex(&auth::client_proof(token, &theirs, &mine)),
        })
    }

    /// Send one request (a [`Request`], an [`AuthRequest`](canopy_proto::auth::AuthRequest))
    /// and read the response.
    pub fn req(&mut self, r: &impl Serialize) -> Value {
        self.send_raw(&line(r));
        self.read().expect("a response")
    }
}

/// `replace_tables` with `t`.
pub fn replace_tables(t: &impl Serialize) -> Request {
    Request::ReplaceTables {
        tables: serde_json::value::to_raw_value(t).expect("tables encode"),
    }
}

/// The k=4 fat-tree's edge switch the tests run (`canopy-test-utils`'s fixture).
pub type Fabric = canopy_test_utils::switch::Edge;

/// Drops of `reason` at `port` in a counters response.
pub fn drops(c: &Value, port: usize, reason: &str) -> u64 {
    c["ports"][port]["drops"][reason].as_u64().unwrap()
}

// ---- network namespaces (the netns_switch* tests) ----

/// An AF_PACKET port (TPACKET_V2) on `ifname` inside namespace `ns`, the host side of a
/// switch port; the socket stays in that namespace.
pub fn host_port(ns: &str, ifname: &'static str) -> canopy_dataplane::port::afpacket::AfPacketPort {
    use canopy_dataplane::port::afpacket::{AfPacketConfig, AfPacketPort, TpacketVersion};
    in_ns(ns, move || {
        let cfg = AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        };
        AfPacketPort::open(ifname, cfg).expect("open host port")
    })
}

/// Canopy frames arriving on `p` until `n` arrived or `t` passed.
pub fn recv(
    p: &mut canopy_dataplane::port::afpacket::AfPacketPort,
    n: usize,
    t: Duration,
) -> Vec<Vec<u8>> {
    let deadline = Instant::now() + t;
    let mut got = vec![];
    while got.len() < n && Instant::now() < deadline {
        if p.rx_burst(32, |f| {
            if f.len() >= 14 && f[12..14] == wire::ETHERTYPE_CANOPY.to_be_bytes() {
                got.push(f.to_vec());
            }
        }) == 0
        {
            p.wait_readable(5);
        }
    }
    got
}

/// Run a command inside namespace `ns` (`ip netns exec`): a `Switch::start_with` wrapper.
pub fn in_ns_cmd(ns: &str) -> impl FnOnce(Command) -> Command {
    let ns = ns.to_string();
    move |c: Command| {
        let mut w = Command::new("ip");
        w.args(["netns", "exec", &ns])
            .arg(c.get_program())
            .args(c.get_args());
        w
    }
}

/// A switch config for the netns tests: two workers, with the k=4 fat-tree's edge
/// switch tables or none (`tables = false`: any number of ports), the management socket
/// in `dir`, then `extra` (sections of its own) and one `[[port]]` per entry of `ports`.
pub fn netns_config(dir: &Dir, tables: bool, extra: &str, ports: &[&str]) -> String {
    let ports: Vec<String> = ports.iter().map(|p| p.to_string()).collect();
    config(
        "workers = 2\nmax_sleep_us = 200",
        tables.then_some((SPEC, EDGE)),
        &dir.path("switch.sock"),
        extra,
        &ports,
    )
}

/// Frames to forward at the edge switch, as (ingress port, frame as it arrives there):
/// host 0 → host 1 and back (payloads `0 to 1{via}`, `1 to 0{via}`), and from above a far
/// host's frames to each of them, sent behind uplinks 2 and 3.
pub fn edge_cases(f: &Fabric, via: &str) -> Vec<(usize, Vec<u8>)> {
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let far = f.topo.hosts.len() as u32 - 1;
    let mut cases: Vec<(usize, Vec<u8>)> = vec![
        (
            0,
            f.frame(Kind::Sliced, h0, h1, format!("0 to 1{via}").as_bytes()),
        ),
        (
            1,
            f.frame(Kind::Sliced, h1, h0, format!("1 to 0{via}").as_bytes()),
        ),
    ];
    for (up, src, dst) in [(2, far, h0), (3, far - 1, h1)] {
        cases.push((up, from_above(f, src, dst)));
    }
    cases
}

/// A frame from `src` (under another pod) to `dst` as it reaches the edge switch.
pub fn from_above(f: &Fabric, src: u32, dst: u32) -> Vec<u8> {
    f.arriving(&f.frame(Kind::Sliced, src, dst, b"from above"), src)
        .1
}

/// Queue every frame on `p` (each accepted) and flush.
pub fn send(p: &mut canopy_dataplane::port::afpacket::AfPacketPort, frames: &[Vec<u8>]) {
    for f in frames {
        assert_eq!(p.tx_frame(f), Ok(true), "tx_frame");
    }
    p.tx_flush().expect("tx_flush");
}

/// Send each case `n` times from the host port behind its ingress; each copy must reach
/// the one port the reference decision names, exactly as it says. How many went through.
pub fn forward_cases(
    hp: &mut [canopy_dataplane::port::afpacket::AfPacketPort],
    f: &Fabric,
    cases: &[(usize, Vec<u8>)],
    n: usize,
    t: Duration,
) -> u64 {
    let mut forwarded = 0u64;
    for (ing, fr) in cases {
        let (want, ports) = f.expect(*ing as u16, fr);
        assert_eq!(ports.len(), 1);
        let out = usize::from(ports[0]);
        send(&mut hp[*ing], &vec![fr.clone(); n]);
        let got = recv(&mut hp[out], n, t);
        assert_eq!(got, vec![want; n], "port {ing} -> {out}");
        forwarded += n as u64;
    }
    forwarded
}

/// The switch's counters once `done` holds of them, or after `t`: the workers publish
/// their counters on their own schedule.
pub fn counters_when(sw: &Switch, t: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + t;
    loop {
        let c = sw.counters();
        if done(&c) || Instant::now() > deadline {
            break c;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The wiring of the four-port switch tests: namespaces `<tag><pid>-<test>-` `sw`,
/// `h0`..`h3`, and veth `<sw_if><i>` in `sw` ↔ `host_if` in `h<i>` for each switch port `i`.
pub fn four_port_netns(tag: &str, test: &str, sw_if: &str, host_if: &str) -> Netns {
    let ns = Netns::tagged(tag, test, &["sw", "h0", "h1", "h2", "h3"]);
    for i in 0..4 {
        ns.veth(0, &format!("{sw_if}{i}"), i + 1, host_if);
    }
    ns
}

/// [`netns_config`] started inside namespace 0 of `ns` (the switch's).
pub fn start_in_ns(ns: &Netns, dir: &Dir, tables: bool, extra: &str, ports: &[&str]) -> Switch {
    let cfg = netns_config(dir, tables, extra, ports);
    Switch::start_with(dir, &cfg, in_ns_cmd(ns.name(0)))
}

/// `canopy-switch run --config <dir>/switch.toml` with `config`, inside namespace `ns`
/// behind the command words `pre` (e.g. `prlimit ...`): the start must fail with an exit
/// code (not a signal) and a message with each of `want` in it.
pub fn start_fails_naming(ns: &str, pre: &[&str], dir: &Dir, config: &str, want: &[&str]) {
    let path = dir.path("switch.toml");
    std::fs::write(&path, config).unwrap();
    let out = Command::new("ip")
        .args(["netns", "exec", ns])
        .args(pre)
        .arg(switch_bin())
        .args(["run", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert_ne!(out.status.code(), None, "killed by a signal: {err}");
    for w in want {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
}

/// The host side of the four-port switch tests: an AF_PACKET port on `host_if` in each
/// of `h0`..`h3` (namespaces 1 to 4 of `ns`).
pub fn host_ports(
    ns: &Netns,
    host_if: &'static str,
) -> Vec<canopy_dataplane::port::afpacket::AfPacketPort> {
    (0..4).map(|i| host_port(ns.name(i + 1), host_if)).collect()
}

/// Every port of a counters response has its backend counters `names` and its kernel
/// drops at zero.
pub fn assert_no_backend_drops(c: &Value, names: &[&str]) {
    for (i, p) in c["ports"].as_array().unwrap().iter().enumerate() {
        let b = &p["backend"];
        for name in names {
            assert_eq!(b["drops"][name].as_u64(), Some(0), "port {i} {name}: {c}");
        }
        assert_eq!(b["kernel_drops"].as_u64(), Some(0), "{c}");
    }
}
