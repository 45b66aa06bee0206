//! Fabric studies in simulated time (`canopy-testbed study FILE`, docs/des.md): a
//! description file names a base point (topology, addressing, traffic pattern, the
//! discrete-event model's [`Network`] and [`Workload`]) and lists of values to sweep;
//! every combination is run with [`canopy_control::des`] and the results are written as
//! CSV, JSON, SVG plots and a Markdown report.

mod report;
mod run;
mod traffic;

pub use report::{saturated, write};
pub use run::{run, PointResult, StudyResults};
pub use traffic::Traffic;

use crate::error::{Result, TestbedError};
use canopy_control::des::{
    Arrivals, FlowControl, Injection, Lengths, Network, Switching, Workload,
};
use canopy_control::kinds::Addressing;
use serde::{Deserialize, Serialize};

/// A study description file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// One line: what the study shows.
    pub title: String,
    /// Longer text for the report (Markdown).
    #[serde(default)]
    pub about: String,
    /// What every point has unless a sweep says otherwise.
    #[serde(default)]
    pub base: Point,
    /// Values to sweep; every combination is a point.
    #[serde(default)]
    pub sweep: Sweep,
    /// What the plots show.
    #[serde(default)]
    pub plot: PlotSpec,
}

/// A topology spec with the name plots and tables give it (the spec itself when none).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Topo {
    /// Just the spec (`fat-tree:k=8`).
    Spec(String),
    /// `{ name = "level 2", spec = "znode:…" }`.
    Named {
        /// Label.
        name: String,
        /// Topology spec.
        spec: String,
    },
}

impl Topo {
    /// The topology spec.
    pub fn spec(&self) -> &str {
        match self {
            Topo::Spec(s) | Topo::Named { spec: s, .. } => s,
        }
    }
    /// The label.
    pub fn name(&self) -> &str {
        match self {
            Topo::Spec(s) | Topo::Named { name: s, .. } => s,
        }
    }
}

impl Default for Topo {
    fn default() -> Self {
        Topo::Spec("fat-tree:k=4".into())
    }
}

/// An [`Addressing`] as a description file writes it (`sliced`, `sliced/dst`, `transit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct Addr(pub Addressing);

impl TryFrom<String> for Addr {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        Addressing::parse(&s).map(Addr).ok_or_else(|| {
            format!(
                "unknown addressing `{s}` (sliced, sliced/flat, sliced/srcdst, sliced/dst, transit, path-id)"
            )
        })
    }
}

impl From<Addr> for String {
    fn from(a: Addr) -> String {
        a.0.to_string()
    }
}

impl Default for Addr {
    fn default() -> Self {
        Addr(Addressing::of(canopy_dataplane::wire::Kind::Sliced))
    }
}

/// One point: everything a run needs.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Point {
    /// The fabric.
    pub topology: Topo,
    /// Header kind and mode.
    pub addressing: Addr,
    /// Who sends to whom.
    pub pattern: Traffic,
    /// Links and switches.
    pub network: Network,
    /// Load, lengths, arrivals, measurement window, seed.
    pub workload: Workload,
}

/// A named set of values that go together (`[[sweep.case]]`): a topology with the
/// addressing it is compared under, say. Unset fields keep the base value.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Case {
    /// Label in plots and tables.
    pub name: String,
    /// `topology`.
    pub topology: Option<Topo>,
    /// `addressing`.
    pub addressing: Option<Addr>,
    /// `pattern`.
    pub pattern: Option<Traffic>,
    /// `network.switching`.
    pub switching: Option<Switching>,
    /// `network.buffer`.
    pub buffer: Option<usize>,
    /// `network.injection`.
    pub injection: Option<Injection>,
}

/// Lists of values to sweep (an empty list keeps the base value).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Sweep {
    /// Named sets of values ([`Case`]), applied before the other lists.
    pub case: Vec<Case>,
    /// `workload.load`.
    pub load: Vec<f64>,
    /// `network.buffer`.
    pub buffer: Vec<usize>,
    /// `topology`.
    pub topology: Vec<Topo>,
    /// `addressing`.
    pub addressing: Vec<Addr>,
    /// `pattern`.
    pub pattern: Vec<Traffic>,
    /// `network.switching`.
    pub switching: Vec<Switching>,
    /// `network.flow_control`.
    pub flow_control: Vec<FlowControl>,
    /// `workload.payload`.
    pub payload: Vec<Lengths>,
    /// `workload.arrivals`.
    pub arrivals: Vec<Arrivals>,
    /// `network.injection`.
    pub injection: Vec<Injection>,
}

/// A swept parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Axis {
    /// `[[sweep.case]]`.
    Case,
    /// `workload.load`.
    Load,
    /// `network.buffer`.
    Buffer,
    /// `topology`.
    Topology,
    /// `addressing`.
    Addressing,
    /// `pattern`.
    Pattern,
    /// `network.switching`.
    Switching,
    /// `network.flow_control`.
    FlowControl,
    /// `workload.payload`.
    Payload,
    /// `workload.arrivals`.
    Arrivals,
    /// `network.injection`.
    Injection,
}

