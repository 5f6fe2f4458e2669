//! Join: take an open seat, through its invite code or, in a public game
//! listed in the lobby, by asking for it.

use super::{random_string, same_secret, Ctx, Joiner, Outcome, Room, RoomError, SeatKind};
use tabula_core::Player;

impl Room {
    /// Take the open seat whose invite code is `invite`. The first-move
    /// timer starts once the last open seat is taken.
    pub(super) fn join(
        &mut self,
        ctx: Ctx,
        invite: &str,
        name: Option<String>,
        user: Option<(i64, String)>,
    ) -> Result<Outcome, RoomError> {
        let idx = self
            .seats
            .iter()
            .position(|s| s.invite.as_deref().is_some_and(|c| same_secret(c, invite)))
            .ok_or(RoomError::BadInvite)?;
        if self.seats[idx].kind != SeatKind::Open {
            return Err(RoomError::SeatTaken);
        }
        self.ensure_ongoing()?;
        if self.terms.rated && user.is_none() {
            return Err(RoomError::LoginRequired);
        }
        if let Some((id, _)) = &user {
            if self.terms.rated && self.seats.iter().any(|s| s.user_id == Some(*id)) {
                return Err(RoomError::OwnGame);
            }
        }
        Ok(self.take_seat(ctx, idx, name, user, None))
    }

    /// Take an open seat of a public game without its invite: anyone
    /// eligible may (rated games: a logged-in account other than the
    /// creator's, rated within the range).
    pub(super) fn join_open(&mut self, ctx: Ctx, joiner: Joiner, name: Option<String>) -> Result<Outcome, RoomError> {
        self.ensure_ongoing()?;
        if !self.terms.public {
            return Err(RoomError::BadInvite);
        }
        let idx = match joiner.seat {
            Some(p) if self.seats[p.index()].kind == SeatKind::Open => p.index(),
            Some(_) => return Err(RoomError::SeatTaken),
            None => self.seats.iter().position(|s| s.kind == SeatKind::Open).ok_or(RoomError::SeatTaken)?,
        };
        if let Some((id, _)) = &joiner.user {
            if self.seats.iter().any(|s| s.user_id == Some(*id)) {
                return Err(RoomError::OwnGame);
            }
        }
        if self.terms.rated {
            if joiner.user.is_none() {
                return Err(RoomError::LoginRequired);
            }
            if let Some([lo, hi]) = self.terms.rating_range {
                let r = joiner.rating.map_or(1500, |r| r.rating);
                if r < lo || r > hi {
                    return Err(RoomError::OutOfRange { rating: r, min: lo, max: hi });
                }
            }
        }
        Ok(self.take_seat(ctx, idx, name, joiner.user, joiner.rating))
    }

    fn take_seat(
        &mut self,
        ctx: Ctx,
        idx: usize,
        name: Option<String>,
        user: Option<(i64, String)>,
        rating: Option<super::SeatRating>,
    ) -> Outcome {
        let token = random_string(32);
        let seat = &mut self.seats[idx];
        seat.kind = SeatKind::Human;
        seat.token = Some(token.clone());
        match user {
            Some((id, user)) => {
                seat.name = user.clone();
                seat.user_id = Some(id);
                seat.user = Some(user);
                // A rating is shown only where it is at stake.
                seat.rating = if self.terms.rated { rating } else { None };
            }
            None => {
                if let Some(name) = name {
                    seat.name = name;
                }
            }
        }
        self.arm_first_move(ctx);
        self.touch(ctx.now);
        Outcome::Joined { player: Player::from_index(idx), token }
    }
}
