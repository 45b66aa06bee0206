//! The real `canopy-switch` binary on mem ports (no root needed): a k=4 fat-tree edge
//! switch with computed sliced tables, driven over its management socket.

mod common;

use canopy_control::kinds;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use canopy_proto::mgmt::Request;
use common::*;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

#[test]
fn forwards_injected_frames_to_the_decided_port() {
    let dir = Dir::new("fwd");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    let f = Fabric::new(Kind::Sliced);
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let far = f.topo.hosts.len() as u32 - 1;

    // h0 -> h1 and h1 -> h0: down, deterministic
    for (ing, src, dst, out) in [(0u16, h0, h1, 1usize), (1, h1, h0, 0)] {
        let fr = f.frame(Kind::Sliced, src, dst, b"canopy-switch test");
        let (want, ports) = f.expect(ing, &fr);
        assert_eq!(ports, vec![out as u16]);
        sw.inject(ing, &[fr]);
        sw.settle();
        assert_eq!(sw.capture(out as u16), vec![want], "{src}->{dst}");
    }
    // h0 -> far host: up, adaptive over ports 2 and 3
    let fr = f.frame(Kind::Sliced, h0, far, b"up");
    let (want, ports) = f.expect(0, &fr);
    assert_eq!(ports, vec![2, 3]);
    sw.inject(0, &vec![fr; 64]);
    let c = sw.settle();
    let (a, b) = (sw.capture(2), sw.capture(3));
    assert_eq!(a.len() + b.len(), 64);
    assert!(a.iter().chain(&b).all(|x| *x == want));
    let choices = c["ports"][2]["adaptive_choices"].as_u64().unwrap()
        + c["ports"][3]["adaptive_choices"].as_u64().unwrap();
    assert_eq!(choices, 64, "{c}");
    assert_eq!(
        c["ports"][2]["tx_packets"].as_u64().unwrap(),
        a.len() as u64
    );
    // far host -> h0, arriving from above with the header advanced by the model hops
    for src in [far, far - 1, 5] {
        let fr = f.frame(Kind::Sliced, src, h0, b"down");
        let (ing, at_edge) = f.arriving(&fr, src);
        assert!(ing >= 2, "arrives on an up port");
        let (want, ports) = f.expect(ing, &at_edge);
        assert_eq!(ports, vec![0]);
        sw.inject(ing, &[at_edge]);
        sw.settle();
        assert_eq!(sw.capture(0), vec![want]);
    }
    let c = sw.settle();
    assert_eq!(c["rx_packets"], json!(2 + 64 + 3));
    assert_eq!(c["tx_packets"], json!(2 + 64 + 3));
    assert_eq!(c["dropped"], json!(0));
    let bytes = |k: &str| -> u64 {
        c["ports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[k].as_u64().unwrap())
            .sum()
    };
    assert!(bytes("rx_bytes") > 64 * 60);
    assert_eq!(
        bytes("rx_bytes"),
        bytes("tx_bytes"),
        "frames keep their length"
    );
}

#[test]
fn tables_are_swapped_atomically_while_frames_flow() {
    let dir = Dir::new("swap");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    let f = Fabric::new(Kind::Sliced);
    let sliced = serde_json::to_value(&f.tables).unwrap();
    let flat_all = kinds::sliced::tables_mode(&f.topo, Mode::Flat).unwrap();
    let flat = serde_json::to_value(&flat_all[f.sw]).unwrap();
    let fr = f.frame(Kind::Sliced, f.host_on(0), f.host_on(1), b"swap");
    let burst = vec![fr.clone(); 32];

    // deterministic: under FLAT tables a SLICED-mode frame is a mode mismatch
    sw.ok(&replace_tables(&flat));
    sw.inject(0, &burst);
    let c = sw.settle();
    assert_eq!(drops(&c, 0, "mode_mismatch"), 32, "{c}");
    sw.ok(&replace_tables(&sliced));
    sw.inject(0, &burst);
    sw.settle();
    assert_eq!(sw.capture(1).len(), 32);

    // concurrent: one connection injects while another swaps 20 times
    let socket = sw.socket.clone();
    let inject = Request::Inject {
        port: 0,
        frames: burst.iter().map(hex::encode).collect(),
    };
    let injector = std::thread::spawn(move || {
        let mut conn = Conn::open(&socket);
        let mut n = 0u64;
        for _ in 0..100 {
            let r = conn.req(&inject);
            assert_eq!(r["ok"], json!(true), "{r}");
            n += r["injected"].as_u64().unwrap();
            std::thread::sleep(Duration::from_micros(200));
        }
        n
    });
    let mut conn = Conn::open(&sw.socket);
    for i in 0..20 {
        let t = if i % 2 == 0 { &flat } else { &sliced };
        let r = conn.req(&replace_tables(t));
        assert_eq!(r["ok"], json!(true), "{r}");
        std::thread::sleep(Duration::from_millis(1));
    }
    // a table for another port count is refused and changes nothing
    let mut three = f.tables.clone();
    three.ports.pop();
    let r = conn.req(&replace_tables(&three));
    assert_eq!(r["ok"], json!(false));
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("3 ports but the switch has 4"),
        "{r}"
    );
    let injected = injector.join().unwrap();
    assert_eq!(injected, 3200);
    sw.injected
        .fetch_add(injected, std::sync::atomic::Ordering::Relaxed);
    let c = sw.settle();
    let delivered = sw.capture(1).len() as u64;
    let mismatched = drops(&c, 0, "mode_mismatch") - 32;
    assert_eq!(delivered + mismatched, injected, "{c}");
    assert_eq!(
        c["dropped"].as_u64().unwrap(),
        mismatched + 32,
        "only mode mismatches: {c}"
    );
    // the last swap installed the sliced tables: everything is delivered now
    let t = sw.ok(&Request::GetTables {});
    assert_eq!(t["tables"], sliced);
    sw.inject(0, &burst);
    sw.settle();
    assert_eq!(sw.capture(1).len(), 32);
}

