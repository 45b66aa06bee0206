//! Hostile and malformed management requests, over the Unix socket and over the TCP
//! endpoint (after `auth`), on the real binary with mem ports (no root needed).
//!
//! Every case runs once per transport through a connection factory ([`Via`]); after
//! each, the tables (`get_tables`), the ports' admin states (`health`) must be exactly
//! as before, and a frame injected afterwards must still forward. TCP-only cases cover
//! authentication (wrong token, no auth, a second auth, the connection limit); `hello`
//! cases cover the protocol version on both.

mod common;

use canopy_control::kinds;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use canopy_proto::mgmt::{AuthRequest, Request};
use canopy_proto::version::PROTOCOL_VERSION;
use common::*;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

const TOKEN: &str = "cmt-test-token-0123456789abcdef";
const MAX_REQ: usize = 4096;
/// Read timeout of the hostile-request rig: long enough that a persistent connection
/// survives the checks run between two of its requests on a loaded machine.
const TIMEOUT_MS: u64 = 2_000;

/// Which endpoint a connection uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Unix,
    Tcp,
}

/// A switch with both endpoints.
struct Rig {
    sw: Switch,
    tcp: SocketAddr,
    f: Fabric,
    _dir: Dir,
}

fn write_token(path: &std::path::Path, token: &str, mode: u32) {
    let _ = std::fs::remove_file(path);
    std::fs::write(path, format!("{token}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

impl Rig {
    fn start(tag: &str, read_timeout_ms: u64) -> Rig {
        let dir = Dir::new(&format!("cmt{}-{tag}", std::process::id()));
        let tok = dir.path("token");
        write_token(&tok, TOKEN, 0o600);
        let cfg = mem_config(
            &dir,
            4,
            true,
            &format!(
                "max_request_bytes = {MAX_REQ}\nread_timeout_ms = {read_timeout_ms}\ntcp = \"127.0.0.1:0\"\ntoken_file = \"{}\"",
                tok.display()
            ),
        );
        let sw = Switch::start(&dir, &cfg);
        let h = sw.ok(&Request::Health {});
        let tcp: SocketAddr = h["tcp"]
            .as_str()
            .unwrap_or_else(|| panic!("health has no tcp address: {h}"))
            .parse()
            .unwrap();
        assert_eq!(tcp.ip().to_string(), "127.0.0.1");
        assert_ne!(tcp.port(), 0, "health reports the bound port");
        Rig {
            sw,
            tcp,
            f: Fabric::new(Kind::Sliced),
            _dir: dir,
        }
    }

    /// A connection ready for requests (TCP: authenticated).
    fn conn(&self, via: Via) -> Conn {
        match via {
            Via::Unix => Conn::open(&self.sw.socket),
            Via::Tcp => {
                let mut c = Conn::tcp(self.tcp);
                let r = c.req(&AuthRequest::Auth {
                    token: TOKEN.into(),
                });
                assert_eq!(r, json!({"ok": true, "auth": "ok"}));
                c
            }
        }
    }

    fn health(&self) -> Value {
        self.sw.ok(&Request::Health {})
    }

    fn auth_failures(&self) -> u64 {
        self.health()["auth_failures"].as_u64().unwrap()
    }

    /// What a hostile request must not change: the tables and the admin states.
    fn state(&self) -> (Value, Vec<Value>) {
        let t = self.sw.ok(&Request::GetTables {})["tables"].clone();
        assert!(t.is_object(), "tables loaded: {t}");
        let admin = self.health()["ports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["admin"].clone())
            .collect();
        (t, admin)
    }

    /// The state is `before`, and a frame h0 -> h1 still forwards to port 1.
    fn unchanged(&self, before: &(Value, Vec<Value>), what: &str) {
        assert_eq!(&self.state(), before, "{what} changed the switch");
        let fr = self
            .f
            .frame(Kind::Sliced, self.f.host_on(0), self.f.host_on(1), b"after");
        let (want, ports) = self.f.expect(0, &fr);
        assert_eq!(ports, vec![1]);
        self.sw.inject(0, &[fr]);
        self.sw.settle();
        assert_eq!(
            self.sw.capture(1),
            vec![want],
            "{what}: forwarding after it"
        );
    }
}

/// Request lines that must each get `{"ok":false}` with an error containing the
/// given text, on a connection that stays open.
fn bad_lines(f: &Fabric) -> Vec<(Vec<u8>, String)> {
    let t = |s: &str| s.as_bytes().to_vec();
    let mut three = f.tables.clone();
    three.ports.pop();
    let mut dangling = f.tables.clone();
    assert!(
        !dangling.groups.is_empty(),
        "the edge switch has an up group"
    );
    dangling.groups.last_mut().unwrap().push(7);
    // valid tables the switch would accept, but in a request with an extra field
    let flat = kinds::sliced::tables_mode(&f.topo, Mode::Flat).unwrap()[f.sw].clone();
    // well-formed requests the switch refuses for what they ask
    let req = |r: Request| serde_json::to_vec(&r).unwrap();
    let inject = |port: u16, frame: &str| {
        req(Request::Inject {
            port,
            frames: vec![frame.into()],
        })
    };
    // and lines that are not a request at all
    let mut v: Vec<(Vec<u8>, &str)> = vec![
        (t("this is not json"), "malformed JSON"),
        (b"\x00\x01\x02\xfe\xff garbage".to_vec(), "malformed JSON"),
        (
            b"{\"op\":\"set_port\xff\xfe\",\"port\":1,\"up\":false}".to_vec(),
            "malformed JSON",
        ),
        (
            b"{\"op\":\"set_port\",\"port\":1,\"up\":false,\"x\":\"\xc3\x28\"}".to_vec(),
            "malformed JSON",
        ),
        (t("[1,2]"), "\"op\""),
        (t(r#"[{"op":"set_port","port":1,"up":false}]"#), "\"op\""),
        (t("42"), "\"op\""),
        (t(r#"{"op":"reboot"}"#), "unknown op \"reboot\""),
        (t(r#"{"op":7}"#), "\"op\""),
        (t(r#"{"op":"health","extra":1}"#), "unknown field `extra`"),
        (
            t(r#"{"op":"set_port","port":1,"up":false,"force":true}"#),
            "unknown field `force`",
        ),
        (t(r#"{"op":"set_port","port":"a","up":true}"#), "set_port:"),
        (t(r#"{"op":"set_port","port":1}"#), "missing field `up`"),
        (req(Request::SetPort { port: 9, up: false }), "no port 9"),
        (
            t(r#"{"op":"set_port","port":70000,"up":false}"#),
            "set_port:",
        ),
        (t(r#"{"op":"set_port","port":-1,"up":false}"#), "set_port:"),
        (inject(0, "zz"), "frames[0] is not hex"),
        (inject(0, ""), "frames[0] has 0 bytes"),
        (inject(7, "00"), "no port 7"),
        (t(r#"{"op":"capture","port":70000}"#), "capture:"),
        (
            req(replace_tables(&json!({"name": "x"}))),
            "not SwitchTables",
        ),
        (req(replace_tables(&json!([]))), "not SwitchTables"),
        (t(r#"{"op":"replace_tables"}"#), "missing field `tables`"),
    ];
    let owned = [
        (req(replace_tables(&three)), "3 ports but the switch has 4"),
        (
            req(replace_tables(&dangling)),
            "has port 7, but ports are 0..4",
        ),
        (
            // not a request: an unknown field
            serde_json::to_vec(&json!({"op": "replace_tables", "tables": flat, "now": true}))
                .unwrap(),
            "unknown field `now`",
        ),
    ];
    for (line, _) in &owned {
        assert!(line.len() < MAX_REQ, "case fits the request limit");
    }
    v.extend(owned.iter().map(|(l, w)| (l.clone(), *w)));
    v.into_iter().map(|(l, w)| (l, w.to_string())).collect()
}

/// Every bad line on one connection of `via`: each rejected, nothing changes, the
/// connection keeps serving.
fn bad_lines_are_rejected(rig: &Rig, via: Via) {
    let before = rig.state();
    let fails = rig.auth_failures();
    let mut c = rig.conn(via);
    for (line, want) in bad_lines(&rig.f) {
        let shown = String::from_utf8_lossy(&line).into_owned();
        let mut l = line.clone();
        l.push(b'\n');
        c.send_raw(&l);
        let r = c
            .read()
            .unwrap_or_else(|| panic!("{via:?}: no answer to {shown}"));
        assert_eq!(r["ok"], json!(false), "{via:?}: {shown} -> {r}");
        let e = r["error"].as_str().unwrap();
        assert!(e.contains(&want), "{via:?}: {shown}: {e:?} lacks {want:?}");
        rig.unchanged(&before, &format!("{via:?}: {shown}"));
    }
    // still serving on the same connection
    assert_eq!(c.req(&Request::Health {})["ok"], json!(true));
    assert_eq!(rig.auth_failures(), fails, "no auth failure counted");
}

/// A line just over the limit: an error, then the connection is closed.
fn oversized_line_closes(rig: &Rig, via: Via) {
    let before = rig.state();
    let mut c = rig.conn(via);
    // a set_port down padded with spaces to max_request_bytes + 1
    let mut line = serde_json::to_vec(&Request::SetPort { port: 1, up: false }).unwrap();
    line.resize(MAX_REQ + 1, b' ');
    line.push(b'\n');
    c.send_raw(&line);
    let r = c.read().expect("an error response");
    let e = r["error"].as_str().unwrap();
    assert!(
        e.contains(&format!("larger than {MAX_REQ} bytes")),
        "{via:?}: {r}"
    );
    assert!(
        c.read().is_none(),
        "{via:?}: closed after an oversized line"
    );
    rig.unchanged(&before, &format!("{via:?}: oversized line"));
    // exactly the limit is served
    let mut c = rig.conn(via);
    let mut line = serde_json::to_vec(&Request::SetPort { port: 1, up: true }).unwrap();
    line.resize(MAX_REQ, b' ');
    line.push(b'\n');
    c.send_raw(&line);
    assert_eq!(c.read().expect("answer")["ok"], json!(true), "{via:?}");
}

/// A request trickled one byte at a time, slower than the read timeout in total:
/// a timeout error and the connection is closed; the request is never executed.
fn trickled_request_times_out(rig: &Rig, via: Via) {
    let before = rig.state();
    let mut c = rig.conn(via);
    let line = line(&Request::SetPort { port: 1, up: false });
    let start = Instant::now();
    let mut sent = 0;
    for b in &line {
        // once the switch closed, writes fail; send_raw ignores that
        c.send_raw(std::slice::from_ref(b));
        sent += 1;
        std::thread::sleep(Duration::from_millis(TIMEOUT_MS / 8));
        if start.elapsed() > Duration::from_millis(TIMEOUT_MS + TIMEOUT_MS / 4) {
            break;
        }
    }
    assert!(
        sent < line.len(),
        "the whole line went out before the timeout"
    );
    let r = c.read().expect("a timeout response");
    assert!(
        r["error"].as_str().unwrap().contains("read timeout"),
        "{via:?}: {r}"
    );
    assert!(c.read().is_none(), "{via:?}: closed after the timeout");
    rig.unchanged(&before, &format!("{via:?}: trickled request"));
}

#[test]
fn hostile_requests_change_nothing_over_both_transports() {
    let rig = Rig::start("hostile", TIMEOUT_MS);
    for via in [Via::Unix, Via::Tcp] {
        bad_lines_are_rejected(&rig, via);
        oversized_line_closes(&rig, via);
        trickled_request_times_out(&rig, via);
    }
    // the Unix socket takes no token
    let before = rig.state();
    let mut c = rig.conn(Via::Unix);
    let r = c.req(&AuthRequest::Auth {
        token: TOKEN.into(),
    });
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("only the TCP endpoint"),
        "{r}"
    );
    assert_eq!(c.req(&Request::Health {})["ok"], json!(true));
    rig.unchanged(&before, "auth on the Unix socket");
    assert_eq!(rig.auth_failures(), 0);
    assert_eq!(
        rig.sw.counters()["dropped"],
        json!(0),
        "no garbage reached the data path"
    );
}

/// Send `lines` on a fresh TCP connection; the last must be answered with
/// `authentication failed` and the connection closed; one more auth failure counted.
fn refused(rig: &Rig, what: &str, lines: &[&[u8]]) {
    let before = rig.state();
    let fails = rig.auth_failures();
    let mut c = Conn::tcp(rig.tcp);
    let (last, first) = lines.split_last().unwrap();
    for l in first {
        c.send_raw(l);
        c.send_raw(b"\n");
        let r = c.read().unwrap_or_else(|| panic!("{what}: no answer"));
        assert_eq!(r["ok"], json!(true), "{what}: {r}");
    }
    c.send_raw(last);
    c.send_raw(b"\n");
    let r = c.read().unwrap_or_else(|| panic!("{what}: no answer"));
    assert_eq!(
        r,
        json!({"ok": false, "error": "authentication failed"}),
        "{what}"
    );
    assert!(c.read().is_none(), "{what}: connection closed");
    assert_eq!(rig.auth_failures(), fails + 1, "{what}: counted once");
    rig.unchanged(&before, what);
}

#[test]
fn tcp_requires_the_token_first() {
    let rig = Rig::start("auth", 5_000);
    // well-formed `auth` requests (with wrong tokens) and other requests before `auth`
    let auth = |token: &str| {
        serde_json::to_vec(&AuthRequest::Auth {
            token: token.into(),
        })
        .unwrap()
    };
    let req = |r: Request| serde_json::to_vec(&r).unwrap();
    let good = auth(TOKEN);
    let good = good.as_slice();
    let wrong = auth("cmt-test-token-0123456789abcdeX");
    let wrong = wrong.as_slice();
    let prefix = auth(&TOKEN[..TOKEN.len() - 1]);
    let longer = auth(&format!("{TOKEN}0"));
    let empty = auth("");
    let oversized = auth(&"a".repeat(MAX_REQ));
    let set_port = req(Request::SetPort { port: 1, up: false });
    let health = req(Request::Health {});
    let get_tables = req(Request::GetTables {});
    // and `auth` lines that are not an `auth` request
    let extra = format!(r#"{{"op":"auth","token":"{TOKEN}","user":"root"}}"#);
    let cases: Vec<(&str, Vec<&[u8]>)> = vec![
        ("a wrong token", vec![wrong]),
        ("a token one byte short", vec![&prefix]),
        ("a token one byte longer", vec![&longer]),
        ("an empty token", vec![&empty]),
        (
            "a token that is not a string",
            vec![br#"{"op":"auth","token":7}"#],
        ),
        ("auth without a token", vec![br#"{"op":"auth"}"#]),
        ("auth with an extra field", vec![extra.as_bytes()]),
        ("auth padded oversized", vec![&oversized]),
        ("set_port before auth", vec![&set_port]),
        ("health before auth", vec![&health]),
        ("get_tables before auth", vec![&get_tables]),
        ("garbage before auth", vec![b"\xff\xfe garbage"]),
        ("a JSON array before auth", vec![br#"[{"op":"auth"}]"#]),
        (
            "a second auth with a wrong token after a good one",
            vec![good, wrong],
        ),
    ];
    for (what, lines) in &cases {
        refused(&rig, what, lines);
    }
    // a good token: requests are served; a second good auth is accepted again
    let mut c = Conn::tcp(rig.tcp);
    let good_auth = AuthRequest::Auth {
        token: TOKEN.into(),
    };
    assert_eq!(c.req(&good_auth)["ok"], json!(true));
    let h = c.req(&Request::Health {});
    assert_eq!(h["ok"], json!(true));
    assert_eq!(h["auth_failures"], json!(cases.len()), "{h}");
    assert_eq!(c.req(&good_auth)["ok"], json!(true));
    let r = c.req(&Request::SetPort { port: 2, up: false });
    assert_eq!(r["ok"], json!(true), "{r}");
    assert_eq!(rig.health()["ports"][2]["admin"], json!(false));
    let r = c.req(&Request::SetPort { port: 2, up: true });
    assert_eq!(r["ok"], json!(true), "{r}");
    // the failures are in the log with the peer
    let log = rig.sw.log();
    assert!(
        log.contains("management authentication failed (a wrong token)"),
        "{log}"
    );
    assert!(!log.contains(TOKEN), "the token is never logged");
}

#[test]
fn tcp_connections_beyond_the_limit_are_refused() {
    let rig = Rig::start("limit", 10_000);
    let limit = canopy_proto::mgmt::MAX_TCP_CONNS;
    let mut open: Vec<Conn> = (0..limit).map(|_| rig.conn(Via::Tcp)).collect();
    let mut extra = Conn::tcp(rig.tcp);
    let r = extra.read().expect("an answer");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("too many management connections"),
        "{r}"
    );
    assert!(extra.read().is_none(), "closed");
    let h = rig.health();
    assert_eq!(h["tcp_refused"], json!(1), "{h}");
    // the Unix socket is not limited by TCP connections
    assert_eq!(rig.sw.ok(&Request::Health {})["ok"], json!(true));
    // every open connection still serves
    for c in &mut open {
        assert_eq!(c.req(&Request::GetTables {})["ok"], json!(true));
    }
    // closing one frees its slot
    drop(open.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut c = Conn::tcp(rig.tcp);
        c.send_raw(&line(&AuthRequest::Auth {
            token: TOKEN.into(),
        }));
        let r = c.read().expect("an answer");
        if r["ok"] == json!(true) {
            break;
        }
        assert!(Instant::now() < deadline, "slot never freed: {r}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_token_file_others_can_read_refuses_to_start() {
    let dir = Dir::new(&format!("cmt{}-tokmode", std::process::id()));
    let tok = dir.path("token");
    let cfg = dir.path("c.toml");
    let text = mem_config(
        &dir,
        4,
        true,
        &format!("tcp = \"127.0.0.1:0\"\ntoken_file = \"{}\"", tok.display()),
    );
    std::fs::write(&cfg, &text).unwrap();
    for (body, mode, want) in [
        (TOKEN, 0o644, "mode 0644"),
        (TOKEN, 0o660, "mode 0660"),
        ("", 0o600, "is empty"),
        ("0123456789", 0o600, "10 bytes"),
    ] {
        write_token(&tok, body, mode);
        for cmd in ["run", "check-config"] {
            let (st, _, err) = run_bin(&[cmd, "--config", cfg.to_str().unwrap()]);
            assert_eq!(st.code(), Some(2), "{cmd} {mode:o}: {err}");
            assert!(
                err.contains("management.token_file") && err.contains(want),
                "{cmd}: {err:?} lacks {want:?}"
            );
        }
        assert!(!dir.path("switch.sock").exists(), "nothing started");
    }
    write_token(&tok, TOKEN, 0o600);
    let (st, out, err) = run_bin(&["check-config", "--config", cfg.to_str().unwrap()]);
    assert!(st.success(), "{err}");
    assert!(out.contains("tcp        127.0.0.1:0 (token from"), "{out}");
    // a TCP address already in use refuses to start, naming the key
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let text = text.replace("127.0.0.1:0", &busy.local_addr().unwrap().to_string());
    std::fs::write(&cfg, &text).unwrap();
    let (st, _, err) = run_bin(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("management.tcp"), "{err}");
    assert!(!dir.path("switch.sock").exists(), "socket removed again");
}

#[test]
fn ctl_talks_to_the_tcp_endpoint_with_a_token_file() {
    let rig = Rig::start("ctl", 5_000);
    let dir = Dir::new(&format!("cmt{}-ctltok", std::process::id()));
    let tok = dir.path("token");
    write_token(&tok, TOKEN, 0o600);
    let addr = rig.tcp.to_string();
    let t = tok.to_str().unwrap();
    let (st, out, err) = run_bin(&["ctl", "--tcp", &addr, "--token-file", t, "health"]);
    assert!(st.success(), "{err}");
    assert!(out.contains("tables    edge-p0-e0 (sliced)"), "{out}");
    assert!(
        out.contains(&format!("tcp       {addr} (auth failures 0")),
        "{out}"
    );
    let (st, out, err) = run_bin(&[
        "ctl",
        "--tcp",
        &addr,
        "--token-file",
        t,
        "port",
        "3",
        "down",
    ]);
    assert!(st.success(), "{err}");
    assert!(out.contains("port 3 admin down"), "{out}");
    assert_eq!(rig.health()["ports"][3]["admin"], json!(false));
    // a wrong token: exit 1, the switch's answer, counted
    write_token(&tok, "cmt-wrong-token-0123456789abcdef", 0o600);
    let (st, _, err) = run_bin(&["ctl", "--tcp", &addr, "--token-file", t, "port", "3", "up"]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("authentication failed"), "{err}");
    assert_eq!(
        rig.health()["ports"][3]["admin"],
        json!(false),
        "nothing changed"
    );
    assert_eq!(rig.auth_failures(), 1);
    // the client checks its token file as the switch does
    write_token(&tok, TOKEN, 0o644);
    let (st, _, err) = run_bin(&["ctl", "--tcp", &addr, "--token-file", t, "health"]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("mode 0644"), "{err}");
    // usage: --tcp needs --token-file, and not with --socket
    let (st, _, err) = run_bin(&["ctl", "--tcp", &addr, "health"]);
    assert_eq!(st.code(), Some(2), "{err}");
    let s = rig.sw.socket.to_str().unwrap();
    let (st, _, err) = run_bin(&[
        "ctl",
        "--socket",
        s,
        "--tcp",
        &addr,
        "--token-file",
        t,
        "health",
    ]);
    assert_eq!(st.code(), Some(2), "{err}");
    assert_eq!(rig.auth_failures(), 1);
}

/// `hello` on `via`: the switch's own version is answered and the connection goes on;
/// an older or newer client's is refused, naming both versions and what to upgrade, and
/// the connection is closed; nothing changes and no auth failure is counted.
fn hello_checks_the_version(rig: &Rig, via: Via) {
    let before = rig.state();
    let fails = rig.auth_failures();
    let mut c = rig.conn(via);
    let r = c.req(&Request::Hello {
        version: PROTOCOL_VERSION,
    });
    assert_eq!(
        r,
        json!({"ok": true, "version": PROTOCOL_VERSION, "server": "canopy-switch"}),
        "{via:?}"
    );
    let h = c.req(&Request::Health {});
    assert_eq!(
        h["protocol_version"],
        json!(PROTOCOL_VERSION),
        "{via:?}: {h}"
    );
    for (client, upgrade) in [
        (PROTOCOL_VERSION + 1, "upgrade canopy-switch"),
        (PROTOCOL_VERSION - 1, "upgrade the client"),
    ] {
        let mut c = rig.conn(via);
        let r = c.req(&Request::Hello { version: client });
        assert_eq!(r["ok"], json!(false), "{via:?}: {r}");
        assert_eq!(r["version"], json!(PROTOCOL_VERSION), "{via:?}: {r}");
        let e = r["error"].as_str().unwrap();
        for want in [
            format!("the client speaks version {client}"),
            format!("canopy-switch speaks version {PROTOCOL_VERSION}"),
            upgrade.to_string(),
        ] {
            assert!(e.contains(&want), "{via:?}: {e:?} lacks {want:?}");
        }
        // a request after it is not answered: the connection is closed
        c.send_raw(&line(&Request::Health {}));
        assert!(c.read().is_none(), "{via:?}: closed after a refused hello");
    }
    assert_eq!(rig.auth_failures(), fails, "{via:?}: not an auth failure");
    rig.unchanged(&before, &format!("{via:?}: hello"));
}

#[test]
fn hello_of_another_protocol_version_is_refused() {
    let rig = Rig::start("hello", 5_000);
    for via in [Via::Unix, Via::Tcp] {
        hello_checks_the_version(&rig, via);
    }
}

/// `canopy-switch ctl` (the management client) talking to a server of a newer protocol
/// version: exit 1 with both versions and what to upgrade, and no request sent after
/// `hello`.
#[test]
fn ctl_refuses_a_switch_of_another_protocol_version() {
    use std::io::{BufRead, BufReader, Write};
    let dir = Dir::new(&format!("cmt{}-ctlver", std::process::id()));
    let sock = dir.path("newer.sock");
    let l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let newer = PROTOCOL_VERSION + 1;
    let server = std::thread::spawn(move || {
        let (s, _) = l.accept().unwrap();
        let mut w = s.try_clone().unwrap();
        let mut lines = Vec::new();
        for line in BufReader::new(s).lines() {
            lines.push(line.unwrap());
            let e = format!("a newer canopy-switch (version {newer})");
            let a = json!({"ok": false, "version": newer, "server": "canopy-switch", "error": e});
            writeln!(w, "{a}").unwrap();
        }
        lines
    });
    let (st, _, err) = run_bin(&["ctl", "--socket", sock.to_str().unwrap(), "health"]);
    assert_eq!(st.code(), Some(1), "{err}");
    for want in [
        format!("the client speaks version {PROTOCOL_VERSION}"),
        format!("canopy-switch speaks version {newer}"),
        "upgrade the client".to_string(),
    ] {
        assert!(err.contains(&want), "{err:?} lacks {want:?}");
    }
    let lines = server.join().unwrap();
    assert_eq!(lines.len(), 1, "only hello was sent: {lines:?}");
    let hello: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(hello, json!({"op": "hello", "version": PROTOCOL_VERSION}));
}
