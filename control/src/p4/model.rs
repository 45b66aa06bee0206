//! The target-neutral form of the entries: [`Op`]s of [`Match`] keys and [`Call`]s of
//! [`Val`]s, which [`entries`](super::entries()) computes and the writers render.

/// A value of a given bit width (a match field or an action parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Val {
    /// Width in bits.
    pub bits: u32,
    /// Value (fits `bits`).
    pub value: u64,
}

/// One key field of a table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// Exact match.
    Exact {
        /// p4info name of the field.
        field: &'static str,
        /// Value.
        v: Val,
    },
    /// Ternary match (value, mask).
    Ternary {
        /// p4info name of the field.
        field: &'static str,
        /// Value.
        v: Val,
        /// Mask.
        mask: u64,
    },
    /// Range match, both ends included.
    Range {
        /// p4info name of the field.
        field: &'static str,
        /// Low end.
        lo: Val,
        /// High end.
        hi: u64,
    },
}

/// An action call: the action's name (without the control prefix) and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Action name in `CanopyIngress`.
    pub action: &'static str,
    /// Parameters, in declaration order.
    pub params: Vec<(&'static str, Val)>,
}

/// One programming step, in the order it must be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A comment line.
    Comment(String),
    /// Set the default action of a keyless configuration table.
    SetDefault {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Action.
        call: Call,
    },
    /// A direct table entry.
    Add {
        /// Table name in `CanopyIngress`.
        table: &'static str,
        /// Key.
        key: Vec<Match>,
        /// Action.
        call: Call,
        /// Prefix length of an LPM-like (ternary + range) entry: longer wins.
        prefix_len: Option<u8>,
    },
}

/// A value of `bits` bits.
pub(super) fn v(bits: u32, value: u64) -> Val {
    Val { bits, value }
}

/// An exact key field.
pub(super) fn exact(field: &'static str, v: Val) -> Match {
    Match::Exact { field, v }
}

/// A `pathid_lpm` entry: the path ID under a ternary `mask` and its length in `lo..=hi`
/// (`lo` 8 bits wide).
pub(super) fn pathid_lpm(
    value: u64,
    mask: u64,
    lo: u64,
    hi: u64,
    c: Call,
    prefix_len: Option<u8>,
) -> Op {
    Op::Add {
        table: "pathid_lpm",
        key: vec![
            Match::Ternary {
                field: "hdr.pathid.id",
                v: v(64, value),
                mask,
            },
            Match::Range {
                field: "hdr.pathid.id_len",
                lo: v(8, lo),
                hi,
            },
        ],
        call: c,
        prefix_len,
    }
}

/// A call of `action` with `params`.
pub(super) fn call(action: &'static str, params: Vec<(&'static str, Val)>) -> Call {
    Call { action, params }
}

/// The comment lines of `ops` (what `bmv2-cli` prints with `#`), for a P4Runtime caller
/// to show beside the request.
pub fn comments(ops: &[Op]) -> Vec<&str> {
    ops.iter()
        .filter_map(|o| match o {
            Op::Comment(c) => Some(c.as_str()),
            _ => None,
        })
        .collect()
}
