//! Sliced forwarding table. PLACEHOLDER: replaced by the sliced work.
use serde::{Deserialize, Serialize};

/// Sliced table of one switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicedTable {}

impl SlicedTable {
    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, _map: &[u16]) {}
}
