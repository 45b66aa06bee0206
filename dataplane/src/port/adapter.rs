//! The engine adapter of the port backends, written once: every backend that copies
//! frames between its own rings (an mmap ring, UMEM chunks, mbufs) and the engine's
//! pool buffers implements [`RingPort`], and one generic [`Port`] implementation
//! drives them all.
//!
//! The engine holds its ports as `Box<dyn Port>` and calls them once per burst; inside
//! a call everything is static: the generic [`Port`] methods are compiled for each
//! backend, and the backend hands each received frame to an [`RxSink`] whose methods
//! inline into its ring walk. No allocation, locking or syscall per frame here: what a
//! backend does per burst (one `send`, a wakeup the kernel asks for) is its own.

use crate::engine::pool::BUF_SIZE;
use crate::engine::{BackendStats, Buf, Pool, Port, PortEvent, BACKEND_DROP_SLOTS};

/// Where a burst of received frames goes: each into a buffer of the engine's pool,
/// appended to the burst. Counts the frames it could not take: no free buffer (another
/// worker emptied the pool meanwhile) or larger than a buffer.
pub struct RxSink<'a> {
    pool: &'a Pool,
    out: &'a mut Vec<Buf>,
    no_buffer: u64,
    too_long: u64,
}

impl RxSink<'_> {
    /// One received frame, written into a pool buffer by `copy`, which returns the
    /// frame's length, or `None` when it does not fit (the buffer goes back).
    #[inline]
    pub fn push_with(&mut self, copy: impl FnOnce(&mut [u8; BUF_SIZE]) -> Option<usize>) {
        let Some(mut b) = self.pool.get() else {
            self.no_buffer += 1;
            return;
        };
        match copy(b.storage_mut()) {
            Some(len) => {
                b.set_len(len);
                self.out.push(b);
            }
            None => {
                self.pool.put(b);
                self.too_long += 1;
            }
        }
    }

    /// One received frame with the kernel's receive time (`CLOCK_REALTIME` ns), copied
    /// into a pool buffer ([`Buf::set_kernel_rx`]).
    #[inline]
    pub fn push_stamped(&mut self, frame: &[u8], kernel_rx_realtime_ns: u64) {
        let at = self.out.len();
        self.push(frame);
        if let Some(b) = self.out.get_mut(at) {
            b.set_kernel_rx(kernel_rx_realtime_ns);
        }
    }

    /// One received frame, copied into a pool buffer.
    #[inline]
    pub fn push(&mut self, frame: &[u8]) {
        self.push_with(|dst| {
            dst.get_mut(..frame.len())?.copy_from_slice(frame);
            Some(frame.len())
        });
    }
}

/// A port backend as the generic engine [`Port`] sees it: frames in and out in bursts,
/// its link, its counters. See the module documentation.
pub trait RingPort: Send {
    /// The backend's drop reasons (a `drop_reasons!` enum).
    type Reason: Copy;
    /// Counted for a received frame the engine's pool had no free buffer for.
    const RX_NO_BUFFER: Self::Reason;
    /// Counted for a received frame larger than a pool buffer.
    const RX_TOO_LONG: Self::Reason;
    /// Names of the counters in [`BackendStats::drops`], in order (at most
    /// [`BACKEND_DROP_SLOTS`]): the drop reasons' labels, then any device counters.
    const COUNTER_NAMES: &'static [&'static str];

    /// Interface or device name.
    fn port_name(&self) -> &str;
    /// Largest frame (Ethernet header included, no FCS) the port sends.
    fn max_frame(&self) -> usize;
    /// Link state as of the last upkeep (or a failed send).
    fn link_is_up(&self) -> bool;
    /// True when a received frame is waiting (no syscall).
    fn rx_waiting(&self) -> bool;
    /// Whether [`RingPort::rx_waiting`] sees every waiting frame, so a receive may stop
    /// at it when it says none (false: only the receive itself can tell, as DPDK's).
    const RX_PEEKS: bool = true;
    /// File descriptor that polls readable when frames wait.
    fn poll_fd(&self) -> Option<i32> {
        None
    }
    /// Hand up to `max` received frames to `sink`, in order.
    fn rx_into(&mut self, max: usize, sink: &mut RxSink<'_>);
    /// Count `n` drops for `reason`.
    fn count_drops(&mut self, reason: Self::Reason, n: u64);
    /// Frames [`RingPort::tx_from`] takes now, while the link is up (at most a burst).
    fn tx_room(&self) -> usize;
    /// Transmit `bufs` in order, stopping at the first frame the backend refuses
    /// (counted by the backend); returns how many it took.
    fn tx_from(&mut self, bufs: &[Buf]) -> usize;
    /// Frames taken by [`RingPort::tx_from`] and not yet on the wire.
    fn tx_in_flight(&mut self) -> usize {
        0
    }
    /// Link upkeep ([`Port::maintain`]).
    fn upkeep(&mut self) -> PortEvent;
    /// The backend's counters (drops in [`RingPort::COUNTER_NAMES`] order; fill them
    /// with [`drop_slots`]).
    fn counters(&mut self) -> BackendStats;
}

