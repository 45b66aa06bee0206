//! Forwarding decisions: pure functions of (switch tables, ingress port, frame bytes).
//!
//! [`decide`] parses the Ethernet frame and the common prefix, enforces the hop limit,
//! and dispatches on the header kind. The kind functions advance the header's cursor in
//! place (the frame length never changes) and return a [`Verdict`]:
//! a deterministic port, a group of equivalent ports for the caller to choose from
//! adaptively, or a drop with a named [`DropReason`].
//!
//! No allocation, no locking, no I/O: these run per packet on the fast path.

pub mod pathid;
pub mod sliced;
pub mod transit;

use crate::table::SwitchTables;
use crate::wire::{canopy_offset, Header, Kind, WireError};

/// Outcome of one forwarding decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Send on exactly this port (deterministic choice).
    Port(u16),
    /// Send on one port of this group of equivalent ports ([`SwitchTables::groups`]);
    /// the caller chooses (engine: least-occupied live port; oracle: at random).
    Group(u16),
    /// Drop the frame and count the reason.
    Drop(DropReason),
}

crate::reasons::drop_reasons! {
    /// Why a frame was dropped. [`DropReason::name`] gives the stable counter label and
    /// [`DropReason::index`] its counter's position in [`DROP_REASON_NAMES`]. The
    /// variants are listed in counter order, the order of `docs/wire-format.md` §7: the
    /// malformed-frame labels of [`WireError::reason`] first, then the decision's own.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DropReason {
        /// The frame or the Canopy header is malformed (which field: see the error).
        Malformed(WireError) => ..,
        /// The ingress port is not a configured port of this switch (or is transmit-only).
        BadIngress => "bad_ingress_port",
        /// The frame arrived with hop limit 0.
        TtlExpired => "ttl_expired",
        /// The switch has no table for this header kind.
        KindNotConfigured => "kind_not_configured",
        /// The chosen group has no port (all removed) — the fabric has no path left.
        NoPort => "no_port",
        /// Sliced: a field extends beyond the valid bits of the SLICE word.
        SliceExhausted => "slice_exhausted",
        /// Sliced: ρ = 1 (or FLAT/SRCDST/DST says "up") at a switch with no up ports.
        UpAtTop => "up_at_top",
        /// Sliced: a down label is not a zone of this switch (label ≥ z_i or no port).
        BadLabel => "bad_label",
        /// Sliced: side label ≥ m, or no side link to that Znode.
        BadSideLabel => "bad_side_label",
        /// A frame that already turned downward arrived on a down port (would go up
        /// again), or a frame arrived on an up/side port before its turn.
        BadPhase => "bad_phase",
        /// Sliced: the frame's mode is not the mode this switch is configured for.
        /// Transit: a strict circuit-mode message (OPEN/TURN/REPLY/CLOSE/ABORT) reached
        /// a packet-switched stage.
        ModeMismatch => "mode_mismatch",
        /// Sliced: a frame leaves a level-1 switch towards a processor with SLICE bits
        /// still unconsumed (the header was built for a longer path).
        SliceLeftover => "slice_leftover",
        /// Transit: no routing byte left for this stage (head ≥ RouteLen after the input's
        /// swallow, if it swallows).
        RouteExhausted => "route_exhausted",
        /// Transit: the decoded direction has no connected output (e.g. 11 at the root).
        NoOutput => "no_output",
        /// Path-ID: no LPM entry matches the path ID.
        NoRoute => "no_route",
    }
}

/// Every counter label a drop can carry, in counter order ([`DropReason::NAMES`]).
/// The engine pre-registers one counter per label.
pub const DROP_REASON_NAMES: &[&str] = &DropReason::NAMES;

impl core::fmt::Display for DropReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DropReason::Malformed(e) => write!(f, "malformed: {e}"),
            other => f.write_str(other.name()),
        }
    }
}

impl From<WireError> for DropReason {
    fn from(e: WireError) -> Self {
        DropReason::Malformed(e)
    }
}

/// Offset of a Canopy header whose prefix passes every check of
/// [`Header::new_checked`] and whose frame carries the payload it announces
/// ([`Header::check_payload`]): [`canopy_offset`] then those checks, with the exact
/// errors of the first failing check. Sets `hops` when the prefix has flag HOPS (only
/// this path takes such frames).
#[cold]
#[inline(never)]
fn checked_offset(frame: &[u8], hops: &mut bool) -> Result<usize, WireError> {
    let off = canopy_offset(frame)?;
    let h = Header::new_checked(&frame[off..])?;
    h.check_payload()?;
    *hops = h.has_hops();
    Ok(off)
}

