//! `canopy_testbed::export` (`docs/export.md`): the containerlab topology of fabric
//! descriptions, checked against the topology itself, and both export commands. No root.
//!
//! - containerlab: the YAML reads back into the same typed topology; every node and link
//!   is the description's, every interface a link brings is one its node waits for and
//!   its switch configuration opens; one machine's part of a multi-machine description
//!   carries its cross-machine links as VXLAN with the VNIs `up` uses; what cannot be
//!   exported is refused with its reason; the `wait-interfaces` script behaves. With
//!   `CLAB_SCHEMA=/path/to/clab.schema.json` (containerlab's `schemas/clab.schema.json`)
//!   the exports are also validated against containerlab's JSON schema.
//! - The DOT graph's own checks are in `export_dot.rs`; the commands' output here.

use canopy_control::topology::Peer;
use canopy_switch::config::{Config, PortSpec, TablesSource};
use canopy_testbed::export::clab::{
    self, ClabLink, ClabOptions, ClabTopology, Endpoint, HOST_CMD, SWITCH_CMD, SWITCH_CONFIG,
    SWITCH_SOCKET, VXLAN_PORT, WAIT_PATH,
};
use canopy_testbed::export::{containerlab, ExportError};
use canopy_testbed::fabric::desc::Node;
use canopy_testbed::fabric::Desc;
use canopy_testbed::TestbedError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

mod export_common;
use export_common::example;

fn export_err(desc: &Desc, opts: &ClabOptions) -> ExportError {
    match containerlab(desc, opts) {
        Err(TestbedError::Export(e)) => e,
        Err(e) => panic!("not an export error: {e}"),
        Ok(_) => panic!("exported"),
    }
}

/// The interface of a link end as the testbed names it, computed here from the topology
/// (not through the export's own helper).
fn ifname(n: Node, p: u16) -> String {
    match n {
        Node::Switch(i) => format!("s{i}p{p}"),
        Node::Host(h) => format!("h{h}p{p}"),
    }
}

fn node_name(d: &Desc, n: Node) -> String {
    match n {
        Node::Switch(i) => d.topo.switches[i as usize].name.clone(),
        Node::Host(h) => d.topo.host_name(h),
    }
}

/// Every connected port pair of the topology, each once, as unordered endpoint pairs,
/// read from the switches' and hosts' port tables.
fn topology_links(d: &Desc) -> BTreeSet<(Endpoint, Endpoint)> {
    let mut out = BTreeSet::new();
    let ep = |n: Node, p: u16| Endpoint {
        node: node_name(d, n),
        interface: ifname(n, p),
    };
    let mut add = |a: Endpoint, b: Endpoint| {
        let pair = if a <= b { (a, b) } else { (b, a) };
        out.insert(pair);
    };
    for (s, sw) in d.topo.switches.iter().enumerate() {
        for (p, port) in sw.ports.iter().enumerate() {
            let a = ep(Node::Switch(s as u32), p as u16);
            match port.peer {
                Peer::None => {}
                Peer::Switch { sw, port } => add(a, ep(Node::Switch(sw), port)),
                Peer::Host { host, port } => add(a, ep(Node::Host(host), port)),
            }
        }
    }
    for (h, host) in d.topo.hosts.iter().enumerate() {
        for (p, port) in host.ports.iter().enumerate() {
            let a = ep(Node::Host(h as u32), p as u16);
            match port.peer {
                Peer::None => {}
                Peer::Switch { sw, port } => add(a, ep(Node::Switch(sw), port)),
                Peer::Host { host, port } => add(a, ep(Node::Host(host), port)),
            }
        }
    }
    out
}

/// The words of an entrypoint (containerlab splits it as a shell would; the export
/// writes no quotes, so whitespace splitting is the same).
fn words(s: &str) -> Vec<String> {
    assert!(
        !s.contains(['\'', '"', '\\', '$', '{']),
        "nothing to quote or expand: {s}"
    );
    s.split_whitespace().map(str::to_string).collect()
}

