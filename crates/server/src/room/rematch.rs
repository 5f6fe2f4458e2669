//! Rematch: the same game again with colours swapped.

use super::{random_string, Ctx, Outcome, Room, RoomError, RoomSpec, Seat, SeatKind};
use tabula_core::Player;

impl Room {
    /// Start the rematch (or name the one started). Humans keep their
    /// tokens, AI seats their levels; a seat nobody joined gets a fresh
    /// invite; names chosen by players follow them to the other colour.
    pub(super) fn rematch(&mut self, ctx: Ctx, player: Player) -> Result<Outcome, RoomError> {
        if self.m.result.is_none() {
            return Err(RoomError::NotFinished);
        }
        let asker = player.other();
        if let Some(id) = &self.rematch_id {
            return Ok(Outcome::Rematch { id: id.clone(), player: asker, room: None });
        }
        let players = self.players();
        let seats: [Seat; 2] = std::array::from_fn(|i| {
            let old_index = 1 - i;
            let mut seat = self.seats[old_index].clone();
            // A default name is the old colour's name: let the new colour name it.
            if seat.name == players[old_index] {
                seat.name.clear();
            }
            if seat.kind == SeatKind::Open {
                seat.invite = Some(random_string(24));
            }
            seat.rating = None;
            seat
        });
        let spec = RoomSpec {
            id: random_string(10),
            game: self.game,
            options: self.options.clone(),
            time_control: self.time_control,
            seats,
            seed: Some(self.seed.wrapping_add(1)),
            rematch_of: Some(self.id.clone()),
            terms: self.terms.clone(),
        };
        let room = Room::new(spec, ctx)?;
        self.rematch_id = Some(room.id.clone());
        self.touch(ctx.now);
        Ok(Outcome::Rematch { id: room.id.clone(), player: asker, room: Some(Box::new(room)) })
    }
}
