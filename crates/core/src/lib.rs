//! Tabula's game API.
//!
//! Two layers, as in OpenSpiel and cozy-chess:
//! - [`Game`]: a static trait with a `Copy` move type. Engines and AIs are
//!   generic over it, so hot loops never dispatch dynamically.
//! - [`DynGame`] / [`DynState`]: an object-safe layer with string moves and
//!   JSON views, used by the CLI and the server to treat every game alike
//!   through one [`Registry`].
//!
//! The [`clock`] and [`mod@matches`] modules hold the time-control state machines
//! shared by every front end.

#![warn(missing_docs)]

pub mod analysis;
pub mod clock;
pub mod conformance;
pub mod dynamic;
pub mod encoding;
pub mod error;
pub mod example;
pub mod game;
pub mod matches;
pub mod options;
pub mod record;
pub mod splitmix;
pub mod tool;
pub mod uci;

pub use analysis::{Analysis, EvalUnit, Evaluation, GameResult, MoveValue, SearchInfo, Solved, Territory};
pub use clock::{Clock, ClockEvent, TimeControl, TimeControlError};
pub use dynamic::{AgentFactory, DynAgent, DynGame, DynState, Entry, RandomPlayout, Registry};
pub use error::{MoveError, MoveErrorKind, NotationError, OptionError, RecordError, RecordProblem, TabulaError};
pub use game::{Agent, Game, GameMeta, LevelSpec, Outcome, Player, Status, ThinkContext, MAX_THREADS};
pub use options::{GameOptions, NoOptions, OptionSpec};
pub use record::{GameLog, Replayed};
