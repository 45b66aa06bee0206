//! Fault drills on a running fabric (`canopy-testbed drill`, `docs/testbed.md`): kill
//! and restart a switch process (or stop and start a switch inside the shared host) or
//! the fabric's `canopyd`, and take a switch's link
//! down or up without telling anyone (an unplanned failure, as a pulled cable). A
//! planned port drain goes through `canopyd` (`canopyctl fabric port`).

use super::desc::{Desc, Node};
use super::mgmt;
use super::procs;
use super::state::{self, Created, DaemonState, State, SwitchState};
use super::up::{find_daemon_bin, find_switch_bin};
use crate::error::{Result, TestbedError};
use crate::os::netns::ip;
use canopy_proto::host::HostRequest;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn err(name: &str, detail: impl Into<String>) -> TestbedError {
    TestbedError::fabric(name, detail)
}

/// The state part that holds switch `switch` (or the daemon, for `None`).
fn part(root: &Path, name: &str, switch: Option<&str>) -> Result<State> {
    let (states, _) = State::load_all(root, name);
    if states.is_empty() {
        return Err(err(name, format!("no state under {}", root.display())));
    }
    states
        .into_iter()
        .find(|s| match switch {
            Some(w) => s.switches.iter().any(|x| x.name == w),
            None => s.daemon.is_some(),
        })
        .ok_or_else(|| match switch {
            Some(w) => err(name, format!("no switch named {w:?} runs on this machine")),
            None => err(name, "no canopyd was started with this fabric"),
        })
}

/// SIGKILL `pid` if its command line is still this fabric's process; wait until gone.
fn kill_verified(name: &str, fdir: &Path, pid: u32) -> Result<bool> {
    if !procs::alive(pid) {
        return Ok(false);
    }
    if !procs::cmdline(pid).is_some_and(|a| procs::is_fabric_switch(&a, fdir)) {
        return Err(err(
            name,
            format!("pid {pid} is not this fabric's process any more; not signalled"),
        ));
    }
    crate::os::sys::signal_pid(pid, crate::os::sys::SIGKILL);
    let deadline = Instant::now() + Duration::from_secs(5);
    while procs::alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(true)
}

/// How a switch was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Its own process, killed (SIGKILL: no goodbye, as a crash).
    Killed(u32),
    /// Taken out of the shared host with this pid (its ports closed, its socket gone,
    /// the host's other switches forwarding on).
    InHost(u32),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Killed(pid) => write!(f, "killed pid {pid}"),
            Stopped::InHost(pid) => write!(f, "stopped in the shared host (pid {pid})"),
        }
    }
}

/// A switch started again: its process (the shared host's, which did not change) and
/// its `health` instance when it was read (a shared host's switch answers at once).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    /// Process id.
    pub pid: u32,
    /// The switch's `health` instance (None: a process of its own, not asked yet).
    pub instance: Option<u64>,
}

/// How long a shared host's control socket is given to answer.
const HOST_TIMEOUT: Duration = Duration::from_secs(30);

/// A file a start needs, or why the process cannot be started again.
fn need_file(name: &str, what: &str, p: &Path) -> Result<()> {
    if p.is_file() {
        return Ok(());
    }
    Err(err(
        name,
        format!(
            "{what} {} is gone: it could not be started again; nothing was stopped",
            p.display()
        ),
    ))
}

/// Switch `sw`'s namespace, or why it cannot be started again.
fn need_netns(name: &str, sw: &SwitchState) -> Result<()> {
    if Path::new("/run/netns").join(&sw.netns).exists() {
        return Ok(());
    }
    Err(err(
        name,
        format!(
            "namespace {} of {} is gone: it could not be started again; nothing was stopped",
            sw.netns, sw.name
        ),
    ))
}

