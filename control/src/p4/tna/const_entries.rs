//! The constant entries of the Tofino program `p4/canopy_tna.p4`: every table whose
//! entries follow from the program's design alone, not from a switch's configuration.
//! They are written to `p4/tna_entries/`, one file per table, and each table's
//! `const entries = { … }` includes its file (`#include "tna_entries/<table>.p4"`; p4c
//! runs the C preprocessor). `canopyctl p4-tna-entries` writes the files, and
//! `control/tests/p4_tna.rs` regenerates them and fails on any difference.
//!
//! What the tables encode (docs/p4.md §5):
//! * **funnel shifts**: a field of w ≤ 32 bits at a runtime position S of a 64-bit word is
//!   `(word >> S) & low_mask(w)`. Tofino has no variable shift, so with S = 8q + r a table
//!   keyed on S picks one of 8 actions that shift whole bytes (`tna_*_q`), a second one of 8
//!   that shift the bits (`tna_*_r`), and a third ANDs `low_mask(w)` as action data
//!   (`tna_*_mask_tbl`, `tna_x_zn_tbl`);
//! * **must-be-zero bits** under a length-dependent mask, as ternary matches keyed on the
//!   length (`tna_chk_*`, `tna_zn_ovf`, `tna_x_zo`), and ρ, the bit at the cursor
//!   (`tna_rho`);
//! * **header checks and drops** ([`checks`]): per header group the index of its first
//!   failing check (`tna_hc_*`), and the priority encoder that names the first failing
//!   check in `p4/canopy.p4`'s order (`tna_drop_pick`);
//! * **lookups instead of arithmetic** a single Tofino action cannot do: `HdrLen * 8`,
//!   `port * 32`, the rotation sum mod 4, the Transit body lengths, and the direction pair
//!   at the head and rotation (`tna_dir`).
//!
//! The tables `tna_outcome` (the sliced decision tree), `tna_pick` and `tna_x` keep their
//! few hand-written entries in `p4/canopy_tna.p4`.

use std::fmt;
use std::path::{Path, PathBuf};

use canopy_dataplane::wire::sliced::low_mask;
use canopy_dataplane::wire::transit;
use thiserror::Error;

pub mod checks;
#[cfg(test)]
mod tests;

/// Where the files go, relative to the repository root.
pub const DIR: &str = "p4/tna_entries";
/// The command that writes them, run from the repository root.
pub const COMMAND: &str = "canopyctl p4-tna-entries";
/// The same through cargo, for the messages of the check.
pub const CARGO_COMMAND: &str = "cargo run -p canopy-control --bin canopyctl -- p4-tna-entries";

/// Bits of a Sliced routing word, SRC and a path ID.
const WORD_BITS: u32 = 64;
/// Bits of a Tofino PHV container: a 64-bit word is two halves.
const HALF_BITS: u32 = 32;
/// Widest label, side label or Znode id on TNA (one container).
const MAX_FIELD_BITS: u32 = 32;
/// Bits of a byte: the funnel shift's first step.
const BYTE_BITS: u64 = 8;
/// Bytes in one HdrLen unit.
const HDR_LEN_UNIT: u64 = 8;
/// The 8-bit keys (lengths, shifts, HdrLen, RouteLen, RecSlots).
const KEY8: u64 = 0xff;
/// Ports of a Tofino pipe's port number (9 bits), as `CANOPY_PORTS`.
const PORTS: u64 = 512;
/// Cells per port of `canopy_port_drops` (`CANOPY_DROPS_SIZE`).
const DROPS_PER_PORT: u64 = 32;
/// Transit: a routing byte holds 4 two-bit pairs; the rotation selects one.
const PAIRS: u64 = 4;
/// Transit: bits of a pair (a direction).
const PAIR_BITS: u64 = 2;
/// Transit: bytes in one 64-bit routing word.
const WORD_BYTES: u64 = 8;
/// Indentation of an entry inside `const entries = { … }`.
const INDENT: &str = "            ";

