//! canopyd's control-socket request decoder, with a decode → encode → decode round trip.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| canopyd::fuzzing::canopyd_request(data));
