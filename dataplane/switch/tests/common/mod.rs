//! Helpers of the `canopy-switch` integration tests: a scratch directory, the real
//! binary as a child process, management requests, and frames built with
//! `canopy-control` for a k=4 fat-tree.
#![allow(dead_code)]

use canopy_control::kinds;
use canopy_control::oracle::host_mac;
use canopy_control::topology::{self, Peer, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, Verdict};
use canopy_proto::mgmt::Request;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_canopy-switch");
pub const SPEC: &str = "fat-tree:k=4";
pub const EDGE: &str = "edge-p0-e0";

/// A scratch directory under /tmp (`tempfile`), removed on drop.
pub struct Dir(pub tempfile::TempDir);

impl Dir {
    pub fn new(tag: &str) -> Dir {
        Dir(tempfile::Builder::new()
            .prefix(&format!("canopy-switchbin-{tag}-"))
            .tempdir()
            .expect("a scratch directory under /tmp"))
    }
    pub fn path(&self, f: &str) -> PathBuf {
        self.0.path().join(f)
    }
}

/// A config of `ports` mem ports with the edge switch's computed sliced tables (or
/// none), socket in `dir`, plus `extra_mgmt` lines in [management].
pub fn mem_config(dir: &Dir, ports: usize, tables: bool, extra_mgmt: &str) -> String {
    let mut s = String::from("[switch]\nworkers = 1\nmax_sleep_us = 200\n\n");
    if tables {
        s +=
            &format!("[tables]\ntopology = \"{SPEC}\"\nkind = \"sliced\"\nswitch = \"{EDGE}\"\n\n");
    }
    s += &format!(
        "[management]\nsocket = \"{}\"\n{extra_mgmt}\n",
        dir.path("switch.sock").display()
    );
    for i in 0..ports {
        s += &format!("\n[[port]]\nbackend = \"mem\"\nname = \"p{i}\"\ncapacity = 4096\n");
    }
    s
}

/// The real binary running a config; killed on drop if still running.
pub struct Switch {
    pub child: Option<Child>,
    pub socket: PathBuf,
    pub stderr: PathBuf,
    /// Frames injected so far (what `settle` waits to see received).
    pub injected: AtomicU64,
}

/// Run the binary with `args` to completion: (status, stdout, stderr).
pub fn run_bin(args: &[&str]) -> (ExitStatus, String, String) {
    let out = Command::new(BIN)
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
        let stderr = dir.path("stderr.log");
        let mut cmd = Command::new(BIN);
        cmd.args(["run", "--config", cfg.to_str().unwrap(), "--log", "debug"]);
        let mut cmd = wrap(cmd);
        cmd.stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap());
        let child = cmd.spawn().expect("spawn canopy-switch");
        let mut sw = Switch {
            child: Some(child),
            socket: dir.path("switch.sock"),
            stderr,
            injected: AtomicU64::new(0),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if UnixStream::connect(&sw.socket).is_ok() {
                break;
            }
            if let Some(st) = sw.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("canopy-switch exited early ({st}): {}", sw.log());
            }
            assert!(
                Instant::now() < deadline,
                "socket never appeared: {}",
                sw.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        sw
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

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
        let hex: Vec<String> = frames.iter().map(hex::encode).collect();
        let r = self.ok(&Request::Inject { port, frames: hex });
        assert_eq!(r["injected"], json!(frames.len()), "{r}");
        self.injected
            .fetch_add(frames.len() as u64, Ordering::Relaxed);
    }

    pub fn capture(&self, port: u16) -> Vec<Vec<u8>> {
        let r = self.ok(&Request::Capture {
            port,
            max: Some(65536),
        });
        r["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| hex::decode(f.as_str().unwrap()).unwrap())
            .collect()
    }

    /// SIGTERM and wait: (status, stdout).
    pub fn terminate(mut self) -> (ExitStatus, String) {
        let mut child = self.child.take().unwrap();
        let st = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "no exit after SIGTERM");
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (status, out)
    }
}

