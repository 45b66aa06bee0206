//! QEMU: each guest's command line (built here and nowhere else), the accelerator probe,
//! and the link backend the machine supports.
//!
//! Every guest is `qemu-system-x86_64` with direct kernel boot (`-kernel`, `-initrd`),
//! no display, its serial console appended to a file under the state directory, a QMP
//! socket (power, link state) and one `virtio-net-pci` NIC per port on a tap device that
//! the testbed made beforehand in the fabric's hypervisor namespace.

use super::image::GuestImage;
use super::init::{PROBE_ARG, PROBE_MARK};
use crate::error::{Result, TestbedError};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The emulator.
pub const QEMU: &str = "qemu-system-x86_64";

/// How a guest's CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Accel {
    /// Hardware virtualisation: figures comparable with a real VM's.
    Kvm,
    /// QEMU's emulator: the guest's drivers, XDP and DPDK are the real code, but its
    /// throughput and latency are not comparable with namespaces or real VMs.
    Tcg,
}

impl Accel {
    /// Its name for `-accel` and the reports.
    pub fn name(self) -> &'static str {
        match self {
            Accel::Kvm => "kvm",
            Accel::Tcg => "tcg",
        }
    }
}

/// Where a NIC sits on the guest's PCI bus (bus 0 of QEMU's `pc` machine, whose slots 0
/// and 1 hold the host bridge and the ISA bridge): a fixed address, so that a switch's
/// configuration can name a port's NIC by it (DPDK's device, a PCI address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PciAddr {
    /// The slot (device number).
    pub slot: u8,
    /// The function.
    pub func: u8,
}

/// The first slot of the port NICs (the management NIC has the one before).
const FIRST_PORT_SLOT: u8 = 3;
/// Slots on bus 0.
const SLOTS: u8 = 32;
/// Most port NICs a guest can have: eight functions in each slot from slot 3 on.
pub const MAX_PORT_NICS: u16 = (SLOTS - FIRST_PORT_SLOT) as u16 * 8;

impl PciAddr {
    /// The management NIC's place.
    pub const MGMT: PciAddr = PciAddr { slot: 2, func: 0 };

    /// The place of port `p`'s NIC: slot `3 + p / 8`, function `p % 8` (functions of
    /// one multi-function device, so that 232 ports fit on one bus). None past
    /// [`MAX_PORT_NICS`].
    pub fn port(p: u16) -> Option<PciAddr> {
        (p < MAX_PORT_NICS).then(|| PciAddr {
            slot: FIRST_PORT_SLOT + (p / 8) as u8,
            func: (p % 8) as u8,
        })
    }

    /// The address as the guest sees it (`0000:00:03.1`): what DPDK's EAL and sysfs
    /// name the device by.
    pub fn guest(self) -> String {
        format!("0000:00:{:02x}.{}", self.slot, self.func)
    }
}

/// What a guest NIC is connected to on the hypervisor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NicLink {
    /// A tap device the testbed made beforehand (its name).
    Tap(String),
    /// QEMU's userspace `dgram` netdev over Unix datagram sockets: it receives on
    /// `local` and sends to `remote` (the peer NIC's `local`).
    Dgram {
        /// Its own socket (bound by QEMU; must not exist when QEMU starts).
        local: PathBuf,
        /// The peer's socket.
        remote: PathBuf,
    },
}

/// A NIC of a guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nic {
    /// QEMU's id of its netdev (what QMP's `set_link` names).
    pub id: String,
    /// Its place on the guest's PCI bus.
    pub pci: PciAddr,
    /// What it is connected to.
    pub link: NicLink,
    /// The guest's MAC address.
    pub mac: String,
    /// The guest's receive offloads (GRO done by the host side for the guest: TSO, ECN,
    /// UFO) stay on. Off, the guest receives frame by frame, as the namespace fabric's
    /// veths with `offloads = "off"`, and `virtio_net` can attach native XDP without
    /// asking the device to turn them off first.
    pub offloads: bool,
}

/// Everything one guest's command line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestSpec {
    /// The guest's name (`-name`).
    pub name: String,
    /// Its accelerator.
    pub accel: Accel,
    /// Memory (MiB).
    pub memory_mib: u32,
    /// vCPUs.
    pub vcpus: u32,
    /// The kernel and initramfs.
    pub image: GuestImage,
    /// Its NICs, the management NIC first.
    pub nics: Vec<Nic>,
    /// Firmware configuration files: (name under `opt/canopy/`, file).
    pub files: Vec<(String, PathBuf)>,
    /// The serial console's log (appended to: a guest booted again adds to it).
    pub console: PathBuf,
    /// The QMP socket.
    pub qmp: PathBuf,
    /// Whether the taps use vhost-net (in-kernel virtio data path).
    pub vhost: bool,
}

