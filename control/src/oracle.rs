//! Routing oracle: walks a frame hop by hop through the model graph, applying the
//! dataplane's own decision function ([`canopy_dataplane::decide`](fn@canopy_dataplane::decide)) at every switch, so
//! the tests check the code that forwards, not a second model of it.
//!
//! Where a decision yields a group of equivalent ports, the oracle picks one at random:
//! a correct fabric delivers every frame to the same host whatever is picked.

use crate::kinds::{self, KindError};
use crate::topology::{Peer, PortDir, PortRole, Topology};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::{self, Kind};
use canopy_dataplane::{decide, DropReason, Verdict};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fmt::Write as _;

mod walk_error;
pub use walk_error::{PairsFailed, WalkError};

/// Payload the oracle carries (checked intact on delivery).
pub const PAYLOAD: [u8; 4] = [0xDE, 0xAD, 0xBE, 0xEF];

/// One switch traversal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Switch index.
    pub switch: u32,
    /// Port the frame arrived on.
    pub ingress: u16,
    /// The decision.
    pub verdict: Verdict,
    /// Port chosen (for forward verdicts).
    pub egress: Option<u16>,
    /// Role of the egress port.
    pub egress_role: Option<PortRole>,
    /// Canopy header after the decision (when recording headers).
    pub header: Vec<u8>,
}

/// How a walk ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Reached a host.
    Delivered {
        /// Host index.
        host: u32,
        /// Host port it arrived on.
        port: u16,
    },
    /// A switch dropped the frame.
    Dropped {
        /// Switch index.
        switch: u32,
        /// Why.
        reason: DropReason,
    },
    /// The chosen egress port is not connected (or is receive-only).
    Dangling {
        /// Switch index.
        switch: u32,
        /// Port.
        port: u16,
    },
    /// The source host has no port to transmit on (or the source or destination is not
    /// a host of the topology).
    NoInjection,
    /// The walker's own guard: more switch traversals than any valid path has.
    TooManyHops,
}

/// A complete walk of one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    /// Source host.
    pub src: u32,
    /// Intended destination host.
    pub dst: u32,
    /// Host port the frame was injected on.
    pub inject_port: u16,
    /// Canopy header as built by the source.
    pub header: Vec<u8>,
    /// Switch traversals in order.
    pub hops: Vec<Hop>,
    /// How it ended.
    pub outcome: Outcome,
    /// Frame as delivered (when delivered).
    pub delivered_frame: Vec<u8>,
}

impl Walk {
    /// Host the frame reached, if any.
    pub fn delivered_to(&self) -> Option<u32> {
        match self.outcome {
            Outcome::Delivered { host, .. } => Some(host),
            _ => None,
        }
    }

    /// Number of switches traversed.
    pub fn switch_hops(&self) -> usize {
        self.hops.len()
    }

    /// The generic properties every kind must satisfy: delivered to the intended host
    /// with the payload intact, no switch visited twice, and an `up*-[side]-down*` path
    /// (no up or side move after a down move, at most one side move).
    pub fn check(&self) -> Result<(), WalkError> {
        self.check_with(Revisits::Never)
    }

    /// [`Walk::check`] with the rule for revisiting a switch given by `revisits`.
    pub fn check_with(&self, revisits: Revisits) -> Result<(), WalkError> {
        let (src, dst) = (self.src, self.dst);
        match self.delivered_to() {
            Some(h) if h == dst => {}
            _ => {
                return Err(WalkError::NotDelivered {
                    src,
                    dst,
                    outcome: self.outcome.clone(),
                })
            }
        }
        let mut seen = std::collections::HashSet::new();
        let mut phase: u8 = 0; // 0 = up, 1 = after side, 2 = down
        for h in &self.hops {
            let switch = h.switch;
            let role = h
                .egress_role
                .ok_or(WalkError::NoEgressRole { src, dst, switch })?;
            phase = match (phase, role) {
                (0, PortRole::Up) => 0,
                (0, PortRole::Side) => 1,
                (_, PortRole::Down) => 2,
                (phase, role) => {
                    return Err(WalkError::NotUpSideDown {
                        src,
                        dst,
                        role,
                        switch,
                        phase,
                    })
                }
            };
            let key = match revisits {
                Revisits::Never => (switch, false),
                Revisits::OncePerDirection => (switch, phase == 0),
            };
            if !seen.insert(key) {
                return Err(WalkError::Revisited {
                    src,
                    dst,
                    switch,
                    revisits,
                });
            }
        }
        let h = self.delivered_header()?;
        if h.payload().get(..PAYLOAD.len()) != Some(&PAYLOAD[..]) {
            return Err(WalkError::PayloadChanged { src, dst });
        }
        Ok(())
    }

