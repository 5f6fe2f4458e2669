//! The object-safe layer: string moves, JSON views, options from text.
//!
//! The CLI and the server see every game through [`DynGame`] and
//! [`DynState`]. A game provides them for free by implementing
//! [`GameMeta`] and adding one `Entry::<MyGame>::NEW` line to the registry.

use crate::error::{MoveError, TabulaError};
use crate::game::{Agent, GameMeta, LevelSpec, Player, Status, ThinkContext};
use crate::options::{GameOptions, OptionSpec};
use crate::record::GameLog;
use serde_json::{json, Map, Value};
use std::any::Any;
use std::marker::PhantomData;

/// One game type in the registry.
///
/// ```
/// use tabula_core::{example::TicTacToe, DynGame, Entry};
/// let game: &dyn DynGame = &Entry::<TicTacToe>::NEW;
/// let state = game.replay(&[], None, &["4", "0"]).unwrap();
/// assert_eq!(state.to_move(), tabula_core::Player::First);
/// assert_eq!(state.state_json()["legal_moves"].as_array().unwrap().len(), 7);
/// assert!(game.replay(&[], None, &["4", "4"]).is_err());
/// ```
pub trait DynGame: Send + Sync {
    /// The registry id, e.g. `coldwar`.
    fn id(&self) -> &'static str;
    /// The display name.
    fn name(&self) -> &'static str;
    /// One sentence for lists and lobbies.
    fn description(&self) -> &'static str;
    /// The two seats' names, the first player first.
    fn players(&self) -> [&'static str; 2];
    /// The options the game accepts.
    fn option_specs(&self) -> &'static [OptionSpec];
    /// Check options and return them normalised (every key, in order).
    fn normalize_options(&self, options: &[(String, String)]) -> Result<Vec<(String, String)>, TabulaError>;
    /// The start position under these options.
    fn new_state(&self, options: &[(String, String)]) -> Result<Box<dyn DynState>, TabulaError>;
    /// A state from a position in the game's notation. (`self` is the game
    /// type, not a state, so this is a constructor despite the `from_` name.)
    #[allow(clippy::wrong_self_convention)]
    fn from_position(&self, options: &[(String, String)], position: &str) -> Result<Box<dyn DynState>, TabulaError>;
    /// The AI levels, weakest first.
    fn levels(&self) -> Vec<LevelSpec>;
    /// The level used when none is named.
    fn default_level(&self) -> &'static str;
    /// The parametrised AI specs `new_agent` takes besides the levels.
    fn level_forms(&self) -> &'static [&'static str];
    /// An agent of a level (or a plain-UCT baseline), seeded.
    fn new_agent(&self, level: &str, seed: u64) -> Result<Box<dyn DynAgent>, TabulaError>;
    /// `pgn`, `sgf` or `txt`.
    fn record_format(&self) -> &'static str;
    /// Write a game log in the game's record format.
    fn export(&self, log: &GameLog) -> Result<String, TabulaError>;
    /// Read every game of a record file and replay it.
    fn import(&self, text: &str) -> Result<Vec<DynReplayed>, TabulaError>;
    /// Play `moves` from `start` (the standard start when `None`), checking
    /// each; see [`crate::record::replay`].
    fn replay(
        &self,
        options: &[(String, String)],
        start: Option<&str>,
        moves: &[&str],
    ) -> Result<Box<dyn DynState>, TabulaError>;
    /// Random playouts from the start: each call of the returned closure
    /// plays one game of uniformly random legal moves to its end and
    /// returns its plies. Buffers are reused from call to call, so this is
    /// what `tabula bench` measures.
    fn random_playout(&self, options: &[(String, String)], seed: u64) -> Result<RandomPlayout, TabulaError>;
    /// Commands the game adds to `tabula` (see [`crate::tool`]); none by
    /// default.
    fn tools(&self) -> &'static [crate::tool::Tool] {
        &[]
    }
    /// The game's description for lists and lobbies: id, name, players,
    /// options, AI levels and record format.
    fn describe(&self) -> Value {
        json!({
            "id": self.id(),
            "name": self.name(),
            "description": self.description(),
            "players": self.players(),
            "options": self.option_specs(),
            "levels": self.levels(),
            "default_level": self.default_level(),
            "record_format": self.record_format(),
        })
    }
    /// The keys of the options that fix the clock: those with a listed
    /// value that calls for a time control (Cordots `mode`). When a game has
    /// such options its clock comes from them, not from a time control
    /// chosen beside them.
    fn clock_option_keys(&self) -> Vec<&'static str> {
        self.option_specs()
            .iter()
            .filter(|spec| {
                spec.values.split('|').any(|v| {
                    let pair = [(spec.key.to_string(), v.trim().to_string())];
                    self.new_state(&pair).ok().and_then(|s| s.time_control()).is_some()
                })
            })
            .map(|spec| spec.key)
            .collect()
    }
    /// A player's index from its name (`white` -> 0).
    fn player_by_name(&self, name: &str) -> Option<Player> {
        self.players().iter().position(|p| p.eq_ignore_ascii_case(name)).map(Player::from_index)
    }
}

