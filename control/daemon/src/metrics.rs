//! Prometheus text exposition (format 0.0.4) of a [`FabricSnapshot`]: what canopyd's
//! `/metrics` serves (`docs/metrics.md`).
//!
//! A [`SnapshotCollector`] (a `prometheus` [`Collector`]) turns one snapshot into metric
//! families; [`render`] encodes them with the crate's `TextEncoder`. The switches'
//! counters are counters the switches own: they are exported as they are (a restarted
//! switch starts again from zero, which Prometheus' `rate()` handles as a counter
//! reset), never incremented here.
//!
//! Staleness: a switch that is down exports `canopy_switch_up 0` and the daemon's own
//! per-switch counters, but none of its port metrics and no uptime: the last counters
//! it answered would be stale and would lie (a flat line instead of a gap).
//!
//! Labels are only `fabric`, `switch`, `port`, `reason` (and `le` on histograms), plus
//! `ifname` and `backend` on the info gauge `canopy_port_info`: no pid, no endpoint, no
//! free text (error messages stay in the logs and in `canopyctl fabric status`).

use canopy_proto::mgmt::{PortCounters, PortHealth};
use canopy_proto::snapshot::{FabricSnapshot, HistogramSnapshot, SwitchSnapshot};
use prometheus::core::{Collector, Desc};
use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType,
};
use prometheus::TextEncoder;
use std::collections::{BTreeMap, HashMap};

/// The Content-Type of [`render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The kind of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Monotonic counter (`_total`).
    Counter,
    /// Gauge.
    Gauge,
    /// Histogram (`_bucket`, `_sum`, `_count`).
    Histogram,
}

/// One family the exposition can contain: name, kind, labels (besides `le`), help.
#[derive(Debug, Clone, Copy)]
pub struct FamilySpec {
    /// Metric name.
    pub name: &'static str,
    /// Type.
    pub kind: Kind,
    /// Label names, in order.
    pub labels: &'static [&'static str],
    /// `# HELP` text.
    pub help: &'static str,
}

const F: &[&str] = &["fabric"];
const FS: &[&str] = &["fabric", "switch"];
const FSP: &[&str] = &["fabric", "switch", "port"];
const FSPR: &[&str] = &["fabric", "switch", "port", "reason"];
const INFO: &[&str] = &["fabric", "switch", "port", "ifname", "backend"];
const BUILD: &[&str] = &["fabric", "version", "protocol_version"];
const SWITCH_BUILD: &[&str] = &["fabric", "switch", "version", "protocol_version"];

macro_rules! fam {
    ($name:literal, $kind:ident, $labels:expr, $help:literal) => {
        FamilySpec {
            name: $name,
            kind: Kind::$kind,
            labels: $labels,
            help: $help,
        }
    };
}

// Indices into FAMILIES (the order of the exposition).
const PORT_RX_FRAMES: usize = 0;
const PORT_RX_BYTES: usize = 1;
const PORT_TX_FRAMES: usize = 2;
const PORT_TX_BYTES: usize = 3;
const PORT_DROPS: usize = 4;
const PORT_BACKEND_DROPS: usize = 5;
const PORT_ADAPTIVE: usize = 6;
const PORT_RING: usize = 7;
const PORT_BACKLOG: usize = 8;
const PORT_LINK_UP: usize = 9;
const PORT_ADMIN_UP: usize = 10;
const PORT_IN_USE: usize = 11;
const PORT_LINK_DOWN_EVENTS: usize = 12;
const PORT_REOPENS: usize = 13;
const PORT_TX_REQUEUES: usize = 14;
const PORT_INFO: usize = 15;
const SWITCH_UP: usize = 16;
const SWITCH_START_TIME: usize = 17;
const SWITCH_TABLES_CURRENT: usize = 18;
const PUSHES: usize = 19;
const PUSH_FAILURES: usize = 20;
const DOWN_EVENTS: usize = 21;
const RESTARTS: usize = 22;
const PROBE: usize = 23;
const READY: usize = 24;
const BUILD_INFO: usize = 25;
const SWITCHES: usize = 26;
const PRUNED: usize = 27;
const TRAFFIC_SENT: usize = 28;
const TRAFFIC_RECEIVED: usize = 29;
const TRAFFIC_LOST: usize = 30;
const TRAFFIC_MISDELIVERED: usize = 31;
const TRAFFIC_LATENCY: usize = 32;
const SWITCH_BUILD_INFO: usize = 33;

