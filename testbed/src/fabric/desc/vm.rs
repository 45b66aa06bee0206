//! `[vm]`: every switch in its own QEMU guest, with a `virtio-net` NIC per port
//! (`docs/ops-vms.md`). The hosts stay in namespaces on this machine (the hypervisor),
//! so one clock stamps both ends of every frame.

use super::{Ctx, Desc};
use crate::error::Result;
use serde::Deserialize;
use std::path::PathBuf;

/// Guest memory by default (MiB): the kernel, the initramfs in RAM and the switch.
pub const DEFAULT_MEMORY_MIB: u32 = 512;
/// Least guest memory `up` accepts (MiB).
pub const MIN_MEMORY_MIB: u32 = 256;

fn default_memory() -> u32 {
    DEFAULT_MEMORY_MIB
}
fn default_vcpus() -> u32 {
    1
}
fn default_boot_timeout() -> u64 {
    180
}

/// Which accelerator the guests get.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccelChoice {
    /// KVM when a test boot under it works, TCG otherwise (`up` says which and why).
    #[default]
    Auto,
    /// KVM or fail.
    Kvm,
    /// TCG, no probe.
    Tcg,
}

/// How the guests' switch-to-switch links are carried (host links are always taps).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VmLinks {
    /// A tap per NIC in the hypervisor namespace, the two taps of a link joined by a tc
    /// `mirred` wire; the kernel carries the frames (vhost-net where it is there).
    #[default]
    Tap,
    /// QEMU's userspace `dgram` netdev: the two NICs of a link exchange frames over a
    /// pair of Unix datagram sockets under the state directory, with no kernel
    /// interface between them (nothing for the hypervisor to count).
    Dgram,
}

/// Whether the taps use vhost-net (the kernel's virtio data path).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VhostChoice {
    /// When `/dev/vhost-net` is there.
    #[default]
    Auto,
    /// Always (refused without `/dev/vhost-net`).
    On,
    /// Never: QEMU's own userspace virtio-net.
    Off,
}

/// `[vm]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmDesc {
    /// Run every switch in its own guest.
    #[serde(default)]
    pub switches: bool,
    /// Memory of each guest (MiB).
    #[serde(default = "default_memory")]
    pub memory_mib: u32,
    /// vCPUs of each guest.
    #[serde(default = "default_vcpus")]
    pub vcpus: u32,
    /// `auto` (default), `kvm` or `tcg`.
    #[serde(default)]
    pub accel: AccelChoice,
    /// Where the guest image and its packages are kept (default
    /// [`crate::vm::DEFAULT_CACHE`]).
    pub cache: Option<PathBuf>,
    /// How long `up` waits for every guest's switch to answer (s).
    #[serde(default = "default_boot_timeout")]
    pub boot_timeout_s: u64,
    /// `tap` (default) or `dgram`.
    #[serde(default)]
    pub links: VmLinks,
    /// `auto` (default), `on` or `off`.
    #[serde(default)]
    pub vhost: VhostChoice,
}

impl Default for VmDesc {
    fn default() -> Self {
        VmDesc {
            switches: false,
            memory_mib: DEFAULT_MEMORY_MIB,
            vcpus: 1,
            accel: AccelChoice::Auto,
            cache: None,
            boot_timeout_s: default_boot_timeout(),
            links: VmLinks::Tap,
            vhost: VhostChoice::Auto,
        }
    }
}

impl Desc {
    /// Whether the switches run in guests.
    pub fn in_vms(&self) -> bool {
        self.raw.vm.switches
    }

    /// The hypervisor namespace of a VM fabric: the management bridge, the taps and
    /// the wires, QEMU and canopyd.
    pub fn hypervisor_netns(&self) -> String {
        format!("{}-vm", self.name)
    }

