//! `up`'s steps for a VM fabric (`[vm] switches = true`): before anything is created,
//! QEMU, the guest image and the accelerator; then one guest per switch instead of a
//! switch process, each with its token and files.

use super::{Builder, SwitchConfig};
use crate::error::{Result, TestbedError};
use crate::fabric::desc::{AccelChoice, Desc, Node};
use crate::fabric::state::{Created, GuestState, SwitchState, VmState};
use crate::vm::guest;
use crate::vm::image::{self, GuestImage};
use crate::vm::init::{GuestEnv, GuestNic};
use crate::vm::qemu::{self, Accel, GuestSpec, Nic, Probe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the KVM test boot may take (TCG reaches the same point in about 2 s).
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a VM fabric needs before anything is created.
pub(super) struct VmPlan {
    qemu: PathBuf,
    image: GuestImage,
    probe: Probe,
}

/// QEMU, the guest image (built or reused) and the accelerator (`[vm] accel`).
pub(super) fn plan(desc: &Desc, switch_bin: &Path, progress: &dyn Fn(&str)) -> Result<VmPlan> {
    let vm = &desc.raw.vm;
    let qemu = qemu::find()?;
    let cache = vm
        .cache
        .clone()
        .unwrap_or_else(|| PathBuf::from(crate::vm::DEFAULT_CACHE));
    let image = image::build(&cache, switch_bin, progress)?;
    let probe = match vm.accel {
        AccelChoice::Tcg => Probe {
            accel: Accel::Tcg,
            why: "[vm] accel = \"tcg\"".into(),
        },
        choice => {
            progress("probing KVM with a test boot of the guest kernel");
            let p = qemu::probe(&qemu, &image, PROBE_TIMEOUT);
            if choice == AccelChoice::Kvm && p.accel != Accel::Kvm {
                return Err(TestbedError::fabric(
                    &desc.name,
                    format!("[vm] accel = \"kvm\", but {}", p.why),
                ));
            }
            p
        }
    };
    Ok(VmPlan { qemu, image, probe })
}

/// A fresh management token: 32 characters from a 62-letter alphabet (190 bits).
fn token() -> Vec<u8> {
    use rand::Rng;
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut r = rand::thread_rng();
    (0..32).map(|_| ABC[r.gen_range(0..ABC.len())]).collect()
}

impl Builder<'_> {
    /// Step 3 (VM): one guest per switch: its token (the hypervisor's copy for canopyd and
    /// the testbed, the guest's over the firmware configuration), its settings, its
    /// configuration, and QEMU in the hypervisor namespace.
    pub(super) fn guests(
        &mut self,
        vm: &VmPlan,
        configs: Vec<SwitchConfig>,
        progress: &dyn Fn(&str),
    ) -> Result<()> {
        let desc = self.desc;
        let hv = desc.hypervisor_netns();
        let dir = self.state.dir.clone();
        progress(&format!(
            "starting {} guests ({}: {}; {} MiB, {} vCPU each)",
            configs.len(),
            vm.probe.accel.name(),
            vm.probe.why,
            desc.raw.vm.memory_mib,
            desc.raw.vm.vcpus
        ));
        self.state.vm = Some(VmState {
            netns: hv.clone(),
            probe: vm.probe.clone(),
            packages: vm.image.packages.clone(),
            boot_s: 0.0,
        });
        let mtu = *desc.raw.mtu.get_ref();
        for (i, (s, socket, cfg, text)) in configs.into_iter().enumerate() {
            self.interrupted()?;
            let sw = &desc.topo.switches[s as usize];
            let token = token();
            let token_file = dir.join(format!("s{s}.token"));
            crate::os::private::write(&token_file, &token)
                .map_err(|e| TestbedError::io(format!("write {}", token_file.display()), e))?;
            let ports = sw.ports.len() as u16;
            let env = GuestEnv {
                hostname: sw.name.clone(),
                mgmt: (
                    Desc::vm_mgmt_mac(s),
                    Desc::vm_mgmt_addr(s),
                    crate::fabric::desc::MGMT_PREFIX,
                ),
                nics: (0..ports)
                    .map(|p| GuestNic {
                        mac: Desc::vm_port_mac(s, p),
                        name: Desc::ifname(Node::Switch(s), p),
                        mtu,
                    })
                    .collect(),
                hugepages: 0,
            };
            let files = guest::write_files(&dir, &format!("s{s}"), &env, &text, &token)?;
            let mut nics = vec![Nic {
                id: "mgmt".into(),
                tap: Desc::vm_mgmt_tap(s),
                mac: env.mgmt.0.clone(),
                offloads: true,
            }];
            let offloads = desc.raw.offloads.get_ref() != "off";
            nics.extend((0..ports).map(|p| Nic {
                id: format!("p{p}"),
                tap: Desc::vm_end(Node::Switch(s), p),
                mac: Desc::vm_port_mac(s, p),
                offloads,
            }));
            let spec = GuestSpec {
                name: sw.name.clone(),
                accel: vm.probe.accel,
                memory_mib: desc.raw.vm.memory_mib,
                vcpus: desc.raw.vm.vcpus,
                image: vm.image.clone(),
                nics,
                files,
                console: dir.join(format!("s{s}.console")),
                qmp: dir.join(format!("s{s}.qmp")),
                vhost: qemu::vhost_available(),
            };
            let args = qemu::args(&spec);
            let log = guest::qemu_log(&spec.console);
            let child = guest::start(
                &hv,
                &vm.qemu,
                &args,
                &log,
                &format!("start guest {}", sw.name),
            )?;
            let pid = child.id();
            self.children.push((i, child));
            self.record(Created::Process {
                pid,
                switch: sw.name.clone(),
                config: cfg.clone(),
            })?;
            crate::os::private::write(&cfg, &text)
                .map_err(|e| TestbedError::io(format!("write {}", cfg.display()), e))?;
            self.state.switches.push(SwitchState {
                name: sw.name.clone(),
                netns: hv.clone(),
                pid,
                socket,
                config: cfg,
                log: spec.console.clone(),
                guest: Some(GuestState {
                    tcp: format!("{}:{}", Desc::vm_mgmt_addr(s), guest::MGMT_PORT),
                    token_file,
                    netns: hv.clone(),
                    qmp: spec.qmp.clone(),
                    console: spec.console.clone(),
                    args,
                    accel: spec.accel,
                }),
            });
            self.state.save()?;
            self.sum.processes += 1;
        }
        Ok(())
    }

    /// After every guest's switch answered: how long the boot took, in the state.
    pub(super) fn guests_booted(&mut self, since: Instant) -> Result<()> {
        if let Some(v) = self.state.vm.as_mut() {
            v.boot_s = since.elapsed().as_secs_f64();
        }
        self.state.save()
    }
}
