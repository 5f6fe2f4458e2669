//! The tournament state machine, for every system.
//!
//! A [`Tournament`] is created from a [`Config`], players [`join`], it
//! [`start`]s, and then only three things move it: a game's result
//! ([`record`]), a player leaving ([`withdraw`]) and time passing
//! ([`tick`]). Each returns the [`Event`]s that happened, among them the
//! games to create. It reads no clock and does no I/O: times are
//! milliseconds passed in by the caller, and the whole state serialises
//! with serde, so a server can store it after every call and carry on
//! after a restart.
//!
//! [`join`]: Tournament::join
//! [`start`]: Tournament::start
//! [`record`]: Tournament::record
//! [`withdraw`]: Tournament::withdraw
//! [`tick`]: Tournament::tick

use crate::arena::{pair_waiting, score_game, ArenaPlayer};
use crate::dutch::{self, DutchError};
use crate::knockout::{
    next_in_match, stage_settings, Bracket, KnockoutRules, MatchGame, MatchNext, MatchRef, MatchStage, Slot,
};
use crate::roundrobin::{berger_round, rounds_per_cycle};
use crate::standings::{rank, RoundRecord, Standing, TieBreak};
use crate::swiss::{dutch_input, SwissGame, SwissRound};
use crate::types::{seed_order, Entrant, GameResult, GameSettings, PlayerId, Points, Scoring, Side};
use serde::{Deserialize, Serialize};

/// A game's number in its tournament, from 0.
pub type GameId = u32;

/// The tournament system and its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum System {
    /// Everyone plays everyone, `cycles` times (2: a double round-robin).
    RoundRobin {
        /// How many times each pair meets.
        #[serde(default = "one")]
        cycles: u32,
    },
    /// The FIDE Dutch Swiss system over a fixed number of rounds.
    Swiss {
        /// Rounds to play.
        rounds: u32,
    },
    /// A seeded single-elimination bracket.
    Knockout {
        /// How matches are played and decided.
        #[serde(default)]
        rules: KnockoutRules,
    },
    /// Continuous pairing for a fixed time, scored as lichess arenas.
    Arena {
        /// How long pairing goes on, in milliseconds.
        duration_ms: u64,
    },
    /// Round-robin groups, then the best of each group in a knockout (the
    /// Dots championship).
    Championship {
        /// Number of groups.
        groups: u32,
        /// Players from each group who go on to the knockout.
        advance: u32,
        /// Round-robin cycles in the groups.
        #[serde(default = "one")]
        cycles: u32,
        /// The knockout's match rules.
        #[serde(default)]
        knockout: KnockoutRules,
    },
}

fn one() -> u32 {
    1
}

impl System {
    /// A short name: `round-robin`, `swiss`, `knockout`, `arena`,
    /// `championship`.
    pub fn name(&self) -> &'static str {
        match self {
            System::RoundRobin { .. } => "round-robin",
            System::Swiss { .. } => "swiss",
            System::Knockout { .. } => "knockout",
            System::Arena { .. } => "arena",
            System::Championship { .. } => "championship",
        }
    }

    /// The tie-breaks used when a configuration names none.
    ///
    /// ```
    /// use tabula_tournament::{System, TieBreak};
    /// let swiss = System::Swiss { rounds: 5 }.default_tiebreaks();
    /// assert_eq!(swiss[0], TieBreak::BuchholzCut1);
    /// ```
    pub fn default_tiebreaks(&self) -> Vec<TieBreak> {
        use TieBreak::*;
        match self {
            System::RoundRobin { .. } => vec![DirectEncounter, SonnebornBerger, Wins, ScoreDifference],
            System::Swiss { .. } => {
                vec![BuchholzCut1, Buchholz, SonnebornBerger, DirectEncounter, Wins, ScoreDifference]
            }
            System::Knockout { .. } => vec![],
            System::Arena { .. } => vec![Wins],
            System::Championship { .. } => vec![DirectEncounter, ScoreDifference, SonnebornBerger, Wins],
        }
    }
}

/// Everything that defines a tournament, fixed at creation.
///
/// ```
/// use tabula_tournament::{Config, System};
/// let c = Config::new(System::RoundRobin { cycles: 2 });
/// assert_eq!(c.tiebreaks(), System::RoundRobin { cycles: 2 }.default_tiebreaks());
/// let json = serde_json::to_string(&c).unwrap();
/// assert_eq!(serde_json::from_str::<Config>(&json).unwrap(), c);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// The system.
    pub system: System,
    /// Points per result.
    #[serde(default)]
    pub scoring: Scoring,
    /// Tie-breaks after points; `None` takes the system's defaults.
    #[serde(default)]
    pub tiebreaks: Option<Vec<TieBreak>>,
    /// Extra settings for every game outside knockout matches (round-robin,
    /// Swiss, arena, championship groups).
    #[serde(default)]
    pub settings: GameSettings,
    /// Pause between the end of a round (or a knockout match becoming
    /// ready) and the start of the next, in milliseconds.
    #[serde(default)]
    pub round_pause_ms: u64,
    /// Seed for drawing lots (the first round's colours).
    #[serde(default)]
    pub seed: u64,
    /// The most players who may join.
    #[serde(default)]
    pub max_players: Option<u32>,
}

impl Config {
    /// A configuration with the defaults for `system`.
    pub fn new(system: System) -> Config {
        Config {
            system,
            scoring: Scoring::default(),
            tiebreaks: None,
            settings: GameSettings::default(),
            round_pause_ms: 0,
            seed: 0,
            max_players: None,
        }
    }

    /// The tie-breaks in force.
    pub fn tiebreaks(&self) -> Vec<TieBreak> {
        self.tiebreaks.clone().unwrap_or_else(|| self.system.default_tiebreaks())
    }

