//! Adaptive choice among a group's live ports: the least-occupied ring (every port
//! compared for groups of up to 8, power-of-two choices beyond), ties broken uniformly
//! at random with a per-worker xorshift; optional flowlets pin a flow to its port while
//! its packets are closer together than the idle gap.

/// xorshift64* — cheap, per worker, never zero.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// Seeded generator (a zero seed is replaced).
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }
    /// Next value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (n > 0), multiply-shift (bias < 2^-32 for small n).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Choose among `n` candidates (the live ports of a group) the one with the least
/// `occupancy(i)`, by index; ties uniformly at random. Up to 8 candidates are all
/// compared; from larger groups two distinct random ones are (power of two choices).
/// `None` when `n` is 0.
#[inline]
pub fn least_occupied(
    n: usize,
    rng: &mut XorShift,
    mut occupancy: impl FnMut(usize) -> usize,
) -> Option<usize> {
    match n {
        0 => None,
        1 => Some(0),
        n if n <= 8 => {
            let mut best = 0;
            let mut best_occ = occupancy(0);
            let mut ties = 1usize;
            for i in 1..n {
                let o = occupancy(i);
                if o < best_occ {
                    best = i;
                    best_occ = o;
                    ties = 1;
                } else if o == best_occ {
                    // reservoir sampling over the tied ports: each wins with 1/ties
                    ties += 1;
                    if rng.below(ties) == 0 {
                        best = i;
                    }
                }
            }
            Some(best)
        }
        n => {
            let a = rng.below(n);
            let mut b = rng.below(n - 1);
            if b >= a {
                b += 1;
            }
            // a and b are uniformly random and distinct, so the tie can keep `a`
            Some(if occupancy(b) < occupancy(a) { b } else { a })
        }
    }
}

/// Flowlet table: per flow, the port chosen and when the flow was last seen, in buckets
/// of two slots (a flow may sit in either slot of its bucket), so two flows whose hashes
/// meet keep a slot each instead of evicting each other on every frame (which would
/// re-choose, and may reorder, both). The idle gap is not its own: the engine's handle
/// can change it while the workers run (each worker reads it once per round), so it is
/// passed to [`Flowlets::lookup`] and [`Flowlets::record`].
#[derive(Debug)]
pub struct Flowlets {
    slots: Box<[(u64, u64, u16)]>, // (key, last seen ns, port); key 0 = empty
}

/// Slots in a flowlet table (power of two): [`FLOWLET_SLOTS`] / 2 buckets of two.
pub const FLOWLET_SLOTS: usize = 4096;

impl Flowlets {
    /// An empty table.
    pub fn new() -> Self {
        Flowlets {
            slots: vec![(0, 0, 0); FLOWLET_SLOTS].into_boxed_slice(),
        }
    }

    /// A table with no slots: nothing is pinned or recorded (for a user that never
    /// passes a flow key, such as a simulated fabric of tens of thousands of switches
    /// with flowlets off, which need not hold 96 KiB per switch).
    pub fn disabled() -> Self {
        Flowlets {
            slots: Box::new([]),
        }
    }

    /// The first slot of `key`'s bucket.
    #[inline]
    fn bucket(key: u64) -> usize {
        (key as usize) & (FLOWLET_SLOTS - 2)
    }

    /// Where in `live` the port `key` is pinned to is, if the flow was seen less than
    /// `gap_ns` ago and that port is still in `live`.
    #[inline]
    pub fn lookup(&self, key: u64, now_ns: u64, gap_ns: u64, live: &[u16]) -> Option<usize> {
        let b = Self::bucket(key);
        let &(_, t, p) = self.slots.get(b..b + 2)?.iter().find(|s| s.0 == key)?;
        if now_ns.saturating_sub(t) >= gap_ns {
            return None;
        }
        live.iter().position(|&l| l == p)
    }

