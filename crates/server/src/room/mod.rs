//! A room: one hosted game with its seats, clock, move log and everything
//! players can do to it. lila's `round` is the model: every action is a
//! [`Command`] handled by a method in a file of its own (`join.rs`,
//! `play.rs`, `resign.rs`, `draw.rs`, `abort.rs`, `rematch.rs`), with a
//! typed result ([`Outcome`]) or error ([`RoomError`]). The time-driven
//! changes (flag fall, first-move timer, expiry) live in `timers.rs`.
//!
//! A room is pure: time comes in as epoch milliseconds in a [`Ctx`], and a
//! change returns nothing to write. The caller (the `app` module) snapshots
//! the room, runs the command, and writes [`Room::writes_since`] when
//! [`Room::version`] moved, rolling back to the snapshot if the store
//! refuses. So every action is persisted, published and rolled back the
//! same way.
//!
//! Where the next features plug in: accounts (issue 14) add an
//! `Actor::User` and a seat owner beside the token, so `seat_of` resolves
//! either; rated games and claim-win are further commands; tournaments
//! create rooms with `Room::new` and read results from the store.

mod abort;
mod claim;
mod command;
mod draw;
mod error;
mod join;
mod json;
mod play;
mod rematch;
mod resign;
mod timers;

pub use command::{Actor, Command, DrawAction, Joiner, Outcome};
pub use error::RoomError;
pub use json::{public_seats, summary_json};

use crate::config::RoomTimes;
use crate::store::{GameRow, MoveRow, StoredGame, Write};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabula_core::matches::{Match, MatchResult};
use tabula_core::{Clock, DynGame, Player, TabulaError, TimeControl};

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoomStatus {
    /// An open seat waits for someone to join through its invite.
    Waiting,
    /// Being played.
    Live,
    /// Ended with a result (a win or a draw).
    Finished,
    /// Ended without a result: aborted before the first moves, or expired.
    Aborted,
}

/// A status name that is none of `waiting`, `live`, `finished`, `aborted`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("status '{0}' is not waiting, live, finished or aborted")]
pub struct UnknownStatus(pub String);

impl RoomStatus {
    /// The name used in JSON and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            RoomStatus::Waiting => "waiting",
            RoomStatus::Live => "live",
            RoomStatus::Finished => "finished",
            RoomStatus::Aborted => "aborted",
        }
    }

    /// The game has ended (finished or aborted).
    pub fn is_over(self) -> bool {
        matches!(self, RoomStatus::Finished | RoomStatus::Aborted)
    }
}

impl std::str::FromStr for RoomStatus {
    type Err = UnknownStatus;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "waiting" => Ok(RoomStatus::Waiting),
            "live" => Ok(RoomStatus::Live),
            "finished" => Ok(RoomStatus::Finished),
            "aborted" => Ok(RoomStatus::Aborted),
            other => Err(UnknownStatus(other.to_string())),
        }
    }
}

/// Who sits in a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A person holding the seat's token.
    Human,
    /// Nobody yet: someone joins through the invite code.
    Open,
    /// An AI of a listed level.
    Ai,
}

/// A seat as stored, secrets included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// Who sits here.
    pub kind: SeatKind,
    /// The name shown; empty means the player's own name (`white`, ...).
    pub name: String,
    /// The AI level of an AI seat.
    #[serde(default)]
    pub level: Option<String>,
    /// Secret token of a human seat (set once an open seat is joined).
    #[serde(default)]
    pub token: Option<String>,
    /// Secret invite code of an open seat.
    #[serde(default)]
    pub invite: Option<String>,
    /// The account sitting here (issue 14), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<i64>,
    /// That account's name, shown publicly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// That account's rating in this game's category when a rated game
    /// started, and whether it was provisional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<SeatRating>,
}

/// A seat's rating at the start of a rated game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeatRating {
    /// The rating, rounded.
    pub rating: i32,
    /// High deviation: the rating is not yet reliable.
    pub provisional: bool,
}

impl Seat {
    /// A human seat with a fresh token.
    pub fn human(name: Option<String>) -> Seat {
        Seat {
            kind: SeatKind::Human,
            name: name.unwrap_or_default(),
            level: None,
            token: Some(random_string(32)),
            invite: None,
            user_id: None,
            user: None,
            rating: None,
        }
    }

