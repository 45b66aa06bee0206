//! One `canopy-switch` in a QEMU guest built from Debian packages: it boots (KVM when a
//! test boot works, TCG otherwise), runs port 0 on a `virtio_net` NIC, port 1 on DPDK's
//! virtio PMD (with a switch built with DPDK; `virtio_net` otherwise) and port 2 on AF_XDP
//! in mode auto, which falls back to generic XDP and says why, answers
//! `health` and `counters` over its TCP management endpoint with the token, receives
//! frames sent on the hypervisor's taps (directly, and through a tc `mirred` wire from a
//! veth), sees its carrier go when QMP takes a link down, and powers off when asked.
//! Skips without root or QEMU; needs the machine's package sources (the image's packages
//! are downloaded once into the cache).

use canopy_proto::mgmt::CountersReport;
use canopy_testbed::fabric::dpdk;
use canopy_testbed::fabric::mgmt::{self, Target};
use canopy_testbed::netns;
use canopy_testbed::traffic::port;
use canopy_testbed::vm::guest::{self, MGMT_PORT};
use canopy_testbed::vm::init::{GuestEnv, GuestNic, STARTED_MARK};
use canopy_testbed::vm::qemu::{self, GuestSpec, Nic, NicLink, PciAddr};
use canopy_testbed::vm::{image, qmp, DEFAULT_CACHE};
use std::net::Ipv4Addr;
use std::process::Child;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Stops QEMU and deletes the hypervisor namespace (taps, bridge, wire) however the test
/// ends.
struct Cleanup {
    ns: String,
    child: Option<Child>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::process::Command::new("ip")
            .args(["netns", "del", &self.ns])
            .output();
    }
}

fn counters(to: &Target) -> CountersReport {
    mgmt::counters(to, Duration::from_secs(10)).unwrap()
}

