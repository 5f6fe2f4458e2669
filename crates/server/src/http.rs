//! The JSON-over-HTTP API (see docs/api.md). Handlers only translate: a
//! request becomes a room [`Command`] run by [`App::execute`], and its
//! outcome or error becomes JSON.

use crate::accounts::Viewer;
use crate::app::{App, CreateRequest, SeatRequest};
use crate::error::ApiError;
use crate::net::ClientAddr;
use crate::room::{summary_json, Actor, Command, DrawAction, Outcome, RoomStatus};
use crate::store::ListFilter;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use tabula_core::record::GameLog;
use tabula_core::TimeControl;

/// The state every handler gets.
pub type AppState = Arc<App>;

const MAX_NAME_CHARS: usize = 40;

/// The OpenAPI document, checked in beside the code.
pub const OPENAPI: &str = include_str!("../openapi.json");

/// The API's routes, the WebSocket and the embedded front end.
pub fn router(app: AppState) -> Router {
    let compression = tower_http::compression::CompressionLayer::new();
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
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/export", get(export))
        .route("/api/games/{id}/positions/{ply}", get(position_at))
        .route("/api/games/{id}/claim", post(claim))
        .route("/api/games/{id}/ws", get(crate::ws::upgrade))
        .route("/api/analysis", post(crate::analysis::analyse))
        .route("/api/seeks", get(seeks))
        .route("/api/account", get(crate::account_http::me))
        .route("/api/account/logout", post(crate::account_http::logout))
        .route("/api/account/close", post(crate::account_http::close))
        .route("/api/account/bot", post(crate::account_http::make_bot))
        .route("/api/account/tokens", get(crate::account_http::list_tokens).post(crate::account_http::create_token))
        .route("/api/account/tokens/{id}", axum::routing::delete(crate::account_http::revoke_token))
        .route("/api/account/tokens/{id}/revoke", post(crate::account_http::revoke_token))
        .route("/api/users/{name}", get(crate::account_http::profile))
        .route("/api/users/{name}/history", get(crate::account_http::history))
        .route("/api/users/{name}/games", get(crate::account_http::user_games))
        .route("/api/leaderboard", get(crate::account_http::leaderboard))
        .route("/api/bots", get(crate::account_http::bots))
        .merge(leader_routes(app.clone()))
        .route("/api/tournaments/{id}/ws", get(crate::tournaments::socket))
        .route("/api/stream/event", get(crate::bot_api::stream_events))
        .route("/api/bot/game/stream/{id}", get(crate::bot_api::stream_game))
        .route("/api/bot/game/{id}/move/{move}", post(crate::bot_api::play))
        .route("/api/bot/game/{id}/resign", post(crate::bot_api::resign))
        .route("/api/bot/game/{id}/abort", post(crate::bot_api::abort))
        .route("/api/bot/game/{id}/draw/{action}", post(crate::bot_api::draw))
        .fallback(crate::web::fallback)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(app.cfg.net.max_body_bytes))
        .layer(compression)
        .with_state(app)
}

/// The routes of what only the leader of a cluster holds in memory:
/// challenges, quick-pairing pools and tournaments, and the counts of
/// signups and login attempts, so their limits hold for the whole cluster.
/// On another node of a cluster they are forwarded to the leader (see
/// [`to_leader`]).
fn leader_routes(app: AppState) -> Router<AppState> {
    Router::new()
        .route("/api/account/signup", post(crate::account_http::signup))
        .route("/api/account/login", post(crate::account_http::login))
        .route("/api/challenges", get(crate::challenges::list).post(crate::challenges::create))
        .route("/api/challenges/{id}", get(crate::challenges::show))
        .route("/api/challenges/{id}/accept", post(crate::challenges::accept))
        .route("/api/challenges/{id}/decline", post(crate::challenges::decline))
        .route("/api/challenges/{id}/cancel", post(crate::challenges::cancel))
        .route("/api/tournaments", get(crate::tournaments::list).post(crate::tournaments::create))
        .route("/api/tournaments/{id}", get(crate::tournaments::show))
        .route("/api/tournaments/{id}/join", post(crate::tournaments::join))
        .route("/api/tournaments/{id}/withdraw", post(crate::tournaments::withdraw))
        .route("/api/tournaments/{id}/start", post(crate::tournaments::start))
        .route("/api/pool", get(crate::pool::status))
        .route("/api/pool/join", post(crate::pool::join))
        .route("/api/pool/leave", post(crate::pool::leave))
        .route_layer(axum::middleware::from_fn_with_state(app, to_leader))
}

