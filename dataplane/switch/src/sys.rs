//! The switch's own FFI: `setns` into a named network namespace (a shared host opens
//! each switch's ports in its namespace). Giving up privileges is `canopy-privs`'s
//! (its `sys` module); the management socket is created 0600 by
//! `canopy_proto::sys::bind_private`, shared with `canopyd`.
#![allow(unsafe_code)]

use std::io;

/// Move the calling thread into the network namespace `/run/netns/NAME` (as `ip netns
/// exec` enters it); needs `CAP_SYS_ADMIN`. Only the calling thread moves: a shared
/// host opens each switch's ports on a short-lived thread that entered its namespace.
pub fn enter_netns(name: &str) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(std::path::Path::new("/run/netns").join(name))?;
    // SAFETY: plain syscall on an fd we own for the duration of the call; the kernel
    // checks that it is a network namespace.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
