//! `canopy-switch`'s command-line conventions: `--log` takes a filter of RUST_LOG-style
//! directives and `RUST_LOG` is read when `--log` is not given, the log goes to stderr;
//! a filter that does not parse exits 2 before anything opens; `ctl port`'s state is
//! checked by clap; the hidden `completions` and `man` commands print what the package
//! installs.

mod common;

use canopy_test_utils::{Dir, Proc};
use common::mem_config;
use std::os::unix::net::UnixStream;
use std::process::{Command, Output, Stdio};

fn switch() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canopy-switch"));
    c.env_remove("RUST_LOG");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run a mem-port switch with `--log log` (when given) and `RUST_LOG=env` (when given)
/// until its socket answers, stop it: its stderr and its stdout.
fn run_logged(tag: &str, log: Option<&str>, env: Option<&str>) -> (String, String) {
    let dir = Dir::new(&format!("csc{}-{tag}", std::process::id()));
    let cfg = dir.path("switch.toml");
    std::fs::write(&cfg, mem_config(&dir, 4, true, "")).unwrap();
    let mut cmd = switch();
    cmd.args(["run", "--config", cfg.to_str().unwrap()]);
    if let Some(l) = log {
        cmd.args(["--log", l]);
    }
    if let Some(e) = env {
        cmd.env("RUST_LOG", e);
    }
    cmd.stdout(Stdio::piped());
    let mut p = Proc::spawn_cmd(cmd, dir.path("stderr.log"));
    let socket = dir.path("switch.sock");
    p.wait_alive(60.0, "the management socket", || {
        UnixStream::connect(&socket).ok()
    });
    let log_path = p.log.clone();
    let (st, out) = p.terminate();
    assert!(st.success(), "{st}");
    (std::fs::read_to_string(log_path).unwrap(), out)
}

/// The debug line of the management server's start (target `canopy_proto::serve`).
const SERVING: &str = "DEBUG canopy_proto::serve: serving";

#[test]
fn rust_log_is_the_filter_when_log_is_not_given() {
    // the default: info and above, from every target
    let (err, out) = run_logged("log-default", None, None);
    assert!(err.contains(" INFO canopy_switch"), "{err}");
    assert!(!err.contains("DEBUG"), "{err}");
    // the log is on stderr only; stdout has the final counters
    assert!(!out.contains(" INFO "), "{out}");
    assert!(!out.is_empty());
    // RUST_LOG=debug: the debug lines too
    let (err, _) = run_logged("log-env-debug", None, Some("debug"));
    assert!(err.contains(SERVING), "{err}");
    // a target directive: debug for canopy_proto only
    let (err, _) = run_logged("log-env-target", None, Some("warn,canopy_proto=debug"));
    assert!(err.contains(SERVING), "{err}");
    assert!(!err.contains(" INFO "), "{err}");
    let (err, _) = run_logged("log-env-quiet", None, Some("debug,canopy_proto=info"));
    assert!(err.contains(" INFO canopy_switch"), "{err}");
    assert!(!err.contains(SERVING), "{err}");
}

#[test]
fn log_wins_over_rust_log() {
    let (err, _) = run_logged("log-given", Some("info"), Some("debug"));
    assert!(err.contains(" INFO canopy_switch"), "{err}");
    assert!(!err.contains("DEBUG"), "{err}");
    let (err, _) = run_logged("log-given-target", Some("canopy_proto::serve=debug"), None);
    assert!(err.contains(SERVING), "{err}");
    assert!(!err.contains(" INFO "), "{err}");
}

