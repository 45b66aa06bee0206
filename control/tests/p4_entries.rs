//! `canopyctl p4-entries`: every port, group, label, direction and LPM entry of a
//! switch's tables appears in both output formats, read back into tables that equal the
//! originals; the LPM encoding (ternary + range + priority) selects the same entry as
//! the Rust table's lookup; output is deterministic.

use std::collections::BTreeMap;
use std::process::Command;

use canopy_control::kinds;
use canopy_control::p4::{self, Op};
use canopy_control::topology::build_str;
use canopy_dataplane::table::pathid::Action as PidAction;
use canopy_dataplane::table::transit::{DirTarget, Rn1Mode};
use canopy_dataplane::table::{PortDir, PortRole, SwitchTables};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use rand::{Rng, SeedableRng};
use serde_json::Value;

const SPECS: &[(&str, Kind, Option<Mode>)] = &[
    ("fat-tree:k=4", Kind::Sliced, None),
    ("fat-tree:k=4", Kind::PathId, None),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, None),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, Some(Mode::Dst)),
    (
        "znode:z=3,2,3;r=1,3,6;m=2",
        Kind::Sliced,
        Some(Mode::SrcDst),
    ),
    ("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, Some(Mode::Flat)),
    ("transit-hybrid:leaf=12;layers=1", Kind::Transit, None),
];

fn tables(spec: &str, kind: Kind, mode: Option<Mode>) -> Vec<SwitchTables> {
    let t = build_str(spec).unwrap();
    match mode {
        Some(m) => kinds::sliced::tables_mode(&t, m).unwrap(),
        None => kinds::tables(&t, kind).unwrap(),
    }
}

/// Where a lookup sends a frame, as the P4 program sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Port(u64),
    Group(u64),
}

/// One pathid_lpm entry read back: (value, mask, lo, hi, priority, down, target).
type Lpm = (u64, u64, u64, u64, u64, u64, Target);