impl Drop for Switch {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
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
    /// Send one request (a [`Request`], an [`AuthRequest`](canopy_proto::mgmt::AuthRequest))
    /// and read the response.
    pub fn req(&mut self, r: &impl Serialize) -> Value {
        self.send_raw(&line(r));
        self.read().expect("a response")
    }
}

/// A request as one line (JSON and the newline).
pub fn line(r: &impl Serialize) -> Vec<u8> {
    let mut l = serde_json::to_vec(r).expect("a request encodes");
    l.push(b'\n');
    l
}

/// `replace_tables` with `t`.
pub fn replace_tables(t: &impl Serialize) -> Request {
    Request::ReplaceTables {
        tables: serde_json::to_value(t).expect("tables encode"),
    }
}

/// The k=4 fat-tree, its sliced tables, and the edge switch's index.
pub struct Fabric {
    pub topo: Topology,
    pub tables: Vec<SwitchTables>,
    pub edge: usize,
}

impl Fabric {
    pub fn new(kind: Kind) -> Fabric {
        let topo = topology::build_str(SPEC).unwrap();
        let tables = kinds::tables(&topo, kind).unwrap();
        let edge = topo.switches.iter().position(|s| s.name == EDGE).unwrap();
        Fabric { topo, tables, edge }
    }

    pub fn edge_tables(&self) -> &SwitchTables {
        &self.tables[self.edge]
    }

    /// Host on port `p` of the edge switch.
    pub fn host_on(&self, p: usize) -> u32 {
        match self.topo.switches[self.edge].ports[p].peer {
            Peer::Host { host, .. } => host,
            x => panic!("port {p} leads to {x:?}"),
        }
    }

    /// The frame host `src` sends to `dst`.
    pub fn frame(&self, kind: Kind, src: u32, dst: u32, payload: &[u8]) -> Vec<u8> {
        let h = kinds::header(&self.topo, kind, src, dst).unwrap();
        wire::ethernet_frame(
            host_mac(&self.topo, dst),
            host_mac(&self.topo, src),
            &h,
            payload,
        )
    }

    /// The frame as it reaches the edge switch (ingress port, bytes): walked from host
    /// `src` through the model fabric with the dataplane's decisions (first port of a
    /// group), so a frame from a far host arrives from above with its header advanced.
    pub fn arriving(&self, frame: &[u8], src: u32) -> (u16, Vec<u8>) {
        let mut f = frame.to_vec();
        let (mut sw, mut port) = match self.topo.hosts[src as usize].ports[0].peer {
            Peer::Switch { sw, port } => (sw as usize, port),
            x => panic!("host {src} on {x:?}"),
        };
        for _ in 0..16 {
            if sw == self.edge {
                return (port, f);
            }
            let out = match decide(&self.tables[sw], port, &mut f) {
                Verdict::Port(p) => p,
                Verdict::Group(g) => self.tables[sw].group(g)[0],
                Verdict::Drop(r) => panic!("model drops at {}: {}", sw, r.name()),
            };
            match self.topo.switches[sw].ports[usize::from(out)].peer {
                Peer::Switch { sw: s, port: p } => (sw, port) = (s as usize, p),
                x => panic!("walk left the fabric at {x:?}"),
            }
        }
        panic!("frame never reached the edge switch");
    }

    /// The edge switch's decision on `frame` from `ingress`: the bytes it sends and the
    /// ports it may send them on.
    pub fn expect(&self, ingress: u16, frame: &[u8]) -> (Vec<u8>, Vec<u16>) {
        let mut f = frame.to_vec();
        let t = self.edge_tables();
        match decide(t, ingress, &mut f) {
            Verdict::Port(p) => (f, vec![p]),
            Verdict::Group(g) => (f, t.group(g).to_vec()),
            Verdict::Drop(r) => panic!("model drops: {}", r.name()),
        }
    }
}

