//! The generated tables do what their comments in `p4/canopy_tna.p4` say (evaluated as
//! the target applies constant entries: the first match wins), and the generator agrees
//! with the program's source on tables, keys, sizes and the check order.

use std::collections::BTreeSet;

use canopy_dataplane::decide::DROP_REASON_NAMES;
use canopy_dataplane::wire::{self as w, sliced::low_mask};
use rand::{Rng, SeedableRng};

use super::checks::{self, Step, DROP_ORDER};
use super::*;

fn table(file: &str) -> Table {
    tables()
        .into_iter()
        .find(|t| t.file == file)
        .unwrap_or_else(|| panic!("no generated table {file}"))
}

/// The action of the first matching entry, or `None` (the default action).
fn apply(t: &Table, values: &[u64]) -> Option<String> {
    lookup(&t.entries, values).map(|e| e.action.clone())
}

fn source(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn range_prefixes_cover_the_range_once() {
    for bits in [4u32, 8, 9] {
        let max = low_mask(bits);
        for lo in 0..=max {
            for hi in (lo..=max).step_by(3) {
                let p = range_prefixes(lo, hi, bits);
                for x in 0..=max {
                    let n = p.iter().filter(|&&(v, m)| x & m == v).count();
                    assert_eq!(n, usize::from((lo..=hi).contains(&x)), "{lo}..={hi}: {x}");
                }
            }
        }
    }
}

#[test]
fn the_formats_are_the_programs() {
    let e = |key, action: &str| Entry::new(key, action.into()).to_string();
    assert_eq!(e(vec![Key::Exact(3)], "a(1)"), format!("{INDENT}3: a(1);"));
    let key = vec![
        Key::Any,
        Key::Bool(false),
        Key::hex(0x40, 0xc0),
        Key::Tern {
            v: 64,
            m: 0xc0,
            style: Style::Dec,
        },
        Key::Tern {
            v: 8,
            m: 0xf8,
            style: Style::W8,
        },
        Key::Tern {
            v: 1,
            m: 7,
            style: Style::Pad(4),
        },
    ];
    assert_eq!(
        e(key, "b()"),
        format!(
            "{INDENT}(_, false, 0x40 &&& 0xc0, 64 &&& 0xc0, 8w8 &&& 0xf8, 0x0001 &&& 0x0007): b();"
        )
    );
}

/// `canopy.p4`'s checks of a header group, written out: the index (from 1) of the first
/// that fails, 0 for none.
fn first_failing(group: &str, v: &[u64]) -> u64 {
    let tag = |t: u64| t == u64::from(w::ETHERTYPE_VLAN) || t == u64::from(w::ETHERTYPE_QINQ);
    let checks: Vec<bool> = match group {
        "prefix" => vec![
            v[0] == 0,
            tag(v[1]) && v[2] == 0,
            tag(v[1]) && tag(v[3]) && v[4] == 0,
            tag(v[1]) && tag(v[3]) && tag(v[5]),
            v[6] == 0,
            v[7] != 1,
            v[8] == 0,
            v[8] > 3,
            v[9] & 0x7f != 0,
            v[10] == 0,
        ],
        "sliced" => vec![
            v[0] > 3,
            v[1] & 0x1f != 0,
            v[2] != 0,
            v[3] > 64,
            v[0] == 0 && v[4] > v[3],
            v[0] != 0 && v[4] != 0,
            v[0] == 2 && v[1] & 0x20 == 0,
        ],
        "transit" => vec![
            v[0] > 5,
            v[1] & 0xe != 0,
            v[2] & 0xfc != 0,
            v[0] != 0,
            v[3] >= 8,
        ],
        "pathid" => vec![
            v[0] & 0x3f != 0,
            v[1] != 0,
            v[2] > 64,
            v[0] & 0x40 != 0 && v[2] != 0,
            v[0] & 0x40 == 0 && v[2] == 0,
        ],
        g => panic!("group {g}"),
    };
    checks.iter().position(|&c| c).map_or(0, |i| i as u64 + 1)
}

/// Every combination of the listed values of each column.
fn combinations(columns: &[Vec<u64>], mut each: impl FnMut(&[u64])) {
    let mut idx = vec![0; columns.len()];
    loop {
        let values: Vec<u64> = idx.iter().zip(columns).map(|(&i, c)| c[i]).collect();
        each(&values);
        let mut k = columns.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < columns[k].len() {
                break;
            }
            idx[k] = 0;
        }
    }
}

