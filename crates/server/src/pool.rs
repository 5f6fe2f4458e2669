//! Quick pairing: players wait in a pool per game, options, clock and
//! rated/casual; every second (and on every join) the pool's matcher
//! (`tabula_ratings::pool::pair`, whose accepted gap widens with waiting)
//! pairs them and a game starts with both seats bound to the accounts.
//! A waiting player who stops asking (`GET /api/pool`) for 30 s leaves.

use crate::accounts::Viewer;
use crate::app::{CreateRequest, SeatRequest};
use crate::error::ApiError;
use crate::http::{parse_time_control, AppState, JsonBody};
use crate::room::Terms;
use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use tabula_core::{DynGame, TimeControl};
use tabula_ratings::pool::{pair, Waiting};
use tabula_ratings::RatingRange;

/// A waiting player who has not asked for news for this long leaves.
pub const POOL_IDLE_MS: u64 = 30_000;
/// How long a pairing is remembered for its players to learn the game.
const PAIRED_KEEP_MS: u64 = 10 * 60_000;

/// One waiting player.
#[derive(Clone)]
pub(crate) struct Entry {
    user: (i64, String),
    game: &'static dyn DynGame,
    options: Vec<(String, String)>,
    time_control: TimeControl,
    rated: bool,
    range: Option<RatingRange>,
    rating: f64,
    deviation: f64,
    joined_ms: u64,
    seen_ms: u64,
}

impl Entry {
    fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}",
            self.game.id(),
            serde_json::to_string(&self.options).unwrap_or_default(),
            serde_json::to_string(&self.time_control).unwrap_or_default(),
            self.rated
        )
    }

    fn json(&self) -> Value {
        let options: Map<String, Value> =
            self.options.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        json!({
            "game": self.game.id(), "options": options, "time_control": self.time_control,
            "category": crate::ratings::category_of(&self.time_control), "rated": self.rated,
            "rating_range": self.range.map(|r| [r.min, r.max]), "joined_at_ms": self.joined_ms,
        })
    }
}

