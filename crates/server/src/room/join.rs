//! Join: take an open seat through its invite code.

use super::{random_string, same_secret, Ctx, Outcome, Room, RoomError, SeatKind};
use tabula_core::Player;

impl Room {
    /// Take the open seat whose invite code is `invite`. The first-move
    /// timer starts once the last open seat is taken.
    pub(super) fn join(&mut self, ctx: Ctx, invite: &str, name: Option<String>) -> Result<Outcome, RoomError> {
        let idx = self
            .seats
            .iter()
            .position(|s| s.invite.as_deref().is_some_and(|c| same_secret(c, invite)))
            .ok_or(RoomError::BadInvite)?;
        if self.seats[idx].kind != SeatKind::Open {
            return Err(RoomError::SeatTaken);
        }
        self.ensure_ongoing()?;
        let token = random_string(32);
        let seat = &mut self.seats[idx];
        seat.kind = SeatKind::Human;
        seat.token = Some(token.clone());
        if let Some(name) = name {
            seat.name = name;
        }
        self.arm_first_move(ctx);
        self.touch(ctx.now);
        Ok(Outcome::Joined { player: Player::from_index(idx), token })
    }
}