    /// Record that `key` went out on `port` at `now_ns`: in its own slot of the bucket
    /// if it has one, else in a slot whose flow has been idle for `gap_ns` (or is
    /// empty), else in the slot seen least recently.
    #[inline]
    pub fn record(&mut self, key: u64, now_ns: u64, gap_ns: u64, port: u16) {
        let b = Self::bucket(key);
        let Some(pair) = self.slots.get_mut(b..b + 2) else {
            return; // a disabled table
        };
        let i = if pair[0].0 == key {
            0
        } else if pair[1].0 == key {
            1
        } else {
            let idle = |s: &(u64, u64, u16)| s.0 == 0 || now_ns.saturating_sub(s.1) >= gap_ns;
            match (idle(&pair[0]), idle(&pair[1])) {
                (true, _) => 0,
                (false, true) => 1,
                _ => usize::from(pair[1].1 < pair[0].1),
            }
        };
        pair[i] = (key, now_ns, port);
    }
}

impl Default for Flowlets {
    fn default() -> Self {
        Self::new()
    }
}

/// The adaptive choice of one worker (or one simulated switch): its tie-breaking
/// xorshift and its flowlet table. The engine's workers and the discrete-event fabric
/// (`canopy_control::des`) both choose a group's port through [`Adaptive::choose`].
#[derive(Debug)]
pub struct Adaptive {
    rng: XorShift,
    flowlets: Flowlets,
}

impl Adaptive {
    /// A chooser whose ties are broken by a xorshift seeded with `seed`, flowlets empty.
    pub fn new(seed: u64) -> Self {
        Adaptive {
            rng: XorShift::new(seed),
            flowlets: Flowlets::new(),
        }
    }

    /// A chooser without a flowlet table ([`Flowlets::disabled`]): every frame goes to
    /// the least occupied port, whatever key it has.
    pub fn without_flowlets(seed: u64) -> Self {
        Adaptive {
            rng: XorShift::new(seed),
            flowlets: Flowlets::disabled(),
        }
    }

    /// The port a frame goes to and its index in `live` (a group's live ports, `occ`
    /// their occupancies in the same order): the port its flow `key` is pinned to while
    /// the flow was seen less than `gap_ns` before `now_ns` and the port is live, else
    /// the least occupied ([`least_occupied`]). With a key the choice is recorded for
    /// the flow. `None` when `live` is empty.
    #[inline]
    pub fn choose(
        &mut self,
        live: &[u16],
        occ: &[usize],
        key: Option<u64>,
        now_ns: u64,
        gap_ns: u64,
    ) -> Option<(usize, u16)> {
        let pinned = key.and_then(|k| self.flowlets.lookup(k, now_ns, gap_ns, live));
        // counted over `occ`, so its reads need no bounds check
        let i = pinned.or_else(|| {
            least_occupied(occ.len(), &mut self.rng, |i| {
                occ.get(i).copied().unwrap_or(usize::MAX)
            })
        })?;
        let p = *live.get(i)?;
        if let Some(k) = key {
            self.flowlets.record(k, now_ns, gap_ns, p);
        }
        Some((i, p))
    }
}

