//! Tournaments on the server (issue 15): the HTTP API of docs/api.md, and
//! the driver that runs `tabula_tournament::Tournament` for real.
//!
//! The engine is pure; this module gives it accounts, games and time.
//! Every change to a tournament (join, withdraw, start, a result, a
//! wakeup) happens under one lock, is stored (settings, entrants and the
//! engine's serialised state in one row) before anyone hears of it, and
//! then: each game the engine paired that has no server game yet is
//! created, both seats bound to the accounts as for an accepted challenge,
//! rated if the tournament is, each account's event stream told
//! `gameStart` with the tournament's id; and the tournament's WebSockets
//! are told to fetch it again.
//!
//! A game's result comes back from `App::mutate` the moment it is stored.
//! A game aborted because a side never moved (the first-move timer, or an
//! untimed game left idle until it expired) is recorded as a forfeit loss
//! for the side that was on move; players cannot abort or rematch a
//! tournament game. On start-up every tournament not finished is loaded:
//! results stored while it was down are recorded, games it paired but never
//! created are created, and its wakeups are scheduled again.

use crate::accounts::Viewer;
use crate::app::{App, CreateRequest, SeatRequest};
use crate::error::ApiError;
use crate::http::{parse_time_control, ApiPath, ApiQuery, AppState, Client, JsonBody};
use crate::room::{random_string, Actor, Command, Room, RoomStatus, Terms};
use crate::store::{StoreError, TournamentAnswer, TournamentQuery, TournamentRow, TournamentWrite, UserRow, Write};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tabula_core::TimeControl;
use tabula_tournament::knockout::{KnockoutMatch, MatchGame, Slot};
use tabula_tournament::{
    ByeKind, Config, Entrant, Event, Game, GameResult, GameSettings, PlayerId, Side, Status, System, TieBreak,
    Tournament, TournamentError,
};
use tokio::sync::{broadcast, Notify};

/// The default wait before a tournament starts, when the request names none.
pub const DEFAULT_START_DELAY_MS: u64 = 5 * 60_000;
/// The furthest ahead a tournament may be set to start.
pub const MAX_START_DELAY_MS: u64 = 30 * 24 * 3_600_000;
/// How far in the past a requested start may be and still mean "now".
pub const START_SLACK_MS: u64 = 60_000;
/// The most players a tournament may take.
pub const MAX_PLAYERS: u32 = 1_000;
/// The most characters in a tournament's name.
pub const MAX_NAME_CHARS: usize = 80;

/// The tournaments in play: loaded on demand (every unfinished one at
/// start-up), changed under one lock.
#[derive(Default)]
pub(crate) struct Tournaments {
    loaded: tokio::sync::Mutex<HashMap<String, Entry>>,
    watchers: std::sync::Mutex<HashMap<String, broadcast::Sender<()>>>,
    wake: Notify,
}

impl Tournaments {
    /// Cluster mode, on a node that does not lead: tournament `id` changed
    /// on the leader; its copy here is read again for its watchers.
    pub(crate) async fn changed_elsewhere(&self, id: &str) {
        self.loaded.lock().await.remove(id);
        self.changed(id);
    }

    fn watch(&self, id: &str) -> broadcast::Receiver<()> {
        let mut map = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(id.to_string()).or_insert_with(|| broadcast::channel(16).0).subscribe()
    }

    fn changed(&self, id: &str) {
        let mut map = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = map.get(id) {
            if tx.send(()).is_err() {
                map.remove(id);
            }
        }
    }
}

/// An entrant's account, by player id.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Account {
    user_id: i64,
    user: String,
    bot: bool,
    rating: i32,
    provisional: bool,
}

/// What the server keeps beside the engine's state.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Meta {
    name: String,
    game: String,
    options: Vec<(String, String)>,
    time_control: TimeControl,
    rated: bool,
    category: String,
    starts_at_ms: u64,
    created_by: (i64, String),
    min_rating: Option<i32>,
    max_rating: Option<i32>,
    max_players: Option<u32>,
    bots_allowed: bool,
    /// By player id.
    entrants: Vec<Account>,
    /// Why it ended before it started (too few players at the start time).
    #[serde(default)]
    cancelled: Option<String>,
}

struct Entry {
    id: String,
    created_at_ms: u64,
    meta: Meta,
    t: Tournament,
    /// Tournament game number → server game id.
    games: BTreeMap<u32, String>,
}

impl Entry {
    fn status(&self) -> &'static str {
        if self.meta.cancelled.is_some() {
            return "finished";
        }
        match self.t.status() {
            Status::Registration => "registration",
            Status::Running => "running",
            Status::Finished => "finished",
        }
    }

    fn row(&self, now: u64) -> Result<TournamentRow, ApiError> {
        let ser = |e: serde_json::Error| ApiError::internal(format!("cannot store the tournament: {e}"));
        Ok(TournamentRow {
            id: self.id.clone(),
            status: self.status().to_string(),
            created_at_ms: self.created_at_ms,
            updated_at_ms: now,
            meta: serde_json::to_string(&self.meta).map_err(ser)?,
            state: serde_json::to_string(&self.t).map_err(ser)?,
        })
    }

    fn from_row(row: &TournamentRow) -> Result<Entry, StoreError> {
        let damaged = |what: &str, e: serde_json::Error| StoreError::Damaged {
            game: format!("tournament {}", row.id),
            reason: format!("{what}: {e}"),
        };
        Ok(Entry {
            id: row.id.clone(),
            created_at_ms: row.created_at_ms,
            meta: serde_json::from_str(&row.meta).map_err(|e| damaged("settings", e))?,
            t: serde_json::from_str(&row.state).map_err(|e| damaged("state", e))?,
            games: BTreeMap::new(),
        })
    }

    /// The player id of account `user`, if it entered.
    fn pid_of(&self, user: i64) -> Option<PlayerId> {
        self.meta.entrants.iter().position(|a| a.user_id == user).map(|i| PlayerId(i as u32))
    }

    fn user(&self, p: PlayerId) -> &str {
        self.meta.entrants.get(p.index()).map_or("?", |a| a.user.as_str())
    }

    /// When the driver must next act on it.
    fn due_at(&self) -> Option<u64> {
        if self.meta.cancelled.is_some() {
            return None;
        }
        match self.t.status() {
            Status::Registration => Some(self.meta.starts_at_ms),
            Status::Running => self.t.next_wakeup(),
            Status::Finished => None,
        }
    }
}

