//! AF_PACKET port: a `TPACKET_V3` mmap RX ring and a `TPACKET_V3` mmap TX ring on one
//! packet socket bound to one interface (see `docs/afpacket.md`).
//!
//! * RX: the kernel fills variable-length frames into blocks; [`AfPacketPort::rx_burst`]
//!   walks the blocks user space owns and hands each block back once consumed. A block
//!   becomes visible when it is full or when the retire timeout fires.
//! * TX: fixed-size frames; [`AfPacketPort::tx_frame`] copies a frame into the next free
//!   slot, [`AfPacketPort::tx_flush`] issues one `send(MSG_DONTWAIT)` for the whole burst.
//!   The TX ring is on a socket of its own when the RX socket cannot see what it sends
//!   ([`AfPacketPort::tx_fd`]), and each slot starts with a `virtio_net_hdr` that has the
//!   kernel copy the whole frame (`PACKET_VNET_HDR`, see `vnet_header`).
//! * Link: [`AfPacketPort::poll_link`] re-reads the interface state, marks the port down
//!   when the interface is down or gone, and reopens the socket when an interface of the
//!   same name comes back with a new ifindex.
//!
//! * TX backlog: [`AfPacketPort::tx_backlog`] counts TX-ring frames not yet sent.
//! * Engine: `engine_port.rs` implements [`RingPort`](crate::port::RingPort), which makes
//!   the port an engine `Port` (link upkeep = [`AfPacketPort::poll_link_background`],
//!   backend counters = [`AfPacketPort::stats`]).
//!
//! Files: this one (the port, TX and link upkeep), `config.rs` (configuration and ring
//! geometry), `rx.rs` (the RX ring walk), `sys.rs` (the socket and the mapping, all of
//! the backend's `unsafe`).
//!
//! No allocation, locking or syscall per packet: the only syscalls are one `send` per
//! flushed burst, and whatever the caller does with [`AfPacketPort::fd`].

mod config;
mod engine_port;
mod rx;
mod sys;
pub(crate) use sys::Promisc;

pub use config::{
    AfPacketConfig, FanoutMode, GeometryError, RingGeometry, TpacketVersion, MAX_RING_BYTES,
};

use super::link::{self, IfError, Link};
use std::os::fd::RawFd;
use sys::{FrameLayout, RingMap, Socket, TpacketReq3};

/// Ethernet header length: the smallest frame the kernel accepts for transmission.
pub const ETH_HLEN: usize = 14;

crate::reasons::drop_reasons! {
    /// Why the port refused or lost a frame. Engine-level reasons owned by this module
    /// (not part of the decision's `DropReason` list); labels in
    /// [`PortDrop::NAMES`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum PortDrop {
        /// TX: no free frame in the TX ring.
        TxRingFull => "tx_ring_full",
        /// TX: frame larger than the TX ring frame or the interface MTU + Ethernet header.
        Oversize => "oversize",
        /// TX: frame shorter than an Ethernet header.
        Runt => "runt",
        /// TX: the port is down (interface down or gone).
        PortDown => "port_down",
        /// RX: the kernel truncated the frame (larger than the RX block can hold).
        RxTruncated => "rx_truncated",
        /// TX: the kernel refused a frame it was asked to send (`TP_STATUS_WRONG_FORMAT`).
        TxWrongFormat => "tx_wrong_format",
        /// RX: a block descriptor or packet header pointed outside its block.
        RxBadBlock => "rx_bad_block",
        /// RX (engine adapter): no free buffer in the engine's pool, or the frame is
        /// larger than a pool buffer; the frame is consumed from the ring and dropped.
        RxNoBuffer => "rx_no_buffer",
    }
}

