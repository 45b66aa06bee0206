//! The FFI of giving up privileges: user and group look-ups (`getpwnam_r`,
//! `getgrnam_r`, `getpwuid_r`), `setgroups`/`setresgid`/`setresuid`,
//! `capget`/`capset` and the capability and `no_new_privs` `prctl`s.
//!
//! These are thin wrappers over `libc` rather than the `caps` crate: dropping privileges
//! needs six system calls and a bit mask, and the look-ups and the identity calls need
//! `libc` anyway. Every function here acts on the calling thread only, except
//! `setgroups`/`setresgid`/`setresuid`, which glibc applies to every thread of the
//! process (POSIX semantics).
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use std::io;

/// A user from the password database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// User id.
    pub uid: u32,
    /// Primary group id.
    pub gid: u32,
}

/// Look up user `name` (`Ok(None)`: no such user).
pub fn user_by_name(name: &str) -> io::Result<Option<User>> {
    let Ok(c) = CString::new(name) else {
        return Ok(None);
    };
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: `passwd` is plain data that getpwnam_r fills; an all-zero value is valid.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut out: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the call: `c` is NUL-terminated, `pw` and
        // `out` are live locals, `buf` is writable for `buf.len()` bytes.
        let r = unsafe {
            libc::getpwnam_r(
                c.as_ptr(),
                &mut pw,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut out,
            )
        };
        match r {
            0 if out.is_null() => return Ok(None),
            0 => {
                return Ok(Some(User {
                    uid: pw.pw_uid,
                    gid: pw.pw_gid,
                }))
            }
            libc::ERANGE if buf.len() < 1 << 20 => buf.resize(buf.len() * 2, 0),
            // "not found" is reported as one of these by some NSS modules
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            e => return Err(io::Error::from_raw_os_error(e)),
        }
    }
}

/// Look up group `name`'s id (`Ok(None)`: no such group).
pub fn group_by_name(name: &str) -> io::Result<Option<u32>> {
    let Ok(c) = CString::new(name) else {
        return Ok(None);
    };
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: `group` is plain data that getgrnam_r fills; an all-zero value is valid.
        let mut gr: libc::group = unsafe { std::mem::zeroed() };
        let mut out: *mut libc::group = std::ptr::null_mut();
        // SAFETY: as in `user_by_name`: valid, live pointers and a writable buffer.
        let r = unsafe {
            libc::getgrnam_r(
                c.as_ptr(),
                &mut gr,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut out,
            )
        };
        match r {
            0 if out.is_null() => return Ok(None),
            0 => return Ok(Some(gr.gr_gid)),
            libc::ERANGE if buf.len() < 1 << 20 => buf.resize(buf.len() * 2, 0),
            libc::ENOENT | libc::ESRCH | libc::EBADF | libc::EPERM => return Ok(None),
            e => return Err(io::Error::from_raw_os_error(e)),
        }
    }
}

