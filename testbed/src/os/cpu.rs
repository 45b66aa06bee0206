//! CPU time accounting: a process's own time (`/proc/PID/stat`, all threads) and the
//! machine's (`/proc/stat`, all CPUs).
//!
//! A process's `utime + stime` covers every thread of the process, including the
//! softirq work the kernel runs in that process's context (with this kernel's
//! accounting: no `CONFIG_IRQ_TIME_ACCOUNTING` split is assumed). Work the kernel does
//! in softirq context on behalf of nobody in particular (the Linux bridge forwards in the
//! sender's softirq) is not attributable to a process; for that, the machine-wide
//! `/proc/stat` delta (busy = everything but idle and iowait, and its softirq column) is
//! reported next to it. Resolution is one clock tick (10 ms at USER_HZ = 100).

use crate::error::{Result, TestbedError};
use crate::os::sys;

/// `utime + stime` of process `pid` (all its threads) in nanoseconds.
pub fn process_ns(pid: u32) -> Result<u64> {
    let path = format!("/proc/{pid}/stat");
    let s =
        std::fs::read_to_string(&path).map_err(|e| TestbedError::io(format!("read {path}"), e))?;
    let ticks = parse_proc_pid_stat(&s).ok_or_else(|| TestbedError::Parse {
        what: path,
        detail: s.chars().take(120).collect(),
    })?;
    Ok(ticks * 1_000_000_000 / sys::clock_ticks())
}

/// Every thread of process `pid`: its name (`/proc/PID/task/TID/comm`) and its
/// `utime + stime` in nanoseconds. Threads that end while being read are left out.
pub fn threads_ns(pid: u32) -> Vec<(String, u64)> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for e in dir.flatten() {
        let p = e.path();
        let (Ok(stat), Ok(comm)) = (
            std::fs::read_to_string(p.join("stat")),
            std::fs::read_to_string(p.join("comm")),
        ) else {
            continue;
        };
        if let Some(ticks) = parse_proc_pid_stat(&stat) {
            v.push((
                comm.trim().to_string(),
                ticks * 1_000_000_000 / sys::clock_ticks(),
            ));
        }
    }
    v
}

/// Seconds since process `pid` started (`starttime` of `/proc/PID/stat` against
/// `/proc/uptime`), e.g. to tell a restarted process from one that kept running.
pub fn process_age_s(pid: u32) -> Result<f64> {
    let path = format!("/proc/{pid}/stat");
    let s =
        std::fs::read_to_string(&path).map_err(|e| TestbedError::io(format!("read {path}"), e))?;
    let up = std::fs::read_to_string("/proc/uptime")
        .map_err(|e| TestbedError::io("read /proc/uptime", e))?;
    let bad = |what: &str, s: &str| TestbedError::Parse {
        what: what.into(),
        detail: s.chars().take(120).collect(),
    };
    let start = s[s.rfind(')').ok_or_else(|| bad(&path, &s))? + 1..]
        .split_whitespace()
        .nth(19) // field 22, starttime (ticks after boot)
        .and_then(|f| f.parse::<u64>().ok())
        .ok_or_else(|| bad(&path, &s))?;
    let now: f64 = up
        .split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| bad("/proc/uptime", &up))?;
    Ok((now - start as f64 / sys::clock_ticks() as f64).max(0.0))
}

/// utime + stime (ticks) from the text of `/proc/PID/stat`. The command name (field 2)
/// may contain spaces and parentheses, so fields are counted after the last `)`.
fn parse_proc_pid_stat(s: &str) -> Option<u64> {
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime is field 14, stime field 15.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// Machine-wide CPU time over all CPUs (`/proc/stat`, first line), in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SysCpu {
    /// Everything but idle and iowait.
    pub busy_ns: u64,
    /// The softirq column alone.
    pub softirq_ns: u64,
    /// The system column alone.
    pub system_ns: u64,
}

impl SysCpu {
    /// Read `/proc/stat` now.
    pub fn read() -> Result<SysCpu> {
        let s = std::fs::read_to_string("/proc/stat")
            .map_err(|e| TestbedError::io("read /proc/stat", e))?;
        let t = parse_proc_stat(&s).ok_or_else(|| TestbedError::Parse {
            what: "/proc/stat".into(),
            detail: s.lines().next().unwrap_or("").to_string(),
        })?;
        let k = 1_000_000_000 / sys::clock_ticks();
        Ok(SysCpu {
            busy_ns: t.0 * k,
            softirq_ns: t.1 * k,
            system_ns: t.2 * k,
        })
    }

    /// `self - before`.
    pub fn since(&self, before: &SysCpu) -> SysCpu {
        SysCpu {
            busy_ns: self.busy_ns.saturating_sub(before.busy_ns),
            softirq_ns: self.softirq_ns.saturating_sub(before.softirq_ns),
            system_ns: self.system_ns.saturating_sub(before.system_ns),
        }
    }
}

/// (busy, softirq, system) ticks from the `cpu` line of `/proc/stat`.
fn parse_proc_stat(s: &str) -> Option<(u64, u64, u64)> {
    let line = s.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice: already in user]
    if v.len() < 8 {
        return None;
    }
    let busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    Some((busy, v[6], v[2]))
}

/// The 1-minute load average (`/proc/loadavg`).
pub fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pid_stat_with_odd_names() {
        let s = "1234 (a) b (c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 3 0 99 0 0";
        assert_eq!(parse_proc_pid_stat(s), Some(280));
        assert_eq!(parse_proc_pid_stat("garbage"), None);
    }

    #[test]
    fn parses_proc_stat() {
        let s = "cpu  100 5 50 1000 7 3 20 1 0 0\ncpu0 50 2 25 500 3 1 10 0 0 0\n";
        assert_eq!(parse_proc_stat(s), Some((179, 20, 50)));
        assert_eq!(parse_proc_stat("cpu 1 2\n"), None);
    }

    #[test]
    fn own_process_time_is_readable_and_grows() {
        let me = std::process::id();
        let a = process_ns(me).unwrap();
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed() < std::time::Duration::from_millis(60) {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        std::hint::black_box(x);
        assert!(process_ns(me).unwrap() > a);
        let s = SysCpu::read().unwrap();
        assert!(s.busy_ns > 0);
    }
}
