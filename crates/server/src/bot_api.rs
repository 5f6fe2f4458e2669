//! The Bot API (lichess's is the model): an account's event stream and a
//! game's stream as NDJSON, and moves, resignations, aborts and draw
//! answers by path, all with `Authorization: Bearer` (an API token with
//! the `bot:play` scope) or the session cookie.

use crate::accounts::Viewer;
use crate::app::PresenceGuard;
use crate::error::ApiError;
use crate::http::{draw_action, ApiPath, ApiQuery, AppState, Client};
use crate::room::{Actor, Command};
use crate::store::{AccountAnswer, AccountQuery, UserGamesFilter};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

/// An empty line is sent this often on an idle stream, so clients and
/// proxies see it is alive.
pub const KEEP_ALIVE_MS: u64 = 7_000;

fn ndjson(
    lines: impl futures_util::Stream<Item = Result<Bytes, std::convert::Infallible>> + Send + 'static,
) -> Response {
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-cache"),
            // nginx would otherwise hold lines back in its buffer.
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(lines),
    )
        .into_response();
    // Not an idle connection while it runs (see net.rs).
    response.extensions_mut().insert(crate::net::Streaming);
    response
}

fn line(v: &Value) -> Bytes {
    let mut text = v.to_string();
    text.push('\n');
    Bytes::from(text)
}

struct EventState {
    app: AppState,
    first: VecDeque<Bytes>,
    rx: broadcast::Receiver<axum::extract::ws::Utf8Bytes>,
    _online: PresenceGuard,
    next_ping: u64,
    shutdown: tokio::sync::watch::Receiver<bool>,
}

/// `GET /api/stream/event`: challenges to the account, and its games
/// starting and ending. First the pending challenges and the live games.
pub(crate) async fn stream_events(State(app): State<AppState>, viewer: Viewer) -> Result<Response, ApiError> {
    let me = viewer.require_scope("bot:play")?.clone();
    let rx = app.subscribe_events(me.id);
    let mut first = VecDeque::new();
    let (incoming, _) = crate::challenges::pending_for(&app, me.id);
    for c in incoming {
        first.push_back(line(&json!({"v": 1, "type": "challenge", "challenge": c})));
    }
    let filter = UserGamesFilter { result: Some("ongoing".into()), limit: 100, ..Default::default() };
    if let AccountAnswer::Games(games) = app.store.accounts(AccountQuery::GamesOf { user_id: me.id, filter }).await? {
        for (row, me) in games.iter().filter(|(r, _)| r.status == crate::room::RoomStatus::Live) {
            let player = app.registry.get(&row.game).ok().map(|g| g.players()[*me]);
            let game = json!({"id": row.id, "game": row.game, "player": player, "rated": row.rated});
            let mut event = json!({"v": 1, "type": "gameStart", "game": game});
            if let Some((tid, _)) = app.tournament_of(&row.id) {
                event["tournament"] = json!(tid);
            }
            first.push_back(line(&event));
        }
    }
    let state = EventState {
        _online: app.presence.connect(me.id),
        next_ping: app.time.now_ms() + KEEP_ALIVE_MS,
        shutdown: app.shutdown.clone(),
        app,
        first,
        rx,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        if let Some(b) = s.first.pop_front() {
            return Some((Ok(b), s));
        }
        loop {
            tokio::select! {
                msg = s.rx.recv() => match msg {
                    Ok(text) => {
                        let mut b = text.as_str().to_string();
                        b.push('\n');
                        return Some((Ok(Bytes::from(b)), s));
                    }
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
                _ = s.app.time.sleep_until(s.next_ping) => {
                    s.next_ping = s.app.time.now_ms() + KEEP_ALIVE_MS;
                    return Some((Ok(Bytes::from_static(b"\n")), s));
                }
                _ = crate::app::stopped(&mut s.shutdown) => return None,
            }
        }
    });
    Ok(ndjson(stream))
}

/// Counts a stream as its seat's presence while it lasts.
struct SeatGuard {
    app: AppState,
    handle: Arc<crate::app::RoomHandle>,
    seat: tabula_core::Player,
}

impl Drop for SeatGuard {
    fn drop(&mut self) {
        let (app, h, seat) = (self.app.clone(), self.handle.clone(), self.seat);
        tokio::spawn(async move { app.seat_presence(&h, seat, false).await });
    }
}

