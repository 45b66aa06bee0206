//! `canopy-fuzz-seeds OUT`: write the seed corpus of every fuzz target under `OUT/<target>/`,
//! generated from the project's own sources rather than copied bytes:
//! - `wire`: every test vector of `docs/wire-format.md` (as a header, as an Ethernet
//!   frame, and VLAN-tagged), through `canopy_dataplane::wire::doc_vectors`;
//! - `decide`, `decide_tables`: the frames of routing-oracle walks as they arrive at
//!   each hop of the fabrics the targets use, with the switch and ingress bytes that
//!   select that hop, and the doc vectors at every switch;
//! - `switch_mgmt`: one request of every op, `replace_tables` with the rig's real tables
//!   and `inject` with a real frame;
//! - `canopyd_request`: one request of every op, encoded from canopyd's `Request` type;
//! - `fabric_desc`: `examples/*.toml`.

use anyhow::{Context, Result};
use canopy_control::fuzzing::FABRICS;
use canopy_control::oracle::{host_mac, Oracle, PAYLOAD};
use canopy_control::{build_str, kinds};
use canopy_dataplane::wire;
use canopy_proto::auth::AuthRequest;
use canopy_proto::control::Request as DaemonRequest;
use canopy_proto::mgmt::Request;
use canopy_proto::version::PROTOCOL_VERSION;
use rand::SeedableRng;
use std::path::{Path, PathBuf};

struct Out {
    dir: PathBuf,
    n: usize,
}

impl Out {
    fn new(root: &Path, target: &str) -> Result<Out> {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Out { dir, n: 0 })
    }

    fn put(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let p = self.dir.join(format!("seed-{:04}-{name}", self.n));
        std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
        self.n += 1;
        Ok(())
    }
}

/// The frame with one 802.1Q tag inserted after the MAC addresses.
fn vlan(frame: &[u8]) -> Vec<u8> {
    let mut v = frame[..12].to_vec();
    v.extend_from_slice(&wire::ETHERTYPE_VLAN.to_be_bytes());
    v.extend_from_slice(&[0x00, 0x07]);
    v.extend_from_slice(&frame[12..]);
    v
}

/// A doc vector's header in an Ethernet frame between two fixed MACs.
fn doc_frame(h: &[u8]) -> Vec<u8> {
    wire::ethernet_frame([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2], h, &PAYLOAD)
}

fn main() -> Result<()> {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .context("usage: canopy-fuzz-seeds OUT (writes OUT/<target>/seed-*)")?,
    );
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let vectors = wire::doc_vectors()?;
    let w = wire_seeds(&root, &vectors)?;
    let hops = walk_hops()?;
    let (d, dt) = decide_seeds(&root, &hops, &vectors)?;
    let m = mgmt_seeds(&root, &hops)?;
    let c = daemon_seeds(&root)?;
    let fd = desc_seeds(&root, &repo)?;
    for o in [&w, &d, &dt, &m, &c, &fd] {
        println!("{} seeds in {}", o.n, o.dir.display());
    }
    Ok(())
}

/// `wire`: every doc vector as a header, as a frame and VLAN-tagged.
fn wire_seeds(root: &Path, vectors: &[wire::DocVector]) -> Result<Out> {
    let mut w = Out::new(root, "wire")?;
    for v in vectors {
        w.put(&v.id, &v.bytes)?;
        w.put(&format!("{}-eth", v.id), &doc_frame(&v.bytes))?;
        w.put(&format!("{}-vlan", v.id), &vlan(&doc_frame(&v.bytes)))?;
    }
    Ok(w)
}

/// (switch index in `fabric_tables`, ingress, frame) of real walks: the frame as it
/// arrives at each hop, for every fabric and kind the fuzz targets use.
fn walk_hops() -> Result<Vec<(usize, u16, Vec<u8>)>> {
    let mut hops: Vec<(usize, u16, Vec<u8>)> = Vec::new();
    let mut base = 0usize;
    for spec in FABRICS {
        let topo = build_str(spec).with_context(|| spec.to_string())?;
        for kind in kinds::kinds_for(&topo) {
            let n_sw = kinds::tables(&topo, kind)?.len();
            let mut o = Oracle::for_kind(&topo, kind)?;
            o.record_headers = true;
            let mut rng = rand::rngs::StdRng::seed_from_u64(8);
            let n = topo.hosts.len() as u32;
            for i in 0..6u32 {
                let (src, dst) = (i * 7 % n, (i * 13 + 5) % n);
                if src == dst {
                    continue;
                }
                let walk = o.walk(kind, src, dst, &mut rng)?;
                for (k, hop) in walk.hops.iter().enumerate() {
                    let h = if k == 0 {
                        &walk.header
                    } else {
                        &walk.hops[k - 1].header
                    };
                    let f = wire::ethernet_frame(
                        host_mac(&topo, dst),
                        host_mac(&topo, src),
                        h,
                        &PAYLOAD,
                    );
                    hops.push((base + hop.switch as usize, hop.ingress, f));
                }
            }
            base += n_sw;
        }
    }
    Ok(hops)
}

