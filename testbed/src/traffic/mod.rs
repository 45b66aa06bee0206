//! The traffic generator of `canopy-testbed run` (`docs/traffic.md`).
//!
//! | module | what |
//! |---|---|
//! | [`spec`] | [`TrafficSpec`], the `[traffic]` table, and its validation (rates, ceiling) |
//! | [`pattern`] | uniform, permutation, transpose, bit-reversal, bit-complement, neighbour, round-robin, hotspot, all-to-all |
//! | [`engine`] | [`Generator`]: ports per host, sender lanes and one receiver thread per trial; [`Reflector`]; pcap replay |
//! | [`ceiling`] | the generator's own ceiling on one veth pair ([`ceiling::generator_ceiling`]) |
//! | [`tx`] | the generator's sender: lanes (one thread each), bursts, one clock read per burst |
//! | [`rx`] | receive accounting: flows, loss, reordering, duplicates, misdelivery, latency histograms (the trial's and its latency stream's), kernel receive stamps |
//! | [`hopstats`] | the latency stream's hop records turned into a per-hop breakdown (host stack, RX ring, residence, link) |
//! | [`search`] | RFC 2544-style NDR/PDR binary search, its confirmation, and the latency trials at fractions of the NDR |
//! | [`port`] | AF_PACKET ports in a namespace; queueing, draining, waiting for a send time |
//! | [`pcap`] | capture files (`canopy_switch::pcap`, re-exported): classic pcap or pcapng written, both read |
//! | [`progress`] | the progress bar |
//! | [`frame`] | [`frame::HostFrame`] (host to host, with a measurement block); the vethbench frame and stamp |
//! | [`hosts`] | a running fabric's hosts, as the generator sees them |
//! | [`sender`] | the vethbench's own sender (paced or full speed) and its one-way latency probe |
//! | [`trafgen`] | `trafgen` (netsniff-ng) as the vethbench's max-rate sender |

pub mod ceiling;
pub mod engine;
pub mod frame;
pub mod hopstats;
pub mod hosts;
pub mod pattern;
pub use canopy_switch::pcap;
pub mod port;
pub mod progress;
pub mod rx;
pub mod search;
pub mod sender;
pub mod spec;
pub mod trafgen;
pub mod tx;

pub use engine::{Generator, ReflectStats, Reflector};
pub use pattern::Pattern;
pub use spec::{Rate, SearchSpec, TrafficSpec};
