//! Why a command was refused.

use crate::store::StoreError;
use tabula_core::matches::MatchError;
use tabula_core::{MoveError, TabulaError};

/// A refused command, or a failure while carrying one out.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// No game with this id.
    #[error("no game '{0}'")]
    NotFound(String),
    /// The token holds no seat here (or is missing).
    #[error("this seat token does not hold a seat in this game")]
    BadToken,
    /// The invite code is not for this game.
    #[error("this invite code is not for this game")]
    BadInvite,
    /// The invite's seat was joined already.
    #[error("someone has already joined through this invite")]
    SeatTaken,
    /// The seat is not on move.
    #[error("it is {to_move}'s turn, not {player}'s")]
    NotYourTurn {
        /// Who is on move.
        to_move: &'static str,
        /// Who tried.
        player: &'static str,
    },
    /// The move was meant for an earlier position.
    #[error("the move was meant for ply {meant}, but {played} plies have been played")]
    StalePly {
        /// The ply the client named.
        meant: u32,
        /// The plies played.
        played: u32,
    },
    /// An open seat has not been joined.
    #[error("an open seat has not been joined yet")]
    WaitingForOpponent,
    /// The game has ended.
    #[error("the game is over ({reason})")]
    GameOver {
        /// How it ended.
        reason: String,
    },
    /// Time had run out before the move arrived; the game is now over.
    #[error("time ran out before the move ({reason})")]
    TimeUp {
        /// How it ended.
        reason: String,
    },
    /// The rules refused the move.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// Accept or decline without an offer from the opponent.
    #[error("your opponent has not offered a draw")]
    NoDrawOffer,
    /// Abort or rematch asked of a tournament game.
    #[error("a tournament game cannot be {0}; resign instead, or play on")]
    TournamentGame(&'static str),
    /// Rematch before the end.
    #[error("a rematch can only start once the game is over")]
    NotFinished,
    /// Abort after one's own first move.
    #[error("a game can only be aborted while it waits for an opponent or before your own first move")]
    CannotAbort,
    /// A rated game needs an account.
    #[error("log in to play a rated game")]
    LoginRequired,
    /// Joining one's own game.
    #[error("this is your own game: you already hold a seat in it")]
    OwnGame,
    /// The joiner's rating is outside the seek's range.
    #[error("your rating {rating} is outside this game's range {min}..{max}")]
    OutOfRange {
        /// The joiner's rating.
        rating: i32,
        /// The lowest allowed.
        min: i32,
        /// The highest allowed.
        max: i32,
    },
    /// A claim before the opponent has been gone long enough.
    #[error("{0}")]
    CannotClaim(String),
    /// The game's rules refused a setting.
    #[error(transparent)]
    Game(#[from] TabulaError),
    /// The change could not be stored; the game is as it was before it.
    #[error("the change was not saved: {0}")]
    Store(#[from] StoreError),
    /// Cluster mode: another node owns the game (commands are forwarded
    /// to it).
    #[error("game is owned by node {node}")]
    Elsewhere {
        /// The owner.
        node: String,
    },
    /// Cluster mode: the owner of the game refused the forwarded command
    /// (or could not run it): its answer, as it gave it.
    #[error("{}", .0.message)]
    Remote(crate::error::ApiError),
    /// A stored game cannot be rebuilt.
    #[error("game {game} cannot be loaded: {reason}")]
    Damaged {
        /// The game.
        game: String,
        /// What is wrong.
        reason: String,
    },
}

impl From<MatchError> for RoomError {
    fn from(e: MatchError) -> Self {
        match e {
            MatchError::Move(m) => RoomError::Move(m),
            MatchError::Finished(r) => RoomError::GameOver { reason: r.reason },
            MatchError::TimeUp(r) => RoomError::TimeUp { reason: r.reason },
        }
    }
}
