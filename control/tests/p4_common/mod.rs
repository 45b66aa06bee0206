//! The example fabrics whose switch tables the P4 entry tests (`p4_entries/`,
//! `p4_tna.rs`) turn into entries.

use canopy_control::kinds;
use canopy_control::topology::build_str;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;

/// (topology spec, kind, sliced addressing mode): every kind, and sliced in all four modes.
pub const SPECS: &[(&str, Kind, Option<Mode>)] = &[
    ("fat-tree:k=4", Kind::Sliced, None),
    ("fat-tree:k=4", Kind::PathId, None),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, None),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, Some(Mode::Dst)),
    (
        "znode:z=3,2,3;r=1,3,6;m=2",
        Kind::Sliced,
        Some(Mode::SrcDst),
    ),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, Some(Mode::Flat)),
    ("transit-hybrid:leaf=12;layers=1", Kind::Transit, None),
];

/// The tables of every switch of `spec` for `kind` (sliced in `mode` when given).
pub fn tables(spec: &str, kind: Kind, mode: Option<Mode>) -> Vec<SwitchTables> {
    let t = build_str(spec).unwrap();
    match mode {
        Some(m) => kinds::sliced::tables_mode(&t, m).unwrap(),
        None => kinds::tables(&t, kind).unwrap(),
    }
}
