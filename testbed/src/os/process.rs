//! Child processes with their output in a log file: started in their own process group
//! (a Ctrl-C on the terminal does not reach them), either left running
//! ([`spawn_logged`]: fabric switches outlive `up`) or stopped when their guard drops
//! ([`Proc`]: the vethbench's forwarders, `trafgen`).

use super::sys;
use crate::error::{Result, TestbedError};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// Open a process's log, readable by its owner only: created anew, or appended to (a
/// restart in a drill).
fn open_log(log: &Path, append: bool) -> Result<(std::fs::File, std::fs::File)> {
    let lf = super::private::open(log, append)
        .map_err(|e| TestbedError::io(format!("open {}", log.display()), e))?;
    let lf2 = lf.try_clone().map_err(|e| TestbedError::io("dup log", e))?;
    Ok((lf, lf2))
}

/// Start `cmd` in its own process group, stdout and stderr to `log` (created anew, or
/// appended to), stdin closed unless `keep_stdin` (a pipe the caller holds). `what`
/// names the start in an error.
pub fn spawn_logged(
    mut cmd: Command,
    log: &Path,
    append: bool,
    keep_stdin: bool,
    what: &str,
) -> Result<Child> {
    let (out, err) = open_log(log, append)?;
    cmd.stdin(if keep_stdin {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(out)
    .stderr(err)
    .process_group(0)
    .spawn()
    .map_err(|e| TestbedError::io(what, e))
}

/// The last `n` lines of a log file (none when it cannot be read), for error messages.
pub fn log_tail(log: &Path, n: usize) -> Vec<String> {
    let s = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// A child process in its own process group; stopped (SIGTERM to the group, SIGKILL
/// after 3 s) on drop.
#[derive(Debug)]
pub struct Proc {
    name: String,
    child: Child,
    // kept open: testpmd exits when its stdin reaches end of file
    _stdin: Option<ChildStdin>,
}

impl Proc {
    /// Spawn `cmd` in a new process group, stdout and stderr to `log` (created anew);
    /// with `keep_stdin` its stdin is a pipe that stays open as long as the guard.
    pub fn spawn(name: &str, cmd: Command, log: &Path, keep_stdin: bool) -> Result<Proc> {
        let mut child = spawn_logged(cmd, log, false, keep_stdin, &format!("spawn {name}"))?;
        let stdin = child.stdin.take();
        Ok(Proc {
            name: name.into(),
            child,
            _stdin: stdin,
        })
    }

    /// Process id (also the process group id). `ip netns exec` and `taskset` exec
    /// their command, so this is the program itself.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether it has exited (and how).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Send `sig` to the group and wait up to `grace` for the process to exit, then
    /// SIGKILL. Returns whether it exited by itself.
    pub fn stop(&mut self, sig: i32, grace: Duration) -> bool {
        if self.exited().is_some() {
            return true;
        }
        sys::signal_group(self.pid(), sig);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.exited().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        sys::signal_group(self.pid(), sys::SIGKILL);
        let _ = self.child.wait();
        false
    }

    /// Name given at spawn.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.stop(sys::SIGTERM, Duration::from_secs(3));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logged_child_writes_its_log_and_the_tail_reads_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        let mut c = Command::new("sh");
        c.args(["-c", "echo one; echo two >&2; echo three"]);
        let mut p = Proc::spawn("sh", c, &log, false).unwrap();
        let t0 = Instant::now();
        while p.exited().is_none() && t0.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(log_tail(&log, 2), ["two", "three"]);
        assert_eq!(log_tail(&log, 9).len(), 3);
        assert!(log_tail(&dir.path().join("none"), 3).is_empty());
        // appended to, not replaced
        let mut c = Command::new("sh");
        c.args(["-c", "echo four"]);
        spawn_logged(c, &log, true, false, "sh")
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(log_tail(&log, 2), ["three", "four"]);
    }
}
