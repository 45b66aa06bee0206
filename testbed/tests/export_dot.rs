//! `canopy_testbed::export::dot` (`docs/export.md`): the Graphviz DOT graph of fabric
//! descriptions, parsed back by a small reader here: every link is one edge with its
//! ports, every node one node with its name; with Graphviz installed, `dot` reads and
//! renders it. Labels that need escaping come back as written. No root.

mod export_common;

use canopy_control::topology::PortDir;
use canopy_testbed::export::dot::{self, Arrow, DotOptions, Graph, GraphEdge, GraphNode, NodeId};
use canopy_testbed::fabric::desc::Node;
use canopy_testbed::fabric::Desc;
use export_common::example;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// A statement of the DOT subset the export writes.
#[derive(Debug, Clone, PartialEq)]
enum Stmt {
    /// `ID [attrs]`, with the `rank=same` group it is in (its index), if any.
    Node(String, BTreeMap<String, String>, Option<usize>),
    /// `ID -> ID [attrs]`.
    Edge(String, String, BTreeMap<String, String>),
}

/// Tokens: identifiers, quoted strings (kept as written between the quotes, `\"` and all),
/// punctuation.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Id(String),
    Quoted(String),
    Punct(&'static str),
}

fn tokens(s: &str) -> Vec<Tok> {
    let c: Vec<char> = s.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < c.len() {
        match c[i] {
            ' ' | '\t' | '\n' => i += 1,
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                let mut q = String::new();
                i += 1;
                loop {
                    match c.get(i) {
                        None => panic!("unterminated string"),
                        Some('"') => break,
                        Some('\\') => {
                            q.push('\\');
                            q.push(*c.get(i + 1).expect("escape at the end"));
                            i += 2;
                        }
                        Some('\n') => panic!("a raw newline in a string: {q}"),
                        Some(&ch) => {
                            q.push(ch);
                            i += 1;
                        }
                    }
                }
                i += 1;
                out.push(Tok::Quoted(q));
            }
            '-' if c.get(i + 1) == Some(&'>') => {
                out.push(Tok::Punct("->"));
                i += 2;
            }
            '{' | '}' | '[' | ']' | ';' | ',' | '=' => {
                out.push(Tok::Punct(match c[i] {
                    '{' => "{",
                    '}' => "}",
                    '[' => "[",
                    ']' => "]",
                    ';' => ";",
                    ',' => ",",
                    _ => "=",
                }));
                i += 1;
            }
            ch if ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' => {
                let mut id = String::new();
                while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_' || c[i] == '.') {
                    id.push(c[i]);
                    i += 1;
                }
                out.push(Tok::Id(id));
            }
            ch => panic!("unexpected {ch:?} at {i}"),
        }
    }
    out
}

/// A label as Graphviz shows it: `\\`, `\"` and `\n` decoded.
fn unescape(q: &str) -> String {
    let mut out = String::new();
    let mut it = q.chars();
    while let Some(ch) = it.next() {
        if ch == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => panic!("trailing backslash"),
            }
        } else {
            out.push(ch);
        }
    }
    out
}

