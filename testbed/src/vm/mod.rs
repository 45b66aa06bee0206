//! Fabrics whose switches run in virtual machines: one QEMU guest per switch with a
//! `virtio-net` NIC per port (`docs/ops-vms.md`).
//!
//! | module | what |
//! |---|---|
//! | [`debs`] | the Debian packages the guest image is made of, downloaded and unpacked into the cache |
//! | [`modules`] | the guest's kernel modules and their load order |
//! | [`guest`] | one guest: the hypervisor namespace, taps and wires, its files, QEMU, health over TCP |
//! | [`init`] | the guest's `/init` and the per-guest settings it reads |
//! | [`image`] | the guest image: the kernel and an initramfs with BusyBox, `canopy-switch` and its libraries |
//! | [`qemu`] | each guest's QEMU command line, the accelerator probe (KVM or TCG), vhost-net |
//! | [`qmp`] | a client of a guest's QMP socket: link state, run state, stop |

pub mod debs;
pub mod guest;
pub mod image;
pub mod init;
pub mod modules;
pub mod qemu;
pub mod qmp;

/// Where guest images and the Debian packages they are made of are kept between runs.
pub const DEFAULT_CACHE: &str = "/var/cache/canopy-testbed";

/// An error of the guest image (its packages, modules or initramfs).
pub(crate) fn image_err(detail: impl Into<String>) -> crate::error::TestbedError {
    crate::error::TestbedError::Vm {
        guest: "image".into(),
        detail: detail.into(),
    }
}
