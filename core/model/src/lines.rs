//! The streaming line reader every summarizer is fed by.
//!
//! A log may be a gigabyte, a single 200 MiB line, binary garbage, or invalid UTF-8; none of these
//! may cost unbounded memory or panic. The reader reads fixed-size blocks, splits them on `\n` with
//! `memchr`, and hands each line to a callback as clean `&str`:
//!
//! - `\r\n` becomes `\n`; a `\r` inside a line (a progress bar redrawing itself) keeps only the
//!   text after the last one, as a terminal would show it;
//! - the timestamp GitHub Actions' raw logs put before every line (`2024-05-01T12:34:56.7890123Z `)
//!   is removed, so that parsers see the tool's own indentation, and so is the one Jenkins'
//!   Timestamper writes (`[2024-05-01T12:34:56.789Z] `);
//! - terminal escape sequences are removed ([`crate::ansi`]), and so are colours in the caret form
//!   `gh run view --log` prints them in (`^[[31m`);
//! - invalid UTF-8 is replaced with U+FFFD;
//! - a line longer than [`MAX_LINE`] bytes is cut there; the rest of it is skipped and counted;
//! - UTF-16 (with or without a BOM) is decoded and a UTF-8 BOM skipped, decided once from the
//!   first [`HEAD`] bytes ([`crate::encoding`]);
//! - what shells, terminals and CI runners wrote around the tool's lines is removed: GitHub
//!   Actions' and GitLab's markers, Docker BuildKit's prefixes, PowerShell's error records and the
//!   lines it cut at the console's width, glyphs garbled by a console code page
//!   ([`crate::wrappers`]).
//!
//! Memory is one read block plus at most one [`MAX_LINE`] carry-over, whatever the input (and the
//! few short lines of a PowerShell record while it is recognised).

use std::io::{self, Read};

use crate::ansi;
use crate::encoding::{Encoding, Utf16Decoder};
use crate::wrappers::{Features, Stage};

/// The longest line handed to a parser, in bytes. No diagnostic line of any tool comes close; a
/// longer line is a minified bundle or a data dump, and its start is all a person would read.
pub const MAX_LINE: usize = 64 * 1024;

/// Size of each read from the input.
const BLOCK: usize = 256 * 1024;

/// How much of the start of an input decides its encoding and what wraps its lines: held until
/// then, so that the decision never depends on how the input was cut into blocks.
pub const HEAD: usize = 64 * 1024;

/// What the reader saw, for callers that want to tell a log from something else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes read.
    pub bytes: u64,
    /// Lines handed to the callback.
    pub lines: u64,
    /// Lines cut at [`MAX_LINE`].
    pub long_lines: u64,
    /// Lines that held invalid UTF-8.
    pub invalid_utf8_lines: u64,
    /// Bytes that no text log holds: NUL and the C0 controls other than tab, newline, carriage
    /// return, form feed and escape.
    pub binary_bytes: u64,
}

impl Stats {
    /// Whether the input looks like binary data rather than a log: more than one byte in a hundred
    /// is a control byte no text holds.
    pub fn looks_binary(&self) -> bool {
        self.bytes > 0 && self.binary_bytes * 100 > self.bytes
    }
}

/// Reads `reader` to its end, calling `on_line` with each cleaned line.
pub fn for_each_line<R: Read>(mut reader: R, mut on_line: impl FnMut(&str)) -> io::Result<Stats> {
    let mut splitter = Splitter::default();
    let mut block = vec![0u8; BLOCK];
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        splitter.push(&block[..n], &mut on_line);
    }
    Ok(splitter.finish(&mut on_line))
}

/// Calls `on_line` with each cleaned line of `text` (the in-memory form of [`for_each_line`]).
/// The text is fed in blocks as a reader's would be: what a block needs of its own (its
/// stripped copy when it is coloured, its decoding) stays the size of a block, in cache, rather
/// than the size of the log.
pub fn for_each_line_in(text: &[u8], mut on_line: impl FnMut(&str)) -> Stats {
    let mut splitter = Splitter::default();
    for block in text.chunks(BLOCK) {
        splitter.push(block, &mut on_line);
    }
    splitter.finish(&mut on_line)
}

