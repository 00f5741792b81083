//! [`IntMatrix`]: dense matrices of big integers, and the text format every command reads.
//!
//! Format: a first line `rows cols`, then `rows` lines of `cols` decimal integers
//! (optional leading `-`), separated by spaces or tabs. Blank lines are ignored.

use crate::error::{Error, Result};
use crate::input::{read_source, source_name, Expect};
pub use crate::num::decimal::{decimal_width, write_integer};
use crate::num::decimal::{join_text, parse_digits, split_token};
use rayon::prelude::*;
use rug::{Integer, Rational};
use std::fmt;
use std::sync::OnceLock;

/// A dense row-major matrix of signed big integers.
///
/// One made by [`IntMatrix::from_i64`], or parsed from text whose entries all fit in 64
/// bits, keeps its machine words: the determinant and the solve by lifting, and the
/// bounds, read them as they are, and the big integers are made only when something
/// asks for them ([`IntMatrix::entries`]), once.
///
/// ```
/// use rns::IntMatrix;
///
/// let a = IntMatrix::parse("2 3\n1 -2 3\n4 5 -600000000000000000000\n", "a.txt")?;
/// assert_eq!((a.rows(), a.cols()), (2, 3));
/// assert_eq!(a.get(1, 2).to_string(), "-600000000000000000000");
/// assert_eq!(a.transpose().to_text(), "3 2\n1 4\n-2 5\n3 -600000000000000000000\n");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct IntMatrix {
    rows: usize,
    cols: usize,
    /// The entries as machine words, when the matrix was made from them.
    words: Option<Vec<i64>>,
    /// The entries as big integers: given, or made from `words` on first need.
    data: OnceLock<Vec<Integer>>,
}

impl PartialEq for IntMatrix {
    fn eq(&self, other: &IntMatrix) -> bool {
        if (self.rows, self.cols) != (other.rows, other.cols) {
            return false;
        }
        match (self.words(), other.words()) {
            (Some(a), Some(b)) => a == b,
            _ => self.entries() == other.entries(),
        }
    }
}

impl Eq for IntMatrix {}

/// A decimal integer token, classified without GMP's conversion.
pub(crate) enum Token {
    /// At most 18 digits: the value.
    Small(i64),
    /// 19 to 38 digits: the value.
    Medium(i128),
    /// A longer integer, for GMP's conversion.
    Large,
}

/// Classifies a token: an optional `-` and ASCII digits, nothing else (`None` otherwise).
pub(crate) fn classify(token: &str) -> Option<Token> {
    let (neg, digits) = split_token(token)?;
    // 10^38 < 2^127: up to 38 digits fit an i128.
    if digits.len() > 38 {
        return Some(Token::Large);
    }
    let v = digits
        .bytes()
        .fold(0i128, |acc, b| acc * 10 + (b - b'0') as i128);
    let v = if neg { -v } else { v };
    Some(match i64::try_from(v) {
        Ok(small) if digits.len() <= 18 => Token::Small(small),
        _ => Token::Medium(v),
    })
}

/// Parses one decimal integer token: an optional `-` and ASCII digits, nothing else.
/// Up to 38 digits without GMP's string conversion (the common case, and the cost of
/// parsing a large file of small entries).
pub fn parse_integer(token: &str) -> Option<Integer> {
    match classify(token)? {
        Token::Small(v) => Some(Integer::from(v)),
        Token::Medium(v) => Some(Integer::from(v)),
        Token::Large => {
            let (neg, digits) = split_token(token)?;
            Some(parse_digits(digits.as_bytes(), neg))
        }
    }
}

/// `Ok` when `len` entries form a `rows × cols` matrix, else [`Error::Shape`].
fn require_len(len: usize, rows: usize, cols: usize) -> Result<()> {
    match len == rows * cols {
        true => Ok(()),
        false => Err(Error::Shape(format!(
            "{len} entries do not form a {rows}×{cols} matrix"
        ))),
    }
}

/// The square size of a `rows × cols` matrix, or [`Error::Shape`] naming `what` needed it.
pub fn require_square(rows: usize, cols: usize, what: &str) -> Result<usize> {
    if rows != cols {
        return Err(Error::Shape(format!(
            "{what} needs a square matrix, got {rows}×{cols}"
        )));
    }
    Ok(rows)
}

