//! Every wire parser: Ethernet/VLAN, the prefix, the sliced, Transit and path-ID bodies
//! (views and `Repr::parse`, with parse → emit → parse round trips).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| canopy_dataplane::fuzzing::wire(data));
