//! AF_PACKET port: a `TPACKET_V3` mmap RX ring and a `TPACKET_V3` mmap TX ring on one
//! packet socket bound to one interface (see `docs/afpacket.md`).
//!
//! * RX: the kernel fills variable-length frames into blocks; [`AfPacketPort::rx_burst`]
//!   walks the blocks user space owns and hands each block back once consumed. A block
//!   becomes visible when it is full or when the retire timeout fires.
//! * TX: fixed-size frames; [`AfPacketPort::tx_frame`] copies a frame into the next free
//!   slot, [`AfPacketPort::tx_flush`] issues one `send(MSG_DONTWAIT)` for the whole burst.
//! * Link: [`AfPacketPort::poll_link`] re-reads the interface state, marks the port down
//!   when the interface is down or gone, and reopens the socket when an interface of the
//!   same name comes back with a new ifindex.
//!
//! * TX backlog: [`AfPacketPort::tx_backlog`] counts TX-ring frames not yet sent.
//! * Engine: `engine_port.rs` implements the engine's `Port` trait (link upkeep =
//!   `poll_link`, backend counters = [`AfPacketPort::stats`]).
//!
//! No allocation, locking or syscall per packet: the only syscalls are one `send` per
//! flushed burst, and whatever the caller does with [`AfPacketPort::fd`].

mod engine_port;
mod sys;

use super::link::{self, Link};
use std::io;
use std::os::fd::RawFd;
use sys::{FrameLayout, RingMap, Socket, TpacketReq3};

/// Ethernet header length: the smallest frame the kernel accepts for transmission.
pub const ETH_HLEN: usize = 14;

crate::reasons::drop_reasons! {
    /// Why the port refused or lost a frame. Engine-level reasons owned by this module
    /// (not part of the decision's `DropReason` list); labels in
    /// [`PORT_DROP_REASON_NAMES`].
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

/// Number of [`PortDrop`] reasons.
pub const PORT_DROP_REASONS: usize = PortDrop::COUNT;
/// Labels of [`PortDrop`] reasons, indexed by `reason as usize`.
pub const PORT_DROP_REASON_NAMES: [&str; PORT_DROP_REASONS] = PortDrop::NAMES;

/// Ring geometry rejected before any syscall.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// Block size must be a positive multiple of the page size.
    #[error("{ring} block size {block_size} is not a positive multiple of the page size {page}")]
    BlockNotPageMultiple {
        /// "rx" or "tx".
        ring: &'static str,
        /// The block size asked for.
        block_size: u32,
        /// The page size.
        page: usize,
    },
    /// Frame size must be a multiple of 16 and hold a header plus an Ethernet header.
    #[error("{ring} frame size {frame_size} must be a multiple of 16 in {min}..={max}")]
    BadFrameSize {
        /// "rx" or "tx".
        ring: &'static str,
        /// The frame size asked for.
        frame_size: u32,
        /// Smallest allowed.
        min: u32,
        /// Largest allowed (the block size).
        max: u32,
    },
    /// At least one block.
    #[error("{ring} block count must be at least 1")]
    NoBlocks {
        /// "rx" or "tx".
        ring: &'static str,
    },
    /// Both rings together must stay under [`MAX_RING_BYTES`].
    #[error("rings total {total} bytes, more than the limit {MAX_RING_BYTES}")]
    TooLarge {
        /// Bytes asked for.
        total: u64,
    },
}

/// Upper bound on the bytes of both rings of one port (1 GiB).
pub const MAX_RING_BYTES: u64 = 1 << 30;

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
    /// The interface name is empty, too long (max 15 bytes) or contains NUL.
    #[error("{ifname:?}: invalid interface name")]
    BadName {
        /// The name given.
        ifname: String,
    },
    /// A syscall failed.
    #[error("{ifname}: {call} failed: {source}")]
    Sys {
        /// Interface name.
        ifname: String,
        /// The call, e.g. `setsockopt(PACKET_RX_RING)`.
        call: &'static str,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// `reopen` was called from a thread in another network namespace than `open`.
    #[error("{ifname}: reopen from another network namespace than the one the port was opened in")]
    WrongNamespace {
        /// Interface name.
        ifname: String,
    },
}