/// The pools: who waits, and the games started for whom.
#[derive(Default)]
pub(crate) struct Pools {
    waiting: Vec<Entry>,
    paired: HashMap<i64, (String, u64)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JoinPool {
    game: String,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    time_control: Option<Value>,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    rating_range: Option<Value>,
}

/// `POST /api/pool/join`: wait for an opponent (replaces any earlier wait).
pub(crate) async fn join(
    State(app): State<AppState>,
    viewer: Viewer,
    JsonBody(req): JsonBody<JoinPool>,
) -> Result<Json<Value>, ApiError> {
    let me = viewer.require_scope("challenge:write").or_else(|_| viewer.require_scope("bot:play"))?.clone();
    let game = app.registry.get(&req.game)?;
    let options = crate::http::option_texts(req.options)?;
    let options = game.normalize_options(&options)?;
    let time_control = parse_time_control(req.time_control.as_ref().unwrap_or(&Value::Null))?;
    let range = match req.rating_range.as_ref().filter(|v| !v.is_null()) {
        None => None,
        Some(v) => Some(
            serde_json::from_value::<RatingRange>(v.clone())
                .map_err(|e| ApiError::bad_request("bad_request", format!("rating_range: {e}")))?,
        ),
    };
    // The category of the clock the game will really use (options may set it).
    let category = match game.new_state(&options).ok().and_then(|s| s.time_control()) {
        Some(tc) => crate::ratings::category_of(&tc),
        None => crate::ratings::category_of(&time_control),
    };
    let now = app.time.now_ms();
    let r = crate::ratings::current(app.store.as_ref(), me.id, game.id(), &category).await?.at(now);
    let entry = Entry {
        user: (me.id, me.name.clone()),
        game,
        options,
        time_control,
        rated: req.rated,
        range,
        rating: r.rating,
        deviation: r.deviation,
        joined_ms: now,
        seen_ms: now,
    };
    let answer = entry.json();
    {
        let mut pools = app.pools();
        pools.waiting.retain(|e| e.user.0 != me.id);
        pools.paired.remove(&me.id);
        pools.waiting.push(entry);
    }
    run_matcher(&app).await;
    Ok(Json(status_of(&app, me.id, Some(answer))))
}

fn status_of(app: &AppState, user: i64, fallback: Option<Value>) -> Value {
    let pools = app.pools();
    if let Some((game_id, _)) = pools.paired.get(&user) {
        return json!({"v": 1, "status": "paired", "game_id": game_id});
    }
    match pools.waiting.iter().find(|e| e.user.0 == user) {
        Some(e) => json!({"v": 1, "status": "waiting", "pool": e.json()}),
        None => json!({"v": 1, "status": "none", "pool": fallback}),
    }
}

/// `GET /api/pool`: waiting, paired (with the game), or none. Asking keeps
/// the player in the pool.
pub(crate) async fn status(State(app): State<AppState>, viewer: Viewer) -> Result<Json<Value>, ApiError> {
    let me = viewer.require()?.id;
    let now = app.time.now_ms();
    if let Some(e) = app.pools().waiting.iter_mut().find(|e| e.user.0 == me) {
        e.seen_ms = now;
    }
    Ok(Json(status_of(&app, me, None)))
}

/// `POST /api/pool/leave`.
pub(crate) async fn leave(State(app): State<AppState>, viewer: Viewer) -> Result<Json<Value>, ApiError> {
    let me = viewer.require()?.id;
    let mut pools = app.pools();
    pools.waiting.retain(|e| e.user.0 != me);
    pools.paired.remove(&me);
    Ok(Json(json!({"v": 1, "ok": true})))
}

/// Drop idle waiters, pair whoever can be paired, and start their games.
pub(crate) async fn run_matcher(app: &AppState) {
    let now = app.time.now_ms();
    let pairs: Vec<(Entry, Entry)> = {
        let mut pools = app.pools();
        pools.waiting.retain(|e| now.saturating_sub(e.seen_ms) < POOL_IDLE_MS);
        pools.paired.retain(|_, (_, at)| now.saturating_sub(*at) < PAIRED_KEEP_MS);
        let mut by_key: HashMap<String, Vec<Entry>> = HashMap::new();
        for e in &pools.waiting {
            by_key.entry(e.key()).or_default().push(e.clone());
        }
        let mut pairs = Vec::new();
        for entries in by_key.values() {
            let waiting: Vec<Waiting<i64>> = entries
                .iter()
                .map(|e| {
                    let w = Waiting::new(e.user.0, e.rating, e.deviation, now.saturating_sub(e.joined_ms));
                    match e.range {
                        Some(r) if e.rated => w.with_range(r),
                        _ => w,
                    }
                })
                .collect();
            for (a, b) in pair(&waiting) {
                let find = |id: i64| entries.iter().find(|e| e.user.0 == id).cloned();
                if let (Some(a), Some(b)) = (find(a), find(b)) {
                    pairs.push((a, b));
                }
            }
        }
        let paired: Vec<i64> = pairs.iter().flat_map(|(a, b)| [a.user.0, b.user.0]).collect();
        pools.waiting.retain(|e| !paired.contains(&e.user.0));
        pairs
    };
    for (a, b) in pairs {
        let (first, second) = if rand::random::<bool>() { (&a, &b) } else { (&b, &a) };
        let req = CreateRequest {
            game: a.game,
            options: a.options.clone(),
            time_control: a.time_control,
            seats: [
                SeatRequest::Account { user: first.user.clone() },
                SeatRequest::Account { user: second.user.clone() },
            ],
            seed: None,
            terms: Terms { rated: a.rated, public: false, category: None, rating_range: None },
            tournament: None,
        };
        match app.create(req).await {
            Ok(created) => {
                let mut pools = app.pools();
                for user in [a.user.0, b.user.0] {
                    pools.paired.insert(user, (created.id.clone(), now));
                }
                tracing::info!(game = %created.id, "quick pairing started a game");
            }
            Err(e) => {
                tracing::warn!(error = %e, "quick pairing could not start a game; both wait again");
                let mut pools = app.pools();
                pools.waiting.push(a);
                pools.waiting.push(b);
            }
        }
    }
}

/// Run the matcher every second.
pub(crate) async fn matcher(app: AppState) {
    let mut shutdown = app.shutdown.clone();
    loop {
        // In a cluster, only the leader holds the pools.
        tokio::select! {
            _ = app.until_leader() => {}
            _ = shutdown.changed() => return,
        }
        tokio::select! {
            _ = app.time.sleep(1_000) => run_matcher(&app).await,
            _ = shutdown.changed() => return,
        }
    }
}