    /// A human seat held by an account (it also gets a token).
    pub fn account(user_id: i64, user: String) -> Seat {
        Seat { user_id: Some(user_id), name: user.clone(), user: Some(user), ..Seat::human(None) }
    }

    /// An open seat with a fresh invite code.
    pub fn open(name: Option<String>) -> Seat {
        Seat {
            kind: SeatKind::Open,
            name: name.unwrap_or_default(),
            level: None,
            token: None,
            invite: Some(random_string(24)),
            user_id: None,
            user: None,
            rating: None,
        }
    }

    /// An AI seat.
    pub fn ai(level: String) -> Seat {
        Seat {
            kind: SeatKind::Ai,
            name: format!("AI ({level})"),
            level: Some(level),
            token: None,
            invite: None,
            user_id: None,
            user: None,
            rating: None,
        }
    }

    /// An AI seat's level when `game` does not list it.
    pub fn unlisted_level(&self, game: &dyn DynGame) -> Option<&str> {
        if self.kind != SeatKind::Ai {
            return None;
        }
        let level = self.level.as_deref().unwrap_or(game.default_level());
        (!game.levels().iter().any(|l| l.id == level)).then_some(level)
    }
}

/// Compare secrets without an early exit on the first differing byte.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A secret or id from the operating system's generator.
pub fn random_string(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut rng = rand::rng();
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// One move of the log.
#[derive(Debug, Clone)]
pub struct MoveRecord {
    /// Who played it.
    pub player: Player,
    /// The move in the game's notation.
    pub text: String,
    /// The move as shown to people (SAN), when it differs from `text`.
    pub display: Option<String>,
    /// When it was played.
    pub at_ms: u64,
    /// Both clocks right after it.
    pub clocks: Option<[u64; 2]>,
    /// The score after it.
    pub score: Option<[i32; 2]>,
}

/// The last draw offer that was declined (by a refusal, by moving instead,
/// or by an AI seat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawDeclined {
    /// Who declined.
    pub by: Player,
    /// Plies played when it was declined.
    pub ply: u32,
}

/// What a command needs besides the room: the time and the room rules.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// Now, in epoch milliseconds.
    pub now: u64,
    /// First-move time and the like.
    pub times: &'a RoomTimes,
}

/// Everything needed to open a room.
pub struct RoomSpec {
    /// Its id.
    pub id: String,
    /// The game type.
    pub game: &'static dyn DynGame,
    /// Options as given (they are checked and normalised here).
    pub options: Vec<(String, String)>,
    /// The time control asked for; options that fix a clock override it.
    pub time_control: TimeControl,
    /// First player's seat first.
    pub seats: [Seat; 2],
    /// Seed of the AI seats; random when `None`.
    pub seed: Option<u64>,
    /// The game this is the rematch of.
    pub rematch_of: Option<String>,
    /// Rated, public, rating range.
    pub terms: Terms,
}

/// How a game is played for: rated or not, listed or not, and who may
/// take its open seat.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Terms {
    /// Rated: the result changes both ratings.
    pub rated: bool,
    /// Listed in the lobby: anyone eligible may take the open seat
    /// without the invite.
    pub public: bool,
    /// The speed category (from the time control).
    pub category: Option<String>,
    /// A joiner's rating must lie in this range (rated games).
    pub rating_range: Option<[i32; 2]>,
}

/// One hosted game.
pub struct Room {
    /// The game's id.
    pub id: String,
    /// Its type.
    pub game: &'static dyn DynGame,
    /// Its normalised options.
    pub options: Vec<(String, String)>,
    /// The clock it is played with.
    pub time_control: TimeControl,
    /// Position, clock and result.
    pub m: Match,
    /// First player's seat first.
    pub seats: [Seat; 2],
    /// The move log.
    pub moves: Vec<MoveRecord>,
    /// The player offering a draw.
    pub draw_offer: Option<Player>,
    /// The last declined offer, until the next move.
    pub draw_declined: Option<DrawDeclined>,
    /// The instant by which the side on move must make its first move.
    pub first_move_deadline_ms: Option<u64>,
    /// Ended without a result (the result says why).
    pub aborted: bool,
    /// The rematch started from this game.
    pub rematch_id: Option<String>,
    /// The game this is the rematch of.
    pub rematch_of: Option<String>,
    /// Seed of the AI seats.
    pub seed: u64,
    /// Rated, public, rating range.
    pub terms: Terms,
    /// Both rating changes of a finished rated game, as JSON.
    pub rating_changes: Option<Value>,
    /// Since when each seat has had no connection (not stored: a loaded
    /// game counts from when it was loaded); `None` while connected.
    pub away_since: [Option<u64>; 2],
    /// How long an opponent must be gone before a claim (from the config).
    pub claim_after_ms: u64,
    /// When the game was created.
    pub created_at_ms: u64,
    /// When it last changed.
    pub updated_at_ms: u64,
    /// Moves on at every change (not stored), so callers know what to save.
    version: u64,
}