/// Marks a request another node forwarded to the leader, so it is never
/// forwarded again (an extension: no client can set it).
#[derive(Clone, Copy)]
struct ForwardedToLeader;

/// On a node of a cluster that does not lead, send the request to the
/// leader over NATS and give its answer back.
async fn to_leader(
    State(app): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Some(cluster) = app.cluster.clone() else { return next.run(request).await };
    if app.is_leader() || request.extensions().get::<ForwardedToLeader>().is_some() {
        return next.run(request).await;
    }
    let client = request.extensions().get::<ClientAddr>().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0);
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, app.cfg.net.max_body_bytes).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", "the request body is too large")
                .into_response()
        }
    };
    let forwarded = crate::cluster::HttpRequest {
        method: parts.method.to_string(),
        uri: parts.uri.to_string(),
        headers: parts
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        body: body.to_vec(),
        client,
    };
    // No leader answers while one is being chosen (at start, or after the
    // leader died): wait a little for the next.
    let began = std::time::Instant::now();
    let answer = loop {
        match cluster.to_leader(&forwarded).await {
            Some(answer) => break Some(answer),
            None if began.elapsed() < std::time::Duration::from_secs(5) && cluster.is_connected() => {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await
            }
            None => break None,
        }
    };
    let Some(answer) = answer else {
        return ApiError {
            retry_after_secs: Some(2),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "leader_unavailable",
                "challenges, pools, tournaments, signups and logins go through the cluster's leader, which cannot be reached now; try again shortly",
            )
        }
        .into_response();
    };
    let mut response = Response::new(axum::body::Body::from(answer.body));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (k, v) in answer.headers {
        if let (Ok(k), Ok(v)) = (header::HeaderName::try_from(k), header::HeaderValue::from_str(&v)) {
            response.headers_mut().append(k, v);
        }
    }
    response
}

/// The leader runs a request another node forwarded through its own
/// routes.
pub(crate) async fn serve_forwarded(router: Router, payload: &[u8], limit: usize) -> crate::cluster::HttpResponse {
    use tower::ServiceExt;
    let failed = |status: StatusCode, message: String| {
        let e = ApiError::new(status, "internal", message);
        crate::cluster::HttpResponse {
            status: e.status.as_u16(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: serde_json::to_vec(&json!({"v": 1, "error": e.body()})).unwrap_or_default(),
        }
    };
    let forwarded: crate::cluster::HttpRequest = match serde_json::from_slice(payload) {
        Ok(r) => r,
        Err(e) => return failed(StatusCode::BAD_REQUEST, format!("a forwarded request cannot be read: {e}")),
    };
    let mut request = axum::extract::Request::new(axum::body::Body::from(forwarded.body));
    *request.method_mut() = forwarded.method.parse().unwrap_or(axum::http::Method::GET);
    *request.uri_mut() = forwarded.uri.parse().unwrap_or_default();
    for (k, v) in &forwarded.headers {
        // Bodies arrive whole: no compression or chunking to undo.
        if k == "accept-encoding" || k == "transfer-encoding" {
            continue;
        }
        if let (Ok(k), Ok(v)) = (header::HeaderName::try_from(k.as_str()), header::HeaderValue::from_str(v)) {
            request.headers_mut().append(k, v);
        }
    }
    request.extensions_mut().insert(ForwardedToLeader);
    request.extensions_mut().insert(ClientAddr(forwarded.client));
    let response = match router.oneshot(request).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let (parts, body) = response.into_parts();
    let body = match axum::body::to_bytes(body, limit.max(16 << 20)).await {
        Ok(b) => b.to_vec(),
        Err(e) => return failed(StatusCode::INTERNAL_SERVER_ERROR, format!("the leader's answer was not read: {e}")),
    };
    crate::cluster::HttpResponse {
        status: parts.status.as_u16(),
        headers: parts
            .headers
            .iter()
            .filter(|(k, _)| *k != header::CONTENT_LENGTH && *k != header::TRANSFER_ENCODING)
            .filter_map(|(k, v)| Some((k.to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        body,
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "this path does not take this method")
}

/// The client's address (limits count by it).
pub struct Client(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let addr = parts.extensions.get::<ClientAddr>().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0);
        Ok(Client(addr))
    }
}

/// Path parameters whose every failure (bad UTF-8 included) is JSON.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| ApiPath(p.0))
            .map_err(|e| ApiError::bad_request("bad_request", format!("bad path: {}", e.body_text())))
    }
}

