//! The generic AIs on a game small enough to know the answers: tic-tac-toe.

use std::time::Duration;
use tabula_ai::alphabeta::WIN;
use tabula_ai::{AlphaBeta, AlphaBetaConfig, Evaluator, Mcts, MctsConfig, RandomPolicy};
use tabula_core::{Agent, Game, NoOptions, NotationError, Outcome, Player, Status, ThinkContext};

#[derive(Debug, Clone)]
struct TicTacToe {
    cells: [u8; 9], // 0 empty, 1 first, 2 second
    to_move: Player,
    plies: u32,
    status: Status,
}

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

impl Game for TicTacToe {
    type Move = u8;
    type Options = NoOptions;
    const ID: &'static str = "tictactoe";
    const NAME: &'static str = "Tic-tac-toe";
    const PLAYERS: [&'static str; 2] = ["x", "o"];

    fn new(_: &NoOptions) -> Self {
        TicTacToe { cells: [0; 9], to_move: Player::First, plies: 0, status: Status::Ongoing }
    }
    fn from_position(position: &str, _: &NoOptions) -> Result<Self, NotationError> {
        let b = position.as_bytes();
        if b.len() != 9 {
            return Err(NotationError::new("nine cells of . x o"));
        }
        let mut g = Self::new(&NoOptions);
        for (i, c) in b.iter().enumerate() {
            g.cells[i] = match c {
                b'.' => 0,
                b'x' => 1,
                b'o' => 2,
                _ => return Err(NotationError::new("nine cells of . x o")),
            };
        }
        let n = g.cells.iter().filter(|&&c| c != 0).count();
        g.to_move = if n % 2 == 0 { Player::First } else { Player::Second };
        g.status = g.judge();
        Ok(g)
    }
    fn position(&self) -> Option<String> {
        Some(self.cells.iter().map(|c| ['.', 'x', 'o'][*c as usize]).collect())
    }
    fn options(&self) -> &NoOptions {
        &NoOptions
    }
    fn to_move(&self) -> Player {
        self.to_move
    }
    fn legal_moves(&self, out: &mut Vec<u8>) {
        out.clear();
        if !self.status.is_over() {
            out.extend((0..9).filter(|&i| self.cells[i as usize] == 0));
        }
    }
    fn play(&mut self, mv: u8) {
        self.cells[mv as usize] = self.to_move.index() as u8 + 1;
        self.to_move = self.to_move.other();
        self.plies += 1;
        self.status = self.judge();
    }
    fn status(&self) -> Status {
        self.status
    }
    fn plies(&self) -> u32 {
        self.plies
    }
    fn hash(&self) -> u64 {
        self.cells.iter().fold(self.to_move.index() as u64, |h, &c| h * 3 + c as u64)
    }
    fn hash_from_scratch(&self) -> u64 {
        self.hash()
    }
    fn parse_move(&self, text: &str) -> Result<u8, NotationError> {
        text.parse::<u8>().ok().filter(|&m| m < 9).ok_or_else(|| NotationError::new("a cell 0..8"))
    }
    fn format_move(&self, mv: u8) -> String {
        mv.to_string()
    }
}

impl TicTacToe {
    fn judge(&self) -> Status {
        for l in LINES {
            let c = self.cells[l[0]];
            if c != 0 && c == self.cells[l[1]] && c == self.cells[l[2]] {
                return Status::Over(Outcome::win(Player::from_index(c as usize - 1), "three in a row"));
            }
        }
        if self.cells.iter().all(|&c| c != 0) {
            Status::Over(Outcome::draw("board full"))
        } else {
            Status::Ongoing
        }
    }
}

struct Zero;
impl Evaluator<TicTacToe> for Zero {
    fn evaluate(&mut self, _: &TicTacToe) -> i32 {
        0
    }
}

fn mcts(seed: u64, iterations: u64) -> Mcts<TicTacToe, RandomPolicy<TicTacToe>> {
    Mcts::new(MctsConfig { iterations: Some(iterations), seed, ..MctsConfig::default() }, RandomPolicy::default())
}

#[test]
fn conformance() {
    for seed in 0..50 {
        tabula_core::conformance::check_random_game(&TicTacToe::new(&NoOptions), seed, 20).unwrap();
    }
}

#[test]
fn mcts_takes_a_win_in_one_and_blocks_a_loss() {
    // x to move wins at 2.
    let win = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    assert_eq!(mcts(1, 2000).choose(&win, &ThinkContext::default()), 2);
    // o to move must block at 2 (x threatens 0-1-2).
    let block = TicTacToe::from_position("xx..o....", &NoOptions).unwrap();
    assert_eq!(mcts(2, 5000).choose(&block, &ThinkContext::default()), 2);
}

#[test]
fn mcts_is_deterministic_for_a_seed() {
    let start = TicTacToe::new(&NoOptions);
    let a: Vec<u8> = (0..3).map(|_| mcts(7, 500).choose(&start, &ThinkContext::default())).collect();
    let b: Vec<u8> = (0..3).map(|_| mcts(7, 500).choose(&start, &ThinkContext::default())).collect();
    assert_eq!(a, b);
}

#[test]
fn mcts_reuses_its_tree_between_moves() {
    let mut ai = mcts(3, 3000);
    let mut g = TicTacToe::new(&NoOptions);
    let m = ai.choose(&g, &ThinkContext::default());
    g.play(m);
    // The opponent replies; the next search starts from the known subtree.
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    g.play(moves[0]);
    ai.choose(&g, &ThinkContext::default());
    assert!(ai.stats.reused_visits > 0, "no visits were reused");
}

#[test]
fn mcts_respects_a_time_budget() {
    let mut ai = Mcts::new(
        MctsConfig { iterations: None, time: Some(Duration::from_millis(50)), ..MctsConfig::default() },
        RandomPolicy::<TicTacToe>::default(),
    );
    let started = std::time::Instant::now();
    ai.choose(&TicTacToe::new(&NoOptions), &ThinkContext::default());
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(ai.stats.iterations > 0);
}

#[test]
fn alphabeta_solves_tictactoe() {
    let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
    ab.search(&TicTacToe::new(&NoOptions), &ThinkContext::default());
    assert_eq!(ab.stats.score, 0, "tic-tac-toe is a draw");
    let win = TicTacToe::from_position("xx.oo....", &NoOptions).unwrap();
    assert_eq!(ab.search(&win, &ThinkContext::default()), 2);
    assert_eq!(ab.stats.score, WIN - 1);
    // o to move, x has a double threat: o loses whatever it does.
    let lost = TicTacToe::from_position("x.x.o.x.o", &NoOptions).unwrap();
    ab.search(&lost, &ThinkContext::default());
    assert!(ab.stats.score <= -(WIN - 10), "score {}", ab.stats.score);
}

#[test]
fn perfect_players_draw() {
    let mut g = TicTacToe::new(&NoOptions);
    let mut ab = AlphaBeta::new(AlphaBetaConfig { max_depth: 9, time: None, ..AlphaBetaConfig::default() }, Zero);
    while !g.status().is_over() {
        let m = ab.search(&g, &ThinkContext::default());
        g.play(m);
    }
    assert_eq!(g.status(), Status::Over(Outcome::draw("board full")));
}
