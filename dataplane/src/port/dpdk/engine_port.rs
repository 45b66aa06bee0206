//! [`DpdkPort`] as an engine [`Port`]: RX copies each frame from its mbuf straight into
//! a pool buffer (the mbufs are freed in bulk), TX copies buffers into mbufs allocated
//! in bulk and sends them with one `rte_eth_tx_burst` (plus one retry for a remainder).
//!
//! Upkeep ([`Port::maintain`]) is [`DpdkPort::poll_link`]. The backend counters are the
//! port's drop reasons followed by the device's `rte_eth_stats` ([`ETH_STAT_NAMES`]);
//! `kernel_drops` = `imissed` + `rx_nombuf` (frames the device lost before Canopy saw
//! them).

use super::{DpdkPort, PortDrop, ETH_STAT_NAMES, PORT_DROP_REASONS, PORT_DROP_REASON_NAMES};
use crate::engine::{BackendStats, Buf, Pool, Port, PortEvent, BACKEND_DROP_SLOTS, BURST};

const NAMES: usize = PORT_DROP_REASONS + ETH_STAT_NAMES.len();
const _: () = assert!(NAMES <= BACKEND_DROP_SLOTS);

/// The backend counter names: [`PORT_DROP_REASON_NAMES`] then [`ETH_STAT_NAMES`].
pub const BACKEND_COUNTER_NAMES: [&str; NAMES] = {
    let mut a = [""; NAMES];
    let mut i = 0;
    while i < PORT_DROP_REASONS {
        a[i] = PORT_DROP_REASON_NAMES[i];
        i += 1;
    }
    let mut j = 0;
    while j < ETH_STAT_NAMES.len() {
        a[PORT_DROP_REASONS + j] = ETH_STAT_NAMES[j];
        j += 1;
    }
    a
};

impl Port for DpdkPort {
    fn name(&self) -> &str {
        DpdkPort::name(self)
    }

    fn mtu(&self) -> usize {
        self.max_frame()
    }

    fn link_up(&self) -> bool {
        DpdkPort::link_up(self)
    }

    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        // never take more frames off the device than the pool can hold
        let want = max.min(pool.available()).min(BURST);
        if want == 0 {
            return 0;
        }
        let n = self.burst.rx(self.dev.id, self.queue, want);
        let before = out.len();
        for i in 0..n {
            let Some(mut b) = pool.get() else {
                self.drops[PortDrop::RxNoBuffer as usize] += 1;
                continue;
            };
            match self.burst.copy_out(i, b.storage_mut()) {
                Some(len) => {
                    b.set_len(len);
                    out.push(b);
                }
                None => {
                    pool.put(b);
                    self.drops[PortDrop::RxTooLong as usize] += 1;
                }
            }
        }
        self.burst.free_all();
        out.len() - before
    }

    fn rx_ready(&self) -> bool {
        // DPDK offers no cheap, driver-independent peek (af_packet has no
        // rx_queue_count): an adaptive worker polls again after its bounded sleep
        false
    }

    fn tx_space(&self) -> usize {
        if DpdkPort::link_up(self) && self.queue == 0 {
            BURST
        } else {
            0
        }
    }

    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        let sent = self.tx_frames(bufs.iter().take(BURST).map(|b| b.bytes()));
        for b in bufs.drain(..sent) {
            pool.put(b);
        }
        sent
    }

    fn maintain(&mut self) -> PortEvent {
        self.poll_link()
    }

    fn backend_drop_names(&self) -> &'static [&'static str] {
        &BACKEND_COUNTER_NAMES
    }

    fn backend_stats(&mut self) -> Option<BackendStats> {
        let s = self.stats();
        let mut drops = [0u64; BACKEND_DROP_SLOTS];
        drops[..PORT_DROP_REASONS].copy_from_slice(&s.drops);
        drops[PORT_DROP_REASONS..NAMES].copy_from_slice(&s.eth.as_array());
        Some(BackendStats {
            kernel_drops: s.eth.imissed + s.eth.rx_nombuf,
            link_down_events: s.link_down_events,
            reopens: 0,
            drops,
        })
    }
}
