//! The management protocol: newline-delimited JSON over a Unix stream socket (and,
//! when configured, a TCP endpoint whose connections start with `auth`), one
//! request object per line, one response object per line (`docs/canopy-switch.md`).
//!
//! Requests carry an `"op"`; responses are `{"ok":true,...}` or
//! `{"ok":false,"error":"what and where"}`. The report types here are shared by the
//! server (which fills them), the `ctl` client (which prints them) and the final
//! counter dump at shutdown.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use strum::VariantNames;

/// Every op, for error messages: the names of [`Request`]'s variants as they travel.
pub const OPS: &[&str] = Request::VARIANTS;

crate::op_tagged! {
    /// A request. Its `op` is the variant's name in snake case, for serde (the wire) and
    /// for strum ([`OPS`], [`Request::op`]) alike.
    #[derive(Debug, Clone)]
    pub enum Request {
        /// Uptime, ports, tables (struct variants so unknown fields are refused).
        Health {},
        /// Per-port counters.
        Counters {},
        /// Set a port administratively up or down.
        SetPort {
            /// Port number.
            port: u16,
            /// Up (true) or down.
            up: bool,
        },
        /// Replace the tables atomically (validated first).
        ReplaceTables {
            /// SwitchTables JSON.
            tables: Box<serde_json::value::RawValue>,
        },
        /// The tables in use.
        GetTables {},
        /// Send frames into the switch on a mem port (from its far end).
        Inject {
            /// Port number.
            port: u16,
            /// Frames in hex (at most [`MAX_INJECT`], refused while decoding beyond).
            #[serde(deserialize_with = "at_most_max_inject")]
            frames: Vec<String>,
        },
        /// Take frames the switch sent out of a mem port (at its far end).
        Capture {
            /// Port number.
            port: u16,
            /// At most this many (default [`DEFAULT_CAPTURE`]).
            #[serde(default)]
            max: Option<usize>,
        },
        /// Set the flowlet idle gap of the switch's adaptive choices, or read it (no
        /// `gap_us`): a flow keeps its up port while its frames are closer together than
        /// the gap; 0 = every frame chooses afresh. Answered with [`FlowletGap`].
        Flowlets {
            /// The new gap in µs (at most [`MAX_FLOWLET_GAP_US`]); absent: only read it.
            #[serde(default)]
            gap_us: Option<u64>,
        },
        /// The handshake: the client's protocol version, answered with the switch's
        /// ([`crate::version`]); a mismatch is refused and the connection closed.
        Hello {
            /// The client's [`crate::version::PROTOCOL_VERSION`].
            version: u32,
        },
    }
}

/// `inject`'s frames, refused as soon as there are more than [`MAX_INJECT`].
fn at_most_max_inject<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of at most {MAX_INJECT} hex frames")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut a: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::new();
            while let Some(f) = a.next_element()? {
                if out.len() == MAX_INJECT {
                    return Err(serde::de::Error::custom(format!(
                        "more than {MAX_INJECT} frames in one inject"
                    )));
                }
                out.push(f);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

impl Request {
    /// The request's `op`.
    pub fn op(&self) -> &'static str {
        self.into()
    }
}

/// How the error answer to a failed authentication starts (a wrong proof, a malformed
/// `challenge` or `auth`, another request before them, or no `auth` in time); the
/// connection is then closed.
pub const AUTH_FAILED: &str = "authentication failed";

/// Most TCP management connections open at once (at most half of them not yet
/// authenticated); one more takes the slot of one waiting between requests, or is
/// refused when all are in a request ([`crate::serve`]).
pub const MAX_TCP_CONNS: usize = 16;

/// Most connections on the management socket at once, as [`MAX_TCP_CONNS`].
pub const MAX_UNIX_CONNS: usize = 16;

/// The longest flowlet gap a switch takes (a minute), in its config and in `flowlets`.
pub const MAX_FLOWLET_GAP_US: u64 = 60_000_000;

/// `flowlets` response body.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct FlowletGap {
    /// The gap in use, in µs (0: off).
    pub gap_us: u64,
}

/// Frames one `capture` returns when `max` is not given.
pub const DEFAULT_CAPTURE: usize = 1024;
/// Most frames one `capture` returns.
pub const MAX_CAPTURE: usize = 65536;
/// Most frame bytes one `capture` returns (hex doubles them in the answer); the rest
/// stays for the next `capture`.
pub const MAX_CAPTURE_BYTES: usize = 16 << 20;
/// Most frames one `inject` carries.
pub const MAX_INJECT: usize = 65536;

