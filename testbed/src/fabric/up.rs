//! `canopy-testbed up`: this machine's part of a fabric, in steps that each record what
//! they create in the state file before they create it (so `down` finds it after a
//! crash): namespaces, links, switch processes, `canopyd`, then health. Everything a
//! step needs is generated and checked first (`Plan`); a failure rolls back what was
//! created. Files: this one (the plan and the steps in order), `up/links.rs` (the
//! links), `up/host_step.rs` (the shared host).

use super::bmv2::Tools;
use super::desc::{Desc, Node, LOCAL};
use super::down::{fabric_namespaces, teardown};
use super::ops::DaemonNotReady;
use super::state::{self, Created, DaemonState, State, SwitchState};
use crate::error::{Result, TestbedError};
use crate::launch;
use crate::os::netns;
use crate::os::process;
use crate::traffic::hosts::{FabricHosts, HostEndpoint};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
    pub interrupt: Option<Arc<AtomicBool>>,
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
            match s.bmv2_under_canopyd() {
                true => writeln!(
                    f,
                    "processes  {} bmv2 simple_switch_grpc, programmed and followed by canopyd over P4Runtime",
                    self.processes
                )?,
                false => writeln!(
                    f,
                    "processes  {} bmv2 simple_switch, each programmed with canopyctl p4-entries",
                    self.processes
                )?,
            }
            if let Some(b) = &s.target_build {
                writeln!(f, "bmv2       {b}")?;
            }
        } else if let Some(h) = &s.host {
            writeln!(
                f,
                "processes  1 canopy-switch host (pid {}) running {} switches on {} thread(s){}, all healthy (tables loaded, every port link up{})",
                h.pid,
                s.switches.len(),
                h.threads,
                if h.cores.is_empty() {
                    String::new()
                } else {
                    format!(" pinned to CPUs {:?}", h.cores)
                },
                if self.nics > 0 {
                    "; NIC links: when the far machine's part is up"
                } else {
                    ""
                }
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
        if let Some(c) = &s.generator_ceiling {
            let rx = c.receiver.as_ref().map_or(String::new(), |x| {
                format!(", {} received", crate::report::fmt::rate(x.received_pps))
            });
            writeln!(
                f,
                "generator  {} sent{rx} (its ceiling: one veth pair, {} B frames, {} thread)",
                crate::report::fmt::rate(c.sent_pps),
                c.frame_len + 4,
                c.tx_threads
            )?;
        }
        writeln!(f, "state      {}", s.path().display())?;
        write!(f, "time       {:.1} s", self.elapsed.as_secs_f64())
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
    launch::find(
        launch::SWITCH,
        given,
        "-p canopy-switch` or pass --switch-bin",
    )
    .map_err(|e| TestbedError::fabric(&desc.name, e.to_string()))
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
    launch::find(launch::DAEMON, given, "-p canopyd` or set [canopyd] bin")
        .map_err(|e| TestbedError::fabric(&desc.name, e.to_string()))
}

/// One switch's generated configuration: switch index, management socket, config path,
/// text.
type SwitchConfig = (u32, PathBuf, PathBuf, String);

/// Everything `up` generates and checks before it creates anything.
struct Plan {
    /// `canopy-switch` (empty for the bmv2 target).
    bin: PathBuf,
    /// bmv2's tools, for the bmv2 target.
    bmv2: Option<Tools>,
    /// The switches and hosts placed on this machine.
    local_sw: Vec<u32>,
    local_h: Vec<u32>,
    /// Every local switch's configuration.
    configs: Vec<SwitchConfig>,
    /// `canopyd`: binary, config path, text.
    daemon: Option<(PathBuf, PathBuf, String)>,
    /// The namespace that stands in for this machine's underlay, and its address.
    underlay: Option<String>,
    local_addr: Option<String>,
    /// A VM fabric's QEMU, guest image and accelerator.
    vm: Option<vm_step::VmPlan>,
}

/// `up`'s checks for the fabric's `dpdk` ports on this machine ([`super::dpdk`]): the
/// switch binary takes them (built with the feature), and the free huge pages cover the
/// estimate of every switch with dpdk ports; in a VM fabric, each guest's memory holds
/// its switch's huge pages (which its `/init` reserves) besides what the guest itself
/// needs. Returns the huge-page bytes of every switch with dpdk ports.
fn check_dpdk(desc: &Desc, bin: &Path, configs: &[SwitchConfig]) -> Result<Vec<(u32, u64)>> {
    let mut need = vec![];
    let mut bytes = vec![];
    let mut first = None;
    for (s, socket, path, text) in configs {
        if desc.dpdk_table(*s).is_none() {
            continue;
        }
        let sname = &desc.topo.switches[*s as usize].name;
        let cfg = canopy_switch::config::Config::parse_rules(path, text).map_err(|e| {
            TestbedError::fabric(&desc.name, format!("generated config of {sname}: {e}"))
        })?;
        let b = super::dpdk::switch_hugepage_bytes(&cfg);
        need.push((sname.clone(), b));
        bytes.push((*s, b));
        // a guest's configuration names files of the guest (its token): the binary is
        // asked about the same ports under a management socket
        first.get_or_insert_with(|| match desc.in_vms() {
            true => desc.switch_config(*s, socket),
            false => text.clone(),
        });
    }
    let Some(text) = first else {
        return Ok(bytes);
    };
    let refused = |e: super::dpdk::DpdkError| TestbedError::fabric(&desc.name, e.to_string());
    super::dpdk::check_switch_binary(bin, &text, &desc.name).map_err(refused)?;
    if desc.in_vms() {
        vm_step::check_guest_memory(desc, &bytes)?;
        return Ok(bytes);
    }
    let meminfo = crate::os::meminfo::read();
    super::dpdk::check_hugepages(&need, &meminfo).map_err(refused)?;
    Ok(bytes)
}

/// What `up` needs, generated and checked before anything is created: the programs,
/// the local nodes (whose namespaces must not exist yet), every switch's configuration
/// (one computed against its ports), the dpdk ports' needs, and canopyd's
/// configuration.
fn plan(desc: &Desc, opts: &UpOptions, dir: &Path, progress: &dyn Fn(&str)) -> Result<Plan> {
    let name = &desc.name;
    let err = |d: String| TestbedError::fabric(name, d);
    let machine = opts.machine.as_str();
    // the forwarders: canopy-switch, or bmv2's tools (found before anything is created)
    let (bin, bmv2) = if desc.bmv2 {
        (PathBuf::new(), Some(Tools::find(desc)?))
    } else {
        let bin = find_switch_bin(desc, opts.switch_bin.as_deref())?;
        let bin =
            std::path::absolute(&bin).map_err(|e| TestbedError::io("canopy-switch path", e))?;
        (bin, None)
    };
    if dir.join("state.json").exists() {
        return Err(err(format!(
            "already up (state file {}); run `canopy-testbed down {name}` first",
            dir.join("state.json").display()
        )));
    }
    let local_sw: Vec<u32> = (0..desc.topo.switches.len() as u32)
        .filter(|&s| desc.machine_of(Node::Switch(s)) == machine)
        .collect();
    let local_h: Vec<u32> = (0..desc.topo.hosts.len() as u32)
        .filter(|&h| desc.machine_of(Node::Host(h)) == machine)
        .collect();
    if local_sw.is_empty() && local_h.is_empty() {
        return Err(err(format!("no node is placed on machine {machine:?}")));
    }
    let wanted: Vec<String> = local_sw
        .iter()
        .map(|&s| desc.netns(Node::Switch(s)))
        .chain(local_h.iter().map(|&h| desc.netns(Node::Host(h))))
        .collect();
    let existing = fabric_namespaces(name);
    if let Some(n) = wanted.iter().find(|n| existing.contains(n)) {
        return Err(err(format!("namespace {n} already exists (a fabric of this name is up or left over); run `canopy-testbed down {name}` first")));
    }
    // every switch config is generated and validated before anything is created
    let mut configs = vec![];
    for &s in &local_sw {
        let sname = &desc.topo.switches[s as usize].name;
        let socket = dir.join(format!("s{s}.sock"));
        let cfg_path = dir.join(format!("s{s}.toml"));
        let text = if desc.in_vms() {
            desc.guest_switch_config(s)
        } else {
            desc.switch_config(s, &socket)
        };
        if configs.is_empty() && !desc.bmv2 {
            // one full check (tables computed against the ports) is enough: the others differ only in names
            canopy_switch::config::Config::parse_rules(&cfg_path, &text)
                .map_err(|e| err(format!("generated config of {sname}: {e}")))?;
        }
        configs.push((s, socket, cfg_path, text));
    }
    // dpdk ports: the switch binary's build and the huge pages, before anything is created
    let hugepage_bytes = match desc.bmv2 {
        false => check_dpdk(desc, &bin, &configs)?,
        true => vec![],
    };
    // canopyd: its binary and its generated configuration, checked (tables computed)
    // before anything is created
    let daemon = if desc.daemon {
        let dbin = find_daemon_bin(desc)?;
        let dbin = std::path::absolute(&dbin).map_err(|e| TestbedError::io("canopyd path", e))?;
        let p4 = bmv2.as_ref().map(|t| t.outputs(dir));
        let text = desc.daemon_config(dir, p4.as_ref());
        let cfg_path = dir.join("canopyd.toml");
        // a VM fabric's token files are written when the guests start, a bmv2 fabric's
        // program when it is compiled: canopyd checks them then
        if !desc.in_vms() && p4.is_none() {
            canopyd::config::Config::parse(&cfg_path.display().to_string(), &text, dir)
                .map_err(|e| err(format!("generated canopyd config: {e}")))?;
        }
        Some((dbin, cfg_path, text))
    } else {
        None
    };
    let vm = match desc.in_vms() {
        true => Some(vm_step::plan(desc, (&bin, dir), &hugepage_bytes, progress)?),
        false => None,
    };
    Ok(Plan {
        bin,
        bmv2,
        local_sw,
        local_h,
        configs,
        daemon,
        underlay: desc.machine(machine).and_then(|m| m.underlay_netns.clone()),
        local_addr: desc.machine(machine).map(|m| m.underlay.get_ref().clone()),
        vm,
    })
}

/// The state file of a fabric part before anything is created: its hosts as the
/// generator will drive them, a copy of the description and the binaries `plan` found
/// (so that every later command needs neither the file nor a search), nothing created
/// yet.
fn initial_state(desc: &Desc, machine: &str, dir: &Path, plan: &Plan) -> State {
    let local_h = &plan.local_h;
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
        guest_clocks: desc.in_vms(),
    };
    State {
        name: desc.name.clone(),
        machine: machine.to_string(),
        // absolute, for the messages of `run`, `drill` and `soak` from any directory
        desc_file: match Path::new(&desc.file) {
            p if p.is_file() => {
                std::path::absolute(p).map_or(desc.file.clone(), |a| a.display().to_string())
            }
            _ => desc.file.clone(),
        },
        desc_text: Some(desc.text.clone()),
        switch_bin: plan.bmv2.is_none().then(|| plan.bin.clone()),
        bmv2_tools: plan.bmv2.clone(),
        dir: dir.to_path_buf(),
        complete: false,
        created: vec![],
        switches: vec![],
        hosts,
        daemon: None,
        target: desc.raw.target.get_ref().clone(),
        host: None,
        target_build: None,
        up_policy: desc.raw.up_policy,
        flowlet_gap_set: desc.flowlet_gap_set(),
        generator_ceiling: None,
        vm: None,
    }
}

