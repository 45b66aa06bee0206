//! canopy-switch as a P4Runtime target (`docs/p4runtime.md`): a pushed P4Info checked
//! against the program the switch implements, and table entries resolved through it
//! into the program's table state and back (both `canopy_control::p4::runtime`'s,
//! shared with canopyd, the controller), a `Write` batch
//! applied with its atomicity ([`write`](mod@write)), which controller is primary
//! ([`arbitration`]), and the program's counters read from the switch's ([`counters`]);
//! the device answering each RPC over them ([`device`]), the gRPC service over the
//! switch's engine ([`service`]) and the endpoint that serves it ([`endpoint`]).

pub mod arbitration;
pub mod counters;
pub mod device;
pub mod endpoint;
pub mod service;
pub mod write;