/// The cleaned text of `bytes`, lines joined with `\n`: what a summarizer's `sniff` receives.
pub fn clean(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for_each_line_in(bytes, |line| {
        out.push_str(line);
        out.push('\n');
    });
    out
}

/// A push-style line splitter: feed it blocks, it calls back with clean lines.
#[derive(Default)]
pub struct Splitter {
    /// The start of a line that continues in the next block (at most [`MAX_LINE`] bytes).
    carry: Vec<u8>,
    /// Whether the current line already passed [`MAX_LINE`] and its rest is being skipped.
    skipping: bool,
    /// Scratch space for lines that need cleaning.
    scratch: String,
    /// Scratch space for a whole section without its escape sequences.
    section: String,
    /// Scratch space for a line without its caret-form colours.
    caret: String,
    stats: Stats,
    /// The start of the input, until [`HEAD`] bytes of it decide how to read it.
    head: Vec<u8>,
    decided: bool,
    /// Whether a UTF-8 BOM is still to be skipped.
    bom: bool,
    /// The decoder of a UTF-16 input.
    utf16: Option<Utf16Decoder>,
    /// Scratch space for a decoded block.
    decoded: Vec<u8>,
    /// What removes the wrappers around the tool's lines.
    stage: Stage,
}

/// What a block may hold that needs cleaning; checked once per block with `memchr` so that the
/// common case — plain lines — costs nothing more per line.
#[derive(Clone, Copy)]
struct Needs {
    carriage_return: bool,
    escape: bool,
    /// Colours in the caret form (`^[[31m`).
    caret: bool,
}

impl Needs {
    const ALL: Needs = Needs {
        carriage_return: true,
        escape: true,
        caret: true,
    };

    fn of(block: &[u8]) -> Needs {
        Needs {
            carriage_return: memchr::memchr(b'\r', block).is_some(),
            escape: memchr::memchr(0x1b, block).is_some(),
            caret: memchr::memmem::find(block, CARET_ESCAPE).is_some(),
        }
    }
}

impl Splitter {
    /// Feeds the next block of input.
    pub fn push(&mut self, block: &[u8], on_line: &mut impl FnMut(&str)) {
        self.stats.bytes += block.len() as u64;
        if self.decided {
            return self.push_raw(block, on_line);
        }
        if self.head.is_empty() && block.len() >= HEAD {
            self.decide(block);
            return self.push_raw(block, on_line);
        }
        self.head.extend_from_slice(block);
        if self.head.len() >= HEAD {
            let head = std::mem::take(&mut self.head);
            self.decide(&head);
            self.push_raw(&head, on_line);
        }
    }

