//! Reading the counters of a bmv2 fabric that canopyd drives over P4Runtime: the
//! `simple_switch_grpc` that bmv2 builds with PI has no Thrift server, so the counters
//! are read over P4Runtime, with canopyd's own client as an observer (it reads without
//! arbitrating, so canopyd stays the primary controller), from the program and the
//! endpoints of the canopyd configuration `up` generated.

use crate::error::{Result, TestbedError};
use crate::fabric::state::State;
use canopy_proto::mgmt::CountersReport;
use canopyd::config::{Config, Target};
use canopyd::p4rt::Session;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long one switch's counters read may take.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The fabric's switches as a P4Runtime observer sees them.
pub struct Observer {
    /// One session per switch, by name.
    sessions: BTreeMap<String, Session>,
    /// The runtime the sessions run on (after them: dropped last).
    _rt: tokio::runtime::Runtime,
}

fn failed(state: &State, detail: String) -> TestbedError {
    TestbedError::fabric(&state.name, detail)
}

impl Observer {
    /// The observer of `state`'s fabric, from its canopyd configuration.
    pub fn new(state: &State) -> Result<Observer> {
        let d = state.daemon.as_ref().ok_or_else(|| {
            failed(
                state,
                "no canopyd in this fabric: its bmv2 switches have no P4Runtime endpoint".into(),
            )
        })?;
        let file = d.config.display().to_string();
        let text = std::fs::read_to_string(&d.config)
            .map_err(|e| TestbedError::io(format!("read {file}"), e))?;
        let cfg = Config::parse(&file, &text, &state.dir)
            .map_err(|e| failed(state, format!("canopyd's configuration: {e}")))?;
        let program = cfg.p4rt.clone().ok_or_else(|| {
            failed(
                state,
                format!("{file} names no P4Runtime switch ([p4runtime] is missing)"),
            )
        })?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| TestbedError::io("start a P4Runtime client runtime", e))?;
        let sessions = cfg
            .targets
            .iter()
            .zip(&cfg.topology.switches)
            .filter_map(|(t, s)| match t {
                Target::P4rt(server) => Some((
                    s.name.clone(),
                    Session::observer(server.clone(), program.clone(), rt.handle().clone()),
                )),
                Target::Mgmt(_) => None,
            })
            .collect();
        Ok(Observer { sessions, _rt: rt })
    }

    /// The counters of switch `switch` (process `pid`) whose ports are `names`, as
    /// canopy-switch reports them (uptime from the process's start).
    pub fn counters(&self, switch: &str, pid: u32, names: &[String]) -> Result<CountersReport> {
        let s = self
            .sessions
            .get(switch)
            .ok_or_else(|| TestbedError::Command {
                cmd: format!("P4Runtime read of {switch}"),
                detail: "not a P4Runtime switch of canopyd's configuration".into(),
            })?;
        let mut r = s
            .counters(names, READ_TIMEOUT)
            .map_err(|e| TestbedError::Command {
                cmd: format!("P4Runtime read of {switch} ({})", s.server()),
                detail: e.to_string(),
            })?;
        r.uptime_s = crate::os::cpu::process_age_s(pid)?;
        Ok(r)
    }
}
