//! The `p4.v1.P4Runtime` service over the switch: each RPC answered by the [`Device`]
//! under one lock, the tables a request gives swapped into the engine through the same
//! [`EngineHandle::swap_tables`](canopy_dataplane::engine::EngineHandle::swap_tables) the
//! JSON protocol's `replace_tables` uses, and the arbitration notices delivered on the
//! controllers' streams. Requests are refused `UNAVAILABLE` once shutdown began.

use super::arbitration::{Client, Notices, Refusal};
use super::device::{Device, Pending, WriteRefusal};
use crate::server::Shared;
use canopy_control::p4::runtime::entry::EntryError;
use canopy_p4rt::rpc::{Any, Status as RpcStatus};
use canopy_p4rt::service::p4_runtime_server::P4Runtime;
use canopy_p4rt::v1::{
    stream_message_request, stream_message_response, CapabilitiesRequest, CapabilitiesResponse,
    Error, GetForwardingPipelineConfigRequest, GetForwardingPipelineConfigResponse, ReadRequest,
    ReadResponse, SetForwardingPipelineConfigRequest, SetForwardingPipelineConfigResponse,
    StreamError, StreamMessageRequest, StreamMessageResponse, WriteRequest, WriteResponse,
    ERROR_TYPE_URL,
};
use prost::Message;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Code, Request, Response, Status, Streaming};
use tracing::{debug, info, warn};

/// Entities per `ReadResponse` message.
pub const READ_CHUNK: usize = 1000;
/// Messages queued for a controller's stream; past it the controller is not reading
/// and a notice for it is dropped (and logged).
const STREAM_QUEUE: usize = 64;

type Outbox = mpsc::Sender<Result<StreamMessageResponse, Status>>;

/// The device and the streams its notices go to, under one lock.
struct Inner {
    device: Device,
    streams: HashMap<Client, Outbox>,
}

/// The service.
#[derive(Clone)]
pub struct Service {
    shared: Arc<Shared>,
    inner: Arc<Mutex<Inner>>,
    next_client: Arc<AtomicU64>,
}

/// A gRPC status of code `code` (as the specification numbers them).
fn status(code: i32, what: impl Into<String>) -> Status {
    Status::new(Code::from_i32(code), what)
}

impl From<Refusal> for Status {
    fn from(r: Refusal) -> Status {
        status(r.code, r.what)
    }
}

/// Largest `google.rpc.Status` a `Write`'s refusal carries in its trailers: HTTP/2
/// clients refuse larger header blocks (h2's continuation limit is met near 80 KiB).
pub const MAX_DETAILS: usize = 48 << 10;

/// A `Write` that failed in part or whole, as the specification reports it: `UNKNOWN`
/// with a `google.rpc.Status` whose details hold one `p4.v1.Error` per update, in order
/// (`OK` for an update that applied). When those details would pass [`MAX_DETAILS`] (a
/// batch of some thousands of updates), the status is the first failure's code with a
/// message naming how many failed and the first few, and no details.
pub fn write_error(errors: &[Option<EntryError>]) -> Status {
    let details: Vec<Any> = errors
        .iter()
        .map(|e| {
            let err = match e {
                None => Error::default(),
                Some(e) => Error {
                    canonical_code: e.code,
                    message: e.what.clone(),
                    ..Default::default()
                },
            };
            Any::pack(ERROR_TYPE_URL, &err)
        })
        .collect();
    let failed = errors.iter().flatten().count();
    let message = format!("{failed} of {} updates failed", errors.len());
    let body = RpcStatus {
        code: Code::Unknown as i32,
        message: message.clone(),
        details,
    };
    let bytes = body.encode_to_vec();
    if bytes.len() <= MAX_DETAILS {
        return Status::with_details(Code::Unknown, message, bytes.into());
    }
    let first: Vec<String> = errors
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.as_ref().map(|e| format!("#{i}: {}", e.what)))
        .take(3)
        .collect();
    let code = errors.iter().flatten().next().map_or(2, |e| e.code);
    status(
        code,
        format!(
            "{message} (per-update details left out: more than {MAX_DETAILS} bytes); first: {}",
            first.join("; ")
        ),
    )
}