/// Which TPACKET version the socket uses (both rings share it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TpacketVersion {
    /// V3: RX frames packed into blocks, a block handed over when full or when the retire
    /// timer fires. Fewest cache misses and wakeups under load, but at low rates a
    /// frame waits for the timer (a kernel jiffy at least: 4 ms at HZ=250).
    #[default]
    V3,
    /// V2: fixed RX frame slots, each visible as soon as the kernel wrote it. For
    /// latency-sensitive ports at low rates; frames larger than the RX frame size are
    /// truncated (counted as `rx_truncated`).
    V2,
}

impl TpacketVersion {
    fn layout(self) -> FrameLayout {
        match self {
            TpacketVersion::V3 => sys::V3_FRAME,
            TpacketVersion::V2 => sys::V2_FRAME,
        }
    }
    fn hdrlen(self) -> usize {
        match self {
            TpacketVersion::V3 => sys::TPACKET3_HDRLEN,
            TpacketVersion::V2 => sys::TPACKET2_HDRLEN,
        }
    }
}

/// One ring's geometry (`struct tpacket_req3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingGeometry {
    /// Bytes per block; a multiple of the page size.
    pub block_size: u32,
    /// Number of blocks.
    pub block_count: u32,
    /// Bytes per frame slot; a multiple of 16. For TX it bounds the largest frame
    /// (`frame_size - 48`); for RX (variable-length V3 frames) it only sets the
    /// nominal frame count the kernel checks.
    pub frame_size: u32,
}

impl RingGeometry {
    fn frames_per_block(&self) -> u32 {
        self.block_size / self.frame_size.max(1)
    }
    /// Bytes of the ring.
    pub fn bytes(&self) -> u64 {
        self.block_size as u64 * self.block_count as u64
    }
    fn validate(
        &self,
        ring: &'static str,
        page: usize,
        version: TpacketVersion,
    ) -> Result<(), GeometryError> {
        if self.block_size == 0 || !(self.block_size as usize).is_multiple_of(page) {
            return Err(GeometryError::BlockNotPageMultiple {
                ring,
                block_size: self.block_size,
                page,
            });
        }
        let min = (version.hdrlen() + ETH_HLEN).next_multiple_of(sys::TPACKET_ALIGNMENT) as u32;
        if self.frame_size < min
            || self.frame_size > self.block_size
            || !(self.frame_size as usize).is_multiple_of(sys::TPACKET_ALIGNMENT)
        {
            return Err(GeometryError::BadFrameSize {
                ring,
                frame_size: self.frame_size,
                min,
                max: self.block_size,
            });
        }
        if self.block_count == 0 {
            return Err(GeometryError::NoBlocks { ring });
        }
        Ok(())
    }
}

/// Configuration of an [`AfPacketPort`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfPacketConfig {
    /// TPACKET version of both rings (default V3; see [`TpacketVersion`]).
    pub version: TpacketVersion,
    /// RX ring (TPACKET_V3 blocks). Default 32 blocks of 128 KiB, frame size 2048.
    pub rx: RingGeometry,
    /// RX block retire timeout in ms (V3 only): a partly filled block is handed to user
    /// space after this long, rounded up to kernel jiffies. 0 lets the kernel choose
    /// (about 8 ms). Default 1 (the minimum).
    pub rx_retire_ms: u32,
    /// TX ring (fixed frames). Default 8 blocks of 64 KiB, frame size 2048 (256 frames,
    /// frames up to 2000 bytes).
    pub tx: RingGeometry,
    /// Promiscuous mode via `PACKET_ADD_MEMBERSHIP` (default true).
    pub promiscuous: bool,
    /// `PACKET_QDISC_BYPASS` (default true).
    pub qdisc_bypass: bool,
    /// `PACKET_IGNORE_OUTGOING`: do not see frames sent on this interface (default true).
    pub ignore_outgoing: bool,
    /// Join `PACKET_FANOUT` group with this id in hash mode, so several sockets (one per
    /// worker) share the interface's RX by flow hash. None = no fanout (default).
    pub fanout: Option<u16>,
    /// How a fanout group spreads frames (default [`FanoutMode::EthAddrs`]).
    pub fanout_mode: FanoutMode,
}

