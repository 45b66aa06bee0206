//! A switch's counters report ([`CountersReport`], what canopy-switch answers to
//! `counters`) made from the program's counter cells (docs/p4.md §2): frames and bytes
//! received and sent per port, and drops per (ingress port, reason). Whoever reads the
//! cells — `simple_switch_CLI` in the testbed, a P4Runtime `Read` in canopyd — asks for
//! [`cells`] and builds the report with [`report`].

use super::schema::{COUNTERS, DROP_STRIDE, PORT_DROPS, PORT_RX, PORT_TX};
use canopy_dataplane::decide::DROP_REASON_NAMES;
use canopy_proto::mgmt::{CountersReport, PortCounters};
use std::collections::BTreeMap;

/// A cell the report needs that was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no answer for {counter}[{index}]")]
pub struct MissingCell {
    /// The counter's P4Info name.
    pub counter: &'static str,
    /// The cell.
    pub index: usize,
}

/// The cells a report of a switch with `nports` ports needs, as (counter, cell): its
/// index in [`COUNTERS`] and the cell's. Per port: received, sent, then one drop cell
/// per decision reason.
pub fn cells(nports: usize) -> Vec<(usize, usize)> {
    let reasons = DROP_REASON_NAMES.len();
    let mut v = Vec::with_capacity(nports * (2 + reasons));
    for p in 0..nports {
        v.push((PORT_RX, p));
        v.push((PORT_TX, p));
        v.extend((0..reasons).map(|r| (PORT_DROPS, p * DROP_STRIDE + r)));
    }
    v
}

/// The report of a switch whose ports are named `names`, up for `uptime_s`, from
/// `cell(counter, index)`: the (bytes, packets) of each of [`cells`]. A cell not read
/// is an error naming it, never a zero.
pub fn report(
    names: &[String],
    uptime_s: f64,
    cell: impl Fn(usize, usize) -> Option<(u64, u64)>,
) -> Result<CountersReport, MissingCell> {
    let read = |c: usize, i: usize| {
        cell(c, i).ok_or(MissingCell {
            counter: COUNTERS[c].name,
            index: i,
        })
    };
    let mut rep = CountersReport {
        uptime_s,
        ..Default::default()
    };
    for (p, name) in names.iter().enumerate() {
        let (rx_bytes, rx_packets) = read(PORT_RX, p)?;
        let (tx_bytes, tx_packets) = read(PORT_TX, p)?;
        let mut drops = BTreeMap::new();
        for (r, reason) in DROP_REASON_NAMES.iter().enumerate() {
            drops.insert(
                (*reason).to_string(),
                read(PORT_DROPS, p * DROP_STRIDE + r)?.1,
            );
        }
        let dropped = drops.values().sum();
        rep.rx_packets += rx_packets;
        rep.tx_packets += tx_packets;
        rep.dropped += dropped;
        rep.ports.push(PortCounters {
            port: p as u16,
            name: name.clone(),
            rx_packets,
            rx_bytes,
            tx_packets,
            tx_bytes,
            dropped,
            drops,
            ..Default::default()
        });
    }
    Ok(rep)
}