/// A query string, percent-decoded, whose every failure is JSON.
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| ApiQuery(q.0))
            .map_err(|e| ApiError::bad_request("bad_request", e.body_text()))
    }
}

/// A JSON body whose every failure is a JSON error (`bad_json`,
/// `too_large`, `timeout`). The body must arrive within the body timeout.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, app: &AppState) -> Result<Self, Self::Rejection> {
        let limit = app.cfg.net.max_body_bytes;
        let read = Bytes::from_request(req, app);
        let bytes = app
            .time
            .timeout(app.cfg.net.body_timeout_ms, read)
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "timeout",
                    format!("the body did not arrive within {} ms", app.cfg.net.body_timeout_ms),
                )
            })?
            .map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", format!("the body is over {limit} bytes"))
                } else {
                    ApiError::bad_request("bad_json", e.body_text())
                }
            })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request("bad_json", format!("the body is not valid JSON for this request: {e}")))
    }
}

async fn health(State(app): State<AppState>) -> Json<Value> {
    let h = app.health();
    let mut answer = json!({
        "v": 1, "ok": true,
        "games_in_memory": h.games_in_memory, "connections": h.connections,
        "ai_thinking": h.ai_thinking, "ai_queued": h.ai_queued,
        "latency": {
            "commits": latency(&h.commits),
            "moves": latency(&h.moves),
        },
    });
    if let Some(node) = h.node {
        answer["cluster"] = json!({
            "node": node,
            "nats_connected": h.nats_connected,
            "games_relayed": h.games_relayed,
            "leader": h.leader,
        });
    }
    Json(answer)
}