/// What a change can be rolled back to if the store refuses it.
pub struct Snapshot {
    state: Box<dyn tabula_core::DynState>,
    clock: Clock,
    result: Option<MatchResult>,
    moves: usize,
    draw_offer: Option<Player>,
    draw_declined: Option<DrawDeclined>,
    first_move_deadline_ms: Option<u64>,
    aborted: bool,
    seats: [Seat; 2],
    rematch_id: Option<String>,
    rating_changes: Option<Value>,
    updated_at_ms: u64,
    version: u64,
}

impl Snapshot {
    /// The room's version when the snapshot was taken.
    pub fn version(&self) -> u64 {
        self.version
    }
    /// The declined offer at that time.
    pub fn draw_declined(&self) -> Option<DrawDeclined> {
        self.draw_declined
    }
}

impl Room {
    /// Open a room: check the options, make the start position and set up
    /// the clock. No clock runs before both sides have made a first move.
    pub fn new(spec: RoomSpec, ctx: Ctx) -> Result<Room, TabulaError> {
        // Only the levels the game lists (each bounded in time and memory):
        // never a CLI baseline such as `uct:86400000`, and not in a rematch
        // of a game stored before this rule either.
        for seat in &spec.seats {
            if let Some(level) = seat.unlisted_level(spec.game) {
                let known = spec.game.levels().iter().map(|l| l.id.clone()).collect::<Vec<_>>().join(", ");
                return Err(TabulaError::UnknownLevel {
                    game: spec.game.id().to_string(),
                    level: level.to_string(),
                    known,
                });
            }
        }
        let options = spec.game.normalize_options(&spec.options)?;
        let state = spec.game.new_state(&options)?;
        // A game whose options set its clock (Cordots' mode) takes it from
        // them alone: an untimed mode stays untimed, whatever time control
        // came with the request, since its ply cap is meant for games
        // without a clock (the CLI refuses that combination outright).
        let time_control = match state.time_control() {
            Some(tc) => tc,
            None if spec.game.clock_option_keys().is_empty() => spec.time_control,
            None => TimeControl::default(),
        };
        let mut m = Match::new(state, time_control, ctx.now);
        m.clock.pause(ctx.now);
        let mut room = Room {
            id: spec.id,
            game: spec.game,
            options,
            time_control,
            m,
            seats: spec.seats,
            moves: Vec::new(),
            draw_offer: None,
            draw_declined: None,
            first_move_deadline_ms: None,
            aborted: false,
            rematch_id: None,
            rematch_of: spec.rematch_of,
            seed: spec.seed.unwrap_or_else(|| rand::rng().random()),
            terms: spec.terms,
            rating_changes: None,
            away_since: [Some(ctx.now); 2],
            claim_after_ms: ctx.times.claim_after_ms,
            created_at_ms: ctx.now,
            updated_at_ms: ctx.now,
            version: 1,
        };
        room.arm_first_move(ctx);
        Ok(room)
    }

