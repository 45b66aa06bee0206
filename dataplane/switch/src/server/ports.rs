//! Opening the configured ports: AF_PACKET (with its fanout replicas), AF_XDP (a socket
//! per queue), DPDK (EAL first, once) and in-process `mem` ports.

use crate::config::{Config, PortSpec};
use anyhow::{Context, Result};
use canopy_dataplane::engine::{mem, Port};
use canopy_dataplane::port::afpacket::AfPacketPort;
use canopy_dataplane::port::afxdp::{AfXdpConfig, AfXdpPort, BindMode};
use std::sync::Mutex;
use tracing::{info, warn};

/// Ports opened from a configuration.
pub struct OpenPorts {
    /// One per switch port, in port order.
    pub ports: Vec<Box<dyn Port>>,
    /// Receive-only replicas `(port, socket)`: an AF_PACKET port with `fanout` gets one
    /// more socket in its fanout group per extra worker, so every worker shares its RX.
    pub replicas: Vec<(u16, Box<dyn Port>)>,
    /// The far ends of `mem` ports (None for other backends).
    pub far: Vec<Option<Mutex<mem::MemPort>>>,
    /// How each port came up, as `health` reports it.
    pub labels: Vec<PortLabel>,
}

/// How a port came up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortLabel {
    /// `afpacket`, `mem`, `dpdk`, or for AF_XDP the mode obtained: `afxdp/zerocopy`,
    /// `afxdp/copy`, `afxdp/skb`.
    pub backend: &'static str,
    /// Why it runs in a lesser mode than it asked for ([`AfXdpPort::fallback`]).
    pub note: Option<String>,
}

/// The `health` backend label of an AF_XDP port in `mode`.
pub fn afxdp_label(mode: BindMode) -> &'static str {
    match mode {
        BindMode::ZeroCopy => "afxdp/zerocopy",
        BindMode::Copy => "afxdp/copy",
        BindMode::Skb => "afxdp/skb",
    }
}

/// Open every configured port; `mem` ports give their far ends back.
pub fn open_ports(cfg: &Config) -> Result<OpenPorts> {
    let mut ports: Vec<Box<dyn Port>> = Vec::with_capacity(cfg.ports.len());
    let mut replicas: Vec<(u16, Box<dyn Port>)> = Vec::new();
    let mut far = Vec::with_capacity(cfg.ports.len());
    let mut labels = Vec::with_capacity(cfg.ports.len());
    #[cfg(feature = "dpdk")]
    let mut eal: Option<std::sync::Arc<canopy_dataplane::port::dpdk::Eal>> = None;
    for (i, p) in cfg.ports.iter().enumerate() {
        labels.push(PortLabel {
            backend: p.backend(),
            note: None,
        });
        match p {
            PortSpec::AfPacket { interface, cfg: c } => {
                let port = AfPacketPort::open(interface, c.clone())
                    .with_context(|| format!("port[{i}]: cannot open interface {interface}"))?;
                info!(
                    port = i,
                    interface = %interface,
                    version = ?c.version,
                    mtu = Port::mtu(&port),
                    link = Port::link_up(&port),
                    "afpacket port open"
                );
                ports.push(Box::new(port));
                far.push(None);
                if c.fanout.is_some() {
                    for r in 1..cfg.engine.workers {
                        let rep = AfPacketPort::open(interface, c.clone()).with_context(|| {
                            format!("port[{i}]: cannot open fanout socket {r} on {interface}")
                        })?;
                        replicas.push((i as u16, Box::new(rep)));
                    }
                }
            }
            PortSpec::AfXdp {
                interface,
                cfg: c,
                queues,
            } => {
                let open = |q: u32| {
                    let qc = AfXdpConfig {
                        queue: c.queue + q,
                        ..c.clone()
                    };
                    AfXdpPort::open(interface, qc).with_context(|| {
                        format!(
                            "port[{i}]: cannot open AF_XDP on interface {interface} queue {}",
                            c.queue + q
                        )
                    })
                };
                let port = open(0)?;
                let mode = port.mode();
                if let Some(l) = labels.last_mut() {
                    l.backend = afxdp_label(mode);
                    l.note = port.fallback().map(str::to_string);
                }
                if let Some(why) = port.fallback() {
                    warn!(port = i, interface = %interface, "afxdp mode auto fell back to generic XDP: {why}");
                }
                info!(
                    port = i,
                    interface = %interface,
                    queue = c.queue,
                    queues,
                    asked = c.mode.name(),
                    mode = mode.as_str(),
                    mtu = Port::mtu(&port),
                    link = Port::link_up(&port),
                    "afxdp port open"
                );
                ports.push(Box::new(port));
                far.push(None);
                for q in 1..*queues {
                    let rep = open(q)?;
                    if rep.mode() != mode {
                        warn!(
                            port = i,
                            queue = c.queue + q,
                            mode = rep.mode().as_str(),
                            "afxdp queue bound in another mode than the first"
                        );
                    }
                    replicas.push((i as u16, Box::new(rep)));
                }
            }
            PortSpec::Dpdk {
                device,
                queues,
                rx_desc,
                tx_desc,
            } => {
                #[cfg(feature = "dpdk")]
                {
                    let (port, reps) =
                        open_dpdk(&mut eal, cfg, i, device, *queues, *rx_desc, *tx_desc)?;
                    ports.push(port);
                    replicas.extend(reps);
                    far.push(None);
                }
                #[cfg(not(feature = "dpdk"))]
                {
                    // Config::parse refuses dpdk ports in a build without the feature
                    let _ = (queues, rx_desc, tx_desc);
                    anyhow::bail!("port[{i}]: device {device}: canopy-switch was built without the `dpdk` feature");
                }
            }
            PortSpec::Mem { name, capacity } => {
                let (inner, outer) = mem::pair(name, &format!("{name}-far"), *capacity);
                info!(port = i, name = %name, capacity, "mem port ready");
                ports.push(Box::new(inner));
                far.push(Some(Mutex::new(outer)));
            }
        }
    }
    Ok(OpenPorts {
        ports,
        replicas,
        far,
        labels,
    })
}

