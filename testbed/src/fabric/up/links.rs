//! `up`'s step 2: the links of this machine's part (veth pairs, VXLAN devices, moved-in
//! NICs, loopback veths on unconnected ports), then bringing them up and waiting for them.

use super::{Builder, Plan};
use crate::error::{Result, TestbedError};
use crate::fabric::desc::{Desc, LinkKind, Node};
use crate::fabric::state::Created;
use crate::os::netns::{self, ip};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The links `up` creates on this machine, before they are brought up.
#[derive(Default)]
pub(super) struct Links {
    /// `ip link add` lines of the veth pairs (run in batches).
    add_lines: Vec<String>,
    /// Both ends of every veth (their offloads are turned off).
    veth_ends: Vec<(String, String)>,
    /// Interfaces per namespace to bring up and wait for.
    wait: BTreeMap<String, Vec<String>>,
    /// NICs per namespace: brought up but not waited for (their carrier comes when the
    /// far machine's part is up).
    nic_up: BTreeMap<String, Vec<String>>,
    /// A VM fabric's taps (in the hypervisor namespace; their carrier comes with QEMU),
    /// and whether each is a management NIC's.
    taps: Vec<(String, bool)>,
    /// A VM fabric's wires between two interfaces of the hypervisor namespace.
    wires: Vec<(String, String)>,
}