    /// The Canopy header of the delivered frame.
    pub fn delivered_header(&self) -> Result<wire::Header<&[u8]>, WalkError> {
        let frame = |error| WalkError::Frame {
            src: self.src,
            dst: self.dst,
            error,
        };
        let off = wire::canopy_offset(&self.delivered_frame).map_err(frame)?;
        wire::Header::new_checked(&self.delivered_frame[off..]).map_err(frame)
    }

    /// Human-readable hop-by-hop trace.
    pub fn render(&self, t: &Topology) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} -> {}: inject on host port {}, header {}",
            t.host_name(self.src),
            t.host_name(self.dst),
            self.inject_port,
            hex::encode(&self.header)
        );
        for (i, h) in self.hops.iter().enumerate() {
            let sw = &t.switches[h.switch as usize];
            let inrole = sw.ports[usize::from(h.ingress)].role;
            let how = match h.verdict {
                Verdict::Port(_) => "deterministic".to_string(),
                Verdict::Group(g) => format!("group {g}"),
                Verdict::Drop(r) => format!("DROP {r}"),
            };
            let _ = write!(
                s,
                "{:>3}  {:<24} L{} in p{} ({:?}) -> ",
                i + 1,
                sw.name,
                sw.level,
                h.ingress,
                inrole
            );
            match (h.egress, h.egress_role) {
                (Some(e), Some(r)) => {
                    let _ = write!(s, "out p{e} ({r:?}) [{how}]");
                }
                _ => {
                    let _ = write!(s, "[{how}]");
                }
            }
            if !h.header.is_empty() {
                let _ = write!(s, "  hdr {}", hex::encode(&h.header));
            }
            s.push('\n');
        }
        let _ = writeln!(s, "  => {:?}", self.outcome);
        s
    }
}

/// How often a walk may pass the same switch ([`Walk::check_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revisits {
    /// Never: every valid path of an up*-down* fabric is loop-free.
    Never,
    /// At most once going up and once coming down: the sliced FLAT mode climbs to the top
    /// and comes back through its own ancestors.
    OncePerDirection,
}

/// Locally administered MAC of a host (02:43:4e = "CN" + 24 bits of the index; of `h`
/// itself when it is not a host).
pub fn host_mac(t: &Topology, h: u32) -> [u8; 6] {
    let i = t.hosts.get(h as usize).map_or(u64::from(h), |x| x.index);
    [0x02, 0x43, 0x4e, (i >> 16) as u8, (i >> 8) as u8, i as u8]
}

/// The oracle: a topology with one kind's tables.
pub struct Oracle<'a> {
    topo: &'a Topology,
    tables: Vec<SwitchTables>,
    /// Record the header after every hop (for traces; costs an allocation per hop).
    pub record_headers: bool,
    /// Guard against loops: abort after this many switch traversals.
    pub max_hops: usize,
}

impl<'a> Oracle<'a> {
    /// Oracle over `tables` (index = switch index).
    pub fn new(topo: &'a Topology, tables: Vec<SwitchTables>) -> Self {
        let max_hops = 4 * usize::from(topo.levels()).max(1) + 64;
        Oracle {
            topo,
            tables,
            record_headers: false,
            max_hops,
        }
    }

    /// Oracle for `kind` with tables computed from the topology.
    pub fn for_kind(topo: &'a Topology, kind: Kind) -> Result<Self, KindError> {
        Ok(Self::new(topo, kinds::tables(topo, kind)?))
    }

    /// The tables in use.
    pub fn tables(&self) -> &[SwitchTables] {
        &self.tables
    }

