//! Management connections: the management socket and the TCP endpoint, served by
//! [`canopy_proto::serve`] (its slots, deadlines and authentication) over [`Shared`]'s
//! answers.

use super::Shared;
use crate::config::Config;
use anyhow::{bail, Context, Result};
use canopy_proto::mgmt::{MAX_TCP_CONNS, MAX_UNIX_CONNS};
use canopy_proto::serve::{self, Limits, Server};
use std::net::{SocketAddr, TcpListener};
use std::os::unix::net::UnixListener;
use std::sync::Arc;

/// The TCP endpoint, bound: its listener, its address and its token.
pub(super) struct Tcp {
    pub(super) listener: TcpListener,
    pub(super) addr: SocketAddr,
    pub(super) token: Vec<u8>,
}

/// Bind the TCP endpoint when configured.
pub(super) fn bind_tcp(cfg: &Config, token: Option<Vec<u8>>) -> Result<Option<Tcp>> {
    let Some(t) = &cfg.management.tcp else {
        return Ok(None);
    };
    let Some(token) = token else {
        bail!("[management] tcp is set but no token was read from token_file");
    };
    let listener = TcpListener::bind(t.addr)
        .with_context(|| format!("cannot listen on {} (management.tcp)", t.addr))?;
    let addr = listener
        .local_addr()
        .context("cannot read the TCP endpoint's address")?;
    Ok(Some(Tcp {
        listener,
        addr,
        token,
    }))
}

/// The limits of a switch's management connections: `max_conns` at once.
fn limits(shared: &Shared, max_conns: usize) -> Limits {
    Limits {
        max_conns,
        max_request: shared.max_request,
        read_timeout: shared.read_timeout,
    }
}

/// Serve the management socket.
pub(super) fn serve_unix(l: UnixListener, shared: &Arc<Shared>, tag: &str) -> Result<Server> {
    serve::spawn_unix(
        l,
        shared.socket.clone(),
        shared.clone(),
        limits(shared, MAX_UNIX_CONNS),
        shared.unix_stats.clone(),
        &format!("{tag}mgmt"),
    )
    .context("cannot start the management thread")
}

/// Serve the TCP endpoint (authentication first on every connection).
pub(super) fn serve_tcp(t: Tcp, shared: &Arc<Shared>, tag: &str) -> Result<Server> {
    serve::spawn_tcp(
        t.listener,
        t.token,
        shared.clone(),
        limits(shared, MAX_TCP_CONNS),
        shared.tcp_stats.clone(),
        &format!("{tag}mgmt-tcp"),
    )
    .context("cannot start the TCP management thread")
}
