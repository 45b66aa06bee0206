//! The XDP program of an interface, attached once per interface and namespace in this
//! process and shared by its ports (one queue each), and the fixes named when attaching
//! or registering the UMEM fails.

use super::sys::{self, BpfStep, XdpProgram};
use super::{AfXdpConfig, AfXdpError, XdpMode, BIND_BUSY_WAIT, MAX_QUEUES};
use std::io;
use std::sync::{Arc, Mutex, Weak};

/// The interface's XDP program, shared by the ports of one interface (one per queue)
/// in this process.
#[derive(Debug)]
pub(super) struct Attached {
    pub(super) prog: XdpProgram,
    pub(super) native: bool,
    /// Mode `auto` that got generic XDP: why native XDP was refused.
    pub(super) fallback: Option<String>,
}

/// Programs attached by this process: (namespace, ifindex) → program. Locked at open
/// only.
#[allow(clippy::type_complexity)]
static ATTACHED: Mutex<Vec<(Option<u64>, i32, Weak<Attached>)>> = Mutex::new(Vec::new());

pub(super) fn attach_shared(
    ifname: &str,
    netns: Option<u64>,
    ifindex: i32,
    cfg: &AfXdpConfig,
) -> Result<Arc<Attached>, AfXdpError> {
    let mut reg = ATTACHED.lock().unwrap_or_else(|e| e.into_inner());
    // A program this process attached to the interface and has since dropped: the kernel
    // releases its bpf_link from a workqueue, so for a moment the interface still looks
    // taken (EBUSY) to a new attach.
    let ours_released = reg
        .iter()
        .any(|(n, i, w)| *n == netns && *i == ifindex && w.strong_count() == 0);
    reg.retain(|(_, _, w)| w.strong_count() > 0);
    if let Some(a) = reg
        .iter()
        .find(|(n, i, _)| *n == netns && *i == ifindex)
        .and_then(|(_, _, w)| w.upgrade())
    {
        let ok = match cfg.mode {
            XdpMode::Auto => true,
            XdpMode::ZeroCopy | XdpMode::Copy => a.native,
            XdpMode::Skb => !a.native,
        };
        if !ok {
            return Err(AfXdpError::ModeConflict {
                ifname: ifname.into(),
                queue: cfg.queue,
                want: cfg.mode.name(),
                have: if a.native { "native" } else { "skb" },
            });
        }
        return Ok(a);
    }
    let attach = |native: bool| {
        let flags = if native {
            sys::XDP_FLAGS_DRV_MODE
        } else {
            sys::XDP_FLAGS_SKB_MODE
        };
        let start = std::time::Instant::now();
        loop {
            match XdpProgram::attach(ifindex, flags, MAX_QUEUES) {
                Err((BpfStep::LinkCreate, e))
                    if ours_released
                        && matches!(e.raw_os_error(), Some(libc::EBUSY) | Some(libc::EEXIST))
                        && start.elapsed() < BIND_BUSY_WAIT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                r => break r.map_err(|(step, e)| attach_error(ifname, native, step, e)),
            }
        }
    };
    let (prog, native, fallback) = match cfg.mode {
        XdpMode::Skb => (attach(false)?, false, None),
        XdpMode::Copy | XdpMode::ZeroCopy => (attach(true)?, true, None),
        XdpMode::Auto => match attach(true) {
            Ok(p) => (p, true, None),
            // no native XDP in this driver (or not in its present state): generic
            Err(AfXdpError::Attach { error, .. })
                if matches!(
                    error.raw_os_error(),
                    Some(libc::EOPNOTSUPP) | Some(libc::EINVAL) | Some(libc::ERANGE)
                ) =>
            {
                let why = format!("the driver refused native XDP: {error}");
                (attach(false)?, false, Some(why))
            }
            Err(e) => return Err(e),
        },
    };
    let a = Arc::new(Attached {
        prog,
        native,
        fallback,
    });
    reg.push((netns, ifindex, Arc::downgrade(&a)));
    Ok(a)
}

/// The fix for a refused `XDP_UMEM_REG`: the kernel pins the UMEM's pages and counts them
/// against `RLIMIT_MEMLOCK` unless the process has `CAP_IPC_LOCK` (ENOBUFS past the limit).
pub(super) fn umem_fix(errno: Option<i32>) -> &'static str {
    match errno {
        Some(libc::ENOBUFS) | Some(libc::ENOMEM) | Some(libc::EPERM) => {
            "the UMEM is locked memory and counts against RLIMIT_MEMLOCK (`ulimit -l`): raise the limit \
             (systemd `LimitMEMLOCK=infinity`, `prlimit --memlock=unlimited`), grant CAP_IPC_LOCK, or \
             make the rings smaller (fill_ring, tx_ring, frame_size)"
        }
        _ => "check the ring and frame sizes and the kernel log",
    }
}

fn attach_error(ifname: &str, native: bool, step: BpfStep, e: io::Error) -> AfXdpError {
    let mode = if native { "native" } else { "generic (skb)" };
    let fix = match (step, e.raw_os_error()) {
        (_, Some(libc::EPERM)) => {
            "loading XDP programs needs CAP_BPF and CAP_NET_ADMIN (run as root or grant the capabilities)"
        }
        (BpfStep::LinkCreate, Some(libc::EBUSY) | Some(libc::EEXIST)) => {
            "another XDP program is attached to the interface (see `ip link show`; remove it with `ip link set dev IFACE xdp off`)"
        }
        (BpfStep::LinkCreate, Some(libc::EOPNOTSUPP) | Some(libc::EINVAL)) if native => {
            "the driver has no native XDP: use mode = \"skb\" (or \"auto\")"
        }
        (BpfStep::LinkCreate, Some(libc::ENOSPC)) if native => {
            "native XDP needs at least as many RX queues as the peer has TX queues (veth: create the pair with `numrxqueues`/`numtxqueues`, or `ethtool -L`), or use mode = \"skb\""
        }
        (BpfStep::LinkCreate, Some(libc::ERANGE)) => {
            "the MTU is too large for XDP on this driver: lower it (e.g. `ip link set dev IFACE mtu 1500`) or use mode = \"skb\""
        }
        (BpfStep::MapCreate | BpfStep::ProgLoad, _) => {
            "the kernel refused the XDP program or its XSKMAP (needs Linux >= 5.9 with CONFIG_XDP_SOCKETS and CONFIG_BPF_SYSCALL)"
        }
        _ => "check `ip link show IFACE` and the kernel log",
    };
    AfXdpError::Attach {
        ifname: ifname.into(),
        mode,
        fix: fix.replace("IFACE", ifname),
        error: e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn umem_refusals_name_the_memlock_fix() {
        for errno in [libc::ENOBUFS, libc::ENOMEM, libc::EPERM] {
            let fix = umem_fix(Some(errno));
            assert!(
                fix.contains("RLIMIT_MEMLOCK") && fix.contains("CAP_IPC_LOCK"),
                "{fix}"
            );
        }
        assert!(!umem_fix(Some(libc::EINVAL)).contains("MEMLOCK"));
    }
}
