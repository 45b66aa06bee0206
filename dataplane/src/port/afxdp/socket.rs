//! Opening the AF_XDP socket of one queue: the interface, the shared XDP program, the
//! UMEM and the four rings (the fill ring filled), the bind, and the socket's entry in
//! the program's `XSKMAP`.

use super::attach::{attach_shared, umem_fix};
use super::sys::{self, CtlSocket, Umem, XskSocket};
use super::{AfXdpConfig, AfXdpError, AfXdpPort, BindMode, Opened, XdpMode, Xsk, BIND_BUSY_WAIT};
use crate::port::link::IfError;

/// The socket for the interface queries.
pub(super) fn ctl_socket(ifname: &str) -> Result<CtlSocket, AfXdpError> {
    Ok(CtlSocket::new().map_err(IfError::sys(ifname, "socket(AF_INET)"))?)
}

impl AfXdpPort {
    /// Open the socket of `cfg.queue` of `ifname` (interface queries through `ctl`, the
    /// program shared within namespace `netns`).
    pub(super) fn open_socket(
        ifname: &str,
        cfg: &AfXdpConfig,
        ctl: &CtlSocket,
        netns: Option<u64>,
    ) -> Result<Opened, AfXdpError> {
        let sys_err = |call| IfError::sys(ifname, call);
        let ifindex = match ctl.ifindex(ifname) {
            Ok(i) => i,
            Err(e) if e.raw_os_error() == Some(libc::ENODEV) => {
                return Err(AfXdpError::NoInterface {
                    ifname: ifname.into(),
                })
            }
            Err(e) => return Err(sys_err("ioctl(SIOCGIFINDEX)")(e).into()),
        };
        let mtu = ctl.mtu(ifname).map_err(sys_err("ioctl(SIOCGIFMTU)"))?;
        let flags = ctl
            .if_flags(ifname)
            .map_err(sys_err("ioctl(SIOCGIFFLAGS)"))?;
        let attached = attach_shared(ifname, netns, ifindex, cfg)?;

        let sock = XskSocket::new().map_err(sys_err("socket(AF_XDP)"))?;
        let umem = Umem::new(cfg.umem_bytes()).map_err(sys_err("mmap(UMEM)"))?;
        sock.register_umem(&umem, cfg.frame_size, 0)
            .map_err(|error| AfXdpError::Umem {
                ifname: ifname.into(),
                bytes: cfg.umem_bytes(),
                fix: umem_fix(error.raw_os_error()),
                error,
            })?;
        sock.set_rings(cfg.fill_ring, cfg.comp_ring, cfg.rx_ring, cfg.tx_ring)
            .map_err(|(call, e)| sys_err(call)(e))?;
        let (mut fill, comp, rx, tx) = sock
            .map_rings(cfg.fill_ring, cfg.comp_ring, cfg.rx_ring, cfg.tx_ring)
            .map_err(sys_err("mmap(XDP rings)"))?;
        // RX chunks 0..fill_ring, all on the fill ring from the start; TX chunks after.
        let frame = cfg.frame_size;
        for i in 0..cfg.fill_ring {
            fill.write_addr(i, u64::from(i) * u64::from(frame));
        }
        fill.set_producer(cfg.fill_ring);
        let tx_base = u64::from(cfg.fill_ring) * u64::from(frame);
        let mut tx_free = Vec::with_capacity(cfg.tx_ring as usize);
        // popped from the end: lowest address first
        tx_free.extend(
            (0..cfg.tx_ring)
                .rev()
                .map(|i| tx_base + u64::from(i) * u64::from(frame)),
        );

        // a switch port takes every frame, whatever its destination MAC
        let promisc = crate::port::afpacket::Promisc::hold(ifindex).map_err(sys_err(
            "setsockopt(PACKET_ADD_MEMBERSHIP, PACKET_MR_PROMISC)",
        ))?;
        bind_queue(&sock, ifname, ifindex, cfg, attached.native)?;
        let zc = sock
            .zero_copy()
            .map_err(sys_err("getsockopt(XDP_OPTIONS)"))?;
        let mode = match (zc, attached.native) {
            (true, _) => BindMode::ZeroCopy,
            (false, true) => BindMode::Copy,
            (false, false) => BindMode::Skb,
        };
        attached
            .prog
            .insert(cfg.queue, sock.raw())
            .map_err(sys_err("bpf(BPF_MAP_UPDATE_ELEM, XSKMAP)"))?;
        Ok(Opened {
            socket: Xsk {
                sock,
                fill,
                comp,
                rx,
                tx,
                umem,
                rx_cons: 0,
                fill_prod: cfg.fill_ring,
                tx_prod: 0,
                comp_cons: 0,
                tx_unpublished: 0,
                tx_kick_owed: false,
                tx_free,
                tx_base,
                tx_chunks: cfg.tx_ring,
                frame,
                mode,
                attached,
                _promisc: promisc,
            },
            ifindex,
            mtu,
            flags,
        })
    }
}

/// Bind `sock` to queue `cfg.queue` of interface `ifindex` in the mode asked for (the
/// program is attached natively when `native`). A refusal names the fix.
fn bind_queue(
    sock: &XskSocket,
    ifname: &str,
    ifindex: i32,
    cfg: &AfXdpConfig,
    native: bool,
) -> Result<(), AfXdpError> {
    let (bind_flags, mode_name) = match (cfg.mode, native) {
        (XdpMode::ZeroCopy, _) => (sys::XDP_ZEROCOPY, "zerocopy"),
        (XdpMode::Copy, _) => (sys::XDP_COPY, "copy"),
        (_, false) => (sys::XDP_COPY, "skb"),
        // native, auto: the kernel tries zero-copy and falls back to copy
        (_, true) => (0, "auto (native)"),
    };
    // A socket closed on this queue a moment ago (a port dropped and opened again,
    // a switch restarted) keeps the queue until the kernel's deferred release
    // (a workqueue item after an RCU grace period) has run: bind fails with EBUSY
    // meanwhile. Retry for up to BIND_BUSY_WAIT before reporting it.
    let start = std::time::Instant::now();
    let bound = loop {
        match sock.bind(ifindex, cfg.queue, bind_flags | sys::XDP_USE_NEED_WAKEUP) {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && start.elapsed() < BIND_BUSY_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            r => break r,
        }
    };
    bound.map_err(|e| {
            let fix = match e.raw_os_error() {
                Some(libc::EINVAL) => {
                    "the queue does not exist on the interface (see `ethtool -l IFACE`; queues count from 0)"
                }
                Some(libc::EOPNOTSUPP) if bind_flags == sys::XDP_ZEROCOPY => {
                    "the driver has no zero-copy AF_XDP: use mode = \"copy\" or \"auto\""
                }
                Some(libc::EBUSY) => {
                    "another AF_XDP socket is bound to this queue (one socket per queue; is another switch running on it?)"
                }
                Some(libc::ENETDOWN) => "the interface is down: `ip link set dev IFACE up`",
                _ => "check the interface's XDP support and the kernel log",
            };
            AfXdpError::Bind {
                ifname: ifname.into(),
                queue: cfg.queue,
                mode: mode_name,
                fix: fix.replace("IFACE", ifname),
                error: e,
            }
        })
}
