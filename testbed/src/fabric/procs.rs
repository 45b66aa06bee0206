//! Finding and stopping the fabric's own `canopy-switch` processes: a pid is only ever
//! signalled after `/proc/PID/cmdline` shows that it is still a `canopy-switch` (or the
//! `ip netns exec` about to become one) whose `--config` lies in the fabric's state
//! directory.

use crate::launch;
use crate::os::sys;
use std::path::Path;
use std::time::{Duration, Instant};

/// `argv` of `pid`, None when it is gone (or a zombie, whose cmdline is empty).
pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if raw.is_empty() {
        return None;
    }
    Some(
        raw.split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// The file of the fabric a bmv2 switch's command line names: the program JSON of a
/// `simple_switch`, the P4Runtime socket (`--grpc-server-addr unix:PATH`) of a
/// `simple_switch_grpc`.
fn bmv2_file(argv: &[String]) -> Option<&Path> {
    let socket = argv
        .windows(2)
        .find(|w| w[0] == "--grpc-server-addr")
        .and_then(|w| w[1].strip_prefix("unix:"));
    socket
        .or_else(|| {
            argv.iter()
                .skip(1)
                .map(String::as_str)
                .find(|a| a.ends_with(".json"))
        })
        .map(Path::new)
}

/// Whether `argv` is a fabric process: `canopy-switch run --config CFG` (or `ip netns
/// exec NS canopy-switch ...` before its exec), or the fabric's `canopyd --config CFG`,
/// with `CFG` under `dir`; or a bmv2 `simple_switch` whose program JSON (a
/// `simple_switch_grpc` whose P4Runtime socket) is under `dir`; or a guest's QEMU whose
/// firmware configuration files are under `dir`.
pub fn is_fabric_switch(argv: &[String], dir: &Path) -> bool {
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let Some(a0) = argv.first() else { return false };
    let bmv2_bins = [launch::SIMPLE_SWITCH, launch::SIMPLE_SWITCH_GRPC];
    let is_switch = [launch::SWITCH, launch::DAEMON]
        .iter()
        .chain(&bmv2_bins)
        .any(|b| base(a0) == *b)
        || (base(a0) == "ip"
            && argv.get(1).map(String::as_str) == Some("netns")
            && argv.get(2).map(String::as_str) == Some("exec"));
    let config_here = argv
        .windows(2)
        .any(|w| w[0] == "--config" && Path::new(&w[1]).starts_with(dir));
    // the bmv2 target: `simple_switch ... <dir>/canopy.json`, which has no --config
    let bmv2 = argv.iter().any(|a| bmv2_bins.contains(&base(a).as_str()))
        && bmv2_file(argv).is_some_and(|f| f.starts_with(dir));
    // a guest: `qemu-system-x86_64 ... -fw_cfg name=...,file=<dir>/...`
    let guest = (is_switch || base(a0) == crate::vm::qemu::QEMU)
        && argv.iter().any(|a| base(a) == crate::vm::qemu::QEMU)
        && argv.iter().any(|a| {
            a.split(',')
                .filter_map(|kv| kv.strip_prefix("file="))
                .any(|f| Path::new(f).starts_with(dir))
        });
    (is_switch && (config_here || bmv2)) || guest
}

/// Whether `argv` is a switch of fabric `name` under any state root: a
/// [`is_fabric_switch`] whose `--config` is `<root>/<name>/<machine>/<file>`. Used for
/// processes found inside the fabric's own namespaces (when `down` runs with another
/// `--state-root` than `up` did).
pub fn is_named_fabric_switch(argv: &[String], name: &str) -> bool {
    // `--config CFG`, or a bmv2 switch's program JSON or P4Runtime socket
    let Some(cfg) = argv
        .windows(2)
        .find(|w| w[0] == "--config")
        .map(|w| Path::new(&w[1]))
        .or_else(|| bmv2_file(argv))
    else {
        return false;
    };
    // <root>/<name>/<machine>/s<i>.toml
    cfg.parent()
        .and_then(Path::parent)
        .filter(|d| d.file_name().is_some_and(|f| f == name))
        .is_some_and(|dir| is_fabric_switch(argv, dir))
}

/// Whether `pid` is alive (not gone, not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => {
            // state is the field after the ")" that closes comm
            let st = s
                .rsplit_once(')')
                .map(|(_, r)| r.trim_start().chars().next());
            !matches!(st, Some(Some('Z' | 'X')) | None)
        }
        Err(_) => false,
    }
}

/// Every live process whose cmdline is a fabric switch under `dir`.
pub fn scan(dir: &Path) -> Vec<u32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let mut out: Vec<u32> = rd
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| cmdline(pid).is_some_and(|a| is_fabric_switch(&a, dir)))
        .collect();
    out.sort_unstable();
    out
}

/// Every live process that [`is_named_fabric_switch`] of fabric `name` under any state
/// root: finds the fabric's `canopyd` (which runs in the initial namespace) when `down`
/// runs with another `--state-root` than `up` did.
pub fn scan_named(name: &str) -> Vec<u32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let mut out: Vec<u32> = rd
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| cmdline(pid).is_some_and(|a| is_named_fabric_switch(&a, name)))
        .collect();
    out.sort_unstable();
    out
}

/// Stop the fabric switches among `pids` (each verified first): SIGTERM, up to
/// `grace` for them to exit, then SIGKILL. Returns the pids that were signalled.
pub fn stop(pids: &[u32], dir: &Path, grace: Duration) -> Vec<u32> {
    stop_if(pids, grace, |a| is_fabric_switch(a, dir))
}

