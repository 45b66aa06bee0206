//! The fabric's static shape for the discrete-event model: every directed link (a
//! switch's or host's transmitting port and the port it reaches), the link each switch
//! port transmits on, each host's injection links, and each link's tier.

use crate::kinds::{Addressing, KindError};
use crate::topology::{Peer, PortDir, Topology};
use canopy_dataplane::table::SwitchTables;

/// Where a link ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A switch's port (the frame's ingress port there).
    Switch {
        /// Switch index.
        sw: u32,
        /// Port number.
        port: u16,
    },
    /// A host (frames end here).
    Host(u32),
}

/// One direction of a cable.
#[derive(Debug, Clone, Copy)]
pub struct LinkInfo {
    /// The switch sending on it (`None`: a host).
    pub from_switch: Option<u32>,
    /// Where it ends.
    pub to: End,
    /// Index into [`Prepared::tiers`].
    pub tier: u16,
}

/// A topology with one addressing's tables, ready for any number of runs (shared by
/// the runs of a sweep, which may go on several threads).
pub struct Prepared<'t> {
    /// The topology.
    pub topo: &'t Topology,
    /// Header kind and mode.
    pub addressing: Addressing,
    /// Every switch's tables (index = switch).
    pub tables: Vec<SwitchTables>,
    /// Every directed link.
    pub links: Vec<LinkInfo>,
    /// `out[sw][port]`: the link switch `sw` transmits on from `port`.
    pub out: Vec<Vec<Option<u32>>>,
    /// The links each host can send on, in port order (empty: it cannot send).
    pub inject: Vec<Vec<u32>>,
    /// Tier names, `H→1`, `1→2`, `2→1`, `1→H`…: sender level → receiver level, `H`
    /// for a host.
    pub tiers: Vec<String>,
}

/// Whether a port with direction `d` transmits.
fn sends(d: PortDir) -> bool {
    d != PortDir::In
}

impl<'t> Prepared<'t> {
    /// Build the tables of `addressing` for `topo` and enumerate its links.
    pub fn new(topo: &'t Topology, addressing: Addressing) -> Result<Self, KindError> {
        let tables = addressing.tables(topo)?;
        let mut links = Vec::new();
        let mut tiers: Vec<String> = Vec::new();
        let mut tier = |from: Option<u16>, to: Option<u16>| -> u16 {
            let name = |l: Option<u16>| l.map_or("H".to_string(), |l| l.to_string());
            let n = format!("{}→{}", name(from), name(to));
            match tiers.iter().position(|t| *t == n) {
                Some(i) => i as u16,
                None => {
                    tiers.push(n);
                    (tiers.len() - 1) as u16
                }
            }
        };
        let mut out = Vec::with_capacity(topo.switches.len());
        for (si, s) in topo.switches.iter().enumerate() {
            let mut row = vec![None; s.ports.len()];
            for (pi, p) in s.ports.iter().enumerate() {
                if !sends(p.dir) {
                    continue;
                }
                let (to, level) = match p.peer {
                    Peer::Switch { sw, port } => (
                        End::Switch { sw, port },
                        Some(topo.switches[sw as usize].level),
                    ),
                    Peer::Host { host, .. } => (End::Host(host), None),
                    Peer::None => continue,
                };
                row[pi] = Some(links.len() as u32);
                links.push(LinkInfo {
                    from_switch: Some(si as u32),
                    to,
                    tier: tier(Some(s.level), level),
                });
            }
            out.push(row);
        }
        let mut inject = Vec::with_capacity(topo.hosts.len());
        for h in &topo.hosts {
            let mut mine = Vec::new();
            for (_, p) in h.send_ports() {
                let Peer::Switch { sw, port } = p.peer else {
                    continue;
                };
                mine.push(links.len() as u32);
                links.push(LinkInfo {
                    from_switch: None,
                    to: End::Switch { sw, port },
                    tier: tier(None, Some(topo.switches[sw as usize].level)),
                });
            }
            inject.push(mine);
        }
        Ok(Prepared {
            topo,
            addressing,
            tables,
            links,
            out,
            inject,
            tiers,
        })
    }
}
