//! Transit forwarding decision. PLACEHOLDER: replaced by the transit work.
use super::{DropReason, Verdict};
use crate::table::{transit::TransitTable, SwitchTables};

/// Decide for a transit frame; `body` is the kind-specific body of the Canopy header.
pub fn decide(_t: &TransitTable, _sw: &SwitchTables, _ingress: u16, _body: &mut [u8]) -> Verdict {
    Verdict::Drop(DropReason::KindNotConfigured)
}
