//! The guest image: Debian's cloud kernel (`linux-image-cloud-amd64`) and an initramfs
//! holding BusyBox (`busybox-static`), `canopy-switch` with the shared libraries it
//! links, the kernel modules the guest loads ([`super::modules`]) and `/init`
//! ([`super::init`]). Built once per set of inputs under the cache
//! (`<cache>/images/<key>/`) and reused while the packages and the switch binary are
//! the same.

use super::image_err as err;
use super::{debs, init, modules};
use crate::error::{Result, TestbedError};
use crate::os::netns::{run, which};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The kernel's meta-package and the prefix of the package it depends on.
pub const KERNEL_PACKAGE: (&str, &str) = ("linux-image-cloud-amd64", "linux-image-");
/// BusyBox, statically linked.
pub const BUSYBOX_PACKAGE: &str = "busybox-static";

/// The layout of the image this code writes, part of its cache key: raised when what
/// goes into the archive, or how, changes.
const LAYOUT: &str = "canopy-guest-image 3";

/// A built guest image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestImage {
    /// The kernel (`vmlinuz`).
    pub kernel: PathBuf,
    /// The initramfs (an uncompressed newc cpio archive: no decompression at boot).
    pub initrd: PathBuf,
    /// The packages it was made of (`package version`).
    pub packages: Vec<String>,
}

/// The shared libraries `bin` loads (`ldd`), the dynamic loader included.
fn libraries(bin: &Path) -> Result<Vec<PathBuf>> {
    let out = run("ldd", &[&bin.to_string_lossy()])?;
    let mut libs = vec![];
    for l in out.lines() {
        let path = match l.split_once("=>") {
            Some((_, rest)) => rest.trim().split(' ').next().unwrap_or(""),
            None => l.trim().split(' ').next().unwrap_or(""),
        };
        if path.starts_with('/') {
            libs.push(PathBuf::from(path));
        } else if l.contains("not found") {
            return Err(err(format!("{}: {}", bin.display(), l.trim())));
        }
    }
    Ok(libs)
}

/// DPDK's drivers the guests load: the PCI bus, the ring mempool (the mbuf pools'
/// handler) and the virtio PMD. EAL loads every library in its plugin directory
/// (`DPDK_PLUGIN_PATH`, compiled into `librte_eal`); the host's holds over a hundred,
/// many linking libraries the guest has no use for, so the guest's holds only these.
pub const DPDK_PLUGINS: &[&str] = &["librte_bus_pci", "librte_mempool_ring", "librte_net_virtio"];

/// DPDK's plugin directory in the guest: links named as on the host to the libraries
/// (so that a driver loaded as a plugin and as another's dependency is one object).
#[derive(Debug, Default)]
struct Plugins {
    /// (link in the plugin directory, the library it points to).
    links: Vec<(String, PathBuf)>,
    /// The drivers and the libraries they load.
    libs: Vec<PathBuf>,
}

/// The plugin directory compiled into `librte_eal`'s bytes.
fn plugin_dir(eal: &[u8]) -> Option<&str> {
    const KEY: &[u8] = b"DPDK_PLUGIN_PATH=";
    let at = eal.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let rest = &eal[at..];
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end])
        .ok()
        .filter(|d| d.starts_with('/'))
}

/// [`DPDK_PLUGINS`] for a switch that links DPDK (`libs` holds `librte_eal`), nothing
/// for one that does not. Each driver is `<name>.so.<ABI major>` beside `librte_eal`
/// (the major is the plugin directory's `pmds-<ABI>`).
fn dpdk_plugins(libs: &[PathBuf]) -> Result<Plugins> {
    let Some(eal) = libs.iter().find(|l| {
        l.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("librte_eal.so"))
    }) else {
        return Ok(Plugins::default());
    };
    let bytes =
        std::fs::read(eal).map_err(|e| TestbedError::io(format!("read {}", eal.display()), e))?;
    let dir = plugin_dir(&bytes)
        .ok_or_else(|| err(format!("{} names no DPDK_PLUGIN_PATH", eal.display())))?;
    let major = Path::new(dir)
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("pmds-"))
        .and_then(|abi| abi.split('.').next())
        .ok_or_else(|| err(format!("DPDK's plugin directory {dir} is not pmds-<ABI>")))?;
    let libdir = eal.parent().unwrap_or(Path::new("/"));
    let mut p = Plugins::default();
    for name in DPDK_PLUGINS {
        let lib = libdir.join(format!("{name}.so.{major}"));
        if !lib.exists() {
            return Err(err(format!(
                "{} is missing (Debian: the package {} for DPDK's ABI {major}; scripts/install-deps installs DPDK)",
                lib.display(),
                name.replace('_', "-")
            )));
        }
        p.links.push((format!("{dir}/{name}.so"), lib.clone()));
        p.libs.extend(libraries(&lib)?);
        p.libs.push(lib);
    }
    Ok(p)
}

