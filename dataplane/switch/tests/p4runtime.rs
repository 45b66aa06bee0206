//! The real `canopy-switch` binary as a P4Runtime target (`[p4runtime]`, mem ports, no
//! root): a controller arbitrates, pushes canopy.p4's P4Info, writes the edge switch's
//! entries, reads them back identical, and the switch then forwards as with the tables
//! the JSON protocol pushes; hostile requests are refused with the specification's
//! status and change nothing.

mod common;

use canopy_control::p4::program_p4info;
use canopy_control::p4::runtime::from_state;
use canopy_control::p4::runtime::Pipeline;
use canopy_control::p4::{self, schema, P4State};
use canopy_dataplane::wire::Kind;
use canopy_p4rt::config::P4Info;
use canopy_p4rt::rpc::Status as RpcStatus;
use canopy_p4rt::service::p4_runtime_client::P4RuntimeClient;
use canopy_p4rt::v1::{
    self, entity, stream_message_request, stream_message_response, CapabilitiesRequest, Entity,
    ForwardingPipelineConfig, GetForwardingPipelineConfigRequest, MasterArbitrationUpdate,
    PipelineAction, ReadRequest, SetForwardingPipelineConfigRequest, StreamMessageRequest,
    StreamMessageResponse, TableEntry, Uint128, Update, UpdateType, WriteRequest,
};
use canopy_switch::p4rt::write::MAX_UPDATES;
use canopy_test_utils::switch::{config, mem_ports, Edge};
use common::*;
use prost::Message;
use std::collections::BTreeSet;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Streaming};

type Client = P4RuntimeClient<Channel>;

/// A free loopback port (the kernel's pick, released for the switch to bind).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// The edge switch on 4 mem ports, no tables, serving P4Runtime on a loopback port.
fn start(dir: &Dir) -> (Switch, String) {
    let port = free_port();
    let cfg = config(
        "workers = 1\nmax_sleep_us = 200",
        None,
        &dir.path("switch.sock"),
        &format!("\n[p4runtime]\nlisten = \"127.0.0.1:{port}\"\ndevice_id = 1"),
        &mem_ports(4, 4096),
    );
    (Switch::start(dir, &cfg), format!("http://127.0.0.1:{port}"))
}

/// A test's switch (started by [`start`]), its endpoint's URL, a runtime for the client,
/// the P4Info pushed, its ids, and the edge switch with its entries.
struct Rig {
    _dir: Dir,
    sw: Switch,
    url: String,
    rt: tokio::runtime::Runtime,
    info: P4Info,
    p: Pipeline,
    f: Edge,
    entries: Vec<TableEntry>,
}

fn rig(name: &str) -> Rig {
    let dir = Dir::new(name);
    let (sw, url) = start(&dir);
    let info = program_p4info();
    let p = Pipeline::check(&info).unwrap();
    let (f, entries) = edge_entries(&p);
    Rig {
        _dir: dir,
        sw,
        url,
        rt: runtime(),
        info,
        p,
        f,
        entries,
    }
}

