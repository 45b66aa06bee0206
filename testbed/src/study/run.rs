//! Running a study's points: each topology is built once, and every (topology,
//! addressing) pair is checked before anything runs. The points of one pair then run on
//! worker threads over that pair's tables, which are dropped before the next pair's are
//! made, so a sweep over large fabrics holds one set of tables at a time. Each point is
//! a single-threaded discrete-event run, deterministic from its seed whatever the thread.

use super::{Point, Study, SweepPoint};
use crate::error::{Result, TestbedError};
use crate::report::results::Header;
use canopy_control::des::{Outcome, Prepared};
use canopy_control::kinds::Addressing;
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
    // every topology once
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
    // the (topology, addressing) pairs in order of first use, each with its points;
    // every pair is checked now, so a bad one is refused before hours of running
    let mut groups: Vec<(usize, Addressing, Vec<usize>)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        let (ti, a) = (topo_of(&p.point), p.point.addressing.0);
        match groups.iter_mut().find(|g| g.0 == ti && g.1 == a) {
            Some(g) => g.2.push(i),
            None => {
                canopy_control::kinds::supports(&topos[ti], a.kind)
                    .map_err(|e| failed(format!("{a} tables of `{}`", specs[ti]), e))?;
                groups.push((ti, a, vec![i]));
            }
        }
    }
    let threads = threads.clamp(1, points.len().max(1));
    let mut results: Vec<Option<PointResult>> = vec![None; points.len()];
    let mut done = 0;
    for (ti, a, idx) in &groups {
        let prep = Prepared::new(&topos[*ti], *a)
            .map_err(|e| failed(format!("{a} tables of `{}`", specs[*ti]), e))?;
        run_group(&prep, &points, idx, threads, &mut |i, r| {
            done += 1;
            progress(done, points.len(), &r);
            results[i] = Some(r);
        })?;
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

/// Run the points `idx` of `points` over `prep` on up to `threads` threads; `done(i, r)`
/// is called on this thread as point `i` finishes. After an error no more points start;
/// the running ones finish, and the first error is returned.
fn run_group(
    prep: &Prepared<'_>,
    points: &[SweepPoint],
    idx: &[usize],
    threads: usize,
    done: &mut dyn FnMut(usize, PointResult),
) -> Result<()> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<PointResult>)>();
    let mut first_error = None;
    std::thread::scope(|s| {
        for _ in 0..threads.min(idx.len()) {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || {
                while let Some(&i) = idx.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if tx.send((i, one(prep, &points[i]))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            match r {
                Ok(r) => done(i, r),
                Err(e) => {
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    first_error.map_or(Ok(()), Err)
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
