//! The three plots of a run report, drawn with `plotters`' SVG backend into strings.
//!
//! Every data curve is one SVG `<polyline>` in its own colour from [`PALETTE`]
//! (curve `i` of a plot uses `PALETTE[i]`); axes and grid are black and greys, the
//! ideal line of the throughput plot is [`IDEAL`]. Legends use circles, never lines, so
//! counting the polylines of a colour counts the curves. Per-link bars are `<rect>`s in
//! `PALETTE[0]` (a → b) and `PALETTE[1]` (b → a).
//!
//! A plot with nothing to show (no trial with a latency distribution, no trial at all,
//! no link counters) is not drawn: the functions return `Ok(None)` and the report says
//! why.

use super::fmt;
use crate::report::results::{Latency, RunResults, Trial};
use crate::{Result, TestbedError};
use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;

/// Curve colours, as `plotters`' SVG backend writes them (`stroke="#1F77B4"`).
pub const PALETTE: [&str; 6] = [
    "#1F77B4", "#D62728", "#2CA02C", "#9467BD", "#FF7F0E", "#8C564B",
];

/// Colour of the ideal `received = offered` line.
pub const IDEAL: &str = "#7F7F7F";

/// Most curves on the latency CDF.
pub const MAX_CDF_CURVES: usize = PALETTE.len();

/// Up to this many CDF curves get their p50/p99/p99.9 values written next to the marks
/// (more would overlap; the values are in the report's trial table).
pub const LABELLED_CURVES: usize = 2;

/// Width and height of the latency and throughput plots, pixels.
const SIZE: (u32, u32) = (900, 520);

fn colour(i: usize) -> RGBColor {
    hex(PALETTE[i % PALETTE.len()])
}

fn hex(s: &str) -> RGBColor {
    let v = u32::from_str_radix(&s[1..], 16).unwrap_or(0);
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

fn err<E: std::fmt::Display>(plot: &str) -> impl Fn(E) -> TestbedError + '_ {
    move |e| TestbedError::Plot {
        plot: plot.to_string(),
        detail: e.to_string(),
    }
}

/// The trials shown on the latency CDF, with their legend labels: for a search the NDR
/// and PDR trials (one curve when they are the same trial), or the lowest-rate trial
/// when the search found neither; otherwise every trial (a fixed-rate run has one), at
/// most [`MAX_CDF_CURVES`]. Trials that recorded no latency are left out.
pub fn cdf_trials(r: &RunResults) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let valid = |i: usize| r.trials.get(i).is_some_and(|t| !t.latency.cdf.is_empty());
    if let Some(s) = &r.search {
        match (s.ndr_trial, s.pdr_trial) {
            (Some(n), Some(p)) if n == p => out.push((
                n,
                format!(
                    "NDR = PDR, {}",
                    fmt::rate(r.trials.get(n).map_or(0.0, |t| t.offered_pps))
                ),
            )),
            (n, p) => {
                if let Some(n) = n {
                    out.push((
                        n,
                        format!(
                            "NDR, {}",
                            fmt::rate(r.trials.get(n).map_or(0.0, |t| t.offered_pps))
                        ),
                    ));
                }
                if let Some(p) = p {
                    out.push((
                        p,
                        format!(
                            "PDR, {}",
                            fmt::rate(r.trials.get(p).map_or(0.0, |t| t.offered_pps))
                        ),
                    ));
                }
            }
        }
        if out.is_empty() {
            // No rate met either criterion: show the gentlest trial that measured something.
            let lowest = (0..r.trials.len())
                .filter(|&i| valid(i))
                .min_by(|&a, &b| r.trials[a].offered_pps.total_cmp(&r.trials[b].offered_pps));
            if let Some(i) = lowest {
                out.push((
                    i,
                    format!(
                        "lowest rate, {} (no NDR/PDR)",
                        fmt::rate(r.trials[i].offered_pps)
                    ),
                ));
            }
        }
    } else {
        for (i, t) in r.trials.iter().enumerate() {
            out.push((i, format!("trial {}, {}", i + 1, fmt::rate(t.offered_pps))));
        }
    }
    out.retain(|&(i, _)| valid(i));
    out.truncate(MAX_CDF_CURVES);
    out
}