/// Errors of the AF_PACKET port; each names the interface and the failing call.
#[derive(Debug, thiserror::Error)]
pub enum AfPacketError {
    /// The ring geometry is invalid.
    #[error("{ifname}: {source}")]
    Geometry {
        /// Interface name.
        ifname: String,
        /// What is wrong.
        #[source]
        source: GeometryError,
    },
    /// A bad interface name, a failed call, a reopen from the wrong namespace.
    #[error(transparent)]
    If(#[from] IfError),
}

/// What [`AfPacketPort::poll_link`] observed: the engine's [`PortEvent`](crate::engine::PortEvent)
/// (`Reopened`: the port opened a new socket and rings, so [`AfPacketPort::fd`]
/// changed; re-register it with epoll).
pub use crate::engine::PortEvent as LinkEvent;

/// Counters of a port. `drops` is indexed by [`PortDrop`] (names in
/// [`PortDrop::NAMES`]); every refused `tx_frame` is counted here once.
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
    /// `send` calls issued by `tx_flush`.
    pub tx_sends: u64,
    /// `send` calls that failed.
    pub tx_send_errors: u64,
    /// Frames the kernel handed back to the TX ring: a `send` refused with `ENOBUFS`
    /// because the device or its qdisc dropped the burst's first frame (a veth whose
    /// peer is down or whose peer's backlog is full), which `tpacket_snd` then resets
    /// to send-request, so the next send tries it again. Not a loss: the device's
    /// `tx_dropped` (or the qdisc's drops) counted an attempt, and the frame is still
    /// in the ring ([`AfPacketPort::tx_backlog`]) or went out later.
    pub tx_requeues: u64,
    /// Frames the kernel counted for this socket (`PACKET_STATISTICS` tp_packets).
    pub kernel_packets: u64,
    /// Frames the kernel dropped because the RX ring was full (`tp_drops`).
    pub kernel_drops: u64,
    /// Times the RX queue was frozen (`tp_freeze_q_cnt`).
    pub kernel_freeze_q: u64,
    /// Times the port went down.
    pub link_down_events: u64,
    /// Times the port reopened its socket after the interface was re-created.
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

/// What `open_socket` returns: rings and socket, and the interface as read then.
type Opened = link::Opened<Conn>;

/// The rings and the socket of one open. Field order: the mapping is unmapped before
/// the socket closes.
#[derive(Debug)]
pub(crate) struct Conn {
    rings: Rings,
    sock: Socket,
    /// The socket that transmits, when not `sock` (see `tx_socket`).
    tx_sock: Option<Socket>,
    /// The fanout group the socket joined.
    fanout_group: Option<u16>,
}

/// Ring walking state.
#[derive(Debug)]
struct Rings {
    /// The RX ring, and the TX ring behind it when both are on one socket.
    map: RingMap,
    /// The TX ring when it is on a socket of its own ([`Conn::tx_sock`]).
    tx_map: Option<RingMap>,
    /// Where the TX ring starts in its mapping.
    tx_base: usize,
    rx: RingGeometry,
    tx: RingGeometry,
    version: TpacketVersion,
    /// Header layout of TX frames (and of V2 RX frames).
    layout: FrameLayout,
    /// V2: next RX frame slot.
    rx_slot: u32,
    rx_slots: u32,
    /// V3: RX block we are in, packets left in it, offset of the next packet.
    rx_block: u32,
    rx_left: u32,
    rx_pos: u32,
    rx_in_block: bool,
    /// Next TX frame to fill.
    tx_head: u32,
    tx_frames: u32,
    /// Frames submitted since the last flush.
    tx_pending: u32,
    /// `PACKET_VNET_HDR` is on: each TX frame starts with a `virtio_net_hdr`
    /// ([`vnet_header`]).
    vnet: bool,
    /// Oldest TX frame submitted and not yet seen sent again (AVAILABLE), and how many
    /// are in flight from it: `tx_head = (tx_tail + tx_inflight) % tx_frames`.
    tx_tail: u32,
    tx_inflight: u32,
}

/// An AF_PACKET port on one interface.
#[derive(Debug)]
pub struct AfPacketPort {
    cfg: AfPacketConfig,
    // Field order: the mapping is unmapped before the socket closes.
    rings: Rings,
    sock: Socket,
    /// The socket that transmits, when not `sock` (see `tx_socket`).
    tx_sock: Option<Socket>,
    /// The fanout group the socket joined (the configured one until a reopen).
    fanout_group: Option<u16>,
    /// Interface, link state and a reopen running on a helper thread.
    link: Link<Result<Opened, AfPacketError>>,
    stats: PortStats,
}

impl AfPacketPort {
    /// Open a port on `ifname` in the calling thread's network namespace.
    pub fn open(ifname: &str, cfg: AfPacketConfig) -> Result<AfPacketPort, AfPacketError> {
        IfError::check_name(ifname)?;
        cfg.validate().map_err(|source| AfPacketError::Geometry {
            ifname: ifname.to_string(),
            source,
        })?;
        let o = Self::open_socket(ifname, &cfg, false)?;
        let link = Link::new(ifname, link::netns_id(), &o);
        let Conn {
            rings,
            sock,
            tx_sock,
            fanout_group,
        } = o.socket;
        Ok(AfPacketPort {
            cfg,
            rings,
            sock,
            tx_sock,
            fanout_group,
            link,
            stats: PortStats::default(),
        })
    }

