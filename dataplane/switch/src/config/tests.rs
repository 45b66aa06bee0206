//! The configuration's checks: each key refused by name, the defaults.

use super::*;
use canopy_dataplane::engine::PollMode;
use canopy_dataplane::port::afpacket::TpacketVersion;
use canopy_dataplane::port::afxdp::XdpMode;

const GOOD: &str = r#"
[switch]
workers = 1

[management]
socket = "/tmp/x.sock"

[[port]]
backend = "mem"
[[port]]
backend = "afpacket"
interface = "veth0"
"#;

#[test]
fn good_config_parses_with_defaults() {
    let c = Config::parse(Path::new("a.toml"), GOOD).unwrap();
    assert_eq!(c.ports.len(), 2);
    assert_eq!(c.ports[0].name(), "m0");
    match &c.ports[1] {
        PortSpec::AfPacket { cfg, .. } => assert_eq!(cfg.version, TpacketVersion::V2),
        p => panic!("{p:?}"),
    }
    assert_eq!(c.management.max_request, DEFAULT_MAX_REQUEST);
    assert!(c.tables.is_none());
}

#[test]
fn the_hop_record_switch_id_is_set_or_taken_from_the_topology() {
    let c = Config::parse(Path::new("a.toml"), GOOD).unwrap();
    assert_eq!((c.switch.id, c.engine.switch_id), (None, 0));
    let t = GOOD.replace("workers = 1", "workers = 1\nid = 7");
    let c = Config::parse(Path::new("a.toml"), &t).unwrap();
    assert_eq!(c.engine.switch_id, 7);
    // tables of a topology's switch: its index there (edge-p0-e1 is switch 1 of k=4),
    // unless `id` says otherwise
    let tables =
        "\n[tables]\ntopology = \"fat-tree:k=4\"\nkind = \"path-id\"\nswitch = \"edge-p0-e1\"\n";
    let four = "[[port]]\nbackend = \"mem\"\n".repeat(2);
    let mut c = Config::parse(Path::new("a.toml"), &format!("{GOOD}{four}{tables}")).unwrap();
    crate::tables::load_checked(&mut c).unwrap().unwrap();
    assert_eq!(c.engine.switch_id, 1);
    let t = format!("{t}{four}{tables}");
    let mut c = Config::parse(Path::new("a.toml"), &t).unwrap();
    crate::tables::load_checked(&mut c).unwrap().unwrap();
    assert_eq!(c.engine.switch_id, 7);
}

fn dpdk_cfg(port: &str, dpdk: &str) -> Result<Config, ConfigError> {
    let t = format!("{GOOD}\n[[port]]\nbackend = \"dpdk\"\n{port}\n{dpdk}");
    Config::parse(Path::new("a.toml"), &t)
}

#[test]
fn parse_rules_checks_dpdk_ports_in_any_build() {
    let t = format!(
        "{GOOD}\n[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 2\n[dpdk]\neal_args = [\"--no-pci\"]"
    );
    let c = Config::parse_rules(Path::new("a.toml"), &t).unwrap();
    assert_eq!(
        c.ports[2],
        PortSpec::Dpdk {
            device: "net_af_packet0".into(),
            queues: 2,
            rx_desc: DEFAULT_DPDK_DESC,
            tx_desc: DEFAULT_DPDK_DESC,
        }
    );
    // the build matters to `parse` only
    assert_eq!(
        Config::parse(Path::new("a.toml"), &t).is_ok(),
        cfg!(feature = "dpdk")
    );
    // every other rule still applies
    let bad = t.replace("queues = 2", "rx_desc = 100");
    let e = Config::parse_rules(Path::new("a.toml"), &bad).unwrap_err();
    assert_eq!(e.key, "port[2].rx_desc", "{e}");
    let bad = t.replace("device = \"net_af_packet0\"\n", "");
    let e = Config::parse_rules(Path::new("a.toml"), &bad).unwrap_err();
    assert_eq!(e.key, "port[2].device", "{e}");
}

