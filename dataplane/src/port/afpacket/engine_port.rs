//! [`AfPacketPort`] as an engine port ([`RingPort`]): RX frames are copied from the mmap
//! RX ring into pool buffers, with the kernel's receive stamp ([`Buf::set_kernel_rx`]),
//! TX frames from buffers into the mmap TX ring, one `send` per burst.
//!
//! Upkeep is [`AfPacketPort::poll_link_background`]: down, up, or reopened after the
//! interface was re-created, the reopen running on a helper thread (it waits for kernel
//! RCU grace periods, tens of milliseconds (docs/BENCHMARKS.md), during which a worker
//! would forward nothing). Reopening creates the socket in the calling thread's network
//! namespace (the helper thread is spawned by the worker thread, so it inherits the
//! worker's), and the engine calls `maintain` on the worker thread that owns the port;
//! from a thread in another namespace than the port's (a shared host's), the reopen
//! enters the port's namespace on its helper thread.

use super::{AfPacketPort, PortDrop};
use crate::engine::{BackendStats, Buf, PortEvent, BURST};
use crate::port::adapter::{drop_slots, RingPort, RxSink};

impl RingPort for AfPacketPort {
    type Reason = PortDrop;
    const RX_NO_BUFFER: PortDrop = PortDrop::RxNoBuffer;
    const RX_TOO_LONG: PortDrop = PortDrop::RxNoBuffer;
    const COUNTER_NAMES: &'static [&'static str] = &PortDrop::NAMES;

    fn port_name(&self) -> &str {
        AfPacketPort::name(self)
    }
    fn max_frame(&self) -> usize {
        AfPacketPort::max_frame(self)
    }
    fn link_is_up(&self) -> bool {
        AfPacketPort::link_up(self)
    }
    fn rx_waiting(&self) -> bool {
        AfPacketPort::rx_ready(self)
    }
    fn poll_fd(&self) -> Option<i32> {
        Some(self.fd())
    }

    fn rx_into(&mut self, max: usize, sink: &mut RxSink<'_>) {
        self.rx_burst_stamped(max, |frame, ts| sink.push_stamped(frame, ts));
    }

    fn count_drops(&mut self, reason: PortDrop, n: u64) {
        self.stats.drops[reason.index()] += n;
    }

    fn tx_room(&self) -> usize {
        self.tx_free(BURST)
    }

    fn tx_from(&mut self, bufs: &[Buf]) -> usize {
        let sent = bufs
            .iter()
            .take_while(|b| self.tx_frame(b.bytes()) == Ok(true))
            .count();
        // frames stay queued in the ring on a failed send and go with the next one
        let _ = self.tx_flush();
        sent
    }

    fn tx_in_flight(&mut self) -> usize {
        AfPacketPort::tx_backlog(self)
    }

    fn upkeep(&mut self) -> PortEvent {
        // a failed reopen (or the wrong namespace) leaves the port down; the next
        // upkeep tries again
        self.poll_link_background().unwrap_or(PortEvent::Unchanged)
    }

    fn counters(&mut self) -> BackendStats {
        let s = self.stats();
        BackendStats {
            kernel_drops: s.kernel_drops,
            link_down_events: s.link_down_events,
            reopens: s.reopens,
            tx_requeues: s.tx_requeues,
            drops: drop_slots(&[&s.drops]),
        }
    }
}
