//! What a spec alone tells about a topology's switches and hosts, without building its
//! graph: how many hosts, and the switches in index order as runs ([`Tier`]) of one
//! level with a naming rule. Families whose switch list follows from their parameters
//! (`fat-tree`, `vl2`) have one; their generators name switches with the same
//! [`Tier::name`], and the tests check an outline against the built [`Topology`].
//!
//! A fat tree of K = 256 has 4,194,304 hosts and 21 million switch ports; answers that
//! need only counts, levels and names (closed-form table summaries) come from here in
//! a few kilobytes instead of the graph's hundreds of megabytes.

use super::{fattree::FatTree, vl2::Vl2, TopoError, Topology};
use crate::spec::Spec;

/// A run of consecutive switches of one level, named `<prefix><i>` or, with a split
/// radix r, `<prefix><i / r><infix><i % r>` (i counted from the run's first switch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tier {
    /// Level of every switch in the run.
    pub level: u16,
    /// Number of switches.
    pub count: u32,
    prefix: &'static str,
    split: Option<(&'static str, u32)>,
}

impl Tier {
    /// `count` switches of `level` named `<prefix><i>`.
    pub fn flat(level: u16, count: u32, prefix: &'static str) -> Tier {
        Tier {
            level,
            count,
            prefix,
            split: None,
        }
    }

    /// `count` switches of `level` named `<prefix><i / radix><infix><i % radix>`
    /// (`radix` ≥ 1).
    pub fn split(
        level: u16,
        count: u32,
        prefix: &'static str,
        infix: &'static str,
        radix: u32,
    ) -> Tier {
        Tier {
            level,
            count,
            prefix,
            split: Some((infix, radix.max(1))),
        }
    }

    /// Name of the run's switch `i`.
    pub fn name(&self, i: u32) -> String {
        match self.split {
            None => format!("{}{i}", self.prefix),
            Some((infix, r)) => format!("{}{}{infix}{}", self.prefix, i / r, i % r),
        }
    }
}

/// A topology's switches and host count, from its spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// The spec.
    pub spec: Spec,
    /// Number of hosts.
    pub hosts: u64,
    /// The switches in index order.
    pub tiers: Vec<Tier>,
}

impl Outline {
    /// The outline of `spec`, or `None` for a family whose switches do not follow from
    /// its parameters alone. Errors are those [`build`](super::build) reports for the
    /// same spec.
    pub fn from_spec(spec: &Spec) -> Result<Option<Outline>, TopoError> {
        let (hosts, tiers) = match spec.family.as_str() {
            "fat-tree" | "fattree" => {
                let ft = FatTree::from_spec(spec)?;
                (ft.hosts(), super::fattree::tiers(&ft).to_vec())
            }
            "vl2" => {
                let v = Vl2::from_spec(spec)?;
                (v.hosts(), super::vl2::tiers(&v).to_vec())
            }
            _ => return Ok(None),
        };
        Ok(Some(Outline {
            spec: spec.clone(),
            hosts,
            tiers,
        }))
    }

    /// Number of switches.
    pub fn switches(&self) -> u64 {
        self.tiers.iter().map(|t| u64::from(t.count)).sum()
    }

    /// Number of levels (highest switch level).
    pub fn levels(&self) -> u16 {
        self.tiers.iter().map(|t| t.level).max().unwrap_or(0)
    }

    /// `(index, level)` of every switch, in index order.
    pub fn switch_levels(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        let mut first = 0u32;
        self.tiers.iter().flat_map(move |t| {
            let start = first;
            first += t.count;
            (start..start + t.count).map(move |i| (i, t.level))
        })
    }

    /// Name of switch `sw` (as the built topology names it); `None` past the end.
    pub fn switch_name(&self, sw: u32) -> Option<String> {
        let mut i = sw;
        for t in &self.tiers {
            if i < t.count {
                return Some(t.name(i));
            }
            i -= t.count;
        }
        None
    }

