//! A shared switch host's control socket (`canopy-switch host`, `docs/shared-host.md`):
//! newline-delimited JSON over a Unix stream socket created 0600, the framing and the
//! `hello` handshake of the switches' management protocol. Each switch of the host
//! keeps its own management socket ([`crate::mgmt`]); this socket lists them and stops
//! or starts one while the others forward.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use strum::VariantNames;

/// The server name a host's `hello` answer carries.
pub const HOST: &str = "canopy-switch host";

/// Every op of [`HostRequest`], for error messages.
pub const HOST_OPS: &[&str] = HostRequest::VARIANTS;

crate::op_tagged! {
    /// A request to a host. Its `op` is the variant's name in snake case.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum HostRequest {
        /// The handshake ([`crate::version`]).
        Hello {
            /// The client's protocol version.
            version: u32,
        },
        /// The host's threads and every switch with its state ([`HostReport`]).
        Switches {},
        /// Stop one switch: its management socket is fenced and removed, its workers leave
        /// the host's threads (drained), its ports close. The others forward on.
        Stop {
            /// The switch's name (`[[switch]] name`).
            switch: String,
        },
        /// Start a stopped switch again from its configuration file (read again), in its
        /// namespace: ports, engine, management socket, as at the host's start.
        Start {
            /// The switch's name.
            switch: String,
        },
    }
}

impl HostRequest {
    /// The request's `op`.
    pub fn op(&self) -> &'static str {
        self.into()
    }
}

/// One switch of a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostSwitch {
    /// Its name (`[[switch]] name`).
    pub name: String,
    /// Forwarding now (false: stopped through the control socket).
    pub running: bool,
    /// Its configuration file.
    pub config: PathBuf,
    /// Its management socket.
    pub socket: PathBuf,
    /// The network namespace its ports are opened in (None: the host's).
    pub netns: Option<String>,
    /// Its ports.
    pub ports: usize,
    /// Times it was started (1 after the host's start; +1 per `start`).
    pub starts: u64,
}

/// The answer to `switches`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostReport {
    /// The host's process id.
    pub pid: u32,
    /// Its polling mode (`busy` or `adaptive`).
    pub mode: String,
    /// Its polling threads (named `canopy-h0`, `canopy-h1`, … in `/proc`).
    pub threads: usize,
    /// The CPUs they are pinned to (empty: not pinned).
    pub pin_cores: Vec<usize>,
    /// Ports each thread polls.
    pub load: Vec<usize>,
    /// Its switches, in configuration order.
    pub switches: Vec<HostSwitch>,
}

/// `switches`'s text view: the threads, then a line per switch.
pub fn format_host(r: &HostReport) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "host     pid {}, {} thread(s), mode {}{}, ports per thread {:?}",
        r.pid,
        r.threads,
        r.mode,
        if r.pin_cores.is_empty() {
            String::new()
        } else {
            format!(", pinned to {:?}", r.pin_cores)
        },
        r.load
    );
    for s in &r.switches {
        let _ = writeln!(
            o,
            "  {:<10} {:<7} {} ports, starts {}, netns {}, socket {}",
            s.name,
            if s.running { "running" } else { "stopped" },
            s.ports,
            s.starts,
            s.netns.as_deref().unwrap_or("(host's)"),
            s.socket.display()
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_travel_with_their_op_and_refuse_unknown_fields() {
        let r: HostRequest = serde_json::from_str(r#"{"op":"stop","switch":"e0"}"#).unwrap();
        assert_eq!(
            r,
            HostRequest::Stop {
                switch: "e0".into()
            }
        );
        assert_eq!(r.op(), "stop");
        assert_eq!(
            serde_json::to_string(&HostRequest::Switches {}).unwrap(),
            r#"{"op":"switches"}"#
        );
        assert!(
            serde_json::from_str::<HostRequest>(r#"{"op":"stop","switch":"e0","x":1}"#).is_err()
        );
        assert!(serde_json::from_str::<HostRequest>(r#"{"op":"start"}"#).is_err());
        assert_eq!(HOST_OPS, ["hello", "switches", "stop", "start"]);
    }
}
