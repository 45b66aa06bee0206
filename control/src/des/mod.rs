//! Discrete-event mode of the in-process fabric: simulated time instead of the CPU's,
//! links with a rate and a propagation delay, output buffers of a given size, store-
//! and-forward or cut-through switching, lossless or drop-tail links, and hosts that
//! offer a load with exponential or fixed gaps. Every forwarding decision is the real
//! [`decide_hops`](canopy_dataplane::decide::decide_hops) on the real tables of the
//! topology's addressing, and every choice among a group's ports is the engine's own
//! [`Adaptive::choose`](canopy_dataplane::engine::adaptive::Adaptive::choose) over the
//! simulated queues: the model supplies time and queues, not routing.
//!
//! The unit is a frame, not a flit: a frame is decided once (after its header with
//! cut-through, after its last bit with store-and-forward), occupies one output at a
//! time, and when it cannot go on it waits whole in its input link (lossless) or is
//! dropped (drop-tail). docs/des.md describes the model and how it differs from a flit-
//! level simulator.

pub mod config;
pub mod fabric;
mod run;
pub mod stats;

pub use config::{
    Arrivals, ConfigError, FlowControl, Injection, Lengths, Network, Switching, Workload,
};
pub use fabric::{End, Prepared};
pub use stats::{Counts, Dist, Outcome, TierUse};

use crate::kinds::KindError;

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DesError {
    /// A configuration value is out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Tables or a header could not be made.
    #[error(transparent)]
    Kind(#[from] KindError),
}

impl Prepared<'_> {
    /// One run of `workload` over `network`; host `h`'s destinations are drawn from
    /// `dests(h)` (`None`: the host sends nothing). Deterministic for a given seed and
    /// destination sequence.
    pub fn run(
        &self,
        network: &Network,
        workload: &Workload,
        dests: &mut dyn FnMut(u32) -> Option<u32>,
    ) -> Result<Outcome, DesError> {
        network.validate()?;
        workload.validate()?;
        let hosts = self.topo.hosts.len().max(1);
        if hosts.saturating_mul(workload.source_queue) > config::MAX_WAITING {
            return Err(ConfigError::Value {
                field: "source_queue",
                value: workload.source_queue.to_string(),
                why: "times the hosts must be at most 2^23 waiting messages",
            }
            .into());
        }
        run::Run::new(self, network, workload).run(dests)
    }
}
