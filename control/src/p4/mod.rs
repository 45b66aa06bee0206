//! Table entries for the P4 reference program (`p4/canopy.p4`) from a switch's
//! [`SwitchTables`](canopy_dataplane::table::SwitchTables), the same tables `canopy-switch` forwards with.
//!
//! [`entries`] turns one switch's tables into a target-neutral list of [`Op`]s; the
//! renderers write them as `simple_switch_CLI` commands ([`bmv2_cli`]) or as a P4Runtime
//! `p4.v1.WriteRequest` in proto3 JSON ([`p4runtime`]), with every name resolved to its
//! id through the [`P4Info`] p4c writes. `canopyctl p4-entries` is the command-line face.
//! docs/p4.md describes the program's tables and actions.
//!
//! The files: `model` (the [`Op`]s and their parts), `entries` (what each kind's tables
//! become), `bmv2` (the `simple_switch_CLI` writer), `p4info` (the [`P4Info`] p4c writes)
//! and `p4runtime` (the WriteRequest writer); [`tna`] is the same for the Tofino program
//! `p4/canopy_tna.p4`.

use thiserror::Error;

mod bmv2;
pub mod counters;
mod entries;
mod model;
mod p4info;
mod p4runtime;
mod program;
pub mod runtime;
pub mod schema;
pub mod state;
#[cfg(test)]
mod tests;
pub mod tna;

pub use bmv2::{bmv2_cli, bmv2_priority};
pub use entries::{entries, hop_switch};
pub use model::{comments, Call, Match, Op, Val};
pub use p4info::{
    EntryProblem, P4Action, P4ActionRef, P4Counter, P4Info, P4InfoError, P4MatchField, P4Param,
    P4Table, Preamble, P4INFO_COMMAND,
};
pub use p4runtime::{base64, canonical_bytes, p4runtime, p4runtime_priority};
pub use program::program_p4info;
pub use state::{ActionCall, EntryKey, FieldMatch, P4State, StateError};

/// Name of the ingress control in `p4/canopy.p4`: the prefix of every table, action,
/// counter and action-profile name.
pub const INGRESS: &str = "CanopyIngress";
/// The drop counter (indexed by position in `DROP_REASON_NAMES`), as
/// `simple_switch_CLI counter_read` wants it.
pub const DROP_COUNTER: &str = "CanopyIngress.canopy_drops";
/// Largest port number the v1model `egress_spec` (9 bits) can carry, minus the drop port.
pub const MAX_PORT: u16 = 510;

/// Why entries could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum P4Error {
    /// A port number does not fit a v1model port (9 bits, 511 is the drop port).
    #[error("switch {switch}: port {port} does not fit a v1model port (0..={MAX_PORT})")]
    PortOutOfRange {
        /// Switch name.
        switch: String,
        /// Port.
        port: u16,
    },
    /// A table refers to a group the switch does not have.
    #[error("switch {switch}: group {group} is referenced but not defined")]
    UnknownGroup {
        /// Switch name.
        switch: String,
        /// Group id.
        group: u16,
    },
    /// A count is above what the program was declared with (a selector's group size, its
    /// number of groups).
    #[error("switch {switch}: {what} = {value} is above the program's limit of {max}")]
    Limit {
        /// Switch name.
        switch: String,
        /// Which count.
        what: &'static str,
        /// The count.
        value: u64,
        /// The program's limit.
        max: u64,
    },
    /// A value does not fit the P4 field or parameter it goes to.
    #[error("switch {switch}: {what} = {value} does not fit {bits} bits")]
    TooWide {
        /// Switch name.
        switch: String,
        /// Which value.
        what: &'static str,
        /// Value.
        value: u64,
        /// Width of the P4 field.
        bits: u32,
    },
}

/// Output format of `canopyctl p4-entries`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `simple_switch_CLI` commands, one per line.
    Bmv2Cli,
    /// A P4Runtime `p4.v1.WriteRequest` (proto3 JSON); needs a [`P4Info`].
    P4Runtime,
    /// `bfrt_python` commands for the Tofino program `p4/canopy_tna.p4`
    /// ([`tna`]).
    BfrtPython,
}

impl Format {
    /// Parse `bmv2-cli`, `p4runtime` or `bfrt-python`.
    pub fn from_name(s: &str) -> Option<Format> {
        match s {
            "bmv2-cli" => Some(Format::Bmv2Cli),
            "p4runtime" => Some(Format::P4Runtime),
            "bfrt-python" => Some(Format::BfrtPython),
            _ => None,
        }
    }
}
