//! Link upkeep of the kernel backends (AF_PACKET, AF_XDP): what a port knows of its
//! interface ([`Link`]) and the one `poll_link` state machine ([`poll`]) that reads the
//! interface, marks the port down when it is down or gone, and reopens the port when
//! an interface of the same name comes back with a new ifindex, either at once or on
//! a helper thread that a later poll collects.
//!
//! What a poll reports is the engine's [`PortEvent`]: `Unchanged`, `WentDown`,
//! `CameUp`, or `Reopened { up }` (new socket: re-register its fd).

use super::sys;
use crate::engine::PortEvent;
use std::io;
use std::os::fd::{OwnedFd, RawFd};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::Arc;

const IFF_UP: u32 = 0x1;
const IFF_RUNNING: u32 = 0x40;

/// What every kernel backend can fail with; each names the interface.
#[derive(Debug, thiserror::Error)]
pub enum IfError {
    /// The interface name is empty, too long (max 15 bytes) or contains NUL.
    #[error("{ifname:?}: invalid interface name")]
    BadName {
        /// The name given.
        ifname: String,
    },
    /// A syscall failed.
    #[error("{ifname}: {call} failed: {source}")]
    Sys {
        /// Interface name.
        ifname: String,
        /// The call, e.g. `setsockopt(PACKET_RX_RING)`.
        call: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// `reopen` was called from a thread in another network namespace than `open`.
    #[error("{ifname}: reopen from another network namespace than the one the port was opened in")]
    WrongNamespace {
        /// Interface name.
        ifname: String,
    },
}

impl IfError {
    /// `ifname` as the kernel takes an interface name: 1 to 15 bytes, no NUL.
    pub(crate) fn check_name(ifname: &str) -> Result<(), IfError> {
        if ifname.is_empty() || ifname.len() > 15 || ifname.contains('\0') {
            return Err(IfError::BadName {
                ifname: ifname.into(),
            });
        }
        Ok(())
    }

    /// A failed `call` on `ifname`, for `map_err`.
    pub(crate) fn sys<'a>(
        ifname: &'a str,
        call: &'static str,
    ) -> impl FnOnce(io::Error) -> IfError + 'a {
        move |source| IfError::Sys {
            ifname: ifname.into(),
            call,
            source,
        }
    }
}

/// Up = the interface has `IFF_UP` and `IFF_RUNNING` (carrier).
fn is_up(flags: u32) -> bool {
    flags & (IFF_UP | IFF_RUNNING) == (IFF_UP | IFF_RUNNING)
}

/// The calling thread's network namespace, held open (`/proc/thread-self/ns/net`), so
/// a reopen from a thread elsewhere (a shared host's) can create its socket there.
fn netns_handle() -> Option<Arc<OwnedFd>> {
    std::fs::File::open("/proc/thread-self/ns/net")
        .ok()
        .map(|f| Arc::new(OwnedFd::from(f)))
}

/// Inode of the calling thread's network namespace.
pub(crate) fn netns_id() -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/thread-self/ns/net")
        .ok()
        .map(|m| m.ino())
}

/// A kernel port's view of its interface, its link counters, and a reopen running on a
/// helper thread (`R`: what the reopen returns).
#[derive(Debug)]
pub(crate) struct Link<R> {
    /// Interface name.
    pub name: String,
    /// Interface index the socket is bound to.
    pub ifindex: i32,
    /// Network namespace the port was opened in ([`netns_id`] then).
    pub netns: Option<u64>,
    /// That namespace, held open: a reopen from a thread in another one enters it.
    netns_fd: Option<Arc<OwnedFd>>,
    /// Interface MTU (L3 bytes).
    pub mtu: u32,
    /// Link state as of open, the last poll, or a failed send.
    pub up: bool,
    /// The interface was deleted.
    gone: bool,
    /// Times the port went down.
    pub link_down_events: u64,
    /// Times the port reopened after the interface was re-created.
    pub reopens: u64,
    reopening: Option<Receiver<R>>,
}

impl<R> Link<R> {
    /// The state of a port just opened on `name` in namespace `netns`, from what the
    /// open read of the interface.
    pub fn new<S>(name: &str, netns: Option<u64>, o: &Opened<S>) -> Self {
        Link {
            name: name.to_string(),
            ifindex: o.ifindex,
            netns,
            netns_fd: netns.and_then(|_| netns_handle()),
            mtu: o.mtu,
            up: is_up(o.flags),
            gone: false,
            link_down_events: 0,
            reopens: 0,
            reopening: None,
        }
    }

