//! Canopy dataplane: everything a frame meets inside a switch, in layer order.
//!
//! | module | layer | I/O |
//! |---|---|---|
//! | [`wire`] | typed zero-copy views of Ethernet and the Canopy headers, `Repr` parse/emit | none |
//! | [`build`] | source-side header builders (a host's header for a destination) | none |
//! | [`table`] | per-switch forwarding tables of every kind, validated | none |
//! | [`decide`](mod@decide) | the forwarding decision: (tables, ingress port, frame) → [`Verdict`] | none |
//! | [`engine`] | buffer pool, the `Port` trait, `mem` ports, run-to-completion workers, adaptive up-port choice, polling, counters | threads, epoll (`engine::sys`) |
//! | [`port`] | port backends behind the engine's `Port`: AF_PACKET, AF_XDP and (feature `dpdk`) DPDK | sockets, rings, NICs (`port::*::sys`) |
//!
//! The first four are pure functions and data: the engine, the routing oracle in
//! `canopy-control` and the tests all drive the same decision. The switch process built
//! on the engine and the ports is `canopy-switch` (`dataplane/switch/`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod build;
pub mod decide;
pub mod engine;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod port;
mod reasons;
pub mod table;
pub mod wire;

pub use decide::{decide, DropReason, Verdict};
pub use wire::{Kind, WireError};
