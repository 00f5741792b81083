//! [`IntMatrix`]: dense matrices of big integers, and the text format every command reads.
//!
//! Format: a first line `rows cols`, then `rows` lines of `cols` decimal integers
//! (optional leading `-`), separated by spaces or tabs. Blank lines are ignored.

use crate::error::{Error, Result};
use rug::{Integer, Rational};
use std::fmt;
use std::io::Read;

/// A dense row-major matrix of signed big integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntMatrix {
    rows: usize,
    cols: usize,
    data: Vec<Integer>,
}

/// Parses one decimal integer token: an optional `-` and ASCII digits, nothing else.
pub fn parse_integer(token: &str) -> Option<Integer> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Integer::from_str_radix(token, 10).ok()
}

/// Reads a whole file, or standard input for `-`.
pub fn read_source(path: &str) -> Result<String> {
    let io_err = |e: std::io::Error| Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    };
    if path == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(io_err)?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(io_err)
    }
}

impl IntMatrix {
    /// A matrix from its row-major entries; `data.len()` must be `rows · cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<Integer>) -> Result<IntMatrix> {
        if data.len() != rows * cols {
            return Err(Error::Shape(format!(
                "{} entries do not form a {rows}×{cols} matrix",
                data.len()
            )));
        }
        Ok(IntMatrix { rows, cols, data })
    }

    /// A matrix from row-major machine integers.
    pub fn from_i64(rows: usize, cols: usize, data: &[i64]) -> Result<IntMatrix> {
        Self::new(rows, cols, data.iter().map(|&x| Integer::from(x)).collect())
    }

    /// The `n × n` identity.
    pub fn identity(n: usize) -> IntMatrix {
        let data = (0..n * n)
            .map(|k| Integer::from((k / n == k % n) as u32))
            .collect();
        IntMatrix {
            rows: n,
            cols: n,
            data,
        }
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
        &self.data[i * self.cols + j]
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[Integer] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All entries, row-major.
    pub fn entries(&self) -> &[Integer] {
        &self.data
    }

    /// Parses the text format; `source` names the input in error messages.
    pub fn parse(text: &str, source: &str) -> Result<IntMatrix> {
        let err = |line: usize, message: String| Error::Parse {
            source: source.to_string(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(_, l)| !l.trim().is_empty());
        let (hline, header) = lines
            .next()
            .ok_or_else(|| err(1, "empty input: expected a first line `rows cols`".into()))?;
        let dims: Vec<&str> = header.split_whitespace().collect();
        let dim = |t: &str| t.parse::<usize>().ok();
        let (rows, cols) = match dims.as_slice() {
            [r, c] => match (dim(r), dim(c)) {
                (Some(r), Some(c)) => (r, c),
                _ => {
                    return Err(err(
                        hline,
                        format!("bad dimensions `{header}`: expected `rows cols`"),
                    ))
                }
            },
            _ => {
                return Err(err(
                    hline,
                    format!("bad first line `{header}`: expected `rows cols`"),
                ))
            }
        };
        if rows == 0 || cols == 0 {
            return Err(err(hline, format!("empty matrix ({rows}×{cols})")));
        }
        let mut data = Vec::with_capacity(rows.saturating_mul(cols).min(1 << 24));
        for r in 0..rows {
            let (lno, line) = lines
                .next()
                .ok_or_else(|| err(hline, format!("expected {rows} rows, found {r}")))?;
            let before = data.len();
            for token in line.split_whitespace() {
                let x = parse_integer(token)
                    .ok_or_else(|| err(lno, format!("`{token}` is not a decimal integer")))?;
                data.push(x);
            }
            let found = data.len() - before;
            if found != cols {
                return Err(err(
                    lno,
                    format!("row {} has {found} entries, expected {cols}", r + 1),
                ));
            }
        }
        if let Some((lno, _)) = lines.next() {
            return Err(err(lno, format!("more than the {rows} rows declared")));
        }
        Ok(IntMatrix { rows, cols, data })
    }

    /// The transpose.
    pub fn transpose(&self) -> IntMatrix {
        let data = (0..self.rows * self.cols)
            .map(|k| self.get(k % self.rows, k / self.rows).clone())
            .collect();
        IntMatrix {
            rows: self.cols,
            cols: self.rows,
            data,
        }
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
        let text = read_source(path)?;
        let name = if path == "-" { "<stdin>" } else { path };
        Self::parse(&text, name)
    }
}

impl fmt::Display for IntMatrix {
    /// Writes the text format that [`IntMatrix::parse`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.rows, self.cols)?;
        for i in 0..self.rows {
            let row: Vec<String> = self.row(i).iter().map(|x| x.to_string()).collect();
            writeln!(f, "{}", row.join(" "))?;
        }
        Ok(())
    }
}

/// A dense row-major matrix of rationals (each in lowest terms, positive denominator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatMatrix {
    rows: usize,
    cols: usize,
    data: Vec<Rational>,
}

impl RatMatrix {
    /// A matrix from its row-major entries; `data.len()` must be `rows · cols`.
    pub fn new(rows: usize, cols: usize, data: Vec<Rational>) -> Result<RatMatrix> {
        if data.len() != rows * cols {
            return Err(Error::Shape(format!(
                "{} entries do not form a {rows}×{cols} matrix",
                data.len()
            )));
        }
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
}

impl fmt::Display for RatMatrix {
    /// The text format of [`IntMatrix`], with entries `p/q` (`q > 0`, lowest terms) and
    /// integers without a denominator.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}", self.rows, self.cols)?;
        for row in self.data.chunks(self.cols.max(1)).take(self.rows) {
            let row: Vec<String> = row
                .iter()
                .map(|x| {
                    if *x.denom() == 1 {
                        x.numer().to_string()
                    } else {
                        format!("{}/{}", x.numer(), x.denom())
                    }
                })
                .collect();
            writeln!(f, "{}", row.join(" "))?;
        }
        Ok(())
    }
}
