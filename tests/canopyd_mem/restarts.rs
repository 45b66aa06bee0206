//! Switch and daemon restarts, dead and hung switches.

use super::*;
use canopy_proto::mgmt::Health;
use canopy_proto::serve::{self, Answer, Limits, Service};
use canopy_proto::version::{answer_hello, SWITCH};
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};

/// 3. A switch killed with SIGKILL is marked DOWN and its neighbours' ports towards it
///    are pruned; restarted, it has its tables in under a second and the neighbours
///    are restored.
#[test]
fn switch_restart_is_pruned_around_then_reloaded_fast() {
    let _s = serial();
    let mut f = ready_fabric("restart", K4);
    let a = f.index("agg-p0-a0");
    let name = f.name(a).to_string();
    // the neighbour ports a dead aggregation switch must be pruned from
    let expect_pruned = ports_to_prune(&f, a);
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
        let h = request(&sock, &Request::Health {}).ok()?;
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
    // the pruning reaches switches beyond the neighbours in later pushes: wait until
    // every live switch is current and nothing was pushed for a while
    let live_current = |s: &serde_json::Value| {
        s["switches"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .all(|(i, w)| i == a || w["tables_current"] == json!(true))
    };
    let tables = wait_for(10.0, "the pruning settled", || {
        let s = f.status();
        if !(pruned(&s, &en).contains(&ep) && live_current(&s)) {
            return None;
        }
        let before: Vec<_> = (0..n).map(|i| (i != a).then(|| f.tables(i))).collect();
        std::thread::sleep(Duration::from_millis(300));
        let s2 = f.status();
        let after: Vec<_> = (0..n).map(|i| (i != a).then(|| f.tables(i))).collect();
        (live_current(&s2) && Fabric::pushes(&s) == Fabric::pushes(&s2) && before == after)
            .then_some(after)
    });
    f.kill_daemon();
    let cfg = f.daemon_config("cd.toml", "");
    f.start_daemon(&cfg);
    let snap = wait_for(5.0, "every live switch current", || {
        let s = f.status();
        live_current(&s).then_some(s)
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
        let h = request(&sock, &Request::Health {}).ok()?;
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
    let tables = serde_json::value::to_raw_value(&f.base[e1]).unwrap();
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

/// The fake switch of [`neighbours_wait_for_a_restarted_switch_with_a_slow_read_back`]:
/// answers `health` as a new process, its tables read-back only after `delay`, and
/// records when its tables were pushed.
struct SlowReadBack {
    health: Health,
    delay: Duration,
    pushed: Mutex<Option<Instant>>,
}

impl Service for SlowReadBack {
    fn answer(&self, line: &[u8]) -> Answer {
        let req: Request = match serde_json::from_slice(line) {
            Ok(r) => r,
            Err(e) => return Answer::error(e),
        };
        match req {
            Request::Health {} => {
                let mut h = self.health.clone();
                h.tables_loaded = self.pushed.lock().unwrap().is_some();
                let mut v = serde_json::to_value(&h).unwrap();
                v["ok"] = json!(true);
                Answer::json(&v)
            }
            Request::GetTables {} => {
                std::thread::sleep(self.delay);
                Answer::json(&json!({"ok": true, "tables": null}))
            }
            Request::ReplaceTables { .. } => {
                self.pushed.lock().unwrap().get_or_insert_with(Instant::now);
                Answer::json(&json!({"ok": true}))
            }
            Request::Hello { version } => Answer::json(&answer_hello(SWITCH, version)),
            other => Answer::error(format!("{}: not in this fake", other.op())),
        }
    }
}

/// 3b. A switch that comes back as a new process is read back first (a restarted
///     daemon adopts tables that are already right). Its neighbours stay pruned around
///     it until it has its tables, even when that read-back takes long and the planner
///     runs meanwhile: restored earlier, they would send it frames it drops (it has no
///     tables yet).
#[test]
fn neighbours_wait_for_a_restarted_switch_with_a_slow_read_back() {
    let _s = serial();
    let mut f = ready_fabric("slowback", K4);
    let a = f.index("agg-p0-a0");
    let expect_pruned = ports_to_prune(&f, a);
    assert!(!expect_pruned.is_empty());
    let mut health: Health = serde_json::from_value(f.health(a)).unwrap();
    f.kill_switch(a);
    wait_for(5.0, "the killed switch pruned around", || {
        let s = f.status();
        expect_pruned
            .iter()
            .all(|(n, p)| pruned(&s, f.name(*n)).contains(p))
            .then_some(())
    });
    // the new process, as the daemon sees it
    health.pid = 4_000_000;
    health.instance = 1;
    health.tables = None;
    let delay = Duration::from_millis(1500);
    let fake = Arc::new(SlowReadBack {
        health,
        delay,
        pushed: Mutex::new(None),
    });
    let sock = f.socket(a);
    let _ = std::fs::remove_file(&sock);
    let listener = UnixListener::bind(&sock).unwrap();
    let limits = Limits {
        max_conns: 8,
        max_request: 64 << 20,
        read_timeout: Duration::from_secs(10),
    };
    let t0 = Instant::now();
    let _server = serve::spawn_unix(
        listener,
        sock.clone(),
        fake.clone(),
        limits,
        Arc::default(),
        "fake-switch",
    )
    .unwrap();
    let restored = |n: usize, p: u16| {
        f.tables(n)
            .is_some_and(|t| t.groups.iter().any(|g| g.contains(&p)))
    };
    let mut first_restored = None;
    let deadline = t0 + Duration::from_secs(8);
    while Instant::now() < deadline {
        if first_restored.is_none() && expect_pruned.iter().any(|&(n, p)| restored(n, p)) {
            first_restored = Some(Instant::now());
        }
        if first_restored.is_some() && fake.pushed.lock().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let pushed = fake
        .pushed
        .lock()
        .unwrap()
        .expect("the switch that came back was never pushed");
    let restored_at = first_restored.expect("its neighbours were never restored");
    println!(
        "pushed {:.0} ms after it answered, neighbours restored {:.0} ms after",
        (pushed - t0).as_secs_f64() * 1e3,
        (restored_at - t0).as_secs_f64() * 1e3
    );
    assert!(pushed - t0 >= delay, "pushed before its read-back ended");
    assert!(
        restored_at >= pushed,
        "a neighbour was restored {:.0} ms before the switch it leads to had tables",
        (pushed - restored_at).as_secs_f64() * 1e3
    );
    f.wait_ready(5.0);
}
