//! The Debian package, built, installed and run under systemd (`docs/packaging.md`):
//! `cargo deb` packages the binaries this test run built; a Debian 12 container made by
//! `debootstrap` (with the package's dependencies) gets it with `dpkg -i`, then boots
//! with systemd (`systemd-nspawn -b`, its own network namespace), where
//! `packaging/test/check-services.sh` starts `canopy-switch@` and `canopyd` from their
//! units on the shipped configuration, asks them `health`, `fabric status` and
//! `/readyz`, stops them, starts them again and purges the package. This test reads
//! what the script found and checks every line.
//!
//! Needs root, `cargo deb`, `debootstrap`, `systemd-nspawn` and `dpkg-deb`
//! (`scripts/install-deps` installs them; without one it skips with a message). The
//! container's base is made once per dependency set and kept under
//! `/var/cache/canopy-tests/` (about 45 s to make, 300 MB); each run copies it.

use canopy_test_utils::root_or_skip;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TEST: &str = "package_deb";
/// The suite the container is made of: the Debian the package is for.
const SUITE: &str = "bookworm";
/// Where its packages come from (`CANOPY_DEBIAN_MIRROR` overrides).
const MIRROR: &str = "http://deb.debian.org/debian";
/// The one switch of the shipped configuration (`packaging/etc/`).
const SWITCH: &str = "sw-k0-y0-l1-z0-r0";
/// Longest boot-check-poweroff of the container.
const BOOT_LIMIT: Duration = Duration::from_secs(240);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `cmd`; its output, or a panic naming the command and what it printed.
fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} ({}): {text}", out.status);
    text
}

