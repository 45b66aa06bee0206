//! Per-switch forwarding tables, one sub-table per header kind.
//!
//! Tables are plain data (serde), computed by `canopy-control` and consumed by the
//! decision functions in [`crate::decide`](mod@crate::decide). Port numbers are the switch's own port
//! indices (`u16`); a *group* is a set of equivalent egress ports among which the
//! engine chooses adaptively (least-occupied live port), the oracle at random.

mod lpm;
pub mod pathid;
pub mod sliced;
pub mod transit;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Two switches' tables that cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MergeError {
    /// The tables are for different port configurations.
    #[error("switch {switch}: port configurations differ")]
    PortsDiffer {
        /// The switch merged into.
        switch: String,
    },
}

/// Role of a switch port in the fabric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortRole {
    /// Towards the root (or, for a Transit input, a link arriving from above).
    Up,
    /// Towards the leaves or a host.
    Down,
    /// Lateral: Snode side link, or a Transit lateral crossover.
    Side,
}

/// Direction of traffic on a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortDir {
    /// Full-duplex link (every family except Transit).
    Duplex,
    /// Receive-only channel (a Transit RN1 input).
    In,
    /// Transmit-only channel (a Transit RN1 output).
    Out,
}

/// Static configuration of one switch port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortConfig {
    /// Role in the fabric.
    pub role: PortRole,
    /// Traffic direction.
    pub dir: PortDir,
}

/// Most ports, and most groups, one switch's tables have (their numbers are `u16`).
pub const MAX_LIST: usize = 1 << 16;

/// A list of at most [`MAX_LIST`] elements, refused as soon as it has more: memory for
/// a hostile table push stops growing there (decoding small lists of small lists costs
/// many times their text).
struct AtMost<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for AtMost<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = AtMost<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a list of at most {MAX_LIST} elements")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<AtMost<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = a.next_element()? {
                    if out.len() == MAX_LIST {
                        return Err(serde::de::Error::custom(format!(
                            "more than {MAX_LIST} elements in a list"
                        )));
                    }
                    out.push(x);
                }
                Ok(AtMost(out))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

fn at_most_max_list<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    AtMost::deserialize(d).map(|l| l.0)
}

fn groups_at_most_max_list<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Vec<Vec<u16>>, D::Error> {
    let AtMost(groups) = AtMost::<AtMost<u16>>::deserialize(d)?;
    Ok(groups.into_iter().map(|g| g.0).collect())
}

/// All forwarding state of one switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwitchTables {
    /// Switch name (as in the topology).
    pub name: String,
    /// Port configuration, indexed by port number (at most [`MAX_LIST`], refused while
    /// decoding beyond: a port number is a `u16`).
    #[serde(deserialize_with = "at_most_max_list")]
    pub ports: Vec<PortConfig>,
    /// Groups of equivalent egress ports, indexed by group id (at most [`MAX_LIST`]
    /// groups of at most [`MAX_LIST`] ports each, refused while decoding beyond: a
    /// group id is a `u16`).
    #[serde(deserialize_with = "groups_at_most_max_list")]
    pub groups: Vec<Vec<u16>>,
    /// Sliced-flit table, when the switch forwards sliced-flit frames.
    pub sliced: Option<sliced::SlicedTable>,
    /// Transit table, when the switch is an RN1-like stage.
    pub transit: Option<transit::TransitTable>,
    /// Path-ID LPM table.
    pub pathid: Option<pathid::PathIdTable>,
}

impl SwitchTables {
    /// Empty tables for a switch with the given ports.
    pub fn new(name: impl Into<String>, ports: Vec<PortConfig>) -> Self {
        SwitchTables {
            name: name.into(),
            ports,
            groups: Vec::new(),
            sliced: None,
            transit: None,
            pathid: None,
        }
    }

    /// Intern a group of equivalent ports (sorted, deduplicated) and return its id.
    /// Identical groups share one id.
    pub fn intern_group(&mut self, mut ports: Vec<u16>) -> u16 {
        ports.sort_unstable();
        ports.dedup();
        if let Some(i) = self.groups.iter().position(|g| *g == ports) {
            return i as u16;
        }
        self.groups.push(ports);
        (self.groups.len() - 1) as u16
    }

    /// Ports of a group (empty for an unknown id).
    pub fn group(&self, id: u16) -> &[u16] {
        self.groups
            .get(usize::from(id))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Merge the kind tables of `other` (same switch, same ports) into `self`,
    /// renumbering `other`'s group ids.
    pub fn merge(&mut self, other: SwitchTables) -> Result<(), MergeError> {
        if self.ports != other.ports {
            return Err(MergeError::PortsDiffer {
                switch: self.name.clone(),
            });
        }
        let remap: Vec<u16> = other
            .groups
            .iter()
            .map(|g| self.intern_group(g.clone()))
            .collect();
        if let Some(mut s) = other.sliced {
            s.remap_groups(&remap);
            self.sliced = Some(s);
        }
        if let Some(mut t) = other.transit {
            t.remap_groups(&remap);
            self.transit = Some(t);
        }
        if let Some(mut p) = other.pathid {
            p.remap_groups(&remap);
            self.pathid = Some(p);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_renumbers_groups_and_refuses_other_ports() {
        let port = |role| PortConfig {
            role,
            dir: PortDir::Duplex,
        };
        let ports = vec![port(PortRole::Up), port(PortRole::Down)];
        let mut a = SwitchTables::new("s", ports.clone());
        a.intern_group(vec![1]);
        let mut b = SwitchTables::new("s", ports);
        b.intern_group(vec![0, 1]);
        a.merge(b).unwrap();
        assert_eq!(a.groups, vec![vec![1], vec![0, 1]]);
        let c = SwitchTables::new("s", vec![port(PortRole::Down)]);
        assert_eq!(
            a.merge(c).unwrap_err().to_string(),
            "switch s: port configurations differ"
        );
    }
}
