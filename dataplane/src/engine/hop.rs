//! Per-hop records (wire flag HOPS, `docs/wire-format.md` §2.1): what a worker writes
//! into a frame that asks for them. Off the common path: the decision says whether a
//! frame has the flag (free on its fast path, which takes no such frame), the clocks are
//! read once per receive burst that holds such a frame and once per TX drain burst that
//! carries one, and the drain looks for such frames only while the egress port's
//! `hop_pending` count is not 0. No allocation, no lock, no syscall (the clocks are vDSO
//! reads).

use super::pool::Buf;
use crate::wire::hops::{self, HopRecord, HopWrite};

/// A kernel receive stamp older than this (by `CLOCK_REALTIME`) is taken as a clock
/// step, not a wait, and written as unknown.
const KERNEL_RX_MAX_AGE_NS: u64 = 1_000_000_000;

/// The clocks, read when the worker reaches the first frame of a receive burst that asks
/// for a hop record (after deciding the frames before it in the burst).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HopClock {
    /// `CLOCK_MONOTONIC` ns: the records' clock, and their Poll time.
    mono_ns: u64,
    /// `CLOCK_REALTIME` ns, read next to it: converts the kernel's receive stamps.
    real_ns: u64,
}

impl HopClock {
    /// Read both clocks now.
    pub(crate) fn now() -> HopClock {
        HopClock {
            mono_ns: monotonic_ns(),
            real_ns: realtime_ns(),
        }
    }

    /// The kernel's receive time of `b` on the monotonic clock, 0 when unknown.
    fn kernel_rx(&self, b: &Buf) -> u64 {
        match b.kernel_rx_age(self.real_ns) {
            Some(age) if age <= KERNEL_RX_MAX_AGE_NS => self.mono_ns.saturating_sub(age),
            _ => 0,
        }
    }
}

#[cfg(target_os = "linux")]
fn monotonic_ns() -> u64 {
    super::sys::clock_ns(libc::CLOCK_MONOTONIC)
}
#[cfg(target_os = "linux")]
fn realtime_ns() -> u64 {
    super::sys::clock_ns(libc::CLOCK_REALTIME)
}
#[cfg(not(target_os = "linux"))]
fn monotonic_ns() -> u64 {
    0
}
#[cfg(not(target_os = "linux"))]
fn realtime_ns() -> u64 {
    0
}

/// Where a frame goes, as the worker decided it.
pub(crate) struct Hop {
    pub(crate) switch: u32,
    pub(crate) ingress: u16,
    pub(crate) egress: u16,
    /// Frames ahead of it towards `egress` (the adaptive choice's occupancy).
    pub(crate) queue: usize,
}

/// Write this switch's record into `b`, which asks for one (or set the area's overflow
/// flag). True when a record was written: `b` is marked for its TX-handoff time.
#[cold]
#[inline(never)]
pub(crate) fn record(b: &mut Buf, clk: &HopClock, hop: &Hop) -> bool {
    let Some(off) = hops::requested(b.bytes()) else {
        return false;
    };
    let rec = HopRecord {
        switch: hop.switch,
        ingress: hop.ingress,
        egress: hop.egress,
        queue: u32::try_from(hop.queue).unwrap_or(u32::MAX),
        clock: hops::clock::MONOTONIC,
        kernel_rx_ns: clk.kernel_rx(b),
        poll_ns: clk.mono_ns,
        tx_ns: 0,
        queue_delay_ns: 0,
    };
    let wrote = matches!(
        hops::write(&mut b.bytes_mut()[off..], &rec),
        Some(HopWrite::Slot(_))
    );
    b.set_hop_pending(wrote);
    // used: a later switch that gets this buffer over an in-process link (which has no
    // stamp of its own) must not take it for its own
    b.clear_kernel_rx();
    wrote
}

/// Give every frame of `bufs` whose record waits for it ([`Buf::hop_pending`]) its
/// TX-handoff time: now, as the burst goes to the port (one clock read, only when such a
/// frame is there). The TX drain calls it while its port's `hop_pending` is not 0.
/// Returns how many it stamped.
#[cold]
#[inline(never)]
pub(crate) fn stamp_tx(bufs: &mut [Buf]) -> usize {
    let mut now = None;
    let mut n = 0;
    for b in bufs.iter_mut().filter(|b| b.hop_pending()) {
        let t = *now.get_or_insert_with(monotonic_ns);
        if let Some(off) = hops::requested(b.bytes()) {
            hops::set_last_tx(&mut b.bytes_mut()[off..], t);
        }
        b.set_hop_pending(false);
        n += 1;
    }
    n
}
