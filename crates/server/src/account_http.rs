//! The accounts API: sign up, log in and out, close, API tokens, bot
//! accounts, and the public profiles, rating histories, leaderboards and
//! bots list (docs/api.md, "Players").

use crate::accounts::{
    check_password, check_username, hash_password, me_json, new_session_id, new_token_secret, secret_hash,
    secure_request, session_cookie, session_id, token_json, verify_password, Viewer, SCOPES, SESSION_MS,
};
use crate::error::ApiError;
use crate::http::{ApiPath, ApiQuery, AppState, Client, JsonBody};
use crate::ratings::{rating_json, stored_rating};
use crate::room::summary_json;
use crate::store::{AccountAnswer, AccountQuery, AccountWrite, TokenRow, UserGamesFilter, UserRow, Write};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Credentials {
    username: String,
    password: String,
}

async fn user_by_name(app: &AppState, name: &str) -> Result<Option<UserRow>, ApiError> {
    match app.store.accounts(AccountQuery::UserByName(name.to_string())).await? {
        AccountAnswer::User(u) => Ok(u),
        _ => Ok(None),
    }
}

/// A new session for `user`: stored (hashed), and its cookie.
async fn open_session(app: &AppState, headers: &HeaderMap, user: &UserRow) -> Result<String, ApiError> {
    let id = new_session_id();
    let now = app.time.now_ms();
    let mut writes = Vec::new();
    // A session id the browser brought along is never reused (fixation).
    if let Some(old) = session_id(headers) {
        writes.push(Write::Account(AccountWrite::DeleteSession { id_hash: secret_hash(&old) }));
    }
    writes.push(Write::Account(AccountWrite::NewSession {
        id_hash: secret_hash(&id),
        user_id: user.id,
        created_at_ms: now,
        expires_at_ms: now + SESSION_MS,
    }));
    app.store.commit(writes).await?;
    Ok(session_cookie(Some(&id), secure_request(app, headers)))
}

fn with_cookie(status: StatusCode, cookie: String, body: Value) -> Response {
    (status, [(header::SET_COOKIE, cookie)], Json(body)).into_response()
}

/// `POST /api/account/signup`.
pub(crate) async fn signup(
    State(app): State<AppState>,
    Client(client): Client,
    headers: HeaderMap,
    viewer: Viewer,
    JsonBody(req): JsonBody<Credentials>,
) -> Result<Response, ApiError> {
    let _ = viewer; // only for the CSRF check of a logged-in browser
    let name = req.username.trim().to_string();
    check_username(&name)?;
    check_password(&req.password)?;
    app.limits.check_signup(client)?;
    let taken = || ApiError::new(StatusCode::CONFLICT, "username_taken", format!("the username '{name}' is taken"));
    if user_by_name(&app, &name).await?.is_some() {
        return Err(taken());
    }
    let hash = hash_password(req.password).await?;
    let row = UserRow {
        id: 0,
        name_key: name.to_lowercase(),
        name: name.clone(),
        password_hash: Some(hash),
        kind: "human".into(),
        builtin_level: None,
        created_at_ms: app.time.now_ms(),
        closed_at_ms: None,
    };
    match app.store.commit(vec![Write::Account(AccountWrite::NewUser(row))]).await {
        Err(e) if e.is_constraint() => return Err(taken()),
        r => r?,
    }
    let user = user_by_name(&app, &name).await?.ok_or_else(|| ApiError::internal("the new account vanished"))?;
    tracing::info!(user = %user.name, "account created");
    let cookie = open_session(&app, &headers, &user).await?;
    Ok(with_cookie(StatusCode::CREATED, cookie, json!({ "v": 1, "user": me_json(&user) })))
}

/// `POST /api/account/login`: the same error, after the same work, whether
/// the name exists or not.
pub(crate) async fn login(
    State(app): State<AppState>,
    Client(client): Client,
    headers: HeaderMap,
    JsonBody(req): JsonBody<Credentials>,
) -> Result<Response, ApiError> {
    let name = req.username.trim().to_string();
    app.limits.check_login(client, &name)?;
    let user = if name.is_empty() || name.len() > 64 { None } else { user_by_name(&app, &name).await? };
    let hash = user.as_ref().filter(|u| u.closed_at_ms.is_none()).and_then(|u| u.password_hash.clone());
    let ok = verify_password(req.password, hash).await;
    let user = match (ok, user) {
        (true, Some(u)) => u,
        _ => {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "bad_credentials", "wrong username or password"));
        }
    };
    let cookie = open_session(&app, &headers, &user).await?;
    Ok(with_cookie(StatusCode::OK, cookie, json!({ "v": 1, "user": me_json(&user) })))
}