#[test]
fn a_port_set_down_drops_as_port_down_and_comes_back() {
    let dir = Dir::new("down");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    let f = Fabric::new(Kind::Sliced);
    let fr = f.frame(Kind::Sliced, f.host_on(0), f.host_on(1), b"down");
    sw.ok(&Request::SetPort { port: 1, up: false });
    let h = sw.ok(&Request::Health {});
    assert_eq!(h["ports"][1]["admin"], json!(false));
    assert_eq!(h["ports"][1]["link"], json!(true));
    sw.inject(0, &vec![fr.clone(); 10]);
    let c = sw.settle();
    assert_eq!(drops(&c, 0, "port_down"), 10, "{c}");
    assert!(sw.capture(1).is_empty());
    // frames arriving on a down port are dropped too
    sw.inject(
        1,
        &[f.frame(Kind::Sliced, f.host_on(1), f.host_on(0), b"x")],
    );
    let c = sw.settle();
    assert_eq!(drops(&c, 1, "port_down"), 1, "{c}");
    sw.ok(&Request::SetPort { port: 1, up: true });
    sw.inject(0, &vec![fr; 10]);
    sw.settle();
    assert_eq!(sw.capture(1).len(), 10);
    // bad requests (port out of range, ...): tests/mgmt_hostile.rs, on both transports
}

#[test]
fn socket_is_0600_and_sigterm_prints_final_counters_and_removes_it() {
    let dir = Dir::new("term");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    let mode = std::fs::metadata(&sw.socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "socket mode {mode:o}");
    let f = Fabric::new(Kind::Sliced);
    sw.inject(
        0,
        &vec![f.frame(Kind::Sliced, f.host_on(0), f.host_on(1), b"t"); 7],
    );
    sw.inject(0, &[vec![0u8; 10]]); // a runt
    sw.settle();
    let socket = sw.socket.clone();
    let (status, out) = sw.terminate();
    assert!(status.success(), "{status}");
    assert!(out.contains("final counters (edge-p0-e0"), "{out}");
    assert!(out.contains("total: rx 8 tx 7 dropped 1"), "{out}");
    assert!(out.contains("port 0 (p0): truncated=1"), "{out}");
    assert!(!socket.exists(), "socket removed");
}

