use super::*;
use crate::{BiPoly, IntMatrix, IntPoly};
use proptest::prelude::*;

const INT: Expect = Expect::Matrix { entry_bytes: 16 };

/// A stream of `head`, then `tail` repeated for ever, `step` bytes a read.
struct Endless {
    head: Vec<u8>,
    tail: Vec<u8>,
    at: usize,
    step: usize,
}

impl Endless {
    fn new(head: &str, tail: &str, step: usize) -> Endless {
        Endless {
            head: head.into(),
            tail: tail.into(),
            at: 0,
            step,
        }
    }
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step);
        for b in &mut buf[..n] {
            *b = match self.head.get(self.at) {
                Some(&b) => b,
                None => self.tail[(self.at - self.head.len()) % self.tail.len()],
            };
            self.at += 1;
        }
        Ok(n)
    }
}

/// A finite text, `step` bytes a read.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn parse_err(text: &str) -> String {
    IntMatrix::parse(text, "<stdin>").unwrap_err().to_string()
}

#[test]
fn endless_streams_stop_once_they_are_surely_wrong() {
    for step in [1, 7, CHUNK] {
        // `yes 1`: the first line is no header.
        let t = read_stream(Endless::new("", "1\n", step), "<stdin>", INT).unwrap();
        assert!(t.len() <= CHUNK + 2, "{}", t.len());
        assert!(
            parse_err(&t).contains("bad first line `1`"),
            "{}",
            parse_err(&t)
        );
        // More rows than declared.
        let s = Endless::new("# c\n2 2\n1 2\n\n3 4\n# end\n", "5 6\n", step);
        let t = read_stream(s, "<stdin>", INT).unwrap();
        assert!(parse_err(&t).contains("more than the 2 rows declared"));
        // More entries in a row than declared.
        let t = read_stream(Endless::new("1 2\n", "7 ", step), "<stdin>", INT).unwrap();
        assert!(parse_err(&t).contains("expected 2"), "{}", parse_err(&t));
        // A byte no integer has, in a polynomial.
        let t = read_stream(
            Endless::new("1 2 x", "3 ", step),
            "<stdin>",
            Expect::Numbers,
        );
        let e = IntPoly::parse(&t.unwrap(), "<stdin>")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`x") && e.contains("is not a decimal integer"),
            "{e}"
        );
    }
}

#[test]
fn a_header_that_never_ends_or_declares_too_much_is_refused() {
    let e = read_stream(Endless::new("", "1", 999), "<stdin>", INT).unwrap_err();
    assert!(
        e.to_string().contains("first line is over 4096 bytes"),
        "{e}"
    );
    if limits::available_bytes().is_some() {
        let s = Endless::new("100000000 100000000\n", "1 ", 999);
        let e = read_stream(s, "<stdin>", INT).unwrap_err();
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e}");
        assert!(e.to_string().contains("100000000×100000000 matrix"), "{e}");
    }
}

#[test]
fn texts_the_parsers_accept_are_read_whole() {
    let texts = [
        "2 2\n1 2\n3 4\n",
        "+2 2\n1 2\n3 4",
        " # comment\n\n2\t2 \r\n-1 2\r\n3 -4\r\n# after\n\n",
        "1 2\n5\u{3000}6\n",
        "1 1\n\u{3000}# a comment in Unicode space\n7\n",
    ];
    for t in texts {
        assert!(IntMatrix::parse(t, "m").is_ok(), "{t:?}");
        for step in [1, 3, CHUNK] {
            assert_eq!(
                read_stream(Trickle(t.as_bytes(), step), "m", INT).unwrap(),
                t
            );
        }
    }
    for t in ["1 +2 3\n# x y\n4 0 +1\n", "3 4 5\n-6\n"] {
        assert!(BiPoly::parse(t, "f").is_ok() || IntPoly::parse(t, "f").is_ok());
        let r = read_stream(Trickle(t.as_bytes(), 2), "f", Expect::Numbers).unwrap();
        assert_eq!(r, t);
    }
}

#[test]
fn a_stop_inside_a_character_cuts_it_and_bad_utf8_is_refused() {
    // `x` stops the read; the chunk ends inside `é`.
    let t = read_stream(Trickle("1 1\nx\u{e9}".as_bytes(), 5), "m", INT).unwrap();
    assert_eq!(t, "1 1\nx");
    let e = read_stream(Trickle(&[b'1', 0xff, b'\n'], 9), "m", INT).unwrap_err();
    assert!(e.to_string().contains("valid UTF-8"), "{e}");
}

/// A file read in pieces by all cores (pieces of an odd size, the last one short) is
/// the file; bytes that are not UTF-8 are refused either way.
#[test]
fn files_read_in_pieces_are_whole() {
    let dir = std::env::temp_dir().join(format!("rns-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.txt");
    let text: String = (0..20_000).map(|i| format!("{} ", i * 7919)).collect();
    std::fs::write(&path, &text).unwrap();
    for (parallel, piece) in [(0, 4097), (0, 1), (0, 1 << 30), (u64::MAX, 4097)] {
        let mut f = std::fs::File::open(&path).unwrap();
        let bytes = read_file(&mut f, text.len() as u64, parallel, piece).unwrap();
        assert_eq!(bytes, text.as_bytes());
    }
    let p = path.to_str().unwrap();
    assert_eq!(read_source(p, Expect::Numbers).unwrap(), text);
    std::fs::write(&path, [b'1', 0xff, b'2']).unwrap();
    let e = read_source(p, Expect::Text { max_bytes: 3 }).unwrap_err();
    assert!(e.to_string().contains("valid UTF-8"), "{e}");
    // Text longer than its format allows, from a file or a stream, on both sides.
    let e = read_source(p, Expect::Text { max_bytes: 2 }).unwrap_err();
    assert!(e.to_string().contains("more than 2 bytes"), "{e}");
    let text = Expect::Text { max_bytes: 10 };
    assert_eq!(
        read_stream(Trickle(b"0123456789", 3), "t", text).unwrap(),
        "0123456789"
    );
    let e = read_stream(Endless::new("", "a,b\n", 3), "t", text).unwrap_err();
    assert!(e.to_string().contains("more than 10 bytes"), "{e}");
    // A bad first line is refused from the file's head.
    std::fs::write(&path, "1\n".repeat(100_000)).unwrap();
    let e = IntMatrix::read(p).unwrap_err().to_string();
    assert!(e.contains("bad first line"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn alphabet() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "0", "1", "2", "7", "-", "+", " ", "\t", "\n", "\n", "\r\n", "#", "x", "é", "\u{3000}",
        "2 2\n", "1 3\n",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
}

proptest! {
    /// A read stopped early is one the parser rejects, read whole or stopped; a read
    /// not stopped is the whole text.
    #[test]
    fn a_stop_is_made_only_where_the_parser_fails(
        text in alphabet(),
        step in prop_oneof![1usize..6, Just(CHUNK)],
    ) {
        type Parse = fn(&str) -> bool;
        let cases: [(Expect, Parse); 3] = [
            (INT, |t| IntMatrix::parse(t, "s").is_ok()),
            (Expect::Numbers, |t| IntPoly::parse(t, "s").is_ok()),
            (Expect::Numbers, |t| BiPoly::parse(t, "s").is_ok()),
        ];
        for (expect, ok) in cases {
            let read = read_stream(Trickle(text.as_bytes(), step), "s", expect);
            match read {
                Ok(t) if t == text => {}
                Ok(t) => prop_assert!(!ok(&text) && !ok(&t), "{text:?} stopped at {t:?}"),
                Err(_) => prop_assert!(!ok(&text), "{text:?} refused"),
            }
        }
    }
}
