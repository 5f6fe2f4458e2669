//! Ratings on the server: the stored form of a `tabula_ratings::Rating`,
//! its JSON, and the rating of a rated game's result, written in the same
//! transaction as the result itself (see `App::mutate`).

use crate::error::ApiError;
use crate::room::{Room, RoomStatus, SeatRating};
use crate::store::{AccountAnswer, AccountQuery, AccountWrite, RatingRow, Store, StoreError, Write};
use serde_json::{json, Value};
use tabula_core::{Player, TimeControl};
use tabula_ratings::{rate_game, Category, GameResult, Rating};

/// The speed category of a time control (`blitz`, `rapid`, `classical`,
/// `untimed`; boundaries in docs/ratings.md).
pub fn category_of(tc: &TimeControl) -> String {
    Category::of(tc).id().to_string()
}

/// A category named in a query.
pub fn parse_category(text: &str) -> Result<String, ApiError> {
    Category::parse(text).map(|c| c.id().to_string()).map_err(|e| ApiError::bad_request("bad_request", e.to_string()))
}

/// The rating a stored row holds.
pub fn stored_rating(row: &RatingRow) -> Rating {
    Rating {
        rating: row.rating,
        deviation: row.deviation,
        volatility: row.volatility,
        games: row.games,
        last_rated_ms: (row.games > 0).then_some(row.updated_at_ms),
    }
}

/// The row that stores `r`.
fn row_of(user_id: i64, game: &str, category: &str, r: &Rating, now: u64) -> RatingRow {
    RatingRow {
        user_id,
        game: game.to_string(),
        category: category.to_string(),
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: r.games,
        updated_at_ms: r.last_rated_ms.unwrap_or(now),
    }
}

/// A rating as profiles and bots lists show it, as it stands `now`
/// (deviation grown with inactivity).
pub fn rating_json(row: &RatingRow, r: &Rating, now: u64) -> Value {
    let at = r.at(now);
    json!({
        "game": row.game, "category": row.category, "rating": at.rounded(),
        "deviation": (at.deviation * 10.0).round() / 10.0, "volatility": at.volatility,
        "provisional": at.is_provisional(), "games": row.games,
    })
}

/// A player's rating in a game and category (a new player's if none).
pub async fn current(store: &dyn Store, user_id: i64, game: &str, category: &str) -> Result<Rating, StoreError> {
    let AccountAnswer::Ratings(rows) = store.accounts(AccountQuery::RatingsOf(user_id)).await? else {
        return Ok(Rating::new());
    };
    Ok(rows
        .iter()
        .find(|(r, _)| r.game == game && r.category == category)
        .map(|(r, _)| stored_rating(r))
        .unwrap_or_default())
}

/// The seat form of a player's current rating.
pub fn seat_rating(r: &Rating, now: u64) -> SeatRating {
    let at = r.at(now);
    SeatRating { rating: at.rounded(), provisional: at.is_provisional() }
}

/// The game has just got a result that must change ratings: rated,
/// finished (not aborted), two accounts, not rated yet.
pub fn needs_rating(room: &Room) -> bool {
    room.terms.rated
        && room.status() == RoomStatus::Finished
        && room.rating_changes.is_none()
        && room.seats.iter().all(|s| s.user_id.is_some())
}

/// Rate a finished rated game: set its `rating_changes` and return the
/// writes of both new ratings (and their history points), to commit in the
/// transaction that records the result.
pub async fn rate(store: &dyn Store, room: &mut Room, now: u64) -> Result<Vec<Write>, StoreError> {
    let game = room.game.id();
    let category = room.terms.category.clone().unwrap_or_else(|| category_of(&room.time_control));
    let ids = [room.seats[0].user_id.unwrap_or_default(), room.seats[1].user_id.unwrap_or_default()];
    let before = [current(store, ids[0], game, &category).await?, current(store, ids[1], game, &category).await?];
    let winner = room.m.result.as_ref().and_then(|r| r.winner);
    let result = GameResult::for_player(winner, Player::First);
    let (a, b) = rate_game(&before[0], &before[1], result, now);
    let after = [a, b];
    let players = room.players();
    let mut changes = serde_json::Map::new();
    let mut writes = Vec::new();
    for i in 0..2 {
        let shown_before = before[i].at(now);
        changes.insert(
            players[i].to_string(),
            json!({
                "user": room.seats[i].user,
                "before": shown_before.rounded(),
                "after": after[i].rounded(),
                "diff": after[i].rounded() - shown_before.rounded(),
                "provisional": after[i].is_provisional(),
                "category": category,
            }),
        );
        writes.push(Write::Account(AccountWrite::RatingPoint {
            rating: row_of(ids[i], game, &category, &after[i], now),
            game_id: room.id.clone(),
        }));
    }
    room.rating_changes = Some(Value::Object(changes));
    Ok(writes)
}
