//! Telling how a log is encoded from its first bytes, and decoding UTF-16 to UTF-8 as it streams.
//!
//! Windows PowerShell 5's `>` writes UTF-16 LE with a byte order mark; other tools write UTF-16
//! without one, or UTF-8 with a BOM. The encoding is decided once per input from its first
//! [`DETECT`] bytes: a BOM, else the pattern of NUL bytes that ASCII text leaves in UTF-16 (every
//! other byte NUL, the bytes beside them printable). A plain UTF-8 log pays for that one check and
//! nothing per line. The decoder keeps at most three bytes across blocks (an odd byte and a high
//! surrogate), so memory stays bounded whatever the input.

use std::io::{self, Read};

/// How many bytes of the start of an input the encoding is decided from.
pub const DETECT: usize = 512;

/// How an input is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (or anything else byte-oriented), without a BOM to skip.
    Utf8,
    /// UTF-8 behind a byte order mark (`EF BB BF`), which is skipped.
    Utf8Bom,
    /// UTF-16, little-endian.
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
}

impl Encoding {
    /// The encoding of an input that starts with `head` (its first [`DETECT`] bytes, or all of it
    /// when shorter).
    pub fn detect(head: &[u8]) -> Encoding {
        let head = &head[..head.len().min(DETECT)];
        if head.starts_with(b"\xef\xbb\xbf") {
            return Encoding::Utf8Bom;
        }
        // A UTF-16 BOM, unless no NUL follows it: a log in UTF-16 holds ASCII (spaces, digits,
        // newlines), each with a NUL beside it, while bytes of garbage that happen to start
        // like a BOM hold none.
        let nul_after_bom = head.len() < 8 || memchr::memchr(0, &head[2..]).is_some();
        if head.starts_with(b"\xff\xfe") && nul_after_bom {
            return Encoding::Utf16Le;
        }
        if head.starts_with(b"\xfe\xff") && nul_after_bom {
            return Encoding::Utf16Be;
        }
        // Without a BOM: ASCII text in UTF-16 has a NUL in every unit, on the same side.
        if memchr::memchr(0, head).is_none() {
            return Encoding::Utf8;
        }
        let units = head.len() / 2;
        if units < 2 {
            return Encoding::Utf8;
        }
        let (mut nul_even, mut nul_odd, mut text_even, mut text_odd) = (0, 0, 0, 0);
        for pair in head.chunks_exact(2) {
            let texty = |b: u8| b.is_ascii_graphic() || matches!(b, b' ' | b'\t' | b'\r' | b'\n');
            nul_even += usize::from(pair[0] == 0);
            nul_odd += usize::from(pair[1] == 0);
            text_even += usize::from(pair[1] == 0 && texty(pair[0]));
            text_odd += usize::from(pair[0] == 0 && texty(pair[1]));
        }
        // Most units ASCII text, and (almost) no NUL on the other side.
        if text_even * 4 >= units * 3 && nul_even * 16 <= units {
            return Encoding::Utf16Le;
        }
        if text_odd * 4 >= units * 3 && nul_odd * 16 <= units {
            return Encoding::Utf16Be;
        }
        Encoding::Utf8
    }

    /// Whether the input must be decoded into UTF-8 before it is split into lines.
    pub fn is_utf16(self) -> bool {
        matches!(self, Encoding::Utf16Le | Encoding::Utf16Be)
    }
}

/// A streaming UTF-16 to UTF-8 decoder: unpaired surrogates become U+FFFD.
#[derive(Debug, Clone)]
pub struct Utf16Decoder {
    big_endian: bool,
    /// The first byte of a unit split across blocks.
    odd: Option<u8>,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    /// Whether the next unit is the first of the input (a BOM there is skipped).
    at_start: bool,
}

impl Utf16Decoder {
    /// A decoder for UTF-16 of the given byte order.
    pub fn new(big_endian: bool) -> Self {
        Utf16Decoder {
            big_endian,
            odd: None,
            high: None,
            at_start: true,
        }
    }

