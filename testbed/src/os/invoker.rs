//! Output that belongs to the user who ran `sudo`. The testbed runs as root (network
//! namespaces), but its reports (`canopy-demo/`, `canopy-report/`, …) are the invoking
//! user's: under `sudo`, what a command wrote is given back to `SUDO_UID`:`SUDO_GID`
//! when it ends, so the user can read, move and delete it without root.
//!
//! Only what the command itself created or rewrote changes hands: when the report
//! directory (or an ancestor of it) did not exist before, everything from that first
//! missing ancestor down; when it existed, only the root-owned entries below it that
//! were modified since the command started, never the directory itself. Links are not
//! followed. Nothing happens without `sudo` (no `SUDO_UID`), as a plain root login, or
//! when not root.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The user `sudo` was invoked by: `SUDO_UID` and `SUDO_GID`, when both parse and the
/// uid is not root's.
pub fn sudo_user() -> Option<(u32, u32)> {
    parse_ids(
        std::env::var("SUDO_UID").ok().as_deref(),
        std::env::var("SUDO_GID").ok().as_deref(),
    )
}

fn parse_ids(uid: Option<&str>, gid: Option<&str>) -> Option<(u32, u32)> {
    let uid: u32 = uid?.trim().parse().ok()?;
    let gid: u32 = gid?.trim().parse().ok()?;
    (uid != 0).then_some((uid, gid))
}

/// How far behind the fine clock a file's modification time may be (the kernel's
/// coarse clock lags it by up to a tick; 100 ms is ten ticks at 100 Hz).
const MTIME_LAG: std::time::Duration = std::time::Duration::from_millis(100);

/// A report directory to give back when the command ends: taken before the command
/// writes anything ([`OutputOwner::before`]), applied after ([`OutputOwner::give_back`]).
#[derive(Debug)]
pub struct OutputOwner {
    dir: PathBuf,
    /// The topmost ancestor of `dir` (or `dir` itself) that did not exist yet.
    created: Option<PathBuf>,
    start: SystemTime,
    to: Option<(u32, u32)>,
}

impl OutputOwner {
    /// Remember the state of `dir` before the command runs, for the `sudo` user (if any).
    pub fn before(dir: &Path) -> Self {
        Self::for_user(
            dir,
            if crate::os::sys::is_root() {
                sudo_user()
            } else {
                None
            },
        )
    }

    fn for_user(dir: &Path, to: Option<(u32, u32)>) -> Self {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut created = None;
        let mut p = Some(dir.as_path());
        while let Some(q) = p {
            if q.symlink_metadata().is_ok() {
                break;
            }
            created = Some(q.to_path_buf());
            p = q.parent();
        }
        // the kernel stamps files from its coarse clock (one tick, up to 10 ms, behind
        // the fine one `now` reads): a file written right after this instant can carry
        // an earlier time, so the start is taken a margin before it
        let start = SystemTime::now()
            .checked_sub(MTIME_LAG)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        OutputOwner {
            dir,
            created,
            start,
            to,
        }
    }

    /// Give what the command wrote to the `sudo` user. Returns how many entries changed
    /// owner; an entry that cannot be changed is reported on stderr and skipped (a
    /// report that stays root's is no reason to fail the command).
    pub fn give_back(&self) -> usize {
        let Some((uid, gid)) = self.to else {
            return 0;
        };
        let mut n = 0;
        match &self.created {
            Some(top) => walk(top, &mut |p, _| chown(p, uid, gid, &mut n)),
            None => {
                // the directory was there before: only what this command wrote into it
                let start = self.start;
                let mut visit = |p: &Path, m: &std::fs::Metadata| {
                    let fresh = m.modified().map(|t| t >= start).unwrap_or(false);
                    if m.uid() == 0 && fresh {
                        chown(p, uid, gid, &mut n);
                    }
                };
                if let Ok(rd) = std::fs::read_dir(&self.dir) {
                    for e in rd.flatten() {
                        walk(&e.path(), &mut visit);
                    }
                }
            }
        }
        n
    }
}

/// Visit `p` and, when it is a directory (not a link to one), everything below it.
fn walk(p: &Path, f: &mut dyn FnMut(&Path, &std::fs::Metadata)) {
    let Ok(m) = p.symlink_metadata() else {
        return;
    };
    f(p, &m);
    if m.is_dir() {
        if let Ok(rd) = std::fs::read_dir(p) {
            for e in rd.flatten() {
                walk(&e.path(), f);
            }
        }
    }
}

fn chown(p: &Path, uid: u32, gid: u32, n: &mut usize) {
    match std::os::unix::fs::lchown(p, Some(uid), Some(gid)) {
        Ok(()) => *n += 1,
        Err(e) => eprintln!("could not give {} to uid {uid}: {e}", p.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sudo_ids_parse_and_root_is_nobody_to_give_to() {
        assert_eq!(parse_ids(Some("1000"), Some("1001")), Some((1000, 1001)));
        assert_eq!(parse_ids(Some("0"), Some("0")), None);
        assert_eq!(parse_ids(None, Some("5")), None);
        assert_eq!(parse_ids(Some("x"), Some("5")), None);
    }

    fn owner(p: &Path) -> u32 {
        p.symlink_metadata().unwrap().uid()
    }

    #[test]
    fn gives_back_what_was_created_and_nothing_else() {
        if !crate::os::sys::is_root() {
            eprintln!("SKIP gives_back_what_was_created_and_nothing_else: needs root (chown)");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().to_path_buf();
        // a new report directory two levels deep: both levels change hands
        let out = base.join("new/report");
        let o = OutputOwner::for_user(&out, Some((4242, 4343)));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("results.json"), "{}").unwrap();
        assert_eq!(o.give_back(), 3);
        for p in [base.join("new"), out.clone(), out.join("results.json")] {
            assert_eq!(owner(&p), 4242, "{}", p.display());
        }
        assert_eq!(owner(&base), 0, "the existing parent stays root's");

        // an existing directory: only fresh root-owned entries, not the directory itself
        let old = base.join("old");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("keep"), "x").unwrap();
        let past = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(old.join("keep"))
            .unwrap()
            .set_modified(past)
            .unwrap();
        let o = OutputOwner::for_user(&old, Some((4242, 4343)));
        std::fs::write(old.join("report.md"), "#").unwrap();
        assert_eq!(o.give_back(), 1);
        assert_eq!(owner(&old.join("report.md")), 4242);
        assert_eq!(owner(&old.join("keep")), 0, "an older file stays as it was");
        assert_eq!(owner(&old), 0, "the existing directory stays as it was");

        // no sudo user: nothing changes
        let o = OutputOwner::for_user(&base.join("none"), None);
        std::fs::create_dir_all(base.join("none")).unwrap();
        assert_eq!(o.give_back(), 0);
        assert_eq!(owner(&base.join("none")), 0);
    }
}