/// The tournament result of a finished server game. Its first seat is the
/// tournament game's first player. An aborted game (a side never moved in
/// time, or an untimed game left idle) is a forfeit lost by the side on
/// move; a game that keeps a score (Dots) reports its margin.
pub(crate) fn game_result(room: &Room) -> GameResult {
    let side = |i: usize| if i == 0 { Side::First } else { Side::Second };
    if room.status() == RoomStatus::Aborted {
        let late = side(room.m.state.to_move().index());
        return GameResult::Forfeit { winner: Some(late.other()) };
    }
    let winner = room.m.result.as_ref().and_then(|r| r.winner).map(|p| side(p.index()));
    let result = GameResult::Played { winner, margin: None };
    match room.m.state.score() {
        Some([a, b]) => result.with_margin(a - b),
        None => result,
    }
}

fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, code, message)
}

fn not_found(id: &str) -> ApiError {
    ApiError::not_found(format!("no tournament '{id}'"))
}

/// The engine's refusal as an API error.
fn engine_error(e: TournamentError) -> ApiError {
    let message = e.to_string();
    match e {
        TournamentError::Config(_) => ApiError::bad_request("bad_system", message),
        TournamentError::AlreadyStarted | TournamentError::LateJoin(_) => conflict("already_started", message),
        TournamentError::NotStarted => conflict("not_started", message),
        TournamentError::Finished => conflict("finished", message),
        TournamentError::DuplicateName(_) => conflict("already_joined", message),
        TournamentError::Full(_) => conflict("full", message),
        TournamentError::TooFewPlayers { .. } => conflict("too_few_players", message),
        TournamentError::Withdrawn(_) => conflict("withdrawn", message),
        TournamentError::EmptyName | TournamentError::UnknownPlayer(_) | TournamentError::UnknownGame(_) => {
            ApiError::internal(message)
        }
        TournamentError::AlreadyRecorded(_) => conflict("already_recorded", message),
    }
}

/// A clock in its text form: `none`, `fischer:180+2`, `match:20+5`, `shot:45`.
fn clock_text(tc: &TimeControl) -> String {
    let s = |ms: u64| {
        let v = ms as f64 / 1000.0;
        if v.fract() == 0.0 {
            format!("{}", v as u64)
        } else {
            format!("{v}")
        }
    };
    match *tc {
        TimeControl::None => "none".into(),
        TimeControl::Fischer { base_ms, increment_ms } => format!("fischer:{}+{}", s(base_ms), s(increment_ms)),
        TimeControl::MatchClock { total_ms, overtime_ms } => {
            format!("match:{}+{}", s(total_ms / 60), s(overtime_ms / 60))
        }
        TimeControl::ShotClock { per_move_ms } => format!("shot:{}", s(per_move_ms)),
    }
}

/// The tournament's options with a game's extra settings over them.
fn game_options(meta: &Meta, settings: &GameSettings) -> Vec<(String, String)> {
    let mut options = meta.options.clone();
    for (k, v) in &settings.options {
        match options.iter_mut().find(|(key, _)| key == k) {
            Some(entry) => entry.1 = v.clone(),
            None => options.push((k.clone(), v.clone())),
        }
    }
    options
}

fn game_clock(meta: &Meta, settings: &GameSettings) -> Result<TimeControl, ApiError> {
    match &settings.clock {
        Some(text) => parse_time_control(&Value::String(text.clone())),
        None => Ok(meta.time_control),
    }
}

/// The game option that says which stage of a championship a game belongs
/// to (`stage=group|knockout`), for the games whose rules differ there.
const STAGE: &str = "stage";

/// A game with a knockout stage (Dots: a level score at the move limit goes
/// to extra time instead of being a draw) plays a knockout's games at that
/// stage, unless the creator set the stage of those games: a form that knows
/// nothing of the game's rules still makes a knockout by its rules.
fn knockout_stage_by_default(game: &dyn tabula_core::DynGame, system: &mut System) {
    let has_knockout_stage =
        game.option_specs().iter().any(|spec| spec.key == STAGE && spec.values.split('|').any(|v| v == "knockout"));
    if !has_knockout_stage {
        return;
    }
    if let System::Knockout { rules } | System::Championship { knockout: rules, .. } = system {
        for settings in [&mut rules.settings, &mut rules.tiebreak_settings, &mut rules.decider_settings] {
            if !settings.options.iter().any(|(k, _)| k.trim().eq_ignore_ascii_case(STAGE)) {
                settings.options.push((STAGE.into(), "knockout".into()));
            }
        }
    }
}

/// Every set of per-game settings a system can use.
fn all_settings(config: &Config) -> Vec<(&'static str, GameSettings)> {
    let mut out = vec![("settings", config.settings.clone())];
    if let System::Knockout { rules } | System::Championship { knockout: rules, .. } = &config.system {
        out.push(("knockout settings", rules.settings.clone()));
        out.push(("knockout tiebreak_settings", rules.tiebreak_settings.clone()));
        out.push(("knockout decider_settings", rules.decider_settings.clone()));
    }
    out
}

impl App {
    /// Store a tournament, then tell its watchers and the driver.
    async fn save_tournament(&self, e: &Entry) -> Result<(), ApiError> {
        let row = e.row(self.time.now_ms())?;
        self.store.commit(vec![Write::Tournament(TournamentWrite::Tournament(Box::new(row)))]).await?;
        Ok(())
    }

    fn announce(&self, e: &Entry) {
        self.tournaments.changed(&e.id);
        if let Some(c) = &self.cluster {
            c.publish_tournament(&e.id);
        }
        self.tournaments.wake.notify_one();
        if e.status() == "finished" {
            self.unlink_tournament(&e.id);
        }
    }

    /// Load tournament `id` into `loaded` if it is not there.
    async fn load_tournament(&self, loaded: &mut HashMap<String, Entry>, id: &str) -> Result<(), ApiError> {
        if loaded.contains_key(id) {
            return Ok(());
        }
        if id.is_empty() || id.len() > 64 {
            return Err(not_found(id));
        }
        let TournamentAnswer::Row(Some(row)) = self.store.tournaments(TournamentQuery::Get(id.to_string())).await?
        else {
            return Err(not_found(id));
        };
        let mut entry = Entry::from_row(&row)?;
        if let TournamentAnswer::Games(links) = self.store.tournaments(TournamentQuery::Games(id.to_string())).await? {
            for l in links {
                entry.games.insert(l.tid_game, l.game_id);
            }
        }
        if entry.status() != "finished" {
            for (number, game_id) in &entry.games {
                self.link_tournament_game(game_id, id, *number);
            }
        }
        loaded.insert(id.to_string(), entry);
        Ok(())
    }

