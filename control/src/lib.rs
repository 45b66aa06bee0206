//! Canopy control plane: topology generators and addressing, per-switch tables for
//! every header kind, source-side headers, and the routing oracle. `canopyctl` is the
//! command-line face of this crate.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cli_docs;
pub mod des;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod kinds;
pub mod oracle;
pub mod p4;
pub mod sim;
pub mod spec;
pub mod topology;

pub use kinds::{KindError, TableSummary};
pub use spec::{Spec, SpecError};
pub use topology::{build, build_str, TopoError, Topology};
