//! Skips: a test that needs root (or a tool) prints one `SKIP <test>: <why>` line and
//! returns, so a run without root passes and says what it did not check.

use std::process::Command;

/// Whether the process runs as root.
pub fn is_root() -> bool {
    crate::sys::euid() == 0
}

/// Root: true; otherwise prints `SKIP <test>: needs root (<needs>)` and returns false.
pub fn root_or_skip(test: &str, needs: &str) -> bool {
    if is_root() {
        return true;
    }
    eprintln!("SKIP {test}: needs root ({needs})");
    false
}

/// Root and `ip` (iproute2), what every namespace test needs: true; otherwise prints
/// the `SKIP` line saying which is missing and returns false.
pub fn netns_or_skip(test: &str, needs: &str) -> bool {
    if !root_or_skip(test, needs) {
        return false;
    }
    if Command::new("ip").arg("-V").output().is_err() {
        eprintln!("SKIP {test}: `ip` (iproute2) not installed");
        return false;
    }
    true
}
