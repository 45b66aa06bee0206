//! `canopy-switch`: one Canopy switch as a process. A TOML configuration gives the
//! ports (AF_PACKET interfaces or in-process `mem` ports), the engine settings and
//! where the tables come from; a Unix-socket management endpoint (and optionally a TCP
//! one with a shared token) replaces tables,
//! sets ports up or down, reads counters and health, and injects into / captures
//! from `mem` ports. See `docs/canopy-switch.md`; the protocol's types and its client
//! are `canopy-proto`'s.
#![warn(missing_docs)]

pub mod capture;
pub mod config;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod host;
pub mod p4rt;
pub mod pcap;
pub mod privs;
pub mod server;
pub mod sys;
pub mod tables;
