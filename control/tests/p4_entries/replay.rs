//! Reading the entries back: a replay of the `simple_switch_CLI` commands or of the
//! P4Runtime WriteRequest builds the [`Model`] a switch would hold.

use std::collections::BTreeMap;

use canopy_control::p4;
use serde_json::Value;

/// Where a lookup sends a frame, as the P4 program sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    Port(u64),
    Group(u64),
}

/// One pathid_lpm entry read back: (value, mask, lo, hi, priority, down, target).
pub(crate) type Lpm = (u64, u64, u64, u64, u64, u64, Target);

/// The state a replay of the entries builds (what the switch would hold).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Model {
    pub(crate) ports: BTreeMap<u64, (u64, u64)>,
    /// fwd_group key -> ports of its selector group (None: the group_empty member).
    pub(crate) groups: BTreeMap<u64, Option<Vec<u64>>>,
    pub(crate) sliced_cfg: Option<Vec<u64>>,
    pub(crate) sliced_down: BTreeMap<u64, Target>,
    pub(crate) sliced_side: BTreeMap<u64, Target>,
    pub(crate) transit_split: Option<u64>,
    pub(crate) transit_dir: BTreeMap<(u64, u64), (Target, u64, u64)>,
    pub(crate) pathid_leaf: Option<u64>,
    pub(crate) lpm: Vec<Lpm>,
    pub(crate) hosts: BTreeMap<u64, Target>,
    /// `hop_cfg`'s switch id (canopyctl adds it; `p4::entries` alone does not).
    pub(crate) hop_switch: Option<u64>,
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// Replay `simple_switch_CLI` commands the way bmv2 assigns handles (from 0).
pub(crate) fn replay_cli(cli: &str) -> Model {
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
                    ("hop_cfg", "set_hop_switch") => m.hop_switch = Some(params[0]),
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
pub(crate) fn replay_p4rt(doc: &Value, info: &p4::P4Info) -> Model {
    let mut m = Model::default();
    let mut members: Vec<(u64, u64, u64)> = Vec::new();
    for e in unname(doc, info) {
        let p = |n: &str| e.params[n];
        if e.default {
            match e.table.as_str() {
                "sliced_cfg" => m.sliced_cfg = Some(e.ordered.clone()),
                "transit_cfg" => m.transit_split = Some(p("split")),
                "pathid_cfg" => m.pathid_leaf = Some(p("leaf")),
                "hop_cfg" => m.hop_switch = Some(p("id")),
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
