//! What time does by itself: a flag falls, a first-move timer runs out, a
//! forgotten game expires.

use super::{Ctx, Room};
use tabula_core::matches::MatchResult;

impl Room {
    /// Apply whatever time has done by `ctx.now`; true if the room changed.
    /// A side that has not made its first move when its timer runs out
    /// aborts the game (nobody loses); a fallen flag loses (or the
    /// tie-breaker decides, for a match clock).
    pub fn tick(&mut self, ctx: Ctx) -> bool {
        if self.m.result.is_some() {
            return false;
        }
        if let Some(deadline) = self.first_move_deadline_ms.filter(|&d| ctx.now >= d) {
            let late = self.seat_name(self.m.state.to_move());
            let reason = format!("aborted: {late} made no first move in time");
            self.end(MatchResult { winner: None, reason }, true, deadline.max(self.updated_at_ms));
            return true;
        }
        let before = self.m.clock.clone();
        if self.m.tick(ctx.now).is_some() {
            self.after_end(ctx.now);
            return true;
        }
        if self.m.clock != before {
            self.touch(ctx.now); // a match clock went into overtime
            return true;
        }
        false
    }

    /// End a forgotten game with no result, saying why.
    pub fn expire(&mut self, ctx: Ctx, reason: String) -> bool {
        if self.m.result.is_some() {
            return false;
        }
        self.end(MatchResult { winner: None, reason }, true, ctx.now);
        true
    }
}
