//! The server's stdio transport: the SDK's line transport, with an answer for a message too large
//! to read.
//!
//! The SDK reads one JSON-RPC message per line and drops a line longer than
//! [`MAX_MESSAGE`] without holding it (its own bound) — but silently, so the client that sent it
//! waits for an answer for ever. [`LineGuard`] sits between stdin and the SDK and watches the
//! lines go by: it keeps no more of each than its first [`HEAD`] bytes, and when a line ends
//! longer than the SDK's limit, it tells [`Bounded`], which answers with a JSON-RPC error
//! (`-32600`, invalid request) before the next message is served. The error carries the request's
//! id when the line's first bytes name it (`{"jsonrpc":"2.0","id":7,…` as every client writes
//! it), else `null`, as JSON-RPC 2.0 answers a request whose id cannot be read.

use std::pin::Pin;
use std::task::{Context, Poll};

use rmcp::model::{ErrorData, NumberOrString, RequestId};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

/// The longest message (one line, its line end included) the server reads: the SDK's own limit.
pub(crate) const MAX_MESSAGE: usize = DEFAULT_MAX_LINE_LENGTH;

/// How much of each line is kept to find its id in.
const HEAD: usize = 4096;

/// A line that was too long, and the id its first bytes named.
#[derive(Debug, PartialEq)]
pub(crate) struct Rejected {
    id: Option<RequestId>,
    bytes: u64,
}

/// Counts the bytes of each line read through it and reports a line longer than
/// [`MAX_MESSAGE`]; the bytes themselves pass through unchanged (the SDK drops that line).
pub(crate) struct LineGuard<R> {
    inner: R,
    /// The bytes of the current line so far, its line end not yet seen.
    line: u64,
    head: Vec<u8>,
    rejected: mpsc::UnboundedSender<Rejected>,
}

impl<R> LineGuard<R> {
    pub(crate) fn new(inner: R, rejected: mpsc::UnboundedSender<Rejected>) -> LineGuard<R> {
        LineGuard {
            inner,
            line: 0,
            head: Vec::with_capacity(HEAD),
            rejected,
        }
    }

    /// Accounts for `bytes`, just read.
    fn watch(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let part = &bytes[..end.map_or(bytes.len(), |at| at + 1)];
            let room = HEAD.saturating_sub(self.head.len()).min(part.len());
            self.head.extend_from_slice(&part[..room]);
            self.line += part.len() as u64;
            bytes = &bytes[part.len()..];
            if end.is_some() {
                if self.line > MAX_MESSAGE as u64 {
                    let _ = self.rejected.send(Rejected {
                        id: request_id(&self.head),
                        bytes: self.line,
                    });
                }
                self.line = 0;
                self.head.clear();
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineGuard<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.watch(&buf.filled()[before..]);
        }
        polled
    }
}

/// The SDK's transport on a [`LineGuard`]ed input, answering each rejected line.
pub(crate) struct Bounded<R: AsyncRead + Unpin, W: AsyncWrite> {
    inner: AsyncRwTransport<RoleServer, LineGuard<R>, W>,
    rejected: mpsc::UnboundedReceiver<Rejected>,
}

/// The transport on `read` and `write` (stdin and stdout).
pub(crate) fn bounded<R, W>(read: R, write: W) -> Bounded<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (sender, rejected) = mpsc::unbounded_channel();
    Bounded {
        inner: AsyncRwTransport::new_server(LineGuard::new(read, sender), write)
            .with_max_line_length(MAX_MESSAGE),
        rejected,
    }
}

/// The error answering a rejected line.
fn answer(rejected: Rejected) -> TxJsonRpcMessage<RoleServer> {
    let error = ErrorData::invalid_request(
        format!(
            "the message is {} bytes long, over the {} MiB verdict reads in one message, and was \
             skipped; give a large log as `path` (a file in the workspace) rather than as `text`",
            rejected.bytes,
            MAX_MESSAGE / (1024 * 1024)
        ),
        Some(json!({ "bytes": rejected.bytes, "limit": MAX_MESSAGE })),
    );
    TxJsonRpcMessage::<RoleServer>::error(error, rejected.id)
}