#[test]
fn without_tables_frames_are_dropped_until_tables_are_pushed() {
    let dir = Dir::new("notables");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, false, ""));
    let h = sw.ok(&Request::Health {});
    assert_eq!(h["tables_loaded"], json!(false));
    assert_eq!(h["tables"], json!(null));
    assert_eq!(sw.ok(&Request::GetTables {})["tables"], json!(null));
    let f = Fabric::new(Kind::Sliced);
    let fr = f.frame(Kind::Sliced, f.host_on(0), f.host_on(1), b"x");
    sw.inject(0, &vec![fr.clone(); 5]);
    let c = sw.settle();
    assert_eq!(drops(&c, 0, "kind_not_configured"), 5, "{c}");
    // ctl pushes the tables from a file, as canopyctl prints them
    let file = dir.path("edge.json");
    std::fs::write(&file, serde_json::to_string_pretty(&f.tables).unwrap()).unwrap();
    let (st, out, err) = run_bin(&[
        "ctl",
        "--socket",
        sw.socket.to_str().unwrap(),
        "tables",
        file.to_str().unwrap(),
    ]);
    assert!(st.success(), "{err}");
    assert!(
        out.contains("tables replaced: edge-p0-e0 (sliced)"),
        "{out}"
    );
    let h = sw.ok(&Request::Health {});
    assert_eq!(h["tables_loaded"], json!(true));
    assert_eq!(h["tables"], json!(EDGE));
    sw.inject(0, &vec![fr; 5]);
    sw.settle();
    assert_eq!(sw.capture(1).len(), 5);
}

#[test]
fn ctl_prints_text_and_json_and_fails_on_errors() {
    let dir = Dir::new("ctl");
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    let s = sw.socket.to_str().unwrap();
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "health"]);
    assert!(st.success());
    assert!(out.contains("tables    edge-p0-e0 (sliced)"), "{out}");
    assert!(out.contains("link up    admin up"), "{out}");
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "port", "2", "down"]);
    assert!(st.success(), "{out}");
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "counters", "--json"]);
    assert!(st.success());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ports"].as_array().unwrap().len(), 4);
    assert!(v["ports"][0]["drops"]["ring_full"].is_u64());
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "counters"]);
    assert!(st.success());
    assert!(
        out.contains("rx_packets") && out.contains("drops by reason: none"),
        "{out}"
    );
    let (st, _, err) = run_bin(&["ctl", "--socket", s, "port", "9", "up"]);
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("no port 9"), "{err}");
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "dump-tables"]);
    assert!(st.success());
    let t: canopy_dataplane::table::SwitchTables = serde_json::from_str(&out).unwrap();
    assert_eq!(t.name, EDGE);
    let (st, out, _) = run_bin(&["ctl", "--socket", s, "inject", "0", "00112233"]);
    assert!(st.success() && out.contains("injected 1"), "{out}");
    let (st, _, err) = run_bin(&["ctl", "--socket", "/nonexistent/x.sock", "health"]);
    assert_eq!(st.code(), Some(1));
    assert!(err.contains("cannot connect"), "{err}");
}

