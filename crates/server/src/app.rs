//! The running server's rooms: each game in memory has one handle with a
//! lock that serialises every change (so two racing moves cannot both
//! land), a broadcast channel for its WebSocket watchers and a timer task.
//! Every change, whatever asked for it (a player, the timer, the AI,
//! expiry), goes through [`App::mutate`]: snapshot, change, store, publish,
//! or roll back if the store refuses.
//!
//! Games leave memory when finished or idle and nobody watches, and come
//! back on the next request; forgotten games expire.

use crate::ai::AiPool;
use crate::cluster::{Cluster, Topic};
use crate::config::Config;
use crate::limits::Limits;
use crate::net::ConnectionSlots;
use crate::room::{random_string, Actor, Command, Ctx, Outcome, Room, RoomError, RoomSpec, RoomStatus, Seat, SeatKind};
use crate::store::{LeaseAnswer, Store, StoredGame, Write};
use crate::time::Time;
use axum::extract::ws::Utf8Bytes;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tabula_core::{DynAgent, DynGame, Player, TimeControl};
use tokio::sync::{broadcast, watch, Notify, OwnedMutexGuard};

/// A room in memory.
pub struct RoomHandle {
    /// The game's id.
    pub id: String,
    slot: Arc<tokio::sync::Mutex<Slot>>,
    /// Every message for the game's watchers: `state` after each change,
    /// and events such as `draw_declined`.
    pub tx: broadcast::Sender<Utf8Bytes>,
    /// The last `state` message, made on first need after a load.
    latest: Mutex<Option<Utf8Bytes>>,
    wake: Notify,
    touched_ms: AtomicU64,
    /// When this handle was made (a lease renewal that started before it
    /// cannot have seen its lease).
    born: std::time::Instant,
    /// Cluster mode: another node owns the game; this handle only relays
    /// its messages (from NATS) to watchers here, and its room is a copy
    /// read from the database.
    remote: AtomicBool,
    /// The copy of a remote handle is older than the last message relayed.
    stale: AtomicBool,
}

impl RoomHandle {
    fn new(id: String, slot: Slot, now_ms: u64, remote: bool) -> RoomHandle {
        RoomHandle {
            id,
            slot: Arc::new(tokio::sync::Mutex::new(slot)),
            tx: broadcast::channel(32).0,
            latest: Mutex::new(None),
            wake: Notify::new(),
            touched_ms: AtomicU64::new(now_ms),
            born: std::time::Instant::now(),
            remote: AtomicBool::new(remote),
            stale: AtomicBool::new(false),
        }
    }

    /// Cluster mode: another node owns this game.
    pub(crate) fn is_remote(&self) -> bool {
        self.remote.load(Ordering::SeqCst)
    }

    /// Lock the room (whoever holds the guard may change it).
    pub(crate) async fn slot_lock(&self) -> RoomGuard {
        self.slot.clone().lock_owned().await
    }

    /// The last `state` message sent to watchers (made now if the room was
    /// just loaded and nothing was sent yet).
    pub async fn latest(&self, time: &Time) -> Utf8Bytes {
        if let Some(msg) = self.latest.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return msg;
        }
        let slot = self.slot.lock().await;
        let mut latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        latest.get_or_insert_with(|| state_message(&slot.room.to_json(time.now_ms()))).clone()
    }
}

/// A locked room.
pub type RoomGuard = OwnedMutexGuard<Slot>;

/// What a room handle guards.
pub struct Slot {
    /// The game.
    pub room: Room,
    /// Left memory: whoever holds an old handle must look the game up again.
    evicted: bool,
    /// AI engines by seat, made on first use and reused between moves.
    pub(crate) agents: [Option<Box<dyn DynAgent>>; 2],
    /// The AI thinking (or queued) for the side on move.
    pub(crate) thinking: Option<Thought>,
    /// Connections that speak for each seat now (presence).
    pub(crate) seat_sockets: [usize; 2],
    /// Cluster mode: the epoch of this node's lease on the game.
    pub(crate) epoch: Option<i64>,
    /// Cluster mode, on the owner: connections speaking for each seat on
    /// other nodes, by node, with when they said so.
    remote_sockets: HashMap<String, ([usize; 2], std::time::Instant)>,
}

impl Slot {
    /// Some other node has a connection for seat `i` (said within 6 s).
    fn remote_connected(&self, i: usize) -> bool {
        self.remote_sockets.values().any(|(n, at)| n[i] > 0 && at.elapsed() < std::time::Duration::from_secs(6))
    }

    /// Whether a connection speaks for each seat, here or on another node.
    fn seats_present(&self) -> [bool; 2] {
        [0, 1].map(|i| self.seat_sockets[i] > 0 || self.remote_connected(i))
    }

    fn new(room: Room, epoch: Option<i64>) -> Slot {
        Slot {
            room,
            evicted: false,
            agents: [None, None],
            thinking: None,
            seat_sockets: [0, 0],
            epoch,
            remote_sockets: HashMap::new(),
        }
    }
}

/// A game to read: the room in memory here, or a copy from the database
/// when another node owns it (cluster mode).
pub enum RoomRead {
    /// Held here, locked.
    Held(RoomGuard),
    /// A copy read from the database.
    Copy(Box<Room>),
}

impl std::ops::Deref for RoomRead {
    type Target = Room;
    fn deref(&self) -> &Room {
        match self {
            RoomRead::Held(slot) => &slot.room,
            RoomRead::Copy(room) => room,
        }
    }
}

/// An AI's pending move.
pub(crate) struct Thought {
    pub ply: usize,
    pub stop: Arc<AtomicBool>,
}

/// A seat of a create request.
#[derive(Debug, Clone)]
pub enum SeatRequest {
    /// The creator sits here and gets the token.
    Me {
        /// The name shown.
        name: Option<String>,
        /// The logged-in account sitting here.
        user: Option<(i64, String)>,
    },
    /// Someone joins through an invite.
    Open {
        /// The name shown until then.
        name: Option<String>,
    },
    /// An AI of a level the game lists.
    Ai {
        /// The level, or the game's default.
        level: Option<String>,
    },
    /// A seat bound to an account (an accepted challenge): the account acts
    /// for it; its token goes to nobody.
    Account {
        /// The account's id and name.
        user: (i64, String),
    },
    /// The server's AI playing as a built-in bot account.
    BotAi {
        /// The AI level.
        level: String,
        /// The bot account's id and name.
        user: (i64, String),
    },
}

/// A create request.
pub struct CreateRequest {
    /// The game type.
    pub game: &'static dyn DynGame,
    /// Options, checked by the game.
    pub options: Vec<(String, String)>,
    /// The clock asked for.
    pub time_control: TimeControl,
    /// First player's seat first.
    pub seats: [SeatRequest; 2],
    /// Seed for the AI seats.
    pub seed: Option<u64>,
    /// Rated, public, rating range (the category is worked out here).
    pub terms: crate::room::Terms,
    /// The tournament game this is (tournament id, game number): the link
    /// is stored with the game, and the result goes to the tournament.
    pub tournament: Option<(String, u32)>,
}

/// A created game and its secrets.
pub struct Created {
    /// The game's JSON.
    pub game: Value,
    /// `(player, token)` for the creator's seats.
    pub tokens: Vec<(&'static str, String)>,
    /// `(player, code)` for the open seats.
    pub invites: Vec<(&'static str, String)>,
    /// Its id.
    pub id: String,
}

/// A started (or already started) rematch.
pub struct RematchStarted {
    /// The new game's JSON.
    pub game: Value,
    /// The asker's player in it, and its token (the one it already had).
    pub player: &'static str,
    /// `(player, code)` for the new game's open seats.
    pub invites: Vec<(&'static str, String)>,
}

/// What `/api/health` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Health {
    /// Games in memory.
    pub games_in_memory: usize,
    /// Open connections.
    pub connections: usize,
    /// AIs thinking now.
    pub ai_thinking: usize,
    /// AIs waiting for a turn to think.
    pub ai_queued: usize,
    /// Recent store commits: how long each took to become durable.
    pub commits: LatencySummary,
    /// Recent moves: from the room's command starting to the move being
    /// committed and published (waiting for the room's lock included).
    pub moves: LatencySummary,
    /// Cluster mode: this node's id (absent for a server alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Cluster mode: connected to NATS now (live updates reach the other
    /// nodes; moves are durable either way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nats_connected: Option<bool>,
    /// Cluster mode: games owned elsewhere that have watchers here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_relayed: Option<usize>,
    /// Cluster mode: this node leads (holds challenges, pools and
    /// tournaments).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<bool>,
}

/// Percentiles of the recent samples of a [`LatencyWindow`], in ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LatencySummary {
    /// Samples in the window.
    pub count: usize,
    /// Median.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// The slowest.
    pub max_ms: f64,
}

/// The durations of the last [`LatencyWindow::SIZE`] operations of one kind,
/// so that `/api/health` shows where time goes on a loaded server (the
/// commit, or the rest of a move).
#[derive(Default)]
pub(crate) struct LatencyWindow {
    samples: Mutex<std::collections::VecDeque<u32>>,
}

impl LatencyWindow {
    const SIZE: usize = 10_000;