#[test]
fn header_checks_give_the_first_failing_check() {
    let types = vec![0x88b5, 0x0800, 0x8100, 0x88a8];
    let lens: Vec<u64> = (0..=66).chain([127, 128, 255]).collect();
    let cases: [(&str, Vec<Vec<u64>>); 5] = [
        (
            "prefix",
            vec![
                vec![0, 1],
                types.clone(),
                vec![0, 1],
                types.clone(),
                vec![0, 1],
                types,
                vec![0, 1],
                vec![1],
                vec![1],
                vec![0],
                vec![1],
            ],
        ),
        (
            "prefix",
            vec![
                vec![1],
                vec![0x88b5],
                vec![0],
                vec![0],
                vec![0],
                vec![0],
                vec![1],
                (0..16).collect(),
                (0..16).collect(),
                vec![0, 0x80, 0x01, 0x40, 0xff],
                vec![0, 1, 255],
            ],
        ),
        (
            "sliced",
            vec![
                vec![0, 1, 2, 3, 4, 0x80],
                vec![0, 0x20, 0x01, 0x10, 0xe0],
                vec![0, 0x100],
                lens.clone(),
                lens.clone(),
            ],
        ),
        (
            "transit",
            vec![
                (0..16).collect(),
                (0..16).collect(),
                vec![0, 1, 3, 4, 0x80],
                (0..=9).chain([255, 256, 511]).collect(),
            ],
        ),
        (
            "pathid",
            vec![
                vec![0, 0x40, 0x80, 0xc0, 0x01, 0x20],
                vec![0, 1, 0x8000],
                (0..=255).collect(),
            ],
        ),
    ];
    let groups = checks::groups();
    for (name, columns) in cases {
        let g = groups.iter().find(|g| g.name == name).unwrap();
        let t = table(&g.table());
        assert_eq!(columns.len(), g.columns.len());
        let mut n = 0;
        combinations(&columns, |v| {
            let want = first_failing(name, v);
            let got = apply(&t, v);
            let want = (want > 0).then(|| format!("tna_hc_{name}_set({want})"));
            assert_eq!(got, want, "{name} {v:?}");
            n += 1;
        });
        assert!(n > 100, "{name}: {n} cases");
    }
}

#[test]
fn the_drop_order_names_each_check_once_in_order() {
    let groups = checks::groups();
    let mut flags = Vec::new();
    let mut seen: Vec<Vec<&str>> = vec![Vec::new(); groups.len()];
    for step in DROP_ORDER {
        match *step {
            Step::Flag(n, reason) => {
                flags.push(n);
                assert!(DROP_REASON_NAMES.contains(&reason), "{reason}");
            }
            Step::Header(g, name) => seen[g].push(name),
        }
    }
    assert_eq!(flags, (0..checks::flag_count()).collect::<Vec<_>>());
    for (g, names) in groups.iter().zip(seen) {
        let all: Vec<&str> = g.checks.iter().map(|c| c.name).collect();
        assert_eq!(names, all, "{}: every check once, in order", g.table());
        for c in &g.checks {
            assert!(DROP_REASON_NAMES.contains(&c.reason), "{}", c.reason);
        }
    }
}

