//! The state file of a running fabric (`<root>/<name>/<machine>/state.json`): what `up`
//! created, recorded *as it is created* (written atomically after every step), so that
//! `down` can remove it after a crash; and the [`FabricHosts`] the generator drives.

use crate::error::{Result, TestbedError};
use crate::fabric::desc::{Desc, UpPolicy};
use crate::traffic::hosts::FabricHosts;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Default root of the state directories (where `canopyctl fabric` looks for a fabric's
/// canopyd too).
pub const DEFAULT_ROOT: &str = canopy_proto::control::TESTBED_STATE_ROOT;

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
    /// A `canopy-switch` process, or the fabric's `canopyd` (switch `canopyd`).
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
    /// Management socket (a bmv2 switch under canopyd: its P4Runtime socket).
    pub socket: PathBuf,
    /// Config file (a bmv2 switch: the program's JSON).
    pub config: PathBuf,
    /// Log file (stdout and stderr).
    pub log: PathBuf,
    /// The switch's guest, when it runs in one (`[vm]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest: Option<GuestState>,
}

/// A switch's QEMU guest (`pid` is QEMU's; `log` its messages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuestState {
    /// The switch's TCP management endpoint on the management network.
    pub tcp: String,
    /// The hypervisor's copy of its token.
    pub token_file: PathBuf,
    /// The hypervisor namespace.
    pub netns: String,
    /// The guest's QMP socket.
    pub qmp: PathBuf,
    /// Its serial console's log.
    pub console: PathBuf,
    /// Its QEMU arguments, to boot it again as it was.
    pub args: Vec<String>,
    /// The Unix sockets its `dgram` NICs bind (removed before it boots again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sockets: Vec<PathBuf>,
    /// The accelerator it got.
    pub accel: crate::vm::qemu::Accel,
}

impl SwitchState {
    /// Its management endpoint.
    pub fn mgmt(&self) -> super::mgmt::Target {
        match &self.guest {
            Some(g) => super::mgmt::Target::Guest {
                tcp: g.tcp.clone(),
                token_file: g.token_file.clone(),
                netns: g.netns.clone(),
            },
            None => super::mgmt::Target::Unix(self.socket.clone()),
        }
    }
}

/// The state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Fabric name.
    pub name: String,
    /// Machine this part runs on (`local` when all is here).
    pub machine: String,
    /// The description file `up` read (for messages: commands on the running fabric use
    /// [`State::desc_text`], not the file).
    pub desc_file: String,
    /// The description's text as `up` read it: every command on the running fabric
    /// parses this copy ([`State::desc`]), from any directory, whatever became of the
    /// file since (None: a state written before the copy was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desc_text: Option<String>,
    /// The `canopy-switch` binary `up` started the switches with (absolute; None: the
    /// bmv2 target, or a state written before it was recorded): a drill starts a switch
    /// again with the same binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_bin: Option<PathBuf>,
    /// The bmv2 target's tools as `up` found them (absolute paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bmv2_tools: Option<super::bmv2::Tools>,
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
    /// The fabric's `canopyd`, when `up` started one.
    #[serde(default)]
    pub daemon: Option<DaemonState>,
    /// What forwards: `canopy` or `bmv2` (the description's `target`).
    #[serde(default = "default_target")]
    pub target: String,
    /// The shared `canopy-switch host` running every switch (None: one process each).
    #[serde(default)]
    pub host: Option<HostState>,
    /// The bmv2 target's `simple_switch` and how it was built
    /// ([`super::bmv2::Bmv2Build::describe`]), for the reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_build: Option<String>,
    /// The description's `up_policy`.
    #[serde(default)]
    pub up_policy: UpPolicy,
    /// The flowlet gap the description's `[switch]` sets (µs; None: a run measures it).
    #[serde(default)]
    pub flowlet_gap_set: Option<u64>,
    /// The generator's own ceiling, measured by `up` once the fabric was up: every run's
    /// report states it (a search measures it again with its own traffic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator_ceiling: Option<crate::report::results::GeneratorCeiling>,
    /// The guests of a VM fabric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<VmState>,
}

/// A running shared host (`canopy-switch host`, `docs/shared-host.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostState {
    /// Process id (every switch's [`SwitchState::pid`] too).
    pub pid: u32,
    /// Its configuration file (generated by `up`).
    pub config: PathBuf,
    /// Its control socket (`canopy-switch host-ctl`).
    pub control: PathBuf,
    /// Polling threads.
    pub threads: usize,
    /// CPUs they are pinned to (empty: not pinned).
    pub cores: Vec<usize>,
    /// Log file (every switch's too).
    pub log: PathBuf,
}

fn default_target() -> String {
    "canopy".into()
}

/// A running `canopyd`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonState {
    /// Process id.
    pub pid: u32,
    /// Its configuration file (generated by `up`).
    pub config: PathBuf,
    /// Its control socket (`canopyctl fabric --daemon ...`).
    pub control: PathBuf,
    /// `/metrics` address (None: off).
    pub metrics: Option<String>,
    /// Log file.
    pub log: PathBuf,
    /// The `canopyd` binary `up` started (absolute; None: a state written before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<PathBuf>,
    /// The namespace it runs in (a VM fabric's hypervisor namespace; None: this one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netns: Option<String>,
}

