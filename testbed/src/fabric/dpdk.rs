//! `dpdk` ports in a fabric: what `up` checks before it creates anything, because a
//! switch that fails deep in DPDK would only fail after every namespace and link exists.
//!
//! * The `canopy-switch` binary must have been built with the `dpdk` feature: it is
//!   asked (`canopy-switch check-config`) about one generated configuration with `dpdk`
//!   ports; without the feature it exits 2 with the build command, which `up` passes on.
//!   (The testbed itself validates the generated configurations with
//!   [`canopy_switch::config::Config::parse_rules`], every rule but the build's features,
//!   so a testbed built without the feature can drive a switch built with it.)
//! * Huge pages: every switch with `dpdk` ports is its own DPDK process (`--in-memory`, its
//!   own `--file-prefix=canopy<pid>`) and takes huge pages for its mbuf pools and EAL's own
//!   memory. [`switch_hugepage_bytes`] estimates one switch's need (measured, see there); `up` refuses, with the
//!   fix, when `HugePages_Free` in `/proc/meminfo` is below the sum over the fabric's
//!   dpdk switches.

use crate::os::meminfo::hugepages;
use canopy_switch::config::{Config, PortSpec};
use std::path::Path;
use std::process::Command;

/// Bytes of one mbuf in a pool: DPDK's default data room (2048 bytes + 128 of headroom),
/// `struct rte_mbuf` (two cache lines) and the mempool's per-object header (one line).
pub const MBUF_BYTES: u64 = 2048 + 128 + 128 + 64;

/// EAL's own huge-page memory per process with `--in-memory`, besides the ports: the
/// malloc heap's first segment, ethdev and mempool bookkeeping.
pub const EAL_BASE_BYTES: u64 = 4 << 20;
/// Per `dpdk` port, besides its pool's mbufs: the device's data and its mempool's
/// header and memzones.
pub const PORT_BYTES: u64 = 1 << 20;
/// Per RX queue: the af_packet PMD's queue structures (an iovec per ring frame).
pub const QUEUE_BYTES: u64 = 1 << 20;

/// Mbufs in one port's pool, as `canopy_dataplane::port::dpdk::pool_size` sizes it
/// (docs/dpdk.md): `queues × rx_desc + tx_desc + 2 × BURST × (queues + 1)` (the
/// per-lcore cache is 0).
pub fn pool_mbufs(queues: u32, rx_desc: u16, tx_desc: u16) -> u64 {
    let q = u64::from(queues);
    let burst = canopy_dataplane::engine::BURST as u64;
    q * u64::from(rx_desc) + u64::from(tx_desc) + 2 * burst * (q + 1)
}

/// Estimated huge-page bytes of one port: its pool's mbufs, the pool's ring (8 bytes a
/// slot, a power of two above the count), [`PORT_BYTES`] and [`QUEUE_BYTES`] per queue.
pub fn port_hugepage_bytes(queues: u32, rx_desc: u16, tx_desc: u16) -> u64 {
    let n = pool_mbufs(queues, rx_desc, tx_desc);
    n * MBUF_BYTES + (n + 1).next_power_of_two() * 8 + PORT_BYTES + u64::from(queues) * QUEUE_BYTES
}

/// Estimated huge-page bytes of one switch process: [`EAL_BASE_BYTES`] plus
/// [`port_hugepage_bytes`] per `dpdk` port (0 without any). Checked against DPDK 22.11
/// (Debian 12, 2 MiB pages, `HugePages_Free` before and while one canopy-switch ran):
///
/// | dpdk ports | used | estimated |
/// | --- | --- | --- |
/// | 1, defaults (2176 mbufs) | 4 pages | 6 |
/// | 1, `rx_desc = 16384` (17536 mbufs) | 21 | 23 |
/// | 1, `queues = 4`, `rx_desc = 16384` (`qpairs=4`; 66880 mbufs) | 78 | 81 |
/// | 4, defaults | 13 | 16 |
pub fn switch_hugepage_bytes(cfg: &Config) -> u64 {
    let ports: u64 = cfg
        .ports
        .iter()
        .filter_map(|p| match p {
            PortSpec::Dpdk {
                queues,
                rx_desc,
                tx_desc,
                ..
            } => Some(port_hugepage_bytes(*queues, *rx_desc, *tx_desc)),
            _ => None,
        })
        .sum();
    if ports == 0 {
        0
    } else {
        EAL_BASE_BYTES + ports
    }
}