/// How the sockets of a `PACKET_FANOUT` group share an interface's frames. Both keep
/// a flow on one socket, so a flow is never reordered across workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FanoutMode {
    /// The kernel's flow hash (`PACKET_FANOUT_HASH`): addresses and ports of IP
    /// traffic. Every Canopy frame (not IP) gets the same hash, so this does not spread
    /// Canopy traffic.
    Hash,
    /// A classic-BPF program hashing the Ethernet destination and source addresses
    /// (`PACKET_FANOUT_CBPF`): spreads Canopy traffic by host pair.
    #[default]
    EthAddrs,
}

impl Default for AfPacketConfig {
    fn default() -> Self {
        AfPacketConfig {
            version: TpacketVersion::V3,
            rx: RingGeometry {
                block_size: 128 << 10,
                block_count: 32,
                frame_size: 2048,
            },
            rx_retire_ms: 1,
            tx: RingGeometry {
                block_size: 64 << 10,
                block_count: 8,
                frame_size: 2048,
            },
            promiscuous: true,
            qdisc_bypass: true,
            ignore_outgoing: true,
            fanout: None,
            fanout_mode: FanoutMode::default(),
        }
    }
}

impl AfPacketConfig {
    /// Check both rings against the system page size.
    pub fn validate(&self) -> Result<(), GeometryError> {
        self.validate_with_page(sys::page_size())
    }

    /// Check both rings against `page` (for tests of other page sizes).
    pub fn validate_with_page(&self, page: usize) -> Result<(), GeometryError> {
        self.rx.validate("rx", page, self.version)?;
        self.tx.validate("tx", page, self.version)?;
        let total = self.rx.bytes() + self.tx.bytes();
        if total > MAX_RING_BYTES {
            return Err(GeometryError::TooLarge { total });
        }
        Ok(())
    }

    /// Largest frame the TX ring can hold.
    pub fn tx_max_frame(&self) -> usize {
        self.tx.frame_size as usize - self.version.layout().data
    }
}

/// What [`AfPacketPort::poll_link`] observed: the engine's [`PortEvent`](crate::engine::PortEvent)
/// (`Reopened`: the port opened a new socket and rings, so [`AfPacketPort::fd`]
/// changed; re-register it with epoll).
pub use crate::engine::PortEvent as LinkEvent;

/// Counters of a port. `drops` is indexed by [`PortDrop`] (names in
/// [`PORT_DROP_REASON_NAMES`]); every refused `tx_frame` is counted here once.
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
    pub drops: [u64; PORT_DROP_REASONS],
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
}

/// Ring walking state.
#[derive(Debug)]
struct Rings {
    map: RingMap,
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
    /// Interface, link state and a reopen running on a helper thread.
    link: Link<Result<Opened, AfPacketError>>,
    stats: PortStats,
}

fn read_u32(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_ne_bytes([s[0], s[1], s[2], s[3]]))
}
fn read_u16(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_ne_bytes([s[0], s[1]]))
}

/// The 802.1Q TPID, assumed when the kernel says a tag was taken out but not which TPID.
const ETH_P_8021Q: u16 = 0x8100;

