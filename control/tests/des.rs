//! The discrete-event fabric's mechanics against closed forms: zero-load latency is
//! hops × (serialisation + propagation) for store-and-forward and one serialisation
//! plus a header time per switch for cut-through; one link carries exactly its rate;
//! every measured message is delivered, dropped, refused or reported unfinished; a seed
//! fixes the run. The thesis's figures are not checked here.

use canopy_control::des::{
    Arrivals, FlowControl, Injection, Lengths, Network, Outcome, Prepared, Switching, Workload,
};
use canopy_control::kinds::Addressing;
use canopy_control::topology::{build_str, Topology};
use canopy_dataplane::wire::{self, Kind};
use rand::{Rng, SeedableRng};

fn fat4() -> Topology {
    build_str("fat-tree:k=4").unwrap()
}

/// Host `src` sends to `dst`, every other host is idle.
fn one_pair(src: u32, dst: u32) -> impl FnMut(u32) -> Option<u32> {
    move |h| (h == src).then_some(dst)
}

/// Every host sends to uniformly random other hosts.
fn uniform(n: u32, seed: u64) -> impl FnMut(u32) -> Option<u32> {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    move |h| {
        let d = r.gen_range(0..n - 1);
        Some(d + u32::from(d >= h))
    }
}

fn net(switching: Switching) -> Network {
    Network {
        link_gbps: 1.0,
        propagation_ns: 50.0,
        switch_delay_ns: 30.0,
        buffer: 4,
        switching,
        flow_control: FlowControl::Lossless,
        overhead_bytes: 24,
        flowlet_gap_ns: 0,
        decide_after_bytes: 0,
        injection: Injection::First,
    }
}

fn close(got: f64, want: f64, what: &str) {
    // the delay histograms keep 3 significant digits
    assert!(
        (got - want).abs() <= want * 0.001 + 0.5,
        "{what}: got {got} ns, closed form {want} ns"
    );
}

#[test]
fn zero_load_latency_is_the_closed_form_for_both_switchings() {
    let t = fat4();
    let a = Addressing::of(Kind::Sliced);
    let p = Prepared::new(&t, a).unwrap();
    let payload = 200u32;
    let wl = Workload {
        load: 0.01,
        arrivals: Arrivals::Fixed,
        payload: Lengths::Fixed(payload),
        warmup_us: 0.0,
        measure_us: 2000.0,
        ..Workload::default()
    };
    let mut seen_hops = Vec::new();
    for dst in [1u32, 2, 4] {
        let head = (wire::ETH_HEADER_LEN + a.header(&t, 0, dst).unwrap().len()) as f64;
        let wire_len = (head + f64::from(payload)).max(60.0) + 24.0;
        let ser = wire_len * 8.0; // ns at 1 Gbit/s
        for sw in [Switching::StoreAndForward, Switching::CutThrough] {
            let o = p.run(&net(sw), &wl, &mut one_pair(0, dst)).unwrap();
            assert!(o.counts.measured_delivered >= 5, "{o:?}");
            assert_eq!(o.counts.misdelivered, 0);
            let hops = o.mean_hops;
            assert_eq!(hops.fract(), 0.0, "one path, one hop count: {hops}");
            let links = hops + 1.0;
            let want = match sw {
                Switching::StoreAndForward => links * (ser + 50.0) + hops * 30.0,
                Switching::CutThrough => links * 50.0 + hops * (head * 8.0 + 30.0) + ser,
            };
            close(o.delay.p50_ns, want, &format!("{sw:?} 0->{dst} p50"));
            close(o.delay.max_ns, want, &format!("{sw:?} 0->{dst} max"));
            close(o.transmission_ns, ser, "transmission time");
            assert_eq!(o.request.max_ns, 0.0, "an idle link grants at once");
            seen_hops.push(hops as u32);
        }
    }
    // same edge switch, same pod, other pod
    assert_eq!(seen_hops, [1, 1, 3, 3, 5, 5]);
    // a switch that decides on its first 4 bytes: one 32 ns read per switch
    let first_flit = Network {
        decide_after_bytes: 4,
        ..net(Switching::CutThrough)
    };
    let o = p.run(&first_flit, &wl, &mut one_pair(0, 4)).unwrap();
    let ser =
        ((wire::ETH_HEADER_LEN + a.header(&t, 0, 4).unwrap().len()) as f64 + 200.0 + 24.0) * 8.0;
    close(
        o.delay.max_ns,
        6.0 * 50.0 + 5.0 * (32.0 + 30.0) + ser,
        "first-flit decision",
    );
}

/// 1000-byte messages at `load`, measured long after the source queue has stopped ever
/// running empty, with room for every message that waits.
fn overload(load: f64) -> Workload {
    Workload {
        load,
        payload: Lengths::Fixed(1000),
        warmup_us: 400.0,
        measure_us: 500.0,
        drain_us: 0.0,
        source_queue: 100_000,
        ..Workload::default()
    }
}

