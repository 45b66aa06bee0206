//! Hostile and malformed management requests, over the Unix socket and over the TCP
//! endpoint (after `auth`), on the real binary with mem ports (no root needed).
//!
//! Every case runs once per transport through a connection factory ([`Via`]); after
//! each, the tables (`get_tables`), the ports' admin states (`health`) must be exactly
//! as before, and a frame injected afterwards must still forward. TCP-only cases cover
//! authentication (wrong proofs, steps out of order, the deadline from accept, the
//! connection slots); `hello` cases cover the protocol version on both.

mod common;

use canopy_control::kinds;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use canopy_proto::auth::{self, AuthRequest};
use canopy_proto::mgmt::Request;
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
                let r = c.authenticate(TOKEN.as_bytes());
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
    for r in [
        AuthRequest::Challenge {
            nonce: auth::hex(&auth::nonce()),
        },
        AuthRequest::Auth {
            proof: "00".repeat(32),
        },
    ] {
        let r = c.req(&r);
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .contains("only the TCP endpoint"),
            "{r}"
        );
    }
    assert_eq!(c.req(&Request::Health {})["ok"], json!(true));
    rig.unchanged(&before, "auth on the Unix socket");
    assert_eq!(rig.auth_failures(), 0);
    assert_eq!(
        rig.sw.counters()["dropped"],
        json!(0),
        "no garbage reached the data path"
    );
}

/// On a fresh TCP connection, `steps` sends what it wants (checking the answers) and
/// returns the last line; that line must be answered `authentication failed: ...` and
/// the connection closed; one more auth failure counted.
fn refused(rig: &Rig, what: &str, steps: impl FnOnce(&mut Conn) -> Vec<u8>) {
    let before = rig.state();
    let fails = rig.auth_failures();
    let mut c = Conn::tcp(rig.tcp);
    let last = steps(&mut c);
    c.send_raw(&last);
    c.send_raw(b"\n");
    let r = c.read().unwrap_or_else(|| panic!("{what}: no answer"));
    assert_eq!(r["ok"], json!(false), "{what}: {r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .starts_with("authentication failed: "),
        "{what}: {r}"
    );
    assert!(c.read().is_none(), "{what}: connection closed");
    assert_eq!(rig.auth_failures(), fails + 1, "{what}: counted once");
    rig.unchanged(&before, what);
}

/// Send a `challenge` with a fresh nonce; returns (the client's nonce, the switch's).
fn challenge(c: &mut Conn) -> ([u8; 32], [u8; 32]) {
    let mine = auth::nonce();
    let a = c.req(&AuthRequest::Challenge {
        nonce: auth::hex(&mine),
    });
    assert_eq!(a["ok"], json!(true), "{a}");
    (
        mine,
        auth::decode_hex32(a["nonce"].as_str().unwrap()).unwrap(),
    )
}

/// The `auth` line proving `token` for these nonces.
fn proof_line(token: &[u8], switch: &[u8; 32], client: &[u8; 32]) -> Vec<u8> {
    serde_json::to_vec(&AuthRequest::Auth {
        proof: auth::hex(&auth::client_proof(token, switch, client)),
    })
    .unwrap()
}

