//! The WebSocket of a game: pushes every change to players and spectators,
//! and takes players' commands (see docs/api.md). It only translates: a
//! message is read into [`ClientMessage`] and run as a room command.
//!
//! The server pings every socket; one that misses its pongs is closed, and
//! so is one whose client takes no message for `ws_send_timeout_ms` (it
//! stopped reading). A message over the size limit closes the socket with
//! 1009, a broken frame with 1002, invalid UTF-8 with 1007.

use crate::app::{App, RoomHandle};
use crate::error::ApiError;
use crate::http::{draw_action, ApiPath, AppState, Client};
use crate::room::{Actor, Command};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::IpAddr;
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

/// A message from a client (`{"v": 1, "type": ..., "id": ...}` around it).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ClientMessage {
    Ping,
    Move {
        #[serde(default)]
        token: Option<String>,
        #[serde(rename = "move")]
        text: String,
        #[serde(default)]
        ply: Option<u32>,
    },
    Resign {
        #[serde(default)]
        token: Option<String>,
    },
    Draw {
        #[serde(default)]
        token: Option<String>,
        action: String,
    },
    Abort {
        #[serde(default)]
        token: Option<String>,
    },
    Rematch {
        #[serde(default)]
        token: Option<String>,
    },
    Claim {
        #[serde(default)]
        token: Option<String>,
        result: String,
    },
    Hello {
        #[serde(default)]
        token: Option<String>,
    },
}

const MESSAGE_TYPES: &[&str] = &["ping", "move", "resign", "draw", "abort", "rematch", "claim", "hello"];

/// Who a socket speaks for: an account (its session cookie, from this
/// site), and the seat it counts as present for.
#[derive(Default)]
struct SocketUser {
    user: Option<i64>,
    seat: Option<tabula_core::Player>,
    _online: Option<crate::app::PresenceGuard>,
}

/// `GET /api/games/{id}/ws`.
pub async fn upgrade(
    State(app): State<AppState>,
    Client(client): Client,
    headers: axum::http::HeaderMap,
    viewer: Result<crate::accounts::Viewer, ApiError>,
    path: Result<ApiPath<String>, ApiError>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    // A socket acts for the account of its session cookie only when it
    // comes from this site: another site's page may open a WebSocket with
    // the cookie (no CORS for WebSockets), and gets a spectator's socket.
    let user = match viewer {
        Ok(v)
            if crate::accounts::same_origin(&headers)
                || !matches!(v.user, Some((_, crate::accounts::Via::Session))) =>
        {
            v.user_id()
        }
        _ => None,
    };
    let ApiPath(id) = match path {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = app.limits.check_socket(client) {
        return e.into_response();
    }
    if let Err(e) = app.read(&id).await {
        return ApiError::from(e).into_response();
    }
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
    let max = app.cfg.net.max_ws_message_bytes;
    // A small read buffer: the default 128 KiB is zeroed on every read.
    ws.read_buffer_size(8 * 1024)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| session(app, id, client, user, socket))
}

fn error_message(id: &Value, e: &ApiError) -> String {
    json!({ "v": 1, "type": "error", "id": id, "error": e.body() }).to_string()
}

/// The close code for a read error, or `None` when the client just went.
fn close_code(e: axum::Error) -> Option<(u16, &'static str)> {
    use tungstenite::error::{CapacityError, Error};
    match *e.into_inner().downcast::<Error>().ok()? {
        Error::Capacity(CapacityError::MessageTooLong { .. }) => Some((1009, "message too big")),
        Error::Capacity(_) => Some((1009, "too big")),
        Error::Utf8(_) => Some((1007, "text is not valid UTF-8")),
        Error::Protocol(tungstenite::error::ProtocolError::ResetWithoutClosingHandshake) => None,
        Error::Protocol(_) => Some((1002, "protocol error")),
        _ => None,
    }
}

/// Send one message, giving up when the client has not taken it within
/// `ws_send_timeout_ms` (it stopped reading: its buffers are full). False
/// if the socket is done for.
async fn send(app: &App, socket: &mut WebSocket, message: Message) -> bool {
    match app.time.timeout(app.cfg.net.ws_send_timeout_ms, socket.send(message)).await {
        Ok(sent) => sent.is_ok(),
        Err(_) => {
            tracing::debug!("closing a WebSocket whose client stopped reading");
            false
        }
    }
}