    /// Create the server game of every paired game that has none yet.
    async fn create_tournament_games(self: &Arc<Self>, e: &mut Entry) {
        let missing: Vec<Game> = e.t.pending_games().filter(|g| !e.games.contains_key(&g.id)).cloned().collect();
        for g in missing {
            match self.create_tournament_game(e, &g).await {
                Ok(id) => {
                    tracing::info!(tournament = %e.id, game = %id, number = g.id, "tournament game created");
                    e.games.insert(g.id, id);
                }
                Err(err) => {
                    tracing::error!(tournament = %e.id, number = g.id, error = %err, "cannot create a tournament game")
                }
            }
        }
    }

    async fn create_tournament_game(self: &Arc<Self>, e: &Entry, g: &Game) -> Result<String, ApiError> {
        let game = self.registry.get(&e.meta.game)?;
        let account = |p: PlayerId| -> Result<SeatRequest, ApiError> {
            let a = e.meta.entrants.get(p.index()).ok_or_else(|| ApiError::internal(format!("no player {p}")))?;
            Ok(SeatRequest::Account { user: (a.user_id, a.user.clone()) })
        };
        let created = self
            .create(CreateRequest {
                game,
                options: game_options(&e.meta, &g.settings),
                time_control: game_clock(&e.meta, &g.settings)?,
                seats: [account(g.first)?, account(g.second)?],
                seed: None,
                terms: Terms { rated: e.meta.rated, public: false, category: None, rating_range: None },
                tournament: Some((e.id.clone(), g.id)),
            })
            .await?;
        Ok(created.id)
    }

    /// After the engine changed `e`: store it, create its new games, tell
    /// everyone.
    async fn after_change(self: &Arc<Self>, e: &mut Entry, events: &[Event]) -> Result<(), ApiError> {
        self.save_tournament(e).await?;
        for ev in events {
            tracing::debug!(tournament = %e.id, event = ?ev, "tournament event");
        }
        self.create_tournament_games(e).await;
        self.announce(e);
        Ok(())
    }

    /// A tournament game's server game ended: record it.
    pub(crate) async fn tournament_game_over(self: &Arc<Self>, tid: &str, number: u32, result: GameResult) {
        let mut loaded = self.tournaments.loaded.lock().await;
        if let Err(err) = self.load_tournament(&mut loaded, tid).await {
            tracing::error!(tournament = %tid, error = %err, "cannot load a tournament to record a result");
            return;
        }
        let e = loaded.get_mut(tid).expect("just loaded");
        if let Err(err) = self.record_in(e, number, result).await {
            tracing::error!(tournament = %tid, number, error = %err, "cannot record a tournament result");
        }
    }

    async fn record_in(self: &Arc<Self>, e: &mut Entry, number: u32, result: GameResult) -> Result<(), ApiError> {
        if e.t.game(number).is_none_or(|g| g.result.is_some()) || e.t.status() != Status::Running {
            return Ok(()); // recorded already (or a withdrawal settled it)
        }
        let before = e.t.clone();
        let events = e.t.record(number, result, self.time.now_ms()).map_err(engine_error)?;
        if let Err(err) = self.save_tournament(e).await {
            e.t = before;
            return Err(err);
        }
        tracing::info!(tournament = %e.id, number, ?result, "tournament result recorded");
        self.after_change(e, &events).await
    }

    /// Start `e` now. At its scheduled time, too few players cancel it;
    /// when its creator asks, they are told why it cannot start.
    async fn start_tournament(self: &Arc<Self>, e: &mut Entry, scheduled: bool) -> Result<(), ApiError> {
        let now = self.time.now_ms();
        let before = e.t.clone();
        match e.t.start(now) {
            Ok(events) => {
                if let Err(err) = self.save_tournament(e).await {
                    e.t = before;
                    return Err(err);
                }
                tracing::info!(tournament = %e.id, players = e.t.seeds().len(), "tournament started");
                self.after_change(e, &events).await
            }
            Err(err @ TournamentError::TooFewPlayers { .. }) if scheduled => {
                e.meta.cancelled = Some(format!("cancelled at the start time: {err}"));
                tracing::info!(tournament = %e.id, reason = %err, "tournament cancelled");
                if let Err(err) = self.save_tournament(e).await {
                    e.meta.cancelled = None;
                    return Err(err);
                }
                self.announce(e);
                Ok(())
            }
            Err(err) => Err(engine_error(err)),
        }
    }

    /// Start the tournaments whose time has come and tick the running ones
    /// that are due; returns when the next one is.
    async fn tournaments_due(self: &Arc<Self>) -> Option<u64> {
        let mut loaded = self.tournaments.loaded.lock().await;
        let now = self.time.now_ms();
        let ids: Vec<String> =
            loaded.iter().filter(|(_, e)| e.due_at().is_some_and(|t| t <= now)).map(|(id, _)| id.clone()).collect();
        for id in ids {
            let e = loaded.get_mut(&id).expect("listed");
            let outcome = match e.t.status() {
                Status::Registration => self.start_tournament(e, true).await,
                _ => {
                    let before = e.t.clone();
                    let events = e.t.tick(now);
                    if events.is_empty() && e.t.next_wakeup() == before.next_wakeup() {
                        Ok(())
                    } else {
                        match self.save_tournament(e).await {
                            Ok(()) => self.after_change(e, &events).await,
                            Err(err) => {
                                e.t = before;
                                Err(err)
                            }
                        }
                    }
                }
            };
            if let Err(err) = outcome {
                tracing::error!(tournament = %id, error = %err, "a tournament could not move on");
            }
        }
        // Finished tournaments leave memory; they are loaded again on request.
        loaded.retain(|_, e| e.status() != "finished");
        // One still due after its tick waits for its games (an arena past its
        // end with games still on): the next result moves it, not a busy loop.
        loaded.values().filter_map(Entry::due_at).filter(|&t| t > now).min()
    }

