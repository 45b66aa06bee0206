//! `canopy-testbed down`: remove everything of a fabric, by its state files and by its
//! name prefix, also after a crash or a half-finished `up`; and `up`'s rollback.

use super::procs;
use super::state::{self, Created, State};
use crate::error::{Result, TestbedError};
use crate::os::netns::ip;
use std::path::Path;
use std::time::Duration;

/// Namespaces of fabric `name` that exist now (`<name>-s<i>`, `<name>-h<i>`, and a VM
/// fabric's `<name>-vm`).
pub fn fabric_namespaces(name: &str) -> Vec<String> {
    let out = ip(&["netns", "list"]).unwrap_or_default();
    let mut v: Vec<String> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| is_fabric_ns(name, n))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// Whether `ns` is named like a namespace of fabric `name`.
pub fn is_fabric_ns(name: &str, ns: &str) -> bool {
    let Some(rest) = ns.strip_prefix(name).and_then(|r| r.strip_prefix('-')) else {
        return false;
    };
    // a VM fabric's hypervisor namespace
    if rest == "vm" {
        return true;
    }
    let Some(num) = rest.strip_prefix('s').or_else(|| rest.strip_prefix('h')) else {
        return false;
    };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit())
}

/// What `down` removed.
#[derive(Debug, Clone, Default)]
pub struct DownSummary {
    /// Switch processes stopped.
    pub processes: usize,
    /// Namespaces deleted.
    pub namespaces: usize,
    /// NICs moved back.
    pub nics: usize,
    /// State directories removed.
    pub state_dirs: usize,
    /// What the fabric's directory held besides its state directories (no state file
    /// of this tool): left in place.
    pub left_alone: Vec<std::path::PathBuf>,
}

impl std::fmt::Display for DownSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "removed {} process(es) (switches and canopyd), {} namespace(s) (with their veths and VXLAN devices), {} NIC(s) moved back, {} state dir(s)", self.processes, self.namespaces, self.nics, self.state_dirs)?;
        if !self.left_alone.is_empty() {
            let l: Vec<String> = self
                .left_alone
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            write!(
                f,
                "; left alone (no canopy-testbed state file): {}",
                l.join(", ")
            )?;
        }
        Ok(())
    }
}

/// Remove what one state records (processes, NICs, namespaces), newest first.
pub(super) fn teardown(st: &State, root: &Path) -> DownSummary {
    let mut sum = DownSummary::default();
    let fdir = state::fabric_dir(root, &st.name);
    let pids: Vec<u32> = st
        .created
        .iter()
        .filter_map(|c| match c {
            Created::Process { pid, .. } => Some(*pid),
            _ => None,
        })
        .collect();
    sum.processes += procs::stop(&pids, &fdir, Duration::from_secs(5)).len();
    // a dpdk switch removes its (empty, --in-memory) EAL runtime directory
    // /var/run/dpdk/canopy<pid> when it exits; one stopped by SIGKILL cannot
    for pid in &pids {
        let _ = std::fs::remove_dir(format!("/var/run/dpdk/canopy{pid}"));
    }
    for c in st.created.iter().rev() {
        match c {
            Created::Nic {
                netns,
                ifname,
                original,
                from_netns,
            } => {
                let mut a: Vec<&str> = vec![
                    "-n", netns, "link", "set", "dev", ifname, "down", "name", original,
                ];
                let target;
                if let Some(f) = from_netns {
                    a.extend(["netns", f]);
                } else {
                    target = "1".to_string();
                    a.extend(["netns", &target]);
                }
                if ip(&a).is_ok() {
                    sum.nics += 1;
                }
            }
            Created::Netns { name } => {
                if Path::new("/run/netns").join(name).exists()
                    && ip(&["netns", "del", name]).is_ok()
                {
                    sum.namespaces += 1;
                }
            }
            Created::Process { .. } => {}
        }
    }
    if std::fs::remove_dir_all(&st.dir).is_ok() {
        sum.state_dirs += 1;
    }
    // the fabric directory too, once no other machine part is in it
    let _ = std::fs::remove_dir(&fdir);
    sum
}

/// Remove fabric `name` entirely: what its state files record, then anything its
/// name prefix still finds (namespaces `<name>-s<i>`/`<name>-h<i>` and the switch
/// processes in them, switch processes whose config is in its state directory), then
/// the state directories. Touches nothing else: a directory `<root>/<name>` that holds
/// no state file of this tool is refused, and whatever else it holds is left in place
/// (named in [`DownSummary::left_alone`]).
pub fn down(root: &Path, name: &str) -> Result<DownSummary> {
    super::desc::valid_name(name).map_err(|w| TestbedError::fabric(name, w.to_string()))?;
    let root = &std::path::absolute(root).map_err(|e| TestbedError::io("state root", e))?;
    if !crate::os::sys::is_root() {
        return Err(TestbedError::fabric(
            name,
            "`down` must run as root; try sudo",
        ));
    }
    let fdir = state::fabric_dir(root, name);
    let (states, others) = State::load_all(root, name);
    if states.is_empty() && std::fs::symlink_metadata(&fdir).is_ok() {
        return Err(TestbedError::fabric(
            name,
            format!(
                "{} holds no canopy-testbed state file (<machine>/state.json): not a fabric's \
                 state directory, left alone (move it away, and `down {name}` cleans up by \
                 the name prefix)",
                fdir.display()
            ),
        ));
    }
    let mut sum = DownSummary::default();
    for st in &states {
        let s = teardown(st, root);
        sum.processes += s.processes;
        sum.namespaces += s.namespaces;
        sum.nics += s.nics;
        sum.state_dirs += s.state_dirs;
    }
    // leftovers by name prefix
    for ns in fabric_namespaces(name) {
        let pids: Vec<u32> = ip(&["netns", "pids", &ns])
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        // a switch inside the fabric's own namespace, started under any state root
        sum.processes += procs::stop_if(&pids, Duration::from_secs(5), |a| {
            procs::is_named_fabric_switch(a, name)
        })
        .len();
        if ip(&["netns", "del", &ns]).is_ok() {
            sum.namespaces += 1;
        }
    }
    sum.processes += procs::stop(&procs::scan(&fdir), &fdir, Duration::from_secs(5)).len();
    // canopyd runs in the initial namespace: found by its config path under any root
    sum.processes += procs::stop_if(&procs::scan_named(name), Duration::from_secs(5), |a| {
        procs::is_named_fabric_switch(a, name)
    })
    .len();
    // the fabric's directory only once its state directories are gone: never anything
    // without a state file
    sum.left_alone = others;
    if sum.left_alone.is_empty() && fdir.exists() {
        std::fs::remove_dir(&fdir)
            .map_err(|e| TestbedError::io(format!("remove {}", fdir.display()), e))?;
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fabric_namespaces_match_exactly() {
        assert!(is_fabric_ns("ft", "ft-s0"));
        assert!(is_fabric_ns("ft", "ft-h15"));
        assert!(is_fabric_ns("ft", "ft-vm"));
        for other in [
            "ft-x", "ftx-s0", "ft-s", "ft-vm0", "ftx-vm", "ft-s1a", "ft-u0", "ft", "xft-s0",
            "ft-s-1",
        ] {
            assert!(!is_fabric_ns("ft", other), "{other}");
        }
    }
}
