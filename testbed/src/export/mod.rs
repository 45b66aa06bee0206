//! Lab interop exports of a fabric description (`canopy-testbed export`, `docs/export.md`):
//! the same fabric as `up` builds, written for other tools.
//!
//! | module | what |
//! |---|---|
//! | [`clab`](mod@clab) | a containerlab topology (`<lab>.clab.yml`): every switch a `linux` node running `canopy-switch` on the configuration `up` would generate, every host a `linux` node, every link of the topology |
//! | [`dot`](mod@dot) | a Graphviz DOT graph: switches ranked by level, hosts, links labelled with their port numbers |
//!
//! Both read a validated [`Desc`](crate::fabric::Desc) and build typed values first (the
//! containerlab topology as `Serialize` structs, the graph as a [`dot::Graph`]); text is
//! written from those only.

pub mod clab;
pub mod dot;

pub use clab::{containerlab, ClabExport, ClabOptions};
pub use dot::{dot, DotOptions};

/// Why a description (or an option) cannot be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// `target = "bmv2"`: there is no `canopy-switch` to run.
    #[error("target = \"bmv2\": the switches are bmv2 simple_switch processes programmed at `up`, not canopy-switch; export a description with target = \"canopy\"")]
    Bmv2,
    /// `[vm] switches = true`: the switch configurations are the guests'.
    #[error("[vm] switches = true: the switches' configurations are their QEMU guests' (virtio-net NICs, TCP management); export the description without [vm] to run the switches as containers")]
    Vm,
    /// Nodes on several machines and no machine chosen.
    #[error("the description places nodes on machines {}: a containerlab topology is one machine's part, so name the machine to export", list(.machines))]
    MachineRequired {
        /// The machines that hold nodes.
        machines: Vec<String>,
    },
    /// The chosen machine holds no node.
    #[error("no node is placed on machine {machine:?} (machines with nodes: {})", list(.machines))]
    NoSuchPart {
        /// The machine asked for.
        machine: String,
        /// The machines that hold nodes.
        machines: Vec<String>,
    },
    /// A cross-machine link on a `[[nic]]`.
    #[error("port {port} is carried by the NIC {interface:?} ([[nic]]): containerlab has no link that moves a host's NIC into a container; drop the [[nic]] to export the link as VXLAN")]
    Nic {
        /// `SWITCH:PORT`.
        port: String,
        /// The NIC.
        interface: String,
    },
    /// The exported machine stands in for its underlay with a namespace of this box.
    #[error("machine {machine:?} sets underlay_netns = {netns:?}: containerlab creates its VXLAN devices in the host's own namespace, routed to the remote underlay address, so the lab namespace would be bypassed; drop underlay_netns to export")]
    UnderlayNetns {
        /// The machine.
        machine: String,
        /// Its underlay namespace.
        netns: String,
    },
    /// A cross-machine link whose VNI (`vni_base` + its index) is outside 1..=16777215.
    #[error(
        "vni_base = {vni_base} gives link {link} the VNI {vni_base} + {link}, outside 1..=16777215"
    )]
    Vni {
        /// `vni_base`.
        vni_base: u32,
        /// The link's index.
        link: u32,
    },
    /// A machine's underlay address that is not an IP address.
    #[error("machine {machine:?}: underlay {underlay:?} is not an IP address")]
    Underlay {
        /// The machine.
        machine: String,
        /// Its underlay.
        underlay: String,
    },
    /// An image reference containerlab or the container engine would not take as written.
    #[error("{role} image {image:?}: {why}")]
    Image {
        /// `switch` or `host`.
        role: &'static str,
        /// The reference.
        image: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A node name containerlab refuses (or that cannot name a file).
    #[error("node name {name:?}: containerlab node names are [a-zA-Z0-9] then [a-zA-Z0-9._-]")]
    NodeName {
        /// The name.
        name: String,
    },
    /// Two nodes with one name.
    #[error("two nodes are named {name:?}")]
    DuplicateNode {
        /// The name.
        name: String,
    },
    /// A generated file that could not be written as text.
    #[error("cannot write {what}: {detail}")]
    Serialize {
        /// What (the topology, a switch's configuration).
        what: String,
        /// The serializer's message.
        detail: String,
    },
}

fn list(v: &[String]) -> String {
    v.join(", ")
}
