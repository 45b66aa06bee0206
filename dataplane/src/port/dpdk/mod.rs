//! DPDK port (cargo feature `dpdk`): one DPDK ethdev device (a `--vdev` such as
//! `net_af_packet0` or a NIC bound to a DPDK driver, by PCI address) as a switch port;
//! see `docs/dpdk.md`.
//!
//! * EAL: [`Eal::init`] initialises DPDK's environment once per process (a second call
//!   is [`DpdkError::EalAlreadyInitialized`], never a second `rte_eal_init`). Before it,
//!   the free huge pages are checked (unless `--no-huge` is among the arguments), so a
//!   machine without them fails with the fix instead of deep in EAL.
//! * Device: [`open`] configures the device with `queues` RX queues (RSS over them when
//!   more than one, with the hash functions the device offers among IP/TCP/UDP) and one
//!   TX queue, one mbuf pool per device sized by [`pool_size`], promiscuous mode, and
//!   starts it. It returns one [`DpdkPort`] per RX queue: the first also transmits, the
//!   others are receive-only replicas for other workers (like AF_XDP's queues).
//! * Frames: the engine owns its buffers, so RX copies each frame out of its mbuf into
//!   a pool buffer and frees the mbufs in bulk; TX allocates mbufs in bulk, copies each
//!   frame in and calls `rte_eth_tx_burst` once (a second time for a remainder). One
//!   `memcpy` per frame per direction, as the AF_PACKET and AF_XDP copy modes.
//! * Link: `rte_eth_link_get_nowait`, read in [`DpdkPort::poll_link`] (the engine's
//!   upkeep, off the fast path).
//! * Counters: the port's own drop reasons ([`PortDrop`]) and the device's
//!   `rte_eth_stats` (`imissed`, `ierrors`, `rx_nombuf`, `oerrors`), see
//!   [`BACKEND_COUNTER_NAMES`].
//!
//! No allocation, locking or syscall per packet: the data path is the driver's burst
//! functions plus copies (the af_packet PMD itself issues one `sendto` per TX burst).

mod engine_port;
mod sys;

pub use engine_port::BACKEND_COUNTER_NAMES;

use crate::engine::PortEvent;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Ethernet header length.
pub const ETH_HLEN: usize = 14;
/// Most RX queues (workers) one port can have.
pub const MAX_QUEUES: u16 = 64;
/// Smallest descriptor ring.
pub const MIN_DESC: u16 = 64;
/// Largest descriptor ring.
pub const MAX_DESC: u16 = 16384;
/// Per-lcore mbuf cache of each pool. Canopy's workers are not EAL lcores, so DPDK
/// serves them from the pool's ring directly and the cache would only strand mbufs
/// with the main lcore: 0.
pub const MBUF_CACHE: u32 = 0;
/// Free huge pages [`Eal::init`] asks for (unless `--no-huge`).
pub const MIN_FREE_HUGEPAGES: u64 = 1;
/// How to reserve huge pages (quoted in errors).
pub const HUGEPAGES_FIX: &str = "reserve huge pages: `echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages` (as root; and `mount -t hugetlbfs nodev /dev/hugepages` if it is not mounted), or run without them by adding \"--no-huge\", \"-m\", \"1024\" to [dpdk] eal_args";

crate::reasons::drop_reasons! {
    /// Why the port refused or lost a frame; labels in [`PortDrop::NAMES`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum PortDrop {
        /// TX: the driver took fewer frames than offered (its TX ring is full).
        TxRingFull => "tx_ring_full",
        /// TX: no free mbuf in the port's pool.
        TxNoMbuf => "tx_no_mbuf",
        /// TX: frame larger than an mbuf's data room.
        Oversize => "oversize",
        /// TX: the link is down.
        PortDown => "port_down",
        /// RX: no free engine buffer; the frame is dropped.
        RxNoBuffer => "rx_no_buffer",
        /// RX: frame larger than an engine buffer; dropped.
        RxTooLong => "rx_too_long",
    }
}

/// The device counters exported, in [`EthStats::as_array`] order.
pub const ETH_STAT_NAMES: [&str; 4] = [
    "dpdk_imissed",
    "dpdk_ierrors",
    "dpdk_rx_nombuf",
    "dpdk_oerrors",
];

