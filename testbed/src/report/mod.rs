//! The testbed's reports (`docs/reports.md`): one family of result types
//! ([`results`], every one starting with the same [`results::Header`]), written as JSON
//! and through one document model as Markdown and HTML (`doc`), with one set of
//! number formats ([`fmt`]).
//!
//! | module | report | files |
//! |---|---|---|
//! | [`run`] | `canopy-testbed run` / `replay` / `demo` | `results.json`, `report.md`, `report.html`, SVG plots ([`plots`]), CSV tables ([`csv`]); the terminal summary |
//! | [`compare`] | `canopy-testbed compare` | `compare.md`, `compare.html`, `compare_latency_cdf.svg` |
//! | [`soak`] | `canopy-testbed soak` | `soak.json`, `soak.md`, `timeline.csv`; the terminal summary |
//! | [`vethbench`] | `canopy-vethbench` | `results.json`, `results.md` |
//! | [`latency`] | the latency trials of `run --search` / `demo` | their report section and summary rows |
//! | [`policy`] | the up-port policy of a run: its flowlet gap and what each policy cost | its report section and summary lines |
//! | [`hlog`] | latency histograms kept whole | `latency.hlog` (HdrHistogram interval log); `canopy-testbed latency` reads it |

pub mod compare;
pub mod csv;
mod doc;
pub mod fmt;
pub mod hlog;
pub mod hopplot;
pub mod latency;
pub mod plots;
pub mod policy;
pub mod results;
pub mod run;
pub mod soak;
pub mod vethbench;

use crate::error::{Result, TestbedError};
use results::{Header, Machine};
use std::path::{Path, PathBuf};

/// The header of a report of `command` starting now: the time (RFC 3339 UTC), this
/// machine (CPUs, CPU model, kernel release, load average) and this build's version.
pub fn header(command: &str) -> Header {
    Header {
        command: command.to_string(),
        started: crate::os::netns::run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"])
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        machine: machine(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// This machine, with its load average now.
pub fn machine() -> Machine {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    Machine {
        cpus,
        kernel,
        cpu_model,
        load_before: crate::os::cpu::loadavg(),
    }
}

/// `value` as pretty JSON with a final newline (`what` names it in an error).
pub fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map(|j| j + "\n")
        .map_err(|e| TestbedError::Parse {
            what: format!("{what} as JSON"),
            detail: e.to_string(),
        })
}

/// Write `files` (name, text) into `dir`, created (0700) if missing; files of the same
/// name are replaced. Every file is readable by its owner only (0600): a report names
/// paths of the machine. Returns their paths, in order.
pub fn write_files(dir: &Path, files: &[(&str, &str)]) -> Result<Vec<PathBuf>> {
    crate::os::private::create_dir_all(dir)
        .map_err(|e| TestbedError::io(format!("create report directory {}", dir.display()), e))?;
    files
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            crate::os::private::write(&p, text)
                .map_err(|e| TestbedError::io(format!("write {}", p.display()), e))?;
            Ok(p)
        })
        .collect()
}
