//! The messages of `canopy_p4rt`, written from the P4Runtime Specification, against the
//! official definitions (the PyPI `p4runtime` package and `googleapis-common-protos`,
//! which `scripts/install-deps` installs): for each case the official Python classes
//! parse a proto3 JSON text and encode it, our message decodes those bytes into the value
//! the test expects; and our encoding of that value, decoded by the official classes,
//! gives the JSON text back. A field with a wrong number or type fails one way or the
//! other. Without the Python package the test prints `SKIP` and passes.

use canopy_p4rt::config::{self, match_field, P4Info};
use canopy_p4rt::rpc::{Any, Status};
use canopy_p4rt::v1::*;
use prost::Message;
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

/// The official classes: `encode` turns `[type, json]` pairs into hex, `decode` turns
/// `[type, hex]` pairs into `MessageToDict` objects.
const PY: &str = r#"
import json, os, sys
os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
from google.protobuf import json_format
from p4.v1 import p4runtime_pb2 as rt
from p4.config.v1 import p4info_pb2 as info
from google.rpc import status_pb2
def cls(name):
    mod, _, msg = name.rpartition(".")
    m = {"p4.v1": rt, "p4.config.v1": info, "google.rpc": status_pb2}[mod]
    for part in msg.split("/"):
        m = getattr(m, part)
    return m
mode, cases = sys.argv[1], json.load(sys.stdin)
out = []
for ty, arg in cases:
    if mode == "encode":
        m = json_format.Parse(json.dumps(arg), cls(ty)())
        out.append(m.SerializeToString(deterministic=True).hex())
    else:
        m = cls(ty)()
        m.ParseFromString(bytes.fromhex(arg))
        out.append(json_format.MessageToDict(m))
json.dump(out, sys.stdout)
"#;

fn python(mode: &str, cases: &Value) -> Option<Value> {
    let mut child = Command::new("python3")
        .args(["-c", PY, mode])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()?
        .write_all(cases.to_string().as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if err.contains("ModuleNotFoundError") {
            return None;
        }
        panic!("python {mode}: {err}");
    }
    Some(serde_json::from_slice(&out.stdout).expect("python's JSON"))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A check of our decoding of the official encoding.
type Check = Box<dyn Fn(&[u8])>;

/// One message: its full name, its proto3 JSON (as `MessageToDict` writes it), our
/// encoding of the value the test expects, and a check of our decoding of Python's bytes.
struct Case {
    ty: &'static str,
    json: Value,
    ours: Vec<u8>,
    check: Check,
}

fn case<M: Message + Default + PartialEq + std::fmt::Debug + 'static>(
    ty: &'static str,
    json: Value,
    want: M,
) -> Case {
    let ours = want.encode_to_vec();
    Case {
        ty,
        json,
        ours,
        check: Box::new(move |b| {
            let got = M::decode(b).unwrap_or_else(|e| panic!("{ty}: {e}"));
            assert_eq!(got, want, "{ty}: Python's bytes decode to another value");
        }),
    }
}

fn exact(field_id: u32, v: &[u8]) -> FieldMatch {
    FieldMatch {
        field_id,
        field_match_type: Some(field_match::FieldMatchType::Exact(field_match::Exact {
            value: v.to_vec(),
        })),
    }
}

