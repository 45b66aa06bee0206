//! A Unix socket's path before binding: what may be there, and how long it may be.

use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Longest socket path `bind` takes: `sun_path` holds 108 bytes with the final NUL.
pub const MAX_SOCKET_PATH: usize = 107;

/// Why a socket path cannot be used; each message starts with the path.
#[derive(Debug, Error)]
pub enum SocketPathError {
    /// Longer than [`MAX_SOCKET_PATH`].
    #[error("{}: {len} bytes; a Unix socket path has at most {MAX_SOCKET_PATH}", path.display())]
    TooLong {
        /// The path.
        path: PathBuf,
        /// Its length in bytes.
        len: usize,
    },
    /// Another process accepts connections on it.
    #[error("{}: another process is serving on this socket (is one already running?)", path.display())]
    InUse {
        /// The path.
        path: PathBuf,
    },
    /// Something that is not a socket is there.
    #[error("{}: exists and is not a socket; refusing to replace it", path.display())]
    NotSocket {
        /// The path.
        path: PathBuf,
    },
    /// Inspecting, removing a stale socket or creating the directory failed.
    #[error("{}: cannot {what}: {source}", path.display())]
    Io {
        /// The path (or its directory).
        path: PathBuf,
        /// What was being done.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Check `path` is short enough for a socket.
pub fn check_socket_path(path: &Path) -> Result<(), SocketPathError> {
    let len = path.as_os_str().len();
    if len > MAX_SOCKET_PATH {
        return Err(SocketPathError::TooLong {
            path: path.to_path_buf(),
            len,
        });
    }
    Ok(())
}

/// Check, without changing anything, that a server could bind `path`: short enough,
/// and nothing there but a stale socket (for `--check`).
pub fn inspect_socket_path(path: &Path) -> Result<(), SocketPathError> {
    check_socket_path(path)?;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(source) => Err(SocketPathError::Io {
            path: path.to_path_buf(),
            what: "inspect it",
            source,
        }),
        Ok(m) if m.file_type().is_socket() => match UnixStream::connect(path) {
            Ok(_) => Err(SocketPathError::InUse {
                path: path.to_path_buf(),
            }),
            Err(_) => Ok(()),
        },
        Ok(_) => Err(SocketPathError::NotSocket {
            path: path.to_path_buf(),
        }),
    }
}

/// Undo a start that failed after [`prepare_socket`]: the socket at `path`, if bound,
/// and the directory `prepare_socket` made for it (only if it is empty then).
pub fn unprepare_socket(path: &Path, created_dir: Option<&Path>) {
    let _ = std::fs::remove_file(path);
    if let Some(d) = created_dir {
        let _ = std::fs::remove_dir(d);
    }
}

/// Make `path` ready for a socket: short enough; nothing there, or a stale socket
/// (nobody accepts on it), which is removed. A live socket or anything that is not a
/// socket (a regular file, a directory, a symbolic link) is refused and left as it is.
/// A missing parent directory is created with mode 0700 and returned (so a server that
/// runs as another user can be given it, and a failed start can remove it).
pub fn prepare_socket(path: &Path) -> Result<Option<PathBuf>, SocketPathError> {
    check_socket_path(path)?;
    let io = |p: &Path, what, source| SocketPathError::Io {
        path: p.to_path_buf(),
        what,
        source,
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                if !dir.exists() {
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(dir)
                        .map_err(|e| io(dir, "create the directory", e))?;
                    return Ok(Some(dir.to_path_buf()));
                }
            }
            Ok(None)
        }
        Err(e) => Err(io(path, "inspect it", e)),
        Ok(m) if m.file_type().is_socket() => match UnixStream::connect(path) {
            Ok(_) => Err(SocketPathError::InUse {
                path: path.to_path_buf(),
            }),
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                tracing::warn!(socket = %path.display(), "removing stale socket");
                std::fs::remove_file(path).map_err(|e| io(path, "remove the stale socket", e))?;
                Ok(None)
            }
            Err(e) => Err(io(path, "probe the socket", e)),
        },
        Ok(_) => Err(SocketPathError::NotSocket {
            path: path.to_path_buf(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_nothing_or_a_stale_socket_is_taken() {
        let d = tempfile::tempdir().unwrap();
        // nothing there, a missing directory created 0700
        let p = d.path().join("sub/s.sock");
        assert_eq!(prepare_socket(&p).unwrap(), Some(d.path().join("sub")));
        assert_eq!(prepare_socket(&p).unwrap(), None);
        // a regular file is refused and kept
        std::fs::write(&p, b"data").unwrap();
        let e = prepare_socket(&p).unwrap_err();
        assert!(matches!(e, SocketPathError::NotSocket { .. }), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"data");
        std::fs::remove_file(&p).unwrap();
        // a live socket is refused; a stale one removed
        let l = std::os::unix::net::UnixListener::bind(&p).unwrap();
        assert!(matches!(
            prepare_socket(&p),
            Err(SocketPathError::InUse { .. })
        ));
        drop(l);
        assert_eq!(prepare_socket(&p).unwrap(), None);
        assert!(!p.exists());
        // a symbolic link (even to a socket) is not a socket
        std::os::unix::fs::symlink("/dev/null", &p).unwrap();
        assert!(matches!(
            prepare_socket(&p),
            Err(SocketPathError::NotSocket { .. })
        ));
    }

    #[test]
    fn inspecting_changes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.sock");
        assert!(inspect_socket_path(&p).is_ok());
        std::fs::write(&p, b"data").unwrap();
        assert!(matches!(
            inspect_socket_path(&p),
            Err(SocketPathError::NotSocket { .. })
        ));
        std::fs::remove_file(&p).unwrap();
        let l = std::os::unix::net::UnixListener::bind(&p).unwrap();
        assert!(matches!(
            inspect_socket_path(&p),
            Err(SocketPathError::InUse { .. })
        ));
        drop(l);
        // stale: would be replaced, but is still there
        assert!(inspect_socket_path(&p).is_ok());
        assert!(p.exists());
    }

    #[test]
    fn a_path_longer_than_sun_path_is_refused() {
        let ok = PathBuf::from(format!("/{}", "a".repeat(MAX_SOCKET_PATH - 1)));
        assert!(check_socket_path(&ok).is_ok());
        let long = PathBuf::from(format!("/{}", "a".repeat(MAX_SOCKET_PATH)));
        let e = check_socket_path(&long).unwrap_err().to_string();
        assert!(
            e.contains("108 bytes; a Unix socket path has at most 107"),
            "{e}"
        );
    }
}
