//! `canopyd`, the fabric's control daemon (`docs/canopyd.md`): it computes every
//! switch's tables (the `canopyctl tables` code path), pushes them to each switch's
//! management endpoint, keeps them current across restarts and failures, and serves
//! Prometheus metrics and a control socket for `canopyctl fabric`. The switches'
//! management protocol and the control socket's requests and replies are
//! `canopy-proto`'s; the tables come from `canopy-control`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod control;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod http;
pub mod metrics;
pub mod notify;
pub mod p4rt;
pub mod prune;
pub mod run;
pub mod target;
