//! Files and directories only their owner may read (0600 / 0700): a fabric's state
//! directories and everything the testbed writes into them (the state file, generated
//! configurations, logs), and the reports, which name paths of the machine.

use std::fs::{DirBuilder, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of a private file.
pub const FILE_MODE: u32 = 0o600;
/// Mode of a private directory.
pub const DIR_MODE: u32 = 0o700;

/// Create `dir` and its missing ancestors, each created with mode 0700. Directories that
/// were there already keep their mode (a report may go into the user's own directory).
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    DirBuilder::new().recursive(true).mode(DIR_MODE).create(dir)
}

/// Make the directory `dir`, which this tool owns, private (0700) whatever it was.
pub fn restrict_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::set_permissions(dir, Permissions::from_mode(DIR_MODE))
}

/// Write `bytes` to `path`, created with mode 0600 and replaced if it exists (a file that
/// was there is made 0600 before anything is written to it).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut f = open(path, false)?;
    f.write_all(bytes.as_ref())
}

/// Open `path` for writing, created with mode 0600 (0600 also when it was there):
/// truncated, or appended to.
pub fn open(path: &Path, append: bool) -> std::io::Result<std::fs::File> {
    let f = OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .mode(FILE_MODE)
        .open(path)?;
    f.set_permissions(Permissions::from_mode(FILE_MODE))?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn files_and_directories_are_private_and_existing_directories_keep_their_mode() {
        let t = tempfile::tempdir().unwrap();
        let top = t.path().join("a");
        create_dir_all(&top.join("b/c")).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&t.path().join(d)), DIR_MODE, "{d}");
        }
        // a directory that was there keeps its mode, unless restricted
        std::fs::set_permissions(&top, Permissions::from_mode(0o755)).unwrap();
        create_dir_all(&top.join("b/d")).unwrap();
        assert_eq!(mode(&top), 0o755);
        restrict_dir(&top).unwrap();
        assert_eq!(mode(&top), DIR_MODE);
        // a new file, and one that was there with a wider mode
        let f = top.join("f");
        write(&f, "x").unwrap();
        assert_eq!(mode(&f), FILE_MODE);
        std::fs::set_permissions(&f, Permissions::from_mode(0o644)).unwrap();
        write(&f, "yz").unwrap();
        assert_eq!(
            (mode(&f), std::fs::read_to_string(&f).unwrap()),
            (FILE_MODE, "yz".into())
        );
        let mut a = open(&f, true).unwrap();
        a.write_all(b"!").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "yz!");
    }
}