    /// Decides the encoding and the wrappers from the start of the input.
    fn decide(&mut self, start: &[u8]) {
        self.decided = true;
        let head = &start[..start.len().min(HEAD)];
        let encoding = Encoding::detect(head);
        let features = match encoding {
            Encoding::Utf8 => Features::of(head),
            Encoding::Utf8Bom => {
                self.bom = true;
                Features::of(&head[3..])
            }
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let big_endian = encoding == Encoding::Utf16Be;
                let mut text = Vec::new();
                Utf16Decoder::new(big_endian).decode(head, &mut text);
                self.utf16 = Some(Utf16Decoder::new(big_endian));
                Features::of(&text)
            }
        };
        self.stage = Stage::new(features);
    }

    /// Feeds input bytes once their encoding is known.
    fn push_raw(&mut self, block: &[u8], on_line: &mut impl FnMut(&str)) {
        if let Some(decoder) = &mut self.utf16 {
            let mut decoded = std::mem::take(&mut self.decoded);
            decoded.clear();
            decoder.decode(block, &mut decoded);
            self.push_text(&decoded, on_line);
            self.decoded = decoded;
        } else if std::mem::take(&mut self.bom) {
            self.push_text(block.get(3..).unwrap_or_default(), on_line);
        } else {
            self.push_text(block, on_line);
        }
    }

    /// Feeds the next block of (possibly invalid) UTF-8 text.
    fn push_text(&mut self, block: &[u8], on_line: &mut impl FnMut(&str)) {
        self.stats.binary_bytes += count_binary(block);
        let needs = Needs::of(block);
        let mut start = 0;
        // A line that began in an earlier block ends at this block's first newline.
        if !self.carry.is_empty() || self.skipping {
            let Some(nl) = memchr::memchr(b'\n', block) else {
                if !self.skipping {
                    self.append_carry(block);
                }
                return;
            };
            if !self.skipping {
                self.append_carry(&block[..nl]);
            }
            let carry = std::mem::take(&mut self.carry);
            self.emit(&carry, Needs::ALL, on_line);
            self.carry = carry;
            self.carry.clear();
            self.skipping = false;
            start = nl + 1;
        }
        // The complete lines that follow are validated as UTF-8 in one pass (SIMD); a section that
        // is not valid falls back to line-by-line repair.
        let end = memchr::memrchr(b'\n', &block[start..]).map_or(start, |nl| start + nl + 1);
        match simdutf8::basic::from_utf8(&block[start..end]) {
            Ok(text) => self.emit_valid(text, needs, on_line),
            Err(_) => {
                let section = &block[start..end];
                let mut from = 0;
                for nl in memchr::memchr_iter(b'\n', section) {
                    self.emit_cut(&section[from..nl], needs, on_line);
                    from = nl + 1;
                }
            }
        }
        if end < block.len() {
            self.append_carry(&block[end..]);
        }
    }

    /// Emits the complete lines of `text`, which ends with a newline.
    fn emit_valid(&mut self, text: &str, needs: Needs, on_line: &mut impl FnMut(&str)) {
        if needs.escape && !self.stage.needs_raw() {
            // A coloured section is stripped in one pass, which costs far less than stripping
            // its lines one by one. No escape sequence spans a newline (see `ansi`). Lines cut
            // at a console's width are measured with their escapes, so those go line by line.
            let mut section = std::mem::take(&mut self.section);
            section.clear();
            ansi::strip_into(text, &mut section);
            let plain = Needs {
                escape: false,
                ..needs
            };
            self.emit_valid(&section, plain, on_line);
            self.section = section;
            return;
        }
        let bytes = text.as_bytes();
        // Where the next `\r` and ESC are, found once per occurrence rather than searched for in
        // every line: in a coloured log most lines hold an escape, but searching each short line
        // separately costs more than reading it.
        let find = |byte: u8, from: usize| {
            memchr::memchr(byte, &bytes[from..]).map_or(usize::MAX, |i| from + i)
        };
        let mut next_cr = if needs.carriage_return {
            find(b'\r', 0)
        } else {
            usize::MAX
        };
        let mut next_esc = if needs.escape {
            find(0x1b, 0)
        } else {
            usize::MAX
        };
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', bytes) {
            // Slicing at a newline, which is ASCII, always falls on a char boundary.
            let line = &text[start..nl];
            start = nl + 1;
            let line_needs = Needs {
                carriage_return: next_cr < nl,
                escape: next_esc < nl,
                caret: needs.caret,
            };
            if line_needs.carriage_return {
                next_cr = find(b'\r', start);
            }
            if line_needs.escape {
                next_esc = find(0x1b, start);
            }
            if line.len() > MAX_LINE {
                self.emit_cut(line.as_bytes(), line_needs, on_line);
                continue;
            }
            let line = if line_needs.carriage_return {
                &line[redrawn(line.as_bytes())]
            } else {
                line
            };
            self.stats.lines += 1;
            self.deliver(line, line_needs, on_line);
        }
    }

    /// Emits one line given as bytes, cut at [`MAX_LINE`].
    fn emit_cut(&mut self, line: &[u8], needs: Needs, on_line: &mut impl FnMut(&str)) {
        if line.len() > MAX_LINE {
            self.stats.long_lines += 1;
            self.emit(&line[..MAX_LINE], Needs::ALL, on_line);
        } else {
            self.emit(line, needs, on_line);
        }
    }

    /// Ends the input: emits the last line if it had no newline, and returns the statistics.
    pub fn finish(mut self, on_line: &mut impl FnMut(&str)) -> Stats {
        if !self.decided {
            let head = std::mem::take(&mut self.head);
            self.decide(&head);
            self.push_raw(&head, on_line);
        }
        if let Some(mut decoder) = self.utf16.take() {
            let mut rest = Vec::new();
            decoder.finish(&mut rest);
            self.push_text(&rest, on_line);
        }
        if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            self.emit(&carry, Needs::ALL, on_line);
        }
        self.stage.finish(on_line);
        self.stats
    }

    fn append_carry(&mut self, bytes: &[u8]) {
        let room = MAX_LINE - self.carry.len();
        if bytes.len() > room {
            self.carry.extend_from_slice(&bytes[..room]);
            self.skipping = true;
            self.stats.long_lines += 1;
        } else {
            self.carry.extend_from_slice(bytes);
        }
    }

    fn emit(&mut self, line: &[u8], needs: Needs, on_line: &mut impl FnMut(&str)) {
        let line = if needs.carriage_return {
            &line[redrawn(line)]
        } else {
            line
        };
        self.stats.lines += 1;
        match std::str::from_utf8(line) {
            Ok(text) => self.deliver(text, needs, on_line),
            Err(_) => {
                self.stats.invalid_utf8_lines += 1;
                let text = String::from_utf8_lossy(line).into_owned();
                self.deliver(&text, needs, on_line);
            }
        }
    }

    /// Hands a line to the callback, without a CI timestamp and escape sequences. Inlined into
    /// the loop over a section's lines, where a call per line would cost more than the checks.
    #[inline(always)]
    fn deliver(&mut self, text: &str, needs: Needs, on_line: &mut impl FnMut(&str)) {
        // A CI timestamp starts with a digit; a BOM (GitHub Actions starts each step's log with
        // one) with a byte above ASCII. Both end right before the tool's text, on a char boundary.
        let text = match text.as_bytes().first() {
            Some(&first) if first.is_ascii_digit() || first >= 0x80 || first == b'[' => {
                &text[ci_prefix_len(text.as_bytes())..]
            }
            _ => text,
        };
        if needs.caret && has_caret_escapes(text) {
            let mut caret = std::mem::take(&mut self.caret);
            caret.clear();
            strip_caret_escapes_into(text, &mut caret);
            self.deliver_unescaped(&caret, needs, on_line);
            self.caret = caret;
            return;
        }
        self.deliver_unescaped(text, needs, on_line);
    }

    /// Hands a line to the stage without its escape sequences.
    #[inline(always)]
    fn deliver_unescaped(&mut self, text: &str, needs: Needs, on_line: &mut impl FnMut(&str)) {
        if needs.escape && ansi::has_escapes(text) {
            self.scratch.clear();
            ansi::strip_into(text, &mut self.scratch);
            self.stage.line(&self.scratch, text, on_line);
        } else {
            self.stage.line(text, text, on_line);
        }
    }
}

