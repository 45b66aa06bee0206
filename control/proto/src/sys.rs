//! The FFI the management protocols need: the process umask around `bind`, so a Unix
//! socket (the switch's management socket, `canopyd`'s control socket) is created with
//! mode 0600 by `bind` itself, with no window where it is wider; and the effective uid
//! a token file's owner is checked against.
#![allow(unsafe_code)]

use std::os::unix::net::UnixListener;
use std::path::Path;

/// Set the process umask and return the previous one.
fn umask(mask: u32) -> u32 {
    // SAFETY: umask(2) only swaps the process's file-mode creation mask; it cannot fail
    // and touches no memory of ours.
    unsafe { libc::umask(mask as libc::mode_t) as u32 }
}

/// The process's effective user id.
pub fn euid() -> u32 {
    // SAFETY: geteuid(2) takes nothing, touches no memory of ours and cannot fail.
    unsafe { libc::geteuid() }
}

/// Bind a Unix stream socket at `path` created with mode 0600 (umask 0177 during the
/// `bind`, the previous umask restored after it).
pub fn bind_private(path: &Path) -> std::io::Result<UnixListener> {
    let old = umask(0o177);
    let bound = UnixListener::bind(path);
    umask(old);
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_socket_is_created_0600() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.sock");
        let _l = bind_private(&p).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
