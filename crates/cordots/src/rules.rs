//! The Cordots rules on bitboards: [`Cordots`] and its `impl Game`.

use crate::bitboard::*;
use crate::notation;
use crate::options::CordotsOptions;
use rand::rngs::SmallRng;
use rand::Rng;
use tabula_core::{Game, NotationError, Outcome, Player, Status};

/// Piece kinds, the second index of [`Cordots::pieces`].
pub const CAPTURER: usize = 0;
/// See [`CAPTURER`].
pub const VICTIM: usize = 1;
/// `Move::restore` when the move is no sacrifice.
pub const NO_SQUARE: u8 = 64;

/// A step of one piece; `restore` names the Victim replaced by a Capturer
/// from the reserve when the move makes a back-row sacrifice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece leaves.
    pub from: u8,
    /// The square it steps to.
    pub to: u8,
    /// The Victim replaced by a reserve Capturer, or [`NO_SQUARE`].
    pub restore: u8,
}

impl Move {
    /// A step without a sacrifice.
    pub const fn step(from: u8, to: u8) -> Move {
        Move { from, to, restore: NO_SQUARE }
    }
    /// A step that makes the back-row sacrifice, restoring `restore`.
    pub const fn sacrifice(from: u8, to: u8, restore: u8) -> Move {
        Move { from, to, restore }
    }
    /// The Victim the sacrifice replaces, if the move makes one.
    pub fn restore(self) -> Option<u8> {
        (self.restore < 64).then_some(self.restore)
    }
}

/// What a move would do, before it is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    /// Enemy pieces the move captures (step 2).
    pub captured: Bitboard,
    /// The moved piece dies stepping into a sandwich (step 3).
    pub dies: bool,
    /// The move ends in the forced back-row sacrifice (step 4).
    pub sacrifice: bool,
}

/// Why a Victim on the target row is not sacrificed, if it is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoSacrifice {
    /// The piece is a Capturer.
    NotAVictim,
    /// The move does not reach the far rank.
    NotOnTargetRow,
    /// The Victim is captured as it arrives.
    DiesOnArrival,
    /// No captured Capturer waits in reserve.
    NoReserve,
    /// The side has no Capturer on the board.
    NoCapturerOnBoard,
    /// The side has no other Victim to replace.
    NoOtherVictim,
}

impl NoSacrifice {
    /// Why, for a person, with the side's name and the rank it aims for.
    pub fn explain(self, side: &str, target_rank: u8) -> String {
        match self {
            NoSacrifice::NotAVictim => "only a Victim can make the back-row sacrifice".into(),
            NoSacrifice::NotOnTargetRow => format!("the move does not end on rank {target_rank}"),
            NoSacrifice::DiesOnArrival => "the Victim is captured on arrival (it steps into a sandwich)".into(),
            NoSacrifice::NoReserve => format!("{side} has no Capturer in reserve"),
            NoSacrifice::NoCapturerOnBoard => format!("{side} has no Capturer on the board"),
            NoSacrifice::NoOtherVictim => format!("{side} has no other Victim on the board to replace"),
        }
    }
}

/// The captures and step-in of a piece arriving on `to_bb`, given the
/// mover's pieces after the step and the enemy's pieces before captures.
#[inline(always)]
fn captures_and_step_in(own_after: Bitboard, enemy: Bitboard, to_bb: Bitboard) -> (Bitboard, bool) {
    // An enemy next to `to` is captured when the square beyond it is ours.
    let captured = (north(to_bb) & enemy & south(own_after))
        | (south(to_bb) & enemy & north(own_after))
        | (east(to_bb) & enemy & west(own_after))
        | (west(to_bb) & enemy & east(own_after));
    let dies = sandwiched(to_bb, enemy & !captured) != 0;
    (captured, dies)
}

