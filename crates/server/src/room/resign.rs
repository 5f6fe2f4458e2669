//! Resign.

use super::{Ctx, Outcome, Room, RoomError};
use tabula_core::Player;

impl Room {
    /// `player` resigns: the opponent wins.
    pub(super) fn resign(&mut self, ctx: Ctx, player: Player) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        self.m.resign(player, ctx.now);
        self.after_end(ctx.now);
        Ok(Outcome::Resigned)
    }
}
