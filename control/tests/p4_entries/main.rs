//! `canopyctl p4-entries`: every port, group, label, direction and LPM entry of a
//! switch's tables appears in both output formats, read back into tables that equal the
//! originals; the LPM encoding (ternary + range + priority) selects the same entry as
//! the Rust table's lookup; output is deterministic.
//!
//! The parts: `replay` reads either format back into a model of the switch's tables,
//! `expected` says what that model must hold, `synth` makes up a P4Info where p4c is
//! absent, `cli` runs `canopyctl`, `p4_sources` compares names and widths with the P4
//! sources, and `checker` runs `p4/p4runtime_check.py` (and p4c when it is on PATH).

use canopy_control::p4::{self, Op};
use canopy_dataplane::wire::Kind;
use rand::SeedableRng;
use serde_json::Value;

#[path = "../p4_common/mod.rs"]
mod p4_common;

mod checker;
mod cli;
mod expected;
mod p4_sources;
mod replay;
mod synth;

use expected::{check_lpm_semantics, check_model};
use p4_common::{tables, SPECS};
use replay::{replay_cli, replay_p4rt};
use synth::synth_all;

#[test]
fn both_formats_carry_every_entry_of_every_switch() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    let (_, info) = synth_all();
    for &(spec, kind, mode) in SPECS {
        let all = tables(spec, kind, mode);
        assert!(!all.is_empty());
        for sw in &all {
            let ops = p4::entries(sw).unwrap();
            let cli = p4::bmv2_cli(&ops);
            let m = replay_cli(&cli);
            check_model(sw, &m, &format!("{spec} {kind:?} bmv2-cli"));
            check_lpm_semantics(sw, &m, true, &mut rng);
            let doc = p4::p4runtime(&sw.name, &ops, &info, 0).unwrap();
            // the JSON is what `canopyctl` prints: round-trip it through text
            let doc: Value = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
            let m2 = replay_p4rt(&doc, &info);
            check_model(sw, &m2, &format!("{spec} {kind:?} p4runtime"));
            check_lpm_semantics(sw, &m2, false, &mut rng);
        }
    }
}

#[test]
fn output_is_deterministic() {
    let (_, info) = synth_all();
    for &(spec, kind, mode) in SPECS {
        let a = tables(spec, kind, mode);
        let b = tables(spec, kind, mode);
        for (x, y) in a.iter().zip(&b) {
            let (ox, oy) = (p4::entries(x).unwrap(), p4::entries(y).unwrap());
            assert_eq!(p4::bmv2_cli(&ox), p4::bmv2_cli(&oy));
            assert_eq!(
                p4::p4runtime(&x.name, &ox, &info, 0),
                p4::p4runtime(&y.name, &oy, &info, 0)
            );
        }
    }
}

#[test]
fn the_sliced_tables_of_the_s1_path_are_nonempty() {
    // the switches the S1 vectors of wire-format.md §4.6 cross carry up, side and down entries
    let all = tables("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, None);
    let ops: Vec<Op> = all.iter().flat_map(|s| p4::entries(s).unwrap()).collect();
    let count = |t: &str| {
        ops.iter()
            .filter(|o| matches!(o, Op::Add { table, .. } if *table == t))
            .count()
    };
    assert!(count("sliced_down") > 0 && count("sliced_side") > 0);
    assert!(all
        .iter()
        .any(|s| s.sliced.as_ref().is_some_and(|t| t.up.is_none())));
}