    fn check(&self) -> Result<(), TournamentError> {
        let bad = |m: &str| Err(TournamentError::Config(m.to_string()));
        match &self.system {
            System::RoundRobin { cycles } if *cycles == 0 => bad("a round-robin needs at least one cycle"),
            System::Swiss { rounds } if *rounds == 0 => bad("a Swiss tournament needs at least one round"),
            System::Arena { duration_ms } if *duration_ms == 0 => bad("an arena needs a duration"),
            System::Knockout { rules } | System::Championship { knockout: rules, .. } if rules.games == 0 => {
                bad("a knockout match needs at least one game")
            }
            System::Championship { groups, advance, cycles, .. } => {
                if *groups == 0 || *advance == 0 || *cycles == 0 {
                    bad("a championship needs at least one group, one cycle and one player advancing from each group")
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}

/// Why the tournament refused a call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    /// The configuration makes no sense.
    #[error("invalid tournament: {0}")]
    Config(String),
    /// Joining or starting after the start.
    #[error("the tournament has already started")]
    AlreadyStarted,
    /// Acting on a tournament not started yet.
    #[error("the tournament has not started yet")]
    NotStarted,
    /// Acting on a finished tournament.
    #[error("the tournament is over")]
    Finished,
    /// A name already taken.
    #[error("'{0}' has already joined")]
    DuplicateName(String),
    /// An empty name.
    #[error("a player needs a name")]
    EmptyName,
    /// The player limit is reached.
    #[error("the tournament is full ({0} players)")]
    Full(u32),
    /// Too few players to start.
    #[error("a {system} needs at least {needed} players; {have} joined")]
    TooFewPlayers {
        /// The system's name.
        system: &'static str,
        /// Players needed.
        needed: u32,
        /// Players present.
        have: u32,
    },
    /// This system takes no new players once started.
    #[error("players cannot join a {0} once it has started")]
    LateJoin(&'static str),
    /// No such player.
    #[error("no player {0} in this tournament")]
    UnknownPlayer(PlayerId),
    /// The player has already withdrawn.
    #[error("player {0} has withdrawn")]
    Withdrawn(PlayerId),
    /// No such game.
    #[error("no game {0} in this tournament")]
    UnknownGame(GameId),
    /// The game already has a result.
    #[error("game {0} already has a result")]
    AlreadyRecorded(GameId),
}

/// Where the tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Taking entries.
    Registration,
    /// Being played.
    Running,
    /// Over.
    Finished,
}

/// Something that happened; the caller acts on `GameCreated` by creating
/// the game (see [`Tournament::game`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The tournament started.
    Started,
    /// A round began (round-robin, Swiss, championship groups).
    RoundStarted {
        /// The round, from 1.
        round: u32,
    },
    /// A game is to be created and played.
    GameCreated {
        /// The game.
        game: GameId,
    },
    /// A round's games are all over.
    RoundFinished {
        /// The round, from 1.
        round: u32,
    },
    /// The championship's groups are over and its knockout begins.
    KnockoutStarted,
    /// The tournament is over.
    Finished {
        /// Why, when it ended early (e.g. no legal Swiss pairing left).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// A player of the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Who they are.
    pub entrant: Entrant,
    /// Whether they have left (before the start: not entered at all).
    pub withdrawn: bool,
}

/// A game a later round will have, already fixed by the schedule (see
/// [`Tournament::scheduled_games`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// The number the game will get when its round starts.
    pub id: GameId,
    /// Its round (from 1).
    pub round: u32,
    /// Its group (from 0) in a championship's group stage.
    pub group: Option<u32>,
    /// The player who will move first.
    pub first: PlayerId,
    /// The player who will move second.
    pub second: PlayerId,
}

/// A game of the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// Its number.
    pub id: GameId,
    /// The player who moves first.
    pub first: PlayerId,
    /// The player who moves second.
    pub second: PlayerId,
    /// The round (from 1) for round-robin, Swiss and groups; the knockout
    /// round (from 1) for knockout games; 0 in an arena.
    pub round: u32,
    /// The group (from 0) in a championship's group stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    /// The knockout match and the part of it, for knockout games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knockout: Option<(MatchRef, MatchStage)>,
    /// Extra settings over the tournament's options and clock.
    #[serde(default)]
    pub settings: GameSettings,
    /// A draw counts as a win for this side (a knockout decider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_odds: Option<Side>,
    /// When it was created (ms).
    pub created_at: u64,
    /// The result, once reported.
    #[serde(default)]
    pub result: Option<GameResult>,
    /// When the result came (ms).
    #[serde(default)]
    pub finished_at: Option<u64>,
    /// Arena points earned `(first, second)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_points: Option<(Points, Points)>,
}

impl Game {
    /// The side `player` has in this game.
    pub fn side_of(&self, player: PlayerId) -> Option<Side> {
        if self.first == player {
            Some(Side::First)
        } else if self.second == player {
            Some(Side::Second)
        } else {
            None
        }
    }
}

/// Why a player has no game in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByeKind {
    /// The Swiss pairing-allocated bye (odd number of players).
    PairingAllocated,
    /// A round-robin round without a game (odd number of players).
    Rest,
}

/// A bye in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bye {
    /// Who.
    pub player: PlayerId,
    /// Why.
    pub kind: ByeKind,
    /// Points it gives.
    pub points: Points,
}

/// A round of round-robin, Swiss or groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// From 1.
    pub number: u32,
    /// Its games, board by board.
    pub games: Vec<GameId>,
    /// Its byes.
    pub byes: Vec<Bye>,
    /// When it started (ms).
    pub started_at: u64,
    /// When its last game ended (ms).
    pub finished_at: Option<u64>,
    /// `false` if the Swiss search took its best candidate without proving
    /// it optimal (see [`crate::dutch::DutchPairing::exhaustive`]).
    #[serde(default = "yes")]
    pub exhaustive: bool,
}

fn yes() -> bool {
    true
}

/// A tournament: configuration, players, games and progress.
///
/// ```
/// use tabula_tournament::{Config, Entrant, Event, GameResult, Side, System, Tournament};
/// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 1 })).unwrap();
/// for name in ["ann", "bob", "cid"] {
///     t.join(Entrant::new(name)).unwrap();
/// }
/// let events = t.start(0).unwrap();
/// assert!(events.contains(&Event::RoundStarted { round: 1 }));
/// // Three players: three rounds of one game each; play them all.
/// loop {
///     let Some(game) = t.pending_games().next().map(|g| g.id) else { break };
///     t.record(game, GameResult::win(Side::First), 1).unwrap();
/// }
/// assert!(t.is_finished());
/// assert_eq!(t.standings().len(), 3);
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tournament {
    config: Config,
    players: Vec<Player>,
    games: Vec<Game>,
    rounds: Vec<Round>,
    /// Round-robin groups (one for a round-robin), each in seed order.
    groups: Vec<Vec<PlayerId>>,
    bracket: Option<Bracket>,
    arena: Vec<ArenaPlayer>,
    arena_ends_at: Option<u64>,
    status: Status,
    /// Seeding at the start, strongest first.
    seeds: Vec<PlayerId>,
    initial_colour: Side,
    next_round_at: Option<u64>,
    started_at: Option<u64>,
    finished_at: Option<u64>,
    end_reason: Option<String>,
}

