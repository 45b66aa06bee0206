//! The only place in the AF_XDP port that talks to the kernel: the `AF_XDP` socket, its
//! UMEM and four mmap rings, the XDP program (five hand-assembled eBPF instructions) and
//! its `XSKMAP`, loaded and attached with the `bpf(2)` syscall, and the few syscalls of
//! the port (`sendto`/`recvfrom` wakeups, `poll`, interface ioctls, `XDP_STATISTICS`).
//!
//! Everything here is `pub(super)`: `mod.rs` walks the rings through the safe accessors
//! of [`Ring`] and [`Umem`] and never sees a raw pointer. The accessors encode the
//! AF_XDP ring protocol: a slot is read (consumer side) only below the producer index
//! loaded with acquire ordering, written (producer side) only below the consumer index
//! plus the ring size, and handed over with a release store of the index.
#![allow(unsafe_code)] // FFI, the bpf syscall and the shared mmap rings: confined here.

use std::ffi::c_void;
use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

const AF_XDP: libc::c_int = 44;
const SOL_XDP: libc::c_int = 283;
const XDP_MMAP_OFFSETS: libc::c_int = 1;
const XDP_RX_RING: libc::c_int = 2;
const XDP_TX_RING: libc::c_int = 3;
const XDP_UMEM_REG: libc::c_int = 4;
const XDP_UMEM_FILL_RING: libc::c_int = 5;
const XDP_UMEM_COMPLETION_RING: libc::c_int = 6;
const XDP_STATISTICS: libc::c_int = 7;
const XDP_OPTIONS: libc::c_int = 8;
const XDP_OPTIONS_ZEROCOPY: u32 = 1;

/// `sockaddr_xdp.sxdp_flags`.
pub(super) const XDP_COPY: u16 = 1 << 1;
pub(super) const XDP_ZEROCOPY: u16 = 1 << 2;
pub(super) const XDP_USE_NEED_WAKEUP: u16 = 1 << 3;
const XDP_RING_NEED_WAKEUP: u32 = 1;

const XDP_PGOFF_RX_RING: libc::off_t = 0;
const XDP_PGOFF_TX_RING: libc::off_t = 0x8000_0000;
const XDP_UMEM_PGOFF_FILL_RING: libc::off_t = 0x1_0000_0000;
const XDP_UMEM_PGOFF_COMPLETION_RING: libc::off_t = 0x1_8000_0000;

/// `XDP_FLAGS_SKB_MODE` / `XDP_FLAGS_DRV_MODE` (`linux/if_link.h`).
pub(super) const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
pub(super) const XDP_FLAGS_DRV_MODE: u32 = 1 << 2;

// bpf(2) commands, map and program types (`linux/bpf.h`, checked against this kernel's
// headers: BPF_LINK_CREATE 28, BPF_MAP_TYPE_XSKMAP 17, BPF_PROG_TYPE_XDP 6, BPF_XDP 37,
// BPF_FUNC_redirect_map 51, offsetof(struct xdp_md, rx_queue_index) 16).
const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_long = 2;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_LINK_CREATE: libc::c_long = 28;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
const BPF_XDP: u32 = 37;
const BPF_FUNC_REDIRECT_MAP: i32 = 51;
const BPF_PSEUDO_MAP_FD: u8 = 1;
const XDP_MD_RX_QUEUE_INDEX: i16 = 16;
const XDP_PASS: i32 = 2;

/// `struct xdp_desc` size (RX and TX rings); fill and completion rings hold a `u64`.
const XDP_DESC: usize = 16;

use super::XdpKernelStats;
use crate::port::sys;
pub(super) use crate::port::sys::page_size;

// ---------------------------------------------------------------------------------
// bpf(2): the XSKMAP, the redirect program, the XDP link.

/// `union bpf_attr` (144 bytes on this kernel; the kernel accepts a shorter attr and
/// requires the bytes it does not know to be zero, so 128 bytes of zeros plus the
/// fields each command uses is enough).
#[repr(C, align(8))]
struct BpfAttr([u8; 128]);

