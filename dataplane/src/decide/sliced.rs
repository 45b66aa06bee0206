//! Sliced forwarding decision. PLACEHOLDER: replaced by the sliced work.
use super::{DropReason, Verdict};
use crate::table::{sliced::SlicedTable, SwitchTables};

/// Decide for a sliced frame; `body` is the kind-specific body of the Canopy header.
pub fn decide(_t: &SlicedTable, _sw: &SwitchTables, _ingress: u16, _body: &mut [u8]) -> Verdict {
    Verdict::Drop(DropReason::KindNotConfigured)
}
