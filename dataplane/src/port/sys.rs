//! Small OS helpers shared by the kernel port backends' `sys` modules: the syscall
//! result check, the page size, a new socket, `setsockopt`, `getsockopt`, `bind`,
//! `poll`, `SO_ERROR`, and the interface queries `SIOCGIFINDEX`, `SIOCGIFFLAGS` and
//! `SIOCGIFMTU` on any socket, in that socket's network namespace.
#![allow(unsafe_code)] // sysconf, socket calls and one ioctl on caller-owned sockets (SAFETY comments).

use std::ffi::c_void;
use std::io;
use std::mem::size_of;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// A C return value as a result: negative is the thread's `errno`.
pub(crate) fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// The system page size.
pub(crate) fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Move the calling thread into the network namespace `ns` (an fd of
/// `/proc/<pid>/ns/net`); needs `CAP_SYS_ADMIN`. Only the calling thread moves.
pub(crate) fn enter_netns(ns: &OwnedFd) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: plain syscall on an fd the caller owns; the kernel checks its type.
    cvt(unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) }).map(|_| ())
}

/// A new socket (`socket(domain, ty, protocol)`), owned.
pub(crate) fn socket(
    domain: libc::c_int,
    ty: libc::c_int,
    protocol: libc::c_int,
) -> io::Result<OwnedFd> {
    // SAFETY: plain syscall; a non-negative return is a fresh fd nobody else owns.
    let fd = cvt(unsafe { libc::socket(domain, ty, protocol) })?;
    // SAFETY: fd was just returned by socket() and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `setsockopt(fd, level, opt)` with the bytes of `val` (its size as the length).
pub(crate) fn setsockopt<T>(
    fd: RawFd,
    level: libc::c_int,
    opt: libc::c_int,
    val: &T,
) -> io::Result<()> {
    // SAFETY: val points to a live, initialised T of the given size for the call, which
    // only reads it; a bad fd fails.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            (val as *const T).cast::<c_void>(),
            size_of::<T>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// `getsockopt(fd, level, opt)` into a `T` (starting from `T::default()`).
///
/// # Safety
///
/// Every value the kernel may write for this option must be a valid `T`: a plain
/// `repr(C)` struct of integers (or one integer) of the option's layout.
pub(crate) unsafe fn getsockopt<T: Default>(
    fd: RawFd,
    level: libc::c_int,
    opt: libc::c_int,
) -> io::Result<T> {
    let mut v = T::default();
    let mut len = size_of::<T>() as libc::socklen_t;
    // SAFETY: v and len are valid for writes of the advertised size; the caller
    // guarantees that whatever the kernel writes is a valid T; a bad fd fails.
    cvt(unsafe {
        libc::getsockopt(
            fd,
            level,
            opt,
            (&mut v as *mut T).cast::<c_void>(),
            &mut len,
        )
    })?;
    Ok(v)
}

/// `bind(fd, addr)` with `addr` a socket address structure (`sockaddr_ll`,
/// `sockaddr_xdp`, …) whose size is the length.
pub(crate) fn bind<A>(fd: RawFd, addr: &A) -> io::Result<()> {
    // SAFETY: addr is a live socket address of the size passed, only read by the call;
    // a bad fd or address fails.
    cvt(unsafe {
        libc::bind(
            fd,
            (addr as *const A).cast::<libc::sockaddr>(),
            size_of::<A>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// `poll` socket `fd` for `events` for at most `timeout_ms` (-1 = forever): the
/// revents.
pub(crate) fn poll(fd: RawFd, events: i16, timeout_ms: i32) -> io::Result<i16> {
    let mut pfd = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let r = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(pfd.revents)
    }
}

/// Read and clear socket `fd`'s pending error (`SO_ERROR`); 0 when none.
pub(crate) fn take_error(fd: RawFd) -> io::Result<i32> {
    // SAFETY: SO_ERROR is a C int; every value is a valid i32.
    unsafe { getsockopt::<libc::c_int>(fd, libc::SOL_SOCKET, libc::SO_ERROR) }
}

/// `struct ifreq` with the union as raw bytes (we read an `int` or a `short` from it).
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    data: [u8; 24],
}

/// The union of `struct ifreq` after a `SIOCGIF*` request on interface `name`, through
/// socket `fd`. A name that is empty, too long or contains a NUL is `EINVAL` without a
/// syscall.
fn ifreq(fd: RawFd, name: &str, req: libc::c_ulong) -> io::Result<[u8; 24]> {
    let mut ifr = IfReq {
        name: [0; libc::IFNAMSIZ],
        data: [0; 24],
    };
    let b = name.as_bytes();
    if b.is_empty() || b.len() >= libc::IFNAMSIZ || b.contains(&0) {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    ifr.name[..b.len()].copy_from_slice(b);
    // SAFETY: ifr is a properly sized, NUL-terminated struct ifreq for these SIOCGIF*
    // requests, which only write into it; an invalid fd makes the ioctl fail (EBADF).
    cvt(unsafe { libc::ioctl(fd, req as _, &mut ifr as *mut IfReq) })?;
    Ok(ifr.data)
}

/// `SIOCGIFINDEX`.
pub(crate) fn ifindex(fd: RawFd, name: &str) -> io::Result<i32> {
    let d = ifreq(fd, name, libc::SIOCGIFINDEX as libc::c_ulong)?;
    Ok(i32::from_ne_bytes([d[0], d[1], d[2], d[3]]))
}

/// `SIOCGIFFLAGS` (`IFF_*`).
pub(crate) fn if_flags(fd: RawFd, name: &str) -> io::Result<u32> {
    let d = ifreq(fd, name, libc::SIOCGIFFLAGS as libc::c_ulong)?;
    Ok(u16::from_ne_bytes([d[0], d[1]]) as u32)
}

/// `SIOCGIFMTU`.
pub(crate) fn mtu(fd: RawFd, name: &str) -> io::Result<u32> {
    let d = ifreq(fd, name, libc::SIOCGIFMTU as libc::c_ulong)?;
    Ok(i32::from_ne_bytes([d[0], d[1], d[2], d[3]]).max(0) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_names_are_einval_without_a_syscall() {
        for n in ["", "a\0b", "0123456789abcdefg"] {
            let e = ifindex(-1, n).unwrap_err();
            assert_eq!(e.raw_os_error(), Some(libc::EINVAL), "{n:?}");
        }
        // a good name reaches the ioctl, which fails on the bad fd
        assert_eq!(mtu(-1, "lo").unwrap_err().raw_os_error(), Some(libc::EBADF));
    }
}
