//! The port trait the engine drives, and the wake mechanism for adaptive polling.
//!
//! A backend receives frames into pool buffers and transmits from buffer handles, in
//! bursts. It fits an AF_PACKET TPACKET_V3 backend: `rx_burst` reads frames from the
//! mmap RX ring block by block and copies each into a pool buffer; `tx_space` reports
//! free TX-ring slots, `tx_burst` writes every frame into the ring, returns the buffers
//! to the pool and issues one `send` per burst; `rx_fd` is the socket for poll(2).

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
    /// File descriptor that polls readable when frames wait (kernel backends).
    fn rx_fd(&self) -> Option<i32> {
        None
    }
}

/// Wakes one sleeping polling thread. The thread announces it is about to sleep
/// ([`Wake::prepare`]), re-checks its ports, then parks; a producer that delivered a
/// frame calls [`Wake::wake`], which unparks it only if it announced sleep. Parking is
/// always bounded by a timeout, so a wake lost to a race costs latency, never progress.
#[derive(Debug, Default)]
pub struct Wake {
    sleeping: AtomicBool,
    thread: OnceLock<Thread>,
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

    /// Unpark the owner if it announced sleep. Cheap (one load) when it is awake.
    #[inline]
    pub fn wake(&self) {
        if self.sleeping.load(Ordering::SeqCst) && self.sleeping.swap(false, Ordering::SeqCst) {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
        }
    }
}
