//! What front ends need beyond the rules: the description and AI levels,
//! the JSON view for the browser, the terminal board, and SGF records.

use crate::notation::sgf;
use crate::ring::{self, BACKTRACK};
use crate::rules::{Dots, Point};
use serde_json::{json, Value};
use tabula_core::{Agent, Game, GameLog, GameMeta, LevelSpec, Player, RecordError, Replayed};

impl GameMeta for Dots {
    const DESCRIPTION: &'static str =
        "Dots (Points): surround your opponent's dots on a 39x32 grid; automatic capture, grounding, championship formats";

    fn levels() -> Vec<LevelSpec> {
        crate::ai::levels()
    }

    fn default_level() -> &'static str {
        crate::ai::DEFAULT_LEVEL
    }

    fn new_agent(level: &str, seed: u64) -> Option<Box<dyn Agent<Self>>> {
        crate::ai::new_agent(level, seed)
    }

    fn level_forms() -> &'static [&'static str] {
        crate::ai::LEVEL_FORMS
    }

    fn analyse(&self, ctx: &tabula_core::ThinkContext) -> Result<tabula_core::Analysis, tabula_core::TabulaError> {
        crate::analysis::analyse(self, ctx)
    }

    fn view(&self) -> Value {
        view(self)
    }

    fn render_text(&self, color: bool) -> String {
        render(self, color)
    }

    fn record_format() -> &'static str {
        "sgf"
    }

    fn export(log: &GameLog) -> Result<String, RecordError> {
        sgf::export(log)
    }

    fn import(text: &str) -> Result<Vec<Replayed<Self>>, RecordError> {
        sgf::import(text)
    }
}

/// The number of cells of the padded board (points and border).
fn cells(d: &Dots) -> usize {
    d.stride * (d.height + 2)
}

/// The walls around a 4-connected set of points (`inside(p)` true), traced
/// as a closed loop of 8-connected points from the set's lowest point.
fn wall_loop(d: &Dots, inside: &dyn Fn(usize) -> bool, lowest: usize) -> Vec<[usize; 2]> {
    let ring = ring::offsets(d.stride);
    let start = lowest - d.stride;
    let mut cur = start;
    let mut back = 0usize;
    let mut first = usize::MAX;
    let mut out = Vec::new();
    for _ in 0..8 * cells(d) {
        let mut j = (back + 1) & 7;
        let mut k = 0;
        while k < 7 && inside((cur as isize + ring[j]) as usize) {
            j = (j + 1) & 7;
            k += 1;
        }
        if k == 7 {
            break;
        }
        if cur == start {
            if first == usize::MAX {
                first = j;
            } else if j == first {
                break;
            }
        }
        let (x, y) = d.xy(Point(cur as u16));
        out.push([x, y]);
        cur = (cur as isize + ring[j]) as usize;
        back = BACKTRACK[j];
    }
    out
}

