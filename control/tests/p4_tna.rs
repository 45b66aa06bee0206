//! The Tofino program `p4/canopy_tna.p4` and its entries (`canopyctl p4-entries
//! --format bfrt-python`):
//! * always: the TNA entries of every switch of the example fabrics carry the switch's
//!   tables (groups as selector groups, the split sliced configuration with the zone in
//!   place, the labels the program can match, the Transit and path-ID entries of the
//!   v1model program);
//! * always: the program's constant entries, `p4/tna_entries/*.p4`, are exactly what
//!   `canopyctl p4-tna-entries` writes (regenerated in memory, compared line by line);
//! * where the open-source Tofino compiler is installed (`p4c-barefoot`, docs/p4-install.md;
//!   `CANOPY_P4C_BAREFOOT` names it, else `PATH`, else `/opt/p4c-tofino/bin`): the program
//!   compiles for Tofino 1 and 2 without errors within the chip's stages (the back end
//!   reports a placement that needs more stages only through the `.bfa`), and every table,
//!   action, key and data field the bfrt_python output names exists in the BF Runtime
//!   schema it writes. Without the compiler that part says so and is skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_test_utils::Dir;

use canopy_control::p4::tna::{self, const_entries, TnaOp};
use canopy_control::p4::{self, Match, Op};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use serde_json::Value;

mod p4_common;

/// The common fabrics, and a DST-mode Znode whose zones are not all 0.
fn all_tables() -> Vec<(String, SwitchTables)> {
    let extra = ("znode:z=4,4;r=1,4;m=3", Kind::Sliced, Some(Mode::Dst));
    p4_common::SPECS
        .iter()
        .copied()
        .chain([extra])
        .flat_map(|(spec, kind, mode)| {
            p4_common::tables(spec, kind, mode)
                .into_iter()
                .map(move |sw| (format!("{spec} {kind:?} {mode:?}"), sw))
        })
        .collect()
}

fn param(c: &p4::Call, name: &str) -> u64 {
    c.params
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{} has no {name}", c.action))
        .1
        .value
}

/// The TNA entries rebuild every group, label, configuration value and Transit/path-ID
/// entry of the switch's tables.
#[test]
fn tna_entries_carry_every_switch_table() {
    let mut dst_zones = 0;
    for (what, sw) in all_tables() {
        let ops = tna::entries(&sw).unwrap();
        check_groups(&what, &sw, &ops);
        if check_sliced(&what, &sw, &ops) {
            dst_zones += 1;
        }
        check_v1model_entries(&what, &sw, &ops);
    }
    assert!(
        dst_zones > 0,
        "no DST-mode switch with a non-zero zone was checked"
    );
}

/// The selector rebuilds every group: one `fwd_group` entry per group, an empty group at
/// the `group_empty` member, the others at a selector group of exactly their ports.
fn check_groups(what: &str, sw: &SwitchTables, ops: &[TnaOp]) {
    // groups: member ids to ports, selector groups, fwd_group
    let mut members: BTreeMap<u32, Option<u64>> = BTreeMap::new();
    let mut sel: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut fwd: BTreeMap<u64, (u32, bool)> = BTreeMap::new();
    for op in ops {
        match op {
            TnaOp::Member { id, call } => {
                let port = match call.action {
                    "set_egress" => Some(param(call, "port")),
                    "group_empty" => None,
                    a => panic!("{what}: member action {a}"),
                };
                assert!(
                    members.insert(*id, port).is_none(),
                    "{what}: member {id} twice"
                );
            }
            TnaOp::Group { id, members: m } => {
                assert!(m.len() <= tna::MAX_GROUP_SIZE);
                assert!(
                    sel.insert(*id, m.clone()).is_none(),
                    "{what}: group {id} twice"
                );
            }
            TnaOp::Fwd {
                group,
                target,
                member,
            } => {
                assert!(fwd.insert(group.value, (*target, *member)).is_none());
            }
            _ => {}
        }
    }
    assert_eq!(
        fwd.len(),
        sw.groups.len(),
        "{what}: one fwd_group entry per group"
    );
    for (gid, ports) in sw.groups.iter().enumerate() {
        let (target, member) = fwd[&(gid as u64)];
        if ports.is_empty() {
            assert!(member, "{what}: empty group {gid} points at a member");
            assert_eq!(members[&target], None, "{what}: group_empty member");
        } else {
            assert!(!member);
            let got: Vec<u64> = sel[&target].iter().map(|m| members[m].unwrap()).collect();
            let want: Vec<u64> = ports.iter().map(|&p| u64::from(p)).collect();
            assert_eq!(got, want, "{what}: ports of group {gid}");
        }
    }
}