/// The interfaces a node's entrypoint waits for.
fn waited(entrypoint: &str, wait_s: u32) -> Vec<String> {
    let w = words(entrypoint);
    assert_eq!(
        w[..3],
        ["/bin/sh".to_string(), WAIT_PATH.into(), wait_s.to_string()]
    );
    assert_eq!(w.last().map(String::as_str), Some("--"), "{entrypoint}");
    w[3..w.len() - 1].to_vec()
}

/// Check one machine's export of `d` against the topology; returns its links.
fn check_part(d: &Desc, ex: &clab::ClabExport, opts: &ClabOptions) -> Vec<ClabLink> {
    let machine = ex.machine.as_str();
    let here = |n: Node| d.machine_of(n) == machine;
    // the YAML reads back into the same typed topology, with no text containerlab would
    // expand (templates, environment variables)
    let yaml = ex.yaml().unwrap();
    assert!(!yaml.contains("{{") && !yaml.contains('$'), "{yaml}");
    let back: ClabTopology = serde_norway::from_str(&yaml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, ex.topology);

    // nodes: this machine's switches then hosts, by name
    let want: Vec<(Node, String)> = (0..d.topo.switches.len() as u32)
        .map(Node::Switch)
        .chain((0..d.topo.hosts.len() as u32).map(Node::Host))
        .filter(|&n| here(n))
        .map(|n| (n, node_name(d, n)))
        .collect();
    let got: Vec<&str> = back
        .topology
        .nodes
        .0
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        got,
        want.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>()
    );

    // every interface a link brings into a node of the lab, and by which link
    let mut brought: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, l) in back.topology.links.iter().enumerate() {
        let ends: Vec<(String, String)> = match l {
            ClabLink::Veth { endpoints, mtu } => {
                assert_eq!(*mtu, *d.raw.mtu.get_ref());
                endpoints
                    .iter()
                    .map(|e| (e.node.clone(), e.interface.clone()))
                    .collect()
            }
            ClabLink::Dummy { endpoint, mtu, .. } | ClabLink::Vxlan { endpoint, mtu, .. } => {
                assert_eq!(*mtu, *d.raw.mtu.get_ref());
                vec![(endpoint.node.clone(), endpoint.interface.clone())]
            }
        };
        for e in ends {
            assert!(
                brought.insert(e.clone(), i).is_none(),
                "{e:?} brought by two links"
            );
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let written = ex.write(dir.path()).unwrap();
    assert_eq!(written[0], dir.path().join(ex.file_name()));
    assert_eq!(std::fs::read_to_string(&written[0]).unwrap(), yaml);
    for (n, name) in &want {
        let node = back.topology.nodes.get(name).unwrap();
        assert_eq!(node.restart_policy, clab::RestartPolicy::No);
        let waits = waited(&node.entrypoint, opts.wait_s);
        // what the node waits for is exactly what the links bring into it
        let mine: Vec<String> = brought
            .keys()
            .filter(|(nn, _)| nn == name)
            .map(|(_, i)| i.clone())
            .collect();
        let mut sorted = waits.clone();
        sorted.sort();
        assert_eq!(sorted, mine, "{name}");
        // every bind's host file was written, relative to the topology file
        for b in &node.binds {
            let host = b.split(':').next().unwrap();
            if host.starts_with('/') {
                assert_eq!(b, "/dev/hugepages:/dev/hugepages");
                continue;
            }
            assert!(dir.path().join(host).is_file(), "{b}");
        }
        assert!(node
            .binds
            .iter()
            .any(|b| b.ends_with(&format!(":{WAIT_PATH}:ro"))));
        match *n {
            Node::Switch(s) => {
                let sw = &d.topo.switches[s as usize];
                assert_eq!(node.image, opts.switch_image);
                assert_eq!(node.cmd, SWITCH_CMD);
                let want_if: Vec<String> =
                    (0..sw.ports.len() as u16).map(|p| ifname(*n, p)).collect();
                assert_eq!(waits, want_if, "{name} waits for every port, in port order");
                // the configuration it runs on opens exactly those interfaces
                let bind = node
                    .binds
                    .iter()
                    .find(|b| b.ends_with(&format!(":{SWITCH_CONFIG}:ro")))
                    .unwrap();
                let path = dir.path().join(bind.split(':').next().unwrap());
                let text = std::fs::read_to_string(&path).unwrap();
                let cfg = Config::parse_rules(&path, &text).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(cfg.management.socket, PathBuf::from(SWITCH_SOCKET));
                assert!(
                    matches!(&cfg.tables, Some(TablesSource::Topology { switch, .. }) if switch == &sw.name),
                    "{name}: computes its own tables"
                );
                assert_eq!(cfg.ports.len(), sw.ports.len());
                let eal = cfg.dpdk.as_ref().map(|x| x.eal_args.join(" "));
                for (p, spec) in cfg.ports.iter().enumerate() {
                    let want = &want_if[p];
                    match spec {
                        PortSpec::AfPacket { interface, .. }
                        | PortSpec::AfXdp { interface, .. } => assert_eq!(interface, want),
                        PortSpec::Dpdk { device, .. } => {
                            let vdev = format!("--vdev={device},iface={want},");
                            assert!(eal.as_deref().unwrap_or("").contains(&vdev), "{eal:?}");
                            assert!(node.binds.contains(&"/dev/hugepages:/dev/hugepages".into()));
                        }
                        other => panic!("{name} port {p}: {other:?}"),
                    }
                }
            }
            Node::Host(h) => {
                assert_eq!(
                    node.image,
                    opts.host_image.clone().unwrap_or(opts.switch_image.clone())
                );
                assert_eq!(node.cmd, HOST_CMD);
                let want_if: Vec<String> = d.topo.hosts[h as usize]
                    .ports
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.peer != Peer::None)
                    .map(|(p, _)| ifname(*n, p as u16))
                    .collect();
                assert_eq!(waits, want_if, "{name}");
            }
        }
    }
    // the wait script was written executable
    let script = dir.path().join(ex.files_dir()).join("wait-interfaces");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&script).unwrap().permissions().mode() & 0o777,
        0o755
    );
    back.topology.links
}