/// Parse the export's DOT: (graph attributes, statements).
fn parse_dot(s: &str) -> (BTreeMap<String, String>, Vec<Stmt>) {
    let t = tokens(s);
    let mut i = 0;
    let id = |t: &Tok| match t {
        Tok::Id(s) => s.clone(),
        Tok::Quoted(q) => unescape(q),
        p => panic!("expected an identifier, got {p:?}"),
    };
    assert_eq!(t[0], Tok::Id("digraph".into()));
    assert_eq!(t[2], Tok::Punct("{"));
    i += 3;
    let attrs = |i: &mut usize| {
        let mut m = BTreeMap::new();
        if t.get(*i) != Some(&Tok::Punct("[")) {
            return m;
        }
        *i += 1;
        while t[*i] != Tok::Punct("]") {
            let k = id(&t[*i]);
            assert_eq!(t[*i + 1], Tok::Punct("="));
            let v = id(&t[*i + 2]);
            assert!(m.insert(k.clone(), v).is_none(), "{k} twice");
            *i += 3;
            if t[*i] == Tok::Punct(",") {
                *i += 1;
            }
        }
        *i += 1;
        m
    };
    let mut graph = BTreeMap::new();
    let mut stmts = vec![];
    let mut group: Option<usize> = None;
    let mut groups = 0;
    let mut ranked = false;
    while i < t.len() {
        match &t[i] {
            Tok::Punct("}") if group.is_some() => {
                assert!(ranked, "a group without rank=same");
                group = None;
                i += 1;
            }
            Tok::Punct("}") => {
                assert_eq!(i, t.len() - 1, "nothing after the graph");
                i += 1;
            }
            Tok::Punct("{") => {
                assert!(group.is_none(), "nested groups");
                group = Some(groups);
                groups += 1;
                ranked = false;
                i += 1;
            }
            Tok::Punct(";") => i += 1,
            Tok::Id(k) if k == "graph" || k == "node" || k == "edge" => {
                i += 1;
                let a = attrs(&mut i);
                if k == "graph" {
                    graph = a;
                }
            }
            Tok::Id(k) if k == "rank" => {
                assert_eq!(t[i + 1], Tok::Punct("="));
                assert_eq!(t[i + 2], Tok::Id("same".into()));
                ranked = true;
                i += 3;
            }
            tok => {
                let a = id(tok);
                i += 1;
                if t[i] == Tok::Punct("->") {
                    let b = id(&t[i + 1]);
                    i += 2;
                    let at = attrs(&mut i);
                    stmts.push(Stmt::Edge(a, b, at));
                } else {
                    let at = attrs(&mut i);
                    stmts.push(Stmt::Node(a, at, group));
                }
            }
        }
    }
    (graph, stmts)
}

/// The node and edge statements, keyed: nodes by id (label, shape, group), edges as
/// (tail, head, taillabel, headlabel, dir).
type Parsed = (
    BTreeMap<String, (String, String, Option<usize>)>,
    Vec<(
        String,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
    )>,
);

fn nodes_and_edges(stmts: &[Stmt]) -> Parsed {
    let mut nodes = BTreeMap::new();
    let mut edges = vec![];
    for s in stmts {
        match s {
            Stmt::Node(id, a, g) => {
                let prev = nodes.insert(id.clone(), (a["label"].clone(), a["shape"].clone(), *g));
                assert!(prev.is_none(), "node {id} twice");
            }
            Stmt::Edge(x, y, a) => edges.push((
                x.clone(),
                y.clone(),
                a.get("taillabel").cloned(),
                a.get("headlabel").cloned(),
                a.get("dir").cloned(),
            )),
        }
    }
    (nodes, edges)
}

fn id_of(n: Node) -> String {
    match n {
        Node::Switch(i) => format!("s{i}"),
        Node::Host(h) => format!("h{h}"),
    }
}

