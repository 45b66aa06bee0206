//! [`DpdkPort`] as an engine port ([`RingPort`]): RX copies each frame from its mbuf
//! straight into a pool buffer (the mbufs are freed in bulk), TX copies buffers into
//! mbufs allocated in bulk and sends them with one `rte_eth_tx_burst` (plus one retry for
//! a remainder).
//!
//! Upkeep is [`DpdkPort::poll_link`]. The backend counters are the port's drop reasons
//! followed by the device's `rte_eth_stats` ([`ETH_STAT_NAMES`]); `kernel_drops` =
//! `imissed` + `rx_nombuf` (frames the device lost before Canopy saw them). DPDK offers
//! no cheap, driver-independent peek (af_packet has no `rx_queue_count`), so the port
//! never reports a frame waiting: an adaptive worker polls again after its bounded
//! sleep.

use super::{DpdkPort, PortDrop, ETH_STAT_NAMES};
use crate::engine::{BackendStats, Buf, PortEvent, BURST};
use crate::port::adapter::{drop_slots, RingPort, RxSink};
use crate::reasons::concat_names;

/// The backend counter names: [`PortDrop::NAMES`] then [`ETH_STAT_NAMES`].
pub const BACKEND_COUNTER_NAMES: [&str; PortDrop::COUNT + ETH_STAT_NAMES.len()] =
    concat_names(&PortDrop::NAMES, &ETH_STAT_NAMES);

impl RingPort for DpdkPort {
    type Reason = PortDrop;
    const RX_NO_BUFFER: PortDrop = PortDrop::RxNoBuffer;
    const RX_TOO_LONG: PortDrop = PortDrop::RxTooLong;
    const COUNTER_NAMES: &'static [&'static str] = &BACKEND_COUNTER_NAMES;

    fn port_name(&self) -> &str {
        DpdkPort::name(self)
    }
    fn max_frame(&self) -> usize {
        DpdkPort::max_frame(self)
    }
    fn link_is_up(&self) -> bool {
        DpdkPort::link_up(self)
    }
    fn rx_waiting(&self) -> bool {
        false
    }
    const RX_PEEKS: bool = false;

    fn rx_into(&mut self, max: usize, sink: &mut RxSink<'_>) {
        let n = self.burst.rx(self.dev.id, self.queue, max);
        for i in 0..n {
            sink.push_with(|dst| self.burst.copy_out(i, dst));
        }
        self.burst.free_all();
    }

    fn count_drops(&mut self, reason: PortDrop, n: u64) {
        self.drops[reason.index()] += n;
    }

    fn tx_room(&self) -> usize {
        // the replicas (queue > 0) only receive
        if self.queue == 0 {
            BURST
        } else {
            0
        }
    }

    fn tx_from(&mut self, bufs: &[Buf]) -> usize {
        self.tx_frames(bufs.iter().take(BURST).map(|b| b.bytes()))
    }

    fn upkeep(&mut self) -> PortEvent {
        self.poll_link()
    }

    fn counters(&mut self) -> BackendStats {
        let s = self.stats();
        BackendStats {
            kernel_drops: s.eth.imissed + s.eth.rx_nombuf,
            link_down_events: s.link_down_events,
            reopens: 0,
            tx_requeues: 0,
            drops: drop_slots(&[&s.drops, &s.eth.as_array()]),
        }
    }
}
