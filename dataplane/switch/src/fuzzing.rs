//! What the fuzz targets (`fuzz/`, `docs/fuzzing.md`) share with the regression tests
//! that replay their crash files (`dataplane/switch/tests/fuzz_regressions.rs`): the
//! management request handler answering arbitrary lines in-process, and the decisions
//! on tables perturbed through the same JSON and validation as `replace_tables`.
//! Test helpers: they allocate freely and are never on the forwarding path.

use crate::config::Config;
use crate::server::Shared;
use crate::tables;
use canopy_dataplane::engine::Engine;
use canopy_dataplane::fuzzing::decide_on;
use canopy_dataplane::table::SwitchTables;
use canopy_proto::mgmt::Request;
use serde_json::Value;
use std::path::Path;

/// A switch of mem ports with real tables (the first switch of
/// [`canopy_control::fuzzing::fabric_tables`]), answering management requests
/// in-process.
pub struct MgmtRig {
    shared: Shared,
    _engine: Engine,
    ports: usize,
    /// Requests that put the rig back as built: its tables, every port up.
    reset: Vec<Vec<u8>>,
}

impl MgmtRig {
    /// Build the rig (the engine is not started: requests are answered, frames stay in
    /// the mem ports' rings).
    pub fn new() -> MgmtRig {
        let t = canopy_control::fuzzing::fabric_tables().swap_remove(0);
        let ports = t.ports.len();
        let tables = serde_json::value::to_raw_value(&t).expect("tables always encode");
        let mut reset = vec![Request::ReplaceTables { tables }];
        for p in 0..ports {
            reset.push(Request::SetPort {
                port: p as u16,
                up: true,
            });
        }
        let reset = reset
            .iter()
            .map(|r| serde_json::to_vec(r).expect("a request always encodes"))
            .collect();
        let mut text = String::from(
            "[switch]\nworkers = 1\n\n[management]\nsocket = \"/nonexistent/canopy-fuzz.sock\"\n",
        );
        for i in 0..ports {
            text += &format!("\n[[port]]\nbackend = \"mem\"\nname = \"p{i}\"\ncapacity = 64\n");
        }
        let cfg = Config::parse(Path::new("fuzz-mgmt.toml"), &text)
            .unwrap_or_else(|e| panic!("the rig's config: {e}"));
        let (shared, engine) =
            Shared::in_process(&cfg, Some(t)).unwrap_or_else(|e| panic!("the rig: {e:#}"));
        MgmtRig {
            shared,
            _engine: engine,
            ports,
            reset,
        }
    }

    /// Answer `line` as the management socket would. Checks: no panic; the answer is a
    /// JSON object whose `ok` is a boolean, with a non-empty `error` string when false;
    /// after a successful request the installed tables still pass validation. Then the
    /// tables and port states are put back, so each input starts from the same switch
    /// (frames injected into the mem ports stay queued, up to their capacity).
    pub fn request(&self, line: &[u8]) {
        if self.check(line) {
            for r in &self.reset {
                let v = self.shared.handle_line(r);
                assert_eq!(v["ok"], true, "resetting the rig failed: {v}");
            }
        }
    }

    /// [`MgmtRig::request`]'s checks; whether the request succeeded.
    fn check(&self, line: &[u8]) -> bool {
        let v = self.shared.handle_line(line);
        let ok = v
            .get("ok")
            .and_then(Value::as_bool)
            .unwrap_or_else(|| panic!("answer without a boolean \"ok\": {v}"));
        if !ok {
            let e = v.get("error").and_then(Value::as_str).unwrap_or_default();
            assert!(!e.is_empty(), "a refusal without an error message: {v}");
            return false;
        }
        let get = serde_json::to_vec(&Request::GetTables {}).expect("a request always encodes");
        let now = self.shared.handle_line(&get);
        if let Some(t) = now.get("tables").filter(|t| !t.is_null()) {
            let t: SwitchTables = serde_json::from_value(t.clone())
                .unwrap_or_else(|e| panic!("get_tables answer is not SwitchTables: {e}"));
            if let Err(e) = tables::validate(&t, self.ports) {
                panic!("a request installed tables that fail validation: {e}");
            }
        }
        true
    }
}

impl Default for MgmtRig {
    fn default() -> Self {
        MgmtRig::new()
    }
}

/// Values a perturbation writes: boundaries of the field widths in the tables.
const VALUES: [u64; 16] = [
    0,
    1,
    2,
    3,
    7,
    31,
    32,
    33,
    63,
    64,
    65,
    255,
    256,
    65_535,
    4_294_967_295,
    u64::MAX,
];

/// One step down a JSON value: an array index or an object key.
#[derive(Debug, Clone)]
enum Step {
    Index(usize),
    Key(String),
}

/// Paths to every number and boolean in `v`, in document order.
fn leaves(v: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Number(_) | Value::Bool(_) => out.push(path.clone()),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Step::Index(i));
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                path.push(Step::Key(k.clone()));
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The value at `path` in `v`.
fn at<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, p| match p {
        Step::Index(i) => v.get_mut(*i),
        Step::Key(k) => v.get_mut(k.as_str()),
    })
}

/// Decisions on perturbed tables: `data[0]` picks a switch of `tables`, `data[1]` the
/// number of perturbations (at most 8), each three bytes (which number or boolean of the
/// tables' JSON, as two bytes, and which value of a fixed list of boundaries to write;
/// booleans flip); then the ingress byte and the frame, as in
/// [`canopy_dataplane::fuzzing::decide_frame`]. Tables that `replace_tables` would refuse
/// (they do not deserialize or fail [`tables::validate`]) are skipped; on tables it
/// accepts, every decision check must hold.
pub fn decide_perturbed(tables_in: &[SwitchTables], data: &[u8]) {
    let [s, n, rest @ ..] = data else {
        return;
    };
    if tables_in.is_empty() {
        return;
    }
    let t = &tables_in[usize::from(*s) % tables_in.len()];
    let n = usize::from(*n % 9);
    if rest.len() < 3 * n + 1 {
        return;
    }
    let (edits, rest) = rest.split_at(3 * n);
    let mut v = serde_json::to_value(t).expect("tables always encode");
    let mut paths = Vec::new();
    leaves(&v, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        return;
    }
    for e in edits.chunks_exact(3) {
        let which = usize::from(u16::from_be_bytes([e[0], e[1]])) % paths.len();
        if let Some(x) = at(&mut v, &paths[which]) {
            *x = match x {
                Value::Bool(b) => Value::Bool(!*b),
                _ => Value::from(VALUES[usize::from(e[2]) % VALUES.len()]),
            };
        }
    }
    let Ok(p) = serde_json::from_value::<SwitchTables>(v) else {
        return;
    };
    if tables::validate(&p, t.ports.len()).is_err() {
        return;
    }
    let ingress = u16::from(rest[0]) % (p.ports.len() as u16 + 2);
    decide_on(&p, ingress, &rest[1..]);
}
