//! `up`, `down` and `status`.

use super::desc::{Desc, LinkKind, Node, LOCAL};
use super::procs;
use super::state::{self, Created, DaemonState, State, SwitchState};
use crate::error::{Result, TestbedError};
use crate::hosts::{FabricHosts, HostEndpoint};
use crate::netns::{self, ip};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Options of `up`.
#[derive(Debug, Clone)]
pub struct UpOptions {
    /// Root of the state directories (default [`state::DEFAULT_ROOT`]).
    pub state_root: PathBuf,
    /// The machine whose part to build (`local` = everything placed here).
    pub machine: String,
    /// `--switch-bin`: overrides the description and the search.
    pub switch_bin: Option<PathBuf>,
    /// Set (e.g. by a SIGINT handler) to stop `up` between steps; what was created is
    /// rolled back and `up` returns [`TestbedError::Interrupted`].
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Default for UpOptions {
    fn default() -> Self {
        UpOptions {
            state_root: PathBuf::from(state::DEFAULT_ROOT),
            machine: LOCAL.into(),
            switch_bin: None,
            interrupt: None,
        }
    }
}

/// What `up` did.
#[derive(Debug, Clone)]
pub struct UpSummary {
    /// The state (complete).
    pub state: State,
    /// Namespaces created.
    pub namespaces: usize,
    /// Veth pairs.
    pub veths: usize,
    /// VXLAN devices.
    pub vxlans: usize,
    /// Real NICs moved in.
    pub nics: usize,
    /// Switch processes.
    pub processes: usize,
    /// Whether offloads were turned off everywhere (false: ethtool missing or refused).
    pub offloads_off: bool,
    /// Wall time.
    pub elapsed: Duration,
}

impl std::fmt::Display for UpSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = &self.state;
        writeln!(
            f,
            "fabric     {} (machine {}): {} {}",
            s.name, s.machine, s.hosts.topology, s.hosts.kind
        )?;
        writeln!(
            f,
            "nodes      {} switches, {} hosts in {} namespaces",
            s.switches.len(),
            s.hosts.hosts.len(),
            self.namespaces
        )?;
        writeln!(
            f,
            "links      {} veth, {} vxlan, {} nic (offloads {})",
            self.veths,
            self.vxlans,
            self.nics,
            if self.offloads_off {
                "off"
            } else {
                "as the kernel set them"
            }
        )?;
        if s.target == "bmv2" {
            writeln!(
                f,
                "processes  {} bmv2 simple_switch, each programmed with canopyctl p4-entries",
                self.processes
            )?;
        } else {
            writeln!(
                f,
                "processes  {} canopy-switch, all healthy (tables loaded, every port link up{})",
                self.processes,
                if self.nics > 0 {
                    "; NIC links: when the far machine's part is up"
                } else {
                    ""
                }
            )?;
        }
        if let Some(d) = &s.daemon {
            writeln!(
                f,
                "canopyd    pid {}, every table pushed; control {}; metrics {}",
                d.pid,
                d.control.display(),
                d.metrics
                    .as_deref()
                    .map(|m| format!("http://{m}/metrics"))
                    .unwrap_or_else(|| "off".into())
            )?;
        }
        writeln!(f, "state      {}", s.path().display())?;
        write!(f, "time       {:.1} s", self.elapsed.as_secs_f64())
    }
}

fn fab_err(name: &str, detail: impl Into<String>) -> TestbedError {
    TestbedError::Fabric {
        fabric: name.to_string(),
        detail: detail.into(),
    }
}

/// Find `canopy-switch`: `--switch-bin`, the description's `switch_bin`, next to the
/// current executable (and its parent: `target/debug/deps/..`), then `PATH`.
pub fn find_switch_bin(desc: &Desc, cli: Option<&Path>) -> Result<PathBuf> {
    let given = match (cli, &desc.raw.switch_bin) {
        (Some(p), _) => Some((p.to_path_buf(), "--switch-bin".to_string())),
        (None, Some(p)) => Some((p.clone(), format!("{}: switch_bin", desc.file))),
        _ => None,
    };
    find_bin(
        desc,
        "canopy-switch",
        given,
        "-p canopy-switch` or pass --switch-bin",
    )
}

/// Find `canopyd`: the description's `[canopyd] bin`, next to the current executable,
/// then `PATH`.
pub fn find_daemon_bin(desc: &Desc) -> Result<PathBuf> {
    let given = desc
        .raw
        .canopyd
        .bin
        .clone()
        .map(|p| (p, format!("{}: canopyd.bin", desc.file)));
    find_bin(desc, "canopyd", given, "-p canopyd` or set [canopyd] bin")
}

