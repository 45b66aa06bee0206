//! A running fabric as it answers: `canopy-testbed status` (every switch's health,
//! canopyd's view), naming the fabric a command means, and waiting for canopyd. `up`
//! and `down` are in [`super::up`](mod@super::up) and [`super::down`](mod@super::down).

use super::procs;
use super::state::{self, DaemonState, State, SwitchState};
use crate::error::{Result, TestbedError};
use crate::os::process;
use std::path::Path;
use std::time::{Duration, Instant};

/// canopyd's `status` answer (control socket `control`).
fn daemon_status_json(control: &Path) -> Result<serde_json::Value> {
    canopy_proto::client::Endpoint::Unix(control.to_path_buf())
        .request(
            &canopy_proto::control::Request::Status {},
            Duration::from_secs(2),
        )
        .map_err(TestbedError::from)
}

/// Why canopyd did not become ready.
#[derive(Debug, thiserror::Error)]
pub enum DaemonNotReady {
    /// Its process exited.
    #[error("exited during start ({status}): {log_tail}")]
    Exited {
        /// How.
        status: std::process::ExitStatus,
        /// The last lines of its log.
        log_tail: String,
    },
    /// Not ready by the deadline.
    #[error("not ready in time ({last})")]
    Late {
        /// What its last answer (or the failure to get one) said.
        last: String,
    },
    /// The wait was interrupted.
    #[error("interrupted")]
    Interrupted,
}