/// `parts` one after the other in [`BackendStats::drops`] (any beyond its
/// [`BACKEND_DROP_SLOTS`] are left out; `RingPort::COUNTER_NAMES` is checked against
/// them at build time).
pub fn drop_slots(parts: &[&[u64]]) -> [u64; BACKEND_DROP_SLOTS] {
    let mut drops = [0u64; BACKEND_DROP_SLOTS];
    for (slot, v) in drops.iter_mut().zip(parts.iter().copied().flatten()) {
        *slot = *v;
    }
    drops
}

impl<T: RingPort> Port for T {
    fn name(&self) -> &str {
        self.port_name()
    }

    fn mtu(&self) -> usize {
        self.max_frame()
    }

    fn link_up(&self) -> bool {
        self.link_is_up()
    }

    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        // an idle port (most ports of a shared host, most rounds) costs one look at its ring
        if T::RX_PEEKS && !self.rx_waiting() {
            return 0;
        }
        // Never take more frames off the ring than the pool can hold: the rest stay in
        // the ring (the kernel or the device drops and counts when it fills up).
        let want = max.min(pool.available());
        if want == 0 {
            return 0;
        }
        let before = out.len();
        let mut sink = RxSink {
            pool,
            out,
            no_buffer: 0,
            too_long: 0,
        };
        self.rx_into(want, &mut sink);
        let (no_buffer, too_long) = (sink.no_buffer, sink.too_long);
        if no_buffer > 0 {
            self.count_drops(T::RX_NO_BUFFER, no_buffer);
        }
        if too_long > 0 {
            self.count_drops(T::RX_TOO_LONG, too_long);
        }
        out.len() - before
    }

    fn rx_ready(&self) -> bool {
        self.rx_waiting()
    }

    fn tx_space(&self) -> usize {
        if self.link_is_up() {
            self.tx_room()
        } else {
            0
        }
    }

    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        // the frames the backend refused (and those behind them) stay in `bufs` for the
        // engine to count
        let sent = self.tx_from(bufs);
        for b in bufs.drain(..sent) {
            pool.put(b);
        }
        sent
    }

    fn rx_fd(&self) -> Option<i32> {
        self.poll_fd()
    }

    fn maintain(&mut self) -> PortEvent {
        self.upkeep()
    }

    fn tx_backlog(&mut self) -> usize {
        self.tx_in_flight()
    }

    fn backend_drop_names(&self) -> &'static [&'static str] {
        const { assert!(T::COUNTER_NAMES.len() <= BACKEND_DROP_SLOTS) };
        T::COUNTER_NAMES
    }

    fn backend_stats(&mut self) -> Option<BackendStats> {
        Some(self.counters())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_slots_concatenate_and_stop_at_the_last_slot() {
        let d = drop_slots(&[&[1, 2], &[3]]);
        assert_eq!(d[..4], [1, 2, 3, 0]);
        let many = [7u64; BACKEND_DROP_SLOTS + 3];
        assert_eq!(drop_slots(&[&many]), [7; BACKEND_DROP_SLOTS]);
    }

    #[test]
    fn the_sink_fills_buffers_and_counts_what_it_cannot_take() {
        let pool = Pool::new(2);
        let mut out = Vec::new();
        let mut sink = RxSink {
            pool: &pool,
            out: &mut out,
            no_buffer: 0,
            too_long: 0,
        };
        sink.push(&[1, 2, 3]);
        sink.push(&[0; BUF_SIZE + 1]);
        sink.push_with(|d| {
            d[0] = 9;
            Some(1)
        });
        sink.push(&[4]);
        assert_eq!((sink.no_buffer, sink.too_long), (1, 1));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].bytes(), [1, 2, 3]);
        assert_eq!(out[1].bytes(), [9]);
    }
}