impl BpfAttr {
    fn new() -> BpfAttr {
        BpfAttr([0; 128])
    }
    fn u32(&mut self, off: usize, v: u32) -> &mut Self {
        self.0[off..off + 4].copy_from_slice(&v.to_ne_bytes());
        self
    }
    fn u64(&mut self, off: usize, v: u64) -> &mut Self {
        self.0[off..off + 8].copy_from_slice(&v.to_ne_bytes());
        self
    }
}

fn bpf(cmd: libc::c_long, attr: &mut BpfAttr) -> io::Result<libc::c_int> {
    // SAFETY: attr is a live, zero-padded bpf_attr of the size passed; the pointers
    // stored in it (instructions, license, log buffer, key, value) point to memory the
    // caller keeps alive across this call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            attr.0.as_mut_ptr().cast::<c_void>(),
            size_of::<BpfAttr>() as libc::c_uint,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as libc::c_int)
    }
}

fn owned(fd: libc::c_int) -> OwnedFd {
    // SAFETY: fd was just returned by a syscall that creates a new descriptor, and is
    // owned by nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

/// One eBPF instruction (`struct bpf_insn`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Insn {
    code: u8,
    regs: u8, // dst (low nibble), src (high nibble)
    off: i16,
    imm: i32,
}

const fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: (src << 4) | (dst & 0xf),
        off,
        imm,
    }
}

/// The redirect program:
/// ```text
/// r2 = *(u32 *)(r1 + 16)          ; ctx->rx_queue_index
/// r1 = map_fd ll                  ; the XSKMAP (two instructions)
/// r3 = XDP_PASS                   ; action when no socket is in the map at that index
/// call bpf_redirect_map
/// exit
/// ```
/// Frames of a queue with a socket go to it; frames of other queues go up the stack.
fn redirect_program(map_fd: RawFd) -> [Insn; 6] {
    [
        insn(0x61, 2, 1, XDP_MD_RX_QUEUE_INDEX, 0), // BPF_LDX | BPF_MEM | BPF_W
        insn(0x18, 1, BPF_PSEUDO_MAP_FD, 0, map_fd), // BPF_LD | BPF_IMM | BPF_DW
        insn(0, 0, 0, 0, 0),
        insn(0xb7, 3, 0, 0, XDP_PASS), // BPF_ALU64 | BPF_MOV | BPF_K
        insn(0x85, 0, 0, 0, BPF_FUNC_REDIRECT_MAP), // BPF_JMP | BPF_CALL
        insn(0x95, 0, 0, 0, 0),        // BPF_JMP | BPF_EXIT
    ]
}

/// An XSKMAP, the program redirecting to it, and the XDP link attaching the program to
/// one interface. Dropping it closes the link, which detaches the program: nothing is
/// left on the interface when the process exits, however it exits.
#[derive(Debug)]
pub(super) struct XdpProgram {
    map: OwnedFd,
    _prog: OwnedFd,
    _link: OwnedFd,
}

/// Which `bpf` step failed (for the error message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BpfStep {
    MapCreate,
    ProgLoad,
    LinkCreate,
}

impl XdpProgram {
    /// Create the map (`max_queues` entries), load the program and attach it to
    /// `ifindex` with `flags` (`XDP_FLAGS_SKB_MODE` or `XDP_FLAGS_DRV_MODE`).
    pub fn attach(
        ifindex: i32,
        flags: u32,
        max_queues: u32,
    ) -> Result<XdpProgram, (BpfStep, io::Error)> {
        let mut a = BpfAttr::new();
        a.u32(0, BPF_MAP_TYPE_XSKMAP)
            .u32(4, 4)
            .u32(8, 4)
            .u32(12, max_queues);
        let map = owned(bpf(BPF_MAP_CREATE, &mut a).map_err(|e| (BpfStep::MapCreate, e))?);
        let prog_insns = redirect_program(map.as_raw_fd());
        let license = b"GPL\0";
        let mut log = vec![0u8; 4096];
        let mut a = BpfAttr::new();
        a.u32(0, BPF_PROG_TYPE_XDP)
            .u32(4, prog_insns.len() as u32)
            .u64(8, prog_insns.as_ptr() as u64)
            .u64(16, license.as_ptr() as u64)
            .u32(24, 1)
            .u32(28, log.len() as u32)
            .u64(32, log.as_mut_ptr() as u64)
            .u32(68, BPF_XDP);
        a.0[48..48 + 11].copy_from_slice(b"canopy_xsk\0");
        let prog = match bpf(BPF_PROG_LOAD, &mut a) {
            Ok(fd) => owned(fd),
            Err(e) => {
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                let msg = String::from_utf8_lossy(&log[..end]).trim().to_string();
                let e = if msg.is_empty() {
                    e
                } else {
                    io::Error::new(e.kind(), format!("{e}; verifier: {msg}"))
                };
                return Err((BpfStep::ProgLoad, e));
            }
        };
        let mut a = BpfAttr::new();
        a.u32(0, prog.as_raw_fd() as u32)
            .u32(4, ifindex as u32)
            .u32(8, BPF_XDP)
            .u32(12, flags);
        let link = owned(bpf(BPF_LINK_CREATE, &mut a).map_err(|e| (BpfStep::LinkCreate, e))?);
        Ok(XdpProgram {
            map,
            _prog: prog,
            _link: link,
        })
    }

