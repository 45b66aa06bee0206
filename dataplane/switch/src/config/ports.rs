//! `[[port]]`: each port checked against its backend (the keys of other backends are
//! refused, by name), and the list as a whole (a port count the switch can address,
//! a port for every worker, one port per interface or device).

use super::parse::{bad, Refusal};
use super::{
    BackendName, PortSection, PortSpec, TpacketName, XdpModeName, DEFAULT_DPDK_DESC,
    DEFAULT_MEM_CAPACITY, DPDK_DESC_RANGE, MAX_DPDK_DEVICE, MAX_DPDK_QUEUES, MAX_RING,
};
use canopy_dataplane::port::afpacket::{AfPacketConfig, TpacketVersion};
use canopy_dataplane::port::afxdp::{AfXdpConfig, XdpMode, MAX_QUEUES};

/// The `[[port]]` list, validated: ports in port-number order.
pub(super) fn ports(
    raw: &[PortSection],
    workers: usize,
    any_build: bool,
) -> Result<Vec<PortSpec>, Refusal> {
    if raw.is_empty() {
        return bad(
            "port",
            "no [[port]] entries: a switch needs at least one port",
        );
    }
    if raw.len() > usize::from(u16::MAX) {
        return bad("port", format!("{} ports is too many", raw.len()));
    }
    if workers > raw.len() {
        return bad(
            "switch.workers",
            format!(
                "{workers} workers but only {} ports: worker i owns port i mod workers, so a worker would have no port",
                raw.len()
            ),
        );
    }
    let mut ports = Vec::with_capacity(raw.len());
    for (i, p) in raw.iter().enumerate() {
        let spec = port(p, i, any_build)?;
        // names must be unique: a switch port is one interface (to share its RX
        // among workers, give it `fanout`; the switch opens one socket per worker)
        if let Some(j) = ports
            .iter()
            .position(|q: &PortSpec| q.name() == spec.name())
        {
            return bad(
                format!("port[{i}]"),
                format!(
                    "{:?} is already port[{j}] (one interface is one port; to share its RX among workers set `fanout` (afpacket) or `queues` (afxdp, dpdk) on it)",
                    spec.name()
                ),
            );
        }
        ports.push(spec);
    }
    Ok(ports)
}

/// `port[i].k`.
fn key(i: usize, k: &str) -> String {
    format!("port[{i}].{k}")
}

/// A key and whether the port sets it.
type SetKey = (&'static str, bool);

/// The keys of `[[port]]` that belong to one backend, each with whether it is set, in
/// the order an error names the first set one.
struct BackendKeys {
    afpacket: [SetKey; 3],
    afxdp: [SetKey; 8],
    dpdk: [SetKey; 3],
    mem: [SetKey; 2],
}

impl BackendKeys {
    fn of(p: &PortSection) -> BackendKeys {
        BackendKeys {
            afpacket: [
                ("tpacket", p.tpacket.is_some()),
                ("fanout", p.fanout.is_some()),
                ("qdisc_bypass", p.qdisc_bypass.is_some()),
            ],
            afxdp: [
                ("queue", p.queue.is_some()),
                ("queues", p.queues.is_some()),
                ("mode", p.mode.is_some()),
                ("frame_size", p.frame_size.is_some()),
                ("rx_ring", p.rx_ring.is_some()),
                ("tx_ring", p.tx_ring.is_some()),
                ("fill_ring", p.fill_ring.is_some()),
                ("completion_ring", p.completion_ring.is_some()),
            ],
            dpdk: [
                ("device", p.device.is_some()),
                ("rx_desc", p.rx_desc.is_some()),
                ("tx_desc", p.tx_desc.is_some()),
            ],
            mem: [
                ("name", p.name.is_some()),
                ("capacity", p.capacity.is_some()),
            ],
        }
    }
}

/// Refuse the first of `keys` that port `i` sets: it `applies only to {what}`.
fn only_for<'a>(
    i: usize,
    keys: impl IntoIterator<Item = &'a SetKey>,
    what: &str,
) -> Result<(), Refusal> {
    match keys.into_iter().find(|(_, set)| *set) {
        Some((k, _)) => bad(key(i, k), format!("applies only to {what}")),
        None => Ok(()),
    }
}

