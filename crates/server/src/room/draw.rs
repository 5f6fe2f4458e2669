//! Draw: offer, accept, decline.

use super::{Ctx, DrawAction, DrawDeclined, Outcome, Room, RoomError, SeatKind};
use tabula_core::Player;

impl Room {
    /// A draw action by `player`. Offering while the opponent offers
    /// accepts; an AI seat declines every offer at once.
    pub(super) fn draw(&mut self, ctx: Ctx, player: Player, action: DrawAction) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        let offered_by_opponent = self.draw_offer == Some(player.other());
        let plies = self.moves.len() as u32;
        match action {
            DrawAction::Offer | DrawAction::Accept if offered_by_opponent => {
                self.m.agree_draw(ctx.now);
                self.after_end(ctx.now);
                return Ok(Outcome::Draw(DrawAction::Accept));
            }
            DrawAction::Offer if self.seats[player.other().index()].kind == SeatKind::Ai => {
                // Engines do not judge draws here: the AI declines at once.
                self.draw_declined = Some(DrawDeclined { by: player.other(), ply: plies });
            }
            DrawAction::Offer => {
                self.draw_offer = Some(player);
                self.draw_declined = None;
            }
            DrawAction::Accept | DrawAction::Decline if !offered_by_opponent => return Err(RoomError::NoDrawOffer),
            DrawAction::Accept => unreachable!("handled above"),
            DrawAction::Decline => {
                self.draw_offer = None;
                self.draw_declined = Some(DrawDeclined { by: player, ply: plies });
            }
        }
        self.touch(ctx.now);
        Ok(Outcome::Draw(action))
    }
}
