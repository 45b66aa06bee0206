//! What the `canopyd_request` fuzz target (`fuzz/`, `docs/fuzzing.md`) shares with the
//! regression test that replays its crash files: the invariants of the control socket's
//! request decoder. A test helper (feature `fuzzing`).

use crate::control::decode_request;
use canopy_proto::control::Request;

/// `canopyd`'s request decoder on one line: no panic; a request that decodes encodes
/// to JSON that decodes to the same request (compared through its JSON encoding).
pub fn canopyd_request(line: &[u8]) {
    let Ok(req) = decode_request(line) else {
        return;
    };
    let v = serde_json::to_value(&req).expect("a request always encodes");
    let text = serde_json::to_vec(&v).expect("a JSON value always encodes");
    let back: Request = decode_request(&text).unwrap_or_else(|e| {
        panic!(
            "{}: re-encoded request does not decode: {e}",
            String::from_utf8_lossy(&text)
        )
    });
    assert_eq!(
        serde_json::to_value(&back).expect("a request always encodes"),
        v,
        "canopyd request round trip"
    );
}
