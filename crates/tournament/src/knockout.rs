//! Knockout: a seeded bracket of matches, each one game or a best-of-N,
//! with a fixed way to decide a level match.
//!
//! **Seeding.** The bracket has `2^k` places for `n` players; seed 1 meets
//! seed `2^k`, seed 2 meets `2^k - 1` and so on, placed so that seeds 1
//! and 2 can only meet in the final, 1-4 and 2-3 in the semifinals. Seeds
//! above `n` are byes, so when `n` is not a power of two the top seeds
//! go through the first round without playing.
//!
//! **A match** is `games` games, colours alternating, the higher seed
//! moving first in the first game; it ends as soon as one player cannot be
//! caught. A level match goes to tie-break mini-matches of
//! `tiebreak_games` games each (colours still alternating), at most
//! `tiebreak_rounds` of them, and if it is still level, to one decider
//! game in which the higher seed moves second and a draw counts as a win
//! for them (armageddon). Each stage can have its own game settings: for
//! Dots the games run with `stage=knockout`, so a level score at the move
//! limit goes to the golden dot inside the game and a drawn game only
//! happens on a full board. A forfeit counts as a win for the player who
//! appeared; if neither appears, both are out and the next opponent goes
//! through.

use crate::types::{GameResult, GameSettings, PlayerId, Side};
use serde::{Deserialize, Serialize};

/// How knockout matches are played and decided.
///
/// ```
/// use tabula_tournament::knockout::KnockoutRules;
/// let r = KnockoutRules::best_of(3);
/// assert_eq!(r.games, 3);
/// assert_eq!(r.tiebreak_games, 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnockoutRules {
    /// Games in a match (best of N).
    pub games: u32,
    /// Settings of the match games.
    #[serde(default)]
    pub settings: GameSettings,
    /// Games in each tie-break mini-match (0: straight to the decider).
    #[serde(default = "two")]
    pub tiebreak_games: u32,
    /// Tie-break mini-matches before the decider.
    #[serde(default = "one")]
    pub tiebreak_rounds: u32,
    /// Settings of tie-break games (e.g. a shorter clock).
    #[serde(default)]
    pub tiebreak_settings: GameSettings,
    /// Settings of the decider game.
    #[serde(default)]
    pub decider_settings: GameSettings,
    /// Whether the semifinal losers play for third place.
    #[serde(default)]
    pub third_place: bool,
}

fn two() -> u32 {
    2
}

fn one() -> u32 {
    1
}

impl KnockoutRules {
    /// Matches of `games` games with the default tie-break: two more games,
    /// then a decider.
    pub fn best_of(games: u32) -> KnockoutRules {
        KnockoutRules {
            games: games.max(1),
            settings: GameSettings::default(),
            tiebreak_games: 2,
            tiebreak_rounds: 1,
            tiebreak_settings: GameSettings::default(),
            decider_settings: GameSettings::default(),
            third_place: false,
        }
    }

    /// The same rules with `settings` for every game of a match, tie-breaks
    /// and decider included (e.g. Dots's `stage=knockout`).
    pub fn with_settings(mut self, settings: GameSettings) -> KnockoutRules {
        self.settings = settings.clone();
        self.tiebreak_settings = settings.clone();
        self.decider_settings = settings;
        self
    }
}

impl Default for KnockoutRules {
    fn default() -> KnockoutRules {
        KnockoutRules::best_of(1)
    }
}

/// Which part of a match a game belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stage", content = "number")]
pub enum MatchStage {
    /// One of the match's regular games.
    Regular,
    /// A game of tie-break mini-match number n (from 1).
    Tiebreak(u32),
    /// The decider.
    Decider,
}

/// A game of a match as the match logic sees it: slot 0 is the higher
/// seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchGame {
    /// The slot (0 or 1) that moved first.
    pub first_slot: u8,
    /// The part of the match.
    pub stage: MatchStage,
    /// The result, once known.
    pub result: Option<GameResult>,
}

