//! What the testbed asks of the operating system.
//!
//! | module | what |
//! |---|---|
//! | [`netns`] | commands (`ip`, `which`), namespaces with a cleanup guard, veths, offloads, kernel link counters |
//! | [`cpu`] | `/proc/PID/stat` and `/proc/stat` CPU accounting, the load average |
//! | [`invoker`] | reports given back to the user who ran `sudo` |
//! | [`sys`] | the raw syscalls (setns, kill, clocks, poll); every `unsafe` block of the crate |

pub mod cpu;
pub mod invoker;
pub mod netns;
pub mod sys;
