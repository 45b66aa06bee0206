//! [`Desc::parse`]: from the text to a validated description, every error naming the
//! file, the key and, when known, the line.

use super::ports::resolve_ports;
use super::{
    from_toml, glob, line_of, valid_name, Ctx, Desc, Link, Node, RawDesc, TrafficCheck, LOCAL,
    MAX_NODES,
};
use crate::error::{Result, TestbedError};
use canopy_control::topology::Peer;
use canopy_control::topology::Topology;
use canopy_dataplane::wire::Kind;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::Path;

impl Desc {
    /// [`Desc::parse`], plus `traffic` run on the `[traffic]` table (when present) with
    /// the topology, as part of the validation before anything is created: the hook for
    /// the traffic generator's checks (e.g. a rate this machine cannot reach). Its error
    /// `(key, what)` is reported as `traffic.<key>` of the file.
    pub fn parse_with(file: &str, text: &str, traffic: Option<TrafficCheck>) -> Result<Desc> {
        let ctx = Ctx { file, text };
        let raw: RawDesc = from_toml(&ctx, text)?;
        let name = raw.name.get_ref().clone();
        valid_name(&name).map_err(|w| ctx.err("name", Some(raw.name.span()), w.to_string()))?;
        let (topo, kind) = topology(&ctx, &raw)?;
        settings(&ctx, &raw)?;
        let ports = resolve_ports(&ctx, &raw.ports, &topo)?;
        let machines = machines(&ctx, &raw)?;
        let placement = placement(&ctx, &raw, &topo, &machines)?;
        let links = links(&topo);
        let nics = nics(&ctx, &raw, &topo, &placement, &links)?;
        let mut desc = Desc {
            file: file.to_string(),
            text: text.to_string(),
            raw,
            name,
            topo,
            kind,
            placement,
            links,
            nics,
            ports,
            daemon: false,
            bmv2: false,
            host: None,
            capture_dir: None,
        };
        desc.target_and_daemon(&ctx)?;
        desc.check_cross_machine_links(&ctx)?;
        desc.check_vm(&ctx)?;
        desc.check_capture(&ctx)?;
        desc.check_ports(&ctx)?;
        desc.resolve_host(&ctx)?;
        desc.check_traffic(traffic)?;
        Ok(desc)
    }

    /// `target` (`canopy` or `bmv2`) and `[canopyd]`: whether `up` starts the daemon, and
    /// its settings.
    fn target_and_daemon(&mut self, ctx: &Ctx) -> Result<()> {
        self.bmv2 = match self.raw.target.get_ref().as_str() {
            "canopy" => false,
            "bmv2" => true,
            t => {
                return Err(ctx.err(
                    "target",
                    Some(self.raw.target.span()),
                    format!("{t:?}: \"canopy\" or \"bmv2\""),
                ))
            }
        };
        let cd = &self.raw.canopyd;
        let switch_machines: std::collections::BTreeSet<&str> = (0..self.topo.switches.len()
            as u32)
            .map(|s| self.machine_of(Node::Switch(s)))
            .collect();
        // bmv2 under canopyd needs simple_switch_grpc (bmv2 built with PI): the
        // default when it is there
        let grpc = || {
            self.raw.bmv2.simple_switch_grpc.is_some()
                || crate::os::netns::which(crate::launch::SIMPLE_SWITCH_GRPC).is_some()
        };
        self.daemon = match &cd.enabled {
            Some(e) if *e.get_ref() && switch_machines.len() > 1 => {
                return Err(ctx.err("canopyd.enabled", Some(e.span()), format!(
                    "the testbed runs canopyd only when every switch is on one machine (these are on {}); run canopyd yourself with TCP management endpoints (docs/ops-systemd.md), or set enabled = false",
                    switch_machines.iter().copied().collect::<Vec<_>>().join(", ")
                )));
            }
            Some(e) => *e.get_ref(),
            None => switch_machines.len() <= 1 && (!self.bmv2 || grpc()),
        };
        let m = cd.metrics.get_ref();
        if m != "off" && m.parse::<std::net::SocketAddr>().is_err() {
            return Err(ctx.err(
                "canopyd.metrics",
                Some(cd.metrics.span()),
                format!("{m:?}: an IP:PORT address (e.g. 127.0.0.1:9464) or \"off\""),
            ));
        }
        if !(10..=60_000).contains(&cd.probe_interval_ms) {
            return Err(ctx.err(
                "canopyd.probe_interval_ms",
                None,
                format!("{} is outside 10..=60000", cd.probe_interval_ms),
            ));
        }
        if !(1..=100).contains(&cd.missed_probes) {
            return Err(ctx.err(
                "canopyd.missed_probes",
                None,
                format!("{} is outside 1..=100", cd.missed_probes),
            ));
        }
        Ok(())
    }