    /// At start-up: load every tournament not finished, record the results
    /// of games that ended while the server was down, and create the games
    /// it paired but never created.
    pub(crate) async fn resume_tournaments(self: &Arc<Self>) -> Result<usize, StoreError> {
        let TournamentAnswer::Rows(rows) = self.store.tournaments(TournamentQuery::Unfinished).await? else {
            return Ok(0);
        };
        let mut loaded = self.tournaments.loaded.lock().await;
        for row in &rows {
            if let Err(err) = self.load_tournament(&mut loaded, &row.id).await {
                tracing::error!(tournament = %row.id, error = %err, "cannot load a tournament");
            }
        }
        let ids: Vec<String> = loaded.keys().cloned().collect();
        for id in &ids {
            let e = loaded.get_mut(id).expect("listed");
            if e.t.status() != Status::Running {
                continue;
            }
            let pending: Vec<(u32, String)> =
                e.t.pending_games().filter_map(|g| e.games.get(&g.id).map(|gid| (g.id, gid.clone()))).collect();
            for (number, game_id) in pending {
                let result = match self.read(&game_id).await {
                    Ok(room) => room.m.result.is_some().then(|| game_result(&room)),
                    Err(err) => {
                        tracing::error!(tournament = %id, game = %game_id, error = %err, "cannot load a tournament game");
                        None
                    }
                };
                if let Some(result) = result {
                    if let Err(err) = self.record_in(e, number, result).await {
                        tracing::error!(tournament = %id, number, error = %err, "cannot record a result");
                    }
                }
            }
            self.create_tournament_games(e).await;
        }
        self.tournaments.wake.notify_one();
        Ok(loaded.len())
    }
}

/// Start tournaments on time and tick them when they are due.
pub(crate) async fn driver(app: Arc<App>) {
    let mut shutdown = app.shutdown.clone();
    loop {
        // In a cluster, only the leader runs the tournaments.
        tokio::select! {
            _ = app.until_leader() => {}
            _ = shutdown.changed() => return,
        }
        let next = app.tournaments_due().await;
        let sleep = async {
            match next {
                Some(t) => app.time.sleep_until(t).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = sleep => {}
            _ = app.tournaments.wake.notified() => {}
            _ = shutdown.changed() => return,
        }
    }
}

// ----- JSON -----

fn tiebreak_name(t: TieBreak) -> &'static str {
    match t {
        TieBreak::DirectEncounter => "direct encounter",
        TieBreak::SonnebornBerger => "Sonneborn-Berger",
        TieBreak::Buchholz => "Buchholz",
        TieBreak::BuchholzCut1 => "Buchholz cut 1",
        TieBreak::Wins => "wins",
        TieBreak::ScoreDifference => "score difference",
    }
}

/// `1½`, `½`, `2`.
fn points_text(halves: i32) -> String {
    match (halves / 2, halves % 2) {
        (0, 1) => "½".into(),
        (w, 1) => format!("{w}½"),
        (w, _) => w.to_string(),
    }
}

fn result_text(r: &GameResult) -> &'static str {
    match r.winner() {
        Some(Side::First) => "1-0",
        Some(Side::Second) => "0-1",
        None if r.was_played() => "½-½",
        None => "0-0",
    }
}

fn game_json(e: &Entry, g: &Game) -> Value {
    let status = match (&g.result, e.games.contains_key(&g.id)) {
        (Some(_), _) => "finished",
        (None, true) => "live",
        (None, false) => "pending",
    };
    let stage = if g.knockout.is_some() {
        json!("knockout")
    } else if g.group.is_some() {
        json!("group")
    } else {
        Value::Null
    };
    json!({
        "tid_game": g.id,
        "game_id": e.games.get(&g.id),
        "first": g.first.0, "second": g.second.0,
        "first_user": e.user(g.first), "second_user": e.user(g.second),
        "round": g.round, "group": g.group,
        "result": g.result.as_ref().map(result_text),
        "margin": g.result.as_ref().and_then(|r| r.margin_for(Side::First)),
        "forfeit": g.result.as_ref().is_some_and(|r| !r.was_played()),
        "status": status,
        "stage": stage,
        "draw_odds": g.draw_odds,
    })
}

fn standing_json(e: &Entry, s: &tabula_tournament::Standing, tiebreaks: &[TieBreak]) -> Value {
    let tbs: Vec<Value> = tiebreaks
        .iter()
        .zip(&s.tiebreaks)
        .map(|(t, v)| json!({"name": tiebreak_name(*t), "label": t.label(), "value": v}))
        .collect();
    json!({
        "rank": s.rank, "pid": s.player.0, "user": e.user(s.player),
        "points": s.points.as_f64(), "games": s.played,
        "wins": s.wins, "draws": s.draws, "losses": s.losses,
        "tiebreaks": tbs,
    })
}

fn slot_json(e: &Entry, m: &KnockoutMatch, i: usize) -> Value {
    match m.slots[i] {
        Slot::Player(p) => json!({"pid": p.0, "user": e.user(p), "seed": m.seeds[i]}),
        _ => Value::Null,
    }
}

fn match_json(e: &Entry, index: usize, m: &KnockoutMatch) -> Value {
    let mut halves = [0i32; 2];
    for (_, MatchGame { first_slot, result, .. }) in &m.games {
        let Some(r) = result else { continue };
        let first = *first_slot as usize;
        match r.winner() {
            Some(Side::First) => halves[first] += 2,
            Some(Side::Second) => halves[1 - first] += 2,
            None if r.was_played() => {
                halves[0] += 1;
                halves[1] += 1;
            }
            None => {}
        }
    }
    let games: Vec<Value> = m.games.iter().filter_map(|(id, _)| e.t.game(*id)).map(|g| game_json(e, g)).collect();
    json!({
        "match": index,
        "slot_a": slot_json(e, m, 0),
        "slot_b": slot_json(e, m, 1),
        "winner": m.winner().map(|p| p.0),
        "decided": m.decided.is_some(),
        "score": format!("{}-{}", points_text(halves[0]), points_text(halves[1])),
        "games": games,
    })
}

