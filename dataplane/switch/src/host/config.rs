//! A shared host's configuration file (TOML, strict): `[host]` (its polling threads and
//! control socket) and one `[[switch]]` per switch (a name, the switch's own
//! configuration file, the namespace its ports are in). Each error names the file and
//! the key (`host.threads`, `switch[2].netns`, …). Schema: `docs/shared-host.md`.

use crate::config::parse::{bad, poll_mode_of, read_toml, Refusal};
use crate::config::{ConfigError, PollName, MAX_WORKERS};
use canopy_dataplane::engine::PollMode;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Most switches one host runs.
pub const MAX_SWITCHES: usize = 1024;

/// `[host]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSection {
    /// Polling threads (default 1).
    #[serde(default = "one")]
    pub threads: usize,
    /// `busy` (default) or `adaptive`.
    #[serde(default = "busy")]
    pub mode: PollName,
    /// Adaptive: empty rounds before sleeping.
    pub spins: Option<u32>,
    /// Adaptive: longest sleep (µs).
    pub max_sleep_us: Option<u64>,
    /// CPUs to pin the threads to (thread `i` to `pin_cores[i % len]`).
    #[serde(default)]
    pub pin_cores: Vec<usize>,
    /// The host's control socket (relative to the file's directory).
    pub socket: PathBuf,
}

fn one() -> usize {
    1
}

fn busy() -> PollName {
    PollName::Busy
}

/// `[[switch]]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchEntry {
    /// The switch's name on the control socket.
    pub name: String,
    /// Its `canopy-switch` configuration (relative to the file's directory).
    pub config: PathBuf,
    /// The network namespace (`/run/netns/NAME`) its ports are opened in.
    pub netns: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHost {
    host: HostSection,
    #[serde(default)]
    switch: Vec<SwitchEntry>,
}

/// One switch of a host, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its name.
    pub name: String,
    /// Its configuration file (resolved).
    pub config: PathBuf,
    /// Its namespace, if not the host's.
    pub netns: Option<String>,
}

/// A validated host configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// The file it came from.
    pub file: PathBuf,
    /// The threads' settings.
    pub engine: canopy_dataplane::engine::host::HostConfig,
    /// The control socket (resolved).
    pub socket: PathBuf,
    /// The switches, in file order.
    pub switches: Vec<Member>,
}

impl HostConfig {
    /// Read and validate `path` (the switches' own files are read when they start).
    pub fn load(path: &Path) -> Result<HostConfig, ConfigError> {
        HostConfig::parse(path, &crate::config::read_file(path)?)
    }

    /// Validate the text of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<HostConfig, ConfigError> {
        parse(path, text).map_err(|r| ConfigError {
            file: path.display().to_string(),
            key: r.key,
            what: r.what,
        })
    }

    /// The member called `name`.
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.switches.iter().find(|m| m.name == name)
    }
}

/// A network namespace name as `ip netns` makes them: a file name in `/run/netns`.
fn netns_name_ok(n: &str) -> bool {
    !n.is_empty() && n.len() <= 255 && n != "." && n != ".." && !n.contains(['/', '\0'])
}