impl Tournament {
    /// A new tournament taking entries.
    pub fn new(config: Config) -> Result<Tournament, TournamentError> {
        config.check()?;
        let initial_colour = if config.seed.is_multiple_of(2) { Side::First } else { Side::Second };
        Ok(Tournament {
            config,
            players: Vec::new(),
            games: Vec::new(),
            rounds: Vec::new(),
            groups: Vec::new(),
            bracket: None,
            arena: Vec::new(),
            arena_ends_at: None,
            status: Status::Registration,
            seeds: Vec::new(),
            initial_colour,
            next_round_at: None,
            started_at: None,
            finished_at: None,
            end_reason: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where the tournament is.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether it is over.
    pub fn is_finished(&self) -> bool {
        self.status == Status::Finished
    }

    /// Why it ended early, if it did.
    pub fn end_reason(&self) -> Option<&str> {
        self.end_reason.as_deref()
    }

    /// All players, by [`PlayerId`].
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// A player.
    pub fn player(&self, id: PlayerId) -> Option<&Player> {
        self.players.get(id.index())
    }

    /// All games, by [`GameId`].
    pub fn games(&self) -> &[Game] {
        &self.games
    }

    /// A game.
    pub fn game(&self, id: GameId) -> Option<&Game> {
        self.games.get(id as usize)
    }

    /// Games created and still without a result.
    pub fn pending_games(&self) -> impl Iterator<Item = &Game> {
        self.games.iter().filter(|g| g.result.is_none())
    }

    /// The games of later rounds that are already fixed: the Berger rounds
    /// still to come of a round-robin or of a championship's group stage,
    /// in the order they will be created, each with the [`GameId`] it will
    /// get. Empty for the other systems, whose pairings depend on results.
    ///
    /// A program that plays the games itself may start these early, so a
    /// worker does not wait idle for a round's last game; the tournament
    /// still takes results only for games it has created.
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, System, Tournament};
    /// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 1 })).unwrap();
    /// for name in ["a", "b", "c", "d"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// let later = t.scheduled_games();
    /// // Rounds 2 and 3, two games each, numbered after round 1's games 0 and 1.
    /// assert_eq!(later.len(), 4);
    /// assert_eq!((later[0].id, later[0].round), (2, 2));
    /// assert_eq!((later[3].id, later[3].round), (5, 3));
    /// ```
    pub fn scheduled_games(&self) -> Vec<ScheduledGame> {
        let fixed = matches!(self.config.system, System::RoundRobin { .. } | System::Championship { .. });
        if !fixed || self.status != Status::Running || self.bracket.is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut id = self.games.len() as GameId;
        let after = self.rounds.len() as u32;
        for number in after + 1..=self.total_rounds() {
            for (gi, group) in self.groups.iter().enumerate() {
                let n = group.len() as u32;
                if n < 2 || number > rounds_per_cycle(n) * self.cycles() {
                    continue;
                }
                for (a, b) in berger_round(n, number).pairs {
                    let group = matches!(self.config.system, System::Championship { .. }).then_some(gi as u32);
                    let (first, second) = (self.groups[gi][a as usize - 1], self.groups[gi][b as usize - 1]);
                    out.push(ScheduledGame { id, round: number, group, first, second });
                    id += 1;
                }
            }
        }
        out
    }

    /// The rounds so far (round-robin, Swiss, championship groups).
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    /// The championship's groups (a round-robin has one), in seed order.
    pub fn groups(&self) -> &[Vec<PlayerId>] {
        &self.groups
    }

    /// The knockout bracket, once it exists.
    pub fn bracket(&self) -> Option<&Bracket> {
        self.bracket.as_ref()
    }

    /// Arena state per player (empty for other systems).
    pub fn arena_players(&self) -> &[ArenaPlayer] {
        &self.arena
    }

    /// When the arena stops pairing (ms).
    pub fn arena_ends_at(&self) -> Option<u64> {
        self.arena_ends_at
    }

    /// The seeding fixed at the start, strongest first.
    pub fn seeds(&self) -> &[PlayerId] {
        &self.seeds
    }

    /// The earliest time [`Tournament::tick`] has something to do: a round
    /// or knockout match to start, or the arena's end.
    pub fn next_wakeup(&self) -> Option<u64> {
        if self.status != Status::Running {
            return None;
        }
        let matches = self.bracket.iter().flat_map(|b| {
            b.matches().filter(|(_, m)| m.decided.is_none() && m.games.is_empty()).filter_map(|(_, m)| m.start_at)
        });
        self.next_round_at.into_iter().chain(matches).chain(self.arena_ends_at).min()
    }

    /// Add a player. Before the start for every system; after it only for
    /// Swiss (a late entry, with no points for the rounds missed) and arena.
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, System, Tournament, TournamentError};
    /// let mut t = Tournament::new(Config::new(System::Swiss { rounds: 3 })).unwrap();
    /// let ann = t.join(Entrant::new("ann").rated(1500)).unwrap();
    /// assert_eq!(ann.0, 0);
    /// assert!(matches!(t.join(Entrant::new("ann")), Err(TournamentError::DuplicateName(_))));
    /// ```
    pub fn join(&mut self, entrant: Entrant) -> Result<PlayerId, TournamentError> {
        if entrant.name.trim().is_empty() {
            return Err(TournamentError::EmptyName);
        }
        match self.status {
            Status::Finished => return Err(TournamentError::Finished),
            Status::Running => match self.config.system {
                System::Swiss { .. } | System::Arena { .. } => {}
                ref s => return Err(TournamentError::LateJoin(s.name())),
            },
            Status::Registration => {}
        }
        if self.players.iter().any(|p| p.entrant.name == entrant.name) {
            return Err(TournamentError::DuplicateName(entrant.name));
        }
        let active = self.players.iter().filter(|p| !p.withdrawn).count() as u32;
        if let Some(max) = self.config.max_players {
            if active >= max {
                return Err(TournamentError::Full(max));
            }
        }
        let id = PlayerId(self.players.len() as u32);
        self.players.push(Player { entrant, withdrawn: false });
        if self.status == Status::Running {
            self.seeds.push(id);
            if matches!(self.config.system, System::Arena { .. }) {
                self.arena.push(ArenaPlayer { active: true, ..Default::default() });
            }
        }
        Ok(id)
    }

    /// A player leaves. Before the start they are simply not entered.
    /// Afterwards: round-robin and group games against them become forfeit
    /// wins for their opponents; Swiss and arena stop pairing them; in a
    /// knockout they lose their match. A game of theirs still being played
    /// keeps going until its result is recorded (the server resigns it).
    ///
    /// ```
    /// use tabula_tournament::knockout::KnockoutRules;
    /// use tabula_tournament::{Config, Entrant, Event, PlayerId, System, Tournament};
    /// let mut t = Tournament::new(Config::new(System::Knockout { rules: KnockoutRules::best_of(1) })).unwrap();
    /// for name in ["a", "b", "c", "d"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// // "d" leaves: "a" goes through to the final without finishing their game.
    /// t.withdraw(PlayerId(3), 10).unwrap();
    /// let semi = &t.bracket().unwrap().rounds[0][0];
    /// assert_eq!(semi.winner(), Some(PlayerId(0)));
    /// ```
    pub fn withdraw(&mut self, player: PlayerId, now: u64) -> Result<Vec<Event>, TournamentError> {
        let p = self.players.get_mut(player.index()).ok_or(TournamentError::UnknownPlayer(player))?;
        if p.withdrawn {
            return Err(TournamentError::Withdrawn(player));
        }
        if self.status == Status::Finished {
            return Err(TournamentError::Finished);
        }
        p.withdrawn = true;
        let mut events = Vec::new();
        if self.status != Status::Running {
            return Ok(events);
        }
        if let Some(a) = self.arena.get_mut(player.index()) {
            a.active = false;
        }
        if let Some(bracket) = self.bracket.as_mut() {
            let open: Vec<MatchRef> = bracket
                .matches()
                .filter(|(_, m)| m.decided.is_none() && m.slots.contains(&Slot::Player(player)))
                .map(|(r, _)| r)
                .collect();
            for at in open {
                let m = bracket.get_mut(at).expect("match exists");
                let mine = if m.slots[0] == Slot::Player(player) { 0 } else { 1 };
                m.decided = Some(Some(1 - mine));
            }
            self.advance_bracket(now, &mut events);
        }
        if matches!(self.config.system, System::Arena { .. }) {
            self.arena_step(now, &mut events);
        }
        Ok(events)
    }

    /// Let a withdrawn arena player back in (arena only).
    pub fn rejoin(&mut self, player: PlayerId, now: u64) -> Result<Vec<Event>, TournamentError> {
        if !matches!(self.config.system, System::Arena { .. }) {
            return Err(TournamentError::LateJoin(self.config.system.name()));
        }
        let p = self.players.get_mut(player.index()).ok_or(TournamentError::UnknownPlayer(player))?;
        p.withdrawn = false;
        let mut events = Vec::new();
        if self.status == Status::Running {
            self.arena[player.index()].active = true;
            self.arena_step(now, &mut events);
        }
        Ok(events)
    }

    /// Start: seed the players, make the first round (or bracket, or arena
    /// pairings).
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, Event, System, Tournament};
    /// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 1 })).unwrap();
    /// for name in ["a", "b", "c", "d"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// let events = t.start(0).unwrap();
    /// assert_eq!(events[0], Event::Started);
    /// assert_eq!(events[1], Event::RoundStarted { round: 1 });
    /// assert_eq!(t.pending_games().count(), 2);
    /// ```
    pub fn start(&mut self, now: u64) -> Result<Vec<Event>, TournamentError> {
        match self.status {
            Status::Running => return Err(TournamentError::AlreadyStarted),
            Status::Finished => return Err(TournamentError::Finished),
            Status::Registration => {}
        }
        let entrants: Vec<Entrant> = self.players.iter().map(|p| p.entrant.clone()).collect();
        self.seeds = seed_order(&entrants)
            .into_iter()
            .map(|i| PlayerId(i as u32))
            .filter(|p| !self.players[p.index()].withdrawn)
            .collect();
        let have = self.seeds.len() as u32;
        let needed = match &self.config.system {
            System::Championship { groups, advance, .. } => (groups * advance.max(&2)).max(2),
            _ => 2,
        };
        if have < needed {
            return Err(TournamentError::TooFewPlayers { system: self.config.system.name(), needed, have });
        }
        self.status = Status::Running;
        self.started_at = Some(now);
        let mut events = vec![Event::Started];
        match self.config.system.clone() {
            System::RoundRobin { .. } => {
                self.groups = vec![self.seeds.clone()];
                self.start_round(now, &mut events);
            }
            System::Championship { groups, .. } => {
                self.groups = snake_groups(&self.seeds, groups as usize);
                self.start_round(now, &mut events);
            }
            System::Swiss { .. } => self.start_round(now, &mut events),
            System::Knockout { rules } => {
                self.bracket = Some(Bracket::new(&self.seeds, rules.third_place));
                self.advance_bracket(now, &mut events);
            }
            System::Arena { duration_ms } => {
                self.arena = vec![ArenaPlayer::default(); self.players.len()];
                for &p in &self.seeds {
                    self.arena[p.index()].active = true;
                }
                self.arena_ends_at = Some(now + duration_ms);
                self.arena_step(now, &mut events);
            }
        }
        Ok(events)
    }