/// Stop the switch: it exits cleanly.
fn stop(sw: Switch) {
    let (status, _) = sw.terminate();
    assert!(status.success(), "{status}");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn connect(url: &str) -> Client {
    for _ in 0..200 {
        let ch = Channel::from_shared(url.to_string()).expect("a URL");
        if let Ok(ch) = ch.connect().await {
            return P4RuntimeClient::new(ch);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no P4Runtime endpoint at {url}");
}

/// A controller's stream: what it sends, and what it receives.
struct Stream {
    tx: mpsc::Sender<StreamMessageRequest>,
    rx: Streaming<StreamMessageResponse>,
}

fn eid(low: u64) -> Option<Uint128> {
    Some(Uint128 { high: 0, low })
}

fn arbitration(device_id: u64, election: Option<Uint128>) -> StreamMessageRequest {
    StreamMessageRequest {
        update: Some(stream_message_request::Update::Arbitration(
            MasterArbitrationUpdate {
                device_id,
                election_id: election,
                ..Default::default()
            },
        )),
    }
}

impl Stream {
    async fn open(c: &mut Client) -> Stream {
        let (tx, rx) = mpsc::channel(8);
        let rx = c
            .stream_channel(ReceiverStream::new(rx))
            .await
            .unwrap()
            .into_inner();
        Stream { tx, rx }
    }

    async fn send(&self, m: StreamMessageRequest) {
        self.tx.send(m).await.unwrap();
    }

    /// The next message: Ok(an arbitration notice's status code), or the status that
    /// ended the stream.
    async fn next(&mut self) -> Result<(i32, MasterArbitrationUpdate), tonic::Status> {
        let m = tokio::time::timeout(Duration::from_secs(10), self.rx.next())
            .await
            .expect("a stream message within 10 s")
            .expect("the stream is open")?;
        match m.update {
            Some(stream_message_response::Update::Arbitration(a)) => {
                Ok((a.status.as_ref().map_or(-1, |s| s.code), a))
            }
            other => panic!("not an arbitration notice: {other:?}"),
        }
    }

    /// Arbitrate with election id `low`: the code of the answer.
    async fn arbitrate(c: &mut Client, low: u64) -> (Stream, i32) {
        let mut s = Stream::open(c).await;
        s.send(arbitration(1, eid(low))).await;
        let (code, _) = s.next().await.unwrap();
        (s, code)
    }
}

fn set(
    action: PipelineAction,
    info: Option<&P4Info>,
    low: u64,
) -> SetForwardingPipelineConfigRequest {
    SetForwardingPipelineConfigRequest {
        device_id: 1,
        election_id: eid(low),
        action: action as i32,
        config: info.map(|i| ForwardingPipelineConfig {
            p4info: i.encode_to_vec(),
            p4_device_config: b"{}".to_vec(),
            cookie: Some(v1::Cookie { cookie: 42 }),
        }),
        ..Default::default()
    }
}

/// The edge switch's entries (and changed default actions) as P4Runtime table entries.
fn edge_entries(p: &Pipeline) -> (Edge, Vec<TableEntry>) {
    let f = Edge::new(Kind::Sliced);
    let st = P4State::from_ops(&p4::entries(&f.tables).unwrap()).unwrap();
    let fresh = P4State::new();
    let mut out = Vec::new();
    for t in 0..schema::TABLES.len() {
        for (k, c) in st.entries(t) {
            out.push(from_state(p, t, Some(k), c));
        }
        if st.default_action(t) != fresh.default_action(t) {
            out.push(from_state(p, t, None, st.default_action(t)));
        }
    }
    (f, out)
}

fn updates(kind: UpdateType, entries: &[TableEntry]) -> Vec<Update> {
    entries
        .iter()
        .map(|e| Update {
            r#type: kind as i32,
            entity: Some(Entity {
                entity: Some(entity::Entity::TableEntry(e.clone())),
            }),
        })
        .collect()
}

/// What programs `entries`: an insert of each entry, a modify of each default action.
fn program(entries: &[TableEntry]) -> Vec<Update> {
    let mut u = updates(UpdateType::Insert, entries);
    for (u, e) in u.iter_mut().zip(entries) {
        if e.is_default_action {
            u.r#type = UpdateType::Modify as i32;
        }
    }
    u
}

fn write(low: u64, updates: Vec<Update>) -> WriteRequest {
    WriteRequest {
        device_id: 1,
        election_id: eid(low),
        updates,
        ..Default::default()
    }
}

/// Every entry (not the defaults) the switch holds, encoded, as a set.
async fn read_all(c: &mut Client) -> BTreeSet<Vec<u8>> {
    let req = ReadRequest {
        device_id: 1,
        entities: vec![Entity {
            entity: Some(entity::Entity::TableEntry(TableEntry::default())),
        }],
        ..Default::default()
    };
    let mut s = c.read(req).await.unwrap().into_inner();
    let mut out = BTreeSet::new();
    while let Some(r) = s.next().await {
        for e in r.unwrap().entities {
            out.insert(e.encode_to_vec());
        }
    }
    out
}

/// The per-update codes of a refused `Write` (from its `p4.v1.Error` details).
fn update_codes(s: &tonic::Status) -> Vec<i32> {
    assert_eq!(s.code(), Code::Unknown, "{s:?}");
    let st = RpcStatus::decode(s.details()).expect("google.rpc.Status details");
    st.details
        .iter()
        .map(|a| {
            assert_eq!(a.type_url, v1::ERROR_TYPE_URL);
            v1::Error::decode(&a.value[..]).unwrap().canonical_code
        })
        .collect()
}

#[test]
fn a_switch_programmed_over_p4runtime_reads_back_and_forwards_as_with_json_tables() {
    let rig = rig("p4rt-fwd");
    assert!(rig.entries.len() > 10, "{} rig.entries", rig.entries.len());
    rig.rt.block_on(async {
        let mut c = connect(&rig.url).await;
        let caps = c
            .capabilities(CapabilitiesRequest::default())
            .await
            .unwrap();
        assert_eq!(
            caps.into_inner().p4runtime_api_version,
            canopy_p4rt::API_VERSION
        );
        let (_s, code) = Stream::arbitrate(&mut c, 1).await;
        assert_eq!(code, 0, "the first controller is primary");
        let get = |t: v1::ResponseType| GetForwardingPipelineConfigRequest {
            device_id: 1,
            response_type: t as i32,
        };
        let none = c
            .get_forwarding_pipeline_config(get(v1::ResponseType::All))
            .await
            .unwrap();
        assert_eq!(none.into_inner().config, None, "no pipeline yet");
        c.set_forwarding_pipeline_config(set(PipelineAction::VerifyAndCommit, Some(&rig.info), 1))
            .await
            .unwrap();
        let got = c
            .get_forwarding_pipeline_config(get(v1::ResponseType::P4infoAndCookie))
            .await
            .unwrap()
            .into_inner()
            .config
            .unwrap();
        assert_eq!(got.p4info, rig.info.encode_to_vec(), "the P4Info as pushed");
        assert_eq!(
            (got.p4_device_config.len(), got.cookie),
            (0, Some(v1::Cookie { cookie: 42 }))
        );

        c.write(write(1, program(&rig.entries))).await.unwrap();
        let want: BTreeSet<Vec<u8>> = rig
            .entries
            .iter()
            .filter(|e| !e.is_default_action)
            .map(|e| {
                Entity {
                    entity: Some(entity::Entity::TableEntry(e.clone())),
                }
                .encode_to_vec()
            })
            .collect();
        assert_eq!(read_all(&mut c).await, want, "read back as written");
    });

    // the JSON protocol cannot take the tables over
    let v = rig.sw.req(&replace_tables(&rig.f.tables));
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("programmed over P4Runtime"),
        "{v}"
    );
    let h = rig.sw.ok(&canopy_proto::mgmt::Request::Health {});
    assert_eq!(h["tables"], "p4runtime:device1", "{h}");

    // forwarding: each case reaches the port and bytes the JSON tables' decision names
    for (ing, fr) in edge_cases(&rig.f, " over p4runtime") {
        let (want, ports) = rig.f.expect(ing as u16, &fr);
        rig.sw.inject(ing as u16, std::slice::from_ref(&fr));
        rig.sw.settle();
        assert_eq!(rig.sw.capture(ports[0]), vec![want], "from port {ing}");
    }

    // the program's counters read from the switch's: port 0 received one frame
    rig.rt.block_on(async {
        let mut c = connect(&rig.url).await;
        let rx = rig
            .p
            .counters
            .iter()
            .find(|(_, &c)| c == schema::PORT_RX)
            .map(|(&id, _)| id)
            .unwrap();
        let req = ReadRequest {
            device_id: 1,
            entities: vec![Entity {
                entity: Some(entity::Entity::CounterEntry(v1::CounterEntry {
                    counter_id: rx,
                    index: Some(v1::Index { index: 0 }),
                    data: None,
                })),
            }],
            ..Default::default()
        };
        let r = c
            .read(req)
            .await
            .unwrap()
            .into_inner()
            .next()
            .await
            .unwrap()
            .unwrap();
        match &r.entities[0].entity {
            Some(entity::Entity::CounterEntry(e)) => {
                assert_eq!(e.data.unwrap().packet_count, 1, "{e:?}")
            }
            other => panic!("{other:?}"),
        }
    });
    stop(rig.sw);
}

#[test]
fn hostile_requests_are_refused_with_their_status_and_change_nothing() {
    let rig = rig("p4rt-hostile");
    let keyed: Vec<TableEntry> = rig
        .entries
        .iter()
        .filter(|e| !e.is_default_action)
        .cloned()
        .collect();
    rig.rt.block_on(async {
        let mut c = connect(&rig.url).await;
        // before any controller: no primary, writes refused
        let r = c
            .set_forwarding_pipeline_config(set(
                PipelineAction::VerifyAndCommit,
                Some(&rig.info),
                5,
            ))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::PermissionDenied);
        let (mut primary, code) = Stream::arbitrate(&mut c, 5).await;
        assert_eq!(code, 0);
        let r = c
            .write(write(5, updates(UpdateType::Insert, &keyed[..1])))
            .await;
        assert_eq!(
            r.unwrap_err().code(),
            Code::FailedPrecondition,
            "no pipeline yet"
        );
        // a P4Info that is not the program's
        let mut bad = rig.info.clone();
        bad.tables[0].match_fields[0].bitwidth += 1;
        let r = c
            .set_forwarding_pipeline_config(set(PipelineAction::VerifyAndCommit, Some(&bad), 5))
            .await;
        let e = r.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
        c.set_forwarding_pipeline_config(set(PipelineAction::VerifyAndCommit, Some(&rig.info), 5))
            .await
            .unwrap();
        c.write(write(5, program(&rig.entries))).await.unwrap();
        let before = read_all(&mut c).await;

        // unknown table id, too wide a value, a negative priority: refused, per update
        let mut unknown = keyed[0].clone();
        unknown.table_id = 0x0200_0fff;
        let mut wide = keyed[0].clone();
        if let Some(v1::field_match::FieldMatchType::Exact(x)) =
            &mut wide.r#match[0].field_match_type
        {
            x.value = vec![0xff; 8];
        }
        let mut negative = keyed[0].clone();
        negative.priority = -1;
        for (e, want) in [
            (unknown, Code::NotFound),
            (wide, Code::OutOfRange),
            (negative, Code::InvalidArgument),
        ] {
            let r = c.write(write(5, updates(UpdateType::Insert, &[e]))).await;
            assert_eq!(update_codes(&r.unwrap_err()), [want as i32]);
        }
        // an existing entry inserted again, in a ROLLBACK batch with a good delete
        let mut w = write(5, updates(UpdateType::Insert, &keyed[..1]));
        w.updates.extend(updates(UpdateType::Delete, &keyed[1..2]));
        w.atomicity = v1::Atomicity::RollbackOnError as i32;
        let r = c.write(w).await;
        assert_eq!(
            update_codes(&r.unwrap_err()),
            [Code::AlreadyExists as i32, Code::Aborted as i32]
        );
        // more updates than one write may carry
        let big = write(
            5,
            updates(UpdateType::Modify, &vec![keyed[0].clone(); MAX_UPDATES + 1]),
        );
        let r = c.write(big).await;
        assert_eq!(r.unwrap_err().code(), Code::ResourceExhausted);
        // a big batch whose every update fails: too many details for the trailers, so
        // the first failure's code and a message instead
        let r = c
            .write(write(
                5,
                updates(UpdateType::Insert, &vec![keyed[0].clone(); 5000]),
            ))
            .await;
        let e = r.unwrap_err();
        assert_eq!(e.code(), Code::AlreadyExists, "{e:?}");
        assert!(
            e.message()
                .starts_with("5000 of 5000 updates failed (per-update details left out"),
            "{e:?}"
        );
        // another device
        let mut w = write(5, updates(UpdateType::Delete, &keyed[..1]));
        w.device_id = 9;
        assert_eq!(c.write(w).await.unwrap_err().code(), Code::NotFound);

        // a second controller with a lower election id is a backup and may not write
        let mut c2 = connect(&rig.url).await;
        let (_backup, code) = Stream::arbitrate(&mut c2, 3).await;
        assert_eq!(code, Code::AlreadyExists as i32);
        let r = c2
            .write(write(3, updates(UpdateType::Delete, &keyed[..1])))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::PermissionDenied);
        // one claiming the primary's election id is refused and its stream ended
        let mut dup = Stream::open(&mut c2).await;
        dup.send(arbitration(1, eid(5))).await;
        assert_eq!(dup.next().await.unwrap_err().code(), Code::InvalidArgument);
        // and a stream that does not start with arbitration
        let mut rude = Stream::open(&mut c2).await;
        rude.send(StreamMessageRequest {
            update: Some(stream_message_request::Update::Packet(vec![1, 2, 3])),
        })
        .await;
        assert_eq!(
            rude.next().await.unwrap_err().code(),
            Code::FailedPrecondition
        );

        assert_eq!(read_all(&mut c).await, before, "nothing changed");

        // a higher election id takes over: the old primary is told, and refused
        let mut c3 = connect(&rig.url).await;
        let (mut newer, code) = Stream::arbitrate(&mut c3, 9).await;
        assert_eq!(code, 0);
        let (code, a) = primary.next().await.unwrap();
        assert_eq!((code, a.election_id), (Code::AlreadyExists as i32, eid(9)));
        let r = c
            .write(write(5, updates(UpdateType::Delete, &keyed[..1])))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::PermissionDenied);
        // the new primary leaves: everyone is told there is none
        drop(newer.tx);
        let _ = newer.rx.next().await;
        let (code, _) = primary.next().await.unwrap();
        assert_eq!(code, Code::NotFound as i32);
        assert_eq!(read_all(&mut c).await, before, "nothing changed");
    });
    stop(rig.sw);
}