    pub(crate) fn record(&self, took: std::time::Duration) {
        let us = took.as_micros().min(u32::MAX as u128) as u32;
        let mut samples = self.samples.lock().unwrap_or_else(|p| p.into_inner());
        if samples.len() == Self::SIZE {
            samples.pop_front();
        }
        samples.push_back(us);
    }

    pub(crate) fn summary(&self) -> LatencySummary {
        let mut sorted: Vec<u32> = self.samples.lock().unwrap_or_else(|p| p.into_inner()).iter().copied().collect();
        if sorted.is_empty() {
            return LatencySummary::default();
        }
        sorted.sort_unstable();
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize] as f64 / 1000.0;
        LatencySummary { count: sorted.len(), p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1.0) }
    }
}

/// The server's state.
pub struct App {
    pub(crate) store: Arc<dyn Store>,
    /// The games served.
    pub registry: &'static tabula_core::Registry,
    /// The server's time.
    pub time: Time,
    pub(crate) cfg: Config,
    rooms: Mutex<HashMap<String, Arc<RoomHandle>>>,
    pub(crate) ai: AiPool,
    pub(crate) limits: Limits,
    pub(crate) conns: ConnectionSlots,
    /// Flips to true when the server stops.
    pub shutdown: watch::Receiver<bool>,
    /// Which accounts are connected now.
    pub(crate) presence: Arc<Presence>,
    /// Held while a rated result is rated and stored, so two games of one
    /// player ending at once do not both start from the same rating.
    rating_lock: tokio::sync::Mutex<()>,
    /// How long recent commits took (`/api/health`).
    commit_times: LatencyWindow,
    /// How long recent moves took to handle (`/api/health`).
    move_times: LatencyWindow,
    /// Direct challenges, by id.
    challenges: Mutex<HashMap<String, crate::challenges::Challenge>>,
    /// Each account's event stream (challenges, game starts and ends).
    events: Mutex<HashMap<i64, broadcast::Sender<Utf8Bytes>>>,
    /// Quick-pairing pools.
    pools: Mutex<crate::pool::Pools>,
    /// Server game id → (tournament id, game number), for every game of a
    /// tournament not finished.
    tournament_games: Mutex<HashMap<String, (String, u32)>>,
    /// The tournaments in play (see `tournaments.rs`).
    pub(crate) tournaments: crate::tournaments::Tournaments,
    /// The analysis board's engine slots (see `analysis.rs`).
    pub(crate) analyses: crate::analysis::AnalysisSlots,
    /// Cluster mode: the link to the other nodes.
    pub(crate) cluster: Option<Arc<crate::cluster::Cluster>>,
    /// Cluster mode: games other nodes own that have watchers here.
    remote: Mutex<HashMap<String, Arc<RoomHandle>>>,
    /// Whether this node leads: holds the challenges, pools and
    /// tournaments (always, for a server alone).
    leader: watch::Sender<bool>,
    /// Cluster mode: one game's lease is asked for and its room installed
    /// by one task at a time (games spread over these by id).
    acquiring: Vec<tokio::sync::Mutex<()>>,
}

/// Connections per account (WebSockets and Bot API streams), for the
/// "online" flag of profiles.
#[derive(Default)]
pub(crate) struct Presence(Mutex<HashMap<i64, usize>>, Mutex<HashMap<String, (std::time::Instant, Vec<i64>)>>);

impl Presence {
    /// One more connection of `user`; the guard counts it down when dropped.
    pub(crate) fn connect(self: &Arc<Self>, user: i64) -> PresenceGuard {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()).entry(user).or_default() += 1;
        PresenceGuard { presence: self.clone(), user }
    }

    /// `user` has a connection open (here, or on another node of a cluster
    /// that said so in the last few seconds).
    pub(crate) fn is_online(&self, user: i64) -> bool {
        if self.0.lock().unwrap_or_else(|p| p.into_inner()).get(&user).is_some_and(|n| *n > 0) {
            return true;
        }
        let others = self.1.lock().unwrap_or_else(|p| p.into_inner());
        others.values().any(|(at, users)| at.elapsed() < std::time::Duration::from_secs(6) && users.contains(&user))
    }

    /// The accounts connected here.
    pub(crate) fn here(&self) -> Vec<i64> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).iter().filter(|(_, n)| **n > 0).map(|(u, _)| *u).collect()
    }

    /// Another node's connected accounts.
    pub(crate) fn elsewhere(&self, node: String, users: Vec<i64>) {
        let mut others = self.1.lock().unwrap_or_else(|p| p.into_inner());
        others.retain(|_, (at, _)| at.elapsed() < std::time::Duration::from_secs(6));
        others.insert(node, (std::time::Instant::now(), users));
    }
}

/// A counted connection (see [`Presence::connect`]).
pub(crate) struct PresenceGuard {
    presence: Arc<Presence>,
    user: i64,
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        let mut map = self.presence.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.user);
            }
        }
    }
}

/// The `state` message, shared by every watcher without copying.
fn state_message(game: &Value) -> Utf8Bytes {
    Utf8Bytes::from(json!({ "v": 1, "type": "state", "game": game }).to_string())
}

fn human_duration(ms: u64) -> String {
    let hours = ms / 3_600_000;
    match hours {
        0 => format!("{} minutes", (ms / 60_000).max(1)),
        1..=47 => format!("{hours} hours"),
        _ => format!("{} days", hours / 24),
    }
}

impl App {
    /// The server's state on `store`.
    pub(crate) fn new(
        store: Arc<dyn Store>,
        cfg: Config,
        conns: ConnectionSlots,
        shutdown: watch::Receiver<bool>,
        cluster: Option<Arc<crate::cluster::Cluster>>,
    ) -> Arc<App> {
        let clustered = cluster.is_some();
        Arc::new(App {
            store,
            registry: cfg.registry,
            time: cfg.time.clone(),
            ai: AiPool::new(cfg.ai.thinkers()),
            analyses: crate::analysis::AnalysisSlots::new(&cfg.analysis),
            limits: Limits::new(&cfg.rate, &cfg.time),
            conns,
            cfg,
            rooms: Mutex::new(HashMap::new()),
            shutdown,
            presence: Arc::new(Presence::default()),
            rating_lock: tokio::sync::Mutex::new(()),
            commit_times: LatencyWindow::default(),
            move_times: LatencyWindow::default(),
            challenges: Mutex::new(HashMap::new()),
            events: Mutex::new(HashMap::new()),
            pools: Mutex::new(crate::pool::Pools::default()),
            tournament_games: Mutex::new(HashMap::new()),
            tournaments: crate::tournaments::Tournaments::default(),
            cluster,
            remote: Mutex::new(HashMap::new()),
            acquiring: (0..64).map(|_| tokio::sync::Mutex::new(())).collect(),
            leader: watch::channel(!clustered).0,
        })
    }

    /// The challenges, locked.
    pub(crate) fn challenges(&self) -> std::sync::MutexGuard<'_, HashMap<String, crate::challenges::Challenge>> {
        self.challenges.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The quick-pairing pools, locked.
    pub(crate) fn pools(&self) -> std::sync::MutexGuard<'_, crate::pool::Pools> {
        self.pools.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Subscribe to an account's events.
    pub(crate) fn subscribe_events(&self, user: i64) -> broadcast::Receiver<Utf8Bytes> {
        let mut map = self.events.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(user).or_insert_with(|| broadcast::channel(64).0).subscribe()
    }

    /// Tell an account's event streams (if any is open), on every node.
    pub(crate) fn notify(&self, user: i64, event: Value) {
        if let Some(c) = &self.cluster {
            c.publish_event(user, &event);
        }
        self.deliver_event(user, event);
    }

    /// Tell this node's event streams of an account.
    fn deliver_event(&self, user: i64, event: Value) {
        let mut map = self.events.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = map.get(&user) {
            if tx.send(Utf8Bytes::from(event.to_string())).is_err() {
                map.remove(&user); // nobody listens any more
            }
        }
    }

