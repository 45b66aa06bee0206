//! Fault drills on a netns fabric run by canopyd (`docs/canopyd.md`, `docs/failover.md`),
//! while the generator drives traffic: a drained port-down, an unannounced link-down, a
//! killed and restarted switch, a killed and restarted canopyd. Each phase prints its
//! numbers (frames lost, time to recover); `docs/BENCHMARKS.md` ("Failover") quotes them.
//! Needs root; skips otherwise.

mod fabric_common;

use fabric_common::{root_or_skip, testbed_bin, Fab};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Offered load of every phase: well inside what this machine sustains (NDR is
/// about 100–160 kpps, `docs/BENCHMARKS.md`).
const RATE: &str = "20kpps";

fn canopyctl() -> PathBuf {
    let p = testbed_bin().parent().unwrap().join("canopyctl");
    assert!(
        p.is_file(),
        "{} is missing: build it with `cargo build -p canopy-control` (or run `cargo test --workspace`)",
        p.display()
    );
    p
}

struct Drill<'a> {
    f: &'a Fab,
    control: PathBuf,
}

/// Frames of one traffic run.
#[derive(Debug)]
struct Traffic {
    sent: u64,
    received: u64,
    lost: u64,
    misdelivered: u64,
}

impl Drill<'_> {
    /// `canopyctl fabric --daemon SOCK ARGS --json`, asserting success; the answer.
    fn ctl(&self, args: &[&str]) -> Value {
        let out = Command::new(canopyctl())
            .args(["fabric", "--json", "--daemon"])
            .arg(&self.control)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "canopyctl fabric {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn status(&self) -> Value {
        self.ctl(&["status"])["snapshot"].clone()
    }

    fn switch<'v>(snap: &'v Value, name: &str) -> &'v Value {
        snap["switches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no switch {name} in {snap}"))
    }

    /// Wait until canopyd reports READY (every switch up, every table current); a
    /// daemon that is only starting may not answer yet.
    fn wait_ready(&self, limit: Duration) -> Duration {
        let t0 = Instant::now();
        loop {
            let out = Command::new(canopyctl())
                .args(["fabric", "--json", "--daemon"])
                .arg(&self.control)
                .arg("status")
                .output()
                .unwrap();
            let v: Option<Value> = serde_json::from_slice(&out.stdout).ok();
            if v.as_ref().is_some_and(|v| v["snapshot"]["ready"] == true) {
                return t0.elapsed();
            }
            assert!(
                t0.elapsed() < limit,
                "not ready after {limit:?}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn pushes(&self) -> u64 {
        self.status()["switches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["pushes_total"].as_u64().unwrap())
            .sum()
    }

    /// Start a traffic run of `secs` seconds in the background.
    fn start_traffic(&self, secs: f64, out: &Path) -> Child {
        let root = self.f.root();
        Command::new(testbed_bin())
            .args(["--state-root", root.to_str().unwrap(), "run", &self.f.name])
            .args(["--rate", RATE, "--duration-s", &secs.to_string()])
            .args(["--warmup-s", "0.3", "--quiet", "--out"])
            .arg(out)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap()
    }

    /// Wait for a traffic run; its frames (the run may exit 1 only for misdelivery,
    /// which is asserted to be zero).
    fn finish_traffic(&self, mut c: Child, out: &Path) -> Traffic {
        let st = c.wait().unwrap();
        let r: Value = fabric_common::results(out);
        let t = &r["trials"][0];
        let tr = Traffic {
            sent: t["sent"].as_u64().unwrap(),
            received: t["received"].as_u64().unwrap(),
            lost: t["lost"].as_u64().unwrap(),
            misdelivered: t["misdelivered"].as_u64().unwrap(),
        };
        assert_eq!(tr.misdelivered, 0, "frames reached a wrong host: {tr:?}");
        assert!(tr.received <= tr.sent, "more received than sent: {tr:?}");
        assert!(st.success(), "run failed ({st}) with {tr:?}: {r}");
        tr
    }

    /// A clean run: everything sent arrives.
    fn clean_run(&self, what: &str, out: &Path) -> Traffic {
        let c = self.start_traffic(1.5, out);
        let t = self.finish_traffic(c, out);
        assert_eq!(
            t.lost, 0,
            "{what}: frames lost with no fault in progress: {t:?}"
        );
        assert!(t.sent > 10_000, "{what}: too little traffic: {t:?}");
        t
    }

    fn drill(&self, args: &[&str]) -> String {
        let mut a = vec!["drill", "--name", &self.f.name];
        a.extend(args);
        let out = self.f.run(&a);
        assert!(out.status.success(), "drill {args:?} failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn check(&self) {
        let out = self.f.run(&["check", &self.f.name]);
        assert!(out.status.success(), "check failed");
    }
}

#[test]
fn fault_drills_under_traffic() {
    if !root_or_skip("fault_drills_under_traffic") {
        return;
    }
    let f = Fab::new("fd");
    // a fixed flowlet gap: no calibration trial before each run, so every drill below
    // lands in the measured trial
    let d = f.desc("fabric.toml", "[switch]\nflowlet_gap_us = 500\n");
    f.up(&d, &[]);
    let dr = Drill {
        f: &f,
        control: f.root().join(&f.name).join("local").join("canopyd.sock"),
    };
    dr.wait_ready(Duration::from_secs(10));
    let out = |n: &str| f.dir.join(n);
    let mut table: Vec<String> = vec![];

    // 1. planned: drain agg-p0-a0's link to edge-p0-e0 (port 0) while traffic flows
    let c = dr.start_traffic(3.0, &out("r1"));
    std::thread::sleep(Duration::from_millis(1500));
    let t0 = Instant::now();
    let a = dr.ctl(&["port", "agg-p0-a0", "0", "down"]);
    let drain_ms = t0.elapsed().as_secs_f64() * 1e3;
    assert_eq!(a["ok"], true, "{a}");
    let t = dr.finish_traffic(c, &out("r1"));
    table.push(format!(
        "drained port-down agg-p0-a0:0   lost {:>5} of {:>6} (command took {drain_ms:.0} ms)",
        t.lost, t.sent
    ));
    // bounded by what was in flight towards the port: a ring's worth at most
    assert!(
        t.lost <= 256,
        "a drained port-down lost {} frames: {t:?}",
        t.lost
    );
    let s = dr.status();
    let edge = Drill::switch(&s, "edge-p0-e0");
    assert!(
        edge["pruned_ports"]
            .as_array()
            .unwrap()
            .contains(&Value::from(2)),
        "edge-p0-e0 still uses its port to agg-p0-a0: {edge}"
    );
    // traffic uses the remaining paths: nothing lost while the port is down
    dr.clean_run("port down", &out("r1b"));
    dr.ctl(&["port", "agg-p0-a0", "0", "up"]);
    dr.wait_ready(Duration::from_secs(5));
    dr.check();

    // 2. unplanned: edge-p1-e0's link to agg-p1-a1 goes down, nobody is told
    let c = dr.start_traffic(3.0, &out("r2"));
    std::thread::sleep(Duration::from_millis(1500));
    dr.drill(&["link", "edge-p1-e0", "3", "down"]);
    let t = dr.finish_traffic(c, &out("r2"));
    table.push(format!(
        "unannounced link-down edge-p1-e0:3  lost {:>5} of {:>6}",
        t.lost, t.sent
    ));
    dr.clean_run("link down", &out("r2b"));
    dr.drill(&["link", "edge-p1-e0", "3", "up"]);
    dr.wait_ready(Duration::from_secs(5));
    // the restored link is used again: wait until nothing is pruned
    let t0 = Instant::now();
    while dr.status()["switches"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| !s["pruned_ports"].as_array().unwrap().is_empty())
    {
        assert!(t0.elapsed() < Duration::from_secs(5), "ports stay pruned");
        std::thread::sleep(Duration::from_millis(20));
    }
    dr.check();

    // 3. a switch crashes, and comes back
    let c = dr.start_traffic(3.0, &out("r3"));
    std::thread::sleep(Duration::from_millis(1500));
    dr.drill(&["kill", "agg-p2-a1"]);
    let t = dr.finish_traffic(c, &out("r3"));
    table.push(format!(
        "killed switch agg-p2-a1         lost {:>5} of {:>6}",
        t.lost, t.sent
    ));
    let s = dr.status();
    assert_eq!(Drill::switch(&s, "agg-p2-a1")["up"], false, "{s}");
    dr.clean_run("switch down", &out("r3b"));
    let o = dr.drill(&["start", "agg-p2-a1"]);
    // "agg-p2-a1: started, pid N[, instance I]" (I: a switch of the shared host)
    let words: Vec<&str> = o
        .trim()
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .collect();
    let after = |k: &str| {
        words
            .iter()
            .position(|w| *w == k)
            .and_then(|i| words.get(i + 1))
            .map(|v| v.parse::<u64>().unwrap())
    };
    let started = canopy_testbed::fabric::drill::Started {
        pid: after("pid").expect("a pid") as u32,
        instance: after("instance"),
    };
    let rejoin = canopy_testbed::fabric::ops::wait_switch_current(
        &dr.control,
        "agg-p2-a1",
        (started, None),
        Instant::now(),
        Duration::from_secs(10),
    )
    .expect("the restarted switch never got its tables");
    table.push(format!(
        "restarted switch agg-p2-a1      tables pushed {:.0} ms after `drill start` returned",
        rejoin.as_secs_f64() * 1e3
    ));
    assert!(rejoin < Duration::from_secs(1), "rejoined after {rejoin:?}");
    dr.wait_ready(Duration::from_secs(5));
    dr.check();
    dr.clean_run("switch back", &out("r3c"));

    // 4. canopyd crashes: the switches keep forwarding; a new one takes over without
    // pushing anything
    let pushes = dr.pushes();
    let c = dr.start_traffic(3.0, &out("r4"));
    std::thread::sleep(Duration::from_millis(1000));
    dr.drill(&["kill-daemon"]);
    std::thread::sleep(Duration::from_millis(800));
    dr.drill(&["start-daemon"]);
    let took = dr.wait_ready(Duration::from_secs(5));
    let t = dr.finish_traffic(c, &out("r4"));
    table.push(format!(
        "killed and restarted canopyd    lost {:>5} of {:>6}",
        t.lost, t.sent
    ));
    assert_eq!(t.lost, 0, "frames lost while canopyd was away: {t:?}");
    assert_eq!(
        dr.pushes(),
        0,
        "the new canopyd pushed tables the switches already ran (the old one had made {pushes})"
    );
    table.push(format!(
        "new canopyd READY               {:.0} ms after `drill start-daemon` returned, 0 pushes",
        took.as_secs_f64() * 1e3
    ));
    dr.check();
    eprintln!("fault drills at {RATE}:\n  {}", table.join("\n  "));
}