fn summary_json(e: &Entry, app: &App) -> Value {
    let game_name = app.registry.get(&e.meta.game).map(|g| g.name().to_string()).unwrap_or_default();
    let options: Map<String, Value> =
        e.meta.options.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    let round = e.t.games().iter().map(|g| g.round).max().unwrap_or(0).max(e.t.rounds().len() as u32);
    json!({
        "v": 1,
        "id": e.id,
        "name": e.meta.name,
        "game": e.meta.game,
        "game_name": game_name,
        "system": e.t.config().system,
        "system_name": e.t.config().system.name(),
        "status": e.status(),
        "rated": e.meta.rated,
        "time_control": clock_text(&e.meta.time_control),
        "category": e.meta.category,
        "options": options,
        "starts_at_ms": e.meta.starts_at_ms,
        "created_at_ms": e.created_at_ms,
        "created_by": e.meta.created_by.1,
        "players": e.t.players().iter().filter(|p| !p.withdrawn).count(),
        "max_players": e.meta.max_players,
        "min_rating": e.meta.min_rating,
        "max_rating": e.meta.max_rating,
        "bots_allowed": e.meta.bots_allowed,
        "round": round,
    })
}

fn full_json(e: &Entry, app: &App, viewer: Option<&UserRow>) -> Value {
    let mut v = summary_json(e, app);
    let tiebreaks = e.t.config().tiebreaks();
    let players: Vec<Value> =
        e.t.players()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let a = &e.meta.entrants[i];
                json!({"pid": i, "user": a.user, "bot": a.bot, "rating": a.rating,
                   "provisional": a.provisional, "withdrawn": p.withdrawn})
            })
            .collect();
    let standings = e.t.standings();
    let standings_json: Vec<Value> = standings.iter().map(|s| standing_json(e, s, &tiebreaks)).collect();
    let group_standings: Vec<Value> = if matches!(e.t.config().system, System::Championship { .. }) {
        e.t.group_standings()
            .iter()
            .map(|g| Value::Array(g.iter().map(|s| standing_json(e, s, &tiebreaks)).collect()))
            .collect()
    } else {
        Vec::new()
    };
    // Crosstable: rows and columns in standings order.
    let pids: Vec<PlayerId> = standings.iter().map(|s| s.player).collect();
    let pos: HashMap<PlayerId, usize> = pids.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut cells: Vec<Vec<Vec<&str>>> = vec![vec![Vec::new(); pids.len()]; pids.len()];
    for g in e.t.games() {
        let (Some(r), Some(&a), Some(&b)) = (&g.result, pos.get(&g.first), pos.get(&g.second)) else { continue };
        let symbol = |side: Side| match (r.was_played(), r.winner()) {
            (true, Some(w)) if w == side => "1",
            (true, Some(_)) => "0",
            (true, None) => "½",
            (false, Some(w)) if w == side => "+",
            (false, _) => "-",
        };
        cells[a][b].push(symbol(Side::First));
        cells[b][a].push(symbol(Side::Second));
    }
    let cells: Vec<Vec<Value>> = cells
        .into_iter()
        .map(|row| row.into_iter().map(|c| if c.is_empty() { Value::Null } else { json!(c.join(" ")) }).collect())
        .collect();
    let rounds: Vec<Value> = if matches!(e.t.config().system, System::Arena { .. }) {
        vec![json!({"round": 0, "games": e.t.games().iter().map(|g| game_json(e, g)).collect::<Vec<_>>(), "byes": []})]
    } else {
        e.t.rounds()
            .iter()
            .map(|r| {
                let games: Vec<Value> =
                    r.games.iter().filter_map(|&id| e.t.game(id)).map(|g| game_json(e, g)).collect();
                let byes: Vec<Value> = r
                    .byes
                    .iter()
                    .map(|b| {
                        let kind = match b.kind {
                            ByeKind::PairingAllocated => "pairing",
                            ByeKind::Rest => "rest",
                        };
                        json!({"pid": b.player.0, "user": e.user(b.player), "kind": kind, "points": b.points.as_f64()})
                    })
                    .collect();
                json!({"round": r.number, "games": games, "byes": byes, "finished": r.finished_at.is_some()})
            })
            .collect()
    };
    let bracket = e.t.bracket().map(|b| {
        let rounds: Vec<Value> = b
            .rounds
            .iter()
            .map(|r| Value::Array(r.iter().enumerate().map(|(i, m)| match_json(e, i, m)).collect()))
            .collect();
        json!({"rounds": rounds, "third_place": b.third_place.as_ref().map(|m| match_json(e, 0, m))})
    });
    let finished = e.status() == "finished" && e.meta.cancelled.is_none();
    let winner = finished
        .then(|| {
            let top: Vec<_> = standings.iter().filter(|s| s.rank == 1).collect();
            (top.len() == 1).then(|| json!({"pid": top[0].player.0, "user": e.user(top[0].player)}))
        })
        .flatten();
    let me = me_json(e, viewer);
    let obj = v.as_object_mut().expect("an object");
    obj.remove("v");
    obj.insert("player_count".into(), obj["players"].clone());
    obj.insert("players".into(), Value::Array(players));
    obj.insert("me".into(), me);
    obj.insert("standings".into(), Value::Array(standings_json));
    obj.insert("group_standings".into(), Value::Array(group_standings));
    obj.insert("crosstable".into(), json!({"pids": pids.iter().map(|p| p.0).collect::<Vec<_>>(), "cells": cells}));
    obj.insert("rounds".into(), Value::Array(rounds));
    obj.insert("bracket".into(), bracket.unwrap_or(Value::Null));
    obj.insert("winner".into(), winner.unwrap_or(Value::Null));
    obj.insert("end_reason".into(), json!(e.meta.cancelled.as_deref().or(e.t.end_reason())));
    obj.insert("next_round_at_ms".into(), json!(e.t.next_wakeup()));
    v
}