    /// The tournament and game number of server game `id`, if it is a
    /// tournament game.
    pub(crate) fn tournament_of(&self, id: &str) -> Option<(String, u32)> {
        self.tournament_games.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// Remember that server game `id` is game `number` of tournament `tid`.
    pub(crate) fn link_tournament_game(&self, id: &str, tid: &str, number: u32) {
        self.tournament_games
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), (tid.to_string(), number));
    }

    /// Forget that game `id` is a tournament's (a node that does not lead
    /// saw it end).
    fn unlink_game(&self, id: &str) {
        self.tournament_games.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }

    /// Cluster mode, on a node that does not lead: remember whether game
    /// `id`, taken over here, is a tournament's, so that it cannot be
    /// aborted or rematched here either.
    async fn link_if_tournament(&self, id: &str) {
        use crate::store::{TournamentAnswer, TournamentQuery};
        match self.store.tournaments(TournamentQuery::OfGame(id.to_string())).await {
            Ok(TournamentAnswer::Games(links)) => {
                for l in links {
                    self.link_tournament_game(&l.game_id, &l.tournament_id, l.tid_game);
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(game = %id, error = %e, "cannot tell whether a game is a tournament's"),
        }
    }

    /// Forget the game links of a finished tournament.
    pub(crate) fn unlink_tournament(&self, tid: &str) {
        self.tournament_games.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, (t, _)| t != tid);
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<RoomHandle>>> {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx { now: self.time.now_ms(), times: &self.cfg.rooms }
    }

    /// Number of games held in memory.
    pub fn loaded_games(&self) -> usize {
        self.map().len()
    }

    /// The figures of `/api/health`.
    pub fn health(&self) -> Health {
        let (ai_thinking, ai_queued) = self.ai.counts();
        Health {
            games_in_memory: self.loaded_games(),
            connections: self.conns.open(),
            ai_thinking,
            ai_queued,
            commits: self.commit_times.summary(),
            moves: self.move_times.summary(),
            node: self.cluster.as_ref().map(|c| c.node.clone()),
            nats_connected: self.cluster.as_ref().map(|c| c.is_connected()),
            games_relayed: self.cluster.as_ref().map(|_| self.remote.lock().unwrap_or_else(|p| p.into_inner()).len()),
            leader: self.cluster.as_ref().map(|_| self.is_leader()),
        }
    }

    /// Put a room in memory and start its timer and AI; if another request
    /// put it there first, that one wins. `epoch`: this node's lease on it
    /// (cluster mode).
    fn install(self: &Arc<Self>, mut room: Room, epoch: Option<i64>) -> Arc<RoomHandle> {
        // Presence counts from now: nobody is connected to a game just loaded.
        let now = self.time.now_ms();
        room.away_since = [Some(now); 2];
        room.claim_after_ms = self.cfg.rooms.claim_after_ms;
        let has_ai = room.seats.iter().any(|s| s.kind == SeatKind::Ai);
        let handle = Arc::new(RoomHandle::new(room.id.clone(), Slot::new(room, epoch), now, false));
        {
            let mut map = self.map();
            if let Some(existing) = map.get(&handle.id) {
                return existing.clone();
            }
            map.insert(handle.id.clone(), handle.clone());
        }
        tokio::spawn(run_timer(self.clone(), handle.clone()));
        if has_ai {
            let (app, h) = (self.clone(), handle.clone());
            tokio::spawn(async move {
                let mut slot = h.slot.clone().lock_owned().await;
                app.drive_ai(&h, &mut slot);
            });
        }
        handle
    }

    /// The room of game `id`, from memory or the store.
    pub async fn room(self: &Arc<Self>, id: &str) -> Result<Arc<RoomHandle>, RoomError> {
        if let Some(h) = self.map().get(id) {
            h.touched_ms.store(self.time.now_ms(), Ordering::Relaxed);
            return Ok(h.clone());
        }
        if id.is_empty() || id.len() > 64 {
            return Err(RoomError::NotFound(id.to_string()));
        }
        if self.cluster.is_some() {
            return self.acquire(id, false).await;
        }
        let stored = self.store.load(id.to_string()).await?.ok_or_else(|| RoomError::NotFound(id.to_string()))?;
        let room = self.rebuild(&stored)?;
        Ok(self.install(room, None))
    }

    /// Read game `id`: the room in memory, or (cluster mode, when another
    /// node owns it or nobody holds it) a copy from the database, which
    /// holds everything acknowledged.
    pub async fn read(self: &Arc<Self>, id: &str) -> Result<RoomRead, RoomError> {
        if self.cluster.is_none() {
            return Ok(RoomRead::Held(self.lock(id).await?.1));
        }
        loop {
            let held = self.map().get(id).cloned();
            let Some(h) = held else { break };
            let slot = h.slot.clone().lock_owned().await;
            if !slot.evicted {
                return Ok(RoomRead::Held(slot));
            }
        }
        let mut copy = self.load_copy(id).await?;
        // Who is connected is known only to the owner of a live game.
        if self.cluster.is_some() && !copy.status().is_over() {
            if let Some(answer) = self.ask_owner(id, None).await {
                copy.away_since = answer.away_since;
            }
        }
        Ok(RoomRead::Copy(Box::new(copy)))
    }

    async fn load_copy(&self, id: &str) -> Result<Room, RoomError> {
        if id.is_empty() || id.len() > 64 {
            return Err(RoomError::NotFound(id.to_string()));
        }
        let stored = self.store.load(id.to_string()).await?.ok_or_else(|| RoomError::NotFound(id.to_string()))?;
        let mut room = self.rebuild(&stored)?;
        room.claim_after_ms = self.cfg.rooms.claim_after_ms;
        Ok(room)
    }

    /// Watch game `id`: its handle and a subscription to its messages.
    pub async fn watch(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<(Arc<RoomHandle>, broadcast::Receiver<Utf8Bytes>), RoomError> {
        loop {
            let h = match self.room(id).await {
                Err(RoomError::Elsewhere { .. }) => return self.watch_remote(id).await,
                other => other?,
            };
            let map = self.map();
            if map.get(id).is_some_and(|m| Arc::ptr_eq(m, &h)) {
                return Ok((h.clone(), h.tx.subscribe()));
            }
        }
    }

    fn rebuild(&self, stored: &StoredGame) -> Result<Room, RoomError> {
        let game = self
            .registry
            .get(&stored.row.game)
            .map_err(|e| RoomError::Damaged { game: stored.row.id.clone(), reason: e.to_string() })?;
        Room::from_stored(game, stored)
    }

    /// Lock the room of game `id`, looking it up again if it left memory
    /// while we waited.
    pub async fn lock(self: &Arc<Self>, id: &str) -> Result<(Arc<RoomHandle>, RoomGuard), RoomError> {
        loop {
            let h = self.room(id).await?;
            let slot = h.slot.clone().lock_owned().await;
            if !slot.evicted {
                return Ok((h, slot));
            }
        }
    }

    /// Change a locked room with `change`, which returns its result and any
    /// further writes to commit with the room's (a rematch's new game). The
    /// change is stored before anyone hears of it, and undone if the store
    /// refuses it.
    pub(crate) async fn mutate<R>(
        self: &Arc<Self>,
        h: &Arc<RoomHandle>,
        slot: &mut Slot,
        change: impl FnOnce(&mut Room, Ctx) -> (R, Vec<Write>),
    ) -> Result<(R, Value), RoomError> {
        let snapshot = slot.room.snapshot();
        let was_over = slot.room.m.result.is_some();
        let (result, extra) = change(&mut slot.room, self.ctx());
        h.touched_ms.store(self.time.now_ms(), Ordering::Relaxed);
        if slot.room.version() == snapshot.version() {
            return Ok((result, slot.room.to_json(self.time.now_ms())));
        }
        // A rated result changes both ratings in the very transaction that
        // records it: both are stored, or neither.
        let _rating_guard;
        let mut rating_writes = Vec::new();
        if crate::ratings::needs_rating(&slot.room) {
            _rating_guard = self.rating_lock.lock().await;
            match crate::ratings::rate(self.store.as_ref(), &mut slot.room, self.time.now_ms()).await {
                Ok(w) => rating_writes = w,
                Err(e) => {
                    slot.room.restore(snapshot);
                    return Err(e.into());
                }
            }
        }
        let mut writes = Vec::new();
        writes.extend(self.fence(&h.id, slot));
        writes.extend(slot.room.writes_since(&snapshot));
        writes.extend(extra);
        writes.extend(rating_writes);
        let committing = std::time::Instant::now();
        let committed = self.store.commit(writes).await;
        self.commit_times.record(committing.elapsed());
        if let Err(e) = committed {
            slot.room.restore(snapshot);
            if e.is_lease_lost() {
                // Another node took the game over: it is theirs now.
                self.lose(h, slot);
                return Err(RoomError::Elsewhere { node: String::new() });
            }
            return Err(e.into());
        }
        let game = slot.room.to_json(self.time.now_ms());
        let msg = state_message(&game);
        *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
        self.publish(h, msg);
        if !was_over && slot.room.m.result.is_some() {
            match self.tournament_of(&h.id) {
                Some((tid, number)) if self.is_leader() => {
                    let result = crate::tournaments::game_result(&slot.room);
                    let app = self.clone();
                    tokio::spawn(async move { app.tournament_game_over(&tid, number, result).await });
                }
                link => {
                    if link.is_some() {
                        self.unlink_game(&h.id);
                    }
                    // Perhaps a tournament's game, owned here since its
                    // first node went: the leader knows.
                    if let Some(c) = &self.cluster {
                        c.publish_finished(&h.id);
                    }
                }
            }
            for user in slot.room.seats.iter().filter_map(|s| s.user_id) {
                self.notify(
                    user,
                    json!({"v": 1, "type": "gameFinish", "game": {"id": h.id, "status": game["status"], "result": game["result"]}}),
                );
            }
        }
        if let Some(d) = slot.room.draw_declined.filter(|d| Some(*d) != snapshot.draw_declined()) {
            let event =
                json!({ "v": 1, "type": "draw_declined", "by": slot.room.players()[d.by.index()], "ply": d.ply });
            self.publish(h, Utf8Bytes::from(event.to_string()));
        }
        h.wake.notify_one();
        if let Some(t) = &slot.thinking {
            if !slot.room.is_live() || slot.room.moves.len() != t.ply {
                // The game ended or moved on: the AI stops at once.
                t.stop.store(true, Ordering::Relaxed);
                slot.thinking = None;
            }
        }
        self.drive_ai(h, slot);
        Ok((result, game))
    }

    /// Run `command` for `actor` on game `id`. Returns what it did and the
    /// game as it is now (also when the command was refused after the room
    /// changed, e.g. a move that came after the flag fell).
    pub async fn execute(
        self: &Arc<Self>,
        id: &str,
        actor: Actor,
        command: Command,
    ) -> Result<(Outcome, Value), RoomError> {
        let Some(cluster) = self.cluster.clone() else {
            return self.execute_here(id, actor, command).await;
        };
        // Cluster mode: run it here if this node owns the game (or can take
        // it), else forward it to the owner (module docs of `cluster`).
        let mut last = None;
        for _ in 0..5 {
            let owner = match self.execute_here(id, actor.clone(), command.clone()).await {
                Err(RoomError::Elsewhere { node }) if !node.is_empty() => node,
                Err(RoomError::Elsewhere { node }) => {
                    last = Some(RoomError::Elsewhere { node });
                    continue; // lost it while running the command: look again
                }
                done => return done,
            };
            match cluster.forward(&owner, id, &actor, &command).await {
                crate::cluster::Forwarded::Done(result) => return result,
                crate::cluster::Forwarded::Moved => {}
                crate::cluster::Forwarded::Unreachable { owner_gone } => {
                    self.take_over(id, &owner, owner_gone).await?;
                }
            }
            last = Some(RoomError::Elsewhere { node: owner });
        }
        Err(last.unwrap_or(RoomError::Elsewhere { node: String::new() }))
    }

    /// Run `command` on game `id` on this node; `Elsewhere` if another node
    /// owns it.
    pub(crate) async fn execute_here(
        self: &Arc<Self>,
        id: &str,
        actor: Actor,
        command: Command,
    ) -> Result<(Outcome, Value), RoomError> {
        let started = std::time::Instant::now();
        let is_move = matches!(command, Command::Move { .. });
        let (h, mut slot) = self.lock(id).await?;
        // Asked once the game is here: a node that just took a tournament's
        // game over learns it is one as it loads it.
        if self.tournament_of(id).is_some() {
            match command {
                Command::Abort => return Err(RoomError::TournamentGame("aborted")),
                Command::Rematch => return Err(RoomError::TournamentGame("rematched")),
                _ => {}
            }
        }
        let (result, game) = self
            .mutate(&h, &mut slot, |room, ctx| {
                let result = room.apply(ctx, &actor, command);
                let extra = match &result {
                    Ok(Outcome::Rematch { room: Some(new), .. }) => {
                        let mut writes = new.writes_for_new();
                        writes.extend(self.new_lease(&new.id));
                        writes
                    }
                    _ => Vec::new(),
                };
                (result, extra)
            })
            .await?;
        if result.is_err() {
            if let Some(fence) = self.fence(&h.id, &slot) {
                // A refusal comes from this node's copy of the game, which
                // is stale if another node took it over meanwhile (NATS
                // down): answer only while the lease is still ours.
                if let Err(e) = self.store.commit(vec![fence]).await {
                    if e.is_lease_lost() {
                        self.lose(&h, &mut slot);
                        return Err(RoomError::Elsewhere { node: String::new() });
                    }
                }
            }
        }
        let mut outcome = result?;
        if is_move {
            self.move_times.record(started.elapsed());
        }
        if let Outcome::Rematch { room, .. } = &mut outcome {
            if let Some(new) = room.take() {
                tracing::info!(game = %new.id, rematch_of = %id, "rematch started");
                let epoch = self.cluster.as_ref().map(|_| 1);
                self.install(*new, epoch);
            }
        }
        Ok((outcome, game))
    }

    /// Start the rematch of game `id` for `actor` (or return the one started).
    pub async fn rematch(self: &Arc<Self>, id: &str, actor: Actor) -> Result<RematchStarted, RoomError> {
        let (outcome, _) = self.execute(id, actor, Command::Rematch).await?;
        let Outcome::Rematch { id: new_id, player, .. } = outcome else {
            unreachable!("a rematch command answers with a rematch")
        };
        let room = self.read(&new_id).await?;
        let players = room.players();
        let invites = room
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SeatKind::Open)
            .filter_map(|(i, s)| Some((players[i], s.invite.clone()?)))
            .collect();
        Ok(RematchStarted { game: room.to_json(self.time.now_ms()), player: players[player.index()], invites })
    }

    /// Create a game. Its tokens and invites come back only in this answer.
    pub async fn create(self: &Arc<Self>, req: CreateRequest) -> Result<Created, RoomError> {
        let game = req.game;
        let players = game.players();
        let mut tokens = Vec::new();
        let mut seats = Vec::with_capacity(2);
        for (i, s) in req.seats.into_iter().enumerate() {
            seats.push(match s {
                SeatRequest::Me { name, user } => {
                    let seat = match user {
                        Some((id, user)) => Seat::account(id, user),
                        None => Seat::human(name),
                    };
                    tokens.push((players[i], seat.token.clone().unwrap_or_default()));
                    seat
                }
                SeatRequest::Open { name } => Seat::open(name),
                SeatRequest::Account { user: (id, name) } => Seat::account(id, name),
                SeatRequest::BotAi { level, user: (id, name) } => {
                    let mut seat = Seat::ai(level);
                    seat.name = name.clone();
                    seat.user_id = Some(id);
                    seat.user = Some(name);
                    seat
                }
                SeatRequest::Ai { level } => {
                    // Room::new refuses a level the game does not list.
                    Seat::ai(level.unwrap_or_else(|| game.default_level().to_string()))
                }
            });
        }
        let seats: [Seat; 2] = seats.try_into().unwrap_or_else(|_| unreachable!("two seat requests make two seats"));
        let spec = RoomSpec {
            id: random_string(10),
            game,
            options: req.options,
            time_control: req.time_control,
            seats,
            seed: req.seed,
            rematch_of: None,
            terms: req.terms,
        };
        let mut room = Room::new(spec, self.ctx())?;
        // The category follows the clock actually used (options may set it).
        let category = crate::ratings::category_of(&room.time_control);
        if room.terms.rated {
            for seat in room.seats.iter_mut() {
                if let Some(uid) = seat.user_id {
                    let r = crate::ratings::current(self.store.as_ref(), uid, game.id(), &category).await?;
                    seat.rating = Some(crate::ratings::seat_rating(&r, self.time.now_ms()));
                }
            }
        }
        room.terms.category = Some(category);
        let mut writes = room.writes_for_new();
        writes.extend(self.new_lease(&room.id));
        if let Some((tid, number)) = &req.tournament {
            writes.push(Write::Tournament(crate::store::TournamentWrite::Game(crate::store::TournamentGameRow {
                tournament_id: tid.clone(),
                tid_game: *number,
                game_id: room.id.clone(),
            })));
            self.link_tournament_game(&room.id, tid, *number);
        }
        self.store.commit(writes).await?;
        let invites =
            room.seats.iter().enumerate().filter_map(|(i, s)| Some((players[i], s.invite.clone()?))).collect();
        let id = room.id.clone();
        tracing::info!(game = %id, kind = game.id(), "game created");
        let game_json = room.to_json(self.time.now_ms());
        if room.is_live() {
            // A game that starts live (a challenge, a pairing): tell the accounts' event streams.
            for (i, seat) in room.seats.iter().enumerate() {
                if let Some(user) = seat.user_id {
                    let opponent = &room.seats[1 - i];
                    let mut event = json!({"v": 1, "type": "gameStart", "game": {
                        "id": room.id, "game": room.game.id(), "player": players[i],
                        "opponent": {"user": opponent.user, "name": room.seat_name(Player::from_index(1 - i))},
                        "rated": room.terms.rated,
                    }});
                    if let Some((tid, _)) = &req.tournament {
                        event["tournament"] = json!(tid);
                    }
                    self.notify(user, event);
                }
            }
        }
        let epoch = self.cluster.as_ref().map(|_| 1);
        self.install(room, epoch);
        Ok(Created { game: game_json, tokens, invites, id })
    }

    /// If an AI is on move in a live game, queue it to think.
    pub(crate) fn drive_ai(self: &Arc<Self>, h: &Arc<RoomHandle>, slot: &mut Slot) {
        if slot.thinking.is_some() || slot.evicted || *self.shutdown.borrow() || !slot.room.is_live() {
            return;
        }
        let player = slot.room.m.state.to_move();
        if slot.room.seats[player.index()].kind != SeatKind::Ai {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let ply = slot.room.moves.len();
        slot.thinking = Some(Thought { ply, stop: stop.clone() });
        self.ai.submit(self.clone(), crate::ai::Job { handle: h.clone(), player, ply, stop });
    }

    /// An AI's move is ready: play it if its game still waits for it.
    pub(crate) async fn ai_moved(
        self: &Arc<Self>,
        h: &Arc<RoomHandle>,
        slot: &mut Slot,
        player: Player,
        ply: usize,
        text: String,
    ) {
        let command = Command::Move { text, ply: Some(ply as u32) };
        let result =
            self.mutate(h, slot, |room, ctx| (room.apply(ctx, &Actor::Seat(player), command), Vec::new())).await;
        match result {
            Ok((Ok(_), _)) => {}
            Ok((Err(e), _)) | Err(e) => tracing::warn!(game = %h.id, error = %e, "the AI's move was not accepted"),
        }
    }

    /// Reload the games that need the server (clocks, first-move timers,
    /// AI seats) after a start, in bulk: one read, the moves replayed on
    /// every core, one write. The downtime is not charged to any clock.
    pub(crate) async fn resume_unfinished(self: &Arc<Self>) -> Result<usize, RoomError> {
        let stored = self.store.resumable().await?;
        let alive = self.store.last_alive().await?;
        let now = self.time.now_ms();
        let app = self.clone();
        let rooms: Vec<(Room, Write)> = tokio::task::spawn_blocking(move || {
            let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
            let chunk = stored.len().div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                let workers: Vec<_> = stored
                    .chunks(chunk)
                    .map(|games| {
                        let app = &app;
                        scope.spawn(move || {
                            let ctx = Ctx { now, times: &app.cfg.rooms };
                            let mut rooms = Vec::with_capacity(games.len());
                            for g in games {
                                match app.rebuild(g) {
                                    Ok(mut room) => {
                                        let down_at = alive.unwrap_or(room.updated_at_ms).max(room.updated_at_ms);
                                        room.resume(ctx, down_at);
                                        let row = Write::Game(Box::new(room.row()));
                                        rooms.push((room, row));
                                    }
                                    Err(e) => tracing::error!(game = %g.row.id, error = %e, "cannot resume a game"),
                                }
                            }
                            rooms
                        })
                    })
                    .collect();
                workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
            })
        })
        .await
        .map_err(|e| RoomError::Damaged { game: "*".into(), reason: format!("resuming failed: {e}") })?;
        let (rooms, writes): (Vec<Room>, Vec<Write>) = rooms.into_iter().unzip();
        if !writes.is_empty() {
            self.store.commit(writes).await?;
        }
        let resumed = rooms.len();
        for room in rooms {
            self.install(room, None);
        }
        Ok(resumed)
    }

    /// Let games leave memory: finished ones nobody asked for lately, and
    /// unfinished ones with no timer, no AI and nobody watching.
    fn evict(&self) -> usize {
        let now = self.time.now_ms();
        let times = &self.cfg.rooms;
        let handles: Vec<Arc<RoomHandle>> = self.map().values().cloned().collect();
        let mut evicted = 0;
        for h in handles {
            let idle = now.saturating_sub(h.touched_ms.load(Ordering::Relaxed));
            if h.tx.receiver_count() > 0 {
                continue;
            }
            let Ok(mut slot) = h.slot.clone().try_lock_owned() else { continue };
            let room = &slot.room;
            let leave = if room.status().is_over() {
                idle >= times.evict_finished_ms
            } else {
                // A lobby seek stays, so it can be removed when its creator leaves.
                let seek = room.status() == RoomStatus::Waiting && room.terms.public;
                !seek && slot.thinking.is_none() && room.next_deadline().is_none() && idle >= times.evict_idle_ms
            };
            if leave {
                // Under the map's lock, so no watcher subscribes in between.
                let mut map = self.map();
                if h.tx.receiver_count() == 0 && map.get(&h.id).is_some_and(|m| Arc::ptr_eq(m, &h)) {
                    map.remove(&h.id);
                    slot.evicted = true;
                    h.wake.notify_one();
                    evicted += 1;
                    if let (Some(c), Some(epoch)) = (&self.cluster, slot.epoch) {
                        // Nobody needs to take it over: let the lease go.
                        let (store, id, node) = (self.store.clone(), h.id.clone(), c.node.clone());
                        tokio::spawn(async move {
                            if let Err(e) = store.release(id.clone(), node, epoch).await {
                                tracing::debug!(game = %id, error = %e, "a lease was not let go; it expires");
                            }
                        });
                    }
                }
            }
        }
        evicted
    }

    /// Abort games nobody joined in time, and untimed games idle too long.
    async fn expire(self: &Arc<Self>) -> Result<usize, RoomError> {
        let now = self.time.now_ms();
        let times = &self.cfg.rooms;
        let ids = self
            .store
            .expired(now.saturating_sub(times.expire_waiting_ms), now.saturating_sub(times.expire_idle_ms), 500)
            .await?;
        let mut expired = 0;
        for id in ids {
            let (h, mut slot) = match self.lock(&id).await {
                Err(RoomError::Elsewhere { .. }) => continue, // its owner expires it
                locked => locked?,
            };
            let reason = match slot.room.status() {
                RoomStatus::Waiting => {
                    format!("aborted: nobody joined within {}", human_duration(times.expire_waiting_ms))
                }
                _ => format!("aborted: no move for {}", human_duration(times.expire_idle_ms)),
            };
            let due = match slot.room.status() {
                RoomStatus::Waiting => now.saturating_sub(slot.room.updated_at_ms) >= times.expire_waiting_ms,
                RoomStatus::Live => {
                    slot.room.time_control.is_none()
                        && now.saturating_sub(slot.room.updated_at_ms) >= times.expire_idle_ms
                }
                _ => false,
            };
            if !due {
                continue; // it moved since the query
            }
            let (done, _) =
                self.mutate(&h, &mut slot, |room, ctx| (room.expire(ctx, reason.clone()), Vec::new())).await?;
            if done {
                tracing::info!(game = %id, %reason, "game expired");
                expired += 1;
            }
        }
        Ok(expired)
    }

    /// Remove the lobby seeks whose creator has had no connection to them
    /// for `seek_leave_ms`.
    async fn remove_left_seeks(self: &Arc<Self>) -> usize {
        let now = self.time.now_ms();
        let leave_ms = self.cfg.rooms.seek_leave_ms;
        let handles: Vec<Arc<RoomHandle>> = self.map().values().cloned().collect();
        let mut removed = 0;
        for h in handles {
            let mut slot = h.slot.clone().lock_owned().await;
            let room = &slot.room;
            if slot.evicted || room.status() != RoomStatus::Waiting || !room.terms.public {
                continue;
            }
            let creator_gone = room
                .seats
                .iter()
                .enumerate()
                .filter(|(_, s)| s.kind == SeatKind::Human)
                .all(|(i, _)| room.away_since[i].is_some_and(|t| now.saturating_sub(t) >= leave_ms));
            if !creator_gone {
                continue;
            }
            let reason = "aborted: the creator left".to_string();
            match self.mutate(&h, &mut slot, |room, ctx| (room.expire(ctx, reason), Vec::new())).await {
                Ok((true, _)) => removed += 1,
                Ok(_) => {}
                Err(e) => tracing::warn!(game = %h.id, error = %e, "cannot remove a seek"),
            }
        }
        removed
    }

    /// A connection speaking for `seat` of game `h` opened (`true`) or
    /// closed: the seat's presence changes, and watchers hear of it.
    pub(crate) async fn seat_presence(self: &Arc<Self>, h: &Arc<RoomHandle>, seat: Player, open: bool) {
        let mut slot = h.slot.lock().await;
        let i = seat.index();
        let before = slot.seat_sockets[i];
        slot.seat_sockets[i] = if open { before + 1 } else { before.saturating_sub(1) };
        if h.is_remote() {
            // The owner counts presence: tell it.
            let sockets = slot.seat_sockets;
            drop(slot);
            self.tell_owner(h, sockets).await;
            return;
        }
        let elsewhere = slot.remote_connected(i);
        let now_connected = slot.seat_sockets[i] > 0 || elsewhere;
        if now_connected == (before > 0 || elsewhere) {
            return;
        }
        slot.room.away_since[i] = if now_connected { None } else { Some(self.time.now_ms()) };
        let msg = state_message(&slot.room.to_json(self.time.now_ms()));
        *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
        self.publish(h, msg);
    }

    /// Show a closed account's seats under its new name in the games in
    /// memory (the store renames the stored ones).
    pub(crate) async fn rename_user_in_rooms(self: &Arc<Self>, user_id: i64, name: &str) {
        let handles: Vec<Arc<RoomHandle>> = self.map().values().cloned().collect();
        for h in handles {
            let mut slot = h.slot.lock().await;
            let mut changed = false;
            for seat in slot.room.seats.iter_mut().filter(|s| s.user_id == Some(user_id)) {
                seat.name = name.to_string();
                seat.user = Some(name.to_string());
                changed = true;
            }
            if changed {
                let msg = state_message(&slot.room.to_json(self.time.now_ms()));
                *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
                self.publish(&h, msg);
            }
        }
    }

    /// Stop: no new AI starts and every thinking AI stops.
    pub(crate) fn stop(&self) {
        self.ai.close();
    }
}

