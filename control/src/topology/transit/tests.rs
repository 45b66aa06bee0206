use super::*;
use crate::topology::{build_str, Peer, PortDir};
use canopy_dataplane::table::transit::Rn1Mode;

#[test]
fn chip_counts_match_tables_4_4_and_4_6() {
    // [Transit] Table 4.4: 64 -> 52, 4096 -> 4160, 262144 -> 279552 RN1s.
    // Table 4.6: 768 -> 656, 3072 -> 3392, 12288 -> 16640,
    // 49152 -> 45312, 196608 -> 230400, 786432 -> 1118208.
    let cases = [
        ("transit-full:layers=1", 64, 52),
        ("transit-full:layers=2", 4096, 4160),
        ("transit-full:layers=3", 262_144, 279_552),
        ("transit-hybrid:leaf=12;layers=1", 768, 656),
        ("transit-hybrid:leaf=48;layers=1", 3072, 3392),
        ("transit-hybrid:leaf=192;layers=1", 12_288, 16_640),
        ("transit-hybrid:leaf=12;layers=2", 49_152, 45_312),
        ("transit-hybrid:leaf=48;layers=2", 196_608, 230_400),
        ("transit-hybrid:leaf=192;layers=2", 786_432, 1_118_208),
    ];
    for (s, np, nc) in cases {
        let p = Params::from_spec(&s.parse().unwrap()).unwrap();
        assert_eq!((p.processors(), p.chips()), (np, nc), "{s}");
    }
    // and the built graphs of the small ones have exactly that many chips
    for (s, np, nc) in &cases[..4] {
        if *np > 5000 {
            continue;
        }
        let t = build_str(s).unwrap();
        assert_eq!((t.hosts.len() as u64, t.switches.len() as u64), (*np, *nc));
    }
}

#[test]
fn graph_contract_and_full_wiring() {
    for s in ["transit-full:layers=1", "transit-hybrid:leaf=12;layers=1"] {
        let t = build_str(s).unwrap();
        t.validate().unwrap();
        // every processor has 2 outputs and 2 inputs, on distinct chips
        for (hi, h) in t.hosts.iter().enumerate() {
            let chips: Vec<u32> = h
                .ports
                .iter()
                .map(|p| match p.peer {
                    Peer::Switch { sw, .. } => sw,
                    _ => panic!("{s}: host {hi} port unconnected"),
                })
                .collect();
            assert_eq!(h.ports[0].dir, PortDir::Out);
            assert_eq!(h.ports[2].dir, PortDir::In);
            assert_ne!(chips[0], chips[1], "{s}: h{hi} inputs on one chip");
            assert_ne!(chips[2], chips[3], "{s}: h{hi} outputs on one chip");
        }
        // every chip input is connected; outputs unconnected only for 11 at the root
        for sw in &t.switches {
            for (i, p) in sw.ports.iter().enumerate() {
                if i < 8 {
                    assert!(
                        sw.name.contains(".top") || p.peer != Peer::None,
                        "{s}: {} input {i} unconnected",
                        sw.name
                    );
                } else if p.peer == Peer::None {
                    assert!(
                        sw.name.contains(".up") && (i - 8) % 4 == 3,
                        "{s}: {} output {} unconnected",
                        sw.name,
                        i - 8
                    );
                }
            }
        }
    }
}

#[test]
fn full_dispersion() {
    // [Transit] §2.3.2: "The pair of outputs from the same direction of a single chip at a
    // previous level always go to different routing components."
    for s in [
        "transit-full:layers=2",
        "transit-hybrid:leaf=12;layers=1",
        "transit-hybrid:leaf=48;layers=1",
    ] {
        let t = build_str(s).unwrap();
        let mut pairs = 0;
        for sw in &t.switches {
            if sw.transit.as_ref().map(|x| x.config.mode) != Some(Rn1Mode::Dilated) {
                continue;
            }
            for d in 0..4 {
                let (a, b) = (sw.ports[8 + d].peer, sw.ports[12 + d].peer);
                if let (Peer::Switch { sw: x, .. }, Peer::Switch { sw: y, .. }) = (a, b) {
                    assert_ne!(x, y, "{s}: {} direction {d}", sw.name);
                    pairs += 1;
                }
            }
        }
        assert!(pairs > 100, "{s}: {pairs}");
    }
}