    /// Decodes `bytes`, the next part of the input, appending UTF-8 to `out`.
    pub fn decode(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) {
        out.reserve(bytes.len());
        if let Some(first) = self.odd.take() {
            let Some((&second, rest)) = bytes.split_first() else {
                self.odd = Some(first);
                return;
            };
            self.unit(self.join(first, second), out);
            bytes = rest;
        }
        let mut pairs = bytes.chunks_exact(2);
        for pair in &mut pairs {
            let unit = self.join(pair[0], pair[1]);
            // ASCII, the common case, without the surrogate bookkeeping.
            if unit < 0x80 && self.high.is_none() && !self.at_start {
                out.push(unit as u8);
            } else {
                self.unit(unit, out);
            }
        }
        if let [last] = pairs.remainder() {
            self.odd = Some(*last);
        }
    }

    /// Ends the input: a dangling byte or high surrogate becomes U+FFFD.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.odd.take().is_some() || self.high.take().is_some() {
            push_char(char::REPLACEMENT_CHARACTER, out);
        }
    }

    fn join(&self, a: u8, b: u8) -> u16 {
        if self.big_endian {
            u16::from_be_bytes([a, b])
        } else {
            u16::from_le_bytes([a, b])
        }
    }

    fn unit(&mut self, unit: u16, out: &mut Vec<u8>) {
        if std::mem::take(&mut self.at_start) && unit == 0xfeff {
            return;
        }
        if let Some(high) = self.high.take() {
            if (0xdc00..0xe000).contains(&unit) {
                let c = 0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00);
                push_char(
                    char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER),
                    out,
                );
                return;
            }
            push_char(char::REPLACEMENT_CHARACTER, out);
        }
        match unit {
            0xd800..=0xdbff => self.high = Some(unit),
            0xdc00..=0xdfff => push_char(char::REPLACEMENT_CHARACTER, out),
            _ => push_char(
                char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                out,
            ),
        }
    }
}

fn push_char(c: char, out: &mut Vec<u8>) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// `bytes` as UTF-8: decoded when it is UTF-16, without its BOM, else borrowed unchanged.
pub fn to_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match Encoding::detect(bytes) {
        Encoding::Utf8 => bytes.into(),
        Encoding::Utf8Bom => bytes[3..].into(),
        encoding => {
            let mut decoder = Utf16Decoder::new(encoding == Encoding::Utf16Be);
            let mut out = Vec::with_capacity(bytes.len() / 2 + 16);
            decoder.decode(bytes, &mut out);
            decoder.finish(&mut out);
            out.into()
        }
    }
}

/// A reader that hands on its input as UTF-8: the first [`DETECT`] bytes decide, a UTF-16 input
/// is decoded as it is read, a UTF-8 BOM is skipped, anything else passes through unchanged.
pub struct Utf8Reader<R> {
    inner: R,
    state: ReaderState,
    /// Decoded or held bytes not handed out yet, from `pos`.
    pending: Vec<u8>,
    pos: usize,
    raw: Vec<u8>,
    done: bool,
}

enum ReaderState {
    Undecided,
    Plain,
    Utf16(Utf16Decoder),
}