/// How a ternary value and mask are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `0x1f &&& 0xff`
    Hex,
    /// `64 &&& 0xc0`: the value in decimal
    Dec,
    /// `8w16 &&& 0xf8`: an 8-bit literal in decimal
    W8,
    /// `0x0004 &&& 0x0007`: both zero-padded to this many hex digits
    Pad(usize),
}

/// One key column of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    /// `_`: any value.
    Any,
    /// `false` or `true` (a header's `isValid()`).
    Bool(bool),
    /// One value, in decimal.
    Exact(u64),
    /// `value &&& mask`.
    Tern {
        /// Value (no bit outside the mask).
        v: u64,
        /// Mask.
        m: u64,
        /// How it is written.
        style: Style,
    },
}

impl Key {
    fn hex(v: u64, m: u64) -> Key {
        Key::Tern {
            v,
            m,
            style: Style::Hex,
        }
    }

    /// Whether the key matches the field value `x` (a boolean is 0 or 1).
    #[cfg(test)]
    pub(crate) fn matches(self, x: u64) -> bool {
        match self {
            Key::Any => true,
            Key::Bool(b) => x == u64::from(b),
            Key::Exact(v) => x == v,
            Key::Tern { v, m, .. } => x & m == v,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Key::Any => f.write_str("_"),
            Key::Bool(b) => write!(f, "{b}"),
            Key::Exact(v) => write!(f, "{v}"),
            Key::Tern { v, m, style } => match style {
                Style::Hex => write!(f, "{v:#x} &&& {m:#x}"),
                Style::Dec => write!(f, "{v} &&& {m:#x}"),
                Style::W8 => write!(f, "8w{v} &&& {m:#x}"),
                Style::Pad(d) => write!(f, "0x{v:0d$x} &&& 0x{m:0d$x}"),
            },
        }
    }
}

/// One constant entry: its key columns and the action call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Key columns, in the table's key order.
    pub key: Vec<Key>,
    /// The action call, `name(args)`.
    pub action: String,
}

impl Entry {
    fn new(key: Vec<Key>, action: String) -> Entry {
        Entry { key, action }
    }

    /// Whether every column matches its value.
    #[cfg(test)]
    pub(crate) fn matches(&self, values: &[u64]) -> bool {
        self.key.len() == values.len() && self.key.iter().zip(values).all(|(k, &x)| k.matches(x))
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(INDENT)?;
        match &self.key[..] {
            [one] => write!(f, "{one}")?,
            keys => {
                f.write_str("(")?;
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}")?;
                }
                f.write_str(")")?;
            }
        }
        write!(f, ": {};", self.action)
    }
}

/// The first entry that matches, as the target applies constant entries (in order).
#[cfg(test)]
pub(crate) fn lookup<'a>(entries: &'a [Entry], values: &[u64]) -> Option<&'a Entry> {
    entries.iter().find(|e| e.matches(values))
}

/// The generated entries of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    /// File name in [`DIR`], without `.p4`.
    pub file: String,
    /// The tables of `p4/canopy_tna.p4` that include it.
    pub tables: Vec<String>,
    /// Its entries, in order.
    pub entries: Vec<Entry>,
}

impl Table {
    /// The entries of the table `name`, in the file `name.p4`.
    fn one(name: &str, entries: Vec<Entry>) -> Table {
        Table {
            file: name.to_string(),
            tables: vec![name.to_string()],
            entries,
        }
    }
}

/// `[lo, hi]` as ternary prefixes of a `bits`-wide field, lowest first: each the largest
/// aligned block that starts at the next value and stays within the range.
pub(crate) fn range_prefixes(lo: u64, hi: u64, bits: u32) -> Vec<(u64, u64)> {
    debug_assert!(bits < 64 && hi <= low_mask(bits));
    let full = low_mask(bits);
    let mut out = Vec::new();
    let mut at = lo;
    while at <= hi {
        let mut k = 0;
        while k < bits && at & low_mask(k + 1) == 0 && at + low_mask(k + 1) <= hi {
            k += 1;
        }
        out.push((at, full & !low_mask(k)));
        at += 1 << k;
    }
    out
}