#[test]
fn dpdk_port_parses_or_needs_the_feature() {
    let r = dpdk_cfg(
        "device = \"net_af_packet0\"",
        "[dpdk]\neal_args = [\"--no-pci\", \"--vdev=net_af_packet0,iface=v0\"]",
    );
    if !cfg!(feature = "dpdk") {
        let e = r.unwrap_err();
        assert_eq!(e.key, "port[2].backend");
        assert!(e.what.contains("without the `dpdk` feature"), "{e}");
        assert!(e.what.contains("--features dpdk"), "{e}");
        return;
    }
    let c = r.unwrap();
    assert_eq!(
        c.ports[2],
        PortSpec::Dpdk {
            device: "net_af_packet0".into(),
            queues: 1,
            rx_desc: DEFAULT_DPDK_DESC,
            tx_desc: DEFAULT_DPDK_DESC,
        }
    );
    assert_eq!(c.ports[2].backend(), "dpdk");
    // adaptive polling sleeps at most 100 µs with dpdk ports unless told otherwise
    match c.engine.mode {
        PollMode::Adaptive { max_sleep, .. } => {
            assert_eq!(max_sleep, Duration::from_micros(DPDK_ADAPTIVE_MAX_SLEEP_US))
        }
        m => panic!("{m:?}"),
    }
    let t = format!(
        "{}\n[[port]]\nbackend = \"dpdk\"\ndevice = \"d\"",
        GOOD.replace("workers = 1", "workers = 1\nmax_sleep_us = 5000")
    );
    match Config::parse(Path::new("a.toml"), &t).unwrap().engine.mode {
        PollMode::Adaptive { max_sleep, .. } => {
            assert_eq!(max_sleep, Duration::from_micros(5000))
        }
        m => panic!("{m:?}"),
    }
    assert_eq!(c.dpdk.as_ref().unwrap().eal_args.len(), 2);
    // no [dpdk]: EAL defaults only
    let c = dpdk_cfg(
        "device = \"0000:03:00.0\"\nqueues = 4\nrx_desc = 512\ntx_desc = 256",
        "",
    )
    .unwrap();
    assert_eq!(
        c.ports[2],
        PortSpec::Dpdk {
            device: "0000:03:00.0".into(),
            queues: 4,
            rx_desc: 512,
            tx_desc: 256,
        }
    );
    assert_eq!(c.dpdk, Some(DpdkSection::default()));
}

#[test]
fn dpdk_keys_are_validated() {
    if !cfg!(feature = "dpdk") {
        return;
    }
    for (port, dpdk, key, what) in [
        ("", "", "port[2].device", "missing"),
        (
            "device = \"a,b\"",
            "",
            "port[2].device",
            "not a DPDK device name",
        ),
        (
            "device = \"\"",
            "",
            "port[2].device",
            "not a DPDK device name",
        ),
        ("device = \"d\"\nqueues = 0", "", "port[2].queues", "1..=64"),
        (
            "device = \"d\"\nqueues = 65",
            "",
            "port[2].queues",
            "1..=64",
        ),
        (
            "device = \"d\"\nrx_desc = 1000",
            "",
            "port[2].rx_desc",
            "power of two",
        ),
        (
            "device = \"d\"\ntx_desc = 32",
            "",
            "port[2].tx_desc",
            "power of two",
        ),
        (
            "device = \"d\"\ninterface = \"v0\"",
            "",
            "port[2].interface",
            "named by `device`",
        ),
        (
            "device = \"d\"\nmode = \"skb\"",
            "",
            "port[2].mode",
            "afxdp ports",
        ),
        (
            "device = \"d\"\nfanout = 1",
            "",
            "port[2].fanout",
            "afpacket ports",
        ),
        (
            "device = \"d\"\ncapacity = 8",
            "",
            "port[2].capacity",
            "mem ports",
        ),
        (
            "device = \"d\"",
            "[dpdk]\neal_args = [\"\"]",
            "dpdk.eal_args[0]",
            "empty",
        ),
        (
            "device = \"d\"",
            "[dpdk]\nbogus = 1",
            "dpdk.bogus",
            "unknown field",
        ),
    ] {
        let e = dpdk_cfg(port, dpdk).unwrap_err();
        assert_eq!(e.key, key, "{port} {dpdk}: {e}");
        assert!(e.what.contains(what), "{port} {dpdk}: {e}");
    }
    // dpdk keys elsewhere, [dpdk] without a dpdk port
    let t = GOOD.replace(
        "interface = \"veth0\"",
        "interface = \"veth0\"\nrx_desc = 512",
    );
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[1].rx_desc");
    assert!(e.what.contains("dpdk ports"), "{e}");
    let e = Config::parse(
        Path::new("a.toml"),
        &format!("{GOOD}\n[dpdk]\neal_args = []"),
    )
    .unwrap_err();
    assert_eq!(e.key, "dpdk");
    // a device named twice
    let e = dpdk_cfg(
        "device = \"d\"\n[[port]]\nbackend = \"dpdk\"\ndevice = \"d\"",
        "",
    )
    .unwrap_err();
    assert!(e.what.contains("already port[2]"), "{e}");
}