/// How `gh run view --log` prints an escape sequence: its output is sanitized for the terminal,
/// and the escape byte becomes the two characters `^[`, so a colour reaches a saved log as
/// `^[[31m`.
const CARET_ESCAPE: &[u8] = b"^[[";

/// Whether `text` holds a colour in the caret form.
fn has_caret_escapes(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), CARET_ESCAPE).is_some()
}

/// Appends `text` to `out` without its caret-form colours and line erasures (`^[[1;31m`,
/// `^[[0K`). Only those two are taken: a caret followed by brackets is also how a regular
/// expression starts (`^[[:alpha:]]`, `^[[A-Z]`), and those are left alone.
fn strip_caret_escapes_into(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let (mut copied, mut at) = (0, 0);
    while let Some(found) = memchr::memmem::find(&bytes[at..], CARET_ESCAPE) {
        let start = at + found;
        let params = bytes[start + CARET_ESCAPE.len()..]
            .iter()
            .take_while(|&&b| b.is_ascii_digit() || b == b';')
            .count();
        let last = start + CARET_ESCAPE.len() + params;
        if matches!(bytes.get(last), Some(b'm' | b'K')) {
            // Every byte of the sequence is ASCII: both ends are char boundaries.
            out.push_str(&text[copied..start]);
            copied = last + 1;
            at = last + 1;
        } else {
            at = start + 1;
        }
    }
    out.push_str(&text[copied..]);
}

