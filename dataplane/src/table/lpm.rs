//! Longest-prefix-match index of a path-ID table: one exact-match level per distinct
//! prefix length, longest first, each a small direct-indexed array of slots whenever the
//! length's entries are dense in the bits where they differ.
//!
//! The entries of one length at a switch differ only in a few fields of the path ID (at
//! a fat-tree aggregation switch: the low bits of the core and the last down port; the
//! type, the high core bits and the pod are the same for all). A level records the bits
//! all its entries share (`care`/`fixed`) and the bits where they differ, as at most
//! [`MAX_RUNS`] runs of consecutive bits. A lookup key that differs in a shared bit is
//! rejected without touching memory; otherwise the runs are concatenated into a slot
//! index, and the slot holds the entry's result itself (down flag, port or group), so a
//! match is one load. A slot is two bytes when every port and group number of the
//! table's dense entries is below 2¹³ ([`HALF_MAX`]), else four. On a fat tree whose
//! arities are powers of two this is exactly one slot per entry, so the hot state is two
//! bytes per entry plus a 48-byte descriptor per length, the first [`INLINE`] of them
//! inside the table itself, instead of 16-byte entries searched in log₂ n dependent
//! steps.
//!
//! A length whose entries are not dense enough (the slots would exceed
//! `SLACK · count + MIN_SLOTS`) keeps the entries' sorted span and is binary-searched,
//! after the same shared-bit check. Memory is therefore at most `SLACK` slots (of at
//! most 4 bytes) per entry plus `MIN_SLOTS` per length, and building is a sort and one
//! pass over the sorted entries.

use super::pathid::{Action, LpmEntry};

/// Most runs of differing bits a dense level concatenates; more are merged by filling
/// the shortest gaps between them.
const MAX_RUNS: usize = 4;
/// Most index bits of a dense level (16 Mi slots).
const MAX_DENSE_BITS: u32 = 24;
/// A dense level has at most `SLACK · count + MIN_SLOTS` slots.
const SLACK: usize = 4;
const MIN_SLOTS: usize = 64;

/// Four-byte slot bits: an entry is present, it is a downward entry, its action is a
/// group; the low 16 bits are the port or group.
const VALID: u32 = 1 << 31;
const DOWN: u32 = 1 << 17;
const GROUP: u32 = 1 << 16;
/// Two-byte slot bits, the same three flags; the low 13 bits are the port or group.
const H_VALID: u16 = 1 << 15;
const H_DOWN: u16 = 1 << 14;
const H_GROUP: u16 = 1 << 13;
/// Largest port or group number a two-byte slot holds.
const HALF_MAX: u16 = H_GROUP - 1;

/// Levels held inline in the table (the longest lengths), so that a lookup reads them
/// from the switch's own table struct instead of following another pointer; a fat-tree
/// switch has at most L + 1 lengths.
const INLINE: usize = 4;

/// One prefix length (48 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Level {
    /// Key bits that every entry of this length has in common…
    care: u64,
    /// …and their values.
    fixed: u64,
    /// Dense: the first slot. Sparse: the start of the span of this length's entries
    /// in the sorted entries.
    base: u32,
    /// Sparse: the end of that span.
    end: u32,
    /// Dense: the runs of the slot index. Run r is the key shifted right by `shift[r]`
    /// and masked with `mask[r]`: its bits already in their place in the index (an
    /// unused run has mask 0).
    mask: [u32; MAX_RUNS],
    shift: [u8; MAX_RUNS],
    len: u8,
    dense: bool,
}

impl Level {
    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        let mut i = 0u64;
        for (&m, &s) in self.mask.iter().zip(&self.shift) {
            i |= (key >> s) & u64::from(m);
        }
        i as usize
    }
}

/// The index of one table, built from its entries sorted by (length descending, value
/// ascending) without duplicates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct LpmIndex {
    /// The first `n_head` levels, longest first.
    head: [Level; INLINE],
    n_head: u8,
    /// The levels after those.
    tail: Vec<Level>,
    /// Slots of the dense levels: 0 for no entry, else the entry's packed result.
    slots: Slots,
}

