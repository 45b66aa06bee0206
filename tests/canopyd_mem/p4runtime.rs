//! canopyd as a P4Runtime controller of canopy-switch (Unix sockets): it sets canopy.p4's
//! pipeline on every switch, writes its tables, and the switches forward as the model
//! says; a killed switch is pruned around over P4Runtime and programmed again when it
//! is back (a new pipeline cookie is a new incarnation); a restarted daemon adopts what
//! the switches run without writing; the program's counters reach the snapshot.

use super::*;

/// A fabric whose switches serve P4Runtime on `DIR/{name}.p4rt`, and canopyd driving
/// them over it; READY.
fn p4rt_fabric(tag: &str) -> (Fabric, std::path::PathBuf) {
    let mut f = Fabric::prepare(tag, K4, |_, _| {});
    for i in 0..f.topo.switches.len() {
        let sock = f.dir.path(&format!("{}.p4rt", f.name(i)));
        f.opts[i].extra_mgmt = format!("\n[p4runtime]\nlisten = \"unix:{}\"\n", sock.display());
    }
    f.start_all();
    let cfg = f.dir.path("cd-p4rt.toml");
    std::fs::write(
        &cfg,
        format!(
            "name = \"t\"\ntopology = \"{K4}\"\nkind = \"sliced\"\n[daemon]\ncontrol = \"{}\"\nmetrics = \"off\"\nprobe_interval_ms = 100\nprobe_timeout_ms = 1000\nmissed_probes = 3\ncounters_interval_ms = 200\n[switches]\np4runtime = \"unix:{}/{{name}}.p4rt\"\n[p4runtime]\nelection_id = 7\n",
            f.control().display(),
            f.dir.0.path().display()
        ),
    )
    .unwrap();
    f.start_daemon(&cfg);
    f.wait_ready(30.0);
    (f, cfg)
}

#[test]
fn canopyd_programs_switches_over_p4runtime_and_follows_faults() {
    let _s = serial();
    let (mut f, cfg) = p4rt_fabric("p4rt");
    let snap = f.status();
    for s in snap["switches"].as_array().unwrap() {
        let ep = s["endpoint"].as_str().unwrap();
        assert!(
            ep.starts_with("p4runtime unix:") && ep.ends_with(" device 1"),
            "{s}"
        );
        assert_eq!(s["tables_current"], json!(true), "{s}");
        assert_eq!(s["pushes_total"], json!(1), "{s}");
    }
    // every switch runs its base tables (the JSON protocol reads back what P4Runtime
    // wrote) and forwards as the model says
    for i in 0..f.topo.switches.len() {
        let h = f.health(i);
        assert_eq!(h["tables_loaded"], json!(true), "{}: {h}", f.name(i));
        let sock = f.dir.path(&format!("{}.p4rt", f.name(i)));
        assert_eq!(
            h["p4runtime"],
            json!(format!("unix:{}", sock.display())),
            "{h}"
        );
    }
    let e = f.index("edge-p0-e0");
    let (ingress, frame) = far_frame(&f, e, b"over p4runtime");
    let (_, ports) = Fabric::expect(&f.base[e], ingress, &frame);
    f.forward(e, ingress, &frame, &ports);
    // the program's counters, read over P4Runtime, reach the snapshot
    wait_for(10.0, "the forwarded frame in canopyd's counters", || {
        let s = f.status();
        let c = &Fabric::snap_of(&s, f.name(e))["counters"];
        let rx = c["ports"][ingress as usize]["rx_packets"]
            .as_u64()
            .unwrap_or(0);
        (rx >= 1).then_some(())
    });

    // a killed aggregation switch: DOWN, its neighbours pruned over P4Runtime
    let a = f.index("agg-p0-a0");
    let name = f.name(a).to_string();
    let expect_pruned = ports_to_prune(&f, a);
    assert!(!expect_pruned.is_empty());
    f.kill_switch(a);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = f.status();
        let ok = Fabric::snap_of(&s, &name)["up"] == json!(false)
            && expect_pruned.iter().all(|(n, p)| {
                pruned(&s, f.name(*n)).contains(p)
                    && Fabric::snap_of(&s, f.name(*n))["tables_current"] == json!(true)
            });
        if ok {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{name} not DOWN and pruned around in 10 s: {}\n--- canopyd log ---\n{}",
            summary(&s),
            f.daemon_log()
                .lines()
                .filter(|l| l.contains(" WARN ") || l.contains(" INFO "))
                .filter(|l| l.contains("push failed"))
                .take(12)
                .collect::<Vec<_>>()
                .join("\n")
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for (n, p) in &expect_pruned {
        let t = f.tables(*n).expect("tables written over P4Runtime");
        assert!(
            t.groups.iter().all(|g| !g.contains(p)),
            "{} still sends to {name} through port {p}",
            f.name(*n)
        );
    }
    // back: a new pipeline, so a new incarnation; programmed, the neighbours restored
    f.spawn_switch(a);
    f.wait_switch_socket(a);
    let snap = f.wait_ready(30.0);
    let me = Fabric::snap_of(&snap, &name);
    assert_eq!(
        me["restarts_total"],
        json!(1),
        "a new pipeline is a restart: {me}"
    );
    assert_eq!(me["down_events_total"], json!(1), "{me}");
    for (n, p) in &expect_pruned {
        assert!(!pruned(&snap, f.name(*n)).contains(p), "{}", f.name(*n));
    }
    assert_eq!(f.health(a)["tables_loaded"], json!(true));

    // a drain prunes around the port; P4Runtime cannot take the port itself down
    let out = f.canopyctl(&["port", &name, "0", "down"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.contains("drained") && text.contains("stays up"),
        "{text}"
    );
    let out = f.canopyctl(&["port", &name, "0", "up"]);
    assert!(out.status.success(), "{out:?}");
    f.wait_ready(30.0);

    // a restarted daemon finds its predecessor's pipeline and tables: nothing written
    f.kill_daemon();
    f.start_daemon(&cfg);
    let snap = f.wait_ready(30.0);
    assert!(
        Fabric::pushes(&snap).iter().all(|&n| n == 0),
        "a restarted daemon wrote: {}",
        summary(&snap)
    );
}