pub use sys::EthStats;

impl EthStats {
    /// `imissed`, `ierrors`, `rx_nombuf`, `oerrors` ([`ETH_STAT_NAMES`]).
    pub fn as_array(&self) -> [u64; 4] {
        [self.imissed, self.ierrors, self.rx_nombuf, self.oerrors]
    }
}

/// Errors of the DPDK backend. Each says what to change.
#[derive(Debug, thiserror::Error)]
pub enum DpdkError {
    /// `Eal::init` was already called in this process.
    #[error("DPDK's EAL is already initialised in this process (it can be initialised once per process: open every DPDK port with the same Eal)")]
    EalAlreadyInitialized,
    /// No free huge pages.
    #[error("no free huge pages (HugePages_Free {free} in /proc/meminfo): {HUGEPAGES_FIX}")]
    NoHugepages {
        /// HugePages_Free.
        free: u64,
    },
    /// An EAL argument holds a NUL byte.
    #[error("EAL argument {0:?} holds a NUL byte")]
    BadArgument(String),
    /// `rte_eal_init` failed.
    #[error("DPDK EAL initialisation failed: {text} (rte_errno {errno}); check [dpdk] eal_args (each --vdev names a driver such as net_af_packet0 and an existing interface in this network namespace, e.g. --vdev=net_af_packet0,iface=eth1,framecnt=8192; a PCI device must be bound to vfio-pci with dpdk-devbind.py) and the EAL log above")]
    EalInit {
        /// rte_errno.
        errno: i32,
        /// Its text.
        text: String,
    },
    /// No such device among those EAL probed.
    #[error("no DPDK device {device:?} (EAL probed: {}): add --vdev={device},iface=IFNAME,framecnt=8192 to [dpdk] eal_args for an af_packet device, or bind the NIC to vfio-pci with `dpdk-devbind.py -b vfio-pci {device}` for a PCI address", if .probed.is_empty() { "none".to_string() } else { .probed.join(", ") })]
    NoDevice {
        /// The name asked for.
        device: String,
        /// The devices EAL probed.
        probed: Vec<String>,
    },
    /// The device has a `--vdev` in the EAL arguments, but EAL could not probe it.
    #[error("DPDK device {device:?} did not probe: its {arg:?} in [dpdk] eal_args failed (see the EAL log above){}", vdev_hint(.arg))]
    VdevNotProbed {
        /// Device.
        device: String,
        /// Its `--vdev` argument.
        arg: String,
    },
    /// More queues than the device has.
    #[error("device {device:?} ({driver}) has at most {max} RX queues, {asked} asked: lower `queues` (for net_af_packet also add qpairs=N to its --vdev)")]
    TooManyQueues {
        /// Device.
        device: String,
        /// Driver.
        driver: String,
        /// Queues asked for.
        asked: u16,
        /// Most RX queues.
        max: u16,
    },
    /// A device call failed.
    #[error("device {device:?}: {op} failed: {text} ({code})")]
    Device {
        /// Device.
        device: String,
        /// What was called.
        op: &'static str,
        /// Return code.
        code: i32,
        /// Its text.
        text: String,
    },
    /// The mbuf pool could not be created.
    #[error("device {device:?}: cannot create a pool of {mbufs} mbufs: {text} (rte_errno {errno}); reserve more huge pages or lower rx_desc/tx_desc")]
    Pool {
        /// Device.
        device: String,
        /// Mbufs asked for.
        mbufs: u32,
        /// rte_errno.
        errno: i32,
        /// Its text.
        text: String,
    },
    /// A configuration value is out of range.
    #[error("{0}")]
    Config(String),
}

/// The fix for a vdev that did not probe: for af_packet, the interface must exist in
/// the switch's network namespace.
fn vdev_hint(arg: &str) -> String {
    match arg.split(',').find_map(|kv| kv.strip_prefix("iface=")) {
        Some(iface) => format!(
            ": does interface {iface:?} exist in this network namespace (`ip link show {iface}`)?"
        ),
        None => ": check the driver name and its arguments".into(),
    }
}

