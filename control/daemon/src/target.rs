//! How the daemon's loops talk to a switch, over either protocol: the JSON management
//! protocol of canopy-switch ([`Link::Mgmt`]) or P4Runtime ([`Link::P4rt`], canopy-switch
//! or bmv2). The prober and the planner ask the same questions of both — is it up, which
//! incarnation, which ports are down, what tables does it run, its counters — and push
//! the same tables; only the answers' sources differ (`docs/canopyd.md`).

use super::config::Target;
use super::p4rt::{Program, Session};
use super::run::SwitchError;
use canopy_control::p4::{entries, P4State};
use canopy_dataplane::table::SwitchTables;
use canopy_proto::client::Endpoint;
use canopy_proto::mgmt::{CountersReport, Health, Request};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// A switch's incarnation: for the JSON protocol its process id and its `health`
/// instance (the switch's start time: a switch started again in the same process, a
/// shared host's, has a new one); for P4Runtime `(0, cookie)` of the pipeline canopyd
/// set. A new incarnation is a restart.
pub type Incarnation = (u32, u64);

/// A live connection to a switch.
pub enum Link {
    /// The JSON management protocol.
    Mgmt(Endpoint),
    /// P4Runtime.
    P4rt(Box<Session>),
}

/// What one probe saw.
pub struct Seen {
    /// Which incarnation answered.
    pub incarnation: Incarnation,
    /// It has tables (the JSON protocol; a P4Runtime device with canopyd's pipeline
    /// always has, if only empty ones).
    pub tables_loaded: bool,
    /// The JSON protocol's `health` (P4Runtime has none).
    pub health: Option<Health>,
}

impl Seen {
    /// Ports the switch reports down, by link or by admin (P4Runtime reports no port
    /// state).
    pub fn ports_down(&self) -> BTreeSet<u16> {
        self.health.as_ref().map_or_else(BTreeSet::new, |h| {
            h.ports
                .iter()
                .filter(|p| !(p.link && p.admin))
                .map(|p| p.port)
                .collect()
        })
    }

    /// Ports someone set admin down on the switch.
    pub fn admin_down(&self) -> BTreeSet<u16> {
        self.health.as_ref().map_or_else(BTreeSet::new, |h| {
            h.ports
                .iter()
                .filter(|p| !p.admin)
                .map(|p| p.port)
                .collect()
        })
    }
}

/// The tables a switch runs, as its protocol reads them back.
#[derive(Debug, Clone, PartialEq)]
pub enum Running {
    /// The JSON protocol's tables.
    Tables(Box<SwitchTables>),
    /// canopy.p4's table state.
    P4(P4State),
}

/// `tables` as canopy.p4's table state: what a P4Runtime switch must run.
pub fn p4_state(tables: &SwitchTables) -> Result<P4State, SwitchError> {
    let ops = entries(tables).map_err(|e| SwitchError::NotP4(e.to_string()))?;
    P4State::from_ops(&ops).map_err(|e| SwitchError::NotP4(e.to_string()))
}

impl Running {
    /// Whether these are `want`.
    pub fn is(&self, want: &SwitchTables) -> bool {
        match self {
            Running::Tables(t) => **t == *want,
            Running::P4(s) => p4_state(want).is_ok_and(|w| &w == s),
        }
    }
}

/// A JSON request to a switch; the answer when it says `ok`.
pub fn request(ep: &Endpoint, req: &Request, timeout: Duration) -> Result<Value, SwitchError> {
    let v = ep.request(req, timeout)?;
    if v.get("ok").and_then(Value::as_bool) == Some(true) {
        Ok(v)
    } else {
        // the switch's text reaches logs and metrics: escaped and bounded
        Err(SwitchError::Refused(
            canopy_proto::text::printable(
                v.get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("error without a message"),
            )
            .into_owned(),
        ))
    }
}

/// Port names in a P4Runtime switch's counters report (it has no interface names).
fn port_names(n: usize) -> Vec<String> {
    (0..n).map(|p| format!("port{p}")).collect()
}

impl Link {
    /// The link to `t`; P4Runtime sessions push `program` and run on `rt` (None for a
    /// P4Runtime target without them).
    pub fn new(t: &Target, p4rt: Option<(&Arc<Program>, &tokio::runtime::Handle)>) -> Option<Link> {
        match (t, p4rt) {
            (Target::Mgmt(e), _) => Some(Link::Mgmt(e.clone())),
            (Target::P4rt(s), Some((program, rt))) => Some(Link::P4rt(Box::new(Session::new(
                s.clone(),
                program.clone(),
                rt.clone(),
            )))),
            (Target::P4rt(_), None) => None,
        }
    }

    /// Probe the switch.
    pub fn probe(&self, timeout: Duration) -> Result<Seen, SwitchError> {
        match self {
            Link::Mgmt(ep) => {
                let h: Health = request(ep, &Request::Health {}, timeout).and_then(|v| {
                    serde_json::from_value(v).map_err(SwitchError::MalformedHealth)
                })?;
                Ok(Seen {
                    incarnation: (h.pid, h.instance),
                    tables_loaded: h.tables_loaded,
                    health: Some(h),
                })
            }
            Link::P4rt(s) => Ok(Seen {
                incarnation: (0, s.probe(timeout)?),
                tables_loaded: true,
                health: None,
            }),
        }
    }

    /// The switch's counters; it has `nports` ports.
    pub fn counters(
        &self,
        nports: usize,
        timeout: Duration,
    ) -> Result<CountersReport, SwitchError> {
        match self {
            Link::Mgmt(ep) => request(ep, &Request::Counters {}, timeout)
                .and_then(|v| serde_json::from_value(v).map_err(SwitchError::MalformedCounters)),
            Link::P4rt(s) => Ok(s.counters(&port_names(nports), timeout)?),
        }
    }

    /// The tables the switch runs (None: none, or not readable as tables).
    pub fn running(&self, timeout: Duration) -> Result<Option<Running>, SwitchError> {
        match self {
            Link::Mgmt(ep) => {
                let v = request(ep, &Request::GetTables {}, timeout)?;
                let t = v.get("tables").cloned().unwrap_or(Value::Null);
                Ok(serde_json::from_value::<Option<SwitchTables>>(t)
                    .ok()
                    .flatten()
                    .map(|t| Running::Tables(Box::new(t))))
            }
            Link::P4rt(s) => Ok(Some(Running::P4(s.read_state(timeout)?))),
        }
    }

    /// Make the switch run `tables`.
    pub fn push(&self, tables: &SwitchTables, timeout: Duration) -> Result<(), SwitchError> {
        match self {
            Link::Mgmt(ep) => {
                let tables =
                    serde_json::value::to_raw_value(tables).map_err(SwitchError::Encode)?;
                request(ep, &Request::ReplaceTables { tables }, timeout).map(|_| ())
            }
            Link::P4rt(s) => {
                s.push(&p4_state(tables)?, timeout)?;
                Ok(())
            }
        }
    }

    /// Set a port up or down on the switch: false when its protocol has no port
    /// control (P4Runtime: the port is drained by the tables alone).
    pub fn set_port(&self, port: u16, up: bool, timeout: Duration) -> Result<bool, SwitchError> {
        match self {
            Link::Mgmt(ep) => request(ep, &Request::SetPort { port, up }, timeout).map(|_| true),
            Link::P4rt(_) => Ok(false),
        }
    }
}
