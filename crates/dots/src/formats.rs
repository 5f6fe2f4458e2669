//! The championship formats (docs/rules/dots.md): how and when a game ends
//! under each [`Format`] and [`Stage`].

use crate::options::{Format, Stage};
use crate::rules::Dots;
use tabula_core::{Game, Outcome, Player, Status};

impl Dots {
    /// Whether `leader`'s lead is protected: the trailer could not even
    /// level the score by capturing every ungrounded dot of the leader and
    /// winning back its dots from the leader's ungrounded territory.
    #[inline]
    pub fn lead_protected(&self, leader: Player) -> bool {
        let score = self.scores();
        let (u, r) = (self.ungrounded_dots(leader), self.ungrounded_score(leader));
        score[leader.other().index()] + u + r < score[leader.index()]
    }

    /// The player with more captures, if either.
    pub fn leader(&self) -> Option<Player> {
        let [b, r] = self.scores();
        if b > r {
            Some(Player::First)
        } else if r > b {
            Some(Player::Second)
        } else {
            None
        }
    }

    /// The status if the game were played under `format` and `stage`.
    #[inline]
    pub fn status_under(&self, format: Format, stage: Stage) -> Status {
        let leader = self.leader();
        if self.free_points() == 0 {
            return Status::Over(match leader {
                Some(l) => Outcome::win(l, "board full"),
                None => Outcome::draw("board full"),
            });
        }
        let limit = match format {
            Format::Single => {
                return match leader {
                    Some(l) if self.lead_protected(l) => Status::Over(Outcome::win(l, "protected lead")),
                    _ => Status::Ongoing,
                }
            }
            Format::Express => 240,
            Format::Extended => 360,
            Format::Full => 720,
        };
        let plies = self.plies();
        if plies >= limit {
            return match leader {
                Some(l) if plies == limit => Status::Over(Outcome::win(l, "move limit")),
                Some(l) => Status::Over(Outcome::win(l, "golden dot")),
                None if stage == Stage::Group => Status::Over(Outcome::draw("move limit")),
                None => Status::Ongoing,
            };
        }
        if format == Format::Full && plies >= 240 {
            if let Some(l) = leader {
                if self.lead_protected(l) {
                    return Status::Over(Outcome::win(l, "protected lead"));
                }
            }
        }
        Status::Ongoing
    }
}
