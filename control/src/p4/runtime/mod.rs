//! P4Runtime over the program's table state, for both ends of the protocol: a P4Info
//! checked against the program and its ids ([`pipeline`]), and P4Runtime table entries
//! resolved into the program's state and back ([`entry`]), and the writes that bring a
//! target from one state to another and the state a read describes ([`sync`]).
//! canopy-switch serves P4Runtime through them; canopyd programs a target
//! (canopy-switch or bmv2) through them.

pub mod entry;
pub mod pipeline;
pub mod sync;

pub use entry::{from_state, key_of, to_state, EntryError};
pub use pipeline::{Pipeline, PipelineError};
