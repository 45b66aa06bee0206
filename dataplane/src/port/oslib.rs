//! Small OS helpers shared by the kernel port backends' `sys` modules: the syscall
//! result check, the page size, `SO_ERROR`, and the interface queries `SIOCGIFINDEX`,
//! `SIOCGIFFLAGS` and `SIOCGIFMTU` on any socket, in that socket's network namespace.
#![allow(unsafe_code)] // sysconf, getsockopt and one ioctl on caller-owned sockets (SAFETY comments).

use std::io;
use std::os::fd::RawFd;

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

/// Read and clear socket `fd`'s pending error (`SO_ERROR`); 0 when none.
pub(crate) fn take_error(fd: RawFd) -> io::Result<i32> {
    let mut err: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: err and len are valid for writes of the advertised size; a bad fd fails.
    cvt(unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            (&mut err as *mut libc::c_int).cast::<libc::c_void>(),
            &mut len,
        )
    })?;
    Ok(err)
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
