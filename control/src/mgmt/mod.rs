//! The switch management protocol (`docs/canopy-switch.md`): the request and report
//! types ([`proto`]) and a client of a switch's endpoint ([`client`]). They live here,
//! below both `canopy-switch` (the server) and `canopyd` (a client), so the daemon and
//! the switch share one definition.

pub mod client;
pub mod proto;
pub mod token;
