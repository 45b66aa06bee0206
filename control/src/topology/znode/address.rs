//! Znode/Snode host addresses: the source-side geometry of a built topology, the
//! address rows of a host, and the `(k;p_n,…,p_1)` and `phys:` host syntaxes.

use crate::topology::{HostError, PortRole, TopoError, Topology};
use canopy_dataplane::build::sliced::Geometry;

/// The source-side geometry of a topology with Znode labels (z, m, and the levels that
/// have side links, found from the graph).
pub fn geometry(t: &Topology) -> Option<Geometry> {
    let s = t.znode.as_ref()?;
    let g = Geometry::new(&s.z, s.m).ok()?;
    if s.m <= 1 {
        return Some(g);
    }
    let n = s.z.len();
    let all = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut mask = 0u64;
    for sw in &t.switches {
        let bit = 1u64 << (u32::from(sw.level.max(1)) - 1).min(63);
        if mask & bit == 0 && sw.ports.iter().any(|p| p.role == PortRole::Side) {
            mask |= bit;
            if mask & all == all {
                break;
            }
        }
    }
    g.clone().with_side_levels(mask & all).ok().or(Some(g))
}

fn labels_string(k: u32, p: &[u32]) -> String {
    let inner: Vec<String> = p.iter().rev().map(|x| x.to_string()).collect();
    format!("({k};{})", inner.join(","))
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Some(g) = geometry(t) else {
        return Vec::new();
    };
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let Ok((k, p)) = g.labels(host.index) else {
        return Vec::new();
    };
    let phys = g.physical(k, &p);
    let mut fields = Vec::new();
    if g.a() > 0 {
        fields.push(format!("{:0w$b}", k, w = usize::from(g.a())));
    }
    for i in (0..g.n()).rev() {
        let w = usize::from(g.b()[i]);
        if w > 0 {
            fields.push(format!("{:0w$b}", p[i], w = w));
        }
    }
    let widths: Vec<String> = g.b().iter().rev().map(|b| b.to_string()).collect();
    vec![
        ("labels".into(), labels_string(k, &p)),
        ("physical".into(), phys.to_string()),
        (
            "physical bin".into(),
            format!(
                "{} (fields p_n+1 | p_n .. p_1, widths a={}; b_n..b_1={})",
                fields.join(" "),
                g.a(),
                widths.join(",")
            ),
        ),
        ("znode".into(), k.to_string()),
        (
            "level-1 zone".into(),
            (host.index / u64::from(g.z()[0])
                % (g.hosts() / u64::from(g.m()) / u64::from(g.z()[0])))
            .to_string(),
        ),
    ]
}

/// Why `v` did not parse: too large for its field, or not a number at all.
fn not_a_number(what: &'static str, v: &str, e: &std::num::ParseIntError) -> HostError {
    let value = v.to_string();
    match e.kind() {
        std::num::IntErrorKind::PosOverflow => HostError::TooLarge { what, value },
        _ => HostError::NotANumber { what, value },
    }
}

/// Family-specific host syntax: `(k;p_n,…,p_1)` (or `(p_n,…,p_1)` when m = 1) and
/// `phys:<address>`. `None` if `s` is in neither syntax.
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let given = s;
    let s = s.trim();
    let g = geometry(t)?;
    let r = if let Some(v) = s.strip_prefix("phys:") {
        parse_physical(&g, v.trim())
    } else {
        parse_labels(&g, s.strip_prefix('(')?.strip_suffix(')')?)
    };
    Some(
        r.and_then(|x| {
            t.hosts
                .iter()
                .position(|h| h.index == x)
                .map(|i| i as u32)
                .ok_or(HostError::NoProcessor(x))
        })
        .map_err(|why| TopoError::bad_host(t, given, why)),
    )
}

/// Logical address of physical address `v` (decimal, `0x…` or `0b…`).
fn parse_physical(g: &Geometry, v: &str) -> Result<u64, HostError> {
    let phys = if let Some(hx) = v.strip_prefix("0x") {
        u64::from_str_radix(hx, 16)
    } else if let Some(b) = v.strip_prefix("0b") {
        u64::from_str_radix(b, 2)
    } else {
        v.parse()
    };
    let phys = phys.map_err(|e| not_a_number("", v, &e))?;
    let (k, p) = g.from_physical(phys).map_err(HostError::Physical)?;
    Ok(g.logical(k, &p))
}

/// Logical address of `k;p_n,…,p_1` (or `p_n,…,p_1` when m = 1).
fn parse_labels(g: &Geometry, inner: &str) -> Result<u64, HostError> {
    let (k, rest) = match inner.split_once(';') {
        Some((k, r)) => (
            k.trim()
                .parse::<u32>()
                .map_err(|e| not_a_number("Znode id ", k, &e))?,
            r,
        ),
        None if g.m() == 1 => (0, inner),
        None => return Err(HostError::NeedsZnodeId { levels: g.n() }),
    };
    let mut labels = Vec::new();
    for part in rest.split(',') {
        let part = part.trim();
        labels.push(
            part.parse::<u32>()
                .map_err(|e| not_a_number("label ", part, &e))?,
        );
    }
    if labels.len() != g.n() {
        return Err(HostError::LabelCount {
            levels: g.n(),
            got: labels.len(),
        });
    }
    labels.reverse(); // written p_n..p_1
    if k >= g.m() {
        return Err(HostError::ZnodeId { k, m: g.m() });
    }
    for (i, (&v, &zi)) in labels.iter().zip(g.z()).enumerate() {
        if v >= zi {
            return Err(HostError::Label {
                level: i + 1,
                label: v,
                z: zi,
            });
        }
    }
    Ok(g.logical(k, &labels))
}
