//! Move: the one place a move is checked, played and logged.

use super::{Ctx, DrawDeclined, MoveRecord, Outcome, Room, RoomError, RoomStatus};
use tabula_core::Player;

impl Room {
    /// Play `text` for `player`. A move that arrives after the mover's time
    /// ran out ends the game on time instead (the room changes, and the
    /// error is [`RoomError::TimeUp`]).
    pub(super) fn play(
        &mut self,
        ctx: Ctx,
        player: Player,
        text: &str,
        ply: Option<u32>,
    ) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        if self.status() == RoomStatus::Waiting {
            return Err(RoomError::WaitingForOpponent);
        }
        if self.tick(ctx) {
            if let Some(r) = &self.m.result {
                return Err(RoomError::TimeUp { reason: r.reason.clone() });
            }
        }
        let played = self.moves.len() as u32;
        if let Some(meant) = ply.filter(|&p| p != played) {
            return Err(RoomError::StalePly { meant, played });
        }
        let on_move = self.m.state.to_move();
        if player != on_move {
            let names = self.players();
            return Err(RoomError::NotYourTurn { to_move: names[on_move.index()], player: names[player.index()] });
        }
        let canonical = self.m.state.check(text)?;
        // The notation people read (SAN), from the position before the move.
        let display = Some(self.m.state.display_move(&canonical)).filter(|d| *d != canonical);
        self.m.play(&canonical, ctx.now)?;
        self.draw_declined = None;
        if self.draw_offer == Some(player.other()) {
            // Moving instead of answering declines the opponent's offer.
            self.draw_offer = None;
            self.draw_declined = Some(DrawDeclined { by: player, ply: played });
        }
        let clocks = self.clocks_at(ctx.now);
        self.moves.push(MoveRecord {
            player,
            text: canonical,
            display,
            at_ms: ctx.now,
            clocks,
            score: self.m.state.score(),
        });
        if self.m.result.is_some() {
            self.after_end(ctx.now);
        } else {
            if self.moves.len() >= 2 {
                // Both sides have made their first move: the clock runs.
                self.m.clock.start(ctx.now);
            }
            self.arm_first_move(ctx);
            self.touch(ctx.now);
        }
        Ok(Outcome::Moved { plies: self.moves.len() as u32 })
    }

    /// Both clocks at `now` (`None` without a clock).
    pub(super) fn clocks_at(&self, now: u64) -> Option<[u64; 2]> {
        Some([self.m.clock.remaining(Player::First, now)?, self.m.clock.remaining(Player::Second, now)?])
    }
}
