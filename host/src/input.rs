//! Reading an input (a file, or standard input for `-`) as it arrives: the first line of
//! a matrix checked before the body is read, the bytes of a number format checked as
//! they come, a stream stopped as soon as it holds more than it declared, and the memory
//! it needs compared with what the system has before it is taken ([`crate::limits`]).
//!
//! A read stopped early returns the text so far, which the format's parser then rejects
//! naming the line (a stop happens only where the parser surely fails on that text), so
//! the messages stay those of the parser; `yes 1 | rns det -` fails after one line.

use crate::error::{Error, Result};
use crate::limits;
use rayon::prelude::*;
use std::io::{self, Read, Seek, SeekFrom};

/// What an input holds, as far as it can be checked while it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// UTF-8 text of at most `max_bytes` bytes (a CSV): only its size is checked.
    Text {
        /// The most bytes the input may hold.
        max_bytes: u64,
    },
    /// Decimal integers, whitespace and `#` comment lines (the polynomial formats).
    Numbers,
    /// The matrix format: a first line `rows cols`, then as many rows of `cols` integers,
    /// each entry kept in `entry_bytes` bytes once parsed (the memory the declared size
    /// needs is checked before the body is read).
    Matrix {
        /// Bytes an entry takes once parsed.
        entry_bytes: u64,
    },
}

/// Reads a whole input, or standard input for `-` (under MPI, on rank 0 only, and
/// broadcast to the other ranks: [`crate::cluster`]), checked as it arrives.
pub fn read_source(path: &str, expect: Expect) -> Result<String> {
    crate::cluster::broadcast_text(|| {
        let name = source_name(path);
        let io_err = |e| Error::io(name, e);
        if path == "-" {
            return read_stream(io::stdin().lock(), name, expect);
        }
        let file = std::fs::File::open(path).map_err(io_err)?;
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            // A pipe, a FIFO, a character device: as it arrives.
            return read_stream(file, name, expect);
        }
        read_regular(file, meta.len(), name, expect)
    })
}

/// The name of an input in messages: `<stdin>` for `-`.
pub fn source_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Bytes read from a stream at a time.
const CHUNK: usize = 64 << 10;
/// The longest first line of a matrix.
const HEADER_BYTES: usize = 4096;

/// A regular file of `len` bytes: its head checked as a stream would be, its length
/// against the memory available, then the whole of it read (by all cores when large).
fn read_regular(mut file: std::fs::File, len: u64, name: &str, expect: Expect) -> Result<String> {
    let io_err = |e| Error::io(name, e);
    let mut scan = Scan::new(expect, name);
    scan.check_length(len)?;
    let mut head = vec![0u8; CHUNK.min(len as usize)];
    file.read_exact(&mut head).map_err(io_err)?;
    if let Step::Stop = scan.feed(&head)? {
        return text(head, name, true);
    }
    if head.len() as u64 == len {
        // The whole file was its head.
        return text(head, name, false);
    }
    limits::check_bytes(len as u128, &format!("reading {name} ({len} bytes)"))?;
    file.seek(SeekFrom::Start(0)).map_err(io_err)?;
    let bytes = read_file(&mut file, len, PARALLEL_READ_BYTES, READ_PIECE).map_err(io_err)?;
    text(bytes, name, false)
}

/// A stream, read in chunks until its end or until what it holds is surely rejected.
fn read_stream(mut r: impl Read, name: &str, expect: Expect) -> Result<String> {
    let mut scan = Scan::new(expect, name);
    let (available, what) = (
        limits::available_bytes(),
        format!("reading {name} (still arriving)"),
    );
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return text(bytes, name, false),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        // The buffer may double as it grows, and the parse needs at least as much again.
        let need = 2 * (bytes.len() + n) as u128;
        limits::check_against(need, available, &what)?;
        bytes.extend_from_slice(&chunk[..n]);
        if let Step::Stop = scan.feed(&chunk[..n])? {
            return text(bytes, name, true);
        }
    }
}

/// Files of at least this many bytes are read by all cores, in pieces.
const PARALLEL_READ_BYTES: u64 = 64 << 20;
/// Bytes of a piece of a file read by all cores.
const READ_PIECE: usize = 16 << 20;