/// The name of the user `uid` (for messages; None if it has none).
pub fn user_name(uid: u32) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: `passwd` is plain data; an all-zero value is valid.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: valid, live pointers and a writable buffer of `buf.len()` bytes.
    let r = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    if r != 0 || out.is_null() || pw.pw_name.is_null() {
        return None;
    }
    // SAFETY: on success pw_name points to a NUL-terminated string inside `buf`.
    let name = unsafe { CStr::from_ptr(pw.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

/// Real, effective and saved user ids; the same for groups.
pub fn ids() -> ([u32; 3], [u32; 3]) {
    let (mut ru, mut eu, mut su) = (0, 0, 0);
    let (mut rg, mut eg, mut sg) = (0, 0, 0);
    // SAFETY: the out-pointers are live locals; these calls cannot fail with them.
    unsafe {
        libc::getresuid(&mut ru, &mut eu, &mut su);
        libc::getresgid(&mut rg, &mut eg, &mut sg);
    }
    ([ru, eu, su], [rg, eg, sg])
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Set the supplementary groups to exactly `groups` (every thread).
pub fn setgroups(groups: &[u32]) -> io::Result<()> {
    // SAFETY: the pointer is valid for `groups.len()` gid_t values (u32 on Linux).
    check(unsafe { libc::setgroups(groups.len(), groups.as_ptr()) })
}

/// Set the real, effective and saved group id to `gid` (every thread).
pub fn setresgid(gid: u32) -> io::Result<()> {
    // SAFETY: no pointers; the kernel checks the privilege.
    check(unsafe { libc::setresgid(gid, gid, gid) })
}

/// Set the real, effective and saved user id to `uid` (every thread).
pub fn setresuid(uid: u32) -> io::Result<()> {
    // SAFETY: no pointers; the kernel checks the privilege.
    check(unsafe { libc::setresuid(uid, uid, uid) })
}

/// A prctl with integer arguments.
fn prctl(op: libc::c_int, a: libc::c_ulong, b: libc::c_ulong) -> io::Result<libc::c_int> {
    // SAFETY: the options used here take integer arguments only (no pointers).
    let r = unsafe { libc::prctl(op, a, b, 0 as libc::c_ulong, 0 as libc::c_ulong) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// `PR_SET_KEEPCAPS`: keep the permitted capabilities across the change of user id
/// (calling thread).
pub fn set_keepcaps(on: bool) -> io::Result<()> {
    prctl(libc::PR_SET_KEEPCAPS, on.into(), 0).map(drop)
}

/// `PR_SET_NO_NEW_PRIVS` (calling thread, inherited by the threads it starts).
pub fn set_no_new_privs() -> io::Result<()> {
    prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0).map(drop)
}

/// `PR_CAPBSET_READ`: whether `cap` is in the bounding set (`Err` for an unknown cap).
pub fn bounding_has(cap: u32) -> io::Result<bool> {
    prctl(libc::PR_CAPBSET_READ, cap.into(), 0).map(|r| r == 1)
}

/// `PR_CAPBSET_DROP` (needs `CAP_SETPCAP`; calling thread).
pub fn bounding_drop(cap: u32) -> io::Result<()> {
    prctl(libc::PR_CAPBSET_DROP, cap.into(), 0).map(drop)
}

/// `PR_CAP_AMBIENT_CLEAR_ALL` (calling thread).
pub fn ambient_clear() -> io::Result<()> {
    prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
        0,
    )
    .map(drop)
}

/// Capability sets as 64-bit masks (bit `n` = capability `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CapSets {
    /// Effective.
    pub effective: u64,
    /// Permitted.
    pub permitted: u64,
    /// Inheritable.
    pub inheritable: u64,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The calling thread's capability sets (`capget`).
pub fn capget() -> io::Result<CapSets> {
    let mut h = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut d = [CapData::default(); 2];
    // SAFETY: version 3 takes a header and two data structs, both live and writable.
    let r = unsafe { libc::syscall(libc::SYS_capget, &mut h as *mut CapHeader, d.as_mut_ptr()) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let join = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    Ok(CapSets {
        effective: join(d[0].effective, d[1].effective),
        permitted: join(d[0].permitted, d[1].permitted),
        inheritable: join(d[0].inheritable, d[1].inheritable),
    })
}

/// Set the calling thread's capability sets (`capset`); the permitted set can only
/// shrink, the effective must be a subset of the new permitted.
pub fn capset(s: CapSets) -> io::Result<()> {
    let mut h = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let split = |m: u64| (m as u32, (m >> 32) as u32);
    let (e0, e1) = split(s.effective);
    let (p0, p1) = split(s.permitted);
    let (i0, i1) = split(s.inheritable);
    let d = [
        CapData {
            effective: e0,
            permitted: p0,
            inheritable: i0,
        },
        CapData {
            effective: e1,
            permitted: p1,
            inheritable: i1,
        },
    ];
    // SAFETY: version 3 takes a header and two data structs, both live; capset only
    // reads the data.
    let r = unsafe { libc::syscall(libc::SYS_capset, &mut h as *mut CapHeader, d.as_ptr()) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
