//! canopyd under systemd (`Type=notify`, `docs/ops-systemd.md`): `READY=1` once every
//! switch has answered and runs the tables canopyd wants (what `/readyz` answers), or
//! once `[daemon] ready_wait_ms` has passed, whichever comes first, so `systemctl start
//! canopyd` returns when the fabric is programmed and a unit ordered after canopyd
//! starts on a working fabric; a switch that never comes does not hold the start
//! forever. Then a `STATUS=` line whenever the fabric's state changes (`systemctl
//! status canopyd`: "fabric lab: 20/20 switches up, 20 current, ready").

use crate::run::DaemonHandle;
use canopy_proto::service;
use canopy_proto::snapshot::FabricSnapshot;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the fabric's state is looked at.
const TICK: Duration = Duration::from_millis(100);

/// The notifying thread; stopped (and joined) on drop.
pub struct Notifier {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Notifier {
    /// Start notifying systemd about `h`'s fabric; None when canopyd was not started by
    /// systemd with a notify socket (nothing to tell).
    pub fn start(h: DaemonHandle, wait: Duration) -> std::io::Result<Option<Notifier>> {
        if !service::supervised() {
            return Ok(None);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("canopyd-notify".into())
            .spawn(move || notify_loop(&h, wait, &flag))?;
        Ok(Some(Notifier {
            stop,
            thread: Some(thread),
        }))
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn notify_loop(h: &DaemonHandle, wait: Duration, stop: &AtomicBool) {
    let t0 = Instant::now();
    let mut said_ready = false;
    let mut last = String::new();
    while !stop.load(Ordering::Relaxed) {
        let snap = h.snapshot();
        let line = summary(&snap);
        if !said_ready && (snap.ready || t0.elapsed() >= wait) {
            let why = if snap.ready {
                String::new()
            } else {
                format!(" (not ready after {} ms: ready_wait_ms)", wait.as_millis())
            };
            service::ready(&format!("{line}{why}"));
            said_ready = true;
            last = line;
        } else if said_ready && line != last {
            service::status(&line);
            last = line;
        }
        std::thread::sleep(TICK);
    }
}

/// One line on the fabric: switches up and current, ready or not.
pub fn summary(s: &FabricSnapshot) -> String {
    let n = s.switches.len();
    let up = s.switches.iter().filter(|w| w.up).count();
    let current = s
        .switches
        .iter()
        .filter(|w| w.up && w.tables_current)
        .count();
    format!(
        "fabric {}: {up}/{n} switches up, {current} current, {}",
        s.fabric,
        if s.ready { "ready" } else { "not ready" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::tests::sample;

    #[test]
    fn summary_counts_up_and_current() {
        let mut s = sample(1);
        assert_eq!(
            summary(&s),
            "fabric lab: 1/2 switches up, 1 current, not ready"
        );
        s.switches[1].up = true;
        s.switches[1].tables_current = true;
        s.ready = true;
        assert_eq!(summary(&s), "fabric lab: 2/2 switches up, 2 current, ready");
    }
}
