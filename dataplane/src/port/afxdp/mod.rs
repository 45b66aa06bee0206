//! AF_XDP port: one `AF_XDP` socket on one queue of one interface, with its own UMEM
//! and the four mmap rings (fill, completion, RX, TX); see `docs/afxdp.md`.
//!
//! * XDP program: five hand-assembled eBPF instructions that redirect the frames of
//!   each queue to the socket in an `XSKMAP` at that queue's index (`XDP_PASS` when the
//!   queue has none), loaded with `bpf(BPF_PROG_LOAD)` and attached with a `bpf_link`
//!   (`BPF_LINK_CREATE`): no libbpf, no clang, no ELF object. All ports of one
//!   interface in one process share the program and map (one queue each); the link is
//!   closed with the last of them, which detaches the program.
//! * Mode: native (driver) XDP with zero-copy when the driver supports it, native with
//!   copy otherwise, generic (SKB) XDP on interfaces without native XDP;
//!   [`AfXdpPort::mode`] says which one was obtained ([`BindMode`]).
//! * RX: [`AfXdpPort::rx_burst`] reads descriptors off the RX ring, hands each frame
//!   (in the UMEM) to the callback, and puts its chunk straight back on the fill ring;
//!   one release store of each index per burst.
//! * TX: [`AfXdpPort::tx_frame`] copies a frame into a free TX chunk and writes its
//!   descriptor, [`AfXdpPort::tx_flush`] publishes the burst and kicks the kernel with
//!   `sendto` only when the TX ring asks for it (`XDP_RING_NEED_WAKEUP`); sent chunks
//!   come back on the completion ring.
//! * Wakeups: the socket is bound with `XDP_USE_NEED_WAKEUP`; `recvfrom` is issued
//!   only when the fill ring asks for it. An idle owner sleeps in `poll`/`epoll` on
//!   [`AfXdpPort::fd`] (readable = RX ring not empty).
//!
//! * Engine: `engine_port.rs` implements [`RingPort`](crate::port::RingPort), which makes
//!   the port an engine `Port` (link upkeep = [`AfXdpPort::poll_link`]).
//!
//! No allocation, locking or syscall per packet: the only syscalls on the data path
//! are the wakeups the kernel asks for, at most one series per burst.
//!
//! Files: this one (the port: RX, TX, counters, link upkeep), `config.rs`
//! (configuration and modes), `attach.rs` (the shared XDP program), `socket.rs`
//! (opening a queue's socket), `sys.rs` (the syscalls and mappings, all of the
//! backend's `unsafe`).

mod attach;
mod config;
mod engine_port;
mod socket;
mod sys;

pub use config::{AfXdpConfig, BindMode, ConfigError, XdpMode};
pub use engine_port::BACKEND_COUNTER_NAMES;

use super::link::{self, IfError, Link};
use attach::Attached;
use socket::ctl_socket;
use std::io;
use std::os::fd::RawFd;
use std::sync::Arc;
use sys::{CtlSocket, Ring, Umem, XskSocket};

/// Ethernet header length: the smallest frame the port transmits.
pub const ETH_HLEN: usize = 14;
/// Headroom the kernel keeps in front of a received frame in a chunk
/// (`XDP_PACKET_HEADROOM`).
pub const XDP_PACKET_HEADROOM: u32 = 256;
/// Entries of the `XSKMAP`: the highest queue a port can bind is `MAX_QUEUES - 1`.
pub const MAX_QUEUES: u32 = 256;
/// How long `open` retries a bind refused with `EBUSY` (the queue's previous socket may
/// still be in the kernel's deferred release).
pub const BIND_BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(2);
/// Smallest ring (slots).
pub const MIN_RING: u32 = 64;
/// Largest ring (slots).
pub const MAX_RING: u32 = 1 << 16;

