//! The P4Runtime device a switch is: its forwarding pipeline (the P4Info a controller
//! pushed and checked), the program's table state written through it, the controllers'
//! arbitration, and the answers to `SetForwardingPipelineConfig`,
//! `GetForwardingPipelineConfig`, `Write` and `Read`. Synchronous and without I/O: the
//! service ([`super::service`]) holds it under one lock, so every request sees the state
//! before or after another, never between (P4Runtime Specification, "Concurrent
//! Requests"), and swaps in the tables a request gives.

use super::arbitration::{Arbiter, Refusal};
use super::write::{self, Target};
use canopy_control::p4::runtime::entry::{
    from_state, key_of, EntryError, INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED,
};
use canopy_control::p4::runtime::pipeline::Pipeline;
use canopy_control::p4::schema::{COUNTERS, TABLES};
use canopy_control::p4::P4State;
use canopy_dataplane::table::SwitchTables;
use canopy_p4rt::config::P4Info;
use canopy_p4rt::v1::{
    entity, CounterEntry, Entity, ForwardingPipelineConfig, GetForwardingPipelineConfigRequest,
    Index, PipelineAction, ReadRequest, ResponseType, SetForwardingPipelineConfigRequest,
    TableEntry, WriteRequest,
};
use canopy_proto::mgmt::CountersReport;
use prost::Message;

/// gRPC's OUT_OF_RANGE.
const OUT_OF_RANGE: i32 = canopy_control::p4::runtime::entry::OUT_OF_RANGE;
/// gRPC's FAILED_PRECONDITION.
const FAILED_PRECONDITION: i32 = 9;

/// Most entities one `Read` answers with (every entry of a switch's tables and every
/// counter cell fit many times over); past it the read is refused, so memory stays
/// bounded.
pub const MAX_READ: usize = 1 << 20;

/// A checked forwarding pipeline: its ids and the configuration as the controller sent it.
#[derive(Debug, Clone)]
struct Loaded {
    pipeline: Pipeline,
    config: ForwardingPipelineConfig,
}

/// A `Write` not applied: refused whole, or the outcome of each update.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteRefusal {
    /// The request itself (its device, its controller, no pipeline yet).
    Whole(Refusal),
    /// One per update: `None` for one that applied (or would have).
    Updates(Vec<Option<EntryError>>),
}

/// What a `Write` or `SetForwardingPipelineConfig` leaves to do: keep `state` as the
/// device's (with [`Device::accept`]) once `tables`, when there are any, are swapped in.
#[derive(Debug)]
pub struct Pending {
    state: P4State,
    /// The committed pipeline after the request, when it changes.
    commit: Option<Loaded>,
    /// Whether the state is the saved pipeline's (not forwarding yet).
    saved: bool,
    /// The tables that forward with the new state (None: the data plane is unchanged).
    pub tables: Option<SwitchTables>,
    /// Per-update outcomes of a `CONTINUE_ON_ERROR` batch in which some failed.
    pub errors: Option<Vec<Option<EntryError>>>,
}

/// The device.
#[derive(Debug)]
pub struct Device {
    target: Target,
    /// The pipeline the data plane runs, with its state.
    committed: Option<Loaded>,
    state: P4State,
    /// A pipeline saved by `VERIFY_AND_SAVE` and not committed yet, with the state
    /// written through it since.
    saved: Option<(Loaded, P4State)>,
    /// Who may write.
    pub arbiter: Arbiter,
}

fn refuse<T>(code: i32, what: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        code,
        what: what.into(),
    })
}

impl Device {
    /// Device `device_id`, switch `target`, with no pipeline yet.
    pub fn new(device_id: u64, target: Target) -> Device {
        Device {
            target,
            committed: None,
            state: P4State::new(),
            saved: None,
            arbiter: Arbiter::new(device_id),
        }
    }

    /// Whether a pipeline is committed (the data plane runs the state written through it).
    pub fn committed(&self) -> bool {
        self.committed.is_some()
    }

    /// The switch's tables' name under P4Runtime.
    fn tables_name(&self) -> String {
        format!("p4runtime:device{}", self.device_id())
    }

    /// The device id.
    pub fn device_id(&self) -> u64 {
        self.arbiter.device_id()
    }