/// Port `i`, validated against its backend.
fn port(p: &PortSection, i: usize, any_build: bool) -> Result<PortSpec, Refusal> {
    let keys = BackendKeys::of(p);
    match p.backend {
        BackendName::Afpacket => afpacket_port(p, i, &keys),
        BackendName::Afxdp => afxdp_port(p, i, &keys),
        BackendName::Dpdk => dpdk_port(p, i, &keys, any_build),
        BackendName::Mem => mem_port(p, i, &keys),
    }
}

/// The interface of port `i` (backend `backend`): set, a valid name, and no `name`.
fn interface(p: &PortSection, i: usize, backend: &str) -> Result<String, Refusal> {
    if p.name.is_some() {
        return bad(
            key(i, "name"),
            format!("an {backend} port is named by `interface`; `name` is for mem ports"),
        );
    }
    let Some(ifname) = &p.interface else {
        return bad(
            key(i, "interface"),
            format!("missing: backend \"{backend}\" needs the interface name"),
        );
    };
    if ifname.is_empty()
        || ifname.len() > 15
        || ifname
            .chars()
            .any(|c| c == '/' || c == '\0' || c.is_whitespace())
    {
        return bad(
            key(i, "interface"),
            format!("{ifname:?} is not an interface name (1 to 15 bytes, no '/', NUL or spaces)"),
        );
    }
    Ok(ifname.clone())
}

/// A `backend = "afpacket"` port.
fn afpacket_port(p: &PortSection, i: usize, keys: &BackendKeys) -> Result<PortSpec, Refusal> {
    let ifname = interface(p, i, "afpacket")?;
    only_for(i, &keys.mem, "mem ports")?;
    only_for(i, &keys.afxdp, "afxdp ports")?;
    only_for(i, &keys.dpdk, "dpdk ports")?;
    let version = match p.tpacket.unwrap_or(TpacketName::V2) {
        TpacketName::V2 => TpacketVersion::V2,
        TpacketName::V3 => TpacketVersion::V3,
    };
    let cfg = AfPacketConfig {
        version,
        fanout: p.fanout,
        qdisc_bypass: p.qdisc_bypass.unwrap_or(true),
        ..AfPacketConfig::default()
    };
    if let Err(e) = cfg.validate() {
        return bad(format!("port[{i}]"), format!("ring geometry: {e}"));
    }
    Ok(PortSpec::AfPacket {
        interface: ifname,
        cfg,
    })
}

/// A `backend = "afxdp"` port.
fn afxdp_port(p: &PortSection, i: usize, keys: &BackendKeys) -> Result<PortSpec, Refusal> {
    let ifname = interface(p, i, "afxdp")?;
    only_for(i, &keys.mem, "mem ports")?;
    only_for(i, &keys.afpacket, "afpacket ports")?;
    only_for(i, &keys.dpdk, "dpdk ports")?;
    let d = AfXdpConfig::default();
    let cfg = AfXdpConfig {
        queue: p.queue.unwrap_or(0),
        mode: match p.mode.unwrap_or(XdpModeName::Auto) {
            XdpModeName::Auto => XdpMode::Auto,
            XdpModeName::Zerocopy => XdpMode::ZeroCopy,
            XdpModeName::Copy => XdpMode::Copy,
            XdpModeName::Skb => XdpMode::Skb,
        },
        frame_size: p.frame_size.unwrap_or(d.frame_size),
        rx_ring: p.rx_ring.unwrap_or(d.rx_ring),
        tx_ring: p.tx_ring.unwrap_or(d.tx_ring),
        fill_ring: p.fill_ring.unwrap_or(d.fill_ring),
        comp_ring: p.completion_ring.unwrap_or(d.comp_ring),
    };
    let queues = p.queues.unwrap_or(1);
    if queues == 0 || u64::from(cfg.queue) + u64::from(queues) > u64::from(MAX_QUEUES) {
        return bad(
            key(i, "queues"),
            format!(
                "{queues} queues from queue {} is not in 1..={} (queues 0..{MAX_QUEUES})",
                cfg.queue,
                MAX_QUEUES.saturating_sub(cfg.queue)
            ),
        );
    }
    if let Err(e) = cfg.validate() {
        return bad(format!("port[{i}]"), format!("afxdp: {e}"));
    }
    Ok(PortSpec::AfXdp {
        interface: ifname,
        cfg,
        queues,
    })
}