/// The length of what a CI runner put before a line: a BOM, a timestamp and GitLab's stream
/// marker, each when present; or the bracketed time Jenkins' Timestamper writes.
fn ci_prefix_len(line: &[u8]) -> usize {
    if line.first() == Some(&b'[') {
        return jenkins_timestamp_len(line);
    }
    let bom = bom_len(line);
    match ci_timestamp_len(&line[bom..]) {
        0 => bom,
        n => bom + n + gitlab_stream_len(&line[bom + n..]),
    }
}

/// The part of a line a terminal would show, as a range of `line`: without a trailing `\r`
/// (CRLF), and after the last `\r` inside it (a progress bar redrawing itself) unless that part is
/// empty. The range starts and ends next to a `\r` or at an end, so it is a char boundary in text.
fn redrawn(line: &[u8]) -> std::ops::Range<usize> {
    let mut end = line.len();
    if line.last() == Some(&b'\r') {
        end -= 1;
    }
    let Some(cr) = memchr::memrchr(b'\r', &line[..end]) else {
        return 0..end;
    };
    if cr + 1 < end {
        return cr + 1..end;
    }
    match memchr::memrchr(b'\r', &line[..cr]) {
        Some(prev) => prev + 1..cr,
        None => 0..cr,
    }
}

/// The length of a byte order mark at the start of `line`, as UTF-8 or as a console code page
/// (cp437, cp850, cp1252) showed it before the log was saved again; 0 when there is none.
pub(crate) fn bom_len(line: &[u8]) -> usize {
    const FORMS: [&[u8]; 4] = [
        "\u{feff}".as_bytes(),
        "∩╗┐".as_bytes(),
        "´╗┐".as_bytes(),
        "ï»¿".as_bytes(),
    ];
    // One comparison for a line that starts with none of their first bytes.
    if !matches!(line.first(), Some(0xef | 0xe2 | 0xc2 | 0xc3)) {
        return 0;
    }
    FORMS
        .iter()
        .find(|form| line.starts_with(form))
        .map_or(0, |form| form.len())
}

