//! The WebSocket of a game: pushes every state change to players and
//! spectators, and takes players' moves (see docs/api.md).

use crate::app::GameHandle;
use crate::error::ApiError;
use crate::http::{do_draw, do_move, do_resign, AppState};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::broadcast::error::RecvError;

/// Largest message a client may send.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
/// Moves per second a connection may keep up, and the burst it may send.
const MOVES_PER_SECOND: f64 = 20.0;
const MOVE_BURST: f64 = 40.0;

pub async fn upgrade(
    State(app): State<AppState>,
    Path(id): Path<String>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let h = match app.get(&id).await {
        Ok(h) => h,
        Err(e) => return e.into_response(),
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!("not a WebSocket request: {}", e.body_text()),
            )
            .into_response()
        }
    };
    // A small read buffer: the default 128 KiB is zeroed on every read.
    ws.read_buffer_size(8 * 1024)
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| session(app, h, socket))
}

/// A token bucket for moves.
struct RateLimit {
    tokens: f64,
    last: Instant,
}

impl RateLimit {
    fn new() -> Self {
        RateLimit { tokens: MOVE_BURST, last: Instant::now() }
    }
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * MOVES_PER_SECOND).min(MOVE_BURST);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn error_message(id: &Value, e: &ApiError) -> String {
    json!({ "v": 1, "type": "error", "id": id, "error": e.body() }).to_string()
}

async fn session(app: AppState, h: Arc<GameHandle>, mut socket: WebSocket) {
    let mut updates = h.tx.subscribe();
    let mut shutdown = app.shutdown.clone();
    let mut limit = RateLimit::new();
    if socket.send(Message::Text(h.latest())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            update = updates.recv() => {
                let text = match update {
                    Ok(t) => t,
                    // A slow watcher skips to the newest state: each one is complete.
                    Err(RecvError::Lagged(_)) => h.latest(),
                    Err(RecvError::Closed) => break,
                };
                if socket.send(Message::Text(text)).await.is_err() {
                    break;
                }
            }
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        let e = ApiError::bad_request("bad_json", "messages are JSON text frames");
                        if socket.send(Message::Text(error_message(&Value::Null, &e).into())).await.is_err() { break; }
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(e)) => {
                        tracing::debug!(game = %h.id, error = %e, "websocket closed on error");
                        break;
                    }
                };
                let reply = handle_message(&app, &h, &mut limit, text.as_str()).await;
                if socket.send(Message::Text(reply.into())).await.is_err() {
                    break;
                }
            }
            _ = shutdown.changed() => {
                let _ = socket.send(Message::Close(None)).await;
                break;
            }
        }
    }
}

async fn handle_message(app: &AppState, h: &Arc<GameHandle>, limit: &mut RateLimit, text: &str) -> String {
    let msg: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return error_message(&Value::Null, &ApiError::bad_request("bad_json", format!("not JSON: {e}"))),
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    match answer(app, h, limit, &msg).await {
        Ok(extra) => {
            let mut reply = json!({ "v": 1, "type": extra.0, "id": id });
            if let Some(ply) = extra.1 {
                reply["ply"] = json!(ply);
            }
            reply.to_string()
        }
        Err(e) => error_message(&id, &e),
    }
}

fn field<'a>(msg: &'a Value, key: &str) -> Result<&'a str, ApiError> {
    msg.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("bad_json", format!("the message needs a string field '{key}'")))
}

async fn answer(
    app: &AppState,
    h: &Arc<GameHandle>,
    limit: &mut RateLimit,
    msg: &Value,
) -> Result<(&'static str, Option<u64>), ApiError> {
    match msg.get("v") {
        Some(v) if v == 1 => {}
        other => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("unsupported message version {other:?}; this server speaks v 1"),
            ))
        }
    }
    let ply_of = |g: &Value| g["state"]["plies"].as_u64();
    match field(msg, "type")? {
        "ping" => Ok(("pong", None)),
        "move" => {
            if !limit.allow() {
                return Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", "too many moves; slow down"));
            }
            let ply = match msg.get("ply") {
                None | Some(Value::Null) => None,
                Some(p) => Some(
                    p.as_u64()
                        .and_then(|p| u32::try_from(p).ok())
                        .ok_or_else(|| ApiError::bad_request("bad_json", "ply must be a whole number"))?,
                ),
            };
            let plies = do_move(app, h, field(msg, "token")?, field(msg, "move")?, ply).await?;
            Ok(("ack", Some(plies as u64)))
        }
        "resign" => {
            let game = do_resign(app, h, field(msg, "token")?).await?;
            Ok(("ack", ply_of(&game)))
        }
        "draw" => {
            let game = do_draw(app, h, field(msg, "token")?, field(msg, "action")?).await?;
            Ok(("ack", ply_of(&game)))
        }
        "rematch" => {
            app.rematch(h, field(msg, "token")?).await?;
            Ok(("ack", None))
        }
        other => Err(ApiError::bad_request("bad_request", format!("unknown message type '{other}'"))),
    }
}
