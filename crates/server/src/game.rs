//! One hosted game: the match (state + clock + result), the seats, the move
//! log, and its JSON and database forms. Pure: time comes in as epoch ms.

use crate::db::{GameRow, MoveRow, Write};
use crate::error::ApiError;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tabula_core::matches::{Match, MatchError, MatchResult};
use tabula_core::{Clock, DynAgent, DynGame, Player, TimeControl};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    Human,
    Open,
    Ai,
}

/// A seat as stored (with its secrets).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seat {
    pub kind: SeatKind,
    pub name: String,
    #[serde(default)]
    pub level: Option<String>,
    /// Secret token of a human seat (set once an open seat is joined).
    #[serde(default)]
    pub token: Option<String>,
    /// Secret invite code of an open seat.
    #[serde(default)]
    pub invite: Option<String>,
}

impl Seat {
    fn public(&self, player: &str) -> Value {
        json!({
            "player": player,
            "kind": self.kind,
            "name": self.name,
            "level": self.level,
            "joined": self.kind != SeatKind::Open,
        })
    }
}

/// Seats in public form (never the secrets).
pub fn public_seats(seats: &[Seat; 2], players: [&str; 2]) -> Value {
    Value::Array(seats.iter().zip(players).map(|(s, p)| s.public(p)).collect())
}

#[derive(Debug, Clone)]
pub struct MoveRecord {
    pub player: Player,
    pub text: String,
    pub at_ms: u64,
    pub clocks: Option<[u64; 2]>,
    pub score: Option<[i32; 2]>,
}

/// Compare secrets without an early exit on the first differing byte.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub struct Live {
    pub id: String,
    pub game: &'static dyn DynGame,
    pub options: Vec<(String, String)>,
    pub time_control: TimeControl,
    pub m: Match,
    pub seats: [Seat; 2],
    pub moves: Vec<MoveRecord>,
    pub draw_offer: Option<Player>,
    pub rematch_id: Option<String>,
    pub rematch_of: Option<String>,
    pub seed: u64,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
    /// AI engines by seat, made on first use and reused between moves.
    pub agents: [Option<Box<dyn DynAgent>>; 2],
    /// An AI is thinking for the side on move.
    pub ai_busy: bool,
}

fn pair_json(players: [&str; 2], v: [impl Serialize; 2]) -> Value {
    let [a, b] = v;
    json!({ players[0]: a, players[1]: b })
}

fn pair_from_json<T: for<'de> Deserialize<'de>>(players: [&str; 2], v: &Value) -> Option<[T; 2]> {
    let a = serde_json::from_value(v.get(players[0])?.clone()).ok()?;
    let b = serde_json::from_value(v.get(players[1])?.clone()).ok()?;
    Some([a, b])
}

pub fn options_json(options: &[(String, String)]) -> Value {
    Value::Object(options.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<Map<_, _>>())
}

impl Live {
    pub fn players(&self) -> [&'static str; 2] {
        self.game.players()
    }

