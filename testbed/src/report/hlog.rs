//! Latency histograms kept whole, as HdrHistogram data: the V2 compressed encoding in
//! base64 (a [`Latency`]'s `hdr`) and HdrHistogram interval logs (`latency.hlog` of a
//! run), which HdrHistogram's own tools (`HistogramLogProcessor`, the log analyzer, the
//! ports to other languages) and `canopy-testbed latency` read, merge and re-query.
//!
//! Values are nanoseconds. Each histogram of a log is one line tagged with what it
//! measured (`probe-50pct`: the latency stream at 50 % of the NDR; `load-50pct`: the
//! background frames of that trial), its start the time since the first trial began.

use crate::error::{Result, TestbedError};
use crate::report::results::{Latency, RunResults};
use base64::Engine;
use hdrhistogram::serialization::interval_log::{
    IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag,
};
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use std::time::Duration;

fn bad(what: &str, detail: impl std::fmt::Display) -> TestbedError {
    TestbedError::Parse {
        what: what.into(),
        detail: detail.to_string(),
    }
}

/// `h` in HdrHistogram's V2 compressed encoding, base64 (empty for an empty histogram).
pub fn encode(h: &Histogram<u64>) -> String {
    if h.is_empty() {
        return String::new();
    }
    let mut buf = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut buf) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(&buf),
        Err(e) => {
            // (only an I/O error into a Vec, which cannot happen)
            tracing::warn!("latency histogram not encoded: {e:?}");
            String::new()
        }
    }
}

/// The histogram [`encode`] wrote.
pub fn decode(s: &str) -> Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(s.trim())
        .map_err(|e| bad("histogram (base64)", e))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| bad("histogram (HdrHistogram V2)", format!("{e:?}")))
}

/// One histogram of a log.
#[derive(Debug, Clone)]
pub struct Entry {
    /// What it measured.
    pub tag: String,
    /// Start, since the log's first entry.
    pub start: Duration,
    /// How long it recorded.
    pub duration: Duration,
    /// The histogram.
    pub hist: Histogram<u64>,
}

/// An interval log of `entries`, with `comments` (one `#` line each) at the top.
pub fn write_log(comments: &[String], entries: &[Entry]) -> Result<String> {
    let mut out = Vec::new();
    let mut ser = V2DeflateSerializer::new();
    let mut b = IntervalLogWriterBuilder::new();
    for c in comments {
        b.add_comment(c);
    }
    b.with_start_time(std::time::SystemTime::now());
    let mut w = b
        .begin_log_with(&mut out, &mut ser)
        .map_err(|e| bad("latency log", e))?;
    w.write_comment("values in nanoseconds")
        .map_err(|e| bad("latency log", e))?;
    for e in entries {
        let tag = Tag::new(&e.tag).ok_or_else(|| bad("latency log tag", &e.tag))?;
        w.write_histogram(&e.hist, e.start, e.duration, Some(tag))
            .map_err(|e| bad("latency log", format!("{e:?}")))?;
    }
    String::from_utf8(out).map_err(|e| bad("latency log", e))
}

/// The histograms of an interval log, in order (untagged ones with an empty tag).
pub fn read_log(text: &str) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    for (i, item) in IntervalLogIterator::new(text.as_bytes()).enumerate() {
        let item = item.map_err(|e| bad("latency log", format!("entry {}: {e:?}", i + 1)))?;
        if let LogEntry::Interval(h) = item {
            out.push(Entry {
                tag: h.tag().map(|t| t.as_str().to_string()).unwrap_or_default(),
                start: h.start_timestamp(),
                duration: h.duration(),
                hist: decode(h.encoded_histogram())?,
            });
        }
    }
    Ok(out)
}

/// The entries of a run's latency-under-load trials (none without them), or None
/// when the run has none.
pub fn run_log(r: &RunResults) -> Result<Option<String>> {
    let Some(s) = r.search.as_ref().filter(|s| !s.latency.is_empty()) else {
        return Ok(None);
    };
    let mut entries = Vec::new();
    let mut start = Duration::ZERO;
    for l in &s.latency {
        let pct = (l.fraction * 100.0).round() as u32;
        let duration = Duration::from_secs_f64(l.trial.duration_s.max(0.0));
        let mut push = |tag: String, lat: &Latency| -> Result<()> {
            if !lat.hdr.is_empty() {
                entries.push(Entry {
                    tag,
                    start,
                    duration,
                    hist: decode(&lat.hdr)?,
                });
            }
            Ok(())
        };
        if let Some(p) = &l.trial.probe {
            push(format!("probe-{pct}pct"), &p.latency)?;
        }
        push(format!("load-{pct}pct"), &l.trial.latency)?;
        start += duration;
    }
    let comments = vec![
        format!(
            "canopy-testbed latency under load: fabric {} ({}, {}), NDR {} pps",
            r.meta.fabric,
            r.meta.topology,
            r.meta.kind,
            s.ndr_pps.map_or("none".into(), |v| format!("{v:.0}"))
        ),
        "tags: probe-Npct = the latency stream at N % of the NDR; load-Npct = that trial's background frames".into(),
    ];
    write_log(&comments, &entries).map(Some)
}

/// The histograms of `entries` whose tag is `tag` (all of them for None) added up.
pub fn merge<'a>(
    entries: impl IntoIterator<Item = &'a Entry>,
    tag: Option<&str>,
) -> Result<Histogram<u64>> {
    let mut h = crate::traffic::rx::latency_histogram()?;
    for e in entries {
        if tag.is_none_or(|t| t == e.tag) {
            h.add(&e.hist)
                .map_err(|e| bad("merging histograms", format!("{e:?}")))?;
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: impl IntoIterator<Item = u64>) -> Histogram<u64> {
        let mut h = crate::traffic::rx::latency_histogram().unwrap();
        for v in values {
            h.record(v).unwrap();
        }
        h
    }

    #[test]
    fn encoding_round_trips_and_refuses_garbage() {
        let h = hist((1..=5000).map(|v| v * 997));
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back, h);
        assert_eq!(encode(&hist([])), "");
        assert!(decode("not base64!").is_err());
        assert!(
            decode("aGVsbG8=").is_err(),
            "base64 of 'hello' is no histogram"
        );
    }

    #[test]
    fn a_log_reads_back_by_tag_and_merges() {
        let (a, b) = (hist([1_000, 2_000, 3_000]), hist([10_000, 20_000]));
        let e = |tag: &str, s: u64, h: &Histogram<u64>| Entry {
            tag: tag.into(),
            start: Duration::from_secs(s),
            duration: Duration::from_secs(5),
            hist: h.clone(),
        };
        let text = write_log(
            &["a test".into()],
            &[
                e("probe-0pct", 0, &a),
                e("load-0pct", 0, &b),
                e("probe-0pct", 5, &b),
            ],
        )
        .unwrap();
        assert!(
            text.contains("#a test") && text.contains("Tag=probe-0pct"),
            "{text}"
        );
        let back = read_log(&text).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(
            (back[1].tag.as_str(), back[2].start),
            ("load-0pct", Duration::from_secs(5))
        );
        let m = merge(&back, Some("probe-0pct")).unwrap();
        assert_eq!(m.len(), 5);
        assert!(m.equivalent(m.max(), 20_000));
        assert_eq!(merge(&back, None).unwrap().len(), 7);
        assert_eq!(merge(&back, Some("nothing")).unwrap().len(), 0);
        assert!(read_log("0.000,5.000,1.0,%%%\n").is_err());
    }
}
