//! Checks on a running engine shared by the backend tests.
#![allow(dead_code)] // each test binary uses a subset

use canopy_dataplane::engine::{counters, PortStats};
use std::time::{Duration, Instant};

/// Every frame received was sent or counted as a drop.
pub fn conserves(s: &[PortStats]) {
    let (rx, tx, dropped) = counters::totals(s);
    assert_eq!(rx, tx + dropped, "rx = tx + drops: {s:#?}");
}

/// Poll `f` every 2 ms until it holds; fail after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}