/// One random playout per call, returning its plies (see
/// [`DynGame::random_playout`]).
pub type RandomPlayout = Box<dyn FnMut() -> u64 + Send>;

/// A replayed record, in dynamic form (see [`crate::record::Replayed`]).
pub struct DynReplayed {
    /// The state after the last move.
    pub state: Box<dyn DynState>,
    /// The record's header tags.
    pub tags: Vec<(String, String)>,
    /// Moves applied.
    pub moves: usize,
    /// The ply after which our rules would have ended the game, when the
    /// record goes on past it.
    pub ended_at: Option<u32>,
    /// Anything worth telling the user about the record.
    pub notes: Vec<String>,
}

/// One game in progress, in dynamic form.
pub trait DynState: Send + Sync {
    /// The game's registry id.
    fn game_id(&self) -> &'static str;
    /// The two seats' names.
    fn players(&self) -> [&'static str; 2];
    /// The player to move.
    fn to_move(&self) -> Player;
    /// Every legal move in the game's notation.
    fn legal_moves(&self) -> Vec<String>;
    /// Check and play a move given in the game's notation.
    fn play(&mut self, text: &str) -> Result<(), MoveError>;
    /// Check a move without playing it; returns its canonical spelling.
    fn check(&self, text: &str) -> Result<String, MoveError>;
    /// Whether the game goes on.
    fn status(&self) -> Status;
    /// The position in the game's notation, where it has one.
    fn position(&self) -> Option<String>;
    /// Plies played.
    fn plies(&self) -> u32;
    /// The score by player, for games that keep one.
    fn score(&self) -> Option<[i32; 2]>;
    /// The position's hash.
    fn hash(&self) -> u64;
    /// The winner by the game's tie-breaker when a match clock runs out.
    fn tiebreak(&self) -> Option<Player>;
    /// The game's options, normalised.
    fn options(&self) -> Vec<(String, String)>;
    /// The time control the game's options call for, if any.
    fn time_control(&self) -> Option<crate::clock::TimeControl>;
    /// Game-specific data for drawing the board.
    fn view(&self) -> Value;
    /// The board for a terminal, with ANSI colours when `color`.
    fn render_text(&self, color: bool) -> String;
    /// A move as people write it here, before it is played (SAN for
    /// Cumisitha); text that is no legal move comes back unchanged.
    fn display_move(&self, mv: &str) -> String;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn DynState>;
    /// For agents, which downcast to their own game's state.
    fn as_any(&self) -> &dyn Any;
    /// What the game's engine says about this position, thinking until
    /// `ctx.deadline` at most (see [`GameMeta::analyse`]).
    fn analyse(&self, ctx: &ThinkContext) -> Result<crate::analysis::Analysis, TabulaError>;

    /// The standard JSON object of `tabula state` and the API.
    fn state_json(&self) -> Value {
        let players = self.players();
        let mut m = Map::new();
        m.insert("game".into(), json!(self.game_id()));
        m.insert("position".into(), json!(self.position()));
        let status = self.status();
        m.insert("to_move".into(), json!(players[self.to_move().index()]));
        m.insert("legal_moves".into(), json!(self.legal_moves()));
        match status {
            Status::Ongoing => {
                m.insert("status".into(), json!("ongoing"));
                m.insert("winner".into(), Value::Null);
                m.insert("reason".into(), Value::Null);
            }
            Status::Over(o) => {
                m.insert("status".into(), json!("over"));
                m.insert("winner".into(), json!(o.winner.map(|w| players[w.index()])));
                m.insert("reason".into(), json!(o.reason));
            }
        }
        m.insert("plies".into(), json!(self.plies()));
        if let Some(s) = self.score() {
            m.insert("score".into(), json!({ players[0]: s[0], players[1]: s[1] }));
        }
        Value::Object(m)
    }

    /// The name of a player (`white`, `x`...).
    fn player_name(&self, p: Player) -> &'static str {
        self.players()[p.index()]
    }
}

