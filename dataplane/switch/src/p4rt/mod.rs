//! canopy-switch as a P4Runtime target (`docs/p4runtime.md`): a pushed P4Info checked
//! against the program the switch implements ([`pipeline`]), and table entries resolved
//! through it into the program's table state and back ([`entry`]), a `Write` batch
//! applied with its atomicity ([`write`](mod@write)), which controller is primary
//! ([`arbitration`]), and the program's counters read from the switch's ([`counters`]).

pub mod arbitration;
pub mod counters;
pub mod entry;
pub mod pipeline;
pub mod write;

pub use entry::{from_state, to_state, EntryError};
pub use pipeline::{Pipeline, PipelineError};