/// No bit of `mask` set: `0 &&& mask`, or `_` for an empty mask.
fn zero(mask: u64) -> Key {
    if mask == 0 {
        Key::Any
    } else {
        Key::Tern {
            v: 0,
            m: mask,
            style: Style::Dec,
        }
    }
}

/// A 64-bit must-be-zero mask as the two 32-bit halves of a key.
fn zero_halves(mask: u64) -> [Key; 2] {
    [zero(mask >> HALF_BITS), zero(mask & low_mask(HALF_BITS))]
}

/// Keyed on a length or shift `n` in `0..=last`: `0 &&& mask(n)` on the two halves.
fn zero_by_length(last: u64, mask: impl Fn(u64) -> u64, action: &str) -> Vec<Entry> {
    (0..=last)
        .map(|n| {
            let [hi, lo] = zero_halves(mask(n));
            Entry::new(vec![Key::Exact(n), hi, lo], action.to_string())
        })
        .collect()
}

/// The rest of an 8-bit shift key, `[from, 255]`, as prefixes that need no bit.
fn any_from(from: u64, action: &str) -> Vec<Entry> {
    range_prefixes(from, KEY8, 8)
        .into_iter()
        .map(|(v, m)| {
            let s = Key::Tern {
                v,
                m,
                style: Style::Dec,
            };
            Entry::new(vec![s, Key::Any, Key::Any], action.to_string())
        })
        .collect()
}

/// `low_mask(w)` for a shift or width that may reach 64.
fn low(w: u64) -> u64 {
    low_mask(w.min(u64::from(u32::MAX)) as u32)
}

/// The first funnel shift of `(hi ++ lo) >> S`: whole bytes, S = 8q + r keyed as
/// `8q &&& 0xf8` for q in 0..8 (S ≥ 64 misses: the default reads 0).
fn funnel_q(prefix: &str) -> Vec<Entry> {
    (0..u64::from(WORD_BITS) / BYTE_BITS)
        .map(|q| {
            let key = Key::Tern {
                v: q * BYTE_BITS,
                m: KEY8 & !(BYTE_BITS - 1),
                style: Style::W8,
            };
            Entry::new(vec![key], format!("tna_{prefix}_q{q}()"))
        })
        .collect()
}

/// The second funnel shift: the bits, r = S & 7.
fn funnel_r(prefix: &str) -> Vec<Entry> {
    (0..BYTE_BITS)
        .map(|r| {
            let key = Key::Tern {
                v: r,
                m: BYTE_BITS - 1,
                style: Style::W8,
            };
            Entry::new(vec![key], format!("tna_{prefix}_r{r}()"))
        })
        .collect()
}

/// `low_mask(w)` as action data, for the widths 0..=32.
fn mask_table(action: &str) -> Vec<Entry> {
    (0..=u64::from(MAX_FIELD_BITS))
        .map(|w| Entry::new(vec![Key::Exact(w)], format!("{action}({:#x})", low(w))))
        .collect()
}

/// The extraction of one field, `tna_<field>_q` and `tna_<field>_r`, and its mask table
/// when it has one (`tna_<field>_mask_tbl`, action `tna_<field>_mask`).
fn extraction(field: &str, mask: bool) -> Vec<Table> {
    let mut out = vec![
        Table::one(&format!("tna_{field}_q"), funnel_q(field)),
        Table::one(&format!("tna_{field}_r"), funnel_r(field)),
    ];
    if mask {
        let action = format!("tna_{field}_mask");
        out.push(Table::one(&format!("{action}_tbl"), mask_table(&action)));
    }
    out
}

/// `hl = HdrLen * 8`, the header length in bytes (a widening shift of a header field is
/// not one Tofino operation).
fn hdr_len() -> Vec<Entry> {
    (0..=KEY8)
        .map(|h| {
            let a = format!("tna_set_hl({})", h * HDR_LEN_UNIT);
            Entry::new(vec![Key::Exact(h)], a)
        })
        .collect()
}

