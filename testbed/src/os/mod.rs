//! What the testbed asks of the operating system.
//!
//! | module | what |
//! |---|---|
//! | [`netns`] | commands (`ip`, `which`), namespaces with a cleanup guard, veths, offloads, kernel link counters |
//! | [`cpu`] | `/proc/PID/stat` and `/proc/stat` CPU accounting, the load average |
//! | [`meminfo`] | `/proc/meminfo`: free huge pages |
//! | [`process`] | child processes in their own group with a log: left running, or stopped by a guard |
//! | [`invoker`] | reports given back to the user who ran `sudo` |
//! | [`private`] | files and directories only their owner reads (state, configurations, logs, reports) |
//! | [`sys`] | the raw syscalls (setns, kill, clocks, poll); every `unsafe` block of the crate |

pub mod cpu;
pub mod invoker;
pub mod meminfo;
pub mod netns;
pub mod private;
pub mod process;
pub mod sys;
