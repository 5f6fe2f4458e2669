//! Arena: continuous pairing for a fixed time, scored as lichess scores
//! its arenas.
//!
//! **Pairing.** Whenever players are waiting (in the arena, not paused,
//! not in a game), they are paired with a neighbour in the ranking: the
//! waiting players are sorted by arena points (then seeding) and each takes
//! the next one down who was not their last opponent. A player whose only
//! possible opponent is their last one waits for someone else to finish,
//! unless the two of them are the whole arena. Colours go to whoever has
//! moved first less often; on a tie the higher ranked moves first. No game
//! starts after the end time; games running at the end still count.
//!
//! **Scoring** (lichess): a win is 2 points, a draw 1, a loss 0. Two wins
//! in a row start a streak: from then on every game is worth double (win
//! 4, draw 2) until a game is not won. A forfeit counts as a win for the
//! player who appeared and a loss for the one who did not. Berserk and the
//! early-draw rule of lichess are not modelled.

use crate::types::{GameResult, PlayerId, Points, Side};
use serde::{Deserialize, Serialize};

/// One player's arena state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaPlayer {
    /// Whether the player takes part (not paused or withdrawn).
    pub active: bool,
    /// Whether the player is in a game right now.
    pub playing: bool,
    /// Arena points.
    pub points: Points,
    /// Wins in a row (2 or more: the next game scores double).
    pub streak: u32,
    /// The opponent of the last game.
    pub last_opponent: Option<PlayerId>,
    /// Games moved first minus games moved second.
    pub colour_balance: i32,
}

/// The arena's points for one game: `(first, second)`, updating streaks.
///
/// ```
/// use tabula_tournament::arena::{score_game, ArenaPlayer};
/// use tabula_tournament::{GameResult, Points, Side};
/// let (mut a, mut b) = (ArenaPlayer::default(), ArenaPlayer::default());
/// for _ in 0..2 {
///     score_game(&mut a, &mut b, &GameResult::win(Side::First));
/// }
/// assert_eq!(a.points, Points::from_halves(8)); // 2 + 2
/// // On a streak: the third win is worth 4.
/// score_game(&mut a, &mut b, &GameResult::win(Side::First));
/// assert_eq!(a.points, Points::from_halves(16));
/// // A draw on a streak is worth 2 and ends the streak.
/// score_game(&mut a, &mut b, &GameResult::draw());
/// assert_eq!(a.points, Points::from_halves(20));
/// assert_eq!(a.streak, 0);
/// ```
pub fn score_game(first: &mut ArenaPlayer, second: &mut ArenaPlayer, result: &GameResult) -> (Points, Points) {
    let earn = |p: &mut ArenaPlayer, side: Side| -> Points {
        let base = match result.winner() {
            Some(w) if w == side => 2,
            None if result.was_played() => 1,
            _ => 0,
        };
        let double = p.streak >= 2;
        let won = base == 2;
        let points = Points::from_halves(2 * base * if double { 2 } else { 1 });
        p.streak = if won { p.streak + 1 } else { 0 };
        p.points += points;
        points
    };
    let a = earn(first, Side::First);
    let b = earn(second, Side::Second);
    (a, b)
}

/// The pairings for the players waiting now, `ranked` best first (points,
/// then seeding): `(first, second)`.
///
/// ```
/// use tabula_tournament::arena::{pair_waiting, ArenaPlayer};
/// use tabula_tournament::PlayerId;
/// let mut players = vec![ArenaPlayer { active: true, ..Default::default() }; 4];
/// // 0 and 1 just played each other.
/// players[0].last_opponent = Some(PlayerId(1));
/// players[1].last_opponent = Some(PlayerId(0));
/// let ranked: Vec<PlayerId> = (0..4).map(PlayerId).collect();
/// let pairs = pair_waiting(&players, &ranked);
/// assert_eq!(pairs.len(), 2);
/// assert!(!pairs.contains(&(PlayerId(0), PlayerId(1))) && !pairs.contains(&(PlayerId(1), PlayerId(0))));
/// ```
pub fn pair_waiting(players: &[ArenaPlayer], ranked: &[PlayerId]) -> Vec<(PlayerId, PlayerId)> {
    let active = players.iter().filter(|p| p.active).count();
    let waiting: Vec<PlayerId> =
        ranked.iter().copied().filter(|p| players[p.index()].active && !players[p.index()].playing).collect();
    let mut taken = vec![false; waiting.len()];
    let mut pairs = Vec::new();
    for i in 0..waiting.len() {
        if taken[i] {
            continue;
        }
        let a = waiting[i];
        let pick = (i + 1..waiting.len()).find(|&j| {
            let b = waiting[j];
            let rematch = players[a.index()].last_opponent == Some(b) || players[b.index()].last_opponent == Some(a);
            !taken[j] && (!rematch || active <= 2)
        });
        if let Some(j) = pick {
            taken[i] = true;
            taken[j] = true;
            let b = waiting[j];
            let (ba, bb) = (players[a.index()].colour_balance, players[b.index()].colour_balance);
            pairs.push(if bb < ba { (b, a) } else { (a, b) });
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaks_end_on_a_loss_and_forfeits_score_as_wins() {
        let (mut a, mut b) = (ArenaPlayer::default(), ArenaPlayer::default());
        score_game(&mut a, &mut b, &GameResult::win(Side::First));
        score_game(&mut a, &mut b, &GameResult::win(Side::First));
        score_game(&mut a, &mut b, &GameResult::win(Side::Second));
        assert_eq!((a.points, a.streak), (Points::from_halves(8), 0));
        assert_eq!(b.points, Points::from_halves(4));
        let (x, y) = score_game(&mut a, &mut b, &GameResult::Forfeit { winner: Some(Side::First) });
        assert_eq!((x, y), (Points::from_halves(4), Points::ZERO));
    }

    #[test]
    fn two_player_arena_allows_rematches_and_balances_colours() {
        let mut players = vec![ArenaPlayer { active: true, ..Default::default() }; 2];
        players[0].last_opponent = Some(PlayerId(1));
        players[1].last_opponent = Some(PlayerId(0));
        players[0].colour_balance = 1;
        let ranked = [PlayerId(0), PlayerId(1)];
        assert_eq!(pair_waiting(&players, &ranked), vec![(PlayerId(1), PlayerId(0))]);
        // A third player in a game: the two waiting ones do not rematch.
        players.push(ArenaPlayer { active: true, playing: true, ..Default::default() });
        assert!(pair_waiting(&players, &[PlayerId(0), PlayerId(1), PlayerId(2)]).is_empty());
    }
}