/// `POST /api/account/logout`.
pub(crate) async fn logout(
    State(app): State<AppState>,
    headers: HeaderMap,
    viewer: Viewer,
) -> Result<Response, ApiError> {
    let _ = viewer; // the CSRF check
    if let Some(id) = session_id(&headers) {
        app.store.commit(vec![Write::Account(AccountWrite::DeleteSession { id_hash: secret_hash(&id) })]).await?;
    }
    let cookie = session_cookie(None, secure_request(&app, &headers));
    Ok(with_cookie(StatusCode::OK, cookie, json!({ "v": 1, "ok": true })))
}

/// `GET /api/account`: the account, or `user: null` for a guest (no
/// session, or one that ended), so a guest page load logs no error. A bad
/// API token is still `401 bad_api_token` (the extractor refuses it).
pub(crate) async fn me(viewer: Viewer) -> Result<Json<Value>, ApiError> {
    let user = viewer.user.as_ref().map(|(u, _)| me_json(u));
    Ok(Json(json!({ "v": 1, "user": user })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PasswordBody {
    password: String,
}

/// `POST /api/account/close`: the password again, then the account is
/// closed for good; its games stay under the name `closed-<id>`.
pub(crate) async fn close(
    State(app): State<AppState>,
    headers: HeaderMap,
    viewer: Viewer,
    JsonBody(req): JsonBody<PasswordBody>,
) -> Result<Response, ApiError> {
    let user = viewer.require_session()?.clone();
    if !verify_password(req.password, user.password_hash.clone()).await {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "bad_credentials", "wrong password"));
    }
    let name = format!("closed-{}", user.id);
    let now = app.time.now_ms();
    app.store
        .commit(vec![Write::Account(AccountWrite::CloseUser { user_id: user.id, name: name.clone(), at_ms: now })])
        .await?;
    app.rename_user_in_rooms(user.id, &name).await;
    if let Some(c) = &app.cluster {
        c.publish_renamed(user.id, &name);
    }
    tracing::info!(user = user.id, "account closed");
    let cookie = session_cookie(None, secure_request(&app, &headers));
    Ok(with_cookie(StatusCode::OK, cookie, json!({ "v": 1, "ok": true })))
}

/// `POST /api/account/bot`: make this account a bot account (only before
/// it has played).
pub(crate) async fn make_bot(State(app): State<AppState>, viewer: Viewer) -> Result<Json<Value>, ApiError> {
    let mut user = viewer.require_session()?.clone();
    if user.kind != "bot" {
        let filter = UserGamesFilter { limit: 1, ..Default::default() };
        let games = match app.store.accounts(AccountQuery::GamesOf { user_id: user.id, filter }).await? {
            AccountAnswer::Games(g) => g.len(),
            _ => 0,
        };
        if games > 0 {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "has_games",
                "only an account that has not played yet can become a bot account",
            ));
        }
        app.store.commit(vec![Write::Account(AccountWrite::MakeBot { user_id: user.id })]).await?;
        user.kind = "bot".into();
    }
    Ok(Json(json!({ "v": 1, "user": me_json(&user) })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewToken {
    #[serde(default)]
    description: String,
    #[serde(default)]
    scopes: Option<Vec<String>>,
}

/// `POST /api/account/tokens`: the secret is in this answer only.
pub(crate) async fn create_token(
    State(app): State<AppState>,
    viewer: Viewer,
    JsonBody(req): JsonBody<NewToken>,
) -> Result<Response, ApiError> {
    let user = viewer.require_session()?.clone();
    let description = req.description.trim().to_string();
    if description.chars().count() > 100 || description.chars().any(char::is_control) {
        return Err(ApiError::bad_request("bad_request", "a token description is at most 100 printable characters"));
    }
    let scopes = req.scopes.unwrap_or_else(|| vec!["bot:play".into()]);
    if scopes.is_empty() {
        return Err(ApiError::bad_request("bad_request", "a token needs at least one scope"));
    }
    if let Some(s) = scopes.iter().find(|s| !SCOPES.contains(&s.as_str())) {
        return Err(ApiError::bad_request(
            "bad_request",
            format!("unknown scope '{s}' (scopes: {})", SCOPES.join(", ")),
        ));
    }
    let existing = match app.store.accounts(AccountQuery::TokensOf(user.id)).await? {
        AccountAnswer::Tokens(t) => t.into_iter().filter(|t| t.revoked_at_ms.is_none()).count(),
        _ => 0,
    };
    if existing >= 20 {
        return Err(ApiError::new(StatusCode::CONFLICT, "too_many_tokens", "revoke a token first (at most 20)"));
    }
    let secret = new_token_secret();
    let hash = secret_hash(&secret);
    let row = TokenRow {
        id: 0,
        user_id: user.id,
        secret_hash: hash.clone(),
        description,
        scopes: scopes.join(" "),
        created_at_ms: app.time.now_ms(),
        revoked_at_ms: None,
    };
    app.store.commit(vec![Write::Account(AccountWrite::NewToken(row))]).await?;
    let AccountAnswer::Token(Some((_, stored))) = app.store.accounts(AccountQuery::Token(hash)).await? else {
        return Err(ApiError::internal("the new token vanished"));
    };
    let mut token = token_json(&stored);
    token["secret"] = json!(secret);
    Ok((StatusCode::CREATED, Json(json!({ "v": 1, "token": token }))).into_response())
}

/// `GET /api/account/tokens` (never the secrets).
pub(crate) async fn list_tokens(State(app): State<AppState>, viewer: Viewer) -> Result<Json<Value>, ApiError> {
    let user = viewer.require_session()?;
    let tokens = match app.store.accounts(AccountQuery::TokensOf(user.id)).await? {
        AccountAnswer::Tokens(t) => t,
        _ => Vec::new(),
    };
    let list: Vec<Value> = tokens.iter().filter(|t| t.revoked_at_ms.is_none()).map(token_json).collect();
    Ok(Json(json!({ "v": 1, "tokens": list })))
}

/// `DELETE /api/account/tokens/{id}` (and `POST .../revoke`).
pub(crate) async fn revoke_token(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<i64>,
) -> Result<Json<Value>, ApiError> {
    let user = viewer.require_session()?;
    let owns = match app.store.accounts(AccountQuery::TokensOf(user.id)).await? {
        AccountAnswer::Tokens(t) => t.iter().any(|t| t.id == id && t.revoked_at_ms.is_none()),
        _ => false,
    };
    if !owns {
        return Err(ApiError::not_found(format!("you have no token {id}")));
    }
    let at_ms = app.time.now_ms();
    app.store.commit(vec![Write::Account(AccountWrite::RevokeToken { id, user_id: user.id, at_ms })]).await?;
    Ok(Json(json!({ "v": 1, "ok": true })))
}

fn unknown_user(name: &str) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "unknown_user", format!("no player '{name}'"))
}