/// Every family [`render`] can emit, in exposition order.
pub const FAMILIES: &[FamilySpec] = &[
    fam!("canopy_port_rx_frames_total", Counter, FSP, "Frames received on the port (switch counter)."),
    fam!("canopy_port_rx_bytes_total", Counter, FSP, "Bytes received on the port (switch counter)."),
    fam!("canopy_port_tx_frames_total", Counter, FSP, "Frames transmitted on the port (switch counter)."),
    fam!("canopy_port_tx_bytes_total", Counter, FSP, "Bytes transmitted on the port (switch counter)."),
    fam!("canopy_port_drops_total", Counter, FSPR, "Frames dropped at the port by the engine, by reason (every reason the switch reports, zeros included)."),
    fam!("canopy_port_backend_drops_total", Counter, FSPR, "Frames dropped by the port backend before the engine saw them, by reason (kernel: RX ring full)."),
    fam!("canopy_port_adaptive_choices_total", Counter, FSP, "Adaptive forwarding decisions that picked this port."),
    fam!("canopy_port_tx_ring_frames", Gauge, FSP, "Frames waiting in the engine rings towards this port."),
    fam!("canopy_port_tx_backlog_frames", Gauge, FSP, "Frames the port backend holds but has not sent yet."),
    fam!("canopy_port_link_up", Gauge, FSP, "1 when the port's link (carrier) is up."),
    fam!("canopy_port_admin_up", Gauge, FSP, "1 when the port is administratively up."),
    fam!("canopy_port_in_use", Gauge, FSP, "1 when the port is in the switch's forwarding groups, 0 when canopyd pruned it."),
    fam!("canopy_port_link_down_events_total", Counter, FSP, "Times the port's link went down."),
    fam!("canopy_port_reopens_total", Counter, FSP, "Times the port reopened after its interface was re-created."),
    fam!("canopy_port_tx_requeues_total", Counter, FSP, "Frames the kernel dropped at the device or qdisc and put back in the port's TX ring to send again (not losses)."),
    fam!("canopy_port_info", Gauge, INFO, "Port names: always 1, the labels carry the interface name and backend."),
    fam!("canopy_switch_up", Gauge, FS, "1 when the switch answers canopyd's health probes."),
    fam!("canopy_switch_start_time_seconds", Gauge, FS, "When the switch started, in seconds since the Unix epoch (absent while the switch is down)."),
    fam!("canopy_switch_tables_current", Gauge, FS, "1 when the switch runs the tables canopyd wants it to run."),
    fam!("canopyd_table_pushes_total", Counter, FS, "Successful table pushes to the switch since canopyd started."),
    fam!("canopyd_table_push_failures_total", Counter, FS, "Failed table pushes (refused or unreachable) since canopyd started."),
    fam!("canopyd_switch_down_events_total", Counter, FS, "Times the switch was declared down since canopyd started."),
    fam!("canopyd_switch_restarts_total", Counter, FS, "Times a new switch process answered for the switch since canopyd started."),
    fam!("canopyd_probe_duration_seconds", Histogram, FS, "Round trip of canopyd's health probes to the switch."),
    fam!("canopyd_ready", Gauge, F, "1 when every switch is up and runs current tables (/readyz)."),
    fam!("canopyd_build_info", Gauge, BUILD, "canopyd's build: always 1, the labels carry its release and protocol version."),
    fam!("canopyd_switches", Gauge, F, "Switches in the fabric's topology."),
    fam!("canopyd_pruned_ports", Gauge, F, "Ports canopyd has taken out of forwarding groups, fabric-wide."),
    fam!("canopy_traffic_sent_frames_total", Counter, F, "Frames sent by the traffic generator (reported trials)."),
    fam!("canopy_traffic_received_frames_total", Counter, F, "Frames received by the traffic generator."),
    fam!("canopy_traffic_lost_frames_total", Counter, F, "Frames sent and never received."),
    fam!("canopy_traffic_misdelivered_frames_total", Counter, F, "Frames delivered to the wrong host."),
    fam!("canopy_traffic_latency_seconds", Histogram, F, "One-way latency measured by the traffic generator."),
    fam!("canopy_switch_build_info", Gauge, SWITCH_BUILD, "The switch's build: always 1, the labels carry its release and protocol version (absent while the switch is down)."),
];

