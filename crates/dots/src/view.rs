//! What front ends draw: the JSON view for the browser and a terminal board.

use crate::engine::{terr_of, Dots, Point, DOT_MASK, OUTSIDE};
use serde_json::{json, Value};
use tabula_core::{Game, Player};

/// The walls around a 4-connected set of cells (`inside[c]` true), traced
/// as a closed loop of 8-connected points from the set's lowest cell.
fn wall_loop(d: &Dots, inside: &dyn Fn(usize) -> bool, lowest: usize) -> Vec<[usize; 2]> {
    let s = d.stride as isize;
    let ring = [s, s + 1, 1, 1 - s, -s, -s - 1, -1, s - 1];
    let backtrack = [6usize, 6, 0, 0, 2, 2, 4, 4];
    let start = lowest - d.stride;
    let mut cur = start;
    let mut back = 0usize;
    let mut first = usize::MAX;
    let mut out = Vec::new();
    for _ in 0..8 * d.cells.len() {
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
        back = backtrack[j];
    }
    out
}

pub fn view(d: &Dots) -> Value {
    let players = Dots::PLAYERS;
    let mut dots = Vec::new();
    let mut bases: [Vec<[usize; 2]>; 2] = [Vec::new(), Vec::new()];
    for y in 1..=d.height {
        for x in 1..=d.width {
            let p = Point(d.cell(x, y) as u16);
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
    }
    // Territories: 4-connected components of one owner's territory.
    let mut comp = vec![usize::MAX; d.cells.len()];
    let mut territories = Vec::new();
    for y in 1..=d.height {
        for x in 1..=d.width {
            let c = d.cell(x, y);
            let owner = terr_of(d.cells[c]);
            if owner == 0 || comp[c] != usize::MAX {
                continue;
            }
            let id = territories.len();
            let mut stack = vec![c];
            comp[c] = id;
            let mut points = Vec::new();
            let mut captured = 0;
            while let Some(v) = stack.pop() {
                let cell = d.cells[v];
                if cell & DOT_MASK != 0 && (cell & DOT_MASK) as u8 != owner {
                    captured += 1;
                }
                let (px, py) = d.xy(Point(v as u16));
                points.push([px, py]);
                for o in [d.stride as isize, 1, -(d.stride as isize), -1] {
                    let n = (v as isize + o) as usize;
                    if d.cells[n] & OUTSIDE == 0 && terr_of(d.cells[n]) == owner && comp[n] == usize::MAX {
                        comp[n] = id;
                        stack.push(n);
                    }
                }
            }
            points.sort_by_key(|p| (p[1], p[0]));
            let lowest = d.cell(points[0][0], points[0][1]);
            let wall = wall_loop(d, &|n| comp[n] == id, lowest);
            territories.push(json!({
                "owner": players[owner as usize - 1],
                "points": points,
                "wall": wall,
                "captured": captured,
            }));
        }
    }
    let score = d.scores();
    let o = d.opts();
    json!({
        "width": d.width,
        "height": d.height,
        "cross": o.cross,
        "format": o.format.name(),
        "stage": o.stage.name(),
        "to_move": players[d.to_move.index()],
        "moves": d.plies,
        "dots": dots,
        "territories": territories,
        "bases": { "blue": bases[0], "red": bases[1] },
        "score": { "blue": score[0], "red": score[1] },
        "ungrounded": {
            "blue": { "dots": d.ungrounded_dots(Player::First), "captures": d.ungrounded_score(Player::First) },
            "red": { "dots": d.ungrounded_dots(Player::Second), "captures": d.ungrounded_score(Player::Second) },
        },
        "last_move": d.last_move().map(|p| d.point_name(p)),
    })
}

/// The board with y = height on top; Blue `X`, Red `O`, captured dots in
/// lower case, empty territory `+`, empty bases `,`.
pub fn render(d: &Dots, color: bool) -> String {
    let paint = |code: &str, s: String| if color { format!("\x1b[{code}m{s}\x1b[0m") } else { s };
    let code = |who: u8| if who == 1 { "34" } else { "31" };
    let mut out = String::new();
    let tens: String =
        (1..=d.width).map(|x| format!(" {}", if x >= 10 { (x / 10).to_string() } else { " ".into() })).collect();
    let ones: String = (1..=d.width).map(|x| format!(" {}", x % 10)).collect();
    out.push_str(&format!("   {tens}\n   {ones}\n"));
    for y in (1..=d.height).rev() {
        out.push_str(&format!("{y:>3}"));
        for x in 1..=d.width {
            let p = Point(d.cell(x, y) as u16);
            let sep = if d.last_move() == Some(p) { '>' } else { ' ' };
            out.push(sep);
            let v = d.cells[p.0 as usize];
            let t = terr_of(v);
            let cell = match d.dot_at(p) {
                Some((who, captured)) => {
                    let w = who.index() as u8 + 1;
                    let ch = match (w, captured) {
                        (1, false) => "X",
                        (1, true) => "x",
                        (_, false) => "O",
                        (_, true) => "o",
                    };
                    // A captured dot takes the colour of the territory it lies in.
                    paint(if captured && t != 0 { code(t) } else { code(w) }, ch.to_string())
                }
                None if t != 0 => paint(code(t), "+".into()),
                None if d.enclosed_by(p, Player::First) => paint(code(1), ",".into()),
                None if d.enclosed_by(p, Player::Second) => paint(code(2), ",".into()),
                None => ".".into(),
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
        d.plies,
        Dots::PLAYERS[d.to_move.index()]
    ));
    out
}