    /// `[vm]` checked against the rest: the canopy target, one machine, no NICs moved
    /// in, guests of a workable size.
    pub(super) fn check_vm(&self, ctx: &Ctx) -> Result<()> {
        let vm = &self.raw.vm;
        if !vm.switches {
            return Ok(());
        }
        let refuse = |key: &str, span: Option<std::ops::Range<usize>>, what: &str| {
            Err(ctx.err(key, span, what))
        };
        if self.bmv2 {
            return refuse(
                "target",
                Some(self.raw.target.span()),
                "[vm] switches runs canopy-switch in the guests; target = \"bmv2\" is not",
            );
        }
        if !self.raw.machine.is_empty() || !self.raw.nic.is_empty() {
            return refuse(
                "vm.switches",
                None,
                "a VM fabric runs on this machine: [[machine]] and [[nic]] are for fabrics \
                 across machines",
            );
        }
        if !self.daemon {
            return refuse(
                "canopyd.enabled",
                None,
                "a VM fabric is managed by canopyd over the guests' TCP endpoints; leave \
                 [canopyd] enabled",
            );
        }
        let most = crate::vm::qemu::MAX_PORT_NICS;
        if let Some(sw) = self
            .topo
            .switches
            .iter()
            .find(|s| s.ports.len() > usize::from(most))
        {
            return refuse(
                "vm.switches",
                None,
                &format!(
                    "switch {} has {} ports; a guest has at most {most} port NICs (eight to \
                     a PCI slot on one bus)",
                    sw.name,
                    sw.ports.len()
                ),
            );
        }
        if vm.memory_mib < MIN_MEMORY_MIB {
            return refuse(
                "vm.memory_mib",
                None,
                &format!(
                    "{} MiB is under the {MIN_MEMORY_MIB} MiB a guest needs",
                    vm.memory_mib
                ),
            );
        }
        if vm.vcpus == 0 || vm.vcpus > 64 {
            return refuse("vm.vcpus", None, "must be 1..=64");
        }
        if vm.vhost == VhostChoice::On && !crate::vm::qemu::vhost_available() {
            return refuse(
                "vm.vhost",
                None,
                "\"on\", but this machine has no /dev/vhost-net (`modprobe vhost_net`; a \
                 kernel without it needs \"auto\" or \"off\")",
            );
        }
        if self.topo.switches.len() > 1000 {
            return refuse(
                "vm.switches",
                None,
                &format!(
                    "{} switches: at most 1000 guests on one hypervisor",
                    self.topo.switches.len()
                ),
            );
        }
        Ok(())
    }
}

/// `[vm]` keys a shared host cannot take (for `[host]`'s message).
pub const NOT_SHARED: &str = "[vm] switches runs one canopy-switch per guest";

/// The hypervisor's address on the management network (`10.254.0.0/16`, inside the
/// hypervisor namespace only, so it never meets the machine's own networks).
pub const MGMT_HYPERVISOR: std::net::Ipv4Addr = std::net::Ipv4Addr::new(10, 254, 0, 1);
/// The management network's prefix length.
pub const MGMT_PREFIX: u8 = 16;

impl Desc {
    /// Switch `s`'s guest's address on the management network.
    pub fn vm_mgmt_addr(s: u32) -> std::net::Ipv4Addr {
        std::net::Ipv4Addr::from(u32::from(MGMT_HYPERVISOR) + 1 + s)
    }

    /// The MAC of switch `s`'s management NIC (`52:55:...`: locally administered).
    pub fn vm_mgmt_mac(s: u32) -> String {
        format!("52:55:00:00:{:02x}:{:02x}", s >> 8, s & 0xff)
    }

    /// The MAC of switch `s`'s NIC of port `p`.
    pub fn vm_port_mac(s: u32, p: u16) -> String {
        format!(
            "52:54:{:02x}:{:02x}:{:02x}:{:02x}",
            s >> 8,
            s & 0xff,
            p >> 8,
            p & 0xff
        )
    }

    /// Whether the guests' taps use vhost-net (`[vm] vhost`, and `/dev/vhost-net`).
    pub fn vm_vhost(&self) -> bool {
        match self.raw.vm.vhost {
            VhostChoice::Off => false,
            VhostChoice::On | VhostChoice::Auto => crate::vm::qemu::vhost_available(),
        }
    }