fn p4info() -> P4Info {
    P4Info {
        pkg_info: Some(config::PkgInfo {
            arch: "v1model".into(),
            ..Default::default()
        }),
        tables: vec![config::Table {
            preamble: Some(config::Preamble {
                id: 33_554_433,
                name: "CanopyIngress.pathid_lpm".into(),
                alias: "pathid_lpm".into(),
                annotations: vec![],
            }),
            match_fields: vec![
                config::MatchField {
                    id: 1,
                    name: "hdr.pathid.id".into(),
                    bitwidth: 64,
                    r#match: Some(config::match_field::Match::MatchType(
                        match_field::MatchType::Ternary as i32,
                    )),
                },
                config::MatchField {
                    id: 2,
                    name: "hdr.pathid.id_len".into(),
                    bitwidth: 8,
                    r#match: Some(config::match_field::Match::MatchType(
                        match_field::MatchType::Range as i32,
                    )),
                },
            ],
            action_refs: vec![config::ActionRef {
                id: 16_777_217,
                scope: config::action_ref::Scope::DefaultOnly as i32,
            }],
            size: 65_536,
            ..Default::default()
        }],
        actions: vec![config::Action {
            preamble: Some(config::Preamble {
                id: 16_777_217,
                name: "CanopyIngress.pid_port".into(),
                alias: "pid_port".into(),
                annotations: vec![],
            }),
            params: vec![config::action::Param {
                id: 2,
                name: "port".into(),
                bitwidth: 9,
            }],
        }],
        counters: vec![config::Counter {
            preamble: Some(config::Preamble {
                id: 302_011_205,
                name: "CanopyIngress.canopy_drops".into(),
                alias: "canopy_drops".into(),
                annotations: vec![],
            }),
            spec: Some(config::CounterSpec {
                unit: config::counter_spec::Unit::Packets as i32,
            }),
            size: 32,
        }],
        // one action profile, kept encoded: `p4.config.v1.ActionProfile` with a preamble
        // of id 7 and `with_selector`
        action_profiles: vec![vec![0x0a, 0x02, 0x08, 0x07, 0x18, 0x01]],
        ..Default::default()
    }
}

