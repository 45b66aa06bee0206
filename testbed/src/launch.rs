//! Finding and starting the programs that forward frames, for fabrics (`up`, the drills)
//! and the vethbench alike: `canopy-switch`, the fabric's `canopyd` and bmv2's
//! `simple_switch`. Each program's command line is built here and nowhere else; the
//! process itself is started by [`crate::os::process`].

use crate::error::Result;
use crate::fabric::bmv2::Program;
use crate::os::{netns, process};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use thiserror::Error;

/// The switch.
pub const SWITCH: &str = "canopy-switch";
/// The fabric's control daemon.
pub const DAEMON: &str = "canopyd";
/// The control CLI (it generates bmv2's table entries).
pub const CANOPYCTL: &str = "canopyctl";
/// bmv2's switch.
pub const SIMPLE_SWITCH: &str = "simple_switch";
/// bmv2's switch with a P4Runtime server (built with PI).
pub const SIMPLE_SWITCH_GRPC: &str = "simple_switch_grpc";
/// The device id of a `simple_switch_grpc` (its P4Runtime device id too).
pub const BMV2_DEVICE_ID: u64 = 1;

/// The Thrift port of every `simple_switch` (each in its own namespace, so one port);
/// `simple_switch_CLI` talks to it.
pub const THRIFT_PORT: u16 = 9090;

/// A program that was asked for and is not there.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum FindError {
    /// A path given by the user (an option, a description key) that is no file.
    #[error("{name} binary {} (from {from}) does not exist", path.display())]
    Given {
        /// The program.
        name: String,
        /// The path given.
        path: PathBuf,
        /// Where it was given (`--switch-bin`, `fabric.toml: switch_bin`).
        from: String,
    },
    /// Not next to this executable nor on `PATH`.
    #[error("{name} not found next to this executable nor on PATH; build it (`cargo build --release {build})")]
    NotFound {
        /// The program.
        name: String,
        /// The rest of the build command and the alternative
        /// (`-p canopy-switch` or pass --switch-bin`).
        build: String,
    },
}

/// A program of this workspace: next to the running executable (its directory, or the
/// parent: test binaries live in `target/*/deps`, the programs in `target/*`), then on
/// `PATH`.
pub fn find_program(name: &str) -> Option<PathBuf> {
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(2) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    netns::which(name)
}

/// `given` (a path and where it was given) when there is one, which must exist;
/// otherwise [`find_program`]. `build` completes the build command of the error.
pub fn find(
    name: &str,
    given: Option<(PathBuf, String)>,
    build: &str,
) -> std::result::Result<PathBuf, FindError> {
    match given {
        Some((path, _)) if path.is_file() => Ok(path),
        Some((path, from)) => Err(FindError::Given {
            name: name.into(),
            path,
            from,
        }),
        None => find_program(name).ok_or_else(|| FindError::NotFound {
            name: name.into(),
            build: build.into(),
        }),
    }
}

/// `canopy-switch run --config CONFIG` in namespace `netns`, pinned to `pin` (the
/// vethbench's forwarder core) and with `--log LEVEL` when given.
pub fn switch_command(
    bin: &Path,
    netns: &str,
    config: &Path,
    pin: Option<usize>,
    log_level: Option<&str>,
) -> Command {
    let mut c = netns::exec(netns, pin);
    c.arg(bin).args(["run", "--config"]).arg(config);
    if let Some(l) = log_level {
        c.args(["--log", l]);
    }
    c
}

/// Start a fabric switch ([`switch_command`], not pinned) with its output in `log`
/// (appended to on a restart); it keeps running when the testbed exits.
pub fn start_switch(
    bin: &Path,
    netns: &str,
    config: &Path,
    log: &Path,
    append: bool,
) -> Result<Child> {
    let c = switch_command(bin, netns, config, None, None);
    process::spawn_logged(
        c,
        log,
        append,
        false,
        &format!("start canopy-switch in {netns}"),
    )
}

/// Start `canopyd --config CONFIG` in namespace `ns` (None: this one), output to `log`.
pub fn start_daemon(
    bin: &Path,
    config: &Path,
    log: &Path,
    append: bool,
    ns: Option<&str>,
) -> Result<Child> {
    let mut c = match ns {
        Some(ns) => {
            let mut c = netns::exec(ns, None);
            c.arg(bin);
            c
        }
        None => Command::new(bin),
    };
    c.arg("--config").arg(config);
    process::spawn_logged(c, log, append, false, "start canopyd")
}

