//! What can be asked of a room, by whom, and what comes back.

use super::Room;
use serde::{Deserialize, Serialize};
use tabula_core::Player;

/// A player as its index, for commands forwarded between nodes.
mod player_index {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use tabula_core::Player;

    pub fn serialize<S: Serializer>(p: &Player, s: S) -> Result<S::Ok, S::Error> {
        p.index().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Player, D::Error> {
        match usize::deserialize(d)? {
            i @ (0 | 1) => Ok(Player::from_index(i)),
            i => Err(serde::de::Error::custom(format!("player {i} is not 0 or 1"))),
        }
    }

    pub mod option {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};
        use tabula_core::Player;

        pub fn serialize<S: Serializer>(p: &Option<Player>, s: S) -> Result<S::Ok, S::Error> {
            p.map(|p| p.index()).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Player>, D::Error> {
            match Option::<usize>::deserialize(d)? {
                None => Ok(None),
                Some(i @ (0 | 1)) => Ok(Some(Player::from_index(i))),
                Some(i) => Err(serde::de::Error::custom(format!("player {i} is not 0 or 1"))),
            }
        }
    }
}

/// Who asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Actor {
    /// Anyone: enough to join through an invite, nothing more.
    Guest,
    /// The holder of a seat token.
    Token(String),
    /// The server itself acting for a seat (an AI's move). Never built from
    /// a request.
    Seat(#[serde(with = "player_index")] Player),
    /// A logged-in account (session cookie or API token): it acts for the
    /// seat it holds in the game.
    User(i64),
}

/// Who takes an open seat without an invite (a lobby join).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Joiner {
    /// The account, if logged in.
    pub user: Option<(i64, String)>,
    /// Its rating in the game's category, if it has one.
    pub rating: Option<super::SeatRating>,
    /// The seat asked for (`None`: the first open one).
    #[serde(with = "player_index::option")]
    pub seat: Option<Player>,
}

impl Actor {
    /// The actor a request names with an optional token: a missing token is
    /// a guest, who holds no seat (`bad_token`).
    pub fn from_token(token: Option<String>) -> Actor {
        match token {
            Some(t) if !t.is_empty() => Actor::Token(t),
            _ => Actor::Guest,
        }
    }
}

/// A draw action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawAction {
    /// Offer a draw (accepts the opponent's standing offer).
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline the opponent's offer.
    Decline,
}

/// An action on a room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Take the open seat of this invite code.
    Join {
        /// The seat's invite code.
        invite: String,
        /// The name to show.
        name: Option<String>,
        /// The account joining, if logged in.
        user: Option<(i64, String)>,
    },
    /// Take an open seat of a public game without an invite.
    JoinOpen {
        /// Who joins.
        joiner: Joiner,
        /// The name to show (guests).
        name: Option<String>,
    },
    /// The player on move claims the win or a draw: the opponent has been
    /// gone long enough.
    Claim {
        /// A draw rather than the win.
        draw: bool,
    },
    /// Play a move.
    Move {
        /// The move in the game's notation.
        text: String,
        /// The plies the mover saw before it, to refuse a move that lost a race.
        ply: Option<u32>,
    },
    /// Resign.
    Resign,
    /// Offer, accept or decline a draw.
    Draw(DrawAction),
    /// Abort: before one's own first move, or while the game waits.
    Abort,
    /// Start the rematch of a finished game (or get the one started).
    Rematch,
}

/// What a command did.
pub enum Outcome {
    /// The actor now holds `player`'s seat with this secret token.
    Joined {
        /// The seat taken.
        player: Player,
        /// Its token.
        token: String,
    },
    /// The move was played; `plies` are played now.
    Moved {
        /// Plies after the move.
        plies: u32,
    },
    /// The game ended by resignation.
    Resigned,
    /// A draw action was taken.
    Draw(DrawAction),
    /// The game was aborted.
    Aborted,
    /// A win or draw was claimed.
    Claimed,
    /// The rematch, and the seat the asker holds in it (colours swap).
    Rematch {
        /// The rematch's id.
        id: String,
        /// The asker's seat in the new game.
        player: Player,
        /// The new room when this command made it, to store and open.
        room: Option<Box<Room>>,
    },
}