/// The state a replay of the entries builds (what the switch would hold).
#[derive(Debug, Default, PartialEq)]
struct Model {
    ports: BTreeMap<u64, (u64, u64)>,
    /// fwd_group key -> ports of its selector group (None: the group_empty member).
    groups: BTreeMap<u64, Option<Vec<u64>>>,
    sliced_cfg: Option<Vec<u64>>,
    sliced_down: BTreeMap<u64, Target>,
    sliced_side: BTreeMap<u64, Target>,
    transit_split: Option<u64>,
    transit_dir: BTreeMap<(u64, u64), (Target, u64, u64)>,
    pathid_leaf: Option<u64>,
    lpm: Vec<Lpm>,
    hosts: BTreeMap<u64, Target>,
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// Replay `simple_switch_CLI` commands the way bmv2 assigns handles (from 0).
fn replay_cli(cli: &str) -> Model {
    let mut m = Model::default();
    let mut members: Vec<(u64, u64, u64)> = Vec::new();
    let strip = |s: &str| s.strip_prefix("CanopyIngress.").unwrap().to_string();
    for line in cli.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "table_set_default" => {
                let params: Vec<u64> = w[3..].iter().map(|s| num(s)).collect();
                match (strip(w[1]).as_str(), strip(w[2]).as_str()) {
                    ("sliced_cfg", "set_sliced_cfg") => m.sliced_cfg = Some(params),
                    ("transit_cfg", "set_transit_cfg") => m.transit_split = Some(params[0]),
                    ("pathid_cfg", "set_pathid_cfg") => m.pathid_leaf = Some(params[0]),
                    (t, a) => panic!("default {t} {a}"),
                }
            }
            "table_add" => {
                let (table, action) = (strip(w[1]), strip(w[2]));
                let arrow = w.iter().position(|x| *x == "=>").unwrap();
                let key = &w[3..arrow];
                let params: Vec<u64> = w[arrow + 1..].iter().map(|s| num(s)).collect();
                let target = |a: &str, p: &[u64]| match a {
                    "to_group" => Target::Group(p[0]),
                    "to_port" => Target::Port(p[0]),
                    _ => panic!("{a}"),
                };
                let dup = match table.as_str() {
                    "fwd_group" => {
                        let v = match action.as_str() {
                            "set_group" => Some(vec![u64::MAX; params[0] as usize]),
                            "group_empty" => None,
                            a => panic!("{a}"),
                        };
                        m.groups.insert(num(key[0]), v).is_some()
                    }
                    "fwd_member" => {
                        assert_eq!(action, "set_egress");
                        members.push((num(key[0]), num(key[1]), params[0]));
                        false
                    }
                    "canopy_port" => {
                        assert_eq!(action, "set_port_info");
                        m.ports
                            .insert(num(key[0]), (params[0], params[1]))
                            .is_some()
                    }
                    "sliced_down" => m
                        .sliced_down
                        .insert(num(key[0]), target(&action, &params))
                        .is_some(),
                    "sliced_side" => m
                        .sliced_side
                        .insert(num(key[0]), target(&action, &params))
                        .is_some(),
                    "pathid_host" => m
                        .hosts
                        .insert(num(key[0]), target(&action, &params))
                        .is_some(),
                    "transit_dir" => {
                        let t = match action.as_str() {
                            "dir_port" => Target::Port(params[0]),
                            "dir_group" => Target::Group(params[0]),
                            a => panic!("{a}"),
                        };
                        m.transit_dir
                            .insert((num(key[0]), num(key[1])), (t, params[1], params[2]))
                            .is_some()
                    }
                    "pathid_lpm" => {
                        let (v, mask) = key[0].split_once("&&&").unwrap();
                        let (lo, hi) = key[1].split_once("->").unwrap();
                        let t = match action.as_str() {
                            "pid_port" => Target::Port(params[1]),
                            "pid_group" => Target::Group(params[1]),
                            a => panic!("{a}"),
                        };
                        m.lpm
                            .push((num(v), num(mask), num(lo), num(hi), params[2], params[0], t));
                        false
                    }
                    t => panic!("table {t}"),
                };
                assert!(!dup, "{line}: duplicate key");
            }
            c => panic!("unexpected command {c}"),
        }
    }
    fill_members(&mut m, &members);
    m
}

/// Put the fwd_member entries (group, bucket, port) into the groups fwd_group sized;
/// every bucket of every group must be filled exactly once.
fn fill_members(m: &mut Model, members: &[(u64, u64, u64)]) {
    for &(g, b, p) in members {
        let slots = m
            .groups
            .get_mut(&g)
            .and_then(|x| x.as_mut())
            .unwrap_or_else(|| panic!("fwd_member for group {g} without a size"));
        let slot = slots
            .get_mut(b as usize)
            .unwrap_or_else(|| panic!("group {g}: bucket {b} beyond its size"));
        assert_eq!(*slot, u64::MAX, "group {g}: bucket {b} twice");
        *slot = p;
    }
    for (g, v) in &m.groups {
        if let Some(v) = v {
            assert!(!v.contains(&u64::MAX), "group {g}: a bucket has no port");
        }
    }
}

fn b64dec(s: &str) -> u64 {
    let mut bits = 0u32;
    let mut acc = 0u128;
    for c in s.bytes().filter(|&c| c != b'=') {
        let x = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 {s}"),
        };
        acc = (acc << 6) | u128::from(x);
        bits += 6;
    }
    // drop the padding bits that do not make a whole byte
    (acc >> (bits % 8)) as u64
}

