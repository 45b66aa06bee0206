//! The guest's `/init` (a BusyBox shell script) and the per-guest settings it reads.
//!
//! One image serves every guest; what differs (the switch's name, its management
//! address, which NIC is which port, its configuration and token) reaches each guest as
//! QEMU firmware configuration files (`-fw_cfg name=opt/canopy/...,file=...`), read
//! from `/sys/firmware/qemu_fw_cfg`. Nothing secret is on the kernel command line,
//! which any user of the hypervisor can read in QEMU's arguments.

use std::fmt::Write as _;
use std::net::Ipv4Addr;

/// The firmware configuration directory of the guest's files.
pub const FW_CFG_DIR: &str = "opt/canopy";
/// The guest's settings ([`GuestEnv::render`]).
pub const ENV_FILE: &str = "guest.env";
/// The switch's configuration.
pub const SWITCH_FILE: &str = "switch.toml";
/// The switch's management token.
pub const TOKEN_FILE: &str = "token";
/// Where the guest puts those files (a tmpfs).
pub const GUEST_DIR: &str = "/run/canopy";
/// The kernel argument of the accelerator probe's test boot: init prints
/// [`PROBE_MARK`] and powers off at once.
pub const PROBE_ARG: &str = "canopy.probe=1";
/// What the probe's guest prints.
pub const PROBE_MARK: &str = "canopy-guest-probe-ok";
/// What init prints when the switch is started, with its pid after it.
pub const STARTED_MARK: &str = "canopy-guest: switch started";

/// One NIC of a guest: the guest renames the interface with this MAC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestNic {
    /// Its MAC address (`52:54:00:...`).
    pub mac: String,
    /// The interface name in the guest.
    pub name: String,
    /// Its MTU.
    pub mtu: u32,
}

/// The settings of one guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestEnv {
    /// The guest's host name (the switch's name).
    pub hostname: String,
    /// The management NIC: its MAC, address and prefix length.
    pub mgmt: (String, Ipv4Addr, u8),
    /// The data NICs.
    pub nics: Vec<GuestNic>,
    /// 2 MiB huge pages to reserve (DPDK ports).
    pub hugepages: u32,
    /// The PCI addresses of the NICs DPDK drives (its virtio PMD): bound to
    /// `uio_pci_generic` instead of `virtio_net`.
    pub dpdk: Vec<String>,
}

/// Whether `s` may appear unquoted in the shell script's settings (names, MACs).
fn shell_safe(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

impl GuestEnv {
    /// The settings as shell assignments `/init` sources. None when a name or MAC holds a
    /// character a shell word cannot (descriptions only make `[a-z0-9-]` names).
    pub fn render(&self) -> Option<String> {
        let words = std::iter::once(self.hostname.as_str())
            .chain([self.mgmt.0.as_str()])
            .chain(
                self.nics
                    .iter()
                    .flat_map(|n| [n.mac.as_str(), n.name.as_str()]),
            )
            .chain(self.dpdk.iter().map(String::as_str));
        if !words.into_iter().all(shell_safe) {
            return None;
        }
        let mut s = String::new();
        let _ = writeln!(s, "HOSTNAME={}", self.hostname);
        let _ = writeln!(s, "MGMT_MAC={}", self.mgmt.0);
        let _ = writeln!(s, "MGMT_ADDR={}/{}", self.mgmt.1, self.mgmt.2);
        let nics: Vec<String> = self
            .nics
            .iter()
            .map(|n| format!("{}={}={}", n.mac, n.name, n.mtu))
            .collect();
        let _ = writeln!(s, "NICS=\"{}\"", nics.join(" "));
        let _ = writeln!(s, "HUGEPAGES={}", self.hugepages);
        let _ = writeln!(s, "DPDK=\"{}\"", self.dpdk.join(" "));
        Some(s)
    }
}

/// `/init`: mounts, loads the modules in `modules.order`, reads its files from the
/// firmware configuration, hands the NICs of DPDK's ports to `uio_pci_generic` (the
/// cloud kernel has no `vfio-pci` no-IOMMU mode; DPDK's virtio PMD maps the device's
/// registers through `uio`), names the other NICs by MAC, brings up the management
/// address, reserves huge pages, then runs the switch; when it exits, the guest powers off (the
/// hypervisor sees the guest stop, as it would see the process die).
pub const INIT: &str = r#"#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o mode=0700 run /run
if grep -q 'canopy.probe=1' /proc/cmdline; then
    echo canopy-guest-probe-ok
    poweroff -f
fi
while read -r m; do
    insmod "/lib/canopy-modules/$m.ko" || echo "canopy-guest: cannot load module $m"
done < /lib/canopy-modules/modules.order
mkdir -p /run/canopy /dev/hugepages
fw=/sys/firmware/qemu_fw_cfg/by_name/opt/canopy
for f in guest.env switch.toml token; do
    if [ ! -r "$fw/$f/raw" ]; then
        echo "canopy-guest: no firmware configuration file opt/canopy/$f"
        poweroff -f
    fi
    cat "$fw/$f/raw" > "/run/canopy/$f"
done
chmod 600 /run/canopy/token
. /run/canopy/guest.env
hostname "$HOSTNAME"
# no IPv6 (router solicitations, MLD) out of the switch's ports
for k in all default; do echo 1 > "/proc/sys/net/ipv6/conf/$k/disable_ipv6"; done
rename() { # MAC NAME
    for d in /sys/class/net/*; do
        if [ "$(cat "$d/address")" = "$1" ]; then
            ip link set dev "${d##*/}" name "$2"
            return 0
        fi
    done
    echo "canopy-guest: no NIC with MAC $1 (for $2)"
    return 1
}
for a in $DPDK; do
    d="/sys/bus/pci/devices/$a"
    if [ ! -e "$d" ]; then
        echo "canopy-guest: no PCI device $a for DPDK"
        continue
    fi
    echo uio_pci_generic > "$d/driver_override"
    if [ -e "$d/driver" ]; then echo "$a" > "$d/driver/unbind"; fi
    echo "$a" > /sys/bus/pci/drivers_probe
    drv=$(readlink "$d/driver")
    echo "canopy-guest: $a bound to ${drv##*/}"