#[test]
fn the_default_fabric_as_a_containerlab_topology() {
    let d = example("fabric-default.toml");
    let opts = ClabOptions::default();
    assert_eq!(
        opts.switch_image,
        format!("canopy:{}", env!("CARGO_PKG_VERSION"))
    );
    let ex = containerlab(&d, &opts).unwrap();
    assert_eq!(ex.topology.name, "ft4");
    assert_eq!(ex.file_name(), "ft4.clab.yml");
    assert_eq!(ex.machine, "local");
    assert_eq!(ex.topology.topology.nodes.0.len(), 20 + 16);
    let links = check_part(&d, &ex, &opts);
    // every link of the topology is one veth link, and nothing else is there (k=4: every
    // switch port is connected)
    let mut got = BTreeSet::new();
    for l in &links {
        match l {
            ClabLink::Veth { endpoints, .. } => {
                let [a, b] = endpoints.clone();
                let pair = if a <= b { (a, b) } else { (b, a) };
                assert!(got.insert(pair), "{l:?} twice");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(got, topology_links(&d));
    assert_eq!(got.len(), 48);
    // the switch's end first, as in `up`
    let first = match &links[0] {
        ClabLink::Veth { endpoints, .. } => endpoints.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(first[0].interface, "s0p0");
    // the configuration is `up`'s, with [tables] and the container's socket
    let sw = d.topo.switch_index("edge-p1-e1").unwrap() as u32;
    let file = ex
        .files
        .iter()
        .find(|f| f.path == Path::new("canopy-ft4/edge-p1-e1.toml"))
        .unwrap();
    assert!(!file.executable);
    let table = d.switch_config_table(sw, Path::new(SWITCH_SOCKET), true);
    assert!(table.contains_key("tables"));
    assert_eq!(file.text.parse::<toml::Table>().unwrap(), table);
}

#[test]
fn every_example_exports_or_is_refused_for_its_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("fabric-") && f.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    for f in names {
        let d = example(&f);
        let opts = ClabOptions {
            switch_image: "registry.example:5000/lab/canopy:test".into(),
            host_image: Some("debian-iproute2:12".into()),
            ..ClabOptions::default()
        };
        let machines: BTreeSet<&str> = (0..d.topo.switches.len() as u32)
            .map(Node::Switch)
            .chain((0..d.topo.hosts.len() as u32).map(Node::Host))
            .map(|n| d.machine_of(n))
            .collect();
        if machines.len() > 1 {
            assert!(
                matches!(export_err(&d, &opts), ExportError::MachineRequired { .. }),
                "{f}"
            );
            continue;
        }
        let ex = containerlab(&d, &opts).unwrap_or_else(|e| panic!("{f}: {e}"));
        let links = check_part(&d, &ex, &opts);
        // veth links are the topology's links, dummies its unconnected switch ports
        let veths: BTreeSet<(Endpoint, Endpoint)> = links
            .iter()
            .filter_map(|l| match l {
                ClabLink::Veth { endpoints, .. } => {
                    let [a, b] = endpoints.clone();
                    Some(if a <= b { (a, b) } else { (b, a) })
                }
                _ => None,
            })
            .collect();
        assert_eq!(veths, topology_links(&d), "{f}");
        let dummies: BTreeSet<String> = links
            .iter()
            .filter_map(|l| match l {
                ClabLink::Dummy { endpoint, .. } => Some(endpoint.interface.clone()),
                _ => None,
            })
            .collect();
        let unconnected: BTreeSet<String> = d
            .topo
            .switches
            .iter()
            .enumerate()
            .flat_map(|(s, sw)| {
                sw.ports
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.peer == Peer::None)
                    .map(move |(p, _)| ifname(Node::Switch(s as u32), p as u16))
            })
            .collect();
        assert_eq!(dummies, unconnected, "{f}");
        if f == "fabric-transit.toml" {
            assert!(
                !dummies.is_empty(),
                "transit-full leaves switch ports unconnected"
            );
        }
    }
}

fn underlay(d: &Desc, m: &str) -> std::net::IpAddr {
    d.machine(m).unwrap().underlay.get_ref().parse().unwrap()
}

#[test]
fn a_multi_machine_description_exports_one_part_per_machine_joined_by_vxlan() {
    let d = example("fabric-vxlan.toml");
    let opts = ClabOptions::default();
    assert_eq!(
        export_err(&d, &opts),
        ExportError::MachineRequired {
            machines: vec!["a".into(), "b".into()]
        }
    );
    let e = export_err(
        &d,
        &ClabOptions {
            machine: Some("c".into()),
            ..ClabOptions::default()
        },
    );
    assert!(
        matches!(e, ExportError::NoSuchPart { ref machine, .. } if machine == "c"),
        "{e}"
    );
    assert!(e.to_string().contains("a, b"), "{e}");

    // both parts: the veths of each, and a VXLAN end in each for every crossing link
    let mut veths = BTreeSet::new();
    let mut vx: BTreeMap<u32, Vec<(String, Endpoint, std::net::IpAddr)>> = BTreeMap::new();
    for m in ["a", "b"] {
        let o = ClabOptions {
            machine: Some(m.into()),
            ..ClabOptions::default()
        };
        let ex = containerlab(&d, &o).unwrap();
        assert_eq!(ex.topology.name, format!("ftx-{m}"));
        assert_eq!(ex.machine, m);
        for l in check_part(&d, &ex, &o) {
            match l {
                ClabLink::Veth { endpoints, .. } => {
                    let [a, b] = endpoints;
                    assert!(veths.insert(if a <= b { (a, b) } else { (b, a) }));
                }
                ClabLink::Vxlan {
                    endpoint,
                    remote,
                    vni,
                    dst_port,
                    ..
                } => {
                    assert_eq!(dst_port, VXLAN_PORT);
                    let ep = Endpoint {
                        node: endpoint.node,
                        interface: endpoint.interface,
                    };
                    vx.entry(vni).or_default().push((m.to_string(), ep, remote));
                }
                ClabLink::Dummy { .. } => panic!("k=4 has no unconnected port"),
            }
        }
    }
    // every crossing link: once in each part, same VNI (vni_base + its index), each
    // pointing at the other machine's underlay
    let mut crossing = BTreeSet::new();
    for l in &d.links {
        let (ma, mb) = (d.machine_of(l.a.0), d.machine_of(l.b.0));
        if ma == mb {
            continue;
        }
        let vni = d.raw.vni_base + l.id;
        let ends = vx.remove(&vni).unwrap_or_else(|| panic!("no VNI {vni}"));
        assert_eq!(ends.len(), 2, "{ends:?}");
        for (m, ep, remote) in &ends {
            let (mine, far_m) = if m == ma { (l.a, mb) } else { (l.b, ma) };
            assert_eq!(ep.node, node_name(&d, mine.0));
            assert_eq!(ep.interface, ifname(mine.0, mine.1));
            assert_eq!(*remote, underlay(&d, far_m));
        }
        let a = Endpoint {
            node: node_name(&d, l.a.0),
            interface: ifname(l.a.0, l.a.1),
        };
        let b = Endpoint {
            node: node_name(&d, l.b.0),
            interface: ifname(l.b.0, l.b.1),
        };
        crossing.insert(if a <= b { (a, b) } else { (b, a) });
    }
    assert!(vx.is_empty(), "VXLAN links of no crossing link: {vx:?}");
    assert_eq!(crossing.len(), 8, "the example's 8 core-agg links");
    // together: every link of the topology, once
    assert!(veths.is_disjoint(&crossing));
    veths.extend(crossing);
    assert_eq!(veths, topology_links(&d));
}

#[test]
fn what_cannot_be_exported_is_refused_with_the_reason() {
    let parse = |t: &str| Desc::parse("t.toml", t).unwrap_or_else(|e| panic!("{e}"));
    let k2 = "name = \"t\"\ntopology = \"fat-tree:k=2\"\n";
    let opts = ClabOptions::default();
    assert_eq!(
        export_err(&parse(&format!("{k2}target = \"bmv2\"\n")), &opts),
        ExportError::Bmv2
    );
    assert_eq!(
        export_err(&parse(&format!("{k2}[vm]\nswitches = true\n")), &opts),
        ExportError::Vm
    );
    // two machines: the cores on b; one link by NICs, the others by VXLAN
    let two = format!(
        "{k2}[[machine]]\nname = \"a\"\nunderlay = \"10.0.0.1\"\n\
         [[machine]]\nname = \"b\"\nunderlay = \"10.0.0.2\"\n\
         [[place]]\nnodes = [\"core-*\"]\nmachine = \"b\"\n\
         [[place]]\nnodes = [\"*\"]\nmachine = \"a\"\n"
    );
    let d = parse(&two);
    let on = |m: &str| ClabOptions {
        machine: Some(m.into()),
        ..ClabOptions::default()
    };
    assert!(containerlab(&d, &on("a")).is_ok());
    let core = d.topo.switch_index("core-c0").unwrap();
    let (agg, aport) = match d.topo.switches[core].ports[0].peer {
        Peer::Switch { sw, port } => (d.topo.switches[sw as usize].name.clone(), port),
        p => panic!("{p:?}"),
    };
    let nic = format!(
        "{two}[[nic]]\nport = \"core-c0:0\"\ninterface = \"eth9\"\n\
         [[nic]]\nport = \"{agg}:{aport}\"\ninterface = \"eth8\"\n"
    );
    let e = export_err(&parse(&nic), &on("a"));
    assert!(matches!(e, ExportError::Nic { .. }), "{e}");
    assert!(
        e.to_string().contains("core-c0:0") || e.to_string().contains(&agg),
        "{e}"
    );
    let netns = two.replace(
        "underlay = \"10.0.0.1\"\n",
        "underlay = \"10.0.0.1\"\nunderlay_netns = \"lab-a\"\n",
    );
    assert_eq!(
        export_err(&parse(&netns), &on("a")),
        ExportError::UnderlayNetns {
            machine: "a".into(),
            netns: "lab-a".into()
        }
    );
    // the netns is only this machine's business: b's part exports
    assert!(containerlab(&parse(&netns), &on("b")).is_ok());
    let big = two.replace(k2, &format!("{k2}vni_base = 16777215\n"));
    assert!(matches!(
        export_err(&parse(&big), &on("a")),
        ExportError::Vni {
            vni_base: 16777215,
            ..
        }
    ));
    // images: nothing containerlab would expand, nothing that is not a reference
    for bad in [
        "",
        "canopy:${TAG}",
        "{{ .image }}",
        "canopy latest",
        "-canopy",
        "canopy:",
        "a\nb",
        "canopy\"",
    ] {
        let o = ClabOptions {
            switch_image: bad.into(),
            ..ClabOptions::default()
        };
        assert!(
            matches!(
                export_err(&d, &o),
                ExportError::Image { role: "switch", .. }
            ),
            "{bad:?}"
        );
        let o = ClabOptions {
            host_image: Some(bad.into()),
            machine: Some("a".into()),
            ..ClabOptions::default()
        };
        assert!(
            matches!(export_err(&d, &o), ExportError::Image { role: "host", .. }),
            "{bad:?}"
        );
    }
    for good in [
        "canopy:0.1.0",
        "debian:bookworm-slim",
        "ghcr.io/org/canopy:1.2",
        "localhost:5000/canopy@sha256:0123abcd",
    ] {
        assert_eq!(clab::image_problem(good), None, "{good}");
    }
    for (name, ok) in [
        ("core-c0", true),
        ("h12", true),
        ("a.b_c", true),
        ("-x", false),
        ("a/b", false),
        ("a:b", false),
        ("", false),
        ("a b", false),
    ] {
        assert_eq!(clab::valid_node_name(name), ok, "{name:?}");
    }
}

/// containerlab's JSON schema (`schemas/clab.schema.json` of its repository), from
/// `CLAB_SCHEMA`; the file is not in this repository.
fn clab_schema() -> Option<serde_json::Value> {
    let Some(p) = std::env::var_os("CLAB_SCHEMA") else {
        eprintln!(
            "SKIP: set CLAB_SCHEMA=/path/to/clab.schema.json (containerlab's schemas/clab.schema.json) to validate the exports against it"
        );
        return None;
    };
    let text = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("CLAB_SCHEMA={}: {e}", Path::new(&p).display()));
    Some(serde_json::from_str(&text).expect("the schema is JSON"))
}

#[test]
fn exports_validate_against_containerlabs_schema() {
    let Some(schema) = clab_schema() else {
        return;
    };
    let v = jsonschema::validator_for(&schema).expect("compile containerlab's schema");
    let mut checked = 0;
    let mut check = |name: &str, ex: &clab::ClabExport| {
        let yaml = ex.yaml().unwrap();
        let instance: serde_json::Value = serde_norway::from_str(&yaml).unwrap();
        let errors: Vec<String> = v
            .iter_errors(&instance)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}\n{yaml}");
        checked += 1;
    };
    for f in [
        "fabric-default.toml",
        "fabric-dpdk.toml",
        "fabric-transit.toml",
    ] {
        check(
            f,
            &containerlab(&example(f), &ClabOptions::default()).unwrap(),
        );
    }
    let d = example("fabric-vxlan.toml");
    for m in ["a", "b"] {
        let o = ClabOptions {
            machine: Some(m.into()),
            ..ClabOptions::default()
        };
        check(
            &format!("fabric-vxlan.toml ({m})"),
            &containerlab(&d, &o).unwrap(),
        );
    }
    // and the schema is not one that takes anything: a link with one endpoint and a node
    // of an unknown kind fail
    let mut bad: serde_json::Value = serde_norway::from_str(
        &containerlab(&example("fabric-default.toml"), &ClabOptions::default())
            .unwrap()
            .yaml()
            .unwrap(),
    )
    .unwrap();
    bad["topology"]["nodes"]["h0"]["kind"] = "no-such-kind".into();
    bad["topology"]["links"][0]["endpoint"] = "core-c0:s16p0".into();
    assert!(
        v.iter_errors(&bad).count() >= 2,
        "the schema refuses a broken topology"
    );
    eprintln!(
        "{checked} exports valid against {}",
        std::env::var("CLAB_SCHEMA").unwrap()
    );
}