/// A primary port and its receive-only replicas.
#[cfg(feature = "dpdk")]
type PortAndReplicas = (Box<dyn Port>, Vec<(u16, Box<dyn Port>)>);

/// Open DPDK device `device` as port `i` (EAL first, once, with `[dpdk] eal_args`): the
/// queue-0 handle is the port, the other queues are receive-only replicas.
#[cfg(feature = "dpdk")]
fn open_dpdk(
    eal: &mut Option<std::sync::Arc<canopy_dataplane::port::dpdk::Eal>>,
    cfg: &Config,
    i: usize,
    device: &str,
    queues: u32,
    rx_desc: u16,
    tx_desc: u16,
) -> Result<PortAndReplicas> {
    use canopy_dataplane::port::dpdk::{self, DpdkConfig, Eal};
    let e = match eal {
        Some(e) => e.clone(),
        None => {
            let args = cfg.dpdk.clone().unwrap_or_default().eal_args;
            let e = Eal::init(&args).with_context(|| {
                format!("port[{i}] (dpdk device {device}): cannot start DPDK's EAL")
            })?;
            info!(args = ?e.args(), devices = ?e.devices(), "dpdk eal ready");
            *eal = Some(e.clone());
            e
        }
    };
    let dc = DpdkConfig {
        queues: u16::try_from(queues).unwrap_or(u16::MAX),
        rx_desc,
        tx_desc,
    };
    let mut handles = dpdk::open(&e, device, &dc)
        .with_context(|| format!("port[{i}]: cannot open DPDK device {device}"))?
        .into_iter();
    let Some(first) = handles.next() else {
        anyhow::bail!("port[{i}]: DPDK device {device} gave no queue");
    };
    info!(
        port = i,
        device = %device,
        driver = first.driver(),
        queues,
        rx_desc,
        tx_desc,
        mbufs = dpdk::pool_size(&dc),
        mtu = Port::mtu(&first),
        link = Port::link_up(&first),
        "dpdk port open"
    );
    let reps = handles
        .map(|h| (i as u16, Box::new(h) as Box<dyn Port>))
        .collect();
    Ok((Box::new(first), reps))
}
