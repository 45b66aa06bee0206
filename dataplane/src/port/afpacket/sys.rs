//! The only place in the AF_PACKET port that talks to the kernel: the packet socket,
//! its options, the shared ring mapping, and the few syscalls of the port (`send`,
//! `poll`, interface ioctls, `PACKET_STATISTICS`).
//!
//! Everything here is `pub(super)`: the safe ring-walking logic in `mod.rs` uses these
//! wrappers and never sees a raw pointer. The ring accessors encode the TPACKET
//! ownership protocol (a block or frame is handed out as a slice only while the status
//! word says user space owns it, and it is handed back with a release store).
#![allow(unsafe_code)] // FFI and the shared mmap ring: unavoidable, confined to this module.

use std::ffi::c_void;
use std::io;
use std::mem::zeroed;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// `TPACKET3_HDRLEN` = aligned header + `sockaddr_ll`: the kernel's minimum frame size.
pub(super) const TPACKET3_HDRLEN: usize = 48 + 20;
/// `TPACKET2_HDRLEN`.
pub(super) const TPACKET2_HDRLEN: usize = 32 + 20;

/// Where the fields of a fixed-size frame header live (TX frames of both versions, RX
/// frames of V2). `data` is where a TX frame's bytes start: the kernel's default
/// `tp_hdrlen - sizeof(struct sockaddr_ll)` = `TPACKET_ALIGN(sizeof(header))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FrameLayout {
    pub status: usize,
    pub len: usize,
    pub snaplen: usize,
    pub mac: usize,
    pub data: usize,
    /// `tp_next_offset` (V3 only; must be 0 in TX frames).
    pub next: Option<usize>,
}
/// `struct tpacket3_hdr`.
pub(super) const V3_FRAME: FrameLayout = FrameLayout {
    status: 20,
    len: 16,
    snaplen: 12,
    mac: 24,
    data: 48,
    next: Some(0),
};
/// `struct tpacket2_hdr`.
pub(super) const V2_FRAME: FrameLayout = FrameLayout {
    status: 0,
    len: 4,
    snaplen: 8,
    mac: 12,
    data: 32,
    next: None,
};
/// `sizeof(struct virtio_net_hdr)`: what a socket with `PACKET_VNET_HDR` expects in
/// front of each TX frame.
pub(super) const VNET_HDR_LEN: usize = 10;
/// `TPACKET_ALIGNMENT`.
pub(super) const TPACKET_ALIGNMENT: usize = 16;

/// Block descriptor (`struct tpacket_block_desc`) field offsets.
pub(super) const BD_STATUS: usize = 8;
pub(super) const BD_NUM_PKTS: usize = 12;
pub(super) const BD_FIRST_PKT: usize = 16;
/// Packet header (`struct tpacket3_hdr`) field offsets.
pub(super) const H3_NEXT: usize = 0;
pub(super) const H3_SNAPLEN: usize = 12;
pub(super) const H3_LEN: usize = 16;
pub(super) const H3_MAC: usize = 24;
/// The kernel's receive time of a frame (`tp_sec`, `tp_nsec`): `tpacket3_hdr` (from the
/// packet's header) and `tpacket2_hdr`. Without `PACKET_TIMESTAMP` it is a software
/// stamp, `CLOCK_REALTIME`.
pub(super) const H3_TS: (usize, usize) = (4, 8);
pub(super) const V2_TS: (usize, usize) = (16, 20);
/// Where a received frame's status and VLAN fields are in its header.
#[derive(Debug, Clone, Copy)]
pub(super) struct VlanFields {
    pub status: usize,
    pub tci: usize,
    /// `tp_vlan_tci` is a `u32` in V3 (`hv1`) and a `u16` in V2.
    pub tci_u32: bool,
    pub tpid: usize,
}
/// `tpacket3_hdr.tp_status` and `hv1.tp_vlan_tci`/`tp_vlan_tpid`.
pub(super) const V3_VLAN: VlanFields = VlanFields {
    status: 20,
    tci: 32,
    tci_u32: true,
    tpid: 36,
};
/// `tpacket2_hdr.tp_status`, `tp_vlan_tci` and `tp_vlan_tpid`.
pub(super) const V2_VLAN: VlanFields = VlanFields {
    status: 0,
    tci: 24,
    tci_u32: false,
    tpid: 26,
};
/// RX packet status bits: the kernel took an outer VLAN tag out of the frame and put its
/// TCI (and, with the second bit, its TPID) into the header instead.
pub(super) const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
pub(super) const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;

