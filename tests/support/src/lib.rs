//! What the integration tests of the Canopy crates share, in one place: a scratch
//! directory ([`Dir`]), this build's binaries ([`bin`]), the skip when a test needs root
//! ([`root_or_skip`], [`netns_or_skip`]), child processes killed on drop ([`Proc`]) and
//! polling ([`wait_for`]), the user `nobody` and a process's credentials per thread
//! ([`privs`]); with the `switch` feature, switch configs, management
//! requests, the model's frames and decisions and the k=4 edge-switch fixture
//! ([`switch`]); with the `netns` feature, test namespaces over the testbed's ([`netns`]).
//!
//! A dev-dependency only: no library or binary of the workspace links it.

mod dir;
pub mod privs;
mod proc;
mod skip;
mod sys;

#[cfg(feature = "netns")]
pub mod netns;
#[cfg(feature = "switch")]
pub mod switch;

pub use dir::Dir;
pub use proc::{tail, wait_for, Proc};
pub use skip::{is_root, netns_or_skip, root_or_skip};

use std::path::{Path, PathBuf};

/// Return from the test unless it runs as root with `ip` (iproute2); [`netns_or_skip`]
/// prints the `SKIP` line. `netns_or_return!()` names the test binary and needs
/// "network namespaces and veths"; `netns_or_return!(test, needs)` says what it is given.
#[macro_export]
macro_rules! netns_or_return {
    () => {
        $crate::netns_or_return!(env!("CARGO_CRATE_NAME"), "network namespaces and veths")
    };
    ($test:expr, $needs:expr) => {
        if !$crate::netns_or_skip($test, $needs) {
            return;
        }
    };
}

/// A TCP port on the loopback address that is free now (the kernel's pick).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind a loopback port")
        .local_addr()
        .expect("its address")
        .port()
}

/// A binary of this build: the test executable sits in `target/<profile>/deps/`, the
/// binaries one level up (what `CARGO_BIN_EXE_<name>` names for the test's own package,
/// and where `cargo test --workspace` builds every other package's). Panics with what to
/// build when it is missing.
pub fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable is in target/<profile>/deps");
    let p = dir.join(name);
    assert!(
        p.is_file(),
        "{} is missing: build the binaries first (`cargo build --workspace --bins`, same \
         profile and CARGO_TARGET_DIR, or run `cargo test --workspace`, which builds them)",
        p.display()
    );
    p
}

/// Tests of one test binary that measure times or start whole fabrics run one at a
/// time under this lock: two at once on a small machine starve each other's probes
/// and timers (a soak at full rate beside a failover drill made canopyd late).
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static M: std::sync::Mutex<()> = std::sync::Mutex::new(());
    M.lock().unwrap_or_else(|p| p.into_inner())
}