    /// Record a game's result.
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, Event, GameResult, Side, System, Tournament, TournamentError};
    /// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 1 })).unwrap();
    /// for name in ["a", "b"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// let events = t.record(0, GameResult::win(Side::First).with_margin(5), 1_000).unwrap();
    /// assert!(events.contains(&Event::Finished { reason: None }));
    /// assert_eq!(t.record(0, GameResult::draw(), 2_000), Err(TournamentError::Finished));
    /// ```
    pub fn record(&mut self, game: GameId, result: GameResult, now: u64) -> Result<Vec<Event>, TournamentError> {
        if self.status != Status::Running {
            return Err(if self.status == Status::Finished {
                TournamentError::Finished
            } else {
                TournamentError::NotStarted
            });
        }
        let g = self.games.get_mut(game as usize).ok_or(TournamentError::UnknownGame(game))?;
        if g.result.is_some() {
            return Err(TournamentError::AlreadyRecorded(game));
        }
        g.result = Some(result);
        g.finished_at = Some(now);
        let g = g.clone();
        let mut events = Vec::new();
        if let Some((at, _)) = g.knockout {
            let bracket = self.bracket.as_mut().expect("knockout game without a bracket");
            let m = bracket.get_mut(at).expect("match exists");
            if let Some(entry) = m.games.iter_mut().find(|(id, _)| *id == game) {
                entry.1.result = Some(result);
            }
            self.advance_bracket(now, &mut events);
        } else if matches!(self.config.system, System::Arena { .. }) {
            let (a, b) = (g.first.index(), g.second.index());
            let (mut pa, mut pb) = (self.arena[a].clone(), self.arena[b].clone());
            let points = score_game(&mut pa, &mut pb, &result);
            pa.playing = false;
            pb.playing = false;
            self.arena[a] = pa;
            self.arena[b] = pb;
            self.games[game as usize].arena_points = Some(points);
            self.arena_step(now, &mut events);
        } else {
            self.after_round_game(now, &mut events);
        }
        Ok(events)
    }

    /// Let time pass: start a round or match whose pause is over, end the
    /// arena.
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, Event, GameResult, Side, System, Tournament};
    /// let mut config = Config::new(System::Swiss { rounds: 2 });
    /// config.round_pause_ms = 60_000;
    /// let mut t = Tournament::new(config).unwrap();
    /// for name in ["a", "b", "c", "d"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// t.record(0, GameResult::draw(), 500).unwrap();
    /// t.record(1, GameResult::win(Side::First), 1_000).unwrap();
    /// // Round 2 starts a minute after round 1 ended.
    /// assert_eq!(t.next_wakeup(), Some(61_000));
    /// assert!(t.tick(30_000).is_empty());
    /// assert!(t.tick(61_000).contains(&Event::RoundStarted { round: 2 }));
    /// ```
    pub fn tick(&mut self, now: u64) -> Vec<Event> {
        let mut events = Vec::new();
        if self.status != Status::Running {
            return events;
        }
        if self.next_round_at.is_some_and(|t| t <= now) {
            self.next_round_at = None;
            self.start_round(now, &mut events);
        }
        if self.bracket.is_some() {
            self.advance_bracket(now, &mut events);
        }
        if matches!(self.config.system, System::Arena { .. }) {
            self.arena_step(now, &mut events);
        }
        events
    }

    fn finish(&mut self, now: u64, reason: Option<String>, events: &mut Vec<Event>) {
        self.status = Status::Finished;
        self.finished_at = Some(now);
        self.next_round_at = None;
        self.end_reason = reason.clone();
        events.push(Event::Finished { reason });
    }

    fn new_game(
        &mut self,
        first: PlayerId,
        second: PlayerId,
        round: u32,
        settings: GameSettings,
        now: u64,
        events: &mut Vec<Event>,
    ) -> GameId {
        let id = self.games.len() as GameId;
        self.games.push(Game {
            id,
            first,
            second,
            round,
            group: None,
            knockout: None,
            settings,
            draw_odds: None,
            created_at: now,
            result: None,
            finished_at: None,
            arena_points: None,
        });
        // A game against a withdrawn player is a forfeit at once.
        let (wa, wb) = (self.players[first.index()].withdrawn, self.players[second.index()].withdrawn);
        if wa || wb {
            let winner = match (wa, wb) {
                (true, false) => Some(Side::Second),
                (false, true) => Some(Side::First),
                _ => None,
            };
            self.games[id as usize].result = Some(GameResult::Forfeit { winner });
            self.games[id as usize].finished_at = Some(now);
        } else {
            events.push(Event::GameCreated { game: id });
        }
        id
    }

    /// Total rounds of a round-based system.
    fn total_rounds(&self) -> u32 {
        match &self.config.system {
            System::Swiss { rounds } => *rounds,
            System::RoundRobin { cycles } | System::Championship { cycles, .. } => {
                self.groups.iter().map(|g| rounds_per_cycle(g.len() as u32)).max().unwrap_or(0) * cycles
            }
            _ => 0,
        }
    }

    fn start_round(&mut self, now: u64, events: &mut Vec<Event>) {
        let number = self.rounds.len() as u32 + 1;
        let mark = events.len();
        let mut round =
            Round { number, games: Vec::new(), byes: Vec::new(), started_at: now, finished_at: None, exhaustive: true };
        match self.config.system.clone() {
            System::RoundRobin { .. } | System::Championship { .. } => {
                let settings = self.config.settings.clone();
                for (gi, group) in self.groups.clone().iter().enumerate() {
                    let n = group.len() as u32;
                    if n < 2 || number > rounds_per_cycle(n) * self.cycles() {
                        continue;
                    }
                    let r = berger_round(n, number);
                    for (a, b) in r.pairs {
                        let (first, second) = (group[a as usize - 1], group[b as usize - 1]);
                        let id = self.new_game(first, second, number, settings.clone(), now, events);
                        if matches!(self.config.system, System::Championship { .. }) {
                            self.games[id as usize].group = Some(gi as u32);
                        }
                        round.games.push(id);
                    }
                    if let Some(b) = r.bye {
                        round.byes.push(Bye {
                            player: group[b as usize - 1],
                            kind: ByeKind::Rest,
                            points: Points::ZERO,
                        });
                    }
                }
            }
            System::Swiss { rounds } => {
                let seeds = seed_order(&self.players.iter().map(|p| p.entrant.clone()).collect::<Vec<_>>());
                let to_pair: Vec<usize> = seeds.iter().copied().filter(|&i| !self.players[i].withdrawn).collect();
                if to_pair.len() < 2 {
                    self.finish(now, Some("fewer than two players are left".into()), events);
                    return;
                }
                let history = self.swiss_history();
                let input = dutch_input(&seeds, &history, &to_pair, &self.config.scoring, rounds, self.initial_colour);
                match dutch::pair(&input) {
                    Ok(pairing) => {
                        round.exhaustive = pairing.exhaustive;
                        let settings = self.config.settings.clone();
                        for (a, b) in pairing.pairs {
                            let id = self.new_game(PlayerId(a), PlayerId(b), number, settings.clone(), now, events);
                            round.games.push(id);
                        }
                        if let Some(b) = pairing.bye {
                            round.byes.push(Bye {
                                player: PlayerId(b),
                                kind: ByeKind::PairingAllocated,
                                points: self.config.scoring.bye,
                            });
                        }
                    }
                    Err(e @ (DutchError::Impossible | DutchError::TooHard(_) | DutchError::Duplicate(_))) => {
                        self.finish(now, Some(format!("round {number} cannot be paired: {e}")), events);
                        return;
                    }
                }
            }
            _ => return,
        }
        events.insert(mark, Event::RoundStarted { round: number });
        self.rounds.push(round);
        // A round of forfeits only (everyone else withdrawn) is over at once.
        self.after_round_game(now, events);
    }

    fn cycles(&self) -> u32 {
        match &self.config.system {
            System::RoundRobin { cycles } | System::Championship { cycles, .. } => *cycles,
            _ => 1,
        }
    }

    /// After a game of a round-based system: close the round if it is done
    /// and move on.
    fn after_round_game(&mut self, now: u64, events: &mut Vec<Event>) {
        let Some(round) = self.rounds.last() else { return };
        if self.status != Status::Running
            || round.finished_at.is_some()
            || round.games.iter().any(|&g| self.games[g as usize].result.is_none())
        {
            return;
        }
        let number = round.number;
        self.rounds.last_mut().unwrap().finished_at = Some(now);
        events.push(Event::RoundFinished { round: number });
        if number < self.total_rounds() {
            if self.config.round_pause_ms == 0 {
                self.start_round(now, events);
            } else {
                self.next_round_at = Some(now + self.config.round_pause_ms);
            }
            return;
        }
        match self.config.system.clone() {
            System::Championship { advance, knockout, .. } => {
                let qualified = self.qualifiers(advance as usize);
                self.bracket = Some(Bracket::new(&qualified, knockout.third_place));
                events.push(Event::KnockoutStarted);
                self.advance_bracket(now, events);
            }
            _ => self.finish(now, None, events),
        }
    }

    fn knockout_rules(&self) -> Option<&KnockoutRules> {
        match &self.config.system {
            System::Knockout { rules } => Some(rules),
            System::Championship { knockout, .. } => Some(knockout),
            _ => None,
        }
    }

    /// Settle walkovers, start matches whose pause is over, and create the
    /// next game of every match that needs one.
    fn advance_bracket(&mut self, now: u64, events: &mut Vec<Event>) {
        let Some(rules) = self.knockout_rules().cloned() else { return };
        let pause = self.config.round_pause_ms;
        loop {
            self.bracket.as_mut().expect("bracket").propagate(now, pause);
            let mut created = false;
            let refs: Vec<MatchRef> = self.bracket.as_ref().unwrap().matches().map(|(r, _)| r).collect();
            for at in refs {
                let (m, rounds) = {
                    let b = self.bracket.as_ref().unwrap();
                    (b.get(at).unwrap().clone(), b.rounds.len() as u32)
                };
                if m.decided.is_some() || m.start_at.is_none_or(|t| t > now) {
                    continue;
                }
                match next_in_match(&rules, &m.match_games()) {
                    MatchNext::Waiting => {}
                    MatchNext::Decided(winner) => {
                        self.bracket.as_mut().unwrap().get_mut(at).unwrap().decided = Some(winner);
                        created = true;
                    }
                    MatchNext::Play { first_slot, stage, draw_odds } => {
                        let players = [m.slots[0].player().unwrap(), m.slots[1].player().unwrap()];
                        let (first, second) = (players[first_slot as usize], players[1 - first_slot as usize]);
                        let round = match at {
                            MatchRef::Round { round, .. } => round + 1,
                            MatchRef::ThirdPlace => rounds,
                        };
                        let settings = stage_settings(&rules, stage).clone();
                        let id = self.new_game(first, second, round, settings, now, events);
                        let game = &mut self.games[id as usize];
                        game.knockout = Some((at, stage));
                        game.draw_odds =
                            draw_odds.map(|slot| if slot == first_slot { Side::First } else { Side::Second });
                        let view = MatchGame { first_slot, stage, result: game.result };
                        self.bracket.as_mut().unwrap().get_mut(at).unwrap().games.push((id, view));
                        created = true;
                    }
                }
            }
            if !created {
                break;
            }
        }
        if self.bracket.as_ref().is_some_and(|b| b.is_finished()) {
            self.finish(now, None, events);
        }
    }

    /// Pair waiting arena players, or end the arena when its time is up
    /// and its last games are over.
    fn arena_step(&mut self, now: u64, events: &mut Vec<Event>) {
        if self.status != Status::Running {
            return;
        }
        let ends = self.arena_ends_at.unwrap_or(u64::MAX);
        if now >= ends {
            if self.pending_games().next().is_none() {
                self.finish(now, None, events);
            }
            return;
        }
        let ranked = self.arena_ranking();
        let pairs = pair_waiting(&self.arena, &ranked);
        let settings = self.config.settings.clone();
        for (a, b) in pairs {
            let id = self.new_game(a, b, 0, settings.clone(), now, events);
            let _ = id;
            for (p, o, delta) in [(a, b, 1), (b, a, -1)] {
                let s = &mut self.arena[p.index()];
                s.playing = true;
                s.last_opponent = Some(o);
                s.colour_balance += delta;
            }
        }
    }

    /// Arena players by points, then seeding.
    fn arena_ranking(&self) -> Vec<PlayerId> {
        let mut order = self.seeds.clone();
        order.sort_by_key(|p| std::cmp::Reverse(self.arena[p.index()].points));
        order
    }

    /// The Swiss rounds so far in the pairing module's terms.
    fn swiss_history(&self) -> Vec<SwissRound> {
        self.rounds
            .iter()
            .map(|r| SwissRound {
                games: r
                    .games
                    .iter()
                    .map(|&g| {
                        let game = &self.games[g as usize];
                        SwissGame {
                            first: game.first.index(),
                            second: game.second.index(),
                            result: game.result.unwrap_or(GameResult::Forfeit { winner: None }),
                        }
                    })
                    .collect(),
                bye: r.byes.iter().find(|b| b.kind == ByeKind::PairingAllocated).map(|b| b.player.index()),
                absent: Vec::new(),
            })
            .collect()
    }

    /// Each player's record, round by round (round-based systems) or game
    /// by game (arena).
    pub fn records(&self) -> Vec<Vec<RoundRecord>> {
        let mut records = vec![Vec::new(); self.players.len()];
        let scoring = &self.config.scoring;
        let record_of = |g: &Game, p: PlayerId, points: Points| -> RoundRecord {
            let side = g.side_of(p).expect("player in game");
            let result = g.result.expect("finished game");
            let (opp, won, drawn) = (
                if side == Side::First { g.second } else { g.first },
                result.was_played() && result.winner() == Some(side),
                result.was_played() && result.winner().is_none(),
            );
            RoundRecord {
                opponent: Some(opp),
                side: Some(side),
                points,
                played: result.was_played(),
                won,
                drawn,
                margin: result.margin_for(side),
            }
        };
        if matches!(self.config.system, System::Arena { .. } | System::Knockout { .. }) {
            for g in self.games.iter().filter(|g| g.result.is_some()) {
                let result = g.result.unwrap();
                let (a, b) = g
                    .arena_points
                    .unwrap_or_else(|| (scoring.points(&result, Side::First), scoring.points(&result, Side::Second)));
                records[g.first.index()].push(record_of(g, g.first, a));
                records[g.second.index()].push(record_of(g, g.second, b));
            }
            return records;
        }
        for round in &self.rounds {
            let mut seen = vec![false; self.players.len()];
            for &gid in &round.games {
                let g = &self.games[gid as usize];
                if let Some(result) = g.result {
                    for p in [g.first, g.second] {
                        let side = g.side_of(p).unwrap();
                        records[p.index()].push(record_of(g, p, scoring.points(&result, side)));
                        seen[p.index()] = true;
                    }
                }
            }
            for b in &round.byes {
                records[b.player.index()].push(RoundRecord::unplayed(b.points));
                seen[b.player.index()] = true;
            }
            // Absent (withdrawn, not yet entered, not paired): no points.
            if round.finished_at.is_some() {
                for (i, s) in seen.iter().enumerate() {
                    if !s && self.in_round_system(PlayerId(i as u32), round) {
                        records[i].push(RoundRecord::unplayed(Points::ZERO));
                    }
                }
            }
        }
        records
    }

    /// Whether an unpaired player counts as absent from `round` (Swiss: any
    /// player entered; groups: only members of a group playing that round).
    fn in_round_system(&self, p: PlayerId, round: &Round) -> bool {
        match self.config.system {
            System::Swiss { .. } => self.seeds.contains(&p),
            _ => self
                .groups
                .iter()
                .any(|g| g.contains(&p) && round.number <= rounds_per_cycle(g.len() as u32) * self.cycles()),
        }
    }

    /// The standings now (final once the tournament is over).
    ///
    /// Round-robin, Swiss and arena rank by points and the tie-breaks;
    /// knockout ranks by how far players went (the champion 1, the other
    /// finalist 2, the semifinal losers 3 — or 3 and 4 after a third-place
    /// match — then 5, 9, ...); a championship ranks its knockout players
    /// that way and everyone else after them, by group place, then points.
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, GameResult, PlayerId, Points, Side, System, Tournament};
    /// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 1 })).unwrap();
    /// for name in ["a", "b"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// t.record(0, GameResult::win(Side::Second), 1).unwrap();
    /// let table = t.standings();
    /// assert_eq!((table[0].player, table[0].points), (PlayerId(1), Points::ONE));
    /// ```
    pub fn standings(&self) -> Vec<Standing> {
        let tiebreaks = self.config.tiebreaks();
        let records = self.records();
        let entered: Vec<PlayerId> = if self.seeds.is_empty() {
            (0..self.players.len() as u32).map(PlayerId).filter(|p| !self.players[p.index()].withdrawn).collect()
        } else {
            self.seeds.clone()
        };
        match &self.config.system {
            System::Knockout { .. } => self.knockout_standings(&records, &entered, &tiebreaks),
            System::Championship { .. } if self.bracket.is_some() => {
                let qualified: Vec<PlayerId> = self.bracket.as_ref().unwrap().seeding.iter().map(|(p, _)| *p).collect();
                let mut out = self.knockout_standings(&records, &qualified, &tiebreaks);
                let mut rest: Vec<(u32, Points, usize, PlayerId)> = Vec::new();
                for group in self.group_standings() {
                    for (pos, s) in group.iter().enumerate() {
                        if !qualified.contains(&s.player) {
                            rest.push((
                                pos as u32,
                                s.points,
                                self.seeds.iter().position(|p| *p == s.player).unwrap_or(0),
                                s.player,
                            ));
                        }
                    }
                }
                rest.sort_by_key(|&(pos, pts, seed, _)| (pos, std::cmp::Reverse(pts), seed));
                let base = out.len() as u32;
                let mut prev: Option<(u32, Points)> = None;
                let mut rank = base;
                for (k, (pos, pts, _, p)) in rest.into_iter().enumerate() {
                    if prev != Some((pos, pts)) {
                        rank = base + k as u32 + 1;
                    }
                    prev = Some((pos, pts));
                    let mut s = rank_one(&records, p, &tiebreaks);
                    s.rank = rank;
                    out.push(s);
                }
                out
            }
            _ => rank(&records, &entered, &tiebreaks),
        }
    }

    /// Each group's standings (championship and round-robin).
    pub fn group_standings(&self) -> Vec<Vec<Standing>> {
        let records = self.records();
        let tiebreaks = self.config.tiebreaks();
        self.groups.iter().map(|g| rank(&records, g, &tiebreaks)).collect()
    }

    /// The knockout qualifiers of the groups, seeded: all group winners
    /// first (better points and tie-breaks first), then all runners-up and
    /// so on; first-round opponents from the same group are swapped apart
    /// where possible.
    fn qualifiers(&self, advance: usize) -> Vec<PlayerId> {
        let tables = self.group_standings();
        let mut seeded = Vec::new();
        for pos in 0..advance {
            let mut tier: Vec<&Standing> = tables.iter().filter_map(|t| t.get(pos)).collect();
            tier.sort_by(|a, b| {
                b.points.cmp(&a.points).then_with(|| {
                    for (x, y) in a.tiebreaks.iter().zip(&b.tiebreaks) {
                        let o = y.partial_cmp(x).unwrap_or(std::cmp::Ordering::Equal);
                        if o.is_ne() {
                            return o;
                        }
                    }
                    std::cmp::Ordering::Equal
                })
            });
            seeded.extend(tier.iter().map(|s| s.player));
        }
        let group_of = |p: PlayerId| self.groups.iter().position(|g| g.contains(&p));
        separate_groups(&mut seeded, group_of);
        seeded
    }

    fn knockout_standings(
        &self,
        records: &[Vec<RoundRecord>],
        players: &[PlayerId],
        tiebreaks: &[TieBreak],
    ) -> Vec<Standing> {
        let Some(bracket) = &self.bracket else {
            return rank(records, players, tiebreaks);
        };
        let rounds = bracket.rounds.len() as u32;
        // Depth: how far each player went; higher is better.
        let mut depth: Vec<(u32, PlayerId)> = players
            .iter()
            .map(|&p| {
                let mut d = 0;
                for (at, m) in bracket.matches() {
                    if let MatchRef::Round { round, .. } = at {
                        if m.slots.contains(&Slot::Player(p)) {
                            let won = m.winner() == Some(p);
                            d = d.max(2 * (round + 1) + u32::from(won));
                        }
                    }
                }
                if let Some(third) = &bracket.third_place {
                    if third.winner() == Some(p) {
                        d += 1;
                    }
                }
                (d, p)
            })
            .collect();
        let seed_pos = |p: PlayerId| bracket.seed_of(p);
        depth.sort_by_key(|&(d, p)| (std::cmp::Reverse(d), seed_pos(p)));
        let _ = rounds;
        let mut out = Vec::new();
        let mut prev = None;
        let mut rank_now = 1;
        for (k, (d, p)) in depth.into_iter().enumerate() {
            if prev != Some(d) {
                rank_now = k as u32 + 1;
            }
            prev = Some(d);
            let mut s = rank_one(records, p, tiebreaks);
            s.rank = rank_now;
            out.push(s);
        }
        out
    }

    /// Points each player scored against each other: `(points, games)` of
    /// the row player against the column player, indexed by [`PlayerId`].
    ///
    /// ```
    /// use tabula_tournament::{Config, Entrant, GameResult, Points, System, Tournament};
    /// let mut t = Tournament::new(Config::new(System::RoundRobin { cycles: 2 })).unwrap();
    /// for name in ["a", "b"] {
    ///     t.join(Entrant::new(name)).unwrap();
    /// }
    /// t.start(0).unwrap();
    /// t.record(0, GameResult::draw(), 1).unwrap();
    /// t.record(1, GameResult::draw(), 2).unwrap();
    /// assert_eq!(t.crosstable()[0][1], (Points::ONE, 2));
    /// ```
    pub fn crosstable(&self) -> Vec<Vec<(Points, u32)>> {
        let n = self.players.len();
        let mut table = vec![vec![(Points::ZERO, 0u32); n]; n];
        for g in &self.games {
            let Some(result) = g.result else { continue };
            let (a, b) = (g.first.index(), g.second.index());
            let (pa, pb) = match g.arena_points {
                Some(points) => points,
                None => (
                    self.config.scoring.points(&result, Side::First),
                    self.config.scoring.points(&result, Side::Second),
                ),
            };
            table[a][b].0 += pa;
            table[a][b].1 += 1;
            table[b][a].0 += pb;
            table[b][a].1 += 1;
        }
        table
    }
}

