//! Kernel modules of the guest: which `.ko` files the guest needs and in which order to
//! load them. Each module names the modules it needs in its `.modinfo` section
//! (`depends=a,b`); the closure of the wanted ones is loaded dependencies first, so the
//! guest's init needs no `modules.dep` (the package leaves it to `depmod` at install).

use super::image_err as err;
use crate::error::{Result, TestbedError};
use object::{Object, ObjectSection};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// What the guests load: the virtio PCI transport and NIC driver, the QEMU firmware
/// configuration files (how each guest gets its configuration), and the generic UIO
/// driver DPDK's virtio PMD binds a NIC to.
pub const WANTED: &[&str] = &["virtio_pci", "virtio_net", "qemu_fw_cfg", "uio_pci_generic"];

/// A module's name from its file name (`virtio-net.ko` → `virtio_net`: the kernel treats
/// `-` and `_` alike).
fn module_name(file: &str) -> Option<String> {
    file.strip_suffix(".ko").map(|n| n.replace('-', "_"))
}

/// Every module under `dir` (a `lib/modules/VERSION`), by name.
fn index(dir: &Path) -> Result<BTreeMap<String, PathBuf>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| TestbedError::io(format!("read {}", d.display()), e))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Some(n) = e.file_name().to_str().and_then(module_name) {
                out.insert(n, p);
            }
        }
    }
    Ok(out)
}

/// The `depends=` list of a module's `.modinfo` section.
pub fn depends(ko: &[u8]) -> std::result::Result<Vec<String>, String> {
    let file = object::File::parse(ko).map_err(|e| e.to_string())?;
    let section = file
        .section_by_name(".modinfo")
        .ok_or("no .modinfo section")?;
    let data = section.data().map_err(|e| e.to_string())?;
    Ok(data
        .split(|b| *b == 0)
        .filter_map(|kv| kv.strip_prefix(b"depends="))
        .flat_map(|v| v.split(|b| *b == b','))
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).replace('-', "_"))
        .collect())
}

/// The modules of `wanted` and everything they depend on, dependencies first. A wanted
/// module built into the kernel (no `.ko`, listed in `modules.builtin` when the package
/// has it) is skipped; a missing dependency is an error.
pub fn closure(dir: &Path, wanted: &[&str]) -> Result<Vec<(String, PathBuf)>> {
    let all = index(dir)?;
    let builtin = std::fs::read_to_string(dir.join("modules.builtin")).unwrap_or_default();
    let is_builtin = |n: &str| {
        builtin
            .lines()
            .filter_map(|l| l.rsplit('/').next().and_then(module_name))
            .any(|b| b == n)
    };
    let mut order = vec![];
    let mut done = HashSet::new();
    // depth-first, a module after its dependencies; `visiting` stops a cycle
    fn visit(
        n: &str,
        all: &BTreeMap<String, PathBuf>,
        done: &mut HashSet<String>,
        visiting: &mut HashSet<String>,
        order: &mut Vec<(String, PathBuf)>,
    ) -> Result<()> {
        if done.contains(n) || !visiting.insert(n.to_string()) {
            return Ok(());
        }
        let path = all
            .get(n)
            .ok_or_else(|| err(format!("kernel module {n} is not in the kernel package")))?;
        let bytes = std::fs::read(path)
            .map_err(|e| TestbedError::io(format!("read {}", path.display()), e))?;
        let deps = depends(&bytes).map_err(|e| err(format!("{}: {e}", path.display())))?;
        for d in deps {
            visit(&d, all, done, visiting, order)?;
        }
        done.insert(n.to_string());
        order.push((n.to_string(), path.clone()));
        Ok(())
    }
    let mut visiting = HashSet::new();
    for w in wanted {
        if !all.contains_key(*w) && is_builtin(w) {
            continue;
        }
        visit(w, &all, &mut done, &mut visiting, &mut order)?;
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_treat_dash_and_underscore_alike() {
        assert_eq!(module_name("vfio-pci.ko").as_deref(), Some("vfio_pci"));
        assert_eq!(module_name("virtio_net.ko").as_deref(), Some("virtio_net"));
        assert_eq!(module_name("virtio_net.ko.xz"), None);
    }

    #[test]
    fn a_file_that_is_not_elf_has_no_depends() {
        assert!(depends(b"not an ELF file").is_err());
    }

    #[test]
    fn a_missing_module_is_named() {
        let d = tempfile::tempdir().unwrap();
        let e = closure(d.path(), &["virtio_net"]).unwrap_err().to_string();
        assert!(e.contains("virtio_net is not in the kernel package"), "{e}");
        // built in: skipped
        std::fs::write(
            d.path().join("modules.builtin"),
            "kernel/drivers/net/virtio_net.ko\n",
        )
        .unwrap();
        assert!(closure(d.path(), &["virtio_net"]).unwrap().is_empty());
    }
}