const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
/// TX frame statuses.
pub(super) const TP_STATUS_AVAILABLE: u32 = 0;
const TP_STATUS_SEND_REQUEST: u32 = 1;
pub(super) const TP_STATUS_WRONG_FORMAT: u32 = 4;

const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VERSION: libc::c_int = 10;
const PACKET_TX_RING: libc::c_int = 13;
const PACKET_LOSS: libc::c_int = 14;
const PACKET_VNET_HDR: libc::c_int = 15;
const PACKET_FANOUT: libc::c_int = 18;
const PACKET_FANOUT_DATA: libc::c_int = 22;
const PACKET_FANOUT_CBPF: u32 = 6;
/// Classic-BPF offset base of the link-layer (MAC) header (`SKF_LL_OFF`).
const SKF_LL_OFF: u32 = (-0x20_0000i32) as u32;

const fn bpf(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

/// Fanout demux program: a hash of the Ethernet destination and source addresses
/// (their last four bytes each, xor-ed, times the 32-bit golden ratio, top half). The
/// kernel takes the result modulo the group size. Canopy frames are not IP, so the
/// kernel's own flow hash is the same for all of them; the MAC pair is the host pair.
const ETH_ADDR_HASH: [libc::sock_filter; 7] = [
    bpf(0x20, SKF_LL_OFF.wrapping_add(2)), // ld [ll + 2]: destination bytes 2..6
    bpf(0x07, 0),                          // tax
    bpf(0x20, SKF_LL_OFF.wrapping_add(8)), // ld [ll + 8]: source bytes 2..6
    bpf(0xac, 0),                          // xor x
    bpf(0x24, 0x9E37_79B1),                // mul #golden
    bpf(0x74, 16),                         // rsh #16
    bpf(0x16, 0),                          // ret a
];
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_MR_PROMISC: u16 = 1;
/// `TPACKET_V2`.
pub(super) const TPACKET_V2: libc::c_int = 1;
/// `TPACKET_V3`.
pub(super) const TPACKET_V3: libc::c_int = 2;
const PACKET_FANOUT_HASH: u32 = 0;
const ETH_P_ALL: u16 = 0x0003;

/// `struct tpacket_req3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TpacketReq3 {
    pub block_size: u32,
    pub block_nr: u32,
    pub frame_size: u32,
    pub frame_nr: u32,
    pub retire_blk_tov: u32,
    pub sizeof_priv: u32,
    pub feature_req_word: u32,
}

/// `struct packet_mreq`.
#[repr(C)]
struct PacketMreq {
    mr_ifindex: libc::c_int,
    mr_type: u16,
    mr_alen: u16,
    mr_address: [u8; 8],
}

/// `struct tpacket_stats_v3`.
#[repr(C)]
#[derive(Default)]
struct TpacketStatsV3 {
    tp_packets: u32,
    tp_drops: u32,
    tp_freeze_q_cnt: u32,
}

/// Kernel counters from `PACKET_STATISTICS` since the previous read (the read resets them).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct KernelStats {
    pub packets: u32,
    pub drops: u32,
    pub freeze_q: u32,
}

use crate::port::sys;
pub(super) use crate::port::sys::page_size;

/// An `AF_PACKET`/`SOCK_RAW` socket (close-on-exec, non-blocking).
#[derive(Debug)]
pub(super) struct Socket {
    fd: OwnedFd,
}