/// What a match needs next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchNext {
    /// A game is still being played.
    Waiting,
    /// Play another game: `first_slot` moves first; if `draw_odds` is set,
    /// a draw counts as a win for that slot.
    Play {
        /// The slot that moves first.
        first_slot: u8,
        /// The part of the match.
        stage: MatchStage,
        /// The slot a draw counts for, in the decider.
        draw_odds: Option<u8>,
    },
    /// The match is over: the slot that goes through, or `None` if neither
    /// (both forfeited).
    Decided(Option<u8>),
}

/// Points (half points, 2/1/0) of each slot in one game.
fn game_points(g: &MatchGame) -> [i32; 2] {
    let Some(result) = g.result else { return [0, 0] };
    let first = g.first_slot as usize;
    let mut p = [0, 0];
    match result.winner() {
        Some(Side::First) => p[first] = 2,
        Some(Side::Second) => p[1 - first] = 2,
        None if result.was_played() => p = [1, 1],
        None => {}
    }
    p
}

/// Decide what a match needs next from its games so far.
///
/// ```
/// use tabula_tournament::knockout::{next_in_match, KnockoutRules, MatchGame, MatchNext, MatchStage};
/// use tabula_tournament::{GameResult, Side};
/// let rules = KnockoutRules::best_of(1);
/// // No games yet: the higher seed (slot 0) moves first.
/// assert_eq!(next_in_match(&rules, &[]), MatchNext::Play { first_slot: 0, stage: MatchStage::Regular, draw_odds: None });
/// // A drawn single game goes to two tie-break games, colours alternating.
/// let drawn = MatchGame { first_slot: 0, stage: MatchStage::Regular, result: Some(GameResult::draw()) };
/// assert_eq!(next_in_match(&rules, &[drawn]), MatchNext::Play { first_slot: 1, stage: MatchStage::Tiebreak(1), draw_odds: None });
/// // A win decides it.
/// let won = MatchGame { first_slot: 0, stage: MatchStage::Regular, result: Some(GameResult::win(Side::Second)) };
/// assert_eq!(next_in_match(&rules, &[won]), MatchNext::Decided(Some(1)));
/// ```
pub fn next_in_match(rules: &KnockoutRules, games: &[MatchGame]) -> MatchNext {
    if games.iter().any(|g| g.result.is_none()) {
        return MatchNext::Waiting;
    }
    if games.iter().any(|g| matches!(g.result, Some(GameResult::Forfeit { winner: None }))) {
        return MatchNext::Decided(None);
    }
    let played = games.len() as u32;
    let mut blocks: Vec<(MatchStage, u32)> = vec![(MatchStage::Regular, rules.games.max(1))];
    if rules.tiebreak_games > 0 {
        blocks.extend((1..=rules.tiebreak_rounds).map(|k| (MatchStage::Tiebreak(k), rules.tiebreak_games)));
    }
    for (stage, n) in blocks {
        let block: Vec<&MatchGame> = games.iter().filter(|g| g.stage == stage).collect();
        let mut score = [0i32; 2];
        for g in &block {
            let p = game_points(g);
            score[0] += p[0];
            score[1] += p[1];
        }
        let left = n as i32 - block.len() as i32;
        if score[0] - score[1] > 2 * left {
            return MatchNext::Decided(Some(0));
        }
        if score[1] - score[0] > 2 * left {
            return MatchNext::Decided(Some(1));
        }
        if left > 0 {
            return MatchNext::Play { first_slot: (played % 2) as u8, stage, draw_odds: None };
        }
    }
    match games.iter().find(|g| g.stage == MatchStage::Decider) {
        None => MatchNext::Play { first_slot: 1, stage: MatchStage::Decider, draw_odds: Some(0) },
        Some(g) => {
            let p = game_points(g);
            MatchNext::Decided(Some(if p[1] > p[0] { 1 } else { 0 }))
        }
    }
}