/// Cluster mode (see the `cluster` module for the design).
impl App {
    /// Send a message of game `h` to its watchers here and, when this node
    /// owns it in a cluster, to the other nodes.
    pub(crate) fn publish(&self, h: &RoomHandle, msg: Utf8Bytes) {
        if let Some(c) = &self.cluster {
            if !h.is_remote() {
                let is_state = h.latest.lock().unwrap_or_else(|p| p.into_inner()).as_ref() == Some(&msg);
                c.publish(&h.id, &msg, is_state);
            }
        }
        let _ = h.tx.send(msg);
    }

    /// The fence that opens every commit of an owned game.
    fn fence(&self, id: &str, slot: &Slot) -> Option<Write> {
        let c = self.cluster.as_ref()?;
        Some(Write::Fence { game: id.to_string(), node: c.node.clone(), epoch: slot.epoch? })
    }

    /// A new game's first lease, written with it.
    fn new_lease(&self, id: &str) -> Option<Write> {
        let c = self.cluster.as_ref()?;
        Some(Write::NewLease { game: id.to_string(), node: c.node.clone() })
    }

    /// The room of a handle, locked; a remote handle's copy is read again
    /// first if messages came since (a seat may have been joined).
    pub(crate) async fn slot_of(&self, h: &RoomHandle) -> RoomGuard {
        let mut slot = h.slot_lock().await;
        if h.is_remote() && h.stale.swap(false, Ordering::SeqCst) {
            match self.load_copy(&h.id).await {
                Ok(room) => slot.room = room,
                Err(e) => tracing::warn!(game = %h.id, error = %e, "cannot read a game owned elsewhere"),
            }
        }
        slot
    }