/// Slot array: two bytes per slot when every port and group number of the dense entries
/// is at most [`HALF_MAX`] (any switch with fewer than 8,192 ports and groups), else
/// four.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slots {
    Half(Vec<u16>),
    Full(Vec<u32>),
}

impl Default for Slots {
    fn default() -> Self {
        Slots::Half(Vec::new())
    }
}

fn number(a: Action) -> u16 {
    match a {
        Action::Port(p) | Action::Group(p) => p,
    }
}

fn pack(e: &LpmEntry) -> u32 {
    let a = match e.action {
        Action::Port(p) => u32::from(p),
        Action::Group(g) => GROUP | u32::from(g),
    };
    VALID | if e.down { DOWN } else { 0 } | a
}

/// [`pack`] in two bytes; the number must be at most [`HALF_MAX`].
fn pack_half(e: &LpmEntry) -> u16 {
    let g = if matches!(e.action, Action::Group(_)) {
        H_GROUP
    } else {
        0
    };
    H_VALID | if e.down { H_DOWN } else { 0 } | g | (number(e.action) & HALF_MAX)
}

#[inline(always)]
fn entry(key: u64, len: u8, down: bool, group: bool, n: u16) -> LpmEntry {
    LpmEntry {
        value: key,
        len,
        down,
        action: if group {
            Action::Group(n)
        } else {
            Action::Port(n)
        },
    }
}

/// Mask of the low `len` bits (a prefix of `len` bits, right-aligned).
fn low_mask(len: u8) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// Maximal runs of one bits of `m`, low to high, as (shift, width).
fn runs_of(mut m: u64) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    while m != 0 {
        let s = m.trailing_zeros();
        let w = (!(m >> s)).trailing_zeros().min(64 - s);
        v.push((s, w));
        m &= !(low_mask(w as u8) << s);
    }
    v
}

/// Merge runs (filling the gap bits into the index) until at most [`MAX_RUNS`] remain,
/// always the pair with the smallest gap.
fn merge_runs(mut v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    while v.len() > MAX_RUNS {
        let Some(i) = (0..v.len() - 1).min_by_key(|&i| v[i + 1].0 - (v[i].0 + v[i].1)) else {
            break;
        };
        let (s, _) = v[i];
        let (s2, w2) = v[i + 1];
        v[i] = (s, s2 + w2 - s);
        v.remove(i + 1);
    }
    v
}

/// A level being built: its descriptor, whether it can be dense, and its entries.
struct Draft {
    level: Level,
    dense: bool,
    base_entry: usize,
    end_entry: usize,
}

/// The level of the entries `start..end` (one length); a dense one takes its slots
/// from `*n_slots` on.
fn level(entries: &[LpmEntry], start: usize, end: usize, n_slots: &mut usize) -> Draft {
    let span = &entries[start..end];
    let len = span[0].len;
    let v0 = span[0].value;
    let differ = span.iter().fold(0u64, |m, e| m | (e.value ^ v0));
    let care = low_mask(len) & !differ;
    let mut level = Level {
        care,
        fixed: v0 & care,
        base: 0,
        end: end as u32,
        mask: [0; MAX_RUNS],
        shift: [0; MAX_RUNS],
        len,
        dense: false,
    };
    let runs = merge_runs(runs_of(differ));
    let bits: u32 = runs.iter().map(|r| r.1).sum();
    let base = *n_slots;
    let dense = bits <= MAX_DENSE_BITS && {
        let size = 1usize << bits;
        size <= SLACK.saturating_mul(span.len()).saturating_add(MIN_SLOTS)
            && u32::try_from(base + size).is_ok()
    };
    if dense {
        // the runs ascend and do not overlap, so each starts at or above its place
        // `out` in the index, which is below 2^MAX_DENSE_BITS
        let mut out = 0u32;
        for (r, &(s, w)) in runs.iter().enumerate().take(MAX_RUNS) {
            level.mask[r] = (low_mask(w as u8) << out) as u32;
            level.shift[r] = (s - out) as u8;
            out += w;
        }
        level.base = base as u32;
        *n_slots = base + (1usize << bits);
    }
    Draft {
        level,
        dense,
        base_entry: start,
        end_entry: end,
    }
}