impl Axis {
    /// Every axis, in the order points are made (the last varies fastest).
    pub const ALL: [Axis; 11] = [
        Axis::Case,
        Axis::Topology,
        Axis::Addressing,
        Axis::Pattern,
        Axis::Switching,
        Axis::FlowControl,
        Axis::Injection,
        Axis::Arrivals,
        Axis::Payload,
        Axis::Buffer,
        Axis::Load,
    ];

    /// Its name in the description file and the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Axis::Case => "case",
            Axis::Load => "load",
            Axis::Buffer => "buffer",
            Axis::Topology => "topology",
            Axis::Addressing => "addressing",
            Axis::Pattern => "pattern",
            Axis::Switching => "switching",
            Axis::FlowControl => "flow_control",
            Axis::Payload => "payload",
            Axis::Arrivals => "arrivals",
            Axis::Injection => "injection",
        }
    }
}

/// A measured quantity a plot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Mean delay (made to delivered), in transmission times.
    Delay,
    /// Mean delay, µs.
    DelayUs,
    /// 99th percentile delay, in transmission times.
    P99,
    /// Mean network delay (first bit sent to delivered), in transmission times.
    NetworkDelay,
    /// Mean network request time (made to first bit sent), in transmission times.
    Request,
    /// Delivered load / capacity.
    Throughput,
    /// Mean switches per message.
    Hops,
    /// Mean fraction of the window each tier's links were sending: one curve per tier.
    Utilisation,
}

impl Metric {
    /// File stem of its plot and its axis label.
    pub fn name(self) -> (&'static str, &'static str) {
        match self {
            Metric::Delay => ("delay", "mean message delay (transmission times)"),
            Metric::DelayUs => ("delay-us", "mean message delay (µs)"),
            Metric::P99 => ("p99", "99th percentile delay (transmission times)"),
            Metric::NetworkDelay => ("network-delay", "mean network delay (transmission times)"),
            Metric::Request => ("request", "mean network request time (transmission times)"),
            Metric::Throughput => ("throughput", "throughput / capacity"),
            Metric::Hops => ("hops", "mean switches per message"),
            Metric::Utilisation => ("utilisation", "mean link utilisation per tier"),
        }
    }
}

/// The plots: `y` against the swept `x`, one curve per combination of the other swept
/// values.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlotSpec {
    /// The x axis: `load` or `buffer` (numbers).
    pub x: Axis,
    /// One plot per metric.
    pub y: Vec<Metric>,
    /// Logarithmic y axes (delays near saturation span decades).
    pub log_y: bool,
    /// One set of plots per value of this swept axis (`delay-<value>.svg`…), the others
    /// making the curves; none: one set.
    pub facet: Option<Axis>,
}

impl Default for PlotSpec {
    fn default() -> Self {
        PlotSpec {
            x: Axis::Load,
            y: vec![Metric::Delay, Metric::Throughput],
            log_y: false,
            facet: None,
        }
    }
}

/// A point of the sweep: its values on the swept axes (as text) and what it runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    /// `(axis, value)` for every swept axis, in [`Axis::ALL`] order.
    pub at: Vec<(Axis, String)>,
    /// The point's x value.
    pub x: f64,
    /// The point.
    pub point: Point,
}

fn bad(file: &str, key: &str, what: String) -> TestbedError {
    TestbedError::Desc {
        file: file.to_string(),
        key: key.to_string(),
        line: None,
        what,
    }
}

/// Most points a study may have.
pub const MAX_POINTS: usize = 10_000;

impl Study {
    /// Read a description from `text` (the contents of `file`).
    pub fn parse(file: &str, text: &str) -> Result<Study> {
        let s: Study = crate::fabric::desc::toml_file(file, text)?;
        s.check(file)?;
        Ok(s)
    }

    /// Check what serde cannot: value ranges, the x axis, the point count.
    fn check(&self, file: &str) -> Result<()> {
        if !matches!(self.plot.x, Axis::Load | Axis::Buffer) {
            return Err(bad(
                file,
                "plot.x",
                format!(
                    "`{}` is not a number: use load or buffer",
                    self.plot.x.name()
                ),
            ));
        }
        if self.plot.facet == Some(self.plot.x) {
            return Err(bad(file, "plot.facet", "is the x axis".into()));
        }
        for (i, c) in self.sweep.case.iter().enumerate() {
            if c.name.is_empty() || self.sweep.case[..i].iter().any(|d| d.name == c.name) {
                return Err(bad(
                    file,
                    &format!("sweep.case[{i}].name"),
                    format!("`{}`: every case needs a name of its own", c.name),
                ));
            }
        }
        let n: usize = self.swept().iter().map(|(_, k)| (*k).max(1)).product();
        if n > MAX_POINTS {
            return Err(bad(
                file,
                "sweep",
                format!("{n} points; at most {MAX_POINTS}"),
            ));
        }
        for p in self.points() {
            let key = |f: &str| format!("{f} (at {})", label(&p.at, &[]));
            p.point
                .network
                .validate()
                .map_err(|e| bad(file, &key("network"), e.to_string()))?;
            p.point
                .workload
                .validate()
                .map_err(|e| bad(file, &key("workload"), e.to_string()))?;
        }
        Ok(())
    }