/// `canopy_port_drops`' base index of a port, `port * 32` (`CANOPY_PORT_DROP_INDEX`).
fn port_drop() -> Vec<Entry> {
    (0..PORTS)
        .map(|p| {
            let a = format!("tna_set_port_drop({})", p * DROPS_PER_PORT);
            Entry::new(vec![Key::Exact(p)], a)
        })
        .collect()
}

/// Transit: the new rotation, `(Rot + link rotation) mod 4`.
fn rotation() -> Vec<Entry> {
    let mut out = Vec::new();
    for rot in 0..PAIRS {
        for link in 0..PAIRS {
            let a = format!("tna_set_rot({})", (rot + link) % PAIRS);
            out.push(Entry::new(vec![Key::Exact(rot), Key::Exact(link)], a));
        }
    }
    out
}

/// Transit: the fixed part plus RouteLen rounded up to whole words, in bytes.
fn route_total() -> Vec<Entry> {
    (0..=KEY8)
        .map(|len| {
            let total = transit::body_len(len as usize, 0);
            let a = format!("tna_set_route_total({total})");
            Entry::new(vec![Key::Exact(len)], a)
        })
        .collect()
}

/// Transit: the record-area header plus RecSlots records rounded up to whole words, in
/// bytes (only read when RecSlots > 0).
fn rec_total() -> Vec<Entry> {
    (0..=KEY8)
        .map(|slots| {
            let records =
                (slots as usize * transit::RECORD_LEN).next_multiple_of(WORD_BYTES as usize);
            let total = transit::REC_HEADER_LEN + records;
            let a = format!("tna_set_rec_total({total})");
            Entry::new(vec![Key::Exact(slots)], a)
        })
        .collect()
}

/// Mode 0, ρ: the bit at the cursor of the left-aligned word (in its half).
fn rho() -> Vec<Entry> {
    (0..u64::from(WORD_BITS))
        .map(|c| {
            let bit = 1u64 << (u64::from(WORD_BITS) - 1 - c);
            let (hi, lo) = (bit >> HALF_BITS, bit & low_mask(HALF_BITS));
            let half = |b: u64| if b == 0 { Key::Any } else { Key::hex(b, b) };
            Entry::new(
                vec![Key::Exact(c), half(hi), half(lo)],
                "tna_rho_one()".into(),
            )
        })
        .collect()
}

/// Transit: the direction, the 2-bit pair at rotation Rot of byte `head % 8` of the
/// routing word (`(byte >> (6 - 2 Rot)) & 3`), matched on the whole word.
fn direction() -> Vec<Entry> {
    let mut out = Vec::new();
    for byte in 0..WORD_BYTES {
        for rot in 0..PAIRS {
            // the byte's lowest bit, plus the pair's place in the byte (rotation 0 first)
            let shift =
                u64::from(WORD_BITS) - BYTE_BITS * (byte + 1) + PAIR_BITS * (PAIRS - 1 - rot);
            for dir in 0..PAIRS {
                let word = Key::Tern {
                    v: dir << shift,
                    m: low(PAIR_BITS) << shift,
                    style: Style::Pad(16),
                };
                let head = Key::Tern {
                    v: byte,
                    m: WORD_BYTES - 1,
                    style: Style::Pad(4),
                };
                let a = format!("tna_set_dir({dir})");
                out.push(Entry::new(vec![word, head, Key::Exact(rot)], a));
            }
        }
    }
    out
}

/// Mode 0: the bits of the left-aligned word beyond its first `len`.
fn beyond(len: u64) -> u64 {
    low(u64::from(WORD_BITS) - len)
}

/// Modes 1-3: the bits of DST or SRC at or above `len`.
fn above(len: u64) -> u64 {
    !low(len)
}

/// The must-be-zero checks keyed on SliceLen, `(len, hi, lo)` for len in 0..=64.
fn slice_len_check(action: &str, mask: fn(u64) -> u64) -> Vec<Entry> {
    zero_by_length(u64::from(WORD_BITS), mask, action)
}

