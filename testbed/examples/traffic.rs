//! Drive the traffic generator by hand on a running fabric, until `canopy-testbed run`
//! wires it: hosts from a JSON `FabricHosts` file (what `canopy-testbed up` records), the
//! trial from a `[traffic]` TOML table, results as JSON. With `--reflect POS` it is the
//! host agent of a remote host instead (reflects frames until Ctrl-C).
//!
//! ```sh
//! sudo cargo run --release -p canopy-testbed --example traffic -- \
//!     --hosts hosts.json --spec traffic.toml --out trials.json
//! sudo cargo run --release -p canopy-testbed --example traffic -- --hosts hosts.json --reflect 3
//! ```

use anyhow::{Context, Result};
use canopy_testbed::hosts::FabricHosts;
use canopy_testbed::traffic::{Generator, Reflector, TrafficSpec};
use clap::Parser;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

#[derive(Parser)]
#[command(about = "Run the Canopy traffic generator (or a reflector) on a running fabric")]
struct Args {
    /// JSON file with the fabric's hosts (`FabricHosts`).
    #[arg(long)]
    hosts: PathBuf,
    /// TOML file with the `[traffic]` table's keys at top level.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Host positions on another machine running `--reflect` (round trips).
    #[arg(long)]
    remote: Vec<usize>,
    /// Be the reflector of this host position instead of generating.
    #[arg(long)]
    reflect: Option<usize>,
    /// Write the trials (and the search) here as JSON.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let a = Args::parse();
    let text =
        std::fs::read_to_string(&a.hosts).with_context(|| format!("read {}", a.hosts.display()))?;
    let hosts: FabricHosts = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a FabricHosts JSON", a.hosts.display()))?;
    if let Some(me) = a.reflect {
        let mut r = Reflector::open(&hosts, me)?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone())?;
        signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())?;
        let st = r.run(&stop)?;
        println!("reflected {} frames, ignored {}", st.reflected, st.ignored);
        return Ok(());
    }
    let spec = match &a.spec {
        Some(p) => {
            let t = std::fs::read_to_string(p).with_context(|| format!("read {}", p.display()))?;
            TrafficSpec::from_toml(&t).with_context(|| p.display().to_string())?
        }
        None => TrafficSpec::default(),
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    spec.validate(&hosts, cpus)?;
    let mut g = Generator::open_with_remote(&hosts, &a.remote)?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, g.stop.clone())?;
    let (trials, search) = g.run(&spec)?;
    let json = serde_json::json!({ "pattern": spec.pattern.to_string(), "frame_len": spec.frame_len(), "trials": trials, "search": search });
    match &a.out {
        Some(p) => std::fs::write(p, serde_json::to_string_pretty(&json)?)
            .with_context(|| format!("write {}", p.display()))?,
        None => println!("{}", serde_json::to_string_pretty(&json)?),
    }
    if g.stop.load(Ordering::Relaxed) {
        anyhow::bail!("interrupted");
    }
    Ok(())
}
