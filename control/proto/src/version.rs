//! The protocol version and the `hello` handshake (`docs/canopy-switch.md`, "Protocol
//! version"). Both servers, a switch's management endpoint and `canopyd`'s control
//! socket, take `{"op":"hello","version":N}` as a request like any other and answer
//! `{"ok":true,"version":N,"server":"canopy-switch"}` when `N` is their
//! [`PROTOCOL_VERSION`]; otherwise `ok` is false, `error` names both versions and what
//! to upgrade ([`VersionMismatch`]), and the connection is closed. The client
//! ([`crate::client::Endpoint`]) says `hello` first on every connection (after `auth`
//! on TCP) and sends its request only to a server of its own version. A connection
//! that says no `hello` is served as before: the protocol before versions is version 1
//! less `hello` and `health`'s `protocol_version`, so old clients keep working.

use serde::{Deserialize, Serialize};

/// The version of the management protocol and of `canopyd`'s control protocol this
/// build speaks. Raise it when a request or an answer changes in a way the other end
/// of a connection must know about.
pub const PROTOCOL_VERSION: u32 = 1;

/// This build's release: the workspace's Cargo package version, which every Canopy
/// crate and binary shares. `health` and the metrics' `*_build_info` carry it.
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// The server names a `hello` answer carries (and a mismatch message names).
pub const SWITCH: &str = "canopy-switch";
/// See [`SWITCH`].
pub const DAEMON: &str = "canopyd";

/// A server and a client of different protocol versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionMismatch {
    /// The server (`canopy-switch`, `canopyd`, or `the server` when it does not say).
    pub server: String,
    /// The server's version (0: a server before versions, which does not know `hello`).
    pub server_version: u32,
    /// The client's version.
    pub client: u32,
}

impl std::fmt::Display for VersionMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let before = if self.server_version == 0 {
            " (it predates protocol versions)"
        } else {
            ""
        };
        let upgrade = if self.server_version < self.client {
            self.server.as_str()
        } else {
            "the client"
        };
        write!(
            f,
            "protocol version mismatch: the client speaks version {}, {} speaks version {}{before}: \
             upgrade {upgrade} (both ends of a connection must speak the same version)",
            self.client, self.server, self.server_version
        )
    }
}

impl std::error::Error for VersionMismatch {}

/// The answer to `hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloAnswer {
    /// The versions match.
    pub ok: bool,
    /// The server's [`PROTOCOL_VERSION`].
    pub version: u32,
    /// Which server answered ([`SWITCH`], [`DAEMON`]).
    pub server: String,
    /// The mismatch, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A server's answer to `hello` from a client of version `client`; `ok` is false (and
/// the server closes the connection after answering) unless it is
/// [`PROTOCOL_VERSION`].
pub fn answer_hello(server: &str, client: u32) -> HelloAnswer {
    let error = (client != PROTOCOL_VERSION).then(|| {
        VersionMismatch {
            server: server.to_string(),
            server_version: PROTOCOL_VERSION,
            client,
        }
        .to_string()
    });
    HelloAnswer {
        ok: error.is_none(),
        version: PROTOCOL_VERSION,
        server: server.to_string(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matching_hello_is_answered_ok() {
        let a = answer_hello(SWITCH, PROTOCOL_VERSION);
        assert!(a.ok && a.error.is_none(), "{a:?}");
        assert_eq!((a.version, a.server.as_str()), (PROTOCOL_VERSION, SWITCH));
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"ok": true, "version": PROTOCOL_VERSION, "server": SWITCH})
        );
    }

    #[test]
    fn a_newer_client_is_told_to_upgrade_the_server() {
        let a = answer_hello(DAEMON, PROTOCOL_VERSION + 1);
        assert!(!a.ok);
        let e = a.error.unwrap();
        assert!(
            e.contains(&format!(
                "the client speaks version {}",
                PROTOCOL_VERSION + 1
            )),
            "{e}"
        );
        assert!(
            e.contains(&format!("canopyd speaks version {PROTOCOL_VERSION}")),
            "{e}"
        );
        assert!(e.contains("upgrade canopyd"), "{e}");
    }

    #[test]
    fn an_older_client_is_told_to_upgrade_itself() {
        let a = answer_hello(SWITCH, PROTOCOL_VERSION - 1);
        assert!(!a.ok);
        let e = a.error.unwrap();
        assert!(
            e.contains(&format!(
                "the client speaks version {}",
                PROTOCOL_VERSION - 1
            )),
            "{e}"
        );
        assert!(
            e.contains(&format!("canopy-switch speaks version {PROTOCOL_VERSION}")),
            "{e}"
        );
        assert!(e.contains("upgrade the client"), "{e}");
    }

    #[test]
    fn a_server_before_versions_is_named_so() {
        let m = VersionMismatch {
            server: "the server".into(),
            server_version: 0,
            client: 1,
        };
        let e = m.to_string();
        assert!(
            e.contains("the server speaks version 0 (it predates protocol versions)"),
            "{e}"
        );
        assert!(e.contains("upgrade the server"), "{e}");
    }
}