struct GameState {
    app: AppState,
    first: Option<Bytes>,
    rx: broadcast::Receiver<axum::extract::ws::Utf8Bytes>,
    handle: Arc<crate::app::RoomHandle>,
    done: bool,
    next_ping: u64,
    shutdown: tokio::sync::watch::Receiver<bool>,
    _seat: SeatGuard,
}

fn over(game: &Value) -> bool {
    matches!(game["status"].as_str(), Some("finished" | "aborted"))
}

/// `GET /api/bot/game/stream/{id}`: `gameFull` first, then `gameState`
/// after every change, until the game is over.
pub(crate) async fn stream_game(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let me = viewer.require_scope("bot:play")?.clone();
    let (h, rx) = app.watch(&id).await?;
    let (seat, game) = {
        let slot = app.slot_of(&h).await;
        let seat = slot.room.seat_of(&Actor::User(me.id))?;
        (seat, slot.room.to_json(app.time.now_ms()))
    };
    app.seat_presence(&h, seat, true).await;
    let player = game["players"][seat.index()].clone();
    let done = over(&game);
    let state = GameState {
        first: Some(line(&json!({"v": 1, "type": "gameFull", "player": player, "game": game}))),
        rx,
        handle: h.clone(),
        done,
        next_ping: app.time.now_ms() + KEEP_ALIVE_MS,
        shutdown: app.shutdown.clone(),
        _seat: SeatGuard { app: app.clone(), handle: h, seat },
        app,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        if let Some(b) = s.first.take() {
            return Some((Ok(b), s));
        }
        if s.done {
            return None;
        }
        loop {
            tokio::select! {
                msg = s.rx.recv() => {
                    let text = match msg {
                        Ok(t) => t,
                        Err(RecvError::Lagged(_)) => s.handle.latest(&s.app.time).await,
                        Err(RecvError::Closed) => return None,
                    };
                    let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else { continue };
                    let out = match v["type"].as_str() {
                        Some("state") => {
                            s.done = over(&v["game"]);
                            json!({"v": 1, "type": "gameState", "game": v["game"]})
                        }
                        Some("draw_declined") => json!({"v": 1, "type": "drawDeclined", "by": v["by"], "ply": v["ply"]}),
                        _ => continue,
                    };
                    return Some((Ok(line(&out)), s));
                }
                _ = s.app.time.sleep_until(s.next_ping) => {
                    s.next_ping = s.app.time.now_ms() + KEEP_ALIVE_MS;
                    return Some((Ok(Bytes::from_static(b"\n")), s));
                }
                _ = crate::app::stopped(&mut s.shutdown) => return None,
            }
        }
    });
    Ok(ndjson(stream))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlyQuery {
    #[serde(default)]
    ply: Option<u32>,
}

async fn act(app: &AppState, viewer: &Viewer, id: &str, command: Command) -> Result<Json<Value>, ApiError> {
    let me = viewer.require_scope("bot:play")?;
    app.execute(id, Actor::User(me.id), command).await?;
    Ok(Json(json!({"v": 1, "ok": true})))
}

/// `POST /api/bot/game/{id}/move/{move}?ply=N`.
pub(crate) async fn play(
    State(app): State<AppState>,
    Client(client): Client,
    viewer: Viewer,
    ApiPath((id, text)): ApiPath<(String, String)>,
    ApiQuery(q): ApiQuery<PlyQuery>,
) -> Result<Json<Value>, ApiError> {
    app.limits.check_move(client)?;
    act(&app, &viewer, &id, Command::Move { text, ply: q.ply }).await
}

/// `POST /api/bot/game/{id}/resign`.
pub(crate) async fn resign(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    act(&app, &viewer, &id, Command::Resign).await
}

/// `POST /api/bot/game/{id}/abort`.
pub(crate) async fn abort(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    act(&app, &viewer, &id, Command::Abort).await
}

/// `POST /api/bot/game/{id}/draw/{offer|accept|decline}`.
pub(crate) async fn draw(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath((id, action)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let action = draw_action(&action)?;
    act(&app, &viewer, &id, Command::Draw(action)).await
}
