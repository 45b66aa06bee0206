//! Sliced-flit table of one switch (the thesis's per-switch "configuration phase",
//! \[Znode thesis\] §6.2).
//!
//! A sliced-flit switch needs almost no state: its level, its Znode id (SID), the
//! label widths, and which port group leads to each child zone, to each other Znode,
//! and upward. DST mode adds the switch's own zone address; SRCDST needs nothing more.
use crate::wire::sliced::Mode;
use serde::{Deserialize, Serialize};

/// Sliced table of one switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlicedTable {
    /// Addressing mode this switch forwards (frames of another mode are dropped).
    pub mode: Mode,
    /// Level i (1 = the switches processors attach to).
    pub level: u8,
    /// Number of levels n of the Znode.
    pub levels: u8,
    /// Side identity: the switch's Znode id.
    pub sid: u32,
    /// Number of Znodes m.
    pub m: u32,
    /// Side-label width a = ⌈log2 m⌉.
    pub a: u8,
    /// This level's label width b_i = ⌈log2 z_i⌉.
    pub b: u8,
    /// Zones below this switch z_i (labels must be below it).
    pub z: u32,
    /// Modes 1–3: bit offset of this level's digit in the physical address, Σ_{j<i} b_j.
    pub label_shift: u8,
    /// Modes 1–3: offset of the digits above this level, Σ_{j≤i} b_j.
    pub zone_shift: u8,
    /// Modes 1–3: offset of the Znode id, Σ_{j≤n} b_j.
    pub znode_shift: u8,
    /// Modes 1–3: physical address width W = a + Σ b_j.
    pub addr_bits: u8,
    /// DST mode: this switch's zone address (the digits a_{i+1}..a_n of every processor
    /// below it, packed as in eq 6.3 and shifted down by `zone_shift`).
    pub zone: u64,
    /// Group of the up ports (none at the top level).
    pub up: Option<u16>,
    /// Down label c → group of the ports into child zone c (level 1: the processor).
    pub down: Vec<Option<u16>>,
    /// Znode k → group of the side ports to Znode k (none for the own SID).
    pub side: Vec<Option<u16>>,
}

impl SlicedTable {
    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, map: &[u16]) {
        let re = |g: &mut Option<u16>| {
            if let Some(x) = g {
                if let Some(&y) = map.get(usize::from(*x)) {
                    *x = y;
                }
            }
        };
        re(&mut self.up);
        self.down.iter_mut().for_each(re);
        self.side.iter_mut().for_each(re);
    }

    /// Forwarding entries: one per reachable child zone, one per reachable other
    /// Znode, one for the up group. Registers (level, SID, widths, zone) not counted.
    pub fn entries(&self) -> u64 {
        let n = |v: &[Option<u16>]| v.iter().filter(|g| g.is_some()).count() as u64;
        n(&self.down) + n(&self.side) + u64::from(self.up.is_some())
    }
}
