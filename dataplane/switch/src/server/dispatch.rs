//! Answering management requests: one JSON line in, one JSON answer out (`ok` and the
//! op's fields, or `ok: false` and an `error` naming the op).

use super::Shared;
use crate::tables;
use anyhow::{bail, Context, Result};
use canopy_dataplane::engine::counters::{reason_name, N_REASONS};
use canopy_dataplane::engine::mem;
use canopy_dataplane::engine::pool::BUF_SIZE;
use canopy_dataplane::table::SwitchTables;
use canopy_proto::mgmt::{
    BackendReport, CountersReport, FlowletGap, Health, PortCounters, PortHealth, Request,
    DEFAULT_CAPTURE, MAX_CAPTURE, MAX_CAPTURE_BYTES, MAX_FLOWLET_GAP_US, OPS,
};
use canopy_proto::version::{answer_hello, PROTOCOL_VERSION, SWITCH};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Duration;
use tracing::{debug, info};

/// The answer refusing a request: `{"ok": false, "error": msg}`.
pub(crate) fn err(msg: impl std::fmt::Display) -> Value {
    json!({"ok": false, "error": msg.to_string()})
}

/// `report` as JSON, with `"ok": true` added.
fn ok_with(report: impl Serialize) -> Result<Value> {
    let mut v = serde_json::to_value(report)?;
    v["ok"] = json!(true);
    Ok(v)
}

impl Shared {
    /// Answer one request line.
    pub fn handle_line(&self, line: &[u8]) -> Value {
        self.answer_value(line).0
    }

    /// Answer one request line, saying whether the connection ends after the answer (a
    /// refused `hello`: another protocol version, or not a well-formed `hello`). The
    /// line is decoded straight into a [`Request`] ([`canopy_proto::tagged`]): no
    /// generic value tree is built from it, unknown and duplicate fields are refused.
    pub(super) fn answer_value(&self, line: &[u8]) -> (Value, bool) {
        let req: Request = match serde_json::from_slice(line) {
            Ok(r) => r,
            Err(e) => {
                let op = op_of(line);
                let hello = op.as_deref() == Some("hello");
                return (refusal(op.as_deref(), &e), hello);
            }
        };
        let op = req.op();
        let hello = matches!(req, Request::Hello { .. });
        let gate = self.stopping.read().unwrap_or_else(|p| p.into_inner());
        if *gate {
            return (err("the switch is shutting down"), hello);
        }
        let value = match self.handle(req) {
            Ok(v) => v,
            Err(e) => {
                let e = format!("{e:#}");
                debug!("{op}: {}", canopy_proto::text::printable(&e));
                err(format!("{op}: {e}"))
            }
        };
        let close = hello && value["ok"] != json!(true);
        (value, close)
    }
}

impl canopy_proto::serve::Service for Shared {
    fn answer(&self, line: &[u8]) -> canopy_proto::serve::Answer {
        let (v, close) = self.answer_value(line);
        canopy_proto::serve::Answer::json(&v).closing_if(close)
    }
}

/// The `op` string of a line that did not decode as a request, if it has one.
fn op_of(line: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Op<'a> {
        #[serde(borrow)]
        op: std::borrow::Cow<'a, str>,
    }
    serde_json::from_slice::<Op>(line).ok().map(|o| o.op)
}

/// The answer refusing a line that is not a request (its `op`, if any, and why):
/// what is wrong, naming the op when it has a known one.
fn refusal(op: Option<&str>, e: &serde_json::Error) -> Value {
    if e.is_syntax() || e.is_eof() {
        return err(format!("malformed JSON: {e}"));
    }
    match op {
        Some(o) if o == "auth" || o == "challenge" => err(format!(
            "{o}: only the TCP endpoint authenticates, and only before its first request (the Unix socket is protected by its 0600 mode)"
        )),
        Some(o) if OPS.contains(&o) => err(format!("{o}: {e}")),
        Some(o) => err(format!("unknown op {o:?} (ops: {})", OPS.join(", "))),
        None if e.to_string().contains("duplicate field") => err(e),
        None => err("a request is a JSON object with an \"op\" string"),
    }
}