#[test]
fn socket_path_is_checked_before_start() {
    // a stale socket (nobody listening) is removed
    let dir = Dir::new("stale");
    drop(std::os::unix::net::UnixListener::bind(dir.path("switch.sock")).unwrap());
    assert!(dir.path("switch.sock").exists());
    let sw = Switch::start(&dir, &mem_config(&dir, 4, true, ""));
    assert_eq!(sw.ok(&Request::Health {})["ok"], json!(true));
    // a second switch on a live socket refuses
    let cfg = dir.path("second.toml");
    std::fs::write(&cfg, mem_config(&dir, 4, true, "")).unwrap();
    let (st, _, err) = run_bin(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("another process is serving"), "{err}");
    assert_eq!(sw.ok(&Request::Health {})["ok"], json!(true));
    // a path that is not a socket refuses
    let dir2 = Dir::new("notsock");
    std::fs::write(dir2.path("switch.sock"), "precious").unwrap();
    let cfg = dir2.path("c.toml");
    std::fs::write(&cfg, mem_config(&dir2, 4, true, "")).unwrap();
    let (st, _, err) = run_bin(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("is not a socket"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir2.path("switch.sock")).unwrap(),
        "precious"
    );
}

#[test]
fn bad_configs_are_rejected_naming_the_key() {
    // Long for its table of cases only: one (bad config, key it must name) row each.
    let dir = Dir::new("badcfg");
    let good = mem_config(&dir, 4, true, "");
    let cfg = dir.path("c.toml");
    std::fs::write(&cfg, &good).unwrap();
    let (st, out, err) = run_bin(&["check-config", "--config", cfg.to_str().unwrap()]);
    assert!(st.success(), "{err}");
    assert!(
        out.contains("tables     edge-p0-e0 of fat-tree:k=4, kind sliced: 4 ports"),
        "{out}"
    );
    assert!(out.contains("up/duplex"), "{out}");

    let sock = format!("socket = \"{}\"", dir.path("switch.sock").display());
    let port = "[[port]]\nbackend = \"mem\"\nname = \"p3\"\ncapacity = 4096\n";
    let cases: Vec<(String, &str)> = vec![
        (
            good.replace("workers = 1", "workers = 1\nwrokers = 2"),
            "switch.wrokers",
        ),
        (good.replace("workers = 1", "workers = 0"), "switch.workers"),
        (good.replace("workers = 1", "workers = 9"), "switch.workers"),
        (
            good.replace("workers = 1", "workers = 1\nmode = \"turbo\""),
            "switch.mode",
        ),
        (
            good.replace("workers = 1", "workers = 1\npin_cores = [0]"),
            "switch.pin_cores",
        ),
        (
            good.replace("max_sleep_us = 200", "mode = \"busy\"\nspins = 3"),
            "switch.spins",
        ),
        (
            good.replace("max_sleep_us = 200", "max_sleep_us = 0"),
            "switch.max_sleep_us",
        ),
        (
            good.replace("workers = 1", "workers = 1\nring_size = 0"),
            "switch.ring_size",
        ),
        (
            good.replace("workers = 1", "workers = 1\npool = 3"),
            "switch.pool",
        ),
        (
            good.replace("workers = 1", "workers = \"one\""),
            "switch.workers",
        ),
        (
            good.replace("kind = \"sliced\"", "kind = \"bogus\""),
            "tables.kind",
        ),
        (
            good.replace("kind = \"sliced\"", "kind = \"transit\""),
            "tables.kind",
        ),
        (
            good.replace("switch = \"edge-p0-e0\"", "switch = \"e0_0\""),
            "tables.switch",
        ),
        (
            good.replace("fat-tree:k=4", "fat-tree:k=5"),
            "tables.topology",
        ),
        (
            good.replace("kind = \"sliced\"", "kind = \"path-id\"\nmode = \"flat\""),
            "tables.mode",
        ),
        (
            good.replace("kind = \"sliced\"", "kind = \"sliced\"\nfile = \"t.json\""),
            "tables.topology",
        ),
        (
            good.replace("switch = \"edge-p0-e0\"\n", ""),
            "tables.switch",
        ),
        (
            good.replace("[tables]\n", "[tables]\nfile = \"missing.json\"\n[x]\n"),
            "x",
        ),
        (
            good.replace(port, ""),
            "tables: tables of \"edge-p0-e0\" have 4 ports but the switch has 3",
        ),
        (good.replace(&sock, ""), "management"),
        (good.replace(&sock, "socket = \"\""), "management.socket"),
        (
            good.replace(&sock, &format!("{sock}\nmax_request_bytes = 10")),
            "management.max_request_bytes",
        ),
        (
            good.replace(&sock, &format!("{sock}\ntimeout = 10")),
            "management.timeout",
        ),
        (good.replace("name = \"p3\"", "name = \"p2\""), "port[3]"),
        (
            good.replace("name = \"p3\"", "name = \"p3\"\ninterface = \"eth0\""),
            "port[3].interface",
        ),
        (
            good.replace("name = \"p3\"", "name = \"p3\"\nspeed = 10"),
            "port[3].speed",
        ),
        (
            good.replace("backend = \"mem\"\nname = \"p3\"", "backend = \"netmap\""),
            "port[3].backend",
        ),
        (
            good.replace(
                "backend = \"mem\"\nname = \"p3\"\ncapacity = 4096",
                "backend = \"afpacket\"",
            ),
            "port[3].interface",
        ),
        (
            good.replace(
                "backend = \"mem\"\nname = \"p3\"\ncapacity = 4096",
                "backend = \"afpacket\"\ninterface = \"v3\"\ntpacket = \"v4\"",
            ),
            "port[3].tpacket",
        ),
        (
            good.replace(
                "backend = \"mem\"\nname = \"p3\"\ncapacity = 4096",
                "backend = \"afpacket\"\ninterface = \"a/b\"",
            ),
            "port[3].interface",
        ),
        (
            good.replace(
                "backend = \"mem\"\nname = \"p3\"\ncapacity = 4096",
                "backend = \"afpacket\"\ninterface = \"v3\"\ncapacity = 8",
            ),
            "port[3].capacity",
        ),
        (
            good.replace("capacity = 4096", "capacity = 0"),
            "port[0].capacity",
        ),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        assert_ne!(text, &good, "case {i} ({key}) did not change the config");
        std::fs::write(&cfg, text).unwrap();
        let (st, _, err) = run_bin(&["check-config", "--config", cfg.to_str().unwrap()]);
        assert_eq!(st.code(), Some(2), "case {i} ({key}) accepted:\n{text}");
        assert!(
            err.contains(&format!("{}: {key}", cfg.display())),
            "case {i}: {err:?} does not name {key:?}"
        );
    }
    // a missing tables file names the file key
    std::fs::write(
        &cfg,
        good.replace(
            "topology = \"fat-tree:k=4\"\nkind = \"sliced\"\nswitch = \"edge-p0-e0\"",
            "file = \"missing.json\"",
        ),
    )
    .unwrap();
    let (st, _, err) = run_bin(&["check-config", "--config", cfg.to_str().unwrap()]);
    assert_eq!(st.code(), Some(2));
    assert!(
        err.contains("tables.file") && err.contains("missing.json"),
        "{err}"
    );
    // a missing config file
    let (st, _, err) = run_bin(&["run", "--config", "/nonexistent/c.toml"]);
    assert_eq!(st.code(), Some(2));
    assert!(
        err.contains("/nonexistent/c.toml: file: cannot read"),
        "{err}"
    );
}

