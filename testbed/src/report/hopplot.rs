//! The plot of where the latency stream's time went (`latency_hops.svg`): for each load
//! of a search's latency trials, one bar of the stream's longest path split into its
//! parts (sending host's stack, RX rings, residence, links; [`super::latency`]), each as
//! its share of the sum, with the measured mean written above the bar. Shares, not µs:
//! the mean grows twentyfold from no load to 90 % of the NDR, and the question the plot
//! answers is which part grows.
//!
//! The parts are `<rect>`s in [`PALETTE`] `[0..4]` in that order; the legend uses circles.

use super::latency::{by_kind, longest};
use super::plots::PALETTE;
use super::results::RunResults;
use crate::{Result, TestbedError};
use plotters::prelude::*;

/// The parts in the order of their colours.
pub const PARTS: [&str; 4] = ["host stack", "RX rings", "residence", "links"];

/// The parts' names for a breakdown: [`PARTS`], or for records on the switches' own
/// clocks (bmv2), where only residence is known, the time outside the switches first.
pub fn part_names(switch_clocks: bool) -> [&'static str; 4] {
    if switch_clocks {
        [
            "outside the switches",
            "RX rings (n/a)",
            "residence",
            "links (n/a)",
        ]
    } else {
        PARTS
    }
}

fn colour(i: usize) -> RGBColor {
    let v = u32::from_str_radix(&PALETTE[i][1..], 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// The plot, or None when no latency trial has a breakdown.
pub fn hop_breakdown(r: &RunResults) -> Result<Option<String>> {
    const NAME: &str = "latency_hops.svg";
    let e = |e: &dyn std::fmt::Display| TestbedError::Plot {
        plot: NAME.into(),
        detail: e.to_string(),
    };
    let Some(s) = &r.search else {
        return Ok(None);
    };
    let switch_clocks = s
        .latency
        .iter()
        .find_map(|l| l.trial.probe.as_ref()?.hops.as_ref())
        .is_some_and(|h| h.switch_clocks);
    let bars: Vec<(String, [f64; 4], f64, usize)> = s
        .latency
        .iter()
        .filter_map(|l| {
            let p = longest(l.trial.probe.as_ref()?.hops.as_ref()?)?;
            Some((
                format!("{:.0} % NDR", l.fraction * 100.0),
                by_kind(p),
                p.measured.mean_ns,
                p.hops,
            ))
        })
        .collect();
    let Some(hops) = bars.iter().map(|b| b.3).max() else {
        return Ok(None);
    };
    let bars: Vec<_> = bars.into_iter().filter(|b| b.3 == hops).collect();
    let n = bars.len();
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (900, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let (top, body) = root.split_vertically(60);
        top.draw(&Text::new(
            format!(
                "Where the latency stream's time went ({hops}-switch paths): share of the mean"
            ),
            (15, 10),
            ("sans-serif", 20),
        ))
        .map_err(|x| e(&x))?;
        for (i, label) in part_names(switch_clocks).iter().enumerate() {
            let x = 20 + 170 * i as i32;
            top.draw(&Circle::new((x, 44), 5, colour(i).filled()))
                .map_err(|x| e(&x))?;
            top.draw(&Text::new(*label, (x + 10, 37), ("sans-serif", 14)))
                .map_err(|x| e(&x))?;
        }
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..1.12)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|v| {
                let i = v.round();
                match bars.get(i as usize) {
                    Some(b) if (v - i).abs() < 1e-9 && i >= 0.0 => b.0.clone(),
                    _ => String::new(),
                }
            })
            .x_desc("background load")
            .y_desc("share of the mean latency")
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(|x| e(&x))?;
        for (k, _) in PARTS.iter().enumerate() {
            chart
                .draw_series(bars.iter().enumerate().map(|(i, b)| {
                    let sum: f64 = b.1.iter().map(|v| v.max(0.0)).sum();
                    let share = |j: usize| {
                        if sum > 0.0 {
                            b.1[..j].iter().map(|v| v.max(0.0)).sum::<f64>() / sum
                        } else {
                            0.0
                        }
                    };
                    let x = i as f64;
                    Rectangle::new(
                        [(x - 0.3, share(k)), (x + 0.3, share(k + 1))],
                        colour(k).filled(),
                    )
                }))
                .map_err(|x| e(&x))?;
        }
        for (i, b) in bars.iter().enumerate() {
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{} µs", super::fmt::us(b.2.max(0.0).round() as u64)),
                    (i as f64 - 0.15, 1.08),
                    ("sans-serif", 13),
                )))
                .map_err(|x| e(&x))?;
        }
        root.present().map_err(|x| e(&x))?;
    }
    Ok(Some(buf))
}
