//! Path-ID forwarding table: \[PathID\]'s LPM routing entries of one switch, plus the host
//! label map of a leaf switch (the last hop, which the path ID does not cover).
//!
//! Lookup structure: entries sorted by (prefix length descending, value ascending), and
//! an index (`table/lpm.rs`) with one exact-match level per distinct length, longest
//! first. A level rejects a key that differs from the bits all its entries share
//! without a memory access, and otherwise answers from a direct-indexed array of 2- or
//! 4-byte slots that hold the entry's result, down flag and port or group (or, for a
//! length whose entries are too sparse for that, a binary search of its span). A path-ID
//! fabric has at most L + 1 distinct lengths per type, so a lookup is a few register
//! operations and usually one slot load; no allocation, no hashing.

use super::lpm::LpmIndex;
use crate::wire::pathid::MAX_ID_BITS;
use serde::{Deserialize, Serialize};

/// What a matching entry does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Send on this port.
    Port(u16),
    /// Send on any port of this group (parallel links to the same next switch).
    Group(u16),
}

impl Action {
    fn remap(&mut self, map: &[u16]) {
        if let Action::Group(g) = self {
            if let Some(n) = map.get(usize::from(*g)) {
                *g = *n;
            }
        }
    }
}

/// One LPM routing entry (\[PathID\]'s `Path_ID_Prefix/ Physical_Port`). Serialised with
/// the prefix as a bit string (`"prefix": "101000"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "LpmEntryText", try_from = "LpmEntryText")]
pub struct LpmEntry {
    /// Prefix bits, right-aligned (the first `len` bits of a path ID).
    pub value: u64,
    /// Prefix length in bits (0..=64).
    pub len: u8,
    /// Downward entry (`t.Top.Route.DP…/`): the frame turns or continues down here.
    /// Upward entries (`t.Top.Route/`) are only valid before the turn.
    pub down: bool,
    /// Where to send.
    pub action: Action,
}

/// Serialised form of [`LpmEntry`].
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LpmEntryText {
    prefix: String,
    down: bool,
    action: Action,
}

impl From<LpmEntry> for LpmEntryText {
    fn from(e: LpmEntry) -> Self {
        let n = u32::from(e.len.min(MAX_ID_BITS));
        let prefix = (0..n)
            .map(|i| {
                if (e.value >> (n - 1 - i)) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect();
        LpmEntryText {
            prefix,
            down: e.down,
            action: e.action,
        }
    }
}

impl TryFrom<LpmEntryText> for LpmEntry {
    type Error = TableError;
    fn try_from(t: LpmEntryText) -> Result<Self, TableError> {
        let bad = |why| TableError::BadPrefix {
            prefix: t.prefix.clone(),
            why,
        };
        if t.prefix.len() > usize::from(MAX_ID_BITS) {
            return Err(bad("longer than 64 bits"));
        }
        let mut value = 0u64;
        for c in t.prefix.chars() {
            value = (value << 1)
                | match c {
                    '0' => 0,
                    '1' => 1,
                    _ => return Err(bad("is not a bit string")),
                };
        }
        Ok(LpmEntry {
            value,
            len: t.prefix.len() as u8,
            down: t.down,
            action: t.action,
        })
    }
}

/// Host label → port of a leaf switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEntry {
    /// Host label (the destination's down label at this switch).
    pub label: u32,
    /// Where to send.
    pub action: Action,
}

/// An entry set that cannot form a table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A prefix longer than 64 bits or a value wider than its length.
    #[error("entry {value:#x}/{len}: {why}")]
    BadEntry {
        /// Value.
        value: u64,
        /// Length.
        len: u8,
        /// Why.
        why: &'static str,
    },
    /// The same prefix twice with different actions.
    #[error("prefix {value:#x}/{len} given twice with different actions")]
    Conflict {
        /// Value.
        value: u64,
        /// Length.
        len: u8,
    },
    /// The same host label twice with different actions.
    #[error("host label {0} given twice")]
    HostConflict(u32),
    /// More entries than a table indexes (2³² − 1).
    #[error("{0} entries: a table holds at most 2^32 - 1")]
    TooMany(usize),
    /// A serialised prefix that is not a bit string of at most 64 bits.
    #[error("prefix `{prefix}` {why}")]
    BadPrefix {
        /// The prefix as written.
        prefix: String,
        /// Why.
        why: &'static str,
    },
}