impl Service {
    /// The service of device `device` over `shared`'s engine.
    pub fn new(shared: Arc<Shared>, device: Device) -> Service {
        Service {
            shared,
            inner: Arc::new(Mutex::new(Inner {
                device,
                streams: HashMap::new(),
            })),
            next_client: Arc::new(AtomicU64::new(1)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Swap in the tables `p` gives (if any), then keep its state.
    fn complete(&self, inner: &mut Inner, mut p: Pending) -> Result<(), Status> {
        if let Some(t) = p.tables.take() {
            let name = t.name.clone();
            self.shared
                .install_p4rt_tables(t)
                .map_err(|e| Status::internal(format!("the tables did not swap in: {e:#}")))?;
            debug!(tables = %name, "P4Runtime tables swapped in");
        }
        inner.device.accept(p);
        Ok(())
    }
}

/// Send `notices` on their streams.
fn deliver(streams: &HashMap<Client, Outbox>, notices: Notices) {
    for (c, m) in notices {
        let Some(tx) = streams.get(&c) else { continue };
        let msg = StreamMessageResponse {
            update: Some(stream_message_response::Update::Arbitration(m)),
        };
        if tx.try_send(Ok(msg)).is_err() {
            warn!(
                client = c,
                "P4Runtime: a controller's stream is full or gone: arbitration notice dropped"
            );
        }
    }
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(&self, req: Request<WriteRequest>) -> Result<Response<WriteResponse>, Status> {
        let req = req.into_inner();
        let gate = self.shared.gate().ok_or_else(shutting_down)?;
        let mut inner = self.lock();
        let r = inner.device.write(&req);
        let out = match r {
            Err(WriteRefusal::Whole(r)) => Err(r.into()),
            Err(WriteRefusal::Updates(errors)) => Err(write_error(&errors)),
            Ok(mut p) => {
                let errors = p.errors.take();
                self.complete(&mut inner, p)?;
                match errors {
                    Some(e) => Err(write_error(&e)),
                    None => Ok(Response::new(WriteResponse {})),
                }
            }
        };
        drop(inner);
        drop(gate);
        out
    }

    type ReadStream = BoxStream<ReadResponse>;

    async fn read(&self, req: Request<ReadRequest>) -> Result<Response<Self::ReadStream>, Status> {
        let req = req.into_inner();
        let _gate = self.shared.gate().ok_or_else(shutting_down)?;
        let entities = {
            let inner = self.lock();
            inner.device.read(&req, || self.shared.counters())?
        };
        let mut chunks: Vec<Result<ReadResponse, Status>> = entities
            .chunks(READ_CHUNK)
            .map(|c| {
                Ok(ReadResponse {
                    entities: c.to_vec(),
                })
            })
            .collect();
        if chunks.is_empty() {
            chunks.push(Ok(ReadResponse::default()));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        req: Request<SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<SetForwardingPipelineConfigResponse>, Status> {
        let req = req.into_inner();
        let _gate = self.shared.gate().ok_or_else(shutting_down)?;
        let mut inner = self.lock();
        if let Some(p) = inner.device.set_pipeline(&req)? {
            self.complete(&mut inner, p)?;
        }
        info!(action = req.action, "P4Runtime: forwarding pipeline set");
        Ok(Response::new(SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        req: Request<GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<GetForwardingPipelineConfigResponse>, Status> {
        let req = req.into_inner();
        let config = self.lock().device.get_pipeline(&req)?;
        Ok(Response::new(GetForwardingPipelineConfigResponse {
            config,
        }))
    }

    type StreamChannelStream = BoxStream<StreamMessageResponse>;

    async fn stream_channel(
        &self,
        req: Request<Streaming<StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let mut inbound = req.into_inner();
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let c = self.next_client.fetch_add(1, Ordering::Relaxed);
        self.lock().streams.insert(c, tx.clone());
        let me = self.clone();
        tokio::spawn(async move {
            let end = me.stream_loop(c, &mut inbound, &tx).await;
            {
                let mut inner = me.lock();
                inner.streams.remove(&c);
                let notices = inner.device.arbiter.disconnect(c);
                deliver(&inner.streams, notices);
            }
            if let Some(s) = end {
                let _ = tx.send(Err(s)).await;
            }
            // dropping `tx` ends the response stream: the controller's half-close is
            // answered with ours (p4runtime-shell's teardown waits for it)
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn capabilities(
        &self,
        _req: Request<CapabilitiesRequest>,
    ) -> Result<Response<CapabilitiesResponse>, Status> {
        Ok(Response::new(CapabilitiesResponse {
            p4runtime_api_version: canopy_p4rt::API_VERSION.into(),
        }))
    }
}

impl Service {
    /// Read controller `c`'s stream until it ends; the status that ends ours, if any.
    async fn stream_loop(
        &self,
        c: Client,
        inbound: &mut Streaming<StreamMessageRequest>,
        tx: &Outbox,
    ) -> Option<Status> {
        let mut arbitrated = false;
        while let Some(msg) = inbound.next().await {
            let msg = match msg {
                Ok(m) => m,
                Err(e) => {
                    debug!(client = c, "P4Runtime stream ended: {e}");
                    return None;
                }
            };
            match msg.update {
                Some(stream_message_request::Update::Arbitration(m)) => {
                    let refused = {
                        let mut inner = self.lock();
                        match inner.device.arbiter.update(c, &m) {
                            Ok(n) => {
                                deliver(&inner.streams, n);
                                None
                            }
                            Err(r) => Some(r),
                        }
                    };
                    match refused {
                        None => arbitrated = true,
                        Some(r) => return Some(r.into()),
                    }
                }
                other if !arbitrated => {
                    let _ = other;
                    return Some(Status::failed_precondition(
                        "the first message on the stream is a MasterArbitrationUpdate",
                    ));
                }
                other => {
                    let what = match other {
                        Some(stream_message_request::Update::Packet(_)) => "packet out",
                        Some(stream_message_request::Update::DigestAck(_)) => "digest ack",
                        Some(stream_message_request::Update::Other(_)) => "other",
                        _ => "empty message",
                    };
                    let err = StreamError {
                        canonical_code: Code::Unimplemented as i32,
                        message: format!("{what}: canopy.p4 has no packet I/O or digests"),
                        ..Default::default()
                    };
                    let m = StreamMessageResponse {
                        update: Some(stream_message_response::Update::Error(err)),
                    };
                    if tx.try_send(Ok(m)).is_err() {
                        warn!(
                            client = c,
                            "P4Runtime: a controller's stream is full: stream error dropped"
                        );
                    }
                }
            }
        }
        None
    }
}

fn shutting_down() -> Status {
    Status::unavailable("the switch is shutting down")
}