/// Where a received frame lies in its block or slot, after giving it back the outer VLAN
/// tag the kernel took out of it.
///
/// On receive the kernel always moves the outermost 802.1Q/802.1ad tag of a frame into
/// the packet's metadata (`skb_vlan_untag`, whatever the interface's offload settings),
/// and a packet socket sees the frame without it, the tag in `tp_vlan_tci`/`tp_vlan_tpid`
/// and `TP_STATUS_VLAN_VALID` in the status. A switch must forward the frame as it was
/// on the wire, so the tag goes back in place: the 12 address bytes move 4 bytes down
/// into the gap the kernel leaves between the header and the frame (at least 14 bytes,
/// and the `sockaddr_ll` in it is never read), and the tag is written behind them. No
/// copy of the payload.
///
/// `buf[start..start + snap]` is the frame as the kernel left it, `floor` the first byte
/// that may be overwritten (the end of the fixed frame header) and `hdr` that header.
/// Returns the frame's new `(start, len)`, or `None` when there is no room (a kernel
/// that laid the block out differently): the caller counts it as a bad block.
#[inline]
fn restore_vlan(
    buf: &mut [u8],
    hdr: usize,
    start: usize,
    snap: usize,
    floor: usize,
    at: sys::VlanFields,
) -> Option<(usize, usize)> {
    let status = read_u32(buf, hdr + at.status)?;
    if status & sys::TP_STATUS_VLAN_VALID == 0 {
        return Some((start, snap));
    }
    let tci = if at.tci_u32 {
        read_u32(buf, hdr + at.tci)? as u16
    } else {
        read_u16(buf, hdr + at.tci)?
    };
    let tpid = if status & sys::TP_STATUS_VLAN_TPID_VALID != 0 {
        read_u16(buf, hdr + at.tpid)?
    } else {
        ETH_P_8021Q
    };
    let new = start.checked_sub(4).filter(|&n| n >= floor && snap >= 12)?;
    let head = buf.get_mut(new..start + 12)?;
    head.copy_within(4..16, 0);
    head[12..14].copy_from_slice(&tpid.to_be_bytes());
    head[14..16].copy_from_slice(&tci.to_be_bytes());
    Some((new, snap + 4))
}

impl AfPacketPort {
    /// Open a port on `ifname` in the calling thread's network namespace.
    pub fn open(ifname: &str, cfg: AfPacketConfig) -> Result<AfPacketPort, AfPacketError> {
        if ifname.is_empty() || ifname.len() >= 16 || ifname.contains('\0') {
            return Err(AfPacketError::BadName {
                ifname: ifname.to_string(),
            });
        }
        cfg.validate().map_err(|source| AfPacketError::Geometry {
            ifname: ifname.to_string(),
            source,
        })?;
        let o = Self::open_socket(ifname, &cfg)?;
        let link = Link::new(ifname, link::netns_id(), &o);
        let Conn { rings, sock } = o.socket;
        Ok(AfPacketPort {
            cfg,
            rings,
            sock,
            link,
            stats: PortStats::default(),
        })
    }

