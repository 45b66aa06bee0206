//! P4Runtime table entries and the program's table state: a `TableEntry` resolved
//! through a [`Pipeline`] into the table, key and action [`P4State`] takes
//! ([`to_state`]), and back ([`from_state`]), with the specification's rules for
//! bytestrings and match fields (P4Runtime Specification, "Bytestrings", "Match
//! Format"): a value may carry leading zero bytes but must fit its width; a don't-care
//! ternary or range field is left out, and an exact field never is.
//!
//! [`P4State`]: crate::p4::P4State

use super::pipeline::{Pipeline, TableIds};
use crate::p4::schema::{MatchKind, TABLES};
use crate::p4::{canonical_bytes, ActionCall, EntryKey, FieldMatch};
use canopy_p4rt::v1::{action, field_match, table_action, Action, TableAction, TableEntry};

/// Why an entry does not resolve, with the gRPC code P4Runtime gives it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub struct EntryError {
    /// The code (`tonic::Code` as its number).
    pub code: i32,
    /// What is wrong, naming the table, field or action.
    pub what: String,
}

/// gRPC's INVALID_ARGUMENT.
pub const INVALID_ARGUMENT: i32 = 3;
/// gRPC's NOT_FOUND.
pub const NOT_FOUND: i32 = 5;
/// gRPC's OUT_OF_RANGE.
pub const OUT_OF_RANGE: i32 = 11;
/// gRPC's UNIMPLEMENTED.
pub const UNIMPLEMENTED: i32 = 12;

fn bad<T>(code: i32, what: impl Into<String>) -> Result<T, EntryError> {
    Err(EntryError {
        code,
        what: what.into(),
    })
}

/// The value of bytestring `b` for a `bits`-bit field or parameter: big-endian, leading
/// zero bytes allowed, at least one byte, at most the width.
pub fn value(b: &[u8], bits: u32, what: &str) -> Result<u64, EntryError> {
    if b.is_empty() {
        return bad(INVALID_ARGUMENT, format!("{what}: an empty bytestring"));
    }
    let first = b.iter().position(|&x| x != 0).unwrap_or(b.len() - 1);
    let sig = &b[first..];
    if sig.len() > 8 {
        return bad(OUT_OF_RANGE, format!("{what}: wider than {bits} bits"));
    }
    let v = sig.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x));
    if bits < 64 && v >> bits != 0 {
        return bad(
            OUT_OF_RANGE,
            format!("{what}: {v} does not fit {bits} bits"),
        );
    }
    Ok(v)
}