    /// `device_id` names this device and `role` the default role.
    fn addressed(&self, device_id: u64, role: &str) -> Result<(), Refusal> {
        if device_id != self.device_id() {
            return refuse(
                NOT_FOUND,
                format!(
                    "device {device_id} is not this switch's ({})",
                    self.device_id()
                ),
            );
        }
        if !role.is_empty() {
            return refuse(
                NOT_FOUND,
                format!("role {role:?}: canopy-switch has the default role only"),
            );
        }
        Ok(())
    }

    /// `cfg` checked against the program.
    fn verify(cfg: Option<&ForwardingPipelineConfig>) -> Result<Loaded, Refusal> {
        let Some(cfg) = cfg else {
            return refuse(INVALID_ARGUMENT, "no config: the action needs one");
        };
        let info = P4Info::decode(&cfg.p4info[..]).map_err(|e| Refusal {
            code: INVALID_ARGUMENT,
            what: format!("config.p4info does not decode as a P4Info: {e}"),
        })?;
        let pipeline = Pipeline::check(&info).map_err(|e| Refusal {
            code: INVALID_ARGUMENT,
            what: format!("config.p4info is not canopy.p4's: {e}"),
        })?;
        Ok(Loaded {
            pipeline,
            config: cfg.clone(),
        })
    }

    /// `SetForwardingPipelineConfig`: checked in the specification's order (device and
    /// role, then the primary), then its action.
    pub fn set_pipeline(
        &self,
        req: &SetForwardingPipelineConfigRequest,
    ) -> Result<Option<Pending>, Refusal> {
        self.addressed(req.device_id, &req.role)?;
        self.arbiter
            .may_write(req.device_id, &req.role, req.election_id)?;
        let action = PipelineAction::try_from(req.action).unwrap_or(PipelineAction::Unspecified);
        let commit = |l: Loaded, state: P4State| -> Result<Option<Pending>, Refusal> {
            let tables = self.tables_of(&state).map_err(|e| Refusal {
                code: INVALID_ARGUMENT,
                what: e.what,
            })?;
            Ok(Some(Pending {
                state,
                commit: Some(l),
                saved: false,
                tables: Some(tables),
                errors: None,
            }))
        };
        match action {
            PipelineAction::Unspecified => refuse(
                INVALID_ARGUMENT,
                format!("action {} is not one: VERIFY, VERIFY_AND_SAVE, VERIFY_AND_COMMIT, COMMIT or RECONCILE_AND_COMMIT", req.action),
            ),
            PipelineAction::Verify => Self::verify(req.config.as_ref()).map(|_| None),
            PipelineAction::VerifyAndSave => {
                let l = Self::verify(req.config.as_ref())?;
                Ok(Some(Pending {
                    state: P4State::new(),
                    commit: Some(l),
                    saved: true,
                    tables: None,
                    errors: None,
                }))
            }
            PipelineAction::VerifyAndCommit => {
                commit(Self::verify(req.config.as_ref())?, P4State::new())
            }
            PipelineAction::ReconcileAndCommit => {
                // the state is the program's, not the P4Info's ids: any P4Info that
                // passes describes the same tables, so the state carries over as it is
                commit(Self::verify(req.config.as_ref())?, self.state.clone())
            }
            PipelineAction::Commit => {
                if req.config.is_some() {
                    return refuse(INVALID_ARGUMENT, "COMMIT takes no config: it commits the saved one");
                }
                let Some((l, st)) = &self.saved else {
                    return refuse(NOT_FOUND, "no saved config to commit: VERIFY_AND_SAVE first");
                };
                commit(l.clone(), st.clone())
            }
        }
    }

    /// Keep what a request made once its tables are swapped in.
    pub fn accept(&mut self, p: Pending) {
        match (p.saved, p.commit) {
            (true, Some(l)) => self.saved = Some((l, p.state)),
            (true, None) => {
                if let Some((_, st)) = &mut self.saved {
                    *st = p.state;
                }
            }
            (false, Some(l)) => {
                self.committed = Some(l);
                self.state = p.state;
                self.saved = None;
            }
            (false, None) => self.state = p.state,
        }
    }