impl Clone for Box<dyn DynState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// An AI over the dynamic layer.
pub trait DynAgent: Send {
    /// Pick a move for `state` in the game's notation.
    fn choose(&mut self, state: &dyn DynState, ctx: &ThinkContext) -> Result<String, TabulaError>;
    /// A short description, e.g. `"MCTS, 3000 iterations"`.
    fn describe(&self) -> String;
}

/// Wraps a typed state for the dynamic layer.
#[derive(Clone)]
pub struct StateBox<G: GameMeta>(pub G);

impl<G: GameMeta> DynState for StateBox<G> {
    fn game_id(&self) -> &'static str {
        G::ID
    }
    fn players(&self) -> [&'static str; 2] {
        G::PLAYERS
    }
    fn to_move(&self) -> Player {
        self.0.to_move()
    }
    fn legal_moves(&self) -> Vec<String> {
        let mut moves = Vec::new();
        self.0.legal_moves(&mut moves);
        moves.into_iter().map(|m| self.0.format_move(m)).collect()
    }
    fn play(&mut self, text: &str) -> Result<(), MoveError> {
        let mv = self.0.check_move(text)?;
        self.0.play(mv);
        Ok(())
    }
    fn check(&self, text: &str) -> Result<String, MoveError> {
        let mv = self.0.check_move(text)?;
        Ok(self.0.format_move(mv))
    }
    fn status(&self) -> Status {
        self.0.status()
    }
    fn position(&self) -> Option<String> {
        self.0.position()
    }
    fn plies(&self) -> u32 {
        self.0.plies()
    }
    fn score(&self) -> Option<[i32; 2]> {
        self.0.score()
    }
    fn hash(&self) -> u64 {
        self.0.hash()
    }
    fn tiebreak(&self) -> Option<Player> {
        self.0.tiebreak()
    }
    fn options(&self) -> Vec<(String, String)> {
        self.0.options().pairs()
    }
    fn time_control(&self) -> Option<crate::clock::TimeControl> {
        self.0.time_control()
    }
    fn view(&self) -> Value {
        self.0.view()
    }
    fn render_text(&self, color: bool) -> String {
        self.0.render_text(color)
    }
    fn display_move(&self, mv: &str) -> String {
        match self.0.check_move(mv) {
            Ok(m) => self.0.display_move(m),
            Err(_) => mv.to_string(),
        }
    }
    fn clone_box(&self) -> Box<dyn DynState> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn analyse(&self, ctx: &ThinkContext) -> Result<crate::analysis::Analysis, TabulaError> {
        self.0.analyse(ctx)
    }
}

/// Wraps a typed agent for the dynamic layer.
pub struct AgentBox<G: GameMeta>(pub Box<dyn Agent<G>>);

impl<G: GameMeta> DynAgent for AgentBox<G> {
    fn choose(&mut self, state: &dyn DynState, ctx: &ThinkContext) -> Result<String, TabulaError> {
        let typed = state.as_any().downcast_ref::<StateBox<G>>().ok_or_else(|| {
            TabulaError::Unsupported(format!("a {} agent was given a {} state", G::ID, state.game_id()))
        })?;
        if let Status::Over(o) = typed.0.status() {
            return Err(TabulaError::Move(MoveError::game_over("", format!("the game is over ({})", o.reason))));
        }
        let mv = self.0.choose(&typed.0, ctx);
        Ok(typed.0.format_move(mv))
    }
    fn describe(&self) -> String {
        self.0.describe()
    }
}

/// Makes agents of a level; used by callers that build many.
pub type AgentFactory = fn(&str, u64) -> Result<Box<dyn DynAgent>, TabulaError>;

/// The registry entry of a game: a zero-sized value implementing [`DynGame`].
pub struct Entry<G>(PhantomData<fn() -> G>);

impl<G> Entry<G> {
    /// The entry of game `G`.
    pub const NEW: Entry<G> = Entry(PhantomData);
}

impl<G: GameMeta> Entry<G> {
    fn parse_options(&self, options: &[(String, String)]) -> Result<G::Options, TabulaError> {
        Ok(G::Options::from_pairs(options)?)
    }
}

