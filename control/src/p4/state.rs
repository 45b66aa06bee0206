//! What `p4/canopy.p4`'s tables hold once a control plane has written to them, and the
//! [`SwitchTables`] that forward the same way: the state of a P4Runtime target built on
//! canopy-switch's engine.
//!
//! [`P4State`] keeps every table's entries and default action as written, each checked
//! against the program ([`schema`]): the table exists, the key has its
//! fields with their match kinds and widths, the action is one of the table's, its
//! parameters fit. [`P4State::tables`] then builds the switch's tables from it. Where
//! the P4 program could express more than canopy-switch's tables, the state refuses it
//! up front with a [`StateError`] that says so (see `docs/p4runtime.md`):
//!
//! * keyed tables keep their default action (only the configuration tables, which have
//!   no key, are programmed by theirs);
//! * `pathid_lpm` entries are longest-prefix entries as `canopyctl p4-entries` writes
//!   them: a prefix mask on the ID, the range `len..=64` on its length, priority
//!   `len + 1`;
//! * down and side labels are below 65,536 (a switch's table is a list indexed by
//!   label).
//!
//! A state being programmed can be incomplete: a group referenced before `fwd_group`
//! has it is empty (the program's `group_empty` default), and a group whose `fwd_member`
//! entries are not all written yet spreads over the members it has. For a complete
//! state (every `canopyctl p4-entries` output) the tables forward exactly as the
//! program does; `tests` checks that the entries of every topology family and kind
//! come back as the same tables.

use super::schema::{self, MatchKind, TableSchema, TABLES};
use super::{p4runtime_priority, Match, Op};
use canopy_dataplane::table::pathid::{Action as PidAction, HostEntry, LpmEntry, PathIdTable};
use canopy_dataplane::table::sliced::SlicedTable;
use canopy_dataplane::table::transit::{
    DirEntry, DirTarget, OutputCfg, Rn1Config, Rn1Mode, TransitTable, OUT_BASE, RN1_PORTS,
};
use canopy_dataplane::table::{PortConfig, PortDir, PortRole, SwitchTables};
use canopy_dataplane::wire::sliced::Mode;
use std::collections::BTreeMap;
use thiserror::Error;

/// Largest down or side label + 1 the switch's tables hold.
pub const MAX_LABELS: u64 = 1 << 16;

/// One key field's match, in the key's field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FieldMatch {
    /// Exact value.
    Exact(u64),
    /// Value under a mask (`value & !mask == 0`; mask 0: don't care).
    Ternary {
        /// Value.
        value: u64,
        /// Mask.
        mask: u64,
    },
    /// Both ends included.
    Range {
        /// Low end.
        lo: u64,
        /// High end.
        hi: u64,
    },
}

/// A table entry's key: its fields and its priority (0 in tables without ternary or
/// range fields).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntryKey {
    /// One per key field, in order.
    pub fields: Vec<FieldMatch>,
    /// Priority (the largest wins), 0 where the table has none.
    pub priority: u32,
}

/// An action with its parameter values, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ActionCall {
    /// The action's name (without the control).
    pub action: &'static str,
    /// Parameter values.
    pub params: Vec<u64>,
}

