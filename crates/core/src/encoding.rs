//! Integer actions and observation tensors: how a game looks to a learning
//! program (OpenSpiel's `num_distinct_actions` and `observation_tensor`).
//!
//! A game that implements [`Encoding`] numbers every move it can ever make
//! in a fixed range `0..num_distinct_actions(options)`, and writes any
//! position as a stack of planes of `f32`. The Python package (`tabula`)
//! is generic over this trait; `docs/python.md` documents each game's
//! layout.

use crate::conformance::ConformanceError;
use crate::game::{Game, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The action space and the observation tensor of a game.
///
/// Laws, checked by [`check_encoding`]:
/// - every legal move has an action below [`Encoding::num_distinct_actions`],
///   and two legal moves of one position never share an action;
/// - [`Encoding::move_of`] undoes [`Encoding::action_of`] for legal moves;
/// - [`Encoding::write_observation`] writes every element of a buffer of
///   [`Encoding::observation_len`] elements, and only reads the state.
pub trait Encoding: Game {
    /// The name of each observation plane, in order. The tensor has the
    /// shape `[planes, rows, columns]` of [`Encoding::observation_shape`].
    fn observation_planes() -> &'static [&'static str];

    /// The size of the action space under `options`: every action is below it.
    fn num_distinct_actions(options: &Self::Options) -> usize;

    /// The observation shape `[planes, rows, columns]` under `options`.
    fn observation_shape(options: &Self::Options) -> [usize; 3];

    /// An upper bound on the plies of a game from the start position under
    /// `options`, or `None` when the rules set none (a game that ends only
    /// by a clock, say).
    fn max_game_length(options: &Self::Options) -> Option<u32>;

    /// An upper bound on the number of legal moves of any position
    /// reachable from the start under `options`: the width of the Python
    /// `VecEnv`'s lists of legal actions. The default is the whole action
    /// space; a game whose positions have far fewer moves says so.
    fn max_legal_actions(options: &Self::Options) -> usize {
        Self::num_distinct_actions(options)
    }

    /// The number of `f32` elements of one observation.
    fn observation_len(options: &Self::Options) -> usize {
        Self::observation_shape(options).iter().product()
    }

    /// The action of a move in this position. `None` when the move has no
    /// action, which only happens for moves that cannot be legal here (a
    /// parsed move such as a chess step that no piece can make).
    fn action_of(&self, mv: Self::Move) -> Option<u32>;

    /// The move an action stands for in this position, without checking
    /// that it is legal; `None` when the action is out of range or cannot
    /// be a move of this position (the side to move would need a piece
    /// there, for example).
    fn move_of(&self, action: u32) -> Option<Self::Move>;

    /// Write the position as seen by `player` into `out`, which has
    /// [`Encoding::observation_len`] elements, plane after plane, each
    /// plane row by row. Every element is written.
    fn write_observation(&self, player: Player, out: &mut [f32]);

    /// Whether [`Encoding::update_observation`] is cheaper than writing
    /// afresh: batched play (the Python `VecEnv`) then keeps a copy of
    /// each game's position before every move, to update from.
    const INCREMENTAL_OBSERVATION: bool = false;

    /// Turn `out`, which holds the observation of `before` as seen by
    /// `before_player` (any position of the game under the same options),
    /// into this position's observation as seen by `player`: the same
    /// elements [`Encoding::write_observation`] would write. The default
    /// writes afresh; a game whose observation is large and changes little
    /// from move to move writes only what differs.
    fn update_observation(&self, player: Player, before: &Self, before_player: Player, out: &mut [f32]) {
        let _ = (before, before_player);
        self.write_observation(player, out);
    }

    /// Write the legal moves into `moves` and their actions, in the same
    /// order, into `actions` (both cleared first).
    fn legal_actions(&self, moves: &mut Vec<Self::Move>, actions: &mut Vec<u32>) {
        self.legal_moves(moves);
        actions.clear();
        actions.extend(moves.iter().map(|&m| self.action_of(m).expect("a legal move has an action")));
    }

    /// Play `mv`, one of the moves [`Encoding::legal_actions`] listed for
    /// this position, then list the new position's legal moves and actions
    /// as [`Encoding::legal_actions`] does. Batched play (the Python
    /// `VecEnv`) steps this way; a game overrides it when it can skip
    /// re-checking a move it listed itself, or end the move and list the
    /// next ones in one pass.
    fn play_listed(&mut self, mv: Self::Move, moves: &mut Vec<Self::Move>, actions: &mut Vec<u32>) {
        self.play(mv);
        self.legal_actions(moves, actions);
    }
}