/// Replay P4Runtime entities (member/group ids are ours, p4info names in place of ids).
fn replay_p4rt(doc: &Value) -> Model {
    let mut m = Model::default();
    let mut members: Vec<(u64, u64, u64)> = Vec::new();
    let name = |v: &Value| {
        v.as_str()
            .unwrap()
            .strip_prefix("CanopyIngress.")
            .unwrap()
            .to_string()
    };
    let params = |a: &Value| -> Vec<u64> {
        a["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| b64dec(p["value"].as_str().unwrap()))
            .collect()
    };
    for e in doc["entities"].as_array().unwrap() {
        {
            let t = &e["tableEntry"];
            let table = name(&t["tableId"]);
            let a = &t["action"];
            if t["isDefaultAction"].as_bool() == Some(true) {
                let p = params(&a["action"]);
                match table.as_str() {
                    "sliced_cfg" => m.sliced_cfg = Some(p),
                    "transit_cfg" => m.transit_split = Some(p[0]),
                    "pathid_cfg" => m.pathid_leaf = Some(p[0]),
                    t => panic!("{t}"),
                }
                continue;
            }
            let key = t["match"].as_array().unwrap();
            let ex = |i: usize| b64dec(key[i]["exact"]["value"].as_str().unwrap());
            let act = name(&a["action"]["actionId"]);
            let p = params(&a["action"]);
            let target = || match act.as_str() {
                "to_group" => Target::Group(p[0]),
                "to_port" => Target::Port(p[0]),
                x => panic!("{x}"),
            };
            let dup = match table.as_str() {
                "fwd_group" => {
                    let v = match act.as_str() {
                        "set_group" => Some(vec![u64::MAX; p[0] as usize]),
                        "group_empty" => None,
                        x => panic!("{x}"),
                    };
                    m.groups.insert(ex(0), v).is_some()
                }
                "fwd_member" => {
                    members.push((ex(0), ex(1), p[0]));
                    false
                }
                "canopy_port" => m.ports.insert(ex(0), (p[0], p[1])).is_some(),
                "sliced_down" => m.sliced_down.insert(ex(0), target()).is_some(),
                "sliced_side" => m.sliced_side.insert(ex(0), target()).is_some(),
                "pathid_host" => m.hosts.insert(ex(0), target()).is_some(),
                "transit_dir" => {
                    let tg = if act == "dir_port" {
                        Target::Port(p[0])
                    } else {
                        Target::Group(p[0])
                    };
                    m.transit_dir
                        .insert((ex(0), ex(1)), (tg, p[1], p[2]))
                        .is_some()
                }
                "pathid_lpm" => {
                    let tn = &key[0]["ternary"];
                    let rg = &key[1]["range"];
                    let tg = if act == "pid_port" {
                        Target::Port(p[1])
                    } else {
                        Target::Group(p[1])
                    };
                    m.lpm.push((
                        b64dec(tn["value"].as_str().unwrap()),
                        b64dec(tn["mask"].as_str().unwrap()),
                        b64dec(rg["low"].as_str().unwrap()),
                        b64dec(rg["high"].as_str().unwrap()),
                        t["priority"].as_u64().unwrap(),
                        p[0],
                        tg,
                    ));
                    false
                }
                x => panic!("{x}"),
            };
            assert!(!dup, "duplicate key in {table}");
        }
    }
    fill_members(&mut m, &members);
    m
}

fn tgt_group(g: u16) -> Target {
    Target::Group(u64::from(g))
}

/// What the replayed model must hold for `sw` (independent of the generator's code).
fn check_model(sw: &SwitchTables, m: &Model, what: &str) {
    let ctx = format!("{} ({what})", sw.name);
    // every receive-capable port with its role; transmit-only ports absent
    let mut want_ports = BTreeMap::new();
    for (i, p) in sw.ports.iter().enumerate() {
        if p.dir == PortDir::Out {
            continue;
        }
        let role = match p.role {
            PortRole::Up => 0,
            PortRole::Down => 1,
            PortRole::Side => 2,
        };
        let swallow = sw
            .transit
            .as_ref()
            .map(|t| i < 8 && t.config.swallow[i])
            .unwrap_or(false);
        want_ports.insert(i as u64, (role, u64::from(swallow)));
    }
    assert_eq!(m.ports, want_ports, "{ctx}: ports");
    // every group, with exactly its ports
    let want_groups: BTreeMap<u64, Option<Vec<u64>>> = sw
        .groups
        .iter()
        .enumerate()
        .map(|(g, ps)| {
            let v = if ps.is_empty() {
                None
            } else {
                Some(ps.iter().map(|&p| u64::from(p)).collect())
            };
            (g as u64, v)
        })
        .collect();
    assert_eq!(m.groups, want_groups, "{ctx}: groups");

    match &sw.sliced {
        Some(t) => {
            let cfg = m.sliced_cfg.as_ref().expect("sliced_cfg default");
            let want = vec![
                t.mode as u64,
                u64::from(t.level),
                u64::from(t.sid),
                u64::from(t.m),
                u64::from(t.a),
                u64::from(t.b),
                u64::from(t.z),
                u64::from(t.label_shift),
                u64::from(t.zone_shift),
                u64::from(t.znode_shift),
                u64::from(t.addr_bits),
                t.zone,
                u64::from(t.up.is_some()),
                u64::from(t.up.unwrap_or(0)),
            ];
            assert_eq!(cfg, &want, "{ctx}: sliced_cfg");
            let down: BTreeMap<u64, Target> = t
                .down
                .iter()
                .enumerate()
                .filter_map(|(c, g)| g.map(|g| (c as u64, tgt_group(g))))
                .collect();
            assert_eq!(m.sliced_down, down, "{ctx}: sliced_down");
            let side: BTreeMap<u64, Target> = t
                .side
                .iter()
                .enumerate()
                .filter_map(|(k, g)| g.map(|g| (k as u64, tgt_group(g))))
                .collect();
            assert_eq!(m.sliced_side, side, "{ctx}: sliced_side");
        }
        None => {
            assert!(m.sliced_cfg.is_none() && m.sliced_down.is_empty() && m.sliced_side.is_empty())
        }
    }

    match &sw.transit {
        Some(t) => {
            let split = t.config.mode == Rn1Mode::Split;
            assert_eq!(m.transit_split, Some(u64::from(split)), "{ctx}");
            let mut want = BTreeMap::new();
            for half in 0..if split { 2 } else { 1 } {
                for d in 0..4 {
                    let e = t.dirs[half][d];
                    let tg = match e.target {
                        DirTarget::None => continue,
                        DirTarget::Port(p) => Target::Port(u64::from(p)),
                        DirTarget::Group(g) => tgt_group(g),
                    };
                    want.insert(
                        (half as u64, d as u64),
                        (tg, u64::from(e.rot), u64::from(e.delay)),
                    );
                }
            }
            assert_eq!(m.transit_dir, want, "{ctx}: transit_dir");
        }
        None => assert!(m.transit_split.is_none() && m.transit_dir.is_empty()),
    }

    match &sw.pathid {
        Some(t) => {
            assert_eq!(m.pathid_leaf, Some(u64::from(t.leaf)), "{ctx}");
            assert_eq!(m.lpm.len(), t.entries().len(), "{ctx}: one LPM entry each");
            for e in t.entries() {
                let len = u32::from(e.len);
                let (v, mask) = if len == 0 {
                    (0, 0)
                } else {
                    (e.value << (64 - len), u64::MAX << (64 - len))
                };
                let tg = match e.action {
                    PidAction::Port(p) => Target::Port(u64::from(p)),
                    PidAction::Group(g) => tgt_group(g),
                };
                assert!(
                    m.lpm.iter().any(|l| (l.0, l.1, l.2, l.3, l.5, l.6)
                        == (v, mask, u64::from(e.len), 64, u64::from(e.down), tg)),
                    "{ctx}: LPM entry {:#x}/{} missing",
                    e.value,
                    e.len
                );
            }
            let hosts: BTreeMap<u64, Target> = t
                .hosts()
                .iter()
                .map(|h| {
                    let tg = match h.action {
                        PidAction::Port(p) => Target::Port(u64::from(p)),
                        PidAction::Group(g) => tgt_group(g),
                    };
                    (u64::from(h.label), tg)
                })
                .collect();
            assert_eq!(m.hosts, hosts, "{ctx}: hosts");
        }
        None => assert!(m.pathid_leaf.is_none() && m.lpm.is_empty() && m.hosts.is_empty()),
    }
}

/// The ternary+range lookup as a target does it: among matching entries, the best
/// priority (`min_wins` for bmv2's own API, max for P4Runtime).
fn lpm_lookup(lpm: &[Lpm], id: u64, id_len: u64, min_wins: bool) -> Option<(u64, Target)> {
    let hits = lpm
        .iter()
        .filter(|l| id & l.1 == l.0 && (l.2..=l.3).contains(&id_len));
    let best = if min_wins {
        hits.min_by_key(|l| l.4)
    } else {
        hits.max_by_key(|l| l.4)
    };
    best.map(|l| (l.5, l.6))
}

fn check_lpm_semantics(sw: &SwitchTables, m: &Model, min_wins: bool, rng: &mut impl Rng) {
    let Some(t) = &sw.pathid else { return };
    let mut probes: Vec<(u64, u8)> = Vec::new();
    // every entry's own prefix at its length and longer, plus random IDs
    for e in t.entries() {
        for extra in 0..3u8 {
            let len = (e.len + extra).clamp(1, 64);
            let base = if e.len == 0 {
                0
            } else {
                e.value << (64 - u32::from(e.len))
            };
            let noise: u64 = rng.gen();
            let keep = if len >= 64 {
                u64::MAX
            } else {
                !(u64::MAX >> len)
            };
            probes.push(((base | (noise & !base_mask(e.len))) & keep, len));
            // shorter than the entry: must not match it
            if e.len > 1 {
                let l = e.len - 1;
                probes.push((base & !(u64::MAX >> l), l));
            }
        }
    }
    for _ in 0..200 {
        let len: u8 = rng.gen_range(1..=8);
        let id: u64 = rng.gen::<u64>() & !(u64::MAX >> len);
        probes.push((id, len));
    }
    for (id, len) in probes {
        let want = t.lookup(id, len).map(|e| {
            let tg = match e.action {
                PidAction::Port(p) => Target::Port(u64::from(p)),
                PidAction::Group(g) => tgt_group(g),
            };
            (u64::from(e.down), tg)
        });
        let got = lpm_lookup(&m.lpm, id, u64::from(len), min_wins);
        assert_eq!(got, want, "{}: id {id:#x}/{len}", sw.name);
    }
}

fn base_mask(len: u8) -> u64 {
    if len == 0 {
        0
    } else {
        u64::MAX << (64 - u32::from(len))
    }
}

#[test]
fn both_formats_carry_every_entry_of_every_switch() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for &(spec, kind, mode) in SPECS {
        let all = tables(spec, kind, mode);
        assert!(!all.is_empty());
        for sw in &all {
            let ops = p4::entries(sw).unwrap();
            let cli = p4::bmv2_cli(&ops);
            let m = replay_cli(&cli);
            check_model(sw, &m, &format!("{spec} {kind:?} bmv2-cli"));
            check_lpm_semantics(sw, &m, true, &mut rng);
            let doc = p4::p4runtime(&sw.name, &ops);
            // the JSON is what `canopyctl` prints: round-trip it through text
            let doc: Value = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
            assert_eq!(doc["dropCounter"], p4::DROP_COUNTER);
            let m2 = replay_p4rt(&doc);
            check_model(sw, &m2, &format!("{spec} {kind:?} p4runtime"));
            check_lpm_semantics(sw, &m2, false, &mut rng);
        }
    }
}

