//! The containerlab export (`docs/export.md`): a topology file (`<lab>.clab.yml`) and,
//! next to it in `canopy-<lab>/`, every switch's `canopy-switch` configuration and the
//! `wait-interfaces` script the nodes start through.
//!
//! - Every switch is a `linux` node running `canopy-switch run` from the Canopy image
//!   (`packaging/oci/build-image`; default `canopy:<version>`) on the configuration
//!   [`Desc::switch_config_table`] gives it (the one `up` writes, with `[tables]`: there
//!   is no `canopyd`, so each switch computes its own tables at start), bound read-only at
//!   `/etc/canopy/switch.toml`, its management socket at [`SWITCH_SOCKET`].
//! - Every host is a `linux` node that sleeps (default image: the same).
//! - Every link of the topology is a link with its two ends named as the testbed names
//!   them ([`Desc::ifname`]: `s<i>p<j>` on switch `i`, `h<i>p<j>` on host `i`), the names
//!   the configurations use; containerlab names a `linux` node's interface by its endpoint.
//!   An unconnected switch port is a `dummy` interface (the testbed gives it a veth looped
//!   back into the switch's namespace: both swallow what the switch sends).
//! - A description whose nodes are on several machines exports one machine's part: its
//!   nodes, the links among them, and its end of every link to another machine as a
//!   `vxlan` link with the VNI and UDP port `up` uses and the far machine's underlay address.
//!
//! containerlab starts a container before it moves the container's links in, so each
//! node's entrypoint is `wait-interfaces` ([`WAIT_SCRIPT`]), which waits until the node's
//! interfaces are there and up, turns IPv6 off on them, and then runs the node's command.

use super::ExportError;
use crate::error::Result;
#[cfg(doc)]
use crate::fabric::desc::LinkKind;
use crate::fabric::desc::{Desc, Link, Node, LOCAL};
use canopy_control::topology::Peer;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// The script every node's entrypoint runs first (`wait-interfaces TIMEOUT_S IFNAME... --
/// COMMAND...`), written next to the topology and bound into every node.
pub const WAIT_SCRIPT: &str = include_str!("wait-interfaces.sh");
/// Where a node finds [`WAIT_SCRIPT`].
pub const WAIT_PATH: &str = "/usr/local/lib/canopy/wait-interfaces";
/// Where a switch node finds its configuration (the image's default command reads it).
pub const SWITCH_CONFIG: &str = "/etc/canopy/switch.toml";
/// A switch's management socket in its container (`docker exec clab-<lab>-<switch>
/// canopy-switch ctl --socket /run/canopy/switch.sock health`).
pub const SWITCH_SOCKET: &str = "/run/canopy/switch.sock";
/// The switch's command after the wait.
pub const SWITCH_CMD: &str = "/usr/bin/canopy-switch run --config /etc/canopy/switch.toml";
/// A host's command after the wait: it only holds the host's interfaces.
pub const HOST_CMD: &str = "sleep infinity";
/// The UDP port of the VXLAN links (the testbed's, IANA's).
pub const VXLAN_PORT: u16 = 4789;
/// Largest VNI.
pub const MAX_VNI: u32 = (1 << 24) - 1;

/// The image `packaging/oci/build-image` names by default: `canopy:<version>`.
pub fn default_image() -> String {
    format!("canopy:{}", env!("CARGO_PKG_VERSION"))
}

/// What to export and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClabOptions {
    /// The switches' image: it must have `canopy-switch` at `/usr/bin` and `/bin/sh`.
    pub switch_image: String,
    /// The hosts' image (None: the switches'); it needs `/bin/sh` and `sleep`.
    pub host_image: Option<String>,
    /// The machine whose part to export (None: the description's nodes must all be on
    /// one machine).
    pub machine: Option<String>,
    /// How long a node waits for its interfaces before it gives up (s).
    pub wait_s: u32,
}

impl Default for ClabOptions {
    fn default() -> Self {
        ClabOptions {
            switch_image: default_image(),
            host_image: None,
            machine: None,
            wait_s: 300,
        }
    }
}

