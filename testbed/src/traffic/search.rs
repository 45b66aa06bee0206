//! RFC 2544-style search for the no-drop rate (NDR: no frame lost) and the partial-drop
//! rate (PDR: loss ratio below a threshold, 0.5 % by default).
//!
//! Two brackets `[pass, fail]` are kept, one per criterion, and every trial updates
//! both: a trial with no loss raises both lower ends, one with loss below the PDR
//! threshold raises the PDR lower end and lowers the NDR upper end, one above it lowers
//! both upper ends. The first trial runs at `max_pps`; each next one at the middle of the
//! NDR bracket until it is narrower than `resolution * max_pps`, then at the middle of
//! the PDR bracket. When a bracket never had a passing trial, `min_pps` itself is tried
//! last; if that fails too the rate is `None`. A trial whose senders fell short of the
//! offered rate (below `min_sent_ratio`) did not test that rate and counts as failing.
//!
//! Short trials pass above the sustainable rate on a slow target (a backlog builds up
//! unseen), so, as RFC 2544 asks of the final trial, the rates found are confirmed with a
//! longer trial (`confirm_s`): the NDR at the NDR, then the PDR at the PDR (unless the
//! NDR's confirmation already covers it). A rate that fails its confirmation is lowered
//! by `max(resolution * max_pps, 5 %)`, and to at most 98 % of the rate the failed trial
//! delivered (about what the target sustains), from the second refusal on by a quarter
//! at least; once one held, the next tries bisect between it and the lowest refused;
//! at most `confirm_tries` long trials per rate, and any long trial without loss
//! confirms an NDR;
//! the rate reported is the one confirmed (None when none was), next to the one the
//! short trials found.

use super::spec::SearchSpec;
use crate::error::Result;
use crate::report::results::{LoadLatency, SearchResult, Trial};

/// Which criterion a trial was run for (and judged by in [`Trial::passed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No loss.
    Ndr,
    /// Loss below the PDR threshold.
    Pdr,
    /// The longer trial confirming the NDR.
    ConfirmNdr,
    /// The longer trial confirming the PDR.
    ConfirmPdr,
}

impl Phase {
    /// A confirmation trial (the longer ones).
    pub fn confirms(self) -> bool {
        matches!(self, Phase::ConfirmNdr | Phase::ConfirmPdr)
    }

    /// Its name in progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Ndr => "NDR",
            Phase::Pdr => "PDR",
            Phase::ConfirmNdr => "NDR confirm",
            Phase::ConfirmPdr => "PDR confirm",
        }
    }
}

/// How a trial is judged: sent enough of the offered rate, and no loss (NDR) or loss
/// under the threshold (PDR).
fn judge(spec: &SearchSpec, t: &Trial, rate: f64) -> (bool, bool) {
    let valid = t.sent_pps >= spec.min_sent_ratio * rate && t.sent > 0;
    (
        valid && t.lost == 0,
        valid && t.loss_ratio < spec.pdr_loss_ratio,
    )
}

#[derive(Debug, Clone, Copy)]
struct Bracket {
    pass: Option<f64>,
    fail: f64,
    min_tried: bool,
}

impl Bracket {
    fn next(&self, min: f64, res: f64) -> Option<f64> {
        let lo = self.pass.unwrap_or(min);
        if self.fail - lo > res {
            Some((lo + self.fail) / 2.0)
        } else if self.pass.is_none() && !self.min_tried {
            Some(min)
        } else {
            None
        }
    }
    fn record(&mut self, rate: f64, ok: bool, min: f64) {
        if rate <= min {
            self.min_tried = true;
        }
        if ok {
            if self.pass.is_none_or(|p| rate > p) && rate < self.fail {
                self.pass = Some(rate);
            }
        } else if rate < self.fail {
            self.fail = rate;
        }
    }
}

