//! Draining a command's stdout and stderr into its log, a line at a time, in arrival order.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Write};

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStderr, ChildStdout};
use tokio::sync::oneshot;

/// The size of each read from a pipe.
const READ_BUFFER: usize = 64 * 1024;

/// What [`drain`] wrote.
pub(super) struct Drained {
    /// Every byte the tool printed, kept or not.
    pub(super) bytes: u64,
    pub(super) error: Option<io::Error>,
}

/// Where the output goes: the log file, whole or, with a limit, its first half as it arrives and
/// its last half at the end (see [`RunExtras::log_limit`](super::RunExtras::log_limit)).
pub(super) struct LogSink {
    file: File,
    /// How many more bytes go straight to the file; `u64::MAX` without a limit.
    head_left: u64,
    /// The last bytes, once the head is full.
    tail: VecDeque<u8>,
    tail_cap: usize,
    /// Bytes neither in the head nor in the tail.
    dropped: u64,
}

impl LogSink {
    pub(super) fn new(file: File, limit: Option<u64>) -> LogSink {
        let (head, tail_cap) = match limit {
            Some(limit) => {
                let tail = usize::try_from(limit / 2).unwrap_or(usize::MAX);
                (limit - limit / 2, tail)
            }
            None => (u64::MAX, 0),
        };
        LogSink {
            file,
            head_left: head,
            tail: VecDeque::new(),
            tail_cap,
            dropped: 0,
        }
    }

    fn write(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        if self.head_left > 0 {
            let n = usize::try_from(self.head_left)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            self.file.write_all(&bytes[..n])?;
            self.head_left -= n as u64;
            bytes = &bytes[n..];
        }
        if bytes.is_empty() {
            return Ok(());
        }
        if bytes.len() >= self.tail_cap {
            let keep = &bytes[bytes.len() - self.tail_cap..];
            self.dropped += (self.tail.len() + bytes.len() - keep.len()) as u64;
            self.tail.clear();
            self.tail.extend(keep);
            return Ok(());
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.dropped += overflow as u64;
        self.tail.extend(bytes);
        Ok(())
    }

    /// Writes the tail, after a line saying what was left out, and flushes.
    fn finish(&mut self) -> io::Result<()> {
        if self.dropped > 0 {
            let note = format!(
                "\n[verdict: {} bytes of output left out here; the log keeps the first and last {} bytes]\n",
                self.dropped, self.tail_cap
            );
            self.file.write_all(note.as_bytes())?;
        }
        let (front, back) = self.tail.as_slices();
        self.file.write_all(front)?;
        self.file.write_all(back)?;
        self.tail = VecDeque::new();
        self.file.flush()
    }
}

/// The longest part of a line held back until its end arrives (see [`drain`]); a longer one is
/// written as it is.
const MAX_PARTIAL_LINE: usize = 64 * 1024;

/// A stream's unfinished line.
#[derive(Default)]
struct Partial {
    bytes: Vec<u8>,
    /// Part of this line was written already (it outgrew [`MAX_PARTIAL_LINE`]: output without line
    /// ends, binary or a progress bar): the rest need not wait for the other stream either.
    split: bool,
}

/// Writes what stream `from` (0 stdout, 1 stderr) sent to `sink` up to its last line end, and
/// keeps the rest of the line in `partial[from]` until it ends: the other stream's lines then
/// never land inside it.
fn write_lines(
    sink: &mut LogSink,
    partial: &mut [Partial; 2],
    from: usize,
    bytes: &[u8],
) -> io::Result<()> {
    let other = &mut partial[1 - from];
    if other.split && !other.bytes.is_empty() {
        // Already split: keep the order in which the bytes came.
        sink.write(&other.bytes)?;
        other.bytes.clear();
    }
    let pending = &mut partial[from];
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => {
            if !pending.bytes.is_empty() {
                sink.write(&pending.bytes)?;
                pending.bytes.clear();
            }
            sink.write(&bytes[..=last])?;
            pending.bytes.extend_from_slice(&bytes[last + 1..]);
            pending.split = false;
        }
        None => pending.bytes.extend_from_slice(bytes),
    }
    if pending.bytes.len() >= MAX_PARTIAL_LINE {
        sink.write(&pending.bytes)?;
        pending.bytes.clear();
        pending.split = true;
    }
    Ok(())
}

/// Copies stdout and stderr to `sink` as they arrive until both close or `stop` fires, a line at
/// a time: a stream's unfinished line waits for its end, so that what the other stream sends
/// meanwhile never splits it (libtest's `test x ... ` on stdout, waiting for its result, once took
/// cargo's `error: test failed` from stderr into the same line, and the crash it reported was
/// lost). A stream's last line without a line end is written once both streams have closed. A
/// write error is remembered and the pipes are still drained (discarding), so the tool never
/// blocks.
pub(super) async fn drain(
    mut stdout: Option<ChildStdout>,
    mut stderr: Option<ChildStderr>,
    mut sink: LogSink,
    mut stop: oneshot::Receiver<()>,
) -> Drained {
    let mut out_buf = vec![0u8; READ_BUFFER];
    let mut err_buf = vec![0u8; READ_BUFFER];
    let mut drained = Drained {
        bytes: 0,
        error: None,
    };
    // The unfinished line of stdout and of stderr.
    let mut partial: [Partial; 2] = [Partial::default(), Partial::default()];
    while stdout.is_some() || stderr.is_some() {
        // Standard output first when both have data waiting: what a tool wrote there before a
        // line of standard error is then read before it (a `harness = false` test's output
        // stays before cargo's `test failed`). Standard error can still be read late.
        let (read, from_stdout) = tokio::select! {
            biased;
            _ = &mut stop => break,
            read = read_some(&mut stdout, &mut out_buf) => (read, true),
            read = read_some(&mut stderr, &mut err_buf) => (read, false),
        };
        let buf = if from_stdout { &out_buf } else { &err_buf };
        let from = usize::from(!from_stdout);
        match read {
            Ok(0) | Err(_) => {
                if from_stdout {
                    stdout = None;
                } else {
                    stderr = None;
                }
                // Its unfinished line waits for the end: written now, the other stream's next
                // line (already sent, but not read yet) would run on from it.
            }
            Ok(n) => {
                if drained.error.is_none() {
                    match write_lines(&mut sink, &mut partial, from, &buf[..n]) {
                        Ok(()) => drained.bytes += n as u64,
                        Err(error) => drained.error = Some(error),
                    }
                }
            }
        }
    }
    for pending in &partial {
        if drained.error.is_none()
            && !pending.bytes.is_empty()
            && let Err(error) = sink.write(&pending.bytes)
        {
            drained.error = Some(error);
        }
    }
    if drained.error.is_none()
        && let Err(error) = sink.finish()
    {
        drained.error = Some(error);
    }
    drained
}

/// Reads from a pipe that may already be closed (then never resolves, so `select!` ignores it).
async fn read_some<R: tokio::io::AsyncRead + Unpin>(
    pipe: &mut Option<R>,
    buf: &mut [u8],
) -> io::Result<usize> {
    match pipe {
        Some(pipe) => pipe.read(buf).await,
        None => std::future::pending().await,
    }
}
