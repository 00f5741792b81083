//! A matrix read as text and split into its entries' places ([`Span`]s), not yet
//! converted: the exact product reads such matrices on the device, digits to words there
//! ([`crate::matmul_text_of`]), or here into integers ([`TextMatrix::to_integers`]).

use super::matrix::{parse_entries, IntMatrix};
use crate::error::Result;
use crate::input::Expect;
use crate::num::decimal::Span;
use rayon::prelude::*;

/// A matrix in the text format of [`IntMatrix`], its entries located but not converted.
///
/// ```
/// use rns::TextMatrix;
///
/// let m = TextMatrix::parse("2 2\n# a comment\n1 2\n3 -4\n", "m.txt")?;
/// assert_eq!(m.rows(), 2);
/// assert_eq!(m.to_integers()?.get(1, 1).to_string(), "-4");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Debug)]
pub struct TextMatrix<'t> {
    text: &'t str,
    rows: usize,
    cols: usize,
    spans: Vec<Span>,
}

impl<'t> TextMatrix<'t> {
    /// What [`crate::input::read_source`] checks of a matrix file read for a
    /// `TextMatrix`: its places, and the integers they may become.
    pub const FORMAT: Expect = Expect::Matrix {
        entry_bytes: (std::mem::size_of::<Span>() + std::mem::size_of::<rug::Integer>()) as u64,
    };

    /// Splits `text` as [`IntMatrix::parse`] reads it, with the same errors (naming
    /// `source`), by all cores.
    pub fn parse(text: &'t str, source: &str) -> Result<TextMatrix<'t>> {
        let (rows, cols, spans) = parse_entries(text, source, |t| Span::of(text, t))?;
        Ok(TextMatrix {
            text,
            rows,
            cols,
            spans,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The text the entries lie in.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The entries' places, row-major.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The most digits of an entry (0 for no entries).
    pub fn max_digits(&self) -> u64 {
        self.spans.par_iter().map(|s| s.digits).max().unwrap_or(0)
    }

    /// The entries as integers, by all cores.
    pub fn to_integers(&self) -> Result<IntMatrix> {
        let data = self.spans.par_iter().map(|s| s.value(self.text)).collect();
        IntMatrix::new(self.rows, self.cols, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same integers and the same errors as [`IntMatrix::parse`].
    #[test]
    fn reads_as_the_integer_parser_reads() {
        let good =
            "# a comment\n2 3\n0 -0 007\n-12345678901234567890123456789012345678901 1 -1\n\n";
        let t = TextMatrix::parse(good, "good").unwrap();
        assert_eq!(
            t.to_integers().unwrap(),
            IntMatrix::parse(good, "good").unwrap()
        );
        assert_eq!((t.rows(), t.cols(), t.max_digits()), (2, 3, 41));
        for bad in [
            "",
            "2 2\n1 2\n3\n",
            "1 2\n1 +2\n",
            "1 1\n-\n",
            "1 1\n1\n2\n",
            "1 1\n1x\n",
        ] {
            let want = IntMatrix::parse(bad, "bad").unwrap_err().to_string();
            let got = TextMatrix::parse(bad, "bad").unwrap_err().to_string();
            assert_eq!(got, want, "{bad:?}");
        }
    }
}