/// Interface `ifindex` held in promiscuous mode while this is open: an AF_PACKET socket
/// of protocol 0 (it receives nothing) with a `PACKET_MR_PROMISC` membership, which the
/// kernel counts per socket and drops when the socket closes, also when the process
/// dies. The AF_XDP backend holds one per socket: a switch port takes frames for any
/// MAC, and a NIC that filters by MAC (virtio-net, real NICs) drops the others before
/// XDP sees them.
#[derive(Debug)]
pub(crate) struct Promisc(#[allow(dead_code)] Socket);

impl Promisc {
    /// Hold `ifindex` promiscuous.
    pub(crate) fn hold(ifindex: i32) -> io::Result<Promisc> {
        let s = Socket::new()?;
        s.add_promisc(ifindex)?;
        Ok(Promisc(s))
    }
}

impl Socket {
    /// A packet socket with protocol 0: it receives nothing until [`Socket::bind`], so no
    /// frame of another interface can land in the ring before it is bound.
    pub fn new() -> io::Result<Socket> {
        let fd = sys::socket(
            libc::AF_PACKET,
            libc::SOCK_RAW | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )?;
        Ok(Socket { fd })
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn setsockopt<T>(&self, level: libc::c_int, opt: libc::c_int, val: &T) -> io::Result<()> {
        sys::setsockopt(self.raw(), level, opt, val)
    }

    pub fn set_version(&self, v: libc::c_int) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_VERSION, &v)
    }
    pub fn set_rx_ring(&self, req: &TpacketReq3) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_RX_RING, req)
    }
    pub fn set_tx_ring(&self, req: &TpacketReq3) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_TX_RING, req)
    }
    pub fn set_loss(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_LOSS, &1 as &libc::c_int)
    }
    /// `PACKET_VNET_HDR`: each TX frame starts with a `virtio_net_hdr`, whose `hdr_len`
    /// bytes the kernel copies into the socket buffer (see `tx_frame`).
    pub fn set_vnet_hdr(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_VNET_HDR, &1 as &libc::c_int)
    }
    pub fn set_qdisc_bypass(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, &1 as &libc::c_int)
    }
    pub fn set_ignore_outgoing(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, &1 as &libc::c_int)
    }
    pub fn add_promisc(&self, ifindex: i32) -> io::Result<()> {
        let mreq = PacketMreq {
            mr_ifindex: ifindex,
            mr_type: PACKET_MR_PROMISC,
            mr_alen: 0,
            mr_address: [0; 8],
        };
        self.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq)
    }
    /// Join fanout group `group` in hash mode (after bind).
    pub fn join_fanout_hash(&self, group: u16) -> io::Result<()> {
        let arg: libc::c_int = (group as u32 | (PACKET_FANOUT_HASH << 16)) as libc::c_int;
        self.setsockopt(SOL_PACKET, PACKET_FANOUT, &arg)
    }

    /// Join fanout group `group` in classic-BPF mode (after bind); then
    /// [`set_fanout_eth_prog`](Self::set_fanout_eth_prog).
    pub fn join_fanout_cbpf(&self, group: u16) -> io::Result<()> {
        let arg: libc::c_int = (group as u32 | (PACKET_FANOUT_CBPF << 16)) as libc::c_int;
        self.setsockopt(SOL_PACKET, PACKET_FANOUT, &arg)
    }

    /// Give the classic-BPF fanout group this socket joined the Ethernet-address hash
    /// program: frames of one (destination, source) MAC pair always reach the same
    /// socket of the group.
    pub fn set_fanout_eth_prog(&self) -> io::Result<()> {
        let prog = ETH_ADDR_HASH;
        let fprog = libc::sock_fprog {
            len: prog.len() as u16,
            // the kernel copies the program during the call and never writes it
            filter: prog.as_ptr().cast_mut(),
        };
        self.setsockopt(SOL_PACKET, PACKET_FANOUT_DATA, &fprog)
    }

    /// Bind to `ifindex`, receiving every protocol (`receive`) or none (protocol 0: the
    /// kernel registers no receive hook for the socket, which can still send).
    pub fn bind(&self, ifindex: i32, receive: bool) -> io::Result<()> {
        // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = if receive { ETH_P_ALL.to_be() } else { 0 };
        sll.sll_ifindex = ifindex;
        sys::bind(self.raw(), &sll)
    }

    /// `SIOCGIFINDEX` in this socket's network namespace.
    pub fn ifindex(&self, name: &str) -> io::Result<i32> {
        sys::ifindex(self.raw(), name)
    }
    /// `SIOCGIFFLAGS`.
    pub fn if_flags(&self, name: &str) -> io::Result<u32> {
        sys::if_flags(self.raw(), name)
    }
    /// `SIOCGIFMTU`.
    pub fn mtu(&self, name: &str) -> io::Result<u32> {
        sys::mtu(self.raw(), name)
    }

    /// Read (and so reset) the kernel's `PACKET_STATISTICS` for this socket.
    pub fn take_stats(&self) -> io::Result<KernelStats> {
        // SAFETY: `struct tpacket_stats_v3` is three unsigned ints: any bytes are valid.
        let st: TpacketStatsV3 =
            unsafe { sys::getsockopt(self.raw(), SOL_PACKET, PACKET_STATISTICS) }?;
        Ok(KernelStats {
            packets: st.tp_packets,
            drops: st.tp_drops,
            freeze_q: st.tp_freeze_q_cnt,
        })
    }

    /// Kick the TX ring: one `send(fd, NULL, 0, MSG_DONTWAIT)` hands every frame marked
    /// `TP_STATUS_SEND_REQUEST` to the kernel.
    pub fn send_ring(&self) -> io::Result<usize> {
        // SAFETY: a NULL buffer of length 0 is the documented way to flush a TX ring.
        let r = unsafe { libc::send(self.raw(), std::ptr::null(), 0, libc::MSG_DONTWAIT) };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(r as usize)
        }
    }

    /// `poll` this socket for readability for at most `timeout_ms` (-1 = forever).
    /// Returns the revents.
    pub fn poll(&self, timeout_ms: i32) -> io::Result<i16> {
        sys::poll(self.raw(), libc::POLLIN | libc::POLLERR, timeout_ms)
    }
}

