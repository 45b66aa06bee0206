//! canopy-switch as a P4Runtime target (`docs/p4runtime.md`): a pushed P4Info checked
//! against the program the switch implements ([`pipeline`]).

pub mod pipeline;

pub use pipeline::{Pipeline, PipelineError};