#[test]
fn tcp_requires_the_challenge_response_first() {
    let rig = Rig::start("auth", 5_000);
    let t = TOKEN.as_bytes();
    let req = |r: Request| serde_json::to_vec(&r).unwrap();
    let fixed = |l: Vec<u8>| move |_: &mut Conn| l;
    type Case = (&'static str, Box<dyn FnOnce(&mut Conn) -> Vec<u8>>);
    let cases: Vec<Case> = vec![
        (
            "a proof with another token",
            Box::new(|c| {
                let (mine, theirs) = challenge(c);
                proof_line(b"cmt-test-token-0123456789abcdeX", &theirs, &mine)
            }),
        ),
        (
            "the switch's own proof sent back",
            Box::new(|c| {
                let mine = auth::nonce();
                let a = c.req(&AuthRequest::Challenge {
                    nonce: auth::hex(&mine),
                });
                let proof = a["proof"].as_str().unwrap().to_string();
                serde_json::to_vec(&AuthRequest::Auth { proof }).unwrap()
            }),
        ),
        (
            "a proof for another switch nonce (a replay)",
            Box::new(move |c| {
                let (mine, _) = challenge(c);
                proof_line(t, &auth::nonce(), &mine)
            }),
        ),
        (
            "auth without a challenge",
            Box::new(move |_| proof_line(t, &[0; 32], &[0; 32])),
        ),
        (
            "a second challenge",
            Box::new(|c| {
                challenge(c);
                serde_json::to_vec(&AuthRequest::Challenge {
                    nonce: "00".repeat(32),
                })
                .unwrap()
            }),
        ),
        (
            "a short nonce",
            Box::new(fixed(br#"{"op":"challenge","nonce":"00"}"#.to_vec())),
        ),
        (
            "a nonce that is not hex",
            Box::new(fixed(
                format!(r#"{{"op":"challenge","nonce":"{}"}}"#, "zz".repeat(32)).into_bytes(),
            )),
        ),
        (
            "the token in clear (the old auth)",
            Box::new(fixed(
                format!(r#"{{"op":"auth","token":"{TOKEN}"}}"#).into_bytes(),
            )),
        ),
        (
            "a challenge with an extra field",
            Box::new(fixed(
                format!(
                    r#"{{"op":"challenge","nonce":"{}","user":"root"}}"#,
                    "00".repeat(32)
                )
                .into_bytes(),
            )),
        ),
        (
            "a line longer than an authentication",
            Box::new(fixed(vec![b'a'; MAX_REQ])),
        ),
        (
            "set_port before auth",
            Box::new(fixed(req(Request::SetPort { port: 1, up: false }))),
        ),
        (
            "health before auth",
            Box::new(fixed(req(Request::Health {}))),
        ),
        (
            "get_tables before auth",
            Box::new(fixed(req(Request::GetTables {}))),
        ),
        (
            "garbage before auth",
            Box::new(fixed(b"\xff\xfe garbage".to_vec())),
        ),
        (
            "a JSON array before auth",
            Box::new(fixed(br#"[{"op":"auth"}]"#.to_vec())),
        ),
    ];
    let n = cases.len();
    for (what, steps) in cases {
        refused(&rig, what, steps);
    }
    // the right proof: requests are served; a later `auth` is refused but harmless
    let mut c = Conn::tcp(rig.tcp);
    assert_eq!(c.authenticate(t), json!({"ok": true, "auth": "ok"}));
    let h = c.req(&Request::Health {});
    assert_eq!(h["ok"], json!(true));
    assert_eq!(h["auth_failures"], json!(n), "{h}");
    let again = c.req(&AuthRequest::Auth {
        proof: "00".repeat(32),
    });
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .contains("only before its first request"),
        "{again}"
    );
    let r = c.req(&Request::SetPort { port: 2, up: false });
    assert_eq!(r["ok"], json!(true), "{r}");
    assert_eq!(rig.health()["ports"][2]["admin"], json!(false));
    let r = c.req(&Request::SetPort { port: 2, up: true });
    assert_eq!(r["ok"], json!(true), "{r}");
    // the failures are in the log with the peer
    let log = rig.sw.log();
    assert!(
        log.contains("authentication failed (a wrong proof (another token))"),
        "{log}"
    );
    assert!(!log.contains(TOKEN), "the token is never logged");
}

/// Connections that never authenticate, whatever they send (blank lines, a partial
/// line, nothing), are closed at the deadline from their accept and counted; they
/// never keep a client with the token out.
#[test]
fn unauthenticated_connections_are_closed_at_the_deadline_whatever_they_send() {
    let rig = Rig::start("deadline", TIMEOUT_MS);
    let limit = canopy_proto::mgmt::MAX_TCP_CONNS;
    let t0 = Instant::now();
    let mut idle: Vec<Conn> = (0..limit).map(|_| Conn::tcp(rig.tcp)).collect();
    // keep them busy with blank lines and a byte at a time, faster than the timeout
    let stop = Instant::now() + Duration::from_millis(TIMEOUT_MS * 2);
    let mut tick = 0;
    while Instant::now() < stop {
        for (i, c) in idle.iter_mut().enumerate() {
            c.send_raw(if i % 2 == 0 { b"\n" } else { b" " });
        }
        // meanwhile, a client with the token gets in every time
        if tick % 5 == 0 {
            let mut ok = Conn::tcp(rig.tcp);
            assert_eq!(ok.authenticate(TOKEN.as_bytes())["ok"], json!(true));
            assert_eq!(ok.req(&Request::Health {})["ok"], json!(true));
        }
        tick += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    // every idle connection was told and closed, once its deadline from accept passed
    for c in &mut idle {
        let mut last = None;
        while let Some(v) = c.read() {
            last = Some(v);
        }
        let e = last.expect("an answer before the close");
        let e = e["error"].as_str().unwrap_or_default().to_string();
        assert!(
            e.starts_with("authentication failed: no authentication within")
                || e.starts_with("connection closed: all"),
            "{e}"
        );
    }
    assert!(t0.elapsed() < Duration::from_millis(TIMEOUT_MS * 4));
    let h = rig.health();
    let closed = h["auth_failures"].as_u64().unwrap() + h["conns_evicted"].as_u64().unwrap();
    assert!(closed >= limit as u64, "{h}");
    assert_eq!(h["tcp_refused"], json!(0), "{h}");
}

/// When every slot is held by a connection waiting between requests (on TCP
/// authenticated, on the Unix socket any), a new connection takes the slot of the
/// one that waited longest, which is told so; none is refused.
#[test]
fn a_new_connection_takes_the_slot_of_the_longest_waiting_one() {
    let rig = Rig::start("slots", 10_000);
    for (via, limit) in [
        (Via::Tcp, canopy_proto::mgmt::MAX_TCP_CONNS),
        (Via::Unix, canopy_proto::mgmt::MAX_UNIX_CONNS),
    ] {
        let mut open: Vec<Conn> = (0..limit).map(|_| rig.conn(via)).collect();
        // all but the first send requests now and then: the first waited longest
        for c in open.iter_mut().skip(1) {
            assert_eq!(c.req(&Request::Health {})["ok"], json!(true));
        }
        // health through the other endpoint: a connection of this one would take a slot
        let other = if via == Via::Tcp { Via::Unix } else { Via::Tcp };
        let health = || rig.conn(other).req(&Request::Health {});
        let evicted_before = health()["conns_evicted"].as_u64().unwrap();
        let mut new = rig.conn(via);
        assert_eq!(
            new.req(&Request::GetTables {})["ok"],
            json!(true),
            "{via:?}"
        );
        let first = &mut open[0];
        let r = first.read().expect("told why");
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .starts_with("connection closed: all"),
            "{via:?}: {r}"
        );
        assert!(first.read().is_none(), "{via:?}: closed");
        // the others still serve
        for c in open.iter_mut().skip(1) {
            assert_eq!(c.req(&Request::Health {})["ok"], json!(true), "{via:?}");
        }
        let h = health();
        assert_eq!(
            h["conns_evicted"].as_u64().unwrap(),
            evicted_before + 1,
            "{via:?}: {h}"
        );
        assert_eq!(h["tcp_refused"], json!(0), "{h}");
    }
}

/// On the Unix socket too, blank lines do not keep a connection open past the read
/// timeout.
#[test]
fn blank_lines_do_not_restart_the_read_timeout() {
    let rig = Rig::start("blank", 1_000);
    let mut c = rig.conn(Via::Unix);
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(1_800) {
        c.send_raw(b"\n");
        std::thread::sleep(Duration::from_millis(100));
    }
    c.send_raw(&line(&Request::Health {}));
    assert!(c.read().is_none(), "closed at the read timeout");
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
    // a wrong token: exit 1; the switch's proof does not match this token, so the
    // client stops there (it sends no proof of its own; the switch counts the client
    // that left after the challenge)
    write_token(&tok, "cmt-wrong-token-0123456789abcdef", 0o600);
    let (st, _, err) = run_bin(&["ctl", "--tcp", &addr, "--token-file", t, "port", "3", "up"]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("did not prove it holds the token"), "{err}");
    assert!(err.contains("is the token the switch's?"), "{err}");
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