crate::reasons::drop_reasons! {
    /// Why the port refused or lost a frame (engine-level reasons owned by this
    /// module); labels in [`PortDrop::NAMES`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum PortDrop {
        /// TX: no free TX chunk (every one is in the TX ring or not yet completed).
        TxRingFull => "tx_ring_full",
        /// TX: frame larger than [`AfXdpPort::max_frame`].
        Oversize => "oversize",
        /// TX: frame shorter than an Ethernet header.
        Runt => "runt",
        /// TX: the port is down (interface down or gone).
        PortDown => "port_down",
        /// RX (engine adapter): no free buffer in the engine's pool, or the frame is
        /// larger than a pool buffer; the frame is consumed from the ring and dropped.
        RxNoBuffer => "rx_no_buffer",
        /// RX: a descriptor pointing outside its UMEM chunk (never seen; guards the ring).
        RxBadDesc => "rx_bad_desc",
        /// TX: a completion-ring address that is not one of the port's TX chunks (never
        /// seen; guards the free list).
        TxBadCompletion => "tx_bad_completion",
    }
}

/// Labels of the kernel's `XDP_STATISTICS` counters ([`XdpKernelStats::NAMES`]), as
/// the engine adapter exports them after [`PortDrop::NAMES`].
pub const XDP_STAT_NAMES: [&str; XdpKernelStats::COUNT] = XdpKernelStats::NAMES;

/// Errors of the AF_XDP port; each names the interface, and where there is one, the fix.
#[derive(Debug, thiserror::Error)]
pub enum AfXdpError {
    /// The configuration is invalid.
    #[error("{ifname}: {source}")]
    Config {
        /// Interface name.
        ifname: String,
        /// What is wrong.
        #[source]
        source: ConfigError,
    },
    /// A bad interface name, a failed call, a reopen from the wrong namespace.
    #[error(transparent)]
    If(#[from] IfError),
    /// No interface of that name in this network namespace.
    #[error("{ifname}: no such interface in this network namespace (check `ip link show {ifname}`, or run the switch in the interface's namespace)")]
    NoInterface {
        /// Interface name.
        ifname: String,
    },
    /// The XDP program cannot be attached in the mode asked for.
    #[error("{ifname}: cannot attach XDP in {mode} mode: {error}; {fix}")]
    Attach {
        /// Interface name.
        ifname: String,
        /// The attach mode tried (`native` or `generic (skb)`).
        mode: &'static str,
        /// What to do about it.
        fix: String,
        /// The OS error (in the message, not a `source`: the message is complete).
        error: io::Error,
    },
    /// `bind` refused the queue or the mode.
    #[error(
        "{ifname}: cannot bind an AF_XDP socket to queue {queue} in {mode} mode: {error}; {fix}"
    )]
    Bind {
        /// Interface name.
        ifname: String,
        /// The queue.
        queue: u32,
        /// The mode asked for.
        mode: &'static str,
        /// What to do about it.
        fix: String,
        /// The OS error (in the message, not a `source`: the message is complete).
        error: io::Error,
    },
    /// Another port of this process already attached the interface's program in a
    /// different mode.
    #[error("{ifname}: queue {queue} asks for {want} mode but another queue of the interface attached XDP in {have} mode; give all queues of an interface the same mode")]
    ModeConflict {
        /// Interface name.
        ifname: String,
        /// The queue.
        queue: u32,
        /// Mode asked for.
        want: &'static str,
        /// Mode attached.
        have: &'static str,
    },
    /// The kernel refused to register the UMEM (usually the locked-memory limit).
    #[error("{ifname}: setsockopt(XDP_UMEM_REG) of {bytes} bytes failed: {error}; {fix}")]
    Umem {
        /// Interface name.
        ifname: String,
        /// Size of the UMEM.
        bytes: usize,
        /// What to do about it.
        fix: &'static str,
        /// The OS error (in the message, not a `source`: the message is complete).
        error: io::Error,
    },
}