    /// `[capture]`: its directory resolved against the description's; with bmv2, only
    /// `dir` (bmv2's `--pcap` captures every port both ways as classic pcap, unbounded);
    /// not in guests, whose file system is their initramfs.
    fn check_capture(&mut self, ctx: &Ctx) -> Result<()> {
        let Some(c) = &self.raw.capture else {
            return Ok(());
        };
        if c.dir.as_os_str().is_empty() {
            return Err(ctx.err("capture.dir", None, "is empty"));
        }
        if self.raw.vm.switches {
            return Err(ctx.err(
                "capture",
                None,
                "switches in guests write to their initramfs: capture on the hypervisor's side of their links instead (tcpdump on the tap)",
            ));
        }
        if self.bmv2 {
            let only_dir = canopy_switch::config::CaptureSection {
                dir: c.dir.clone(),
                format: Default::default(),
                ports: None,
                direction: Default::default(),
                max_frames: None,
                snaplen: None,
                queue: None,
            };
            if *c != only_dir {
                return Err(ctx.err(
                    "capture",
                    None,
                    "with target = \"bmv2\" only `dir` applies: simple_switch's --pcap captures every port both ways as classic pcap, unbounded",
                ));
            }
        }
        let base = Path::new(&self.file).parent().unwrap_or(Path::new("."));
        let dir = std::path::absolute(base.join(&c.dir))
            .map_err(|e| ctx.err("capture.dir", None, format!("cannot resolve: {e}")))?;
        self.capture_dir = Some(dir);
        Ok(())
    }

    /// A cross-machine link with a NIC on one end needs one on the other, and both ends
    /// on named machines.
    fn check_cross_machine_links(&self, ctx: &Ctx) -> Result<()> {
        for l in &self.links {
            if self.machine_of(l.a.0) == self.machine_of(l.b.0) {
                continue;
            }
            let nic = |e: (Node, u16)| matches!(e.0, Node::Switch(s) if self.nics.contains_key(&(s, e.1)));
            if nic(l.a) != nic(l.b) {
                return Err(ctx.err("nic", None, format!(
                    "the link {}:{} - {}:{} crosses machines with a NIC on one end only (give both ends a [[nic]], or neither for VXLAN)",
                    self.node_name(l.a.0), l.a.1, self.node_name(l.b.0), l.b.1
                )));
            }
            for m in [self.machine_of(l.a.0), self.machine_of(l.b.0)] {
                if m == LOCAL {
                    return Err(ctx.err("place", None, format!(
                        "the link {}:{} - {}:{} crosses machines, but one end is on \"local\": with several machines, place every node on a named [[machine]]",
                        self.node_name(l.a.0), l.a.1, self.node_name(l.b.0), l.b.1
                    )));
                }
            }
        }
        Ok(())
    }