    fn open_socket(ifname: &str, cfg: &AfPacketConfig) -> Result<Opened, AfPacketError> {
        let err = |call: &'static str| {
            move |source: io::Error| AfPacketError::Sys {
                ifname: ifname.to_string(),
                call,
                source,
            }
        };
        let sock = Socket::new().map_err(err("socket(AF_PACKET)"))?;
        let ifindex = sock.ifindex(ifname).map_err(err("ioctl(SIOCGIFINDEX)"))?;
        let mtu = sock.mtu(ifname).map_err(err("ioctl(SIOCGIFMTU)"))?;
        let flags = sock.if_flags(ifname).map_err(err("ioctl(SIOCGIFFLAGS)"))?;
        match cfg.version {
            TpacketVersion::V3 => sock
                .set_version(sys::TPACKET_V3)
                .map_err(err("setsockopt(PACKET_VERSION, TPACKET_V3)"))?,
            TpacketVersion::V2 => sock
                .set_version(sys::TPACKET_V2)
                .map_err(err("setsockopt(PACKET_VERSION, TPACKET_V2)"))?,
        }
        // Before the rings: the kernel refuses PACKET_LOSS once a ring exists.
        sock.set_loss().map_err(err("setsockopt(PACKET_LOSS)"))?;
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
        if cfg.ignore_outgoing {
            sock.set_ignore_outgoing()
                .map_err(err("setsockopt(PACKET_IGNORE_OUTGOING)"))?;
        }
        let len = (cfg.rx.bytes() + cfg.tx.bytes()) as usize;
        let map = RingMap::map(&sock, len).map_err(err("mmap(rings)"))?;
        sock.bind(ifindex).map_err(err("bind"))?;
        if cfg.promiscuous {
            sock.add_promisc(ifindex)
                .map_err(err("setsockopt(PACKET_ADD_MEMBERSHIP, PROMISC)"))?;
        }
        if let Some(group) = cfg.fanout {
            match cfg.fanout_mode {
                FanoutMode::Hash => sock
                    .join_fanout_hash(group)
                    .map_err(err("setsockopt(PACKET_FANOUT, HASH)"))?,
                FanoutMode::EthAddrs => sock
                    .join_fanout_eth(group)
                    .map_err(err("setsockopt(PACKET_FANOUT, CBPF + PACKET_FANOUT_DATA)"))?,
            }
        }
        let rings = Rings {
            map,
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
            tx_tail: 0,
            tx_inflight: 0,
        };
        Ok(Opened {
            socket: Conn { rings, sock },
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
    /// Link state as of open, the last [`poll_link`](Self::poll_link), or a failed send
    /// (no syscall).
    pub fn link_up(&self) -> bool {
        self.link.up
    }
    /// The configuration.
    pub fn config(&self) -> &AfPacketConfig {
        &self.cfg
    }
    /// Largest frame `tx_frame` accepts now: the smaller of the TX ring frame and
    /// MTU + Ethernet header.
    pub fn max_frame(&self) -> usize {
        self.cfg
            .tx_max_frame()
            .min(self.link.mtu as usize + ETH_HLEN)
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

    /// Receive up to `max` frames, calling `f` with each frame's bytes (from the MAC
    /// header on). Walks the RX blocks user space owns in ring order, returns each block
    /// to the kernel once all its frames are consumed (a partly consumed block is kept
    /// for the next call). Returns the number of frames passed to `f`. Truncated frames
    /// (larger than the block) are dropped and counted, not passed.
    pub fn rx_burst(&mut self, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        self.rx_burst_mut(max, |d| f(d))
    }

    /// [`rx_burst`](Self::rx_burst) with each frame mutable in place (the ring slot is
    /// owned by user space until it is handed back), e.g. to run a decision that
    /// rewrites the header before copying the frame into a TX ring.
    pub fn rx_burst_mut(&mut self, max: usize, f: impl FnMut(&mut [u8])) -> usize {
        match self.rings.version {
            TpacketVersion::V3 => self.rx_burst_v3(max, f),
            TpacketVersion::V2 => self.rx_burst_v2(max, f),
        }
    }

    fn rx_burst_v2(&mut self, max: usize, mut f: impl FnMut(&mut [u8])) -> usize {
        let fsize = self.rings.rx.frame_size as usize;
        let bsize = self.rings.rx.block_size as usize;
        let fpb = self.rings.rx.frames_per_block().max(1) as usize;
        let l = self.rings.layout;
        let mut delivered = 0;
        for _ in 0..max {
            let slot = self.rings.rx_slot as usize;
            let off = (slot / fpb) * bsize + (slot % fpb) * fsize;
            let Some(fr) = self.rings.map.rx_owned_mut(off, fsize, l.status) else {
                break;
            };
            match (
                read_u32(fr, l.len),
                read_u32(fr, l.snaplen),
                read_u16(fr, l.mac),
            ) {
                (Some(len), Some(snap), Some(mac)) if snap == len => {
                    let at = sys::V2_VLAN;
                    let span = restore_vlan(fr, 0, mac as usize, snap as usize, l.data, at);
                    match span.and_then(|(s, n)| fr.get_mut(s..s.checked_add(n)?)) {
                        Some(data) => {
                            self.stats.rx_frames += 1;
                            self.stats.rx_bytes += data.len() as u64;
                            f(data);
                            delivered += 1;
                        }
                        None => self.stats.drops[PortDrop::RxBadBlock as usize] += 1,
                    }
                }
                (Some(_), Some(_), Some(_)) => {
                    self.stats.drops[PortDrop::RxTruncated as usize] += 1
                }
                _ => self.stats.drops[PortDrop::RxBadBlock as usize] += 1,
            }
            self.rings.map.rx_release(off, l.status);
            self.rings.rx_slot = (self.rings.rx_slot + 1) % self.rings.rx_slots;
        }
        delivered
    }

    fn rx_burst_v3(&mut self, max: usize, mut f: impl FnMut(&mut [u8])) -> usize {
        let mut seen = 0usize;
        let mut delivered = 0usize;
        let bsize = self.rings.rx.block_size as usize;
        while seen < max {
            let off = self.rings.rx_block as usize * bsize;
            let Some(block) = self.rings.map.rx_owned_mut(off, bsize, sys::BD_STATUS) else {
                break;
            };
            let mut bad = false;
            if !self.rings.rx_in_block {
                match (
                    read_u32(block, sys::BD_NUM_PKTS),
                    read_u32(block, sys::BD_FIRST_PKT),
                ) {
                    (Some(n), Some(first)) => {
                        self.rings.rx_left = n;
                        self.rings.rx_pos = first;
                        self.rings.rx_in_block = true;
                    }
                    _ => bad = true,
                }
            }
            while !bad && self.rings.rx_left > 0 && seen < max {
                let pos = self.rings.rx_pos as usize;
                let hdr = (
                    read_u32(block, pos + sys::H3_NEXT),
                    read_u32(block, pos + sys::H3_SNAPLEN),
                    read_u32(block, pos + sys::H3_LEN),
                    read_u16(block, pos + sys::H3_MAC),
                );
                let (Some(next), Some(snap), Some(len), Some(mac)) = hdr else {
                    bad = true;
                    break;
                };
                let start = pos + mac as usize;
                if block.get(start..start + snap as usize).is_none() {
                    bad = true;
                    break;
                }
                seen += 1;
                self.rings.rx_left -= 1;
                if snap == len {
                    let floor = pos + sys::V3_FRAME.data;
                    let span = restore_vlan(block, pos, start, snap as usize, floor, sys::V3_VLAN);
                    if let Some(data) = span.and_then(|(s, n)| block.get_mut(s..s + n)) {
                        self.stats.rx_frames += 1;
                        self.stats.rx_bytes += data.len() as u64;
                        f(data);
                        delivered += 1;
                    } else {
                        self.stats.drops[PortDrop::RxBadBlock as usize] += 1;
                    }
                } else {
                    self.stats.drops[PortDrop::RxTruncated as usize] += 1;
                }
                if self.rings.rx_left > 0 {
                    if next == 0 {
                        bad = true;
                        break;
                    }
                    self.rings.rx_pos = self.rings.rx_pos.wrapping_add(next);
                }
            }
            if bad {
                self.count(PortDrop::RxBadBlock);
                self.rings.rx_left = 0;
            }
            if self.rings.rx_left == 0 {
                self.rings.map.rx_release(off, sys::BD_STATUS);
                self.rings.rx_in_block = false;
                self.rings.rx_block = (self.rings.rx_block + 1) % self.rings.rx.block_count;
            }
        }
        delivered
    }

    /// True when the next RX block (V3) or frame (V2) is owned by user space: a frame
    /// is waiting. One atomic load, no syscall.
    pub fn rx_ready(&self) -> bool {
        match self.rings.version {
            TpacketVersion::V3 => {
                self.rings.rx_in_block
                    || self.rings.map.rx_is_user(
                        self.rings.rx_block as usize * self.rings.rx.block_size as usize,
                        sys::BD_STATUS,
                    )
            }
            TpacketVersion::V2 => {
                let slot = self.rings.rx_slot as usize;
                let fpb = self.rings.rx.frames_per_block().max(1) as usize;
                let off = (slot / fpb) * self.rings.rx.block_size as usize
                    + (slot % fpb) * self.rings.rx.frame_size as usize;
                self.rings.map.rx_is_user(off, self.rings.layout.status)
            }
        }
    }

    /// Free TX-ring frames from the head on, counting at most `max` (one atomic load
    /// per frame counted, no syscall). A frame the kernel refused
    /// (`TP_STATUS_WRONG_FORMAT`) counts as free: [`tx_frame`](Self::tx_frame)
    /// reclaims it.
    pub fn tx_free(&self, max: usize) -> usize {
        let fsize = self.rings.tx.frame_size as usize;
        let base = self.rings.rx.bytes() as usize;
        let l = &self.rings.layout;
        let mut n = 0;
        let mut slot = self.rings.tx_head;
        while n < max && n < self.rings.tx_frames as usize {
            let st = self.rings.map.tx_status(base + slot as usize * fsize, l);
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
        let off = self.rings.rx.bytes() as usize + self.rings.tx_head as usize * fsize;
        let l = self.rings.layout;
        if self.rings.map.tx_status(off, &l) == sys::TP_STATUS_WRONG_FORMAT {
            self.rings.map.tx_reclaim(off, &l);
            self.count(PortDrop::TxWrongFormat);
        }
        let Some(buf) = self.rings.map.tx_data_mut(off, fsize, &l) else {
            self.count(PortDrop::TxRingFull);
            return Ok(false);
        };
        buf[..frame.len()].copy_from_slice(frame);
        self.rings.map.tx_submit(off, frame.len() as u32, &l);
        self.rings.tx_head = (self.rings.tx_head + 1) % self.rings.tx_frames;
        self.rings.tx_pending += 1;
        self.rings.tx_inflight += 1;
        self.stats.tx_frames += 1;
        self.stats.tx_bytes += frame.len() as u64;
        Ok(true)
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
        let base = self.rings.rx.bytes() as usize;
        let l = self.rings.layout;
        while self.rings.tx_inflight > 0 {
            let st = self
                .rings
                .map
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
    /// or `ENODEV` also mark the port down. Frames stay queued on error and go out with
    /// the next successful flush.
    pub fn tx_flush(&mut self) -> Result<(), AfPacketError> {
        if self.rings.tx_pending == 0 {
            return Ok(());
        }
        self.stats.tx_sends += 1;
        match self.sock.send_ring() {
            Ok(_) => {
                self.rings.tx_pending = 0;
                Ok(())
            }
            Err(e) => {
                self.stats.tx_send_errors += 1;
                self.link.send_failed(&e);
                Err(AfPacketError::Sys {
                    ifname: self.link.name.clone(),
                    call: "send(TX ring)",
                    source: e,
                })
            }
        }
    }

    /// Re-read the interface state (a few ioctls; call it on a timer, e.g. every 100 ms,
    /// and when [`fd`](Self::fd) reports an error). The port is up when the interface
    /// it is bound to exists and has IFF_UP and IFF_RUNNING (carrier). When the
    /// interface was deleted, the port is down; when an interface of the same name
    /// appears again (a new ifindex), the port reopens: new socket, new rings, same
    /// configuration ([`LinkEvent::Reopened`]). Reopening creates the socket in the
    /// calling thread's network namespace, so it must be called from the namespace the
    /// port was opened in ([`AfPacketError::WrongNamespace`] otherwise). A failed
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
        move || Self::open_socket(&name, &cfg)
    }
    fn install(&mut self, new: Conn, background: bool) {
        // the old socket's kernel counters since the last read go with it
        self.fold_kernel_stats();
        let old = Conn {
            rings: std::mem::replace(&mut self.rings, new.rings),
            sock: std::mem::replace(&mut self.sock, new.sock),
        };
        if background {
            link::close_on_helper(Self::THREAD, old);
        } else {
            drop(old);
        }
    }
    fn wrong_namespace(&self) -> AfPacketError {
        AfPacketError::WrongNamespace {
            ifname: self.link.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_geometry_is_valid_for_4k_and_64k_pages() {
        let c = AfPacketConfig::default();
        assert_eq!(c.validate_with_page(4096), Ok(()));
        assert_eq!(c.validate_with_page(65536), Ok(()));
        assert_eq!(c.tx_max_frame(), 2000);
        assert_eq!(c.rx.frames_per_block(), 64);
    }

    #[test]
    fn block_size_must_be_a_page_multiple() {
        let mut c = AfPacketConfig::default();
        c.rx.block_size = 4096 + 2048;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::BlockNotPageMultiple { ring: "rx", .. })
        ));
        c.rx.block_size = 0;
        assert!(c.validate_with_page(4096).is_err());
        let mut c = AfPacketConfig::default();
        c.tx.block_size = 8192;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        assert!(matches!(
            c.validate_with_page(65536),
            Err(GeometryError::BlockNotPageMultiple { ring: "tx", .. })
        ));
    }

    #[test]
    fn frame_size_bounds_and_alignment() {
        let mut c = AfPacketConfig::default();
        for bad in [0u32, 16, 80, 2050, (128 << 10) + 16] {
            c.rx.frame_size = bad;
            assert!(
                matches!(
                    c.validate_with_page(4096),
                    Err(GeometryError::BadFrameSize { ring: "rx", .. })
                ),
                "{bad}"
            );
        }
        // Smallest: 68-byte header + 14-byte Ethernet header, rounded up to 16.
        c.rx.frame_size = 96;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        c.rx.frame_size = 128 << 10;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        let mut c = AfPacketConfig::default();
        c.tx.frame_size = 1 << 20;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::BadFrameSize { ring: "tx", max, .. }) if max == 64 << 10
        ));
    }

    #[test]
    fn v2_has_a_smaller_header() {
        let mut c = AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        };
        assert_eq!(c.tx_max_frame(), 2016);
        // 52-byte header + 14 rounds up to 80, which V3 refuses.
        c.rx.frame_size = 80;
        assert_eq!(c.validate_with_page(4096), Ok(()));
        c.version = TpacketVersion::V3;
        assert!(c.validate_with_page(4096).is_err());
    }

    #[test]
    fn block_count_and_total_size() {
        let mut c = AfPacketConfig::default();
        c.tx.block_count = 0;
        assert_eq!(
            c.validate_with_page(4096),
            Err(GeometryError::NoBlocks { ring: "tx" })
        );
        let mut c = AfPacketConfig::default();
        c.rx.block_size = 1 << 20;
        c.rx.block_count = 1024;
        assert!(matches!(
            c.validate_with_page(4096),
            Err(GeometryError::TooLarge { .. })
        ));
        c.rx.block_count = 1023;
        assert_eq!(c.validate_with_page(4096), Ok(()));
    }

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
            assert_eq!(PORT_DROP_REASON_NAMES[i], r.to_string());
        }
    }

    #[test]
    fn open_refuses_bad_names_and_geometry_without_syscalls() {
        for name in ["", "0123456789abcdef", "a\0b"] {
            assert!(matches!(
                AfPacketPort::open(name, AfPacketConfig::default()),
                Err(AfPacketError::BadName { .. })
            ));
        }
        let mut c = AfPacketConfig::default();
        c.tx.block_count = 0;
        let e = AfPacketPort::open("veth0", c).unwrap_err();
        assert!(e.to_string().starts_with("veth0: "), "{e}");
    }
}
