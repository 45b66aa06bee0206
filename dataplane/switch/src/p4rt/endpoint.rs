//! The P4Runtime endpoint (`[p4runtime]`): its listener bound and its TLS files read at
//! start, before privileges are given up ([`bind`]); then a thread of its own running
//! the gRPC server on a single-threaded tokio runtime ([`serve`]), apart from the
//! workers and the JSON management threads. [`Endpoint::close`] ends it, and with it
//! every controller's stream.

use super::device::Device;
use super::service::Service;
use super::write::Target;
use crate::config::{Listen, P4RuntimeConfig, TlsFiles};
use crate::server::Shared;
use anyhow::{Context, Result};
use canopy_p4rt::service::p4_runtime_server::P4RuntimeServer;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};
use tracing::{info, warn};

/// Largest message the endpoint decodes: a `Write` of
/// [`MAX_UPDATES`](super::write::MAX_UPDATES) updates of the program's widest entries
/// fits with room to spare.
pub const MAX_MESSAGE: usize = 32 << 20;
/// Concurrent RPCs on one connection (a controller's stream, its reads and writes).
pub const MAX_STREAMS: u32 = 32;
/// Keepalive pings: a controller that stops answering is dropped, its stream ended and
/// its primacy given up, within about twice this.
pub const KEEPALIVE: Duration = Duration::from_secs(20);

/// A bound listener.
enum Listener {
    Tcp(std::net::TcpListener),
    /// The socket, and the directory made for it (removed at close when empty).
    Unix(std::os::unix::net::UnixListener, Option<std::path::PathBuf>),
}

/// The endpoint bound, not serving yet.
pub struct Bound {
    listener: Listener,
    /// The bound address.
    pub addr: Listen,
    tls: Option<ServerTlsConfig>,
    device_id: u64,
}

/// Read a PEM file of the TLS configuration.
fn pem(path: &std::path::Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {what} {}", path.display()))
}

/// The server's side of mutual TLS: its identity, and the CA clients must present a
/// certificate of.
fn tls(f: &TlsFiles) -> Result<ServerTlsConfig> {
    let cert = pem(&f.cert, "p4runtime.tls_cert")?;
    let key = pem(&f.key, "p4runtime.tls_key")?;
    let ca = pem(&f.client_ca, "p4runtime.client_ca")?;
    Ok(ServerTlsConfig::new()
        .identity(Identity::from_pem(cert, key))
        .client_ca_root(Certificate::from_pem(ca))
        .client_auth_optional(false))
}

/// Bind the endpoint of `cfg` and read its TLS files.
pub fn bind(cfg: &P4RuntimeConfig) -> Result<Bound> {
    let tls = cfg.tls.as_ref().map(tls).transpose()?;
    let (listener, addr) = match &cfg.addr {
        Listen::Tcp(a) => {
            let l = std::net::TcpListener::bind(a)
                .with_context(|| format!("cannot listen on {a} (p4runtime.listen)"))?;
            l.set_nonblocking(true)
                .context("cannot make the P4Runtime listener non-blocking")?;
            let addr = l
                .local_addr()
                .context("cannot read the P4Runtime endpoint's address")?;
            (Listener::Tcp(l), Listen::Tcp(addr))
        }
        Listen::Unix(path) => {
            // a stale socket of a dead switch is replaced; anything else is refused
            let made = canopy_proto::serve::prepare_socket(path)
                .with_context(|| format!("p4runtime.listen {}", path.display()))?;
            let l = canopy_proto::sys::bind_private(path).with_context(|| {
                canopy_proto::serve::unprepare_socket(path, made.as_deref());
                format!("cannot listen on {} (p4runtime.listen)", path.display())
            })?;
            l.set_nonblocking(true)
                .context("cannot make the P4Runtime listener non-blocking")?;
            (Listener::Unix(l, made), cfg.addr.clone())
        }
    };
    Ok(Bound {
        listener,
        addr,
        tls,
        device_id: cfg.device_id,
    })
}

/// The endpoint, serving.
pub struct Endpoint {
    /// The bound address.
    pub addr: Listen,
    /// The Unix socket and the directory made for it, removed at close.
    unix: Option<(std::path::PathBuf, Option<std::path::PathBuf>)>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Serve `b` over `shared`'s engine for switch `target` on a thread named `{tag}p4rt`.
pub fn serve(b: Bound, shared: Arc<Shared>, target: Target, tag: &str) -> Result<Endpoint> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .context("cannot build the P4Runtime endpoint's runtime")?;
    let svc = Service::new(shared, Device::new(b.device_id, target));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let addr = b.addr.clone();
    let secure = b.tls.is_some();
    let mut server = Server::builder()
        .tcp_nodelay(true)
        .http2_keepalive_interval(Some(KEEPALIVE))
        .http2_keepalive_timeout(Some(KEEPALIVE))
        .max_concurrent_streams(Some(MAX_STREAMS));
    if let Some(t) = b.tls {
        server = server
            .tls_config(t)
            .context("the P4Runtime TLS configuration is refused")?;
    }
    let listener = b.listener;
    let unix = match (&listener, &addr) {
        (Listener::Unix(_, made), Listen::Unix(p)) => Some((p.clone(), made.clone())),
        _ => None,
    };
    let thread = std::thread::Builder::new()
        .name(format!("{tag}p4rt"))
        .spawn(move || {
            rt.block_on(async move {
                let svc = P4RuntimeServer::new(svc)
                    .max_decoding_message_size(MAX_MESSAGE)
                    .max_encoding_message_size(MAX_MESSAGE);
                let router = server.add_service(svc);
                // the server is dropped at stop, not shut down gracefully: a
                // controller's stream would keep a graceful shutdown waiting
                let serving: std::pin::Pin<Box<dyn std::future::Future<Output = _>>> =
                    match listener {
                        Listener::Tcp(l) => match tokio::net::TcpListener::from_std(l) {
                            Ok(l) => Box::pin(router.serve_with_incoming(
                                tokio_stream::wrappers::TcpListenerStream::new(l),
                            )),
                            Err(e) => {
                                warn!("P4Runtime endpoint cannot start: {e}");
                                return;
                            }
                        },
                        Listener::Unix(l, _) => match tokio::net::UnixListener::from_std(l) {
                            Ok(l) => Box::pin(router.serve_with_incoming(
                                tokio_stream::wrappers::UnixListenerStream::new(l),
                            )),
                            Err(e) => {
                                warn!("P4Runtime endpoint cannot start: {e}");
                                return;
                            }
                        },
                    };
                let r = tokio::select! {
                    r = serving => r,
                    _ = stopped => Ok(()),
                };
                if let Err(e) = r {
                    warn!("P4Runtime endpoint stopped: {e}");
                }
            });
            // the controllers' streams end with the runtime
            rt.shutdown_timeout(Duration::from_millis(500));
        })
        .context("cannot start the P4Runtime thread")?;
    info!(%addr, tls = if secure { "mutual" } else { "off (loopback)" }, "P4Runtime endpoint listening");
    Ok(Endpoint {
        addr,
        unix,
        stop: Some(stop),
        thread: Some(thread),
    })
}

impl Endpoint {
    /// Stop serving: connections and streams are closed.
    pub fn close(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some((path, made)) = self.unix.take() {
            canopy_proto::serve::unprepare_socket(&path, made.as_deref());
        }
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.close();
    }
}
