//! `decide`'s fast paths, and the engine's `decide_hops`, against `decide_general`
//! (every frame through the full checks of the wire views): the same verdict (for
//! `decide_hops`, its compact `Decision` and the hop-record flag) and the same bytes
//! written, for the frames of real routing-oracle walks as they arrive at every hop
//! (each also with a hop record area), for every single-byte change of their Ethernet
//! and Canopy headers, for truncations, and on every ingress port.

use canopy_control::oracle::{host_mac, Oracle, PAYLOAD};
use canopy_control::{build_str, kinds};
use canopy_dataplane::decide;
use canopy_dataplane::decide::{decide_general, decide_hops, Decision};
use canopy_dataplane::table::SwitchTables;
use canopy_dataplane::wire;
use rand::SeedableRng;

/// Compare on one frame; returns the number of comparisons (1) or the difference.
fn same(t: &SwitchTables, ingress: u16, frame: &[u8]) -> anyhow::Result<()> {
    let (mut a, mut b, mut c) = (frame.to_vec(), frame.to_vec(), frame.to_vec());
    let mut hops = false;
    let (va, vb, vc) = (
        decide(t, ingress, &mut a),
        decide_general(t, ingress, &mut b),
        decide_hops(t, ingress, &mut c, &mut hops),
    );
    anyhow::ensure!(
        va == vb && a == b,
        "{}: ingress {ingress}, frame {}: fast {va:?}, general {vb:?}, bytes {}",
        t.name,
        hex::encode(frame),
        if a == b { "equal" } else { "differ" }
    );
    // the hop-record flag: set exactly for a valid prefix with flag HOPS
    let wants_hops = wire::canopy_offset(frame)
        .ok()
        .and_then(|off| wire::Header::new_checked(&frame[off..]).ok())
        .is_some_and(|h| h.check_payload().is_ok() && h.has_hops());
    anyhow::ensure!(
        vc == Decision::from(vb) && c == b && hops == wants_hops,
        "{}: ingress {ingress}, frame {}: decide_hops {vc:?} (hops {hops}), general {vb:?}, bytes {}",
        t.name,
        hex::encode(frame),
        if c == b { "equal" } else { "differ" }
    );
    Ok(())
}

#[test]
fn fast_paths_agree_with_the_general_decision() {
    let mut checked = 0u64;
    let mut fast_forwarded = 0u64;
    for spec in [
        "fat-tree:k=4",
        "znode:z=3,2,3;r=1,3,6;m=2",
        "transit-full:layers=1",
    ] {
        let topo = build_str(spec).unwrap();
        for kind in kinds::kinds_for(&topo) {
            let tables = kinds::tables(&topo, kind).unwrap();
            let mut o = Oracle::for_kind(&topo, kind).unwrap();
            o.record_headers = true;
            let mut rng = rand::rngs::StdRng::seed_from_u64(5);
            let n = topo.hosts.len() as u32;
            for i in 0..40u32 {
                let (src, dst) = (i * 7 % n, (i * 13 + 5) % n);
                if src == dst {
                    continue;
                }
                let w = o.walk(kind, src, dst, &mut rng).unwrap();
                for (k, hop) in w.hops.iter().enumerate() {
                    let header = if k == 0 {
                        &w.header
                    } else {
                        &w.hops[k - 1].header
                    };
                    // the header as it is, and with a hop record area (flag HOPS)
                    let h = wire::Header::new_checked(&header[..]).unwrap();
                    let mut with_hops = wire::PrefixRepr::parse(&h);
                    with_hops.hops = Some(wire::hops::HopArea::new(2));
                    let header_hops = with_hops.to_vec(h.body()).unwrap();
                    for header in [&header[..], &header_hops[..]] {
                        let f = wire::ethernet_frame(
                            host_mac(&topo, dst),
                            host_mac(&topo, src),
                            header,
                            &PAYLOAD,
                        );
                        let t = &tables[hop.switch as usize];
                        let mut probe = f.clone();
                        if !matches!(
                            decide(t, hop.ingress, &mut probe),
                            canopy_dataplane::Verdict::Drop(_)
                        ) {
                            fast_forwarded += 1;
                        }
                        for p in 0..t.ports.len() as u16 + 1 {
                            same(t, p, &f).unwrap();
                            checked += 1;
                        }
                        let end = (wire::ETH_HEADER_LEN + header.len()).min(f.len());
                        for at in 0..end {
                            let x = f[at];
                            for v in [x ^ 0x01, x ^ 0x80, x ^ 0x10, 0, 0xff, x.wrapping_add(1)] {
                                let mut g = f.clone();
                                g[at] = v;
                                same(t, hop.ingress, &g).unwrap();
                                checked += 1;
                            }
                        }
                        for len in 0..=end {
                            same(t, hop.ingress, &f[..len]).unwrap();
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
    assert!(fast_forwarded > 500, "{fast_forwarded}");
}
