//! Canopy's management protocols, shared by both ends of each connection:
//!
//! - [`mgmt`]: a switch's management endpoint (`docs/canopy-switch.md`), served by
//!   `canopy-switch`, used by `canopyd`, `canopy-switch ctl` and the testbed: the
//!   requests, the reports and their text views;
//! - [`control`], [`snapshot`], [`view`]: `canopyd`'s control socket (`docs/canopyd.md`),
//!   served by `canopyd`, used by `canopyctl fabric` and the testbed: the requests, the
//!   fabric snapshot its `status` answers with, and the text views;
//! - [`host`]: a shared switch host's control socket (`canopy-switch host`), which
//!   lists its switches and stops or starts one;
//! - [`auth`]: the TCP endpoint's challenge–response on the shared token;
//! - [`client`]: a client of either endpoint (a Unix socket, or TCP with the `auth`
//!   exchange first);
//! - [`serve`]: the server side of all of them: the accept loop, the connection slots
//!   and deadlines, the TCP authentication;
//! - [`version`]: the protocol version and the `hello` handshake both servers answer;
//! - [`token`]: the rules a TCP endpoint's token file must follow, on the switch and
//!   in every client that reads a copy;
//! - [`tagged`]: requests tagged by `op`, decoded without a generic value tree
//!   ([`op_tagged!`]);
//! - [`text`]: peer text made safe for logs and metric labels;
//! - [`sys`]: binding a Unix socket created 0600 (the switch's management socket,
//!   `canopyd`'s control socket).
//!
//! It depends on no other Canopy crate, so the switch links neither the daemon nor the
//! table computation through it.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod control;
pub mod host;
pub mod logging;
pub mod mgmt;
pub mod serve;
pub mod service;
pub mod snapshot;
pub mod sys;
pub mod tagged;
pub mod text;
pub mod token;
pub mod version;
pub mod view;

#[cfg(test)]
mod tests {
    use serde::{de::DeserializeOwned, Serialize};

    /// `all` holds one request of every variant of an op-tagged enum: each serializes to
    /// an `op` that `ops` lists and `op` returns, decodes back to the same op, and no op
    /// comes twice; so `ops` is exactly the serialized ops.
    pub(crate) fn ops_are_the_variants<R: Serialize + DeserializeOwned>(
        all: &[R],
        ops: &[&str],
        op: fn(&R) -> &'static str,
    ) {
        assert_eq!(all.len(), ops.len(), "one example per variant");
        let mut seen = std::collections::BTreeSet::new();
        for r in all {
            let text = serde_json::to_string(r).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let name = v["op"].as_str().unwrap().to_string();
            assert!(ops.contains(&name.as_str()), "{name} not in {ops:?}");
            assert_eq!(op(r), name);
            let back: R = serde_json::from_str(&text).unwrap();
            assert_eq!(op(&back), name);
            assert!(seen.insert(name), "an op twice");
        }
    }
}