    /// `GetForwardingPipelineConfig`: the committed configuration as it was sent, with
    /// the fields `response_type` asks for; no config before the first commit.
    pub fn get_pipeline(
        &self,
        req: &GetForwardingPipelineConfigRequest,
    ) -> Result<Option<ForwardingPipelineConfig>, Refusal> {
        self.addressed(req.device_id, "")?;
        let Ok(t) = ResponseType::try_from(req.response_type) else {
            return refuse(
                INVALID_ARGUMENT,
                format!("response_type {} is not one", req.response_type),
            );
        };
        let Some(l) = &self.committed else {
            return Ok(None);
        };
        let mut c = l.config.clone();
        if matches!(
            t,
            ResponseType::CookieOnly | ResponseType::DeviceConfigAndCookie
        ) {
            c.p4info.clear();
        }
        if matches!(t, ResponseType::CookieOnly | ResponseType::P4infoAndCookie) {
            c.p4_device_config.clear();
        }
        Ok(Some(c))
    }

    /// The pipeline requests are resolved through: the saved one when there is one
    /// (the specification's `VERIFY_AND_SAVE`), else the committed one.
    fn current(&self) -> Result<(&Loaded, &P4State, bool), Refusal> {
        if let Some((l, st)) = &self.saved {
            return Ok((l, st, true));
        }
        match &self.committed {
            Some(l) => Ok((l, &self.state, false)),
            None => refuse(
                FAILED_PRECONDITION,
                "no forwarding pipeline: SetForwardingPipelineConfig with canopy.p4's P4Info first",
            ),
        }
    }

    /// The switch's tables for `state`, checked for the switch.
    fn tables_of(&self, state: &P4State) -> Result<SwitchTables, EntryError> {
        let bad = |what: String| EntryError {
            code: INVALID_ARGUMENT,
            what,
        };
        let t = state
            .tables(&self.tables_name(), self.target.ports)
            .map_err(|e| bad(e.to_string()))?;
        crate::tables::validate_program(&t, self.target.ports)
            .map_err(|e| bad(format!("the tables it gives: {e}")))?;
        Ok(t)
    }

    /// `Write`: from the primary, resolved through the current pipeline, applied with
    /// the request's atomicity.
    pub fn write(&self, req: &WriteRequest) -> Result<Pending, WriteRefusal> {
        let whole = WriteRefusal::Whole;
        self.addressed(req.device_id, &req.role).map_err(whole)?;
        self.arbiter
            .may_write(req.device_id, &req.role, req.election_id)
            .map_err(whole)?;
        let (l, state, saved) = self.current().map_err(whole)?;
        if req.updates.len() > write::MAX_UPDATES {
            return Err(whole(Refusal {
                code: write::RESOURCE_EXHAUSTED,
                what: format!(
                    "{} updates in one write, at most {}",
                    req.updates.len(),
                    write::MAX_UPDATES
                ),
            }));
        }
        let applied = write::apply(
            state,
            &l.pipeline,
            &self.target,
            &req.updates,
            req.atomicity,
        );
        let ok = applied.ok();
        if !ok && applied.state == *state {
            return Err(WriteRefusal::Updates(applied.errors));
        }
        let tables = if saved {
            None
        } else {
            match self.tables_of(&applied.state) {
                Ok(t) => Some(t),
                Err(e) => {
                    let what = format!("the batch as a whole: {}", e.what);
                    let err = EntryError { code: e.code, what };
                    return Err(WriteRefusal::Updates(vec![
                        Some(err);
                        req.updates.len().max(1)
                    ]));
                }
            }
        };
        Ok(Pending {
            state: applied.state,
            commit: None,
            saved,
            tables,
            errors: (!ok).then_some(applied.errors),
        })
    }