/// Path-ID table of one switch. Serialised without the derived index; deserialising
/// rebuilds (and re-validates) the table through [`PathIdTable::new`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "PathIdTableText", try_from = "PathIdTableText")]
pub struct PathIdTable {
    /// Level of the switch (1 = leaf).
    pub level: u16,
    /// Hosts hang on this switch: frames arriving from above (or LOCAL frames) are
    /// delivered by host label.
    pub leaf: bool,
    /// Host label map, sorted by label (leaf switches only).
    hosts: Vec<HostEntry>,
    /// The first host label: with consecutive labels, label − this is the entry's index.
    host_first: u32,
    /// LPM entries sorted by (length descending, value ascending).
    entries: Vec<LpmEntry>,
    /// The lookup index over `entries`, derived from them.
    pub(super) index: LpmIndex,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PathIdTableText {
    level: u16,
    leaf: bool,
    hosts: Vec<HostEntry>,
    entries: Vec<LpmEntry>,
}

impl From<PathIdTable> for PathIdTableText {
    fn from(t: PathIdTable) -> Self {
        PathIdTableText {
            level: t.level,
            leaf: t.leaf,
            hosts: t.hosts,
            entries: t.entries,
        }
    }
}

impl TryFrom<PathIdTableText> for PathIdTable {
    type Error = TableError;
    fn try_from(t: PathIdTableText) -> Result<Self, TableError> {
        PathIdTable::new(t.level, t.leaf, t.hosts, t.entries)
    }
}

impl PathIdTable {
    /// Build a table, sorting and checking the entries (duplicates with the same action
    /// are merged).
    pub fn new(
        level: u16,
        leaf: bool,
        mut hosts: Vec<HostEntry>,
        mut entries: Vec<LpmEntry>,
    ) -> Result<Self, TableError> {
        for e in &entries {
            if e.len > MAX_ID_BITS {
                return Err(TableError::BadEntry {
                    value: e.value,
                    len: e.len,
                    why: "prefix longer than 64 bits",
                });
            }
            if e.len < 64 && e.value >> e.len != 0 {
                return Err(TableError::BadEntry {
                    value: e.value,
                    len: e.len,
                    why: "value wider than the prefix length",
                });
            }
        }
        entries.sort_unstable_by(|a, b| {
            b.len
                .cmp(&a.len)
                .then(a.value.cmp(&b.value))
                .then(a.down.cmp(&b.down))
        });
        let mut out: Vec<LpmEntry> = Vec::with_capacity(entries.len());
        for e in entries {
            match out.last() {
                Some(l) if l.len == e.len && l.value == e.value => {
                    if *l != e {
                        return Err(TableError::Conflict {
                            value: e.value,
                            len: e.len,
                        });
                    }
                }
                _ => out.push(e),
            }
        }
        if u32::try_from(out.len()).is_err() {
            return Err(TableError::TooMany(out.len()));
        }
        let index = LpmIndex::build(&out);
        hosts.sort_unstable_by_key(|h| h.label);
        for w in hosts.windows(2) {
            if w[0].label == w[1].label {
                return Err(TableError::HostConflict(w[0].label));
            }
        }
        Ok(PathIdTable {
            level,
            leaf,
            host_first: hosts.first().map_or(0, |h| h.label),
            hosts,
            entries: out,
            index,
        })
    }

    /// The LPM entries, longest prefix first.
    pub fn entries(&self) -> &[LpmEntry] {
        &self.entries
    }

    /// The host label map.
    pub fn hosts(&self) -> &[HostEntry] {
        &self.hosts
    }

    /// Longest-prefix match of a left-aligned path ID of `id_len` bits: the longest entry
    /// of at most `id_len` bits that is a prefix of the ID. Bits of `id` after `id_len`
    /// are ignored.
    #[inline]
    pub fn lookup(&self, id: u64, id_len: u8) -> Option<LpmEntry> {
        self.index.lookup(&self.entries, id, id_len)
    }