/// Wait until canopyd reports every switch up with the tables it wants.
pub(super) fn wait_daemon_ready(
    d: &DaemonState,
    child: &mut std::process::Child,
    deadline: Instant,
    interrupted: impl Fn() -> bool,
) -> std::result::Result<(), DaemonNotReady> {
    loop {
        if interrupted() {
            return Err(DaemonNotReady::Interrupted);
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(DaemonNotReady::Exited {
                status,
                log_tail: process::log_tail(&d.log, 3).join(" | "),
            });
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
            Err(e) => e.to_string(),
        };
        if Instant::now() > deadline {
            return Err(DaemonNotReady::Late { last });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The entries under `root`: the fabrics (a directory holding a readable state file
/// of this tool), then everything else (not this tool's: no command acts on it).
fn entries(root: &Path) -> (Vec<String>, Vec<String>) {
    let mut v: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v.into_iter()
        .partition(|n| !State::load_all(root, n).0.is_empty())
}

/// The fabric names under `root`: directories that hold a state file.
pub fn fabrics(root: &Path) -> Vec<String> {
    entries(root).0
}

/// The entries under `root` that are no fabric's (no state file of this tool).
pub fn not_fabrics(root: &Path) -> Vec<String> {
    entries(root).1
}

/// `NAME`, or the only fabric under `root`.
pub fn resolve_name(root: &Path, name: Option<&str>) -> Result<String> {
    if let Some(n) = name {
        return Ok(n.to_string());
    }
    let all = fabrics(root);
    match all.len() {
        1 => Ok(all[0].clone()),
        0 => Err(TestbedError::fabric(
            "?",
            format!(
                "no fabric under {}{}; give its NAME",
                root.display(),
                match not_fabrics(root) {
                    o if o.is_empty() => String::new(),
                    o => format!(" ({}: no canopy-testbed state file)", o.join(", ")),
                }
            ),
        )),
        _ => Err(TestbedError::fabric(
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
#[derive(Debug)]
pub struct SwitchStatus {
    /// Switch.
    pub switch: SwitchState,
    /// Machine part.
    pub machine: String,
    /// Health, or why it could not be read.
    pub health: Result<canopy_proto::mgmt::Health>,
    /// A bmv2 switch (no Canopy management endpoint: `health` is not asked): how it is
    /// programmed and read, in words.
    pub bmv2: Option<&'static str>,
    /// Its process is alive.
    pub alive: bool,
}

/// Health of every switch of fabric `name` on this machine.
/// Switch `switch` as canopyd (control socket `control`) reports it: its snapshot
/// entry, None when canopyd does not answer or has no such switch.
fn daemon_switch(control: &Path, switch: &str) -> Option<serde_json::Value> {
    let v = daemon_status_json(control).ok()?;
    v.pointer("/snapshot/switches")?
        .as_array()?
        .iter()
        .find(|s| s["name"] == switch)
        .cloned()
}

/// The incarnation canopyd knows switch `switch` by (its `health` instance; a
/// P4Runtime target's pipeline cookie), read before a drill restarts it.
pub fn switch_instance(control: &Path, switch: &str) -> Option<u64> {
    daemon_switch(control, switch)?["instance"].as_u64()
}

/// Poll canopyd (control socket `control`) until switch `switch` answers as the
/// process `started` and runs the tables canopyd wants; the time since `t0`, None
/// after `limit`. A P4Runtime target has no `health`, so no pid: there the new process
/// is the one with another instance (pipeline cookie) than `before`.
pub fn wait_switch_current(
    control: &Path,
    switch: &str,
    (started, before): (crate::fabric::drill::Started, Option<u64>),
    t0: Instant,
    limit: Duration,
) -> Option<Duration> {
    while t0.elapsed() < limit {
        let done = daemon_switch(control, switch).is_some_and(|s| {
            let pid = s.pointer("/health/pid").and_then(serde_json::Value::as_u64);
            let instance = s["instance"].as_u64();
            let this = match pid {
                Some(p) => p == u64::from(started.pid),
                None => instance.is_some() && instance != before,
            };
            s["tables_current"].as_bool() == Some(true)
                && this
                && started.instance.is_none_or(|i| instance == Some(i))
        });
        if done {
            return Some(t0.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// The fabric's `canopyd` (when `up` started one) and what it reports.
pub fn daemon_status(
    root: &Path,
    name: &str,
) -> Option<(DaemonState, Result<canopy_proto::snapshot::FabricSnapshot>)> {
    let (states, _) = State::load_all(root, name);
    let d = states.into_iter().find_map(|s| s.daemon)?;
    let r = daemon_status_json(&d.control).and_then(|v| {
        serde_json::from_value(v["snapshot"].clone()).map_err(|e| TestbedError::Parse {
            what: "canopyd's status".into(),
            detail: e.to_string(),
        })
    });
    Some((d, r))
}

/// One line on a guest switch's guest: QEMU's pid, accelerator and run state (QMP), the
/// management address, QEMU's resident memory and CPU time, its console log. None for a
/// switch that is not in a guest.
pub fn guest_line(sw: &SwitchState) -> Option<String> {
    let g = sw.guest.as_ref()?;
    let run = crate::vm::qmp::status(&g.qmp, Duration::from_secs(2))
        .map_or_else(|e| format!("QMP: {e}"), |s| s.status);
    let rss = std::fs::read_to_string(format!("/proc/{}/status", sw.pid))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
    let cpu = crate::os::cpu::process_ns(sw.pid).ok();
    Some(format!(
        "guest {}: QEMU pid {} ({}), {run}, management {}, {} resident, {} CPU; console {}",
        sw.name,
        sw.pid,
        g.accel.name(),
        g.tcp,
        rss.map_or("?".into(), |k| format!("{} MiB", k / 1024)),
        cpu.map_or("?".into(), |n| format!("{:.1} s", n as f64 / 1e9)),
        g.console.display()
    ))
}

/// Every switch of fabric `name` (all its parts) with its health, asked over its
/// management endpoint.
pub fn status(root: &Path, name: &str) -> Result<Vec<SwitchStatus>> {
    let (states, bad) = State::load_all(root, name);
    if states.is_empty() {
        return Err(TestbedError::fabric(
            name,
            format!(
                "no state under {}{}",
                state::fabric_dir(root, name).display(),
                if bad.is_empty() {
                    String::new()
                } else {
                    " (no readable state file: not this tool's directory)".into()
                }
            ),
        ));
    }
    Ok(states
        .iter()
        .flat_map(|st| {
            st.switches.iter().map(|sw| {
                let bmv2 = (st.target == "bmv2").then(|| match st.bmv2_under_canopyd() {
                    true => "bmv2 simple_switch_grpc (programmed by canopyd over P4Runtime; counters: P4Runtime Read)",
                    false => "bmv2 simple_switch (programmed at up; counters: simple_switch_CLI counter_read)",
                });
                SwitchStatus {
                    switch: sw.clone(),
                    machine: st.machine.clone(),
                    health: if bmv2.is_some() {
                        Err(TestbedError::Mgmt {
                            socket: sw.mgmt().to_string(),
                            detail: "bmv2 simple_switch: no Canopy management endpoint".into(),
                        })
                    } else {
                        crate::fabric::mgmt::health(&sw.mgmt(), Duration::from_secs(2))
                    },
                    bmv2,
                    alive: procs::alive(sw.pid),
                }
            })
        })
        .collect())
}
