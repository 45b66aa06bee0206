//! Software fabrics in network namespaces (`canopy-testbed up/down/status/check/drill`,
//! `docs/testbed.md`).
//!
//! | module | what |
//! |---|---|
//! | [`desc`] | the fabric description (TOML), its validation and the configurations it generates |
//! | [`up`](mod@up) | `up`: namespaces, links, switch processes, canopyd, health; rollback on failure |
//! | [`down`](mod@down) | `down`: by the state file and by the name prefix |
//! | [`ops`] | `status`, which fabric a command means, waiting for canopyd |
//! | [`check`](mod@check) | one frame per ordered host pair, delivered to exactly the right host |
//! | [`drill`] | fault drills: kill and restart switches and canopyd, links down and up, slowed ports |
//! | [`state`] | the state file, written as things are created |
//! | [`dpdk`] | what `up` checks for `dpdk` ports (the switch build, huge pages) |
//! | [`bmv2`] | the `bmv2` target: p4c, `simple_switch`, its entries and counters |
//! | [`mgmt`] | client of a `canopy-switch` management socket |
//! | [`procs`] | finding and stopping the fabric's own processes |

pub mod bmv2;
pub mod check;
pub mod desc;
pub mod down;
pub mod dpdk;
pub mod drill;
pub mod mgmt;
pub mod ops;
pub mod procs;
pub mod state;
pub mod up;

pub use check::{check, CheckReport};
pub use desc::Desc;
pub use down::{down, DownSummary};
pub use ops::status;
pub use state::State;
pub use up::{up, UpOptions, UpSummary};