impl GuestSpec {
    /// The Unix sockets its `dgram` NICs bind, which must not exist when QEMU starts.
    pub fn sockets(&self) -> Vec<PathBuf> {
        self.nics
            .iter()
            .filter_map(|n| match &n.link {
                NicLink::Dgram { local, .. } => Some(local.clone()),
                NicLink::Tap(_) => None,
            })
            .collect()
    }
}

/// The kernel command line of every guest: the serial console, no KASLR (the guest is a
/// test instrument), a guest that stops instead of rebooting when it panics.
fn cmdline(extra: &str) -> String {
    format!("console=ttyS0 panic=-1 nokaslr quiet {extra}")
        .trim()
        .to_string()
}

/// The arguments of `qemu-system-x86_64` for `g`.
pub fn args(g: &GuestSpec) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "-name".into(),
        g.name.clone(),
        "-accel".into(),
        g.accel.name().into(),
        "-m".into(),
        g.memory_mib.to_string(),
        "-smp".into(),
        g.vcpus.to_string(),
        "-display".into(),
        "none".into(),
        "-nodefaults".into(),
        "-no-reboot".into(),
        "-chardev".into(),
        format!("file,id=console,path={},append=on", g.console.display()),
        "-serial".into(),
        "chardev:console".into(),
        "-qmp".into(),
        format!("unix:{},server=on,wait=off", g.qmp.display()),
        "-kernel".into(),
        g.image.kernel.display().to_string(),
        "-initrd".into(),
        g.image.initrd.display().to_string(),
        "-append".into(),
        cmdline(""),
    ];
    // KVM: the host's CPU; TCG: every feature the emulator has (its default `qemu64`
    // lacks SSE4.2, which DPDK's libraries, linked by a switch built with `dpdk`, use)
    let cpu = match g.accel {
        Accel::Kvm => "host",
        Accel::Tcg => "max",
    };
    a.extend(["-cpu".into(), cpu.into()]);
    for n in &g.nics {
        let mut netdev = match &n.link {
            NicLink::Tap(tap) => {
                let mut t = format!("tap,id={},ifname={tap},script=no,downscript=no", n.id);
                if g.vhost {
                    t.push_str(",vhost=on");
                }
                t
            }
            NicLink::Dgram { local, remote } => format!(
                "dgram,id={},local.type=unix,local.path={},remote.type=unix,remote.path={}",
                n.id,
                local.display(),
                remote.display()
            ),
        };
        let mut dev = format!(
            "virtio-net-pci,netdev={},mac={},addr=0x{:x}.{}",
            n.id, n.mac, n.pci.slot, n.pci.func
        );
        if n.pci.func == 0 {
            // the slot's other functions (ports p+1..p+7) are more NICs
            dev.push_str(",multifunction=on");
        }
        if !n.offloads {
            dev.push_str(",guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off");
        }
        a.extend([
            "-netdev".into(),
            std::mem::take(&mut netdev),
            "-device".into(),
            dev,
        ]);
    }
    for (name, file) in &g.files {
        a.extend([
            "-fw_cfg".into(),
            format!("name=opt/canopy/{name},file={}", file.display()),
        ]);
    }
    a
}

/// Whether this machine's kernel offers vhost-net to taps.
pub fn vhost_available() -> bool {
    Path::new("/dev/vhost-net").exists()
}

/// The outcome of the accelerator probe.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Probe {
    /// What the guests get.
    pub accel: Accel,
    /// Why (KVM's test boot and how long it took, or why it is not used).
    pub why: String,
}

/// Which accelerator the guests get: KVM when `/dev/kvm` opens and a test boot of
/// `image` under it reaches the guest's init within `timeout`, TCG otherwise (with the
/// reason). The test boot is the real kernel with `/init` powering off at once.
pub fn probe(qemu: &Path, image: &GuestImage, timeout: Duration) -> Probe {
    let tcg = |why: String| Probe {
        accel: Accel::Tcg,
        why,
    };
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
    {
        return tcg(format!("/dev/kvm cannot be opened ({e})"));
    }
    let t0 = Instant::now();
    let child = Command::new(qemu)
        .args([
            "-accel",
            "kvm",
            "-cpu",
            "host",
            "-m",
            "256",
            "-display",
            "none",
            "-nodefaults",
            "-no-reboot",
            "-serial",
            "stdio",
            "-kernel",
        ])
        .arg(&image.kernel)
        .arg("-initrd")
        .arg(&image.initrd)
        .args(["-append", &cmdline(PROBE_ARG)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return tcg(format!("cannot start {}: {e}", qemu.display())),
    };
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if t0.elapsed() < timeout => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return tcg(format!(
                    "a test boot under KVM did not reach the guest's init within {:.0} s \
                     (nested virtualisation that does not run this guest kernel)",
                    timeout.as_secs_f64()
                ));
            }
        }
    }
    let out = child.wait_with_output();
    let (stdout, stderr) = out
        .map(|o| {
            (
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        })
        .unwrap_or_default();
    if stdout.contains(PROBE_MARK) {
        Probe {
            accel: Accel::Kvm,
            why: format!(
                "a test boot under KVM reached the guest's init in {:.1} s",
                t0.elapsed().as_secs_f64()
            ),
        }
    } else {
        tcg(format!(
            "a test boot under KVM failed: {}",
            stderr.lines().last().unwrap_or("no message").trim()
        ))
    }
}