/// The account of a public name (closed ones too, under their new name).
pub(crate) async fn public_user(app: &AppState, name: &str) -> Result<UserRow, ApiError> {
    if name.is_empty() || name.len() > 64 {
        return Err(unknown_user(name));
    }
    // A closed account is shown only as the anonymous name in its games.
    user_by_name(app, name).await?.filter(|u| u.closed_at_ms.is_none()).ok_or_else(|| unknown_user(name))
}

async fn ratings_of(app: &AppState, user_id: i64) -> Result<Vec<Value>, ApiError> {
    let now = app.time.now_ms();
    Ok(match app.store.accounts(AccountQuery::RatingsOf(user_id)).await? {
        AccountAnswer::Ratings(r) => r.iter().map(|(row, _)| rating_json(row, &stored_rating(row), now)).collect(),
        _ => Vec::new(),
    })
}

/// The public form of an account.
pub(crate) fn public_user_json(app: &AppState, u: &UserRow) -> Value {
    json!({
        "username": u.name,
        "kind": u.kind,
        "builtin": u.builtin_level.is_some(),
        "level": u.builtin_level,
        "created_at_ms": u.created_at_ms,
        "closed": u.closed_at_ms.is_some(),
        "online": u.builtin_level.is_some() || app.presence.is_online(u.id),
    })
}