/// A Cordots game: the position plus the history repetition needs.
#[derive(Debug)]
pub struct Cordots {
    /// `[side][kind]`, side 0 White, kind [`CAPTURER`] or [`VICTIM`].
    pieces: [[Bitboard; 2]; 2],
    /// Each side's own captured Capturers, waiting to be restored.
    reserve: [u8; 2],
    to_move: Player,
    plies: u32,
    hash: u64,
    /// Hashes since the last capture or sacrifice, current position last.
    /// Those moves can never be undone, so older positions cannot recur.
    history: Vec<u64>,
    status: Status,
    last_move: Option<Move>,
    /// Squares emptied by the last move's captures, step-in or sacrifice.
    last_removed: Bitboard,
    options: CordotsOptions,
}

impl Clone for Cordots {
    fn clone(&self) -> Self {
        // Every field but the history is Copy.
        let mut c = Cordots { history: Vec::with_capacity(self.history.capacity().max(64)), ..*self };
        c.history.extend_from_slice(&self.history);
        c
    }
    fn clone_from(&mut self, src: &Self) {
        self.pieces = src.pieces;
        self.reserve = src.reserve;
        self.to_move = src.to_move;
        self.plies = src.plies;
        self.hash = src.hash;
        self.history.clear();
        self.history.extend_from_slice(&src.history);
        self.status = src.status;
        self.last_move = src.last_move;
        self.last_removed = src.last_removed;
        self.options = src.options;
    }
}