#[test]
fn drop_pick_names_the_first_failing_check() {
    let groups = checks::groups();
    let columns = checks::drop_pick_columns(&groups);
    let t = table("tna_drop_pick");
    assert_eq!(t.entries.len(), DROP_ORDER.len());
    // a step's column and the value that fails it
    let at = |step: Step| match step {
        Step::Flag(n, _) => (n, 1),
        Step::Header(g, name) => {
            let k = groups[g]
                .checks
                .iter()
                .position(|c| c.name == name)
                .unwrap();
            (checks::flag_count() + g, k as u64 + 1)
        }
    };
    let reason = |step: Step| match step {
        Step::Flag(_, r) => r,
        Step::Header(g, name) => {
            groups[g]
                .checks
                .iter()
                .find(|c| c.name == name)
                .unwrap()
                .reason
        }
    };
    let want = |step: Step| format!("tna_drop((bit<8>)DROP_{})", reason(step).to_uppercase());
    let none = vec![0; columns.len()];
    assert_eq!(apply(&t, &none), None);
    for (i, &a) in DROP_ORDER.iter().enumerate() {
        let (ca, va) = at(a);
        let mut v = none.clone();
        v[ca] = va;
        assert_eq!(apply(&t, &v), Some(want(a)), "{a:?} alone");
        for &b in &DROP_ORDER[i + 1..] {
            let (cb, vb) = at(b);
            if cb == ca {
                continue; // a header group reports its first failing check only
            }
            let mut both = v.clone();
            both[cb] = vb;
            assert_eq!(apply(&t, &both), Some(want(a)), "{a:?} before {b:?}");
        }
    }
}

#[test]
fn funnel_shifts_split_the_shift_into_bytes_and_bits() {
    for field in ["side", "lab", "zn"] {
        let q = table(&format!("tna_{field}_q"));
        let r = table(&format!("tna_{field}_r"));
        for s in 0..=255u64 {
            let qa = apply(&q, &[s]);
            let ra = apply(&r, &[s]).expect("every shift has its bits");
            let want_q = (s < 64).then(|| format!("tna_{field}_q{}()", s / 8));
            assert_eq!(qa, want_q, "{field} S = {s}");
            assert_eq!(ra, format!("tna_{field}_r{}()", s % 8), "{field} S = {s}");
        }
    }
    for field in ["side", "lab"] {
        let m = table(&format!("tna_{field}_mask_tbl"));
        for width in 0..=32u64 {
            let want = format!("tna_{field}_mask({:#x})", (1u64 << width) - 1);
            assert_eq!(apply(&m, &[width]), Some(want));
        }
        assert_eq!(apply(&m, &[33]), None);
    }
    let x = table("tna_x_zn_tbl");
    for s in 0..=64u64 {
        let m = if s == 64 { u64::MAX } else { (1u64 << s) - 1 };
        let want = format!("tna_x_zn({:#x}, {:#x})", m >> 32, m & 0xffff_ffff);
        assert_eq!(apply(&x, &[s]), Some(want));
    }
}

/// A word with one bit set, `i` counted from the least significant, as (hi, lo).
fn one_bit(i: u32) -> [u64; 2] {
    let word = 1u64 << i;
    [word >> 32, word & 0xffff_ffff]
}

/// Whether bit `i` may be set at key `n`.
type Allowed = fn(u64, u32) -> bool;

#[test]
fn must_be_zero_checks_allow_exactly_the_permitted_bits() {
    // (table, last key, whether bit i (from the least significant) may be set at key n)
    let beyond: Allowed = |n, i| 63 - u64::from(i) < n;
    let below: Allowed = |n, i| u64::from(i) < n;
    let znode: Allowed = |n, i| u64::from(i) < n + 32;
    let cases = [
        ("tna_chk_beyond", 64, beyond),
        ("tna_chk_len", 64, below),
        ("tna_chk_src", 64, below),
        ("tna_zn_ovf", 255, znode),
        ("tna_x_zo", 255, below),
    ];
    for (name, last, ok) in cases {
        let t = table(name);
        let pass = format!("{name}_ok()");
        for n in 0..=last {
            assert_eq!(apply(&t, &[n, 0, 0]), Some(pass.clone()), "{name} {n}: 0");
            for i in 0..64 {
                let [hi, lo] = one_bit(i);
                let got = apply(&t, &[n, hi, lo]).is_some();
                assert_eq!(got, ok(n, i), "{name} key {n}, bit {i}");
            }
        }
    }
    let id = table("tna_chk_id");
    for n in 0..=64 {
        for i in 0..64 {
            let got = apply(&id, &[n, 1u64 << i]).is_some();
            assert_eq!(got, beyond(n, i), "tna_chk_id {n}, bit {i}");
        }
        assert!(apply(&id, &[n, 0]).is_some());
    }
    assert!(apply(&id, &[65, 0]).is_none());
    let rho = table("tna_rho");
    for c in 0..64 {
        for i in 0..64 {
            let [hi, lo] = one_bit(i);
            let got = apply(&rho, &[c, hi, lo]).is_some();
            assert_eq!(got, 63 - u64::from(i) == c, "rho cursor {c}, bit {i}");
        }
    }
}

