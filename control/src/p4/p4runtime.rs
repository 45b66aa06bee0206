//! The P4Runtime writer: [`p4runtime`] turns the [`Op`]s into a `p4.v1.WriteRequest`
//! with every name resolved through a [`P4Info`].

use serde_json::{json, Value};

use super::{Call, EntryProblem, Match, Op, P4Info, P4InfoError, P4Table, INGRESS};

#[cfg(test)]
mod tests;

/// P4Runtime priority of an LPM-like entry: the largest value wins (1..=65).
pub fn p4runtime_priority(prefix_len: u8) -> u32 {
    u32::from(prefix_len.min(64)) + 1
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (the proto3 JSON form of `bytes`).
pub fn base64(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// P4Runtime canonical byte string of a value: big-endian, no leading zero bytes, at
/// least one byte.
pub fn canonical_bytes(x: u64) -> Vec<u8> {
    let b = x.to_be_bytes();
    let first = b.iter().position(|&c| c != 0).unwrap_or(7);
    b[first..].to_vec()
}

fn fits(value: u64, bits: i32) -> bool {
    match u32::try_from(bits) {
        Ok(b) if b >= 64 => true,
        Ok(b) => value >> b == 0,
        Err(_) => value == 0,
    }
}

fn all_ones(bits: i32) -> u64 {
    match u32::try_from(bits) {
        Ok(b) if b >= 64 => u64::MAX,
        Ok(b) => (1u64 << b) - 1,
        Err(_) => 0,
    }
}

fn b64v(x: u64) -> Value {
    Value::String(base64(&canonical_bytes(x)))
}

/// Resolves one switch's names through a P4Info.
struct Resolver<'a> {
    switch: &'a str,
    info: &'a P4Info,
}

impl Resolver<'_> {
    fn table(&self, table: &str) -> Result<&P4Table, P4InfoError> {
        let full = format!("{INGRESS}.{table}");
        self.info
            .tables
            .iter()
            .find(|t| t.preamble.name == full)
            .ok_or_else(|| self.err_named(full.clone(), EntryProblem::UnknownTable))
    }

    /// `problem` in the entries of the table named `table`.
    fn err_named(&self, table: String, problem: EntryProblem) -> P4InfoError {
        P4InfoError::Entry {
            switch: self.switch.into(),
            table,
            problem,
        }
    }

    /// `problem` in the entries of `t`.
    fn err(&self, t: &P4Table, problem: EntryProblem) -> P4InfoError {
        self.err_named(t.preamble.name.clone(), problem)
    }

    fn too_wide(&self, t: &P4Table, what: String, value: u64, bits: i32) -> P4InfoError {
        self.err(t, EntryProblem::TooWide { what, value, bits })
    }

    /// `p4.v1.Action` JSON for `c` in table `t`, used as the default or as an entry.
    fn action(&self, t: &P4Table, c: &Call, as_default: bool) -> Result<Value, P4InfoError> {
        let full = format!("{INGRESS}.{}", c.action);
        let a = self
            .info
            .actions
            .iter()
            .find(|a| a.preamble.name == full)
            .ok_or_else(|| {
                let action = full.clone();
                self.err(t, EntryProblem::UnknownAction { action })
            })?;
        let aref = t
            .action_refs
            .iter()
            .find(|r| r.id == a.preamble.id)
            .ok_or_else(|| {
                let action = full.clone();
                self.err(t, EntryProblem::ActionNotInTable { action })
            })?;
        let scope = aref.scope.as_deref().unwrap_or("TABLE_AND_DEFAULT");
        let misuse = match (scope, as_default) {
            ("DEFAULT_ONLY", false) => Some("used in a table entry"),
            ("TABLE_ONLY", true) => Some("the default action"),
            _ => None,
        };
        if let Some(used_as) = misuse {
            let (action, scope) = (full, scope.into());
            return Err(self.err(
                t,
                EntryProblem::Scope {
                    action,
                    scope,
                    used_as,
                },
            ));
        }
        let mut params = Vec::new();
        for (name, val) in &c.params {
            let p = a.params.iter().find(|p| p.name == *name).ok_or_else(|| {
                let (action, param) = (full.clone(), (*name).into());
                self.err(t, EntryProblem::UnknownParam { action, param })
            })?;
            if !fits(val.value, p.bitwidth) {
                return Err(self.too_wide(
                    t,
                    format!("parameter {full}.{name}"),
                    val.value,
                    p.bitwidth,
                ));
            }
            params.push(json!({"paramId": p.id, "value": b64v(val.value)}));
        }
        if let Some(p) = a
            .params
            .iter()
            .find(|p| !c.params.iter().any(|(n, _)| *n == p.name))
        {
            let (action, param) = (full, p.name.clone());
            return Err(self.err(t, EntryProblem::MissingParam { action, param }));
        }
        let mut out = json!({ "actionId": a.preamble.id });
        if !params.is_empty() {
            out["params"] = Value::Array(params);
        }
        Ok(out)
    }

    /// `p4.v1.FieldMatch` JSON for `key` in table `t`. "Don't care" fields (a ternary
    /// mask of 0, a range over the whole field) are left out, as P4Runtime wants.
    fn key(&self, t: &P4Table, key: &[Match]) -> Result<Vec<Value>, P4InfoError> {
        let bad = |field: &str, what: &'static str| {
            let field = field.into();
            self.err(t, EntryProblem::BadMatch { field, what })
        };
        let mut out = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for m in key {
            let (field, kind) = match m {
                Match::Exact { field, .. } => (*field, "EXACT"),
                Match::Ternary { field, .. } => (*field, "TERNARY"),
                Match::Range { field, .. } => (*field, "RANGE"),
            };
            if seen.contains(&field) {
                return Err(bad(field, "given twice"));
            }
            seen.push(field);
            let f = t
                .match_fields
                .iter()
                .find(|f| f.name == field)
                .ok_or_else(|| {
                    let field = field.into();
                    self.err(t, EntryProblem::UnknownField { field })
                })?;
            if f.kind() != kind {
                let (field, p4info, generator) = (field.into(), f.kind(), kind);
                let problem = EntryProblem::MatchKind {
                    field,
                    p4info,
                    generator,
                };
                return Err(self.err(t, problem));
            }
            let check = |what: &str, x: u64| {
                if fits(x, f.bitwidth) {
                    Ok(())
                } else {
                    Err(self.too_wide(t, format!("{what} of {field}"), x, f.bitwidth))
                }
            };
            match m {
                Match::Exact { v, .. } => {
                    check("value", v.value)?;
                    out.push(json!({"fieldId": f.id, "exact": {"value": b64v(v.value)}}));
                }
                Match::Ternary { v, mask, .. } => {
                    check("value", v.value)?;
                    check("mask", *mask)?;
                    if v.value & !mask != 0 {
                        return Err(bad(field, "ternary value has bits outside its mask"));
                    }
                    if *mask != 0 {
                        out.push(json!({"fieldId": f.id, "ternary": {
                            "value": b64v(v.value), "mask": b64v(*mask)}}));
                    }
                }
                Match::Range { lo, hi, .. } => {
                    check("low", lo.value)?;
                    check("high", *hi)?;
                    if lo.value > *hi {
                        return Err(bad(field, "range low > high"));
                    }
                    if lo.value != 0 || *hi != all_ones(f.bitwidth) {
                        out.push(json!({"fieldId": f.id, "range": {
                            "low": b64v(lo.value), "high": b64v(*hi)}}));
                    }
                }
            }
        }
        if let Some(f) = t
            .match_fields
            .iter()
            .find(|f| f.kind() == "EXACT" && !seen.contains(&f.name.as_str()))
        {
            let field = f.name.clone();
            return Err(self.err(t, EntryProblem::MissingField { field }));
        }
        Ok(out)
    }
}