impl Cordots {
    fn side_name(side: usize) -> &'static str {
        ["white", "black"][side]
    }

    /// The pieces of one side and kind.
    #[inline]
    pub fn pieces(&self, side: Player, kind: usize) -> Bitboard {
        self.pieces[side.index()][kind]
    }
    /// Every piece of a side.
    #[inline]
    pub fn occupied_by(&self, side: Player) -> Bitboard {
        let s = side.index();
        self.pieces[s][CAPTURER] | self.pieces[s][VICTIM]
    }
    /// Every piece on the board.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occupied_by(Player::First) | self.occupied_by(Player::Second)
    }
    /// A side's captured Capturers, waiting to be restored.
    pub fn reserve(&self, side: Player) -> u8 {
        self.reserve[side.index()]
    }
    /// The last move played (with the Victim actually restored).
    pub fn last_move(&self) -> Option<Move> {
        self.last_move
    }
    /// The squares emptied by the last move's captures, step-in or sacrifice.
    pub fn last_removed(&self) -> Bitboard {
        self.last_removed
    }
    /// The piece on a square: (owner, kind).
    pub fn piece_at(&self, sq: u8) -> Option<(Player, usize)> {
        let b = bit(sq);
        for side in Player::BOTH {
            for kind in [CAPTURER, VICTIM] {
                if self.pieces[side.index()][kind] & b != 0 {
                    return Some((side, kind));
                }
            }
        }
        None
    }

    /// A position from bitboards, validated like a position string.
    pub fn from_parts(
        pieces: [[Bitboard; 2]; 2],
        reserve: [u8; 2],
        to_move: Player,
        options: &CordotsOptions,
    ) -> Result<Cordots, NotationError> {
        let mut g = Cordots {
            pieces,
            reserve,
            to_move,
            plies: 0,
            hash: 0,
            history: Vec::with_capacity(64),
            status: Status::Ongoing,
            last_move: None,
            last_removed: 0,
            options: *options,
        };
        g.validate()?;
        g.hash = g.hash_from_scratch();
        g.history.push(g.hash);
        g.status = g.judge();
        Ok(g)
    }

    fn validate(&self) -> Result<(), NotationError> {
        let [w, b] = self.pieces;
        let all = [w[0], w[1], b[0], b[1]];
        for i in 0..4 {
            for j in i + 1..4 {
                if all[i] & all[j] != 0 {
                    let sq = (all[i] & all[j]).trailing_zeros() as u8;
                    return Err(NotationError::new(format!("two pieces on {}", square_name(sq))));
                }
            }
        }
        for s in 0..2 {
            let name = Self::side_name(s);
            let capturers = self.pieces[s][CAPTURER].count_ones() + self.reserve[s] as u32;
            if capturers > 8 {
                return Err(NotationError::new(format!(
                    "{name} has {capturers} Capturers on the board and in reserve together (at most 8)"
                )));
            }
            let victims = self.pieces[s][VICTIM].count_ones();
            if victims > 8 {
                return Err(NotationError::new(format!("{name} has {victims} Victims (at most 8)")));
            }
            let own = self.pieces[s][0] | self.pieces[s][1];
            if own == 0 {
                return Err(NotationError::new(format!("{name} has no piece on the board")));
            }
            let enemy = self.pieces[1 - s][0] | self.pieces[1 - s][1];
            let trapped = sandwiched(own, enemy);
            if trapped != 0 {
                let sq = trapped.trailing_zeros() as u8;
                return Err(NotationError::new(format!(
                    "the {name} piece on {} is sandwiched between two enemy pieces, which cannot stand after a move",
                    square_name(sq)
                )));
            }
        }
        let counts = [self.occupied_by(Player::First).count_ones(), self.occupied_by(Player::Second).count_ones()];
        if counts == [1, 1] {
            return Err(NotationError::new("both sides are down to one piece, which cannot arise in play"));
        }
        Ok(())
    }

    /// What moving the piece on `from` to `to` would do, for the side to move.
    pub fn resolve(&self, from: u8, to: u8) -> Resolution {
        let s = self.to_move.index();
        let (from_bb, to_bb) = (bit(from), bit(to));
        let own_after = (self.occupied_by(self.to_move) & !from_bb) | to_bb;
        let (captured, dies) = captures_and_step_in(own_after, self.occupied_by(self.to_move.other()), to_bb);
        let sacrifice = !dies && self.sacrifice_conditions(s, from_bb, to_bb).is_ok();
        Resolution { captured, dies, sacrifice }
    }

    /// Every condition of the sacrifice except the Victim's survival.
    #[inline(always)]
    fn sacrifice_conditions(&self, s: usize, from_bb: Bitboard, to_bb: Bitboard) -> Result<(), NoSacrifice> {
        let p = &self.pieces[s];
        if p[VICTIM] & from_bb == 0 {
            Err(NoSacrifice::NotAVictim)
        } else if TARGET_ROW[s] & to_bb == 0 {
            Err(NoSacrifice::NotOnTargetRow)
        } else if self.reserve[s] == 0 {
            Err(NoSacrifice::NoReserve)
        } else if p[CAPTURER] == 0 {
            Err(NoSacrifice::NoCapturerOnBoard)
        } else if p[VICTIM] & !from_bb == 0 {
            Err(NoSacrifice::NoOtherVictim)
        } else {
            Ok(())
        }
    }

    /// Why the move from `from` to `to` makes no sacrifice (`Ok` when it does).
    pub fn why_no_sacrifice(&self, from: u8, to: u8) -> Result<(), NoSacrifice> {
        let s = self.to_move.index();
        self.sacrifice_conditions(s, bit(from), bit(to))?;
        if self.resolve(from, to).dies {
            return Err(NoSacrifice::DiesOnArrival);
        }
        Ok(())
    }

    #[inline(always)]
    fn set_reserve(&mut self, s: usize, n: u8) {
        let n = n.min(8);
        self.hash ^= KEYS.reserve[s][self.reserve[s] as usize] ^ KEYS.reserve[s][n as usize];
        self.reserve[s] = n;
    }

    /// The status of the position, after a move or on loading: the side to
    /// move is checked first, then the other side, then whether the side to
    /// move can move, then repetition, then the untimed ply cap.
    fn judge(&self) -> Status {
        let stm = self.to_move;
        for (loser, winner) in [(stm, stm.other()), (stm.other(), stm)] {
            let l = loser.index();
            let left = self.pieces[l][CAPTURER] | self.pieces[l][VICTIM];
            if left.count_ones() <= 1 {
                let reason = if self.pieces[l][CAPTURER] != 0 { "capturer elimination" } else { "total elimination" };
                return Status::Over(Outcome::win(winner, reason));
            }
        }
        let empty = !self.occupied();
        if neighbours(self.occupied_by(stm)) & empty == 0 {
            return Status::Over(Outcome::win(stm.other(), "no legal move"));
        }
        if self.repetitions() >= 3 {
            return Status::Over(Outcome::draw("threefold repetition"));
        }
        if let Some(cap) = self.options.ply_cap() {
            if self.plies >= cap {
                return Status::Over(match self.tiebreak() {
                    Some(w) => Outcome::win(w, "tie-breaker at the ply cap"),
                    None => Outcome::draw("level at the ply cap"),
                });
            }
        }
        Status::Ongoing
    }

    /// The same position as if `plies` plies had been played to reach it
    /// (for tests near the untimed cap); the status is judged anew.
    pub fn with_plies(mut self, plies: u32) -> Cordots {
        self.plies = plies;
        self.status = self.judge();
        self
    }

    /// Hand the move to the opponent without moving. Not a Cordots move:
    /// what a null-move search asks ("if I could pass, would I still be
    /// doing well?"). The ply counts, the repetition history starts afresh
    /// (a passed position never happened) and the status is judged anew
    /// (the new mover may have no move).
    pub fn pass_for_search(&mut self) {
        self.to_move = self.to_move.other();
        self.hash ^= KEYS.black_to_move;
        self.plies += 1;
        self.history.clear();
        self.history.push(self.hash);
        self.last_move = None;
        self.last_removed = 0;
        self.status = self.judge();
    }

    /// How often the current position has occurred (1 the first time).
    pub fn repetitions(&self) -> usize {
        // The hash holds the side to move, so only every other entry can match.
        self.history.iter().rev().step_by(2).filter(|&&h| h == self.hash).count()
    }

    /// Piece counts `[white, black]` of one kind on the board.
    pub fn counts(&self, kind: usize) -> [u32; 2] {
        [self.pieces[0][kind].count_ones(), self.pieces[1][kind].count_ones()]
    }

    fn describe_piece(side: usize, kind: usize) -> String {
        format!("a {} {}", Self::side_name(side), if kind == CAPTURER { "Capturer" } else { "Victim" })
    }

    /// Pick a random legal move without listing them all: a uniformly random
    /// piece step, then (for a sacrifice) a uniformly random Victim to restore.
    #[inline]
    pub fn random_move(&self, rng: &mut SmallRng) -> Option<Move> {
        let s = self.to_move.index();
        let own = self.pieces[s][CAPTURER] | self.pieces[s][VICTIM];
        let empty = !(own | self.occupied_by(self.to_move.other()));
        let m = [movers(own, empty, 0), movers(own, empty, 1), movers(own, empty, 2), movers(own, empty, 3)];
        let c = [m[0].count_ones(), m[1].count_ones(), m[2].count_ones(), m[3].count_ones()];
        let total = c[0] + c[1] + c[2] + c[3];
        if total == 0 {
            return None;
        }
        let mut r = rng.random_range(0..total);
        let mut d = 0;
        while r >= c[d] {
            r -= c[d];
            d += 1;
        }
        let from = nth_bit(m[d], r);
        let to = (from as i8 + DIRECTIONS[d]) as u8;
        let (from_bb, to_bb) = (bit(from), bit(to));
        if self.sacrifice_conditions(s, from_bb, to_bb).is_ok() {
            let (_, dies) = captures_and_step_in(own ^ from_bb ^ to_bb, !own & !empty, to_bb);
            if !dies {
                let others = self.pieces[s][VICTIM] & !from_bb;
                let restore = nth_bit(others, rng.random_range(0..others.count_ones()));
                return Some(Move::sacrifice(from, to, restore));
            }
        }
        Some(Move::step(from, to))
    }
}

