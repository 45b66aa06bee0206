//! canopyd as a P4Runtime controller (`docs/canopyd.md`, "P4Runtime targets"): one
//! [`Session`] per switch keeps a connection to its P4Runtime server, holds the
//! `StreamChannel` open as primary (canopyd's election id), makes sure the device runs
//! canopy.p4's pipeline, writes the difference between the tables it runs and the ones
//! wanted, reads them back and reads the program's counters. The same session drives
//! canopy-switch (`[p4runtime]`) and bmv2's `simple_switch_grpc`.
//!
//! **Incarnations.** A P4Runtime target has no process id to give. canopyd sets the
//! pipeline with a cookie of its own (`ForwardingPipelineConfig.cookie`, which the
//! specification keeps for this) and probes with `GetForwardingPipelineConfig`
//! (`COOKIE_ONLY`): a device that restarted has no pipeline, gets a new one with a new
//! cookie, and that new cookie is the new incarnation. A daemon that restarts finds its
//! predecessor's cookie, checks that the P4Info behind it is its own, and reads the
//! tables back before it writes anything.

use canopy_control::p4::counters::{self, MissingCell};
use canopy_control::p4::runtime::sync::{self, ReadBackError};
use canopy_control::p4::runtime::Pipeline;
use canopy_control::p4::P4State;
use canopy_p4rt::config::P4Info;
use canopy_p4rt::service::p4_runtime_client::P4RuntimeClient;
use canopy_p4rt::v1::{
    entity, stream_message_request, stream_message_response, CounterEntry, Entity,
    ForwardingPipelineConfig, GetForwardingPipelineConfigRequest, Index, MasterArbitrationUpdate,
    PipelineAction, ReadRequest, ResponseType, SetForwardingPipelineConfigRequest,
    StreamMessageRequest, Uint128, Update, WriteRequest,
};
use canopy_proto::mgmt::CountersReport;
use prost::Message;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::sync::mpsc;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::Code;

/// Most updates in one `Write` canopyd sends (a target may cap a batch; canopy-switch
/// takes 100,000).
pub const WRITE_BATCH: usize = 10_000;
/// Longest a pipeline set may take: the device loads the program (bmv2 parses its JSON,
/// slowly on a loaded machine).
pub const PIPELINE_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest message canopyd decodes (a `Read` answer of a large table).
pub const MAX_MESSAGE: usize = 64 << 20;

/// Where a P4Runtime server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addr {
    /// `HOST:PORT`.
    Tcp(String),
    /// A Unix socket (`unix:PATH` in the configuration).
    Unix(PathBuf),
}

impl std::fmt::Display for Addr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Addr::Tcp(a) => write!(f, "{a}"),
            Addr::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// A switch's P4Runtime server: where, and its device id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// Where it listens.
    pub addr: Addr,
    /// The device id it serves.
    pub device_id: u64,
}

impl std::fmt::Display for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "p4runtime {} device {}", self.addr, self.device_id)
    }
}

/// The PEM files of mutual TLS, read at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    /// The CA the servers' certificates are signed by.
    pub ca: Vec<u8>,
    /// canopyd's certificate chain.
    pub cert: Vec<u8>,
    /// Its key.
    pub key: Vec<u8>,
    /// The name the servers' certificates carry (default: each address's host).
    pub domain: Option<String>,
}

/// What canopyd pushes to every P4Runtime target, and as whom.
#[derive(Debug, Clone)]
pub struct Program {
    /// The P4Info (canopy.p4's, as p4c or `canopyctl p4info` gives it).
    pub p4info: P4Info,
    /// Its ids, checked against the program.
    pub pipeline: Pipeline,
    /// The target's own form of the program (bmv2: the JSON p4c wrote; canopy-switch:
    /// none).
    pub device_config: Vec<u8>,
    /// canopyd's election id: the highest among the controllers is primary.
    pub election_id: u128,
    /// Mutual TLS for TCP servers (None: plaintext, loopback and Unix sockets only).
    pub tls: Option<Tls>,
    /// Where the P4Info came from, for `--check`.
    pub source: String,
}

