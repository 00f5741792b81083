//! [`IntPoly`]: univariate polynomials over Z, and their file format: decimal integer
//! coefficients, constant term first, separated by whitespace (any number of lines).

use crate::error::{Error, Result};
use crate::input::{read_source, source_name, Expect};
use crate::mat::matrix::parse_integer;
use rug::Integer;

/// A non-zero polynomial with integer coefficients, constant term first; the last
/// coefficient (the leading one) is non-zero.
///
/// ```
/// use rns::IntPoly;
/// use rug::Integer;
///
/// let f = IntPoly::from_i64(&[-2, 0, 1])?; // x² − 2
/// assert_eq!(f.degree(), 2);
/// assert_eq!(f.eval(&Integer::from(3)), 7);
/// assert!(IntPoly::from_i64(&[0, 0]).is_err()); // the zero polynomial has no degree
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntPoly {
    coeffs: Vec<Integer>,
}

impl IntPoly {
    /// A polynomial from its coefficients, constant term first; trailing zeros are
    /// dropped. The zero polynomial (no non-zero coefficient) is an error.
    pub fn new(mut coeffs: Vec<Integer>) -> Result<IntPoly> {
        while coeffs.last().is_some_and(|c| *c == 0) {
            coeffs.pop();
        }
        if coeffs.is_empty() {
            return Err(Error::Shape(
                "the zero polynomial has no resultant degree: give a non-zero polynomial".into(),
            ));
        }
        Ok(IntPoly { coeffs })
    }

    /// A polynomial from machine-integer coefficients, constant term first.
    pub fn from_i64(coeffs: &[i64]) -> Result<IntPoly> {
        Self::new(coeffs.iter().map(|&c| Integer::from(c)).collect())
    }

    /// The degree.
    pub fn degree(&self) -> usize {
        self.coeffs.len() - 1
    }

    /// The coefficients, constant term first.
    pub fn coeffs(&self) -> &[Integer] {
        &self.coeffs
    }

    /// The leading coefficient.
    pub fn leading(&self) -> &Integer {
        &self.coeffs[self.degree()]
    }

    /// The value at `x`.
    pub fn eval(&self, x: &Integer) -> Integer {
        self.coeffs
            .iter()
            .rev()
            .fold(Integer::new(), |acc, c| acc * x + c)
    }

    /// Parses the file format; `source` names the input in error messages.
    pub fn parse(text: &str, source: &str) -> Result<IntPoly> {
        let mut coeffs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if crate::mat::matrix::is_blank_or_comment(line) {
                continue;
            }
            for token in line.split_whitespace() {
                coeffs.push(parse_integer(token).ok_or_else(|| Error::Parse {
                    source: source.to_string(),
                    line: i + 1,
                    message: format!("`{token}` is not a decimal integer"),
                })?);
            }
        }
        if coeffs.is_empty() {
            return Err(Error::Parse {
                source: source.to_string(),
                line: 1,
                message: "empty polynomial: expected coefficients, constant term first".into(),
            });
        }
        Self::new(coeffs).map_err(|_| Error::Parse {
            source: source.to_string(),
            line: 1,
            message: "the zero polynomial: every coefficient is 0".into(),
        })
    }

    /// Reads and parses a polynomial file, or standard input for `-`.
    pub fn read(path: &str) -> Result<IntPoly> {
        let text = read_source(path, Expect::Numbers)?;
        Self::parse(&text, source_name(path))
    }
}