impl Shared {
    fn nports(&self) -> usize {
        self.ports.len()
    }

    fn port_no(&self, port: u16) -> Result<usize> {
        let p = usize::from(port);
        if p >= self.nports() {
            bail!("no port {port} (ports are 0..{})", self.nports());
        }
        Ok(p)
    }

    fn handle(&self, req: Request) -> Result<Value> {
        Ok(match req {
            Request::Health {} => ok_with(self.health())?,
            Request::Counters {} => ok_with(self.counters())?,
            Request::SetPort { port, up } => {
                self.port_no(port)?;
                self.handle.set_admin(port, up)?;
                info!(port, up, "port admin state set");
                json!({"ok": true, "port": port, "admin": up})
            }
            Request::ReplaceTables { tables } => self.replace_tables(&tables)?,
            Request::GetTables {} => {
                if self.loaded.load(Ordering::Acquire) {
                    json!({"ok": true, "tables": serde_json::to_value(&*self.handle.tables())?})
                } else {
                    json!({"ok": true, "tables": null})
                }
            }
            Request::Inject { port, frames } => self.inject(port, &frames)?,
            Request::Hello { version } => serde_json::to_value(answer_hello(SWITCH, version))?,
            Request::Capture { port, max } => self.capture(port, max)?,
            Request::Flowlets { gap_us } => self.flowlets(gap_us)?,
        })
    }

    /// `flowlets`: set the flowlet gap (when given), answer the one in use.
    fn flowlets(&self, gap_us: Option<u64>) -> Result<Value> {
        if let Some(g) = gap_us {
            if g > MAX_FLOWLET_GAP_US {
                bail!("gap_us {g} is more than a minute ({MAX_FLOWLET_GAP_US})");
            }
            self.handle
                .set_flowlet_gap((g > 0).then(|| Duration::from_micros(g)));
            info!(gap_us = g, "flowlet gap set");
        }
        let gap_us = self
            .handle
            .flowlet_gap()
            .map_or(0, |d| d.as_micros() as u64);
        ok_with(FlowletGap { gap_us })
    }

    /// `replace_tables`: validated against this switch, then swapped in.
    fn replace_tables(&self, tables: &serde_json::value::RawValue) -> Result<Value> {
        // straight from the request's text into the typed tables
        if self.p4rt_owned.load(Ordering::Acquire) {
            bail!("the tables are programmed over P4Runtime (a controller committed a pipeline): write them there");
        }
        let t: SwitchTables =
            serde_json::from_str(tables.get()).context("tables are not SwitchTables JSON")?;
        tables::validate(&t, self.nports())?;
        let name = t.name.clone();
        let kinds = tables::kinds_of(&t);
        self.handle.swap_tables(t)?;
        self.loaded.store(true, Ordering::Release);
        info!(tables = %name, ?kinds, "tables replaced");
        canopy_proto::service::status(&format!(
            "forwarding with tables {name} on {} ports",
            self.nports()
        ));
        Ok(json!({"ok": true, "tables": name, "kinds": kinds}))
    }

    /// `inject`: every frame checked first, then each sent from the mem port's far end
    /// (refused when no buffer is free or the ring is full).
    fn inject(&self, port: u16, frames: &[String]) -> Result<Value> {
        let far = self.far_end(port)?;
        let mut bytes = Vec::with_capacity(frames.len());
        for (i, f) in frames.iter().enumerate() {
            let b = hex::decode(f).with_context(|| format!("frames[{i}] is not hex"))?;
            if b.is_empty() || b.len() > BUF_SIZE {
                bail!("frames[{i}] has {} bytes (1..={BUF_SIZE})", b.len());
            }
            bytes.push(b);
        }
        let mut end = far.lock().unwrap_or_else(|p| p.into_inner());
        let (mut injected, mut refused) = (0u64, 0u64);
        for b in &bytes {
            let Some(mut buf) = self.pool.get() else {
                refused += 1;
                continue;
            };
            buf.fill(b);
            match end.send(buf) {
                Ok(()) => injected += 1,
                Err(buf) => {
                    self.pool.put(buf);
                    refused += 1;
                }
            }
        }
        end.notify();
        Ok(json!({"ok": true, "injected": injected, "refused": refused}))
    }