/// The settings of a game in `stage`.
pub fn stage_settings(rules: &KnockoutRules, stage: MatchStage) -> &GameSettings {
    match stage {
        MatchStage::Regular => &rules.settings,
        MatchStage::Tiebreak(_) => &rules.tiebreak_settings,
        MatchStage::Decider => &rules.decider_settings,
    }
}

/// Seeds (from 1) in bracket order for a bracket of `size` places (a power
/// of two): neighbours meet in the first round.
///
/// ```
/// use tabula_tournament::knockout::bracket_order;
/// assert_eq!(bracket_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
/// ```
pub fn bracket_order(size: u32) -> Vec<u32> {
    let mut order = vec![1u32];
    while (order.len() as u32) < size {
        let m = order.len() as u32 * 2;
        order = order.iter().flat_map(|&s| [s, m + 1 - s]).collect();
    }
    order
}

/// A place in a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "player")]
pub enum Slot {
    /// Not known yet: the match feeding it is still on.
    Pending,
    /// A player.
    Player(PlayerId),
    /// Nobody: a bye, or both players of the feeding match went out.
    Empty,
}

impl Slot {
    /// The player, if any.
    pub fn player(self) -> Option<PlayerId> {
        match self {
            Slot::Player(p) => Some(p),
            _ => None,
        }
    }
}

/// One match of the bracket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnockoutMatch {
    /// The two places; slot 0 holds the better seed.
    pub slots: [Slot; 2],
    /// The seeds (from 1) of the two places, for display.
    pub seeds: [u32; 2],
    /// The games: `(game id, the match's view of it)`.
    pub games: Vec<(u32, MatchGame)>,
    /// The slot that went through, once decided (`None` inside `Some`:
    /// nobody did).
    pub decided: Option<Option<u8>>,
    /// When the match may start its first game (ms), once both places are
    /// known.
    pub start_at: Option<u64>,
}

impl KnockoutMatch {
    fn new(slots: [Slot; 2], seeds: [u32; 2]) -> KnockoutMatch {
        KnockoutMatch { slots, seeds, games: Vec::new(), decided: None, start_at: None }
    }

    /// Put the better seed in slot 0 once both places are known, so that
    /// they move first in the first game.
    fn order_by_seed(&mut self) {
        if let (Slot::Player(_), Slot::Player(_)) = (self.slots[0], self.slots[1]) {
            if self.seeds[1] < self.seeds[0] {
                self.slots.swap(0, 1);
                self.seeds.swap(0, 1);
            }
        }
    }

    /// The winner, once decided.
    pub fn winner(&self) -> Option<PlayerId> {
        self.decided.flatten().and_then(|s| self.slots[s as usize].player())
    }

    /// The loser, once decided by play (not for a walkover).
    pub fn loser(&self) -> Option<PlayerId> {
        match self.decided {
            Some(Some(s)) => self.slots[1 - s as usize].player(),
            Some(None) => None,
            None => None,
        }
    }

    /// The games' view for [`next_in_match`].
    pub fn match_games(&self) -> Vec<MatchGame> {
        self.games.iter().map(|(_, g)| *g).collect()
    }
}

/// The bracket: rounds of matches, the final last, and an optional match
/// for third place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bracket {
    /// Places in the first round (a power of two).
    pub size: u32,
    /// Rounds of matches; round `r` has `size / 2^(r+1)` matches.
    pub rounds: Vec<Vec<KnockoutMatch>>,
    /// The semifinal losers' match, if played.
    pub third_place: Option<KnockoutMatch>,
    /// Each player's seed (from 1).
    pub seeding: Vec<(PlayerId, u32)>,
}

/// Where a match sits: `(round, index)`, or the third-place match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRef {
    /// Match `index` of round `round` (both from 0).
    Round {
        /// Round, from 0.
        round: u32,
        /// Match within the round, from 0.
        index: u32,
    },
    /// The match for third place.
    ThirdPlace,
}