    pub fn status(&self) -> &'static str {
        if self.m.result.is_some() {
            "finished"
        } else if self.seats.iter().any(|s| s.kind == SeatKind::Open) {
            "waiting"
        } else {
            "live"
        }
    }

    pub fn is_live(&self) -> bool {
        self.status() == "live"
    }

    /// The seat a token holds.
    pub fn seat_of(&self, token: &str) -> Result<Player, ApiError> {
        self.seats
            .iter()
            .position(|s| s.kind == SeatKind::Human && s.token.as_deref().is_some_and(|t| same_secret(t, token)))
            .map(Player::from_index)
            .ok_or_else(ApiError::bad_token)
    }

    fn clocks_at(&self, now: u64) -> Option<[u64; 2]> {
        Some([self.m.clock.remaining(Player::First, now)?, self.m.clock.remaining(Player::Second, now)?])
    }

    pub fn result_json(&self) -> Value {
        match &self.m.result {
            None => Value::Null,
            Some(r) => json!({ "winner": r.winner.map(|w| self.players()[w.index()]), "reason": r.reason }),
        }
    }

    pub fn clock_json(&self, now: u64) -> Value {
        if self.time_control.is_none() {
            return Value::Null;
        }
        let players = self.players();
        let c = &self.m.clock;
        json!({
            "running": c.is_running().then(|| players[c.to_move().index()]),
            "remaining_ms": self.clocks_at(now).map(|r| pair_json(players, r)),
            "shared": matches!(self.time_control, TimeControl::MatchClock { .. }),
            "overtime": c.in_overtime(),
            "deadline_ms": c.deadline(),
        })
    }

    /// The full game, as `GET /api/games/{id}` and the WebSocket send it.
    pub fn to_json(&self, now: u64) -> Value {
        let players = self.players();
        let moves: Vec<Value> = self
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                json!({
                    "ply": i + 1,
                    "player": players[m.player.index()],
                    "move": m.text,
                    "at_ms": m.at_ms,
                    "clocks": m.clocks.map(|c| pair_json(players, c)),
                    "score": m.score.map(|s| pair_json(players, s)),
                })
            })
            .collect();
        json!({
            "v": 1,
            "id": self.id,
            "game": self.game.id(),
            "name": self.game.name(),
            "players": players,
            "options": options_json(&self.options),
            "time_control": self.time_control,
            "record_format": self.game.record_format(),
            "seats": public_seats(&self.seats, players),
            "status": self.status(),
            "state": self.m.state.state_json(),
            "view": self.m.state.view(),
            "moves": moves,
            "clock": self.clock_json(now),
            "result": self.result_json(),
            "draw_offer": self.draw_offer.map(|p| players[p.index()]),
            "rematch_id": self.rematch_id,
            "rematch_of": self.rematch_of,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "server_time_ms": now,
        })
    }

    pub fn row(&self) -> GameRow {
        let players = self.players();
        GameRow {
            id: self.id.clone(),
            game: self.game.id().to_string(),
            options: serde_json::to_string(&self.options).unwrap_or_default(),
            time_control: serde_json::to_string(&self.time_control).unwrap_or_default(),
            seats: serde_json::to_string(&self.seats).unwrap_or_default(),
            status: self.status().to_string(),
            plies: self.moves.len() as u32,
            to_move: (self.m.result.is_none()).then(|| players[self.m.state.to_move().index()].to_string()),
            result: self.m.result.as_ref().map(|_| self.result_json().to_string()),
            clock: serde_json::to_string(&self.m.clock).unwrap_or_default(),
            draw_offer: self.draw_offer.map(|p| players[p.index()].to_string()),
            rematch_id: self.rematch_id.clone(),
            rematch_of: self.rematch_of.clone(),
            seed: self.seed,
            created_at_ms: self.created_at_ms,
            updated_at_ms: self.updated_at_ms,
        }
    }

    pub fn game_write(&self) -> Write {
        Write::Game(Box::new(self.row()))
    }

    /// What a change must roll back if the database refuses it.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.m.state.clone_box(),
            clock: self.m.clock.clone(),
            result: self.m.result.clone(),
            moves: self.moves.len(),
            draw_offer: self.draw_offer,
            seats: self.seats.clone(),
            rematch_id: self.rematch_id.clone(),
            updated_at_ms: self.updated_at_ms,
        }
    }

    pub fn restore(&mut self, s: Snapshot) {
        self.m.state = s.state;
        self.m.clock = s.clock;
        self.m.result = s.result;
        self.moves.truncate(s.moves);
        self.draw_offer = s.draw_offer;
        self.seats = s.seats;
        self.rematch_id = s.rematch_id;
        self.updated_at_ms = s.updated_at_ms;
    }

    /// Play `text` for `player` at `now`. Returns the writes to commit. A
    /// move that arrives after the mover's flag fell ends the game on time:
    /// then the writes come back inside `Err((error, Some(writes)))`.
    #[allow(clippy::result_large_err)]
    pub fn play(
        &mut self,
        player: Player,
        text: &str,
        ply: Option<u32>,
        now: u64,
    ) -> Result<Vec<Write>, (ApiError, Option<Vec<Write>>)> {
        if let Some(r) = &self.m.result {
            return Err((ApiError::conflict("game_over", format!("the game is over ({})", r.reason)), None));
        }
        if self.status() == "waiting" {
            return Err((ApiError::conflict("waiting_for_opponent", "an open seat has not been joined yet"), None));
        }
        let plies = self.moves.len() as u32;
        if let Some(p) = ply {
            if p != plies {
                return Err((
                    ApiError::conflict(
                        "stale_ply",
                        format!("the move was meant for ply {p}, but {plies} plies have been played"),
                    ),
                    None,
                ));
            }
        }
        let on_move = self.m.state.to_move();
        if player != on_move {
            let names = self.players();
            return Err((
                ApiError::conflict(
                    "not_your_turn",
                    format!("it is {}'s turn, not {}'s", names[on_move.index()], names[player.index()]),
                ),
                None,
            ));
        }
        let canonical = match self.m.state.check(text) {
            Ok(c) => c,
            Err(e) => return Err((ApiError::from(MatchError::Move(e)), None)),
        };
        match self.m.play(&canonical, now) {
            Ok(()) => {}
            Err(e @ MatchError::TimeUp(_)) => {
                self.updated_at_ms = now;
                return Err((ApiError::from(e), Some(vec![self.game_write()])));
            }
            Err(e) => return Err((ApiError::from(e), None)),
        }
        if self.draw_offer == Some(player.other()) {
            self.draw_offer = None; // moving declines the opponent's offer
        }
        self.updated_at_ms = now;
        let rec = MoveRecord {
            player,
            text: canonical,
            at_ms: now,
            clocks: self.clocks_at(now),
            score: self.m.state.score(),
        };
        let players = self.players();
        let row = MoveRow {
            game_id: self.id.clone(),
            ply: plies + 1,
            text: rec.text.clone(),
            at_ms: now,
            clocks: rec.clocks.map(|c| pair_json(players, c).to_string()),
            score: rec.score.map(|s| pair_json(players, s).to_string()),
        };
        self.moves.push(rec);
        Ok(vec![Write::Move(row), self.game_write()])
    }

    /// Apply the clock at `now`; the writes if anything changed.
    pub fn tick(&mut self, now: u64) -> Option<Vec<Write>> {
        if self.m.result.is_some() {
            return None;
        }
        let before = self.m.clock.clone();
        self.m.tick(now);
        if self.m.result.is_some() || self.m.clock != before {
            self.updated_at_ms = now;
            Some(vec![self.game_write()])
        } else {
            None
        }
    }

    pub fn finish(&mut self, result: Option<MatchResult>, now: u64) -> Vec<Write> {
        if result.is_some() {
            self.draw_offer = None;
        }
        self.updated_at_ms = now;
        vec![self.game_write()]
    }

    /// Rebuild a game from its rows, replaying every move through the rules.
    pub fn from_rows(game: &'static dyn DynGame, row: &GameRow, moves: &[MoveRow]) -> Result<Live, String> {
        let options: Vec<(String, String)> = serde_json::from_str(&row.options).map_err(|e| format!("options: {e}"))?;
        let time_control: TimeControl =
            serde_json::from_str(&row.time_control).map_err(|e| format!("time control: {e}"))?;
        let seats: [Seat; 2] = serde_json::from_str(&row.seats).map_err(|e| format!("seats: {e}"))?;
        let clock: Clock = serde_json::from_str(&row.clock).map_err(|e| format!("clock: {e}"))?;
        let players = game.players();
        let mut state = game.new_state(&options).map_err(|e| e.to_string())?;
        let mut records = Vec::with_capacity(moves.len());
        for (i, mv) in moves.iter().enumerate() {
            if mv.ply as usize != i + 1 {
                return Err(format!("move log has ply {} where {} was expected", mv.ply, i + 1));
            }
            let player = state.to_move();
            state.play(&mv.text).map_err(|e| format!("move {}: {e}", i + 1))?;
            let parse = |s: &Option<String>| s.as_deref().and_then(|s| serde_json::from_str::<Value>(s).ok());
            records.push(MoveRecord {
                player,
                text: mv.text.clone(),
                at_ms: mv.at_ms,
                clocks: parse(&mv.clocks).and_then(|v| pair_from_json(players, &v)),
                score: parse(&mv.score).and_then(|v| pair_from_json(players, &v)),
            });
        }
        let result = match &row.result {
            None => None,
            Some(text) => {
                let v: Value = serde_json::from_str(text).map_err(|e| format!("result: {e}"))?;
                let winner = v.get("winner").and_then(|w| w.as_str()).and_then(|w| game.player_by_name(w));
                let reason = v.get("reason").and_then(|r| r.as_str()).unwrap_or("").to_string();
                Some(MatchResult { winner, reason })
            }
        };
        let draw_offer = row.draw_offer.as_deref().and_then(|p| game.player_by_name(p));
        Ok(Live {
            id: row.id.clone(),
            game,
            options,
            time_control,
            m: Match { state, clock, result },
            seats,
            moves: records,
            draw_offer,
            rematch_id: row.rematch_id.clone(),
            rematch_of: row.rematch_of.clone(),
            seed: row.seed,
            created_at_ms: row.created_at_ms,
            updated_at_ms: row.updated_at_ms,
            agents: [None, None],
            ai_busy: false,
        })
    }
}

pub struct Snapshot {
    state: Box<dyn tabula_core::DynState>,
    clock: Clock,
    result: Option<MatchResult>,
    moves: usize,
    draw_offer: Option<Player>,
    seats: [Seat; 2],
    rematch_id: Option<String>,
    updated_at_ms: u64,
}

/// A summary for `GET /api/games`, from a database row.
pub fn summary_json(game: Option<&'static dyn DynGame>, row: &GameRow) -> Value {
    let options: Vec<(String, String)> = serde_json::from_str(&row.options).unwrap_or_default();
    let seats: Option<[Seat; 2]> = serde_json::from_str(&row.seats).ok();
    let players = game.map(|g| g.players()).unwrap_or(["first", "second"]);
    json!({
        "id": row.id,
        "game": row.game,
        "name": game.map(|g| g.name()).unwrap_or(""),
        "options": options_json(&options),
        "status": row.status,
        "plies": row.plies,
        "to_move": row.to_move,
        "seats": seats.map(|s| public_seats(&s, players)),
        "result": row.result.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()),
        "created_at_ms": row.created_at_ms,
        "updated_at_ms": row.updated_at_ms,
    })
}