#[test]
fn pipeline_actions_save_commit_and_reconcile_as_the_specification_says() {
    let rig = rig("p4rt-pipeline");
    let open = rig.rt.block_on(async {
        let mut c = connect(&rig.url).await;
        let (s, _) = Stream::arbitrate(&mut c, 1).await;
        let get = GetForwardingPipelineConfigRequest {
            device_id: 1,
            response_type: 0,
        };
        // VERIFY changes nothing; COMMIT without a saved config is NOT_FOUND
        c.set_forwarding_pipeline_config(set(PipelineAction::Verify, Some(&rig.info), 1))
            .await
            .unwrap();
        assert_eq!(
            c.get_forwarding_pipeline_config(get)
                .await
                .unwrap()
                .into_inner()
                .config,
            None
        );
        let r = c
            .set_forwarding_pipeline_config(set(PipelineAction::Commit, None, 1))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::NotFound);
        let r = c
            .set_forwarding_pipeline_config(set(PipelineAction::Verify, None, 1))
            .await;
        assert_eq!(r.unwrap_err().code(), Code::InvalidArgument);
        // VERIFY_AND_SAVE: writes go to the saved config, the data plane waits for COMMIT
        c.set_forwarding_pipeline_config(set(PipelineAction::VerifyAndSave, Some(&rig.info), 1))
            .await
            .unwrap();
        c.write(write(1, program(&rig.entries))).await.unwrap();
        let saved = read_all(&mut c).await;
        assert_eq!(
            saved.len(),
            rig.entries.iter().filter(|e| !e.is_default_action).count()
        );
        assert_eq!(
            rig.sw.ok(&canopy_proto::mgmt::Request::Health {})["tables_loaded"],
            false
        );
        c.set_forwarding_pipeline_config(set(PipelineAction::Commit, None, 1))
            .await
            .unwrap();
        assert_eq!(
            rig.sw.ok(&canopy_proto::mgmt::Request::Health {})["tables"],
            "p4runtime:device1"
        );
        assert_eq!(read_all(&mut c).await, saved);
        // RECONCILE_AND_COMMIT keeps the state; VERIFY_AND_COMMIT starts afresh
        c.set_forwarding_pipeline_config(set(
            PipelineAction::ReconcileAndCommit,
            Some(&rig.info),
            1,
        ))
        .await
        .unwrap();
        assert_eq!(read_all(&mut c).await, saved);
        c.set_forwarding_pipeline_config(set(PipelineAction::VerifyAndCommit, Some(&rig.info), 1))
            .await
            .unwrap();
        assert!(read_all(&mut c).await.is_empty());
        (c, s)
    });
    // a controller still connected does not hold the switch's shutdown up
    stop(rig.sw);
    drop(open);
}

