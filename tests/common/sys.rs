//! The raw syscalls of the shared test helpers: a plain AF_PACKET socket ([`Raw`]), thread
//! pinning, thread CPU time and the monotonic clock for the measurements.
#![allow(dead_code)] // each test binary uses a subset

use super::netns::is_test_frame;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Pin the calling thread to `cpu`.
pub fn pin_to_cpu(cpu: usize) {
    // SAFETY: a zeroed cpu_set_t with one bit set, for the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// CPU time (user + system) of the calling thread, in ns.
pub fn thread_cpu_ns() -> u64 {
    // SAFETY: a zeroed rusage filled by the kernel.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
}

/// CLOCK_MONOTONIC now, in ns.
pub fn mono_ns() -> u64 {
    // SAFETY: a valid timespec for the kernel to fill.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}

/// A plain AF_PACKET/SOCK_RAW socket (no rings): the independent sender/receiver.
pub struct Raw {
    /// The socket.
    pub fd: OwnedFd,
}

impl Raw {
    /// Must run inside the namespace of `ifname`.
    pub fn open(ifname: &str) -> Raw {
        let cname = std::ffi::CString::new(ifname).unwrap();
        // SAFETY: plain syscalls with valid arguments; the fd is owned by the OwnedFd.
        unsafe {
            let idx = libc::if_nametoindex(cname.as_ptr());
            assert!(idx > 0, "no interface {ifname}");
            let fd = libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                (libc::ETH_P_ALL as u16).to_be() as i32,
            );
            assert!(fd >= 0);
            let fd = OwnedFd::from_raw_fd(fd);
            let one: libc::c_int = 1;
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_PACKET,
                23, // PACKET_IGNORE_OUTGOING
                &one as *const _ as *const libc::c_void,
                4,
            );
            // A receive buffer for every frame of a test even when this thread is
            // starved by parallel tests (root: SO_RCVBUFFORCE).
            let rcvbuf: libc::c_int = 64 << 20;
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVBUFFORCE,
                &rcvbuf as *const _ as *const libc::c_void,
                4,
            );
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
            sll.sll_ifindex = idx as i32;
            let r = libc::bind(
                fd.as_raw_fd(),
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            );
            assert_eq!(r, 0, "bind raw: {}", std::io::Error::last_os_error());
            Raw { fd }
        }
    }
    /// Ask the kernel for a receive timestamp on every frame (`SO_TIMESTAMPNS`).
    pub fn timestamps(&self) {
        let one: libc::c_int = 1;
        // SAFETY: a valid int option for a socket we own.
        let r = unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                &one as *const _ as *const libc::c_void,
                4,
            )
        };
        assert_eq!(r, 0, "SO_TIMESTAMPNS: {}", std::io::Error::last_os_error());
    }
    /// Wait up to `timeout` for a frame `keep` accepts; with its kernel receive time
    /// (CLOCK_REALTIME ns) when [`Raw::timestamps`] was asked for.
    pub fn recv_stamped(
        &self,
        timeout: Duration,
        keep: impl Fn(&[u8]) -> bool,
    ) -> Option<(Vec<u8>, Option<u64>)> {
        let deadline = Instant::now() + timeout;
        let mut buf = vec![0u8; 65536];
        let mut ctl = [0u64; 16];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            let mut pfd = libc::pollfd {
                fd: self.fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut pfd, 1, left.as_millis().max(1) as i32) };
            let mut iov = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            };
            // SAFETY: msghdr is plain data; zeroed is valid, then filled below.
            let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = ctl.as_mut_ptr().cast();
            msg.msg_controllen = std::mem::size_of_val(&ctl) as _;
            // SAFETY: msg points to live buffers of the given sizes.
            let r = unsafe { libc::recvmsg(self.fd.as_raw_fd(), &mut msg, 0) };
            if r < 0 {
                continue;
            }
            let f = &buf[..r as usize];
            if !keep(f) {
                continue;
            }
            let mut ts = None;
            // SAFETY: walking the control messages the kernel wrote into `ctl`, with
            // the libc CMSG macros over the msghdr that describes it.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET
                        && (*c).cmsg_type == libc::SCM_TIMESTAMPNS
                    {
                        let t =
                            std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::timespec>());
                        ts = Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64);
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            return Some((f.to_vec(), ts));
        }
    }
    pub fn send(&self, frame: &[u8]) {
        loop {
            // SAFETY: frame is a valid buffer of its length.
            let r =
                unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
            if r == frame.len() as isize {
                return;
            }
            let e = std::io::Error::last_os_error();
            assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "raw send: {e}");
            std::thread::sleep(Duration::from_micros(50));
        }
    }
    /// One frame into `buf` if one is waiting (the socket does not block): its length.
    pub fn recv_once(&self, buf: &mut [u8]) -> Option<usize> {
        // SAFETY: buf is a valid writable buffer of its length.
        let r = unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        usize::try_from(r).ok()
    }
    /// Receive our test frames (ETHERTYPE) until `n` arrived or `timeout` passed.
    pub fn recv_n(&self, n: usize, timeout: Duration) -> Vec<Vec<u8>> {
        let deadline = Instant::now() + timeout;
        let mut got = vec![];
        let mut buf = vec![0u8; 65536];
        while got.len() < n && Instant::now() < deadline {
            // SAFETY: buf is a valid writable buffer of its length.
            let r =
                unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
            if r < 0 {
                std::thread::sleep(Duration::from_micros(100));
                continue;
            }
            let f = &buf[..r as usize];
            if is_test_frame(f) {
                got.push(f.to_vec());
            }
        }
        got
    }
}
