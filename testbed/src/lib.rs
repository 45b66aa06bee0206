//! Canopy testbed: software fabrics in network namespaces (`canopy-testbed up/down/
//! status/check/run/agent/demo`, `docs/testbed.md`), the traffic generator
//! (`docs/traffic.md`), run reports (`docs/reports.md`), and `canopy-vethbench`, one
//! switch on veth next to the Linux bridge, DPDK testpmd and bmv2 (`docs/vethbench.md`).
//!
//! | module | what |
//! |---|---|
//! | [`os`] | OS helpers: commands, namespaces and veths, CPU accounting, raw syscalls, `sudo` ownership |
//! | [`launch`] | finding and starting `canopy-switch`, `canopyd` and bmv2's `simple_switch` |
//! | [`fabric`] | fabric descriptions, `canopy-testbed up/down/status/check/drill`, the switches' management client |
//! | [`traffic`] | the generator: frames, patterns, trials, NDR/PDR search, pcap, the vethbench's senders |
//! | [`run`] | `canopy-testbed run`/`replay`: traffic on a running fabric, counters around it, per-link loads |
//! | [`report`] | every report: the result types (one header), JSON, Markdown/HTML, SVG plots, summaries; run, compare, soak, vethbench |
//! | [`soak`] | `canopy-testbed soak`: a long run at the PDR with end-to-end accounting, faults in rounds, recovery times |
//! | [`vethbench`] | `canopy-vethbench`: the bench wiring, the forwarders, the three passes, its report |
//! | [`vm`] | switches in QEMU guests: the guest image, QEMU's command line, the accelerator probe, QMP |
//! | [`prom`] | a throwaway Prometheus server for tests and its query client |
//! | `fuzzing` | what the fabric-description fuzz target shares with its regression test |
//! | [`error`] | [`TestbedError`] |
#![cfg(target_os = "linux")]

pub mod error;
pub mod export;
pub mod fabric;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod launch;
pub mod os;
pub mod prom;
pub mod report;
pub mod run;
pub mod soak;
pub mod study;
pub mod traffic;
pub mod vethbench;
pub mod vm;

pub use error::{Result, TestbedError};
/// The namespace helpers under their old path: other crates' tests (`tests/`,
/// `dataplane/switch/tests/`) use them as `canopy_testbed::netns`.
pub use os::netns;
