//! Child processes of a test, and polling.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A child process whose stderr goes to a log file; SIGKILLed and reaped on drop (also
/// when the test panics).
pub struct Proc {
    child: Option<Child>,
    /// Its stderr.
    pub log: PathBuf,
    /// When it was spawned.
    pub started: Instant,
}

impl Proc {
    /// `program args` with stdin and stdout closed.
    pub fn spawn(program: &Path, args: &[&str], log: PathBuf) -> Proc {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::null()).stdout(Stdio::null());
        Self::spawn_cmd(cmd, log)
    }

    /// `cmd` as it is set up, its stderr to `log`.
    pub fn spawn_cmd(mut cmd: Command, log: PathBuf) -> Proc {
        cmd.stderr(std::fs::File::create(&log).expect("create the log file"));
        let started = Instant::now();
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {:?}: {e}", cmd.get_program()));
        Proc {
            child: Some(child),
            log,
            started,
        }
    }

    fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("the process was not reaped")
    }

    pub fn pid(&self) -> u32 {
        self.child
            .as_ref()
            .expect("the process was not reaped")
            .id()
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Its exit status once it has exited.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child().try_wait().expect("try_wait")
    }

    /// Panic with the log if the process has exited.
    pub fn check_alive(&mut self, what: &str) {
        if let Some(st) = self.try_wait() {
            panic!("{what} exited ({st}): {}", self.log_text());
        }
    }

    /// Poll `f` every 10 ms while the process runs until it returns `Some`; panics with
    /// the process's log when it exits first or after `secs`.
    pub fn wait_alive<T>(&mut self, secs: f64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        loop {
            if let Some(v) = f() {
                return v;
            }
            if let Some(st) = self.try_wait() {
                panic!("exited ({st}) before {what}: {}", self.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "timed out after {secs} s: {what}: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Send `sig` (e.g. "STOP", "CONT", "TERM") with `kill`.
    pub fn signal(&self, sig: &str) {
        let pid = self.pid();
        let st = Command::new("kill")
            .args([&format!("-{sig}"), &pid.to_string()])
            .status()
            .expect("run kill");
        assert!(st.success(), "kill -{sig} {pid}");
    }

    /// SIGKILL and reap.
    pub fn kill(mut self) {
        let mut c = self.child.take().expect("the process was not reaped");
        c.kill().expect("SIGKILL");
        c.wait().expect("reap");
    }

    /// SIGTERM, wait up to 20 s for the exit: its status and stdout (when piped).
    pub fn terminate(mut self) -> (ExitStatus, String) {
        self.signal("TERM");
        let status = wait_for(20.0, "an exit after SIGTERM", || self.try_wait());
        let mut out = String::new();
        if let Some(mut o) = self.child().stdout.take() {
            o.read_to_string(&mut out).expect("read stdout");
        }
        (status, out)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Poll `f` every 10 ms until it returns `Some`, or panic after `secs` naming `what`.
pub fn wait_for<T>(secs: f64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {secs} s: {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The last `n` lines of `s`.
pub fn tail(s: &str, n: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(n)..].join("\n")
}