/// A write the state refuses, and why. Nothing changes when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StateError {
    /// No such table in the program.
    #[error("table {0:?} is not a table of canopy.p4")]
    UnknownTable(String),
    /// No such action, or not one of the table's.
    #[error("table {table}: action {action:?} is not one of its actions")]
    BadAction {
        /// The table.
        table: &'static str,
        /// The action named.
        action: String,
    },
    /// A key of the wrong shape: field count or match kinds.
    #[error("table {table}: {what}")]
    BadKey {
        /// The table.
        table: &'static str,
        /// What is wrong.
        what: String,
    },
    /// A value wider than its field or parameter.
    #[error("table {table}: {what} = {value} does not fit {bits} bits")]
    TooWide {
        /// The table.
        table: &'static str,
        /// The field or parameter.
        what: &'static str,
        /// The value.
        value: u64,
        /// Its width.
        bits: u32,
    },
    /// Wrong number of parameters.
    #[error("table {table}: action {action} takes {want} parameters, not {got}")]
    ParamCount {
        /// The table.
        table: &'static str,
        /// The action.
        action: &'static str,
        /// Its parameters.
        want: usize,
        /// Given.
        got: usize,
    },
    /// Priority missing where the table needs one, or given where it has none.
    #[error("table {table}: priority {priority} {why}")]
    BadPriority {
        /// The table.
        table: &'static str,
        /// The priority given.
        priority: u32,
        /// What is wrong with it.
        why: &'static str,
    },
    /// An insert of a key the table has.
    #[error("table {table}: the entry exists")]
    Exists {
        /// The table.
        table: &'static str,
    },
    /// A modify or delete of a key the table does not have.
    #[error("table {table}: no such entry")]
    NotFound {
        /// The table.
        table: &'static str,
    },
    /// The table holds its size already.
    #[error("table {table}: full ({size} entries)")]
    Full {
        /// The table.
        table: &'static str,
        /// Its size.
        size: u32,
    },
    /// An entry written to a configuration table, or a keyed table's default changed.
    #[error("table {table}: {what}")]
    NotHere {
        /// The table.
        table: &'static str,
        /// What cannot be written there.
        what: &'static str,
    },
    /// A value the program accepts but canopy-switch's tables cannot hold.
    #[error("table {table}: {what}")]
    Unsupported {
        /// The table.
        table: &'static str,
        /// What and why.
        what: String,
    },
}

/// The entries and default actions of every table of `canopy.p4`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct P4State {
    entries: Vec<BTreeMap<EntryKey, ActionCall>>,
    defaults: Vec<ActionCall>,
}

impl Default for P4State {
    fn default() -> Self {
        P4State::new()
    }
}

/// `t`'s entry as a table index, checked.
fn table_index(name: &str) -> Result<(usize, &'static TableSchema), StateError> {
    schema::table(name).ok_or_else(|| StateError::UnknownTable(name.to_string()))
}

fn fits(v: u64, bits: u32) -> bool {
    bits >= 64 || v >> bits == 0
}

/// The length of a left-aligned prefix mask on 64 bits (`None`: not a prefix mask).
fn prefix_len(mask: u64) -> Option<u8> {
    let len = mask.leading_ones();
    (mask.checked_shl(len).unwrap_or(0) == 0).then_some(len as u8)
}

impl P4State {
    /// Every table empty, every default action the program's.
    pub fn new() -> P4State {
        P4State {
            entries: vec![BTreeMap::new(); TABLES.len()],
            defaults: TABLES
                .iter()
                .map(|t| ActionCall {
                    action: t.default,
                    params: Vec::new(),
                })
                .collect(),
        }
    }

    /// The state `ops` (what [`entries`](super::entries()) computes) leave, applied to
    /// a fresh one in order; LPM-like entries get [`p4runtime_priority`].
    pub fn from_ops(ops: &[Op]) -> Result<P4State, StateError> {
        let mut s = P4State::new();
        for op in ops {
            match op {
                Op::Comment(_) => {}
                Op::SetDefault { table, call } => {
                    let (t, _) = table_index(table)?;
                    let c = s.call_of(t, call.action, call.params.iter().map(|p| p.1.value))?;
                    s.set_default(t, c)?;
                }
                Op::Add {
                    table,
                    key,
                    call,
                    prefix_len,
                } => {
                    let (t, _) = table_index(table)?;
                    let fields = key
                        .iter()
                        .map(|m| match *m {
                            Match::Exact { v, .. } => FieldMatch::Exact(v.value),
                            Match::Ternary { v, mask, .. } => FieldMatch::Ternary {
                                value: v.value,
                                mask,
                            },
                            Match::Range { lo, hi, .. } => FieldMatch::Range { lo: lo.value, hi },
                        })
                        .collect();
                    let priority = prefix_len.map_or(0, p4runtime_priority);
                    let c = s.call_of(t, call.action, call.params.iter().map(|p| p.1.value))?;
                    s.insert(t, EntryKey { fields, priority }, c)?;
                }
            }
        }
        Ok(s)
    }

