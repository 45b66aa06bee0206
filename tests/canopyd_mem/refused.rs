//! Tables that do not fit a switch, a TCP endpoint with a token.

use super::*;

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
    std::fs::write(&wrong, "fedcba9876543210fedcba9876543210\n").unwrap();
    std::fs::set_permissions(&wrong, std::fs::Permissions::from_mode(0o600)).unwrap();
    let tcp_sw = "core-c0";
    let topo = canopy_control::build_str(K2).unwrap();
    let ti = topo.switch_index(tcp_sw).unwrap();
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
    assert!(err.contains("did not prove it holds the token"), "{err}");
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
