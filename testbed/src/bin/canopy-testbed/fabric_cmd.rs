//! The fabric subcommands: `up`, `down`, `status`, `drill`, `check`.

use crate::cli::{CheckArgs, DrillArgs, DrillCmd, UpArgs};
use crate::{interrupt_flag, stdout_failed};
use anyhow::{bail, Context, Result};
use canopy_testbed::fabric::{self, Desc, UpOptions};
use std::path::Path;
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

/// `down`: remove everything of a fabric. Without NAME, what else is under the state
/// root (no state file of this tool) is named and left alone.
pub fn down(root: &Path, name: Option<String>) -> Result<ExitCode> {
    let others = match name {
        Some(_) => vec![],
        None => fabric::ops::not_fabrics(root),
    };
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    let sum = fabric::down(root, &name)?;
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

/// `status`: every switch's health and canopyd's view; failure when any is not healthy.
pub fn status(root: &Path, name: Option<String>) -> Result<ExitCode> {
    let name = fabric::ops::resolve_name(root, name.as_deref())?;
    let all = fabric::status(root, &name)?;
    let mut bad = 0;
    outln!(
        "{:<16} {:<8} {:>8} {:<8} {:<7} ports",
        "switch",
        "machine",
        "pid",
        "tables",
        "health"
    );
    for s in &all {
        if s.bmv2 {
            bad += usize::from(!s.alive);
            outln!(
                "{:<16} {:<8} {:>8} {:<8} {:<7} bmv2 simple_switch (programmed at up; counters: simple_switch_CLI counter_read)",
                s.switch.name,
                s.machine,
                s.switch.pid,
                "p4",
                if s.alive { "ok" } else { "DOWN" }
            );
            continue;
        }
        match &s.health {
            Ok(h) => {
                let up = h.ports.iter().filter(|p| p.link && p.admin).count();
                let ok = h.tables_loaded && up == h.ports.len();
                bad += usize::from(!ok);
                outln!(
                    "{:<16} {:<8} {:>8} {:<8} {:<7} {up}/{} up ({}), {} worker(s) {}, uptime {:.0} s",
                    s.switch.name,
                    s.machine,
                    h.pid,
                    if h.tables_loaded { "loaded" } else { "none" },
                    if ok { "ok" } else { "DEGRADED" },
                    h.ports.len(),
                    canopy_testbed::report::results::backend_summary(
                        h.ports.iter().map(|p| &p.backend)
                    ),
                    h.workers,
                    h.mode,
                    h.uptime_s
                );
            }
            Err(e) => {
                bad += 1;
                outln!(
                    "{:<16} {:<8} {:>8} {:<8} {:<7} {e}",
                    s.switch.name,
                    s.machine,
                    s.switch.pid,
                    "?",
                    "DOWN"
                );
            }
        }
    }
    outln!("{} switch(es), {} healthy", all.len(), all.len() - bad);
    for s in &all {
        if let Some(l) = fabric::ops::guest_line(&s.switch) {
            outln!("{l}");
        }
    }
    if let Some((d, r)) = fabric::ops::daemon_status(root, &name) {
        match r {
            Ok(snap) => {
                let current = snap.switches.iter().filter(|s| s.tables_current).count();
                let pruned: usize = snap.switches.iter().map(|s| s.pruned_ports.len()).sum();
                outln!(
                    "canopyd pid {}: {}, {current}/{} switches with current tables, {pruned} port(s) pruned; `canopyctl fabric --daemon {} status` for details",
                    d.pid,
                    if snap.ready { "ready" } else { "NOT READY" },
                    snap.switches.len(),
                    d.control.display()
                );
                bad += usize::from(!snap.ready);
            }
            Err(e) => {
                outln!(
                    "canopyd pid {}: DOWN ({e}); switches keep forwarding on their last tables",
                    d.pid
                );
                bad += 1;
            }
        }
    }
    if bad > 0 {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
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
            let stopped = drill::kill_switch(root, &name, &switch)?;
            let t0 = std::time::Instant::now();
            let pid = drill::start_switch(root, &name, &switch)?;
            outln!(
                "{switch}: {}, started pid {}",
                stopped.map_or("was not running".into(), |s| s.to_string()),
                pid.pid
            );
            if let Some((d, _)) = fabric::ops::daemon_status(root, &name) {
                let limit = std::time::Duration::from_secs(10);
                match fabric::ops::wait_switch_current(&d.control, &switch, pid, t0, limit) {
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
            let ifn = drill::set_link(root, &name, &switch, port, state == "up")?;
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
