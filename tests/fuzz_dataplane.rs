//! Replays the fuzz targets' crash files for the wire parsers and the decisions
//! (`dataplane/tests/fuzz-crashes/<target>/`, `docs/fuzzing.md`; the replay is here, not
//! in the dataplane crate, because the decisions run on tables from `canopy-control`) through the exact checks the
//! targets run, plus every `docs/wire-format.md` vector through the same checks.

use canopy_dataplane::fuzzing::{decide_frame, replay_dir, wire};
use canopy_dataplane::wire::{doc_vectors, ethernet_frame};
use std::path::Path;

fn dir(target: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("dataplane/tests/fuzz-crashes")
        .join(target)
}

fn frame(h: &[u8]) -> Vec<u8> {
    ethernet_frame(
        [2, 0, 0, 0, 0, 1],
        [2, 0, 0, 0, 0, 2],
        h,
        &[0xDE, 0xAD, 0xBE, 0xEF],
    )
}

#[test]
fn wire_crashes_replay() {
    let n = replay_dir(&dir("wire"), wire);
    eprintln!("replayed {n} wire crash files");
    for v in doc_vectors().unwrap() {
        wire(&v.bytes);
        wire(&frame(&v.bytes));
    }
}

#[test]
fn decide_crashes_replay() {
    let tables = canopy_control::fuzzing::fabric_tables();
    let n = replay_dir(&dir("decide"), |d| decide_frame(&tables, d));
    eprintln!("replayed {n} decide crash files");
    for v in doc_vectors().unwrap() {
        for s in 0..tables.len() as u8 {
            let mut b = vec![s, 1];
            b.extend_from_slice(&frame(&v.bytes));
            decide_frame(&tables, &b);
        }
    }
}