/// Latency CDF: x latency in µs (log), y cumulative fraction, p50/p99/p99.9 marked.
pub fn latency_cdf(r: &RunResults) -> Result<Option<String>> {
    let curves: Vec<(&Latency, String)> = cdf_trials(r)
        .into_iter()
        .map(|(i, label)| (&r.trials[i].latency, label))
        .collect();
    latency_cdf_of(&curves, "One-way latency CDF")
}

/// A latency CDF of the given curves (latency, legend label), at most
/// [`MAX_CDF_CURVES`] of them; None when there is none.
pub fn latency_cdf_of(curves: &[(&Latency, String)], caption: &str) -> Result<Option<String>> {
    const NAME: &str = "latency_cdf.svg";
    let curves: Vec<&(&Latency, String)> = curves
        .iter()
        .filter(|(l, _)| !l.cdf.is_empty())
        .take(MAX_CDF_CURVES)
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    let us = |ns: u64| ns as f64 / 1e3;
    let pts = curves
        .iter()
        .flat_map(|(l, _)| l.cdf.iter().map(|p| p.0).chain([l.min_ns, l.max_ns]));
    let (lo, hi) = pts.fold((u64::MAX, 0u64), |(lo, hi), ns| (lo.min(ns), hi.max(ns)));
    // Log axes need a positive range; a 0 ns sample (impossible in practice) sits at 1 ns.
    let lo_us = (us(lo) * 0.8).max(0.001);
    let hi_us = (us(hi) * 1.25).max(lo_us * 10.0);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err(NAME))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d((lo_us..hi_us).log_scale(), 0f64..1.0)
            .map_err(err(NAME))?;
        chart
            .configure_mesh()
            .x_desc("latency (µs, log scale)")
            .y_desc("cumulative fraction")
            .x_label_formatter(&|v| axis_num(*v))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(err(NAME))?;
        for (ci, (lat, label)) in curves.iter().enumerate() {
            let c = colour(ci);
            chart
                .draw_series(LineSeries::new(
                    lat.cdf
                        .iter()
                        .filter(|p| p.1.is_finite())
                        .map(|&(ns, f)| (us(ns).max(lo_us), f)),
                    c.stroke_width(2),
                ))
                .map_err(err(NAME))?
                .label(label.clone())
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
            // Marks on every curve; value labels only while they stay legible.
            let dy = 14 * ci as i32;
            for (name, ns, f, off) in [
                ("p50", lat.p50_ns, 0.5, (8, -14 - dy)),
                ("p99", lat.p99_ns, 0.99, (8, 4 + dy)),
                ("p99.9", lat.p999_ns, 0.999, (-105, 4 + dy)),
            ] {
                let x = us(ns).max(lo_us);
                let text = if curves.len() <= LABELLED_CURVES {
                    format!("{name} {} µs", fmt::us(ns))
                } else {
                    String::new()
                };
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x, f))
                            + Circle::new((0, 0), 4, c.filled())
                            + Text::new(text, off, ("sans-serif", 12).into_font().color(&c)),
                    ))
                    .map_err(err(NAME))?;
            }
        }
        legend_and_present(&mut chart, &root, NAME)?;
    }
    Ok(Some(buf))
}

/// Draw the legend (lower right, on a white box) and write the plot out.
fn legend_and_present<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    name: &str,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(err(name))?;
    root.present().map_err(err(name))
}