/// `GET /api/users/{name}`.
pub(crate) async fn profile(
    State(app): State<AppState>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let user = public_user(&app, &name).await?;
    let ratings = ratings_of(&app, user.id).await?;
    let [games, wins, losses, draws, aborted] = match app.store.accounts(AccountQuery::Counts(user.id)).await? {
        AccountAnswer::Counts(c) => c,
        _ => [0; 5],
    };
    Ok(Json(json!({
        "v": 1,
        "user": public_user_json(&app, &user),
        "ratings": ratings,
        "counts": {"games": games, "wins": wins, "losses": losses, "draws": draws, "aborted": aborted},
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoryQuery {
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    category: Option<String>,
}

/// `GET /api/users/{name}/history`.
pub(crate) async fn history(
    State(app): State<AppState>,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> Result<Json<Value>, ApiError> {
    let user = public_user(&app, &name).await?;
    let game =
        q.game.filter(|g| !g.is_empty()).map(|g| app.registry.get(&g).map(|g| g.id().to_string())).transpose()?;
    let category = q.category.filter(|c| !c.is_empty()).map(|c| crate::ratings::parse_category(&c)).transpose()?;
    let points = match app.store.accounts(AccountQuery::History { user_id: user.id, game, category }).await? {
        AccountAnswer::History(p) => p,
        _ => Vec::new(),
    };
    let points: Vec<Value> = points
        .iter()
        .map(|(at, rating, deviation, game_id, game, category)| {
            json!({ "at_ms": at, "rating": rating.round() as i64, "deviation": (deviation * 10.0).round() / 10.0,
                    "game_id": game_id, "game": game, "category": category })
        })
        .collect();
    Ok(Json(json!({ "v": 1, "points": points })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UserGamesQuery {
    #[serde(default)]
    game: Option<String>,
    #[serde(default)]
    result: Option<String>,
    #[serde(default)]
    limit: Option<String>,
    #[serde(default)]
    before: Option<String>,
}

/// `GET /api/users/{name}/games`.
pub(crate) async fn user_games(
    State(app): State<AppState>,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<UserGamesQuery>,
) -> Result<Json<Value>, ApiError> {
    let user = public_user(&app, &name).await?;
    let game =
        q.game.filter(|g| !g.is_empty()).map(|g| app.registry.get(&g).map(|g| g.id().to_string())).transpose()?;
    let result = match q.result.as_deref() {
        None | Some("") | Some("all") => None,
        Some(r @ ("win" | "loss" | "draw" | "aborted" | "ongoing")) => Some(r.to_string()),
        Some(r) => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("result '{r}' is not win, loss, draw, aborted, ongoing or all"),
            ))
        }
    };
    let number = |v: Option<String>, what: &str, max: u64| -> Result<Option<u64>, ApiError> {
        v.map(|v| {
            tabula_core::options::parse_number(&v).filter(|n| (1..=max).contains(n)).ok_or_else(|| {
                ApiError::bad_request("bad_request", format!("{what} '{v}' is not a number from 1 to {max}"))
            })
        })
        .transpose()
    };
    let limit = number(q.limit, "limit", 200)?.unwrap_or(50) as u32;
    let before_ms = number(q.before, "before", u64::MAX / 2)?;
    let filter = UserGamesFilter { game, result, before_ms, limit };
    let rows = match app.store.accounts(AccountQuery::GamesOf { user_id: user.id, filter }).await? {
        AccountAnswer::Games(g) => g,
        _ => Vec::new(),
    };
    let games: Vec<Value> = rows
        .iter()
        .map(|(row, me)| {
            let g = app.registry.get(&row.game).ok();
            let mut s = summary_json(g, row);
            s["my_player"] = json!(g.map(|g| g.players()[*me]));
            s["result_for_me"] = json!(crate::store::outcome_for(row, *me));
            s
        })
        .collect();
    Ok(Json(json!({ "v": 1, "games": games })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoardQuery {
    game: String,
    category: String,
    #[serde(default)]
    limit: Option<String>,
}

/// `GET /api/leaderboard?game=&category=`: established ratings only.
pub(crate) async fn leaderboard(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<BoardQuery>,
) -> Result<Json<Value>, ApiError> {
    let game = app.registry.get(&q.game)?.id().to_string();
    let category = crate::ratings::parse_category(&q.category)?;
    let limit = match q.limit {
        None => 50,
        Some(v) => {
            tabula_core::options::parse_number(&v).filter(|n| (1..=200).contains(n)).map(|n| n as u32).ok_or_else(
                || ApiError::bad_request("bad_request", format!("limit '{v}' is not a number from 1 to 200")),
            )?
        }
    };
    let now = app.time.now_ms();
    let rows = match app
        .store
        .accounts(AccountQuery::Leaderboard {
            game: game.clone(),
            category: category.clone(),
            max_deviation: tabula_ratings::PROVISIONAL_DEVIATION,
            // Inactivity can make some provisional again: read more and filter.
            limit: limit * 2 + 20,
        })
        .await?
    {
        AccountAnswer::Ratings(r) => r,
        _ => Vec::new(),
    };
    let mut players = Vec::new();
    for (row, owner) in &rows {
        let now_rating = stored_rating(row).at(now);
        if now_rating.is_provisional() {
            continue;
        }
        players.push(json!({
            "rank": players.len() + 1, "user": owner, "rating": now_rating.rounded(),
            "deviation": (now_rating.deviation * 10.0).round() / 10.0, "games": row.games,
        }));
        if players.len() as u32 >= limit {
            break;
        }
    }
    Ok(Json(json!({ "v": 1, "game": game, "category": category, "players": players })))
}

/// `GET /api/bots`: every bot account with its ratings.
pub(crate) async fn bots(State(app): State<AppState>) -> Result<Json<Value>, ApiError> {
    let users = match app.store.accounts(AccountQuery::Bots).await? {
        AccountAnswer::Users(u) => u,
        _ => Vec::new(),
    };
    let mut list = Vec::new();
    for u in &users {
        let mut b = public_user_json(&app, u);
        b["ratings"] = json!(ratings_of(&app, u.id).await?);
        list.push(b);
    }
    Ok(Json(json!({ "v": 1, "bots": list })))
}