/// A containerlab topology file, as far as the export writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClabTopology {
    /// The lab's name (containers are `clab-<name>-<node>`).
    pub name: String,
    /// Nodes and links.
    pub topology: ClabBody,
}

/// `topology:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClabBody {
    /// `nodes:`, in the fabric's order (switches, then hosts).
    pub nodes: Nodes,
    /// `links:`, in the topology's link order, then the dummy interfaces.
    pub links: Vec<ClabLink>,
}

/// `nodes:`: a mapping from node name to node, kept in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Nodes(pub Vec<(String, ClabNode)>);

impl Nodes {
    /// The node called `name`.
    pub fn get(&self, name: &str) -> Option<&ClabNode> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, node)| node)
    }
}

impl Serialize for Nodes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, node) in &self.0 {
            m.serialize_entry(name, node)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Nodes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Nodes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of node names to nodes")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Nodes, A::Error> {
                let mut out: Vec<(String, ClabNode)> = Vec::new();
                while let Some((name, node)) = m.next_entry::<String, ClabNode>()? {
                    if out.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!(
                            "node {name:?} appears twice"
                        )));
                    }
                    out.push((name, node));
                }
                Ok(Nodes(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A node's kind: the export makes `linux` nodes only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// A plain container.
    Linux,
}

/// A container's restart policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartPolicy {
    /// Never restarted: a restarted container has lost the links containerlab moved into
    /// it, so a switch that stopped stays stopped, with its log (`docker logs`).
    No,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClabNode {
    /// `linux`.
    pub kind: NodeKind,
    /// The image.
    pub image: String,
    /// `HOST:CONTAINER[:ro]`; a relative host path is relative to the topology file.
    pub binds: Vec<String>,
    /// `wait-interfaces` with the node's interfaces (shell words, split by containerlab).
    pub entrypoint: String,
    /// What runs after the wait.
    pub cmd: String,
    /// `no`.
    #[serde(rename = "restart-policy")]
    pub restart_policy: RestartPolicy,
}

/// One end of a link: `node:interface` in containerlab's brief form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    /// Node name.
    pub node: String,
    /// Interface name in the node.
    pub interface: String,
}

impl Serialize for Endpoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}:{}", self.node, self.interface))
    }
}

impl<'de> Deserialize<'de> for Endpoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        // containerlab splits at the first ':'
        match s.split_once(':') {
            Some((node, interface)) if !node.is_empty() && !interface.is_empty() => Ok(Endpoint {
                node: node.to_string(),
                interface: interface.to_string(),
            }),
            _ => Err(serde::de::Error::custom(format!(
                "{s:?}: expected NODE:INTERFACE"
            ))),
        }
    }
}

/// One end of an extended-form link (`dummy`, `vxlan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkEnd {
    /// Node name.
    pub node: String,
    /// Interface name in the node.
    pub interface: String,
}

/// `type: dummy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DummyType {
    /// The only value.
    Dummy,
}

/// `type: vxlan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VxlanType {
    /// The only value.
    Vxlan,
}

/// One entry of `links:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClabLink {
    /// A veth pair between two nodes of the lab (the brief form).
    Veth {
        /// Its two ends, in the topology's order (the switch end first).
        endpoints: [Endpoint; 2],
        /// The fabric's MTU.
        mtu: u32,
    },
    /// A dummy interface: an unconnected switch port.
    Dummy {
        /// `dummy`.
        #[serde(rename = "type")]
        kind: DummyType,
        /// The port's interface.
        endpoint: LinkEnd,
        /// The fabric's MTU.
        mtu: u32,
    },
    /// This machine's end of a link to another machine.
    Vxlan {
        /// `vxlan`.
        #[serde(rename = "type")]
        kind: VxlanType,
        /// The local end.
        endpoint: LinkEnd,
        /// The far machine's underlay address.
        remote: IpAddr,
        /// `vni_base` + the link's index.
        vni: u32,
        /// [`VXLAN_PORT`].
        #[serde(rename = "dst-port")]
        dst_port: u16,
        /// The fabric's MTU.
        mtu: u32,
    },
}

/// A file the export writes next to the topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    /// Relative to the topology file's directory.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Whether it is a script (written mode 0755, else 0644).
    pub executable: bool,
}

