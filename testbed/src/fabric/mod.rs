//! Software fabrics in network namespaces (`canopy-testbed up/down/status/check`,
//! `docs/testbed.md`).
//!
//! | module | what |
//! |---|---|
//! | [`desc`] | the fabric description (TOML) and its validation |
//! | [`dpdk`] | what `up` checks for `dpdk` ports (the switch build, huge pages) |
//! | [`ops`] | `up` (with rollback), `down` (state file and name prefix), `status` |
//! | [`check`] | one frame per ordered host pair, delivered to exactly the right host |
//! | [`state`] | the state file, written as things are created |
//! | [`mgmt`] | client of a `canopy-switch` management socket |
//! | [`procs`] | finding and stopping the fabric's own `canopy-switch` processes |

pub mod bmv2;
pub mod check;
pub mod desc;
pub mod dpdk;
pub mod drill;
pub mod mgmt;
pub mod ops;
pub mod procs;
pub mod state;

pub use check::{check, CheckReport};
pub use desc::Desc;
pub use ops::{down, status, up, DownSummary, UpOptions, UpSummary};
pub use state::State;
