//! The token file of a TCP management endpoint: the switch's `[management]
//! token_file`, and the copy a client (`canopy-switch ctl --token-file`, `canopyd`'s
//! `token_file`) reads. One rule for all of them, so a token readable by other users is
//! refused wherever it is read.

use std::path::Path;

/// Shortest accepted token (bytes, after trimming).
pub const MIN_TOKEN_BYTES: usize = 16;
/// Longest accepted token file (bytes): a token is a line, not a document.
pub const MAX_TOKEN_FILE_BYTES: u64 = 4096;

/// Read a token file (the switch's `token_file`, or a client's copy). It must be a
/// regular file that neither group nor others may read or write (mode `0600` or
/// `0400`), of at most [`MAX_TOKEN_FILE_BYTES`], whose content trimmed of surrounding
/// whitespace is UTF-8 text of at least [`MIN_TOKEN_BYTES`] bytes. `Err` says which
/// file and what is wrong.
pub fn read_token_file(f: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let e = |what: String| format!("{}: {what}", f.display());
    // one open: the mode checked is the mode of the file read
    let file = std::fs::File::open(f).map_err(|x| e(format!("cannot read: {x}")))?;
    let meta = file
        .metadata()
        .map_err(|x| e(format!("cannot read: {x}")))?;
    if !meta.is_file() {
        return Err(e("is not a regular file".into()));
    }
    let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
    if mode & 0o077 != 0 {
        return Err(e(format!(
            "mode {:04o} lets group or others access the token; run `chmod 600 {}`",
            mode & 0o7777,
            f.display()
        )));
    }
    let mut raw = Vec::new();
    file.take(MAX_TOKEN_FILE_BYTES + 1)
        .read_to_end(&mut raw)
        .map_err(|x| e(format!("cannot read: {x}")))?;
    if raw.len() as u64 > MAX_TOKEN_FILE_BYTES {
        return Err(e(format!(
            "{} bytes is more than a token file holds ({MAX_TOKEN_FILE_BYTES})",
            meta.len().max(raw.len() as u64)
        )));
    }
    let token = raw.trim_ascii();
    if token.is_empty() {
        return Err(e("is empty".into()));
    }
    if token.len() < MIN_TOKEN_BYTES {
        return Err(e(format!(
            "the token has {} bytes; use at least {MIN_TOKEN_BYTES} (e.g. `openssl rand -hex 32`)",
            token.len()
        )));
    }
    if std::str::from_utf8(token).is_err() {
        return Err(e(
            "the token is not UTF-8 text (it travels in a JSON string)".into(),
        ));
    }
    Ok(token.to_vec())
}
