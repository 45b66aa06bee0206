//! Authentication on a switch's TCP management endpoint: a mutual challenge–response
//! keyed by the shared token, so that the token itself never crosses the network.
//!
//! ```text
//! client → switch  {"op":"challenge","nonce":Nc}
//! switch → client  {"ok":true,"nonce":Ns,"proof":HMAC(token, "canopy switch proof" 0 Nc Ns)}
//! client → switch  {"op":"auth","proof":HMAC(token, "canopy client proof" 0 Ns Nc)}
//! switch → client  {"ok":true,"auth":"ok"}
//! ```
//!
//! Nonces are 32 random bytes from the operating system; proofs are HMAC-SHA-256, all in
//! lower-case hex. The client checks the switch's proof before it sends its own, so an
//! impostor that bound the switch's address learns neither the token nor a proof it
//! could replay (the switch's nonce is fresh on every connection); the switch compares
//! the client's proof in constant time. The two proofs carry different labels, so one
//! side's proof is never the other's.
//!
//! Why not TLS: the endpoint's one secret is the token operators already distribute,
//! and this keeps it so without certificates to issue and rotate. What it does not give
//! is what TLS would: the requests and answers after `auth` travel in clear and are not
//! protected against a man in the middle who relays the handshake and then changes
//! them. Run the endpoint on a management network or through a tunnel (WireGuard, SSH)
//! where that matters (`docs/canopy-switch.md`).

use hmac::{Hmac, Mac};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Bytes of a nonce (and of a proof).
pub const NONCE_BYTES: usize = 32;

crate::op_tagged! {
    /// The requests a TCP connection sends before it is authenticated.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub enum AuthRequest {
        /// The client's nonce; answered with [`ChallengeAnswer`].
        Challenge {
            /// [`NONCE_BYTES`] random bytes, hex.
            nonce: String,
        },
        /// The client's proof over both nonces.
        Auth {
            /// [`client_proof`], hex.
            proof: String,
        },
    }
}

/// The switch's answer to `challenge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeAnswer {
    /// Always true (a refusal is `{"ok":false,"error":...}`).
    pub ok: bool,
    /// The switch's nonce, hex.
    pub nonce: String,
    /// [`switch_proof`], hex.
    pub proof: String,
}

/// A fresh nonce from the operating system's generator.
pub fn nonce() -> [u8; NONCE_BYTES] {
    let mut n = [0u8; NONCE_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut n);
    n
}

fn mac(token: &[u8], label: &[u8], first: &[u8], second: &[u8]) -> [u8; 32] {
    // HMAC takes a key of any length
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(token).expect("HMAC takes any key");
    m.update(label);
    m.update(&[0]);
    m.update(first);
    m.update(second);
    m.finalize().into_bytes().into()
}

/// What the switch proves it holds the token with: HMAC over the client's nonce, then
/// its own.
pub fn switch_proof(token: &[u8], client_nonce: &[u8], switch_nonce: &[u8]) -> [u8; 32] {
    mac(token, b"canopy switch proof", client_nonce, switch_nonce)
}

/// What the client proves it holds the token with: HMAC over the switch's nonce, then
/// its own.
pub fn client_proof(token: &[u8], switch_nonce: &[u8], client_nonce: &[u8]) -> [u8; 32] {
    mac(token, b"canopy client proof", switch_nonce, client_nonce)
}

/// Whether `got` (hex) is `want`, compared in constant time (a malformed `got` is not).
pub fn proof_matches(want: &[u8; 32], got: &str) -> bool {
    match decode_hex32(got) {
        Some(g) => bool::from(g.ct_eq(want)),
        None => false,
    }
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    b.iter()
        .fold(String::with_capacity(b.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// 32 bytes from 64 hex digits (either case); None for anything else.
pub fn decode_hex32(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_checks_the_others_proof_and_only_with_the_token() {
        let (t, other) = (b"0123456789abcdef-token", b"0123456789abcdef-other");
        let (nc, ns) = (nonce(), nonce());
        assert_ne!(nc, ns, "two nonces from the OS generator");
        let sp = switch_proof(t, &nc, &ns);
        assert!(proof_matches(&sp, &hex(&switch_proof(t, &nc, &ns))));
        assert!(!proof_matches(&sp, &hex(&switch_proof(other, &nc, &ns))));
        // the proofs are labelled: the switch's proof is not the client's
        assert!(!proof_matches(&client_proof(t, &nc, &ns), &hex(&sp)));
        assert_ne!(client_proof(t, &ns, &nc), switch_proof(t, &nc, &ns));
        // a replayed proof fails for a fresh nonce
        let ns2 = nonce();
        assert!(!proof_matches(
            &client_proof(t, &ns2, &nc),
            &hex(&client_proof(t, &ns, &nc))
        ));
    }

    #[test]
    fn hex_round_trips_and_malformed_proofs_do_not_match() {
        let n = nonce();
        assert_eq!(decode_hex32(&hex(&n)), Some(n));
        assert_eq!(decode_hex32(&hex(&n).to_uppercase()), Some(n));
        let want = [7u8; 32];
        for bad in ["", "07", &"0".repeat(63), &"g".repeat(64), &"07".repeat(33)] {
            assert!(!proof_matches(&want, bad), "{bad}");
        }
        assert!(proof_matches(&want, &"07".repeat(32)));
    }

    #[test]
    fn the_requests_travel_as_documented() {
        let r = AuthRequest::Challenge { nonce: "ab".into() };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"op":"challenge","nonce":"ab"}"#
        );
        let back: AuthRequest = serde_json::from_str(r#"{"proof":"cd","op":"auth"}"#).unwrap();
        assert_eq!(back, AuthRequest::Auth { proof: "cd".into() });
        // the old form, a token in clear, is refused
        assert!(serde_json::from_str::<AuthRequest>(r#"{"op":"auth","token":"x"}"#).is_err());
    }
}