    /// Put socket `xsk` into the map at `queue`: that queue's frames go to it. The
    /// kernel takes the socket out of the map by itself when the socket closes.
    pub fn insert(&self, queue: u32, xsk: RawFd) -> io::Result<()> {
        let key = queue;
        let value = xsk as u32;
        let mut a = BpfAttr::new();
        a.u32(0, self.map.as_raw_fd() as u32)
            .u64(8, &key as *const u32 as u64)
            .u64(16, &value as *const u32 as u64)
            .u64(24, 0); // BPF_ANY
        bpf(BPF_MAP_UPDATE_ELEM, &mut a).map(|_| ())
    }
}

// ---------------------------------------------------------------------------------
// The socket.

/// `struct xdp_ring_offset`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct RingOffset {
    producer: u64,
    consumer: u64,
    desc: u64,
    flags: u64,
}

/// `struct xdp_mmap_offsets`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct MmapOffsets {
    rx: RingOffset,
    tx: RingOffset,
    fr: RingOffset,
    cr: RingOffset,
}

/// `struct xdp_umem_reg` (with `flags` and `tx_metadata_len`, both 0).
#[repr(C)]
#[derive(Debug, Default)]
struct UmemReg {
    addr: u64,
    len: u64,
    chunk_size: u32,
    headroom: u32,
    flags: u32,
    tx_metadata_len: u32,
}

/// `struct sockaddr_xdp`.
#[repr(C)]
#[derive(Debug, Default)]
struct SockaddrXdp {
    family: u16,
    flags: u16,
    ifindex: u32,
    queue_id: u32,
    shared_umem_fd: u32,
}

/// An `AF_XDP` socket (close-on-exec).
#[derive(Debug)]
pub(super) struct XskSocket {
    fd: OwnedFd,
}