/// A test CA and certificates it signs: (CA PEM, issuer).
struct Ca {
    pem: String,
    issuer: rcgen::Issuer<'static, rcgen::KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Ca {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name.push(DnType::CommonName, name);
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = p.self_signed(&key).unwrap();
        Ca {
            pem: cert.pem(),
            issuer: rcgen::Issuer::new(p, key),
        }
    }

    /// A certificate for `names`, for a server or a client: (certificate PEM, key PEM).
    fn sign(&self, names: &[&str], server: bool) -> (String, String) {
        use rcgen::{CertificateParams, ExtendedKeyUsagePurpose as U, KeyPair};
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let mut p = CertificateParams::new(names).unwrap();
        p.extended_key_usages = vec![if server { U::ServerAuth } else { U::ClientAuth }];
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// `Capabilities` over TLS with `ca` trusted and `identity` (if any) presented.
async fn tls_capabilities(
    url: &str,
    ca: &str,
    identity: Option<&(String, String)>,
) -> Result<String, String> {
    use tonic::transport::{Certificate, ClientTlsConfig, Identity};
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca))
        .domain_name("localhost");
    if let Some((c, k)) = identity {
        tls = tls.identity(Identity::from_pem(c, k));
    }
    let ch = Channel::from_shared(url.to_string())
        .unwrap()
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| format!("connect: {e:?}"))?;
    let mut c = P4RuntimeClient::new(ch);
    c.capabilities(CapabilitiesRequest::default())
        .await
        .map(|r| r.into_inner().p4runtime_api_version)
        .map_err(|e| format!("rpc: {e:?}"))
}