/// [`Error::Shape`] unless an `a.0 × a.1` matrix can multiply a `b.0 × b.1` one.
pub fn require_product(a: (usize, usize), b: (usize, usize)) -> Result<()> {
    if a.1 != b.0 {
        return Err(Error::Shape(format!(
            "cannot multiply a {}×{} matrix by a {}×{} matrix",
            a.0, a.1, b.0, b.1
        )));
    }
    Ok(())
}

/// [`Error::Shape`] unless `B` has the `n` rows of the `n × n` matrix `A` in `A X = B`.
pub fn require_rhs(n: usize, b_rows: usize) -> Result<()> {
    if b_rows != n {
        return Err(Error::Shape(format!(
            "A is {n}×{n} but B has {b_rows} rows: they must have as many rows"
        )));
    }
    Ok(())
}

/// Whether a line of an input file carries nothing: blank, or a `#` comment.
pub fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with('#')
}

/// The first line of the matrix format, `rows cols` (both positive), or what is wrong
/// with it.
pub(crate) fn parse_header(header: &str) -> std::result::Result<(usize, usize), String> {
    let dims: Vec<&str> = header.split_whitespace().collect();
    let dim = |t: &str| t.parse::<usize>().ok();
    let (rows, cols) = match dims.as_slice() {
        [r, c] => match (dim(r), dim(c)) {
            (Some(r), Some(c)) => (r, c),
            _ => return Err(format!("bad dimensions `{header}`: expected `rows cols`")),
        },
        _ => return Err(format!("bad first line `{header}`: expected `rows cols`")),
    };
    if rows == 0 || cols == 0 {
        return Err(format!("empty matrix ({rows}×{cols})"));
    }
    Ok((rows, cols))
}

/// The text format read with `entry` for each token (`None`: not a decimal integer):
/// `(rows, cols, entries row-major)`. The rows are parsed by all cores; errors are
/// reported in file order, naming `source` and the line.
pub fn parse_entries<T: Send>(
    text: &str,
    source: &str,
    entry: impl Fn(&str) -> Option<T> + Sync,
) -> Result<(usize, usize, Vec<T>)> {
    let err = |line: usize, message: String| Error::Parse {
        source: source.to_string(),
        line,
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !is_blank_or_comment(l));
    let (hline, header) = lines
        .next()
        .ok_or_else(|| err(1, "empty input: expected a first line `rows cols`".into()))?;
    let (rows, cols) = parse_header(header).map_err(|m| err(hline, m))?;
    let body: Vec<(usize, &str)> = lines.by_ref().take(rows).collect();
    let parsed: Vec<std::result::Result<Vec<T>, Error>> = body
        .par_iter()
        .map(|&(lno, line)| {
            let token = |token: &str| {
                entry(token).ok_or_else(|| err(lno, format!("`{token}` is not a decimal integer")))
            };
            // Bytes are faster to split than characters; Unicode spaces separate too.
            if line.is_ascii() {
                line.split_ascii_whitespace().map(token).collect()
            } else {
                line.split_whitespace().map(token).collect()
            }
        })
        .collect();
    let mut data = Vec::with_capacity(rows.saturating_mul(cols).min(1 << 24));
    for (r, (row, &(lno, _))) in parsed.into_iter().zip(&body).enumerate() {
        let row = row?;
        if row.len() != cols {
            return Err(err(
                lno,
                format!("row {} has {} entries, expected {cols}", r + 1, row.len()),
            ));
        }
        data.extend(row);
    }
    if body.len() < rows {
        return Err(err(
            hline,
            format!("expected {rows} rows, found {}", body.len()),
        ));
    }
    if let Some((lno, _)) = lines.next() {
        return Err(err(lno, format!("more than the {rows} rows declared")));
    }
    Ok((rows, cols, data))
}

