//! `canopyd`'s control socket (`docs/canopyd.md`): newline-delimited JSON over a Unix
//! stream socket created 0600, the same framing as the switches' management protocol.
//! The requests and the parts of the replies that `canopyctl fabric` and
//! `canopy-testbed run` (traffic reports) read; the daemon serves them.

use crate::mgmt::CountersReport;
use serde::{Deserialize, Serialize};
use strum::{IntoStaticStr, VariantNames};

/// Default control socket (`[daemon] control`, `canopyctl fabric --daemon`).
pub const DEFAULT_CONTROL: &str = "/run/canopyd/canopyd.sock";

/// Every op of the control socket, for error messages: the names of [`Request`]'s variants
/// as they travel.
pub const OPS: &[&str] = Request::VARIANTS;

/// A request on the control socket. Its `op` is the variant's name in snake case, for
/// serde (the wire) and for strum ([`OPS`], [`Request::op`]) alike.
#[derive(Debug, Serialize, Deserialize, VariantNames, IntoStaticStr)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
#[strum(serialize_all = "snake_case")]
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