/// Run the exported `wait-interfaces` with `args`: (exit code, stdout, stderr).
fn wait_script(dir: &Path, pre: &[&str], args: &[&str]) -> Option<(i32, String, String)> {
    let script = dir.join("canopy-ft4").join("wait-interfaces");
    let mut c = Command::new(pre.first().copied().unwrap_or("sh"));
    if !pre.is_empty() {
        c.args(&pre[1..]);
    }
    let out = c.arg(&script).args(args).output().ok()?;
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn the_wait_script_waits_for_the_interfaces_then_runs_the_command() {
    let d = example("fabric-default.toml");
    let ex = containerlab(&d, &ClabOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    ex.write(dir.path()).unwrap();
    // an interface that never comes: exit 1 after the timeout, naming it
    let t0 = std::time::Instant::now();
    let (code, out, err) =
        wait_script(dir.path(), &[], &["1", "cnpy-none0", "--", "echo", "ran"]).unwrap();
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "the command did not run: {out}");
    assert!(err.contains("cnpy-none0"), "{err}");
    assert!(t0.elapsed() >= std::time::Duration::from_millis(900));
    // usage errors: exit 2
    for args in [&["1", "lo"][..], &["x", "lo", "--", "true"], &["1"]] {
        let (code, _, err) = wait_script(dir.path(), &[], args).unwrap();
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    // interfaces there and up: IPv6 turned off on them, then the command runs; in a
    // network namespace of its own, so this machine's loopback is left alone
    let pre: &[&str] = if is_root() {
        &[
            "unshare",
            "--net",
            "sh",
            "-c",
            "ip link set lo up && exec sh \"$@\"",
            "sh",
        ]
    } else {
        &[
            "unshare",
            "--user",
            "--map-root-user",
            "--net",
            "sh",
            "-c",
            "ip link set lo up && exec sh \"$@\"",
            "sh",
        ]
    };
    match wait_script(
        dir.path(),
        pre,
        &[
            "5",
            "lo",
            "--",
            "cat",
            "/proc/sys/net/ipv6/conf/lo/disable_ipv6",
        ],
    ) {
        Some((0, out, _)) => assert_eq!(out.trim(), "1", "IPv6 off on the waited interface"),
        other => eprintln!(
            "SKIP the success path: no network namespace of our own here (unshare, ip): {other:?}"
        ),
    }
}

/// Whether this process runs as root (from `/proc/self/status`, no FFI).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// The `canopy-testbed export` commands write what the library gives.
#[test]
fn the_export_commands_write_the_library_output() {
    let bin = env!("CARGO_BIN_EXE_canopy-testbed");
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/fabric-default.toml");
    let out = std::process::Command::new(bin)
        .args(["export", "dot"])
        .arg(&file)
        .output()
        .expect("run canopy-testbed");
    assert!(out.status.success(), "{out:?}");
    let desc = canopy_testbed::fabric::desc::Desc::load(&file).expect("description");
    let want = canopy_testbed::export::dot(&desc, &canopy_testbed::export::DotOptions::default());
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(bin)
        .args(["export", "containerlab", "--image", "canopy:test", "--out"])
        .arg(dir.path())
        .arg(&file)
        .output()
        .expect("run canopy-testbed");
    assert!(out.status.success(), "{out:?}");
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(first.ends_with(".clab.yml"), "{first}");
    let yaml = std::fs::read_to_string(&first).expect("topology written");
    assert!(yaml.contains("image: canopy:test"), "{yaml}");
    // a closed set: a bad export format exits 2
    let bad = std::process::Command::new(bin)
        .args(["export", "svg"])
        .arg(&file)
        .output()
        .expect("run canopy-testbed");
    assert_eq!(bad.status.code(), Some(2));
}