impl Game for Cordots {
    type Move = Move;
    type Options = CordotsOptions;

    const ID: &'static str = "cordots";
    const NAME: &'static str = "Cordots";
    const PLAYERS: [&'static str; 2] = ["white", "black"];

    fn new(options: &CordotsOptions) -> Self {
        let pieces = [[RANK_1, RANK_1 << 8], [RANK_8, RANK_8 >> 8]];
        Cordots::from_parts(pieces, [0, 0], Player::First, options).expect("the start position is valid")
    }

    fn from_position(position: &str, options: &CordotsOptions) -> Result<Self, NotationError> {
        notation::parse_position(position, options)
    }

    fn position(&self) -> Option<String> {
        notation::write_position(self)
    }

    fn options(&self) -> &CordotsOptions {
        &self.options
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.status.is_over() {
            return;
        }
        let s = self.to_move.index();
        let own = self.pieces[s][CAPTURER] | self.pieces[s][VICTIM];
        let enemy = self.occupied_by(self.to_move.other());
        let empty = !(own | enemy);
        let victims = self.pieces[s][VICTIM];
        let may_sacrifice = self.reserve[s] > 0 && self.pieces[s][CAPTURER] != 0 && victims.count_ones() >= 2;
        for (d, &delta) in DIRECTIONS.iter().enumerate() {
            for from in squares(movers(own, empty, d)) {
                let to = (from as i8 + delta) as u8;
                let (from_bb, to_bb) = (bit(from), bit(to));
                if may_sacrifice && victims & from_bb != 0 && TARGET_ROW[s] & to_bb != 0 {
                    let (_, dies) = captures_and_step_in(own ^ from_bb ^ to_bb, enemy, to_bb);
                    if !dies {
                        out.extend(squares(victims & !from_bb).map(|r| Move::sacrifice(from, to, r)));
                        continue;
                    }
                }
                out.push(Move::step(from, to));
            }
        }
    }

    fn play(&mut self, mv: Move) {
        let s = self.to_move.index();
        let e = 1 - s;
        let (from, to) = (mv.from & 63, mv.to & 63);
        let (from_bb, to_bb) = (bit(from), bit(to));
        let kind = if self.pieces[s][VICTIM] & from_bb != 0 { VICTIM } else { CAPTURER };
        // 1. The piece moves.
        self.pieces[s][kind] ^= from_bb | to_bb;
        self.hash ^= KEYS.piece[s][kind][from as usize] ^ KEYS.piece[s][kind][to as usize];
        let own = self.pieces[s][CAPTURER] | self.pieces[s][VICTIM];
        let enemy = self.pieces[e][CAPTURER] | self.pieces[e][VICTIM];
        // 2. Active captures, 3. step-in.
        let (captured, dies) = captures_and_step_in(own, enemy, to_bb);
        let mut removed = captured;
        let mut restored = NO_SQUARE;
        if captured != 0 {
            let lost_capturers = captured & self.pieces[e][CAPTURER];
            let lost_victims = captured & self.pieces[e][VICTIM];
            for sq in squares(lost_capturers) {
                self.hash ^= KEYS.piece[e][CAPTURER][sq as usize];
            }
            for sq in squares(lost_victims) {
                self.hash ^= KEYS.piece[e][VICTIM][sq as usize];
            }
            self.pieces[e][CAPTURER] ^= lost_capturers;
            self.pieces[e][VICTIM] ^= lost_victims;
            if lost_capturers != 0 {
                self.set_reserve(e, self.reserve[e] + lost_capturers.count_ones() as u8);
            }
        }
        if dies {
            self.pieces[s][kind] ^= to_bb;
            self.hash ^= KEYS.piece[s][kind][to as usize];
            removed |= to_bb;
            if kind == CAPTURER {
                self.set_reserve(s, self.reserve[s] + 1);
            }
        } else if self.sacrifice_conditions(s, to_bb, to_bb).is_ok() {
            // 4. The back-row sacrifice. (`to` stands in for `from` above:
            // the Victim has already moved there.)
            self.pieces[s][VICTIM] ^= to_bb;
            self.hash ^= KEYS.piece[s][VICTIM][to as usize];
            removed |= to_bb;
            let victims = self.pieces[s][VICTIM];
            let r = if mv.restore < 64 && victims & bit(mv.restore) != 0 {
                mv.restore
            } else {
                victims.trailing_zeros() as u8 // only for an illegal move
            };
            self.pieces[s][VICTIM] ^= bit(r);
            self.pieces[s][CAPTURER] ^= bit(r);
            self.hash ^= KEYS.piece[s][VICTIM][r as usize] ^ KEYS.piece[s][CAPTURER][r as usize];
            self.set_reserve(s, self.reserve[s] - 1);
            restored = r;
        }
        self.to_move = self.to_move.other();
        self.hash ^= KEYS.black_to_move;
        self.plies += 1;
        if removed != 0 {
            self.history.clear();
        }
        self.history.push(self.hash);
        self.last_move = Some(Move { from, to, restore: restored });
        self.last_removed = removed;
        self.status = self.judge();
    }

    fn status(&self) -> Status {
        self.status
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for s in 0..2 {
            for kind in [CAPTURER, VICTIM] {
                for sq in squares(self.pieces[s][kind]) {
                    h ^= KEYS.piece[s][kind][sq as usize];
                }
            }
            h ^= KEYS.reserve[s][self.reserve[s].min(8) as usize];
        }
        if self.to_move == Player::Second {
            h ^= KEYS.black_to_move;
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<Move, NotationError> {
        notation::parse_move(text)
    }

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(mv)
    }

    fn explain_illegal(&self, mv: Move) -> String {
        let s = self.to_move.index();
        let me = Self::side_name(s);
        let (from, to) = (mv.from & 63, mv.to & 63);
        let (f, t) = (square_name(from), square_name(to));
        match self.piece_at(from) {
            None => return format!("there is no piece on {f}"),
            Some((side, kind)) if side.index() != s => {
                return format!("{f} holds {}, and it is {me}'s turn", Self::describe_piece(side.index(), kind))
            }
            _ => {}
        }
        let (df, dr) = ((from % 8) as i32 - (to % 8) as i32, (from / 8) as i32 - (to / 8) as i32);
        if df.abs() + dr.abs() != 1 {
            return format!("{f}-{t} is not a step: a piece moves one square up, down, left or right");
        }
        if let Some((side, kind)) = self.piece_at(to) {
            return format!("{t} is occupied by {}; a piece moves only onto an empty square", {
                Self::describe_piece(side.index(), kind)
            });
        }
        let target_rank = if s == 0 { 8 } else { 1 };
        let choices = || squares(self.pieces[s][VICTIM] & !bit(from)).map(square_name).collect::<Vec<_>>().join(", ");
        match (self.why_no_sacrifice(from, to), mv.restore()) {
            (Ok(()), None) => format!(
                "{f}-{t} brings a Victim to rank {target_rank} and forces the back-row sacrifice: name the {me} \
                 Victim to replace with a Capturer from the reserve, e.g. {f}-{t}={} (choices: {})",
                square_name(squares(self.pieces[s][VICTIM] & !bit(from)).next().unwrap_or(0)),
                choices()
            ),
            (Ok(()), Some(r)) => format!(
                "{} is not another {me} Victim on the board, so it cannot be replaced (choices: {})",
                square_name(r),
                choices()
            ),
            (Err(why), Some(_)) => {
                format!("{f}-{t} makes no back-row sacrifice, so it takes no '=': {}", why.explain(me, target_rank))
            }
            (Err(_), None) => "not a legal move in this position".to_string(),
        }
    }

    fn random_playout(&mut self, rng: &mut SmallRng, _moves: &mut Vec<Move>, max_plies: u32) -> u32 {
        let mut n = 0;
        while n < max_plies && !self.status.is_over() {
            match self.random_move(rng) {
                Some(m) => self.play(m),
                None => break,
            }
            n += 1;
        }
        n
    }

    fn tiebreak(&self) -> Option<Player> {
        let victims = self.counts(VICTIM);
        // Only one category counts: Victims while either side has one,
        // Capturers in burnout. Reserves never count.
        let [w, b] = if victims != [0, 0] { victims } else { self.counts(CAPTURER) };
        match w.cmp(&b) {
            std::cmp::Ordering::Greater => Some(Player::First),
            std::cmp::Ordering::Less => Some(Player::Second),
            std::cmp::Ordering::Equal => None,
        }
    }
}