    /// `Read`: every entity asked for, table entries from the state in canonical form,
    /// counter cells from `counters` (read once, when a counter is asked for).
    pub fn read(
        &self,
        req: &ReadRequest,
        counters: impl FnOnce() -> CountersReport,
    ) -> Result<Vec<Entity>, Refusal> {
        self.addressed(req.device_id, &req.role)?;
        let (l, state, _) = self.current()?;
        let mut counters = Some(counters);
        let mut report = None;
        let mut out = Vec::new();
        for e in &req.entities {
            match e.entity.as_ref() {
                Some(entity::Entity::TableEntry(t)) => read_table(&l.pipeline, state, t, &mut out)?,
                Some(entity::Entity::CounterEntry(c)) => {
                    if report.is_none() {
                        report = counters.take().map(|f| f());
                    }
                    let r = report.as_ref().expect("read just above");
                    read_counter(&l.pipeline, c, r, &mut out)?;
                }
                Some(other) => {
                    return refuse(
                        UNIMPLEMENTED,
                        format!(
                            "{}: canopy-switch reads table entries and counters only",
                            other.kind()
                        ),
                    )
                }
                None => return refuse(INVALID_ARGUMENT, "an entity without a kind"),
            }
            if out.len() > MAX_READ {
                return refuse(
                    OUT_OF_RANGE,
                    format!("more than {MAX_READ} entities in one read: ask for fewer"),
                );
            }
        }
        Ok(out)
    }
}

/// The table entries `want` selects: every table's (`table_id` 0), one table's, one
/// entry (match fields given), or a table's default action (`is_default_action`).
fn read_table(
    p: &Pipeline,
    state: &P4State,
    want: &TableEntry,
    out: &mut Vec<Entity>,
) -> Result<(), Refusal> {
    let wrap = |e: TableEntry| Entity {
        entity: Some(entity::Entity::TableEntry(e)),
    };
    let tables: Vec<usize> = if want.table_id == 0 {
        if want.is_default_action || !want.r#match.is_empty() {
            return refuse(
                INVALID_ARGUMENT,
                "a read of every table (table_id 0) takes no match and no is_default_action",
            );
        }
        (0..TABLES.len()).collect()
    } else {
        match p.tables.get(&want.table_id) {
            Some(t) => vec![t.table],
            None => {
                return refuse(
                    NOT_FOUND,
                    format!("table id {} is not in the pipeline", want.table_id),
                )
            }
        }
    };
    if want.is_default_action {
        let t = tables[0];
        out.push(wrap(from_state(p, t, None, state.default_action(t))));
        return Ok(());
    }
    if want.r#match.is_empty() {
        for &t in &tables {
            out.extend(
                state
                    .entries(t)
                    .map(|(k, c)| wrap(from_state(p, t, Some(k), c))),
            );
        }
        return Ok(());
    }
    // one entry: its key resolved as a write's would be (the action is not looked at)
    let (t, key) = key_of(p, want).map_err(|e| Refusal {
        code: e.code,
        what: e.what,
    })?;
    let Some(key) = key else {
        return refuse(
            INVALID_ARGUMENT,
            "a default action is read with is_default_action",
        );
    };
    if let Some(c) = state.entry(t, &key) {
        out.push(wrap(from_state(p, t, Some(&key), c)));
    }
    Ok(())
}

/// The counter cells `want` selects: every counter's (`counter_id` 0) or one counter's,
/// every cell or the one at `index`.
fn read_counter(
    p: &Pipeline,
    want: &CounterEntry,
    r: &CountersReport,
    out: &mut Vec<Entity>,
) -> Result<(), Refusal> {
    let ids: Vec<(u32, usize)> = if want.counter_id == 0 {
        let mut v: Vec<(u32, usize)> = p.counters.iter().map(|(&id, &c)| (id, c)).collect();
        v.sort_unstable();
        v
    } else {
        match p.counters.get(&want.counter_id) {
            Some(&c) => vec![(want.counter_id, c)],
            None => {
                return refuse(
                    NOT_FOUND,
                    format!("counter id {} is not in the pipeline", want.counter_id),
                )
            }
        }
    };
    for (id, c) in ids {
        let size = COUNTERS[c].size as usize;
        let cells = match want.index {
            None => 0..size,
            Some(Index { index }) => {
                let Ok(i) = usize::try_from(index) else {
                    return refuse(OUT_OF_RANGE, format!("counter index {index} is negative"));
                };
                if i >= size {
                    return refuse(
                        OUT_OF_RANGE,
                        format!("{}[{i}]: the array has {size} cells", COUNTERS[c].name),
                    );
                }
                i..i + 1
            }
        };
        for i in cells {
            let data = super::counters::cell(c, i, r);
            out.push(Entity {
                entity: Some(entity::Entity::CounterEntry(CounterEntry {
                    counter_id: id,
                    index: Some(Index { index: i as i64 }),
                    data,
                })),
            });
        }
    }
    Ok(())
}