#[test]
fn transit_lookups() {
    let dir = table("tna_dir");
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for _ in 0..200 {
        let word: u64 = rng.gen();
        for head in [0u64, 5, 7, 8, 13, 255] {
            for rot in 0..4u64 {
                let byte = (word >> (56 - 8 * (head % 8))) & 0xff;
                // decide/transit.rs: d = (R[head] >> (6 - 2 rot)) & 3
                let d = (byte >> (6 - 2 * rot)) & 3;
                let got = apply(&dir, &[word, head, rot]);
                assert_eq!(
                    got,
                    Some(format!("tna_set_dir({d})")),
                    "{word:#x} {head} {rot}"
                );
            }
        }
    }
    let rot = table("tna_rot");
    for a in 0..4 {
        for b in 0..4 {
            let got = apply(&rot, &[a, b]);
            assert_eq!(got, Some(format!("tna_set_rot({})", (a + b) & 3)));
        }
    }
    let (route, rec) = (table("tna_route_total"), table("tna_rec_total_tbl"));
    for n in 0..=255u64 {
        let r = 8 + n.div_ceil(8) * 8;
        assert_eq!(
            apply(&route, &[n]),
            Some(format!("tna_set_route_total({r})"))
        );
        let s = 8 + (4 * n).div_ceil(8) * 8;
        assert_eq!(apply(&rec, &[n]), Some(format!("tna_set_rec_total({s})")));
        let hl = table("tna_hl");
        assert_eq!(apply(&hl, &[n]), Some(format!("tna_set_hl({})", n * 8)));
    }
    let pd = table("tna_port_drop");
    for p in 0..512 {
        assert_eq!(
            apply(&pd, &[p]),
            Some(format!("tna_set_port_drop({})", p * 32))
        );
    }
}

/// The body of `table NAME { … }` in the program.
fn table_body<'a>(src: &'a str, name: &str) -> &'a str {
    let start = src
        .find(&format!("\n    table {name} {{"))
        .unwrap_or_else(|| panic!("table {name} missing"));
    let body = &src[start + 1..];
    &body[..body.find("\n    }").unwrap()]
}

/// The key field names of a table body, in order.
fn key_fields(body: &str) -> Vec<String> {
    let k = body.find("key = {").expect("a key") + "key = {".len();
    let keys = &body[k..];
    keys[..keys.find('}').unwrap()]
        .split(';')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(|f| f.split_once(':').unwrap().0.trim().to_string())
        .collect()
}

#[test]
fn the_program_includes_each_file_in_its_tables_with_their_sizes() {
    let src = source("p4/canopy_tna.p4");
    let mut includes = 0;
    for t in tables() {
        for name in &t.tables {
            let body = table_body(&src, name);
            let inc = format!(
                "        const entries = {{\n#include \"tna_entries/{}.p4\"\n        }}\n",
                t.file
            );
            assert!(body.contains(&inc), "{name} does not include {}.p4", t.file);
            let size = format!("size = {};", t.entries.len());
            assert!(body.contains(&size), "{name}: {size}");
            let keys = key_fields(body);
            for e in &t.entries {
                assert_eq!(e.key.len(), keys.len(), "{name}: {e}");
            }
            includes += 1;
        }
    }
    assert_eq!(src.matches("#include \"tna_entries/").count(), includes);
    let groups = checks::groups();
    for g in &groups {
        let body = table_body(&src, &g.table());
        let want: Vec<&str> = g.columns.iter().map(|c| c.0).collect();
        assert_eq!(key_fields(body), want, "{}", g.table());
        let names: Vec<&str> = g.checks.iter().map(|c| c.name).collect();
        let comment = format!(
            "/* {}: the first failing header check of the group ({}), as an index",
            g.table(),
            names.join(", ")
        );
        assert!(src.contains(&comment), "{comment}");
    }
    let drop_pick = key_fields(table_body(&src, "tna_drop_pick"));
    assert_eq!(drop_pick, checks::drop_pick_columns(&groups));
    // canopy_fail_t has exactly the flags
    let headers = source("p4/canopy_headers.p4");
    let at = headers.find("struct canopy_fail_t {").unwrap();
    let fail = &headers[at..at + headers[at..].find('}').unwrap()];
    let got: Vec<&str> = fail.lines().skip(1).map(str::trim).collect();
    let want: Vec<String> = (0..checks::flag_count())
        .map(|n| format!("bit<1> f{n};"))
        .collect();
    assert_eq!(got, want);
}