/// One player's standing line without ranking (rank 0).
fn rank_one(records: &[Vec<RoundRecord>], p: PlayerId, tiebreaks: &[TieBreak]) -> Standing {
    let mut s = rank(records, &[p], tiebreaks).remove(0);
    s.rank = 0;
    s
}

/// Split seeded players into `groups` groups by the snake (serpentine)
/// system: 1, 2, 3, 4 to groups A, B, C, D, then 5, 6, 7, 8 to D, C, B, A.
///
/// ```
/// use tabula_tournament::tournament::snake_groups;
/// use tabula_tournament::PlayerId;
/// let seeds: Vec<PlayerId> = (0..8).map(PlayerId).collect();
/// let g = snake_groups(&seeds, 2);
/// assert_eq!(g[0], vec![PlayerId(0), PlayerId(3), PlayerId(4), PlayerId(7)]);
/// assert_eq!(g[1], vec![PlayerId(1), PlayerId(2), PlayerId(5), PlayerId(6)]);
/// ```
pub fn snake_groups(seeds: &[PlayerId], groups: usize) -> Vec<Vec<PlayerId>> {
    let groups = groups.clamp(1, seeds.len().max(1));
    let mut out = vec![Vec::new(); groups];
    for (i, &p) in seeds.iter().enumerate() {
        let row = i / groups;
        let col = i % groups;
        let g = if row.is_multiple_of(2) { col } else { groups - 1 - col };
        out[g].push(p);
    }
    out
}