/// Whether the free huge pages of `meminfo` cover `need` (switch name, bytes) — each
/// switch rounded up to whole pages, since every process maps its own. `Err` says how
/// many are missing and the fix.
pub fn check_hugepages(need: &[(String, u64)], meminfo: &str) -> Result<(), DpdkError> {
    let want: u64 = need.iter().map(|(_, b)| *b).sum();
    if want == 0 {
        return Ok(());
    }
    let (free, page) = hugepages(meminfo).unwrap_or((0, 2 << 20));
    let page = page.max(1);
    let pages: u64 = need.iter().map(|(_, b)| b.div_ceil(page)).sum();
    if free >= pages {
        return Ok(());
    }
    let per = need
        .iter()
        .map(|(n, b)| format!("{n} {}", b.div_ceil(page)))
        .take(4)
        .collect::<Vec<_>>()
        .join(", ");
    let more = if need.len() > 4 { ", ..." } else { "" };
    Err(DpdkError::HugePages {
        switches: need.len(),
        pages,
        kb: page / 1024,
        per: format!("{per}{more}"),
        free,
        reserve: pages.saturating_sub(free) + current_total(meminfo),
    })
}

/// Why `up` refuses a fabric's `dpdk` ports on this machine.
#[derive(Debug, thiserror::Error)]
pub enum DpdkError {
    /// Fewer free huge pages than the dpdk switches need (with the fix).
    #[error("{switches} switch(es) with dpdk ports need about {pages} huge pages of {kb} kB ({per}; EAL's base and one mbuf pool per dpdk port, docs/testbed.md), but /proc/meminfo has HugePages_Free {free}: reserve more as root, e.g. `echo {reserve} > /sys/kernel/mm/hugepages/hugepages-{kb}kB/nr_hugepages` (and `mount -t hugetlbfs nodev /dev/hugepages` if it is not mounted), or put fewer ports on dpdk")]
    HugePages {
        /// Switches with dpdk ports.
        switches: usize,
        /// Pages they need.
        pages: u64,
        /// Page size, kB.
        kb: u64,
        /// Pages per switch (the first few).
        per: String,
        /// Free pages.
        free: u64,
        /// The total to reserve.
        reserve: u64,
    },
    /// The check's configuration file could not be written.
    #[error("write {}: {source}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The switch binary could not be run.
    #[error("cannot run {}: {source}", bin.display())]
    Run {
        /// The binary.
        bin: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The switch binary refuses the configuration (its own message).
    #[error("{} refuses the dpdk ports this fabric asks for ({status}): {message}", bin.display())]
    Refused {
        /// The binary.
        bin: std::path::PathBuf,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// Its message, the temporary file's name replaced.
        message: String,
    },
}

fn current_total(meminfo: &str) -> u64 {
    meminfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("HugePages_Total:")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Ask the `canopy-switch` binary `bin` whether it takes the configuration `text` (one
/// with `dpdk` ports): `check-config` on a temporary copy. `Err` is the binary's own
/// message (exit 2: invalid for this build, e.g. built without the `dpdk` feature).
pub fn check_switch_binary(bin: &Path, text: &str, tag: &str) -> Result<(), DpdkError> {
    // a fresh name, created here and only by us (never a file or link someone put
    // there first), readable by its owner only
    let file = std::env::temp_dir().join(format!(
        "canopy-testbed-{tag}-{}-{:016x}-check.toml",
        std::process::id(),
        rand::random::<u64>()
    ));
    let write = || {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&file)?
            .write_all(text.as_bytes())
    };
    write().map_err(|source| DpdkError::Write {
        path: file.clone(),
        source,
    })?;
    let out = Command::new(bin)
        .args(["check-config", "--config"])
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let out = out.map_err(|source| DpdkError::Run {
        bin: bin.to_path_buf(),
        source,
    })?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let msg = err
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Err(DpdkError::Refused {
        bin: bin.to_path_buf(),
        status: out.status,
        message: msg.replace(&file.display().to_string(), "the generated configuration"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:        8000000 kB\nHugePages_Total:     512\nHugePages_Free:      100\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n";

    #[test]
    fn pool_formula_matches_docs() {
        // docs/dpdk.md: defaults (1 queue, 1024 + 1024 descriptors) are 2176 mbufs
        assert_eq!(pool_mbufs(1, 1024, 1024), 2176);
        assert_eq!(pool_mbufs(2, 512, 256), 2 * 512 + 256 + 2 * 32 * 3);
    }

    fn cfg(ports: &str) -> Config {
        let t = format!(
            "[management]\nsocket = \"/tmp/x.sock\"\n{ports}\n[dpdk]\neal_args = [\"--no-pci\"]\n"
        );
        Config::parse_rules(Path::new("s.toml"), &t).unwrap()
    }

    #[test]
    fn estimate_per_switch() {
        let page = 2u64 << 20;
        let pages = |ports: &str| switch_hugepage_bytes(&cfg(ports)).div_ceil(page);
        let dev = |i: u32, extra: &str| {
            format!("[[port]]\nbackend = \"dpdk\"\ndevice = \"net_af_packet{i}\"\n{extra}")
        };
        // the measurements of switch_hugepage_bytes's table: never below what was used
        assert_eq!(pages(&dev(0, "")), 6);
        assert_eq!(pages(&dev(0, "rx_desc = 16384\n")), 23);
        assert_eq!(pages(&dev(0, "rx_desc = 16384\nqueues = 4\n")), 81);
        assert_eq!(pages(&(0..4).map(|i| dev(i, "")).collect::<String>()), 16);
        // per port, other backends not counted
        let two = cfg(&format!(
            "{}{}[[port]]\nbackend = \"afpacket\"\ninterface = \"v2\"\n",
            dev(0, ""),
            dev(1, "queues = 2\nrx_desc = 512\n")
        ));
        assert_eq!(
            switch_hugepage_bytes(&two),
            EAL_BASE_BYTES + port_hugepage_bytes(1, 1024, 1024) + port_hugepage_bytes(2, 512, 1024)
        );
        assert_eq!(
            port_hugepage_bytes(1, 1024, 1024),
            2176 * MBUF_BYTES + 4096 * 8 + PORT_BYTES + QUEUE_BYTES
        );
        let none = Config::parse(
            Path::new("s.toml"),
            "[management]\nsocket = \"/tmp/x.sock\"\n[[port]]\nbackend = \"afpacket\"\ninterface = \"v0\"\n",
        )
        .unwrap();
        assert_eq!(switch_hugepage_bytes(&none), 0);
    }

    /// A stand-in `canopy-switch` that answers `check-config` with `body` (sh).
    fn fake_switch(dir: &Path, body: &str) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join("canopy-switch");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn the_switch_binary_is_asked_and_its_refusal_passed_on() {
        let dir = std::env::temp_dir().join(format!("fdk-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // it gets `check-config --config FILE` with the text, and the file is gone after
        let ok = fake_switch(
            &dir,
            "[ \"$1 $2\" = \"check-config --config\" ] && grep -q net_af_packet7 \"$3\" && echo \"$3\" > \"$(dirname \"$0\")/seen\"",
        );
        check_switch_binary(&ok, "device = \"net_af_packet7\"\n", "fdkt").unwrap();
        let seen = std::fs::read_to_string(dir.join("seen")).unwrap();
        assert!(!Path::new(seen.trim()).exists(), "{seen}");
        // a build without the feature: exit 2 and its message, file name replaced
        let no = fake_switch(
            &dir,
            "echo \"canopy-switch: $3: port[1].backend: \\\"dpdk\\\": this canopy-switch was built without the \\`dpdk\\` feature\" >&2; exit 2",
        );
        let e = check_switch_binary(&no, "x = 1\n", "fdkt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("refuses the dpdk ports"), "{e}");
        assert!(e.contains("exit status: 2"), "{e}");
        assert!(
            e.contains("canopy-switch: the generated configuration: port[1].backend: \"dpdk\": this canopy-switch was built without the `dpdk` feature"),
            "{e}"
        );
        // a binary that is not there
        let e = check_switch_binary(&dir.join("nope"), "x = 1\n", "fdkt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot run"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn too_few_free_pages_is_refused_with_the_fix() {
        let page = 2u64 << 20;
        let need = vec![
            ("edge-p0-e0".to_string(), 14 * page),
            ("edge-p1-e0".to_string(), 13 * page + 1),
        ];
        // 28 pages needed, 100 free
        assert!(check_hugepages(&need, MEMINFO).is_ok());
        let short = MEMINFO.replace("HugePages_Free:      100", "HugePages_Free:      27");
        let e = check_hugepages(&need, &short).unwrap_err().to_string();
        assert!(e.contains("need about 28 huge pages of 2048 kB"), "{e}");
        assert!(e.contains("edge-p0-e0 14, edge-p1-e0 14"), "{e}");
        assert!(e.contains("HugePages_Free 27"), "{e}");
        // one page short of 512: ask for 513
        assert!(
            e.contains("echo 513 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"),
            "{e}"
        );
        // no huge pages at all (no fields: a kernel without hugetlbfs)
        let e = check_hugepages(&need, "MemTotal: 1 kB\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("HugePages_Free 0"), "{e}");
        // nothing on dpdk: nothing needed
        assert!(check_hugepages(&[], "").is_ok());
        assert!(check_hugepages(&[("x".into(), 0)], "").is_ok());
    }
}