/// Axis numbers: no trailing zeros, at most three decimals.
fn axis_num(v: f64) -> String {
    let s = if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Trials in offered-rate order.
fn by_offered(r: &RunResults) -> Vec<&Trial> {
    let mut t: Vec<&Trial> = r.trials.iter().collect();
    t.sort_by(|a, b| a.offered_pps.total_cmp(&b.offered_pps));
    t
}

/// Throughput vs offered load (trials with a non-finite rate left out): received (`PALETTE[0]`) and sent (`PALETTE[1]`) against
/// offered, the ideal `y = x` line ([`IDEAL`]), loss % as labels on the received points,
/// NDR (`PALETTE[2]`) and PDR (`PALETTE[3]`) as vertical lines when a search found them.
pub fn throughput(r: &RunResults) -> Result<Option<String>> {
    const NAME: &str = "throughput.svg";
    // A trial with a non-finite rate (a corrupt results file) cannot be placed.
    let trials: Vec<&Trial> = by_offered(r)
        .into_iter()
        .filter(|t| {
            [t.offered_pps, t.sent_pps, t.received_pps]
                .iter()
                .all(|x| x.is_finite())
        })
        .collect();
    if trials.is_empty() {
        return Ok(None);
    }
    let max = trials
        .iter()
        .flat_map(|t| [t.offered_pps, t.sent_pps, t.received_pps])
        .fold(0.0f64, f64::max);
    let unit = fmt::rate_unit(max);
    let top = if max > 0.0 { max / unit.0 * 1.1 } else { 1.0 };
    let v = |pps: f64| pps / unit.0;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err(NAME))?;
        let mut chart = ChartBuilder::on(&root)
            .caption("Throughput vs offered load", ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..top, 0f64..top)
            .map_err(err(NAME))?;
        chart
            .configure_mesh()
            .x_desc(format!("offered ({})", unit.1))
            .y_desc(format!("rate ({})", unit.1))
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(err(NAME))?;
        let ideal = hex(IDEAL);
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (top, top)],
                ideal.stroke_width(1),
            ))
            .map_err(err(NAME))?
            .label("ideal (received = offered)")
            .legend(move |(x, y)| Circle::new((x + 8, y), 5, ideal.filled()));
        // Sent first, so received (the result) is drawn on top where they coincide.
        for (ci, name, get) in [
            (
                1usize,
                "sent",
                (|t: &Trial| t.sent_pps) as fn(&Trial) -> f64,
            ),
            (0, "received", |t: &Trial| t.received_pps),
        ] {
            let c = colour(ci);
            let pts: Vec<(f64, f64)> = trials
                .iter()
                .map(|t| (v(t.offered_pps), v(get(t))))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(err(NAME))?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err(NAME))?;
        }
        let c0 = colour(0);
        chart
            .draw_series(trials.iter().map(|t| {
                EmptyElement::at((v(t.offered_pps), v(t.received_pps)))
                    + Text::new(
                        format!("{} %", fmt::pct(t.loss_ratio)),
                        (5, 4),
                        ("sans-serif", 11).into_font().color(&c0),
                    )
            }))
            .map_err(err(NAME))?;
        if let Some(s) = &r.search {
            for (ci, name, rate) in [(2usize, "NDR", s.ndr_pps), (3, "PDR", s.pdr_pps)] {
                let Some(rate) = rate.filter(|x| x.is_finite()) else {
                    continue;
                };
                let c = colour(ci);
                let x = v(rate);
                chart
                    .draw_series(LineSeries::new([(x, 0.0), (x, top)], c.stroke_width(1)))
                    .map_err(err(NAME))?
                    .label(format!("{name} {}", fmt::rate(rate)))
                    .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
                let dy = if ci == 2 { 4 } else { 20 };
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x, top))
                            + Text::new(
                                format!("{name} {}", fmt::rate(rate)),
                                (4, dy),
                                ("sans-serif", 12).into_font().color(&c),
                            ),
                    ))
                    .map_err(err(NAME))?;
            }
        }
        legend_and_present(&mut chart, &root, NAME)?;
    }
    Ok(Some(buf))
}