    /// With `[vm] links = "dgram"`: the switch port at the other end of switch `s`'s
    /// port `p` when a switch's (their link is QEMU's `dgram` netdev, no tap); None
    /// otherwise.
    pub fn vm_dgram_peer(&self, s: u32, p: u16) -> Option<(u32, u16)> {
        if self.raw.vm.links != VmLinks::Dgram {
            return None;
        }
        let end = (super::Node::Switch(s), p);
        let l = self.links.iter().find(|l| l.a == end || l.b == end)?;
        match if l.a == end { l.b } else { l.a } {
            (super::Node::Switch(t), q) => Some((t, q)),
            _ => None,
        }
    }

    /// The Unix datagram socket switch `s`'s NIC of port `p` receives on, with
    /// `links = "dgram"` (under the state directory `dir`).
    pub fn vm_dgram_socket(dir: &std::path::Path, s: u32, p: u16) -> PathBuf {
        dir.join(format!("s{s}p{p}.dgram"))
    }

    /// The tap of switch `s`'s management NIC.
    pub fn vm_mgmt_tap(s: u32) -> String {
        format!("t{s}m")
    }

    /// The interface in the hypervisor namespace of a link end: the tap of a switch
    /// port, or the hypervisor's end of a host's veth.
    pub fn vm_end(n: super::Node, p: u16) -> String {
        match n {
            super::Node::Switch(s) => format!("t{s}p{p}"),
            super::Node::Host(h) => format!("v{h}p{p}"),
        }
    }
}

/// Where a guest keeps its files ([`crate::vm::init::GUEST_DIR`]).
const GUEST_DIR: &str = crate::vm::init::GUEST_DIR;