    /// `capture`: up to `max` frames (default [`DEFAULT_CAPTURE`], at most
    /// [`MAX_CAPTURE`] and [`MAX_CAPTURE_BYTES`]) from the mem port's far end.
    fn capture(&self, port: u16, max: Option<usize>) -> Result<Value> {
        let far = self.far_end(port)?;
        let max = max.unwrap_or(DEFAULT_CAPTURE).min(MAX_CAPTURE);
        let mut end = far.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        let mut bytes = 0;
        // a frame is at most BUF_SIZE: stop while the next one surely fits the budget
        while out.len() < max && bytes + BUF_SIZE <= MAX_CAPTURE_BYTES {
            let Some(b) = end.recv() else { break };
            bytes += b.bytes().len();
            out.push(hex::encode(b.bytes()));
            self.pool.put(b);
        }
        Ok(json!({"ok": true, "frames": out}))
    }

    fn far_end(&self, port: u16) -> Result<&Mutex<mem::MemPort>> {
        let p = self.port_no(port)?;
        match &self.far[p] {
            Some(m) => Ok(m),
            None => bail!(
                "port {port} ({}) is an {} port; inject and capture work on mem ports",
                self.ports[p].0,
                self.ports[p].1.backend
            ),
        }
    }

    /// The `health` report.
    pub fn health(&self) -> Health {
        let loaded = self.loaded.load(Ordering::Acquire);
        let t = self.handle.tables();
        Health {
            uptime_s: self.start.elapsed().as_secs_f64(),
            pid: std::process::id(),
            instance: self.instance,
            workers: self.workers,
            mode: self.mode.into(),
            tables_loaded: loaded,
            tables: loaded.then(|| t.name.clone()),
            kinds: tables::kinds_of(&t).into_iter().map(String::from).collect(),
            ports: self
                .ports
                .iter()
                .enumerate()
                .map(|(i, (name, label))| {
                    let st = self.handle.port_state(i as u16);
                    PortHealth {
                        port: i as u16,
                        name: name.clone(),
                        backend: label.backend.into(),
                        mode_note: label.note.clone(),
                        link: st.is_some_and(|s| s.link_up()),
                        admin: st.is_some_and(|s| s.admin_up()),
                    }
                })
                .collect(),
            tcp: self.tcp.map(|a| a.to_string()),
            p4runtime: self.p4runtime_addr().map(|a| a.to_string()),
            auth_failures: self.tcp_stats.auth_failures.load(Ordering::Relaxed),
            tcp_refused: self.tcp_stats.refused.load(Ordering::Relaxed),
            conns_evicted: self.tcp_stats.evicted.load(Ordering::Relaxed)
                + self.unix_stats.evicted.load(Ordering::Relaxed),
            protocol_version: PROTOCOL_VERSION,
            version: canopy_proto::version::RELEASE.into(),
            capture: self.capture_report(),
        }
    }

