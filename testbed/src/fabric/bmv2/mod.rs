//! The `bmv2` target of the testbed (`target = "bmv2"`, `docs/testbed.md`): the same
//! fabric with one bmv2 switch per switch, running `p4/canopy.p4` compiled by `p4c`.
//! Under canopyd each is a `simple_switch_grpc` that canopyd programs and follows over
//! P4Runtime, as it does canopy-switch; without canopyd each is a `simple_switch`
//! programmed once through its Thrift CLI with the entries `canopyctl p4-entries`
//! generates from the tables `canopy-switch` would compute (`docs/p4.md`). Files: this
//! one (the tools, compiling and starting), `cli.rs` (the Thrift CLI), `p4rt.rs`
//! (reading counters over P4Runtime).

use super::desc::Desc;
use super::state::{State, SwitchState};
use crate::error::{Result, TestbedError};
use crate::launch;
use crate::os::{netns, process};
use canopy_control::p4::schema;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

mod cli;
mod p4rt;
pub use super::desc::P4Files;
pub use cli::Cli;
pub use p4rt::Observer;

/// The program's counters (`p4/canopy.p4`, docs/p4.md §2): frames received and sent
/// per port, and drops per (ingress port, reason).
pub const PORT_RX: &str = schema::COUNTERS[schema::PORT_RX].name;
/// See [`PORT_RX`].
pub const PORT_TX: &str = schema::COUNTERS[schema::PORT_TX].name;
/// See [`PORT_RX`].
pub const PORT_DROPS: &str = schema::COUNTERS[schema::PORT_DROPS].name;

/// How a `simple_switch` binary was built, read from the binary itself: p4lang's
/// performance build (`--disable-logging-macros --disable-elogger`) compiles the
/// per-packet log messages and the event logger out, so their strings are not in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bmv2Build {
    /// The per-packet logging macros are compiled in (`BMLOG_DEBUG_PKT` messages).
    pub logging_macros: bool,
    /// The event logger (nanomsg) is compiled in.
    pub event_logger: bool,
}

/// A message only the logging macros put into the binary.
const LOG_MARK: &[u8] = b"Processing packet received on port";
/// A name only the event logger puts into the binary.
const ELOG_MARK: &[u8] = b"EventLogger";

impl Bmv2Build {
    /// Read `simple_switch` at `path`.
    pub fn of(path: &Path) -> std::io::Result<Bmv2Build> {
        let bytes = std::fs::read(path)?;
        Ok(Self::of_bytes(&bytes))
    }

    /// The build of the binary `bytes`.
    pub fn of_bytes(bytes: &[u8]) -> Bmv2Build {
        let has = |m: &[u8]| bytes.windows(m.len()).any(|w| w == m);
        Bmv2Build {
            logging_macros: has(LOG_MARK),
            event_logger: has(ELOG_MARK),
        }
    }

    /// In words, for the reports.
    pub fn describe(&self) -> String {
        match (self.logging_macros, self.event_logger) {
            (false, false) => {
                "performance build (logging macros and event logger compiled out)".into()
            }
            (true, true) => "default build (logging macros and event logger compiled in; p4lang's performance build is the one to measure)"
                .into(),
            (l, e) => format!(
                "mixed build (logging macros {}, event logger {})",
                if l { "in" } else { "out" },
                if e { "in" } else { "out" }
            ),
        }
    }
}

/// The tools the target needs, found before anything is created (absolute paths, kept
/// in the state file).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tools {
    /// The P4 program.
    pub program: PathBuf,
    /// `p4c`.
    pub p4c: PathBuf,
    /// The switch: `simple_switch`, or `simple_switch_grpc` when canopyd programs the
    /// fabric over P4Runtime.
    pub simple_switch: PathBuf,
    /// How the switches get their tables: programmed once at `up` through
    /// `simple_switch_CLI`, or (None) by canopyd over P4Runtime.
    pub cli: Option<Cli>,
}

