//! `canopyctl p4-entries`: every port, group, label, direction and LPM entry of a
//! switch's tables appears in both output formats, read back into tables that equal the
//! originals; the LPM encoding (ternary + range + priority) selects the same entry as
//! the Rust table's lookup; output is deterministic.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_control::p4::tna::{self, TnaOp};
use canopy_control::p4::{self, Op};
use canopy_dataplane::table::pathid::Action as PidAction;
use canopy_dataplane::table::transit::{DirTarget, Rn1Mode};
use canopy_dataplane::table::{PortDir, PortRole, SwitchTables};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

#[path = "../p4_common/mod.rs"]
mod p4_common;
use p4_common::{tables, SPECS};

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

/// One update of a WriteRequest with its ids turned back into names through a P4Info.
struct Named {
    default: bool,
    table: String,
    /// match field name -> the FieldMatch's kind member (`exact`, `ternary`, `range`)
    fields: BTreeMap<String, Value>,
    action: String,
    /// parameter name -> value, and the values in P4Info (declaration) order
    params: BTreeMap<String, u64>,
    ordered: Vec<u64>,
    priority: Option<u64>,
}

/// Resolve every id of a `p4.v1.WriteRequest` back to its P4Info name (panics on an id
/// the P4Info does not have: the test fails).
fn unname(doc: &Value, info: &p4::P4Info) -> Vec<Named> {
    let strip = |s: &str| s.strip_prefix("CanopyIngress.").unwrap().to_string();
    let mut out = Vec::new();
    for u in doc["updates"].as_array().unwrap() {
        let t = &u["entity"]["tableEntry"];
        let tid = t["tableId"].as_u64().unwrap();
        let table = info
            .tables
            .iter()
            .find(|x| u64::from(x.preamble.id) == tid)
            .unwrap_or_else(|| panic!("table id {tid}"));
        let default = t["isDefaultAction"].as_bool() == Some(true);
        let want = if default { "MODIFY" } else { "INSERT" };
        assert_eq!(u["type"], want, "{}", table.preamble.name);
        let mut fields = BTreeMap::new();
        for m in t["match"].as_array().into_iter().flatten() {
            let fid = m["fieldId"].as_u64().unwrap();
            let f = table
                .match_fields
                .iter()
                .find(|f| u64::from(f.id) == fid)
                .unwrap();
            let (kind, v) = m
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| *k != "fieldId")
                .unwrap();
            let mut v = v.clone();
            v["kind"] = Value::String(kind.clone());
            assert!(fields.insert(f.name.clone(), v).is_none());
        }
        let a = &t["action"]["action"];
        let aid = a["actionId"].as_u64().unwrap();
        let action = info
            .actions
            .iter()
            .find(|x| u64::from(x.preamble.id) == aid)
            .unwrap_or_else(|| panic!("action id {aid}"));
        let mut params = BTreeMap::new();
        for p in a["params"].as_array().into_iter().flatten() {
            let pid = p["paramId"].as_u64().unwrap();
            let d = action
                .params
                .iter()
                .find(|d| u64::from(d.id) == pid)
                .unwrap();
            params.insert(d.name.clone(), b64dec(p["value"].as_str().unwrap()));
        }
        let ordered = action.params.iter().map(|d| params[&d.name]).collect();
        out.push(Named {
            default,
            table: strip(&table.preamble.name),
            fields,
            action: strip(&action.preamble.name),
            params,
            ordered,
            priority: t["priority"].as_u64(),
        });
    }
    out
}