/// The `canopy-switch` binary that starts switch `sw` of `st` again in a process of its
/// own (QEMU for a guest switch), once everything the start needs is checked: its
/// binary, configuration and namespace are there. Checked before any switch is stopped.
fn switch_launch(st: &State, sw: &SwitchState) -> Result<PathBuf> {
    let name = &st.name;
    if st.target == "bmv2" {
        return bmv2_launch(st, sw);
    }
    if let Some(g) = &sw.guest {
        // a guest boots again with the arguments it was started with
        let qemu = crate::vm::qemu::find()?;
        if !Path::new("/run/netns").join(&g.netns).exists() {
            return Err(err(
                name,
                format!("hypervisor namespace {} is gone: {} could not be booted again; nothing was stopped", g.netns, sw.name),
            ));
        }
        return Ok(qemu);
    }
    let bin = match &st.switch_bin {
        Some(b) => b.clone(),
        None => find_switch_bin(&st.desc()?, None)?,
    };
    need_file(name, "its canopy-switch binary", &bin)?;
    need_file(name, &format!("{}'s configuration", sw.name), &sw.config)?;
    need_netns(name, sw)?;
    Ok(bin)
}

/// The bmv2 switch binary that starts switch `sw` of `st` again, once its namespace and
/// program are checked: only under canopyd, which programs it again.
fn bmv2_launch(st: &State, sw: &SwitchState) -> Result<PathBuf> {
    let name = &st.name;
    let tools = match &st.bmv2_tools {
        Some(t) if t.under_canopyd() => t,
        _ => return Err(err(
            name,
            "this bmv2 fabric has no canopyd to program a restarted simple_switch (bring it down and up again, with simple_switch_grpc: docs/testbed.md)",
        )),
    };
    need_file(name, "its simple_switch_grpc binary", &tools.simple_switch)?;
    need_file(name, "the compiled program", &sw.config)?;
    need_netns(name, sw)?;
    Ok(tools.simple_switch.clone())
}

/// The `canopyd` binary that starts the fabric's daemon `d` again, once its binary and
/// configuration are checked. Checked before it is killed.
fn daemon_launch(st: &State, d: &DaemonState) -> Result<PathBuf> {
    let bin = match &d.bin {
        Some(b) => b.clone(),
        None => find_daemon_bin(&st.desc()?)?,
    };
    need_file(&st.name, "its canopyd binary", &bin)?;
    need_file(&st.name, "canopyd's configuration", &d.config)?;
    Ok(bin)
}

/// Stop switch `switch`: kill its process, or take it out of the shared host that runs
/// it. None when it was not running. Refused, with nothing stopped, when it could not be
/// started again ([`start_switch`]).
pub fn kill_switch(root: &Path, name: &str, switch: &str) -> Result<Option<Stopped>> {
    let st = part(root, name, Some(switch))?;
    let sw = st.switches.iter().find(|x| x.name == switch).cloned();
    let sw = sw.ok_or_else(|| err(name, format!("no switch {switch:?}")))?;
    if st.host.is_none() && procs::alive(sw.pid) {
        switch_launch(&st, &sw)?;
    }
    if let Some(h) = &st.host {
        let req = HostRequest::Switches {};
        let r = mgmt::host(&h.control, &req, HOST_TIMEOUT)?;
        if !r.switches.iter().any(|s| s.name == switch && s.running) {
            return Ok(None);
        }
        let req = HostRequest::Stop {
            switch: switch.to_string(),
        };
        mgmt::host(&h.control, &req, HOST_TIMEOUT)?;
        return Ok(Some(Stopped::InHost(h.pid)));
    }
    let fdir = state::fabric_dir(root, name);
    let killed = kill_verified(name, &fdir, sw.pid)?;
    if killed {
        // a dpdk switch's (empty, --in-memory) EAL runtime directory, which SIGKILL leaves
        let _ = std::fs::remove_dir(format!("/var/run/dpdk/canopy{}", sw.pid));
    }
    Ok(killed.then_some(Stopped::Killed(sw.pid)))
}