/// Bring fabric `desc` up (this machine's part). On failure everything created so far
/// is removed again before the error is returned.
pub fn up(desc: &Desc, opts: &UpOptions, progress: &dyn Fn(&str)) -> Result<UpSummary> {
    let t0 = Instant::now();
    let name = &desc.name;
    let machine = opts.machine.as_str();
    desc.check_machine(machine)?;
    if !crate::os::sys::is_root() {
        return Err(TestbedError::fabric(
            name,
            "`up` must run as root (it creates network namespaces); try sudo",
        ));
    }
    let root =
        std::path::absolute(&opts.state_root).map_err(|e| TestbedError::io("state root", e))?;
    let dir = state::state_dir(&root, name, machine);
    let plan = plan(desc, opts, &dir, progress)?;
    // private (0700): the state, configurations, logs and sockets of the fabric
    crate::os::private::create_dir_all(&dir)
        .and_then(|()| crate::os::private::restrict_dir(&state::fabric_dir(&root, name)))
        .and_then(|()| crate::os::private::restrict_dir(&dir))
        .map_err(|e| TestbedError::io(format!("create state directory {}", dir.display()), e))?;
    let state = initial_state(desc, machine, &dir, &plan);
    state.save()?;
    let mut b = Builder {
        desc,
        state: state.clone(),
        children: vec![],
        interrupt: opts.interrupt.clone(),
        sum: UpSummary {
            state,
            namespaces: 0,
            veths: 0,
            vxlans: 0,
            nics: 0,
            processes: 0,
            offloads_off: true,
            elapsed: Duration::ZERO,
        },
    };
    match b.build(plan, progress) {
        Ok(()) => {
            progress("measuring the generator's own ceiling (one veth pair of its own, 1 s)");
            b.state.generator_ceiling = crate::traffic::ceiling::at_up(opts.interrupt.as_deref());
            b.state.complete = true;
            b.state.save()?;
            b.sum.state = b.state.clone();
            b.sum.elapsed = t0.elapsed();
            Ok(b.sum)
        }
        Err(e) => {
            progress(&format!("up failed: {e}; rolling back"));
            let _ = teardown(&b.state, &root);
            b.reap_children();
            Err(e)
        }
    }
}

