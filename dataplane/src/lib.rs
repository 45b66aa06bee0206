//! Canopy dataplane: wire formats, source-side header builders, per-switch forwarding
//! tables and the pure forwarding decision functions.
//!
//! Nothing here does I/O: a decision is a pure function of (tables, ingress port,
//! frame bytes) returning a [`decide::Verdict`]. The engine (`canopy-switch`), the
//! routing oracle in `canopy-control` and the tests all drive the same functions.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod decide;
pub mod engine;
pub mod fuzzing;
pub mod port;
mod reasons;
pub mod table;
pub mod wire;

pub use decide::{decide, DropReason, Verdict};
pub use wire::{Kind, WireError};