/// A VM fabric's guests as a whole (`[vm]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VmState {
    /// The hypervisor namespace.
    pub netns: String,
    /// The accelerator the guests got and why.
    pub probe: crate::vm::qemu::Probe,
    /// What the guest image is made of (`package version`).
    pub packages: Vec<String>,
    /// How long from the first guest's start until every switch answered (s).
    pub boot_s: f64,
    /// How the switch-to-switch links are carried.
    #[serde(default)]
    pub links: crate::fabric::desc::VmLinks,
}

impl VmState {
    /// One line for reports: the accelerator and why; under TCG, that the figures are not
    /// comparable with namespaces or real VMs.
    pub fn describe(&self) -> String {
        let links = match self.links {
            crate::fabric::desc::VmLinks::Tap => "links on taps",
            crate::fabric::desc::VmLinks::Dgram => "switch links on QEMU's dgram netdev",
        };
        // the hop breakdown needs the switches' stamps on the hosts' clock
        let clocks = "no hop breakdown (the guests' clocks are not the hosts')";
        match self.probe.accel {
            crate::vm::qemu::Accel::Tcg => format!(
                "every switch in a QEMU guest under TCG, {links}: the NIC drivers are real, \
                 throughput and latency are not comparable with namespaces or real VMs ({}); \
                 {clocks}",
                self.probe.why
            ),
            crate::vm::qemu::Accel::Kvm => format!(
                "every switch in a QEMU guest under KVM, {links} ({}); {clocks}",
                self.probe.why
            ),
        }
    }
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

    /// Write atomically (temporary file, then rename), readable by its owner only (0600).
    pub fn save(&self) -> Result<()> {
        let tmp = self.dir.join("state.json.tmp");
        let json = serde_json::to_vec_pretty(self).map_err(|e| TestbedError::Parse {
            what: "state".into(),
            detail: e.to_string(),
        })?;
        crate::os::private::write(&tmp, json)
            .map_err(|e| TestbedError::io(format!("write {}", tmp.display()), e))?;
        std::fs::rename(&tmp, self.path())
            .map_err(|e| TestbedError::io(format!("rename {}", tmp.display()), e))
    }

    /// A bmv2 fabric whose switches canopyd programs over P4Runtime.
    pub fn bmv2_under_canopyd(&self) -> bool {
        self.bmv2_tools
            .as_ref()
            .is_some_and(super::bmv2::Tools::under_canopyd)
    }

    /// The description `up` read, parsed again from the copy this state holds: the same
    /// from any working directory, whether the file changed, moved or vanished since.
    /// (A state written before the copy was kept reads the file, by its absolute path.)
    /// Its `[traffic]` table is not checked against this machine again
    /// ([`Desc::parse_with`] without the hook): `up` did, and `run` checks what it runs.
    pub fn desc(&self) -> Result<Desc> {
        let text = match &self.desc_text {
            Some(t) => t.clone(),
            None if self.desc_file.starts_with('<') => String::new(),
            None => std::fs::read_to_string(&self.desc_file).map_err(|e| {
                TestbedError::io(
                    format!(
                        "read fabric description {} (this state holds no copy of it: \
                         written by an older canopy-testbed; `down` and `up` again)",
                        self.desc_file
                    ),
                    e,
                )
            })?,
        };
        Desc::parse_with(&self.desc_file, &text, None)
    }

    /// Record `c` and save.
    pub fn record(&mut self, c: Created) -> Result<()> {
        self.created.push(c);
        self.save()
    }

    /// Read `dir/state.json`. Its [`State::dir`] is `dir`, the directory it was found
    /// in, whatever the file says: `down` removes only a directory that holds a state file.
    pub fn load(dir: &Path) -> Result<State> {
        let p = dir.join("state.json");
        let text =
            std::fs::read(&p).map_err(|e| TestbedError::io(format!("read {}", p.display()), e))?;
        let mut st: State = serde_json::from_slice(&text).map_err(|e| TestbedError::Parse {
            what: p.display().to_string(),
            detail: e.to_string(),
        })?;
        st.dir = dir.to_path_buf();
        Ok(st)
    }

    /// Every readable state of fabric `name` (one per machine part), and the other
    /// entries of its directory (a state file missing or unreadable, not a directory):
    /// not this tool's, so `down` leaves them alone.
    pub fn load_all(root: &Path, name: &str) -> (Vec<State>, Vec<PathBuf>) {
        let mut ok = vec![];
        let mut bad = vec![];
        let Ok(rd) = std::fs::read_dir(fabric_dir(root, name)) else {
            return (ok, bad);
        };
        let mut dirs: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for d in dirs {
            if !d.is_dir() {
                bad.push(d);
                continue;
            }
            match State::load(&d) {
                Ok(s) => ok.push(s),
                Err(_) => bad.push(d),
            }
        }
        (ok, bad)
    }
}