    fn stripe(&self, id: &str) -> &tokio::sync::Mutex<()> {
        let hash = id.bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        &self.acquiring[hash % self.acquiring.len()]
    }

    /// This node lost game `h` to another node: the room leaves memory
    /// here, and its watchers here go on through the owner's messages.
    fn lose(self: &Arc<Self>, h: &Arc<RoomHandle>, slot: &mut Slot) {
        slot.evicted = true;
        if let Some(t) = slot.thinking.take() {
            t.stop.store(true, Ordering::Relaxed);
        }
        {
            let mut map = self.map();
            if map.get(&h.id).is_some_and(|m| Arc::ptr_eq(m, h)) {
                map.remove(&h.id);
            }
        }
        h.wake.notify_one();
        tracing::info!(game = %h.id, "another node owns the game now");
        if h.tx.receiver_count() > 0 {
            h.remote.store(true, Ordering::SeqCst);
            h.stale.store(true, Ordering::SeqCst);
            let mut remote = self.remote.lock().unwrap_or_else(|p| p.into_inner());
            if !remote.contains_key(&h.id) {
                remote.insert(h.id.clone(), h.clone());
                let (app, h) = (self.clone(), h.clone());
                tokio::spawn(async move {
                    let sub = match &app.cluster {
                        Some(c) => c.subscribe_game(&h.id).await,
                        None => None,
                    };
                    relay(app, h, sub).await;
                });
            }
        }
    }