    /// Open a socket and its rings on `ifname`; `reopen`: after the interface was
    /// re-created (see [`join_fanout`]).
    fn open_socket(
        ifname: &str,
        cfg: &AfPacketConfig,
        reopen: bool,
    ) -> Result<Opened, AfPacketError> {
        let err = |call| IfError::sys(ifname, call);
        let sock = Socket::new().map_err(err("socket(AF_PACKET)"))?;
        let ifindex = sock.ifindex(ifname).map_err(err("ioctl(SIOCGIFINDEX)"))?;
        let mtu = sock.mtu(ifname).map_err(err("ioctl(SIOCGIFMTU)"))?;
        let flags = sock.if_flags(ifname).map_err(err("ioctl(SIOCGIFFLAGS)"))?;
        // TX on a socket of its own when the RX socket cannot see the frames it sends
        // (see `tx_socket`)
        let split = cfg.qdisc_bypass || cfg.ignore_outgoing;
        let vnet = prepare(&sock, ifname, cfg, !split)?;
        let rx = TpacketReq3 {
            block_size: cfg.rx.block_size,
            block_nr: cfg.rx.block_count,
            frame_size: cfg.rx.frame_size,
            frame_nr: cfg.rx.frames_per_block() * cfg.rx.block_count,
            retire_blk_tov: if cfg.version == TpacketVersion::V3 {
                cfg.rx_retire_ms
            } else {
                0
            },
            sizeof_priv: 0,
            feature_req_word: 0,
        };
        sock.set_rx_ring(&rx)
            .map_err(err("setsockopt(PACKET_RX_RING)"))?;
        if !split {
            set_tx_ring(&sock, ifname, cfg)?;
        }
        if cfg.ignore_outgoing {
            sock.set_ignore_outgoing()
                .map_err(err("setsockopt(PACKET_IGNORE_OUTGOING)"))?;
        }
        let len = cfg.rx.bytes() as usize + if split { 0 } else { cfg.tx.bytes() as usize };
        let map = RingMap::map(&sock, len).map_err(err("mmap(rings)"))?;
        sock.bind(ifindex, cfg.receive).map_err(err("bind"))?;
        if cfg.promiscuous {
            sock.add_promisc(ifindex)
                .map_err(err("setsockopt(PACKET_ADD_MEMBERSHIP, PROMISC)"))?;
        }
        let fanout_group = join_fanout(&sock, ifname, cfg, ifindex, reopen)?;
        let (tx_sock, tx_map, vnet) = match split {
            true => {
                let (s, m, v) = tx_socket(ifname, cfg, ifindex)?;
                (Some(s), Some(m), v)
            }
            false => (None, None, vnet),
        };
        let rings = Rings {
            map,
            tx_map,
            tx_base: if split { 0 } else { cfg.rx.bytes() as usize },
            rx: cfg.rx,
            tx: cfg.tx,
            version: cfg.version,
            layout: cfg.version.layout(),
            rx_slot: 0,
            rx_slots: cfg.rx.frames_per_block() * cfg.rx.block_count,
            rx_block: 0,
            rx_left: 0,
            rx_pos: 0,
            rx_in_block: false,
            tx_head: 0,
            tx_frames: cfg.tx.frames_per_block() * cfg.tx.block_count,
            tx_pending: 0,
            vnet,
            tx_tail: 0,
            tx_inflight: 0,
        };
        Ok(Opened {
            socket: Conn {
                rings,
                sock,
                tx_sock,
                fanout_group,
            },
            ifindex,
            mtu,
            flags,
        })
    }

