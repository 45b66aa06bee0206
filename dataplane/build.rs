//! Build script of canopy-dataplane. Without the `dpdk` feature it does nothing (the
//! default build needs no DPDK, no C compiler, no libclang). With it: find the system
//! DPDK with `pkg-config` (`libdpdk`, Debian 12's `libdpdk-dev` 22.11), compile the C
//! shim over DPDK's static inline functions with `cc`, and generate bindings with
//! `bindgen` for the functions and types the `port::dpdk` backend uses (allowlist).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "dpdk")]
    dpdk::build();
}

#[cfg(feature = "dpdk")]
mod dpdk {
    use std::path::PathBuf;

    const SHIM_DIR: &str = "src/port/dpdk/shim";

    /// Functions bound from DPDK itself (exported, not inline), plus the shim's.
    const FUNCTIONS: &[&str] = &[
        "rte_eal_init",
        "rte_eal_cleanup",
        "rte_strerror",
        "rte_eth_dev_get_port_by_name",
        "rte_eth_dev_get_name_by_port",
        "rte_eth_find_next",
        "rte_eth_dev_info_get",
        "rte_eth_dev_configure",
        "rte_eth_rx_queue_setup",
        "rte_eth_tx_queue_setup",
        "rte_eth_dev_start",
        "rte_eth_dev_stop",
        "rte_eth_dev_close",
        "rte_eth_dev_socket_id",
        "rte_eth_dev_get_mtu",
        "rte_eth_promiscuous_enable",
        "rte_eth_stats_get",
        "rte_pktmbuf_pool_create",
        "rte_mempool_free",
        "rte_mempool_avail_count",
        "canopy_.*",
    ];

    pub fn build() {
        let lib = pkg_config::Config::new()
            .atleast_version("21.11")
            .probe("libdpdk")
            .unwrap_or_else(|e| {
                panic!(
                    "the `dpdk` feature needs the system DPDK (Debian: apt-get install libdpdk-dev pkg-config libclang-dev): {e}"
                )
            });
        let mut cflags: Vec<String> = Vec::new();
        for p in &lib.include_paths {
            cflags.push(format!("-I{}", p.display()));
        }
        // `-include rte_config.h` and `-march=...` come from pkg-config's cflags
        // (pkg_config keeps only -I/-D), so ask for them as they are
        let out = std::process::Command::new("pkg-config")
            .args(["--cflags", "libdpdk"])
            .output()
            .expect("pkg-config --cflags libdpdk");
        let raw = String::from_utf8_lossy(&out.stdout).to_string();
        let mut it = raw.split_whitespace();
        while let Some(f) = it.next() {
            if f == "-include" {
                if let Some(h) = it.next() {
                    cflags.push("-include".into());
                    cflags.push(h.into());
                }
            } else if f.starts_with("-march") || f.starts_with("-mno-") {
                cflags.push(f.into());
            }
        }

        let mut cc = cc::Build::new();
        cc.file(format!("{SHIM_DIR}/canopy_dpdk.c"))
            .include(SHIM_DIR)
            .warnings(true)
            .opt_level(2);
        for f in &cflags {
            cc.flag(f);
        }
        cc.compile("canopy_dpdk_shim");

        let mut b = bindgen::Builder::default()
            .header(format!("{SHIM_DIR}/canopy_dpdk.h"))
            .clang_args(&cflags)
            .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
            .derive_default(true)
            .layout_tests(false)
            .generate_comments(false)
            .allowlist_type("rte_eth_conf")
            .allowlist_type("rte_eth_stats")
            .allowlist_type("rte_eth_dev_info")
            .allowlist_type("rte_eth_rx_mq_mode")
            .allowlist_var("RTE_ETH_NAME_MAX_LEN")
            .allowlist_var("RTE_MAX_ETHPORTS");
        for f in FUNCTIONS {
            b = b.allowlist_function(f);
        }
        let bindings = b.generate().expect("bindgen over the DPDK headers");
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("dpdk_bindings.rs");
        bindings
            .write_to_file(&out)
            .expect("write dpdk_bindings.rs");
        println!("cargo:rerun-if-changed={SHIM_DIR}/canopy_dpdk.h");
        println!("cargo:rerun-if-changed={SHIM_DIR}/canopy_dpdk.c");
    }
}