/// Start switch `switch` again with its configuration, in its namespace: a process of
/// its own (its log is appended to; the state file records the new pid), or inside the
/// shared host that runs it. Refused while it runs.
pub fn start_switch(root: &Path, name: &str, switch: &str) -> Result<Started> {
    let mut st = part(root, name, Some(switch))?;
    let i = st
        .switches
        .iter()
        .position(|x| x.name == switch)
        .ok_or_else(|| err(name, format!("no switch {switch:?}")))?;
    let sw = st.switches[i].clone();
    if let Some(h) = &st.host {
        let req = HostRequest::Start {
            switch: switch.to_string(),
        };
        mgmt::host(&h.control, &req, HOST_TIMEOUT)
            .map_err(|e| err(name, format!("{switch}: {e}")))?;
        let health = mgmt::health(&sw.mgmt(), HOST_TIMEOUT)?;
        return Ok(Started {
            pid: h.pid,
            instance: Some(health.instance),
        });
    }
    if procs::alive(sw.pid) {
        return Err(err(
            name,
            format!("{switch} still runs (pid {}); kill it first", sw.pid),
        ));
    }
    let bin = switch_launch(&st, &sw)?;
    let child = match &sw.guest {
        Some(g) => {
            let log = crate::vm::guest::qemu_log(&g.console);
            crate::vm::guest::start(
                &g.netns,
                &bin,
                (&g.args, &g.sockets),
                &log,
                &format!("boot {switch} again"),
            )?
        }
        None => match &st.bmv2_tools {
            Some(t) => t.restart(&st, &sw)?,
            None => crate::launch::start_switch(&bin, &sw.netns, &sw.config, &sw.log, true)?,
        },
    };
    let pid = child.id();
    st.switches[i].pid = pid;
    st.record(Created::Process {
        pid,
        switch: switch.to_string(),
        config: sw.config.clone(),
    })?;
    Ok(Started {
        pid,
        instance: None,
    })
}

/// Kill the fabric's `canopyd` (SIGKILL). Returns the pid killed, None when it was not
/// running. Refused, with nothing killed, when it could not be started again.
pub fn kill_daemon(root: &Path, name: &str) -> Result<Option<u32>> {
    let st = part(root, name, None)?;
    let d = st.daemon.clone().expect("part() found a daemon");
    if procs::alive(d.pid) {
        daemon_launch(&st, &d)?;
    }
    let fdir = state::fabric_dir(root, name);
    Ok(kill_verified(name, &fdir, d.pid)?.then_some(d.pid))
}

/// Start the fabric's `canopyd` again with its configuration (log appended to).
pub fn start_daemon(root: &Path, name: &str) -> Result<u32> {
    let mut st = part(root, name, None)?;
    let d = st.daemon.clone().expect("part() found a daemon");
    if procs::alive(d.pid) {
        return Err(err(
            name,
            format!("canopyd still runs (pid {}); kill it first", d.pid),
        ));
    }
    let bin = daemon_launch(&st, &d)?;
    let child = crate::launch::start_daemon(&bin, &d.config, &d.log, true, d.netns.as_deref())?;
    let pid = child.id();
    if let Some(x) = st.daemon.as_mut() {
        x.pid = pid;
    }
    st.record(Created::Process {
        pid,
        switch: "canopyd".into(),
        config: d.config.clone(),
    })?;
    Ok(pid)
}

/// The namespace and interface name of `switch` port `port` of fabric `name`, checked
/// against the fabric description.
fn switch_port(root: &Path, name: &str, switch: &str, port: u16) -> Result<(String, String)> {
    let st = part(root, name, Some(switch))?;
    let desc = st.desc()?;
    let idx = desc
        .topo
        .switch_index(switch)
        .ok_or_else(|| err(name, format!("no switch {switch:?}")))?;
    let nports = desc.topo.switches[idx].ports.len();
    if usize::from(port) >= nports {
        return Err(err(
            name,
            format!("{switch} has ports 0..{nports}, not {port}"),
        ));
    }
    let node = Node::Switch(idx as u32);
    Ok((desc.netns(node), Desc::ifname(node, port)))
}

/// Set the link of `switch` port `port` down or up from the switch's side (`ip link set
/// s<i>p<j> down`): the switch sees its carrier go, its neighbour sees the veth peer go
/// too. Nobody is told. A guest switch's NIC is taken down by QEMU (QMP `set_link`):
/// the guest sees its carrier go; its neighbour's NIC stays up.
pub fn set_link(root: &Path, name: &str, switch: &str, port: u16, up: bool) -> Result<String> {
    let (ns, ifn) = switch_port(root, name, switch, port)?;
    let st = part(root, name, Some(switch))?;
    if let Some(g) = st
        .switches
        .iter()
        .find(|x| x.name == switch)
        .and_then(|x| x.guest.as_ref())
    {
        // the guest's NIC loses its carrier, as with a cable pulled on the hypervisor
        let netdev = format!("p{port}");
        let cmd = crate::vm::qmp::Command::SetLink {
            name: netdev.clone(),
            up,
        };
        crate::vm::qmp::execute(&g.qmp, &cmd, HOST_TIMEOUT)?;
        return Ok(format!("{switch}'s NIC {netdev} (QMP set_link)"));
    }
    ip(&[
        "-n",
        &ns,
        "link",
        "set",
        "dev",
        &ifn,
        if up { "up" } else { "down" },
    ])?;
    Ok(ifn)
}