impl Bracket {
    /// A bracket for `seeded` players, strongest first.
    ///
    /// ```
    /// use tabula_tournament::knockout::{Bracket, Slot};
    /// use tabula_tournament::PlayerId;
    /// let players: Vec<PlayerId> = (0..5).map(PlayerId).collect();
    /// let b = Bracket::new(&players, false);
    /// assert_eq!(b.size, 8);
    /// // Seed 1 meets the bye of seed 8.
    /// assert_eq!(b.rounds[0][0].slots, [Slot::Player(PlayerId(0)), Slot::Empty]);
    /// ```
    pub fn new(seeded: &[PlayerId], third_place: bool) -> Bracket {
        let n = seeded.len().max(2) as u32;
        let size = n.next_power_of_two();
        let order = bracket_order(size);
        let slot = |seed: u32| -> Slot { seeded.get(seed as usize - 1).map_or(Slot::Empty, |&p| Slot::Player(p)) };
        let first: Vec<KnockoutMatch> =
            order.chunks(2).map(|c| KnockoutMatch::new([slot(c[0]), slot(c[1])], [c[0], c[1]])).collect();
        let mut rounds = vec![first];
        while rounds.last().unwrap().len() > 1 {
            let prev = rounds.last().unwrap();
            let next: Vec<KnockoutMatch> = prev
                .chunks(2)
                .map(|c| {
                    let (a, b) = (c[0].seeds[0].min(c[0].seeds[1]), c[1].seeds[0].min(c[1].seeds[1]));
                    KnockoutMatch::new([Slot::Pending, Slot::Pending], [a, b])
                })
                .collect();
            rounds.push(next);
        }
        let third =
            (third_place && rounds.len() >= 2).then(|| KnockoutMatch::new([Slot::Pending, Slot::Pending], [3, 4]));
        let seeding = seeded.iter().enumerate().map(|(i, &p)| (p, i as u32 + 1)).collect();
        Bracket { size, rounds, third_place: third, seeding }
    }

    /// A player's seed (from 1), 0 if not in the bracket.
    pub fn seed_of(&self, player: PlayerId) -> u32 {
        self.seeding.iter().find(|(p, _)| *p == player).map_or(0, |&(_, s)| s)
    }

    /// The match at `at`.
    pub fn get(&self, at: MatchRef) -> Option<&KnockoutMatch> {
        match at {
            MatchRef::Round { round, index } => self.rounds.get(round as usize)?.get(index as usize),
            MatchRef::ThirdPlace => self.third_place.as_ref(),
        }
    }

    pub(crate) fn get_mut(&mut self, at: MatchRef) -> Option<&mut KnockoutMatch> {
        match at {
            MatchRef::Round { round, index } => self.rounds.get_mut(round as usize)?.get_mut(index as usize),
            MatchRef::ThirdPlace => self.third_place.as_mut(),
        }
    }

    /// Every match with its place.
    pub fn matches(&self) -> impl Iterator<Item = (MatchRef, &KnockoutMatch)> {
        let rounds = self.rounds.iter().enumerate().flat_map(|(r, ms)| {
            ms.iter().enumerate().map(move |(i, m)| (MatchRef::Round { round: r as u32, index: i as u32 }, m))
        });
        rounds.chain(self.third_place.iter().map(|m| (MatchRef::ThirdPlace, m)))
    }

    /// The match holding game `game`.
    pub fn find_game(&self, game: u32) -> Option<MatchRef> {
        self.matches().find(|(_, m)| m.games.iter().any(|(g, _)| *g == game)).map(|(r, _)| r)
    }

    /// Whether the final is decided (and the third-place match, if any).
    pub fn is_finished(&self) -> bool {
        self.rounds.last().is_some_and(|r| r[0].decided.is_some())
            && self.third_place.as_ref().is_none_or(|m| m.decided.is_some())
    }