/// Why `user` may not join `e`, if they may not.
fn join_refusal(e: &Entry, user: &UserRow, rating: i32) -> Option<ApiError> {
    if e.status() == "finished" {
        return Some(conflict("finished", "the tournament is over"));
    }
    if let Some(p) = e.pid_of(user.id) {
        let withdrawn = e.t.player(p).is_some_and(|p| p.withdrawn);
        let arena = matches!(e.t.config().system, System::Arena { .. });
        if !withdrawn {
            return Some(conflict("already_joined", "you have already joined this tournament"));
        }
        if !(arena && e.t.status() == Status::Running) {
            return Some(conflict("withdrawn", "you withdrew from this tournament and cannot enter it again"));
        }
        return None;
    }
    if e.t.status() == Status::Running && !matches!(e.t.config().system, System::Swiss { .. } | System::Arena { .. }) {
        return Some(conflict(
            "already_started",
            format!("players cannot join a {} once it has started", e.t.config().system.name()),
        ));
    }
    if user.kind == "bot" && !e.meta.bots_allowed {
        return Some(ApiError::new(StatusCode::FORBIDDEN, "bots_not_allowed", "this tournament takes no bot accounts"));
    }
    let (min, max) = (e.meta.min_rating.unwrap_or(i32::MIN), e.meta.max_rating.unwrap_or(i32::MAX));
    if rating < min || rating > max {
        let range = match (e.meta.min_rating, e.meta.max_rating) {
            (Some(a), Some(b)) => format!("{a}..{b}"),
            (Some(a), None) => format!("{a} or more"),
            (None, Some(b)) => format!("{b} or less"),
            (None, None) => String::new(),
        };
        return Some(ApiError::new(
            StatusCode::FORBIDDEN,
            "out_of_range",
            format!("your {} rating {rating} is outside this tournament's range {range}", e.meta.category),
        ));
    }
    if let Some(max) = e.meta.max_players {
        if e.t.players().iter().filter(|p| !p.withdrawn).count() as u32 >= max {
            return Some(conflict("full", format!("the tournament is full ({max} players)")));
        }
    }
    None
}

fn me_json(e: &Entry, viewer: Option<&UserRow>) -> Value {
    let Some(user) = viewer else {
        return json!({"joined": false, "pid": null, "can_join": false, "can_withdraw": false, "is_creator": false});
    };
    let pid = e.pid_of(user.id);
    let joined = pid.is_some_and(|p| e.t.player(p).is_some_and(|p| !p.withdrawn));
    // The rating limits are checked on joining; here the last known rating serves.
    let rating = pid.map_or(1500, |p| e.meta.entrants[p.index()].rating);
    let can_join = !joined && join_refusal(e, user, rating).is_none();
    json!({
        "joined": joined,
        "pid": pid.map(|p| p.0),
        "can_join": can_join,
        "can_withdraw": joined && e.status() != "finished",
        "is_creator": e.meta.created_by.0 == user.id,
    })
}

// ----- HTTP -----

