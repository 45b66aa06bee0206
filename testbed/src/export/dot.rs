//! The Graphviz export (`docs/export.md`): the fabric as a DOT graph for `dot -Tsvg`.
//!
//! Switches are boxes labelled with their names, one `rank=same` row per level (the top
//! level first), hosts ellipses in a row below; every link is one edge from its upper end
//! (the higher level; a switch above a host) to its lower end, labelled with the port
//! number at each end. Duplex links have no arrow; a one-way channel (Transit) points from
//! its output port to its input port. Without hosts (big fabrics) a switch's label says
//! how many hosts hang off it.
//!
//! The graph is built as a [`Graph`] and written by [`Graph::render`]: node identifiers
//! are made from the node's kind and index (`s3`, `h12`), never from a name, and every
//! name or label is written as a quoted DOT string by [`label`], so no name can change
//! the graph's structure.

use crate::fabric::desc::{Desc, Node};
use canopy_control::topology::PortDir;
use std::fmt::Write;

/// What the graph shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DotOptions {
    /// The hosts and their links (off: only switches and switch-to-switch links).
    pub hosts: bool,
    /// Port numbers at the ends of every edge.
    pub ports: bool,
}

impl Default for DotOptions {
    fn default() -> Self {
        DotOptions {
            hosts: true,
            ports: true,
        }
    }
}

/// A node's identifier in the graph: its kind and index, so no name is ever an identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub Node);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.0 {
            Node::Switch(i) => write!(f, "s{i}"),
            Node::Host(i) => write!(f, "h{i}"),
        }
    }
}

/// A node's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A switch.
    Box,
    /// A host.
    Ellipse,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Box => "box",
            Shape::Ellipse => "ellipse",
        }
    }
}

/// One node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    /// Its identifier.
    pub id: NodeId,
    /// What it shows (any text: written escaped).
    pub label: String,
    /// Box or ellipse.
    pub shape: Shape,
}

/// Which way an edge's arrow points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrow {
    /// No arrow: a duplex link.
    None,
    /// Tail to head.
    Forward,
    /// Head to tail.
    Back,
}

/// One edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEdge {
    /// The upper end.
    pub tail: NodeId,
    /// The lower end.
    pub head: NodeId,
    /// The label at the tail (the tail's port).
    pub tail_label: Option<String>,
    /// The label at the head.
    pub head_label: Option<String>,
    /// The arrow.
    pub arrow: Arrow,
}

/// A row of nodes drawn side by side (`rank=same`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The switches of a level.
    Level(u16),
    /// The hosts.
    Hosts,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Row::Level(l) => write!(f, "level {l}"),
            Row::Hosts => f.write_str("hosts"),
        }
    }
}

/// A DOT graph: a title, rows of nodes (`rank=same`), edges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Graph {
    /// The title (any text).
    pub title: String,
    /// The rows, top first, each with its nodes.
    pub rows: Vec<(Row, Vec<GraphNode>)>,
    /// The edges.
    pub edges: Vec<GraphEdge>,
}

/// `s` as a quoted DOT string for a label (Graphviz's escString): `\` and `"` escaped, a
/// newline as the line break `\n`, any other control character as its Unicode control
/// picture (U+2400 + code, U+2421 for DEL), so it shows and cannot end the string or
/// the line.
pub fn label(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'))
            }
            '\u{7f}' => out.push('\u{2421}'),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Graph {
    /// The graph as DOT text.
    pub fn render(&self) -> String {
        let mut o = String::new();
        // writing to a String cannot fail
        let _ = self.render_into(&mut o);
        o
    }

    fn render_into(&self, o: &mut String) -> std::fmt::Result {
        writeln!(o, "// written by canopy-testbed export; do not edit")?;
        writeln!(o, "digraph fabric {{")?;
        writeln!(
            o,
            "  graph [label={}, labelloc=t, rankdir=TB, nodesep=0.25, ranksep=1.0];",
            label(&self.title)
        )?;
        writeln!(o, "  node [shape=box, fontsize=10];")?;
        writeln!(o, "  edge [dir=none, fontsize=8];")?;
        for (row, nodes) in &self.rows {
            writeln!(o, "  // {row}")?;
            writeln!(o, "  {{")?;
            writeln!(o, "    rank=same;")?;
            for n in nodes {
                writeln!(
                    o,
                    "    {} [label={}, shape={}];",
                    n.id,
                    label(&n.label),
                    n.shape.name()
                )?;
            }
            writeln!(o, "  }}")?;
        }
        for e in &self.edges {
            let mut attrs = vec![];
            if let Some(t) = &e.tail_label {
                attrs.push(format!("taillabel={}", label(t)));
            }
            if let Some(h) = &e.head_label {
                attrs.push(format!("headlabel={}", label(h)));
            }
            match e.arrow {
                Arrow::None => {}
                Arrow::Forward => attrs.push("dir=forward".into()),
                Arrow::Back => attrs.push("dir=back".into()),
            }
            if attrs.is_empty() {
                writeln!(o, "  {} -> {};", e.tail, e.head)?;
            } else {
                writeln!(o, "  {} -> {} [{}];", e.tail, e.head, attrs.join(", "))?;
            }
        }
        writeln!(o, "}}")
    }
}