    /// Take game `id`'s lease (from its owner too when `force`) and load it
    /// here; `Elsewhere` when a live node holds it.
    async fn acquire(self: &Arc<Self>, id: &str, force: bool) -> Result<Arc<RoomHandle>, RoomError> {
        let c = self.cluster.clone().ok_or_else(|| RoomError::NotFound(id.to_string()))?;
        let _one = self.stripe(id).lock().await;
        if let Some(h) = self.map().get(id) {
            return Ok(h.clone());
        }
        match self.store.lease(id.to_string(), c.node.clone(), force).await? {
            LeaseAnswer::Held { node } => Err(RoomError::Elsewhere { node }),
            LeaseAnswer::NoGame => Err(RoomError::NotFound(id.to_string())),
            LeaseAnswer::Granted { epoch, down_since_ms } => self.adopt(id, epoch, down_since_ms).await,
        }
    }

    /// Load game `id`, leased here at `epoch`, into memory (the caller holds
    /// its stripe). A game taken from a node that died resumes with the
    /// time since that node was last alive not charged to any clock.
    async fn adopt(
        self: &Arc<Self>,
        id: &str,
        epoch: i64,
        down_since_ms: Option<u64>,
    ) -> Result<Arc<RoomHandle>, RoomError> {
        let c = self.cluster.clone().ok_or_else(|| RoomError::NotFound(id.to_string()))?;
        let old = self.map().get(id).cloned();
        if let Some(old) = old {
            let mut slot = old.slot.clone().lock_owned().await;
            if slot.epoch == Some(epoch) && !slot.evicted {
                return Ok(old.clone());
            }
            // This node's own lease lapsed and was taken again: the old
            // room's commits would be fenced off.
            self.lose(&old, &mut slot);
        }
        let mut room = match self.load_copy(id).await {
            Ok(room) => room,
            Err(e) => {
                let _ = self.store.release(id.to_string(), c.node.clone(), epoch).await;
                return Err(e);
            }
        };
        let resumed = down_since_ms.is_some() && !room.status().is_over();
        if let Some(down) = down_since_ms.filter(|_| resumed) {
            room.resume(self.ctx(), down.max(room.updated_at_ms));
            let fence = Write::Fence { game: id.to_string(), node: c.node.clone(), epoch };
            self.store.commit(vec![fence, Write::Game(Box::new(room.row()))]).await?;
            tracing::info!(game = %id, epoch, "took over a game whose node stopped");
        }
        if !room.status().is_over() && !self.is_leader() {
            self.link_if_tournament(id).await;
        }
        let h = self.install(room, Some(epoch));
        if resumed {
            let slot = h.slot_lock().await;
            let msg = state_message(&slot.room.to_json(self.time.now_ms()));
            *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
            self.publish(&h, msg);
        }
        Ok(h)
    }

    /// The owner of game `id` (`owner`) cannot be reached: take the game
    /// over here. A node that is gone (`owner_gone`) loses its lease within
    /// the lease time; otherwise (NATS down) the game is taken at once, and
    /// the fence keeps the old owner from writing it again.
    async fn take_over(self: &Arc<Self>, id: &str, owner: &str, owner_gone: bool) -> Result<(), RoomError> {
        let lease_ms = self.cluster.as_ref().map_or(0, |c| c.lease_ms);
        if owner_gone {
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(lease_ms + 1_000);
            while std::time::Instant::now() < deadline {
                match self.acquire(id, false).await {
                    Ok(_) => return Ok(()),
                    Err(RoomError::Elsewhere { node }) if node == owner => {
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await
                    }
                    Err(RoomError::Elsewhere { .. }) => return Ok(()), // another node took it: ask it
                    Err(e) => return Err(e),
                }
            }
        }
        tracing::warn!(game = %id, owner, "taking over a game whose node cannot be reached");
        match self.acquire(id, true).await {
            Ok(_) | Err(RoomError::Elsewhere { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Watch a game another node owns: its messages come through NATS.
    async fn watch_remote(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<(Arc<RoomHandle>, broadcast::Receiver<Utf8Bytes>), RoomError> {
        if let Some(h) = self.remote.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            return Ok((h.clone(), h.tx.subscribe()));
        }
        // Subscribed before reading, so no message falls in between.
        let sub = match &self.cluster {
            Some(c) => c.subscribe_game(id).await,
            None => None,
        };
        let room = self.load_copy(id).await?;
        let mut slot = Slot::new(room, None);
        slot.evicted = true; // no timer, no AI: the owner runs them
        let h = Arc::new(RoomHandle::new(id.to_string(), slot, self.time.now_ms(), true));
        let rx = {
            let mut remote = self.remote.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(existing) = remote.get(id) {
                return Ok((existing.clone(), existing.tx.subscribe()));
            }
            remote.insert(id.to_string(), h.clone());
            h.tx.subscribe()
        };
        tokio::spawn(relay(self.clone(), h.clone(), sub));
        Ok((h, rx))
    }

    /// A remote handle's watchers missed messages (NATS was down): send
    /// them the game as stored.
    async fn catch_up(&self, h: &RoomHandle) {
        match self.load_copy(&h.id).await {
            Ok(room) => {
                let msg = state_message(&room.to_json(self.time.now_ms()));
                h.slot_lock().await.room = room;
                *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
                let _ = h.tx.send(msg);
            }
            Err(e) => tracing::warn!(game = %h.id, error = %e, "cannot catch up a game owned elsewhere"),
        }
    }

    /// The games this node owns (in memory).
    fn owned(&self) -> Vec<Arc<RoomHandle>> {
        self.map().values().cloned().collect()
    }
}

/// Cluster mode: the messages of `topic`, subscribing again each second
/// until NATS takes the subscription; `None` once the server stops.
async fn subscribed(c: &Cluster, topic: Topic, shutdown: &mut watch::Receiver<bool>) -> Option<async_nats::Subscriber> {
    loop {
        match c.subscribe(topic).await {
            Ok(sub) => return Some(sub),
            Err(e) => {
                tracing::warn!(topic = ?topic, error = %e, "cannot subscribe; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                    _ = shutdown.changed() => return None,
                }
            }
        }
    }
}

/// Cluster mode: hand account events from other nodes to the streams here.
pub(crate) async fn receive_events(app: Arc<App>) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let Some(mut sub) = subscribed(&c, Topic::Events, &mut shutdown).await else { return };
    loop {
        tokio::select! {
            m = sub.next() => match m {
                Some(m) => {
                    if let Some((user, event)) = c.read_event(&m.payload) {
                        app.deliver_event(user, event);
                    }
                }
                None => return,
            },
            _ = shutdown.changed() => return,
        }
    }
}

/// Cluster mode, on the leader: record the results of tournament games
/// that ended on other nodes.
pub(crate) async fn receive_finished(app: Arc<App>) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let Some(mut sub) = subscribed(&c, Topic::Finished, &mut shutdown).await else { return };
    loop {
        let game = tokio::select! {
            m = sub.next() => match m { Some(m) => String::from_utf8_lossy(&m.payload).to_string(), None => return },
            _ = shutdown.changed() => return,
        };
        let Some((tid, number)) = app.tournament_of(&game) else { continue };
        if !app.is_leader() {
            continue;
        }
        let result = match app.read(&game).await {
            Ok(room) => room.m.result.is_some().then(|| crate::tournaments::game_result(&room)),
            Err(e) => {
                tracing::warn!(game = %game, error = %e, "cannot read a finished tournament game");
                None
            }
        };
        if let Some(result) = result {
            app.tournament_game_over(&tid, number, result).await;
        }
    }
}

/// Cluster mode: seat presence and online accounts of the other nodes, and
/// tournament changes on the leader; and, every two seconds, this node's
/// own presence reports.
pub(crate) async fn exchange_presence(app: Arc<App>) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let (Some(mut presence), Some(mut online), Some(mut tournaments), Some(mut renamed)) = (
        subscribed(&c, Topic::Presence, &mut shutdown).await,
        subscribed(&c, Topic::Online, &mut shutdown).await,
        subscribed(&c, Topic::Tournament, &mut shutdown).await,
        subscribed(&c, Topic::Renamed, &mut shutdown).await,
    ) else {
        return;
    };
    let mut every = tokio::time::interval(std::time::Duration::from_secs(2));
    loop {
        tokio::select! {
            Some(m) = presence.next() => {
                if let Some(p) = c.read_presence(&m.payload) {
                    app.remote_presence(p).await;
                }
            }
            Some(m) = online.next() => {
                if let Some(o) = c.read_online(&m.payload) {
                    app.presence.elsewhere(o.node, o.users);
                }
            }
            Some(m) = renamed.next() => {
                if let Some((user, serde_json::Value::String(name))) = c.read_event(&m.payload) {
                    app.rename_user_in_rooms(user, &name).await;
                }
            }
            Some(m) = tournaments.next() => {
                if !app.is_leader() {
                    app.tournaments.changed_elsewhere(&String::from_utf8_lossy(&m.payload)).await;
                }
            }
            _ = every.tick() => {
                c.publish_online(app.presence.here());
                let remote: Vec<Arc<RoomHandle>> =
                    app.remote.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect();
                for h in remote {
                    let sockets = h.slot_lock().await.seat_sockets;
                    if sockets != [0, 0] {
                        c.publish_presence(&h.id, sockets);
                    }
                }
                app.expire_remote_presence().await;
            }
            _ = shutdown.changed() => return,
        }
    }
}

impl App {
    /// Another node's seat connections for a game this node may own.
    async fn remote_presence(self: &Arc<Self>, p: crate::cluster::Presence) {
        let Some(h) = self.map().get(&p.game).cloned() else { return };
        let mut slot = h.slot.lock().await;
        if slot.evicted {
            return;
        }
        self.note_remote_sockets(&h, &mut slot, p.node, p.sockets);
    }

