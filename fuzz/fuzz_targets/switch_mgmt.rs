//! canopy-switch's management request handler (the JSON line protocol), in-process on
//! a switch of mem ports with real tables.
#![no_main]
use canopy_switch::fuzzing::MgmtRig;

thread_local! {
    static RIG: MgmtRig = MgmtRig::new();
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| RIG.with(|r| r.request(data)));