/// The common case of [`checked_offset`] in a few instructions: an untagged Canopy
/// frame whose prefix is valid (version, kind, flags, header length and payload within
/// the frame) and that carries no hop record area.
/// `None` for anything else, which then takes the checked path (VLAN tags, errors),
/// so the verdicts are the same.
#[inline(always)]
fn fast_offset(frame: &[u8]) -> Option<usize> {
    use crate::wire::{ETHERTYPE_CANOPY, ETH_HEADER_LEN, FLAG_MEAS, MEAS_LEN, PREFIX_LEN, VERSION};
    let b = frame.get(ETH_HEADER_LEN - 2..ETH_HEADER_LEN + PREFIX_LEN)?;
    let (ethertype, vk, flags, hdr_len) = (u16::from_be_bytes([b[0], b[1]]), b[2], b[3], b[5]);
    let payload = usize::from(u16::from_be_bytes([b[6], b[7]]));
    let min = PREFIX_LEN + 8 + if flags & FLAG_MEAS != 0 { MEAS_LEN } else { 0 };
    let hl = usize::from(hdr_len) * 8;
    let ok = ethertype == ETHERTYPE_CANOPY
        && vk >> 4 == VERSION
        && matches!(vk & 0x0f, 1..=3)
        // a frame with a hop record area (FLAG_HOPS) takes the checked path, which
        // checks the area's descriptor
        && flags & !FLAG_MEAS == 0
        && hl >= min
        && frame.len() - ETH_HEADER_LEN >= hl + payload;
    ok.then_some(ETH_HEADER_LEN)
}

/// Decide what to do with `frame` (a whole Ethernet frame) that arrived on `ingress`.
///
/// On a forward verdict the header has been updated in place: hop limit decremented and
/// the kind's cursor advanced. On a drop the frame may have been partly updated.
#[inline]
pub fn decide(t: &SwitchTables, ingress: u16, frame: &mut [u8]) -> Verdict {
    match sliced::decide_frame(t, ingress, frame) {
        Some(v) => v,
        None => decide_rest(t, ingress, frame, &mut false),
    }
}

/// A [`Verdict`] as the engine acts on it, in 4 bytes: a drop carries only its
/// counter's index ([`DropReason::index`]), not the malformed-field detail, so the
/// decision returns in a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// [`Verdict::Port`].
    Port(u16),
    /// [`Verdict::Group`].
    Group(u16),
    /// [`Verdict::Drop`]: the index of the reason's counter in [`DROP_REASON_NAMES`].
    Drop(u8),
}

impl From<Verdict> for Decision {
    #[inline(always)]
    fn from(v: Verdict) -> Self {
        const _: () = assert!(DROP_REASON_NAMES.len() <= 256);
        match v {
            Verdict::Port(p) => Decision::Port(p),
            Verdict::Group(g) => Decision::Group(g),
            Verdict::Drop(r) => Decision::Drop(r.index() as u8),
        }
    }
}

/// [`decide`] as the engine needs it: the verdict as a [`Decision`], and whether the
/// frame asks for a hop record (prefix flag HOPS, `docs/wire-format.md` §2.1), which
/// the engine then writes: `hops` is set for such a frame and left alone otherwise.
/// Free on the fast path, which takes no frame with the flag.
///
/// The commonest frame (untagged, sliced-flit, mode 0, no hop record area) is decided
/// inline by `sliced::decide_frame`, so the decision stays in registers; every other
/// frame takes an out-of-line call.
#[inline(always)]
pub fn decide_hops(t: &SwitchTables, ingress: u16, frame: &mut [u8], hops: &mut bool) -> Decision {
    match sliced::decide_frame(t, ingress, frame) {
        Some(v) => v.into(),
        None => decide_other(t, ingress, frame, hops),
    }
}

/// [`decide_hops`] for every frame `sliced::decide_frame` does not take.
#[inline(never)]
fn decide_other(t: &SwitchTables, ingress: u16, frame: &mut [u8], hops: &mut bool) -> Decision {
    decide_rest(t, ingress, frame, hops).into()
}

/// [`decide`] for every frame `sliced::decide_frame` does not take.
#[inline]
fn decide_rest(t: &SwitchTables, ingress: u16, frame: &mut [u8], hops: &mut bool) -> Verdict {
    let off = match fast_offset(frame) {
        Some(o) => o,
        None => match checked_offset(frame, hops) {
            Ok(o) => o,
            Err(e) => return Verdict::Drop(e.into()),
        },
    };
    after_prefix(t, ingress, frame, off, sliced::decide)
}

/// [`decide`] without its fast paths: every frame through the full checks of the wire
/// views (`canopy_offset`, `Header::new_checked`, the kind's `new_checked`). Same
/// verdicts and the same bytes written, only slower; the reference the fast paths are
/// tested against (`tests/decide_fast_path.rs`).
pub fn decide_general(t: &SwitchTables, ingress: u16, frame: &mut [u8]) -> Verdict {
    let off = match checked_offset(frame, &mut false) {
        Ok(o) => o,
        Err(e) => return Verdict::Drop(e.into()),
    };
    after_prefix(t, ingress, frame, off, sliced::decide_checked)
}

