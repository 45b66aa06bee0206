//! The generator and the P4 sources (`p4/canopy.p4`, `p4/canopy_tna.p4`,
//! `p4/canopy_headers.p4`) agree on every name, order and width.

use std::collections::BTreeMap;

use canopy_control::p4::tna::TnaOp;
use canopy_control::p4::{self, Op};

use crate::synth::every_entry;

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

    let (ops, tna_ops) = every_entry();
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

/// `p4::schema`, the program as a P4Runtime target checks it, is `p4/canopy.p4`: the same
/// tables with the same key fields and match kinds, actions, default actions and sizes,
/// and every action with the same parameters and widths.
#[test]
fn the_schema_is_the_program() {
    use canopy_control::p4::schema::{self, TABLES};
    let src = p4_source("canopy.p4");
    let (tabs, acts) = p4_decls(&src);
    let want: Vec<&str> = tabs.keys().map(|s| s.as_str()).collect();
    let mut got: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
    got.sort_unstable();
    assert_eq!(got, want, "tables");
    for t in TABLES {
        let key: Vec<(String, String)> = t
            .key
            .iter()
            .map(|f| (f.name.to_string(), f.kind.p4info_name().to_lowercase()))
            .collect();
        assert_eq!(key, tabs[t.name], "key of {}", t.name);
        let at = src.find(&format!("\n    table {} {{", t.name)).unwrap();
        let body = &src[at..at + src[at..].find("\n    }").unwrap()];
        let actions = format!("actions = {{ {}; }}", t.actions.join("; "));
        assert!(body.contains(&actions), "{}: {actions}\n{body}", t.name);
        assert!(
            body.contains(&format!("default_action = {}();", t.default)),
            "{}: default",
            t.name
        );
        assert!(
            body.contains(&format!("size = {};", t.size)),
            "{}: size {}",
            t.name,
            t.size
        );
        for a in t.actions {
            let sch = schema::action(a).unwrap();
            let params: Vec<(String, String)> = sch
                .params
                .iter()
                .map(|(n, b)| (n.to_string(), format!("bit<{b}>")))
                .collect();
            assert_eq!(&params, &acts[*a], "parameters of {a}");
        }
    }
    for c in schema::COUNTERS {
        let short = c.name.rsplit('.').next().unwrap();
        assert!(src.contains(&format!(") {short};")), "{}", c.name);
    }
}
