//! Traffic patterns: for every source host the sequence of destinations it sends to,
//! deterministic from a seed, never the source itself.
//!
//! Hosts are numbered by their position `0..n` in [`FabricHosts::hosts`](crate::traffic::hosts::FabricHosts::hosts)
//! (`crate::traffic::hosts::FabricHosts`), not by topology index, so a pattern works on any
//! subset of a topology's hosts.

use crate::error::{Result, TestbedError};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// A traffic pattern.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Pattern {
    /// Every frame to a destination drawn uniformly from the other hosts.
    Uniform,
    /// A random derangement: host `i` sends only to `perm[i] != i`.
    Permutation,
    /// Hosts as an `m x m` matrix (n = m², row-major): `(r, c)` sends to `(c, r)`; the
    /// diagonal hosts would send to themselves and stay idle. On `n = 2^b` hosts that
    /// are not a square (b odd), the address bits rotated right by `⌊b/2⌋` (for even
    /// `b` the same as the matrix transpose); hosts mapped to themselves stay idle.
    Transpose,
    /// `n = 2^b`: host `i` sends to `i` with its `b` bits reversed; palindromes stay idle.
    BitReversal,
    /// `n = 2^b`: host `i` sends to `i` with its `b` bits inverted (`n - 1 - i`).
    BitComplement,
    /// Host `i` sends to `i + 1` (mod n), always.
    Neighbour,
    /// Each source cycles through all other hosts starting after itself
    /// (`i+1, i+2, ...` mod n): at every step the sources form a permutation.
    RoundRobin,
    /// A fraction of every source's frames goes to `target`, the rest uniformly to the
    /// other hosts (the target itself sends uniformly).
    Hotspot {
        /// Fraction of frames to the target, 0..=1.
        fraction: f64,
        /// Position of the target in the host list.
        target: usize,
    },
    /// Every source sends to every other host in the same order `0, 1, ..., n-1`
    /// (skipping itself): all sources hit the same destination at about the same time.
    AllToAll,
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pattern::Uniform => write!(f, "uniform"),
            Pattern::Permutation => write!(f, "permutation"),
            Pattern::Transpose => write!(f, "transpose"),
            Pattern::BitReversal => write!(f, "bit-reversal"),
            Pattern::BitComplement => write!(f, "bit-complement"),
            Pattern::RoundRobin => write!(f, "round-robin"),
            Pattern::Neighbour => write!(f, "neighbour"),
            Pattern::Hotspot { fraction, target } => {
                write!(f, "hotspot:fraction={fraction},target={target}")
            }
            Pattern::AllToAll => write!(f, "all-to-all"),
        }
    }
}

impl TryFrom<String> for Pattern {
    type Error = TestbedError;
    fn try_from(s: String) -> Result<Pattern> {
        Pattern::parse(&s)
    }
}

impl From<Pattern> for String {
    fn from(p: Pattern) -> String {
        p.to_string()
    }
}

/// Where one source sends, frame after frame.
#[derive(Debug, Clone)]
pub enum Dests {
    /// Sends nothing (transpose diagonal, bit-reversal palindromes).
    Idle,
    /// Cycles through this list.
    Cycle {
        /// Destinations in order.
        list: Vec<u32>,
        /// Next position.
        at: usize,
    },
    /// Cycles through every host but `src`, from `next` on (`next`, `next + 1`, … mod
    /// `n`), without keeping the list.
    Others {
        /// This source.
        src: u32,
        /// Number of hosts.
        n: u32,
        /// Next destination.
        next: u32,
    },
    /// Random: with probability `hot` the target, otherwise uniform over the others.
    Random {
        /// Seeded generator of this source.
        rng: Box<StdRng>,
        /// This source.
        src: u32,
        /// Number of hosts.
        n: u32,
        /// Hotspot target and its probability (0 for uniform).
        target: u32,
        /// Probability of the target.
        hot: f64,
    },
}