#[test]
fn output_is_deterministic() {
    for &(spec, kind, mode) in SPECS {
        let a = tables(spec, kind, mode);
        let b = tables(spec, kind, mode);
        for (x, y) in a.iter().zip(&b) {
            let (ox, oy) = (p4::entries(x).unwrap(), p4::entries(y).unwrap());
            assert_eq!(p4::bmv2_cli(&ox), p4::bmv2_cli(&oy));
            assert_eq!(p4::p4runtime(&x.name, &ox), p4::p4runtime(&y.name, &oy));
        }
    }
}

#[test]
fn the_sliced_tables_of_the_s1_path_are_nonempty() {
    // the switches the S1 vectors of wire-format.md §4.6 cross carry up, side and down entries
    let all = tables("znode:z=3,2,3;r=1,3,6;m=2", Kind::Sliced, None);
    let ops: Vec<Op> = all.iter().flat_map(|s| p4::entries(s).unwrap()).collect();
    let count = |t: &str| {
        ops.iter()
            .filter(|o| matches!(o, Op::Add { table, .. } if *table == t))
            .count()
    };
    assert!(count("sliced_down") > 0 && count("sliced_side") > 0);
    assert!(all
        .iter()
        .any(|s| s.sliced.as_ref().is_some_and(|t| t.up.is_none())));
}

