//! `vl2:da=DA;di=DI;servers=S`: the VL2 Clos network (Greenberg et al., SIGCOMM 2009) as
//! \[PathID\]'s "VL2(100,96,100)" uses it (docs/pathid-scalability.md explains the reading):
//!
//! * DA = ports of an aggregation switch (half down to ToRs, half up),
//!   DI = ports of an intermediate switch (one per aggregation switch);
//! * DA/2 intermediate switches `int-i<i>` (level 3), DI aggregation switches
//!   `agg-a<a>` (level 2) in DI/2 pairs, DA·DI/4 ToRs `tor-t<t>` (level 1);
//! * each ToR is dual-homed to one aggregation pair (ToR up port 0 → agg 2g, port 1 →
//!   agg 2g+1), each pair serving DA/2 ToRs; every aggregation switch links to every
//!   intermediate (full mesh);
//! * S servers per ToR (the VL2 paper uses 20; \[PathID\]'s third number, 100, does not
//!   change any path-ID count since hosts are outside the path ID).
//!
//! Graph contract: VL2 is the Znode z = (S, DA/2, DI/2), m = 1, R = (1, 2, DA/2). ToR t
//! has zone t, agg 2g+x zone g and index x, intermediate i zone 0 and index i. An
//! intermediate's two down ports into agg pair g both carry label g (group g).

use super::{End, HostError, PortSpec, Tier, TopoError, Topology, ZnodeShape};
use crate::spec::Spec;

/// VL2 parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vl2 {
    /// Aggregation switch ports D_A (even).
    pub da: u32,
    /// Intermediate switch ports D_I (even).
    pub di: u32,
    /// Servers per ToR.
    pub servers: u32,
}

impl Vl2 {
    /// Read and check the spec.
    pub fn from_spec(spec: &Spec) -> Result<Vl2, TopoError> {
        spec.only(&["da", "di", "servers"])?;
        let da = spec.req_u64("da", 2, 1024)?;
        let di = spec.req_u64("di", 2, 1024)?;
        let servers = spec.opt_u64("servers", 1, 1024)?.unwrap_or(20);
        for (key, v) in [("da", da), ("di", di)] {
            if v % 2 != 0 {
                return Err(spec
                    .invalid(key, format!("= {v} must be even (half the ports face each way / aggs come in pairs)"))
                    .into());
            }
        }
        let v = Vl2 {
            da: da as u32,
            di: di as u32,
            servers: servers as u32,
        };
        let hosts = v.hosts();
        if hosts > 4_194_304 {
            return Err(spec
                .invalid(
                    "servers",
                    format!("gives {hosts} servers (DA·DI/4 ToRs × servers); at most 4,194,304"),
                )
                .into());
        }
        Ok(v)
    }

    /// Intermediate switches DA/2.
    pub fn intermediates(&self) -> u32 {
        self.da / 2
    }
    /// Aggregation switches DI.
    pub fn aggs(&self) -> u32 {
        self.di
    }
    /// Aggregation pairs DI/2.
    pub fn pairs(&self) -> u32 {
        self.di / 2
    }
    /// ToRs per aggregation pair (= down ports of an agg) DA/2.
    pub fn tors_per_pair(&self) -> u32 {
        self.da / 2
    }
    /// ToRs DA·DI/4.
    pub fn tors(&self) -> u32 {
        self.pairs() * self.tors_per_pair()
    }
    /// Servers: ToRs × servers per ToR.
    pub fn hosts(&self) -> u64 {
        u64::from(self.tors()) * u64::from(self.servers)
    }
}

/// The switches in index order: ToRs `tor-t<t>` (level 1), aggregation switches
/// `agg-a<a>` (level 2), intermediates `int-i<i>` (level 3).
pub fn tiers(v: &Vl2) -> [Tier; 3] {
    [
        Tier::flat(1, v.tors(), "tor-t"),
        Tier::flat(2, v.aggs(), "agg-a"),
        Tier::flat(3, v.intermediates(), "int-i"),
    ]
}

/// Build from a spec.
pub fn build(spec: &Spec) -> Result<Topology, TopoError> {
    let v = Vl2::from_spec(spec)?;
    let (q, s) = (v.tors_per_pair(), v.servers);
    let mut t = Topology::new(spec.clone());
    let [tors, aggs, ints] = tiers(&v);
    t.switches
        .reserve_exact((tors.count + aggs.count + ints.count) as usize);
    t.hosts.reserve_exact(v.hosts() as usize);
    for tor in 0..tors.count {
        t.add_switch(tors.name(tor), tors.level, 0, u64::from(tor), 0);
    }
    let agg0 = v.tors();
    for a in 0..aggs.count {
        t.add_switch(aggs.name(a), aggs.level, 0, u64::from(a / 2), a % 2);
    }
    let int0 = agg0 + v.aggs();
    for i in 0..ints.count {
        t.add_switch(ints.name(i), ints.level, 0, 0, i);
    }
    for tor in 0..v.tors() {
        for sv in 0..s {
            let x = u64::from(tor) * u64::from(s) + u64::from(sv);
            let h = t.add_host(x, x);
            t.link(
                End::Host(h),
                PortSpec::up(),
                End::Switch(tor),
                PortSpec::down(sv),
            );
        }
    }
    // ToR uplinks: agg port j (j = ToR index within the pair) <-> ToR port S + x.
    for a in 0..v.aggs() {
        let g = a / 2;
        for j in 0..q {
            let tor = g * q + j;
            t.link(
                End::Switch(tor),
                PortSpec::up(),
                End::Switch(agg0 + a),
                PortSpec::down(j),
            );
        }
    }
    // Full mesh agg <-> intermediate: agg port q + i, intermediate port a.
    for a in 0..v.aggs() {
        for i in 0..v.intermediates() {
            t.link(
                End::Switch(agg0 + a),
                PortSpec::up(),
                End::Switch(int0 + i),
                PortSpec::down(a / 2),
            );
        }
    }
    t.znode = Some(ZnodeShape {
        z: vec![s, q, v.pairs()],
        m: 1,
    });
    Ok(t)
}

