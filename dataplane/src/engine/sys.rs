//! The engine's only syscalls: an `epoll` instance per adaptive polling thread and the
//! `eventfd` its [`Wake`](super::Wake) writes to. Linux only; the rest of the engine
//! falls back to `park_timeout` elsewhere (or if these calls fail).
//!
//! Plain `libc` rather than `mio`/`nix`/`rustix`: four calls (`epoll_create1`,
//! `epoll_ctl`, `epoll_wait`/`epoll_pwait2`, `eventfd` read/write) on fds we own, with
//! level-triggered registration of foreign fds (the AF_PACKET sockets) under our own
//! tokens; `libc` is already a dependency for the AF_PACKET port (docs/DESIGN.md).
#![allow(unsafe_code)] // FFI: confined to this module.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A non-blocking, close-on-exec `eventfd` (a counter: writes add, a read resets).
#[derive(Debug)]
pub(crate) struct EventFd {
    fd: OwnedFd,
}

impl EventFd {
    pub(crate) fn new() -> io::Result<EventFd> {
        // SAFETY: plain syscall; a non-negative return is a fresh fd we own.
        let fd = cvt(unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) })?;
        // SAFETY: fd was just returned by eventfd() and is owned by nobody else.
        Ok(EventFd {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    pub(crate) fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Make the fd readable (one `write` of 1). Never blocks: the counter saturating
    /// (`EAGAIN`) means it is readable already.
    pub(crate) fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64, as eventfd requires.
        let _ = unsafe { libc::write(self.raw(), (&one as *const u64).cast(), 8) };
    }

    /// Reset the counter (one `read`); `EAGAIN` when it was not signalled is fine.
    pub(crate) fn drain(&self) {
        let mut v: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64, as eventfd requires.
        let _ = unsafe { libc::read(self.raw(), (&mut v as *mut u64).cast(), 8) };
    }
}

/// An `epoll` instance (close-on-exec) with level-triggered `EPOLLIN` registrations.
#[derive(Debug)]
pub(crate) struct Epoll {
    fd: OwnedFd,
}

/// What one [`Epoll::wait`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Ready {
    /// Events returned.
    pub n: usize,
    /// Some fd reported `EPOLLERR` or `EPOLLHUP` (a link event on a packet socket).
    pub error: bool,
    /// The token of the eventfd was among them.
    pub woken: bool,
}

/// Events fetched per wait; more ready fds are simply reported by the next call.
const MAX_EVENTS: usize = 16;

impl Epoll {
    pub(crate) fn new() -> io::Result<Epoll> {
        // SAFETY: plain syscall; a non-negative return is a fresh fd we own.
        let fd = cvt(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        // SAFETY: fd was just returned by epoll_create1() and is owned by nobody else.
        Ok(Epoll {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    /// Watch `fd` for readability (and errors) under `token`; an fd registered
    /// already is modified instead. A closed fd leaves the set by itself.
    pub(crate) fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLERR) as u32,
            u64: token,
        };
        // SAFETY: ev is a valid epoll_event for the duration of the call; the kernel
        // checks the fds.
        let r = unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) };
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EEXIST) {
            return Err(e);
        }
        // SAFETY: as above.
        cvt(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_MOD, fd, &mut ev) })
            .map(|_| ())
    }

    /// Stop watching `fd` (an fd not in the set is not an error).
    pub(crate) fn del(&self, fd: RawFd) {
        // SAFETY: EPOLL_CTL_DEL ignores the event argument (NULL is allowed since
        // Linux 2.6.9); the kernel checks the fds.
        let _ = unsafe {
            libc::epoll_ctl(
                self.fd.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                fd,
                std::ptr::null_mut(),
            )
        };
    }

    /// Sleep until a registered fd is ready or `timeout` passed (nanosecond timeout
    /// with glibc's `epoll_pwait2`, else rounded up to whole milliseconds). `EINTR`
    /// counts as a wake-up with nothing ready.
    pub(crate) fn wait(&self, timeout: Duration, wake_token: u64) -> io::Result<Ready> {
        // SAFETY: epoll_event is plain old data; zeroed is a valid value.
        let mut evs: [libc::epoll_event; MAX_EVENTS] = unsafe { std::mem::zeroed() };
        let r = self.wait_raw(&mut evs, timeout);
        let n = match r {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => 0,
            Err(e) => return Err(e),
        };
        let mut ready = Ready {
            n,
            ..Ready::default()
        };
        for ev in &evs[..n] {
            let (events, token) = (ev.events, ev.u64);
            if token == wake_token {
                ready.woken = true;
            }
            if events & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0 {
                ready.error = true;
            }
        }
        Ok(ready)
    }

    #[cfg(target_env = "gnu")]
    fn wait_raw(&self, evs: &mut [libc::epoll_event], timeout: Duration) -> io::Result<usize> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs().min(i32::MAX as u64) as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: evs is a valid writable array of evs.len() events; ts is a valid
        // timespec; a NULL sigmask leaves the signal mask alone.
        let r = unsafe {
            libc::epoll_pwait2(
                self.fd.as_raw_fd(),
                evs.as_mut_ptr(),
                evs.len() as libc::c_int,
                &ts,
                std::ptr::null(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ENOSYS) {
                // a kernel older than 5.11: millisecond timeout
                return self.wait_ms(evs, timeout);
            }
            return Err(e);
        }
        Ok(r as usize)
    }

    #[cfg(not(target_env = "gnu"))]
    fn wait_raw(&self, evs: &mut [libc::epoll_event], timeout: Duration) -> io::Result<usize> {
        self.wait_ms(evs, timeout)
    }

    fn wait_ms(&self, evs: &mut [libc::epoll_event], timeout: Duration) -> io::Result<usize> {
        let ms = timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: evs is a valid writable array of evs.len() events.
        let r = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                evs.as_mut_ptr(),
                evs.len() as libc::c_int,
                ms,
            )
        };
        cvt(r).map(|n| n as usize)
    }
}

/// `clock_gettime(clock)` in ns (through the vDSO on Linux: no syscall); 0 if the
/// clock cannot be read.
pub(crate) fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the live local it is given.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn eventfd_wakes_epoll_and_drain_rearms_it() {
        let ep = Epoll::new().unwrap();
        let ev = EventFd::new().unwrap();
        ep.add(ev.raw(), 7).unwrap();
        ep.add(ev.raw(), 7).unwrap(); // registered twice: modified, not an error
        let t = Instant::now();
        let r = ep.wait(Duration::from_millis(20), 7).unwrap();
        assert_eq!(r.n, 0);
        assert!(
            t.elapsed() >= Duration::from_millis(19),
            "{:?}",
            t.elapsed()
        );
        ev.signal();
        ev.signal();
        let r = ep.wait(Duration::from_secs(5), 7).unwrap();
        assert_eq!((r.n, r.woken, r.error), (1, true, false));
        // level-triggered: still readable until drained
        assert!(ep.wait(Duration::ZERO, 7).unwrap().woken);
        ev.drain();
        assert_eq!(ep.wait(Duration::ZERO, 7).unwrap().n, 0);
        ev.drain(); // nothing to read: no error, no block
        assert!(ep.add(-1, 1).is_err());
    }
}
