//! Port backends: where frames enter and leave a switch. Each is an engine `Port`
//! through [`RingPort`] and its one generic implementation ([`adapter`]).
pub mod adapter;
#[cfg(target_os = "linux")]
pub mod afpacket;
#[cfg(target_os = "linux")]
pub mod afxdp;
#[cfg(all(target_os = "linux", feature = "dpdk"))]
pub mod dpdk;
#[cfg(target_os = "linux")]
mod link;
#[cfg(target_os = "linux")]
mod sys;

pub use adapter::{RingPort, RxSink};
#[cfg(target_os = "linux")]
pub use link::IfError;
