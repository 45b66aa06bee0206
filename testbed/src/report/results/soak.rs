//! The result of `canopy-testbed soak` (`soak.json`; `docs/testbed.md`, "Soak").

use super::{Header, SearchResult, SwitchDelta, Trial};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where every frame went (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Accounting {
    /// Frames the generator counted as sent (the TX ring took them).
    pub sent: u64,
    /// Frames received by their destination host (each once).
    pub received: u64,
    /// Frames received by another host.
    pub misdelivered: u64,
    /// Second copies received (not counted in `received`).
    pub duplicates: u64,
    /// Frames received that were not this soak's.
    pub foreign: u64,
    /// Frames the hosts' interfaces sent or dropped on transmit beyond what the
    /// generator counted (`Σ host tx_packets + tx_dropped − generator tx_requeues −
    /// sent`); 0 when the generator's frames are the only ones and none vanished before
    /// the wire.
    pub host_wire_extra: i64,
    /// Switch drops by reason (the engine's).
    pub switch_drops: BTreeMap<String, u64>,
    /// Switch backend drops outside the engine, by reason (`kernel_drops` = tp_drops).
    pub backend_drops: BTreeMap<String, u64>,
    /// Interface drops (`netns/ifname rx|tx` → frames), non-zero only.
    pub interface_drops: BTreeMap<String, u64>,
    /// Qdisc drops (all interfaces, and slowed ports' qdiscs when they were removed).
    pub qdisc_drops: u64,
    /// The generator's receive sockets' tp_drops.
    pub host_socket_drops: u64,
    /// Frames still held in switch TX rings at the end.
    pub in_flight: u64,
    /// Interface and qdisc drops that lost no frame: the device dropped the frame it
    /// was handed, and the kernel put it back in the sender's AF_PACKET TX ring, which
    /// sent it again (the switches' and the generator's `tx_requeues`; a veth whose peer
    /// is down, during a link flap). Subtracted from `counted`.
    #[serde(default)]
    pub requeued: u64,
    /// Frames lost where no counter of their own sees them, inferred from two counters
    /// around the place, by place: a DPDK af_packet port's RX ring (its interface's
    /// counters less the switch's: the PMD never reads its ring's drops), a bmv2
    /// switch's egress queues (its ingress less its egress and drop counters:
    /// `simple_switch` drops what a full queue refuses without counting it). Counted,
    /// and the accounting is then not exact.
    #[serde(default)]
    pub inferred: BTreeMap<String, u64>,
    /// Frames the hosts' interfaces received that the generator did not read: delivered
    /// after the trial's grace period ended (a slow target, such as bmv2, still
    /// draining its queues). Delivered late, not lost; counted.
    #[serde(default)]
    pub late: u64,
    /// Sum of every counted drop (and `in_flight`, `inferred` and `late`), less
    /// `requeued`.
    pub counted: u64,
    /// `sent − received − misdelivered − counted`: must be 0.
    pub unaccounted: i64,
    /// Whether every place could be read (no switch restarted or silent).
    pub exact: bool,
    /// Why not, when not.
    pub not_exact: Vec<String>,
    /// Places where a frame can vanish without any counter, named.
    pub uncounted: Vec<String>,
}

/// One switch port's hop check: the kernel's interface counters against the switch's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortHop {
    /// `switch:port (ifname)`.
    pub port: String,
    /// Interface rx_packets − rx_dropped − (engine rx + tp_drops + backend RX drops).
    pub rx_gap: i64,
    /// Engine tx − tx_wrong_format − (interface tx_packets + tx_dropped + qdisc drops −
    /// backend tx_requeues) − TX ring backlog growth.
    pub tx_gap: i64,
}

/// One fault and what the traffic saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultEvent {
    /// Round (0-based).
    pub round: usize,
    /// Kind.
    pub kind: String,
    /// What was hit (`edge-p0-e0:2`, `agg-p1-a0`, `canopyd`).
    pub target: String,
    /// Fault time, ms after the timeline's start.
    pub fault_ms: f64,
    /// Repair time, ms after the timeline's start.
    pub repair_ms: f64,
    /// Frames sent while the fault lasted that never arrived.
    pub lost_during: u64,
    /// Frames sent after the repair (until the next fault) that never arrived.
    pub lost_after: u64,
    /// Time from the fault to full delivery while it lasted (None: loss until the
    /// repair, as for a slowed port whose flows have no other way).
    pub fault_recovery_ms: Option<f64>,
    /// Time from the repair to full delivery (None: not within the settle time).
    pub repair_recovery_ms: Option<f64>,
    /// Whether full delivery during the fault is expected (a fault the fabric routes
    /// around).
    pub expect_fault_recovery: bool,
    /// tx-fill: the slowed switch's drops by reason while the port was slowed (the
    /// engine's names; the backend's prefixed `backend.`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub drops: BTreeMap<String, u64>,
    /// tx-fill: frames the slowed switch sent out of its other ports meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_ports_tx: Option<u64>,
    /// tx-fill: frames held in the slowed port's TX ring at the end of the fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_backlog: Option<u64>,
    /// A switch in a guest killed and booted again: how long its switch took to answer
    /// `health` after QEMU started (the recovery after the repair is allowed this much
    /// longer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_ms: Option<f64>,
    /// A switch in a guest killed: how long canopyd may take to declare it down (its
    /// missed probes × the probe timeout; a dead guest answers nothing). The fault is
    /// held that much longer, and the recovery during it is allowed that much longer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detect_ms: Option<f64>,
    /// Details (drops counted at a slowed port, how long a restart took, ...).
    pub note: String,
}

/// The result of a soak.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SoakReport {
    /// Command, start, machine and version.
    #[serde(flatten)]
    pub header: Header,
    /// Fabric name.
    pub fabric: String,
    /// Topology spec.
    pub topology: String,
    /// The PDR search, when the rate was measured.
    pub search: Option<SearchResult>,
    /// PDR the soak's rate came from (None when the rate was given).
    pub pdr_pps: Option<f64>,
    /// Offered rate of the soak.
    pub rate_pps: f64,
    /// Send time asked for, seconds.
    pub duration_s: f64,
    /// The soak trial (its timeline is in `timeline.csv`).
    pub trial: Trial,
    /// End-to-end accounting.
    pub accounting: Accounting,
    /// Per-switch counters (rx = tx + drops).
    pub switches: Vec<SwitchDelta>,
    /// Switch ports whose interface and switch counters disagree (empty: none).
    pub port_gaps: Vec<PortHop>,
    /// Switch ports checked.
    pub ports_checked: usize,
    /// Faults injected.
    pub faults: Vec<FaultEvent>,
    /// Lowest share of the frames sent in any 100 ms that arrived (1.0: no loss).
    pub min_delivery_100ms: f64,
    /// What failed (empty: passed).
    pub failures: Vec<String>,
}

impl SoakReport {
    /// No failure.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}