impl Builder<'_> {
    /// Step 2: links: veth pairs between local ends (added later in batches), a VXLAN device
    /// or a moved-in NIC at a local end of a cross-machine link, and a veth looped back
    /// into the switch's namespace on every unconnected switch port.
    pub(super) fn links(&mut self, plan: &Plan) -> Result<Links> {
        let desc = self.desc;
        if desc.in_vms() {
            return Ok(self.vm_links());
        }
        let machine = self.state.machine.clone();
        let mtu = desc.raw.mtu.get_ref().to_string();
        let is_local = |n: Node| desc.machine_of(n) == machine;
        let mut out = Links::default();
        for l in &desc.links {
            let (la, lb) = (is_local(l.a.0), is_local(l.b.0));
            if !la && !lb {
                continue;
            }
            let (nsa, ia) = (desc.netns(l.a.0), Desc::ifname(l.a.0, l.a.1));
            let (nsb, ib) = (desc.netns(l.b.0), Desc::ifname(l.b.0, l.b.1));
            if la && lb {
                out.add_lines.push(format!("link add {ia} netns {nsa} mtu {mtu} type veth peer name {ib} netns {nsb} mtu {mtu}"));
                out.veth_ends.push((nsa.clone(), ia.clone()));
                out.veth_ends.push((nsb.clone(), ib.clone()));
                out.wait.entry(nsa).or_default().push(ia);
                out.wait.entry(nsb).or_default().push(ib);
                self.sum.veths += 1;
                continue;
            }
            let end = if la { l.a } else { l.b };
            let (ns, ifn) = (desc.netns(end.0), Desc::ifname(end.0, end.1));
            match desc.end_kind(l, end) {
                LinkKind::Veth => {
                    return Err(self.err(format!(
                        "internal: link {} has one local end but is a veth",
                        l.id
                    )));
                }
                LinkKind::Vxlan { vni, remote } => {
                    self.vxlan(plan, &ns, &ifn, vni, &remote, &mtu)?;
                    out.wait.entry(ns.clone()).or_default().push(ifn);
                    self.sum.vxlans += 1;
                }
                LinkKind::Nic { interface } => {
                    self.nic(plan, &ns, &ifn, &interface, &mtu)?;
                    out.nic_up.entry(ns.clone()).or_default().push(ifn);
                    self.sum.nics += 1;
                }
            }
        }
        // unconnected switch ports: a veth whose peer stays in the switch's namespace
        for &s in &plan.local_sw {
            for (p, port) in desc.topo.switches[s as usize].ports.iter().enumerate() {
                if port.peer == canopy_control::topology::Peer::None {
                    let ns = desc.netns(Node::Switch(s));
                    let ifn = Desc::ifname(Node::Switch(s), p as u16);
                    let peer = format!("s{s}u{p}");
                    out.add_lines.push(format!("link add {ifn} netns {ns} mtu {mtu} type veth peer name {peer} netns {ns} mtu {mtu}"));
                    out.wait.entry(ns.clone()).or_default().push(ifn.clone());
                    out.wait.entry(ns.clone()).or_default().push(peer.clone());
                    out.veth_ends.push((ns.clone(), ifn));
                    out.veth_ends.push((ns, peer));
                }
            }
        }
        Ok(out)
    }

    /// The links of a VM fabric: a tap per switch port (its guest's NIC), a veth from
    /// each host's namespace into the hypervisor namespace, and a wire between the two
    /// hypervisor-side interfaces of every link. Unconnected switch ports keep a tap of
    /// their own, wired to nothing.
    fn vm_links(&mut self) -> Links {
        let desc = self.desc;
        let hv = desc.hypervisor_netns();
        let mtu = desc.raw.mtu.get_ref();
        let mut out = Links::default();
        for (s, sw) in desc.topo.switches.iter().enumerate() {
            out.taps.push((Desc::vm_mgmt_tap(s as u32), true));
            for p in 0..sw.ports.len() as u16 {
                if desc.vm_dgram_peer(s as u32, p).is_none() {
                    out.taps
                        .push((Desc::vm_end(Node::Switch(s as u32), p), false));
                }
            }
        }
        for l in &desc.links {
            if let (Node::Switch(s), p) = l.a {
                if desc.vm_dgram_peer(s, p).is_some() {
                    // QEMU carries it between the two guests' sockets
                    continue;
                }
            }
            for end in [l.a, l.b] {
                if let Node::Host(_) = end.0 {
                    let (ns, ifn) = (desc.netns(end.0), Desc::ifname(end.0, end.1));
                    let side = Desc::vm_end(end.0, end.1);
                    out.add_lines.push(format!("link add {ifn} netns {ns} mtu {mtu} type veth peer name {side} netns {hv} mtu {mtu}"));
                    out.veth_ends.push((ns.clone(), ifn.clone()));
                    out.veth_ends.push((hv.clone(), side.clone()));
                    out.wait.entry(ns).or_default().push(ifn);
                    out.wait.entry(hv.clone()).or_default().push(side);
                    self.sum.veths += 1;
                }
            }
            out.wires
                .push((Desc::vm_end(l.a.0, l.a.1), Desc::vm_end(l.b.0, l.b.1)));
        }
        out
    }

    /// A VXLAN device `ifn` in `ns` towards machine `remote`, its sockets in the
    /// underlay namespace when the machine has one.
    fn vxlan(
        &self,
        plan: &Plan,
        ns: &str,
        ifn: &str,
        vni: u32,
        remote: &str,
        mtu: &str,
    ) -> Result<()> {
        let machine = &self.state.machine;
        let local = plan
            .local_addr
            .as_deref()
            .ok_or_else(|| self.err(format!("machine {machine:?} has no underlay address")))?;
        let r = self
            .desc
            .machine(remote)
            .map(|x| x.underlay.get_ref().clone())
            .unwrap_or_default();
        let mut args: Vec<String> = vec![];
        if let Some(u) = &plan.underlay {
            args.extend(["-n".into(), u.to_string()]);
        }
        args.extend(
            format!("link add {ifn} netns {ns} mtu {mtu} type vxlan id {vni} local {local} remote {r} dstport 4789 nolearning")
                .split(' ')
                .map(str::to_string),
        );
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        ip(&a)?;
        Ok(())
    }

    /// Move NIC `interface` into `ns` as `ifn` (recorded first, so `down` moves it back).
    fn nic(&mut self, plan: &Plan, ns: &str, ifn: &str, interface: &str, mtu: &str) -> Result<()> {
        self.record(Created::Nic {
            netns: ns.to_string(),
            ifname: ifn.to_string(),
            original: interface.to_string(),
            from_netns: plan.underlay.clone(),
        })?;
        let mut a: Vec<&str> = vec![];
        if let Some(u) = &plan.underlay {
            a.extend(["-n", u]);
        }
        a.extend(["link", "set", "dev", interface, "netns", ns]);
        ip(&a)?;
        ip(&[
            "-n", ns, "link", "set", "dev", interface, "name", ifn, "mtu", mtu,
        ])?;
        Ok(())
    }

    /// Add the veths, turn their offloads off (unless `offloads = "keep"`), bring every
    /// link up and wait until the veths and VXLAN devices are.
    pub(super) fn bring_up(&mut self, links: Links, progress: &dyn Fn(&str)) -> Result<()> {
        let s = &self.sum;
        progress(&format!(
            "creating {} veth pairs, {} vxlan, {} nic",
            s.veths, s.vxlans, s.nics
        ));
        for chunk in links.add_lines.chunks(64) {
            self.interrupted()?;
            netns::ip_batch(None, chunk)?;
        }
        self.sum.offloads_off = if self.desc.raw.offloads.get_ref() == "off" {
            progress(&format!(
                "turning offloads off on {} veth ends",
                links.veth_ends.len()
            ));
            offloads_off(&links.veth_ends)
        } else {
            false
        };
        for (ns, devs) in links.wait.iter().chain(links.nic_up.iter()) {
            let lines: Vec<String> = devs
                .iter()
                .map(|d| format!("link set dev {d} up"))
                .collect();
            netns::ip_batch(Some(ns), &lines)?;
        }
        if !links.taps.is_empty() || !links.wires.is_empty() {
            self.taps_and_wires(&links, progress)?;
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for (ns, devs) in &links.wait {
            loop {
                let down = down_links(ns, devs)?;
                if down.is_empty() {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(
                        self.err(format!("links never came up in {ns}: {}", down.join(", ")))
                    );
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// A VM fabric's taps (`ip -batch`) and wires (`tc` on each end).
    fn taps_and_wires(&mut self, links: &Links, progress: &dyn Fn(&str)) -> Result<()> {
        let hv = self.desc.hypervisor_netns();
        let mtu = self.desc.raw.mtu.get_ref();
        progress(&format!(
            "creating {} taps and {} wires in {hv}",
            links.taps.len(),
            links.wires.len()
        ));
        let lines: Vec<String> = links
            .taps
            .iter()
            .flat_map(|(t, mgmt)| crate::vm::guest::tap_lines(t, *mtu, *mgmt))
            .collect();
        for chunk in lines.chunks(64) {
            self.interrupted()?;
            netns::ip_batch(Some(&hv), chunk)?;
        }
        for (a, b) in &links.wires {
            self.interrupted()?;
            crate::vm::guest::wire(&hv, a, b)?;
        }
        Ok(())
    }
}

/// Turn the offloads off on every veth end, four threads at a time; whether every end
/// took it (false: `ethtool` missing or refused).
fn offloads_off(ends: &[(String, String)]) -> bool {
    let workers = 4.min(ends.len().max(1));
    let chunks: Vec<Vec<(String, String)>> = (0..workers)
        .map(|w| ends.iter().skip(w).step_by(workers).cloned().collect())
        .collect();
    std::thread::scope(|sc| {
        let hs: Vec<_> = chunks
            .iter()
            .map(|c| sc.spawn(move || c.iter().all(|(ns, d)| netns::offloads_off(ns, d))))
            .collect();
        hs.into_iter().all(|h| h.join().unwrap_or(false))
    })
}

/// Interfaces of `want` in `ns` that are not operationally up.
fn down_links(ns: &str, want: &[String]) -> Result<Vec<String>> {
    let out = ip(&["-n", ns, "-j", "link", "show"])?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| TestbedError::Parse {
        what: format!("ip -n {ns} -j link show"),
        detail: e.to_string(),
    })?;
    let mut up = std::collections::HashSet::new();
    for l in v.as_array().into_iter().flatten() {
        let name = l.get("ifname").and_then(|x| x.as_str()).unwrap_or("");
        let oper = l.get("operstate").and_then(|x| x.as_str()).unwrap_or("");
        // VXLAN devices report UNKNOWN when up
        let flags_up = l
            .get("flags")
            .and_then(|f| f.as_array())
            .is_some_and(|f| f.iter().any(|x| x == "LOWER_UP"));
        if oper == "UP" || (oper == "UNKNOWN" && flags_up) {
            up.insert(name.to_string());
        }
    }
    Ok(want.iter().filter(|w| !up.contains(*w)).cloned().collect())
}
