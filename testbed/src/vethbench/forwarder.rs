//! The wiring of the veth bench and the forwarders that run on it, one at a time.
//!
//! ```text
//!  ns <p>-s            ns <p>-f (forwarder)              ns <p>-r
//!  s0 ───────────────── fa  [bridge | testpmd | canopy]  fb ──────────────── r0
//!  d0 ─────────────────────────── (direct: no forwarder) ──────────────────── d1
//!                       u2 ── u2p, u3 ── u3p  (canopy's up ports: wired, unused)
//! ```
//!
//! A forwarder is started by [`start`] and stopped when its [`Running`] guard drops
//! (processes get SIGTERM, then SIGKILL after 3 s; the bridge is deleted).

use crate::error::{Result, TestbedError};
use crate::launch;
use crate::os::netns::{self, ip, which, Netns};
use crate::os::process::{self, Proc};
use crate::os::{meminfo, sys};
use crate::traffic::frame::HostFrame;
use canopy_dataplane::wire::Kind as HeaderKind;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Sender-side interface (namespace `-s`).
pub const S_IF: &str = "s0";
/// Forwarder's interface towards the sender.
pub const F_IN: &str = "fa";
/// Forwarder's interface towards the receiver.
pub const F_OUT: &str = "fb";
/// Receiver-side interface (namespace `-r`).
pub const R_IF: &str = "r0";
/// Direct pair: sender end.
pub const D_S: &str = "d0";
/// Direct pair: receiver end.
pub const D_R: &str = "d1";
/// Canopy's unused up ports (each a veth whose peer stays in the forwarder namespace).
pub const UP: [(&str, &str); 2] = [("u2", "u2p"), ("u3", "u3p")];

/// Topology of the canopy forwarder.
pub const TOPOLOGY: &str = "fat-tree:k=4";
/// The switch the canopy forwarder runs: the first edge switch (pod 0, edge 0), with
/// hosts h0 and h1 on ports 0 and 1 and up ports 2 and 3.
pub const SWITCH: &str = "edge-p0-e0";

/// The edge switch the canopy forwarder runs, where its ports lead, and the frames the
/// bench sends through it: the fabric generator's [`HostFrame`] (a real sliced-flit frame
/// with a measurement block) from host h0 to host h1.
#[derive(Debug)]
pub struct EdgeSwitch {
    topo: canopy_control::topology::Topology,
    /// Number of ports of the switch.
    pub ports: usize,
    /// Port of the switch that leads to the source host.
    pub src_port: usize,
    /// Port of the switch that leads to the destination host.
    pub dst_port: usize,
    /// Source and destination host indices.
    pub hosts: (u32, u32),
}

impl EdgeSwitch {
    /// [`SWITCH`] of [`TOPOLOGY`] and its first two host ports.
    pub fn new() -> Result<EdgeSwitch> {
        let topo =
            canopy_control::build_str(TOPOLOGY).map_err(|e| TestbedError::Frame(e.to_string()))?;
        let sw = topo
            .switches
            .iter()
            .find(|s| s.name == SWITCH)
            .ok_or_else(|| TestbedError::Frame(format!("{TOPOLOGY} has no switch {SWITCH}")))?;
        let [(src_port, h0), (dst_port, h1), ..] = sw.host_ports()[..] else {
            return Err(TestbedError::Frame(format!(
                "{SWITCH} has fewer than two host ports"
            )));
        };
        let ports = sw.ports.len();
        Ok(EdgeSwitch {
            topo,
            ports,
            src_port,
            dst_port,
            hosts: (h0, h1),
        })
    }

    /// The h0 → h1 frame, `len` bytes long (without FCS; 60 = a 64-byte frame on the
    /// wire), its sequence numbers tagged with `run_id`.
    pub fn frame(&self, len: usize, run_id: u16) -> Result<HostFrame> {
        let (h0, h1) = self.hosts;
        HostFrame::new(&self.topo, HeaderKind::Sliced, h0, h1, len, run_id)
    }

