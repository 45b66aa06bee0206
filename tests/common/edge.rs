//! The switch under most engine tests: `canopy-test-utils`'s edge switch of a k=4 fat
//! tree with sliced tables, and its frames carrying this suite's numbered [`payload`].
#![allow(dead_code)] // each test binary uses a subset

use super::frames::payload;
use canopy_control::sim::IsolatedSwitch;
use canopy_dataplane::wire::Kind;

pub use canopy_test_utils::switch::Edge;

/// The edge switch with sliced tables.
pub fn edge() -> Edge {
    Edge::new(Kind::Sliced)
}

/// [`edge`] with its ports as `mem` links of `capacity` frames each, their far ends in
/// `outer` (the engine tests without sockets).
pub fn edge_on_mem(capacity: usize) -> (Edge, IsolatedSwitch) {
    Edge::on_mem(Kind::Sliced, capacity)
}

/// Frames of the edge switch carrying [`payload`]`(seq)`.
pub trait Numbered {
    /// A Sliced frame from host `src` to host `dst` carrying [`payload`]`(seq)`.
    fn numbered(&self, src: u32, dst: u32, seq: u32) -> Vec<u8>;
}

impl Numbered for Edge {
    fn numbered(&self, src: u32, dst: u32, seq: u32) -> Vec<u8> {
        self.frame_with(src, dst, &payload(seq))
    }
}