/// The split sliced configuration, the zone in place, and the labels below z and m;
/// whether the switch's zone is non-zero.
fn check_sliced(what: &str, sw: &SwitchTables, ops: &[TnaOp]) -> bool {
    // sliced: the split configuration, the zone in place, the labels below z and m
    let cfg = |table: &str| {
        ops.iter().find_map(|op| match op {
            TnaOp::SetDefault { table: t, call } if *t == table => Some(call.clone()),
            _ => None,
        })
    };
    if let Some(t) = &sw.sliced {
        let c = cfg("sliced_cfg").expect("sliced_cfg");
        assert_eq!(c.action, "set_sliced_cfg");
        assert_eq!(param(&c, "mode"), t.mode as u64);
        assert_eq!(param(&c, "level"), u64::from(t.level));
        assert_eq!(param(&c, "sid"), u64::from(t.sid));
        assert_eq!(param(&c, "m"), u64::from(t.m));
        assert_eq!(param(&c, "a"), u64::from(t.a));
        assert_eq!(param(&c, "b"), u64::from(t.b));
        assert_eq!(param(&c, "z"), u64::from(t.z));
        assert_eq!(param(&c, "has_up"), u64::from(t.up.is_some()));
        assert_eq!(param(&c, "up_group"), u64::from(t.up.unwrap_or(0)));
        let a = cfg("sliced_addr").expect("sliced_addr");
        assert_eq!(param(&a, "label_shift"), u64::from(t.label_shift));
        assert_eq!(param(&a, "zone_shift"), u64::from(t.zone_shift));
        assert_eq!(param(&a, "znode_shift"), u64::from(t.znode_shift));
        assert_eq!(param(&a, "addr_bits"), u64::from(t.addr_bits));
        let placed = (param(&a, "zone_hi") << 32) | param(&a, "zone_lo");
        if t.zone_shift < 64 {
            assert_eq!(placed >> t.zone_shift, t.zone, "{what}: zone in place");
            assert_eq!(placed & ((1u64 << t.zone_shift) - 1), 0);
        }
        // the zone must fit its digits in a valid table
        assert_eq!(
            param(&a, "zone_big"),
            0,
            "{what}: zone wider than its digits"
        );
        let key_of = |table: &str| -> BTreeMap<u64, u64> {
            ops.iter()
                .filter_map(|op| match op {
                    TnaOp::Add {
                        table: tb,
                        key,
                        call,
                        ..
                    } if *tb == table => match &key[..] {
                        [Match::Exact { v, .. }] => {
                            assert_eq!(v.bits, 32, "{what}: {table} key is 32 bits on TNA");
                            Some((v.value, param(call, "group")))
                        }
                        k => panic!("{what}: {table} key {k:?}"),
                    },
                    _ => None,
                })
                .collect()
        };
        let want_down: BTreeMap<u64, u64> = t
            .down
            .iter()
            .enumerate()
            .filter(|(l, g)| g.is_some() && (*l as u64) < u64::from(t.z))
            .map(|(l, g)| (l as u64, u64::from(g.unwrap())))
            .collect();
        assert_eq!(key_of("sliced_down"), want_down, "{what}: sliced_down");
        let want_side: BTreeMap<u64, u64> = t
            .side
            .iter()
            .enumerate()
            .filter(|(k, g)| g.is_some() && (*k as u64) < u64::from(t.m))
            .map(|(k, g)| (k as u64, u64::from(g.unwrap())))
            .collect();
        assert_eq!(key_of("sliced_side"), want_side, "{what}: sliced_side");
        t.zone != 0
    } else {
        assert!(cfg("sliced_cfg").is_none() && cfg("sliced_addr").is_none());
        false
    }
}

