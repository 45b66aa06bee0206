//! Who sends to whom in a study: one of the generator's patterns
//! ([`Pattern`](crate::traffic::pattern::Pattern), hosts numbered by topology index), or
//! the thesis's weighted-random pattern, which draws each message's level first.

use crate::error::{Result, TestbedError};
use crate::traffic::pattern::{Dests, Pattern};
use canopy_control::topology::components::UnionFind;
use canopy_control::topology::{Peer, Topology};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// A study's traffic pattern.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub enum Traffic {
    /// One of the generator's patterns.
    Pattern(Pattern),
    /// Weighted random: a message's destination is first given a level `l` with
    /// probability `weights[l-1]` / their sum, then drawn uniformly from the hosts
    /// whose paths from the source meet first at level `l` (hosts under the same
    /// level-`l` switches but not under the same level-`l-1` ones). Levels without
    /// such hosts are left out of the draw.
    Weighted(Vec<f64>),
}

impl Default for Traffic {
    fn default() -> Self {
        Traffic::Pattern(Pattern::Uniform)
    }
}

impl std::fmt::Display for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Traffic::Pattern(p) => write!(f, "{p}"),
            Traffic::Weighted(w) => {
                let w: Vec<String> = w.iter().map(f64::to_string).collect();
                write!(f, "weighted:{}", w.join(","))
            }
        }
    }
}

impl TryFrom<String> for Traffic {
    type Error = TestbedError;
    fn try_from(s: String) -> Result<Traffic> {
        let Some(list) = s.strip_prefix("weighted:") else {
            return Pattern::parse(&s).map(Traffic::Pattern);
        };
        let bad = || {
            TestbedError::traffic(
                "pattern",
                format!("`{s}`: weighted takes non-negative weights per level, one at least positive (weighted:0.5,0.3,0.2)"),
            )
        };
        let w = list
            .split(',')
            .map(|x| x.trim().parse::<f64>().map_err(|_| bad()))
            .collect::<Result<Vec<f64>>>()?;
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) || !w.iter().any(|x| *x > 0.0) {
            return Err(bad());
        }
        Ok(Traffic::Weighted(w))
    }
}

impl From<Traffic> for String {
    fn from(t: Traffic) -> String {
        t.to_string()
    }
}

/// Destinations of every host of a topology, one call per message.
pub struct Destinations(Inner);

enum Inner {
    Pattern(Vec<Dests>),
    Weighted(Box<Weighted>),
}

impl Destinations {
    /// The next destination of host `h` (`None`: it sends nothing).
    pub fn next(&mut self, h: u32) -> Option<u32> {
        match &mut self.0 {
            Inner::Pattern(d) => d.get_mut(h as usize)?.next_dst(),
            Inner::Weighted(w) => w.next(h),
        }
    }
}

impl Traffic {
    /// The destinations of `t`'s hosts, drawn from `seed`.
    pub fn dests(&self, t: &Topology, seed: u64) -> Result<Destinations> {
        Ok(Destinations(match self {
            Traffic::Pattern(p) => Inner::Pattern(p.dests(t.hosts.len(), seed)?),
            Traffic::Weighted(w) => Inner::Weighted(Box::new(Weighted::new(t, w, seed)?)),
        }))
    }
}

/// `comp[l][h]`: the component of host `h` when only links among hosts and switches of
/// level `l` or below count (level 0: the host itself), numbered densely from 0 per level.
fn level_components(t: &Topology) -> Vec<Vec<u32>> {
    let top = t.switches.iter().map(|s| s.level).max().unwrap_or(0);
    let n_h = t.hosts.len();
    let mut out = vec![(0..n_h as u32).collect::<Vec<u32>>()];
    for l in 1..=top {
        // hosts are nodes 0..n_h, switches n_h..
        let mut sets = UnionFind::new(n_h + t.switches.len());
        for (si, s) in t.switches.iter().enumerate() {
            if s.level > l {
                continue;
            }
            for p in &s.ports {
                match p.peer {
                    Peer::Host { host, .. } => sets.union(n_h + si, host as usize),
                    Peer::Switch { sw, .. } if t.switches[sw as usize].level <= l => {
                        sets.union(n_h + si, n_h + sw as usize)
                    }
                    _ => {}
                }
            }
        }
        let mut dense: std::collections::HashMap<usize, u32> = Default::default();
        let comp = (0..n_h)
            .map(|h| {
                let next = dense.len() as u32;
                *dense.entry(sets.find(h)).or_insert(next)
            })
            .collect();
        out.push(comp);
    }
    out
}

