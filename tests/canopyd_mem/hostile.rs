//! Hostile requests on the control socket.

use super::*;

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
    for (bytes, wants) in bad_lines() {
        let e = one_error(&c, &bytes);
        for w in wants {
            assert!(e.contains(&w), "{e:?} lacks {w:?}");
        }
    }
    hello_of_this_version_goes_on(&c);
    unknown_switches_and_ports_are_named(&f);
    overflowing_traffic_reports_are_answered(&f);
    pipelined_requests_are_answered_in_order(&c);
    a_second_daemon_refuses_to_start(&f);
    connections_beyond_eight_take_the_slots_of_waiting_ones(&c);
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

/// The answer to `bytes` on a fresh connection: exactly one, an error; its text.
fn one_error(c: &std::path::Path, bytes: &[u8]) -> String {
    let v = raw_exchange(c, bytes, Duration::from_secs(15));
    assert_eq!(v.len(), 1, "one answer expected: {v:?}");
    expect_err(&v[0])
}

/// Lines each answered with one error, and what its text must contain.
fn bad_lines() -> Vec<(Vec<u8>, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let hello = |version| line(&ControlRequest::Hello { version });
    let status = line(&ControlRequest::Status {});
    let mut big = vec![b'x'; (1 << 20) + 4096];
    big.push(b'\n');
    let mut cases =
        vec![
        (b"this is not json\n".to_vec(), s(&["bad request"])),
        (b"{\"op\": \"reboot\"}\n".to_vec(), s(&["bad request", "reboot"])),
        (
            b"{\"op\": \"status\", \"verbose\": true}\n".to_vec(),
            s(&["unknown field", "verbose"]),
        ),
        (b"[1,2,3]\n".to_vec(), s(&["bad request"])),
        (
            b"{\"op\": \"set_port\", \"switch\": \"core-c0\", \"port\": 70000, \"up\": false}\n"
                .to_vec(),
            s(&["bad request"]),
        ),
        (big, s(&["larger than"])),
        // a traffic report with too many buckets
        (
            line(&ControlRequest::Traffic {
                sent: 1,
                received: 1,
                lost: 0,
                misdelivered: 0,
                latency_ns: (0..100_001).map(|i| (i, 1)).collect(),
            }),
            s(&["latency buckets"]),
        ),
        (b"\xff\xfe\x00\n".to_vec(), s(&["bad request"])),
    ];
    // another version in `hello` is refused, naming both and what to upgrade, and the
    // connection closed (the `status` after it is not answered)
    for (client, upgrade) in [
        (PROTOCOL_VERSION + 1, "upgrade canopyd"),
        (PROTOCOL_VERSION - 1, "upgrade the client"),
    ] {
        cases.push((
            [hello(client), status.clone()].concat(),
            vec![
                format!("the client speaks version {client}"),
                format!("canopyd speaks version {PROTOCOL_VERSION}"),
                upgrade.to_string(),
            ],
        ));
    }
    cases
}

/// `hello` with the daemon's version is answered and the connection goes on.
fn hello_of_this_version_goes_on(c: &std::path::Path) {
    let hello = line(&ControlRequest::Hello {
        version: PROTOCOL_VERSION,
    });
    let status = line(&ControlRequest::Status {});
    let v = raw_exchange(c, &[hello, status].concat(), Duration::from_secs(15));
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(
        v[0],
        json!({"ok": true, "version": PROTOCOL_VERSION, "server": "canopyd"})
    );
    assert_eq!(v[1]["ok"], json!(true));
}

/// Requests naming a switch or port that does not exist, also through `canopyctl`.
fn unknown_switches_and_ports_are_named(f: &Fabric) {
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
}

/// Traffic reports whose numbers overflow: accepted or refused, never a dead daemon.
fn overflowing_traffic_reports_are_answered(f: &Fabric) {
    let c = f.control();
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
}

/// Pipelined requests, garbage between them.
fn pipelined_requests_are_answered_in_order(c: &std::path::Path) {
    // one answer each, in order
    let mut lines = line(&ControlRequest::Status {});
    lines.extend_from_slice(b"\n   \n{oops\n");
    lines.extend(line(&ControlRequest::Counters {
        switch: Some("core-c0".into()),
    }));
    let v = raw_exchange(c, &lines, Duration::from_secs(15));
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(v[0]["ok"], json!(true));
    assert!(expect_err(&v[1]).contains("bad request"));
    assert_eq!(v[2]["ok"], json!(true));
    assert_eq!(v[2]["switches"][0]["switch"], json!("core-c0"), "{}", v[2]);
}

/// A second daemon on the same control socket.
fn a_second_daemon_refuses_to_start(f: &Fabric) {
    let cfg = f.daemon_config("second.toml", "");
    let out = std::process::Command::new(bin("canopyd"))
        .args(["--config", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("another process is serving on this socket"),
        "{out:?}"
    );
}

/// 20 connections at once, all waiting: each newcomer beyond 8 takes the slot of the
/// longest-waiting one, which is told why; the last 8 are served, none is refused.
fn connections_beyond_eight_take_the_slots_of_waiting_ones(c: &std::path::Path) {
    // earlier connections may hold a slot for a moment after their answer, so a round with fewer served is retried
    let burst = || {
        let mut conns = vec![];
        for _ in 0..20 {
            let s = std::os::unix::net::UnixStream::connect(c).unwrap();
            s.set_read_timeout(Some(Duration::from_millis(1500)))
                .unwrap();
            conns.push(s);
        }
        std::thread::sleep(Duration::from_millis(300));
        let (mut served, mut refused) = (0, 0);
        for s in &mut conns {
            use std::io::{BufRead, Write};
            let _ = s.write_all(&line(&ControlRequest::Status {}));
            let mut line = String::new();
            let _ = std::io::BufReader::new(&*s).read_line(&mut line);
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if v["ok"] == json!(true) {
                served += 1;
            } else {
                let e = expect_err(&v);
                assert!(
                    e.contains("connection closed: all 8 slots were taken"),
                    "{e}"
                );
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
}