impl Dests {
    /// The next destination (`None` only for an idle source).
    #[inline]
    pub fn next_dst(&mut self) -> Option<u32> {
        match self {
            Dests::Idle => None,
            Dests::Cycle { list, at } => {
                let d = list[*at];
                *at = (*at + 1) % list.len();
                Some(d)
            }
            Dests::Others { src, n, next } => {
                if *next == *src {
                    *next = (*next + 1) % *n;
                }
                let d = *next;
                *next = (*next + 1) % *n;
                Some(d)
            }
            Dests::Random {
                rng,
                src,
                n,
                target,
                hot,
            } => {
                if *hot > 0.0 && *src != *target && rng.gen_bool(*hot) {
                    return Some(*target);
                }
                // uniform over the n-1 others
                let r = rng.gen_range(0..*n - 1);
                Some(if r >= *src { r + 1 } else { r })
            }
        }
    }

    /// Whether this source sends at all.
    pub fn is_idle(&self) -> bool {
        matches!(self, Dests::Idle)
    }
}

fn err(detail: String) -> TestbedError {
    TestbedError::traffic("pattern", detail)
}

fn log2_exact(n: usize) -> Option<u32> {
    n.is_power_of_two().then(|| n.trailing_zeros())
}

fn isqrt_exact(n: usize) -> Option<usize> {
    let m = (n as f64).sqrt().round() as usize;
    (m * m == n).then_some(m)
}

