//! Transit forwarding table: the static configuration of one RN1-like stage.
//!
//! Port convention: RN1 input `i` (0..8) is switch port `i`, RN1 output `o` (0..8) is
//! switch port [`OUT_BASE`]` + o`. RN1's two configurations (\[Transit\] §1.3, Fig. 1.2;
//! which outputs form a direction is Canopy's choice, docs/transit.md §1):
//! * **dilated** mode: a 4×4 crossbar with two equivalent outputs per direction, all
//!   8 inputs equivalent; direction `d` uses outputs `{d, d+4}` (an adaptive group);
//! * **split** mode: two independent 4×4 crossbars; inputs `4h..4h+3` (half `h`) use
//!   output `4h+d` for direction `d` (a deterministic port).
//!
//! Per input: swallow (drop the head routing byte before looking, \[Transit\] §1.3.2). Per
//! output: the link's rotation in 2-bit units (docs/transit.md §3) and its wire delay in
//! cycles. Both outputs of a direction must have the same rotation and delay, so the
//! outcome never depends on the adaptive choice; [`TransitTable::new`] checks this.

use super::SwitchTables;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Switch port number of RN1 output 0.
pub const OUT_BASE: u16 = 8;
/// Inputs (and outputs) per RN1.
pub const RN1_PORTS: usize = 8;

/// RN1 configuration (\[Transit\] §1.3, Fig. 1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Rn1Mode {
    /// 4×4 crossbar, 2 equivalent outputs per direction.
    #[default]
    Dilated,
    /// Two independent 4×4 crossbars (inputs 0-3 → outputs 0-3, inputs 4-7 → 4-7).
    Split,
}

/// Configuration of one RN1 output channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct OutputCfg {
    /// The output is wired to something.
    pub connected: bool,
    /// Rotation the outgoing link applies, in 2-bit units (0..=3).
    pub rot: u8,
    /// Wire delay of the link, in clock cycles (0 = adjacent stage).
    pub delay: u8,
}

/// Static configuration of one RN1 (what a netlist gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Rn1Config {
    /// Dilated or split.
    pub mode: Rn1Mode,
    /// Per input: swallow the head routing byte before decoding.
    pub swallow: [bool; RN1_PORTS],
    /// Per output: link configuration.
    pub outputs: [OutputCfg; RN1_PORTS],
}

impl Rn1Config {
    /// Outputs that carry direction `d` for an input in half `half` (Canopy's map, docs/transit.md §1).
    pub fn dir_outputs(&self, half: usize, d: usize) -> [Option<u16>; 2] {
        match self.mode {
            Rn1Mode::Dilated => [Some(d as u16), Some(d as u16 + 4)],
            Rn1Mode::Split => [Some((4 * half + d) as u16), None],
        }
    }
}

/// Where a direction goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DirTarget {
    /// Unconnected direction (e.g. 11 at an uncapped root): drop `no_output`.
    #[default]
    None,
    /// Exactly one output (split mode, or one of the two unconnected).
    Port(u16),
    /// Two equivalent outputs: a [`SwitchTables`] group, chosen by the caller.
    Group(u16),
}

/// Decoded direction entry: target plus the link rotation/delay shared by its outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct DirEntry {
    /// Output port or group.
    pub target: DirTarget,
    /// Rotation applied by the outgoing link (2-bit units).
    pub rot: u8,
    /// Wire delay of the outgoing link (cycles).
    pub delay: u8,
}

/// A configuration that cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TransitConfigError {
    /// A link rotation outside 0..=3.
    #[error("output {output}: rotation {rot} is not in 0..=3 (2-bit units)")]
    BadRotation {
        /// Output index.
        output: usize,
        /// Value given.
        rot: u8,
    },
    /// The two outputs of a direction disagree on rotation or delay, so the result
    /// would depend on the adaptive choice.
    #[error("direction {dir} (half {half}): outputs {a} and {b} differ in rotation or delay")]
    UnequalOutputs {
        /// Half (0 in dilated mode).
        half: usize,
        /// Direction.
        dir: usize,
        /// First output.
        a: u16,
        /// Second output.
        b: u16,
    },
}

/// Transit table of one switch (RN1 stage): its configuration and the decoded
/// direction entries `dirs[half][direction]` (half is always 0 in dilated mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitTable {
    /// Static configuration.
    pub config: Rn1Config,
    /// Decoded directions, `[half][direction]`.
    pub dirs: [[DirEntry; 4]; 2],
}

impl TransitTable {
    /// Decode `cfg`, interning the 2-output direction groups in `sw`.
    pub fn new(cfg: Rn1Config, sw: &mut SwitchTables) -> Result<Self, TransitConfigError> {
        for (o, oc) in cfg.outputs.iter().enumerate() {
            if oc.rot > 3 {
                return Err(TransitConfigError::BadRotation {
                    output: o,
                    rot: oc.rot,
                });
            }
        }
        let halves = match cfg.mode {
            Rn1Mode::Dilated => 1,
            Rn1Mode::Split => 2,
        };
        let mut dirs = [[DirEntry::default(); 4]; 2];
        for (half, row) in dirs.iter_mut().enumerate().take(halves) {
            for (d, e) in row.iter_mut().enumerate() {
                let outs: Vec<u16> = cfg
                    .dir_outputs(half, d)
                    .into_iter()
                    .flatten()
                    .filter(|&o| cfg.outputs[usize::from(o)].connected)
                    .collect();
                let Some(&first) = outs.first() else {
                    continue;
                };
                let f = cfg.outputs[usize::from(first)];
                for &o in &outs[1..] {
                    let c = cfg.outputs[usize::from(o)];
                    if (c.rot, c.delay) != (f.rot, f.delay) {
                        return Err(TransitConfigError::UnequalOutputs {
                            half,
                            dir: d,
                            a: first,
                            b: o,
                        });
                    }
                }
                let target = if outs.len() == 1 {
                    DirTarget::Port(OUT_BASE + first)
                } else {
                    DirTarget::Group(sw.intern_group(outs.iter().map(|o| OUT_BASE + o).collect()))
                };
                *e = DirEntry {
                    target,
                    rot: f.rot,
                    delay: f.delay,
                };
            }
        }
        if halves == 1 {
            dirs[1] = dirs[0];
        }
        Ok(TransitTable { config: cfg, dirs })
    }