/// Flow key of a frame: FNV-1a of the Ethernet destination and source (the hosts),
/// mixed with the group id; never 0.
#[inline]
pub fn flow_key(frame: &[u8], group: u16) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ u64::from(group);
    for &b in frame.iter().take(12) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h | 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_occupied_wins_and_ties_are_spread_evenly() {
        let mut r = XorShift::new(1);
        let occ = [5usize, 2, 2, 9];
        let ports = [0u16, 1, 2, 3];
        let mut hits = [0u32; 4];
        for _ in 0..20_000 {
            let i = least_occupied(ports.len(), &mut r, |i| occ[usize::from(ports[i])]).unwrap();
            hits[usize::from(ports[i])] += 1;
        }
        assert_eq!(hits[0] + hits[3], 0);
        assert!(hits[1].abs_diff(hits[2]) < 600, "{hits:?}");
        // all tied: uniform over four
        let mut hits = [0u32; 4];
        for _ in 0..40_000 {
            hits[least_occupied(ports.len(), &mut r, |_| 0).unwrap()] += 1;
        }
        for h in hits {
            assert!((9_000..11_000).contains(&h), "{hits:?}");
        }
        assert_eq!(least_occupied(0, &mut r, |_| 0), None);
    }

    #[test]
    fn power_of_two_choices_for_large_groups_avoid_the_hot_port_and_spread() {
        let mut r = XorShift::new(7);
        let ports: Vec<u16> = (0..16).collect();
        let mut hits = [0u32; 16];
        for _ in 0..32_000 {
            let i = least_occupied(ports.len(), &mut r, |i| if i == 3 { 100 } else { 0 }).unwrap();
            hits[i] += 1;
        }
        assert_eq!(hits[3], 0);
        for (i, h) in hits.iter().enumerate() {
            if i != 3 {
                assert!((1_700..2_600).contains(h), "{hits:?}");
            }
        }
    }

    #[test]
    fn flowlets_pin_within_the_gap_and_release_after_it_or_when_the_port_dies() {
        let mut f = Flowlets::new();
        let k = flow_key(&[1; 14], 0);
        assert_ne!(k, flow_key(&[2; 14], 0));
        assert_eq!(f.lookup(k, 0, 1_000, &[1, 2]), None);
        f.record(k, 100, 1_000, 2);
        assert_eq!(f.lookup(k, 900, 1_000, &[1, 2]), Some(1));
        assert_eq!(f.lookup(k, 1_200, 1_000, &[1, 2]), None);
        assert_eq!(f.lookup(k, 900, 1_000, &[1]), None);
        // a longer gap set later pins the same record again; gap 0 pins nothing
        assert_eq!(f.lookup(k, 1_200, 5_000, &[1, 2]), Some(1));
        assert_eq!(f.lookup(k, 100, 0, &[1, 2]), None);
        // a disabled table pins nothing: a keyed choice is the least occupied
        let mut off = Flowlets::disabled();
        off.record(k, 100, 1_000, 2);
        assert_eq!(off.lookup(k, 200, 1_000, &[1, 2]), None);
        let mut a = Adaptive::without_flowlets(7);
        for t in 0..10 {
            let occ = if t % 2 == 0 { [0, 5] } else { [5, 0] };
            let want = if t % 2 == 0 { 0 } else { 1 };
            assert_eq!(
                a.choose(&[1, 2], &occ, Some(k), t * 10, 1_000),
                Some((want, want as u16 + 1))
            );
        }
    }

    #[test]
    fn two_flows_of_one_bucket_keep_a_slot_each_and_a_third_evicts_the_idle_one() {
        // keys that share a bucket (the bucket ignores the lowest bit and the high bits)
        let (a, b, c) = (
            0x10_0001u64,
            0x20_0001u64,
            0x30_0001u64 + FLOWLET_SLOTS as u64 * 4,
        );
        assert!(
            Flowlets::bucket(a) == Flowlets::bucket(b)
                && Flowlets::bucket(b) == Flowlets::bucket(c)
        );
        let (gap, live) = (1_000, [1u16, 2, 3]);
        let mut f = Flowlets::new();
        f.record(a, 0, gap, 1);
        f.record(b, 10, gap, 2);
        // frames of a and b alternate: both stay pinned
        for t in (20..900).step_by(20) {
            assert_eq!(f.lookup(a, t, gap, &live), Some(0));
            f.record(a, t, gap, 1);
            assert_eq!(f.lookup(b, t + 5, gap, &live), Some(1));
            f.record(b, t + 5, gap, 2);
        }
        // a goes idle past the gap; c takes its slot, b keeps its own
        f.record(c, 2_000, gap, 3);
        f.record(b, 1_990, gap, 2);
        assert_eq!(f.lookup(c, 2_010, gap, &live), Some(2));
        assert_eq!(f.lookup(b, 2_010, gap, &live), Some(1));
        assert_eq!(f.lookup(a, 2_010, gap, &live), None);
        // with both busy, a newcomer evicts the one seen least recently
        f.record(a, 2_020, gap, 1);
        assert_eq!(f.lookup(b, 2_030, gap, &live), None, "b was seen before c");
        assert_eq!(f.lookup(c, 2_030, gap, &live), Some(2));
        assert_eq!(f.lookup(a, 2_030, gap, &live), Some(0));
    }
}