#[test]
fn a_bad_filter_exits_2_before_anything_opens() {
    let dir = Dir::new(&format!("csc{}-log-bad", std::process::id()));
    let cfg = dir.path("switch.toml");
    std::fs::write(&cfg, mem_config(&dir, 4, true, "")).unwrap();
    let cfg = cfg.to_str().unwrap();
    let socket = dir.path("switch.sock");
    let host = dir.path("host.toml");
    std::fs::write(&host, "").unwrap();
    // --log: clap's usage error, naming the directive
    for args in [
        vec!["run", "--config", cfg, "--log", "warn,canopy_switch=loud"],
        vec![
            "host",
            "--config",
            host.to_str().unwrap(),
            "--log",
            "=debug",
        ],
    ] {
        let o = switch().args(&args).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("for '--log <FILTER>'"), "{err}");
        assert!(err.contains("is not a log filter directive"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // RUST_LOG: said so, the same status
    let o: Output = switch()
        .args(["run", "--config", cfg])
        .env("RUST_LOG", "info,canopy_switch=loud")
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("canopy-switch: RUST_LOG: `canopy_switch=loud` is not a log filter"),
        "{err}"
    );
    assert!(!socket.exists(), "the switch started");
}

#[test]
fn ctl_port_state_is_checked_by_clap() {
    let o = switch()
        .args([
            "ctl",
            "--socket",
            "/nonexistent.sock",
            "port",
            "1",
            "sideways",
        ])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("[possible values: up, down]"), "{err}");
    let help = text(
        &switch()
            .args(["ctl", "port", "--help"])
            .output()
            .unwrap()
            .stdout,
    );
    assert!(help.contains("up:") && help.contains("down:"), "{help}");
}

/// Every command of the switch, as its help lists them.
const COMMANDS: [&str; 5] = ["run", "ctl", "host", "host-ctl", "check-config"];
const CTL: [&str; 7] = [
    "health",
    "counters",
    "port",
    "tables",
    "dump-tables",
    "inject",
    "capture",
];

#[test]
fn completions_name_every_command_and_option() {
    for shell in ["bash", "zsh", "fish"] {
        let o = switch().args(["completions", shell]).output().unwrap();
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let s = text(&o.stdout);
        for w in COMMANDS.iter().chain(&CTL) {
            assert!(s.contains(w), "{shell}: no {w}");
        }
        for opt in ["config", "log", "socket", "token-file", "json"] {
            assert!(s.contains(opt), "{shell}: no --{opt}");
        }
        // the hidden commands are not offered
        for hidden in ["completions", ",man)", " man ", "-a \"man\"", "'man:"] {
            assert!(!s.contains(hidden), "{shell} offers {hidden}");
        }
    }
    let zsh = text(
        &switch()
            .args(["completions", "zsh"])
            .output()
            .unwrap()
            .stdout,
    );
    assert!(zsh.contains(r#"((up\:"The port forwards again""#), "{zsh}");
    let o = switch().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn man_pages_cover_every_command() {
    let top = switch().arg("man").output().unwrap();
    assert!(top.status.success());
    let top = text(&top.stdout);
    assert!(
        top.starts_with(".ie") && top.contains("\n.TH canopy-switch 1 "),
        "{top}"
    );
    for c in COMMANDS {
        let c = c.replace('-', r"\-");
        assert!(top.contains(&format!(r"canopy\-switch\-{c}(1)")), "{c}");
    }
    let dir = Dir::new(&format!("csc{}-man", std::process::id()));
    let pages = dir.path("man1");
    let o = switch().arg("man").arg(&pages).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    let page = |name: &str| {
        std::fs::read_to_string(pages.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"))
    };
    for c in COMMANDS {
        let p = page(&format!("canopy-switch-{c}"));
        assert!(
            p.contains(&format!(
                ".TH canopy-switch-{c} 1 \" \" \"canopy-switch {}\" Canopy",
                env!("CARGO_PKG_VERSION")
            )),
            "{c}: {p}"
        );
    }
    for c in CTL {
        assert!(page(&format!("canopy-switch-ctl-{c}")).contains(".SH NAME"));
    }
    let run = page("canopy-switch-run");
    for opt in [
        r"\-\-config",
        r"\-\-log",
        r"\-\-user",
        "RUST_LOG",
        "final counters",
    ] {
        assert!(run.contains(opt), "{opt}: {run}");
    }
    let n = std::fs::read_dir(&pages).unwrap().count();
    // the program, its 5 commands, ctl's 7 and host-ctl's 3
    assert_eq!(n, 1 + 5 + 7 + 3);
}