    /// The interface of each switch port, in port order: the source host's port on
    /// [`F_IN`], the destination host's on [`F_OUT`], the others on the [`UP`] veths.
    pub fn port_interfaces(&self) -> Vec<&'static str> {
        let mut up = UP.iter().map(|x| x.0);
        (0..self.ports)
            .map(|p| {
                if p == self.src_port {
                    F_IN
                } else if p == self.dst_port {
                    F_OUT
                } else {
                    up.next().unwrap_or("u_missing")
                }
            })
            .collect()
    }
}

/// The forwarders the bench knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// No forwarder: veth straight from sender to receiver (the floor).
    Direct,
    /// Linux bridge in the forwarder namespace.
    Bridge,
    /// DPDK `dpdk-testpmd`, io forwarding over two `net_af_packet` vdevs.
    Testpmd,
    /// `canopy-switch`, adaptive polling (spin, then sleep).
    Canopy,
    /// `canopy-switch`, busy polling pinned to the forwarder core.
    CanopyBusy,
    /// bmv2 `simple_switch` (only when installed and given a program).
    Bmv2,
}

impl Kind {
    /// Every kind, in the bench's default order.
    pub const ALL: [Kind; 6] = [
        Kind::Direct,
        Kind::Bridge,
        Kind::Testpmd,
        Kind::Canopy,
        Kind::CanopyBusy,
        Kind::Bmv2,
    ];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Direct => "direct",
            Kind::Bridge => "bridge",
            Kind::Testpmd => "testpmd",
            Kind::Canopy => "canopy",
            Kind::CanopyBusy => "canopy-busy",
            Kind::Bmv2 => "bmv2",
        }
    }

    /// Parse a name ([`Kind::name`]).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Whether frames go through a forwarder process whose CPU time can be read.
    pub fn has_process(self) -> bool {
        !matches!(self, Kind::Direct | Kind::Bridge)
    }
}

/// The namespaces and veths of one bench run.
#[derive(Debug)]
pub struct Wiring {
    ns: Netns,
    /// Whether offloads could be turned off on every veth (`ethtool` present).
    pub offloads_off: bool,
}