/// [`stop`] with another test of the command line (checked before every signal).
pub fn stop_if(pids: &[u32], grace: Duration, ours_: impl Fn(&[String]) -> bool) -> Vec<u32> {
    let ours: Vec<u32> = pids
        .iter()
        .copied()
        .filter(|&p| alive(p) && cmdline(p).is_some_and(|a| ours_(&a)))
        .collect();
    for &p in &ours {
        // spawned with process_group(0): the group is the switch alone
        if !sys::signal_group(p, sys::SIGTERM) {
            sys::signal_pid(p, sys::SIGTERM);
        }
    }
    let deadline = Instant::now() + grace;
    while ours.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &p in &ours {
        if alive(p) && cmdline(p).is_some_and(|a| ours_(&a)) {
            tracing::warn!(pid = p, "switch ignored SIGTERM; sending SIGKILL");
            sys::signal_pid(p, sys::SIGKILL);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    while ours.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    ours
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn recognises_a_guest_of_the_fabric_dir() {
        let d = Path::new("/run/canopy-testbed/ft");
        let q = |file: &str| {
            v(&[
                "qemu-system-x86_64",
                "-name",
                "core-c0",
                "-fw_cfg",
                &format!("name=opt/canopy/token,file={file}"),
            ])
        };
        assert!(is_fabric_switch(
            &q("/run/canopy-testbed/ft/local/s4.token"),
            d
        ));
        assert!(!is_fabric_switch(
            &q("/run/canopy-testbed/ft2/local/s4.token"),
            d
        ));
        let mut pre = v(&["ip", "netns", "exec", "ft-vm"]);
        pre.extend(q("/run/canopy-testbed/ft/local/s4.token"));
        assert!(is_fabric_switch(&pre, d));
        // another program with such an argument
        let mut other = q("/run/canopy-testbed/ft/local/s4.token");
        other[0] = "/usr/bin/cat".into();
        assert!(!is_fabric_switch(&other, d));
    }

    #[test]
    fn recognises_only_switches_of_the_fabric_dir() {
        let d = Path::new("/run/canopy-testbed/ft");
        assert!(is_fabric_switch(
            &v(&[
                "/x/canopy-switch",
                "run",
                "--config",
                "/run/canopy-testbed/ft/local/s0.toml"
            ]),
            d
        ));
        assert!(is_fabric_switch(
            &v(&[
                "ip",
                "netns",
                "exec",
                "ft-s0",
                "/x/canopy-switch",
                "run",
                "--config",
                "/run/canopy-testbed/ft/local/s0.toml"
            ]),
            d
        ));
        // another fabric's switch, another program, no --config
        assert!(!is_fabric_switch(
            &v(&[
                "/x/canopy-switch",
                "run",
                "--config",
                "/run/canopy-testbed/ft2/local/s0.toml"
            ]),
            d
        ));
        assert!(!is_fabric_switch(
            &v(&[
                "/bin/sleep",
                "--config",
                "/run/canopy-testbed/ft/local/s0.toml"
            ]),
            d
        ));
        assert!(!is_fabric_switch(&v(&["/x/canopy-switch", "run"]), d));
        assert!(!is_fabric_switch(&[], d));
        // the bmv2 target: simple_switch with the program JSON in the state directory
        let ss = v(&[
            "ip",
            "netns",
            "exec",
            "ft-s0",
            "/usr/local/bin/simple_switch",
            "--thrift-port",
            "9090",
            "-i",
            "0@s0p0",
            "/run/canopy-testbed/ft/local/canopy.json",
        ]);
        assert!(is_fabric_switch(&ss, d));
        assert!(is_named_fabric_switch(&ss, "ft"));
        assert!(!is_fabric_switch(&ss, Path::new("/run/canopy-testbed/ft2")));
        assert!(!is_fabric_switch(
            &v(&["/usr/local/bin/simple_switch", "/tmp/other.json"]),
            d
        ));
        assert!(!is_fabric_switch(
            &v(&["/bin/cat", "/run/canopy-testbed/ft/local/canopy.json"]),
            d
        ));
        // under canopyd: simple_switch_grpc with its P4Runtime socket there
        let grpc = v(&[
            "ip",
            "netns",
            "exec",
            "ft-s0",
            "/usr/local/bin/simple_switch_grpc",
            "-i",
            "0@s0p0",
            "--no-p4",
            "--",
            "--grpc-server-addr",
            "unix:/run/canopy-testbed/ft/local/s0.p4rt",
        ]);
        assert!(is_fabric_switch(&grpc, d));
        assert!(is_named_fabric_switch(&grpc, "ft"));
        assert!(!is_fabric_switch(
            &grpc,
            Path::new("/run/canopy-testbed/ft2")
        ));
        assert!(!is_fabric_switch(
            &v(&[
                "/usr/local/bin/simple_switch_grpc",
                "--grpc-server-addr",
                "0.0.0.0:9559"
            ]),
            d
        ));
        // by fabric name, under any state root
        let a = v(&[
            "/x/canopy-switch",
            "run",
            "--config",
            "/elsewhere/ft/local/s0.toml",
        ]);
        assert!(is_named_fabric_switch(&a, "ft"));
        assert!(!is_named_fabric_switch(&a, "f"));
        assert!(!is_named_fabric_switch(&a, "local"));
        assert!(!is_named_fabric_switch(
            &v(&["/bin/sh", "--config", "/elsewhere/ft/local/s0.toml"]),
            "ft"
        ));
    }

    #[test]
    fn own_process_is_alive_and_has_a_cmdline() {
        let me = std::process::id();
        assert!(alive(me));
        assert!(cmdline(me).is_some());
        assert!(!alive(u32::MAX - 1));
        // never signalled: not a fabric switch
        assert!(stop(&[me], Path::new("/nonexistent"), Duration::from_millis(10)).is_empty());
    }
}
