//! The `bmv2` target of the testbed (`target = "bmv2"`, `docs/testbed.md`): the same
//! fabric with one bmv2 `simple_switch` per switch, running `p4/canopy.p4` compiled by
//! `p4c`, each programmed with the entries `canopyctl p4-entries` generates from the
//! tables `canopy-switch` would compute (`docs/p4.md`).

use super::desc::Desc;
use crate::error::{Result, TestbedError};
use crate::netns;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Thrift port of every `simple_switch` (each in its own namespace, so one port).
pub const THRIFT_PORT: u16 = 9090;

/// The tools the target needs, found before anything is created.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The P4 program.
    pub program: PathBuf,
    /// `p4c`.
    pub p4c: PathBuf,
    /// `simple_switch`.
    pub simple_switch: PathBuf,
    /// `simple_switch_CLI`.
    pub cli: PathBuf,
    /// `canopyctl`.
    pub canopyctl: PathBuf,
}

fn err(desc: &Desc, detail: impl Into<String>) -> TestbedError {
    TestbedError::Fabric {
        fabric: desc.name.clone(),
        detail: detail.into(),
    }
}

/// A file next to this executable (or its parent: `target/debug/deps/..`).
fn next_to_exe(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `p4/canopy.p4` of the source tree this binary was built in (`target/<profile>/` is
/// two or three levels below it), then of the current directory.
fn default_program() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(4)
        .map(|d| d.join("p4/canopy.p4"))
        .chain(std::iter::once(PathBuf::from("p4/canopy.p4")))
        .find(|p| p.is_file())
}

impl Tools {
    /// Find every tool (`[bmv2]` keys, then the defaults); the error names what is
    /// missing and how to get it.
    pub fn find(desc: &Desc) -> Result<Tools> {
        let b = &desc.raw.bmv2;
        let pick = |given: &Option<PathBuf>, key: &str, name: &str, found: Option<PathBuf>| {
            match given {
                Some(p) if p.is_file() => Ok(p.clone()),
                Some(p) => Err(err(
                    desc,
                    format!("bmv2.{key} = {}: no such file", p.display()),
                )),
                None => found.ok_or_else(|| {
                    err(
                        desc,
                        format!(
                            "target = \"bmv2\" needs {name}, not found on PATH (set bmv2.{key}; installing p4c and bmv2: docs/p4.md)"
                        ),
                    )
                }),
            }
        };
        let abs = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
        Ok(Tools {
            program: abs(pick(
                &b.program,
                "program",
                "p4/canopy.p4",
                default_program(),
            )?),
            p4c: pick(&b.p4c, "p4c", "p4c", netns::which("p4c"))?,
            simple_switch: pick(
                &b.simple_switch,
                "simple_switch",
                "simple_switch",
                netns::which("simple_switch"),
            )?,
            cli: pick(
                &b.simple_switch_cli,
                "simple_switch_cli",
                "simple_switch_CLI",
                netns::which("simple_switch_CLI"),
            )?,
            canopyctl: abs(pick(
                &b.canopyctl,
                "canopyctl",
                "canopyctl",
                next_to_exe("canopyctl").or_else(|| netns::which("canopyctl")),
            )?),
        })
    }

    /// Compile the program into `out` (`p4c --target bmv2 --arch v1model`); the JSON.
    pub fn compile(&self, desc: &Desc, out: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(out)
            .map_err(|e| TestbedError::io(format!("create {}", out.display()), e))?;
        let o = Command::new(&self.p4c)
            .args(["--target", "bmv2", "--arch", "v1model", "-o"])
            .arg(out)
            .arg(&self.program)
            .output()
            .map_err(|e| TestbedError::io(format!("run {}", self.p4c.display()), e))?;
        let json = out.join(
            self.program
                .file_stem()
                .map(|s| format!("{}.json", s.to_string_lossy()))
                .unwrap_or_else(|| "canopy.json".into()),
        );
        if !o.status.success() || !json.is_file() {
            return Err(err(
                desc,
                format!(
                    "p4c could not compile {}: {}",
                    self.program.display(),
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            ));
        }
        Ok(json)
    }

    /// Start `simple_switch` in namespace `netns` with port i on `ifnames[i]`, output
    /// to `log`, in its own process group.
    pub fn spawn(&self, netns: &str, ifnames: &[String], json: &Path, log: &Path) -> Result<Child> {
        use std::os::unix::process::CommandExt;
        let lf = std::fs::File::create(log)
            .map_err(|e| TestbedError::io(format!("create {}", log.display()), e))?;
        let lf2 = lf.try_clone().map_err(|e| TestbedError::io("dup log", e))?;
        // the notification socket is a file path: one per switch (the namespaces do
        // not separate it), next to its log
        let ipc = log.with_extension("notifications.ipc");
        let mut c = Command::new("ip");
        c.args(["netns", "exec", netns])
            .arg(&self.simple_switch)
            .args([
                "--device-id",
                "0",
                "--thrift-port",
                &THRIFT_PORT.to_string(),
            ]);
        c.arg("--notifications-addr")
            .arg(format!("ipc://{}", ipc.display()));
        for (i, ifn) in ifnames.iter().enumerate() {
            c.args(["-i", &format!("{i}@{ifn}")]);
        }
        c.arg(json)
            .stdin(Stdio::null())
            .stdout(lf)
            .stderr(lf2)
            .process_group(0)
            .spawn()
            .map_err(|e| TestbedError::io(format!("start simple_switch in {netns}"), e))
    }

    /// The entries of switch `switch` (`canopyctl p4-entries ... --format bmv2-cli`).
    pub fn entries(&self, desc: &Desc, switch: &str) -> Result<String> {
        let o = Command::new(&self.canopyctl)
            .arg("p4-entries")
            .arg(desc.raw.topology.get_ref())
            .args(["--kind", desc.kind.name(), "--switch", switch])
            .args(["--format", "bmv2-cli"])
            .output()
            .map_err(|e| TestbedError::io(format!("run {}", self.canopyctl.display()), e))?;
        if !o.status.success() {
            return Err(err(
                desc,
                format!(
                    "canopyctl p4-entries for {switch}: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            ));
        }
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    }

    /// Feed `entries` to the `simple_switch_CLI` of the switch in `netns`, retrying
    /// until its Thrift server answers (at most until `deadline`). An entry the switch
    /// refuses fails with the CLI's message.
    pub fn program(
        &self,
        desc: &Desc,
        netns: &str,
        switch: &str,
        entries: &str,
        deadline: Instant,
    ) -> Result<()> {
        loop {
            let mut child = Command::new("ip")
                .args(["netns", "exec", netns])
                .arg(&self.cli)
                .args(["--thrift-port", &THRIFT_PORT.to_string()])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| TestbedError::io(format!("run simple_switch_CLI in {netns}"), e))?;
            if let Some(mut i) = child.stdin.take() {
                // a CLI that exits early (no Thrift server yet) closes its stdin
                let _ = i.write_all(entries.as_bytes());
            }
            let o = child
                .wait_with_output()
                .map_err(|e| TestbedError::io("simple_switch_CLI", e))?;
            let out = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let not_up = out.contains("Could not connect") || out.contains("TTransportException");
            if o.status.success() && !not_up {
                let bad: Vec<&str> = out
                    .lines()
                    .filter(|l| l.contains("Error") || l.contains("Invalid"))
                    .take(3)
                    .collect();
                if bad.is_empty() {
                    return Ok(());
                }
                return Err(err(
                    desc,
                    format!(
                        "simple_switch of {switch} refused entries: {}",
                        bad.join(" | ")
                    ),
                ));
            }
            if Instant::now() > deadline {
                return Err(err(
                    desc,
                    format!(
                        "simple_switch of {switch} did not accept its entries in time: {}",
                        out.lines().rev().take(2).collect::<Vec<_>>().join(" | ")
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}