fn err(desc: &Desc, detail: impl Into<String>) -> TestbedError {
    TestbedError::fabric(&desc.name, detail)
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

/// What a bmv2 switch is started with.
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    /// The compiled program (`simple_switch`, tables through its Thrift CLI).
    Json(&'a Path),
    /// No program, and its P4Runtime server on this Unix socket (`simple_switch_grpc`:
    /// canopyd pushes the program and the tables).
    P4Runtime(&'a Path),
}

impl Tools {
    /// Find every tool (`[bmv2]` keys, then the defaults); the error names what is
    /// missing and how to get it. A fabric under canopyd ([`Desc::daemon`]) needs
    /// `simple_switch_grpc`; one without needs `simple_switch`, `simple_switch_CLI` and
    /// `canopyctl`.
    pub fn find(desc: &Desc) -> Result<Tools> {
        let b = &desc.raw.bmv2;
        let pick = |given: &Option<PathBuf>, key: &str, name: &str, found: Option<PathBuf>| {
            let abs = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
            match given {
                Some(p) if p.is_file() => Ok(abs(p.clone())),
                Some(p) => Err(err(
                    desc,
                    format!("bmv2.{key} = {}: no such file", p.display()),
                )),
                None => found.map(abs).ok_or_else(|| {
                    err(
                        desc,
                        format!(
                            "target = \"bmv2\" needs {name}, not found on PATH (set bmv2.{key}; installing p4c and bmv2: docs/p4-install.md)"
                        ),
                    )
                }),
            }
        };
        let program = pick(&b.program, "program", "p4/canopy.p4", default_program())?;
        let p4c = pick(&b.p4c, "p4c", "p4c", netns::which("p4c"))?;
        if desc.daemon {
            let grpc = launch::SIMPLE_SWITCH_GRPC;
            let name = format!("{grpc} (bmv2 built with PI) for canopyd to drive it over P4Runtime, or [canopyd] enabled = false");
            return Ok(Tools {
                program,
                p4c,
                simple_switch: pick(&b.simple_switch_grpc, grpc, &name, netns::which(grpc))?,
                cli: None,
            });
        }
        Ok(Tools {
            program,
            p4c,
            simple_switch: pick(
                &b.simple_switch,
                "simple_switch",
                "simple_switch",
                netns::which(launch::SIMPLE_SWITCH),
            )?,
            cli: Some(Cli {
                cli: pick(
                    &b.simple_switch_cli,
                    "simple_switch_cli",
                    "simple_switch_CLI",
                    netns::which("simple_switch_CLI"),
                )?,
                canopyctl: pick(
                    &b.canopyctl,
                    "canopyctl",
                    "canopyctl",
                    launch::find_program(launch::CANOPYCTL),
                )?,
            }),
        })
    }

    /// canopyd programs the switches over P4Runtime (`simple_switch_grpc`, no CLI).
    pub fn under_canopyd(&self) -> bool {
        self.cli.is_none()
    }

    /// The files [`Tools::compile`] writes into `out`.
    pub fn outputs(&self, out: &Path) -> P4Files {
        let stem = self
            .program
            .file_stem()
            .map_or_else(|| "canopy".into(), |s| s.to_string_lossy().into_owned());
        P4Files {
            json: out.join(format!("{stem}.json")),
            p4info: out.join(format!("{stem}.p4info.bin")),
        }
    }

    /// Compile the program into `out` (`p4c --target bmv2 --arch v1model`, with its
    /// P4Info in binary form).
    pub fn compile(&self, desc: &Desc, out: &Path) -> Result<P4Files> {
        std::fs::create_dir_all(out)
            .map_err(|e| TestbedError::io(format!("create {}", out.display()), e))?;
        let files = self.outputs(out);
        let o = Command::new(&self.p4c)
            .args(["--target", "bmv2", "--arch", "v1model", "-o"])
            .arg(out)
            .arg("--p4runtime-files")
            .arg(&files.p4info)
            .arg(&self.program)
            .output()
            .map_err(|e| TestbedError::io(format!("run {}", self.p4c.display()), e))?;
        if !o.status.success() || !files.json.is_file() || !files.p4info.is_file() {
            return Err(err(
                desc,
                format!(
                    "p4c could not compile {}: {}",
                    self.program.display(),
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            ));
        }
        Ok(files)
    }

    /// What switch `files` of a fabric whose P4Runtime sockets are `socket` starts
    /// with: the program, or (under canopyd) its P4Runtime socket.
    pub fn start_with<'a>(&self, files: &'a P4Files, socket: &'a Path) -> Program<'a> {
        match self.cli {
            Some(_) => Program::Json(&files.json),
            None => Program::P4Runtime(socket),
        }
    }

    /// Start the switch in namespace `netns` with port i on `ifnames[i]`, output to
    /// `log` (appended to with `append`), in its own process group; with `pcap`,
    /// capturing into that directory (created here).
    pub fn spawn(
        &self,
        netns: &str,
        ifnames: &[String],
        program: Program<'_>,
        (log, append): (&Path, bool),
        pcap: Option<&Path>,
    ) -> Result<Child> {
        // the notification socket is a file path: one per switch, next to its log
        let ipc = log.with_extension("notifications.ipc");
        if let Some(d) = pcap {
            std::fs::create_dir_all(d)
                .map_err(|e| TestbedError::io(format!("create {}", d.display()), e))?;
        }
        let c = launch::simple_switch_command(
            &self.simple_switch,
            netns,
            ifnames,
            program,
            &ipc,
            None,
            pcap,
        );
        let what = format!("start {} in {netns}", self.switch_name());
        process::spawn_logged(c, log, append, false, &what)
    }

    /// Start bmv2 switch `sw` of fabric `st` again (a drill), as `up` started it, its
    /// log appended to.
    pub fn restart(&self, st: &State, sw: &SwitchState) -> Result<Child> {
        let desc = st.desc()?;
        let s = desc.topo.switch_index(&sw.name).ok_or_else(|| {
            TestbedError::fabric(&st.name, format!("{}: not in the topology", sw.name))
        })? as u32;
        let files = self.outputs(&st.dir);
        self.spawn(
            &sw.netns,
            &desc.switch_ifnames(s),
            self.start_with(&files, &sw.socket),
            (&sw.log, true),
            desc.capture_dir(s).as_deref(),
        )
    }

    /// The switch's program name, for messages.
    pub fn switch_name(&self) -> &'static str {
        match self.cli {
            Some(_) => launch::SIMPLE_SWITCH,
            None => launch::SIMPLE_SWITCH_GRPC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_is_read_from_the_binary() {
        let default = [&b"\x7fELF..."[..], LOG_MARK, b"...", ELOG_MARK, b"..."].concat();
        let b = Bmv2Build::of_bytes(&default);
        assert_eq!((b.logging_macros, b.event_logger), (true, true));
        assert!(
            b.describe().starts_with("default build"),
            "{}",
            b.describe()
        );
        let perf = Bmv2Build::of_bytes(b"\x7fELF... Processing packet ... EventLog");
        assert_eq!((perf.logging_macros, perf.event_logger), (false, false));
        assert!(perf.describe().starts_with("performance build"));
        let mixed = Bmv2Build::of_bytes(&[LOG_MARK, b"x"].concat());
        assert_eq!(
            mixed.describe(),
            "mixed build (logging macros in, event logger out)"
        );
        // the real binaries, where installed (docs/p4-install.md)
        for (path, perf) in [
            ("/usr/local/bin/simple_switch", false),
            ("/opt/bmv2-perf/bin/simple_switch", true),
        ] {
            if let Ok(b) = Bmv2Build::of(std::path::Path::new(path)) {
                assert_eq!(b.logging_macros, !perf, "{path}");
            }
        }
    }
}