/// One port in `health`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PortHealth {
    /// Port number.
    pub port: u16,
    /// Interface or mem port name.
    pub name: String,
    /// `mem`, `afpacket`, or `afxdp/<mode>` (`afxdp/zerocopy`, `afxdp/copy`, `afxdp/skb`).
    pub backend: String,
    /// Why the port runs in a lesser mode than it asked for: an AF_XDP port in mode
    /// `auto` that got generic XDP names the driver's refusal of native XDP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode_note: Option<String>,
    /// Link (carrier) up.
    pub link: bool,
    /// Administratively up.
    pub admin: bool,
}

/// `health` response body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Health {
    /// Seconds since start.
    pub uptime_s: f64,
    /// Process id.
    pub pid: u32,
    /// When this switch started, in ns since the Unix epoch: with the pid, tells a
    /// switch started again (in its own process or in a shared host, whose pid stays)
    /// from one that kept running (0: a switch that does not say).
    #[serde(default)]
    pub instance: u64,
    /// Worker threads.
    pub workers: usize,
    /// Polling mode.
    pub mode: String,
    /// Whether real tables are loaded (false: every frame is dropped).
    pub tables_loaded: bool,
    /// Name in the tables (the switch's name in its topology), None when not loaded.
    pub tables: Option<String>,
    /// Header kinds configured.
    pub kinds: Vec<String>,
    /// Ports.
    pub ports: Vec<PortHealth>,
    /// The TCP management endpoint's bound address (None: TCP is off).
    #[serde(default)]
    pub tcp: Option<String>,
    /// The P4Runtime endpoint's bound address (`ADDR:PORT` or `unix:PATH`; None: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p4runtime: Option<String>,
    /// TCP connections closed for authentication since start: a wrong proof, another
    /// request before `auth`, or no `auth` in time.
    #[serde(default)]
    pub auth_failures: u64,
    /// TCP connections refused because [`MAX_TCP_CONNS`] were open, each in a request.
    #[serde(default)]
    pub tcp_refused: u64,
    /// Connections (management socket and TCP) closed to give their slot to a new one
    /// while they waited between requests or had not authenticated.
    #[serde(default)]
    pub conns_evicted: u64,
    /// The switch's [`crate::version::PROTOCOL_VERSION`] (0: a switch before versions).
    #[serde(default)]
    pub protocol_version: u32,
    /// The switch's release, its Cargo package version ([`crate::version::RELEASE`];
    /// empty from a switch that does not say).
    #[serde(default)]
    pub version: String,
    /// The switch's per-port capture (`[capture]`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureReport>,
}

/// A switch's per-port capture in `health`: where its files are and what each holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct CaptureReport {
    /// The directory of the files.
    pub dir: String,
    /// One per captured port and direction.
    pub files: Vec<CaptureFile>,
}

/// One capture file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct CaptureFile {
    /// The port.
    pub port: u16,
    /// `in` (received) or `out` (sent).
    pub direction: String,
    /// The file.
    pub path: String,
    /// Frames written.
    pub written: u64,
    /// Frames not captured because the writer's queue was full (they were forwarded).
    pub dropped: u64,
    /// Frames not written because the file held its `max_frames` (or had failed).
    pub skipped: u64,
    /// Why the file stopped, if a write failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One port in `counters`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct PortCounters {
    /// Port number.
    pub port: u16,
    /// Name.
    pub name: String,
    /// Frames received.
    pub rx_packets: u64,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Frames transmitted.
    pub tx_packets: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Adaptive choices that picked this port.
    pub adaptive_choices: u64,
    /// Frames waiting in the rings towards this port.
    pub ring_occupancy: u64,
    /// Total drops counted at this port.
    pub dropped: u64,
    /// Drops by reason (every reason, zeros included).
    pub drops: BTreeMap<String, u64>,
    /// Frames the port's backend holds but has not sent yet (AF_PACKET TX ring).
    #[serde(default)]
    pub tx_backlog: u64,
    /// The backend's own counters, beside rx = tx + drops (see docs/engine.md).
    #[serde(default)]
    pub backend: BackendReport,
}

