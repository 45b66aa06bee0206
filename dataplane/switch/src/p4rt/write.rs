//! A `Write` batch applied to the program's table state: each update resolved
//! ([`canopy_control::p4::runtime::entry::to_state`]) and applied in order to a copy of the state, with the
//! batch's atomicity (P4Runtime Specification, "Batching and Ordering of Updates"):
//! `CONTINUE_ON_ERROR` keeps every update that succeeded and reports the others;
//! `ROLLBACK_ON_ERROR` and `DATAPLANE_ATOMIC` keep all or nothing. The caller swaps the
//! tables of the returned state in at once, so the data plane never sees part of a batch
//! in any mode. Nothing here allocates per frame or touches the engine.

use canopy_control::p4::runtime::entry::{
    key_of, to_state, EntryError, INVALID_ARGUMENT, UNIMPLEMENTED,
};
use canopy_control::p4::runtime::pipeline::Pipeline;
use canopy_control::p4::schema::{self, TABLES};
use canopy_control::p4::{ActionCall, EntryKey, FieldMatch, P4State, StateError};
use canopy_p4rt::v1::{entity, Atomicity, Update, UpdateType};

/// Most updates one `Write` may carry (a whole switch's entries of a `fat-tree:k=32`
/// path-ID table fit many times over).
pub const MAX_UPDATES: usize = 100_000;

/// gRPC's ALREADY_EXISTS.
pub const ALREADY_EXISTS: i32 = 6;
/// gRPC's RESOURCE_EXHAUSTED.
pub const RESOURCE_EXHAUSTED: i32 = 8;
/// gRPC's NOT_FOUND.
pub const NOT_FOUND: i32 = canopy_control::p4::runtime::entry::NOT_FOUND;

/// What a batch did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The state after the batch (the one before it when nothing applied).
    pub state: P4State,
    /// One per update: `None` when it applied.
    pub errors: Vec<Option<EntryError>>,
}

impl Applied {
    /// Whether every update applied.
    pub fn ok(&self) -> bool {
        self.errors.iter().all(Option::is_none)
    }
}

/// The code P4Runtime gives a refusal of the state.
fn code_of(e: &StateError) -> i32 {
    match e {
        StateError::Exists { .. } => ALREADY_EXISTS,
        StateError::NotFound { .. } => NOT_FOUND,
        StateError::Full { .. } => RESOURCE_EXHAUSTED,
        StateError::Unsupported { .. } => UNIMPLEMENTED,
        _ => INVALID_ARGUMENT,
    }
}

fn refused(e: StateError) -> EntryError {
    EntryError {
        code: code_of(&e),
        what: e.to_string(),
    }
}

/// What a batch is checked against beyond the program: the switch's ports and the
/// switch id its hop records carry (set by its configuration, not at run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// The switch's ports.
    pub ports: usize,
    /// The id in the switch's hop records (`[switch] id`, or its index in the topology).
    pub switch_id: u32,
}

/// Apply `updates` to `state` through `pipeline` for switch `target`, with `atomicity`
/// (its number as sent; an unknown one refuses the batch whole).
pub fn apply(
    state: &P4State,
    pipeline: &Pipeline,
    target: &Target,
    updates: &[Update],
    atomicity: i32,
) -> Applied {
    let whole = |code: i32, what: String| Applied {
        state: state.clone(),
        errors: vec![Some(EntryError { code, what }); updates.len().max(1)],
    };
    if updates.len() > MAX_UPDATES {
        return whole(
            RESOURCE_EXHAUSTED,
            format!(
                "{} updates in one write, at most {MAX_UPDATES}",
                updates.len()
            ),
        );
    }
    let Ok(atomicity) = Atomicity::try_from(atomicity) else {
        return whole(
            INVALID_ARGUMENT,
            format!("atomicity {atomicity} is not one"),
        );
    };
    let mut next = state.clone();
    let mut errors = Vec::with_capacity(updates.len());
    for u in updates {
        let r = one(&mut next, pipeline, target, u);
        errors.push(r.err());
    }
    let failed = errors.iter().any(Option::is_some);
    if failed && atomicity != Atomicity::ContinueOnError {
        // all or nothing: the updates that would have applied are reported as aborted
        let errors = errors
            .into_iter()
            .map(|e| {
                Some(e.unwrap_or(EntryError {
                    code: ABORTED,
                    what: "not applied: another update of the batch failed".into(),
                }))
            })
            .collect();
        return Applied {
            state: state.clone(),
            errors,
        };
    }
    Applied {
        state: next,
        errors,
    }
}