    /// Interface name.
    pub fn name(&self) -> &str {
        &self.link.name
    }
    /// Interface MTU (as of open or the last [`poll_link`](Self::poll_link)).
    pub fn mtu(&self) -> u32 {
        self.link.mtu
    }
    /// Interface index the socket is bound to.
    pub fn ifindex(&self) -> i32 {
        self.link.ifindex
    }
    /// The socket, for poll/epoll (readable = an RX block is ready; error = link event,
    /// call [`poll_link`](Self::poll_link)). Changes after [`LinkEvent::Reopened`].
    pub fn fd(&self) -> RawFd {
        self.sock.raw()
    }
    /// The socket that transmits: a socket of its own that receives nothing when the
    /// socket of [`fd`](Self::fd) cannot see the frames it sends (`qdisc_bypass` or
    /// `ignore_outgoing`, the defaults), else that socket (docs/afpacket.md).
    pub fn tx_fd(&self) -> RawFd {
        self.tx_sock.as_ref().unwrap_or(&self.sock).raw()
    }
    /// Link state as of open, the last [`poll_link`](Self::poll_link), or a failed send
    /// (no syscall).
    pub fn link_up(&self) -> bool {
        self.link.up
    }
    /// The `PACKET_FANOUT` group the socket is in: the configured one, or after a
    /// reopen one derived from it and the new ifindex (see `docs/afpacket.md`).
    pub fn fanout_group(&self) -> Option<u16> {
        self.fanout_group
    }
    /// The configuration.
    pub fn config(&self) -> &AfPacketConfig {
        &self.cfg
    }
    /// Largest frame `tx_frame` accepts now: the smaller of the TX ring frame (less the
    /// `virtio_net_hdr` in front of each frame when `PACKET_VNET_HDR` is on) and
    /// MTU + Ethernet header.
    pub fn max_frame(&self) -> usize {
        (self.cfg.tx_max_frame() - self.tx_header_len()).min(self.link.mtu as usize + ETH_HLEN)
    }

    /// Counters, after folding in the kernel's `PACKET_STATISTICS` (one getsockopt).
    pub fn stats(&mut self) -> PortStats {
        self.fold_kernel_stats();
        self.stats.link_down_events = self.link.link_down_events;
        self.stats.reopens = self.link.reopens;
        self.stats
    }

    fn fold_kernel_stats(&mut self) {
        if let Ok(k) = self.sock.take_stats() {
            self.stats.kernel_packets += k.packets as u64;
            self.stats.kernel_drops += k.drops as u64;
            self.stats.kernel_freeze_q += k.freeze_q as u64;
        }
    }

    fn count(&mut self, reason: PortDrop) {
        self.stats.drops[reason as usize] += 1;
    }

    /// Wait up to `timeout_ms` for an RX block (or a link event). Returns true when the
    /// socket is readable or has an error pending.
    pub fn wait_readable(&self, timeout_ms: i32) -> bool {
        matches!(self.sock.poll(timeout_ms), Ok(r) if r != 0)
    }

    /// Free TX-ring frames from the head on, counting at most `max` (no syscall). A
    /// frame the kernel refused (`TP_STATUS_WRONG_FORMAT`) counts as free:
    /// [`tx_frame`](Self::tx_frame) reclaims it. The frames not in flight (from the
    /// head up to the oldest in flight) are free without a look; only when they are
    /// fewer than `max` are the frames behind them read (one atomic load each).
    pub fn tx_free(&self, max: usize) -> usize {
        let idle = (self.rings.tx_frames - self.rings.tx_inflight) as usize;
        if idle >= max {
            return max;
        }
        let fsize = self.rings.tx.frame_size as usize;
        let base = self.rings.tx_base;
        let l = &self.rings.layout;
        let mut n = 0;
        let mut slot = self.rings.tx_head;
        while n < max && n < self.rings.tx_frames as usize {
            let st = self
                .rings
                .tx_ring()
                .tx_status(base + slot as usize * fsize, l);
            if st != sys::TP_STATUS_AVAILABLE && st != sys::TP_STATUS_WRONG_FORMAT {
                break;
            }
            n += 1;
            slot = (slot + 1) % self.rings.tx_frames;
        }
        n
    }

