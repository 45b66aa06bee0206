//! The few raw system calls the testbed needs (Linux only): effective uid, entering a
//! network namespace on the calling thread, signals to a process group, the monotonic
//! clock and the clock-tick rate. Every `unsafe` block of the crate is here.

use std::os::fd::AsRawFd;

/// Whether the process runs as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Move the calling thread into the network namespace `/run/netns/<name>`. Sockets the
/// thread creates afterwards belong to that namespace; other threads are unaffected.
pub fn enter_netns(name: &str) -> std::io::Result<()> {
    let file = std::fs::File::open(format!("/run/netns/{name}"))?;
    // SAFETY: a valid, open namespace fd; setns only changes the calling thread.
    let r = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Send `sig` to every process of process group `pgid`. Errors (group gone) are ignored
/// by the callers; the return value says whether the kernel accepted the signal.
pub fn signal_group(pgid: u32, sig: i32) -> bool {
    let Ok(pgid) = i32::try_from(pgid) else {
        return false;
    };
    if pgid <= 1 {
        return false; // never signal "every process" or init's group
    }
    // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
    unsafe { libc::kill(-pgid, sig) == 0 }
}

/// Send `sig` to process `pid` alone; false when the kernel refused (gone) or `pid` is
/// not a single process id.
pub fn signal_pid(pid: u32, sig: i32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid <= 1 {
        return false; // never signal groups, "every process" or init
    }
    // SAFETY: kill(2) with a positive pid signals that one process; no memory involved.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// `SIGINT`, `SIGTERM`, `SIGKILL` for [`signal_group`].
pub const SIGINT: i32 = libc::SIGINT;
/// See [`SIGINT`].
pub const SIGTERM: i32 = libc::SIGTERM;
/// See [`SIGINT`].
pub const SIGKILL: i32 = libc::SIGKILL;

/// `clock` in nanoseconds.
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec; the callers pass clocks that always
    // exist on Linux (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_THREAD_CPUTIME_ID).
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC in nanoseconds (the clock the latency stamps carry).
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME in nanoseconds (the clock of the kernel's receive stamps).
pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

/// Clock ticks per second of `/proc/*/stat` and `/proc/stat` (USER_HZ, usually 100).
pub fn clock_ticks() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

/// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID) in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Let the calling thread (and the threads it starts from now on) run only on `cpus`;
/// false when the kernel refuses (or `cpus` is empty or too large for a `cpu_set_t`).
pub fn set_cpu_affinity(cpus: &[usize]) -> bool {
    if cpus.is_empty() || cpus.iter().any(|&c| c >= libc::CPU_SETSIZE as usize) {
        return false;
    }
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: c < CPU_SETSIZE, checked above.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: set is a valid cpu_set_t of the size given; pid 0 is the calling thread.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

/// Set the calling thread's timer slack (how late the kernel may wake a sleep) to `ns`
/// nanoseconds; the default of 50 µs would make short paced sleeps useless.
pub fn set_timer_slack_ns(ns: u64) -> bool {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and only affects this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) == 0 }
}

/// A set of descriptors to wait on for input, built once and reused for every wait (no
/// allocation per `poll`).
pub struct PollSet(Vec<libc::pollfd>);

impl PollSet {
    /// Wait for input on `fds`.
    pub fn new(fds: &[std::os::fd::RawFd]) -> PollSet {
        PollSet(
            fds.iter()
                .map(|&fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect(),
        )
    }

    /// Block until one descriptor is readable (or has an error pending) or `timeout_ms`
    /// passes. Returns the number of ready descriptors (0 on timeout or error).
    pub fn wait(&mut self, timeout_ms: i32) -> usize {
        // SAFETY: `self.0` is a valid, initialised array of `len` pollfd structs that
        // lives across the call; poll only writes their `revents`.
        let r = unsafe {
            libc::poll(
                self.0.as_mut_ptr(),
                self.0.len() as libc::nfds_t,
                timeout_ms,
            )
        };
        usize::try_from(r).unwrap_or(0)
    }
}
