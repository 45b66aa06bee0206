//! The token file of a TCP management endpoint: the switch's `[management]
//! token_file`, and the copy a client (`canopy-switch ctl --token-file`, `canopyd`'s
//! `token_file`) reads. One rule for all of them, so a token readable by other users is
//! refused wherever it is read.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Shortest accepted token (bytes, after trimming).
pub const MIN_TOKEN_BYTES: usize = 16;
/// Least strength of a token, in bits by [`strength_bits`].
pub const MIN_TOKEN_BITS: u32 = 64;
/// Longest accepted token file (bytes): a token is a line, not a document.
pub const MAX_TOKEN_FILE_BYTES: u64 = 4096;

/// Why a token file was refused; the message starts with the file's path.
#[derive(Debug, Error)]
pub enum TokenError {
    /// Opening or reading failed.
    #[error("{}: cannot read: {error}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// Not a regular file.
    #[error("{}: is not a regular file", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// Group or others may access it.
    #[error(
        "{}: mode {mode:04o} lets group or others access the token; run `chmod 600 {}`",
        path.display(),
        path.display()
    )]
    Mode {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Larger than [`MAX_TOKEN_FILE_BYTES`].
    #[error("{}: {size} bytes is more than a token file holds ({MAX_TOKEN_FILE_BYTES})", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least what was read).
        size: u64,
    },
    /// Nothing but whitespace.
    #[error("{}: is empty", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// Shorter than [`MIN_TOKEN_BYTES`].
    #[error(
        "{}: the token has {len} bytes; use at least {MIN_TOKEN_BYTES} (e.g. `openssl rand -hex 32`)",
        path.display()
    )]
    Short {
        /// The file.
        path: PathBuf,
        /// The token's length (bytes, trimmed).
        len: usize,
    },
    /// Owned by another user than the one reading it (or root).
    #[error("{}: owned by uid {owner}, not by this process's user (uid {reader}), the user it runs as, or root; run `chown` on it", path.display())]
    Owner {
        /// The file.
        path: PathBuf,
        /// Its owner.
        owner: u32,
        /// The reading process's effective uid.
        reader: u32,
    },
    /// Too little spread in its characters to be a secret.
    #[error(
        "{}: the token looks guessable (about {bits} bits by the spread of its characters; at least {MIN_TOKEN_BITS} are needed, e.g. `openssl rand -hex 32`)",
        path.display()
    )]
    Weak {
        /// The file.
        path: PathBuf,
        /// The estimate.
        bits: u32,
    },
    /// Not UTF-8 text.
    #[error("{}: the token is not UTF-8 text (it travels in a JSON string)", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
}

/// A token's strength in bits as its characters' spread shows it: its length times the
/// Shannon entropy of its byte frequencies (16 identical bytes: 0; `openssl rand -hex
/// 32`: about 250). A cheap guard against placeholders and keyboard runs, not a proof
/// of randomness.
pub fn strength_bits(token: &[u8]) -> u32 {
    let mut count = [0u32; 256];
    for &b in token {
        count[usize::from(b)] += 1;
    }
    let n = token.len() as f64;
    let h: f64 = count
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum();
    (h * n) as u32
}

