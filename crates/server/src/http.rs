//! The JSON-over-HTTP API (see docs/api.md).

use crate::app::{now_ms, App, GameHandle, SeatRequest};
use crate::error::ApiError;
use crate::game::SeatKind;
use axum::body::Bytes;
use axum::extract::{FromRequest, Path, RawQuery, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use tabula_core::record::GameLog;
use tabula_core::{Player, TimeControl};

pub type AppState = Arc<App>;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
const MAX_NAME_CHARS: usize = 40;

/// The OpenAPI document, checked in beside the code.
pub const OPENAPI: &str = include_str!("../openapi.json");

pub fn router(app: AppState) -> Router {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/openapi.json", get(openapi))
        .route("/api/games/meta", get(games_meta))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/games/{id}", get(fetch_game))
        .route("/api/games/{id}/join", post(join_game))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/export", get(export))
        .route("/api/games/{id}/positions/{ply}", get(position_at))
        .route("/api/games/{id}/ws", get(crate::ws::upgrade))
        .fallback(crate::web::fallback)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app)
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "this path does not take this method")
}

/// A JSON body whose every failure is a JSON error (`bad_json`, `too_large`).
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "too_large",
                    format!("the body is over {MAX_BODY_BYTES} bytes"),
                )
            } else {
                ApiError::bad_request("bad_json", e.body_text())
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request("bad_json", format!("the body is not valid JSON for this request: {e}")))
    }
}

async fn health() -> Json<Value> {
    Json(json!({ "v": 1, "ok": true }))
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

async fn games_meta(State(app): State<AppState>) -> Json<Value> {
    let games: Vec<Value> = app
        .registry
        .games()
        .iter()
        .map(|g| {
            // Options whose values can fix the clock (Cordots' mode), found by trying each listed value.
            let clock_options: Vec<&str> = g
                .option_specs()
                .iter()
                .filter(|spec| {
                    spec.values.split('|').any(|v| {
                        let pair = [(spec.key.to_string(), v.trim().to_string())];
                        g.new_state(&pair).ok().and_then(|s| s.time_control()).is_some()
                    })
                })
                .map(|spec| spec.key)
                .collect();
            let mut meta = g.describe();
            meta["clock_from_options"] = json!(!clock_options.is_empty());
            meta["clock_options"] = json!(clock_options);
            meta
        })
        .collect();
    Json(json!({ "v": 1, "games": games, "time_controls": ["none", "fischer"] }))
}

fn query_pairs(raw: &Option<String>) -> Vec<(String, String)> {
    raw.as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv.to_string(), String::new()),
        })
        .collect()
}

async fn list_games(State(app): State<AppState>, RawQuery(raw): RawQuery) -> Result<Json<Value>, ApiError> {
    let mut status: Option<String> = None;
    let mut game: Option<String> = None;
    let mut limit = 50u32;
    for (k, v) in query_pairs(&raw) {
        match k.as_str() {
            "status" => match v.as_str() {
                "live" | "waiting" | "finished" => status = Some(v),
                "all" | "" => status = None,
                _ => {
                    return Err(ApiError::bad_request(
                        "bad_request",
                        format!("status '{v}' is not live, waiting, finished or all"),
                    ))
                }
            },
            "game" => game = Some(app.registry.get(&v)?.id().to_string()),
            "limit" => {
                limit = v.parse::<u32>().ok().filter(|n| (1..=500).contains(n)).ok_or_else(|| {
                    ApiError::bad_request("bad_request", format!("limit '{v}' is not a number from 1 to 500"))
                })?
            }
            _ => return Err(ApiError::bad_request("bad_request", format!("unknown query parameter '{k}'"))),
        }
    }
    let rows = app
        .store
        .read(move |c| crate::db::list_games(c, status.as_deref(), game.as_deref(), limit))
        .await
        .map_err(ApiError::internal)?;
    let games: Vec<Value> = rows.iter().map(|r| crate::game::summary_json(app.registry.get(&r.game).ok(), r)).collect();
    Ok(Json(json!({ "v": 1, "games": games })))
}

#[derive(Deserialize)]
struct CreateSeat {
    kind: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    level: Option<String>,
}

#[derive(Deserialize)]
struct CreateRequest {
    game: String,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    time_control: Option<Value>,
    #[serde(default)]
    seats: Option<Vec<CreateSeat>>,
    #[serde(default)]
    seed: Option<u64>,
}