    /// A send failed with `e`: `ENETDOWN`, `ENXIO` or `ENODEV` mark the port down (the
    /// next poll reads the interface again).
    pub fn send_failed(&mut self, e: &io::Error) {
        if matches!(
            e.raw_os_error(),
            Some(libc::ENETDOWN) | Some(libc::ENXIO) | Some(libc::ENODEV)
        ) && self.up
        {
            self.up = false;
            self.link_down_events += 1;
        }
    }
}

/// What a reopen returns: the new socket (and what goes with it) and the interface's
/// ifindex, MTU and `IFF_*` flags as read while opening.
#[derive(Debug)]
pub(crate) struct Opened<S> {
    pub socket: S,
    pub ifindex: i32,
    pub mtu: u32,
    pub flags: u32,
}

/// A kernel backend's part in [`poll`].
pub(crate) trait Reopen {
    /// The new socket, rings and whatever else a reopen makes.
    type Socket: Send + 'static;
    /// The backend's error.
    type Error: From<IfError> + Send + 'static;
    /// Name of the helper threads (`…-open`, `…-close`).
    const THREAD: &'static str;

    /// The link state.
    fn link(&mut self) -> &mut Link<Result<Opened<Self::Socket>, Self::Error>>;
    /// The data socket (its pending error is cleared on every poll).
    fn data_fd(&self) -> RawFd;
    /// A socket for the `SIOCGIF*` queries, in the port's network namespace.
    fn ctl_fd(&self) -> RawFd;
    /// Open the interface again with the port's configuration; runs on the calling
    /// thread or on a helper thread spawned from it (so in its network namespace).
    fn opener(&self)
        -> impl FnOnce() -> Result<Opened<Self::Socket>, Self::Error> + Send + 'static;
    /// Put the new socket in place of the old one, folding in the old one's counters.
    /// `background`: the caller must not block (close the old socket on a helper
    /// thread, [`close_on_helper`]).
    fn install(&mut self, socket: Self::Socket, background: bool);
}

/// Drop `old` (a socket and its mappings) on a helper thread: closing a packet or
/// AF_XDP socket waits for an RCU grace period, which the caller should not. Dropped
/// here if no thread can be spawned.
pub(crate) fn close_on_helper<T: Send + 'static>(thread: &str, old: T) {
    // a failed spawn drops the closure, and `old` with it
    let _ = std::thread::Builder::new()
        .name(format!("{thread}-close"))
        .spawn(move || drop(old));
}

/// Re-read the interface (a few ioctls): up = it exists and has `IFF_UP` and
/// `IFF_RUNNING`. Deleted: down. Back with a new ifindex: reopen (new socket, same
/// configuration) and report [`PortEvent::Reopened`], which must happen in the
/// namespace the port was opened in: from a thread in another one (a shared host's),
/// on a helper thread that enters it first (which needs `CAP_SYS_ADMIN`).
///
/// `background`: the reopen runs on a helper thread spawned from the calling one (so
/// in its network namespace), the port stays down meanwhile (polls return
/// `Unchanged`), and a later poll installs the result; the blocking reopen is the
/// fallback when no thread can be spawned. A failed reopen leaves the port down and is
/// returned; the next poll tries again. A port up when its reopen starts counts one
/// link-down event.
pub(crate) fn poll<P: Reopen>(p: &mut P, background: bool) -> Result<PortEvent, P::Error> {
    if background {
        if let Some(ev) = collect(p)? {
            return Ok(ev);
        }
    }
    let _ = sys::take_error(p.data_fd());
    let ctl = p.ctl_fd();
    let l = p.link();
    let was_up = l.up;
    match sys::ifindex(ctl, &l.name) {
        // gone (ENODEV) or unreadable: down
        Err(_) => {
            l.gone = true;
            l.up = false;
        }
        Ok(idx) if idx != l.ifindex || l.gone => return reopen(p, was_up, background),
        Ok(_) => {
            let flags = sys::if_flags(ctl, &l.name).unwrap_or(0);
            if let Ok(m) = sys::mtu(ctl, &l.name) {
                l.mtu = m;
            }
            l.up = is_up(flags);
        }
    }
    Ok(match (was_up, l.up) {
        (true, false) => {
            l.link_down_events += 1;
            PortEvent::WentDown
        }
        (false, true) => PortEvent::CameUp,
        _ => PortEvent::Unchanged,
    })
}