/// Whether entries of `t` need a priority (P4Runtime: a ternary, range or optional field).
fn needs_priority(t: &P4Table) -> bool {
    t.match_fields
        .iter()
        .any(|f| matches!(f.kind().as_str(), "TERNARY" | "RANGE" | "OPTIONAL"))
}

/// A `p4.v1.WriteRequest` in proto3 JSON programming `ops` on device `device_id`, every
/// table, field, action and parameter resolved to its id through `info`: one `INSERT`
/// per table entry, one `MODIFY` per default action, in `ops` order. Values are
/// canonical byte strings (P4Runtime spec §8.4: big-endian, shortest, 0 is one zero
/// byte) in base64; an LPM-like entry's priority is [`p4runtime_priority`] (P4Runtime:
/// the larger wins). The client adds `electionId` (and `role`) before sending it.
pub fn p4runtime(
    switch: &str,
    ops: &[Op],
    info: &P4Info,
    device_id: u64,
) -> Result<Value, P4InfoError> {
    let r = Resolver { switch, info };
    info.drop_counter_id()?;
    let mut updates = Vec::new();
    for op in ops {
        let (kind, entry) = match op {
            Op::Comment(_) => continue,
            Op::SetDefault { table, call } => {
                let t = r.table(table)?;
                let a = r.action(t, call, true)?;
                (
                    "MODIFY",
                    json!({
                        "tableId": t.preamble.id,
                        "action": {"action": a},
                        "isDefaultAction": true
                    }),
                )
            }
            Op::Add {
                table,
                key,
                call,
                prefix_len,
            } => {
                let t = r.table(table)?;
                let m = r.key(t, key)?;
                let a = r.action(t, call, false)?;
                if needs_priority(t) != prefix_len.is_some() {
                    let needed = needs_priority(t);
                    return Err(r.err(t, EntryProblem::Priority { needed }));
                }
                let mut e = json!({"tableId": t.preamble.id});
                if !m.is_empty() {
                    e["match"] = Value::Array(m);
                }
                e["action"] = json!({ "action": a });
                if let Some(l) = prefix_len {
                    e["priority"] = json!(p4runtime_priority(*l));
                }
                ("INSERT", e)
            }
        };
        updates.push(json!({"type": kind, "entity": {"tableEntry": entry}}));
    }
    Ok(json!({
        "deviceId": device_id.to_string(),
        "updates": updates
    }))
}
