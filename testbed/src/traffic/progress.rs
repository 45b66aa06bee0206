//! Progress display of trials and searches (`indicatif`): a bar of frames sent per
//! trial, with the trial's offered rate and, in a search, the step. Drawn on stderr, so
//! stdout carries only results (a summary or `--json` piped on stays clean); hidden when
//! `quiet` or when stderr is not a terminal (CI, redirected logs).

use crate::report::results::Trial;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar that may be hidden.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// Visible only when not `quiet` and stderr is a terminal; drawn on stderr.
    pub fn new(quiet: bool) -> Progress {
        let bar = if quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{prefix:.bold} {msg} [{bar:30}] {pos}/{len} frames ({elapsed})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b
        };
        Progress { bar }
    }

    /// Always hidden.
    pub fn hidden() -> Progress {
        Progress {
            bar: ProgressBar::hidden(),
        }
    }

    /// Whether anything is drawn.
    pub fn is_hidden(&self) -> bool {
        self.bar.is_hidden()
    }

    /// Text before the bar (the search step).
    pub fn set_prefix(&self, p: String) {
        self.bar.set_prefix(p);
    }

    /// A trial of `total` frames at `offered` pps starts.
    pub fn start_trial(&self, offered: f64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.set_message(format!("{offered:.0} pps"));
    }

    /// Frames sent so far.
    pub fn set_position(&self, sent: u64) {
        self.bar.set_position(sent);
    }

    /// The trial ended.
    pub fn end_trial(&self, t: &Trial) {
        self.bar.println(format!(
            "offered {:.0} pps: sent {}, received {}, lost {} ({:.3} %), p50 {} ns, p99 {} ns",
            t.offered_pps,
            t.sent,
            t.received,
            t.lost,
            t.loss_ratio * 100.0,
            t.latency.p50_ns,
            t.latency.p99_ns
        ));
    }

    /// The search (or run) ended.
    pub fn finish(&self, msg: &str) {
        self.bar.finish_with_message(msg.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_when_quiet_or_not_a_terminal() {
        assert!(Progress::new(true).is_hidden());
        assert!(Progress::hidden().is_hidden());
        // under `cargo test` (CI, or output piped) stderr is not a terminal
        if !std::io::stderr().is_terminal() {
            assert!(Progress::new(false).is_hidden());
        }
    }
}