/// The length of the timestamp a CI runner put before a line, with its one space
/// (`2024-05-01T12:34:56.7890123Z `, as in GitHub Actions' raw logs), or 0. The shape is checked
/// exactly, so that a line a tool printed that merely starts with a date is left alone.
pub(crate) fn ci_timestamp_len(line: &[u8]) -> usize {
    const SHAPE: &[u8; 19] = b"dddd-dd-ddTdd:dd:dd";
    if line.len() < SHAPE.len() + 1 || !line[0].is_ascii_digit() {
        return 0;
    }
    let shaped = SHAPE.iter().zip(line).all(|(&want, &got)| {
        if want == b'd' {
            got.is_ascii_digit()
        } else {
            got == want
        }
    });
    if !shaped {
        return 0;
    }
    let mut end = SHAPE.len();
    if line.get(end) == Some(&b'.') {
        end += 1;
        while line.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    if line.get(end) != Some(&b'Z') {
        return 0;
    }
    end += 1;
    if line.get(end) == Some(&b' ') {
        end += 1;
    }
    end
}

/// The length of the time Jenkins' Timestamper writes before each line of a Pipeline's console
/// (`[2024-05-01T12:34:56.789Z] `), with its one space, or 0.
fn jenkins_timestamp_len(line: &[u8]) -> usize {
    let time = ci_timestamp_len(&line[1..]);
    // The time ends in `Z`, right before the bracket.
    if time == 0 || line[time] != b'Z' || line.get(1 + time) != Some(&b']') {
        return 0;
    }
    let end = 2 + time;
    end + usize::from(line.get(end) == Some(&b' '))
}

/// The length of the stream marker GitLab's runner writes after its timestamp (`00O `, `01E `,
/// `00O+` for a line that continues the previous one), or 0. Continued lines are handed on as
/// lines of their own.
fn gitlab_stream_len(rest: &[u8]) -> usize {
    match rest {
        [a, b, b'O' | b'E', b' ' | b'+', ..] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit() => 4,
        _ => 0,
    }
}

/// Counts the bytes no text log holds (see [`Stats::binary_bytes`]): control bytes other than
/// whitespace and ESC. Each is a sum of byte comparisons without a branch, over chunks small
/// enough for a `u8` counter, which the compiler turns into vector compares; the allowed controls
/// are counted apart and taken off, which vectorizes where one combined test does not.
fn count_binary(block: &[u8]) -> u64 {
    const CHUNK: usize = 128;
    let count = |chunk: &[u8]| {
        let mut controls = 0u8;
        let mut allowed = 0u8;
        for &b in chunk {
            controls = controls.wrapping_add(u8::from(b < 0x20));
            allowed = allowed.wrapping_add(
                u8::from(b == b'\t')
                    + u8::from(b == b'\n')
                    + u8::from(b == b'\r')
                    + u8::from(b == 0x0c)
                    + u8::from(b == 0x1b),
            );
        }
        u64::from(controls - allowed)
    };
    let mut chunks = block.chunks_exact(CHUNK);
    let whole: u64 = (&mut chunks).map(count).sum();
    whole + count(chunks.remainder())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8]) -> (Vec<String>, Stats) {
        let mut out = Vec::new();
        let stats = for_each_line_in(input, |l| out.push(l.to_owned()));
        (out, stats)
    }

    #[test]
    fn splits_crlf_strips_ansi_and_redraws() {
        let (lines, stats) = lines_of(b"a\r\n\x1b[31mb\x1b[0m\nprogress 10%\rprogress 100%\nlast");
        assert_eq!(lines, ["a", "b", "progress 100%", "last"]);
        assert_eq!(stats.lines, 4);
    }

    #[test]
    fn invalid_utf8_is_replaced_and_counted() {
        let (lines, stats) = lines_of(b"ok\n\xff\xfe bad\n");
        assert_eq!(lines, ["ok", "\u{fffd}\u{fffd} bad"]);
        assert_eq!(stats.invalid_utf8_lines, 1);
    }

    #[test]
    fn long_line_is_cut_across_blocks() {
        let mut input = vec![b'x'; MAX_LINE * 3];
        input.extend_from_slice(b"\nnext\n");
        // Feed in small pieces so the line crosses many blocks.
        let mut splitter = Splitter::default();
        let mut out = Vec::new();
        let mut cb = |l: &str| out.push(l.len());
        for chunk in input.chunks(1000) {
            splitter.push(chunk, &mut cb);
        }
        let stats = splitter.finish(&mut cb);
        assert_eq!(out, [MAX_LINE, 4]);
        assert_eq!(stats.long_lines, 1);
    }

    #[test]
    fn line_split_across_blocks_is_joined() {
        let mut splitter = Splitter::default();
        let mut out = Vec::new();
        let mut cb = |l: &str| out.push(l.to_owned());
        splitter.push(b"hel", &mut cb);
        splitter.push(b"lo\nwor", &mut cb);
        splitter.push(b"ld", &mut cb);
        splitter.finish(&mut cb);
        assert_eq!(out, ["hello", "world"]);
    }

    /// Whatever the block boundaries, the same input gives the same lines: the fast path (whole
    /// sections validated at once) and the slow one (line by line, carried across blocks) agree.
    #[test]
    fn lines_do_not_depend_on_block_boundaries() {
        let mut input = Vec::new();
        for i in 0..200u32 {
            input.extend_from_slice(format!("line {i} ✓ ünïcödé\r\n").as_bytes());
            if i % 7 == 0 {
                input.extend_from_slice(b"\x1b[31mred\x1b[0m text\n");
            }
            if i % 11 == 0 {
                input.extend_from_slice(b"bad \xff\xfe bytes\n");
            }
            if i % 13 == 0 {
                input.extend_from_slice(b"50%\r100%\n");
            }
            if i % 17 == 0 {
                input.extend_from_slice(b"^[[31mcaret^[[0m red\n");
            }
        }
        input.extend_from_slice("no newline at the end é".as_bytes());
        let (whole, whole_stats) = lines_of(&input);
        for size in [1, 2, 3, 5, 64, 1000, 4096] {
            let mut splitter = Splitter::default();
            let mut out = Vec::new();
            let mut cb = |l: &str| out.push(l.to_owned());
            for chunk in input.chunks(size) {
                splitter.push(chunk, &mut cb);
            }
            let stats = splitter.finish(&mut cb);
            assert_eq!(out, whole, "block size {size}");
            assert_eq!(stats.lines, whole_stats.lines, "block size {size}");
            assert_eq!(
                stats.invalid_utf8_lines, whole_stats.invalid_utf8_lines,
                "block size {size}"
            );
        }
        assert!(whole.contains(&"red text".to_owned()));
        assert!(whole.contains(&"100%".to_owned()));
        assert!(whole.contains(&"caret red".to_owned()));
        assert_eq!(
            whole.last().map(String::as_str),
            Some("no newline at the end é")
        );
    }

    #[test]
    fn github_actions_timestamps_are_removed_keeping_indentation() {
        let (lines, _) = lines_of(
            b"2024-05-01T12:34:56.7890123Z   \xe2\x97\x8f a\n2024-05-01T12:34:56Z \x1b[31mred\x1b[0m\n2024-05-01 is a date\n12   const x = 1;\n",
        );
        assert_eq!(
            lines,
            ["  ● a", "red", "2024-05-01 is a date", "12   const x = 1;"]
        );
    }

    /// Jenkins' Timestamper (`timestamps()` in a Pipeline) writes the time in brackets; a line
    /// that only starts with a bracket keeps it.
    #[test]
    fn jenkins_timestamps_are_removed_keeping_indentation() {
        let (lines, _) = lines_of(
            b"[2022-01-12T19:00:00.927Z] [Pipeline] Start of Pipeline\n[2022-01-12T19:00:01.000Z]   40 passing (2s)\n[INFO] BUILD SUCCESS\n[2022-01-12] a date\n",
        );
        assert_eq!(
            lines,
            [
                "[Pipeline] Start of Pipeline",
                "  40 passing (2s)",
                "[INFO] BUILD SUCCESS",
                "[2022-01-12] a date"
            ]
        );
    }

    /// GitLab's runner (17 and later, `FF_TIMESTAMPS`) writes a timestamp and a stream marker.
    #[test]
    fn gitlab_timestamps_and_stream_markers_are_removed() {
        let (lines, _) = lines_of(
            b"2024-05-14T11:19:20.000000Z 00O $ npm test\n2024-05-14T11:19:21.000000Z 01E+  FAIL src/a.test.ts\n2024-05-14T11:19:21Z 0 passed\n",
        );
        assert_eq!(lines, ["$ npm test", "  FAIL src/a.test.ts", "0 passed"]);
    }

    /// GitHub Actions starts each step's log with a BOM; a console may have garbled it.
    #[test]
    fn boms_before_ci_timestamps_are_removed() {
        let (lines, _) = lines_of(
            "\u{feff}2024-05-01T12:34:56.7890123Z ##[group]Run npm test\n∩╗┐2024-05-01T12:34:57.1Z ok\n✖ 1 problem\n".as_bytes(),
        );
        assert_eq!(lines, ["##[group]Run npm test", "ok", "✖ 1 problem"]);
    }

    /// `gh run view --log` prints colours as `^[[31m`; a regular expression keeps its brackets.
    #[test]
    fn caret_form_colours_are_removed() {
        let (lines, _) = lines_of(
            b"ci\tTest\t2026-08-11T13:39:30.5Z ^[[36;1mnpm test^[[0m\n^[[2m Test Files ^[[22m ^[[1m^[[31m1 failed^[[39m^[[22m\ngrep '^[[:alpha:]]' ^[[A-Z] ^[[\n",
        );
        assert_eq!(
            lines,
            [
                "##[group]Job: ci",
                "npm test",
                " Test Files  1 failed",
                "grep '^[[:alpha:]]' ^[[A-Z] ^[[",
            ]
        );
    }

    #[test]
    fn binary_input_is_recognised() {
        let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
        let (_, stats) = lines_of(&garbage);
        assert!(stats.looks_binary());
        let (_, stats) = lines_of(b"plain text\twith tab\n");
        assert!(!stats.looks_binary());
    }

    /// A log in memory is read in blocks: its lines are those of the log read at once, whatever
    /// straddles a block's seam (a colour, a `\r` redraw, a character of several bytes).
    #[test]
    fn a_log_in_memory_reads_the_same_in_blocks() {
        // The first seam falls inside a colour; the next lines' escapes, redraws and `é` fall
        // on the others wherever they may.
        let mut text = b"a\n".repeat((BLOCK - 1) / 2);
        let mut n = text.len() / 2;
        while text.len() < 3 * BLOCK {
            let line = format!(
                "\x1b[31mé{n}\x1b[0m {}\rprogress ✓ {n}\r\n",
                "x".repeat(n % 97)
            );
            text.extend_from_slice(line.as_bytes());
            n += 1;
        }
        let mut whole = Vec::new();
        let mut splitter = Splitter::default();
        splitter.push(&text, &mut |line: &str| whole.push(line.to_owned()));
        let whole_stats = splitter.finish(&mut |line: &str| whole.push(line.to_owned()));
        let (blocks, stats) = lines_of(&text);
        assert_eq!(blocks.len(), n);
        assert_eq!(blocks, whole);
        assert_eq!(stats, whole_stats);
    }

    /// Every byte value, at every place in a chunk and across the chunks' seams, is counted as
    /// the plain definition counts it.
    #[test]
    fn binary_bytes_are_counted_exactly() {
        let plain = |block: &[u8]| {
            block
                .iter()
                .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
                .count() as u64
        };
        let all: Vec<u8> = (0..=255u8).collect();
        for len in [0, 1, 31, 127, 128, 129, 255, 256, 1000] {
            let block: Vec<u8> = all
                .iter()
                .cycle()
                .skip(len % 7)
                .take(len)
                .copied()
                .collect();
            assert_eq!(count_binary(&block), plain(&block), "length {len}");
        }
        let controls = vec![0x01u8; 1000];
        assert_eq!(count_binary(&controls), 1000);
        assert_eq!(count_binary(&vec![b'\n'; 1000]), 0);
    }

    #[test]
    fn multibyte_char_cut_at_max_line_is_replaced_not_panicking() {
        let mut input = vec![b'a'; MAX_LINE - 1];
        input.extend_from_slice("é".as_bytes());
        input.push(b'\n');
        let (lines, _) = lines_of(&input);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].ends_with('\u{fffd}'));
    }
}