    /// Rebuild a stored game, replaying every move through the rules.
    pub fn from_stored(game: &'static dyn DynGame, stored: &StoredGame) -> Result<Room, RoomError> {
        let row = &stored.row;
        let damaged = |what: &str, e: &dyn std::fmt::Display| RoomError::Damaged {
            game: row.id.clone(),
            reason: format!("{what}: {e}"),
        };
        let options: Vec<(String, String)> = serde_json::from_str(&row.options).map_err(|e| damaged("options", &e))?;
        let time_control: TimeControl =
            serde_json::from_str(&row.time_control).map_err(|e| damaged("time control", &e))?;
        let seats: [Seat; 2] = serde_json::from_str(&row.seats).map_err(|e| damaged("seats", &e))?;
        let clock: Clock = serde_json::from_str(&row.clock).map_err(|e| damaged("clock", &e))?;
        let players = game.players();
        let mut state = game.new_state(&options).map_err(|e| damaged("options", &e))?;
        let mut moves = Vec::with_capacity(stored.moves.len());
        for (i, mv) in stored.moves.iter().enumerate() {
            if mv.ply as usize != i + 1 {
                return Err(damaged("move log", &format!("ply {} where {} was expected", mv.ply, i + 1)));
            }
            let player = state.to_move();
            // Moves stored before display notations were kept get theirs now.
            let display = match &mv.display {
                Some(d) => Some(d.clone()),
                None => Some(state.display_move(&mv.text)),
            }
            .filter(|d| *d != mv.text);
            state.play(&mv.text).map_err(|e| damaged(&format!("move {}", i + 1), &e))?;
            let parse = |s: &Option<String>| s.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok());
            moves.push(MoveRecord {
                player,
                text: mv.text.clone(),
                display,
                at_ms: mv.at_ms,
                clocks: parse(&mv.clocks).and_then(|v| json::pair_from_json(players, &v)),
                score: parse(&mv.score).and_then(|v| json::pair_from_json(players, &v)),
            });
        }
        let result = match &row.result {
            None => None,
            Some(text) => {
                let v: Value = serde_json::from_str(text).map_err(|e| damaged("result", &e))?;
                let winner = v.get("winner").and_then(Value::as_str).and_then(|w| game.player_by_name(w));
                let reason = v.get("reason").and_then(Value::as_str).unwrap_or("").to_string();
                Some(MatchResult { winner, reason })
            }
        };
        let draw_declined = row.draw_declined.as_deref().and_then(|t| json::draw_declined_from_json(game, t));
        Ok(Room {
            id: row.id.clone(),
            game,
            options,
            time_control,
            m: Match { state, clock, result },
            seats,
            moves,
            draw_offer: row.draw_offer.as_deref().and_then(|p| game.player_by_name(p)),
            draw_declined,
            first_move_deadline_ms: row.first_move_deadline_ms,
            aborted: row.status == RoomStatus::Aborted,
            rematch_id: row.rematch_id.clone(),
            rematch_of: row.rematch_of.clone(),
            seed: row.seed,
            terms: Terms {
                rated: row.rated,
                public: row.public,
                category: row.category.clone(),
                rating_range: row.rating_range.as_deref().and_then(|t| serde_json::from_str(t).ok()),
            },
            rating_changes: row.rating_changes.as_deref().and_then(|t| serde_json::from_str(t).ok()),
            away_since: [Some(row.updated_at_ms); 2],
            claim_after_ms: crate::config::RoomTimes::default().claim_after_ms,
            created_at_ms: row.created_at_ms,
            updated_at_ms: row.updated_at_ms,
            version: 1,
        })
    }

    /// The game's player names, first player first.
    pub fn players(&self) -> [&'static str; 2] {
        self.game.players()
    }

    /// Where the game stands.
    pub fn status(&self) -> RoomStatus {
        match (&self.m.result, self.aborted) {
            (Some(_), true) => RoomStatus::Aborted,
            (Some(_), false) => RoomStatus::Finished,
            (None, _) if self.seats.iter().any(|s| s.kind == SeatKind::Open) => RoomStatus::Waiting,
            (None, _) => RoomStatus::Live,
        }
    }

    /// Being played (both seats taken, not over).
    pub fn is_live(&self) -> bool {
        self.status() == RoomStatus::Live
    }

    /// The change counter: it moves whenever the room changes.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Mark a change at `now`.
    fn touch(&mut self, now: u64) {
        self.updated_at_ms = now;
        self.version += 1;
    }

    /// The seat `actor` holds.
    pub fn seat_of(&self, actor: &Actor) -> Result<Player, RoomError> {
        match actor {
            Actor::Seat(p) => Ok(*p),
            Actor::Token(token) => self
                .seats
                .iter()
                .position(|s| s.kind == SeatKind::Human && s.token.as_deref().is_some_and(|t| same_secret(t, token)))
                .map(Player::from_index)
                .ok_or(RoomError::BadToken),
            Actor::User(id) => self
                .seats
                .iter()
                .position(|s| s.user_id == Some(*id))
                .map(Player::from_index)
                .ok_or(RoomError::BadToken),
            Actor::Guest => Err(RoomError::BadToken),
        }
    }

    /// The shown name of a seat.
    pub fn seat_name(&self, p: Player) -> String {
        let seat = &self.seats[p.index()];
        if seat.name.is_empty() {
            self.players()[p.index()].to_string()
        } else {
            seat.name.clone()
        }
    }

    /// Run a command for `actor` (see [`Command`]).
    pub fn apply(&mut self, ctx: Ctx, actor: &Actor, command: Command) -> Result<Outcome, RoomError> {
        match command {
            Command::Join { invite, name, user } => self.join(ctx, &invite, name, user),
            Command::JoinOpen { joiner, name } => self.join_open(ctx, joiner, name),
            Command::Claim { draw } => {
                let player = self.seat_of(actor)?;
                self.claim(ctx, player, draw)
            }
            Command::Move { text, ply } => {
                let player = self.seat_of(actor)?;
                self.play(ctx, player, &text, ply)
            }
            Command::Resign => {
                let player = self.seat_of(actor)?;
                self.resign(ctx, player)
            }
            Command::Draw(action) => {
                let player = self.seat_of(actor)?;
                self.draw(ctx, player, action)
            }
            Command::Abort => {
                let player = self.seat_of(actor)?;
                self.abort(ctx, player)
            }
            Command::Rematch => {
                let player = self.seat_of(actor)?;
                self.rematch(ctx, player)
            }
        }
    }

    /// The end of the game, for errors: `the game is over (reason)`.
    fn ensure_ongoing(&self) -> Result<(), RoomError> {
        match &self.m.result {
            Some(r) => Err(RoomError::GameOver { reason: r.reason.clone() }),
            None => Ok(()),
        }
    }

    /// End the game with `result` at `now`.
    fn end(&mut self, result: MatchResult, aborted: bool, now: u64) {
        self.m.clock.pause(now);
        self.m.result = Some(result);
        self.aborted = aborted;
        self.after_end(now);
    }

    /// Tidy up after the game ended (by any path).
    fn after_end(&mut self, now: u64) {
        self.draw_offer = None;
        self.first_move_deadline_ms = None;
        self.touch(now);
    }

    /// The first-move time for this game's clock.
    fn first_move_ms(&self, times: &RoomTimes) -> u64 {
        match self.time_control {
            TimeControl::ShotClock { per_move_ms } => times.first_move_ms.max(per_move_ms),
            _ => times.first_move_ms,
        }
    }

    /// Set the first-move timer for the side on move, or clear it: it runs
    /// in a live timed game while a human side has not made its first move.
    fn arm_first_move(&mut self, ctx: Ctx) {
        let on_move = self.m.state.to_move();
        let needed = self.is_live()
            && !self.time_control.is_none()
            && self.moves.len() < 2
            && self.seats[on_move.index()].kind == SeatKind::Human;
        self.first_move_deadline_ms = needed.then(|| ctx.now + self.first_move_ms(ctx.times));
    }

    /// The next instant something happens by itself: a flag falls or a
    /// first-move timer runs out.
    pub fn next_deadline(&self) -> Option<u64> {
        if self.m.result.is_some() {
            return None;
        }
        match (self.first_move_deadline_ms, self.m.clock.deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The store must load this game at start-up: a clock or a timer runs,
    /// or an AI seat may have to move.
    fn needs_resume(&self) -> bool {
        match self.status() {
            RoomStatus::Live => !self.time_control.is_none() || self.seats.iter().any(|s| s.kind == SeatKind::Ai),
            // A lobby seek, so it can be removed if its creator does not come back.
            RoomStatus::Waiting => self.terms.public,
            _ => false,
        }
    }

    /// The game row as stored.
    pub fn row(&self) -> GameRow {
        let players = self.players();
        GameRow {
            id: self.id.clone(),
            game: self.game.id().to_string(),
            options: serde_json::to_string(&self.options).unwrap_or_default(),
            time_control: serde_json::to_string(&self.time_control).unwrap_or_default(),
            seats: serde_json::to_string(&self.seats).unwrap_or_default(),
            status: self.status(),
            plies: self.moves.len() as u32,
            to_move: self.m.result.is_none().then(|| players[self.m.state.to_move().index()].to_string()),
            result: self.m.result.as_ref().map(|_| self.result_json().to_string()),
            clock: serde_json::to_string(&self.m.clock).unwrap_or_default(),
            draw_offer: self.draw_offer.map(|p| players[p.index()].to_string()),
            draw_declined: self.draw_declined.map(|d| self.draw_declined_json(d).to_string()),
            first_move_deadline_ms: self.first_move_deadline_ms,
            timed: !self.time_control.is_none(),
            resume: self.needs_resume(),
            rematch_id: self.rematch_id.clone(),
            rematch_of: self.rematch_of.clone(),
            seed: self.seed,
            created_at_ms: self.created_at_ms,
            updated_at_ms: self.updated_at_ms,
            users: [self.seats[0].user_id, self.seats[1].user_id],
            rated: self.terms.rated,
            public: self.terms.public,
            category: self.terms.category.clone(),
            rating_changes: self.rating_changes.as_ref().map(Value::to_string),
            rating_range: self.terms.rating_range.map(|r| format!("[{},{}]", r[0], r[1])),
        }
    }

    /// What to write to store the room as it is now: the game row and the
    /// moves not yet stored.
    pub fn writes_since(&self, snapshot: &Snapshot) -> Vec<Write> {
        let players = self.players();
        let mut writes: Vec<Write> = self.moves[snapshot.moves.min(self.moves.len())..]
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Write::Move(MoveRow {
                    game_id: self.id.clone(),
                    ply: (snapshot.moves + i + 1) as u32,
                    text: m.text.clone(),
                    // Stored even when it is the move itself, so loading never works it out again.
                    display: Some(m.display.clone().unwrap_or_else(|| m.text.clone())),
                    at_ms: m.at_ms,
                    clocks: m.clocks.map(|c| json::pair_json(players, c).to_string()),
                    score: m.score.map(|s| json::pair_json(players, s).to_string()),
                })
            })
            .collect();
        writes.push(Write::Game(Box::new(self.row())));
        writes
    }

    /// Every write that stores a new room.
    pub fn writes_for_new(&self) -> Vec<Write> {
        vec![Write::Game(Box::new(self.row()))]
    }

    /// What a change must roll back if the store refuses it.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.m.state.clone_box(),
            clock: self.m.clock.clone(),
            result: self.m.result.clone(),
            moves: self.moves.len(),
            draw_offer: self.draw_offer,
            draw_declined: self.draw_declined,
            first_move_deadline_ms: self.first_move_deadline_ms,
            aborted: self.aborted,
            seats: self.seats.clone(),
            rematch_id: self.rematch_id.clone(),
            rating_changes: self.rating_changes.clone(),
            updated_at_ms: self.updated_at_ms,
            version: self.version,
        }
    }

    /// Go back to `s`.
    pub fn restore(&mut self, s: Snapshot) {
        self.m.state = s.state;
        self.m.clock = s.clock;
        self.m.result = s.result;
        self.moves.truncate(s.moves);
        self.draw_offer = s.draw_offer;
        self.draw_declined = s.draw_declined;
        self.first_move_deadline_ms = s.first_move_deadline_ms;
        self.aborted = s.aborted;
        self.seats = s.seats;
        self.rematch_id = s.rematch_id;
        self.rating_changes = s.rating_changes;
        self.updated_at_ms = s.updated_at_ms;
        self.version = s.version;
    }

    /// After a restart: let whatever fell due before `down_at` (the last
    /// instant the old server was alive) count, then go on at `now` without
    /// charging the downtime: the clock stops at `down_at` and starts again
    /// now, and a first-move timer moves on by the downtime.
    pub fn resume(&mut self, ctx: Ctx, down_at: u64) {
        if self.m.result.is_none() {
            self.tick(Ctx { now: down_at, ..ctx });
        }
        // A game stored with an AI level this server does not offer (an
        // unbounded baseline accepted by an older version) is not resumed:
        // its AI could think for ever. It ends with no result, saying why.
        if let Some(level) = self.seats.iter().find_map(|s| s.unlisted_level(self.game)) {
            let reason = format!("aborted: the AI level {level} is not offered by this server");
            self.expire(Ctx { now: down_at.max(self.updated_at_ms), ..ctx }, reason);
        }
        if self.m.result.is_none() {
            let was_running = self.m.clock.is_running();
            self.m.clock.pause(down_at);
            if let Some(d) = &mut self.first_move_deadline_ms {
                *d = d.saturating_add(ctx.now.saturating_sub(down_at));
            }
            if was_running {
                self.m.clock.start(ctx.now);
            }
        }
        self.touch(ctx.now);
    }
}