#[test]
fn afxdp_port_parses_with_defaults_and_keys() {
    let t = GOOD.replace(
        "backend = \"afpacket\"\ninterface = \"veth0\"",
        "backend = \"afxdp\"\ninterface = \"veth0\"",
    );
    let c = Config::parse(Path::new("a.toml"), &t).unwrap();
    match &c.ports[1] {
        PortSpec::AfXdp {
            interface,
            cfg,
            queues,
        } => {
            assert_eq!(interface, "veth0");
            assert_eq!(*cfg, AfXdpConfig::default());
            assert_eq!(*queues, 1);
        }
        p => panic!("{p:?}"),
    }
    assert_eq!(c.ports[1].backend(), "afxdp");
    let t = GOOD.replace(
        "backend = \"afpacket\"\ninterface = \"veth0\"",
        "backend = \"afxdp\"\ninterface = \"eth1\"\nqueue = 2\nqueues = 2\nmode = \"skb\"\nframe_size = 4096\nrx_ring = 512\ntx_ring = 256\nfill_ring = 1024\ncompletion_ring = 128",
    );
    let c = Config::parse(Path::new("a.toml"), &t).unwrap();
    let want = AfXdpConfig {
        queue: 2,
        mode: XdpMode::Skb,
        frame_size: 4096,
        rx_ring: 512,
        tx_ring: 256,
        fill_ring: 1024,
        comp_ring: 128,
    };
    match &c.ports[1] {
        PortSpec::AfXdp { cfg, queues, .. } => {
            assert_eq!(*cfg, want);
            assert_eq!(*queues, 2);
        }
        p => panic!("{p:?}"),
    }
}

#[test]
fn afxdp_keys_are_validated_and_confined_to_afxdp_ports() {
    let with = |keys: &str| {
        GOOD.replace(
            "backend = \"afpacket\"\ninterface = \"veth0\"",
            &format!("backend = \"afxdp\"\ninterface = \"veth0\"\n{keys}"),
        )
    };
    for (keys, key, what) in [
        (
            "rx_ring = 1000",
            "port[1]",
            "rx ring size 1000 must be a power of two",
        ),
        ("frame_size = 3000", "port[1]", "frame size 3000"),
        ("queues = 0", "port[1].queues", "0 queues from queue 0"),
        (
            "queue = 255\nqueues = 2",
            "port[1].queues",
            "2 queues from queue 255",
        ),
        (
            "tpacket = \"v2\"",
            "port[1].tpacket",
            "applies only to afpacket ports",
        ),
        (
            "capacity = 4",
            "port[1].capacity",
            "applies only to mem ports",
        ),
    ] {
        let e = Config::parse(Path::new("a.toml"), &with(keys)).unwrap_err();
        assert_eq!(e.key, key, "{keys}: {e}");
        assert!(e.what.contains(what), "{keys}: {e}");
    }
    let e = Config::parse(Path::new("a.toml"), &with("mode = \"fast\"")).unwrap_err();
    assert_eq!(e.key, "port[1].mode", "{e}");
    assert!(e.to_string().contains("unknown variant"), "{e}");
    // afxdp keys on other backends
    let t = GOOD.replace("interface = \"veth0\"", "interface = \"veth0\"\nqueue = 1");
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[1].queue", "{e}");
    assert!(e.what.contains("applies only to afxdp ports"), "{e}");
    let t = GOOD.replace("backend = \"mem\"", "backend = \"mem\"\nmode = \"skb\"");
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[0].mode", "{e}");
    let t = with("").replace("interface = \"veth0\"\n", "");
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[1].interface", "{e}");
    assert!(
        e.what
            .contains("backend \"afxdp\" needs the interface name"),
        "{e}"
    );
}

