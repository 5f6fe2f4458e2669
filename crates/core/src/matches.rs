//! A match: a game state under a clock, with resignation and draw offers.
//! Pure and time-injected like [`Clock`], so the CLI, the server and tests
//! share it.

use crate::clock::{Clock, ClockEvent, TimeControl};
use crate::dynamic::DynState;
use crate::error::MoveError;
use crate::game::{Player, Status, ThinkContext};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How a match ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchResult {
    /// `None` is a draw.
    pub winner: Option<Player>,
    /// How it ended, e.g. `x ran out of time`.
    pub reason: String,
}

/// Why a move was not accepted by a match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// The move itself was refused.
    #[error(transparent)]
    Move(MoveError),
    /// The match is already over.
    #[error("the game is over ({})", .0.reason)]
    Finished(MatchResult),
    /// Time had run out before the move arrived; the match is now over.
    #[error("time ran out before the move ({})", .0.reason)]
    TimeUp(MatchResult),
}

/// A game under a clock.
pub struct Match {
    /// The game.
    pub state: Box<dyn DynState>,
    /// Its clock.
    pub clock: Clock,
    /// How the match ended, once it has.
    pub result: Option<MatchResult>,
}

impl Match {
    /// A match on `state`; the clock starts at `now`.
    pub fn new(state: Box<dyn DynState>, control: TimeControl, now: u64) -> Match {
        let mut clock = Clock::new(control, state.to_move());
        let result = Self::rules_result(state.as_ref());
        if result.is_none() {
            clock.start(now);
        }
        Match { state, clock, result }
    }

    fn rules_result(state: &dyn DynState) -> Option<MatchResult> {
        match state.status() {
            Status::Ongoing => None,
            Status::Over(o) => Some(MatchResult { winner: o.winner, reason: o.reason.to_string() }),
        }
    }

    fn finish(&mut self, result: MatchResult, now: u64) -> MatchResult {
        self.clock.pause(now);
        self.result = Some(result.clone());
        result
    }

    /// Apply whatever time has done by `now`. Returns the result if the
    /// match ended just now.
    pub fn tick(&mut self, now: u64) -> Option<MatchResult> {
        if self.result.is_some() {
            return None;
        }
        let event = self.clock.check(now)?;
        Some(self.on_time_event(event, now)).flatten()
    }

    fn on_time_event(&mut self, event: ClockEvent, now: u64) -> Option<MatchResult> {
        let players = self.state.players();
        match event {
            ClockEvent::Flag { player } => {
                let reason = format!("{} ran out of time", players[player.index()]);
                Some(self.finish(MatchResult { winner: Some(player.other()), reason }, now))
            }
            ClockEvent::MatchTimeUp { overtime } => match self.state.tiebreak() {
                Some(w) => {
                    let reason = if overtime { "tie-breaker after overtime" } else { "tie-breaker at time" };
                    Some(self.finish(MatchResult { winner: Some(w), reason: reason.into() }, now))
                }
                None if !overtime && self.clock.start_overtime(now) => None,
                None => {
                    let reason = if overtime { "level after overtime" } else { "level at time" };
                    Some(self.finish(MatchResult { winner: None, reason: reason.into() }, now))
                }
            },
        }
    }

    /// Play a move at `now` for the player on move.
    pub fn play(&mut self, text: &str, now: u64) -> Result<(), MatchError> {
        if let Some(r) = &self.result {
            return Err(MatchError::Finished(r.clone()));
        }
        if let Some(ev) = self.clock.check(now) {
            if let Some(r) = self.on_time_event(ev, now) {
                return Err(MatchError::TimeUp(r));
            }
        }
        // Check legality first so a refused move costs no clock change.
        self.state.check(text).map_err(MatchError::Move)?;
        if let Err(ev) = self.clock.on_move(now) {
            // Unreachable after the check above, but stay safe.
            let r = self.on_time_event(ev, now).unwrap_or(MatchResult { winner: None, reason: "time".into() });
            return Err(MatchError::TimeUp(r));
        }
        self.state.play(text).map_err(MatchError::Move)?;
        if let Some(r) = Self::rules_result(self.state.as_ref()) {
            self.finish(r, now);
        }
        Ok(())
    }

    /// `p` resigns.
    pub fn resign(&mut self, p: Player, now: u64) -> Option<MatchResult> {
        if self.result.is_some() {
            return None;
        }
        let reason = format!("{} resigned", self.state.players()[p.index()]);
        Some(self.finish(MatchResult { winner: Some(p.other()), reason }, now))
    }

    /// Both players agreed to a draw.
    pub fn agree_draw(&mut self, now: u64) -> Option<MatchResult> {
        if self.result.is_some() {
            return None;
        }
        Some(self.finish(MatchResult { winner: None, reason: "draw agreed".into() }, now))
    }

    /// Apply every time event due by `now`, each at the instant it fell
    /// due: a match clock that ran out while a player thought starts its
    /// overtime at that instant, and the overtime may run out too. Returns
    /// the result if the match ended. Used where time jumps rather than
    /// flows (simulated time, where [`Match::tick`] would see only `now`).
    ///
    /// ```
    /// use tabula_core::example::TicTacToe;
    /// use tabula_core::{matches::Match, Entry, DynGame, TimeControl};
    /// let state = Entry::<TicTacToe>::NEW.new_state(&[]).unwrap();
    /// let mut m = Match::new(state, TimeControl::MatchClock { total_ms: 1_000, overtime_ms: 500 }, 0);
    /// assert_eq!(m.advance_to(999), None);
    /// // Level at 1000 ms: the overtime runs from 1000 to 1500, then a draw.
    /// let r = m.advance_to(5_000).unwrap();
    /// assert_eq!((r.winner, r.reason.as_str()), (None, "level after overtime"));
    /// ```
    pub fn advance_to(&mut self, now: u64) -> Option<MatchResult> {
        while self.result.is_none() {
            match self.clock.deadline() {
                Some(due) if due <= now => {
                    if let Some(r) = self.tick(due) {
                        return Some(r);
                    }
                }
                _ => break,
            }
        }
        None
    }

    /// What the player on move may know of its clock at `now`, for an AI.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabula_core::example::TicTacToe;
    /// use tabula_core::{matches::Match, Entry, DynGame, TimeControl};
    /// let state = Entry::<TicTacToe>::NEW.new_state(&[]).unwrap();
    /// let m = Match::new(state, TimeControl::Fischer { base_ms: 60_000, increment_ms: 2_000 }, 0);
    /// let ctx = m.think_context(10_000);
    /// assert_eq!(ctx.remaining, Some(Duration::from_secs(50)));
    /// assert_eq!(ctx.increment, Some(Duration::from_secs(2)));
    /// ```
    pub fn think_context(&self, now: u64) -> ThinkContext {
        let mover = self.state.to_move();
        ThinkContext {
            remaining: self.clock.remaining(mover, now).map(Duration::from_millis),
            increment: match self.clock.control {
                TimeControl::Fischer { increment_ms, .. } => Some(Duration::from_millis(increment_ms)),
                _ => None,
            },
            ..ThinkContext::default()
        }
    }
}
