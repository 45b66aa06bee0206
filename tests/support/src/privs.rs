//! What the privilege tests of `canopy-switch` and `canopyd` read: the user `nobody`
//! and a process's credentials and capabilities per thread, from `/proc`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `nobody`'s uid and gid.
pub const NOBODY: u32 = 65534;

/// Whether the user `nobody` exists as 65534:65534.
pub fn nobody_exists() -> bool {
    Command::new("getent")
        .args(["passwd", "nobody"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(":65534:65534:"))
        .unwrap_or(false)
}

/// Give `path` to `nobody` (a scratch directory a process that becomes nobody must
/// still reach: to connect to sockets in it, and to remove its own at exit).
pub fn give_to_nobody(path: &Path) {
    std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY))
        .unwrap_or_else(|e| panic!("chown {} to nobody: {e}", path.display()));
}

/// The `Name:\tvalue` lines of /proc/`pid`/task/`tid`/status, for every thread.
pub fn thread_status(pid: u32) -> Vec<BTreeMap<String, String>> {
    let mut out = vec![];
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).expect("/proc/PID/task") {
        let p = t.unwrap().path().join("status");
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue; // a thread that ended meanwhile
        };
        out.push(
            text.lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.to_string(), v.trim().to_string()))
                .collect(),
        );
    }
    assert!(!out.is_empty());
    out
}

/// A capability mask as /proc shows it (hex).
pub fn hex_caps(v: &str) -> u64 {
    u64::from_str_radix(v, 16).unwrap_or_else(|_| panic!("{v} is not hex"))
}
