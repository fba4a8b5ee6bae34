//! The HTTP side of telemetry: `/metrics` and `/status.json` served at
//! `--metrics ADDR`, by a server whose cost is bounded whatever connects:
//! a fixed pool of workers, a bounded queue of accepted connections (the
//! rest get 503 at once), a deadline for the request head and a cap on
//! its size. Capture never waits on it; when it fails it says so once
//! (through [`MetricsServer::take_failure`]) instead of dying unseen.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Telemetry;

/// Connections served at once; scrapes are short and rare.
const WORKERS: usize = 4;
/// Accepted connections waiting for a worker; past this, 503.
const QUEUE: usize = 64;
/// The whole request head must arrive within this, however it trickles.
const HEAD_DEADLINE: Duration = Duration::from_secs(5);
/// The longest request head read; a scraper's is a few hundred bytes.
const HEAD_LIMIT: usize = 8 * 1024;
/// How long the accept loop rests after an error (out of descriptors).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("--metrics {addr}: cannot listen: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("--metrics {addr}: cannot start the server's threads: {source}")]
    Threads {
        addr: String,
        source: std::io::Error,
    },
}

/// A running metrics server; dropping it stops accepting.
pub struct MetricsServer {
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    failure: Arc<Failure>,
    accept: Option<JoinHandle<()>>,
}

/// The first trouble the server met, kept until the daemon reports it.
#[derive(Default)]
struct Failure {
    message: Mutex<Option<String>>,
    reported: AtomicBool,
}

impl Failure {
    fn record(&self, message: String) {
        if self.reported.load(Ordering::Relaxed) {
            return;
        }
        let mut slot = self.message.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(message);
    }
}

/// Serves `/metrics` and `/status.json` on `addr` (port 0 picks a free one).
pub fn serve(addr: &str, telemetry: Arc<Telemetry>) -> Result<MetricsServer, ServeError> {
    let listener = TcpListener::bind(addr).map_err(|source| ServeError::Listen {
        addr: addr.to_string(),
        source,
    })?;
    let bound = listener.local_addr().map_err(|source| ServeError::Listen {
        addr: addr.to_string(),
        source,
    })?;
    let threads = |source| ServeError::Threads {
        addr: addr.to_string(),
        source,
    };
    let (tx, rx) = sync_channel::<(TcpStream, Instant)>(QUEUE);
    let rx = Arc::new(Mutex::new(rx));
    for n in 0..WORKERS {
        let (rx, telemetry) = (Arc::clone(&rx), Arc::clone(&telemetry));
        std::thread::Builder::new()
            .name(format!("cdcctl-metrics-{n}"))
            .spawn(move || work(&rx, &telemetry))
            .map_err(threads)?;
    }
    let stopping = Arc::new(AtomicBool::new(false));
    let failure = Arc::new(Failure::default());
    let (stop, fail) = (Arc::clone(&stopping), Arc::clone(&failure));
    let accept = std::thread::Builder::new()
        .name("cdcctl-metrics".into())
        .spawn(move || {
            for next in listener.incoming() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                match next {
                    Ok(stream) => hand_over(stream, &tx),
                    Err(e) => {
                        fail.record(format!("the metrics server cannot accept: {e}"));
                        std::thread::sleep(ACCEPT_BACKOFF);
                    }
                }
            }
        })
        .map_err(threads)?;
    Ok(MetricsServer {
        addr: bound,
        stopping,
        failure,
        accept: Some(accept),
    })
}

impl MetricsServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server's first trouble, once: later calls answer `None`.
    pub fn take_failure(&self) -> Option<String> {
        let mut slot = self
            .failure
            .message
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let taken = slot.take();
        if taken.is_some() {
            self.failure.reported.store(true, Ordering::Relaxed);
        }
        taken
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Relaxed);
        // The accept loop wakes only for a connection: make one.
        if TcpStream::connect_timeout(&self.addr, Duration::from_secs(1)).is_ok() {
            if let Some(accept) = self.accept.take() {
                let _ = accept.join();
            }
        }
    }
}

/// Queues a connection for the workers, or turns it away when they are
/// all busy and the queue is full.
fn hand_over(stream: TcpStream, tx: &std::sync::mpsc::SyncSender<(TcpStream, Instant)>) {
    match tx.try_send((stream, Instant::now())) {
        Ok(()) => {}
        Err(TrySendError::Full((mut stream, _))) => {
            let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
            let _ = respond(&mut stream, &Reply::busy(), false);
        }
        Err(TrySendError::Disconnected(_)) => {}
    }
}

