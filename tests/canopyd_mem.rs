//! `canopyd` against real `canopy-switch` processes with `mem` ports (no root needed):
//! the push at start, forwarding through the pushed tables, switch and daemon
//! restarts, port drains, hostile control requests, tables that do not fit a switch,
//! a TCP endpoint with a token, and `canopyd --check`.
//!
//! The binaries come from `target/<profile>/` (`cargo test --workspace` builds them;
//! with `-p canopy` alone, run `cargo build --workspace --bins` first).

mod common_daemon;

use canopy_control::topology::Peer;
use canopy_proto::control::Request as ControlRequest;
use canopy_proto::mgmt::Request;
use canopy_proto::version::PROTOCOL_VERSION;
use common_daemon::{expect_err, line, raw_exchange, serial, summary, tail, wait_for, Dir, Fabric};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const K4: &str = "fat-tree:k=4";
const K2: &str = "fat-tree:k=2";

/// A fabric with a daemon, READY.
fn ready_fabric(tag: &str, spec: &str) -> Fabric {
    let mut f = Fabric::start(tag, spec);
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    f.wait_ready(15.0);
    f
}

/// The ports of switch `i` that are members of a group in its base tables (the ones a
/// fault can prune).
fn group_ports(f: &Fabric, i: usize) -> Vec<u16> {
    let mut v: Vec<u16> = f.base[i]
        .groups
        .iter()
        .filter(|g| g.len() > 1)
        .flatten()
        .copied()
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Neighbours of switch `i`: (neighbour index, its port towards `i`, `i`'s port).
fn neighbours(f: &Fabric, i: usize) -> Vec<(usize, u16, u16)> {
    f.topo.switches[i]
        .ports
        .iter()
        .enumerate()
        .filter_map(|(p, x)| match x.peer {
            Peer::Switch { sw, port } => Some((sw as usize, port, p as u16)),
            _ => None,
        })
        .collect()
}

fn pruned(snap: &Value, name: &str) -> Vec<u16> {
    serde_json::from_value(Fabric::snap_of(snap, name)["pruned_ports"].clone()).unwrap()
}

/// A frame from the first host of edge switch `e` to a host in another pod: (ingress,
/// frame).
fn far_frame(f: &Fabric, e: usize, payload: &[u8]) -> (u16, Vec<u8>) {
    let (port, src) = f.host_port(e);
    let dst = f.topo.hosts.len() as u32 - 1;
    assert_ne!(src, dst);
    (port, f.frame(src, dst, payload))
}

/// 1. Push at start: every switch gets its own tables, canopyd is READY, and
///    `canopyctl fabric status` says so, naming every switch.
#[test]
fn push_at_start_loads_every_switch() {
    let _s = serial();
    let mut f = Fabric::start("start", K4);
    let n = f.topo.switches.len();
    for i in 0..n {
        let h = f.health(i);
        assert_eq!(h["tables_loaded"], json!(false), "{h}");
    }
    let cfg = f.daemon_config("cd.toml", "");
    let t0 = Instant::now();
    f.start_daemon(&cfg);
    wait_for(10.0, "every switch to report its tables loaded", || {
        (0..n)
            .all(|i| {
                let h = f.health(i);
                h["tables_loaded"] == json!(true) && h["tables"] == json!(f.name(i))
            })
            .then_some(())
    });
    println!(
        "{n} switches loaded their tables {:.0} ms after canopyd started",
        t0.elapsed().as_secs_f64() * 1e3
    );
    for i in 0..n {
        assert_eq!(f.tables(i).as_ref(), Some(&f.base[i]), "{}", f.name(i));
    }
    let snap = f.wait_ready(10.0);
    assert_eq!(Fabric::pushes(&snap), vec![1; n], "{}", summary(&snap));
    for s in snap["switches"].as_array().unwrap() {
        assert_eq!(s["up"], json!(true), "{s}");
        assert_eq!(s["tables_current"], json!(true), "{s}");
        assert_eq!(s["push_failures_total"], json!(0), "{s}");
    }
    let out = f.canopyctl(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains(": READY;"), "{text}");
    assert!(
        text.contains(&format!("{n}/{n} switches up, {n} with current tables")),
        "{text}"
    );
    for i in 0..n {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(f.name(i)))
            .unwrap_or_else(|| panic!("{} missing from:\n{text}", f.name(i)));
        assert!(line.contains(" up ") && line.contains("current"), "{line}");
    }
    // counters of every switch, then of one (the daemon polls them every second)
    let out = wait_for(5.0, "counters of every switch", || {
        let out = f.canopyctl(&["counters"]);
        let t = String::from_utf8_lossy(&out.stdout).to_string();
        (out.status.success() && !t.contains("(down: no counters)")).then_some(t)
    });
    for i in 0..n {
        assert!(out.contains(&format!("== {}\n", f.name(i))), "{out}");
    }
    let one = f.canopyctl(&["counters", f.name(3)]);
    let t = String::from_utf8_lossy(&one.stdout);
    assert!(one.status.success(), "{one:?}");
    assert_eq!(t.matches("== ").count(), 1, "{t}");
    assert!(t.contains(&format!("== {}\n", f.name(3))), "{t}");
    // the control socket is private; SIGTERM stops the daemon cleanly, the switches
    // keep their tables
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(f.control()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "control socket mode {mode:o}");
    let mut d = f.daemon.take().unwrap();
    let st = std::process::Command::new("kill")
        .args(["-TERM", &d.pid().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let code = wait_for(10.0, "canopyd to exit after SIGTERM", || {
        d.child.try_wait().unwrap()
    });
    assert!(code.success(), "{code}: {}", d.log_text());
    assert!(!f.control().exists(), "the control socket is left behind");
    for i in 0..n {
        assert_eq!(f.tables(i).as_ref(), Some(&f.base[i]), "{}", f.name(i));
    }
}

/// 2. Forwarding through pushed tables: a sliced-flit frame injected on an edge
///    switch's host port leaves on the port the model picks (and not before the push).
#[test]
fn frames_forward_through_pushed_tables() {
    let _s = serial();
    let mut f = Fabric::start("fwd", K4);
    let e = f.index("edge-p0-e0");
    let (ingress, frame) = far_frame(&f, e, b"before the push");
    // placeholder tables: dropped
    f.sw(
        e,
        &Request::Inject {
            port: ingress,
            frames: vec![hex::encode(&frame)],
        },
    );
    std::thread::sleep(Duration::from_millis(200));
    for p in 0..f.topo.switches[e].ports.len() as u16 {
        assert!(f.capture(e, p).is_empty(), "forwarded before any push");
    }
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    f.wait_ready(15.0);
    // a far destination (up a group) and a host on the same edge switch (down a port)
    let (ingress, frame) = far_frame(&f, e, b"through the pushed tables");
    let (bytes, ports) = Fabric::expect(&f.base[e], ingress, &frame);
    assert!(ports.len() > 1, "a far host is reached through a group");
    let (p, got) = f.forward(e, ingress, &frame, &ports);
    assert_eq!(got, bytes, "port {p}");
    let hosts: Vec<(u16, u32)> = f.topo.switches[e]
        .ports
        .iter()
        .enumerate()
        .filter_map(|(p, x)| match x.peer {
            Peer::Host { host, .. } => Some((p as u16, host)),
            _ => None,
        })
        .collect();
    let [(pa, ha), (pb, hb), ..] = hosts[..] else {
        panic!("edge switch with fewer than 2 hosts")
    };
    let frame = f.frame(ha, hb, b"to the neighbour host");
    let (bytes, ports) = Fabric::expect(&f.base[e], pa, &frame);
    assert_eq!(ports, vec![pb]);
    let (_, got) = f.forward(e, pa, &frame, &ports);
    assert_eq!(got, bytes);
}

/// 3. A switch killed with SIGKILL is marked DOWN and its neighbours' ports towards it
///    are pruned; restarted, it has its tables in under a second and the neighbours
///    are restored.
#[test]
fn switch_restart_is_pruned_around_then_reloaded_fast() {
    let _s = serial();
    let mut f = ready_fabric("restart", K4);
    let a = f.index("agg-p0-a0");
    let name = f.name(a).to_string();
    let nb = neighbours(&f, a);
    // the neighbour ports a dead aggregation switch must be pruned from
    let expect_pruned: Vec<(usize, u16)> = nb
        .iter()
        .filter(|(n, p, _)| group_ports(&f, *n).contains(p))
        .map(|&(n, p, _)| (n, p))
        .collect();
    assert!(
        !expect_pruned.is_empty(),
        "the topology gives {name} no neighbour group member"
    );
    let before = f.status();
    let down_before = Fabric::snap_of(&before, &name)["down_events_total"]
        .as_u64()
        .unwrap();

    f.kill_switch(a);
    let t_kill = Instant::now();
    let snap = wait_for(5.0, "the killed switch DOWN and pruned around", || {
        let s = f.status();
        let me = Fabric::snap_of(&s, &name);
        let ok = me["up"] == json!(false)
            && expect_pruned
                .iter()
                .all(|(n, p)| pruned(&s, f.name(*n)).contains(p))
            && expect_pruned
                .iter()
                .all(|(n, _)| Fabric::snap_of(&s, f.name(*n))["tables_current"] == json!(true));
        ok.then_some(s)
    });
    println!(
        "{name} DOWN and pruned around {:.0} ms after SIGKILL",
        t_kill.elapsed().as_secs_f64() * 1e3
    );
    let me = Fabric::snap_of(&snap, &name);
    assert_eq!(me["tables_current"], json!(false), "{me}");
    assert_eq!(me["down_events_total"], json!(down_before + 1), "{me}");
    assert!(
        me["last_error"].as_str().is_some_and(|e| !e.is_empty()),
        "{me}"
    );
    assert_eq!(snap["ready"], json!(false));
    // the neighbours run the pruned tables: no group keeps a port towards the dead switch
    for (n, p) in &expect_pruned {
        let t = f.tables(*n).unwrap();
        assert!(
            t.groups.iter().all(|g| !g.contains(p)),
            "{} still sends to {name} through port {p}",
            f.name(*n)
        );
    }
    // a push of everything names the dead switch and fails; the others are pushed
    let out = f.canopyctl(&["push"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        text.lines()
            .any(|l| l.starts_with(name.as_str()) && l.contains("FAILED: down")),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.ends_with(" pushed")).count(),
        f.topo.switches.len() - 1,
        "{text}"
    );
    let out = f.canopyctl(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains("NOT READY"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with(name.as_str()) && l.contains("DOWN")),
        "{text}"
    );

    // restart: time from spawn to its wanted tables
    f.spawn_switch(a);
    let started = f.switches[a].as_ref().unwrap().started;
    let sock = f.socket(a);
    let loaded = wait_for(5.0, "the restarted switch to get its tables", || {
        let h = common_daemon::request(&sock, &Request::Health {}).ok()?;
        (h["tables_loaded"] == json!(true) && h["tables"] == json!(name)).then(Instant::now)
    });
    let ms = (loaded - started).as_secs_f64() * 1e3;
    println!("restarted {name}: tables loaded {ms:.0} ms after the process started");
    assert_eq!(f.tables(a).as_ref(), Some(&f.base[a]), "{name}");
    assert!(ms < 1000.0, "{name} took {ms:.0} ms to get its tables back");
    let snap = f.wait_ready(5.0);
    println!(
        "fabric READY again {:.0} ms after the restart",
        started.elapsed().as_secs_f64() * 1e3
    );
    for (n, _) in &expect_pruned {
        assert!(pruned(&snap, f.name(*n)).is_empty(), "{}", summary(&snap));
        assert_eq!(f.tables(*n).as_ref(), Some(&f.base[*n]), "{}", f.name(*n));
    }
    let me = Fabric::snap_of(&snap, &name);
    assert_eq!(me["restarts_total"], json!(1), "{me}");
    assert_eq!(me["up"], json!(true), "{me}");
}

/// The agg switch of pod 0 and its port towards edge-p0-e0, and that edge's port
/// towards it (a drain whose neighbour must be re-pushed).
fn agg_port_to_edge(f: &Fabric) -> (usize, u16, usize, u16) {
    let a = f.index("agg-p0-a0");
    let e = f.index("edge-p0-e0");
    let (_, ep, ap) = neighbours(f, a)
        .into_iter()
        .find(|(n, _, _)| *n == e)
        .expect("agg-p0-a0 is linked to edge-p0-e0");
    assert!(group_ports(f, e).contains(&ep));
    (a, ap, e, ep)
}

/// 4. canopyd killed with SIGKILL: the switches keep forwarding with their tables, and
///    a new daemon takes over with zero pushes — also with a port set down through the
///    old daemon (it stays down and pruned).
#[test]
fn daemon_restart_takes_over_without_pushes() {
    let _s = serial();
    let mut f = ready_fabric("takeover", K4);
    let n = f.topo.switches.len();
    let (a, ap, e, ep) = agg_port_to_edge(&f);
    let an = f.name(a).to_string();
    let en = f.name(e).to_string();
    let r = f.ctl(&ControlRequest::SetPort {
        switch: an.to_string(),
        port: ap,
        up: false,
    });
    assert_eq!(r["ok"], json!(true), "{r}");
    let snap = f.wait_ready(5.0);
    assert!(pruned(&snap, &en).contains(&ep), "{}", summary(&snap));
    let tables: Vec<_> = (0..n).map(|i| f.tables(i)).collect();
    let pids: Vec<_> = (0..n).map(|i| f.health(i)["pid"].clone()).collect();

    f.kill_daemon();
    // the switches keep their tables and forward
    std::thread::sleep(Duration::from_millis(300));
    for (i, t) in tables.iter().enumerate() {
        let h = f.health(i);
        assert_eq!(h["tables_loaded"], json!(true), "{h}");
        assert_eq!(&f.tables(i), t, "{}", f.name(i));
    }
    let out = f.canopyctl(&["status"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is canopyd running?"),
        "{out:?}"
    );
    let (ingress, frame) = far_frame(&f, e, b"no daemon");
    let (bytes, ports) = Fabric::expect(tables[e].as_ref().unwrap(), ingress, &frame);
    assert!(!ports.contains(&ep), "the drained port is still used");
    let (_, got) = f.forward(e, ingress, &frame, &ports);
    assert_eq!(got, bytes);

    // a new daemon on the same (stale) control socket
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    let snap = f.wait_ready(10.0);
    // give it a few probe rounds to push if it were to
    std::thread::sleep(Duration::from_millis(700));
    let snap2 = f.status();
    assert_eq!(snap2["ready"], json!(true), "{}", summary(&snap2));
    assert_eq!(
        Fabric::pushes(&snap2),
        vec![0; n],
        "the new daemon pushed: {}\n{}",
        summary(&snap2),
        tail(&f.daemon_log(), 40)
    );
    assert_eq!(Fabric::pushes(&snap), vec![0; n]);
    for i in 0..n {
        assert_eq!(f.health(i)["pid"], pids[i]);
        assert_eq!(f.tables(i), tables[i], "{}", f.name(i));
    }
    let am = Fabric::snap_of(&snap2, &an);
    assert_eq!(am["admin_down"], json!([ap]), "{am}");
    assert!(pruned(&snap2, &en).contains(&ep), "{}", summary(&snap2));
    let h = f.health(a);
    assert_eq!(h["ports"][ap as usize]["admin"], json!(false), "{h}");

    // and the new daemon can bring the port back
    let out = f.canopyctl(&["port", &an, &ap.to_string(), "up"]);
    assert!(out.status.success(), "{out:?}");
    let snap = f.wait_ready(5.0);
    assert!(pruned(&snap, &en).is_empty(), "{}", summary(&snap));
    assert_eq!(f.tables(e).as_ref(), Some(&f.base[e]));
}

/// 3b. A port set down through the daemon stays down across a restart of its switch
///     (set down again before the push); a `port` command on a dead switch fails and
///     is forgotten (not applied when the switch comes back).
#[test]
fn admin_down_survives_a_switch_restart_and_failed_commands_are_forgotten() {
    let _s = serial();
    let mut f = ready_fabric("readmin", K4);
    let (a, ap, e, ep) = agg_port_to_edge(&f);
    let an = f.name(a).to_string();
    let en = f.name(e).to_string();
    let out = f.canopyctl(&["port", &an, &ap.to_string(), "down"]);
    assert!(out.status.success(), "{out:?}");
    f.wait_ready(5.0);

    f.kill_switch(a);
    wait_for(5.0, "the killed switch DOWN", || {
        let s = f.status();
        (Fabric::snap_of(&s, &an)["up"] == json!(false)).then_some(())
    });
    // commands on a dead switch fail, and change nothing
    let other = (0..f.topo.switches[a].ports.len() as u16)
        .find(|&p| p != ap)
        .unwrap();
    let before = f.status();
    for (port, state) in [(other, "down"), (ap, "up")] {
        let out = f.canopyctl(&["port", &an, &port.to_string(), state]);
        assert_eq!(out.status.code(), Some(1), "port {port} {state}: {out:?}");
    }
    let after = f.status();
    assert_eq!(
        Fabric::snap_of(&after, &an)["admin_down"],
        json!([ap]),
        "{}",
        summary(&after)
    );
    assert_eq!(Fabric::pushes(&after), Fabric::pushes(&before));

    f.spawn_switch(a);
    let snap = f.wait_ready(5.0);
    let h = f.health(a);
    assert_eq!(
        h["ports"][ap as usize]["admin"],
        json!(false),
        "the drained port is up again after the restart: {h}"
    );
    assert_eq!(
        h["ports"][other as usize]["admin"],
        json!(true),
        "a failed `port down` was applied later: {h}"
    );
    assert_eq!(Fabric::snap_of(&snap, &an)["admin_down"], json!([ap]));
    assert!(pruned(&snap, &en).contains(&ep), "{}", summary(&snap));
    assert!(f.tables(e).unwrap().groups.iter().all(|g| !g.contains(&ep)));

    // again, with a switch that comes back with the right tables by itself (its own
    // [tables]): the port must still be set down again
    let pushes = Fabric::snap_of(&snap, &an)["pushes_total"]
        .as_u64()
        .unwrap();
    f.kill_switch(a);
    wait_for(5.0, "the killed switch DOWN", || {
        let s = f.status();
        (Fabric::snap_of(&s, &an)["up"] == json!(false)).then_some(())
    });
    f.opts[a].static_tables = true;
    f.spawn_switch(a);
    f.wait_switch_socket(a);
    assert_eq!(f.health(a)["tables_loaded"], json!(true));
    let snap = f.wait_ready(5.0);
    let res = std::panic::catch_unwind(|| {
        wait_for(2.0, "the drained port set down again", || {
            (f.health(a)["ports"][ap as usize]["admin"] == json!(false)).then_some(())
        })
    });
    assert!(
        res.is_ok(),
        "the drained port is up on a switch restarted with its own tables: {}",
        f.health(a)
    );
    assert!(
        Fabric::snap_of(&snap, &an)["pushes_total"]
            .as_u64()
            .unwrap()
            <= pushes + 1
    );

    let out = f.canopyctl(&["port", &an, &ap.to_string(), "up"]);
    assert!(out.status.success(), "{out:?}");
    let snap = f.wait_ready(5.0);
    assert!(pruned(&snap, &en).is_empty(), "{}", summary(&snap));
    assert_eq!(f.health(a)["ports"][ap as usize]["admin"], json!(true));
}

/// 4b. A daemon restarted while a switch is dead adopts the pruned tables the
///     neighbours run (no push), and restores them when the switch comes back.
#[test]
fn daemon_restart_with_a_dead_switch_adopts_the_pruned_tables() {
    let _s = serial();
    let mut f = ready_fabric("takeover-dead", K4);
    let n = f.topo.switches.len();
    let (a, _, e, ep) = agg_port_to_edge(&f);
    let en = f.name(e).to_string();
    f.kill_switch(a);
    wait_for(5.0, "the neighbours pruned", || {
        let s = f.status();
        (pruned(&s, &en).contains(&ep) && Fabric::snap_of(&s, &en)["tables_current"] == json!(true))
            .then_some(())
    });
    let tables: Vec<_> = (0..n).map(|i| (i != a).then(|| f.tables(i))).collect();
    f.kill_daemon();
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    let snap = wait_for(5.0, "every live switch current", || {
        let s = f.status();
        s["switches"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .all(|(i, w)| i == a || w["tables_current"] == json!(true))
            .then_some(s)
    });
    std::thread::sleep(Duration::from_millis(500));
    let snap2 = f.status();
    assert_eq!(Fabric::pushes(&snap2), vec![0; n], "{}", summary(&snap2));
    assert!(pruned(&snap, &en).contains(&ep), "{}", summary(&snap));
    for (i, t) in tables.iter().enumerate() {
        if let Some(t) = t {
            assert_eq!(&f.tables(i), t, "{}", f.name(i));
        }
    }
    f.spawn_switch(a);
    let snap = f.wait_ready(5.0);
    assert!(pruned(&snap, &en).is_empty(), "{}", summary(&snap));
    assert_eq!(f.tables(e).as_ref(), Some(&f.base[e]));
}

/// 3c. A switch restarted faster than the daemon declares it down (a new pid between
///     two probes) gets its tables again; tables replaced behind the daemon's back are
///     noticed at the next read-back and pushed again.
#[test]
fn fast_restart_and_tables_replaced_behind_the_daemon() {
    let _s = serial();
    let mut f = Fabric::start("fast", K4);
    let cfg = f.daemon_config_with("cd.toml", "verify_interval_ms = 300", "");
    f.start_daemon(&cfg);
    f.wait_ready(15.0);
    let c = f.index("core-c1");
    let name = f.name(c).to_string();
    let down0 = Fabric::snap_of(&f.status(), &name)["down_events_total"].clone();
    f.kill_switch(c);
    f.spawn_switch(c);
    let started = f.switches[c].as_ref().unwrap().started;
    let sock = f.socket(c);
    let loaded = wait_for(5.0, "the restarted switch to get its tables", || {
        let h = common_daemon::request(&sock, &Request::Health {}).ok()?;
        (h["tables_loaded"] == json!(true)).then(Instant::now)
    });
    let ms = (loaded - started).as_secs_f64() * 1e3;
    println!("fast restart of {name}: tables loaded {ms:.0} ms after the process started");
    assert!(ms < 1000.0, "{ms:.0} ms");
    let snap = f.wait_ready(5.0);
    assert_eq!(f.tables(c).as_ref(), Some(&f.base[c]));
    let me = Fabric::snap_of(&snap, &name);
    assert_eq!(me["restarts_total"], json!(1), "{me}");
    assert_eq!(me["down_events_total"], down0, "declared down: {me}");

    // someone else's tables (another edge switch's: the same ports)
    let e0 = f.index("edge-p0-e0");
    let e1 = f.index("edge-p0-e1");
    let pushes0 = Fabric::snap_of(&f.status(), f.name(e0))["pushes_total"]
        .as_u64()
        .unwrap();
    let tables = serde_json::to_value(&f.base[e1]).unwrap();
    let r = f.sw(e0, &Request::ReplaceTables { tables });
    assert_eq!(r["ok"], json!(true));
    assert_eq!(f.tables(e0).as_ref(), Some(&f.base[e1]));
    let t0 = Instant::now();
    wait_for(3.0, "the daemon to restore the tables", || {
        (f.tables(e0).as_ref() == Some(&f.base[e0])).then_some(())
    });
    println!(
        "tables replaced behind the daemon's back restored in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    let snap = f.wait_ready(3.0);
    assert_eq!(
        Fabric::snap_of(&snap, f.name(e0))["pushes_total"],
        json!(pushes0 + 1)
    );
}

/// 3d. canopyd started before the switches: every switch DOWN, then READY once they
///     run, each with the unpruned tables.
#[test]
fn daemon_first_then_switches() {
    let _s = serial();
    let mut f = Fabric::start("first", K4);
    let n = f.topo.switches.len();
    for i in 0..n {
        f.kill_switch(i);
    }
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    wait_for(5.0, "every switch DOWN", || {
        let s = f.status();
        s["switches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["up"] == json!(false) && w["last_error"].is_string())
            .then_some(())
    });
    let out = f.canopyctl(&["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("0/{n} switches up")), "{text}");
    let t0 = Instant::now();
    f.start_all();
    let snap = f.wait_ready(10.0);
    println!(
        "{n} switches started after the daemon: READY in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    for i in 0..n {
        assert_eq!(f.tables(i).as_ref(), Some(&f.base[i]), "{}", f.name(i));
        assert!(pruned(&snap, f.name(i)).is_empty(), "{}", summary(&snap));
    }
}

/// 3e. A hung switch (SIGSTOP) is declared DOWN and pruned around; resumed (SIGCONT)
///     it is up again with the tables it kept (no push, no restart), and its
///     neighbours are restored.
#[test]
fn hung_switch_is_pruned_around_and_resumes() {
    let _s = serial();
    let f = ready_fabric("hung", K4);
    let a = f.index("agg-p1-a1");
    let name = f.name(a).to_string();
    let nb: Vec<(usize, u16)> = neighbours(&f, a)
        .into_iter()
        .filter(|(n, p, _)| group_ports(&f, *n).contains(p))
        .map(|(n, p, _)| (n, p))
        .collect();
    assert!(!nb.is_empty());
    let pushes0 = Fabric::snap_of(&f.status(), &name)["pushes_total"].clone();
    f.signal_switch(a, "STOP");
    let t0 = Instant::now();
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for(5.0, "the hung switch DOWN and pruned around", || {
            let s = f.status();
            let ok = Fabric::snap_of(&s, &name)["up"] == json!(false)
                && nb.iter().all(|(n, p)| {
                    pruned(&s, f.name(*n)).contains(p)
                        && Fabric::snap_of(&s, f.name(*n))["tables_current"] == json!(true)
                });
            ok.then_some(())
        })
    }));
    println!(
        "hung {name}: DOWN and pruned around in {:.0} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    f.signal_switch(a, "CONT");
    if let Err(p) = res {
        std::panic::resume_unwind(p);
    }
    let snap = f.wait_ready(5.0);
    let me = Fabric::snap_of(&snap, &name);
    assert_eq!(me["restarts_total"], json!(0), "{me}");
    assert_eq!(me["pushes_total"], pushes0, "{me}");
    assert_eq!(me["down_events_total"], json!(1), "{me}");
    for (n, _) in &nb {
        assert!(pruned(&snap, f.name(*n)).is_empty(), "{}", summary(&snap));
        assert_eq!(f.tables(*n).as_ref(), Some(&f.base[*n]), "{}", f.name(*n));
    }
}

/// 5. Port drain: `canopyctl fabric port SWITCH P down` re-pushes the neighbours before
///    the port goes down, the port is admin down, `up` restores everything.
#[test]
fn port_drain_repushes_neighbours_before_the_port_goes_down() {
    let _s = serial();
    let f = ready_fabric("drain", K4);
    let n = f.topo.switches.len();
    let (a, ap, e, ep) = agg_port_to_edge(&f);
    let an = f.name(a).to_string();
    let en = f.name(e).to_string();
    let before = Fabric::pushes(&f.status());

    // watch the order from outside: never the port down while the neighbour's groups
    // still use the link
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (sa, se) = (f.socket(a), f.socket(e));
    let st = stop.clone();
    let watcher = std::thread::spawn(move || {
        let mut seen_down = false;
        let mut rounds = 0u64;
        while !st.load(std::sync::atomic::Ordering::Acquire) {
            // the port first, then the tables: tables read after the port was seen
            // down that still use the link mean the port went down first
            let h = common_daemon::request(&sa, &Request::Health {}).unwrap();
            let down = h["ports"][ap as usize]["admin"] == json!(false);
            let t = common_daemon::request(&se, &Request::GetTables {}).unwrap();
            let uses = t["tables"]["groups"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g.as_array().unwrap().contains(&json!(ep)));
            if down && uses {
                return Err(format!("port {ap} down while {ep} is still in a group"));
            }
            seen_down |= down;
            rounds += 1;
        }
        Ok((seen_down, rounds))
    });
    let out = f.canopyctl(&["port", &an, &ap.to_string(), "down"]);
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, std::sync::atomic::Ordering::Release);
    let watched = watcher.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{out:?}");
    let (seen_down, rounds) = watched.unwrap();
    assert!(
        seen_down,
        "the watcher never saw the port down ({rounds} rounds)"
    );
    println!("drain: {}; watched {rounds} rounds", text.trim());
    // "... is down; N switch(es) re-pushed first"
    let repushed: usize = text
        .split("; ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no re-push count in {text:?}"));
    assert!(repushed >= 1, "{text}");
    let snap = f.wait_ready(5.0);
    let after = Fabric::pushes(&snap);
    let grown: Vec<usize> = (0..n).filter(|&i| after[i] > before[i]).collect();
    assert!(grown.contains(&e), "{en} not re-pushed: {}", summary(&snap));
    assert_eq!(grown.len(), repushed, "{}", summary(&snap));
    assert!(pruned(&snap, &en).contains(&ep), "{}", summary(&snap));
    assert_eq!(Fabric::snap_of(&snap, &an)["admin_down"], json!([ap]));
    let h = f.health(a);
    assert_eq!(h["ports"][ap as usize]["admin"], json!(false), "{h}");
    assert!(f.tables(e).unwrap().groups.iter().all(|g| !g.contains(&ep)));
    // the status text shows the drained port (at the daemon's next probe)
    wait_for(3.0, "the drained port in `canopyctl fabric status`", || {
        let out = f.canopyctl(&["status"]);
        let st = String::from_utf8_lossy(&out.stdout).to_string();
        (out.status.success()
            && st.contains(&format!("port {ap:>3} p{ap}"))
            && st.contains("admin DOWN"))
        .then_some(())
    });

    let out = f.canopyctl(&["port", &an, &ap.to_string(), "up"]);
    assert!(out.status.success(), "{out:?}");
    let snap = f.wait_ready(5.0);
    let h = f.health(a);
    assert_eq!(h["ports"][ap as usize]["admin"], json!(true), "{h}");
    for i in 0..n {
        assert!(pruned(&snap, f.name(i)).is_empty(), "{}", summary(&snap));
        assert_eq!(f.tables(i).as_ref(), Some(&f.base[i]), "{}", f.name(i));
    }
    assert_eq!(Fabric::snap_of(&snap, &an)["admin_down"], json!([]));
}

/// 6. Hostile requests on the control socket: each answered with a clear error, nothing
///    changes, the daemon keeps working.
#[test]
fn hostile_control_requests_change_nothing() {
    let _s = serial();
    let f = ready_fabric("hostile", K4);
    let n = f.topo.switches.len();
    let snap0 = f.status();
    let pushes0 = Fabric::pushes(&snap0);
    let tables0: Vec<_> = (0..n).map(|i| f.tables(i)).collect();
    let c = f.control();
    let one = |bytes: &[u8]| -> String {
        let v = raw_exchange(&c, bytes, Duration::from_secs(15));
        assert_eq!(v.len(), 1, "one answer expected: {v:?}");
        expect_err(&v[0])
    };
    let e = one(b"this is not json\n");
    assert!(e.contains("bad request"), "{e}");
    // `hello`: the daemon's version is answered and the connection goes on; another
    // version is refused, naming both and what to upgrade, and the connection closed
    // (the `status` after it is not answered)
    let hello = |version| line(&ControlRequest::Hello { version });
    let status = line(&ControlRequest::Status {});
    let v = raw_exchange(
        &c,
        &[hello(PROTOCOL_VERSION), status.clone()].concat(),
        Duration::from_secs(15),
    );
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(
        v[0],
        json!({"ok": true, "version": PROTOCOL_VERSION, "server": "canopyd"})
    );
    assert_eq!(v[1]["ok"], json!(true));
    for (client, upgrade) in [
        (PROTOCOL_VERSION + 1, "upgrade canopyd"),
        (PROTOCOL_VERSION - 1, "upgrade the client"),
    ] {
        let e = one(&[hello(client), status.clone()].concat());
        for want in [
            format!("the client speaks version {client}"),
            format!("canopyd speaks version {PROTOCOL_VERSION}"),
            upgrade.to_string(),
        ] {
            assert!(e.contains(&want), "{e:?} lacks {want:?}");
        }
    }
    let e = one(b"{\"op\": \"reboot\"}\n");
    assert!(e.contains("bad request") && e.contains("reboot"), "{e}");
    let e = one(b"{\"op\": \"status\", \"verbose\": true}\n");
    assert!(e.contains("unknown field") && e.contains("verbose"), "{e}");
    let e = one(b"[1,2,3]\n");
    assert!(e.contains("bad request"), "{e}");
    let e =
        one(b"{\"op\": \"set_port\", \"switch\": \"core-c0\", \"port\": 70000, \"up\": false}\n");
    assert!(e.contains("bad request"), "{e}");
    let mut big = vec![b'x'; (1 << 20) + 4096];
    big.push(b'\n');
    let e = one(&big);
    assert!(e.contains("larger than"), "{e}");
    let nope = || Some("nope-x9".to_string());
    for req in [
        ControlRequest::Push { switch: nope() },
        ControlRequest::Counters { switch: nope() },
    ] {
        let e = expect_err(&f.ctl(&req));
        assert!(e.contains("no switch named \"nope-x9\""), "{e}");
    }
    let e = expect_err(&f.ctl(&ControlRequest::SetPort {
        switch: "nope-x9".into(),
        port: 0,
        up: false,
    }));
    assert!(e.contains("no switch named"), "{e}");
    let ports = f.topo.switches[0].ports.len();
    let e = expect_err(&f.ctl(&ControlRequest::SetPort {
        switch: f.name(0).to_string(),
        port: ports as u16,
        up: false,
    }));
    assert!(e.contains(&format!("ports 0..{ports}")), "{e}");
    let out = f.canopyctl(&["port", f.name(0), "99", "down"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not 99"),
        "{out:?}"
    );
    let out = f.canopyctl(&["push", "nope-x9"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no switch named"),
        "{out:?}"
    );
    // a traffic report with too many buckets
    let many: Vec<(u64, u64)> = (0..100_001).map(|i| (i, 1)).collect();
    let e = one(&line(&ControlRequest::Traffic {
        sent: 1,
        received: 1,
        lost: 0,
        misdelivered: 0,
        latency_ns: many,
    }));
    assert!(e.contains("latency buckets"), "{e}");

    // traffic reports whose numbers overflow: accepted or refused, never a dead daemon
    // (more of them than connection slots: a connection lost to a panic leaks one)
    for _ in 0..10 {
        let overflowing = ControlRequest::Traffic {
            sent: u64::MAX,
            received: u64::MAX,
            lost: u64::MAX,
            misdelivered: u64::MAX,
            latency_ns: vec![(u64::MAX, u64::MAX), (1, u64::MAX)],
        };
        let v = raw_exchange(&c, &line(&overflowing), Duration::from_secs(15));
        assert_eq!(
            v.len(),
            1,
            "no answer to an overflowing traffic report: {v:?}"
        );
    }
    let r = f.ctl(&ControlRequest::Status {});
    assert_eq!(r["ok"], json!(true), "{r}");
    let e = one(b"\xff\xfe\x00\n");
    assert!(e.contains("bad request"), "{e}");

    // pipelined requests on one connection, garbage between them: one answer each, in
    // order
    let mut lines = line(&ControlRequest::Status {});
    lines.extend_from_slice(b"\n   \n{oops\n");
    lines.extend(line(&ControlRequest::Counters {
        switch: Some("core-c0".into()),
    }));
    let v = raw_exchange(&c, &lines, Duration::from_secs(15));
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(v[0]["ok"], json!(true));
    assert!(expect_err(&v[1]).contains("bad request"));
    assert_eq!(v[2]["ok"], json!(true));
    assert_eq!(v[2]["switches"][0]["switch"], json!("core-c0"), "{}", v[2]);

    // a second daemon on the same control socket refuses to start
    let cfg = f.daemon_config("second.toml", "");
    let out = std::process::Command::new(common_daemon::bin("canopyd"))
        .args(["--config", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("another canopyd is already listening"),
        "{out:?}"
    );

    // 20 connections at once (at most 8 are served); earlier connections may hold
    // a slot for a moment after their answer, so a round with fewer served is retried
    let burst = || {
        let mut conns = vec![];
        for _ in 0..20 {
            let s = std::os::unix::net::UnixStream::connect(&c).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(1500)))
                .unwrap();
            conns.push(s);
        }
        std::thread::sleep(Duration::from_millis(300));
        let (mut served, mut refused) = (0, 0);
        for s in &mut conns {
            use std::io::{BufRead, Write};
            let _ = s.write_all(&common_daemon::line(&ControlRequest::Status {}));
            let mut line = String::new();
            let _ = std::io::BufReader::new(&*s).read_line(&mut line);
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if v["ok"] == json!(true) {
                served += 1;
            } else {
                let e = expect_err(&v);
                assert!(e.contains("too many control connections"), "{e}");
                refused += 1;
            }
        }
        (served, refused)
    };
    let mut rounds = vec![];
    for _ in 0..3 {
        let (served, refused) = burst();
        println!("20 connections: {served} served, {refused} refused");
        rounds.push((served, refused));
        assert!(served <= 8 && served + refused == 20, "{rounds:?}");
        if served == 8 {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(rounds.last(), Some(&(8, 12)), "{rounds:?}");
    std::thread::sleep(Duration::from_millis(100));

    // nothing changed, and the daemon still works
    let snap = f.wait_ready(5.0);
    assert_eq!(Fabric::pushes(&snap), pushes0, "{}", summary(&snap));
    for (i, t) in tables0.iter().enumerate() {
        assert_eq!(&f.tables(i), t, "{}", f.name(i));
        assert_eq!(Fabric::snap_of(&snap, f.name(i))["admin_down"], json!([]));
    }
    let out = f.canopyctl(&["status"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("traffic reports: sent "),
        "{out:?}"
    );
    let out = f.canopyctl(&["push", f.name(0)]);
    assert!(out.status.success(), "{out:?}");
    let snap = f.wait_ready(5.0);
    assert_eq!(Fabric::pushes(&snap)[0], pushes0[0] + 1);
}

/// 7. A switch whose ports do not match the topology: its push fails with the switch's
///    message, it is never current, `canopyctl fabric push NAME` exits 1 with the
///    reason; every other switch is current.
#[test]
fn tables_that_do_not_fit_a_switch_are_refused_and_reported() {
    let _s = serial();
    let mut f = Fabric::start_with("mismatch", K4, |i, o| {
        if i == 0 {
            o.ports = Some(3);
        }
    });
    let bad = f.name(0).to_string();
    assert_eq!(f.topo.switches[0].ports.len(), 4);
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    let snap = wait_for(
        10.0,
        "every other switch current, the bad one failing",
        || {
            let s = f.status();
            let others = s["switches"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|w| w["name"] != json!(bad))
                .all(|w| w["tables_current"] == json!(true));
            let b = Fabric::snap_of(&s, &bad);
            (others && b["push_failures_total"].as_u64().unwrap() >= 1).then_some(s)
        },
    );
    let b = Fabric::snap_of(&snap, &bad);
    assert_eq!(b["up"], json!(true), "{b}");
    assert_eq!(b["tables_current"], json!(false), "{b}");
    assert_eq!(b["pushes_total"], json!(0), "{b}");
    assert_eq!(snap["ready"], json!(false));
    let h = f.health(0);
    assert_eq!(h["tables_loaded"], json!(false), "{h}");
    let fails = b["push_failures_total"].as_u64().unwrap();

    let out = f.canopyctl(&["push", &bad]);
    let so = String::from_utf8_lossy(&out.stdout);
    let se = String::from_utf8_lossy(&out.stderr);
    println!("canopyctl fabric push {bad}: {so}{se}");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let line = so
        .lines()
        .find(|l| l.starts_with(bad.as_str()))
        .unwrap_or_else(|| panic!("{bad} not named: {so}"));
    assert!(line.contains("FAILED"), "{line}");
    assert!(line.contains("port"), "the switch's reason (ports): {line}");
    assert!(se.contains("some pushes failed"), "{se}");
    let snap = f.status();
    let b = Fabric::snap_of(&snap, &bad);
    assert!(b["push_failures_total"].as_u64().unwrap() > fails, "{b}");
    // pushing another switch works
    let out = f.canopyctl(&["push", f.name(1)]);
    assert!(out.status.success(), "{out:?}");
    // canopyctl status names the stale switch
    let out = f.canopyctl(&["status"]);
    let st = String::from_utf8_lossy(&out.stdout);
    assert!(st.contains("NOT READY"), "{st}");
    assert!(
        st.lines()
            .any(|l| l.starts_with(bad.as_str()) && l.contains("stale")),
        "{st}"
    );
    // a port the switch does not have: refused by the switch, and forgotten
    let out = f.canopyctl(&["port", &bad, "3", "down"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let snap = f.status();
    assert_eq!(
        Fabric::snap_of(&snap, &bad)["admin_down"],
        json!([]),
        "{}",
        summary(&snap)
    );
    // restarted with the right ports, it gets its tables and the fabric is READY
    f.kill_switch(0);
    f.opts[0].ports = None;
    f.spawn_switch(0);
    let snap = f.wait_ready(5.0);
    assert_eq!(Fabric::snap_of(&snap, &bad)["pushes_total"], json!(1));
    assert_eq!(f.tables(0).as_ref(), Some(&f.base[0]));
}

/// 8. A switch reached over TCP with a token: works with the right token; with a wrong
///    one the switch is DOWN with the auth error and the switch counts the failures.
#[test]
fn tcp_endpoint_with_token() {
    use std::os::unix::fs::PermissionsExt;
    let _s = serial();
    let tokdir = Dir::new("tok");
    let tok = tokdir.path("mgmt.token");
    std::fs::write(&tok, "0123456789abcdef0123456789abcdef\n").unwrap();
    std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(0o600)).unwrap();
    let wrong = tokdir.path("wrong.token");
    std::fs::write(&wrong, "ffffffffffffffffffffffffffffffff\n").unwrap();
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).unwrap();
    let tcp_sw = "core-c0";
    let topo = canopy_control::build_str(K2).unwrap();
    let ti = topo.switches.iter().position(|s| s.name == tcp_sw).unwrap();
    let mut f = Fabric::start_with("tcp", K2, |i, o| {
        if i == ti {
            o.extra_mgmt = format!(
                "tcp = \"127.0.0.1:0\"\ntoken_file = \"{}\"\n",
                tok.display()
            );
        }
    });
    let h = f.health(ti);
    let addr = h["tcp"]
        .as_str()
        .expect("health names the bound address")
        .to_string();
    assert!(
        addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"),
        "{addr}"
    );
    let extra = |t: &std::path::Path| {
        format!(
            "[[switch]]\nname = \"{tcp_sw}\"\ntcp = \"{addr}\"\ntoken_file = \"{}\"\n",
            t.display()
        )
    };
    let cfg = f.daemon_config("good.toml", &extra(&tok));
    f.start_daemon(&cfg);
    let snap = f.wait_ready(10.0);
    let me = Fabric::snap_of(&snap, tcp_sw);
    assert_eq!(me["endpoint"], json!(format!("tcp {addr}")), "{me}");
    assert_eq!(me["pushes_total"], json!(1), "{me}");
    assert_eq!(f.tables(ti).as_ref(), Some(&f.base[ti]));
    assert_eq!(f.health(ti)["auth_failures"], json!(0));
    f.kill_daemon();

    let cfg = f.daemon_config("wrong.toml", &extra(&wrong));
    f.start_daemon(&cfg);
    let snap = wait_for(5.0, "the TCP switch DOWN with an auth error", || {
        let s = f.status();
        let me = Fabric::snap_of(&s, tcp_sw);
        (me["up"] == json!(false) && me["last_error"].is_string()).then_some(s)
    });
    let me = Fabric::snap_of(&snap, tcp_sw);
    let err = me["last_error"].as_str().unwrap();
    println!("wrong token: {err}");
    assert!(err.contains("token"), "{err}");
    assert_eq!(snap["ready"], json!(false));
    let a1 = f.health(ti)["auth_failures"].as_u64().unwrap();
    assert!(a1 >= 1, "auth_failures {a1}");
    std::thread::sleep(Duration::from_millis(400));
    let a2 = f.health(ti)["auth_failures"].as_u64().unwrap();
    assert!(a2 > a1, "auth_failures does not grow: {a1} then {a2}");
    // the others are fine (they keep the tables of the first daemon)
    wait_for(5.0, "the other switches current", || {
        let s = f.status();
        s["switches"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["name"] != json!(tcp_sw))
            .all(|w| w["tables_current"] == json!(true) && w["pushes_total"] == json!(0))
            .then_some(())
    });
}

/// 9. `canopyd --check`: exit 0 with a summary on a good file, exit 2 with
///    `file: key: what (line N)` on bad ones.
#[test]
fn check_good_and_bad_configs() {
    let d = Dir::new("check");
    let good = "name = \"lab\"\ntopology = \"fat-tree:k=4\"\nkind = \"sliced\"\n[daemon]\nmetrics = \"off\"\ncontrol = \"/tmp/x/canopyd.sock\"\n[switches]\nsocket = \"/run/canopy/{name}.sock\"\n";
    let run = |name: &str, text: &str| {
        let p = d.path(name);
        std::fs::write(&p, text).unwrap();
        let out = std::process::Command::new(common_daemon::bin("canopyd"))
            .args(["--check", "--config", p.to_str().unwrap()])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
            p.display().to_string(),
        )
    };
    let (code, so, se, _) = run("good.toml", good);
    assert_eq!(code, Some(0), "{so}{se}");
    assert!(
        so.contains("configuration OK") && so.contains("20 switches"),
        "{so}"
    );
    assert!(!std::path::Path::new("/tmp/x/canopyd.sock").exists());
    let cases: &[(&str, String, &str)] = &[
        (
            "kind.toml",
            good.replace("sliced", "slicd"),
            "kind: \"slicd\"",
        ),
        (
            "name.toml",
            good.replace("\"lab\"", "\"Lab!\""),
            "name: \"Lab!\"",
        ),
        (
            "sw.toml",
            format!("{good}[[switch]]\nname = \"nope\"\nsocket = \"/x\"\n"),
            "switch[0].name: no switch named \"nope\"",
        ),
        (
            "topo.toml",
            good.replace("k=4", "k=3"),
            "topology: \"fat-tree:k=3\"",
        ),
        (
            "both.toml",
            format!(
                "{good}[[switch]]\nname = \"core-c0\"\nsocket = \"/x\"\ntcp = \"127.0.0.1:7000\"\n"
            ),
            "switch[0]: give either socket or tcp",
        ),
    ];
    for (file, text, want) in cases {
        let (code, so, se, path) = run(file, text);
        assert_eq!(code, Some(2), "{file}: {so}{se}");
        let want = format!("{path}: {want}");
        assert!(se.contains(&want), "{file}: want {want:?} in {se}");
        assert!(
            se.trim_end().ends_with(')') && se.contains("(line "),
            "{file}: no line in {se}"
        );
    }
    // no line to give: the key is enough; syntax errors carry the parser's position
    for (file, text, want) in [
        ("probe.toml", format!("{good}probe = 1\n"), "unknown field"),
        (
            "interval.toml",
            good.replace(
                "metrics = \"off\"",
                "metrics = \"off\"\nprobe_interval_ms = 1",
            ),
            "daemon.probe_interval_ms: 1 is outside",
        ),
        (
            "tcp.toml",
            good.replace(
                "socket = \"/run/canopy/{name}.sock\"",
                "tcp = \"{name}:7000\"",
            ),
            "switches.token_file",
        ),
        (
            "missing.toml",
            "name = \"lab\"\n".to_string(),
            "missing field",
        ),
        (
            "same.toml",
            good.replace("{name}.sock", "sw.sock"),
            "switches.socket: /run/canopy/sw.sock is the endpoint of both",
        ),
        (
            "same2.toml",
            format!(
                "{good}[[switch]]\nname = \"core-c0\"\nsocket = \"/run/canopy/core-c1.sock\"\n"
            ),
            "every switch needs its own",
        ),
    ] {
        let (code, so, se, path) = run(file, &text);
        assert_eq!(code, Some(2), "{file}: {so}{se}");
        assert!(
            se.contains(&path) && se.contains(want),
            "{file}: want {want:?} in {se}"
        );
    }
}