fn have(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Removes the run's directory (the container's root among it) however the test ends.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The package names of a `Depends:` field (versions and alternatives after the first
/// left out).
fn depends_names(field: &str) -> Vec<String> {
    let mut v: Vec<String> = field
        .split(',')
        .filter_map(|d| d.split('|').next())
        .filter_map(|d| d.split_whitespace().next())
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// A Debian minbase with the packages `include`, made once and kept: its path.
fn base_rootfs(include: &[&str], extra: &[String]) -> PathBuf {
    let mut include: Vec<String> = include
        .iter()
        .map(|s| s.to_string())
        .chain(extra.iter().cloned())
        .collect();
    include.sort();
    include.dedup();
    let key = include.join(",");
    // a name that changes with the package set: a stale base is never reused
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let cache = PathBuf::from("/var/cache/canopy-tests");
    let base = cache.join(format!("rootfs-{SUITE}-{hash:016x}"));
    // debootstrap finished: the marker is written into the tree before it takes its name
    let done = base.join(".canopy-base-complete");
    if done.exists() {
        return base;
    }
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&cache).expect("create /var/cache/canopy-tests");
    let partial = cache.join(format!("rootfs-{SUITE}-{hash:016x}.partial"));
    let _ = std::fs::remove_dir_all(&partial);
    let mirror = std::env::var("CANOPY_DEBIAN_MIRROR").unwrap_or_else(|_| MIRROR.into());
    let t0 = Instant::now();
    run(
        "debootstrap",
        Command::new("debootstrap")
            .args(["--variant=minbase", &format!("--include={key}"), SUITE])
            .arg(&partial)
            .arg(&mirror),
    );
    std::fs::write(partial.join(".canopy-base-complete"), &key).expect("mark the base");
    std::fs::rename(&partial, &base).expect("keep the base");
    eprintln!(
        "{TEST}: made the container base {} in {:.0} s",
        base.display(),
        t0.elapsed().as_secs_f64()
    );
    base
}

/// Waits for `child` at most `limit`; on overrun asks it to stop (SIGTERM: nspawn powers
/// the container off), then kills it.
fn wait_bounded(child: &mut Child, limit: Duration) -> bool {
    let t0 = Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        if t0.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_secs(5));
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `systemd-nspawn` on `root` without registering with a machined the host may not
/// run.
fn nspawn(root: &Path) -> Command {
    let mut c = Command::new("systemd-nspawn");
    c.args(["-q", "--register=no", "--keep-unit", "-D"])
        .arg(root);
    c
}

const CHECK_UNIT: &str = "\
[Unit]
Description=Canopy package check
After=multi-user.target
[Service]
Type=oneshot
StandardOutput=file:/canopy-check.out
StandardError=journal
ExecStart=/usr/local/sbin/canopy-check
ExecStopPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
";

/// What a packaging test needs, or None after a `SKIP` line: root, `tools` (name,
/// version flag, how to install), `cargo deb`, and the binaries this run built.
fn ready(test: &str, tools: &[(&str, &str, &str)]) -> Option<PathBuf> {
    if !root_or_skip(test, "debootstrap, chroot and containers") {
        return None;
    }
    for (tool, arg, hint) in tools {
        if !have(tool, arg) {
            eprintln!("SKIP {test}: {tool} not installed ({hint}; scripts/install-deps does)");
            return None;
        }
    }
    if !Command::new(cargo())
        .args(["deb", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIP {test}: cargo-deb not installed (scripts/install-deps installs it)");
        return None;
    }
    // the binaries this run built, next to canopy-testbed (target/debug)
    let bins = Path::new(env!("CARGO_BIN_EXE_canopy-testbed"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    for b in ["canopy-switch", "canopyd", "canopyctl"] {
        if !bins.join(b).is_file() {
            eprintln!(
                "SKIP {test}: {} not built (cargo test --workspace builds every binary)",
                bins.join(b).display()
            );
            return None;
        }
    }
    Some(bins)
}

/// A scratch directory for `test`, removed however the test ends.
fn scratch(test: &str) -> (PathBuf, Cleanup) {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("target")).expect("run dir");
    (dir.clone(), Cleanup(dir))
}

/// `cargo deb` over the binaries in `bins` (`target/release` of its target dir is
/// them), into `dir`: the package's path.
fn build_deb(bins: &Path, dir: &Path) -> PathBuf {
    // the binaries, and beside them their completions and man pages, as the docs build them
    let release = dir.join("target/release");
    std::fs::create_dir_all(&release).expect("release dir");
    for b in ["canopy-switch", "canopyd", "canopyctl", "canopy-testbed"] {
        std::os::unix::fs::symlink(bins.join(b), release.join(b)).expect("link a binary");
    }
    run(
        "packaging/completions-man/generate",
        Command::new(repo().join("packaging/completions-man/generate"))
            .arg(&release)
            .arg(&release),
    );
    run(
        "cargo deb",
        Command::new(cargo())
            .args(["deb", "-p", "canopy", "--no-build", "-o"])
            .arg(dir)
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .current_dir(repo()),
    );
    std::fs::read_dir(dir)
        .expect("run dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .expect("cargo deb wrote no .deb")
}

const DEB_TOOLS: &[(&str, &str, &str)] = &[
    ("debootstrap", "--version", "apt-get install debootstrap"),
    ("dpkg-deb", "--version", "dpkg"),
];

#[test]
fn the_package_installs_and_its_units_run_under_systemd() {
    let tools = [
        DEB_TOOLS[0],
        DEB_TOOLS[1],
        (
            "systemd-nspawn",
            "--version",
            "apt-get install systemd-container",
        ),
    ];
    let Some(bins) = ready(TEST, &tools) else {
        return;
    };
    let (dir, _cleanup) = scratch(TEST);
    // 1. the package, its control fields, files and conffiles
    let deb = build_deb(&bins, &dir);
    let field = |f: &str| {
        run(
            "dpkg-deb -f",
            Command::new("dpkg-deb").arg("-f").arg(&deb).arg(f),
        )
        .trim()
        .to_string()
    };
    assert_eq!(field("Package"), "canopy");
    assert_eq!(field("Version"), format!("{}-1", env!("CARGO_PKG_VERSION")));
    let depends = field("Depends");
    let contents = run("dpkg-deb -c", Command::new("dpkg-deb").arg("-c").arg(&deb));
    for f in [
        "./usr/bin/canopy-switch",
        "./usr/bin/canopyd",
        "./usr/bin/canopyctl",
        "./usr/bin/canopy-testbed",
        "./lib/systemd/system/canopy-switch@.service",
        "./lib/systemd/system/canopyd.service",
        "./etc/canopy/canopyd.toml",
        "./usr/share/canopy/wireshark/canopy.lua",
        "./usr/share/canopy/grafana/canopy-fabric.json",
        "./usr/share/canopy/prometheus/canopy-rules.yml",
        "./usr/share/doc/canopy/ops-systemd.md",
        "./usr/share/bash-completion/completions/canopyctl",
        "./usr/share/zsh/vendor-completions/_canopy-testbed",
        "./usr/share/fish/vendor_completions.d/canopyd.fish",
        "./usr/share/man/man1/canopy-switch.1.gz",
        "./usr/share/man/man1/canopyctl-tables.1.gz",
    ] {
        assert!(
            contents.lines().any(|l| l.ends_with(f)),
            "{f} not in the package:\n{contents}"
        );
    }
    let conffiles = run(
        "dpkg-deb --ctrl-tarfile",
        Command::new("sh").arg("-c").arg(format!(
            "dpkg-deb --ctrl-tarfile '{}' | tar -xOf - ./conffiles",
            deb.display()
        )),
    );
    assert!(
        conffiles.contains("/etc/canopy/canopyd.toml"),
        "configuration files are conffiles: {conffiles}"
    );

    // 2. a container with the package's dependencies, the package installed
    let base = base_rootfs(
        &["systemd", "systemd-sysv", "dbus"],
        &depends_names(&depends),
    );
    let root = dir.join("root");
    run(
        "copy the base",
        Command::new("cp").arg("-a").arg(&base).arg(&root),
    );
    std::fs::copy(&deb, root.join("var/tmp/canopy.deb")).expect("copy the package");
    run(
        "dpkg -i in the container",
        nspawn(&root).args(["dpkg", "-i", "/var/tmp/canopy.deb"]),
    );
    let script = repo().join("packaging/test/check-services.sh");
    std::fs::copy(&script, root.join("usr/local/sbin/canopy-check")).expect("install the check");
    std::fs::write(
        root.join("etc/systemd/system/canopy-check.service"),
        CHECK_UNIT,
    )
    .expect("check unit");
    let wants = root.join("etc/systemd/system/multi-user.target.wants");
    std::fs::create_dir_all(&wants).expect("wants dir");
    std::os::unix::fs::symlink(
        "/etc/systemd/system/canopy-check.service",
        wants.join("canopy-check.service"),
    )
    .expect("enable the check");

    // 3. boot it: systemd runs the check, which powers the container off
    let t0 = Instant::now();
    let log = std::fs::File::create(dir.join("boot.log")).expect("boot log");
    let mut child = nspawn(&root)
        .args(["--private-network", "-b", "--console=pipe"])
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .spawn()
        .expect("boot the container");
    let ended = wait_bounded(&mut child, BOOT_LIMIT);
    let boot_log = std::fs::read_to_string(dir.join("boot.log")).unwrap_or_default();
    assert!(
        ended,
        "the container did not power off within {BOOT_LIMIT:?}:\n{boot_log}"
    );
    let out = std::fs::read_to_string(root.join("canopy-check.out"))
        .unwrap_or_else(|e| panic!("no check output ({e}); the boot:\n{boot_log}"));
    eprintln!(
        "{TEST}: boot, check and poweroff in {:.1} s:\n{out}",
        t0.elapsed().as_secs_f64()
    );
    let found: BTreeMap<&str, &str> = out
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k, v.trim()))
        .collect();
    let get = |k: &str| {
        *found
            .get(k)
            .unwrap_or_else(|| panic!("the check said nothing of {k}:\n{out}"))
    };
    let expect = |k: &str, want: &str| {
        assert_eq!(get(k), want, "{k}, in:\n{out}");
    };
    let contains = |k: &str, want: &str| {
        assert!(get(k).contains(want), "{k} lacks {want:?}, in:\n{out}");
    };

    // the check ran to its end, the units are valid
    expect("done", "yes");
    expect("verify_canopyd.service", "");
    expect("verify_canopy-switch@.service", "");
    // installed disabled (a fabric needs its configuration first); enabling works
    expect("enabled_before", "disabled");
    expect("enable_rc", "0");
    // both started from their units (Type=notify: the start returned at READY=1)
    expect("switch_start_rc", "0");
    expect("daemon_start_rc", "0");
    let sw = format!("canopy-switch@{SWITCH}");
    for u in [sw.as_str(), "canopyd"] {
        expect(&format!("active_{u}"), "active");
        // as the package's system user, with no_new_privs and no capability left
        expect(&format!("uid_{u}"), get("canopy_uid"));
        expect(&format!("nonewprivs_{u}"), "1");
        expect(&format!("capeff_{u}"), "0000000000000000");
        // stopped cleanly: exit status 0 on SIGTERM
        expect(&format!("stopped_{u}"), "inactive success 0");
    }
    assert_ne!(get("canopy_uid"), "0");
    // the daemon said READY once the switch ran its tables, and says so in STATUS
    expect(
        "status_canopyd",
        "fabric demo: 1/1 switches up, 1 current, ready",
    );
    expect(
        &format!("status_{sw}"),
        &format!("forwarding with tables {SWITCH} on 2 ports"),
    );
    // they answer: the switch's health, the daemon's fabric view and readiness
    contains("health", &format!("tables {SWITCH} (sliced)"));
    contains(
        "health",
        &format!("version {} (protocol", env!("CARGO_PKG_VERSION")),
    );
    contains(
        "fabric_status",
        "READY; 1/1 switches up, 1 with current tables",
    );
    expect("readyz", "HTTP/1.1 200 OK");
    // the switch printed its final counters into the journal and removed its socket
    expect("final_counters", "1");
    expect("socket_left", "");
    // purged while running: prerm stopped both, nothing of the package is left
    expect("restart_rc", "0");
    expect("purge_rc", "0");
    expect("left_running", "");
    expect("left_files", "");
}

const IMAGE_TEST: &str = "oci_image";

/// Removes a container however the test ends.
struct Container(String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("podman").args(["umount", &self.0]).output();
        let _ = Command::new("podman").args(["rm", "-f", &self.0]).output();
    }
}

/// Removes the test's image however the test ends.
struct Image(String);

impl Drop for Image {
    fn drop(&mut self) {
        let _ = Command::new("podman")
            .args(["image", "unmount", &self.0])
            .output();
        let _ = Command::new("podman").args(["rmi", "-f", &self.0]).output();
    }
}

/// The OCI image (`packaging/oci/build-image`, `docs/packaging.md`): built from the
/// package over a debootstrapped root, its configuration and OCI archive checked, then
/// its file system run as a container: the shipped switch answers `health`. `podman run`
/// is tried too; on a machine where podman cannot start containers (this sandbox has
/// no `CAP_SYS_RESOURCE`, and both crun and runc fail to set the container's rlimits)
/// that part says so and systemd-nspawn runs the image's file system instead.
#[test]
fn the_oci_image_is_built_from_the_package_and_runs() {
    let tools = [
        DEB_TOOLS[0],
        DEB_TOOLS[1],
        ("podman", "--version", "apt-get install podman"),
        (
            "systemd-nspawn",
            "--version",
            "apt-get install systemd-container",
        ),
    ];
    let Some(bins) = ready(IMAGE_TEST, &tools) else {
        return;
    };
    let (dir, _cleanup) = scratch(IMAGE_TEST);
    let deb = build_deb(&bins, &dir);
    let depends = run(
        "dpkg-deb -f",
        Command::new("dpkg-deb").arg("-f").arg(&deb).arg("Depends"),
    );
    // the root build-image would debootstrap, made once and kept
    let base = base_rootfs(&["iproute2"], &depends_names(&depends));
    let name = format!("localhost/canopy-test:{}", std::process::id());
    let image = Image(name.clone());
    let archive = dir.join("canopy-oci.tar");
    let out = run(
        "packaging/oci/build-image",
        Command::new(repo().join("packaging/oci/build-image"))
            .arg(&deb)
            .arg(&name)
            .env("CANOPY_ROOTFS", &base)
            .env("CANOPY_OCI_ARCHIVE", &archive)
            .env("CONTAINER_ENGINE", "podman"),
    );
    assert!(out.lines().any(|l| l.trim() == name), "{out}");

    // its configuration
    let config = run(
        "podman image inspect",
        Command::new("podman").args(["image", "inspect", &name, "--format", "{{json .Config}}"]),
    );
    let config: serde_json::Value = serde_json::from_str(config.trim()).expect("config JSON");
    assert_eq!(
        config["Entrypoint"],
        serde_json::json!(["/usr/bin/canopy-switch"])
    );
    assert_eq!(
        config["Cmd"],
        serde_json::json!(["run", "--config", "/etc/canopy/switch.toml"])
    );
    assert_eq!(
        config["Labels"]["org.opencontainers.image.version"],
        env!("CARGO_PKG_VERSION")
    );
    // the archive is an OCI image layout
    let listing = run("tar -tf", Command::new("tar").arg("-tf").arg(&archive));
    for f in ["oci-layout", "index.json"] {
        assert!(
            listing.lines().any(|l| l.trim_start_matches("./") == f),
            "{f} not in the OCI archive:\n{listing}"
        );
    }

    // its file system, run as a container (a container podman creates from the image,
    // its root run by systemd-nspawn): the shipped switch on its mem ports answers
    let cid = run(
        "podman create",
        Command::new("podman").args(["create", &name]),
    );
    let cid = cid.trim().lines().last().unwrap_or_default().to_string();
    let container = Container(cid.clone());
    let root = run("podman mount", Command::new("podman").args(["mount", &cid]));
    let root = PathBuf::from(root.trim());
    let sock = format!("/run/canopy/{SWITCH}.sock");
    let script = format!(
        "mkdir -p /run/canopy; \
         canopy-switch run --config /etc/canopy/switches/{SWITCH}.toml --log warn & pid=$!; \
         for i in $(seq 100); do [ -S {sock} ] && break; sleep 0.1; done; \
         canopy-switch ctl --socket {sock} health; rc=$?; \
         kill -TERM $pid; wait $pid; echo switch_exit=$?; exit $rc"
    );
    let health = run(
        "the image's switch, in systemd-nspawn",
        nspawn(&root).args(["--private-network", "bash", "-c", &script]),
    );
    assert!(health.contains("ports     2"), "{health}");
    assert!(
        health.contains(&format!(
            "version   {} (protocol",
            env!("CARGO_PKG_VERSION")
        )),
        "{health}"
    );
    assert!(health.contains("switch_exit=0"), "{health}");
    drop(container);
    drop(image);

    // and through podman itself, where it can start containers
    let name2 = format!("{name}-run");
    let _image2 = Image(name2.clone());
    let load = Command::new("podman")
        .args(["load", "-i"])
        .arg(&archive)
        .output()
        .expect("podman load");
    assert!(load.status.success(), "podman load: {load:?}");
    let loaded = String::from_utf8_lossy(&load.stdout);
    let id = loaded
        .lines()
        .find_map(|l| l.strip_prefix("Loaded image: "))
        .map(str::trim)
        .unwrap_or(&name)
        .to_string();
    let r = Command::new("podman")
        .args(["run", "--rm", "--network", "none", &id, "--version"])
        .output()
        .expect("podman run");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    let _ = Command::new("podman").args(["rmi", "-f", &id]).output();
    if !r.status.success() && said.contains("setrlimit") {
        eprintln!(
            "NOTE {IMAGE_TEST}: podman cannot start containers on this machine ({}); \
             the image's file system ran under systemd-nspawn above",
            said.trim()
        );
        return;
    }
    assert!(r.status.success(), "podman run: {said}");
    assert_eq!(
        said.trim(),
        format!("canopy-switch {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn depends_field_names() {
    assert_eq!(
        depends_names(
            "libc6 (>= 2.34), libc6 (>= 2.35), librte-eal23 (>= 22.11), passwd | adduser"
        ),
        vec!["libc6", "librte-eal23", "passwd"]
    );
}