/// The `--vdev` argument of `device` in EAL arguments (`--vdev=NAME,...` or `--vdev
/// NAME,...`), if any.
pub fn vdev_arg<'a>(args: &'a [String], device: &str) -> Option<&'a str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = match a.strip_prefix("--vdev=") {
            Some(v) => v,
            None if a == "--vdev" => match it.next() {
                Some(v) => v.as_str(),
                None => break,
            },
            None => continue,
        };
        if v.split(',').next() == Some(device) {
            return Some(v);
        }
    }
    None
}

/// Settings of one DPDK port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DpdkConfig {
    /// RX queues, one per worker (RSS across them when more than one).
    pub queues: u16,
    /// RX descriptors per queue.
    pub rx_desc: u16,
    /// TX descriptors (one TX queue).
    pub tx_desc: u16,
}

impl Default for DpdkConfig {
    fn default() -> Self {
        DpdkConfig {
            queues: 1,
            rx_desc: 1024,
            tx_desc: 1024,
        }
    }
}

impl DpdkConfig {
    /// Check the ranges (queues 1..=MAX_QUEUES, descriptors MIN_DESC..=MAX_DESC, powers
    /// of two as most drivers require).
    pub fn validate(&self) -> Result<(), DpdkError> {
        if self.queues == 0 || self.queues > MAX_QUEUES {
            return Err(DpdkError::Config(format!(
                "queues {} is not in 1..={MAX_QUEUES}",
                self.queues
            )));
        }
        for (k, v) in [("rx_desc", self.rx_desc), ("tx_desc", self.tx_desc)] {
            if !(MIN_DESC..=MAX_DESC).contains(&v) || !v.is_power_of_two() {
                return Err(DpdkError::Config(format!(
                    "{k} {v} is not a power of two in {MIN_DESC}..={MAX_DESC}"
                )));
            }
        }
        Ok(())
    }
}

/// Mbufs in one port's pool:
///
/// `queues × rx_desc + tx_desc + 2 × BURST × (queues + 1) + MBUF_CACHE × (queues + 1)`
///
/// Every RX and TX descriptor can hold an mbuf; each queue handle has at most one
/// burst in flight and the driver one more; the per-lcore caches are 0 here. Summed over
/// the ports this is the `ports × queues × (rx_desc + tx_desc) + bursts × workers +
/// cache` budget, with the single TX queue counted once.
pub fn pool_size(cfg: &DpdkConfig) -> u32 {
    let q = u32::from(cfg.queues);
    let b = crate::engine::BURST as u32;
    q * u32::from(cfg.rx_desc) + u32::from(cfg.tx_desc) + 2 * b * (q + 1) + MBUF_CACHE * (q + 1)
}

