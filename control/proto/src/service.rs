//! Telling the service manager how a server is doing: systemd's `sd_notify` protocol
//! (`Type=notify` units), through the `sd-notify` crate. `canopy-switch` says `READY=1`
//! once its ports are open, its tables (if its configuration has them) are loaded and
//! its management endpoints listen; `canopyd` once every switch has answered and runs
//! current tables, or its `ready_wait_ms` has passed (`docs/ops-systemd.md`). Both send
//! `STATUS=` lines that `systemctl status` shows, and `STOPPING=1` on SIGTERM.
//!
//! Without `$NOTIFY_SOCKET` (not started by systemd, or by a unit of another type) every
//! call does nothing. A notification that cannot be sent is logged once per kind and
//! otherwise ignored: the service manager's bookkeeping never stops a server.

use sd_notify::NotifyState;

/// Whether the process was started with `$NOTIFY_SOCKET`, i.e. by systemd for a unit
/// that listens to notifications.
pub fn supervised() -> bool {
    std::env::var_os("NOTIFY_SOCKET").is_some()
}

fn send(what: &str, states: &[NotifyState<'_>]) {
    if !supervised() {
        return;
    }
    // `false`: keep $NOTIFY_SOCKET, later notifications (STATUS, STOPPING) need it
    if let Err(e) = sd_notify::notify(false, states) {
        tracing::warn!(error = %e, "cannot tell systemd {what}");
    }
}

/// `READY=1` with a status line: the server does what it is for.
pub fn ready(status: &str) {
    send(
        "the service is ready",
        &[NotifyState::Ready, NotifyState::Status(&one_line(status))],
    );
}

/// A `STATUS=` line (shown by `systemctl status`).
pub fn status(status: &str) {
    send("the status", &[NotifyState::Status(&one_line(status))]);
}

/// `STOPPING=1`: the server is shutting down.
pub fn stopping() {
    send(
        "the service is stopping",
        &[NotifyState::Stopping, NotifyState::Status("stopping")],
    );
}

/// A status fit for one `STATUS=` line: no newline (it would end the assignment), at
/// most 200 bytes.
fn one_line(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if out.len() > 200 {
        let mut cut = 200;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixDatagram;

    #[test]
    fn status_lines_are_one_bounded_line() {
        assert_eq!(one_line("a\nb\tc"), "a b c");
        let long = "é".repeat(300);
        let s = one_line(&long);
        assert!(s.len() <= 200 && s.chars().all(|c| c == 'é'), "{}", s.len());
    }

    /// What a supervised process sends, read from a socket standing in for systemd's.
    /// (One test touches the environment, so no other test races it.)
    #[test]
    fn notifications_reach_the_notify_socket() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let sock = UnixDatagram::bind(&path).unwrap();
        sock.set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        // the environment is the process's: this is the only test that sets it
        std::env::set_var("NOTIFY_SOCKET", &path);
        ready("serving\nnow");
        status("2 of 3 up");
        stopping();
        std::env::remove_var("NOTIFY_SOCKET");
        let mut buf = [0u8; 512];
        let mut got = Vec::new();
        for _ in 0..3 {
            let n = sock.recv(&mut buf).unwrap();
            got.push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        assert_eq!(got[0], "READY=1\nSTATUS=serving now\n");
        assert_eq!(got[1], "STATUS=2 of 3 up\n");
        assert_eq!(got[2], "STOPPING=1\nSTATUS=stopping\n");
        // not supervised: nothing is sent
        ready("x");
        sock.set_nonblocking(true).unwrap();
        assert!(sock.recv(&mut buf).is_err());
    }
}