fn canopyctl(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_canopyctl"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_prints_the_library_output() {
    let spec = "fat-tree:k=4";
    let t = tables(spec, Kind::PathId, None);
    let sw = &t[0];
    let ops = p4::entries(sw).unwrap();
    let o = canopyctl(&[
        "p4-entries",
        spec,
        "--kind",
        "path-id",
        "--switch",
        &sw.name,
        "--format",
        "bmv2-cli",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.ends_with(&p4::bmv2_cli(&ops)));
    assert!(out.contains(p4::DROP_COUNTER));
    let o = canopyctl(&[
        "p4-entries",
        spec,
        "--kind",
        "path-id",
        "--switch",
        &sw.name,
        "--format",
        "p4runtime",
    ]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["entities"], p4::p4runtime(&sw.name, &ops)["entities"]);
}

#[test]
fn cli_rejects_bad_input_without_panicking() {
    for args in [
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "sliced",
            "--switch",
            "nope",
        ][..],
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "sliced",
            "--switch",
            "edge-p0-e0",
            "--format",
            "yaml",
        ],
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "path-id",
            "--switch",
            "edge-p0-e0",
            "--mode",
            "dst",
        ],
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "bogus",
            "--switch",
            "x",
        ],
    ] {
        let o = canopyctl(args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.is_empty());
    }
}