    /// A call of `action` in table `t` with `params`, checked.
    pub fn call_of(
        &self,
        t: usize,
        action: &str,
        params: impl IntoIterator<Item = u64>,
    ) -> Result<ActionCall, StateError> {
        let ts = &TABLES[t];
        let Some(a) = ts
            .actions
            .iter()
            .find(|&&a| a == action)
            .and_then(|a| schema::action(a))
        else {
            return Err(StateError::BadAction {
                table: ts.name,
                action: action.to_string(),
            });
        };
        let params: Vec<u64> = params.into_iter().collect();
        if params.len() != a.params.len() {
            return Err(StateError::ParamCount {
                table: ts.name,
                action: a.name,
                want: a.params.len(),
                got: params.len(),
            });
        }
        for (&v, &(what, bits)) in params.iter().zip(a.params) {
            if !fits(v, bits) {
                return Err(StateError::TooWide {
                    table: ts.name,
                    what,
                    value: v,
                    bits,
                });
            }
        }
        Ok(ActionCall {
            action: a.name,
            params,
        })
    }

    /// Check `key` against table `t`: the fields, their kinds and widths, the priority,
    /// and what canopy-switch's tables hold.
    pub fn check_key(&self, t: usize, key: &EntryKey) -> Result<(), StateError> {
        let ts = &TABLES[t];
        let bad = |what: String| {
            Err(StateError::BadKey {
                table: ts.name,
                what,
            })
        };
        if ts.is_config() {
            return Err(StateError::NotHere {
                table: ts.name,
                what: "a configuration table takes no entries: set its default action",
            });
        }
        if key.fields.len() != ts.key.len() {
            return bad(format!(
                "{} key fields given, the table has {}",
                key.fields.len(),
                ts.key.len()
            ));
        }
        for (m, f) in key.fields.iter().zip(ts.key) {
            let wide = |value: u64| StateError::TooWide {
                table: ts.name,
                what: f.name,
                value,
                bits: f.bits,
            };
            match (*m, f.kind) {
                (FieldMatch::Exact(v), MatchKind::Exact) if !fits(v, f.bits) => {
                    return Err(wide(v))
                }
                (FieldMatch::Ternary { value, mask }, MatchKind::Ternary) => {
                    if !fits(value, f.bits) || !fits(mask, f.bits) {
                        return Err(wide(value.max(mask)));
                    }
                    if value & !mask != 0 {
                        return bad(format!("{}: value has bits outside its mask", f.name));
                    }
                }
                (FieldMatch::Range { lo, hi }, MatchKind::Range) => {
                    if !fits(hi, f.bits) {
                        return Err(wide(hi));
                    }
                    if lo > hi {
                        return bad(format!("{}: range {lo}..={hi} is empty", f.name));
                    }
                }
                (FieldMatch::Exact(_), MatchKind::Exact) => {}
                (_, kind) => {
                    return bad(format!(
                        "{} matches {}, not as given",
                        f.name,
                        kind.p4info_name()
                    ))
                }
            }
        }
        match (ts.needs_priority(), key.priority) {
            (true, 0) => {
                return Err(StateError::BadPriority {
                    table: ts.name,
                    priority: 0,
                    why: "is missing: the table has ternary or range fields",
                })
            }
            (false, p) if p != 0 => {
                return Err(StateError::BadPriority {
                    table: ts.name,
                    priority: p,
                    why: "is not allowed: the table matches exactly",
                })
            }
            _ => {}
        }
        self.supported_key(ts, key)
    }

    /// What canopy-switch's tables hold of a key the program takes.
    fn supported_key(&self, ts: &TableSchema, key: &EntryKey) -> Result<(), StateError> {
        match (ts.name, key.fields.as_slice()) {
            ("sliced_down" | "sliced_side", [FieldMatch::Exact(l)]) if *l >= MAX_LABELS => {
                Err(StateError::Unsupported {
                    table: ts.name,
                    what: format!("label {l}: canopy-switch holds labels below {MAX_LABELS}"),
                })
            }
            ("pathid_lpm", [FieldMatch::Ternary { mask, .. }, FieldMatch::Range { lo, hi }]) => {
                let len = prefix_len(*mask);
                let ok = len.is_some_and(|l| {
                    u64::from(l) == *lo && *hi == 64 && key.priority == p4runtime_priority(l)
                });
                if ok {
                    Ok(())
                } else {
                    Err(StateError::Unsupported {
                        table: ts.name,
                        what: format!(
                            "canopy-switch takes longest-prefix entries: a prefix mask of length L on the ID, the range L..=64 on its length and priority L + 1 (mask {mask:#x}, range {lo}..={hi}, priority {})",
                            key.priority
                        ),
                    })
                }
            }
            _ => Ok(()),
        }
    }