done
ip link set lo up
rename "$MGMT_MAC" mgmt && ip link set mgmt up && ip addr add "$MGMT_ADDR" dev mgmt
for n in $NICS; do
    mac=${n%%=*}; rest=${n#*=}; name=${rest%%=*}; mtu=${rest#*=}
    rename "$mac" "$name" && ip link set dev "$name" mtu "$mtu" up
done
if [ "$HUGEPAGES" -gt 0 ]; then
    echo "$HUGEPAGES" > /proc/sys/vm/nr_hugepages
    mount -t hugetlbfs nodev /dev/hugepages
fi
echo "canopy-guest: $HOSTNAME up, kernel $(uname -r), $(nproc) vCPU(s), $(grep MemTotal /proc/meminfo)"
/bin/canopy-switch run --config /run/canopy/switch.toml &
echo "canopy-guest: switch started $!"
wait $!
echo "canopy-guest: switch exited with status $?"
poweroff -f
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_render_as_shell_words_and_refuse_others() {
        let mut g = GuestEnv {
            hostname: "edge-p0-e0".into(),
            mgmt: ("52:54:00:01:00:00".into(), Ipv4Addr::new(10, 0, 0, 2), 24),
            nics: vec![GuestNic {
                mac: "52:54:00:01:00:01".into(),
                name: "s0p0".into(),
                mtu: 1500,
            }],
            hugepages: 0,
            dpdk: vec!["0000:00:03.1".into()],
        };
        let s = g.render().unwrap();
        assert!(s.contains("MGMT_ADDR=10.0.0.2/24\n"), "{s}");
        assert!(s.contains("DPDK=\"0000:00:03.1\"\n"), "{s}");
        assert!(s.contains("NICS=\"52:54:00:01:00:01=s0p0=1500\"\n"), "{s}");
        g.nics[0].name = "x; reboot".into();
        assert_eq!(g.render(), None);
    }

    #[test]
    fn init_reads_every_file_it_is_given() {
        for f in [ENV_FILE, SWITCH_FILE, TOKEN_FILE] {
            assert!(INIT.contains(f), "{f}");
        }
        assert!(INIT.contains(FW_CFG_DIR) && INIT.contains(GUEST_DIR));
        assert!(INIT.contains(PROBE_ARG) && INIT.contains(PROBE_MARK));
        assert!(INIT.contains(STARTED_MARK));
    }
}