/// Reorder seeded qualifiers so that no first-round pair of the bracket
/// comes from one group, swapping a player with the nearest lower-seeded
/// one that fixes it.
fn separate_groups(seeded: &mut [PlayerId], group_of: impl Fn(PlayerId) -> Option<usize>) {
    let n = seeded.len();
    if n < 2 {
        return;
    }
    let size = (n as u32).next_power_of_two();
    let order = crate::knockout::bracket_order(size);
    // First-round pairs as seed indices (0-based), byes left out.
    let pairs: Vec<(usize, usize)> =
        order.chunks(2).map(|c| (c[0] as usize - 1, c[1] as usize - 1)).filter(|&(a, b)| a < n && b < n).collect();
    for _ in 0..n {
        let clash =
            pairs.iter().find(|&&(a, b)| group_of(seeded[a]) == group_of(seeded[b]) && group_of(seeded[a]).is_some());
        let Some(&(a, b)) = clash else { return };
        let lower = a.max(b);
        // Swap the lower seed with another lower seed whose swap removes
        // this clash and creates none.
        let mut fixed = false;
        let mut others: Vec<usize> = (0..n).filter(|&o| o != a && o != b).collect();
        // The nearest seeds first, lower seeds before higher ones.
        others.sort_by_key(|&o| (o.abs_diff(lower), o < lower));
        for other in others {
            seeded.swap(lower, other);
            let clashes = pairs.iter().filter(|&&(x, y)| group_of(seeded[x]) == group_of(seeded[y])).count();
            let before = {
                seeded.swap(lower, other);
                let c = pairs.iter().filter(|&&(x, y)| group_of(seeded[x]) == group_of(seeded[y])).count();
                seeded.swap(lower, other);
                c
            };
            if clashes < before {
                fixed = true;
                break;
            }
            seeded.swap(lower, other);
        }
        if !fixed {
            return;
        }
    }
}
