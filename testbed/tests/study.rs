//! `canopy-testbed study`: a description file in, the study's files out (CSV, JSON, SVG,
//! Markdown) with one row per point; bad descriptions refused with the key and line.

use std::process::Command;

fn testbed(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_canopy-testbed"))
        .args(args)
        .output()
        .expect("run canopy-testbed");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Writes `text` as a description in `dir`, runs `study` on it with `extra` arguments and
/// returns the output directory; fails the test, with stderr, if the command fails.
fn run_study(dir: &std::path::Path, text: &str, extra: &[&str]) -> (std::path::PathBuf, String) {
    let file = dir.join("study.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("out");
    let mut args = vec![
        "study",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = testbed(&args);
    assert_eq!(code, 0, "{stderr}");
    (out, stdout)
}

const STUDY: &str = r#"
title = "fat-tree k=4: delay against load"
about = "A small sweep for the test."
[base]
topology = { name = "ft4", spec = "fat-tree:k=4" }
pattern = "weighted:1,1,2"
[base.network]
buffer = 2
[base.workload]
payload = { uniform = { min = 64, max = 512 } }
measure_us = 100.0
[sweep]
load = [0.2, 0.5, 0.8]
addressing = ["sliced", "sliced/dst"]
[plot]
y = ["delay", "throughput", "hops", "utilisation"]
"#;

#[test]
fn a_study_writes_one_row_per_point_and_a_plot_per_metric() {
    let dir = tempfile::tempdir().unwrap();
    let (out, stdout) = run_study(dir.path(), STUDY, &["--threads", "2"]);
    assert!(stdout.contains("6 points"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("points.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 7, "{csv}");
    assert!(rows[0].starts_with("index,topology,addressing,pattern,"));
    assert!(rows[1..].iter().all(|r| r.contains(",ft4,")), "{csv}");
    assert_eq!(
        rows.iter().filter(|r| r.contains(",sliced/dst,")).count(),
        3
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("study.json")).unwrap()).unwrap();
    let pts = json["points"].as_array().unwrap();
    assert_eq!(pts.len(), 6);
    for p in pts {
        let o = &p["outcome"];
        assert_eq!(o["counts"]["misdelivered"], 0);
        assert!(o["delay"]["mean_tx"].as_f64().unwrap() >= 1.0, "{o}");
    }
    for svg in ["delay.svg", "throughput.svg", "hops.svg"] {
        let s = std::fs::read_to_string(out.join(svg)).unwrap();
        // one curve per addressing, in the palette's first two colours
        for colour in ["#1F77B4", "#D62728"] {
            let curves = s
                .split("<polyline")
                .filter(|p| p.split('>').next().unwrap_or("").contains(colour))
                .count();
            assert_eq!(curves, 1, "{svg} {colour}");
        }
    }
    // per-tier utilisation: a curve per addressing and tier, H→1 carrying the offered load
    let util = std::fs::read_to_string(out.join("utilisation.svg")).unwrap();
    assert!(util.contains("addressing=sliced/dst, H→1"), "tier curves");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| addressing=sliced/dst, load=0.8"), "{md}");
    assert!(std::fs::read_to_string(out.join("tiers.csv"))
        .unwrap()
        .contains("H→1"));
}

#[test]
fn bad_descriptions_are_refused_with_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "title = \"x\"\n[base]\ntopology = \"fat-tree:k=4\"\ncolour = 3\n",
            "colour",
        ),
        (
            "title = \"x\"\n[sweep]\nload = [0.5]\n[plot]\nx = \"topology\"\n",
            "plot.x",
        ),
        ("title = \"x\"\n[base.workload]\nload = 0.0\n", "load = 0"),
        (
            "title = \"x\"\n[base]\naddressing = \"sliced/zigzag\"\n",
            "unknown addressing",
        ),
        // refused before any point runs: the first (sliced) one would take minutes
        (
            "title = \"x\"\n[base]\ntopology = \"fat-tree:k=4\"\n[base.workload]\nmeasure_us = 1e6\n[sweep]\naddressing = [\"sliced\", \"transit\"]\n",
            "transit tables of `fat-tree:k=4`",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let f = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&f, text).unwrap();
        let (code, _, err) = testbed(&["study", f.to_str().unwrap()]);
        assert_ne!(code, 0, "{text}");
        assert!(err.contains(want), "{text}: {err}");
    }
}

#[test]
fn every_study_in_the_tree_reads() {
    use canopy_testbed::study::{Axis, Study};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../studies");
    let mut stack = vec![root];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                let name = p.display().to_string();
                let s = Study::parse(&name, &std::fs::read_to_string(&p).unwrap())
                    .unwrap_or_else(|e| panic!("{e}"));
                let pts = s.points();
                assert!(!pts.is_empty(), "{name}");
                // every point of a case sweep carries its case's name
                if !s.sweep.case.is_empty() {
                    assert!(pts
                        .iter()
                        .all(|p| p.at.iter().any(|(a, v)| *a == Axis::Case && !v.is_empty())));
                }
                n += 1;
            }
        }
    }
    assert!(n >= 8, "{n} study files");
}

#[test]
fn cases_set_their_fields_and_facets_split_the_plots() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_study(
        dir.path(),
        r#"
title = "cases"
[base]
topology = "fat-tree:k=4"
[base.workload]
payload = { fixed = 100 }
measure_us = 50.0
[sweep]
case = [
  { name = "SF", switching = "store-and-forward", buffer = 1, injection = "spread" },
  { name = "VCT dst", switching = "cut-through", addressing = "sliced/dst" },
]
pattern = ["uniform", "neighbour"]
load = [0.2, 0.4]
[plot]
y = ["delay"]
facet = "pattern"
"#,
        &[],
    );
    let csv = std::fs::read_to_string(out.join("points.csv")).unwrap();
    let sf: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",store-and-forward,"))
        .collect();
    assert_eq!(sf.len(), 4, "{csv}");
    assert!(
        sf.iter()
            .all(|l| l.contains(",sliced,") && l.contains(",1,") && l.contains(",spread,")),
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.contains(",sliced/dst,")).count(),
        4
    );
    for f in ["delay-uniform.svg", "delay-neighbour.svg"] {
        let s = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(s.contains("case=VCT dst") && !s.contains("pattern="), "{f}");
    }
}

#[test]
fn the_example_in_the_model_notes_reads() {
    // docs/des.md's description of every key, as a user would copy it
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/des.md"),
    )
    .unwrap();
    let start = doc.find("```toml\n").expect("a TOML block") + "```toml\n".len();
    let len = doc[start..].find("```").unwrap();
    let s = canopy_testbed::study::Study::parse("docs/des.md", &doc[start..start + len])
        .unwrap_or_else(|e| panic!("{e}"));
    // 2 cases × 2 patterns × 5 loads
    assert_eq!(s.points().len(), 20);
}
