//! Shared helpers of the `fabric_*` tests: the binaries, a fabric fixture whose Drop
//! runs `canopy-testbed down` (and deletes any namespace left with its prefix; a new one
//! first deletes what fixtures of killed test processes left), and the
//! leftover probe (`ip netns list`, `/proc`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether we can run (root); prints the SKIP line otherwise.
pub fn root_or_skip(test: &str) -> bool {
    canopy_test_utils::root_or_skip(test, "network namespaces")
}

/// `canopy-testbed` of this build.
pub fn testbed_bin() -> PathBuf {
    canopy_test_utils::bin("canopy-testbed")
}

/// `canopy-switch` next to it (built by `cargo test --workspace` or `cargo build -p
/// canopy-switch`); panics with what to do when it is missing.
pub fn switch_bin() -> PathBuf {
    canopy_test_utils::bin("canopy-switch")
}

/// A fabric under test: unique name `cfab<pid><tag>`, its own state root, cleaned up
/// on drop even when the test fails.
pub struct Fab {
    /// Fabric name.
    pub name: String,
    /// Scratch directory (descriptions, state root).
    pub dir: PathBuf,
}

impl Fab {
    /// A fixture named `cfab<pid><tag>`.
    pub fn new(tag: &str) -> Fab {
        Fab::named("cfab", tag)
    }