/// What went wrong with a P4Runtime target.
#[derive(Debug, Error)]
pub enum P4rtError {
    /// No connection.
    #[error("{addr}: cannot connect: {detail}")]
    Connect {
        /// The server.
        addr: String,
        /// Why.
        detail: String,
    },
    /// An RPC failed.
    #[error("{what}: {code:?}: {message}")]
    Rpc {
        /// Which RPC.
        what: &'static str,
        /// The status code.
        code: Code,
        /// The server's message (escaped and bounded).
        message: String,
    },
    /// Another controller is primary.
    #[error("not primary: another controller has a higher election id ({0})")]
    NotPrimary(String),
    /// The stream ended before arbitration.
    #[error("the stream ended before arbitration")]
    StreamEnded,
    /// Out of time.
    #[error("{0}: no answer in time")]
    Timeout(&'static str),
    /// The device's pipeline is another program (another controller's).
    #[error("the device runs another P4Info")]
    OtherPipeline,
    /// The tables read back are not a state of the program.
    #[error(transparent)]
    ReadBack(#[from] ReadBackError),
    /// A counter cell was not answered.
    #[error(transparent)]
    Counters(#[from] MissingCell),
}

fn rpc(what: &'static str) -> impl Fn(tonic::Status) -> P4rtError {
    move |s| {
        let mut message = s.message().to_string();
        // a failed Write's per-update errors (the specification's p4.v1.Error details)
        if let Ok(st) = canopy_p4rt::rpc::Status::decode(s.details()) {
            let failed: Vec<String> = st
                .details
                .iter()
                .filter(|d| d.type_url == canopy_p4rt::v1::ERROR_TYPE_URL)
                .filter_map(|d| canopy_p4rt::v1::Error::decode(d.value.as_slice()).ok())
                .filter(|e| e.canonical_code != Code::Ok as i32)
                .map(|e| e.message)
                .take(3)
                .collect();
            if !failed.is_empty() {
                message += &format!(" ({})", failed.join("; "));
            }
        }
        P4rtError::Rpc {
            what,
            code: s.code(),
            message: canopy_proto::text::printable(&message)
                .chars()
                .take(500)
                .collect(),
        }
    }
}

/// A connection that has arbitrated, and what canopyd knows of the device through it.
#[derive(Clone)]
struct Conn {
    client: P4RuntimeClient<Channel>,
    /// False once the stream ended (the server went, or took primacy away).
    alive: Arc<AtomicBool>,
    /// canopyd's half of the stream: the stream lasts as long as this.
    _stream: mpsc::Sender<StreamMessageRequest>,
    /// The pipeline cookie checked to be canopyd's program, and since when.
    cookie: Option<(u64, Instant)>,
    /// The table state the device runs, when known (after a read or a write).
    installed: Option<P4State>,
}

/// One switch's P4Runtime session.
pub struct Session {
    server: Server,
    program: Arc<Program>,
    rt: tokio::runtime::Handle,
    conn: Mutex<Option<Conn>>,
    /// Held while connecting: the prober and the planner may both find the stream gone,
    /// and a second arbitration with the same election id would be refused.
    connecting: tokio::sync::Mutex<()>,
    /// Open the stream and arbitrate (a controller); false for an observer.
    arbitrate: bool,
}

impl Session {
    /// A session with `server` (not connected until first used), on runtime `rt`.
    pub fn new(server: Server, program: Arc<Program>, rt: tokio::runtime::Handle) -> Session {
        Session {
            server,
            program,
            rt,
            conn: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            arbitrate: true,
        }
    }

    /// A session that only reads (counters, table state): it opens no stream and does
    /// not arbitrate, so it takes nothing from the primary controller; P4Runtime lets
    /// any client read. It cannot push, and it knows no cookie.
    pub fn observer(server: Server, program: Arc<Program>, rt: tokio::runtime::Handle) -> Session {
        Session {
            arbitrate: false,
            ..Session::new(server, program, rt)
        }
    }

    /// The server.
    pub fn server(&self) -> &Server {
        &self.server
    }

    fn lock(&self) -> MutexGuard<'_, Option<Conn>> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn election(&self) -> Option<Uint128> {
        Some(Uint128::of(self.program.election_id))
    }

    /// Run `f` on the runtime within `timeout`.
    fn run<T>(
        &self,
        what: &'static str,
        timeout: Duration,
        f: impl Future<Output = Result<T, P4rtError>>,
    ) -> Result<T, P4rtError> {
        self.rt
            .block_on(async { tokio::time::timeout(timeout, f).await })
            .unwrap_or(Err(P4rtError::Timeout(what)))
    }

    /// The live connection, connecting and arbitrating first when there is none.
    async fn conn(&self) -> Result<Conn, P4rtError> {
        let live = || {
            self.lock()
                .as_ref()
                .filter(|c| c.alive.load(Ordering::Acquire))
                .cloned()
        };
        if let Some(c) = live() {
            return Ok(c);
        }
        let _one = self.connecting.lock().await;
        // another caller may have connected while this one waited
        if let Some(c) = live() {
            return Ok(c);
        }
        *self.lock() = None;
        let c = self.connect().await?;
        *self.lock() = Some(c.clone());
        Ok(c)
    }

    async fn channel(&self) -> Result<Channel, P4rtError> {
        let fail = |detail: String| P4rtError::Connect {
            addr: self.server.addr.to_string(),
            detail,
        };
        match &self.server.addr {
            Addr::Tcp(a) => {
                let scheme = if self.program.tls.is_some() {
                    "https"
                } else {
                    "http"
                };
                let mut ep = Endpoint::from_shared(format!("{scheme}://{a}"))
                    .map_err(|e| fail(e.to_string()))?;
                if let Some(t) = &self.program.tls {
                    let host = a.rsplit_once(':').map_or(a.as_str(), |(h, _)| h);
                    let host = host.trim_start_matches('[').trim_end_matches(']');
                    let tls = ClientTlsConfig::new()
                        .ca_certificate(Certificate::from_pem(&t.ca))
                        .identity(Identity::from_pem(&t.cert, &t.key))
                        .domain_name(t.domain.clone().unwrap_or_else(|| host.to_string()));
                    ep = ep.tls_config(tls).map_err(|e| fail(e.to_string()))?;
                }
                ep.connect().await.map_err(|e| fail(error_chain(&e)))
            }
            Addr::Unix(path) => {
                let path = path.clone();
                // the URI is not used: the connector dials the socket
                Endpoint::from_static("http://[::1]:9559")
                    .connect_with_connector(tower::service_fn(move |_| {
                        let path = path.clone();
                        async move {
                            let s = tokio::net::UnixStream::connect(path).await?;
                            Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(s))
                        }
                    }))
                    .await
                    .map_err(|e| fail(error_chain(&e)))
            }
        }
    }

    /// Connect, open the stream and arbitrate: primary, or an error (an observer only
    /// connects).
    async fn connect(&self) -> Result<Conn, P4rtError> {
        let channel = self.channel().await?;
        let mut client = P4RuntimeClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        let (tx, rx) = mpsc::channel(4);
        if !self.arbitrate {
            return Ok(Conn {
                client,
                alive: Arc::new(AtomicBool::new(true)),
                _stream: tx,
                cookie: None,
                installed: None,
            });
        }
        let hello = StreamMessageRequest {
            update: Some(stream_message_request::Update::Arbitration(
                MasterArbitrationUpdate {
                    device_id: self.server.device_id,
                    election_id: self.election(),
                    ..Default::default()
                },
            )),
        };
        // the channel has room: this cannot wait
        let _ = tx.send(hello).await;
        let mut stream = client
            .stream_channel(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .map_err(rpc("StreamChannel"))?
            .into_inner();
        let first = stream.message().await.map_err(rpc("StreamChannel"))?;
        match first.and_then(|m| m.update) {
            Some(stream_message_response::Update::Arbitration(a)) => {
                let status = a.status.unwrap_or_default();
                if status.code != Code::Ok as i32 {
                    return Err(P4rtError::NotPrimary(
                        canopy_proto::text::printable(&status.message).into_owned(),
                    ));
                }
            }
            _ => return Err(P4rtError::StreamEnded),
        }
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        tokio::spawn(async move {
            // the stream lasts while the server does; a later arbitration notice that
            // is not OK means another controller took over
            while let Ok(Some(m)) = stream.message().await {
                if let Some(stream_message_response::Update::Arbitration(a)) = m.update {
                    if a.status.is_some_and(|s| s.code != Code::Ok as i32) {
                        break;
                    }
                }
            }
            flag.store(false, Ordering::Release);
        });
        Ok(Conn {
            client,
            alive,
            _stream: tx,
            cookie: None,
            installed: None,
        })
    }

    /// Keep `f` of the connection's knowledge (cookie, installed state) if the
    /// connection is still the current one.
    fn update(&self, c: &Conn, f: impl FnOnce(&mut Conn)) {
        if let Some(cur) = self.lock().as_mut() {
            if Arc::ptr_eq(&cur.alive, &c.alive) {
                f(cur);
            }
        }
    }

    /// Forget the connection (its knowledge may be wrong after a failed write).
    fn forget_state(&self) {
        if let Some(cur) = self.lock().as_mut() {
            cur.installed = None;
        }
    }

    /// The device's pipeline cookie: `None` when it has no pipeline.
    async fn cookie(
        &self,
        c: &mut Conn,
        kind: ResponseType,
    ) -> Result<Option<ForwardingPipelineConfig>, P4rtError> {
        let r = c
            .client
            .get_forwarding_pipeline_config(GetForwardingPipelineConfigRequest {
                device_id: self.server.device_id,
                response_type: kind as i32,
            })
            .await;
        match r {
            Ok(r) => Ok(r.into_inner().config.filter(|c| c.cookie.is_some())),
            // no pipeline yet
            Err(s) if s.code() == Code::FailedPrecondition => Ok(None),
            Err(s) => Err(rpc("GetForwardingPipelineConfig")(s)),
        }
    }

    /// Probe the device: connect and arbitrate when needed, make sure it runs canopyd's
    /// pipeline (setting it, with a new cookie, on a device that has none or another
    /// one), and give the pipeline's cookie, the device's incarnation. `timeout` bounds
    /// the look; a pipeline set, in which the device loads the program, has
    /// [`PIPELINE_TIMEOUT`]: one cut short by the probe's timeout would still take
    /// effect, and the next probe would set another, wiping the tables pushed between.
    pub fn probe(&self, timeout: Duration) -> Result<u64, P4rtError> {
        let seen = self.run("probe", timeout, async {
            let mut c = self.conn().await?;
            let got = self.cookie(&mut c, ResponseType::CookieOnly).await?;
            let cookie = got.and_then(|g| g.cookie).map(|k| k.cookie);
            if let (Some(k), Some((known, _))) = (cookie, c.cookie) {
                if k == known {
                    return Ok(Some(k));
                }
            }
            if let Some(k) = cookie {
                // first sight of this pipeline: canopyd's program (a predecessor's
                // push), or another controller's?
                let full = self.cookie(&mut c, ResponseType::P4infoAndCookie).await?;
                let ours = full
                    .and_then(|f| P4Info::decode(f.p4info.as_slice()).ok())
                    .is_some_and(|i| i == self.program.p4info);
                if ours {
                    self.update(&c, |cur| {
                        cur.cookie = Some((k, Instant::now()));
                        cur.installed = None;
                    });
                    return Ok(Some(k));
                }
            }
            Ok(None)
        })?;
        match seen {
            Some(k) => Ok(k),
            None => self.run("SetForwardingPipelineConfig", PIPELINE_TIMEOUT, async {
                let mut c = self.conn().await?;
                self.set_pipeline(&mut c).await
            }),
        }
    }

    /// Set canopyd's pipeline with a new cookie (the device's tables start empty).
    async fn set_pipeline(&self, c: &mut Conn) -> Result<u64, P4rtError> {
        let cookie = loop {
            let k: u64 = rand::random();
            if k != 0 {
                break k;
            }
        };
        let p = &self.program;
        c.client
            .set_forwarding_pipeline_config(SetForwardingPipelineConfigRequest {
                device_id: self.server.device_id,
                election_id: self.election(),
                action: PipelineAction::VerifyAndCommit as i32,
                config: Some(ForwardingPipelineConfig {
                    p4info: p.p4info.encode_to_vec(),
                    p4_device_config: p.device_config.clone(),
                    cookie: Some(canopy_p4rt::v1::Cookie { cookie }),
                }),
                ..Default::default()
            })
            .await
            .map_err(rpc("SetForwardingPipelineConfig"))?;
        self.update(c, |cur| {
            cur.cookie = Some((cookie, Instant::now()));
            cur.installed = Some(P4State::new());
        });
        Ok(cookie)
    }

    /// Read the device's whole table state back.
    pub fn read_state(&self, timeout: Duration) -> Result<P4State, P4rtError> {
        self.run("read", timeout, async {
            let mut c = self.conn().await?;
            let s = self.read_all(&mut c).await?;
            self.update(&c, |cur| cur.installed = Some(s.clone()));
            Ok(s)
        })
    }

    async fn read_all(&self, c: &mut Conn) -> Result<P4State, P4rtError> {
        let p = &self.program.pipeline;
        let entities = self.read(c, sync::read_all(p)).await?;
        let entries = entities.iter().filter_map(|e| match &e.entity {
            Some(entity::Entity::TableEntry(t)) => Some(t),
            _ => None,
        });
        Ok(sync::state_of(p, entries)?)
    }

    async fn read(&self, c: &mut Conn, entities: Vec<Entity>) -> Result<Vec<Entity>, P4rtError> {
        let mut stream = c
            .client
            .read(ReadRequest {
                device_id: self.server.device_id,
                entities,
                ..Default::default()
            })
            .await
            .map_err(rpc("Read"))?
            .into_inner();
        let mut out = Vec::new();
        while let Some(r) = stream.message().await.map_err(rpc("Read"))? {
            out.extend(r.entities);
        }
        Ok(out)
    }

    /// Bring the device's tables to `want`: the difference from what it runs (read back
    /// first when not known), in batches of at most [`WRITE_BATCH`] updates. On a
    /// failure the state is read back before the next push.
    pub fn push(&self, want: &P4State, timeout: Duration) -> Result<usize, P4rtError> {
        let r = self.run("write", timeout, async {
            let mut c = self.conn().await?;
            let have = match c.installed.take() {
                Some(s) => s,
                None => self.read_all(&mut c).await?,
            };
            let ups = sync::updates(&self.program.pipeline, &have, want);
            let n = ups.len();
            self.write(&mut c, ups).await?;
            self.update(&c, |cur| cur.installed = Some(want.clone()));
            Ok(n)
        });
        if r.is_err() {
            self.forget_state();
        }
        r
    }

    async fn write(&self, c: &mut Conn, mut ups: Vec<Update>) -> Result<(), P4rtError> {
        while !ups.is_empty() {
            let rest = ups.split_off(ups.len().min(WRITE_BATCH));
            c.client
                .write(WriteRequest {
                    device_id: self.server.device_id,
                    election_id: self.election(),
                    updates: std::mem::replace(&mut ups, rest),
                    ..Default::default()
                })
                .await
                .map_err(rpc("Write"))?;
        }
        Ok(())
    }

    /// The program's counters of a switch with ports `names`, as a report.
    pub fn counters(
        &self,
        names: &[String],
        timeout: Duration,
    ) -> Result<CountersReport, P4rtError> {
        self.run("counters", timeout, async {
            let mut c = self.conn().await?;
            let p = &self.program.pipeline;
            let id_of = |k: usize| p.counters.iter().find(|(_, &v)| v == k).map(|(&id, _)| id);
            let cells = counters::cells(names.len());
            let entities = cells
                .iter()
                .filter_map(|&(k, i)| {
                    Some(Entity {
                        entity: Some(entity::Entity::CounterEntry(CounterEntry {
                            counter_id: id_of(k)?,
                            index: Some(Index { index: i as i64 }),
                            data: None,
                        })),
                    })
                })
                .collect();
            let got: std::collections::HashMap<(u32, i64), (u64, u64)> = self
                .read(&mut c, entities)
                .await?
                .into_iter()
                .filter_map(|e| match e.entity {
                    Some(entity::Entity::CounterEntry(c)) => {
                        let d = c.data.unwrap_or_default();
                        Some((
                            (c.counter_id, c.index?.index),
                            (d.byte_count.max(0) as u64, d.packet_count.max(0) as u64),
                        ))
                    }
                    _ => None,
                })
                .collect();
            let uptime = c.cookie.map_or(0.0, |(_, t)| t.elapsed().as_secs_f64());
            Ok(counters::report(names, uptime, |k, i| {
                got.get(&(id_of(k)?, i as i64)).copied()
            })?)
        })
    }
}

/// `e` and its sources, for a connect error (tonic's own text is only "transport
/// error").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(x) = cur {
        s += &format!(": {x}");
        cur = x.source();
    }
    s
}
