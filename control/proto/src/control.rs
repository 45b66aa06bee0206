//! `canopyd`'s control socket (`docs/canopyd.md`): newline-delimited JSON over a Unix
//! stream socket created 0600, the same framing as the switches' management protocol.
//! The requests and the parts of the replies that `canopyctl fabric` and
//! `canopy-testbed run` (traffic reports) read; the daemon serves them.

use crate::mgmt::CountersReport;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use strum::VariantNames;

/// Default control socket (`[daemon] control`, `canopyctl fabric --daemon`).
pub const DEFAULT_CONTROL: &str = "/run/canopyd/canopyd.sock";

/// Where `canopy-testbed` keeps a fabric's state by default, `<root>/<fabric>/<machine>/`;
/// the canopyd it starts for the fabric listens on `canopyd.sock` there.
pub const TESTBED_STATE_ROOT: &str = "/run/canopy-testbed";

/// The control sockets of the canopyd instances running on this machine: `default` (the
/// daemon's own default, [`DEFAULT_CONTROL`]) and every testbed fabric's
/// `<testbed_root>/*/*/canopyd.sock`, each only if something accepts connections on it (a
/// socket left by a daemon that died is not a daemon). Sorted, without duplicates.
pub fn running_daemons(default: &Path, testbed_root: &Path) -> Vec<PathBuf> {
    let mut candidates = vec![default.to_path_buf()];
    for fabric in subdirs(testbed_root) {
        for machine in subdirs(&fabric) {
            candidates.push(machine.join("canopyd.sock"));
        }
    }
    let mut found: Vec<PathBuf> = candidates
        .into_iter()
        .filter(|p| {
            let is_socket = p
                .symlink_metadata()
                .map(|m| m.file_type().is_socket())
                .unwrap_or(false);
            is_socket && std::os::unix::net::UnixStream::connect(p).is_ok()
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return vec![];
    };
    rd.flatten()
        .map(|e| e.path())
        .filter(|p| p.symlink_metadata().map(|m| m.is_dir()).unwrap_or(false))
        .collect()
}

/// No single running canopyd to talk to, where the caller named none.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FindDaemonError {
    /// Nothing listens where daemons are found.
    #[error("no running canopyd found (looked at {default} and {testbed_root}/*/*/canopyd.sock); is it running? --daemon gives its control socket")]
    None {
        /// The default control socket.
        default: String,
        /// The testbed's state root.
        testbed_root: String,
    },
    /// More than one.
    #[error("{} canopyd are running ({}); choose one with --daemon", .0.len(), .0.join(", "))]
    Several(Vec<String>),
}

/// The one running canopyd's control socket ([`running_daemons`]), or why there is none.
pub fn find_daemon(default: &Path, testbed_root: &Path) -> Result<PathBuf, FindDaemonError> {
    let mut found = running_daemons(default, testbed_root);
    match found.len() {
        0 => Err(FindDaemonError::None {
            default: default.display().to_string(),
            testbed_root: testbed_root.display().to_string(),
        }),
        1 => Ok(found.remove(0)),
        _ => Err(FindDaemonError::Several(
            found.iter().map(|p| p.display().to_string()).collect(),
        )),
    }
}

/// Every op of the control socket, for error messages: the names of [`Request`]'s variants
/// as they travel.
pub const OPS: &[&str] = Request::VARIANTS;

crate::op_tagged! {
    /// A request on the control socket. Its `op` is the variant's name in snake case, for
    /// serde (the wire) and for strum ([`OPS`], [`Request::op`]) alike.
    #[derive(Debug, Clone)]
    pub enum Request {
        /// Every switch and port, the daemon's view (`FabricSnapshot`) and the pruning
        /// warnings.
        Status {},
        /// Counters of one switch or of all.
        Counters {
            /// Switch name (default: all).
            #[serde(default)]
            switch: Option<String>,
        },
        /// Push the wanted tables again to one switch or all.
        Push {
            /// Switch name (default: all).
            #[serde(default)]
            switch: Option<String>,
        },
        /// Set a port down (drained first) or up.
        SetPort {
            /// Switch name.
            switch: String,
            /// Port number.
            port: u16,
            /// Up or down.
            up: bool,
        },
        /// A traffic generator's report of one trial.
        Traffic {
            /// Frames sent.
            sent: u64,
            /// Frames received.
            received: u64,
            /// Frames lost.
            lost: u64,
            /// Frames delivered to the wrong host.
            #[serde(default)]
            misdelivered: u64,
            /// One-way latency histogram: (nanoseconds, count) pairs.
            #[serde(default)]
            latency_ns: Vec<(u64, u64)>,
        },
        /// The handshake, as on a switch ([`crate::version`]).
        Hello {
            /// The client's [`crate::version::PROTOCOL_VERSION`].
            version: u32,
        },
    }
}

impl Request {
    /// The request's `op`.
    pub fn op(&self) -> &'static str {
        self.into()
    }
}

/// One switch's counters in a `counters` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SwitchCounters {
    /// Switch name.
    pub switch: String,
    /// Up (answering probes).
    pub up: bool,
    /// The last counters read (None while down or before the first read).
    pub counters: Option<CountersReport>,
}

/// One switch's result in a `push` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PushResult {
    /// Switch name.
    pub switch: String,
    /// Pushed.
    pub ok: bool,
    /// Why not.
    #[serde(default)]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_the_serialized_ops_of_every_variant() {
        let all = [
            Request::Status {},
            Request::Counters { switch: None },
            Request::Push {
                switch: Some("s".into()),
            },
            Request::SetPort {
                switch: "s".into(),
                port: 1,
                up: true,
            },
            Request::Traffic {
                sent: 1,
                received: 1,
                lost: 0,
                misdelivered: 0,
                latency_ns: vec![(1, 1)],
            },
            Request::Hello { version: 1 },
        ];
        crate::tests::ops_are_the_variants(&all, OPS, Request::op);
    }
}

#[cfg(test)]
mod find_tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn finds_the_one_listening_daemon_and_refuses_none_or_several() {
        let tmp = tempfile::tempdir().unwrap();
        let default = tmp.path().join("canopyd/canopyd.sock");
        let root = tmp.path().join("testbed");
        let none = find_daemon(&default, &root);
        assert!(
            matches!(none, Err(FindDaemonError::None { .. })),
            "{none:?}"
        );

        // a fabric's daemon
        let a = root.join("demo/local");
        std::fs::create_dir_all(&a).unwrap();
        let _la = UnixListener::bind(a.join("canopyd.sock")).unwrap();
        // a socket whose daemon died: the file stays, nothing accepts
        let b = root.join("old/local");
        std::fs::create_dir_all(&b).unwrap();
        drop(UnixListener::bind(b.join("canopyd.sock")).unwrap());
        assert!(b.join("canopyd.sock").exists());
        // a regular file where a socket would be
        let c = root.join("file/local");
        std::fs::create_dir_all(&c).unwrap();
        std::fs::write(c.join("canopyd.sock"), "").unwrap();
        assert_eq!(find_daemon(&default, &root), Ok(a.join("canopyd.sock")));

        // and the default one: two running, the caller must choose
        std::fs::create_dir_all(default.parent().unwrap()).unwrap();
        let _ld = UnixListener::bind(&default).unwrap();
        match find_daemon(&default, &root) {
            Err(FindDaemonError::Several(v)) => {
                assert_eq!(v.len(), 2, "{v:?}");
                let msg = FindDaemonError::Several(v).to_string();
                assert!(msg.contains("choose one with --daemon"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
    }
}
