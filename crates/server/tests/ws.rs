//! The WebSocket's protocol truths over real sockets: close codes for
//! oversized messages and broken frames, and the server's ping.

mod common;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

async fn close_code(ws: &mut Socket) -> Option<u16> {
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), ws.next()).await.expect("no close in time") {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return None,
        }
    }
}

async fn game(base: &str) -> String {
    let c = create(base, json!({"game": "coldwar", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    c["game"]["id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_messages_close_with_1009_and_bad_frames_with_their_codes() {
    let server = start("ws-codes").await;
    let base = &server.base;
    let id = game(base).await;
    let mut ws = connect(base, &id).await;
    recv_type(&mut ws, "state", 5).await;
    ws.send(Message::Text("x".repeat(17 * 1024).into())).await.unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1009));

    // Raw frames the client library would not send: a reserved bit, and text
    // that is not UTF-8. Client frames are masked (here with a zero mask).
    for (frame, code) in [
        (vec![0xC1u8, 0x80, 0, 0, 0, 0], 1002u16),          // FIN + RSV1 + text, empty
        (vec![0x81u8, 0x82, 0, 0, 0, 0, 0xFF, 0xFE], 1007), // text "\xFF\xFE"
    ] {
        let mut s = raw(base).await;
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        let handshake = format!(
            "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        s.write_all(handshake.as_bytes()).await.unwrap();
        let mut head = vec![0u8; 4096];
        let n = s.read(&mut head).await.unwrap();
        assert!(String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 101"));
        s.write_all(&frame).await.unwrap();
        let rest = read_to_close(&mut s, 10).await.expect("closed");
        // The server's frames: the state text, then a close frame with its code.
        let close = rest.windows(2).rposition(|w| w[0] == 0x88).expect("a close frame");
        let got = u16::from_be_bytes([rest[close + 2], rest[close + 3]]);
        assert_eq!(got, code, "frame {frame:02x?}");
    }
    server.running.shutdown().await.unwrap();
}

/// The opcode and payload of the next frame the server sends on a raw
/// socket (server frames are never masked).
async fn next_frame(s: &mut tokio::net::TcpStream) -> (u8, Vec<u8>) {
    let read = async {
        let mut head = [0u8; 2];
        s.read_exact(&mut head).await?;
        let len = match head[1] & 0x7F {
            126 => u64::from(s.read_u16().await?),
            127 => s.read_u64().await?,
            n => u64::from(n),
        };
        let mut payload = vec![0u8; len as usize];
        s.read_exact(&mut payload).await?;
        Ok::<_, std::io::Error>((head[0] & 0x0F, payload))
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read).await.expect("a frame in time").expect("a frame")
}

/// The server pings every 20 s and closes a socket after two pings in a
/// row went unanswered; a client that answers stays. Each round waits until
/// both sockets saw the round's ping, so no ping is skipped on a busy machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_never_answers_pings_is_closed() {
    let server = start("ws-ping").await;
    let base = &server.base;
    let id = game(base).await;
    // A raw client that reads but never answers a ping.
    let mut s = raw(base).await;
    let handshake = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(handshake.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(s.read_u8().await.unwrap());
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    assert_eq!(next_frame(&mut s).await.0, 0x1, "the state comes first");
    // A well-behaved client answers, and stays.
    let mut good = connect(base, &id).await;
    recv_type(&mut good, "state", 5).await;
    for round in 0..3 {
        server.advance(20_000).await;
        let (opcode, payload) = next_frame(&mut s).await;
        if round < 2 {
            assert_eq!(opcode, 0x9, "round {round}: a ping");
        } else {
            assert_eq!(opcode, 0x8, "round {round}: the close, after two unanswered pings");
            assert_eq!(u16::from_be_bytes([payload[0], payload[1]]), 1001);
        }
        loop {
            match tokio::time::timeout(std::time::Duration::from_secs(10), good.next()).await.expect("a ping") {
                Some(Ok(Message::Ping(_))) => break,
                Some(Ok(_)) => continue,
                other => panic!("round {round}: the good socket ended: {other:?}"),
            }
        }
        // Sending flushes the client library's pong; the answer proves the
        // server read it.
        send(&mut good, json!({"v": 1, "type": "ping", "id": round})).await;
        assert_eq!(recv_type(&mut good, "pong", 5).await["id"], round);
    }
    assert_eq!(read_to_close(&mut s, 10).await, Some(vec![]), "the silent socket is closed");
    server.running.shutdown().await.unwrap();
}

/// A client that stops reading fills its buffers; the server gives up on a
/// message it cannot deliver within 30 s and closes the socket, instead of
/// waiting on it for ever (where no ping could close it either).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_stops_reading_is_closed() {
    // It counts one node's connections.
    let server = start_alone_with("ws-stuck", |c| {
        c.rate = tabula_server::config::RateLimits::unlimited();
        c.net.ws_ping_interval_ms = u64::MAX / 4; // only the send timeout acts here
    })
    .await;
    let base = &server.base;
    let created = create(base, json!({"game": "dots", "seats": [{"kind": "me"}, {"kind": "me"}]})).await;
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let tokens = [
        created["tokens"]["blue"].as_str().unwrap().to_string(),
        created["tokens"]["red"].as_str().unwrap().to_string(),
    ];
    // A reader with a tiny receive buffer that reads only the handshake.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut s = socket.connect(base.parse().unwrap()).await.unwrap();
    let handshake = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(handshake.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(s.read_u8().await.unwrap());
    }
    assert!(head.starts_with(b"HTTP/1.1 101"));
    // The raw socket and the health request itself.
    let open = 2;
    // Every move pushes the whole game (about 15 KB on a 39x32 board) to
    // the socket that does not read.
    let mut legal = created["game"]["state"]["legal_moves"].clone();
    for ply in 0..200 {
        let r = post(
            base,
            &format!("/api/games/{id}/move"),
            json!({"token": tokens[ply % 2], "move": legal[ply * 7 % 50]}),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let game = r.json()["game"].clone();
        legal = game["state"]["legal_moves"].clone();
    }
    // Open connections, once the moves' own connections are gone.
    let settled = async || {
        for _ in 0..200 {
            let n = server.health().await["connections"].as_u64().unwrap();
            if n <= open {
                return n;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("the moves' connections stay open");
    };
    assert_eq!(settled().await, open, "the stuck socket is still open");
    server.advance(29_999).await;
    settle().await;
    assert_eq!(settled().await, open, "closed before its time");
    server.advance(1).await;
    let mut closed = false;
    for _ in 0..200 {
        if server.health().await["connections"].as_u64().unwrap() == open - 1 {
            closed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(closed, "the socket that stopped reading is closed");
    server.running.shutdown().await.unwrap();
}
