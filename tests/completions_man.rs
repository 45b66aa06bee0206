//! `packaging/completions-man/generate`: the shell completions and the gzipped man pages
//! of the four binaries of this build, in the tree the Debian package takes them from
//! (`completions/{bash,zsh,fish}/`, `man/man1/*.1.gz`), each as the binary itself prints
//! it.

use canopy_test_utils::{bin, Dir};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BINS: [&str; 4] = ["canopy-switch", "canopyd", "canopyctl", "canopy-testbed"];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/completions-man/generate")
}

fn generate(bins: &Path, out: &Path) -> Output {
    Command::new(script())
        .arg(bins)
        .arg(out)
        .output()
        .expect("run the generate script")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// What `b` prints with its hidden command (`canopyd` takes flags).
fn printed(b: &str, what: &[&str]) -> Vec<u8> {
    let mut args: Vec<String> = what.iter().map(|s| s.to_string()).collect();
    if b == "canopyd" {
        args[0] = format!("--{}", args[0]);
    }
    let o = Command::new(bin(b)).args(&args).output().unwrap();
    assert!(o.status.success(), "{b} {args:?}: {}", text(&o.stderr));
    o.stdout
}

#[test]
fn the_script_writes_every_completion_and_page() {
    let bins = bin("canopyctl").parent().unwrap().to_path_buf();
    for b in BINS {
        bin(b); // each is built (else: what to build)
    }
    let dir = Dir::new("completions-man");
    let out = dir.path("out");
    // a page left by an earlier run of a command that is gone
    std::fs::create_dir_all(out.join("man/man1")).unwrap();
    std::fs::write(out.join("man/man1/canopyctl-gone.1.gz"), b"old").unwrap();
    let o = generate(&bins, &out);
    assert!(o.status.success(), "{}", text(&o.stderr));

    for (shell, file) in [("bash", "{}"), ("zsh", "_{}"), ("fish", "{}.fish")] {
        let d = out.join("completions").join(shell);
        let want: BTreeSet<String> = BINS.iter().map(|b| file.replace("{}", b)).collect();
        assert_eq!(names(&d), want, "{shell}");
        for b in BINS {
            let f = d.join(file.replace("{}", b));
            assert_eq!(
                std::fs::read(&f).unwrap(),
                printed(b, &["completions", shell])
            );
            let mode = std::fs::metadata(&f).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644, "{}", f.display());
        }
    }

    // the pages: those the binaries write, each gzipped (-9n: no name, no time stamp)
    let raw = dir.path("raw");
    for b in BINS {
        let mut args = vec!["man".to_string(), raw.to_str().unwrap().to_string()];
        if b == "canopyd" {
            args[0] = "--man".into();
        }
        let o = Command::new(bin(b)).args(&args).output().unwrap();
        assert!(o.status.success(), "{b}: {}", text(&o.stderr));
    }
    let man1 = out.join("man/man1");
    let want: BTreeSet<String> = names(&raw).iter().map(|n| format!("{n}.gz")).collect();
    assert_eq!(names(&man1), want);
    for b in BINS {
        assert!(want.contains(&format!("{b}.1.gz")), "{b}");
    }
    assert!(want.contains("canopyctl-tables.1.gz") && want.contains("canopy-switch-ctl-port.1.gz"));
    for n in &want {
        let gz = std::fs::read(man1.join(n)).unwrap();
        // magic, deflate, no flags (no file name), mtime 0, best compression
        assert_eq!(gz[..9], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2], "{n}");
        let o = Command::new("gzip")
            .args(["-dc"])
            .arg(man1.join(n))
            .output()
            .unwrap();
        assert!(o.status.success(), "{n}");
        let page = std::fs::read(raw.join(n.trim_end_matches(".gz"))).unwrap();
        assert_eq!(o.stdout, page, "{n}");
        assert!(text(&page).contains("\n.TH "), "{n}");
    }
    // the top pages are what `man` prints
    assert_eq!(
        std::fs::read(raw.join("canopyctl.1")).unwrap(),
        printed("canopyctl", &["man"])
    );

    // the same output again: the script can run over its own tree
    let o = generate(&bins, &out);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(names(&man1), want);
}

#[test]
fn the_script_refuses_a_missing_binary_or_bad_arguments() {
    let dir = Dir::new("completions-man-bad");
    let o = generate(dir.root(), &dir.path("out"));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("canopy-switch is missing"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.path("out").exists());
    let o = Command::new(script()).arg("only-one").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("usage:"));
}