/// `HugePages_Free` in a `/proc/meminfo` text.
pub fn hugepages_free(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find(|l| l.starts_with("HugePages_Free:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
}

/// Check that huge pages are free (unless `args` has `--no-huge`), from a meminfo text.
pub fn check_hugepages(args: &[String], meminfo: &str) -> Result<(), DpdkError> {
    if args.iter().any(|a| a == "--no-huge") {
        return Ok(());
    }
    let free = hugepages_free(meminfo).unwrap_or(0);
    if free < MIN_FREE_HUGEPAGES {
        return Err(DpdkError::NoHugepages { free });
    }
    Ok(())
}

/// `--lcores` value that makes lcore 0 run on `cpus` (`0@(1,3-5)`), or `0` when empty.
pub fn lcores_arg(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "0".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    format!("0@({})", parts.join(","))
}

/// The full EAL argument list for `user` arguments: program name, the user's
/// arguments, then the defaults they do not override: `--in-memory` (no files in
/// /dev/hugepages or /var/run/dpdk; not with `--no-huge`, which gets `--no-shconf`
/// instead), `--file-prefix=canopy<pid>`
/// (no clash with another DPDK process), `--lcores=0@(CPUS)` (one lcore, on the CPUs
/// the process may use, e.g. under `taskset`: the workers are Canopy's threads, not
/// EAL's), `--no-telemetry`. `--no-pci` only when the user writes it.
pub fn eal_argv(user: &[String]) -> Vec<String> {
    let cpus = sys::Affinity::save().map(|a| a.cpus()).unwrap_or_default();
    eal_argv_on(user, &cpus)
}

/// [`eal_argv`] with the process's CPUs given.
pub fn eal_argv_on(user: &[String], cpus: &[usize]) -> Vec<String> {
    let has = |p: &[&str]| {
        user.iter()
            .any(|a| p.iter().any(|p| a == p || a.starts_with(&format!("{p}="))))
    };
    let mut v = vec!["canopy-switch".to_string()];
    v.extend(user.iter().cloned());
    if !has(&["--in-memory", "--no-huge", "--legacy-mem"]) {
        v.push("--in-memory".into());
    } else if !has(&["--in-memory", "--no-shconf"]) {
        // --in-memory implies it; without it (--no-huge), no runtime files either
        v.push("--no-shconf".into());
    }
    if !has(&["--file-prefix"]) {
        v.push(format!("--file-prefix=canopy{}", std::process::id()));
    }
    if !has(&["-l", "-c", "--lcores"]) {
        v.push(format!("--lcores={}", lcores_arg(cpus)));
    }
    if !has(&["--telemetry", "--no-telemetry"]) {
        v.push("--no-telemetry".into());
    }
    v
}

static EAL_STARTED: AtomicBool = AtomicBool::new(false);

/// DPDK's environment (EAL), initialised once per process; ports hold it, and the last
/// handle dropped calls `rte_eal_cleanup`.
#[derive(Debug)]
pub struct Eal {
    args: Vec<String>,
}

impl Eal {
    /// Initialise EAL with `user` arguments ([`eal_argv`] adds the defaults). Checks the
    /// huge pages first (unless `--no-huge`). A second call in the same process, even
    /// after a failed first one, is [`DpdkError::EalAlreadyInitialized`]. The calling
    /// thread's CPU affinity is restored afterwards (EAL pins it to the main lcore).
    pub fn init(user: &[String]) -> Result<Arc<Eal>, DpdkError> {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        check_hugepages(user, &meminfo)?;
        let args = eal_argv(user);
        let mut cargs = Vec::with_capacity(args.len());
        for a in &args {
            cargs.push(CString::new(a.as_str()).map_err(|_| DpdkError::BadArgument(a.clone()))?);
        }
        if EAL_STARTED.swap(true, Ordering::SeqCst) {
            return Err(DpdkError::EalAlreadyInitialized);
        }
        let aff = sys::Affinity::save();
        let r = sys::eal_init(cargs);
        if let Some(a) = aff {
            a.restore();
        }
        r.map_err(|(errno, text)| DpdkError::EalInit { errno, text })?;
        Ok(Arc::new(Eal { args }))
    }

    /// The arguments EAL was initialised with.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// Names of the devices EAL probed.
    pub fn devices(&self) -> Vec<String> {
        sys::device_names()
    }
}

impl Drop for Eal {
    fn drop(&mut self) {
        sys::eal_cleanup();
        // EAL creates its runtime directory even with --in-memory and leaves it behind
        // (empty); remove it when it is ours and empty (remove_dir fails otherwise)
        if let Some(dir) = runtime_dir(&self.args) {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// EAL's runtime directory for these arguments when its prefix is ours
/// (`--file-prefix=canopy<pid>`): `/var/run/dpdk/<prefix>` for root, else
/// `$XDG_RUNTIME_DIR/dpdk/<prefix>` (or `/tmp/dpdk/<prefix>`), as EAL makes it.
fn runtime_dir(args: &[String]) -> Option<std::path::PathBuf> {
    let own = format!("--file-prefix=canopy{}", std::process::id());
    let prefix = args
        .iter()
        .find(|a| **a == own)?
        .strip_prefix("--file-prefix=")?;
    // the real uid (EAL decides with getuid), without unsafe: /proc/self/status
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or(false);
    let base = if root {
        std::path::PathBuf::from("/var/run")
    } else {
        std::env::var_os("XDG_RUNTIME_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| "/tmp".into())
    };
    Some(base.join("dpdk").join(prefix))
}

/// Drop counters of one device, shared by its queue handles: the replicas add theirs
/// during upkeep, the primary reports the sum.
#[derive(Debug, Default)]
struct SharedDrops([AtomicU64; PortDrop::COUNT]);

/// A started device; stopped and closed with its last queue handle.
#[derive(Debug)]
struct Device {
    id: u16,
    name: String,
    driver: String,
    max_frame: usize,
    replica_drops: SharedDrops,
    // drop order: the device is closed in Drop, then the pool is freed, then EAL
    pool: sys::Mempool,
    _eal: Arc<Eal>,
}

impl Drop for Device {
    fn drop(&mut self) {
        sys::stop_and_close(self.id);
    }
}

/// Counters of one port (cumulative).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Drops by [`PortDrop`] (the device's queues together, as of the replicas' last upkeep).
    pub drops: [u64; PortDrop::COUNT],
    /// Device counters (`rte_eth_stats`).
    pub eth: EthStats,
    /// Times the link went down.
    pub link_down_events: u64,
}

/// One queue of a DPDK device: the primary (queue 0) receives and transmits, the others
/// receive only.
#[derive(Debug)]
pub struct DpdkPort {
    dev: Arc<Device>,
    queue: u16,
    up: bool,
    drops: [u64; PortDrop::COUNT],
    flushed: [u64; PortDrop::COUNT],
    link_down_events: u64,
    burst: sys::Burst,
}

/// Open device `device` (a vdev name or PCI address EAL probed): configure `cfg.queues`
/// RX queues (RSS when more than one) and one TX queue, start it, and return one handle
/// per RX queue (the first transmits).
pub fn open(eal: &Arc<Eal>, device: &str, cfg: &DpdkConfig) -> Result<Vec<DpdkPort>, DpdkError> {
    cfg.validate()?;
    let dev_err = |op: &'static str, code: i32| DpdkError::Device {
        device: device.to_string(),
        op,
        code,
        text: sys::strerror(code),
    };
    let Some(id) = sys::port_by_name(device) else {
        if let Some(v) = vdev_arg(&eal.args, device) {
            return Err(DpdkError::VdevNotProbed {
                device: device.to_string(),
                arg: format!("--vdev={v}"),
            });
        }
        return Err(DpdkError::NoDevice {
            device: device.to_string(),
            probed: sys::device_names(),
        });
    };
    let info = sys::dev_info(id).map_err(|c| dev_err("rte_eth_dev_info_get", c))?;
    if cfg.queues > info.max_rx_queues || info.max_tx_queues == 0 {
        return Err(DpdkError::TooManyQueues {
            device: device.to_string(),
            driver: info.driver.clone(),
            asked: cfg.queues,
            max: info.max_rx_queues,
        });
    }
    let rss = if cfg.queues > 1 {
        sys::rss_hf_ip() & info.rss_offloads
    } else {
        0
    };
    sys::configure(id, cfg.queues, 1, rss).map_err(|c| dev_err("rte_eth_dev_configure", c))?;
    // from here on a failure closes the device before its pool is freed (its queues
    // would point into the pool)
    let fail = |e: DpdkError| {
        sys::stop_and_close(id);
        e
    };
    let socket = sys::socket_id(id).max(0);
    let mbufs = pool_size(cfg);
    let pool = sys::Mempool::create(&format!("canopy_p{id}"), mbufs, MBUF_CACHE, socket).map_err(
        |(errno, text)| DpdkError::Pool {
            device: device.to_string(),
            mbufs,
            errno,
            text,
        },
    )?;
    for q in 0..cfg.queues {
        sys::rx_queue_setup(id, q, cfg.rx_desc, socket as u32, &pool)
            .map_err(|c| fail(dev_err("rte_eth_rx_queue_setup", c)))?;
    }
    sys::tx_queue_setup(id, 0, cfg.tx_desc, socket as u32)
        .map_err(|c| fail(dev_err("rte_eth_tx_queue_setup", c)))?;
    sys::start(id).map_err(|c| fail(dev_err("rte_eth_dev_start", c)))?;
    // not every driver has a promiscuous mode (af_packet has); a switch port wants it
    let _ = sys::promiscuous(id);
    let mtu = sys::mtu(id).unwrap_or(1500);
    let max_frame = (usize::from(mtu) + ETH_HLEN).min(crate::engine::pool::BUF_SIZE);
    let up = sys::link_up(id).unwrap_or(false);
    let dev = Arc::new(Device {
        id,
        name: device.to_string(),
        driver: info.driver,
        max_frame,
        replica_drops: SharedDrops::default(),
        pool,
        _eal: eal.clone(),
    });
    Ok((0..cfg.queues)
        .map(|queue| DpdkPort {
            dev: dev.clone(),
            queue,
            up,
            drops: [0; PortDrop::COUNT],
            flushed: [0; PortDrop::COUNT],
            link_down_events: 0,
            burst: sys::Burst::default(),
        })
        .collect())
}

impl DpdkPort {
    /// Device name.
    pub fn name(&self) -> &str {
        &self.dev.name
    }

    /// Driver name (e.g. `net_af_packet`).
    pub fn driver(&self) -> &str {
        &self.dev.driver
    }

    /// The RX queue this handle polls.
    pub fn queue(&self) -> u16 {
        self.queue
    }

    /// ethdev port id.
    pub fn port_id(&self) -> u16 {
        self.dev.id
    }

    /// Largest frame sent (MTU + Ethernet header, at most an engine buffer).
    pub fn max_frame(&self) -> usize {
        self.dev.max_frame
    }

    /// Link state at the last [`DpdkPort::poll_link`] (or open).
    pub fn link_up(&self) -> bool {
        self.up
    }

    /// Free mbufs in the device's pool.
    pub fn pool_available(&self) -> u32 {
        self.dev.pool.available()
    }

    /// Re-read the link (`rte_eth_link_get_nowait`): `Unchanged`, `WentDown` or
    /// `CameUp` (a device is never reopened); replicas also hand their drop counts to
    /// the primary here.
    pub fn poll_link(&mut self) -> PortEvent {
        if self.queue != 0 {
            for (i, d) in self.drops.iter().enumerate() {
                let add = d - self.flushed[i];
                if add > 0 {
                    self.dev.replica_drops.0[i].fetch_add(add, Ordering::Relaxed);
                }
            }
            self.flushed = self.drops;
        }
        let up = sys::link_up(self.dev.id).unwrap_or(false);
        let ev = match (self.up, up) {
            (true, false) => {
                self.link_down_events += 1;
                PortEvent::WentDown
            }
            (false, true) => PortEvent::CameUp,
            _ => PortEvent::Unchanged,
        };
        self.up = up;
        ev
    }

    /// Counters: this handle's drops plus the replicas' (primary), and the device's.
    pub fn stats(&self) -> PortStats {
        let mut drops = self.drops;
        if self.queue == 0 {
            for (i, d) in drops.iter_mut().enumerate() {
                *d += self.dev.replica_drops.0[i].load(Ordering::Relaxed);
            }
        }
        PortStats {
            drops,
            eth: sys::stats(self.dev.id).unwrap_or_default(),
            link_down_events: self.link_down_events,
        }
    }

    /// Receive up to `max` frames, handing each to `f`; frames longer than `buf` are
    /// counted as [`PortDrop::RxTooLong`]. `f` gets each frame copied into `buf` first.
    /// Returns the frames received from the device.
    pub fn rx_burst(&mut self, max: usize, buf: &mut [u8], mut f: impl FnMut(&[u8])) -> usize {
        let n = self.burst.rx(self.dev.id, self.queue, max);
        for i in 0..n {
            match self.burst.copy_out(i, buf) {
                Some(len) => f(&buf[..len]),
                None => self.drops[PortDrop::RxTooLong as usize] += 1,
            }
        }
        self.burst.free_all();
        n
    }

    /// Transmit `frames` (at most a burst) in order: returns how many the driver took;
    /// the others are counted by reason and left to the caller.
    pub fn tx_frames<'a>(&mut self, frames: impl ExactSizeIterator<Item = &'a [u8]>) -> usize {
        let n = frames.len().min(sys::BURST);
        if n == 0 {
            return 0;
        }
        if !self.up {
            self.drops[PortDrop::PortDown as usize] += n as u64;
            return 0;
        }
        if !self.burst.alloc(&self.dev.pool, n) {
            self.drops[PortDrop::TxNoMbuf as usize] += n as u64;
            return 0;
        }
        let mut ready = 0;
        for (i, fr) in frames.take(n).enumerate() {
            if fr.len() > self.dev.max_frame || !self.burst.copy_in(i, fr) {
                self.drops[PortDrop::Oversize as usize] += (n - i) as u64;
                break;
            }
            ready += 1;
        }
        let sent = self.send(ready);
        self.drops[PortDrop::TxRingFull as usize] += (ready - sent) as u64;
        self.burst.free_all();
        sent
    }

    /// Send the first `n` mbufs of the burst; one retry for what the driver left.
    fn send(&mut self, n: usize) -> usize {
        let mut sent = self.burst.tx(self.dev.id, self.queue, n);
        if sent < n {
            sent += self.burst.tx(self.dev.id, self.queue, n - sent);
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vdev_arguments_are_found_by_device() {
        let a: Vec<String> = [
            "--no-pci",
            "--vdev=net_af_packet0,iface=a",
            "--vdev",
            "net_ring1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            vdev_arg(&a, "net_af_packet0"),
            Some("net_af_packet0,iface=a")
        );
        assert_eq!(vdev_arg(&a, "net_ring1"), Some("net_ring1"));
        assert_eq!(vdev_arg(&a, "net_af_packet"), None);
        let e = DpdkError::VdevNotProbed {
            device: "net_af_packet0".into(),
            arg: "--vdev=net_af_packet0,iface=gone".into(),
        };
        assert!(e.to_string().contains("ip link show gone"), "{e}");
    }

    #[test]
    fn pool_size_follows_the_formula() {
        let c = DpdkConfig::default();
        assert_eq!(pool_size(&c), 1024 + 1024 + 2 * 32 * 2);
        let c = DpdkConfig {
            queues: 4,
            rx_desc: 512,
            tx_desc: 256,
        };
        assert_eq!(pool_size(&c), 4 * 512 + 256 + 2 * 32 * 5);
    }

    #[test]
    fn config_ranges_are_checked() {
        assert!(DpdkConfig::default().validate().is_ok());
        for c in [
            DpdkConfig {
                queues: 0,
                ..DpdkConfig::default()
            },
            DpdkConfig {
                queues: MAX_QUEUES + 1,
                ..DpdkConfig::default()
            },
            DpdkConfig {
                rx_desc: 1000,
                ..DpdkConfig::default()
            },
            DpdkConfig {
                tx_desc: 32,
                ..DpdkConfig::default()
            },
        ] {
            assert!(c.validate().is_err(), "{c:?}");
        }
    }

    #[test]
    fn hugepages_are_checked_unless_no_huge() {
        let none = "MemTotal: 1 kB\nHugePages_Total:       0\nHugePages_Free:        0\n";
        let some = "HugePages_Total:     512\nHugePages_Free:      512\n";
        assert_eq!(hugepages_free(some), Some(512));
        let e = check_hugepages(&[], none).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("HugePages_Free 0"), "{m}");
        assert!(m.contains("nr_hugepages"), "{m}");
        assert!(m.contains("--no-huge"), "{m}");
        assert!(check_hugepages(&[], "").is_err());
        assert!(check_hugepages(&[], some).is_ok());
        assert!(check_hugepages(&["--no-huge".into()], none).is_ok());
    }

    #[test]
    fn eal_defaults_are_added_unless_overridden() {
        let v = eal_argv(&["--vdev=net_af_packet0,iface=x".into()]);
        assert_eq!(v[0], "canopy-switch");
        assert!(v.contains(&"--in-memory".to_string()));
        assert!(v.iter().any(|a| a.starts_with("--file-prefix=canopy")));
        assert!(v.contains(&"--no-telemetry".to_string()));
        assert!(!v.contains(&"--no-pci".to_string()));
        let v = eal_argv(&[
            "--no-huge".into(),
            "--file-prefix=x".into(),
            "--lcores=0@1".into(),
            "--no-pci".into(),
        ]);
        assert!(!v.contains(&"--in-memory".to_string()));
        assert!(v.contains(&"--no-shconf".to_string()));
        assert_eq!(
            v.iter().filter(|a| a.starts_with("--file-prefix")).count(),
            1
        );
        assert_eq!(v.iter().filter(|a| a.starts_with("--lcores")).count(), 1);
        assert!(v.contains(&"--no-pci".to_string()));
        let v = eal_argv_on(&[], &[1]);
        assert!(v.contains(&"--lcores=0@(1)".to_string()), "{v:?}");
        assert_eq!(lcores_arg(&[0, 1, 2, 5, 7, 8]), "0@(0-2,5,7-8)");
        assert_eq!(lcores_arg(&[]), "0");
    }
}