#[test]
fn with_tls_only_a_controller_with_a_certificate_of_the_client_ca_is_served() {
    let dir = Dir::new("p4rt-tls");
    let ca = Ca::new("canopy test CA");
    let (cert, key) = ca.sign(&["localhost", "127.0.0.1"], true);
    for (name, text) in [
        ("ca.pem", &ca.pem),
        ("switch.pem", &cert),
        ("switch.key", &key),
    ] {
        std::fs::write(dir.path(name), text).unwrap();
    }
    let port = free_port();
    let cfg = config(
        "workers = 1\nmax_sleep_us = 200",
        None,
        &dir.path("switch.sock"),
        &format!(
            "\n[p4runtime]\nlisten = \"127.0.0.1:{port}\"\ntls_cert = \"switch.pem\"\ntls_key = \"switch.key\"\nclient_ca = \"ca.pem\""
        ),
        &mem_ports(2, 64),
    );
    let sw = Switch::start(&dir, &cfg);
    let url = format!("https://localhost:{port}");
    let rt = runtime();
    rt.block_on(async {
        let good = ca.sign(&["controller"], false);
        let mut ok = Err(String::new());
        for _ in 0..100 {
            ok = tls_capabilities(&url, &ca.pem, Some(&good)).await;
            if ok.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(ok.as_deref(), Ok(canopy_p4rt::API_VERSION));
        // no client certificate, one of another CA, and plaintext: all refused
        let rogue = Ca::new("another CA").sign(&["controller"], false);
        for id in [None, Some(&rogue)] {
            let r = tls_capabilities(&url, &ca.pem, id).await;
            assert!(
                r.is_err(),
                "served without a certificate of the client CA: {r:?}"
            );
        }
        let plain = Channel::from_shared(format!("http://127.0.0.1:{port}")).unwrap();
        let r = match plain.connect().await {
            Ok(ch) => P4RuntimeClient::new(ch)
                .capabilities(CapabilitiesRequest::default())
                .await
                .map(drop)
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        assert!(r.is_err(), "served in plaintext");
    });
    stop(sw);
}

#[test]
fn check_config_names_the_p4runtime_endpoint() {
    let dir = Dir::new("p4rt-check");
    let cfg = config(
        "workers = 1",
        None,
        &dir.path("switch.sock"),
        "\n[p4runtime]\nlisten = \"127.0.0.1:9559\"\ndevice_id = 3",
        &mem_ports(2, 64),
    );
    let path = dir.path("switch.toml");
    std::fs::write(&path, cfg).unwrap();
    let (status, out, err) = run_bin(&["check-config", "--config", path.to_str().unwrap()]);
    assert!(status.success(), "{err}");
    assert!(
        out.lines()
            .any(|l| l == "p4runtime  127.0.0.1:9559 device 3, plaintext (loopback only)"),
        "{out}"
    );
}
