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