    /// Queue one frame in the TX ring (copied; sent by the next [`tx_flush`](Self::tx_flush)).
    /// `Ok(true)`: queued. `Ok(false)`: the TX ring is full (counted as `tx_ring_full`;
    /// flush and retry later, or drop). `Err(reason)`: refused and counted: `port_down`,
    /// `oversize` (larger than [`max_frame`](Self::max_frame)) or `runt` (< 14 bytes).
    pub fn tx_frame(&mut self, frame: &[u8]) -> Result<bool, PortDrop> {
        if !self.link.up {
            self.count(PortDrop::PortDown);
            return Err(PortDrop::PortDown);
        }
        if frame.len() > self.max_frame() {
            self.count(PortDrop::Oversize);
            return Err(PortDrop::Oversize);
        }
        if frame.len() < ETH_HLEN {
            self.count(PortDrop::Runt);
            return Err(PortDrop::Runt);
        }
        if self.rings.tx_inflight >= self.rings.tx_frames {
            // the head is the oldest frame in flight: see whether it (and more) went
            self.reap_tx();
        }
        let fsize = self.rings.tx.frame_size as usize;
        let off = self.rings.tx_base + self.rings.tx_head as usize * fsize;
        let l = self.rings.layout;
        let hdr = self.tx_header_len();
        let ring = self.rings.tx_ring_mut();
        if ring.tx_status(off, &l) == sys::TP_STATUS_WRONG_FORMAT {
            ring.tx_reclaim(off, &l);
            self.count(PortDrop::TxWrongFormat);
        }
        let Some(buf) = self.rings.tx_ring_mut().tx_data_mut(off, fsize, &l) else {
            self.count(PortDrop::TxRingFull);
            return Ok(false);
        };
        if hdr > 0 {
            buf[..hdr].copy_from_slice(&vnet_header(frame.len()));
        }
        buf[hdr..hdr + frame.len()].copy_from_slice(frame);
        self.rings
            .tx_ring_mut()
            .tx_submit(off, (hdr + frame.len()) as u32, &l);
        self.rings.tx_head = (self.rings.tx_head + 1) % self.rings.tx_frames;
        self.rings.tx_pending += 1;
        self.rings.tx_inflight += 1;
        self.stats.tx_frames += 1;
        self.stats.tx_bytes += frame.len() as u64;
        Ok(true)
    }

    /// Bytes in front of each frame in a TX slot: the `virtio_net_hdr` when
    /// `PACKET_VNET_HDR` is on, else none.
    fn tx_header_len(&self) -> usize {
        if self.rings.vnet {
            sys::VNET_HDR_LEN
        } else {
            0
        }
    }

    /// Frames queued since the last successful flush.
    pub fn tx_pending(&self) -> usize {
        self.rings.tx_pending as usize
    }

    /// TX backlog: frames queued in the TX ring that the kernel has not sent yet
    /// (not AVAILABLE again), whether flushed or not. Walks forward from the oldest
    /// frame in flight over those sent since the last call (one atomic load each, no
    /// syscall), so the cost is amortised over the frames sent.
    pub fn tx_backlog(&mut self) -> usize {
        self.reap_tx();
        self.rings.tx_inflight as usize
    }

    fn reap_tx(&mut self) {
        let fsize = self.rings.tx.frame_size as usize;
        let base = self.rings.tx_base;
        let l = self.rings.layout;
        while self.rings.tx_inflight > 0 {
            let st = self
                .rings
                .tx_ring()
                .tx_status(base + self.rings.tx_tail as usize * fsize, &l);
            // WRONG_FORMAT: the kernel is done with it too (refused; reclaimed later)
            if st != sys::TP_STATUS_AVAILABLE && st != sys::TP_STATUS_WRONG_FORMAT {
                break;
            }
            self.rings.tx_tail = (self.rings.tx_tail + 1) % self.rings.tx_frames;
            self.rings.tx_inflight -= 1;
        }
    }

    /// Hand every queued TX frame to the kernel with one `send(MSG_DONTWAIT)`. No-op when
    /// nothing is queued. A failure is counted (`tx_send_errors`); `ENETDOWN`, `ENXIO`
    /// or `ENODEV` also mark the port down; `ENOBUFS` is a frame the kernel put back
    /// in the ring after the device dropped it (`tx_requeues`). Frames stay queued on
    /// error and go out with the next successful flush.
    pub fn tx_flush(&mut self) -> Result<(), AfPacketError> {
        if self.rings.tx_pending == 0 {
            return Ok(());
        }
        self.stats.tx_sends += 1;
        match self.tx_sock.as_ref().unwrap_or(&self.sock).send_ring() {
            Ok(_) => {
                self.rings.tx_pending = 0;
                Ok(())
            }
            Err(e) => {
                self.stats.tx_send_errors += 1;
                if e.raw_os_error() == Some(libc::ENOBUFS) {
                    self.stats.tx_requeues += 1;
                }
                self.link.send_failed(&e);
                Err(IfError::sys(&self.link.name, "send(TX ring)")(e).into())
            }
        }
    }