/// `decide` and `decide_tables`: the walks' hops with their switch and ingress bytes,
/// and the doc vectors at a few switches.
fn decide_seeds(
    root: &Path,
    hops: &[(usize, u16, Vec<u8>)],
    vectors: &[wire::DocVector],
) -> Result<(Out, Out)> {
    let mut d = Out::new(root, "decide")?;
    let mut dt = Out::new(root, "decide_tables")?;
    for (i, (sw, ingress, f)) in hops.iter().enumerate() {
        // The targets take the switch and ingress bytes modulo their ranges.
        let (s, p) = ((*sw % 256) as u8, (*ingress % 256) as u8);
        let mut b = vec![s, p];
        b.extend_from_slice(f);
        d.put("walk", &b)?;
        let mut b = vec![s, 0, p];
        b.extend_from_slice(f);
        dt.put("walk", &b)?;
        if i % 5 == 0 {
            // one perturbation: the first number of the tables set to 0
            let mut b = vec![s, 1, 0, 0, 0, p];
            b.extend_from_slice(f);
            dt.put("walk-edit", &b)?;
        }
    }
    for v in vectors {
        for s in [0u8, 7, 25, 41] {
            let mut b = vec![s, 1];
            b.extend_from_slice(&doc_frame(&v.bytes));
            d.put(&v.id, &b)?;
        }
    }
    Ok((d, dt))
}

/// `switch_mgmt`: one request of every op, with real tables and a real frame.
fn mgmt_seeds(root: &Path, hops: &[(usize, u16, Vec<u8>)]) -> Result<Out> {
    let t = canopy_control::fuzzing::fabric_tables().swap_remove(0);
    let mut m = Out::new(root, "switch_mgmt")?;
    let f = hops.first().map(|h| h.2.clone()).unwrap_or_default();
    let hex = f.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let requests = [
        Request::Health {},
        Request::Counters {},
        Request::GetTables {},
        Request::SetPort { port: 1, up: false },
        Request::ReplaceTables {
            tables: serde_json::value::to_raw_value(&t)?,
        },
        Request::Inject {
            port: 0,
            frames: vec![hex],
        },
        Request::Capture {
            port: 2,
            max: Some(4),
        },
        Request::Hello {
            version: PROTOCOL_VERSION,
        },
    ];
    for req in &requests {
        m.put(req.op(), &serde_json::to_vec(req)?)?;
    }
    let challenge = AuthRequest::Challenge {
        nonce: "00".repeat(32),
    };
    m.put("challenge", &serde_json::to_vec(&challenge)?)?;
    let auth = AuthRequest::Auth {
        proof: "00".repeat(32),
    };
    m.put("auth", &serde_json::to_vec(&auth)?)?;
    Ok(m)
}

/// `canopyd_request`: one request of every op, as canopyd reads them (a line each).
fn daemon_seeds(root: &Path) -> Result<Out> {
    let mut c = Out::new(root, "canopyd_request")?;
    for (name, req) in [
        ("status", DaemonRequest::Status {}),
        (
            "counters",
            DaemonRequest::Counters {
                switch: Some("edge-p0-e0".into()),
            },
        ),
        ("push", DaemonRequest::Push { switch: None }),
        (
            "set_port",
            DaemonRequest::SetPort {
                switch: "core-c0".into(),
                port: 3,
                up: false,
            },
        ),
        (
            "traffic",
            DaemonRequest::Traffic {
                sent: 1000,
                received: 998,
                lost: 2,
                misdelivered: 0,
                latency_ns: vec![(1000, 5), (2000, 993)],
            },
        ),
        (
            "hello",
            DaemonRequest::Hello {
                version: PROTOCOL_VERSION,
            },
        ),
    ] {
        let mut line = serde_json::to_vec(&req)?;
        line.push(b'\n');
        c.put(name, &line)?;
    }
    Ok(c)
}

/// `fabric_desc`: `examples/*.toml`.
fn desc_seeds(root: &Path, repo: &Path) -> Result<Out> {
    let mut fd = Out::new(root, "fabric_desc")?;
    let ex = repo.join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&ex)
        .with_context(|| format!("cannot read {}", ex.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for p in files {
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("example")
            .to_string();
        fd.put(&name, &std::fs::read(&p)?)?;
    }
    Ok(fd)
}
