//! The traffic generator of `canopy-testbed run` (`docs/traffic.md`).
//!
//! | module | what |
//! |---|---|
//! | [`spec`] | [`TrafficSpec`], the `[traffic]` table, and its validation (rates, ceiling) |
//! | [`pattern`] | uniform, permutation, transpose, bit-reversal, round-robin, hotspot, all-to-all |
//! | [`engine`] | [`Generator`]: ports per host, one sender and one receiver thread per trial; [`Reflector`]; pcap replay |
//! | [`rx`] | receive accounting: flows, loss, reordering, duplicates, misdelivery, latency histogram |
//! | [`search`] | RFC 2544-style NDR/PDR binary search |
//! | [`pcap`] | classic pcap writer and reader |
//! | [`progress`] | the progress bar |

pub mod engine;
pub mod pattern;
pub mod pcap;
pub mod progress;
pub mod rx;
pub mod search;
pub mod spec;

pub use engine::{Generator, ReflectStats, Reflector};
pub use pattern::Pattern;
pub use spec::{Rate, SearchSpec, TrafficSpec};