/// Link tiers in plot order: host links first, the fat-tree tiers bottom-up, then any
/// other tier by name.
pub fn tiers(r: &RunResults) -> Vec<String> {
    const ORDER: [&str; 3] = ["host-edge", "edge-agg", "agg-core"];
    let mut t: Vec<String> = Vec::new();
    for l in &r.links {
        if !t.contains(&l.tier) {
            t.push(l.tier.clone());
        }
    }
    // Host links first whatever the level names (`linkload` names them `host-<level>`),
    // then the fat-tree tiers bottom-up, then the rest (`L0-L1`, `L1-L2`, ...) by name.
    t.sort_by_key(|x| {
        let rank = if x.starts_with("host-") {
            0
        } else {
            1 + ORDER.iter().position(|o| o == x).unwrap_or(ORDER.len())
        };
        (rank, x.clone())
    });
    t
}

/// Per-link load: one panel per tier, two bars per link (a → b, b → a), height the
/// direction's frames over the busiest direction of the run. Wide enough for 10 px per
/// link in the widest tier, so 100+ links stay readable.
pub fn links(r: &RunResults) -> Result<Option<String>> {
    const NAME: &str = "links.svg";
    if r.links.is_empty() {
        return Ok(None);
    }
    let tiers = tiers(r);
    let busiest = r
        .links
        .iter()
        .map(|l| l.frames_ab.max(l.frames_ba))
        .max()
        .unwrap_or(0);
    let share = |f: u64| {
        if busiest == 0 {
            0.0
        } else {
            f as f64 / busiest as f64
        }
    };
    let widest = tiers
        .iter()
        .map(|t| r.links.iter().filter(|l| &l.tier == t).count())
        .max()
        .unwrap_or(1);
    let width = (140 + 10 * widest as u32).max(900);
    let panel = 230u32;
    let head = 60u32;
    let height = head + panel * tiers.len() as u32;
    let (c_ab, c_ba) = (colour(0), colour(1));
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err(NAME))?;
        let (top, body) = root.split_vertically(head);
        top.draw(&Text::new(
            format!("Per-link load (share of the busiest link direction: {busiest} frames)"),
            (15, 10),
            ("sans-serif", 20),
        ))
        .map_err(err(NAME))?;
        for (i, (label, c)) in [("a → b", c_ab), ("b → a", c_ba)].into_iter().enumerate() {
            let x = 20 + 110 * i as i32;
            top.draw(&Circle::new((x, 44), 5, c.filled()))
                .map_err(err(NAME))?;
            top.draw(&Text::new(label, (x + 10, 37), ("sans-serif", 14)))
                .map_err(err(NAME))?;
        }
        let panels = body.split_evenly((tiers.len(), 1));
        for (tier, area) in tiers.iter().zip(panels.iter()) {
            let links: Vec<_> = r.links.iter().filter(|l| &l.tier == tier).collect();
            let n = links.len();
            let mut chart = ChartBuilder::on(area)
                .caption(format!("{tier} ({n} links)"), ("sans-serif", 15))
                .margin(8)
                .x_label_area_size(35)
                .y_label_area_size(55)
                .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..1.05)
                .map_err(err(NAME))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(n.min(25))
                .x_label_formatter(&|v| {
                    if (v - v.round()).abs() < 1e-9 && *v >= 0.0 {
                        format!("{}", v.round() as i64)
                    } else {
                        String::new()
                    }
                })
                .x_desc("link # in tier (see the link table)")
                .y_desc("share")
                .light_line_style(RGBColor(235, 235, 235))
                .bold_line_style(RGBColor(200, 200, 200))
                .draw()
                .map_err(err(NAME))?;
            chart
                .draw_series(links.iter().enumerate().map(|(i, l)| {
                    let x = i as f64;
                    Rectangle::new([(x - 0.4, 0.0), (x, share(l.frames_ab))], c_ab.filled())
                }))
                .map_err(err(NAME))?;
            chart
                .draw_series(links.iter().enumerate().map(|(i, l)| {
                    let x = i as f64;
                    Rectangle::new([(x, 0.0), (x + 0.4, share(l.frames_ba))], c_ba.filled())
                }))
                .map_err(err(NAME))?;
        }
        root.present().map_err(err(NAME))?;
    }
    Ok(Some(buf))
}