/// `dot -T<fmt>` on `text`: None (with a message) when Graphviz is not installed.
fn graphviz(text: &str, fmt: &str) -> Option<Vec<u8>> {
    use std::io::Write;
    let child = Command::new("dot")
        .arg(format!("-T{fmt}"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("SKIP the Graphviz check: `dot` is not installed (Debian: graphviz)");
            return None;
        }
        Err(e) => panic!("dot: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "dot -T{fmt}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

/// Check a fabric's graph: every node once with its name, switches grouped by level,
/// every link once with its ports, the arrows of one-way channels from out to in.
fn check_graph(d: &Desc, opts: &DotOptions) -> String {
    let text = dot::dot(d, opts);
    let (graph, stmts) = parse_dot(&text);
    assert!(graph["label"].starts_with(&format!("{}: ", d.name)));
    let (nodes, edges) = nodes_and_edges(&stmts);
    // nodes
    let mut want = BTreeSet::new();
    for (s, sw) in d.topo.switches.iter().enumerate() {
        let id = format!("s{s}");
        let (label, shape, group) = &nodes[&id];
        assert_eq!(label.lines().next(), Some(sw.name.as_str()));
        assert_eq!(shape, "box");
        // one group per level, holding that level's switches only
        let same: Vec<u16> = nodes
            .iter()
            .filter(|(i, n)| i.starts_with('s') && n.2 == *group)
            .map(|(i, _)| d.topo.switches[i[1..].parse::<usize>().unwrap()].level)
            .collect();
        assert!(
            group.is_some() && same.iter().all(|&l| l == sw.level),
            "{id}"
        );
        if !opts.hosts && !sw.host_ports().is_empty() {
            assert!(
                label.contains(&format!("\n{} host", sw.host_ports().len())),
                "{label}"
            );
        }
        want.insert(id);
    }
    if opts.hosts {
        for h in 0..d.topo.hosts.len() as u32 {
            let id = format!("h{h}");
            assert_eq!(nodes[&id].0, d.topo.host_name(h));
            assert_eq!(nodes[&id].1, "ellipse");
            want.insert(id);
        }
    }
    assert_eq!(nodes.keys().cloned().collect::<BTreeSet<_>>(), want);
    // edges: each link once, with its ports at the right ends
    let mut left: BTreeMap<(String, String, String, String), usize> = BTreeMap::new();
    for l in &d.links {
        if !opts.hosts && (matches!(l.a.0, Node::Host(_)) || matches!(l.b.0, Node::Host(_))) {
            continue;
        }
        let (a, b) = (
            (id_of(l.a.0), l.a.1.to_string()),
            (id_of(l.b.0), l.b.1.to_string()),
        );
        let key = if a <= b {
            (a.0, a.1, b.0, b.1)
        } else {
            (b.0, b.1, a.0, a.1)
        };
        *left.entry(key).or_default() += 1;
    }
    assert_eq!(edges.len(), left.values().sum::<usize>());
    let port_dir = |id: &str, p: u16| {
        let i: usize = id[1..].parse().unwrap();
        let ports = if id.starts_with('s') {
            &d.topo.switches[i].ports
        } else {
            &d.topo.hosts[i].ports
        };
        ports[usize::from(p)].dir
    };
    for (t, h, tl, hl, dir) in &edges {
        let (tp, hp) = if opts.ports {
            (tl.clone().unwrap(), hl.clone().unwrap())
        } else {
            assert!(tl.is_none() && hl.is_none());
            // without port labels: match the link by its nodes alone
            let k = left
                .keys()
                .find(|k| (k.0 == *t && k.2 == *h) || (k.0 == *h && k.2 == *t))
                .cloned()
                .unwrap_or_else(|| panic!("edge {t} -> {h} is no link"));
            (
                if k.0 == *t { k.1.clone() } else { k.3.clone() },
                if k.0 == *t { k.3.clone() } else { k.1.clone() },
            )
        };
        let (a, b) = ((t.clone(), tp.clone()), (h.clone(), hp.clone()));
        let key = if a <= b {
            (a.0, a.1, b.0, b.1)
        } else {
            (b.0, b.1, a.0, a.1)
        };
        match left.get_mut(&key) {
            Some(n) if *n > 0 => *n -= 1,
            _ => panic!("edge {t}:{tp} -> {h}:{hp} is no link or appears twice"),
        }
        // the upper end is the tail
        let level = |id: &str| {
            if id.starts_with('h') {
                0
            } else {
                d.topo.switches[id[1..].parse::<usize>().unwrap()].level
            }
        };
        assert!(level(t) >= level(h), "{t} -> {h}");
        // arrows: from the out port to the in port; none on duplex links
        let (td, hd) = (
            port_dir(t, tp.parse().unwrap()),
            port_dir(h, hp.parse().unwrap()),
        );
        let want = match (td, hd) {
            (PortDir::Out, PortDir::In) => Some("forward"),
            (PortDir::In, PortDir::Out) => Some("back"),
            (PortDir::Duplex, PortDir::Duplex) => None,
            other => panic!("a link joins {other:?}"),
        };
        assert_eq!(dir.as_deref(), want, "{t} -> {h}");
    }
    assert!(left.values().all(|&n| n == 0));
    text
}

#[test]
fn the_default_fabric_as_a_dot_graph() {
    let d = example("fabric-default.toml");
    let full = check_graph(&d, &DotOptions::default());
    let switches_only = check_graph(
        &d,
        &DotOptions {
            hosts: false,
            ..DotOptions::default()
        },
    );
    let bare = check_graph(
        &d,
        &DotOptions {
            hosts: false,
            ports: false,
        },
    );
    assert!(switches_only.len() < full.len() && bare.len() < switches_only.len());
    for text in [&full, &switches_only, &bare] {
        let Some(svg) = graphviz(text, "svg") else {
            return;
        };
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains("<svg") && svg.contains("core&#45;c0"), "{svg}");
    }
    // Graphviz reads the same graph: nodes, edges, ranks
    let json = graphviz(&full, "json").unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let objects = v["objects"].as_array().unwrap();
    let named: BTreeSet<String> = objects
        .iter()
        .filter(|o| o.get("nodes").is_none())
        .map(|o| o["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(named.len(), 20 + 16);
    assert_eq!(v["edges"].as_array().unwrap().len(), d.links.len());
}

#[test]
fn one_way_channels_point_from_out_to_in() {
    // transit-full: one-way channels between switches and to and from hosts
    let d = example("fabric-transit.toml");
    let text = check_graph(&d, &DotOptions::default());
    assert!(text.contains("dir=forward") && text.contains("dir=back"));
    graphviz(&text, "json");
}

#[test]
fn labels_that_need_escaping_come_back_as_written() {
    let hostile = [
        "plain",
        "quote\" -> s0 [label=\"x\"]; s1",
        "back\\slash\\",
        "\\N \\G \\L \\n literal",
        "two\nlines",
        "tab\tcr\rnul\0del\u{7f}",
        "}; digraph evil { a -> b",
        "// not a comment",
        "<b>not html</b>",
        "ünïcødé ☃",
        "",
        "\\",
    ];
    let g = Graph {
        title: hostile[1].to_string(),
        rows: vec![(
            dot::Row::Level(1),
            hostile
                .iter()
                .enumerate()
                .map(|(i, l)| GraphNode {
                    id: NodeId(Node::Switch(i as u32)),
                    label: l.to_string(),
                    shape: dot::Shape::Box,
                })
                .collect(),
        )],
        edges: (1..hostile.len() as u32)
            .map(|i| GraphEdge {
                tail: NodeId(Node::Switch(0)),
                head: NodeId(Node::Switch(i)),
                tail_label: Some(hostile[i as usize].to_string()),
                head_label: Some(hostile[hostile.len() - i as usize].to_string()),
                arrow: if i % 2 == 0 {
                    Arrow::Forward
                } else {
                    Arrow::None
                },
            })
            .collect(),
    };
    // what Graphviz shows: newline a line break, other control characters as their
    // control pictures
    let shown = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                '\n' => '\n',
                '\u{7f}' => '\u{2421}',
                c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap(),
                c => c,
            })
            .collect()
    };
    let text = g.render();
    let (graph, stmts) = parse_dot(&text);
    assert_eq!(graph["label"], shown(hostile[1]));
    let (nodes, edges) = nodes_and_edges(&stmts);
    assert_eq!(nodes.len(), hostile.len());
    for (i, l) in hostile.iter().enumerate() {
        assert_eq!(nodes[&format!("s{i}")].0, shown(l), "{l:?}");
    }
    assert_eq!(edges.len(), hostile.len() - 1);
    for (k, (t, h, tl, hl, dir)) in edges.iter().enumerate() {
        let i = k + 1;
        assert_eq!((t.as_str(), h.clone()), ("s0", format!("s{i}")));
        assert_eq!(tl.as_deref(), Some(shown(hostile[i]).as_str()));
        assert_eq!(
            hl.as_deref(),
            Some(shown(hostile[hostile.len() - i]).as_str())
        );
        assert_eq!(dir.as_deref(), (i % 2 == 0).then_some("forward"));
    }
    // Graphviz parses it to the same nodes and labels, and renders it
    let Some(json) = graphviz(&text, "json") else {
        return;
    };
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    // the rank=same group is an object too, with its nodes' indices
    let objects: Vec<&serde_json::Value> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o.get("nodes").is_none())
        .collect();
    assert_eq!(objects.len(), hostile.len());
    for o in objects {
        let id = o["name"].as_str().unwrap();
        let i: usize = id[1..].parse().unwrap();
        // -Tjson gives the label as an escString with only \" undone
        let raw = o["label"].as_str().unwrap().replace('"', "\\\"");
        assert_eq!(unescape(&raw), shown(hostile[i]), "{id}");
    }
    assert_eq!(v["edges"].as_array().unwrap().len(), hostile.len() - 1);
    assert!(String::from_utf8(graphviz(&text, "svg").unwrap())
        .unwrap()
        .contains("<svg"));
}