    /// Action for a host label: one probe where the labels are consecutive, else a
    /// binary search.
    #[inline]
    pub fn host(&self, label: u32) -> Option<Action> {
        let guess = label.wrapping_sub(self.host_first) as usize;
        if let Some(h) = self.hosts.get(guess) {
            if h.label == label {
                return Some(h.action);
            }
        }
        self.hosts
            .binary_search_by(|h| h.label.cmp(&label))
            .ok()
            .and_then(|i| self.hosts.get(i))
            .map(|h| h.action)
    }

    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, map: &[u16]) {
        for e in &mut self.entries {
            e.action.remap(map);
        }
        for h in &mut self.hosts {
            h.action.remap(map);
        }
        self.index = LpmIndex::build(&self.entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(value: u64, len: u8, down: bool, p: u16) -> LpmEntry {
        LpmEntry {
            value,
            len,
            down,
            action: Action::Port(p),
        }
    }

    #[test]
    fn longest_prefix_wins() {
        // [PathID]'s Fattree(4) agg s_1^2: `1.01.null/ 3` and `1.01.null.01.0/ 1`.
        let t = PathIdTable::new(
            2,
            false,
            vec![],
            vec![
                e(0b101, 3, false, 3),
                e(0b101010, 6, true, 1),
                e(0b101011, 6, true, 2),
            ],
        )
        .unwrap();
        let id = |v: u64, n: u32| v << (64 - n);
        assert_eq!(
            t.lookup(id(0b101010, 6), 6).unwrap().action,
            Action::Port(1)
        );
        assert_eq!(
            t.lookup(id(0b101011, 6), 6).unwrap().action,
            Action::Port(2)
        );
        assert_eq!(
            t.lookup(id(0b101000, 6), 6).unwrap().action,
            Action::Port(3)
        );
        assert!(!t.lookup(id(0b101000, 6), 6).unwrap().down);
        assert_eq!(t.lookup(id(0b111000, 6), 6), None);
        // an entry longer than the ID never matches
        assert_eq!(t.lookup(id(0b101010, 6), 5).unwrap().len, 3);
    }

    #[test]
    fn conflicts_and_bad_entries() {
        assert!(matches!(
            PathIdTable::new(1, false, vec![], vec![e(1, 2, false, 1), e(1, 2, false, 2)]),
            Err(TableError::Conflict { .. })
        ));
        // identical duplicates merge
        let t =
            PathIdTable::new(1, false, vec![], vec![e(1, 2, false, 1), e(1, 2, false, 1)]).unwrap();
        assert_eq!(t.entries().len(), 1);
        assert!(matches!(
            PathIdTable::new(1, false, vec![], vec![e(4, 2, false, 1)]),
            Err(TableError::BadEntry { .. })
        ));
        assert!(matches!(
            PathIdTable::new(1, false, vec![], vec![e(0, 65, false, 1)]),
            Err(TableError::BadEntry { .. })
        ));
        let h = |label, p| HostEntry {
            label,
            action: Action::Port(p),
        };
        assert!(matches!(
            PathIdTable::new(1, true, vec![h(1, 0), h(1, 1)], vec![]),
            Err(TableError::HostConflict(1))
        ));
        let t = PathIdTable::new(1, true, vec![h(3, 0), h(1, 1)], vec![]).unwrap();
        assert_eq!(t.host(1), Some(Action::Port(1)));
        assert_eq!(t.host(2), None);
        assert_eq!(t.host(3), Some(Action::Port(0)));
        // consecutive labels from 5 (one probe), then a gap (binary search)
        let hs = vec![h(5, 0), h(6, 1), h(7, 2), h(9, 3), h(40, 4)];
        let t = PathIdTable::new(1, true, hs, vec![]).unwrap();
        for (l, p) in [(5, 0), (6, 1), (7, 2), (9, 3), (40, 4)] {
            assert_eq!(t.host(l), Some(Action::Port(p)), "{l}");
        }
        for l in [0, 4, 8, 10, 39, 41, u32::MAX] {
            assert_eq!(t.host(l), None, "{l}");
        }
    }

    #[test]
    fn serde_uses_bit_strings() {
        let e = LpmEntry {
            value: 0b101010,
            len: 6,
            down: true,
            action: Action::Port(1),
        };
        let t = LpmEntryText::from(e);
        assert_eq!(t.prefix, "101010");
        assert_eq!(LpmEntry::try_from(t.clone()).unwrap(), e);
        let bad = LpmEntryText {
            prefix: "10x".into(),
            ..t.clone()
        };
        assert_eq!(
            LpmEntry::try_from(bad).unwrap_err().to_string(),
            "prefix `10x` is not a bit string"
        );
        let long = LpmEntryText {
            prefix: "1".repeat(65),
            ..t
        };
        assert_eq!(
            LpmEntry::try_from(long).unwrap_err().to_string(),
            format!("prefix `{}` longer than 64 bits", "1".repeat(65))
        );
    }

    #[test]
    fn remap_and_full_length() {
        let mut t = PathIdTable::new(
            1,
            false,
            vec![],
            vec![LpmEntry {
                value: u64::MAX,
                len: 64,
                down: true,
                action: Action::Group(0),
            }],
        )
        .unwrap();
        assert!(t.lookup(u64::MAX, 64).is_some());
        t.remap_groups(&[5]);
        assert_eq!(t.entries()[0].action, Action::Group(5));
    }
}