fn parse(path: &Path, text: &str) -> Result<HostConfig, Refusal> {
    let raw: RawHost = read_toml(text)?;
    let h = &raw.host;
    if h.threads == 0 || h.threads > MAX_WORKERS {
        return bad(
            "host.threads",
            format!("{} is not in 1..={MAX_WORKERS}", h.threads),
        );
    }
    let mode: PollMode = poll_mode_of("host", h.mode, h.spins, h.max_sleep_us, &h.pin_cores)?;
    if h.socket.as_os_str().is_empty() {
        return bad("host.socket", "is empty");
    }
    if raw.switch.is_empty() {
        return bad("switch", "a host needs at least one [[switch]]");
    }
    if raw.switch.len() > MAX_SWITCHES {
        return bad(
            "switch",
            format!("{} switches; at most {MAX_SWITCHES}", raw.switch.len()),
        );
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut names = HashSet::new();
    let mut files = HashSet::new();
    let mut switches = Vec::with_capacity(raw.switch.len());
    for (i, s) in raw.switch.iter().enumerate() {
        let name = s.name.trim();
        if name.is_empty() || name != s.name || name.contains(['\0', '\n']) {
            return bad(
                format!("switch[{i}].name"),
                format!("{:?} is not a switch name", s.name),
            );
        }
        if !names.insert(name) {
            return bad(
                format!("switch[{i}].name"),
                format!("{name:?} names two switches"),
            );
        }
        if let Some(n) = &s.netns {
            if !netns_name_ok(n) {
                return bad(
                    format!("switch[{i}].netns"),
                    format!("{n:?} is not a namespace name (a file name in /run/netns)"),
                );
            }
        }
        let config = base.join(&s.config);
        if !files.insert(config.clone()) {
            return bad(
                format!("switch[{i}].config"),
                format!("{} is another switch's configuration", config.display()),
            );
        }
        switches.push(Member {
            name: name.to_string(),
            config,
            netns: s.netns.clone(),
        });
    }
    Ok(HostConfig {
        file: path.to_path_buf(),
        engine: canopy_dataplane::engine::host::HostConfig {
            threads: h.threads,
            mode,
            pin_cores: h.pin_cores.clone(),
        },
        socket: base.join(&h.socket),
        switches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HostConfig, ConfigError> {
        HostConfig::parse(Path::new("/etc/canopy/host.toml"), text)
    }

    fn refused(text: &str) -> String {
        let e = parse(text).expect_err("refused");
        assert_eq!(e.file, "/etc/canopy/host.toml");
        format!("{}: {}", e.key, e.what)
    }

    const GOOD: &str = r#"
[host]
threads = 2
pin_cores = [0, 1]
socket = "host.sock"

[[switch]]
name = "e0"
config = "e0.toml"
netns = "fab-e0"

[[switch]]
name = "c0"
config = "/abs/c0.toml"
"#;

    #[test]
    fn a_host_file_gives_threads_socket_and_members() {
        let c = parse(GOOD).unwrap();
        assert_eq!(c.engine.threads, 2);
        assert_eq!(c.engine.mode, PollMode::Busy);
        assert_eq!(c.engine.pin_cores, vec![0, 1]);
        assert_eq!(c.socket, PathBuf::from("/etc/canopy/host.sock"));
        assert_eq!(c.switches.len(), 2);
        assert_eq!(c.switches[0].config, PathBuf::from("/etc/canopy/e0.toml"));
        assert_eq!(c.switches[0].netns.as_deref(), Some("fab-e0"));
        assert_eq!(
            c.member("c0").unwrap().config,
            PathBuf::from("/abs/c0.toml")
        );
        assert!(c.member("x").is_none());
        let a = parse("[host]\nsocket = \"s\"\nmode = \"adaptive\"\nspins = 5\n[[switch]]\nname = \"a\"\nconfig = \"a.toml\"\n").unwrap();
        assert!(matches!(a.engine.mode, PollMode::Adaptive { spins: 5, .. }));
    }

    #[test]
    fn bad_host_files_are_refused_naming_the_key() {
        let cases: &[(&str, &str)] = &[
            ("[host]\nsocket = \"s\"\n", "switch: a host needs at least one"),
            (
                "[host]\nthreads = 0\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n",
                "host.threads: 0 is not in 1..=64",
            ),
            (
                "[host]\nmode = \"adaptive\"\npin_cores = [1]\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n",
                "host.pin_cores: pinning applies only",
            ),
            (
                "[host]\nspins = 3\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n",
                "host.spins: applies only",
            ),
            (
                "[host]\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n[[switch]]\nname = \"a\"\nconfig = \"b\"\n",
                "switch[1].name: \"a\" names two switches",
            ),
            (
                "[host]\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n[[switch]]\nname = \"b\"\nconfig = \"a\"\n",
                "switch[1].config: /etc/canopy/a is another switch's",
            ),
            (
                "[host]\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\nnetns = \"../x\"\n",
                "switch[0].netns: \"../x\" is not a namespace name",
            ),
            (
                "[host]\nsocket = \"s\"\n[[switch]]\nname = \" a\"\nconfig = \"a\"\n",
                "switch[0].name: \" a\" is not a switch name",
            ),
            (
                "[host]\nsocket = \"s\"\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n[[switch]]\nname = \"b\"\nconfg = \"b\"\n",
                "switch[1].confg: unknown field",
            ),
            ("[host]\nthreads = 1\n[[switch]]\nname = \"a\"\nconfig = \"a\"\n", "host: missing field `socket`"),
        ];
        for (text, want) in cases {
            let got = refused(text);
            assert!(got.starts_with(want), "{text}\n got {got}\nwant {want}");
        }
    }
}
