//! The `mem` port backend: two ports joined by a pair of bounded lock-free SPSC rings
//! (`rtrb`), one per direction. Buffers move between the ends as handles; nothing is
//! copied. Used by tests, benchmarks and the whole-fabric simulation.

use super::pool::{Buf, Pool};
use super::port::{Port, Wake};
use rtrb::{Consumer, Producer, RingBuffer};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Link state shared by both ends of a `mem` link (like pulling the cable).
#[derive(Debug)]
pub struct MemLink {
    up: AtomicBool,
}

impl MemLink {
    /// Set the link up or down.
    pub fn set_up(&self, up: bool) {
        self.up.store(up, Ordering::Release);
    }
    /// Link state.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Acquire)
    }
}

/// One end of a `mem` link.
pub struct MemPort {
    name: String,
    mtu: usize,
    tx: Producer<Buf>,
    rx: Consumer<Buf>,
    link: Arc<MemLink>,
    my_wake: Arc<OnceLock<Arc<Wake>>>,
    peer_wake: Arc<OnceLock<Arc<Wake>>>,
}

/// A link of two `mem` ports, each direction a ring of `capacity` frames.
pub fn pair(a: &str, b: &str, capacity: usize) -> (MemPort, MemPort) {
    let (atx, brx) = RingBuffer::new(capacity.max(1));
    let (btx, arx) = RingBuffer::new(capacity.max(1));
    let link = Arc::new(MemLink {
        up: AtomicBool::new(true),
    });
    let wa = Arc::new(OnceLock::new());
    let wb = Arc::new(OnceLock::new());
    (
        MemPort {
            name: a.to_string(),
            mtu: super::pool::BUF_SIZE,
            tx: atx,
            rx: arx,
            link: link.clone(),
            my_wake: wa.clone(),
            peer_wake: wb.clone(),
        },
        MemPort {
            name: b.to_string(),
            mtu: super::pool::BUF_SIZE,
            tx: btx,
            rx: brx,
            link,
            my_wake: wb,
            peer_wake: wa,
        },
    )
}

impl MemPort {
    /// Set the largest frame this end sends (default: a whole pool buffer). The engine
    /// reads it once, when it is built; frames longer than an egress port's MTU are
    /// dropped as `oversize`.
    pub fn set_mtu(&mut self, mtu: usize) {
        self.mtu = mtu;
    }
    /// The shared link state (to take the link down from another thread).
    pub fn link(&self) -> Arc<MemLink> {
        self.link.clone()
    }

    /// Frames waiting to be received.
    pub fn rx_pending(&self) -> usize {
        self.rx.slots()
    }

    /// Frames sent on this end that the peer has not received yet.
    pub fn tx_pending(&self) -> usize {
        self.tx.buffer().capacity() - self.tx.slots()
    }

    /// Send one frame (for sources outside an engine). `Err` gives it back when the
    /// ring is full or the link is down.
    pub fn send(&mut self, b: Buf) -> Result<(), Buf> {
        if !self.link.is_up() {
            return Err(b);
        }
        match self.tx.push(b) {
            Ok(()) => Ok(()),
            Err(rtrb::PushError::Full(b)) => Err(b),
        }
    }

    /// Wake the peer after one or more [`MemPort::send`]s.
    pub fn notify(&self) {
        if let Some(w) = self.peer_wake.get() {
            w.wake();
        }
    }

    /// Receive one frame (for sinks outside an engine).
    pub fn recv(&mut self) -> Option<Buf> {
        self.rx.pop().ok()
    }
}

impl Port for MemPort {
    fn name(&self) -> &str {
        &self.name
    }
    fn mtu(&self) -> usize {
        self.mtu
    }
    fn link_up(&self) -> bool {
        self.link.is_up()
    }
    fn rx_burst(&mut self, _pool: &Pool, out: &mut Vec<Buf>, max: usize) -> usize {
        let n = self.rx.slots().min(max);
        if n == 0 {
            return 0;
        }
        match self.rx.read_chunk(n) {
            Ok(chunk) => {
                out.extend(chunk);
                n
            }
            Err(_) => 0,
        }
    }
    fn rx_ready(&self) -> bool {
        !self.rx.is_empty()
    }
    fn tx_space(&self) -> usize {
        self.tx.slots()
    }
    fn tx_burst(&mut self, bufs: &mut Vec<Buf>, _pool: &Pool) -> usize {
        if !self.link.is_up() {
            return 0;
        }
        let n = bufs.len().min(self.tx.slots());
        if n == 0 {
            return 0;
        }
        let sent = match self.tx.write_chunk_uninit(n) {
            Ok(chunk) => chunk.fill_from_iter(bufs.drain(..n)),
            Err(_) => 0,
        };
        if sent > 0 {
            self.notify();
        }
        sent
    }
    /// The peer's unread frames: sent, not yet received.
    fn tx_backlog(&mut self) -> usize {
        self.tx.buffer().capacity() - self.tx.slots()
    }
    fn set_waker(&mut self, w: Arc<Wake>) -> bool {
        let _ = self.my_wake.set(w);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cross_a_link_in_order_and_stop_when_it_is_down() {
        let pool = Pool::new(8);
        let (mut a, mut b) = pair("a", "b", 4);
        let mut v = Vec::new();
        for i in 0..6u8 {
            let mut x = pool.get().unwrap();
            x.fill(&[i; 60]);
            v.push(x);
        }
        assert_eq!(a.tx_space(), 4);
        let sent = a.tx_burst(&mut v, &pool);
        assert_eq!(sent, 4);
        assert_eq!((a.tx_pending(), b.rx_pending()), (4, 4));
        assert_eq!(v.len(), 2, "unsent frames stay with the caller");
        let mut got = Vec::new();
        assert!(b.rx_ready());
        assert_eq!(b.rx_burst(&pool, &mut got, 32), 4);
        let firsts: Vec<u8> = got.iter().map(|x| x.bytes()[0]).collect();
        assert_eq!(firsts, vec![0, 1, 2, 3]);
        a.link().set_up(false);
        assert!(!b.link_up());
        assert_eq!(a.tx_burst(&mut v, &pool), 0);
        assert_eq!(v.len(), 2);
        assert_eq!(a.tx_backlog(), 0, "b took all four");
        a.link().set_up(true);
        assert_eq!(a.tx_burst(&mut v, &pool), 2);
        assert_eq!(a.tx_backlog(), 2);
    }
}