    /// Take in another node's seat connections for a game owned here.
    fn note_remote_sockets(&self, h: &RoomHandle, slot: &mut Slot, node: String, sockets: [usize; 2]) {
        let before = slot.seats_present();
        slot.remote_sockets.insert(node, (sockets, std::time::Instant::now()));
        self.presence_changed(h, slot, before);
    }

    /// Ask the live owner of game `id`, another node, about it (see
    /// [`crate::cluster::Cluster::ask`]); `None` without one or its answer.
    async fn ask_owner(&self, id: &str, sockets: Option<[usize; 2]>) -> Option<crate::cluster::Answer> {
        let c = self.cluster.as_ref()?;
        let owner = self.store.holder(id.to_string()).await.ok().flatten().filter(|o| *o != c.node)?;
        c.ask(&owner, id, sockets).await
    }

    /// Tell the owner of remote game `h` how many connections speak for
    /// each seat here, and take its answer as the game's latest state, so a
    /// socket that just opened is sent a state where its seat is present.
    /// Without an answer, the report goes out as a message.
    async fn tell_owner(self: &Arc<Self>, h: &RoomHandle, sockets: [usize; 2]) {
        let Some(c) = &self.cluster else { return };
        match self.ask_owner(&h.id, Some(sockets)).await {
            Some(answer) => {
                h.slot_lock().await.room.away_since = answer.away_since;
                *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(Utf8Bytes::from(answer.state));
            }
            None => c.publish_presence(&h.id, sockets),
        }
    }

    /// Answer another node's question about a game owned here, taking in
    /// its seat connections; `None` if this node does not own the game.
    async fn answer(self: &Arc<Self>, ask: crate::cluster::Ask) -> Option<crate::cluster::Answer> {
        let h = self.map().get(&ask.game).cloned()?;
        let mut slot = h.slot.lock().await;
        if slot.evicted {
            return None;
        }
        if let Some(sockets) = ask.sockets {
            self.note_remote_sockets(&h, &mut slot, ask.node, sockets);
        }
        let mut latest = h.latest.lock().unwrap_or_else(|p| p.into_inner());
        let state = latest.get_or_insert_with(|| state_message(&slot.room.to_json(self.time.now_ms())));
        Some(crate::cluster::Answer { away_since: slot.room.away_since, state: state.to_string() })
    }

    /// Forget the seat connections of nodes that stopped reporting them.
    async fn expire_remote_presence(self: &Arc<Self>) {
        for h in self.owned() {
            let mut slot = h.slot.lock().await;
            if slot.remote_sockets.is_empty() || slot.evicted {
                continue;
            }
            let before = slot.seats_present();
            slot.remote_sockets.retain(|_, (_, at)| at.elapsed() < std::time::Duration::from_secs(6));
            self.presence_changed(&h, &mut slot, before);
        }
    }

    /// A seat's presence may have changed: mark it and tell the watchers.
    fn presence_changed(&self, h: &RoomHandle, slot: &mut Slot, before: [bool; 2]) {
        let now = self.time.now_ms();
        let mut changed = false;
        for (i, (was, is)) in before.into_iter().zip(slot.seats_present()).enumerate() {
            if is != was {
                slot.room.away_since[i] = if is { None } else { Some(now) };
                changed = true;
            }
        }
        if changed {
            let msg = state_message(&slot.room.to_json(now));
            *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
            self.publish(h, msg);
        }
    }

    /// This node leads (see the `leader` field).
    pub(crate) fn is_leader(&self) -> bool {
        *self.leader.borrow()
    }

    /// Resolves once this node leads (at once for a server alone).
    pub(crate) async fn until_leader(&self) {
        let mut leader = self.leader.subscribe();
        let _ = leader.wait_for(|l| *l).await;
    }
}

/// Cluster mode: try each second to be the cluster's leader; while leading,
/// resume the tournaments and serve the requests other nodes forward to the
/// leader (challenges, pools, tournaments) through `router`.
pub(crate) async fn lead(app: Arc<App>, router: axum::Router) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let mut serving: Option<tokio::task::JoinHandle<()>> = None;
    loop {
        let leads = match app.store.lead().await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot tell whether this node leads");
                false
            }
        };
        if leads && serving.is_none() {
            tracing::info!(node = %c.node, "this node leads the cluster now (challenges, pools, tournaments)");
            match app.resume_tournaments().await {
                Ok(n) if n > 0 => tracing::info!(tournaments = n, "tournaments resumed"),
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "cannot resume the tournaments"),
            }
            match c.subscribe(Topic::Leader).await {
                Ok(mut sub) => {
                    let (c, router) = (c.clone(), router.clone());
                    let limit = app.cfg.net.max_body_bytes;
                    serving = Some(tokio::spawn(async move {
                        while let Some(msg) = sub.next().await {
                            let Some(to) = msg.reply.clone() else { continue };
                            let (c, router) = (c.clone(), router.clone());
                            tokio::spawn(async move {
                                let response = crate::http::serve_forwarded(router, &msg.payload, limit).await;
                                c.reply(to, &response).await;
                            });
                        }
                    }));
                    app.leader.send_replace(true);
                }
                Err(e) => tracing::warn!(error = %e, "cannot listen for requests to the leader"),
            }
        } else if !leads && serving.is_some() {
            tracing::warn!(node = %c.node, "this node no longer leads the cluster");
            app.leader.send_replace(false);
            if let Some(task) = serving.take() {
                task.abort();
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            _ = shutdown.changed() => {
                // A stopping node answers for the leader no more (its
                // database is closing).
                if let Some(task) = serving.take() {
                    task.abort();
                }
                app.leader.send_replace(false);
                return;
            }
        }
    }
}

