//! `[host]`: how this machine's switches run. `processes = "shared"` (the default for
//! `target = "canopy"` without `dpdk` ports): one `canopy-switch host` process runs
//! every switch of the machine on a fixed set of polling threads (`docs/shared-host.md`);
//! `"per-switch"`: one `canopy-switch` process per switch, as drills that kill
//! processes want. With `polling = "busy"` the host's threads are pinned to their own
//! CPUs (by default the machine's last ones; the traffic generator keeps the others).

use super::{Ctx, Desc};
use crate::error::Result;
use serde::Deserialize;
use toml::Spanned;

/// Most polling threads of a shared host.
pub const MAX_HOST_THREADS: usize = 64;

/// `[host]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostDesc {
    /// `shared` or `per-switch` (default: shared, unless the target is bmv2 or a switch
    /// has a `dpdk` port).
    pub processes: Option<Spanned<String>>,
    /// Polling threads of the shared host (default 1).
    pub threads: Option<Spanned<usize>>,
    /// CPUs its threads are pinned to, with `polling = "busy"` (default: the last
    /// `threads` CPUs when the machine has more; none otherwise).
    pub cores: Option<Spanned<Vec<usize>>>,
}

/// A shared host, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedHost {
    /// Polling threads.
    pub threads: usize,
    /// CPUs they are pinned to (empty: not pinned).
    pub cores: Vec<usize>,
}

/// The CPUs of this machine the process may run on, in order.
pub fn machine_cpus() -> Vec<usize> {
    let mut ids: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// Default CPUs of `threads` busy host threads on a machine with `cpus`: the last
/// `threads` of them, when some are left for everything else; none otherwise.
pub fn default_cores(threads: usize, cpus: &[usize]) -> Vec<usize> {
    if cpus.len() > threads {
        cpus[cpus.len() - threads..].to_vec()
    } else {
        Vec::new()
    }
}

impl Desc {
    /// `[host]`: whether this machine's switches share one process, with how many
    /// threads on which CPUs.
    pub(super) fn resolve_host(&mut self, ctx: &Ctx) -> Result<()> {
        let h = &self.raw.host;
        let busy = self.raw.polling.get_ref() == "busy";
        let has_dpdk = self.ports.iter().flatten().any(|p| p.backend() == "dpdk");
        let shared = match h.processes.as_ref() {
            None => !self.bmv2 && !has_dpdk && !self.in_vms(),
            Some(p) => match p.get_ref().as_str() {
                "per-switch" => false,
                "shared" if self.bmv2 => {
                    return Err(ctx.err(
                        "host.processes",
                        Some(p.span()),
                        "\"shared\" runs canopy-switch; target = \"bmv2\" runs one simple_switch per switch",
                    ))
                }
                "shared" if has_dpdk => {
                    return Err(ctx.err(
                        "host.processes",
                        Some(p.span()),
                        "\"shared\": a switch has a dpdk port, and one process runs one DPDK environment; use \"per-switch\"",
                    ))
                }
                "shared" if self.in_vms() => {
                    return Err(ctx.err("host.processes", Some(p.span()), super::vm::NOT_SHARED))
                }
                "shared" => true,
                other => {
                    return Err(ctx.err(
                        "host.processes",
                        Some(p.span()),
                        format!("{other:?}: expected \"shared\" or \"per-switch\""),
                    ))
                }
            },
        };
        if !shared {
            for (key, set) in [
                ("host.threads", h.threads.as_ref().map(Spanned::span)),
                ("host.cores", h.cores.as_ref().map(Spanned::span)),
            ] {
                if let Some(span) = set {
                    return Err(ctx.err(
                        key,
                        Some(span),
                        "applies to a shared host (processes = \"shared\")",
                    ));
                }
            }
            self.host = None;
            return Ok(());
        }
        let threads = h.threads.as_ref().map_or(1, |t| *t.get_ref());
        if threads == 0 || threads > MAX_HOST_THREADS {
            return Err(ctx.err(
                "host.threads",
                h.threads.as_ref().map(Spanned::span),
                format!("{threads} is not in 1..={MAX_HOST_THREADS}"),
            ));
        }
        let cpus = machine_cpus();
        let cores = match h.cores.as_ref() {
            Some(c) if !busy => {
                return Err(ctx.err(
                    "host.cores",
                    Some(c.span()),
                    "pinning applies to polling = \"busy\" (adaptive threads sleep and share CPUs)",
                ))
            }
            Some(c) => {
                if let Some(x) = c.get_ref().iter().find(|x| !cpus.contains(x)) {
                    return Err(ctx.err(
                        "host.cores",
                        Some(c.span()),
                        format!("CPU {x} is not one this process may use (it may use {cpus:?})"),
                    ));
                }
                c.get_ref().clone()
            }
            None if busy => default_cores(threads, &cpus),
            None => Vec::new(),
        };
        self.host = Some(SharedHost { threads, cores });
        Ok(())
    }

    /// The shared host's file: its threads and control socket in `dir`, and one
    /// `[[switch]]` per `(name, config, netns)`.
    pub fn host_config(
        &self,
        dir: &std::path::Path,
        switches: &[(String, String, String)],
    ) -> String {
        let h = self.host.clone().unwrap_or(SharedHost {
            threads: 1,
            cores: Vec::new(),
        });
        let mut t = toml::Table::new();
        let mut host = toml::Table::new();
        host.insert("threads".into(), (h.threads as i64).into());
        host.insert("mode".into(), self.raw.polling.get_ref().clone().into());
        if !h.cores.is_empty() {
            let cores: Vec<toml::Value> = h.cores.iter().map(|&c| (c as i64).into()).collect();
            host.insert("pin_cores".into(), cores.into());
        }
        host.insert(
            "socket".into(),
            dir.join("host.sock").display().to_string().into(),
        );
        t.insert("host".into(), host.into());
        let members: Vec<toml::Value> = switches
            .iter()
            .map(|(name, config, netns)| {
                let mut m = toml::Table::new();
                m.insert("name".into(), name.clone().into());
                m.insert("config".into(), config.clone().into());
                m.insert("netns".into(), netns.clone().into());
                m.into()
            })
            .collect();
        t.insert("switch".into(), members.into());
        toml::to_string(&t).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_host_threads_take_the_last_cpus_when_some_are_left() {
        assert_eq!(default_cores(1, &[0, 1]), vec![1]);
        assert_eq!(default_cores(2, &[0, 1, 2, 3]), vec![2, 3]);
        assert_eq!(default_cores(2, &[0, 1]), Vec::<usize>::new());
        assert_eq!(default_cores(1, &[0]), Vec::<usize>::new());
    }
}
