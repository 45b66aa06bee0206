//! `decide` on arbitrary frames at every switch of small real fabrics (every kind):
//! agrees with `decide_general`, ports and groups in range, named drop reasons.
#![no_main]
use canopy_dataplane::table::SwitchTables;
use std::sync::OnceLock;

static TABLES: OnceLock<Vec<SwitchTables>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let t = TABLES.get_or_init(canopy_control::fuzzing::fabric_tables);
    canopy_dataplane::fuzzing::decide_frame(t, data);
});