/// What [`AfXdpPort::poll_link`] observed: the engine's [`PortEvent`](crate::engine::PortEvent)
/// (`Reopened`: new program attachment, socket, UMEM and rings; [`AfXdpPort::fd`]
/// changed, re-register it with epoll).
pub use crate::engine::PortEvent as LinkEvent;

crate::reasons::device_counters! {
    /// The kernel's `XDP_STATISTICS` (cumulative over every socket the port had). Laid
    /// out as the kernel's `struct xdp_statistics`, which `getsockopt` fills.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct XdpKernelStats {
        /// Frames dropped for other reasons, e.g. no chunk on the fill ring (copy mode).
        rx_dropped => "xdp_rx_dropped",
        /// Invalid fill-ring descriptors.
        rx_invalid_descs => "xdp_rx_invalid_descs",
        /// Invalid TX descriptors (the frame is not sent).
        tx_invalid_descs => "xdp_tx_invalid_descs",
        /// Frames dropped because the RX ring was full.
        rx_ring_full => "xdp_rx_ring_full",
        /// Times the kernel found the fill ring empty (events, not frames).
        rx_fill_ring_empty_descs => "xdp_rx_fill_ring_empty_descs",
        /// Times the kernel found the TX ring empty (events, not frames: every kick that
        /// sends everything ends with one).
        tx_ring_empty_descs => "xdp_tx_ring_empty_descs",
    }
}

impl XdpKernelStats {
    /// Frames the kernel lost on RX before the port saw them.
    pub fn rx_lost(&self) -> u64 {
        self.rx_dropped + self.rx_ring_full
    }
}

/// Counters of a port; `drops` is indexed by [`PortDrop`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Frames handed to `rx_burst` callbacks.
    pub rx_frames: u64,
    /// Their bytes.
    pub rx_bytes: u64,
    /// Frames queued into the TX ring.
    pub tx_frames: u64,
    /// Their bytes.
    pub tx_bytes: u64,
    /// TX wakeups (`sendto`) issued because the kernel asked.
    pub tx_wakeups: u64,
    /// TX wakeups that failed with something other than `EAGAIN`.
    pub tx_wakeup_errors: u64,
    /// RX wakeups (`recvfrom`) issued because the fill ring asked.
    pub rx_wakeups: u64,
    /// The kernel's counters.
    pub kernel: XdpKernelStats,
    /// Times the port went down.
    pub link_down_events: u64,
    /// Times the port reopened after the interface was re-created.
    pub reopens: u64,
    /// Drops by [`PortDrop`] reason.
    pub drops: [u64; PortDrop::COUNT],
}

impl PortStats {
    /// Drops counted under `reason`.
    pub fn drop_count(&self, reason: PortDrop) -> u64 {
        self.drops[reason as usize]
    }
}

/// One socket with its UMEM and rings, and the ring walking state.
#[derive(Debug)]
pub(crate) struct Xsk {
    // Field order: the socket closes before the rings and the UMEM are unmapped.
    sock: XskSocket,
    fill: Ring,
    comp: Ring,
    rx: Ring,
    tx: Ring,
    umem: Umem,
    /// Our copies of the indices we own.
    rx_cons: u32,
    fill_prod: u32,
    tx_prod: u32,
    comp_cons: u32,
    /// TX frames written since the last publish.
    tx_unpublished: u32,
    /// A TX wakeup is owed (the last one stopped early).
    tx_kick_owed: bool,
    /// Free TX chunks (addresses); capacity = TX chunks, never grows.
    tx_free: Vec<u64>,
    /// TX chunks: addresses `tx_base + i * frame` for `i < tx_chunks`.
    tx_base: u64,
    tx_chunks: u32,
    frame: u32,
    mode: BindMode,
    /// The interface's XDP program, shared by its sockets.
    attached: Arc<Attached>,
    /// The interface held promiscuous while the socket is open.
    _promisc: crate::port::afpacket::Promisc,
}

