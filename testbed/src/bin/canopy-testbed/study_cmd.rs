//! `canopy-testbed study`: a fabric study in simulated time.

use crate::cli::StudyArgs;
use crate::{command_line, stdout_failed};
use anyhow::{bail, Context, Result};
use canopy_testbed::study::{self, Study};
use std::process::ExitCode;

/// `study FILE [--out DIR] [--threads N] [--scale F]`.
pub fn study(a: StudyArgs) -> Result<ExitCode> {
    let name = a.file.display().to_string();
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("read {name}"))?;
    let mut s = Study::parse(&name, &text)?;
    if !(a.scale.is_finite() && a.scale > 0.0 && a.scale <= 100.0) {
        bail!("--scale {}: must be in (0, 100]", a.scale);
    }
    s.base.workload.warmup_us *= a.scale;
    s.base.workload.measure_us *= a.scale;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        bail!("--threads 0: at least one");
    }
    let out = a.out.unwrap_or_else(|| {
        let stem = a
            .file
            .file_stem()
            .map_or("study".into(), |s| s.to_string_lossy().into_owned());
        format!("study-{stem}").into()
    });
    let total = s.points().len();
    eprintln!("{}: {total} points on {threads} threads", s.title);
    let res =
        study::run(&s, &command_line(), threads, &mut |done, total, r| {
            let o = &r.outcome;
            eprintln!(
            "[{done}/{total}] {}: throughput {:.3}, delay {:.2} tx ({:.3} µs){} — {:.1} M events/s",
            study::label(&r.sweep.at, &[]),
            o.throughput,
            o.delay.mean_tx,
            o.delay.mean_ns / 1e3,
            if study::saturated(r) { ", saturated" } else { "" },
            o.events_per_second / 1e6
        );
        })?;
    let files = study::write(&res, &out)?;
    outln!(
        "{}: {} points in {:.1} s; results in {}",
        res.title,
        res.points.len(),
        res.wall_seconds,
        out.display()
    );
    for f in files {
        outln!("  {}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}