/// The weighted-random pattern's state.
struct Weighted {
    rng: StdRng,
    /// Normalised weights per level (index 0 = level 1).
    weights: Vec<f64>,
    comp: Vec<Vec<u32>>,
    /// `members[l][c]`: the hosts of component `c` at level `l + 1`.
    members: Vec<Vec<Vec<u32>>>,
    /// Per host, bit `l - 1` set when some destination first meets it at level `l`, and
    /// the sum of those levels' weights (0: the host sends nothing).
    reach: Vec<(u64, f64)>,
}

impl Weighted {
    fn new(t: &Topology, weights: &[f64], seed: u64) -> Result<Self> {
        let comp = level_components(t);
        let levels = comp.len() - 1;
        if weights.len() > levels.min(u64::BITS as usize) {
            return Err(TestbedError::traffic(
                "pattern",
                format!(
                    "weighted has {} weights; the topology has {levels} levels (64 at most)",
                    weights.len()
                ),
            ));
        }
        let members: Vec<Vec<Vec<u32>>> = (1..=levels)
            .map(|l| {
                let n = comp[l].iter().max().map_or(0, |&c| c as usize + 1);
                let mut m = vec![Vec::new(); n];
                for (h, &c) in comp[l].iter().enumerate() {
                    m[c as usize].push(h as u32);
                }
                m
            })
            .collect();
        // Host `h` has a destination first met at level `l` when its level-`l` component
        // is larger than its level-`l-1` one.
        let size = |l: usize, h: usize| members[l - 1][comp[l][h] as usize].len();
        let reach = (0..t.hosts.len())
            .map(|h| {
                let (mut mask, mut total) = (0u64, 0.0);
                for (i, &w) in weights.iter().enumerate() {
                    let l = i + 1;
                    let below = if l == 1 { 1 } else { size(l - 1, h) };
                    if size(l, h) > below {
                        mask |= 1 << i;
                        total += w;
                    }
                }
                (mask, total)
            })
            .collect();
        Ok(Weighted {
            rng: StdRng::seed_from_u64(seed),
            weights: weights.to_vec(),
            comp,
            members,
            reach,
        })
    }

    fn next(&mut self, h: u32) -> Option<u32> {
        let hu = h as usize;
        let (mask, total) = *self.reach.get(hu)?;
        if total <= 0.0 {
            return None;
        }
        let mut x = self.rng.gen::<f64>() * total;
        let mut level = 0;
        for (i, &w) in self.weights.iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            level = i + 1;
            if x < w {
                break;
            }
            x -= w;
        }
        let pool = &self.members[level - 1][self.comp[level][hu] as usize];
        let below = self.comp[level - 1][hu];
        // rejection: a uniform member not in the source's level-`l-1` component
        loop {
            let d = pool[self.rng.gen_range(0..pool.len())];
            if self.comp[level - 1][d as usize] != below {
                return Some(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_draws_each_level_at_its_weight_and_the_right_hosts() {
        // fat-tree k=4: 2 hosts per edge switch, 4 per pod, 16 in all
        let t = canopy_control::topology::build_str("fat-tree:k=4").unwrap();
        let tr = Traffic::try_from("weighted:1,1,2".to_string()).unwrap();
        let mut d = tr.dests(&t, 3).unwrap();
        let mut per = [0u32; 3];
        for _ in 0..8000 {
            let x = d.next(0).unwrap();
            assert_ne!(x, 0);
            per[match x {
                1 => 0,
                2 | 3 => 1,
                _ => 2,
            }] += 1;
        }
        // 1/4, 1/4, 1/2
        assert!((1800..2200).contains(&per[0]), "{per:?}");
        assert!((1800..2200).contains(&per[1]), "{per:?}");
        assert!((3800..4200).contains(&per[2]), "{per:?}");
        // only level 3
        let mut far = Traffic::try_from("weighted:0,0,1".to_string())
            .unwrap()
            .dests(&t, 1)
            .unwrap();
        for _ in 0..200 {
            let x = far.next(5).unwrap();
            assert!(!(4..8).contains(&x), "{x} is in host 5's pod");
        }
        for bad in ["weighted:", "weighted:-1,2", "weighted:0,0", "weighted:a"] {
            assert!(Traffic::try_from(bad.to_string()).is_err(), "{bad}");
        }
        let four = Traffic::try_from("weighted:1,1,1,1".to_string()).unwrap();
        assert!(four.dests(&t, 0).is_err(), "4 weights, 3 levels");
        assert_eq!(tr.to_string(), "weighted:1,1,2");
    }
}