async fn close(app: &App, socket: &mut WebSocket, code: u16, reason: &'static str) {
    send(app, socket, Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
}

async fn session(app: AppState, id: String, client: IpAddr, user: Option<i64>, mut socket: WebSocket) {
    let Ok((h, mut updates)) = app.watch(&id).await else {
        close(&app, &mut socket, 1011, "the game cannot be loaded").await;
        return;
    };
    let mut who = SocketUser { user, seat: None, _online: user.map(|u| app.presence.connect(u)) };
    if let Some(u) = user {
        let seat = app.slot_of(&h).await.room.seat_of(&Actor::User(u)).ok();
        if let Some(seat) = seat {
            who.seat = Some(seat);
            app.seat_presence(&h, seat, true).await;
        }
    }
    run_session(&app, &h, &mut updates, client, &mut who, &mut socket).await;
    if let Some(seat) = who.seat {
        app.seat_presence(&h, seat, false).await;
    }
}

async fn run_session(
    app: &AppState,
    h: &Arc<RoomHandle>,
    updates: &mut tokio::sync::broadcast::Receiver<axum::extract::ws::Utf8Bytes>,
    client: IpAddr,
    who: &mut SocketUser,
    socket: &mut WebSocket,
) {
    let app = app.clone();
    let mut shutdown = app.shutdown.clone();
    // The ping clock starts before the first message: a client that moves
    // on once it has the state must not find the first ping later.
    let ping_every = app.cfg.net.ws_ping_interval_ms;
    let mut missed = 0u32;
    let mut next_ping = app.time.now_ms() + ping_every;
    if !send(&app, socket, Message::Text(h.latest(&app.time).await)).await {
        return;
    }
    loop {
        tokio::select! {
            update = updates.recv() => {
                let text = match update {
                    Ok(t) => t,
                    // A slow watcher skips to the newest state: each one is complete.
                    Err(RecvError::Lagged(_)) => h.latest(&app.time).await,
                    Err(RecvError::Closed) => break,
                };
                if !send(&app, socket, Message::Text(text)).await {
                    break;
                }
            }
            incoming = socket.recv() => {
                missed = 0;
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Binary(_))) => {
                        let e = ApiError::bad_request("bad_json", "messages are JSON text frames");
                        if !send(&app, socket, Message::Text(error_message(&Value::Null, &e).into())).await { break; }
                        continue;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(e)) => {
                        tracing::debug!(game = %h.id, error = %e, "websocket read failed");
                        if let Some((code, reason)) = close_code(e) {
                            close(&app, socket, code, reason).await;
                        }
                        break;
                    }
                };
                let reply = handle_message(&app, h, client, who, text.as_str()).await;
                if !send(&app, socket, Message::Text(reply.into())).await {
                    break;
                }
            }
            _ = app.time.sleep_until(next_ping) => {
                if missed >= app.cfg.net.ws_missed_pongs {
                    close(&app, socket, 1001, "no answer to ping").await;
                    break;
                }
                missed += 1;
                next_ping = app.time.now_ms() + ping_every;
                if !send(&app, socket, Message::Ping(Default::default())).await {
                    break;
                }
            }
            _ = crate::app::stopped(&mut shutdown) => {
                close(&app, socket, 1001, "the server is stopping").await;
                break;
            }
        }
    }
}

async fn handle_message(
    app: &AppState,
    h: &Arc<RoomHandle>,
    client: IpAddr,
    who: &mut SocketUser,
    text: &str,
) -> String {
    let msg: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return error_message(&Value::Null, &ApiError::bad_request("bad_json", format!("not JSON: {e}"))),
    };
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    match answer(app, h, client, who, msg).await {
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

fn parse(msg: Value) -> Result<ClientMessage, ApiError> {
    match msg.get("v") {
        Some(v) if v == 1 => {}
        other => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("unsupported message version {other:?}; this server speaks v 1"),
            ))
        }
    }
    let kind = msg
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("bad_json", "the message needs a string field 'type'"))?;
    if !MESSAGE_TYPES.contains(&kind) {
        return Err(ApiError::bad_request("bad_request", format!("unknown message type '{kind}'")));
    }
    serde_json::from_value(msg).map_err(|e| ApiError::bad_request("bad_json", format!("bad message: {e}")))
}

async fn answer(
    app: &AppState,
    h: &Arc<RoomHandle>,
    client: IpAddr,
    who: &mut SocketUser,
    msg: Value,
) -> Result<(&'static str, Option<u64>), ApiError> {
    // The seat token when given, else the socket's account.
    let actor = |token: Option<String>| match (Actor::from_token(token), who.user) {
        (Actor::Guest, Some(u)) => Actor::User(u),
        (a, _) => a,
    };
    let (actor, command) = match parse(msg)? {
        ClientMessage::Ping => return Ok(("pong", None)),
        ClientMessage::Hello { token } => {
            // From now on this socket counts as the seat's presence.
            let actor = actor(token);
            let seat = app.slot_of(h).await.room.seat_of(&actor)?;
            if who.seat != Some(seat) {
                if let Some(old) = who.seat.replace(seat) {
                    app.seat_presence(h, old, false).await;
                }
                app.seat_presence(h, seat, true).await;
            }
            return Ok(("ack", None));
        }
        ClientMessage::Move { token, text, ply } => {
            app.limits.check_move(client)?;
            (actor(token), Command::Move { text, ply })
        }
        ClientMessage::Resign { token } => (actor(token), Command::Resign),
        ClientMessage::Draw { token, action } => (actor(token), Command::Draw(draw_action(&action)?)),
        ClientMessage::Abort { token } => (actor(token), Command::Abort),
        ClientMessage::Claim { token, result } => {
            (actor(token), Command::Claim { draw: crate::http::claim_draw(&result)? })
        }
        ClientMessage::Rematch { token } => {
            app.rematch(&h.id, actor(token)).await?;
            return Ok(("ack", None));
        }
    };
    let seat_actor = (who.seat.is_none() && matches!(actor, Actor::Token(_))).then(|| actor.clone());
    let (_, game) = app.execute(&h.id, actor, command).await?;
    if let Some(actor) = seat_actor {
        // A guest who acts with its seat token is that seat's presence from now on.
        let seat = app.slot_of(h).await.room.seat_of(&actor).ok();
        if let Some(seat) = seat {
            who.seat = Some(seat);
            app.seat_presence(h, seat, true).await;
        }
    }
    Ok(("ack", game["state"]["plies"].as_u64()))
}
