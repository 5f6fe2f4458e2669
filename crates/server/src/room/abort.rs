//! Abort: end a game that has not really started, with no result.

use super::{Ctx, Outcome, Room, RoomError, RoomStatus};
use tabula_core::matches::MatchResult;
use tabula_core::Player;

impl Room {
    /// `player` aborts: allowed while the game waits for an opponent, or
    /// before `player`'s own first move.
    pub(super) fn abort(&mut self, ctx: Ctx, player: Player) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        let moved = self.moves.iter().any(|m| m.player == player);
        if self.status() != RoomStatus::Waiting && moved {
            return Err(RoomError::CannotAbort);
        }
        let reason = format!("{} aborted the game", self.seat_name(player));
        self.end(MatchResult { winner: None, reason }, true, ctx.now);
        Ok(Outcome::Aborted)
    }
}