/// The initramfs being written: directories as they are needed, files with their mode.
struct Cpio<W: Write> {
    out: W,
    dirs: BTreeSet<String>,
    ino: u32,
}

impl<W: Write> Cpio<W> {
    fn entry(&mut self, name: &str, mode: u32, data: &[u8]) -> std::io::Result<()> {
        self.ino += 1;
        let size = u32::try_from(data.len())
            .map_err(|_| std::io::Error::other(format!("{name}: over 4 GiB")))?;
        let mut w = cpio::NewcBuilder::new(name)
            .ino(self.ino)
            .mode(mode)
            .nlink(1)
            .write(&mut self.out, size);
        w.write_all(data)?;
        w.finish()?;
        Ok(())
    }

    /// `path` (absolute in the guest) and every directory above it.
    fn parents(&mut self, path: &str) -> std::io::Result<()> {
        let rel = path.trim_start_matches('/');
        let mut at = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for p in &parts[..parts.len().saturating_sub(1)] {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(p);
            if self.dirs.insert(at.clone()) {
                self.entry(&at.clone(), 0o040755, &[])?;
            }
        }
        Ok(())
    }

    fn dir(&mut self, path: &str) -> std::io::Result<()> {
        self.parents(&format!("{path}/x"))
    }

    fn file(&mut self, path: &str, mode: u32, data: &[u8]) -> std::io::Result<()> {
        self.parents(path)?;
        self.entry(path.trim_start_matches('/'), 0o100000 | mode, data)
    }

    fn symlink(&mut self, path: &str, target: &str) -> std::io::Result<()> {
        self.parents(path)?;
        self.entry(path.trim_start_matches('/'), 0o120777, target.as_bytes())
    }

    /// `/dev/console`, so that `/init` has its output before devtmpfs is mounted.
    fn console(&mut self) -> std::io::Result<()> {
        self.dir("/dev")?;
        self.ino += 1;
        cpio::NewcBuilder::new("dev/console")
            .ino(self.ino)
            .mode(0o020600)
            .nlink(1)
            .rdev_major(5)
            .rdev_minor(1)
            .write(&mut self.out, 0)
            .finish()?;
        Ok(())
    }
}

/// `canopy-switch` as it goes into the guest: without its debug information when
/// `strip` is there (a debug build shrinks from about 70 MB to 11 MB), as it is
/// otherwise.
fn switch_bytes(bin: &Path, work: &Path) -> Result<Vec<u8>> {
    let read = |p: &Path| {
        std::fs::read(p).map_err(|e| TestbedError::io(format!("read {}", p.display()), e))
    };
    if which("strip").is_some() {
        let out = work.join("canopy-switch.stripped");
        if run(
            "strip",
            &[
                "--strip-debug",
                "-o",
                &out.to_string_lossy(),
                &bin.to_string_lossy(),
            ],
        )
        .is_ok()
        {
            let b = read(&out);
            let _ = std::fs::remove_file(&out);
            return b;
        }
    }
    read(bin)
}

