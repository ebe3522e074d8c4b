//! A strict parser of the `.npy` header dictionary, run before npyz sees
//! the file.
//!
//! The NumPy format specification (numpy.lib.format) writes the header as
//! the `repr` of a dict with exactly the keys `'descr'`, `'fortran_order'` and
//! `'shape'`, and NumPy's own reader refuses any other key and a shape that is
//! not a tuple of integers. npyz accepts far more (lists, nested literals,
//! extra keys, escaped strings), and its parser takes time exponential in the
//! nesting of brackets (a 200-byte header did not finish in 40 s) and
//! multiplies the dimensions unchecked (a list shape overflowed and
//! panicked). So the header is parsed here first, as NumPy writes it, and
//! anything else is refused with the reason (review, 2026-11-26).

/// The header as NumPy writes it.
#[derive(Debug, PartialEq)]
pub(super) struct Header {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
}

/// Parses the header text: `{'descr': STR, 'fortran_order': BOOL, 'shape':
/// TUPLE}` in any key order, with optional trailing commas, padded by
/// whitespace. A one-element shape needs its trailing comma (`(5)` is the
/// integer 5 in Python, which NumPy refuses as a shape).
///
/// # Errors
/// A message saying what is not as NumPy writes it.
pub(super) fn parse(text: &str) -> Result<Header, String> {
    let mut c = Cursor {
        s: text.as_bytes(),
        at: 0,
    };
    c.expect(b'{')?;
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    loop {
        if c.eat(b'}') {
            break;
        }
        let key = c.string()?;
        c.expect(b':')?;
        let twice = || format!("key '{key}' is given twice");
        match key.as_str() {
            "descr" if descr.is_none() => {
                // A structured dtype (`[('a', '<f8')]`) was refused as
                // "expected a quoted string at byte 10", which says nothing
                // of the dtype (review, 2026-11-29).
                if c.eat(b'[') {
                    return Err("descr is a list of fields (a structured dtype): not supported (expected float64, float32 or float16)".into());
                }
                descr = Some(c.string()?);
            }
            "fortran_order" if fortran_order.is_none() => fortran_order = Some(c.boolean()?),
            "shape" if shape.is_none() => shape = Some(c.shape()?),
            "descr" | "fortran_order" | "shape" => return Err(twice()),
            other => {
                return Err(format!(
                    "unexpected key '{other}' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')"
                ));
            }
        }
        if !c.eat(b',') {
            c.expect(b'}')?;
            break;
        }
    }
    c.skip_space();
    if c.at != c.s.len() {
        return Err(format!(
            "unexpected text after the dictionary at byte {}",
            c.at
        ));
    }
    let missing = |what: &str| format!("the header has no '{what}'");
    Ok(Header {
        descr: descr.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn skip_space(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Consumes `c` (after whitespace) if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        let next = self.s.get(self.at) == Some(&c);
        self.at += usize::from(next);
        next
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            return Ok(());
        }
        Err(match self.s.get(self.at) {
            Some(&found) => format!(
                "expected '{}' at byte {}, found '{}'",
                c as char,
                self.at,
                found.escape_ascii()
            ),
            None => format!("expected '{}' at the end of the header", c as char),
        })
    }

    /// A string literal in single or double quotes, without escapes.
    fn string(&mut self) -> Result<String, String> {
        self.skip_space();
        let quote = match self.s.get(self.at) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(format!("expected a quoted string at byte {}", self.at)),
        };
        let start = self.at + 1;
        let len = self.s[start..]
            .iter()
            .position(|&b| b == quote || b == b'\\')
            .ok_or_else(|| "unterminated string".to_string())?;
        if self.s[start + len] == b'\\' {
            return Err("escapes in a header string are not supported".into());
        }
        self.at = start + len + 1;
        String::from_utf8(self.s[start..start + len].to_vec())
            .map_err(|_| "a header string is not UTF-8".to_string())
    }

    /// A run of ASCII letters, digits and underscores.
    fn word(&mut self) -> &str {
        self.skip_space();
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.at += 1;
        }
        std::str::from_utf8(&self.s[start..self.at]).expect("ASCII")
    }

    fn boolean(&mut self) -> Result<bool, String> {
        match self.word() {
            "True" => Ok(true),
            "False" => Ok(false),
            other => Err(format!("fortran_order is `{other}`, not True or False")),
        }
    }

    /// A tuple of non-negative integers.
    fn shape(&mut self) -> Result<Vec<u64>, String> {
        if !self.eat(b'(') {
            return Err("the shape is not a tuple (NumPy writes `(rows, cols)`)".into());
        }
        let mut dims = Vec::new();
        let mut trailing_comma = false;
        while !self.eat(b')') {
            let dim = self.word();
            let value = dim
                .parse::<u64>()
                .map_err(|_| format!("shape dimension `{dim}` is not a non-negative integer"))?;
            dims.push(value);
            trailing_comma = self.eat(b',');
            if !trailing_comma {
                self.expect(b')')?;
                break;
            }
        }
        if dims.len() == 1 && !trailing_comma {
            return Err(format!(
                "shape ({}) is an integer, not a tuple (write ({},))",
                dims[0], dims[0]
            ));
        }
        Ok(dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_headers_parse() {
        let h = parse("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }          \n")
            .unwrap();
        assert_eq!(
            h,
            Header {
                descr: "<f8".into(),
                fortran_order: false,
                shape: vec![3, 4]
            }
        );
        assert_eq!(
            parse("{\"shape\": (5,), \"fortran_order\": True, \"descr\": \"<f2\"}")
                .unwrap()
                .shape,
            vec![5]
        );
        assert_eq!(
            parse("{'descr': '<f4', 'fortran_order': False, 'shape': ()}")
                .unwrap()
                .shape,
            Vec::<u64>::new()
        );
    }

    /// What NumPy would not write is refused with its reason, in time
    /// linear in the header (npyz's parser was exponential in nesting).
    #[test]
    fn anything_else_is_refused_with_the_reason() {
        let nested = format!(
            "{{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': {}{}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        for (text, reason) in [
            (nested.as_str(), "unexpected key 'x'"),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': [4611686018427387904, 8]}",
                "not a tuple",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'sh\\x61pe': (1,)}",
                "escapes",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': (2,)}",
                "given twice",
            ),
            ("{'descr': '<f8', 'shape': (1,)}", "no 'fortran_order'"),
            (
                "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
                "not True or False",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (5)}",
                "not a tuple (write (5,))",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,)}",
                "`2L`",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
                "not a non-negative integer",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                "not a non-negative integer",
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x",
                "after the dictionary",
            ),
            ("{'descr': '<f8'", "at the end of the header"),
            ("{'descr: '<f8'}", "expected ':'"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(reason), "{text}: {e}");
        }
    }
}