impl Desc {
    /// Switch `s`'s configuration inside its guest: its ports on the guest's NICs (named
    /// as in a namespace fabric), the management socket in the guest, and the TCP
    /// endpoint on the management network with the token the guest is given.
    pub fn guest_switch_config(&self, s: u32) -> String {
        let sock = std::path::PathBuf::from(GUEST_DIR).join("switch.sock");
        let mut t = self.switch_config_table(s, &sock, false);
        if let Some(toml::Value::Table(m)) = t.get_mut("management") {
            m.insert(
                "tcp".into(),
                format!("{}:{}", Desc::vm_mgmt_addr(s), crate::vm::guest::MGMT_PORT).into(),
            );
            m.insert(
                "token_file".into(),
                format!("{GUEST_DIR}/{}", crate::vm::init::TOKEN_FILE).into(),
            );
        }
        format!(
            "# generated by canopy-testbed up for fabric {} (switch {}, in its guest); do not edit\n{}",
            self.name,
            self.topo.switches[s as usize].name,
            toml::to_string(&t).unwrap_or_default()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::desc::Node;

    const VM: &str = "topology = \"fat-tree:k=2\"\n[vm]\nswitches = true\n";

    fn err(body: &str) -> String {
        Desc::parse("t.toml", body).unwrap_err().to_string()
    }

    #[test]
    fn what_a_vm_fabric_cannot_be_is_refused_with_the_key() {
        // (top-level keys, more [vm] keys, other tables, what the error says)
        for (top, vm, tables, frag) in [
            (
                "target = \"bmv2\"\n",
                "",
                "",
                "t.toml: target: [vm] switches runs canopy-switch",
            ),
            (
                "",
                "",
                "[canopyd]\nenabled = false\n",
                "t.toml: canopyd.enabled: a VM fabric is managed by canopyd",
            ),
            (
                "",
                "memory_mib = 128\n",
                "",
                "t.toml: vm.memory_mib: 128 MiB is under",
            ),
            ("", "vcpus = 0\n", "", "t.toml: vm.vcpus: must be 1..=64"),
            (
                "",
                "",
                "[capture]\ndir = \"c\"\n",
                "t.toml: capture: switches in guests write to their initramfs",
            ),
            (
                "",
                "links = \"udp\"\n",
                "",
                "t.toml: vm.links: unknown variant `udp`",
            ),
            (
                "",
                "",
                "[host]\nprocesses = \"shared\"\n",
                "t.toml: host.processes: [vm] switches runs one canopy-switch per guest",
            ),
            (
                "",
                "",
                "[ports]\nbackend = \"dpdk\"\nqueues = 2\n",
                "t.toml: ports.queues: queues = 2: a guest's virtio-net NIC has one queue pair",
            ),
            (
                "",
                "",
                "[ports]\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n",
                "a guest's virtio-net NIC (one queue pair), which has no zero-copy AF_XDP",
            ),
            (
                "",
                "switch = true\n",
                "",
                "t.toml: vm.switch: unknown field",
            ),
        ] {
            let body = format!("{top}{VM}{vm}{tables}");
            let e = err(&body);
            assert!(e.contains(frag), "{body:?}: {e}");
        }
    }

    #[test]
    fn dpdk_ports_in_a_guest_are_its_nics_pci_addresses() {
        let d = Desc::parse(
            "t.toml",
            &format!("{VM}[[ports.override]]\nswitch = \"edge-*\"\nport = 1\nbackend = \"dpdk\"\n"),
        )
        .unwrap();
        let text = d.guest_switch_config(0);
        let cfg = canopy_switch::config::Config::parse_rules(std::path::Path::new("s.toml"), &text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        match &cfg.ports[1] {
            canopy_switch::config::PortSpec::Dpdk { device, .. } => {
                assert_eq!(device, "0000:00:03.1")
            }
            p => panic!("{p:?}"),
        }
        assert!(matches!(
            cfg.ports[0],
            canopy_switch::config::PortSpec::AfPacket { .. }
        ));
        // EAL probes that NIC only, and no af_packet vdev
        assert_eq!(cfg.dpdk.unwrap().eal_args, ["-a", "0000:00:03.1"]);
        assert_eq!(d.dpdk_switches().len(), 2);
    }

    #[test]
    fn a_vm_fabric_has_guest_configs_and_canopyd_on_tcp() {
        let d = Desc::parse(
            "t.toml",
            &format!("{VM}[ports]\nbackend = \"afxdp\"\nmode = \"copy\"\n"),
        )
        .unwrap();
        assert!(d.in_vms() && d.host.is_none() && d.daemon);
        assert_eq!(d.hypervisor_netns(), "canopy-vm");
        let text = d.guest_switch_config(3);
        let cfg = canopy_switch::config::Config::parse(std::path::Path::new("s.toml"), &text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let m = cfg.management.tcp.as_ref().expect("tcp endpoint");
        assert_eq!(m.addr.to_string(), "10.254.0.5:7410");
        assert_eq!(m.token_file, std::path::Path::new("/run/canopy/token"));
        let daemon = d.daemon_config(std::path::Path::new("/st"), None);
        let c =
            canopyd::config::Config::parse("canopyd.toml", &daemon, std::path::Path::new("/st"));
        // the token files do not exist here: canopyd names the first one it cannot read
        let e = c.unwrap_err().to_string();
        assert!(e.contains("/st/s0.token"), "{e}\n{daemon}");
        assert!(
            daemon.contains("tcp = \"10.254.0.6:7410\"")
                && daemon.contains("probe_timeout_ms = 1000"),
            "{daemon}"
        );
        assert!(!daemon.contains("[switches]"), "{daemon}");
        // names and addresses
        assert_eq!(
            Desc::vm_mgmt_addr(0),
            std::net::Ipv4Addr::new(10, 254, 0, 2)
        );
        assert_eq!(
            Desc::vm_mgmt_addr(300),
            std::net::Ipv4Addr::new(10, 254, 1, 46)
        );
        assert_eq!(Desc::vm_port_mac(258, 3), "52:54:01:02:00:03");
        assert_eq!(Desc::vm_mgmt_mac(258), "52:55:00:00:01:02");
        assert_eq!(Desc::vm_end(Node::Switch(4), 2), "t4p2");
        assert_eq!(Desc::vm_end(Node::Host(11), 0), "v11p0");
    }
}