/// Where a frame enters and leaves for one forwarder.
#[derive(Debug, Clone)]
pub struct Path2 {
    /// Sender namespace and interface.
    pub tx: (String, &'static str),
    /// Receiver namespace and interface.
    pub rx: (String, &'static str),
}

impl Wiring {
    /// Create namespaces `<prefix>-s`, `-f`, `-r` and every veth of the diagram.
    pub fn build(prefix: &str) -> Result<Wiring> {
        let ns = Netns::create(prefix, &["s", "f", "r"])?;
        let (s, f, r) = (ns.name(0), ns.name(1), ns.name(2));
        let mut off = netns::veth(s, S_IF, f, F_IN)?;
        off &= netns::veth(f, F_OUT, r, R_IF)?;
        off &= netns::veth(s, D_S, r, D_R)?;
        for (a, b) in UP {
            off &= netns::veth(f, a, f, b)?;
        }
        Ok(Wiring {
            ns,
            offloads_off: off,
        })
    }

    /// Sender namespace.
    pub fn sender(&self) -> &str {
        self.ns.name(0)
    }
    /// Forwarder namespace.
    pub fn forwarder(&self) -> &str {
        self.ns.name(1)
    }
    /// Receiver namespace.
    pub fn receiver(&self) -> &str {
        self.ns.name(2)
    }

    /// The sender and receiver interfaces for `kind`.
    pub fn path(&self, kind: Kind) -> Path2 {
        if kind == Kind::Direct {
            Path2 {
                tx: (self.sender().into(), D_S),
                rx: (self.receiver().into(), D_R),
            }
        } else {
            Path2 {
                tx: (self.sender().into(), S_IF),
                rx: (self.receiver().into(), R_IF),
            }
        }
    }
}

/// Where the forwarders' programs are and how they run.
#[derive(Debug, Clone)]
pub struct Options {
    /// CPU the forwarder is pinned to.
    pub fwd_core: usize,
    /// `canopy-switch` binary.
    pub canopy_switch: Option<PathBuf>,
    /// TPACKET version of canopy's ports ("v2" or "v3"), for the `afpacket` backend.
    pub canopy_tpacket: String,
    /// Backend of canopy's ports: "afpacket", "afxdp" (mode auto: native copy on veth),
    /// "afxdp-skb" (generic XDP) or "dpdk" (DPDK's af_packet PMD on each veth; needs a
    /// canopy-switch built with `--features dpdk`).
    pub canopy_backend: String,
    /// Adaptive mode: empty rounds before sleeping.
    pub canopy_spins: u32,
    /// `dpdk-testpmd` binary.
    pub testpmd: Option<PathBuf>,
    /// bmv2 `simple_switch` binary.
    pub bmv2: Option<PathBuf>,
    /// Compiled P4 program (bmv2 JSON) for `simple_switch`.
    pub bmv2_json: Option<PathBuf>,
    /// Directory for generated configs and forwarder logs.
    pub work_dir: PathBuf,
}

impl Options {
    /// Look the programs up: `canopy-switch` next to the running executable (same
    /// target directory) or on PATH; `dpdk-testpmd` and `simple_switch` on PATH.
    pub fn discover(fwd_core: usize, work_dir: PathBuf) -> Options {
        Options {
            fwd_core,
            canopy_switch: launch::find_program(launch::SWITCH),
            canopy_tpacket: "v2".into(),
            canopy_backend: "afpacket".into(),
            canopy_spins: canopy_dataplane::engine::DEFAULT_SPINS,
            testpmd: which("dpdk-testpmd"),
            bmv2: which(launch::SIMPLE_SWITCH),
            bmv2_json: None,
            work_dir,
        }
    }
}

/// Why `kind` cannot run here, if it cannot.
pub fn unavailable(kind: Kind, o: &Options) -> Option<String> {
    match kind {
        Kind::Direct | Kind::Bridge => None,
        Kind::Testpmd => o.testpmd.is_none().then(|| {
            "dpdk-testpmd not installed (Debian: dpdk-dev, librte-net-af-packet23)".into()
        }),
        Kind::Canopy | Kind::CanopyBusy => o.canopy_switch.is_none().then(|| {
            "canopy-switch not found (cargo build --release -p canopy-switch, or put it on PATH)"
                .into()
        }),
        Kind::Bmv2 => match (&o.bmv2, &o.bmv2_json) {
            (None, _) => Some("simple_switch (bmv2) not installed".into()),
            (Some(_), None) => Some("no P4 program given (--bmv2-json)".into()),
            _ if launch::find_program(launch::CANOPYCTL).is_none() => Some(
                "canopyctl not found (it generates bmv2's table entries: cargo build --release -p canopy-control)"
                    .into(),
            ),
            _ => None,
        },
    }
}

/// A started forwarder; stopped on drop.
#[derive(Debug)]
pub struct Running {
    /// Which forwarder.
    pub kind: Kind,
    proc_: Option<Proc>,
    bridge_ns: Option<String>,
    /// Its log file, if it has a process.
    pub log: Option<PathBuf>,
}

impl Running {
    /// Process id of the forwarder process (None for direct and bridge).
    pub fn pid(&self) -> Option<u32> {
        self.proc_.as_ref().map(Proc::pid)
    }

    /// Error if the forwarder process has exited (with the tail of its log).
    pub fn check_alive(&mut self) -> Result<()> {
        if let Some(p) = self.proc_.as_mut() {
            if let Some(st) = p.exited() {
                return Err(TestbedError::Forwarder {
                    forwarder: self.kind.name().into(),
                    detail: format!("exited ({st}); log: {}", log_tail(self.log.as_deref())),
                });
            }
        }
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut p) = self.proc_.take() {
            // canopy-switch and testpmd both stop cleanly on SIGINT/SIGTERM
            p.stop(sys::SIGINT, Duration::from_secs(3));
        }
        if let Some(ns) = self.bridge_ns.take() {
            let _ = ip(&["-n", &ns, "link", "del", "br0"]);
        }
    }
}

/// The last lines of a forwarder's log (none without a log), for error messages.
pub fn log_tail(log: Option<&Path>) -> String {
    log.map(|l| process::log_tail(l, 8).join(" | "))
        .unwrap_or_default()
}

/// Start `kind` on `w`. The caller checks [`unavailable`] first.
pub fn start(kind: Kind, w: &Wiring, o: &Options, sw: &EdgeSwitch) -> Result<Running> {
    let f = w.forwarder().to_string();
    let mut r = Running {
        kind,
        proc_: None,
        bridge_ns: None,
        log: None,
    };
    match kind {
        Kind::Direct => {}
        Kind::Bridge => {
            ip(&[
                "-n",
                &f,
                "link",
                "add",
                "br0",
                "type",
                "bridge",
                "stp_state",
                "0",
            ])?;
            r.bridge_ns = Some(f.clone());
            ip(&[
                "-n",
                &f,
                "link",
                "set",
                "br0",
                "type",
                "bridge",
                "forward_delay",
                "0",
            ])?;
            for dev in [F_IN, F_OUT] {
                ip(&["-n", &f, "link", "set", dev, "master", "br0"])?;
            }
            netns::offloads_off(&f, "br0");
            ip(&["-n", &f, "link", "set", "br0", "up"])?;
        }
        Kind::Testpmd => {
            let bin = o.testpmd.as_ref().ok_or_else(|| missing("dpdk-testpmd"))?;
            let mut cmd = netns::exec(&f, Some(o.fwd_core));
            cmd.arg(bin);
            // main lcore (blocked reading stdin) and the forwarding lcore share one CPU
            cmd.arg(format!("--lcores=0@{c},1@{c}", c = o.fwd_core));
            cmd.args(["--no-pci", "--file-prefix"]);
            cmd.arg(format!("cvb{}", std::process::id()));
            // --in-memory needs huge pages; without them --no-huge (which implies
            // legacy memory mode, incompatible with --in-memory) and 1 GB of plain memory (its default mbuf pool
            // of 155k × 2176 B does not fit in 512 MB)
            if hugepages_free() {
                cmd.arg("--in-memory");
            } else {
                cmd.args(["--no-huge", "-m", "1024"]);
            }
            for (i, dev) in [F_IN, F_OUT].iter().enumerate() {
                cmd.arg(format!("--vdev=net_af_packet{i},iface={dev},framecnt=8192"));
            }
            cmd.args(["--", "--forward-mode=io", "--auto-start", "--nb-cores=1"]);
            let log = o.work_dir.join("testpmd.log");
            r.proc_ = Some(Proc::spawn("testpmd", cmd, &log, true)?);
            r.log = Some(log);
        }
        Kind::Canopy | Kind::CanopyBusy => {
            let bin = o
                .canopy_switch
                .as_ref()
                .ok_or_else(|| missing("canopy-switch"))?;
            let name = kind.name();
            let cfg = o.work_dir.join(format!("{name}.toml"));
            let sock = o.work_dir.join(format!("{name}.sock"));
            let text = canopy_config(sw, kind == Kind::CanopyBusy, o, &sock);
            std::fs::File::create(&cfg)
                .and_then(|mut fh| fh.write_all(text.as_bytes()))
                .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
            let cmd = launch::switch_command(bin, &f, &cfg, Some(o.fwd_core), Some("warn"));
            let log = o.work_dir.join(format!("{name}.log"));
            r.proc_ = Some(Proc::spawn(name, cmd, &log, false)?);
            r.log = Some(log);
        }
        Kind::Bmv2 => {
            let bin = o.bmv2.as_ref().ok_or_else(|| missing("simple_switch"))?;
            let json = o.bmv2_json.as_ref().ok_or_else(|| missing("--bmv2-json"))?;
            // every port of the edge switch, in order, as canopy-switch gets them: the
            // entries canopyctl generates name the switch's own port numbers
            let ifnames: Vec<String> = sw.port_interfaces().iter().map(|s| s.to_string()).collect();
            let ipc = o.work_dir.join("bmv2.notifications.ipc");
            let cmd = launch::simple_switch_command(
                bin,
                &f,
                &ifnames,
                crate::fabric::bmv2::Program::Json(json),
                &ipc,
                Some(o.fwd_core),
                None,
            );
            let log = o.work_dir.join("bmv2.log");
            r.proc_ = Some(Proc::spawn("bmv2", cmd, &log, false)?);
            r.log = Some(log);
            program_bmv2(bin, &f)?;
        }
    }
    Ok(r)
}

/// How long a started `simple_switch` is given to take its entries.
const BMV2_PROGRAM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Program the `simple_switch` in namespace `netns` with the edge switch's entries, as
/// the testbed programs a bmv2 fabric (`canopyctl p4-entries`, then
/// `simple_switch_CLI`): without them it forwards nothing.
fn program_bmv2(simple_switch: &Path, netns: &str) -> Result<()> {
    let cli = simple_switch
        .parent()
        .map(|d| d.join("simple_switch_CLI"))
        .filter(|p| p.is_file())
        .or_else(|| which("simple_switch_CLI"))
        .ok_or_else(|| missing("simple_switch_CLI"))?;
    let canopyctl = launch::find_program(launch::CANOPYCTL).ok_or_else(|| missing("canopyctl"))?;
    let tools = crate::fabric::bmv2::Cli { cli, canopyctl };
    let fail = |detail: String| TestbedError::Forwarder {
        forwarder: "bmv2".into(),
        detail,
    };
    let entries = tools.entries_for(TOPOLOGY, "sliced", SWITCH, &fail)?;
    let deadline = std::time::Instant::now() + BMV2_PROGRAM_TIMEOUT;
    tools.program_in(netns, SWITCH, &entries, deadline, &fail)
}

fn missing(tool: &str) -> TestbedError {
    TestbedError::Missing {
        tool: tool.into(),
        hint: "see `canopy-vethbench --help`".into(),
    }
}

/// Whether the machine has free huge pages (else testpmd runs with `--no-huge`).
fn hugepages_free() -> bool {
    meminfo::free_hugepages() >= 256
}

/// The `canopy-switch` config (the contract of `SWITCHCFG.md`): edge switch `edge-p0-e0` of
/// the k=4 fat tree with sliced tables, the source host's port on `fa`, the
/// destination host's on `fb`, the two other ports on the unused veths.
pub fn canopy_config(sw: &EdgeSwitch, busy: bool, o: &Options, sock: &Path) -> String {
    // the parser is strict: spins/max_sleep_us only in adaptive mode, pin_cores only in busy
    let mode = if busy {
        format!("mode = \"busy\"\npin_cores = [{}]\n", o.fwd_core)
    } else {
        // DPDK ports have no fd to wake a sleeping worker: it sleeps its whole bound
        let max_sleep = if o.canopy_backend == "dpdk" {
            100
        } else {
            100_000
        };
        format!(
            "mode = \"adaptive\"\nspins = {}\nmax_sleep_us = {max_sleep}\n",
            o.canopy_spins
        )
    };
    let mut s = format!(
        "# generated by canopy-vethbench\n[switch]\nworkers = 1\n{mode}ring_size = 256\n\
         drain_us = 100\npool = 8192\n\n\
         [tables]\ntopology = \"{}\"\nkind = \"sliced\"\nswitch = \"{}\"\n\n\
         [management]\nsocket = \"{}\"\n",
        TOPOLOGY,
        SWITCH,
        sock.display()
    );
    let devs = sw.port_interfaces();
    if o.canopy_backend == "dpdk" {
        // DPDK's af_packet PMD on each veth (framecnt=8192: with its default ring it
        // loses frames silently under load); without huge pages, plain memory
        let mut eal: Vec<String> = vec!["--no-pci".into()];
        if !hugepages_free() {
            eal.extend(["--no-huge".into(), "-m".into(), "512".into()]);
        }
        for (p, dev) in devs.iter().enumerate() {
            eal.push(format!("--vdev=net_af_packet{p},iface={dev},framecnt=8192"));
        }
        let quoted: Vec<String> = eal.iter().map(|a| format!("\"{a}\"")).collect();
        s.push_str(&format!("\n[dpdk]\neal_args = [{}]\n", quoted.join(", ")));
    }
    for (p, dev) in devs.iter().enumerate() {
        s.push_str(&match o.canopy_backend.as_str() {
            "afxdp" => format!("\n[[port]]\nbackend = \"afxdp\"\ninterface = \"{dev}\"\n"),
            "afxdp-skb" => {
                format!("\n[[port]]\nbackend = \"afxdp\"\ninterface = \"{dev}\"\nmode = \"skb\"\n")
            }
            "dpdk" => format!("\n[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet{p}\"\n"),
            _ => format!(
                "\n[[port]]\nbackend = \"afpacket\"\ninterface = \"{dev}\"\ntpacket = \"{}\"\n",
                o.canopy_tpacket
            ),
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_by_name() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.name()), Some(k));
        }
        assert_eq!(Kind::parse("nope"), None);
        assert!(Kind::Canopy.has_process() && !Kind::Bridge.has_process());
    }