mod host_step;
mod links;
mod vm_step;

/// The key of canopyd's child among [`Builder::children`] (switches use their index).
const DAEMON_CHILD: usize = usize::MAX;
/// The key of the shared host's child among [`Builder::children`].
const HOST_CHILD: usize = usize::MAX - 1;

/// `Err(Interrupted)` once `flag` is set.
fn check_interrupt(flag: &Option<Arc<AtomicBool>>) -> Result<()> {
    match flag {
        Some(f) if f.load(Ordering::Relaxed) => Err(TestbedError::Interrupted),
        _ => Ok(()),
    }
}

/// A fabric part being built: the state as recorded so far, the processes started and
/// what was done.
struct Builder<'a> {
    desc: &'a Desc,
    state: State,
    children: Vec<(usize, Child)>,
    interrupt: Option<Arc<AtomicBool>>,
    sum: UpSummary,
}

impl Builder<'_> {
    fn record(&mut self, c: Created) -> Result<()> {
        self.interrupted()?;
        self.state.record(c)
    }

    fn interrupted(&self) -> Result<()> {
        check_interrupt(&self.interrupt)
    }

    fn err(&self, detail: String) -> TestbedError {
        TestbedError::fabric(&self.desc.name, detail)
    }

    /// Every step of `up` after the plan.
    fn build(&mut self, plan: Plan, progress: &dyn Fn(&str)) -> Result<()> {
        self.namespaces(&plan, progress)?;
        let links = self.links(&plan)?;
        self.bring_up(links, progress)?;
        self.switches(
            &plan.bin,
            plan.bmv2.as_ref(),
            plan.vm.as_ref(),
            plan.configs,
            progress,
        )?;
        let has_daemon = match plan.daemon {
            Some(d) => {
                self.daemon(d, progress)?;
                true
            }
            None => false,
        };
        let booting = Instant::now();
        match plan.bmv2.as_ref().map(|t| &t.cli) {
            // bmv2 without canopyd: every switch accepts its entries
            Some(Some(cli)) => self.program_bmv2(cli, progress),
            // bmv2 under canopyd: it has pushed the program and every table
            Some(None) => {
                progress("waiting for canopyd to push the program and every table over P4Runtime");
                let timeout = Duration::from_secs(self.desc.raw.health_timeout_s);
                self.wait_daemon(Instant::now() + timeout)
            }
            None => self.wait_healthy(has_daemon, progress),
        }?;
        if plan.vm.is_some() {
            self.guests_booted(booting)?;
        }
        Ok(())
    }

    /// Step 1: one namespace per local node (recorded before it exists: a crash right after
    /// `ip netns add` still leaves a record).
    fn namespaces(&mut self, plan: &Plan, progress: &dyn Fn(&str)) -> Result<()> {
        let nodes: Vec<Node> = plan
            .local_sw
            .iter()
            .map(|&s| Node::Switch(s))
            .chain(plan.local_h.iter().map(|&h| Node::Host(h)))
            // a VM fabric's switches are guests: one hypervisor namespace instead
            .filter(|n| !(self.desc.in_vms() && matches!(n, Node::Switch(_))))
            .collect();
        let hv = usize::from(self.desc.in_vms());
        progress(&format!("creating {} namespaces", nodes.len() + hv));
        if self.desc.in_vms() {
            let hv = self.desc.hypervisor_netns();
            self.record(Created::Netns { name: hv.clone() })?;
            crate::vm::guest::hypervisor(
                &hv,
                crate::fabric::desc::MGMT_HYPERVISOR,
                crate::fabric::desc::MGMT_PREFIX,
            )?;
            self.sum.namespaces += 1;
        }
        for &n in &nodes {
            let ns = self.desc.netns(n);
            self.record(Created::Netns { name: ns.clone() })?;
            netns::add(&ns)?;
            self.sum.namespaces += 1;
        }
        Ok(())
    }

    /// Step 3: one switch process per local switch: `canopy-switch` with its configuration,
    /// or a bmv2 `simple_switch` running the compiled program.
    fn switches(
        &mut self,
        bin: &Path,
        bmv2: Option<&Tools>,
        vm: Option<&vm_step::VmPlan>,
        configs: Vec<SwitchConfig>,
        progress: &dyn Fn(&str),
    ) -> Result<()> {
        let desc = self.desc;
        let p4 = match bmv2 {
            Some(t) => {
                let build = super::bmv2::Bmv2Build::of(&t.simple_switch)
                    .map_err(|e| TestbedError::io(t.simple_switch.display().to_string(), e))?;
                self.state.target_build = Some(format!(
                    "{}: {}",
                    t.simple_switch.display(),
                    build.describe()
                ));
                progress(&format!("compiling {} with p4c", t.program.display()));
                Some(t.compile(desc, &self.state.dir)?)
            }
            None => None,
        };
        if let (None, Some(h)) = (bmv2, desc.host.as_ref()) {
            return self.host(bin, h, configs, progress);
        }
        if let Some(vm) = vm {
            return self.guests(vm, configs, progress);
        }
        progress(&format!(
            "starting {} {} processes ({})",
            configs.len(),
            bmv2.map_or(launch::SWITCH, |t| t.switch_name()),
            bmv2.map_or(bin, |t| t.simple_switch.as_path()).display()
        ));
        for (i, (s, mut socket, cfg, text)) in configs.into_iter().enumerate() {
            let ns = desc.netns(Node::Switch(s));
            let log = self.state.dir.join(format!("s{s}.log"));
            let (child, cfg) = match (bmv2, &p4) {
                (Some(t), Some(p4)) => {
                    if t.under_canopyd() {
                        socket = Desc::p4runtime_socket(&self.state.dir, s);
                    }
                    let child = t.spawn(
                        &ns,
                        &desc.switch_ifnames(s),
                        t.start_with(p4, &socket),
                        (&log, false),
                        desc.capture_dir(s).as_deref(),
                    )?;
                    (child, p4.json.clone())
                }
                _ => {
                    crate::os::private::write(&cfg, text)
                        .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
                    (launch::start_switch(bin, &ns, &cfg, &log, false)?, cfg)
                }
            };
            let pid = child.id();
            let sname = desc.topo.switches[s as usize].name.clone();
            self.children.push((i, child));
            self.record(Created::Process {
                pid,
                switch: sname.clone(),
                config: cfg.clone(),
            })?;
            self.state.switches.push(SwitchState {
                name: sname,
                netns: ns,
                pid,
                socket,
                config: cfg,
                log,
                guest: None,
            });
            self.state.save()?;
            self.sum.processes += 1;
        }
        Ok(())
    }

    /// Step 3b: canopyd, in this (the initial) namespace: it reaches the switches by their
    /// sockets, and /metrics is on this machine's loopback. A VM fabric's canopyd runs in
    /// the hypervisor namespace, on the guests' management network.
    fn daemon(
        &mut self,
        (dbin, cfg, text): (PathBuf, PathBuf, String),
        progress: &dyn Fn(&str),
    ) -> Result<()> {
        if self.desc.bmv2 {
            // the program it names exists now
            canopyd::config::Config::parse(&cfg.display().to_string(), &text, &self.state.dir)
                .map_err(|e| self.err(format!("generated canopyd config: {e}")))?;
        }
        crate::os::private::write(&cfg, text)
            .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
        let log = self.state.dir.join("canopyd.log");
        progress(&format!("starting canopyd ({})", dbin.display()));
        let ns = self.desc.in_vms().then(|| self.desc.hypervisor_netns());
        let child = launch::start_daemon(&dbin, &cfg, &log, false, ns.as_deref())?;
        let pid = child.id();
        self.record(Created::Process {
            pid,
            switch: "canopyd".into(),
            config: cfg.clone(),
        })?;
        let m = self.desc.raw.canopyd.metrics.get_ref();
        self.state.daemon = Some(DaemonState {
            pid,
            config: cfg,
            control: self.state.dir.join("canopyd.sock"),
            metrics: (m != "off").then(|| m.clone()),
            log,
            bin: Some(dbin),
            netns: ns,
        });
        self.state.save()?;
        // with the switches: a failed `up` reaps it, or kills it if teardown could not
        self.children.push((DAEMON_CHILD, child));
        Ok(())
    }

    /// Step 4 (bmv2): every `simple_switch` accepts the entries `canopyctl p4-entries`
    /// generates for it.
    fn program_bmv2(&mut self, t: &super::bmv2::Cli, progress: &dyn Fn(&str)) -> Result<()> {
        progress("programming every simple_switch with canopyctl p4-entries");
        let deadline = Instant::now() + Duration::from_secs(self.desc.raw.health_timeout_s);
        for sw in self.state.switches.clone() {
            self.interrupted()?;
            let entries = t.entries(self.desc, &sw.name)?;
            t.program(self.desc, &sw.netns, &sw.name, &entries, deadline)?;
        }
        Ok(())
    }

    /// Step 4: every switch reports healthy (tables loaded, every port up but NIC ports),
    /// then canopyd (when started) has pushed every table.
    fn wait_healthy(&mut self, has_daemon: bool, progress: &dyn Fn(&str)) -> Result<()> {
        let desc = self.desc;
        progress(if desc.daemon {
            "waiting for every switch to report healthy and canopyd to push every table"
        } else {
            "waiting for every switch to report healthy"
        });
        // guests boot first (under TCG, a few seconds each)
        let timeout = match desc.in_vms() {
            true => desc.raw.health_timeout_s.max(desc.raw.vm.boot_timeout_s),
            false => desc.raw.health_timeout_s,
        };
        let deadline = Instant::now() + Duration::from_secs(timeout);
        let mut pending: Vec<usize> = (0..self.state.switches.len()).collect();
        while !pending.is_empty() {
            self.interrupted()?;
            let mut still = vec![];
            for i in pending {
                if !self.switch_healthy(i)? {
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
                    .map(|&i| self.state.switches[i].name.clone())
                    .collect();
                return Err(self.err(format!(
                    "{} switch(es) not healthy after {} s (e.g. {}); logs in {}",
                    pending.len(),
                    timeout,
                    names.join(", "),
                    self.state.dir.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if has_daemon {
            self.wait_daemon(deadline)?;
        }
        Ok(())
    }

    /// canopyd (when started) reports the fabric ready by `deadline`.
    fn wait_daemon(&mut self, deadline: Instant) -> Result<()> {
        if let Some(d) = self.state.daemon.clone() {
            let interrupted = self.interrupt.clone();
            let child = self
                .children
                .iter_mut()
                .find(|(j, _)| *j == DAEMON_CHILD)
                .map(|(_, c)| c);
            if let Some(child) = child {
                let ready = super::ops::wait_daemon_ready(&d, child, deadline, || {
                    check_interrupt(&interrupted).is_err()
                });
                ready.map_err(|e| match e {
                    DaemonNotReady::Interrupted => TestbedError::Interrupted,
                    e => self.err(format!("canopyd: {e}; log {}", d.log.display())),
                })?;
            }
        }
        Ok(())
    }

    /// Whether switch `i` answers healthy now; an error when its process has exited.
    fn switch_healthy(&mut self, i: usize) -> Result<bool> {
        let desc = self.desc;
        let sw = &self.state.switches[i];
        if let Some((_, c)) = self
            .children
            .iter_mut()
            .find(|(j, _)| *j == i || *j == HOST_CHILD)
        {
            if let Ok(Some(st)) = c.try_wait() {
                return Err(TestbedError::fabric(
                    &desc.name,
                    format!(
                        "canopy-switch of {} exited during start ({st}); log {}: {}",
                        sw.name,
                        sw.log.display(),
                        process::log_tail(&sw.log, 5).join(" | ")
                    ),
                ));
            }
        }
        Ok(
            match crate::fabric::mgmt::health(&sw.mgmt(), Duration::from_secs(2)) {
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
            },
        )
    }

    /// After a failed `up`: reap our children (teardown stopped them); one that is
    /// somehow still running is our own unreaped child, so its pid is still ours to
    /// kill.
    fn reap_children(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(2);
        for (_, c) in &mut self.children {
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}