/// Tournament changes by API token need one of these scopes.
fn require_player(viewer: &Viewer) -> Result<&UserRow, ApiError> {
    viewer.require_scope("bot:play").or_else(|_| viewer.require_scope("challenge:write"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListQuery {
    #[serde(default)]
    status: Option<String>,
}

/// `GET /api/tournaments`.
pub(crate) async fn list(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let status = match q.status.as_deref() {
        None | Some("") | Some("all") => None,
        Some(s @ ("registration" | "running" | "finished")) => Some(s.to_string()),
        Some(s) => {
            return Err(ApiError::bad_request(
                "bad_request",
                format!("status '{s}' is not registration, running, finished or all"),
            ))
        }
    };
    let TournamentAnswer::Rows(rows) = app.store.tournaments(TournamentQuery::List { status, limit: 100 }).await?
    else {
        return Err(ApiError::internal("the store answered the wrong question"));
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        match Entry::from_row(row) {
            Ok(e) => {
                let mut s = summary_json(&e, &app);
                s.as_object_mut().map(|o| o.remove("v"));
                out.push(s);
            }
            Err(err) => tracing::error!(tournament = %row.id, error = %err, "cannot read a stored tournament"),
        }
    }
    Ok(Json(json!({"v": 1, "tournaments": out})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewTournament {
    name: String,
    game: String,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    time_control: Option<Value>,
    system: Value,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    starts_at_ms: Option<u64>,
    #[serde(default)]
    starts_in_s: Option<u64>,
    #[serde(default)]
    min_rating: Option<i32>,
    #[serde(default)]
    max_rating: Option<i32>,
    #[serde(default)]
    max_players: Option<u32>,
    #[serde(default)]
    bots_allowed: Option<bool>,
    #[serde(default)]
    round_pause_s: Option<u64>,
    #[serde(default)]
    settings: Option<GameSettings>,
}

/// `POST /api/tournaments`.
pub(crate) async fn create(
    State(app): State<AppState>,
    Client(client): Client,
    viewer: Viewer,
    JsonBody(req): JsonBody<NewTournament>,
) -> Result<Response, ApiError> {
    let me = require_player(&viewer)?.clone();
    app.limits.check_create(client)?;
    let bad = |m: String| ApiError::bad_request("bad_request", m);
    let name = req.name.trim().to_string();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(bad(format!("a tournament's name is 1 to {MAX_NAME_CHARS} printable characters")));
    }
    let game = app.registry.get(&req.game)?;
    let asked_options = crate::http::option_texts(req.options)?;
    let options = game.normalize_options(&asked_options)?;
    let time_control = parse_time_control(req.time_control.as_ref().unwrap_or(&Value::Null))?;
    let mut system: System = serde_json::from_value(req.system.clone()).map_err(|e| {
        ApiError::bad_request(
            "bad_system",
            format!("system: {e} (e.g. {{\"kind\":\"round_robin\",\"cycles\":1}}, {{\"kind\":\"swiss\",\"rounds\":5}}, knockout, arena, championship)"),
        )
    })?;
    let now = app.time.now_ms();
    let starts_at_ms = match (req.starts_at_ms, req.starts_in_s) {
        (Some(_), Some(_)) => return Err(bad("give starts_at_ms or starts_in_s, not both".into())),
        (Some(at), None) => at,
        (None, Some(s)) => now.saturating_add(s.saturating_mul(1000)),
        (None, None) => now + DEFAULT_START_DELAY_MS,
    };
    // A start a little in the past (a browser's clock running behind) is now.
    if starts_at_ms + START_SLACK_MS < now {
        return Err(bad(format!("starts_at_ms {starts_at_ms} is in the past (now is {now})")));
    }
    let starts_at_ms = starts_at_ms.max(now);
    if starts_at_ms > now + MAX_START_DELAY_MS {
        return Err(bad("a tournament starts at most 30 days ahead".into()));
    }
    if let (Some(a), Some(b)) = (req.min_rating, req.max_rating) {
        if a > b {
            return Err(bad(format!("min_rating {a} is above max_rating {b}")));
        }
    }
    let max_players = req.max_players.unwrap_or(MAX_PLAYERS);
    if !(2..=MAX_PLAYERS).contains(&max_players) {
        return Err(bad(format!("max_players must be from 2 to {MAX_PLAYERS}")));
    }
    if !asked_options.iter().any(|(k, _)| k.trim().eq_ignore_ascii_case(STAGE)) {
        knockout_stage_by_default(game, &mut system);
    }
    let mut config = Config::new(system);
    config.max_players = Some(max_players);
    config.round_pause_ms = req.round_pause_s.unwrap_or(0).min(86_400) * 1000;
    config.settings = req.settings.unwrap_or_default();
    config.seed = rand::random();
    let t = Tournament::new(config).map_err(engine_error)?;
    let category = match game.new_state(&options).ok().and_then(|s| s.time_control()) {
        Some(tc) => crate::ratings::category_of(&tc),
        None => crate::ratings::category_of(&time_control),
    };
    let meta = Meta {
        name,
        game: game.id().to_string(),
        options,
        time_control,
        rated: req.rated,
        category,
        starts_at_ms,
        created_by: (me.id, me.name.clone()),
        min_rating: req.min_rating,
        max_rating: req.max_rating,
        max_players: Some(max_players),
        bots_allowed: req.bots_allowed.unwrap_or(true),
        entrants: Vec::new(),
        cancelled: None,
    };
    // Every game the system can create must be one the game accepts.
    for (what, settings) in all_settings(t.config()) {
        let options = game_options(&meta, &settings);
        game.new_state(&game.normalize_options(&options)?)
            .map_err(|e| ApiError::bad_request("bad_option", format!("{what}: {e}")))?;
        game_clock(&meta, &settings).map_err(|e| ApiError::bad_request(e.code, format!("{what}: {}", e.message)))?;
    }
    let e = Entry { id: random_string(8), created_at_ms: now, meta, t, games: BTreeMap::new() };
    let mut loaded = app.tournaments.loaded.lock().await;
    app.save_tournament(&e).await?;
    tracing::info!(tournament = %e.id, by = %me.name, "tournament created");
    let answer = json!({"v": 1, "tournament": full_json(&e, &app, Some(&me))});
    app.announce(&e);
    loaded.insert(e.id.clone(), e);
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// `GET /api/tournaments/{id}`.
pub(crate) async fn show(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let mut loaded = app.tournaments.loaded.lock().await;
    app.load_tournament(&mut loaded, &id).await?;
    let e = &loaded[&id];
    let answer = json!({"v": 1, "tournament": full_json(e, &app, viewer.require().ok())});
    if e.status() == "finished" {
        loaded.remove(&id);
    }
    Ok(Json(answer))
}

/// `POST /api/tournaments/{id}/join`.
pub(crate) async fn join(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let me = require_player(&viewer)?.clone();
    let mut loaded = app.tournaments.loaded.lock().await;
    app.load_tournament(&mut loaded, &id).await?;
    let e = loaded.get_mut(&id).expect("loaded");
    let r = crate::ratings::current(app.store.as_ref(), me.id, &e.meta.game, &e.meta.category).await?;
    let rating = crate::ratings::seat_rating(&r, app.time.now_ms());
    if let Some(err) = join_refusal(e, &me, rating.rating) {
        return Err(err);
    }
    let (before_t, before_meta) = (e.t.clone(), e.meta.clone());
    let now = app.time.now_ms();
    let events = match e.pid_of(me.id) {
        Some(p) => e.t.rejoin(p, now).map_err(engine_error)?,
        None => {
            e.t.join(Entrant::new(me.name.clone()).rated(rating.rating)).map_err(engine_error)?;
            e.meta.entrants.push(Account {
                user_id: me.id,
                user: me.name.clone(),
                bot: me.kind == "bot",
                rating: rating.rating,
                provisional: rating.provisional,
            });
            // A late entry into a running arena may be paired at once.
            if e.t.status() == Status::Running {
                e.t.tick(now)
            } else {
                Vec::new()
            }
        }
    };
    if let Err(err) = app.save_tournament(e).await {
        e.t = before_t;
        e.meta = before_meta;
        return Err(err);
    }
    app.after_change(e, &events).await?;
    Ok(Json(json!({"v": 1, "tournament": full_json(e, &app, Some(&me))})))
}

/// `POST /api/tournaments/{id}/withdraw`.
pub(crate) async fn withdraw(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let me = require_player(&viewer)?.clone();
    let mut loaded = app.tournaments.loaded.lock().await;
    app.load_tournament(&mut loaded, &id).await?;
    let e = loaded.get_mut(&id).expect("loaded");
    if e.status() == "finished" {
        return Err(conflict("finished", "the tournament is over"));
    }
    let p = e
        .pid_of(me.id)
        .filter(|p| e.t.player(*p).is_some_and(|p| !p.withdrawn))
        .ok_or_else(|| conflict("not_joined", "you are not playing in this tournament"))?;
    let before = e.t.clone();
    let events = e.t.withdraw(p, app.time.now_ms()).map_err(engine_error)?;
    if let Err(err) = app.save_tournament(e).await {
        e.t = before;
        return Err(err);
    }
    tracing::info!(tournament = %id, user = %me.name, "withdrew");
    // A game of theirs still being played is resigned; its result comes
    // back through the usual path once the lock is free.
    let live: Vec<(String, usize)> =
        e.t.pending_games()
            .filter_map(|g| {
                let seat = g.side_of(p)?;
                Some((e.games.get(&g.id)?.clone(), if seat == Side::First { 0 } else { 1 }))
            })
            .collect();
    app.after_change(e, &events).await?;
    let answer = json!({"v": 1, "tournament": full_json(e, &app, Some(&me))});
    drop(loaded);
    for (game_id, seat) in live {
        let actor = Actor::Seat(tabula_core::Player::from_index(seat));
        if let Err(err) = app.execute(&game_id, actor, Command::Resign).await {
            tracing::debug!(game = %game_id, error = %err, "the withdrawn player's game was not resigned");
        }
    }
    Ok(Json(answer))
}

/// `POST /api/tournaments/{id}/start` (the creator).
pub(crate) async fn start(
    State(app): State<AppState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let me = require_player(&viewer)?.clone();
    let mut loaded = app.tournaments.loaded.lock().await;
    app.load_tournament(&mut loaded, &id).await?;
    let e = loaded.get_mut(&id).expect("loaded");
    if e.meta.created_by.0 != me.id {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "not_creator", "only the tournament's creator may start it"));
    }
    match e.status() {
        "registration" => {}
        "running" => return Err(conflict("already_started", "the tournament has already started")),
        _ => return Err(conflict("finished", "the tournament is over")),
    }
    app.start_tournament(e, false).await?;
    Ok(Json(json!({"v": 1, "tournament": full_json(e, &app, Some(&me))})))
}

/// `GET /api/tournaments/{id}/ws`: the tournament now and after every
/// change. Read-only; spectators welcome.
pub(crate) async fn socket(
    State(app): State<AppState>,
    viewer: Result<Viewer, ApiError>,
    Client(client): Client,
    ApiPath(id): ApiPath<String>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    if let Err(e) = app.limits.check_socket(client) {
        return e.into_response();
    }
    {
        let mut loaded = app.tournaments.loaded.lock().await;
        if let Err(e) = app.load_tournament(&mut loaded, &id).await {
            return e.into_response();
        }
    }
    let ws = match ws {
        Ok(ws) => ws,
        Err(e) => {
            return ApiError::bad_request("bad_request", format!("not a WebSocket request: {}", e.body_text()))
                .into_response()
        }
    };
    let user = viewer.ok().and_then(|v| v.user.map(|(u, _)| u));
    ws.on_upgrade(move |socket| watch(app, id, user, socket))
}

async fn watch(app: AppState, id: String, user: Option<UserRow>, mut socket: WebSocket) {
    let mut changes = app.tournaments.watch(&id);
    let mut shutdown = app.shutdown.clone();
    // Pinged as game sockets are: a client that stops answering is dropped.
    let ping_every = app.cfg.net.ws_ping_interval_ms;
    let mut missed = 0u32;
    let mut next_ping = app.time.now_ms() + ping_every;
    loop {
        let message = {
            let mut loaded = app.tournaments.loaded.lock().await;
            match app.load_tournament(&mut loaded, &id).await {
                Ok(()) => {
                    json!({"v": 1, "type": "tournament", "tournament": full_json(&loaded[&id], &app, user.as_ref())})
                }
                Err(e) => json!({"v": 1, "type": "error", "error": e.body()}),
            }
        };
        let sent =
            app.time.timeout(app.cfg.net.ws_send_timeout_ms, socket.send(Message::Text(message.to_string().into())));
        if !matches!(sent.await, Ok(Ok(()))) {
            return;
        }
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                incoming = socket.recv() => match incoming {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => missed = 0, // read-only: anything sent is ignored
                },
                _ = app.time.sleep_until(next_ping) => {
                    if missed >= app.cfg.net.ws_missed_pongs {
                        return;
                    }
                    missed += 1;
                    next_ping = app.time.now_ms() + ping_every;
                    if socket.send(Message::Ping(Default::default())).await.is_err() {
                        return;
                    }
                }
                _ = crate::app::stopped(&mut shutdown) => {
                    let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame {
                        code: 1001,
                        reason: "the server is stopping".into(),
                    }))).await;
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_and_points_read_as_people_write_them() {
        assert_eq!(clock_text(&TimeControl::parse("fischer:180+2").unwrap()), "fischer:180+2");
        assert_eq!(clock_text(&TimeControl::parse("fischer:2.5+0").unwrap()), "fischer:2.5+0");
        assert_eq!(clock_text(&TimeControl::None), "none");
        assert_eq!(points_text(3), "1½");
        assert_eq!(points_text(1), "½");
        assert_eq!(points_text(4), "2");
        assert_eq!(result_text(&GameResult::Forfeit { winner: None }), "0-0");
        assert_eq!(result_text(&GameResult::draw()), "½-½");
    }

    #[test]
    fn a_knockout_of_a_game_with_stages_plays_at_the_knockout_stage_unless_told_otherwise() {
        let dots = tabula_games::REGISTRY.get("dots").unwrap();
        let knockout = || System::Knockout { rules: Default::default() };
        let mut system = knockout();
        knockout_stage_by_default(dots, &mut system);
        let System::Knockout { rules } = &system else { unreachable!() };
        for s in [&rules.settings, &rules.tiebreak_settings, &rules.decider_settings] {
            assert_eq!(s.options, vec![("stage".to_string(), "knockout".to_string())]);
        }
        // A stage the creator chose stays.
        let mut system = knockout();
        if let System::Knockout { rules } = &mut system {
            rules.decider_settings = GameSettings::option("stage", "group");
        }
        knockout_stage_by_default(dots, &mut system);
        let System::Knockout { rules } = &system else { unreachable!() };
        assert_eq!(rules.decider_settings.options, vec![("stage".to_string(), "group".to_string())]);
        // A game without stages, and a system without a knockout, are left alone.
        let mut system = knockout();
        knockout_stage_by_default(tabula_games::REGISTRY.get("coldwar").unwrap(), &mut system);
        let System::Knockout { rules } = &system else { unreachable!() };
        assert!(rules.settings.is_empty());
        let mut system = System::Swiss { rounds: 3 };
        knockout_stage_by_default(dots, &mut system);
        assert_eq!(serde_json::to_value(&system).unwrap(), serde_json::to_value(System::Swiss { rounds: 3 }).unwrap());
    }

    #[test]
    fn a_game_setting_wins_over_the_tournament_option() {
        let meta = Meta {
            name: "x".into(),
            game: "dots".into(),
            options: vec![("width".into(), "20".into()), ("stage".into(), "group".into())],
            time_control: TimeControl::None,
            rated: false,
            category: "correspondence".into(),
            starts_at_ms: 0,
            created_by: (1, "ann".into()),
            min_rating: None,
            max_rating: None,
            max_players: None,
            bots_allowed: true,
            entrants: vec![],
            cancelled: None,
        };
        let settings = GameSettings::option("stage", "knockout").with_clock("fischer:60+1");
        assert_eq!(
            game_options(&meta, &settings),
            vec![("width".to_string(), "20".to_string()), ("stage".to_string(), "knockout".to_string())]
        );
        assert_eq!(
            game_clock(&meta, &settings).unwrap(),
            TimeControl::Fischer { base_ms: 60_000, increment_ms: 1_000 }
        );
    }
}
