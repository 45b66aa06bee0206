//! Replays the fuzz target's crash files for canopyd's control-socket request decoder
//! (`tests/fuzz-crashes/canopyd_request/`, `docs/fuzzing.md`) through the exact check
//! the target runs.

use canopy_dataplane::fuzzing::replay_dir;
use std::path::Path;

#[test]
fn canopyd_request_crashes_replay() {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-crashes/canopyd_request");
    let n = replay_dir(&d, canopyd::fuzzing::canopyd_request);
    eprintln!("replayed {n} canopyd_request crash files");
}