/// A `prometheus` collector over one snapshot.
pub struct SnapshotCollector<'a> {
    snap: &'a FabricSnapshot,
    descs: Vec<Desc>,
}

impl<'a> SnapshotCollector<'a> {
    /// A collector that reports `snap`.
    pub fn new(snap: &'a FabricSnapshot) -> Self {
        // The names and labels are constants; Desc::new only fails on an invalid one,
        // which the unit tests would catch, so a failure just leaves the desc out.
        let descs = FAMILIES
            .iter()
            .filter_map(|f| {
                Desc::new(
                    f.name.to_string(),
                    f.help.to_string(),
                    f.labels.iter().map(|l| l.to_string()).collect(),
                    HashMap::new(),
                )
                .ok()
            })
            .collect();
        SnapshotCollector { snap, descs }
    }
}

impl Collector for SnapshotCollector<'_> {
    fn desc(&self) -> Vec<&Desc> {
        self.descs.iter().collect()
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let mut b = Builder::new();
        collect_into(self.snap, &mut b);
        b.finish()
    }
}

/// The families of canopyd's own process that [`render`] adds after the snapshot's
/// (the `prometheus` crate's `ProcessCollector`, from `/proc/self`; no labels): the
/// standard `process_*` metrics every Prometheus client library exports.
pub const PROCESS_FAMILIES: &[&str] = &[
    "process_cpu_seconds_total",
    "process_open_fds",
    "process_max_fds",
    "process_virtual_memory_bytes",
    "process_resident_memory_bytes",
    "process_start_time_seconds",
    "process_threads",
];

/// The text exposition of `s`, followed by canopyd's [`PROCESS_FAMILIES`].
pub fn render(s: &FabricSnapshot) -> String {
    let mut families = SnapshotCollector::new(s).collect();
    families.extend(prometheus::process_collector::ProcessCollector::for_self().collect());
    // The encoder only fails on a family without name or samples; `finish` leaves
    // those out.
    TextEncoder::new()
        .encode_to_string(&families)
        .unwrap_or_else(|e| format!("# canopyd: encoding failed: {e}\n"))
}

/// `text` compressed with gzip, for a scraper that sends `Accept-Encoding: gzip` (as
/// Prometheus does). Level 1 ("fast"): a k=8 fabric's exposition shrinks about
/// tenfold at a fraction of the render's time (`docs/metrics.md`, "Size").
pub fn gzip(text: &[u8]) -> std::io::Result<Vec<u8>> {
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write as _;
    let mut enc = GzEncoder::new(Vec::with_capacity(text.len() / 8), Compression::fast());
    enc.write_all(text)?;
    enc.finish()
}

/// The metric names [`render`] can emit with their sample suffixes (`_bucket`, `_sum`,
/// `_count` for histograms): what a dashboard or rule may refer to.
pub fn sample_names() -> Vec<String> {
    let mut v = Vec::new();
    for f in FAMILIES {
        if f.kind == Kind::Histogram {
            for suf in ["_bucket", "_sum", "_count"] {
                v.push(format!("{}{suf}", f.name));
            }
        } else {
            v.push(f.name.to_string());
        }
    }
    v.extend(PROCESS_FAMILIES.iter().map(|n| n.to_string()));
    v
}