/// Transit, path-ID and ports: the v1model entries under TNA's names.
fn check_v1model_entries(what: &str, sw: &SwitchTables, ops: &[TnaOp]) {
    // Transit, path-ID and ports: the v1model entries under TNA's names
    let v1: Vec<(String, String)> = p4::entries(sw)
        .unwrap()
        .into_iter()
        .filter_map(|op| match op {
            Op::Add {
                table, key, call, ..
            } if !matches!(
                table,
                "fwd_group" | "fwd_member" | "sliced_down" | "sliced_side"
            ) =>
            {
                Some((
                    table.to_string(),
                    format!("{:?}{:?}", key_values(&key), call),
                ))
            }
            Op::SetDefault { table, call } if table != "sliced_cfg" => {
                Some((table.to_string(), format!("{call:?}")))
            }
            _ => None,
        })
        .collect();
    let tna: Vec<(String, String)> = ops
        .iter()
        .filter_map(|op| match op {
            TnaOp::Add {
                table, key, call, ..
            } if !matches!(*table, "sliced_down" | "sliced_side") => Some((
                table.to_string(),
                format!("{:?}{:?}", key_values(key), call),
            )),
            TnaOp::SetDefault { table, call }
                if !matches!(*table, "sliced_cfg" | "sliced_addr") =>
            {
                Some((table.to_string(), format!("{call:?}")))
            }
            _ => None,
        })
        .collect();
    assert_eq!(tna, v1, "{what}: ports, Transit and path-ID entries");
}

fn key_values(key: &[Match]) -> Vec<(u64, u64)> {
    key.iter()
        .map(|m| match m {
            Match::Exact { v, .. } => (v.value, u64::MAX),
            Match::Ternary { v, mask, .. } => (v.value, *mask),
            Match::Range { lo, hi, .. } => (lo.value, *hi),
        })
        .collect()
}