/// The JSON view: dots, territories with their walls, empty bases, scores.
fn view(d: &Dots) -> Value {
    let players = Dots::PLAYERS;
    let mut dots = Vec::new();
    let mut bases: [Vec<[usize; 2]>; 2] = [Vec::new(), Vec::new()];
    for p in d.points() {
        let (x, y) = d.xy(p);
        if let Some((who, captured)) = d.dot_at(p) {
            dots.push(json!({
                "x": x, "y": y, "color": players[who.index()], "captured": captured,
                "grounded": !captured && d.is_grounded(p),
            }));
        } else if d.territory_at(p).is_none() {
            for q in Player::BOTH {
                if d.enclosed_by(p, q) {
                    bases[q.index()].push([x, y]);
                }
            }
        }
    }
    // Territories: 4-connected components of one owner's territory.
    let mut comp = vec![usize::MAX; cells(d)];
    let mut territories = Vec::new();
    for p in d.points() {
        let Some(owner) = d.territory_at(p) else { continue };
        if comp[p.0 as usize] != usize::MAX {
            continue;
        }
        let id = territories.len();
        let mut stack = vec![p];
        comp[p.0 as usize] = id;
        let mut points = Vec::new();
        let mut captured = 0;
        while let Some(v) = stack.pop() {
            if d.dot_at(v).is_some_and(|(who, _)| who != owner) {
                captured += 1;
            }
            let (px, py) = d.xy(v);
            points.push([px, py]);
            for n in d.neighbours(v) {
                if d.territory_at(n) == Some(owner) && comp[n.0 as usize] == usize::MAX {
                    comp[n.0 as usize] = id;
                    stack.push(n);
                }
            }
        }
        points.sort_by_key(|p| (p[1], p[0]));
        let lowest = d.point(points[0][0], points[0][1]).expect("a point of the board");
        let wall = wall_loop(d, &|n| comp[n] == id, lowest.0 as usize);
        territories.push(json!({
            "owner": players[owner.index()],
            "points": points,
            "wall": wall,
            "captured": captured,
        }));
    }
    let score = d.scores();
    let o = d.options();
    json!({
        "width": d.width(),
        "height": d.height(),
        "cross": o.cross,
        "format": o.format.name(),
        "stage": o.stage.name(),
        "to_move": players[d.to_move().index()],
        "moves": d.plies(),
        "dots": dots,
        "territories": territories,
        "bases": { "blue": bases[0], "red": bases[1] },
        "score": { "blue": score[0], "red": score[1] },
        "ungrounded": {
            "blue": { "dots": d.ungrounded_dots(Player::First), "captures": d.ungrounded_score(Player::First) },
            "red": { "dots": d.ungrounded_dots(Player::Second), "captures": d.ungrounded_score(Player::Second) },
        },
        "last_move": d.last_move().map(|p| d.format_move(p)),
    })
}

/// The board with y = height on top; Blue `X`, Red `O`, captured dots in
/// lower case, empty territory `+`, empty bases `,`.
fn render(d: &Dots, color: bool) -> String {
    let paint = |code: &str, s: String| if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s };
    let code = |who: Player| if who == Player::First { "34" } else { "31" };
    let mut out = String::new();
    let tens: String =
        (1..=d.width()).map(|x| format!(" {}", if x >= 10 { (x / 10).to_string() } else { " ".into() })).collect();
    let ones: String = (1..=d.width()).map(|x| format!(" {}", x % 10)).collect();
    out.push_str(&format!("   {tens}\n   {ones}\n"));
    for y in (1..=d.height()).rev() {
        out.push_str(&format!("{y:>3}"));
        for x in 1..=d.width() {
            let p = d.point(x, y).expect("on the board");
            let sep = if d.last_move() == Some(p) { '>' } else { ' ' };
            out.push(sep);
            let t = d.territory_at(p);
            let cell = match (d.dot_at(p), t) {
                (Some((who, captured)), _) => {
                    let ch = match (who, captured) {
                        (Player::First, false) => "X",
                        (Player::First, true) => "x",
                        (Player::Second, false) => "O",
                        (Player::Second, true) => "o",
                    };
                    // A captured dot takes the colour of the territory it lies in.
                    let shown = match t {
                        Some(owner) if captured => owner,
                        _ => who,
                    };
                    paint(code(shown), ch.to_string())
                }
                (None, Some(owner)) => paint(code(owner), "+".into()),
                (None, None) if d.enclosed_by(p, Player::First) => paint(code(Player::First), ",".into()),
                (None, None) if d.enclosed_by(p, Player::Second) => paint(code(Player::Second), ",".into()),
                (None, None) => ".".into(),
            };
            out.push_str(&cell);
        }
        out.push_str(&format!(" {y}\n"));
    }
    let s = d.scores();
    out.push_str(&format!(
        "score: blue {} red {}   move {}   {} to move\n",
        s[0],
        s[1],
        d.plies(),
        Dots::PLAYERS[d.to_move().index()]
    ));
    out
}