    /// A fixture named `<prefix><pid><tag>` (a test file's own prefix, so its namespaces
    /// `<name>-s<i>`, `<name>-h<i>` are named like no other test's).
    pub fn named(prefix: &str, tag: &str) -> Fab {
        sweep_stale(prefix);
        let name = format!("{prefix}{}{tag}", std::process::id());
        let dir = std::env::temp_dir().join(format!("{name}-test"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Fab { name, dir }
    }

    /// The state root.
    pub fn root(&self) -> PathBuf {
        self.dir.join("state")
    }

    /// Write a description (`name = ...` is prepended) and return its path. Unless the
    /// body has its own `[canopyd]`, canopyd's metrics are off, so fabrics of parallel
    /// tests do not compete for the default metrics port.
    pub fn desc(&self, file: &str, body: &str) -> PathBuf {
        let p = self.dir.join(file);
        let tail = if body.contains("[canopyd]") {
            ""
        } else {
            "\n[canopyd]\nmetrics = \"off\"\n"
        };
        std::fs::write(&p, format!("name = \"{}\"\n{body}{tail}", self.name)).unwrap();
        p
    }

    /// Run `canopy-testbed --state-root ROOT ARGS`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(Path::new("."), args)
    }

    /// [`Fab::run`] in working directory `cwd`.
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        let root = self.root();
        let mut all: Vec<&str> = vec!["--state-root", root.to_str().unwrap()];
        all.extend(args);
        let out = Command::new(testbed_bin())
            .current_dir(cwd)
            .args(&all)
            .output()
            .unwrap();
        eprintln!(
            "$ (in {}) canopy-testbed {}\n{}{}",
            cwd.display(),
            all.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `replay FILE <fabric> --from HOST --pps PPS --out OUT`.
    pub fn replay(&self, file: &Path, from: &str, pps: &str, out: &Path) -> Output {
        self.run(&[
            "replay",
            file.to_str().unwrap(),
            &self.name,
            "--from",
            from,
            "--pps",
            pps,
            "--out",
            out.to_str().unwrap(),
        ])
    }

    /// `up FILE --switch-bin BIN [extra]`, asserting success.
    pub fn up(&self, desc: &Path, extra: &[&str]) {
        let sb = switch_bin();
        let mut a = vec![
            "up",
            desc.to_str().unwrap(),
            "--switch-bin",
            sb.to_str().unwrap(),
        ];
        a.extend(extra);
        let out = self.run(&a);
        assert!(
            out.status.success(),
            "up failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Start `up FILE --switch-bin BIN` in the background (stdout discarded).
    pub fn spawn_up(&self, desc: &Path, stderr: std::process::Stdio) -> std::process::Child {
        let root = self.root();
        Command::new(testbed_bin())
            .args([
                "--state-root",
                root.to_str().unwrap(),
                "up",
                desc.to_str().unwrap(),
                "--switch-bin",
            ])
            .arg(switch_bin())
            .stdout(std::process::Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap()
    }

    /// The local state file.
    pub fn state_file(&self) -> PathBuf {
        self.root()
            .join(&self.name)
            .join("local")
            .join("state.json")
    }

    /// Wait (at most 60 s) until the local state file holds `needle` at least `count`
    /// times: a point in the middle of a running `up`.
    pub fn wait_state(&self, needle: &str, count: usize) {
        let state = self.state_file();
        let t0 = std::time::Instant::now();
        loop {
            let s = std::fs::read_to_string(&state).unwrap_or_default();
            if s.matches(needle).count() >= count {
                return;
            }
            assert!(
                t0.elapsed() < std::time::Duration::from_secs(60),
                "up never wrote {count} × {needle} into {}",
                state.display()
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// `down NAME`, asserting success.
    pub fn down(&self) {
        let out = self.run(&["down", &self.name]);
        assert!(
            out.status.success(),
            "down failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Everything of the fabric that still exists: namespaces with its prefix,
    /// live canopy-switch and canopyd processes whose command line names its state root, the
    /// fabric's state directory.
    pub fn leftovers(&self) -> Vec<String> {
        let mut v = vec![];
        for n in netns_names() {
            if n.starts_with(&format!("{}-", self.name)) {
                v.push(format!("namespace {n}"));
            }
        }
        let root = self.root().to_string_lossy().into_owned();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                continue;
            };
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if (cmd.contains("canopy-switch")
                || cmd.contains("canopyd")
                || cmd.contains("simple_switch"))
                && cmd.contains(&root)
                && canopy_testbed::fabric::procs::alive(pid)
            {
                v.push(format!("process {pid}: {cmd}"));
            }
        }
        let sd = self.root().join(&self.name);
        if sd.exists() {
            v.push(format!("state dir {}", sd.display()));
        }
        v
    }

    /// Assert that nothing of the fabric is left.
    pub fn assert_clean(&self) {
        let l = self.leftovers();
        assert!(l.is_empty(), "left behind: {l:#?}");
    }
}

impl Drop for Fab {
    fn drop(&mut self) {
        let _ = self.run(&["down", &self.name]);
        // belt and braces: nothing with our prefix survives the test
        for n in netns_names() {
            if n.starts_with(&format!("{}-", self.name)) {
                let _ = Command::new("ip").args(["netns", "del", &n]).output();
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The names of the network namespaces (`ip netns list`; none when `ip` fails).
fn netns_names() -> Vec<String> {
    let Ok(ns) = Command::new("ip").args(["netns", "list"]).output() else {
        return vec![];
    };
    String::from_utf8_lossy(&ns.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// The test process that made `name` (`<prefix><pid><tag>…`) is gone: no prefix of the
/// digits after `prefix` is a live process (a tag that starts with a digit cannot make
/// a live fixture's name look stale). `None` when `name` is not of that form.
fn owner_gone(prefix: &str, name: &str) -> Option<bool> {
    let digits: String = name
        .strip_prefix(prefix)?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        return None;
    }
    Some((1..=digits.len()).all(|n| !Path::new(&format!("/proc/{}", &digits[..n])).exists()))
}

/// Delete what fixtures with `prefix` left behind when their test process was killed
/// before their Drop ran (a timeout, a SIGKILL): namespaces `<prefix><pid><tag>-…` with
/// no process inside and their scratch directories, where no such pid is alive. Once per
/// test process and prefix.
fn sweep_stale(prefix: &str) {
    static SWEPT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    {
        let mut done = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if done.iter().any(|p| p == prefix) {
            return;
        }
        done.push(prefix.to_owned());
    }
    for n in netns_names() {
        if owner_gone(prefix, &n) != Some(true) {
            continue;
        }
        let pids = Command::new("ip").args(["netns", "pids", &n]).output();
        if pids.is_ok_and(|o| o.status.success() && o.stdout.trim_ascii().is_empty()) {
            eprintln!("deleting namespace {n}, left by a test process that is gone");
            let _ = Command::new("ip").args(["netns", "del", &n]).output();
        }
    }
    if let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) {
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with("-test") && owner_gone(prefix, &name) == Some(true) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// The check report as JSON (`check --json`), and whether the command succeeded.
pub fn check_json(f: &Fab) -> (bool, serde_json::Value) {
    let out = f.run(&["check", &f.name, "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.success(), v)
}

/// Assert a passing check: every ordered pair delivered to exactly the right host.
pub fn assert_check_passes(f: &Fab, hosts: u64) {
    let (ok, v) = check_json(f);
    let pairs = hosts * (hosts - 1);
    assert_eq!(v["hosts"], hosts, "{v}");
    assert_eq!(v["pairs"], pairs, "{v}");
    assert_eq!(v["delivered"], pairs, "{v}");
    assert_eq!(v["lost"], 0, "{v}");
    assert_eq!(v["misdelivered"], 0, "{v}");
    assert_eq!(v["duplicates"], 0, "{v}");
    assert!(ok, "check exited non-zero: {v}");
}

/// A pcap of generator frames from host 0 to every other host of a k=4 sliced-flit
/// fat-tree (`rounds` × 15 frames, 1 ms apart), then `ipv4` IPv4 broadcasts from host 0
/// (which its edge switch drops as `not_canopy`). Returns the generator frame count.
pub fn crafted_pcap(file: &Path, rounds: u64, ipv4: usize) -> u64 {
    use canopy_dataplane::wire::Kind;
    use canopy_testbed::traffic::frame::HostFrame;
    use canopy_testbed::traffic::pcap::PcapWriter;
    let topo = canopy_control::build_str("fat-tree:k=4").unwrap();
    let mut w = PcapWriter::create(file, 10_000).unwrap();
    let mut ts = 0;
    let mut n = 0;
    for round in 0..rounds {
        for d in 1..16 {
            let mut fr = HostFrame::new(&topo, Kind::Sliced, 0, d, 60, 7).unwrap();
            fr.set_meas(round, 0);
            w.write(ts, &fr.bytes).unwrap();
            ts += 1000;
            n += 1;
        }
    }
    for _ in 0..ipv4 {
        let mut ip = vec![0u8; 60];
        ip[..6].copy_from_slice(&[0xff; 6]);
        ip[6..12].copy_from_slice(&canopy_control::oracle::host_mac(&topo, 0));
        ip[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        w.write(ts, &ip).unwrap();
        ts += 1000;
    }
    assert_eq!(w.finish().unwrap(), n + ipv4 as u64);
    n
}

/// Traffic through a two-host fabric of five switches with mixed port backends, after a
/// passing `check`: `run` at 3 kpps for 1 s into `<dir>/report` succeeds, its summary
/// names every entry of `backends`, every frame arrives once, and each switch conserves,
/// drops nothing, carries every frame (the hosts are in different pods) and reports the
/// backend `label(its name)` on all its ports. The report's directory.
pub fn run_mixed_backends(
    f: &Fab,
    backends: &[&str],
    label: impl Fn(&str) -> &'static str,
) -> PathBuf {
    assert_check_passes(f, 2);
    let out = f.dir.join("report");
    let r = f.run(&[
        "run",
        &f.name,
        "--rate",
        "3kpps",
        "--duration-s",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        r.status.success(),
        "run: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    let summary = String::from_utf8_lossy(&r.stdout).into_owned();
    assert!(
        summary.contains("Port backends: ") && backends.iter().all(|b| summary.contains(b)),
        "{summary}"
    );
    let res = results(&out);
    let t = &res["trials"][0];
    let sent = t["sent"].as_u64().unwrap();
    assert!(sent >= 2000, "{t}");
    assert_eq!(t["received"], sent, "full delivery: {t}");
    assert_eq!(t["lost"], 0, "{t}");
    assert_eq!(t["misdelivered"], 0, "{t}");
    assert_eq!(t["duplicates"], 0, "{t}");
    let sw = res["switches"].as_array().unwrap();
    assert_eq!(sw.len(), 5);
    for s in sw {
        let name = s["name"].as_str().unwrap();
        assert_eq!(s["conserved"], true, "{s}");
        assert!(s.get("unchecked").is_none(), "{s}");
        assert_eq!(
            s["drops"].as_object().map_or(0, |d| d.len()),
            0,
            "no drops: {s}"
        );
        // h0 and h1 are in different pods: every frame crosses every switch
        assert!(s["rx"].as_u64().unwrap() >= sent, "{s}");
        let b = s["backends"].as_array().unwrap();
        assert!(!b.is_empty() && b.iter().all(|x| x == label(name)), "{s}");
    }
    out
}

/// The `results.json` a run or a replay wrote into `out`.
pub fn results(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

/// `canopy-testbed --state-root ROOT soak NAME ARGS --quiet --out OUT`: (exit success,
/// soak.json).
pub fn soak(f: &Fab, out: &Path, args: &[&str]) -> (bool, serde_json::Value) {
    let root = f.root();
    let o = Command::new(testbed_bin())
        .args(["--state-root", root.to_str().unwrap(), "soak", &f.name])
        .args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    eprintln!(
        "$ canopy-testbed soak {}\n{stdout}{}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.contains("INFO"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let v = std::fs::read_to_string(out.join("soak.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null);
    (o.status.success(), v)
}

/// Zero unaccounted and misdelivered frames, every one of `(switches, ports)` switches
/// conserving and ports' counters agreeing with their interfaces', nothing from the
/// hosts but the generator's. `exact`: the accounting must be exact; otherwise it may
/// only fall short of exact by naming losses it inferred (where no counter of their
/// own sees them: DPDK's af_packet PMD, bmv2), and a bmv2 switch may fall short of
/// conserving by exactly the loss inferred for its egress queues.
pub fn assert_accounted(
    what: &str,
    ok: bool,
    r: &serde_json::Value,
    (switches, ports): (usize, u64),
    exact: bool,
) {
    let a = &r["accounting"];
    let inferred = a["inferred"].as_object().map_or(0, |m| m.len());
    if exact || inferred == 0 {
        assert_eq!(a["exact"], true, "{what}: accounting not exact: {a}");
    } else {
        let why = a["not_exact"].as_array().unwrap();
        assert!(
            why.len() == 1 && why[0].as_str().unwrap().contains("inferred"),
            "{what}: not exact for another reason than inferred losses: {a}"
        );
    }
    assert_eq!(a["unaccounted"], 0, "{what}: unaccounted frames: {a}");
    assert_eq!(a["misdelivered"], 0, "{what}: misdelivered frames: {a}");
    assert_eq!(a["host_wire_extra"], 0, "{what}: {a}");
    assert!(a["sent"].as_u64().unwrap() > 0, "{what}: nothing sent: {a}");
    let sw = r["switches"].as_array().unwrap();
    assert_eq!(sw.len(), switches, "{what}: {sw:?}");
    for s in sw {
        if s["conserved"] == true {
            continue;
        }
        // bmv2 does not count what a full egress queue refuses: such a switch may only
        // fall short by exactly the loss the accounting inferred for its queues
        let name = s["name"].as_str().unwrap();
        let counted = s["tx"].as_u64().unwrap()
            + s["drops"]
                .as_object()
                .map_or(0, |d| d.values().map(|n| n.as_u64().unwrap()).sum());
        let gap = s["rx"].as_u64().unwrap().saturating_sub(counted);
        let queues = &a["inferred"][format!("{name} (bmv2 egress queues)")];
        assert!(
            !exact && gap > 0 && s["unchecked"].is_string() && queues == gap,
            "{what}: switch does not conserve and the gap is not the inferred queue loss: {s}"
        );
    }
    assert_eq!(r["ports_checked"], ports, "{what}: {r}");
    assert_eq!(
        r["port_gaps"].as_array().unwrap().len(),
        0,
        "{what}: {}",
        r["port_gaps"]
    );
    assert!(ok, "{what}: soak failed: {}", r["failures"]);
}

/// An overload towards host 0 (`rate` for 3 s) of a fabric of `(switches, ports)`: it
/// must drop, and every frame must be accounted for (see [`assert_accounted`]). The
/// report.
pub fn overload_soak(f: &Fab, rate: &str, size: (usize, u64), exact: bool) -> serde_json::Value {
    let (ok, r) = soak(
        f,
        &f.dir.join("overload"),
        &[
            "--rate",
            rate,
            "--pattern",
            "hotspot:fraction=0.9,target=0",
            "--duration",
            "3s",
        ],
    );
    assert_accounted("overload", ok, &r, size, exact);
    let a = &r["accounting"];
    assert!(
        a["counted"].as_u64().unwrap() > 0,
        "the overload dropped nothing, so the accounting of drops was not exercised: {a}"
    );
    r
}
