//! The connection layer over real sockets: slow, idle and half-open
//! connections are closed, caps hold, and every refusal is JSON. Time is
//! the server's manual clock: no test waits for a timeout to pass.

mod common;

use common::*;
use serde_json::json;
use tokio::io::AsyncWriteExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_half_open_and_slow_connections_are_closed() {
    let server = start("timeouts").await;
    let base = &server.base;
    // A connection that sends nothing, one that sends half a head, one that
    // sends a head and half its body, and a keep-alive connection after its
    // first request.
    let mut silent = raw(base).await;
    let mut half_head = raw(base).await;
    half_head.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let mut half_body = raw(base).await;
    half_body
        .write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"game\"")
        .await
        .unwrap();
    // Slowloris: a head, and a body, trickled a byte at a time, each byte
    // well inside any per-read timeout; their deadlines do not move.
    let mut slow_head = raw(base).await;
    slow_head.write_all(b"G").await.unwrap();
    let mut slow_body = raw(base).await;
    slow_body
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    let mut keep_alive = raw(base).await;
    keep_alive.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 2048];
    let n = tokio::io::AsyncReadExt::read(&mut keep_alive, &mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    settle().await;
    assert_eq!(server.health().await["connections"], 7, "six test connections and the health request");

    for step in [2_500, 2_500, 2_500, 2_499] {
        server.advance(step).await;
        slow_head.write_all(b"E").await.unwrap();
        slow_body.write_all(b" ").await.unwrap();
    }
    for (what, s) in [
        ("silent", &mut silent),
        ("half head", &mut half_head),
        ("half body", &mut half_body),
        ("slow head", &mut slow_head),
        ("slow body", &mut slow_body),
    ] {
        assert!(still_open(s).await, "{what}: closed before its timeout");
    }
    // 10 s: the head timeout closes the silent and the half-sent head; the
    // body timeout answers 408 and closes.
    server.advance(1).await;
    assert_eq!(read_to_close(&mut silent, 10).await, Some(vec![]), "silent connection");
    assert_eq!(read_to_close(&mut half_head, 10).await, Some(vec![]), "half-sent head");
    let answer = parse_answer(&read_to_close(&mut half_body, 10).await.expect("half-sent body"));
    assert_eq!((answer.status, answer.code().as_str()), (408, "timeout"), "{}", answer.body);
    assert_eq!(read_to_close(&mut slow_head, 10).await, Some(vec![]), "trickled head");
    let answer = parse_answer(&read_to_close(&mut slow_body, 10).await.expect("trickled body"));
    assert_eq!((answer.status, answer.code().as_str()), (408, "timeout"), "{}", answer.body);
    assert!(still_open(&mut keep_alive).await, "an idle keep-alive connection has a minute");
    server.advance(50_000).await;
    assert_eq!(read_to_close(&mut keep_alive, 10).await, Some(vec![]), "idle keep-alive connection");
    settle().await;
    assert_eq!(server.health().await["connections"], 1, "only the health request is left");
    server.running.shutdown().await.unwrap();
}

async fn connect_from(from: &str, base: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(base.parse().unwrap()).await.unwrap()
}

async fn socket_from(from: &str, base: &str, id: &str) -> Socket {
    let stream = tokio_tungstenite::MaybeTlsStream::Plain(connect_from(from, base).await);
    tokio_tungstenite::client_async(format!("ws://{base}/api/games/{id}/ws"), stream).await.unwrap().0
}

/// Over its address's cap a connection is refused; at the total cap the
/// oldest connection still waiting for a request makes room; when every
/// connection is busy, a newcomer is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_per_client_and_in_total() {
    let server = start_with("caps", |c| {
        c.net.max_connections = 6;
        c.net.max_connections_per_client = 3;
    })
    .await;
    let base = &server.base;
    let mut first = Vec::new();
    for _ in 0..3 {
        first.push(connect_from("127.0.0.1", base).await);
        settle().await;
    }
    let mut over = connect_from("127.0.0.1", base).await;
    let answer = parse_answer(&read_to_close(&mut over, 10).await.expect("refused at once"));
    assert_eq!((answer.status, answer.code().as_str()), (503, "too_many_connections"), "{}", answer.body);
    // Another address (127.0.0.2 is loopback too) gets in, up to the total.
    let mut second = Vec::new();
    for _ in 0..3 {
        second.push(connect_from("127.0.0.2", base).await);
    }
    settle().await;
    // At the total, a newcomer gets in and the oldest waiting connection goes.
    let mut newcomer = connect_from("127.0.0.3", base).await;
    newcomer.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let answer = parse_answer(&read_to_close(&mut newcomer, 10).await.expect("answered"));
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(read_to_close(&mut first[0], 10).await, Some(vec![]), "the oldest idle connection made room");
    for s in first.iter_mut().skip(1).chain(second.iter_mut()) {
        assert!(still_open(s).await);
    }
    drop(first);
    drop(second);
    settle().await;

    // Six WebSockets are busy: nobody is closed for a newcomer, who is refused.
    let created = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap();
    let mut sockets = Vec::new();
    for from in ["127.0.0.1", "127.0.0.2"] {
        for _ in 0..3 {
            let mut ws = socket_from(from, base, id).await;
            recv_type(&mut ws, "state", 5).await;
            sockets.push(ws);
        }
    }
    let mut refused = connect_from("127.0.0.3", base).await;
    let answer = parse_answer(&read_to_close(&mut refused, 10).await.expect("refused at once"));
    assert_eq!(answer.status, 503, "{}", answer.body);
    for ws in &mut sockets {
        send(ws, json!({"v": 1, "type": "ping", "id": 1})).await;
        assert_eq!(recv_type(ws, "pong", 5).await["id"], 1);
    }
    server.running.shutdown().await.unwrap();
}

