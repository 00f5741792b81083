//! [`BiPoly`]: polynomials in `Z[x, y]`, and their file format: one term per line,
//! `coefficient x_exponent y_exponent` (decimal, whitespace-separated; terms with the same
//! exponents add up; blank lines and lines starting with `#` are skipped).

use crate::error::{Error, Result};
use crate::input::{read_source, source_name, Expect};
use crate::mat::matrix::parse_integer;
use rns_core::poly::BiShape;
use rug::Integer;

/// The most coefficients a dense `(deg_y + 1) × (deg_x + 1)` polynomial may hold.
pub const MAX_DENSE: usize = 1 << 24;

/// A non-zero polynomial in `Z[x, y]`, held as a polynomial in `y` whose coefficients
/// are polynomials in `x`: row `j` holds the coefficient of `y^j`, constant term in `x`
/// first, without trailing zeros; the last row (the leading coefficient in `y`) is non-zero.
///
/// ```
/// use rns::BiPoly;
///
/// // y² − x³, one term `coefficient x_exponent y_exponent` a line.
/// let f = BiPoly::parse("1 0 2\n-1 3 0\n", "f.txt")?;
/// assert_eq!((f.deg_y(), f.deg_x()), (2, 3));
/// assert_eq!(f.at_x(&2.into()), [-8, 0, 1]); // y² − 8
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BiPoly {
    rows: Vec<Vec<Integer>>,
}

impl BiPoly {
    /// The polynomial `Σ c·x^i·y^j` of the terms `(c, i, j)`. The zero polynomial, or one
    /// too large to hold densely (more than [`MAX_DENSE`] coefficients), is an error.
    pub fn new(terms: impl IntoIterator<Item = (Integer, usize, usize)>) -> Result<BiPoly> {
        let mut rows: Vec<Vec<Integer>> = Vec::new();
        for (c, i, j) in terms {
            if c == 0 {
                continue;
            }
            if i.saturating_add(1).saturating_mul(j.saturating_add(1)) > MAX_DENSE {
                return Err(Error::Shape(format!(
                    "the term x^{i}·y^{j} is too large: at most {MAX_DENSE} dense coefficients"
                )));
            }
            if rows.len() <= j {
                rows.resize(j + 1, Vec::new());
            }
            if rows[j].len() <= i {
                rows[j].resize(i + 1, Integer::new());
            }
            rows[j][i] += c;
        }
        Self::from_rows(rows)
    }

    /// The polynomial `Σ_j rows[j](x)·y^j`, each row constant term first.
    pub fn from_rows(mut rows: Vec<Vec<Integer>>) -> Result<BiPoly> {
        for r in &mut rows {
            while r.last().is_some_and(|c| *c == 0) {
                r.pop();
            }
        }
        while rows.last().is_some_and(|r| r.is_empty()) {
            rows.pop();
        }
        if rows.is_empty() {
            return Err(Error::Shape(
                "the zero polynomial has no resultant: give a non-zero polynomial".into(),
            ));
        }
        let longest = rows.iter().map(Vec::len).max().unwrap_or(0);
        if rows.len().saturating_mul(longest) > MAX_DENSE {
            return Err(Error::Shape(format!(
                "a polynomial of degree {} in y and {} in x is too large: at most {MAX_DENSE} dense coefficients",
                rows.len() - 1,
                longest - 1
            )));
        }
        Ok(BiPoly { rows })
    }

    /// The degree in `y`.
    pub fn deg_y(&self) -> usize {
        self.rows.len() - 1
    }

    /// The degree in `x`.
    pub fn deg_x(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(1) - 1
    }

    /// The coefficient of `y^j`, a polynomial in `x` (constant first; empty when zero).
    pub fn row(&self, j: usize) -> &[Integer] {
        self.rows.get(j).map_or(&[], Vec::as_slice)
    }

    /// The leading coefficient in `y`, a non-zero polynomial in `x`.
    pub fn leading_y(&self) -> &[Integer] {
        self.row(self.deg_y())
    }

    /// The coefficients in `y` (constant first) of `f(a, y)`; the last may be zero.
    pub fn at_x(&self, a: &Integer) -> Vec<Integer> {
        self.rows
            .iter()
            .map(|r| r.iter().rev().fold(Integer::new(), |acc, c| acc * a + c))
            .collect()
    }

    /// Every coefficient densely: `deg_y + 1` rows of `width` coefficients in `x`
    /// (`width > deg_x`), row by row.
    pub fn dense(&self, width: usize) -> Vec<Integer> {
        let mut out = Vec::with_capacity(self.rows.len() * width);
        for r in &self.rows {
            out.extend(r.iter().cloned());
            out.resize(out.len() + width - r.len(), Integer::new());
        }
        out
    }

    /// Parses the file format; `source` names the input in error messages.
    pub fn parse(text: &str, source: &str) -> Result<BiPoly> {
        let err = |line: usize, message: String| Error::Parse {
            source: source.to_string(),
            line,
            message,
        };
        let mut terms = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if tokens.is_empty() || tokens[0].starts_with('#') {
                continue;
            }
            if tokens.len() != 3 {
                return Err(err(
                    i + 1,
                    format!(
                        "expected `coefficient x_exponent y_exponent`, got {} tokens",
                        tokens.len()
                    ),
                ));
            }
            let c = parse_integer(tokens[0])
                .ok_or_else(|| err(i + 1, format!("`{}` is not a decimal integer", tokens[0])))?;
            let exponent = |t: &str| {
                t.parse::<usize>()
                    .map_err(|_| err(i + 1, format!("`{t}` is not an exponent (0, 1, 2, …)")))
            };
            terms.push((c, exponent(tokens[1])?, exponent(tokens[2])?));
        }
        if terms.is_empty() {
            return Err(err(
                1,
                "empty polynomial: expected lines `coefficient x_exponent y_exponent`".into(),
            ));
        }
        Self::new(terms).map_err(|e| match e {
            Error::Shape(message) if message.starts_with("the zero") => {
                err(1, "the zero polynomial: every coefficient is 0".into())
            }
            Error::Shape(message) => err(1, message),
            other => other,
        })
    }

    /// Reads and parses a polynomial file, or standard input for `-`.
    pub fn read(path: &str) -> Result<BiPoly> {
        let text = read_source(path, Expect::Numbers)?;
        Self::parse(&text, source_name(path))
    }
}

/// The degrees of `f` and `g` in `y` and in `x`.
pub fn pair_shape(f: &BiPoly, g: &BiPoly) -> BiShape {
    BiShape {
        fy: f.deg_y() as u32,
        fx: f.deg_x() as u32,
        gy: g.deg_y() as u32,
        gx: g.deg_x() as u32,
    }
}