/// Play one random game from `start` (up to `max_plies` plies) and check
/// the [`Encoding`] laws at every ply; every `full_every` plies also decode
/// every action of the space (which must not panic) and check that the
/// decoded legal moves are exactly the legal ones; at every ply, check that
/// the position has at most [`Encoding::max_legal_actions`] legal moves,
/// that [`Encoding::play_listed`] agrees with `play` and `legal_actions`,
/// and that [`Encoding::update_observation`] agrees with
/// `write_observation` (updated move by move, for the player to move and
/// for the first player, and straight from the start position).
/// Returns the plies played or the first violation.
pub fn check_encoding<G: Encoding>(
    start: &G,
    seed: u64,
    max_plies: u32,
    full_every: u32,
) -> Result<u32, ConformanceError> {
    let options = start.options().clone();
    let space = G::num_distinct_actions(&options);
    let shape = G::observation_shape(&options);
    if shape[0] != G::observation_planes().len() {
        let what =
            format!("observation shape has {} planes but {} plane names", shape[0], G::observation_planes().len());
        return Err(ConformanceError { game: G::ID, seed, ply: 0, what });
    }
    let len = G::observation_len(&options);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = start.clone();
    let (mut moves, mut actions) = (Vec::new(), Vec::new());
    let mut obs = vec![0f32; len];
    // Observations kept up to date by `update_observation` as the game
    // goes on: as seen by the player to move (as batched play does), and
    // by the first player throughout; and `jump`, updated from the start
    // position's observation straight to the current position.
    let mut to_move_obs = vec![0f32; len];
    start.write_observation(start.to_move(), &mut to_move_obs);
    let mut first_obs = vec![0f32; len];
    start.write_observation(Player::First, &mut first_obs);
    let mut jump = vec![0f32; len];
    let mut before = start.clone();
    let (mut listed_moves, mut listed_actions) = (Vec::new(), Vec::new());
    let mut plies = 0;
    loop {
        let fail = |what: String| Err(ConformanceError { game: G::ID, seed, ply: plies, what });
        state.legal_actions(&mut moves, &mut actions);
        if moves.len() > G::max_legal_actions(&options) {
            return fail(format!(
                "{} legal moves, more than max_legal_actions {}",
                moves.len(),
                G::max_legal_actions(&options)
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (&m, &a) in moves.iter().zip(&actions) {
            if a as usize >= space {
                return fail(format!("{m:?} has action {a}, outside 0..{space}"));
            }
            if !seen.insert(a) {
                return fail(format!("two legal moves share action {a}"));
            }
            if state.move_of(a) != Some(m) {
                return fail(format!("action {a} of {m:?} decodes to {:?}", state.move_of(a)));
            }
        }
        if full_every > 0 && plies % full_every == 0 {
            let mut decoded = 0;
            for a in 0..space as u32 {
                if let Some(m) = state.move_of(a) {
                    if moves.contains(&m) {
                        decoded += 1;
                        if state.action_of(m) != Some(a) {
                            return fail(format!("action {a} decodes to legal {m:?} of another action"));
                        }
                    }
                }
            }
            if decoded != moves.len() {
                return fail(format!("{decoded} actions decode to legal moves, {} legal moves", moves.len()));
            }
            if state.move_of(space as u32).is_some() || state.move_of(u32::MAX).is_some() {
                return fail("an action outside the space decodes to a move".into());
            }
        }
        for player in Player::BOTH {
            obs.fill(f32::NAN);
            state.write_observation(player, &mut obs);
            if let Some(i) = obs.iter().position(|v| !v.is_finite()) {
                return fail(format!("observation element {i} for {player:?} is not written"));
            }
            for (kept, tracks) in [(&to_move_obs, state.to_move()), (&first_obs, Player::First)] {
                if tracks != player {
                    continue;
                }
                if let Some(i) = (0..len).find(|&i| kept[i] != obs[i]) {
                    return fail(format!(
                        "update_observation for {player:?} differs from write_observation at element {i}: {} instead of {}",
                        kept[i], obs[i]
                    ));
                }
            }
            start.write_observation(Player::First, &mut jump);
            state.update_observation(player, start, Player::First, &mut jump);
            if let Some(i) = (0..len).find(|&i| jump[i] != obs[i]) {
                return fail(format!(
                    "update_observation from the start position for {player:?} differs from write_observation at element {i}"
                ));
            }
        }
        if let Some(max) = G::max_game_length(&options) {
            if plies > max {
                return fail(format!("the game is longer than its maximum length {max}"));
            }
        }
        if moves.is_empty() || plies >= max_plies {
            // Batched play restarts a finished game: from its last
            // position's observation to the start's.
            state.write_observation(state.to_move(), &mut jump);
            start.update_observation(start.to_move(), &state, state.to_move(), &mut jump);
            start.write_observation(start.to_move(), &mut obs);
            if let Some(i) = (0..len).find(|&i| jump[i] != obs[i]) {
                return fail(format!(
                    "update_observation back to the start differs from write_observation at element {i}"
                ));
            }
            return Ok(plies);
        }
        let m = moves[rng.random_range(0..moves.len())];
        let mut listed = state.clone();
        listed.play_listed(m, &mut listed_moves, &mut listed_actions);
        before.clone_from(&state);
        state.play(m);
        state.update_observation(state.to_move(), &before, before.to_move(), &mut to_move_obs);
        state.update_observation(Player::First, &before, Player::First, &mut first_obs);
        state.legal_actions(&mut moves, &mut actions);
        if listed.hash() != state.hash() || listed.status() != state.status() {
            return fail(format!("play_listed({m:?}) reaches another position than play"));
        }
        if listed_moves != moves || listed_actions != actions {
            return fail(format!("play_listed({m:?}) lists other moves or actions than legal_actions"));
        }
        plies += 1;
    }
}