impl<R, W> Transport<RoleServer> for Bounded<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let Bounded { inner, rejected } = self;
        loop {
            // The SDK's read is cancel safe: a line half read is kept for the next call.
            let received = tokio::select! {
                biased;
                Some(line) = rejected.recv() => Err(line),
                message = inner.receive() => Ok(message),
            };
            match received {
                Err(line) => {
                    if inner.send(answer(line)).await.is_err() {
                        return None;
                    }
                }
                Ok(message) => {
                    if message.is_none() {
                        // The input ended: answer what was rejected just before.
                        while let Ok(line) = rejected.try_recv() {
                            let _ = inner.send(answer(line)).await;
                        }
                    }
                    return message;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// The `id` of the JSON object whose first bytes are `head`, when one of its members before the
/// cut is `"id"` with a number or a string; `None` otherwise.
fn request_id(head: &[u8]) -> Option<RequestId> {
    let mut scan = Scan { bytes: head, at: 0 };
    scan.skip_space();
    if scan.bytes[scan.at..].starts_with("\u{feff}".as_bytes()) {
        scan.at += 3;
        scan.skip_space();
    }
    scan.eat(b'{')?;
    loop {
        scan.skip_space();
        let key = scan.string()?;
        scan.skip_space();
        scan.eat(b':')?;
        scan.skip_space();
        if key == "id" {
            return match scan.peek()? {
                b'"' => Some(NumberOrString::String(scan.string()?.into())),
                _ => {
                    let number = scan.token();
                    let id = std::str::from_utf8(number).ok()?.parse::<i64>().ok()?;
                    // A number cut by the end of the head is not the id.
                    scan.peek()?;
                    Some(NumberOrString::Number(id))
                }
            };
        }
        scan.skip_value()?;
        scan.skip_space();
        match scan.peek()? {
            b',' => scan.at += 1,
            _ => return None,
        }
    }
}

/// A cursor over the first bytes of a JSON text.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// A string, its escapes decoded.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.skip_string()?;
        serde_json::from_slice(&self.bytes[start..self.at]).ok()
    }

    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    /// A number or a literal (`true`, `null`): up to the next delimiter.
    fn token(&mut self) -> &[u8] {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
        {
            self.at += 1;
        }
        &self.bytes[start..self.at]
    }

    /// Any value, nested ones whole.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => self.skip_string()?,
                        b'{' | b'[' => {
                            depth += 1;
                            self.at += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            self.at += 1;
                            if depth == 0 {
                                return Some(());
                            }
                        }
                        _ => self.at += 1,
                    }
                }
            }
            _ => {
                self.token();
                Some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(head: &str, expect: Option<RequestId>) {
        assert_eq!(request_id(head.as_bytes()), expect, "{head}");
    }

    #[test]
    fn the_id_is_read_from_the_first_bytes() {
        check(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"text":"xx"#,
            Some(NumberOrString::Number(7)),
        );
        check(
            r#"{ "method": "tools/call", "jsonrpc": "2.0", "id": "a\"b", "params": {"#,
            Some(NumberOrString::String("a\"b".into())),
        );
        check(
            r#"{"params":{"id":3,"x":[1,{"id":4}]},"id":5,"method":"m"}"#,
            Some(NumberOrString::Number(5)),
        );
        // An id cut by the end of what was kept, or after the cut, is not known.
        check(r#"{"jsonrpc":"2.0","id":12"#, None);
        check(r#"{"jsonrpc":"2.0","params":{"text":"xxxx"#, None);
        check(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#, None);
        check("xxxxxxxx", None);
    }

    #[test]
    fn only_lines_over_the_limit_are_reported() {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let mut guard = LineGuard::new(tokio::io::empty(), sender);
        guard.watch(b"{\"id\":1}\n{\"id\":2,\"text\":\"");
        assert!(receiver.try_recv().is_err());
        let chunk = vec![b'x'; 1024 * 1024];
        for _ in 0..MAX_MESSAGE / chunk.len() {
            guard.watch(&chunk);
        }
        guard.watch(b"\"}\n{\"id\":3}\n");
        assert_eq!(
            receiver.try_recv().ok().map(|r| r.id),
            Some(Some(NumberOrString::Number(2)))
        );
        assert!(receiver.try_recv().is_err());
        assert!(guard.head.is_empty() && guard.line == 0);
    }
}
