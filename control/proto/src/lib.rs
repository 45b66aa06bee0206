//! Canopy's management protocols, shared by both ends of each connection:
//!
//! - [`mgmt`]: a switch's management endpoint (`docs/canopy-switch.md`), served by
//!   `canopy-switch`, used by `canopyd`, `canopy-switch ctl` and the testbed: the
//!   requests, the reports and their text views;
//! - [`control`], [`snapshot`], [`view`]: `canopyd`'s control socket (`docs/canopyd.md`),
//!   served by `canopyd`, used by `canopyctl fabric` and the testbed: the requests, the
//!   fabric snapshot its `status` answers with, and the text views;
//! - [`client`]: a client of either endpoint (a Unix socket, or TCP with the `auth`
//!   exchange first);
//! - [`version`]: the protocol version and the `hello` handshake both servers answer;
//! - [`token`]: the rules a TCP endpoint's token file must follow, on the switch and
//!   in every client that reads a copy;
//! - [`sys`]: binding a Unix socket created 0600 (the switch's management socket,
//!   `canopyd`'s control socket).
//!
//! It depends on no other Canopy crate, so the switch links neither the daemon nor the
//! table computation through it.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod client;
pub mod control;
pub mod mgmt;
pub mod snapshot;
pub mod sys;
pub mod token;
pub mod version;
pub mod view;