impl<R: Read> Utf8Reader<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Utf8Reader {
            inner,
            state: ReaderState::Undecided,
            pending: Vec::new(),
            pos: 0,
            raw: Vec::new(),
            done: false,
        }
    }

    fn read_raw(&mut self, buf: &mut Vec<u8>, want: usize) -> io::Result<usize> {
        let start = buf.len();
        buf.resize(start + want, 0);
        let n = loop {
            match self.inner.read(&mut buf[start..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    buf.truncate(start);
                    return Err(e);
                }
            }
        };
        buf.truncate(start + n);
        Ok(n)
    }

    fn decide(&mut self) -> io::Result<()> {
        let mut head = Vec::with_capacity(DETECT);
        while head.len() < DETECT {
            let want = DETECT - head.len();
            if self.read_raw(&mut head, want)? == 0 {
                self.done = true;
                break;
            }
        }
        match Encoding::detect(&head) {
            Encoding::Utf8 => {
                self.state = ReaderState::Plain;
                self.pending = head;
            }
            Encoding::Utf8Bom => {
                self.state = ReaderState::Plain;
                self.pending = head.split_off(3);
            }
            encoding => {
                let mut decoder = Utf16Decoder::new(encoding == Encoding::Utf16Be);
                decoder.decode(&head, &mut self.pending);
                if self.done {
                    decoder.finish(&mut self.pending);
                }
                self.state = ReaderState::Utf16(decoder);
            }
        }
        self.pos = 0;
        Ok(())
    }
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if matches!(self.state, ReaderState::Undecided) {
            self.decide()?;
        }
        loop {
            if self.pos < self.pending.len() {
                let n = buf.len().min(self.pending.len() - self.pos);
                buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.done {
                return Ok(0);
            }
            match &mut self.state {
                ReaderState::Plain | ReaderState::Undecided => {
                    // Past the head a UTF-8 input is read straight into the caller's buffer.
                    return self.inner.read(buf);
                }
                ReaderState::Utf16(_) => {
                    let mut raw = std::mem::take(&mut self.raw);
                    raw.clear();
                    let n = self.read_raw(&mut raw, buf.len().max(2))?;
                    self.pending.clear();
                    self.pos = 0;
                    if let ReaderState::Utf16(decoder) = &mut self.state {
                        if n == 0 {
                            self.done = true;
                            decoder.finish(&mut self.pending);
                        } else {
                            decoder.decode(&raw, &mut self.pending);
                        }
                    }
                    self.raw = raw;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        for unit in text.encode_utf16() {
            out.extend_from_slice(&unit.to_le_bytes());
        }
        out
    }

    fn utf16be(text: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xfe, 0xff] } else { Vec::new() };
        for unit in text.encode_utf16() {
            out.extend_from_slice(&unit.to_be_bytes());
        }
        out
    }

    const TEXT: &str = "src/a.ts(3,5): error TS2322: ✖ é 😀\r\nFound 1 error.\r\n";

    #[test]
    fn detects_boms_and_nul_patterns() {
        assert_eq!(Encoding::detect(b"plain\n"), Encoding::Utf8);
        assert_eq!(Encoding::detect(b"\xef\xbb\xbfplain"), Encoding::Utf8Bom);
        assert_eq!(Encoding::detect(&utf16le(TEXT, true)), Encoding::Utf16Le);
        assert_eq!(Encoding::detect(&utf16le(TEXT, false)), Encoding::Utf16Le);
        assert_eq!(Encoding::detect(&utf16be(TEXT, true)), Encoding::Utf16Be);
        assert_eq!(Encoding::detect(&utf16be(TEXT, false)), Encoding::Utf16Be);
        // Binary data with NULs is not taken for text.
        let binary: Vec<u8> = (0..512u32).map(|i| (i * 37 % 256) as u8).collect();
        assert_eq!(Encoding::detect(&binary), Encoding::Utf8);
        // Garbage that starts like a BOM and holds no NUL is no UTF-16.
        assert_eq!(
            Encoding::detect(b"\xff\xfe\xc3\x28 stray bytes \xa0\xa1\nFAIL x\n"),
            Encoding::Utf8
        );
    }

    #[test]
    fn decodes_whatever_the_block_boundaries() {
        for input in [
            utf16le(TEXT, true),
            utf16le(TEXT, false),
            utf16be(TEXT, true),
            utf16be(TEXT, false),
        ] {
            assert_eq!(&*to_utf8(&input), TEXT.as_bytes());
            for size in [1, 2, 3, 5, 7] {
                let mut decoder = Utf16Decoder::new(Encoding::detect(&input) == Encoding::Utf16Be);
                let mut out = Vec::new();
                for chunk in input.chunks(size) {
                    decoder.decode(chunk, &mut out);
                }
                decoder.finish(&mut out);
                assert_eq!(String::from_utf8(out).as_deref(), Ok(TEXT), "size {size}");
            }
            let mut read = String::new();
            Utf8Reader::new(io::BufReader::with_capacity(3, &input[..]))
                .read_to_string(&mut read)
                .expect("reads");
            assert_eq!(read, TEXT);
        }
    }

    #[test]
    fn unpaired_surrogates_and_odd_ends_are_replaced() {
        let mut input = utf16le("a", true);
        input.extend_from_slice(&0xd800u16.to_le_bytes());
        input.extend_from_slice(&utf16le("b", false));
        input.push(b'c');
        assert_eq!(
            String::from_utf8_lossy(&to_utf8(&input)),
            "a\u{fffd}b\u{fffd}"
        );
    }

    #[test]
    fn utf8_passes_through_and_loses_its_bom() {
        assert_eq!(&*to_utf8(b"\xef\xbb\xbfok\n"), b"ok\n");
        let mut read = Vec::new();
        Utf8Reader::new(&b"\xef\xbb\xbfok\n"[..])
            .read_to_end(&mut read)
            .expect("reads");
        assert_eq!(read, b"ok\n");
    }
}