/// A slowed port's qdisc counters, read just before it was removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlowStats {
    /// The port's interface, `netns/ifname`.
    pub dev: String,
    /// Frames the qdisc sent.
    pub sent: u64,
    /// Frames it dropped (its queue limit).
    pub drops: u64,
    /// Frames it still held when it was removed (the kernel frees them uncounted).
    pub left: u64,
}

/// `tc -s -j qdisc show dev IF` of the root `tbf` qdisc: (sent, drops, qlen).
fn tbf_stats(ns: &str, ifn: &str) -> Result<Option<(u64, u64, u64)>> {
    let j = crate::os::netns::run("tc", &["-n", ns, "-s", "-j", "qdisc", "show", "dev", ifn])?;
    let v: serde_json::Value = serde_json::from_str(&j).map_err(|e| TestbedError::Parse {
        what: format!("`tc -s -j qdisc show dev {ifn}`"),
        detail: e.to_string(),
    })?;
    Ok(v.as_array().into_iter().flatten().find_map(|q| {
        (q["kind"] == "tbf" && q["root"] == true).then(|| {
            let g = |k: &str| q[k].as_u64().unwrap_or(0);
            (g("packets"), g("drops"), g("qlen"))
        })
    }))
}

/// Slow switch `switch`'s port `port` to `rate` (`tc` syntax, e.g. `200kbit`) with a
/// `tbf` root qdisc that holds up to 8 MB, or (`None`) release it: raise the rate,
/// wait (at most 2 s) until the qdisc has sent what it held, read its counters and
/// remove it. The switch's socket on that port must not bypass the qdisc
/// (`qdisc_bypass = false`, `docs/canopy-switch.md`); then the qdisc holds the socket's
/// frames, the socket's send buffer and TX ring fill, and the switch counts what it
/// cannot queue. Releasing a port that is not slowed does nothing.
pub fn slow_port(
    root: &Path,
    name: &str,
    switch: &str,
    port: u16,
    rate: Option<&str>,
) -> Result<SlowStats> {
    let (ns, ifn) = switch_port(root, name, switch, port)?;
    if part(root, name, Some(switch))?.vm.is_some() {
        return Err(err(
            name,
            "slowing a port of a guest switch is not supported: its interface is inside the guest",
        ));
    }
    let tc = |args: &[&str]| -> Result<String> {
        let mut a = vec!["-n", ns.as_str(), "qdisc"];
        a.extend(args);
        crate::os::netns::run("tc", &a)
    };
    match rate {
        Some(r) => {
            tc(&[
                "replace", "dev", &ifn, "root", "tbf", "rate", r, "burst", "4kb", "limit", "8mb",
            ])?;
            Ok(SlowStats {
                dev: format!("{ns}/{ifn}"),
                ..SlowStats::default()
            })
        }
        None => {
            if tbf_stats(&ns, &ifn)?.is_none() {
                return Ok(SlowStats {
                    dev: format!("{ns}/{ifn}"),
                    ..SlowStats::default()
                });
            }
            tc(&[
                "change", "dev", &ifn, "root", "tbf", "rate", "1gbit", "burst", "1mb", "limit",
                "8mb",
            ])?;
            let t0 = Instant::now();
            let mut s = tbf_stats(&ns, &ifn)?.unwrap_or_default();
            while s.2 > 0 && t0.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(10));
                s = tbf_stats(&ns, &ifn)?.unwrap_or_default();
            }
            tc(&["del", "dev", &ifn, "root"])?;
            Ok(SlowStats {
                dev: format!("{ns}/{ifn}"),
                sent: s.0,
                drops: s.1,
                left: s.2,
            })
        }
    }
}