/// Read a token file (the switch's `token_file`, or a client's copy). It must be a
/// regular file (a FIFO or a device is refused without blocking on it) owned by the
/// reading user, root, or `runs_as` (the user a process that starts as root becomes),
/// that neither group nor others may read or write (mode `0600`
/// or `0400`), of at most [`MAX_TOKEN_FILE_BYTES`], whose content trimmed of
/// surrounding whitespace is UTF-8 text of at least [`MIN_TOKEN_BYTES`] bytes and
/// [`MIN_TOKEN_BITS`] by [`strength_bits`].
pub fn read_token_file(f: &Path, runs_as: Option<u32>) -> Result<Vec<u8>, TokenError> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let path = || f.to_path_buf();
    let read = |error| TokenError::Read {
        path: path(),
        error,
    };
    // one open, which does not wait for a FIFO's writer: the file checked is the
    // file read
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(f)
        .map_err(read)?;
    let meta = file.metadata().map_err(read)?;
    if !meta.is_file() {
        return Err(TokenError::NotRegular { path: path() });
    }
    let reader = crate::sys::euid();
    if meta.uid() != reader && meta.uid() != 0 && Some(meta.uid()) != runs_as {
        return Err(TokenError::Owner {
            path: path(),
            owner: meta.uid(),
            reader,
        });
    }
    let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
    if mode & 0o077 != 0 {
        return Err(TokenError::Mode {
            path: path(),
            mode: mode & 0o7777,
        });
    }
    let mut raw = Vec::new();
    file.take(MAX_TOKEN_FILE_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(read)?;
    if raw.len() as u64 > MAX_TOKEN_FILE_BYTES {
        return Err(TokenError::TooLarge {
            path: path(),
            size: meta.len().max(raw.len() as u64),
        });
    }
    let token = raw.trim_ascii();
    if token.is_empty() {
        return Err(TokenError::Empty { path: path() });
    }
    if token.len() < MIN_TOKEN_BYTES {
        return Err(TokenError::Short {
            path: path(),
            len: token.len(),
        });
    }
    if std::str::from_utf8(token).is_err() {
        return Err(TokenError::NotUtf8 { path: path() });
    }
    let bits = strength_bits(token);
    if bits < MIN_TOKEN_BITS {
        return Err(TokenError::Weak { path: path(), bits });
    }
    Ok(token.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(dir: &Path, body: &str, mode: u32) -> PathBuf {
        let p = dir.join("token");
        let _ = std::fs::remove_file(&p);
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn a_good_token_is_read_trimmed() {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "  cmt-test-token-0123456789abcdef\n", 0o600);
        assert_eq!(
            read_token_file(&p, None).unwrap(),
            b"cmt-test-token-0123456789abcdef"
        );
        let p = write(d.path(), "cmt-test-token-0123456789abcdef", 0o400);
        assert!(read_token_file(&p, None).is_ok());
    }

    #[test]
    fn guessable_tokens_are_refused() {
        let d = tempfile::tempdir().unwrap();
        for weak in [
            "aaaaaaaaaaaaaaaa",
            "abababababababababab",
            "0000000000000000000000000000000000000000",
            "1212121212121212",
        ] {
            let p = write(d.path(), weak, 0o600);
            let e = read_token_file(&p, None).unwrap_err();
            assert!(matches!(e, TokenError::Weak { .. }), "{weak}: {e}");
            assert!(e.to_string().contains("looks guessable"), "{e}");
        }
        assert_eq!(strength_bits(b"aaaaaaaaaaaaaaaa"), 0);
        assert!(strength_bits(b"0123456789abcdef") >= MIN_TOKEN_BITS);
        // what the docs tell operators to use is far above the bar
        let hex64: String = (0..64)
            .map(|i| b"0123456789abcdef"[(i * 7 + i / 5) % 16] as char)
            .collect();
        assert!(
            strength_bits(hex64.as_bytes()) > 200,
            "{}",
            strength_bits(hex64.as_bytes())
        );
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        let st = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .unwrap();
        assert!(st.success());
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let q = p.clone();
        std::thread::spawn(move || tx.send(read_token_file(&q, None).map_err(|e| e.to_string())));
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("reading a FIFO token file returned at once");
        let e = r.unwrap_err();
        assert!(e.contains("is not a regular file"), "{e}");
    }

    #[test]
    fn a_file_of_another_user_is_refused() {
        if crate::sys::euid() != 0 {
            eprintln!("skipped: giving a file to another user needs root");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), "cmt-test-token-0123456789abcdef", 0o600);
        std::os::unix::fs::chown(&p, Some(54321), None).unwrap();
        let e = read_token_file(&p, None).unwrap_err();
        assert!(matches!(e, TokenError::Owner { owner: 54321, .. }), "{e}");
        // unless the process becomes that user
        assert!(read_token_file(&p, Some(54321)).is_ok());
        // root's own file is fine for any reader
        std::os::unix::fs::chown(&p, Some(0), None).unwrap();
        assert!(read_token_file(&p, None).is_ok());
    }
}