impl Pattern {
    /// Parse a pattern from its name and optional `key=value` parameters, as
    /// [`Display`](std::fmt::Display) prints it (`hotspot:fraction=0.2,target=0`).
    pub fn parse(s: &str) -> Result<Pattern> {
        let (name, params) = s.split_once(':').unwrap_or((s, ""));
        let mut fraction = None;
        let mut target = None;
        for kv in params.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| err(format!("`{kv}` in `{s}` is not key=value")))?;
            match k {
                "fraction" => {
                    fraction = Some(
                        v.parse::<f64>()
                            .map_err(|_| err(format!("fraction `{v}` in `{s}` is not a number")))?,
                    )
                }
                "target" => {
                    target = Some(v.parse::<usize>().map_err(|_| {
                        err(format!("target `{v}` in `{s}` is not a host position"))
                    })?)
                }
                _ => return Err(err(format!("unknown parameter `{k}` in `{s}`"))),
            }
        }
        let p = match name {
            "uniform" => Pattern::Uniform,
            "permutation" => Pattern::Permutation,
            "transpose" => Pattern::Transpose,
            "bit-reversal" => Pattern::BitReversal,
            "bit-complement" => Pattern::BitComplement,
            "round-robin" => Pattern::RoundRobin,
            "neighbour" => Pattern::Neighbour,
            "all-to-all" => Pattern::AllToAll,
            "hotspot" => Pattern::Hotspot {
                fraction: fraction.unwrap_or(0.2),
                target: target.unwrap_or(0),
            },
            _ => {
                return Err(err(format!(
                    "unknown pattern `{name}` (uniform, permutation, transpose, bit-reversal, bit-complement, neighbour, round-robin, hotspot, all-to-all)"
                )))
            }
        };
        if !matches!(p, Pattern::Hotspot { .. }) && !params.is_empty() {
            return Err(err(format!(
                "`{name}` takes no parameters (got `{params}`)"
            )));
        }
        Ok(p)
    }

    /// Check that the pattern works on `n` hosts.
    pub fn validate(&self, n: usize) -> Result<()> {
        if n < 2 {
            return Err(err(format!(
                "{self} needs at least 2 hosts, the fabric has {n}"
            )));
        }
        match *self {
            Pattern::Transpose if isqrt_exact(n).is_none() && log2_exact(n).is_none() => {
                Err(err(format!(
                    "transpose needs a square or power-of-two host count (4, 8, 9, 16, ...), the fabric has {n}"
                )))
            }
            Pattern::BitReversal | Pattern::BitComplement if log2_exact(n).is_none() => {
                Err(err(format!(
                    "{self} needs a power-of-two host count, the fabric has {n}"
                )))
            }
            Pattern::Hotspot { fraction, target } => {
                if !(0.0..=1.0).contains(&fraction) {
                    return Err(err(format!("hotspot fraction {fraction} is outside 0..=1")));
                }
                if target >= n {
                    return Err(err(format!(
                        "hotspot target {target} is not a host position (0..{n})"
                    )));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The destination sequence of every source `0..n`, deterministic from `seed`.
    pub fn dests(&self, n: usize, seed: u64) -> Result<Vec<Dests>> {
        self.validate(n)?;
        let nn = n as u32;
        let others = |src: u32, start: u32| Dests::Others {
            src,
            n: nn,
            next: start % nn,
        };
        let one = |d: u32, i: u32| {
            if d == i {
                Dests::Idle
            } else {
                Dests::Cycle {
                    list: vec![d],
                    at: 0,
                }
            }
        };
        Ok(match *self {
            Pattern::Uniform | Pattern::Hotspot { .. } => {
                let (target, hot) = match *self {
                    Pattern::Hotspot { fraction, target } => (target as u32, fraction),
                    _ => (0, 0.0),
                };
                (0..nn)
                    .map(|i| Dests::Random {
                        rng: Box::new(StdRng::seed_from_u64(
                            seed ^ (u64::from(i) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                        )),
                        src: i,
                        n: nn,
                        target,
                        hot,
                    })
                    .collect()
            }
            Pattern::Permutation => {
                let perm = derangement(n, seed);
                (0..nn).map(|i| one(perm[i as usize], i)).collect()
            }
            Pattern::Transpose => match (isqrt_exact(n), log2_exact(n)) {
                (Some(m), _) => {
                    let m = m as u32;
                    (0..nn).map(|i| one((i % m) * m + i / m, i)).collect()
                }
                (None, b) => {
                    // b is odd here (an even one would make n a square)
                    let (b, r) = (b.unwrap_or(1), b.unwrap_or(1) / 2);
                    let rot = |i: u32| (i >> r) | ((i & ((1 << r) - 1)) << (b - r));
                    (0..nn).map(|i| one(rot(i), i)).collect()
                }
            },
            Pattern::BitReversal => {
                let b = log2_exact(n).unwrap_or(0);
                (0..nn)
                    .map(|i| one(i.reverse_bits() >> (32 - b), i))
                    .collect()
            }
            Pattern::BitComplement => (0..nn).map(|i| one(nn - 1 - i, i)).collect(),
            Pattern::Neighbour => (0..nn).map(|i| one((i + 1) % nn, i)).collect(),
            Pattern::RoundRobin => (0..nn).map(|i| others(i, i + 1)).collect(),
            Pattern::AllToAll => (0..nn).map(|i| others(i, 0)).collect(),
        })
    }
}

/// A uniformly random permutation of `0..n` without fixed points (rejection sampling of
/// shuffles: about e tries), from `seed`. `n >= 2`.
pub fn derangement(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut p: Vec<u32> = (0..n as u32).collect();
    loop {
        p.shuffle(&mut rng);
        if p.iter().enumerate().all(|(i, &d)| i as u32 != d) {
            return p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(p: Pattern, n: usize, seed: u64, k: usize) -> Vec<Vec<u32>> {
        p.dests(n, seed)
            .unwrap()
            .into_iter()
            .map(|mut d| (0..k).filter_map(|_| d.next_dst()).collect())
            .collect()
    }

    const ALL: [Pattern; 9] = [
        Pattern::Neighbour,
        Pattern::Uniform,
        Pattern::Permutation,
        Pattern::Transpose,
        Pattern::BitReversal,
        Pattern::BitComplement,
        Pattern::RoundRobin,
        Pattern::Hotspot {
            fraction: 0.5,
            target: 3,
        },
        Pattern::AllToAll,
    ];

    #[test]
    fn no_self_traffic_in_range_and_deterministic() {
        for p in ALL {
            for n in [4usize, 16, 64] {
                let a = take(p, n, 7, 200);
                assert_eq!(a, take(p, n, 7, 200), "{p} not deterministic");
                for (i, ds) in a.iter().enumerate() {
                    for &d in ds {
                        assert!((d as usize) < n && d as usize != i, "{p} n={n}: {i} -> {d}");
                    }
                }
                assert!(a.iter().any(|d| !d.is_empty()), "{p}: nobody sends");
            }
        }
        // the seed matters for the random patterns
        assert_ne!(
            take(Pattern::Uniform, 16, 1, 50),
            take(Pattern::Uniform, 16, 2, 50)
        );
    }

    #[test]
    fn fixed_patterns_send_where_the_table_says() {
        // transpose on 4x4: (r,c) -> (c,r); diagonal idle
        let t = take(Pattern::Transpose, 16, 0, 3);
        assert_eq!(t[1], vec![4; 3]);
        assert_eq!(t[4], vec![1; 3]);
        assert_eq!(t[7], vec![13; 3]);
        for d in [0, 5, 10, 15] {
            assert!(t[d].is_empty());
        }
        // bit-reversal on 8: 1=001 -> 100=4, 3=011 -> 110=6; 0,2,5,7 palindromes
        let b = take(Pattern::BitReversal, 8, 0, 2);
        assert_eq!(b[1], vec![4, 4]);
        assert_eq!(b[3], vec![6, 6]);
        assert_eq!(b[6], vec![3, 3]);
        for d in [0, 2, 5, 7] {
            assert!(b[d].is_empty(), "{d}");
        }
        // transpose on 8 = 2^3 hosts: bits rotated right by 1 (abc -> cab); 0 and 7 idle
        let t8 = take(Pattern::Transpose, 8, 0, 1);
        assert_eq!(t8[1], vec![4]);
        assert_eq!(t8[6], vec![3]);
        assert!(t8[0].is_empty() && t8[7].is_empty());
        // neighbour: i -> i + 1
        let nb = take(Pattern::Neighbour, 4, 0, 2);
        assert_eq!(nb, vec![vec![1, 1], vec![2, 2], vec![3, 3], vec![0, 0]]);
        // bit-complement on 8: 1 -> 6, 5 -> 2, nobody idle
        let c = take(Pattern::BitComplement, 8, 0, 2);
        assert_eq!(c[1], vec![6, 6]);
        assert_eq!(c[5], vec![2, 2]);
        assert!(c.iter().all(|d| d.len() == 2));
        assert!(Pattern::BitComplement.dests(12, 0).is_err());
        // round-robin: staggered, a permutation at every step
        let r = take(Pattern::RoundRobin, 4, 0, 6);
        assert_eq!(r[0], vec![1, 2, 3, 1, 2, 3]);
        assert_eq!(r[2], vec![3, 0, 1, 3, 0, 1]);
        for step in 0..3 {
            let mut col: Vec<u32> = r.iter().map(|d| d[step]).collect();
            col.sort();
            assert_eq!(col, vec![0, 1, 2, 3]);
        }
        // all-to-all: same order everywhere
        let a = take(Pattern::AllToAll, 4, 0, 3);
        assert_eq!(a[0], vec![1, 2, 3]);
        assert_eq!(a[2], vec![0, 1, 3]);
    }

    #[test]
    fn permutation_is_a_derangement_and_uniform_is_spread() {
        for seed in 0..50 {
            let p = derangement(8, seed);
            let mut s = p.clone();
            s.sort();
            assert_eq!(s, (0..8).collect::<Vec<_>>());
            assert!(p.iter().enumerate().all(|(i, &d)| i as u32 != d));
        }
        let u = take(Pattern::Uniform, 8, 3, 8000);
        let mut counts = [0u32; 8];
        for &d in &u[0] {
            counts[d as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for c in &counts[1..] {
            assert!((900..1400).contains(c), "{counts:?}");
        }
        // hotspot: about half to the target, the rest spread
        let h = take(
            Pattern::Hotspot {
                fraction: 0.5,
                target: 3,
            },
            8,
            3,
            10000,
        );
        let hot = h[0].iter().filter(|&&d| d == 3).count();
        // 0.5 + 0.5/7 expected
        assert!((5300..6100).contains(&hot), "{hot}");
        assert!(h[3].iter().all(|&d| d != 3));
    }

    #[test]
    fn bad_counts_and_parameters_are_rejected_with_a_reason() {
        let e = Pattern::Transpose.dests(12, 0).unwrap_err().to_string();
        assert!(e.contains("square") && e.contains("12"), "{e}");
        let e = Pattern::BitReversal.dests(12, 0).unwrap_err().to_string();
        assert!(e.contains("power-of-two") && e.contains("12"), "{e}");
        assert!(Pattern::Uniform.dests(1, 0).is_err());
        let e = Pattern::parse("hotspot:fraction=0.2,target=9")
            .unwrap()
            .validate(8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("target 9"), "{e}");
        assert!(Pattern::parse("hotspot:fraction=1.5")
            .unwrap()
            .validate(8)
            .is_err());
        assert!(Pattern::parse("zigzag").is_err());
        assert!(Pattern::parse("uniform:fraction=1").is_err());
        assert!(Pattern::parse("hotspot:frac=1").is_err());
        for p in ALL {
            assert_eq!(Pattern::parse(&p.to_string()).unwrap(), p);
        }
    }
}
