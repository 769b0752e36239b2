//! Newline-delimited JSON over any byte stream: stdio, TCP, a pipe.
//!
//! One frame per line. Lines are read through a fixed buffer with a cap: a line over the limit
//! is discarded as it streams by, reported as [`Incoming::TooLarge`], and reading goes on with
//! the next line. A trailing `\r` is dropped and blank lines are skipped.
//!
//! The two directions end apart. The end of input (or a read error) ends delivery, so listeners
//! are dropped, but frames can still be sent until [`NdjsonPort::close`], the last drop, or a
//! write error: `cat requests | host` still gets its replies.
//!
//! Frames wait in a queue bounded by bytes ([`Limits::max_queued_bytes`]); over it the port
//! stops writing at once (a slow consumer) and [`NdjsonPort::close_reason`] says so. Lines
//! read and not yet taken are bounded too ([`Limits::max_inbound_bytes`]): over it the port
//! reads no further until the consumer takes some.

use std::io;
use std::sync::Arc;

use super::hub::{Hub, hub_port};
use super::queue::{Next, OutQueue};
use super::{
    CloseReason, FramePort, FrameTooLarge, Incoming, Limits, Listener, Outgoing, SendError,
    Subscription,
};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter,
};

/// The read buffer's size: lines longer than this stream through it.
const READ_BUFFER: usize = 64 * 1024;

/// How an [`NdjsonPort`] reads and writes.
#[derive(Clone, Debug, Default)]
pub struct NdjsonOptions {
    limits: Limits,
}

impl NdjsonOptions {
    /// The size limit and the queue bound, as one setting shared with what makes the frames.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The largest line accepted or sent, in bytes, without its line break.
    pub fn max_frame_size(mut self, bytes: usize) -> Self {
        self.limits.max_frame_size = bytes;
        self
    }

    /// The most bytes queued for the peer before the port stops as a slow consumer's.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_queued_bytes = bytes;
        self
    }

    /// The most bytes of lines read and not yet taken before the port stops reading.
    pub fn max_inbound_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_inbound_bytes = bytes;
        self
    }
}

/// A port that writes and reads one JSON frame per line.
///
/// Clones are the same port. Must be made within a Tokio runtime: reading and writing run on
/// tasks of their own.
#[derive(Clone, Debug)]
pub struct NdjsonPort {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    hub: Arc<Hub>,
    queue: Arc<OutQueue>,
    max_frame_size: usize,
}

impl NdjsonPort {
    /// A port over one duplex stream, such as a `TcpStream`.
    pub fn new<S>(stream: S, options: &NdjsonOptions) -> Self
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (reader, writer) = tokio::io::split(stream);
        Self::from_parts(reader, writer, options)
    }

    /// A port over separate halves, such as stdin and stdout.
    pub fn from_parts<R, W>(reader: R, writer: W, options: &NdjsonOptions) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let limits = options.limits;
        let hub = Hub::bounded(limits.max_inbound_bytes);
        let queue = Arc::new(OutQueue::new(limits.queue_bound()));
        tokio::spawn(read_frames(
            BufReader::with_capacity(READ_BUFFER, reader),
            hub.clone(),
            limits.max_frame_size,
        ));
        tokio::spawn(write_frames(BufWriter::new(writer), queue.clone()));
        NdjsonPort {
            inner: Arc::new(Inner {
                hub,
                queue,
                max_frame_size: limits.max_frame_size,
            }),
        }
    }

    /// Why the port stopped writing, once it did.
    pub fn close_reason(&self) -> Option<CloseReason> {
        self.inner.queue.reason()
    }
}

hub_port! {
    port: NdjsonPort,
    inner: Inner,
    this: "port",
    close: "Stops delivery, writes the frames already sent, then shuts the output down.",
}

impl Inner {
    fn close(&self) {
        // After every frame already sent, so those are written first.
        self.queue.close(CloseReason::Closed, true);
        self.hub.close();
    }

    fn push(&self, frame: Outgoing, key: Option<&str>) -> Result<(), SendError> {
        let text = frame.into_text();
        if text.len() > self.max_frame_size {
            return Err(SendError::TooLarge(FrameTooLarge {
                size: text.len(),
                limit: self.max_frame_size,
            }));
        }
        if text.contains(['\n', '\r']) {
            return Err(SendError::LineBreak);
        }
        self.queue.push(text, key)
    }
}

impl FramePort for NdjsonPort {
    fn send(&self, frame: Outgoing) -> Result<(), SendError> {
        self.inner.push(frame, None)
    }

    fn send_coalesced(&self, key: &str, frame: Outgoing) -> Result<(), SendError> {
        self.inner.push(frame, Some(key))
    }

    fn on_frame(&self, listener: Listener) -> Subscription {
        self.inner.hub.subscribe(listener)
    }
}