    #[test]
    fn the_frame_is_a_real_sliced_frame_through_e0_0() {
        let sw = EdgeSwitch::new().unwrap();
        assert_eq!(sw.ports, 4);
        assert_ne!(sw.src_port, sw.dst_port);
        let f = sw.frame(60, 0).unwrap();
        assert_eq!(f.bytes.len(), 60);
        let t = HostFrame::parse(&f.bytes).expect("a Canopy frame with a measurement block");
        let mac = |h| canopy_control::oracle::host_mac(&sw.topo, h);
        assert_eq!((t.src_mac, t.dst_mac), (mac(sw.hosts.0), mac(sw.hosts.1)));
        // the switch's own decision sends it from the source port to the destination port
        let idx = sw.topo.switch_index(SWITCH).unwrap();
        let tables = canopy_control::kinds::tables(&sw.topo, HeaderKind::Sliced).unwrap();
        let mut b = f.bytes.clone();
        let v = canopy_dataplane::decide(&tables[idx], sw.src_port as u16, &mut b);
        assert_eq!(
            v,
            canopy_dataplane::Verdict::Port(sw.dst_port as u16),
            "{v:?}"
        );
        assert!(sw.frame(20, 0).is_err());
    }

    #[test]
    fn canopy_config_puts_the_hosts_on_fa_and_fb() {
        let f = EdgeSwitch::new().unwrap();
        let o = Options::discover(0, std::env::temp_dir());
        let text = canopy_config(&f, false, &o, Path::new("/tmp/x.sock"));
        let ports: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("interface = \""))
            .map(|l| l.trim_end_matches('"'))
            .collect();
        assert_eq!(ports.len(), 4);
        assert_eq!(ports[f.src_port], F_IN);
        assert_eq!(ports[f.dst_port], F_OUT);
        assert!(ports.contains(&"u2") && ports.contains(&"u3"));
        assert!(text.contains("mode = \"adaptive\"") && text.contains("switch = \"edge-p0-e0\""));
        assert_eq!(text.matches("backend = \"afpacket\"").count(), 4);
        let o = Options {
            canopy_backend: "afxdp-skb".into(),
            ..o
        };
        let text = canopy_config(&f, false, &o, Path::new("/tmp/x.sock"));
        assert_eq!(text.matches("backend = \"afxdp\"").count(), 4);
        assert_eq!(text.matches("mode = \"skb\"").count(), 4);
        assert!(!text.contains("tpacket"));
        let o = Options {
            canopy_backend: "dpdk".into(),
            ..o
        };
        let text = canopy_config(&f, false, &o, Path::new("/tmp/x.sock"));
        assert_eq!(text.matches("backend = \"dpdk\"").count(), 4);
        assert!(text.contains("max_sleep_us = 100\n"), "{text}");
        assert!(text.contains(&format!(
            "--vdev=net_af_packet{},iface={F_IN},framecnt=8192",
            f.src_port
        )));
        assert!(text.contains(&format!(
            "--vdev=net_af_packet{},iface={F_OUT},framecnt=8192",
            f.dst_port
        )));
        assert!(!text.contains("interface ="));
    }
}
