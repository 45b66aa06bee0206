//! Fixed buffer pool: every frame buffer is allocated once, up front, and circulates as
//! a [`Buf`] handle (one pointer) between the pool, ports, rings and workers. Getting
//! and returning a buffer is one lock-free queue operation; nothing is allocated per
//! packet. A thread that takes and returns many buffers (a traffic source and sink, a
//! receiving backend) keeps a [`PoolCache`]: a private LIFO stack refilled from and
//! flushed to the shared queue in bursts, like DPDK's per-lcore mempool cache, so most
//! gets and puts touch neither the shared queue nor a cold buffer.
//!
//! Layout: a buffer is cache-line aligned and its length comes first, so the length
//! and the first 56 bytes of the frame (Ethernet and Canopy headers) share one line.

use crossbeam_queue::ArrayQueue;
use std::sync::Arc;

/// Bytes of frame data one buffer holds (Ethernet + Canopy header + payload, no FCS).
pub const BUF_SIZE: usize = 2048;
/// Hops a buffer can record when the engine's trace switch is on.
pub const TRACE_MAX: usize = 24;

/// One hop recorded in a traced frame: (switch id, ingress port, egress port).
pub type TraceHop = (u32, u16, u16);

/// [`Frame::marks`]: `kernel_rx` holds the kernel's receive stamp.
const MARK_KERNEL_RX: u8 = 1;
/// [`Frame::marks`]: the frame's last hop record waits for its TX-handoff time.
const MARK_HOP_PENDING: u8 = 2;

#[repr(C, align(64))]
struct Frame {
    len: u16,
    trace_len: u8,
    /// `MARK_*` bits; cleared with the trace whenever a new frame is written in.
    marks: u8,
    /// Low 32 bits of the kernel's receive time (`CLOCK_REALTIME` ns), valid with
    /// `MARK_KERNEL_RX`: the full time is recovered from a clock read less than 4.29 s
    /// later ([`Buf::kernel_rx_age`]), which keeps it in the cache line of the length.
    kernel_rx: u32,
    data: [u8; BUF_SIZE],
    trace: [TraceHop; TRACE_MAX],
}

/// Handle to one pool buffer. Moving it moves a pointer, never the bytes.
pub struct Buf(Box<Frame>);

impl Buf {
    fn new() -> Self {
        Buf(Box::new(Frame {
            len: 0,
            trace_len: 0,
            marks: 0,
            kernel_rx: 0,
            data: [0; BUF_SIZE],
            trace: [(0, 0, 0); TRACE_MAX],
        }))
    }

