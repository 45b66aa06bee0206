//! [`AfPacketPort`] as an engine [`Port`]: RX frames are copied from the mmap RX ring
//! into pool buffers, TX frames from buffers into the mmap TX ring, one `send` per burst.
//!
//! Upkeep ([`Port::maintain`]) is [`AfPacketPort::poll_link_background`]: down, up, or
//! reopened after the interface was re-created, the reopen running on a helper thread
//! (it waits for kernel RCU grace periods, tens of milliseconds (docs/BENCHMARKS.md),
//! during which a worker would forward nothing). Reopening creates the socket in the calling
//! thread's network namespace (the helper thread is spawned by the worker thread, so
//! it inherits the worker's), and the engine calls `maintain` on the worker thread
//! that owns the port: the engine's threads inherit the namespace of the thread that
//! spawned them, so spawn the engine in the namespace the ports were opened in and do
//! not `setns` its threads (a port in another namespace stays down: `WrongNamespace`).

use super::{AfPacketPort, PortDrop, PORT_DROP_REASONS, PORT_DROP_REASON_NAMES};
use crate::engine::{BackendStats, Buf, Pool, Port, PortEvent, BACKEND_DROP_SLOTS};

const _: () = assert!(PORT_DROP_REASONS <= BACKEND_DROP_SLOTS);

impl Port for AfPacketPort {
    fn name(&self) -> &str {
        AfPacketPort::name(self)
    }

    fn mtu(&self) -> usize {
        self.max_frame()
    }

    fn link_up(&self) -> bool {
        AfPacketPort::link_up(self)
    }

    fn rx_burst(&mut self, pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        // Never take more frames off the ring than the pool can hold: the rest stay in
        // the ring (the kernel drops and counts when it fills up).
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
            // another worker emptied the pool meanwhile
            None => refused += 1,
        });
        for _ in 0..refused {
            self.count_drop(PortDrop::RxNoBuffer);
        }
        out.len() - before
    }

    fn rx_ready(&self) -> bool {
        AfPacketPort::rx_ready(self)
    }

    fn tx_space(&self) -> usize {
        if AfPacketPort::link_up(self) {
            self.tx_free(crate::engine::BURST)
        } else {
            0
        }
    }

    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, pool: &Pool) -> usize {
        let mut sent = 0;
        // Frames are taken in order; the first one the port refuses (and everything
        // behind it) stays in `bufs` for the engine to count.
        for b in bufs.iter() {
            match self.tx_frame(b.bytes()) {
                Ok(true) => sent += 1,
                Ok(false) | Err(_) => break,
            }
        }
        for b in bufs.drain(..sent) {
            pool.put(b);
        }
        // Frames stay queued in the ring on a failed send and go with the next one.
        let _ = self.tx_flush();
        sent
    }

    fn rx_fd(&self) -> Option<i32> {
        Some(self.fd())
    }

    fn maintain(&mut self) -> PortEvent {
        // a failed reopen (or the wrong namespace) leaves the port down; the next
        // upkeep tries again
        self.poll_link_background().unwrap_or(PortEvent::Unchanged)
    }

    fn tx_backlog(&mut self) -> usize {
        AfPacketPort::tx_backlog(self)
    }

    fn backend_drop_names(&self) -> &'static [&'static str] {
        &PORT_DROP_REASON_NAMES
    }

    fn backend_stats(&mut self) -> Option<BackendStats> {
        let s = self.stats();
        let mut drops = [0u64; BACKEND_DROP_SLOTS];
        drops[..PORT_DROP_REASONS].copy_from_slice(&s.drops);
        Some(BackendStats {
            kernel_drops: s.kernel_drops,
            link_down_events: s.link_down_events,
            reopens: s.reopens,
            drops,
        })
    }
}
