//! `canopyctl`'s hidden `completions SHELL` and `man [DIR]` commands: the completions
//! name every command and the values of its closed sets, the man pages cover every
//! command, and neither offers the hidden commands.

use std::path::Path;
use std::process::{Command, Output};

fn canopyctl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canopyctl"))
        .args(args)
        .output()
        .expect("run canopyctl")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The commands `canopyctl --help` lists (but `help`), and `fabric`'s.
fn commands(args: &[&str]) -> Vec<String> {
    let help = text(&canopyctl(args).stdout);
    let list = help
        .split("Commands:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no commands in {help}"));
    list.lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The hidden commands as each shell's script would offer them.
const HIDDEN: [&str; 5] = ["completions", ",man)", " man ", "-a \"man\"", "'man:"];

#[test]
fn completions_name_every_command_and_closed_set() {
    let top = commands(&["--help"]);
    assert!(
        top.len() >= 10 && top.contains(&"tables".to_string()),
        "{top:?}"
    );
    let fabric = commands(&["fabric", "--help"]);
    assert_eq!(fabric, ["status", "counters", "push", "port"]);
    for shell in ["bash", "zsh", "fish"] {
        let o = canopyctl(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let s = text(&o.stdout);
        for c in top.iter().chain(&fabric) {
            assert!(s.contains(c.as_str()), "{shell}: no {c}");
        }
        for opt in [
            "kind", "mode", "format", "pattern", "daemon", "json", "verbose",
        ] {
            assert!(s.contains(opt), "{shell}: no --{opt}");
        }
        // every closed set's values
        for v in [
            "sliced",
            "transit",
            "path-id",
            "flat",
            "srcdst",
            "bmv2-cli",
            "p4runtime",
            "bfrt-python",
            "uniform",
        ] {
            assert!(s.contains(v), "{shell}: no {v}");
        }
        for h in HIDDEN {
            assert!(!s.contains(h), "{shell} offers {h}");
        }
    }
    // --kind's values, as each shell lists them
    let script = |shell| text(&canopyctl(&["completions", shell]).stdout);
    assert!(script("bash").contains(r#"compgen -W "sliced transit path-id""#));
    assert!(script("zsh").contains("--kind=[Header kind]:KIND:(sliced transit path-id)"));
    assert!(script("fish").contains(r#"-l kind -d 'Header kind' -r -f -a "sliced\t''"#));
}

#[test]
fn the_man_pages_cover_every_command() {
    let o = canopyctl(&["man"]);
    assert!(o.status.success());
    let top = text(&o.stdout);
    let th = format!(
        "\n.TH canopyctl 1 \" \" \"canopyctl {}\" Canopy\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(top.contains(&th), "{top}");
    let cmds = commands(&["--help"]);
    for c in &cmds {
        let r = format!(r"canopyctl\-{}(1)", c.replace('-', r"\-"));
        assert!(top.contains(&r), "the page does not mention {c}");
    }
    assert!(top.contains(r"\-\-verbose"));
    let scratch = canopy_test_utils::Dir::new("canopyctl-man");
    let dir = scratch.path("man1");
    let o = canopyctl(&["man", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let page = |name: &str| -> String {
        std::fs::read_to_string(dir.join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("{name}.1: {e}"))
    };
    assert_eq!(page("canopyctl"), top);
    for c in &cmds {
        let p = page(&format!("canopyctl-{c}"));
        assert!(p.contains(&format!(".TH canopyctl-{c} 1 ")), "{c}");
        assert!(
            p.contains(".SH SYNOPSIS") && p.contains(".SH OPTIONS"),
            "{c}"
        );
    }
    for c in commands(&["fabric", "--help"]) {
        let p = page(&format!("canopyctl-fabric-{c}"));
        assert!(p.contains(r"\-\-daemon"), "fabric {c}: the global --daemon");
    }
    // the options and their values, and the long help
    let tables = page("canopyctl-tables");
    for w in [
        r"\-\-kind",
        r"\-\-switch",
        r"\-\-summary",
        "sliced",
        "path\\-id",
        "as canopy\\-switch loads",
    ] {
        assert!(tables.contains(w), "{w}: {tables}");
    }
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(files, 1 + cmds.len() + 4);
    // no page of a hidden command, nor of `help`
    for hidden in ["canopyctl-man", "canopyctl-completions", "canopyctl-help"] {
        assert!(!Path::new(&dir.join(format!("{hidden}.1"))).exists());
    }
}

#[test]
fn a_bad_shell_or_directory_is_an_error_not_a_panic() {
    let o = canopyctl(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("[possible values: bash"));
    let o = canopyctl(&["man", "/proc/version/pages"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("cannot write the man pages into /proc/version/pages"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
