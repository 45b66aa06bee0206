//! The JSON Schema of `results.json` (`docs/results.schema.json`, `docs/reports.md`): the
//! committed file is what the result types generate, it is a valid draft 2020-12 schema,
//! and the `results.json` files that `report::run::write` writes validate against it,
//! also with every object closed (no property the schema does not list), so a field
//! serialized but not described fails here. No root needed.
//!
//! After changing a result type: `CANOPY_BLESS=1 cargo test -p canopy-testbed --test
//! results_schema` rewrites the committed schema.

mod report_common;

use canopy_testbed::report;
use canopy_testbed::report::results::{
    json_schema, json_schema_text, CeilingRx, GapSource, GeneratorCeiling, HopBreakdown, HopParts,
    LoadLatency, Part, PathParts, PolicyCost, ProbeStream, RunResults, Timeline, UpPolicyResult,
    JSON_SCHEMA_PATH,
};
use report_common::{fixed_rate, latency, samples, search, trial, TempDir};
use serde_json::Value;
use std::path::PathBuf;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(JSON_SCHEMA_PATH)
}

const REGENERATE: &str =
    "regenerate it with `CANOPY_BLESS=1 cargo test -p canopy-testbed --test results_schema`";

#[test]
fn committed_schema_is_the_generated_one() {
    let path = committed_path();
    let text = json_schema_text().expect("schema as JSON");
    if std::env::var_os("CANOPY_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; {REGENERATE}", path.display()));
    let committed: Value = serde_json::from_str(&committed)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e}); {REGENERATE}", path.display()));
    assert!(
        committed == json_schema(),
        "{} is not the schema the result types generate (a field was added, removed or \
         changed, or its doc comment was); check the change and {REGENERATE}",
        path.display()
    );
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let s = json_schema();
    assert_eq!(
        s["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "the draft the docs name"
    );
    jsonschema::meta::validate(&s).expect("valid against its meta-schema");
    jsonschema::meta::validate(&closed(&s)).expect("the closed schema too");
}

/// `schema` with `additionalProperties: false` on every object schema that lists
/// properties and says nothing about others: only what the schema describes may appear.
fn closed(schema: &Value) -> Value {
    let mut s = schema.clone();
    close(&mut s);
    s
}