    /// The `counters` report.
    pub fn counters(&self) -> CountersReport {
        let stats = self.handle.counters();
        let mut r = CountersReport {
            uptime_s: self.start.elapsed().as_secs_f64(),
            pid: std::process::id(),
            ..Default::default()
        };
        for (i, s) in stats.iter().enumerate() {
            let drops = (0..N_REASONS)
                .map(|k| (reason_name(k).to_string(), s.drops[k]))
                .collect();
            r.rx_packets += s.rx_packets;
            r.tx_packets += s.tx_packets;
            r.dropped += s.dropped();
            r.ports.push(PortCounters {
                port: i as u16,
                name: self.ports.get(i).map(|p| p.0.clone()).unwrap_or_default(),
                rx_packets: s.rx_packets,
                rx_bytes: s.rx_bytes,
                tx_packets: s.tx_packets,
                tx_bytes: s.tx_bytes,
                adaptive_choices: s.adaptive_choices,
                ring_occupancy: s.ring_occupancy,
                dropped: s.dropped(),
                drops,
                tx_backlog: s.tx_backlog,
                backend: BackendReport {
                    kernel_drops: s.backend.kernel_drops,
                    link_down_events: s.backend.link_down_events,
                    reopens: s.backend.reopens,
                    tx_requeues: s.backend.tx_requeues,
                    drops: s
                        .backend
                        .drops
                        .iter()
                        .map(|(n, c)| (n.to_string(), *c))
                        .collect(),
                },
            });
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, TablesSource};
    use canopy_dataplane::engine::Engine;
    use canopy_dataplane::Kind;
    use std::path::Path;

    /// A switch of four mem ports (capacity 4), not running, with the placeholder tables.
    fn rig() -> (Shared, Engine) {
        let mut text =
            "[switch]\nworkers = 1\n[management]\nsocket = \"/nonexistent/t.sock\"\n".to_string();
        for i in 0..4 {
            text += &format!("[[port]]\nbackend = \"mem\"\nname = \"p{i}\"\ncapacity = 4\n");
        }
        let cfg = Config::parse(Path::new("t.toml"), &text).unwrap();
        Shared::in_process(&cfg, None).unwrap()
    }

    /// Tables of a four-port switch.
    fn edge() -> SwitchTables {
        tables::load(&TablesSource::Topology {
            spec: "fat-tree:k=4".into(),
            kind: Kind::Sliced,
            switch: "edge-p0-e0".into(),
            mode: None,
        })
        .unwrap()
    }

    fn ask(sh: &Shared, req: Value) -> Value {
        sh.handle_line(req.to_string().as_bytes())
    }

    /// The answer's keys, sorted.
    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {v}"))
            .keys()
            .map(String::as_str)
            .collect();
        k.sort_unstable();
        k
    }

    /// `v` is a refusal, `{"ok": false, "error": ...}`, whose error is `want`.
    fn refused(v: &Value, want: &str) {
        assert_eq!(keys(v), ["error", "ok"], "{v}");
        assert_eq!(v["ok"], false, "{v}");
        assert_eq!(v["error"], want, "{v}");
    }

