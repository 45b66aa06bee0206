//! Fixed buffer pool: every frame buffer is allocated once, up front, and circulates as
//! a [`Buf`] handle (one pointer) between the pool, ports, rings and workers. Getting
//! and returning a buffer is one lock-free queue operation; nothing is allocated per
//! packet.

use crossbeam_queue::ArrayQueue;
use std::sync::Arc;

/// Bytes of frame data one buffer holds (Ethernet + Canopy header + payload, no FCS).
pub const BUF_SIZE: usize = 2048;
/// Hops a buffer can record when the engine's trace switch is on.
pub const TRACE_MAX: usize = 24;

/// One hop recorded in a traced frame: (switch id, ingress port, egress port).
pub type TraceHop = (u32, u16, u16);

struct Frame {
    data: [u8; BUF_SIZE],
    len: u16,
    trace_len: u8,
    trace: [TraceHop; TRACE_MAX],
}

/// Handle to one pool buffer. Moving it moves a pointer, never the bytes.
pub struct Buf(Box<Frame>);

impl Buf {
    fn new() -> Self {
        Buf(Box::new(Frame {
            data: [0; BUF_SIZE],
            len: 0,
            trace_len: 0,
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
        true
    }

    /// The whole storage, for backends that write a frame in place; follow with
    /// [`Buf::set_len`].
    pub fn storage_mut(&mut self) -> &mut [u8; BUF_SIZE] {
        &mut self.0.data
    }

    /// Set the frame length after writing into [`Buf::storage_mut`] (clamped to
    /// [`BUF_SIZE`]); clears the trace.
    pub fn set_len(&mut self, n: usize) {
        self.0.len = n.min(BUF_SIZE) as u16;
        self.0.trace_len = 0;
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
        for x in [a, b, c] {
            p.put(x);
        }
        assert_eq!(p.available(), 3);
        p.put(Buf::new());
        assert_eq!(p.available(), 3);
    }
}
