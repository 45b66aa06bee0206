//! What a running fabric's state holds (root; `SKIP` otherwise): every command on the
//! fabric acts from the state alone, from any working directory, after its description
//! file is gone; a drill stops nothing it could not start again; and only its owner
//! reads it (directories 0700, files 0600).
#![cfg(target_os = "linux")]

mod fabric_common;

use fabric_common::{root_or_skip, switch_bin, Fab};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", text(o));
}

/// Wait (at most 10 s) until `status` from `cwd` reports every switch healthy.
fn healthy(f: &Fab, cwd: &Path) {
    let t0 = std::time::Instant::now();
    loop {
        let o = f.run_in(cwd, &["status", &f.name]);
        if o.status.success() {
            return;
        }
        assert!(t0.elapsed().as_secs() < 10, "{}", text(&o));
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The fabric's local state file.
fn state(f: &Fab) -> Value {
    serde_json::from_slice(&std::fs::read(f.state_file()).unwrap()).unwrap()
}

#[test]
fn commands_act_from_the_state_without_the_description_file() {
    if !root_or_skip("commands_act_from_the_state_without_the_description_file") {
        return;
    }
    let f = Fab::named("fst", "w");
    // the description in a directory of its own, named relatively from there, and a
    // canopy-switch of the fabric's own
    let sub = f.dir.join("descs");
    std::fs::create_dir_all(&sub).unwrap();
    f.desc(
        "descs/fabric.toml",
        "topology = \"fat-tree:k=2\"\n[host]\nprocesses = \"per-switch\"\n\
         [switch]\nflowlet_gap_us = 500\n[traffic]\npattern = \"permutation\"\n",
    );
    let bin = f.dir.join("canopy-switch");
    std::fs::copy(switch_bin(), &bin).unwrap();
    ok(&f.run_in(
        &sub,
        &["up", "fabric.toml", "--switch-bin", bin.to_str().unwrap()],
    ));
    // the file vanishes; every later command runs from another directory
    std::fs::remove_dir_all(&sub).unwrap();
    let elsewhere = Path::new("/");
    let sw = state(&f)["switches"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let drill = |args: &[&str]| {
        let mut a = vec!["drill", "--name", &f.name];
        a.extend(args);
        f.run_in(elsewhere, &a)
    };
    ok(&drill(&["restart", &sw]));
    ok(&drill(&["kill-daemon"]));
    ok(&drill(&["start-daemon"]));
    ok(&drill(&["link", &sw, "0", "down"]));
    ok(&drill(&["link", &sw, "0", "up"]));
    healthy(&f, elsewhere);
    let out = f.dir.join("report");
    let r = f.run_in(
        elsewhere,
        &[
            "run",
            &f.name,
            "--rate",
            "2kpps",
            "--duration-s",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    ok(&r);
    let res: Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    // the description's own [traffic] table, read from the state's copy
    assert_eq!(res["meta"]["pattern"], "permutation", "{}", res["meta"]);
    // the switch binary vanishes: no drill stops a switch it could not start again
    std::fs::remove_file(&bin).unwrap();
    let pid = state(&f)["switches"][0]["pid"].as_u64().unwrap() as u32;
    for args in [["restart", sw.as_str()], ["kill", sw.as_str()]] {
        let o = drill(&args);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains("is gone"), "{}", text(&o));
        assert!(
            canopy_testbed::fabric::procs::alive(pid),
            "drill {args:?} killed {sw} and could not start it again"
        );
    }
    healthy(&f, elsewhere);
    f.down();
    f.assert_clean();
}

/// Mode bits of `p` (not following a link).
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    p.symlink_metadata().unwrap().permissions().mode() & 0o777
}

#[test]
fn the_state_is_readable_by_its_owner_only() {
    if !root_or_skip("the_state_is_readable_by_its_owner_only") {
        return;
    }
    let f = Fab::named("fst", "p");
    // the shared host, and one process per switch (every switch's config and log)
    for (body, files) in [("", 8), ("[host]\nprocesses = \"per-switch\"\n", 16)] {
        let d = f.desc(
            "fabric.toml",
            &format!("topology = \"fat-tree:k=2\"\n{body}"),
        );
        f.up(&d, &[]);
        let root = f.root();
        assert_eq!(mode(&root), 0o700, "the state root up created");
        let fdir = root.join(&f.name);
        let mut seen = 0;
        let mut dirs = vec![fdir];
        while let Some(dir) = dirs.pop() {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if e.file_type().unwrap().is_dir() {
                    dirs.push(p);
                } else {
                    // the state file, configurations, logs, sockets
                    assert_eq!(mode(&p), 0o600, "{}", p.display());
                    seen += 1;
                }
            }
        }
        assert!(seen >= files, "only {seen} files");
        f.down();
    }
    f.assert_clean();
}
