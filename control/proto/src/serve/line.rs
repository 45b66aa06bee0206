//! The connections' line reader: newline-delimited requests with a size limit and a
//! deadline.

use super::Stream;
use std::io::ErrorKind;
use std::time::Instant;

/// Why reading a request line stopped.
pub enum LineEnd {
    /// A request (without its newline).
    Line(Vec<u8>),
    /// The peer closed the connection.
    Eof,
    /// More than the limit without a newline.
    Oversize,
    /// No complete request within the timeout (`true`: part of one had arrived).
    Timeout(bool),
}

/// Reads newline-delimited requests with a size limit and a deadline.
#[derive(Default)]
pub struct LineReader {
    buf: Vec<u8>,
    scanned: usize,
}

impl LineReader {
    /// A reader with nothing buffered.
    pub fn new() -> LineReader {
        LineReader {
            buf: Vec::new(),
            scanned: 0,
        }
    }

    /// The next request line of `s`: at most `limit` bytes (without the newline), whole
    /// by `deadline` (however its bytes are spread). A last line without its newline
    /// counts when the peer closes.
    pub fn next<S: Stream + ?Sized>(
        &mut self,
        s: &mut S,
        limit: usize,
        deadline: Instant,
    ) -> std::io::Result<LineEnd> {
        let mut chunk = [0u8; 16 << 10];
        loop {
            if let Some(i) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
                let end = self.scanned + i;
                // the line keeps the buffer (no copy of a large request); what follows
                // its newline (usually nothing) starts the next one
                let rest = self.buf.split_off(end + 1);
                let mut line = std::mem::replace(&mut self.buf, rest);
                line.pop();
                self.scanned = 0;
                if line.len() > limit {
                    return Ok(LineEnd::Oversize);
                }
                return Ok(LineEnd::Line(line));
            }
            self.scanned = self.buf.len();
            if self.buf.len() > limit {
                return Ok(LineEnd::Oversize);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(LineEnd::Timeout(!self.buf.is_empty()));
            }
            s.set_read_timeout(Some(deadline - now))?;
            let want = chunk.len().min(limit + 1 - self.buf.len());
            match s.read(&mut chunk[..want]) {
                Ok(0) => {
                    if self.buf.is_empty() {
                        return Ok(LineEnd::Eof);
                    }
                    // a last request without its newline
                    let line = std::mem::take(&mut self.buf);
                    self.scanned = 0;
                    return Ok(LineEnd::Line(line));
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    return Ok(LineEnd::Timeout(!self.buf.is_empty()));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::io::{Read, Write};
    use std::time::Duration;

    /// A stream that answers reads from a script: each entry is one `read`'s bytes (cut
    /// to the buffer asked for; the rest stays for the next read) or error; after the
    /// script, end of file.
    #[derive(Default)]
    struct Script {
        reads: VecDeque<std::io::Result<Vec<u8>>>,
        /// The buffer size of every `read`.
        asked: Vec<usize>,
        /// Every read timeout set.
        timeouts: std::cell::RefCell<Vec<Option<Duration>>>,
    }

    impl Script {
        fn of(reads: &[&[u8]]) -> Script {
            Script {
                reads: reads.iter().map(|r| Ok(r.to_vec())).collect(),
                ..Script::default()
            }
        }

        fn then_error(mut self, kind: ErrorKind) -> Script {
            self.reads.push_back(Err(kind.into()));
            self
        }
    }

    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.asked.push(buf.len());
            match self.reads.pop_front() {
                None => Ok(0),
                Some(Err(e)) => Err(e),
                Some(Ok(mut bytes)) => {
                    let n = bytes.len().min(buf.len());
                    buf[..n].copy_from_slice(&bytes[..n]);
                    if n < bytes.len() {
                        self.reads.push_front(Ok(bytes.split_off(n)));
                    }
                    Ok(n)
                }
            }
        }
    }

    impl Write for Script {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Stream for Script {
        fn set_read_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
            self.timeouts.borrow_mut().push(t);
            Ok(())
        }
        fn set_write_timeout(&self, _: Option<Duration>) -> std::io::Result<()> {
            Ok(())
        }
    }

    const LIMIT: usize = 8;
    const TIMEOUT: Duration = Duration::from_secs(5);

    /// Everything `reader` makes of `s` until end of file, a timeout, an oversized line
    /// or an error (which ends it as `Err`).
    fn all(r: &mut LineReader, s: &mut Script) -> Vec<std::io::Result<LineEnd>> {
        let mut out = Vec::new();
        loop {
            let e = r.next(s, LIMIT, Instant::now() + TIMEOUT);
            let last = !matches!(e, Ok(LineEnd::Line(_)));
            out.push(e);
            if last {
                return out;
            }
        }
    }

    /// A compact picture of [`all`]: `L(text)`, `EOF`, `OVERSIZE`, `TIMEOUT(partial)`,
    /// `ERR(kind)`.
    fn seen(s: &mut Script) -> Vec<String> {
        all(&mut LineReader::new(), s)
            .into_iter()
            .map(|e| match e {
                Ok(LineEnd::Line(l)) => format!("L({})", String::from_utf8_lossy(&l)),
                Ok(LineEnd::Eof) => "EOF".into(),
                Ok(LineEnd::Oversize) => "OVERSIZE".into(),
                Ok(LineEnd::Timeout(p)) => format!("TIMEOUT({p})"),
                Err(e) => format!("ERR({:?})", e.kind()),
            })
            .collect()
    }

    #[test]
    fn lines_come_whole_however_the_reads_cut_them() {
        // several in one read, one over several reads, the newline alone
        let mut s = Script::of(&[b"a\nbc\nd", b"e", b"f\n", b"gh", b"\n"]);
        assert_eq!(seen(&mut s), ["L(a)", "L(bc)", "L(def)", "L(gh)", "EOF"]);
    }

    #[test]
    fn blank_lines_and_carriage_returns_are_returned_as_they_are() {
        // the reader drops only the newline: blank lines are for the caller to skip
        let mut s = Script::of(&[b"\n\n \t\na\r\n"]);
        assert_eq!(seen(&mut s), ["L()", "L()", "L( \t)", "L(a\r)", "EOF"]);
    }

    #[test]
    fn bytes_that_are_not_utf8_pass_through() {
        let mut r = LineReader::new();
        let mut s = Script::of(&[b"\xff\xfe\x00{\n"]);
        match r.next(&mut s, LIMIT, Instant::now() + TIMEOUT).unwrap() {
            LineEnd::Line(l) => assert_eq!(l, b"\xff\xfe\x00{"),
            _ => panic!("not a line"),
        }
    }

    #[test]
    fn a_line_of_the_limit_passes_and_one_byte_more_is_oversize() {
        let mut s = Script::of(&[b"12345678\n"]);
        assert_eq!(seen(&mut s), ["L(12345678)", "EOF"]);
        let mut s = Script::of(&[b"123456789\n"]);
        assert_eq!(seen(&mut s), ["OVERSIZE"]);
        // without a newline at all, and over several reads
        let mut s = Script::of(&[b"1234", b"5678", b"9"]);
        assert_eq!(seen(&mut s), ["OVERSIZE"]);
        // a short line first: what follows it counts on its own
        let mut s = Script::of(&[b"ab\n12345678\n123456789\n"]);
        assert_eq!(seen(&mut s), ["L(ab)", "L(12345678)", "OVERSIZE"]);
    }

    #[test]
    fn reads_never_ask_for_more_than_one_byte_over_the_limit() {
        let mut s = Script::of(&[b"123", b"456789abcdef\n"]);
        assert_eq!(seen(&mut s), ["OVERSIZE"]);
        // limit + 1 at first, then what is left of it
        assert_eq!(s.asked, [LIMIT + 1, LIMIT + 1 - 3]);
        // the rest of the peer's bytes stay unread
        assert_eq!(s.reads.len(), 1);
    }

    #[test]
    fn end_of_file_mid_line_gives_the_partial_line_then_eof() {
        let mut s = Script::of(&[b"a\n", b"{\"op\""]);
        assert_eq!(seen(&mut s), ["L(a)", "L({\"op\")", "EOF"]);
        let mut s = Script::of(&[]);
        assert_eq!(seen(&mut s), ["EOF"]);
        // after end of file the reader keeps answering EOF
        let mut r = LineReader::new();
        let mut s = Script::of(&[]);
        assert!(matches!(
            r.next(&mut s, LIMIT, Instant::now() + TIMEOUT),
            Ok(LineEnd::Eof)
        ));
        assert!(matches!(
            r.next(&mut s, LIMIT, Instant::now() + TIMEOUT),
            Ok(LineEnd::Eof)
        ));
    }

    #[test]
    fn a_timeout_says_whether_part_of_a_request_had_arrived() {
        for kind in [ErrorKind::WouldBlock, ErrorKind::TimedOut] {
            let mut s = Script::of(&[]).then_error(kind);
            assert_eq!(seen(&mut s), ["TIMEOUT(false)"]);
            let mut s = Script::of(&[b"a\n", b"{"]).then_error(kind);
            assert_eq!(seen(&mut s), ["L(a)", "TIMEOUT(true)"]);
        }
        // no time at all: nothing is read
        let mut s = Script::of(&[b"a\n"]);
        let e = LineReader::new()
            .next(&mut s, LIMIT, Instant::now())
            .unwrap();
        assert!(matches!(e, LineEnd::Timeout(false)));
        assert!(s.asked.is_empty());
    }

    #[test]
    fn an_interrupted_read_is_retried_and_other_errors_end_it() {
        let mut s = Script::of(&[b"a"]).then_error(ErrorKind::Interrupted);
        s.reads.push_back(Ok(b"b\n".to_vec()));
        assert_eq!(seen(&mut s), ["L(ab)", "EOF"]);
        let mut s = Script::of(&[b"a"]).then_error(ErrorKind::ConnectionReset);
        assert_eq!(seen(&mut s), ["ERR(ConnectionReset)"]);
    }

    #[test]
    fn the_read_timeout_is_what_is_left_of_the_deadline() {
        let mut s = Script::of(&[b"a", b"b\n"]);
        let e = LineReader::new()
            .next(&mut s, LIMIT, Instant::now() + TIMEOUT)
            .unwrap();
        assert!(matches!(e, LineEnd::Line(l) if l == b"ab"));
        let set = s.timeouts.into_inner();
        assert_eq!(set.len(), 2, "{set:?}");
        assert!(
            set.iter()
                .all(|t| t.is_some_and(|t| t > Duration::ZERO && t <= TIMEOUT)),
            "{set:?}"
        );
        assert!(set[1] <= set[0], "{set:?}");
    }
}