    /// The `[traffic]` table through the generator's own check, when there is one.
    fn check_traffic(&self, traffic: Option<TrafficCheck>) -> Result<()> {
        let (file, text) = (self.file.as_str(), self.text.as_str());
        if let (Some(check), Some(t)) = (traffic, &self.raw.traffic) {
            check(t, &self.topo, self.kind).map_err(|e| {
                let (key, what) = match e {
                    TestbedError::Traffic { key, detail } => (key, detail),
                    other => (String::new(), other.to_string()),
                };
                let line = text.find("[traffic]").map(|at| line_of(text, at));
                TestbedError::Desc {
                    file: file.to_string(),
                    key: if key.is_empty() {
                        "traffic".into()
                    } else {
                        format!("traffic.{key}")
                    },
                    line,
                    what,
                }
            })?;
        }
        Ok(())
    }
}

/// The topology (at most [`MAX_NODES`] nodes) and a header kind it supports.
fn topology(ctx: &Ctx, raw: &RawDesc) -> Result<(Topology, Kind)> {
    let topo = canopy_control::build_str(raw.topology.get_ref())
        .map_err(|e| ctx.err("topology", Some(raw.topology.span()), e.to_string()))?;
    let nodes = topo.switches.len() + topo.hosts.len();
    if nodes > MAX_NODES {
        return Err(ctx.err(
            "topology",
            Some(raw.topology.span()),
            format!(
                "{} switches and {} hosts: a testbed fabric has at most {MAX_NODES} (one network namespace each)",
                topo.switches.len(),
                topo.hosts.len()
            ),
        ));
    }
    let kind = Kind::from_name(raw.kind.get_ref()).ok_or_else(|| {
        ctx.err(
            "kind",
            Some(raw.kind.span()),
            format!(
                "unknown header kind {:?} (sliced, path-id, transit)",
                raw.kind.get_ref()
            ),
        )
    })?;
    canopy_control::kinds::supports(&topo, kind)
        .map_err(|e| ctx.err("kind", Some(raw.kind.span()), e.to_string()))?;
    Ok((topo, kind))
}

/// The scalar settings: `mtu`, `offloads`, `polling`, `[switch]` (by the switch's own
/// rules, and no flowlet gap under `up_policy = "per-packet"`), `health_timeout_s`.
fn settings(ctx: &Ctx, raw: &RawDesc) -> Result<()> {
    let mtu = *raw.mtu.get_ref();
    if !(68..=9000).contains(&mtu) {
        return Err(ctx.err(
            "mtu",
            Some(raw.mtu.span()),
            format!("{mtu} is outside 68..=9000"),
        ));
    }
    if !matches!(raw.offloads.get_ref().as_str(), "off" | "keep") {
        return Err(ctx.err(
            "offloads",
            Some(raw.offloads.span()),
            format!("{:?}: expected \"off\" or \"keep\"", raw.offloads.get_ref()),
        ));
    }
    if !matches!(raw.polling.get_ref().as_str(), "adaptive" | "busy") {
        return Err(ctx.err(
            "polling",
            Some(raw.polling.span()),
            format!(
                "{:?}: expected \"adaptive\" or \"busy\"",
                raw.polling.get_ref()
            ),
        ));
    }
    if raw.switch.contains_key("mode") {
        return Err(ctx.err(
            "switch.mode",
            None,
            "set the polling mode with the top-level `polling` key",
        ));
    }
    // `[switch]` by the switch's own type, read from the text: the error names the key
    // (`switch.flowlet_gap_us`) and its line
    #[derive(Deserialize)]
    struct Switch {
        #[serde(default)]
        switch: Option<canopy_switch::config::SwitchSection>,
    }
    let sw = from_toml::<Switch>(ctx, ctx.text)?
        .switch
        .unwrap_or_default();
    if raw.up_policy == super::UpPolicy::PerPacket && sw.flowlet_gap_us > 0 {
        return Err(ctx.err(
            "switch.flowlet_gap_us",
            None,
            "up_policy = \"per-packet\" has no flowlet gap (every frame chooses afresh)",
        ));
    }
    if raw.health_timeout_s == 0 || raw.health_timeout_s > 3600 {
        return Err(ctx.err("health_timeout_s", None, "must be 1..=3600"));
    }
    Ok(())
}