/// A bmv2 switch in namespace `netns` (pinned to `pin` when given): Thrift on
/// [`THRIFT_PORT`], its notification socket at `notifications` (a file path, which
/// namespaces do not separate: one per switch), port `i` on `ifnames[i]`; with `pcap`,
/// capturing every port into that directory (`--pcap`: `<interface>_in.pcap`,
/// `<interface>_out.pcap`). It runs `program`: device 0 with the compiled program, or
/// device [`BMV2_DEVICE_ID`] with no program and its P4Runtime server on a Unix socket.
pub fn simple_switch_command(
    bin: &Path,
    netns: &str,
    ifnames: &[String],
    program: Program<'_>,
    notifications: &Path,
    pin: Option<usize>,
    pcap: Option<&Path>,
) -> Command {
    let mut c = netns::exec(netns, pin);
    let device = match program {
        Program::Json(_) => 0,
        Program::P4Runtime(_) => BMV2_DEVICE_ID,
    };
    c.arg(bin).args([
        "--device-id",
        &device.to_string(),
        "--thrift-port",
        &THRIFT_PORT.to_string(),
    ]);
    c.arg("--notifications-addr")
        .arg(format!("ipc://{}", notifications.display()));
    for (i, ifn) in ifnames.iter().enumerate() {
        c.args(["-i", &format!("{i}@{ifn}")]);
    }
    if let Some(dir) = pcap {
        c.arg("--pcap").arg(dir);
    }
    match program {
        Program::Json(json) => {
            c.arg(json);
        }
        Program::P4Runtime(socket) => {
            // the target's own options follow `--`
            c.args(["--no-p4", "--", "--grpc-server-addr"])
                .arg(format!("unix:{}", socket.display()));
        }
    }
    c
}

/// `canopy-switch host --config CONFIG`, in this namespace (the host opens each switch's
/// ports in its own), with its output in `log`; it keeps running when the testbed exits.
pub fn start_host(bin: &Path, config: &Path, log: &Path) -> Result<Child> {
    let mut c = Command::new(bin);
    c.args(["host", "--config"]).arg(config);
    process::spawn_logged(c, log, false, false, "start canopy-switch host")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(c: &Command) -> Vec<String> {
        std::iter::once(c.get_program())
            .chain(c.get_args())
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn command_lines() {
        let c = switch_command(
            Path::new("/b/canopy-switch"),
            "f-s0",
            Path::new("/s/s0.toml"),
            None,
            None,
        );
        assert_eq!(
            args(&c).join(" "),
            "ip netns exec f-s0 /b/canopy-switch run --config /s/s0.toml"
        );
        let c = switch_command(
            Path::new("cs"),
            "ns",
            Path::new("c.toml"),
            Some(1),
            Some("warn"),
        );
        assert_eq!(
            args(&c).join(" "),
            "ip netns exec ns taskset -c 1 cs run --config c.toml --log warn"
        );
        let ifs = vec!["fa".to_string(), "fb".to_string()];
        let c = simple_switch_command(
            Path::new("simple_switch"),
            "ns",
            &ifs,
            Program::Json(Path::new("p.json")),
            Path::new("/w/n.ipc"),
            Some(2),
            None,
        );
        assert_eq!(
            args(&c).join(" "),
            "ip netns exec ns taskset -c 2 simple_switch --device-id 0 --thrift-port 9090 \
             --notifications-addr ipc:///w/n.ipc -i 0@fa -i 1@fb p.json"
        );
        let c = simple_switch_command(
            Path::new("simple_switch"),
            "ns",
            &ifs,
            Program::Json(Path::new("p.json")),
            Path::new("/w/n.ipc"),
            None,
            Some(Path::new("/cap/s0")),
        );
        assert_eq!(
            args(&c).join(" "),
            "ip netns exec ns simple_switch --device-id 0 --thrift-port 9090 \
             --notifications-addr ipc:///w/n.ipc -i 0@fa -i 1@fb --pcap /cap/s0 p.json"
        );
        let c = simple_switch_command(
            Path::new("simple_switch_grpc"),
            "ns",
            &ifs,
            Program::P4Runtime(Path::new("/st/s3.p4rt")),
            Path::new("/w/n.ipc"),
            None,
            None,
        );
        assert_eq!(
            args(&c).join(" "),
            "ip netns exec ns simple_switch_grpc --device-id 1 --thrift-port 9090 \
             --notifications-addr ipc:///w/n.ipc -i 0@fa -i 1@fb --no-p4 -- \
             --grpc-server-addr unix:/st/s3.p4rt"
        );
    }

    #[test]
    fn a_given_path_must_exist_and_the_search_names_the_build() {
        let sh = netns::which("sh").unwrap();
        assert_eq!(find("sh", Some((sh.clone(), "--x".into())), ""), Ok(sh));
        let e = find(
            "x",
            Some(("/nonexistent/x".into(), "f.toml: x_bin".into())),
            "",
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "x binary /nonexistent/x (from f.toml: x_bin) does not exist"
        );
        let e = find("surely-not-a-program-cl", None, "-p y` or pass --y");
        assert_eq!(
            e.unwrap_err().to_string(),
            "surely-not-a-program-cl not found next to this executable nor on PATH; build it (`cargo build --release -p y` or pass --y)"
        );
    }
}