/// A client opening connections in a loop is refused at once past its rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_rate_per_client() {
    let server =
        start_with("conn-rate", |c| c.rate.connections = tabula_server::config::Rate { per_minute: 60, burst: 5 })
            .await;
    let base = &server.base;
    for _ in 0..5 {
        assert_eq!(get(base, "/api/health").await.status, 200);
    }
    let refused = get(base, "/api/health").await;
    assert_eq!((refused.status, refused.code().as_str()), (429, "rate_limited"), "{}", refused.body);
    assert!(refused.headers.to_ascii_lowercase().contains("retry-after: 1"), "{}", refused.headers);
    server.advance(1_000).await;
    assert_eq!(get(base, "/api/health").await.status, 200);
    server.running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_requests_get_json_refusals_at_once() {
    let server = start("sizes").await;
    let base = &server.base;
    // A huge Content-Length is refused from the head alone.
    let mut s = raw(base).await;
    s.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n").await.unwrap();
    let answer = parse_answer(&read_to_close(&mut s, 10).await.expect("answered and closed at once"));
    assert_eq!((answer.status, answer.code().as_str()), (413, "too_large"), "{}", answer.body);

    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        // Over the server's limits, under hyper's: refused by the server.
        (format!("GET /api/health?{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(9_000)).into(), 414, "uri_too_long"),
        (
            format!("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "b".repeat(40_000)).into(),
            431,
            "headers_too_large",
        ),
        // Beyond what hyper reads at all: its bare answers, rewritten.
        (
            format!("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "b".repeat(200_000)).into(),
            431,
            "headers_too_large",
        ),
        (
            format!("GET /api/health HTTP/1.1\r\nHost: x\r\n{}\r\n", "X-A: 1\r\n".repeat(120)).into(),
            431,
            "headers_too_large",
        ),
        (b"GET /api/games/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), 400, "bad_request"),
        (b"BLAH\r\n\r\n".to_vec(), 400, "bad_request"),
    ];
    for (i, (request, status, code)) in cases.into_iter().enumerate() {
        let mut s = raw(base).await;
        let _ = s.write_all(&request).await;
        let answer = parse_answer(&read_to_close(&mut s, 10).await.unwrap_or_else(|| panic!("case {i} not answered")));
        assert_eq!(answer.status, status, "case {i}: {}", answer.headers);
        assert_eq!(answer.code(), code, "case {i}: {}", answer.body);
        assert!(answer.headers.to_ascii_lowercase().contains("content-type: application/json"), "case {i}");
    }
    // Bad UTF-8 in a percent-encoded path.
    let r = get(base, "/api/games/%ff/export").await;
    assert_eq!((r.status, r.code().as_str()), (400, "bad_request"), "{}", r.body);
    let ok = post(base, "/api/games", json!({"game": "coldwar"})).await;
    assert_eq!(ok.status, 201);
    server.running.shutdown().await.unwrap();
}

/// An oversized body is refused from its head, before it is read; the
/// refusal must still reach a client that uploads the whole body before
/// reading, also through a proxy. Closing with the body unread would send
/// a reset, and a reset loses the answer: the proxy gives up on both sides
/// when its upload fails, and a client may drop what it had received.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_gets_its_413_through_a_proxy() {
    let server = start("oversized").await;
    let node: std::net::SocketAddr = server.base.parse().unwrap();
    let proxy = round_robin(vec![node]).await;
    let body = format!("{{\"game\": \"{}\"}}", "x".repeat(300_000));
    for i in 0..40 {
        for base in [&server.base, &proxy] {
            let reply = http(base, "POST", "/api/games", Some(&body)).await;
            assert_eq!((reply.status, reply.code().as_str()), (413, "too_large"), "try {i} via {base}: {}", reply.body);
        }
    }
    server.running.shutdown().await.unwrap();
}

/// Static files have ETags and answer If-None-Match with 304; responses
/// are compressed when the client accepts gzip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_files_are_cached_and_compressed() {
    let server = start("static").await;
    let base = &server.base;
    let first = get(base, "/js/app.js").await;
    assert_eq!(first.status, 200);
    let headers = first.headers.to_ascii_lowercase();
    let etag = headers.lines().find_map(|l| l.strip_prefix("etag: ")).expect("an etag").to_string();
    assert!(headers.contains("cache-control: no-cache"), "{headers}");
    let request = format!("GET /js/app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\nConnection: close\r\n\r\n");
    let mut s = raw(base).await;
    s.write_all(request.as_bytes()).await.unwrap();
    let again = parse_answer(&read_to_close(&mut s, 10).await.unwrap());
    assert_eq!(again.status, 304, "{}", again.headers);
    assert!(again.body.is_empty());
    let version = etag.trim_matches('"');
    let pinned = get(base, &format!("/js/app.js?v={version}")).await;
    assert!(pinned.headers.to_ascii_lowercase().contains("cache-control: public, max-age=31536000, immutable"));
    let stale = get(base, "/js/app.js?v=0000").await;
    assert!(stale.headers.to_ascii_lowercase().contains("cache-control: no-cache"));

    let request = "GET /js/app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n";
    let mut s = raw(base).await;
    s.write_all(request.as_bytes()).await.unwrap();
    let bytes = read_to_close(&mut s, 10).await.unwrap();
    let head = String::from_utf8_lossy(&bytes[..bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap()])
        .to_ascii_lowercase();
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(bytes.len() < first.body.len(), "compressed {} vs {}", bytes.len(), first.body.len());
    server.running.shutdown().await.unwrap();
}