    /// Number of configured direction entries (connected `(half, direction)` pairs).
    pub fn direction_entries(&self) -> u64 {
        let halves = match self.config.mode {
            Rn1Mode::Dilated => 1,
            Rn1Mode::Split => 2,
        };
        self.dirs[..halves]
            .iter()
            .flatten()
            .filter(|e| e.target != DirTarget::None)
            .count() as u64
    }

    /// Table size as reported by `canopyctl tables --summary`: direction entries +
    /// swallowing inputs + connected outputs (each carries its link rotation).
    pub fn entries(&self) -> u64 {
        self.direction_entries()
            + self.config.swallow.iter().filter(|&&s| s).count() as u64
            + self.config.outputs.iter().filter(|o| o.connected).count() as u64
    }

    /// Renumber group ids after a merge.
    pub fn remap_groups(&mut self, map: &[u16]) {
        for e in self.dirs.iter_mut().flatten() {
            if let DirTarget::Group(g) = e.target {
                if let Some(&n) = map.get(usize::from(g)) {
                    e.target = DirTarget::Group(n);
                }
            }
        }
    }
}

/// Port configuration of a bare RN1 for unit tests: inputs 0..8, outputs 8..16.
#[cfg(test)]
pub(crate) fn rn1_test_ports() -> Vec<crate::table::PortConfig> {
    use crate::table::{PortConfig, PortDir, PortRole};
    let port = |dir| PortConfig {
        role: PortRole::Down,
        dir,
    };
    let mut ports = vec![port(PortDir::In); 8];
    ports.extend(vec![port(PortDir::Out); 8]);
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw() -> SwitchTables {
        SwitchTables::new("rn1", rn1_test_ports())
    }

    fn all_connected(mode: Rn1Mode, rot: u8) -> Rn1Config {
        Rn1Config {
            mode,
            swallow: [false; 8],
            outputs: [OutputCfg {
                connected: true,
                rot,
                delay: 0,
            }; 8],
        }
    }

    #[test]
    fn dilated_directions_are_groups_of_d_and_d_plus_4() {
        let mut s = sw();
        let t = TransitTable::new(all_connected(Rn1Mode::Dilated, 1), &mut s).unwrap();
        for d in 0..4u16 {
            let DirTarget::Group(g) = t.dirs[0][usize::from(d)].target else {
                panic!("direction {d} not a group");
            };
            assert_eq!(s.group(g), &[8 + d, 12 + d]);
            assert_eq!(t.dirs[1][usize::from(d)], t.dirs[0][usize::from(d)]);
        }
        assert_eq!(t.direction_entries(), 4);
        assert_eq!(t.entries(), 4 + 8);
    }

    #[test]
    fn split_directions_are_ports_per_half() {
        let mut s = sw();
        let t = TransitTable::new(all_connected(Rn1Mode::Split, 2), &mut s).unwrap();
        assert!(s.groups.is_empty());
        for h in 0..2u16 {
            for d in 0..4u16 {
                assert_eq!(
                    t.dirs[usize::from(h)][usize::from(d)].target,
                    DirTarget::Port(8 + 4 * h + d)
                );
                assert_eq!(t.dirs[usize::from(h)][usize::from(d)].rot, 2);
            }
        }
        assert_eq!(t.direction_entries(), 8);
    }

    #[test]
    fn unconnected_and_inconsistent_outputs() {
        let mut s = sw();
        let mut c = all_connected(Rn1Mode::Dilated, 1);
        c.outputs[3].connected = false;
        c.outputs[7].connected = false;
        c.outputs[6].connected = false;
        let t = TransitTable::new(c, &mut s).unwrap();
        assert_eq!(t.dirs[0][3].target, DirTarget::None);
        assert_eq!(t.dirs[0][2].target, DirTarget::Port(10));
        c.outputs[5].rot = 3;
        assert_eq!(
            TransitTable::new(c, &mut s).unwrap_err(),
            TransitConfigError::UnequalOutputs {
                half: 0,
                dir: 1,
                a: 1,
                b: 5
            }
        );
        c.outputs[5].rot = 4;
        assert!(matches!(
            TransitTable::new(c, &mut s),
            Err(TransitConfigError::BadRotation { output: 5, .. })
        ));
    }

    #[test]
    fn remap() {
        let mut s = sw();
        let mut t = TransitTable::new(all_connected(Rn1Mode::Dilated, 1), &mut s).unwrap();
        t.remap_groups(&[10, 11, 12, 13]);
        assert_eq!(t.dirs[0][2].target, DirTarget::Group(12));
    }
}