/// gRPC's ABORTED.
pub const ABORTED: i32 = 10;

/// One update applied to `st` (unchanged when refused).
fn one(st: &mut P4State, p: &Pipeline, target: &Target, u: &Update) -> Result<(), EntryError> {
    let ports = target.ports;
    let kind = UpdateType::try_from(u.r#type).unwrap_or(UpdateType::Unspecified);
    let e = match u.entity.as_ref().and_then(|e| e.entity.as_ref()) {
        Some(entity::Entity::TableEntry(e)) => e,
        Some(other) => {
            return Err(EntryError {
                code: UNIMPLEMENTED,
                what: format!("{}: canopy-switch writes table entries only", other.kind()),
            })
        }
        None => {
            return Err(EntryError {
                code: INVALID_ARGUMENT,
                what: "an update without an entity".into(),
            })
        }
    };
    if kind == UpdateType::Delete {
        // a delete names its entry by the key; an action, if given, is not looked at
        // (P4Runtime Specification, "DELETE")
        let (t, key) = key_of(p, e)?;
        ingress_fits(t, key.as_ref(), ports)?;
        let r = match key {
            Some(k) => st.delete(t, &k).map(drop),
            None => {
                st.reset_default(t);
                Ok(())
            }
        };
        return r.map_err(refused);
    }
    let (t, key, call) = to_state(p, e)?;
    ports_fit(t, &call, ports)?;
    ingress_fits(t, key.as_ref(), ports)?;
    hop_fits(t, &call, target.switch_id)?;
    let r = match (kind, key) {
        (UpdateType::Insert, Some(k)) => st.insert(t, k, call),
        (UpdateType::Modify, Some(k)) => st.modify(t, &k, call),
        (UpdateType::Modify, None) => st.set_default(t, call),
        // answered above
        (UpdateType::Delete, _) => Ok(()),
        (UpdateType::Insert, None) => {
            return Err(EntryError {
                code: INVALID_ARGUMENT,
                what: format!(
                    "{}: a default action is modified, not inserted",
                    TABLES[t].name
                ),
            })
        }
        (UpdateType::Unspecified, _) => {
            return Err(EntryError {
                code: INVALID_ARGUMENT,
                what: "an update of type UNSPECIFIED".into(),
            })
        }
    };
    r.map_err(refused)
}

/// A key on the ingress port names one of the switch's ports.
fn ingress_fits(t: usize, key: Option<&EntryKey>, ports: usize) -> Result<(), EntryError> {
    let fields = TABLES[t]
        .key
        .iter()
        .zip(key.map_or(&[][..], |k| &k.fields[..]));
    for (f, m) in fields {
        if let (INGRESS_PORT, FieldMatch::Exact(v)) = (f.name, m) {
            if *v >= ports as u64 {
                return Err(EntryError {
                    code: canopy_control::p4::runtime::entry::OUT_OF_RANGE,
                    what: format!(
                        "{}: ingress port {v}, the switch has {ports} ports",
                        TABLES[t].name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// `set_hop_switch` names the switch's own id: canopy-switch's hop records carry the id
/// its configuration gives, which a controller cannot change while it runs.
fn hop_fits(t: usize, call: &ActionCall, switch_id: u32) -> Result<(), EntryError> {
    match (call.action, call.params.first()) {
        ("set_hop_switch", Some(&id)) if id != u64::from(switch_id) => Err(EntryError {
            code: UNIMPLEMENTED,
            what: format!(
                "{}: hop switch id {id}, but this switch's hop records carry {switch_id} (its [switch] id, set at start)",
                TABLES[t].name
            ),
        }),
        _ => Ok(()),
    }
}

/// The key field of a frame's ingress port.
const INGRESS_PORT: &str = "standard_metadata.ingress_port";

/// Every `port` parameter of the call names one of the switch's ports.
fn ports_fit(t: usize, call: &ActionCall, ports: usize) -> Result<(), EntryError> {
    let Some(a) = schema::action(call.action) else {
        return Ok(());
    };
    for (&(name, _), &v) in a.params.iter().zip(&call.params) {
        if name == "port" && v >= ports as u64 {
            return Err(EntryError {
                code: canopy_control::p4::runtime::entry::OUT_OF_RANGE,
                what: format!("{}: port {v}, the switch has {ports} ports", TABLES[t].name),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
