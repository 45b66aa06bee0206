//! The one piece of FFI the control plane needs: the process umask, so a Unix socket
//! (the switch's management socket, `canopyd`'s control socket) is created with mode
//! 0600 by `bind` itself, with no window where it is wider.
#![allow(unsafe_code)]

/// Set the process umask and return the previous one.
pub fn umask(mask: u32) -> u32 {
    // SAFETY: umask(2) only swaps the process's file-mode creation mask; it cannot fail
    // and touches no memory of ours.
    unsafe { libc::umask(mask as libc::mode_t) as u32 }
}
