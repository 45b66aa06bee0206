//! Checks of the graph contract (see the [module docs](super)): every link is mutual
//! with compatible directions ([`Topology::validate`]) and, where hosts carry Znode
//! labels, ports and zones agree with the labels ([`Topology::check_znode_contract`]).
//! Generators call these in their tests.

use super::{Peer, Port, PortDir, PortRole, Topology};
use thiserror::Error;

/// A way in which a topology breaks the graph contract.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ContractError {
    /// A port points at a port that does not exist.
    #[error("{from:?} points at missing {to:?}")]
    MissingPeer {
        /// The port.
        from: Peer,
        /// What it points at.
        to: Peer,
    },
    /// A port's peer does not point back at it.
    #[error("{from:?} -> {to:?} but that points at {back:?}")]
    NotMutual {
        /// The port.
        from: Peer,
        /// Its peer.
        to: Peer,
        /// What the peer points at.
        back: Peer,
    },
    /// The two ends of a link do not form a duplex link or an out→in channel.
    #[error("{from:?} and {to:?} have incompatible directions")]
    Directions {
        /// One end.
        from: Peer,
        /// The other end.
        to: Peer,
    },
    /// [`Topology::znode`] is not set.
    #[error("t.znode is not set")]
    NoZnode,
    /// A host hangs on a switch outside its zone or Znode, or not at level 1.
    #[error("host {host} hangs on {switch} with zone {zone}")]
    HostSwitch {
        /// Host index.
        host: usize,
        /// Switch name.
        switch: String,
        /// The switch's zone.
        zone: u64,
    },
    /// The switch port a host hangs on is not a down port labelled with the host's p_1.
    #[error("{switch} port {port}: bad host label {label}")]
    HostLabel {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// The port's label.
        label: u32,
    },
    /// A switch level outside 1..=n.
    #[error("{switch}: level {level} outside 1..={levels}")]
    Level {
        /// Switch name.
        switch: String,
        /// Its level.
        level: usize,
        /// Levels n of the Znode.
        levels: usize,
    },
    /// A down port that does not lead one level down into the child zone its label names.
    #[error("{switch} p{port}: down to {to} (zone {zone}) with label {label} group {group}")]
    Down {
        /// Switch name.
        switch: String,
        /// Port number.
        port: usize,
        /// Name of the switch it leads to.
        to: String,
        /// Zone of that switch.
        zone: u64,
        /// The port's label.
        label: u32,
        /// The port's group.
        group: u32,
    },
    /// An up port that does not lead one level up into the parent zone (group 0).
    #[error("{switch} p{port}: up to {to} (zone {zone})")]
    Up {
        /// Switch name.
        switch: String,
        /// Port number.
        port: usize,
        /// Name of the switch it leads to.
        to: String,
        /// Zone of that switch.
        zone: u64,
    },
    /// A side port that does not lead to the same position in the Znode its label names.
    #[error("{switch} p{port}: side to {to} (znode {znode}) with label {label} group {group}")]
    Side {
        /// Switch name.
        switch: String,
        /// Port number.
        port: usize,
        /// Name of the switch it leads to.
        to: String,
        /// Znode of that switch.
        znode: u32,
        /// The port's label.
        label: u32,
        /// The port's group.
        group: u32,
    },
    /// A switch above level 1 without a down port into one of its child zones.
    #[error("{switch}: no down port into child zone {child}")]
    NoChild {
        /// Switch name.
        switch: String,
        /// The child zone label.
        child: u64,
    },
}