impl LpmIndex {
    /// Build the index of `entries` (sorted by length descending, value ascending,
    /// no two with the same length and value).
    pub(crate) fn build(entries: &[LpmEntry]) -> Self {
        let mut ix = LpmIndex::default();
        let mut levels = Vec::new();
        let mut n_slots = 0usize;
        let mut start = 0;
        while start < entries.len() {
            let len = entries[start].len;
            let end = start + entries[start..].iter().take_while(|e| e.len == len).count();
            levels.push(level(entries, start, end, &mut n_slots));
            start = end;
        }
        let half = levels
            .iter()
            .filter(|l| l.dense)
            .flat_map(|l| &entries[l.base_entry..l.end_entry])
            .all(|e| number(e.action) <= HALF_MAX);
        let mut slots = if half {
            Slots::Half(vec![0; n_slots])
        } else {
            Slots::Full(vec![0; n_slots])
        };
        for l in &levels {
            let mut lv = l.level;
            if l.dense {
                lv.dense = true;
                for e in &entries[l.base_entry..l.end_entry] {
                    let i = lv.base as usize + lv.index(e.value);
                    match &mut slots {
                        Slots::Half(v) => v.get_mut(i).map(|s| *s = pack_half(e)),
                        Slots::Full(v) => v.get_mut(i).map(|s| *s = pack(e)),
                    };
                }
            } else {
                lv.base = l.base_entry as u32;
            }
            match ix.head.get_mut(usize::from(ix.n_head)) {
                Some(h) => {
                    *h = lv;
                    ix.n_head += 1;
                }
                None => ix.tail.push(lv),
            }
        }
        ix.slots = slots;
        ix
    }

    /// Longest-prefix match of a left-aligned path ID of `id_len` bits; `entries` are
    /// the entries the index was built from.
    #[inline]
    pub(crate) fn lookup(&self, entries: &[LpmEntry], id: u64, id_len: u8) -> Option<LpmEntry> {
        let head = self.head.get(..usize::from(self.n_head)).unwrap_or(&[]);
        for l in head {
            if let Some(e) = self.probe(l, entries, id, id_len) {
                return Some(e);
            }
        }
        for l in &self.tail {
            if let Some(e) = self.probe(l, entries, id, id_len) {
                return Some(e);
            }
        }
        None
    }

    /// The entry of level `l` that matches the ID, if any.
    #[inline(always)]
    fn probe(&self, l: &Level, entries: &[LpmEntry], id: u64, id_len: u8) -> Option<LpmEntry> {
        if l.len > id_len {
            return None;
        }
        let key = if l.len == 0 {
            0
        } else {
            id >> (64 - u32::from(l.len))
        };
        if key & l.care != l.fixed {
            return None;
        }
        if l.dense {
            let i = l.base as usize + l.index(key);
            match &self.slots {
                Slots::Half(v) => {
                    let s = v.get(i).copied().unwrap_or(0);
                    let (down, group) = (s & H_DOWN != 0, s & H_GROUP != 0);
                    (s != 0).then(|| entry(key, l.len, down, group, s & HALF_MAX))
                }
                Slots::Full(v) => {
                    let s = v.get(i).copied().unwrap_or(0);
                    let (down, group) = (s & DOWN != 0, s & GROUP != 0);
                    (s != 0).then(|| entry(key, l.len, down, group, s as u16))
                }
            }
        } else {
            let run = entries.get(l.base as usize..l.end as usize).unwrap_or(&[]);
            let i = run.binary_search_by(|e| e.value.cmp(&key)).ok()?;
            run.get(i).copied()
        }
    }

    /// Number of dense levels and of all levels (tests, docs).
    #[cfg(test)]
    pub(crate) fn dense_levels(&self) -> (usize, usize) {
        let head = self.head.get(..usize::from(self.n_head)).unwrap_or(&[]);
        let all = || head.iter().chain(&self.tail);
        (all().filter(|l| l.dense).count(), all().count())
    }