    /// Whether `t` has exactly this outline's switches (names, levels, order) and host
    /// count: the check that a family's outline and generator agree.
    pub fn matches(&self, t: &Topology) -> bool {
        self.spec == t.spec
            && self.hosts == t.hosts.len() as u64
            && self.switches() == t.switches.len() as u64
            && self
                .switch_levels()
                .zip(&t.switches)
                .all(|((i, level), s)| {
                    s.level == level && self.switch_name(i).as_deref() == Some(s.name.as_str())
                })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::build;

    #[test]
    fn outlines_match_built_topologies() {
        for spec in [
            "fat-tree:k=2",
            "fat-tree:k=4",
            "fat-tree:k=6",
            "fattree:k=8",
            "vl2:da=4;di=4;servers=2",
            "vl2:da=8;di=6;servers=3",
            "vl2:da=2;di=2;servers=1",
        ] {
            let spec: Spec = spec.parse().unwrap();
            let o = Outline::from_spec(&spec).unwrap().unwrap();
            let t = build(&spec).unwrap();
            assert!(o.matches(&t), "{spec}");
            assert_eq!(o.levels(), t.levels(), "{spec}");
            assert_eq!(o.switch_name(o.switches() as u32), None, "{spec}");
        }
    }

    #[test]
    fn names_levels_and_counts_by_hand() {
        let o = Outline::from_spec(&"fat-tree:k=4".parse().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!((o.hosts, o.switches(), o.levels()), (16, 20, 3));
        let names: Vec<String> = [0, 1, 2, 7, 8, 9, 15, 16, 19]
            .iter()
            .map(|&i| o.switch_name(i).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "edge-p0-e0",
                "edge-p0-e1",
                "edge-p1-e0",
                "edge-p3-e1",
                "agg-p0-a0",
                "agg-p0-a1",
                "agg-p3-a1",
                "core-c0",
                "core-c3"
            ]
        );
        let levels: Vec<u16> = o.switch_levels().map(|(_, l)| l).collect();
        assert_eq!(
            levels,
            [[1; 8], [2; 8]]
                .concat()
                .into_iter()
                .chain([3; 4])
                .collect::<Vec<_>>()
        );
        let o = Outline::from_spec(&"vl2:da=4;di=6;servers=5".parse().unwrap())
            .unwrap()
            .unwrap();
        // 6 ToRs (DA·DI/4), 6 aggs, 2 intermediates; 30 servers.
        assert_eq!((o.hosts, o.switches()), (30, 14));
        assert_eq!(o.switch_name(5).unwrap(), "tor-t5");
        assert_eq!(o.switch_name(11).unwrap(), "agg-a5");
        assert_eq!(o.switch_name(13).unwrap(), "int-i1");
        // the k = 256 fat tree without building it
        let o = Outline::from_spec(&"fat-tree:k=256".parse().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!((o.hosts, o.switches()), (4_194_304, 81_920));
        assert_eq!(o.switch_name(81_919).unwrap(), "core-c16383");
    }

    #[test]
    fn a_changed_name_or_level_does_not_match() {
        let spec: Spec = "fat-tree:k=4".parse().unwrap();
        let o = Outline::from_spec(&spec).unwrap().unwrap();
        let mut t = build(&spec).unwrap();
        t.switches[17].name = "core-c9".into();
        assert!(!o.matches(&t));
        let mut t = build(&spec).unwrap();
        t.switches[3].level = 2;
        assert!(!o.matches(&t));
        let mut t = build(&spec).unwrap();
        t.hosts.pop();
        assert!(!o.matches(&t));
    }

    #[test]
    fn other_families_and_bad_specs() {
        let o = Outline::from_spec(&"benes:m=16;n=4".parse().unwrap()).unwrap();
        assert!(o.is_none());
        let e = Outline::from_spec(&"fat-tree:k=5".parse().unwrap()).unwrap_err();
        let b = build(&"fat-tree:k=5".parse().unwrap()).unwrap_err();
        assert_eq!(e, b);
    }
}
