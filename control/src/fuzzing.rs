//! What the fuzz targets (`fuzz/`, `docs/fuzzing.md`) share with the regression tests
//! that replay their crash files: the tables of a few small fabrics, built by the real
//! table builders. Test helpers (feature `fuzzing`): they allocate freely and are never
//! on the forwarding path.

use crate::{build_str, kinds};
use canopy_dataplane::table::SwitchTables;

/// The fabrics whose tables the decision targets use: every kind each supports.
pub const FABRICS: &[&str] = &[
    "fat-tree:k=4",
    "znode:z=3,2,3;r=1,3,6;m=2",
    "transit-full:layers=1",
];

/// Every switch's tables of every kind of every fabric in [`FABRICS`], in a fixed order
/// (so a crash file's switch byte picks the same switch in the fuzz target and in the
/// regression test).
pub fn fabric_tables() -> Vec<SwitchTables> {
    let mut out = Vec::new();
    for spec in FABRICS {
        let topo = build_str(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        for kind in kinds::kinds_for(&topo) {
            out.extend(kinds::tables(&topo, kind).unwrap_or_else(|e| panic!("{spec}: {e}")));
        }
    }
    out
}