/// The decision once the prefix at `off` is known valid; `sliced` decides sliced bodies.
#[inline(always)]
fn after_prefix(
    t: &SwitchTables,
    ingress: u16,
    frame: &mut [u8],
    off: usize,
    sliced: fn(&crate::table::sliced::SlicedTable, &SwitchTables, u16, &mut [u8]) -> Verdict,
) -> Verdict {
    let mut h = Header::new_unchecked(&mut frame[off..]);
    match t.ports.get(usize::from(ingress)) {
        Some(p) if p.dir != crate::table::PortDir::Out => {}
        _ => return Verdict::Drop(DropReason::BadIngress),
    }
    let ttl = h.hop_limit();
    if ttl == 0 {
        return Verdict::Drop(DropReason::TtlExpired);
    }
    h.set_hop_limit(ttl - 1);
    match h.kind() {
        Kind::Sliced => match &t.sliced {
            Some(st) => sliced(st, t, ingress, h.body_mut()),
            None => Verdict::Drop(DropReason::KindNotConfigured),
        },
        Kind::Transit => match &t.transit {
            Some(tt) => transit::decide(tt, t, ingress, h.body_mut()),
            None => Verdict::Drop(DropReason::KindNotConfigured),
        },
        Kind::PathId => match &t.pathid {
            Some(pt) => pathid::decide(pt, t, ingress, h.body_mut()),
            None => Verdict::Drop(DropReason::KindNotConfigured),
        },
    }
}

#[cfg(test)]
pub(crate) mod names_tests {
    use super::*;

    /// One value of every variant (and of every `WireError` variant inside
    /// `Malformed`). The exhaustive matches make adding a variant without listing it
    /// here a compile error.
    pub(crate) fn every_reason() -> Vec<DropReason> {
        let w = [
            WireError::Truncated {
                field: "f",
                need: 1,
                have: 0,
            },
            WireError::NotCanopy(0),
            WireError::TooManyTags,
            WireError::BadVersion(0),
            WireError::UnknownKind(0),
            WireError::Reserved {
                field: "f",
                value: 1,
            },
            WireError::BadValue {
                field: "f",
                value: 1,
                why: "w",
            },
        ];
        for e in &w {
            match e {
                WireError::Truncated { .. }
                | WireError::NotCanopy(_)
                | WireError::TooManyTags
                | WireError::BadVersion(_)
                | WireError::UnknownKind(_)
                | WireError::Reserved { .. }
                | WireError::BadValue { .. } => {}
            }
        }
        let mut v: Vec<DropReason> = w.into_iter().map(DropReason::Malformed).collect();
        v.extend([
            DropReason::TtlExpired,
            DropReason::KindNotConfigured,
            DropReason::BadIngress,
            DropReason::SliceExhausted,
            DropReason::UpAtTop,
            DropReason::BadLabel,
            DropReason::BadSideLabel,
            DropReason::BadPhase,
            DropReason::ModeMismatch,
            DropReason::RouteExhausted,
            DropReason::NoOutput,
            DropReason::NoRoute,
            DropReason::NoPort,
            DropReason::SliceLeftover,
        ]);
        for r in &v {
            match r {
                DropReason::Malformed(_)
                | DropReason::TtlExpired
                | DropReason::KindNotConfigured
                | DropReason::BadIngress
                | DropReason::SliceExhausted
                | DropReason::UpAtTop
                | DropReason::BadLabel
                | DropReason::BadSideLabel
                | DropReason::BadPhase
                | DropReason::ModeMismatch
                | DropReason::RouteExhausted
                | DropReason::NoOutput
                | DropReason::NoRoute
                | DropReason::NoPort
                | DropReason::SliceLeftover => {}
            }
        }
        v
    }

    #[test]
    fn names_are_listed_unique_and_documented() {
        let mut names: Vec<&str> = every_reason().iter().map(DropReason::name).collect();
        let mut listed = DROP_REASON_NAMES.to_vec();
        names.sort_unstable();
        listed.sort_unstable();
        assert_eq!(names, listed, "DROP_REASON_NAMES and the variants disagree");
        listed.dedup();
        assert_eq!(listed.len(), DROP_REASON_NAMES.len(), "duplicate names");
        let doc = crate::wire::WIRE_FORMAT_DOC;
        let summary = doc
            .split("## 7. Summary of every drop reason")
            .nth(1)
            .expect("wire-format.md has a section 7");
        for n in DROP_REASON_NAMES {
            assert!(
                summary.contains(&format!("| `{n}` |")),
                "`{n}` missing from wire-format.md §7"
            );
        }
        // §7.1: the engine's and the AF_PACKET backend's own labels, each in its table
        let extra = summary
            .split("### 7.1 ")
            .nth(1)
            .expect("wire-format.md has a section 7.1");
        let (engine, port) = extra
            .split_once("AF_PACKET backend")
            .expect("§7.1 has an AF_PACKET table after the engine table");
        for n in crate::engine::counters::ENGINE_DROP_NAMES {
            assert!(
                !DROP_REASON_NAMES.contains(n),
                "`{n}` is also a decision reason"
            );
            assert!(
                engine.contains(&format!("| `{n}` |")),
                "`{n}` missing from the engine table of wire-format.md §7.1"
            );
        }
        #[cfg(target_os = "linux")]
        for n in crate::port::afpacket::PortDrop::NAMES {
            assert!(
                port.contains(&format!("| `{n}` |")),
                "`{n}` missing from the AF_PACKET table of wire-format.md §7.1"
            );
        }
        #[cfg(not(target_os = "linux"))]
        let _ = port;
    }
}