/// The guest image for `switch_bin`, built under `cache` or reused from there.
/// `progress` hears what is being done.
pub fn build(cache: &Path, switch_bin: &Path, progress: &dyn Fn(&str)) -> Result<GuestImage> {
    progress("looking up the guest's Debian packages");
    let kernel = debs::unpacked(cache, KERNEL_PACKAGE.0, KERNEL_PACKAGE.1)?;
    let busybox = debs::unpacked(cache, BUSYBOX_PACKAGE, BUSYBOX_PACKAGE)?;
    let vmlinuz = std::fs::read_dir(kernel.root.join("boot"))
        .map_err(|e| TestbedError::io(format!("read {}/boot", kernel.root.display()), e))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("vmlinuz-"))
        })
        .ok_or_else(|| err(format!("{} has no boot/vmlinuz-*", kernel.describe())))?;
    let version = vmlinuz
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("vmlinuz-"))
        .unwrap_or_default()
        .to_string();
    let moddir = kernel.root.join("lib/modules").join(&version);
    let mods = modules::closure(&moddir, modules::WANTED)?;
    let bb = busybox.root.join("bin/busybox");
    let mut libs = libraries(switch_bin)?;
    let plugins = dpdk_plugins(&libs)?;
    libs.extend(plugins.libs.iter().cloned());
    let libs: Vec<PathBuf> = libs
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();

    // the key: everything that goes into the image
    let switch = std::fs::read(switch_bin)
        .map_err(|e| TestbedError::io(format!("read {}", switch_bin.display()), e))?;
    let mut h = Sha256::new();
    for part in [
        LAYOUT.as_bytes(),
        kernel.describe().as_bytes(),
        busybox.describe().as_bytes(),
        init::INIT.as_bytes(),
        &switch,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    for l in &libs {
        h.update(l.to_string_lossy().as_bytes());
        h.update(
            std::fs::metadata(l)
                .map(|m| m.len())
                .unwrap_or(0)
                .to_le_bytes(),
        );
    }
    for (link, _) in &plugins.links {
        h.update(link.as_bytes());
    }
    drop(switch);
    let key: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = cache.join("images").join(&key);
    let image = GuestImage {
        kernel: dir.join("vmlinuz"),
        initrd: dir.join("initrd.cpio"),
        packages: vec![kernel.describe(), busybox.describe()],
    };
    if image.initrd.exists() && image.kernel.exists() {
        return Ok(image);
    }
    progress(&format!("building the guest image {}", dir.display()));
    let tmp = cache.join("images").join(format!(".{key}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)
        .map_err(|e| TestbedError::io(format!("create {}", tmp.display()), e))?;
    let io = |what: &str, e: std::io::Error| TestbedError::io(format!("guest image: {what}"), e);
    let f = std::fs::File::create(tmp.join("initrd.cpio")).map_err(|e| io("create initrd", e))?;
    let mut c = Cpio {
        out: std::io::BufWriter::new(f),
        dirs: BTreeSet::new(),
        ino: 0,
    };
    let write = |c: &mut Cpio<std::io::BufWriter<std::fs::File>>| -> std::io::Result<()> {
        // the root itself, 0755: the kernel's rootfs is world-writable otherwise, and
        // DPDK refuses to load plugins under a world-writable directory
        c.entry(".", 0o040755, &[])?;
        c.console()?;
        for d in ["/proc", "/sys", "/run", "/tmp", "/dev/hugepages"] {
            c.dir(d)?;
        }
        // where DPDK's EAL (and others) look for the runtime directory
        c.symlink("/var/run", "/run")?;
        c.file("/init", 0o755, init::INIT.as_bytes())?;
        c.file("/bin/busybox", 0o755, &std::fs::read(&bb)?)?;
        c.file(
            "/bin/canopy-switch",
            0o755,
            &switch_bytes(switch_bin, &tmp).map_err(std::io::Error::other)?,
        )?;
        for l in &libs {
            c.file(&l.to_string_lossy(), 0o755, &std::fs::read(l)?)?;
        }
        for (link, lib) in &plugins.links {
            c.symlink(link, &lib.to_string_lossy())?;
        }
        let mut order = String::new();
        for (name, path) in &mods {
            c.file(
                &format!("/lib/canopy-modules/{name}.ko"),
                0o644,
                &std::fs::read(path)?,
            )?;
            order.push_str(name);
            order.push('\n');
        }
        c.file("/lib/canopy-modules/modules.order", 0o644, order.as_bytes())?;
        let out = cpio::newc::trailer(&mut c.out)?;
        out.flush()
    };
    write(&mut c).map_err(|e| io("write initrd", e))?;
    drop(c);
    std::fs::copy(&vmlinuz, tmp.join("vmlinuz")).map_err(|e| io("copy the kernel", e))?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir).map_err(|e| io("move the image into place", e))?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_has_its_directories_before_its_files_and_a_trailer() {
        let mut c = Cpio {
            out: vec![],
            dirs: BTreeSet::new(),
            ino: 0,
        };
        c.file("/lib/canopy-modules/a.ko", 0o644, b"abc").unwrap();
        c.file("/lib/x", 0o644, b"").unwrap();
        let out = cpio::newc::trailer(c.out).unwrap();
        let mut r = std::io::Cursor::new(out);
        let mut names = vec![];
        loop {
            let e = cpio::NewcReader::new(&mut r).unwrap();
            if e.entry().is_trailer() {
                break;
            }
            names.push((e.entry().name().to_string(), e.entry().mode()));
            e.finish().unwrap();
        }
        assert_eq!(
            names,
            [
                ("lib".to_string(), 0o040755),
                ("lib/canopy-modules".to_string(), 0o040755),
                ("lib/canopy-modules/a.ko".to_string(), 0o100644),
                ("lib/x".to_string(), 0o100644),
            ]
        );
    }

    #[test]
    fn the_plugin_directory_is_read_from_eal() {
        let eal = b"\0x\0DPDK_PLUGIN_PATH=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0\0tail";
        assert_eq!(
            plugin_dir(eal),
            Some("/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0")
        );
        assert_eq!(plugin_dir(b"DPDK_PLUGIN_PATH=relative\0"), None);
        assert_eq!(plugin_dir(b"nothing"), None);
        // a switch without DPDK gets no plugins
        let p = dpdk_plugins(&[PathBuf::from("/lib/x86_64-linux-gnu/libc.so.6")]).unwrap();
        assert!(p.links.is_empty() && p.libs.is_empty());
    }

    #[test]
    fn ldd_lists_the_loader_and_the_libraries() {
        let libs = libraries(Path::new("/bin/sh")).unwrap();
        assert!(
            libs.iter().any(|l| l.to_string_lossy().contains("libc.so")),
            "{libs:?}"
        );
        assert!(
            libs.iter()
                .any(|l| l.to_string_lossy().contains("ld-linux")),
            "{libs:?}"
        );
    }
}