/// Replay a P4Runtime WriteRequest (ids resolved through `info`).
fn replay_p4rt(doc: &Value, info: &p4::P4Info) -> Model {
    let mut m = Model::default();
    let mut members: Vec<(u64, u64, u64)> = Vec::new();
    for e in unname(doc, info) {
        let p = |n: &str| e.params[n];
        if e.default {
            match e.table.as_str() {
                "sliced_cfg" => m.sliced_cfg = Some(e.ordered.clone()),
                "transit_cfg" => m.transit_split = Some(p("split")),
                "pathid_cfg" => m.pathid_leaf = Some(p("leaf")),
                t => panic!("{t}"),
            }
            continue;
        }
        let ex = |f: &str| {
            let v = &e.fields[f];
            assert_eq!(v["kind"], "exact", "{f}");
            b64dec(v["value"].as_str().unwrap())
        };
        let target = || match e.action.as_str() {
            "to_group" => Target::Group(p("group")),
            "to_port" => Target::Port(p("port")),
            x => panic!("{x}"),
        };
        let dup = match e.table.as_str() {
            "fwd_group" => {
                let v = match e.action.as_str() {
                    "set_group" => Some(vec![u64::MAX; p("size") as usize]),
                    "group_empty" => None,
                    x => panic!("{x}"),
                };
                m.groups.insert(ex("meta.group"), v).is_some()
            }
            "fwd_member" => {
                assert_eq!(e.action, "set_egress");
                members.push((ex("meta.group"), ex("meta.bucket"), p("port")));
                false
            }
            "canopy_port" => m
                .ports
                .insert(
                    ex("standard_metadata.ingress_port"),
                    (p("role"), p("swallow")),
                )
                .is_some(),
            "sliced_down" => m.sliced_down.insert(ex("meta.label"), target()).is_some(),
            "sliced_side" => m.sliced_side.insert(ex("meta.side_k"), target()).is_some(),
            "pathid_host" => m
                .hosts
                .insert(ex("hdr.pathid.host_label"), target())
                .is_some(),
            "transit_dir" => {
                let tg = match e.action.as_str() {
                    "dir_port" => Target::Port(p("port")),
                    "dir_group" => Target::Group(p("group")),
                    x => panic!("{x}"),
                };
                m.transit_dir
                    .insert(
                        (ex("meta.tr_half"), ex("meta.tr_dir")),
                        (tg, p("rot"), p("delay")),
                    )
                    .is_some()
            }
            "pathid_lpm" => {
                // an omitted field is "don't care": mask 0, or the whole 8-bit range
                let (v, mask) = match e.fields.get("hdr.pathid.id") {
                    Some(t) => {
                        assert_eq!(t["kind"], "ternary");
                        (
                            b64dec(t["value"].as_str().unwrap()),
                            b64dec(t["mask"].as_str().unwrap()),
                        )
                    }
                    None => (0, 0),
                };
                let (lo, hi) = match e.fields.get("hdr.pathid.id_len") {
                    Some(r) => {
                        assert_eq!(r["kind"], "range");
                        (
                            b64dec(r["low"].as_str().unwrap()),
                            b64dec(r["high"].as_str().unwrap()),
                        )
                    }
                    None => (0, 255),
                };
                let tg = match e.action.as_str() {
                    "pid_port" => Target::Port(p("port")),
                    "pid_group" => Target::Group(p("group")),
                    x => panic!("{x}"),
                };
                let prio = e.priority.expect("pathid_lpm priority");
                m.lpm.push((v, mask, lo, hi, prio, p("down"), tg));
                false
            }
            x => panic!("{x}"),
        };
        assert!(!dup, "duplicate key in {}", e.table);
    }
    fill_members(&mut m, &members);
    m
}