#[test]
fn one_link_carries_exactly_its_rate_under_overload() {
    let t = fat4();
    let p = Prepared::new(&t, Addressing::of(Kind::Sliced)).unwrap();
    for switching in [Switching::StoreAndForward, Switching::CutThrough] {
        let o = p
            .run(&net(switching), &overload(1.5), &mut one_pair(0, 1))
            .unwrap();
        let carried = o.throughput * o.hosts as f64; // of one link's rate
        assert!((carried - 1.0).abs() < 0.005, "{switching:?}: {carried}");
        let offered = o.offered * o.hosts as f64;
        assert!((offered - 1.5).abs() < 0.1, "{offered}");
        // the excess waits at the source; the network part stays one frame's worth
        assert!(o.request.max_ns > 100_000.0, "{:?}", o.request);
        assert!(o.network_delay.max_ns < 2.0 * o.transmission_ns + 1000.0);
        // the links on the way are busy the whole window
        let up = o.tiers.iter().find(|u| u.tier == "H→1").unwrap();
        assert!((up.max - 1.0).abs() < 0.005, "{up:?}");
    }
}

/// Every measured message is accounted for, and nothing reaches the wrong host.
fn conserved(o: &Outcome) {
    let c = &o.counts;
    assert_eq!(
        c.measured,
        c.measured_delivered + c.measured_dropped + c.measured_refused + c.unfinished,
        "{c:?}"
    );
    assert_eq!(c.misdelivered, 0);
}

#[test]
fn hotspot_conserves_messages_lossless_and_drop_tail() {
    let t = fat4();
    let p = Prepared::new(&t, Addressing::of(Kind::Sliced)).unwrap();
    // three hosts of other pods each offer 60 % to host 0: its link is the bottleneck
    let mut to_zero = |h: u32| [4u32, 8, 12].contains(&h).then_some(0);
    let wl = Workload {
        load: 0.6,
        payload: Lengths::Uniform { min: 64, max: 1400 },
        warmup_us: 20.0,
        measure_us: 2000.0,
        drain_us: 5000.0,
        ..Workload::default()
    };
    let lossless = p
        .run(&net(Switching::CutThrough), &wl, &mut to_zero)
        .unwrap();
    conserved(&lossless);
    assert!(lossless.counts.dropped.is_empty(), "{:?}", lossless.counts);
    let into_zero = lossless.tiers.iter().find(|u| u.tier == "1→H").unwrap();
    assert!(into_zero.max > 0.99, "{into_zero:?}");
    let drop_net = Network {
        flow_control: FlowControl::Drop,
        ..net(Switching::CutThrough)
    };
    let lossy = p.run(&drop_net, &wl, &mut to_zero).unwrap();
    conserved(&lossy);
    // 1.8 offered into one link: about 0.8 / 1.8 of the frames cannot go
    let dropped = lossy.counts.dropped.get("ring_full").copied().unwrap_or(0);
    let share = lossy.counts.measured_dropped as f64 / lossy.counts.measured as f64;
    assert!(
        dropped > 200 && (0.35..0.55).contains(&share),
        "{:?}",
        lossy.counts
    );
    assert_eq!(lossy.counts.unfinished, 0);
}

#[test]
fn uniform_traffic_on_every_addressing_is_delivered_and_seeded_runs_repeat() {
    let wl = Workload {
        load: 0.5,
        payload: Lengths::Mix(vec![(64, 7.0), (576, 4.0), (1400, 1.0)]),
        measure_us: 200.0,
        ..Workload::default()
    };
    let (fat, transit) = (fat4(), build_str("transit-full:layers=1").unwrap());
    // (Transit's hosts inject on one of their two ports, and its stages saturate
    // below 50 % uniform load: 20 % there)
    let mut cases: Vec<(&Topology, Addressing, f64)> = vec![
        (&fat, Addressing::of(Kind::Sliced), 0.5),
        (&fat, Addressing::of(Kind::PathId), 0.5),
        (&transit, Addressing::of(Kind::Transit), 0.2),
    ];
    for m in ["flat", "srcdst", "dst"] {
        cases.push((
            &fat,
            Addressing::parse(&format!("sliced/{m}")).unwrap(),
            0.5,
        ));
    }
    for (t, a, load) in cases {
        let wl = Workload { load, ..wl.clone() };
        let n = t.hosts.len() as u32;
        let p = Prepared::new(t, a).unwrap();
        let o = p
            .run(&net(Switching::CutThrough), &wl, &mut uniform(n, 3))
            .unwrap();
        conserved(&o);
        assert_eq!(o.counts.unfinished, 0, "{a}");
        assert!(o.counts.dropped.is_empty(), "{a}: {:?}", o.counts.dropped);
        assert!((o.throughput - o.offered).abs() < 0.05, "{a}: {o:?}");
        let again = p
            .run(&net(Switching::CutThrough), &wl, &mut uniform(n, 3))
            .unwrap();
        let same = |o: &Outcome| (o.delay.clone(), o.tiers.clone(), o.counts.clone(), o.events);
        assert_eq!(same(&o), same(&again), "{a}: one seed, one run");
        let other = p
            .run(
                &net(Switching::CutThrough),
                &Workload {
                    seed: 9,
                    ..wl.clone()
                },
                &mut uniform(n, 3),
            )
            .unwrap();
        assert_ne!(same(&o), same(&other), "{a}: another seed, another run");
    }
}