/// Run the search. `trial(rate)` runs one full trial at `rate` offered pps; every
/// trial is appended to `trials` (with `passed` set), so the result's indices point
/// into it. `first_index` is where `trials` starts in the run's trial list.
pub fn search(
    spec: &SearchSpec,
    max_pps: f64,
    first_index: usize,
    trials: &mut Vec<Trial>,
    mut trial: impl FnMut(f64, Phase) -> Result<Trial>,
) -> Result<SearchResult> {
    let min = spec.min_pps;
    let res = spec.resolution * max_pps;
    // `fail` starts just above max so that max itself is tried first
    let top = max_pps * (1.0 + 1e-9) + 1e-9;
    let mut ndr = Bracket {
        pass: None,
        fail: top,
        min_tried: false,
    };
    let mut pdr = ndr;
    let mut idx_ndr = None;
    let mut idx_pdr = None;
    let mut first = true;
    loop {
        let (rate, phase) = if first {
            (max_pps, Phase::Ndr)
        } else if let Some(r) = ndr.next(min, res) {
            (r, Phase::Ndr)
        } else if let Some(r) = pdr.next(min, res) {
            (r, Phase::Pdr)
        } else {
            break;
        };
        first = false;
        let mut t = trial(rate, phase)?;
        let (no_loss, under_pdr) = judge(spec, &t, rate);
        t.passed = Some(match phase {
            Phase::Ndr | Phase::ConfirmNdr => no_loss,
            Phase::Pdr | Phase::ConfirmPdr => under_pdr,
        });
        let i = first_index + trials.len();
        trials.push(t);
        let (old_ndr, old_pdr) = (ndr.pass, pdr.pass);
        ndr.record(rate, no_loss, min);
        pdr.record(rate, under_pdr, min);
        if ndr.pass != old_ndr {
            idx_ndr = Some(i);
        }
        if pdr.pass != old_pdr {
            idx_pdr = Some(i);
        }
        // a trial cannot pass NDR and fail PDR; keep PDR >= NDR
        if let (Some(n), p) = (ndr.pass, pdr.pass) {
            if p.is_none_or(|p| p < n) {
                pdr.pass = Some(n);
                idx_pdr = idx_ndr;
            }
        }
        if trials.len() > 64 {
            break; // cannot happen with resolution > 0 (log2(1/res) + 2 per bracket)
        }
    }
    let mut r = SearchResult {
        ndr_pps: ndr.pass,
        ndr_trial: idx_ndr,
        pdr_pps: pdr.pass,
        pdr_trial: idx_pdr,
        pdr_loss_ratio: spec.pdr_loss_ratio,
        min_pps: min,
        max_pps,
        resolution: spec.resolution,
        confirm_s: 0.0,
        ndr_search_pps: ndr.pass,
        pdr_search_pps: pdr.pass,
        latency: Vec::new(),
    };
    if spec.confirm_s > 0.0 {
        confirm_both(spec, res, first_index, trials, &mut trial, &mut r)?;
    }
    Ok(r)
}

/// The latency trials that follow a search, as RFC 2544 (§26.2) and RFC 8219 measure
/// latency: not at the throughput found, where the queues decide it, but with a
/// low-rate latency stream beside a background load at each of `spec.latency_loads`
/// (fractions of the NDR `ndr_pps`), in that order. `trial(rate)` runs one with the
/// stream on; a load of 0 is the stream alone.
pub fn latency_at_loads(
    spec: &SearchSpec,
    ndr_pps: f64,
    mut trial: impl FnMut(f64, f64) -> Result<Trial>,
) -> Result<Vec<LoadLatency>> {
    spec.latency_loads
        .iter()
        .map(|&fraction| {
            Ok(LoadLatency {
                fraction,
                trial: trial(fraction, fraction * ndr_pps)?,
            })
        })
        .collect()
}

