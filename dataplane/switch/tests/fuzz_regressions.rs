//! Replays the fuzz targets' crash files for the management request handler and the
//! decisions on perturbed, validated tables (`tests/fuzz-crashes/<target>/`,
//! `docs/fuzzing.md`) through the exact checks the targets run.

use canopy_dataplane::fuzzing::replay_dir;
use canopy_switch::fuzzing::{decide_perturbed, MgmtRig};
use std::path::Path;

fn dir(target: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-crashes")
        .join(target)
}

#[test]
fn decide_tables_crashes_replay() {
    let tables = canopy_control::fuzzing::fabric_tables();
    let n = replay_dir(&dir("decide_tables"), |d| decide_perturbed(&tables, d));
    eprintln!("replayed {n} decide_tables crash files");
}

#[test]
fn switch_mgmt_crashes_replay() {
    let rig = MgmtRig::new();
    let n = replay_dir(&dir("switch_mgmt"), |d| rig.request(d));
    eprintln!("replayed {n} switch_mgmt crash files");
    // the rig answers a real request (so the replay above ran against a working switch)
    rig.request(&serde_json::to_vec(&canopy_proto::mgmt::Request::Health {}).unwrap());
}