fn latency(s: &crate::app::LatencySummary) -> Value {
    json!({"count": s.count, "p50_ms": s.p50_ms, "p99_ms": s.p99_ms, "max_ms": s.max_ms})
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
            // Options whose values can fix the clock (Cordots' mode).
            let clock_options = g.clock_option_keys();
            let mut meta = g.describe();
            meta["clock_from_options"] = json!(!clock_options.is_empty());
            meta["clock_options"] = json!(clock_options);
            meta
        })
        .collect();
    Json(json!({ "v": 1, "games": games, "time_controls": ["none", "fischer"] }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    limit: Option<String>,
}

async fn list_games(State(app): State<AppState>, ApiQuery(q): ApiQuery<ListQuery>) -> Result<Json<Value>, ApiError> {
    let status = match q.status.as_deref() {
        None | Some("") | Some("all") => None,
        Some(s) => {
            Some(s.parse::<RoomStatus>().map_err(|e| ApiError::bad_request("bad_request", format!("{e} (or all)")))?)
        }
    };
    let game = q.game.map(|g| app.registry.get(&g).map(|g| g.id().to_string())).transpose()?;
    let limit = match q.limit {
        None => 50,
        Some(v) => {
            tabula_core::options::parse_number(&v).filter(|n| (1..=500).contains(n)).map(|n| n as u32).ok_or_else(
                || ApiError::bad_request("bad_request", format!("limit '{v}' is not a number from 1 to 500")),
            )?
        }
    };
    let rows = app.store.list(ListFilter { status, game, public_only: false, limit }).await?;
    let games: Vec<Value> = rows.iter().map(|r| summary_json(app.registry.get(&r.game).ok(), r)).collect();
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
struct CreateBody {
    game: String,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    time_control: Option<Value>,
    #[serde(default)]
    seats: Option<Vec<CreateSeat>>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    public: bool,
    #[serde(default)]
    rating_range: Option<Value>,
}

/// The actor of a request: the seat token when one is given, else the
/// logged-in account, else a guest.
pub fn actor(token: Option<String>, viewer: &Viewer) -> Actor {
    // An API token plays only with the `bot:play` scope.
    let user = viewer.require_scope("bot:play").ok().map(|u| u.id);
    match (Actor::from_token(token), user) {
        (Actor::Guest, Some(id)) => Actor::User(id),
        (a, _) => a,
    }
}

/// A rating range: `[min, max]` or `"1300-1700"`.
fn parse_rating_range(v: &Value) -> Result<[i32; 2], ApiError> {
    let bad = |m: String| ApiError::bad_request("bad_request", m);
    let range = match v {
        Value::String(s) => tabula_ratings::RatingRange::parse(s).map_err(|e| bad(e.to_string()))?,
        Value::Array(a) if a.len() == 2 => {
            let n = |x: &Value| x.as_u64().map(|n| n as u32);
            tabula_ratings::RatingRange::new(n(&a[0]), n(&a[1])).map_err(|e| bad(e.to_string()))?
        }
        _ => return Err(bad("rating_range is [min, max] or \"min-max\"".into())),
    };
    Ok([range.min.unwrap_or(0) as i32, range.max.unwrap_or(10_000) as i32])
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

/// A request's `options` object as `key=value` texts: numbers and booleans
/// (`on`/`off`) are accepted and turned into text.
pub(crate) fn option_texts(options: Option<Map<String, Value>>) -> Result<Vec<(String, String)>, ApiError> {
    let mut texts = Vec::new();
    for (k, v) in options.unwrap_or_default() {
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
        texts.push((k, text));
    }
    Ok(texts)
}

async fn create_game(
    State(app): State<AppState>,
    Client(client): Client,
    viewer: Viewer,
    JsonBody(req): JsonBody<CreateBody>,
) -> Result<Response, ApiError> {
    app.limits.check_create(client)?;
    let game = app.registry.get(&req.game)?;
    let options = option_texts(req.options)?;
    let time_control = parse_time_control(req.time_control.as_ref().unwrap_or(&Value::Null))?;
    let seat_bodies = match req.seats {
        None => vec![
            CreateSeat { kind: "me".into(), name: None, level: None },
            CreateSeat { kind: "ai".into(), name: None, level: None },
        ],
        Some(s) if s.len() == 2 => s,
        Some(s) => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("seats needs exactly two entries, not {}", s.len()),
            ))
        }
    };
    let mut seats = Vec::with_capacity(2);
    let mut account = viewer.require_scope("bot:play").ok().map(|u| (u.id, u.name.clone()));
    for (i, s) in seat_bodies.into_iter().enumerate() {
        let name = clean_name(s.name)?;
        seats.push(match s.kind.as_str() {
            // The logged-in creator's (first) own seat is bound to the account.
            "me" | "human" => SeatRequest::Me { name, user: account.take() },
            "open" => SeatRequest::Open { name },
            "ai" => SeatRequest::Ai { level: s.level },
            other => {
                return Err(ApiError::bad_request(
                    "bad_request",
                    format!("seat {}: kind '{other}' is not me, open or ai", i + 1),
                ))
            }
        });
    }
    let rating_range = req.rating_range.as_ref().filter(|v| !v.is_null()).map(parse_rating_range).transpose()?;
    if req.rated {
        let user = viewer.require_scope("bot:play")?;
        let me = seats.iter().filter(|s| matches!(s, SeatRequest::Me { .. })).count();
        let open = seats.iter().filter(|s| matches!(s, SeatRequest::Open { .. })).count();
        if me != 1 || open != 1 {
            return Err(ApiError::bad_request(
                "bad_request",
                "a rated game has your seat and one open seat (AI opponents are bot accounts, challenged by name)",
            ));
        }
        if user.kind == "bot" {
            return Err(ApiError::bad_request("bad_request", "a bot account plays through challenges, not seeks"));
        }
    } else if rating_range.is_some() {
        return Err(ApiError::bad_request("bad_request", "a rating range is only for rated games"));
    }
    if req.public && !seats.iter().any(|s| matches!(s, SeatRequest::Open { .. })) {
        return Err(ApiError::bad_request("bad_request", "a public game needs an open seat for someone to join"));
    }
    let seats: [SeatRequest; 2] =
        seats.try_into().map_err(|_| ApiError::bad_request("bad_request", "a game has two seats"))?;
    let terms = crate::room::Terms { rated: req.rated, public: req.public, category: None, rating_range };
    let created = app
        .create(CreateRequest { game, options, time_control, seats, seed: req.seed, terms, tournament: None })
        .await?;
    let tokens: Map<String, Value> =
        created.tokens.into_iter().map(|(p, t)| (p.to_string(), Value::String(t))).collect();
    let invites = invites_json(&created.id, &created.invites);
    Ok((StatusCode::CREATED, Json(json!({ "v": 1, "game": created.game, "tokens": tokens, "invites": invites })))
        .into_response())
}