#[test]
fn adaptive_choice_spreads_uniform_traffic_over_the_up_links() {
    let t = build_str("fat-tree:k=8").unwrap();
    let n = t.hosts.len() as u32;
    let p = Prepared::new(&t, Addressing::of(Kind::Sliced)).unwrap();
    let wl = Workload {
        load: 0.7,
        payload: Lengths::Fixed(500),
        measure_us: 300.0,
        ..Workload::default()
    };
    let o = p
        .run(&net(Switching::CutThrough), &wl, &mut uniform(n, 5))
        .unwrap();
    conserved(&o);
    for tier in ["1→2", "2→3"] {
        let u = o.tiers.iter().find(|u| u.tier == tier).unwrap();
        assert!(u.mean > 0.3 && u.max < u.mean * 1.5, "{tier}: {u:?}");
    }
}

#[test]
fn a_host_with_two_links_sends_on_one_or_spreads_over_both() {
    // two layers joined only at the processors: every host has a link into each
    let t = build_str("znode:z=4,4;layers=2").unwrap();
    assert!(t.hosts.iter().all(|h| h.ports.len() == 2));
    let p = Prepared::new(&t, Addressing::of(Kind::Sliced)).unwrap();
    let wl = Workload {
        arrivals: Arrivals::Fixed,
        ..overload(1.6)
    };
    let run = |injection| {
        let n = Network {
            injection,
            ..net(Switching::CutThrough)
        };
        p.run(&n, &wl, &mut one_pair(0, 5)).unwrap()
    };
    let up = |o: &Outcome| o.tiers.iter().find(|u| u.tier == "H→1").unwrap().clone();
    // first: one link, carried at its rate; the other idle
    let first = run(Injection::First);
    let carried = first.throughput * first.hosts as f64;
    assert!((carried - 1.0).abs() < 0.005, "first: {carried}");
    let u = up(&first);
    assert_eq!(u.links, 32, "every host link counts in the tier: {u:?}");
    assert!((u.max - 1.0).abs() < 0.005, "{u:?}");
    // spread: both links, 0.8 each, all of the offered load carried, nothing refused
    let spread = run(Injection::Spread);
    let carried = spread.throughput * spread.hosts as f64;
    assert!((carried - 1.6).abs() < 0.01, "spread: {carried}");
    assert_eq!(spread.counts.refused, 0);
    let u = up(&spread);
    assert!((u.max - 0.8).abs() < 0.01, "{u:?}");
    assert!((u.mean * 32.0 - 1.6).abs() < 0.02, "two links busy: {u:?}");
    // one frame never waits behind more than one other at the source
    assert!(
        spread.request.max_ns < 2.0 * spread.transmission_ns,
        "{:?}",
        spread.request
    );
    // at a light load every message finds the first link idle: ties go to it
    let light = Workload {
        load: 0.3,
        ..wl.clone()
    };
    let n = Network {
        injection: Injection::Spread,
        ..net(Switching::CutThrough)
    };
    let o = p.run(&n, &light, &mut one_pair(0, 5)).unwrap();
    let u = up(&o);
    // (a frame that straddles the window's edge counts whole: up to 2 % over)
    assert!((u.max - 0.3).abs() < 0.02, "{u:?}");
    assert!((u.mean * 32.0 - u.max).abs() < 1e-3, "one link busy: {u:?}");
}

#[test]
fn bad_values_are_refused_with_the_field() {
    let t = fat4();
    let p = Prepared::new(&t, Addressing::of(Kind::Sliced)).unwrap();
    let bad_net = Network {
        link_gbps: 0.0,
        ..Network::default()
    };
    let e = p
        .run(&bad_net, &Workload::default(), &mut one_pair(0, 1))
        .unwrap_err();
    assert!(e.to_string().starts_with("link_gbps = 0"), "{e}");
    let bad_wl = Workload {
        payload: Lengths::Uniform { min: 9, max: 3 },
        ..Workload::default()
    };
    let e = p
        .run(&Network::default(), &bad_wl, &mut one_pair(0, 1))
        .unwrap_err();
    assert!(e.to_string().starts_with("payload = 9..=3"), "{e}");
    // a destination outside the fabric is refused, not indexed
    let e = p
        .run(
            &Network::default(),
            &Workload::default(),
            &mut one_pair(0, 99),
        )
        .unwrap_err();
    assert!(e.to_string().contains("host 0 -> 99"), "{e}");
    // 16 hosts may not keep 2^23 messages each waiting
    let hoard = Workload {
        source_queue: 1 << 23,
        ..Workload::default()
    };
    let e = p
        .run(&Network::default(), &hoard, &mut one_pair(0, 1))
        .unwrap_err();
    assert!(e.to_string().contains("times the hosts"), "{e}");
}