    /// The frame bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0.data[..usize::from(self.0.len)]
    }

    /// The frame bytes, mutable (decisions rewrite the header in place).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let n = usize::from(self.0.len);
        &mut self.0.data[..n]
    }

    /// Frame length.
    pub fn len(&self) -> usize {
        usize::from(self.0.len)
    }

    /// True when the buffer holds no frame.
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// Copy `src` in as the frame (and clear the trace). `false` (buffer unchanged)
    /// when `src` is longer than [`BUF_SIZE`].
    pub fn fill(&mut self, src: &[u8]) -> bool {
        if src.len() > BUF_SIZE {
            return false;
        }
        self.0.data[..src.len()].copy_from_slice(src);
        self.0.len = src.len() as u16;
        self.0.trace_len = 0;
        self.0.marks = 0;
        true
    }

    /// The whole storage, for backends that write a frame in place; follow with
    /// [`Buf::set_len`].
    pub fn storage_mut(&mut self) -> &mut [u8; BUF_SIZE] {
        &mut self.0.data
    }

    /// Set the frame length after writing into [`Buf::storage_mut`] (clamped to
    /// [`BUF_SIZE`]); clears the trace and the receive stamp.
    pub fn set_len(&mut self, n: usize) {
        self.0.len = n.min(BUF_SIZE) as u16;
        self.0.trace_len = 0;
        self.0.marks = 0;
    }

    /// Record when the kernel received the frame (`CLOCK_REALTIME` ns, e.g. AF_PACKET's
    /// `tp_sec`/`tp_nsec`). Backends without such a stamp leave it unset (unknown).
    #[inline]
    pub fn set_kernel_rx(&mut self, realtime_ns: u64) {
        self.0.kernel_rx = realtime_ns as u32;
        self.0.marks |= MARK_KERNEL_RX;
    }

    /// Forget the kernel's receive stamp (once a hop record used it: the buffer may reach
    /// another switch over an in-process link, which has none).
    #[inline]
    pub fn clear_kernel_rx(&mut self) {
        self.0.marks &= !MARK_KERNEL_RX;
    }

    /// How long before `now_realtime_ns` (`CLOCK_REALTIME`) the kernel received the
    /// frame, if a backend recorded it. Valid when the stamp is less than 2^32 ns
    /// (4.29 s) old.
    #[inline]
    pub fn kernel_rx_age(&self, now_realtime_ns: u64) -> Option<u64> {
        (self.0.marks & MARK_KERNEL_RX != 0)
            .then(|| u64::from((now_realtime_ns as u32).wrapping_sub(self.0.kernel_rx)))
    }

    /// Mark (or unmark) the frame's last hop record as waiting for its TX-handoff time.
    #[inline]
    pub fn set_hop_pending(&mut self, on: bool) {
        if on {
            self.0.marks |= MARK_HOP_PENDING;
        } else {
            self.0.marks &= !MARK_HOP_PENDING;
        }
    }

    /// True when the frame's last hop record waits for its TX-handoff time.
    #[inline]
    pub fn hop_pending(&self) -> bool {
        self.0.marks & MARK_HOP_PENDING != 0
    }

    /// Record a hop (ignored past [`TRACE_MAX`] hops; [`Buf::trace_overflow`] tells).
    pub fn push_trace(&mut self, hop: TraceHop) {
        let i = usize::from(self.0.trace_len);
        if i < TRACE_MAX {
            self.0.trace[i] = hop;
        }
        self.0.trace_len = self.0.trace_len.saturating_add(1);
    }

    /// Recorded hops, in order.
    pub fn trace(&self) -> &[TraceHop] {
        &self.0.trace[..usize::from(self.0.trace_len).min(TRACE_MAX)]
    }

    /// True when more hops were recorded than the trace holds.
    pub fn trace_overflow(&self) -> bool {
        usize::from(self.0.trace_len) > TRACE_MAX
    }
}

/// A fixed set of buffers shared by every thread that holds a clone.
#[derive(Clone)]
pub struct Pool {
    free: Arc<ArrayQueue<Buf>>,
}

impl Pool {
    /// A pool of `n` buffers (at least 1), all allocated now.
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let free = ArrayQueue::new(n);
        for _ in 0..n {
            // cannot fail: the queue was made for exactly n
            let _ = free.push(Buf::new());
        }
        Pool {
            free: Arc::new(free),
        }
    }

    /// Take a buffer (`None` when all are in use).
    #[inline]
    pub fn get(&self) -> Option<Buf> {
        self.free.pop()
    }

    /// Return a buffer. Buffers only come from a pool, so there is always room; a
    /// buffer of another, smaller pool that does not fit is freed.
    #[inline]
    pub fn put(&self, b: Buf) {
        let _ = self.free.push(b);
    }

    /// Buffers currently free.
    pub fn available(&self) -> usize {
        self.free.len()
    }

    /// Buffers in the pool.
    pub fn capacity(&self) -> usize {
        self.free.capacity()
    }
}

/// Buffers a [`PoolCache`] moves between its stack and the shared queue at once.
pub const CACHE_BURST: usize = 64;

/// A private, single-thread cache in front of a [`Pool`] (DPDK's mempool cache): a LIFO
/// stack of up to `2 × CACHE_BURST` buffers. `get` pops (refilling `CACHE_BURST` from
/// the shared queue when empty), `put` pushes (flushing `CACHE_BURST` back when full),
/// so the shared queue is touched once per burst and the buffer handed out is the one
/// most recently returned (still in cache). [`PoolCache::flush`] (also on drop) gives
/// every cached buffer back; until then [`Pool::available`] does not count them.
pub struct PoolCache {
    pool: Pool,
    stack: Vec<Buf>,
}

impl PoolCache {
    /// An empty cache in front of `pool`.
    pub fn new(pool: &Pool) -> Self {
        PoolCache {
            pool: pool.clone(),
            stack: Vec::with_capacity(2 * CACHE_BURST),
        }
    }