impl<G: GameMeta> DynGame for Entry<G> {
    fn id(&self) -> &'static str {
        G::ID
    }
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn description(&self) -> &'static str {
        G::DESCRIPTION
    }
    fn players(&self) -> [&'static str; 2] {
        G::PLAYERS
    }
    fn option_specs(&self) -> &'static [OptionSpec] {
        G::Options::specs()
    }
    fn normalize_options(&self, options: &[(String, String)]) -> Result<Vec<(String, String)>, TabulaError> {
        Ok(self.parse_options(options)?.pairs())
    }
    fn new_state(&self, options: &[(String, String)]) -> Result<Box<dyn DynState>, TabulaError> {
        let o = self.parse_options(options)?;
        Ok(Box::new(StateBox(G::new(&o))))
    }
    fn from_position(&self, options: &[(String, String)], position: &str) -> Result<Box<dyn DynState>, TabulaError> {
        let o = self.parse_options(options)?;
        let g = G::from_position(position, &o).map_err(TabulaError::Position)?;
        Ok(Box::new(StateBox(g)))
    }
    fn levels(&self) -> Vec<LevelSpec> {
        G::levels()
    }
    fn default_level(&self) -> &'static str {
        G::default_level()
    }
    fn level_forms(&self) -> &'static [&'static str] {
        G::level_forms()
    }
    fn new_agent(&self, level: &str, seed: u64) -> Result<Box<dyn DynAgent>, TabulaError> {
        match G::new_agent(level, seed) {
            Some(a) => Ok(Box::new(AgentBox::<G>(a))),
            None => {
                let mut known = G::levels().iter().map(|l| l.id.clone()).collect::<Vec<_>>().join(", ");
                // A misspelt `rave:100:0` should learn what the forms are.
                if !G::level_forms().is_empty() {
                    known = format!("{known}; or {}", G::level_forms().join(", "));
                }
                Err(TabulaError::UnknownLevel {
                    game: G::ID.to_string(),
                    level: crate::error::excerpt(level).into_owned(),
                    known,
                })
            }
        }
    }
    fn record_format(&self) -> &'static str {
        G::record_format()
    }
    fn export(&self, log: &GameLog) -> Result<String, TabulaError> {
        Ok(G::export(log)?)
    }
    fn import(&self, text: &str) -> Result<Vec<DynReplayed>, TabulaError> {
        let games = G::import(text)?;
        Ok(games
            .into_iter()
            .map(|r| DynReplayed {
                state: Box::new(StateBox(r.state)),
                tags: r.tags,
                moves: r.moves,
                ended_at: r.ended_at,
                notes: r.notes,
            })
            .collect())
    }
    fn replay(
        &self,
        options: &[(String, String)],
        start: Option<&str>,
        moves: &[&str],
    ) -> Result<Box<dyn DynState>, TabulaError> {
        let o = self.parse_options(options)?;
        Ok(Box::new(StateBox(crate::record::replay::<G>(&o, start, moves)?)))
    }
    fn random_playout(&self, options: &[(String, String)], seed: u64) -> Result<RandomPlayout, TabulaError> {
        use rand::SeedableRng;
        let start = G::new(&self.parse_options(options)?);
        let mut state = start.clone();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut moves = Vec::new();
        Ok(Box::new(move || {
            state.clone_from(&start);
            state.random_playout(&mut rng, &mut moves, u32::MAX) as u64
        }))
    }
    fn tools(&self) -> &'static [crate::tool::Tool] {
        G::tools()
    }
}

/// Every game Tabula knows, by id.
pub struct Registry {
    games: &'static [&'static dyn DynGame],
}

impl Registry {
    /// A registry of these games, in the order they are listed.
    pub const fn new(games: &'static [&'static dyn DynGame]) -> Self {
        Registry { games }
    }
    /// The games, in order.
    pub fn games(&self) -> &'static [&'static dyn DynGame] {
        self.games
    }
    /// Their ids, in order.
    pub fn ids(&self) -> Vec<&'static str> {
        self.games.iter().map(|g| g.id()).collect()
    }
    /// A game by id (case-insensitive), or an error listing the known ones.
    pub fn get(&self, id: &str) -> Result<&'static dyn DynGame, TabulaError> {
        self.games
            .iter()
            .copied()
            .find(|g| g.id().eq_ignore_ascii_case(id))
            .ok_or_else(|| TabulaError::UnknownGame(crate::error::excerpt(id).into_owned(), self.ids().join(", ")))
    }
}
