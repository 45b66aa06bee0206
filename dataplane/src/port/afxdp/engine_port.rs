//! [`AfXdpPort`] as an engine port ([`RingPort`]): RX frames are copied from UMEM chunks
//! into pool buffers (the chunk goes straight back to the fill ring), TX frames from
//! buffers into free TX chunks, one publish (and a `sendto` only if the kernel asks) per
//! burst.
//!
//! Upkeep is [`AfXdpPort::poll_link`]. The backend counters are the port's drop reasons
//! followed by the kernel's `XDP_STATISTICS` ([`super::XDP_STAT_NAMES`]);
//! `kernel_drops` = `rx_dropped` + `rx_ring_full`.

use super::{AfXdpPort, PortDrop, XDP_STAT_NAMES};
use crate::engine::{BackendStats, Buf, PortEvent, BURST};
use crate::port::adapter::{drop_slots, RingPort, RxSink};
use crate::reasons::concat_names;

/// The backend counter names: [`PortDrop::NAMES`] then [`XDP_STAT_NAMES`].
pub const BACKEND_COUNTER_NAMES: [&str; PortDrop::COUNT + XDP_STAT_NAMES.len()] =
    concat_names(&PortDrop::NAMES, &XDP_STAT_NAMES);

impl RingPort for AfXdpPort {
    type Reason = PortDrop;
    const RX_NO_BUFFER: PortDrop = PortDrop::RxNoBuffer;
    const RX_TOO_LONG: PortDrop = PortDrop::RxNoBuffer;
    const COUNTER_NAMES: &'static [&'static str] = &BACKEND_COUNTER_NAMES;

    fn port_name(&self) -> &str {
        AfXdpPort::name(self)
    }
    fn max_frame(&self) -> usize {
        AfXdpPort::max_frame(self)
    }
    fn link_is_up(&self) -> bool {
        AfXdpPort::link_up(self)
    }
    fn rx_waiting(&self) -> bool {
        AfXdpPort::rx_ready(self)
    }
    fn poll_fd(&self) -> Option<i32> {
        Some(self.fd())
    }

    fn rx_into(&mut self, max: usize, sink: &mut RxSink<'_>) {
        self.rx_burst_mut(max, |frame| sink.push(frame));
    }

    fn count_drops(&mut self, reason: PortDrop, n: u64) {
        self.stats.drops[reason.index()] += n;
    }

    fn tx_room(&self) -> usize {
        // free chunks plus those on the completion ring (tx_frame reclaims them)
        self.tx_available().min(BURST)
    }

    fn tx_from(&mut self, bufs: &[Buf]) -> usize {
        let sent = bufs
            .iter()
            .take_while(|b| self.tx_frame(b.bytes()) == Ok(true))
            .count();
        // a failed wakeup leaves the frames in the ring; the next flush kicks again
        let _ = self.tx_flush();
        sent
    }

    fn tx_in_flight(&mut self) -> usize {
        AfXdpPort::tx_backlog(self)
    }

    fn upkeep(&mut self) -> PortEvent {
        // a failed reopen leaves the port down; the next upkeep tries again
        self.poll_link().unwrap_or(PortEvent::Unchanged)
    }

    fn counters(&mut self) -> BackendStats {
        let s = self.stats();
        BackendStats {
            kernel_drops: s.kernel.rx_lost(),
            link_down_events: s.link_down_events,
            reopens: s.reopens,
            tx_requeues: 0,
            drops: drop_slots(&[&s.drops, &s.kernel.as_array()]),
        }
    }
}
