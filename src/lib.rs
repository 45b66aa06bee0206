//! Umbrella crate of the Canopy workspace. It re-exports the member crates so the
//! cross-crate integration tests in `tests/` can use them under one name.
pub use canopy_control as control;
pub use canopy_dataplane as dataplane;