/// A P4Info made up from what the generator writes (ids chosen here, widths and match
/// kinds from the entries): lets the P4Runtime output be replayed where p4c is absent.
/// The real P4Info is used by `p4runtime_requests_of_every_switch_pass_the_checker`.
fn synth_p4info(ops: &[Op]) -> Value {
    type Fields = Vec<(String, u32, &'static str)>;
    let mut tables: BTreeMap<&str, (Fields, BTreeSet<&str>)> = BTreeMap::new();
    let mut actions: BTreeMap<&str, Vec<(&str, u32)>> = BTreeMap::new();
    let mut note = |table: &'static str, key: Fields, c: &p4::Call| {
        let t = tables.entry(table).or_default();
        if t.0.is_empty() {
            t.0 = key;
        }
        t.1.insert(c.action);
        actions
            .entry(c.action)
            .or_insert_with(|| c.params.iter().map(|(n, v)| (*n, v.bits)).collect());
    };
    for op in ops {
        match op {
            Op::Comment(_) => {}
            Op::SetDefault { table, call } => note(table, vec![], call),
            Op::Add {
                table, key, call, ..
            } => {
                let k = key
                    .iter()
                    .map(|m| match m {
                        p4::Match::Exact { field, v } => (field.to_string(), v.bits, "EXACT"),
                        p4::Match::Ternary { field, v, .. } => {
                            (field.to_string(), v.bits, "TERNARY")
                        }
                        p4::Match::Range { field, lo, .. } => (field.to_string(), lo.bits, "RANGE"),
                    })
                    .collect();
                note(table, k, call)
            }
        }
    }
    let aid: BTreeMap<&str, u32> = actions
        .keys()
        .enumerate()
        .map(|(i, a)| (*a, 500 + i as u32))
        .collect();
    let tabs: Vec<Value> = tables
        .iter()
        .enumerate()
        .map(|(i, (name, (fields, acts)))| {
            json!({
                "preamble": {"id": 100 + i, "name": format!("CanopyIngress.{name}")},
                "matchFields": fields.iter().enumerate().map(|(j, (n, b, k))| json!({
                    "id": j + 1, "name": n, "bitwidth": b, "matchType": k})).collect::<Vec<_>>(),
                "actionRefs": acts.iter().map(|a| json!({"id": aid[a]})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let acts: Vec<Value> = actions
        .iter()
        .map(|(name, params)| {
            json!({
                "preamble": {"id": aid[name], "name": format!("CanopyIngress.{name}")},
                "params": params.iter().enumerate().map(|(j, (n, b))| json!({
                    "id": j + 1, "name": n, "bitwidth": b})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "pkgInfo": {"arch": "v1model"},
        "tables": tabs,
        "actions": acts,
        "counters": [{"preamble": {"id": 900, "name": p4::DROP_COUNTER}, "size": "32"}]
    })
}

/// The made-up P4Info of every switch of SPECS.
fn synth_all() -> (Value, p4::P4Info) {
    let mut ops = Vec::new();
    let mut tna_ops = Vec::new();
    for &(spec, kind, mode) in SPECS {
        for sw in tables(spec, kind, mode) {
            ops.extend(p4::entries(&sw).unwrap());
            tna_ops.extend(tna::entries(&sw).unwrap());
        }
    }
    let v = synth_p4info(&ops);
    let info = p4::P4Info::from_json(&v.to_string(), "synth").unwrap();
    (v, info)
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
    let (_, info) = synth_all();
    for &(spec, kind, mode) in SPECS {
        let all = tables(spec, kind, mode);
        assert!(!all.is_empty());
        for sw in &all {
            let ops = p4::entries(sw).unwrap();
            let cli = p4::bmv2_cli(&ops);
            let m = replay_cli(&cli);
            check_model(sw, &m, &format!("{spec} {kind:?} bmv2-cli"));
            check_lpm_semantics(sw, &m, true, &mut rng);
            let doc = p4::p4runtime(&sw.name, &ops, &info, 0).unwrap();
            // the JSON is what `canopyctl` prints: round-trip it through text
            let doc: Value = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
            let m2 = replay_p4rt(&doc, &info);
            check_model(sw, &m2, &format!("{spec} {kind:?} p4runtime"));
            check_lpm_semantics(sw, &m2, false, &mut rng);
        }
    }
}

#[test]
fn output_is_deterministic() {
    let (_, info) = synth_all();
    for &(spec, kind, mode) in SPECS {
        let a = tables(spec, kind, mode);
        let b = tables(spec, kind, mode);
        for (x, y) in a.iter().zip(&b) {
            let (ox, oy) = (p4::entries(x).unwrap(), p4::entries(y).unwrap());
            assert_eq!(p4::bmv2_cli(&ox), p4::bmv2_cli(&oy));
            assert_eq!(
                p4::p4runtime(&x.name, &ox, &info, 0),
                p4::p4runtime(&y.name, &oy, &info, 0)
            );
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

/// A directory under the system temp dir, removed on drop (also when a test fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("prt-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    fn write(&self, name: &str, v: &Value) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn cli_prints_the_library_output() {
    let spec = "fat-tree:k=4";
    let t = tables(spec, Kind::PathId, None);
    let sw = &t[0];
    let ops = p4::entries(sw).unwrap();
    let base = [
        "p4-entries",
        spec,
        "--kind",
        "path-id",
        "--switch",
        &sw.name,
    ];
    let o = canopyctl(&[&base[..], &["--format", "bmv2-cli"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.ends_with(&p4::bmv2_cli(&ops)));
    assert!(out.contains(p4::DROP_COUNTER));

    let dir = TempDir::new("cli");
    let (v, info) = synth_all();
    let path = dir.write("synth.p4info.json", &v);
    let path = path.to_str().unwrap();
    let o = canopyctl(
        &[
            &base[..],
            &[
                "--format",
                "p4runtime",
                "--p4info",
                path,
                "--device-id",
                "3",
            ],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got, p4::p4runtime(&sw.name, &ops, &info, 3).unwrap());
    assert_eq!(got["deviceId"], "3");
    // the comments (drop counter) go to stderr, stdout is the bare WriteRequest
    assert!(String::from_utf8_lossy(&o.stderr).contains(p4::DROP_COUNTER));

    // p4runtime without a P4Info: refused, saying how to get one
    let o = canopyctl(&[&base[..], &["--format", "p4runtime"]].concat());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--p4info") && err.contains("--p4runtime-files"),
        "{err}"
    );
    // the text form of the P4Info: refused, asking for the JSON form
    let o = canopyctl(&[&base[..], &["--format", "p4runtime", "--p4info", "x.txtpb"]].concat());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a JSON P4Info") && err.contains(".json"),
        "{err}"
    );
    // a P4Info without a table the entries need: a typed error naming it
    let mut small = v.clone();
    small["tables"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["preamble"]["name"] != "CanopyIngress.pathid_lpm");
    let path = dir.write("small.p4info.json", &small);
    let o = canopyctl(
        &[
            &base[..],
            &["--format", "p4runtime", "--p4info", path.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("table CanopyIngress.pathid_lpm is not in the P4Info")
            && !err.contains("panicked"),
        "{err}"
    );
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
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "sliced",
            "--switch",
            "edge-p0-e0",
            "--format",
            "p4runtime",
            "--p4info",
            "/nonexistent/canopy.p4info.json",
        ],
        &[
            "p4-entries",
            "fat-tree:k=4",
            "--kind",
            "sliced",
            "--switch",
            "edge-p0-e0",
            "--p4info",
            "/nonexistent/canopy.p4info.json",
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
    let mut tna_ops = Vec::new();
    for &(spec, kind, mode) in SPECS {
        for sw in tables(spec, kind, mode) {
            ops.extend(p4::entries(&sw).unwrap());
            tna_ops.extend(tna::entries(&sw).unwrap());
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
        if tna {
            // the TNA program has its own entries (canopy_control::p4_tna)
            for op in &tna_ops {
                match op {
                    TnaOp::Comment(_) => {}
                    TnaOp::SetDefault { table, call } => {
                        check_key(table, &[]);
                        check_call(call);
                    }
                    TnaOp::Add {
                        table, key, call, ..
                    } => {
                        check_key(table, key);
                        check_call(call);
                    }
                    TnaOp::Member { call, .. } => check_call(call),
                    TnaOp::Group { .. } => {}
                    TnaOp::Fwd { group, .. } => check_key(
                        "fwd_group",
                        &[p4::Match::Exact {
                            field: "meta.group",
                            v: *group,
                        }],
                    ),
                }
            }
            continue;
        }
        for op in &ops {
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

// ---- the P4Runtime output checked by p4/p4runtime_check.py (official protos) ----

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// Why the Python checker cannot run here (python3 or the `p4runtime` module missing).
fn checker_missing() -> Option<String> {
    let probe = "import os; os.environ['PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION'] = 'python'; \
                 from p4.v1 import p4runtime_pb2; from p4.config.v1 import p4info_pb2";
    match Command::new("python3").args(["-c", probe]).output() {
        Err(e) => Some(format!("python3 not runnable ({e})")),
        Ok(o) if !o.status.success() => Some(format!(
            "python3 has no `p4runtime` module (pip install -r p4/ptf/requirements.txt): {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Ok(_) => None,
    }
}

/// Run p4/p4runtime_check.py; (exit code, stdout + stderr).
fn check(p4info: &Path, reqs: &[PathBuf]) -> (i32, String) {
    let o = Command::new("python3")
        .arg(repo_file("p4/p4runtime_check.py"))
        .arg(p4info)
        .args(reqs)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

/// Index of the first update writing `table` (a default if `default`).
fn update_of(req: &Value, info: &p4::P4Info, table: &str, default: bool) -> usize {
    let id = info
        .tables
        .iter()
        .find(|t| t.preamble.name == format!("CanopyIngress.{table}"))
        .unwrap()
        .preamble
        .id;
    req["updates"]
        .as_array()
        .unwrap()
        .iter()
        .position(|u| {
            let t = &u["entity"]["tableEntry"];
            t["tableId"] == id && (t["isDefaultAction"] == true) == default
        })
        .unwrap_or_else(|| panic!("no update of {table}"))
}

/// The checker accepts the generator's requests and fails on each kind of mutation, naming
/// the class and the update index. Needs python3 and the `p4runtime` module (not p4c: the
/// P4Info is the made-up one).
#[test]
fn the_checker_rejects_mutated_requests() {
    if let Some(why) = checker_missing() {
        eprintln!("SKIP the_checker_rejects_mutated_requests: {why}");
        return;
    }
    let dir = TempDir::new("mut");
    let (v, info) = synth_all();
    let p4info = dir.write("synth.p4info.json", &v);
    let sw = &tables("fat-tree:k=4", Kind::PathId, None)[0];
    let req = p4::p4runtime(&sw.name, &p4::entries(sw).unwrap(), &info, 0).unwrap();
    let ok = dir.write("ok.json", &req);
    let (code, out) = check(&p4info, std::slice::from_ref(&ok));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": ok: device 0,"), "{out}");

    let lpm = update_of(&req, &info, "pathid_lpm", false);
    let port = update_of(&req, &info, "canopy_port", false);
    let cfg = update_of(&req, &info, "pathid_cfg", true);
    let te = |i: usize| format!("/updates/{i}/entity/tableEntry");
    type Mutation = Box<dyn Fn(&mut Value)>;
    // set (or add) the member at a JSON pointer
    let set = |ptr: String, x: Value| -> Mutation {
        Box::new(move |r: &mut Value| {
            let (parent, key) = ptr.rsplit_once('/').unwrap();
            match r.pointer_mut(parent).unwrap() {
                Value::Object(o) => {
                    o.insert(key.to_string(), x.clone());
                }
                Value::Array(a) => a[key.parse::<usize>().unwrap()] = x.clone(),
                other => panic!("{ptr}: {other}"),
            }
        })
    };
    let other_action = info
        .actions
        .iter()
        .find(|a| a.preamble.name == "CanopyIngress.to_port")
        .unwrap()
        .preamble
        .id;
    let n = req["updates"].as_array().unwrap().len();
    let cases: Vec<(&str, usize, &str, Mutation)> = vec![
        (
            "wrong table id",
            port,
            "[table]",
            set(te(port) + "/tableId", json!(4242)),
        ),
        (
            "an action of another table",
            port,
            "[action]",
            set(te(port) + "/action/action/actionId", json!(other_action)),
        ),
        (
            "the same entry twice",
            n,
            "[entry]",
            Box::new(move |r: &mut Value| {
                let u = r["updates"][port].clone();
                r["updates"].as_array_mut().unwrap().push(u);
            }),
        ),
        (
            "wrong field id",
            port,
            "[match]",
            set(te(port) + "/match/0/fieldId", json!(9)),
        ),
        (
            "wrong action id",
            port,
            "[action]",
            set(te(port) + "/action/action/actionId", json!(4242)),
        ),
        (
            "non-canonical value (a leading zero byte)",
            port,
            "[bytes]",
            set(te(port) + "/match/0/exact/value", json!("AAE=")),
        ),
        (
            "value wider than the field (512 in 9 bits)",
            port,
            "[bytes]",
            set(te(port) + "/match/0/exact/value", json!("AgA=")),
        ),
        (
            "empty byte string",
            port,
            "[bytes]",
            set(te(port) + "/action/action/params/0/value", json!("")),
        ),
        (
            "missing priority",
            lpm,
            "[priority]",
            Box::new(move |r: &mut Value| {
                r.pointer_mut(&te(lpm))
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove("priority");
            }),
        ),
        (
            "priority on an exact table",
            port,
            "[priority]",
            set(te(port) + "/priority", json!(3)),
        ),
        (
            "ternary mask 0 (don't care must be omitted)",
            lpm,
            "[match]",
            set(te(lpm) + "/match/0/ternary/mask", json!("AA==")),
        ),
        (
            "default entry as INSERT",
            cfg,
            "[default]",
            set(format!("/updates/{cfg}/type"), json!("INSERT")),
        ),
        (
            "missing parameter",
            port,
            "[param]",
            Box::new(move |r: &mut Value| {
                r.pointer_mut(&(te(port) + "/action/action/params"))
                    .unwrap()
                    .as_array_mut()
                    .unwrap()
                    .pop();
            }),
        ),
    ];
    for (what, idx, class, mutate) in cases {
        let mut bad = req.clone();
        mutate(&mut bad);
        let f = dir.write("bad.json", &bad);
        let (code, out) = check(&p4info, &[f]);
        assert_eq!(code, 1, "{what}: {out}");
        assert!(
            out.contains(&format!("update {idx}: {class}")),
            "{what}: expected {class} at update {idx}: {out}"
        );
        assert!(out.contains("FAIL"), "{what}: {out}");
    }
    // an unknown member: json_format.Parse refuses the request
    let mut bad = req.clone();
    bad["comments"] = json!(["x"]);
    let f = dir.write("bad.json", &bad);
    let (code, out) = check(&p4info, &[f]);
    assert_eq!(code, 2, "{out}");
}

/// The switches `p4runtime_requests_of_every_switch_pass_the_checker` programs:
/// every switch of fat-tree:k=4 (sliced, path-ID) and transit-hybrid:leaf=12;layers=1,
/// and a few znode switches in each sliced mode.
fn p4c_cases() -> Vec<(&'static str, Kind, Option<Mode>, Vec<String>)> {
    let mut out = Vec::new();
    for &(spec, kind, mode) in SPECS {
        let names: Vec<String> = tables(spec, kind, mode)
            .into_iter()
            .map(|s| s.name)
            .collect();
        let names = if spec.starts_with("znode") {
            let step = (names.len() / 4).max(1);
            names.into_iter().step_by(step).collect()
        } else {
            names
        };
        out.push((spec, kind, mode, names));
    }
    out
}

/// With p4c on PATH: compile p4/canopy.p4 with `--p4runtime-files x.json`, run the real
/// `canopyctl p4-entries --format p4runtime --p4info x.json` for each switch of
/// [`p4c_cases`], replay every request through the real P4Info into the switch's tables,
/// and (with python3 and the `p4runtime` module) run p4/p4runtime_check.py on all of them.
#[test]
fn p4runtime_requests_of_every_switch_pass_the_checker() {
    if Command::new("p4c").arg("--version").output().is_err() {
        eprintln!("SKIP p4runtime_requests_of_every_switch_pass_the_checker: p4c not on PATH");
        return;
    }
    let dir = TempDir::new("p4c");
    let p4info = dir.0.join("canopy.p4info.json");
    let o = Command::new("p4c")
        .args(["--target", "bmv2", "--arch", "v1model", "--p4runtime-files"])
        .arg(&p4info)
        .arg("-o")
        .arg(&dir.0)
        .arg(repo_file("p4/canopy.p4"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "p4c: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let info = p4::P4Info::load(&p4info).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut files = Vec::new();
    for (spec, kind, mode, names) in p4c_cases() {
        let all = tables(spec, kind, mode);
        for name in names {
            let mut args = vec![
                "p4-entries",
                spec,
                "--kind",
                kind.name(),
                "--switch",
                &name,
                "--format",
                "p4runtime",
                "--p4info",
                p4info.to_str().unwrap(),
            ];
            let m = mode.map(|m| m.name());
            if let Some(m) = &m {
                args.extend(["--mode", m]);
            }
            let o = canopyctl(&args);
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let req: Value = serde_json::from_slice(&o.stdout).unwrap();
            let sw = all.iter().find(|s| s.name == name).unwrap();
            let what = format!("{spec} {kind:?} {mode:?} p4runtime with p4c's P4Info");
            let model = replay_p4rt(&req, &info);
            check_model(sw, &model, &what);
            check_lpm_semantics(sw, &model, false, &mut rng);
            let f = dir.0.join(format!("req-{}.json", files.len()));
            std::fs::write(&f, &o.stdout).unwrap();
            files.push(f);
        }
    }
    assert!(files.len() > 40, "{} requests", files.len());
    eprintln!(
        "{} requests replayed through p4c's P4Info ({})",
        files.len(),
        p4info.display()
    );
    if let Some(why) = checker_missing() {
        eprintln!("SKIP the p4runtime_check.py part of this test: {why}");
        return;
    }
    let (code, out) = check(&p4info, &files);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches(": ok: ").count(), files.len(), "{out}");
}
