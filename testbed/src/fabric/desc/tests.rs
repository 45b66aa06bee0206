//! The description's parser and checks, from text to errors with key and line.

use super::*;

fn parse(body: &str) -> Result<Desc> {
    Desc::parse("t.toml", body)
}

fn err(body: &str) -> String {
    parse(body).unwrap_err().to_string()
}

/// Two machines: the core switches on `b`, everything else on `a`.
const TWO_MACHINES: &str = "[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n[[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n";

/// `[[nic]]` tables for both ends of the link at core-c0's port 0 in [`TWO_MACHINES`].
fn core_c0_port0_nics() -> String {
    let d = parse(TWO_MACHINES).unwrap();
    let c0 = sw_index(&d, "core-c0");
    let l = d
        .links
        .iter()
        .find(|l| l.a == (Node::Switch(c0), 0) || l.b == (Node::Switch(c0), 0))
        .unwrap();
    let far = if l.a.0 == Node::Switch(c0) { l.b } else { l.a };
    let far = format!("{}:{}", d.node_name(far.0), far.1);
    format!(
        "[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n[[nic]]\nport = \"{far}\"\ninterface = \"eth2\"\n"
    )
}

/// Each body is refused with an error that names the key, the line (unless 0) and
/// contains the fragment; each of `fine` parses.
fn refused_and_fine(cases: &[(&str, &str, usize, &str)], fine: &[&str]) {
    for (body, key, line, frag) in cases {
        let e = err(body);
        assert!(
            e.starts_with(&format!("t.toml: {key}: ")),
            "{body:?}: want key {key}: {e}"
        );
        if *line > 0 {
            assert!(
                e.ends_with(&format!("(line {line})")),
                "{body:?}: want line {line}: {e}"
            );
        }
        assert!(e.contains(frag), "{body:?}: want {frag:?}: {e}");
    }
    for ok in fine {
        parse(ok).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
    }
}

#[test]
fn traffic_table_is_checked_before_anything_is_created() {
    let err = |body: &str| Desc::parse("t.toml", body).unwrap_err().to_string();
    // a rate the machine cannot reach: above the generator's ceiling on this machine
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let too_fast = crate::traffic::spec::PPS_PER_GEN_CORE * cpus as f64 * 10.0;
    let e = err(&format!(
        "mtu = 1500\n[traffic]\nrate = \"{too_fast}pps\"\n"
    ));
    assert!(e.starts_with("t.toml: traffic.rate: "), "{e}");
    assert!(e.ends_with("(line 2)"), "{e}");
    // the table's own keys and values
    let e = err("[traffic]\nrat = 5\n");
    assert!(e.starts_with("t.toml: traffic"), "{e}");
    assert!(e.contains("rat"), "{e}");
    let e = err("[traffic]\nframe_size = 20\n");
    assert!(e.contains("traffic.frame_size"), "{e}");
    // a mistyped value names its key
    let e = err("[traffic]\npattern = \"uniform\"\nrate = 5\n");
    assert!(e.starts_with("t.toml: traffic.rate: "), "{e}");
    // transpose needs a square host count: 16 is, 20 (k=4 fat-tree has 16) is not tested here
    assert!(Desc::parse(
        "t.toml",
        "[traffic]\npattern = \"transpose\"\nrate = \"1000pps\"\n"
    )
    .is_ok());
    assert!(Desc::parse("t.toml", "").is_ok());
}

#[test]
fn globs() {
    assert!(glob("edge-*", "edge-p0-e0"));
    assert!(glob("*", "h3"));
    assert!(glob("agg-*-a1", "agg-p2-a1"));
    assert!(!glob("agg-*-a1", "agg-p2-a0"));
    assert!(glob("h1", "h1"));
    assert!(!glob("h1", "h12"));
    assert!(glob("h1*", "h12"));
    assert!(!glob("a*a", "a"));
}