    /// Insert an entry into table `t`.
    pub fn insert(&mut self, t: usize, key: EntryKey, call: ActionCall) -> Result<(), StateError> {
        self.check_key(t, &key)?;
        let ts = &TABLES[t];
        let call = self.call_of(t, call.action, call.params)?;
        let table = &mut self.entries[t];
        if table.contains_key(&key) {
            return Err(StateError::Exists { table: ts.name });
        }
        if table.len() >= ts.size as usize {
            return Err(StateError::Full {
                table: ts.name,
                size: ts.size,
            });
        }
        table.insert(key, call);
        Ok(())
    }

    /// Change the action of an entry of table `t`.
    pub fn modify(&mut self, t: usize, key: &EntryKey, call: ActionCall) -> Result<(), StateError> {
        self.check_key(t, key)?;
        let call = self.call_of(t, call.action, call.params)?;
        match self.entries[t].get_mut(key) {
            Some(c) => {
                *c = call;
                Ok(())
            }
            None => Err(StateError::NotFound {
                table: TABLES[t].name,
            }),
        }
    }

    /// Remove an entry of table `t`; its action.
    pub fn delete(&mut self, t: usize, key: &EntryKey) -> Result<ActionCall, StateError> {
        self.check_key(t, key)?;
        self.entries[t].remove(key).ok_or(StateError::NotFound {
            table: TABLES[t].name,
        })
    }

    /// Set the default action of table `t` (configuration tables only; a keyed table
    /// keeps the program's).
    pub fn set_default(&mut self, t: usize, call: ActionCall) -> Result<(), StateError> {
        let ts = &TABLES[t];
        let call = self.call_of(t, call.action, call.params)?;
        if !ts.is_config() && call.action != ts.default {
            return Err(StateError::NotHere {
                table: ts.name,
                what: "canopy-switch keeps a keyed table's default action (the program's)",
            });
        }
        if call.action == "set_sliced_cfg" && Mode::from_code(call.params[0] as u8).is_err() {
            return Err(StateError::Unsupported {
                table: ts.name,
                what: format!("mode {} is not a sliced-flit mode", call.params[0]),
            });
        }
        self.defaults[t] = call;
        Ok(())
    }

    /// Put the program's default action back in table `t`.
    pub fn reset_default(&mut self, t: usize) {
        self.defaults[t] = ActionCall {
            action: TABLES[t].default,
            params: Vec::new(),
        };
    }

    /// Table `t`'s entries, in key order.
    pub fn entries(&self, t: usize) -> impl Iterator<Item = (&EntryKey, &ActionCall)> {
        self.entries[t].iter()
    }

    /// The action of table `t`'s entry with `key`, if there is one.
    pub fn entry(&self, t: usize, key: &EntryKey) -> Option<&ActionCall> {
        self.entries.get(t)?.get(key)
    }

    /// Table `t`'s default action.
    pub fn default_action(&self, t: usize) -> &ActionCall {
        &self.defaults[t]
    }

    /// Entries in every table.
    pub fn len(&self) -> usize {
        self.entries.iter().map(BTreeMap::len).sum()
    }

    /// No entry in any table.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The switch id `hop_cfg` gives hop records, if set.
    pub fn hop_switch(&self) -> Option<u32> {
        let (t, _) = schema::table("hop_cfg")?;
        let d = &self.defaults[t];
        (d.action == "set_hop_switch").then(|| d.params[0] as u32)
    }

    fn table(&self, name: &str) -> &BTreeMap<EntryKey, ActionCall> {
        let t = schema::table(name).map_or(0, |(i, _)| i);
        &self.entries[t]
    }

    fn default_of(&self, name: &str) -> &ActionCall {
        let t = schema::table(name).map_or(0, |(i, _)| i);
        &self.defaults[t]
    }
}

mod build;
#[cfg(test)]
mod tests;
