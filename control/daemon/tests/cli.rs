//! `canopyd`'s command-line conventions: `--log` takes a filter of RUST_LOG-style
//! directives, and a filter that does not parse (given, or in `RUST_LOG`) exits 2
//! before the configuration is read; the hidden `--completions` and `--man` flags print
//! what the package installs.

use std::process::{Command, Output};

fn canopyd(args: &[&str], rust_log: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_canopyd"));
    c.args(args).env_remove("RUST_LOG");
    if let Some(v) = rust_log {
        c.env("RUST_LOG", v);
    }
    c.output().expect("run canopyd")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_bad_filter_exits_2_before_the_configuration_is_read() {
    let missing = "/nonexistent/canopyd.toml";
    let o = canopyd(&["--config", missing, "--log", "info,canopyd=loud"], None);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid value 'info,canopyd=loud' for '--log <FILTER>'"));
    assert!(
        err.contains("`canopyd=loud` is not a log filter directive"),
        "{err}"
    );
    assert!(!err.contains(missing), "{err}");
    let o = canopyd(&["--config", missing], Some("canopyd=loud"));
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("canopyd: RUST_LOG: `canopyd=loud` is not a log filter directive"),
        "{err}"
    );
    assert!(!err.contains(missing), "{err}");
    // a good filter, given or from RUST_LOG: on to the configuration (which is missing)
    for (args, env) in [
        (
            vec!["--config", missing, "--log", "warn,canopyd=debug"],
            None,
        ),
        (vec!["--config", missing], Some("warn,canopyd=debug")),
        (
            vec!["--config", missing, "--log", "info"],
            Some("canopyd=loud"),
        ),
    ] {
        let o = canopyd(&args, env);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.starts_with(&format!("canopyd: {missing}")), "{err}");
    }
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        let o = canopyd(&["--completions", shell], None);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let s = text(&o.stdout);
        for opt in ["config", "check", "log", "user", "group"] {
            assert!(s.contains(opt), "{shell}: no --{opt}");
        }
        // the hidden flags are not offered
        for hidden in ["completions", "--man", "-l man"] {
            assert!(!s.contains(hidden), "{shell} offers {hidden}: {s}");
        }
    }
    // the flags need no --config and go alone
    let o = canopyd(&["--completions", "bash", "--check"], None);
    assert_eq!(o.status.code(), Some(2));
    let page = canopyd(&["--man"], None);
    assert!(page.status.success());
    let page = text(&page.stdout);
    let th = format!(
        ".TH canopyd 1 \" \" \"canopyd {}\" Canopy",
        env!("CARGO_PKG_VERSION")
    );
    assert!(page.contains(&th), "{page}");
    for w in [
        r"\-\-config",
        r"\-\-check",
        r"\-\-log",
        "RUST_LOG",
        "Exit status",
    ] {
        assert!(page.contains(w), "{w}: {page}");
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("man1");
    let o = canopyd(&["--man", dir.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let written: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(written, ["canopyd.1"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("canopyd.1")).unwrap(),
        page
    );
}