/// A port backend's own counters (`docs/wire-format.md` §7.1). Backend RX drops
/// happen before the engine sees a frame; backend TX refusals are also counted by the
/// engine (`tx_error`, `port_down`), so these are reported beside the engine's drops.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct BackendReport {
    /// Frames the kernel dropped because the RX ring was full (AF_PACKET `tp_drops`).
    pub kernel_drops: u64,
    /// Times the link went down.
    pub link_down_events: u64,
    /// Times the port reopened after its interface was re-created.
    pub reopens: u64,
    /// Frames the kernel dropped at the device or its qdisc and put back in the TX ring
    /// to be sent again (AF_PACKET: a send refused with `ENOBUFS`): each is one of the
    /// interface's `tx_dropped` (or the qdisc's drops) that lost no frame.
    #[serde(default)]
    pub tx_requeues: u64,
    /// Backend drops by reason (AF_PACKET names; empty for `mem`).
    pub drops: BTreeMap<String, u64>,
}

/// `counters` response body.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CountersReport {
    /// Seconds since start.
    pub uptime_s: f64,
    /// The switch's process id (0 from a switch that does not say): with the uptime, tells a
    /// restarted switch from one that kept running between two reports.
    #[serde(default)]
    pub pid: u32,
    /// Per port.
    pub ports: Vec<PortCounters>,
    /// Sum of rx_packets.
    pub rx_packets: u64,
    /// Sum of tx_packets.
    pub tx_packets: u64,
    /// Sum of drops.
    pub dropped: u64,
}

impl CountersReport {
    /// Whether `self` comes from another run of the switch than `earlier` did: its uptime
    /// went back, or (both known) its process id changed. A switch restarted and running
    /// longer since than it had before is caught by the second.
    pub fn restarted_since(&self, earlier: &CountersReport) -> bool {
        self.uptime_s < earlier.uptime_s
            || (self.pid != 0 && earlier.pid != 0 && self.pid != earlier.pid)
    }

    /// Drops of one reason over all ports.
    pub fn drops_named(&self, reason: &str) -> u64 {
        self.ports
            .iter()
            .map(|p| p.drops.get(reason).copied().unwrap_or(0))
            .sum()
    }
}

/// The counters as a text table (the `ctl counters` view and the final dump).
pub fn format_counters(c: &CountersReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>4}  {:<12} {:>12} {:>14} {:>12} {:>14} {:>10} {:>6} {:>10}",
        "port",
        "name",
        "rx_packets",
        "rx_bytes",
        "tx_packets",
        "tx_bytes",
        "adaptive",
        "ring",
        "dropped"
    );
    for p in &c.ports {
        let _ = writeln!(
            s,
            "{:>4}  {:<12} {:>12} {:>14} {:>12} {:>14} {:>10} {:>6} {:>10}",
            p.port,
            p.name,
            p.rx_packets,
            p.rx_bytes,
            p.tx_packets,
            p.tx_bytes,
            p.adaptive_choices,
            p.ring_occupancy,
            p.dropped
        );
    }
    let _ = writeln!(
        s,
        "total: rx {} tx {} dropped {}",
        c.rx_packets, c.tx_packets, c.dropped
    );
    let mut any = false;
    for p in &c.ports {
        let nz: Vec<String> = p
            .drops
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(r, n)| format!("{r}={n}"))
            .collect();
        if !nz.is_empty() {
            if !any {
                let _ = writeln!(s, "drops by reason:");
                any = true;
            }
            let _ = writeln!(s, "  port {} ({}): {}", p.port, p.name, nz.join(" "));
        }
    }
    if !any {
        let _ = writeln!(s, "drops by reason: none");
    }
    // backend counters, beside the engine's (only ports where something happened)
    for p in &c.ports {
        let b = &p.backend;
        let mut nz: Vec<String> = b
            .drops
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(r, n)| format!("{r}={n}"))
            .collect();
        for (name, n) in [
            ("kernel_drops", b.kernel_drops),
            ("link_down_events", b.link_down_events),
            ("reopens", b.reopens),
            ("tx_requeues", b.tx_requeues),
            ("tx_backlog", p.tx_backlog),
        ] {
            if n > 0 {
                nz.push(format!("{name}={n}"));
            }
        }
        if !nz.is_empty() {
            let _ = writeln!(
                s,
                "  backend port {} ({}): {}",
                p.port,
                p.name,
                nz.join(" ")
            );
        }
    }
    s
}

