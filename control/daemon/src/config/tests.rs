//! The configuration's checks: each key refused by name and line, the defaults.

use super::*;

const GOOD: &str = "name = \"lab\"\ntopology = \"fat-tree:k=4\"\nkind = \"sliced\"\n[switches]\nsocket = \"/run/x/{name}.sock\"\n";

fn parse(t: &str) -> Result<Config, ConfigError> {
    Config::parse("c.toml", t, Path::new("/etc"))
}

#[test]
fn good_config_gives_every_endpoint_and_tables() {
    let c = parse(GOOD).unwrap();
    assert_eq!(c.targets.len(), 20);
    assert_eq!(c.base.len(), 20);
    assert_eq!(
        c.targets[0],
        Target::Mgmt(Endpoint::Unix(
            format!("/run/x/{}.sock", c.topology.switches[0].name).into()
        ))
    );
    assert_eq!(c.metrics.as_deref(), Some(DEFAULT_METRICS));
    assert_eq!(c.probe_interval, Duration::from_millis(100));
    assert!(c.summary().contains("20 switches"));
}

#[test]
fn socket_paths_and_placeholders_are_checked() {
    // an unknown placeholder (a typo would give every switch one socket)
    let e = parse(&GOOD.replace("{name}", "{nmae}"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("switches.socket") && e.contains("unknown placeholder \"{nmae}\""),
        "{e}"
    );
    let e = parse(&GOOD.replace("{name}.sock", "{name}-{.sock"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown placeholder \"{.sock\""), "{e}");
    // {index} is one
    assert!(parse(&GOOD.replace("{name}", "s{index}")).is_ok());
    // longer than a socket path can be
    let long = format!("/run/{}/{{name}}.sock", "d".repeat(100));
    let e = parse(&GOOD.replace("/run/x/{name}.sock", &long))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a Unix socket path has at most 107"), "{e}");
    // the control path: a regular file there is refused, not replaced
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    let e = parse(&format!(
        "{GOOD}[daemon]\ncontrol = \"{}\"\n",
        file.display()
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("daemon.control") && e.contains("exists and is not a socket"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

#[test]
fn overrides_and_errors_name_the_key_and_line() {
    let dir = std::env::temp_dir().join(format!("canopyd-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tok"), "0123456789abcdef0123\n").unwrap();
    let private = |mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.join("tok"), std::fs::Permissions::from_mode(mode)).unwrap();
    };
    private(0o644);
    let e = parse(&format!(
        "{GOOD}[[switch]]\nname = \"core-c0\"\ntcp = \"10.0.0.9:7000\"\ntoken_file = \"{}\"\n",
        dir.join("tok").display()
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("switch[0].token_file") && e.contains("mode 0644"),
        "a token others can read: {e}"
    );
    private(0o600);
    let t = format!(
        "{GOOD}[[switch]]\nname = \"core-c0\"\ntcp = \"10.0.0.9:7000\"\ntoken_file = \"{}\"\n",
        dir.join("tok").display()
    );
    let c = parse(&t).unwrap();
    let i = c.topology.switch_index("core-c0").unwrap();
    assert_eq!(
        c.targets[i],
        Target::Mgmt(Endpoint::Tcp(
            "10.0.0.9:7000".into(),
            b"0123456789abcdef0123".to_vec()
        ))
    );
    std::fs::write(dir.join("tok"), "short").unwrap();
    private(0o600);
    let e = parse(&t).unwrap_err().to_string();
    assert!(
        e.contains("switch[0].token_file") && e.contains("at least 16"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let e = parse(&format!(
        "{GOOD}[[switch]]\nname = \"nope\"\nsocket = \"/x\"\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("switch[0].name") && e.contains("line 7"), "{e}");
    let e = parse(&GOOD.replace("sliced", "slicd"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("kind") && e.contains("line 3"), "{e}");
    let e = parse(&format!("{GOOD}[daemon]\nprobe_interval_ms = 1\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("daemon.probe_interval_ms"), "{e}");
    let e = parse(&format!("{GOOD}[daemon]\nmetrics = \"localhost\"\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("daemon.metrics"), "{e}");
    let e = parse(&format!("{GOOD}bogus = 1\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bogus"), "{e}");
    let e = parse("name = \"lab\"\ntopology = \"fat-tree:k=4\"\nkind = \"sliced\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no endpoint for switch"), "{e}");
    let e = parse(&GOOD.replace("\"lab\"", "\"Lab!\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("name") && e.contains("line 1"), "{e}");
    let e = parse(&GOOD.replace("k=4", "k=3")).unwrap_err().to_string();
    assert!(e.contains("topology"), "{e}");
    let e = parse(&GOOD.replace("{name}", "sw"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("switches.socket") && e.contains("every switch needs its own"),
        "{e}"
    );
    let e = parse(&format!(
        "{GOOD}[[switch]]\nname = \"core-c0\"\nsocket = \"/run/x/core-c1.sock\"\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("core-c0") && e.contains("core-c1") && e.contains("needs its own"),
        "{e}"
    );
}

#[test]
fn user_and_group_are_checked_and_looked_up() {
    let with = |lines: &str| format!("{GOOD}[daemon]\n{lines}\n");
    let err = |t: &str, over: RunAs| {
        Config::parse_as("c.toml", t, Path::new("/etc"), over)
            .unwrap_err()
            .to_string()
    };
    let none = RunAs::default;
    for (lines, want) in [
        (
            "group = \"root\"",
            "c.toml: daemon.group: needs a user (--user or [daemon] user)",
        ),
        (
            "user = \"hdn-no-such-user\"",
            "c.toml: daemon.user: no such user \"hdn-no-such-user\" (see `getent passwd`)",
        ),
        (
            "user = \"root\"\ngroup = \"hdn-no-such-group\"",
            "c.toml: daemon.group: no such group \"hdn-no-such-group\"",
        ),
        (
            "user = \"\"",
            "c.toml: daemon.user: \"\" is not a user or group name",
        ),
        (
            "user = \"root\"\ngroup = \"a:b\"",
            "c.toml: daemon.group: \"a:b\" is not a user or group name",
        ),
    ] {
        let e = err(&with(lines), none());
        assert!(e.starts_with(want), "{lines}: want {want:?}, got {e}");
    }
    // --user and --group override the file, and their errors name the option
    let over = |u: Option<&str>, g: Option<&str>| RunAs {
        user: u.map(String::from),
        group: g.map(String::from),
    };
    let e = err(GOOD, over(Some("hdn-no-such-user"), None));
    assert!(
        e.contains("--user: no such user \"hdn-no-such-user\""),
        "{e}"
    );
    let e = err(GOOD, over(None, Some("root")));
    assert!(e.contains("--group: needs a user"), "{e}");
    let e = err(
        &with("user = \"root\""),
        over(None, Some("hdn-no-such-group")),
    );
    assert!(e.contains("--group: no such group"), "{e}");
    let c = Config::parse_as(
        "c.toml",
        &with("user = \"hdn-no-such-user\""),
        Path::new("/etc"),
        over(Some("root"), Some("root")),
    )
    .unwrap();
    let id = c.run_as.as_ref().unwrap();
    assert_eq!((id.user.as_str(), id.uid, id.gid), ("root", 0, 0));
    assert!(
        c.summary()
            .contains("privileges runs as user root (uid 0), group root (gid 0)"),
        "{}",
        c.summary()
    );
    // without either: the starting user
    let c = parse(GOOD).unwrap();
    assert!(c.run_as.is_none());
    assert!(c.summary().contains("privileges stays the starting user"));
}

#[test]
fn a_token_may_belong_to_the_user_canopyd_becomes() {
    let nobody = Identity::resolve(Some("nobody"), None).ok().flatten();
    let Some(nobody) = nobody.filter(|_| canopy_privs::euid() == 0) else {
        eprintln!(
            "SKIP a_token_may_belong_to_the_user_canopyd_becomes: needs root and the user nobody"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tok = dir.path().join("tok");
    std::fs::write(&tok, "0123456789abcdef0123\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::chown(&tok, Some(nobody.uid), Some(nobody.gid)).unwrap();
    let t = format!(
        "{GOOD}[[switch]]\nname = \"core-c0\"\ntcp = \"10.0.0.9:7000\"\ntoken_file = \"{}\"\n",
        tok.display()
    );
    let e = parse(&t).unwrap_err().to_string();
    assert!(
        e.contains("switch[0].token_file"),
        "another user's token: {e}"
    );
    let c = Config::parse_as(
        "c.toml",
        &t,
        Path::new("/etc"),
        RunAs {
            user: Some("nobody".into()),
            group: None,
        },
    )
    .unwrap();
    assert_eq!(c.run_as, Some(nobody));
}

#[test]
fn p4runtime_endpoints_and_the_program_are_checked() {
    const P4: &str = "name = \"lab\"\ntopology = \"fat-tree:k=4\"\nkind = \"sliced\"\n[switches]\np4runtime = \"unix:/run/x/{name}.p4rt\"\n";
    let c = parse(P4).unwrap();
    let Target::P4rt(s) = &c.targets[0] else {
        panic!("{:?}", c.targets[0])
    };
    assert_eq!(
        s.addr,
        crate::p4rt::Addr::Unix(format!("/run/x/{}.p4rt", c.topology.switches[0].name).into())
    );
    assert_eq!(s.device_id, DEFAULT_DEVICE_ID);
    let p = c.p4rt.as_ref().expect("a program for P4Runtime switches");
    assert_eq!(p.election_id, 1);
    assert!(p.device_config.is_empty() && p.tls.is_none());
    assert!(
        c.summary().contains("p4runtime P4Info canopy.p4's own"),
        "{}",
        c.summary()
    );
    assert!(c
        .summary()
        .contains("first endpoint p4runtime unix:/run/x/"));
    // loopback TCP and a device id per switch
    let c = parse(&format!(
        "{GOOD}[[switch]]\nname = \"core-c0\"\np4runtime = \"127.0.0.1:9559\"\ndevice_id = 9\n[p4runtime]\nelection_id = 5\n"
    ))
    .unwrap();
    let core = c.topology.switch_index("core-c0").unwrap();
    assert_eq!(
        c.targets[core],
        Target::P4rt(crate::p4rt::Server {
            addr: crate::p4rt::Addr::Tcp("127.0.0.1:9559".into()),
            device_id: 9
        })
    );
    assert!(matches!(c.targets[0], Target::Mgmt(_)) || core == 0);
    assert_eq!(c.p4rt.unwrap().election_id, 5);
    // no P4Runtime switch, no program
    assert!(parse(GOOD).unwrap().p4rt.is_none());
    let bad = |text: String, key: &str, what: &str| {
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(what), "{text}\n-> {e}");
    };
    bad(
        P4.replace("unix:/run/x/{name}.p4rt", "10.0.0.1:9559"),
        "switches.p4runtime",
        "plaintext P4Runtime only to a loopback address or a Unix socket",
    );
    bad(
        P4.replace("unix:/run/x/{name}.p4rt", "9559"),
        "switches.p4runtime",
        "HOST:PORT or unix:PATH",
    );
    bad(
        format!("{P4}socket = \"/run/x/{{name}}.sock\"\n"),
        "switches",
        "either p4runtime or socket/tcp",
    );
    bad(
        format!("{GOOD}device_id = 3\n"),
        "switches.device_id",
        "for p4runtime endpoints",
    );
    bad(
        P4.replace("{name}.p4rt", "one.p4rt"),
        "switches.p4runtime",
        "every switch needs its own",
    );
    bad(
        format!("{GOOD}[p4runtime]\nelection_id = 2\n"),
        "p4runtime",
        "no switch has a p4runtime endpoint",
    );
    bad(
        format!("{P4}[p4runtime]\nelection_id = 0\n"),
        "p4runtime.election_id",
        "never be primary",
    );
    bad(
        format!("{P4}[p4runtime]\ntls_ca = \"ca.pem\"\n"),
        "p4runtime",
        "go together",
    );
    bad(
        format!("{P4}[p4runtime]\ntls_domain = \"sw\"\n"),
        "p4runtime.tls_domain",
        "only with",
    );
    // a P4Info file: binary, and canopy.p4's
    let dir = tempfile::tempdir().unwrap();
    let info = dir.path().join("canopy.p4info.bin");
    std::fs::write(&info, "pkg_info { arch: \"v1model\" }").unwrap();
    bad(
        format!("{P4}[p4runtime]\np4info = \"{}\"\n", info.display()),
        "p4runtime.p4info",
        "not a binary P4Info",
    );
    let mut other = canopy_control::p4::program_p4info();
    other.tables.pop();
    std::fs::write(&info, prost::Message::encode_to_vec(&other)).unwrap();
    bad(
        format!("{P4}[p4runtime]\np4info = \"{}\"\n", info.display()),
        "p4runtime.p4info",
        "not canopy.p4's",
    );
    std::fs::write(
        &info,
        prost::Message::encode_to_vec(&canopy_control::p4::program_p4info()),
    )
    .unwrap();
    let json = dir.path().join("canopy.json");
    std::fs::write(&json, "{\"program\": \"canopy.p4\"}").unwrap();
    let c = parse(&format!(
        "{P4}[p4runtime]\np4info = \"{}\"\ndevice_config = \"{}\"\n",
        info.display(),
        json.display()
    ))
    .unwrap();
    let p = c.p4rt.unwrap();
    assert_eq!(p.p4info, canopy_control::p4::program_p4info());
    assert_eq!(p.device_config, b"{\"program\": \"canopy.p4\"}");
    bad(
        format!("{P4}[p4runtime]\ndevice_config = \"/nonexistent/canopy.json\"\n"),
        "p4runtime.device_config",
        "cannot read",
    );
}