/// `qemu-system-x86_64` on `PATH`, or the error that says which package has it.
pub fn find() -> Result<PathBuf> {
    crate::os::netns::which(QEMU).ok_or_else(|| TestbedError::Missing {
        tool: QEMU.into(),
        hint: "Debian package qemu-system-x86; scripts/install-deps installs it".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> GuestSpec {
        GuestSpec {
            name: "edge-p0-e0".into(),
            accel: Accel::Tcg,
            memory_mib: 512,
            vcpus: 1,
            image: GuestImage {
                kernel: "/c/vmlinuz".into(),
                initrd: "/c/initrd.cpio".into(),
                packages: vec![],
            },
            nics: vec![
                Nic {
                    id: "mgmt".into(),
                    pci: PciAddr::MGMT,
                    link: NicLink::Tap("g0m".into()),
                    mac: "52:54:00:00:00:01".into(),
                    offloads: true,
                },
                Nic {
                    id: "p9".into(),
                    pci: PciAddr::port(9).unwrap(),
                    link: NicLink::Tap("g0p0".into()),
                    mac: "52:54:00:00:01:00".into(),
                    offloads: false,
                },
            ],
            files: vec![("token".into(), "/s/token".into())],
            console: "/s/console.log".into(),
            qmp: "/s/qmp.sock".into(),
            vhost: false,
        }
    }

    #[test]
    fn a_guest_has_its_nics_files_console_and_qmp() {
        let a = args(&spec()).join(" ");
        assert!(a.contains("-accel tcg"), "{a}");
        assert!(a.contains("-cpu max") && !a.contains("-cpu host"), "{a}");
        assert!(a.contains("-netdev tap,id=mgmt,ifname=g0m,script=no,downscript=no -device virtio-net-pci,netdev=mgmt,mac=52:54:00:00:00:01,addr=0x2.0,multifunction=on "), "{a}");
        assert!(a.contains("tap,id=p9,ifname=g0p0,script=no,downscript=no -device virtio-net-pci,netdev=p9,mac=52:54:00:00:01:00,addr=0x4.1,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off"), "{a}");
        assert!(
            a.contains("-fw_cfg name=opt/canopy/token,file=/s/token"),
            "{a}"
        );
        assert!(
            a.contains("file,id=console,path=/s/console.log,append=on"),
            "{a}"
        );
        assert!(a.contains("unix:/s/qmp.sock,server=on,wait=off"), "{a}");
        let mut k = spec();
        k.accel = Accel::Kvm;
        k.vhost = true;
        let a = args(&k).join(" ");
        assert!(a.contains("-accel kvm") && a.contains("-cpu host"), "{a}");
        assert!(a.contains("downscript=no,vhost=on"), "{a}");
        assert!(k.sockets().is_empty());
        // a userspace link: no tap, no vhost, its socket to remove before a start
        k.nics[1].link = NicLink::Dgram {
            local: "/s/s0p9.dgram".into(),
            remote: "/s/s1p0.dgram".into(),
        };
        let a = args(&k).join(" ");
        assert!(a.contains("-netdev dgram,id=p9,local.type=unix,local.path=/s/s0p9.dgram,remote.type=unix,remote.path=/s/s1p0.dgram -device virtio-net-pci,netdev=p9,"), "{a}");
        assert_eq!(k.sockets(), [PathBuf::from("/s/s0p9.dgram")]);
    }

    #[test]
    fn port_nics_fill_the_bus_eight_to_a_slot() {
        assert_eq!(PciAddr::port(0).unwrap().guest(), "0000:00:03.0");
        assert_eq!(PciAddr::port(7).unwrap().guest(), "0000:00:03.7");
        assert_eq!(PciAddr::port(8).unwrap().guest(), "0000:00:04.0");
        let last = PciAddr::port(MAX_PORT_NICS - 1).unwrap();
        assert_eq!((last.slot, last.func), (31, 7));
        assert_eq!(PciAddr::port(MAX_PORT_NICS), None);
        assert_eq!(PciAddr::MGMT.guest(), "0000:00:02.0");
    }
}
