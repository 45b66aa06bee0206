//! Who holds a server's connection slots, and who yields one to a new connection.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// A TCP connection that has not authenticated, since its accept.
    Unauthenticated(Instant),
    /// Waiting for its next request line, since its last answer (or its accept).
    Waiting(Instant),
    /// Answering a request: never evicted.
    Busy,
}

impl Phase {
    /// Eviction order: unauthenticated before waiting, then the longest-waiting first.
    fn victim_rank(self) -> Option<(u8, Instant)> {
        match self {
            Phase::Unauthenticated(t) => Some((0, t)),
            Phase::Waiting(t) => Some((1, t)),
            Phase::Busy => None,
        }
    }
}

/// How a slot's holder is told to go: its flag is set, then `kick` ends its reads.
struct Holder {
    id: u64,
    phase: Phase,
    evicted: Arc<AtomicBool>,
    kick: Box<dyn Fn() + Send>,
}

/// A connection's place in [`Slots`].
pub(super) struct Ticket {
    pub(super) id: u64,
    /// Set when the slot was given to another connection.
    pub(super) evicted: Arc<AtomicBool>,
}

/// Why [`Slots::admit`] refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Full;

/// The open connections of one server.
pub(super) struct Slots {
    max: usize,
    inner: Mutex<(u64, Vec<Holder>)>,
}

impl Slots {
    pub(super) fn new(max: usize) -> Slots {
        Slots {
            max: max.max(1),
            inner: Mutex::new((0, Vec::new())),
        }
    }

    /// Give a new connection (in `phase`, which is not [`Phase::Busy`]) a slot: a free
    /// one, or one taken from a connection between requests (an unauthenticated one
    /// first, then the longest-waiting; an unauthenticated newcomer also takes one from
    /// another unauthenticated connection once they hold half the slots). `kick` ends
    /// the reads of the connection when it must yield its slot in turn.
    pub(super) fn admit(&self, phase: Phase, kick: Box<dyn Fn() + Send>) -> Result<Ticket, Full> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (next, holders) = &mut *g;
        let unauth = |h: &Holder| matches!(h.phase, Phase::Unauthenticated(_));
        let newcomer_unauth = matches!(phase, Phase::Unauthenticated(_));
        let too_many_unauth =
            newcomer_unauth && holders.iter().filter(|h| unauth(h)).count() >= self.max.div_ceil(2);
        if holders.len() >= self.max || too_many_unauth {
            let victim = holders
                .iter()
                .enumerate()
                .filter(|(_, h)| !too_many_unauth || unauth(h))
                .filter_map(|(i, h)| h.phase.victim_rank().map(|r| (r, i)))
                .min()
                .map(|(_, i)| i)
                .ok_or(Full)?;
            let h = holders.swap_remove(victim);
            h.evicted.store(true, Ordering::Release);
            (h.kick)();
        }
        *next += 1;
        let evicted = Arc::new(AtomicBool::new(false));
        holders.push(Holder {
            id: *next,
            phase,
            evicted: evicted.clone(),
            kick,
        });
        Ok(Ticket { id: *next, evicted })
    }

    /// Set the phase of `t`'s connection; false when it no longer holds a slot (it was
    /// evicted: it must not start a request).
    pub(super) fn set(&self, t: &Ticket, phase: Phase) -> bool {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        match g.1.iter_mut().find(|h| h.id == t.id) {
            Some(h) => {
                h.phase = phase;
                true
            }
            None => false,
        }
    }

    /// Give `t`'s slot back (the connection ended).
    pub(super) fn leave(&self, t: &Ticket) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.1.retain(|h| h.id != t.id);
    }

    /// Connections holding a slot.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.inner.lock().unwrap().1.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    fn kicks() -> (Arc<AtomicUsize>, impl Fn() -> Box<dyn Fn() + Send>) {
        let n = Arc::new(AtomicUsize::new(0));
        let m = n.clone();
        (n, move || {
            let m = m.clone();
            Box::new(move || {
                m.fetch_add(1, Ordering::Relaxed);
            })
        })
    }

    #[test]
    fn a_full_server_evicts_the_longest_waiting_and_refuses_only_when_all_are_busy() {
        let s = Slots::new(3);
        let t0 = Instant::now();
        let (kicked, kick) = kicks();
        let a = s.admit(Phase::Waiting(t0), kick()).unwrap();
        let b = s
            .admit(Phase::Waiting(t0 + Duration::from_secs(1)), kick())
            .unwrap();
        let c = s
            .admit(Phase::Waiting(t0 + Duration::from_secs(2)), kick())
            .unwrap();
        assert!(s.set(&a, Phase::Busy));
        // full: b waited longest among those not busy
        let d = s
            .admit(Phase::Waiting(t0 + Duration::from_secs(3)), kick())
            .unwrap();
        assert!(b.evicted.load(Ordering::Acquire));
        assert_eq!(kicked.load(Ordering::Relaxed), 1);
        assert!(
            !s.set(&b, Phase::Busy),
            "an evicted connection starts no request"
        );
        assert_eq!(s.len(), 3);
        // all busy: refused, nobody kicked
        assert!(s.set(&c, Phase::Busy) && s.set(&d, Phase::Busy));
        assert!(matches!(s.admit(Phase::Waiting(t0), kick()), Err(Full)));
        assert_eq!(kicked.load(Ordering::Relaxed), 1);
        // one leaves: a free slot, nobody kicked
        s.leave(&c);
        s.admit(Phase::Waiting(t0), kick()).unwrap();
        assert_eq!(kicked.load(Ordering::Relaxed), 1);
        assert!(!a.evicted.load(Ordering::Acquire));
    }

    #[test]
    fn unauthenticated_connections_yield_first_and_hold_at_most_half() {
        let s = Slots::new(4);
        let t0 = Instant::now();
        let (kicked, kick) = kicks();
        let authed = s.admit(Phase::Unauthenticated(t0), kick()).unwrap();
        assert!(s.set(&authed, Phase::Waiting(t0)));
        let u1 = s
            .admit(Phase::Unauthenticated(t0 + Duration::from_secs(1)), kick())
            .unwrap();
        let u2 = s
            .admit(Phase::Unauthenticated(t0 + Duration::from_secs(2)), kick())
            .unwrap();
        // a third unauthenticated one takes the oldest unauthenticated slot, although
        // a slot is free: they hold at most half
        let u3 = s
            .admit(Phase::Unauthenticated(t0 + Duration::from_secs(3)), kick())
            .unwrap();
        assert!(u1.evicted.load(Ordering::Acquire));
        assert_eq!(kicked.load(Ordering::Relaxed), 1);
        assert_eq!(s.len(), 3);
        // a trusted newcomer fills the free slot, then takes an unauthenticated one
        // before the authenticated one that waited longer
        s.admit(Phase::Waiting(t0 + Duration::from_secs(4)), kick())
            .unwrap();
        s.admit(Phase::Waiting(t0 + Duration::from_secs(5)), kick())
            .unwrap();
        assert!(u2.evicted.load(Ordering::Acquire));
        assert!(!authed.evicted.load(Ordering::Acquire));
        assert!(!u3.evicted.load(Ordering::Acquire));
    }
}
