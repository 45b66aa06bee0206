//! The same tables over P4Runtime to bmv2's `simple_switch_grpc` and to canopy-switch,
//! through canopyd's own client: each gets canopy.p4's pipeline (bmv2 with the JSON p4c
//! wrote, both with p4c's P4Info, which must pass the program's check), the entries of
//! one switch, then the difference to another switch's (inserts, changed actions,
//! deletes by key); each time both read back exactly what was written. Needs `p4c` and
//! `simple_switch_grpc` (docs/p4-install.md); without them it says so and passes.
//! No namespace, no traffic: the targets run without ports of the network.

use canopy_control::p4::runtime::Pipeline;
use canopy_control::{kinds, topology::build_str};
use canopy_dataplane::wire::Kind;
use canopy_test_utils::switch::{config, mem_ports};
use canopy_test_utils::{bin, free_port, wait_for, Dir, Proc};
use canopyd::p4rt::{Addr, Program, Server, Session};
use canopyd::target::p4_state;
use prost::Message;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// `prog` on PATH or in /usr/local/bin.
fn tool(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/local/bin")])
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

/// canopy.p4 compiled for bmv2 into `out`: (the JSON, the binary P4Info).
fn compile(p4c: &Path, out: &Path) -> (Vec<u8>, Vec<u8>) {
    let info = out.join("canopy.p4info.bin");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("p4/canopy.p4");
    let o = Command::new(p4c)
        .args(["--target", "bmv2", "--arch", "v1model", "-o"])
        .arg(out)
        .arg("--p4runtime-files")
        .arg(&info)
        .arg(&src)
        .output()
        .expect("run p4c");
    assert!(
        o.status.success(),
        "p4c: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        std::fs::read(out.join("canopy.json")).unwrap(),
        std::fs::read(&info).unwrap(),
    )
}

#[test]
fn the_same_entries_read_back_identical_from_bmv2_and_canopy_switch() {
    let (Some(p4c), Some(grpc)) = (tool("p4c"), tool("simple_switch_grpc")) else {
        println!("SKIP: needs p4c and simple_switch_grpc (bmv2 built with PI: docs/p4-install.md)");
        return;
    };
    let dir = Dir::new("p4rt-bmv2");
    let (json, info) = compile(&p4c, dir.root());
    let p4info = canopy_p4rt::config::P4Info::decode(info.as_slice()).unwrap();
    // p4c's P4Info of canopy.p4 is the program the schema describes
    let pipeline = Pipeline::check(&p4info).unwrap_or_else(|e| panic!("p4c's P4Info: {e}"));
    let program = |device_config: Vec<u8>| {
        Arc::new(Program {
            p4info: p4info.clone(),
            pipeline: pipeline.clone(),
            device_config,
            election_id: 3,
            tls: None,
            source: "p4c".into(),
        })
    };

    // bmv2 without a program (canopyd pushes it) and canopy-switch, each on a socket
    let bmv2_sock = dir.path("bmv2.p4rt");
    // the Thrift port of a simple_switch_grpc built with one (upstream builds it
    // without; the option is taken either way)
    let thrift = free_port().to_string();
    let grpc_addr = format!("unix:{}", bmv2_sock.display());
    let spawn_bmv2 = |log: &str| {
        Proc::spawn(
            &grpc,
            &[
                "--no-p4",
                "--device-id",
                "1",
                "--thrift-port",
                &thrift,
                "--",
                "--grpc-server-addr",
                &grpc_addr,
            ],
            dir.path(log),
        )
    };
    let mut bmv2 = spawn_bmv2("bmv2.log");
    let canopy_sock = dir.path("canopy.p4rt");
    let cfg = dir.path("canopy.toml");
    std::fs::write(
        &cfg,
        config(
            "workers = 1",
            None,
            &dir.path("canopy.sock"),
            &format!(
                "\n[p4runtime]\nlisten = \"unix:{}\"\n",
                canopy_sock.display()
            ),
            &mem_ports(16, 64),
        ),
    )
    .unwrap();
    let mut canopy = Proc::spawn(
        &bin("canopy-switch"),
        &["run", "--config", cfg.to_str().unwrap()],
        dir.path("canopy.log"),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let session = |sock: &Path, device_config: Vec<u8>| {
        Session::new(
            Server {
                addr: Addr::Unix(sock.to_path_buf()),
                device_id: 1,
            },
            program(device_config),
            rt.handle().clone(),
        )
    };
    let targets = [
        ("bmv2", session(&bmv2_sock, json.clone())),
        ("canopy-switch", session(&canopy_sock, vec![])),
    ];
    let t = Duration::from_secs(10);
    bmv2.wait_alive(30.0, "simple_switch_grpc answers", || {
        targets[0].1.probe(t).ok()
    });
    canopy.wait_alive(30.0, "canopy-switch answers", || targets[1].1.probe(t).ok());

    for (spec, kind) in [
        ("fat-tree:k=4", Kind::Sliced),
        ("fat-tree:k=4", Kind::PathId),
        ("transit-hybrid:leaf=12;layers=1", Kind::Transit),
    ] {
        let tables = kinds::tables(&build_str(spec).unwrap(), kind).unwrap();
        // one switch's entries, then the difference to another's
        for sw in [&tables[0], &tables[tables.len() - 1]] {
            let want = p4_state(sw).unwrap();
            for (name, s) in &targets {
                s.push(&want, t)
                    .unwrap_or_else(|e| panic!("{name}: {spec} {}: {e}", sw.name));
                let got = s.read_state(t).unwrap();
                assert_eq!(got, want, "{name}: {spec} {} read back", sw.name);
            }
        }
    }
    // the program's counters read from both
    let names: Vec<String> = (0..4).map(|p| format!("port{p}")).collect();
    for (name, s) in &targets {
        let r = s
            .counters(&names, t)
            .unwrap_or_else(|e| panic!("{name}: counters: {e}"));
        assert_eq!(r.ports.len(), 4, "{name}");
        assert_eq!(r.rx_packets, 0, "{name}: no traffic was sent");
    }
    // a device that restarts loses its pipeline: a new cookie
    let before = targets[0].1.probe(t).unwrap();
    assert_eq!(targets[0].1.probe(t).unwrap(), before, "a steady cookie");
    // another client that finds the pipeline knows it for canopyd's by its P4Info (a
    // restarted canopyd adopts it instead of wiping the tables)
    let observer = Session::observer(
        Server {
            addr: Addr::Unix(bmv2_sock.clone()),
            device_id: 1,
        },
        program(json.clone()),
        rt.handle().clone(),
    );
    assert_eq!(observer.probe(t).unwrap(), before, "the pipeline adopted");
    bmv2.kill();
    let _ = std::fs::remove_file(&bmv2_sock);
    let mut bmv2 = spawn_bmv2("bmv2.2.log");
    let after = bmv2.wait_alive(30.0, "simple_switch_grpc answers again", || {
        targets[0].1.probe(t).ok()
    });
    assert_ne!(after, before, "a restarted bmv2 has a new pipeline cookie");
    wait_for(5.0, "an empty table state after the restart", || {
        targets[0].1.read_state(t).ok().filter(|s| s.is_empty())
    });
}