#[test]
fn qdisc_bypass_is_an_afpacket_key_on_by_default() {
    let bypass = |t: &str| match &Config::parse(Path::new("a.toml"), t).unwrap().ports[1] {
        PortSpec::AfPacket { cfg, .. } => cfg.qdisc_bypass,
        p => panic!("{p:?}"),
    };
    assert!(bypass(GOOD));
    let off = GOOD.replace(
        "interface = \"veth0\"",
        "interface = \"veth0\"\nqdisc_bypass = false",
    );
    assert!(!bypass(&off));
    let t = GOOD.replace(
        "backend = \"mem\"",
        "backend = \"mem\"\nqdisc_bypass = false",
    );
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[0].qdisc_bypass", "{e}");
    assert!(e.what.contains("applies only to afpacket"), "{e}");
    let t = off.replace("backend = \"afpacket\"", "backend = \"afxdp\"");
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[1].qdisc_bypass", "{e}");
    assert!(e.what.contains("applies only to afpacket ports"), "{e}");
}

#[test]
fn unknown_key_is_named_with_its_section() {
    let t = GOOD.replace("interface = \"veth0\"", "interfce = \"veth0\"");
    let e = Config::parse(Path::new("a.toml"), &t).unwrap_err();
    assert_eq!(e.key, "port[1].interfce", "{e}");
    assert!(e.to_string().contains("unknown field"), "{e}");
    assert!(e.to_string().starts_with("a.toml: "), "{e}");
}

#[test]
fn relative_tables_file_is_resolved_next_to_the_config() {
    let t = format!("{GOOD}\n[tables]\nfile = \"t.json\"\n");
    let c = Config::parse(Path::new("/etc/canopy/a.toml"), &t).unwrap();
    assert_eq!(
        c.tables,
        Some(TablesSource::File(PathBuf::from("/etc/canopy/t.json")))
    );
}

#[test]
fn tcp_needs_a_token_file_and_a_valid_address() {
    let with = |extra: &str| {
        GOOD.replace(
            "socket = \"/tmp/x.sock\"",
            &format!("socket = \"/tmp/x.sock\"\n{extra}"),
        )
    };
    let e = |extra: &str| Config::parse(Path::new("a.toml"), &with(extra)).unwrap_err();
    let x = e("tcp = \"127.0.0.1:7410\"");
    assert_eq!(x.key, "management.token_file", "{x}");
    assert!(x.what.contains("missing"), "{x}");
    let x = e("token_file = \"t\"");
    assert_eq!(x.key, "management.token_file", "{x}");
    assert!(x.what.contains("only with `tcp`"), "{x}");
    let x = e("tcp = \"localhost\"\ntoken_file = \"t\"");
    assert_eq!(x.key, "management.tcp", "{x}");
    let x = e("tcp = \"127.0.0.1:99999\"\ntoken_file = \"t\"");
    assert_eq!(x.key, "management.tcp", "{x}");
    let x = e("tcp = \"127.0.0.1:7410\"\ntoken_file = \"\"");
    assert_eq!(x.key, "management.token_file", "{x}");
    let c = Config::parse(
        Path::new("/etc/canopy/a.toml"),
        &with("tcp = \"[::1]:0\"\ntoken_file = \"tok\""),
    )
    .unwrap();
    let t = c.management.tcp.unwrap();
    assert_eq!(t.addr, "[::1]:0".parse().unwrap());
    assert_eq!(t.token_file, PathBuf::from("/etc/canopy/tok"));
    // no tcp: no token read
    let c = Config::parse(Path::new("a.toml"), GOOD).unwrap();
    assert_eq!(c.read_token(None).unwrap(), None);
}