fn work(rx: &Mutex<Receiver<(TcpStream, Instant)>>, telemetry: &Telemetry) {
    loop {
        let next = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok((mut stream, accepted)) = next else {
            return;
        };
        // A scraper that hung up or stalled is its own problem.
        let _ = answer(&mut stream, accepted + HEAD_DEADLINE, telemetry);
    }
}

fn answer(stream: &mut TcpStream, deadline: Instant, telemetry: &Telemetry) -> std::io::Result<()> {
    stream.set_write_timeout(Some(HEAD_DEADLINE))?;
    let reply = match read_head(stream, deadline)? {
        Head::Complete(head) => route(&head, telemetry),
        Head::TooLarge => Reply::text(431, "request head too large\n"),
        Head::Late => return Ok(()),
    };
    let head_only = reply.head_only;
    respond(stream, &reply, head_only)
}

/// What arrived of a request head.
#[derive(Debug, PartialEq)]
enum Head {
    Complete(String),
    TooLarge,
    /// The deadline passed, or the peer closed, before the head ended.
    Late,
}

/// Reads until the blank line that ends the head, within `deadline` and
/// [`HEAD_LIMIT`] bytes; a body, if any, is never read.
fn read_head(stream: &mut impl ReadWithTimeout, deadline: Instant) -> std::io::Result<Head> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    loop {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return Ok(Head::Late);
        };
        if left.is_zero() {
            return Ok(Head::Late);
        }
        stream.set_timeout(left)?;
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(Head::Late),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Ok(Head::Late)
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            head.truncate(end);
            return Ok(Head::Complete(String::from_utf8_lossy(&head).into_owned()));
        }
        if head.len() > HEAD_LIMIT {
            return Ok(Head::TooLarge);
        }
    }
}

/// A stream whose reads can be bounded in time: a socket, or a test's
/// stand-in.
trait ReadWithTimeout: Read {
    fn set_timeout(&mut self, left: Duration) -> std::io::Result<()>;
}

impl ReadWithTimeout for TcpStream {
    fn set_timeout(&mut self, left: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(left))
    }
}

/// A response before it is written.
#[derive(Debug, PartialEq)]
struct Reply {
    code: u16,
    content_type: &'static str,
    body: String,
    allow: bool,
    head_only: bool,
}

impl Reply {
    fn text(code: u16, body: &str) -> Self {
        Self {
            code,
            content_type: "text/plain; charset=utf-8",
            body: body.to_string(),
            allow: code == 405,
            head_only: false,
        }
    }

    fn busy() -> Self {
        Self::text(503, "busy: too many connections to the metrics server\n")
    }
}

/// The reply to a request head: GET or HEAD of the two documents.
fn route(head: &str, telemetry: &Telemetry) -> Reply {
    let line = head.lines().next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (method, target) = (parts.next().unwrap_or_default(), parts.next());
    let Some(target) = target.filter(|_| parts.next().is_some_and(|v| v.starts_with("HTTP/")))
    else {
        return Reply::text(400, "not an HTTP request\n");
    };
    if method != "GET" && method != "HEAD" {
        return Reply::text(405, "only GET and HEAD are served\n");
    }
    let path = target.split('?').next().unwrap_or_default();
    let mut reply = match path {
        "/metrics" => Reply {
            content_type: "application/openmetrics-text; version=1.0.0; charset=utf-8",
            body: telemetry.render(),
            ..Reply::text(200, "")
        },
        "/status.json" => Reply {
            content_type: "application/json",
            body: telemetry.report_json(),
            ..Reply::text(200, "")
        },
        _ => Reply::text(404, "not found: try /metrics or /status.json\n"),
    };
    reply.head_only = method == "HEAD";
    reply
}

fn respond(stream: &mut impl Write, reply: &Reply, head_only: bool) -> std::io::Result<()> {
    let reason = match reply.code {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Service Unavailable",
    };
    let allow = if reply.allow {
        "Allow: GET, HEAD\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{allow}\
         Connection: close\r\n\r\n",
        reply.code,
        reply.content_type,
        reply.body.len()
    );
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(reply.body.as_bytes())?;
    }
    stream.flush()
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