#[test]
fn addresses_roundtrip_and_report_forms() {
    let p = Params::from_spec(&"transit-hybrid:leaf=192;layers=2".parse().unwrap()).unwrap();
    // [Transit] §3.8.5: L1 = 0xCC0234 (unused bits 10 in C's low byte are ignored).
    let x = p.index_of(0xCC0234).unwrap();
    assert_eq!(x, (51 * 64) * 192 + 52);
    assert_eq!(p.addr_of(x), 0xCC0034);
    assert_eq!(p.index_of(0xD84267).unwrap(), (54 * 64 + 16) * 192 + 103);
    assert!(p
        .index_of(0xCC02F4)
        .unwrap_err()
        .to_string()
        .contains("pair 11"));
    assert!(p
        .index_of(0x1CC0234)
        .unwrap_err()
        .to_string()
        .contains("longer"));
    for x in [0u64, 1, 191, 192, 786_431, 12_345] {
        assert_eq!(p.index_of(p.addr_of(x)).unwrap(), x);
    }
    let f = Params::from_spec(&"transit-full:layers=2".parse().unwrap()).unwrap();
    assert_eq!(f.addr_of(4095), 0xFCFC);
    assert_eq!(f.index_of(0x1000).unwrap(), 4 * 64);
    let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
    // B12: P uses 2 pairs (p1 in 0..3, p2 in 0..4): processor 7 = pairs 01 11 -> 0x70.
    assert_eq!(t.hosts[7].addr, 0x0070);
    assert_eq!(parse_host(&t, "0x0470"), Some(Ok(12 + 7)));
    assert!(parse_host(&t, "0xzz").unwrap().is_err());
    assert_eq!(parse_host(&t, "h3"), None);
    let rows = describe_host(&t, 19);
    assert!(rows
        .iter()
        .any(|(k, v)| k == "cluster" && v.starts_with("b1 ")));
}

proptest::proptest! {
    #[test]
    fn host_strings_never_panic_and_addresses_roundtrip(s in "(0x)?[0-9a-fA-FxX]{0,12}", x in 0u64..768, l in 0u64..0x1_0000, big in proptest::prelude::any::<u64>()) {
        let t = build_str("transit-hybrid:leaf=12;layers=1").unwrap();
        let _ = parse_host(&t, &s);
        let p = Params::from_spec(&t.spec).unwrap();
        proptest::prop_assert_eq!(p.index_of(p.addr_of(x)), Ok(x));
        if let Ok(i) = p.index_of(l) {
            proptest::prop_assert!(i < p.processors());
            // the canonical address differs from l only in unused bits (C bits
            // 1:0, and P pairs 3-4 of a 2-stage B12 cluster)
            proptest::prop_assert_eq!(p.addr_of(i), l & !0x030F);
        }
        let _ = p.index_of(big);
    }
}

#[test]
fn spec_errors_name_the_parameter() {
    let e = build_str("transit-hybrid:leaf=13;layers=1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`leaf`") && e.contains("12, 48 or 192"), "{e}");
    let e = build_str("transit-hybrid:leaf=192;layers=3")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`layers`") && e.contains("RN1 chips"), "{e}");
    let e = build_str("transit-full:layers=4").unwrap_err().to_string();
    assert!(e.contains("`layers`"), "{e}");
    let e = build_str("transit-full:layers=0").unwrap_err().to_string();
    assert!(e.contains("`layers`") && e.contains("out of range"), "{e}");
    let e = build_str("transit-full:leaf=12;layers=1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`leaf` is not a parameter"), "{e}");
    let e = build_str("transit-hybrid:layers=1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`leaf` is required"), "{e}");
}