/// A whole regular file of `len` bytes; from `parallel` bytes on, its pieces of `piece`
/// bytes read by all cores into memory that the system zeroes on first touch (one core copies from
/// the page cache at 1–2 GB/s).
fn read_file(
    file: &mut std::fs::File,
    len: u64,
    parallel: u64,
    piece: usize,
) -> io::Result<Vec<u8>> {
    let (mut bytes, piece) = (Vec::new(), piece.max(1));
    #[cfg(unix)]
    if len >= parallel {
        use std::os::unix::fs::FileExt;
        let n = usize::try_from(len).map_err(io::Error::other)?;
        bytes = vec![0u8; n];
        bytes
            .par_chunks_mut(piece)
            .enumerate()
            .try_for_each(|(i, p)| file.read_exact_at(p, (i * piece) as u64))?;
        // Whatever a file that grew meanwhile holds beyond, read as usual.
        file.seek(SeekFrom::Start(n as u64))?;
    }
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The bytes as text; a read `stopped` early may end inside a character, which is cut.
fn text(mut bytes: Vec<u8>, name: &str, stopped: bool) -> Result<String> {
    if let Err(e) = std::str::from_utf8(&bytes) {
        if !(stopped && e.error_len().is_none()) {
            return Err(Error::io(
                name,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                ),
            ));
        }
        bytes.truncate(e.valid_up_to());
    }
    // SAFETY: checked (or cut to its valid part) just above.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

/// The position of the first newline of `bytes`, 32 bytes at a time.
fn newline(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(32);
    let mut at = 0;
    for c in chunks.by_ref() {
        if c.iter().fold(false, |any, &b| any | (b == b'\n')) {
            return c.iter().position(|&b| b == b'\n').map(|i| at + i);
        }
        at += 32;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| at + i)
}

/// An ASCII space of the formats (the parser also splits at Unicode spaces).
fn ascii_space(b: u8) -> bool {
    (b == b' ') | (b == b'\t') | (b == b'\r') | (b == 0x0b) | (b == 0x0c)
}

/// A byte of an integer or an exponent: a digit or a sign.
fn number_byte(b: u8) -> bool {
    (b.wrapping_sub(b'0') < 10) | (b == b'-') | (b == b'+')
}

/// Whether reading goes on.
enum Step {
    /// Read on.
    More,
    /// The text so far is surely rejected by the parser: stop reading.
    Stop,
}

/// The checks made on the bytes of an input as they arrive. Non-ASCII bytes are taken
/// as possible whitespace (the parser splits on Unicode whitespace), so that a stop is
/// never made where the parser would accept the text.
struct Scan<'a> {
    expect: Expect,
    name: &'a str,
    /// 1-based number of the line being read.
    line: usize,
    /// Whether the current line has content (a byte other than whitespace before `#`).
    content: bool,
    /// Whether the current line is a comment.
    comment: bool,
    /// Whether the last byte was inside a token.
    in_token: bool,
    /// Tokens of the current line.
    tokens: usize,
    /// Content lines completed, the first line of a matrix included.
    done: usize,
    /// The first content line of a matrix, while it is read.
    header: Vec<u8>,
    /// The declared `(rows, cols)` once the first line of a matrix has been read.
    declared: Option<(usize, usize)>,
    /// Bytes of text seen.
    text_bytes: u64,
}