#[test]
fn help_explains_every_option() {
    let (st, out, _) = run_bin(&["--help"]);
    assert!(st.success());
    for w in ["run", "ctl", "check-config", "Exit status"] {
        assert!(out.contains(w), "{w}: {out}");
    }
    let (_, out, _) = run_bin(&["run", "--help"]);
    for w in ["--config", "--log", "SIGTERM", "final counters"] {
        assert!(out.contains(w), "{w}: {out}");
    }
    let (_, out, _) = run_bin(&["ctl", "--help"]);
    for w in [
        "--socket",
        "--json",
        "health",
        "counters",
        "port",
        "tables",
        "dump-tables",
        "inject",
        "capture",
    ] {
        assert!(out.contains(w), "{w}: {out}");
    }
}

#[test]
fn the_example_configs_validate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for f in ["switch-mem.toml", "switch-veth.toml"] {
        let p = root.join(f);
        let (st, out, err) = run_bin(&["check-config", "--config", p.to_str().unwrap()]);
        assert!(st.success(), "{f}: {err}");
        assert!(
            out.contains("tables     edge-p0-e0 of fat-tree:k=4"),
            "{out}"
        );
    }
}

/// `[capture]` (and `run --pcap`): what each port received and sent, in its own file,
/// as bmv2's `--pcap` writes; `health` and the final report say what was written.
#[test]
fn ports_are_captured_to_files_like_bmv2_pcap() {
    use canopy_switch::pcap;
    let dir = Dir::new("pcapcap");
    let cap = dir.path("cap");
    let config = format!(
        "{}\n[capture]\ndir = {:?}\nformat = \"pcapng\"\nports = [0, 1]\nmax_frames = 40\n",
        mem_config(&dir, 4, true, ""),
        cap.to_str().unwrap()
    );
    let sw = Switch::start(&dir, &config);
    let f = Fabric::new(Kind::Sliced);
    let (h0, h1) = (f.host_on(0), f.host_on(1));
    let sent: Vec<Vec<u8>> = (0..50u8)
        .map(|i| f.frame(Kind::Sliced, h0, h1, &[i; 40]))
        .collect();
    let want: Vec<Vec<u8>> = sent.iter().map(|fr| f.expect(0, fr).0).collect();
    sw.inject(0, &sent);
    sw.settle();
    assert_eq!(sw.capture(1), want);
    let h = sw.ok(&Request::Health {});
    let files = h["capture"]["files"]
        .as_array()
        .expect("health reports the capture");
    assert_eq!(files.len(), 4, "{h}");
    let (st, out) = sw.terminate();
    assert!(st.success(), "{out}");
    assert!(
        out.contains("capture") && out.contains("p0_in.pcapng"),
        "{out}"
    );
    let read = |n: &str| pcap::read(&cap.join(n)).unwrap();
    let (p0_in, p1_out) = (read("p0_in.pcapng"), read("p1_out.pcapng"));
    let data = |v: &[pcap::PcapFrame]| v.iter().map(|f| f.data.clone()).collect::<Vec<_>>();
    // bounded at 40 frames a file; the first 40 in order
    assert_eq!(data(&p0_in), sent[..40]);
    assert_eq!(data(&p1_out), want[..40]);
    for (a, b) in p0_in.iter().zip(&p1_out) {
        assert!(a.ts_ns <= b.ts_ns, "sent before it was received");
    }
    assert!(read("p0_out.pcapng").is_empty() && read("p1_in.pcapng").is_empty());
    assert!(!cap.join("p2_in.pcapng").exists(), "port 2 is not captured");
    assert!(out.contains("past max"), "{out}");

    // `--pcap DIR` with no [capture]: every port, both ways, classic pcap
    let dir = Dir::new("pcapflag");
    let flag = dir.path("flag");
    let flag_arg = flag.to_str().unwrap().to_string();
    let sw = Switch::start_with(&dir, &mem_config(&dir, 4, true, ""), |mut c| {
        c.args(["--pcap", &flag_arg]);
        c
    });
    sw.inject(1, &[f.frame(Kind::Sliced, h1, h0, b"back")]);
    sw.settle();
    let (st, _) = sw.terminate();
    assert!(st.success());
    let names: std::collections::BTreeSet<String> = std::fs::read_dir(&flag)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 8, "{names:?}");
    assert_eq!(pcap::read(&flag.join("p1_in.pcap")).unwrap().len(), 1);
    assert_eq!(pcap::read(&flag.join("p0_out.pcap")).unwrap().len(), 1);
}
