//! Number formats shared by the Markdown/HTML report, the plots and the terminal summary,
//! so a number reads the same everywhere.

/// Nanoseconds as microseconds with two decimals, rounded half up in integer arithmetic
/// (`12345` → `12.35`, `12344` → `12.34`). The HDR histogram behind the latencies keeps
/// three significant digits, so two decimals of a µs hide nothing it recorded below 100 µs.
pub fn us(ns: u64) -> String {
    let hundredths = ns / 10 + u64::from(ns % 10 >= 5);
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// The unit a set of rates is shown in: `(divisor, name)`, chosen by the largest rate.
pub fn rate_unit(max_pps: f64) -> (f64, &'static str) {
    if max_pps >= 1e6 {
        (1e6, "Mpps")
    } else if max_pps >= 1e3 {
        (1e3, "kpps")
    } else {
        (1.0, "pps")
    }
}

/// A rate in a fixed unit: three decimals in Mpps, one in kpps, none in pps.
pub fn rate_in(pps: f64, unit: (f64, &'static str)) -> String {
    let v = pps / unit.0;
    match unit.1 {
        "Mpps" => format!("{v:.3}"),
        "kpps" => format!("{v:.1}"),
        _ => format!("{v:.0}"),
    }
}

/// A rate with its own unit (`1234567.0` → `1.235 Mpps`).
pub fn rate(pps: f64) -> String {
    let unit = rate_unit(pps);
    format!("{} {}", rate_in(pps, unit), unit.1)
}

/// A ratio as a percentage with three decimals (`0.0012345` → `0.123`).
pub fn pct(ratio: f64) -> String {
    format!("{:.3}", ratio * 100.0)
}

/// Cut a line to at most `cols` characters, marking the cut with `…`.
pub fn clip(line: &str, cols: usize) -> String {
    if line.chars().count() <= cols {
        return line.to_string();
    }
    let mut s: String = line.chars().take(cols.saturating_sub(1)).collect();
    s.push('…');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(us(12_345), "12.35");
        assert_eq!(us(12_344), "12.34");
        assert_eq!(us(999), "1.00");
        assert_eq!(us(u64::MAX), "18446744073709551.62");
        assert_eq!(us(0), "0.00");
        assert_eq!(rate(1_234_567.0), "1.235 Mpps");
        assert_eq!(rate(123_456.0), "123.5 kpps");
        assert_eq!(rate(12.0), "12 pps");
        assert_eq!(pct(0.0012345), "0.123");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        assert_eq!(clip("µµµµµ", 5), "µµµµµ");
    }
}