/// The result of a background reopen, if one has come: installed (`Reopened`), or
/// still running (`Unchanged`); `None` when none runs.
fn collect<P: Reopen>(p: &mut P) -> Result<Option<PortEvent>, P::Error> {
    let Some(rx) = &p.link().reopening else {
        return Ok(None);
    };
    match rx.try_recv() {
        Ok(res) => {
            p.link().reopening = None;
            Ok(Some(install(p, res?, true)))
        }
        Err(TryRecvError::Empty) => Ok(Some(PortEvent::Unchanged)),
        // the helper died without an answer: start over
        Err(TryRecvError::Disconnected) => {
            p.link().reopening = None;
            Ok(None)
        }
    }
}

fn reopen<P: Reopen>(p: &mut P, was_up: bool, background: bool) -> Result<PortEvent, P::Error> {
    let l = p.link();
    l.up = false;
    // a thread in another namespace (a shared host's) reopens on a helper that enters
    // the port's; without a handle on it, the port stays down
    let elsewhere = match (netns_id() != l.netns, &l.netns_fd) {
        (false, _) => None,
        (true, Some(fd)) => Some(fd.clone()),
        (true, None) => {
            let ifname = l.name.clone();
            return Err(IfError::WrongNamespace { ifname }.into());
        }
    };
    if was_up {
        l.link_down_events += 1;
    }
    let foreign = elsewhere.is_some();
    if background || foreign {
        let (tx, rx) = mpsc::channel();
        let open = p.opener();
        let ifname = p.link().name.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("{}-open", P::THREAD))
            .spawn(move || {
                if let Some(ns) = elsewhere {
                    if let Err(e) = sys::enter_netns(&ns) {
                        let _ =
                            tx.send(Err(IfError::sys(&ifname, "setns(CLONE_NEWNET)")(e).into()));
                        return;
                    }
                }
                let _ = tx.send(open());
            });
        match spawned {
            Ok(_) if background => {
                p.link().reopening = Some(rx);
                // down until the new socket is installed
                return Ok(if was_up {
                    PortEvent::WentDown
                } else {
                    PortEvent::Unchanged
                });
            }
            Ok(_) => {
                let ifname = p.link().name.clone();
                let gone = || io::Error::other("the reopen helper exited without an answer");
                let o = rx.recv().map_err(|_| {
                    IfError::sys(&ifname, "reopen in the port's namespace")(gone())
                })??;
                return Ok(install(p, o, background));
            }
            Err(e) if foreign => {
                let ifname = p.link().name.clone();
                return Err(IfError::sys(
                    &ifname,
                    "spawn a thread to reopen in the port's namespace",
                )(e)
                .into());
            }
            Err(_) => {}
        }
    }
    let o = p.opener()()?;
    Ok(install(p, o, background))
}

fn install<P: Reopen>(p: &mut P, o: Opened<P::Socket>, background: bool) -> PortEvent {
    p.install(o.socket, background);
    let l = p.link();
    l.ifindex = o.ifindex;
    l.mtu = o.mtu;
    l.gone = false;
    l.up = is_up(o.flags);
    l.reopens += 1;
    PortEvent::Reopened { up: l.up }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_needs_both_flags() {
        assert!(is_up(IFF_UP | IFF_RUNNING | 0x1000));
        assert!(!is_up(IFF_UP));
        assert!(!is_up(IFF_RUNNING));
    }

    #[test]
    fn only_device_errors_mark_the_link_down() {
        let o = Opened {
            socket: (),
            ifindex: 1,
            mtu: 1500,
            flags: IFF_UP | IFF_RUNNING,
        };
        let mut l: Link<()> = Link::new("x", None, &o);
        l.send_failed(&io::Error::from_raw_os_error(libc::ENOBUFS));
        assert!(l.up);
        l.send_failed(&io::Error::from_raw_os_error(libc::ENETDOWN));
        assert!(!l.up);
        assert_eq!(l.link_down_events, 1);
        l.send_failed(&io::Error::from_raw_os_error(libc::ENODEV));
        assert_eq!(l.link_down_events, 1, "already down");
    }
}
