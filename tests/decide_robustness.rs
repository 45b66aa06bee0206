//! Cross-crate: the dataplane's decision never panics, whatever the frame, with the real
//! tables of every kind; and a forwarded frame always names a port the switch has.

use canopy::control::{kinds, topology};
use canopy::dataplane::table::SwitchTables;
use canopy::dataplane::wire::{self, Kind};
use canopy::dataplane::{decide, Verdict};
use proptest::prelude::*;

/// (kind, per-switch tables, sample headers) of one topology.
type Fixture = (Kind, Vec<SwitchTables>, Vec<Vec<u8>>);

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for spec in [
        "fat-tree:k=4",
        "transit-full:layers=1",
        "znode:z=3,2,3;r=1,3,6;m=2",
    ] {
        let t = topology::build_str(spec).unwrap();
        for k in kinds::kinds_for(&t) {
            let tables = kinds::tables(&t, k).unwrap();
            let n = t.hosts.len() as u32;
            let headers = (0..n.min(8))
                .map(|s| kinds::header(&t, k, s, n - 1 - s).unwrap())
                .collect();
            out.push((k, tables, headers));
        }
    }
    out
}

fn check_verdict(t: &SwitchTables, v: Verdict) -> Result<(), TestCaseError> {
    match v {
        Verdict::Port(p) => prop_assert!(usize::from(p) < t.ports.len()),
        Verdict::Group(g) => {
            prop_assert!(usize::from(g) < t.groups.len());
            for p in t.group(g) {
                prop_assert!(usize::from(*p) < t.ports.len());
            }
        }
        Verdict::Drop(r) => prop_assert!(!r.name().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary bytes behind a Canopy EtherType, on every switch and port.
    #[test]
    fn arbitrary_frames(body in proptest::collection::vec(any::<u8>(), 0..96), sw in any::<u16>(), port in any::<u16>()) {
        for (_, tables, _) in fixtures_cached() {
            let t = &tables[usize::from(sw) % tables.len()];
            let mut f = wire::ethernet_frame([2; 6], [4; 6], &body, &[]);
            let v = decide(t, port % (t.ports.len() as u16 + 2), &mut f);
            check_verdict(t, v)?;
        }
    }

    /// Valid headers with random bit flips and random truncation.
    #[test]
    fn mutated_valid_headers(pick in any::<usize>(), flips in proptest::collection::vec((any::<usize>(), 0u8..8), 1..6), cut in any::<usize>(), sw in any::<u16>(), port in any::<u16>()) {
        for (_, tables, headers) in fixtures_cached() {
            let mut h = headers[pick % headers.len()].clone();
            for (at, bit) in &flips {
                let i = at % h.len();
                h[i] ^= 1 << bit;
            }
            let keep = cut % (h.len() + 1);
            h.truncate(keep.max(h.len() / 2));
            let t = &tables[usize::from(sw) % tables.len()];
            let mut f = wire::ethernet_frame([2; 6], [4; 6], &h, &[]);
            let v = decide(t, port % t.ports.len() as u16, &mut f);
            check_verdict(t, v)?;
        }
    }
}

fn fixtures_cached() -> &'static [Fixture] {
    use std::sync::OnceLock;
    static F: OnceLock<Vec<Fixture>> = OnceLock::new();
    F.get_or_init(fixtures)
}

#[test]
fn fixtures_cover_every_kind() {
    let kinds: Vec<Kind> = fixtures_cached().iter().map(|f| f.0).collect();
    for k in Kind::ALL {
        assert!(kinds.contains(&k), "no fixture for {k}");
    }
}
