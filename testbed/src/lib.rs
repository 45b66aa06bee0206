//! Canopy testbed: software fabrics in network namespaces (`canopy-testbed up/down/
//! status/check/run/agent/demo`, `docs/testbed.md`), the traffic generator
//! (`docs/traffic.md`), run reports (`docs/reports.md`), and `canopy-vethbench`, one
//! switch on veth next to the Linux bridge, DPDK testpmd and bmv2 (`docs/vethbench.md`).
//!
//! | module | what |
//! |---|---|
//! | [`netns`] | namespaces with a cleanup guard, veths, offloads, kernel link counters |
//! | [`forwarder`] | the bench wiring and the forwarders (direct, bridge, testpmd, canopy, bmv2) |
//! | [`frames`] | `HostFrame` (host to host, with a measurement block); the vethbench frame and stamp |
//! | [`gen`] | the own sender (paced or full speed) and the one-way latency probe |
//! | [`trafgen`] | `trafgen` as the max-rate sender |
//! | [`cpu`] | `/proc/PID/stat` and `/proc/stat` CPU accounting |
//! | [`bench`] | the three passes per forwarder, the results |
//! | [`report`] | Markdown |
//! | [`linkload`] | per-switch counter deltas and per-link loads of a run |
//! | [`mgmt`] | client of a `canopy-switch` management socket |
//! | [`hosts`] | a running fabric's hosts, as the generator sees them |
//! | [`fabric`] | fabric descriptions, `canopy-testbed up/down/status/check` |
//! | [`run`] | `canopy-testbed run`: traffic on a running fabric, counters around it, the report |
//! | [`results`] | the results of `canopy-testbed run` (JSON, report input) |
//! | [`runreport`] | a run's report: `results.json`, Markdown, HTML, SVG plots, the terminal summary |
//! | [`soak`] | `canopy-testbed soak`: a long run at the PDR with end-to-end accounting, faults in rounds, recovery times |
//! | [`traffic`] | the generator of `canopy-testbed run`: patterns, trials, NDR/PDR search, pcap |
//! | [`prom`] | a throwaway Prometheus server for tests and its query client |
//! | [`sys`] | the raw syscalls (setns, kill, clock) |
#![cfg(target_os = "linux")]

pub mod bench;
pub mod cpu;
pub mod error;
pub mod fabric;
pub mod forwarder;
pub mod frames;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod gen;
pub mod hosts;
pub mod linkload;
pub mod mgmt;
pub mod netns;
pub mod prom;
pub mod report;
pub mod results;
pub mod run;
pub mod runreport;
pub mod soak;
pub mod sys;
pub mod traffic;
pub mod trafgen;

pub use error::{Result, TestbedError};