/// An AF_XDP port on one queue of one interface.
#[derive(Debug)]
pub struct AfXdpPort {
    cfg: AfXdpConfig,
    xsk: Xsk,
    ctl: CtlSocket,
    /// Interface, link state and a reopen running on a helper thread.
    link: Link<Result<Opened, AfXdpError>>,
    stats: PortStats,
    /// `XDP_STATISTICS` of the sockets closed before this one.
    kernel_base: XdpKernelStats,
}

/// What `open_socket` returns: the socket and the interface as read then.
type Opened = link::Opened<Xsk>;

impl AfXdpPort {
    /// Open an AF_XDP socket on `cfg.queue` of `ifname`, in the calling thread's network
    /// namespace: check the configuration, attach (or share) the XDP program, create
    /// the socket, UMEM and rings, fill the fill ring, bind, and put the socket in the
    /// program's map. Every failure names the interface and, where there is one, the fix.
    pub fn open(ifname: &str, cfg: AfXdpConfig) -> Result<AfXdpPort, AfXdpError> {
        IfError::check_name(ifname)?;
        cfg.validate().map_err(|source| AfXdpError::Config {
            ifname: ifname.into(),
            source,
        })?;
        let ctl = ctl_socket(ifname)?;
        let netns = link::netns_id();
        let o = Self::open_socket(ifname, &cfg, &ctl, netns)?;
        Ok(AfXdpPort {
            link: Link::new(ifname, netns, &o),
            cfg,
            xsk: o.socket,
            ctl,
            stats: PortStats::default(),
            kernel_base: XdpKernelStats::default(),
        })
    }

    /// Interface name.
    pub fn name(&self) -> &str {
        &self.link.name
    }
    /// The queue the socket is bound to.
    pub fn queue(&self) -> u32 {
        self.cfg.queue
    }
    /// The mode obtained at open.
    pub fn mode(&self) -> BindMode {
        self.xsk.mode
    }
    /// Mode `auto` that got generic (SKB) XDP: why the driver refused native XDP (None
    /// otherwise).
    pub fn fallback(&self) -> Option<&str> {
        self.xsk.attached.fallback.as_deref()
    }
    /// Interface MTU (L3 bytes) at open or the last `poll_link`.
    pub fn mtu(&self) -> u32 {
        self.link.mtu
    }
    /// Interface index.
    pub fn ifindex(&self) -> i32 {
        self.link.ifindex
    }
    /// The socket, for poll/epoll (readable = RX ring not empty).
    pub fn fd(&self) -> RawFd {
        self.xsk.sock.raw()
    }
    /// Cached link state.
    pub fn link_up(&self) -> bool {
        self.link.up
    }
    /// The configuration.
    pub fn config(&self) -> &AfXdpConfig {
        &self.cfg
    }
    /// Largest frame `tx_frame` accepts: min(chunk, MTU + Ethernet header).
    pub fn max_frame(&self) -> usize {
        (self.xsk.frame as usize).min(self.link.mtu as usize + ETH_HLEN)
    }

    fn count_drop(&mut self, d: PortDrop) {
        self.stats.drops[d as usize] += 1;
    }

    /// Counters, with the kernel's `XDP_STATISTICS` read now (one `getsockopt`).
    pub fn stats(&mut self) -> PortStats {
        let mut k = self.kernel_base;
        if let Ok(s) = self.xsk.sock.statistics() {
            k.add(&s);
        }
        self.stats.kernel = k;
        self.stats.link_down_events = self.link.link_down_events;
        self.stats.reopens = self.link.reopens;
        self.stats
    }

    /// `poll` the socket for readability, at most `timeout_ms` (for adaptive polling).
    pub fn wait_readable(&self, timeout_ms: i32) -> bool {
        self.xsk
            .sock
            .poll(timeout_ms)
            .is_ok_and(|r| r & libc::POLLIN != 0)
    }

    /// True when the RX ring holds a frame.
    pub fn rx_ready(&self) -> bool {
        self.xsk.rx.producer() != self.xsk.rx_cons
    }