/// A `backend = "dpdk"` port (refused in a build without the `dpdk` feature unless
/// `any_build`).
fn dpdk_port(
    p: &PortSection,
    i: usize,
    keys: &BackendKeys,
    any_build: bool,
) -> Result<PortSpec, Refusal> {
    if !cfg!(feature = "dpdk") && !any_build {
        return bad(
            key(i, "backend"),
            "\"dpdk\": this canopy-switch was built without the `dpdk` feature; build it with `cargo build --release -p canopy-switch --features dpdk` (needs Debian's libdpdk-dev, pkg-config and libclang-dev; see docs/dpdk.md)",
        );
    }
    only_for(i, &keys.afpacket, "afpacket ports")?;
    only_for(i, &keys.mem, "mem ports")?;
    if p.interface.is_some() {
        return bad(
            key(i, "interface"),
            "a dpdk port is named by `device` (the --vdev name such as net_af_packet0, or a PCI address); the interface goes into its --vdev in [dpdk] eal_args",
        );
    }
    // `queues` is a dpdk key as well
    only_for(
        i,
        keys.afxdp.iter().filter(|(k, _)| *k != "queues"),
        "afxdp ports",
    )?;
    let Some(device) = p.device.clone() else {
        return bad(
            key(i, "device"),
            "missing: backend \"dpdk\" needs the device name (a --vdev name such as net_af_packet0, or a PCI address such as 0000:03:00.0)",
        );
    };
    if device.is_empty()
        || device.len() > MAX_DPDK_DEVICE
        || device
            .chars()
            .any(|c| c == ',' || c == '\0' || c.is_whitespace())
    {
        return bad(
            key(i, "device"),
            format!("{device:?} is not a DPDK device name (1 to {MAX_DPDK_DEVICE} bytes, no ',', NUL or spaces; the device's arguments go into its --vdev)"),
        );
    }
    let queues = p.queues.unwrap_or(1);
    if queues == 0 || queues > MAX_DPDK_QUEUES {
        return bad(
            key(i, "queues"),
            format!("{queues} is not in 1..={MAX_DPDK_QUEUES}"),
        );
    }
    let (lo, hi) = DPDK_DESC_RANGE;
    let rx_desc = p.rx_desc.unwrap_or(DEFAULT_DPDK_DESC);
    let tx_desc = p.tx_desc.unwrap_or(DEFAULT_DPDK_DESC);
    for (k, v) in [("rx_desc", rx_desc), ("tx_desc", tx_desc)] {
        if !(lo..=hi).contains(&v) || !v.is_power_of_two() {
            return bad(
                key(i, k),
                format!("{v} is not a power of two in {lo}..={hi}"),
            );
        }
    }
    Ok(PortSpec::Dpdk {
        device,
        queues,
        rx_desc,
        tx_desc,
    })
}

/// A `backend = "mem"` port.
fn mem_port(p: &PortSection, i: usize, keys: &BackendKeys) -> Result<PortSpec, Refusal> {
    let interface = ("interface", p.interface.is_some());
    only_for(
        i,
        [&interface]
            .into_iter()
            .chain(&keys.afpacket)
            .chain(&keys.afxdp)
            .chain(&keys.dpdk),
        "afpacket, afxdp or dpdk ports",
    )?;
    let name = p.name.clone().unwrap_or_else(|| format!("m{i}"));
    if name.is_empty() || name.len() > 64 {
        return bad(key(i, "name"), "must be 1 to 64 bytes");
    }
    let capacity = p.capacity.unwrap_or(DEFAULT_MEM_CAPACITY);
    if capacity == 0 || capacity > MAX_RING {
        return bad(
            key(i, "capacity"),
            format!("{capacity} is not in 1..={MAX_RING}"),
        );
    }
    Ok(PortSpec::Mem { name, capacity })
}
