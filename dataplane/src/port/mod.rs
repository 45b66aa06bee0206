//! Port backends: where frames enter and leave a switch.
#[cfg(target_os = "linux")]
pub mod afpacket;
#[cfg(target_os = "linux")]
pub mod afxdp;
#[cfg(target_os = "linux")]
mod oslib;
