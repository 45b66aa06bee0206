//! canopy.p4's P4Info made from the program's description ([`schema`](super::schema)),
//! for a controller without p4c (`canopyctl p4info`) and for the tests.

use super::schema::{MatchKind, ACTIONS, COUNTERS, INGRESS, TABLES};
use canopy_p4rt::config::{self, counter_spec, match_field, Preamble};

/// The P4Info name of a table or action of the ingress control.
fn full(name: &str) -> String {
    format!("{INGRESS}.{name}")
}

/// canopy.p4's P4Info, built from the schema: every table, action and counter with the
/// names, widths, match kinds and sizes p4c gives them, ids carrying p4c's kind prefixes
/// (tables `0x02`, actions `0x01`, counters `0x12`) over each object's position (p4c's
/// own ids hash the names instead; a controller only needs them to agree with the
/// P4Info it pushes). What a controller without p4c pushes, and what tests push.
pub fn program_p4info() -> config::P4Info {
    let pre = |id: u32, name: String| {
        Some(Preamble {
            id,
            alias: name.rsplit('.').next().unwrap_or_default().to_string(),
            name,
            annotations: vec![],
        })
    };
    let action_id =
        |name: &str| 0x0100_0000 + ACTIONS.iter().position(|a| a.name == name).unwrap_or(0) as u32;
    config::P4Info {
        pkg_info: Some(config::PkgInfo {
            arch: "v1model".into(),
            ..Default::default()
        }),
        tables: TABLES
            .iter()
            .enumerate()
            .map(|(i, t)| config::Table {
                preamble: pre(0x0200_0000 + i as u32, full(t.name)),
                match_fields: t
                    .key
                    .iter()
                    .enumerate()
                    .map(|(k, f)| config::MatchField {
                        id: k as u32 + 1,
                        name: f.name.into(),
                        bitwidth: f.bits as i32,
                        r#match: Some(match_field::Match::MatchType(match f.kind {
                            MatchKind::Exact => match_field::MatchType::Exact,
                            MatchKind::Ternary => match_field::MatchType::Ternary,
                            MatchKind::Range => match_field::MatchType::Range,
                        }
                            as i32)),
                    })
                    .collect(),
                action_refs: t
                    .actions
                    .iter()
                    .map(|a| config::ActionRef {
                        id: action_id(a),
                        scope: 0,
                    })
                    .collect(),
                size: i64::from(t.size),
                ..Default::default()
            })
            .collect(),
        actions: ACTIONS
            .iter()
            .map(|a| config::Action {
                preamble: pre(action_id(a.name), full(a.name)),
                params: a
                    .params
                    .iter()
                    .enumerate()
                    .map(|(k, (n, b))| config::action::Param {
                        id: k as u32 + 1,
                        name: (*n).into(),
                        bitwidth: *b as i32,
                    })
                    .collect(),
            })
            .collect(),
        counters: COUNTERS
            .iter()
            .enumerate()
            .map(|(i, c)| config::Counter {
                preamble: pre(0x1200_0000 + i as u32, c.name.into()),
                spec: Some(config::CounterSpec {
                    unit: if c.bytes {
                        counter_spec::Unit::Both
                    } else {
                        counter_spec::Unit::Packets
                    } as i32,
                }),
                size: i64::from(c.size),
            })
            .collect(),
        ..Default::default()
    }
}
