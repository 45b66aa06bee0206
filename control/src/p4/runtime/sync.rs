//! What a controller writes to bring a target from one table state to another, and the
//! state a target's `Read` answer describes: canopyd keeps a P4Runtime target's tables
//! current with these.

use super::entry::{from_state, to_state, EntryError};
use super::pipeline::Pipeline;
use crate::p4::schema::TABLES;
use crate::p4::{P4State, StateError};
use canopy_p4rt::v1::{entity, Entity, TableEntry, Update, UpdateType};

/// Why a target's entries do not make a table state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadBackError {
    /// An entry does not resolve through the pipeline.
    #[error("an entry read back does not resolve: {0}")]
    Entry(#[from] EntryError),
    /// The entries do not make a state the program can hold (two with one key, say).
    #[error("the entries read back do not make a table state: {0}")]
    State(#[from] StateError),
}

/// The updates that turn `have` into `want` on a target whose P4Info `p` describes:
/// entries only in `want` inserted, entries whose action changed modified, default
/// actions that changed modified, then entries only in `have` deleted (a route is
/// replaced before the old one goes). Empty when the states are equal.
pub fn updates(p: &Pipeline, have: &P4State, want: &P4State) -> Vec<Update> {
    let up = |kind: UpdateType, e: TableEntry| Update {
        r#type: kind as i32,
        entity: Some(Entity {
            entity: Some(entity::Entity::TableEntry(e)),
        }),
    };
    let mut out = Vec::new();
    let mut deletes = Vec::new();
    for t in 0..TABLES.len() {
        for (k, call) in want.entries(t) {
            match have.entry(t, k) {
                None => out.push(up(UpdateType::Insert, from_state(p, t, Some(k), call))),
                Some(c) if c != call => {
                    out.push(up(UpdateType::Modify, from_state(p, t, Some(k), call)))
                }
                Some(_) => {}
            }
        }
        if want.default_action(t) != have.default_action(t) {
            let e = from_state(p, t, None, want.default_action(t));
            out.push(up(UpdateType::Modify, e));
        }
        for (k, call) in have.entries(t) {
            if want.entry(t, k).is_none() {
                let mut e = from_state(p, t, Some(k), call);
                // a delete names the entry by its key alone
                e.action = None;
                deletes.push(up(UpdateType::Delete, e));
            }
        }
    }
    out.extend(deletes);
    out
}

/// Every entity a `Read` must ask for to see the whole table state of a target whose
/// P4Info `p` describes: every table's entries (one wildcard) and each table's default
/// action.
pub fn read_all(p: &Pipeline) -> Vec<Entity> {
    let table = |e: TableEntry| Entity {
        entity: Some(entity::Entity::TableEntry(e)),
    };
    std::iter::once(table(TableEntry::default()))
        .chain(p.table_ids.iter().map(|&table_id| {
            table(TableEntry {
                table_id,
                is_default_action: true,
                ..Default::default()
            })
        }))
        .collect()
}

/// The table state `entries` (what a `Read` of [`read_all`] answered) describe.
pub fn state_of<'a>(
    p: &Pipeline,
    entries: impl IntoIterator<Item = &'a TableEntry>,
) -> Result<P4State, ReadBackError> {
    let mut s = P4State::new();
    for e in entries {
        let (t, key, call) = to_state(p, e)?;
        match key {
            Some(k) => s.insert(t, k, call)?,
            None => s.set_default(t, call)?,
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests;
