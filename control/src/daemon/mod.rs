//! `canopyd`, the fabric's control daemon (`docs/canopyd.md`): it computes every
//! switch's tables (the `canopyctl tables` code path), pushes them to each switch's
//! management endpoint, keeps them current across restarts and failures, and serves
//! Prometheus metrics and a control socket for `canopyctl fabric`.

pub mod config;
pub mod control;
pub mod http;
pub mod metrics;
pub mod prune;
pub mod run;