    /// Up to `max` received frames to `f`, in ring order; returns how many.
    pub fn rx_burst(&mut self, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        self.rx_burst_mut(max, |b| f(b))
    }

    /// Up to `max` received frames to `f`, each writable in place (the chunk is ours
    /// until the burst ends and it goes back to the fill ring); returns how many.
    pub fn rx_burst_mut(&mut self, max: usize, mut f: impl FnMut(&mut [u8])) -> usize {
        let x = &mut self.xsk;
        let avail = x.rx.producer().wrapping_sub(x.rx_cons);
        let n = avail.min(u32::try_from(max).unwrap_or(u32::MAX));
        if n == 0 {
            return 0;
        }
        let chunk_mask = !(u64::from(x.frame) - 1);
        let mut passed = 0usize;
        let (mut bytes, mut bad) = (0u64, 0u64);
        for i in 0..n {
            let (addr, len) = x.rx.read_desc(x.rx_cons.wrapping_add(i));
            let base = addr & chunk_mask;
            // inside its own chunk, and an RX chunk (below the TX chunks)
            let ok = addr - base + u64::from(len) <= u64::from(x.frame) && base < x.tx_base;
            match x.umem.chunk(addr, len as usize).filter(|_| ok) {
                Some(frame) => {
                    f(frame);
                    passed += 1;
                    bytes += u64::from(len);
                }
                None => bad += 1,
            }
            if base < x.tx_base {
                x.fill.write_addr(x.fill_prod, base);
                x.fill_prod = x.fill_prod.wrapping_add(1);
            }
        }
        x.rx_cons = x.rx_cons.wrapping_add(n);
        x.rx.set_consumer(x.rx_cons);
        x.fill.set_producer(x.fill_prod);
        let wake = x.fill.needs_wakeup();
        if wake {
            let _ = x.sock.kick_rx();
            self.stats.rx_wakeups += 1;
        }
        self.stats.rx_frames += passed as u64;
        self.stats.rx_bytes += bytes;
        self.stats.drops[PortDrop::RxBadDesc as usize] += bad;
        passed
    }

    /// Take back the TX chunks the kernel has sent (completion ring).
    fn reclaim(&mut self) {
        let x = &mut self.xsk;
        let prod = x.comp.producer();
        let mut bad = 0;
        while x.comp_cons != prod {
            let addr = x.comp.read_addr(x.comp_cons);
            x.comp_cons = x.comp_cons.wrapping_add(1);
            let off = addr.wrapping_sub(x.tx_base);
            if addr >= x.tx_base
                && off.is_multiple_of(u64::from(x.frame))
                && off / u64::from(x.frame) < u64::from(x.tx_chunks)
                && x.tx_free.len() < x.tx_free.capacity()
            {
                x.tx_free.push(addr);
            } else {
                bad += 1;
            }
        }
        x.comp.set_consumer(x.comp_cons);
        self.stats.drops[PortDrop::TxBadCompletion as usize] += bad;
    }

    /// Free TX chunks now, counting those sent and waiting on the completion ring
    /// (read-only: one acquire load).
    pub fn tx_available(&self) -> usize {
        let x = &self.xsk;
        let done = x.comp.producer().wrapping_sub(x.comp_cons) as usize;
        (x.tx_free.len() + done).min(x.tx_chunks as usize)
    }

    /// Frames `tx_frame` accepts now (at most `max`).
    pub fn tx_free(&mut self, max: usize) -> usize {
        if self.xsk.tx_free.len() < max {
            self.reclaim();
        }
        self.xsk.tx_free.len().min(max)
    }

