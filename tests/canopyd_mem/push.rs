//! Pushes at start, forwarding through pushed tables, port drains.

use super::*;

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
    d.signal("TERM");
    let code = wait_for(10.0, "canopyd to exit after SIGTERM", || d.try_wait());
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
            let h = request(&sa, &Request::Health {}).unwrap();
            let down = h["ports"][ap as usize]["admin"] == json!(false);
            let t = request(&se, &Request::GetTables {}).unwrap();
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