/// The checks keyed on a shift, `(S, hi, lo)` for S in 0..64, then any S ≥ 64 (a shift
/// that reads nothing: no bit can be set).
fn shift_check(action: &str, mask: impl Fn(u64) -> u64) -> Vec<Entry> {
    let w = u64::from(WORD_BITS);
    let mut out = zero_by_length(w - 1, mask, action);
    out.extend(any_from(w, action));
    out
}

/// Path ID: no bit beyond IdLen of the left-aligned 64-bit ID, `(len, id)`.
fn id_check() -> Vec<Entry> {
    (0..=u64::from(WORD_BITS))
        .map(|len| {
            Entry::new(
                vec![Key::Exact(len), zero(beyond(len))],
                "tna_chk_id_ok()".into(),
            )
        })
        .collect()
}

/// Modes 1-3: `x &= low_mask(znode_shift)` on the two halves, the masks as action data.
fn digit_mask() -> Vec<Entry> {
    (0..=u64::from(WORD_BITS))
        .map(|s| {
            let m = low(s);
            let a = format!(
                "tna_x_zn({:#x}, {:#x})",
                m >> HALF_BITS,
                m & low_mask(HALF_BITS)
            );
            Entry::new(vec![Key::Exact(s)], a)
        })
        .collect()
}

