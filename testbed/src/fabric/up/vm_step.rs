//! `up`'s steps for a VM fabric (`[vm] switches = true`): before anything is created,
//! QEMU, the guest image and the accelerator; then one guest per switch instead of a
//! switch process, each with its token and files.

use super::{Builder, SwitchConfig};
use crate::error::{Result, TestbedError};
use crate::fabric::desc::{AccelChoice, Desc, Node, MIN_MEMORY_MIB};
use crate::fabric::state::{Created, GuestState, SwitchState, VmState};
use crate::vm::guest;
use crate::vm::image::{self, GuestImage};
use crate::vm::init::{GuestEnv, GuestNic};
use crate::vm::qemu::{self, Accel, GuestSpec, Nic, NicLink, PciAddr, Probe};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the KVM test boot may take (TCG reaches the same point in about 2 s).
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a VM fabric needs before anything is created.
pub(super) struct VmPlan {
    qemu: PathBuf,
    image: GuestImage,
    probe: Probe,
    /// 2 MiB huge pages per switch with dpdk ports.
    hugepages: BTreeMap<u32, u32>,
}

/// Huge pages of 2 MiB (the guest kernel's default size) for `bytes`.
fn pages(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(2 << 20)).unwrap_or(u32::MAX)
}

/// Whether every guest's memory holds its switch's huge pages (`bytes` per switch with
/// dpdk ports) on top of the [`MIN_MEMORY_MIB`] a guest needs without them.
pub(super) fn check_guest_memory(desc: &Desc, bytes: &[(u32, u64)]) -> Result<()> {
    let have = desc.raw.vm.memory_mib;
    let Some((s, most)) = bytes
        .iter()
        .map(|&(s, b)| (s, pages(b)))
        .max_by_key(|p| p.1)
    else {
        return Ok(());
    };
    let want = MIN_MEMORY_MIB + 2 * most;
    if have >= want {
        return Ok(());
    }
    Err(TestbedError::fabric(
        &desc.name,
        format!(
            "[vm] memory_mib = {have}: the guest of {} reserves {most} huge pages of 2 MiB for \
             its dpdk ports (their mbuf pools and EAL's memory), so it needs at least {want} MiB \
             ({MIN_MEMORY_MIB} MiB besides them); raise memory_mib or put fewer ports on dpdk",
            desc.topo.switches[s as usize].name
        ),
    ))
}

/// Longest path of a Unix socket (`sun_path` less its terminating NUL).
const UNIX_PATH_MAX: usize = 107;