/// A containerlab export: the topology and the files its binds name.
#[derive(Debug, Clone, PartialEq)]
pub struct ClabExport {
    /// The topology.
    pub topology: ClabTopology,
    /// The machine whose part it is (`local` for a one-machine description).
    pub machine: String,
    /// Every switch's configuration and the wait script, under [`ClabExport::files_dir`].
    pub files: Vec<ExportFile>,
}

impl ClabExport {
    /// The topology file's name: `<lab>.clab.yml`.
    pub fn file_name(&self) -> String {
        format!("{}.clab.yml", self.topology.name)
    }

    /// The directory (relative to the topology file) of the other files: `canopy-<lab>`.
    pub fn files_dir(&self) -> PathBuf {
        files_dir(&self.topology.name)
    }

    /// The topology as YAML, under a comment line.
    pub fn yaml(&self) -> Result<String> {
        let body = serde_norway::to_string(&self.topology).map_err(|e| ExportError::Serialize {
            what: "the containerlab topology".into(),
            detail: e.to_string(),
        })?;
        Ok(format!(
            "# containerlab topology of Canopy fabric {} (machine {}), written by canopy-testbed export; do not edit\n{body}",
            self.topology.name, self.machine
        ))
    }

    /// Write the topology file and the files it binds into `dir` (created if missing;
    /// files already there are replaced). Returns the paths written, the topology first.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        use std::os::unix::fs::PermissionsExt;
        let io =
            |what: &Path, e| crate::error::TestbedError::io(format!("write {}", what.display()), e);
        let yaml = self.yaml()?;
        let sub = dir.join(self.files_dir());
        std::fs::create_dir_all(&sub).map_err(|e| io(&sub, e))?;
        let top = dir.join(self.file_name());
        std::fs::write(&top, yaml).map_err(|e| io(&top, e))?;
        let mut out = vec![top];
        for f in &self.files {
            let p = dir.join(&f.path);
            std::fs::write(&p, &f.text).map_err(|e| io(&p, e))?;
            let mode = if f.executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode))
                .map_err(|e| io(&p, e))?;
            out.push(p);
        }
        Ok(out)
    }
}

fn files_dir(lab: &str) -> PathBuf {
    PathBuf::from(format!("canopy-{lab}"))
}

/// Whether `name` is a node name containerlab takes (its schema's
/// `^[a-zA-Z0-9][a-zA-Z0-9-._|]*$`, without `|`, so that it also names a file).
pub fn valid_node_name(name: &str) -> bool {
    let mut b = name.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'))
}

/// Why `image` is not an image reference the export writes (None: it is). Accepted:
/// `[registry[:port]/]path[:tag][@digest]` from the reference grammar's characters
/// (`A-Za-z0-9`, `.`, `_`, `-`, `/`, `:`, `@`), starting with a letter or digit. Nothing
/// else reaches the file: containerlab expands `$VARS` and `{{ templates }}` in it.
pub fn image_problem(image: &str) -> Option<&'static str> {
    if image.is_empty() {
        return Some("empty");
    }
    if image.len() > 255 {
        return Some("longer than 255 bytes");
    }
    if !image.as_bytes()[0].is_ascii_alphanumeric() {
        return Some("must start with a letter or digit");
    }
    if !image
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/' | b':' | b'@'))
    {
        return Some(
            "may only contain A-Z a-z 0-9 . _ - / : @ (a registry/path:tag@digest reference)",
        );
    }
    if image.ends_with([':', '/', '@']) || image.contains("//") {
        return Some("is not a complete reference (a name, then :tag or @digest)");
    }
    None
}

/// The containerlab export of `desc` (its part on `opts.machine`): the typed topology and
/// the files it binds. Refused, with the reason: `target = "bmv2"`, `[vm]` fabrics,
/// `[[nic]]` ports on the exported part's cross-machine links, an exported machine with
/// `underlay_netns`, several machines and none chosen.
pub fn containerlab(desc: &Desc, opts: &ClabOptions) -> Result<ClabExport> {
    Ok(build(desc, opts)?)
}