    /// The shared pool behind the cache.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Take a buffer (`None` when the cache and the pool are empty).
    #[inline]
    pub fn get(&mut self) -> Option<Buf> {
        if let Some(b) = self.stack.pop() {
            return Some(b);
        }
        self.refill();
        self.stack.pop()
    }

    #[cold]
    fn refill(&mut self) {
        for _ in 0..CACHE_BURST {
            match self.pool.get() {
                Some(b) => self.stack.push(b),
                None => break,
            }
        }
    }

    /// Return a buffer.
    #[inline]
    pub fn put(&mut self, b: Buf) {
        if self.stack.len() == self.stack.capacity() {
            self.spill();
        }
        self.stack.push(b);
    }

    #[cold]
    fn spill(&mut self) {
        // give back the least recently used half (the bottom of the stack)
        for b in self.stack.drain(..CACHE_BURST) {
            self.pool.put(b);
        }
    }

    /// Buffers held by the cache.
    pub fn len(&self) -> usize {
        self.stack.len()
    }

    /// True when the cache holds no buffer.
    pub fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    /// Return every cached buffer to the pool.
    pub fn flush(&mut self) {
        for b in self.stack.drain(..) {
            self.pool.put(b);
        }
    }
}

impl Drop for PoolCache {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_circulate_and_the_pool_never_grows() {
        let p = Pool::new(3);
        let a = p.get().unwrap();
        let mut b = p.get().unwrap();
        let c = p.get().unwrap();
        assert!(p.get().is_none());
        assert!(b.fill(&[1, 2, 3]));
        assert_eq!(b.bytes(), &[1, 2, 3]);
        assert!(!b.fill(&[0; BUF_SIZE + 1]));
        b.push_trace((7, 1, 2));
        assert_eq!(b.trace(), &[(7, 1, 2)]);
        assert_eq!(b.kernel_rx_age(5), None);
        b.set_kernel_rx(0x1_0000_0010);
        assert_eq!(
            b.kernel_rx_age(0x2_0000_0015),
            Some(5),
            "low 32 bits suffice"
        );
        assert_eq!(
            b.kernel_rx_age(0x2_0000_0005),
            Some((1 << 32) - 11),
            "wraps"
        );
        b.set_hop_pending(true);
        assert!(b.hop_pending());
        b.clear_kernel_rx();
        assert_eq!(b.kernel_rx_age(5), None);
        assert!(b.hop_pending());
        assert!(b.fill(&[1]));
        assert!(!b.hop_pending(), "a new frame starts unmarked");
        for x in [a, b, c] {
            p.put(x);
        }
        assert_eq!(p.available(), 3);
        p.put(Buf::new());
        assert_eq!(p.available(), 3);
    }

    #[test]
    fn the_cache_is_lifo_refills_and_spills_in_bursts_and_gives_everything_back() {
        let p = Pool::new(3 * CACHE_BURST);
        let mut c = PoolCache::new(&p);
        let mut a = c.get().unwrap();
        assert_eq!(c.len(), CACHE_BURST - 1, "one refill burst");
        assert_eq!(p.available(), 2 * CACHE_BURST);
        assert!(a.fill(&[9; 60]));
        let addr = a.bytes().as_ptr();
        c.put(a);
        let again = c.get().unwrap();
        assert_eq!(
            again.bytes().as_ptr(),
            addr,
            "the last buffer returned comes back first"
        );
        assert_eq!(again.bytes(), &[9; 60]);
        c.put(again);
        // take everything: the cache refills until the pool is empty
        let all: Vec<Buf> = std::iter::from_fn(|| c.get()).collect();
        assert_eq!(all.len(), 3 * CACHE_BURST);
        assert_eq!(p.available(), 0);
        for b in all {
            c.put(b);
            assert!(c.len() <= 2 * CACHE_BURST);
        }
        assert_eq!(p.available() + c.len(), 3 * CACHE_BURST);
        assert!(
            p.available() >= CACHE_BURST,
            "full cache spilled to the pool"
        );
        drop(c);
        assert_eq!(p.available(), 3 * CACHE_BURST);
    }

    #[test]
    fn length_and_frame_start_share_a_cache_line() {
        assert_eq!(std::mem::align_of::<Frame>(), 64);
        assert_eq!(std::mem::offset_of!(Frame, data), 8);
    }
}