    /// Slots of the dense levels.
    #[cfg(test)]
    pub(crate) fn slot_count(&self) -> usize {
        match &self.slots {
            Slots::Half(v) => v.len(),
            Slots::Full(v) => v.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::pathid::PathIdTable;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The specification: the longest entry of at most `id_len` bits whose bits are the
    /// first bits of the ID, by a linear scan.
    fn naive(entries: &[LpmEntry], id: u64, id_len: u8) -> Option<LpmEntry> {
        entries
            .iter()
            .filter(|e| e.len <= id_len && (e.len == 0 || id >> (64 - u32::from(e.len)) == e.value))
            .max_by_key(|e| e.len)
            .copied()
    }

    fn left(value: u64, len: u8) -> u64 {
        if len == 0 {
            0
        } else {
            value << (64 - u32::from(len))
        }
    }

    fn table(entries: Vec<LpmEntry>) -> PathIdTable {
        PathIdTable::new(2, false, vec![], entries).expect("valid entries")
    }

    /// One generated entry: a length (0 and 64 often), then either a random value or
    /// one of a few base patterns with a small window of bits changed, so that the
    /// entries of a length share most bits (dense levels) or not (sparse levels); then
    /// the down flag, port or group, and its number.
    fn entry() -> impl Strategy<Value = (u8, bool, usize, u8, u8, u64, bool, bool, u16)> {
        (
            prop_oneof![Just(0u8), Just(64u8), Just(1u8), Just(63u8), 0u8..=64],
            any::<bool>(),
            0usize..3,
            0u8..64,
            0u8..=8,
            any::<u64>(),
            any::<bool>(),
            any::<bool>(),
            // mostly small numbers (two-byte slots); sometimes the largest a two-byte
            // slot holds, or one above it (four-byte slots)
            prop_oneof![
                20 => 0u16..6,
                1 => Just(HALF_MAX),
                1 => (HALF_MAX + 1)..=u16::MAX,
            ],
        )
    }

    #[allow(clippy::type_complexity)]
    fn make(
        bases: &[u64; 3],
        raw: &[(u8, bool, usize, u8, u8, u64, bool, bool, u16)],
    ) -> Vec<LpmEntry> {
        let mut by_key: BTreeMap<(u8, u64), LpmEntry> = BTreeMap::new();
        for &(len, sparse, b, pos, width, bits, down, group, a) in raw {
            let m = low_mask(len);
            let value = if sparse {
                bits & m
            } else {
                let window = low_mask(width) << pos.min(63);
                ((bases[b] >> (64 - u32::from(len.max(1)))) ^ (bits & window)) & m
            };
            let value = if len == 0 { 0 } else { value };
            let action = if group {
                Action::Group(a)
            } else {
                Action::Port(a)
            };
            by_key.entry((len, value)).or_insert(LpmEntry {
                value,
                len,
                down,
                action,
            });
        }
        by_key.into_values().collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn lookup_equals_a_linear_scan(
            bases in any::<[u64; 3]>(),
            raw in proptest::collection::vec(entry(), 0..60),
            probes in proptest::collection::vec(
                (any::<usize>(), any::<u64>(), 0u8..8, any::<u8>(), 0u8..64), 1..40),
        ) {
            let entries = make(&bases, &raw);
            let t = table(entries.clone());
            for (pick, rest, how, rand_len, flip) in probes {
                // probe near an entry: its prefix, then random bits; the ID as long as
                // the entry, one bit shorter or longer, 0, 64 or random; sometimes one
                // bit of the prefix flipped
                let (id, id_len) = match entries.get(pick % entries.len().max(1)) {
                    Some(e) if how != 7 => {
                        let tail = if e.len == 64 { 0 } else { rest >> e.len };
                        let mut id = left(e.value, e.len) | tail;
                        if how == 6 {
                            id ^= 1u64 << flip;
                        }
                        let id_len = match how {
                            0 => e.len,
                            1 => e.len.saturating_sub(1),
                            2 => (e.len + 1).min(64),
                            3 => 64,
                            4 => 0,
                            _ => rand_len % 65,
                        };
                        (id, id_len)
                    }
                    _ => (rest, rand_len % 65),
                };
                prop_assert_eq!(t.lookup(id, id_len), naive(&entries, id, id_len),
                    "id {:#x}/{}", id, id_len);
            }
        }
    }

    #[test]
    fn dense_and_sparse_levels_agree_with_the_scan() {
        let e = |value, len, down, p| LpmEntry {
            value,
            len,
            down,
            action: Action::Port(p),
        };
        // Like a fat-tree aggregation switch: lengths 18 (core low bits x down port),
        // 14 and 9; plus a default route and a full-length entry.
        let mut v = vec![e(0, 0, false, 99), e(u64::MAX, 64, true, 98)];
        for c in 0..16u64 {
            for d in 0..16u64 {
                v.push(e(
                    (1 << 17) | ((32 + c) << 9) | (5 << 4) | d,
                    18,
                    true,
                    d as u16,
                ));
            }
            v.push(e((1 << 8) | (32 + c), 9, false, 16 + c as u16));
        }
        for d in 0..16u64 {
            v.push(e((7 << 4) | d, 14, true, d as u16));
        }
        // a sparse length: values far apart
        for i in 0..8u64 {
            v.push(e(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 4, 60, false, 7));
        }
        let t = table(v.clone());
        let ix = &t.index;
        // every length dense (one slot per entry) but the sparse one
        assert_eq!(ix.dense_levels(), (5, 6));
        assert_eq!(ix.slot_count(), 1 + 1 + 256 + 16 + 16);
        let mut ids: Vec<(u64, u8)> = Vec::new();
        for x in &v {
            for delta in [0u64, 1, 1 << 20, 1 << 40, u64::MAX >> 1] {
                let id = left(x.value, x.len) ^ delta;
                for l in [x.len, x.len.saturating_sub(1), 64, 18, 17, 9, 8, 0] {
                    ids.push((id, l));
                }
            }
        }
        for (id, l) in ids {
            assert_eq!(t.lookup(id, l), naive(&v, id, l), "{id:#x}/{l}");
        }
        assert_eq!(t.lookup(0, 0).unwrap().action, Action::Port(99));
        assert_eq!(t.lookup(u64::MAX, 64).unwrap().action, Action::Port(98));
        assert_eq!(t.lookup(u64::MAX, 63).unwrap().action, Action::Port(99));
    }

    #[test]
    fn half_and_full_slots() {
        // numbers up to 8,191: two-byte slots; one port or group above: four-byte slots;
        // 70,000 distinct results still dense
        for (n, big, half) in [
            (300u64, None, true),
            (300, Some(Action::Port(HALF_MAX + 1)), false),
            (300, Some(Action::Group(u16::MAX)), false),
            (70_000, None, false),
        ] {
            let mut v: Vec<LpmEntry> = (0..n)
                .map(|i| LpmEntry {
                    value: (3 << 20) | i,
                    len: 22,
                    down: i % 2 == 0,
                    action: if i % 3 == 0 {
                        Action::Group((i / 2) as u16)
                    } else {
                        Action::Port((i / 2) as u16)
                    },
                })
                .collect();
            if let Some(a) = big {
                v[7].action = a;
            }
            let t = table(v.clone());
            assert_eq!(matches!(t.index.slots, Slots::Half(_)), half, "{n}");
            assert_eq!(t.index.dense_levels(), (1, 1), "{n}");
            for i in (0..n + 5).step_by(7) {
                let id = left((3 << 20) | i, 22);
                assert_eq!(t.lookup(id, 22), naive(&v, id, 22), "{n} {i}");
            }
        }
    }

    #[test]
    fn runs_merge_the_shortest_gaps() {
        assert_eq!(
            std::mem::size_of::<Level>(),
            48,
            "the module docs give the size"
        );
        assert_eq!(runs_of(0), vec![]);
        assert_eq!(runs_of(u64::MAX), vec![(0, 64)]);
        assert_eq!(runs_of(0b1101_0110), vec![(1, 2), (4, 1), (6, 2)]);
        // five runs with gaps 1, 3, 1, 2: the first smallest gap is filled
        let v = merge_runs(runs_of(0b1001_0100_0101));
        assert_eq!(v, vec![(0, 3), (6, 1), (8, 1), (11, 1)]);
        let v = merge_runs(runs_of(0b1_0101_0101));
        assert_eq!(v.len(), MAX_RUNS);
    }
}