/// A table of the P4 source: its key fields (name, match kind) in order.
type P4Tables = BTreeMap<String, Vec<(String, String)>>;
/// An action of the P4 source: its parameters (name, type) in order.
type P4Actions = BTreeMap<String, Vec<(String, String)>>;

/// Tables and actions declared in a P4 source (the subset of the grammar canopy*.p4 use).
fn p4_decls(src: &str) -> (P4Tables, P4Actions) {
    let mut tables = BTreeMap::new();
    let mut actions = BTreeMap::new();
    let mut rest = src;
    while let Some(i) = rest.find("\n    action ") {
        rest = &rest[i + 12..];
        let Some(open) = rest.find('(') else { break };
        let name = rest[..open].trim().to_string();
        let close = rest.find(')').unwrap();
        let params: Vec<(String, String)> = rest[open + 1..close]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (ty, n) = p.rsplit_once(char::is_whitespace).unwrap();
                (n.trim().to_string(), ty.trim().to_string())
            })
            .collect();
        if !name.contains(char::is_whitespace) {
            actions.insert(name, params);
        }
    }
    let mut rest = src;
    while let Some(i) = rest.find("\n    table ") {
        rest = &rest[i + 11..];
        let brace = rest.find('{').unwrap();
        let name = rest[..brace].trim().to_string();
        let end = rest.find("\n    }").unwrap();
        let body = &rest[brace..end];
        let mut keys = Vec::new();
        if let Some(k) = body.find("key = {") {
            let kb = &body[k + 7..];
            let kb = &kb[..kb.find('}').unwrap()];
            for f in kb.split(';').map(str::trim).filter(|f| !f.is_empty()) {
                let (field, kind) = f.split_once(':').unwrap();
                keys.push((field.trim().to_string(), kind.trim().to_string()));
            }
        }
        tables.insert(name, keys);
    }
    (tables, actions)
}