fn build(desc: &Desc, opts: &ClabOptions) -> std::result::Result<ClabExport, ExportError> {
    if desc.bmv2 {
        return Err(ExportError::Bmv2);
    }
    if desc.in_vms() {
        return Err(ExportError::Vm);
    }
    let host_image = opts.host_image.as_deref().unwrap_or(&opts.switch_image);
    for (role, image) in [("switch", opts.switch_image.as_str()), ("host", host_image)] {
        if let Some(why) = image_problem(image) {
            return Err(ExportError::Image {
                role,
                image: image.to_string(),
                why,
            });
        }
    }
    let topo = &desc.topo;
    let all: Vec<Node> = (0..topo.switches.len() as u32)
        .map(Node::Switch)
        .chain((0..topo.hosts.len() as u32).map(Node::Host))
        .collect();
    // node names: containerlab's, unique
    let mut seen = HashSet::new();
    for &n in &all {
        let name = desc.node_name(n);
        if !valid_node_name(&name) {
            return Err(ExportError::NodeName { name });
        }
        if !seen.insert(name.clone()) {
            return Err(ExportError::DuplicateNode { name });
        }
    }
    // the part: one machine's nodes
    let machines: BTreeSet<&str> = all.iter().map(|&n| desc.machine_of(n)).collect();
    let names = || machines.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    let machine = match &opts.machine {
        None if machines.len() > 1 => {
            return Err(ExportError::MachineRequired { machines: names() })
        }
        None => machines.first().copied().unwrap_or(LOCAL).to_string(),
        Some(m) if !machines.contains(m.as_str()) => {
            return Err(ExportError::NoSuchPart {
                machine: m.clone(),
                machines: names(),
            })
        }
        Some(m) => m.clone(),
    };
    let lab = if machines.len() > 1 {
        format!("{}-{machine}", desc.name)
    } else {
        desc.name.clone()
    };
    let here = |n: Node| desc.machine_of(n) == machine;
    let mtu = *desc.raw.mtu.get_ref();
    let dir = files_dir(&lab);
    let wait_bind = format!("{}:{WAIT_PATH}:ro", dir.join("wait-interfaces").display());
    let entrypoint = |ifnames: &[String]| {
        format!(
            "/bin/sh {WAIT_PATH} {} {} --",
            opts.wait_s,
            ifnames.join(" ")
        )
    };

    let mut files = vec![ExportFile {
        path: dir.join("wait-interfaces"),
        text: WAIT_SCRIPT.to_string(),
        executable: true,
    }];
    let mut nodes = Vec::new();
    for sw in (0..topo.switches.len() as u32).filter(|&s| here(Node::Switch(s))) {
        let s = &topo.switches[sw as usize];
        let ifnames = desc.switch_ifnames(sw);
        let config = dir.join(format!("{}.toml", s.name));
        files.push(ExportFile {
            path: config.clone(),
            text: switch_config(desc, sw)?,
            executable: false,
        });
        let mut binds = vec![
            format!("{}:{SWITCH_CONFIG}:ro", config.display()),
            wait_bind.clone(),
        ];
        if desc.dpdk_table(sw).is_some() {
            // DPDK's EAL maps its memory from the host's huge pages
            binds.push("/dev/hugepages:/dev/hugepages".into());
        }
        nodes.push((
            s.name.clone(),
            ClabNode {
                kind: NodeKind::Linux,
                image: opts.switch_image.clone(),
                binds,
                entrypoint: entrypoint(&ifnames),
                cmd: SWITCH_CMD.into(),
                restart_policy: RestartPolicy::No,
            },
        ));
    }
    for h in (0..topo.hosts.len() as u32).filter(|&h| here(Node::Host(h))) {
        let ifnames: Vec<String> = topo.hosts[h as usize]
            .ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.peer != Peer::None)
            .map(|(p, _)| Desc::ifname(Node::Host(h), p as u16))
            .collect();
        nodes.push((
            topo.host_name(h),
            ClabNode {
                kind: NodeKind::Linux,
                image: host_image.to_string(),
                binds: vec![wait_bind.clone()],
                entrypoint: entrypoint(&ifnames),
                cmd: HOST_CMD.into(),
                restart_policy: RestartPolicy::No,
            },
        ));
    }

    let cross = desc.links.iter().any(|l| here(l.a.0) != here(l.b.0));
    if cross {
        if let Some(netns) = desc
            .machine(&machine)
            .and_then(|m| m.underlay_netns.clone())
        {
            return Err(ExportError::UnderlayNetns { machine, netns });
        }
    }
    let end = |(n, p): (Node, u16)| LinkEnd {
        node: desc.node_name(n),
        interface: Desc::ifname(n, p),
    };
    let mut links = Vec::new();
    for l in &desc.links {
        match (here(l.a.0), here(l.b.0)) {
            (true, true) => links.push(ClabLink::Veth {
                endpoints: [l.a, l.b].map(|e| {
                    let e = end(e);
                    Endpoint {
                        node: e.node,
                        interface: e.interface,
                    }
                }),
                mtu,
            }),
            (false, false) => {}
            (a_here, _) => {
                let mine = if a_here { l.a } else { l.b };
                links.push(vxlan_end(desc, l, mine, end(mine), mtu)?);
            }
        }
    }
    for sw in (0..topo.switches.len() as u32).filter(|&s| here(Node::Switch(s))) {
        for (p, port) in topo.switches[sw as usize].ports.iter().enumerate() {
            if port.peer == Peer::None {
                links.push(ClabLink::Dummy {
                    kind: DummyType::Dummy,
                    endpoint: end((Node::Switch(sw), p as u16)),
                    mtu,
                });
            }
        }
    }
    Ok(ClabExport {
        topology: ClabTopology {
            name: lab,
            topology: ClabBody {
                nodes: Nodes(nodes),
                links,
            },
        },
        machine,
        files,
    })
}