/// The DOT graph of `desc`'s fabric (every machine's nodes).
pub fn graph(desc: &Desc, opts: &DotOptions) -> Graph {
    let topo = &desc.topo;
    let mut rows = Vec::new();
    let mut levels: Vec<u16> = topo.switches.iter().map(|s| s.level).collect();
    levels.sort_unstable_by(|a, b| b.cmp(a));
    levels.dedup();
    for level in levels {
        let nodes = topo
            .switches
            .iter()
            .enumerate()
            .filter(|(_, s)| s.level == level)
            .map(|(i, s)| {
                let hosts = s.host_ports().len();
                let label = if opts.hosts || hosts == 0 {
                    s.name.clone()
                } else {
                    format!(
                        "{}\n{hosts} host{}",
                        s.name,
                        if hosts == 1 { "" } else { "s" }
                    )
                };
                GraphNode {
                    id: NodeId(Node::Switch(i as u32)),
                    label,
                    shape: Shape::Box,
                }
            })
            .collect();
        rows.push((Row::Level(level), nodes));
    }
    if opts.hosts && !topo.hosts.is_empty() {
        let nodes = (0..topo.hosts.len() as u32)
            .map(|h| GraphNode {
                id: NodeId(Node::Host(h)),
                label: topo.host_name(h),
                shape: Shape::Ellipse,
            })
            .collect();
        rows.push((Row::Hosts, nodes));
    }
    // a node's height: switches by level, hosts below level 1
    let height = |n: Node| match n {
        Node::Switch(s) => i32::from(topo.switches[s as usize].level),
        Node::Host(_) => 0,
    };
    let dir = |(n, p): (Node, u16)| {
        let ports = match n {
            Node::Switch(s) => &topo.switches[s as usize].ports,
            Node::Host(h) => &topo.hosts[h as usize].ports,
        };
        ports.get(usize::from(p)).map_or(PortDir::Duplex, |q| q.dir)
    };
    let mut edges = Vec::new();
    for l in &desc.links {
        if !opts.hosts && (matches!(l.a.0, Node::Host(_)) || matches!(l.b.0, Node::Host(_))) {
            continue;
        }
        let (upper, lower) = if height(l.b.0) > height(l.a.0) {
            (l.b, l.a)
        } else {
            (l.a, l.b)
        };
        let arrow = match (dir(upper), dir(lower)) {
            (PortDir::Out, _) | (_, PortDir::In) => Arrow::Forward,
            (PortDir::In, _) | (_, PortDir::Out) => Arrow::Back,
            _ => Arrow::None,
        };
        edges.push(GraphEdge {
            tail: NodeId(upper.0),
            head: NodeId(lower.0),
            tail_label: opts.ports.then(|| upper.1.to_string()),
            head_label: opts.ports.then(|| lower.1.to_string()),
            arrow,
        });
    }
    Graph {
        title: format!(
            "{}: {} ({}), {} switches, {} hosts, {} links",
            desc.name,
            desc.raw.topology.get_ref(),
            desc.kind.name(),
            topo.switches.len(),
            topo.hosts.len(),
            desc.links.len()
        ),
        rows,
        edges,
    }
}

/// The DOT text of `desc`'s fabric ([`graph`], [`Graph::render`]).
pub fn dot(desc: &Desc, opts: &DotOptions) -> String {
    graph(desc, opts).render()
}
