//! `up`'s step 3 with a shared host: every switch's configuration, the host's file and
//! one `canopy-switch host` process (`docs/shared-host.md`).

use super::{Builder, SwitchConfig, HOST_CHILD};
use crate::error::{Result, TestbedError};
use crate::fabric::desc::{Node, SharedHost};
use crate::fabric::state::{self, Created, SwitchState};
use crate::launch;
use std::path::Path;

impl Builder<'_> {
    /// Step 3 with a shared host: every switch's configuration, the host's file naming
    /// each with its namespace, and one `canopy-switch host` process (in this, the
    /// initial, namespace: it opens each switch's ports in the switch's namespace).
    pub(super) fn host(
        &mut self,
        bin: &Path,
        h: &SharedHost,
        configs: Vec<SwitchConfig>,
        progress: &dyn Fn(&str),
    ) -> Result<()> {
        let desc = self.desc;
        let dir = self.state.dir.clone();
        let mut members = Vec::with_capacity(configs.len());
        for (_, _, cfg, text) in &configs {
            crate::os::private::write(cfg, text)
                .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
        }
        for (s, _, cfg, _) in &configs {
            let sname = desc.topo.switches[*s as usize].name.clone();
            members.push((
                sname,
                cfg.display().to_string(),
                desc.netns(Node::Switch(*s)),
            ));
        }
        let hcfg = dir.join("host.toml");
        crate::os::private::write(&hcfg, desc.host_config(&dir, &members))
            .map_err(|e| TestbedError::io(format!("write {}", hcfg.display()), e))?;
        let log = dir.join("host.log");
        progress(&format!(
            "starting one canopy-switch host for {} switches ({} thread(s){}; {})",
            configs.len(),
            h.threads,
            if h.cores.is_empty() {
                String::new()
            } else {
                format!(" pinned to CPUs {:?}", h.cores)
            },
            bin.display()
        ));
        let child = launch::start_host(bin, &hcfg, &log)?;
        let pid = child.id();
        self.children.push((HOST_CHILD, child));
        self.record(Created::Process {
            pid,
            switch: "host".into(),
            config: hcfg.clone(),
        })?;
        self.state.host = Some(state::HostState {
            pid,
            config: hcfg,
            control: dir.join("host.sock"),
            threads: h.threads,
            cores: h.cores.clone(),
            log: log.clone(),
        });
        for (s, socket, cfg, _) in configs {
            self.state.switches.push(SwitchState {
                name: desc.topo.switches[s as usize].name.clone(),
                netns: desc.netns(Node::Switch(s)),
                pid,
                socket,
                config: cfg,
                log: log.clone(),
                guest: None,
            });
        }
        self.state.save()?;
        self.sum.processes += 1;
        Ok(())
    }
}