/// `[[machine]]`s: valid, unique names (never `local`) and underlay addresses; name to
/// index.
fn machines(ctx: &Ctx, raw: &RawDesc) -> Result<BTreeMap<String, usize>> {
    // machines
    let mut machines: BTreeMap<String, usize> = BTreeMap::new();
    for (i, m) in raw.machine.iter().enumerate() {
        let key = format!("machine[{i}].name");
        let n = m.name.get_ref();
        valid_name(n).map_err(|w| ctx.err(&key, Some(m.name.span()), w.to_string()))?;
        if n == LOCAL {
            return Err(ctx.err(
                &key,
                Some(m.name.span()),
                "\"local\" is reserved for this machine",
            ));
        }
        if let Some(j) = machines.insert(n.clone(), i) {
            return Err(ctx.err(
                &key,
                Some(m.name.span()),
                format!("machine {n:?} is named twice (also machine[{j}])"),
            ));
        }
        m.underlay.get_ref().parse::<IpAddr>().map_err(|e| {
            ctx.err(
                &format!("machine[{i}].underlay"),
                Some(m.underlay.span()),
                format!("{:?}: {e}", m.underlay.get_ref()),
            )
        })?;
    }
    Ok(machines)
}

/// `[[place]]`: the machine of every node that is not on `local`. Exact names may
/// appear once; the first matching rule wins.
fn placement(
    ctx: &Ctx,
    raw: &RawDesc,
    topo: &Topology,
    machines: &BTreeMap<String, usize>,
) -> Result<HashMap<Node, String>> {
    // placement: exact names may appear once; first matching rule wins
    let mut names: Vec<(Node, String)> = topo
        .switches
        .iter()
        .enumerate()
        .map(|(i, s)| (Node::Switch(i as u32), s.name.clone()))
        .collect();
    names.extend((0..topo.hosts.len() as u32).map(|h| (Node::Host(h), topo.host_name(h))));
    let mut placement = HashMap::new();
    let mut exact: HashMap<String, String> = HashMap::new();
    for (i, p) in raw.place.iter().enumerate() {
        let m = p.machine.get_ref();
        if m != LOCAL && !machines.contains_key(m) {
            return Err(ctx.err(
                &format!("place[{i}].machine"),
                Some(p.machine.span()),
                format!("no [[machine]] named {m:?}"),
            ));
        }
        for (j, pat) in p.nodes.iter().enumerate() {
            let key = format!("place[{i}].nodes[{j}]");
            let pat_s = pat.get_ref();
            if !pat_s.contains('*') {
                if let Some(prev) = exact.insert(pat_s.clone(), key.clone()) {
                    return Err(ctx.err(
                        &key,
                        Some(pat.span()),
                        format!("node {pat_s:?} is placed twice (also {prev})"),
                    ));
                }
            }
            let mut any = false;
            for (n, nm) in &names {
                if glob(pat_s, nm) {
                    any = true;
                    placement.entry(*n).or_insert_with(|| m.clone());
                }
            }
            if !any {
                return Err(ctx.err(
                    &key,
                    Some(pat.span()),
                    format!(
                        "no node of {} matches {pat_s:?} (switches like {}, hosts h0..h{})",
                        raw.topology.get_ref(),
                        topo.switches.first().map_or("", |s| s.name.as_str()),
                        topo.hosts.len().saturating_sub(1)
                    ),
                ));
            }
        }
    }
    Ok(placement)
}

