//! The program's counter arrays read from the switch's own counters, so that a
//! P4Runtime `Read` of `canopy_drops`, `canopy_port_rx`, `canopy_port_drops` or
//! `canopy_port_tx` gives on canopy-switch what it gives on bmv2 (`docs/p4.md` §2).
//! Drops the engine adds to the decision's reasons (a port down, a full ring, a refused
//! transmit) have no cell in the program; they stay in canopy-switch's own counters.

use canopy_control::p4::schema::{self, COUNTERS, DROP_STRIDE};
use canopy_dataplane::decide::DROP_REASON_NAMES;
use canopy_p4rt::v1::CounterData;
use canopy_proto::mgmt::CountersReport;

/// Cell `index` of counter array `counter` (its index in [`COUNTERS`]) from `r`; `None`
/// past the array's size. A port the switch does not have reads zero, as on a target
/// whose port was never used.
pub fn cell(counter: usize, index: usize, r: &CountersReport) -> Option<CounterData> {
    if index >= COUNTERS.get(counter)?.size as usize {
        return None;
    }
    let data = |packets: u64, bytes: u64| CounterData {
        packet_count: packets.min(i64::MAX as u64) as i64,
        byte_count: bytes.min(i64::MAX as u64) as i64,
    };
    let reason = |i: usize| DROP_REASON_NAMES.get(i).copied();
    Some(match counter {
        schema::DROPS => data(reason(index).map_or(0, |n| r.drops_named(n)), 0),
        schema::PORT_RX => r
            .ports
            .get(index)
            .map_or(data(0, 0), |p| data(p.rx_packets, p.rx_bytes)),
        schema::PORT_TX => r
            .ports
            .get(index)
            .map_or(data(0, 0), |p| data(p.tx_packets, p.tx_bytes)),
        schema::PORT_DROPS => {
            let (port, why) = (index / DROP_STRIDE, index % DROP_STRIDE);
            let n = match (r.ports.get(port), reason(why)) {
                (Some(p), Some(n)) => p.drops.get(n).copied().unwrap_or(0),
                _ => 0,
            };
            data(n, 0)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_proto::mgmt::PortCounters;

    #[test]
    fn cells_read_the_switch_s_counters_by_port_and_reason() {
        let port = |rx: u64, tx: u64, bad: u64| PortCounters {
            rx_packets: rx,
            rx_bytes: rx * 64,
            tx_packets: tx,
            tx_bytes: tx * 60,
            drops: [("bad_label".to_string(), bad), ("port_down".to_string(), 9)]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        let r = CountersReport {
            ports: vec![port(10, 7, 2), port(5, 8, 1)],
            ..Default::default()
        };
        let bad = DROP_REASON_NAMES
            .iter()
            .position(|n| *n == "bad_label")
            .unwrap();
        assert_eq!(cell(schema::DROPS, bad, &r).unwrap().packet_count, 3);
        assert_eq!(cell(schema::DROPS, 31, &r).unwrap().packet_count, 0);
        assert_eq!(cell(schema::DROPS, 32, &r), None);
        let rx = cell(schema::PORT_RX, 1, &r).unwrap();
        assert_eq!((rx.packet_count, rx.byte_count), (5, 320));
        let tx = cell(schema::PORT_TX, 0, &r).unwrap();
        assert_eq!((tx.packet_count, tx.byte_count), (7, 420));
        assert_eq!(cell(schema::PORT_TX, 200, &r).unwrap().packet_count, 0);
        assert_eq!(
            cell(schema::PORT_DROPS, DROP_STRIDE + bad, &r)
                .unwrap()
                .packet_count,
            1
        );
        assert_eq!(cell(schema::PORT_DROPS, 512 * DROP_STRIDE, &r), None);
        assert_eq!(cell(9, 0, &r), None);
    }
}