    /// Copy one frame into a free TX chunk and queue its descriptor (published by
    /// [`tx_flush`](Self::tx_flush)). `Ok(false)`: no free chunk (counted as
    /// `tx_ring_full`); `Err`: refused (counted).
    pub fn tx_frame(&mut self, frame: &[u8]) -> Result<bool, PortDrop> {
        let refuse = |p: &mut Self, d: PortDrop| {
            p.count_drop(d);
            Err(d)
        };
        if !self.link.up {
            return refuse(self, PortDrop::PortDown);
        }
        if frame.len() < ETH_HLEN {
            return refuse(self, PortDrop::Runt);
        }
        if frame.len() > self.max_frame() {
            return refuse(self, PortDrop::Oversize);
        }
        if self.xsk.tx_free.is_empty() {
            self.reclaim();
        }
        let x = &mut self.xsk;
        let Some(addr) = x.tx_free.pop() else {
            self.count_drop(PortDrop::TxRingFull);
            return Ok(false);
        };
        match x.umem.chunk(addr, frame.len()) {
            Some(c) => c.copy_from_slice(frame),
            None => {
                // cannot happen (addresses are checked when they come back)
                x.tx_free.push(addr);
                self.count_drop(PortDrop::TxBadCompletion);
                return Ok(false);
            }
        }
        // A free chunk means a free TX slot: chunks in the ring <= chunks not free.
        x.tx.write_desc(x.tx_prod, addr, frame.len() as u32);
        x.tx_prod = x.tx_prod.wrapping_add(1);
        x.tx_unpublished += 1;
        self.stats.tx_frames += 1;
        self.stats.tx_bytes += frame.len() as u64;
        Ok(true)
    }

    /// Frames written by `tx_frame` and not yet published.
    pub fn tx_pending(&self) -> usize {
        self.xsk.tx_unpublished as usize
    }

    /// TX chunks in flight: queued, published or being sent, not yet completed.
    pub fn tx_backlog(&mut self) -> usize {
        if self.xsk.tx_kick_owed {
            let _ = self.kick_tx();
        }
        self.reclaim();
        self.xsk.tx_chunks as usize - self.xsk.tx_free.len()
    }

    /// Publish the queued frames (one release store) and, if the kernel asks for it
    /// (`XDP_RING_NEED_WAKEUP` on the TX ring), kick it with `sendto`; then take back
    /// completed chunks. In copy mode the kernel sends at most 32 frames per kick and
    /// answers `EAGAIN` when more wait, so the kick repeats until the ring is empty or
    /// the kernel stops for another reason (then it is owed to the next flush).
    pub fn tx_flush(&mut self) -> Result<(), AfXdpError> {
        let x = &mut self.xsk;
        if x.tx_unpublished > 0 {
            x.tx.set_producer(x.tx_prod);
            x.tx_unpublished = 0;
            x.tx_kick_owed = true;
        }
        let r = if self.xsk.tx_kick_owed {
            self.kick_tx()
        } else {
            Ok(())
        };
        self.reclaim();
        r
    }