/// The text format: `header`, then `rows` lines of `cols` entries, each written by
/// `entry` into a line that reserves `width` bytes per entry (an upper bound keeps each
/// line from growing), by all cores (a row per task).
pub fn rows_text<T: Sync>(
    header: String,
    data: &[T],
    cols: usize,
    width: impl Fn(&T) -> usize + Sync,
    entry: impl Fn(&mut String, &T) + Sync,
) -> String {
    let lines: Vec<String> = data
        .par_chunks(cols.max(1))
        .map(|row| {
            let mut line = String::with_capacity(row.iter().map(&width).sum::<usize>() + 1);
            for (j, x) in row.iter().enumerate() {
                if j > 0 {
                    line.push(' ');
                }
                entry(&mut line, x);
            }
            line.push('\n');
            line
        })
        .collect();
    join_text(&header, &lines)
}

impl IntMatrix {
    /// What [`crate::input::read_source`] checks of a matrix file as it reads it.
    pub const FORMAT: Expect = Expect::Matrix {
        entry_bytes: std::mem::size_of::<Integer>() as u64,
    };

    /// A matrix from its row-major entries; `data.len()` must be `rows · cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<Integer>) -> Result<IntMatrix> {
        require_len(data.len(), rows, cols)?;
        Ok(IntMatrix::of(rows, cols, data))
    }

    fn of(rows: usize, cols: usize, data: Vec<Integer>) -> IntMatrix {
        IntMatrix {
            rows,
            cols,
            words: None,
            data: OnceLock::from(data),
        }
    }

    /// A matrix from row-major machine integers, kept as words (the big integers made
    /// only when asked for, see [`IntMatrix`]); `data.len()` must be `rows · cols`.
    pub fn from_i64(rows: usize, cols: usize, data: &[i64]) -> Result<IntMatrix> {
        require_len(data.len(), rows, cols)?;
        let mut words = vec![0; data.len()];
        words
            .par_chunks_mut(1 << 16)
            .zip(data.par_chunks(1 << 16))
            .for_each(|(w, d)| w.copy_from_slice(d));
        Ok(IntMatrix::of_words(rows, cols, words))
    }

    fn of_words(rows: usize, cols: usize, words: Vec<i64>) -> IntMatrix {
        IntMatrix {
            rows,
            cols,
            words: Some(words),
            data: OnceLock::new(),
        }
    }

    /// The entries as machine words, row-major, when the matrix was made from them.
    pub fn words(&self) -> Option<&[i64]> {
        self.words.as_deref()
    }

    /// Row `i` as machine words, when the matrix was made from them.
    pub fn word_row(&self, i: usize) -> Option<&[i64]> {
        self.words().map(|w| &w[i * self.cols..(i + 1) * self.cols])
    }

    /// Whether the big integers exist: always for a matrix made from them, and for one
    /// made from words once something asked for them ([`IntMatrix::entries`]).
    pub fn integers_made(&self) -> bool {
        self.data.get().is_some()
    }

    /// The `n × n` identity.
    pub fn identity(n: usize) -> IntMatrix {
        let data = (0..n * n)
            .map(|k| Integer::from((k / n == k % n) as u32))
            .collect();
        IntMatrix::of(n, n, data)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Whether the matrix is square.
    pub fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> &Integer {
        &self.entries()[i * self.cols + j]
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[Integer] {
        &self.entries()[i * self.cols..(i + 1) * self.cols]
    }

    /// All entries, row-major (made from the words on all cores the first time, for a
    /// matrix made from words).
    pub fn entries(&self) -> &[Integer] {
        crate::lazy::get_or_build(&self.data, || {
            let w = self.words.as_deref().unwrap_or_default();
            w.par_iter().map(|&x| Integer::from(x)).collect()
        })
    }

    /// The entries, row-major, taken out of the matrix.
    pub fn into_entries(mut self) -> Vec<Integer> {
        match self.data.take() {
            Some(v) => v,
            None => self.entries().to_vec(),
        }
    }

    /// Parses the text format; `source` names the input in error messages. When every
    /// entry fits in 64 bits the matrix keeps machine words (as
    /// [`IntMatrix::from_i64`]); else, or on an error, the text is parsed again into big
    /// integers (whose errors are the ones reported).
    pub fn parse(text: &str, source: &str) -> Result<IntMatrix> {
        let word = |t: &str| match classify(t)? {
            Token::Small(v) => Some(v),
            Token::Medium(v) => i64::try_from(v).ok(),
            Token::Large => None,
        };
        if let Ok((rows, cols, words)) = parse_entries(text, source, word) {
            return Ok(IntMatrix::of_words(rows, cols, words));
        }
        let (rows, cols, data) = parse_entries(text, source, parse_integer)?;
        Ok(IntMatrix::of(rows, cols, data))
    }

    /// Bits of the largest entry in absolute value (0 for an all-zero matrix).
    pub fn max_bits(&self) -> u64 {
        if let Some(w) = self.words() {
            let bits = |x: &i64| 64 - u64::from(x.unsigned_abs().leading_zeros());
            return w.par_iter().map(bits).max().unwrap_or(0);
        }
        self.entries()
            .par_iter()
            .map(|x| x.significant_bits() as u64)
            .max()
            .unwrap_or(0)
    }

    /// The transpose.
    pub fn transpose(&self) -> IntMatrix {
        let data = (0..self.rows * self.cols)
            .map(|k| self.get(k % self.rows, k / self.rows).clone())
            .collect();
        IntMatrix::of(self.cols, self.rows, data)
    }

    /// `[self | other]`: the columns of `other` appended; the row counts must agree.
    pub fn augment(&self, other: &IntMatrix) -> Result<IntMatrix> {
        if self.rows != other.rows {
            return Err(Error::Shape(format!(
                "cannot place a {}×{} matrix beside a {}×{} matrix",
                other.rows, other.cols, self.rows, self.cols
            )));
        }
        let data = (0..self.rows)
            .flat_map(|i| self.row(i).iter().chain(other.row(i)).cloned())
            .collect();
        IntMatrix::new(self.rows, self.cols + other.cols, data)
    }

    /// Reads and parses a matrix file, or standard input for `-`.
    pub fn read(path: &str) -> Result<IntMatrix> {
        let text = read_source(path, Self::FORMAT)?;
        Self::parse(&text, source_name(path))
    }

    /// The text format that [`IntMatrix::parse`] reads (also its `Display`), written by
    /// all cores.
    pub fn to_text(&self) -> String {
        let header = format!("{} {}\n", self.rows, self.cols);
        rows_text(
            header,
            self.entries(),
            self.cols,
            decimal_width,
            write_integer,
        )
    }
}

impl fmt::Display for IntMatrix {
    /// Writes the text format that [`IntMatrix::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// A dense row-major matrix of rationals (each in lowest terms, positive denominator).
///
/// ```
/// use rns::{inverse, Backend, IntMatrix};
///
/// let x = inverse(&IntMatrix::from_i64(1, 1, &[-4])?, &Backend::Cpu)?;
/// assert_eq!(x.get(0, 0).to_string(), "-1/4");
/// assert_eq!(x.to_text(), "1 1\n-1/4\n");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatMatrix {
    rows: usize,
    cols: usize,
    data: Vec<Rational>,
}

impl RatMatrix {
    /// A matrix from its row-major entries; `data.len()` must be `rows · cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<Rational>) -> Result<RatMatrix> {
        require_len(data.len(), rows, cols)?;
        Ok(RatMatrix { rows, cols, data })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Entry `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> &Rational {
        &self.data[i * self.cols + j]
    }

    /// All entries, row-major.
    pub fn entries(&self) -> &[Rational] {
        &self.data
    }

    /// The least common denominator `d` of the entries and the integer matrix `d · self`.
    ///
    /// ```
    /// use rns::{inverse, Backend, IntMatrix};
    ///
    /// let x = inverse(&IntMatrix::from_i64(2, 2, &[2, 0, 0, 3])?, &Backend::Cpu)?;
    /// let (d, n) = x.over_common_denominator();
    /// assert_eq!((d.to_string(), n.to_text()), ("6".into(), "2 2\n3 0\n0 2\n".into()));
    /// # Ok::<(), rns::Error>(())
    /// ```
    pub fn over_common_denominator(&self) -> (Integer, IntMatrix) {
        use rayon::prelude::*;
        let d = self
            .data
            .iter()
            .fold(Integer::from(1), |d, q| d.lcm(q.denom()));
        let numerators = self
            .data
            .par_iter()
            .map(|q| q.numer() * Integer::from(&d / q.denom()))
            .collect();
        let m = IntMatrix::new(self.rows, self.cols, numerators).expect("the same shape");
        (d, m)
    }

    /// The text format of [`IntMatrix`] with entries `p/q` (also its `Display`), written
    /// by all cores.
    pub fn to_text(&self) -> String {
        let header = format!("{} {}\n", self.rows, self.cols);
        let width = |x: &Rational| decimal_width(x.numer()) + decimal_width(x.denom());
        rows_text(header, &self.data, self.cols, width, |out, x| {
            write_integer(out, x.numer());
            if *x.denom() != 1 {
                out.push('/');
                write_integer(out, x.denom());
            }
        })
    }
}

impl fmt::Display for RatMatrix {
    /// The text format of [`IntMatrix`], with entries `p/q` (`q > 0`, lowest terms) and
    /// integers without a denominator.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens at the edges of the machine-integer paths read as GMP reads them, and bad
    /// tokens are refused.
    #[test]
    fn tokens_at_every_length_read_as_gmp_reads_them() {
        let mut tokens: Vec<String> = ["0", "-0", "1", "-1", "007", "-007"]
            .map(String::from)
            .to_vec();
        for digits in [17, 18, 19, 20, 37, 38, 39, 40, 80] {
            tokens.push("9".repeat(digits));
            tokens.push(format!("1{}", "0".repeat(digits - 1)));
            tokens.push(format!("-{}", "9".repeat(digits)));
        }
        tokens.extend(
            [i64::MAX as i128, i64::MIN as i128, i128::MAX, i128::MIN + 1].map(|v| v.to_string()),
        );
        for t in &tokens {
            let want = Integer::from_str_radix(t, 10).unwrap();
            assert_eq!(parse_integer(t), Some(want), "{t}");
        }
        for bad in ["", "-", "+1", "1-", "1.0", "١٢", "12a"] {
            assert_eq!(parse_integer(bad), None, "{bad:?}");
        }
    }

    /// The text writers at the edges of the machine-integer path and far beyond it
    /// (GMP's digits written in place): the same text as rug's own formatting, entry by
    /// entry, and read back to the same matrices.
    #[test]
    fn text_is_rugs_formatting_and_reads_back() {
        let big = Integer::from(1) << 2000u32;
        let mut values: Vec<Integer> = [0i64, 1, -1, 9, -10, i64::MAX, i64::MIN]
            .iter()
            .map(|&v| Integer::from(v))
            .collect();
        values.extend([
            Integer::from(i64::MAX) + 1,
            Integer::from(i64::MIN) - 1,
            Integer::from(u64::MAX),
            -Integer::from(u64::MAX) - 1,
            big.clone() - 1,
            -big.clone(),
            Integer::from(Integer::u_pow_u(10, 600)) - 1,
            -Integer::from(Integer::u_pow_u(10, 600)),
        ]);
        let (rows, cols) = (3, values.len());
        let data: Vec<Integer> = (0..rows).flat_map(|_| values.iter().cloned()).collect();
        let m = IntMatrix::new(rows, cols, data).unwrap();
        let line: Vec<String> = values.iter().map(|x| x.to_string()).collect();
        let want = format!("{rows} {cols}\n") + &format!("{}\n", line.join(" ")).repeat(rows);
        assert_eq!(m.to_text(), want);
        assert_eq!(m.to_string(), want);
        assert_eq!(IntMatrix::parse(&m.to_text(), "test").unwrap(), m);
        for x in &values {
            let mut s = String::new();
            write_integer(&mut s, x);
            assert!(s.len() < decimal_width(x), "{s} within its width bound");
        }
        let q: Vec<Rational> = values
            .iter()
            .zip(values.iter().rev())
            .map(|(n, d)| {
                Rational::from((n.clone(), if *d == 0 { big.clone() } else { d.clone() }))
            })
            .collect();
        let r = RatMatrix::new(1, q.len(), q.clone()).unwrap();
        let line: Vec<String> = q.iter().map(|x| x.to_string()).collect();
        assert_eq!(r.to_text(), format!("1 {}\n{}\n", q.len(), line.join(" ")));
    }
}