fn clean_name(name: Option<String>) -> Result<Option<String>, ApiError> {
    match name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()) {
        Some(n) if n.chars().count() > MAX_NAME_CHARS || n.chars().any(char::is_control) => Err(ApiError::bad_request(
            "bad_request",
            format!("a name must be at most {MAX_NAME_CHARS} printable characters"),
        )),
        n => Ok(n),
    }
}

/// Read a time control from text (`fischer:300+5`) or its JSON object.
pub fn parse_time_control(v: &Value) -> Result<TimeControl, ApiError> {
    let bad = |m: String| ApiError::bad_request("bad_time_control", m);
    let tc = match v {
        Value::Null => TimeControl::None,
        Value::String(s) => TimeControl::parse(s).map_err(|e| bad(e.to_string()))?,
        Value::Object(_) => serde_json::from_value::<TimeControl>(v.clone())
            .map_err(|e| bad(format!("time control: {e} (kinds: none, fischer, match_clock, shot_clock)")))?,
        _ => return Err(bad("time_control must be a string such as \"fischer:300+5\" or an object".into())),
    };
    let day = 24 * 3_600_000;
    let ok = match tc {
        TimeControl::None => true,
        TimeControl::Fischer { base_ms, increment_ms } => base_ms > 0 && base_ms <= 30 * day && increment_ms <= day,
        TimeControl::MatchClock { total_ms, overtime_ms } => total_ms > 0 && total_ms <= 30 * day && overtime_ms <= day,
        TimeControl::ShotClock { per_move_ms } => per_move_ms > 0 && per_move_ms <= day,
    };
    if !ok {
        return Err(bad("times must be above zero and at most 30 days (increments and overtime at most a day)".into()));
    }
    Ok(tc)
}

async fn create_game(
    State(app): State<AppState>,
    JsonBody(req): JsonBody<CreateRequest>,
) -> Result<Response, ApiError> {
    let game = app.registry.get(&req.game)?;
    let mut options = Vec::new();
    for (k, v) in req.options.unwrap_or_default() {
        let text = match v {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => if b { "on" } else { "off" }.to_string(),
            other => {
                return Err(ApiError::bad_request(
                    "bad_option",
                    format!("option {k}: {other} is not a string, number or boolean"),
                ))
            }
        };
        options.push((k, text));
    }
    let time_control = parse_time_control(req.time_control.as_ref().unwrap_or(&Value::Null))?;
    let seat_reqs = match req.seats {
        None => vec![
            CreateSeat { kind: "me".into(), name: None, level: None },
            CreateSeat { kind: "ai".into(), name: None, level: Some(game.default_level().to_string()) },
        ],
        Some(s) if s.len() == 2 => s,
        Some(s) => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("seats needs exactly two entries, not {}", s.len()),
            ))
        }
    };
    let mut seats = Vec::new();
    for (i, s) in seat_reqs.into_iter().enumerate() {
        let name = clean_name(s.name)?;
        let (kind, mine) = match s.kind.as_str() {
            "me" | "human" => (SeatKind::Human, true),
            "open" => (SeatKind::Open, false),
            "ai" => (SeatKind::Ai, false),
            other => {
                return Err(ApiError::bad_request(
                    "bad_request",
                    format!("seat {}: kind '{other}' is not me, open or ai", i + 1),
                ))
            }
        };
        seats.push(SeatRequest { kind, mine, name, level: s.level });
    }
    let seats: [SeatRequest; 2] = seats.try_into().map_err(|_| ApiError::bad_request("bad_request", "two seats"))?;
    let created = app.create(game, &options, time_control, seats, req.seed).await?;
    let tokens: Map<String, Value> = created.tokens.into_iter().map(|(p, t)| (p, Value::String(t))).collect();
    let invites: Vec<Value> = created
        .invites
        .into_iter()
        .map(|(p, code)| json!({ "player": p, "code": code, "url": format!("/game/{}?invite={code}", created.id) }))
        .collect();
    Ok((StatusCode::CREATED, Json(json!({ "v": 1, "game": created.game, "tokens": tokens, "invites": invites })))
        .into_response())
}

async fn fetch_game(State(app): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let h = app.get(&id).await?;
    let g = h.inner.lock().await;
    Ok(Json(g.to_json(now_ms())))
}

fn game_answer(game: Value) -> Json<Value> {
    Json(json!({ "v": 1, "game": game }))
}

