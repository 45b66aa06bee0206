//! `canopyd --check`.

use super::*;

/// 9. `canopyd --check`: exit 0 with a summary on a good file, exit 2 with
///    `file: key: what (line N)` on bad ones.
#[test]
fn check_good_and_bad_configs() {
    let d = Dir::new("check");
    let good = "name = \"lab\"\ntopology = \"fat-tree:k=4\"\nkind = \"sliced\"\n[daemon]\nmetrics = \"off\"\ncontrol = \"/tmp/x/canopyd.sock\"\n[switches]\nsocket = \"/run/canopy/{name}.sock\"\n";
    let run = |name: &str, text: &str| {
        let p = d.path(name);
        std::fs::write(&p, text).unwrap();
        let out = std::process::Command::new(bin("canopyd"))
            .args(["--check", "--config", p.to_str().unwrap()])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
            p.display().to_string(),
        )
    };
    let (code, so, se, _) = run("good.toml", good);
    assert_eq!(code, Some(0), "{so}{se}");
    assert!(
        so.contains("configuration OK") && so.contains("20 switches"),
        "{so}"
    );
    assert!(!std::path::Path::new("/tmp/x/canopyd.sock").exists());
    let cases: &[(&str, String, &str)] = &[
        (
            "kind.toml",
            good.replace("sliced", "slicd"),
            "kind: \"slicd\"",
        ),
        (
            "name.toml",
            good.replace("\"lab\"", "\"Lab!\""),
            "name: \"Lab!\"",
        ),
        (
            "sw.toml",
            format!("{good}[[switch]]\nname = \"nope\"\nsocket = \"/x\"\n"),
            "switch[0].name: no switch named \"nope\"",
        ),
        (
            "topo.toml",
            good.replace("k=4", "k=3"),
            "topology: \"fat-tree:k=3\"",
        ),
        (
            "both.toml",
            format!(
                "{good}[[switch]]\nname = \"core-c0\"\nsocket = \"/x\"\ntcp = \"127.0.0.1:7000\"\n"
            ),
            "switch[0]: give either socket or tcp",
        ),
    ];
    for (file, text, want) in cases {
        let (code, so, se, path) = run(file, text);
        assert_eq!(code, Some(2), "{file}: {so}{se}");
        let want = format!("{path}: {want}");
        assert!(se.contains(&want), "{file}: want {want:?} in {se}");
        assert!(
            se.trim_end().ends_with(')') && se.contains("(line "),
            "{file}: no line in {se}"
        );
    }
    // no line to give: the key is enough; syntax errors carry the parser's position
    for (file, text, want) in [
        ("probe.toml", format!("{good}probe = 1\n"), "unknown field"),
        (
            "interval.toml",
            good.replace(
                "metrics = \"off\"",
                "metrics = \"off\"\nprobe_interval_ms = 1",
            ),
            "daemon.probe_interval_ms: 1 is outside",
        ),
        (
            "tcp.toml",
            good.replace(
                "socket = \"/run/canopy/{name}.sock\"",
                "tcp = \"{name}:7000\"",
            ),
            "switches.token_file",
        ),
        (
            "missing.toml",
            "name = \"lab\"\n".to_string(),
            "missing field",
        ),
        (
            "same.toml",
            good.replace("{name}.sock", "sw.sock"),
            "switches.socket: /run/canopy/sw.sock is the endpoint of both",
        ),
        (
            "same2.toml",
            format!(
                "{good}[[switch]]\nname = \"core-c0\"\nsocket = \"/run/canopy/core-c1.sock\"\n"
            ),
            "every switch needs its own",
        ),
    ] {
        let (code, so, se, path) = run(file, &text);
        assert_eq!(code, Some(2), "{file}: {so}{se}");
        assert!(
            se.contains(&path) && se.contains(want),
            "{file}: want {want:?} in {se}"
        );
    }
}
