//! The process umask around `bind`, so the management socket is created 0600 (the
//! FFI itself lives in `canopy_control::sys`, shared with `canopyd`).

pub use canopy_control::sys::umask;
