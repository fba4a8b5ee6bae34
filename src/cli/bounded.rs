//! Inputs read as text lines, bounded: a line longer than any export or
//! SQL_REDO statement can be (say `/dev/zero`, or a binary file) stops the
//! read with a clear error instead of growing a buffer until memory runs out.

use std::io::{self, Read};

/// The longest line accepted: far above a V$LOGMNR_CONTENTS row or an
/// assembled multi-row statement, far below a machine's memory.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// A reader that fails once a line runs past `max` bytes without a newline.
pub struct LineBounded<R> {
    inner: R,
    max: usize,
    run: usize,
}

/// Wraps `inner` with the default line bound.
pub fn lines(inner: Box<dyn Read>) -> Box<dyn Read> {
    Box::new(LineBounded {
        inner,
        max: MAX_LINE_BYTES,
        run: 0,
    })
}

impl<R: Read> Read for LineBounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        self.run = match memchr::memrchr(b'\n', chunk) {
            Some(i) => n - i - 1,
            None => self.run.saturating_add(n),
        };
        if self.run > self.max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a line runs past {} MiB without a newline: not SQL_REDO text or a \
                     V$LOGMNR_CONTENTS export",
                    self.max >> 20
                ),
            ));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_line_is_an_error_and_newlines_reset_the_count() {
        let mut r = LineBounded {
            inner: io::repeat(0),
            max: 1000,
            run: 0,
        };
        let mut sink = Vec::new();
        let err = r.read_to_end(&mut sink).expect_err("endless");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(sink.len() < 1000 + 8192 * 2);
        let text = ("x".repeat(900) + "\n").repeat(50);
        let mut r = LineBounded {
            inner: text.as_bytes(),
            max: 1000,
            run: 0,
        };
        let mut all = Vec::new();
        r.read_to_end(&mut all).expect("lines within the bound");
        assert_eq!(all.len(), 901 * 50);
    }
}