/// Drops of `reason` at `port` in a counters response.
pub fn drops(c: &Value, port: usize, reason: &str) -> u64 {
    c["ports"][port]["drops"][reason].as_u64().unwrap()
}

// ---- network namespaces (the netns_switch* tests) ----

/// Root and `ip` (iproute2): what every namespace test needs; prints why not.
pub fn netns_can_run(test: &str, needs: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIP {test}: needs root ({needs})");
        return false;
    }
    if Command::new("ip").arg("-V").output().is_err() {
        eprintln!("SKIP {test}: `ip` (iproute2) not installed");
        return false;
    }
    true
}

/// Namespaces `<tag><pid>-<test>-<suffix>` (the testbed's guard: deleted on drop, also
/// when the test fails).
pub fn netns(tag: &str, test: &str, suffixes: &[&str]) -> canopy_testbed::netns::Netns {
    let prefix = format!("{tag}{}-{test}", std::process::id());
    canopy_testbed::netns::Netns::create(&prefix, suffixes)
        .unwrap_or_else(|e| panic!("namespaces {prefix}-*: {e}"))
}

/// An AF_PACKET port (TPACKET_V2) on `ifname` inside namespace `ns`, the host side of a
/// switch port; the socket stays in that namespace.
pub fn host_port(ns: &str, ifname: &'static str) -> canopy_dataplane::port::afpacket::AfPacketPort {
    use canopy_dataplane::port::afpacket::{AfPacketConfig, AfPacketPort, TpacketVersion};
    use std::os::fd::AsRawFd;
    let path = format!("/run/netns/{ns}");
    std::thread::spawn(move || {
        let f = std::fs::File::open(&path).expect("open netns");
        // SAFETY: a valid namespace fd; this changes only the calling (fresh) thread.
        let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(r, 0, "setns {path}: {}", std::io::Error::last_os_error());
        let cfg = AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        };
        AfPacketPort::open(ifname, cfg).expect("open host port")
    })
    .join()
    .expect("netns thread")
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
    let mut cfg = String::from("[switch]\nworkers = 2\nmax_sleep_us = 200\n\n");
    if tables {
        cfg +=
            &format!("[tables]\ntopology = \"{SPEC}\"\nkind = \"sliced\"\nswitch = \"{EDGE}\"\n\n");
    }
    cfg += &format!(
        "[management]\nsocket = \"{}\"\n{extra}",
        dir.path("switch.sock").display()
    );
    for p in ports {
        cfg += &format!("\n[[port]]\n{p}\n");
    }
    cfg
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

/// veth `a` in namespace `na` of `ns`, peer `b` in `nb`, both up and running.
pub fn veth(ns: &canopy_testbed::netns::Netns, na: usize, a: &str, nb: usize, b: &str) {
    canopy_testbed::netns::veth(ns.name(na), a, ns.name(nb), b)
        .unwrap_or_else(|e| panic!("veth {a}/{b}: {e}"));
}

/// `ip -n <namespace i of ns> <args>`.
pub fn ip_in(ns: &canopy_testbed::netns::Netns, i: usize, args: &[&str]) {
    let mut a = vec!["-n", ns.name(i)];
    a.extend_from_slice(args);
    canopy_testbed::netns::ip(&a).unwrap_or_else(|e| panic!("ip {a:?}: {e}"));
}

/// The wiring of the four-port switch tests: [`netns`] `sw`, `h0`..`h3`, and veth
/// `<sw_if><i>` in `sw` ↔ `host_if` in `h<i>` for each switch port `i`.
pub fn four_port_netns(
    tag: &str,
    test: &str,
    sw_if: &str,
    host_if: &str,
) -> canopy_testbed::netns::Netns {
    let ns = netns(tag, test, &["sw", "h0", "h1", "h2", "h3"]);
    for i in 0..4 {
        veth(&ns, 0, &format!("{sw_if}{i}"), i + 1, host_if);
    }
    ns
}