/// This machine's end `mine` of link `l`, whose far end is on another machine: a VXLAN
/// device with the VNI `up` gives the link (`vni_base` + its index, [`LinkKind::Vxlan`])
/// towards the far machine's underlay address.
fn vxlan_end(
    desc: &Desc,
    l: &Link,
    mine: (Node, u16),
    endpoint: LinkEnd,
    mtu: u32,
) -> std::result::Result<ClabLink, ExportError> {
    let far = if mine == l.a { l.b } else { l.a };
    // `Desc::parse` wants a NIC on both ends or on neither
    for e in [mine, far] {
        if let (Node::Switch(s), p) = e {
            if let Some(interface) = desc.nics.get(&(s, p)) {
                return Err(ExportError::Nic {
                    port: format!("{}:{p}", desc.node_name(e.0)),
                    interface: interface.clone(),
                });
            }
        }
    }
    let vni = u64::from(desc.raw.vni_base) + u64::from(l.id);
    let vni = u32::try_from(vni)
        .ok()
        .filter(|v| (1..=MAX_VNI).contains(v))
        .ok_or(ExportError::Vni {
            vni_base: desc.raw.vni_base,
            link: l.id,
        })?;
    let remote = desc.machine_of(far.0);
    let underlay = desc
        .machine(remote)
        .map(|m| m.underlay.get_ref().clone())
        .unwrap_or_default();
    let remote_ip = underlay
        .parse::<IpAddr>()
        .map_err(|_| ExportError::Underlay {
            machine: remote.to_string(),
            underlay,
        })?;
    Ok(ClabLink::Vxlan {
        kind: VxlanType::Vxlan,
        endpoint,
        remote: remote_ip,
        vni,
        dst_port: VXLAN_PORT,
        mtu,
    })
}

/// Switch `sw`'s `canopy-switch` configuration in its container: what `up` generates
/// ([`Desc::switch_config_table`]), with `[tables]` and the socket at [`SWITCH_SOCKET`].
fn switch_config(desc: &Desc, sw: u32) -> std::result::Result<String, ExportError> {
    let name = &desc.topo.switches[sw as usize].name;
    let t = desc.switch_config_table(sw, Path::new(SWITCH_SOCKET), true);
    let text = toml::to_string(&t).map_err(|e| ExportError::Serialize {
        what: format!("the configuration of {name}"),
        detail: e.to_string(),
    })?;
    Ok(format!(
        "# canopy-switch configuration of {name} (switch {sw}) of fabric {}, written by canopy-testbed export for containerlab; do not edit\n{text}",
        desc.name
    ))
}
