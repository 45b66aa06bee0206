//! [`AfXdpPort`] as an engine [`Port`]: RX frames are copied from UMEM chunks into pool
//! buffers (the chunk goes straight back to the fill ring), TX frames from buffers into
//! free TX chunks, one publish (and a `sendto` only if the kernel asks) per burst.
//!
//! Upkeep ([`Port::maintain`]) is [`AfXdpPort::poll_link`]. The backend counters are the
//! port's drop reasons followed by the kernel's `XDP_STATISTICS`
//! ([`super::XDP_STAT_NAMES`]); `kernel_drops` = `rx_dropped` + `rx_ring_full`.

use super::{AfXdpPort, PortDrop, PORT_DROP_REASONS, PORT_DROP_REASON_NAMES, XDP_STAT_NAMES};
use crate::engine::{BackendStats, Buf, Pool, Port, PortEvent, BACKEND_DROP_SLOTS};

const NAMES: usize = PORT_DROP_REASONS + XDP_STAT_NAMES.len();
const _: () = assert!(NAMES <= BACKEND_DROP_SLOTS);

/// The backend counter names: [`PORT_DROP_REASON_NAMES`] then [`XDP_STAT_NAMES`].
pub const BACKEND_COUNTER_NAMES: [&str; NAMES] = {
    let mut a = [""; NAMES];
    let mut i = 0;
    while i < PORT_DROP_REASONS {
        a[i] = PORT_DROP_REASON_NAMES[i];
        i += 1;
    }
    let mut j = 0;
    while j < XDP_STAT_NAMES.len() {
        a[PORT_DROP_REASONS + j] = XDP_STAT_NAMES[j];
        j += 1;
    }
    a
};

impl Port for AfXdpPort {
    fn name(&self) -> &str {
        AfXdpPort::name(self)
    }

    fn mtu(&self) -> usize {
        self.max_frame()
    }

    fn link_up(&self) -> bool {
        AfXdpPort::link_up(self)
    }

    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        // Never take more frames off the ring than the pool can hold.
        let want = max.min(pool.available());
        if want == 0 {
            return 0;
        }
        let before = out.len();
        let mut refused = 0u64;
        self.rx_burst_mut(want, |frame| match pool.get() {
            Some(mut b) => {
                if b.fill(frame) {
                    out.push(b);
                } else {
                    pool.put(b);
                    refused += 1;
                }
            }
            None => refused += 1,
        });
        self.stats.drops[PortDrop::RxNoBuffer as usize] += refused;
        out.len() - before
    }

    fn rx_ready(&self) -> bool {
        AfXdpPort::rx_ready(self)
    }

    fn tx_space(&self) -> usize {
        // free chunks plus those on the completion ring (tx_frame reclaims them)
        if AfXdpPort::link_up(self) {
            self.tx_available().min(crate::engine::BURST)
        } else {
            0
        }
    }

    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        let mut sent = 0;
        for b in bufs.iter() {
            match self.tx_frame(b.bytes()) {
                Ok(true) => sent += 1,
                Ok(false) | Err(_) => break,
            }
        }
        for b in bufs.drain(..sent) {
            pool.put(b);
        }
        // a failed wakeup leaves the frames in the ring; the next flush kicks again
        let _ = self.tx_flush();
        sent
    }

    fn rx_fd(&self) -> Option<i32> {
        Some(self.fd())
    }

    fn maintain(&mut self) -> PortEvent {
        // a failed reopen (or the wrong namespace) leaves the port down; the next
        // upkeep tries again
        self.poll_link().unwrap_or(PortEvent::Unchanged)
    }

    fn tx_backlog(&mut self) -> usize {
        AfXdpPort::tx_backlog(self)
    }

    fn backend_drop_names(&self) -> &'static [&'static str] {
        &BACKEND_COUNTER_NAMES
    }

    fn backend_stats(&mut self) -> Option<BackendStats> {
        let s = self.stats();
        let mut drops = [0u64; BACKEND_DROP_SLOTS];
        drops[..PORT_DROP_REASONS].copy_from_slice(&s.drops);
        drops[PORT_DROP_REASONS..NAMES].copy_from_slice(&s.kernel.as_array());
        Some(BackendStats {
            kernel_drops: s.kernel.rx_lost(),
            link_down_events: s.link_down_events,
            reopens: s.reopens,
            drops,
        })
    }
}
