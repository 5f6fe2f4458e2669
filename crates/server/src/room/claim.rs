//! Claim: the player on move ends a live game whose opponent has left
//! (no connection for the claim time), as a win or as a draw.

use super::{Ctx, Outcome, Room, RoomError, SeatKind};
use tabula_core::matches::MatchResult;
use tabula_core::Player;

impl Room {
    /// The instant from which the player on move may claim: its opponent,
    /// a person, has been gone since then plus the claim time. `None` while
    /// the opponent is connected, or the game is not live.
    pub fn claim_available_at(&self) -> Option<u64> {
        if !self.is_live() {
            return None;
        }
        let opponent = self.m.state.to_move().other();
        if self.seats[opponent.index()].kind != SeatKind::Human {
            return None;
        }
        self.away_since[opponent.index()].map(|t| t + self.claim_after_ms)
    }

    /// `player` claims the win (or a draw, `draw`).
    pub(super) fn claim(&mut self, ctx: Ctx, player: Player, draw: bool) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        if !self.is_live() {
            return Err(RoomError::WaitingForOpponent);
        }
        if self.m.state.to_move() != player {
            return Err(RoomError::CannotClaim("only the player on move may claim".into()));
        }
        match self.claim_available_at() {
            Some(at) if ctx.now >= at => {}
            Some(at) => {
                return Err(RoomError::CannotClaim(format!(
                    "your opponent left; you may claim in {} s",
                    (at - ctx.now).div_ceil(1000)
                )))
            }
            None => return Err(RoomError::CannotClaim("your opponent is connected".into())),
        }
        let gone = self.seat_name(player.other());
        let result = if draw {
            MatchResult { winner: None, reason: format!("draw claimed: {gone} left the game") }
        } else {
            MatchResult { winner: Some(player), reason: format!("{gone} left the game") }
        };
        self.end(result, false, ctx.now);
        Ok(Outcome::Claimed)
    }
}