fn find_bin(
    desc: &Desc,
    name: &str,
    given: Option<(PathBuf, String)>,
    hint: &str,
) -> Result<PathBuf> {
    if let Some((p, from)) = given {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(fab_err(
                &desc.name,
                format!("{name} binary {} (from {from}) does not exist", p.display()),
            ))
        };
    }
    if let Ok(exe) = std::env::current_exe() {
        for d in exe.ancestors().skip(1).take(2) {
            let p = d.join(name);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    netns::which(name).ok_or_else(|| {
        fab_err(
            &desc.name,
            format!("{name} not found next to this executable nor on PATH; build it (`cargo build --release {hint})"),
        )
    })
}

/// The generated `canopyd` configuration of a fabric whose switch sockets are
/// `<dir>/s<index>.sock` (`docs/canopyd.md`).
pub fn daemon_config(desc: &Desc, dir: &Path) -> String {
    let cd = &desc.raw.canopyd;
    let mut t = toml::Table::new();
    t.insert("name".into(), desc.name.clone().into());
    t.insert(
        "topology".into(),
        desc.raw.topology.get_ref().clone().into(),
    );
    t.insert("kind".into(), desc.kind.name().into());
    let mut d = toml::Table::new();
    d.insert("metrics".into(), cd.metrics.get_ref().clone().into());
    d.insert(
        "control".into(),
        dir.join("canopyd.sock").display().to_string().into(),
    );
    d.insert(
        "probe_interval_ms".into(),
        toml::Value::Integer(cd.probe_interval_ms as i64),
    );
    d.insert(
        "missed_probes".into(),
        toml::Value::Integer(i64::from(cd.missed_probes)),
    );
    t.insert("daemon".into(), toml::Value::Table(d));
    let mut sw = toml::Table::new();
    sw.insert(
        "socket".into(),
        dir.join("s{index}.sock").display().to_string().into(),
    );
    t.insert("switches".into(), toml::Value::Table(sw));
    format!(
        "# generated by canopy-testbed up for fabric {}; do not edit\n{}",
        desc.name,
        toml::to_string(&t).unwrap_or_default()
    )
}

/// Namespaces of fabric `name` that exist now (`<name>-s<i>`, `<name>-h<i>`).
pub fn fabric_namespaces(name: &str) -> Vec<String> {
    let out = ip(&["netns", "list"]).unwrap_or_default();
    let mut v: Vec<String> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| is_fabric_ns(name, n))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Whether `ns` is named like a namespace of fabric `name`.
pub fn is_fabric_ns(name: &str, ns: &str) -> bool {
    let Some(rest) = ns.strip_prefix(name).and_then(|r| r.strip_prefix('-')) else {
        return false;
    };
    let Some(num) = rest.strip_prefix('s').or_else(|| rest.strip_prefix('h')) else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
}

fn switch_config(desc: &Desc, sw: u32, socket: &Path) -> String {
    let s = &desc.topo.switches[sw as usize];
    let mut t = toml::Table::new();
    t.insert("switch".into(), toml::Value::Table(desc.switch_table()));
    if !desc.daemon {
        // no canopyd: the switch computes its own tables at start
        let mut tables = toml::Table::new();
        tables.insert(
            "topology".into(),
            desc.raw.topology.get_ref().clone().into(),
        );
        tables.insert("kind".into(), desc.kind.name().into());
        tables.insert("switch".into(), s.name.clone().into());
        t.insert("tables".into(), toml::Value::Table(tables));
    }
    let mut mgmt = toml::Table::new();
    mgmt.insert("socket".into(), socket.display().to_string().into());
    t.insert("management".into(), toml::Value::Table(mgmt));
    let ports: Vec<toml::Value> = (0..s.ports.len() as u16)
        .map(|p| toml::Value::Table(desc.port_table(sw, p)))
        .collect();
    t.insert("port".into(), toml::Value::Array(ports));
    if let Some(d) = desc.dpdk_table(sw) {
        t.insert("dpdk".into(), toml::Value::Table(d));
    }
    format!(
        "# generated by canopy-testbed up for fabric {} (switch {}); do not edit\n{}",
        desc.name,
        s.name,
        toml::to_string(&t).unwrap_or_default()
    )
}

/// `up`'s checks for the fabric's `dpdk` ports on this machine ([`super::dpdk`]): the
/// switch binary takes them (built with the feature), and the free huge pages cover the
/// estimate of every switch with dpdk ports.
fn check_dpdk(desc: &Desc, bin: &Path, configs: &[(u32, PathBuf, PathBuf, String)]) -> Result<()> {
    let mut need = vec![];
    let mut first = None;
    for (s, _, path, text) in configs {
        if desc.dpdk_table(*s).is_none() {
            continue;
        }
        let sname = &desc.topo.switches[*s as usize].name;
        let cfg = canopy_switch::config::Config::parse_rules(path, text)
            .map_err(|e| fab_err(&desc.name, format!("generated config of {sname}: {e}")))?;
        need.push((sname.clone(), super::dpdk::switch_hugepage_bytes(&cfg)));
        first.get_or_insert(text);
    }
    let Some(text) = first else {
        return Ok(());
    };
    super::dpdk::check_switch_binary(bin, text, &desc.name).map_err(|w| fab_err(&desc.name, w))?;
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    super::dpdk::check_hugepages(&need, &meminfo).map_err(|w| fab_err(&desc.name, w))
}

/// Create namespace `ns` (IPv6 off, loopback up).
fn add_netns(ns: &str) -> Result<()> {
    ip(&["netns", "add", ns])?;
    netns::disable_ipv6(ns)?;
    ip(&["-n", ns, "link", "set", "lo", "up"])?;
    Ok(())
}

/// Run `ip -n ns -batch -` with `lines`.
fn ip_batch(ns: Option<&str>, lines: &[String]) -> Result<()> {
    use std::io::Write;
    if lines.is_empty() {
        return Ok(());
    }
    let mut args: Vec<&str> = vec![];
    if let Some(n) = ns {
        args.extend(["-n", n]);
    }
    args.extend(["-batch", "-"]);
    let mut c = Command::new("ip")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| TestbedError::io("spawn ip -batch", e))?;
    let text = lines.join("\n") + "\n";
    if let Some(mut i) = c.stdin.take() {
        i.write_all(text.as_bytes())
            .map_err(|e| TestbedError::io("write ip -batch", e))?;
    }
    let out = c
        .wait_with_output()
        .map_err(|e| TestbedError::io("ip -batch", e))?;
    if !out.status.success() {
        return Err(TestbedError::Command {
            cmd: format!(
                "ip {} <<< {}",
                args.join(" "),
                lines.first().cloned().unwrap_or_default()
            ),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(())
}

/// Interfaces of `ns` that are not operationally up (lo excluded).
fn down_links(ns: &str, want: &[String]) -> Result<Vec<String>> {
    let out = ip(&["-n", ns, "-j", "link", "show"])?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| TestbedError::Parse {
        what: format!("ip -n {ns} -j link show"),
        detail: e.to_string(),
    })?;
    let mut up = std::collections::HashSet::new();
    for l in v.as_array().into_iter().flatten() {
        let name = l.get("ifname").and_then(|x| x.as_str()).unwrap_or("");
        let oper = l.get("operstate").and_then(|x| x.as_str()).unwrap_or("");
        // VXLAN devices report UNKNOWN when up
        let flags_up = l
            .get("flags")
            .and_then(|f| f.as_array())
            .is_some_and(|f| f.iter().any(|x| x == "LOWER_UP"));
        if oper == "UP" || (oper == "UNKNOWN" && flags_up) {
            up.insert(name.to_string());
        }
    }
    Ok(want.iter().filter(|w| !up.contains(*w)).cloned().collect())
}

struct Builder<'a> {
    desc: &'a Desc,
    state: State,
    children: Vec<(usize, Child)>,
    interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Builder<'_> {
    fn record(&mut self, c: Created) -> Result<()> {
        self.interrupted()?;
        self.state.record(c)
    }

    fn interrupted(&self) -> Result<()> {
        check_interrupt(&self.interrupt)
    }
}

/// The key of canopyd's child among [`Builder::children`] (switches use their index).
const DAEMON_CHILD: usize = usize::MAX;

/// `Err(Interrupted)` once `flag` is set.
fn check_interrupt(flag: &Option<std::sync::Arc<std::sync::atomic::AtomicBool>>) -> Result<()> {
    match flag {
        Some(f) if f.load(std::sync::atomic::Ordering::Relaxed) => Err(TestbedError::Interrupted),
        _ => Ok(()),
    }
}

/// Bring fabric `desc` up (this machine's part). On failure everything created so far
/// is removed again before the error is returned.
pub fn up(desc: &Desc, opts: &UpOptions, progress: &dyn Fn(&str)) -> Result<UpSummary> {
    let t0 = Instant::now();
    let name = &desc.name;
    let machine = opts.machine.as_str();
    desc.check_machine(machine)?;
    if !crate::sys::is_root() {
        return Err(fab_err(
            name,
            "`up` must run as root (it creates network namespaces); try sudo",
        ));
    }
    // the forwarders: canopy-switch, or bmv2's tools (found before anything is created)
    let (bin, bmv2_tools) = if desc.bmv2 {
        (PathBuf::new(), Some(super::bmv2::Tools::find(desc)?))
    } else {
        let bin = find_switch_bin(desc, opts.switch_bin.as_deref())?;
        let bin =
            std::path::absolute(&bin).map_err(|e| TestbedError::io("canopy-switch path", e))?;
        (bin, None)
    };
    let root =
        std::path::absolute(&opts.state_root).map_err(|e| TestbedError::io("state root", e))?;
    let dir = state::state_dir(&root, name, machine);
    if dir.join("state.json").exists() {
        return Err(fab_err(
            name,
            format!(
                "already up (state file {}); run `canopy-testbed down {name}` first",
                dir.join("state.json").display()
            ),
        ));
    }
    let local_sw: Vec<u32> = (0..desc.topo.switches.len() as u32)
        .filter(|&s| desc.machine_of(Node::Switch(s)) == machine)
        .collect();
    let local_h: Vec<u32> = (0..desc.topo.hosts.len() as u32)
        .filter(|&h| desc.machine_of(Node::Host(h)) == machine)
        .collect();
    if local_sw.is_empty() && local_h.is_empty() {
        return Err(fab_err(
            name,
            format!("no node is placed on machine {machine:?}"),
        ));
    }
    let wanted: Vec<String> = local_sw
        .iter()
        .map(|&s| desc.netns(Node::Switch(s)))
        .chain(local_h.iter().map(|&h| desc.netns(Node::Host(h))))
        .collect();
    let existing = fabric_namespaces(name);
    if let Some(n) = wanted.iter().find(|n| existing.contains(n)) {
        return Err(fab_err(name, format!("namespace {n} already exists (a fabric of this name is up or left over); run `canopy-testbed down {name}` first")));
    }
    // every switch config is generated and validated before anything is created
    let mut configs = vec![];
    for &s in &local_sw {
        let sname = &desc.topo.switches[s as usize].name;
        let socket = dir.join(format!("s{s}.sock"));
        let cfg_path = dir.join(format!("s{s}.toml"));
        let text = switch_config(desc, s, &socket);
        if configs.is_empty() && !desc.bmv2 {
            // one full check (tables computed against the ports) is enough: the others differ only in names
            canopy_switch::config::Config::parse_rules(&cfg_path, &text)
                .map_err(|e| fab_err(name, format!("generated config of {sname}: {e}")))?;
        }
        configs.push((s, socket, cfg_path, text));
    }
    // dpdk ports: the switch binary's build and the huge pages, before anything is created
    if !desc.bmv2 {
        check_dpdk(desc, &bin, &configs)?;
    }
    // canopyd: its binary and its generated configuration, checked (tables computed)
    // before anything is created
    let daemon = if desc.daemon {
        let dbin = find_daemon_bin(desc)?;
        let dbin = std::path::absolute(&dbin).map_err(|e| TestbedError::io("canopyd path", e))?;
        let text = daemon_config(desc, &dir);
        let cfg_path = dir.join("canopyd.toml");
        canopyd::config::Config::parse(&cfg_path.display().to_string(), &text, &dir)
            .map_err(|e| fab_err(name, format!("generated canopyd config: {e}")))?;
        Some((dbin, cfg_path, text))
    } else {
        None
    };
    let underlay = desc.machine(machine).and_then(|m| m.underlay_netns.clone());
    let local_addr = desc.machine(machine).map(|m| m.underlay.get_ref().clone());

    std::fs::create_dir_all(&dir)
        .map_err(|e| TestbedError::io(format!("create state directory {}", dir.display()), e))?;
    let hosts = FabricHosts {
        topology: desc.raw.topology.get_ref().clone(),
        kind: desc.kind.name().to_string(),
        hosts: local_h
            .iter()
            .map(|&h| {
                let (tx, rx) = desc.host_ifaces(h);
                HostEndpoint {
                    host: h,
                    name: desc.topo.host_name(h),
                    netns: desc.netns(Node::Host(h)),
                    ifname: tx,
                    rx_ifnames: rx,
                    mac: canopy_control::oracle::host_mac(&desc.topo, h),
                }
            })
            .collect(),
    };
    let state = State {
        name: name.clone(),
        machine: machine.to_string(),
        desc_file: desc.file.clone(),
        dir: dir.clone(),
        complete: false,
        created: vec![],
        switches: vec![],
        hosts,
        daemon: None,
        target: desc.raw.target.get_ref().clone(),
    };
    state.save()?;
    let mut b = Builder {
        desc,
        state,
        children: vec![],
        interrupt: opts.interrupt.clone(),
    };
    match build(
        &mut b,
        &bin,
        &local_sw,
        &local_h,
        configs,
        daemon,
        bmv2_tools,
        underlay.as_deref(),
        local_addr.as_deref(),
        progress,
    ) {
        Ok(mut sum) => {
            b.state.complete = true;
            b.state.save()?;
            sum.state = b.state.clone();
            sum.elapsed = t0.elapsed();
            Ok(sum)
        }
        Err(e) => {
            progress(&format!("up failed: {e}; rolling back"));
            let _ = teardown(&b.state, &root);
            // reap our children (teardown stopped them); one that is somehow still
            // running is our own unreaped child, so its pid is still ours to kill
            let deadline = Instant::now() + Duration::from_secs(2);
            for (_, c) in &mut b.children {
                while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                if matches!(c.try_wait(), Ok(None)) {
                    let _ = c.kill();
                    let _ = c.wait();
                }
            }
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    b: &mut Builder,
    bin: &Path,
    local_sw: &[u32],
    local_h: &[u32],
    configs: Vec<(u32, PathBuf, PathBuf, String)>,
    daemon: Option<(PathBuf, PathBuf, String)>,
    bmv2: Option<super::bmv2::Tools>,
    underlay: Option<&str>,
    local_addr: Option<&str>,
    progress: &dyn Fn(&str),
) -> Result<UpSummary> {
    let desc = b.desc;
    let name = desc.name.clone();
    let machine = b.state.machine.clone();
    let mtu = desc.raw.mtu.get_ref().to_string();
    let mut sum = UpSummary {
        state: b.state.clone(),
        namespaces: 0,
        veths: 0,
        vxlans: 0,
        nics: 0,
        processes: 0,
        offloads_off: true,
        elapsed: Duration::ZERO,
    };
    // 1. namespaces
    let nodes: Vec<Node> = local_sw
        .iter()
        .map(|&s| Node::Switch(s))
        .chain(local_h.iter().map(|&h| Node::Host(h)))
        .collect();
    progress(&format!("creating {} namespaces", nodes.len()));
    for &n in &nodes {
        let ns = desc.netns(n);
        // recorded before it exists: a crash right after `ip netns add` still leaves a record
        b.record(Created::Netns { name: ns.clone() })?;
        add_netns(&ns)?;
        sum.namespaces += 1;
    }
    // 2. links
    let is_local = |n: Node| desc.machine_of(n) == machine;
    let mut veth_ends: Vec<(String, String)> = vec![];
    let mut wait: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // NICs are set up but not waited for: their carrier comes when the far machine's part is up
    let mut nic_up: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut add_lines: Vec<String> = vec![];
    let remote_addr = |m: &str| {
        desc.machine(m)
            .map(|x| x.underlay.get_ref().clone())
            .unwrap_or_default()
    };
    for l in &desc.links {
        let (la, lb) = (is_local(l.a.0), is_local(l.b.0));
        if !la && !lb {
            continue;
        }
        let (nsa, ia) = (desc.netns(l.a.0), Desc::ifname(l.a.0, l.a.1));
        let (nsb, ib) = (desc.netns(l.b.0), Desc::ifname(l.b.0, l.b.1));
        if la && lb {
            add_lines.push(format!("link add {ia} netns {nsa} mtu {mtu} type veth peer name {ib} netns {nsb} mtu {mtu}"));
            veth_ends.push((nsa.clone(), ia.clone()));
            veth_ends.push((nsb.clone(), ib.clone()));
            wait.entry(nsa).or_default().push(ia);
            wait.entry(nsb).or_default().push(ib);
            sum.veths += 1;
            continue;
        }
        let end = if la { l.a } else { l.b };
        let (ns, ifn) = (desc.netns(end.0), Desc::ifname(end.0, end.1));
        match desc.end_kind(l, end) {
            LinkKind::Veth => {
                return Err(fab_err(
                    &name,
                    format!("internal: link {} has one local end but is a veth", l.id),
                ));
            }
            LinkKind::Vxlan { vni, remote } => {
                let local = local_addr.ok_or_else(|| {
                    fab_err(
                        &name,
                        format!("machine {machine:?} has no underlay address"),
                    )
                })?;
                let mut args: Vec<String> = vec![];
                if let Some(u) = underlay {
                    args.extend(["-n".into(), u.to_string()]);
                }
                let r = remote_addr(&remote);
                args.extend(
                    format!("link add {ifn} netns {ns} mtu {mtu} type vxlan id {vni} local {local} remote {r} dstport 4789 nolearning")
                        .split(' ')
                        .map(str::to_string),
                );
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                ip(&a)?;
                wait.entry(ns.clone()).or_default().push(ifn);
                sum.vxlans += 1;
            }
            LinkKind::Nic { interface } => {
                b.record(Created::Nic {
                    netns: ns.clone(),
                    ifname: ifn.clone(),
                    original: interface.clone(),
                    from_netns: underlay.map(str::to_string),
                })?;
                let mut a: Vec<&str> = vec![];
                if let Some(u) = underlay {
                    a.extend(["-n", u]);
                }
                a.extend(["link", "set", "dev", &interface, "netns", &ns]);
                ip(&a)?;
                ip(&[
                    "-n", &ns, "link", "set", "dev", &interface, "name", &ifn, "mtu", &mtu,
                ])?;
                nic_up.entry(ns.clone()).or_default().push(ifn);
                sum.nics += 1;
            }
        }
    }
    // unconnected switch ports: a veth whose peer stays in the switch's namespace
    for &s in local_sw {
        for (p, port) in desc.topo.switches[s as usize].ports.iter().enumerate() {
            if port.peer == canopy_control::topology::Peer::None {
                let ns = desc.netns(Node::Switch(s));
                let ifn = Desc::ifname(Node::Switch(s), p as u16);
                let peer = format!("s{s}u{p}");
                add_lines.push(format!("link add {ifn} netns {ns} mtu {mtu} type veth peer name {peer} netns {ns} mtu {mtu}"));
                wait.entry(ns.clone()).or_default().push(ifn.clone());
                wait.entry(ns.clone()).or_default().push(peer.clone());
                veth_ends.push((ns.clone(), ifn));
                veth_ends.push((ns, peer));
            }
        }
    }
    progress(&format!(
        "creating {} veth pairs, {} vxlan, {} nic",
        sum.veths, sum.vxlans, sum.nics
    ));
    for chunk in add_lines.chunks(64) {
        b.interrupted()?;
        ip_batch(None, chunk)?;
    }
    if desc.raw.offloads.get_ref() == "off" {
        progress(&format!(
            "turning offloads off on {} veth ends",
            veth_ends.len()
        ));
        let workers = 4.min(veth_ends.len().max(1));
        let chunks: Vec<Vec<(String, String)>> = (0..workers)
            .map(|w| veth_ends.iter().skip(w).step_by(workers).cloned().collect())
            .collect();
        let ok = std::thread::scope(|sc| {
            let hs: Vec<_> = chunks
                .iter()
                .map(|c| sc.spawn(move || c.iter().all(|(ns, d)| netns::offloads_off(ns, d))))
                .collect();
            hs.into_iter().all(|h| h.join().unwrap_or(false))
        });
        sum.offloads_off = ok;
    } else {
        sum.offloads_off = false;
    }
    for (ns, devs) in wait.iter().chain(nic_up.iter()) {
        let lines: Vec<String> = devs
            .iter()
            .map(|d| format!("link set dev {d} up"))
            .collect();
        ip_batch(Some(ns), &lines)?;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for (ns, devs) in &wait {
        loop {
            let down = down_links(ns, devs)?;
            if down.is_empty() {
                break;
            }
            if Instant::now() > deadline {
                return Err(fab_err(
                    &name,
                    format!("links never came up in {ns}: {}", down.join(", ")),
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // 3. switches
    let json = match &bmv2 {
        Some(t) => {
            progress(&format!("compiling {} with p4c", t.program.display()));
            Some(t.compile(desc, &b.state.dir)?)
        }
        None => None,
    };
    progress(&format!(
        "starting {} {} processes ({})",
        configs.len(),
        if bmv2.is_some() {
            "simple_switch"
        } else {
            "canopy-switch"
        },
        bmv2.as_ref()
            .map_or(bin, |t| t.simple_switch.as_path())
            .display()
    ));
    for (i, (s, socket, cfg, text)) in configs.into_iter().enumerate() {
        let ns = desc.netns(Node::Switch(s));
        let log = b.state.dir.join(format!("s{s}.log"));
        let (child, cfg) = match (&bmv2, &json) {
            (Some(t), Some(json)) => {
                let ifs: Vec<String> = (0..desc.topo.switches[s as usize].ports.len() as u16)
                    .map(|p| Desc::ifname(Node::Switch(s), p))
                    .collect();
                (t.spawn(&ns, &ifs, json, &log)?, json.clone())
            }
            _ => {
                std::fs::write(&cfg, text)
                    .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
                (spawn_switch(bin, &ns, &cfg, &log, false)?, cfg)
            }
        };
        let pid = child.id();
        let sname = desc.topo.switches[s as usize].name.clone();
        b.children.push((i, child));
        b.record(Created::Process {
            pid,
            switch: sname.clone(),
            config: cfg.clone(),
        })?;
        b.state.switches.push(SwitchState {
            name: sname,
            netns: ns,
            pid,
            socket,
            config: cfg,
            log,
        });
        b.state.save()?;
        sum.processes += 1;
    }
    // 3b. canopyd, in this (the initial) namespace: it reaches the switches by their
    // sockets, and /metrics is on this machine's loopback
    let mut has_daemon = false;
    if let Some((dbin, cfg, text)) = daemon {
        std::fs::write(&cfg, text)
            .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
        let log = b.state.dir.join("canopyd.log");
        progress(&format!("starting canopyd ({})", dbin.display()));
        let child = spawn_daemon(&dbin, &cfg, &log, false)?;
        let pid = child.id();
        b.record(Created::Process {
            pid,
            switch: "canopyd".into(),
            config: cfg.clone(),
        })?;
        let m = desc.raw.canopyd.metrics.get_ref();
        b.state.daemon = Some(DaemonState {
            pid,
            config: cfg,
            control: b.state.dir.join("canopyd.sock"),
            metrics: (m != "off").then(|| m.clone()),
            log,
        });
        b.state.save()?;
        // with the switches: a failed `up` reaps it, or kills it if teardown could not
        b.children.push((DAEMON_CHILD, child));
        has_daemon = true;
    }
    // 4. health (bmv2: every switch accepts its entries)
    if let Some(t) = &bmv2 {
        progress("programming every simple_switch with canopyctl p4-entries");
        let deadline = Instant::now() + Duration::from_secs(desc.raw.health_timeout_s);
        for sw in b.state.switches.clone() {
            b.interrupted()?;
            let entries = t.entries(desc, &sw.name)?;
            t.program(desc, &sw.netns, &sw.name, &entries, deadline)?;
        }
        return Ok(sum);
    }
    progress(if desc.daemon {
        "waiting for every switch to report healthy and canopyd to push every table"
    } else {
        "waiting for every switch to report healthy"
    });
    let deadline = Instant::now() + Duration::from_secs(desc.raw.health_timeout_s);
    let mut pending: Vec<usize> = (0..b.state.switches.len()).collect();
    while !pending.is_empty() {
        b.interrupted()?;
        let mut still = vec![];
        for i in pending {
            let sw = &b.state.switches[i];
            if let Some((_, c)) = b.children.iter_mut().find(|(j, _)| *j == i) {
                if let Ok(Some(st)) = c.try_wait() {
                    let tail = std::fs::read_to_string(&sw.log).unwrap_or_default();
                    let tail: Vec<&str> = tail.lines().rev().take(5).collect();
                    return Err(fab_err(
                        &name,
                        format!(
                            "canopy-switch of {} exited during start ({st}); log {}: {}",
                            sw.name,
                            sw.log.display(),
                            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                        ),
                    ));
                }
            }
            let healthy = match crate::mgmt::health(&sw.socket, Duration::from_secs(2)) {
                Ok(h) => {
                    let sw_idx = desc
                        .topo
                        .switches
                        .iter()
                        .position(|x| x.name == sw.name)
                        .unwrap_or(usize::MAX) as u32;
                    (h.tables_loaded || desc.daemon)
                        && h.ports.iter().all(|p| {
                            p.admin && (p.link || desc.nics.contains_key(&(sw_idx, p.port)))
                        })
                }
                Err(_) => false,
            };
            if !healthy {
                still.push(i);
            }
        }
        pending = still;
        if pending.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            let names: Vec<String> = pending
                .iter()
                .take(5)
                .map(|&i| b.state.switches[i].name.clone())
                .collect();
            return Err(fab_err(
                &name,
                format!(
                    "{} switch(es) not healthy after {} s (e.g. {}); logs in {}",
                    pending.len(),
                    desc.raw.health_timeout_s,
                    names.join(", "),
                    b.state.dir.display()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let (Some(d), true) = (b.state.daemon.clone(), has_daemon) {
        let interrupted = b.interrupt.clone();
        let child = b
            .children
            .iter_mut()
            .find(|(j, _)| *j == DAEMON_CHILD)
            .map(|(_, c)| c);
        if let Some(child) = child {
            let ready = wait_daemon_ready(&d, child, deadline, || check_interrupt(&interrupted));
            ready.map_err(|w| fab_err(&name, format!("canopyd: {w}; log {}", d.log.display())))?;
        }
    }
    Ok(sum)
}

/// Open a process's log: created anew, or appended to (a restart in a drill).
fn open_log(log: &Path, append: bool) -> Result<(std::fs::File, std::fs::File)> {
    let lf = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(log)
        .map_err(|e| TestbedError::io(format!("open {}", log.display()), e))?;
    let lf2 = lf.try_clone().map_err(|e| TestbedError::io("dup log", e))?;
    Ok((lf, lf2))
}

/// Start `cmd` in its own process group (so a Ctrl-C on the terminal does not reach
/// it), stdin closed, output to `log`.
pub(crate) fn spawn_logged(
    mut cmd: Command,
    log: &Path,
    append: bool,
    what: String,
) -> Result<Child> {
    use std::os::unix::process::CommandExt;
    let (out, err) = open_log(log, append)?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| TestbedError::io(what, e))
}

/// Start `ip netns exec NS BIN run --config CFG`, output to `log`.
pub(crate) fn spawn_switch(
    bin: &Path,
    netns: &str,
    config: &Path,
    log: &Path,
    append: bool,
) -> Result<Child> {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", netns])
        .arg(bin)
        .args(["run", "--config"])
        .arg(config);
    spawn_logged(c, log, append, format!("start canopy-switch in {netns}"))
}

/// Start `BIN --config CFG` (canopyd), output to `log`.
pub(crate) fn spawn_daemon(bin: &Path, config: &Path, log: &Path, append: bool) -> Result<Child> {
    let mut c = Command::new(bin);
    c.arg("--config").arg(config);
    spawn_logged(c, log, append, "start canopyd".into())
}

/// canopyd's `status` answer (control socket `control`).
fn daemon_status_json(control: &Path) -> std::result::Result<serde_json::Value, String> {
    canopy_proto::client::Endpoint::Unix(control.to_path_buf())
        .request(
            &canopy_proto::control::Request::Status {},
            Duration::from_secs(2),
        )
        .map_err(|e| e.to_string())
}

/// Wait until canopyd reports every switch up with the tables it wants.
fn wait_daemon_ready(
    d: &DaemonState,
    child: &mut std::process::Child,
    deadline: Instant,
    interrupted: impl Fn() -> Result<()>,
) -> std::result::Result<(), String> {
    loop {
        interrupted().map_err(|e| e.to_string())?;
        if let Ok(Some(st)) = child.try_wait() {
            let tail = std::fs::read_to_string(&d.log).unwrap_or_default();
            let tail: Vec<&str> = tail.lines().rev().take(3).collect();
            return Err(format!(
                "exited during start ({st}): {}",
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ));
        }
        let last = match daemon_status_json(&d.control) {
            Ok(v) => {
                if v.pointer("/snapshot/ready")
                    .and_then(serde_json::Value::as_bool)
                    == Some(true)
                {
                    return Ok(());
                }
                let stale: Vec<String> = v
                    .pointer("/snapshot/switches")
                    .and_then(serde_json::Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter(|s| s["tables_current"].as_bool() != Some(true))
                            .filter_map(|s| s["name"].as_str().map(String::from))
                            .take(5)
                            .collect()
                    })
                    .unwrap_or_default();
                format!("switches without their tables yet: {}", stale.join(", "))
            }
            Err(e) => e,
        };
        if Instant::now() > deadline {
            return Err(format!("not ready in time ({last})"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What `down` removed.
#[derive(Debug, Clone, Default)]
pub struct DownSummary {
    /// Switch processes stopped.
    pub processes: usize,
    /// Namespaces deleted.
    pub namespaces: usize,
    /// NICs moved back.
    pub nics: usize,
    /// State directories removed.
    pub state_dirs: usize,
}

impl std::fmt::Display for DownSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "removed {} process(es) (switches and canopyd), {} namespace(s) (with their veths and VXLAN devices), {} NIC(s) moved back, {} state dir(s)", self.processes, self.namespaces, self.nics, self.state_dirs)
    }
}

/// Remove what one state records (processes, NICs, namespaces), newest first.
fn teardown(st: &State, root: &Path) -> DownSummary {
    let mut sum = DownSummary::default();
    let fdir = state::fabric_dir(root, &st.name);
    let pids: Vec<u32> = st
        .created
        .iter()
        .filter_map(|c| match c {
            Created::Process { pid, .. } => Some(*pid),
            _ => None,
        })
        .collect();
    sum.processes += procs::stop(&pids, &fdir, Duration::from_secs(5)).len();
    // a dpdk switch removes its (empty, --in-memory) EAL runtime directory
    // /var/run/dpdk/canopy<pid> when it exits; one stopped by SIGKILL cannot
    for pid in &pids {
        let _ = std::fs::remove_dir(format!("/var/run/dpdk/canopy{pid}"));
    }
    for c in st.created.iter().rev() {
        match c {
            Created::Nic {
                netns,
                ifname,
                original,
                from_netns,
            } => {
                let mut a: Vec<&str> = vec![
                    "-n", netns, "link", "set", "dev", ifname, "down", "name", original,
                ];
                let target;
                if let Some(f) = from_netns {
                    a.extend(["netns", f]);
                } else {
                    target = "1".to_string();
                    a.extend(["netns", &target]);
                }
                if ip(&a).is_ok() {
                    sum.nics += 1;
                }
            }
            Created::Netns { name } => {
                if Path::new("/run/netns").join(name).exists()
                    && ip(&["netns", "del", name]).is_ok()
                {
                    sum.namespaces += 1;
                }
            }
            Created::Process { .. } => {}
        }
    }
    if std::fs::remove_dir_all(&st.dir).is_ok() {
        sum.state_dirs += 1;
    }
    // the fabric directory too, once no other machine part is in it
    let _ = std::fs::remove_dir(&fdir);
    sum
}

/// Remove fabric `name` entirely: what its state files record, then anything its
/// name prefix still finds (namespaces `<name>-s<i>`/`<name>-h<i>` and the switch
/// processes in them, switch processes whose config is in its state directory), then
/// the state directory. Touches nothing else.
pub fn down(root: &Path, name: &str) -> Result<DownSummary> {
    super::desc::valid_name(name).map_err(|w| fab_err(name, w))?;
    let root = &std::path::absolute(root).map_err(|e| TestbedError::io("state root", e))?;
    if !crate::sys::is_root() {
        return Err(fab_err(name, "`down` must run as root; try sudo"));
    }
    let fdir = state::fabric_dir(root, name);
    let (states, _bad) = State::load_all(root, name);
    let mut sum = DownSummary::default();
    for st in &states {
        let s = teardown(st, root);
        sum.processes += s.processes;
        sum.namespaces += s.namespaces;
        sum.nics += s.nics;
        sum.state_dirs += s.state_dirs;
    }
    // leftovers by name prefix
    for ns in fabric_namespaces(name) {
        let pids: Vec<u32> = ip(&["netns", "pids", &ns])
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        // a switch inside the fabric's own namespace, started under any state root
        sum.processes += procs::stop_if(&pids, Duration::from_secs(5), |a| {
            procs::is_named_fabric_switch(a, name)
        })
        .len();
        if ip(&["netns", "del", &ns]).is_ok() {
            sum.namespaces += 1;
        }
    }
    sum.processes += procs::stop(&procs::scan(&fdir), &fdir, Duration::from_secs(5)).len();
    // canopyd runs in the initial namespace: found by its config path under any root
    sum.processes += procs::stop_if(&procs::scan_named(name), Duration::from_secs(5), |a| {
        procs::is_named_fabric_switch(a, name)
    })
    .len();
    if fdir.exists() {
        std::fs::remove_dir_all(&fdir)
            .map_err(|e| TestbedError::io(format!("remove {}", fdir.display()), e))?;
        sum.state_dirs += 1;
    }
    Ok(sum)
}

/// The fabric names under `root`.
pub fn fabrics(root: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    v.sort();
    v
}

/// `NAME`, or the only fabric under `root`.
pub fn resolve_name(root: &Path, name: Option<&str>) -> Result<String> {
    if let Some(n) = name {
        return Ok(n.to_string());
    }
    let all = fabrics(root);
    match all.len() {
        1 => Ok(all[0].clone()),
        0 => Err(fab_err(
            "?",
            format!("no fabric under {}; give its NAME", root.display()),
        )),
        _ => Err(fab_err(
            "?",
            format!(
                "several fabrics under {} ({}); give a NAME",
                root.display(),
                all.join(", ")
            ),
        )),
    }
}

/// One switch's status line.
#[derive(Debug, Clone)]
pub struct SwitchStatus {
    /// Switch.
    pub switch: SwitchState,
    /// Machine part.
    pub machine: String,
    /// Health, or why it could not be read.
    pub health: std::result::Result<canopy_proto::mgmt::Health, String>,
    /// A bmv2 `simple_switch` (no Canopy management endpoint: `health` is not asked).
    pub bmv2: bool,
    /// Its process is alive.
    pub alive: bool,
}

/// Health of every switch of fabric `name` on this machine.
/// Poll canopyd (control socket `control`) until switch `switch` answers with pid
/// `pid` and runs the tables canopyd wants; the time since `t0`, None after `limit`.
pub fn wait_switch_current(
    control: &Path,
    switch: &str,
    pid: u32,
    t0: Instant,
    limit: Duration,
) -> Option<Duration> {
    while t0.elapsed() < limit {
        if let Ok(v) = daemon_status_json(control) {
            let done = v
                .pointer("/snapshot/switches")
                .and_then(serde_json::Value::as_array)
                .and_then(|a| a.iter().find(|s| s["name"] == switch))
                .is_some_and(|s| {
                    s["tables_current"].as_bool() == Some(true)
                        && s.pointer("/health/pid").and_then(serde_json::Value::as_u64)
                            == Some(u64::from(pid))
                });
            if done {
                return Some(t0.elapsed());
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// The fabric's `canopyd` (when `up` started one) and what it reports.
pub fn daemon_status(
    root: &Path,
    name: &str,
) -> Option<(
    DaemonState,
    std::result::Result<canopy_proto::snapshot::FabricSnapshot, String>,
)> {
    let (states, _) = State::load_all(root, name);
    let d = states.into_iter().find_map(|s| s.daemon)?;
    let r = daemon_status_json(&d.control).and_then(|v| {
        serde_json::from_value(v["snapshot"].clone()).map_err(|e| format!("malformed status: {e}"))
    });
    Some((d, r))
}

pub fn status(root: &Path, name: &str) -> Result<Vec<SwitchStatus>> {
    let (states, bad) = State::load_all(root, name);
    if states.is_empty() {
        return Err(fab_err(
            name,
            format!(
                "no state under {}{}",
                state::fabric_dir(root, name).display(),
                if bad.is_empty() {
                    String::new()
                } else {
                    " (unreadable state files; `down` still cleans up by name prefix)".into()
                }
            ),
        ));
    }
    Ok(states
        .iter()
        .flat_map(|st| {
            st.switches.iter().map(|sw| {
                let bmv2 = st.target == "bmv2";
                SwitchStatus {
                    switch: sw.clone(),
                    machine: st.machine.clone(),
                    health: if bmv2 {
                        Err("bmv2 simple_switch: no Canopy management endpoint".into())
                    } else {
                        crate::mgmt::health(&sw.socket, Duration::from_secs(2))
                            .map_err(|e| e.to_string())
                    },
                    bmv2,
                    alive: procs::alive(sw.pid),
                }
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fabric_namespaces_match_exactly() {
        assert!(is_fabric_ns("ft", "ft-s0"));
        assert!(is_fabric_ns("ft", "ft-h15"));
        for other in [
            "ft-x", "ftx-s0", "ft-s", "ft-s1a", "ft-u0", "ft", "xft-s0", "ft-s-1",
        ] {
            assert!(!is_fabric_ns("ft", other), "{other}");
        }
    }

    #[test]
    fn mixed_backends_generate_the_switch_ports_asked_for() {
        use canopy_dataplane::port::afpacket::TpacketVersion;
        use canopy_dataplane::port::afxdp::XdpMode;
        use canopy_switch::config::{Config, PortSpec};
        let d = Desc::parse(
            "t.toml",
            "topology = \"fat-tree:k=2\"\n[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n\
             [[ports.override]]\nswitch = \"edge-*\"\nbackend = \"afpacket\"\ntpacket = \"v3\"\n\
             [[ports.override]]\nswitch = \"core-c0\"\nport = 1\nmode = \"copy\"\nrx_ring = 1024\n",
        )
        .unwrap();
        let parsed = |name: &str| {
            let i = d.topo.switches.iter().position(|s| s.name == name).unwrap() as u32;
            let text = switch_config(&d, i, Path::new("/tmp/x.sock"));
            (
                i,
                Config::parse(Path::new("s.toml"), &text)
                    .unwrap_or_else(|e| panic!("{e}\n{text}"))
                    .ports,
            )
        };
        let (e, ports) = parsed("edge-p0-e0");
        assert!(!ports.is_empty());
        for (p, spec) in ports.iter().enumerate() {
            match spec {
                PortSpec::AfPacket { interface, cfg } => {
                    assert_eq!(interface, &format!("s{e}p{p}"));
                    assert_eq!(cfg.version, TpacketVersion::V3);
                }
                s => panic!("{s:?}"),
            }
        }
        let (c, ports) = parsed("core-c0");
        assert!(ports.len() >= 2);
        for (p, spec) in ports.iter().enumerate() {
            match spec {
                PortSpec::AfXdp {
                    interface,
                    cfg,
                    queues,
                } => {
                    assert_eq!(interface, &format!("s{c}p{p}"));
                    assert_eq!(*queues, 1);
                    let (mode, rx) = if p == 1 {
                        (XdpMode::Copy, 1024)
                    } else {
                        (XdpMode::Skb, 2048)
                    };
                    assert_eq!((cfg.mode, cfg.rx_ring), (mode, rx), "port {p}");
                }
                s => panic!("{s:?}"),
            }
        }
    }

    #[test]
    fn dpdk_ports_generate_a_switch_config_with_their_vdevs() {
        use canopy_switch::config::{Config, PortSpec};
        let d = Desc::parse(
            "t.toml",
            "topology = \"fat-tree:k=2\"\n[ports]\nbackend = \"afpacket\"\n\
             [[ports.override]]\nswitch = \"agg-*\"\nbackend = \"dpdk\"\nrx_desc = 512\n\
             [[ports.override]]\nswitch = \"core-c0\"\nport = 1\nbackend = \"dpdk\"\nqueues = 2\n",
        )
        .unwrap();
        let i = |n: &str| d.topo.switches.iter().position(|s| s.name == n).unwrap() as u32;
        let (a, c, e) = (i("agg-p0-a0"), i("core-c0"), i("edge-p0-e0"));
        let text = switch_config(&d, a, Path::new("/tmp/x.sock"));
        let cfg = Config::parse_rules(Path::new("s.toml"), &text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(cfg.ports.len(), 2);
        for (p, spec) in cfg.ports.iter().enumerate() {
            assert_eq!(
                spec,
                &PortSpec::Dpdk {
                    device: format!("net_af_packet{p}"),
                    queues: 1,
                    rx_desc: 512,
                    tx_desc: 1024
                }
            );
        }
        assert_eq!(
            cfg.dpdk.unwrap().eal_args,
            vec![
                "--no-pci".to_string(),
                format!("--vdev=net_af_packet0,iface=s{a}p0,framecnt=8192"),
                format!("--vdev=net_af_packet1,iface=s{a}p1,framecnt=8192"),
            ]
        );
        // one dpdk port with two queues next to an afpacket port
        let text = switch_config(&d, c, Path::new("/tmp/x.sock"));
        let cfg = Config::parse_rules(Path::new("s.toml"), &text).unwrap();
        assert!(
            matches!(&cfg.ports[0], PortSpec::AfPacket { interface, .. } if *interface == format!("s{c}p0"))
        );
        assert!(
            matches!(&cfg.ports[1], PortSpec::Dpdk { device, queues: 2, .. } if device == "net_af_packet1")
        );
        assert_eq!(
            cfg.dpdk.unwrap().eal_args,
            vec![
                "--no-pci".to_string(),
                format!("--vdev=net_af_packet1,iface=s{c}p1,framecnt=8192,qpairs=2"),
            ]
        );
        // no dpdk port, no [dpdk] (the switch refuses one without dpdk ports)
        let text = switch_config(&d, e, Path::new("/tmp/x.sock"));
        assert!(!text.contains("[dpdk]"), "{text}");
        let cfg = Config::parse(Path::new("s.toml"), &text).unwrap();
        assert!(cfg.dpdk.is_none());
    }

    #[test]
    fn the_dpdk_example_and_its_huge_page_estimate() {
        use canopy_switch::config::Config;
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/fabric-dpdk.toml");
        let d = Desc::load(&p).unwrap();
        let sw = d.dpdk_switches();
        assert_eq!(sw.len(), 12, "aggregation and core switches");
        let c0 = d
            .topo
            .switches
            .iter()
            .position(|s| s.name == "core-c0")
            .unwrap();
        assert_eq!(c0, 16, "docs/testbed.md names core-c0 switch 16");
        let need: Vec<(String, u64)> = sw
            .iter()
            .map(|&s| {
                let text = switch_config(&d, s, Path::new("/tmp/x.sock"));
                let cfg = Config::parse_rules(Path::new("s.toml"), &text).unwrap();
                (
                    d.topo.switches[s as usize].name.clone(),
                    super::super::dpdk::switch_hugepage_bytes(&cfg),
                )
            })
            .collect();
        // the numbers docs/testbed.md quotes
        let meminfo =
            "HugePages_Total:     512\nHugePages_Free:      100\nHugepagesize:       2048 kB\n";
        let e = super::super::dpdk::check_hugepages(&need, meminfo).unwrap_err();
        assert!(
            e.starts_with("12 switch(es) with dpdk ports need about 184 huge pages of 2048 kB (agg-p0-a0 16, "),
            "{e}"
        );
        assert!(
            e.contains("echo 596 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"),
            "{e}"
        );
        assert!(
            super::super::dpdk::check_hugepages(&need, &meminfo.replace(" 100", " 184")).is_ok()
        );
    }

    #[test]
    fn examples_are_valid_and_generate_valid_switch_configs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let f = p.file_name().unwrap().to_string_lossy().into_owned();
            if !(f.starts_with("fabric-") && f.ends_with(".toml")) {
                continue;
            }
            let d = Desc::load(&p).unwrap_or_else(|e| panic!("{e}"));
            let sock = Path::new("/tmp/x.sock");
            let text = switch_config(&d, 0, sock);
            canopy_switch::config::Config::parse_rules(Path::new("s0.toml"), &text)
                .unwrap_or_else(|e| panic!("{f}: {e}\n{text}"));
            n += 1;
        }
        assert_eq!(n, 6);
    }
}
