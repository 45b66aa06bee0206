//! `canopy_control::p4::P4State`: the entries `canopyctl p4-entries` computes for every
//! switch, written into the P4 program's state, come back as tables that forward
//! exactly as the originals: the same entries again, and the oracle walks every host
//! pair through the rebuilt tables hop for hop as through the originals.

use canopy_control::kinds;
use canopy_control::oracle::{all_pairs, Oracle};
use canopy_control::p4::{self, P4State};
use canopy_control::topology::build_str;
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use rand::SeedableRng;

#[path = "p4_common/mod.rs"]
mod p4_common;

use p4_common::{tables, SPECS};

/// More families beside the entry tests' examples.
const MORE: &[(&str, Kind, Option<Mode>)] = &[
    ("kary-ntree:k=2;n=4", Kind::Sliced, None),
    ("kary-ntree:k=2;n=4", Kind::PathId, None),
    ("xgft:h=2;m=3,4;w=2,2", Kind::Sliced, Some(Mode::SrcDst)),
    ("xgft:h=2;m=3,4;w=2,2", Kind::Sliced, None),
];

fn rebuilt(sw: &SwitchTables) -> SwitchTables {
    let ops = p4::entries(sw).unwrap();
    let st = P4State::from_ops(&ops).unwrap_or_else(|e| panic!("{}: {e}", sw.name));
    let t = st
        .tables(&sw.name, sw.ports.len())
        .unwrap_or_else(|e| panic!("{}: {e}", sw.name));
    assert_eq!(p4::entries(&t).unwrap(), ops, "{}: entries again", sw.name);
    t
}

#[test]
fn every_switch_comes_back_as_tables_that_forward_the_same() {
    for &(spec, kind, mode) in SPECS.iter().chain(MORE) {
        let topo = build_str(spec).unwrap();
        let orig = tables(spec, kind, mode);
        let back: Vec<SwitchTables> = orig.iter().map(rebuilt).collect();
        let (a, b) = (Oracle::new(&topo, orig), Oracle::new(&topo, back));
        let mut walks = 0;
        for (src, dst) in all_pairs(&topo) {
            let h = match mode {
                Some(m) => kinds::sliced::header_mode(&topo, m, src, dst),
                None => kinds::header(&topo, kind, src, dst),
            }
            .unwrap();
            // the same random choices (injection port, adaptive members) on both sides
            let seed = u64::from(src) << 32 | u64::from(dst);
            let wa = a.walk_header(src, dst, &h, &mut rand::rngs::StdRng::seed_from_u64(seed));
            let wb = b.walk_header(src, dst, &h, &mut rand::rngs::StdRng::seed_from_u64(seed));
            assert_eq!(wa, wb, "{spec} {kind:?} {mode:?}: {src} -> {dst}");
            assert_eq!(wa.delivered_to(), Some(dst), "{spec}: {src} -> {dst}");
            walks += 1;
        }
        assert!(walks > 0, "{spec}");
    }
}

#[test]
fn the_hop_switch_id_is_the_configuration_s() {
    let st = P4State::from_ops(&[p4::hop_switch(7)]).unwrap();
    assert_eq!(st.hop_switch(), Some(7));
    assert_eq!(P4State::new().hop_switch(), None);
}