    /// Settle matches that need no game (a bye or an empty place) and move
    /// winners (and semifinal losers) on, until nothing changes. Returns
    /// the matches that became ready to play, marked to start at `now +
    /// pause`.
    pub(crate) fn propagate(&mut self, now: u64, pause: u64) -> Vec<MatchRef> {
        let mut ready = Vec::new();
        loop {
            let mut changed = false;
            let refs: Vec<MatchRef> = self.matches().map(|(r, _)| r).collect();
            for at in refs {
                let m = self.get(at).unwrap().clone();
                if m.decided.is_none() {
                    let decided = match (m.slots[0], m.slots[1]) {
                        (Slot::Player(_), Slot::Empty) => Some(Some(0)),
                        (Slot::Empty, Slot::Player(_)) => Some(Some(1)),
                        (Slot::Empty, Slot::Empty) => Some(None),
                        (Slot::Player(_), Slot::Player(_)) => {
                            if m.start_at.is_none() {
                                self.get_mut(at).unwrap().start_at = Some(now + pause);
                                ready.push(at);
                                changed = true;
                            }
                            None
                        }
                        _ => None,
                    };
                    if let Some(d) = decided {
                        self.get_mut(at).unwrap().decided = Some(d);
                        changed = true;
                    }
                    continue;
                }
                // Decided: fill the next match's place if still pending.
                if let MatchRef::Round { round, index } = at {
                    let winner = m.winner().map_or(Slot::Empty, Slot::Player);
                    let last = round as usize + 1 == self.rounds.len();
                    if !last {
                        let next = MatchRef::Round { round: round + 1, index: index / 2 };
                        let place = (index % 2) as usize;
                        let seed = winner.player().map_or(0, |p| self.seed_of(p));
                        let target = self.get_mut(next).unwrap();
                        if target.slots[place] == Slot::Pending {
                            target.slots[place] = winner;
                            target.seeds[place] = seed;
                            target.order_by_seed();
                            changed = true;
                        }
                    }
                    let semifinal = round as usize + 2 == self.rounds.len();
                    if semifinal {
                        let loser = m.loser().map_or(Slot::Empty, Slot::Player);
                        let seed = loser.player().map_or(0, |p| self.seed_of(p));
                        if let Some(third) = self.third_place.as_mut() {
                            let place = (index % 2) as usize;
                            if third.slots[place] == Slot::Pending {
                                third.slots[place] = loser;
                                third.seeds[place] = seed;
                                third.order_by_seed();
                                changed = true;
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn g(first_slot: u8, stage: MatchStage, result: GameResult) -> MatchGame {
        MatchGame { first_slot, stage, result: Some(result) }
    }

    #[test]
    fn best_of_three_stops_when_clinched() {
        let rules = KnockoutRules::best_of(3);
        let w0 = g(0, MatchStage::Regular, GameResult::win(Side::First));
        let w0b = g(1, MatchStage::Regular, GameResult::win(Side::Second));
        assert_eq!(
            next_in_match(&rules, &[w0]),
            MatchNext::Play { first_slot: 1, stage: MatchStage::Regular, draw_odds: None }
        );
        assert_eq!(next_in_match(&rules, &[w0, w0b]), MatchNext::Decided(Some(0)));
    }

    #[test]
    fn level_match_goes_to_tiebreaks_then_the_decider() {
        let rules = KnockoutRules::best_of(2);
        let d = |slot, stage| g(slot, stage, GameResult::draw());
        let games = vec![d(0, MatchStage::Regular), d(1, MatchStage::Regular)];
        assert_eq!(
            next_in_match(&rules, &games),
            MatchNext::Play { first_slot: 0, stage: MatchStage::Tiebreak(1), draw_odds: None }
        );
        let mut games = games;
        games.push(d(0, MatchStage::Tiebreak(1)));
        games.push(d(1, MatchStage::Tiebreak(1)));
        // The decider: the lower seed moves first, a draw goes to the higher.
        assert_eq!(
            next_in_match(&rules, &games),
            MatchNext::Play { first_slot: 1, stage: MatchStage::Decider, draw_odds: Some(0) }
        );
        games.push(d(1, MatchStage::Decider));
        assert_eq!(next_in_match(&rules, &games), MatchNext::Decided(Some(0)));
        games.pop();
        games.push(g(1, MatchStage::Decider, GameResult::win(Side::First)));
        assert_eq!(next_in_match(&rules, &games), MatchNext::Decided(Some(1)));
    }

    #[test]
    fn forfeits_decide_the_match() {
        let rules = KnockoutRules::best_of(1);
        let f = g(0, MatchStage::Regular, GameResult::Forfeit { winner: Some(Side::Second) });
        assert_eq!(next_in_match(&rules, &[f]), MatchNext::Decided(Some(1)));
        let none = g(0, MatchStage::Regular, GameResult::Forfeit { winner: None });
        assert_eq!(next_in_match(&rules, &[none]), MatchNext::Decided(None));
    }

    proptest! {
        /// A bracket is complete and seeded: every player appears once in
        /// the first round, byes only meet the top seeds, seed s meets seed
        /// size+1-s, and the top two seeds are in opposite halves (the top
        /// four in different quarters).
        #[test]
        fn bracket_is_complete_and_seeded(n in 2usize..=70) {
            let players: Vec<PlayerId> = (0..n as u32).map(PlayerId).collect();
            let b = Bracket::new(&players, false);
            let size = b.size as usize;
            prop_assert!(size.is_power_of_two() && size >= n && size < 2 * n);
            let mut seen = vec![0; n];
            for m in &b.rounds[0] {
                prop_assert_eq!(m.seeds[0] + m.seeds[1], b.size + 1);
                for (k, slot) in m.slots.iter().enumerate() {
                    match slot {
                        Slot::Player(p) => {
                            seen[p.index()] += 1;
                            prop_assert_eq!(p.0 + 1, m.seeds[k]);
                        }
                        Slot::Empty => {
                            prop_assert!(m.seeds[k] as usize > n);
                            // A bye's opponent is one of the top seeds.
                            prop_assert!((m.seeds[1 - k] as usize) <= size - n);
                        }
                        Slot::Pending => prop_assert!(false, "first round place pending"),
                    }
                }
            }
            prop_assert!(seen.iter().all(|&c| c == 1));
            let pos = |seed: u32| b.rounds[0].iter().position(|m| m.seeds.contains(&seed)).unwrap();
            let half = b.rounds[0].len() / 2;
            if n >= 2 && size >= 2 {
                prop_assert!((pos(1) < half.max(1)) != (pos(2) < half.max(1)) || size == 2);
            }
            if size >= 8 && n >= 4 {
                let quarter = (b.rounds[0].len() / 4).max(1);
                let q: Vec<usize> = (1..=4).map(|s| pos(s) / quarter).collect();
                let mut sorted = q.clone();
                sorted.sort_unstable();
                sorted.dedup();
                prop_assert_eq!(sorted.len(), 4);
            }
        }

        /// Playing out a bracket with random winners always ends with one
        /// champion, who won every match they played.
        #[test]
        fn bracket_plays_to_one_champion(n in 2usize..=40, picks in proptest::collection::vec(any::<bool>(), 64)) {
            let players: Vec<PlayerId> = (0..n as u32).map(PlayerId).collect();
            let mut b = Bracket::new(&players, true);
            b.propagate(0, 0);
            let mut k = 0;
            while !b.is_finished() {
                let refs: Vec<MatchRef> = b.matches().filter(|(_, m)| m.decided.is_none() && m.start_at.is_some()).map(|(r, _)| r).collect();
                prop_assert!(!refs.is_empty(), "stuck");
                for at in refs {
                    b.get_mut(at).unwrap().decided = Some(Some(picks[k % picks.len()] as u8));
                    k += 1;
                }
                b.propagate(0, 0);
            }
            let champion = b.rounds.last().unwrap()[0].winner();
            prop_assert!(champion.is_some());
        }
    }
}
