//! The test vectors of `docs/wire-format.md`, parsed from the document itself (compiled
//! in), so the Rust tests, the fuzz seeds and the dissector test use the very vectors the
//! specification shows. Test support: built for this crate's tests and, with feature
//! `fuzzing`, for other crates' tests and the fuzz seed generator.

/// A vector line that does not parse, or a vector that is not there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VectorError {
    /// A line of a `vectors` block is malformed.
    #[error("wire-format.md line {line}: {why}")]
    Line {
        /// 1-based line number in docs/wire-format.md.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// No vector has this id.
    #[error("no vector `{0}` in docs/wire-format.md")]
    Missing(String),
}

/// One test vector of `docs/wire-format.md` (a line of a fenced `vectors` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocVector {
    /// Vector id, e.g. `P1`.
    pub id: String,
    /// `sliced`, `transit`, `path-id`, or `prefix`.
    pub kind: String,
    /// The Canopy header bytes.
    pub bytes: Vec<u8>,
    /// The comment after `#`, if any.
    pub comment: String,
}

/// The text of `docs/wire-format.md`, compiled in so tests and tools use the same vectors.
pub const WIRE_FORMAT_DOC: &str = include_str!("../../../docs/wire-format.md");

/// Every test vector in `docs/wire-format.md`, in document order. Lines that do not parse
/// (odd hex, missing fields) are returned as errors naming the line, so a typo in the
/// document fails the tests instead of silently dropping a vector.
pub fn doc_vectors() -> Result<Vec<DocVector>, VectorError> {
    let mut out = Vec::new();
    let mut in_block = false;
    for (n, line) in WIRE_FORMAT_DOC.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("```") {
            in_block = !in_block && t == "```vectors";
            continue;
        }
        if !in_block || t.is_empty() {
            continue;
        }
        let (data, comment) = match t.split_once('#') {
            Some((d, c)) => (d, c.trim().to_string()),
            None => (t, String::new()),
        };
        let mut it = data.split_whitespace();
        let (Some(id), Some(kind)) = (it.next(), it.next()) else {
            return Err(VectorError::Line {
                line: n + 1,
                why: "expected `<ID> <kind> <hex>...`".into(),
            });
        };
        let hex: String = it.collect();
        if hex.is_empty()
            || !hex.len().is_multiple_of(2)
            || !hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(VectorError::Line {
                line: n + 1,
                why: format!("bad hex in vector {id}"),
            });
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("checked hex digits"))
            .collect();
        out.push(DocVector {
            id: id.to_string(),
            kind: kind.to_string(),
            bytes,
            comment,
        });
    }
    Ok(out)
}

/// The vector with `id` from `docs/wire-format.md`.
pub fn doc_vector(id: &str) -> Result<DocVector, VectorError> {
    doc_vectors()?
        .into_iter()
        .find(|v| v.id == id)
        .ok_or_else(|| VectorError::Missing(id.to_string()))
}