fn close(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            // `default` and `examples` hold instances, not schemas
            for (k, x) in m.iter_mut() {
                if k != "default" && k != "examples" {
                    close(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}

/// The errors of `instance` against `schema` (empty: valid).
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let v = jsonschema::validator_for(schema).expect("compile the schema");
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// `r` written by `report::run::write`, read back from its `results.json`.
fn written(r: &RunResults, case: &str) -> Value {
    let dir = TempDir::new(&format!("schema-{case}"));
    let w = report::run::write(r, &dir.0).expect("write the report");
    let text = std::fs::read_to_string(&w.json).expect("read results.json");
    serde_json::from_str(&text).expect("results.json is JSON")
}

/// A run with every optional part present and every list non-empty, so that every part
/// of the schema is met: a search with latency trials (each with its latency stream
/// broken down hop by hop), the up-port policy with its calibration and costs, the
/// generator's ceiling with its receiver, a soak-style timeline, a switch not checked.
fn everything() -> RunResults {
    let mut r = search(100_000.0, Some(40_000.0), Some(63_000.0));
    let part = |m: f64| Part {
        mean_ns: m,
        p50_ns: m as u64,
        p99_ns: m as u64 * 2,
    };
    let probe = ProbeStream {
        offered_pps: 1000.0,
        sent: 2000,
        received: 1999,
        lost: 1,
        reordered: 0,
        latency: latency(&samples(7_000, 1999)),
        hops: Some(HopBreakdown {
            slots: 6,
            frames: 1990,
            incomplete: 9,
            switch_clocks: false,
            paths: vec![PathParts {
                hops: 3,
                frames: 1990,
                measured: part(20_000.0),
                host_stack: part(3_000.0),
                hop: (1..=3)
                    .map(|level| HopParts {
                        level,
                        rx_ring: part(2_000.0),
                        residence: part(500.0),
                        link: part(1_000.0),
                        queue_mean: 0.5,
                    })
                    .collect(),
                sum_ratio: 0.99,
            }],
        }),
    };
    let mut loaded = trial(
        4_000.0,
        8_000,
        7_999,
        2.0,
        latency(&samples(9_000, 7999)),
        None,
    );
    loaded.probe = Some(probe);
    let mut timeline = Timeline::new(1_000_000, 100_000_000, 2_000_000_000);
    timeline.sent.iter_mut().for_each(|s| *s = 400);
    timeline.received.iter_mut().for_each(|s| *s = 399);
    loaded.timeline = Some(timeline);
    let s = r.search.as_mut().expect("a search");
    s.confirm_s = 10.0;
    s.latency = vec![LoadLatency {
        fraction: 0.1,
        trial: loaded,
    }];
    r.meta.generator_ceiling = Some(GeneratorCeiling {
        tx_threads: 1,
        burst: 32,
        frame_len: 60,
        seconds: 1.0,
        sent: 900_000,
        sent_pps: 900_000.0,
        warmup_sent: 90_000,
        sink_rx: 990_000,
        burst_span_mean_ns: 1234.5,
        burst_span_max_ns: 40_000,
        receiver: Some(CeilingRx {
            received: 899_000,
            received_pps: 899_000.0,
            lost: 1000,
            duplicates: 0,
            reordered: 0,
            foreign: 0,
            kernel_drops: 1000,
            p50_ns: 9_000,
            p99_ns: 30_000,
            max_ns: 90_000,
        }),
        at_up: false,
    });
    r.meta.target_build = Some("/usr/local/bin/simple_switch: performance build".into());
    r.meta.guests = Some("KVM".into());
    let calibration = trial(
        50_000.0,
        100_000,
        100_000,
        1.0,
        latency(&samples(8_000, 1000)),
        None,
    );
    r.up_policy = Some(UpPolicyResult {
        policy: "flowlets".into(),
        gap_us: 40,
        source: GapSource::Measured,
        calibration: Some(calibration.clone()),
        spread_ns: Some(35_000),
        costs: vec![PolicyCost {
            policy: "per-packet".into(),
            gap_us: 0,
            trial: calibration,
        }],
        not_set: vec!["spine-1".into()],
    });
    r.limit = Some(canopy_testbed::report::results::Limit {
        by: "a switch's CPU".into(),
        evidence: vec!["switch receive rings overflowed".into()],
    });
    r.switches[1].conserved = false;
    r.switches[1].unchecked = Some("did not answer after the run".into());
    r
}

#[test]
fn written_results_validate_against_the_schema_closed_or_not() {
    let schema = json_schema();
    let strict = closed(&schema);
    for (case, r) in [
        ("fixed", fixed_rate()),
        ("search", search(100_000.0, Some(40_000.0), Some(63_000.0))),
        ("no-ndr", search(100_000.0, None, None)),
        ("empty", RunResults::default()),
        ("everything", everything()),
    ] {
        let json = written(&r, case);
        assert_eq!(errors(&schema, &json), Vec::<String>::new(), "{case}");
        assert_eq!(
            errors(&strict, &json),
            Vec::<String>::new(),
            "{case}, closed"
        );
    }
}

#[test]
fn the_validation_catches_an_undescribed_missing_or_mistyped_field() {
    let schema = json_schema();
    let strict = closed(&schema);
    let json = written(&everything(), "catches");
    let with = |path: &[&str], f: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut j = json.clone();
        let mut at = &mut j;
        for p in path {
            at = match p.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*p],
            };
        }
        f(at.as_object_mut().expect("an object"));
        j
    };
    // a field the schema does not describe, at the top and deep inside: the open schema
    // lets it pass (readers of this version keep working), the closed one does not
    for path in [
        &[][..],
        &["meta"],
        &["trials", "0", "latency"],
        &[
            "search", "latency", "0", "trial", "probe", "hops", "paths", "0",
        ],
        &["up_policy", "costs", "0", "trial"],
    ] {
        let j = with(path, &|m| {
            m.insert("added_later".into(), 1.into());
        });
        assert!(errors(&schema, &j).is_empty(), "{path:?}");
        let e = errors(&strict, &j);
        assert!(
            e.iter().any(|e| e.contains("added_later")),
            "{path:?}: {e:?}"
        );
    }
    // a required field missing, and one of the wrong type
    for (path, key) in [
        (&[][..], "trials"),
        (&["meta"][..], "command"),
        (&["switches", "0"][..], "rx"),
        (&["trials", "0"][..], "sent"),
    ] {
        let j = with(path, &|m| {
            m.remove(key).expect("present");
        });
        assert!(!errors(&schema, &j).is_empty(), "{path:?} without {key}");
        let j = with(path, &|m| {
            let other: Value = match m[key] {
                Value::String(_) => 1.into(),
                _ => "a string".into(),
            };
            m.insert(key.into(), other);
        });
        assert!(
            !errors(&schema, &j).is_empty(),
            "{path:?} {key} of another type"
        );
    }
    // a count below zero, and a gap source that is not one
    let j = with(&["links", "0"], &|m| {
        m.insert("frames_ab".into(), (-1).into());
    });
    assert!(!errors(&schema, &j).is_empty(), "negative count");
    let j = with(&["up_policy"], &|m| {
        m.insert("source".into(), "guessed".into());
    });
    assert!(!errors(&schema, &j).is_empty(), "unknown gap source");
}
