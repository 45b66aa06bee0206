//! PathId forwarding decision. PLACEHOLDER: replaced by the pathid work.
use super::{DropReason, Verdict};
use crate::table::{pathid::PathIdTable, SwitchTables};

/// Decide for a pathid frame; `body` is the kind-specific body of the Canopy header.
pub fn decide(_t: &PathIdTable, _sw: &SwitchTables, _ingress: u16, _body: &mut [u8]) -> Verdict {
    Verdict::Drop(DropReason::KindNotConfigured)
}
