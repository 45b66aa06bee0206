//! Network-namespace helpers shared by the root-only netns tests: the skip, the test
//! namespaces of `canopy-test-utils`, and a plain `AF_PACKET` socket as the independent
//! sender/receiver (its syscalls in `sys`).
#![allow(dead_code)] // each test binary uses a subset

pub use super::sys::Raw;
pub use canopy_test_utils::netns::{in_ns, ip, Netns};

pub const ETHERTYPE: u16 = 0x88b5; // IEEE local experimental: never sent by the kernel itself.

pub fn is_test_frame(f: &[u8]) -> bool {
    f.len() >= 14 && u16::from_be_bytes([f[12], f[13]]) == ETHERTYPE
}