/// Family-specific address rows of host `h`.
pub fn describe_host(t: &Topology, h: u32) -> Vec<(String, String)> {
    let Ok(v) = Vl2::from_spec(&t.spec) else {
        return Vec::new();
    };
    let Some(host) = t.hosts.get(h as usize) else {
        return Vec::new();
    };
    let x = host.index;
    let tor = x / u64::from(v.servers);
    let sv = x % u64::from(v.servers);
    let g = tor / u64::from(v.tors_per_pair());
    vec![
        ("tor.server".into(), format!("{tor}.{sv}")),
        (
            "attached".into(),
            format!(
                "tor-t{tor} port {sv}; ToR uplinks to agg-a{} and agg-a{}",
                2 * g,
                2 * g + 1
            ),
        ),
    ]
}

/// `tor.server` (e.g. `12.3`); `None` if `s` is not in that syntax.
pub fn parse_host(t: &Topology, s: &str) -> Option<Result<u32, TopoError>> {
    let (a, b) = s.split_once('.')?;
    Some(parse_coords(t, s, a, b))
}

fn parse_coords(t: &Topology, s: &str, a: &str, b: &str) -> Result<u32, TopoError> {
    let bad = |why| TopoError::bad_host(t, s, why);
    let (Ok(tor), Ok(sv)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) else {
        return Err(bad(HostError::Syntax("tor.server with two integers")));
    };
    let v = Vl2::from_spec(&t.spec)?;
    for (what, value, end) in [("ToR", tor, v.tors()), ("server", sv, v.servers)] {
        if value >= u64::from(end) {
            return Err(bad(HostError::OutOfRange {
                what,
                value,
                end: u64::from(end),
            }));
        }
    }
    Ok((tor * u64::from(v.servers) + sv) as u32)
}

#[cfg(test)]
mod tests {
    use crate::topology::{build_str, parse_host, Peer};

    #[test]
    fn counts_and_contract() {
        let t = build_str("vl2:da=8;di=4;servers=2").unwrap();
        // DA/2 = 4 intermediates, DI = 4 aggs, DA·DI/4 = 8 ToRs, 16 servers
        assert_eq!(t.switches.len(), 8 + 4 + 4);
        assert_eq!(t.hosts.len(), 16);
        t.validate().unwrap();
        t.check_znode_contract().unwrap();
        let agg = t.switches.iter().find(|s| s.name == "agg-a3").unwrap();
        assert_eq!(agg.ports.len(), 8, "DA ports");
        let int = t.switches.iter().find(|s| s.name == "int-i0").unwrap();
        assert_eq!(int.ports.len(), 4, "DI ports");
        let tor = t.switches.iter().find(|s| s.name == "tor-t5").unwrap();
        // ToR 5 is in pair 1: up ports to agg-a2, agg-a3
        let Peer::Switch { sw, .. } = tor.ports[2].peer else {
            panic!()
        };
        assert_eq!(t.switches[sw as usize].name, "agg-a2");
        assert_eq!(parse_host(&t, "5.1").unwrap(), 11);
        assert!(parse_host(&t, "8.0").is_err());
    }

    #[test]
    fn pathid_vl2_configuration_builds() {
        // VL2(100, 96, ·): 50 intermediates, 96 aggs, 2,400 ToRs (docs/pathid-scalability.md).
        let t = build_str("vl2:da=100;di=96;servers=1").unwrap();
        let lv = |l| t.switches.iter().filter(|s| s.level == l).count();
        assert_eq!((lv(1), lv(2), lv(3)), (2400, 96, 50));
    }

    #[test]
    fn bad_specs_name_the_parameter() {
        let e = build_str("vl2:da=7;di=4").unwrap_err().to_string();
        assert!(e.contains("`da`") && e.contains("even"), "{e}");
        let e = build_str("vl2:da=8").unwrap_err().to_string();
        assert!(e.contains("`di`") && e.contains("required"), "{e}");
        let e = build_str("vl2:da=1024;di=1024;servers=1000")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`servers`"), "{e}");
    }
}