#[test]
fn token_file_must_be_private_and_long_enough() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("cmt{}-tok", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg_path = dir.join("a.toml");
    let text = GOOD.replace(
        "socket = \"/tmp/x.sock\"",
        "socket = \"/tmp/x.sock\"\ntcp = \"127.0.0.1:0\"\ntoken_file = \"tok\"",
    );
    let c = Config::parse(&cfg_path, &text).unwrap();
    let tok = dir.join("tok");
    let put = |body: &[u8], mode: u32| {
        let _ = std::fs::remove_file(&tok);
        std::fs::write(&tok, body).unwrap();
        std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let fails = |want: &str| {
        let e = c.read_token(None).unwrap_err();
        assert_eq!(e.key, "management.token_file", "{e}");
        assert!(e.to_string().contains(want), "{e} lacks {want:?}");
    };
    fails("cannot read");
    let long = vec![b'a'; 5000];
    for (content, mode, want) in [
        (&b"0123456789abcdef0123\n"[..], 0o644, "mode 0644"),
        (b"0123456789abcdef0123\n", 0o640, "mode 0640"),
        (b"0123456789abcdef0123\n", 0o602, "mode 0602"),
        (b"  \n", 0o600, "is empty"),
        (b"short-token\n", 0o600, "11 bytes"),
        (b"\xff\xfe0123456789abcdef", 0o600, "not UTF-8"),
        (&long, 0o600, "5000 bytes"),
    ] {
        put(content, mode);
        fails(want);
    }
    put(b"  0123456789abcdef0123\n", 0o400);
    assert_eq!(
        c.read_token(None).unwrap().as_deref(),
        Some(&b"0123456789abcdef0123"[..])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn capture_section_parses_and_refuses_what_cannot_run() {
    use crate::capture::{CaptureConfig, DEFAULT_MAX_FRAMES, MAX_SNAPLEN};
    use crate::pcap::Format;
    let with = |keys: &str| format!("{GOOD}\n[capture]\n{keys}\n");
    let c = Config::parse(Path::new("/etc/canopy/a.toml"), &with("dir = \"cap\""))
        .unwrap()
        .capture
        .unwrap();
    assert_eq!(c, CaptureConfig::new(PathBuf::from("/etc/canopy/cap")));
    assert_eq!(
        (c.format, c.max_frames, c.snaplen, c.rx, c.tx),
        (Format::Pcap, DEFAULT_MAX_FRAMES, MAX_SNAPLEN, true, true)
    );
    let c = Config::parse(
        Path::new("a.toml"),
        &with("dir = \"/var/tmp/c\"\nformat = \"pcapng\"\nports = [1, 0, 1]\ndirection = \"out\"\nmax_frames = 7\nsnaplen = 128\nqueue = 64"),
    )
    .unwrap()
    .capture
    .unwrap();
    assert_eq!(c.dir, PathBuf::from("/var/tmp/c"));
    assert_eq!(
        (c.format, c.ports.as_deref()),
        (Format::PcapNg, Some(&[0, 1][..]))
    );
    assert_eq!(
        (c.rx, c.tx, c.max_frames, c.snaplen, c.queue),
        (false, true, 7, 128, 64)
    );
    assert!(Config::parse(Path::new("a.toml"), GOOD)
        .unwrap()
        .capture
        .is_none());
    for (keys, key, want) in [
        ("dir = \"\"", "capture.dir", "is empty"),
        ("dir = \"c\"\nports = []", "capture.ports", "is empty"),
        (
            "dir = \"c\"\nports = [2]",
            "capture.ports",
            "port 2 does not exist",
        ),
        (
            "dir = \"c\"\nmax_frames = 0",
            "capture.max_frames",
            "at least 1",
        ),
        (
            "dir = \"c\"\nsnaplen = 20",
            "capture.snaplen",
            "outside 64..=2048",
        ),
        ("dir = \"c\"\nsnaplen = 9000", "capture.snaplen", "outside"),
        ("dir = \"c\"\nqueue = 8", "capture.queue", "outside 64..="),
        (
            "dir = \"c\"\nformat = \"erf\"",
            "capture.format",
            "unknown variant",
        ),
        (
            "dir = \"c\"\ndirection = \"up\"",
            "capture.direction",
            "unknown variant",
        ),
        ("dir = \"c\"\nsnap = 1", "capture.snap", "unknown field"),
        ("format = \"pcap\"", "capture", "missing field `dir`"),
    ] {
        let e = Config::parse(Path::new("a.toml"), &with(keys)).unwrap_err();
        assert_eq!(e.key, key, "{keys}: {e}");
        assert!(e.to_string().contains(want), "{keys}: {e} lacks {want:?}");
    }
}

#[test]
fn p4runtime_is_mutual_tls_or_loopback_only() {
    let parse = |s: &str| {
        Config::parse(
            Path::new("/etc/canopy/a.toml"),
            &format!("{GOOD}\n[p4runtime]\n{s}"),
        )
    };
    let c = parse("listen = \"127.0.0.1:9559\"").unwrap();
    assert_eq!(
        c.p4runtime,
        Some(P4RuntimeConfig {
            addr: Listen::Tcp("127.0.0.1:9559".parse().unwrap()),
            device_id: 1,
            tls: None,
        })
    );
    // a Unix socket, relative to the configuration's directory, plaintext
    let c = parse("listen = \"unix:run/s1.p4rt\"").unwrap();
    assert_eq!(
        c.p4runtime.unwrap().addr,
        Listen::Unix("/etc/canopy/run/s1.p4rt".into())
    );
    assert!(Config::parse(Path::new("a.toml"), GOOD)
        .unwrap()
        .p4runtime
        .is_none());
    let c = parse("listen = \"[::]:9559\"\ndevice_id = 7\ntls_cert = \"s.pem\"\ntls_key = \"s.key\"\nclient_ca = \"ca.pem\"").unwrap();
    let p = c.p4runtime.unwrap();
    assert_eq!(p.device_id, 7);
    assert_eq!(
        p.tls,
        Some(TlsFiles {
            cert: "/etc/canopy/s.pem".into(),
            key: "/etc/canopy/s.key".into(),
            client_ca: "/etc/canopy/ca.pem".into(),
        })
    );
    for (text, key, what) in [
        ("listen = \"0.0.0.0:9559\"", "p4runtime.listen", "0.0.0.0:9559 is not a loopback address: plaintext P4Runtime is served on loopback (or a Unix socket) only; set tls_cert, tls_key and client_ca (mutual TLS) to serve on other addresses"),
        ("listen = \"9559\"", "p4runtime.listen", "\"9559\" is not ADDR:PORT (e.g. \"127.0.0.1:9559\") or unix:PATH"),
        ("listen = \"127.0.0.1:9559\"\ntls_cert = \"s.pem\"\ntls_key = \"s.key\"", "p4runtime.client_ca", "missing: mutual TLS needs tls_cert, tls_key and client_ca"),
        ("listen = \"127.0.0.1:9559\"\nclient_ca = \"ca.pem\"", "p4runtime.tls_cert", "missing: mutual TLS needs tls_cert, tls_key and client_ca"),
        ("listen = \"127.0.0.1:9559\"\ntls_cert = \"\"\ntls_key = \"k\"\nclient_ca = \"c\"", "p4runtime.tls_cert", "is empty"),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!((e.key.as_str(), e.what.as_str()), (key, what), "{text}");
    }
    let e = parse(&format!("listen = \"unix:/{}\"", "d".repeat(120))).unwrap_err();
    assert!(
        e.key == "p4runtime.listen" && e.what.contains("a Unix socket path has at most 107"),
        "{e}"
    );
    let e = parse("listen = \"127.0.0.1:1\"\nport = 3").unwrap_err();
    assert!(e.what.contains("unknown field `port`"), "{e}");
}