/// Reads lines and delivers them until the input ends, fails, or the port closes.
async fn read_frames<R: AsyncBufRead + Unpin>(mut reader: R, hub: Arc<Hub>, limit: usize) {
    let mut line = Vec::new();
    loop {
        let read = tokio::select! {
            read = read_line(&mut reader, &mut line, limit) => read,
            () = hub.closed() => break,
        };
        let frame = match read {
            Ok(Line::Frame) => {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                Incoming::Text(into_text(std::mem::take(&mut line)))
            }
            Ok(Line::TooLarge(size)) => Incoming::TooLarge(FrameTooLarge { size, limit }),
            Ok(Line::End) | Err(_) => break,
        };
        if !hub.deliver(frame).await {
            break;
        }
    }
    hub.close();
}

/// A line's bytes as text, as `TextDecoder` reads them (`wire::text_of_vec`): a leading byte
/// order mark dropped, U+FFFD for what is not UTF-8.
fn into_text(bytes: Vec<u8>) -> String {
    crate::wire::text_of_vec(bytes)
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq)]
enum Line {
    /// A line within the limit is in the buffer, without its line break.
    Frame,
    /// A line of this many bytes was over the limit and discarded.
    TooLarge(usize),
    /// The input ended.
    End,
}

/// Reads one line into `line`, holding at most `limit + 1` bytes of it.
///
/// Cancel safe only between lines: the caller drops the reader when it stops.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Line> {
    line.clear();
    let mut size = 0usize;
    let mut over = false;
    // Whether the bytes so far end in `\r`, which is not counted in a refused line's size.
    let mut ends_cr = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            // The last line may end without a line break.
            return Ok(if over {
                Line::TooLarge(size - usize::from(ends_cr))
            } else if size == 0 {
                Line::End
            } else {
                trim_cr(line);
                check(line, limit)
            });
        }
        let newline = chunk.iter().position(|&byte| byte == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        size = size.saturating_add(part.len());
        if let Some(&last) = part.last() {
            ends_cr = last == b'\r';
        }
        // One byte of slack for a `\r` before the line break.
        if !over && size > limit.saturating_add(1) {
            over = true;
            *line = Vec::new();
        }
        if !over {
            line.extend_from_slice(part);
        }
        let consumed = part.len() + usize::from(newline.is_some());
        reader.consume(consumed);
        if newline.is_some() {
            if over {
                return Ok(Line::TooLarge(size - usize::from(ends_cr)));
            }
            trim_cr(line);
            return Ok(check(line, limit));
        }
    }
}

fn trim_cr(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
}

fn check(line: &[u8], limit: usize) -> Line {
    if line.len() > limit {
        Line::TooLarge(line.len())
    } else {
        Line::Frame
    }
}

/// Writes queued frames, one per line, until told to close or the port is gone.
async fn write_frames<W: AsyncWrite + Unpin>(mut writer: BufWriter<W>, queue: Arc<OutQueue>) {
    loop {
        let next = tokio::select! {
            biased;
            reason = queue.aborted() => Next::Close(reason),
            next = queue.next() => next,
        };
        let text = match next {
            Next::Frame(text) => text,
            Next::Close(CloseReason::Closed) => break,
            // A slow consumer or a failed write: nothing more goes out.
            Next::Close(_) => return,
        };
        let written = tokio::select! {
            biased;
            _ = queue.aborted() => return,
            written = async {
                write_line(&mut writer, &text).await?;
                // Flush once the queue is drained, so a burst goes out in few writes.
                if queue.queued_bytes() == 0 {
                    writer.flush().await?;
                }
                Ok::<(), io::Error>(())
            } => written,
        };
        if let Err(error) = written {
            queue.close(CloseReason::Error(error.to_string()), false);
            return;
        }
    }
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &mut W, text: &str) -> io::Result<()> {
    writer.write_all(text.as_bytes()).await?;
    writer.write_all(b"\n").await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize, buffer: usize) -> Vec<Result<String, usize>> {
        let mut reader = BufReader::with_capacity(buffer, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, &mut line, limit).await.unwrap() {
                Line::Frame => out.push(Ok(String::from_utf8(line.clone()).unwrap())),
                Line::TooLarge(size) => out.push(Err(size)),
                Line::End => return out,
            }
        }
    }

    #[tokio::test]
    async fn lines_at_the_edge_of_the_limit() {
        for buffer in [1, 2, 3, 7, 64] {
            let got = lines(b"abcd\nabcde\nabc\r\nabcd\r\nabcde\r\n\nxy", 4, buffer).await;
            assert_eq!(
                got,
                vec![
                    Ok("abcd".into()),
                    Err(5),
                    Ok("abc".into()),
                    Ok("abcd".into()),
                    Err(5),
                    Ok(String::new()),
                    Ok("xy".into()),
                ],
                "buffer {buffer}"
            );
        }
    }

    #[tokio::test]
    async fn an_over_long_last_line_without_a_break() {
        assert_eq!(
            lines(b"ok\nabcdefgh", 4, 3).await,
            vec![Ok("ok".into()), Err(8)]
        );
    }
}