/// Confirm the NDR, then the PDR, with longer trials; `r` then holds the rates
/// confirmed (and their trials).
fn confirm_both(
    spec: &SearchSpec,
    res: f64,
    first_index: usize,
    trials: &mut Vec<Trial>,
    trial: &mut impl FnMut(f64, Phase) -> Result<Trial>,
    r: &mut SearchResult,
) -> Result<()> {
    r.confirm_s = spec.confirm_s;
    // the highest rate whose confirmation passed under the PDR criterion so far
    let mut pdr_seen: Option<(f64, usize)> = None;
    // the highest rate a confirmation passed without loss (also one run for the PDR)
    let mut ndr_seen: Option<(f64, usize)> = None;
    let mut run = |start: f64,
                   phase: Phase,
                   pdr_seen: &mut Option<(f64, usize)>,
                   ndr_seen: &mut Option<(f64, usize)>| {
        let step = res.max(0.05 * start);
        // the highest confirmed rate and the lowest refused one so far
        let (mut lo, mut hi): (Option<(f64, usize)>, Option<f64>) = (None, None);
        let mut rate = start;
        for _ in 0..spec.confirm_tries.max(1) {
            if rate < spec.min_pps {
                break;
            }
            let mut t = trial(rate, phase)?;
            let received = t.received_pps;
            let (no_loss, under_pdr) = judge(spec, &t, rate);
            let ok = if phase == Phase::ConfirmNdr {
                no_loss
            } else {
                under_pdr
            };
            t.passed = Some(ok);
            let i = first_index + trials.len();
            trials.push(t);
            for (seen, yes) in [(&mut *pdr_seen, under_pdr), (&mut *ndr_seen, no_loss)] {
                if yes && seen.is_none_or(|(p, _)| rate > p) {
                    *seen = Some((rate, i));
                }
            }
            if ok {
                lo = Some((rate, i));
                // the first rate holds, or what is left above is one step: done
                match hi {
                    Some(h) if h - rate > step => rate = (rate + h) / 2.0,
                    _ => break,
                }
            } else {
                let refused_before = hi.is_some();
                hi = Some(rate);
                rate = match lo {
                    // between the highest that held and this one
                    Some((l, _)) => (l + rate) / 2.0,
                    // an overloaded trial delivers about what the target sustains, plus
                    // what its buffers held: try no higher than that, and from the
                    // second refusal on a quarter lower at least
                    None => {
                        let next = (rate - step).min(received * 0.98);
                        if refused_before {
                            next.min(rate * 0.75)
                        } else {
                            next
                        }
                    }
                };
            }
        }
        Ok::<_, crate::error::TestbedError>(lo)
    };
    let ndr = match r.ndr_search_pps {
        Some(n) => run(n, Phase::ConfirmNdr, &mut pdr_seen, &mut ndr_seen)?,
        None => None,
    };
    (r.ndr_pps, r.ndr_trial) = (ndr.map(|x| x.0), ndr.map(|x| x.1));
    // the PDR: covered when a longer trial at or above it already stayed under the
    // threshold; otherwise confirmed on its own
    let pdr = match (r.pdr_search_pps, pdr_seen) {
        (Some(p), Some((seen, i))) if seen >= p => Some((seen, i)),
        (Some(p), _) => run(p, Phase::ConfirmPdr, &mut pdr_seen, &mut ndr_seen)?,
        (None, _) => None,
    };
    (r.pdr_pps, r.pdr_trial) = (pdr.map(|x| x.0), pdr.map(|x| x.1));
    // a long trial without loss confirms an NDR, whichever criterion it ran for
    if let Some((n, i)) = ndr_seen {
        if r.ndr_pps.is_none_or(|x| x < n) {
            (r.ndr_pps, r.ndr_trial) = (Some(n), Some(i));
        }
    }
    // a confirmed NDR is a PDR too
    if let (Some(n), Some(i)) = (r.ndr_pps, r.ndr_trial) {
        if r.pdr_pps.is_none_or(|p| p < n) {
            (r.pdr_pps, r.pdr_trial) = (Some(n), Some(i));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device that forwards `cap` pps: loss = the excess, plus a 0.1 % loss band
    /// between `cap` and `soft` (so NDR = cap, PDR = soft when soft's loss stays small).
    fn device(cap: f64, soft: f64) -> impl FnMut(f64, Phase) -> Result<Trial> {
        move |rate, _| {
            let sent = (rate * 1.0).round() as u64;
            let lost = if rate <= cap {
                0
            } else if rate <= soft {
                (sent as f64 * 0.001).ceil() as u64
            } else {
                ((rate - soft) + sent as f64 * 0.001).ceil() as u64
            }
            .min(sent);
            Ok(Trial {
                offered_pps: rate,
                sent_pps: rate,
                sent,
                lost,
                loss_ratio: lost.min(sent) as f64 / sent as f64,
                received: sent.saturating_sub(lost),
                received_pps: sent.saturating_sub(lost) as f64,
                ..Trial::default()
            })
        }
    }

    #[test]
    fn finds_ndr_and_pdr_of_a_model_device() {
        let spec = SearchSpec {
            min_pps: 1000.0,
            resolution: 0.01,
            confirm_s: 0.0,
            ..SearchSpec::default()
        };
        let mut trials = vec![];
        let r = search(&spec, 100_000.0, 3, &mut trials, device(41_000.0, 70_000.0)).unwrap();
        let ndr = r.ndr_pps.unwrap();
        let pdr = r.pdr_pps.unwrap();
        assert!(ndr <= 41_000.0 && ndr > 41_000.0 - 1000.0, "{ndr}");
        // the PDR: loss at rate r is 0.1% + (r - 70000)/r; below 0.5% up to ~70280
        assert!(pdr <= 70_282.0 && pdr > 70_282.0 - 1000.0, "{pdr}");
        assert_eq!(trials[0].offered_pps, 100_000.0);
        assert_eq!(trials[r.ndr_trial.unwrap() - 3].offered_pps, ndr);
        assert_eq!(trials[r.pdr_trial.unwrap() - 3].offered_pps, pdr);
        assert!(trials.iter().all(|t| t.passed.is_some()));
        assert!(trials.len() <= 2 * 9, "{}", trials.len());
    }

    #[test]
    fn max_passing_and_nothing_passing() {
        let spec = SearchSpec {
            confirm_s: 0.0,
            ..SearchSpec::default()
        };
        let mut trials = vec![];
        let r = search(&spec, 50_000.0, 0, &mut trials, device(1e9, 1e9)).unwrap();
        assert_eq!((r.ndr_pps, r.pdr_pps), (Some(50_000.0), Some(50_000.0)));
        assert_eq!(trials.len(), 1);
        let mut trials = vec![];
        let r = search(&spec, 50_000.0, 0, &mut trials, device(10.0, 20.0)).unwrap();
        assert_eq!((r.ndr_pps, r.pdr_pps), (None, None));
        assert_eq!(trials.last().unwrap().offered_pps, spec.min_pps);
        // a generator that falls short fails the trial even without loss
        let mut trials = vec![];
        let r = search(&spec, 50_000.0, 0, &mut trials, |rate, p| {
            let mut t = device(1e9, 1e9)(rate, p)?;
            if rate > 30_000.0 {
                t.sent_pps = 30_000.0;
            }
            Ok(t)
        })
        .unwrap();
        let ndr = r.ndr_pps.unwrap();
        // passes while 30 kpps is at least 98 % of the offered rate
        assert!(ndr <= 30_000.0 / 0.98 && ndr > 29_000.0, "{ndr}");
    }

    /// A device that forwards `short` pps over a short trial but only `long` pps over
    /// a confirmation trial (a backlog that builds up unseen).
    fn slow_target(short: f64, long: f64) -> impl FnMut(f64, Phase) -> Result<Trial> {
        let (mut s, mut l) = (device(short, short), device(long, long));
        move |rate, phase| {
            if phase.confirms() {
                l(rate, phase)
            } else {
                s(rate, phase)
            }
        }
    }

    #[test]
    fn rates_found_by_short_trials_are_confirmed_by_longer_ones() {
        let spec = SearchSpec {
            min_pps: 1000.0,
            resolution: 0.01,
            confirm_s: 10.0,
            confirm_tries: 3,
            ..SearchSpec::default()
        };
        // holds over the long trial too: one confirmation, the same rate
        let mut trials = vec![];
        let r = search(
            &spec,
            100_000.0,
            0,
            &mut trials,
            slow_target(41_000.0, 41_000.0),
        )
        .unwrap();
        let ndr = r.ndr_pps.unwrap();
        assert_eq!(r.ndr_search_pps, Some(ndr));
        assert_eq!(r.confirm_s, 10.0);
        let i = r.ndr_trial.unwrap();
        assert_eq!(i, trials.len() - 1, "the confirmation is the last trial");
        assert_eq!(trials[i].passed, Some(true));
        assert_eq!(r.pdr_pps, Some(ndr), "no loss over 10 s covers the PDR");

        // passes 50 kpps in short trials, 48 kpps over 10 s: lowered to just under what
        // the failed confirmation delivered
        let mut trials = vec![];
        let dev = slow_target(50_000.0, 48_000.0);
        let r = search(&spec, 100_000.0, 0, &mut trials, dev).unwrap();
        let (short, ndr) = (r.ndr_search_pps.unwrap(), r.ndr_pps.unwrap());
        assert!(short > 49_000.0 && short <= 50_000.0, "{short}");
        assert!(ndr <= 48_000.0 && ndr > 46_000.0, "{ndr}");
        let n = trials.len();
        assert_eq!(
            trials[n - 3..].iter().map(|t| t.passed).collect::<Vec<_>>(),
            [Some(false), Some(true), Some(false)],
            "refused, held lower, then refused halfway back up (a bisection)"
        );
        assert_eq!(trials[r.ndr_trial.unwrap()].offered_pps, ndr);

        // 30 kpps over 10 s: the failed trial's delivered rate leads the next one there
        let mut trials = vec![];
        let dev = slow_target(50_000.0, 30_000.0);
        let r = search(&spec, 100_000.0, 0, &mut trials, dev).unwrap();
        let ndr = r.ndr_pps.unwrap();
        assert!(ndr <= 30_000.0 && ndr > 28_000.0, "{ndr}");

        // nothing holds over 10 s near the short trials' rate: no NDR, said so
        let mut trials = vec![];
        let r = search(
            &spec,
            100_000.0,
            0,
            &mut trials,
            slow_target(50_000.0, 1_000.0),
        )
        .unwrap();
        assert!(r.ndr_search_pps.is_some());
        assert_eq!((r.ndr_pps, r.ndr_trial), (None, None));
        assert!(trials.iter().filter(|t| t.passed == Some(false)).count() >= 3);
    }

    #[test]
    fn confirmation_gets_under_a_target_whose_buffers_hide_its_overload() {
        // 1-s trials pass up to 100 kpps; over the long trial the target sustains 60 kpps
        // but delivers 30 kpps more from its buffers, so the delivered rate misleads
        let spec = SearchSpec {
            min_pps: 1000.0,
            resolution: 0.02,
            confirm_s: 5.0,
            confirm_tries: 6,
            ..SearchSpec::default()
        };
        let mut short = device(100_000.0, 100_000.0);
        let dev = |rate: f64, phase: Phase| {
            if !phase.confirms() {
                return short(rate, phase);
            }
            let sent = rate.round() as u64;
            let lost = if rate <= 60_000.0 {
                0
            } else {
                (rate - 60_000.0) as u64 / 2
            };
            Ok(Trial {
                offered_pps: rate,
                sent_pps: rate,
                sent,
                lost,
                loss_ratio: lost as f64 / sent as f64,
                received: sent - lost,
                received_pps: (rate).min(90_000.0),
                ..Trial::default()
            })
        };
        let mut trials = vec![];
        let r = search(&spec, 200_000.0, 0, &mut trials, dev).unwrap();
        let ndr = r.ndr_pps.expect("a long trial held");
        assert!(ndr <= 60_000.0 && ndr > 45_000.0, "{ndr}");
        assert_eq!(trials[r.ndr_trial.unwrap()].lost, 0);
        assert_eq!(r.pdr_pps, Some(ndr), "nothing held above it");
    }

    #[test]
    fn latency_trials_run_at_each_fraction_of_the_ndr_in_order() {
        let spec = SearchSpec::default();
        assert_eq!(spec.latency_loads, vec![0.0, 0.1, 0.5, 0.9]);
        let mut asked = vec![];
        let mut dev = device(80_000.0, 90_000.0);
        let l = latency_at_loads(&spec, 50_000.0, |f, rate| {
            asked.push((f, rate));
            dev(rate, Phase::Ndr)
        })
        .unwrap();
        assert_eq!(
            asked,
            vec![(0.0, 0.0), (0.1, 5_000.0), (0.5, 25_000.0), (0.9, 45_000.0)]
        );
        assert_eq!(l.len(), 4);
        assert_eq!((l[2].fraction, l[2].trial.offered_pps), (0.5, 25_000.0));
        // none asked for, none run; a failing trial fails the step
        let none = SearchSpec {
            latency_loads: vec![],
            ..SearchSpec::default()
        };
        assert!(latency_at_loads(&none, 1e5, |_, _| unreachable!())
            .unwrap()
            .is_empty());
        let err = latency_at_loads(&spec, 1e5, |_, _| {
            Err(crate::error::TestbedError::Interrupted)
        });
        assert!(err.is_err());
    }

    #[test]
    fn the_stream_takes_two_percent_of_the_ndr_between_10_and_1000_pps() {
        use crate::traffic::spec::probe_pps_for;
        assert_eq!(probe_pps_for(120_000.0), 1_000.0);
        assert_eq!(probe_pps_for(5_500.0), 110.0);
        assert_eq!(probe_pps_for(100.0), 10.0);
    }
}
