//! The port trait the engine drives, and the wake mechanism for adaptive polling.
//!
//! A backend receives frames into pool buffers and transmits from buffer handles, in
//! bursts. It fits an AF_PACKET TPACKET_V3 backend: `rx_burst` reads frames from the
//! mmap RX ring block by block and copies each into a pool buffer; `tx_space` reports
//! free TX-ring slots, `tx_burst` writes every frame into the ring, returns the buffers
//! to the pool and issues one `send` per burst; `rx_fd` is the socket the adaptive
//! polling thread sleeps on (epoll); `maintain` is the link upkeep the owning worker
//! runs on a timer, off the fast path; `tx_backlog` and `backend_stats` expose what
//! the backend holds and counts on its own.

use super::pool::{Buf, Pool};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;

/// One port as the engine sees it. Owned by exactly one worker at a time.
pub trait Port: Send {
    /// Interface or peer name.
    fn name(&self) -> &str;
    /// Largest frame (bytes, Ethernet header included, no FCS) the port sends.
    fn mtu(&self) -> usize;
    /// Carrier / link state as the backend sees it.
    fn link_up(&self) -> bool;
    /// Receive up to `max` frames, appending their buffers (taken from `pool`) to
    /// `out`. Returns how many were received. Stops early when the pool is empty.
    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize;
    /// True when a frame is waiting (used before sleeping in adaptive polling).
    fn rx_ready(&self) -> bool;
    /// Frames `tx_burst` accepts right now.
    fn tx_space(&self) -> usize;
    /// Transmit every buffer in `bufs` (at most [`Port::tx_space`] of them), in order,
    /// draining `bufs`. Buffers the backend copies out are returned to `pool`; a buffer
    /// it cannot send (link went down meanwhile) is left in `bufs` for the caller to
    /// drop and count. Returns how many were sent.
    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize;
    /// Register the waker to notify when a frame arrives (in-process backends).
    /// Backends with a file descriptor return `false` and offer [`Port::rx_fd`].
    fn set_waker(&mut self, _w: Arc<Wake>) -> bool {
        false
    }
    /// File descriptor that polls readable when frames wait (kernel backends). An
    /// adaptive polling thread sleeps in `epoll` on it; it may change when
    /// [`Port::maintain`] reports [`PortEvent::Reopened`].
    fn rx_fd(&self) -> Option<i32> {
        None
    }
    /// Link upkeep, called by the owning worker every `EngineConfig::link_poll` (never
    /// per packet) and when the port's fd reported an error: re-read the link, reopen
    /// the backend if it was re-created. The engine reads [`Port::link_up`] after it.
    /// Runs on the worker's thread, so a backend that needs a network namespace (the
    /// AF_PACKET port) must be owned by a thread in that namespace.
    fn maintain(&mut self) -> PortEvent {
        PortEvent::Unchanged
    }
    /// Frames handed to the backend by `tx_burst` that are not yet on the wire (kernel
    /// TX ring frames not yet sent; a `mem` peer's unread frames). The owner publishes
    /// it after each TX drain; adaptive choices add it to the ring occupancy.
    fn tx_backlog(&mut self) -> usize {
        0
    }
    /// Names of the backend's own drop counters (at most [`BACKEND_DROP_SLOTS`]), in
    /// the order of [`BackendStats::drops`].
    fn backend_drop_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// The backend's own counters (cumulative), read by the owner during upkeep;
    /// `None` when it keeps none.
    fn backend_stats(&mut self) -> Option<BackendStats> {
        None
    }
}

/// What [`Port::maintain`] observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PortEvent {
    /// Nothing changed.
    #[default]
    Unchanged,
    /// The link went down (interface down, no carrier, deleted).
    WentDown,
    /// The link came back on the same fd.
    CameUp,
    /// The backend reopened (new fd: re-register it).
    Reopened {
        /// Link state after reopening.
        up: bool,
    },
}

impl PortEvent {
    /// True when [`Port::rx_fd`] may have changed.
    pub fn fd_changed(&self) -> bool {
        matches!(self, PortEvent::Reopened { .. })
    }
}

/// Most backend drop counters a port can report.
pub const BACKEND_DROP_SLOTS: usize = 16;

/// A backend's own cumulative counters (see [`Port::backend_stats`]). Its RX drops
/// happen before the engine sees a frame, so they are not part of the engine's
/// rx = tx + drops identity; its TX refusals are the frames the engine counts as
/// `tx_error` or `port_down` at the egress (the same frames, seen from the backend).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackendStats {
    /// Frames the kernel dropped before the backend saw them (AF_PACKET `tp_drops`).
    pub kernel_drops: u64,
    /// Times the backend saw its link go down.
    pub link_down_events: u64,
    /// Times the backend reopened after its interface was re-created.
    pub reopens: u64,
    /// Frames the kernel dropped at the device or its qdisc and handed back to the
    /// backend's TX ring to be sent again (AF_PACKET: a send refused with `ENOBUFS`).
    /// Not a loss; the device's `tx_dropped` or the qdisc's drops counted an attempt.
    pub tx_requeues: u64,
    /// Drops by the backend's own reasons ([`Port::backend_drop_names`] order).
    pub drops: [u64; BACKEND_DROP_SLOTS],
}

/// Wakes one sleeping polling thread. The thread announces it is about to sleep
/// ([`Wake::prepare`]), re-checks its ports, then sleeps; a producer that delivered a
/// frame calls [`Wake::wake`], which wakes it only if it announced sleep. The engine's
/// adaptive threads sleep in `epoll` (their kernel ports' fds plus an `eventfd`, which
/// `wake` writes); without an eventfd the thread parks and `wake` unparks it. Sleep is
/// always bounded by a timeout, so a wake lost to a race costs latency, never progress.
#[derive(Debug, Default)]
pub struct Wake {
    sleeping: AtomicBool,
    thread: OnceLock<Thread>,
    #[cfg(target_os = "linux")]
    event: OnceLock<super::sys::EventFd>,
}

impl Wake {
    /// A waker for the calling thread.
    pub fn for_current() -> Arc<Self> {
        let w = Wake::default();
        let _ = w.thread.set(std::thread::current());
        Arc::new(w)
    }

    /// Bind to the calling thread (first call wins).
    pub fn bind_current(&self) {
        let _ = self.thread.set(std::thread::current());
    }

    /// Announce that the owner is about to sleep.
    pub fn prepare(&self) {
        self.sleeping.store(true, Ordering::SeqCst);
    }

    /// The owner woke up (or decided not to sleep).
    pub fn cancel(&self) {
        self.sleeping.store(false, Ordering::SeqCst);
    }

    /// Wake the owner if it announced sleep. Cheap (one load) when it is awake; one
    /// `write` to its eventfd (or one unpark) when it sleeps.
    #[inline]
    pub fn wake(&self) {
        if self.sleeping.load(Ordering::SeqCst) && self.sleeping.swap(false, Ordering::SeqCst) {
            self.kick();
        }
    }

    #[cold]
    fn kick(&self) {
        #[cfg(target_os = "linux")]
        if let Some(e) = self.event.get() {
            e.signal();
            return;
        }
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
    }

    /// Give this waker the eventfd its owner sleeps on (first call wins: `false` when
    /// it had one already).
    #[cfg(target_os = "linux")]
    pub(crate) fn set_event(&self, e: super::sys::EventFd) -> bool {
        self.event.set(e).is_ok()
    }

    /// The eventfd, if any.
    #[cfg(target_os = "linux")]
    pub(crate) fn event(&self) -> Option<&super::sys::EventFd> {
        self.event.get()
    }
}
