//! Source-side header builders: everything a host (or the traffic generator, or the
//! control plane) needs to compute the Canopy header for a destination. They sit next
//! to the formats they produce so there is exactly one implementation.

pub mod pathid;
pub mod sliced;
pub mod transit;
