//! `decide` on tables perturbed through `replace_tables`' JSON and validation, then an
//! arbitrary frame: validated tables never make a decision misbehave.
#![no_main]
use canopy_dataplane::table::SwitchTables;
use std::sync::OnceLock;

static TABLES: OnceLock<Vec<SwitchTables>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let t = TABLES.get_or_init(canopy_control::fuzzing::fabric_tables);
    canopy_switch::fuzzing::decide_perturbed(t, data);
});
