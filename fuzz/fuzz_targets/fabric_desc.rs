//! The testbed's fabric-description parser (`Desc` from TOML text) and what the fabric
//! commands ask of an accepted description.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| canopy_testbed::fuzzing::fabric_desc(data));
