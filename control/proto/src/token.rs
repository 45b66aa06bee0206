//! The token file of a TCP management endpoint: the switch's `[management]
//! token_file`, and the copy a client (`canopy-switch ctl --token-file`, `canopyd`'s
//! `token_file`) reads. One rule for all of them, so a token readable by other users is
//! refused wherever it is read.

use std::path::{Path, PathBuf};
use thiserror::Error;

/// Shortest accepted token (bytes, after trimming).
pub const MIN_TOKEN_BYTES: usize = 16;
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
    /// Not UTF-8 text.
    #[error("{}: the token is not UTF-8 text (it travels in a JSON string)", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
}

/// Read a token file (the switch's `token_file`, or a client's copy). It must be a
/// regular file that neither group nor others may read or write (mode `0600` or
/// `0400`), of at most [`MAX_TOKEN_FILE_BYTES`], whose content trimmed of surrounding
/// whitespace is UTF-8 text of at least [`MIN_TOKEN_BYTES`] bytes.
pub fn read_token_file(f: &Path) -> Result<Vec<u8>, TokenError> {
    use std::io::Read;
    let path = || f.to_path_buf();
    let read = |error| TokenError::Read {
        path: path(),
        error,
    };
    // one open: the mode checked is the mode of the file read
    let file = std::fs::File::open(f).map_err(read)?;
    let meta = file.metadata().map_err(read)?;
    if !meta.is_file() {
        return Err(TokenError::NotRegular { path: path() });
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
    Ok(token.to_vec())
}
