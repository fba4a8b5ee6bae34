//! The metrics server's bounds and answers, over real sockets.

use super::*;

fn server() -> (MetricsServer, Arc<Telemetry>) {
    let telemetry = Telemetry::new(None, "file".into());
    let server = serve("127.0.0.1:0", Arc::clone(&telemetry)).expect("serve");
    (server, telemetry)
}

fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream.write_all(request).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    answer
}

#[test]
fn get_and_head_serve_the_two_documents_and_nothing_else() {
    let (server, _telemetry) = server();
    let addr = server.local_addr();
    let metrics = exchange(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(metrics.starts_with("HTTP/1.1 200 OK\r\n"), "{metrics}");
    assert!(metrics.contains("application/openmetrics-text"));
    assert!(
        metrics.contains("\r\n\r\n# "),
        "a body of families: {metrics}"
    );
    let status = exchange(addr, b"GET /status.json?x=1 HTTP/1.0\r\n\r\n");
    assert!(status.contains("application/json"), "{status}");
    assert!(status.ends_with('}') || status.ends_with("}\n"), "{status}");
    let head = exchange(addr, b"HEAD /metrics HTTP/1.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.ends_with("\r\n\r\n"), "HEAD has no body: {head}");
    let post = exchange(
        addr,
        b"POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
    );
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    assert!(post.contains("Allow: GET, HEAD\r\n"), "{post}");
    let missing = exchange(addr, b"GET /other HTTP/1.1\r\n\r\n");
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    let garbage = exchange(addr, b"hello\r\n\r\n");
    assert!(garbage.starts_with("HTTP/1.1 400"), "{garbage}");
}

#[test]
fn a_huge_request_line_is_refused_after_the_head_limit_issue31() {
    let (server, _telemetry) = server();
    let mut stream = TcpStream::connect(server.local_addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    // Far past the limit; the server answers before reading it all, so the
    // send may fail once it has hung up.
    let line = format!("GET /{} HTTP/1.1\r\n", "a".repeat(4 * HEAD_LIMIT));
    let _ = stream.write_all(line.as_bytes());
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[test]
fn a_head_that_never_ends_is_given_up_at_the_deadline_issue31() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let mut client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
    let (mut served, _) = listener.accept().expect("accept");
    client
        .write_all(b"GET /metrics HTTP/1.1\r\n")
        .expect("send");
    let started = Instant::now();
    let head = read_head(&mut served, Instant::now() + Duration::from_millis(300)).expect("read");
    assert_eq!(head, Head::Late);
    assert!(
        started.elapsed() < HEAD_DEADLINE,
        "bounded by the deadline given"
    );
}

#[test]
fn connections_past_the_queue_are_turned_away_and_scrapes_resume_issue31() {
    let (server, _telemetry) = server();
    let addr = server.local_addr();
    // Half-open: connected, never a byte sent.
    let idle: Vec<TcpStream> = (0..WORKERS + QUEUE + 20)
        .map(|_| TcpStream::connect(addr).expect("connect"))
        .collect();
    let mut last = idle.last().expect("one").try_clone().expect("clone");
    last.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut answer = String::new();
    let _ = last.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    drop(last);
    drop(idle);
    let metrics = exchange(addr, b"GET /metrics HTTP/1.1\r\n\r\n");
    assert!(metrics.starts_with("HTTP/1.1 200"), "{metrics}");
}

#[test]
fn the_first_failure_is_reported_once() {
    let failure = Failure::default();
    failure.record("first".into());
    failure.record("second".into());
    let server = MetricsServer {
        addr: "127.0.0.1:9".parse().expect("addr"),
        stopping: Arc::new(AtomicBool::new(true)),
        failure: Arc::new(failure),
        accept: None,
    };
    assert_eq!(server.take_failure().as_deref(), Some("first"));
    assert_eq!(server.take_failure(), None);
    server.failure.record("third".into());
    assert_eq!(server.take_failure(), None, "reported once per run");
}