    /// `v` is a refusal whose error starts with `want`.
    fn refused_with(v: &Value, want: &str) {
        assert_eq!(keys(v), ["error", "ok"], "{v}");
        assert_eq!(v["ok"], false, "{v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.starts_with(want), "{e:?} does not start with {want:?}");
    }

    #[test]
    fn health_and_counters_answer_their_reports() {
        let (sh, _engine) = rig();
        let v = ask(&sh, json!({"op": "health"}));
        assert_eq!(v["ok"], true, "{v}");
        let h: Health = serde_json::from_value(v).unwrap();
        assert_eq!((h.workers, h.mode.as_str()), (1, "adaptive"));
        assert!(!h.tables_loaded && h.tables.is_none(), "{h:?}");
        assert_eq!(h.ports.len(), 4);
        assert_eq!(
            (h.ports[2].name.as_str(), h.ports[2].backend.as_str()),
            ("p2", "mem")
        );
        assert_eq!(h.protocol_version, PROTOCOL_VERSION);
        assert_eq!(h.tcp, None);
        let v = ask(&sh, json!({"op": "counters"}));
        assert_eq!(v["ok"], true, "{v}");
        let c: CountersReport = serde_json::from_value(v).unwrap();
        assert_eq!(c.ports.len(), 4);
        assert_eq!((c.rx_packets, c.tx_packets, c.dropped), (0, 0, 0));
    }

    #[test]
    fn set_port_answers_the_port_and_its_state() {
        let (sh, _engine) = rig();
        let v = ask(&sh, json!({"op": "set_port", "port": 1, "up": false}));
        assert_eq!(v, json!({"ok": true, "port": 1, "admin": false}));
        let h = sh.health();
        assert!(!h.ports[1].admin && h.ports[0].admin, "{h:?}");
    }

    #[test]
    fn flowlets_sets_and_reads_the_gap_and_refuses_more_than_a_minute() {
        let (sh, _engine) = rig();
        assert_eq!(
            ask(&sh, json!({"op": "flowlets"})),
            json!({"ok": true, "gap_us": 0})
        );
        let v = ask(&sh, json!({"op": "flowlets", "gap_us": 750}));
        assert_eq!(v, json!({"ok": true, "gap_us": 750}));
        assert_eq!(sh.handle.flowlet_gap(), Some(Duration::from_micros(750)));
        let v = ask(&sh, json!({"op": "flowlets", "gap_us": 60_000_001}));
        assert_eq!(v["ok"], false, "{v}");
        assert!(
            v["error"].as_str().unwrap().contains("more than a minute"),
            "{v}"
        );
        assert_eq!(ask(&sh, json!({"op": "flowlets"}))["gap_us"], 750);
        let v = ask(&sh, json!({"op": "flowlets", "gap_us": 0}));
        assert_eq!(v, json!({"ok": true, "gap_us": 0}));
        assert_eq!(sh.handle.flowlet_gap(), None);
    }

    #[test]
    fn tables_are_replaced_and_read_back() {
        let (sh, _engine) = rig();
        let v = ask(&sh, json!({"op": "get_tables"}));
        assert_eq!(v, json!({"ok": true, "tables": null}));
        let t = edge();
        let v = ask(&sh, json!({"op": "replace_tables", "tables": t}));
        assert_eq!(
            v,
            json!({"ok": true, "tables": t.name, "kinds": ["sliced"]})
        );
        let v = ask(&sh, json!({"op": "get_tables"}));
        assert_eq!(keys(&v), ["ok", "tables"]);
        assert_eq!(v["tables"], serde_json::to_value(&t).unwrap());
        assert!(sh.health().tables_loaded);
        // refused: not tables, tables of another switch size; the tables stay
        refused(
            &ask(
                &sh,
                json!({"op": "replace_tables", "tables": {"name": "x"}}),
            ),
            "replace_tables: tables are not SwitchTables JSON: missing field `ports` at line 1 column 12",
        );
        refused(
            &ask(
                &sh,
                json!({"op": "replace_tables", "tables": tables::placeholder(3)}),
            ),
            "replace_tables: tables of \"(none)\" have 3 ports but the switch has 4 (one [[port]] per table port, in order)",
        );
        assert_eq!(sh.health().tables.as_deref(), Some(t.name.as_str()));
    }

    #[test]
    fn inject_and_capture_work_on_mem_ports() {
        let (sh, _engine) = rig();
        let frame = "00".repeat(60);
        let v = ask(&sh, json!({"op": "inject", "port": 0, "frames": [frame]}));
        assert_eq!(v, json!({"ok": true, "injected": 1, "refused": 0}));
        // the port's ring holds 4 (the engine is not running to take them)
        let six = vec![frame; 6];
        let v = ask(&sh, json!({"op": "inject", "port": 1, "frames": six}));
        assert_eq!(v, json!({"ok": true, "injected": 4, "refused": 2}));
        let v = ask(&sh, json!({"op": "capture", "port": 0, "max": 10}));
        assert_eq!(v, json!({"ok": true, "frames": []}));
    }

    #[test]
    fn hello_answers_the_version_and_a_refused_one_closes() {
        let (sh, _engine) = rig();
        let line = json!({"op": "hello", "version": PROTOCOL_VERSION}).to_string();
        let (v, close) = sh.answer_value(line.as_bytes());
        assert!(!close);
        assert_eq!(v["ok"], true, "{}", v);
        assert_eq!(v["version"], PROTOCOL_VERSION);
        assert_eq!(v["server"], SWITCH);
        let line = json!({"op": "hello", "version": PROTOCOL_VERSION + 1}).to_string();
        let (v, close) = sh.answer_value(line.as_bytes());
        assert!(close);
        assert_eq!(v["ok"], false, "{}", v);
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()));
        // not a well-formed hello: refused and closed too
        let (v, close) = sh.answer_value(br#"{"op":"hello"}"#);
        assert!(close);
        refused_with(&v, "hello: missing field `version`");
        // other refusals leave the connection open
        let (_, close) = sh.answer_value(br#"{"op":"set_port","port":9,"up":true}"#);
        assert!(!close);
    }

    #[test]
    fn refused_requests_name_the_op_and_what_is_wrong() {
        let (sh, _engine) = rig();
        let frame = "00".repeat(60);
        for (req, want) in [
            (
                json!({"op": "set_port", "port": 4, "up": true}),
                "set_port: no port 4 (ports are 0..4)".to_string(),
            ),
            (
                json!({"op": "replace_tables", "tables": {"name": "x"}}),
                // the parser's detail: what and where
                "replace_tables: tables are not SwitchTables JSON: missing field `ports` at line 1 column 12".into(),
            ),
            (
                json!({"op": "replace_tables", "tables": tables::placeholder(3)}),
                "replace_tables: tables of \"(none)\" have 3 ports but the switch has 4 (one [[port]] per table port, in order)".into(),
            ),
            (
                json!({"op": "inject", "port": 0, "frames": ["zz"]}),
                "inject: frames[0] is not hex: Invalid character 'z' at position 0".into(),
            ),
            (
                json!({"op": "inject", "port": 0, "frames": [frame, ""]}),
                format!("inject: frames[1] has 0 bytes (1..={BUF_SIZE})"),
            ),
            (
                json!({"op": "capture", "port": 7}),
                "capture: no port 7 (ports are 0..4)".into(),
            ),
            (
                json!({"op": "frobnicate"}),
                format!("unknown op \"frobnicate\" (ops: {})", OPS.join(", ")),
            ),
            (
                json!({"port": 1}),
                "a request is a JSON object with an \"op\" string".into(),
            ),
            (
                json!({"op": 7}),
                "a request is a JSON object with an \"op\" string".into(),
            ),
            (
                json!({"op": "auth", "token": "x"}),
                "auth: only the TCP endpoint authenticates, and only before its first request (the Unix socket is protected by its 0600 mode)".into(),
            ),
            (
                json!({"op": "challenge", "nonce": "00"}),
                "challenge: only the TCP endpoint authenticates, and only before its first request (the Unix socket is protected by its 0600 mode)".into(),
            ),
        ] {
            refused(&ask(&sh, req), &want);
        }
        // serde's and the JSON parser's own words follow the op
        for (line, want) in [
            (
                &br#"{"op":"set_port","port":1}"#[..],
                "set_port: missing field `up`",
            ),
            (
                br#"{"op":"health","extra":1}"#,
                "health: unknown field `extra`",
            ),
            (b"{\"op\": ", "malformed JSON: "),
            (b"\xff\xfe", "malformed JSON: "),
            // a field twice: refused, not "the last one wins"
            (
                br#"{"op":"set_port","port":1,"up":true,"port":2}"#,
                "set_port: duplicate field `port`",
            ),
            (
                br#"{"op":"health","op":"counters"}"#,
                "duplicate field `op`",
            ),
        ] {
            refused_with(&sh.handle_line(line), want);
        }
    }

    #[test]
    fn requests_are_refused_once_shutdown_began() {
        let (sh, _engine) = rig();
        sh.fence();
        refused(
            &ask(&sh, json!({"op": "health"})),
            "the switch is shutting down",
        );
        // what is not a request is still answered as such
        refused_with(&ask(&sh, json!({"op": "nope"})), "unknown op \"nope\"");
    }
}
