//! `/proc/meminfo`: the huge pages DPDK programs take (the fabric's `dpdk` ports, the
//! vethbench's testpmd and canopy on `dpdk`).

/// `(HugePages_Free, Hugepagesize in bytes)` of a `/proc/meminfo` text.
pub fn hugepages(meminfo: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    Some((field("HugePages_Free")?, field("Hugepagesize")? * 1024))
}

/// This machine's `/proc/meminfo` (empty when it cannot be read).
pub fn read() -> String {
    std::fs::read_to_string("/proc/meminfo").unwrap_or_default()
}

/// Free huge pages on this machine (0 when unknown).
pub fn free_hugepages() -> u64 {
    hugepages(&read()).map_or(0, |(free, _)| free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_fields() {
        let m = "MemTotal:        8000000 kB\nHugePages_Total:     512\nHugePages_Free:      100\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n";
        assert_eq!(hugepages(m), Some((100, 2 << 20)));
        assert_eq!(hugepages("MemTotal: 5 kB\n"), None);
        assert_eq!(
            hugepages("HugePages_Free: 3\nHugepagesize: 1048576 kB\n"),
            Some((3, 1 << 30))
        );
    }
}