struct Builder {
    metrics: Vec<Vec<Metric>>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            metrics: vec![Vec::new(); FAMILIES.len()],
        }
    }

    fn labels(fam: usize, values: &[&str]) -> Vec<LabelPair> {
        FAMILIES[fam]
            .labels
            .iter()
            .zip(values)
            .map(|(n, v)| {
                let mut l = LabelPair::default();
                l.set_name((*n).to_string());
                // names and port names come from the switches' answers: escaped, bounded
                l.set_value(canopy_proto::text::printable(v).into_owned());
                l
            })
            .collect()
    }

    fn value(&mut self, fam: usize, values: &[&str], v: f64) {
        let mut m = Metric::from_label(Self::labels(fam, values));
        match FAMILIES[fam].kind {
            Kind::Counter => {
                let mut c = Counter::default();
                c.set_value(v);
                m.set_counter(c);
            }
            Kind::Gauge | Kind::Histogram => {
                let mut g = Gauge::default();
                g.set_value(v);
                m.set_gauge(g);
            }
        }
        self.metrics[fam].push(m);
    }

    fn histogram(&mut self, fam: usize, values: &[&str], h: &HistogramSnapshot) {
        let mut m = Metric::from_label(Self::labels(fam, values));
        let mut ph = Histogram::default();
        let buckets = h
            .bounds
            .iter()
            .zip(h.cumulative())
            .filter(|(b, _)| b.is_finite())
            .map(|(b, c)| {
                let mut bk = Bucket::default();
                bk.set_upper_bound(*b);
                bk.set_cumulative_count(c);
                bk
            })
            .collect();
        ph.set_bucket(buckets);
        ph.set_sample_count(h.count);
        ph.set_sample_sum(h.sum);
        m.set_histogram(ph);
        self.metrics[fam].push(m);
    }

    fn finish(self) -> Vec<MetricFamily> {
        FAMILIES
            .iter()
            .zip(self.metrics)
            .filter(|(_, m)| !m.is_empty())
            .map(|(f, m)| {
                let mut mf = MetricFamily::default();
                mf.set_name(f.name.to_string());
                mf.set_help(f.help.to_string());
                mf.set_field_type(match f.kind {
                    Kind::Counter => MetricType::COUNTER,
                    Kind::Gauge => MetricType::GAUGE,
                    Kind::Histogram => MetricType::HISTOGRAM,
                });
                mf.set_metric(m);
                mf
            })
            .collect()
    }
}