    /// Walk a frame carrying `header` from `src` towards `dst`.
    pub fn walk_header<R: Rng>(&self, src: u32, dst: u32, header: &[u8], rng: &mut R) -> Walk {
        let t = self.topo;
        let mut frame = wire::ethernet_frame(host_mac(t, dst), host_mac(t, src), header, &PAYLOAD);
        let mut walk = Walk {
            src,
            dst,
            inject_port: 0,
            header: header.to_vec(),
            hops: Vec::new(),
            outcome: Outcome::NoInjection,
            delivered_frame: Vec::new(),
        };
        let Some(src_host) = t.hosts.get(src as usize) else {
            return walk;
        };
        if dst as usize >= t.hosts.len() {
            return walk;
        }
        let tx: Vec<u16> = src_host.send_ports().map(|(i, _)| i).collect();
        let Some(&inj) = tx.choose(rng) else {
            return walk;
        };
        walk.inject_port = inj;
        let mut at = src_host.ports[usize::from(inj)].peer;
        loop {
            let (sw, ingress) = match at {
                Peer::Switch { sw, port } => (sw, port),
                Peer::Host { host, port } => {
                    walk.outcome = Outcome::Delivered { host, port };
                    walk.delivered_frame = frame;
                    return walk;
                }
                Peer::None => unreachable!("checked before moving"),
            };
            if walk.hops.len() >= self.max_hops {
                walk.outcome = Outcome::TooManyHops;
                return walk;
            }
            let verdict = decide(&self.tables[sw as usize], ingress, &mut frame);
            let egress = match verdict {
                Verdict::Port(p) => Some(p),
                Verdict::Group(g) => self.tables[sw as usize].group(g).choose(rng).copied(),
                Verdict::Drop(_) => None,
            };
            let header_after = if self.record_headers {
                wire::canopy_offset(&frame)
                    .ok()
                    .and_then(|o| {
                        wire::Header::new_checked(&frame[o..])
                            .ok()
                            .map(|h| frame[o..o + h.header_len()].to_vec())
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let port = egress.and_then(|e| t.switches[sw as usize].ports.get(usize::from(e)));
            walk.hops.push(Hop {
                switch: sw,
                ingress,
                verdict,
                egress,
                egress_role: port.map(|p| p.role),
                header: header_after,
            });
            match (verdict, egress, port) {
                (Verdict::Drop(reason), _, _) => {
                    walk.outcome = Outcome::Dropped { switch: sw, reason };
                    return walk;
                }
                (_, None, _) => {
                    walk.outcome = Outcome::Dropped {
                        switch: sw,
                        reason: DropReason::NoPort,
                    };
                    return walk;
                }
                (_, Some(_), Some(p)) if p.peer != Peer::None && p.dir != PortDir::In => {
                    at = p.peer
                }
                (_, Some(e), _) => {
                    walk.outcome = Outcome::Dangling {
                        switch: sw,
                        port: e,
                    };
                    return walk;
                }
            }
        }
    }

    /// Build the source header for `kind` and walk it.
    pub fn walk<R: Rng>(
        &self,
        kind: Kind,
        src: u32,
        dst: u32,
        rng: &mut R,
    ) -> Result<Walk, KindError> {
        let h = kinds::header(self.topo, kind, src, dst)?;
        Ok(self.walk_header(src, dst, &h, rng))
    }
}

/// Result of checking many pairs. Serialized (for `canopyctl check --json`) with its
/// field names: `failures` as their messages, `hops` as an object from the number of
/// switch traversals (a string, as JSON keys are) to the pairs that took it.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairsReport {
    /// Pairs walked.
    pub pairs: u64,
    /// Pairs delivered and passing every check.
    pub ok: u64,
    /// First failures (up to 20).
    #[serde(serialize_with = "messages")]
    pub failures: Vec<WalkError>,
    /// Number of failures.
    pub failed: u64,
    /// Histogram of switch traversals over passing pairs.
    pub hops: BTreeMap<usize, u64>,
}

/// Errors serialized as their messages.
fn messages<S: serde::Serializer>(errors: &[WalkError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(ToString::to_string))
}

impl PairsReport {
    /// Panic-free assertion helper for tests: `Err` with the first failures.
    pub fn ensure_all_ok(&self) -> Result<(), PairsFailed> {
        if self.failed == 0 && self.ok == self.pairs {
            Ok(())
        } else {
            Err(PairsFailed {
                failed: self.failed,
                pairs: self.pairs,
                first: self.failures.clone(),
            })
        }
    }
}

/// Walk `pairs` with `kind`, checking [`Walk::check`] plus a kind-specific `extra`
/// check (e.g. exact hop counts), with adaptive choices drawn from `seed`.
pub fn check_pairs(
    oracle: &Oracle<'_>,
    kind: Kind,
    pairs: impl IntoIterator<Item = (u32, u32)>,
    seed: u64,
    extra: impl Fn(&Walk) -> Result<(), WalkError>,
) -> Result<PairsReport, KindError> {
    check_pairs_with(
        oracle,
        pairs,
        seed,
        |s, d| kinds::header(oracle.topo, kind, s, d),
        |w| w.check().and_then(|_| extra(w)),
    )
}

/// The general form of [`check_pairs`]: each pair's header comes from `header` and each
/// walk is judged by `check` alone (which should include [`Walk::check`] or a variant of
/// it, such as the sliced FLAT mode's).
pub fn check_pairs_with(
    oracle: &Oracle<'_>,
    pairs: impl IntoIterator<Item = (u32, u32)>,
    seed: u64,
    header: impl Fn(u32, u32) -> Result<Vec<u8>, KindError>,
    check: impl Fn(&Walk) -> Result<(), WalkError>,
) -> Result<PairsReport, KindError> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut rep = PairsReport::default();
    for (s, d) in pairs {
        rep.pairs += 1;
        let w = oracle.walk_header(s, d, &header(s, d)?, &mut rng);
        match check(&w) {
            Ok(()) => {
                rep.ok += 1;
                *rep.hops.entry(w.switch_hops()).or_default() += 1;
            }
            Err(e) => {
                rep.failed += 1;
                if rep.failures.len() < 20 {
                    rep.failures.push(e);
                }
            }
        }
    }
    Ok(rep)
}

/// All ordered pairs of distinct hosts.
pub fn all_pairs(t: &Topology) -> impl Iterator<Item = (u32, u32)> {
    let n = t.hosts.len() as u32;
    (0..n).flat_map(move |s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
}

/// `count` random ordered pairs of distinct hosts (for topologies too big for all pairs).
pub fn random_pairs(t: &Topology, count: usize, seed: u64) -> Vec<(u32, u32)> {
    let n = t.hosts.len() as u32;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    if n < 2 {
        return Vec::new();
    }
    (0..count)
        .map(|_| {
            let s = rng.gen_range(0..n);
            let mut d = rng.gen_range(0..n - 1);
            if d >= s {
                d += 1;
            }
            (s, d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn walking_from_or_to_a_missing_host_is_no_injection_not_a_panic() {
        // `walk_header` and `host_mac` indexed `t.hosts[h]`: a host id past the end
        // panicked instead of giving an outcome the checks reject.
        let t = crate::topology::build_str("fat-tree:k=4").unwrap();
        let o = Oracle::for_kind(&t, Kind::Sliced).unwrap();
        let h = kinds::header(&t, Kind::Sliced, 0, 15).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for (s, d) in [(16, 15), (0, 16), (u32::MAX, u32::MAX)] {
            let w = o.walk_header(s, d, &h, &mut rng);
            assert_eq!(w.outcome, Outcome::NoInjection, "h{s} -> h{d}");
            assert!(w.check().is_err());
            // the kind's own walk checks reject it too
            let g = kinds::sliced::geometry(&t).unwrap();
            let mode = canopy_dataplane::wire::sliced::Mode::Sliced;
            assert!(kinds::sliced::check_walk(&t, &g, mode, &w).is_err());
        }
        assert!(matches!(
            o.walk_header(0, 15, &h, &mut rng).outcome,
            Outcome::Delivered { host: 15, .. }
        ));
    }
}