#[derive(Deserialize)]
struct JoinRequest {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

async fn join_game(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<JoinRequest>,
) -> Result<Json<Value>, ApiError> {
    let name = clean_name(req.name)?;
    let h = app.get(&id).await?;
    let mut g = h.inner.lock().await;
    let idx = g
        .seats
        .iter()
        .position(|s| s.invite.as_deref().is_some_and(|c| crate::game::same_secret(c, &req.invite)))
        .ok_or_else(|| ApiError::new(StatusCode::FORBIDDEN, "bad_invite", "this invite code is not for this game"))?;
    if g.seats[idx].kind != SeatKind::Open {
        return Err(ApiError::conflict("seat_taken", "someone has already joined through this invite"));
    }
    if let Some(r) = &g.m.result {
        return Err(ApiError::conflict("game_over", format!("the game is over ({})", r.reason)));
    }
    let snapshot = g.snapshot();
    let token = crate::app::random_string(32);
    let player = g.players()[idx];
    let seat = &mut g.seats[idx];
    seat.kind = SeatKind::Human;
    seat.token = Some(token.clone());
    seat.name = name.unwrap_or_else(|| if seat.name.is_empty() { player.to_string() } else { seat.name.clone() });
    let now = now_ms();
    if g.is_live() {
        g.m.clock.start(now);
    }
    let writes = g.finish(None, now);
    app.commit(&mut g, writes, snapshot).await?;
    app.publish(&h, &mut g);
    tracing::info!(game = %id, player, "seat joined");
    Ok(Json(json!({ "v": 1, "player": player, "token": token, "game": g.to_json(now) })))
}

#[derive(Deserialize)]
struct MoveRequest {
    token: String,
    #[serde(rename = "move")]
    text: String,
    #[serde(default)]
    ply: Option<u32>,
}

/// Play a move with a seat token (HTTP and WebSocket); returns the plies
/// played after it.
pub async fn do_move(
    app: &AppState,
    h: &Arc<GameHandle>,
    token: &str,
    text: &str,
    ply: Option<u32>,
) -> Result<u32, ApiError> {
    let mut g = h.inner.lock().await;
    let player = g.seat_of(token)?;
    app.play_move(h, &mut g, player, text, ply).await?;
    Ok(g.moves.len() as u32)
}

async fn play_move(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<MoveRequest>,
) -> Result<Json<Value>, ApiError> {
    let h = app.get(&id).await?;
    do_move(&app, &h, &req.token, &req.text, req.ply).await?;
    // The state this move produced, as pushed to the watchers.
    let pushed: Value = serde_json::from_str(h.latest().as_str()).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(game_answer(pushed["game"].clone()))
}

#[derive(Deserialize)]
struct TokenRequest {
    token: String,
}

pub async fn do_resign(app: &AppState, h: &Arc<GameHandle>, token: &str) -> Result<Value, ApiError> {
    let mut g = h.inner.lock().await;
    let player = g.seat_of(token)?;
    let now = now_ms();
    let snapshot = g.snapshot();
    let Some(result) = g.m.resign(player, now) else {
        return Err(ApiError::conflict("game_over", "the game is already over"));
    };
    let writes = g.finish(Some(result), now);
    app.commit(&mut g, writes, snapshot).await?;
    app.publish(h, &mut g);
    Ok(g.to_json(now))
}

async fn resign(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<TokenRequest>,
) -> Result<Json<Value>, ApiError> {
    let h = app.get(&id).await?;
    Ok(game_answer(do_resign(&app, &h, &req.token).await?))
}

#[derive(Deserialize)]
struct DrawRequest {
    token: String,
    action: String,
}

pub async fn do_draw(app: &AppState, h: &Arc<GameHandle>, token: &str, action: &str) -> Result<Value, ApiError> {
    let mut g = h.inner.lock().await;
    let player: Player = g.seat_of(token)?;
    if let Some(r) = &g.m.result {
        return Err(ApiError::conflict("game_over", format!("the game is over ({})", r.reason)));
    }
    let now = now_ms();
    let snapshot = g.snapshot();
    let offered_by_opponent = g.draw_offer == Some(player.other());
    match action {
        "offer" if offered_by_opponent => {
            let r = g.m.agree_draw(now);
            g.finish(r, now);
        }
        "offer" => {
            // An AI declines at once: engines do not judge draws here.
            if g.seats[player.other().index()].kind != SeatKind::Ai {
                g.draw_offer = Some(player);
            }
        }
        "accept" | "decline" if !offered_by_opponent => {
            return Err(ApiError::conflict("no_draw_offer", "your opponent has not offered a draw"));
        }
        "accept" => {
            let r = g.m.agree_draw(now);
            g.finish(r, now);
        }
        "decline" => g.draw_offer = None,
        other => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("draw action '{other}' is not offer, accept or decline"),
            ))
        }
    }
    g.updated_at_ms = now;
    let writes = vec![g.game_write()];
    app.commit(&mut g, writes, snapshot).await?;
    app.publish(h, &mut g);
    Ok(g.to_json(now))
}

