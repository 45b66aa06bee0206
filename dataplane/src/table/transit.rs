//! Transit forwarding table. PLACEHOLDER: replaced by the transit work.
use serde::{Deserialize, Serialize};

/// Transit table of one switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitTable {}

impl TransitTable {
    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, _map: &[u16]) {}
}