/// With `links = "dgram"`, whether every NIC's socket path under `dir` fits a Unix
/// socket address.
fn check_sockets(desc: &Desc, dir: &Path) -> Result<()> {
    let longest = (0..desc.topo.switches.len() as u32)
        .flat_map(|s| (0..desc.topo.switches[s as usize].ports.len() as u16).map(move |p| (s, p)))
        .filter(|&(s, p)| desc.vm_dgram_peer(s, p).is_some())
        .map(|(s, p)| Desc::vm_dgram_socket(dir, s, p))
        .max_by_key(|p| p.as_os_str().len());
    match longest {
        Some(p) if p.as_os_str().len() > UNIX_PATH_MAX => Err(TestbedError::fabric(
            &desc.name,
            format!(
                "[vm] links = \"dgram\": the socket {} is longer than a Unix socket's {UNIX_PATH_MAX} bytes; use a shorter --state-root or fabric name",
                p.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// QEMU, the guest image (built or reused) and the accelerator (`[vm] accel`).
/// `hugepage_bytes`: what each switch with dpdk ports reserves in its guest.
pub(super) fn plan(
    desc: &Desc,
    (switch_bin, dir): (&Path, &Path),
    hugepage_bytes: &[(u32, u64)],
    progress: &dyn Fn(&str),
) -> Result<VmPlan> {
    let vm = &desc.raw.vm;
    check_sockets(desc, dir)?;
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
    let hugepages = hugepage_bytes.iter().map(|&(s, b)| (s, pages(b))).collect();
    Ok(VmPlan {
        qemu,
        image,
        probe,
        hugepages,
    })
}

/// Switch `s`'s NICs: management, then one per port, each on its tap, or with
/// `links = "dgram"` a port linked to another switch on QEMU's `dgram` netdev towards
/// the peer port's socket.
fn guest_nics(desc: &Desc, s: u32, dir: &Path) -> Vec<Nic> {
    let mut nics = vec![Nic {
        id: "mgmt".into(),
        pci: PciAddr::MGMT,
        link: NicLink::Tap(Desc::vm_mgmt_tap(s)),
        mac: Desc::vm_mgmt_mac(s),
        offloads: true,
    }];
    let offloads = desc.raw.offloads.get_ref() != "off";
    let ports = desc.topo.switches[s as usize].ports.len() as u16;
    nics.extend((0..ports).map(|p| Nic {
        id: format!("p{p}"),
        pci: PciAddr::port(p).unwrap_or(PciAddr::MGMT),
        link: match desc.vm_dgram_peer(s, p) {
            Some((t, q)) => NicLink::Dgram {
                local: Desc::vm_dgram_socket(dir, s, p),
                remote: Desc::vm_dgram_socket(dir, t, q),
            },
            None => NicLink::Tap(Desc::vm_end(Node::Switch(s), p)),
        },
        mac: Desc::vm_port_mac(s, p),
        offloads,
    }));
    nics
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
            links: desc.raw.vm.links,
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
            let dpdk: Vec<u16> = desc
                .port_backends(s)
                .iter()
                .enumerate()
                .filter(|(_, b)| *b == "dpdk")
                .map(|(p, _)| p as u16)
                .collect();
            let env = GuestEnv {
                hostname: sw.name.clone(),
                mgmt: (
                    Desc::vm_mgmt_mac(s),
                    Desc::vm_mgmt_addr(s),
                    crate::fabric::desc::MGMT_PREFIX,
                ),
                nics: (0..ports)
                    .filter(|p| !dpdk.contains(p))
                    .map(|p| GuestNic {
                        mac: Desc::vm_port_mac(s, p),
                        name: Desc::ifname(Node::Switch(s), p),
                        mtu,
                    })
                    .collect(),
                hugepages: vm.hugepages.get(&s).copied().unwrap_or(0),
                dpdk: dpdk.iter().map(|&p| desc.dpdk_device(p)).collect(),
            };
            let files = guest::write_files(&dir, &format!("s{s}"), &env, &text, &token)?;
            let spec = GuestSpec {
                name: sw.name.clone(),
                accel: vm.probe.accel,
                memory_mib: desc.raw.vm.memory_mib,
                vcpus: desc.raw.vm.vcpus,
                image: vm.image.clone(),
                nics: guest_nics(desc, s, &dir),
                files,
                console: dir.join(format!("s{s}.console")),
                qmp: dir.join(format!("s{s}.qmp")),
                vhost: desc.vm_vhost(),
            };
            let args = qemu::args(&spec);
            let sockets = spec.sockets();
            let log = guest::qemu_log(&spec.console);
            let child = guest::start(
                &hv,
                &vm.qemu,
                (&args, &sockets),
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
                    sockets,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guest_must_hold_its_switchs_huge_pages() {
        let d = |mib: u32| {
            Desc::parse(
                "t.toml",
                &format!(
                    "topology = \"fat-tree:k=2\"\n[vm]\nswitches = true\nmemory_mib = {mib}\n"
                ),
            )
            .unwrap()
        };
        // 40 MiB in 20 pages: 256 + 40 MiB
        let need = [(0, 3 << 20), (1, 40 << 20)];
        assert!(check_guest_memory(&d(296), &need).is_ok());
        let e = check_guest_memory(&d(295), &need).unwrap_err().to_string();
        assert!(
            e.contains("memory_mib = 295: the guest of ")
                && e.contains("reserves 20 huge pages of 2 MiB")
                && e.contains("at least 296 MiB"),
            "{e}"
        );
        assert!(check_guest_memory(&d(256), &[]).is_ok());
        assert_eq!(pages(1), 1);
        assert_eq!(pages(4 << 20), 2);
    }
}