    fn kick_tx(&mut self) -> Result<(), AfXdpError> {
        let x = &mut self.xsk;
        if !x.tx.needs_wakeup() {
            x.tx_kick_owed = false;
            return Ok(());
        }
        // bounded: every EAGAIN round sends up to 32 frames of at most tx_chunks
        let rounds = x.tx_chunks / 32 + 2;
        for _ in 0..rounds {
            self.stats.tx_wakeups += 1;
            match x.sock.kick_tx() {
                Ok(()) => {
                    x.tx_kick_owed = x.tx.consumer() != x.tx_prod;
                    if !x.tx_kick_owed {
                        return Ok(());
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {
                    if x.tx.consumer() == x.tx_prod {
                        x.tx_kick_owed = false;
                        return Ok(());
                    }
                }
                Err(e) => {
                    self.stats.tx_wakeup_errors += 1;
                    self.link.send_failed(&e);
                    // ENOBUFS, EBUSY: the frames stay in the ring; the next flush or
                    // `tx_backlog` kicks again
                    x.tx_kick_owed = true;
                    return Err(IfError::sys(&self.link.name, "sendto(AF_XDP TX wakeup)")(e).into());
                }
            }
        }
        Ok(())
    }

    /// Re-read the interface state (a few ioctls; call it on a timer and when
    /// [`fd`](Self::fd) reports an error). Up = the interface the socket is bound to
    /// exists and has IFF_UP and IFF_RUNNING. When an interface of the same name
    /// appears again with a new ifindex, the port reopens (new program attachment,
    /// socket, UMEM and rings, same configuration): [`LinkEvent::Reopened`]. Must run
    /// in the namespace the port was opened in.
    pub fn poll_link(&mut self) -> Result<LinkEvent, AfXdpError> {
        link::poll(self, false)
    }

    /// [`poll_link`](Self::poll_link) for a thread that must not block: the reopen runs
    /// on a helper thread spawned from the calling one (so in its network namespace)
    /// and a later call installs it and returns [`LinkEvent::Reopened`]; meanwhile the
    /// port stays down and calls return `Unchanged`.
    pub fn poll_link_background(&mut self) -> Result<LinkEvent, AfXdpError> {
        link::poll(self, true)
    }
}

impl link::Reopen for AfXdpPort {
    type Socket = Xsk;
    type Error = AfXdpError;
    const THREAD: &'static str = "canopy-xsk";

    fn link(&mut self) -> &mut Link<Result<Opened, AfXdpError>> {
        &mut self.link
    }
    fn data_fd(&self) -> RawFd {
        self.xsk.sock.raw()
    }
    fn ctl_fd(&self) -> RawFd {
        self.ctl.raw()
    }
    fn opener(&self) -> impl FnOnce() -> Result<Opened, AfXdpError> + Send + 'static {
        let (name, cfg, netns) = (self.link.name.clone(), self.cfg.clone(), self.link.netns);
        move || Self::open_socket(&name, &cfg, &ctl_socket(&name)?, netns)
    }
    fn install(&mut self, xsk: Xsk, _background: bool) {
        if let Ok(s) = self.xsk.sock.statistics() {
            self.kernel_base.add(&s);
        }
        // Closing an AF_XDP socket waits for an RCU grace period (`synchronize_net` in
        // `xsk_release`): the old one closes on a helper thread, so the caller (a
        // worker) is not held up by it.
        let old = std::mem::replace(&mut self.xsk, xsk);
        link::close_on_helper(Self::THREAD, old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_reasons() {
        assert_eq!(
            PortDrop::NAMES[PortDrop::TxRingFull as usize],
            "tx_ring_full"
        );
        assert_eq!(
            PortDrop::NAMES[PortDrop::RxNoBuffer as usize],
            "rx_no_buffer"
        );
        assert_eq!(
            PortDrop::NAMES[PortDrop::TxBadCompletion as usize],
            "tx_bad_completion"
        );
        for (i, n) in PortDrop::NAMES.iter().enumerate() {
            let d = [
                PortDrop::TxRingFull,
                PortDrop::Oversize,
                PortDrop::Runt,
                PortDrop::PortDown,
                PortDrop::RxNoBuffer,
                PortDrop::RxBadDesc,
                PortDrop::TxBadCompletion,
            ][i];
            assert_eq!(d.to_string(), *n);
        }
    }

    #[test]
    fn bad_names_and_config_are_refused_before_any_syscall() {
        assert!(matches!(
            AfXdpPort::open("", AfXdpConfig::default()),
            Err(AfXdpError::If(IfError::BadName { .. }))
        ));
        assert!(matches!(
            AfXdpPort::open("a-very-long-interface-name", AfXdpConfig::default()),
            Err(AfXdpError::If(IfError::BadName { .. }))
        ));
        let c = AfXdpConfig {
            tx_ring: 3,
            ..AfXdpConfig::default()
        };
        let e = AfXdpPort::open("lo", c).unwrap_err();
        assert!(matches!(e, AfXdpError::Config { .. }), "{e}");
        assert!(e.to_string().starts_with("lo: tx ring size 3"), "{e}");
    }
}
