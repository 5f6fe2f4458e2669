//! The running server's games: one handle per game with a lock that
//! serialises every change (so two racing moves cannot both land), a
//! broadcast channel for the WebSocket watchers, a flag-fall timer and the
//! AI driver.

use crate::db::{self, Store, Write};
use crate::error::ApiError;
use crate::game::{Live, Seat, SeatKind};
use axum::extract::ws::Utf8Bytes;
use rand::Rng;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tabula_core::matches::Match;
use tabula_core::{DynGame, Player, ThinkContext, TimeControl};
use tokio::sync::{broadcast, watch, Notify};

/// Milliseconds since the Unix epoch: clocks survive restarts in this unit.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// A secret or id from the operating system's generator.
pub fn random_string(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut rng = rand::rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

pub struct GameHandle {
    pub id: String,
    pub inner: tokio::sync::Mutex<Live>,
    pub tx: broadcast::Sender<Utf8Bytes>,
    latest: Mutex<Utf8Bytes>,
    wake: Notify,
}

impl GameHandle {
    /// The last `state` message sent to watchers.
    pub fn latest(&self) -> Utf8Bytes {
        self.latest.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

pub struct App {
    pub store: Store,
    pub registry: &'static tabula_core::Registry,
    games: Mutex<HashMap<String, Arc<GameHandle>>>,
    pub shutdown: watch::Receiver<bool>,
    /// Tells thinking engines to stop at once (server shutdown).
    pub stop_engines: Arc<AtomicBool>,
}

/// The `state` message, shared by every watcher without copying.
pub fn state_message(g: &Live) -> Utf8Bytes {
    Utf8Bytes::from(json!({ "v": 1, "type": "state", "game": g.to_json(now_ms()) }).to_string())
}

/// A seat of a create request.
pub struct SeatRequest {
    pub kind: SeatKind,
    pub mine: bool,
    pub name: Option<String>,
    pub level: Option<String>,
}

pub struct Created {
    pub game: Value,
    pub tokens: Vec<(String, String)>,
    pub invites: Vec<(String, String)>,
    pub id: String,
}

impl App {
    pub fn new(store: Store, shutdown: watch::Receiver<bool>) -> Arc<App> {
        Arc::new(App {
            store,
            registry: &tabula_games::REGISTRY,
            games: Mutex::new(HashMap::new()),
            shutdown,
            stop_engines: Arc::new(AtomicBool::new(false)),
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<GameHandle>>> {
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Number of games held in memory.
    pub fn loaded_games(&self) -> usize {
        self.map().len()
    }

    /// Register a game in memory and start its timer and AI.
    fn install(self: &Arc<Self>, live: Live) -> Arc<GameHandle> {
        let (tx, _) = broadcast::channel(16);
        let msg = state_message(&live);
        let handle = Arc::new(GameHandle {
            id: live.id.clone(),
            inner: tokio::sync::Mutex::new(live),
            tx,
            latest: Mutex::new(msg),
            wake: Notify::new(),
        });
        let existing = {
            let mut map = self.map();
            match map.get(&handle.id) {
                Some(h) => Some(h.clone()),
                None => {
                    map.insert(handle.id.clone(), handle.clone());
                    None
                }
            }
        };
        if let Some(h) = existing {
            return h; // another request loaded it first
        }
        tokio::spawn(run_timer(self.clone(), handle.clone()));
        let (app, h) = (self.clone(), handle.clone());
        tokio::spawn(async move {
            let mut g = h.inner.lock().await;
            app.drive_ai(&h, &mut g);
        });
        handle
    }

    /// The game with this id, from memory or the database.
    pub async fn get(self: &Arc<Self>, id: &str) -> Result<Arc<GameHandle>, ApiError> {
        if let Some(h) = self.map().get(id) {
            return Ok(h.clone());
        }
        if id.is_empty() || id.len() > 64 {
            return Err(ApiError::not_found(format!("no game '{id}'")));
        }
        let key = id.to_string();
        let loaded = self.store.read(move |c| db::load_game(c, &key)).await.map_err(ApiError::internal)?;
        let Some((row, moves)) = loaded else {
            return Err(ApiError::not_found(format!("no game '{id}'")));
        };
        let game = self.registry.get(&row.game).map_err(|e| ApiError::internal(format!("game {id}: {e}")))?;
        let live = Live::from_rows(game, &row, &moves).map_err(|e| ApiError::internal(format!("game {id}: {e}")))?;
        Ok(self.install(live))
    }

    /// Commit a change, rolling the game back if the database refuses it.
    pub async fn commit(
        &self,
        g: &mut Live,
        writes: Vec<Write>,
        snapshot: crate::game::Snapshot,
    ) -> Result<(), ApiError> {
        if let Err(e) = self.store.commit(writes).await {
            g.restore(snapshot);
            return Err(ApiError::internal(format!("the change was not saved: {e}")));
        }
        Ok(())
    }

    /// Tell every watcher about a change, re-arm the timer, wake the AI.
    pub fn publish(self: &Arc<Self>, h: &Arc<GameHandle>, g: &mut Live) {
        let msg = state_message(g);
        *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = msg.clone();
        let _ = h.tx.send(msg);
        h.wake.notify_one();
        self.drive_ai(h, g);
    }

    /// Play a move for `player` (already authenticated), durably.
    pub async fn play_move(
        self: &Arc<Self>,
        h: &Arc<GameHandle>,
        g: &mut Live,
        player: Player,
        text: &str,
        ply: Option<u32>,
    ) -> Result<(), ApiError> {
        let snapshot = g.snapshot();
        match g.play(player, text, ply, now_ms()) {
            Ok(writes) => {
                self.commit(g, writes, snapshot).await?;
                self.publish(h, g);
                Ok(())
            }
            Err((e, Some(writes))) => {
                self.commit(g, writes, snapshot).await?;
                self.publish(h, g);
                Err(e)
            }
            Err((e, None)) => Err(e),
        }
    }

    /// If an AI is on move in a live game, let it think on the blocking pool.
    pub fn drive_ai(self: &Arc<Self>, h: &Arc<GameHandle>, g: &mut Live) {
        if !g.is_live() || g.ai_busy || *self.shutdown.borrow() {
            return;
        }
        let player = g.m.state.to_move();
        let idx = player.index();
        let seat = &g.seats[idx];
        if seat.kind != SeatKind::Ai {
            return;
        }
        let agent = match g.agents[idx].take() {
            Some(a) => a,
            None => {
                let level = seat.level.clone().unwrap_or_else(|| g.game.default_level().to_string());
                let seed = g.seed.wrapping_add((idx as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                match g.game.new_agent(&level, seed) {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::error!(game = %g.id, error = %e, "cannot make the AI");
                        return;
                    }
                }
            }
        };
        g.ai_busy = true;
        let now = now_ms();
        let ctx = ThinkContext {
            remaining: g.m.clock.remaining(player, now).map(Duration::from_millis),
            increment: match g.time_control {
                TimeControl::Fischer { increment_ms, .. } => Some(Duration::from_millis(increment_ms)),
                _ => None,
            },
            deadline: g.m.clock.deadline().map(|d| Instant::now() + Duration::from_millis(d.saturating_sub(now))),
            stop: Some(self.stop_engines.clone()),
        };
        let state = g.m.state.clone_box();
        let ply = g.moves.len() as u32;
        let (app, h) = (self.clone(), h.clone());
        tokio::spawn(async move {
            let mut agent = agent;
            let thought = tokio::task::spawn_blocking(move || {
                let r = agent.choose(state.as_ref(), &ctx);
                (agent, r)
            })
            .await;
            let mut g = h.inner.lock().await;
            g.ai_busy = false;
            let choice = match thought {
                Ok((agent, r)) => {
                    g.agents[idx] = Some(agent);
                    r
                }
                Err(e) => {
                    tracing::error!(game = %g.id, error = %e, "the AI task failed");
                    return;
                }
            };
            if g.moves.len() as u32 != ply || !g.is_live() {
                app.drive_ai(&h, &mut g);
                return;
            }
            let text = match choice {
                Ok(m) => m,
                Err(e) => {
                    tracing::error!(game = %g.id, error = %e, "the AI found no move");
                    return;
                }
            };
            if let Err(e) = app.play_move(&h, &mut g, player, &text, Some(ply)).await {
                tracing::warn!(game = %g.id, error = %e, "the AI's move was not accepted");
            }
        });
    }

    /// Create a game; the tokens come back only in this answer.
    pub async fn create(
        self: &Arc<Self>,
        game: &'static dyn DynGame,
        options: &[(String, String)],
        time_control: TimeControl,
        seats: [SeatRequest; 2],
        seed: Option<u64>,
    ) -> Result<Created, ApiError> {
        let options = game.normalize_options(options)?;
        let state = game.new_state(&options)?;
        let time_control = state.time_control().unwrap_or(time_control);
        let players = game.players();
        let mut tokens = Vec::new();
        let mut invites = Vec::new();
        let mut made: Vec<Seat> = Vec::new();
        for (i, s) in seats.into_iter().enumerate() {
            let seat = match s.kind {
                SeatKind::Ai => {
                    let level = s.level.unwrap_or_else(|| game.default_level().to_string());
                    game.new_agent(&level, 0)?; // refuse an unknown level now, not mid-game
                    Seat {
                        kind: SeatKind::Ai,
                        name: format!("AI ({level})"),
                        level: Some(level),
                        token: None,
                        invite: None,
                    }
                }
                SeatKind::Human => {
                    let token = random_string(32);
                    if s.mine {
                        tokens.push((players[i].to_string(), token.clone()));
                    }
                    let name = s.name.unwrap_or_else(|| players[i].to_string());
                    Seat { kind: SeatKind::Human, name, level: None, token: Some(token), invite: None }
                }
                SeatKind::Open => {
                    let code = random_string(24);
                    invites.push((players[i].to_string(), code.clone()));
                    Seat {
                        kind: SeatKind::Open,
                        name: s.name.unwrap_or_default(),
                        level: None,
                        token: None,
                        invite: Some(code),
                    }
                }
            };
            made.push(seat);
        }
        let seats: [Seat; 2] =
            made.try_into().map_err(|_| ApiError::bad_request("bad_request", "a game has two seats"))?;
        let now = now_ms();
        let id = random_string(10);
        let mut m = Match::new(state, time_control, now);
        if seats.iter().any(|s| s.kind == SeatKind::Open) {
            m.clock.pause(now); // the clock starts when the opponent arrives
        }
        let live = Live {
            id: id.clone(),
            game,
            options,
            time_control,
            m,
            seats,
            moves: Vec::new(),
            draw_offer: None,
            rematch_id: None,
            rematch_of: None,
            seed: seed.unwrap_or_else(|| rand::rng().random()),
            created_at_ms: now,
            updated_at_ms: now,
            agents: [None, None],
            ai_busy: false,
        };
        self.store.commit(vec![live.game_write()]).await.map_err(ApiError::internal)?;
        let json = live.to_json(now);
        tracing::info!(game = %id, kind = game.id(), "game created");
        self.install(live);
        Ok(Created { game: json, tokens, invites, id })
    }

    /// Start the rematch of a finished game (or return the one started).
    pub async fn rematch(
        self: &Arc<Self>,
        h: &Arc<GameHandle>,
        token: &str,
    ) -> Result<(Value, String, String), ApiError> {
        let mut g = h.inner.lock().await;
        let player = g.seat_of(token)?;
        if g.m.result.is_none() {
            return Err(ApiError::conflict("not_finished", "a rematch can only start once the game is over"));
        }
        let players = g.players();
        if let Some(rid) = g.rematch_id.clone() {
            drop(g);
            let nh = self.get(&rid).await?;
            let ng = nh.inner.lock().await;
            let json = ng.to_json(now_ms());
            return Ok((json, players[player.other().index()].to_string(), token.to_string()));
        }
        let now = now_ms();
        let state = g.game.new_state(&g.options)?;
        let mut m = Match::new(state, g.time_control, now);
        let seats = [g.seats[1].clone(), g.seats[0].clone()];
        if seats.iter().any(|s| s.kind == SeatKind::Open) {
            m.clock.pause(now);
        }
        let new = Live {
            id: random_string(10),
            game: g.game,
            options: g.options.clone(),
            time_control: g.time_control,
            m,
            seats,
            moves: Vec::new(),
            draw_offer: None,
            rematch_id: None,
            rematch_of: Some(g.id.clone()),
            seed: g.seed.wrapping_add(1),
            created_at_ms: now,
            updated_at_ms: now,
            agents: [None, None],
            ai_busy: false,
        };
        let snapshot = g.snapshot();
        g.rematch_id = Some(new.id.clone());
        g.updated_at_ms = now;
        let writes = vec![new.game_write(), g.game_write()];
        self.commit(&mut g, writes, snapshot).await?;
        self.publish(h, &mut g);
        let json = new.to_json(now);
        self.install(new);
        Ok((json, players[player.other().index()].to_string(), token.to_string()))
    }

    /// Reload every unfinished game after a start, without charging the
    /// downtime: clocks are stopped at the last instant the previous run
    /// was known alive and restarted now.
    pub async fn resume_unfinished(self: &Arc<Self>) -> anyhow::Result<usize> {
        let (ids, alive) = self
            .store
            .read(|c| Ok((db::unfinished_ids(c)?, db::last_alive(c)?)))
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        let mut resumed = 0;
        for id in ids {
            let key = id.clone();
            let Some((row, moves)) =
                self.store.read(move |c| db::load_game(c, &key)).await.map_err(|e| anyhow::anyhow!(e))?
            else {
                continue;
            };
            let game = match self.registry.get(&row.game) {
                Ok(g) => g,
                Err(e) => {
                    tracing::error!(game = %id, error = %e, "cannot resume a game of an unknown type");
                    continue;
                }
            };
            let mut live = match Live::from_rows(game, &row, &moves) {
                Ok(l) => l,
                Err(e) => {
                    tracing::error!(game = %id, error = %e, "cannot resume a game");
                    continue;
                }
            };
            let down_at = alive.unwrap_or(live.updated_at_ms).max(live.updated_at_ms);
            let now = now_ms();
            live.m.tick(down_at); // a flag that fell before the stop still counts
            live.m.clock.pause(down_at);
            if live.is_live() {
                live.m.clock.start(now);
            }
            live.updated_at_ms = now;
            self.store.commit(vec![live.game_write()]).await.map_err(|e| anyhow::anyhow!(e))?;
            tracing::info!(game = %id, plies = live.moves.len(), downtime_ms = now.saturating_sub(down_at), "game resumed");
            self.install(live);
            resumed += 1;
        }
        Ok(resumed)
    }
}

/// Let a flag fall the moment time runs out, without waiting for a move.
async fn run_timer(app: Arc<App>, h: Arc<GameHandle>) {
    let mut shutdown = app.shutdown.clone();
    loop {
        let deadline = {
            let g = h.inner.lock().await;
            if g.m.result.is_some() {
                return;
            }
            g.m.clock.deadline()
        };
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep(Duration::from_millis(d.saturating_sub(now_ms()))).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = sleep => {
                let mut g = h.inner.lock().await;
                let snapshot = g.snapshot();
                if let Some(writes) = g.tick(now_ms()) {
                    match app.commit(&mut g, writes, snapshot).await {
                        Ok(()) => {
                            if let Some(r) = &g.m.result {
                                tracing::info!(game = %g.id, reason = %r.reason, "time ran out");
                            }
                            app.publish(&h, &mut g);
                        }
                        Err(e) => {
                            tracing::error!(game = %g.id, error = %e, "cannot save a flag fall; retrying");
                            drop(g);
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                    }
                }
            }
            _ = h.wake.notified() => {}
            _ = shutdown.changed() => return,
        }
    }
}

/// Record every second that the server is alive, so a restart knows how
/// long it was down.
pub async fn heartbeat(app: Arc<App>) {
    let mut shutdown = app.shutdown.clone();
    let mut every = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = every.tick() => {
                if let Err(e) = app.store.commit(vec![Write::Heartbeat(now_ms())]).await {
                    tracing::warn!(error = %e, "heartbeat not saved");
                }
            }
            _ = shutdown.changed() => return,
        }
    }
}