    /// Re-read the interface state (a few ioctls; call it on a timer, e.g. every 100 ms,
    /// and when [`fd`](Self::fd) reports an error). The port is up when the interface
    /// it is bound to exists and has IFF_UP and IFF_RUNNING (carrier). When the
    /// interface was deleted, the port is down; when an interface of the same name
    /// appears again (a new ifindex), the port reopens: new socket, new rings, same
    /// configuration ([`LinkEvent::Reopened`]). Reopening creates the socket in the
    /// namespace the port was opened in: called from another, on a helper thread that
    /// enters it (`CAP_SYS_ADMIN`; [`IfError::WrongNamespace`] when the port holds no
    /// handle on its namespace). A failed
    /// reopen leaves the port down and is returned; the next call tries again.
    pub fn poll_link(&mut self) -> Result<LinkEvent, AfPacketError> {
        link::poll(self, false)
    }

    /// [`poll_link`](Self::poll_link) for a thread that must not block: a reopen (new
    /// socket and rings, which waits for RCU grace periods in the kernel, tens of ms on
    /// a loaded machine) runs on a helper thread spawned from the calling one (so in
    /// its network namespace), and a later call installs the result and returns
    /// [`LinkEvent::Reopened`]; meanwhile the port stays down and calls return
    /// `Unchanged`. The old socket is closed on a helper thread too. Falls back to the
    /// blocking reopen if no thread can be spawned.
    pub fn poll_link_background(&mut self) -> Result<LinkEvent, AfPacketError> {
        link::poll(self, true)
    }
}

impl Rings {
    /// The mapping that holds the TX ring.
    fn tx_ring(&self) -> &RingMap {
        self.tx_map.as_ref().unwrap_or(&self.map)
    }
    fn tx_ring_mut(&mut self) -> &mut RingMap {
        match &mut self.tx_map {
            Some(m) => m,
            None => &mut self.map,
        }
    }
}

/// What every socket of a port needs before its rings: the TPACKET version and
/// `PACKET_LOSS` (refused once a ring exists), and on a socket that transmits
/// (`tx`) `PACKET_VNET_HDR` (also before the rings; true when the kernel took it, see
/// [`vnet_header`]; a kernel without it sends TX frames as before).
fn prepare(
    sock: &Socket,
    ifname: &str,
    cfg: &AfPacketConfig,
    tx: bool,
) -> Result<bool, AfPacketError> {
    let err = |call| IfError::sys(ifname, call);
    match cfg.version {
        TpacketVersion::V3 => sock
            .set_version(sys::TPACKET_V3)
            .map_err(err("setsockopt(PACKET_VERSION, TPACKET_V3)"))?,
        TpacketVersion::V2 => sock
            .set_version(sys::TPACKET_V2)
            .map_err(err("setsockopt(PACKET_VERSION, TPACKET_V2)"))?,
    }
    sock.set_loss().map_err(err("setsockopt(PACKET_LOSS)"))?;
    Ok(tx && sock.set_vnet_hdr().is_ok())
}

/// The TX ring of `cfg` on `sock`, with `PACKET_QDISC_BYPASS` when configured.
fn set_tx_ring(sock: &Socket, ifname: &str, cfg: &AfPacketConfig) -> Result<(), AfPacketError> {
    let err = |call| IfError::sys(ifname, call);
    let tx = TpacketReq3 {
        block_size: cfg.tx.block_size,
        block_nr: cfg.tx.block_count,
        frame_size: cfg.tx.frame_size,
        frame_nr: cfg.tx.frames_per_block() * cfg.tx.block_count,
        ..TpacketReq3::default()
    };
    sock.set_tx_ring(&tx)
        .map_err(err("setsockopt(PACKET_TX_RING)"))?;
    if cfg.qdisc_bypass {
        sock.set_qdisc_bypass()
            .map_err(err("setsockopt(PACKET_QDISC_BYPASS)"))?;
    }
    Ok(())
}

/// A socket that only transmits on `ifindex`: the TX ring of `cfg`, bound with protocol
/// 0 (the kernel registers no receive hook: it receives nothing and never polls
/// readable). Returns it, its mapping and whether `PACKET_VNET_HDR` is on.
///
/// Why a second socket: every frame the kernel frees after sending it calls the
/// sending socket's write-space callback, which walks the socket's wait queue when
/// anything waits on it, and the RX socket always has a waiter, the adaptive thread's
/// epoll entry. On the RX socket that walk costs a lock and a callback per frame; on a
/// socket nobody polls it is one check. Used only when the RX socket cannot receive
/// what this one sends (`qdisc_bypass`: the kernel hands the frames to the driver
/// without the taps; or `ignore_outgoing` on the RX socket), since a socket skips only
/// its own frames among the outgoing ones it sees.
fn tx_socket(
    ifname: &str,
    cfg: &AfPacketConfig,
    ifindex: i32,
) -> Result<(Socket, RingMap, bool), AfPacketError> {
    let err = |call| IfError::sys(ifname, call);
    let sock = Socket::new().map_err(err("socket(AF_PACKET, TX)"))?;
    let vnet = prepare(&sock, ifname, cfg, true)?;
    set_tx_ring(&sock, ifname, cfg)?;
    let map = RingMap::map(&sock, cfg.tx.bytes() as usize).map_err(err("mmap(TX ring)"))?;
    sock.bind(ifindex, false).map_err(err("bind(TX)"))?;
    Ok((sock, map, vnet))
}

/// The `virtio_net_hdr` in front of a TX frame of `len` bytes: no offload (flags 0,
/// `VIRTIO_NET_HDR_GSO_NONE`), `hdr_len` = the whole frame (little-endian, as on x86 and
/// every little-endian host; the kernel reads it with `vio_le()`).
///
/// Why: without it the kernel copies only the Ethernet header of a TX-ring frame into the
/// socket buffer and points at the rest in the ring (a zero-copy fragment, released when
/// the frame is freed). A veth that hands the frame to another namespace must copy such
/// fragments out first (`skb_orphan_frags`: a page allocated, the bytes copied, the page
/// freed later), per frame, in the sender's `send`. With `hdr_len` = the frame, the
/// kernel copies the whole frame into the buffer's linear part at once, which for
/// switch-sized frames is cheaper than the page (docs/afpacket.md).
fn vnet_header(len: usize) -> [u8; sys::VNET_HDR_LEN] {
    let mut h = [0u8; sys::VNET_HDR_LEN];
    let hdr_len = u16::try_from(len).unwrap_or(u16::MAX);
    h[2..4].copy_from_slice(&hdr_len.to_le_bytes());
    h
}

/// Ids a reopen tries for its fanout group, in order.
const FANOUT_REOPEN_TRIES: u64 = 16;

/// Join the configured fanout group, if any (after bind), and return the id joined.
///
/// A reopen cannot join the configured id: the kernel ties a group to the interface
/// its first socket was bound to and refuses other interfaces with `EINVAL`, and the
/// group lives while any of its sockets is open. Every worker keeps its old socket
/// until its new one is open, so the workers would wait on each other for ever. A
/// reopen instead joins the first of a sequence of ids derived from the configured id
/// and the new ifindex that the kernel accepts (`EINVAL`: that id is held by a group on
/// another interface, or of another mode): every worker reopening on the same
/// interface walks the same sequence past the same held ids and meets in one group.
fn join_fanout(
    sock: &Socket,
    ifname: &str,
    cfg: &AfPacketConfig,
    ifindex: i32,
    reopen: bool,
) -> Result<Option<u16>, AfPacketError> {
    let Some(group) = cfg.fanout else {
        return Ok(None);
    };
    let (call, prog) = match cfg.fanout_mode {
        FanoutMode::Hash => ("setsockopt(PACKET_FANOUT, HASH)", false),
        FanoutMode::EthAddrs => ("setsockopt(PACKET_FANOUT, CBPF)", true),
    };
    let join = |id| match cfg.fanout_mode {
        FanoutMode::Hash => sock.join_fanout_hash(id),
        FanoutMode::EthAddrs => sock.join_fanout_cbpf(id),
    };
    let joined = if reopen {
        let mut tried = reopen_fanout_ids(group, ifindex);
        loop {
            let Some(id) = tried.next() else {
                let e = std::io::Error::from_raw_os_error(libc::EINVAL);
                return Err(IfError::sys(
                    ifname,
                    "setsockopt(PACKET_FANOUT) on reopen: every derived group id refused",
                )(e)
                .into());
            };
            match join(id) {
                Ok(()) => break id,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => continue,
                Err(e) => return Err(IfError::sys(ifname, call)(e).into()),
            }
        }
    } else {
        join(group).map_err(IfError::sys(ifname, call))?;
        group
    };
    if prog {
        sock.set_fanout_eth_prog()
            .map_err(IfError::sys(ifname, "setsockopt(PACKET_FANOUT_DATA)"))?;
    }
    Ok(Some(joined))
}

/// The fanout group ids a reopen on interface `ifindex` tries, for a port configured
/// with `group`: [`FANOUT_REOPEN_TRIES`] ids from a SplitMix64 sequence seeded with
/// both, never `group` itself (it may still be held by the old interface's group, which
/// closes while the workers reopen).
fn reopen_fanout_ids(group: u16, ifindex: i32) -> impl Iterator<Item = u16> {
    let seed = (u64::from(group) << 32) | u64::from(ifindex as u32);
    (1..=FANOUT_REOPEN_TRIES)
        .map(move |i| {
            let mut z = seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u16
        })
        .filter(move |&id| id != group)
}

impl link::Reopen for AfPacketPort {
    type Socket = Conn;
    type Error = AfPacketError;
    const THREAD: &'static str = "canopy-afp";