fn b2f(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

fn collect_into(s: &FabricSnapshot, b: &mut Builder) {
    let fabric = s.fabric.as_str();
    for sw in &s.switches {
        collect_switch(fabric, sw, b);
    }
    b.value(READY, &[fabric], b2f(s.ready));
    let protocol = canopy_proto::version::PROTOCOL_VERSION.to_string();
    b.value(
        BUILD_INFO,
        &[fabric, canopy_proto::version::RELEASE, &protocol],
        1.0,
    );
    b.value(SWITCHES, &[fabric], s.switches.len() as f64);
    let pruned: usize = s.switches.iter().map(|w| w.pruned_ports.len()).sum();
    b.value(PRUNED, &[fabric], pruned as f64);
    if let Some(t) = &s.traffic {
        b.value(TRAFFIC_SENT, &[fabric], t.sent_total as f64);
        b.value(TRAFFIC_RECEIVED, &[fabric], t.received_total as f64);
        b.value(TRAFFIC_LOST, &[fabric], t.lost_total as f64);
        b.value(TRAFFIC_MISDELIVERED, &[fabric], t.misdelivered_total as f64);
        b.histogram(TRAFFIC_LATENCY, &[fabric], &t.latency);
    }
}

fn collect_switch(fabric: &str, sw: &SwitchSnapshot, b: &mut Builder) {
    let name = sw.name.as_str();
    let fs = [fabric, name];
    b.value(SWITCH_UP, &fs, b2f(sw.up));
    b.value(SWITCH_TABLES_CURRENT, &fs, b2f(sw.tables_current));
    b.value(PUSHES, &fs, sw.pushes_total as f64);
    b.value(PUSH_FAILURES, &fs, sw.push_failures_total as f64);
    b.value(DOWN_EVENTS, &fs, sw.down_events_total as f64);
    b.value(RESTARTS, &fs, sw.restarts_total as f64);
    b.histogram(PROBE, &fs, &sw.probe_rtt);
    if !sw.up {
        // Stale: the last answers of a switch that no longer answers are not exported.
        return;
    }
    if let Some(h) = &sw.health {
        // `instance` is the switch's start in ns since the epoch (0: it does not say)
        if h.instance != 0 {
            let start = std::time::Duration::from_nanos(h.instance);
            b.value(SWITCH_START_TIME, &fs, start.as_secs_f64());
        }
        let release = if h.version.is_empty() {
            "unknown"
        } else {
            h.version.as_str()
        };
        let protocol = h.protocol_version.to_string();
        b.value(SWITCH_BUILD_INFO, &[fabric, name, release, &protocol], 1.0);
    }
    // Ports: the union of what health and counters report, by number.
    let mut ports: BTreeMap<u16, (Option<&PortHealth>, Option<&PortCounters>)> = BTreeMap::new();
    if let Some(h) = &sw.health {
        for p in &h.ports {
            ports.entry(p.port).or_default().0 = Some(p);
        }
    }
    if let Some(c) = &sw.counters {
        for p in &c.ports {
            ports.entry(p.port).or_default().1 = Some(p);
        }
    }
    for (port, (h, c)) in ports {
        let pn = port.to_string();
        let l = [fabric, name, pn.as_str()];
        if let Some(c) = c {
            b.value(PORT_RX_FRAMES, &l, c.rx_packets as f64);
            b.value(PORT_RX_BYTES, &l, c.rx_bytes as f64);
            b.value(PORT_TX_FRAMES, &l, c.tx_packets as f64);
            b.value(PORT_TX_BYTES, &l, c.tx_bytes as f64);
            for (reason, n) in &c.drops {
                b.value(PORT_DROPS, &[fabric, name, &pn, reason], *n as f64);
            }
            b.value(
                PORT_BACKEND_DROPS,
                &[fabric, name, &pn, "kernel"],
                c.backend.kernel_drops as f64,
            );
            for (reason, n) in &c.backend.drops {
                if reason != "kernel" {
                    b.value(PORT_BACKEND_DROPS, &[fabric, name, &pn, reason], *n as f64);
                }
            }
            b.value(PORT_ADAPTIVE, &l, c.adaptive_choices as f64);
            b.value(PORT_RING, &l, c.ring_occupancy as f64);
            b.value(PORT_BACKLOG, &l, c.tx_backlog as f64);
            b.value(PORT_LINK_DOWN_EVENTS, &l, c.backend.link_down_events as f64);
            b.value(PORT_REOPENS, &l, c.backend.reopens as f64);
            b.value(PORT_TX_REQUEUES, &l, c.backend.tx_requeues as f64);
        }
        if let Some(h) = h {
            b.value(PORT_LINK_UP, &l, b2f(h.link));
            b.value(PORT_ADMIN_UP, &l, b2f(h.admin));
        }
        b.value(PORT_IN_USE, &l, b2f(!sw.pruned_ports.contains(&port)));
        let (ifname, backend) = match (h, c) {
            (Some(h), _) => (h.name.as_str(), h.backend.as_str()),
            (None, Some(c)) => (c.name.as_str(), ""),
            (None, None) => ("", ""),
        };
        b.value(PORT_INFO, &[fabric, name, &pn, ifname, backend], 1.0);
    }
}

#[cfg(test)]
pub(crate) mod tests;