fn cases() -> Vec<Case> {
    let table_entry = TableEntry {
        table_id: 33_554_433,
        r#match: vec![
            exact(1, &[1, 2]),
            FieldMatch {
                field_id: 2,
                field_match_type: Some(field_match::FieldMatchType::Ternary(
                    field_match::Ternary {
                        value: vec![0x80],
                        mask: vec![0xc0],
                    },
                )),
            },
            FieldMatch {
                field_id: 3,
                field_match_type: Some(field_match::FieldMatchType::Range(field_match::Range {
                    low: vec![3],
                    high: vec![64],
                })),
            },
            FieldMatch {
                field_id: 4,
                field_match_type: Some(field_match::FieldMatchType::Lpm(field_match::Lpm {
                    value: vec![10, 0],
                    prefix_len: 16,
                })),
            },
            FieldMatch {
                field_id: 5,
                field_match_type: Some(field_match::FieldMatchType::Optional(
                    field_match::Optional { value: vec![9] },
                )),
            },
        ],
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: 16_777_217,
                params: vec![action::Param {
                    param_id: 2,
                    value: vec![1, 255],
                }],
            })),
        }),
        priority: 4,
        controller_metadata: 99,
        metadata: vec![7],
        ..Default::default()
    };
    let entry_json = json!({
        "tableId": 33554433,
        "match": [
            {"fieldId": 1, "exact": {"value": "AQI="}},
            {"fieldId": 2, "ternary": {"value": "gA==", "mask": "wA=="}},
            {"fieldId": 3, "range": {"low": "Aw==", "high": "QA=="}},
            {"fieldId": 4, "lpm": {"value": "CgA=", "prefixLen": 16}},
            {"fieldId": 5, "optional": {"value": "CQ=="}}
        ],
        "action": {"action": {"actionId": 16777217, "params": [{"paramId": 2, "value": "Af8="}]}},
        "priority": 4,
        "controllerMetadata": "99",
        "metadata": "Bw=="
    });
    let default_entry = TableEntry {
        table_id: 33_554_434,
        is_default_action: true,
        action: Some(TableAction {
            r#type: Some(table_action::Type::Action(Action {
                action_id: 16_777_218,
                params: vec![],
            })),
        }),
        ..Default::default()
    };
    let election = Some(Uint128 { high: 1, low: 2 });
    let info = p4info();
    let p4err = Error {
        canonical_code: 6,
        message: "exists".into(),
        space: "canopy".into(),
        code: 0,
        details: None,
    };
    vec![
        case(
            "p4.v1.WriteRequest",
            json!({
                "deviceId": "3",
                "role": "r",
                "electionId": {"high": "1", "low": "2"},
                "updates": [
                    {"type": "INSERT", "entity": {"tableEntry": entry_json}},
                    {"type": "MODIFY", "entity": {"tableEntry": {
                        "tableId": 33554434, "isDefaultAction": true,
                        "action": {"action": {"actionId": 16777218}}}}},
                    {"type": "DELETE", "entity": {"counterEntry": {
                        "counterId": 302011205, "index": {"index": "5"},
                        "data": {"byteCount": "10", "packetCount": "1"}}}}
                ],
                "atomicity": "DATAPLANE_ATOMIC"
            }),
            WriteRequest {
                device_id: 3,
                role: "r".into(),
                election_id: election,
                updates: vec![
                    Update {
                        r#type: UpdateType::Insert as i32,
                        entity: Some(Entity {
                            entity: Some(entity::Entity::TableEntry(table_entry.clone())),
                        }),
                    },
                    Update {
                        r#type: UpdateType::Modify as i32,
                        entity: Some(Entity {
                            entity: Some(entity::Entity::TableEntry(default_entry)),
                        }),
                    },
                    Update {
                        r#type: UpdateType::Delete as i32,
                        entity: Some(Entity {
                            entity: Some(entity::Entity::CounterEntry(CounterEntry {
                                counter_id: 302_011_205,
                                index: Some(Index { index: 5 }),
                                data: Some(CounterData {
                                    byte_count: 10,
                                    packet_count: 1,
                                }),
                            })),
                        }),
                    },
                ],
                atomicity: Atomicity::DataplaneAtomic as i32,
                ..Default::default()
            },
        ),
        case(
            "p4.v1.ReadRequest",
            json!({"deviceId": "1", "entities": [{"tableEntry": {}}, {"counterEntry": {"counterId": 9}}]}),
            ReadRequest {
                device_id: 1,
                role: String::new(),
                entities: vec![
                    Entity {
                        entity: Some(entity::Entity::TableEntry(TableEntry::default())),
                    },
                    Entity {
                        entity: Some(entity::Entity::CounterEntry(CounterEntry {
                            counter_id: 9,
                            ..Default::default()
                        })),
                    },
                ],
            },
        ),
        case(
            "p4.v1.ReadResponse",
            json!({"entities": [{"tableEntry": entry_json}]}),
            ReadResponse {
                entities: vec![Entity {
                    entity: Some(entity::Entity::TableEntry(table_entry)),
                }],
            },
        ),
        case(
            "p4.v1.StreamMessageRequest",
            json!({"arbitration": {"deviceId": "1", "role": {"name": "sdn"}, "electionId": {"low": "10"}}}),
            StreamMessageRequest {
                update: Some(stream_message_request::Update::Arbitration(
                    MasterArbitrationUpdate {
                        device_id: 1,
                        role: Some(Role {
                            name: "sdn".into(),
                            ..Default::default()
                        }),
                        election_id: Some(Uint128 { high: 0, low: 10 }),
                        status: None,
                    },
                )),
            },
        ),
        case(
            "p4.v1.StreamMessageResponse",
            json!({"arbitration": {"deviceId": "1", "electionId": {"low": "10"},
                   "status": {"code": 6, "message": "a backup"}}}),
            StreamMessageResponse {
                update: Some(stream_message_response::Update::Arbitration(
                    MasterArbitrationUpdate {
                        device_id: 1,
                        role: None,
                        election_id: Some(Uint128 { high: 0, low: 10 }),
                        status: Some(Status {
                            code: 6,
                            message: "a backup".into(),
                            details: vec![],
                        }),
                    },
                )),
            },
        ),
        case(
            "p4.v1.StreamMessageResponse",
            json!({"error": {"canonicalCode": 12, "message": "no packet I/O"}}),
            StreamMessageResponse {
                update: Some(stream_message_response::Update::Error(StreamError {
                    canonical_code: 12,
                    message: "no packet I/O".into(),
                    ..Default::default()
                })),
            },
        ),
        case(
            "p4.config.v1.P4Info",
            json!({
                "pkgInfo": {"arch": "v1model"},
                "tables": [{
                    "preamble": {"id": 33554433, "name": "CanopyIngress.pathid_lpm", "alias": "pathid_lpm"},
                    "matchFields": [
                        {"id": 1, "name": "hdr.pathid.id", "bitwidth": 64, "matchType": "TERNARY"},
                        {"id": 2, "name": "hdr.pathid.id_len", "bitwidth": 8, "matchType": "RANGE"}
                    ],
                    "actionRefs": [{"id": 16777217, "scope": "DEFAULT_ONLY"}],
                    "size": "65536"
                }],
                "actions": [{
                    "preamble": {"id": 16777217, "name": "CanopyIngress.pid_port", "alias": "pid_port"},
                    "params": [{"id": 2, "name": "port", "bitwidth": 9}]
                }],
                "actionProfiles": [{"preamble": {"id": 7}, "withSelector": true}],
                "counters": [{
                    "preamble": {"id": 302011205, "name": "CanopyIngress.canopy_drops", "alias": "canopy_drops"},
                    "spec": {"unit": "PACKETS"},
                    "size": "32"
                }]
            }),
            info.clone(),
        ),
        case(
            "p4.v1.SetForwardingPipelineConfigRequest",
            json!({
                "deviceId": "1",
                "electionId": {"high": "1", "low": "2"},
                "action": "VERIFY_AND_COMMIT",
                "config": {"p4info": {"pkgInfo": {"arch": "v1model"}}, "p4DeviceConfig": "e30=",
                           "cookie": {"cookie": "42"}}
            }),
            SetForwardingPipelineConfigRequest {
                device_id: 1,
                election_id: election,
                action: PipelineAction::VerifyAndCommit as i32,
                config: Some(ForwardingPipelineConfig {
                    p4info: P4Info {
                        pkg_info: Some(config::PkgInfo {
                            arch: "v1model".into(),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }
                    .encode_to_vec(),
                    p4_device_config: b"{}".to_vec(),
                    cookie: Some(Cookie { cookie: 42 }),
                }),
                ..Default::default()
            },
        ),
        case(
            "p4.v1.GetForwardingPipelineConfigRequest",
            json!({"deviceId": "1", "responseType": "COOKIE_ONLY"}),
            GetForwardingPipelineConfigRequest {
                device_id: 1,
                response_type: ResponseType::CookieOnly as i32,
            },
        ),
        case(
            "p4.v1.CapabilitiesResponse",
            json!({"p4runtimeApiVersion": "1.4.0"}),
            CapabilitiesResponse {
                p4runtime_api_version: "1.4.0".into(),
            },
        ),
        case(
            "google.rpc.Status",
            json!({"code": 2, "message": "1 of 2 updates failed", "details": [
                {"@type": "type.googleapis.com/p4.v1.Error", "canonicalCode": 6,
                 "message": "exists", "space": "canopy"}]}),
            Status {
                code: 2,
                message: "1 of 2 updates failed".into(),
                details: vec![Any::pack(ERROR_TYPE_URL, &p4err)],
            },
        ),
    ]
}

#[test]
fn every_message_agrees_with_the_official_definitions_both_ways() {
    let cases = cases();
    let enc: Value = cases.iter().map(|c| json!([c.ty, c.json])).collect();
    let Some(theirs) = python("encode", &enc) else {
        eprintln!("SKIP every_message_agrees_with_the_official_definitions_both_ways: python3 without the `p4runtime` package (scripts/install-deps installs it)");
        return;
    };
    for (c, h) in cases.iter().zip(theirs.as_array().unwrap()) {
        (c.check)(&unhex(h.as_str().unwrap()));
    }
    let dec: Value = cases.iter().map(|c| json!([c.ty, hex(&c.ours)])).collect();
    let back = python("decode", &dec).expect("python ran once already");
    for (c, d) in cases.iter().zip(back.as_array().unwrap()) {
        assert_eq!(
            d, &c.json,
            "{}: our encoding decodes to another message",
            c.ty
        );
    }
}

#[test]
fn election_ids_are_128_bit_numbers() {
    let u = Uint128::of((7u128 << 64) | 9);
    assert_eq!((u.high, u.low), (7, 9));
    assert_eq!(u.get(), (7u128 << 64) | 9);
    assert!(Uint128::of(1 << 64) > Uint128::of(u128::from(u64::MAX)));
}