    fn link(&mut self) -> &mut Link<Result<Opened, AfPacketError>> {
        &mut self.link
    }
    fn data_fd(&self) -> RawFd {
        self.sock.raw()
    }
    fn ctl_fd(&self) -> RawFd {
        self.sock.raw()
    }
    fn opener(&self) -> impl FnOnce() -> Result<Opened, AfPacketError> + Send + 'static {
        let (name, cfg) = (self.link.name.clone(), self.cfg.clone());
        move || Self::open_socket(&name, &cfg, true)
    }
    fn install(&mut self, new: Conn, background: bool) {
        // the old socket's kernel counters since the last read go with it
        self.fold_kernel_stats();
        let old = Conn {
            rings: std::mem::replace(&mut self.rings, new.rings),
            sock: std::mem::replace(&mut self.sock, new.sock),
            tx_sock: std::mem::replace(&mut self.tx_sock, new.tx_sock),
            fanout_group: std::mem::replace(&mut self.fanout_group, new.fanout_group),
        };
        if background {
            link::close_on_helper(Self::THREAD, old);
        } else {
            drop(old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_reason_names_match_the_enum() {
        for (i, r) in [
            PortDrop::TxRingFull,
            PortDrop::Oversize,
            PortDrop::Runt,
            PortDrop::PortDown,
            PortDrop::RxTruncated,
            PortDrop::TxWrongFormat,
            PortDrop::RxBadBlock,
            PortDrop::RxNoBuffer,
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(r as usize, i);
            assert_eq!(PortDrop::NAMES[i], r.to_string());
        }
    }

    #[test]
    fn the_vnet_header_asks_for_the_whole_frame_and_no_offload() {
        assert_eq!(vnet_header(60), [0, 0, 60, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(vnet_header(1514), [0, 0, 0xea, 0x05, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn reopen_fanout_ids_depend_on_the_interface_and_skip_the_configured_group() {
        let a: Vec<u16> = reopen_fanout_ids(7, 10).collect();
        assert_eq!(
            a,
            reopen_fanout_ids(7, 10).collect::<Vec<_>>(),
            "deterministic"
        );
        assert!(!a.contains(&7));
        assert!(a.len() >= FANOUT_REOPEN_TRIES as usize - 1);
        assert_ne!(a, reopen_fanout_ids(7, 11).collect::<Vec<_>>());
        assert_ne!(a, reopen_fanout_ids(8, 10).collect::<Vec<_>>());
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert_eq!(distinct.len(), a.len(), "{a:?}");
    }

    #[test]
    fn open_refuses_bad_names_and_geometry_without_syscalls() {
        for name in ["", "0123456789abcdef", "a\0b"] {
            assert!(matches!(
                AfPacketPort::open(name, AfPacketConfig::default()),
                Err(AfPacketError::If(IfError::BadName { .. }))
            ));
        }
        let mut c = AfPacketConfig::default();
        c.tx.block_count = 0;
        let e = AfPacketPort::open("veth0", c).unwrap_err();
        assert!(e.to_string().starts_with("veth0: "), "{e}");
    }
}
