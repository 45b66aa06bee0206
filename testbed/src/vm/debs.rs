//! Debian packages the guest image is made of, fetched from the machine's own package
//! sources (`apt-get download`) and unpacked with `dpkg-deb -x` into the cache: nothing
//! is installed on the hypervisor and nothing comes from outside the registries.

use super::image_err as vm_err;
use crate::error::{Result, TestbedError};
use crate::os::netns::run;
use std::path::{Path, PathBuf};

/// A package unpacked under the cache (`<cache>/debs/<package>_<version>/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// The package (a meta-package resolved to the real one, e.g.
    /// `linux-image-6.1.0-56-cloud-amd64`).
    pub package: String,
    /// Its version.
    pub version: String,
    /// Where its files are.
    pub root: PathBuf,
}

impl Unpacked {
    /// `package version`.
    pub fn describe(&self) -> String {
        format!("{} {}", self.package, self.version)
    }
}

/// The marker written once a package is fully unpacked.
const DONE: &str = ".canopy-unpacked";

/// The package a meta-package depends on first whose name starts with `prefix`
/// (`linux-image-cloud-amd64` → `linux-image-6.1.0-56-cloud-amd64`), or `name` itself
/// when it is not such a meta-package.
fn resolve_meta(name: &str, prefix: &str) -> Result<String> {
    let out = run("apt-cache", &["depends", "--no-recommends", name])?;
    Ok(out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Depends: "))
        .map(str::trim)
        .find(|d| d.starts_with(prefix) && *d != name)
        .unwrap_or(name)
        .to_string())
}

/// The candidate version of `package` in the package sources.
fn candidate(package: &str) -> Result<String> {
    let out = run("apt-cache", &["policy", package])?;
    out.lines()
        .filter_map(|l| l.trim().strip_prefix("Candidate: "))
        .map(str::trim)
        .find(|v| *v != "(none)")
        .map(str::to_string)
        .ok_or_else(|| {
            vm_err(format!(
                "package {package} is not in this machine's package sources \
                 (run `apt-get update`; the guest image is made of Debian packages)"
            ))
        })
}

/// The newest package unpacked before whose directory starts with `prefix` (used when the
/// package sources cannot be asked: no network, no `apt-get update`).
fn cached(debs: &Path, prefix: &str) -> Option<Unpacked> {
    let mut found: Vec<(std::time::SystemTime, Unpacked)> = std::fs::read_dir(debs)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let (package, version) = name.split_once('_')?;
            if !package.starts_with(prefix) || !e.path().join(DONE).exists() {
                return None;
            }
            let t = e.metadata().and_then(|m| m.modified()).ok()?;
            Some((
                t,
                Unpacked {
                    package: package.into(),
                    version: version.into(),
                    root: e.path(),
                },
            ))
        })
        .collect();
    found.sort_by_key(|(t, _)| *t);
    found.pop().map(|(_, u)| u)
}

/// `name` (a package or a meta-package whose first dependency starting with `prefix` is
/// the real one) unpacked under `<cache>/debs`, downloading it when this version is not
/// there yet. When the package sources cannot be asked, the newest copy unpacked before
/// is used; with none, the error says what to do.
pub fn unpacked(cache: &Path, name: &str, prefix: &str) -> Result<Unpacked> {
    let debs = cache.join("debs");
    let resolved = resolve_meta(name, prefix).and_then(|p| Ok((candidate(&p)?, p)));
    let (version, package) = match resolved {
        Ok(v) => v,
        Err(e) => {
            return cached(&debs, prefix).ok_or_else(|| {
                vm_err(format!(
                    "cannot look up package {name} ({e}) and none is in {}",
                    debs.display()
                ))
            })
        }
    };
    let root = debs.join(format!("{package}_{version}"));
    if root.join(DONE).exists() {
        return Ok(Unpacked {
            package,
            version,
            root,
        });
    }
    let _ = std::fs::remove_dir_all(&root);
    let dl = debs.join(format!(".download-{package}"));
    let _ = std::fs::remove_dir_all(&dl);
    std::fs::create_dir_all(&dl)
        .map_err(|e| TestbedError::io(format!("create {}", dl.display()), e))?;
    let spec = format!("{package}={version}");
    let out = std::process::Command::new("apt-get")
        .args(["download", "-q", &spec])
        .current_dir(&dl)
        .output()
        .map_err(|e| TestbedError::io("run apt-get download", e))?;
    if !out.status.success() {
        return Err(vm_err(format!(
            "apt-get download {spec}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let deb = std::fs::read_dir(&dl)
        .map_err(|e| TestbedError::io(format!("read {}", dl.display()), e))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .ok_or_else(|| vm_err(format!("apt-get download {spec} wrote no .deb")))?;
    run(
        "dpkg-deb",
        &["-x", &deb.to_string_lossy(), &root.to_string_lossy()],
    )?;
    std::fs::write(root.join(DONE), &spec)
        .map_err(|e| TestbedError::io(format!("write {}", root.join(DONE).display()), e))?;
    let _ = std::fs::remove_dir_all(&dl);
    Ok(Unpacked {
        package,
        version,
        root,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_complete_unpacked_copy_is_the_fallback() {
        let d = tempfile::tempdir().unwrap();
        let debs = d.path();
        for (n, done) in [
            ("linux-image-6.1.0-1-cloud-amd64_6.1.1-1", true),
            ("linux-image-6.1.0-2-cloud-amd64_6.1.2-1", true),
            ("linux-image-6.1.0-3-cloud-amd64_6.1.3-1", false),
            ("busybox-static_1.35", true),
        ] {
            std::fs::create_dir(debs.join(n)).unwrap();
            if done {
                std::fs::write(debs.join(n).join(DONE), "x").unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let u = cached(debs, "linux-image-").unwrap();
        assert_eq!(u.package, "linux-image-6.1.0-2-cloud-amd64");
        assert_eq!(u.version, "6.1.2-1");
        assert_eq!(cached(debs, "busybox").unwrap().version, "1.35");
        assert!(cached(debs, "qemu").is_none());
    }
}