fn invites_json(id: &str, invites: &[(&'static str, String)]) -> Vec<Value> {
    invites
        .iter()
        .map(|(p, code)| json!({ "player": p, "code": code, "url": format!("/game/{id}?invite={code}") }))
        .collect()
}

async fn fetch_game(State(app): State<AppState>, ApiPath(id): ApiPath<String>) -> Result<Json<Value>, ApiError> {
    let room = app.read(&id).await?;
    Ok(Json(room.to_json(app.time.now_ms())))
}

fn game_answer(game: Value) -> Json<Value> {
    Json(json!({ "v": 1, "game": game }))
}

#[derive(Deserialize)]
struct JoinBody {
    #[serde(default)]
    invite: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    seat: Option<String>,
}

async fn join_game(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<JoinBody>,
) -> Result<Json<Value>, ApiError> {
    let name = clean_name(req.name)?;
    // An API token takes a seat only with the scope to play in it.
    let user = viewer.require_scope("bot:play").ok().map(|u| (u.id, u.name.clone()));
    let command = if req.invite.is_empty() {
        // A lobby join: no invite, any eligible player takes the open seat.
        let (game, category) = {
            let room = app.read(&id).await?;
            (room.game, room.terms.category.clone().unwrap_or_default())
        };
        let seat = match req.seat.as_deref() {
            None | Some("") => None,
            Some(p) => Some(game.player_by_name(p).ok_or_else(|| {
                ApiError::bad_request("bad_request", format!("seat '{p}' is none of {}", game.players().join(", ")))
            })?),
        };
        let rating = match &user {
            Some((uid, _)) => {
                let r = crate::ratings::current(app.store.as_ref(), *uid, game.id(), &category).await?;
                Some(crate::ratings::seat_rating(&r, app.time.now_ms()))
            }
            None => None,
        };
        Command::JoinOpen { joiner: crate::room::Joiner { user, rating, seat }, name }
    } else {
        Command::Join { invite: req.invite, name, user }
    };
    let (outcome, game) = app.execute(&id, Actor::Guest, command).await?;
    let Outcome::Joined { player, token } = outcome else { unreachable!("join answers with a seat") };
    let player = game["players"][player.index()].clone();
    tracing::info!(game = %id, %player, "seat joined");
    Ok(Json(json!({ "v": 1, "player": player, "token": token, "game": game })))
}

#[derive(Deserialize)]
struct MoveBody {
    #[serde(default)]
    token: Option<String>,
    #[serde(rename = "move")]
    text: String,
    #[serde(default)]
    ply: Option<u32>,
}

async fn play_move(
    State(app): State<AppState>,
    Client(client): Client,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<MoveBody>,
) -> Result<Json<Value>, ApiError> {
    app.limits.check_move(client)?;
    let (_, game) = app.execute(&id, actor(req.token, &viewer), Command::Move { text: req.text, ply: req.ply }).await?;
    Ok(game_answer(game))
}

#[derive(Deserialize)]
struct TokenBody {
    #[serde(default)]
    token: Option<String>,
}

async fn resign(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<TokenBody>,
) -> Result<Json<Value>, ApiError> {
    let (_, game) = app.execute(&id, actor(req.token, &viewer), Command::Resign).await?;
    Ok(game_answer(game))
}

async fn abort(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<TokenBody>,
) -> Result<Json<Value>, ApiError> {
    let (_, game) = app.execute(&id, actor(req.token, &viewer), Command::Abort).await?;
    Ok(game_answer(game))
}

#[derive(Deserialize)]
struct DrawBody {
    #[serde(default)]
    token: Option<String>,
    action: String,
}

/// Read a draw action, with the error the API has always given.
pub fn draw_action(action: &str) -> Result<DrawAction, ApiError> {
    serde_json::from_value(json!(action)).map_err(|_| {
        ApiError::bad_request("bad_request", format!("draw action '{action}' is not offer, accept or decline"))
    })
}

async fn draw(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<DrawBody>,
) -> Result<Json<Value>, ApiError> {
    let action = draw_action(&req.action)?;
    let (_, game) = app.execute(&id, actor(req.token, &viewer), Command::Draw(action)).await?;
    Ok(game_answer(game))
}

#[derive(Deserialize)]
struct ClaimBody {
    #[serde(default)]
    token: Option<String>,
    result: String,
}

/// Read a claim (`win` or `draw`): true for a draw.
pub fn claim_draw(result: &str) -> Result<bool, ApiError> {
    match result {
        "win" => Ok(false),
        "draw" => Ok(true),
        other => Err(ApiError::bad_request("bad_request", format!("claim result '{other}' is not win or draw"))),
    }
}

async fn claim(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<ClaimBody>,
) -> Result<Json<Value>, ApiError> {
    let draw = claim_draw(&req.result)?;
    let (_, game) = app.execute(&id, actor(req.token, &viewer), Command::Claim { draw }).await?;
    Ok(game_answer(game))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeeksQuery {
    #[serde(default)]
    game: Option<String>,
}

/// `GET /api/seeks`: the public waiting games, newest first, with whether
/// the asker may join each.
async fn seeks(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiQuery(q): ApiQuery<SeeksQuery>,
) -> Result<Json<Value>, ApiError> {
    let game =
        q.game.filter(|g| !g.is_empty()).map(|g| app.registry.get(&g).map(|g| g.id().to_string())).transpose()?;
    let rows =
        app.store.list(ListFilter { status: Some(RoomStatus::Waiting), game, public_only: true, limit: 200 }).await?;
    let me = viewer.user.as_ref().map(|(u, _)| u);
    let now = app.time.now_ms();
    let mut list = Vec::new();
    for row in &rows {
        let Ok(g) = app.registry.get(&row.game) else { continue };
        let seats: Vec<crate::room::Seat> = serde_json::from_str(&row.seats).unwrap_or_default();
        let Some(open) = seats.iter().position(|s| s.kind == crate::room::SeatKind::Open) else { continue };
        let creator = &seats[1 - open];
        let range: Option<[i32; 2]> = row.rating_range.as_deref().and_then(|r| serde_json::from_str(r).ok());
        let category = row.category.clone().unwrap_or_default();
        let eligible = match me {
            None => !row.rated,
            Some(u) if creator.user_id == Some(u.id) => false,
            Some(u) => match range {
                None => true,
                Some([lo, hi]) => {
                    let r = crate::ratings::current(app.store.as_ref(), u.id, g.id(), &category).await?;
                    let r = crate::ratings::seat_rating(&r, now).rating;
                    (lo..=hi).contains(&r)
                }
            },
        };
        list.push(json!({
            "id": row.id, "game": row.game, "name": g.name(),
            "options": summary_json(Some(g), row)["options"].clone(),
            "time_control": serde_json::from_str::<Value>(&row.time_control).ok(),
            "category": row.category, "rated": row.rated, "rating_range": range,
            "creator": {
                "user": creator.user, "name": if creator.name.is_empty() { g.players()[1 - open] } else { &creator.name },
                "rating": creator.rating.map(|r| r.rating), "provisional": creator.rating.map(|r| r.provisional),
            },
            "open_player": g.players()[open],
            "created_at_ms": row.created_at_ms,
            "eligible": eligible,
        }));
    }
    Ok(Json(json!({ "v": 1, "seeks": list })))
}

async fn rematch(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
    JsonBody(req): JsonBody<TokenBody>,
) -> Result<Response, ApiError> {
    let token = req.token.clone().unwrap_or_default();
    let started = app.rematch(&id, actor(req.token, &viewer)).await?;
    let new_id = started.game["id"].as_str().unwrap_or_default().to_string();
    let invites = invites_json(&new_id, &started.invites);
    // An account acting without a token holds its seat by the account.
    let tokens = if token.is_empty() { json!({}) } else { json!({ started.player: token }) };
    Ok((StatusCode::CREATED, Json(json!({ "v": 1, "game": started.game, "tokens": tokens, "invites": invites })))
        .into_response())
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

async fn export(State(app): State<AppState>, ApiPath(id): ApiPath<String>) -> Result<Response, ApiError> {
    let room = app.read(&id).await?;
    let g = &*room;
    let players = g.players();
    let log = GameLog {
        game: g.game.id().to_string(),
        options: g.options.clone(),
        start_position: None,
        moves: g.moves.iter().map(|m| m.text.clone()).collect(),
        players: [g.seat_name(tabula_core::Player::First), g.seat_name(tabula_core::Player::Second)],
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
    ApiPath((id, ply)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let ply: usize = ply
        .parse()
        .map_err(|_| ApiError::bad_request("bad_request", format!("ply must be a number of plies, not '{ply}'")))?;
    let (game, options, moves) = {
        let room = app.read(&id).await?;
        let g = &*room;
        if ply > g.moves.len() {
            return Err(ApiError::not_found(format!("game {id} has {} plies, not {ply}", g.moves.len())));
        }
        (g.game, g.options.clone(), g.moves[..ply].iter().map(|m| m.text.clone()).collect::<Vec<_>>())
    };
    let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
    let state = game.replay(&options, None, &moves).map_err(|e| ApiError::internal(format!("replaying: {e}")))?;
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

    #[test]
    fn draw_actions() {
        assert_eq!(draw_action("offer").unwrap(), DrawAction::Offer);
        assert_eq!(draw_action("dance").unwrap_err().code, "bad_request");
    }
}