impl<'a> Scan<'a> {
    fn new(expect: Expect, name: &'a str) -> Scan<'a> {
        Scan {
            expect,
            name,
            line: 1,
            content: false,
            comment: false,
            in_token: false,
            tokens: 0,
            done: 0,
            header: Vec::new(),
            declared: None,
            text_bytes: 0,
        }
    }

    /// Checks the next bytes; an error for a first line that no parser could read
    /// (too long) or a declared size whose memory the system does not have.
    fn feed(&mut self, bytes: &[u8]) -> Result<Step> {
        if let Expect::Text { .. } = self.expect {
            self.text_bytes += bytes.len() as u64;
            self.check_length(self.text_bytes)?;
            return Ok(Step::More);
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            // Whole lines of numbers and spaces at once (the common case, about 10× the
            // speed of a byte at a time); any other line byte by byte.
            if self.fresh_line() {
                if let Some(end) = newline(rest) {
                    if let Some(step) = self.plain_line(&rest[..end]) {
                        if let Step::Stop = step {
                            return Ok(Step::Stop);
                        }
                        rest = &rest[end + 1..];
                        continue;
                    }
                }
            }
            let (&b, tail) = rest.split_first().expect("not empty");
            if let Step::Stop = self.byte(b)? {
                return Ok(Step::Stop);
            }
            rest = tail;
        }
        Ok(Step::More)
    }

    /// Whether the next byte starts a line that [`Scan::plain_line`] may take whole: a
    /// line of numbers after a matrix's first line, or of a polynomial.
    fn fresh_line(&self) -> bool {
        let body = match self.expect {
            Expect::Matrix { .. } => self.declared.is_some(),
            _ => true,
        };
        // A line with a token has content.
        body && !self.content && !self.comment
    }

    /// A whole line (without its newline) holding only digits, signs and spaces, as
    /// [`Scan::byte`] would take it byte by byte; `None` for any other line.
    fn plain_line(&mut self, line: &[u8]) -> Option<Step> {
        // One branch-free pass: whether every byte is a digit, a sign or a space, and
        // how many tokens start.
        let (mut other, mut starts, mut after_space) = (false, 0usize, true);
        for &b in line {
            let space = ascii_space(b);
            other |= !(space | number_byte(b));
            starts += usize::from(after_space & !space);
            after_space = space;
        }
        if other {
            return None;
        }
        self.line += 1;
        if starts == 0 {
            return Some(Step::More);
        }
        if let Some((rows, cols)) = self.declared {
            if self.done > rows || starts > cols {
                return Some(Step::Stop);
            }
        }
        self.done += 1;
        Some(Step::More)
    }

    /// An error when a text of `bytes` bytes is longer than its format allows.
    fn check_length(&self, bytes: u64) -> Result<()> {
        match self.expect {
            Expect::Text { max_bytes } if bytes > max_bytes => Err(self.error(format!(
                "more than {max_bytes} bytes: too long for this input"
            ))),
            _ => Ok(()),
        }
    }

    fn byte(&mut self, b: u8) -> Result<Step> {
        let matrix_header = matches!(self.expect, Expect::Matrix { .. }) && self.done == 0;
        if b == b'\n' {
            return self.end_line();
        }
        if self.comment {
            return Ok(Step::More);
        }
        if matrix_header && self.content {
            self.header.push(b);
            if self.header.len() > HEADER_BYTES {
                return Err(self.error(format!(
                    "the first line is over {HEADER_BYTES} bytes long: expected `rows cols`"
                )));
            }
        }
        if ascii_space(b) || !b.is_ascii() {
            self.in_token = false;
            return Ok(Step::More);
        }
        if !self.content {
            if b == b'#' {
                self.comment = true;
                return Ok(Step::More);
            }
            self.content = true;
            if matrix_header {
                self.header.push(b);
            }
            if let Some((rows, _)) = self.declared {
                if self.done > rows {
                    // A content line after the declared rows.
                    return Ok(Step::Stop);
                }
            }
        }
        // A byte no integer or exponent has (`+` may start an exponent); the first line
        // of a matrix is judged whole.
        if !(number_byte(b) || matrix_header) {
            return Ok(Step::Stop);
        }
        if !self.in_token {
            self.in_token = true;
            self.tokens += 1;
            if let Some((_, cols)) = self.declared {
                if self.tokens > cols {
                    return Ok(Step::Stop);
                }
            }
        }
        Ok(Step::More)
    }

    fn end_line(&mut self) -> Result<Step> {
        let mut step = Step::More;
        if self.content {
            self.done += 1;
            if let (Expect::Matrix { entry_bytes }, 1) = (self.expect, self.done) {
                step = self.header_read(entry_bytes)?;
            }
        }
        self.line += 1;
        (self.content, self.comment, self.in_token, self.tokens) = (false, false, false, 0);
        Ok(step)
    }

    /// The first line of a matrix is complete: a bad one stops the read, a good one's
    /// size is checked against the memory available.
    fn header_read(&mut self, entry_bytes: u64) -> Result<Step> {
        let Ok(line) = std::str::from_utf8(&self.header) else {
            return Ok(Step::More);
        };
        match crate::mat::matrix::parse_header(line) {
            Err(_) => Ok(Step::Stop),
            Ok((rows, cols)) => {
                // At least a digit and a separator of text per entry, and the entry.
                let need = (rows as u128) * (cols as u128) * (2 + entry_bytes as u128);
                limits::check_bytes(
                    need,
                    &format!("the {rows}×{cols} matrix that {} declares", self.name),
                )?;
                self.declared = Some((rows, cols));
                Ok(Step::More)
            }
        }
    }

    fn error(&self, message: String) -> Error {
        Error::Parse {
            source: self.name.to_string(),
            line: self.line,
            message,
        }
    }
}

#[cfg(test)]
mod tests;