fn p4_source(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../p4")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every table, key field, action and parameter the generator writes exists in the P4
/// sources with the same order, match kind and width; the drop-reason constants are the
/// positions of DROP_REASON_NAMES; the counter and the selector are declared.
#[test]
fn generator_and_p4_sources_agree_on_names_and_widths() {
    let headers = p4_source("canopy_headers.p4");
    for (i, n) in canopy_dataplane::decide::DROP_REASON_NAMES
        .iter()
        .enumerate()
    {
        let decl = format!("const bit<32> DROP_{} ", n.to_uppercase());
        let at = headers
            .find(&decl)
            .unwrap_or_else(|| panic!("{decl} missing"));
        let line = headers[at..].lines().next().unwrap();
        assert!(line.ends_with(&format!("= {i};")), "{line}");
    }
    assert!(headers.contains("const bit<32> CANOPY_DROPS_SIZE       = 32;"));

    let mut ops = Vec::new();
    for &(spec, kind, mode) in SPECS {
        for sw in tables(spec, kind, mode) {
            ops.extend(p4::entries(&sw).unwrap());
        }
    }
    for file in ["canopy.p4", "canopy_tna.p4"] {
        let src = p4_source(file);
        let tna = file.contains("tna");
        assert!(src.contains(") canopy_drops;"), "{file}: canopy_drops");
        if tna {
            assert!(src.contains(") canopy_sel;"), "{file}: canopy_sel");
        }
        let (tabs, acts) = p4_decls(&src);
        let check_call = |c: &p4::Call| {
            let params = acts
                .get(c.action)
                .unwrap_or_else(|| panic!("{file}: action {} missing", c.action));
            let names: Vec<&str> = params.iter().map(|p| p.0.as_str()).collect();
            let want: Vec<&str> = c.params.iter().map(|p| p.0).collect();
            assert_eq!(names, want, "{file}: parameters of {}", c.action);
            for ((_, ty), (n, v)) in params.iter().zip(&c.params) {
                let ok =
                    *ty == format!("bit<{}>", v.bits) || (tna && ty == "PortId_t" && v.bits == 9);
                assert!(
                    ok,
                    "{file}: {}.{n} is {ty}, generator writes {} bits",
                    c.action, v.bits
                );
            }
        };
        let check_key = |t: &str, key: &[p4::Match]| {
            let fields = tabs
                .get(t)
                .unwrap_or_else(|| panic!("{file}: table {t} missing"));
            let want: Vec<(String, String)> = key
                .iter()
                .map(|m| match m {
                    p4::Match::Exact { field, .. } => (field.to_string(), "exact".to_string()),
                    p4::Match::Ternary { field, .. } => (field.to_string(), "ternary".to_string()),
                    p4::Match::Range { field, .. } => (field.to_string(), "range".to_string()),
                })
                .map(|(f, k)| {
                    let f = if tna {
                        f.replace("standard_metadata.", "ig_intr_md.")
                    } else {
                        f
                    };
                    (f, k)
                })
                .collect();
            let got: Vec<(String, String)> = fields
                .iter()
                .filter(|(_, k)| k != "selector")
                .cloned()
                .collect();
            assert_eq!(got, want, "{file}: key of {t}");
        };
        for op in &ops {
            // TNA keeps a native ActionSelector for the groups (docs/p4.md §5)
            if tna
                && matches!(op, Op::Add { table, .. } if *table == "fwd_group" || *table == "fwd_member")
            {
                continue;
            }
            match op {
                Op::Comment(_) => {}
                Op::SetDefault { table, call } => {
                    check_key(table, &[]);
                    check_call(call);
                }
                Op::Add {
                    table, key, call, ..
                } => {
                    check_key(table, key);
                    check_call(call);
                }
            }
        }
    }
}