#[test]
fn names() {
    assert!(valid_name("ft4").is_ok());
    assert!(valid_name("cfab4194304x").is_ok());
    for bad in ["", "Ft", "a_b", "-a", "a-", "abcdefghijklm", "a b", "a/b"] {
        assert!(valid_name(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn defaults_are_a_local_k4_sliced_fat_tree() {
    let d = parse("").unwrap();
    assert_eq!(d.name, "canopy");
    assert_eq!(d.raw.topology.get_ref(), "fat-tree:k=4");
    assert_eq!(d.kind, Kind::Sliced);
    assert_eq!(
        (d.topo.switches.len(), d.topo.hosts.len(), d.links.len()),
        (20, 16, 48)
    );
    assert!(d.placement.is_empty());
    assert_eq!(d.machine_of(Node::Host(3)), LOCAL);
    assert!(d.links.iter().all(|l| d.end_kind(l, l.a) == LinkKind::Veth));
    assert_eq!(d.host_ifaces(5), ("h5p0".to_string(), vec![]));
    assert_eq!(d.netns(Node::Switch(19)), "canopy-s19");
    assert!(d.raw.traffic.is_none());
    // [traffic] is kept as written
    let d = parse("[traffic]\npattern = \"uniform\"\nrate = \"5kpps\"\n").unwrap();
    assert_eq!(d.raw.traffic.unwrap()["rate"].as_str(), Some("5kpps"));
}

#[test]
fn canopyd_and_target_settings() {
    let d = parse("").unwrap();
    assert!(
        d.daemon && !d.bmv2,
        "canopyd by default, canopy-switch target"
    );
    let d = parse("[canopyd]\nenabled = false\n").unwrap();
    assert!(!d.daemon);
    // bmv2 under canopyd where simple_switch_grpc is installed (or named)
    let d = parse("target = \"bmv2\"\n").unwrap();
    let grpc = crate::os::netns::which("simple_switch_grpc").is_some();
    assert!(
        d.bmv2 && d.daemon == grpc,
        "canopyd drives bmv2 when it can"
    );
    let d = parse("target = \"bmv2\"\n[bmv2]\nsimple_switch_grpc = \"/x/ssg\"\n").unwrap();
    assert!(d.bmv2 && d.daemon);
    let d = parse("target = \"bmv2\"\n[canopyd]\nenabled = false\n").unwrap();
    assert!(d.bmv2 && !d.daemon);
    let d = parse("target = \"bmv2\"\n[canopyd]\nenabled = true\n").unwrap();
    assert!(d.bmv2 && d.daemon);
    let e = err("target = \"tofino\"\n");
    assert!(e.contains("target") && e.contains("line 1"), "{e}");
    let e = err("[canopyd]\nmetrics = \"localhost\"\n");
    assert!(e.contains("canopyd.metrics"), "{e}");
    let e = err("[canopyd]\nprobe_interval_ms = 1\n");
    assert!(e.contains("canopyd.probe_interval_ms"), "{e}");
    let e = err("[bmv2]\np4 = \"x\"\n");
    assert!(e.contains("p4"), "{e}");
}

#[test]
fn up_policy_is_flowlets_with_a_start_gap_unless_set_or_per_packet() {
    let gap = |d: &Desc| {
        d.switch_table()
            .get("flowlet_gap_us")
            .and_then(toml::Value::as_integer)
    };
    let d = parse("").unwrap();
    assert_eq!(d.raw.up_policy, UpPolicy::Flowlets);
    assert_eq!(
        (gap(&d), d.flowlet_gap_set()),
        (Some(START_FLOWLET_GAP_US as i64), None)
    );
    let d = parse("[switch]\nflowlet_gap_us = 750\n").unwrap();
    assert_eq!((gap(&d), d.flowlet_gap_set()), (Some(750), Some(750)));
    let d = parse("up_policy = \"per-packet\"\n").unwrap();
    assert_eq!((d.raw.up_policy, gap(&d)), (UpPolicy::PerPacket, None));
    let e = err("up_policy = \"per-packet\"\n[switch]\nflowlet_gap_us = 750\n");
    assert!(
        e.contains("switch.flowlet_gap_us") && e.contains("no flowlet gap"),
        "{e}"
    );
    let e = err("up_policy = \"ecmp\"\n");
    assert!(
        e.contains("ecmp") && e.contains("per-packet") && e.contains("line 1"),
        "{e}"
    );
}

#[test]
fn transit_hosts_send_on_an_output_and_receive_on_both_inputs() {
    let d = parse("topology = \"transit-full:layers=1\"\nkind = \"transit\"\n").unwrap();
    assert_eq!(d.links.len(), 512);
    let (tx, rx) = d.host_ifaces(0);
    assert!(tx.starts_with("h0p"), "{tx}");
    assert_eq!(rx.len(), 2, "{rx:?}");
    assert!(!rx.contains(&tx));
}

#[test]
fn cross_machine_links_are_vxlan_with_stable_vnis() {
    let two = TWO_MACHINES;
    let d = parse(two).unwrap();
    let cross: Vec<&Link> = d
        .links
        .iter()
        .filter(|l| d.machine_of(l.a.0) != d.machine_of(l.b.0))
        .collect();
    assert_eq!(cross.len(), 16);
    for l in cross {
        let end = if d.machine_of(l.a.0) == "a" { l.a } else { l.b };
        assert_eq!(
            d.end_kind(l, end),
            LinkKind::Vxlan {
                vni: 10_000 + l.id,
                remote: "b".into()
            }
        );
    }
    // a NIC on one end only
    let e = err(&format!(
        "{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n"
    ));
    assert!(e.contains("NIC on one end only"), "{e}");
    // cross-machine links with nodes left on "local"
    let e = err("[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n[[place]]\nnodes = [\"core-*\"]\nmachine = \"a\"\n");
    assert!(e.contains("place every node on a named [[machine]]"), "{e}");
    // a NIC on a link that does not cross machines
    let e = err("[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\n");
    assert!(e.contains("does not cross machines"), "{e}");
}

/// The `[[port]]` table of `sw`:`port` with `interface` left out.
fn table(d: &Desc, sw: &str, port: u16) -> toml::Table {
    let i = d.topo.switch_index(sw).unwrap();
    let mut t = d.port_table(i as u32, port);
    assert_eq!(
        t.remove("interface")
            .and_then(|v| v.as_str().map(String::from)),
        Some(format!("s{i}p{port}"))
    );
    t
}

fn tbl(s: &str) -> toml::Table {
    toml::from_str(s).unwrap()
}

#[test]
fn port_backends_per_switch_and_port() {
    let d = parse(
        "[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n\
         [[ports.override]]\nswitch = \"edge-*\"\nbackend = \"afpacket\"\ntpacket = \"v3\"\n\
         [[ports.override]]\nswitch = \"core-c0\"\nport = 1\nmode = \"copy\"\nrx_ring = 1024\n\
         [[ports.override]]\nswitch = \"core-c1\"\nbackend = \"afxdp\"\nfill_ring = 4096\n",
    )
    .unwrap();
    // [ports]: afxdp in SKB mode everywhere ...
    assert_eq!(
        table(&d, "agg-p0-a0", 2),
        tbl("backend = \"afxdp\"\nmode = \"skb\"")
    );
    // ... but the edge switches: another backend starts afresh (no `mode` leaks in)
    for p in 0..4 {
        assert_eq!(
            table(&d, "edge-p3-e1", p),
            tbl("backend = \"afpacket\"\ntpacket = \"v3\"")
        );
    }
    // one port of core-c0: the same backend, so its keys add to [ports]'s
    assert_eq!(
        table(&d, "core-c0", 1),
        tbl("backend = \"afxdp\"\nmode = \"copy\"\nrx_ring = 1024")
    );
    assert_eq!(
        table(&d, "core-c0", 0),
        tbl("backend = \"afxdp\"\nmode = \"skb\"")
    );
    // naming the same backend again keeps the keys it had
    assert_eq!(
        table(&d, "core-c1", 3),
        tbl("backend = \"afxdp\"\nfill_ring = 4096\nmode = \"skb\"")
    );
    let edge0 = d.topo.switch_index("edge-p0-e0").unwrap();
    assert_eq!(d.port_backends(edge0 as u32), vec!["afpacket"; 4]);
    assert_eq!(d.port_backends(19), vec!["afxdp"; 4]);
    // where a key came from
    let c0 = d.topo.switch_index("core-c0").unwrap();
    let k = &d.ports[c0][1].keys["rx_ring"];
    assert_eq!(k.key, "ports.override[1].rx_ring");
    assert_eq!(line_of(&d.text, k.span.clone().unwrap().start), 12);
    assert_eq!(d.ports[c0][1].keys["mode"].key, "ports.override[1].mode");
    assert_eq!(d.ports[c0][0].keys["mode"].key, "ports.mode");
}

#[test]
fn old_descriptions_keep_their_meaning() {
    // nothing said: AF_PACKET, the switch's default TPACKET version
    let d = parse("").unwrap();
    assert_eq!(table(&d, "core-c3", 0), tbl("backend = \"afpacket\""));
    // tpacket only: [ports] for every port, overrides on top
    let d = parse(
        "[ports]\nbackend = \"afpacket\"\ntpacket = \"v3\"\n\
         [[ports.override]]\nswitch = \"core-*\"\ntpacket = \"v2\"\n\
         [[ports.override]]\nswitch = \"edge-p0-e0\"\nport = 0\ntpacket = \"v2\"\n",
    )
    .unwrap();
    let v3 = tbl("backend = \"afpacket\"\ntpacket = \"v3\"");
    let v2 = tbl("backend = \"afpacket\"\ntpacket = \"v2\"");
    assert_eq!(table(&d, "agg-p1-a1", 0), v3);
    assert_eq!(table(&d, "core-c2", 3), v2);
    assert_eq!(table(&d, "edge-p0-e0", 0), v2);
    assert_eq!(table(&d, "edge-p0-e0", 1), v3);
}

/// `(key, line, fragment)` of every rejected `[ports]` body.
#[test]
fn port_settings_are_checked_by_the_switch_rules_with_fabric_keys_and_lines() {
    let cases: &[(&str, &str, usize, &str)] = &[
        // backend: the switch's own names, then what the testbed can use
        ("[ports]\nbackend = \"ovs\"\n", "ports.backend", 2, "\"ovs\": unknown variant `ovs`, expected one of `afpacket`, `afxdp`"),
        ("[ports]\nbackend = 4\n", "ports.backend", 2, "expected a string"),
        ("[ports]\nbackend = \"mem\"\n", "ports.backend", 2, "cannot carry a fabric link"),
        ("\n[[ports.override]]\nswitch = \"core-*\"\nbackend = \"afxpd\"\n", "ports.override[0].backend", 4, "afxpd"),
        // values: the switch's types and enums
        ("[ports]\ntpacket = \"v9\"\n", "ports.tpacket", 2, "unknown variant `v9`"),
        ("[ports]\nbackend = \"afxdp\"\nmode = \"fast\"\n", "ports.mode", 3, "unknown variant `fast`"),
        ("[ports]\nbackend = \"afxdp\"\n[[ports.override]]\nswitch = \"agg-*\"\nqueues = \"two\"\n", "ports.override[0].queues", 5, "invalid type"),
        // keys: unknown ones, and those of another backend
        ("[ports]\nbackend = \"afxdp\"\nmoed = \"skb\"\n", "ports.moed", 3, "unknown field `moed`"),
        ("[ports]\nbackend = \"afxdp\"\ntpacket = \"v3\"\n", "ports.tpacket", 3, "applies only to afpacket ports"),
        ("[[ports.override]]\nswitch = \"edge-*\"\nmode = \"skb\"\n", "ports.override[0].mode", 3, "applies only to afxdp ports"),
        ("[ports]\ninterface = \"eth0\"\n", "ports.interface", 2, "[[nic]]"),
        // ranges and geometry: the switch's checks, named by the table that set them
        ("[ports]\nbackend = \"afxdp\"\n[[ports.override]]\nswitch = \"core-c1\"\nrx_ring = 1000\n", "ports.override[0].rx_ring", 5, "power of two"),
        ("[ports]\nbackend = \"afxdp\"\nframe_size = 1024\n", "ports.frame_size", 3, "2048 or 4096"),
        // selecting ports
        ("[[ports.override]]\nswitch = \"nope-*\"\ntpacket = \"v3\"\n", "ports.override[0]", 2, "nope-*"),
        ("[[ports.override]]\nswitch = \"core-c0\"\nport = 9\ntpacket = \"v3\"\n", "ports.override[0]", 2, "port 9"),
        ("[[ports.override]]\nswitch = \"core-c0\"\nport = \"1\"\ntpacket = \"v3\"\n", "ports.override[0].port", 3, "port number"),
        ("[[ports.override]]\nswitch = \"core-c0\"\n", "ports.override[0]", 2, "sets nothing"),
        ("[[ports.override]]\ntpacket = \"v3\"\n", "ports.override[0]", 2, "missing `switch`"),
        // where the port is: testbed veths
        ("[ports]\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n", "ports.mode", 3, "no zero-copy AF_XDP"),
        ("[ports]\nbackend = \"afxdp\"\nqueues = 2\n", "ports.queues", 3, "one queue"),
        ("[ports]\nbackend = \"afxdp\"\nqueue = 1\n", "ports.queue", 3, "one queue"),
        ("mtu = 3000\n[ports]\nbackend = \"afxdp\"\n", "mtu", 1, "frame_size = 4096"),
        ("mtu = 4000\n[ports]\nbackend = \"afxdp\"\nframe_size = 4096\n", "ports.frame_size", 4, "at most 3840"),
        // the rest of the switch's rules still apply, to the fabric's [switch]
        ("[switch]\nworkers = 5\n", "switch.workers", 0, "only 4 ports"),
        ("target = \"bmv2\"\n[ports]\nbackend = \"afxdp\"\n", "ports.backend", 3, "bmv2"),
    ];
    // and what is fine on a veth
    let fine = [
        "[ports]\nbackend = \"afxdp\"\n",
        "[ports]\nbackend = \"afxdp\"\nmode = \"copy\"\nqueue = 0\nqueues = 1\n",
        "mtu = 3000\n[ports]\nbackend = \"afxdp\"\nframe_size = 4096\nmode = \"skb\"\n",
        "mtu = 1778\n[ports]\nbackend = \"afxdp\"\n",
        "[switch]\nworkers = 2\n[ports]\nbackend = \"afpacket\"\nfanout = 7\n",
        "target = \"bmv2\"\n[ports]\ntpacket = \"v3\"\n",
    ];
    refused_and_fine(cases, &fine);
}

#[test]
fn afxdp_on_vxlan_and_nic_ports() {
    let two = TWO_MACHINES;
    let nics = core_c0_port0_nics();
    // VXLAN devices: generic XDP only (auto falls back to it)
    let e = err(&format!(
        "{two}[ports]\nbackend = \"afxdp\"\nmode = \"copy\"\n"
    ));
    assert!(
        e.contains("ports.mode") && e.contains("a VXLAN device"),
        "{e}"
    );
    assert!(e.ends_with("(line 15)"), "{e}");
    parse(&format!(
        "{two}[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n"
    ))
    .unwrap();
    parse(&format!("{two}[ports]\nbackend = \"afxdp\"\n")).unwrap();
    // a NIC: zero-copy and several queues are the driver's business
    let nic_only = format!(
        "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nport = 0\nbackend = \"afxdp\"\nmode = \"zerocopy\"\nqueues = 4\n"
    );
    let d = parse(&nic_only).unwrap();
    assert_eq!(
        table(&d, "core-c0", 0),
        tbl("backend = \"afxdp\"\nmode = \"zerocopy\"\nqueues = 4")
    );
    // ... but not on the VXLAN port next to it
    let e = err(&format!(
        "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nbackend = \"afxdp\"\nmode = \"zerocopy\"\n"
    ));
    assert!(
        e.contains("ports.override[0].mode") && e.contains("core-c0:1"),
        "{e}"
    );
}

#[test]
fn semantic_errors_name_key_and_line() {
    let e = err("mtu = 1500\npolling = \"lazy\"\n");
    assert!(
        e.starts_with("t.toml: polling: \"lazy\"") && e.ends_with("(line 2)"),
        "{e}"
    );
    let e = err("\n\n[switch]\nmode = \"busy\"\n");
    assert!(e.contains("switch.mode"), "{e}");
    let e = err("[ports]\nbackend = \"mem\"\n");
    assert!(e.contains("ports.backend") && e.contains("(line 2)"), "{e}");
    let e = err("[[ports.override]]\nswitch = \"nope-*\"\ntpacket = \"v3\"\n");
    assert!(
        e.contains("ports.override[0]") && e.contains("nope-*"),
        "{e}"
    );
    let e = err("mtu = 20\n");
    assert!(e.contains("mtu: 20 is outside"), "{e}");
    let e = err("name = \"x\"\nname = \"y\"\n");
    assert!(e.contains("line 2"), "{e}");
    let e = err("[[place]]\nnodes = [\"h1\"]\nmachine = \"mars\"\n");
    assert!(
        e.contains("place[0].machine") && e.contains("mars") && e.contains("line 3"),
        "{e}"
    );
    let e = err("[[nic]]\nport = \"core-c0\"\ninterface = \"eth1\"\n");
    assert!(e.contains("expected SWITCH:PORT"), "{e}");
    let e = err("[[nic]]\nport = \"core-c0:9\"\ninterface = \"eth1\"\n");
    assert!(e.contains("not a port of core-c0"), "{e}");
}

#[test]
fn type_errors_name_the_full_key_and_line() {
    refused_and_fine(
        &[
            (
                "mtu = 1500\nup_policy = 3\n",
                "up_policy",
                2,
                "wanted string",
            ),
            ("mtu = \"big\"\n", "mtu", 1, "invalid type"),
            (
                "\n[canopyd]\nprobe_interval_ms = \"x\"\n",
                "canopyd.probe_interval_ms",
                3,
                "invalid type",
            ),
            (
                "[canopyd]\nenabled = 1\n",
                "canopyd.enabled",
                2,
                "invalid type",
            ),
            (
                "[[machine]]\nname = \"a\"\nunderlay = 10\n",
                "machine[0].underlay",
                3,
                "invalid type",
            ),
            (
                "[[place]]\nnodes = [\"h1\", 2]\nmachine = \"local\"\n",
                "place[0].nodes[1]",
                2,
                "invalid type",
            ),
            (
                "[switch]\nworkers = 1\nflowlet_gap_us = \"x\"\n",
                "switch.flowlet_gap_us",
                3,
                "invalid type",
            ),
            (
                "[host]\nthreads = \"x\"\n",
                "host.threads",
                2,
                "invalid type",
            ),
        ],
        &["[switch]\nflowlet_gap_us = 100\n"],
    );
}

fn sw_index(d: &Desc, name: &str) -> u32 {
    d.topo.switch_index(name).unwrap() as u32
}

#[test]
fn dpdk_ports_get_af_packet_vdevs_over_their_interfaces() {
    let d = parse(
        "topology = \"fat-tree:k=4\"\n[ports]\nbackend = \"afxdp\"\nmode = \"skb\"\n\
         [[ports.override]]\nswitch = \"agg-*\"\nbackend = \"dpdk\"\nqueues = 2\nrx_desc = 512\n\
         [[ports.override]]\nswitch = \"core-c1\"\nport = 2\nbackend = \"dpdk\"\ntx_desc = 2048\n",
    )
    .unwrap();
    let a = sw_index(&d, "agg-p1-a0");
    for p in 0..4u16 {
        // dpdk: a device, no interface; the other backend's keys do not leak in
        assert_eq!(
            d.port_table(a, p),
            tbl(&format!(
                "backend = \"dpdk\"\ndevice = \"net_af_packet{p}\"\nqueues = 2\nrx_desc = 512"
            ))
        );
    }
    let args: Vec<String> = (0..4)
        .map(|p| format!("--vdev=net_af_packet{p},iface=s{a}p{p},framecnt=8192,qpairs=2"))
        .collect();
    let mut want = vec!["--no-pci".to_string()];
    want.extend(args);
    let got: Vec<String> = d.dpdk_table(a).unwrap()["eal_args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want);
    // one dpdk port among afxdp ones: one vdev, for that port only
    let c = sw_index(&d, "core-c1");
    assert_eq!(
        d.port_table(c, 2),
        tbl("backend = \"dpdk\"\ndevice = \"net_af_packet2\"\ntx_desc = 2048")
    );
    assert_eq!(
        table(&d, "core-c1", 1),
        tbl("backend = \"afxdp\"\nmode = \"skb\"")
    );
    assert_eq!(
        d.dpdk_table(c).unwrap()["eal_args"],
        toml::Value::Array(vec![
            "--no-pci".into(),
            format!("--vdev=net_af_packet2,iface=s{c}p2,framecnt=8192").into()
        ])
    );
    // no --file-prefix: canopy-switch's own (canopy<pid>) differs per process
    assert!(!d.dpdk_table(c).unwrap().to_string().contains("file-prefix"));
    // switches without dpdk ports get no [dpdk]
    assert!(d.dpdk_table(sw_index(&d, "edge-p0-e0")).is_none());
    assert!(d.dpdk_table(sw_index(&d, "core-c0")).is_none());
    let mut dp = d.dpdk_switches();
    dp.sort();
    let mut want: Vec<u32> = d
        .topo
        .switches
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name.starts_with("agg-") || s.name == "core-c1")
        .map(|(i, _)| i as u32)
        .collect();
    want.sort();
    assert_eq!(dp, want);
    assert_eq!(d.port_backends(c), vec!["afxdp", "afxdp", "dpdk", "afxdp"]);
}

#[test]
fn dpdk_settings_are_checked_by_the_switch_rules_with_fabric_keys_and_lines() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("[ports]\nbackend = \"dpdk\"\nrx_desc = 100\n", "ports.rx_desc", 3, "power of two"),
        ("[ports]\nbackend = \"dpdk\"\n[[ports.override]]\nswitch = \"core-c0\"\ntx_desc = 32768\n", "ports.override[0].tx_desc", 5, "power of two"),
        ("[ports]\nbackend = \"dpdk\"\nqueues = 0\n", "ports.queues", 3, "not in 1..=64"),
        ("[ports]\nbackend = \"dpdk\"\nqueues = \"2\"\n", "ports.queues", 3, "invalid type"),
        ("[ports]\nbackend = \"dpdk\"\nmode = \"skb\"\n", "ports.mode", 3, "applies only to afxdp ports"),
        ("[ports]\nbackend = \"dpdk\"\ntpacket = \"v3\"\n", "ports.tpacket", 3, "applies only to afpacket ports"),
        ("[[ports.override]]\nswitch = \"edge-*\"\nrx_desc = 512\n", "ports.override[0].rx_desc", 3, "applies only to dpdk ports"),
        ("[ports]\nbackend = \"dpdk\"\ndevice = \"0000:03:00.0\"\n", "ports.device", 3, "has no interface"),
        ("[[ports.override]]\nswitch = \"core-*\"\nbackend = \"dpdk\"\ndevice = \"net_af_packet0\"\n", "ports.override[0].device", 4, "net_af_packet<j>"),
        ("target = \"bmv2\"\n[ports]\nbackend = \"dpdk\"\n", "ports.backend", 3, "bmv2"),
        ("mtu = 1501\n[[ports.override]]\nswitch = \"core-c2\"\nport = 3\nbackend = \"dpdk\"\n", "mtu", 1, "mtu 1500 at most"),
    ];
    let fine = [
        "[ports]\nbackend = \"dpdk\"\n",
        "[ports]\nbackend = \"dpdk\"\nqueues = 4\nrx_desc = 256\ntx_desc = 4096\n",
        "[switch]\nworkers = 2\n[ports]\nbackend = \"dpdk\"\nqueues = 2\n",
        "mtu = 1500\n[[ports.override]]\nswitch = \"edge-*\"\nbackend = \"dpdk\"\n",
    ];
    refused_and_fine(cases, &fine);
}

#[test]
fn dpdk_on_vxlan_ends_is_refused_and_on_nic_ports_allowed() {
    let two = TWO_MACHINES;
    // every core port is a VXLAN end
    let e = err(&format!(
        "{two}[[ports.override]]\nswitch = \"core-c0\"\nbackend = \"dpdk\"\n"
    ));
    assert!(
        e.starts_with("t.toml: ports.override[0].backend: ")
            && e.contains("a VXLAN device")
            && e.contains("core-c0:0")
            && e.ends_with("(line 15)"),
        "{e}"
    );
    // the agg side of the same links, too
    let e = err(&format!("{two}[ports]\nbackend = \"dpdk\"\n"));
    assert!(e.contains("ports.backend") && e.contains("VXLAN"), "{e}");
    // a NIC pair: an af_packet vdev over the NIC, named s<i>p<j> in the namespace
    let c0 = sw_index(&parse(two).unwrap(), "core-c0");
    let nics = core_c0_port0_nics();
    let d = parse(&format!(
        "{two}{nics}[[ports.override]]\nswitch = \"core-c0\"\nport = 0\nbackend = \"dpdk\"\nqueues = 2\n"
    ))
    .unwrap();
    assert_eq!(table(&d, "core-c0", 1), tbl("backend = \"afpacket\""));
    assert_eq!(
        d.port_table(c0, 0),
        tbl("backend = \"dpdk\"\ndevice = \"net_af_packet0\"\nqueues = 2")
    );
    assert_eq!(
        d.dpdk_table(c0).unwrap()["eal_args"][1].as_str(),
        Some(format!("--vdev=net_af_packet0,iface=s{c0}p0,framecnt=8192,qpairs=2").as_str())
    );
    // a PCI device is no [[nic]]: it has no interface
    let e = err(&format!(
        "{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth1\"\npci = \"0000:03:00.0\"\n"
    ));
    assert!(e.contains("pci"), "{e}");
}

#[test]
fn switches_share_one_host_unless_told_or_unable() {
    // canopy target: one shared host, adaptive threads not pinned
    let d = parse("").unwrap();
    assert_eq!(
        d.host,
        Some(SharedHost {
            threads: 1,
            cores: vec![]
        })
    );
    // busy: pinned to the last CPUs when some are left for the generator
    let d = parse("polling = \"busy\"\n[host]\nthreads = 1\n").unwrap();
    let cpus = machine_cpus();
    assert_eq!(d.host.unwrap().cores, default_cores(1, &cpus));
    let d = parse(&format!(
        "polling = \"busy\"\n[host]\ncores = [{}]\n",
        cpus[0]
    ))
    .unwrap();
    assert_eq!(d.host.unwrap().cores, vec![cpus[0]]);
    // one process each: asked for, bmv2, or a dpdk port
    assert_eq!(
        parse("[host]\nprocesses = \"per-switch\"\n").unwrap().host,
        None
    );
    assert_eq!(parse("target = \"bmv2\"\n").unwrap().host, None);
    assert_eq!(parse("[ports]\nbackend = \"dpdk\"\n").unwrap().host, None);
    // the generated host file is one `canopy-switch host` takes
    let d = parse("polling = \"busy\"\n[host]\nthreads = 2\ncores = [0]\n").unwrap();
    let members = vec![(
        "edge-p0-e0".to_string(),
        "/x/s0.toml".to_string(),
        "f-s0".to_string(),
    )];
    let text = d.host_config(Path::new("/run/x"), &members);
    let h = canopy_switch::host::config::HostConfig::parse(Path::new("/run/x/host.toml"), &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(h.engine.threads, 2);
    assert_eq!(h.engine.pin_cores, vec![0]);
    assert_eq!(h.socket, Path::new("/run/x/host.sock"));
    assert_eq!(h.switches[0].netns.as_deref(), Some("f-s0"));
    assert_eq!(h.switches[0].config, Path::new("/x/s0.toml"));
}

#[test]
fn host_settings_that_cannot_hold_are_refused() {
    refused_and_fine(
        &[
            (
                "[host]\nprocesses = \"one\"\n",
                "host.processes",
                2,
                "expected \"shared\" or \"per-switch\"",
            ),
            (
                "target = \"bmv2\"\n[host]\nprocesses = \"shared\"\n",
                "host.processes",
                3,
                "one simple_switch per switch",
            ),
            (
                "[ports]\nbackend = \"dpdk\"\n[host]\nprocesses = \"shared\"\n",
                "host.processes",
                4,
                "dpdk port",
            ),
            (
                "[host]\nprocesses = \"per-switch\"\nthreads = 2\n",
                "host.threads",
                3,
                "applies to a shared host",
            ),
            (
                "[host]\nthreads = 0\n",
                "host.threads",
                2,
                "0 is not in 1..=64",
            ),
            (
                "[host]\ncores = [0]\n",
                "host.cores",
                2,
                "pinning applies to polling = \"busy\"",
            ),
            (
                "polling = \"busy\"\n[host]\ncores = [100000]\n",
                "host.cores",
                3,
                "CPU 100000 is not one",
            ),
        ],
        &["[host]\nprocesses = \"shared\"\nthreads = 2\n"],
    );
}

#[test]
fn capture_gives_every_switch_a_directory_of_its_own() {
    let d = Desc::parse(
        "/labs/ft/fabric.toml",
        "topology = \"fat-tree:k=4\"\n[capture]\ndir = \"pcaps\"\nformat = \"pcapng\"\nmax_frames = 100\n",
    )
    .unwrap();
    let e0 = sw_index(&d, "edge-p0-e0");
    assert_eq!(
        d.capture_dir(e0),
        Some(PathBuf::from("/labs/ft/pcaps/edge-p0-e0"))
    );
    let text = d.switch_config(e0, Path::new("/run/x/s0.sock"));
    let c = canopy_switch::config::Config::parse_rules(Path::new("/run/x/s0.toml"), &text)
        .unwrap()
        .capture
        .unwrap();
    assert_eq!(c.dir, PathBuf::from("/labs/ft/pcaps/edge-p0-e0"));
    assert_eq!(
        (c.max_frames, c.format),
        (100, canopy_switch::pcap::Format::PcapNg)
    );
    assert!(parse("").unwrap().capture_dir(0).is_none());
    assert!(!parse("")
        .unwrap()
        .switch_config(0, Path::new("s.sock"))
        .contains("capture"));
    refused_and_fine(
        &[
            ("[capture]\ndir = \"\"\n", "capture.dir", 0, "is empty"),
            (
                "[capture]\nformat = \"pcap\"\n",
                "capture",
                0,
                "missing field `dir`",
            ),
            (
                "[capture]\ndir = \"c\"\nsnap = 3\n",
                "capture.snap",
                0,
                "unknown field",
            ),
            (
                "target = \"bmv2\"\n[capture]\ndir = \"c\"\nmax_frames = 5\n",
                "capture",
                0,
                "only `dir` applies",
            ),
        ],
        &["target = \"bmv2\"\n[capture]\ndir = \"c\"\n"],
    );
}