impl XskSocket {
    pub fn new() -> io::Result<XskSocket> {
        let fd = sys::socket(AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0)?;
        Ok(XskSocket { fd })
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn setsockopt<T>(&self, opt: libc::c_int, val: &T) -> io::Result<()> {
        sys::setsockopt(self.raw(), SOL_XDP, opt, val)
    }

    /// `getsockopt(SOL_XDP, opt)`: only into this module's option structs, `u32` and
    /// [`XdpKernelStats`].
    fn getsockopt<T: Default>(&self, opt: libc::c_int) -> io::Result<T> {
        // SAFETY: every T read here is a plain repr(C) struct of integers (or an
        // integer), valid for any bytes the kernel writes.
        unsafe { sys::getsockopt(self.raw(), SOL_XDP, opt) }
    }

    /// Register `umem` (all of it, chunks of `chunk` bytes, `headroom` bytes reserved
    /// at the start of each).
    pub fn register_umem(&self, umem: &Umem, chunk: u32, headroom: u32) -> io::Result<()> {
        let reg = UmemReg {
            addr: umem.ptr.as_ptr() as u64,
            len: umem.len as u64,
            chunk_size: chunk,
            headroom,
            ..UmemReg::default()
        };
        self.setsockopt(XDP_UMEM_REG, &reg)
    }

    /// Set the sizes of the four rings (powers of two); a failure names the option.
    pub fn set_rings(
        &self,
        fill: u32,
        comp: u32,
        rx: u32,
        tx: u32,
    ) -> Result<(), (&'static str, io::Error)> {
        for (opt, name, n) in [
            (XDP_UMEM_FILL_RING, "setsockopt(XDP_UMEM_FILL_RING)", fill),
            (
                XDP_UMEM_COMPLETION_RING,
                "setsockopt(XDP_UMEM_COMPLETION_RING)",
                comp,
            ),
            (XDP_RX_RING, "setsockopt(XDP_RX_RING)", rx),
            (XDP_TX_RING, "setsockopt(XDP_TX_RING)", tx),
        ] {
            self.setsockopt(opt, &n).map_err(|e| (name, e))?;
        }
        Ok(())
    }

    /// Map the four rings: (fill, completion, rx, tx).
    pub fn map_rings(
        &self,
        fill: u32,
        comp: u32,
        rx: u32,
        tx: u32,
    ) -> io::Result<(Ring, Ring, Ring, Ring)> {
        let off: MmapOffsets = self.getsockopt(XDP_MMAP_OFFSETS)?;
        let fill = Ring::map(self, &off.fr, XDP_UMEM_PGOFF_FILL_RING, fill, 8)?;
        let comp = Ring::map(self, &off.cr, XDP_UMEM_PGOFF_COMPLETION_RING, comp, 8)?;
        let rx = Ring::map(self, &off.rx, XDP_PGOFF_RX_RING, rx, XDP_DESC)?;
        let tx = Ring::map(self, &off.tx, XDP_PGOFF_TX_RING, tx, XDP_DESC)?;
        Ok((fill, comp, rx, tx))
    }

    /// `bind` to (`ifindex`, `queue`) with `flags` (`XDP_COPY`, `XDP_ZEROCOPY`,
    /// `XDP_USE_NEED_WAKEUP`).
    pub fn bind(&self, ifindex: i32, queue: u32, flags: u16) -> io::Result<()> {
        let sa = SockaddrXdp {
            family: AF_XDP as u16,
            flags,
            ifindex: ifindex as u32,
            queue_id: queue,
            shared_umem_fd: 0,
        };
        sys::bind(self.raw(), &sa)
    }

    /// True when the bound socket runs in zero-copy mode (`XDP_OPTIONS`).
    pub fn zero_copy(&self) -> io::Result<bool> {
        let o: u32 = self.getsockopt(XDP_OPTIONS)?;
        Ok(o & XDP_OPTIONS_ZEROCOPY != 0)
    }

    /// The kernel's cumulative counters of this socket (`struct xdp_statistics`).
    pub fn statistics(&self) -> io::Result<XdpKernelStats> {
        self.getsockopt(XDP_STATISTICS)
    }

    /// Kick TX: `sendto(fd, NULL, 0, MSG_DONTWAIT)`. The kernel sends from the TX ring
    /// (in copy mode up to 32 frames per call, then `EAGAIN`).
    pub fn kick_tx(&self) -> io::Result<()> {
        // SAFETY: a NULL buffer of length 0 and no address: the documented TX wakeup.
        let r = unsafe {
            libc::sendto(
                self.raw(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// Wake the driver's RX (the fill ring asked for it): `recvfrom(fd, NULL, 0,
    /// MSG_DONTWAIT)`.
    pub fn kick_rx(&self) -> io::Result<()> {
        // SAFETY: a NULL buffer of length 0 and no address: the documented RX wakeup.
        let r = unsafe {
            libc::recvfrom(
                self.raw(),
                std::ptr::null_mut(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    /// `poll` this socket for readability for at most `timeout_ms`. Returns revents.
    pub fn poll(&self, timeout_ms: i32) -> io::Result<i16> {
        sys::poll(self.raw(), libc::POLLIN, timeout_ms)
    }
}

// ---------------------------------------------------------------------------------
// Interface queries (an AF_INET datagram socket: AF_XDP sockets take no ioctls).

/// A socket for `SIOCGIF*` ioctls in the caller's network namespace.
#[derive(Debug)]
pub(super) struct CtlSocket {
    fd: OwnedFd,
}

impl CtlSocket {
    pub fn new() -> io::Result<CtlSocket> {
        let fd = sys::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0)?;
        Ok(CtlSocket { fd })
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// `SIOCGIFINDEX`.
    pub fn ifindex(&self, name: &str) -> io::Result<i32> {
        sys::ifindex(self.fd.as_raw_fd(), name)
    }
    /// `SIOCGIFFLAGS`.
    pub fn if_flags(&self, name: &str) -> io::Result<u32> {
        sys::if_flags(self.fd.as_raw_fd(), name)
    }
    /// `SIOCGIFMTU`.
    pub fn mtu(&self, name: &str) -> io::Result<u32> {
        sys::mtu(self.fd.as_raw_fd(), name)
    }
}

// ---------------------------------------------------------------------------------
// UMEM and rings.

/// The UMEM: an anonymous, page-aligned mapping registered with the socket. The kernel
/// writes received frames into chunks user space put on the fill ring and reads frames
/// from chunks user space put on the TX ring; [`Umem::chunk`] hands out a chunk only to
/// code that owns it by that protocol (it came off the RX or completion ring, or was
/// never given to the kernel).
#[derive(Debug)]
pub(super) struct Umem {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is owned by this value (unmapped on drop) and all access goes
// through &self/&mut self methods.
unsafe impl Send for Umem {}

impl Umem {
    /// Map `len` bytes (a multiple of the page size), locked when `RLIMIT_MEMLOCK`
    /// allows (the kernel pins the pages at registration anyway).
    pub fn new(len: usize) -> io::Result<Umem> {
        let mut flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE;
        for attempt in 0..2 {
            let f = if attempt == 0 {
                flags | libc::MAP_LOCKED
            } else {
                flags
            };
            // SAFETY: a fresh anonymous mapping; no existing memory is touched.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    f,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                if let Some(ptr) = NonNull::new(p.cast::<u8>()) {
                    return Ok(Umem { ptr, len });
                }
            }
            flags = f & !libc::MAP_LOCKED;
        }
        Err(io::Error::last_os_error())
    }

    /// Bytes `addr..addr + len` of the UMEM, if inside it. The caller owns the chunk
    /// (see the type's documentation).
    pub fn chunk(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let start = usize::try_from(addr).ok()?;
        let end = start.checked_add(len)?;
        if end > self.len {
            return None;
        }
        // SAFETY: start..end lies inside the mapping (checked above); the chunk is
        // owned by user space per the ring protocol, so the kernel does not write it
        // while the slice lives, and &mut self keeps the slice unique on our side.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(start), len) })
    }
}

impl Drop for Umem {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly the mapping created in `new`; no slice into it
        // outlives self (they borrow self).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast::<c_void>(), self.len);
        }
    }
}

/// One mmap ring (fill, completion, RX or TX): producer and consumer indices, flags
/// word, and `size` descriptors of `desc_size` bytes (8 for fill/completion, 16 for
/// RX/TX). Indices are free-running `u32`s; slot = index & (size - 1).
#[derive(Debug)]
pub(super) struct Ring {
    map: NonNull<u8>,
    map_len: usize,
    producer: usize,
    consumer: usize,
    flags: usize,
    desc: usize,
    desc_size: usize,
    mask: u32,
}

// SAFETY: the mapping is owned by this value (unmapped on drop) and accessed only
// through &self/&mut self methods.
unsafe impl Send for Ring {}

impl Ring {
    fn map(
        sock: &XskSocket,
        off: &RingOffset,
        pgoff: libc::off_t,
        size: u32,
        desc_size: usize,
    ) -> io::Result<Ring> {
        let map_len = off.desc as usize + size as usize * desc_size;
        // SAFETY: a fresh shared mapping of one of the socket's rings (configured
        // before); the kernel checks the length against the ring and fails otherwise.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                sock.raw(),
                pgoff,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let map =
            NonNull::new(p.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned NULL"))?;
        let ok = |o: u64, n: usize| {
            (o as usize).checked_add(n).is_some_and(|e| e <= map_len) && o.is_multiple_of(4)
        };
        let r = Ring {
            map,
            map_len,
            producer: off.producer as usize,
            consumer: off.consumer as usize,
            flags: off.flags as usize,
            desc: off.desc as usize,
            desc_size,
            mask: size - 1,
        };
        if !(ok(off.producer, 4)
            && ok(off.consumer, 4)
            && ok(off.flags, 4)
            && off.desc.is_multiple_of(8))
        {
            return Err(io::Error::other("ring offsets outside the mapping"));
        }
        Ok(r)
    }

    fn word(&self, off: usize) -> &AtomicU32 {
        // SAFETY: off is one of the kernel-given offsets of a 4-byte aligned u32 index
        // or flags word inside the mapping (checked in `map`); the kernel accesses it
        // atomically too, and it lives as long as the mapping, i.e. &self.
        unsafe { &*self.map.as_ptr().add(off).cast::<AtomicU32>() }
    }

    /// The producer index (acquire: descriptors below it are visible).
    pub fn producer(&self) -> u32 {
        self.word(self.producer).load(Ordering::Acquire)
    }
    /// The consumer index (acquire: slots below it were read by the other side).
    pub fn consumer(&self) -> u32 {
        self.word(self.consumer).load(Ordering::Acquire)
    }
    /// Publish our producer index (release: the descriptors written are visible first).
    pub fn set_producer(&self, v: u32) {
        self.word(self.producer).store(v, Ordering::Release);
    }
    /// Publish our consumer index (release: we are done reading the slots below it).
    pub fn set_consumer(&self, v: u32) {
        self.word(self.consumer).store(v, Ordering::Release);
    }
    /// The kernel asks for a wakeup (`XDP_RING_NEED_WAKEUP`).
    pub fn needs_wakeup(&self) -> bool {
        self.word(self.flags).load(Ordering::Relaxed) & XDP_RING_NEED_WAKEUP != 0
    }

    fn slot(&self, idx: u32) -> *mut u8 {
        let i = (idx & self.mask) as usize;
        // SAFETY: i < size, and desc + size * desc_size == map_len, so the slot lies
        // inside the mapping.
        unsafe { self.map.as_ptr().add(self.desc + i * self.desc_size) }
    }

    /// Fill/completion slot `idx` (a UMEM address). The caller reads only slots the
    /// kernel produced (below [`Ring::producer`]).
    pub fn read_addr(&self, idx: u32) -> u64 {
        // SAFETY: an 8-byte aligned slot inside the mapping, owned by the consumer
        // (us) until we publish the consumer index past it.
        unsafe { self.slot(idx).cast::<u64>().read_volatile() }
    }
    /// Fill/completion slot `idx` := `addr`. The caller writes only slots the kernel
    /// consumed (below consumer + size), and publishes them with [`Ring::set_producer`].
    pub fn write_addr(&mut self, idx: u32, addr: u64) {
        // SAFETY: an 8-byte aligned slot inside the mapping, owned by the producer (us)
        // until the producer index is published past it.
        unsafe { self.slot(idx).cast::<u64>().write_volatile(addr) }
    }
    /// RX/TX descriptor `idx`: (addr, len).
    pub fn read_desc(&self, idx: u32) -> (u64, u32) {
        let p = self.slot(idx);
        // SAFETY: a 16-byte `struct xdp_desc` slot inside the mapping, owned by us as
        // consumer (see `read_addr`).
        unsafe {
            (
                p.cast::<u64>().read_volatile(),
                p.add(8).cast::<u32>().read_volatile(),
            )
        }
    }
    /// RX/TX descriptor `idx` := (addr, len, options 0).
    pub fn write_desc(&mut self, idx: u32, addr: u64, len: u32) {
        let p = self.slot(idx);
        // SAFETY: a 16-byte `struct xdp_desc` slot inside the mapping, owned by us as
        // producer (see `write_addr`).
        unsafe {
            p.cast::<u64>().write_volatile(addr);
            p.add(8).cast::<u32>().write_volatile(len);
            p.add(12).cast::<u32>().write_volatile(0);
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: map/map_len are exactly the mapping created in `map`; no reference
        // into it outlives self.
        unsafe {
            libc::munmap(self.map.as_ptr().cast::<c_void>(), self.map_len);
        }
    }
}
