//! Why a walk fails a check: the generic properties ([`Walk::check`](super::Walk::check))
//! and each header kind's own predictions (`kinds::*::check_walk`).

use super::{Outcome, Revisits};
use crate::kinds::KindError;
use crate::topology::PortRole;
use canopy_dataplane::build::sliced::BuildError as SlicedBuildError;
use canopy_dataplane::wire::WireError;
use thiserror::Error;

/// A walk of a frame from `src` to `dst` (host indices) that breaks a check.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WalkError {
    /// The frame did not reach `dst`.
    #[error("h{src}→h{dst}: {outcome:?}")]
    NotDelivered {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// How the walk ended.
        outcome: Outcome,
    },
    /// A hop forwarded the frame without an egress port role.
    #[error("h{src}→h{dst}: forwarded hop at switch {switch} without egress role")]
    NoEgressRole {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Switch index.
        switch: u32,
    },
    /// An up or side move after a down move, or a second side move.
    #[error(
        "h{src}→h{dst}: {role:?} move at switch {switch} after phase {phase} (not up*-side?-down*)"
    )]
    NotUpSideDown {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// The move's egress role.
        role: PortRole,
        /// Switch index.
        switch: u32,
        /// Phase before the move: 0 up, 1 after the side move, 2 down.
        phase: u8,
    },
    /// A switch visited more often than `revisits` allows.
    #[error("h{src}→h{dst}: switch {switch} visited twice{}", revisit_scope(*.revisits))]
    Revisited {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Switch index.
        switch: u32,
        /// The rule broken.
        revisits: Revisits,
    },
    /// The delivered frame does not parse.
    #[error("h{src}→h{dst}: delivered frame: {error}")]
    Frame {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// What is wrong with it.
        error: WireError,
    },
    /// The payload arrived changed.
    #[error("h{src}→h{dst}: payload changed")]
    PayloadChanged {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
    },
    /// The walk's source or destination is not a host of the topology.
    #[error("h{0} is not a host")]
    NotAHost(u32),
    /// The kind's prediction for the pair could not be computed.
    #[error(transparent)]
    Kind(#[from] KindError),
    /// Sliced: the geometry has no prediction for the pair.
    #[error("h{src}→h{dst}: {error}")]
    Geometry {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Why not.
        error: SlicedBuildError,
    },
    /// Sliced, path-ID: not the predicted number of switches.
    #[error("h{src}→h{dst}: {got} switch traversals, expected {want}")]
    HopCount {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Switches traversed.
        got: usize,
        /// Switches predicted.
        want: usize,
    },
    /// Sliced: the hop limit a source sets is below the predicted switch count.
    #[error("h{src}→h{dst}: hop limit {hop_limit} too small")]
    HopLimitTooSmall {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// The source's hop limit.
        hop_limit: u8,
    },
    /// Sliced: the SLICE was not consumed entirely.
    #[error("h{src}→h{dst}: delivered with cursor {cursor} of {slice_len}")]
    Cursor {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// CURSOR on delivery.
        cursor: u8,
        /// SLICE_LEN.
        slice_len: u8,
    },
    /// Sliced: PHASE_DOWN unset, or SIDE_TAKEN not set exactly when the Znodes differ.
    #[error("h{src}→h{dst}: delivered with PHASE_DOWN {phase_down} SIDE_TAKEN {side_taken}")]
    Flags {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// PHASE_DOWN on delivery.
        phase_down: bool,
        /// SIDE_TAKEN on delivery.
        side_taken: bool,
    },
    /// Sliced: the hop limit was not decremented once per switch.
    #[error("h{src}→h{dst}: hop limit {hop_limit} on delivery")]
    HopLimitOnDelivery {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Hop limit on delivery.
        hop_limit: u8,
    },
    /// Transit: not the stage, hop and swallow counts \[Transit\] predicts.
    #[error(
        "h{src}→h{dst} (k = {k}): (switches, hops, swallows) = {got:?}, [Transit] predicts {want:?}"
    )]
    Stages {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Crossover level.
        k: u32,
        /// (switches traversed, HOPS, swallows) on delivery.
        got: (u32, u32, u32),
        /// The prediction.
        want: (u32, u32, u32),
    },
    /// Transit: CYCLES is not L_open.
    #[error("h{src}→h{dst}: cycles {cycles}")]
    Cycles {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// CYCLES on delivery.
        cycles: u16,
    },
    /// Transit: the head cursor is not on the last routing byte.
    #[error("h{src}→h{dst}: head {head} of {len} bytes")]
    Head {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// HEAD on delivery.
        head: u8,
        /// Routing bytes left.
        len: usize,
    },
    /// Transit: the final rotation is not the destination cluster's.
    #[error("h{src}→h{dst}: final rotation {rot} (expected {want})")]
    Rotation {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// ROT on delivery.
        rot: u8,
        /// The expected rotation.
        want: u8,
    },
    /// Transit: not the predicted numbers of up, side and down stages.
    #[error("h{src}→h{dst} (k = {k}): (up, side, down) = {got:?}, expected {want:?}")]
    Roles {
        /// Source host.
        src: u32,
        /// Destination host.
        dst: u32,
        /// Crossover level.
        k: u32,
        /// (up, side, down) moves taken.
        got: (u32, u32, u32),
        /// The prediction.
        want: (u32, u32, u32),
    },
}

fn revisit_scope(r: Revisits) -> &'static str {
    match r {
        Revisits::Never => "",
        Revisits::OncePerDirection => " in the same direction",
    }
}

/// Some of the pairs a [`PairsReport`](super::PairsReport) walked failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{failed} of {pairs} pairs failed; first: {:#?}", messages(.first))]
pub struct PairsFailed {
    /// Pairs that failed.
    pub failed: u64,
    /// Pairs walked.
    pub pairs: u64,
    /// The first failures (up to 20).
    pub first: Vec<WalkError>,
}

fn messages(e: &[WalkError]) -> Vec<String> {
    e.iter().map(ToString::to_string).collect()
}