fn all_ones(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// `e` resolved through `p`: the table's index in the program, the key (`None`: the
/// table's default action) and the action.
pub fn to_state(
    p: &Pipeline,
    e: &TableEntry,
) -> Result<(usize, Option<EntryKey>, ActionCall), EntryError> {
    let Some(t) = p.tables.get(&e.table_id) else {
        return bad(
            NOT_FOUND,
            format!("table id {} is not in the pipeline", e.table_id),
        );
    };
    let ts = &TABLES[t.table];
    let name = ts.name;
    if e.meter_config.is_some() || e.counter_data.is_some() || e.meter_counter_data.is_some() {
        return bad(
            INVALID_ARGUMENT,
            format!("{name}: no direct resources in canopy.p4"),
        );
    }
    if e.idle_timeout_ns != 0 {
        return bad(
            INVALID_ARGUMENT,
            format!("{name}: the table has no idle timeout"),
        );
    }
    let call = action_of(p, name, e.action.as_ref())?;
    Ok((t.table, key(t, e)?, call))
}

/// The table and key `e` names, resolved through `p` (its action is not looked at): what
/// a `Read` of one entry selects by.
pub fn key_of(p: &Pipeline, e: &TableEntry) -> Result<(usize, Option<EntryKey>), EntryError> {
    let Some(t) = p.tables.get(&e.table_id) else {
        return bad(
            NOT_FOUND,
            format!("table id {} is not in the pipeline", e.table_id),
        );
    };
    Ok((t.table, key(t, e)?))
}

/// The key of `e` in table `t` (`None`: the default action).
fn key(t: &TableIds, e: &TableEntry) -> Result<Option<EntryKey>, EntryError> {
    let ts = &TABLES[t.table];
    let name = ts.name;
    if e.is_default_action {
        if !e.r#match.is_empty() || e.priority != 0 {
            return bad(
                INVALID_ARGUMENT,
                format!("{name}: a default action has no key and no priority"),
            );
        }
        return Ok(None);
    }
    let mut fields: Vec<Option<FieldMatch>> = vec![None; ts.key.len()];
    for m in &e.r#match {
        let Some(&i) = t.fields.get(&m.field_id) else {
            return bad(
                INVALID_ARGUMENT,
                format!("{name}: field id {} is not in its key", m.field_id),
            );
        };
        let f = &ts.key[i];
        let at = format!("{name}.{}", f.name);
        if fields[i].is_some() {
            return bad(INVALID_ARGUMENT, format!("{at}: given twice"));
        }
        use field_match::FieldMatchType as T;
        fields[i] = Some(match (&m.field_match_type, f.kind) {
            (Some(T::Exact(x)), MatchKind::Exact) => {
                FieldMatch::Exact(value(&x.value, f.bits, &at)?)
            }
            (Some(T::Ternary(x)), MatchKind::Ternary) => {
                let v = value(&x.value, f.bits, &at)?;
                let mask = value(&x.mask, f.bits, &at)?;
                if mask == 0 {
                    return bad(
                        INVALID_ARGUMENT,
                        format!(
                            "{at}: a don't-care ternary field is left out, not given a zero mask"
                        ),
                    );
                }
                if v & !mask != 0 {
                    return bad(
                        INVALID_ARGUMENT,
                        format!("{at}: value has bits outside its mask"),
                    );
                }
                FieldMatch::Ternary { value: v, mask }
            }
            (Some(T::Range(x)), MatchKind::Range) => {
                let (lo, hi) = (value(&x.low, f.bits, &at)?, value(&x.high, f.bits, &at)?);
                if lo > hi {
                    return bad(
                        INVALID_ARGUMENT,
                        format!("{at}: range {lo}..={hi} is empty"),
                    );
                }
                if lo == 0 && hi == all_ones(f.bits) {
                    return bad(
                        INVALID_ARGUMENT,
                        format!("{at}: a don't-care range is left out, not given in full"),
                    );
                }
                FieldMatch::Range { lo, hi }
            }
            (_, kind) => {
                return bad(
                    INVALID_ARGUMENT,
                    format!("{at}: matches {}", kind.p4info_name()),
                )
            }
        });
    }
    let fields = fields
        .into_iter()
        .zip(ts.key)
        .map(|(m, f)| match (m, f.kind) {
            (Some(m), _) => Ok(m),
            (None, MatchKind::Ternary) => Ok(FieldMatch::Ternary { value: 0, mask: 0 }),
            (None, MatchKind::Range) => Ok(FieldMatch::Range {
                lo: 0,
                hi: all_ones(f.bits),
            }),
            (None, MatchKind::Exact) => bad(
                INVALID_ARGUMENT,
                format!("{name}.{}: an exact field cannot be left out", f.name),
            ),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let Ok(priority) = u32::try_from(e.priority) else {
        return bad(
            INVALID_ARGUMENT,
            format!("{name}: priority {} is negative", e.priority),
        );
    };
    Ok(Some(EntryKey { fields, priority }))
}

/// The action of an entry: a direct action of the pipeline with every parameter once.
fn action_of(p: &Pipeline, table: &str, a: Option<&TableAction>) -> Result<ActionCall, EntryError> {
    let a = match a.and_then(|a| a.r#type.as_ref()) {
        Some(table_action::Type::Action(a)) => a,
        Some(_) => {
            return bad(
                UNIMPLEMENTED,
                format!("{table}: canopy.p4 has no action profiles: give a direct action"),
            )
        }
        None => return bad(INVALID_ARGUMENT, format!("{table}: no action")),
    };
    let Some(ids) = p.actions.get(&a.action_id) else {
        return bad(
            NOT_FOUND,
            format!("{table}: action id {} is not in the pipeline", a.action_id),
        );
    };
    let sch = crate::p4::schema::action(ids.name).map_or(&[][..], |s| s.params);
    let mut params: Vec<Option<u64>> = vec![None; ids.param_ids.len()];
    for q in &a.params {
        let Some(&i) = ids.params.get(&q.param_id) else {
            return bad(
                INVALID_ARGUMENT,
                format!("{}: parameter id {} is not its", ids.name, q.param_id),
            );
        };
        let (pname, bits) = sch[i];
        let at = format!("{}({pname})", ids.name);
        if params[i].replace(value(&q.value, bits, &at)?).is_some() {
            return bad(INVALID_ARGUMENT, format!("{at}: given twice"));
        }
    }
    let params = params
        .into_iter()
        .zip(sch)
        .map(|(v, (pname, _))| {
            v.ok_or_else(|| EntryError {
                code: INVALID_ARGUMENT,
                what: format!("{}({pname}): missing", ids.name),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ActionCall {
        action: ids.name,
        params,
    })
}

/// The P4Runtime entry of table `table` (index in the program) with `key` (`None`: its
/// default action) and `call`, through `p`'s ids, in canonical form: don't-care fields
/// left out, bytestrings without leading zeros.
pub fn from_state(
    p: &Pipeline,
    table: usize,
    key: Option<&EntryKey>,
    call: &ActionCall,
) -> TableEntry {
    let ts = &TABLES[table];
    let t = &p.tables[&p.table_ids[table]];
    let mut e = TableEntry {
        table_id: p.table_ids[table],
        is_default_action: key.is_none(),
        ..Default::default()
    };
    if let Some(k) = key {
        e.priority = k.priority as i32;
        for ((m, f), &id) in k.fields.iter().zip(ts.key).zip(&t.field_ids) {
            use field_match::FieldMatchType as T;
            let kind = match *m {
                FieldMatch::Exact(v) => Some(T::Exact(field_match::Exact {
                    value: canonical_bytes(v),
                })),
                FieldMatch::Ternary { mask: 0, .. } => None,
                FieldMatch::Ternary { value, mask } => Some(T::Ternary(field_match::Ternary {
                    value: canonical_bytes(value),
                    mask: canonical_bytes(mask),
                })),
                FieldMatch::Range { lo: 0, hi } if hi == all_ones(f.bits) => None,
                FieldMatch::Range { lo, hi } => Some(T::Range(field_match::Range {
                    low: canonical_bytes(lo),
                    high: canonical_bytes(hi),
                })),
            };
            if let Some(kind) = kind {
                e.r#match.push(canopy_p4rt::v1::FieldMatch {
                    field_id: id,
                    field_match_type: Some(kind),
                });
            }
        }
    }
    let aid = p.action_ids.get(call.action).copied().unwrap_or(0);
    let ids = p.actions.get(&aid);
    e.action = Some(TableAction {
        r#type: Some(table_action::Type::Action(Action {
            action_id: aid,
            params: call
                .params
                .iter()
                .zip(ids.map_or(&[][..], |i| &i.param_ids[..]))
                .map(|(&v, &param_id)| action::Param {
                    param_id,
                    value: canonical_bytes(v),
                })
                .collect(),
        })),
    });
    e
}

#[cfg(test)]
mod tests;