impl Topology {
    /// Check the Znode-label part of the graph contract (module docs) on a topology with
    /// `znode` set: hosts hang on level-1 switches of their own zone and Znode under
    /// their label p_1; every down port leads one level down into the child zone its
    /// label names (group = label) and every child zone has one; up ports lead one level
    /// up into the parent zone (group 0); side ports lead to the same position in the
    /// Znode their label names (group = label). Generators call this in their tests.
    pub fn check_znode_contract(&self) -> Result<(), ContractError> {
        let t = self;
        let zs = t.znode.as_ref().ok_or(ContractError::NoZnode)?;
        let z: Vec<u64> = zs.z.iter().map(|&v| u64::from(v)).collect();
        let n = z.len();
        // prod[i] = z_1 ... z_i (prod[0] = 1)
        let mut prod = vec![1u64; n + 1];
        for i in 0..n {
            prod[i + 1] = prod[i] * z[i];
        }
        let m = u64::from(zs.m.max(1));
        let zone_of = |x: u64, level: usize| -> u64 { (x / prod[level]) % (prod[n] / prod[level]) };
        for (hi, h) in t.hosts.iter().enumerate() {
            for p in &h.ports {
                if let Peer::Switch { sw, port } = p.peer {
                    let s = &t.switches[sw as usize];
                    if s.level != 1
                        || s.zone != zone_of(h.index, 1)
                        || u64::from(s.znode) != (h.index / prod[n]) % m
                    {
                        return Err(ContractError::HostSwitch {
                            host: hi,
                            switch: s.name.clone(),
                            zone: s.zone,
                        });
                    }
                    let sp = &s.ports[usize::from(port)];
                    if sp.role != PortRole::Down || u64::from(sp.label) != h.index % z[0] {
                        return Err(ContractError::HostLabel {
                            switch: s.name.clone(),
                            port,
                            label: sp.label,
                        });
                    }
                }
            }
        }
        for s in &t.switches {
            let lvl = usize::from(s.level);
            if lvl == 0 || lvl > n {
                return Err(ContractError::Level {
                    switch: s.name.clone(),
                    level: lvl,
                    levels: n,
                });
            }
            for (pi, p) in s.ports.iter().enumerate() {
                check_znode_port(t, &z, s, pi, p)?;
            }
            if lvl > 1 {
                for c in 0..z[lvl - 1] {
                    let has = s
                        .ports
                        .iter()
                        .any(|p| p.role == PortRole::Down && u64::from(p.label) == c);
                    if !has {
                        return Err(ContractError::NoChild {
                            switch: s.name.clone(),
                            child: c,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Check the graph contract: every connected port's peer points back at it with a
    /// compatible direction. Generators call this in their tests.
    pub fn validate(&self) -> Result<(), ContractError> {
        for (si, s) in self.switches.iter().enumerate() {
            for (pi, p) in s.ports.iter().enumerate() {
                self.check_link(
                    Peer::Switch {
                        sw: si as u32,
                        port: pi as u16,
                    },
                    p,
                )?;
            }
        }
        for (hi, h) in self.hosts.iter().enumerate() {
            for (pi, p) in h.ports.iter().enumerate() {
                self.check_link(
                    Peer::Host {
                        host: hi as u32,
                        port: pi as u16,
                    },
                    p,
                )?;
            }
        }
        Ok(())
    }

    /// The port `p` names, if it exists.
    fn port_at(&self, p: Peer) -> Option<&Port> {
        match p {
            Peer::None => None,
            Peer::Switch { sw, port } => self
                .switches
                .get(sw as usize)
                .and_then(|s| s.ports.get(usize::from(port))),
            Peer::Host { host, port } => self
                .hosts
                .get(host as usize)
                .and_then(|h| h.ports.get(usize::from(port))),
        }
    }

    /// Port `p` (at `me`) and its peer point at each other with compatible directions.
    fn check_link(&self, me: Peer, p: &Port) -> Result<(), ContractError> {
        if p.peer == Peer::None {
            return Ok(());
        }
        let far = self.port_at(p.peer).ok_or(ContractError::MissingPeer {
            from: me,
            to: p.peer,
        })?;
        if far.peer != me {
            return Err(ContractError::NotMutual {
                from: me,
                to: p.peer,
                back: far.peer,
            });
        }
        let ok = matches!(
            (p.dir, far.dir),
            (PortDir::Duplex, PortDir::Duplex)
                | (PortDir::Out, PortDir::In)
                | (PortDir::In, PortDir::Out)
        );
        if !ok {
            return Err(ContractError::Directions {
                from: me,
                to: p.peer,
            });
        }
        Ok(())
    }
}

/// Port `pi` (`p`) of switch `s` agrees with the Znode labels (zones per level `z`).
fn check_znode_port(
    t: &Topology,
    z: &[u64],
    s: &super::Switch,
    pi: usize,
    p: &Port,
) -> Result<(), ContractError> {
    let Peer::Switch { sw, .. } = p.peer else {
        return Ok(());
    };
    let lvl = usize::from(s.level);
    let o = &t.switches[sw as usize];
    match p.role {
        PortRole::Down => {
            if usize::from(o.level) + 1 != lvl
                || o.zone / z[lvl - 1] != s.zone
                || u64::from(p.label) != o.zone % z[lvl - 1]
                || p.group != p.label
            {
                return Err(ContractError::Down {
                    switch: s.name.clone(),
                    port: pi,
                    to: o.name.clone(),
                    zone: o.zone,
                    label: p.label,
                    group: p.group,
                });
            }
        }
        PortRole::Up => {
            if usize::from(o.level) != lvl + 1 || s.zone / z[lvl] != o.zone || p.group != 0 {
                return Err(ContractError::Up {
                    switch: s.name.clone(),
                    port: pi,
                    to: o.name.clone(),
                    zone: o.zone,
                });
            }
        }
        PortRole::Side => {
            if (o.level, o.zone, o.index, o.znode) != (s.level, s.zone, s.index, p.label)
                || p.group != p.label
            {
                return Err(ContractError::Side {
                    switch: s.name.clone(),
                    port: pi,
                    to: o.name.clone(),
                    znode: o.znode,
                    label: p.label,
                    group: p.group,
                });
            }
        }
    }
    Ok(())
}