    /// Every axis with its number of values.
    fn swept(&self) -> Vec<(Axis, usize)> {
        let s = &self.sweep;
        Axis::ALL
            .iter()
            .map(|&a| {
                let n = match a {
                    Axis::Case => s.case.len(),
                    Axis::Load => s.load.len(),
                    Axis::Buffer => s.buffer.len(),
                    Axis::Topology => s.topology.len(),
                    Axis::Addressing => s.addressing.len(),
                    Axis::Pattern => s.pattern.len(),
                    Axis::Switching => s.switching.len(),
                    Axis::FlowControl => s.flow_control.len(),
                    Axis::Payload => s.payload.len(),
                    Axis::Arrivals => s.arrivals.len(),
                    Axis::Injection => s.injection.len(),
                };
                (a, n)
            })
            .collect()
    }

    /// Every combination of the swept values, the last axis of [`Axis::ALL`] varying
    /// fastest.
    pub fn points(&self) -> Vec<SweepPoint> {
        let swept: Vec<(Axis, usize)> = self.swept().into_iter().filter(|a| a.1 > 0).collect();
        let total: usize = swept.iter().map(|a| a.1).product();
        let mut out = Vec::with_capacity(total);
        for n in 0..total {
            let mut i = n;
            let mut idx = vec![0usize; swept.len()];
            for (k, &(_, n)) in swept.iter().enumerate().rev() {
                idx[k] = i % n;
                i /= n;
            }
            let mut p = self.base.clone();
            let mut at = Vec::new();
            for (&(axis, _), &j) in swept.iter().zip(&idx) {
                at.push((axis, self.set(&mut p, axis, j)));
            }
            let x = match self.plot.x {
                Axis::Buffer => p.network.buffer as f64,
                _ => p.workload.load,
            };
            out.push(SweepPoint { at, x, point: p });
        }
        out
    }

    /// Set `axis` of `p` to its `j`-th swept value; returns the value as text.
    fn set(&self, p: &mut Point, axis: Axis, j: usize) -> String {
        let s = &self.sweep;
        match axis {
            Axis::Case => {
                let c = &s.case[j];
                if let Some(t) = &c.topology {
                    p.topology = t.clone();
                }
                if let Some(a) = c.addressing {
                    p.addressing = a;
                }
                if let Some(t) = &c.pattern {
                    p.pattern = t.clone();
                }
                if let Some(sw) = c.switching {
                    p.network.switching = sw;
                }
                if let Some(b) = c.buffer {
                    p.network.buffer = b;
                }
                if let Some(i) = c.injection {
                    p.network.injection = i;
                }
                c.name.clone()
            }
            Axis::Load => {
                p.workload.load = s.load[j];
                s.load[j].to_string()
            }
            Axis::Buffer => {
                p.network.buffer = s.buffer[j];
                s.buffer[j].to_string()
            }
            Axis::Topology => {
                p.topology = s.topology[j].clone();
                p.topology.name().to_string()
            }
            Axis::Addressing => {
                p.addressing = s.addressing[j];
                p.addressing.0.to_string()
            }
            Axis::Pattern => {
                p.pattern = s.pattern[j].clone();
                p.pattern.to_string()
            }
            Axis::Switching => {
                p.network.switching = s.switching[j];
                kebab(&s.switching[j])
            }
            Axis::FlowControl => {
                p.network.flow_control = s.flow_control[j];
                kebab(&s.flow_control[j])
            }
            Axis::Payload => {
                p.workload.payload = s.payload[j].clone();
                lengths(&s.payload[j])
            }
            Axis::Arrivals => {
                p.workload.arrivals = s.arrivals[j];
                kebab(&s.arrivals[j])
            }
            Axis::Injection => {
                p.network.injection = s.injection[j];
                kebab(&s.injection[j])
            }
        }
    }
}

/// A unit enum value as the description file writes it.
fn kebab<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Payload lengths in a few characters: `64`, `64..1500`, `mix 64×7 576×4`.
pub fn lengths(l: &Lengths) -> String {
    match l {
        Lengths::Fixed(n) => n.to_string(),
        Lengths::Uniform { min, max } => format!("{min}..{max}"),
        Lengths::Mix(m) => {
            let parts: Vec<String> = m.iter().map(|(n, w)| format!("{n}×{w}")).collect();
            format!("mix {}", parts.join(" "))
        }
    }
}

/// `axis=value, …` of the swept axes in `at` but those in `skip`.
pub fn label(at: &[(Axis, String)], skip: &[Axis]) -> String {
    let parts: Vec<String> = at
        .iter()
        .filter(|(a, _)| !skip.contains(a))
        .map(|(a, v)| format!("{}={v}", a.name()))
        .collect();
    if parts.is_empty() {
        "all".to_string()
    } else {
        parts.join(", ")
    }
}