/// `health` as text.
pub fn format_health(h: &Health) -> String {
    let mut s = String::new();
    let tables = match (&h.tables, h.tables_loaded) {
        (Some(n), true) => format!("{n} ({})", h.kinds.join(", ")),
        _ => "none loaded (every frame is dropped until `replace_tables`)".into(),
    };
    let _ = writeln!(s, "tables    {tables}");
    let _ = writeln!(s, "uptime    {:.1} s", h.uptime_s);
    let _ = writeln!(s, "pid       {}", h.pid);
    let release = if h.version.is_empty() {
        "unknown"
    } else {
        h.version.as_str()
    };
    let _ = writeln!(s, "version   {release} (protocol {})", h.protocol_version);
    let _ = writeln!(s, "workers   {} ({})", h.workers, h.mode);
    if let Some(t) = &h.tcp {
        let _ = writeln!(
            s,
            "tcp       {t} (auth failures {}, refused over the limit {})",
            h.auth_failures, h.tcp_refused
        );
    }
    let _ = writeln!(s, "ports     {}", h.ports.len());
    for p in &h.ports {
        let ud = |b: bool| if b { "up" } else { "down" };
        let _ = writeln!(
            s,
            "  {:>3}  {:<12} {:<9} link {:<5} admin {}",
            p.port,
            p.name,
            p.backend,
            ud(p.link),
            ud(p.admin)
        );
    }
    if let Some(c) = &h.capture {
        let _ = write!(s, "{}", format_capture(c));
    }
    s
}

/// A capture report as text: the directory, then a line per file.
pub fn format_capture(c: &CaptureReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "capture   {} ({} files)", c.dir, c.files.len());
    for f in &c.files {
        let _ = writeln!(
            s,
            "  {:>3}  {:<3}  written {:>9}  dropped {:>7}  past max {:>7}  {}{}",
            f.port,
            f.direction,
            f.written,
            f.dropped,
            f.skipped,
            f.path,
            f.error
                .as_deref()
                .map(|e| format!("  FAILED: {e}"))
                .unwrap_or_default()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_and_reject_unknown_fields_and_ops() {
        let r: Request = serde_json::from_str(r#"{"op":"set_port","port":2,"up":false}"#).unwrap();
        assert!(matches!(r, Request::SetPort { port: 2, up: false }));
        let r: Request = serde_json::from_str(r#"{"op":"capture","port":1}"#).unwrap();
        assert!(matches!(r, Request::Capture { port: 1, max: None }));
        let r: Request = serde_json::from_str(r#"{"op":"health"}"#).unwrap();
        assert!(matches!(r, Request::Health {}));
        assert!(serde_json::from_str::<Request>(r#"{"op":"health","x":1}"#).is_err());
        assert!(serde_json::from_str::<Request>(r#"{"op":"reboot"}"#).is_err());
        assert!(serde_json::from_str::<Request>(r#"{"op":"set_port","port":2}"#).is_err());
    }

    /// One request of every op.
    fn every_request() -> Vec<Request> {
        vec![
            Request::Health {},
            Request::Counters {},
            Request::SetPort { port: 1, up: false },
            Request::ReplaceTables {
                tables: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
            },
            Request::GetTables {},
            Request::Inject {
                port: 0,
                frames: vec!["00".into()],
            },
            Request::Capture {
                port: 0,
                max: Some(1),
            },
            Request::Flowlets { gap_us: Some(500) },
            Request::Hello { version: 1 },
        ]
    }

    #[test]
    fn ops_are_the_serialized_ops_of_every_variant() {
        let all = every_request();
        crate::tests::ops_are_the_variants(&all, OPS, Request::op);
    }

    #[test]
    fn counters_text_lists_nonzero_drops() {
        let mut p = PortCounters {
            port: 0,
            name: "m0".into(),
            rx_packets: 3,
            dropped: 2,
            ..Default::default()
        };
        p.drops.insert("port_down".into(), 2);
        p.drops.insert("ring_full".into(), 0);
        let c = CountersReport {
            ports: vec![p],
            rx_packets: 3,
            dropped: 2,
            ..Default::default()
        };
        let s = format_counters(&c);
        assert!(s.contains("port 0 (m0): port_down=2"), "{s}");
        assert!(!s.contains("ring_full="), "{s}");
        assert!(s.contains("total: rx 3 tx 0 dropped 2"), "{s}");
    }
}