/// The `mmap`ed RX + TX rings of one socket (RX first, then TX, as the kernel lays them).
#[derive(Debug)]
pub(super) struct RingMap {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is owned by this value (unmapped on drop) and all access goes
// through &self/&mut self methods; moving it to another thread is fine.
unsafe impl Send for RingMap {}

impl RingMap {
    /// Map `len` bytes of the socket's rings (both rings must be configured first).
    pub fn map(sock: &Socket, len: usize) -> io::Result<RingMap> {
        // SAFETY: a fresh shared mapping of the socket's rings; the kernel checks len
        // against the configured rings and fails otherwise.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_LOCKED | libc::MAP_POPULATE,
                sock.raw(),
                0,
            )
        };
        let p = if p == libc::MAP_FAILED {
            // MAP_LOCKED needs RLIMIT_MEMLOCK; retry without it.
            // SAFETY: as above.
            let p2 = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_POPULATE,
                    sock.raw(),
                    0,
                )
            };
            if p2 == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            p2
        } else {
            p
        };
        let ptr = NonNull::new(p.cast::<u8>()).ok_or_else(|| io::Error::other("mmap NULL"))?;
        Ok(RingMap { ptr, len })
    }

    fn in_bounds(&self, off: usize, len: usize) -> bool {
        off.checked_add(len).is_some_and(|end| end <= self.len)
    }

    fn status_word(&self, off: usize) -> Option<&AtomicU32> {
        if !self.in_bounds(off, 4) || !off.is_multiple_of(4) {
            return None;
        }
        // SAFETY: in bounds of the live mapping and 4-aligned (the mapping is
        // page-aligned); the kernel updates this word concurrently, so it is only ever
        // accessed atomically.
        Some(unsafe { AtomicU32::from_ptr(self.ptr.as_ptr().add(off).cast::<u32>()) })
    }

    /// The RX block (V3) or frame (V2) at `off` (`size` bytes), whose status word is at
    /// `off + status_at`, if user space owns it (`TP_STATUS_USER`); mutable, so frames
    /// can be rewritten in place. The acquire load orders the kernel's writes to the
    /// block before our accesses.
    pub fn rx_owned_mut(&mut self, off: usize, size: usize, status_at: usize) -> Option<&mut [u8]> {
        let st = self.status_word(off + status_at)?.load(Ordering::Acquire);
        if st & TP_STATUS_USER == 0 || !self.in_bounds(off, size) {
            return None;
        }
        // SAFETY: in bounds; while the status has TP_STATUS_USER the kernel neither reads
        // nor writes the block, and it only gets it back through rx_release(&mut self),
        // which cannot run while this exclusive borrow lives (nor can any other slice of
        // the mapping be handed out).
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(off), size) })
    }

    /// Whether user space owns the RX block or frame at `off` (status word at
    /// `off + status_at`), without borrowing it.
    pub fn rx_is_user(&self, off: usize, status_at: usize) -> bool {
        self.status_word(off + status_at)
            .is_some_and(|w| w.load(Ordering::Acquire) & TP_STATUS_USER != 0)
    }

    /// Hand the RX block or frame at `off` back to the kernel (release store of
    /// `TP_STATUS_KERNEL` into its status word at `off + status_at`).
    pub fn rx_release(&mut self, off: usize, status_at: usize) {
        if let Some(w) = self.status_word(off + status_at) {
            w.store(TP_STATUS_KERNEL, Ordering::Release);
        }
    }

    /// Status of the TX frame at `off`.
    pub fn tx_status(&self, off: usize, l: &FrameLayout) -> u32 {
        self.status_word(off + l.status)
            .map(|w| w.load(Ordering::Acquire))
            .unwrap_or(u32::MAX)
    }

    /// The data area of the TX frame at `off` (`frame_size` bytes in all) if it is
    /// `TP_STATUS_AVAILABLE`, i.e. owned by user space.
    pub fn tx_data_mut(
        &mut self,
        off: usize,
        frame_size: usize,
        l: &FrameLayout,
    ) -> Option<&mut [u8]> {
        if self.tx_status(off, l) != TP_STATUS_AVAILABLE
            || frame_size <= l.data
            || !self.in_bounds(off, frame_size)
        {
            return None;
        }
        // SAFETY: in bounds; an AVAILABLE frame is not touched by the kernel until we
        // set SEND_REQUEST in tx_submit(&mut self), which cannot run while this
        // exclusive borrow lives; the slice excludes the header with the status word.
        Some(unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(off + l.data), frame_size - l.data)
        })
    }

    /// Mark the TX frame at `off` (data already written) as `len` bytes to send.
    pub fn tx_submit(&mut self, off: usize, len: u32, l: &FrameLayout) {
        if !self.in_bounds(off, l.data) || self.tx_status(off, l) != TP_STATUS_AVAILABLE {
            return;
        }
        // SAFETY: in bounds, the frame is user-owned (AVAILABLE) so the kernel does not
        // read its header concurrently; the status word is written atomically after.
        unsafe {
            let base = self.ptr.as_ptr().add(off);
            if let Some(next) = l.next {
                base.add(next).cast::<u32>().write_volatile(0);
            }
            base.add(l.snaplen).cast::<u32>().write_volatile(len);
            base.add(l.len).cast::<u32>().write_volatile(len);
        }
        if let Some(w) = self.status_word(off + l.status) {
            w.store(TP_STATUS_SEND_REQUEST, Ordering::Release);
        }
    }

    /// Give a frame the kernel refused (`TP_STATUS_WRONG_FORMAT`) back to user space.
    pub fn tx_reclaim(&mut self, off: usize, l: &FrameLayout) {
        if let Some(w) = self.status_word(off + l.status) {
            let _ = w.compare_exchange(
                TP_STATUS_WRONG_FORMAT,
                TP_STATUS_AVAILABLE,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }
}

impl Drop for RingMap {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly the mapping created in map(); no borrow of it can
        // outlive self.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast::<c_void>(), self.len);
        }
    }
}
