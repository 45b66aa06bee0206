//! Running a study's points: each topology is built once and each (topology,
//! addressing) pair's tables once; the points then run on worker threads, each a
//! single-threaded discrete-event run, deterministic from its seed whatever the thread.

use super::{Point, Study, SweepPoint};
use crate::error::{Result, TestbedError};
use crate::report::results::Header;
use canopy_control::des::{Outcome, Prepared};
use canopy_control::topology::{build_str, Topology};
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// One point's result.
#[derive(Debug, Clone, Serialize)]
pub struct PointResult {
    /// The swept values and the point.
    #[serde(flatten)]
    pub sweep: SweepPoint,
    /// What the run measured.
    pub outcome: Outcome,
}

/// A study's results (`study.json`).
#[derive(Debug, Clone, Serialize)]
pub struct StudyResults {
    /// What ran, when, where.
    pub header: Header,
    /// The description file's title.
    pub title: String,
    /// Its `about`.
    pub about: String,
    /// The description as read (defaults filled in).
    pub study: Study,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock time of the whole study, s.
    pub wall_seconds: f64,
    /// Every point in sweep order.
    pub points: Vec<PointResult>,
}

fn failed(what: String, detail: impl std::fmt::Display) -> TestbedError {
    TestbedError::Parse {
        what,
        detail: detail.to_string(),
    }
}

/// Run every point of `study` on `threads` threads; `progress(done, total, result)` is
/// called on this thread as each point finishes.
pub fn run(
    study: &Study,
    command: &str,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize, &PointResult),
) -> Result<StudyResults> {
    let started = std::time::Instant::now();
    let header = crate::report::header(command);
    let points = study.points();
    // every topology once, every (topology, addressing) once
    let mut specs: Vec<String> = Vec::new();
    for p in &points {
        let s = p.point.topology.spec().to_string();
        if !specs.contains(&s) {
            specs.push(s);
        }
    }
    let topos: Vec<Topology> = specs
        .iter()
        .map(|s| build_str(s).map_err(|e| failed(format!("topology `{s}`"), e)))
        .collect::<Result<_>>()?;
    let topo_of = |p: &Point| {
        specs
            .iter()
            .position(|s| s == p.topology.spec())
            .unwrap_or(0)
    };
    let mut prepared: Vec<(usize, canopy_control::kinds::Addressing, Prepared<'_>)> = Vec::new();
    for p in &points {
        let (ti, a) = (topo_of(&p.point), p.point.addressing.0);
        if !prepared.iter().any(|(t, b, _)| *t == ti && *b == a) {
            let prep = Prepared::new(&topos[ti], a)
                .map_err(|e| failed(format!("{a} tables of `{}`", specs[ti]), e))?;
            prepared.push((ti, a, prep));
        }
    }
    let threads = threads.clamp(1, points.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<PointResult>)>();
    let mut results: Vec<Option<PointResult>> = vec![None; points.len()];
    let mut first_error = None;
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, points, prepared, topo_of) = (&next, &points, &prepared, &topo_of);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(sp) = points.get(i) else { break };
                let (ti, a) = (topo_of(&sp.point), sp.point.addressing.0);
                let prep = prepared
                    .iter()
                    .find(|(t, b, _)| *t == ti && *b == a)
                    .map(|(_, _, p)| p);
                let r = prep
                    .ok_or_else(|| failed("tables".into(), "not prepared"))
                    .and_then(|prep| one(prep, sp));
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (i, r) in rx {
            match r {
                Ok(r) => {
                    done += 1;
                    progress(done, points.len(), &r);
                    results[i] = Some(r);
                }
                Err(e) => {
                    // stop handing out points; the running ones finish
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(StudyResults {
        header,
        title: study.title.clone(),
        about: study.about.clone(),
        study: study.clone(),
        threads,
        wall_seconds: started.elapsed().as_secs_f64(),
        points: results.into_iter().flatten().collect(),
    })
}

/// Run one point.
fn one(prep: &Prepared<'_>, sp: &SweepPoint) -> Result<PointResult> {
    let p = &sp.point;
    let mut dests = p.pattern.dests(prep.topo, p.workload.seed)?;
    let outcome = prep
        .run(&p.network, &p.workload, &mut |h| dests.next(h))
        .map_err(|e| failed(format!("point {}", super::label(&sp.at, &[])), e))?;
    Ok(PointResult {
        sweep: sp.clone(),
        outcome,
    })
}