/// A line plot of `curves` (legend label, points): one polyline and its point marks
/// per curve in [`PALETTE`] order (colours repeat after six curves), axes from 0 to a
/// little above the largest value; with `log_y` the y axis is logarithmic (points at or
/// below 0 are left out). Points with a non-finite coordinate are left out; None when
/// no point is left.
pub fn lines(
    name: &str,
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    curves: &[(String, Vec<(f64, f64)>)],
    log_y: bool,
) -> Result<Option<String>> {
    let y_of = |y: f64| if log_y { y.log10() } else { y };
    let curves: Vec<(&String, Vec<(f64, f64)>)> = curves
        .iter()
        .map(|(label, pts)| {
            let pts = pts
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && (!log_y || p.1 > 0.0))
                .map(|&(x, y)| (x, y_of(y)))
                .collect::<Vec<_>>();
            (label, pts)
        })
        .filter(|(_, pts)| !pts.is_empty())
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    let all = || curves.iter().flat_map(|c| c.1.iter());
    let x_max = all().map(|p| p.0).fold(0.0f64, f64::max);
    let x_min = all().map(|p| p.0).fold(0.0f64, f64::min);
    let (y_lo, y_hi) = all().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.1), hi.max(p.1))
    });
    let x_range = x_min..(if x_max > x_min {
        x_max * 1.05
    } else {
        x_min + 1.0
    });
    let (y_range_lo, y_range_hi) = if log_y {
        (y_lo.floor(), y_hi.ceil().max(y_lo.floor() + 1.0))
    } else {
        (0f64.min(y_lo), if y_hi > 0.0 { y_hi * 1.1 } else { 1.0 })
    };
    let y_range = y_range_lo..y_range_hi;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err(name))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x_range, y_range)
            .map_err(err(name))?;
        let y_label = |v: &f64| {
            if log_y {
                axis_num(10f64.powf(*v))
            } else {
                axis_num(*v)
            }
        };
        let y_desc = if log_y {
            format!("{y_desc}, log scale")
        } else {
            y_desc.to_string()
        };
        // a log axis is labelled at its powers of ten only
        let decades = (y_range_hi - y_range_lo).round().max(1.0) as usize;
        chart
            .configure_mesh()
            .y_labels(if log_y { decades + 1 } else { 10 })
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&y_label)
            .light_line_style(RGBColor(235, 235, 235))
            .bold_line_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(err(name))?;
        for (ci, (label, pts)) in curves.iter().enumerate() {
            let c = colour(ci);
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(err(name))?
                .label(label.as_str())
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(err(name))?;
        }
        legend_and_present(&mut chart, &root, name)?;
    }
    Ok(Some(buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::results::LinkLoad;

    fn with_tiers(tiers: &[&str]) -> RunResults {
        RunResults {
            links: tiers
                .iter()
                .map(|t| LinkLoad {
                    tier: t.to_string(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn tier_order() {
        let r = with_tiers(&["agg-core", "edge-agg", "host-edge", "edge-agg"]);
        assert_eq!(tiers(&r), ["host-edge", "edge-agg", "agg-core"]);
        let r = with_tiers(&["L1-L2", "L0-L1", "host-L0"]);
        assert_eq!(tiers(&r), ["host-L0", "L0-L1", "L1-L2"]);
        assert!(tiers(&RunResults::default()).is_empty());
    }
}
