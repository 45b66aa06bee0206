//! The fabric subcommands: `up`, `down`, `status`, `drill`, `check`.

use crate::cli::{CheckArgs, DrillArgs, DrillCmd, LinkState, UpArgs};
use crate::{interrupt_flag, stdout_failed};
use anyhow::{bail, Context, Result};
use canopy_proto::mgmt::Health;
use canopy_testbed::fabric::{self, Desc, UpOptions};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// `up`: build the fabric from a description (or only check it with `--dry-run`).
pub fn up(root: &Path, a: UpArgs) -> Result<ExitCode> {
    let UpArgs {
        file,
        machine,
        switch_bin,
        dry_run,
    } = a;
    let desc = match &file {
        Some(f) => Desc::load(f)?,
        None => Desc::parse("<defaults>", "")?,
    };
    if dry_run {
        desc.check_machine(&machine)?;
        outln!(
            "{}: fabric {} = {} ({}), {} switches, {} hosts, {} links; valid",
            desc.file,
            desc.name,
            desc.raw.topology.get_ref(),
            desc.kind,
            desc.topo.switches.len(),
            desc.topo.hosts.len(),
            desc.links.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let t0 = Instant::now();
    let progress = |m: &str| eprintln!("[{:6.2} s] {m}", t0.elapsed().as_secs_f64());
    // SIGINT / SIGTERM stop `up` between steps and roll back what it created
    let stop = interrupt_flag()?;
    let opts = UpOptions {
        state_root: root.to_path_buf(),
        machine,
        switch_bin,
        interrupt: Some(stop),
    };
    let sum = fabric::up(&desc, &opts, &progress)?;
    outln!("{sum}");
    Ok(ExitCode::SUCCESS)
}

/// `down --json`: what was removed.
#[derive(Serialize)]
struct DownReport {
    /// The fabric.
    fabric: String,
    /// Switch and canopyd processes stopped.
    processes: usize,
    /// Namespaces deleted (with their veths and VXLAN devices).
    namespaces: usize,
    /// NICs moved back.
    nics: usize,
    /// State directories removed.
    state_dirs: usize,
    /// What the fabric's directory held besides its state directories: left in place.
    left_alone: Vec<PathBuf>,
    /// Without NAME: what else is under the state root (no state file of this tool),
    /// left in place.
    not_fabrics: Vec<String>,
}

/// `down`: remove everything of a fabric. Without NAME, what else is under the state
/// root (no state file of this tool) is named and left alone.
pub fn down(root: &Path, name: Option<String>, json: bool) -> Result<ExitCode> {
    let others = match name {
        Some(_) => vec![],
        None => fabric::ops::not_fabrics(root),
    };
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    let sum = fabric::down(root, &name)?;
    if json {
        let r = DownReport {
            fabric: name,
            processes: sum.processes,
            namespaces: sum.namespaces,
            nics: sum.nics,
            state_dirs: sum.state_dirs,
            left_alone: sum.left_alone,
            not_fabrics: others,
        };
        outln!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("fabric {name}: {sum}");
    if !others.is_empty() {
        outln!(
            "left alone under {} (no canopy-testbed state file): {}",
            root.display(),
            others.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `status --json`: the fabric's switches and canopyd.
#[derive(Serialize)]
struct StatusReport<'a> {
    /// The fabric.
    fabric: &'a str,
    /// Every switch, in the text's order.
    switches: Vec<SwitchReport<'a>>,
    /// Switches whose state is `ok`.
    healthy: usize,
    /// The fabric's canopyd, when `up` started one.
    #[serde(skip_serializing_if = "Option::is_none")]
    daemon: Option<DaemonReport<'a>>,
    /// Every switch ok, and canopyd (if any) ready: exit status 0.
    ok: bool,
}

/// `status --json`: one switch.
#[derive(Serialize)]
struct SwitchReport<'a> {
    /// Its name in the topology.
    name: &'a str,
    /// The machine part it runs on.
    machine: &'a str,
    /// Its process (QEMU's for a switch in a guest).
    pid: u32,
    /// `canopy`, or `bmv2` (a simple_switch: no management endpoint, no health).
    target: &'static str,
    /// `loaded`, `none` (no tables: every frame is dropped), `p4` (bmv2), or `unknown`
    /// (no answer).
    tables: &'static str,
    /// `ok`, `degraded` (no tables, or a port down) or `down` (no answer, or the process
    /// is gone).
    state: &'static str,
    /// Ports with link and admin up (a Canopy switch that answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    ports_up: Option<usize>,
    /// The switch's own health report (a Canopy switch that answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    health: Option<&'a Health>,
    /// Why its health could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// The line on its guest (QEMU's state, management address, memory, CPU, console),
    /// for a switch in a VM.
    #[serde(skip_serializing_if = "Option::is_none")]
    guest: Option<String>,
}

/// `status --json`: canopyd.
#[derive(Serialize)]
struct DaemonReport<'a> {
    /// Its process.
    pid: u32,
    /// Its control socket (`canopyctl fabric --daemon`).
    control: &'a Path,
    /// It answered, and says it is ready.
    ready: bool,
    /// Switches whose tables are the ones canopyd wants (when it answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    current: Option<usize>,
    /// Switches canopyd manages (when it answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    switches: Option<usize>,
    /// Ports the fabric is pruned around (when it answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pruned_ports: Option<usize>,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// `status`: every switch's health and canopyd's view; failure when any is not healthy.
pub fn status(root: &Path, name: Option<String>, json: bool) -> Result<ExitCode> {
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    let all = fabric::status(root, &name)?;
    let switches: Vec<SwitchReport> = all.iter().map(switch_report).collect();
    let healthy = switches.iter().filter(|s| s.state == "ok").count();
    let daemon = fabric::ops::daemon_status(root, &name);
    let daemon_report = daemon.as_ref().map(|(d, r)| match r {
        Ok(snap) => DaemonReport {
            pid: d.pid,
            control: &d.control,
            ready: snap.ready,
            current: Some(snap.switches.iter().filter(|s| s.tables_current).count()),
            switches: Some(snap.switches.len()),
            pruned_ports: Some(snap.switches.iter().map(|s| s.pruned_ports.len()).sum()),
            error: None,
        },
        Err(e) => DaemonReport {
            pid: d.pid,
            control: &d.control,
            ready: false,
            current: None,
            switches: None,
            pruned_ports: None,
            error: Some(e.to_string()),
        },
    });
    let ok = healthy == switches.len() && daemon_report.as_ref().is_none_or(|d| d.ready);
    let code = if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if json {
        let r = StatusReport {
            fabric: &name,
            switches,
            healthy,
            daemon: daemon_report,
            ok,
        };
        outln!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(code);
    }
    outln!(
        "{:<16} {:<8} {:>8} {:<8} {:<7} ports",
        "switch",
        "machine",
        "pid",
        "tables",
        "health"
    );
    for (s, r) in all.iter().zip(&switches) {
        let state = match r.state {
            "ok" => "ok",
            "degraded" => "DEGRADED",
            _ => "DOWN",
        };
        let tables = match r.tables {
            "unknown" => "?",
            t => t,
        };
        let head = format!(
            "{:<16} {:<8} {:>8} {tables:<8} {state:<7}",
            r.name, r.machine, r.pid
        );
        match (&s.health, s.bmv2) {
            (_, Some(how)) => outln!("{head} {how}"),
            (Ok(h), None) => outln!(
                "{head} {}/{} up ({}), {} worker(s) {}, uptime {:.0} s",
                r.ports_up.unwrap_or(0),
                h.ports.len(),
                canopy_testbed::report::results::backend_summary(
                    h.ports.iter().map(|p| &p.backend)
                ),
                h.workers,
                h.mode,
                h.uptime_s
            ),
            (Err(e), None) => outln!("{head} {e}"),
        }
    }
    outln!("{} switch(es), {healthy} healthy", all.len());
    for r in &switches {
        if let Some(l) = &r.guest {
            outln!("{l}");
        }
    }
    match daemon_report {
        Some(DaemonReport {
            pid,
            control,
            ready,
            current: Some(current),
            switches: Some(n),
            pruned_ports: Some(pruned),
            ..
        }) => outln!(
            "canopyd pid {pid}: {}, {current}/{n} switches with current tables, {pruned} port(s) pruned; `canopyctl fabric --daemon {} status` for details",
            if ready { "ready" } else { "NOT READY" },
            control.display()
        ),
        Some(d) => outln!(
            "canopyd pid {}: DOWN ({}); switches keep forwarding on their last tables",
            d.pid,
            d.error.as_deref().unwrap_or("no answer")
        ),
        None => {}
    }
    Ok(code)
}

/// One switch of `status`: what its text line and its JSON say.
fn switch_report(s: &fabric::ops::SwitchStatus) -> SwitchReport<'_> {
    let (tables, state, ports_up, health, error) = match (&s.health, s.bmv2) {
        (_, Some(_)) => ("p4", if s.alive { "ok" } else { "down" }, None, None, None),
        (Ok(h), None) => {
            let up = h.ports.iter().filter(|p| p.link && p.admin).count();
            let ok = h.tables_loaded && up == h.ports.len();
            (
                if h.tables_loaded { "loaded" } else { "none" },
                if ok { "ok" } else { "degraded" },
                Some(up),
                Some(h),
                None,
            )
        }
        (Err(e), None) => ("unknown", "down", None, None, Some(e.to_string())),
    };
    SwitchReport {
        name: &s.switch.name,
        machine: &s.machine,
        pid: health.map_or(s.switch.pid, |h| h.pid),
        target: if s.bmv2.is_some() { "bmv2" } else { "canopy" },
        tables,
        state,
        ports_up,
        health,
        error,
        guest: fabric::ops::guest_line(&s.switch),
    }
}

/// `drill`: one fault drill.
pub fn drill(root: &Path, a: DrillArgs) -> Result<ExitCode> {
    let DrillArgs { name, what } = a;
    use canopy_testbed::fabric::drill;
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    match what {
        DrillCmd::Kill { switch } => match drill::kill_switch(root, &name, &switch)? {
            Some(how) => outln!("{switch}: {how}"),
            None => outln!("{switch}: was not running"),
        },
        DrillCmd::Start { switch } => {
            let s = drill::start_switch(root, &name, &switch)?;
            match s.instance {
                Some(i) => outln!("{switch}: started, pid {}, instance {i}", s.pid),
                None => outln!("{switch}: started, pid {}", s.pid),
            }
        }
        DrillCmd::Restart { switch } => {
            let daemon = fabric::ops::daemon_status(root, &name).map(|(d, _)| d);
            let before = daemon
                .as_ref()
                .and_then(|d| fabric::ops::switch_instance(&d.control, &switch));
            let stopped = drill::kill_switch(root, &name, &switch)?;
            let t0 = std::time::Instant::now();
            let pid = drill::start_switch(root, &name, &switch)?;
            outln!(
                "{switch}: {}, started pid {}",
                stopped.map_or("was not running".into(), |s| s.to_string()),
                pid.pid
            );
            if let Some(d) = daemon {
                let limit = std::time::Duration::from_secs(10);
                let new = (pid, before);
                match fabric::ops::wait_switch_current(&d.control, &switch, new, t0, limit) {
                    Some(t) => outln!(
                        "{switch}: canopyd had pushed its tables {:.0} ms after the start",
                        t.as_secs_f64() * 1e3
                    ),
                    None => {
                        outln!("{switch}: canopyd did not push its tables within 10 s");
                        return Ok(ExitCode::FAILURE);
                    }
                }
            }
        }
        DrillCmd::Link {
            switch,
            port,
            state,
        } => {
            let ifn = drill::set_link(root, &name, &switch, port, state == LinkState::Up)?;
            outln!("{switch} port {port} ({ifn}): link {state}");
        }
        DrillCmd::Slow {
            switch,
            port,
            rate,
            off,
        } => {
            if off {
                let s = drill::slow_port(root, &name, &switch, port, None)?;
                outln!(
                    "{switch} port {port}: released (its qdisc sent {}, dropped {}, held {} when removed)",
                    s.sent,
                    s.drops,
                    s.left
                );
            } else {
                drill::slow_port(root, &name, &switch, port, Some(&rate))?;
                outln!("{switch} port {port}: slowed to {rate}");
            }
        }
        DrillCmd::KillDaemon => match drill::kill_daemon(root, &name)? {
            Some(pid) => outln!("canopyd: killed pid {pid}"),
            None => outln!("canopyd: was not running"),
        },
        DrillCmd::StartDaemon => {
            let pid = drill::start_daemon(root, &name)?;
            outln!("canopyd: started, pid {pid}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `check`: one frame per ordered host pair.
pub fn check(root: &Path, a: CheckArgs) -> Result<ExitCode> {
    let CheckArgs {
        name,
        timeout_s,
        json,
    } = a;
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    if !(0.1..=600.0).contains(&timeout_s) {
        bail!("--timeout-s must be 0.1..=600");
    }
    let r = fabric::check(root, &name, Duration::from_secs_f64(timeout_s))
        .with_context(|| format!("check of fabric {name}"))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        outln!("{r}");
    }
    if !r.passed() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
