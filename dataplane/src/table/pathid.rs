//! PathId forwarding table. PLACEHOLDER: replaced by the pathid work.
use serde::{Deserialize, Serialize};

/// PathId table of one switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathIdTable {}

impl PathIdTable {
    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, _map: &[u16]) {}
}
