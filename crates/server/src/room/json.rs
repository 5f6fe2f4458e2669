//! The JSON forms of a room (docs/api.md describes them).

use super::{DrawDeclined, Room, Seat, SeatKind};
use crate::store::GameRow;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tabula_core::{DynGame, TimeControl};

pub(super) fn pair_json(players: [&str; 2], v: [impl Serialize; 2]) -> Value {
    let [a, b] = v;
    json!({ players[0]: a, players[1]: b })
}

pub(super) fn pair_from_json<T: for<'de> Deserialize<'de>>(players: [&str; 2], v: &Value) -> Option<[T; 2]> {
    let a = serde_json::from_value(v.get(players[0])?.clone()).ok()?;
    let b = serde_json::from_value(v.get(players[1])?.clone()).ok()?;
    Some([a, b])
}

pub(super) fn draw_declined_from_json(game: &dyn DynGame, text: &str) -> Option<DrawDeclined> {
    let v: Value = serde_json::from_str(text).ok()?;
    Some(DrawDeclined { by: game.player_by_name(v["by"].as_str()?)?, ply: v["ply"].as_u64()? as u32 })
}

fn options_json(options: &[(String, String)]) -> Value {
    Value::Object(options.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<Map<_, _>>())
}

fn seat_json(seat: &Seat, player: &str) -> Value {
    let name = if seat.name.is_empty() && seat.kind != SeatKind::Open { player } else { &seat.name };
    json!({
        "player": player,
        "kind": seat.kind,
        "name": name,
        "level": seat.level,
        "joined": seat.kind != SeatKind::Open,
        "user": seat.user,
        "rating": seat.rating.map(|r| r.rating),
        "provisional": seat.rating.map(|r| r.provisional),
    })
}

/// Seats in public form (never the secrets).
pub fn public_seats(seats: &[Seat; 2], players: [&str; 2]) -> Value {
    Value::Array(seats.iter().zip(players).map(|(s, p)| seat_json(s, p)).collect())
}

/// Seats in public form with whether each is connected now.
fn seats_with_presence(room: &Room) -> Value {
    let mut seats = public_seats(&room.seats, room.players());
    if let Value::Array(list) = &mut seats {
        for (i, s) in list.iter_mut().enumerate() {
            s["online"] = json!(room.seats[i].kind == SeatKind::Ai || room.away_since[i].is_none());
        }
    }
    seats
}

impl Room {
    /// `{"winner": ..., "reason": ...}`, or null while the game goes on.
    pub fn result_json(&self) -> Value {
        match &self.m.result {
            None => Value::Null,
            Some(r) => json!({ "winner": r.winner.map(|w| self.players()[w.index()]), "reason": r.reason }),
        }
    }

    pub(super) fn draw_declined_json(&self, d: DrawDeclined) -> Value {
        json!({ "by": self.players()[d.by.index()], "ply": d.ply })
    }

    fn clock_json(&self, now: u64) -> Value {
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

    /// The rules' view of the position, told the truth about a game that
    /// ended off the board (time, resignation, agreement, abort): then it
    /// is over, with the match's result and no legal moves.
    fn state_json(&self) -> Value {
        let mut state = self.m.state.state_json();
        if let Some(r) = &self.m.result {
            if state["status"] == "ongoing" {
                state["status"] = json!("over");
                state["winner"] = json!(r.winner.map(|w| self.players()[w.index()]));
                state["reason"] = json!(r.reason);
                state["legal_moves"] = json!([]);
            }
        }
        state
    }

    /// The move log.
    fn moves_json(&self) -> Value {
        let players = self.players();
        Value::Array(
            self.moves
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    json!({
                        "ply": i + 1,
                        "player": players[m.player.index()],
                        "move": m.text,
                        "display": m.display.as_deref().unwrap_or(&m.text),
                        "at_ms": m.at_ms,
                        "clocks": m.clocks.map(|c| pair_json(players, c)),
                        "score": m.score.map(|s| pair_json(players, s)),
                    })
                })
                .collect(),
        )
    }

    /// The full game, as `GET /api/games/{id}` and the WebSocket send it.
    pub fn to_json(&self, now: u64) -> Value {
        let players = self.players();
        json!({
            "v": 1,
            "id": self.id,
            "game": self.game.id(),
            "name": self.game.name(),
            "players": players,
            "options": options_json(&self.options),
            "time_control": self.time_control,
            "record_format": self.game.record_format(),
            "seats": seats_with_presence(self),
            "presence": pair_json(players, std::array::from_fn::<bool, 2, _>(|i| {
                self.seats[i].kind == SeatKind::Ai || self.away_since[i].is_none()
            })),
            "claim_available_at_ms": self.claim_available_at(),
            "rated": self.terms.rated,
            "public": self.terms.public,
            "category": self.terms.category,
            "rating_range": self.terms.rating_range,
            "rating_changes": self.rating_changes,
            "status": self.status(),
            "state": self.state_json(),
            "view": self.m.state.view(),
            "moves": self.moves_json(),
            "clock": self.clock_json(now),
            "first_move_deadline_ms": self.first_move_deadline_ms,
            "result": self.result_json(),
            "draw_offer": self.draw_offer.map(|p| players[p.index()]),
            "draw_declined": self.draw_declined.map(|d| self.draw_declined_json(d)),
            "rematch_id": self.rematch_id,
            "rematch_of": self.rematch_of,
            "created_at_ms": self.created_at_ms,
            "updated_at_ms": self.updated_at_ms,
            "server_time_ms": now,
        })
    }
}

/// A summary for `GET /api/games`, from a stored row.
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
        "rated": row.rated,
        "public": row.public,
        "category": row.category,
        "rating_range": row.rating_range.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()),
        "rating_changes": row.rating_changes.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()),
        "time_control": serde_json::from_str::<Value>(&row.time_control).ok(),
        "result": row.result.as_deref().and_then(|r| serde_json::from_str::<Value>(r).ok()),
        "created_at_ms": row.created_at_ms,
        "updated_at_ms": row.updated_at_ms,
    })
}
