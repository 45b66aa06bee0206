//! The state file of a running fabric (`<root>/<name>/<machine>/state.json`): what `up`
//! created, recorded *as it is created* (written atomically after every step), so that
//! `down` can remove it after a crash; and the [`FabricHosts`] the generator drives.

use crate::error::{Result, TestbedError};
use crate::hosts::FabricHosts;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Default root of the state directories.
pub const DEFAULT_ROOT: &str = "/run/canopy-testbed";

/// One thing `up` created, in creation order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Created {
    /// A network namespace (its veths and VXLAN devices go with it).
    Netns {
        /// Name.
        name: String,
    },
    /// A real NIC moved into a namespace (and renamed); `down` moves it back.
    Nic {
        /// Namespace it was moved into.
        netns: String,
        /// Its name there.
        ifname: String,
        /// Its original name.
        original: String,
        /// Namespace it came from (None = the initial one).
        from_netns: Option<String>,
    },
    /// A `canopy-switch` process.
    Process {
        /// Process id.
        pid: u32,
        /// Switch name.
        switch: String,
        /// Its config file (also on its command line: how `down` recognises it).
        config: PathBuf,
    },
}

/// A running switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchState {
    /// Topology name.
    pub name: String,
    /// Namespace.
    pub netns: String,
    /// Process id.
    pub pid: u32,
    /// Management socket.
    pub socket: PathBuf,
    /// Config file.
    pub config: PathBuf,
    /// Log file (stdout and stderr).
    pub log: PathBuf,
}

/// The state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Fabric name.
    pub name: String,
    /// Machine this part runs on (`local` when all is here).
    pub machine: String,
    /// The description file `up` read.
    pub desc_file: String,
    /// The state directory.
    pub dir: PathBuf,
    /// `up` finished (every switch healthy).
    pub complete: bool,
    /// Everything created, in order.
    pub created: Vec<Created>,
    /// Switches started.
    pub switches: Vec<SwitchState>,
    /// Hosts placed on this machine.
    pub hosts: FabricHosts,
}

/// Directory of fabric `name` under `root`.
pub fn fabric_dir(root: &Path, name: &str) -> PathBuf {
    root.join(name)
}

/// State directory of machine `machine` of fabric `name`.
pub fn state_dir(root: &Path, name: &str, machine: &str) -> PathBuf {
    fabric_dir(root, name).join(machine)
}

impl State {
    /// Path of the state file.
    pub fn path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    /// Write atomically (temporary file, then rename).
    pub fn save(&self) -> Result<()> {
        let tmp = self.dir.join("state.json.tmp");
        let json = serde_json::to_vec_pretty(self).map_err(|e| TestbedError::Parse {
            what: "state".into(),
            detail: e.to_string(),
        })?;
        std::fs::write(&tmp, json)
            .map_err(|e| TestbedError::io(format!("write {}", tmp.display()), e))?;
        std::fs::rename(&tmp, self.path())
            .map_err(|e| TestbedError::io(format!("rename {}", tmp.display()), e))
    }

    /// Record `c` and save.
    pub fn record(&mut self, c: Created) -> Result<()> {
        self.created.push(c);
        self.save()
    }

    /// Read `dir/state.json`.
    pub fn load(dir: &Path) -> Result<State> {
        let p = dir.join("state.json");
        let text =
            std::fs::read(&p).map_err(|e| TestbedError::io(format!("read {}", p.display()), e))?;
        serde_json::from_slice(&text).map_err(|e| TestbedError::Parse {
            what: p.display().to_string(),
            detail: e.to_string(),
        })
    }

    /// Every readable state of fabric `name` (one per machine part), and the state
    /// directories whose file is missing or unreadable.
    pub fn load_all(root: &Path, name: &str) -> (Vec<State>, Vec<PathBuf>) {
        let mut ok = vec![];
        let mut bad = vec![];
        let Ok(rd) = std::fs::read_dir(fabric_dir(root, name)) else {
            return (ok, bad);
        };
        let mut dirs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            match State::load(&d) {
                Ok(s) => ok.push(s),
                Err(_) => bad.push(d),
            }
        }
        (ok, bad)
    }
}