/// Every generated table, in the order of `p4/canopy_tna.p4`.
pub(crate) fn tables() -> Vec<Table> {
    let groups = checks::groups();
    let mut out: Vec<Table> = groups
        .iter()
        .map(|g| Table::one(&g.table(), g.entries()))
        .collect();
    out.push(Table::one("tna_drop_pick", checks::drop_pick(&groups)));
    out.extend([
        Table::one("tna_hl", hdr_len()),
        Table::one("tna_port_drop", port_drop()),
        Table::one("tna_rot", rotation()),
        Table::one("tna_route_total", route_total()),
        Table::one("tna_rec_total_tbl", rec_total()),
        Table::one(
            "tna_chk_beyond",
            slice_len_check("tna_chk_beyond_ok()", beyond),
        ),
        Table::one("tna_chk_len", slice_len_check("tna_chk_len_ok()", above)),
        Table::one("tna_chk_src", slice_len_check("tna_chk_src_ok()", above)),
        Table::one("tna_rho", rho()),
    ]);
    out.extend(extraction("side", true));
    out.extend(extraction("lab", true));
    out.extend(extraction("zn", false));
    // the Znode id of DST >> S: no bit of DST at or above S + 32
    let znode = |s: u64| !low(s + u64::from(HALF_BITS));
    out.extend([
        Table::one("tna_zn_ovf", shift_check("tna_zn_ovf_ok()", znode)),
        Table::one("tna_x_zn_tbl", digit_mask()),
        Table::one("tna_x_zo", shift_check("tna_x_zo_ok()", above)),
        Table::one("tna_chk_id", id_check()),
        Table {
            file: "tna_dir".into(),
            tables: vec!["tna_dir".into(), "tna_dir_nxt".into()],
            entries: direction(),
        },
    ]);
    out
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFile {
    /// File name in [`DIR`] (`<table>.p4`).
    pub name: String,
    /// The tables of `p4/canopy_tna.p4` whose `const entries` include it.
    pub tables: Vec<String>,
    /// Number of entries.
    pub entries: usize,
    /// The file's text: the header line, then one entry per line.
    pub text: String,
}

/// The header line of every file.
fn header(tables: &[String]) -> String {
    format!(
        "/* Generated by `{COMMAND}` (canopy_control::p4::tna::const_entries): the const \
         entries of {} in canopy_tna.p4. Do not edit by hand. */",
        tables.join(" and ")
    )
}

/// Every file the generator writes to [`DIR`], in the order of `p4/canopy_tna.p4`.
pub fn files() -> Vec<EntryFile> {
    tables()
        .into_iter()
        .map(|t| {
            let mut text = header(&t.tables);
            text.push('\n');
            for e in &t.entries {
                text.push_str(&e.to_string());
                text.push('\n');
            }
            EntryFile {
                name: format!("{}.p4", t.file),
                tables: t.tables,
                entries: t.entries.len(),
                text,
            }
        })
        .collect()
}

/// Why the files could not be written or are not what the generator writes.
#[derive(Debug, Error)]
pub enum EntriesError {
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file differs from the generator's text.
    #[error(
        "{}: line {line} differs from the generated entries:\n  file:      {got}\n  \
         generated: {want}\nregenerate with `{COMMAND}` from the repository root \
         (`{CARGO_COMMAND}`)",
        path.display()
    )]
    Differs {
        /// The file.
        path: PathBuf,
        /// The first differing line, from 1.
        line: usize,
        /// The file's line (`(end of file)` past its end).
        got: String,
        /// The generator's line (`(end of file)` past its end).
        want: String,
    },
    /// A `.p4` file in the directory that the generator does not write.
    #[error(
        "{}: not a generated file (the generator writes {expected}); remove it or \
         regenerate with `{COMMAND}`",
        path.display()
    )]
    Stray {
        /// The file.
        path: PathBuf,
        /// The names the generator writes.
        expected: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EntriesError + '_ {
    move |source| EntriesError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The first line (from 1) where `got` differs from `want`, with both lines; a text that
/// ends earlier shows `(end of file)` there.
pub(crate) fn first_difference(got: &str, want: &str) -> Option<(usize, String, String)> {
    const END: &str = "(end of file)";
    if got == want {
        return None;
    }
    let lines = |s: &str| -> Vec<String> {
        let mut l: Vec<String> = s.lines().map(str::to_string).collect();
        if !s.is_empty() && !s.ends_with('\n') {
            // the last line without its newline is not the same line
            if let Some(last) = l.last_mut() {
                last.push_str(" (no newline at end of file)");
            }
        }
        l
    };
    let (g, w) = (lines(got), lines(want));
    let n = g.len().max(w.len());
    (0..n).find_map(|i| {
        let (a, b) = (g.get(i), w.get(i));
        (a != b).then(|| {
            let show = |x: Option<&String>| x.map_or(END.to_string(), String::clone);
            (i + 1, show(a), show(b))
        })
    })
}

/// The generated `.p4` file names.
fn expected_names(files: &[EntryFile]) -> Vec<&str> {
    files.iter().map(|f| f.name.as_str()).collect()
}

/// `.p4` files in `dir` the generator does not write, sorted.
fn stray(dir: &Path, files: &[EntryFile]) -> Result<Vec<PathBuf>, EntriesError> {
    let names = expected_names(files);
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let path = e.map_err(io(dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".p4") && !names.contains(&name) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Compare `dir` with the generator: every file byte for byte and no other `.p4` file.
/// Returns the number of files.
pub fn check(dir: &Path) -> Result<usize, EntriesError> {
    let files = files();
    for f in &files {
        let path = dir.join(&f.name);
        let got = std::fs::read_to_string(&path).map_err(io(&path))?;
        if let Some((line, got, want)) = first_difference(&got, &f.text) {
            return Err(EntriesError::Differs {
                path,
                line,
                got,
                want,
            });
        }
    }
    if let Some(path) = stray(dir, &files)?.into_iter().next() {
        return Err(EntriesError::Stray {
            path,
            expected: expected_names(&files).join(", "),
        });
    }
    Ok(files.len())
}

/// Write every file to `dir` (created if missing, its parent must exist) and remove the
/// `.p4` files there the generator no longer writes. Returns the number of files.
pub fn write(dir: &Path) -> Result<usize, EntriesError> {
    if !dir.is_dir() {
        std::fs::create_dir(dir).map_err(io(dir))?;
    }
    let files = files();
    for f in &files {
        let path = dir.join(&f.name);
        std::fs::write(&path, &f.text).map_err(io(&path))?;
    }
    for path in stray(dir, &files)? {
        std::fs::remove_file(&path).map_err(io(&path))?;
    }
    Ok(files.len())
}
