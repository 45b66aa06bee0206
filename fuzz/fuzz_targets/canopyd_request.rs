//! canopyd's control-socket request decoder, with a decode → encode → decode round trip.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| canopy_control::fuzzing::canopyd_request(data));