/// A table whose down labels reach z, or side labels reach m, gets no entry for them;
/// groups larger than the selector are refused with the switch named.
#[test]
fn unmatchable_labels_are_left_out_and_oversized_groups_refused() {
    let (_, mut sw) = all_tables()
        .into_iter()
        .find(|(_, sw)| sw.sliced.as_ref().is_some_and(|t| t.m > 1))
        .unwrap();
    let t = sw.sliced.as_mut().unwrap();
    let z = t.z as usize;
    t.down.resize(z + 3, Some(0));
    let m = t.m as usize;
    t.side.resize(m + 2, Some(0));
    let ops = tna::entries(&sw).unwrap();
    let labels = |table: &str| -> BTreeSet<u64> {
        ops.iter()
            .filter_map(|op| match op {
                TnaOp::Add { table: tb, key, .. } if *tb == table => match &key[0] {
                    Match::Exact { v, .. } => Some(v.value),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    };
    assert!(labels("sliced_down").iter().all(|&l| l < z as u64));
    assert!(labels("sliced_side").iter().all(|&k| k < m as u64));
    sw.groups[0] = (0..17).collect();
    let err = tna::entries(&sw).unwrap_err().to_string();
    assert!(
        err.contains(&sw.name) && err.contains("max_group_size") && err.contains("limit of 16"),
        "{err}"
    );
}

// ---- the constant entries (canopy_control::p4::tna::const_entries) ----

/// The checked-in `p4/tna_entries/` are byte for byte what the generator writes; a
/// difference names the file, its first differing line and the command that regenerates.
#[test]
fn tna_constant_entries_are_the_generated_ones() {
    match const_entries::check(&repo(const_entries::DIR)) {
        Ok(n) => assert_eq!(n, const_entries::files().len()),
        Err(e) => panic!("{e}"),
    }
}

/// The check fails on a changed line (naming the file, the line and the command), on a
/// missing file and on a stray one; `write` makes a directory the check accepts.
#[test]
fn the_entries_check_finds_any_difference() {
    let scratch = Dir::new("tna-entries");
    let dir = scratch.path("entries");
    assert_eq!(
        const_entries::write(&dir).unwrap(),
        const_entries::files().len()
    );
    const_entries::check(&dir).unwrap();
    let file = dir.join("tna_hc_sliced.p4");
    let text = std::fs::read_to_string(&file).unwrap();
    // one entry edited by hand
    let edited = text.replacen("tna_hc_sliced_set(4);", "tna_hc_sliced_set(5);", 1);
    assert_ne!(edited, text);
    std::fs::write(&file, &edited).unwrap();
    let err = const_entries::check(&dir).unwrap_err().to_string();
    let line = text
        .lines()
        .position(|l| l.ends_with("tna_hc_sliced_set(4);"))
        .unwrap()
        + 1;
    for want in [
        "tna_hc_sliced.p4",
        &format!("line {line} differs"),
        "tna_hc_sliced_set(5);",
        const_entries::COMMAND,
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    // an entry too many at the end
    std::fs::write(&file, format!("{text}            (_, _, _, _, _): x();\n")).unwrap();
    let err = const_entries::check(&dir).unwrap_err().to_string();
    assert!(err.contains("(end of file)"), "{err}");
    std::fs::write(&file, &text).unwrap();
    // a stray file, then a missing one
    std::fs::write(dir.join("tna_old.p4"), "").unwrap();
    let err = const_entries::check(&dir).unwrap_err().to_string();
    assert!(
        err.contains("tna_old.p4") && err.contains("not a generated file"),
        "{err}"
    );
    // write removes it again
    const_entries::write(&dir).unwrap();
    assert!(!dir.join("tna_old.p4").exists());
    std::fs::remove_file(dir.join("tna_dir.p4")).unwrap();
    let err = const_entries::check(&dir).unwrap_err().to_string();
    assert!(err.contains("tna_dir.p4"), "{err}");
}

/// `canopyctl p4-tna-entries --check` accepts the repository's files and exits 1 with the
/// difference on an edited copy; without --check it writes them.
#[test]
fn canopyctl_writes_and_checks_the_entries() {
    let run = |args: &[&std::ffi::OsStr]| {
        let o = Command::new(canopy_test_utils::bin("canopyctl"))
            .arg("p4-tna-entries")
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (o.status.code(), err)
    };
    let repo_dir = repo(const_entries::DIR);
    let (code, err) = run(&["--check".as_ref(), "--dir".as_ref(), repo_dir.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let scratch = Dir::new("tna-cli");
    let dir = scratch.path("cli");
    let (code, err) = run(&["--dir".as_ref(), dir.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let file = dir.join("tna_hl.p4");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("tna_set_hl(16);", "tna_set_hl(17);")).unwrap();
    let (code, err) = run(&["--check".as_ref(), "--dir".as_ref(), dir.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("tna_hl.p4") && err.contains("line 4 differs"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

// ---- with the Tofino compiler ----

fn compiler() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CANOPY_P4C_BAREFOOT") {
        return Some(PathBuf::from(p));
    }
    let on_path = Command::new("p4c-barefoot").arg("--version").output();
    if on_path.is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("p4c-barefoot"));
    }
    let opt = Path::new("/opt/p4c-tofino/bin/p4c-barefoot");
    opt.exists().then(|| opt.to_path_buf())
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Compile for one target; returns the ingress stage count and the BF Runtime schema.
fn compile(p4c: &Path, target: &str, arch: &str, defs: &[&str], out: &Path) -> (usize, Value) {
    std::fs::create_dir_all(out).unwrap();
    let bfrt = out.join("bfrt.json");
    let o = Command::new(p4c)
        .args(["--target", target, "--arch", arch])
        .args(defs)
        .arg("--bf-rt-schema")
        .arg(&bfrt)
        .arg("-o")
        .arg(out)
        .arg(repo("p4/canopy_tna.p4"))
        .output()
        .expect("run p4c-barefoot");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{target}: p4c-barefoot failed:\n{log}");
    assert!(!log.contains("error:"), "{target}: errors:\n{log}");
    let bfa = std::fs::read_to_string(out.join("pipe/canopy_tna.bfa")).expect("the .bfa");
    let stages: BTreeSet<usize> = bfa
        .lines()
        .filter_map(|l| {
            l.strip_prefix("stage ")?
                .strip_suffix(" ingress:")?
                .parse()
                .ok()
        })
        .collect();
    let n = stages.iter().max().map_or(0, |m| m + 1);
    let schema = serde_json::from_str(&std::fs::read_to_string(&bfrt).unwrap()).unwrap();
    (n, schema)
}

/// Names the bfrt_python output uses, per table: (actions with their data fields,
/// key fields, data fields of the table itself).
type Names = BTreeMap<
    String,
    (
        BTreeMap<String, BTreeSet<String>>,
        BTreeSet<String>,
        BTreeSet<String>,
    ),
>;

fn schema_names(schema: &Value) -> Names {
    let py = |s: &str| s.trim_start_matches('$').replace('.', "_");
    let mut out = Names::new();
    for t in schema["tables"].as_array().unwrap() {
        let Some(name) = t["name"]
            .as_str()
            .unwrap()
            .strip_prefix("pipe.CanopyIngress.")
        else {
            continue;
        };
        let mut keys = BTreeSet::new();
        for k in t["key"].as_array().unwrap() {
            let n = py(k["name"].as_str().unwrap());
            match k["match_type"].as_str().unwrap() {
                "Ternary" => {
                    keys.insert(format!("{n}_mask"));
                    keys.insert(n);
                }
                "Range" => {
                    keys.insert(format!("{n}_start"));
                    keys.insert(format!("{n}_end"));
                }
                _ => {
                    keys.insert(n);
                }
            }
        }
        let mut actions = BTreeMap::new();
        for a in t["action_specs"].as_array().into_iter().flatten() {
            let an = a["name"]
                .as_str()
                .unwrap()
                .trim_start_matches("CanopyIngress.");
            let ps = a["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            actions.insert(an.to_string(), ps);
        }
        let mut data = BTreeSet::new();
        for d in t["data"].as_array().into_iter().flatten() {
            let mut push = |x: &Value| {
                if let Some(n) = x["name"].as_str() {
                    data.insert(py(n));
                }
            };
            if let Some(s) = d.get("singleton") {
                push(s);
            }
            for o in d["oneof"].as_array().into_iter().flatten() {
                push(o);
            }
        }
        out.insert(name.to_string(), (actions, keys, data));
    }
    out
}

/// Every `bfrt.canopy_tna.pipe.CanopyIngress.<table>.<method>(<args>)` line resolves:
/// the table exists, an `add_with_A`/`set_default_with_A` action exists in it, and every
/// keyword is a key field, the action's parameter, or one of the table's data fields.
fn check_lines(text: &str, names: &Names, what: &str) -> usize {
    let prefix = format!("bfrt.{}.pipe.CanopyIngress.", tna::PROGRAM);
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let rest = line
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{what}: {line}"));
        let (table, call) = rest.split_once('.').unwrap();
        let (method, args) = call.split_once('(').unwrap();
        let args = args.strip_suffix(')').unwrap();
        let (actions, keys, data) = names
            .get(table)
            .unwrap_or_else(|| panic!("{what}: table {table} not in the schema"));
        let action = method
            .strip_prefix("add_with_")
            .or_else(|| method.strip_prefix("set_default_with_"));
        let params = action.map(|a| {
            actions
                .get(a)
                .unwrap_or_else(|| panic!("{what}: {table} has no action {a}"))
        });
        // split on ", " outside brackets
        let mut depth = 0;
        let mut cur = String::new();
        let mut kws = Vec::new();
        for ch in args.chars() {
            match ch {
                '[' => depth += 1,
                ']' => depth -= 1,
                ',' if depth == 0 => {
                    kws.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        if !cur.trim().is_empty() {
            kws.push(cur);
        }
        for kw in kws {
            let name = kw.trim().split_once('=').unwrap().0;
            let ok = keys.contains(name)
                || data.contains(name)
                || params.is_some_and(|p| p.contains(name))
                || (name == "MATCH_PRIORITY" && keys.contains("MATCH_PRIORITY"));
            assert!(ok, "{what}: {table}.{method}: no field {name} ({line})");
        }
        n += 1;
    }
    n
}

#[test]
fn compiles_for_tofino_within_the_stages_and_the_entries_name_its_schema() {
    let Some(p4c) = compiler() else {
        eprintln!(
            "SKIP: p4c-barefoot (the open-source Tofino compiler) is not installed; \
             docs/p4-install.md builds it, CANOPY_P4C_BAREFOOT names it"
        );
        return;
    };
    let scratch = Dir::new("tna");
    let dir = scratch.root();
    let t1 = dir.join("tofino");
    let t2 = dir.join("tofino2");
    let (s1, schema) = compile(&p4c, "tofino", "tna", &[], &t1);
    assert!(s1 <= 12, "Tofino 1: the ingress needs {s1} stages of 12");
    let (s2, _) = compile(&p4c, "tofino2", "t2na", &["-DCANOPY_T2NA"], &t2);
    assert!(s2 <= 20, "Tofino 2: the ingress needs {s2} stages of 20");
    eprintln!("canopy_tna.p4: Tofino 1 {s1} stages, Tofino 2 {s2} stages");
    let names = schema_names(&schema);
    let mut lines = 0;
    for (what, sw) in all_tables() {
        let text = tna::bfrt_python(&tna::entries(&sw).unwrap());
        lines += check_lines(&text, &names, &what);
    }
    assert!(lines > 100, "only {lines} lines checked");
}
