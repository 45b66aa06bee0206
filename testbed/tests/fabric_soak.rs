//! Soak and fault injection on a netns fabric (`canopy-testbed soak`, `docs/testbed.md`,
//! `docs/RELIABILITY.md` §2 and §3). Needs root; skips otherwise.
//!
//! * `soak_accounts_for_every_frame`: the fabric's PDR is measured, the fabric driven at
//!   it for `$CANOPY_SOAK_DURATION` (default 2 min), then overloaded towards one host for
//!   a few seconds so that switches drop; both times every frame sent is received or
//!   counted as a drop somewhere (zero unaccounted), no frame reaches a wrong host, every
//!   switch conserves rx = tx + drops and every switch port's counters agree with its
//!   interface's.
//! * `faults_under_traffic_recover`: `$CANOPY_FAULT_ROUNDS` (default 2) rounds of a
//!   link flap, a killed and restarted switch, a killed and restarted canopyd and a
//!   slowed port whose TX ring fills, at 20 kpps; the time to full delivery after each
//!   fault and repair is read from the traffic and must stay within 3 s; the switch of
//!   the slowed port counts its overflow by name and keeps forwarding on its other ports.
//!   Then one round of the faults that kill no switch (link flap, canopyd, tx-fill): the
//!   accounting stays exact, with zero unaccounted frames (a frame a veth dropped while
//!   its peer was down went back in its sender's TX ring: `requeued`).

mod fabric_common;

use fabric_common::{assert_accounted, root_or_skip, soak, Fab};
use serde_json::Value;

#[test]
fn soak_accounts_for_every_frame() {
    if !root_or_skip("soak_accounts_for_every_frame") {
        return;
    }
    let _one_at_a_time = canopy_test_utils::serial();
    let f = Fab::named("sk", "s");
    let d = f.desc("fabric.toml", "");
    f.up(&d, &[]);
    let secs = std::env::var("CANOPY_SOAK_DURATION").unwrap_or_else(|_| "2m".into());

    // at the measured PDR for the soak's duration
    let (ok, r) = soak(
        &f,
        &f.dir.join("pdr"),
        &["--duration", &secs, "--search-trial-s", "1"],
    );
    let pdr = r["pdr_pps"].as_f64().expect("no PDR measured");
    assert!(pdr > 1000.0, "PDR {pdr}");
    assert_eq!(r["rate_pps"].as_f64().unwrap(), pdr);
    assert_accounted("soak at the PDR", ok, &r, (20, 80), true);
    // the generator shares the machine with 20 switches and falls behind the offered
    // rate over minutes (about 0.7 of it here); a generator that hardly sends is a failure
    let t = &r["trial"];
    assert!(
        t["sent"].as_u64().unwrap() as f64 >= 0.25 * pdr * r["duration_s"].as_f64().unwrap(),
        "the generator fell far behind: {t}"
    );

    // overload towards one host: the switches drop, and every drop is counted
    let (ok, r) = soak(
        &f,
        &f.dir.join("overload"),
        &[
            "--rate",
            "80kpps",
            "--pattern",
            "hotspot:fraction=0.9,target=0",
            "--duration",
            "5s",
        ],
    );
    assert_accounted("overload", ok, &r, (20, 80), true);
    let a = &r["accounting"];
    assert!(
        a["counted"].as_u64().unwrap() > 0,
        "the overload dropped nothing, so the accounting of drops was not exercised: {a}"
    );
    eprintln!(
        "soak: PDR {pdr:.0} pps; overload counted {} drops ({}, {}), 0 unaccounted",
        a["counted"], a["switch_drops"], a["backend_drops"]
    );
    f.down();
    f.assert_clean();
}

#[test]
fn faults_under_traffic_recover() {
    if !root_or_skip("faults_under_traffic_recover") {
        return;
    }
    // not beside the soak at full rate: canopyd's probes would starve
    let _one_at_a_time = canopy_test_utils::serial();
    let f = Fab::named("sk", "f");
    // the edge switches send through their ports' qdiscs, so a slowed port's TX ring fills
    let d = f.desc(
        "fabric.toml",
        "[[ports.override]]\nswitch = \"edge-*\"\nqdisc_bypass = false\n",
    );
    f.up(&d, &[]);
    let rounds = std::env::var("CANOPY_FAULT_ROUNDS").unwrap_or_else(|_| "2".into());
    let (ok, r) = soak(
        &f,
        &f.dir.join("faults"),
        &[
            "--rate",
            "20kpps",
            "--duration",
            "5s",
            "--fault-rounds",
            &rounds,
            "--recovery-limit-ms",
            "3000",
        ],
    );
    let a = &r["accounting"];
    assert_eq!(a["misdelivered"], 0, "frames reached a wrong host: {a}");
    let faults = r["faults"].as_array().expect("no faults in the report");
    let rounds: usize = rounds.parse().unwrap();
    assert_eq!(faults.len(), 4 * rounds, "{faults:?}");
    for e in faults {
        let what = format!("{} {} (round {})", e["kind"], e["target"], e["round"]);
        let rr = e["repair_recovery_ms"].as_f64();
        assert!(
            rr.is_some_and(|ms| ms <= 3000.0),
            "{what}: full delivery after the repair: {rr:?}"
        );
        if e["expect_fault_recovery"] == true {
            let fr = e["fault_recovery_ms"].as_f64();
            assert!(
                fr.is_some_and(|ms| ms <= 3000.0),
                "{what}: full delivery during the fault: {fr:?}"
            );
        }
        if e["kind"] == "daemon-kill" {
            assert_eq!(
                e["lost_during"], 0,
                "{what}: frames lost without canopyd: {e}"
            );
        }
        if e["kind"] == "tx-fill" {
            // the TX ring filled, the switch counted the overflow by name, and it kept
            // forwarding on its other ports
            let drops = e["drops"].as_object().cloned().unwrap_or_default();
            let named: u64 = ["ring_full", "tx_error", "backend.tx_ring_full"]
                .iter()
                .filter_map(|k| drops.get(*k).and_then(Value::as_u64))
                .sum();
            assert!(named > 0, "{what}: no overflow counted: {e}");
            assert!(
                e["tx_backlog"].as_u64().unwrap() > 0,
                "{what}: the TX ring did not fill: {e}"
            );
            assert!(
                e["other_ports_tx"].as_u64().unwrap() > 0,
                "{what}: the switch stopped forwarding on its other ports: {e}"
            );
        }
    }
    assert!(
        r["min_delivery_100ms"].as_f64().unwrap() > 0.0,
        "the fabric stopped forwarding: {r}"
    );
    // switches that were not restarted still conserve exactly
    for s in r["switches"].as_array().unwrap() {
        assert!(s["conserved"] == true || s["unchecked"].is_string(), "{s}");
    }
    assert!(ok, "soak with faults failed: {}", r["failures"]);

    // faults that kill no switch keep the accounting exact
    let (ok, r) = soak(
        &f,
        &f.dir.join("exact"),
        &[
            "--rate",
            "20kpps",
            "--duration",
            "5s",
            "--fault-rounds",
            "1",
            "--faults",
            "link-flap,daemon-kill,tx-fill",
        ],
    );
    assert_accounted("link-flap, daemon-kill and tx-fill", ok, &r, (20, 80), true);
    assert!(
        r["accounting"]["switch_drops"]["ring_full"]
            .as_u64()
            .unwrap_or(0)
            > 0,
        "the slowed port's overflow is not in the accounting: {}",
        r["accounting"]
    );
    f.down();
    f.assert_clean();
}