/// Every link of the topology, in topology order (each switch-switch link once).
fn links(topo: &Topology) -> Vec<Link> {
    // links, in topology order
    let mut links = Vec::new();
    for (si, s) in topo.switches.iter().enumerate() {
        for (pi, p) in s.ports.iter().enumerate() {
            let a = (Node::Switch(si as u32), pi as u16);
            let b = match p.peer {
                Peer::None => continue,
                Peer::Switch { sw, port } => {
                    if (sw, port) < (si as u32, pi as u16) {
                        continue;
                    }
                    (Node::Switch(sw), port)
                }
                Peer::Host { host, port } => (Node::Host(host), port),
            };
            let id = links.len() as u32;
            links.push(Link { id, a, b });
        }
    }
    links
}

/// `[[nic]]`s: the switch port each real interface carries, on a link that crosses
/// machines; no port or interface wired twice.
fn nics(
    ctx: &Ctx,
    raw: &RawDesc,
    topo: &Topology,
    placement: &HashMap<Node, String>,
    links: &[Link],
) -> Result<HashMap<(u32, u16), String>> {
    let sw_index: HashMap<&str, u32> = topo
        .switches
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i as u32))
        .collect();
    // NICs
    let mut nics = HashMap::new();
    let mut nic_if: HashMap<(String, String), String> = HashMap::new();
    for (i, n) in raw.nic.iter().enumerate() {
        let key = format!("nic[{i}].port");
        let ps = n.port.get_ref();
        let (swn, pn) = ps.rsplit_once(':').ok_or_else(|| {
            ctx.err(
                &key,
                Some(n.port.span()),
                format!("{ps:?}: expected SWITCH:PORT"),
            )
        })?;
        let &sw = sw_index.get(swn).ok_or_else(|| {
            ctx.err(
                &key,
                Some(n.port.span()),
                format!("no switch named {swn:?} in {}", raw.topology.get_ref()),
            )
        })?;
        let nports = topo.switches[sw as usize].ports.len();
        let port: u16 = pn
            .parse()
            .ok()
            .filter(|&p: &u16| (p as usize) < nports)
            .ok_or_else(|| {
                ctx.err(
                    &key,
                    Some(n.port.span()),
                    format!("{pn:?} is not a port of {swn} (0..{nports})"),
                )
            })?;
        if nics
            .insert((sw, port), n.interface.get_ref().clone())
            .is_some()
        {
            return Err(ctx.err(
                &key,
                Some(n.port.span()),
                format!("port {ps} is wired twice"),
            ));
        }
        let ifn = n.interface.get_ref();
        if ifn.is_empty() || ifn.len() > 15 || ifn.contains(['/', ' ', ':']) {
            return Err(ctx.err(
                &format!("nic[{i}].interface"),
                Some(n.interface.span()),
                format!("{ifn:?} is not an interface name (1..=15 bytes)"),
            ));
        }
        let mach = placement
            .get(&Node::Switch(sw))
            .cloned()
            .unwrap_or_else(|| LOCAL.to_string());
        if let Some(prev) = nic_if.insert((mach.clone(), ifn.clone()), ps.clone()) {
            return Err(ctx.err(
                &format!("nic[{i}].interface"),
                Some(n.interface.span()),
                format!(
                    "interface {ifn:?} on machine {mach:?} is wired twice (ports {prev} and {ps})"
                ),
            ));
        }
        let link = links
            .iter()
            .find(|l| l.a == (Node::Switch(sw), port) || l.b == (Node::Switch(sw), port))
            .ok_or_else(|| {
                ctx.err(
                    &key,
                    Some(n.port.span()),
                    format!("port {ps} is not connected in the topology"),
                )
            })?;
        let m = |n: Node| placement.get(&n).map_or(LOCAL, String::as_str);
        if m(link.a.0) == m(link.b.0) {
            return Err(ctx.err(&key, Some(n.port.span()), format!("the link of port {ps} does not cross machines (both ends on {:?}); NICs carry cross-machine links only", m(link.a.0))));
        }
    }
    Ok(nics)
}
