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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_never_answers_pings_is_closed() {
    let server = start("ws-ping").await;
    let base = &server.base;
    let id = game(base).await;
    // A raw client that never reads, so it never answers a ping.
    let mut s = raw(base).await;
    let handshake = format!(
        "GET /api/games/{id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(handshake.as_bytes()).await.unwrap();
    // A well-behaved client answers, and stays.
    let mut good = connect(base, &id).await;
    recv_type(&mut good, "state", 5).await;
    for _ in 0..4 {
        server.advance(20_000).await;
        // Reading lets the client library answer the ping.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(50), good.next()).await;
    }
    let rest = read_to_close(&mut s, 10).await.expect("the silent socket is closed");
    let close = rest.windows(2).rposition(|w| w[0] == 0x88).expect("a close frame");
    assert_eq!(u16::from_be_bytes([rest[close + 2], rest[close + 3]]), 1001);
    assert!(rest.windows(1).filter(|w| w[0] == 0x89).count() >= 2, "pings came first");
    send(&mut good, json!({"v": 1, "type": "ping", "id": 1})).await;
    assert_eq!(recv_type(&mut good, "pong", 5).await["id"], 1);
    server.running.shutdown().await.unwrap();
}