async fn draw(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<DrawRequest>,
) -> Result<Json<Value>, ApiError> {
    let h = app.get(&id).await?;
    Ok(game_answer(do_draw(&app, &h, &req.token, &req.action).await?))
}

async fn rematch(
    State(app): State<AppState>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<TokenRequest>,
) -> Result<Response, ApiError> {
    let h = app.get(&id).await?;
    let (game, player, token) = app.rematch(&h, &req.token).await?;
    Ok((StatusCode::CREATED, Json(json!({ "v": 1, "game": game, "tokens": { player: token } }))).into_response())
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil_date(ms: u64) -> String {
    let z = (ms / 86_400_000) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

async fn export(State(app): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let h = app.get(&id).await?;
    let g = h.inner.lock().await;
    let players = g.players();
    let log = GameLog {
        game: g.game.id().to_string(),
        options: g.options.clone(),
        start_position: None,
        moves: g.moves.iter().map(|m| m.text.clone()).collect(),
        players: [g.seats[0].name.clone(), g.seats[1].name.clone()],
        result: g.m.result.as_ref().map(|r| r.winner.map_or("draw".to_string(), |w| players[w.index()].to_string())),
        reason: g.m.result.as_ref().map(|r| r.reason.clone()),
        date: Some(civil_date(g.created_at_ms)),
    };
    let text = g.game.export(&log)?;
    let format = g.game.record_format();
    let mime = match format {
        "pgn" => "application/x-chess-pgn; charset=utf-8",
        "sgf" => "application/x-go-sgf; charset=utf-8",
        _ => "text/plain; charset=utf-8",
    };
    let disposition = format!("attachment; filename=\"tabula-{}.{format}\"", g.id);
    Ok(([(header::CONTENT_TYPE, mime.to_string()), (header::CONTENT_DISPOSITION, disposition)], text).into_response())
}

/// `GET /api/games/{id}/positions/{ply}`: the state and board view after the
/// game's first `ply` moves, replayed by the engine (the web Replay page steps
/// through a game with it, so the browser never re-implements a rule).
async fn position_at(
    State(app): State<AppState>,
    Path((id, ply)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let ply: usize = ply
        .parse()
        .map_err(|_| ApiError::bad_request("bad_request", format!("ply must be a number of plies, not '{ply}'")))?;
    let h = app.get(&id).await?;
    let (game, options, moves) = {
        let g = h.inner.lock().await;
        if ply > g.moves.len() {
            return Err(ApiError::not_found(format!("game {id} has {} plies, not {ply}", g.moves.len())));
        }
        (g.game, g.options.clone(), g.moves[..ply].iter().map(|m| m.text.clone()).collect::<Vec<_>>())
    };
    let mut state = game.new_state(&options)?;
    for (i, text) in moves.iter().enumerate() {
        state.play(text).map_err(|e| ApiError::internal(format!("replaying move {} '{text}': {e}", i + 1)))?;
    }
    Ok(Json(json!({
        "v": 1, "id": id, "ply": ply, "move": moves.last(),
        "state": state.state_json(), "view": state.view(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(1_764_460_800_000), "2025-11-30");
    }

    #[test]
    fn time_controls_from_text_and_objects() {
        assert_eq!(
            parse_time_control(&json!("fischer:300+5")).unwrap(),
            TimeControl::Fischer { base_ms: 300_000, increment_ms: 5_000 }
        );
        assert_eq!(
            parse_time_control(&json!({"kind": "shot_clock", "per_move_ms": 45000})).unwrap(),
            TimeControl::ShotClock { per_move_ms: 45_000 }
        );
        assert_eq!(parse_time_control(&json!({"kind": "hourglass"})).unwrap_err().code, "bad_time_control");
        assert_eq!(
            parse_time_control(&json!({"kind": "fischer", "base_ms": 0, "increment_ms": 0})).unwrap_err().code,
            "bad_time_control"
        );
        assert_eq!(parse_time_control(&json!(5)).unwrap_err().code, "bad_time_control");
    }
}
