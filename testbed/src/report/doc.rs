//! A tiny document model rendered twice: as Markdown (plots linked as files) and as a
//! self-contained HTML page (plots inlined as SVG). One model keeps both reports saying
//! the same thing.

use std::fmt::Write;

/// A table cell: plain text, or inline code (commands, specs, names).
#[derive(Debug, Clone)]
pub(crate) struct Cell {
    pub text: String,
    pub code: bool,
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell { text, code: false }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell {
            text: text.to_string(),
            code: false,
        }
    }
}

/// Inline code cell.
pub(crate) fn code(text: impl Into<String>) -> Cell {
    Cell {
        text: text.into(),
        code: true,
    }
}

/// A block of the report.
#[derive(Debug, Clone)]
pub(crate) enum Block {
    /// Heading of level 1..=3.
    Heading(u8, String),
    /// A paragraph of plain text.
    Para(String),
    /// A table; the first column is left-aligned, the others right-aligned when
    /// `numeric` is set.
    Table {
        head: Vec<String>,
        rows: Vec<Vec<Cell>>,
        numeric: bool,
    },
    /// A plot: linked from Markdown as `file`, inlined in HTML.
    Plot {
        alt: String,
        file: String,
        svg: String,
    },
    /// Preformatted text (a terminal summary), shown as it is.
    Pre(String),
}

/// Escape text for Markdown: characters that start emphasis, code, links or HTML, the
/// table separator, and a leading `#`.
fn md_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    if s.starts_with('#') {
        o.push('\\');
    }
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' => {
                o.push('\\');
                o.push(c);
            }
            '\n' => o.push(' '),
            _ => o.push(c),
        }
    }
    o
}

/// Inline code for Markdown: a backtick fence longer than any run inside. In a table a
/// `|` is written `\|` even inside code: GFM splits cells before inline parsing and
/// turns `\|` back into `|` (GFM spec, tables extension).
fn md_code(s: &str, in_table: bool) -> String {
    let s = s.replace('\n', " ");
    let s = if in_table { s.replace('|', "\\|") } else { s };
    let fence = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// Escape text for HTML element content and attribute values.
pub(crate) fn html_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// Render as Markdown.
pub(crate) fn markdown(blocks: &[Block]) -> String {
    let mut s = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let _ = writeln!(s, "{} {}\n", "#".repeat(*level as usize), md_text(text));
            }
            Block::Para(text) => {
                let _ = writeln!(s, "{}\n", md_text(text));
            }
            Block::Table {
                head,
                rows,
                numeric,
            } => {
                let _ = writeln!(
                    s,
                    "| {} |",
                    head.iter()
                        .map(|h| md_text(h))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
                let align: Vec<&str> = (0..head.len())
                    .map(|i| if i > 0 && *numeric { "---:" } else { "---" })
                    .collect();
                let _ = writeln!(s, "|{}|", align.join("|"));
                for row in rows {
                    let cells: Vec<String> = row
                        .iter()
                        .map(|c| {
                            if c.code {
                                md_code(&c.text, true)
                            } else {
                                md_text(&c.text)
                            }
                        })
                        .collect();
                    let _ = writeln!(s, "| {} |", cells.join(" | "));
                }
                s.push('\n');
            }
            Block::Plot { alt, file, .. } => {
                let _ = writeln!(s, "![{}]({})\n", md_text(alt), file);
            }
            Block::Pre(text) => {
                // a fence longer than any run of backticks inside
                let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
                let nl = if text.ends_with('\n') { "" } else { "\n" };
                let _ = writeln!(s, "{fence}\n{text}{nl}{fence}");
            }
        }
    }
    s
}

/// The longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for x in s.chars() {
        if x == c {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Render as one self-contained HTML page (no external resources).
pub(crate) fn html(title: &str, blocks: &[Block]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{}\n</style>\n</head>\n<body>",
        html_text(title),
        CSS
    );
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let _ = writeln!(s, "<h{level}>{}</h{level}>", html_text(text));
            }
            Block::Para(text) => {
                let _ = writeln!(s, "<p>{}</p>", html_text(text));
            }
            Block::Table {
                head,
                rows,
                numeric,
            } => {
                let _ = write!(
                    s,
                    "<table{}>\n<thead><tr>",
                    if *numeric { " class=\"num\"" } else { "" }
                );
                for h in head {
                    let _ = write!(s, "<th>{}</th>", html_text(h));
                }
                s.push_str("</tr></thead>\n<tbody>\n");
                for row in rows {
                    s.push_str("<tr>");
                    for c in row {
                        if c.code {
                            let _ = write!(s, "<td><code>{}</code></td>", html_text(&c.text));
                        } else {
                            let _ = write!(s, "<td>{}</td>", html_text(&c.text));
                        }
                    }
                    s.push_str("</tr>\n");
                }
                s.push_str("</tbody>\n</table>\n");
            }
            Block::Plot { alt, svg, .. } => {
                let _ = writeln!(
                    s,
                    "<figure role=\"img\" aria-label=\"{}\">\n{}\n</figure>",
                    html_text(alt),
                    strip_prolog(svg)
                );
            }
            Block::Pre(text) => {
                let _ = writeln!(s, "<pre>{}</pre>", html_text(text));
            }
        }
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// An SVG inlined into HTML must not carry an XML declaration.
fn strip_prolog(svg: &str) -> &str {
    let t = svg.trim_start();
    if t.starts_with("<?xml") {
        if let Some(end) = t.find("?>") {
            return t[end + 2..].trim_start();
        }
    }
    t
}

const CSS: &str =
    "body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:0.5em 0 1.5em}\
th,td{border:1px solid #ccc;padding:2px 6px}\
th{background:#f0f0f0}\
table.num td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}\
code{background:#f4f4f4;padding:0 2px}\
figure{margin:1em 0;overflow-x:auto}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_and_code_fences() {
        assert_eq!(md_text("a|b*c_d"), "a\\|b\\*c\\_d");
        assert_eq!(md_code("x`y", false), "``x`y``");
        assert_eq!(md_code("a|b", true), "`a\\|b`");
        assert_eq!(html_text("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(strip_prolog("<?xml version=\"1.0\"?>\n<svg/>"), "<svg/>");
        assert_eq!(markdown(&[Block::Pre("a\n".into())]), "```\na\n```\n");
        assert_eq!(
            markdown(&[Block::Pre("x ```` y".into())]),
            "`````\nx ```` y\n`````\n"
        );
        assert_eq!(
            html("t", &[Block::Pre("<b>".into())])
                .matches("<pre>&lt;b&gt;</pre>")
                .count(),
            1
        );
    }
}
