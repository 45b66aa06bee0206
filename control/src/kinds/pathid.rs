//! pathid control logic. PLACEHOLDER: replaced by the pathid work.
use super::{KindError, TableSummary};
use crate::topology::Topology;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::Kind;

fn unsupported(t: &Topology) -> KindError {
    KindError::Unsupported {
        kind: KIND,
        spec: t.spec.to_string(),
        why: "not implemented yet".into(),
    }
}
const KIND: Kind = Kind::PathId;

/// Whether this kind applies to `t`.
pub fn supports(t: &Topology) -> Result<(), KindError> {
    Err(unsupported(t))
}
/// Per-switch tables.
pub fn tables(t: &Topology) -> Result<Vec<SwitchTables>, KindError> {
    Err(unsupported(t))
}
/// Table summary.
pub fn summary(t: &Topology) -> Result<TableSummary, KindError> {
    Err(unsupported(t))
}
/// Header from `src` to `dst`.
pub fn header(t: &Topology, _src: u32, _dst: u32) -> Result<Vec<u8>, KindError> {
    Err(unsupported(t))
}