/// Relay a game another node owns from NATS to its watchers here, until
/// none is left.
async fn relay(app: Arc<App>, h: Arc<RoomHandle>, mut sub: Option<async_nats::Subscriber>) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut connections = c.connections();
    connections.borrow_and_update();
    let mut check = tokio::time::interval(std::time::Duration::from_secs(2));
    let mut shutdown = app.shutdown.clone();
    loop {
        let next = async {
            match sub.as_mut() {
                Some(s) => s.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            msg = next => match msg.map(|m| crate::cluster::Cluster::unwrap_game_message(&m.payload)) {
                Some(Some((is_state, msg))) => {
                    if is_state {
                        *h.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg.clone());
                    }
                    h.stale.store(true, Ordering::SeqCst);
                    let _ = h.tx.send(msg);
                }
                Some(None) => {}
                None => sub = None,
            },
            _ = connections.changed() => {
                if sub.is_none() {
                    sub = c.subscribe_game(&h.id).await;
                }
                app.catch_up(&h).await;
            }
            _ = check.tick() => {
                let mut remote = app.remote.lock().unwrap_or_else(|p| p.into_inner());
                if h.tx.receiver_count() == 0 {
                    if remote.get(&h.id).is_some_and(|m| Arc::ptr_eq(m, &h)) {
                        remote.remove(&h.id);
                    }
                    return;
                }
            }
            _ = shutdown.changed() => return,
        }
    }
}

/// Cluster mode: say this node is alive (which renews all its leases)
/// every third of the lease time, and let go of the games another node
/// took meanwhile.
pub(crate) async fn keep_leases(app: Arc<App>) {
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let mut every = tokio::time::interval(std::time::Duration::from_millis((c.lease_ms / 3).max(50)));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = shutdown.changed() => return,
        }
        let started = std::time::Instant::now();
        let held = match app.store.node_alive(c.node.clone(), app.time.now_ms(), c.lease_ms).await {
            Ok(held) => held.into_iter().collect::<std::collections::HashSet<(String, i64)>>(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew this node's leases");
                continue;
            }
        };
        for h in app.owned() {
            if h.born >= started {
                continue;
            }
            let Ok(mut slot) = h.slot.clone().try_lock_owned() else { continue };
            if let Some(epoch) = slot.epoch {
                if !slot.evicted && !held.contains(&(h.id.clone(), epoch)) {
                    app.lose(&h, &mut slot);
                }
            }
        }
    }
}

/// Cluster mode: each second, take over games that need a server (clocks,
/// timers, AI seats) and whose node died or left.
pub(crate) async fn adopt_orphans(app: Arc<App>) {
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let mut every = tokio::time::interval(std::time::Duration::from_millis(1_000));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = shutdown.changed() => return,
        }
        let orphans = match app.store.orphans(c.node.clone(), 500).await {
            Ok(o) => o,
            Err(e) => {
                tracing::warn!(error = %e, "cannot look for games to take over");
                continue;
            }
        };
        if !orphans.is_empty() {
            tracing::info!(games = orphans.len(), "taking over games whose node stopped");
        }
        for o in orphans {
            let _one = app.stripe(&o.game).lock().await;
            if let Err(e) = app.adopt(&o.game, o.epoch, o.down_since_ms).await {
                tracing::error!(game = %o.game, error = %e, "cannot take a game over");
            }
        }
    }
}

/// Cluster mode: run the commands other nodes forward to this one, and
/// answer their questions about the games it owns.
pub(crate) async fn serve_forwarded(app: Arc<App>) {
    use futures_util::StreamExt;
    let Some(c) = app.cluster.clone() else { return };
    let mut shutdown = app.shutdown.clone();
    let Some(mut sub) = subscribed(&c, Topic::Exec, &mut shutdown).await else { return };
    let Some(mut asks) = subscribed(&c, Topic::Ask, &mut shutdown).await else { return };
    loop {
        let msg = tokio::select! {
            m = sub.next() => match m { Some(m) => m, None => return },
            m = asks.next() => {
                let Some(m) = m else { return };
                let (Some(reply_to), Ok(ask)) = (m.reply.clone(), serde_json::from_slice(&m.payload)) else { continue };
                let (app, c) = (app.clone(), c.clone());
                tokio::spawn(async move { c.reply(reply_to, &app.answer(ask).await).await });
                continue;
            }
            _ = shutdown.changed() => return,
        };
        let Some(reply_to) = msg.reply.clone() else { continue };
        let (app, c) = (app.clone(), c.clone());
        tokio::spawn(async move {
            let reply = match serde_json::from_slice::<crate::cluster::ExecRequest>(&msg.payload) {
                Ok(r) => crate::cluster::ExecReply::of(app.execute_here(&r.game, r.actor, r.command).await),
                Err(e) => crate::cluster::ExecReply::of(Err(RoomError::Remote(crate::error::ApiError::bad_request(
                    "bad_request",
                    format!("a forwarded command cannot be read: {e}"),
                )))),
            };
            c.reply(reply_to, &reply).await;
        });
    }
}

/// Cluster mode: when NATS comes back, send again the last message of
/// every game owned here, so watchers on other nodes catch up.
pub(crate) async fn republish_on_reconnect(app: Arc<App>) {
    let Some(c) = app.cluster.clone() else { return };
    let mut connections = c.connections();
    connections.borrow_and_update();
    let mut shutdown = app.shutdown.clone();
    loop {
        tokio::select! {
            changed = connections.changed() => if changed.is_err() { return },
            _ = shutdown.changed() => return,
        }
        for h in app.owned() {
            let latest = h.latest.lock().unwrap_or_else(|p| p.into_inner()).clone();
            if let Some(msg) = latest {
                c.publish(&h.id, &msg, true);
            }
        }
    }
}

/// Resolves once the server is stopping.
pub(crate) async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|s| *s).await;
}

/// Let a flag fall, or a first-move timer run out, the moment it is due.
async fn run_timer(app: Arc<App>, h: Arc<RoomHandle>) {
    let mut shutdown = app.shutdown.clone();
    loop {
        let deadline = {
            let slot = h.slot.lock().await;
            if slot.evicted || slot.room.m.result.is_some() {
                return;
            }
            slot.room.next_deadline()
        };
        let sleep = async {
            match deadline {
                Some(d) => app.time.sleep_until(d).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = sleep => {
                let mut slot = h.slot.clone().lock_owned().await;
                if slot.evicted {
                    return;
                }
                match app.mutate(&h, &mut slot, |room, ctx| (room.tick(ctx), Vec::new())).await {
                    Ok((true, _)) => {
                        if let Some(r) = &slot.room.m.result {
                            tracing::info!(game = %h.id, reason = %r.reason, "time ran out");
                        }
                    }
                    Ok((false, _)) => {}
                    Err(e) => {
                        tracing::error!(game = %h.id, error = %e, "cannot save a time event; retrying");
                        drop(slot);
                        app.time.sleep(200).await;
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
pub(crate) async fn heartbeat(app: Arc<App>) {
    let mut shutdown = app.shutdown.clone();
    loop {
        tokio::select! {
            _ = app.time.sleep(1_000) => {
                if let Err(e) = app.store.heartbeat(app.time.now_ms()).await {
                    tracing::warn!(error = %e, "heartbeat not saved");
                }
            }
            _ = shutdown.changed() => return,
        }
    }
}

/// Eviction, expiry and forgetting quiet clients, every few seconds.
pub(crate) async fn housekeeping(app: Arc<App>) {
    let mut shutdown = app.shutdown.clone();
    let mut sessions_purged_ms = 0u64;
    loop {
        tokio::select! {
            _ = app.time.sleep(app.cfg.rooms.housekeeping_ms) => {
                let evicted = app.evict();
                if evicted > 0 {
                    tracing::debug!(evicted, "games left memory");
                }
                if let Err(e) = app.expire().await {
                    tracing::warn!(error = %e, "expiry failed");
                }
                // Expired sessions leave the database once an hour.
                let now = app.time.now_ms();
                if now.saturating_sub(sessions_purged_ms) >= 3_600_000 {
                    sessions_purged_ms = now;
                    let purge = crate::store::AccountWrite::PurgeSessions { before_ms: now };
                    if let Err(e) = app.store.commit(vec![Write::Account(purge)]).await {
                        tracing::warn!(error = %e, "expired sessions not purged");
                    }
                }
                let removed = app.remove_left_seeks().await;
                if removed > 0 {
                    tracing::info!(removed, "seeks removed: their creators left");
                }
                app.limits.forget_quiet_clients();
            }
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod latency_tests {
    use super::LatencyWindow;
    use std::time::Duration;

    #[test]
    fn the_window_keeps_the_newest_samples_and_reads_percentiles_from_them() {
        let w = LatencyWindow::default();
        assert_eq!(w.summary().count, 0);
        // 10,000 fast samples, then 200 slow ones push the oldest out.
        for _ in 0..LatencyWindow::SIZE {
            w.record(Duration::from_micros(500));
        }
        for _ in 0..200 {
            w.record(Duration::from_millis(40));
        }
        let s = w.summary();
        assert_eq!(s.count, LatencyWindow::SIZE);
        assert_eq!((s.p50_ms, s.max_ms), (0.5, 40.0));
        assert_eq!(s.p99_ms, 40.0, "the slowest 2% are the slow samples");
    }
}
