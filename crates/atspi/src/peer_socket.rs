//! The socket of a direct peer connection to an app, read in bulk.
//!
//! zbus reads every message with two `recvmsg` calls (its fixed header, then
//! the rest). A full read of a window has hundreds of calls in flight, and
//! the app sends their answers back to back, so one read of the socket can
//! take many answers at once: this read half keeps what the socket gave
//! beyond the message being read, and serves the next reads from it.

use std::io;
use std::os::fd::OwnedFd;
use zbus::conn::AuthMechanism;
use zbus::connection::socket::{ReadHalf, Socket, Split};
use zbus::fdo::ConnectionCredentials;

/// What one read of the socket may take.
const BUFFER: usize = 64 * 1024;

/// A Unix stream to an app whose reads are buffered (see the module's doc).
#[derive(Debug)]
pub struct BufferedUnix(pub tokio::net::UnixStream);

impl Socket for BufferedUnix {
    type ReadHalf = BufferedRead;
    type WriteHalf = tokio::net::unix::OwnedWriteHalf;

    fn split(self) -> Split<Self::ReadHalf, Self::WriteHalf> {
        let (read, write) = self.0.into_split();
        Split::new(
            BufferedRead {
                socket: read,
                buffer: vec![0; BUFFER].into_boxed_slice(),
                start: 0,
                end: 0,
            },
            write,
        )
    }
}

/// The read half: bytes the socket gave that no message has taken yet are
/// `buffer[start..end]`.
#[derive(Debug)]
pub struct BufferedRead {
    socket: tokio::net::unix::OwnedReadHalf,
    buffer: Box<[u8]>,
    start: usize,
    end: usize,
}

#[async_trait::async_trait]
impl ReadHalf for BufferedRead {
    async fn recvmsg(&mut self, out: &mut [u8]) -> io::Result<(usize, Vec<OwnedFd>)> {
        if self.start == self.end {
            // A long message (a whole cache) goes straight where it is wanted.
            if out.len() >= self.buffer.len() {
                let (read, _) = self.socket.recvmsg(out).await?;
                crate::awake::answer_arrived();
                return Ok((read, Vec::new()));
            }
            let (read, _) = self.socket.recvmsg(&mut self.buffer).await?;
            crate::awake::answer_arrived();
            (self.start, self.end) = (0, read);
        }
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.buffer[self.start..self.start + n]);
        self.start += n;
        Ok((n, Vec::new()))
    }

    /// AT-SPI passes no file descriptors, and buffered bytes could not carry them.
    fn can_pass_unix_fd(&self) -> bool {
        false
    }

    async fn peer_credentials(&mut self) -> io::Result<ConnectionCredentials> {
        self.socket.peer_credentials().await
    }

    fn auth_mechanism(&self) -> AuthMechanism {
        AuthMechanism::External
    }
}
