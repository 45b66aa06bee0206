//! Replays the fuzz target's crash files for the fabric-description parser
//! (`tests/fuzz-crashes/fabric_desc/`, `docs/fuzzing.md`) through the exact check the
//! target runs.

use canopy_dataplane::fuzzing::replay_dir;
use std::path::Path;

#[test]
fn fabric_desc_crashes_replay() {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-crashes/fabric_desc");
    let n = replay_dir(&d, canopy_testbed::fuzzing::fabric_desc);
    eprintln!("replayed {n} fabric_desc crash files");
}