/// Wait until `f` holds (polling every 200 ms) or panic with `what` after `secs`.
fn until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < Duration::from_secs(secs), "{what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_guest_switch_runs_on_virtio_nics_and_answers_over_tcp() {
    let test = "a_guest_switch_runs_on_virtio_nics_and_answers_over_tcp";
    if !canopy_test_utils::netns_or_skip(test, "network namespaces, taps and QEMU guests") {
        return;
    }
    let Ok(q) = qemu::find() else {
        eprintln!(
            "SKIP {test}: {} is not installed (Debian: qemu-system-x86)",
            qemu::QEMU
        );
        return;
    };
    let switch = canopy_test_utils::bin("canopy-switch");
    let dir = tempfile::tempdir().unwrap();
    let img =
        image::build(DEFAULT_CACHE.as_ref(), &switch, &|s| eprintln!("{s}")).expect("guest image");
    eprintln!("image: {img:?}");
    let probe = qemu::probe(&q, &img, Duration::from_secs(15));
    eprintln!("accelerator: {} ({})", probe.accel.name(), probe.why);

    let ns = format!("cvm{}-hv", std::process::id());
    let mut c = Cleanup {
        ns: ns.clone(),
        child: None,
    };
    guest::hypervisor(&ns, Ipv4Addr::new(10, 254, 0, 1), 24).unwrap();
    let taps = [
        ("g0m", true),
        ("g0p0", false),
        ("g0p1", false),
        ("g0p2", false),
    ]
    .iter()
    .flat_map(|(t, m)| guest::tap_lines(t, 1500, *m))
    .collect::<Vec<_>>();
    netns::ip_batch(Some(&ns), &taps).unwrap();
    // port 1 is reached through a wire from a veth, as a host namespace's link is
    netns::ip(&[
        "-n", &ns, "link", "add", "w1", "type", "veth", "peer", "w1h",
    ])
    .unwrap();
    for d in ["w1", "w1h"] {
        netns::ip(&["-n", &ns, "link", "set", d, "up"]).unwrap();
    }
    guest::wire(&ns, "w1", "g0p1").unwrap();

    // port 1 on DPDK's virtio PMD (its NIC bound to uio_pci_generic by the guest's
    // init) when the switch was built with DPDK, as CI builds it
    let p1 = PciAddr::port(1).unwrap().guest();
    let dpdk_port = format!(
        "[[port]]\nbackend = \"dpdk\"\ndevice = \"{p1}\"\n\n[dpdk]\neal_args = [\"-a\", \"{p1}\"]\n"
    );
    let addr = format!("10.254.0.2:{MGMT_PORT}");
    let config = |port1: &str| {
        format!(
            "[management]\nsocket = \"/run/canopy/switch.sock\"\ntcp = \"{addr}\"\n\
             token_file = \"/run/canopy/token\"\n\n[switch]\nid = 0\nmode = \"adaptive\"\n\n\
             [[port]]\nbackend = \"afpacket\"\ninterface = \"s0p0\"\n\n{port1}\n\
             [[port]]\nbackend = \"afxdp\"\ninterface = \"s0p2\"\nmode = \"auto\"\n"
        )
    };
    let check =
        format!("[management]\nsocket = \"/run/c.sock\"\n\n[switch]\nid = 0\n\n{dpdk_port}");
    let dpdk = dpdk::check_switch_binary(&switch, &check, "vm-guest")
        .inspect_err(|e| eprintln!("NOTE {test}: port 1 on afpacket, not DPDK: {e}"))
        .is_ok();
    let toml = match dpdk {
        true => config(&dpdk_port),
        false => config("[[port]]\nbackend = \"afpacket\"\ninterface = \"s0p1\"\n"),
    };
    let token = b"vm-guest-test-token-9f3c1a7e5b20d4".to_vec();
    let env = GuestEnv {
        hostname: "edge-p0-e0".into(),
        mgmt: ("52:54:00:fe:00:00".into(), Ipv4Addr::new(10, 254, 0, 2), 24),
        nics: (0..3)
            .filter(|&p| !(dpdk && p == 1))
            .map(|p| GuestNic {
                mac: format!("52:54:00:00:00:{p:02x}"),
                name: format!("s0p{p}"),
                mtu: 1500,
            })
            .collect(),
        hugepages: if dpdk { 16 } else { 0 },
        dpdk: if dpdk { vec![p1.clone()] } else { vec![] },
    };
    let files = guest::write_files(dir.path(), "edge-p0-e0", &env, &toml, &token).unwrap();
    // the hypervisor's copy of the token (0600), as canopyd and the testbed read it
    let to = Target::Guest {
        tcp: addr.clone(),
        token_file: files.iter().find(|(n, _)| n == "token").unwrap().1.clone(),
        netns: ns.clone(),
    };
    let mut nics = vec![Nic {
        id: "mgmt".into(),
        pci: PciAddr::MGMT,
        link: NicLink::Tap("g0m".into()),
        mac: env.mgmt.0.clone(),
        offloads: true,
    }];
    for p in 0..3u16 {
        nics.push(Nic {
            id: format!("p{p}"),
            pci: PciAddr::port(p).unwrap(),
            link: NicLink::Tap(format!("g0p{p}")),
            mac: format!("52:54:00:00:00:{p:02x}"),
            // port 2 keeps the guest's receive offloads (below)
            offloads: p == 2,
        });
    }
    let console = dir.path().join("edge-p0-e0.console");
    let qmp_sock = dir.path().join("edge-p0-e0.qmp");
    let spec = GuestSpec {
        name: "edge-p0-e0".into(),
        accel: probe.accel,
        memory_mib: 512,
        vcpus: 1,
        image: img,
        nics,
        files,
        console: console.clone(),
        qmp: qmp_sock.clone(),
        vhost: qemu::vhost_available(),
    };
    let log = guest::qemu_log(&console);
    // port 2's NIC keeps its receive offloads and cannot be told to drop them
    // (`ctrl_guest_offloads=off`): `virtio_net` refuses native XDP on it, so its AF_XDP
    // port in mode auto falls back to generic XDP and says why
    let mut args = qemu::args(&spec);
    let p2 = args
        .iter_mut()
        .find(|a| a.starts_with("virtio-net-pci,netdev=p2,"))
        .unwrap();
    p2.push_str(",ctrl_guest_offloads=off");
    let args = args;
    c.child = Some(guest::start(&ns, &q, (&args, &[]), &log, "start the guest").unwrap());
    let (h, took) = guest::wait_healthy(
        &to,
        c.child.as_mut().unwrap(),
        &console,
        Duration::from_secs(180),
    )
    .unwrap_or_else(|e| {
        panic!(
            "{e}\nconsole:\n{}\nQEMU: {:?}",
            std::fs::read_to_string(&console).unwrap_or_default(),
            std::fs::read_to_string(&log)
        )
    });
    eprintln!("healthy after {:.1} s: {h:?}", took.as_secs_f64());
    let con = std::fs::read_to_string(&console).unwrap();
    assert!(con.contains(STARTED_MARK), "{con}");
    assert_eq!(h.ports.len(), 3, "{h:?}");
    for (i, p) in h.ports.iter().enumerate() {
        if i == 1 && dpdk {
            // DPDK's virtio PMD on the NIC, the first DPDK port on a NIC's PMD
            assert_eq!((p.name.as_str(), p.backend.as_str()), (p1.as_str(), "dpdk"));
            assert!(
                con.contains(&format!("{p1} bound to uio_pci_generic")),
                "{con}"
            );
        } else if i == 2 {
            assert_eq!(p.backend, "afxdp/skb", "{p:?}");
            let why = p.mode_note.as_deref().unwrap_or_default();
            assert!(why.contains("refused native XDP"), "{p:?}");
        } else {
            assert_eq!(p.name, format!("s0p{i}"));
            assert_eq!(p.backend, "afpacket");
            assert_eq!(p.mode_note, None);
        }
        assert!(p.link && p.admin, "{p:?}");
    }

    // frames on the taps reach the guest's ports: directly, and through the wire
    let frame: Vec<u8> = [[0xffu8; 6], [0x02, 0, 0, 0, 0, 1]]
        .concat()
        .into_iter()
        .chain([0x88, 0xb5])
        .chain([0u8; 50])
        .collect();
    let before = counters(&to);
    let stop = AtomicBool::new(false);
    for dev in ["g0p0", "w1h", "g0p2"] {
        let mut p = port::open_tx(&ns, dev).unwrap();
        for _ in 0..10 {
            assert!(port::queue(&mut p, &frame, &stop));
        }
        p.tx_flush().unwrap();
    }
    until(
        30,
        "the guest's ports did not count the 10 frames each",
        || {
            let now = counters(&to);
            (0..3).all(|i| now.ports[i].rx_packets >= before.ports[i].rx_packets + 10)
        },
    );

    // QMP: link down on the hypervisor side is carrier loss in the guest
    qmp::execute(
        &qmp_sock,
        &qmp::Command::SetLink {
            name: "p0".into(),
            up: false,
        },
        Duration::from_secs(5),
    )
    .unwrap();
    until(30, "port 0 kept its link after set_link off", || {
        let h = mgmt::health(&to, Duration::from_secs(5)).unwrap();
        !h.ports[0].link && h.ports[1].link
    });
    assert_eq!(
        qmp::status(&qmp_sock, Duration::from_secs(5))
            .unwrap()
            .status,
        "running"
    );
    qmp::execute(&qmp_sock, &qmp::Command::Quit {}, Duration::from_secs(5)).unwrap();
    let child = c.child.as_mut().unwrap();
    until(10, "QEMU did not exit after quit", || {
        child.try_wait().unwrap().is_some()
    });
}
