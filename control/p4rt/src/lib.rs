//! P4Runtime for Canopy: the messages of the `p4.v1.P4Runtime` service and of the P4Info
//! (`p4.config.v1`), written from the P4Runtime Specification as `prost` messages, and the
//! service's `tonic` server and client generated from a description in `build.rs`. No
//! third-party `.proto` file is in the tree or read at build time; `tests/wire.rs` checks
//! the messages against the official definitions (the PyPI `p4runtime` package) when
//! Python has them. `docs/p4runtime.md` says how canopy-switch serves it.

pub mod config;
pub mod rpc;
pub mod v1;

/// The generated service: `p4_runtime_server::{P4Runtime, P4RuntimeServer}` and
/// `p4_runtime_client::P4RuntimeClient`.
#[allow(missing_docs, clippy::all)]
pub mod service {
    include!(concat!(env!("OUT_DIR"), "/p4.v1.P4Runtime.rs"));
}

/// The P4Runtime API version the messages follow (`Capabilities`).
pub const API_VERSION: &str = "1.4.0";