/// The apply block sets the flags and documents the header checks (`/* DROP_X:
/// tna_hc_G = k */`) in the order of [`DROP_ORDER`]; a flag set by an action (the empty
/// group, applied last) comes after them.
#[test]
fn the_apply_block_makes_the_checks_in_the_drop_order() {
    let src = source("p4/canopy_tna.p4");
    let ingress = &src[src.find("control CanopyIngress(").unwrap()..];
    let apply_at = ingress.find("\n    apply {").unwrap();
    let groups = checks::groups();
    let steps = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        for line in text.lines() {
            let mut rest = line;
            while let Some(i) = rest.find("meta.fl.f") {
                let n: String = rest[i + 9..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                if !n.is_empty() && rest[i + 9 + n.len()..].starts_with(" = 1;") {
                    out.push(format!("f{n}"));
                }
                rest = &rest[i + 9..];
            }
            if let Some(i) = line.find("/* DROP_") {
                let c = &line[i + 3..line[i..].find(" */").unwrap() + i];
                out.push(c.to_string());
            }
        }
        out
    };
    let mut got = steps(&ingress[apply_at..]);
    let actions: BTreeSet<String> = steps(&ingress[..apply_at]).into_iter().collect();
    got.extend(actions);
    let want: Vec<String> = DROP_ORDER
        .iter()
        .map(|s| match *s {
            Step::Flag(n, _) => format!("f{n}"),
            Step::Header(g, name) => {
                let g = &groups[g];
                let k = g.checks.iter().position(|c| c.name == name).unwrap();
                let reason = g.checks[k].reason.to_uppercase();
                format!("DROP_{reason}: {} = {}", g.table(), k + 1)
            }
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_changed_line_is_found_with_its_number() {
    let f = &files()[0];
    assert_eq!(first_difference(&f.text, &f.text), None);
    let mut lines: Vec<&str> = f.text.split('\n').collect();
    lines[3] = "            (_): nothing();";
    let changed = lines.join("\n");
    let (line, got, want) = first_difference(&changed, &f.text).unwrap();
    assert_eq!((line, got.as_str()), (4, "            (_): nothing();"));
    assert_eq!(want, f.text.split('\n').nth(3).unwrap());
    let short = &f.text[..=f.text.find('\n').unwrap()];
    let (line, got, _) = first_difference(short, &f.text).unwrap();
    assert_eq!((line, got.as_str()), (2, "(end of file)"));
    let (line, _, want) = first_difference(&f.text, short).unwrap();
    assert_eq!((line, want.as_str()), (2, "(end of file)"));
    let unterminated = f.text.trim_end_matches('\n');
    let (line, got, _) = first_difference(unterminated, &f.text).unwrap();
    assert_eq!(line, f.entries + 1);
    assert!(got.ends_with("(no newline at end of file)"), "{got}");
}

#[test]
fn every_file_starts_with_the_generated_header() {
    for f in files() {
        let first = f.text.lines().next().unwrap();
        assert!(first.starts_with("/* Generated by `canopyctl p4-tna-entries`"));
        assert!(first.contains("Do not edit by hand"));
        assert_eq!(f.text.lines().count(), f.entries + 1, "{}", f.name);
    }
}
